"""A fixed-height text area for text that changes on every training step.

A QLabel asks its layout to recompute whenever its text changes (its size hint may
have changed), and a whole panel of word-wrapped labels then lays out again: on a
busy window that was a third of the time one step took. This widget's size hint
never changes, so a new text only repaints it.

It is also opaque once it has a copy of what its parent draws behind it (a group
box's frame, say): otherwise each new text repaints the parent under it too, and a
group box redraws its frame and title. The copy is taken again, outside painting,
whenever the pane changes size, place, palette or state.

Text longer than the pane's lines is cut short with "…" (rich text keeps its bold), the
whole of it in the tooltip; ``set_variants`` picks the longest of a few forms that fits.
A pane made with ``grow=True`` instead takes the height its text needs at its width
(``lines`` at least): it asks for a new layout only when the number of lines changes,
so the whole of a sentence that must be read (why a pair won) is always in sight.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QSize, QTimer
from PySide6.QtGui import (QAbstractTextDocumentLayout, QFont, QPainter, QPalette, QPixmap,
                           QRegion, QTextCursor, QTextDocument, QTextOption,
                           Qt)  # QtGui.Qt has mightBeRichText
from PySide6.QtWidgets import QSizePolicy, QWidget

_OPAQUE = Qt.WidgetAttribute.WA_OpaquePaintEvent
_CHANGES = frozenset({QEvent.Type.Resize, QEvent.Type.Move, QEvent.Type.PaletteChange,
                      QEvent.Type.EnabledChange, QEvent.Type.StyleChange,
                      QEvent.Type.FontChange, QEvent.Type.Show, QEvent.Type.ParentChange})


class TextPane(QWidget):
    """``lines`` lines of (rich) text, wrapped to the width; API like QLabel's."""

    def __init__(self, text: str = "", lines: int = 1, parent: QWidget | None = None,
                 align=None, hint_width: int | None = 200, grow: bool = False):
        super().__init__(parent)
        self._lines = lines
        self._grow = grow
        # fixed: a new text never asks for a new layout; None: the text's own width (a new
        # layout only when that changes)
        self._fit_text = hint_width is None
        self._hint_width = hint_width or 0
        self._text = ""
        self._variants: list[str] = []
        self._fit_key: tuple | None = None    # what _fit_doc was made for
        self._fit_doc: QTextDocument | None = None
        self._auto_tip = ""
        self._doc = QTextDocument(self)
        self._doc.setDocumentMargin(1)
        self._doc_font: QFont | None = None
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere if grow else
                        QTextOption.WrapMode.WordWrap if lines > 1
                        else QTextOption.WrapMode.NoWrap)
        if align is not None:
            opt.setAlignment(align)
        self._doc.setDefaultTextOption(opt)
        self._bg: QPixmap | None = None       # the parent's pixels behind the pane
        self._bg_pending = False
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + 4)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        self._variants = []
        self._set(text)

    def shown(self) -> str:
        """The text as drawn: the text, or cut short with "…" where it does not fit."""
        return self._shown_doc().toPlainText()

    def variants(self) -> list[str]:
        """The forms set with ``set_variants``, longest first ([] after ``setText``)."""
        return list(self._variants)

    def full_text(self) -> str:
        """The longest variant (what the tooltip says), or the text."""
        return self._variants[0] if self._variants else self._text

    def set_variants(self, texts) -> None:
        """Plain texts, longest first: the pane shows the first that fits its width on
        one line (the last one elided if none does), the longest in its tooltip."""
        self._variants = list(texts)
        self._pick()

    def _pick(self) -> None:
        if not self._variants:
            return
        fm, room = self.fontMetrics(), max(0, self.width() - 4)
        shown = next((t for t in self._variants if fm.horizontalAdvance(t) <= room), None)
        if shown is None:
            shown = fm.elidedText(self._variants[-1], Qt.TextElideMode.ElideRight, room)
        self.setToolTip("" if shown == self._variants[0] else self._variants[0])
        self._set(shown)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._pick()
        if event.size().width() != event.oldSize().width():
            self._fit_height()

    def needed_height(self, width: int | None = None) -> int:
        """The height the whole text takes at ``width`` (default: the pane's)."""
        least = self._lines * self.fontMetrics().lineSpacing() + 4
        w = self.width() if width is None else width
        if w < 40:   # not laid out yet
            return max(least, self.height()) if width is None else least
        doc = self._doc
        doc.setTextWidth(w)
        return max(least, int(doc.size().height() + 0.999) + 2)

    def _fit_height(self) -> None:
        if self._grow:
            h = self.needed_height()
            if h != self.height():
                self.setFixedHeight(h)

    def _set(self, text: str) -> None:
        if text == self._text:
            return
        self._text = text
        font = self.font()
        if font != self._doc_font:      # setting it lays the document out again
            self._doc_font = font
            self._doc.setDefaultFont(font)
        if Qt.mightBeRichText(text):
            self._doc.setHtml(text)
        else:
            self._doc.setPlainText(text)
        if self._fit_text:
            width = int(self._doc.idealWidth() + 1.999)
            if width != self._hint_width:
                self._hint_width = width
                self.updateGeometry()
        self._fit_height()
        self.update()

    def setWordWrap(self, on: bool) -> None:  # QLabel compatibility; wrapping follows lines
        pass

    def setTextFormat(self, fmt) -> None:  # QLabel compatibility: rich text is detected
        pass

    def sizeHint(self) -> QSize:
        return QSize(self._hint_width, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.height())

    # ----- the parent's background ----------------------------------------------------------
    def _invalidate_background(self) -> None:
        self._bg = None
        self.setAttribute(_OPAQUE, False)
        if not self._bg_pending and self.isVisible():
            self._bg_pending = True
            QTimer.singleShot(0, self, self._take_background)   # dropped if deleted

    def _take_background(self) -> None:
        self._bg_pending = False
        parent = self.parentWidget()
        if parent is None or not self.isVisible() or self.width() <= 0 or self.height() <= 0:
            return
        dpr = self.devicePixelRatioF()
        pm = QPixmap(round(self.width() * dpr), round(self.height() * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(self.palette().color(QPalette.ColorRole.Window))
        # The parent alone (not its children), where the pane sits.
        parent.render(pm, QPoint(), QRegion(self.geometry()),
                      QWidget.RenderFlag.DrawWindowBackground)
        self._bg = pm
        self.setAttribute(_OPAQUE, True)
        self.update()

    def event(self, event) -> bool:
        # Palette, style and enabled changes reach children too; a parent that changes
        # size around an unmoved pane shows the same interior behind it.
        if event.type() in _CHANGES and hasattr(self, "_bg_pending"):
            self._invalidate_background()
        return super().event(event)

    # ----- text that does not fit --------------------------------------------------------
    def _shown_doc(self) -> QTextDocument:
        """The document to draw: the text, or, if it does not fit the pane, the text cut
        short with "…" (then the whole text is the tooltip, unless one was set)."""
        key = (self._text, self.width(), self.height(), self._doc_font)
        if self._fit_key == key and self._fit_doc is not None:
            return self._fit_doc
        doc = self._doc
        doc.setTextWidth(max(1, self.width()))
        shown = doc if self._fits(doc) else self._cut(doc)
        self._fit_key, self._fit_doc = key, shown
        tip = doc.toPlainText() if shown is not doc else ""
        if not self.toolTip() or self.toolTip() == self._auto_tip:
            self.setToolTip(tip)
            self._auto_tip = tip
        return shown

    def _fits(self, doc: QTextDocument) -> bool:
        if self._grow:
            return True
        if self._lines == 1:
            return doc.idealWidth() <= doc.textWidth() + 0.5
        return doc.size().height() <= self.height() + 0.5

    def _cut(self, doc: QTextDocument) -> QTextDocument:
        """The longest start of ``doc`` that fits with "…" after it (binary search; rich
        text keeps its formats)."""
        lo, hi, best = 0, doc.characterCount() - 1, None
        while lo < hi:
            mid = (lo + hi + 1) // 2
            trial = self._trial(doc, mid)
            if self._fits(trial):
                lo, best = mid, trial
            else:
                hi = mid - 1
        return best if best is not None else self._trial(doc, 0)

    @staticmethod
    def _trial(doc: QTextDocument, keep: int) -> QTextDocument:
        cut = doc.clone()
        cursor = QTextCursor(cut)
        cursor.setPosition(keep)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText("…")
        cut.setTextWidth(doc.textWidth())
        return cut

    def paintEvent(self, event) -> None:
        doc = self._shown_doc()
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette = self.palette()
        ctx.palette.setColor(QPalette.ColorRole.Text, self.palette().color(self.foregroundRole()))
        painter = QPainter(self)
        if self._bg is not None:
            painter.drawPixmap(0, 0, self._bg)
        painter.setClipRect(self.rect())
        doc.documentLayout().draw(painter, ctx)
        painter.end()
