"""The ``bpe-gui`` entry point: the parser of every command, and main()."""
from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import warnings
from pathlib import Path
from typing import Sequence

from ..engine.errors import BPEError, NotUTF8Error
from .common import PROG, QUIET, ArgParser, Terminated, UsageError, fail, not_utf8_message, \
    note, sigterm_raises
from .oom import out_of_memory_message
from . import window   # (light: Qt is imported when the window opens)

# the headless commands, then gui (not a headless one)
COMMANDS = ("train", "encode", "decode", "chat", "count", "inspect", "cost", "mixture",
            "check", "models", "gui")
# the module that adds each command's parser (imported only for the command that runs,
# so that one command does not import the engine every other one needs)
MODULES = {"train": "train_on", "encode": "encode", "decode": "decode", "chat": "chat",
           "count": "count", "inspect": "inspect",
           "cost": "cost", "mixture": "mixture", "check": "check", "models": "models",
           "gui": "window"}


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser, with the subcommands ``commands`` (all: --help lists every one)."""
    p = ArgParser(prog=PROG, description="See how a BPE tokenizer is trained and how it cuts "
                  "text. Without a command, opens the window (with any corpus files given).",
                  epilog="Run 'bpe-gui COMMAND --help' for a command's options.")
    p.add_argument("--version", action=VersionAction,
                   help="show the version and which engine runs (C or Python), then exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in commands:
        importlib.import_module(f".{MODULES[name]}", __package__).add_parser(sub)
    return p


class VersionAction(argparse.Action):
    """--version: the release, and which engine runs (C or Python) and why (computed
    only when asked: it loads the C extensions)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default,
                         nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..engine.display import bpe_gui_version
        from ..engine.extensions import engine_report
        print(f"{PROG} {bpe_gui_version() or '(not installed)'}\n{engine_report()}", flush=True)
        parser.exit()


def _engine_warning_as_note(message, category, filename, lineno, file=None, line=None):
    """The engine's warnings (a pattern assumed ...) as the command's other notes are
    written: one line on stderr, silenced by -q; any other warning as Python writes it."""
    from ..engine.errors import PatternAssumedWarning
    if issubclass(category, PatternAssumedWarning):
        note(str(message))
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _dash_hint(message: str, argv: list[str], headless: bool) -> str:
    """How to give a value or a name that starts with '-', where argparse took it for an
    option: "--out -x" ("expected one argument"), or a file "-x" ("unrecognized"; the
    window takes no "--": Qt reads its own options among the names)."""
    m = re.match(r"argument ([-\w/]+): expected (?:one|at least one) argument", message)
    if m:
        names = m.group(1).split("/")
        for opt, value in zip(argv, argv[1:]):
            if opt in names and value.startswith("-") and value != "--":
                return f"; a value that starts with '-' goes after '=': {opt}={value}"
    m = re.match(r"unrecognized arguments: (.*)", message)
    if m:
        dashed = [a for a in m.group(1).split() if a.startswith("-") and Path(a).exists()]
        if dashed:
            return (f"; to name a file that starts with '-', write ./{dashed[0]}"
                    + (" or put -- before the names" if headless else ""))
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    QUIET["on"] = False
    if not argv:
        return window.open_window()
    if argv[0] not in COMMANDS and not argv[0].startswith("-") \
            and Path(argv[0]).exists():
        return window.open_window(argv)  # bpe-gui FILE...: the window with those files
    try:
        # a command's own parser alone (a usage error names the others: all of them)
        commands = (argv[0],) if argv[0] in COMMANDS else () if argv[0] == "--version" \
            else COMMANDS
        args = build_parser(commands).parse_args(argv)
        if not getattr(args, "func", None):
            return window.open_window()
        if args.command == "gui":
            return args.func(args)
        QUIET["on"] = bool(getattr(args, "quiet", False))
        # SIGTERM (kill, a logout) ends a headless command as Ctrl+C does: by an
        # exception, so half-written outputs are removed (the window has its own)
        with sigterm_raises(), warnings.catch_warnings():
            warnings.showwarning = _engine_warning_as_note
            return args.func(args)
    except UsageError as e:
        command = f" {argv[0]}" if argv[0] in COMMANDS[:-1] else ""
        return fail(f"{e}{_dash_hint(str(e), argv, bool(command))} (see '{PROG}{command} --help')")
    except NotUTF8Error as e:
        return fail(not_utf8_message(e, has_encoding=argv[0] in ("train", "count")))
    except BPEError as e:
        return fail(str(e))
    except MemoryError:   # (the word limit as the engine has it, if it got that far)
        limit = getattr(sys.modules.get("bpe_gui.engine.corpus.word_limit"),
                        "MAX_WORD_BYTES", None)
        return fail(out_of_memory_message(argv[0], *([limit >> 10] if limit else [])))
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
