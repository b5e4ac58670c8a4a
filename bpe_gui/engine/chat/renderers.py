"""One entry for every renderer: a request body, a tokenizer and a renderer's name
('jinja' with a template, 'mistral-common', 'harmony', 'llama3-meta') -> what the model
sees (a ChatEncoding)."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any, Callable

from .conversation import ChatError, checked_request, conversation_from_request
from .templates import TemplateSource
from .tokens import ChatEncoding

CODE_RENDERERS = ("mistral-common", "harmony", "llama3-meta")
RENDERERS = ("jinja",) + CODE_RENDERERS


def own_renderer(tok) -> str | None:
    """The renderer that is a tokenizer file's own where it brings no jinja template:
    mistral-common for Mistral's files (a tekken.json, a SentencePiece
    tokenizer.model.vN), as mistral-common is what renders them."""
    meta = tok.meta if isinstance(getattr(tok, "meta", None), dict) else {}
    if meta.get("format") == "tekken":
        return "mistral-common"
    source = str(meta.get("source") or "")
    if meta.get("format") == "sentencepiece" and re.search(r"\.model\.v\d+", source):
        return "mistral-common"
    return None


def encode_chat(tok, body: dict[str, Any], renderer: str = "jinja",
                template: TemplateSource | None = None, *,
                now: Callable[[], datetime] = datetime.now,
                version: str | None = None, harmony: str | None = None) -> ChatEncoding:
    """What the model sees of ``body`` (an OpenAI-style request body for 'jinja', the
    library's own message shape for the others). ``template``: the jinja template
    (templates.template_beside finds the one that comes with a tokenizer; without one, a
    tokenizer file's own renderer, :func:`own_renderer`, renders it); ``now``:
    what ``strftime_now`` reads; ``version``: mistral-common's, else the file's;
    ``harmony``: which of openai-harmony's renders (HARMONY_RENDERS; default: by
    ``add_generation_prompt``)."""
    if renderer == "jinja" and template is None:
        renderer = own_renderer(tok) or ""
        if not renderer:
            raise ChatError("this tokenizer comes with no chat template; pick a template file "
                            "(--template FILE) or a renderer (mistral-common, harmony, "
                            "llama3-meta).")
    if renderer == "jinja" and template is not None:
        from .jinja_chat import encode_chat_jinja
        return encode_chat_jinja(tok, template, conversation_from_request(body), now=now)
    if renderer not in CODE_RENDERERS:
        raise ChatError(f"unknown renderer {renderer!r}; one of {', '.join(RENDERERS)}.")
    body, notes = checked_request(body)
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) \
            or not body["messages"]:
        raise ChatError("the conversation must be an object with a non-empty \"messages\" list.")
    if renderer == "mistral-common":
        from .mistral import encode_chat_mistral
        enc = encode_chat_mistral(tok, body, version)
    elif renderer == "harmony":
        from .harmony import encode_chat_harmony
        enc = encode_chat_harmony(tok, body, harmony)
    else:
        from .llama3 import encode_chat_llama3
        enc = encode_chat_llama3(tok, body)
    return replace(enc, notes=notes + enc.notes) if notes else enc
