"""A :class:`Pipeline` over a ``.tiktoken`` ranks file, encoding as ``tiktoken`` does.

tiktoken keeps no merge list: in a piece it merges the adjacent pair whose
*concatenated bytes* have the lowest rank, and a piece that is itself a token becomes
that token at once (Llama 3's file has 678 tokens no merge of two lower ranks makes,
which only this whole-piece rule ever produces). Both rules run in the C model; the
merge list shown in the vocabulary browser is derived from the ranks only when it is
first read.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import FormatError
from ..pretokenize import Pretokenizer
from . import Pipeline
from .bridge import LazyMerges, PipelineTokenizer
from .word_model import PipelineModel


def load_ranks(path: Path, data: bytes, *, pattern: str, specials: dict[str, int],
               meta: dict) -> PipelineTokenizer:
    """``data``: the ranks file's bytes; ``specials``: special token -> id."""
    try:
        from .._pipeline import Model
    except ImportError:   # no C compiler at install time
        from .pymodel import Model
    native, problem = Model.from_tiktoken(data)
    if problem is not None:
        raise FormatError(path, problem[2] + ".", line=problem[1])
    missing = [b for b in range(256) if native.id_of(bytes([b])) < 0]
    if missing:
        raise FormatError(path, f"lacks {len(missing)} of the 256 single bytes (first: 0x"
                          f"{missing[0]:02X}); a byte-level tokenizer needs all 256.")
    vocab, t2i = native.tables(None, False)
    taken = sorted(i for i in specials.values() if i in vocab)
    if taken:
        raise FormatError(path, f"special token id {taken[0]} is also a rank in {path.name}; "
                          "ids must be unique.", key="special_tokens")
    for s, i in specials.items():
        vocab[i] = s.encode("utf-8")
        t2i.setdefault(vocab[i], i)
    words = Pretokenizer(pattern, sorted(specials, key=specials.get))
    model = PipelineModel(native, vocab)
    pipe = Pipeline(model, kind="tiktoken", vocab=vocab, words=words,
                    special_map=dict(specials), specials=frozenset(specials.values()))
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, vocab)
    return PipelineTokenizer(pipe, vocab=vocab, token_to_id=t2i, merges=merges,
                             special_ids=specials, pattern=words.pattern, meta=meta)
