"""Load time and peak memory of published tokenizer files: bpe-gui against the libraries
that own the formats (Hugging Face ``tokenizers``, ``tiktoken``), side by side, each load
in a fresh Python process. Also checks that both encode a mixed text to the same ids.

    python bench/bench_imports.py [--wheels DIR] [--repeat 3]

Files used, when present:
  * Meta's ``llama-models`` wheel: ``llama3/tokenizer.model`` (128,000 ranks, tiktoken
    format; its first 100,256 lines are byte for byte cl100k_base.tiktoken, which is cut
    from it) and ``llama4/tokenizer.model`` (200,000 ranks);
  * Mistral's ``mistral-common`` wheel: ``tekken_240911.json`` (150,000 ranks in JSON,
    written out as a .tiktoken file here).
  They are read straight from the wheels (``pip download --no-deps llama-models
  mistral-common -d DIR``, then ``--wheels DIR``) or from the installed packages.
  The Llama tiktoken files are also written as Hugging Face ``tokenizer.json`` files with
  Llama 3's settings (Split + ByteLevel, ignore_merges) by bpe-gui's own exporter.
Without any of them, a 128k-token BPE is trained with ``tokenizers`` on the shared
corpora (slow, once) and saved in both formats.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
TEXT = ("Hello, World! It's 3:45pm; we'll see... Привет, мир! Как дела? مرحبا بالعالم "
        "你好世界，这是一个测试。 emoji 🙂👍🏽 def f(x):\n    return x**2\n") * 50

# One load, in a fresh process: prints {"s": seconds, "rss": peak MB, "n": tokens, "ids": [...]}
CHILD = r"""
import json, sys, time
kind, path, pat = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(sys.argv[4], encoding="utf-8").read()
if kind == "ours":
    from bpe_gui.engine.formats import load_tokenizer
    t = time.perf_counter(); tok = load_tokenizer(path); s = time.perf_counter() - t
    n, ids = len(tok.vocab), tok.encode(text)
elif kind == "hf":
    from tokenizers import Tokenizer
    t = time.perf_counter(); tok = Tokenizer.from_file(path); s = time.perf_counter() - t
    n, ids = tok.get_vocab_size(), tok.encode(text, add_special_tokens=False).ids
else:
    import tiktoken, tiktoken.load
    t = time.perf_counter()
    ranks = tiktoken.load.load_tiktoken_bpe(path)
    tok = tiktoken.Encoding("x", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    s = time.perf_counter() - t
    n, ids = tok.n_vocab, tok.encode_ordinary(text)
rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
print(json.dumps({"s": s, "rss": rss, "n": n, "ids": ids}))
"""


def run(kind: str, path: Path, pat: str, text_file: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(path), pat, str(text_file)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def from_wheels(wheels: Path | None, name: str, inner: str) -> bytes | None:
    """A file shipped in a package: installed, or inside a downloaded wheel."""
    import importlib.util
    spec = importlib.util.find_spec(name)
    if spec and spec.origin:
        p = Path(spec.origin).parent / inner
        if p.is_file():
            return p.read_bytes()
    for whl in sorted((wheels or Path("/nonexistent")).glob(f"{name}-*.whl")):
        with zipfile.ZipFile(whl) as z:
            try:
                return z.read(f"{name}/{inner}")
            except KeyError:
                continue
    return None


def tekken_to_tiktoken(data: bytes) -> tuple[bytes, str]:
    doc = json.loads(data)
    lines = [f"{v['token_bytes']} {v['rank']}" for v in doc["vocab"]]
    return ("\n".join(lines) + "\n").encode("ascii"), doc["config"]["pattern"]


def as_llama3_json(tiktoken_file: Path, out: Path) -> Path:
    """A tokenizer.json with Llama 3's pipeline, written by bpe-gui's exporter."""
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    tok = load_tokenizer(tiktoken_file, pattern=LLAMA3_PATTERN)
    export_tokenizer(tok, out, "hf")
    doc = json.loads((out / "tokenizer.json").read_text("utf-8"))
    doc["model"]["ignore_merges"] = True
    (out / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return out / "tokenizer.json"


def trained_files(work: Path) -> list[tuple[str, Path, str, str]]:
    import lzma

    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    print("no published files found: training a 128k-token BPE with tokenizers (slow)...")
    tk = Tokenizer(models.BPE(ignore_merges=True))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tk.decoder = decoders.ByteLevel()

    def lines():
        for name in ("en-gutenberg-20mb.txt.xz", "zh-four-classic-novels.txt.xz",
                     "code-python-stdlib.py.txt.xz"):
            with lzma.open(CORPORA / name, "rt", encoding="utf-8") as f:
                yield from f
    tk.train_from_iterator(lines(), trainers.BpeTrainer(
        vocab_size=128_000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    hf = work / "trained" / "tokenizer.json"
    hf.parent.mkdir()
    tk.save(str(hf))
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    export_tokenizer(load_tokenizer(hf, pattern=LLAMA3_PATTERN), work / "trained", "tiktoken")
    return [("trained 128k tokenizer.json", hf, "hf", LLAMA3_PATTERN),
            ("trained 128k .tiktoken", work / "trained" / "tokenizer.tiktoken", "tiktoken",
             LLAMA3_PATTERN)]


def published_files(work: Path, wheels: Path | None) -> list[tuple[str, Path, str, str]]:
    cases = []
    l3 = from_wheels(wheels, "llama_models", "llama3/tokenizer.model")
    if l3:
        p = work / "llama3" / "tokenizer.model"
        p.parent.mkdir()
        p.write_bytes(l3)
        cl = work / "cl100k_base.tiktoken"
        cl.write_bytes(b"\n".join(l3.split(b"\n")[:100256]) + b"\n")
        from bpe_gui.engine.formats.known_encodings import CL100K_PATTERN
        cases += [("cl100k_base.tiktoken (100k)", cl, "tiktoken", CL100K_PATTERN),
                  ("Llama 3 tokenizer.model (128k)", p, "tiktoken", LLAMA3_PATTERN),
                  ("Llama 3 tokenizer.json (128k)", as_llama3_json(p, work / "llama3-hf"),
                   "hf", LLAMA3_PATTERN)]
    l4 = from_wheels(wheels, "llama_models", "llama4/tokenizer.model")
    if l4:
        from bpe_gui.engine.formats.known_encodings import O200K_PATTERN
        p = work / "llama4.tiktoken"
        p.write_bytes(l4)
        (work / "llama4.tiktoken.json").write_text(json.dumps(
            {"pat_str": O200K_PATTERN, "special_tokens": {}}))
        cases += [("Llama 4 tokenizer.model (200k)", p, "tiktoken", O200K_PATTERN),
                  ("Llama 4 as tokenizer.json (200k)", as_llama3_json(p, work / "llama4-hf"),
                   "hf", LLAMA3_PATTERN)]
    tekken = from_wheels(wheels, "mistral_common", "data/tekken_240911.json")
    if tekken:
        ranks, pat = tekken_to_tiktoken(tekken)
        p = work / "tekken.tiktoken"
        p.write_bytes(ranks)
        (work / "tekken.tiktoken.json").write_text(json.dumps({"pat_str": pat,
                                                               "special_tokens": {}}))
        cases.append(("Mistral tekken (150k)", p, "tiktoken", pat))
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, help="folder with downloaded llama-models / "
                    "mistral-common wheels")
    ap.add_argument("--repeat", type=int, default=3, help="loads per library and file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        text_file = work / "text.txt"
        text_file.write_text(TEXT, "utf-8")
        cases = published_files(work, args.wheels) or trained_files(work)
        print(f"{'file':34} {'library':10} {'load s (best, median)':>22} {'peak MB':>8}  ids")
        for label, path, theirs, pat in cases:
            results = {}
            for kind in ("ours", theirs):
                runs = [run(kind, path, pat, text_file) for _ in range(args.repeat)]
                times = sorted(r["s"] for r in runs)
                results[kind] = runs[0]
                name = "bpe-gui" if kind == "ours" else theirs
                same = "" if kind == "ours" else \
                    ("identical" if runs[0]["ids"] == results["ours"]["ids"] else "DIFFERENT")
                print(f"{label:34} {name:10} {times[0]:>10.3f} {times[len(times) // 2]:>10.3f} "
                      f"{max(r['rss'] for r in runs):>8.0f}  {same}")


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    main()
