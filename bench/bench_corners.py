"""Issue 29's "no slow corner": bpe-gui's speed on each corner text against its English
speed, for every published file kind, in one run.

    python bench/bench_corners.py [--data DIR] [--files cl100k,llama3] [--repeat 2] [--peers]
                                  [--texts long-words,unicode] [--root CHECKOUT] [--bytes N]

Files and texts as bench_encode_peers.py prepares them (the same --data folder; run that
script or bench/corpora.py once to fetch and build them): cl100k, o200k, Llama 3.2, Qwen2
and the SentencePiece-style tokenizer.json; the 2 MB corner texts of corpora.CORNERS (long
words, whitespace runs, digits, emoji, random Unicode, decomposed accents) and as many bytes
of the English text (--english-bytes to change it: a fresh tokenizer's first touch of its
tables, ~12 ms here, is a cost per encode, so a text twice the size pays half of it per
byte; until round 9 the English was 4 MB against the corners' 2). Each (file, text): a
freshly loaded tokenizer, one whole-text encode, CPU seconds, best of --repeat; the table
gives MB/s and how many times slower than English (the issue's bound: 2x). Ids are
checked elsewhere (bench/check_encode_ids.py covers the same corners against tiktoken /
HF tokenizers). Before the timed encodes one tokenizer encodes every text once, untimed,
so that every file's encodes run on a heap earlier encodes have grown (without it the
first file's English ran on fresh pages alone and read about 2x slower).

--bytes N times the first ~N bytes of each corner (and as many of English): the
corners at the size of a pasted text.

--texts keeps some corners only (English is always timed: the bound is against it);
--root times another checkout's build of bpe-gui with this script (bench/ab_builds.py:
a change's before and after by one harness).

--peers adds a table per peer (fastokens on every file it reads, tiktoken on cl100k and
o200k), timed the same way in the same process, each against its own English speed: do
the peers have the same slow corners? A peer whose ids differ from bpe-gui's on a text
gets "(ids differ)" in that cell. The peers run after ours in the same process, on pages
already faulted in: where fresh memory is slow to fault in (this virtual machine: ~0.75
ms a megabyte), that flatters their English column against ours (bench/README.md,
round 8).
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import corpora  # noqa: E402
from bench_encode_peers import FILES, LOADERS, READS, prepare_files, prepare_texts  # noqa: E402

KINDS = ("cl100k", "o200k", "llama3", "qwen2", "spm")
PEERS = ("fastokens", "tiktoken")


def speeds(make, texts: dict[str, str], repeat: int, want: dict | None = None) -> dict:
    """MB/s per text (best of `repeat`, a fresh tokenizer each time, CPU time), and whether
    the ids equal want's."""
    out = {}
    for name, text in texts.items():
        size, best, ids = len(text.encode("utf-8")), float("inf"), None
        for _ in range(repeat):
            enc = make()
            enc("a")
            gc.collect()
            t = time.process_time()
            ids = enc(text)
            best = min(best, time.process_time() - t)
        out[name] = (size / best / 1e6, want is None or list(ids) == want[name])
    return out


def row(label: str, sp: dict) -> str:
    en = sp["English"][0]
    cells = [f"{en:.0f} MB/s"] + [
        f"{v:.0f} MB/s, " + (f"**{en / v:.1f}x slower**" if en / v > 2 else f"{en / v:.1f}x")
        + ("" if same else " (ids differ)")
        for name, (v, same) in sp.items() if name != "English"]
    return f"| {label} | " + " | ".join(cells) + " |"


def cut(text: str, size: int) -> str:
    """The text's first whole lines within `size` bytes of UTF-8 (its first `size` bytes'
    characters when its first line is longer)."""
    head = text.encode("utf-8")[:size]
    end = head.rfind(b"\n") + 1
    return (head[:end] if end else head).decode("utf-8", "ignore")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    ap.add_argument("--files", default=",".join(KINDS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--english-bytes", type=int, default=0,
                    help="bytes of English to compare with (default: the corners' mean size)")
    ap.add_argument("--bytes", type=int, default=0,
                    help="cut each corner to about this many bytes (whole lines; English too): "
                         "the corners of a text a user pastes, where a process's fixed costs "
                         "and the size thresholds (the normal forms' C path from 2,048 "
                         "characters) weigh more")
    ap.add_argument("--peers", action="store_true",
                    help="also time fastokens and tiktoken on the same texts")
    ap.add_argument("--texts", default=",".join(corpora.CORNERS),
                    help="the corners to time (English always)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the checkout whose bpe-gui to time (its extensions built)")
    args = ap.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    from bpe_gui.engine.formats import load_tokenizer
    if not Path(sys.modules["bpe_gui"].__file__).resolve().is_relative_to(args.root.resolve()):
        sys.exit(f"bench_corners: bpe_gui came from {sys.modules['bpe_gui'].__file__}, "
                 f"not from {args.root}")

    files = prepare_files(args.data, args.data / "wheels")
    unknown = set(args.texts.split(",")) - set(corpora.CORNERS)
    if unknown:
        sys.exit(f"bench_corners: no corner {', '.join(sorted(unknown))} "
                 f"(known: {', '.join(corpora.CORNERS)})")
    corners = {name: corpora.corner(name, args.data).read_text("utf-8")
               for name in corpora.CORNERS if name in args.texts.split(",")}
    if args.bytes:
        corners = {name: cut(text, args.bytes) for name, text in corners.items()}
    size = args.english_bytes or sum(len(t.encode("utf-8")) for t in corners.values()) // len(corners)
    english = prepare_texts(args.data, quick=False)["en"].read_bytes()[:size]
    english = english[:english.rfind(b"\n") + 1].decode("utf-8")
    print(f"English: {len(english.encode('utf-8')):,} bytes; the corners: "
          + ", ".join(f"{n} {len(t.encode('utf-8')):,}" for n, t in corners.items()) + "\n")
    texts = {"English": english, **corners}
    header = "| file | " + " | ".join(texts) + " |\n" + "|---" * (len(texts) + 1) + "|"
    print(header)
    # Untimed, once: a tokenizer encodes every text and is dropped, so the first file's
    # encodes run on the same heap as the others' (in a process's first encodes every
    # list and table is fresh memory; later ones reuse what earlier ones freed: cl100k,
    # the first file, had its English at 41-45 MB/s without this, the others 76-84).
    warm = load_tokenizer(files[args.files.split(",")[0]]).encode
    for text in texts.values():
        warm(text)
    del warm
    gc.collect()
    ours = {}
    for kind in args.files.split(","):
        def make(kind=kind):
            return load_tokenizer(files[kind]).encode
        print(row(kind, speeds(make, texts, args.repeat)), flush=True)
        if args.peers:
            tok = load_tokenizer(files[kind])
            ours[kind] = {name: tok.encode(text) for name, text in texts.items()}
    for lib in PEERS if args.peers else ():
        namespace: dict = {}
        exec(LOADERS, namespace)
        print(f"\n{lib} (each against its own English speed):\n\n{header}")
        for kind in args.files.split(","):
            if kind not in READS[lib]:
                continue
            try:
                make = namespace["prepare"](lib, FILES[kind][0], str(files[kind]), FILES[kind][1])
            except ImportError as e:
                print(f"| {kind} | {lib} is not installed ({e}) |")
                break
            try:
                make()
            except Exception as e:  # noqa: BLE001 (a file the peer cannot read: said, not fatal)
                print(f"| {kind} | {lib} cannot read it: {str(e)[:80]} |")
                continue
            print(row(kind, speeds(make, texts, args.repeat, ours[kind])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
