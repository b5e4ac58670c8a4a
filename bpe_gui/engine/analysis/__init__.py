"""Questions about tokenizers and training, one module per question (pure functions, no Qt).

- :mod:`.reachability`: which tokens can text ever produce ("Fishing for Magikarp").
- :mod:`.overlap`: how much two vocabularies share.
- :mod:`.per_language`: what each language costs in tokens (held-out texts).
- :mod:`.scripts`: the script of text and tokens; per-script counts of an encoding.
- :mod:`.cuts`: where an encoding cuts a text, and where two encodings differ.
- :mod:`.held_out_texts`: held-out texts pre-tokenized once; special tokens in a text.
- :mod:`.distribution`: token lengths, Zipf ranks, Rényi efficiency.
- :mod:`.curves`: the series the charts draw over training.
- :mod:`.dead_weight`: tokens formed on a corpus but almost always merged further
  (PickyBPE's intersection over self).
- :mod:`.mixture`: what a tokenizer was trained on: category proportions inferred from
  its merge order (Hayase et al. 2024), replaying its merges on a sample per category.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .curves import (RenyiCurve, corpus_bytes_per_token, corpus_renyi_efficiency,
                         counts_at_start, sample_steps, token_frequencies, tokens_at_start)
    from .cuts import Cut, boundary_diff
    from .dead_weight import (THRESHOLD, DeadToken, DeadWeight, dead_weight_of,
                              dead_weight_of_files, dead_weight_of_pieces, ios_text)
    from .distribution import RENYI_ALPHA, length_histogram, renyi_efficiency, token_length, zipf
    from .held_out_texts import HeldOut, held_out, held_out_tokens, special_counts
    from .per_language import (MAX_ALPHA, CostRow, CostTable, held_out_files, language_cost,
                                tokenizer_labels)
    from .mixture import (MixtureResult, MixtureStep, check_mixture_tokenizer, check_solver,
                          infer_mixture, mixture_refusal, read_sample, sample_files)
    from .mixture_warnings import MixtureWarning
    from .overlap import vocab_overlap
    from .reachability import KINDS, UNREACHABLE, Reachability, classify_more, classify_tokens
    from .scripts import SCRIPTS, ScriptStats, encoding_stats, scripts_present, utf8_len

__getattr__, __dir__ = lazy_face(__name__, {
    ".curves": ("RenyiCurve corpus_bytes_per_token corpus_renyi_efficiency counts_at_start "
                "sample_steps token_frequencies tokens_at_start"),
    ".cuts": "Cut boundary_diff",
    ".dead_weight": ("THRESHOLD DeadToken DeadWeight dead_weight_of dead_weight_of_files "
                     "dead_weight_of_pieces ios_text"),
    ".distribution": "RENYI_ALPHA length_histogram renyi_efficiency token_length zipf",
    ".held_out_texts": "HeldOut held_out held_out_tokens special_counts",
    ".per_language": ("MAX_ALPHA CostRow CostTable held_out_files language_cost "
                      "tokenizer_labels"),
    ".mixture": ("MixtureResult MixtureStep check_mixture_tokenizer check_solver infer_mixture "
                 "mixture_refusal read_sample sample_files"),
    ".mixture_warnings": "MixtureWarning",
    ".overlap": "vocab_overlap",
    ".reachability": "KINDS UNREACHABLE Reachability classify_more classify_tokens",
    ".scripts": "SCRIPTS ScriptStats encoding_stats scripts_present utf8_len",
})

# the public API; each module's own helpers (char_script, cut_points...) are
# imported from it
__all__ = ["CostRow", "CostTable", "Cut", "DeadToken", "DeadWeight", "HeldOut", "KINDS",
           "MAX_ALPHA", "MixtureResult", "MixtureStep",
           "MixtureWarning", "RENYI_ALPHA", "Reachability",
           "RenyiCurve", "SCRIPTS", "ScriptStats", "THRESHOLD", "UNREACHABLE",
           "boundary_diff", "check_mixture_tokenizer", "check_solver", "classify_more",
           "classify_tokens", "corpus_bytes_per_token", "corpus_renyi_efficiency",
           "counts_at_start", "dead_weight_of", "dead_weight_of_files",
           "dead_weight_of_pieces", "encoding_stats", "held_out", "held_out_files",
           "held_out_tokens", "infer_mixture", "ios_text", "language_cost",
           "length_histogram", "mixture_refusal", "read_sample", "renyi_efficiency",
           "sample_files", "sample_steps", "scripts_present", "special_counts",
           "token_frequencies", "token_length", "tokenizer_labels", "tokens_at_start",
           "utf8_len", "vocab_overlap", "zipf"]
