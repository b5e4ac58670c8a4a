"""How the corpus panel shows a word-count table as the corpus (File > Open of a table
made by `bpe-gui count`; controller/table_corpus.py reads it).

The window trains from a table as from text -- the merge loop only ever sees unique words
-- but a table has no text, so the corpus panel shows what the table says about itself
(pattern, special tokens, sources, totals) and its first rows instead of an editor, and
the views that would need the text say so (see ``NO_TEXT``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ....engine.display import counted, human_size, readable

PREVIEW_ROWS = 2000


def describe(table, paths: Sequence[str] = ()) -> str:
    """What the corpus panel says about a table (rich text)."""
    from html import escape
    meta = table.meta
    names = ", ".join(escape(Path(p).name) for p in paths) or "the table"
    lines = [f"<b>Word-count table</b> ({names}): {counted(len(table), 'unique word')}, "
             f"{counted(table.total, 'word')}"
             + (f" from {human_size(table.n_bytes)} of text." if table.n_bytes else ".")]
    if meta is None:
        lines.append("It records no pattern (no metadata line): the training settings' "
                     "pattern and special tokens are taken as given.")
    else:
        specials = ", ".join(escape(s) for s in meta.special_tokens) or "none"
        lines.append(f"Counted with {escape(meta.describe_pattern())}; special tokens: "
                     f"{specials}; by bpe-gui {escape(meta.bpe_gui or '?')}.")
        srcs = [f"{escape(str(s.get('path', '?')))} ({human_size(int(s.get('bytes', 0)))})"
                for s in meta.sources[:6]]
        more = f" and {len(meta.sources) - 6} more" if len(meta.sources) > 6 else ""
        if srcs:
            lines.append("Sources: " + ", ".join(srcs) + more + ".")
    lines.append("Training steps through it as through text; the pattern and special "
                 "tokens are the table's. It has no text, so there is nothing to edit, and "
                 "words mode and “From corpus” in the compare view have nothing to show.")
    return "<br>".join(lines)


def preview(table, rows: int = PREVIEW_ROWS) -> str:
    """The first rows as 'count  word' with whitespace made visible."""
    n = min(rows, len(table))
    out = [f"{table.counts[i]:>12,}  {readable(table.word_bytes(i))}" for i in range(n)]
    if len(table) > n:
        out.append(f"… and {len(table) - n:,} more words")
    return "\n".join(out)


class TableCorpusView(QWidget):
    """The corpus panel's face when the corpus is a table: metadata, then the first rows."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rows = QPlainTextEdit()
        self.rows.setReadOnly(True)
        self.rows.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.rows.setToolTip("The table's first words, in order of first appearance in the "
                             "corpus, with their counts")
        lay.addWidget(self.info)
        lay.addWidget(self.rows, 1)

    def show_table(self, table, paths: Sequence[str]) -> None:
        self.info.setText(describe(table, paths))
        self.rows.setPlainText(preview(table))
