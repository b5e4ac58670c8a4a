"""The requests mistral-common refuses to encode, refused here with what to change: the
order of roles, the message a prompt ends with, tool calls without their results, the
names and ids of tool calls, v2's one tool result per turn, and a tool whose
"parameters" is not a JSON Schema of draft 7 (json_schema_check.py)."""
from __future__ import annotations

import re
from typing import Any

from .conversation import ChatError
from .json_schema_check import schema_problem, show
from .mistral_tools import NEW, check_ids

# mistral-common's validator: the roles each role may be followed by
_NEXT = {"system": ("user", "assistant", "system"), "user": ("assistant", "system", "user"),
         "assistant": ("assistant", "user", "tool"), "tool": ("assistant", "tool", "user")}


# a function's name, in a tool and in a tool call
_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def validate(messages: list[dict], version: str, tools: list[dict] | None = None) -> None:
    """mistral-common's checks (as its tokenizer files load: "test" mode): the order of
    roles, no assistant answer last (an assistant message with ``prefix`` may be, to be
    continued), each assistant turn's tool calls answered before the next one, the
    names of tools and calls, each tool's parameters a JSON Schema, and from v3 the ids of
    calls and results."""
    if not messages:
        raise ChatError("mistral-common needs at least one message; add a user message.")
    if len(messages) == 1 and messages[0].get("role") not in ("user", "system"):
        raise ChatError("mistral-common starts a conversation with a user or system message; "
                        "add one before this one.")
    _order(messages)
    if len(messages) > 1:
        _last(messages[-1])
    if version not in NEW:   # (from v11 check_call_ids pairs each result with its call)
        _answered(messages)
    for i, m in enumerate(messages):
        _content(i, m, version, i == len(messages) - 1)
    for t in tools or ():
        fn = t.get("function", t) if isinstance(t, dict) else {}
        _parameters(fn)
        _name(fn.get("name"), "a tool's function")


def _order(messages: list[dict]) -> None:
    for i in range(1, len(messages)):
        prev, cur = messages[i - 1].get("role"), messages[i].get("role")
        if prev in _NEXT and cur not in _NEXT[prev]:
            raise ChatError(f"message {i + 1}: mistral-common does not accept a {cur} message "
                            f"after a {prev} one.")


def _last(last: dict) -> None:
    # (a system message may come last: mistral-common only refuses an assistant answer)
    if last.get("role") == "assistant" and not last.get("prefix"):
        raise ChatError("mistral-common renders a prompt, which does not end with an "
                        "assistant's answer: add a user or tool message after it, or give it "
                        "\"prefix\": true to continue it.")


def _answered(messages: list[dict]) -> None:
    """Below v11: as many tool results as the assistant turn before made calls, before
    the next assistant turn (from the second message, as mistral-common counts)."""
    expected = 0
    for i, m in enumerate(messages[1:], 1):
        if m.get("role") == "tool":
            expected -= 1
        elif m.get("role") == "assistant":
            if expected > 0:
                raise ChatError(f"message {i + 1}: the tool calls before this assistant "
                                "message have not all got their results; add the missing "
                                "tool messages.")
            if expected < 0:
                raise ChatError(f"message {i + 1}: more tool results came before this "
                                "assistant message than the assistant turn before made "
                                "calls; remove the extra tool messages.")
            expected = len(m.get("tool_calls") or ())


def _content(i: int, m: dict, version: str, last: bool) -> None:
    """One message's own checks: an assistant message has content or tool calls (below
    v7 not both), each call names its function, a result its tool; ids from v3."""
    role = m.get("role")
    if role == "assistant":
        if m.get("prefix") and not last:
            raise ChatError(f"message {i + 1}: only the last message may be an assistant one "
                            "with \"prefix\": true (the answer to continue); remove "
                            "\"prefix\" or the messages after it.")
        calls = m.get("tool_calls")
        if version in ("v1", "v2", "v3") and bool(m.get("content")) == bool(calls):
            raise ChatError(f"message {i + 1}: below v7 an assistant message has content or "
                            "tool calls, one of them; give one.")
        for tc in calls or ():
            fn = tc.get("function") if isinstance(tc, dict) else None
            _name((fn or {}).get("name"), f"message {i + 1}: a tool call's function")
    elif role == "tool" and m.get("name") is not None:
        _name(m.get("name"), f"message {i + 1}: a tool result's")
    if version != "v1" and version != "v2":
        check_ids(i, m, version)


def _parameters(fn: dict) -> None:
    """A tool's "parameters": a JSON object that is a valid draft-7 JSON Schema, as every
    version of mistral-common checks it (its Function model takes an object, then
    jsonschema's Draft7Validator.check_schema judges it). Absent or null is {}, as
    mistral-common reads an OpenAI tool (Function.from_openai)."""
    params = fn.get("parameters")
    if params is None:
        return
    tool = f"tool {fn.get('name')!r}"
    if not isinstance(params, dict):
        raise ChatError(f"{tool}: \"parameters\" is {show(params)}, not a JSON object; "
                        "mistral-common takes a JSON Schema object there, e.g. "
                        "{\"type\": \"object\", \"properties\": {}}.")
    problem = schema_problem(params)
    if problem is not None:
        raise ChatError(f"{tool}: \"parameters\" is not a valid JSON Schema (draft 7), which "
                        f"mistral-common requires: at {problem}. Correct that value or "
                        "remove the keyword.")


def _name(name: Any, what: str) -> None:
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise ChatError(f"{what} name is {name!r}; mistral-common takes 1 to 64 letters, "
                        "digits, '_' or '-'.")


def one_result_per_turn(messages: list[dict], last_user: int) -> None:
    """v2's limit: after the last user message, an assistant turn with tool calls is
    followed by one tool result at most."""
    calls, results = False, 0
    for m in messages[max(last_user, 0):]:
        if m["role"] == "assistant":
            calls, results = bool(m["tool_calls"]), 0
        elif m["role"] == "tool":
            results += calls
            if results > 1:
                raise ChatError(f"message {m['index'] + 1}: mistral-common's v2 format takes "
                                "one tool result per assistant turn; merge the results or use "
                                "a v3 or later tokenizer.")
        else:
            calls, results = False, 0
