"""Bug 9 with real key events: type a burst into the encode view with xdotool and check
that no keystroke is lost. Run by hand on an X display with a window manager (without
one, xdotool's key events do not reach the window):

    Xvfb :95 -screen 0 1920x1080x24 & DISPLAY=:95 openbox &
    DISPLAY=:95 python bench/real_keys.py [--keys 1000] [--delay-ms 1]

Prints the keys sent, the rate xdotool reached, and the text the view holds.
"""
from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time


def burst(n: int) -> str:
    rng = random.Random(11)
    words = ["lowest", "newer", "wider", "token", "byte", "pair", "merge", "the", "of"]
    return " ".join(rng.choice(words) for _ in range(n))[:n]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--delay-ms", type=int, default=1)
    a = ap.parse_args()
    if shutil.which("xdotool") is None:
        print("xdotool is not installed")
        return 2
    from PySide6.QtCore import QSettings, QTimer
    from bpe_gui.gui.app import create_application
    app = create_application([sys.argv[0]])
    from bpe_gui.gui.window.main_window import MainWindow
    win = MainWindow(settings=QSettings(tempfile.mkdtemp() + "/s.ini", QSettings.IniFormat))
    win.show()
    win.sessions.load_initial([])
    edit = win.dock_layout.encode_view.edit
    text = burst(a.keys)
    result = {}

    def type_keys() -> None:
        win.activateWindow()
        edit.clear()
        edit.setFocus()
        wid = str(int(win.winId()))
        subprocess.run(["xdotool", "windowactivate", "--sync", wid], check=False)
        t0 = time.perf_counter()
        result["proc"] = subprocess.Popen(["xdotool", "type", "--delay", str(a.delay_ms),
                                           text])
        result["t0"] = t0
        QTimer.singleShot(200, wait)

    def wait() -> None:
        proc = result["proc"]
        if proc.poll() is None:
            QTimer.singleShot(100, wait)
            return
        if "sent" not in result:
            result["sent"] = time.perf_counter() - result["t0"]
        if len(edit.toPlainText()) < len(text) and time.perf_counter() - result["t0"] < 30:
            QTimer.singleShot(200, wait)   # the window may still be catching up
            return
        app.quit()

    QTimer.singleShot(3000, type_keys)
    app.exec()
    got = edit.toPlainText()
    rate = len(text) / result["sent"]
    print(f"sent {len(text)} keys in {result['sent']:.2f} s ({rate:.0f} keys/s); the encode "
          f"view holds {len(got)} characters; identical: {got == text}")
    return 0 if got == text else 1


if __name__ == "__main__":
    sys.exit(main())
