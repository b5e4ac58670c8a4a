"""What every tokenizer is, whatever file it came from.

:class:`BaseTokenizer` holds the parts every tokenizer has -- its vocabulary, merges,
special tokens, pre-tokenizer pattern and its :class:`~.model.WordModel` -- and the
questions answered the same way for every kind: encode (ids, offsets, a stream), decode,
the pieces a text is cut into, a word's merge playback, ``explain``. Two kinds implement
it, each with its own constructor that runs this one:
:class:`~.trained.Tokenizer` (trained here, as of a step, GPT-2 files) and
:class:`~.imported.imported_tokenizer.PipelineTokenizer` (``tokenizer.json``,
``.tiktoken``, the known encodings).

Every kind encodes through one runtime, its :class:`~.pipeline.Pipeline`; this class
adds what a call asks around it (the special-token policy, the tokens a post-processor
adds, batches, arrays, streams of lines).

Text with lone surrogates is encoded as tiktoken encodes it (see :func:`~.model.clean_text`),
by every kind alike; offsets stay relative to the string given.
"""
from __future__ import annotations

import codecs
import copy
import io
import os
from abc import ABC, abstractmethod
from array import array
from dataclasses import replace
from itertools import chain, islice
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from .. import checks
from ..errors import ArgumentError, ArgumentTypeError, UnknownIdError
from .conventions import LibraryNames
from .encoding import Encoding
from .special_policy import ALL, Checked, SpecialSet, holds_any, refuse_disallowed, resolve
from .model import Piece, Playback, WordModel, clean_chunks, clean_text, clean_with_map, joined, \
    word_text
from ..text.pretokenize import Pretokenizer

if TYPE_CHECKING:   # (explain, with its pattern analysis, is imported when first asked)
    from .hf_api import HfTokenizer
    from .explain import Explanation
    from .pipeline import Pipeline
    from .post import PostProcessor
    from .tiktoken_api import TiktokenEncoding


def _joined(chunks: Iterable[str], size: int) -> Iterator[str]:
    """A stream's chunks joined into strings of about ``size`` characters, each chunk a
    ``str`` (else the TypeError that says so). Chunks are taken as many at a time as make
    about ``size`` characters, so a file read line by line costs no Python step per line."""
    if isinstance(chunks, io.TextIOBase):   # a text file: read in blocks, not by lines
        read = chunks.read
        it: Iterator[str] = iter(lambda: read(size), "")
    else:
        it = iter(chunks)
    parts: list[str] = []
    n, k = 0, 1
    while True:
        batch = list(islice(it, k))
        if not batch:
            break
        try:
            got = "".join(batch)
        except TypeError:
            for c in batch:
                checks.text(c, "each chunk of Tokenizer.encode_iterable(iterable)")
            raise
        parts.append(got)
        n += len(got)
        if n >= size:
            yield "".join(parts) if len(parts) > 1 else got
            parts, n = [], 0
        k = max(1, min(1 << 16, size * len(batch) // (len(got) or 1)))
    if parts:
        yield "".join(parts)


def _around(enc: Encoding, post: "PostProcessor", vocab: dict[int, bytes]) -> Encoding:
    """The encoding with the tokens a post-processor adds, each at span (0, 0) and marked
    special (as tokenizers' ``Encoding`` shows them)."""
    b, a = post.before, post.after
    def tok(i: int, text: str) -> bytes:
        return vocab.get(i, text.encode("utf-8"))
    special = enc.special or [False] * len(enc.ids)
    return Encoding([i for i, _ in b] + enc.ids + [i for i, _ in a],
                    [tok(i, t) for i, t in b] + enc.tokens + [tok(i, t) for i, t in a],
                    [(0, 0)] * len(b) + enc.offsets + [(0, 0)] * len(a),
                    [True] * len(b) + special + [True] * len(a))


class BaseTokenizer(LibraryNames, ABC):
    """The public face of every tokenizer (see the module docstring)."""

    # the tokens the format adds around a text (add_special_tokens), if any
    post: PostProcessor | None = None
    # decode's skip_special_tokens when not given (the format's library's default)
    skip_special_default: bool = False
    # encode's special-token policy when a call names neither allowed_special nor
    # disallowed_special (the format's library's default): True reads every special token
    # it can find in text (tokenizers, CS336's Tokenizer(vocab, merges, special_tokens)),
    # False refuses them (tiktoken, on its own files)
    reads_specials: bool = True
    _meta: dict | Callable[[], dict]   # the meta property's value (a dict, or made when read)
    pipeline: Pipeline   # the runtime every encode goes through (pipeline.py)

    # where a loaded tokenizer's files are, to pickle it (formats/sources.py), or None
    source: Any = None

    def __init__(self, model: WordModel, *, vocab: dict[int, bytes],
                 bytes_to_id: dict[bytes, int], merges, special_tokens: list[str],
                 special_ids: dict[str, int], pre: Pretokenizer, mode: str = "byte",
                 end_of_word: str = "suffix", meta: dict | Callable[[], dict] | None = None):
        self.model = model
        self.vocab = vocab                       # id -> token bytes
        self.bytes_to_id = bytes_to_id           # token bytes -> (first) id
        self.merges = merges                     # (left bytes, right bytes) by rank
        self.special_tokens = special_tokens
        self.special_ids = special_ids
        self.pre = pre
        self.pattern = pre.pattern
        self.mode = mode                         # "byte" or "char" (</w>)
        self.end_of_word = end_of_word
        self.meta = meta if meta is not None else {}

    # ----- copies and pickles: the same tokenizer in another process ------------------
    def __copy__(self) -> "BaseTokenizer":
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def __reduce__(self):
        """A tokenizer read from a file pickles as its files' bytes (formats/sources.py:
        no path needs to exist where it is loaded again); one trained here as its data."""
        if self.source is None:
            raise ArgumentTypeError(
                f"This {type(self).__name__} was built in memory, not read from a file, so "
                "it cannot be pickled: save it (export_tokenizer) and load that file, whose "
                "tokenizer pickles.")
        return self.source.reduce()

    @property
    def meta(self) -> dict:
        """Settings and per-merge counts recorded in exports (may be computed late)."""
        if callable(self._meta):
            self._meta = self._meta()
        return self._meta

    @meta.setter
    def meta(self, value) -> None:
        self._meta = value   # a dict, or a function returning one when first read

    @property
    def n_merges(self) -> int:
        return self.model.n_merges

    # ----- encoding: every kind treats text that UTF-8 cannot hold alike --------------
    def encode(self, text: str, *, allowed_special: SpecialSet | None = None,
               disallowed_special: SpecialSet | None = None,
               add_special_tokens: bool | None = None) -> list[int]:
        """Text -> token ids. Special tokens as tiktoken's ``encode`` reads them when a
        call names ``allowed_special`` or ``disallowed_special``: the text of a special
        token becomes its id only when ``allowed_special`` names it (or is ``"all"``);
        text holding one of ``disallowed_special`` (default: every special token not
        allowed) raises :class:`~bpe_gui.engine.errors.DisallowedSpecialError`; one in
        neither is ordinary text. A call naming neither reads them as the format's library
        does (:attr:`reads_specials`): a ``.tiktoken`` file or a known encoding refuses
        typed special text, as tiktoken does; a tokenizer.json, GPT-2 files and a tokenizer
        built or trained here with ``special_tokens`` read them, as tokenizers and CS336's
        ``Tokenizer(vocab, merges, special_tokens)`` do. ``add_special_tokens``: the tokens
        the format adds around a text (a tokenizer.json's post-processor, e.g. Llama 3's
        BOS; default as the format's library does: on for tokenizer.json, off elsewhere).

        Example: ``tok.encode("a<|endoftext|>", allowed_special="all")`` ends with the
        special token's id; on a ``.tiktoken`` file ``tok.encode("a<|endoftext|>")`` raises.
        """
        checks.text(text, "Tokenizer.encode(text)")
        clone = self._policy(text, allowed_special, disallowed_special, "Tokenizer.encode")
        return self._post_ids(clone._encode_clean(text), add_special_tokens)

    def encode_ordinary(self, text: str) -> list[int]:
        """Text -> ids with every special token's text read as ordinary text and nothing
        added around it (tiktoken's ``encode_ordinary``; ``encode(text,
        disallowed_special=(), add_special_tokens=False)``)."""
        return self.encode(text, disallowed_special=(), add_special_tokens=False)

    def encode_ordinary_batch(self, texts: Iterable[str], *,
                              num_threads: int | None = None) -> list[list[int]]:
        """``[encode_ordinary(t) for t in texts]`` on ``num_threads`` threads (tiktoken's
        ``encode_ordinary_batch``)."""
        return self.encode_batch(texts, num_threads=num_threads, disallowed_special=(),
                                 add_special_tokens=False)

    def _encode_clean(self, text: str) -> list[int]:
        try:
            return self._encode(text)
        except UnicodeEncodeError:   # lone surrogates
            return self._encode(clean_text(text))

    def encode_to_array(self, text: str, *, allowed_special: SpecialSet | None = None,
                        disallowed_special: SpecialSet | None = None,
                        add_special_tokens: bool | None = None) -> array:
        """``encode(text, ...)`` as an ``array('I')`` of 4-byte ids: no int object per id,
        and ``numpy.frombuffer(a, numpy.uint32)`` or ``memoryview(a)`` read it without a
        copy (as tiktoken's ``encode_to_numpy``)."""
        checks.text(text, "Tokenizer.encode_to_array(text)")
        clone = self._policy(text, allowed_special, disallowed_special,
                             "Tokenizer.encode_to_array")
        plan = clone.pipeline.route((text,))
        if plan is not None:
            enc, (given,), ordinary = plan
            post = self._adds(add_special_tokens)
            around = None if post is None else \
                ([i for i, _ in post.before], [i for i, _ in post.after])
            try:
                return (enc.encode_ordinary_to_array if ordinary
                        else enc.encode_to_array)(given, around)
            except UnicodeEncodeError:   # lone surrogates: encode() cleans the text
                pass
        return array("I", self._post_ids(clone._encode_clean(text), add_special_tokens))

    def encode_with_offsets(self, text: str, *, allowed_special: SpecialSet | None = None,
                            disallowed_special: SpecialSet | None = None,
                            add_special_tokens: bool | None = None) -> Encoding:
        """Ids, token bytes and character spans (for colouring text token by token);
        special tokens as :meth:`encode` reads them (tokens a post-processor adds have
        the span (0, 0), as in tokenizers' ``Encoding.offsets``)."""
        checks.text(text, "Tokenizer.encode_with_offsets(text)")
        clone = self._policy(text, allowed_special, disallowed_special,
                             "Tokenizer.encode_with_offsets")
        try:
            enc = clone._encode_offsets(text)
        except UnicodeEncodeError:
            cleaned, starts = clean_with_map(text)
            if starts is None:
                raise
            enc = clone._encode_offsets(cleaned)
            offs = [(starts[s], starts[e]) for s, e in enc.offsets]
            enc = Encoding(enc.ids, enc.tokens, offs, enc.special)
        post = self._adds(add_special_tokens)
        return replace(enc if post is None else _around(enc, post, self.vocab),
                       spell=self.id_to_token)

    def encode_iterable(self, iterable: Iterable[str], chunk_chars: int = 1 << 16, *,
                        allowed_special: SpecialSet | None = None,
                        disallowed_special: SpecialSet | None = None,
                        add_special_tokens: bool | None = None) -> Iterator[int]:
        """Encode a stream of text (e.g. an open file, read line by line) lazily, in
        bounded memory: the ids equal ``encode`` of the whole text with the same
        arguments, the tokens a post-processor adds included (before the first id and
        after the last). Text holding a disallowed special token raises when the stream
        reaches it."""
        checks.texts(iterable, "Tokenizer.encode_iterable(iterable)")
        checks.whole(chunk_chars, "Tokenizer.encode_iterable(chunk_chars)", 1)
        allow, refuse = self._call_policy(allowed_special, disallowed_special,
                                          "Tokenizer.encode_iterable")
        clone = self if allow == self._matchable() else self._restricted(allow)
        chunks = clean_chunks(_joined(iterable, chunk_chars))
        if refuse:
            chunks = iter(Checked(chunks, refuse))
        post = self._adds(add_special_tokens)
        parts = clone.pipeline.encode_iterable(chunks, chunk_chars)
        if post is not None:
            parts = chain(([i for i, _ in post.before],), parts, ([i for i, _ in post.after],))
        return chain.from_iterable(parts)

    def encode_batch(self, texts: Iterable[str], *, num_threads: int | None = None,
                     allowed_special: SpecialSet | None = None,
                     disallowed_special: SpecialSet | None = None,
                     add_special_tokens: bool | None = None,
                     threads: int | None = None) -> list[list[int]]:
        """``[encode(t, ...) for t in texts]`` on ``num_threads`` threads (default: one
        per core; ``threads`` is its older name).

        Encoding is safe from any number of threads on one tokenizer. Where the whole
        text encodes in C (a native scanner preset on byte-level tables), the batch runs
        on native threads sharing one word cache, without the GIL until the lists are
        made; elsewhere on a thread pool (patterns run by ``regex`` and tokenizer.json
        normalizers hold the GIL while pre-tokenizing).

        Example: ``tok.encode_batch(["a b", "c"], num_threads=2) == [tok.encode("a b"),
        tok.encode("c")]``
        """
        texts = [checks.text(t, "Tokenizer.encode_batch(texts) item") for t in
                 checks.texts(texts, "Tokenizer.encode_batch(texts)")]
        n = num_threads if num_threads is not None else threads
        n = checks.whole(os.cpu_count() or 1 if n is None else n,
                         "Tokenizer.encode_batch(num_threads)", 1)
        toks = [self._policy(t, allowed_special, disallowed_special, "Tokenizer.encode_batch")
                for t in texts]
        lead = toks[0] if toks else self
        plan = lead.pipeline.route(texts) if all(t is lead for t in toks) else None
        if plan is not None:
            enc, given, ordinary = plan
            try:
                got = enc.encode_batch(given, n, ordinary=ordinary)
                return [self._post_ids(ids, add_special_tokens) for ids in got]
            except UnicodeEncodeError:   # a text with lone surrogates: one by one below
                pass

        def one(k: int) -> list[int]:
            return self._post_ids(toks[k]._encode_clean(texts[k]), add_special_tokens)
        if n == 1 or len(texts) < 2:
            return [one(k) for k in range(len(texts))]
        from concurrent.futures import ThreadPoolExecutor   # (with logging: not at import)
        with ThreadPoolExecutor(max_workers=min(n, len(texts))) as pool:
            return list(pool.map(one, range(len(texts))))

    def encode_files(self, paths: str | os.PathLike | Sequence[str | os.PathLike],
                     out: str | os.PathLike, *,
                     field: str = "text", separator: str | None = None, eot: int | None = None,
                     num_threads: int | None = None,
                     progress: Callable[[int, int], None] | None = None) -> dict:
        """Corpus files -> ``out``, a flat file of ids (``uint16`` when the vocabulary fits,
        else ``uint32``) with ``eot`` (default :attr:`eot_token`) between documents, and
        ``out.json`` (dtype, count, tokenizer, sources), written all or none on
        ``num_threads`` threads (default: one per core). A document is a whole text file,
        its text between two ``separator`` s, or a .jsonl line's ``field``; its ids are
        :meth:`encode_ordinary`'s (tokenizers/ids_file.py). ``progress(done, total)``:
        bytes read. Returns the sidecar's content.

        Example: ``tok.encode_files(["a.txt", "b.jsonl"], "ids.bin")``, then
        ``numpy.memmap("ids.bin", dtype=meta["dtype"], mode="r")``.
        """
        from .ids_file import encode_files
        return encode_files(self, paths, out, field=field, separator=separator, eot=eot,
                            num_threads=num_threads, progress=progress, name=self._ids_name())

    def _ids_name(self) -> str:
        """How ``encode_files``' sidecar names this tokenizer: the file it came from."""
        return getattr(self.source, "source", "")

    # ----- which special tokens a call reads, and what a format adds -----------------
    def _matchable(self) -> frozenset[str]:
        """The special tokens this tokenizer can read from text (special_policy.py)."""
        got = self.__dict__.get("_matchable_of")
        if got is None or got[0] is not self.pre:
            got = self.__dict__["_matchable_of"] = (self.pre, self._find_matchable())
        return got[1]

    def _find_matchable(self) -> frozenset[str]:
        return frozenset(self.pipeline.matched_specials()) & frozenset(self.special_ids)

    def _call_policy(self, allowed: SpecialSet | None, disallowed: SpecialSet | None,
                     where: str) -> tuple[frozenset[str], frozenset[str]]:
        """(allowed, refused) matchable special tokens for a call's two arguments: a call
        naming either reads them as tiktoken does (the other at tiktoken's default); one
        naming neither as the format's library does (:attr:`reads_specials`)."""
        if allowed is None and disallowed is None:
            if self.reads_specials:
                allowed, disallowed = ALL, ()
            else:
                allowed, disallowed = frozenset(), ALL
        return resolve(frozenset() if allowed is None else allowed,
                       ALL if disallowed is None else disallowed, self._matchable(), where)

    def _policy(self, text: str, allowed: SpecialSet | None, disallowed: SpecialSet | None,
                where: str) -> "BaseTokenizer":
        """The tokenizer that encodes ``text`` as the call's special-token policy says
        (itself unless the text holds a special token to be read as text), after
        refusing a disallowed one."""
        matchable = self._matchable()
        if not matchable and allowed in (None, frozenset(), ALL) and \
                disallowed in (None, ALL, (), frozenset()):
            return self
        allow, refuse = self._call_policy(allowed, disallowed, where)
        if refuse:
            refuse_disallowed(text, refuse)
        as_text = matchable - allow
        # the text holds none of the refused ones (refuse_disallowed has looked)
        if as_text and not as_text <= refuse and holds_any(text, as_text):
            return self._restricted(allow)
        return self

    def _restricted(self, allow: frozenset[str]) -> "BaseTokenizer":
        """This tokenizer reading only ``allow`` of its special tokens from text (the
        others are ordinary text there); one made per set, kept until the model changes."""
        made = self.__dict__.setdefault("_restricted_of", {})
        clone = made.get(allow)
        if clone is None:
            clone = copy.copy(self)
            clone.__dict__["_restricted_of"] = {}
            clone.pipeline = self.pipeline.restricted(allow)
            clone.pre = self.pre.with_specials([t for t in self.pre.special_tokens
                                                if t in allow])
            made[allow] = clone
        return clone

    def _adds(self, add_special_tokens: bool | None) -> PostProcessor | None:
        """The post-processor to run, if any adds tokens."""
        post = self.post
        if post is None or not (post.before or post.after):
            return None
        if add_special_tokens is None:
            add_special_tokens = post.default
        return post if add_special_tokens else None

    def _post_ids(self, ids: list[int], add_special_tokens: bool | None) -> list[int]:
        post = self._adds(add_special_tokens)
        return ids if post is None else post.apply(ids)

    def encode_word(self, word: str) -> tuple[int, ...]:
        """The ids of one word of the tokenizer's pattern (no special tokens in it)."""
        return self.model.merge(clean_text(word))

    def _encode(self, text: str) -> list[int]:
        return self.pipeline.encode(text)

    def _encode_offsets(self, text: str) -> Encoding:
        return self.pipeline.encode_with_offsets(text)

    # ----- how a text is tokenized, step by step ---------------------------------------------
    def split(self, text: str) -> list[Piece]:
        """The pieces the model gets, and special tokens, in order, with their spans in
        ``text`` (``explain`` plays each back): the pattern's words, or the pieces a
        pipeline's parts cut (normalized text, '▁' for spaces...)."""
        return self._pieces(self.pipeline.pieces(text))

    def _pieces(self, pieces) -> list[Piece]:
        model_word = self.pipeline.model_word
        out = []
        for piece, tid in pieces:
            s, e = piece.span(0, len(piece.text))
            out.append(Piece(s, e, model_word(piece.text), tid))
        return out

    def playback(self, word: str) -> Playback:
        """The merges that build a word's tokens, one by one (word playback): its pieces
        (usually one: a word the pattern cut) played one after another; a special or
        added token is one fixed symbol. Its last ids are ``encode(word)``'s."""
        word = clean_text(word)
        n = self.n_merges
        parts = [self.model.playback(p.text, word[p.start:p.end]) if p.special_id is None
                 else Playback(word_text(p.text), (self.vocab.get(p.special_id, b""),),
                               (p.special_id,), (), n)
                 for p in self.played_split(word)]
        return joined(word, parts, n)

    def played_split(self, text: str) -> list[Piece]:
        """The pieces :meth:`playback` replays one after another: :meth:`split`'s,
        unless the model merges across them (a SentencePiece model merges a whole text
        part by score: the pipeline's ``played_pieces``)."""
        return self._pieces(self.pipeline.played_pieces(text))

    def explain(self, text: str) -> Explanation:
        """Encoding step by step: each word with the pattern branch that took it, why
        it ended there, and the merges that built its tokens (see engine/explain.py).

        Example: ``tok.explain("it's").words[1].playback.steps`` -> the merges of "'s".
        """
        from .explain import explain
        checks.text(text, "Tokenizer.explain(text)")
        return explain(self, clean_text(text))

    # ----- decoding ---------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Ids -> the bytes of their tokens joined (tiktoken's ``decode_bytes``)."""
        ids = self._known_ids(ids, "Tokenizer.decode_bytes(ids)")
        return b"".join(map(self.vocab.__getitem__, ids))

    def decode(self, ids: Iterable[int], errors: str = "replace", *,
               skip_special_tokens: bool | None = None) -> str:
        """Ids -> text. ``errors``: what a partial UTF-8 character becomes, as in
        tiktoken's ``decode`` and ``bytes.decode``: U+FFFD by default ("replace"),
        UnicodeDecodeError with "strict"; any other handler ("ignore",
        "backslashreplace", ...) where the text is the tokens' bytes (a tokenizer.json
        whose decoder rewrites them takes "replace" and "strict" only).
        ``skip_special_tokens``: leave special tokens out (default as the format's
        library does: on for tokenizer.json, as tokenizers' ``decode``; off elsewhere,
        as tiktoken's). An id not in the vocabulary raises
        :class:`~bpe_gui.engine.errors.UnknownIdError`; an id that is not a whole number
        a TypeError (:class:`~bpe_gui.engine.errors.ArgumentTypeError`)."""
        ids = self._known_ids(ids, "Tokenizer.decode(ids)")
        checks.string(errors, "Tokenizer.decode(errors)", 'an error handler such as '
                      '"replace" or "strict"')
        try:
            codecs.lookup_error(errors)
        except LookupError:
            raise ArgumentError(f"Tokenizer.decode(errors={errors!r}) names no error handler "
                                "Python knows; use \"replace\" (the default), \"strict\", "
                                "\"ignore\" or \"backslashreplace\".") from None
        skip = self.skip_special_default if skip_special_tokens is None else skip_special_tokens
        if skip:
            drop = self._skipped_ids()
            ids = [i for i in ids if i not in drop]
        if errors == "replace":
            return self._decode(ids)
        data = b"".join(map(self.vocab.__getitem__, ids))
        if self._decodes_bytes():
            return data.decode("utf-8", errors)
        if errors != "strict":
            raise ArgumentError(f"Tokenizer.decode(errors={errors!r}): this tokenizer's "
                                "decoder rewrites its tokens' text (as its library's does), so "
                                "only errors=\"replace\" and errors=\"strict\" apply; "
                                "decode_bytes(ids) gives the bytes to decode as you like.")
        data.decode("utf-8")   # (strict: a partial character raises UnicodeDecodeError)
        return self._decode(ids)

    def _known_ids(self, ids: Iterable[int], where: str) -> list[int]:
        """The ids as a list, each a whole number in the vocabulary (else the error a
        caller can act on)."""
        ids = list(checks.ids(ids, where))
        vocab = self.vocab
        for i in ids:
            if type(i) is not int:
                if not checks.is_whole(i):
                    checks.bad_id(i, where)
            if i not in vocab:
                raise self._unknown(i, where)
        return ids

    def _decodes_bytes(self) -> bool:
        """Whether the text is the tokens' bytes decoded as UTF-8 (tiktoken's rule)."""
        return False

    def _skipped_ids(self) -> set[int]:
        """The ids ``skip_special_tokens`` leaves out: the special tokens'."""
        return set(self.special_ids.values())

    def _unknown(self, i: object, where: str) -> UnknownIdError:
        checks.bad_id(i, where)
        top = max(self.vocab, default=-1)
        return UnknownIdError(f"{where}: token id {i} is not in the vocabulary (ids go from "
                              f"0 to {top}; n_vocab is {top + 1}).", i)  # type: ignore[arg-type]

    @abstractmethod
    def _decode(self, ids: list[int]) -> str:
        """Known ids -> text, every one of them (the format's own decoder)."""

    # ----- other libraries' faces ------------------------------------------------------
    def as_tiktoken(self, name: str | None = None) -> TiktokenEncoding:
        """This tokenizer as a ``tiktoken.Encoding``: every name, signature, return type
        and exception of tiktoken's, forwarding to this tokenizer's calls (see
        :mod:`.tiktoken_api`); ``name``: its ``name`` (default: the known encoding's or
        the file's).

        Example: ``tok.as_tiktoken().encode("a<|endoftext|>")`` raises ValueError, as
        tiktoken does; ``decode([10**7])`` a KeyError."""
        from .tiktoken_api import TiktokenEncoding
        return TiktokenEncoding.wrapping(self, name)

    def as_hf(self) -> "HfTokenizer":
        """This tokenizer with Hugging Face ``tokenizers.Tokenizer``'s API: ``encode`` and
        ``encode_batch`` giving ``Encoding``-like objects (tokens as the format spells them,
        offsets, masks), padding and truncation, ``decode``, vocabulary look-ups
        (tokenizers/hf_api.py says what it covers and what it refuses).

        Example: ``tok.as_hf().encode("a quick fox").tokens == ["a", "Ġquick", "Ġfox"]``"""
        from .hf_api import HfTokenizer
        return HfTokenizer(self)

    # ----- steps and threads ---------------------------------------------------------
    @abstractmethod
    def at_step(self, n_merges: int) -> "BaseTokenizer":
        """The tokenizer with only its first ``n_merges`` merges."""

    @abstractmethod
    def copy_for_thread(self) -> Callable[[], "BaseTokenizer"]:
        """A function that builds, on another thread, a tokenizer equal to this one."""
