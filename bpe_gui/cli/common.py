"""What every command shares: the one-line error, argument types, the pattern options,
loading a tokenizer from the command's options."""
from __future__ import annotations

import argparse
import codecs
import gc
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Iterator, Sequence, TextIO

PROG = "bpe-gui"
EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with the command line itself (reported like BPEError)."""


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt is for SIGINT, so that writes in progress
    clean up (temporary files removed, a file set left whole: engine/io/atomic.py)."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises Terminated in the block (main thread only; the old handler after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class ArgParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (like every other error of the command)."""

    def error(self, message: str):
        raise UsageError(message)


def fail(message: str, stream: TextIO | None = None) -> int:
    """Print ``bpe-gui: error: MESSAGE`` on one line; returns the exit status (2)."""
    stream = stream or sys.stderr
    line = " ".join(str(message).split())  # one line, whatever the message holds
    print(f"{PROG}: error: {line}", file=stream, flush=True)
    return EXIT_USAGE


# -q on the command that runs: no notes (set by main once the arguments are parsed)
QUIET = {"on": False}


def note(message: str) -> None:
    if not QUIET["on"]:
        print(f"{PROG}: note: {message}", file=sys.stderr, flush=True)


def warn(message: str) -> None:
    """A warning on stderr: a result the user may not expect (said even with -q)."""
    print(f"{PROG}: warning: {message}", file=sys.stderr, flush=True)


def warn_unmatched_corpus(pre, paths, encoding: str, lines: bool) -> None:
    """A warning when a custom pattern leaves text of the corpus out of training, judged
    on the first MB of the first file (before the counting; the presets take every
    character and are not read again)."""
    if pre.native is not None or pre.preset is not None or not paths:
        return
    from ..engine.corpus import read_head
    from ..engine.text import lines_of
    from ..engine.text import unmatched_sentence
    text, complete = read_head(paths[0], 1 << 20, encoding)
    n = sum(map(pre.unmatched, lines_of(text) if lines else [text]))
    if n:
        where = f"{paths[0]}" if complete else f"the first MiB of {paths[0]}"
        warn(unmatched_sentence(n, len(text), where, "text it does not match is left out of "
                                "training"))


def add_quiet(p: argparse.ArgumentParser, what: str = "no progress or notes on stderr") -> None:
    """-q / --quiet, the same on every command."""
    p.add_argument("-q", "--quiet", action="store_true", help=what)


class _ExamplesFormatter(argparse.HelpFormatter):
    """Wraps the description as argparse does; keeps the lines of an "examples:" epilog
    as written (each is a command to copy)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


def examples(*commands: str) -> dict:
    """``add_parser`` keywords for a command's help to end with these example commands
    (a test parses each of them)."""
    return {"epilog": "examples:\n" + "\n".join(f"  {c}" for c in commands),
            "formatter_class": _ExamplesFormatter}


def hidden_alias(p: argparse.ArgumentParser, flag: str, dest: str, **kw) -> None:
    """An older name of a flag, still read, not shown in --help (one name per meaning)."""
    p.add_argument(flag, dest=dest, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **kw)


# the version of every --json output's layout (docs/CLI.md): a field's meaning never
# changes within one version
JSON_SCHEMA = 1


def json_head(command: str, version: int = JSON_SCHEMA) -> dict:
    """The fields every --json output starts with: which command's layout, which version
    (a command whose layout changed gives its own, higher one)."""
    return {"schema": f"bpe-gui.{command}/{version}"}


# ----- argument types -------------------------------------------------------------------
# Counts are 64-bit in the engine: a larger number is refused here, not by an
# OverflowError deep inside.
MAX_COUNT = (1 << 63) - 1


def positive(text: str, least: int = 1) -> int:
    """A whole number >= ``least`` (1, or 0 for non_negative) and below 2**63."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < least:
        raise argparse.ArgumentTypeError(f"{n} must be at least {least}")
    if n > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{text} is too large (at most {MAX_COUNT:,})")
    return n


def non_negative(text: str) -> int:
    """A whole number >= 0 (and below 2**63)."""
    return positive(text, least=0)


def isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def not_utf8_message(e, has_encoding: bool) -> str:
    """NotUTF8Error with the command line's fixes (its own says 'open it with another
    encoding', which on the command line is --encoding, where the command has it)."""
    where = f"{e.path}: " if e.path else ""
    if getattr(e, "cut", False):   # a UTF-8 text cut short: no other encoding helps
        return f"{where}{e.reason}"
    fix = "convert it to UTF-8 first (e.g. iconv -f LATIN1 -t UTF-8 IN > OUT)"
    if has_encoding:
        fix += ", or give its encoding, e.g. --encoding latin-1 (or cp1252, gbk, shift_jis)"
    return (f"{where}not valid UTF-8 at byte offset {e.offset} (bytes {e.bad.hex(' ')}); "
            f"{fix}")


def add_encoding_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--encoding", default="utf-8", metavar="NAME",
                   help="the corpus files' text encoding, if not UTF-8: latin-1, cp1252, gbk, "
                   "utf-16 ... (any Python codec; default: utf-8)")


MAX_THREADS = 4096   # count_corpus's own bound


def threads_arg(text: str) -> int:
    """--threads N: a whole number from 1 to MAX_THREADS."""
    n = positive(text)
    if n > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{n:,} threads is too many (at most {MAX_THREADS:,})")
    return n


def add_threads_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threads", type=threads_arg, default=None, metavar="N",
                   help="threads that count the corpus (default: every core this process "
                   "may use, at most 16; one for a pattern the native scanner does not "
                   "run: --pattern, whitespace, cjk; the result is the same for any number)")


def check_encoding(name: str) -> str:
    """A codec name Python knows, as its canonical name ('latin1' -> 'iso8859-1')."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise UsageError(f"--encoding {name!r} is not an encoding Python knows; e.g. "
                         "latin-1, cp1252, gbk, shift_jis, utf-16") from None
    if not getattr(info, "_is_text_encoding", True):
        raise UsageError(f"--encoding {name!r} is not a character encoding of text files "
                         "(it transforms bytes or text); give the file's own, e.g. "
                         "latin-1, cp1252, gbk, shift_jis, utf-16")
    return info.name


# ----- options several commands take ------------------------------------------------------
def preset_names() -> list[str]:
    from ..engine.text import pattern_names   # (here: --version imports this module)
    return pattern_names()   # the presets, the published patterns' names, other spellings


def preset_help() -> str:
    """The names --preset takes, each with its other spellings: 'gpt2 (gpt-2), cl100k
    (gpt-4, gpt4), ..., or a published pattern: llama3 (llama, ...), ...'."""
    from ..engine.text import PRESETS, pattern_spellings

    def named(items) -> str:
        return ", ".join(f"{n} ({', '.join(a)})" if a else n for n, a in items)
    spellings = pattern_spellings().items()
    return (f"{named((n, a) for n, a in spellings if n in PRESETS)}, or a published "
            f"pattern: {named((n, a) for n, a in spellings if n not in PRESETS)}")


CUSTOM_PATTERN = r"a pre-tokenizer regex of your own (regex module syntax: \p{L}, \p{N}, \p{Han})"


def add_pattern_options(p: argparse.ArgumentParser, default_note: str = " (default: gpt2)",
                        custom: str = CUSTOM_PATTERN) -> None:
    """--preset NAME | --pattern REGEX (one of them)."""
    pat = p.add_mutually_exclusive_group()
    pat.add_argument("--preset", metavar="NAME",
                     help=f"pre-tokenizer preset: {preset_help()}{default_note}")
    pat.add_argument("--pattern", metavar="REGEX", help=custom)


def check_preset(name: str | None) -> None:
    """A --preset name every command accepts, or the UsageError that lists them."""
    if name is not None and name.lower() not in preset_names():
        raise UsageError(f"unknown preset {name!r}; use one of {', '.join(preset_names())}")


def resolve_preset_arg(args: argparse.Namespace) -> str:
    """--pattern, or --preset (checked), or gpt2."""
    check_preset(args.preset)
    return args.pattern if args.pattern is not None else (args.preset or "gpt2")


def parse_formats(values: Sequence[str]) -> list[str] | None:
    """['gpt2,hf', 'csv'] -> ['gpt2', 'hf', 'csv']; [] or 'all' -> None (all supported)."""
    from ..engine.formats import FORMATS   # at first use: the registry is heavy
    out: list[str] = []
    for v in values:
        for f in v.split(","):
            f = f.strip().lower()
            if not f:
                continue
            if f == "all":
                return None
            if f not in FORMATS:
                raise UsageError(f"unknown format {f!r}; use {', '.join(FORMATS)} or all")
            if f not in out:
                out.append(f)
    return out or None


@contextmanager
def no_collections() -> Iterator[None]:
    """The cyclic garbage collector off for the block: training and exporting make tens
    of thousands of lasting objects (records, tokens) and no cycles to speak of, and each
    collection would walk them all again. Afterwards they join the oldest generation
    (freeze, then unfreeze), so the next young collection does not walk them either."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if was_on:
            gc.enable()
