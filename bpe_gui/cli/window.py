"""No command (or ``gui``): open the window, with any corpus or session files given."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from .common import fail


def add_parser(sub) -> None:
    g = sub.add_parser("gui", help="open the window (same as no command)")
    g.add_argument("args", nargs=argparse.REMAINDER, help="corpus or session files to open")
    g.set_defaults(func=lambda a: open_window(a.args))


def open_window(args: Sequence[str] = ()) -> int:
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM") and \
            not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        # Qt would abort the whole process with a long message; say it in one line
        return fail("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not "
                    "set); use the train and encode commands, or run in a desktop session.")
    try:
        # Imported here, the one place that opens the window, so that the headless
        # commands (train, encode, count ...) never load Qt; gui never imports cli.
        from ..gui.app import main as gui_main
    except ImportError as e:
        if (e.name or "").startswith("PySide6"):
            return fail("the window needs PySide6; install it with 'pip install "
                        "PySide6-Essentials', or use the train and encode commands.")
        raise
    # the arguments always passed: gui_main() alone reads sys.argv, where the command's
    # own name (`python -m bpe_gui gui`) would be taken for a file to open
    return gui_main(list(args))
