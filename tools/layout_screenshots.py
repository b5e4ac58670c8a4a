"""Screenshots of the panels issue 67 fitted, at one screen size, in a real X server
(run by hand, from the repository's root)::

    python -m tools.layout_screenshots 800x600 [OUT_DIR]      # default docs/screenshots/

Starts its own Xvfb of that size and openbox (both needed: Xvfb, openbox and
ImageMagick's ``import``), opens the window maximized as ``bpe-gui`` does on that screen,
with settings in a temporary folder, trains the tutorial sample, and saves the whole
screen with each panel in front: vocab-WxH.png (a token's lineage), compare-WxH.png and
compare-focus-WxH.png (the per-script table), charts-WxH.png, playback-WxH.png (a word
played back), run-to-step-WxH.png (Ctrl+G) and check-WxH.png (Check my BPE after a run).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def start_x(w: int, h: int) -> list[subprocess.Popen]:
    """An Xvfb of w x h on a free display, and openbox on it (DISPLAY set)."""
    display = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    xvfb = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", f"{w}x{h}x24", "-nolisten",
                             "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 30
    while not Path(f"/tmp/.X11-unix/X{display}").exists():
        if time.monotonic() > end or xvfb.poll() is not None:
            raise SystemExit("Xvfb did not start")
        time.sleep(0.1)
    os.environ["DISPLAY"] = f":{display}"
    wm = subprocess.Popen(["openbox"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)   # (openbox says nothing when it manages the screen)
    return [wm, xvfb]


def shot(app, path: Path, seconds: float = 0.8) -> None:
    from tools.screenshots import pump
    pump(app, seconds)
    subprocess.run(["import", "-window", "root", str(path)], check=True)


def main(w: int, h: int, out: Path) -> None:
    for tool in ("Xvfb", "openbox", "import"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install xvfb openbox imagemagick)")
    out.mkdir(parents=True, exist_ok=True)
    procs = start_x(w, h)
    try:
        run(w, h, out)
    finally:
        for p in procs:
            p.terminate()
            p.wait()


def run(w: int, h: int, out: Path) -> None:
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    from PySide6.QtCore import QSettings, QStandardPaths
    from bpe_gui.gui.app import create_application
    from tools.screenshots import pump, wait_idle
    QStandardPaths.setTestModeEnabled(True)
    tmp = Path(tempfile.mkdtemp(prefix="bpe-gui-layout-shots-"))
    app = create_application([sys.argv[0]])
    from bpe_gui.gui.window.main_window import MainWindow
    win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
    win.themes.set("light", save=False)
    win.showMaximized() if win.dock_layout.fill_screen else win.show()
    pump(app, 1.0)
    dl, c = win.dock_layout, win.controller
    dl.editor.load_sample("tutorial")
    wait_idle(app, win)
    c.goto(40)
    wait_idle(app, win)
    size = f"{w}x{h}"

    dl.vocab_dock.raise_()
    pump(app, 0.5)
    vb = dl.vocab_browser
    merged = [i for i in vb.visible_ids() if i >= 12]   # (the tutorial: characters)
    if merged:
        vb.select_id(merged[-1])
    shot(app, out / f"vocab-{size}.png")

    dl.charts_dock.raise_()
    shot(app, out / f"charts-{size}.png", 1.5)

    dl.compare_dock.raise_()
    cv = dl.compare_view
    cv.set_text(cv_sample())
    wait_idle(app, win)
    shot(app, out / f"compare-{size}.png", 1.2)
    dl.toggle_focus(dl.compare_dock)
    shot(app, out / f"compare-focus-{size}.png", 1.2)
    dl.toggle_focus(dl.compare_dock)

    ev = dl.encode_view
    dl.encode_dock.raise_()
    ev.set_text("lowest newer wider low")
    pump(app, 0.8)
    dl.playback_view.show_word(ev.words.found.word_at(len("lowest newer w")))
    dl.playback_dock.show()
    dl.playback_dock.raise_()
    shot(app, out / f"playback-{size}.png")

    dlg = win.actions_menus.goto_dialog()
    shot(app, out / f"run-to-step-{size}.png")
    dlg.reject()

    check_dialog(app, win, tmp, out / f"check-{size}.png")
    c.set_corpus_text(c.corpus_text, dirty=False)
    win.close()
    pump(app, 0.3)
    print(f"screenshots at {size} in {out}")


def cv_sample() -> str:
    from bpe_gui.gui.panels.compare.compare_view import SAMPLE_TEXT
    return SAMPLE_TEXT


def check_dialog(app, win, tmp: Path, path: Path) -> None:
    """Check my BPE after a run on a learner's result (the check's tests' learners)."""
    from bpe_gui.gui.dialogs.check_dialog import show_check_dialog
    from tools.screenshots import pump, wait_idle
    sys.path.insert(0, str(ROOT / "tests" / "engine" / "check"))
    import bpe_learners as L
    text = L.tutorial_text()
    corpus = tmp / "tutorial.txt"
    corpus.write_text(text, encoding="utf-8")
    vocab, merges = L.train(text, 256 + 1 + 150, pick=L.first_seen)
    win.files.open_paths([str(corpus)])
    wait_idle(app, win)
    dlg = show_check_dialog(win.controller, win)
    dlg.panel.set_result(str(L.write_pickle(tmp, vocab, merges)))
    pump(app, 0.5)
    dlg.panel.run_check()
    wait_idle(app, win)
    shot(app, path, 1.2)
    dlg.close()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args or "x" not in args[0]:
        raise SystemExit(__doc__)
    width, height = map(int, args[0].split("x"))
    main(width, height, Path(args[1]) if len(args) > 1 else ROOT / "docs" / "screenshots")
