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

from ...errors import FormatError, PatternError
from ...text.dialects import DialectError, read_pattern
from ...text.pretokenize import Pretokenizer, resolve_pattern
from ...text.unicode_versions import TIKTOKEN
from ..pipeline import PatternParts, Pipeline
from .imported_tokenizer import LazyMerges, PipelineTokenizer
from .lazy import lazy_tables
from .word_model import PipelineModel, model_class


MAX_RANK = (1 << 26) - 1   # the C model's MAX_IDS - 1


def rank_problem(text: str | bytes) -> str | None:
    """What is wrong with the rank field of a ranks line, or None if it is fine.

    Example: '-5' -> 'the rank -5 is negative; ranks are whole numbers from 0'
    """
    if isinstance(text, bytes):
        text = text.rstrip(b"\r").decode("ascii", "replace")
    shown = text if len(text) <= 24 else text[:21] + "..."
    if text.startswith("-") and text[1:].isdigit() and text[1:].isascii():
        return f"the rank {shown} is negative; ranks are whole numbers from 0"
    if not (text.isdigit() and text.isascii()):
        return f"the rank {shown!r} is not a whole number"
    if len(text) > 9 or int(text) > MAX_RANK:
        return f"the rank {shown} is too large: ranks go up to {MAX_RANK:,}"
    return None


def _line(data: bytes, lineno: int) -> bytes:
    """Line ``lineno`` (1-based) of ``data``, without reading past it."""
    start = 0
    for _ in range(lineno - 1):
        start = data.index(b"\n", start) + 1
    end = data.find(b"\n", start)
    return data[start:end if end >= 0 else len(data)]


def load_ranks(path: Path, data: bytes, *, pattern: str, specials: dict[str, int],
               meta: dict, source: str | None = None,
               match_specials: bool = True, trusted: bool = False) -> PipelineTokenizer:
    """``data``: the ranks file's bytes; ``specials``: special token -> id; ``source``:
    where the pattern came from (named if it runs away); ``match_specials``: False when
    the special tokens' text in the input is ordinary text (mistral-common's tekken:
    tiktoken with no special tokens, the specials ids of their own); ``trusted``: a
    published pattern known not to backtrack, run without the time limit (which makes
    the `regex` module ~3x slower)."""
    native, problem = model_class().from_tiktoken(data)
    if problem is not None:
        message = problem[2]
        if message == "the rank is not a whole number":   # say which rank and why
            message = rank_problem(_line(data, problem[1]).partition(b" ")[2]) or message
        raise FormatError(path, message + ".", line=problem[1])
    missing = [b for b in range(256) if native.id_of(bytes([b])) < 0]
    if missing:
        raise FormatError(path, f"lacks {len(missing)} of the 256 single bytes (first: 0x"
                          f"{missing[0]:02X}); a byte-level tokenizer needs all 256.")
    taken = sorted(i for i in specials.values() if native.key(i) is not None)
    if taken:
        raise FormatError(path, f"special token id {taken[0]} is also a rank in {path.name}; "
                          "ids must be unique.", key="special_tokens")

    def tables() -> tuple[dict[int, bytes], dict[bytes, int]]:
        vocab, t2i = native.tables(None, False)
        for s, i in specials.items():
            vocab[i] = s.encode("utf-8")
            t2i.setdefault(vocab[i], i)
        return vocab, t2i

    vocab, t2i = lazy_tables(tables)   # made when first read: encoding needs neither
    # tiktoken reads the pattern with fancy-regex and tiktoken's Unicode tables
    text, _ = resolve_pattern(pattern)
    classes = TIKTOKEN
    try:
        text, classes = read_pattern(text, "fancy", classes)
    except DialectError as e:
        what = "does not compile" if e.malformed else "cannot be run as tiktoken runs it"
        raise PatternError(f"the pattern {what}: {e}.") from None
    matched = sorted(specials, key=specials.__getitem__) if match_specials else []
    words = Pretokenizer(text, matched, classes=classes)
    model = PipelineModel(native, vocab, by_bytes=True)
    words.source = source
    if trusted:
        words.timeout = None
    parts = PatternParts(words, {s: specials[s] for s in matched})
    pipe = Pipeline(model, vocab=vocab, added=parts, pre=parts,
                    specials=frozenset(specials.values()))
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, vocab)
    tok = PipelineTokenizer(pipe, vocab=vocab, bytes_to_id=t2i, merges=merges,
                            special_ids=specials, pattern=words.pattern, meta=meta,
                            matched_specials=matched, classes=classes)
    tok.reads_specials = False   # tiktoken refuses typed special text unless allowed
    return tok
