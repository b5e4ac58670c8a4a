"""The tokenizer model: what every tokenizer does inside one word, whatever its source.

A tokenizer is parts put together (as Hugging Face ``tokenizers`` assembles a
pre-tokenizer, a model and a decoder): something cuts text into words (pieces), and a
:class:`WordModel` turns each piece into tokens. Every kind of tokenizer has one --
trained here (and as of any step), GPT-2 files (:class:`~.merge_model.MergeModel`),
``tokenizer.json`` and ``.tiktoken`` files and the known encodings
(:class:`~.pipeline.word_model.PipelineModel`) -- and answers the same four questions:

* ``start(piece)``: the symbols a piece starts from (ids; ``token(i)`` gives their
  bytes): its bytes, its characters (+ ``</w>``) in character mode, ``<0xNN>`` byte
  fallback and ``<unk>`` for Hugging Face files;
* ``rank(left, right)``: the rank of a pair and the id it makes, or None (no merge);
* ``whole(piece)``: a rule that takes the piece as one token before any merge
  (tiktoken, Hugging Face ``ignore_merges``), or None;
* ``merge(piece)``: the piece's ids (the fast path, in C);

and from those :meth:`WordModel.playback` replays the merges one by one (word
playback, ``encode --explain``). Its last symbols are ``merge``'s ids (tested for every
kind).

Text with lone surrogates (possible in a Python ``str``) is encoded as tiktoken encodes
it: surrogate pairs are joined, a lone one becomes U+FFFD (:func:`clean_text`).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Sequence, Union

from ..errors import EncodeError

# What a model is given: a piece's text, or the bytes of a piece that are not UTF-8 (a
# byte-level tokenizer.json whose Split, Digits or Punctuation step runs after ByteLevel
# can cut inside a character: imported/hf_parts.model_word). The type tells them apart.
Word = Union[str, bytes]


def word_text(piece: Word) -> str:
    """A piece as text: a bytes piece decoded, what is not UTF-8 as U+FFFD (as shown)."""
    return piece if isinstance(piece, str) else piece.decode("utf-8", "replace")


RECENT = 64   # states a playback keeps replayed (a table's visible rows and more)


@dataclass(frozen=True)
class MergeApplied:
    """One step of a playback: a merge applied in the word (or a rule). Only what changed
    is kept (a long word's steps hold each merge once, not the whole word at each step):
    ``symbols`` and ``ids`` after it are replayed from the playback's start."""

    rank: int | None                 # the merge's rank (0 = learned first); None: a rule
    pair: tuple[bytes, ...]          # (left, right) merged; () for a rule step
    token: bytes                     # the token it makes
    token_id: int
    at: tuple[int, ...]              # where, in the symbols before it, the pair was merged
    # where, counted in the playback's start symbols: (left, right) start of each pair
    # merged; a rule step: the (start, end) it rewrote, with ``made`` (ids, symbols)
    joins: tuple[tuple[int, int], ...]
    rule: str = ""                   # for a rule step: what the rule did, in words
    made: tuple[tuple[int, ...], tuple[bytes, ...]] = ((), ())
    of: Playback | None = field(default=None, compare=False, repr=False)   # (set by it)
    k: int = field(default=0, compare=False, repr=False)   # its number there, from 1

    @property
    def symbols(self) -> tuple[bytes, ...]:
        """The symbols after this step."""
        assert self.of is not None, "a step outside a Playback"
        return self.of.symbols_at(self.k)

    @property
    def ids(self) -> tuple[int, ...]:
        assert self.of is not None, "a step outside a Playback"
        return self.of.ids_at(self.k)

    def new_positions(self) -> tuple[int, ...]:
        """Where the new tokens are in ``symbols``. Example: at (0, 3) -> (0, 2)."""
        return tuple(p - k for k, p in enumerate(self.at))


@dataclass(frozen=True)
class Playback:
    """One word's symbols at the start, then every step until no learned merge applies."""

    word: str
    symbols: tuple[bytes, ...]       # at the start: bytes, or characters (+ </w>)
    ids: tuple[int, ...]
    steps: tuple[MergeApplied, ...]
    n_merges: int                    # how many merges the tokenizer had
    # the last states replayed: a table repaints the same rows, each cell asks again
    _recent: dict[int, tuple[tuple[int, ...], tuple[bytes, ...]]] = field(
        default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(replace(st, of=self, k=k)
                                                for k, st in enumerate(self.steps, 1)))

    def _replay(self, k: int) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        """(ids, symbols) after ``k`` steps, the last RECENT of them kept."""
        got = self._recent.get(k)
        if got is None:
            if len(self._recent) >= RECENT:
                del self._recent[next(iter(self._recent))]
            got = self._recent[k] = self._rebuilt(k)
        return got

    def _rebuilt(self, k: int) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        """(ids, symbols) after ``k`` steps: each start symbol's slot holds what begins
        there, and a merge or rule empties the slots it joins (O(word + merges))."""
        slot_ids: list[tuple[int, ...]] = [(i,) for i in self.ids]
        slot_syms: list[tuple[bytes, ...]] = [(s,) for s in self.symbols]
        for st in self.steps[:max(0, k)]:
            if st.rank is None:
                (a, b), = st.joins
                slot_ids[a + 1:b], slot_syms[a + 1:b] = [()] * (b - a - 1), [()] * (b - a - 1)
                slot_ids[a], slot_syms[a] = st.made
            for a, b in () if st.rank is None else st.joins:
                slot_ids[a], slot_syms[a], slot_ids[b], slot_syms[b] = \
                    (st.token_id,), (st.token,), (), ()
        return (tuple(i for t in slot_ids for i in t), tuple(s for t in slot_syms for s in t))

    def symbols_at(self, k: int) -> tuple[bytes, ...]:
        """The symbols after ``k`` steps (0: the start)."""
        return self._replay(k)[1]

    def ids_at(self, k: int) -> tuple[int, ...]:
        return self._replay(k)[0]

    @property
    def final_symbols(self) -> tuple[bytes, ...]:
        return self.symbols_at(len(self.steps))

    @property
    def final_ids(self) -> tuple[int, ...]:
        return self.ids_at(len(self.steps))


class Piece(NamedTuple):
    """A piece of a text as the tokenizer cuts it before its model runs."""

    start: int                 # character offsets in the text
    end: int
    text: Word                 # what the model gets (normalized, '▁' for spaces, ...;
                               # bytes: a byte-level piece that is not UTF-8)
    special_id: int | None     # a special (or added) token: its id; None: model input


class WordModel(ABC):
    """Inside one piece: start symbols, pair ranks, the whole-piece rule, merging.

    ``sequential``: False when the lowest-rank pair is merged at every place at once,
    left to right (training, and so trained tokenizers); True when one place is merged
    at a time, the leftmost lowest-rank pair (``tokenizers``, ``tiktoken``). The two give
    the same tokens for merges learned in order; a playback shows the kind's own rule.
    """

    sequential = False
    # True when the merges inside a token of a piece's result are those of the token's
    # own symbols merged alone, whatever the piece around it (lowest rank first, no merge
    # undone): analysis.dead_weight learns each token's build once. False for a model
    # that splits merged symbols back (SentencePiece UNUSED pieces).
    context_free = True

    @property
    @abstractmethod
    def n_merges(self) -> int: ...

    @abstractmethod
    def start(self, piece: Word) -> list[int]:
        """The ids a piece starts from (before any merge)."""

    @abstractmethod
    def token(self, i: int) -> bytes:
        """The bytes id ``i`` stands for."""

    @abstractmethod
    def rank(self, left: int, right: int) -> tuple[int, int] | None:
        """(rank, new id) of the merge of this pair, or None if it has none."""

    def whole(self, piece: Word) -> tuple[int, str] | None:
        """(id, why) when the piece becomes one token before any merge; None otherwise."""
        return None

    def text_encoder(self, added):
        """The model's own encoder of whole texts (normalizer and merges in one C call,
        SentencePiece's), with the route interface of ``_encode.Encoder`` (encode,
        encode_to_array, encode_batch, encode_offsets), finding ``added``'s tokens; None:
        the pipeline's C encoder over :meth:`whole_text`'s table, or the pieces."""
        return None

    @abstractmethod
    def merge(self, piece: Word) -> tuple[int, ...]:
        """The piece's token ids (what encoding gives)."""

    def merge_symbols(self, ids: Sequence[int]) -> tuple[int, ...]:
        """Merge given start symbols (not a piece's own: e.g. a character-level token's
        characters and ``</w>``) by the pair rule. Kinds with a fast loop override it."""
        ids = list(ids)
        while len(ids) > 1:
            found = self._lowest(ids)
            if found is None:
                break
            k, (r, new) = found
            ids = _merged(ids, [k] if self.sequential else self._places(ids, k, r), new)
        return tuple(ids)

    def playback(self, piece: Word, word: str | None = None) -> Playback:
        """The merges that turn ``piece`` into its tokens, in the order they apply.
        ``word``: the text shown for it (default: the piece itself)."""
        if isinstance(piece, str):
            piece = clean_text(piece)
        ids = list(self.start(piece))
        tok = self.token
        first_ids, first = tuple(ids), tuple(tok(i) for i in ids)
        if word is None:
            word = word_text(piece)
        rule = self.whole(piece) if len(ids) > 1 else None
        if rule is not None:
            tid, why = rule
            t = tok(tid)
            step = MergeApplied(None, (), t, tid, (0,), ((0, len(ids)),), why, ((tid,), (t,)))
            return Playback(word, first, first_ids, (step,), self.n_merges)
        steps: list[MergeApplied] = []
        starts = list(range(len(ids)))   # each symbol's first start symbol
        while len(ids) > 1:
            found = self._lowest(ids)
            if found is None:
                break
            k, (r, new) = found
            pair = (tok(ids[k]), tok(ids[k + 1]))
            at = [k] if self.sequential else self._places(ids, k, r)
            prev = steps[-1] if steps else None
            joins = tuple((starts[p], starts[p + 1]) for p in at)
            ids, starts = _merged(ids, at, new), _merged(starts, at, -1, keep_left=True)
            if self.sequential and prev is not None and prev.rank == r and \
                    prev.pair == pair and k + len(prev.at) >= prev.at[-1] + 2:
                # the same merge again further right: one step, as a trained word shows it
                steps[-1] = replace(prev, at=prev.at + (k + len(prev.at),),
                                    joins=prev.joins + joins)
                continue
            steps.append(MergeApplied(r, pair, tok(new), new, tuple(at), joins))
        return Playback(word, first, first_ids, tuple(steps), self.n_merges)

    def _lowest(self, ids: list[int]) -> tuple[int, tuple[int, int]] | None:
        """(position, (rank, new id)) of the leftmost lowest-rank pair, or None."""
        rank = self.rank
        best, at = None, -1
        for k in range(len(ids) - 1):
            got = rank(ids[k], ids[k + 1])
            if got is not None and (best is None or got[0] < best[0]):
                best, at = got, k
        return None if best is None else (at, best)

    def _places(self, ids: list[int], k: int, r: int) -> list[int]:
        """Every place of the rank-``r`` pair from ``k`` on, left to right, no overlaps.

        Example: [a, a, a], pair (a, a) -> [0]
        """
        out, i, n = [], k, len(ids)
        while i < n - 1:
            got = self.rank(ids[i], ids[i + 1])
            if got is not None and got[0] == r:
                out.append(i)
                i += 2
            else:
                i += 1
        return out


def _merged(ids: list[int], at: Sequence[int], new: int, keep_left: bool = False) -> list[int]:
    """``ids`` with the pairs at ``at`` merged into ``new`` (``keep_left``: into the
    pair's left one)."""
    out, last = [], 0
    for k in at:
        out += ids[last:k]
        out.append(ids[k] if keep_left else new)
        last = k + 2
    return out + ids[last:]


def joined(word: str, parts: Sequence[Playback], n_merges: int) -> Playback:
    """One playback of a word the tokenizer cuts into several pieces: the pieces' steps
    one piece after another (earlier pieces already merged, later ones at their start)."""
    steps: list[MergeApplied] = []
    off = start = 0   # where the part starts: in the symbols now, and at the start
    for p in parts:
        steps += (replace(st, at=tuple(a + off for a in st.at),
                          joins=tuple((a + start, b + start) for a, b in st.joins))
                  for st in p.steps)
        off, start = off + len(p.final_ids), start + len(p.ids)
    return Playback(word, tuple(s for p in parts for s in p.symbols),
                    tuple(i for p in parts for i in p.ids), tuple(steps), n_merges)


# ----- text that is not valid Unicode -------------------------------------------------
def clean_text(text: str) -> str:
    """``text`` as UTF-8 can hold it, as tiktoken does: a surrogate pair written as two
    code points becomes its character, a lone surrogate U+FFFD. Example: '\\ud83d' -> '�'."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_with_map(text: str) -> tuple[str, list[int] | None]:
    """(clean text, where each of its characters starts in ``text``, plus len(text)) or
    (text, None) when it was clean. Maps offsets of the clean text back to ``text``."""
    cleaned = clean_text(text)
    if cleaned is text:
        return text, None
    starts: list[int] = []
    i, n = 0, len(text)
    while i < n:
        starts.append(i)
        hi = text[i]
        if "\ud800" <= hi <= "\udbff" and i + 1 < n and "\udc00" <= text[i + 1] <= "\udfff":
            i += 2
        else:
            i += 1
    starts.append(n)
    if len(starts) != len(cleaned) + 1:   # never: each unit maps to one character
        raise EncodeError("Could not map the text's lone surrogates to U+FFFD.")
    return cleaned, starts


def clean_chunks(chunks):
    """A stream of text with lone surrogates replaced as :func:`clean_text` does, a high
    surrogate at a chunk's end held back so a pair split across chunks is joined."""
    held = ""
    for chunk in chunks:
        if held:
            chunk, held = held + chunk, ""
        if not chunk:
            continue
        if chunk.isascii():
            yield chunk
            continue
        if "\ud800" <= chunk[-1] <= "\udbff":
            chunk, held = chunk[:-1], chunk[-1]
        yield clean_text(chunk)
    if held:
        yield clean_text(held)


# ----- byte offsets into character offsets: the one home of the rule ---------------------
def char_of_byte(text: str) -> list[int] | None:
    """Character index of each UTF-8 byte of ``text`` (a lone surrogate counts as the three
    bytes "surrogatepass" gives it); None for ASCII, where it is the identity.

    Example: 'a你' -> [0, 1, 1, 1]
    """
    if text.isascii():
        return None
    out: list[int] = []
    for ci, ch in enumerate(text):
        out.extend([ci] * len(ch.encode("utf-8", "surrogatepass")))
    return out


def char_spans(word: str, starts: Sequence[int], ends: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Each token's character span in ``word`` from its byte span in the word's UTF-8: a
    token holding part of a character covers that whole character, so two neighbouring
    tokens may share one.

    Example: 'a你', byte spans (0, 1), (1, 3), (3, 4) -> (0, 1), (1, 2), (1, 2)
    """
    cob = char_of_byte(word)
    if cob is None:
        return tuple(zip(starts, ends))
    cob.append(len(word))
    return tuple((cob[s], cob[e - 1] + 1 if e > s else cob[s]) for s, e in zip(starts, ends))
