"""A chart's data and the arithmetic that draws it: Qt-free, so it is easy to test.

:class:`Series` is one named series of a chart (``STYLES``: how it is drawn); the
functions pick axis ticks (``nice_step``, ``linear_ticks``, ``log_ticks``), format
axis labels and hover readouts (``fmt_num``, ``fmt_value``) and cut a long line to a
few points per pixel column (``decimate``). :class:`~.chart_widget.ChartWidget` uses
them.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

STYLES = ("line", "points", "linepoints", "bars", "dashed")


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
    minor: list[float] = []
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
    # the points on the chart's axes, kept by ChartWidget._axis() for its next paint
    axis_cache: tuple | None = field(default=None, repr=False, compare=False)


def axis_points(s: Series, xlog: bool, ylog: bool) -> tuple[list[int], list[float], list[float]]:
    """Indices of the drawable points of ``s`` and their x, y in axis space (log10 on log
    axes), cached on the series until it or the log flags change.

    Example: xs [0, 1, 10], ys [1, 2, 3], xlog -> ([1, 2], [0.0, 1.0], [2.0, 3.0])
    """
    key = (xlog, ylog)
    got = s.axis_cache
    if got is not None and got[0] == key:
        return got[1]
    fin = math.isfinite
    log = math.log10
    ax = [log(x) if x > 0 else math.nan for x in s.xs] if xlog else [float(x) for x in s.xs]
    ay = [log(y) if y > 0 else math.nan for y in s.ys] if ylog else [float(y) for y in s.ys]
    idx = [i for i, (x, y) in enumerate(zip(ax, ay)) if fin(x) and fin(y)]
    if len(idx) < len(ax):
        ax = [ax[i] for i in idx]
        ay = [ay[i] for i in idx]
    s.axis_cache = (key, (idx, ax, ay))
    return idx, ax, ay


def data_ranges(series, xlog: bool, ylog: bool, y_from_zero: bool
                ) -> tuple[float, float, float, float] | None:
    """(x0, x1, y0, y1) of the series in axis space (log10 on log axes), widened to
    whole decades or nice steps; None when nothing is drawable.

    Example: one line through (0, 3), (10, 17) -> (0.0, 10.0, 2.5, 17.5)
    """
    series = list(series)
    x_lo = y_lo = math.inf
    x_hi = y_hi = -math.inf
    for s in series:
        _, ax, ay = axis_points(s, xlog, ylog)
        if ax:
            x_lo, x_hi = min(x_lo, min(ax)), max(x_hi, max(ax))
            y_lo, y_hi = min(y_lo, min(ay)), max(y_hi, max(ay))
    if x_lo == math.inf:
        return None
    x0, x1, y0, y1 = x_lo, x_hi, y_lo, y_hi
    bars = any(s.style == "bars" for s in series)
    if bars:
        x0, x1 = x0 - 0.5, x1 + 0.5
    if ylog:
        y0, y1 = math.floor(y0 + 1e-9), math.ceil(y1 - 1e-9)
        if y1 <= y0:
            y1 = y0 + 1
    else:
        if y_from_zero or bars:
            y0 = min(0.0, y0)
        if y1 <= y0:
            y0, y1 = y0 - 1, y1 + 1
        step = nice_step(y1 - y0)
        y0, y1 = math.floor(y0 / step) * step, math.ceil(y1 / step) * step
    if xlog:
        x0, x1 = math.floor(x0 + 1e-9), max(math.ceil(x1 - 1e-9), math.floor(x0) + 1)
    elif x1 <= x0:   # one point: widen to the right only (step 0 -> 0..1, never -1)
        x0, x1 = (x0, x0 + 1) if x0 >= 0 else (x0 - 1, x1 + 1)
    return x0, x1, y0, y1
