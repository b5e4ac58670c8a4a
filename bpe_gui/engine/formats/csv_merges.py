"""Merges with their counts as CSV, for spreadsheets and plots (export only).

One row per merge, in the order learned::

    rank,id,left,right,token,count,left_hex,right_hex,token_hex
    1,257,·,t,·t,1234,20,74,2074

The text columns are readable (visible whitespace, ``<E4 BD>`` for partial UTF-8
characters); the hex columns hold the exact bytes, so nothing is lost. ``count`` is
empty for merges of a tokenizer that was not trained here. UTF-8, no BOM.
"""
from __future__ import annotations

import csv
import io

from ..display import readable
from .snapshot import Snapshot
from . import spm_json

COLUMNS = ["rank", "id", "left", "right", "token", "count", "left_hex", "right_hex", "token_hex"]


def file_names(name: str = "tokenizer") -> list[str]:
    return [name + ".merges.csv"]


def dump(snap: Snapshot, name: str = "tokenizer") -> dict[str, bytes]:
    spm_json.refuse(snap.spm, "A merges CSV")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for k, ((a, b), i, c) in enumerate(zip(snap.merges, snap.merge_ids, snap.counts)):
        w.writerow([k + 1, i, readable(a), readable(b), readable(a + b),
                    "" if c is None else c, a.hex(), b.hex(), (a + b).hex()])
    return {file_names(name)[0]: out.getvalue().encode("utf-8")}


