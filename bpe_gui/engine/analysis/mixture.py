"""What was a tokenizer trained on? The proportions of categories (languages, code,
domains) in its training data, inferred from the order of its merges (the idea of
Hayase et al. 2024, "Data Mixture Inference: What do BPE Tokenizers Reveal about their
Training Data?").

Training merged, at each step, the pair that was most frequent in the whole training
data, which is a mixture of categories. Given one sample per category, replay the merge
list on every sample (pre-tokenized by the tokenizer's own pre-tokenizer), keeping each
category's pair counts as training does. A mixture ``alpha`` (one share per category,
summing to 1) explains step t when no pair p had a higher mixed count than the merged
pair m_t::

    sum_i alpha_i * (c_i,t(m_t) - c_i,t(p)) >= 0        for every pair p

where c_i,t is category i's count before step t divided by its sample's size. Samples
are not the training data, so the constraints are softened by slacks: v_t >= 0 per step
and w_p >= 0 per pair shared by every step (a pair frequent in a sample but never merged
is absorbed once). The linear program minimises sum v_t + sum w_p.

There are too many (t, p) to write down, so constraints are added lazily: solve, find
the pairs that beat some step's merge under the current solution, add them (one per
pair a round, at its worst step), solve again, until none do or the proportions have
stopped moving (STEADY); constraints slack for a few solves running leave the program
(added again if violated again), which keeps each solve the size of what binds. The search is over every pair's count history: between two changes (the
core reports each change) a pair's mixed count is constant, so a constraint is violated
somewhere in that stretch iff the smallest "merge count + v_t" over the stretch is below
it (a range minimum over the steps); the step of that minimum is the one added.

The replay is the trainer's C core told which pair to merge (``train.MergeReplay``); the
program is solved by HiGHS (``pip install bpe-gui[analysis]``): kept in one model across
rounds through highspy, so each round's dual simplex starts from the last basis, or,
without highspy, solved afresh each round by SciPy's ``linprog``.

Example::

    >>> r = infer_mixture(tok, {"en": english_text, "zh": chinese_text, "py": code})
    >>> r.proportions                        # {'en': 0.61, 'zh': 0.09, 'py': 0.30}
    >>> r.steps[0].merge, r.steps[0].best_category
"""
from __future__ import annotations

from array import array
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .. import checks
from ..corpus.counting import count_corpus
from ..errors import Cancelled, CorpusError, SettingsError
from ..tokenizers.base import BaseTokenizer
from ..train import PAIR_RECORD, SKIP, MergeReplay
from .per_language import read_chunks

PER = 1_000_000     # MixtureStep counts are per this many bytes of sample
TOP_K = 4           # each category's best pairs before each step: runner-up candidates
CHUNK = 4096        # merges replayed per call (progress and cancel between calls)
MAX_ROUNDS = 30     # solve / add violated constraints rounds
ROUND_ADD = 20_000  # constraints added per round at most (the most violated first)
TOLERANCE = 1e-7    # a violation smaller than this (relative to the merge counts) is none
STEADY = 1e-3       # the proportions moved less than this in two rounds running: done
SLACK_SOLVES = 3    # a constraint slack in this many solves running leaves the program
USE_HIGHSPY = True  # warm-started rounds when highspy is installed (False: SciPy's linprog)
UNREACHABLE_SHARE = 0.02   # merges whose parts are not tokens: more than this, refuse

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class MixtureStep:
    """One merge as the samples explain it."""

    step: int                                  # 1-based merge index
    merge: tuple[bytes, bytes]                 # the pair merged at this step
    counts: dict[str, float]                   # each category's count of it before the step, per PER bytes
    runner_up: tuple[bytes, bytes] | None      # the strongest competing pair under the inferred mixture
    runner_up_counts: dict[str, float]         # (per PER bytes, as counts)
    best_category: str                         # the category that explains this merge best


@dataclass(frozen=True)
class MixtureResult:
    """``proportions``: category -> share (sums to 1); ``steps``: every merge used;
    ``evidence``: per category, the steps (1-based) whose merge it explains best;
    ``sample_bytes``: each sample's size in UTF-8 bytes."""

    proportions: dict[str, float]
    steps: list[MixtureStep]
    evidence: dict[str, list[int]]
    merges_used: int
    sample_bytes: dict[str, int]
    objective: float = 0.0          # sum of the slacks at the optimum (0: every merge explained)
    rounds: int = 0                 # solve rounds of the lazy constraints
    constraints: int = 0            # (step, pair) constraints in the final program
    merges_skipped: int = 0         # merges whose parts are not tokens of the list (left out)
    round_log: list = field(default_factory=list)   # per round: (pairs violating, largest)
    words: dict[str, int] = field(default_factory=dict)   # unique words of each sample


# ----- which tokenizers ----------------------------------------------------------------

def mixture_refusal(tokenizer: BaseTokenizer) -> str | None:
    """Why data-mixture inference cannot run on this tokenizer, in words for the user, or
    None when it can: it needs merges over bytes (byte-level BPE: GPT-2 files,
    tokenizer.json with ByteLevel, .tiktoken, tekken, GGUF ``gpt2``)."""
    meta = tokenizer.meta if isinstance(tokenizer.meta, dict) else {}
    what = _kind(meta)
    if tokenizer.n_merges == 0:
        return (f"This {what} has no merges, so there is no merge order to read a training "
                "mixture from. Data-mixture inference needs a BPE tokenizer's merge list.")
    model = str(meta.get("model") or "")
    spm = meta.get("format") in ("sentencepiece", "clip") or "SentencePiece" in model or \
        model == "Unigram" or (meta.get("format") == "gguf" and model != "gpt2")
    if tokenizer.mode != "byte" or spm:
        return (f"This {what} merges characters (with an end-of-word mark or SentencePiece's "
                "'▁'), not bytes, so its merges cannot be replayed on the bytes of a sample. "
                "Data-mixture inference needs a byte-level BPE tokenizer: GPT-2 files, a "
                "tokenizer.json with ByteLevel, a .tiktoken file, tekken.json or a GGUF "
                "'gpt2' vocabulary.")
    ids: set[bytes] = {bytes([i]) for i in range(256)}
    probe = min(tokenizer.n_merges, 2000)
    bad = 0
    for left, right in _merge_list(tokenizer, probe):
        if left in ids and right in ids:
            ids.add(left + right)
        else:
            bad += 1
    if bad > UNREACHABLE_SHARE * probe:
        return (f"This {what} merges tokens that are not bytes or earlier merges ({bad:,} "
                f"of its first {probe:,} merges), as SentencePiece-style vocabularies do "
                "('▁' for spaces, characters as symbols), so its merges cannot be replayed "
                "on the bytes of a sample. Data-mixture inference needs a byte-level BPE "
                "tokenizer.")
    return None


def check_mixture_tokenizer(tokenizer: BaseTokenizer) -> None:
    """SettingsError saying why, when :func:`mixture_refusal` refuses the tokenizer."""
    why = mixture_refusal(tokenizer)
    if why:
        raise SettingsError(why)


def _kind(meta: dict) -> str:
    return {"hf": "tokenizer.json", "tiktoken": ".tiktoken tokenizer", "gguf": "GGUF tokenizer",
            "tekken": "tekken tokenizer", "sentencepiece": "SentencePiece model",
            "clip": "CLIP tokenizer", "gpt2": "GPT-2 tokenizer"}.get(
                str(meta.get("format")), "tokenizer")


def _merge_list(tokenizer: BaseTokenizer, n: int) -> list[tuple[bytes, bytes]]:
    return [(bytes(a), bytes(b)) for a, b in tokenizer.merges[:n]]


def merge_ids(merges: Sequence[tuple[bytes, bytes]]) -> tuple[array, int]:
    """The replay's ids of each merge (a0, b0, a1, b1, ...; bytes are 0-255, the k-th
    merge made is 256 + k) and how many were left out (``SKIP``) because a part is
    neither a byte nor an earlier merge's token."""
    ids = {bytes([i]): i for i in range(256)}
    out = array("i")
    skipped = 0
    for left, right in merges:
        a, b = ids.get(left), ids.get(right)
        if a is None or b is None:
            out.extend((SKIP, SKIP))
            skipped += 1
            continue
        out.extend((a, b))
        ids.setdefault(left + right, 256 + len(out) // 2 - 1 - skipped)
    return out, skipped


# ----- samples -----------------------------------------------------------------------

def sample_files(path: str | Path) -> list[Path]:
    """The files a category's sample is read from: ``path`` itself, or every file of a
    folder (sorted; hidden files left out). CorpusError for a folder with no files."""
    p = Path(path).expanduser()
    if not p.is_dir():
        return [p]
    files = [f for f in sorted(p.iterdir()) if f.is_file() and not f.name.startswith(".")]
    if not files:
        raise CorpusError("is a folder with no files. Put the category's sample texts in "
                          "it, or name a file.", p)
    return files


def read_sample(paths: Sequence[str | Path], name: str = "") -> str:
    """One category's sample: its files' texts (UTF-8, .xz/.gz read as they are, .jsonl
    as its texts) joined by newlines. NotUTF8Error names the file and offset;
    CorpusError when there is no text at all."""
    texts = ["".join(read_chunks(Path(p).expanduser())) for p in paths]
    text = "\n".join(t for t in texts if t)
    if not text.strip():
        what = f"category {name!r}" if name else "sample"
        raise CorpusError(f"The {what} has no text ({', '.join(map(str, paths))} "
                          "empty). Give each category some text (about 1 MB is enough).")
    return text


# ----- the inference -------------------------------------------------------------------

def infer_mixture(tokenizer: BaseTokenizer, samples: Mapping[str, str], *,
                  merges: int | None = None, progress: Progress | None = None,
                  cancel: Callable[[], bool] | None = None) -> MixtureResult:
    """The category proportions that best explain ``tokenizer``'s merge order, given one
    sample text per category (see the module docstring). ``merges``: use only the first
    N. ``progress(stage, done, total)``: stages "count" (categories), "replay" (merges),
    "solve" (rounds); ``cancel()`` is polled and raises :class:`Cancelled`.

    Errors: fewer than two categories, an empty sample (CorpusError), a tokenizer the
    method does not apply to (SettingsError, :func:`mixture_refusal`)."""
    _check_arguments(samples, merges)
    check_mixture_tokenizer(tokenizer)
    check_solver()
    names = list(samples)
    n_total = tokenizer.n_merges if merges is None else min(merges, tokenizer.n_merges)
    merge_list = _merge_list(tokenizer, n_total)
    pairs, skipped = merge_ids(merge_list)
    report = progress or (lambda stage, done, total: None)
    stop = cancel or (lambda: False)

    # 1. each sample's words, by the tokenizer's own pre-tokenizer
    tables, sizes = [], {}
    for i, name in enumerate(names):
        report("count", i, len(names))
        text = samples[name]
        sizes[name] = len(text.encode("utf-8", "surrogatepass"))
        table = count_corpus(texts=[text], pre=tokenizer.pre, cancel=cancel)
        if not len(table):
            raise CorpusError(f"The sample of category {name!r} has no words to count "
                              "(it is empty or only special tokens). Give each category "
                              "some text.")
        tables.append(table)
    report("count", len(names), len(names))
    n_words = [len(t) for t in tables]

    # 2. the merge list replayed on every sample (in C, categories on threads)
    replays = [MergeReplay(t) for t in tables]
    del tables
    history = [_History(r.pairs(), n) for r, n in zip(replays, n_words)]
    T = n_total
    with ThreadPoolExecutor(max_workers=min(len(replays), 4)) as pool:
        for start in range(0, T, CHUNK):
            if stop():
                raise Cancelled()
            report("replay", start, T)
            chunk = pairs[2 * start:2 * min(T, start + CHUNK)]
            done = list(pool.map(lambda r: r.replay(chunk, TOP_K), replays))
            for h, c in zip(history, done):
                h.add(c, start)
    report("replay", T, T)
    del replays

    hist = [h.arrays(T) for h in history]
    solved = _solve(hist, [sizes[n] for n in names], T, report, stop)
    alpha = solved.alpha
    props = {n: float(a) for n, a in zip(names, alpha)}
    steps = _steps(names, merge_list, pairs, hist, solved, [sizes[n] for n in names])
    evidence: dict[str, list[int]] = {n: [] for n in names}
    for s in steps:
        if s.best_category:
            evidence[s.best_category].append(s.step)
    return MixtureResult(props, steps, evidence, T, sizes, objective=solved.objective,
                         rounds=solved.rounds, constraints=solved.n_constraints,
                         merges_skipped=skipped, round_log=solved.log, words={n: h.n_words for n, h in zip(names, history)})


def check_solver() -> None:
    """SettingsError when SciPy (the linear program's solver) is not installed."""
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        raise SettingsError("Data-mixture inference solves a linear program with SciPy, "
                            "which is not installed here: pip install 'bpe-gui[analysis]' "
                            "(or pip install scipy).") from None


def _check_arguments(samples, merges) -> None:
    if not isinstance(samples, Mapping):
        raise checks.ArgumentTypeError("infer_mixture(samples) must map each category's "
                                       f"name to its sample text, not {type(samples).__name__}")
    if len(samples) < 2:
        raise SettingsError(f"Data-mixture inference needs at least two categories to weigh "
                            f"against each other; {len(samples)} given. Add a sample for each "
                            "kind of data the tokenizer may have been trained on.")
    for name, text in samples.items():
        checks.text(text, f"infer_mixture(samples[{name!r}])")
        if not text.strip():
            raise CorpusError(f"The sample of category {name!r} is empty. Give each category "
                              "some text (about 1 MB is enough).")
    checks.whole(merges, "infer_mixture(merges)", 1, 1 << 31, none_ok=True)


class _History:
    """One category's pair counts through the replay, as numpy arrays: every change
    (pair, state, count after), where state s is "before merge s" (0-based) and the
    initial counts are changes at state 0; each merge's count before it; the best pairs
    before each merge."""

    def __init__(self, initial: list[tuple[int, int, int]], n_words: int):
        import numpy as np
        self.n_words = n_words
        a = np.array([p[0] for p in initial], dtype=np.int64)
        b = np.array([p[1] for p in initial], dtype=np.int64)
        self._keys = [(a << 32) | b]
        self._states = [np.zeros(len(a), dtype=np.int32)]
        self._counts = [np.array([p[2] for p in initial], dtype=np.int64)]
        self._merge: list[Any] = []
        self._tops: list[Any] = []

    def add(self, chunk, start: int) -> None:
        import numpy as np
        rec = np.dtype(list(PAIR_RECORD))
        counts = np.frombuffer(chunk.counts, dtype="<i8")
        ends = np.frombuffer(chunk.ends, dtype="<i8")
        changed = np.frombuffer(chunk.changed, dtype=rec)
        n = len(counts)
        per = np.diff(np.concatenate(([0], ends)))
        states = np.repeat(np.arange(start + 1, start + n + 1, dtype=np.int32), per)
        self._keys.append((changed["a"].astype(np.int64) << 32) | changed["b"].astype(np.int64))
        self._states.append(states)
        self._counts.append(changed["count"].astype(np.int64))
        self._merge.append(counts.astype(np.int64))
        tops = np.frombuffer(chunk.tops, dtype=rec).reshape(n, TOP_K)
        self._tops.append((tops["a"].astype(np.int64) << 32) | (tops["b"].astype(np.int64) & 0xFFFFFFFF))

    def arrays(self, T: int):
        """(keys, states, counts) of every change before state T, the merge counts, the
        top pairs' keys (-1 where none)."""
        import numpy as np
        keys, states, counts = (np.concatenate(x) for x in (self._keys, self._states, self._counts))
        keep = states < T
        tops = np.concatenate(self._tops) if self._tops else np.zeros((0, TOP_K), np.int64)
        merge = np.concatenate(self._merge) if self._merge else np.zeros(0, np.int64)
        return keys[keep], states[keep], counts[keep], merge, tops


@dataclass
class _Solved:
    alpha: Any               # numpy float64, one per category, sums to 1
    objective: float
    rounds: int
    n_constraints: int
    points: "_Points"        # the count history over every category (for the steps)
    w: Any                   # each pair's slack (by point pid)
    log: list                # per round: (pairs violating, largest violation)


class _Points:
    """Every category's pair counts through the replay, on the union of their change
    points: for each point u (a pair ``pid[u]`` from state ``start[u]`` to ``end[u]``),
    each category's count there (``counts[u, i]``). Points are sorted by (pair, state)."""

    def __init__(self, hist: list[tuple], T: int):
        import numpy as np
        C = len(hist)
        keys = np.concatenate([h[0] for h in hist])
        self.pair_keys, pid = np.unique(keys, return_inverse=True)
        pid = pid.astype(np.int64)
        states = np.concatenate([h[1] for h in hist]).astype(np.int64)
        cnt = np.concatenate([h[2] for h in hist])
        cat = np.concatenate([np.full(len(h[0]), i, np.int8) for i, h in enumerate(hist)])
        del keys
        order = np.lexsort((states, pid))
        pid, states, cnt, cat = pid[order], states[order], cnt[order], cat[order]
        del order
        # the last change of each (pair, state) holds the point's counts
        last = np.ones(len(pid), dtype=bool)
        last[:-1] = (pid[1:] != pid[:-1]) | (states[1:] != states[:-1])
        grp_start = np.ones(len(pid), dtype=bool)
        grp_start[1:] = pid[1:] != pid[:-1]
        first_of_pair = np.maximum.accumulate(np.where(grp_start, np.arange(len(pid)), 0))
        idx_last = np.nonzero(last)[0]
        self.counts = np.zeros((len(idx_last), C), dtype=np.float64)
        ar = np.arange(len(pid))
        for i in range(C):
            at = np.maximum.accumulate(np.where(cat == i, ar, -1))
            ok = at >= first_of_pair
            self.counts[:, i] = np.where(ok, cnt[np.maximum(at, 0)], 0)[idx_last]
        self.pid = pid[idx_last]
        self.start = states[idx_last]
        nxt = np.empty(len(self.pid), dtype=np.int64)
        nxt[:-1] = self.start[1:]
        nxt[-1] = T
        same = np.zeros(len(self.pid), dtype=bool)
        same[:-1] = self.pid[1:] == self.pid[:-1]
        self.end = np.where(same, nxt, T)
        self.T = T

    def at(self, pair_keys, states):
        """Each category's count of the pairs ``pair_keys`` at ``states`` (arrays of one
        shape): (..., C); pairs that never occurred count 0."""
        import numpy as np
        pid = np.searchsorted(self.pair_keys, pair_keys)
        pid_ok = (pid < len(self.pair_keys)) & (self.pair_keys[np.minimum(pid, len(self.pair_keys) - 1)] == pair_keys)
        code = self.pid * (self.T + 1) + self.start
        q = pid * (self.T + 1) + states
        u = np.searchsorted(code, q, side="right") - 1
        ok = pid_ok & (u >= 0) & (self.pid[np.maximum(u, 0)] == pid)
        out = self.counts[np.maximum(u, 0)]
        out[~ok] = 0
        return out


def _range_argmin(values):
    """A sparse table answering argmin of ``values`` over [s, e) for arrays s, e."""
    import numpy as np
    n = len(values)
    table = [np.arange(n)]
    k = 1
    while 2 * k <= n:
        prev = table[-1]
        a, b = prev[:n - 2 * k + 1], prev[k:n - k + 1]
        table.append(np.where(values[b] < values[a], b, a))
        k *= 2

    def query(s, e):
        length = e - s
        lv = np.floor(np.log2(np.maximum(length, 1))).astype(np.int64)
        out = np.empty(len(s), dtype=np.int64)
        for j in np.unique(lv):
            m = lv == j
            t = table[j]
            x = t[s[m]]
            y = t[e[m] - (1 << j)]
            out[m] = np.where(values[y] < values[x], y, x)
        return out
    return query


def _solve(hist: list[tuple], sizes: list[int], T: int, report: Progress,
           stop: Callable[[], bool]) -> _Solved:
    import numpy as np
    from scipy import sparse
    from scipy.optimize import linprog
    C = len(hist)
    points = _Points([(k, s, c) for k, s, c, _, _ in hist], T)
    mc = np.stack([h[3][:T] for h in hist], axis=1).astype(np.float64)    # (T, C)
    scale = np.mean(sizes) / np.array(sizes, dtype=np.float64)              # counts -> per mean size
    mcs = mc * scale
    pcs = points.counts * scale
    alpha = np.full(C, 1.0 / C)
    v = np.zeros(T)
    P = len(points.pair_keys)
    w = np.zeros(P)
    rows = np.zeros(0, dtype=np.int64)          # the program's constraints: step * P + pair
    D = np.zeros((0, C))                        # ... and their coefficients of alpha
    age = np.zeros(0, dtype=np.int64)           # ... and the solves each has been slack
    objective = 0.0
    rounds = 0
    log: list = []
    steady = 0
    warm = _WarmLP(C, T, P) if _highspy() is not None else None
    for rounds in range(1, MAX_ROUNDS + 1):
        if stop():
            raise Cancelled()
        report("solve", rounds - 1, MAX_ROUNDS)
        M = mcs @ alpha + v
        val = pcs @ alpha - w[points.pid]
        query = _range_argmin(M)
        s, e = points.start, points.end
        live = np.nonzero(e > s)[0]
        t_min = np.zeros(len(s), dtype=np.int64)
        t_min[live] = query(s[live], e[live])
        gap = val - M[t_min]
        gap[e <= s] = -np.inf
        bad = np.nonzero(gap > TOLERANCE * max(1.0, float(np.abs(M).max(initial=0))))[0]
        # one constraint per pair a round, at its most violated stretch: its slack w_p is
        # shared by every step, and often one constraint is all it needs
        bad = bad[np.argsort(-gap[bad], kind="stable")]
        bad = bad[np.sort(np.unique(points.pid[bad], return_index=True)[1])]
        keys = t_min[bad] * P + points.pid[bad]
        fresh = ~np.isin(keys, rows)
        bad, keys = bad[fresh][:ROUND_ADD], keys[fresh][:ROUND_ADD]
        if len(bad) == 0:
            break
        rows = np.concatenate([rows, keys])
        D = np.concatenate([D, mcs[t_min[bad]] - pcs[bad]])
        before = alpha
        if warm is not None:
            alpha, v, w, objective, tight = warm.solve(keys, D[-len(keys):], rows, D)
        else:
            alpha, v, w, objective, tight = _lp(np, sparse, linprog, C, T, P, rows, D)
        log.append((len(bad), float(gap[bad[0]]), len(rows)))
        # rows slack for a few solves are dropped (added again if they are violated
        # again): the program stays near the size of what binds, each solve fast
        age = np.concatenate([age, np.zeros(len(bad), dtype=np.int64)])
        age = np.where(tight, 0, age + 1)
        keep = age < SLACK_SOLVES
        rows, D, age = rows[keep], D[keep], age[keep]
        if warm is not None:
            warm.drop(~keep)
        steady = steady + 1 if np.abs(alpha - before).max() < STEADY else 0
        if steady >= 2:
            break
    report("solve", MAX_ROUNDS, MAX_ROUNDS)
    alpha = np.clip(alpha, 0, None)
    alpha = alpha / alpha.sum() if alpha.sum() > 0 else np.full(C, 1.0 / C)
    return _Solved(alpha, float(objective), rounds, len(rows), points, w, log)


def _highspy():
    """The highspy module, or None: the warm-started program needs it, SciPy's
    ``linprog`` (a cold start each round) stands in without it."""
    if not USE_HIGHSPY:
        return None
    try:
        import highspy
    except ImportError:
        return None
    return highspy


class _WarmLP:
    """The lazy program kept in one HiGHS model between rounds: rows are added and
    dropped in place and dual simplex restarts from the last optimal basis (still
    dual feasible after adding rows), so a round costs what the new rows change, not
    a solve from scratch. Columns: alpha (C), then a v_t or w_p column the first time a
    row names that step or pair (never removed: a column in no row stays at 0).
    Row 0 is sum alpha = 1; rows 1.. are the rows of ``_solve`` in its order."""

    def __init__(self, C: int, T: int, P: int):
        import numpy as np
        highspy = _highspy()
        self.np, self.C, self.T, self.P = np, C, T, P
        # the core class, not highspy.Highs: that one's log callbacks print a banner on
        # stdout, which ``bpe-gui mixture --json`` keeps for the JSON alone
        make = getattr(highspy, "_Highs", highspy.Highs)
        h = make()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 1)      # dual: warm after adding rows
        h.setOptionValue("presolve", "off")
        h.setOptionValue("threads", 1)
        inf = highspy.kHighsInf
        self.inf, self.h, self.highspy = inf, h, highspy
        h.addCols(C, np.zeros(C), np.zeros(C), np.full(C, inf), 0,
                  np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        h.addRows(1, np.ones(1), np.ones(1), C, np.zeros(1, np.int32),
                  np.arange(C, dtype=np.int32), np.ones(C))
        self.n_cols = C
        self.step_col = np.full(T, -1, dtype=np.int64)
        self.pair_col = np.full(P, -1, dtype=np.int64)

    def _cols(self, table, ids):
        np = self.np
        new = np.unique(ids[table[ids] < 0])
        if len(new):
            table[new] = self.n_cols + np.arange(len(new))
            k = len(new)
            self.h.addCols(k, np.ones(k), np.zeros(k), np.full(k, self.inf), 0,
                           np.zeros(k, np.int32), np.zeros(0, np.int32), np.zeros(0))
            self.n_cols += k
        return table[ids]

    def solve(self, keys, D_new, rows, D):
        np, C = self.np, self.C
        n = len(keys)
        if n:
            tc = self._cols(self.step_col, keys // self.P)
            pc = self._cols(self.pair_col, keys % self.P)
            idx = np.concatenate([np.tile(np.arange(C), (n, 1)), tc[:, None], pc[:, None]],
                                 axis=1).astype(np.int32).ravel()
            val = np.concatenate([D_new, np.ones((n, 2))], axis=1).ravel()
            self.h.addRows(n, np.zeros(n), np.full(n, self.inf), len(idx),
                           np.arange(0, len(idx), C + 2, dtype=np.int32), idx, val)
        self.h.run()
        if self.h.getModelStatus() != self.highspy.HighsModelStatus.kOptimal:
            raise SettingsError("The mixture's linear program could not be solved: "
                                f"{self.h.modelStatusToString(self.h.getModelStatus())}")
        sol = self.h.getSolution()
        x = np.asarray(sol.col_value)
        v = np.zeros(self.T)
        on = self.step_col >= 0
        v[on] = x[self.step_col[on]]
        w = np.zeros(self.P)
        on = self.pair_col >= 0
        w[on] = x[self.pair_col[on]]
        row = np.asarray(sol.row_value)[1:]
        tight = row <= 1e-9 * max(1.0, float(np.abs(D).max(initial=0)))
        objective = float(self.h.getInfo().objective_function_value)
        return x[:C].copy(), v, w, objective, tight

    def drop(self, gone):
        """Removes the rows ``gone`` (a mask over rows 1..) from the model."""
        np = self.np
        at = np.nonzero(gone)[0].astype(np.int32) + 1
        if len(at):
            self.h.deleteRows(len(at), at)


def _lp(np, sparse, linprog, C, T, P, rows, D):
    """min sum v + sum w  s.t.  D alpha + v_t + w_p >= 0 per row, sum alpha = 1, all >= 0;
    v and w only for the steps and pairs some row names. Returns alpha, v (per step),
    w (per pair), the objective, and which rows are tight."""
    n = len(rows)
    steps, t_col = np.unique(rows // P, return_inverse=True)
    prs, p_col = np.unique(rows % P, return_inverse=True)
    nv, nw = len(steps), len(prs)
    r = np.arange(n)
    data = np.concatenate([-D.ravel(), -np.ones(n), -np.ones(n)])
    rr = np.concatenate([np.repeat(r, C), r, r])
    cc = np.concatenate([np.tile(np.arange(C), n), C + t_col, C + nv + p_col])
    A = sparse.csr_matrix((data, (rr, cc)), shape=(n, C + nv + nw))
    cost = np.concatenate([np.zeros(C), np.ones(nv + nw)])
    A_eq = sparse.csr_matrix((np.ones(C), (np.zeros(C, dtype=int), np.arange(C))),
                             shape=(1, C + nv + nw))
    res = linprog(cost, A_ub=A, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs")
    if res.status != 0 or res.x is None:
        raise SettingsError(f"The mixture's linear program could not be solved: {res.message}")
    x = res.x
    v = np.zeros(T)
    v[steps] = x[C:C + nv]
    w = np.zeros(P)
    w[prs] = x[C + nv:]
    tight = res.ineqlin.residual <= 1e-9 * max(1.0, float(np.abs(D).max(initial=0)))
    return x[:C], v, w, float(res.fun), tight


def _steps(names, merge_list, pairs, hist, solved: _Solved, sizes) -> list[MixtureStep]:
    import numpy as np
    T = len(merge_list)
    mc = np.stack([h[3][:T] for h in hist], axis=1).astype(np.float64)
    tops = np.concatenate([h[4][:T] for h in hist], axis=1)                  # (T, C*K)
    per = PER / np.array(sizes, dtype=np.float64)
    alpha = solved.alpha
    ab = np.frombuffer(pairs, dtype=np.int32).reshape(-1, 2).astype(np.int64)
    mkey = (ab[:, 0] << 32) | (ab[:, 1] & 0xFFFFFFFF)
    # the strongest competitor the mixture had to beat: its count less its own slack
    # (in blocks of steps: the candidates' counts are steps x candidates x categories)
    has = np.zeros(T, dtype=bool)
    r_key = np.zeros(T, dtype=np.int64)
    r_counts = np.zeros((T, len(names)))
    block = 16384
    for lo in range(0, T, block):
        hi = min(T, lo + block)
        tp = tops[lo:hi]
        states = np.repeat(np.arange(lo, hi)[:, None], tp.shape[1], axis=1)
        cand = solved.points.at(tp, states) * per                            # (B, C*K, C)
        pid = np.minimum(np.searchsorted(solved.points.pair_keys, tp), len(solved.w) - 1)
        mixed = cand @ alpha - solved.w[pid] * PER / np.mean(sizes)
        mixed[(tp < 0) | (tp == mkey[lo:hi, None])] = -np.inf
        best = np.argmax(mixed, axis=1)
        rows = np.arange(hi - lo)
        has[lo:hi] = np.isfinite(mixed[rows, best])
        r_key[lo:hi] = tp[rows, best]
        r_counts[lo:hi] = cand[rows, best]
    m_counts = mc * per
    best_cat = np.argmax(alpha * m_counts, axis=1)   # the largest share of the merge's count
    token_of = _token_bytes(merge_list, pairs)
    out = []
    for t in range(T):
        runner = None
        rc: dict[str, float] = {}
        if has[t]:
            k = int(r_key[t])
            runner = (token_of(k >> 32), token_of(k & 0xFFFFFFFF))
            rc = {n: float(x) for n, x in zip(names, r_counts[t])}
        skip = ab[t, 0] < 0
        out.append(MixtureStep(t + 1, merge_list[t], {n: float(x) for n, x in zip(names, m_counts[t])},
                               runner, rc, "" if skip else names[int(best_cat[t])]))
    return out


def _token_bytes(merge_list, pairs) -> Callable[[int], bytes]:
    """The bytes of a replay id (0-255: the byte; 256 + k: the k-th merge made)."""
    made: list[bytes] = []
    for (left, right), a in zip(merge_list, pairs[::2]):
        if a != SKIP:
            made.append(left + right)

    def of(i: int) -> bytes:
        return bytes([i]) if i < 256 else made[i - 256]
    return of
