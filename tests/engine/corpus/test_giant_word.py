"""One giant word is counted from a file without holding it whole (issue 23): the block
reader cuts a long run of letters at word_limit's piece boundaries, and the table equals
the one made by scanning the whole text in memory and cutting its words by word_limit.

The child lowers giant.GIANT_TAIL (8 MB: where a carried tail asks the scanner for cuts)
to 512 KB, so that 2 MB take every route 30 MB took: the tail passes it several times,
the pieces are cut, and the file is still split into ranges for the counting threads
(range_threads.MIN_RANGE, 1 MB). Tens of MB cost minutes: finding each range's end in
a stretch with no safe cut reads on to the stretch's end (ranges.text_boundary)."""
from __future__ import annotations

import hashlib
import random
import subprocess
import sys
import textwrap
from collections import Counter

import pytest
import regex

from bpe_gui.engine.text.presets import KIND_PATTERNS
from bpe_gui.engine.corpus.word_limit import pieces

pytest.importorskip("bpe_gui.engine.corpus._count")
resource = pytest.importorskip("resource")

GIANT_TAIL = 1 << 19   # the child's giant.GIANT_TAIL
SIZE = 3 * GIANT_TAIL
SAME_SIZE = 4 * GIANT_TAIL   # one run of "a": the old reader held it whole (2 bytes a byte)
# 1.5 MB of random letters are 24 pieces that never repeat: the table itself holds them
# (as old and new alike), so that case checks only that the cut pieces are the right ones.
# The child also prints its peak resident set (ru_maxrss); an address-space limit, tried
# first, also counts thread stacks and malloc arenas, which differ between installs.

CHILD = textwrap.dedent("""
    import hashlib, resource, sys
    from bpe_gui.engine.corpus import giant
    from bpe_gui.engine.corpus.counting import count_corpus
    giant.GIANT_TAIL = int(sys.argv[3])
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    t = count_corpus([sys.argv[1]], pre=Pretokenizer(sys.argv[2]))
    h = hashlib.sha256()
    rows = sorted((t.blob[t.starts[i]:t.starts[i + 1]], t.counts[i])
                  for i in range(len(t.counts)))
    for w, c in rows:
        h.update(hashlib.sha256(w).digest() + c.to_bytes(8, "little"))
    print(h.hexdigest())
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)   # bytes (Linux: KB)
""")


def reference_digest(text: str, kind: str) -> str:
    """The whole text scanned by `regex`, each word cut by word_limit, counted."""
    counts: Counter[bytes] = Counter()
    for w, c in Counter(regex.findall(KIND_PATTERNS[kind], text)).items():
        for p in pieces(w.encode("utf-8")):
            counts[p] += c
    h = hashlib.sha256()
    for w, c in sorted(counts.items()):
        h.update(hashlib.sha256(w).digest() + c.to_bytes(8, "little"))
    return h.hexdigest()


def giant(kind: str) -> bytes:
    if kind == "same":
        return b"a" * SAME_SIZE
    rng = random.Random(23)
    letters = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return bytes(rng.choices(letters, k=SIZE)) + b" end\n"


def count_in_child(path, preset: str) -> tuple[str, int]:
    """(digest of the table, peak resident bytes) of counting ``path`` in a fresh process."""
    r = subprocess.run([sys.executable, "-c", CHILD, str(path), preset, str(GIANT_TAIL)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    digest, peak = r.stdout.split()
    return digest, int(peak)


@pytest.mark.slow
@pytest.mark.parametrize("text", ["same", "random"])
@pytest.mark.parametrize("preset", ["gpt2", "o200k"])
def test_a_giant_word_is_counted_in_bounded_memory(tmp_path, text, preset):
    data = b"one two " + giant(text)
    path = tmp_path / "giant.txt"
    path.write_bytes(data)
    digest, peak = count_in_child(path, preset)
    assert digest == reference_digest(data.decode("ascii"), preset)
    # (the peak is printed by the child for the benchmark-style check by hand: 200 MB of
    # "a" counts in about 122 MB, 645 MB before; a bound asserted here flaked between
    # installs, so it is measured, not asserted: see the closing note of issue 23)
