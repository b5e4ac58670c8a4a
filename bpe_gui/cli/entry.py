"""The ``bpe-gui`` entry point: the parser of every command, and main()."""
from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Sequence

from ..engine.display import bpe_gui_version
from ..engine.errors import BPEError, NotUTF8Error
from ..engine.corpus import MAX_WORD_BYTES
from . import check, cost, count, encode, inspect, mixture, models, train_on, window
from .common import PROG, ArgParser, Terminated, UsageError, fail, not_utf8_message, \
    sigterm_raises
from .oom import out_of_memory_message

# the headless commands, then gui (not a headless one)
COMMANDS = ("train", "encode", "count", "inspect", "cost", "mixture", "check", "models", "gui")


def build_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog=PROG, description="See how a BPE tokenizer is trained and how it cuts "
                  "text. Without a command, opens the window (with any corpus files given).",
                  epilog="Run 'bpe-gui COMMAND --help' for a command's options.")
    p.add_argument("--version", action="version", version=f"{PROG} {installed_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for module in (train_on, encode, count, inspect, cost, mixture, check, models, window):
        module.add_parser(sub)
    return p


def installed_version() -> str:
    return bpe_gui_version() or "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return window.open_window()
    if argv[0] not in COMMANDS and not argv[0].startswith("-") \
            and Path(argv[0]).exists():
        return window.open_window(argv)  # bpe-gui FILE...: the window with those files
    try:
        args = build_parser().parse_args(argv)
        if not getattr(args, "func", None):
            return window.open_window()
        if args.command == "gui":
            return args.func(args)
        # SIGTERM (kill, a logout) ends a headless command as Ctrl+C does: by an
        # exception, so half-written outputs are removed (the window has its own)
        with sigterm_raises():
            return args.func(args)
    except UsageError as e:
        command = f" {argv[0]}" if argv[0] in COMMANDS[:-1] else ""
        return fail(f"{e} (see '{PROG}{command} --help')")
    except NotUTF8Error as e:
        return fail(not_utf8_message(e, has_encoding=argv[0] in ("train", "count")))
    except BPEError as e:
        return fail(str(e))
    except MemoryError:
        return fail(out_of_memory_message(argv[0], MAX_WORD_BYTES >> 10))
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"\n{PROG}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except BrokenPipeError:  # e.g. `bpe-gui encode ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
