"""A corpus into the table of its words: reading files and streams, blocks split at safe
boundaries, giant stretches in bounded memory, counting on threads in C, word-count table
files and their sums, byte ranges, and counting on a Dask cluster.

- :mod:`.files`: opening (.xz/.gz), checking (binary, UTF-8) and reading documents.
- :mod:`.blocks`: files and texts -> blocks of 256 KB to 1 MB (``BlockReader``, ``Boundaries``).
- :mod:`.giant`, :mod:`.word_limit`: stretches with no boundary; words over 64 KiB.
- :mod:`.table`: ``PretokenTable`` (unique words, counts) and ``CountMeta``.
- :mod:`.counting`: blocks -> a table, on worker threads (``count_corpus``).
- :mod:`.range_threads`: plain text files counted by threads that each read their own
  byte ranges.
- :mod:`.count_each`: several files counted at once, a table each (``count_each``:
  parity training's languages).
- :mod:`.table_file`, :mod:`.table_sums`: tables as files; several summed and checked.
- :mod:`.ranges`, :mod:`.range_count`, :mod:`.distributed`: byte ranges, one range
  counted, ranges counted on Dask (Dask is imported only when used).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .counting import build_table, count_corpus, table_from_files, table_from_text
    from .distributed import count_on_dask, local_workers, parse_address
    from .files import decode_utf8, open_binary, read_bytes, read_corpus_text, read_documents, \
        read_head, read_text_chunks
    from .ranges import RANGE_BYTES
    from .table import CountMeta, PretokenTable
    from .table_file import check_table_name, is_count_table, read_table, write_table
    from .table_sums import check_settings, read_tables, settings_for_table
    from .word_limit import MAX_WORD_BYTES

__getattr__, __dir__ = lazy_face(__name__, {
    ".counting": "build_table count_corpus table_from_files table_from_text",
    ".distributed": "count_on_dask local_workers parse_address",
    ".files": "decode_utf8 open_binary read_bytes read_corpus_text read_documents read_head "
              "read_text_chunks",
    ".ranges": "RANGE_BYTES",
    ".table": "CountMeta PretokenTable",
    ".table_file": "check_table_name is_count_table read_table write_table",
    ".table_sums": "check_settings read_tables settings_for_table",
    ".word_limit": "MAX_WORD_BYTES",
})

__all__ = ["CountMeta", "MAX_WORD_BYTES", "PretokenTable", "RANGE_BYTES", "build_table",
           "check_settings", "check_table_name", "count_corpus", "count_on_dask",
           "decode_utf8", "is_count_table", "local_workers", "open_binary", "parse_address",
           "read_bytes", "read_corpus_text", "read_documents",
           "read_head", "read_table", "read_text_chunks", "read_tables", "settings_for_table",
           "table_from_files", "table_from_text", "write_table"]
