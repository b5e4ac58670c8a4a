"""Text into words: the pre-tokenizer presets, the published patterns the native scanner
runs, the scanner itself (with ``regex`` as fallback), the pattern's branches, and the
places where a text or a stream may be split without changing its words.

- :mod:`.presets`: the presets' patterns, names and labels (imports nothing of ours).
- :mod:`.pattern_kinds`: the patterns the C scanner runs, recognised however spelled.
- :mod:`.unicode_classes`: the presets' character classes, taken from ``regex``.
- :mod:`.unicode_versions`: which Unicode tables each library's files use (tiktoken,
  tokenizers, llama.cpp), those tables (from ``unicode_data.json``, generated), and what a
  class means in a version against the installed ``regex``.
- :mod:`.dialects`: patterns as Oniguruma (tokenizer.json) and fancy-regex (.tiktoken)
  read them, to and from ``regex`` syntax; classes pinned to a Unicode version.
- :mod:`.scanner`: the native scanner (``_scan``, private to this package), with the
  installed regex's tables or a library's.
- :mod:`.pretokenize`: :class:`Pretokenizer`: special tokens first, then the pattern.
- :mod:`.branches`, :mod:`.branch_words`: which alternative of the pattern cut a word;
  :mod:`.piece_words`: the words of a tokenizer whose pieces no one regex over the typed
  text finds (a tokenizer.json's steps, a normal form's text).
- :mod:`.boundaries`: where a text or stream may be split (safe boundaries); a text's
  lines as Hugging Face's trainer reads them (``lines_of``).
- :mod:`.normal_forms`: whether a text is already in a Unicode normal form, and its form
  (a bit per character for long texts: ``unicodedata`` only for the stretches a form may
  change, and for short texts).
- :mod:`.graphemes`: extended grapheme cluster classes of every code point (for the
  native Precompiled normalizer); ``grapheme_ranges.json`` is their committed table.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .boundaries import lines_of, stream_boundary
    from .branches import Branch, BranchMatcher
    from .normal_forms import is_normalized
    from .presets import PRESET_ALIASES, PRESET_LABELS, PRESETS
    from .pretokenize import (Pretokenizer, compile_pattern, pattern_names, pattern_spellings,
                              refuse_bare_name, resolve_pattern, special_splitter,
                              unmatched_sentence, validate_special_tokens)

__getattr__, __dir__ = lazy_face(__name__, {
    ".boundaries": "lines_of stream_boundary",
    ".branches": "Branch BranchMatcher",
    ".normal_forms": "is_normalized",
    ".presets": "PRESET_ALIASES PRESET_LABELS PRESETS",
    ".pretokenize": ("Pretokenizer compile_pattern pattern_names pattern_spellings refuse_bare_name "
                     "resolve_pattern special_splitter unmatched_sentence "
                     "validate_special_tokens"),
})

__all__ = ["Branch", "BranchMatcher", "PRESETS", "PRESET_ALIASES", "PRESET_LABELS", "Pretokenizer",
           "compile_pattern", "is_normalized", "lines_of", "pattern_names", "pattern_spellings",
           "refuse_bare_name",
           "resolve_pattern", "special_splitter", "stream_boundary", "unmatched_sentence",
           "validate_special_tokens"]
