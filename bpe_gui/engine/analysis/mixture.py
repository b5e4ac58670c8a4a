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

There are too many (t, p) to write down, so constraints are added lazily
(mixture_lp.py) until none of the full program is violated: the answer is the full
program's optimum, or, where a limit the caller set stopped it first, says it is not
(``converged``, ``warnings``). Warnings also say when the answer disagrees with its own
evidence (mixture_warnings.py).

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
from .mixture_lp import Solved, solve
from .mixture_warnings import (MixtureWarning, evidence_check, not_converged, slack_check,
                               uncovered_check)
from ..corpus.files import read_text_chunks

PER = 1_000_000     # MixtureStep counts are per this many bytes of sample
TOP_K = 4           # each category's best pairs before each step: runner-up candidates
CHUNK = 4096        # merges replayed per call (progress and cancel between calls)
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
    round_log: list = field(default_factory=list)   # per round: (rows added, largest violation, rows held)
    words: dict[str, int] = field(default_factory=dict)   # unique words of each sample
    converged: bool = True          # the full program's optimum (False: a limit stopped it)
    violation: float = 0.0          # the largest violation left, per PER bytes (0: none)
    slack_share: float = 0.0        # the slacks as a share of the merges' mixed counts
    warnings: list[MixtureWarning] = field(default_factory=list)   # shown beside the shares


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
    texts = ["".join(read_text_chunks(Path(p).expanduser())) for p in paths]
    text = "\n".join(t for t in texts if t)
    if not text.strip():
        what = f"category {name!r}" if name else "sample"
        raise CorpusError(f"The {what} has no text ({', '.join(map(str, paths))} "
                          "empty). Give each category some text (about 1 MB is enough).")
    return text


# ----- the inference -------------------------------------------------------------------

def infer_mixture(tokenizer: BaseTokenizer, samples: Mapping[str, str], *,
                  merges: int | None = None, progress: Progress | None = None,
                  cancel: Callable[[], bool] | None = None, max_rounds: int | None = None,
                  seconds: float | None = None) -> MixtureResult:
    """The category proportions that best explain ``tokenizer``'s merge order, given one
    sample text per category (see the module docstring). ``merges``: use only the first
    N. ``progress(stage, done, total)``: stages "count" (categories), "replay" (merges),
    "solve" (rounds); ``cancel()`` is polled and raises :class:`Cancelled`.
    ``max_rounds``, ``seconds``: stop the linear program after that many rounds or
    seconds, even before its optimum (the result's ``converged`` and ``warnings`` say so);
    by default it runs until no constraint of the full program is violated.

    Errors: fewer than two categories, an empty sample (CorpusError), a tokenizer the
    method does not apply to (SettingsError, :func:`mixture_refusal`)."""
    _check_arguments(samples, merges, max_rounds, seconds)
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
    solved = solve(hist, [sizes[n] for n in names], T, report, stop, max_rounds, seconds)
    alpha = solved.alpha
    props = {n: float(a) for n, a in zip(names, alpha)}
    steps = _steps(names, merge_list, pairs, hist, solved, [sizes[n] for n in names])
    evidence: dict[str, list[int]] = {n: [] for n in names}
    for s in steps:
        if s.best_category:
            evidence[s.best_category].append(s.step)
    per_mb = PER / (sum(sizes.values()) / len(sizes))      # per mean sample size -> per PER
    mixed = sum(sum(props[n] * c for n, c in s.counts.items()) for s in steps)
    slack = solved.objective * per_mb / mixed if mixed > 0 else 0.0
    warnings = _warnings(solved, merge_list, pairs, steps, props, evidence, slack, per_mb)
    return MixtureResult(props, steps, evidence, T, sizes, objective=solved.objective,
                         rounds=solved.rounds, constraints=solved.n_constraints,
                         merges_skipped=skipped, round_log=solved.log,
                         words={n: h.n_words for n, h in zip(names, history)},
                         converged=solved.converged, violation=solved.violation * per_mb,
                         slack_share=slack, warnings=warnings)


def _warnings(solved: Solved, merge_list, pairs, steps, props, evidence, slack,
              per_mb) -> list[MixtureWarning]:
    out = []
    if not solved.converged:
        step, key = solved.worst
        pair = None
        if step >= 0:
            token_of = _token_bytes(merge_list, pairs)
            pair = (token_of(key >> 32), token_of(key & 0xFFFFFFFF))
        out.append(not_converged(solved.rounds, solved.violation * per_mb, step, pair,
                                 merge_list[max(step, 0)]))
    checks_ = (evidence_check(props, evidence), slack_check(slack),
               uncovered_check([s.merge for s in steps], [s.counts for s in steps],
                               [not s.best_category for s in steps]))
    return out + [w for w in checks_ if w is not None]


def check_solver() -> None:
    """SettingsError when SciPy (the linear program's solver) is not installed."""
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        raise SettingsError("Data-mixture inference solves a linear program with SciPy, "
                            "which is not installed here: pip install 'bpe-gui[analysis]' "
                            "(or pip install scipy).") from None


def _check_arguments(samples, merges, max_rounds, seconds) -> None:
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
    checks.whole(max_rounds, "infer_mixture(max_rounds)", 1, 1 << 31, none_ok=True)
    if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
        raise SettingsError(f"infer_mixture(seconds) must be a positive number of seconds, "
                            f"not {seconds!r}; leave it out for no time limit.")


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


def _steps(names, merge_list, pairs, hist, solved: Solved, sizes) -> list[MixtureStep]:
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
