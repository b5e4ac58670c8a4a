"""Screenshots of parity at a glance and of scripts without a font (issue 67), run by
hand from the repository's root under a real X server and window manager:

    xvfb-run -s "-screen 0 800x600x24" sh -c \\
        "openbox & QT_QPA_PLATFORM=xcb python -m tools.glance_screenshots 800x600"

The window fills the screen. A parity run on tests/fixtures/parallel (four languages,
200 merges): the whole screen with the merge panel, then with the charts and with the
vocabulary in front (parity-glance-{main,charts,vocab}-WxH.png); then plain training on
Hindi and Thai text with the encode view in front (fonts-encode-WxH.png), the
vocabulary (fonts-vocab-WxH.png) and the first merges (fonts-merge-WxH.png): on a machine
without Devanagari or Thai fonts their characters show as escapes, and the status bar
names the package. Each is the root window, saved with ImageMagick's ``import``.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from bpe_gui.gui.app import create_application
from tools.screenshots import pump, wait_idle

ROOT = Path(__file__).resolve().parents[1]
PARALLEL = ROOT / "tests" / "fixtures" / "parallel"
LANGS = ("en", "de", "ru", "zh")
# Hindi and Thai, written for these screenshots
SCRIPTS_TEXT = ("भाषा मॉडल पाठ को टोकन में बाँटता है। हर टोकन एक संख्या है। "
                "नमस्ते दुनिया, यह एक छोटा सा उदाहरण है।\n"
                "แบบจำลองภาษาแบ่งข้อความออกเป็นโทเค็น โทเค็นแต่ละตัวคือตัวเลข "
                "สวัสดีชาวโลก นี่คือตัวอย่างเล็ก ๆ\n"
                "A tokenizer cuts text into tokens; each token is a number.\n")


def shot(out: Path, name: str) -> None:
    subprocess.run(["import", "-window", "root", str(out / name)], check=False)
    print("saved", out / name)


def main(out: Path, size: tuple[int, int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="bpe-gui-glance-shots-"))
    QStandardPaths.setTestModeEnabled(True)
    app = create_application([sys.argv[0]])
    from bpe_gui.engine.train import TrainSettings
    from bpe_gui.gui.window.main_window import MainWindow

    w, h = size
    tag = f"{w}x{h}"

    def window() -> MainWindow:
        win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
        win.themes.set("light", save=False)
        win.resize(w, h)
        win.showMaximized()
        pump(app, 1.0)
        wait_idle(app, win)
        return win

    win = window()
    c, dl = win.controller, win.dock_layout
    panel = dl.settings_panel
    panel.parity.add_languages([str(PARALLEL / f"{n}.train.txt") for n in LANGS])
    panel.merges_radio.setChecked(True)
    panel.merges_spin.setValue(200)
    win.actions_menus.flow.train()
    wait_idle(app, win)
    pump(app, 1.0)
    shot(out, f"parity-glance-main-{tag}.png")
    for dock, name in ((dl.charts_dock, "charts"), (dl.vocab_dock, "vocab")):
        dock.show()
        dock.raise_()
        pump(app, 1.0)
        shot(out, f"parity-glance-{name}-{tag}.png")
    c.mark_corpus_saved()
    win.close()
    pump(app, 0.5)

    win = window()   # plain training on Hindi and Thai, in a window of its own
    c, dl = win.controller, win.dock_layout
    c.set_settings(TrainSettings(num_merges=150))
    c.set_corpus_text(SCRIPTS_TEXT * 4)
    wait_idle(app, win)
    win.actions_menus.flow.train()
    wait_idle(app, win)
    dl.encode_dock.show()
    dl.encode_dock.raise_()
    dl.encode_view.set_text(SCRIPTS_TEXT)
    pump(app, 1.5)
    shot(out, f"fonts-encode-{tag}.png")
    dl.vocab_dock.show()
    dl.vocab_dock.raise_()
    pump(app, 1.0)
    browser = dl.vocab_browser
    hindi = [e.id for e in browser.model.entries
             if e.kind == "merge" and "\u0900" <= e.token.decode("utf-8", "ignore")[-1:] <= "\u097f"]
    if hindi:
        browser.select_id(hindi[-1])
    pump(app, 1.0)
    shot(out, f"fonts-vocab-{tag}.png")
    c.goto(6)   # the first merges: Hindi and Thai pairs in the merge panel's tables
    wait_idle(app, win)
    pump(app, 1.0)
    shot(out, f"fonts-merge-{tag}.png")
    c.mark_corpus_saved()
    win.close()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    width, height = (int(v) for v in (args[0] if args else "1024x700").split("x"))
    main(ROOT / "screenshots", (width, height))
