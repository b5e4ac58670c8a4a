"""``bpe-gui mixture``: what was a tokenizer trained on? The share of each category in its
training data, inferred from the order of its merges (engine/analysis/mixture.py).

Example::

    bpe-gui mixture --tokenizer o200k_base.tiktoken --category en=en.txt \\
        --category zh=zh.txt --category code=src/ --merges 30000 --json
"""
from __future__ import annotations

import argparse
import json
import sys

from ..engine.analysis import (check_mixture_tokenizer, check_solver, infer_mixture,
                               read_sample, sample_files)
from .common import UsageError, json_head, positive, warn
from .loading import add_tokenizer_source, check_merges_option, load_with_overrides, \
    tokenizer_path
from .paths import refuse_special_files
from .progress import Progress

BAR = 40


def add_parser(sub) -> None:
    c = sub.add_parser(
        "mixture", help="what a tokenizer was trained on: category shares from its merges",
        description="Infer the proportions of categories (languages, code, domains) in a "
        "BPE tokenizer's training data from the order of its merges (Hayase et al. 2024): "
        "its merges are replayed on a sample of each category, and a linear program finds "
        "the shares under which each merge was the most frequent pair. The samples should "
        "resemble the training data; a category left out is absorbed by the nearest ones. "
        "Needs SciPy: pip install 'bpe-gui[analysis]'.")
    add_tokenizer_source(c)
    c.add_argument("--category", action="append", required=True, metavar="NAME=PATH",
                   type=category_arg, help="a category and its sample: a text file, or a "
                   "folder whose files are all taken (repeat, at least twice)")
    c.add_argument("--merges", type=positive, metavar="N",
                   help="use only the first N merges (default: all)")
    c.add_argument("--max-rounds", type=positive, metavar="N",
                   help="stop the linear program after N rounds, even before its optimum "
                   "(then it says it did not converge; default: until the optimum)")
    c.add_argument("--time-limit", type=positive_seconds, metavar="SECONDS",
                   help="stop the linear program after SECONDS, even before its optimum")
    c.add_argument("--json", action="store_true",
                   help="print one JSON object: proportions (category -> share), "
                   "converged, rounds, max_violation (per million bytes), warnings")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress or notes on stderr")
    c.set_defaults(func=cmd_mixture)


def category_arg(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=PATH (e.g. en=english.txt)")
    return name.strip(), path


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds "
                                         "(e.g. 60)")
    return value


def cmd_mixture(args: argparse.Namespace) -> int:
    cats: list[tuple[str, str]] = args.category
    if len(cats) < 2:
        raise UsageError("give at least two --category NAME=PATH: the shares are of "
                         "categories weighed against each other")
    names = [n for n, _ in cats]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"the category {twice[0]!r} is given twice; give each name once "
                         "(a folder takes several files)")
    check_solver()
    refuse_special_files([p for _, p in cats], "sample file", folders=True)
    tok = load_with_overrides(tokenizer_path(args), args)
    check_mixture_tokenizer(tok)
    check_merges_option(tok, args.merges)
    samples = {name: read_sample(sample_files(path), name) for name, path in cats}
    bar = Progress(sys.stderr, enabled=not args.quiet)
    try:
        result = infer_mixture(tok, samples, merges=args.merges, progress=bar,
                               max_rounds=args.max_rounds, seconds=args.time_limit)
    finally:
        bar.end_line()
    if args.json:
        print(json.dumps({**json_head("mixture"), "proportions": result.proportions,
                          "converged": result.converged, "rounds": result.rounds,
                          "max_violation": result.violation,
                          "warnings": [{"kind": w.kind, "message": w.message}
                                       for w in result.warnings]}, ensure_ascii=False))
    else:
        print("\n".join(table_lines(result.proportions)))
        print(f"{result.rounds:,} rounds; " + ("converged: no constraint is violated"
              if result.converged else "NOT converged (stopped by the limit)"))
        for w in result.warnings:   # (on stderr: standard output holds the table alone)
            warn(w.message)
    return 0


def table_lines(props: dict[str, float]) -> list[str]:
    """category, proportion and a bar, largest first."""
    width = max(len("category"), *(len(n) for n in props))
    out = [f"{'category':<{width}}  proportion"]
    for name, p in sorted(props.items(), key=lambda kv: -kv[1]):
        out.append(f"{name:<{width}}  {p:9.1%}  {'#' * round(p * BAR)}".rstrip())
    return out
