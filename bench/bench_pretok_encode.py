"""Encoding with an imported .tiktoken file whose pattern the native scanner recognises,
against tiktoken, in one run (ids compared):

    python bench/bench_pretok_encode.py [--tiktoken-tgz FILE] [--mb 20] [--repeat 3]

The ranks come from the npm package ``tiktoken`` (offline once packed: see
bench_analysis.py); each file is given both its Python tiktoken ``pat_str`` (possessive,
recognised as the cl100k / o200k kind) and, for cl100k, js-tiktoken's spelling (the Llama 3
kind). The "regex" row runs the same tokenizer with BPE_GUI_NATIVE_SCAN=0 semantics (the
pattern run by ``regex.findall``), i.e. what an unrecognised pattern costs.
"""
from __future__ import annotations

import argparse
import json
import lzma
import sys
import tempfile
import time
from pathlib import Path

import tiktoken
import tiktoken.load

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_analysis import fetch_tgz, npm_ranks  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.text.presets import CL100K_PATTERN, LLAMA3_PATTERN, O200K_PATTERN  # noqa: E402

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


def best(fn, repeat: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiktoken-tgz", type=Path)
    ap.add_argument("--corpora", type=Path, default=CORPORA)
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with lzma.open(args.corpora / "en-gutenberg-20mb.txt.xz", "rt", encoding="utf-8") as f:
        text = f.read(int(args.mb * 1e6))
    mb = len(text.encode()) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tgz = args.tiktoken_tgz or fetch_tgz(work)
        if tgz is None:
            sys.exit("bench: give --tiktoken-tgz (npm pack tiktoken) or install npm")
        print(f"English, {mb:.1f} MB, best of {args.repeat} (shared machine)")
        for name, pat in (("cl100k_base", CL100K_PATTERN), ("cl100k_base", LLAMA3_PATTERN),
                          ("o200k_base", O200K_PATTERN)):
            ranks, meta = npm_ranks(tgz, name)
            path = work / f"{name}.tiktoken"
            path.write_bytes(ranks)
            (work / f"{name}.tiktoken.json").write_text(json.dumps({**meta, "pat_str": pat}))
            tok = load_tokenizer(path)
            enc = tiktoken.Encoding(name, pat_str=pat, mergeable_ranks=tiktoken.load.
                                    load_tiktoken_bpe(str(path)), special_tokens={})
            t_ours, ids = best(lambda: tok.encode(text), args.repeat)
            t_tt, ref = best(lambda: enc.encode_ordinary(text), args.repeat)
            words = tok.pipeline.pre.words                       # its Pretokenizer
            native, words.native = words.native, None          # the same pattern on regex
            t_rx, ids_rx = best(lambda: tok.encode(text), 1)
            words.native = native
            kind = words.kind
            print(f"{name} ({kind} kind): bpe-gui {mb / t_ours:6.1f} MB/s  tiktoken "
                  f"{mb / t_tt:6.1f} MB/s  ratio {t_tt / t_ours:4.2f}x  |  on regex "
                  f"{mb / t_rx:5.1f} MB/s  ids {'identical' if ids == ref == ids_rx else 'DIFFER'}")


if __name__ == "__main__":
    main()
