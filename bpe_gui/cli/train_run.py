"""What every ``bpe-gui train`` route does once its spec is made: the export checked
before training, the run built by the engine's one factory (``build_run``) and run to its
target, the files written, and how long each phase took (:class:`Times`)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

from ..engine.errors import ExportError
from ..engine.formats import FORMATS, output_files, render_files, settings_problem, \
    trainer_snapshot
from ..engine.io import check_name
from .common import PROG, UsageError, no_collections, parse_formats
from .paths import check_out_folder, refuse_overwriting_inputs, write_run_export
from .progress import Progress


class Times:
    """When a run's phases reported first and last (``progress(phase, done, total)``)."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.first: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.elapsed = 0.0

    def __call__(self, phase: str) -> None:
        now = time.perf_counter()
        self.first.setdefault(phase, now)
        self.last[phase] = now


def run_and_export(args: argparse.Namespace, spec, inputs: Sequence, summary, *,
                   base=None, table=None, after_build=None) -> int:
    """Every ``bpe-gui train`` route: the export checked before training, the run built
    (``engine.train.build_run``, the one factory) and run to its target, then written;
    ``summary(run, times, written, skipped)`` says what was made."""
    from ..engine.train import build_run
    wanted = parse_formats(args.format)
    check_name(args.name)
    for fmt in wanted or []:
        reason = settings_problem(fmt, spec.tokenizer_settings())   # before training
        if reason:
            raise ExportError(f"--format {fmt}: {reason}")
    if args.out == "-":
        raise UsageError("--out -: training writes a folder of files, not the standard "
                         "output; give a folder (--out ./- for a folder named -)")
    out = Path(args.out).expanduser()
    check_out_folder(out)
    names = [n for fmt in (wanted or FORMATS) for n in output_files(fmt, args.name)]
    refuse_overwriting_inputs([out / n for n in names], inputs)
    progress = Progress(sys.stderr, enabled=not args.quiet)
    times = Times()

    def report(phase: str, done: int, total: int) -> None:
        times(phase)
        progress(phase, done, total)

    with no_collections():
        try:
            run = build_run(spec, report, undo=False, base=base, table=table)
            if after_build is not None:
                after_build(run)
            # advance: run without making each step's record (the export reads the
            # merges; 10k records were 5 MB at the peak); a run of another kind runs
            go = getattr(run, "advance", run.run)
            go(progress=lambda done, total: report("merge", done, total), detail=False)
        finally:
            progress.end_line()
        times.elapsed = time.perf_counter() - times.t0
        release = getattr(run, "release_core", None)
        if release is not None:   # the export needs only the merges: its memory replaces
            release()             # the core's (the snapshot is made from the merges)
        try:
            files, skipped = render_files(trainer_snapshot(run),
                                          wanted or list(FORMATS), args.name,
                                          skip_unsupported=not wanted)
        except ExportError as e:
            raise ExportError(f"--format: {e}") from None
        written = write_run_export(out, files, args.name)
    summary(run, times, written, skipped)
    return 0


def print_written(written, skipped: dict[str, str]) -> None:
    """The files written, and on stderr each format not written and why."""
    for p in written:
        print(f"wrote:       {p}")
    for fmt, reason in skipped.items():
        print(f"{PROG}: note: not written as {fmt}: {reason}", file=sys.stderr)
