"""Whether parity training's dev texts are parallel: each one's number of lines, and the
warning when they differ. A dev set is the same text in every language (one translation
each); texts of different lengths make the comparison of their token counts, which picks
each merge's language, a comparison of their lengths. Line counts are a check, not a
proof (a translation may wrap its lines differently and still be parallel): so a
warning, not a refusal. The command line prints it; the window shows it beside the run.

Example::

    lines = [dev_file_lines(t, p, "utf-8") for t, p in zip(dev_tables, dev_paths)]
    unparallel_warning(["en", "de"], ["en.dev", "de.dev"], lines, "")   # None: 200 and 200
"""
from __future__ import annotations

import bisect
import codecs
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from ..corpus import PretokenTable


def text_lines(text: str) -> int:
    """Lines of a text: its line breaks, and one more for a last line without one."""
    return text.count("\n") + int(not text.endswith("\n")) if text else 0


def dev_file_lines(table: "PretokenTable", path: str, encoding: str) -> int:
    """Lines of a counted text file: its line breaks (each \\n inside a word, times the
    word's count), and one more for a last line without \\n (its last byte). A file
    whose last byte is not at hand (.gz, .xz), whose lines are not its text's (.jsonl)
    or whose \\n is not one byte (UTF-16) is read again instead."""
    p = Path(path)
    if p.suffix in (".gz", ".xz", ".jsonl") or \
            len("\n\n".encode(encoding)) - len("\n".encode(encoding)) != 1:
        return _file_lines(path, encoding)
    blob, starts, counts = table.blob, table.starts, table.counts
    breaks, at = 0, blob.find(b"\n")
    while at >= 0:
        breaks += counts[bisect.bisect_right(starts, at) - 1]
        at = blob.find(b"\n", at + 1)
    # (in an ASCII-based encoding no other character's bytes end with the byte of \n)
    with open(p, "rb") as f:
        if f.seek(0, 2) == 0:
            return breaks
        f.seek(-1, 2)
        return breaks + (f.read(1) != b"\n")


def _file_lines(path: str, encoding: str) -> int:
    """Lines of a text file (optionally .gz/.xz) read to the end; a last line without
    \\n counts."""
    from ..corpus import open_binary
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    n, last = 0, "\n"
    with open_binary(path) as (stream, _raw):
        while block := stream.read(1 << 20):
            text = decoder.decode(block)
            n += text.count("\n")
            last = text[-1:] or last
    text = decoder.decode(b"", final=True)
    n += text.count("\n")
    last = text[-1:] or last
    return n + (last != "\n")


def unparallel_warning(names: Sequence[str], sources: Sequence[str], lines: Sequence[int],
                       ratios_how: str) -> str | None:
    """The warning when the dev texts' line counts differ, else None: each language's
    dev text (``sources``: its file, or "" for a text given in memory) and lines, and
    the fix; ``ratios_how`` says where target ratios are set (" with --ratio NAME=R")."""
    if len(set(lines)) <= 1:
        return None
    listed = ", ".join(f"{n} ({s}): {k:,}" if s else f"{n}: {k:,}"
                       for n, s, k in zip(names, sources, lines))
    return (f"the dev texts have different numbers of lines ({listed}). A dev set must be "
            "the same text in every language, line for line: otherwise the language whose "
            "dev text is longest has the most tokens and takes the turns, however well it "
            "is compressed. Give parallel dev texts (one translation per language), or "
            f"target ratios{ratios_how} instead.")
