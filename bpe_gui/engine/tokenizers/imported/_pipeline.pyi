"""Tables of imported tokenizers (tokenizer.json, .tiktoken, SentencePiece), built and run in C.

Use it through :mod:`bpe_gui.engine.tokenizers.pipeline` (``pymodel.py`` is the Python stand-in
with the same API, less ``merge_table``). Models are made only by the ``from_*`` class
methods. After loading a model is only read: threads can share one.
"""
from typing import Literal, final, overload

from typing_extensions import Buffer

# (where, index, message): where is "vocab", "merges" or "line"
Problem = tuple[str, int, str]

simd: str  # the vector code compiled in: "sse2,avx2,avx512", "sse2" or "" (util/simd.h)

@final
class Model:
    @classmethod
    def from_hf(cls, vocab: dict[str, int], merges: list[str | list[str]],
                byte_level: bool, /) -> tuple[Model, Problem | None]: ...
    @classmethod
    def from_hf_text(cls, data: Buffer, vocab_span: tuple[int, int],
                     merges_span: tuple[int, int], byte_level: bool,
                     /) -> tuple[Model, Problem | None] | None:
        """None: the text has something this reader does not take (use json + from_hf)."""
    @classmethod
    def from_tiktoken(cls, data: Buffer, /) -> tuple[Model, Problem | None]: ...
    @classmethod
    def from_gguf(cls, buf: Buffer, tokens: tuple[int, int], merges: tuple[int, int] | None,
                  big_endian: bool, want: list[str], byte_level: bool = ...,
                  /) -> tuple[Model, Problem | None, dict[str, int]]:
        """A GGUF BPE vocabulary read in place: the (start, count) of its token and merge
        string arrays in buf; ``want``: texts whose ids come back (those that are tokens)."""
    @classmethod
    def gguf_walk(cls, buf: Buffer, pos: int, i: int, count: int, big_endian: bool,
                  /) -> tuple[int, int, int, int]:
        """(status, pos, i, claim): how far ``count`` strings fit in buf (0 all; 1 a length
        does not fit; 2 a string does not: claim is its length)."""
    @classmethod
    def gguf_strings(cls, buf: Buffer, start: int, count: int, big_endian: bool,
                     /) -> list[str]: ...
    @classmethod
    def gguf_offsets(cls, buf: Buffer, start: int, count: int, big_endian: bool,
                     /) -> bytes:
        """count + 1 native uint64: each string's length field, then the array's end."""
    @classmethod
    def from_spm(cls, pieces: list[str | bytes], scores: Buffer, types: Buffer, llama: bool,
                 byte_fallback: bool, /) -> Model:
        """A SentencePiece-style model (kind 'spm'); scores as float32; ValueError: why not."""
    @classmethod
    def spm_proto(cls, data: Buffer, /) -> tuple[bytes, bytes, bytes, bytes, tuple[
            tuple[int, int] | None, tuple[int, int] | None, tuple[int, int] | None]] | None:
        """A .model (ModelProto) read in place: (starts, lens) of the pieces' texts (native
        uint32), scores (float32), types; the spans of trainer_spec, normalizer_spec and
        denormalizer_spec. None: refused (the Python reader says why)."""
    @classmethod
    def spm_proto_ok(cls, data: Buffer, starts: Buffer, lens: Buffer, types: Buffer,
                     byte_fallback: bool, /) -> bool:
        """Nothing sentencepiece refuses on load (a piece twice, no <unk> or two, bytes)."""
    @classmethod
    def spm_proto_texts(cls, data: Buffer, starts: Buffer, lens: Buffer, /) -> list[str]: ...
    @classmethod
    def from_spm_proto(cls, data: Buffer, starts: Buffer, lens: Buffer, scores: Buffer,
                       types: Buffer, llama: bool, byte_fallback: bool, /) -> Model:
        """from_spm on the pieces spm_proto found; ValueError: why not."""
    def spm_normalizer(self, charsmap: bytes | None, add_dummy_prefix: bool,
                       remove_extra_whitespaces: bool, escape_whitespaces: bool,
                       treat_whitespace_as_suffix: bool, /) -> None:
        """sentencepiece's normalizer; ValueError: the charsmap is damaged."""
    def spm_encode(self, text: str, prefix: bool = ..., /) -> list[int]: ...
    def spm_encode_offsets(self, text: str, prefix: bool = ...,
                           /) -> tuple[list[int], list[int], list[int]]:
        """(ids, starts, ends): character offsets in text, as sentencepiece gives them."""
    def spm_normalize(self, text: str, prefix: bool = ..., /) -> tuple[str, list[int]]:
        """(normalized text, the source character of each of its characters + the end)."""
    def spm_segments(self, normalized: str, /) -> list[int]:
        """Ends (characters) of the segments no merge crosses."""
    def encode_cut(self, word: str, /) -> list[int] | None:
        """A long word merged by segments no merge crosses; None: this model cannot be cut."""
    @property
    def n_ids(self) -> int:
        """1 + the largest id."""
    @property
    def n_tokens(self) -> int:
        """How many ids have a token (len(tables()[0]))."""
    @property
    def n_merges(self) -> int: ...
    def configure(self, ignore_merges: bool, byte_fallback: bool, unk_id: int,
                  fuse_unk: bool, /) -> None: ...
    def set_end_of_word_suffix(self, suffix: Buffer, /) -> None:
        """The last symbol of a word is its character (byte) + this key suffix (HF's
        end_of_word_suffix; b'' for none). Call after configure."""
    def tables(self, replacement: str | None, byte_fallback: bool,
               /) -> tuple[dict[int, bytes], dict[bytes, int]]:
        """(id -> the bytes it stands for, bytes -> first id)."""
    def id_of(self, key: bytes, /) -> int: ...
    def key(self, id: int, /) -> bytes | None: ...
    def key_text(self, id: int, /) -> str | None: ...
    def text_id(self, key: str, /) -> int: ...
    def tokenize(self, word: str | bytes, /) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(ids, starts, ends), offsets in bytes of the word's UTF-8 (bytes: merged as
        they are, offsets in them)."""
    def encode_words(self, words: list[str] | list[bytes] | list[str | bytes],
                     cache: dict[str, tuple[int, ...]] | dict[str | bytes, tuple[int, ...]],
                     cache_limit: int, /) -> list[int]:
        """The ids of the words one after another (a bytes word merged as its bytes are)."""
    def merge(self, k: int, /) -> tuple[int, int, int]:
        """(left id, right id, new id) of merge k."""
    def merge_table(self) -> object:
        """The merge table as a capsule for ``_encode.Merger.wrap`` (keeps this model alive)."""
    def rebuild(self) -> list[int]:
        """tiktoken: derive the merges; the ids of multi-byte tokens no merge makes."""

def find_model_tables(data: Buffer, /) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Byte spans of model.vocab and model.merges in a tokenizer.json, or None."""


@final
class Charsmap:
    """A SentencePiece precompiled charsmap, checked (ValueError: why it is refused)."""
    def __init__(self, blob: Buffer, /) -> None: ...
    @overload
    def normalize_hf(self, text: str, /) -> str: ...
    @overload
    def normalize_hf(self, text: str, changes: Literal[False], /) -> str: ...
    @overload
    def normalize_hf(self, text: str, changes: Literal[True], /) -> tuple[str, list[int]]:
        """tokenizers' Precompiled normalizer; with changes, one alignment change a character."""

def set_grapheme_classes(table: Buffer, /) -> None:
    """One grapheme class byte per code point (text/graphemes.py)."""
def has_grapheme_classes() -> bool: ...

def merge_strategies() -> list[tuple[str, str, str, str, bool]]:
    """(name, the instruction set it needs or "", the words it applies to, its invariant,
    whether this build and CPU run it)."""
def set_merge_strategy(name: str, /) -> str:
    """Force a merge strategy ('auto': none) on tables made from now on; the one before."""
def merge_strategy_used() -> dict[str, int]:
    """Words each strategy merged in tables made while one was forced."""
