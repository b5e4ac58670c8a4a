"""``bpe-gui chat``: a conversation as the model sees it, each token coloured by whose
text it is (``--json``: ids, tokens with their origins, counts, the rendered text)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime

from ..engine.chat import CODE_RENDERERS, HARMONY_RENDERS, ChatError, encode_chat, parse_request, \
    read_template_file, template_beside
from ..engine.display import readable
from .common import UsageError, add_quiet, isatty, json_head, no_collections, warn
from .loading import add_tokenizer_source, load_with_overrides, tokenizer_path
from .paths import refuse_special_files

MAX_CONVERSATION_BYTES = 64 << 20   # a request body; more is not a conversation

RESET = "\x1b[0m"
# a background per role; the template's own text dim, its control tokens bold
ROLE_STYLE = {"system": "\x1b[30;48;5;183m", "developer": "\x1b[30;48;5;183m",
              "user": "\x1b[30;48;5;153m", "assistant": "\x1b[30;48;5;157m",
              "tool": "\x1b[30;48;5;223m", "tools": "\x1b[30;48;5;230m",
              "documents": "\x1b[30;48;5;230m"}
SCAFFOLD = "\x1b[2;37;48;5;236m"
SPECIAL_STYLE = "\x1b[1;97;48;5;240m"
INJECTED = "\x1b[1;97;48;5;160m"


def add_parser(sub) -> None:
    c = sub.add_parser("chat", help="a conversation's exact tokens, per role",
                       description="Render a conversation as the model's own library does "
                       "(its jinja chat template, or a renderer that is code) and print each "
                       "token with whose text it is: a message's, the template's scaffolding, "
                       "or a control token. Typed control-token text that became a control "
                       "token is flagged.")
    add_tokenizer_source(c)
    c.add_argument("--template", metavar="FILE|RENDERER",
                   help="a template file (.jinja, or a JSON with chat_template), or "
                   f"{', '.join(CODE_RENDERERS)} (default: the template that comes with the "
                   "tokenizer: a GGUF's own, or tokenizer_config.json / chat_template.jinja "
                   "beside a tokenizer.json)")
    c.add_argument("--harmony-render", choices=HARMONY_RENDERS, metavar="RENDER",
                   help="with --template harmony, which of openai-harmony's renders: "
                   f"{', '.join(HARMONY_RENDERS)} (default: for completion when "
                   "add_generation_prompt is true or missing, else for training)")
    c.add_argument("--template-name", metavar="NAME",
                   help="of named templates (tool_use, rag ...), this one")
    c.add_argument("--messages", metavar="CONV.json", required=True,
                   help="the conversation: an OpenAI-style request body (messages, tools, "
                   "add_generation_prompt, continue_final_message, chat_template_kwargs, "
                   "sanitize_control_tokens); for harmony and llama3-meta that library's "
                   "message shape, for mistral-common its ChatCompletionRequest")
    c.add_argument("--date", metavar="YYYY-MM-DD",
                   help="the date strftime_now gives the template (default: now)")
    c.add_argument("--json", action="store_true", help="print JSON: ids, tokens with role "
                   "and origin, counts per role, the rendered text")
    c.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour tokens by role (default: auto, when printing to a terminal)")
    add_quiet(c, "no notes on stderr")
    c.set_defaults(func=cmd_chat, special_token=None, preset=None, pattern=None)


def _body(path: str) -> dict:
    """The request body in ``path`` ('-': standard input), read as bytes and decoded as
    strict UTF-8 whatever the locale says (the same bytes give the same body from a file
    or a pipe)."""
    if path != "-":
        refuse_special_files([path], "conversation file")
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_CONVERSATION_BYTES + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_CONVERSATION_BYTES + 1)
    except FileNotFoundError:
        raise ChatError(f"{path}: file not found. Check the path.") from None
    except OSError as e:
        raise ChatError(f"{path}: cannot be read ({e.strerror or e}).") from None
    where = "standard input" if path == "-" else path
    if len(data) > MAX_CONVERSATION_BYTES:
        raise ChatError(f"{where}: over {MAX_CONVERSATION_BYTES >> 20} MB, too big for a "
                        "conversation; check that this is the request body.")
    body = parse_request(data, where)
    return {"messages": body} if isinstance(body, list) else body


def _now(date: str | None):
    if date is None:
        return datetime.now
    try:
        fixed = datetime.fromisoformat(date)
    except ValueError:
        raise UsageError(f"--date {date!r} is not a date; write it as YYYY-MM-DD") from None
    return lambda: fixed


def cmd_chat(args: argparse.Namespace) -> int:
    if args.json and args.color == "always":
        raise UsageError("--color always colours the tokens shown, and --json shows none; "
                         "leave --color out")
    path = tokenizer_path(args)
    tok = load_with_overrides(path, args)
    body = _body(args.messages)
    renderer, template = "jinja", None
    tools = isinstance(body, dict) and bool(body.get("tools"))
    if args.harmony_render and args.template != "harmony":
        raise UsageError("--harmony-render names one of harmony's renders; add --template "
                         "harmony")
    if args.template in CODE_RENDERERS:
        renderer = args.template
    elif args.template is not None:
        refuse_special_files([args.template], "template file")
        template = read_template_file(args.template, args.template_name, tools)
    else:
        template = template_beside(path, args.template_name, tools)
    with no_collections():   # (a long prompt is a million tokens and no cycles)
        enc = encode_chat(tok, body, renderer, template, now=_now(args.date),
                          harmony=args.harmony_render)
    n_messages = len(body.get("messages") or ()) if isinstance(body, dict) else 0
    for line in warnings_of(enc):
        warn(line)
    if args.json:
        print(json.dumps({**json_head("chat"), **enc.as_json(n_messages)}, ensure_ascii=False))
        return 0
    color = args.color == "always" or (args.color == "auto" and isatty(sys.stdout)
                                       and not os.environ.get("NO_COLOR"))
    print(render_chat(enc, color))
    print(" ".join(map(str, enc.ids)))
    print(summary(enc, body.get("messages") or []))
    return 0


def render_chat(enc, color: bool) -> str:
    """The tokens, coloured by role (scaffolding dim, control tokens bold, injected
    ones red); without colour, one token a line: id, role/origin, text."""
    if not color:
        return "\n".join(f"{t.id}\t{t.role}/{t.origin}{' INJECTED' if t.injected else ''}\t"
                         f"{readable(t.piece)}" for t in enc.tokens)
    out = []
    for t in enc.tokens:
        style = INJECTED if t.injected else SPECIAL_STYLE if t.origin == "special" else \
            SCAFFOLD if t.role == "template" else ROLE_STYLE.get(t.role, SCAFFOLD)
        out.append(f"{style}{readable(t.piece)}{RESET}")
    return "".join(out)


def warnings_of(enc) -> list[str]:
    """What the user should know of the result, for stderr: each typed control token that
    became one, the engine's notes, origins found by looking the text up."""
    lines = [f"{t.role} message {(t.message or 0) + 1} typed {t.text!r}, which became "
             f"control token {t.id} (sanitize_control_tokens keeps it as text)"
             for t in enc.injections]
    lines += list(enc.notes)
    if not enc.exact_origins:
        lines.append("the template changes the messages' text (trim, slices); origins were "
                     "found by looking the text up")
    return lines


def summary(enc, messages: list) -> str:
    """Counts per role and per message, one line each."""
    lines = [f"{len(enc.tokens)} tokens ({enc.renderer}"
             f"{': ' + enc.template_origin if enc.template_origin != enc.renderer else ''})"]
    lines.append("per role: " + ", ".join(f"{r} {n}" for r, n in enc.counts().items()))
    counts = enc.message_counts(len(messages))
    for i, n in enumerate(counts):
        role = messages[i].get("role", "?") if isinstance(messages[i], dict) else "?"
        lines.append(f"  message {i + 1} ({role}): {n} tokens of its own text")
    return "\n".join(lines)
