"""Renderers that are code (mistral-common, Llama 3's ChatFormat, harmony) build a prompt
as their libraries do: control tokens by id and stretches of text each encoded on its
own. A :class:`Piece` is one of those; :func:`assemble` encodes them, each token
keeping its piece's origin, into the same :class:`~.tokens.ChatEncoding` a template
gives."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .conversation import ChatError
from .render import Source, Span
from .tokens import TEMPLATE, ChatEncoding, ChatToken, attribute


@dataclass(frozen=True)
class Piece:
    """A control token (``token``: its text, looked up by the tokenizer) or ``text``
    encoded on its own; ``role``/``message``/``origin`` as in ChatToken ('template' and
    'scaffolding' for the renderer's own text)."""

    text: str = ""
    token: str | None = None
    role: str = TEMPLATE
    message: int | None = None
    origin: str = "scaffolding"
    parts: tuple[Span, ...] = ()


def joined(*parts: tuple[str, str, int | None, str]) -> Piece:
    """One text piece made of several (text, role, message, origin), encoded as one
    string (as a library encodes "[INST] " + content + " [/INST]"): each token is the
    part's it shares most characters with."""
    spans, at = [], 0
    for text, role, message, origin in parts:
        if role != TEMPLATE and text:
            spans.append(Span(at, at + len(text), Source(message, role, origin)))
        at += len(text)
    return Piece("".join(p[0] for p in parts), parts=tuple(spans))


def special(token: str) -> Piece:
    return Piece(token=token, origin="special")


def described(tok) -> str:
    """What a tokenizer is, in the words a refusal uses: its known encoding or its
    file's kind ("a tokenizer trained here" when it has no file)."""
    meta = tok.meta if isinstance(getattr(tok, "meta", None), dict) else {}
    label = meta.get("encoding_label") or meta.get("label")
    if label:
        return label
    return f"a {meta['format']} file" if meta.get("format") else "a tokenizer trained here"


def control_id(tok, token: str, renderer: str) -> int:
    """The id of a control token (a special token, else a token of the vocabulary)."""
    got = tok.special_ids.get(token)
    if got is None:
        got = tok.bytes_to_id.get(token.encode("utf-8"))
    if got is None:
        raise ChatError(f"the tokenizer has no {token!r} token, which the {renderer} format "
                        "needs; pick that model's tokenizer file.")
    return got


def ordinary(tok) -> Callable[[str], Any]:
    """How a code renderer encodes a text piece: a special token's spelling is text
    there (the control tokens are pieces of their own), and nothing is added around it."""
    return lambda s: tok.encode_with_offsets(s, allowed_special=frozenset(),
                                             disallowed_special=(), add_special_tokens=False)


def assemble(tok, pieces: Sequence[Piece], renderer: str,
             encode: Callable[[str], Any] | None = None) -> ChatEncoding:
    """The pieces encoded in order; ``encode(text)`` gives an Encoding of a text piece
    (default: the tokenizer's ``encode_with_offsets``). The text shown is the pieces'
    texts end to end, control tokens spelled out."""
    enc_text = encode or ordinary(tok)
    out: list[ChatToken] = []
    text: list[str] = []
    at = 0
    for p in pieces:
        if p.token is not None:
            tid = control_id(tok, p.token, renderer)
            out.append(ChatToken(tid, p.token.encode("utf-8"), at, at + len(p.token), p.role,
                                 p.message, p.origin, True))
            text.append(p.token)
            at += len(p.token)
            continue
        if not p.text:
            continue
        enc = enc_text(p.text)
        special = getattr(enc, "special", None) or [False] * len(enc.ids)
        raw = [(tid, piece, s + at, e + at, sp)
               for tid, piece, (s, e), sp in zip(enc.ids, enc.tokens, enc.offsets, special)]
        if p.parts:
            shifted = [Span(sp.start + at, sp.end + at, sp.source) for sp in p.parts]
            out += attribute(shifted, raw)
        else:
            out += [ChatToken(tid, piece, s, e, p.role, p.message, p.origin, sp,
                              sp and p.role != TEMPLATE) for tid, piece, s, e, sp in raw]
        text.append(p.text)
        at += len(p.text)
    return ChatEncoding("".join(text), tuple(out), renderer, renderer, True)
