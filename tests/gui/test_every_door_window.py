"""The window is one more door to the one engine (issue 78): a published tokenizer file
imported into the window, a text pasted into the encode view, gives the ids the file's own
library gives (the view reads typed special tokens as tokens and adds nothing around the
text: the library's call with every special token allowed and its template off).
Kinds and oracles: tests/engine/published_kinds.py."""
from __future__ import annotations

import pytest

from published_kinds import published

KINDS = ["cl100k", "llama3-json", "gguf-mpt", "tekken"]


@pytest.fixture(params=KINDS)
def door(request, tmp_path):
    return published(request.param, tmp_path)


@pytest.mark.regression
def test_the_encode_view_gives_the_files_own_ids(window, qtbot, door):
    """(A trained and an imported tokenizer were two runtimes; the window is held to the
    file's library like every other door.)"""
    c = window.controller
    assert c.tokenizer_files.import_tokenizer(str(door.path)) is not None and c.use_imported
    ev = window.dock_layout.encode_view
    said: list[str] = []
    c.message.connect(said.append)
    for text in [t for t in door.texts if t and len(t) < 1000]:
        held = text.replace("\r\n", "\n").replace("\r", "\n")   # (what a text box keeps)
        want = (door.reading or door.oracle)(held)
        ev.set_text(text)
        qtbot.waitUntil(lambda: list(ev.encoding.ids) == want, timeout=60_000)
        if held != text:   # a carriage return the box could not keep is said
            assert any("carriage returns" in m for m in said), said
