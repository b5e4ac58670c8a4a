"""A slow, independent data-mixture program, for the tests of engine/analysis/mixture.py:
published merge lists (GPT-2 from Whisper's assets, cl100k from the npm package
``tiktoken``), merges recovered from ranks by a plain BPE written here, samples cut by
the ``regex`` module with the encoding's own pattern, pair counts kept by a plain
replay, and the whole program (every step, every pair) built at once and solved by
SciPy's ``linprog``: no lazy rounds, nothing of the engine.

Rows that every mixture satisfies are left out: where no category counts the pair more
than the merge (per byte of its sample), the row's coefficients of alpha are all >= 0
and v, w >= 0, so it holds whatever the solution.
"""
from __future__ import annotations

import base64
import json
import os
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from mixture_data import CORPORA

SAMPLE_FILES = {"en": "en-gutenberg-20mb.txt.xz", "zh": "zh-four-classic-novels.txt.xz",
                "py": "code-python-stdlib.py.txt.xz"}


def whisper_gpt2() -> Path | None:
    folder = os.environ.get("BPE_GUI_WHISPER_ASSETS")
    path = Path(folder) / "gpt2.tiktoken" if folder else None
    return path if path is not None and path.is_file() else None


def gpt2_pattern() -> str:
    """GPT-2's pre-tokenizer pattern, as tiktoken defines it (r50k_base)."""
    from tiktoken_files import tiktoken_definitions
    return tiktoken_definitions()["r50k_base"]["pat_str"]


def optimal(texts: dict[str, str], pattern: str, merges, shares: dict[str, float]) -> bool:
    """Whether ``shares`` reach the full program's optimum over these samples."""
    rows, T, names = program(texts, pattern, merges)
    _, optimum = solve(rows, T, len(names))
    _, at = solve(rows, T, len(names), [shares[n] for n in names])
    return abs(at - optimum) <= 1e-5 * max(1.0, abs(optimum))


def published(name: str, tmp: Path) -> tuple[Path, dict[bytes, int], str]:
    """(a .tiktoken file, its ranks, its pattern) of "gpt2" or "cl100k_base"; skips,
    saying how to get it, when it is not here."""
    if name == "gpt2":
        path = whisper_gpt2()
        if path is None:
            pytest.skip("GPT-2's gpt2.tiktoken is not here (pip download --no-deps "
                        "openai-whisper, unpack it, set BPE_GUI_WHISPER_ASSETS=.../whisper/assets)")
        return path, read_ranks(path.read_bytes()), gpt2_pattern()
    from tiktoken_files import NPM_HOW, npm_ranks
    got = npm_ranks(name, tmp)
    if got is None:
        pytest.skip(f"{name} is not here ({NPM_HOW})")
    path, meta = got
    (tmp / f"{name}.tiktoken.json").write_text(json.dumps(meta))
    return path, read_ranks(path.read_bytes()), meta["pat_str"]


def read_ranks(data: bytes) -> dict[bytes, int]:
    return {base64.b64decode(t): int(r) for t, r in
            (line.split() for line in data.decode("ascii").splitlines() if line)}


def merges_from_ranks(ranks: dict[bytes, int], n: int) -> list[tuple[bytes, bytes]]:
    """The first ``n`` merges: each token past the single bytes, by rank, cut by BPE over
    the lower ranks alone (the lowest-ranked adjacent pair merged first) into two parts."""
    out = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = [bytes([b]) for b in token]
        while len(parts) > 2:
            best = min(range(len(parts) - 1),
                       key=lambda i: ranks.get(parts[i] + parts[i + 1], 1 << 62))
            parts[best:best + 2] = [parts[best] + parts[best + 1]]
        out.append((parts[0], parts[1]))
        if len(out) == n:
            break
    return out


def sample(name: str, chars: int, skip: int = 0) -> str:
    import lzma
    with lzma.open(CORPORA / SAMPLE_FILES[name], "rt", encoding="utf-8") as f:
        f.read(skip)
        return f.read(chars)


class Replay:
    """One category's pair counts as training keeps them, merge after merge."""

    def __init__(self, text: str, pattern: str):
        import regex
        words = Counter(regex.findall(pattern, text))
        self.words = [[bytes([b]) for b in w.encode("utf-8")] for w in words]
        self.freq = list(words.values())
        self.counts: Counter = Counter()
        self.where: dict = defaultdict(set)
        for k, w in enumerate(self.words):
            self._add(k, 1)

    def _add(self, k: int, sign: int) -> None:
        w, f = self.words[k], self.freq[k]
        for p in zip(w, w[1:]):
            self.counts[p] += sign * f
            if sign > 0:
                self.where[p].add(k)

    def merge(self, a: bytes, b: bytes) -> None:
        for k in list(self.where.get((a, b), ())):
            self._add(k, -1)
            w, out, i = self.words[k], [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            self.words[k] = out
            self._add(k, 1)


def program(texts: dict[str, str], pattern: str, merges: list[tuple[bytes, bytes]]):
    """The full program's rows: (rows as [(step, pair, coefficients of alpha)], steps T)
    with counts per mean sample size, as the engine reports its objective."""
    names = list(texts)
    sizes = [len(texts[n].encode("utf-8")) for n in names]
    scale = [sum(sizes) / len(sizes) / s for s in sizes]
    replays = [Replay(texts[n], pattern) for n in names]
    rows = []
    for t, (a, b) in enumerate(merges):
        m = [r.counts.get((a, b), 0) * s for r, s in zip(replays, scale)]
        beats = set()
        for r, s, mi in zip(replays, scale, m):
            beats.update(p for p, c in r.counts.items() if c * s > mi)
        for p in beats:
            rows.append((t, p, [mi - r.counts.get(p, 0) * s
                                for r, s, mi in zip(replays, scale, m)]))
        for r in replays:
            r.merge(a, b)
    return rows, len(merges), names


def solve(rows, T: int, C: int, alpha: list[float] | None = None):
    """min sum v + sum w over the rows; ``alpha`` fixes the shares. (shares, objective)."""
    import numpy as np
    from scipy import sparse
    from scipy.optimize import linprog
    pairs = sorted({p for _, p, _ in rows})
    pcol = {p: C + T + i for i, p in enumerate(pairs)}
    n_var = C + T + len(pairs)
    r, c, d = [], [], []
    for i, (t, p, coef) in enumerate(rows):
        for j, x in enumerate(coef):
            r.append(i)
            c.append(j)
            d.append(-x)
        r += [i, i]
        c += [C + t, pcol[p]]
        d += [-1.0, -1.0]
    A = sparse.csr_matrix((d, (r, c)), shape=(len(rows), n_var))
    cost = np.concatenate([np.zeros(C), np.ones(n_var - C)])
    bounds = [(0, None)] * n_var
    fixed = alpha is not None
    if fixed:
        bounds[:C] = [(a, a) for a in alpha]
    res = linprog(cost, A_ub=A, b_ub=np.zeros(len(rows)),
                  A_eq=None if fixed else np.r_[np.ones(C), np.zeros(n_var - C)][None, :],
                  b_eq=None if fixed else [1.0], bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return list(res.x[:C]), float(res.fun)
