"""Every greyed action of the window's menus says why (issue 89, item 2): its tooltip and
its status tip (what the status bar shows while the pointer is on it) carry a reason, the
controller's own where it has one (Train on's ``why_not``).

The menus are walked as a user would open them (every menu of the menu bar and its
submenus), in three states: a fresh window (nothing imported, no job); a job running;
a tokenizer imported with parity-aware training on (issue 89's walk: Train on greyed,
with no word of why)."""
from __future__ import annotations

import threading

from PySide6.QtWidgets import QMenu

from bpe_gui.engine.formats import export_formats
from bpe_gui.engine.train import Trainer, TrainSettings
from bpe_gui.gui.controller.jobs import Job
from bpe_gui.gui.controller.parity_setup import Language, ParitySetup
from conftest import wait_idle


def menu_actions(menu: QMenu):
    for act in menu.actions():
        if act.menu() is not None:
            yield from menu_actions(act.menu())
        elif not act.isSeparator():
            yield act


def greyed_without_reason(win) -> list[str]:
    """The greyed actions of every menu whose tooltip or status tip gives no reason (the
    tooltip must say more than the action's own tip)."""
    missing, greyed = [], 0
    for top in win.menuBar().actions():
        assert top.menu().toolTipsVisible(), f"{top.text()}: its tooltips are never shown"
        for act in menu_actions(top.menu()):
            if act.isEnabled():
                continue
            greyed += 1
            if not act.statusTip().strip() or "Greyed: " not in act.toolTip() or \
                    not act.toolTip().split("Greyed: ", 1)[1].strip():
                missing.append(act.text().replace("&", ""))
    assert greyed, "no greyed action was walked"
    return missing


def test_every_greyed_action_says_why(window, qtbot, tmp_path):
    c = window.controller
    wait_idle(qtbot, c)
    acts = window.actions_menus.acts
    assert not acts["train_on"].isEnabled() and not acts["cancel"].isEnabled()
    assert greyed_without_reason(window) == []
    assert acts["train_on"].statusTip() == c.train_on.why_not()

    # a job running: what starts work is greyed, with the job named
    go = threading.Event()
    assert c.start(Job("A slow job", lambda progress, cancelled: go.wait(20)))
    try:
        qtbot.waitUntil(lambda: not acts["step"].isEnabled(), timeout=5_000)
        assert greyed_without_reason(window) == []
        assert "A slow job" in acts["step"].statusTip()
        assert acts["cancel"].isEnabled() and acts["cancel"].statusTip() == "Stop the running job"
    finally:
        go.set()
    wait_idle(qtbot, c)
    assert acts["step"].isEnabled() and acts["step"].statusTip() == "Merge the best pair"
    assert "Greyed" not in acts["step"].toolTip()

    # a tokenizer imported, parity-aware training on: Train on is greyed with the
    # controller's reason
    tok = Trainer.from_source("low lower newest widest " * 20, TrainSettings(num_merges=10))
    tok.goto(10, detail=False)
    export_formats(tok.tokenizer(), tmp_path / "tok", ["gpt2"])
    assert c.tokenizer_files.import_tokenizer(str(tmp_path / "tok" / "vocab.json")) is not None
    wait_idle(qtbot, c)
    (tmp_path / "en.txt").write_text("the cat sat\n" * 5, encoding="utf-8")
    c.set_parity(ParitySetup(enabled=True, languages=(
        Language("en", str(tmp_path / "en.txt")),)))
    window.actions_menus.update_actions()
    why = c.train_on.why_not()
    assert why is not None and why.startswith("Parity-aware training is on")
    assert not acts["train_on"].isEnabled() and acts["train_on"].statusTip() == why
    assert why in acts["train_on"].toolTip()
    assert greyed_without_reason(window) == []


def test_hovering_a_greyed_entry_shows_why_in_the_status_bar_and_its_tooltip(window, qtbot):
    """Qt shows no status tip for a greyed menu entry (it never becomes current): the
    pointer on each greyed entry of every menu puts its reason in the status bar, and its
    tooltip (the menu's tooltip event) says "Greyed: " and the reason."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QHelpEvent, QMouseEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    wait_idle(qtbot, window.controller)
    bar = window.statusBar()
    walked = 0
    for top in window.menuBar().actions():
        menus = [top.menu(), *top.menu().findChildren(QMenu)]
        for menu in menus:
            menu.popup(window.mapToGlobal(window.rect().center()))
            qtbot.waitExposed(menu)
            for act in menu.actions():
                if act.isEnabled() or act.isSeparator() or act.menu() is not None:
                    continue
                walked += 1
                bar.clearMessage()
                at = menu.actionGeometry(act).center()
                QApplication.sendEvent(menu, QMouseEvent(
                    QEvent.Type.MouseMove, QPointF(at), QPointF(menu.mapToGlobal(at)),
                    Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                    Qt.KeyboardModifier.NoModifier))
                assert act.statusTip() and bar.currentMessage() == act.statusTip(), \
                    act.text()
                QApplication.sendEvent(menu, QHelpEvent(QEvent.Type.ToolTip, at,
                                                        menu.mapToGlobal(at)))
                assert QToolTip.isVisible() and "Greyed: " + act.statusTip() in \
                    QToolTip.text(), act.text()
                QToolTip.hideText()
            menu.hide()
    assert walked >= 2   # (Cancel, Train on, ... in a fresh window)
