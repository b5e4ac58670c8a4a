"""Text into words: the pre-tokenizer presets, the published patterns the native scanner
runs, the scanner itself (with ``regex`` as fallback), the pattern's branches, and the
places where a text or a stream may be split without changing its words.

- :mod:`.presets`: the presets' patterns, names and labels (imports nothing of ours).
- :mod:`.pattern_kinds`: the patterns the C scanner runs, recognised however spelled.
- :mod:`.unicode_classes`: the presets' character classes, taken from ``regex``.
- :mod:`.scanner`: the native scanner (``_scan``, private to this package).
- :mod:`.pretokenize`: :class:`Pretokenizer`: special tokens first, then the pattern.
- :mod:`.branches`, :mod:`.branch_words`: which alternative of the pattern cut a word.
- :mod:`.boundaries`: where a text or stream may be split (safe boundaries).
"""
from __future__ import annotations

from .boundaries import stream_boundary
from .branches import Branch, BranchMatcher
from .presets import PRESET_ALIASES, PRESET_LABELS, PRESETS
from .pretokenize import (Pretokenizer, compile_pattern, resolve_pattern, special_splitter,
                          validate_special_tokens)

__all__ = ["Branch", "BranchMatcher", "PRESETS", "PRESET_ALIASES", "PRESET_LABELS", "Pretokenizer",
           "compile_pattern", "resolve_pattern", "special_splitter", "stream_boundary",
           "validate_special_tokens"]
