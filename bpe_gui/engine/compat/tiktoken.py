"""A stand-in for the ``tiktoken`` module over bpe-gui's tokenizers, offline.

Code written for tiktoken runs with its import changed::

    import bpe_gui.engine.compat.tiktoken as tiktoken
    enc = tiktoken.get_encoding("cl100k_base")
    cl100k_im = tiktoken.Encoding(name="cl100k_im", pat_str=enc._pat_str,
                                  mergeable_ranks=enc._mergeable_ranks,
                                  special_tokens={**enc._special_tokens,
                                                  "<|im_start|>": 100264, "<|im_end|>": 100265})

``Encoding`` is :class:`~bpe_gui.engine.tokenizers.tiktoken_api.TiktokenEncoding`, the
face ``tok.as_tiktoken()`` puts on any tokenizer. ``get_encoding(name)`` reads the ranks
file from this machine, never the network: ``$TIKTOKEN_ENCODINGS_BASE/NAME.tiktoken`` (a
folder you name, as openai-harmony reads it), else tiktoken's own cache
(``$TIKTOKEN_CACHE_DIR``, ``$DATA_GYM_CACHE_DIR`` or the temporary folder's
``data-gym-cache``, where tiktoken keeps what it downloaded); a file counts only if its
SHA-256 is the published one (formats/known_encodings.py), as tiktoken checks. Any other
file: ``load_tokenizer(path).as_tiktoken()``.
"""
from __future__ import annotations

import base64
import os
import tempfile
import threading
from pathlib import Path

from .. import checks
from ..chat.harmony import o200k_harmony_specials
from ..errors import ArgumentError, UnknownTokenError
from ..formats.known_encodings import KNOWN, content_hash
from ..io.reading import read_bytes
from ..tokenizers import tiktoken_api
from ..tokenizers.imported.ranks import load_ranks
from ..tokenizers.imported.imported_tokenizer import PipelineTokenizer
from ..tokenizers.tiktoken_api import TiktokenEncoding as Encoding

# tiktoken's encodings: name -> the ranks file it reads (special tokens: the known
# encoding's, but for these two)
_RANKS = {"gpt2": "r50k_base", "r50k_base": "r50k_base", "p50k_base": "p50k_base",
          "p50k_edit": "p50k_base", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base",
          "o200k_harmony": "o200k_base"}
_FIM = {"<|endoftext|>": 50256, "<|fim_prefix|>": 50281, "<|fim_middle|>": 50282,
        "<|fim_suffix|>": 50283}
_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_OLD = ("davinci", "curie", "babbage", "ada")
_MODELS = {   # model names, and prefixes of model names (ending in *), as tiktoken maps them
    "o200k_base": "o1 o3 o4-mini gpt-5 gpt-4.1 gpt-4o o1-* o3-* o4-mini-* gpt-5* gpt-4.5-* "
                  "gpt-4.1-* chatgpt-4o-* gpt-4o-* ft:gpt-4o*",
    "cl100k_base": "gpt-4 gpt-3.5-turbo gpt-3.5 gpt-35-turbo davinci-002 babbage-002 "
                   "text-embedding-ada-002 text-embedding-3-small text-embedding-3-large "
                   "gpt-4-* gpt-3.5-turbo-* gpt-35-turbo-* ft:gpt-4* ft:gpt-3.5-turbo* "
                   "ft:davinci-002* ft:babbage-002*",
    "p50k_base": "text-davinci-003 text-davinci-002 code-davinci-002 code-davinci-001 "
                 "code-cushman-002 code-cushman-001 davinci-codex cushman-codex",
    "r50k_base": " ".join(f"{m} text-{m}-001 text-similarity-{m}-001 text-search-{m}-doc-001"
                          for m in _OLD) + " code-search-babbage-code-001 code-search-ada-code-001",
    "p50k_edit": "text-davinci-edit-001 code-davinci-edit-001",
    "o200k_harmony": "gpt-oss-*",
    "gpt2": "gpt2 gpt-2",
}
_ENCODINGS: dict[str, Encoding] = {}
_LOCK = threading.Lock()


def _from_ranks(name: str, pat_str: str, ranks: dict[bytes, int],
                specials: dict[str, int]) -> PipelineTokenizer:
    """A tokenizer over tiktoken's ranks and special tokens at the ids given: an id a
    rank or another special token has is refused with the two named."""
    checks.string(pat_str, "Encoding(pat_str)", "a regex pattern")
    if not isinstance(ranks, dict) or not isinstance(specials, dict):
        raise ArgumentError("Encoding takes mergeable_ranks as a dict of token bytes -> "
                            "rank and special_tokens as a dict of text -> id.")
    held = set(ranks.values())
    taken: dict[int, str] = {}
    for s, i in specials.items():
        checks.whole(i, f"Encoding(special_tokens[{s!r}])", 0)
        if i in held:
            rank = next(t for t, r in ranks.items() if r == i)
            raise ArgumentError(f"Encoding({name!r}): special token {s!r} has id {i}, the "
                                f"rank of the token {rank!r}; give it an id no rank has "
                                f"(from {max(held) + 1}).")
        if i in taken:
            raise ArgumentError(f"Encoding({name!r}): special tokens {taken[i]!r} and {s!r} "
                                f"both have id {i}; give each its own id.")
        taken[i] = s
    data = b"".join(base64.b64encode(t) + b" %d\n" % r
                    for t, r in sorted(ranks.items(), key=lambda kv: kv[1]))
    return load_ranks(Path(f"Encoding({name!r}).mergeable_ranks"), data, pattern=pat_str,
                      specials=dict(specials), meta={"format": "tiktoken", "name": name})


tiktoken_api.from_ranks = _from_ranks


def _cache_dir() -> Path:
    env = os.environ
    got = env.get("TIKTOKEN_CACHE_DIR", env.get("DATA_GYM_CACHE_DIR"))
    return Path(got) if got else Path(tempfile.gettempdir()) / "data-gym-cache"


def _ranks_file(stem: str, sha256: str) -> bytes:
    """The published ``stem.tiktoken`` from this machine (see the module docstring)."""
    import hashlib
    places = []
    base = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    if base:
        places.append(Path(base) / f"{stem}.tiktoken")
    cache = _cache_dir()
    places.append(cache / hashlib.sha1(_URL.format(stem).encode()).hexdigest())
    if cache.is_dir():   # (a copy under another key: tiktoken's own, or another version's)
        places += sorted(p for p in cache.iterdir() if p.is_file() and p not in places)
    for p in places:
        if p.is_file() and p.stat().st_size < 1 << 24:
            data = read_bytes(p, "ranks")
            if content_hash(data) == sha256:
                return data
    raise ArgumentError(
        f"{stem}.tiktoken is not on this machine (looked in "
        f"{'$TIKTOKEN_ENCODINGS_BASE, ' if base else ''}tiktoken's cache {cache}); this "
        f"module never downloads. Put {_URL.format(stem)} in a folder and set "
        "TIKTOKEN_ENCODINGS_BASE to it, or run tiktoken.get_encoding once online.")


def _load(name: str) -> Encoding:
    known = {k.name: k for k in KNOWN}
    base = known[_RANKS.get(name, name)]
    specials = _FIM if name == "p50k_edit" else o200k_harmony_specials() \
        if name == "o200k_harmony" else dict(base.special_tokens)
    tok = load_ranks(Path(f"{base.name}.tiktoken"), _ranks_file(base.name, base.sha256),
                     pattern=base.pat_str, specials=specials, trusted=True,
                     meta={"format": "tiktoken", "name": name, "encoding": name})
    enc = tok.as_tiktoken(name)
    enc._reduce = (get_encoding, (name,))   # pickled by name, as tiktoken's registry
    return enc


def get_encoding(encoding_name: str) -> Encoding:
    """The encoding of this name (``list_encoding_names()``, or a known encoding of
    formats/known_encodings.py: ``llama3``, ``whisper_multilingual``), made once."""
    with _LOCK:
        got = _ENCODINGS.get(encoding_name)
        if got is None:
            if not isinstance(encoding_name, str) or \
                    encoding_name not in {*_RANKS, *(k.name for k in KNOWN)}:
                raise ArgumentError(f"Unknown encoding {encoding_name!r}; the encodings are "
                                    f"{', '.join(list_encoding_names())}.")
            got = _ENCODINGS[encoding_name] = _load(encoding_name)
        return got


def list_encoding_names() -> list[str]:
    return list(_RANKS)


def encoding_name_for_model(model_name: str) -> str:
    """The encoding a model's name says (KeyError, as tiktoken's, for a name it does
    not know)."""
    names = {n: enc for enc, ns in _MODELS.items() for n in ns.split()}
    if model_name in names:
        return names[model_name]
    for n in sorted((n for n in names if n.endswith("*")), key=len, reverse=True):
        if model_name.startswith(n[:-1]):   # (the longest prefix: ft:gpt-4o before ft:gpt-4)
            return names[n]
    raise UnknownTokenError(f"Could not map the model {model_name!r} to an encoding; use "
                            "get_encoding(name) with the encoding you expect.")


def encoding_for_model(model_name: str) -> Encoding:
    return get_encoding(encoding_name_for_model(model_name))


__all__ = ["Encoding", "encoding_for_model", "encoding_name_for_model", "get_encoding",
           "list_encoding_names"]
