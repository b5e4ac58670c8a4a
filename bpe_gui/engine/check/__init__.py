"""Check my BPE: a learner's own trainer and encoder held against the reference.

A learner's trainer output (GPT-2 ``vocab.json`` + ``merges.txt``, a
``tokenizer.json``, a ``.tiktoken``, or the CS336 ``(vocab, merges)`` pickle, read
without running code) is compared with the reference trained here on the same corpus:
the first merge where they part, both pairs' counts there, and the reason in one
sentence, found by training again under each usual cause (a tie broken another way,
pairs counted across special tokens or pre-token boundaries, overlapping pairs,
another pattern, characters instead of bytes, a merge of tokens that do not exist yet,
a vocabulary size off by the special tokens). An encoder's ids on a text are checked
the same way: where its tokens part from the tokenizer's, the word played back merge
by merge, and the rule the encoder broke.

Example::

    from bpe_gui.engine.check import read_result, check_merges, check_ids
    result = read_result("my_bpe.pkl")                # (vocab, merges), read safely
    report = check_merges(result, Path("corpus.txt"), special_tokens=["<|endoftext|>"])
    print(report.headline()); print(report.difference.sentence)
    enc = check_ids(result, "the text", [116, 258, ...])
    print(enc.sentence)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .encoding import ENCODE_CAUSES, EncodeReport, Token, WordDifference, check_ids, read_ids
    from .lab import CheckLimits
    from .merges import check_merges, implied_settings
    from .report import CAUSES, Attempt, CheckReport, Difference, FoundSettings, PairWord, show_pair
    from .result import LearnerResult, SafeUnpickler, read_result
    from .variants import Rules, train_slow

__getattr__, __dir__ = lazy_face(__name__, {
    ".encoding": "ENCODE_CAUSES EncodeReport Token WordDifference check_ids read_ids",
    ".lab": "CheckLimits",
    ".merges": "check_merges implied_settings",
    ".report": "CAUSES Attempt CheckReport Difference FoundSettings PairWord show_pair",
    ".result": "LearnerResult SafeUnpickler read_result",
    ".variants": "Rules train_slow",
})

__all__ = [
    "Attempt", "CAUSES", "CheckLimits", "CheckReport", "Difference", "ENCODE_CAUSES",
    "EncodeReport", "FoundSettings", "LearnerResult", "PairWord", "Rules", "SafeUnpickler",
    "WordDifference", "check_ids", "check_merges", "implied_settings", "read_ids",
    "read_result", "show_pair", "Token", "train_slow",
]
