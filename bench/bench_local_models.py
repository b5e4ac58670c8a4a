"""Finding the models on a machine with a big cache: how long, how much read, how much
memory (engine/formats/local_models).

Builds a fake HOME in a temporary folder (tests/engine/local_model_stores.py's layouts):
N Hugging Face repos (a tokenizer.json, a config, sparse weights: each its own blobs and
a snapshot of links), N/5 Ollama models and N/10 LM Studio folders of sparse multi-GB
GGUFs, N/20 llama.cpp downloads; then, each in a fresh process measured with treemem
(peak RSS of the process tree): ``find_models()`` over all of it, and huggingface_hub's
own ``scan_cache_dir`` over the Hugging Face part for comparison (it reads no file, only
stats them). Bytes read are the kernel's count (/proc/self/io rchar) around the call.
The page cache is warm (the files were just written): a cold disk adds its seeks.

    python bench/bench_local_models.py [N, default 2000] [folder, default /tmp]
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "engine"))
from treemem import run_measured  # noqa: E402

GB = 1_000_000_000
OURS = """
import sys, time, resource, os
from pathlib import Path
def rchar():
    return int(dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())["rchar"])
from bpe_gui.engine.formats import find_models, model_roots
env = {"HOME": sys.argv[1], "OLLAMA_MODELS": sys.argv[1] + "/.ollama/models"}
r0, t0, c0 = rchar(), time.perf_counter(), time.process_time()
scan = find_models(model_roots(env, system=False), home=sys.argv[1])
t, c, r = time.perf_counter() - t0, time.process_time() - c0, rchar() - r0
print(f"{len(scan.models)} models, {len(scan.notes)} notes, complete={scan.complete}: "
      f"{t:.2f} s wall, {c:.2f} s CPU, {r / 1e6:.1f} MB read")
"""
IMPORT_ONLY = """
import sys
from bpe_gui.engine.formats import find_models, model_roots
print("(the imports alone: the baseline of the peak above)")
"""
HUB = """
import sys, time
from huggingface_hub import scan_cache_dir
t0, c0 = time.perf_counter(), time.process_time()
info = scan_cache_dir(sys.argv[1] + "/.cache/huggingface/hub")
print(f"{len(info.repos)} repos: {time.perf_counter() - t0:.2f} s wall, "
      f"{time.process_time() - c0:.2f} s CPU")
"""


def sparse(path: Path, head: bytes, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(max(size, len(head)))


def build(home: Path, n: int) -> None:
    import local_model_stores as S
    s = S.Stores(home)
    tok = S.tokenizer_json()
    for i in range(n):
        snap = S.hf_repo(s.hf, f"org{i % 50}/model-{i}", {
            "tokenizer.json": tok + b" " * (i % 7), "config.json": b'{"i": %d}' % i,
            "model.safetensors": b"w%d" % i})
        sparse((snap / "model.safetensors").resolve(), b"w", 3 * GB)
    for i in range(n // 5):
        blob = S.ollama_model(s.ollama, f"model{i}:7b", S.vocab_gguf("gpt2", "llama-bpe",
                                                                      f"m{i}"))
        sparse(blob, blob.read_bytes(), 4 * GB)
    for i in range(n // 10):
        folder = S.lmstudio_model(s.lmstudio, f"pub{i % 5}/Model-{i}-GGUF", {})
        for q, size in (("Q4_K_M", 4), ("Q8_0", 8)):
            sparse(folder / f"Model-{i}-{q}.gguf", S.vocab_gguf("gpt2", "qwen2"), size * GB)
    for i in range(n // 20):
        path = S.llamacpp_model(s.llamacpp, f"user/Model-{i}-GGUF", "Q4_K_M",
                                f"Model-{i}-Q4_K_M.gguf", S.vocab_gguf("gpt2", "gpt-2"))
        sparse(path, path.read_bytes(), 2 * GB)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    home = Path(tempfile.mkdtemp(prefix="bpe-gui-models-",
                                 dir=sys.argv[2] if len(sys.argv) > 2 else None))
    try:
        build(home, n)
        measure(home, n)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def measure(home: Path, n: int) -> None:
    print(f"fake HOME {home}: {n} Hugging Face repos, {n // 5} Ollama models, {n // 10} "
          f"LM Studio folders (2 GGUFs each), {n // 20} llama.cpp downloads")
    for label, code in (("find_models (all four)", OURS),
                        ("import bpe_gui.engine.formats", IMPORT_ONLY),
                        ("huggingface_hub.scan_cache_dir (HF only)", HUB)):
        env = {**os.environ, "PYTHONPATH": str(HERE.parent)}   # this checkout's bpe_gui
        res = run_measured([sys.executable, "-c", code, str(home)], env=env)
        if res["returncode"] != 0:
            sys.exit(f"{label} failed:\n{res['stderr']}")
        print(f"{label:42} {res['stdout'].strip()}   peak {res['peak_mb']:.0f} MB "
              f"(process {res['secs']:.2f} s)")


if __name__ == "__main__":
    main()
