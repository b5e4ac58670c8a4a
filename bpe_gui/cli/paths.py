"""Output paths checked before any work: writable, and never one of the inputs."""
from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from ..engine.corpus import is_count_table
from ..engine.errors import CorpusError, ExportError
from .common import UsageError


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


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (same device and inode, through any symlink)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def refuse_overwriting_inputs(outputs: Iterable[Path], inputs: Iterable[str | Path],
                              option: str = "--out") -> None:
    """A UsageError if an output would replace an input: ``count X --out X`` would turn
    the corpus into its table. (An output that does not exist yet is no input.)"""
    inputs = [i for i in inputs if "://" not in str(i)]   # URLs are read, never written
    for out in outputs:
        if not out.exists():
            continue
        for i in inputs:
            if same_file(out, i):
                shown = f"{i}" if str(i) == str(out) else f"{i} (as {out})"
                raise ExportError(f"{option} would overwrite the input {shown}; write the "
                                  "output somewhere else.")


def refuse_stdout_is_stdin() -> None:
    """``encode - < f >> f`` would read its own output: refused (as cat does)."""
    try:
        a, b = os.fstat(0), os.fstat(1)
    except (OSError, ValueError):
        return
    if stat.S_ISREG(b.st_mode) and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
        raise UsageError("standard output is the file standard input reads; write the "
                         "output to another file")


def refuse_tables_as_corpus(corpus: Iterable[str | Path], command: str) -> None:
    """A word-count table given as a corpus would be counted as text (its counts and
    escapes as words): say what to do instead."""
    for p in corpus:
        if "://" not in str(p) and is_count_table(p):
            fix = (f"train from it with --counts {p}" if command == "train" else
                   "it is counted already (train from it with train --counts)")
            raise CorpusError(f"{p} is a word-count table (made by bpe-gui count), not a "
                              f"corpus: {fix}.")


def refuse_special_files(paths: Iterable[str | Path], what: str = "corpus file",
                         folders: bool = False) -> None:
    """A FIFO, a device or a socket given as an input is refused at once (reading a FIFO
    waits for a writer forever; /dev/zero never ends), and a folder unless ``folders``.
    Paths that do not exist are left to the reader, which says so."""
    for p in paths:
        if "://" in str(p):
            continue
        try:
            mode = os.stat(p).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) or (folders and stat.S_ISDIR(mode)):
            continue
        if stat.S_ISDIR(mode):
            kind, fix = "a folder", f"give the files inside it (e.g. {Path(p) / '*.txt'})"
        elif stat.S_ISFIFO(mode):
            kind, fix = "a named pipe (FIFO)", "save what it carries to a file first"
        elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            kind, fix = "a device", "give a regular file"
        else:
            kind, fix = "a socket or other special file", "give a regular file"
        raise CorpusError(f"{p} is {kind}, not a {what}: {fix}.")


def refuse_urls(paths: Iterable[str | Path], fix: str) -> None:
    """A URL given as a file where the command reads files of this machine only: said
    as a URL (the reader's Path folds its // and said "file not found")."""
    for p in paths:
        if "://" in str(p):
            raise UsageError(f"{p} is a URL, and this reads files of this machine: {fix}")


def write_run_export(out: Path, files: dict[str, bytes], name: str) -> list[Path]:
    """A training run's export, all or none: the files an earlier run (or export) of the
    same name wrote into ``out`` and this one does not are removed with it, so no stale
    tokenizer stays beside the new one (``encode --tokenizer DIR`` would pick it up).
    Each removed file is said on stdout; returns the files written."""
    from ..engine.formats import write_export
    written, removed = write_export(out, files, name, whole=True)
    for p in removed:
        print(f"removed:     {p} (an earlier export's, not written this time)")
    return written


@contextmanager
def stdin_as_file(name: str = "stdin.txt") -> Iterator[Path]:
    """Standard input copied, in blocks, to a temporary file named ``name`` that the block
    reads like any corpus file (counting reads files in byte ranges, which a pipe has
    not); removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bpe-gui-stdin-") as d:
        path = Path(d) / name
        with open(path, "wb") as f:
            shutil.copyfileobj(sys.stdin.buffer, f, 1 << 20)
        yield path


def replace_stdin(paths: list[str]) -> tuple[list[str], bool]:
    """The corpus arguments and whether one of them is '-' (standard input, once)."""
    if paths.count("-") > 1:
        raise UsageError("'-' (standard input) can be given once")
    return paths, "-" in paths
