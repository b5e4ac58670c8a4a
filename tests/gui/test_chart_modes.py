"""Every chart in every training mode against a recount written here (chart_oracle.py:
words as lists of ids, the run's merges replayed one at a time, each statistic from its
definition), and plain BPE's dev-set lines against Hugging Face's own plain BPE.

Modes: plain (with special tokens), parity-aware (dev set), SuperBPE, training on from
imported GPT-2 files, and an imported tokenizer shown in the views (the charts stay the
trained run's). Parity is also checked after the moves that broke it (issue 63): a
target raised and continued, a retrain, a run that stepped without detail.
"""
from __future__ import annotations

import json
import math
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
from bpe_gui.gui.panels.charts.charts import ChartsView
from chart_oracle import SlowBPE, gpt2_words, length_histogram, renyi, zipf

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
LANGS = ("en", "de", "ru", "zh")
EOT = "<|endoftext|>"


def lines(path: Path) -> list[str]:
    """A file as Hugging Face reads it line by line (each line keeps its newline)."""
    text = path.read_text(encoding="utf-8")
    out = text.split("\n")
    last = out.pop()
    return [ln + "\n" for ln in out] + ([last] if last else [])


def gpt2_table() -> dict[str, int]:
    """GPT-2's byte-to-unicode table, written out: printable bytes stand for
    themselves, the others take code points from 256 on."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[chr(b)] = b
        else:
            out[chr(256 + extra)] = b
            extra += 1
    return out


def hf_plain_merges(n: int, dev: bool = True) -> list[tuple[bytes, bytes]]:
    """Plain BPE on all languages' training lines together (HF's ParityBpeTrainer with
    every merge global), as byte pairs."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tr = trainers.ParityBpeTrainer(num_merges=n, global_merges=n, show_progress=False)
    tr.train_from_iterator(
        tok, train_iterators=[iter(lines(FIXTURES / f"{x}.train.txt")) for x in LANGS],
        dev_iterators=[iter(lines(FIXTURES / f"{x}.dev.txt")) for x in LANGS] if dev else None)
    table = gpt2_table()

    def raw(s: str) -> bytes:
        return bytes(table[ch] for ch in s)
    out = []
    for m in json.loads(tok.to_str())["model"]["merges"]:
        a, b = m.split(" ") if isinstance(m, str) else m
        out.append((raw(a), raw(b)))
    return out


def wait(pred, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    app = QApplication.instance()
    while not pred():
        assert time.monotonic() < end, "timed out"
        app.processEvents()
        time.sleep(0.002)


def parity_controller(merges: int, balance: str = "dev", global_merges: int = 0) -> Controller:
    c = Controller()
    c.set_settings(TrainSettings(num_merges=merges))
    langs = tuple(Language(x, str(FIXTURES / f"{x}.train.txt"), str(FIXTURES / f"{x}.dev.txt"),
                           ratio=1.0 + i / 4) for i, x in enumerate(LANGS))
    c.set_parity(ParitySetup(enabled=True, balance=balance, global_merges=global_merges,
                             languages=langs))
    return c


def train(c: Controller) -> None:
    assert c.training.train()
    wait(lambda: not c.busy and c.view() is not None and c.view().is_done)


def raise_target(c: Controller, merges: int) -> None:
    """What the settings panel does when only the number of merges changed, then F5."""
    assert c.set_settings(replace(c.settings, num_merges=merges))
    assert not c.stale, "only the target changed: the run goes on"
    train(c)


@pytest.fixture
def charts(qtbot):
    made = []

    def make(c: Controller) -> ChartsView:
        v = ChartsView(c)
        qtbot.addWidget(v)
        v.resize(1000, 700)
        v.show()
        made.append(c)
        return v
    yield make
    for c in made:
        c.shutdown()


# ----- the recount: the run's merges replayed on its training words -------------------------
def recount(words: dict[bytes, int], steps, specials: int = 0, n_initial: int = 256,
            turns=None, per_lang=None, n_bytes: int | None = None):
    """Each chart's series recounted: ``words`` the training words, ``steps`` the run's
    merges ((a, b) ids, new id, token bytes), ``specials`` how many special tokens the
    corpus holds (one token each, one id each: ``n_initial`` counts them; their bytes
    are in ``n_bytes``, the corpus's, default the words'),
    ``turns``/``per_lang`` (parity): each step's language and each language's words,
    for the chosen pair's count in that language's text."""
    slow = SlowBPE.of_bytes(words)
    langs = [SlowBPE.of_bytes(w) for w in per_lang] if per_lang else []
    if n_bytes is None:
        n_bytes = sum(len(w) * f for w, f in words.items())
    spec = [specials] if specials else []
    vocab: dict[int, bytes] = {i: bytes([i]) for i in range(256)}
    bpt, eff, pairs = [], [], []

    def measure():
        counts = slow.counts()
        bpt.append(n_bytes / (slow.tokens() + specials))
        eff.append(renyi(list(counts.values()) + spec, n_initial + len(vocab) - 256))
        return counts
    measure()
    for k, (a, b, new, token) in enumerate(steps):
        lang = turns[k] if turns else None
        src = slow if lang is None else langs[lang]
        pairs.append(src.pair_count(a, b))
        slow.merge(a, b, new)
        for L in langs:
            L.merge(a, b, new)
        vocab.setdefault(new, token)
        counts = measure()
    return dict(bpt=bpt, renyi=eff, pairs=pairs, lengths=length_histogram(vocab.values()),
                zipf=zipf(counts))


def run_steps(c: Controller):
    return [(s.pair[0], s.pair[1], s.new_id, s.token) for s in c.view().steps]


def assert_charts_equal(v: ChartsView, want: dict) -> None:
    v.refresh()
    n = len(want["bpt"]) - 1
    xs, ys = v.compression.data("corpus")
    assert xs == list(range(n + 1))
    assert ys == pytest.approx(want["bpt"], rel=1e-12)
    xs, ys = v.renyi.data("corpus")
    assert xs == list(range(n + 1))
    assert ys == pytest.approx(want["renyi"], rel=1e-9)
    xs, ys = v.pair_count.data("chosen pair")
    assert xs == list(range(1, n + 1)) and ys == want["pairs"]
    lens, counts = v.lengths.data("tokens")
    assert dict(zip(lens, counts)) == want["lengths"]
    _, freqs = v.zipf.data("tokens")
    assert freqs == want["zipf"]


# ----- plain ------------------------------------------------------------------------------------
DOCS = ["First Citizen: Before we proceed any further, hear me speak.",
        "All: Speak, speak. 我们学习字节对编码。 resolved, resolved.",
        "You are all resolved rather to die than to famish? Resolved. resolved.\n",
        "First, you know Caius Marcius is chief enemy to the people. 编码器和解码器。"]
PLAIN = EOT.join(DOCS * 4)


def test_plain_charts_equal_the_recount(charts, qtbot):
    c = Controller()
    c.set_settings(TrainSettings(num_merges=80, special_tokens=(EOT,)))
    c.set_corpus_text(PLAIN)
    v = charts(c)
    train(c)
    n = len(PLAIN.encode())
    want = recount(gpt2_words(PLAIN.split(EOT)), run_steps(c), specials=PLAIN.count(EOT),
                   n_initial=257, n_bytes=n)
    assert want["bpt"][0] == n / (n - (len(EOT) - 1) * PLAIN.count(EOT))
    assert_charts_equal(v, want)


# ----- parity -----------------------------------------------------------------------------------
def parity_recount(c: Controller) -> dict:
    per_lang = [gpt2_words(lines(FIXTURES / f"{x}.train.txt")) for x in LANGS]
    words: Counter = Counter()
    for w in per_lang:
        words.update(w)
    turns = [r.language for r in c.view().parity.steps]
    return recount(dict(words), run_steps(c), turns=turns, per_lang=per_lang)


def dev_tokens(merges: list[tuple[bytes, bytes]], part: str = "dev") -> list[list[int]]:
    """Each language's tokens on its dev (or training) lines at steps 0..len(merges),
    the merges replayed here."""
    out = []
    ids = {bytes([i]): i for i in range(256)}
    devs = [SlowBPE.of_bytes(gpt2_words(lines(FIXTURES / f"{x}.{part}.txt"))) for x in LANGS]
    out.append([d.tokens() for d in devs])
    for a, b in merges:
        new = ids.setdefault(a + b, len(ids))
        for d in devs:
            d.merge(ids[a], ids[b], new)
        out.append([d.tokens() for d in devs])
    return out


def assert_parity_lines(v: ChartsView, c: Controller, n: int, part: str = "dev") -> None:
    """Solid lines: the run's tokens on the dev (or training) lines; dashed: plain
    BPE's (HF's merges), every step 0..n of the run."""
    ours = dev_tokens([(s.left, s.right) for s in c.view().steps], part)
    plain = dev_tokens(hf_plain_merges(n, dev=part == "dev"), part)
    v.refresh()
    for i, x in enumerate(LANGS):
        xs, ys = v.parity.data(x)
        assert xs == list(range(n + 1)) and ys == [row[i] for row in ours]
        xs, ys = v.parity.data(f"{x} plain BPE")
        assert xs == list(range(n + 1)), f"{x}: plain BPE drawn to step {xs[-1]} of {n}"
        assert ys == [row[i] for row in plain]


def test_parity_charts_equal_the_recount(charts):
    """Every chart of a parity run, and plain BPE's lines from Hugging Face's merges."""
    c = parity_controller(40)
    v = charts(c)
    train(c)
    assert_charts_equal(v, parity_recount(c))
    assert_parity_lines(v, c, 40)


def test_parity_on_ratios_charts_the_training_tokens(charts):
    """Balanced on ratios (no dev set), the parity chart is each language's tokens on
    its training lines, and every other chart as with a dev set (the first merges
    global: their pair counts are all languages')."""
    c = parity_controller(30, balance="ratio", global_merges=5)
    v = charts(c)
    train(c)
    v.refresh()
    assert v.parity.title == "Training tokens"
    assert_charts_equal(v, parity_recount(c))
    assert_parity_lines(v, c, 30, part="train")


def test_parity_charts_followed_live_end_equal_to_the_recount(charts):
    """A run on the worker thread, looked at every few steps (the series start at the
    first look, steps already made): at the end every chart equals the recount."""
    c = parity_controller(150)
    c.live.interval = 0.0   # a look at every progress report of the run
    v = charts(c)
    looks = []
    c.livePeek.connect(lambda k: looks.append((k, v.series.n if v.series else -1)))
    train(c)
    assert any(0 < n < 150 for _, n in looks), looks
    assert_charts_equal(v, parity_recount(c))
    assert_parity_lines(v, c, 150)


def continued_parity(charts, first: int, then: int):
    """A parity run trained to ``first`` merges, charted, then its target raised to
    ``then`` and Train pressed again (it goes on from where it was)."""
    c = parity_controller(first)
    v = charts(c)
    train(c)
    v.refresh()
    raise_target(c, then)
    assert c.view().n_steps == then
    v.refresh()
    return c, v


@pytest.mark.regression
def test_parity_compression_starts_at_one_byte_per_token(charts):
    """Issue 63: step 0 showed step 1's value (1.105): with no merge every byte is a
    token. The records of a run made without detail said they replaced no token, so
    step 0's token count was taken as step 1's."""
    c = parity_controller(10)
    v = charts(c)
    train(c)
    v.refresh()
    _, ys = v.compression.data("corpus")
    assert ys[0] == 1.0
    assert ys == pytest.approx(parity_recount(c)["bpt"], rel=1e-12)


@pytest.mark.regression
def test_parity_renyi_efficiency_is_that_of_the_training_words(charts):
    """Issue 63: 0.93 at step 0 against 0.513 recounted on the training lines: step 0's
    counts were rebuilt from records that said they replaced nothing."""
    c = parity_controller(10)
    v = charts(c)
    train(c)
    v.refresh()
    _, ys = v.renyi.data("corpus")
    assert ys == pytest.approx(parity_recount(c)["renyi"], rel=1e-9)


@pytest.mark.regression
def test_plain_bpe_lines_reach_a_raised_target(charts):
    """Issue 63: raising the target from 10 and pressing F5 left plain BPE's dashed
    lines at 10 steps (11 points in the saved CSV); stepping on past a new target one
    step at a time extends them too."""
    c, v = continued_parity(charts, 10, 60)
    assert_parity_lines(v, c, 60)
    rows = [r for r in v.csv_text().splitlines() if r.startswith("parity,en plain BPE,")]
    assert len(rows) == 61
    assert c.set_settings(replace(c.settings, num_merges=63))
    for _ in range(3):
        assert c.step()
    assert_parity_lines(v, c, 63)


@pytest.mark.regression
def test_a_continued_parity_run_charts_what_a_retrain_charts(charts):
    """Issue 63: a run continued from 10 steps ended at 0.515 against 0.724 after a
    retrain, for the same merges: the steps added by the continued run moved no counts."""
    c, v = continued_parity(charts, 10, 60)
    assert_charts_equal(v, parity_recount(c))
    continued = {k: v.chart_data()[k] for k in ("compression", "renyi", "parity")}
    c.training.retrain(to_target=True)
    wait(lambda: not c.busy and c.view() is not None and c.view().is_done)
    v.refresh()
    again = {k: v.chart_data()[k] for k in ("compression", "renyi", "parity")}
    for key in continued:
        assert continued[key].keys() == again[key].keys()
        for name, (xs, ys) in continued[key].items():
            assert again[key][name][0] == xs
            assert again[key][name][1] == pytest.approx(ys, rel=1e-9), (key, name)


# ----- SuperBPE ---------------------------------------------------------------------------------
def test_superbpe_charts_equal_encoding_the_corpus_at_each_step(charts):
    """Stage 1 and stage 2 alike: each step's series are those of the corpus encoded
    by the tokenizer of that step (stage 2's pieces cross spaces; the corpus has no
    newline inside a piece, so training and encoding cut it the same)."""
    text = " ".join(DOCS * 6).replace("\n", " ")
    c = Controller()
    c.set_settings(TrainSettings(num_merges=90, superbpe_from=50))
    c.set_corpus_text(text)
    v = charts(c)
    train(c)
    view = c.view()
    assert view.transition == 50
    v.refresh()
    _, bpt = v.compression.data("corpus")
    _, eff = v.renyi.data("corpus")
    for k in (0, 1, 25, 49, 50, 51, 70, 90):
        tok = view.tokenizer(at_step=k)
        ids = tok.encode(text)
        assert bpt[k] == pytest.approx(len(text.encode()) / len(ids), rel=1e-12), k
        assert eff[k] == pytest.approx(renyi(Counter(ids).values(), 256 + k), rel=1e-9), k
    # stage 1's chosen pairs, counted in GPT-2's words with its merges replayed here
    slow = SlowBPE.of_bytes(gpt2_words([text]))
    _, pairs = v.pair_count.data("chosen pair")
    for k, s in enumerate(view.steps[:50], 1):
        assert pairs[k - 1] == slow.pair_count(*s.pair), k
        slow.merge(*s.pair, s.new_id)
    assert len(pairs) == 90
    ids = Counter(view.tokenizer().encode(text))
    _, freqs = v.zipf.data("tokens")
    assert freqs == zipf(ids)
    lens, counts = v.lengths.data("tokens")
    assert dict(zip(lens, counts)) == length_histogram(view.tokenizer().vocab.values())


# ----- training on from imported GPT-2 files, and an imported tokenizer shown ----------------
@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    """vocab.json + merges.txt written by Hugging Face tokenizers."""
    folder = tmp_path_factory.mktemp("hf_gpt2")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator([" ".join(DOCS * 3)], vocab_size=330, min_frequency=1,
                            show_progress=False)
    bpe.save_model(str(folder))
    return folder


NEW_TEXT = "".join(lines(FIXTURES / "de.train.txt")[:60])


def test_train_on_charts_start_from_the_source_and_equal_the_recount(charts, gpt2_dir):
    """Step 0 is the source as it is (its own library's encoding of the corpus); each
    new merge is replayed here on those tokens."""
    c = Controller()
    c.set_corpus_text(NEW_TEXT)
    assert c.tokenizer_files.import_tokenizer(str(gpt2_dir)) is not None
    wait(lambda: not c.busy)
    v = charts(c)
    assert c.train_on.start(num_merges=40)
    wait(lambda: not c.busy and c.train_on.origin() is not None and c.view() is not None)
    hf = tokenizers.ByteLevelBPETokenizer(str(gpt2_dir / "vocab.json"),
                                          str(gpt2_dir / "merges.txt"))
    vocab = json.loads((gpt2_dir / "vocab.json").read_text(encoding="utf-8"))
    table = gpt2_table()
    src_tokens = {i: bytes(table[ch] for ch in s) for s, i in vocab.items()}
    words = gpt2_words([NEW_TEXT])
    start = {tuple(hf.encode(w.decode()).ids): f for w, f in words.items()}
    slow = SlowBPE(start)
    n_bytes = len(NEW_TEXT.encode())
    assert slow.tokens() == len(hf.encode(NEW_TEXT).ids)
    size0 = len(src_tokens)
    bpt, eff, pairs = [n_bytes / slow.tokens()], [renyi(slow.counts().values(), size0)], []
    tokens = dict(src_tokens)
    for k, s in enumerate(c.view().steps, 1):
        pairs.append(slow.pair_count(*s.pair))
        slow.merge(*s.pair, s.new_id)
        tokens[s.new_id] = s.token
        bpt.append(n_bytes / slow.tokens())
        eff.append(renyi(slow.counts().values(), size0 + k))
    assert_charts_equal(v, dict(bpt=bpt, renyi=eff, pairs=pairs,
                                lengths=length_histogram(tokens.values()),
                                zipf=zipf(slow.counts())))


def test_an_imported_tokenizer_in_the_views_leaves_the_charts_the_run(charts, gpt2_dir):
    """The encode view may show an imported tokenizer; the charts keep drawing the
    training run on the corpus, recounted here."""
    c = Controller()
    c.set_settings(TrainSettings(num_merges=50, special_tokens=(EOT,)))
    c.set_corpus_text(PLAIN)
    v = charts(c)
    train(c)
    assert c.tokenizer_files.import_tokenizer(str(gpt2_dir)) is not None
    wait(lambda: not c.busy)
    c.tokenizer_files.set_use_imported(True)
    assert c.use_imported
    want = recount(gpt2_words(PLAIN.split(EOT)), run_steps(c), specials=PLAIN.count(EOT),
                   n_initial=257, n_bytes=len(PLAIN.encode()))
    assert_charts_equal(v, want)
    assert not math.isnan(want["renyi"][-1])
