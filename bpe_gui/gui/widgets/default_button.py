"""A dialog's default button (the one Enter presses), set so that it holds.

``QPushButton.setDefault(True)`` on a button that is not yet inside its dialog (in a
``QDialogButtonBox`` or a row still being built) sets only the button's own flag: the
dialog never learns its main default, and when shown it makes the first auto-default
button after the focus its default instead. Enter then pressed Cancel in the Import
dialog, Close in the Export dialog and Browse… in the others, after the user had picked
a file with File…/Browse… (issue 37). :func:`make_default` is called once the button is
in its dialog; buttons that open a file dialog or add a row are made not auto-default
(:func:`not_auto_default`), so that Enter after clicking one presses the dialog's
default rather than the same button again.
"""
from __future__ import annotations

from PySide6.QtWidgets import QDialog, QPushButton


def make_default(button: QPushButton) -> None:
    """Make ``button`` its dialog's default: Enter presses it while it is enabled, from
    anywhere in the dialog but another auto-default button (Tab onto Cancel, Enter:
    cancel, as Qt does)."""
    if not isinstance(button.window(), QDialog):
        raise RuntimeError(f"{button.text()!r} is not in a dialog yet: the dialog would "
                           "not keep it as its default (add it to the dialog first)")
    button.setDefault(True)


def not_auto_default(*buttons: QPushButton) -> None:
    """Buttons that Enter does not press after a click (a file picker, an Add…): Enter
    goes on to the dialog's default."""
    for b in buttons:
        b.setAutoDefault(False)
