"""The mouse wheel scrolls a panel; it changes a value only in the control that has focus.

Every panel sits in a scroll area, and Qt's combo boxes, spin boxes and sliders take the
wheel whenever the pointer is over them: scrolling the training settings turned GPT-2
into "Custom pattern…" and 32,000 into 31,900 on the way down (issue 21). Qt's own
convention for scrolled forms is that a control without focus lets the page scroll, so
:func:`guard_wheel` gives these controls ``Qt.FocusPolicy.StrongFocus`` (a wheel no longer gives
them focus) and a filter that sends an unfocused control's wheel on to the scroll area
around it. Clicking or tabbing into a control gives it focus; then the wheel changes it.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox,
                               QApplication, QComboBox, QScrollBar, QWidget)


def wheel_sensitive(w: QWidget) -> bool:
    """A control whose value the wheel changes (scroll bars scroll, so they keep it)."""
    return isinstance(w, (QComboBox, QAbstractSpinBox)) or (
        isinstance(w, QAbstractSlider) and not isinstance(w, QScrollBar))


def scroll_ancestor(w: QWidget) -> QAbstractScrollArea | None:
    p = w.parentWidget()
    while p is not None and not isinstance(p, QAbstractScrollArea):
        p = p.parentWidget()
    return p


class WheelGuard(QObject):
    """Event filter: an unfocused control's wheel scrolls the nearest scroll area."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if not isinstance(event, QWheelEvent) or not isinstance(obj, QWidget) or obj.hasFocus():
            return False
        area = scroll_ancestor(obj)
        if area is not None:
            # sent on explicitly rather than ignored: Qt passes an ignored wheel to the
            # parent only for events from the window system, and this is the same either way
            vp = area.viewport()
            pos = vp.mapFromGlobal(event.globalPosition().toPoint())
            QApplication.sendEvent(vp, QWheelEvent(
                pos, event.globalPosition(), event.pixelDelta(), event.angleDelta(),
                event.buttons(), event.modifiers(), event.phase(), event.inverted()))
        event.accept()
        return True


def guard_wheel(root: QWidget) -> int:
    """Guard every wheel-sensitive control under ``root`` (call again after adding
    controls; a control is guarded once). Returns how many controls are guarded."""
    guard = root.findChild(WheelGuard, "wheelGuard", Qt.FindChildOption.FindDirectChildrenOnly)
    if guard is None:
        guard = WheelGuard(root)
        guard.setObjectName("wheelGuard")
    n = 0
    for w in root.findChildren(QWidget):
        if not wheel_sensitive(w):
            continue
        n += 1
        if w.property("wheelGuarded"):
            continue
        if w.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        w.installEventFilter(guard)
        w.setProperty("wheelGuarded", True)
    return n
