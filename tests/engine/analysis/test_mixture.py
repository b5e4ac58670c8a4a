"""Data-mixture inference (engine/analysis/mixture.py): the merge-list replay against a
slow recount, the proportions of a known mixture, every byte-level kind of tokenizer
alike, and the tokenizers the method refuses."""
from __future__ import annotations

import random
import struct
from array import array
from collections import Counter

import pytest

from bpe_gui.engine.analysis import (check_mixture_tokenizer, infer_mixture, mixture_refusal,
                                     read_sample, sample_files)
from bpe_gui.engine.analysis.mixture import merge_ids
from bpe_gui.engine.errors import CorpusError, NotUTF8Error, SettingsError
from bpe_gui.engine.train import MergeReplay, TrainSettings, Trainer, _pycore
from bpe_gui.engine.corpus import PretokenTable

from mixture_data import samples, train_mixture

pytest.importorskip("scipy")

# Known shares, and the error allowed: bench/bench_mixture.py's small-sample rows (about
# 100 KB samples, 500 merges) are off by up to 0.025 on one category; 0.05 leaves room
# for other draws, and is still a tenth of what guessing equal shares is off by here.
SHARES = {"en": 0.5, "zh": 0.15, "py": 0.35}
MAX_ERROR = 0.05


# ----- the replay against a slow recount -------------------------------------------------

def slow_counts(words: list[list[int]], freqs: list[int]) -> Counter:
    c: Counter = Counter()
    for w, f in zip(words, freqs):
        for p in zip(w, w[1:]):
            c[p] += f
    return c


def slow_merge(words: list[list[int]], a: int, b: int, new: int) -> None:
    for k, w in enumerate(words):
        out, i = [], 0
        while i < len(w):
            if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                out.append(new)
                i += 2
            else:
                out.append(w[i])
                i += 1
        words[k] = out


def random_table(seed: int) -> tuple[PretokenTable, list[list[int]], list[int]]:
    rng = random.Random(seed)
    words = sorted({"".join(rng.choice("aabbcd ") for _ in range(rng.randint(1, 12)))
                    for _ in range(300)})
    freqs = [rng.randint(1, 9) for _ in words]
    return (PretokenTable.from_words(words, freqs),
            [list(w.encode()) for w in words], freqs)


def merge_list(seed: int, n: int) -> list[tuple[int, int]]:
    """Pairs to merge, in the replay's ids: mostly frequent pairs, some rare ones and
    some that never occur (their tokens are made all the same)."""
    table, words, freqs = random_table(seed)
    rng = random.Random(seed + 1)
    out, n_tokens = [], 256
    for _ in range(n):
        counts = slow_counts(words, freqs)
        if counts and rng.random() < 0.7:
            a, b = max(counts, key=lambda p: (counts[p], p)) if rng.random() < 0.5 \
                else rng.choice(sorted(counts))
        else:
            a, b = rng.choice([97, 98, 99, *range(256, n_tokens)]), rng.choice([98, 32])
        out.append((a, b))
        slow_merge(words, a, b, n_tokens)
        n_tokens += 1
    return out


@pytest.mark.parametrize("core", ["c", "python"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_counts_equal_a_slow_recount(core, seed):
    """Each merge's count before it, and every pair count after it (the initial counts
    plus the changes the replay reports), equal a recount of every word."""
    table, words, freqs = random_table(seed)
    merges = merge_list(seed, 40)
    replay = MergeReplay(table)
    if core == "python":
        replay.core = _pycore.Core(table.blob, table.starts, table.counts,
                                   [bytes([i]) for i in range(256)], _pycore.LOWEST_IDS)
    counts = {(a, b): n for a, b, n in replay.pairs()}
    assert counts == dict(slow_counts(words, freqs))
    pairs = array("i", [x for ab in merges for x in ab])
    chunk = replay.replay(pairs, top_k=3)
    before = struct.unpack(f"<{len(merges)}q", chunk.counts)
    ends = struct.unpack(f"<{len(merges)}q", chunk.ends)
    changed = list(struct.iter_unpack("<iiq", chunk.changed))
    tops = list(struct.iter_unpack("<iiq", chunk.tops))
    start = 0
    for k, (a, b) in enumerate(merges):
        slow = slow_counts(words, freqs)
        assert before[k] == slow.get((a, b), 0), k
        ranked = sorted(slow.values(), reverse=True)[:3]
        assert [n for x, y, n in tops[3 * k:3 * k + 3] if x >= 0] == ranked, k
        slow_merge(words, a, b, 256 + k)
        for x, y, n in changed[start:ends[k]]:
            counts[(x, y)] = n
        start = ends[k]
        assert {p: n for p, n in counts.items() if n} == dict(slow_counts(words, freqs)), k


@pytest.mark.regression
@pytest.mark.parametrize("core", ["c", "python"])
def test_a_replay_that_changes_nothing_gives_empty_records(core):
    """The C core's replay gave None, not bytes, for a sample no merge of the chunk
    touched (Py_BuildValue's y# of a NULL buffer), and infer_mixture failed in numpy."""
    table, _, _ = random_table(1)
    replay = MergeReplay(table)
    if core == "python":
        replay.core = _pycore.Core(table.blob, table.starts, table.counts,
                                   [bytes([i]) for i in range(256)], _pycore.LOWEST_IDS)
    chunk = replay.replay(array("i", [120, 121, 122, 256]))   # 'xy', then 'z' + 'xy'
    assert struct.unpack("<2q", chunk.counts) == (0, 0)
    assert (chunk.changed, chunk.tops) == (b"", b"")


@pytest.mark.regression
def test_a_few_merges_that_one_sample_never_holds_are_inferred():
    """infer_mixture with merges=N failed with a TypeError where a category's sample held
    none of the first N merges' pairs (the core's replay gave None for its changes)."""
    texts = {"en": "the cat sat on the mat with the other cat.\n",
             "zh": "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n"}
    trainer = Trainer.from_text(texts["en"] * 30 + texts["zh"] * 5, TrainSettings(vocab_size=300))
    trainer.run()
    for n in (1, 5):
        result = infer_mixture(trainer.tokenizer(), {k: v * 20 for k, v in texts.items()},
                               merges=n)
        assert result.merges_used == n and set(result.proportions) == set(texts)
        assert sum(result.proportions.values()) == pytest.approx(1.0)


def test_replay_refuses_an_id_not_made_yet():
    table, _, _ = random_table(1)
    with pytest.raises(ValueError, match="does not exist yet"):
        MergeReplay(table).replay(array("i", [97, 98, 300, 97]))


def test_merge_ids_skip_merges_of_unknown_tokens():
    ids, skipped = merge_ids([(b"a", b"b"), (b"\xe2\x96\x81", b"x"), (b"ab", b"c"),
                              (b"abc", b"ab")])
    assert list(ids) == [97, 98, -1, -1, 256, 99, 257, 256] and skipped == 1


# ----- a known mixture -------------------------------------------------------------------

@pytest.fixture(scope="module")
def known(tmp_path_factory):
    from bpe_gui.engine.formats import load_tokenizer
    path = train_mixture(SHARES, 400_000, 500, tmp_path_factory.mktemp("mix") / "t.json")
    return load_tokenizer(path), samples()


@pytest.mark.slow
def test_a_known_mixture_is_found(known):
    tok, texts = known
    steps_seen = []
    r = infer_mixture(tok, texts, progress=lambda s, d, n: steps_seen.append(s))
    assert sum(r.proportions.values()) == pytest.approx(1)
    errors = {k: abs(r.proportions[k] - SHARES[k]) for k in SHARES}
    assert max(errors.values()) < MAX_ERROR, (r.proportions, errors)
    assert {"count", "replay", "solve"} <= set(steps_seen)
    # the evidence: every step is explained by one category, and the first Chinese merges
    # by Chinese (their pairs occur in no other sample)
    assert sorted(s for v in r.evidence.values() for s in v) == list(range(1, 501))
    zh_only = [s for s in r.steps if s.counts["zh"] > 0 and s.counts["en"] == 0
               and s.counts["py"] == 0]
    assert zh_only and all(s.best_category == "zh" for s in zh_only)
    assert r.merges_used == 500 and len(r.steps) == 500
    assert r.sample_bytes == {k: len(v.encode()) for k, v in texts.items()}


def test_the_warm_started_program_reaches_the_cold_solves_optimum(known, monkeypatch):
    """Rounds kept in one HiGHS model (rows added and dropped, dual simplex from the last
    basis) end where SciPy's linprog, solving each round from scratch, ends: both run
    until no row of the full program is violated, so at the same optimum."""
    pytest.importorskip("highspy")
    from bpe_gui.engine.analysis import mixture_lp
    tok, texts = known
    texts = {k: v[:60_000] for k, v in texts.items()}
    warm = infer_mixture(tok, texts, merges=300)
    monkeypatch.setattr(mixture_lp, "USE_HIGHSPY", False)
    cold = infer_mixture(tok, texts, merges=300)
    assert warm.converged and cold.converged
    assert warm.objective == pytest.approx(cold.objective, rel=1e-6)


def test_merges_uses_only_the_first_n(known):
    tok, texts = known
    r = infer_mixture(tok, texts, merges=100)
    assert r.merges_used == 100 and [s.merge for s in r.steps] == \
        [(bytes(a), bytes(b)) for a, b in tok.merges[:100]]


def test_every_byte_level_kind_gives_the_same_answer(known, tmp_path):
    """The same merges read from tokenizer.json, GPT-2 files, .tiktoken (merges recovered
    from ranks), bpe-gui JSON and a tokenizer trained here give the same proportions."""
    from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    from bpe_gui.engine.tokenizers import Tokenizer
    tok, texts = known
    texts = {k: v[:30_000] for k, v in texts.items()}
    merges = [(bytes(a), bytes(b)) for a, b in tok.merges[:200]]
    vocab = {i: bytes([i]) for i in range(256)}
    for a, b in merges:
        vocab[len(vocab)] = a + b
    here = Tokenizer(vocab, merges, [], pattern="gpt2")
    want = infer_mixture(here, texts).proportions
    for fmt in ("gpt2", "hf", "tiktoken", "native"):
        files = export_tokenizer(here, tmp_path / fmt, fmt)
        got = infer_mixture(load_tokenizer(files[0] if fmt != "gpt2" else tmp_path / fmt),
                            texts).proportions
        assert got == pytest.approx(want, abs=1e-9), fmt
    got = infer_mixture(tok, texts, merges=200).proportions
    assert got == pytest.approx(want, abs=1e-9)


# ----- refused -----------------------------------------------------------------------------

def test_fewer_than_two_categories_and_empty_samples_are_refused(known):
    tok, texts = known
    with pytest.raises(SettingsError, match="at least two categories"):
        infer_mixture(tok, {"en": texts["en"]})
    with pytest.raises(CorpusError, match="'zh' is empty"):
        infer_mixture(tok, {"en": texts["en"], "zh": " \n"})


def test_a_tokenizer_without_merges_is_refused():
    t = Trainer.from_text("abc abc", TrainSettings(num_merges=0))
    tok = t.tokenizer()
    assert tok.n_merges == 0
    with pytest.raises(SettingsError, match="has no merges"):
        check_mixture_tokenizer(tok)


def test_a_character_level_tokenizer_is_refused_by_name():
    t = Trainer.from_text("low lower lowest " * 20, TrainSettings(num_merges=10, mode="char"))
    t.run()
    why = mixture_refusal(t.tokenizer())
    assert why and "merges characters" in why and "byte-level" in why


def test_a_sentencepiece_vocabulary_is_refused_by_name(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    from bpe_gui.engine.formats import load_tokenizer
    corpus = tmp_path / "c.txt"
    corpus.write_text("the quick brown fox jumps over the lazy dog\n" * 200 +
                      "hello world, hello there\n" * 200, "utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "m"),
                                   vocab_size=60, model_type="bpe", minloglevel=2)
    tok = load_tokenizer(tmp_path / "m.model")
    why = mixture_refusal(tok)
    assert why and ("SentencePiece" in why or "merges characters" in why), why


def test_samples_read_from_files_and_folders(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "b.txt").write_text("second", "utf-8")
    (tmp_path / "d" / "a.txt").write_text("first", "utf-8")
    (tmp_path / "d" / ".hidden").write_text("no", "utf-8")
    assert read_sample(sample_files(tmp_path / "d")) == "first\nsecond"
    (tmp_path / "bad.txt").write_bytes(b"ok \xff\xfe")
    with pytest.raises(NotUTF8Error):
        read_sample(sample_files(tmp_path / "bad.txt"))
    (tmp_path / "e").mkdir()
    with pytest.raises(CorpusError, match="no files"):
        sample_files(tmp_path / "e")


# ----- warnings beside the numbers ---------------------------------------------------------

def test_a_category_merged_but_in_no_sample_is_said(known):
    """The tokenizer learned Chinese (15% of its training text); with samples of English
    and Python only, its Chinese merges occur in no sample, and the result says so."""
    tok, texts = known
    r = infer_mixture(tok, {"en": texts["en"], "py": texts["py"]}, merges=300)
    merges = [(bytes(a), bytes(b)) for a, b in tok.merges[:300]]
    held = "\n".join((texts["en"], texts["py"])).encode()
    none = [m for m in merges if (m[0] + m[1]) not in held and any(b >= 0xE0 for b in m[0] + m[1])]
    said = [w.message for w in r.warnings if w.kind == "uncovered"]
    assert none and len(said) == 1 and "occur in no sample" in said[0]
    full = infer_mixture(tok, texts, merges=300)
    assert not [w for w in full.warnings if w.kind == "uncovered"]


def test_the_evidence_and_slack_checks():
    from bpe_gui.engine.analysis.mixture_warnings import evidence_check, slack_check
    w = evidence_check({"en": 0.2, "zh": 0.8}, {"en": list(range(2307)), "zh": list(range(193))})
    assert w is not None and w.kind == "evidence" and "'zh' gets the largest share" in w.message
    assert evidence_check({"en": 0.8, "zh": 0.2}, {"en": [1, 2, 3], "zh": [4]}) is None
    assert evidence_check({"en": 0.4, "zh": 0.6}, {"en": [1, 2, 3], "zh": [4, 5]}) is None
    assert slack_check(0.2) is None
    s = slack_check(0.9)
    assert s is not None and s.kind == "slack" and "90%" in s.message


def test_a_bad_limit_is_refused_by_name(known):
    tok, texts = known
    with pytest.raises(SettingsError, match="seconds"):
        infer_mixture(tok, texts, merges=10, seconds=0)
    with pytest.raises(ValueError, match="max_rounds"):
        infer_mixture(tok, texts, merges=10, max_rounds=0)
