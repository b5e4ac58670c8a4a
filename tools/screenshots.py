"""Take the README screenshots (run by hand, from the repository's root).

    python -m tools.screenshots [OUT_DIR] [--big]     # default screenshots/ (ignored)

Runs headless (QT_QPA_PLATFORM=offscreen unless set, e.g. under xvfb-run with xcb),
with settings in a temporary folder so your own layout is untouched. Writes:
main-zh-en.png (light, Chinese + English sample), main-dark.png, main-tutorial.png,
corpus-editor.png, settings.png, vocab_browser.png (token classes), charts.png
(compression and Rényi efficiency with a held-out text), compare_view.png (the vocabulary
overlap of two steps), big-corpus.png (with --big, if the 20 MB corpus exists in
BPE_GUI_CORPORA_DIR, by default ../shared/corpora beside the checkout).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QApplication

from bpe_gui.gui.app import create_application

ROOT = Path(__file__).resolve().parents[1]

SIZE = (1600, 1000)
ENCODE_TEXT = ("分词器把一句话切成 token。Byte-pair encoding merges the most frequent pair, "
               "step by step: 2024 年，模型读到的是整数 ID。")
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR") or ROOT.parent / "shared" / "corpora")
BIG = CORPORA / "en-gutenberg-20mb.txt.xz"


def pump(app: QApplication, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait_idle(app: QApplication, win, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while (win.controller.busy or win.controller.stale) and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)
    pump(app, 0.3)


def float_dock(app: QApplication, dock, w: int, h: int):
    """Float a dock at w x h so its panel is grabbed at a readable size. Raised first:
    a panel behind another tab catches up when its tab comes to the front, and offscreen
    a dock floated from behind a tab never counts as seen (it drew empty charts)."""
    dock.raise_()
    pump(app, 0.5)
    dock.setFloating(True)
    dock.resize(w, h)
    dock.show()
    dock.raise_()
    pump(app, 0.5)


def panel_shots(app: QApplication, win, out: Path) -> None:
    """The vocabulary browser, charts and compare view, each raised in its dock and
    grabbed alone, on the Chinese + English sample trained to 300 steps."""
    c = win.controller
    c.goto(300)
    wait_idle(app, win)
    float_dock(app, win.dock_layout.vocab_dock, 1100, 680)
    vb = win.dock_layout.vocab_browser
    wait_idle(app, win)
    vb.set_class_filter("undecodable")
    pump(app, 0.5)
    merged = [i for i in vb.visible_ids() if i >= 256]   # one with a lineage to show
    if merged:
        vb.select_id(merged[min(3, len(merged) - 1)])
    pump(app, 0.5)
    win.dock_layout.vocab_dock.widget().grab().save(str(out / "vocab_browser.png"))
    vb.set_class_filter("")
    win.dock_layout.vocab_dock.setFloating(False)

    float_dock(app, win.dock_layout.charts_dock, 1200, 780)
    charts = win.dock_layout.charts_view
    charts.set_held_out_text(ENCODE_TEXT * 20, "a held-out paragraph")
    wait_idle(app, win)
    pump(app, 1.5)
    win.dock_layout.charts_dock.widget().grab().save(str(out / "charts.png"))
    win.dock_layout.charts_dock.setFloating(False)

    float_dock(app, win.dock_layout.compare_dock, 1200, 780)
    cv = win.dock_layout.compare_view
    cv.pane_a.set_kind("current")
    cv.pane_b.set_kind("step")
    cv.pane_b.set_step(100)
    cv.set_text(ENCODE_TEXT)
    cv.show_overlap()
    wait_idle(app, win)
    pump(app, 1.0)
    win.dock_layout.compare_dock.widget().grab().save(str(out / "compare_view.png"))
    win.dock_layout.compare_dock.setFloating(False)
    c.goto(40)
    wait_idle(app, win)


def shot_window(out: Path, size: tuple[int, int] = SIZE, prefix: str = "bpe-gui-shots-"):
    """(app, main window, its temporary folder): the window in the light theme at
    ``size``, shown, its settings in a temporary folder so the user's own layout is
    untouched; offscreen unless QT_QPA_PLATFORM says otherwise (xcb under Xvfb)."""
    out.mkdir(parents=True, exist_ok=True)
    # Qt reads the platform when the application is built, not when PySide6 is imported
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    QStandardPaths.setTestModeEnabled(True)
    app = create_application([sys.argv[0]])
    from bpe_gui.gui.window.main_window import MainWindow

    win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
    win.themes.set("light", save=False)
    win.resize(*size)
    win.show()
    pump(app)
    return app, win, tmp


def grab_screen(path: Path) -> None:
    """The whole X screen (under Xvfb with a window manager), by ImageMagick's import."""
    subprocess.run(["import", "-window", "root", str(path)], check=False)


def shot_options(argv: list[str]) -> tuple[Path, tuple[int, int], bool]:
    """(OUT_DIR, --size WxH, --root) of ``[OUT_DIR] [--size WxH] [--root]``."""
    args = [a for a in argv if not a.startswith("--")]
    size = SIZE
    if "--size" in argv:
        value = argv[argv.index("--size") + 1]
        w, h = value.split("x")
        size = (int(w), int(h))
        args = [a for a in args if a != value]
    return (Path(args[0]) if args else ROOT / "screenshots", size,
            "--root" in argv)


def main(out: Path) -> None:
    app, win, tmp = shot_window(out)
    c = win.controller

    win.dock_layout.editor.load_sample("zh-en")
    wait_idle(app, win)
    c.goto(40)
    wait_idle(app, win)
    win.dock_layout.encode_view.set_text(ENCODE_TEXT)
    pump(app, 0.8)
    win.grab().save(str(out / "main-zh-en.png"))
    win.dock_layout.editor.grab().save(str(out / "corpus-editor.png"))

    win.themes.set("dark", save=False)
    pump(app, 0.8)
    win.grab().save(str(out / "main-dark.png"))
    # the settings whole (on a short screen their dock is a tab behind the corpus)
    float_dock(app, win.dock_layout.settings_dock, 400, 880)
    win.dock_layout.settings_panel.grab().save(str(out / "settings-dark.png"))
    win.themes.set("light", save=False)
    pump(app, 0.8)
    win.dock_layout.settings_panel.grab().save(str(out / "settings.png"))
    win.dock_layout.settings_dock.setFloating(False)

    win.themes.set("light", save=False)
    panel_shots(app, win, out)

    win.dock_layout.editor.load_sample("tutorial")
    wait_idle(app, win)
    c.goto(2)
    win.dock_layout.encode_view.set_text("low lower newest widest")
    pump(app, 0.8)
    win.grab().save(str(out / "main-tutorial.png"))

    if BIG.exists() and "--big" in sys.argv:
        win.dock_layout.editor.open_files([str(BIG)])
        pump(app, 1.5)
        win.grab().save(str(out / "big-corpus-loading.png"))
        wait_idle(app, win, 300)
        win.grab().save(str(out / "big-corpus.png"))

    win.controller.set_corpus_text(c.corpus_text, dirty=False)
    win.close()
    print(f"screenshots in {out}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0]) if args else ROOT / "screenshots")
