"""OpenAI's harmony format (gpt-oss, o200k_harmony), as openai-harmony renders it.

Each message is ``<|start|>``, a header, ``<|message|>``, its content parts and
``<|end|>`` (``<|call|>`` for an assistant's message to a recipient). The header is the
role (``:NAME`` after it when named; a tool's name alone), `` to=RECIPIENT`` (not for
``all``), ``<|channel|>`` and the channel, then the content type (`` <|constrain|>json``,
the marker a control token). Each of these texts and each content part is encoded on its
own, special-token spellings as text. ``system_content`` and ``developer_content`` parts
are written by :mod:`.harmony_tools`.

The three renders are openai-harmony's (:data:`HARMONY_RENDERS`):
``render_conversation_for_completion`` ends with ``<|start|>assistant``;
``render_conversation_for_training`` ends a last assistant message on the ``final``
channel with ``<|return|>``; ``render_conversation`` ends every message with ``<|end|>``
(or ``<|call|>``). Unnamed, ``add_generation_prompt`` picks the first (true, the default)
or the second. When the last assistant message is ``final``, analysis messages before the
first final one are dropped (``auto_drop_analysis``, true unless the body says false).

The tokenizer is tiktoken's o200k_harmony: OpenAI publishes no file of its own for it.
openai-harmony loads ``o200k_base.tiktoken`` and adds the harmony special tokens, as
tiktoken's ``o200k_harmony`` adds them to o200k_base's ranks (:func:`harmony_tokenizer`);
a tokenizer that already has them (a tokenizer.json of gpt-oss) is used as it is.

Messages are openai-harmony's JSON shape (``role``, ``name``, ``content`` a string or a
list of ``{"type": "text", "text"}``, ``system_content`` or ``developer_content`` parts,
``channel``, ``recipient``, ``content_type``).
"""
from __future__ import annotations

from typing import Any

from .conversation import ChatError
from .harmony_tools import developer_text, has_function_tools, system_text
from .pieces import described, ordinary, Piece, special

_ROLES = ("system", "developer", "user", "assistant", "tool")
_PART_ROLE = {"system_content": "system", "developer_content": "developer"}
HARMONY_RENDERS = ("render_conversation_for_completion", "render_conversation_for_training",
           "render_conversation")


def _content(m: dict, i: int, role: str, function_tools: bool) -> list[Piece]:
    """The message's parts, each a piece encoded on its own."""
    content: Any = m.get("content")
    if isinstance(content, str) or isinstance(content, dict):
        content = [content]
    where = f"message {i + 1}"
    out = []
    for part in content or ():
        if isinstance(part, str):
            part = {"type": "text", "text": part}
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in _PART_ROLE and role != _PART_ROLE[kind]:
            raise ChatError(f"{where}: {kind} belongs in a {_PART_ROLE[kind]} message, "
                            f"not a {role} one.")
        if kind == "text":
            text = part.get("text", "")
        elif kind == "system_content":
            text = system_text(part, function_tools, where)
        elif kind == "developer_content":
            text = developer_text(part, where)
        else:
            raise ChatError(f"{where}: harmony content parts are text, system_content "
                            f"or developer_content, not {kind!r}.")
        origin = "tool_calls" if m.get("recipient") and role == "assistant" else "content"
        out.append(Piece(text, role=role, message=i, origin=origin))
    return out


def _header(m: dict, i: int, role: str) -> list[Piece]:
    if role == "tool":
        if not m.get("name"):
            raise ChatError(f"message {i + 1}: a tool message needs the tool's \"name\" "
                            "(such as functions.get_weather).")
        out = [special("<|start|>"), Piece(m["name"])]
    else:
        out = [special("<|start|>"), Piece(role)]
        if m.get("name"):
            out.append(Piece(f":{m['name']}"))
    if m.get("recipient") and m["recipient"] != "all":
        out.append(Piece(f" to={m['recipient']}"))
    if m.get("channel"):
        out += [special("<|channel|>"), Piece(m["channel"])]
    ctype = m.get("content_type")
    if ctype:
        if ctype.startswith("<|constrain|>"):
            out += [Piece(" "), special("<|constrain|>"), Piece(ctype[len("<|constrain|>"):])]
        else:
            out.append(Piece(f" {ctype}"))
    return out


def _kept(messages: list, auto_drop_analysis: bool) -> list[tuple[int, dict]]:
    """The messages rendered: analysis ones before the first final are dropped when the
    last assistant message is final."""
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
    drop = auto_drop_analysis and last is not None and last.get("channel") == "final"
    first_final = next((k for k, m in enumerate(messages) if m.get("channel") == "final"),
                       None)
    return [(k, m) for k, m in enumerate(messages)
            if not (drop and first_final is not None and k < first_final
                    and m.get("channel") == "analysis")]


def harmony_pieces(body: dict, render: str | None = None) -> list[Piece]:
    """The pieces of one of openai-harmony's :data:`HARMONY_RENDERS` (None: by
    ``add_generation_prompt``)."""
    completion, training, _ = HARMONY_RENDERS
    if render is None:
        render = completion if body.get("add_generation_prompt", True) else training
    elif render not in HARMONY_RENDERS:
        raise ChatError(f"harmony renders with {', '.join(HARMONY_RENDERS)}, not {render!r}.")
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in _ROLES:
            raise ChatError(f"message {i + 1}: harmony's roles are {', '.join(_ROLES)}, not "
                            f"{m.get('role') if isinstance(m, dict) else m!r}.")
    function_tools = has_function_tools(messages)
    out: list[Piece] = []
    for i, m in _kept(messages, body.get("auto_drop_analysis", True) is not False):
        role = m["role"]
        out += _header(m, i, role)
        out.append(special("<|message|>"))
        out += _content(m, i, role, function_tools)
        out.append(special("<|call|>" if m.get("recipient") and role == "assistant"
                           else "<|end|>"))
    if render == completion:
        out += [special("<|start|>"), Piece("assistant")]
    elif render == training and messages and messages[-1].get("role") == "assistant" \
            and messages[-1].get("channel") == "final" and out:
        out[-1] = special("<|return|>")
    return out


# tiktoken's o200k_harmony: o200k_base's ranks and pattern, these special tokens named,
# every other id from 200000 to 201087 a reserved one (o200k_base's <|endofprompt|> kept)
_NAMED = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|return|>": 200002,
          "<|constrain|>": 200003, "<|channel|>": 200005, "<|start|>": 200006,
          "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012}
_RESERVED = range(200000, 201088)
CONTROL = ("<|start|>", "<|message|>", "<|end|>", "<|channel|>", "<|constrain|>",
           "<|return|>", "<|call|>")
_built: dict[tuple, Any] = {}


def o200k_harmony_specials() -> dict[str, int]:
    taken = set(_NAMED.values())
    out = {"<|endofprompt|>": 200018}
    out.update({f"<|reserved_{i}|>": i for i in _RESERVED if i not in taken})
    out.update(_NAMED)
    return out


def _has_harmony(tok) -> bool:
    return all(tok.special_ids.get(t) == _NAMED[t] for t in CONTROL)


def harmony_tokenizer(tok):
    """The tokenizer harmony renders with: ``tok`` if it has the harmony tokens at their
    ids, o200k_base (recognised by content) with o200k_harmony's special tokens added,
    else a ChatError saying which file harmony needs."""
    if _has_harmony(tok):
        return tok
    meta = tok.meta if isinstance(tok.meta, dict) else {}
    source = meta.get("source")
    if meta.get("encoding") != "o200k_base" or not source:
        raise ChatError(f"harmony is the format of OpenAI's gpt-oss, whose tokenizer is "
                        f"o200k_harmony: open o200k_base.tiktoken (openai-harmony adds the "
                        f"harmony tokens to it, as here); this tokenizer is {described(tok)}.")
    from pathlib import Path
    path = Path(source)
    try:
        st = path.stat()
    except OSError as e:
        raise ChatError(f"{path}: cannot be read again to add harmony's tokens ({e}).") \
            from None
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _built:
        from ..formats.known_encodings import recognise
        from ..io.reading import read_bytes
        from ..tokenizers.imported.ranks import load_ranks
        data = read_bytes(path, "ranks")
        known = recognise(data)
        if known is None or known.name != "o200k_base":
            raise ChatError(f"{path} changed since it was opened: it is no longer OpenAI's "
                            "o200k_base.tiktoken; open it again.")
        _built.clear()   # (one at a time: each holds o200k's tables)
        _built[key] = load_ranks(path, data, pattern=known.pat_str,
                                 specials=o200k_harmony_specials(),
                                 meta={**meta, "name": "o200k_harmony",
                                       "encoding": "o200k_harmony",
                                       "encoding_label": "o200k_harmony (gpt-oss: "
                                                         "o200k_base + harmony's tokens)"})
    return _built[key]


def encode_chat_harmony(tok, body: dict, render: str | None = None):
    """What the model sees of a harmony conversation, rendered as openai-harmony's
    ``render`` (:data:`HARMONY_RENDERS`); text is encoded as plain text (a special token's
    spelling stays text, as openai-harmony encodes it)."""
    from .pieces import assemble
    tok = harmony_tokenizer(tok)
    return assemble(tok, harmony_pieces(body, render), "harmony", encode=ordinary(tok))
