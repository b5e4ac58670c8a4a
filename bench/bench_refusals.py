"""How long hostile inputs take to be refused, and the Python memory it takes: the cases
whose speed the test suite once asserted (issue 63), measured here instead.

    python bench/bench_refusals.py [--rounds N] [folder for the files, default /tmp]

Each case builds its file (sparse where it is big: a head, then a hole that reads as NUL
bytes), then times the refusal (median of ``--rounds``, wall clock) with tracemalloc's
peak of the last round. The suite keeps what each refusal says and its memory bound;
``was`` is the wall-clock bound the suite asserted before. Nothing is asserted here.
"""
from __future__ import annotations

import argparse
import gzip
import os
import statistics
import struct
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bpe_gui.engine.errors import FormatError  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.formats.clip_fmt import read_clip_merges  # noqa: E402
from bpe_gui.engine.formats.gguf_fmt import read_metadata  # noqa: E402
from bpe_gui.engine.formats.sentencepiece_fmt import read_model  # noqa: E402
from bpe_gui.gui.controller.corpus_source import not_a_file  # noqa: E402


def _sparse(path: Path, head: bytes, size: int) -> Path:
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    return path


def _spm_piece() -> bytes:
    """SentencePiece's ``<unk>`` piece, as a ModelProto field (protobuf by hand)."""
    def field(n: int, data: bytes) -> bytes:
        return bytes([n << 3 | 2, len(data)]) + data
    return field(1, field(1, b"<unk>") + b"\x15" + struct.pack("<f", 0.0) + b"\x18\x02")


def cases(root: Path) -> list[tuple[str, str, Callable[[], object]]]:
    """(name, the bound the suite asserted, the refusal to time)."""
    fifo = root / "pipe.txt"
    os.mkfifo(fifo)
    bomb = root / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"a b\n" * (50 << 20), compresslevel=9))
    spm_big = _sparse(root / "huge.model", _spm_piece(), 1 << 30)
    spm_junk = root / "g.model"
    spm_junk.write_bytes(_spm_piece() + os.urandom(4 << 20))
    rnd = os.urandom(1 << 20)
    gguf_tok = _sparse(root / "garbage.gguf", b"GGUF" + struct.pack("<I", 3) + rnd, 1 << 30)
    gguf_v3 = _sparse(root / "garbage3.gguf", b"GGUF" + struct.pack("<I", 3) + rnd, 1 << 30)
    gguf_nov = _sparse(root / "garbage_nov.gguf", b"GGUF" + rnd, 1 << 30)
    return [
        ("a FIFO opened as a corpus (the window's check)", "< 2 s",
         lambda: not_a_file([str(fifo)])),
        ("CLIP merges: a gzip bomb (200 MiB inside)", "< 3 s",
         lambda: read_clip_merges(bomb)),
        ("SentencePiece: a 1 GiB .model", "< 1 s", lambda: read_model(spm_big)),
        ("SentencePiece: 4 MiB of garbage after a head", "< 2 s",
         lambda: read_model(spm_junk)),
        ("GGUF: 1 GiB of garbage, load_tokenizer", "< 5 s",
         lambda: load_tokenizer(gguf_tok)),
        ("GGUF: 1 GiB of garbage, read_metadata (v3)", "< 2 s",
         lambda: read_metadata(gguf_v3)),
        ("GGUF: 1 GiB of garbage, read_metadata (no version)", "< 2 s",
         lambda: read_metadata(gguf_nov)),
    ]


def measure(refuse: Callable[[], object], rounds: int) -> tuple[float, float, str]:
    """(median seconds, peak MB of the last round, what it answered)."""
    times, peak, said = [], 0.0, ""
    for r in range(rounds):
        last = r == rounds - 1
        if last:
            tracemalloc.start()
        t = time.perf_counter()
        try:
            got = refuse()
            said = f"returned {str(got)[:60]!r}"
        except FormatError as e:
            said = str(e).split(": ", 1)[-1][:60]
        times.append(time.perf_counter() - t)
        if last:
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
    return statistics.median(times), peak, said


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as d:
        found = cases(Path(d))
        print(f"{'case':52} {'secs':>7} {'peak MB':>8} {'was':>6}   answer")
        for name, was, refuse in found:
            secs, peak, said = measure(refuse, args.rounds)
            print(f"{name:52} {secs:7.3f} {peak:8.1f} {was:>6}   {said}")


if __name__ == "__main__":
    main()
