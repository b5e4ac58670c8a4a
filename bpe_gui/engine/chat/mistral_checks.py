"""The requests mistral-common refuses to encode, refused here with what to change: the
order of roles, the message a prompt ends with, and v2's one tool result per turn."""
from __future__ import annotations

from .conversation import ChatError

# mistral-common's validator: the roles each role may be followed by
_NEXT = {"system": ("user", "assistant", "system"), "user": ("assistant", "system", "user"),
         "assistant": ("assistant", "user", "tool"), "tool": ("assistant", "tool", "user")}


def validate(messages: list[dict]) -> None:
    """mistral-common's checks for serving: the order of roles, and a conversation that
    ends with a user or tool message, or an assistant one with ``prefix``."""
    for i in range(1, len(messages)):
        prev, cur = messages[i - 1].get("role"), messages[i].get("role")
        if prev in _NEXT and cur not in _NEXT[prev]:
            raise ChatError(f"message {i + 1}: mistral-common does not accept a {cur} message "
                            f"after a {prev} one.")
    last = messages[-1] if messages else {}
    if last.get("role") not in ("user", "tool") and not (last.get("role") == "assistant"
                                                         and last.get("prefix")):
        raise ChatError("mistral-common renders a prompt that ends with a user or tool message "
                        "(or an assistant one with \"prefix\": true to continue it); add one.")


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
