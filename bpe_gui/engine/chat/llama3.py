"""Meta's Llama 3 ``ChatFormat`` (llama-models' reference code), written from its rules.

A dialog is ``<|begin_of_text|>``, then each message: a header (``<|start_header_id|>``,
the role, ``<|end_header_id|>``, "\\n\\n", the texts encoded apart), its content as
written (each text part encoded on its own), a user message's ``context`` after "\\n\\n",
an assistant's tool calls, then ``<|eom_id|>`` when ``stop_reason`` is
``end_of_message``, else ``<|eot_id|>``. Role ``tool`` is written ``ipython``. The
prompt ends with an empty assistant header for the model to answer (left out when
``add_generation_prompt`` is false; ChatFormat always writes it).

A tool call is written by ``tool_prompt_format`` (``json``, the default:
``{"type": "function", "name", "parameters"}`` as Python's json.dumps writes it;
``function_tag``; ``python_list``); the built-in tools brave_search, wolfram_alpha and
photogen as ``NAME.call(query="...")``, code_interpreter as its code after
``<|python_tag|>``. Text is plain text: typed ``<|eot_id|>`` stays text, as the
reference encoder allows no special tokens.

Messages are llama-models' ``RawMessage``: ``{"role", "content" (a string or a list of
strings and {"type": "text", "text"}), "context", "stop_reason", "tool_calls":
[{"tool_name", "arguments"}]}``; OpenAI's tool calls are read as the ToolCall they
stand for. Images are refused.
"""
from __future__ import annotations

import json
from typing import Any

from .conversation import ChatError
from .pieces import described, ordinary, Piece, special

ROLES = {"system": "system", "user": "user", "assistant": "assistant", "tool": "ipython"}
_QUERY_TOOLS = ("brave_search", "wolfram_alpha", "photogen")
_FORMATS = ("json", "function_tag", "python_list")


def _value(v: Any) -> str:
    """A python_list argument, as ChatFormat spells it."""
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (bool, int, float)) or v is None:
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_value(x)}" for k, x in v.items()) + "}"
    raise ChatError(f"a tool call's argument {v!r} is not a string, number, list or object.")


def _as_raw(call: Any) -> tuple[Any, Any]:
    """(tool_name, arguments) of llama-models' ToolCall, or of OpenAI's
    ``{"function": {"name", "arguments"}}`` read as the ToolCall it stands for (its
    arguments' JSON text parsed)."""
    if not isinstance(call, dict):
        return None, None
    fn = call.get("function")
    if not isinstance(fn, dict):
        return call.get("tool_name"), call.get("arguments", {})
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            pass
    return fn.get("name"), args


def call_text(call: dict, fmt: str, where: str) -> str:
    name, args = _as_raw(call)
    if not isinstance(name, str):
        raise ChatError(f"{where}: a tool call is {{\"tool_name\", \"arguments\"}} "
                        "(or OpenAI's {\"function\": {\"name\", \"arguments\"}}).")
    if name in _QUERY_TOOLS:
        return f'{name}.call(query="{args["query"]}")'
    if name == "code_interpreter":
        return args["code"]
    if fmt == "json":
        return json.dumps({"type": "function", "name": name, "parameters": args})
    if fmt == "function_tag":
        return f"<function={name}>{json.dumps(args)}</function>"
    if not isinstance(args, dict):
        raise ChatError(f"{where}: python_list tool calls need \"arguments\" as an object.")
    return f"[{name}(" + ", ".join(f"{k}={_value(v)}" for k, v in args.items()) + ")]"


def _texts(content: Any, where: str) -> list[str]:
    items = content if isinstance(content, list) else [content]
    out = []
    for c in items:
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, dict) and c.get("type", "text") == "text" and "text" in c:
            out.append(c["text"])
        else:
            kind = c.get("type") if isinstance(c, dict) else type(c).__name__
            raise ChatError(f"{where}: content is text here ({kind!r} is not rendered: "
                            "images need the vision model's own pipeline); send text parts.")
    return out


def _header(role: str) -> list[Piece]:
    return [special("<|start_header_id|>"), Piece(role), special("<|end_header_id|>"),
            Piece("\n\n")]


def llama3_pieces(body: dict, add_generation_prompt: bool = True) -> list[Piece]:
    """The pieces of a dialog: ``body["messages"]``; ``body["tool_prompt_format"]``."""
    fmt = body.get("tool_prompt_format") or "json"
    if fmt not in _FORMATS:
        raise ChatError(f"tool_prompt_format is one of {', '.join(_FORMATS)}, not {fmt!r}.")
    out = [special("<|begin_of_text|>")]
    for i, m in enumerate(body.get("messages") or []):
        where = f"message {i + 1}"
        given = m.get("role") if isinstance(m, dict) else m
        role = ROLES.get(given) if isinstance(given, str) else None
        if role is None:
            raise ChatError(f"{where}: Llama 3's ChatFormat knows the roles system, user, "
                            f"assistant and tool, not {given!r}.")
        who = m["role"]
        out += _header(role)
        calls = (m.get("tool_calls") or []) if who == "assistant" else []
        if calls and _as_raw(calls[0])[0] == "code_interpreter":
            out.append(special("<|python_tag|>"))
        out += [Piece(t, role=who, message=i, origin="content")
                for t in _texts(m.get("content", ""), where)]
        if who == "user" and m.get("context") is not None:
            out.append(Piece("\n\n"))
            out += [Piece(t, role=who, message=i, origin="documents")
                    for t in _texts(m["context"], where)]
        out += [Piece(call_text(c, fmt, where), role=who, message=i, origin="tool_calls")
                for c in calls]
        eom = who == "assistant" and m.get("stop_reason") == "end_of_message"
        out.append(special("<|eom_id|>" if eom else "<|eot_id|>"))
    if body.get("add_generation_prompt", add_generation_prompt):
        out += _header("assistant")
    return out


CONTROL = ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
           "<|eom_id|>", "<|python_tag|>")


def check_family(tok) -> None:
    """ChatFormat runs on Meta's Llama 3 tokenizer: one whose control tokens are all
    there, as special tokens (Meta's tokenizer.model, or a Llama 3 tokenizer.json or GGUF)."""
    missing = [t for t in CONTROL if t not in tok.special_ids]
    if missing:
        raise ChatError(f"Llama 3's ChatFormat runs on Meta's Llama 3 tokenizer (its "
                        "tokenizer.model, or a Llama 3 tokenizer.json or GGUF); this "
                        f"tokenizer is {described(tok)}, which has no {missing[0]} token. "
                        "Pick that model's tokenizer, or its own chat template.")


def encode_chat_llama3(tok, body: dict):
    """What the model sees of a dialog under Meta's ChatFormat; text is encoded as plain
    text (a control token's spelling stays text, as the reference encoder allows none)."""
    from .pieces import assemble
    check_family(tok)
    return assemble(tok, llama3_pieces(body), "llama3-meta", encode=ordinary(tok))
