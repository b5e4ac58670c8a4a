"""The window's shortcuts before a text field's own keys.

Qt asks the widget with focus first whether it wants a key for itself (a
ShortcutOverride event), and a text field claims every key it edits with. On X11 those
include Emacs's: Ctrl+E moves to the end of the line, so File > Export (Ctrl+E) did
nothing while a text field had focus, e.g. right after the number of merges was typed.

:class:`WindowKeysFirst` gives such a key back to the window: a key with Ctrl or Alt
that an enabled action of the window holds. Keys without either (Esc, the F-keys,
plain letters) stay the field's, and so does every key in a dialog (the window's
shortcuts do not reach into dialogs anyway).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QWidget

_CHORD = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier


class WindowKeysFirst(QObject):
    """Follows the focus inside ``window`` (its docks, floating ones too) and lets the
    window's Ctrl and Alt shortcuts win over the focused field (see the module's note)."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is not None and self._inside(new):
            new.installEventFilter(self)   # (again: Qt keeps one, moved to the front)

    def _inside(self, widget: QWidget) -> bool:
        """``widget`` is part of the window: of its central widget or a dock, not of a
        dialog it opened."""
        w: QWidget | None = widget
        while w is not None:
            if w is self.window:
                return True
            if w.isWindow() and not isinstance(w, QDockWidget):
                return False
            w = w.parentWidget()
        return False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and \
                self.window_key(event):   # type: ignore[arg-type]
            event.ignore()   # not the field's: the shortcut map takes it
            return True
        return False

    def window_key(self, event: QKeyEvent) -> bool:
        """An enabled action of the window holds this key, and the key has Ctrl or Alt."""
        if not event.modifiers() & _CHORD:
            return False
        pressed = QKeySequence(event.keyCombination())
        return any(act.isEnabled() and
                   any(k.matches(pressed) == QKeySequence.SequenceMatch.ExactMatch
                       for k in act.shortcuts())
                   for act in self.window.actions())
