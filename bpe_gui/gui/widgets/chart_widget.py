"""One chart drawn with QPainter (no QtCharts: only PySide6-Essentials is a dependency).

:class:`ChartWidget` draws lines, points or bars, linear or log axes with ticks and
labels, a legend, a hover readout, in palette-aware colours, and saves itself as PNG or
CSV. Long series are cut to a few points per pixel column before drawing
(first/min/max/last per column, ``chart_data.decimate``), so 10,000 steps draw as fast
as 500.
"""
from __future__ import annotations

import bisect
import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QSizePolicy, QWidget

from .chart_data import (STYLES, Series, axis_points, data_ranges, decimate, fmt_num,
                         fmt_value, linear_ticks, log_ticks)
from .chart_title import title_lines


@dataclass
class _Drawn:
    """A series in pixel space, decimated: what paint and hover use."""

    series: Series
    idx: list[int] = field(default_factory=list)
    pts: list[QPointF] = field(default_factory=list)


def thin_labels(ticks, to_y, need: float) -> list[tuple[float, str]]:
    """The y-axis labels to draw: every k-th tick when ticks lie closer than ``need``
    pixels (1G, 100M, 10M and 1M were drawn into each other in a short chart of many
    decades; issue 30), keeping the lowest one; the grid keeps every tick.

    Example: ticks 12 px apart with need 16 -> every 2nd label
    """
    if len(ticks) < 2:
        return list(ticks)
    gap = min(abs(to_y(b[0]) - to_y(a[0])) for a, b in zip(ticks, ticks[1:]))
    every = max(1, math.ceil(need / gap)) if gap > 0 else len(ticks)
    return [t for i, t in enumerate(ticks) if i % every == 0]


def series_colors(dark: bool) -> list[QColor]:
    if dark:
        return [QColor(c) for c in ("#74b3ff", "#ffa45c", "#6fdc8c", "#e599f7", "#ffd43b",
                                    "#ff8787", "#66d9e8", "#c0eb75")]
    return [QColor(c) for c in ("#1864ab", "#d9480f", "#2b8a3e", "#9c36b5", "#e67700",
                                "#c92a2a", "#0b7285", "#5c940d")]


def strip_lines(rows: list, fm: QFontMetrics, width: float) -> list[list]:
    """Legend entries laid left to right in lines of ``width`` pixels: each line a list
    of (x, entry), an entry 15 pixels of line sample, its name and a gap.
    Example: four short names in 100 pixels -> two lines of two."""
    lines: list[list] = [[]]
    x = 8.0
    for row in rows:
        w = 15 + fm.horizontalAdvance(row[0])
        if lines[-1] and x + w > 8 + width:
            lines.append([])
            x = 8.0
        lines[-1].append((x, row))
        x += w + 10
    return lines


def _glyphs_box(fm: QFontMetrics, r: QRectF, text: str, align: str) -> QRectF:
    """Where the glyphs of ``text`` drawn in ``r`` (vertically centred) lie: its advance
    wide, ascent plus descent high."""
    w = fm.horizontalAdvance(text)
    x = r.left() if align == "left" else r.right() - w if align == "right" \
        else r.center().x() - w / 2
    h = fm.ascent() + fm.descent()
    return QRectF(x, r.center().y() - h / 2, w, h)


# ----- the chart widget --------------------------------------------------------------------
class ChartWidget(QWidget):
    """A QPainter chart: ``set_series(name, xs, ys, style)``, log axes, hover, save."""

    def __init__(self, title: str, xlabel: str, ylabel: str, *, xlog: bool = False,
                 ylog: bool = False, y_from_zero: bool = False, empty_text: str = "",
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.ylabel_level = False   # the y axis's title drawn level (_layout)
        self.xlog, self.ylog, self.y_from_zero = xlog, ylog, y_from_zero
        self.dashed_label = "dashed"   # the legend's line for dashed series beside solid ones
        self.empty_text = empty_text or "No data yet: train a few merges."
        self.note = ""
        self.series: dict[str, Series] = {}
        self._version = 0
        self._cache_key = None
        self._drawn: list[_Drawn] = []
        self._frame = None
        self._hover: tuple[_Drawn, int] | None = None
        # vertical marker lines (x, label), e.g. SuperBPE's transition; where the last
        # paint drew them (x pixel, label), for tests and hover
        self.markers: list[tuple[float, str]] = []
        # the legend as last laid out ("box", "strip" or None) and painted (names)
        self.legend_mode: str | None = None
        self.legend_lines: list[list] = []
        self.drawn_legend: list[str] = []
        self.drawn_markers: list[tuple[float, str]] = []
        # every text the last paint drew and the box of its glyphs (tests: nothing
        # drawn over anything else)
        self.drawn_texts: list[tuple[str, QRectF]] = []
        self.strip_top = 0.0    # (_layout) where the legend's strip begins
        self.ylabel_top = 0.0   # (_layout) where a level y axis title is drawn
        self.setMouseTracking(True)
        # three in a row fit the bottom dock of an 800x600 window (issue 21)
        self.setMinimumSize(140, 150)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)

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

    def set_markers(self, markers: list[tuple[float, str]]) -> None:
        """Vertical lines at these x values, each with a short label at its top."""
        if markers != self.markers:
            self.markers = list(markers)
            self.update()

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
        return axis_points(s, self.xlog, self.ylog)

    def _ranges(self):
        return data_ranges(self.series.values(), self.xlog, self.ylog, self.y_from_zero)

    def _layout(self):
        fm = QFontMetrics(self.font())
        ranges = self._ranges()
        if ranges is None:
            return None
        x0, x1, y0, y1 = ranges
        yt = self._y_ticks(y0, y1)
        label_w = max((fm.horizontalAdvance(t) for _, t in yt[0]), default=20)
        left = 8 + fm.height() + 6 + label_w + 6
        # a title too long for its row beside the note takes a second line (title_lines)
        lines, _ = self._title_block(self._caption(self._markers_between(x0, x1)) or self.note)
        title_end = 6 + len(lines) * (fm.height() + 2)
        # the top tick's label stands half a line above the plot: what is drawn above the
        # plot keeps clear of it (the legend strip's "en" ran into "40k" at 800x600)
        clear = fm.height() // 2 + 2
        top = title_end + max(8, clear)
        right = 16
        bottom = 6 + fm.height() + 4 + fm.height() + 8
        # the legend: a box in a corner of the plot where it hides little, else a strip
        # of lines under the title (a small chart kept its lines apart only by colour)
        rows = self._legend_rows()
        self.legend_mode, self.legend_lines = None, []
        self.strip_top = title_end + 6
        if len(rows) >= 2:
            w = max(fm.horizontalAdvance(name) for name, _, _ in rows) + 30
            h = fm.height() * len(rows) + 8
            if h > 0.7 * (self.height() - top - bottom) or \
                    w > 0.7 * (self.width() - left - right):
                self.legend_mode = "strip"
                self.legend_lines = strip_lines(rows, fm, self.width() - 16)
                top = self.strip_top + len(self.legend_lines) * fm.height() + clear
            else:
                self.legend_mode = "box"
        # the axis title up the left side while the plot is as tall as it; a shorter
        # chart (a short screen's dock) has it level, over the plot: up the side it was
        # cut ("bytes per …")
        self.ylabel_level = fm.horizontalAdvance(self.y_title()) > \
            self.height() - top - bottom
        self.ylabel_top = top - clear + 2   # (level: its line, then the top tick's clearance)
        if self.ylabel_level:
            left -= fm.height() + 6
            top += fm.height() + 2
        plot = QRectF(left, top, max(10, self.width() - left - right),
                      max(10, self.height() - top - bottom))
        return plot, (x0, x1, y0, y1), yt

    def whole_width(self) -> int:
        """The width at which the title and the x axis's title are drawn whole (a note or
        the markers' caption beside the title wraps it: title_lines)."""
        bold = QFont(self.font())
        bold.setBold(True)
        xlabel = self.xlabel + (" (log)" if self.xlog else "")
        return 16 + max(QFontMetrics(bold).horizontalAdvance(self.title),
                        QFontMetrics(self.font()).horizontalAdvance(xlabel))

    def y_title(self) -> str:
        return self.ylabel + (" (log)" if self.ylog else "")

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
        key = (self._version, self.width(), self.height(), self.xlog, self.ylog,
               self.title, self.note, tuple(self.markers))
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
        bg = pal.color(QPalette.ColorRole.Base)
        dark = bg.lightness() < 128
        fg = pal.color(QPalette.ColorRole.Text)
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
        self.drawn_texts = []
        self._paint_title(p, fg, bg, fm)
        lay = self._prepare()
        if lay is None:
            faint = QColor(fg)
            faint.setAlpha(150)
            p.setPen(faint)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                       self.empty_text)
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
        self._paint_labels(p, plot, fg, fm, [(Y(v), label) for v, label in
                                             thin_labels(yt, Y, fm.height() + 2)],
                           [(X(v), label) for v, label in xt])
        p.setPen(QPen(fg, 1))
        p.drawLine(plot.bottomLeft(), plot.bottomRight())
        p.drawLine(plot.bottomLeft(), plot.topLeft())
        # series (antialiased; the axis-aligned grid above is drawn faster without)
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setClipRect(plot.adjusted(-4, -4, 4, 4))
        base_y = Y(max(y0, 0.0)) if not self.ylog else plot.bottom()
        self._paint_series(p, colors, base_y, max(1.0, 0.8 * sx))
        p.restore()
        self._paint_markers(p, plot, X, x0, x1, fm, bg)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._paint_legend(p, plot, fg, bg, colors, fm)
        self._paint_hover(p, plot, fg, bg, colors, fm)

    def _paint_title(self, p: QPainter, fg: QColor, bg: QColor, fm: QFontMetrics) -> None:
        """The title (bold, on two lines rather than cut) and, beside its first line, the
        markers' caption or the note (over the plot it hid data)."""
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(fg)
        lines, right = self._title_block(self._marker_caption() or self.note)
        texts, bold_fm = self.drawn_texts, QFontMetrics(bold)
        for i, line in enumerate(lines):
            box = QRectF(8, 6 + i * (fm.height() + 2), self.width() - 16, fm.height() + 2)
            p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
            texts.append((line, _glyphs_box(bold_fm, box, line, "left")))
        p.setFont(self.font())
        if right:
            if self._marker_caption():
                p.setPen(self._marker_color(bg))
            else:
                faint = QColor(fg)
                faint.setAlpha(150)
                p.setPen(faint)
            box = QRectF(8, 6, self.width() - 16, fm.height() + 2)
            p.drawText(box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, right)
            texts.append((right, _glyphs_box(fm, box, right, "right")))

    def _paint_labels(self, p: QPainter, plot: QRectF, fg: QColor, fm: QFontMetrics,
                      ys: list[tuple[float, str]], xs: list[tuple[float, str]]) -> None:
        """The ticks' labels (at pixel places; an x label that would touch the one
        before it is left out) and the two axis titles."""
        texts = self.drawn_texts
        p.setPen(fg)
        for y, label in ys:
            r = QRectF(0, y - fm.height() / 2, plot.left() - 6, fm.height())
            p.drawText(r, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label)
            texts.append((label, _glyphs_box(fm, r, label, "right")))
        last_right = -1e9
        for cx, label in xs:
            w = fm.horizontalAdvance(label)
            if cx - w / 2 < last_right + 6:
                continue  # would overlap the previous label
            r = QRectF(cx - w / 2 - 2, plot.bottom() + 4, w + 4, fm.height())
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, label)
            texts.append((label, _glyphs_box(fm, r, label, "center")))
            last_right = cx + w / 2
        # the axis title centred under the plot, but inside the chart: a narrow plot cut
        # it at both ends ("gth (characte")
        xlabel = fm.elidedText(self.xlabel + (" (log)" if self.xlog else ""),
                               Qt.TextElideMode.ElideRight, self.width() - 8)
        xw = fm.horizontalAdvance(xlabel)
        x_left = min(max(4.0, plot.center().x() - xw / 2), self.width() - 4 - xw)
        r = QRectF(x_left, self.height() - fm.height() - 6, xw + 2, fm.height())
        p.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, xlabel)
        texts.append((xlabel, _glyphs_box(fm, r, xlabel, "left")))
        ylabel = self.y_title()
        if self.ylabel_level:   # level, over the plot's top left (see _layout)
            ylabel = fm.elidedText(ylabel, Qt.TextElideMode.ElideRight, self.width() - 16)
            r = QRectF(8, self.ylabel_top, self.width() - 16, fm.height())
            p.drawText(r, Qt.AlignmentFlag.AlignLeft, ylabel)
            texts.append((ylabel, _glyphs_box(fm, r, ylabel, "left")))
        else:
            p.save()
            p.translate(8, plot.center().y())
            p.rotate(-90)
            p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), fm.height()),
                       Qt.AlignmentFlag.AlignCenter, ylabel)
            p.restore()

    def _paint_series(self, p: QPainter, colors: list[QColor], base_y: float,
                      bar_w: float) -> None:
        """Each series as its style says: bars from ``base_y``, lines, points."""
        for d in self._drawn:
            col = colors[d.series.color % len(colors)]
            style = d.series.style
            if style == "bars":
                fill = QColor(col)
                fill.setAlpha(200)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(fill)
                for pt in d.pts:
                    p.drawRect(QRectF(pt.x() - bar_w / 2, pt.y(), bar_w, base_y - pt.y()))
                continue
            if style in ("line", "linepoints", "dashed") and len(d.pts) > 1:
                path = QPainterPath(d.pts[0])
                for pt in d.pts[1:]:
                    path.lineTo(pt)
                p.setPen(QPen(col, 1.8, Qt.PenStyle.DashLine if style == "dashed"
                              else Qt.PenStyle.SolidLine))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawPath(path)
            if style in ("points", "linepoints") or len(d.pts) == 1:
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(col)
                radius = 2.0 if style == "points" else 3.0
                for pt in d.pts:
                    p.drawEllipse(pt, radius, radius)

    @staticmethod
    def _marker_color(bg: QColor) -> QColor:
        return QColor("#f783ac" if bg.lightness() < 128 else "#c2255c")

    def _markers_in_range(self) -> list[tuple[float, str]]:
        """The markers inside the data's x range, in axis space (log10 on a log axis)."""
        lay = self._prepare()
        if lay is None:
            return []
        _, (x0, x1, _, _), _ = lay
        return self._markers_between(x0, x1)

    def _markers_between(self, x0: float, x1: float) -> list[tuple[float, str]]:
        out = []
        for x, label in self.markers:
            ax = math.log10(x) if self.xlog and x > 0 else x
            if x0 <= ax <= x1:
                out.append((ax, label))
        return out

    def _title_block(self, right_text: str) -> tuple[list[str], str]:
        """The title's lines and the text drawn on the right of the first (title_lines)."""
        bold = QFont(self.font())
        bold.setBold(True)
        return title_lines(self.title, right_text, QFontMetrics(bold),
                           QFontMetrics(self.font()), self.width() - 16)

    def _marker_caption(self) -> str:
        """The markers' labels, shown in the title row in the markers' colour, led by a
        dashed-line glyph."""
        return self._caption(self._markers_in_range())

    @staticmethod
    def _caption(markers: list[tuple[float, str]]) -> str:
        labels = [label for _, label in markers if label]
        return "┆ " + "; ".join(labels) if labels else ""

    def _paint_markers(self, p, plot, X, x0, x1, fm, bg) -> None:
        """Each marker in the x range: a dashed line across the plot (its label is in
        the title row)."""
        self.drawn_markers = []
        col = self._marker_color(bg)
        for ax, label in self._markers_in_range():
            px = X(ax)
            p.setPen(QPen(col, 1.5, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()))
            self.drawn_markers.append((px, label))

    def _legend_rows(self) -> list[tuple[str, bool, int | None]]:
        """(name, dashed, colour index; None: the text colour) of each legend line:
        dashed twins of solid series are one line of their own, ``dashed_label`` (a
        parity run: each language twice)."""
        rows: list[tuple[str, bool, int | None]] = [
            (s.name, s.style == "dashed", s.color) for s in self.series.values()]
        if any(not dashed for _, dashed, _ in rows) and any(dashed for _, dashed, _ in rows):
            rows = [r for r in rows if not r[1]] + [(self.dashed_label, True, None)]
        return rows

    def _paint_legend(self, p, plot, fg, bg, colors, fm) -> None:
        self.drawn_legend = []
        if self.legend_mode is None:
            return
        def pen_of(dashed: bool, c: int | None) -> QPen:
            pen = QPen(fg if c is None else colors[c % len(colors)], 2 if dashed else 3)
            if dashed:   # short dashes: two of them show in a 12-pixel sample
                pen.setDashPattern([2.0, 1.5])
            return pen
        if self.legend_mode == "strip":   # under the title, each line left to right
            for i, line in enumerate(self.legend_lines):
                y = self.strip_top + i * fm.height() + fm.height() / 2
                for x, (name, dashed, c) in line:
                    p.setPen(pen_of(dashed, c))
                    p.drawLine(QPointF(x, y), QPointF(x + 12, y))
                    p.setPen(fg)
                    base = y + fm.ascent() / 2 - 1
                    p.drawText(QPointF(x + 15, base), name)
                    self.drawn_legend.append(name)
                    self.drawn_texts.append((name, QRectF(x, base - fm.ascent(),
                                                          15 + fm.horizontalAdvance(name),
                                                          fm.ascent() + fm.descent())))
            return
        rows = self._legend_rows()
        w = max(fm.horizontalAdvance(name) for name, _, _ in rows) + 30
        h = fm.height() * len(rows) + 8
        box = self._legend_box(plot, w, h)
        back = QColor(bg)
        back.setAlpha(220)
        p.setPen(QPen(QColor(fg.red(), fg.green(), fg.blue(), 80), 1))
        p.setBrush(back)
        p.drawRoundedRect(box, 4, 4)
        for i, (name, dashed, c) in enumerate(rows):
            y = box.top() + 4 + i * fm.height() + fm.height() / 2
            p.setPen(pen_of(dashed, c))
            p.drawLine(QPointF(box.left() + 6, y), QPointF(box.left() + 20, y))
            p.setPen(fg)
            p.drawText(QRectF(box.left() + 24, y - fm.height() / 2, w - 26, fm.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)
            self.drawn_legend.append(name)

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
        p.setPen(QPen(fg, 1, Qt.PenStyle.DotLine))
        p.drawLine(QPointF(pt.x(), plot.top()), QPointF(pt.x(), plot.bottom()))
        p.setPen(QPen(fg, 1.5))
        p.setBrush(col)
        p.drawEllipse(pt, 4.5, 4.5)
        box, lines = self.hover_box(self.readout(d.series, i), fm, plot, pt)
        back = QColor(bg)
        back.setAlpha(235)
        p.setBrush(back)
        p.setPen(QPen(col, 1))
        p.drawRoundedRect(box, 4, 4)
        p.setPen(fg)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, "\n".join(lines))

    def hover_box(self, text: str, fm, plot: QRectF, pt: QPointF) -> tuple[QRectF, list[str]]:
        """Where the hover readout goes, and its lines: one line beside the point if it
        fits, else one line per part ("name:", "x 12", "y 3.4"), inside the widget (a long
        readout near an edge of a narrow chart was clipped)."""
        room = self.width() - 8
        lines = [text]
        if fm.horizontalAdvance(text) + 12 > room:
            name, _, rest = text.rpartition(": ")
            lines = ([f"{name}:"] if name else []) + [part.strip() for part in rest.split(", ")]
        lines = [fm.elidedText(ln, Qt.TextElideMode.ElideRight, room - 12) for ln in lines]
        w = max(fm.horizontalAdvance(ln) for ln in lines) + 12
        h = fm.height() * len(lines) + 6
        x = min(max(plot.left() + 4, pt.x() + 10), plot.right() - w - 2)
        x = max(4.0, min(x, self.width() - w - 4.0))
        y = plot.top() + 6 if pt.y() > plot.top() + h + 20 else plot.bottom() - h - 6
        y = max(2.0, min(y, self.height() - h - 2.0))
        return QRectF(x, y, w, h), lines

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
