"""The window's views that the state machine (test_window_machine.py) walks beside the
charts, and what each should show, worked out apart from them.

- the Chat view, rendering with one of two template files written here (each opened
  gets an entry of its own; switching between them and to the tokenizer's own): its
  prompt is the file in use rendered by jinja2 itself (trim and lstrip blocks, as
  transformers runs templates) and encoded afresh by the tokenizer the window uses; its
  messages are the turns the machine added or removed, through the rows or through Edit
  as JSON; after a relaunch, the same conversation, template and JSON mode; its chips
  escape every character the injected glyph check says no font draws (here: Han);
- Compare, in the compact layout of an 800x600 window's dock (about 470 by 400 pixels):
  side A ("Current step") counts the tokens the engine's tokenizer at that step makes of
  the compare text;
- the status bar's turn label: shown for a parity run only, each language's turns
  counted from a parity run made afresh to the step shown;
- the corpus editor, for Corpus > Clear (its question answered by the machine);
- the encode view, shown all along (as in the window: it follows each step merge by
  merge, and re-encodes after a far jump): its chips' tokens and ids, and the colour
  runs its text is drawn in, against the engine's encoding of its text at the step
  shown (token groups alternating along each line, as test_encode_incremental.py's
  ``parity_oracle`` works them out).
"""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import jinja2
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from bpe_gui.engine.display import is_partial, readable
from bpe_gui.gui.models.glyphs import Glyphs
from bpe_gui.gui.panels.chat.chat_view import BESIDE, SAMPLE, STATE_KEY, ChatView
from bpe_gui.gui.panels.compare.compare_view import CompareView
from bpe_gui.gui.panels.corpus.corpus_editor import CorpusEditor
from bpe_gui.gui.panels.encode.encode_view import EncodeView
from test_encode_incremental import parity_oracle
from bpe_gui.gui.window.status import StatusBar

CHAT_TEMPLATE = ("{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
                 "{% if add_generation_prompt %}[assistant] {% endif %}")
# a second file: filters, a variable nothing defines (printed empty, as jinja2 prints it)
CHAT_TEMPLATE_B = ("{{ bos_token }}{% for m in messages %}<{{ m.role | upper }}>"
                   "{{ m.content | trim }}{% endfor %}"
                   "{% if add_generation_prompt %}<ASSISTANT>{% endif %}")
COMPACT = (470, 400)   # Compare's dock at 800x600, where its layout turns compact
# the encode view's text: a special-looking word, Chinese and an emoji (characters split
# into bytes until merged), two lines (a group's colour restarts on each)
ENCODE_TEXT = ("The lower widest newest: 最新的 low-lying words, 42 times.\n"
               "新词 lowest 😀 naïve <|endoftext|> widest")


def is_han(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("CJK UNIFIED")


def no_han_glyphs() -> Glyphs:
    """The application's glyph check as on a machine without a CJK font."""
    return Glyphs(has_glyph=lambda ch: not is_han(ch))


def han_escaped(text: str) -> str:
    return "".join(c.encode("unicode_escape").decode("ascii") if is_han(c) else c
                   for c in text)


class Views:
    """One window's views of a controller, made as the window makes them: the status
    bar at once; the chat, Compare and the corpus editor when first used (tabs behind
    the others until looked at; made earlier they cost a sequence three times as much)."""

    def __init__(self, c, templates: dict[str, Path], before: "Views | None" = None):
        """``templates``: the two template files by key; ``before``: the views of the
        window before a relaunch, whose chat this one's restores (None: a first start)."""
        self.c, self.templates = c, templates
        self.host = QMainWindow()   # the status bar's window, wide: the whole turn line
        self.status = StatusBar(self.host, c, recent=None, update_actions=lambda: None)
        self.status.follow()
        self.host.resize(1920, 80)
        self.host.show()
        self._chat: ChatView | None = None
        self._compare: CompareView | None = None
        self._editor: CorpusEditor | None = None
        self.turns = [dict(m) for m in SAMPLE["messages"]]   # what the chat should hold
        self.encode = EncodeView(c)   # shown all along: it follows every step
        self.encode.resize(800, 400)
        self.encode.set_text(ENCODE_TEXT)
        self.encode.show()
        self.template = "a"     # the template file in use (None: the tokenizer's own)
        self.opened = ["a"]     # the files opened, in the list's order
        self.json_on = False
        if before is not None:   # (what its chat held, or, never made, the defaults)
            self.turns = [dict(m) for m in before.turns]
            self.template, self.opened = before.template, list(before.opened)
            self.json_on = before.json_on

    def go_quiet(self) -> None:
        """The window of before a relaunch has quit: nothing of it runs on (its chat's
        render still waiting on its timer would save that chat over the new one's)."""
        if self._chat is not None:
            self._chat.timer.stop()
            self._chat.timer.blockSignals(True)
            self._chat.editor.blockSignals(True)

    def all(self) -> list:
        return [w for w in (self._chat, self._compare, self.host, self._editor, self.encode)
                if w is not None]

    @property
    def chat(self) -> ChatView:
        if self._chat is None:
            first_start = not QSettings().contains(STATE_KEY)   # (else a relaunch's)
            self._chat = ChatView(self.c)
            self._chat.resize(800, 500)
            if first_start:
                self._chat.set_template_file(str(self.templates["a"]))
        return self._chat

    @property
    def compare(self) -> CompareView:
        if self._compare is None:
            self._compare = CompareView(self.c)
            self._compare.resize(*COMPACT)
        return self._compare

    @property
    def editor(self) -> CorpusEditor:
        if self._editor is None:
            self._editor = CorpusEditor(self.c)
        return self._editor

    # ----- chat ----------------------------------------------------------------------
    @staticmethod
    def fresh_install() -> None:
        """No chat kept from an earlier run (each sequence starts as a first start)."""
        QSettings().remove(STATE_KEY)

    def _json_edit(self, change) -> None:
        """Change the request body as a user does in the JSON editor: its text parsed,
        changed, written back."""
        edit = self.chat.editor.json_edit
        body = json.loads(edit.toPlainText())
        change(body)
        edit.setPlainText(json.dumps(body, ensure_ascii=False, indent=2))

    def add_turn(self, role: str, text: str) -> None:
        if self.json_on:
            self._json_edit(lambda b: b["messages"].append({"role": role, "content": text}))
        else:
            self.chat.editor.add_message({"role": role, "content": text})
        self.turns.append({"role": role, "content": text})

    def remove_turn(self) -> None:
        if not self.turns:
            return
        if self.json_on:
            self._json_edit(lambda b: b["messages"].pop())
        else:
            rows = self.chat.editor.rows
            rows[-1].removeRequested.emit(rows[-1])   # its × button
        self.turns.pop()

    def toggle_json(self) -> None:
        """Edit as JSON, on or off (its button clicked)."""
        self.chat.editor.as_json.click()
        self.json_on = not self.json_on

    def pick_template(self, which: str | None) -> None:
        """A template file's entry (opened the first time, as the file picker opens it),
        or the tokenizer's own (None)."""
        chat = self.chat
        if which is None:
            at = chat.renderer.findText(BESIDE)
        else:
            path = str(self.templates[which])
            if which not in self.opened:
                chat.set_template_file(path)   # (what "Template file…" does once picked)
                self.opened.append(which)
                self.template = which
                return
            at = chat.renderer.findData(path)
        chat.renderer.setCurrentIndex(at)
        chat.renderer.activated.emit(at)   # as a pick does
        self.template = which

    @staticmethod
    def look_at(view) -> None:
        """Raise its tab: shown, it catches up (what the window calls on raising it)."""
        view.show()
        view.catch_up()

    def check_chat(self, fresh) -> None:
        """``fresh``: the window's tokenizer made afresh (None: not known here)."""
        chat = self.chat
        self.look_at(chat)
        from PySide6.QtTest import QTest
        for _ in range(4000):   # (a render is a job: its result comes back later)
            if not chat.rendering:
                break
            QTest.qWait(5)
        assert not chat.rendering, "the chat's render never came back"
        msgs = chat.editor.body(strict=False).get("messages") or []
        assert [(m["role"], m["content"]) for m in msgs] == \
            [(m["role"], m["content"]) for m in self.turns], "the chat lost a turn"
        if not self.turns:   # nothing to render: it says so, and shows no tokens
            assert chat.result is None
            if chat.tokenizer()[0] is not None:   # no messages, or first no template
                said = chat.warnings.text()
                assert "messages" in said or "no chat template" in said, said
            assert not chat.flow.tokens
            chat.hide()
            return
        want_path = None if self.template is None else str(self.templates[self.template])
        assert chat.template_path == want_path, "the chat renders with another template"
        assert chat.editor.as_json.isChecked() == self.json_on
        assert [chat.renderer.itemData(i) for i in range(chat.renderer.count())
                if chat.renderer.itemData(i)] == [str(self.templates[k]) for k in self.opened]
        if fresh is None or want_path is None:
            chat.hide()
            return
        prompt = jinja2.Environment(trim_blocks=True, lstrip_blocks=True).from_string(
            Path(want_path).read_text(encoding="utf-8")).render(
            messages=self.turns, add_generation_prompt=True)
        enc = chat.result
        assert enc is not None, chat.warnings.text()
        assert enc.text == prompt, "the chat shows another prompt"
        assert enc.ids == fresh.encode(prompt, allowed_special="all",
                                       add_special_tokens=False), \
            "the chat's prompt is cut otherwise than by the window's tokenizer"
        assert chat.counts.text().startswith(f"{len(enc.ids):,} tokens")
        for piece in chat.flow.tokens:
            assert chat.flow.text_of(piece) == han_escaped(readable(piece)), \
                "a chip shows a character no font draws"
        chat.hide()   # another tab in front again

    # ----- compare -------------------------------------------------------------------
    def check_compare(self, trained) -> None:
        """``trained``: the tokenizer of the steps shown, made afresh (None: unknown)."""
        view = self.compare
        self.look_at(view)
        if view._timer.isActive():   # its debounce: what it runs when the timer fires
            view.compare_now()
        if trained is None:
            view.hide()
            return
        text = view.shown_text()
        n = len(trained.encode(text, allowed_special="all", add_special_tokens=False))
        caption = view.pane_a.caption.text()
        got = re.search(r"(\d[\d,]*) tokens", caption)
        assert got is not None and int(got.group(1).replace(",", "")) == n, \
            f"Compare's side A counts {caption!r}, the engine {n}"
        assert view.pane_a.view.isHidden() == view.compact
        view.hide()

    # ----- the encode view ----------------------------------------------------------
    def check_encode(self, tok) -> None:
        """``tok``: the tokenizer of the step shown, made afresh (else the window's own,
        encoding the whole text at once: the view follows steps merge by merge)."""
        view = self.encode
        if view._timer.isActive():   # its debounce: what it runs when the timer fires
            view.encode_now()
        if tok is None or view.tok is None:
            return
        text = view.text()
        want = tok.encode_with_offsets(text, allowed_special="all", add_special_tokens=False)
        assert list(view.flow.ids) == list(want.ids), "the chips' ids are not the engine's"
        assert list(view.flow.tokens) == list(want.tokens), "the chips show other tokens"
        assert [f if f < 0 else f % 5 for f in view.format_kinds()] == \
            formats_of(text, want), "the text is coloured by other token boundaries"

    # ----- the turn label --------------------------------------------------------------
    def check_turns(self, want: dict[str, int] | None) -> None:
        """``want``: each language's turns (None: no parity run is shown; none at
        step 0)."""
        label = self.status.turns_label
        if not want:
            assert label.isHidden(), f"a turn label without a parity run: {label.text()}"
            return
        assert not label.isHidden()
        shown = label.text().removeprefix("turns: ")
        got = {name: int(n.replace(",", ""))
               for name, n in (p.rsplit(" ", 1) for p in shown.split(" · "))}
        assert got == {k: v for k, v in want.items() if v}, shown


def turns_of(records, names) -> dict[str, int]:
    out: dict[str, int] = {}
    for rec in records:
        key = "global" if rec.language is None else names[rec.language]
        out[key] = out.get(key, 0) + 1
    return out


def formats_of(text: str, enc) -> list[int]:
    """The format each character of ``text`` should be drawn in (the encode view's
    ``format_kinds``, its training-on marks left aside): groups of tokens that share a
    character alternate 0/1 along a line, 2/3 where the group splits a character, 4 a
    special token; -1 a line break (it ends a block, drawn in none). One entry per
    position of the text box's document: two for a character outside the BMP."""
    lines = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    groups = parity_oracle(enc.offsets, lines)
    out = [-1] * len(text)
    for i, ((s, e), token) in enumerate(zip(enc.offsets, enc.tokens)):
        special = bool(enc.special and enc.special[i])
        fmt = 4 if special else (2 if is_partial(token) else 0) + groups[i]
        for ch in range(s, e):
            if text[ch] != "\n":
                out[ch] = fmt
    return [f for c, f in zip(text, out) for _ in range(1 + (ord(c) > 0xFFFF))]
