"""Where bpe-gui's encode spends its instructions, per stage (issue 29): callgrind counts of
one whole-text ``Tokenizer.encode``, per byte of text, for each file and text of
bench_encode_peers.py.

    python bench/profile_encode.py [--files cl100k,llama3] [--texts en,zh] [--bytes 5000000]
                                   [--python-bytes 1000000] [--keep DIR]

Each case runs under ``valgrind --tool=callgrind --instr-atstart=no``: the tokenizer is
loaded and warmed with ``encode("a")`` uninstrumented, then the script turns
instrumentation on (``callgrind_control -i on``) for the one encode of the text's first
``--bytes`` bytes (``--python-bytes`` for the files that run on the Python pipeline: Qwen2's
NFC, Metaspace) and off again. Every instruction is then put in a stage by the source line
it comes from (inlined code included: the line's file and the C function around it), so
the cache lookups inlined into wc_encode_utf8 count as the word cache, not as the loop.
Files and texts are prepared by bench_encode_peers.py (same --data folder). Counts do not
depend on the machine's load; a run of all 20 cases takes about 30 minutes on one core.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import FILES, TEXTS, prepare_files, prepare_texts  # noqa: E402

CSRC = ROOT / "bpe_gui" / "engine" / "csrc"
# our C sources by file name (csrc/ is in folders: merge/, scan/, imported/...)
SOURCES = {p.name: p for p in CSRC.rglob("*") if p.suffix in (".c", ".h", ".inc")}
PYTHON_PATH_FILES = ("qwen2", "spm")   # the per-word Python pipeline (see the README)

HARNESS = r"""
import os, subprocess, sys
path, text, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
from bpe_gui.engine.formats import load_tokenizer
tok = load_tokenizer(path)
b = open(text, "rb").read()[:nbytes]
t = b[:b.rfind(b"\n") + 1].decode("utf-8")
tok.encode("a")
# the tables a process makes once (NFC's, made on the first long text it changes), as
# bench_corners.py's untimed first encodes make them: not the tokenizer's own caches
from bpe_gui.engine.text import normal_forms
for form in ("NFC", "NFKC"):
    normal_forms.normalize(form, t)
def ctl(how):
    subprocess.run(["callgrind_control", "-i", how, str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)
ctl("on")
ids = tok.encode(t)
ctl("off")
print("BYTES", len(t.encode("utf-8")), len(ids), file=sys.stderr)
"""

# stage -> (label, test on (object, source file, C function or symbol))
STAGES = [
    ("str→UTF-8", "the text's UTF-8: util/utf8.h (ours), or PyUnicode_AsUTF8AndSize"),
    ("specials", "special/added tokens: encoder.c's memchr search, or the `regex` module"),
    ("scan", "the pre-tokenizer: scan.c and its .inc files, scan_fast.h's one-load words"),
    ("word cache", "encoder.c's loop over the words with its inline lookups, word_slow, the "
                   "per-thread table of long words (wordcache.c), memcmp of keys"),
    ("merge loop", "merge.c merge_scan / merge_heap / mt_encode_bytes"),
    ("pair ranks", "merge.c pair_rank / rank_of / short keys / maybe_token; pipe_tables.c find_key"),
    ("cut", "token_boundaries.c: long non-ASCII words split where no token crosses"),
    ("ids out", "encoder.c's stores of a new word's ids, the array's growth, memcpy"),
    ("Python list", "ids_list (the int objects into a list; PyList_New zeroes it), array"),
    ("Python pipeline", "interpreter, str/NStr/tuple/int objects, dict word cache"),
    ("word setup", "pipe_encode.c: a word's first symbols on the Python path"),
    ("normalizer", "unicodedata"),
    ("other", ""),
]
SCAN_FILES = {"scan.c", "scan_safe_boundaries.inc", "scan_giant.inc", "scan_stage2.inc", "scan_tables.inc",
              "scan.h", "scan_shared.c", "unicode_tables.h", "scan_fast.h"}
CACHE_FUNCS = {"hash_bytes", "cache_find", "cache_store", "wc_reset", "wc_segment", "wc_find",
               "wc_put", "cache_get", "cache_put", "set_of", "set_hash", "same_key", "load_key",
               "two_ids", "encode_piece_k", "encode_piece", "word_slow", "enc_encode"}


def parse(path: Path) -> collections.Counter:
    """Self cost per (object, source file, line, function) of a callgrind file; the file is
    the inlined one (fi=/fe=) where callgrind names one."""
    names: dict[str, dict[str, str]] = {"ob": {}, "fl": {}, "fn": {}}
    cost: collections.Counter = collections.Counter()
    ob = fl = fi = fn = None
    last, skip = 0, False

    def name(kind: str, rest: str) -> str:
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", rest)
        if not m:
            return rest
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), "?")
    kinds = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
             "fn": "fn", "cfn": "fn"}
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                pos = parts[0]
                last = last if pos == "*" else last + int(pos) if pos[0] in "+-" else int(pos)
                if skip:
                    skip = False
                elif len(parts) > 1:
                    cost[(ob, fi or fl, last, fn)] += int(parts[1])
                continue
            key, _, rest = line.rstrip("\n").partition("=")
            if key not in kinds and key != "calls":
                continue
            if key == "calls":
                skip = True   # the next line is the call's inclusive cost
                continue
            value = name(kinds[key], rest)
            if key == "ob":
                ob = value
            elif key == "fl":
                fl, fi = value, None
            elif key in ("fi", "fe"):
                fi = None if value == fl else value
            elif key == "fn":
                fn, fi = value, None
    return cost


_starts: dict[str, list[tuple[int, str]]] = {}


def c_function(path: str, line: int) -> str:
    """The C function around a line of one of our sources (by its definition lines)."""
    base = os.path.basename(path)
    if base not in _starts:
        found = []
        src = SOURCES[base].read_text("utf-8").splitlines() if base in SOURCES else []
        for i, text in enumerate(src, 1):
            m = re.match(r"^(?:static\s+|inline\s+|NO_MEMMOVE\s+|HOT\s+|COLD\s+|"
                         r"__attribute__\(\([^)]*\)\)\s+)*[A-Za-z_][\w\s*]*?\b(\w+)\s*\(", text)
            if m and not text.rstrip().endswith(";") and \
                    not text.startswith(("return", "if", "for", "while", "typedef", "#")):
                found.append((i, m.group(1)))
        _starts[base] = found
    name = "?"
    for i, n in _starts[base]:
        if i > line:
            break
        name = n
    return name


def stage(ob: str | None, fl: str | None, line: int, fn: str | None) -> str:
    ob, fn, base = ob or "", fn or "", os.path.basename(fl or "")
    if base in SCAN_FILES:
        return "scan"
    if base == "utf8.h":
        return "str→UTF-8"
    if base in ("emmintrin.h", "xmmintrin.h"):   # SSE2 intrinsics: the function around them
        if "encode_ref" in fn:
            return "str→UTF-8"
        return "merge loop" if re.search(r"merge_scan|mt_merge", fn) else "other"
    if base in ("hash.h", "grow.h"):   # inlined: the function around them says whose
        if re.search(r"find_key|model_key", fn):
            return "pair ranks"
        return "word cache" if re.search(r"wc_|cache|word_slow|enc_encode", fn) else "ids out"
    if base in SOURCES:
        f = c_function(fl or "", line)
        if base in ("wordcache.c", "encoder.c"):
            if f in ("special_at", "next_special"):
                return "specials"
            return "word cache" if f in CACHE_FUNCS else "ids out"
        if base == "token_boundaries.c":
            return "cut"
        if base == "merge.h" and re.search(r"enc_encode|encode_piece|word_slow|merge_at_boundaries", fn):
            return "cut" if "merge_at_boundaries" in fn else "word cache"   # its loads, inlined
        if base in ("merge.c", "merge.h"):
            return "pair ranks" if f in ("pair_rank", "rank_of", "maybe_token", "mt_find",
                                         "first_rank", "filter_bit", "slot_of", "load4", "load5",
                                         "load8", "mt_subh_bit", "short_key", "key_of",
                                         "short_bytes", "short_slot") else "merge loop"
        if base == "pipe_tables.c":
            return "pair ranks"
        if base == "pipe_encode.c":
            return "Python pipeline" if f in ("ids_tuple", "spans_of") else "word setup"
        if base == "encodemodule.c":
            return "str→UTF-8" if f == "encode_ref" else "Python list"
        if base == "cached_words.h":
            return "Python pipeline"
        return "other"
    if "libpython" in ob:
        if re.search(r"utf8_encoder|unicode_encode_utf8|PyUnicode_AsUTF8", fn):
            return "str→UTF-8"
        if re.search(r"^list_|PyList|app1|ins1", fn):
            return "Python list"
        return "Python pipeline"
    if "unicodedata" in ob:
        return "normalizer"
    if "_regex" in ob:
        return "specials"
    if "libc" in ob:
        if re.search(r"memcmp|bcmp", fn):
            return "word cache"
        if "memchr" in fn:
            return "specials"
        if re.search(r"mem(cpy|move)", fn):
            return "ids out"
        if "memset" in fn:
            return "Python list"   # PyList_New zeroes its items (and want_seen, once a call)
        return "Python pipeline" if re.search(r"malloc|free|_int_", fn) else "other"
    return "other"


def run_case(path: Path, text: Path, nbytes: int, out: Path) -> tuple[int, collections.Counter]:
    python = os.path.realpath(sys.executable)   # not a shim: valgrind must see the interpreter
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0", QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                           f"--callgrind-out-file={out}", python, "-c", HARNESS, str(path),
                           str(text), str(nbytes)], env=env, cwd=ROOT, capture_output=True,
                          text=True)
    m = re.search(r"^BYTES (\d+) (\d+)$", proc.stderr, re.M)
    if proc.returncode != 0 or not m:
        sys.exit(f"profile: {path.name} on {text.name} failed:\n{proc.stderr[-2000:]}")
    by = collections.Counter()
    for (ob, fl, line, fn), ir in parse(out).items():
        by[stage(ob, fl, line, fn)] += ir
    return int(m.group(1)), by


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--texts", default=",".join(TEXTS),
                    help="texts of bench_encode_peers.py, or corners of corpora.CORNERS")
    ap.add_argument("--bytes", type=int, default=5_000_000)
    ap.add_argument("--python-bytes", type=int, default=1_000_000)
    ap.add_argument("--keep", type=Path, help="keep the callgrind files here")
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            sys.exit(f"profile: needs {tool} (apt-get install valgrind)")
    files = prepare_files(args.data, args.data / "wheels")
    texts = prepare_texts(args.data, False)
    keep = args.keep or Path(tempfile.mkdtemp(prefix="bpe-gui-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    labels = [s for s, _ in STAGES]
    print("| file, text (bytes) | " + " | ".join(labels) + " | **total Ir/B** |")
    print("|---|" + "---|" * (len(labels) + 1))
    for f in args.files.split(","):
        for t in args.texts.split(","):
            n = args.python_bytes if f in PYTHON_PATH_FILES else args.bytes
            path = corpora.corner(t, args.data) if t in corpora.CORNERS else texts[t]
            size, by = run_case(files[f], path, n, keep / f"{f}-{t}.callgrind")
            cells = [by.get(s, 0) / size for s in labels]
            print(f"| {f} {t} ({size / 1e6:.0f} MB) | " +
                  " | ".join(f"{v:.0f}" if v >= 0.5 else "·" for v in cells) +
                  f" | **{sum(by.values()) / size:.0f}** |", flush=True)
    print("\nstages: " + "; ".join(f"{s}: {d}" for s, d in STAGES if d))
    if not args.keep:
        shutil.rmtree(keep)


if __name__ == "__main__":
    main()
