"""The :class:`~bpe_gui.engine.tokenizers.model.WordModel` of an imported tokenizer.

It wraps the ``_pipeline`` C model (or its Python stand-in, ``pymodel``) and is the one
place the pipeline calls it once loaded. Two rules, as their libraries run them:

* ``tokenizer.json``: a piece starts from its bytes (ByteLevel) or its
  characters, a character missing from the vocabulary as ``<0xNN>`` byte tokens
  (``byte_fallback``) or ``<unk>`` (``fuse_unk`` joins a run of them); the merge list
  gives each pair's rank; ``ignore_merges`` takes a piece that is a token whole.
* ``.tiktoken`` and the known encodings (``by_bytes``, set by their reader): no merge
  list; the rank of a pair is the rank of its *concatenated bytes*, if that is a token,
  and a piece that is a token is taken whole first.

Both merge one place at a time, the leftmost lowest-rank pair (``sequential``).

Words come as ``str`` (merged by their UTF-8) or, for a byte-level piece cut inside a
character (``hf_parts.model_word``), as ``bytes`` (merged as they are): the kind of
object is the flag, never a character, so every character of a text means itself.
"""
from __future__ import annotations

from ..model import Word, WordModel
from .lazy import Later, Lazy

try:  # the merge table of whole texts' C encoder (the pipeline makes the encoder)
    from .. import _encode
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _encode = None  # type: ignore[assignment]  # optional C extension: None where it was not built

NO_LIMIT = 2**31 - 1   # merge with every rank
# words in the C encoder's cache, shared by every thread (64 bytes each: 16 MB)
ENCODER_WORDS = 1 << 18

TIKTOKEN_WHOLE = ("The whole piece is a token of the vocabulary, so it becomes that one "
                  "token without any merge (tiktoken's rule).")
IGNORE_MERGES = ("The whole word is a token of the vocabulary, so it becomes that one token "
                 "without any merge (ignore_merges).")


class PipelineModel(WordModel):
    sequential = True
    vocab = Lazy[dict[int, bytes]]()   # id -> bytes: a dict, or a Later made when first read

    def __init__(self, native, vocab: dict[int, bytes] | Later[dict[int, bytes]], *, byte_level: bool = True,
                 ignore_merges: bool = False, byte_fallback: bool = False,
                 unk_id: int = -1, fuse_unk: bool = False, end_of_word: bytes = b"",
                 by_bytes: bool = False):
        self.native = native                 # _pipeline.Model (or pymodel.Model)
        self.vocab = vocab                   # id -> the bytes it stands for
        self.byte_level = byte_level or by_bytes
        self.ignore_merges = ignore_merges
        # a piece that is a token taken whole: why (tiktoken's rule, ignore_merges), or None
        self.whole_rule = TIKTOKEN_WHOLE if by_bytes else IGNORE_MERGES if ignore_merges \
            else None
        # a pair's rank: by its concatenated bytes (tiktoken) or the merge list
        self._pair_rank = self._rank_by_bytes if by_bytes else self._rank_by_list
        self.unk_id = unk_id
        self.fuse_unk = fuse_unk
        self.end_of_word = end_of_word       # HF end_of_word_suffix (key bytes), or b""
        self._derived = not by_bytes   # tiktoken: merges derived when first asked for
        self._fallback = [native.id_of(f"<0x{b:02X}>".encode()) if byte_fallback else -1
                          for b in range(256)]
        self._pairs: dict[tuple[int, int], tuple[int, int]] | None = None

    @property
    def n_merges(self) -> int:
        """tiktoken: the merges are derived from the ranks when first asked for."""
        self._derive()
        return self.native.n_merges

    def _derive(self) -> None:
        if not self._derived:
            self.native.rebuild()
            self._derived = True

    # ----- the C model's calls ---------------------------------------------------------
    def whole_text(self) -> tuple | None:
        """(merger, merges in use, words the encoder caches) for the C encoder of whole
        texts over this model's table, or None: a suffix on a word's last symbol (which
        the merger does not know), the pure-Python stand-in, or single bytes without a
        token (the model's own loop then)."""
        if self.end_of_word or _encode is None or not hasattr(self.native, "merge_table"):
            return None
        try:
            return _encode.Merger.wrap(self.native.merge_table()), NO_LIMIT, ENCODER_WORDS
        except ValueError:
            return None

    def encode_words(self, words: list[str] | list[Word], cache: dict, cache_limit: int) -> list[int]:
        return self.native.encode_words(words, cache, cache_limit)

    def encode_cut(self, word: str) -> list[int] | None:
        """A long word's ids merged by segments where no merge crosses (tokenizer.json
        models without ByteLevel), or None where the model cannot be cut."""
        cut = getattr(self.native, "encode_cut", None)   # not in the pure-Python stand-in
        return cut(word) if cut is not None else None

    def tokenize(self, piece: Word) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(ids, starts, ends): byte offsets in the piece's UTF-8 (bytes: in them)."""
        return self.native.tokenize(piece)

    def merge(self, piece: Word) -> tuple[int, ...]:
        return tuple(self.tokenize(piece)[0])

    def merge_at(self, k: int) -> tuple[int, int, int]:
        """(left id, right id, new id) of merge k."""
        self._derive()
        return self.native.merge(k)

    def key_text(self, i: int) -> str | None:
        """The token's string as its file writes it."""
        return self.native.key_text(i)

    # ----- the model interface -----------------------------------------------------------
    def token(self, i: int) -> bytes:
        t = self.vocab.get(i)
        return t if t is not None else (self.native.key(i) or b"")

    def start(self, piece: Word) -> list[int]:
        w = piece if isinstance(piece, bytes) else piece.encode("utf-8")
        ids: list[int] = []
        id_of = self.native.id_of
        eow = self.end_of_word
        if self.byte_level:
            for k, b in enumerate(w):
                self._put(ids, id_of(bytes([b]) + (eow if k == len(w) - 1 else b"")))
            return ids
        chars = _chars(w)
        for k, ch in enumerate(chars):
            c = ch + (eow if k == len(chars) - 1 else b"")
            t = id_of(c)
            if t >= 0:
                ids.append(t)
                continue
            fb = [self._fallback[b] for b in c]
            if all(f >= 0 for f in fb):
                ids += fb
            else:
                self._put(ids, -1)
        return ids

    def _put(self, ids: list[int], t: int) -> None:
        """Append a symbol; a missing one (-1) as <unk>, fused with one before if asked."""
        if t >= 0:
            ids.append(t)
        elif self.unk_id >= 0:
            if not (self.fuse_unk and ids and ids[-1] == self.unk_id):
                ids.append(self.unk_id)

    def rank(self, left: int, right: int) -> tuple[int, int] | None:
        return self._pair_rank(left, right)

    def _rank_by_bytes(self, left: int, right: int) -> tuple[int, int] | None:
        t = self.native.id_of(self.token(left) + self.token(right))
        return (t, t) if t >= 0 else None

    def _rank_by_list(self, left: int, right: int) -> tuple[int, int] | None:
        if self._pairs is None:   # the merge list as a table, built when first asked
            merge = self.native.merge
            pairs: dict[tuple[int, int], tuple[int, int]] = {}
            for k in range(self.native.n_merges):
                a, b, new = merge(k)
                pairs[(a, b)] = (k, new)   # a pair listed twice: the later wins, as in C
            self._pairs = pairs
        return self._pairs.get((left, right))

    def whole(self, piece: Word) -> tuple[int, str] | None:
        if self.whole_rule is None:
            return None
        t = self.native.id_of(piece if isinstance(piece, bytes) else piece.encode("utf-8"))
        if t < 0:
            return None
        return t, self.whole_rule


def _chars(w: bytes) -> list[bytes]:
    """A word's characters, each by the length its first byte gives (as the C model reads
    them: a bytes word need not be UTF-8)."""
    out, i = [], 0
    while i < len(w):
        b = w[i]
        j = i + (1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4)
        out.append(w[i:j])
        i = j
    return out


def model_class():
    """The class of the native model: ``_pipeline.Model``, or its pure-Python stand-in
    (``_pymodel.Model``, same interface) where the C extension was not built."""
    try:
        from ._pipeline import Model
    except ImportError:   # no C compiler at install time
        from ._pymodel import Model  # the pure-Python stand-in, same interface
    return Model


def charsmap_module():
    """The module with ``Charsmap`` and the grapheme classes: ``_pipeline``, or the
    pure-Python stand-in."""
    try:
        from . import _pipeline as mod
    except ImportError:   # no C compiler at install time
        from . import _pymodel as mod  # the stand-in, same names
    return mod


def merge_engine():
    """``_pipeline``, whose copy of the C merge engine runs this package's models (its
    strategies are forced through ``tokenizers.strategies``), or None without it."""
    try:
        from . import _pipeline as mod
    except ImportError:   # no C compiler at install time
        return None
    return mod


def find_model_tables(raw: bytes):
    """The spans of a tokenizer.json's ``model.vocab`` and ``model.merges`` in its text, for
    the C model to read them without json (None where they cannot be found, or without the
    C extension)."""
    try:
        from ._pipeline import find_model_tables as find
    except ImportError:
        return None
    return find(raw)
