"""Output paths checked before any work: writable, and never one of the inputs."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ..engine.errors import ExportError
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
                raise UsageError(f"{option} would overwrite the input {shown}; write the "
                                 "output somewhere else")
