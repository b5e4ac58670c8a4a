"""``bpe-gui count``: a corpus -> a word-count table file, here or on a Dask cluster.

Examples::

    bpe-gui count book.txt more.jsonl.gz --out corpus.counts.tsv
    bpe-gui count /shared/*.txt --dask tcp://scheduler:8786 --out corpus.counts.tsv
    bpe-gui count s3://bucket/corpus.txt --dask local:4 --range-size 128M --out c.counts.tsv
    bpe-gui train --counts corpus.counts.tsv --vocab-size 32000 --out tok/

Training reads tables with ``train --counts`` (see train.py); several tables are summed.
"""
from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ..engine.corpus import count_corpus
from ..engine.corpus import write_table
from ..engine.corpus import check_table_name
from ..engine.display import counted, human_size
from ..engine.corpus import count_on_dask, local_workers, parse_address
from ..engine.text import Pretokenizer
from ..engine.corpus import RANGE_BYTES
from .common import examples, UsageError, add_encoding_option, add_pattern_options, \
    add_threads_option, check_encoding, note, resolve_preset_arg, warn_unmatched_corpus
from .paths import check_out_folder, refuse_overwriting_inputs, refuse_special_files, \
    refuse_tables_as_corpus, refuse_urls, replace_stdin, stdin_as_file
from .progress import Progress

SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def add_parser(sub) -> None:
    c = sub.add_parser(
        "count", help="count the words of a corpus into a table (here or on a Dask cluster)",
        description="Count the words (pre-tokens) of corpus files into a word-count table "
        "that `bpe-gui train --counts` trains from. Files: .txt, .md, .jsonl, optionally "
        ".gz/.xz; with --dask also fsspec URLs (s3://, gs://, ...).",
        **examples("bpe-gui count a.txt b.txt.xz --special-token '<|endoftext|>' --out "
                   "big.counts.tsv",
                   "bpe-gui train --counts big.counts.tsv --special-token '<|endoftext|>' "
                   "--vocab-size 32000 --out tok",
                   "bpe-gui count s3://bucket/corpus.txt --dask tcp://HOST:8786 --out "
                   "big.counts.tsv.gz"))
    c.add_argument("corpus", nargs="+", metavar="CORPUS", help="corpus files or URLs; '-' "
                   "reads standard input")
    c.add_argument("--out", required=True, metavar="TABLE", help="the table file to write "
                   "(e.g. corpus.counts.tsv; .gz or .xz compresses it); '-' writes it to "
                   "standard output")
    c.add_argument("--special-token", action="append", default=[], metavar="T",
                   help="a special token, cut out before counting (repeat for more)")
    add_pattern_options(c)
    add_encoding_option(c)
    c.add_argument("--lines", action="store_true",
                   help="one text per line, as Hugging Face reads files: no word spans a "
                   "line break (for bpe-gui train --counts ... --lines)")
    c.add_argument("--dask", metavar="ADDRESS", help="count on Dask: local (one worker "
                   "process per core), local:N, or a scheduler's tcp://HOST:PORT "
                   "(needs pip install \"bpe-gui[dask]\")")
    c.add_argument("--range-size", type=size_arg, default=None, metavar="SIZE",
                   help="with --dask: bytes of a file per task, e.g. 64M (default), 1G")
    add_threads_option(c)
    c.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    c.set_defaults(func=cmd_count)


def size_arg(text: str) -> int:
    """'64M' -> 67108864; '1000' -> 1000; '1.5G' -> 1610612736."""
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = t[-1:] if t[-1:] in SIZE_UNITS and t[-1:] else ""
    try:
        n = float(t[:-1] if unit else t) * SIZE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 64M or 1G") from None
    if not 1 <= n <= 1 << 50:
        raise argparse.ArgumentTypeError(f"{text!r} must be a size from 1 byte to 1024T")
    return int(n)


def cmd_count(args: argparse.Namespace) -> int:
    corpus, from_stdin = replace_stdin(args.corpus)
    if from_stdin and args.dask:
        raise UsageError("'-' (standard input) is counted here; with --dask give files or URLs")
    if not from_stdin:
        return _count(args, corpus)
    with stdin_as_file() as path:
        args.stdin_path = str(path)
        return _count(args, [str(path) if c == "-" else c for c in corpus])


def _count(args: argparse.Namespace, corpus: list[str]) -> int:
    args.corpus = corpus
    if args.out == "-":   # the table on standard output, the summary on stderr
        with tempfile.TemporaryDirectory(prefix="bpe-gui-count-") as d:
            args.out = str(Path(d) / "counts.tsv")
            rc = _count_to(args, sys.stderr)
            with open(args.out, "rb") as f:
                shutil.copyfileobj(f, sys.stdout.buffer, 1 << 20)
            sys.stdout.buffer.flush()
            return rc
    return _count_to(args, sys.stdout)


def _count_to(args: argparse.Namespace, said) -> int:
    pattern = resolve_preset_arg(args)
    pre = Pretokenizer(pattern, args.special_token)
    out = Path(args.out).expanduser()
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; give the table's file name, e.g. "
                         f"{out / 'corpus.counts.tsv'}")
    check_out_folder(out.parent)
    check_table_name(out)   # (before the counting, which may take long)
    refuse_overwriting_inputs([out], args.corpus)
    if not args.dask:
        refuse_urls(args.corpus, "add --dask (local, or a cluster's address) to read URLs, "
                    "or download the file first")
    refuse_special_files(args.corpus)
    refuse_tables_as_corpus(args.corpus, "count")
    encoding = check_encoding(args.encoding)
    if args.dask and encoding not in ("utf-8", "utf-8-sig"):
        raise UsageError("--dask counts UTF-8 files only; convert the files first (iconv "
                         f"-f {args.encoding} -t UTF-8), or count here without --dask")
    if args.threads is not None and args.dask:
        raise UsageError("--threads counts here; with --dask the cluster's workers count "
                         "(local:N sets how many)")
    if args.range_size is not None and not args.dask:
        raise UsageError("--range-size splits files for Dask tasks; use it with --dask")
    range_bytes = args.range_size or RANGE_BYTES
    if args.dask:
        kind, wanted = parse_address(args.dask)
        why = local_workers(int(wanted), range_bytes)[1] if kind == "local" else None
        if why:
            note(why)
    else:
        warn_unmatched_corpus(pre, args.corpus, encoding, bool(args.lines))
    progress = Progress(sys.stderr, enabled=not args.quiet)
    report = lambda done, total: progress("pretokenize", done, total)  # noqa: E731
    t0 = time.perf_counter()
    try:
        if args.dask:
            table = count_on_dask(args.corpus, pre, args.dask, progress=report,
                                  range_bytes=range_bytes, lines=args.lines)
        else:
            table = count_corpus(args.corpus, pre, progress=report, encoding=encoding,
                                 lines=args.lines, workers=args.threads)
    finally:
        progress.end_line()
    took = time.perf_counter() - t0
    stdin = getattr(args, "stdin_path", None)
    if stdin is not None:   # the table names standard input as it was given: '-'
        table.meta = dataclasses.replace(table.meta, sources=tuple(
            {**src, "path": "-"} if src.get("path") == stdin else src
            for src in table.meta.sources))
    write_table(table, out)
    where = f"on Dask ({args.dask})" if args.dask else "here"
    print(f"counted:     {counted(table.total, 'word')}, {len(table):,} unique, from "
          f"{human_size(table.n_bytes, binary=True)} of text in {took:.2f} s ({where})",
          file=said)
    if said is sys.stdout:
        print(f"wrote:       {out} ({human_size(out.stat().st_size, binary=True)}, "
              f"{time.perf_counter() - t0 - took:.2f} s)")
    return 0
