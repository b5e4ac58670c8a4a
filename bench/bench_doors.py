"""Every door of one tokenizer, timed: encode, encode_to_array, encode_iterable over a
file's lines, and pickling (size, dumps, loads) next to tiktoken's and tokenizers' own.

    python bench/bench_doors.py [--rounds 5] [--before CHECKOUT] [--mb 4]

Each measurement runs in a fresh process, pinned to one core where the OS allows, one
process at a time; rounds alternate the contestants (and, with ``--before``, this checkout
and an older one with its C built in place: a change's before and after in one run, where
this machine's drift would swamp two separate runs). Every contestant gets the same
1,000-character warm-up. Printed: median seconds (min-max) over the rounds, and the ratios
that matter: ``encode_iterable`` / ``encode`` (issue 78 asks 1.2x or better), after /
before. The text: the first MB of ../shared/corpora's 20 MB English, written once to a
file read line by line.

Files: OpenAI's cl100k and o200k ranks (the npm package tiktoken, via
tests/engine/tiktoken_files.py; BPE_GUI_TIKTOKEN_TGZ names the package), and a Llama 3
``tokenizer.json`` with its BOS template, made from Meta's ``tokenizer.model`` (llama-models)
by transformers' converter, as test_every_door.py makes it.
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

CHILD = r"""
import json, os, pickle, sys, time
kind, path, text_path, door = sys.argv[1:5]
try:
    os.sched_setaffinity(0, {0})
except (AttributeError, OSError):
    pass
text = open(text_path, encoding="utf-8").read()
warm = text[:1000]
if kind == "bpe-gui":
    from bpe_gui.engine import load_tokenizer
    tok = load_tokenizer(path)
    calls = {
        "encode": lambda: tok.encode(text),
        "encode_to_array": lambda: tok.encode_to_array(text),
        "encode_iterable": lambda: list(tok.encode_iterable(open(text_path, encoding="utf-8"))),
        "iterable(list of lines)": lambda: list(tok.encode_iterable(lines)),
    }
    lines = text.splitlines(keepends=True)
    tok.encode(warm)
elif kind == "tiktoken":
    import tiktoken, tiktoken.load
    meta = json.load(open(path + ".json"))
    tok = tiktoken.Encoding("x", pat_str=meta["pat_str"],
                            mergeable_ranks=tiktoken.load.load_tiktoken_bpe(path),
                            special_tokens=meta["special_tokens"])
    tok.encode(warm)
    calls = {}
else:
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(path)
    tok.encode(warm)
    calls = {}
if door == "pickle":
    t = time.perf_counter(); blob = pickle.dumps(tok); dumps = time.perf_counter() - t
    t = time.perf_counter(); twin = pickle.loads(blob); loads = time.perf_counter() - t
    print(json.dumps({"bytes": len(blob), "dumps": dumps, "loads": loads}))
else:
    t = time.process_time(); calls[door](); took = time.process_time() - t
    print(json.dumps({"seconds": took}))
"""


def files(folder: Path) -> dict[str, dict[str, str]]:
    """name -> {contestant: path} of the tokenizer files that are here."""
    sys.path.insert(0, str(ROOT / "tests" / "engine"))
    from tiktoken_files import npm_ranks
    out: dict[str, dict[str, str]] = {}
    for name in ("cl100k_base", "o200k_base"):
        got = npm_ranks(name, folder)
        if got is None:
            print(f"skipped {name}: BPE_GUI_TIKTOKEN_TGZ names no npm package tiktoken",
                  file=sys.stderr)
            continue
        path, meta = got
        (folder / f"{name}.tiktoken.json").write_text(json.dumps(meta))
        out[name] = {"bpe-gui": str(path), "tiktoken": str(path)}
    try:
        import tokenizers
        from llama_models.llama3 import tokenizer as llama
        from transformers.integrations.tiktoken import convert_tiktoken_to_fast
        meta_tok = llama.Tokenizer.get_instance()
        d = folder / "llama3"
        convert_tiktoken_to_fast(meta_tok.model, str(d))
        tk = tokenizers.Tokenizer.from_file(str(d / "tokenizer.json"))
        bos = meta_tok.special_tokens["<|begin_of_text|>"]
        tk.post_processor = tokenizers.processors.TemplateProcessing(
            single="<|begin_of_text|> $A", special_tokens=[("<|begin_of_text|>", bos)])
        tk.save(str(d / "tokenizer.json"))
        out["llama3 tokenizer.json"] = {"bpe-gui": str(d / "tokenizer.json"),
                                        "tokenizers": str(d / "tokenizer.json")}
    except Exception as e:   # noqa: BLE001 - a contestant that cannot be made is said
        print(f"skipped Llama 3's tokenizer.json: {e}", file=sys.stderr)
    return out


def run(checkout: Path, kind: str, path: str, text: Path, door: str) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, kind, path, str(text), door],
                       capture_output=True, text=True, check=True, cwd=checkout,
                       env={**os.environ, "PYTHONPATH": str(checkout)})
    return json.loads(p.stdout.strip().splitlines()[-1])


def summary(xs: list[float]) -> str:
    return f"{statistics.median(xs):.4f} ({min(xs):.4f}-{max(xs):.4f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", type=Path, help="an older checkout, C built in place")
    ap.add_argument("--mb", type=float, default=4.0, help="megabytes of English text")
    args = ap.parse_args()
    src = CORPORA / "en-gutenberg-20mb.txt.xz"
    if not src.exists():
        sys.exit(f"{src} is not here: the benchmark reads ../shared/corpora")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        text = folder / "en.txt"
        with lzma.open(src, "rt", encoding="utf-8") as f:
            text.write_text(f.read(int(args.mb * 1_000_000)), "utf-8")
        builds = {"after": ROOT} if args.before is None else {"before": args.before,
                                                              "after": ROOT}
        for name, paths in files(folder).items():
            print(f"\n## {name}, {args.mb:g} MB of English (CPU s, median (min-max) of "
                  f"{args.rounds})\n")
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(args.rounds):
                for door in ("encode", "encode_to_array", "encode_iterable",
                             "iterable(list of lines)"):
                    for build, checkout in builds.items():
                        got = run(checkout, "bpe-gui", paths["bpe-gui"], text, door)
                        times.setdefault((build, door), []).append(got["seconds"])
            for (build, door), xs in times.items():
                print(f"| {build} | {door} | {summary(xs)} |")
            for build in builds:
                ratio = statistics.median(times[(build, "encode_iterable")]) / \
                    statistics.median(times[(build, "encode")])
                print(f"{build}: encode_iterable / encode = {ratio:.2f}")
            if "before" in builds:
                for door in ("encode", "encode_to_array", "encode_iterable"):
                    r = statistics.median(times[("after", door)]) / \
                        statistics.median(times[("before", door)])
                    print(f"{door}: after / before = {r:.2f}")
            print("\n| pickle | bytes | dumps s | loads s |\n|---|---|---|---|")
            for kind, path in paths.items():
                got = [run(ROOT, kind, path, text, "pickle") for _ in range(3)]
                print(f"| {kind} | {got[0]['bytes']:,} | "
                      f"{statistics.median(g['dumps'] for g in got):.3f} | "
                      f"{statistics.median(g['loads'] for g in got):.3f} |")


if __name__ == "__main__":
    main()
