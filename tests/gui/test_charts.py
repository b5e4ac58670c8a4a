"""ChartsView on a real run: series checked against re-encoding the corpus (bytes per
token = corpus bytes / len(encode(corpus)) at step k), counting ids, and the files
the view saves."""
from __future__ import annotations

import csv
import math
import random
from collections import Counter

import pytest
import regex
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage, QPalette

from bpe_gui.engine.train.trainer import TrainSettings
from bpe_gui.gui.controller.controller import Controller
from settle import settle
from bpe_gui.gui.panels.charts.charts import (ChartWidget, ChartsView, decimate, linear_ticks,
                                       log_ticks, nice_step)

EOT = "<|endoftext|>"
GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
DOCS = ["First Citizen: Before we proceed any further, hear me speak.",
        "All: Speak, speak. 我们学习字节对编码。",
        "You are all resolved rather to die than to famish? Resolved. resolved.",
        "First, you know Caius Marcius is chief enemy to the people. 编码器和解码器。"]
SYLLABLES = ["ka", "ri", "to", "men", "sha", "ver", "lo", "nd", "ea", "qu", "ist", "er",
             "字", "节", "编", "码", "学", "习", "我", "们"]


def salad(seed: int, n: int = 600) -> str:
    """Deterministic made-up words: enough distinct pairs for a few hundred merges."""
    rng = random.Random(seed)
    words = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))) for _ in range(n)]
    return " ".join(words) + "."


CORPUS = EOT.join(DOCS * 3 + [salad(i) for i in range(4)])
HELD = "Speak, citizens: the people know the enemy. 学习解码。" * 3


pytestmark = pytest.mark.controller(CORPUS, vocab_size=2000, special_tokens=(EOT,))


@pytest.fixture
def charts(qtbot, controller):
    v = ChartsView(controller)
    qtbot.addWidget(v)
    v.resize(1000, 700)
    v.show()
    return v


def bytes_per_token(controller, k: int, text: str = CORPUS) -> float:
    return len(text.encode()) / len(controller.trainer.tokenizer(at_step=k).encode(text, allowed_special="all"))


def test_compression_matches_reencoding_the_corpus(charts, controller):
    controller.goto(120)
    charts.refresh()
    xs, ys = charts.compression.data("corpus")
    assert xs == list(range(121))
    for k in (0, 1, 40, 120):
        assert ys[k] == pytest.approx(bytes_per_token(controller, k))
    # the first merge's count, counted here from the corpus words
    pairs = Counter()
    for doc in CORPUS.split(EOT):
        for w in regex.findall(GPT2, doc):
            b = w.encode()
            pairs.update(zip(b, b[1:]))
    _, counts = charts.pair_count.data("chosen pair")
    assert counts[0] == max(pairs.values())
    assert len(counts) == 120


def test_undo_and_step_update_incrementally(charts, controller, qtbot):
    controller.goto(90)
    charts.refresh()
    controller.goto(30)
    with qtbot.waitSignal(charts.updated, timeout=3000):
        pass
    xs, ys = charts.compression.data("corpus")
    assert len(xs) == 31 and ys[30] == pytest.approx(bytes_per_token(controller, 30))
    for _ in range(5):
        controller.step()
    with qtbot.waitSignal(charts.updated, timeout=3000):
        pass
    xs, ys = charts.compression.data("corpus")
    assert xs[-1] == 35 and ys[35] == pytest.approx(bytes_per_token(controller, 35))
    lens, counts = charts.lengths.data("tokens")
    tok = controller.trainer.tokenizer()
    want = Counter(len(t) for i, t in tok.vocab.items() if i not in tok.special_ids.values())
    assert dict(zip(lens, counts)) == dict(want)


def test_zipf_is_the_id_count_of_the_encoded_corpus(charts, controller):
    controller.goto(60)
    charts.refresh()
    ranks, freqs = charts.zipf.data("tokens")
    tok = controller.trainer.tokenizer()
    ids = Counter(tok.encode(CORPUS, allowed_special="all"))
    del ids[tok.special_ids[EOT]]
    assert freqs == sorted(ids.values(), reverse=True)
    assert ranks == list(range(1, len(freqs) + 1))


def test_held_out_text_at_sampled_steps(charts, controller, qtbot):
    controller.goto(150)
    charts.set_held_out_text(HELD, "held")
    qtbot.waitUntil(charts.held_out_done, timeout=10_000)
    xs, ys = charts.compression.data("held-out")
    assert xs[0] == 0 and xs[-1] == 150 and len(xs) >= 20
    for k, y in list(zip(xs, ys))[::7] + [(xs[-1], ys[-1])]:
        assert y == pytest.approx(bytes_per_token(controller, k, HELD))
    charts.set_held_out_text(None)
    assert "held-out" not in charts.compression.series


def test_save_png_and_csv(charts, controller, tmp_path):
    controller.goto(50)
    charts.refresh()
    png, data = tmp_path / "charts.png", tmp_path / "charts.csv"
    assert charts.save_png(png)
    img = QImage(str(png))
    assert (img.width(), img.height()) == (charts.grid_host.width(), charts.grid_host.height())
    charts.save_csv(data)
    rows = list(csv.reader(data.open(encoding="utf-8")))
    assert rows[0] == ["chart", "series", "x", "y"]
    corpus = [(int(x), float(y)) for c, s, x, y in rows[1:] if (c, s) == ("compression", "corpus")]
    assert [x for x, _ in corpus] == list(range(51))
    assert corpus[50][1] == pytest.approx(bytes_per_token(controller, 50))
    assert {r[0] for r in rows[1:]} == {"compression", "renyi", "pair_count", "token_lengths",
                                        "zipf"}
    one = tmp_path / "pairs.csv"
    charts.pair_count.save_csv(one)
    lines = one.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "series,step,count" and len(lines) == 51
    assert charts.zipf.save_png(tmp_path / "zipf.png")


def test_hover_reads_out_the_nearest_point(charts, controller, qtbot):
    controller.goto(40)
    charts.refresh()
    chart = charts.compression
    chart._prepare()
    drawn = chart._drawn[0]
    j = len(drawn.pts) // 2
    pt = drawn.pts[j]
    qtbot.mouseMove(chart, pt.toPoint())
    series, i = chart.hover_at(QPointF(pt))
    assert series.name == "corpus" and i == drawn.idx[j]
    assert chart.readout(series, i).startswith(f"step {i}, bytes per token")


def test_legible_in_a_dark_palette(qtbot):
    chart = ChartWidget("t", "x", "y")
    qtbot.addWidget(chart)
    pal = chart.palette()
    pal.setColor(QPalette.Base, QColor("#1e1e1e"))
    pal.setColor(QPalette.Text, QColor("#eeeeee"))
    chart.setPalette(pal)
    chart.set_series("a", range(100), [math.sqrt(x) for x in range(100)])
    chart.resize(400, 300)
    img = chart.grab().toImage()
    assert QColor(img.pixel(2, 2)).lightness() < 60
    # axis labels are drawn in the light text colour
    assert any(QColor(img.pixel(x, y)).lightness() > 180
               for x in range(0, 60) for y in range(40, 280))


def test_axis_helpers():
    assert nice_step(100) == 20 and nice_step(7) == 2 and nice_step(5) == 1
    assert linear_ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    major, minor = log_ticks(0, 2)
    assert major == [1, 10, 100] and 2 in minor and 90 in minor
    assert decimate([0, 0.2, 0.5, 0.7, 1.0], [5, 1, 9, 4, 2]) == [0, 1, 2, 3, 4]
    px = [i / 100 for i in range(10_000)]          # 100 pixel columns
    keep = decimate(px, [math.sin(i) for i in range(10_000)])
    assert len(keep) <= 400 and keep == sorted(keep)


def test_long_run_draws_every_step(charts, controller, qtbot):
    """(How fast: bench/test_gui_latency.py.)"""
    controller.goto(300)
    charts.refresh()
    xs, ys = charts.compression.data("corpus")
    assert xs == list(range(301))
    assert ys[300] == pytest.approx(bytes_per_token(controller, 300))
    img = charts.grid_host.grab()
    assert not img.isNull()


def test_hidden_charts_wait_and_catch_up_when_shown(charts, controller, qtbot):
    controller.goto(10)
    charts.refresh()
    charts.hide()
    redraws = []
    charts.updated.connect(lambda: redraws.append(1))
    for _ in range(7):
        controller.step()
    settle(qtbot, charts, controller)   # every throttled redraw the steps started has run
    xs, _ = charts.compression.data("corpus")
    assert xs[-1] == 10 and redraws == [], "a hidden view does no work on each step"
    with qtbot.waitSignal(charts.updated, timeout=3000):
        charts.show()
    xs, ys = charts.compression.data("corpus")
    assert xs[-1] == 17 and ys[17] == pytest.approx(bytes_per_token(controller, 17))


# ----- Rényi efficiency against the merge step (issue #14) ------------------------------------
def renyi_direct(counts, vocab_size: int, alpha: float = 2.5) -> float:
    """Zouhar et al.'s efficiency written out: H_a(p) = ln(sum p_i^a) / (1 - a) over the
    token shares p_i, divided by ln |V|."""
    n = sum(counts)
    h = math.log(sum((c / n) ** alpha for c in counts if c)) / (1 - alpha)
    return h / math.log(vocab_size)


def renyi_of_encoding(controller, k: int, text: str = CORPUS) -> float:
    tok = controller.trainer.tokenizer(at_step=k)
    return renyi_direct(Counter(tok.encode(text, allowed_special="all")).values(), len(tok.vocab))


def test_renyi_matches_a_direct_formula_on_the_encoded_corpus(charts, controller, qtbot):
    """Each step's value is the efficiency of Counter(encode(corpus)) with the first k
    merges (special tokens included: one token each), over the vocabulary then; it
    follows undo and step."""
    controller.goto(150)
    charts.refresh()
    xs, ys = charts.renyi.data("corpus")
    assert xs == list(range(151))
    for k in (0, 1, 2, 60, 150):
        assert ys[k] == pytest.approx(renyi_of_encoding(controller, k), rel=1e-9)
    controller.goto(40)
    for _ in range(3):
        controller.step()
    with qtbot.waitSignal(charts.updated, timeout=3000):
        pass
    xs, ys = charts.renyi.data("corpus")
    assert xs[-1] == 43 and ys[43] == pytest.approx(renyi_of_encoding(controller, 43))
    assert "Rényi efficiency" in charts.status.text()


def test_renyi_starts_again_for_a_new_trainer(charts, controller, qtbot):
    controller.goto(30)
    charts.refresh()
    controller.set_settings(TrainSettings(vocab_size=2000, special_tokens=(EOT,),
                                          tie_rule="first-seen"))
    assert controller.training.retrain(to_step=25)
    charts.refresh()
    xs, ys = charts.renyi.data("corpus")
    assert xs[-1] == 25
    assert ys[25] == pytest.approx(renyi_of_encoding(controller, 25))


def test_renyi_follows_a_long_run_while_it_runs(qtbot, corpora_dir):
    """During a run on the worker thread the series grows at each look the run allows
    (LiveView), and ends equal to the direct formula."""
    import lzma

    text = lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt",
                     encoding="utf-8").read(400_000)
    c = Controller()
    c.live.interval = 0.0        # a look at every progress report of the run
    c.set_settings(TrainSettings(vocab_size=4000))
    c.set_corpus_text(text)
    assert c.training.retrain()                       # a pre-tokenizing job (a big text)
    qtbot.waitUntil(lambda: not c.busy and c.trainer is not None, timeout=60_000)
    v = ChartsView(c)
    qtbot.addWidget(v)
    v.resize(1000, 700)
    v.show()
    seen = []
    c.livePeek.connect(lambda k: seen.append((k, len(v.series.renyi.values) - 1
                                              if v.series is not None else -1)))
    assert c.training.to_target()
    qtbot.waitUntil(lambda: not c.busy, timeout=60_000)
    v.refresh()
    final = c.trainer.n_steps
    assert any(0 < n < final and n == k for k, n in seen), seen
    xs, ys = v.renyi.data("corpus")
    assert xs[-1] == final
    for k in (0, final // 2, final):
        assert ys[k] == pytest.approx(renyi_of_encoding(c, k, text), rel=1e-9)
    c.shutdown()


def test_held_out_file_is_read_by_a_job_of_the_controller(charts, controller, qtbot,
                                                         tmp_path):
    """Open held-out file: read (and pre-tokenized) on the controller's job runner, not
    on the GUI thread; the chart then holds the same points as pasted text."""
    path = tmp_path / "held.txt"
    path.write_text(HELD, encoding="utf-8")
    controller.goto(60)
    labels = []
    controller.progress.connect(lambda label, *_: labels.append(label))
    started = []
    controller.busyChanged.connect(lambda busy: busy and started.append(controller.job_label))
    assert charts.open_held_out(str(path))
    assert started and started[0] == "Reading held.txt"   # a job: the status bar says so
    qtbot.waitUntil(lambda: charts.held_label.text().startswith("Held-out text: held.txt"),
                    timeout=10_000)
    qtbot.waitUntil(charts.held_out_done, timeout=10_000)
    xs, ys = charts.compression.data("held-out")
    assert xs[-1] == 60
    for k, y in zip(xs, ys):
        assert y == pytest.approx(bytes_per_token(controller, k, HELD))
    bad = tmp_path / "image.bin"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" * 50)
    errors = []
    controller.errorOccurred.connect(lambda title, msg: errors.append(msg))
    assert charts.open_held_out(str(bad))
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert "binary" in errors[0]


@pytest.mark.parametrize("width", [200, 260, 600])
def test_the_hover_readout_stays_inside_a_narrow_chart(qtbot, width):
    """Issue 21: at the right edge of a narrow chart the readout was cut off on the left
    (it was wider than the plot)."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFontMetrics
    chart = ChartWidget("Compression", "merge step", "bytes per token")
    qtbot.addWidget(chart)
    chart.set_series("held-out text (Chinese and English)", range(0, 40_000, 100),
                     [1 + math.log1p(x) for x in range(0, 40_000, 100)])
    chart.set_series("corpus", range(0, 40_000, 100), [1.0] * 400)
    chart.resize(width, 260)
    chart.show()
    qtbot.waitExposed(chart)
    chart._prepare()
    for drawn in chart._drawn:
        for j in (0, len(drawn.pts) - 1):
            pt = drawn.pts[j]
            qtbot.mouseMove(chart, pt.toPoint())
            series, i = chart.hover_at(QPointF(pt))
            text = chart.readout(series, i)
            box, lines = chart.hover_box(text, QFontMetrics(chart.font()),
                                         QRectF(chart.rect()).adjusted(40, 30, -16, -30), pt)
            assert QRectF(chart.rect()).contains(box), (width, text)
            if width >= 260:   # room for each part whole: nothing elided
                assert " ".join(lines).replace(", ", " ") == text.replace(", ", " ")
            chart.grab()   # paints the hover without error


@pytest.mark.regression
def test_a_chart_of_step_0_alone_does_not_run_its_x_axis_below_zero(qtbot):
    """At step 0 the compression chart's x axis ran from -1 to 1 (issue 10)."""
    from bpe_gui.gui.widgets.chart_widget import ChartWidget
    chart = ChartWidget("Compression", "merge step", "bytes per token")
    qtbot.addWidget(chart)
    chart.set_series("corpus", [0], [1.0])
    x0, x1, _, _ = chart._ranges()
    assert x0 == 0 and x1 > 0


@pytest.mark.regression
@pytest.mark.parametrize("width", [180, 240, 320, 600])
def test_a_charts_title_and_its_step_note_never_overlap(qtbot, width):
    """The Zipf chart's title ran into its "step N" note at 800x600 (issue 30 item 7)."""
    from PySide6.QtGui import QFont, QFontMetrics
    from bpe_gui.gui.widgets.chart_title import title_row
    from bpe_gui.gui.widgets.chart_widget import ChartWidget
    chart = ChartWidget("Token frequency on the corpus (Zipf)", "rank", "frequency")
    qtbot.addWidget(chart)
    fm = QFontMetrics(chart.font())
    bold = QFont(chart.font())
    bold.setBold(True)
    bfm = QFontMetrics(bold)
    title, note = title_row(chart.title, "step 12,345", bfm, fm, width)
    used = bfm.horizontalAdvance(title) + (fm.horizontalAdvance(note) + 12 if note else 0)
    assert used <= width
    assert title == chart.title or title.endswith("…")
    assert note in ("", "step 12,345") or note.endswith("…")


@pytest.mark.regression
def test_log_axis_labels_are_thinned_where_decades_are_close(qtbot):
    """1G, 100M, 10M and 1M were drawn into each other on a short log axis (issue 30)."""
    from bpe_gui.gui.widgets.chart_widget import ChartWidget, thin_labels
    ticks = [(float(d), f"1e{d}") for d in range(10)]
    drawn = thin_labels(ticks, lambda v: 200 - 12 * v, need=16)   # 12 px per decade
    ys = [200 - 12 * v for v, _ in drawn]
    assert all(a - b >= 16 for a, b in zip(ys, ys[1:]))
    assert drawn[0] == ticks[0] and len(drawn) >= 4
    assert thin_labels(ticks, lambda v: 400 - 40 * v, need=16) == ticks   # room: all
    chart = ChartWidget("Count of the chosen pair", "step", "count", ylog=True)
    qtbot.addWidget(chart)
    chart.set_series("count", list(range(1, 50)), [10.0 ** (9 * (1 - k / 49)) for k in
                                                   range(49)])
    chart.resize(300, 120)
    chart.grab()   # paints without error at a size where every decade has no room


@pytest.mark.regression
@pytest.mark.parametrize("size", [(220, 150), (260, 170), (480, 320)])
def test_the_y_axis_title_is_drawn_whole_in_a_short_chart(qtbot, monkeypatch, size):
    """At 1024x700 the Charts dock's compression chart read "bytes per …" up its side."""
    from PySide6.QtGui import QPainter
    chart = ChartWidget("Compression", "step", "bytes per token")
    qtbot.addWidget(chart)
    chart.set_series("corpus", range(0, 50), [1 + x / 10 for x in range(50)])
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    drawn: list[str] = []
    real = QPainter.drawText

    def record(self, *args):
        drawn.extend(a for a in args if isinstance(a, str))
        return real(self, *args)
    monkeypatch.setattr(QPainter, "drawText", record)
    chart.grab()
    assert "bytes per token" in drawn, drawn
    assert not any("…" in t for t in drawn), drawn


def test_data_ranges_widen_to_nice_steps_and_decades():
    """The axes' ranges (widgets/chart_data.py, without a widget): a line to nice
    steps, a log axis to whole decades, bars from zero, one point widened to the
    right; points a log axis cannot show are left out."""
    from bpe_gui.gui.widgets.chart_data import Series, axis_points, data_ranges
    line = Series("a", [0.0, 10.0], [3.0, 17.0], "line", 0)
    # (14 wide: steps of 2.5, six of them at most)
    assert data_ranges([line], False, False, False) == (0.0, 10.0, 2.5, 17.5)
    logged = Series("b", [0.0, 1.0, 10.0, 100.0], [1.0, 2.0, 3.0, 0.0], "line", 0)
    idx, ax, ay = axis_points(logged, True, True)
    assert idx == [1, 2] and ax == [0.0, 1.0]
    assert data_ranges([logged], True, True, False) == (0, 1, 0, 1)
    bars = Series("c", [0.0, 1.0, 2.0], [5.0, 7.0, 6.0], "bars", 0)
    x0, x1, y0, y1 = data_ranges([bars], False, False, False)
    assert (x0, x1, y0) == (-0.5, 2.5, 0.0) and y1 >= 7
    assert data_ranges([Series("d", [3.0], [4.0], "points", 0)], False, False, False)[:2] \
        == (3.0, 4.0)
    assert data_ranges([], False, False, False) is None


def test_grouped_bars_have_one_home(qtbot):
    """The per-language cost chart and the mixture's merge-against-runner-up chart are one
    class (widgets/grouped_bars.py): bars of a group side by side, a gap between groups,
    the group named under its middle, a missing value no bar, the readout naming both."""
    from bpe_gui.gui.dialogs.cost_parts import CostChart
    from bpe_gui.gui.dialogs.training_mixture import PairChart
    from bpe_gui.gui.widgets.grouped_bars import GroupedBarChart
    for cls in (CostChart, PairChart):
        assert issubclass(cls, GroupedBarChart)
        assert not {"legend_html", "readout", "_x_ticks"} & set(vars(cls))
    chart = GroupedBarChart("t", "group", "value")
    qtbot.addWidget(chart)
    values = {("A", "en"): 1.0, ("A", "zh"): 2.0, ("B", "en"): 3.0, ("C", "zh"): 4.0}
    chart.show_bars(["en", "zh"], [(s, lambda g, s=s: values.get((s, g))) for s in "ABC"])
    # 3 series: group g's bars at 4g, 4g+1, 4g+2 (a gap at 4g+3), its name at 4g+1
    assert [(s.xs, s.ys) for s in chart.series.values()] == [
        ([0.0, 4.0], [1.0, 2.0]), ([0.0 + 1], [3.0]), ([4.0 + 2], [4.0])]
    assert chart._x_ticks(-1, 10, 500)[0] == [(1.0, "en"), (5.0, "zh")]
    assert chart.readout(chart.series["C"], 0) == "zh · C: 4"
    assert "■" in chart.legend_html(False) and "C" in chart.legend_html(True)
    chart.show_bars([], [])
    assert not chart.series and chart._x_ticks(-1, 10, 500)[0] == []
