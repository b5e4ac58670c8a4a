"""Tables of imported tokenizers (tokenizer.json, .tiktoken), built and run in C.

Use it through :mod:`bpe_gui.engine.tokenizers.imported.pipeline` (``pymodel.py`` is the Python stand-in
with the same API, less ``merge_table``). Models are made only by the ``from_*`` class
methods. After loading a model is only read: threads can share one.
"""
from typing import final

from typing_extensions import Buffer

# (where, index, message): where is "vocab", "merges" or "line"
Problem = tuple[str, int, str]

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
    @property
    def n_ids(self) -> int:
        """1 + the largest id."""
    @property
    def n_merges(self) -> int: ...
    @property
    def kind(self) -> str:
        """'hf' or 'tiktoken'."""
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
    def tokenize(self, word: str, /) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(ids, starts, ends), offsets in bytes of the word's UTF-8."""
    def encode_words(self, words: list[str], cache: dict[str, tuple[int, ...]],
                     cache_limit: int, /) -> list[int]: ...
    def merge(self, k: int, /) -> tuple[int, int, int]:
        """(left id, right id, new id) of merge k."""
    def merge_table(self) -> object:
        """The merge table as a capsule for ``_encode.Merger.wrap`` (keeps this model alive)."""
    def rebuild(self) -> list[int]:
        """tiktoken: derive the merges; the ids of multi-byte tokens no merge makes."""

def find_model_tables(data: Buffer, /) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Byte spans of model.vocab and model.merges in a tokenizer.json, or None."""
