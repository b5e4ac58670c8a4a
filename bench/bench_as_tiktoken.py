"""What ``tok.as_tiktoken()`` costs: its calls against the native ones they forward to.

    python bench/bench_as_tiktoken.py [--rounds 9] [--mb 2] [--threads 2] [--corpus XZ]

One process, OpenAI's cl100k ranks (the npm package tiktoken via
tests/engine/tiktoken_files.py; BPE_GUI_TIKTOKEN_TGZ names the package); documents of
about 2,000 characters cut from ../shared/corpora's English. Each round times the native
call and the face's, in alternating order, on the same batch (warmed once); printed: the
median seconds of each, face / native of the medians and of the minima (issue 87 asks
within 1.05). Rows:
``encode_ordinary_batch`` (the batch on ``--threads`` threads), ``encode`` over the documents
one by one (tiktoken's defaults on the face), ``decode_batch``, and 10,000 calls on a
batch of one word (what forwarding costs alone).
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

from bpe_gui.engine import load_tokenizer  # noqa: E402
from tiktoken_files import npm_ranks  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--mb", type=float, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--corpus", type=Path,
                    default=ROOT.parent / "shared" / "corpora" / "en-gutenberg-20mb.txt.xz")
    a = ap.parse_args()
    built = npm_ranks("cl100k_base", Path(tempfile.mkdtemp()))
    if built is None:
        sys.exit("set BPE_GUI_TIKTOKEN_TGZ to the npm package tiktoken (npm pack tiktoken)")
    tok = load_tokenizer(built[0])
    enc = tok.as_tiktoken()
    text = lzma.open(a.corpus, "rt", encoding="utf-8").read(int(a.mb * 1e6))
    docs = [text[i:i + 2000] for i in range(0, len(text), 2000)]
    ids = tok.encode_ordinary_batch(docs, num_threads=a.threads)
    n = a.threads
    rows = {
        "encode_ordinary_batch": (lambda: tok.encode_ordinary_batch(docs, num_threads=n),
                                  lambda: enc.encode_ordinary_batch(docs, num_threads=n)),
        "encode (one by one)": (lambda: [tok.encode(d, disallowed_special=()) for d in docs],
                                lambda: [enc.encode(d) for d in docs]),
        "decode_batch": (lambda: tok.decode_batch(ids), lambda: enc.decode_batch(ids)),
        # the forwarding alone: 10,000 calls on a batch of one word
        "10k tiny batches": (lambda: [tok.encode_ordinary_batch(["hi"], num_threads=1)
                                      for _ in range(10_000)],
                             lambda: [enc.encode_ordinary_batch(["hi"], num_threads=1)
                                      for _ in range(10_000)]),
    }
    print(f"{len(docs)} documents, {len(text) / 1e6:.1f} M characters, {a.rounds} rounds, "
          f"threads={n}")
    print(f"{'call':24} {'native s':>9} {'face s':>9} {'face/native':>12} {'(of minima)':>12}")
    for name, (native, face) in rows.items():
        assert native() == face()   # (warm, and the same answer)
        times: dict[str, list[float]] = {"native": [], "face": []}
        for r in range(a.rounds):
            order = [("native", native), ("face", face)]
            for who, call in (order if r % 2 == 0 else order[::-1]):
                t = time.perf_counter()
                call()
                times[who].append(time.perf_counter() - t)
        nat, fac = statistics.median(times["native"]), statistics.median(times["face"])
        least = min(times["face"]) / min(times["native"])
        print(f"{name:24} {nat:9.4f} {fac:9.4f} {fac / nat:12.3f} {least:12.3f}")


if __name__ == "__main__":
    main()
