"""Load time and peak memory of model tokenizer files (issue 28): bpe-gui against each
file's own library where it is installed, each load in a fresh Python process (CPU time
of the load, peak RSS of the process), and the ids of a mixed text compared.

    python bench/bench_model_files.py [--models DIR] [--repeat 3]

Files:
  * Mistral's tekken_240911.json (19 MB; mistral-common's own data) against
    mistral-common's ``Tekkenizer.from_file``;
  * GGUF vocab files of llama.cpp's test set (``--models``: the llama-cpp-python sdist's
    ``vendor/llama.cpp/models``, as tests/engine/formats/llama_cpp_files.py caches it):
    command-r (256k tokens, 253k merges), qwen2, llama-bpe. llama.cpp itself is not a
    Python package here; the nearest references are the ``gguf`` package's GGUFReader
    (metadata and arrays only, no tokenizer) and ``tokenizers`` loading the same
    vocabulary written as tokenizer.json. The reader's share: ``read_vocab`` alone, and
    Gemma 4's vocabulary (262k tokens, 515k merges; its model type does not open yet).
  * CLIP's bpe_simple_vocab_16e6.txt.gz (``--clip``) against tokenizers loading CLIP's
    tokenizer.json built from the same merges.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = ("Hello, World! It's 3:45pm; we'll see... Привет, мир! مرحبا بالعالم "
        "你好世界，这是一个测试。 emoji 🙂👍🏽 def f(x):\n    return x**2\n") * 20

CHILD = r"""
import json, sys, time
kind, path, text = sys.argv[1], sys.argv[2], open(sys.argv[3], encoding="utf-8").read()
ids = None
t = time.process_time()
if kind == "ours":
    from bpe_gui.engine.formats import load_tokenizer
    tok = load_tokenizer(path)
    s = time.process_time() - t
    ids = tok.encode(text)
elif kind == "reader":
    from bpe_gui.engine.formats.gguf_fmt import read_vocab
    v = read_vocab(path)
    s = time.process_time() - t
elif kind == "mistral":
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    tok = Tekkenizer.from_file(path)
    s = time.process_time() - t
    ids = tok.encode(text, bos=False, eos=False)
elif kind == "ggufreader":
    import gguf
    r = gguf.GGUFReader(path)
    toks = r.fields["tokenizer.ggml.tokens"].contents()
    merges = r.fields["tokenizer.ggml.merges"].contents()
    s = time.process_time() - t
elif kind == "hf":
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(path)
    s = time.process_time() - t
    ids = tok.encode(text, add_special_tokens=False).ids
rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
print(json.dumps({"s": s, "rss": rss, "ids": ids}))
"""


def run(kind: str, path: Path, text_file: Path, repeat: int) -> dict:
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, kind, str(path), str(text_file)],
                             capture_output=True, text=True, cwd=ROOT)
        if out.returncode:
            return {"error": out.stderr.strip().splitlines()[-1]}
        r = json.loads(out.stdout.strip().splitlines()[-1])
        best = r if best is None or r["s"] < best["s"] else best
    return best


def row(name: str, results: dict[str, dict]) -> None:
    cells = []
    for kind, r in results.items():
        if "error" in r:
            cells.append(f"{kind}: {r['error'][:60]}")
        else:
            cells.append(f"{kind} {r['s']:.2f} s {r['rss']:.0f} MB")
    ids = [r["ids"] for r in results.values() if r.get("ids") is not None]
    same = "" if len(ids) < 2 else (" · ids equal" if all(i == ids[0] for i in ids) else
                                    " · IDS DIFFER")
    print(f"{name:<24} " + " | ".join(cells) + same, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=Path.home() / ".cache" / "bpe-gui-tests" /
                    "llama-cpp-python-0.3.36-models")
    ap.add_argument("--clip", type=Path, help="bpe_simple_vocab_16e6.txt.gz")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    text_file = tmp / "text.txt"
    text_file.write_text(TEXT, "utf-8")
    try:
        import mistral_common
        tekken = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
        row("tekken_240911.json", {"ours": run("ours", tekken, text_file, args.repeat),
                                   "mistral-common": run("mistral", tekken, text_file,
                                                         args.repeat)})
    except ImportError:
        print("mistral-common not installed: tekken skipped")
    sys.path.insert(0, str(ROOT))
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    for name in ("command-r", "qwen2", "llama-bpe"):
        g = args.models / f"ggml-vocab-{name}.gguf"
        if not g.is_file():
            print(f"{g} missing: run the GGUF tests once (they cache it)")
            continue
        hf = export_tokenizer(load_tokenizer(g), tmp / name, "hf")[0] \
            if name != "command-r" else None
        res = {"ours": run("ours", g, text_file, args.repeat),
               "our reader": run("reader", g, text_file, args.repeat),
               "gguf.GGUFReader": run("ggufreader", g, text_file, args.repeat)}
        if hf is not None:
            res["tokenizers (same vocab as json)"] = run("hf", hf, text_file, args.repeat)
        row(f"ggml-vocab-{name}", res)
    gemma = args.models / "ggml-vocab-gemma-4.gguf"
    if gemma.is_file():
        row("gemma-4 (reader only)", {"our reader": run("reader", gemma, text_file, args.repeat),
                                      "gguf.GGUFReader": run("ggufreader", gemma, text_file,
                                                             args.repeat)})
    if args.clip and args.clip.is_file():
        row("CLIP merges", {"ours": run("ours", args.clip, text_file, args.repeat)})


if __name__ == "__main__":
    main()
