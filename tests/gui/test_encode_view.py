"""Live encode view, driven as a user would, on a real Controller and corpus."""
from __future__ import annotations

import lzma

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QTextOption
from PySide6.QtWidgets import QApplication

from bpe_gui.engine.tokenizers.trained import Tokenizer
from bpe_gui.gui.controller.controller import Controller
from bpe_gui.gui.models.encoding import PARTIAL, SPECIAL
from bpe_gui.gui.panels.encode.encode_view import EncodeView
from bpe_gui.gui.widgets.token_flow import GAP
from bpe_gui.gui.panels.encode.pages import PAGE_CHARS
from panel_helpers import WORKED, make_controller
from settle import settle

MIXED = ("low lower newest widest 你好世界 newest 你好 widest\nlowest 世界 new 你\n" * 3)


pytestmark = pytest.mark.controller(MIXED)


@pytest.fixture
def view(qtbot, controller):
    v = EncodeView(controller)
    qtbot.addWidget(v)
    v.resize(900, 600)
    v.show()
    return v


def fresh_encoding(controller: Controller, text: str):
    """The engine's encoding, computed independently of the view: a new Tokenizer
    built from the trainer's vocabulary and merges as of now."""
    t = controller.trainer
    s = t.settings
    tok = Tokenizer(t.vocab, t.merges, list(s.special_tokens), pattern=s.pattern, mode=s.mode)
    return tok.encode_with_offsets(text, allowed_special="all")


def owners(enc, n_chars: int) -> list[set[int]]:
    own: list[set[int]] = [set() for _ in range(n_chars)]
    for i, (s, e) in enumerate(enc.offsets):
        for ch in range(s, e):
            own[ch].add(i)
    return own


def check_colours(view: EncodeView, text: str, enc) -> None:
    """The text's colours follow the offsets: every character of a token is coloured;
    neighbouring characters share a colour exactly when they belong to the same token;
    split characters (shared by tokens, or in a partial token) are marked."""
    assert "\U0001F600" not in text   # positions below are code points = document positions
    kinds = view.format_kinds()
    own = owners(enc, len(text))
    partial_tok = {i for i, t in enumerate(enc.tokens) if _partial(t)}
    for ch, c in enumerate(text):
        if c == "\n":
            continue
        assert own[ch], f"character {ch} {c!r} is in no token"
        assert kinds[ch] >= 0, f"character {ch} {c!r} is not coloured"
        split = len(own[ch]) > 1 or bool(own[ch] & partial_tok)
        assert (kinds[ch] in (2, 3)) == split, (ch, c, kinds[ch])
    for ch in range(len(text) - 1):
        if "\n" in text[ch:ch + 2]:
            continue
        same_token = bool(own[ch] & own[ch + 1])
        assert (kinds[ch] == kinds[ch + 1]) == same_token, (ch, text[ch:ch + 2])


def _partial(token: bytes) -> bool:
    try:
        token.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


def send_move(widget, pos) -> None:
    ev = QMouseEvent(QEvent.MouseMove, QPointF(pos), widget.mapToGlobal(QPointF(pos)),
                     Qt.NoButton, Qt.NoButton, Qt.NoModifier)
    QApplication.sendEvent(widget, ev)


def test_colours_follow_offsets_and_ids_listed(qtbot, view, controller):
    controller.goto(12)
    text = "lowest newer widest 你好 low\nwidest"
    view.set_text(text)
    enc = fresh_encoding(controller, text)
    assert view.encoding.ids == enc.ids
    assert view.encoding.offsets == enc.offsets
    check_colours(view, text, enc)
    assert view.flow.ids == enc.ids
    assert len(view.token_texts()) == len(enc.ids)
    n_bytes = len(text.encode())
    assert f"{len(enc.ids)} tokens" in view.counts.full_text()
    assert f"{len(text)} characters" in view.counts.full_text()
    assert f"{n_bytes} bytes" in view.counts.full_text()
    assert f"{n_bytes / len(enc.ids):.2f} bytes/token" in view.counts.full_text()
    view.set_text("a")                  # one of each: "1 token · 1 character · 1 byte"
    assert view.counts.full_text().startswith("1 token · 1 character · 1 byte · ")


def test_colouring_changes_with_the_step_and_matches_a_fresh_encode(qtbot, view, controller):
    text = MIXED
    view.set_text(text)
    seen = set()
    for k in (1, 2, 3, 8, 20, 7, 0, 30, 29, 31):
        controller.goto(k)
        enc = fresh_encoding(controller, text)
        assert view.encoding.ids == enc.ids, k
        assert view.encoding.offsets == enc.offsets, k
        assert view.encoding.tokens == enc.tokens, k
        view.colour_all()
        check_colours(view, text, enc)
        seen.add(tuple(view.format_kinds()))
    assert len(seen) > 3                                # the colouring really changed
    assert view.state.last_mode == "step"                     # followed merge by merge
    assert view.source.currentText() == f"Trained, as of step {controller.step_index}"


def test_typing_re_encodes(qtbot, view, controller):
    controller.goto(10)
    view.set_text("")
    qtbot.keyClicks(view.edit, "widest newest")
    text = view.text()
    assert text == "widest newest"
    enc = fresh_encoding(controller, text)
    qtbot.waitUntil(lambda: view.encoding.ids == enc.ids)   # encoded after the keys
    check_colours(view, text, enc)
    view.edit.selectAll()
    qtbot.keyClicks(view.edit, "lower")
    qtbot.waitUntil(lambda: view.encoding.ids == fresh_encoding(controller, "lower").ids)


def test_hover_text_lights_up_its_id(qtbot, view, controller):
    controller.goto(10)
    text = "lowest widest"
    view.set_text(text)
    enc = view.encoding
    target = next(i for i, t in enumerate(enc.tokens) if len(t) > 1)
    s, e = enc.offsets[target]
    rect = view.links.char_rect(s)
    send_move(view.edit.viewport(), rect.center())
    assert view.flow.highlight == frozenset({target})
    assert view.links.lit_ranges() == [(s, e)]
    # Off the text (right of the line's end): nothing is lit.
    send_move(view.edit.viewport(), rect.center() + type(rect.center())(600, 0))
    assert view.flow.highlight == frozenset()
    assert view.links.lit_ranges() == []


@pytest.mark.regression
def test_the_token_lit_follows_a_wheel_scroll(qtbot, view, controller):
    """With the pointer still over the text, the wheel scrolled another line under it but
    the token lit (and the strip scrolled to it) stayed the old one, out of sight."""
    controller.goto(10)
    view.set_text("\n".join(f"line{k} lowest widest newer" for k in range(400)))
    enc = view.encoding
    rect = view.links.char_rect(0)
    point = rect.center()
    send_move(view.edit.viewport(), point)
    assert view.flow.highlight == frozenset(view.state.spans.tokens_at(0))
    bar = view.edit.verticalScrollBar()
    bar.setValue(bar.value() + 40)                      # (as the wheel does it)
    now = view.links.char_at(point)
    assert now is not None and now > 0
    assert view.flow.highlight == frozenset(view.state.spans.tokens_at(now))
    assert view.links.lit_ranges() == [enc.offsets[i] for i in sorted(view.state.spans.tokens_at(now))]
    QApplication.sendEvent(view.edit.viewport(), QEvent(QEvent.Leave))
    bar.setValue(0)                                     # the pointer gone: nothing lit again
    assert view.flow.highlight == frozenset()


def test_hover_id_lights_up_its_text(qtbot, view, controller):
    controller.goto(10)
    view.set_text("lowest widest newer")
    enc = view.encoding
    for i in (0, len(enc.ids) // 2, len(enc.ids) - 1):
        send_move(view.flow.viewport(), view.flow.item_rect(i).center())
        assert view.links.lit_ranges() == [enc.offsets[i]]
        assert view.flow.highlight == frozenset({i})
    QApplication.sendEvent(view.flow, QEvent(QEvent.Leave))
    assert view.links.lit_ranges() == []


def test_partial_characters_in_hex_and_marked(qtbot, view, controller):
    text = "你好 low"
    view.set_text(text)                       # step 0: every byte its own token
    enc = view.encoding
    texts = view.token_texts()
    assert texts[:6] == ["<E4>", "<BD>", "<A0>", "<E5>", "<A5>", "<BD>"]
    assert view.state.spans.kinds[:6] == [PARTIAL] * 6
    assert "6 partial-character tokens" in view.counts.full_text()
    check_colours(view, text, enc)
    # Hovering 好 lights up its three byte tokens.
    assert view.links.hover_char(1) == [3, 4, 5]
    assert view.flow.highlight == frozenset({3, 4, 5})
    assert view.links.lit_ranges() == [(1, 2)] * 3


def test_characters_outside_the_bmp(qtbot, view, controller):
    text = "a😀b low"
    view.set_text(text)
    kinds = view.format_kinds()
    assert len(kinds) == len(text) + 1             # the emoji takes two positions
    assert kinds[1] == kinds[2] and kinds[1] in (2, 3)
    assert kinds[3] != kinds[2]
    enc = view.encoding
    b_token = next(i for i, (s, _e) in enumerate(enc.offsets) if s == 2)
    view.links.hover_char(2)
    assert view.links.lit_ranges() == [(3, 4)]   # 'b' sits at document position 3
    assert view.flow.highlight == frozenset({b_token})


def test_special_tokens(qtbot):
    c = make_controller(WORKED + "<|endoftext|>" + WORKED, special_tokens=("<|endoftext|>",))
    v = EncodeView(c)
    qtbot.addWidget(v)
    v.show()
    v.set_text("low<|endoftext|>newest")
    enc = v.encoding
    i = enc.special.index(True)
    assert enc.offsets[i] == (3, 16)
    assert v.state.spans.kinds[i] == SPECIAL
    kinds = v.format_kinds()
    assert set(kinds[3:16]) == {4}
    c.shutdown()


def test_show_whitespace_toggle(qtbot, view, controller):
    view.set_text("a b\tc")
    assert "·" in view.token_texts()
    opts = view.edit.document().defaultTextOption().flags()
    assert opts & QTextOption.ShowTabsAndSpaces
    view.show_ws.setChecked(False)
    assert " " in view.token_texts() and "·" not in view.token_texts()
    assert not view.edit.document().defaultTextOption().flags() & QTextOption.ShowTabsAndSpaces


def test_imported_tokenizer_toggle(qtbot, view, controller):
    controller.goto(5)
    t = controller.trainer
    imported = Tokenizer(t.vocab, t.merges[:2], pattern="gpt2")
    controller.imported, controller.imported_path = imported, "/tmp/mine/vocab.json"
    assert not view.source.isEnabled() or view.source.count() == 1
    controller.tokenizer_files.set_use_imported(True)
    assert view.source.count() == 2
    assert view.source.currentText() == "Imported: vocab.json"
    view.set_text("lowest")
    assert view.encoding.ids == imported.encode("lowest", allowed_special="all")
    controller.goto(12)                     # stepping does not touch the imported view
    assert view.encoding.ids == imported.encode("lowest", allowed_special="all")
    view.source.setCurrentIndex(0)
    view.source.activated.emit(0)
    assert not controller.use_imported
    assert view.encoding.ids == fresh_encoding(controller, "lowest").ids


def test_hidden_view_catches_up_when_shown(qtbot, view, controller):
    view.set_text(MIXED)
    view.hide()
    for k in (3, 9, 4):
        controller.goto(k)
    assert view.source.currentText() == "Trained, as of step 0"    # no work while hidden
    view.show()
    assert view.source.currentText() == "Trained, as of step 4"
    enc = fresh_encoding(controller, MIXED)
    assert view.encoding.ids == enc.ids and view.encoding.offsets == enc.offsets


def test_re_encode_10kb_follows_edits_and_steps(qtbot, corpora_dir):
    """After edits (whole re-encodes) and steps and undos (merges applied to the
    current encoding), the view's ids are a fresh encoding's. (Timings:
    bench/test_gui_latency.py.)"""
    text = lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt", encoding="utf-8").read()
    assert len(text) >= 160_000
    c = make_controller(text[:150_000])
    c.goto(300)
    v = EncodeView(c)
    qtbot.addWidget(v)
    v.resize(1000, 650)
    v.show()
    v.set_text(text[-10_000:])        # 10 kB the controller did not train on
    app = QApplication.instance()
    app.processEvents()
    cur = v.edit.textCursor()
    for i in range(10):
        cur.setPosition(4000 + i)
        cur.insertText("x")          # the view re-encodes the whole text (debounced)
        app.processEvents()
    settle(qtbot, v, c)
    assert v.state.last_mode != "step"
    assert v.encoding.ids == fresh_encoding(c, v.text()).ids
    for i in range(10):
        c.step() if i % 2 == 0 else c.undo()
        app.processEvents()
    assert v.state.last_mode == "step"
    assert v.encoding.ids == fresh_encoding(c, v.text()).ids
    c.shutdown()


EMOJI_WORDS = "贾宝玉和林黛玉读书 🇯🇵 low lower 😀 newest\n" * 4


@pytest.mark.regression
@pytest.mark.controller(EMOJI_WORDS)
def test_a_line_with_emoji_is_coloured_to_its_end(qtbot, controller):
    """A line with emoji or flags lost its colour at its end, one character per code point
    past U+FFFF: code points were taken for Qt's UTF-16 positions (issue 10)."""
    view = EncodeView(controller)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    text = "🇯🇵贾宝玉和黛读\nab😀cd 🇯🇵🇯🇵 x"
    view.set_text(text)
    qtbot.waitUntil(lambda: view.state.spans.offsets and view.state._shown_text == text)
    doc_text = view.edit.document().toPlainText()
    kinds = view.format_kinds()
    # document positions are UTF-16 units; every one but the line break is coloured
    units = [c for c in doc_text for _ in range(2 if ord(c) > 0xFFFF else 1)]
    assert len(kinds) == len(units)
    uncoloured = [i for i, (k, c) in enumerate(zip(kinds, units)) if k < 0 and c != "\n"]
    assert uncoloured == []


@pytest.mark.regression
@pytest.mark.controller(EMOJI_WORDS)
def test_a_burst_of_keys_is_all_typed_and_encoded_once_after(qtbot, controller,
                                                             monkeypatch):
    """Keys typed very fast were lost (half of them at ~400 keys/s): the view re-encoded
    between them instead of after them (issue 10)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication
    view = EncodeView(controller)
    qtbot.addWidget(view)
    view.show()
    view.edit.setFocus()
    qtbot.waitUntil(view.edit.hasFocus)
    encodes = []
    real = view.encode_now
    monkeypatch.setattr(view, "encode_now", lambda: (encodes.append(view.edit.toPlainText()),
                                                     real()))
    view._timer.timeout.disconnect()
    view._timer.timeout.connect(view.encode_now)
    keys = "low lower 贾宝玉 newest widest " * 8
    for ch in keys:    # queued at once, as a fast typist's keys arrive
        for kind in (QEvent.KeyPress, QEvent.KeyRelease):
            QApplication.postEvent(view.edit, QKeyEvent(kind, 0, Qt.NoModifier, ch))
    qtbot.waitUntil(lambda: view.edit.toPlainText() == keys)
    qtbot.waitUntil(lambda: view.state._shown_text == keys)
    assert encodes == [keys]          # once, after every key; none lost


def _long_text(n_chars: int) -> str:
    lines, n = [], 0
    while n < n_chars:
        lines.append(f"{len(lines)} low lower newest widest 分词器 tokenizers, step by step.\n")
        n += len(lines[-1])
    return "".join(lines)[:n_chars]


@pytest.mark.regression
def test_a_long_text_is_shown_and_encoded_a_page_at_a_time(qtbot, view, controller):
    """A 30 MB encode text was laid out whole in the text box (10 s, and the window
    could not quit on SIGTERM meanwhile): it is shown a page at a time (issue 30 item 10)."""
    from bpe_gui.gui.panels.encode.pages import PAGE_CHARS
    text = _long_text(3 * PAGE_CHARS + 12_345)
    view.set_text(text)
    doc = view.edit.document()
    assert doc.characterCount() - 1 <= PAGE_CHARS      # never more than a page laid out
    assert view.text() == text                          # the whole text is kept
    assert view.page_bar.isVisibleTo(view) and "Page 1 of 4" in view.page_bar.label.text()
    assert not view.page_bar.prev_button.isEnabled()
    tok = controller.tokenizer()
    page = view.edit.toPlainText()
    assert list(view.encoding.ids) == tok.encode(page, allowed_special="all")   # the page, encoded whole
    qtbot.mouseClick(view.page_bar.next_button, Qt.LeftButton)
    assert "Page 2 of 4" in view.page_bar.label.text()
    second = view.edit.toPlainText()
    assert second != page and text.index(second) > 0
    assert list(view.encoding.ids) == tok.encode(second, allowed_special="all")
    view.edit.moveCursor(view.edit.textCursor().MoveOperation.Start)
    qtbot.keyClicks(view.edit, "EDIT ")                 # typed on page 2
    qtbot.mouseClick(view.page_bar.prev_button, Qt.LeftButton)
    assert "Page 1 of 4" in view.page_bar.label.text()
    start = text.index(second)
    assert view.text() == text[:start] + "EDIT " + text[start:]
    view.set_text("short")                              # a short text: no pages
    assert not view.page_bar.isVisibleTo(view) and view.text() == "short"


def _paste_long_in_the_middle(view) -> str:
    """"before after", then a text of two pages and more pasted after "before " (as
    Ctrl+V gives it to the box); returns the pasted text."""
    from PySide6.QtCore import QMimeData
    view.set_text("before after")
    cur = view.edit.textCursor()
    cur.setPosition(len("before "))
    view.edit.setTextCursor(cur)
    pasted = _long_text(2 * PAGE_CHARS + 7)
    mime = QMimeData()
    mime.setText(pasted)
    view.edit.insertFromMimeData(mime)
    return pasted


@pytest.mark.regression
def test_pasting_a_long_text_pages_it(qtbot, view, controller):
    """30 MB pasted into the encode view went into the text box whole (issue 30 item 10)."""
    pasted = _paste_long_in_the_middle(view)
    assert view.text() == "before " + pasted + "after"
    assert view.edit.document().characterCount() - 1 <= PAGE_CHARS
    assert "Page 1 of 3" in view.page_bar.label.text()


def bar_says(view) -> str:
    """The page bar's label, the longest of its forms."""
    label = view.page_bar.label
    return getattr(label, "full_text", label.text)()


def _settled(qtbot, view) -> None:
    """Until the edits are encoded (and the bar says what the page holds)."""
    qtbot.waitUntil(lambda: not view._timer.isActive()
                    and not getattr(view, "encoding_pending", False), timeout=20_000)


@pytest.mark.regression
def test_the_page_bar_follows_an_edit_of_the_page(qtbot, view, controller):
    """After a page was replaced by 19 characters the bar still said "Page 1 of 4:
    characters 1–99,962 of 300,000", and an emptied page 3 still "Page 3 of 4"; a page
    change then re-cut every page from the start, so Next skipped text."""
    text = _long_text(3 * PAGE_CHARS + 12_345)
    view.set_text(text)
    _settled(qtbot, view)
    pages = list(view.pages.starts) + [len(text)]
    second, third, fourth = (text[a:b] for a, b in zip(pages[1:], pages[2:]))
    cur = view.edit.textCursor()
    cur.select(cur.SelectionType.Document)           # the page, as a mouse drag selects it
    view.edit.setTextCursor(cur)
    view.edit.insertPlainText("nineteen characters")
    _settled(qtbot, view)
    n = len(text) - pages[1] + 19
    assert bar_says(view) == f"Page 1 of 4: characters 1–19 of {n:,}"
    qtbot.mouseClick(view.page_bar.next_button, Qt.MouseButton.LeftButton)
    assert view.edit.toPlainText() == second          # the next page as it was
    assert bar_says(view).startswith(
        f"Page 2 of 4: characters 20–{19 + len(second):,} ")
    qtbot.mouseClick(view.page_bar.next_button, Qt.MouseButton.LeftButton)
    assert view.edit.toPlainText() == third
    cur = view.edit.textCursor()
    cur.select(cur.SelectionType.Document)
    view.edit.setTextCursor(cur)
    qtbot.keyClick(view.edit, Qt.Key.Key_Delete)       # page 3 emptied
    _settled(qtbot, view)
    assert view.edit.toPlainText() == "" and len(view.encoding) == 0
    assert bar_says(view).startswith("Page 3 of 4: empty")
    qtbot.mouseClick(view.page_bar.next_button, Qt.MouseButton.LeftButton)
    assert view.edit.toPlainText() == fourth          # the empty page is dropped
    assert bar_says(view).startswith("Page 3 of 3:")
    assert view.text() == "nineteen characters" + second + fourth


@pytest.mark.regression
def test_select_all_replaces_the_whole_text(qtbot, view, controller):
    """Ctrl+A selected one page of a long text, so pasting or typing over it left the
    other pages in: the user meaning to replace the text got a mix. Ctrl+A selects every
    page; typing, pasting or Delete replaces the whole text; Ctrl+Z brings it back."""
    from PySide6.QtCore import QMimeData
    from PySide6.QtWidgets import QApplication
    text = _long_text(3 * PAGE_CHARS + 12_345)
    view.set_text(text)
    _settled(qtbot, view)
    view.edit.setFocus()
    qtbot.keyClick(view.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert bar_says(view).startswith(f"All {len(text):,} characters selected")
    qtbot.keyClick(view.edit, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text() == text      # every page copied
    qtbot.keyClicks(view.edit, "xy")
    _settled(qtbot, view)
    assert view.text() == "xy" and view.page_bar.isHidden()
    assert list(view.encoding.ids) == controller.tokenizer().encode("xy", allowed_special="all")
    # one Ctrl+Z brings it back (it took two: the "y" typed after the replacing "x" first)
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    _settled(qtbot, view)
    assert view.text() == text and not view.page_bar.isHidden()
    view.show_page(2)                                    # back on the page it was on
    _settled(qtbot, view)
    cur = view.edit.textCursor()
    cur.setPosition(500)
    view.edit.setTextCursor(cur)
    where = view.pages.span()[0] + 500
    qtbot.keyClick(view.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(view.edit, "q")
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    _settled(qtbot, view)
    assert view.text() == text and view.pages.index == 2
    assert view.pages.span()[0] + view.edit.textCursor().position() == where
    qtbot.keyClick(view.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(view.edit, "ab")
    qtbot.keyClick(view.edit, Qt.Key.Key_Return)        # (a key that is not a character:
    qtbot.keyClicks(view.edit, "c")                     # the box's own undo first)
    _settled(qtbot, view)
    assert view.text() == "ab\nc"
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    _settled(qtbot, view)
    assert view.text() != text and view.text().startswith("ab")
    for _ in range(3):
        if view.text() == text:
            break
        qtbot.keyClick(view.edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        _settled(qtbot, view)
    assert view.text() == text
    qtbot.keyClick(view.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    mime = QMimeData()
    mime.setText("nineteen characters")
    view.edit.insertFromMimeData(mime)                  # Ctrl+V
    _settled(qtbot, view)
    assert view.text() == "nineteen characters" and view.page_bar.isHidden()
    view.set_text(text)
    qtbot.keyClick(view.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view.edit, Qt.Key.Key_Delete)
    _settled(qtbot, view)
    assert view.text() == "" and len(view.encoding) == 0 and view.page_bar.isHidden()
    view.set_text(text)                                  # a click ends "everything selected"
    qtbot.keyClick(view.edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view.edit, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert bar_says(view).startswith("Page 1 of 4")


def _holds(view, text: str) -> str:
    """'' when the view holds ``text``, else a short account (pytest's diff of two
    texts of 200,000 characters takes minutes)."""
    got = view.text()
    if got == text:
        return ""
    at = next((i for i, (a, b) in enumerate(zip(got, text)) if a != b), min(len(got), len(text)))
    return f"{len(got)} characters, not {len(text)}; first difference at {at}: {got[at:at + 30]!r}"


@pytest.mark.regression
def test_a_whole_text_undo_is_redone_and_works_from_the_page_bar(qtbot, view, controller):
    """After Ctrl+A, typing and Ctrl+Z, Ctrl+Shift+Z (or Ctrl+Y) did nothing: the typed text
    was gone for good. And Ctrl+Z did nothing while a page button had the focus (just
    clicked). Redo puts the replacement back; both keys act from the page bar too."""
    text = _long_text(2 * PAGE_CHARS + 777)
    view.set_text(text)
    _settled(qtbot, view)
    view.edit.setFocus()
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(view.edit, Qt.Key.Key_A, ctrl)
    qtbot.keyClicks(view.edit, "hello")
    _settled(qtbot, view)
    assert view.text() == "hello"
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl)
    _settled(qtbot, view)
    assert _holds(view, text) == ""
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl | shift)
    _settled(qtbot, view)
    assert view.text() == "hello"
    assert list(view.encoding.ids) == controller.tokenizer().encode("hello", allowed_special="all")
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl)
    _settled(qtbot, view)
    assert _holds(view, text) == ""
    qtbot.keyClick(view.edit, Qt.Key.Key_Y, ctrl)
    _settled(qtbot, view)
    assert view.text() == "hello"
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl)
    _settled(qtbot, view)
    # an edit after the undo: what was undone stays undone
    qtbot.keyClick(view.edit, Qt.Key.Key_End, ctrl)
    qtbot.keyClicks(view.edit, "!")
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl | shift)
    _settled(qtbot, view)
    assert len(view.text()) == len(text) + 1 and "hello" not in view.text()
    # from the page bar: replace, click the next-page button, then the keys
    view.set_text(text)
    _settled(qtbot, view)
    view.edit.setFocus()
    qtbot.keyClick(view.edit, Qt.Key.Key_A, ctrl)
    qtbot.keyClicks(view.edit, "x")
    _settled(qtbot, view)
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl)
    _settled(qtbot, view)
    assert _holds(view, text) == "" and not view.page_bar.isHidden()
    button = view.page_bar.next_button
    view.activateWindow()                               # (shortcuts need the active window)
    qtbot.waitUntil(view.isActiveWindow)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    button.setFocus()
    qtbot.waitUntil(button.hasFocus)
    qtbot.keyClick(button, Qt.Key.Key_Z, ctrl | shift)
    _settled(qtbot, view)
    assert view.text() == "x"
    assert QApplication.focusWidget() is view.edit      # the keys go on in the box
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, ctrl)
    _settled(qtbot, view)
    assert _holds(view, text) == ""
    # Ctrl+Z from the page bar: a long paste taken back with the Next button focused
    _paste_long_in_the_middle(view)
    _settled(qtbot, view)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    button.setFocus()
    qtbot.waitUntil(button.hasFocus)
    qtbot.keyClick(button, Qt.Key.Key_Z, ctrl)
    _settled(qtbot, view)
    assert view.text() == "before after"


@pytest.mark.regression
def test_a_long_paste_shows_where_it_begins(qtbot, view, controller):
    """After a long paste the box showed the end of its first page, an empty line: the
    text looked gone. The cursor is where the paste begins, in sight."""
    _paste_long_in_the_middle(view)
    _settled(qtbot, view)
    assert view.edit.textCursor().position() == len("before ")
    assert view.edit.firstVisibleBlock().blockNumber() == 0
    # Ctrl+Z takes the long paste back (it did nothing: the box cannot undo it)
    qtbot.keyClick(view.edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    _settled(qtbot, view)
    assert view.text() == "before after" and view.page_bar.isHidden()
    assert view.edit.textCursor().position() == len("before ")


@pytest.mark.regression
def test_the_page_bar_fits_a_narrow_dock(qtbot):
    """At 800x600 the encode dock is about 190 px wide, but the bar's narrow "◀" and "▶"
    buttons were 80 px each (a push button's least size hint): the bar needed 207 px and
    the view scrolled sideways. Narrow, the bar fits in 170 px, its buttons inside it."""
    from bpe_gui.gui.panels.encode.pages import PageBar, TextPages
    pages = TextPages()
    pages.load(_long_text(3 * PAGE_CHARS))
    bar = PageBar()
    qtbot.addWidget(bar)
    bar.show_pages(pages)
    assert bar.minimumSizeHint().width() <= 170
    bar.resize(170, bar.sizeHint().height())
    bar.show()
    qtbot.waitUntil(lambda: bar.next_button.text() == "▶")
    for b in (bar.prev_button, bar.next_button):
        assert b.geometry().right() < bar.width() and b.width() >= b.fontMetrics().horizontalAdvance(b.text())
    bar.resize(900, bar.height())
    qtbot.waitUntil(lambda: bar.next_button.text() == "Next page ▶")


@pytest.mark.regression
def test_a_narrow_page_bar_still_says_the_range(qtbot):
    """At 800x600 page 1's bar said "Page 1 of 4: 1–99,970 of 300,022" and page 2's only
    "Page 2 of 4": its longer numbers did not fit with the total. Between the two forms
    there is the range without the total."""
    from bpe_gui.gui.panels.encode.pages import PageBar, TextPages
    pages = TextPages()
    text = _long_text(3 * PAGE_CHARS + 22)
    pages.load(text)
    pages.go(1, pages.load(text))
    a, b = pages.span()
    bar = PageBar()
    qtbot.addWidget(bar)
    bar.show_pages(pages)
    short = f"Page 2 of 4: {a + 1:,}–{b:,}"
    assert short in pages.variants()
    fm = bar.label.fontMetrics()
    buttons = bar.width() - bar.label.width()
    bar.resize(fm.horizontalAdvance(short + " ") + max(buttons, 0) + 60, bar.sizeHint().height())
    bar.show()
    qtbot.waitUntil(lambda: bar.label.text() in (short, f"Page 2 of 4: {a + 1:,}–{b:,} of "
                                                        f"{len(text):,}"))


@pytest.mark.regression
def test_the_ids_follow_a_new_page_to_the_cursor(qtbot, view, controller):
    """The ids strip kept the previous page's scroll on a new page (its first row showed
    ids cut off), and after a long paste the box showed the paste's end while the strip
    showed the page's start (seen under Xvfb): a new page or text brings the strip to
    the tokens at the cursor."""
    from bpe_gui.gui.panels.encode.pages import PAGE_CHARS
    view.set_text(_long_text(2 * PAGE_CHARS + 500))
    sb = view.flow.verticalScrollBar()
    qtbot.waitUntil(lambda: sb.maximum() > 0)
    sb.setValue(sb.maximum())                         # the strip scrolled down on page 1
    qtbot.mouseClick(view.page_bar.next_button, Qt.LeftButton)
    assert "Page 2 of 3" in view.page_bar.label.text()
    assert sb.value() == 0                            # page 2 starts at its first ids
    view.set_text("short")
    pasted = _paste_long_in_the_middle(view)
    assert len(pasted) > PAGE_CHARS
    at = view.state.spans.tokens_at(char_index_of_cursor(view))
    assert at, "the cursor sits on a token"
    rect = view.flow.item_rect(at[-1])
    assert 0 <= rect.top() and rect.bottom() <= view.flow.viewport().height()


def char_index_of_cursor(view) -> int:
    return view.char_of_pos(view.edit.textCursor().position())


def test_a_chip_brought_into_view_leaves_no_row_cut_at_the_top(qtbot, view, controller):
    """Bringing a token's chip into view scrolled the strip by pixels, so the row above
    showed only its ids, their labels cut off (seen under Xvfb at 1024x700, where the
    strip holds under two rows): it scrolls by whole rows."""
    view.set_text(_long_text(20_000))
    flow = view.flow
    sb = flow.verticalScrollBar()
    qtbot.waitUntil(lambda: sb.maximum() > 0)
    for height in (flow.row_h * 3 // 2, flow.row_h * 2 + flow.row_h // 3, flow.row_h * 4):
        flow.setFixedHeight(height + 2 * flow.frameWidth())
        qtbot.waitUntil(lambda: flow.viewport().height() == height)
        sb.setValue(0)
        for i in (len(flow.tokens) // 7, len(flow.tokens) // 3, len(flow.tokens) - 1):
            flow.ensure_visible(i)
            rect = flow.item_rect(i)
            assert 0 <= rect.top() and rect.bottom() <= flow.viewport().height(), (height, i)
            assert not cut_at_top(flow), (height, i)
        sb.setValue(sb.maximum())                    # the end: its top row whole too
        assert not cut_at_top(flow)
        last = flow.item_rect(len(flow.tokens) - 1)
        assert 0 <= last.top() and last.bottom() <= flow.viewport().height()


def cut_at_top(flow) -> bool:
    """Whether some row of chips is cut by the strip's top edge (a part of it shows)."""
    rows = range(len(flow._row_first))
    tops = [flow.item_rect(flow._row_first[r]).top() for r in rows]
    return any(t < 0 < t + flow.chip_h for t in tops)


def _wheel(widget, notches: int) -> None:
    """``notches`` clicks of a mouse wheel over ``widget`` (negative: down)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent
    at = QPointF(widget.width() / 2, widget.height() / 2)
    QApplication.sendEvent(widget, QWheelEvent(
        at, widget.mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt.NoButton,
        Qt.NoModifier, Qt.NoScrollPhase, False))


@pytest.mark.regression
def test_every_scroll_of_the_ids_strip_lands_on_a_whole_row(qtbot, view, controller):
    """The wheel, paging and dragging the scroll bar scrolled the ids strip by pixels:
    one notch left the row above's bottom half (its labels cut) at the top at 1024x700,
    its last pixel line at 1920x1080. Each lands where a chip brought into view does."""
    from PySide6.QtWidgets import QAbstractSlider
    view.set_text(_long_text(20_000))
    flow = view.flow
    sb = flow.verticalScrollBar()
    qtbot.waitUntil(lambda: sb.maximum() > 0)
    tops = {flow.row_top(r) for r in range(len(flow._row_first))}
    for height in (flow.row_h * 3 // 2, flow.row_h * 2 + flow.row_h // 3, flow.row_h * 4,
                   flow.row_h * 7 + 5):
        flow.setFixedHeight(height + 2 * flow.frameWidth())
        qtbot.waitUntil(lambda: flow.viewport().height() == height)
        sb.setValue(0)
        seen = [0]
        for notches in (-1, -1, -2, 1, -3, 2, 1):
            _wheel(flow.viewport(), notches)
            seen.append(sb.value())
        for action in (QAbstractSlider.SliderPageStepAdd, QAbstractSlider.SliderPageStepAdd,
                       QAbstractSlider.SliderSingleStepAdd, QAbstractSlider.SliderPageStepSub):
            sb.triggerAction(action)
            seen.append(sb.value())
        sb.setSliderDown(True)                       # the handle dragged, pixel by pixel
        for y in range(sb.maximum() // 3, sb.maximum() // 3 + 2 * flow.row_h, 7):
            sb.setSliderPosition(y)
            seen.append(sb.value())
        sb.setSliderDown(False)
        assert len(set(seen)) > 5, height            # it did scroll
        for value in seen:
            assert value in tops or value == sb.maximum(), (height, value)
            sb.setValue(value)
            assert not cut_at_top(flow), (height, value)   # (not a pixel line of it)


def cut_at_bottom(flow) -> bool:
    """Whether some row of chips is cut by the bottom of what the strip draws."""
    image = flow.viewport().grab().toImage()
    h = flow.viewport().height()
    for r in range(len(flow._row_first)):
        rect = flow.item_rect(flow._row_first[r])
        if rect.top() < h <= rect.bottom():          # crosses the bottom: drawn at all?
            x = rect.center().x()
            below = {image.pixel(x, y) for y in range(max(0, rect.top()), h)}
            return len(below) > 1
    return False


@pytest.mark.regression
def test_the_ids_strip_shows_no_row_cut_at_the_bottom(qtbot, view, controller):
    """The ids strip was about 1.7 rows high at 1024x700, its bottom row always cut
    through its labels (a sliver of one at 800x600): it is whole rows high, the rest
    given to the text or taken from it, and a row that would cross its bottom is not
    drawn."""
    view.set_text(_long_text(20_000))
    flow = view.flow
    sb = flow.verticalScrollBar()
    qtbot.waitUntil(lambda: sb.maximum() > 0)
    for height in (300, 331, 420, 517, 700, 1000):
        view.resize(900, height)
        qtbot.waitUntil(lambda: view.height() == height)
        qtbot.waitUntil(lambda: (flow.viewport().height() - GAP) % flow.row_h == 0)
        rows = flow.viewport().height() // flow.row_h
        assert rows >= height // 3 // flow.row_h, height   # its share of the view, kept
        for value in (0, flow.row_top(1), flow.row_top(5), sb.maximum()):
            sb.setValue(value)
            assert not cut_at_bottom(flow) and not cut_at_top(flow), (height, value)
    flow.setFixedHeight(flow.row_h * 8 // 3 + 2 * flow.frameWidth())   # 2 rows and more
    qtbot.waitUntil(lambda: flow.viewport().height() == flow.row_h * 8 // 3)
    for value in (0, flow.row_top(1), flow.row_top(5), sb.maximum()):
        sb.setValue(value)
        assert not cut_at_bottom(flow), value   # drawn whole or not at all


@pytest.mark.regression
def test_a_lit_token_takes_the_marks_of_its_last_letter(qtbot, view, controller, tmp_path):
    """Qwen2's NFC on decomposed text ("cafe" + U+0301): tokenizers' offsets end the token
    of "café" before the mark, so a token lit up to its offset drew the "e" in the
    highlight's colours and lost its accent (seen under Xvfb). The lit range now ends
    where the letter's cluster does, and only there."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import normalizers
    hf = tokenizers.ByteLevelBPETokenizer()
    hf.normalizer = normalizers.NFC()
    hf.train_from_iterator(["café naïve cafe résumé " * 50], vocab_size=300,
                           show_progress=False)
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    assert controller.tokenizer_files.import_tokenizer(str(path)) is not None
    controller.tokenizer_files.set_use_imported(True)
    text = "cafe\u0301 nai\u0308ve x re\u0301sume\u0301"
    view.set_text(text)
    enc = view.encoding
    assert enc.ids == hf.encode(text).ids
    assert enc.offsets == [tuple(o) for o in hf.encode(text).offsets]
    marks = {i for i, c in enumerate(text) if c in "\u0301\u0308"}
    assert any(e in marks for _, e in enc.offsets)   # (a token that ends before a mark)
    for i, (s, e) in enumerate(enc.offsets):
        send_move(view.flow.viewport(), view.flow.item_rect(i).center())
        (lo, hi), = view.links.lit_ranges()
        want = e + 1 if e in marks else e       # the mark after its letter, no further
        assert (lo, hi) == (view.pos_of_char(s), view.pos_of_char(want)), (i, s, e)
