"""Which tokens can text ever produce? The tokenizer-only pass of "Fishing for Magikarp"
(Land & Bartolo 2024): decode each token, encode that text again, and see what comes back.

Every id of the vocabulary gets one class:

* ``special``: a special token (``<|endoftext|>``, an HF added token marked special, the
  ``<unk>`` of a character-level vocabulary): a marker, not text;
* ``undecodable``: its bytes are not valid UTF-8 (part of a character, a byte-fallback
  ``<0xE4>``), so no text is it; it can only appear inside a longer sequence;
* ``ok``: its text encodes to exactly this one token;
* ``unreachable``: its text encodes to other tokens (e.g. a duplicate of another token's
  bytes, a piece the pre-tokenizer never cuts out such as ``"ing "`` under GPT-2's
  pattern, a token a normalizer rewrites away, or one the merge order never builds).

What "encode that text" means, per kind of tokenizer (:func:`method_of` says which):

* ``text``: the token's text on its own, through the whole tokenizer (special tokens,
  normalizer, pre-tokenizer, merges) -- the paper's test. Byte-level tokenizers trained
  here, GPT-2 files, tiktoken files and ``tokenizer.json`` files that leave the start of
  a text alone.
* ``context``: for tokenizers that change the start of a text -- Metaspace with
  ``prepend_scheme`` first/always, ByteLevel ``add_prefix_space``, a Prepend normalizer.
  Alone, the text ``the`` becomes ``▁the``, so every word-inner token (``the`` in
  ``bathe``) would look unreachable. The text is encoded after a context character
  and the context's own tokens (as it encodes alone) are taken off the front: the token
  is ok if its text alone, or after one of ``«``, ``»`` (the paper's code uses these
  two), ``a`` or ``1``, gives exactly the token -- a text that produces it. Several
  contexts, because one can join the text: ``«'s`` is cut ``«'`` + ``s`` by GPT-2's
  pattern, ``a's`` is cut ``a`` + ``'s``. Told apart by probing: the tokenizer changes
  the start if encoding ``"ab"`` gives tokens whose bytes are not ``b"ab"``.
* ``suffix``: byte-level tokenizers whose model marks a word's last symbol with an
  end-of-word suffix (CLIP's ``</w>``, a tokenizer.json's ``end_of_word_suffix``). The
  suffix is no text: a token that has it is a word's end, tested as its text without
  it (``photo</w>`` as ``photo``); one without it is a word's start or middle, which a
  text alone never gives (``pho`` alone is ``pho</w>``). So the token is ok if its text
  alone, or with one of :data:`AROUND` before or after it, gives a text that produces
  the id.
* ``symbols``: character-level (``</w>``) tokenizers. The marker is not text, so a token
  is re-encoded as one word from its own symbols (its characters, plus ``</w>`` where the
  token has it) through the merges: ``lo`` (a word's start) is tested as ``l o``, not as
  the word ``lo</w>``.

A token that comes back as a different token with the same bytes (two ids, one string)
counts as unreachable: no text produces that id. Works on any tokenizer the app holds:
``Trainer.tokenizer()`` (also ``at_step``: only the tokens of its first k merges) and
imported files (``formats.load_tokenizer``).

Example (GPT-2's ranks)::

    >>> r = classify_tokens(tok)
    >>> r.counts()
    {'ok': 49912, 'unreachable': 0, 'undecodable': 344, 'special': 1}
    >>> r.kind(220), r.ids("undecodable")[:3]
    ('ok', [94, 95, 96])
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Callable

from .. import checks
from ..errors import BPEError, CancelFn, Cancelled
from ..tokenizers.base import BaseTokenizer
from ..tokenizers.merge_model import EOW, UNK

OK, UNREACHABLE, UNDECODABLE, SPECIAL_CLASS = "ok", "unreachable", "undecodable", "special"
KINDS = (OK, UNREACHABLE, UNDECODABLE, SPECIAL_CLASS)
CONTEXTS = ("«", "»", "a", "1")  # put before a token's text (method "context")
# put before or after a token's text (method "suffix"): letters that join a word, marks
# that join a run of marks
AROUND = ("a", "s", "e", "x", "q", "z", "!", "«", "-")
LETTERS = "abcdefghijklmnopqrstuvwxyz"   # then each letter (only for tokens still unmatched)
PROBE = "ab"
_BATCH = 2048                  # tokens between progress reports and cancel checks

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Reachability:
    """The class of every id, and what each unreachable token's text encodes to.

    ``codes[i]`` is an index into :data:`KINDS` (-1: no token has id i);
    ``reencoded[i]``: the ids the text of unreachable token i encodes to (empty when
    encoding refused the text); ``method``: see :func:`method_of`.
    """

    codes: array
    reencoded: dict[int, tuple[int, ...]] = field(default_factory=dict)
    method: str = "text"
    context: str = ""

    def kind(self, i: int) -> str | None:
        """'ok' | 'unreachable' | 'undecodable' | 'special', or None for an unknown id."""
        if 0 <= i < len(self.codes) and self.codes[i] >= 0:
            return KINDS[self.codes[i]]
        return None

    def ids(self, kind: str) -> list[int]:
        """The ids of one class, ascending."""
        code = KINDS.index(kind)
        return [i for i, c in enumerate(self.codes) if c == code]

    def counts(self) -> dict[str, int]:
        return {k: self.codes.count(n) for n, k in enumerate(KINDS)}

    def as_json(self) -> dict[str, list[int]]:
        """``{"ok": [...], "unreachable": [...], "undecodable": [...], "special": [...]}``"""
        out: dict[str, list[int]] = {k: [] for k in KINDS}
        for i, c in enumerate(self.codes):
            if c >= 0:
                out[KINDS[c]].append(i)
        return out

    def describe(self) -> str:
        """One sentence on how tokens were re-encoded (for the window and the CLI)."""
        if self.method == "symbols":
            return ("character level: each token's symbols (its characters, and </w> where "
                    "it has one) merged as one word")
        if self.method == "suffix":
            return (f"each token's text without its end-of-word suffix {self.context}, alone "
                    "or beside letters or marks (a token without the suffix is a word's "
                    "start or middle)")
        if self.method == "context":
            return (f"each token's text after a context ({self.context}), whose own tokens "
                    "are then taken off: this tokenizer changes the start of a text")
        return "each token's text encoded on its own"


def end_of_word_suffix(tok: BaseTokenizer) -> bytes:
    """The suffix a byte-level tokenizer's model puts on a word's last symbol (CLIP's
    ``</w>``), or b"" for none."""
    model = getattr(getattr(tok, "pipeline", None), "model", None)
    eow = getattr(model, "end_of_word", b"")
    return eow if isinstance(eow, bytes) else b""


def method_of(tok: BaseTokenizer) -> str:
    """'symbols' (character level), 'suffix' (a word's last symbol carries an end-of-word
    suffix, as CLIP's), 'context' (the tokenizer changes the start of a text, e.g. a
    prefix space or ▁) or 'text'."""
    if tok.mode == "char":
        return "symbols"
    if end_of_word_suffix(tok):
        return "suffix"
    try:
        got = b"".join(tok.vocab.get(i, b"") for i in tok.encode(PROBE, allowed_special="all", add_special_tokens=False))
    except BPEError:
        return "text"
    return "text" if got == PROBE.encode() else "context"


def classify_tokens(tok: BaseTokenizer, progress: ProgressFn | None = None,
                    cancel: CancelFn | None = None) -> Reachability:
    """Classify every token of ``tok`` (see the module docstring).

    ``progress(done, total)`` is called every few thousand tokens; ``cancel()`` returning
    True raises :class:`~bpe_gui.engine.errors.Cancelled` there.
    """
    checks.instance(tok, BaseTokenizer, "classify_tokens(tok)", "a Tokenizer")
    vocab = tok.vocab
    method = method_of(tok)
    reencode, context = _reencoder(tok, method)
    codes = array("b", [-1]) * (max(vocab, default=-1) + 1)
    reencoded: dict[int, tuple[int, ...]] = {}
    items = sorted(vocab.items())
    total = len(items)
    classify = _classifier(tok, reencode, codes, reencoded)
    for start in range(0, total, _BATCH):
        if cancel is not None and cancel():
            raise Cancelled()
        for i, token in items[start:start + _BATCH]:
            classify(i, token)
        if progress is not None:
            progress(min(start + _BATCH, total), total)
    return Reachability(codes, reencoded, method, context)


def classify_more(tok: BaseTokenizer, known: Reachability, ids) -> Reachability:
    """``known`` (made for an earlier step of the same training run) with the tokens
    ``ids`` of ``tok`` classified too.

    A trained tokenizer's tokens keep their class as merges are added: a token's text
    is cut into the same words, and a merge learned later has a higher rank than every
    merge that built the token, so once the text is that one token no later merge
    applies to it, and a text that came out as other tokens never comes out as this id
    (later merges make new ids). So after k more steps only the k new tokens need
    classifying. (Not so for an imported tokenizer of another run: classify it whole.)

    Example: ``classify_more(t.tokenizer(), r, range(r_len, len(t.vocab_bytes)))``
    equals ``classify_tokens(t.tokenizer())`` (tested).
    """
    if known.method != method_of(tok):
        raise ValueError("classify_more: the tokenizer is re-encoded another way than "
                         "the known classes were; classify it whole")
    reencode, _ = _reencoder(tok, known.method)
    vocab = tok.vocab
    ids = [i for i in ids if i in vocab]
    top = max([len(known.codes) - 1, *ids]) + 1
    codes = array("b", known.codes)
    codes.extend([-1] * (top - len(codes)))
    reencoded = dict(known.reencoded)
    classify = _classifier(tok, reencode, codes, reencoded)
    for i in ids:
        classify(i, vocab[i])
    return Reachability(codes, reencoded, known.method, known.context)


def _classifier(tok: BaseTokenizer, reencode, codes: array, reencoded: dict):
    """(id, token bytes) -> sets ``codes[id]`` (and ``reencoded[id]`` if unreachable)."""
    special = set(tok.special_ids.values())
    if tok.mode == "char" and UNK in tok.bytes_to_id:
        special.add(tok.bytes_to_id[UNK])   # stands for any missing character, not "<unk>"

    def classify(i: int, token: bytes) -> None:
        if i in special:
            codes[i] = 3
            return
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            codes[i] = 2
            return
        got = reencode(i, token, text)
        if got == (i,):
            codes[i] = 0
        else:
            codes[i] = 1
            reencoded[i] = got
    return classify


Reencode = Callable[[int, bytes, str], tuple[int, ...]]   # (id, bytes, text) -> ids


def _reencoder(tok: BaseTokenizer, method: str) -> tuple[Reencode, str]:
    """(id, token bytes, its text) -> the ids it encodes to, for the method; and the
    contexts tried (method "context")."""
    if method == "symbols":
        return _by_symbols(tok), ""
    encode = tok.encode

    def plain(text: str) -> tuple[int, ...]:
        try:
            return tuple(encode(text))
        except BPEError:   # e.g. a character a character-level vocabulary lacks
            return ()
    if method == "text":
        return (lambda i, token, text: plain(text)), ""
    if method == "suffix":
        return _by_suffix(end_of_word_suffix(tok), plain)
    heads = [(c, plain(c)) for c in CONTEXTS]

    def after_context(i: int, token: bytes, text: str) -> tuple[int, ...]:
        alone = plain(text)
        if alone == (i,):
            return alone
        first = None
        for c, head in heads:
            ids = plain(c + text)
            if ids[:len(head)] == head:
                rest = ids[len(head):]
                if rest == (i,):
                    return rest    # alone after this context: a text that produces it
                if first is None:
                    first = rest
        return first if first is not None else alone
    return after_context, ", ".join(CONTEXTS)


def _by_suffix(eow: bytes, plain: Callable[[str], tuple[int, ...]]) -> tuple[Reencode, str]:
    """Method "suffix": the token's text without the suffix, alone, then with a letter
    or mark of :data:`AROUND` on the side where the word goes on (after a word's start
    or middle, before a word's end; a middle gets both): ok when a text gives the id.
    A token that is only the suffix's text is a word's end with no text before it."""
    mark = eow.decode("utf-8", "replace")

    def reencode(i: int, token: bytes, text: str) -> tuple[int, ...]:
        final = token.endswith(eow) and len(token) > len(eow)
        body = text[:-len(mark)] if final else text
        alone = plain(body)
        if alone == (i,) or not body:
            return alone
        around = AROUND + tuple(c for c in LETTERS if c not in AROUND)
        probes = [c + body for c in around] if final else \
            [body + c for c in around] + [c + body + d for c in AROUND[:3] for d in AROUND[:3]]
        for probe in probes:
            if i in plain(probe):
                return (i,)   # a text that produces the id
        return alone
    return reencode, mark


def _by_symbols(tok: BaseTokenizer) -> Reencode:
    t2i = tok.bytes_to_id
    eow = t2i.get(EOW)
    suffix = tok.end_of_word == "suffix"

    def reencode(i: int, token: bytes, text: str) -> tuple[int, ...]:
        marked = eow is not None and (token.endswith(EOW) if suffix else token.startswith(EOW))
        body = (token[:-len(EOW)] if suffix else token[len(EOW):]) if marked else token
        try:
            syms = [t2i[c.encode("utf-8")] for c in body.decode("utf-8")]
        except KeyError:   # a character that is no symbol of its own: never rebuilt
            return ()
        if marked and eow is not None:   # (marked only when there is an end-of-word id)
            syms = syms + [eow] if suffix else [eow] + syms
        return tok.model.merge_symbols(syms) if syms else ()
    return reencode
