"""``bpe-gui encode``: a text -> its tokens and ids (``--explain``: step by step)."""
from __future__ import annotations

import argparse
import codecs
import os
import sys
from typing import Iterable, Iterator

from .common import UsageError, isatty
from .loading import add_tokenizer_overrides, add_tokenizer_source, load_with_overrides, \
    source_line, tokenizer_path
from .explain import format_explanation
from .paths import refuse_stdout_is_stdin
from .render import RESET, render_tokens


def add_parser(sub) -> None:
    e = sub.add_parser("encode", help="encode text with a trained or imported tokenizer",
                       description="Print the tokens and ids of a text. The tokenizer is a "
                       "folder of exported files, vocab.json (with merges.txt beside it), "
                       "tokenizer.json, NAME.tiktoken, tekken.json, a GGUF model file, CLIP's "
                       "bpe_simple_vocab_16e6.txt.gz or a bpe-gui .json, recognised by content, "
                       "or a model already on this machine by name (--model; 'bpe-gui models' "
                       "lists them).")
    add_tokenizer_source(e)
    e.add_argument("text", nargs="?", default="-", metavar="TEXT",
                   help="text to encode; '-' or nothing reads standard input")
    e.add_argument("--ids-only", action="store_true", help="print only the ids")
    add_tokenizer_overrides(e)
    e.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour tokens (default: auto, when printing to a terminal)")
    e.add_argument("--explain", action="store_true", help="step by step: the pattern rule "
                   "that cut each word and why it ended there, then the merges that built its "
                   "tokens, lowest rank first")
    e.set_defaults(func=cmd_encode)


def read_input_text(text: str) -> str:
    if text != "-":
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("the TEXT argument is not valid UTF-8") from None
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"standard input is not UTF-8 (bad byte 0x{data[e.start]:02X} at byte "
                         f"offset {e.start}); convert it first, e.g. with iconv") from None


def stdin_text(chunk_bytes: int = 1 << 20) -> Iterator[str]:
    """Standard input as text, chunk by chunk (strict UTF-8; the error names the offset)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0            # bytes read before this chunk
    while True:
        data = sys.stdin.buffer.read(chunk_bytes)
        pending = len(decoder.getstate()[0])
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as e:
            at = offset - pending + e.start
            bad = (e.object[e.start:e.start + 1] or b"?")[0]
            raise UsageError(f"standard input is not UTF-8 (bad byte 0x{bad:02X} at byte "
                             f"offset {at}); convert it first, e.g. with iconv") from None
        offset += len(data)
        if text:
            yield text
        if not data:
            return


def write_ids(ids: Iterable[int], out, batch: int = 1 << 14) -> None:
    """Ids space-separated on one line, written as they come (bounded memory)."""
    sep = ""
    buf: list[str] = []
    for i in ids:
        buf.append(str(i))
        if len(buf) >= batch:
            out.write(sep + " ".join(buf))
            sep, buf = " ", []
    out.write((sep + " ".join(buf) if buf else "") + "\n")
    out.flush()


def cmd_encode(args: argparse.Namespace) -> int:
    if args.text == "-":
        refuse_stdout_is_stdin()
    tok = load_with_overrides(tokenizer_path(args), args)
    if args.ids_only and not args.explain and args.text == "-":
        # a stream of any size: ids written as they come, never the whole text held
        write_ids(tok.encode_iterable(stdin_text(), allowed_special="all"), sys.stdout)
        return 0
    text = read_input_text(args.text)
    color = args.color == "always" or (args.color == "auto" and isatty(sys.stdout)
                                       and not os.environ.get("NO_COLOR"))
    if args.explain:
        if args.ids_only:
            raise UsageError("--explain and --ids-only do not go together; pick one")
        print(format_explanation(tok.explain(text), color))
        return 0
    enc = tok.encode_with_offsets(text, allowed_special="all", add_special_tokens=False)
    if args.ids_only:
        print(" ".join(map(str, enc.ids)))
        return 0
    specials = enc.special or [False] * len(enc.ids)
    print(render_tokens(enc.tokens, specials, color))
    print(" ".join(map(str, enc.ids)))
    if color:
        n_bytes = len(text.encode("utf-8"))
        per = f", {n_bytes / len(enc.ids):.2f} bytes per token" if enc.ids else ""
        what = source_line(tok)
        print(f"\x1b[2m{len(enc.ids)} tokens, {len(text)} characters{per}"
              f"{' · ' + what if what else ''}{RESET}")
    return 0
