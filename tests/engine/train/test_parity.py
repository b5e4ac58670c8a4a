"""Parity-aware BPE (engine/train/parity.py) against Hugging Face tokenizers'
``ParityBpeTrainer``: the same merges, in order, for both variants, with a dev set, with
ratios and with neither, with global merges, window size and alpha varied, on Latin,
Cyrillic, Han, Devanagari and Thai text; on the C core and on its pure-Python twin
(``_pycore``); per-step records checked against a slow recount; undo; bad input."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.train import _pycore, parity, trainer
from bpe_gui.engine.train import (ParityData, ParitySettings, ParityTrainer, PlainCurve,
                                  hf_lines, ratios_for, train_parity)

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parallel"
SCRIPTS = FIXTURES.parent / "scripts"   # Hindi (Devanagari) and Thai
LANGS = ("en", "de", "zh", "ru")


def read_lines(path: Path) -> list[str]:
    """A file's lines as HF's file reader makes them (each keeps its "\\n")."""
    with open(path, encoding="utf-8", newline="\n") as f:
        return f.readlines()


def hf_train(train, dev=None, ratio=None, **kw) -> list[str]:
    """HF's merges ("a b", GPT-2 byte-level spelling) for these per-language texts."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.ParityBpeTrainer(show_progress=False, **kw)
    trainer.train_from_iterator(tok, [iter(t) for t in train],
                                dev_iterators=None if dev is None else [iter(d) for d in dev],
                                ratio=ratio)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [" ".join(m) if isinstance(m, list) else m for m in merges]


def files(part: str, langs=LANGS) -> list[tuple[str, Path]]:
    return [(lang, FIXTURES / f"{lang}.{part}.txt") for lang in langs]


CASES = [
    dict(num_merges=500),
    dict(num_merges=500, variant="window"),
    dict(num_merges=400, variant="window", window_size=7, alpha=1.3),
    dict(num_merges=400, variant="window", window_size=30, alpha=0.6),
    dict(num_merges=400, global_merges=60),
    dict(num_merges=400, variant="window", global_merges=25, window_size=10, alpha=3.0),
]
RATIOS = (1.0, 1.15, 0.8, 2.1)


@pytest.mark.parametrize("measure", ["dev", "ratio"])
@pytest.mark.parametrize("kw", CASES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_lines_equal_hf(measure, kw):
    """One text per line: the merges equal ParityBpeTrainer's on the same lines."""
    train = [read_lines(p) for _, p in files("train")]
    dev = [read_lines(p) for _, p in files("dev")] if measure == "dev" else None
    ratio = list(RATIOS) if measure == "ratio" else None
    expected = hf_train(train, dev, ratio, **kw)
    settings = ParitySettings(**kw, ratios=RATIOS if ratio else None)
    t = ParityTrainer.from_files(files("train"), files("dev") if dev else None, settings,
                                 lines=True)
    t.run()
    assert len(expected) == kw["num_merges"]
    assert t.hf_merges() == expected


MIN_FREQUENCY_CASES = [
    dict(num_merges=2500, min_frequency=5),
    dict(num_merges=1000, min_frequency=50),
    dict(num_merges=800, global_merges=100, min_frequency=20),
    dict(num_merges=1500, variant="window", min_frequency=3),
    dict(num_merges=600, variant="window", window_size=9, alpha=1.5, min_frequency=12),
]


@pytest.mark.parametrize("measure", ["dev", "ratio"])
@pytest.mark.parametrize("kw", MIN_FREQUENCY_CASES,
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_min_frequency_equals_hf(measure, kw):
    """A language whose best pair is under min_frequency has no pair left (the others
    take its turns) and global merges end there: HF's merges, fewer than asked where
    every language runs out. (HF's window loop never ends in a state our trainer
    records as ``stalled``; such a case is not given to HF.)"""
    train = [read_lines(p) for _, p in files("train")]
    dev = [read_lines(p) for _, p in files("dev")] if measure == "dev" else None
    ratio = list(RATIOS) if measure == "ratio" else None
    t = ParityTrainer.from_files(files("train"), files("dev") if dev else None,
                                 ParitySettings(**kw, ratios=RATIOS if ratio else None),
                                 lines=True)
    t.run()
    counts = [st.count for st in t.steps]
    assert min(counts) >= kw["min_frequency"]
    if t.stalled:
        pytest.skip("HF's window loop would never end here")
    assert t.hf_merges() == hf_train(train, dev, ratio, **kw)


@pytest.mark.parametrize("variant", ["base", "window"])
def test_no_dev_no_ratio_and_whole_files_equal_hf(variant):
    """Neither a dev set nor ratios (training totals decide), each file one text, three
    languages: still HF's merges."""
    langs = ("en", "zh", "ru")
    train = [[p.read_text(encoding="utf-8")] for _, p in files("train", langs)]
    expected = hf_train(train, num_merges=300, variant=variant, window_size=5, alpha=1.0)
    t = ParityTrainer.from_files(files("train", langs), None,
                                 ParitySettings(num_merges=300, variant=variant,
                                                window_size=5, alpha=1.0))
    t.run()
    assert t.kind == "train"
    assert t.hf_merges() == expected


@pytest.fixture(params=["core", "python"])
def engine(request, monkeypatch):
    """Both training cores: the C extension, and its pure-Python twin (``_pycore``, what
    runs where the extension is not built), each holding every language's words."""
    if request.param == "python":
        monkeypatch.setattr(trainer, "_core", _pycore)
    return request.param


def test_random_small_corpora_equal_hf_and_undo_replays(engine):
    """Tiny random corpora exhaust languages, tie often and run out of pairs: HF's
    merges still, and undoing half the steps then running again gives them back.
    (Cases where HF's window loop would never end are skipped: ``stalled``.)"""
    rng = random.Random(55)
    checked = 0
    for _ in range(120):
        n = rng.randint(1, 4)
        alphabet = rng.choice(["ab", "abc", "abcd xy", "aé 中"])

        def texts() -> list[str]:
            return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
                    for _ in range(rng.randint(1, 5))]
        train = [texts() for _ in range(n)]
        measure = rng.choice(["dev", "ratio", "train"])
        dev = [texts() for _ in range(n)] if measure == "dev" else None
        ratio = [rng.choice([0.5, 1.0, 1.5, 3.0]) for _ in range(n)] \
            if measure == "ratio" else None
        kw = dict(num_merges=rng.randint(0, 40), variant=rng.choice(["base", "window"]),
                  global_merges=rng.choice([0, 0, 1, 3, 100]), window_size=rng.randint(1, 6),
                  alpha=rng.choice([0.3, 1.0, 2.0, 5.0]),
                  min_frequency=rng.choice([0, 0, 1, 2, 3]))
        names = [f"l{i}" for i in range(n)]
        t = ParityTrainer.from_texts(list(zip(names, train)),
                                     list(zip(names, dev)) if dev else None,
                                     ParitySettings(**kw, ratios=tuple(ratio) if ratio else None))
        t.run()
        ours = t.hf_merges()
        records = list(t.steps)
        t.goto(t.n_steps // 2)
        t.run()
        assert t.steps == records
        if t.stalled:
            continue
        assert ours == hf_train(train, dev, ratio, **kw), (train, dev, ratio, kw)
        checked += 1
    assert checked > 80


def apply_merges(word: list[str], merges: list[str]) -> list[str]:
    """Slow reference: each merge in turn, left to right over the word."""
    for m in merges:
        a, b = m.split(" ")
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(word[i])
                i += 1
        word = out
    return word


def dev_tokens(lines_by_lang: list[list[str]], merges: list[str]) -> tuple[int, ...]:
    """Each language's tokens on its dev lines after ``merges``, pre-tokenized by HF."""
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False)
    out = []
    for lines in lines_by_lang:
        n = 0
        for line in lines:
            for piece, _ in pre.pre_tokenize_str(line):
                n += len(apply_merges(list(piece), merges))
        out.append(n)
    return tuple(out)


def test_records_say_whose_turn_and_why():
    """Each record's dev tokens equal a slow recount with HF's pre-tokenizer; its
    measure is the tokens before it; base gives the turn to the language with the most
    dev tokens (the first on a tie); the explanation names it."""
    langs = ("en", "de", "zh")
    dev = [read_lines(p) for _, p in files("dev", langs)]
    t = ParityTrainer.from_files(files("train", langs), files("dev", langs),
                                 ParitySettings(num_merges=60), lines=True)
    t.run()
    merges = t.hf_merges()
    before = dev_tokens(dev, [])
    assert t.curve()[0] == before
    for rec in t.steps:
        assert rec.kind == "dev"
        assert rec.measure == tuple(float(x) for x in before)
        assert rec.language == max(range(len(langs)), key=lambda i: (before[i], -i))
        if rec.index % 15 == 0:
            assert rec.tokens == dev_tokens(dev, merges[:rec.index])
        assert t.names[rec.language] in t.explain(rec)
        before = rec.tokens
    assert t.curve()[1:] == [rec.tokens for rec in t.steps]


def test_turn_sentence_says_the_gap_to_the_runner_up_and_the_fewest():
    """Issue 67: "1.00x en's" hid why a language won its turn. The sentence gives the
    served language's dev tokens, how many more than the runner-up's and than the
    fewest's, and each ratio with digits enough to differ from 1 (read back and
    compared with the counts' own quotient, computed here)."""
    import re
    langs = ("en", "de", "zh")
    t = ParityTrainer.from_files(files("train", langs), files("dev", langs),
                                 ParitySettings(num_merges=60), lines=True)
    t.run()
    for rec in t.steps:
        toks = [int(x) for x in rec.measure]
        me = rec.language
        order = sorted((i for i in range(len(langs)) if i != me), key=lambda i: -toks[i])
        text = parity.turn_sentence(rec, t.names, t.parity_settings)
        assert f"most tokens for the same sentences, {toks[me]:,}:" in text, text
        for i in (order[0], order[-1]):
            diff = toks[me] - toks[i]
            if diff == 0:   # a tie: the order of the languages decided it
                assert f"as many as {langs[i]}'s {toks[i]:,} (a tie" in text, text
                assert i > me
                continue
            said = re.search(rf"(\S+) more than {langs[i]}'s {toks[i]:,} \(([0-9.]+)x\)", text)
            assert said is not None, text
            assert said.group(1) == f"{diff:,}"
            shown = said.group(2)
            digits = len(shown.split(".")[1])
            assert abs(float(shown) - toks[me] / toks[i]) <= 0.5 * 10 ** -digits
            assert float(shown) != 1.0, text   # near-equal counts told apart
        assert text.count("the fewest") == 1


@pytest.mark.parametrize("a, b, want", [(1204, 1201, "1.0025x"), (9552, 8606, "1.11x"),
                                        (1000, 1000, "1.00x"), (100001, 100000, "1.000010x"),
                                        (300, 100, "3.00x")])
def test_ratio_digits_tell_near_equal_counts_apart(a, b, want):
    assert parity.ratio_text(a, b) == want


def test_plain_curve_is_plain_bpe_on_the_same_data():
    """PlainCurve.curve: per-language dev tokens of plain BPE (HF's global merges over all
    languages) step by step -- recounted from HF's merges."""
    langs = ("en", "zh")
    dev = [read_lines(p) for _, p in files("dev", langs)]
    train = [read_lines(p) for _, p in files("train", langs)]
    t = ParityTrainer.from_files(files("train", langs), files("dev", langs),
                                 ParitySettings(num_merges=40), lines=True)
    curve = PlainCurve(t.data, t.parity_settings).curve(t.target)
    assert len(curve) == 41
    plain = hf_train(train, dev, num_merges=40, global_merges=40)
    for k in (0, 1, 17, 40):
        assert curve[k] == dev_tokens(dev, plain[:k])


def test_ratio_records_and_window_passes_over():
    """Ratio measure: (initial training tokens / tokens now) / ratio, the least served;
    window: a language over its share is named as passed over."""
    t = ParityTrainer.from_files(files("train", ("en", "ru")), None,
                                 ParitySettings(num_merges=80, variant="window", window_size=4,
                                                alpha=1.0, ratios=(1.0, 1.0)), lines=True)
    first = t.train_tokens
    t.run()
    assert all(rec.kind == "ratio" for rec in t.steps)
    assert t.steps[0].measure == (1.0, 1.0)
    for prev, rec in zip(t.steps, t.steps[1:]):
        assert rec.measure == tuple(a / b for a, b in zip(first, prev.tokens))
    passed = [rec for rec in t.steps if rec.passed]
    assert passed, "a window of 4 with alpha 1 must pass a language over"
    for rec in passed:
        assert rec.language not in rec.passed
        assert "passed over" in t.explain(rec)


def test_tokenizer_at_a_step_encodes_like_hf():
    """tokenizer(at_step=k): the first k merges; it cuts text into HF's tokens."""
    t = ParityTrainer.from_files(files("train", ("en", "de")), files("dev", ("en", "de")),
                                 ParitySettings(num_merges=120), lines=True)
    t.run()
    vocab = {t.render(i): i for i in range(t.vocab_size)}
    hf = Tokenizer(models.BPE(vocab=vocab, merges=[tuple(m.split(" ")) for m in
                                                   t.hf_merges()[:70]]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = t.tokenizer(at_step=70)
    assert len(ours.merges) == 70
    text = (FIXTURES / "de.dev.txt").read_text(encoding="utf-8")[:3000]
    assert [ours.vocab[i] for i in ours.encode(text, allowed_special="all")] == \
        [t.vocab_bytes[i] for i in hf.encode(text).ids]


# ----- bad input ------------------------------------------------------------------------
def test_bad_input_says_what_to_fix():
    train = {"en": "the cat", "de": "die Katze"}
    with pytest.raises(SettingsError, match="No dev text for 'de'"):
        ParityData.from_texts(train, dev={"en": "the hat"})
    with pytest.raises(SettingsError, match="Dev text for 'fr', which is not a training"):
        ParityData.from_texts(train, dev={"en": "a", "de": "b", "fr": "c"})
    with pytest.raises(SettingsError, match="'en' is given twice"):
        ParityData.from_texts([("en", "a"), ("en", "b")])
    with pytest.raises(SettingsError, match="at least one language"):
        ParityData.from_texts({})
    with pytest.raises(SettingsError, match="Ratio for 'fr', which is not a training"):
        ratios_for(("en", "de"), {"en": 1, "fr": 2})
    with pytest.raises(SettingsError, match="No ratio for 'de'"):
        ratios_for(("en", "de"), {"en": 1})
    data = ParityData.from_texts(train, dev={"en": "a", "de": "b"})
    with pytest.raises(SettingsError, match="dev set or ratios, not both"):
        ParityTrainer(data, ParitySettings(ratios=(1.0, 2.0)))
    plain = ParityData.from_texts(train)
    with pytest.raises(SettingsError, match="1 ratio.* for 2 languages"):
        ParityTrainer(plain, ParitySettings(ratios=(1.0,)))
    with pytest.raises(SettingsError, match="positive number"):
        ParityTrainer(plain, ParitySettings(ratios=(1.0, 0.0)))
    with pytest.raises(SettingsError, match="Window size is 0"):
        ParityTrainer(plain, ParitySettings(variant="window", window_size=0))
    with pytest.raises(SettingsError, match="Alpha is -1"):
        ParityTrainer(plain, ParitySettings(variant="window", alpha=-1))
    with pytest.raises(SettingsError, match="Minimum pair frequency is -1"):
        ParityTrainer(plain, ParitySettings(min_frequency=-1))
    with pytest.raises(SettingsError, match="min_frequency is 2.5: give a whole number"):
        ParityTrainer(plain, ParitySettings(min_frequency=2.5))  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="Unknown parity variant 'wide'"):
        ParityTrainer(plain, ParitySettings(variant="wide"))


def test_hf_lines_keeps_each_newline():
    assert hf_lines("a\nb") == ["a\n", "b"]
    assert hf_lines("a\n\nb\n") == ["a\n", "\n", "b\n"]
    assert hf_lines("") == []


def test_train_parity_is_the_command_line_in_one_call():
    """train_parity(files, ratios by name): the same merges as HF with those ratios."""
    langs = ("en", "zh")
    t = train_parity(dict(files("train", langs)), num_merges=150, variant="window",
                     ratios={"zh": 2.0, "en": 1.0}, window_size=9, alpha=1.5, lines=True)
    train = [read_lines(p) for _, p in files("train", langs)]
    assert t.hf_merges() == hf_train(train, None, [1.0, 2.0], num_merges=150,
                                     variant="window", window_size=9, alpha=1.5)
    with pytest.raises(SettingsError, match="not both"):
        train_parity(dict(files("train", langs)), num_merges=5, ratios={"en": 1, "zh": 1},
                     dev=dict(files("dev", langs)))


# ----- five scripts, target ratios far from 1 -------------------------------------------
FIVE = (("en", FIXTURES / "en.train.txt"), ("ru", FIXTURES / "ru.train.txt"),
        ("zh", FIXTURES / "zh.train.txt"), ("hi", SCRIPTS / "hi.txt"),
        ("th", SCRIPTS / "th.txt"))
# Devanagari and Thai take 2-3 times the bytes of English for the same content
FIVE_RATIOS = (1.0, 1.8, 0.9, 2.6, 2.4)


def _five(tmp_path: Path, n_lines: int | None) -> list[tuple[str, Path]]:
    """The five scripts' training files, each cut to its first ``n_lines`` lines."""
    if n_lines is None:
        return list(FIVE)
    out = []
    for name, p in FIVE:
        q = tmp_path / f"{name}.txt"
        q.write_text("".join(read_lines(p)[:n_lines]), encoding="utf-8", newline="\n")
        out.append((name, q))
    return out


@pytest.mark.parametrize("lines", [True, False], ids=["lines", "whole-files"])
@pytest.mark.parametrize("kw", [dict(num_merges=700), dict(num_merges=700, variant="window"),
                                dict(num_merges=500, variant="window", window_size=12,
                                     alpha=1.4, global_merges=30)],
                         ids=["base", "window", "window-global"])
def test_ratios_across_five_scripts_equal_hf(kw, lines):
    """English 1.0, Russian 1.8, Chinese 0.9, Hindi 2.6, Thai 2.4: each step serves the
    language with the lowest (training bytes / tokens now) / ratio, and the merges are
    ParityBpeTrainer's (the C core)."""
    files = list(FIVE)
    texts = [read_lines(p) if lines else [p.read_text(encoding="utf-8")] for _, p in files]
    expected = hf_train(texts, None, list(FIVE_RATIOS), **kw)
    t = ParityTrainer.from_files(files, None, ParitySettings(**kw, ratios=FIVE_RATIOS),
                                 lines=lines)
    t.run()
    served = {t.names[st.language] for st in t.steps if st.language is not None}
    assert served == {"en", "ru", "zh", "hi", "th"}
    assert t.hf_merges() == expected


@pytest.mark.parametrize("variant", ["base", "window"])
def test_ratios_across_five_scripts_on_both_cores(variant, engine, tmp_path):
    """The same on a few lines of each script, on the C core and on the Python twin;
    each record's measure is recounted from the steps before it."""
    files = _five(tmp_path, 6)
    kw = dict(num_merges=90, variant=variant, window_size=5, alpha=1.5)
    expected = hf_train([read_lines(p) for _, p in files], None, list(FIVE_RATIOS), **kw)
    t = ParityTrainer.from_files(files, None, ParitySettings(**kw, ratios=FIVE_RATIOS),
                                 lines=True)
    first = t.train_tokens
    t.run()
    assert t.hf_merges() == expected
    before = first
    for rec in t.steps:
        assert rec.measure == tuple((a / b) / r for a, b, r in zip(first, before, FIVE_RATIOS))
        if variant == "base":
            assert rec.language == min(range(5), key=lambda i: (rec.measure[i], i))
        before = rec.tokens


def test_the_choice_policy_alone_ties_and_the_window():
    """The turn policy as plain functions of values, checked by hand: ties go to the
    language given first, "ratio" serves the least, the window passes over a language
    with more than alpha / n of the last turns, and a language with no pair is set
    aside while the window still counts its turn."""
    from bpe_gui.engine.train.parity import ParityChoice, choose_turn, pick_turn
    base = ParitySettings(variant="base")
    assert pick_turn((5, 5, 3), set(), (), base, "dev") == (0, [], False, ())
    assert pick_turn((5, 5, 3), {0}, (), base, "dev")[0] == 1
    assert pick_turn((1.0, 0.5, 0.5), set(), (), base, "ratio")[0] == 1
    win = ParitySettings(variant="window", window_size=4, alpha=1.0)   # a share <= 1/2
    # 0 had 3 of the last 4 turns: passed over for 1; the window slides by one
    assert pick_turn((9, 5), set(), (0, 0, 0, 1), win, "dev") == (1, [0], False, (0, 0, 1, 1))
    assert pick_turn((9, 5), set(), (0, 0, 1, 1), win, "dev") == (0, [], False, (0, 1, 1, 0))
    pairs = {0: None, 1: ((7, 8), 4)}
    c, stalled = choose_turn((9, 5), set(), (), win, "dev", pairs.get, False)
    assert c == ParityChoice(1, (7, 8), 4, (9, 5), (), (0,), (0, 1)) and not stalled
    # under the minimum pair frequency counts as no pair: no language is left
    low = ParitySettings(variant="window", window_size=4, alpha=1.0, min_frequency=5)
    assert choose_turn((9, 5), set(), (), low, "dev", pairs.get, False) == (None, False)
    # the global phase asks for all languages together (None)
    glob = {None: ((1, 2), 9)}
    assert choose_turn((9, 5), set(), (), base, "dev", glob.get, True)[0] == \
        ParityChoice(None, (1, 2), 9, (9, 5), (), (), ())


def test_total_symbols_counts_the_alphabet_in_the_merges():
    """total_symbols: the alphabet (word-inner plus word-final bytes) counts in
    num_merges, as HF's total_symbols. Words 'ab' and ' ab': inner a and space, final b."""
    t = ParityTrainer.from_texts({"en": "ab ab", "de": "ab"},
                                 settings=ParitySettings(num_merges=10, total_symbols=True))
    assert t.target == 10 - 3
