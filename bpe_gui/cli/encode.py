"""``bpe-gui encode``: texts -> their tokens and ids (``--json``: with offsets; ``--explain``:
step by step)."""
from __future__ import annotations

import argparse
import codecs
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Iterable, Iterator

from .common import examples, UsageError, add_quiet, isatty, json_head, non_negative, \
    note, threads_arg, warn
from ..engine.errors import DisallowedSpecialError
from ..engine.tokenizers import typed_separator
from ..engine.text import Pretokenizer, unmatched_sentence
from .loading import add_tokenizer_overrides, add_tokenizer_source, load_with_overrides, \
    source_line, tokenizer_name, tokenizer_path
from .explain import format_explanation
from .paths import refuse_stdout_is_stdin
from .progress import Progress
from .render import RESET, render_tokens


def add_parser(sub) -> None:
    e = sub.add_parser("encode", help="encode text with a trained or imported tokenizer",
                       description="Print the tokens and ids of a text. The tokenizer is a "
                       "folder of exported files, vocab.json (with merges.txt beside it), "
                       "tokenizer.json, NAME.tiktoken, tekken.json, a GGUF model file, CLIP's "
                       "bpe_simple_vocab_16e6.txt.gz or a bpe-gui .json, recognised by content, "
                       "or a model already on this machine by name (--model; 'bpe-gui models' "
                       "lists them).",
                       **examples("bpe-gui encode --tokenizer tok 'Hello world'",
                                  "echo 'Hello world' | bpe-gui encode --tokenizer "
                                  "tokenizer.json --ids-only",
                                  "bpe-gui encode --tokenizer cl100k_base.tiktoken --explain "
                                  "'unbelievable'",
                                  "bpe-gui encode --tokenizer gpt2 --file a.txt --file b.jsonl "
                                  "--out ids.bin"))
    add_tokenizer_source(e)
    e.add_argument("text", nargs="*", metavar="TEXT",
                   help="texts to encode, each on its own; '-' or nothing reads standard input")
    e.add_argument("--file", action="append", default=[], metavar="PATH",
                   help="encode a file's text (UTF-8), streamed: repeat for several files, "
                   "'-' is standard input")
    e.add_argument("--out", metavar="PATH", help="with --file: write the ids of the files' "
                   "documents to PATH as one flat array (uint16 when the vocabulary fits, "
                   "else uint32; numpy.memmap reads it), the end-of-text id between "
                   "documents, and PATH.json saying dtype, count and sources; ids as "
                   "encode_ordinary gives them, on every core (docs/CLI.md)")
    e.add_argument("--field", default="text", metavar="NAME", help="with --out: the field "
                   "of each .jsonl line that holds its text (default: text)")
    e.add_argument("--separator", metavar="TEXT", help="with --out: cut text files into "
                   "documents at TEXT (\\n is a line break: '\\n\\n' cuts at blank "
                   "lines); default: a whole file is one document")
    e.add_argument("--eot-id", type=non_negative, metavar="ID", help="with --out: the id "
                   "put between documents (default: the tokenizer's <|endoftext|>)")
    e.add_argument("--threads", type=threads_arg, metavar="N", help="with --out: threads "
                   "that encode (default: every core; the ids are the same for any number)")
    e.add_argument("--ids-only", action="store_true", help="print only the ids (a line per "
                   "text)")
    e.add_argument("--json", action="store_true", help='print {"schema", "tokenizer", '
                   '"encodings": [{"text", "ids", "token_strings", "offsets", "special"}]} '
                   "(docs/CLI.md)")
    e.add_argument("--allowed-special", action="append", metavar="TOKEN",
                   help="a special token whose typed text becomes its id ('all': every one; "
                   "repeat for several), as tiktoken's allowed_special. Default: as the "
                   "tokenizer's own library reads typed special text (a .tiktoken file "
                   "refuses it; tokenizer.json, GPT-2 files and tokenizers trained here read it)")
    e.add_argument("--disallowed-special", action="append", metavar="TOKEN",
                   help="a special token whose typed text is refused ('all': every one not "
                   "allowed; 'none': none, the rest read as text), as tiktoken's "
                   "disallowed_special")
    e.add_argument("--ordinary", action="store_true", help="read special tokens' text as "
                   "ordinary text and add nothing around the text (encode_ordinary)")
    e.add_argument("--add-special-tokens", action=argparse.BooleanOptionalAction,
                   default=None, help="add (or, with --no-add-special-tokens, leave out) the "
                   "tokens the format puts around a text, e.g. a tokenizer.json's BOS "
                   "(default: as the format's library does: on for tokenizer.json)")
    add_tokenizer_overrides(e)
    e.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour tokens (default: auto, when printing to a terminal)")
    e.add_argument("--explain", action="store_true", help="step by step: the pattern rule "
                   "that cut each word and why it ended there, then the merges that built its "
                   "tokens, lowest rank first")
    add_quiet(e, "no notes on stderr")
    e.set_defaults(func=cmd_encode)


def read_input_text(text: str) -> str:
    if text != "-":
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("the TEXT argument is not valid UTF-8") from None
        return text
    return "".join(stdin_text())


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


def file_text(path: str) -> Iterator[str]:
    """A file's text (or standard input's, for '-'), chunk by chunk, strict UTF-8."""
    if path == "-":
        yield from stdin_text()
        return
    from ..engine.corpus import read_text_chunks
    yield from read_text_chunks(path)


def warn_texts_naming_files(texts: list[str]) -> None:
    """A TEXT that is the path of an existing file is encoded as the text of its name:
    said, with the flag that reads the file."""
    for t in texts:
        try:
            names_file = t != "-" and "\n" not in t and Path(t).is_file()
        except (OSError, ValueError):   # not a name the system takes: not a file
            names_file = False
        if names_file:
            warn(f"{t!r} is encoded as the text of its name; it names a file: to encode "
                 f"the file's text, pass --file {shlex.quote(t)} --ids-only")


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


def policy(args: argparse.Namespace) -> dict:
    """The engine's special-token arguments for the command's flags: none given, the
    library's defaults for this kind of tokenizer (the same ids as ``encode(text)``)."""
    if args.ordinary:
        return {"disallowed_special": (), "add_special_tokens": False}
    out: dict = {}
    for flag, key in (("allowed_special", "allowed_special"),
                      ("disallowed_special", "disallowed_special")):
        given = getattr(args, flag)
        if given is None:
            continue
        if "all" in given:
            out[key] = "all"
        elif given == ["none"]:
            out[key] = ()
        else:
            out[key] = set(given)
    if args.add_special_tokens is not None:
        out["add_special_tokens"] = args.add_special_tokens
    return out


def cli_refusal(e: DisallowedSpecialError) -> UsageError:
    """The engine's refusal of typed special text, with the command's flags as the fix."""
    t = e.token
    return UsageError(f"the text holds {t!r}, the text of a special token, and this "
                      f"tokenizer reads typed special text only when asked (as tiktoken "
                      f"does). To encode it as the special token, pass --allowed-special "
                      f"{shlex.quote(t)} (or --allowed-special all); to encode it as ordinary "
                      f"text, pass --ordinary (or --disallowed-special none)")


def cmd_encode(args: argparse.Namespace) -> int:
    try:
        return _encode(args)
    except DisallowedSpecialError as e:
        raise cli_refusal(e) from None


def _encode(args: argparse.Namespace) -> int:
    files: list[str] = args.file
    if args.out is not None:
        return encode_to_file(args)
    for flag in ("separator", "eot_id", "threads"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} goes with --out PATH")
    if args.text and files:
        raise UsageError("give texts or --file, not both (a text that names a file is encoded "
                         "as the text of its name)")
    texts: list[str] = args.text or ([] if files else ["-"])
    sources = texts or files
    if sources.count("-") > 1:
        raise UsageError("'-' (standard input) can be given once")
    if "-" in sources:
        refuse_stdout_is_stdin()
    refuse_overridden_outputs(args)
    tok = load_with_overrides(tokenizer_path(args), args)
    if files and (args.explain or args.json or not args.ids_only):
        raise UsageError("--file streams a file's ids: give --ids-only (for --json or "
                         "--explain, give the text itself, e.g. \"$(cat FILE)\")")
    if (files or texts == ["-"]) and args.ids_only and not args.explain and not args.json:
        # a stream of any size: ids written as they come, never the whole text held
        for path in files or ["-"]:
            write_ids(tok.encode_iterable(file_text(path), **policy(args)), sys.stdout)
        return 0
    warn_texts_naming_files(texts)
    given = [read_input_text(t) for t in texts]
    if args.explain:
        if args.ids_only or args.json:
            raise UsageError("--explain does not go with --ids-only or --json; pick one")
        for text in given:
            print(format_explanation(tok.explain(text), use_color(args)))
        return 0
    warn_unmatched_texts(tok, given)
    encs = [tok.encode_with_offsets(text, **policy(args)) for text in given]
    if args.json:
        out = {**json_head("encode", 2), "tokenizer": tokenizer_name(args),
               "encodings": [encoding_json(text, enc, tok) for text, enc in zip(given, encs)]}
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    for text, enc in zip(given, encs):
        print_encoding(text, enc, tok, args)
    return 0


def encode_to_file(args: argparse.Namespace) -> int:
    """``--file ... --out ids.bin``: the files' documents to a file of ids."""
    if not args.file or args.text:
        raise UsageError("--out writes the ids of files: give them with --file PATH "
                         "(repeat for several), and no TEXT")
    given = [f for f in ("json", "explain", "ids_only", "ordinary") if getattr(args, f)]
    if given or args.allowed_special or args.disallowed_special or args.add_special_tokens:
        raise UsageError(f"--out writes encode_ordinary's ids (special tokens' text as text, "
                         f"nothing added): leave out "
                         f"--{(given or ['special-token flags'])[0].replace('_', '-')}")
    tok = load_with_overrides(tokenizer_path(args), args)
    progress = Progress(sys.stderr, enabled=not args.quiet)
    sep = None if args.separator is None else typed_separator(args.separator)
    meta = tok.encode_files(args.file, args.out, field=args.field, separator=sep,
                            eot=args.eot_id, num_threads=args.threads,
                            progress=lambda done, total: progress("encode", done, total))
    progress.end_line()
    if not args.quiet:
        note(f"{meta['count']:,} ids of {meta['documents']:,} documents ({meta['dtype']}) "
             f"written to {args.out}")
    return 0


def warn_unmatched_texts(tok, texts: list[str]) -> None:
    """A warning when the tokenizer's pattern (a custom one: the presets take every
    character) leaves characters of a text without a word, and so without ids."""
    pre = getattr(tok, "pre", None)
    if not isinstance(pre, Pretokenizer) or pre.native is not None or pre.preset is not None \
            or pre.matcher is not None:   # (a tokenizer.json's own steps keep all text)
        return
    for i, text in enumerate(texts):
        n = pre.unmatched(text)
        if n:
            where = "the text" if len(texts) == 1 else f"text {i + 1}"
            warn(unmatched_sentence(n, len(text), where, "they get no ids"))


def refuse_overridden_outputs(args: argparse.Namespace) -> None:
    """Output flags that another one would silently override: refused, with which wins."""
    if args.ids_only and args.json:
        raise UsageError("--ids-only and --json are two output forms; pick one (--json "
                         "holds the ids too, under \"ids\")")
    given = [f"--{k.replace('_', '-')}" for k in ("allowed_special", "disallowed_special")
             if getattr(args, k) not in (None, ["none"])]   # (none: what --ordinary means)
    given += ["--add-special-tokens"] * bool(args.add_special_tokens)
    if args.ordinary and given:
        raise UsageError(f"{given[0]} and --ordinary contradict each other: --ordinary reads "
                         "special tokens' text as ordinary text and adds nothing around the "
                         "text; keep one of them")
    if args.explain and (args.ordinary or args.add_special_tokens):
        flag = "--ordinary" if args.ordinary else "--add-special-tokens"
        raise UsageError(f"--explain shows how the tokenizer cuts the text as typed (typed "
                         f"special tokens as tokens, nothing added), and {flag} would not "
                         f"change it; leave {flag} out, or drop --explain to see the ids "
                         "it gives")
    if args.color == "always" and (args.ids_only or args.json):
        raise UsageError(f"--color always colours the tokens shown, and "
                         f"{'--json' if args.json else '--ids-only'} shows none; leave "
                         "--color out")


def use_color(args: argparse.Namespace) -> bool:
    return args.color == "always" or (args.color == "auto" and isatty(sys.stdout)
                                      and not os.environ.get("NO_COLOR"))


def encoding_json(text: str, enc, tok) -> dict:
    """One text's encoding as docs/CLI.md describes it."""
    return {"text": text, "ids": enc.ids, "token_strings": enc.token_strings,
            "offsets": [list(o) for o in enc.offsets],
            "special": list(enc.special or [False] * len(enc.ids))}


def print_encoding(text: str, enc, tok, args: argparse.Namespace) -> None:
    if args.ids_only:
        print(" ".join(map(str, enc.ids)))
        return
    color = use_color(args)
    specials = enc.special or [False] * len(enc.ids)
    print(render_tokens(enc.tokens, specials, color))
    print(" ".join(map(str, enc.ids)))
    if color:
        n_bytes = len(text.encode("utf-8"))
        per = f", {n_bytes / len(enc.ids):.2f} bytes per token" if enc.ids else ""
        what = source_line(tok)
        print(f"\x1b[2m{len(enc.ids)} tokens, {len(text)} characters{per}"
              f"{' · ' + what if what else ''}{RESET}")
