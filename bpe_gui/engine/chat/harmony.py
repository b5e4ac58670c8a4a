"""OpenAI's harmony format (gpt-oss, o200k_harmony), written from its published spec.

Each message is ``<|start|>`` header ``<|message|>`` content and ``<|end|>`` (``<|call|>``
for an assistant's tool call); the header is the author (the role, or a tool's name such
as ``functions.get_weather``), `` to=RECIPIENT``, ``<|channel|>`` and the channel, and
`` <|constrain|>`` with the content type. A prompt for completion ends with
``<|start|>assistant``. A system message's ``system_content`` is written as the spec
shows: the model identity, knowledge cutoff, current date, reasoning effort and the
valid channels. Messages are openai-harmony's own JSON shape (``role``, ``name``,
``content`` as a list of ``{"type": "text", "text"}`` or one ``system_content``,
``channel``, ``recipient``, ``content_type``); plain strings are read as text too.
Tool definitions inside ``developer_content`` (its TypeScript rendering) are refused.
"""
from __future__ import annotations

from typing import Any

from .conversation import ChatError
from .pieces import ordinary, Piece, special

_ROLES = ("system", "developer", "user", "assistant", "tool")


def _system_text(c: dict) -> str:
    lines = [c.get("model_identity")
             or "You are ChatGPT, a large language model trained by OpenAI."]
    if c.get("knowledge_cutoff"):
        lines.append(f"Knowledge cutoff: {c['knowledge_cutoff']}")
    if c.get("conversation_start_date"):
        lines.append(f"Current date: {c['conversation_start_date']}")
    text = "\n".join(lines)
    effort = c.get("reasoning_effort")
    if effort:
        text += f"\n\nReasoning: {str(effort).lower()}"
    channels = (c.get("channel_config") or {}).get("valid_channels")
    if channels:
        text += f"\n\n# Valid channels: {', '.join(channels)}. Channel must be included for " \
                "every message."
    return text


def _content(m: dict, i: int) -> str:
    content: Any = m.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    out = []
    for part in content or ():
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            out.append(part.get("text", ""))
        elif kind == "system_content":
            out.append(_system_text(part))
        elif kind == "developer_content":
            if part.get("tools"):
                raise ChatError(f"message {i + 1}: tool definitions in developer_content are "
                                "not rendered here yet; describe them in the text instead.")
            out.append("# Instructions\n\n" + (part.get("instructions") or ""))
        else:
            raise ChatError(f"message {i + 1}: harmony content parts are text, system_content "
                            f"or developer_content, not {kind!r}.")
    return "".join(out)


def harmony_pieces(body: dict, add_generation_prompt: bool = True) -> list[Piece]:
    out: list[Piece] = []
    for i, m in enumerate(body.get("messages") or ()):
        role = m.get("role")
        if role not in _ROLES:
            raise ChatError(f"message {i + 1}: harmony's roles are {', '.join(_ROLES)}, not "
                            f"{role!r}.")
        author = m.get("name") if role == "tool" and m.get("name") else role
        header = [special("<|start|>"), Piece(author)]
        recipient, channel = m.get("recipient"), m.get("channel")
        if recipient and role != "assistant":
            header.append(Piece(f" to={recipient}"))
        if channel:
            header += [special("<|channel|>"), Piece(channel)]
        if recipient and role == "assistant":
            header.append(Piece(f" to={recipient}"))
        if m.get("content_type"):
            ctype = str(m["content_type"]).replace("<|constrain|>", "")
            header += [Piece(" "), special("<|constrain|>"), Piece(ctype)]
        out += header
        out.append(special("<|message|>"))
        out.append(Piece(_content(m, i), role=role, message=i,
                         origin="tool_calls" if recipient and role == "assistant" else "content"))
        out.append(special("<|call|>" if recipient and role == "assistant" else "<|end|>"))
    if body.get("add_generation_prompt", add_generation_prompt):
        out += [special("<|start|>"), Piece("assistant")]
    return out


def encode_chat_harmony(tok, body: dict, plain_tok=None):
    """What the model sees of a harmony conversation; text is encoded as plain text
    (``plain_tok``, default ``tok``'s file read again without special tokens)."""
    from .jinja_chat import plain_reloaded
    from .pieces import assemble
    plain = plain_tok if plain_tok is not None else (
        plain_reloaded(tok)() if tok.special_tokens else tok)
    return assemble(tok, harmony_pieces(body), "harmony", encode=ordinary(plain))
