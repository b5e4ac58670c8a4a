"""Help > About says the release and which engine runs, C or Python, for each extension,
and why one does not run (as ``bpe-gui --version`` does: tests/cli/test_cli_version.py)."""
from __future__ import annotations

import json
import os
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from bpe_gui.engine import extensions
from bpe_gui.engine.display import bpe_gui_version

ALLOW_PYCORE = os.environ.get("BPE_GUI_ALLOW_PYCORE") == "1"


def open_about(window, qtbot) -> QMessageBox:
    window.actions_menus.acts["about"].trigger()
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "about_box") is not None
                    and window.findChild(QMessageBox, "about_box").isVisible())
    return window.findChild(QMessageBox, "about_box")


def close(box, qtbot) -> None:
    box.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not box.isVisible())


def plain(box: QMessageBox) -> str:
    """The box's text as it reads (tags dropped, entities resolved)."""
    from PySide6.QtGui import QTextDocument
    doc = QTextDocument()
    doc.setHtml(box.text())
    return doc.toPlainText()


@pytest.fixture(autouse=True)
def no_build_record(monkeypatch, tmp_path):
    monkeypatch.setattr(extensions, "BUILD_RECORD", tmp_path / "none" / "_build.json")


@pytest.mark.skipif(ALLOW_PYCORE, reason="pure-Python fallback allowed")
def test_about_says_the_release_and_that_the_c_engine_runs(window, qtbot):
    box = open_about(window, qtbot)
    text = plain(box)
    assert "bpe-gui" in text and (bpe_gui_version() or "bpe-gui") in text
    assert "Engine: C (all 5 extensions)" in text
    assert "Python" not in text.split("Engine:")[1]
    # the text can be selected and copied (an import error to report)
    assert box.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    close(box, qtbot)


def test_about_names_a_missing_extension_and_why(window, qtbot, monkeypatch, tmp_path):
    recorded = tmp_path / "_build.json"
    recorded.write_text(json.dumps({"built": [], "no_simd": False, "failed": {
        "bpe_gui.engine.text._scan": "gcc failed\nscan.c:12: error: <immintrin.h> not found"}}),
        encoding="utf-8")
    monkeypatch.setattr(extensions, "BUILD_RECORD", recorded)
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.text._scan", None)
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.train._core", None)
    box = open_about(window, qtbot)
    lines = [x.strip() for x in plain(box).splitlines()]
    assert ("text._scan (the pattern scanner and Unicode normal forms): not built "
            f"(scan.c:12: error: <immintrin.h> not found; see {recorded}); regex and "
            "unicodedata runs instead") in lines   # (the reason's < > shown as written, not read as tags)
    assert ("train._core (training): not built; the Python training core (_pycore) runs "
            "instead") in lines
    if not ALLOW_PYCORE:
        assert "Engine: C for 3 of 5 extensions; Python for 2 (slow)" in lines
    close(box, qtbot)
