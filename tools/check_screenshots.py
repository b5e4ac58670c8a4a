"""Screenshots of Check my BPE (run by hand, from the repository's root).

    python -m tools.check_screenshots [OUT_DIR] [--size 1024x700] [--root]

The window (sized to the screen) with the tutorial corpus of the check's tests in its
corpus editor, and the Check my BPE dialog on a learner's result whose trainer broke
ties with ``max(dict)`` (first seen): the merges tab at the step where the two lists
part, with the words where both pairs occur (check_merges.png), and the encoding tab on
ids from an encoder that merges the highest rank first (check_encode.png). Under
``xvfb-run`` with ``QT_QPA_PLATFORM=xcb`` and a window manager, ``--root`` also saves
the whole screen (check_screen-WxH.png) with ImageMagick's ``import``.
"""
from __future__ import annotations

import sys
from pathlib import Path

from tools.screenshots import grab_screen, pump, shot_options, shot_window, wait_idle

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine" / "check"))


def main(out: Path, size: tuple[int, int], root: bool) -> None:
    import bpe_learners as L   # the learners of the tests: a wrong trainer and encoder
    app, win, tmp = shot_window(out, size, "bpe-gui-check-shots-")
    from bpe_gui.gui.dialogs.check_dialog import show_check_dialog

    text = L.tutorial_text()
    corpus = tmp / "tutorial.txt"
    corpus.write_text(text, encoding="utf-8")
    vocab, merges = L.train(text, 256 + 1 + 150, pick=L.first_seen)
    result = L.write_pickle(tmp, vocab, merges)

    win.files.open_paths([str(corpus)])
    wait_idle(app, win)
    dlg = show_check_dialog(win.controller, win)
    w, h = size
    dlg.resize(min(1100, w - 40), min(760, h - 60))
    dlg.move(win.geometry().x() + 20, win.geometry().y() + 20)
    panel = dlg.panel
    panel.set_result(str(result))
    pump(app, 0.5)
    panel.run_check()
    wait_idle(app, win)
    pump(app, 0.8)
    panel.merges.jump_to_words()
    pump(app, 0.5)
    dlg.grab().save(str(out / "check_merges.png"))
    if root:
        grab_screen(out / f"check_screen-{w}x{h}.png")

    sample = "The newest café<|endoftext|>Hmmm, the lowest widest road... aaaa!"
    right_vocab, right_merges = L.train(text, 256 + 1 + 150)
    wrong = L.encode(sample, right_vocab, right_merges, pick=max)
    (tmp / "right").mkdir()
    panel.set_result(str(L.write_pickle(tmp / "right", right_vocab, right_merges)))
    panel.tabs.setCurrentWidget(panel.encode)
    panel.encode.text_edit.setPlainText(sample)
    panel.encode.ids_edit.setPlainText(" ".join(map(str, wrong)))
    panel.run_ids(sample, panel.encode.ids_edit.toPlainText())
    wait_idle(app, win)
    pump(app, 0.8)
    dlg.grab().save(str(out / "check_encode.png"))
    if root:
        grab_screen(out / f"check_screen_encode-{w}x{h}.png")
    dlg.close()
    win.controller.mark_corpus_saved()
    win.close()
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main(*shot_options(sys.argv[1:]))
