"""A conversation rendered by a jinja chat template, and where each character came from.

The text is what transformers' ``apply_chat_template(..., tokenize=False)`` gives. The
origins come from a second render in which every string of the conversation (a message's
content and reasoning, its tool calls' names and arguments, the tools' and documents'
values) is wrapped in private-use marks: the marks' places, once removed, are where each
string landed. A template that cuts or tests a string (``content[:10]``, ``| trim``)
renders differently with the marks; then each string is looked for in the text in order
instead, and a string found nowhere has no place (its tokens show as the template's).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from .conversation import ChatError, Conversation
from .sandbox import CompiledTemplate, TemplateRaised

_OPEN0 = 0x100000          # mark k opens with chr(_OPEN0 + k) ...
_CLOSE = "\U0010FFFD"      # ... and every mark closes with this
_MAX_MARKS = 0xFF000
_REASONING = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


@dataclass(frozen=True)
class Source:
    """Whose a marked string is: ``message`` (index, or None for tools and documents),
    ``role`` ('user', 'assistant', ..., 'tools', 'documents') and ``field`` ('content',
    'reasoning_content', 'tool_calls', 'tools' ...)."""

    message: int | None
    role: str
    field: str


@dataclass(frozen=True)
class Span:
    """Characters ``start:end`` of the rendered text are ``source``'s string."""

    start: int
    end: int
    source: Source


@dataclass(frozen=True)
class Rendered:
    """The rendered text and the places of the conversation's strings in it (in text
    order; ``exact``: found by the marks, not by looking the strings up); ``undefined``:
    the undefined variables the template printed (as empty text)."""

    text: str
    spans: tuple[Span, ...]
    exact: bool
    undefined: frozenset[str] = frozenset()


def _alias_reasoning(msg: dict[str, Any]) -> dict[str, Any]:
    """transformers fills ``reasoning_content`` from its older names and ``thinking``
    for gpt-oss templates."""
    got = next((msg[k] for k in _REASONING if msg.get(k) is not None), None)
    return msg if got is None else {"thinking": got, **msg, "reasoning_content": got}


def _strings(msg: dict[str, Any]) -> Iterator[tuple[tuple, str]]:
    """(path, field) of each string of a message that is the sender's text."""
    content = msg.get("content")
    if isinstance(content, str):
        yield ("content",), "content"
    elif isinstance(content, list):
        for i, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield ("content", i, "text"), "content"
    for k in _REASONING:
        if isinstance(msg.get(k), str):
            yield (k,), "reasoning_content"
    for i, call in enumerate(msg.get("tool_calls") or ()):
        if not isinstance(call, dict):
            continue
        fn = call.get("function", call)
        base = ("tool_calls", i, "function") if "function" in call else ("tool_calls", i)
        if isinstance(fn, dict):
            for path in _leaf_paths(fn.get("arguments"), ("arguments",)):
                yield base + path, "tool_calls"
            if isinstance(fn.get("name"), str):
                yield base + ("name",), "tool_calls"


def _leaf_paths(value: Any, path: tuple) -> Iterator[tuple]:
    """Paths to the string leaves of JSON data (dict values, list items)."""
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaf_paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaf_paths(v, path + (i,))


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def _put(obj: Any, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class _Inputs:
    """The template's variables, and the same with every string marked."""

    def __init__(self, conv: Conversation, extra: dict[str, Any]):
        self.chat = [_alias_reasoning(_copy(m)) for m in conv.messages]
        self.tools = None if conv.tools is None else [_copy(t) for t in conv.tools]
        self.docs = None if conv.documents is None else [_copy(d) for d in conv.documents]
        self.conv, self.extra = conv, extra
        self.fields: list[tuple[Any, tuple, Source]] = []   # (container, path, source)
        self.groups: list[tuple] = []   # the strings of one tool, document or call: one group
        for i, m in enumerate(self.chat):
            for path, field in _strings(m):
                self.fields.append((m, path, Source(i, str(m["role"]), field)))
                self.groups.append((i,) + path[:2] if field == "tool_calls" else (i, path))
        for name, items in (("tools", self.tools), ("documents", self.docs)):
            for j, item in enumerate(items or ()):
                for path in _leaf_paths(item, ()):
                    self.fields.append((items, (j,) + path, Source(None, name, name)))
                    self.groups.append((name, j))

    def continue_field(self) -> list[str]:
        """The keys of the last message that continue_final_message extends."""
        cont = self.conv.continue_final_message
        if not cont:
            return []
        key = cont if isinstance(cont, str) else "content"
        last = self.chat[-1]
        final = last.get(key)
        if final is None:
            raise ChatError(f'continue_final_message is set but the last message has no "{key}" '
                            "to continue; give it one, or turn continue_final_message off.")
        if key in _REASONING:
            return [k for k in _REASONING if last.get(k) == final]
        return [key]

    def variables(self, marked: bool) -> dict[str, Any]:
        chat, tools, docs = _copy(self.chat), _copy(self.tools), _copy(self.docs)
        if marked:
            index = {id(self.chat[i]): chat[i] for i in range(len(chat))}
            for k, (holder, path, _src) in enumerate(self.fields):
                target = index.get(id(holder)) or (tools if holder is self.tools else docs)
                s = _get(target, path)
                if s:
                    _put(target, path, chr(_OPEN0 + k) + s + _CLOSE)
        for key in self.continue_field():
            last = chat[-1]
            if isinstance(last[key], list):
                for part in reversed(last[key]):
                    if isinstance(part, dict) and "text" in part:
                        part["text"] += _CONTINUE_TAG
                        break
            else:
                last[key] += _CONTINUE_TAG
        return {**self.extra, "messages": chat, "tools": tools, "documents": docs,
                "add_generation_prompt": self.conv.add_generation_prompt,
                **self.conv.template_kwargs}

    def markable(self) -> bool:
        if len(self.fields) > _MAX_MARKS:
            return False
        return not any(_MARKS.search(_get(h, p)) for h, p, _ in self.fields)


def _cut_continued(text: str, conv: Conversation) -> str:
    """transformers' cut of a continued final message: the text up to the tag."""
    if not conv.continue_final_message:
        return text
    at = text.rfind(_CONTINUE_TAG.strip())
    if at < 0:
        raise ChatError("continue_final_message is set but the template drops the last "
                        "message's text; this template cannot continue a message.")
    if text[at:at + len(_CONTINUE_TAG)] == _CONTINUE_TAG:
        return text[:at]
    return text[:at].rstrip()


_MARKS = re.compile("[\U00100000-\U0010FFFF]")   # (what the loop before took for marks)


def _unmark(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """Text without marks, and (start, end, mark k) of each marked stretch in it (the
    marks found by a regex: a prompt of millions of characters has a few hundred)."""
    spans: list[tuple[int, int, int]] = []
    open_at: dict[int, int] = {}
    stack: list[int] = []
    removed = 0
    for m in _MARKS.finditer(text):
        c = m.group()
        n = m.start() - removed   # the mark's place in the text without marks
        removed += 1
        if c == _CLOSE:
            if stack:
                k = stack.pop()
                spans.append((open_at.pop(k), n, k))
        else:
            stack.append(ord(c) - _OPEN0)
            open_at[ord(c) - _OPEN0] = n
    out = _MARKS.sub("", text) if removed else text
    for k in stack:   # a mark cut off by the template: its string runs to the end
        spans.append((open_at[k], len(out), k))
    return out, spans


def render_chat(template: CompiledTemplate, conv: Conversation,
           extra: dict[str, Any] | None = None) -> Rendered:
    """Render ``conv`` with ``template`` (``extra``: bos_token, eos_token ... as the
    tokenizer's config names them; the conversation's template_kwargs win over them)."""
    inputs = _Inputs(conv, dict(extra or {}))
    try:
        text = _cut_continued(template.render(**inputs.variables(False)), conv)
    except TemplateRaised as e:
        if issubclass(e.raised, TypeError) and any(isinstance(m.get("content"), list)
                                                   for m in conv.messages
                                                   if isinstance(m, dict)):
            raise ChatError(f"{e}. This template reads each message's \"content\" as "
                            "text: give it as one string, not a list of parts.") from None
        raise
    undefined = template.printed_undefined
    if inputs.markable():
        try:
            marked = _cut_continued(template.render(**inputs.variables(True)), conv)
        except ChatError:
            marked = ""
        stripped, raw = _unmark(marked)
        if stripped == text:
            return Rendered(text, tuple(_grouped(raw, inputs)), True, undefined)
    return Rendered(text, tuple(_looked_up(text, inputs)), False, undefined)


def _grouped(raw: list[tuple[int, int, int]], inputs: _Inputs) -> list[Span]:
    """Spans in text order, the strings of one tool, document or tool call that follow
    one another joined into one span (the JSON keys between them are that tool's too)."""
    raw = sorted((s, e, k) for s, e, k in raw if e > s)
    out: list[Span] = []
    last_group = None
    for s, e, k in raw:
        group = inputs.groups[k]
        src = inputs.fields[k][2]
        joinable = src.field in ("tools", "documents", "tool_calls")
        if joinable and out and group == last_group and out[-1].end <= s:
            out[-1] = Span(out[-1].start, e, src)
        else:
            out.append(Span(s, e, src))
        last_group = group
    return out


def _looked_up(text: str, inputs: _Inputs) -> Iterator[Span]:
    """Each message string found in the text after the previous one (as given, else
    stripped of spaces at its ends)."""
    at = 0
    for holder, path, src in inputs.fields:
        if src.message is None:
            continue
        s = _get(holder, path)
        for cand in (s, s.strip()):
            k = text.find(cand, at) if cand else -1
            if k >= 0:
                yield Span(k, k + len(cand), src)
                at = k + len(cand)
                break
