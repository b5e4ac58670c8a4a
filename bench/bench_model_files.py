"""Model tokenizer files, load and encode, each beside its own library (issue 28): in one
run, each (library, file) in a fresh process pinned to one core: the library's import,
the load (CPU seconds each: import apart, as bench_encode_peers.py does), then one
whole-text encode of each text (CPU seconds), ids compared between the libraries by
digest, and the peak memory of the process tree (sampled, as bench_encode_peers.py
does; after the load: the process's own high-water mark). bpe-gui's modules are
byte-compiled first (``compileall``, as an installed package is; this machine sets
PYTHONDONTWRITEBYTECODE), and its import includes the scanner's character tables, which
are computed at start-up when the installed ``regex`` is not the release
csrc/unicode_tables.h was made from.

    python bench/bench_model_files.py [--data DIR] [--models DIR] [--quick]
                                      [--only spm,tekken,clip,gguf] [--texts en,zh,c]
                                      [--gguf qwen2,llama-bpe,...]
                                      [--markdown FILE] [--timeout S]

Formats and references:
  spm     Mistral 7B v0.1's SentencePiece ``tokenizer.model`` (32,000 pieces, byte
          fallback; in the mistral-common wheel) -- sentencepiece
  tekken  mistral-common's ``tekken_240911.json`` (150k ranks, 19 MB) -- mistral-common's
          Tekkenizer (``encode(text, bos=False, eos=False)``)
  clip    CLIP's ``bpe_simple_vocab_16e6.txt.gz`` (from the open_clip_torch sdist, fetched
          with ``pip download`` into DIR/wheels) as the ``tokenizer.json`` transformers
          converts it to (end_of_word_suffix ``</w>``, NFC + whitespace + lowercase) --
          tokenizers on that json (open_clip itself needs torch); bpe-gui also on the .gz
          (its own rules: CLIP's SimpleTokenizer, so its ids are not compared)
  gguf    llama.cpp's vocabulary files (the llama-cpp-python 0.3.36 sdist's
          ``vendor/llama.cpp/models``, as tests/engine/formats/llama_cpp_files.py caches
          them; ``--models``): qwen2, llama-bpe (Llama 3), command-r (256k tokens),
          gemma-4 (262k tokens, 515k merges), llama-spm (a ``llama`` SentencePiece-style
          vocabulary) -- llama.cpp itself through llama-cpp-python's C API when it is
          installed (``llama_model_load_from_file`` with ``vocab_only``,
          ``llama_tokenize`` with add_special off and parse_special on, bpe-gui's
          default), and tokenizers on the same vocabulary exported as tokenizer.json
          (gpt2 vocabularies whose split tokenizer.json can hold)
Texts (bench_encode_peers.prepare_texts): en (20 MB), zh (8.9 MB), c (20 MB of C
headers); ``--quick``: their first 300 KB.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bench_encode_peers as peers  # noqa: E402
import corpora  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = Path.home() / ".cache" / "bpe-gui-tests" / "llama-cpp-python-0.3.36-models"
GGUF_NAMES = ("qwen2", "llama-bpe", "command-r", "gemma-4", "llama-spm")

CHILD = r"""
import hashlib, json, os, sys, time
from array import array
lib, path, texts, cpu = sys.argv[1:5]
if cpu:
    os.sched_setaffinity(0, {int(cpu)})
def hwm():
    return next(int(l.split()[1]) for l in open("/proc/self/status")
                if l.startswith("VmHWM")) / 1024
c = time.process_time()
if lib == "bpe-gui":
    from bpe_gui.engine.formats import load_tokenizer
    from bpe_gui.engine.text import scanner   # (the scanner's tables, at import)
    scanner._ready()
    imp = time.process_time() - c
    c = time.process_time()
    tok = load_tokenizer(path)
    enc = tok.encode
elif lib == "sentencepiece":
    import sentencepiece
    imp = time.process_time() - c
    c = time.process_time()
    enc = sentencepiece.SentencePieceProcessor(model_file=path).encode
elif lib == "mistral-common":
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    imp = time.process_time() - c
    c = time.process_time()
    tk = Tekkenizer.from_file(path)
    enc = lambda s: tk.encode(s, bos=False, eos=False)
elif lib == "tokenizers":
    from tokenizers import Tokenizer
    imp = time.process_time() - c
    c = time.process_time()
    tk = Tokenizer.from_file(path)
    enc = lambda s: tk.encode(s, add_special_tokens=False).ids
elif lib == "llama.cpp":
    import llama_cpp as L
    log = L.llama_log_callback(lambda *a: None)   # (kept: llama.cpp calls it later)
    L.llama_log_set(log, None)
    L.llama_backend_init()
    imp = time.process_time() - c
    c = time.process_time()
    params = L.llama_model_default_params()
    params.vocab_only = True
    model = L.llama_model_load_from_file(path.encode(), params)
    if not model:
        raise SystemExit("llama.cpp did not load the file")
    vocab = L.llama_model_get_vocab(model)
    def enc(s):
        b = s.encode("utf-8")
        n = len(b) + 16
        out = (L.llama_token * n)()
        k = L.llama_tokenize(vocab, b, len(b), out, n, False, True)
        if k < 0:
            raise SystemExit(f"llama_tokenize wants {-k} tokens")
        return array("i", bytes(memoryview(out))[:4 * k])
else:
    raise SystemExit(f"unknown library {lib}")
res = {"import": imp, "load": time.process_time() - c, "rss_load": hwm(), "texts": {}}
for label, file in json.loads(texts).items():
    text = open(file, encoding="utf-8").read()
    c = time.process_time()
    ids = enc(text)
    s = time.process_time() - c
    a = array("I", ids)
    res["texts"][label] = {"cpu": s, "n": len(a),
                           "digest": hashlib.sha256(a.tobytes()).hexdigest()[:16]}
    del ids, a, text
res["rss"] = hwm()
print(json.dumps(res))
"""


# ----- files ---------------------------------------------------------------------------
def clip_gz(data: Path) -> Path | None:
    """bpe_simple_vocab_16e6.txt.gz from the open_clip_torch sdist (fetched once)."""
    out = data / "files" / "clip" / "bpe_simple_vocab_16e6.txt.gz"
    if out.exists():
        return out
    wheels = data / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    have = sorted(wheels.glob("open_clip_torch-*"))
    if not have:
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                            "open_clip_torch", "-d", str(wheels), "-q"], capture_output=True)
        have = sorted(wheels.glob("open_clip_torch-*"))
        if r.returncode or not have:
            return None
    out.parent.mkdir(parents=True, exist_ok=True)
    src = have[-1]
    if src.suffix == ".whl":
        with zipfile.ZipFile(src) as z:
            name = next(n for n in z.namelist() if n.endswith("bpe_simple_vocab_16e6.txt.gz"))
            out.write_bytes(z.read(name))
    else:
        import tarfile
        with tarfile.open(src) as tf:
            m = next(m for m in tf.getmembers() if m.name.endswith("bpe_simple_vocab_16e6.txt.gz"))
            f = tf.extractfile(m)
            assert f is not None
            out.write_bytes(f.read())
    return out


def clip_json(gz: Path) -> Path:
    """CLIP's tokenizer.json as transformers' CLIPConverter writes it, from the merges."""
    out = gz.with_name("tokenizer.json")
    if out.exists():
        return out
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    lines = gzip.decompress(gz.read_bytes()).decode("utf-8").split("\n")
    merges = [tuple(x.split()) for x in lines[1:49152 - 256 - 2 + 1]]
    from bpe_gui.engine.formats.clip_fmt import byte_alphabet
    alphabet = byte_alphabet()
    vocab = alphabet + [c + "</w>" for c in alphabet] + ["".join(m) for m in merges] + \
        ["<|startoftext|>", "<|endoftext|>"]
    hf = Tokenizer(models.BPE({t: i for i, t in enumerate(vocab)}, merges,
                              end_of_word_suffix="</w>", continuing_subword_prefix="",
                              unk_token="<|endoftext|>"))
    hf.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(
        Regex(r"\s+"), " "), normalizers.Lowercase()])
    hf.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(
        r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"""
        r"""|[^\s\p{L}\p{N}]+"""), behavior="removed", invert=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False)])
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens(["<|startoftext|>", "<|endoftext|>"])
    d = json.loads(hf.to_str())
    d["model"]["continuing_subword_prefix"] = None
    out.write_text(json.dumps(d, ensure_ascii=False), "utf-8")
    return out


def gguf_json(gguf: Path, data: Path) -> Path | None:
    """The GGUF vocabulary exported by bpe-gui as tokenizer.json (None: not exportable)."""
    out = data / "files" / "gguf-json" / gguf.stem / "tokenizer.json"
    if out.exists():
        return out
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    try:
        tok = load_tokenizer(gguf)
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            made = export_tokenizer(tok, Path(tmp) / "x", "hf")[0]
            out.write_bytes(Path(made).read_bytes())
    except Exception:   # a vocabulary whose split tokenizer.json cannot hold
        return None
    return out


def has(module: str) -> bool:
    try:
        __import__(module)
    except Exception:
        return False
    return True


def jobs(data: Path, models: Path, only: set[str],
         gguf_names: tuple[str, ...] = GGUF_NAMES) -> list[tuple[str, str, str, Path]]:
    """(format, file label, library, path)."""
    out = []
    files = peers.prepare_files(data, data / "wheels")
    if "spm" in only:
        p = files["spm-model"]
        out += [("spm", "Mistral 7B tokenizer.model", "bpe-gui", p),
                ("spm", "Mistral 7B tokenizer.model", "sentencepiece", p)]
    if "tekken" in only and has("mistral_common"):
        import mistral_common
        p = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
        out += [("tekken", "tekken_240911.json", "bpe-gui", p),
                ("tekken", "tekken_240911.json", "mistral-common", p)]
    if "clip" in only:
        gz = clip_gz(data)
        if gz is None:
            print("clip: the open_clip_torch sdist could not be fetched; skipped")
        else:
            j = clip_json(gz)
            out += [("clip", "CLIP tokenizer.json", "bpe-gui", j),
                    ("clip", "CLIP tokenizer.json", "tokenizers", j),
                    ("clip", "CLIP bpe_simple_vocab_16e6.txt.gz", "bpe-gui", gz)]
    if "gguf" in only:
        llama = has("llama_cpp")
        if not llama:
            print("gguf: llama-cpp-python is not installed; llama.cpp itself is not run")
        for name in gguf_names:
            g = models / f"ggml-vocab-{name}.gguf"
            if not g.is_file():
                print(f"{g} missing: run tests/engine/formats once (they cache it)")
                continue
            label = g.name
            out.append(("gguf", label, "bpe-gui", g))
            if llama:
                out.append(("gguf", label, "llama.cpp", g))
            j = gguf_json(g, data) if name != "llama-spm" else None
            if j is not None:
                out.append(("gguf", label + " as tokenizer.json", "tokenizers", j))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="spm,tekken,clip,gguf")
    ap.add_argument("--texts", default="en,zh,c")
    ap.add_argument("--gguf", default=",".join(GGUF_NAMES),
                    help="the GGUF vocabularies (names of ggml-vocab-NAME.gguf)")
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "bpe_gui")],
                   check=True, stdout=subprocess.DEVNULL)
    texts = {k: v for k, v in peers.prepare_texts(args.data, args.quick).items()
             if k in args.texts.split(",")}
    env = peers.child_env(args.data, 1)
    cpu = str(max(os.sched_getaffinity(0)))
    rows = []
    digests: dict[tuple[str, str], dict[str, str]] = {}
    for fmt, label, lib, path in jobs(args.data, args.models, set(args.only.split(",")),
                                      tuple(args.gguf.split(","))):
        res, peak = peers.run(CHILD, [lib, str(path), json.dumps({k: str(v) for k, v in
                                                                   texts.items()}), cpu],
                              env, args.timeout)
        key = (fmt, label.removesuffix(" as tokenizer.json"))
        if isinstance(res, str):
            rows.append((fmt, label, lib, res, peak))
            print(f"{fmt:7} {label:40} {lib:15} {res}", flush=True)
            continue
        if "txt.gz" not in label:
            digests.setdefault(key, {})[lib] = json.dumps(
                {k: v["digest"] for k, v in res["texts"].items()})
        rows.append((fmt, label, lib, res, peak))
        enc = "  ".join(f"{k} {v['cpu']:.2f}" for k, v in res["texts"].items())
        # (load in ms here: a SentencePiece .model loads in under 0.01 s)
        print(f"{fmt:7} {label:40} {lib:15} import {res['import']:.2f} s  load {res['load']:.3f} s"
              f" ({res['rss_load']:.0f} MB)"
              f"  encode {enc}  peak {peak:.0f} MB", flush=True)
    lines = ["| format | file | library | import s | load s | " +
             " | ".join(f"encode {t} s" for t in texts) + " | peak MB (after load) | ids |",
             "|---" * (7 + len(texts)) + "|"]
    for fmt, label, lib, res, peak in rows:
        key = (fmt, label.removesuffix(" as tokenizer.json"))
        if isinstance(res, str):
            lines.append(f"| {fmt} | {label} | {lib} | {res} |" + " |" * (len(texts) + 3))
            continue
        d = digests.get(key, {})
        same = "" if "txt.gz" in label or len(d) < 2 else \
            ("equal" if len(set(d.values())) == 1 else
             "equal to " + ", ".join(k for k, v in d.items() if v == d.get(lib) and k != lib)
             if any(v == d.get(lib) for k, v in d.items() if k != lib) else "DIFFER")
        name = f"**{lib}**" if lib == "bpe-gui" else lib
        lines.append(f"| {fmt} | {label} | {name} | {res['import']:.2f} | {res['load']:.2f} | " +
                     " | ".join(f"{res['texts'][t]['cpu']:.2f}" if t in res["texts"] else "-"
                                for t in texts) +
                     f" | {peak:.0f} ({res['rss_load']:.0f}) | {same} |")
    table = "\n".join(lines)
    print("\n" + table)
    if args.markdown:
        args.markdown.write_text(table + "\n", "utf-8")


if __name__ == "__main__":
    main()
