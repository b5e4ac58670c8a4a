"""What ``as_hf()`` costs: ``tok.as_hf().encode_batch(texts)`` against the tokenizer's own
``encode_batch`` (issue 87 asks within 5%), with tokenizers' own ``encode_batch`` on the
same file for scale.

    python bench/bench_as_hf.py [--rounds 9] [--mb 4] [--doc-chars 2000] [--offsets]

One process; rounds alternate the calls, each call timed on the same batch (documents of
``--doc-chars`` characters cut from ``--mb`` MB of the 20 MB English corpus in
shared/corpora (beside the checkout or above it), else the tinyshakespeare fixture), after one warm-up call each.
Times are the process's CPU seconds (``time.process_time``: every thread's, steadier than
wall time on a shared machine). Printed: median (min-max) per call, and as_hf / native.
Rows: ``native``
(``tok.encode_batch(texts, allowed_special="all", add_special_tokens=False)``, what as_hf
asks), ``as_hf ids`` (``[e.ids for e in hf.encode_batch(texts)]``), and each side with
every item read (``(ids, len(ids))``, ``(e.ids, len(e))``); with ``--offsets``
also ``as_hf ids+offsets`` (offsets and token strings read too: made when first read, one
``encode_with_offsets`` per text) and ``tokenizers`` (``[e.ids for e in
tk.encode_batch(texts)]``, which makes offsets whether read or not).

Tokenizers: a byte-level tokenizer.json that tokenizers trains on the text (GPT-2's
ByteLevel, 16k), and cl100k's ranks when the npm package tiktoken is here
(BPE_GUI_TIKTOKEN_TGZ, tests/engine/tiktoken_files.py).
"""
from __future__ import annotations

import argparse
import lzma
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "engine")]


def corpus(mb: float) -> str:
    found = [p / "shared" / "corpora" / "en-gutenberg-20mb.txt.xz" for p in ROOT.parents]
    path = next((p for p in found if p.is_file()),
                ROOT / "tests" / "fixtures" / "corpora" / "en-tinyshakespeare.txt.xz")
    with lzma.open(path, "rt", encoding="utf-8") as f:
        return f.read(int(mb * 1_000_000))


def tokenizers_file(text: str, folder: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([text], trainers.BpeTrainer(
        vocab_size=16_000, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = folder / "tokenizer.json"
    tk.save(str(path))
    return path


def timed(call) -> float:
    t = time.process_time()
    call()
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--mb", type=float, default=4.0)
    ap.add_argument("--offsets", action="store_true", help="also time reading offsets "
                    "and tokens, and tokenizers' own encode_batch (slow)")
    ap.add_argument("--doc-chars", type=int, default=2000)
    args = ap.parse_args()
    from bpe_gui.engine.formats import load_tokenizer
    text = corpus(args.mb)
    texts = [text[i:i + args.doc_chars] for i in range(0, len(text), args.doc_chars)]
    folder = Path(tempfile.mkdtemp())
    files = {"tokenizer.json (byte-level 16k)": tokenizers_file(text, folder)}
    from tiktoken_files import npm_ranks
    got = npm_ranks("cl100k_base", folder)
    if got is not None:
        files["cl100k_base.tiktoken"] = got[0]
    print(f"{len(texts)} texts of {args.doc_chars} characters ({len(text) / 1e6:.1f} MB), "
          f"median (min-max) of {args.rounds} rounds")
    for name, path in files.items():
        tok = load_tokenizer(path)
        hf = tok.as_hf()
        calls = {
            "native": lambda: tok.encode_batch(texts, allowed_special="all",
                                               add_special_tokens=False),
            "native, each read": lambda: [(ids, len(ids)) for ids in tok.encode_batch(
                texts, allowed_special="all", add_special_tokens=False)],
            "as_hf ids": lambda: [e.ids for e in hf.encode_batch(texts)],
            "as_hf, each read": lambda: [(e.ids, len(e)) for e in hf.encode_batch(texts)],
        }
        if args.offsets:
            calls["as_hf ids+offsets"] = lambda: [(e.ids, e.offsets, e.tokens)
                                                  for e in hf.encode_batch(texts)]
        if args.offsets and path.suffix == ".json":
            from tokenizers import Tokenizer
            tk = Tokenizer.from_file(str(path))
            calls["tokenizers"] = lambda: [e.ids for e in tk.encode_batch(texts)]
        assert calls["as_hf ids"]() == calls["native"]()
        times: dict[str, list[float]] = {k: [] for k in calls}
        for _ in range(args.rounds):
            for k, call in calls.items():
                times[k].append(timed(call))
        print(f"\n{name}")
        for k, ts in times.items():
            print(f"  {k:20s} {statistics.median(ts):7.3f} s ({min(ts):.3f}-{max(ts):.3f})")
        ratio = statistics.median(times["as_hf ids"]) / statistics.median(times["native"])
        print(f"  as_hf / native: {ratio:.3f} (median), "
              f"{min(times['as_hf ids']) / min(times['native']):.3f} (best)")


if __name__ == "__main__":
    main()
