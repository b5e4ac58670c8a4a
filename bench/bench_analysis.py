"""Tokenizer analysis on real published vocabularies: unreachable/undecodable tokens
(engine/analysis.py) timed and checked against tiktoken, vocabulary overlap, and the
per-language cost of the shared corpora.

    python bench/bench_analysis.py [--tiktoken-tgz FILE] [--wheels DIR] [--repeat 3]

Files used (never committed; read from where they are each time):
  * the npm package ``tiktoken`` (``npm pack tiktoken``; without --tiktoken-tgz this script
    runs that in a temporary folder): ``encoders/{gpt2,r50k_base,p50k_base,cl100k_base,
    o200k_base}.json`` hold the real ranks in js-tiktoken's compressed form (one line per
    run of consecutive ranks: a name, the first rank, then base64 tokens), written out
    here as ``NAME.tiktoken`` + ``NAME.tiktoken.json``;
  * with --wheels DIR (``pip download --no-deps llama-models mistral-common -d DIR``):
    Llama 3 and Llama 4 ``tokenizer.model`` and Mistral's tekken, as in bench_imports.py,
    and Llama 3 as a ``tokenizer.json`` (the Hugging Face pipeline path).

Each classification runs on a freshly loaded tokenizer (cold caches); the oracle is a
``tiktoken.Encoding`` built from the same ranks, pattern and special tokens (for a
tokenizer.json: Hugging Face ``tokenizers``), classifying by the same rule; the classes
must be identical.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
CORPORA = ROOT.parent / "shared" / "corpora"
NPM_NAMES = ("gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base")


def npm_ranks(tgz: Path, name: str) -> tuple[bytes, dict]:
    """A .tiktoken file's bytes and its metadata from the npm package's compressed JSON."""
    with tarfile.open(tgz) as tar:
        doc = json.load(tar.extractfile(f"package/encoders/{name}.json"))
    lines = []
    for row in doc["bpe_ranks"].split("\n"):
        if not row:
            continue
        _, first, *tokens = row.split(" ")
        lines += [f"{t} {int(first) + k}" for k, t in enumerate(tokens)]
    meta = {"pat_str": doc["pat_str"], "special_tokens": doc["special_tokens"]}
    return ("\n".join(lines) + "\n").encode("ascii"), meta


def fetch_tgz(work: Path) -> Path | None:
    if shutil.which("npm") is None:
        return None
    p = subprocess.run(["npm", "pack", "tiktoken", "--silent"], cwd=work, capture_output=True,
                       text=True)
    names = [n for n in p.stdout.split() if n.endswith(".tgz")]
    return work / names[-1] if p.returncode == 0 and names else None


def cases(work: Path, tgz: Path | None, wheels: Path | None) -> list[tuple[str, Path]]:
    out = []
    for name in NPM_NAMES if tgz else ():
        ranks, meta = npm_ranks(tgz, name)
        (work / f"{name}.tiktoken").write_bytes(ranks)
        (work / f"{name}.tiktoken.json").write_text(json.dumps(meta))
        out.append((name, work / f"{name}.tiktoken"))
    if wheels:
        from bench_imports import published_files
        for label, path, _, _ in published_files(work, wheels):
            if "cl100k" not in label:      # already from the npm package
                out.append((label, path))
    return out


def oracle(path: Path) -> tuple[dict[str, list[int]], float]:
    """Classes by tiktoken, built from the files our loader read, and the seconds taken."""
    import tiktoken
    import tiktoken.load
    from bpe_gui.engine.formats import load_tokenizer
    tok = load_tokenizer(path)   # for the pattern and special tokens it recognised
    if path.suffix == ".json":
        return hf_oracle(path)
    ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    enc = tiktoken.Encoding("x", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=dict(tok.special_ids))
    t = time.perf_counter()
    out: dict[str, list[int]] = {"ok": [], "unreachable": [], "undecodable": [], "special": []}
    specials = set(tok.special_ids.values())
    for i in sorted(set(ranks.values()) | specials):
        if i in specials:
            out["special"].append(i)
            continue
        try:
            text = enc.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            out["undecodable"].append(i)
            continue
        ok = enc.encode(text, allowed_special="all") == [i]
        out["ok" if ok else "unreachable"].append(i)
    return out, time.perf_counter() - t


def hf_oracle(path: Path) -> tuple[dict[str, list[int]], float]:
    """Classes by Hugging Face tokenizers (a byte-level tokenizer.json: GPT-2's alphabet)."""
    from tokenizers import Tokenizer
    from bpe_gui.engine.display import unicode_to_bytes
    tk = Tokenizer.from_file(str(path))
    table = unicode_to_bytes()
    added = {i for i, t in tk.get_added_tokens_decoder().items() if t.special}
    t = time.perf_counter()
    out: dict[str, list[int]] = {"ok": [], "unreachable": [], "undecodable": [], "special": []}
    for i in range(tk.get_vocab_size()):
        if i in added:
            out["special"].append(i)
            continue
        try:
            text = bytes(table[c] for c in tk.id_to_token(i)).decode("utf-8")
        except UnicodeDecodeError:
            out["undecodable"].append(i)
            continue
        ok = tk.encode(text, add_special_tokens=False).ids == [i]
        out["ok" if ok else "unreachable"].append(i)
    return out, time.perf_counter() - t


def bench_reach(items: list[tuple[str, Path]], repeat: int) -> dict:
    from bpe_gui.engine.analysis.reachability import classify_tokens
    from bpe_gui.engine.formats import load_tokenizer
    print(f"{'tokenizer':34} {'tokens':>8} {'ok':>8} {'unreach.':>8} {'undec.':>7} "
          f"{'special':>7} {'s best':>7} {'s med':>6} {'oracle s':>10}  classes")
    loaded = {}
    for label, path in items:
        times = []
        for _ in range(repeat):
            tok = load_tokenizer(path)
            t = time.perf_counter()
            r = classify_tokens(tok)
            times.append(time.perf_counter() - t)
        times.sort()
        want, t_oracle = oracle(path)
        same = "-" if not want else ("identical" if r.as_json() == want else "DIFFERENT")
        c = r.counts()
        print(f"{label:34} {len(tok.vocab):>8,} {c['ok']:>8,} {c['unreachable']:>8,} "
              f"{c['undecodable']:>7,} {c['special']:>7,} {times[0]:>7.2f} "
              f"{times[len(times) // 2]:>6.2f} {t_oracle:>10.2f}  {same} ({r.method})")
        loaded[label] = (tok, r)
    return loaded


def bench_overlap(loaded: dict) -> None:
    from bpe_gui.engine.analysis.overlap import vocab_overlap
    pairs = [("gpt2", "cl100k_base"), ("cl100k_base", "o200k_base"),
             ("o200k_base", "Llama 4 tokenizer.model (200k)")]
    print(f"\n{'A':16} {'B':32} {'shared':>8} {'only A':>8} {'only B':>8} {'Jaccard':>8} "
          f"{'A in B':>8} {'B in A':>8} {'s':>5}")
    for a, b in pairs:
        if a not in loaded or b not in loaded:
            continue
        t = time.perf_counter()
        ov = vocab_overlap(loaded[a][0], loaded[b][0], loaded[a][1], loaded[b][1])
        dt = time.perf_counter() - t
        c = ov.counts()
        print(f"{a:16} {b:32} {c['shared']:>8,} {c['only_a']:>8,} {c['only_b']:>8,} "
              f"{ov.jaccard:>8.3f} {c['a_single_in_b']:>8,} {c['b_single_in_a']:>8,} {dt:>5.2f}")


def bench_cost(loaded: dict, work: Path) -> None:
    import lzma
    from bpe_gui.cli.cost import cost_lines
    from bpe_gui.engine.analysis.per_language import language_cost
    if not CORPORA.is_dir():
        print(f"\n{CORPORA} is missing: no per-language cost")
        return
    held = work / "held"
    held.mkdir()
    for lang, name, n in (("en", "en-tinyshakespeare.txt.xz", 400_000),
                          ("zh", "zh-four-classic-novels.txt.xz", 150_000),
                          ("code", "code-python-stdlib.py.txt.xz", 400_000)):
        with lzma.open(CORPORA / name, "rt", encoding="utf-8") as f:
            (held / f"{lang}.txt").write_text(f.read(n), "utf-8")
    shutil.copy(CORPORA / "multi-utf8-demo.txt", held / "multi.txt")
    toks = {k: loaded[k][0] for k in ("gpt2", "cl100k_base", "o200k_base",
                                      "Llama 3 tokenizer.model (128k)") if k in loaded}
    t = time.perf_counter()
    table = language_cost(held, toks)
    dt = time.perf_counter() - t
    size = sum(f.stat().st_size for f in held.iterdir()) / 1e6
    print(f"\nper-language cost: {len(toks)} tokenizers x {size:.1f} MB in {dt:.2f} s")
    print("\n".join(cost_lines(table)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiktoken-tgz", type=Path, help="the npm package (npm pack tiktoken)")
    ap.add_argument("--wheels", type=Path, help="folder with llama-models / mistral-common wheels")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        tgz = args.tiktoken_tgz or fetch_tgz(work)
        items = cases(work, tgz, args.wheels)
        if not items:
            sys.exit("bench: no tokenizer files (give --tiktoken-tgz or --wheels, or install npm)")
        loaded = bench_reach(items, args.repeat)
        bench_overlap(loaded)
        bench_cost(loaded, work)


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    main()
