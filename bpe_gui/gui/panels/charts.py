"""Charts of training: compression, chosen-pair count, token lengths, Zipf.

:class:`ChartWidget` is a small QPainter chart (no QtCharts: only PySide6-Essentials is
a dependency): lines, points or bars, linear or log axes with ticks and labels, a hover
readout, palette-aware colours. Long series are cut to a few points per pixel column
before drawing (first/min/max/last per column), so 10,000 steps draw as fast as 500.

:class:`ChartsView` keeps the four charts up to date as training steps: it appends the
records of new steps (and drops undone ones) instead of recomputing, redraws at most a
few times a second, and encodes the held-out text at sampled steps a slice at a time
on an idle timer, so the window stays responsive.
"""
from __future__ import annotations

import bisect
import csv
import io
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QGridLayout,
                               QHBoxLayout, QLabel, QMenu, QMessageBox, QPlainTextEdit,
                               QPushButton, QSizePolicy, QVBoxLayout, QWidget)

from ...engine import stats
from ...engine.errors import BPEError
from .visibility import on_screen

HELD_OUT_MAX_CHARS = 1_000_000
REDRAW_MS = 150          # at most this often while steps arrive
IDLE_SLICE_S = 0.02      # held-out encoding work per idle tick
STYLES = ("line", "points", "linepoints", "bars")


# ----- pure helpers ------------------------------------------------------------------------
def nice_step(span: float, target: int = 6) -> float:
    """A 1/2/2.5/5 x 10^k tick step giving about ``target`` ticks over ``span``.

    Example: nice_step(100) -> 20.0; nice_step(7) -> 1.0
    """
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def linear_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Example: linear_ticks(0, 100) -> [0, 20, 40, 60, 80, 100]"""
    step = nice_step(hi - lo, target)
    first = math.ceil(lo / step - 1e-9) * step
    out, v = [], first
    while v <= hi + step * 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[float]]:
    """Major (labelled powers of ten) and minor ticks between 10**lo and 10**hi (lo, hi
    are log10 values). With many decades only every 2nd/3rd power gets a label.

    Example: log_ticks(0, 2) -> ([1, 10, 100], [2, 3, ..., 90])
    """
    d0, d1 = math.floor(lo + 1e-9), math.ceil(hi - 1e-9)
    every = max(1, math.ceil((d1 - d0) / 8))
    major = [10.0 ** d for d in range(d0, d1 + 1) if d % every == 0]
    minor = []
    if d1 - d0 <= 6:
        for d in range(d0, d1 + 1):
            minor.extend(m * 10.0 ** d for m in range(2, 10))
    return ([v for v in major if lo - 1e-9 <= math.log10(v) <= hi + 1e-9],
            [v for v in minor if lo <= math.log10(v) <= hi])


def fmt_num(v: float, step: float | None = None) -> str:
    """Axis label: 1k, 2.5M for big numbers; as many decimals as the tick step needs.

    Example: fmt_num(12000) -> '12k'; fmt_num(0.25, 0.05) -> '0.25'; fmt_num(3) -> '3'
    """
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:g}G"
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    if a >= 1e4:
        return f"{v / 1e3:g}k"
    if step is not None and step < 1:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        if abs(step * 10 ** decimals - round(step * 10 ** decimals)) > 1e-6:
            decimals += 1
        return f"{v:.{decimals}f}"
    if v == int(v):
        return str(int(v))
    return f"{v:.3g}"


def fmt_value(v: float) -> str:
    """Hover readout: exact integers with separators, else 4 significant digits."""
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.4g}"


def decimate(px: list[float], py: list[float]) -> list[int]:
    """Indices to draw of a line already in pixel space (x non-decreasing): per whole
    pixel column the first, lowest, highest and last point, in their order.

    Example: px [0, 0.2, 0.5, 0.7, 1.0], py [5, 1, 9, 4, 2] -> [0, 1, 2, 3, 4]
    (one column holds all of 0..3: first, min, max, last; then column 1)
    """
    n = len(px)
    out: list[int] = []
    i = 0
    while i < n:
        col = math.floor(px[i])
        j = bisect.bisect_left(px, col + 1, i + 1)   # first index in a later column
        if j - i <= 4:
            out.extend(range(i, j))
        else:
            seg = py[i:j]
            lo = i + seg.index(min(seg))
            hi = i + seg.index(max(seg))
            out.extend(sorted({i, lo, hi, j - 1}))
        i = j
    return out


@dataclass
class Series:
    name: str
    xs: list[float]
    ys: list[float]
    style: str = "line"
    color: int = 0          # index into the palette's series colours
    _axis: tuple | None = field(default=None, repr=False, compare=False)  # see _axis()


@dataclass
class _Drawn:
    """A series in pixel space, decimated: what paint and hover use."""

    series: Series
    idx: list[int] = field(default_factory=list)
    pts: list[QPointF] = field(default_factory=list)


def series_colors(dark: bool) -> list[QColor]:
    if dark:
        return [QColor(c) for c in ("#74b3ff", "#ffa45c", "#6fdc8c", "#e599f7", "#ffd43b")]
    return [QColor(c) for c in ("#1864ab", "#d9480f", "#2b8a3e", "#9c36b5", "#e67700")]


# ----- the chart widget --------------------------------------------------------------------
class ChartWidget(QWidget):
    """A QPainter chart: ``set_series(name, xs, ys, style)``, log axes, hover, save."""

    def __init__(self, title: str, xlabel: str, ylabel: str, *, xlog: bool = False,
                 ylog: bool = False, y_from_zero: bool = False, empty_text: str = "",
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.xlog, self.ylog, self.y_from_zero = xlog, ylog, y_from_zero
        self.empty_text = empty_text or "No data yet: train a few merges."
        self.note = ""
        self.series: dict[str, Series] = {}
        self._version = 0
        self._cache_key = None
        self._drawn: list[_Drawn] = []
        self._frame = None
        self._hover: tuple[_Drawn, int] | None = None
        self.setMouseTracking(True)
        self.setMinimumSize(320, 220)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setContextMenuPolicy(Qt.DefaultContextMenu)

    # ----- data -----------------------------------------------------------------------
    def set_series(self, name: str, xs, ys, style: str = "line", color: int | None = None) -> None:
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}")
        old = self.series.get(name)
        col = color if color is not None else (old.color if old else len(self.series))
        self.series[name] = Series(name, list(xs), list(ys), style, col)
        self._changed()

    def remove_series(self, name: str) -> None:
        if self.series.pop(name, None) is not None:
            self._changed()

    def clear(self) -> None:
        self.series.clear()
        self._changed()

    def set_log(self, x: bool | None = None, y: bool | None = None) -> None:
        if x is not None:
            self.xlog = x
        if y is not None:
            self.ylog = y
        self._changed()

    def _changed(self) -> None:
        self._version += 1
        self._hover = None
        self.update()

    def data(self, name: str) -> tuple[list[float], list[float]]:
        s = self.series[name]
        return list(s.xs), list(s.ys)

    def csv_rows(self) -> list[list]:
        """Long form: series, x, y (one row per point)."""
        return [[s.name, x, y] for s in self.series.values() for x, y in zip(s.xs, s.ys)]

    def csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["series", self.xlabel, self.ylabel])
        w.writerows(self.csv_rows())
        return buf.getvalue()

    def save_csv(self, path: str | Path) -> None:
        Path(path).write_text(self.csv_text(), encoding="utf-8")

    def save_png(self, path: str | Path) -> bool:
        return self.grab().save(str(path), "PNG")

    # ----- geometry -----------------------------------------------------------------------
    def _axis(self, s: Series) -> tuple[list[int], list[float], list[float]]:
        """Indices of the drawable points and their x, y in axis space (log10 on log
        axes), cached on the series until it or the log flags change."""
        key = (self.xlog, self.ylog)
        got = getattr(s, "_axis", None)
        if got is not None and got[0] == key:
            return got[1]
        fin = math.isfinite
        log = math.log10
        ax = [log(x) if x > 0 else math.nan for x in s.xs] if self.xlog else \
            [float(x) for x in s.xs]
        ay = [log(y) if y > 0 else math.nan for y in s.ys] if self.ylog else \
            [float(y) for y in s.ys]
        idx = [i for i, (x, y) in enumerate(zip(ax, ay)) if fin(x) and fin(y)]
        if len(idx) < len(ax):
            ax = [ax[i] for i in idx]
            ay = [ay[i] for i in idx]
        s._axis = (key, (idx, ax, ay))
        return idx, ax, ay

    def _ranges(self):
        """Data ranges in axis space (log10 on log axes); None when nothing to draw."""
        x_lo = y_lo = math.inf
        x_hi = y_hi = -math.inf
        for s in self.series.values():
            _, ax, ay = self._axis(s)
            if ax:
                x_lo, x_hi = min(x_lo, min(ax)), max(x_hi, max(ax))
                y_lo, y_hi = min(y_lo, min(ay)), max(y_hi, max(ay))
        if x_lo == math.inf:
            return None
        x0, x1, y0, y1 = x_lo, x_hi, y_lo, y_hi
        bars = any(s.style == "bars" for s in self.series.values())
        if bars:
            x0, x1 = x0 - 0.5, x1 + 0.5
        if self.ylog:
            y0, y1 = math.floor(y0 + 1e-9), math.ceil(y1 - 1e-9)
            if y1 <= y0:
                y1 = y0 + 1
        else:
            if self.y_from_zero or bars:
                y0 = min(0.0, y0)
            if y1 <= y0:
                y0, y1 = y0 - 1, y1 + 1
            step = nice_step(y1 - y0)
            y0, y1 = math.floor(y0 / step) * step, math.ceil(y1 / step) * step
        if self.xlog:
            x0, x1 = math.floor(x0 + 1e-9), max(math.ceil(x1 - 1e-9), math.floor(x0) + 1)
        elif x1 <= x0:
            x0, x1 = x0 - 1, x1 + 1
        return x0, x1, y0, y1

    def _layout(self):
        fm = QFontMetrics(self.font())
        ranges = self._ranges()
        if ranges is None:
            return None
        x0, x1, y0, y1 = ranges
        yt = self._y_ticks(y0, y1)
        label_w = max((fm.horizontalAdvance(t) for _, t in yt[0]), default=20)
        left = 8 + fm.height() + 6 + label_w + 6
        top = 8 + fm.height() + 8
        right = 16
        bottom = 6 + fm.height() + 4 + fm.height() + 8
        plot = QRectF(left, top, max(10, self.width() - left - right),
                      max(10, self.height() - top - bottom))
        return plot, (x0, x1, y0, y1), yt

    def _y_ticks(self, y0, y1):
        if self.ylog:
            major, minor = log_ticks(y0, y1)
            return [(math.log10(v), fmt_num(v)) for v in major], [math.log10(v) for v in minor]
        ticks = linear_ticks(y0, y1, 5)
        step = ticks[1] - ticks[0] if len(ticks) > 1 else None
        return [(v, fmt_num(v, step)) for v in ticks], []

    def _x_ticks(self, x0, x1, plot_w: float):
        if self.xlog:
            major, minor = log_ticks(x0, x1)
            return [(math.log10(v), fmt_num(v)) for v in major], [math.log10(v) for v in minor]
        target = max(2, min(8, int(plot_w / 70)))
        ticks = linear_ticks(x0, x1, target)
        if any(s.style == "bars" for s in self.series.values()):
            ticks = [t for t in ticks if t == int(t)] or ticks
        step = ticks[1] - ticks[0] if len(ticks) > 1 else None
        return [(v, fmt_num(v, step)) for v in ticks], []

    def _prepare(self):
        """Layout and each series in pixel space, decimated; cached until data, size or
        log flags change (a repaint for hover reuses it)."""
        key = (self._version, self.width(), self.height(), self.xlog, self.ylog)
        if key == self._cache_key:
            return self._frame
        self._cache_key = key
        self._frame = lay = self._layout()
        self._drawn = []
        if lay is None:
            return None
        plot, (x0, x1, y0, y1), _ = lay
        sx = plot.width() / (x1 - x0)
        sy = plot.height() / (y1 - y0)
        left, bottom = plot.left(), plot.bottom()
        for s in self.series.values():
            idx, ax, ay = self._axis(s)
            px = [left + (x - x0) * sx for x in ax]
            py = [bottom - (y - y0) * sy for y in ay]
            if s.style == "points":
                seen: set = set()
                sel = []
                for j, cell in enumerate(zip(map(int, px), map(int, py))):
                    if cell not in seen:
                        seen.add(cell)
                        sel.append(j)
            elif s.style == "bars" or len(px) < 2 * plot.width():
                sel = range(len(px))
            else:
                sel = decimate(px, py)
            self._drawn.append(_Drawn(s, [idx[j] for j in sel],
                                      [QPointF(px[j], py[j]) for j in sel]))
        return lay

    # ----- painting -----------------------------------------------------------------------
    def _colors(self):
        pal = self.palette()
        bg = pal.color(QPalette.Base)
        dark = bg.lightness() < 128
        fg = pal.color(QPalette.Text)
        grid = QColor(fg)
        grid.setAlpha(40)
        minor = QColor(fg)
        minor.setAlpha(18)
        return bg, fg, grid, minor, series_colors(dark)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        bg, fg, grid, minor_c, colors = self._colors()
        p.fillRect(self.rect(), bg)
        fm = QFontMetrics(self.font())
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(fg)
        p.drawText(QRectF(8, 6, self.width() - 16, fm.height() + 2),
                   Qt.AlignLeft | Qt.AlignVCenter, self.title)
        p.setFont(self.font())
        if self.note:
            faint = QColor(fg)
            faint.setAlpha(150)
            p.setPen(faint)
            p.drawText(QRectF(8, 6, self.width() - 16, fm.height() + 2),
                       Qt.AlignRight | Qt.AlignVCenter, self.note)
        lay = self._prepare()
        if lay is None:
            faint = QColor(fg)
            faint.setAlpha(150)
            p.setPen(faint)
            p.drawText(self.rect(), Qt.AlignCenter | Qt.TextWordWrap, self.empty_text)
            return
        plot, (x0, x1, y0, y1), (yt, yminor) = lay
        sx = plot.width() / (x1 - x0)
        sy = plot.height() / (y1 - y0)
        X = lambda v: plot.left() + (v - x0) * sx  # noqa: E731
        Y = lambda v: plot.bottom() - (v - y0) * sy  # noqa: E731
        xt, xminor = self._x_ticks(x0, x1, plot.width())
        # grid and ticks
        p.setPen(QPen(minor_c, 1))
        for v in yminor:
            p.drawLine(QPointF(plot.left(), Y(v)), QPointF(plot.right(), Y(v)))
        for v in xminor:
            p.drawLine(QPointF(X(v), plot.top()), QPointF(X(v), plot.bottom()))
        p.setPen(QPen(grid, 1))
        for v, _ in yt:
            p.drawLine(QPointF(plot.left(), Y(v)), QPointF(plot.right(), Y(v)))
        for v, _ in xt:
            p.drawLine(QPointF(X(v), plot.top()), QPointF(X(v), plot.bottom()))
        p.setPen(fg)
        for v, label in yt:
            r = QRectF(0, Y(v) - fm.height() / 2, plot.left() - 6, fm.height())
            p.drawText(r, Qt.AlignRight | Qt.AlignVCenter, label)
        last_right = -1e9
        for v, label in xt:
            w = fm.horizontalAdvance(label)
            cx = X(v)
            if cx - w / 2 < last_right + 6:
                continue  # would overlap the previous label
            r = QRectF(cx - w / 2 - 2, plot.bottom() + 4, w + 4, fm.height())
            p.drawText(r, Qt.AlignCenter, label)
            last_right = cx + w / 2
        p.drawText(QRectF(plot.left(), self.height() - fm.height() - 6, plot.width(),
                          fm.height()), Qt.AlignCenter, self.xlabel + (" (log)" if self.xlog else ""))
        p.save()
        p.translate(8, plot.center().y())
        p.rotate(-90)
        p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), fm.height()), Qt.AlignCenter,
                   self.ylabel + (" (log)" if self.ylog else ""))
        p.restore()
        p.setPen(QPen(fg, 1))
        p.drawLine(plot.bottomLeft(), plot.bottomRight())
        p.drawLine(plot.bottomLeft(), plot.topLeft())
        # series (antialiased; the axis-aligned grid above is drawn faster without)
        p.save()
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setClipRect(plot.adjusted(-4, -4, 4, 4))
        for d in self._drawn:
            col = colors[d.series.color % len(colors)]
            style = d.series.style
            if style == "bars":
                base_y = Y(max(y0, 0.0)) if not self.ylog else plot.bottom()
                w = max(1.0, 0.8 * sx)
                fill = QColor(col)
                fill.setAlpha(200)
                p.setPen(Qt.NoPen)
                p.setBrush(fill)
                for pt in d.pts:
                    p.drawRect(QRectF(pt.x() - w / 2, pt.y(), w, base_y - pt.y()))
                continue
            if style in ("line", "linepoints") and len(d.pts) > 1:
                path = QPainterPath(d.pts[0])
                for pt in d.pts[1:]:
                    path.lineTo(pt)
                p.setPen(QPen(col, 1.8))
                p.setBrush(Qt.NoBrush)
                p.drawPath(path)
            if style in ("points", "linepoints") or len(d.pts) == 1:
                p.setPen(Qt.NoPen)
                p.setBrush(col)
                r = 2.0 if style == "points" else 3.0
                for pt in d.pts:
                    p.drawEllipse(pt, r, r)
        p.restore()
        p.setRenderHint(QPainter.Antialiasing, True)
        self._paint_legend(p, plot, fg, bg, colors, fm)
        self._paint_hover(p, plot, fg, bg, colors, fm)

    def _paint_legend(self, p, plot, fg, bg, colors, fm) -> None:
        if len(self.series) < 2:
            return
        names = list(self.series.values())
        w = max(fm.horizontalAdvance(s.name) for s in names) + 30
        h = fm.height() * len(names) + 8
        box = self._legend_box(plot, w, h)
        back = QColor(bg)
        back.setAlpha(220)
        p.setPen(QPen(QColor(fg.red(), fg.green(), fg.blue(), 80), 1))
        p.setBrush(back)
        p.drawRoundedRect(box, 4, 4)
        for i, s in enumerate(names):
            y = box.top() + 4 + i * fm.height() + fm.height() / 2
            col = colors[s.color % len(colors)]
            p.setPen(QPen(col, 3))
            p.drawLine(QPointF(box.left() + 6, y), QPointF(box.left() + 20, y))
            p.setPen(fg)
            p.drawText(QRectF(box.left() + 24, y - fm.height() / 2, w - 26, fm.height()),
                       Qt.AlignLeft | Qt.AlignVCenter, s.name)

    def _legend_box(self, plot: QRectF, w: float, h: float) -> QRectF:
        """The plot corner whose legend box would hide the fewest points."""
        corners = [QRectF(plot.right() - w - 6, plot.top() + 6, w, h),
                   QRectF(plot.right() - w - 6, plot.bottom() - h - 6, w, h),
                   QRectF(plot.left() + 6, plot.top() + 6, w, h),
                   QRectF(plot.left() + 6, plot.bottom() - h - 6, w, h)]
        pts = [q for d in self._drawn for q in d.pts]
        step = max(1, len(pts) // 2000)
        pts = pts[::step]
        return min(corners, key=lambda r: sum(1 for q in pts if r.adjusted(-4, -4, 4, 4).contains(q)))

    def _paint_hover(self, p, plot, fg, bg, colors, fm) -> None:
        if self._hover is None:
            return
        d, j = self._hover
        pt = d.pts[j]
        i = d.idx[j]
        col = colors[d.series.color % len(colors)]
        p.setPen(QPen(fg, 1, Qt.DotLine))
        p.drawLine(QPointF(pt.x(), plot.top()), QPointF(pt.x(), plot.bottom()))
        p.setPen(QPen(fg, 1.5))
        p.setBrush(col)
        p.drawEllipse(pt, 4.5, 4.5)
        text = self.readout(d.series, i)
        w = fm.horizontalAdvance(text) + 12
        h = fm.height() + 6
        x = min(max(plot.left() + 4, pt.x() + 10), plot.right() - w - 2)
        y = plot.top() + 6 if pt.y() > plot.top() + h + 20 else plot.bottom() - h - 6
        back = QColor(bg)
        back.setAlpha(235)
        p.setBrush(back)
        p.setPen(QPen(col, 1))
        p.drawRoundedRect(QRectF(x, y, w, h), 4, 4)
        p.setPen(fg)
        p.drawText(QRectF(x, y, w, h), Qt.AlignCenter, text)

    def readout(self, s: Series, i: int) -> str:
        name = f"{s.name}: " if len(self.series) > 1 else ""
        return f"{name}{self.xlabel} {fmt_value(s.xs[i])}, {self.ylabel} {fmt_value(s.ys[i])}"

    # ----- interaction --------------------------------------------------------------------
    def hover_at(self, pos: QPointF) -> tuple[Series, int] | None:
        """The data point nearest to a widget position (within 40 px), if any."""
        self._prepare()
        best, best_d = None, 40.0 ** 2
        for d in self._drawn:
            pts = d.pts
            if not pts:
                continue
            if d.series.style in ("line", "linepoints", "bars"):
                xs = [q.x() for q in pts]
                k = bisect.bisect_left(xs, pos.x())
                cands = range(max(0, k - 3), min(len(pts), k + 3))
                for j in cands:
                    dd = (pts[j].x() - pos.x()) ** 2 + 0.05 * (pts[j].y() - pos.y()) ** 2
                    if dd < best_d:
                        best, best_d = (d, j), dd
            else:
                for j, q in enumerate(pts):
                    dd = (q.x() - pos.x()) ** 2 + (q.y() - pos.y()) ** 2
                    if dd < best_d:
                        best, best_d = (d, j), dd
        self._hover = best
        return (best[0].series, best[0].idx[best[1]]) if best else None

    def mouseMoveEvent(self, event) -> None:
        old = self._hover
        self.hover_at(event.position())
        if self._hover != old:
            self.update()

    def leaveEvent(self, event) -> None:
        if self._hover is not None:
            self._hover = None
            self.update()

    def contextMenuEvent(self, event) -> None:
        menu = QMenu(self)
        act_log = menu.addAction("Log scale (y)")
        act_log.setCheckable(True)
        act_log.setChecked(self.ylog)
        menu.addSeparator()
        act_png = menu.addAction("Save chart as PNG…")
        act_csv = menu.addAction("Save data as CSV…")
        chosen = menu.exec(event.globalPos())
        if chosen is act_log:
            self.set_log(y=not self.ylog)
        elif chosen is act_png:
            self._ask_save("png")
        elif chosen is act_csv:
            self._ask_save("csv")

    def _ask_save(self, kind: str) -> None:
        stem = "".join(c if c.isalnum() else "-" for c in self.title.lower()).strip("-")
        flt = "PNG image (*.png)" if kind == "png" else "CSV (*.csv)"
        path, _ = QFileDialog.getSaveFileName(self, f"Save {self.title}", f"{stem}.{kind}", flt)
        if not path:
            return
        try:
            if kind == "png":
                if not self.save_png(path):
                    raise OSError(f"could not write {path}")
            else:
                self.save_csv(path)
        except OSError as e:
            QMessageBox.warning(self, "Save failed", f"Could not save {path}: {e}. Pick a "
                                "folder you can write to.")


# ----- the charts view ---------------------------------------------------------------------
class ChartsView(QWidget):
    """Four charts of the controller's training run, kept up to date step by step."""

    updated = Signal()       # after each (throttled) redraw; tests wait on it

    def __init__(self, controller, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.compression = ChartWidget("Compression", "step", "bytes per token",
                                       empty_text="No training yet: load a corpus and step.")
        self.pair_count = ChartWidget("Count of the chosen pair", "step", "count", ylog=True)
        self.lengths = ChartWidget("Token lengths in the vocabulary", "length (bytes)",
                                   "tokens", y_from_zero=True)
        self.zipf = ChartWidget("Token frequency on the corpus (Zipf)", "rank", "frequency",
                                xlog=True, ylog=True)
        self.charts = {"compression": self.compression, "pair_count": self.pair_count,
                       "token_lengths": self.lengths, "zipf": self.zipf}

        self.held_label = QLabel("Held-out text: none")
        self.held_label.setToolTip("Bytes per token of a text the tokenizer was not trained "
                                   "on, encoded at sampled steps (about 64 points).")
        open_btn = QPushButton("Open held-out file…")
        open_btn.clicked.connect(self._open_held_out)
        paste_btn = QPushButton("Paste held-out text…")
        paste_btn.clicked.connect(self._paste_held_out)
        self.clear_btn = QPushButton("Clear")
        self.clear_btn.clicked.connect(lambda: self.set_held_out_text(None))
        self.clear_btn.setEnabled(False)
        png_btn = QPushButton("Save PNG…")
        png_btn.clicked.connect(self._ask_png)
        csv_btn = QPushButton("Save CSV…")
        csv_btn.clicked.connect(self._ask_csv)
        self.status = QLabel("")

        top = QHBoxLayout()
        top.addWidget(self.held_label, 1)
        for w in (open_btn, paste_btn, self.clear_btn):
            top.addWidget(w)
        top.addSpacing(16)
        top.addWidget(png_btn)
        top.addWidget(csv_btn)
        grid = QGridLayout()
        grid.setSpacing(6)
        grid.addWidget(self.compression, 0, 0)
        grid.addWidget(self.pair_count, 0, 1)
        grid.addWidget(self.lengths, 1, 0)
        grid.addWidget(self.zipf, 1, 1)
        self.grid_host = QWidget()
        self.grid_host.setLayout(grid)
        grid.setContentsMargins(0, 0, 0, 0)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.grid_host, 1)
        lay.addWidget(self.status)

        # incremental state
        self._trainer = None
        self._n = 0                     # steps whose points are in the series
        self._bpt: list[float] = []     # corpus bytes/token at step 0..n
        self._counts: list[int] = []    # chosen pair count at steps 1..n
        self._hist: Counter = Counter()
        self._merge_len: list[int] = []  # histogram length of the token of step k+1
        self._n_special = 0
        self._tokens0 = 0
        self._mode = "byte"
        self._held_text: str | None = None
        self._held_name = ""
        self._held: stats.HeldOut | None = None
        self._held_key = None
        self._held_points: dict[int, float] = {}
        self._held_job = None           # (step, generator)
        self.last_update_ms = 0.0

        self._redraw = QTimer(self, singleShot=True, interval=REDRAW_MS)
        self._redraw.timeout.connect(self.refresh)
        self._idle = QTimer(self, interval=0)
        self._idle.timeout.connect(self._held_tick)
        controller.trainerChanged.connect(self._trainer_changed)
        controller.stepChanged.connect(lambda _: self.schedule())
        controller.busyChanged.connect(lambda _: self.schedule())
        controller.progress.connect(lambda *_: self.schedule())
        self._trainer_changed()

    # ----- scheduling -----------------------------------------------------------------------
    def schedule(self) -> None:
        """Ask for a redraw soon: throttled (not debounced), so a long play still updates.

        A hidden view (another tab in front) only notes it; it catches up when shown."""
        if not on_screen(self):
            self._behind = True
            return
        if not self._redraw.isActive():
            self._redraw.start()

    _behind = False

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.catch_up()

    def catch_up(self) -> None:
        """Do what was skipped while hidden (see panels/visibility.py)."""
        if self._behind and on_screen(self):
            self._behind = False
            self.schedule()

    def _trainer_changed(self) -> None:
        t = self.controller.trainer
        self._trainer = t
        self._n = 0
        self._bpt, self._counts, self._hist, self._merge_len = [], [], Counter(), []
        self._held_points, self._held_job = {}, None
        if t is not None:
            self._mode = t.settings.mode
            self._tokens0 = stats.tokens_at_start(t.steps, t.corpus_tokens)
            self._n_special = self._specials_in_corpus(t)
            self._hist.update(stats.token_length(tok, self._mode) for tok in t.base)
            self.lengths.xlabel = "length (characters)" if self._mode == "char" else "length (bytes)"
            self._bpt = [t.table.n_bytes / (self._tokens0 + self._n_special)]
        self._prepare_held_out()
        self.refresh()

    def _specials_in_corpus(self, t) -> int:
        """Special tokens in the corpus: the trainer never counts them, yet each is one
        token when the corpus is encoded. Counted in the controller's text when it is
        the text the trainer was built from (same byte count), else taken as 0."""
        specials = t.settings.special_tokens
        text = self.controller.corpus_text
        if not specials or len(text) > 4 * t.table.n_bytes + 4:
            return 0
        if len(text.encode("utf-8", "surrogatepass")) != t.table.n_bytes:
            return 0
        return stats.count_specials(text, specials)

    # ----- incremental update ---------------------------------------------------------------
    def _sync_steps(self) -> None:
        """Append the records of new steps, drop undone ones (records are append-only
        during a background run, so reading them from this thread is safe)."""
        t = self._trainer
        if t is None:
            return
        steps = t.steps
        n = len(steps)
        if n < self._n:
            for k in range(n, self._n):
                self._hist[self._merge_len[k]] -= 1
            del self._bpt[n + 1:]
            del self._counts[n:]
            del self._merge_len[n:]
        elif n > self._n:
            new = steps[self._n:n]
            nb = t.table.n_bytes
            extra = self._n_special
            self._bpt.extend(nb / (s.corpus_tokens + extra) for s in new)
            self._counts.extend(s.count for s in new)
            lens = [stats.token_length(s.token, self._mode) for s in new]
            self._merge_len.extend(lens)
            self._hist.update(lens)
        self._n = n

    def refresh(self) -> None:
        """Bring the charts up to the trainer's current step and redraw."""
        if not on_screen(self):
            self._behind = True
            return
        t0 = time.perf_counter()
        t = self._trainer
        if t is not self.controller.trainer:
            self._trainer_changed()
            return
        if t is None:
            for c in self.charts.values():
                c.clear()
            self.status.setText("No trainer yet.")
            self.updated.emit()
            return
        self._sync_steps()
        n = self._n
        self.compression.set_series("corpus", range(n + 1), self._bpt, "line", color=0)
        self.pair_count.set_series("chosen pair", range(1, n + 1), self._counts, "line", color=1)
        hist = sorted((k, v) for k, v in self._hist.items() if v > 0)
        self.lengths.set_series("tokens", [k for k, _ in hist], [v for _, v in hist], "bars",
                                color=2)
        busy = self.controller.busy
        if not busy:
            ranks, freqs = stats.zipf(stats.token_frequencies(t))
            self.zipf.set_series("tokens", ranks, freqs, "points", color=3)
            self.zipf.note = f"step {n}"
        else:
            self.zipf.note = "updates when the run ends"
            self.zipf.update()
        self._update_held_series()
        if self._held is not None and not busy:
            self._queue_held_samples()
        self.last_update_ms = (time.perf_counter() - t0) * 1000
        ratio = (f"{self._bpt[-1]:.3f} bytes/token on the corpus" if self._bpt else "")
        self.status.setText(f"Step {n:,}: {ratio}; {len(t.vocab_bytes):,} tokens in the "
                            "vocabulary. Hover a chart to read values; right-click for log "
                            "scale and saving one chart.")
        self.updated.emit()

    # ----- held-out text ----------------------------------------------------------------------
    def set_held_out_text(self, text: str | None, name: str = "pasted text") -> None:
        """Use this text (None clears) as the held-out text of the compression chart."""
        if text is not None and not text.strip():
            QMessageBox.information(self, "Held-out text", "The held-out text is empty. "
                                    "Paste some text or open a non-empty file.")
            return
        note = ""
        if text is not None and len(text) > HELD_OUT_MAX_CHARS:
            text = text[:HELD_OUT_MAX_CHARS]
            note = f" (first {HELD_OUT_MAX_CHARS:,} characters)"
        self._held_text = text
        self._held_name = name
        self.clear_btn.setEnabled(text is not None)
        if text is None:
            self.held_label.setText("Held-out text: none")
        else:
            self.held_label.setText(f"Held-out text: {name}, {len(text):,} characters{note}")
        self._held_key = None
        self._prepare_held_out()
        self.refresh()

    def _prepare_held_out(self) -> None:
        t = self._trainer
        if self._held_text is None or t is None:
            self._held = None
            self._held_points, self._held_job = {}, None
            self._idle.stop()
            return
        key = (id(self._held_text), t.settings.pattern, t.settings.special_tokens)
        if key != self._held_key:
            self._held_key = key
            self._held = stats.held_out(self._held_text, t.settings.pattern,
                                        t.settings.special_tokens)
            self._held_points, self._held_job = {}, None

    def _queue_held_samples(self) -> None:
        if self._pending_held():
            self._idle.start()

    def _pending_held(self) -> list[int]:
        n = self._n
        return [k for k in stats.sample_steps(n) if k not in self._held_points]

    def _held_tick(self) -> None:
        """One slice of held-out encoding (about 20 ms), then back to the event loop."""
        t = self._trainer
        if t is None or self._held is None or self.controller.busy or t is not self.controller.trainer:
            self._idle.stop()
            return
        deadline = time.perf_counter() + IDLE_SLICE_S
        while time.perf_counter() < deadline:
            if self._held_job is None:
                pending = self._pending_held()
                if not pending:
                    self._idle.stop()
                    self._update_held_series()
                    self.compression.update()
                    return
                k = pending[-1] if self._n in pending else pending[0]
                tok = t.tokenizer(at_step=k)
                self._held_job = (k, stats.held_out_tokens(tok, self._held, batch=20))
            k, gen = self._held_job
            if k > t.n_steps:  # undone meanwhile
                self._held_job = None
                continue
            got = next(gen, None)
            if got is not None:
                self._held_points[k] = self._held.n_bytes / got if got else math.nan
                self._held_job = None
                self._update_held_series()

    def _update_held_series(self) -> None:
        if self._held is None:
            self.compression.remove_series("held-out")
            return
        pts = sorted((k, v) for k, v in self._held_points.items() if k <= self._n)
        # only the grid points, plus the current step: stale "current" points drop out
        grid = set(stats.sample_steps(self._n))
        pts = [(k, v) for k, v in pts if k in grid]
        self.compression.set_series("held-out", [k for k, _ in pts], [v for _, v in pts],
                                    "linepoints", color=1)

    def held_out_done(self) -> bool:
        return self._held is None or not self._pending_held()

    def _open_held_out(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Held-out text", "",
                                              "Text (*.txt *.md *.jsonl *.xz *.gz);;All files (*)")
        if not path:
            return
        from ...engine.corpus import read_documents
        try:
            text = "\n".join(read_documents(path))
        except BPEError as e:
            QMessageBox.warning(self, "Held-out text", str(e))
            return
        self.set_held_out_text(text, Path(path).name)

    def _paste_held_out(self) -> None:
        dlg = QDialog(self)
        dlg.setWindowTitle("Held-out text")
        edit = QPlainTextEdit(self._held_text or "")
        edit.setPlaceholderText("Paste text the tokenizer was not trained on.")
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(dlg.accept)
        buttons.rejected.connect(dlg.reject)
        lay = QVBoxLayout(dlg)
        lay.addWidget(QLabel("Bytes per token of this text is charted at sampled steps."))
        lay.addWidget(edit)
        lay.addWidget(buttons)
        dlg.resize(560, 360)
        if dlg.exec() == QDialog.Accepted:
            self.set_held_out_text(edit.toPlainText(), "pasted text")

    # ----- saving -------------------------------------------------------------------------------
    def chart_data(self) -> dict[str, dict[str, tuple[list[float], list[float]]]]:
        return {key: {name: c.data(name) for name in c.series} for key, c in self.charts.items()}

    def save_png(self, path: str | Path) -> bool:
        """The four charts as one PNG image."""
        return self.grid_host.grab().save(str(path), "PNG")

    def csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["chart", "series", "x", "y"])
        for key, c in self.charts.items():
            for row in c.csv_rows():
                w.writerow([key, *row])
        return buf.getvalue()

    def save_csv(self, path: str | Path) -> None:
        """All series of all charts, long form: chart, series, x, y."""
        Path(path).write_text(self.csv_text(), encoding="utf-8")

    def _ask_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save charts as PNG", "bpe-charts.png",
                                              "PNG image (*.png)")
        if path and not self.save_png(path):
            QMessageBox.warning(self, "Save failed", f"Could not write {path}. Pick a folder "
                                "you can write to.")

    def _ask_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save chart data as CSV", "bpe-charts.csv",
                                              "CSV (*.csv)")
        if not path:
            return
        try:
            self.save_csv(path)
        except OSError as e:
            QMessageBox.warning(self, "Save failed", f"Could not write {path}: {e.strerror}. "
                                "Pick a folder you can write to.")
