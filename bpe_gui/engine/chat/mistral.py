"""mistral-common's instruct formats, written from its rules (``encode_chat_completion``):
v1, v2, v3, v7 on SentencePiece files and tekken, v11 and v13 on tekken.

The request is normalized as mistral-common normalizes it: runs of messages of one role
are joined (text by a blank line, tool calls one after another), tool-call arguments and
tool results re-serialized as JSON; below v7 the system messages become one system
prompt, put before the first user message (v1) or the last one (v2, v3), and a
conversation not opening with a user message gets an empty one; from v7 each system
message stays where it is, between ``[SYSTEM_PROMPT]`` and ``[/SYSTEM_PROMPT]``, and a
tool result's text is sent as it is. From v11 each tool call is ``[TOOL_CALLS]`` name
``[ARGS]`` arguments (v11 with ``[CALL_ID]`` id between) and a run of tool results is
put in the order of the calls (mistral_tools.py); v13 leaves the ids out, puts the tools
before the first user message and renders thinking chunks between ``[THINK]`` and
``[/THINK]``. Text is encoded with no control tokens recognised (typed ``[INST]`` stays
text), as mistral-common encodes it. The version comes from the file: a SentencePiece
file's name (``tokenizer.model.v3``), a tekken.json's ``config.version``; v15 and later
(model settings) are refused by name.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .conversation import ChatError
from .mistral_checks import one_result_per_turn, validate
from .mistral_tools import NEW, add_chunks, check_call_ids, chunk_pieces, sort_results, tool_calls
from .mistral_tools import tool_result
from .pieces import described, ordinary, Piece, joined, special
from .tokens import TEMPLATE

VERSIONS = ("v1", "v2", "v3", "v7", "v11", "v13")
OLD = ("v1", "v2", "v3")   # one system prompt, put into a user message


def version_of(path: str | Path) -> str:
    """The instruct version of a mistral-common tokenizer file: 'tokenizer.model.v3' ->
    'v3', 'mistral_instruct_tokenizer_241114.model.v7m1' -> 'v7', a tekken.json's
    config.version; an unsuffixed SentencePiece file is v1."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        try:
            got = json.loads(p.read_text(encoding="utf-8")).get("config", {}).get("version")
        except (OSError, ValueError, AttributeError):
            got = None
        if not isinstance(got, str):
            raise ChatError(f"{p}: a tekken.json names its version in config.version; this one "
                            "does not.")
        return _known(got, p)
    m = re.search(r"\.model\.(v\d+)", p.name)
    return _known(m.group(1), p) if m else "v1"


def _known(v: str, p: Path) -> str:
    if v in VERSIONS:
        return v
    if re.fullmatch(r"v\d+", v) and int(v[1:]) > 13:
        raise ChatError(f"{p}: instruct version {v}, which this app does not render yet "
                        f"(it renders {', '.join(VERSIONS)}).")
    older = max((x for x in VERSIONS if int(x[1:]) <= int(v[1:])), key=lambda x: int(x[1:]))
    return older


_MEDIA = ("image", "image_url", "input_audio", "audio", "audio_url")


def _chunks(content: Any, version: str, role: str) -> list:
    """A message's text parts (strings) and, from v13 in assistant and system messages,
    its thinking chunks ((thinking, closed)). Image and audio chunks are refused: media
    go through the model's own image or audio encoder, which is not here."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        raise ChatError("a message's content must be text or a list of text parts.")
    out: list = []
    for c in content:
        kind = c.get("type", "text") if isinstance(c, dict) else None
        if kind == "thinking":
            if version != "v13":
                raise ChatError("a thinking chunk needs a tokenizer with [THINK] tokens "
                                f"(mistral-common v13 on); {version} has none: send the "
                                "thinking as text or drop it.")
            if role not in ("assistant", "system"):
                raise ChatError(f"a {role} message takes no thinking chunk in mistral-common; "
                                "only assistant and system messages do.")
            out.append((str(c.get("thinking", "")), bool(c.get("closed", True))))
            continue
        if kind in _MEDIA:
            raise ChatError(f"a {kind} chunk is not rendered here: mistral-common encodes "
                            "images and audio with the model's own encoder; send text parts.")
        if kind != "text":
            raise ChatError(f"a content part is {{\"type\": \"text\", \"text\"}}, not {kind!r}.")
        if c.get("text"):
            out.append(c["text"])
    return out


def _json_norm(content: str | None) -> str:
    if not content:
        return "{}"
    try:
        return json.dumps(json.loads(content), ensure_ascii=False)
    except ValueError:
        return content


def _call(tc: dict) -> dict:
    fn = tc.get("function") or {}
    args = fn.get("arguments")
    if not isinstance(args, str):
        args = json.dumps(args if args is not None else {}, ensure_ascii=False)
    return {"id": tc.get("id"), "name": fn.get("name", ""), "arguments": _json_norm(args)}


def normalize(messages: list[dict], version: str
              ) -> tuple[list[dict], list[tuple[str, int]]]:
    """(messages with runs of one role joined, the system prompts below v7 as (text,
    index)). Each message keeps ``index`` (its first source message) and ``parts``
    ((text, index) of each source message's text)."""
    out: list[dict] = []
    system: list[tuple[str, int]] = []
    cut = False
    for i, m in enumerate(messages):
        role = m.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            raise ChatError(f"message {i + 1}: mistral-common knows the roles system, user, "
                            f"assistant and tool, not {role!r}.")
        chunks = _chunks(m.get("content"), version, role)
        text = "\n\n".join(c for c in chunks if isinstance(c, str) and c)
        if role == "system" and version in OLD:
            if text:
                system.append((text, i))
            cut = True   # (a run of one role ends here: the next message starts its own)
            continue
        last = None if cut or not out else out[-1]
        cut = False
        if role == "tool":
            out.append({"role": "tool", "index": i,
                        "content": _json_norm(text) if version in OLD else text,
                        "tool_call_id": m.get("tool_call_id"), "name": m.get("name")})
        elif last is not None and last["role"] == role and role in ("user", "assistant"):
            if text:
                if last["content"]:
                    last["parts"].append(("\n\n", None))
                last["parts"].append((text, i))
                last["content"] = last["content"] + "\n\n" + text if last["content"] else text
            last["tool_calls"] += [_call(tc) for tc in m.get("tool_calls") or ()]
            last["prefix"] = last["prefix"] or bool(m.get("prefix"))
            add_chunks(last["segments"], chunks, i)
        else:
            out.append({"role": role, "index": i, "content": text, "parts": [(text, i)],
                        "tool_calls": [_call(tc) for tc in m.get("tool_calls") or ()],
                        "prefix": bool(m.get("prefix")), "segments": []})
            add_chunks(out[-1]["segments"], chunks, i)
    if version in NEW:
        sort_results(out)
    if version in OLD and (not out or out[0]["role"] != "user"):
        out.insert(0, {"role": "user", "index": None, "content": "", "parts": [],
                       "tool_calls": [], "prefix": False, "segments": []})
    return out, system


def _tools_json(tools: list[dict]) -> str:
    """The tools as mistral-common dumps its Tool models (type, then the function's
    name, description, parameters)."""
    out = []
    for t in tools:
        fn = t.get("function", t)
        out.append({"type": t.get("type", "function"),
                    "function": {"name": fn.get("name", ""),
                                 "description": fn.get("description", ""),
                                 "parameters": _or_empty(fn.get("parameters"))}})
    return json.dumps(out, ensure_ascii=False)


def _or_empty(params: Any) -> Any:
    """A tool's parameters, absent or null read as {} (mistral-common's Function.from_openai)."""
    return {} if params is None else params


def _system_parts(system: list[tuple[str, int]]) -> list[tuple[str, str, int | None, str]]:
    """The system prompts joined by blank lines, then a blank line (mistral-common's
    system prompt before a user message's text)."""
    out: list[tuple[str, str, int | None, str]] = []
    for k, (text, i) in enumerate(system):
        if k:
            out.append(("\n\n", TEMPLATE, None, ""))
        out.append((text, "system", i, "content"))
    return out + [("\n\n", TEMPLATE, None, "")] if out else out


def _user(m: dict, version: str, system: list[tuple[str, int]], first: bool, last: bool,
          tools: list[dict] | None) -> list[Piece]:
    """``last``: the tools go here (the last user message, from v13 the first), and
    below v7 the system prompt."""
    mine = [(t, TEMPLATE if k is None else "user", k, "content") for t, k in m["parts"]]
    if version == "v1":   # one encode of "[INST] system\n\ncontent [/INST]"
        sys_parts = _system_parts(system) if first else []
        return [joined(("[INST] ", TEMPLATE, None, ""), *sys_parts, *mine,
                       (" [/INST]", TEMPLATE, None, ""))]
    out: list[Piece] = []
    if last and tools:
        out += [special("[AVAILABLE_TOOLS]"), Piece(_tools_json(tools), role="tools",
                                                     origin="tools"),
                special("[/AVAILABLE_TOOLS]")]
    out.append(special("[INST]"))
    if last and system and version in OLD:
        # one encode of "system\n\ncontent", as mistral-common encodes it
        out.append(joined(*_system_parts(system), *mine))
    else:
        out.append(joined(*mine))
    out.append(special("[/INST]"))
    return out


def _assistant(m: dict, version: str, before_last_user: bool) -> list[Piece]:
    src = dict(role="assistant", message=m["index"])
    calls, content = m["tool_calls"], m["content"]
    thinks = any(seg[0] == "think" for seg in m["segments"])
    if not calls and not content and not thinks:
        raise ChatError(f"message {(m['index'] or 0) + 1}: an assistant message needs content "
                        "or tool calls for mistral-common.")
    if calls and content and version in OLD:
        raise ChatError(f"message {(m['index'] or 0) + 1}: below v7 an assistant message has "
                        "content or tool calls, not both.")
    out: list[Piece] = []
    if thinks:   # content as chunks: each encoded on its own, nothing stripped
        out += chunk_pieces(m["segments"], "assistant")
    elif content:   # (v2 on: trailing spaces dropped)
        parts = [(t, TEMPLATE if k is None else "assistant", k, "content") for t, k in m["parts"]]
        if version != "v1":
            parts[-1] = (parts[-1][0].rstrip(" "),) + parts[-1][1:]
        out.append(joined(*parts))
    if calls and not (version == "v2" and before_last_user):
        out += tool_calls(calls, version, src)
    elif calls:
        return []
    if not m["prefix"]:
        out.append(special("</s>"))
    return out


def _system(m: dict) -> list[Piece]:
    if any(seg[0] == "think" for seg in m["segments"]):
        body = chunk_pieces(m["segments"], "system")
    else:
        body = [Piece(m["content"], role="system", message=m["index"], origin="content")]
    return [special("[SYSTEM_PROMPT]"), *body, special("[/SYSTEM_PROMPT]")]


def mistral_pieces(body: dict, version: str) -> list[Piece]:
    """The pieces of a ChatCompletionRequest body (messages, tools) in one version."""
    if version not in VERSIONS:
        raise ChatError(f"unknown mistral-common version {version!r}; one of "
                        f"{', '.join(VERSIONS)}.")
    tools = body.get("tools") or None
    if tools and version == "v1":
        raise ChatError("mistral-common's v1 format has no tools; remove \"tools\" or use a "
                        "v2 or later tokenizer.")
    validate(list(body.get("messages") or ()), version, tools)
    if version in NEW:
        check_call_ids(list(body.get("messages") or ()), version)
    messages, system = normalize(list(body.get("messages") or ()), version)
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    first, last = (users[0], users[-1]) if users else (-1, -1)
    if version == "v2":
        one_result_per_turn(messages, last)
    out = [special("<s>")]
    for i, m in enumerate(messages):
        role = m["role"]
        if role == "user":
            # tools go before the last user message, from v13 before the first
            at_tools = i == first if version == "v13" else i == last
            out += _user(m, version, system, i == first, at_tools, tools)
        elif role == "assistant":
            out += _assistant(m, version, i < last)
        elif role == "tool":
            if version == "v1":
                raise ChatError("mistral-common's v1 format has no tool messages.")
            out += tool_result(m, version, i < last)
        else:
            out += _system(m)
    return out


def check_family(tok) -> None:
    """mistral-common renders its own files, a tekken.json or a SentencePiece
    tokenizer.model(.vN), and refuses any other ("Unrecognized tokenizer file")."""
    fmt = tok.meta.get("format") if isinstance(tok.meta, dict) else None
    if fmt not in ("tekken", "sentencepiece"):
        raise ChatError("mistral-common renders Mistral's own tokenizer files, a tekken.json "
                        "or a SentencePiece tokenizer.model.vN, and refuses any other "
                        f"(\"Unrecognized tokenizer file\"); this tokenizer is {described(tok)}. "
                        "Pick the model's tekken.json, or its own chat template.")


def encode_chat_mistral(tok, body: dict, version: str | None = None, plain_tok=None):
    """What the model sees of a ChatCompletionRequest body under mistral-common's format
    for ``tok`` (a tekken.json or a SentencePiece tokenizer.model.vN; ``version``
    overrides the file's). Text is encoded by ``plain_tok`` (default ``tok``: tekken and
    SentencePiece files read here match no control tokens in text, as mistral-common)."""
    from .pieces import assemble
    check_family(tok)
    source = tok.meta.get("source") if isinstance(tok.meta, dict) else None
    if version is None:
        if not source:
            raise ChatError("the mistral-common format needs the tokenizer's file to know its "
                            "version; open a tekken.json or tokenizer.model.vN.")
        v = tok.meta.get("version")   # a tekken.json's, read with it: not parsed again
        version = _known(v, Path(source)) if isinstance(v, str) else version_of(source)
    plain = plain_tok if plain_tok is not None else tok
    return assemble(tok, mistral_pieces(body, version), f"mistral-common {version}",
                    encode=ordinary(plain))
