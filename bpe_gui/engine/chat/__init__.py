"""What the model sees: a conversation rendered as the model's own library renders it
and encoded, each token with where it came from.

Example::

    from bpe_gui.engine.chat import read_conversation, template_beside, encode_chat_jinja
    from bpe_gui.engine.formats import load_tokenizer
    tok = load_tokenizer("model/tokenizer.json")
    conv = read_conversation("conv.json")          # an OpenAI-style request body
    enc = encode_chat_jinja(tok, template_beside("model/tokenizer.json"), conv)
    enc.ids, enc.counts(), enc.injections          # ids; tokens per role; typed control tokens

Modules: ``conversation`` (the conversation, read from a request body), ``sandbox`` (a
template compiled and run as transformers runs it, time-limited), ``bounds`` (the
memory a render may take, counted as it goes), ``templates`` (where a template and its
special tokens come from), ``render`` (the rendered text and where each string landed),
``tokens`` (the encoded tokens and their origins), ``jinja_chat`` (the three together);
the renderers that are code: ``mistral`` (mistral-common's instruct versions), ``llama3``
(Meta's ChatFormat), ``harmony`` (gpt-oss), built of ``pieces``; ``renderers`` (one entry,
``encode_chat``, for all).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .conversation import ROLES, ChatError, Conversation, checked_request, \
        conversation_from_request, parse_request, read_conversation, request_of
    from .harmony import HARMONY_RENDERS
    from .jinja_chat import control_tokens, encode_chat_jinja
    from .render import Rendered, Source, Span, render_chat
    from .renderers import CODE_RENDERERS, RENDERERS, encode_chat, own_renderer
    from .sandbox import CompiledTemplate
    from .templates import TemplateSource, config_specials, read_template_file, \
        template_beside, tokenizer_specials
    from .tokens import TEMPLATE, ChatEncoding, ChatToken

__getattr__, __dir__ = lazy_face(__name__, {
    ".conversation": ("ROLES ChatError Conversation checked_request "
                      "conversation_from_request parse_request read_conversation request_of"),
    ".harmony": "HARMONY_RENDERS",
    ".jinja_chat": "control_tokens encode_chat_jinja",
    ".render": "Rendered Source Span render_chat",
    ".renderers": "CODE_RENDERERS RENDERERS encode_chat own_renderer",
    ".sandbox": "CompiledTemplate",
    ".templates": ("TemplateSource config_specials read_template_file template_beside "
                   "tokenizer_specials"),
    ".tokens": "TEMPLATE ChatEncoding ChatToken",
})

__all__ = ["CODE_RENDERERS", "HARMONY_RENDERS", "RENDERERS", "encode_chat", "ROLES", "TEMPLATE",
           "ChatEncoding", "ChatError", "ChatToken", "CompiledTemplate",
           "Conversation", "Rendered", "Source", "Span", "TemplateSource", "checked_request",
           "config_specials", "control_tokens", "conversation_from_request",
           "encode_chat_jinja", "own_renderer", "parse_request", "read_conversation", "read_template_file",
           "render_chat", "request_of", "template_beside", "tokenizer_specials"]
