"""Grouped bars: one group per name (a language, a category), one bar (colour) per series
in each group, the legend a line above the chart: the one home of the per-language cost
chart and of "What was it trained on?"'s merge against its runner-up."""
from __future__ import annotations

import html
from typing import Callable, Sequence

from .chart_data import Series, fmt_value
from .chart_widget import ChartWidget, series_colors


class GroupedBarChart(ChartWidget):
    """A :class:`ChartWidget` of grouped bars: :meth:`show_bars` draws them, the x axis
    names the groups, and a bar's readout says its group, series and value."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._groups: list[tuple[float, str]] = []          # (centre x, group name)
        self._labels: dict[tuple[str, float], str] = {}     # (series, x) -> group name

    def show_bars(self, groups: Sequence[str],
                  bars: Sequence[tuple[str, Callable[[str], float | None]]]) -> None:
        """One bar per series and group: ``bars`` holds (series name, its value in a
        group); a value of None draws no bar there."""
        self.series.clear()
        self._groups, self._labels = [], {}
        n = len(bars)
        self._groups = [(g * (n + 1) + (n - 1) / 2, name) for g, name in enumerate(groups)]
        for k, (label, value) in enumerate(bars):
            xs: list[float] = []
            ys: list[float] = []
            for g, name in enumerate(groups):
                v = value(name)
                if v is not None:
                    xs.append(float(g * (n + 1) + k))
                    ys.append(v)
                    self._labels[(label, xs[-1])] = name
            self.series[label] = Series(label, xs, ys, "bars", k)
        self._changed()

    def legend_html(self, dark: bool) -> str:
        """The legend as a line of coloured squares and names (shown above the chart: a
        legend box inside it would hide bars, which fill every corner)."""
        cols = series_colors(dark)
        return "&nbsp;&nbsp; ".join(
            f'<span style="color:{cols[s.color % len(cols)].name()}">■</span>&nbsp;'
            f"{html.escape(s.name, quote=False)}" for s in self.series.values())

    def _paint_legend(self, *args) -> None:
        pass   # the dialog shows legend_html() above the chart

    def _x_ticks(self, x0, x1, plot_w: float):
        return [(x, name) for x, name in self._groups if x0 <= x <= x1], []

    def readout(self, s: Series, i: int) -> str:
        return f"{self._labels.get((s.name, s.xs[i]), '')} · {s.name}: {fmt_value(s.ys[i])}"
