"""Files written all or none, and tokenizer files read strictly.

- :mod:`.atomic`: a set of files replaced all or none (exports, sessions, tables), the
  export folder checked and created, one file written through a temporary file.
- :mod:`.reading`: bounded, strict reads of tokenizer files (size, UTF-8, JSON depth), a
  ``FormatError`` naming the file and the place, never a traceback; ``json_problem``, a
  JSON error's message and column; ``noting_reads``, the files a loader read;
  ``loads_bounded``, JSON from anywhere with its nesting held in bounds (``JSONTooDeep``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .atomic import check_name, ensure_folder, replace_set, write_atomic, write_files
    from .reading import JSONTooDeep, as_id, json_problem, loads_bounded, noting_reads, \
        read_bytes, read_json, read_text

__getattr__, __dir__ = lazy_face(__name__, {
    ".atomic": "check_name ensure_folder replace_set write_atomic write_files",
    ".reading": ("JSONTooDeep as_id json_problem loads_bounded noting_reads read_bytes "
                 "read_json read_text"),
})

__all__ = ["JSONTooDeep", "as_id", "check_name", "ensure_folder", "json_problem",
           "loads_bounded", "noting_reads", "read_bytes", "read_json", "read_text",
           "replace_set", "write_atomic", "write_files"]
