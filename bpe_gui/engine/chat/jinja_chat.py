"""A conversation through a jinja chat template and a tokenizer, as transformers'
``apply_chat_template`` runs them, each token with its origin (tokens.py)."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any, Callable

from .conversation import ChatError, Conversation
from .render import Rendered, render_chat
from .sandbox import TIME_LIMIT_S, CompiledTemplate
from .templates import SPECIAL_KEYS, TemplateSource, tokenizer_specials
from .tokens import ChatEncoding, attribute, encode_pieces, encode_whole

_SURROGATE = re.compile("[\ud800-\udfff]")
_COMPILED: dict[tuple, CompiledTemplate] = {}   # (text, name, now, time limit): the last few
# transformers' marks around control tokens typed in the conversation (sanitizing)
_MARK_START, _MARK_END = "\U000f0000", "\U000f0001"


def control_tokens(tok, literal_text: str) -> tuple[str, ...]:
    """The tokens a sanitized chat keeps as text where the conversation types them:
    the special added tokens, and the others the template's text holds (not whitespace
    ones), as transformers 5.x infers them. Tokenizers that do not say which added tokens
    are special (tiktoken, GGUF, trained here) count them all as special."""
    added = getattr(getattr(getattr(tok, "pipeline", None), "added", None), "tokens", None)
    if added is None:
        return tuple(tok.special_tokens)
    texts = [(getattr(t, "content", None) or getattr(t, "text", ""), t.special) for t in added]
    # (a tokenizer.json's added token has its content; a GGUF's, its text)
    return tuple(c for c, special in texts
                 if c and (special or (c in literal_text and not c.isspace())))


def _mark(obj: Any, pattern: re.Pattern) -> Any:
    """transformers' mark_control_tokens: every string's control tokens wrapped in marks
    (marks already there dropped), recursively through lists and dict values."""
    if isinstance(obj, str):
        obj = obj.replace(_MARK_START, "").replace(_MARK_END, "")
        return pattern.sub(f"{_MARK_START}\\g<0>{_MARK_END}", obj)
    if isinstance(obj, dict):
        return {k: _mark(v, pattern) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_mark(v, pattern) for v in obj]
    return obj


def _patterns(tokens: tuple[str, ...]) -> tuple[re.Pattern, re.Pattern]:
    alts = "|".join(map(re.escape, sorted(tokens, key=len, reverse=True))) or "(?!)"
    return re.compile(alts), re.compile(f"{_MARK_START}({alts}){_MARK_END}|[{_MARK_START}{_MARK_END}]")


def _sanitized(template: CompiledTemplate, conv: Conversation, extra: dict[str, str],
               tok) -> list[str]:
    """The pieces of a sanitized render: [text, typed control token, text, ...]."""
    find, marks = _patterns(control_tokens(tok, template.literal_text()))
    marked = Conversation(tuple(_mark(m, find) for m in conv.messages),
                          None if conv.tools is None else tuple(_mark(list(conv.tools), find)),
                          None if conv.documents is None
                          else tuple(_mark(list(conv.documents), find)),
                          conv.add_generation_prompt, conv.continue_final_message,
                          _mark(dict(conv.template_kwargs), find), True)
    text = render_chat(template, marked, extra).text
    return marks.split(text)


def encode_chat_jinja(tok, source: TemplateSource, conv: Conversation, *,
                      now: Callable[[], datetime] = datetime.now,
                      time_limit_s: float = TIME_LIMIT_S,
                      plain_tokenizer: Callable[[], Any] | None = None) -> ChatEncoding:
    """What the model sees of ``conv`` under the jinja template ``source``, encoded by
    ``tok``. ``now``: what ``strftime_now`` reads; ``plain_tokenizer``: the tokenizer
    without added tokens, for sanitizing (by default ``tok``'s file loaded again with no
    special tokens)."""
    key = (source.text, source.origin or "chat template", now, time_limit_s)
    # compiled before: taken out while it renders (another thread compiles its own)
    template = _COMPILED.pop(key, None) or CompiledTemplate(*key)
    extra = {**source.specials, **tokenizer_specials(tok)}
    try:
        rendered = render_chat(template, conv, extra)
    except ChatError as e:
        hinted = _undefined_hint(str(e), extra)
        if hinted == str(e):
            raise
        raise ChatError(hinted) from None
    finally:
        _COMPILED[key] = template
        if len(_COMPILED) > 4:
            _COMPILED.clear()   # (another template each render: nothing worth keeping)
    notes = conv.notes + undefined_notes(rendered.undefined, extra)
    if _SURROGATE.search(rendered.text):
        # (a template's own "\\ud800": not a character; U+FFFD in its place, as tiktoken)
        rendered = replace(rendered, text=_SURROGATE.sub("\ufffd", rendered.text))
        notes += ("the template writes a lone surrogate, which is not a character; it is "
                  "read as U+FFFD, as tiktoken reads it.",)
    if not conv.sanitize_control_tokens:
        toks = attribute(rendered.spans, encode_whole(tok, rendered.text))
        return ChatEncoding(rendered.text, tuple(toks), "jinja", source.origin, rendered.exact,
                            notes)
    pieces = _sanitized(template, conv, extra, tok)
    text = "".join(p for p in pieces if p)
    spans = rendered.spans if text == rendered.text else _relocated(text, rendered)
    raw = encode_pieces(tok, plain_tokenizer or plain_reloaded(tok), pieces)
    return ChatEncoding(text, tuple(attribute(spans, raw)), "jinja", source.origin,
                        rendered.exact and text == rendered.text, notes)


_TOKENIZER_FIX = ("the model's tokenizer_config.json (or special_tokens_map.json) beside the "
                  "tokenizer file gives it; or set it in chat_template_kwargs")


def undefined_notes(names: frozenset[str], given: dict[str, str]) -> tuple[str, ...]:
    """One sentence per undefined variable the template printed as empty text.

    Example: {'bos_token'} -> ('the template prints bos_token, which this tokenizer does not
    define, so it rendered as empty text: ...',)."""
    out = []
    for name in sorted(names):
        if name in given:
            continue
        if name in SPECIAL_KEYS:
            out.append(f"the template prints {name}, which this tokenizer does not define, "
                       f"so it rendered as empty text: {_TOKENIZER_FIX}.")
        else:
            out.append(f"the template prints {name}, which nothing defines, so it rendered "
                       f"as empty text; if the model expects it, set it in "
                       "chat_template_kwargs.")
    return tuple(out)


def _undefined_hint(message: str, given: dict[str, str]) -> str:
    """A render stopped by an undefined special token (``bos_token + ...``) says where
    the tokenizer's special tokens come from."""
    m = re.search(r"'(\w+)' is undefined", message)
    if m and m.group(1) in SPECIAL_KEYS and m.group(1) not in given:
        return f"{message}: this tokenizer does not define {m.group(1)}; {_TOKENIZER_FIX}."
    return message


def _relocated(text: str, rendered: Rendered):
    """The strings' spans looked up in another text, in order."""
    out, at = [], 0
    for sp in rendered.spans:
        s = rendered.text[sp.start:sp.end]
        k = text.find(s, at)
        if k >= 0:
            out.append(type(sp)(k, k + len(s), sp.source))
            at = k + len(s)
    return tuple(out)


class _Ordinary:
    """A tokenizer whose special tokens' text is ordinary text (what sanitizing encodes a
    typed control token as), for kinds that cannot be read again without them."""

    special_ids: dict[str, int] = {}

    def __init__(self, tok):
        self._tok = tok

    def encode_with_offsets(self, text: str, **_: Any):
        return self._tok.encode_with_offsets(text, allowed_special=frozenset(),
                                             disallowed_special=(), add_special_tokens=False)


def plain_reloaded(tok) -> Callable[[], Any]:
    """The tokenizer without its added tokens, made when first asked for: its file read
    again with no special tokens (a tokenizer.json's non-special added tokens, such as
    Qwen's <tool_call>, go too), else, where a kind keeps its own (a GGUF, a tokenizer
    trained here), the tokenizer itself matching none of them."""
    cached: list = []

    def get():
        if not cached:
            from ..errors import FormatError
            from ..formats.loading import load_tokenizer
            path = tok.meta.get("source") if isinstance(tok.meta, dict) else None
            try:
                cached.append(load_tokenizer(path, special_tokens=[]) if path and
                              tok.meta.get("format") != "gguf" else _Ordinary(tok))
            except FormatError:
                cached.append(_Ordinary(tok))
        return cached[0]
    return get
