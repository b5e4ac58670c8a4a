"""Meta's Llama 3 ``ChatFormat`` (llama-models' reference code), written from its rules.

A dialog is ``<|begin_of_text|>``, then each message as a header
(``<|start_header_id|>`` role ``<|end_header_id|>`` and "\\n\\n", each encoded on its own)
and its content stripped of surrounding whitespace, closed by ``<|eot_id|>``; the prompt
ends with an empty assistant header for the model to answer. Role ``tool`` is written
``ipython``, as Llama 3.1 names tool results; an assistant's tool calls are its content
as JSON (``{"name": ..., "parameters": ...}``, the JSON tool-prompt format) closed by
``<|eom_id|>``. Text is encoded as plain text: the reference encoder allows no special
tokens in it (typed ``<|eot_id|>`` stays text).

Messages are llama-models' own shape: ``{"role", "content", "tool_calls":
[{"tool_name", "arguments"}]}`` (OpenAI's ``function.name``/``arguments`` read too).
"""
from __future__ import annotations

import json
from typing import Any

from .conversation import ChatError
from .pieces import ordinary, Piece, special

ROLES = {"system": "system", "user": "user", "assistant": "assistant", "tool": "ipython",
         "ipython": "ipython"}


def _calls_json(calls: list[dict]) -> str:
    out = []
    for c in calls:
        fn = c.get("function", c)
        name = fn.get("tool_name", fn.get("name", ""))
        args: Any = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                pass
        out.append(json.dumps({"name": name, "parameters": args}, ensure_ascii=False))
    return "".join(out)


def llama3_pieces(body: dict, add_generation_prompt: bool = True) -> list[Piece]:
    """The pieces of a dialog: ``body["messages"]``; the assistant header at the end
    unless ``add_generation_prompt`` is False (ChatFormat always adds it)."""
    messages = body.get("messages") or []
    out = [special("<|begin_of_text|>")]
    for i, m in enumerate(messages):
        role = ROLES.get(m.get("role"))
        if role is None:
            raise ChatError(f"message {i + 1}: Llama 3's ChatFormat knows the roles system, "
                            f"user, assistant and tool (ipython), not {m.get('role')!r}.")
        out += [special("<|start_header_id|>"), Piece(role), special("<|end_header_id|>"),
                Piece("\n\n")]
        content = m.get("content") or ""
        if not isinstance(content, str):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        calls = m.get("tool_calls") or []
        origin_role = "tool" if role == "ipython" else role
        if calls:
            out.append(Piece(_calls_json(calls), role=origin_role, message=i,
                             origin="tool_calls"))
            out.append(special("<|eom_id|>"))
            continue
        out.append(Piece(content.strip(), role=origin_role, message=i, origin="content"))
        out.append(special("<|eot_id|>"))
    if body.get("add_generation_prompt", add_generation_prompt):
        out += [special("<|start_header_id|>"), Piece("assistant"),
                special("<|end_header_id|>"), Piece("\n\n")]
    return out


def encode_chat_llama3(tok, body: dict, plain_tok=None):
    """What the model sees of a dialog under Meta's ChatFormat; text is encoded by
    ``plain_tok`` (default: ``tok``'s file read again without special tokens)."""
    from .jinja_chat import plain_reloaded
    from .pieces import assemble
    plain = plain_tok if plain_tok is not None else (
        plain_reloaded(tok)() if tok.special_tokens else tok)
    return assemble(tok, llama3_pieces(body), "llama3-meta", encode=ordinary(plain))
