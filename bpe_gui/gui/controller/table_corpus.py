"""A word-count table as the corpus (File > Open of a table made by `bpe-gui count`):
which paths are tables, and the job that reads (and sums) them. The corpus panel shows
it with panels/corpus/table_view.py.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ...engine.corpus import read_tables
from ...engine.corpus import is_count_table

# what the views that need the text say when the corpus is a table
NO_TEXT = ("The corpus is a word-count table: it holds words and their counts, not the "
           "text, so there is nothing to show here.")


def table_paths(paths: Sequence[str]) -> list[str] | None:
    """The paths if they are all word-count tables, None if none is; ValueError if mixed."""
    flags = [is_count_table(p) for p in paths]
    if not any(flags):
        return None
    if not all(flags):
        names = ", ".join(Path(p).name for p, f in zip(paths, flags) if not f)
        raise ValueError(f"{names}: not word-count tables. Open either corpus files or "
                         "word-count tables (they are summed), not both at once.")
    return list(paths)


def read_job(paths: Sequence[str]):
    """A job reading (and summing) tables: the PretokenTable."""
    paths = [str(p) for p in paths]

    def job(progress, cancelled):
        progress(0, 1)
        table = read_tables(paths)
        progress(1, 1)
        return table
    return job
