"""The vocabulary browser on a big imported tokenizer: how long showing it, searching,
scrolling, the lineage and sorting take on the GUI thread (the rows and search texts
are built on the worker thread first, as the window does for files over 1 MB).

    python bench/bench_vocab_browser.py PATH   (a tokenizer.json, .tiktoken or tokenizer.model)
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def ms(t0: float) -> str:
    return f"{1000 * (time.perf_counter() - t0):.0f} ms"


def main(path: str) -> None:
    app = QApplication([])
    import bpe_gui.gui  # noqa: F401  (the PySide6 6.12.0 refcount guard; no-op elsewhere)
    from bpe_gui.engine.formats import load_tokenizer
    from bpe_gui.gui.controller.controller import Controller
    from bpe_gui.gui.models.vocab_model import prepare_imported
    from bpe_gui.gui.panels.vocab.vocab_browser import VocabBrowser
    c = Controller()
    b = VocabBrowser(c)
    b.resize(1200, 800)
    b.show()
    app.processEvents()
    tok = load_tokenizer(path)
    t = time.perf_counter()
    len(tok.merges)
    prepare_imported(tok)
    print(f"worker thread: merges, rows and search texts {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    c.imported, c.imported_path = tok, path
    c.tokenizer_files.set_use_imported(True)
    app.processEvents()
    print(f"show {b.proxy.rowCount():,} tokens: {ms(t)}")
    for q in ("the", "ing", "Ġ", "e4 bd", "12345", "你"):
        t = time.perf_counter()
        b.search.setText(q)
        b.apply_search()
        app.processEvents()
        print(f"search {q!r}: {b.proxy.rowCount():,} rows, {ms(t)}")
    t = time.perf_counter()
    b.search.setText("")
    b.apply_search()
    app.processEvents()
    print(f"clear the search: {ms(t)}")
    t = time.perf_counter()
    b.view.scrollToBottom()
    app.processEvents()
    b.view.viewport().repaint()
    print(f"scroll to the bottom: {ms(t)}")
    t = time.perf_counter()
    b.select_id(len(tok.vocab) // 2)
    app.processEvents()
    print(f"select a token and show its lineage: {ms(t)}")
    t = time.perf_counter()
    b.view.sortByColumn(1, Qt.AscendingOrder)
    app.processEvents()
    print(f"sort by token text: {ms(t)}")


if __name__ == "__main__":
    main(sys.argv[1])
