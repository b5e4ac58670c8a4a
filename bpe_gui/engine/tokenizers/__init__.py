"""Every tokenizer, whatever it came from, as one kind of object.

- :mod:`.model`: ``WordModel``, the one model interface inside a word (start symbols,
  merges applied in order, playback), and byte offsets into character offsets.
- :mod:`.pipeline`: ``Pipeline``, the one runtime every tokenizer encodes through
  (special tokens, pieces, the model; the route a text takes, chosen in one place).
- :mod:`.base`: ``BaseTokenizer``, what every tokenizer is (encode with offsets, stream,
  decode, pieces, playback, explain), and ``Encoding``; :mod:`.conventions`: tiktoken's
  and tokenizers' names on it (``n_vocab``, ``decode_batch``, ``id_to_token``...).
- :mod:`.special_policy`: which special tokens a call reads from text (tiktoken's
  ``allowed_special`` / ``disallowed_special``); :mod:`.post`: the tokens a format adds
  around a text (``add_special_tokens``: a tokenizer.json's template, a GGUF's BOS).
- :mod:`.symbols`: character mode's ``</w>`` and ``<unk>``.
- :mod:`.merge_model`, :mod:`.trained`: a tokenizer over learned merges (trained here or
  read from GPT-2 files: :mod:`.gpt2_files`), encoding in C (``_encode``).
- :mod:`.strategies`: the C engine's merge strategies, listed and forced
  (``BPE_GUI_MERGE``).
- :mod:`.steps`: an encoding carried from one training step to the next (a merge
  applied or undone) without encoding again.
- :mod:`.explain`: encoding step by step (which branch cut each word, which merges).
- :mod:`.imported`: tokenizers run exactly as their own libraries run them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .base import BaseTokenizer
    from .encoding import Encoding
    from .ids_file import typed_separator
    from .explain import (PLAYBACK_MAX, ExplainedWord, Explanation, matcher_for, playback,
                          safe_end, safe_start, show, why_it_ends, word_spans)
    from .model import MergeApplied, Playback, WordModel, char_of_byte
    from .steps import apply_merge, undo_merge, word_numbers
    from .strategies import MergeStrategy, merge_strategies, merge_strategy, set_merge_strategy
    from .trained import EOW, UNK, Tokenizer

__getattr__, __dir__ = lazy_face(__name__, {
    ".base": "BaseTokenizer",
    ".encoding": "Encoding",
    ".ids_file": "typed_separator",
    ".explain": ("PLAYBACK_MAX ExplainedWord Explanation matcher_for playback safe_end "
                 "safe_start show why_it_ends word_spans"),
    ".model": "MergeApplied Playback WordModel char_of_byte",
    ".steps": "apply_merge undo_merge word_numbers",
    ".strategies": "MergeStrategy merge_strategies merge_strategy set_merge_strategy",
    ".trained": "EOW UNK Tokenizer",
})

__all__ = ["BaseTokenizer", "EOW", "Encoding", "ExplainedWord", "Explanation", "MergeApplied",
           "MergeStrategy", "PLAYBACK_MAX", "Playback", "Tokenizer", "UNK", "WordModel",
           "apply_merge", "char_of_byte", "matcher_for", "merge_strategies", "merge_strategy",
           "playback", "safe_end", "safe_start", "set_merge_strategy", "show",
           "typed_separator", "undo_merge", "why_it_ends", "word_numbers", "word_spans"]
