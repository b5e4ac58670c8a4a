"""A rendered conversation encoded, each token with where it came from.

The ids are the tokenizer's for the whole rendered text with no BOS or EOS added (the
template writes its own: transformers encodes with ``add_special_tokens=False``). Typed
special-token text becomes a control token, as transformers and llama.cpp do; a token
whose characters are a message's text and that is a control token is an *injection*.
With ``sanitize_control_tokens`` the text is cut at each control token the conversation
typed, as transformers 5.x cuts it, and those are encoded as plain text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

from .conversation import ChatError
from .render import Span

TEMPLATE = "template"   # the role of a token the template wrote


class ChatToken(NamedTuple):
    """One token: ``id``, its bytes, the characters ``start:end`` of the rendered text;
    ``role`` (the message's role, 'tools', 'documents', or 'template'), ``message`` (its
    index, or None); ``origin``: 'content', 'reasoning_content', 'tool_calls', 'tools',
    'documents' (the conversation's text), 'scaffolding' (the template's text) or
    'special' (a control token the template wrote); ``injected``: a control token made
    of the conversation's text. (A named tuple: a prompt may hold a million of them.)"""

    id: int
    piece: bytes
    start: int
    end: int
    role: str
    message: int | None
    origin: str
    special: bool
    injected: bool = False

    @property
    def text(self) -> str:
        return self.piece.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class ChatEncoding:
    """What the model sees: ``text`` (rendered), ``tokens``; ``renderer`` and
    ``template_origin`` say what made it; ``exact_origins``: the conversation's strings
    were placed by marks (else looked up in the text); ``notes``: what the user should
    know of this result, one sentence each (a variable the template printed empty)."""

    text: str
    tokens: tuple[ChatToken, ...]
    renderer: str
    template_origin: str = ""
    exact_origins: bool = True
    notes: tuple[str, ...] = ()

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]

    def counts(self) -> dict[str, int]:
        """Tokens per role ('template': the template's scaffolding and control tokens),
        in order of first appearance."""
        out: dict[str, int] = {}
        for t in self.tokens:
            out[t.role] = out.get(t.role, 0) + 1
        return out

    def message_counts(self, n_messages: int) -> list[int]:
        """Tokens of each message's own text (its content, reasoning, tool calls)."""
        out = [0] * n_messages
        for t in self.tokens:
            if t.message is not None and t.message < n_messages:
                out[t.message] += 1
        return out

    @property
    def injections(self) -> list[ChatToken]:
        return [t for t in self.tokens if t.injected]

    def as_json(self, n_messages: int) -> dict[str, Any]:
        """What ``bpe-gui chat --json`` prints (less its schema), the Chat view's Copy as
        JSON: ids, tokens with their origins, counts, the rendered text."""
        return {"ids": self.ids,
                "tokens": [{"id": t.id, "text": t.text, "role": t.role, "origin": t.origin,
                            "message": t.message, "injected": t.injected, "start": t.start,
                            "end": t.end} for t in self.tokens],
                "counts": self.counts(), "message_counts": self.message_counts(n_messages),
                "injections": [k for k, t in enumerate(self.tokens) if t.injected],
                "renderer": self.renderer, "template": self.template_origin, "text": self.text,
                "notes": list(self.notes)}


def attribute(spans: Sequence[Span], tokens: Sequence[tuple[int, bytes, int, int, bool]]
              ) -> list[ChatToken]:
    """ChatTokens from (id, bytes, start, end, special) and the strings' spans: a token
    is the string's it shares most characters with (the earlier one on a tie), else the
    template's. Example: spans [(10, 14, user)] and a token (7, b' hi', 9, 12) -> user.

    Tokens come in text order, and spans too: one walk over both (the spans a token
    may share characters with start before its end and end after its start)."""
    out: list[ChatToken] = []
    add, new = out.append, tuple.__new__   # (a named tuple made as a tuple: 10x faster)
    k = 0
    n = len(spans)
    for tid, piece, s, e, special in tokens:
        while k < n and spans[k].end <= s:
            k += 1   # (spans wholly before this token, and so before every later one)
        best, most = None, 0
        if k < n and spans[k].start <= s < e <= spans[k].end:
            best = spans[k]   # (the common case: wholly inside the next span)
        j = k if best is None else n
        while j < n and spans[j].start < max(e, s + 1):
            sp = spans[j]
            overlap = min(e, sp.end) - max(s, sp.start) if e > s else int(sp.start <= s < sp.end)
            if overlap > most:
                best, most = sp, overlap
            j += 1
        if best is None:
            add(new(ChatToken, (tid, piece, s, e, TEMPLATE, None,
                                "special" if special else "scaffolding", special, False)))
        else:
            src = best.source
            add(new(ChatToken, (tid, piece, s, e, src.role, src.message, src.field, special,
                                special)))
    return out


def added_ids(tok) -> set[int]:
    """The ids of every added token, special or not (a tokenizer.json's non-special
    added tokens, like Qwen's <tool_call>, are control tokens too: text typed as them
    becomes their id)."""
    got = set(tok.special_ids.values())
    added = getattr(getattr(getattr(tok, "pipeline", None), "added", None), "tokens", None)
    got.update(t.id for t in added or ())
    return got


def encode_whole(tok, text: str) -> list[tuple[int, bytes, int, int, bool]]:
    """(id, bytes, start, end, special) of the whole text encoded by ``tok``; special:
    a special or added token (a control token: no plain text gives its id)."""
    # the rendered prompt is the whole input: its control tokens' text is theirs, and
    # nothing is added around it (the template wrote BOS if the model wants one)
    enc = tok.encode_with_offsets(text, allowed_special="all", add_special_tokens=False)
    added = added_ids(tok)
    special = enc.special or [False] * len(enc.ids)
    return [(i, b, s, e, sp or i in added)
            for i, b, (s, e), sp in zip(enc.ids, enc.tokens, enc.offsets, special)]


def encode_pieces(tok, plain_tok: Callable[[], Any], pieces: Sequence[str]
                  ) -> list[tuple[int, bytes, int, int, bool]]:
    """transformers' encode of a sanitized chat: pieces alternate [text, typed control
    token, text, ...] (None for a lone mark); the first is encoded as it is, the others
    after a newline that is then taken off again (so SentencePiece adds no space), typed
    control tokens as plain text (``plain_tok``: the tokenizer without added tokens)."""
    newline = tok.encode("\n", add_special_tokens=False)
    out = encode_whole(tok, pieces[0]) if pieces and pieces[0] else []
    at = len(pieces[0]) if pieces and pieces[0] else 0
    for i, piece in enumerate(pieces[1:], start=1):
        if not piece:
            continue
        as_text = i % 2 == 1
        t = plain_tok() if as_text else tok
        got = encode_whole(t, "\n" + piece)
        if [g[0] for g in got[:len(newline)]] == newline:
            got = [(a, b, s - 1, e - 1, sp) for a, b, s, e, sp in got[len(newline):]]
        else:
            got = encode_whole(t, piece)
        if as_text:
            tid = tok.special_ids.get(piece)
            if tid is not None and any(g[0] == tid for g in got):
                raise ChatError(f"cannot keep {piece!r} as text: this tokenizer makes that "
                                "control token from plain text too.")
            got = [(a, b, s, e, False) for a, b, s, e, _ in got]
        out += [(a, b, s + at, e + at, sp) for a, b, s, e, sp in got]
        at += len(piece)
    return out
