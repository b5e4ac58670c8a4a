"""Train on from an existing tokenizer: its vocabulary, ids and merges stay as they are,
a new corpus is cut by its pre-tokenizer (and special tokens), each unique word is
segmented by its merges, and more merges are learned on top (new ids follow the
inherited ones).

Any tokenizer the engine holds can be the start: one trained here (also as of a step),
GPT-2 files, a ``tokenizer.json``, a ``.tiktoken`` file or a known encoding (whose merges
are derived from the ranks). The result is a merge-list tokenizer: the inherited merges
first, in their order, then the new ones. Before training, the source's own encoder is
compared with that merge list on a sample of the new corpus; a source the merge list
cannot reproduce (a normalizer, a whole-piece rule that builds tokens no merge makes) is
refused with the first difference, rather than trained on a segmentation its own encoder
would not give.

Example::

    >>> gpt2 = load_tokenizer("gpt2/")                      # vocab.json + merges.txt
    >>> t = train_on(gpt2, "chinese.txt", TrainSettings(num_merges=2000))   # (calls.py)
    >>> t.n_inherited, t.n_steps                            # 50000 kept, 2000 new
    >>> tok = t.tokenizer()          # ids 0-50256 unchanged, new ids from 50257
"""
from __future__ import annotations

from array import array
from dataclasses import replace

from ..display import readable
from ..errors import SettingsError
from ..tokenizers.merge_model import word_cache
from ..corpus.table import PretokenTable
from ..tokenizers.base import BaseTokenizer
from ..tokenizers.trained import Tokenizer
from .trainer import TrainSettings, Trainer, summed_words

WHOLE_WORD = r"(?s).+"   # segmenting words already cut: each is taken whole
NUL_SEPARATED = r"[^\x00]+|\x00"   # ... or many at once, joined by NUL (never in them)
SEGMENT_CACHE_WORDS = 1 << 18   # segments remembered while segmenting a table (bounded)
GAP = b""                # bytes of an id the source does not use (never in a word)
PROBE_WORDS = 4000       # words of the new corpus on which the source's encoder is checked


def merge_list_tokenizer(source: BaseTokenizer, pattern: str | None = None) -> Tokenizer:
    """``source`` as a plain merge-list Tokenizer: its vocabulary (ids as they are),
    merges in use, special tokens, and its pattern (or ``pattern``)."""
    merges = [(bytes(a), bytes(b)) for a, b in source.merges[:source.n_merges]]
    return Tokenizer(dict(source.vocab), merges, list(source.special_tokens),
                     pattern=pattern or source.pattern, mode=source.mode,
                     end_of_word=source.end_of_word)


def inherited_settings(source: BaseTokenizer, settings: TrainSettings | None,
                       pattern: str | None = None) -> TrainSettings:
    """``settings`` with the mode, end of word, special tokens and pattern of ``source``
    (those decide how the corpus is cut, so they are the source's, not the caller's)."""
    s = settings or TrainSettings(num_merges=1000)
    return replace(s, mode=source.mode, end_of_word=source.end_of_word,
                   special_tokens=tuple(source.special_tokens),
                   pattern=pattern or source.pattern).validated()


class InheritedTrainer(Trainer):
    """A :class:`Trainer` whose initial tokens are a whole tokenizer's vocabulary and
    whose words start segmented by its merges; steps, undo, records and tokenizers work
    as usual and count only the new merges (step k = k merges after the inherited ones).

    ``n_inherited``: merges taken from the source (the timeline collapses them);
    ``tokenizer(at_step=k)`` has those plus the first k new ones; ``merges`` lists all.
    ``pattern`` overrides the source's pre-tokenizer (SuperBPE's stage 2 does).
    """

    def __init__(self, source: BaseTokenizer, table: PretokenTable,
                 settings: TrainSettings | None = None, *, pattern: str | None = None,
                 check: bool = True):
        settings = inherited_settings(source, settings, pattern)
        self.source = merge_list_tokenizer(source, settings.pattern)
        self.n_inherited = self.source.n_merges
        self._inherited_counts = _source_counts(source, self.n_inherited)
        if check:
            check_merge_list(source, self.source, table)
        super().__init__(table, settings)

    def _initial_state(self, table: PretokenTable, s: TrainSettings) -> tuple:
        vocab = self.source.vocab
        n = max(vocab) + 1
        token_bytes = [vocab.get(i, GAP) for i in range(n)]
        self._gaps = frozenset(i for i in range(n) if i not in vocab)
        self.special_ids = sorted(set(self.source.special_ids.values()))
        specials = set(self.special_ids)
        self.base = [token_bytes[i] for i in range(n) if i not in specials and i in vocab]
        self.n_base = len(self.base)
        self.n_initial = n
        symbols, starts, freqs, self._word_texts = segment_words(self.source, table)
        return token_bytes, symbols, starts, freqs

    def _first_tokenizer(self) -> Tokenizer:
        return merge_list_tokenizer(self.source)

    # ----- state --------------------------------------------------------------------
    @property
    def vocab(self) -> dict[int, bytes]:
        gaps = self._gaps
        return {i: t for i, t in enumerate(self.vocab_bytes) if i not in gaps}

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """Every merge: the inherited ones, then the new ones (for ``Tokenizer(vocab,
        merges)``); the new ones alone are ``[(s.left, s.right) for s in steps]``."""
        return list(self.source.merges) + [(s.left, s.right) for s in self.steps]

    def metadata(self, k: int | None = None, counts: list[int] | None = None) -> dict:
        meta = super().metadata(k, counts)
        meta["merge_counts"] = self._inherited_counts + meta["merge_counts"]
        meta["n_inherited"] = self.n_inherited
        return meta


def _source_counts(source: BaseTokenizer, n: int) -> list:
    counts = list((source.meta or {}).get("merge_counts") or [])[:n]
    return counts + [None] * (n - len(counts))


def segment_words(tok: Tokenizer, table: PretokenTable) -> tuple:
    """The core's input: each unique word of ``table`` segmented by ``tok``'s merges,
    taken whole (never cut again). Words that become equal (char mode strips
    whitespace) are counted once; words with no symbols are left out."""
    byte_batches = tok.mode == "byte" and b"\x00" not in table.blob
    seg = Tokenizer(tok.vocab, list(tok.merges[:tok.n_merges]), [],
                    pattern=NUL_SEPARATED if byte_batches else WHOLE_WORD,
                    mode=tok.mode, end_of_word=tok.end_of_word)
    encode = seg.encode
    symbols, starts, freqs = array("i"), array("q", [0]), array("q")
    if tok.mode == "byte":   # distinct texts have distinct bytes: no two words merge
        freqs.extend(table.counts)
        if seg.model.native:   # in C, each word cut where no merge joins (long stage-2
            # pieces become short, repeated segments, merged once each through a cache)
            id_bytes, end_bytes = seg.model.encode_pieces(
                table.blob, table.starts, seg.model.joins(), word_cache(SEGMENT_CACHE_WORDS))
            symbols, starts = array("i"), array("q")
            symbols.frombytes(id_bytes)
            starts.frombytes(end_bytes)
            return symbols, starts, freqs, None
        if not byte_batches:
            for w in _each_word(table):   # (no list of every word)
                symbols.extend(encode(w))
                starts.append(len(symbols))
            return symbols, starts, freqs, None
        # words joined by NUL, encoded a batch at a time: one pattern call per batch,
        # not per word (NUL is a piece of its own, so no merge crosses it)
        nul = seg.bytes_to_id[b"\x00"]
        batch: list[str] = []
        for i, w in enumerate(_each_word(table), 1):
            batch.append(w)
            if len(batch) == 4096 or i == len(table):
                ids = array("i", encode("\x00".join(batch) + "\x00"))
                pos = 0
                for _ in batch:
                    end = ids.index(nul, pos)
                    symbols.extend(ids[pos:end])
                    starts.append(len(symbols))
                    pos = end + 1
                batch = []
        return symbols, starts, freqs, None
    return summed_words((key, f, w) for w, f in zip(table.words, table.freqs)
                        if (key := tuple(encode(w))))


def _each_word(table: PretokenTable, n: int | None = None):
    blob, st = table.blob, table.starts
    for i in range(len(table) if n is None else min(n, len(table))):
        yield blob[st[i]:st[i + 1]].decode("utf-8")


def check_merge_list(source: BaseTokenizer, merged: Tokenizer,
                     table: PretokenTable) -> None:
    """Refuse a source whose own encoder differs from its merge list on a sample of the
    new corpus (its first words, joined back into text): training on would learn from
    a segmentation the source never gives."""
    if source.pattern != merged.pattern:
        return   # a new pre-tokenizer (SuperBPE's stage 2): the merge list is the rule
    why = (source.meta or {}).get("export_problem") if isinstance(source.meta, dict) else None
    if why:   # an imported file no pattern + merge list holds (a GGUF's regex sequence, CLIP)
        raise SettingsError("Training on needs a tokenizer that one pattern and a merge list "
                            f"describe, as the trained result is: {why}")
    sample = "".join(_each_word(table, PROBE_WORDS))
    want = source.encode(sample, allowed_special="all", add_special_tokens=False)
    got = merged.encode(sample, allowed_special="all", add_special_tokens=False)
    if want == got:
        return
    at = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    where = source.decode(want[max(0, at - 3):at + 3], skip_special_tokens=False)
    raise SettingsError(
        f"This tokenizer's own encoder does not follow its merge list (they first differ "
        f"at token {at:,}, near {readable(where.encode('utf-8'))!r}: it has a normalizer, "
        "or builds tokens no merge makes), so merges learned on top of it would not "
        "encode as trained. Train on from a byte-level BPE tokenizer without a normalizer "
        "(GPT-2 files, tiktoken encodings, or one trained here).")
