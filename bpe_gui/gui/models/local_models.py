"""The Open model dialog's table: the models found on this machine (an immutable
tuple of engine ``LocalModel``s), and the proxy that filters and sorts them.

Columns: name, format, size, source. The name's tooltip says where the tokenizer file
is and what more is known (revision, the GGUF's tokenizer model, a download going on);
a model whose file is known not to open (not BPE, damaged) is greyed, its tooltip
saying why. :class:`ModelFilter` keeps the rows whose name, format or source hold
every word typed (the engine's ``matches``, as ``bpe-gui models WORD...`` does) and
sorts by name, format, size (as a number) or source.
"""
from __future__ import annotations

import html
from typing import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QGuiApplication, QPalette

from ...engine.display import human_size
from ...engine.formats import LocalModel, model_matches
from .roles import DISPLAY, FOREGROUND, SORT_ROLE, TOOLTIP, Cell, HeaderedTableModel

MODEL_ROLE = Qt.ItemDataRole.UserRole + 20     # the row's LocalModel
NAME, FORMAT, SIZE, SOURCE = range(4)


class LocalModelsModel(HeaderedTableModel):
    HEADERS = ("Name", "Format", "Size", "Source")
    TIPS = ("The model's name, as its tool shows it",
            "The tokenizer file's format (GGUF: the vocabulary inside the model file)",
            "The whole model on disk, weights included",
            "Where it was found: the Hugging Face cache, Ollama, LM Studio or llama.cpp")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.models: tuple[LocalModel, ...] = ()

    def set_models(self, models: Sequence[LocalModel]) -> None:
        self.beginResetModel()
        self.models = tuple(models)
        self.endResetModel()

    def n_rows(self) -> int:
        return len(self.models)

    def cell(self, row: int, col: int) -> Cell:
        m = self.models[row]
        fg = QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text) \
            if m.problem else None
        text = (m.name, m.format_label, human_size(m.size), m.source)[col]
        return Cell(text, right=col == SIZE, fg=fg)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        m = self.models[row]
        if role == DISPLAY:
            return self.cell(row, col).content
        if role == SORT_ROLE:
            return (m.name.casefold(), m.format_label.casefold(), m.size,
                    m.source)[col]
        if role == MODEL_ROLE:
            return m
        if role == TOOLTIP:
            return tooltip(m)
        if role == FOREGROUND:
            return self.cell(row, col).fg
        return self.visual_data(row, col, role)


def tooltip(m: LocalModel) -> str:
    lines = [f"<b>{html.escape(m.name)}</b> ({html.escape(m.source)})",
             f"Tokenizer: {html.escape(str(m.tokenizer))}"]
    if m.detail:
        lines.append(html.escape(m.detail))
    if m.problem:
        lines.append(f"<i>{html.escape(m.tokenizer.name)} {html.escape(m.problem)}</i>")
    return "<p>" + "<br>".join(lines) + "</p>"


class ModelFilter(QSortFilterProxyModel):
    """Rows whose name, format or source hold every word of :meth:`set_words`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._words = ""
        self.setSortRole(SORT_ROLE)
        self.setSortCaseSensitivity(Qt.CaseInsensitive)

    def set_words(self, text: str) -> None:
        if text == self._words:
            return
        if hasattr(self, "beginFilterChange"):     # Qt 6.10 on; invalidateFilter before
            self.beginFilterChange()
            self._words = text
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._words = text
            self.invalidateFilter()

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:
        src = self.sourceModel()
        if not self._words or not isinstance(src, LocalModelsModel):
            return True
        return model_matches(src.models[row], self._words)

    def model_at(self, row: int) -> LocalModel | None:
        if not 0 <= row < self.rowCount():
            return None
        return self.index(row, 0).data(MODEL_ROLE)
