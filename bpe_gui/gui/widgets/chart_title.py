"""A chart's title row: the title, and on its right the markers' caption or a note such
as "step 40", laid out in the room a chart has (chart_widget.ChartWidget draws them)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

GAP = 12   # pixels between the title and the text on its right
RIGHT_SHARE = 0.4   # the most of a row the right text keeps beside a wrapped title


def title_row(title: str, right_text: str, title_fm: QFontMetrics, fm: QFontMetrics,
              room: int) -> tuple[str, str]:
    """The title and the text on the right of a chart's title row (the markers' caption,
    else a note such as "step 40"), each cut with "…" to share ``room`` pixels with a
    12-pixel gap: the title keeps up to 60% of it. The note was drawn over a long title
    at 800x600 (issue 30); a right text cut to nothing but "…" is left out.

    Example: a 300-pixel row, "Token frequency on the corpus (Zipf)" and "step 40" ->
    the title cut to what "step 40" and the gap leave, both whole if they fit."""
    title_w = min(title_fm.horizontalAdvance(title), int(room * 0.6))
    right = _cut(right_text, fm, room - title_w - GAP)
    right_w = fm.horizontalAdvance(right) + GAP if right else 0
    # a narrow chart ends its title in "…" rather than cutting it mid-letter
    return title_fm.elidedText(title, Qt.TextElideMode.ElideRight, max(0, room - right_w)), right


def title_lines(title: str, right_text: str, title_fm: QFontMetrics, fm: QFontMetrics,
                room: int) -> tuple[list[str], str]:
    """The title as one line, or two broken between words, and the text on the right of
    its first line. One line when the title and the right text fit whole side by side;
    else the first line holds the words that fit beside the right text (which keeps at
    most 40% of the row) and the second line the rest, cut with "…" only where the rest
    is wider than the whole row. A title of one word too wide falls back to title_row.

    Example: a 330-pixel row, "Token frequency on the training files (Zipf)" and
    "step 744" -> ["Token frequency on the training", "files (Zipf)"], "step 744"."""
    right_w = fm.horizontalAdvance(right_text) + GAP if right_text else 0
    if title_fm.horizontalAdvance(title) + right_w <= room:
        return [title], right_text
    right = _cut(right_text, fm, int(room * RIGHT_SHARE) - GAP)
    beside = room - (fm.horizontalAdvance(right) + GAP if right else 0)
    words = title.split(" ")
    n = 0
    while n < len(words) and title_fm.horizontalAdvance(" ".join(words[:n + 1])) <= beside:
        n += 1
    if n == 0:
        one, right = title_row(title, right_text, title_fm, fm, room)
        return [one], right
    rest = " ".join(words[n:])
    second = title_fm.elidedText(rest, Qt.TextElideMode.ElideRight, max(0, room))
    return [" ".join(words[:n])] + ([second] if rest else []), right


def _cut(text: str, fm: QFontMetrics, width: int) -> str:
    """``text`` cut with "…" to ``width`` pixels; "" where too little of it would show."""
    if not text:
        return ""
    cut = fm.elidedText(text, Qt.TextElideMode.ElideRight, max(0, width))
    return "" if cut == "…" or len(cut) < min(4, len(text)) else cut
