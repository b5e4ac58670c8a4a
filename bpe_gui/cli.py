"""The ``bpe-gui`` command: no arguments opens the window; ``train``, ``encode``,
``inspect`` and ``cost`` (cli_analysis.py) run headless.

Examples::

    bpe-gui                                   # the window
    bpe-gui book.txt                          # the window, with book.txt loaded
    bpe-gui train book.txt --vocab-size 5000 --out tok/ --special-token '<|endoftext|>'
    bpe-gui encode --tokenizer tok/ "Hello world"
    bpe-gui count book.txt --out book.counts.tsv [--dask local:4]   # see cli_count.py
    bpe-gui train --counts book.counts.tsv --vocab-size 5000 --out tok/
    echo "Hello" | bpe-gui encode --tokenizer tok/tokenizer.json --ids-only

User errors (a missing file, an empty corpus, a bad pattern, a folder that cannot be
written, a malformed tokenizer file) print one line, ``bpe-gui: error: ...``, and exit
with status 2. The headless commands never import Qt.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Sequence, TextIO

from .engine.errors import BPEError, ExportError

PROG = "bpe-gui"
EXIT_USAGE = 2
TIE_BREAKS = ("greatest", "first-seen", "lowest-ids")
COMMANDS = ("train", "encode", "count", "inspect", "cost", "gui")   # gui last: not a headless one


class UsageError(Exception):
    """A problem with the command line itself (reported like BPEError)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (like every other error of the command)."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(message)


def fail(message: str, stream: TextIO | None = None) -> int:
    stream = stream or sys.stderr
    line = " ".join(str(message).split())  # one line, whatever the message holds
    print(f"{PROG}: error: {line}", file=stream, flush=True)
    return EXIT_USAGE


# ----- parser ---------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from .engine.formats import FORMATS
    from .engine.pretokenize import PRESET_ALIASES, PRESETS

    p = _Parser(prog=PROG, description="See how a BPE tokenizer is trained and how it cuts text. "
                "Without a command, opens the window (with any corpus files given).",
                epilog="Run 'bpe-gui COMMAND --help' for a command's options.")
    p.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    t = sub.add_parser("train", help="train a tokenizer on corpus files and export it",
                       description="Train a BPE tokenizer on one or more corpus files (.txt, "
                       ".md, .jsonl, optionally .gz/.xz) and write it in one or more formats.")
    t.add_argument("corpus", nargs="*", metavar="CORPUS", help="corpus files")
    t.add_argument("--counts", nargs="+", default=[], metavar="TABLE",
                   help="train from word-count tables (made by `bpe-gui count`) instead of "
                   "corpus files; several are summed. Their pattern and special tokens are "
                   "used unless given, and then must match")
    size = t.add_argument_group("size (give one)")
    size.add_argument("--vocab-size", type=_positive, metavar="N",
                      help="target vocabulary size: base symbols + special tokens + merges")
    size.add_argument("--num-merges", type=_non_negative, metavar="N",
                      help="number of merges (wins over --vocab-size)")
    t.add_argument("--out", required=True, metavar="DIR", help="folder to write into "
                   "(created if missing)")
    t.add_argument("--special-token", action="append", default=[], metavar="T",
                   help="a special token, never split or merged (repeat for more)")
    pat = t.add_mutually_exclusive_group()
    names = sorted({*PRESETS, *PRESET_ALIASES})
    pat.add_argument("--preset", metavar="NAME", help=f"pre-tokenizer preset: {', '.join(names)} "
                     "(default: gpt2)")
    pat.add_argument("--pattern", metavar="REGEX", help="a custom pre-tokenizer regex "
                     r"(regex module syntax: \p{L}, \p{N}, \p{Han})")
    t.add_argument("--mode", choices=("byte", "char"), default="byte",
                   help="byte-level BPE, or character-level with an end-of-word </w> (default: byte)")
    t.add_argument("--end-of-word", choices=("suffix", "prefix"), default="suffix",
                   help="char mode: </w> after each word, or for the space before it "
                   "(default: suffix)")
    t.add_argument("--tie-break", choices=TIE_BREAKS, default="greatest",
                   help="which pair wins a tie in counts (default: greatest)")
    t.add_argument("--min-frequency", type=_positive, default=1, metavar="N",
                   help="stop when no pair occurs at least N times (default: 1)")
    t.add_argument("--prune", action="store_true",
                   help="drop tokens that no longer occur on their own (vocab size counts live tokens)")
    t.add_argument("--format", action="append", default=[], metavar="FMT",
                   help=f"{'|'.join(FORMATS)}|all; repeat or use commas (default: all that "
                   "the tokenizer's mode supports)")
    t.add_argument("--name", default="tokenizer", help="base name of the files written "
                   "(default: tokenizer, i.e. vocab.json, tokenizer.json, tokenizer.tiktoken ...)")
    t.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("encode", help="encode text with a trained or imported tokenizer",
                       description="Print the tokens and ids of a text. The tokenizer is a "
                       "folder of exported files, vocab.json (with merges.txt beside it), "
                       "tokenizer.json, NAME.tiktoken or a bpe-gui .json.")
    e.add_argument("--tokenizer", required=True, metavar="PATH", help="tokenizer file or folder")
    e.add_argument("text", nargs="?", default="-", metavar="TEXT",
                   help="text to encode; '-' or nothing reads standard input")
    e.add_argument("--ids-only", action="store_true", help="print only the ids")
    e.add_argument("--special-token", action="append", default=None, metavar="T",
                   help="override the special tokens the files list (repeatable)")
    epat = e.add_mutually_exclusive_group()
    epat.add_argument("--preset", metavar="NAME", help="pre-tokenizer preset to use instead of "
                      "the files' (GPT-2 vocab.json + merges.txt record none: gpt2 is assumed)")
    epat.add_argument("--pattern", metavar="REGEX", help="custom pre-tokenizer regex to use "
                      "instead of the files'")
    e.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour tokens (default: auto, when printing to a terminal)")
    e.add_argument("--explain", action="store_true", help="step by step: the pattern rule "
                   "that cut each word and why it ended there, then the merges that built its "
                   "tokens, lowest rank first")
    e.set_defaults(func=cmd_encode)

    from .cli_analysis import add_parsers   # inspect, cost
    add_parsers(sub)
    from .cli_count import add_count_parser
    add_count_parser(sub, sys.modules[__name__])   # this module (also when run as __main__)

    g = sub.add_parser("gui", help="open the window (same as no command)")
    g.add_argument("args", nargs=argparse.REMAINDER, help="corpus or session files to open")
    g.set_defaults(func=lambda a: open_window(a.args))
    return p


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} must be at least 1")
    return n


def _non_negative(text: str) -> int:
    if text.strip() == "0":
        return 0
    return _positive(text)


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("bpe-gui")
    except Exception:
        return "(not installed)"


# ----- window ---------------------------------------------------------------------------
def open_window(args: Sequence[str] = ()) -> int:
    if sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM") and \
            not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        # Qt would abort the whole process with a long message; say it in one line
        return fail("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not "
                    "set); use the train and encode commands, or run in a desktop session.")
    try:
        from .gui.app import main as gui_main
    except ImportError as e:
        if (e.name or "").startswith("PySide6"):
            return fail("the window needs PySide6; install it with 'pip install "
                        "PySide6-Essentials', or use the train and encode commands.")
        raise
    return gui_main(list(args)) if args else gui_main()


# ----- train ----------------------------------------------------------------------------
def parse_formats(values: Sequence[str]) -> list[str] | None:
    """['gpt2,hf', 'csv'] -> ['gpt2', 'hf', 'csv']; [] or 'all' -> None (all supported)."""
    from .engine.formats import FORMATS
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


def check_out_folder(folder: Path) -> None:
    """Fail before training, not after, if the output folder cannot be made or written."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        what = "is a file" if probe == folder else f"is inside {probe}, which is a file"
        raise ExportError(f"Cannot write to {folder}: it {what}, not a folder. Pick another "
                          "--out folder.")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ExportError(f"Cannot write to {folder}: {probe} is not writable. Pick another "
                          "--out folder, or fix its permissions.")


class Progress:
    """A progress bar on stderr: redrawn in place on a terminal, a line now and then otherwise."""

    LABELS = {"pretokenize": "pre-tokenizing", "merge": "merging"}
    QUIET_S = 0.5  # without a terminal, phases shorter than this print no line

    def __init__(self, stream: TextIO, enabled: bool = True, width: int = 30):
        self.stream = stream
        self.enabled = enabled
        self.tty = enabled and _isatty(stream)
        self.width = width
        self.phase: str | None = None
        self.phase_start: float | None = None
        self.last_draw = 0.0
        self.last_decile = -1
        self.open_line = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if phase != self.phase:
            self.end_line()
            self.phase, self.last_decile, self.phase_start = phase, -1, None
        frac = min(1.0, done / total) if total else 1.0
        if self.tty:
            now = time.monotonic()
            if now - self.last_draw < 0.1 and frac < 1.0:
                return
            self.last_draw = now
            filled = int(frac * self.width)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.LABELS.get(phase, phase):<15} [{bar}] {frac:6.1%}  "
                              f"{_count(done, phase)}/{_count(total, phase)}")
            self.stream.flush()
            self.open_line = True
        else:
            now = time.monotonic()
            if self.phase_start is None:
                self.phase_start = now
            if now - self.phase_start < self.QUIET_S:
                return  # short jobs print nothing; long ones a line per 10%
            decile = int(frac * 10)
            if decile != self.last_decile:
                self.last_decile = decile
                print(f"{PROG}: {self.LABELS.get(phase, phase)} {decile * 10}% "
                      f"({_count(done, phase)}/{_count(total, phase)})", file=self.stream,
                      flush=True)

    def end_line(self) -> None:
        if self.open_line:
            self.stream.write("\n")
            self.stream.flush()
            self.open_line = False


def _count(n: int, phase: str) -> str:
    if phase == "pretokenize":  # input bytes read (of the files as they are on disk)
        if n >= 1 << 30:
            return f"{n / (1 << 30):.2f} GiB"
        return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"
    return f"{n:,}"


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def cmd_train(args: argparse.Namespace) -> int:
    from .engine.formats import render_files
    from .engine.formats._common import write_files
    from .engine.formats._common import check_name
    from .engine.trainer import TrainSettings, Trainer, train_bpe

    if args.vocab_size is None and args.num_merges is None:
        raise UsageError("give --vocab-size N or --num-merges N")
    if bool(args.corpus) == bool(args.counts):
        raise UsageError("give corpus files or --counts TABLE..., not both" if args.corpus
                         else "give corpus files, or word-count tables with --counts")
    wanted = parse_formats(args.format)
    check_name(args.name)
    pattern = resolve_preset_arg(args)
    options = dict(num_merges=args.num_merges, mode=args.mode, end_of_word=args.end_of_word,
                   pattern=pattern, tie_rule=args.tie_break, min_frequency=args.min_frequency,
                   prune=args.prune)
    settings = TrainSettings(vocab_size=args.vocab_size, special_tokens=tuple(args.special_token),
                             **options).validated()
    if args.counts:   # the tables' pattern and special tokens, unless given
        from .engine.counts import read_tables, settings_for_table
        t_read = time.perf_counter()
        table = read_tables(args.counts)
        t_read = time.perf_counter() - t_read
        chosen = args.preset is not None or args.pattern is not None
        settings = settings_for_table(settings, table.meta, pattern=chosen,
                                      specials=bool(args.special_token))
        options["pattern"] = settings.pattern
        settings = settings.validated()   # the table's special tokens count too
    for fmt in wanted or []:
        reason = _static_reason(fmt, settings)
        if reason:
            raise ExportError(f"--format {fmt}: {reason}")
    out = Path(args.out).expanduser()
    check_out_folder(out)

    progress = Progress(sys.stderr, enabled=not args.quiet)
    t0 = time.perf_counter()
    phase_times: dict[str, float] = {}

    def report(phase: str, done: int, total: int) -> None:
        phase_times.setdefault(phase, time.perf_counter())
        progress(phase, done, total)

    try:
        source = table if args.counts else args.corpus
        trainer: Trainer = train_bpe(source, args.vocab_size, list(settings.special_tokens),
                                     progress=report, return_trainer=True, **options)
    finally:
        progress.end_line()
    elapsed = time.perf_counter() - t0
    tok = trainer.tokenizer()

    files, skipped = render_files(tok, wanted or _all_formats(), args.name,
                                  skip_unsupported=not wanted)
    written = write_files(out, files)

    merge_start = phase_times.get("merge", t0 + elapsed)
    if args.counts:   # the words were counted before: the first phase read the tables
        elapsed += t_read
        print_summary(trainer, elapsed, merge_start - t0 + t_read, written, skipped,
                      "reading and summing the tables")
    else:
        print_summary(trainer, elapsed, merge_start - t0, written, skipped)
    return 0


def resolve_preset_arg(args: argparse.Namespace) -> str:
    """--pattern, or --preset (checked), or gpt2."""
    if args.preset is not None:
        from .engine.pretokenize import PRESET_ALIASES, PRESETS
        if args.preset.lower() not in PRESETS and args.preset.lower() not in PRESET_ALIASES:
            raise UsageError(f"unknown preset {args.preset!r}; use one of "
                             f"{', '.join(sorted({*PRESETS, *PRESET_ALIASES}))}")
    return args.pattern if args.pattern is not None else (args.preset or "gpt2")


def _all_formats() -> list[str]:
    from .engine.formats import FORMATS
    return list(FORMATS)


def _static_reason(fmt: str, settings) -> str | None:
    """What rules a format out before training (from the settings alone)."""
    from .engine.pretokenize import WHITESPACE_PATTERN, resolve_pattern
    if fmt in ("gpt2", "tiktoken") and settings.mode != "byte":
        return f"{fmt} holds byte-level tokenizers only; use --mode byte, or another format."
    if fmt == "hf" and settings.mode == "char" and settings.end_of_word == "suffix" and \
            resolve_pattern(settings.pattern)[0] != WHITESPACE_PATTERN:
        return ("Hugging Face tokenizers can express character mode with --end-of-word suffix "
                "only for the whitespace preset; use --preset whitespace or --end-of-word prefix.")
    return None


def print_summary(trainer, elapsed: float, pre_time: float, written: list[Path],
                  skipped: dict[str, str], first_phase: str = "pre-tokenizing") -> None:
    s = trainer.settings
    n_merges = trainer.n_steps
    table = trainer.table
    n_bytes = table.total_word_bytes
    tokens = trainer.corpus_tokens
    base = "256 bytes" if s.mode == "byte" else f"{trainer.n_base} base symbols"
    print(f"merges:      {n_merges:,} in {elapsed:.2f} s ({first_phase} {pre_time:.2f} s, "
          f"merging {elapsed - pre_time:.2f} s)")
    parts = f"{base} + {len(s.special_tokens)} special + {n_merges:,} merges"
    if s.prune:
        total = len(trainer.vocab_bytes)
        print(f"vocab size:  {trainer.vocab_size:,} live tokens after pruning ({total:,} in the "
              f"files: {parts}, since merges need the pruned ones)")
    else:
        print(f"vocab size:  {trainer.vocab_size:,} ({parts})")
    if tokens:
        print(f"corpus:      {n_bytes:,} bytes -> {tokens:,} tokens = "
              f"{n_bytes / tokens:.2f} bytes per token")
    target = trainer.target_steps
    if target is not None and n_merges < target:
        print(f"stopped early: no pair occurs at least {s.min_frequency} time(s) after "
              f"{n_merges:,} merges")
    for p in written:
        print(f"wrote:       {p}")
    for fmt, reason in skipped.items():
        print(f"{PROG}: note: not written as {fmt}: {reason}", file=sys.stderr)


# ----- encode ---------------------------------------------------------------------------
BGS = ("\x1b[30;48;5;153m", "\x1b[30;48;5;223m")   # light blue, light orange
SPECIAL = "\x1b[1;30;48;5;150m"                      # bold on green
PARTIAL = "\x1b[4;30;48;5;217m"                      # underlined on pink: part of a character
RESET = "\x1b[0m"


def read_input_text(text: str) -> str:
    if text != "-":
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("the TEXT argument is not valid UTF-8") from None
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"standard input is not UTF-8 (bad byte 0x{data[e.start]:02X} at byte "
                         f"offset {e.start}); convert it first, e.g. with iconv") from None


def render_tokens(tokens: Sequence[bytes], special: Sequence[bool], color: bool) -> str:
    """Tokens for a terminal (alternating backgrounds) or plain (space-separated).

    Whitespace is visible (· for a space, ↵ for a newline) and a token holding part of a
    UTF-8 character shows its bytes, e.g. <E4 BD>.
    """
    from .engine.display import is_partial, readable
    if not color:
        return " ".join(readable(t) for t in tokens)
    out = []
    for k, (t, sp) in enumerate(zip(tokens, special)):
        style = SPECIAL if sp else PARTIAL if is_partial(t) else BGS[k % 2]
        out.append(f"{style}{readable(t)}{RESET}")
    return "".join(out)


def cmd_encode(args: argparse.Namespace) -> int:
    from .engine.formats import load_tokenizer
    override = args.pattern if args.pattern is not None else args.preset
    kwargs = {"pattern": override} if override is not None else {}
    tok = load_tokenizer(args.tokenizer, special_tokens=args.special_token, **kwargs)
    text = read_input_text(args.text)
    color = args.color == "always" or (args.color == "auto" and _isatty(sys.stdout)
                                       and not os.environ.get("NO_COLOR"))
    if args.explain:
        if args.ids_only:
            raise UsageError("--explain and --ids-only do not go together; pick one")
        from .cli_explain import format_explanation
        print(format_explanation(tok.explain(text), color))
        return 0
    enc = tok.encode_with_offsets(text)
    if args.ids_only:
        print(" ".join(map(str, enc.ids)))
        return 0
    specials = enc.special or [False] * len(enc.ids)
    print(render_tokens(enc.tokens, specials, color))
    print(" ".join(map(str, enc.ids)))
    if color:
        n_bytes = len(text.encode("utf-8"))
        per = f", {n_bytes / len(enc.ids):.2f} bytes per token" if enc.ids else ""
        print(f"\x1b[2m{len(enc.ids)} tokens, {len(text)} characters{per}{RESET}")
    return 0


# ----- entry point ----------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return open_window()
    if argv[0] not in COMMANDS and not argv[0].startswith("-") \
            and Path(argv[0]).exists():
        return open_window(argv)  # bpe-gui FILE...: the window with those files
    try:
        args = build_parser().parse_args(argv)
        if not getattr(args, "func", None):
            return open_window()
        return args.func(args)
    except UsageError as e:
        command = f" {argv[0]}" if argv[0] in COMMANDS[:-1] else ""
        return fail(f"{e} (see '{PROG}{command} --help')")
    except BPEError as e:
        return fail(str(e))
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `bpe-gui encode ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
