"""Words mode and word playback in the window (issue 15), timed by hand.

    python bench/bench_words_mode.py

Headless (QT_QPA_PLATFORM=offscreen unless set). Reads ../shared/corpora (next to the
project) or $BPE_CORPORA. Prints milliseconds (median / max) for: switching the encode
view's words mode on with 100 KB of text, a keystroke there in words mode and in tokens
mode, jumping to a random place, and the same in the corpus editor with 1 MB.
"""
from __future__ import annotations

import lzma
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))


def main() -> None:
    from PySide6.QtWidgets import QApplication
    from bpe_gui.engine.train.trainer import TrainSettings
    from bpe_gui.gui.controller.controller import Controller
    from bpe_gui.gui.panels.corpus.corpus_editor import CorpusEditor
    from bpe_gui.gui.panels.encode.encode_view import EncodeView

    app = QApplication.instance() or QApplication([])
    with lzma.open(CORPORA / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8") as f:
        text = f.read()
    c = Controller()
    c.set_settings(TrainSettings(vocab_size=1000))
    c.set_corpus_text(text[:150_000])
    c.training.retrain()
    c.goto(300)

    def timed(action, n: int = 1) -> str:
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            action()
            app.processEvents()
            ts.append((time.perf_counter() - t0) * 1000)
        ts.sort()
        return f"{ts[len(ts) // 2]:.1f} / {ts[-1]:.1f} ms (n={n})"

    v = EncodeView(c)
    v.resize(900, 700)
    v.show()
    v.set_text(text[:100_000])
    app.processEvents()
    print("encode view, 100 KB: words mode on      ", timed(lambda: v.words.set_enabled(True)))
    cur = v.edit.textCursor()
    cur.setPosition(500)
    v.edit.setTextCursor(cur)
    print("  a keystroke in words mode              ", timed(lambda: v.edit.insertPlainText("x"), 30))
    bar = v.edit.verticalScrollBar()
    print("  jump to a random place, words mode     ",
          timed(lambda: bar.setValue(random.randint(0, bar.maximum())), 20))
    v.words.set_enabled(False)
    app.processEvents()
    print("  a keystroke in tokens mode (debounced) ", timed(lambda: v.edit.insertPlainText("x"), 30))

    e = CorpusEditor(c)
    e.resize(500, 700)
    e.show()
    c.set_corpus_text(text[:1_000_000])
    while e.edit.document().characterCount() < 1_000_000:
        app.processEvents()
    print("corpus editor, 1 MB: words mode on      ", timed(lambda: e.words.set_enabled(True)))
    bar = e.edit.verticalScrollBar()
    print("  jump to a random place                 ",
          timed(lambda: bar.setValue(random.randint(0, bar.maximum())), 20))
    c.shutdown()


if __name__ == "__main__":
    main()
