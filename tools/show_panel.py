"""Show one panel alone (for screenshots and trying things out), on a real controller.

    python -m tools.show_panel merge|encode|vocab|playback [--corpus worked|zh|en|shakespeare|FILE]
        [--steps N] [--dark] [--shot out.png] [--size 1100x700] [--text "..."]
        [--words] [--import-tokenizer PATH] [--word " unbelievable"] [--at K]

Without --shot the window opens; with it the panel is rendered off screen and saved.
Run it from the repository's root. --corpus shakespeare reads en-tinyshakespeare.txt.xz from
BPE_GUI_CORPORA_DIR, by default the excerpt in tests/fixtures/corpora.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR") or ROOT / "tests" / "fixtures" / "corpora")

WORKED = "low low lower newest newest widest widest widest"
ZH_TEXT = ("分词器把文字切成 token，再换成编号。Byte-pair encoding 从字节开始，"
           "一次合并最常见的一对：low, lower, newest, widest.\n"
           "模型并不认识“字”或者“词”，它只认识整数编号。")
EN_TEXT = ("The lowest and the newest of the widest words: low, lower, newest, widest.\n"
           "Tokenizers cut text into pieces;\tspaces count too.")


def corpus_text(name: str) -> str:
    if name == "worked":
        return WORKED
    if name == "zh":
        return (ROOT / "resources" / "samples" / "zh-en.txt").read_text(encoding="utf-8")
    if name == "en":
        return (ROOT / "resources" / "samples" / "en-paragraphs.txt").read_text(encoding="utf-8")
    if name == "shakespeare":
        import lzma
        return lzma.open(CORPORA / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8").read()
    return Path(name).read_text(encoding="utf-8")


def dark_palette():
    from PySide6.QtGui import QColor, QPalette
    p = QPalette()
    for role, c in ((QPalette.Window, "#202124"), (QPalette.WindowText, "#e8eaed"),
                    (QPalette.Base, "#17181a"), (QPalette.AlternateBase, "#26282b"),
                    (QPalette.Text, "#e8eaed"), (QPalette.Button, "#2d2f33"),
                    (QPalette.ButtonText, "#e8eaed"), (QPalette.Highlight, "#3d6db5"),
                    (QPalette.HighlightedText, "#ffffff"), (QPalette.ToolTipBase, "#2d2f33"),
                    (QPalette.ToolTipText, "#e8eaed"), (QPalette.PlaceholderText, "#9aa0a6")):
        p.setColor(role, QColor(c))
    p.setColor(QPalette.Disabled, QPalette.Text, QColor("#80868b"))
    p.setColor(QPalette.Disabled, QPalette.WindowText, QColor("#80868b"))
    p.setColor(QPalette.Disabled, QPalette.ButtonText, QColor("#80868b"))
    return p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("panel", choices=["merge", "encode", "vocab", "playback"])
    ap.add_argument("--corpus", default="worked")
    ap.add_argument("--mode", default="byte", choices=["byte", "char"])
    ap.add_argument("--pattern", default="gpt2")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--back", type=int, default=0, help="step back this many after --steps")
    ap.add_argument("--vocab-size", type=int, default=1000)
    ap.add_argument("--prune", action="store_true")
    ap.add_argument("--text", default=None, help="text for the encode view")
    ap.add_argument("--zh", action="store_true", help="Chinese text in the encode view")
    ap.add_argument("--select", type=int, default=None,
                    help="vocab: select this id (-1: the longest merged token)")
    ap.add_argument("--search", default=None, help="vocab: search text")
    ap.add_argument("--hover", type=int, default=None, help="encode: hover this token")
    ap.add_argument("--words", action="store_true", help="encode: words mode (rule colours)")
    ap.add_argument("--import-tokenizer", default=None, help="encode with this tokenizer file")
    ap.add_argument("--word", default=" lowest", help="playback: the word to play back")
    ap.add_argument("--at", type=int, default=None, help="playback: show this step")
    ap.add_argument("--dark", action="store_true")
    ap.add_argument("--shot", default=None)
    ap.add_argument("--size", default="1100x680")
    a = ap.parse_args(argv)
    if a.shot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtWidgets import QApplication
    from bpe_gui.engine.train import TrainSettings
    from bpe_gui.gui.controller.controller import Controller

    app = QApplication.instance() or QApplication([])
    app.setStyle("Fusion")
    if a.dark:
        app.setPalette(dark_palette())
    c = Controller()
    c.set_settings(TrainSettings(vocab_size=a.vocab_size, mode=a.mode, pattern=a.pattern,
                                 prune=a.prune))
    c.set_corpus_text(corpus_text(a.corpus))
    c.training.retrain()
    if a.import_tokenizer:
        c.tokenizer_files.import_tokenizer(a.import_tokenizer)
        c.tokenizer_files.set_use_imported(True)
    if a.panel == "merge":
        from bpe_gui.gui.panels.merge.merge_panel import MergePanel
        w = MergePanel(c)
    elif a.panel == "encode":
        from bpe_gui.gui.panels.encode.encode_view import EncodeView
        w = EncodeView(c)
        w.set_text(a.text if a.text is not None else ZH_TEXT if a.zh else EN_TEXT)
    elif a.panel == "playback":
        from bpe_gui.gui.panels.playback.word_playback import WordPlayback
        w = WordPlayback(c)
    else:
        from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser
        w = VocabBrowser(c)
    width, height = (int(v) for v in a.size.split("x"))
    w.resize(width, height)
    w.setWindowTitle(f"bpe-gui: {a.panel} panel")
    w.show()
    c.goto(a.steps)
    app.processEvents()
    if a.back:
        for _ in range(a.back):
            c.undo()
    app.processEvents()
    if a.panel == "vocab":
        if a.search is not None:
            w.search.setText(a.search)
            w.apply_search()
        if a.select is not None:
            tid = a.select
            if tid < 0:   # the merged token with the deepest lineage
                entries = [e for e in w.model.entries if e.kind == "merge"]
                tid = max(entries, key=lambda e: (len(e.token), e.id)).id if entries else 0
            w.select_id(tid)
    if a.panel == "encode" and a.hover is not None:
        w.hover_token(a.hover)
    if a.panel == "encode" and a.words:
        w.words.set_enabled(True)
    if a.panel == "playback":
        from bpe_gui.engine.tokenizers import matcher_for, why_it_ends
        from bpe_gui.gui.widgets.word_branches import ClickedWord
        tok = c.tokenizer()
        m = matcher_for(tok.pattern, tok.pre.timeout)
        (s, e, k), *rest = m.words(a.word)
        label = m.branches[k].label
        reason = why_it_ends(m.branches, a.word, (s, e, k), rest[0] if rest else None)
        w.show_word(ClickedWord(a.word, 0, len(a.word), k, label, reason))
        if a.at is not None:
            w.set_step(a.at)
    for _ in range(5):
        app.processEvents()
    if a.shot:
        Path(a.shot).parent.mkdir(parents=True, exist_ok=True)
        w.grab().save(a.shot)
        print(f"saved {a.shot}")
        return 0
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
