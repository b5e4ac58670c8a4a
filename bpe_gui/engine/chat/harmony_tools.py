"""Harmony's text for a system or developer message's structured content: the
``system_content`` sections (identity, dates, reasoning effort, tools, channels), the
``developer_content`` ones (instructions, tools), and a tool namespace with each
function's JSON-schema parameters written as a TypeScript type, as openai-harmony
writes them. A schema that uses ``oneOf`` is refused (its layout is not written here).
"""
from __future__ import annotations

import json
from typing import Any

from .conversation import ChatError

IDENTITY = "You are ChatGPT, a large language model trained by OpenAI."
CHANNELS = ["analysis", "commentary", "final"]
_EFFORTS = ("low", "medium", "high")


def _default_comment(schema: dict) -> str:
    """The ``default: ...`` note: a plain string quoted, an enum's string or any other
    value bare (JSON)."""
    value = schema["default"]
    if isinstance(value, str):
        return f'default: "{value}"' if not schema.get("enum") else f"default: {value}"
    return "default: " + json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def typescript(schema: Any, indent: str = "") -> str:
    """A JSON schema as the TypeScript type harmony shows the model."""
    if not isinstance(schema, dict):
        return "any"
    if "oneOf" in schema:
        raise ChatError("a tool parameter uses 'oneOf', which the harmony renderer here does "
                        "not write; describe the alternatives in the text instead.")
    kind = schema.get("type")
    if isinstance(kind, list):
        names = ["number" if t == "integer" else t for t in kind if isinstance(t, str)]
        return " | ".join(names) if names else "any"
    if kind == "object":
        return _object(schema, indent)
    if kind == "string":
        values = [f'"{v}"' for v in schema.get("enum") or () if isinstance(v, str)]
        return " | ".join(values) if values else "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "array":
        return f"{typescript(schema['items'], indent)}[]" if "items" in schema \
            else "Array<any>"
    return "any"


def _object(schema: dict, indent: str) -> str:
    out = f"{indent}// {schema['description']}\n" if isinstance(
        schema.get("description"), str) else ""
    out += "{\n"
    required = {r for r in schema.get("required") or () if isinstance(r, str)}
    for key, val in (schema.get("properties") or {}).items():
        val = val if isinstance(val, dict) else {}
        if isinstance(val.get("title"), str):
            out += f"{indent}// {val['title']}\n{indent}//\n"
        if isinstance(val.get("description"), str):
            out += f"{indent}// {val['description']}\n"
        examples = val.get("examples")
        if isinstance(examples, list) and examples:
            out += f"{indent}// Examples:\n"
            out += "".join(f'{indent}// - "{e}"\n' for e in examples if isinstance(e, str))
        kind = typescript(val, indent + "    ")
        if val.get("nullable") is True and "null" not in kind:
            kind += " | null"
        out += f"{indent}{key}{'' if key in required else '?'}: {kind},"
        if "default" in val:
            out += " // " + _default_comment(val)
        out += "\n"
    return out + f"{indent}}}"


def tools_section(namespaces: dict) -> str:
    """``# Tools`` and each namespace (in name order): its description, then its
    functions in a ``namespace`` block, each ``type NAME = (_: PARAMS) => any;``."""
    sections = ["# Tools"]
    for _, ns in sorted(namespaces.items()):
        tools = ns.get("tools") or []
        lines = [f"## {ns['name']}\n"]
        for line in (ns.get("description") or "").splitlines():
            lines.append(f"// {line}" if tools else line)
        if tools:
            lines.append(f"namespace {ns['name']} {{\n")
            for tool in tools:
                lines += [f"// {line}" for line in (tool.get("description") or "").splitlines()]
                params = tool.get("parameters")
                lines.append(f"type {tool['name']} = (_: {typescript(params)}) => any;\n"
                             if params is not None else f"type {tool['name']} = () => any;\n")
            lines.append(f"}} // namespace {ns['name']}")
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def _check_namespaces(tools: Any, where: str) -> dict:
    if tools is None:
        return {}
    ok = isinstance(tools, dict) and all(
        isinstance(ns, dict) and isinstance(ns.get("name"), str)
        and isinstance(ns.get("tools", []), list)
        and all(isinstance(t, dict) and isinstance(t.get("name"), str)
                for t in ns.get("tools", []))
        for ns in tools.values())
    if not ok:
        raise ChatError(f"{where}: 'tools' maps a namespace's key to {{\"name\", "
                        "\"description\", \"tools\": [{\"name\", \"description\", "
                        "\"parameters\"}]}.")
    return tools


def system_text(c: dict, function_tools: bool, where: str) -> str:
    """A ``system_content`` part; absent fields take openai-harmony's defaults (a
    ``null`` field leaves its line out)."""
    top = [c.get("model_identity", IDENTITY), c.get("knowledge_cutoff", "2024-06")]
    top[1] = f"Knowledge cutoff: {top[1]}" if top[1] is not None else None
    date = c.get("conversation_start_date")
    top.append(f"Current date: {date}" if date is not None else None)
    sections = ["\n".join(t for t in top if t is not None)] if any(
        t is not None for t in top) else []
    effort = c.get("reasoning_effort", "medium")
    if effort is not None:
        if str(effort).lower() not in _EFFORTS:
            raise ChatError(f"{where}: reasoning_effort is Low, Medium or High, not {effort!r}.")
        sections.append(f"Reasoning: {str(effort).lower()}")
    tools = _check_namespaces(c.get("tools"), where)
    if tools:
        sections.append(tools_section(tools))
    config = c.get("channel_config", {"valid_channels": CHANNELS, "channel_required": True})
    if config and config.get("valid_channels"):
        line = f"# Valid channels: {', '.join(config['valid_channels'])}."
        if config.get("channel_required"):
            line += " Channel must be included for every message."
        if function_tools:
            line += "\nCalls to these tools must go to the commentary channel: 'functions'."
        sections.append(line)
    return "\n\n".join(sections)


def developer_text(c: dict, where: str) -> str:
    sections = []
    if c.get("instructions") is not None:
        sections += ["# Instructions", c["instructions"]]
    tools = _check_namespaces(c.get("tools"), where)
    if tools:
        sections.append(tools_section(tools))
    return "\n\n".join(sections)


def has_function_tools(messages: list) -> bool:
    """Whether a developer message defines tools in the ``functions`` namespace (the
    system message then says where calls go)."""
    for m in messages:
        parts = m.get("content") if isinstance(m, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if isinstance(part, dict) and part.get("type") == "developer_content":
                tools = part.get("tools")
                ns = tools.get("functions") if isinstance(tools, dict) else None
                if isinstance(ns, dict) and ns.get("tools"):
                    return True
    return False
