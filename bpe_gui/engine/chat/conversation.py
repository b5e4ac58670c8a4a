"""A conversation as a chat template is given it: messages, tools, documents, options.

The request body of OpenAI-compatible servers is read as they read it (``messages``,
``tools``, ``add_generation_prompt``, ``continue_final_message``,
``chat_template_kwargs``), plus ``sanitize_control_tokens`` (transformers 5.x) and
``documents``. A message is kept as the plain JSON it came as (a dict of str, numbers,
lists, dicts), since templates read keys of their own (``tool_calls``,
``reasoning_content``, ``name`` ...); keys whose value is null are dropped, as
transformers drops them before rendering.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BPEError

ROLES = ("system", "developer", "user", "assistant", "tool")


class ChatError(BPEError):
    """A conversation or a chat template that cannot be rendered; the message says what
    is wrong (the template line, the message number) and how to fix it."""


@dataclass(frozen=True)
class Conversation:
    """What a chat template renders.

    ``messages``: dicts with at least ``role``; ``continue_final_message``: False, True
    (the last message's ``content``) or the name of the key to continue, as in
    transformers' ``apply_chat_template``; ``template_kwargs``: more variables the
    template sees (``enable_thinking`` ...); ``sanitize_control_tokens``: control-token
    text typed in the conversation stays text."""

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...] | None = None
    documents: tuple[dict[str, Any], ...] | None = None
    add_generation_prompt: bool = False
    continue_final_message: bool | str = False
    template_kwargs: dict[str, Any] = field(default_factory=dict)
    sanitize_control_tokens: bool = False
    notes: tuple[str, ...] = ()   # what reading the request changed (checked_request)

    def __post_init__(self) -> None:
        if not self.messages:
            raise ChatError("the conversation has no messages; add at least one "
                            '{"role": "user", "content": "..."}.')
        for i, m in enumerate(self.messages):
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                raise ChatError(f"message {i + 1} has no \"role\" string; every message is "
                                '{"role": "user"|"assistant"|"system"|"tool", "content": ...}.')
        if self.continue_final_message and self.add_generation_prompt:
            raise ChatError("continue_final_message and add_generation_prompt cannot both be "
                            "set: continue the last message, or open a new assistant one.")


MAX_DEPTH = 128   # as tokenizer files (serde_json's limit); conversations nest a few levels
_BOOLS = ("add_generation_prompt", "sanitize_control_tokens", "auto_drop_analysis")


def _without_surrogates(s: str) -> str:
    """A string as tiktoken encodes one: a lone surrogate becomes U+FFFD."""
    return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def checked_request(body: Any) -> tuple[Any, tuple[str, ...]]:
    """(the request body, what was changed in it): its nesting held to MAX_DEPTH levels,
    its options true or false where they must be (a ChatError for each), and each lone
    surrogate in its text (not a character: JSON's "\\ud800") made U+FFFD, as tiktoken
    makes it, and said. Walked without recursion."""
    changed = 0
    top: list = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(body, top, 0, 1)]   # (value, holder, key, depth)
    while stack:
        value, holder, key, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ChatError(f"the conversation nests lists and objects more than {MAX_DEPTH} "
                            "levels deep, which no chat request does; check what made it.")
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                value = _without_surrogates(value)
                changed += 1
            holder[key] = value
        elif isinstance(value, dict):
            copy: dict = {}
            holder[key] = copy
            for k, v in value.items():
                if isinstance(k, str) and not k.isprintable():
                    k2 = _without_surrogates(k)
                    changed += k2 != k
                    k = k2
                copy[k] = None
                stack.append((v, copy, k, depth + 1))
        elif isinstance(value, (list, tuple)):
            items: list = [None] * len(value)
            holder[key] = items
            stack.extend((v, items, i, depth + 1) for i, v in enumerate(value))
        else:
            holder[key] = value
    body = top[0]
    if isinstance(body, dict):
        for k in _BOOLS:
            if k in body and body[k] is not None and not isinstance(body[k], bool):
                raise ChatError(f"\"{k}\" must be true or false (JSON's own values), not "
                                f"{json.dumps(body[k], ensure_ascii=False)[:40]}.")
        cont = body.get("continue_final_message")
        if isinstance(cont, str) and cont.lower() in ("true", "false"):
            raise ChatError("\"continue_final_message\" must be true, false (JSON's own "
                            f"values) or the name of the key to continue, not the text {cont!r}.")
    notes = (f"the conversation holds {changed} text{'s' if changed > 1 else ''} with a "
             "lone surrogate (such as \"\\ud800\"), which is not a character; each was "
             "read as U+FFFD, as tiktoken reads it.",) if changed else ()
    return body, notes


def _plain(value: Any, where: str) -> Any:
    """JSON data as plain Python (what the sandbox is given), nulls inside dicts dropped."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v, where) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v, where) for v in value]
    raise ChatError(f"{where} holds a {type(value).__name__}; only JSON values (text, "
                    "numbers, lists, objects) can go to a chat template.")


def _list_of_dicts(body: dict, key: str) -> tuple[dict[str, Any], ...] | None:
    got = body.get(key)
    if got is None:
        return None
    if not isinstance(got, list) or not all(isinstance(x, dict) for x in got):
        raise ChatError(f"\"{key}\" must be a list of objects (got {type(got).__name__}).")
    return tuple(_plain(x, key) for x in got)


def conversation_from_request(body: Any) -> Conversation:
    """A :class:`Conversation` from an OpenAI-style request body (a dict).

    Example: ``{"messages": [{"role": "user", "content": "hi"}],
    "add_generation_prompt": true}`` -> one user message, a generation prompt."""
    body, notes = checked_request(body)
    if isinstance(body, list):   # a bare list of messages
        body = {"messages": body}
    if not isinstance(body, dict):
        raise ChatError(f"the conversation is {json.dumps(body, ensure_ascii=False)[:40]}; it "
                        "must be a JSON object with \"messages\" (a list of {\"role\", "
                        "\"content\"} objects), or that list alone.")
    messages = _list_of_dicts(body, "messages")
    if not messages:
        raise ChatError("the conversation has no \"messages\"; add a list of "
                        "{\"role\": ..., \"content\": ...} objects.")
    kwargs = body.get("chat_template_kwargs") or {}
    if not isinstance(kwargs, dict):
        raise ChatError("\"chat_template_kwargs\" must be an object of template variables.")
    cont = body.get("continue_final_message", False)
    if not isinstance(cont, (bool, str)):
        raise ChatError("\"continue_final_message\" must be true, false or the name of the "
                        "last message's key to continue.")
    return Conversation(messages, _list_of_dicts(body, "tools"), _list_of_dicts(body, "documents"),
                        bool(body.get("add_generation_prompt", False)), cont,
                        _plain(kwargs, "chat_template_kwargs"),
                        bool(body.get("sanitize_control_tokens", False)), notes)


def read_conversation(path: str | Path) -> Conversation:
    """The conversation in a JSON file (a request body, see
    :func:`conversation_from_request`)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ChatError(f"{p}: file not found. Check the path.") from None
    except OSError as e:
        raise ChatError(f"{p}: cannot be read ({e.strerror or e}).") from None
    body = parse_request(data, str(p))
    try:
        return conversation_from_request(body)
    except ChatError as e:
        raise ChatError(f"{p}: {e}") from None


def parse_request(data: bytes | str, where: str) -> Any:
    """A request body's JSON (strict UTF-8, nesting held in bounds); a ChatError naming
    ``where`` and the place for anything else."""
    from ..io import JSONTooDeep, loads_bounded
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ChatError(f"{where}: is not UTF-8 text (bad byte 0x{data[e.start]:02X} at byte "
                            f"offset {e.start}); save the conversation as UTF-8.") from None
    try:
        return loads_bounded(data, MAX_DEPTH)
    except json.JSONDecodeError as e:
        raise ChatError(f"{where}: not JSON at line {e.lineno}, column {e.colno} "
                        f"({e.msg}).") from None
    except JSONTooDeep as e:
        raise ChatError(f"{where}: the JSON holds {e}.") from None


def request_of(conv: Conversation) -> dict[str, Any]:
    """The request body of a conversation (what :func:`conversation_from_request` reads)."""
    body: dict[str, Any] = {"messages": [dict(m) for m in conv.messages]}
    if conv.tools is not None:
        body["tools"] = list(conv.tools)
    if conv.documents is not None:
        body["documents"] = list(conv.documents)
    if conv.add_generation_prompt:
        body["add_generation_prompt"] = True
    if conv.continue_final_message:
        body["continue_final_message"] = conv.continue_final_message
    if conv.template_kwargs:
        body["chat_template_kwargs"] = dict(conv.template_kwargs)
    if conv.sanitize_control_tokens:
        body["sanitize_control_tokens"] = True
    return body
