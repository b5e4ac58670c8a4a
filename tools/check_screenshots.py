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

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from bpe_gui.gui.app import create_application
from tools.screenshots import pump, wait_idle

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine" / "check"))


def main(out: Path, size: tuple[int, int], root: bool) -> None:
    import bpe_learners as L   # the learners of the tests: a wrong trainer and encoder
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tmp = Path(tempfile.mkdtemp(prefix="bpe-gui-check-shots-"))
    QStandardPaths.setTestModeEnabled(True)
    app = create_application([sys.argv[0]])
    from bpe_gui.gui.dialogs.check_dialog import show_check_dialog
    from bpe_gui.gui.window.main_window import MainWindow

    text = L.tutorial_text()
    corpus = tmp / "tutorial.txt"
    corpus.write_text(text, encoding="utf-8")
    vocab, merges = L.train(text, 256 + 1 + 150, pick=L.first_seen)
    result = L.write_pickle(tmp, vocab, merges)

    win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
    win.themes.set("light", save=False)
    win.resize(*size)
    win.show()
    pump(app)
    win.files.open_paths([str(corpus)])
    wait_idle(app, win)
    dlg = show_check_dialog(win)
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
        _screen(out / f"check_screen-{w}x{h}.png")

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
        _screen(out / f"check_screen_encode-{w}x{h}.png")
    dlg.close()
    win.controller.mark_corpus_saved()
    win.close()
    print(f"screenshots in {out}")


def _screen(path: Path) -> None:
    subprocess.run(["import", "-window", "root", str(path)], check=False)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    size = (1600, 1000)
    if "--size" in sys.argv:
        w, h = sys.argv[sys.argv.index("--size") + 1].split("x")
        size = (int(w), int(h))
        args = [a for a in args if a != sys.argv[sys.argv.index("--size") + 1]]
    main(Path(args[0]) if args else ROOT / "docs" / "screenshots", size, "--root" in sys.argv)
