"""``bpe-gui models``: the models already on this machine whose tokenizer opens by name
(Hugging Face cache, Ollama, LM Studio, llama.cpp), the command line of
engine/formats/local_models.

Examples::

    bpe-gui models                    # name, format, size, source, tokenizer file
    bpe-gui models qwen gguf          # only those whose name/format/source hold both words
    bpe-gui models --json > models.json
    bpe-gui encode --model llama3.2:1b "Hello 世界"
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..engine.display import human_size
from ..engine.formats import filter_models, find_models
from .common import add_quiet, json_head, note

COLUMNS = ("NAME", "FORMAT", "SIZE", "SOURCE", "TOKENIZER")
HOW_TO_GET = ("Models land here when you download them: hf download ORG/NAME "
              "(or any transformers script), ollama pull NAME, LM Studio's Discover tab, "
              "llama-cli -hf ORG/NAME. Nothing is downloaded by bpe-gui.")


def add_parser(sub) -> None:
    m = sub.add_parser("models", help="list the models already on this machine (Hugging "
                       "Face cache, Ollama, LM Studio, llama.cpp) whose tokenizer opens by name",
                       description="List the models already on this machine whose tokenizer "
                       "file can be opened by name: the Hugging Face cache (HF_HUB_CACHE, "
                       "HF_HOME), Ollama (OLLAMA_MODELS), LM Studio and llama.cpp "
                       "(LLAMA_CACHE). Only folder listings, manifests and the first bytes of "
                       "each tokenizer file are read; nothing is downloaded. Open one with "
                       "'bpe-gui encode --model NAME', 'inspect --model NAME' or 'train "
                       "--from-model NAME'.")
    m.add_argument("filter", nargs="*", metavar="WORD", help="only the models whose name, "
                   "format or source hold every word (any case)")
    m.add_argument("--json", action="store_true", help='print {"models": [{"name", "format", '
                   '"size", "source", "tokenizer", ...}], "looked_in": [...], "notes": [...]}')
    m.add_argument("--notes", action="store_true", help="say what was skipped and why "
                   "(downloads not finished, folders without a tokenizer, unreadable ones)")
    add_quiet(m, "no notes on stderr")
    m.set_defaults(func=cmd_models)


def shown(path) -> str:
    """A path under the home folder as '~/...'."""
    p, home = str(path), str(Path.home()).rstrip(os.sep)
    return "~" + p[len(home):] if home and p.startswith(home + os.sep) else p


def table_lines(models) -> list[str]:
    """The models as aligned columns (the last, the tokenizer file, is never cut)."""
    rows = [COLUMNS] + [(m.name, m.format_label, human_size(m.size), m.source,
                         shown(m.tokenizer)) for m in models]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS) - 1)]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1]), r[2].rjust(widths[2]),
                 r[3].ljust(widths[3]), r[4]]
        out.append("  ".join(cells))
    return out


def problem_lines(models) -> list[str]:
    """The models that will not open, one line per reason (a GGUF reader missing, a
    Unigram model...), naming a few of each."""
    by_problem: dict[str, list] = {}
    for m in models:
        if m.problem:
            by_problem.setdefault(m.problem, []).append(m)
    out = []
    for problem, group in by_problem.items():
        names = ", ".join(m.name for m in group[:3]) + (
            f" and {len(group) - 3} more" if len(group) > 3 else "")
        what = "its tokenizer file" if len(group) == 1 else "each one's tokenizer file"
        out.append(f"{len(group)} of these will not open ({names}): {what} {problem}")
    return out


def cmd_models(args: argparse.Namespace) -> int:
    scan = find_models()
    words = " ".join(args.filter)
    models = filter_models(scan.models, words)
    if args.json:
        json.dump({**json_head("models"), "models": [m.as_json() for m in models], "looked_in": list(scan.looked),
                   "notes": list(scan.notes), "complete": scan.complete},
                  sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    if models:
        print("\n".join(table_lines(models)))
        for line in problem_lines(models):
            note(line)
    elif not scan.models:
        note("no models found. Looked in: " + "; ".join(scan.looked) + ". " + HOW_TO_GET)
    else:
        note(f"none of the {len(scan.models)} models found matches {words!r}; "
             "'bpe-gui models' lists them all.")
    if scan.notes:
        if args.notes:
            for line in scan.notes:
                note(line)
        else:
            n = len(scan.notes)
            note(f"{n} thing{'s' * (n != 1)} skipped (downloads not finished, folders without "
                 "a tokenizer, unreadable ones); --notes says which and why.")
    return 0
