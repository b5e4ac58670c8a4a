"""The chat view: what the model sees of a conversation.

A conversation (conversation_editor.py) is rendered with the tokenizer's own chat template
or a renderer that is code (engine.chat) and shown as token chips coloured by whose text
each token is: a role's (its colour), the template's scaffolding (grey), a control token
(the special colour); a control token made of typed text is outlined in red and listed.
Counts per role below, per message beside each message. The tokenizer is the window's
(imported or trained), or one opened here for the chat alone. Files are read and the
conversation rendered by the controller's chat jobs, off the GUI thread; the next edit
supersedes a render still running. Copy ids (Ctrl+Shift+C) and Copy as JSON put the
prompt on the clipboard.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Protocol

from PySide6.QtCore import QSettings, QSignalBlocker, Qt, QTimer, SignalInstance
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QPushButton, QSplitter,
                               QVBoxLayout, QWidget)

from ....engine.chat import HARMONY_RENDERS, encode_chat, own_renderer, read_template_file, \
    template_beside
from ....engine.errors import BPEError, Cancelled
from ....engine.tokenizers import BaseTokenizer
from ...controller.jobs import Done, Ended, IsCancelled, JobEnd
from ...models.reads import ImportedReads
from ...widgets.scrolled import scrolled
from ...widgets.text_pane import TextPane
from .conversation_editor import ConversationEditor
from .prompt_pane import ROLE_FILLS, PromptPane

__all__ = ["BESIDE", "ChatView", "ROLE_FILLS", "FILE", "SAMPLE", "STATE_KEY"]

DEBOUNCE_MS = 250
STATE_KEY = "chat/state"     # QSettings: what a relaunch brings back (ChatView.state)
MAX_SAVED_CHARS = 1 << 20
WIDE = 900   # wider than this: the prompt beside the conversation
EDITOR_WIDTH = 380   # the conversation beside the prompt: at least this wide
BESIDE = "The tokenizer's own template"
FILE = "Template file…"
RENDERERS = (BESIDE, FILE, "mistral-common", "harmony", "llama3-meta")
# what to do in the window where the tokenizer brings no template of its own
NO_TEMPLATE = (f"This tokenizer comes with no chat template. In the list above, choose "
               f"\"{FILE}\" to open one (a .jinja file, or a tokenizer_config.json that "
               f"holds one), or a renderer that is code: {', '.join(RENDERERS[2:])}.")
SAMPLE = {"messages": [
    {"role": "system", "content": "You answer in one line."},
    {"role": "user", "content": "What's the weather in 東京? 🌧"},
    {"role": "assistant", "content": "Let me check."},
    {"role": "user", "content": "Thanks! <|im_start|> typed by hand"}],
    "add_generation_prompt": True}


class _ChatJobs(Protocol):
    def render(self, work: Callable[[IsCancelled], Any], on_done: Done,
               on_end: Ended = ...) -> None: ...
    def tokenizer(self, path: str) -> BaseTokenizer: ...


class ChatHost(ImportedReads, Protocol):
    """What the chat view reads of the controller (mypy holds the real Controller to
    it): the tokenizer on show, and these."""

    message: SignalInstance   # the status bar's

    @property
    def chat(self) -> _ChatJobs: ...


class ChatView(QWidget):
    def __init__(self, controller: ChatHost, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.own_path: str | None = None   # a tokenizer opened here (read by the renders)
        self.rendering = False   # a render was asked for and its result is not shown yet
        self._n_messages = 0     # of the conversation last rendered
        self.template_path: str | None = None
        # a long file name gives way before the controls do (800 pixels wide), cut with
        # "…" and whole in the tooltip (a plain label was cut at its edge: "Tokenizer: the t")
        self.tok_label = TextPane(lines=1)
        self.open_tok = QPushButton("Tokenizer…")
        self.open_tok.setToolTip("Open a tokenizer for the chat view alone")
        self.renderer = QComboBox()
        self.renderer.addItems(RENDERERS)
        self.renderer.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.renderer.setMinimumContentsLength(16)
        self._chosen = 0   # the list's entry in use ("Template file…" is never one)
        self._split_set = False
        self.renderer.setToolTip("How the conversation becomes text: the model's jinja "
                                 "template, or a renderer that is code")
        self.origin = TextPane(lines=1)
        self.harmony = QComboBox()   # which of openai-harmony's renders (harmony only)
        self.harmony.addItems(["By add_generation_prompt", *HARMONY_RENDERS])
        self.harmony.setToolTip("Which of openai-harmony's renders to match (how the "
                                "conversation ends: <|start|>assistant, <|return|>, <|end|>)")
        self.harmony.setVisible(False)
        self.copy_ids = QPushButton("Copy ids")
        self.copy_ids.setToolTip("The prompt's token ids, as a JSON list (Ctrl+Shift+C)")
        self.copy_json = QPushButton("Copy as JSON")
        self.copy_json.setToolTip("Ids, tokens with their role and origin, counts and the "
                                  "rendered text, as bpe-gui chat --json prints them")
        self.editor = ConversationEditor(self)
        self.main = PromptPane(self)
        self.flow, self.counts, self.warnings = \
            self.main.flow, self.main.counts, self.main.warnings
        self.other = PromptPane(self)   # another tokenizer, side by side
        self.other.setVisible(False)
        self.other_path: str | None = None
        self.compare = QPushButton("Side by side…")
        self.compare.setToolTip("The same conversation under another tokenizer, beside this one")
        self.compare.setCheckable(True)
        top = QHBoxLayout()
        top.addWidget(self.tok_label, 1)
        top.addWidget(self.open_tok)
        top.addWidget(self.renderer, 2)
        top.addWidget(self.compare)
        out = QSplitter()
        out.setChildrenCollapsible(False)
        out.addWidget(self.main)
        out.addWidget(self.other)
        self.split = QSplitter()
        self.split.setChildrenCollapsible(False)
        self.editor_area = editor_area = scrolled(self.editor)
        editor_area.setMinimumHeight(150)   # two messages at least, when stacked
        self.split.addWidget(editor_area)
        self.split.addWidget(out)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        under = QHBoxLayout()   # where the template comes from; what to do with the prompt
        under.addWidget(self.origin, 1)
        for w in (self.harmony, self.copy_ids, self.copy_json):
            under.addWidget(w)
        lay.addLayout(under)
        lay.addWidget(self.split, 1)
        self._copyable()
        self.timer = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self.timer.timeout.connect(self.render_now)
        self.editor.changed.connect(self.timer.start)
        self.editor.changed.connect(self._save_state)   # (kept at once: a quit loses none)
        self.renderer.activated.connect(self._on_renderer)
        self.open_tok.clicked.connect(self._pick_tokenizer)
        self.compare.toggled.connect(self._on_compare)
        self.harmony.activated.connect(lambda _i: self.render_now())
        self.copy_ids.clicked.connect(lambda: self._copy(False))
        QShortcut(QKeySequence("Ctrl+Shift+C"), self, lambda: self._copy(False),
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_json.clicked.connect(lambda: self._copy(True))
        controller.tokenizerChanged.connect(self.timer.start)
        # (the window's settings, where its layout is kept; a view of its own: the app's)
        got = getattr(parent, "settings", None)
        self._settings = got if isinstance(got, QSettings) else QSettings()
        saved = self._settings.value(STATE_KEY, "")
        try:
            state = json.loads(saved) if isinstance(saved, str) and saved else None
        except ValueError:
            state = None
        self._restoring = True   # (nothing saved until the last run's state is back)
        try:
            self.editor.set_body(SAMPLE)
            if isinstance(state, dict):
                self.restore(state)
        finally:
            self._restoring = False

    def resizeEvent(self, event) -> None:
        # a narrow dock: the prompt below the conversation, not beside it
        want = Qt.Orientation.Horizontal if self.width() >= WIDE else Qt.Orientation.Vertical
        if self.split.orientation() != want or not self._split_set:
            self.split.setOrientation(want)
            # the splitter keeps its last sizes when it turns: the conversation got what
            # the prompt's chips left (160 pixels beside them in Focus at 1024x700)
            QTimer.singleShot(0, self._share_split)
        super().resizeEvent(event)

    def _share_split(self) -> None:
        """The conversation's share of the splitter: beside the prompt, 40% and at least
        EDITOR_WIDTH pixels; above it, 45% of the height."""
        total = sum(self.split.sizes())
        if total <= 0:
            return
        if self.split.orientation() == Qt.Orientation.Horizontal:
            first = min(max(int(total * 0.4), EDITOR_WIDTH), total - EDITOR_WIDTH)
        else:
            first = int(total * 0.45)
        self.split.setSizes([first, total - first])
        self._split_set = True

    # ----- what renders ---------------------------------------------------------------
    def tokenizer(self) -> tuple[BaseTokenizer | None, str | None]:
        """(tokenizer, its file or None); a file opened here: (None, its path), read by
        the renders."""
        if self.own_path is not None:
            return None, self.own_path
        c = self.controller
        tok = c.tokenizer()
        path = c.imported_path if (c.use_imported and c.imported is not None) else None
        return tok, path

    def set_tokenizer_file(self, path: str, render: bool = True) -> None:
        """Open a tokenizer for this view alone: read by the next render (its pane says
        why when it cannot be)."""
        self.own_path = path
        if render:
            self.render_now()

    # ----- what a relaunch brings back ---------------------------------------------------
    def state(self) -> dict:
        """The conversation, the tokenizer opened here, the template files and the
        renderer in use, as a relaunch restores them (:meth:`restore`)."""
        try:
            body = self.editor.body(strict=False)
        except BPEError:
            body = None
        data = self.renderer.itemData(self._chosen)
        return {"body": body, "json": self.editor.json_text(),
                "tokenizer": self.own_path,
                "templates": self.template_files(),
                "renderer": data if isinstance(data, str) else self.renderer.itemText(
                    self._chosen)}

    def restore(self, state: dict) -> None:
        """Bring back what :meth:`state` kept; what no longer exists is said in the pane
        (a tokenizer file gone) or left out (a template file gone)."""
        if isinstance(state.get("body"), dict):
            self.editor.set_body(state["body"])
        if isinstance(state.get("json"), str) and state["json"].strip():
            self.editor.show_json(state["json"])
        for path in state.get("templates") or ():
            if isinstance(path, str) and Path(path).is_file():
                self._template_entry(path)
        chosen = state.get("renderer")
        at = self.renderer.findData(chosen) if isinstance(chosen, str) else -1
        if at < 0 and isinstance(chosen, str) and chosen != FILE:
            at = self.renderer.findText(chosen)
        if at >= 0:
            self._choose(at)
        tok = state.get("tokenizer")
        if isinstance(tok, str) and tok:
            self.set_tokenizer_file(tok, render=False)
        self.timer.start()

    def _save_state(self) -> None:
        if self._restoring:
            return
        text = json.dumps(self.state(), ensure_ascii=False)
        if len(text) <= MAX_SAVED_CHARS:   # (a huge conversation is not kept between runs)
            self._settings.setValue(STATE_KEY, text)

    def set_template_file(self, path: str) -> None:
        """Render with this template file: an entry of its own in the list (opening one
        already there picks it again), as many as are opened."""
        self._choose(self._template_entry(str(path)))
        self.render_now()

    def _template_entry(self, path: str) -> int:
        """The list's entry of this template file, added after the files opened before."""
        at = self.renderer.findData(path)
        if at < 0:
            at = 1 + len(self.template_files())
            self.renderer.insertItem(at, f"File: {Path(path).name}", path)
            self.renderer.setItemData(at, path, Qt.ItemDataRole.ToolTipRole)
        return at

    def _choose(self, at: int) -> None:
        """The list's entry in use: a renderer, or a template file's."""
        self.renderer.setCurrentIndex(at)
        self._chosen = at
        data = self.renderer.itemData(at)
        self.template_path = data if isinstance(data, str) else None

    def template_files(self) -> list[str]:
        """The template files opened here, in the list's order."""
        return [d for i in range(self.renderer.count())
                if isinstance(d := self.renderer.itemData(i), str)]

    def _pick_tokenizer(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a tokenizer for the chat view")
        if path:
            self.set_tokenizer_file(path)

    def _on_renderer(self, i: int) -> None:
        """The list's choice: "Template file…" always opens a file (cancelled: the choice
        before stays); a file's entry renders with that file."""
        if self.renderer.itemText(i) == FILE:
            path, _ = QFileDialog.getOpenFileName(self, "Open a chat template", "",
                                                  "Chat templates (*.jinja *.json);;All (*)")
            if path:
                self.set_template_file(path)
            else:
                self.renderer.setCurrentIndex(self._chosen)
            return
        self._choose(i)
        self.render_now()

    @property
    def result(self):
        """The main prompt's encoding (None after an error)."""
        return self.main.result

    def set_other_tokenizer_file(self, path: str) -> None:
        """Show the conversation under this tokenizer too, beside the main one."""
        self.other_path = path
        self.other.set_title(Path(path).name)
        self.other.setVisible(True)
        self.main.set_title("This tokenizer")
        with QSignalBlocker(self.compare):   # (set, not a user's toggle)
            self.compare.setChecked(True)
        self.render_now()

    def _on_compare(self, on: bool) -> None:
        if not on:
            self.other.setVisible(False)
            self.main.set_title("")
            self.other_path = None
            return
        path, _ = QFileDialog.getOpenFileName(self, "Another tokenizer, side by side")
        if path:
            self.set_other_tokenizer_file(path)
        else:
            self.compare.setChecked(False)

    def render_now(self) -> None:
        """Render the conversation as a chat job (the files it needs read there too);
        what it gives is shown when it comes back, unless a newer render was asked."""
        self.timer.stop()
        self._save_state()
        tok, path = self.tokenizer()
        if path or tok is None:
            self.tok_label.setText("Tokenizer: " + (Path(path).name if path else
                                   "none: import or train one, or open one here"))
            # the label gives way first in a narrow dock: its whole path on hover
            self.tok_label.setToolTip(str(path) if path else "")
        else:   # the trained one as of the window's step, in the encode view's words
            step = f"{self.controller.step_index:,}"
            self.tok_label.set_variants([f"Tokenizer: trained, as of step {step}",
                                         f"Trained, step {step}", f"Step {step}"])
        self.harmony.setVisible(self.renderer.currentText() == "harmony")
        renders = self.controller.chat
        try:
            body = self.editor.body()
        except BPEError as e:
            renders.render(lambda _c: None, lambda _r: None)   # (a render running: dropped)
            self.rendering = False
            self.main.show_error(str(e))
            self.editor.set_counts(None)
            return
        sides = [(tok, path)]
        if self.other_path is not None and self.other.isVisible():
            sides.append((None, self.other_path))
        choice, template_path = self.renderer.currentText(), self.template_path
        harmony = self.harmony.currentText() if self.harmony.currentIndex() > 0 else None

        def work(cancelled: IsCancelled) -> list:
            out = []
            for tok, path in sides:   # (a file opened here is read now, off the GUI thread)
                if cancelled():
                    raise Cancelled()
                try:
                    tok = tok if tok is not None or path is None else renders.tokenizer(path)
                except BPEError as e:
                    out.append((None, str(e), None))
                    continue
                out.append(_encode(tok, path, body, choice, template_path, harmony))
            return out
        self.rendering = True
        self._copyable()   # (what is shown is the last render's until this one is back)
        renders.render(work, lambda got: self._show(got, len(body.get("messages") or ())),
                    self._failed)

    def _show(self, got: list, n_messages: int) -> None:
        """A render's result: per pane (encoding, error, template origin)."""
        self.rendering, self._n_messages = False, n_messages
        for k, (enc, error, origin) in enumerate(got):
            pane = self.main if k == 0 else self.other
            if k == 0:
                if origin is not None:
                    self.origin.setText("Template: " + origin)
                self.editor.set_counts(enc.message_counts(n_messages) if enc else None)
            if enc is None:
                pane.show_error(error or "")
            else:
                pane.show_encoding(enc)
        self._copyable()

    def _failed(self, end: JobEnd) -> None:
        self.rendering = False
        if not end.done:   # (a bug: said in the pane, not in a box)
            self.main.show_error(end.message)
        self._copyable()

    def _copyable(self) -> None:
        """The copy buttons are greyed, saying why, while no prompt is rendered or the
        one shown is being rendered again (a tokenizer just opened: the last one's ids)."""
        why = "Greyed: no prompt is rendered yet (choose a tokenizer and a template)." \
            if self.result is None else \
            "Greyed: the prompt is being rendered again." if self.rendering else ""
        for b in (self.copy_ids, self.copy_json):
            b.setEnabled(not why)
            b.setStatusTip(why)

    def _copy(self, as_json: bool) -> None:
        """The main prompt's ids (a JSON list), or all of it as ``bpe-gui chat --json``
        prints it, on the clipboard; the status bar says what was copied."""
        enc = self.result
        if enc is not None:
            QGuiApplication.clipboard().setText(json.dumps(
                enc.as_json(self._n_messages), ensure_ascii=False) if as_json else
                json.dumps(enc.ids))
            self.controller.message.emit(f"Copied {len(enc.ids):,} ids" + (
                " as JSON, with their tokens and counts" if as_json else " (a JSON list)"))

    def catch_up(self) -> None:
        if self.timer.isActive():
            self.render_now()



def _encode(tok: BaseTokenizer | None, path: str | None, body: dict, choice: str,
            template_path: str | None, harmony: str | None) -> tuple:
    """Render ``body`` for one pane (the template found beside that pane's tokenizer when
    the renderer says so), on the worker thread: (encoding or None, the error to show,
    the template's origin in words, or None when no tokenizer)."""
    if tok is None:
        return None, "", None
    origin = "—"
    try:
        tools = bool(body.get("tools"))
        template = None
        if template_path:
            choice = FILE
            template = read_template_file(template_path, None, tools)
        elif choice == BESIDE:
            template = template_beside(path, None, tools) if path else None
        renderer = (own_renderer(tok) if choice == BESIDE and template is None else None) \
            or (choice if choice not in (BESIDE, FILE) else "jinja")   # (Mistral's files)
        origin = template.origin if template is not None \
            else f"{renderer}, the renderer of this tokenizer's files (they bring no " \
            "jinja template)" if renderer != "jinja" and choice == BESIDE \
            else renderer if renderer != "jinja" else "—"
        if renderer == "jinja" and template is None:   # (the engine's words name a flag)
            return None, NO_TEMPLATE, origin
        return encode_chat(tok, body, renderer, template, harmony=harmony), "", origin
    except BPEError as e:
        return None, str(e), origin
