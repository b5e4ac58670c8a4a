"""The chat view: what the model sees of a conversation.

A conversation (conversation_editor.py) is rendered with the tokenizer's own chat template
or a renderer that is code (engine.chat) and shown as token chips coloured by whose text
each token is: a role's (its colour), the template's scaffolding (grey), a control token
(the special colour); a control token made of typed text is outlined in red and listed.
Counts per role below, per message beside each message. The tokenizer is the window's
(imported or trained), or one opened here for the chat alone.
"""
from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QHBoxLayout, QPushButton,
                               QScrollArea, QSplitter, QVBoxLayout, QWidget)

from ....engine.chat import encode_chat, own_renderer, read_template_file, template_beside
from ....engine.errors import BPEError
from ...widgets.text_pane import TextPane
from .conversation_editor import ConversationEditor
from .prompt_pane import ROLE_FILLS, PromptPane

__all__ = ["BESIDE", "ChatView", "ROLE_FILLS", "FILE", "SAMPLE", "STATE_KEY"]

DEBOUNCE_MS = 250
STATE_KEY = "chat/state"     # QSettings: what a relaunch brings back (ChatView.state)
MAX_SAVED_CHARS = 1 << 20
WIDE = 900   # wider than this: the prompt beside the conversation
EDITOR_WIDTH = 380   # the conversation beside the prompt: at least this wide
BESIDE = "Template that comes with the tokenizer"
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


class ChatView(QWidget):
    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.own_tok = None            # a tokenizer opened here, and its path
        self.own_path: str | None = None
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
        self.editor = ConversationEditor(self)
        self.main = PromptPane(self)
        self.flow, self.counts, self.warnings = \
            self.main.flow, self.main.counts, self.main.warnings
        self.other = PromptPane(self)   # another tokenizer, side by side
        self.other.setVisible(False)
        self.other_tok = None
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
        self.editor_area = editor_area = self._scrolled(self.editor)
        editor_area.setMinimumHeight(150)   # two messages at least, when stacked
        self.split.addWidget(editor_area)
        self.split.addWidget(out)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.origin)
        lay.addWidget(self.split, 1)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.render_now)
        self.editor.changed.connect(self.timer.start)
        self.editor.changed.connect(self._save_state)   # (kept at once: a quit loses none)
        self.renderer.activated.connect(self._on_renderer)
        self.open_tok.clicked.connect(self._pick_tokenizer)
        self.compare.toggled.connect(self._on_compare)
        controller.tokenizerChanged.connect(self.timer.start)
        self._restore_tok: str | None = None
        self._failed_tok: str | None = None
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

    @staticmethod
    def _scrolled(widget: QWidget) -> QScrollArea:
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidget(widget)
        return area

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
    def tokenizer(self):
        """(tokenizer, its file or None)."""
        if self._restore_tok is not None:   # (the last run's, opened when first needed)
            path, self._restore_tok = self._restore_tok, None
            self.set_tokenizer_file(path, render=False)
        if self.own_tok is not None:
            return self.own_tok, self.own_path
        c = self.controller
        tok = c.tokenizer()
        path = c.imported_path if (c.use_imported and c.imported is not None) else None
        return tok, path

    def set_tokenizer_file(self, path: str, render: bool = True) -> None:
        """Open a tokenizer for this view alone (a message says why not)."""
        from ....engine.formats import load_tokenizer
        try:
            self.own_tok = load_tokenizer(path)
            self.own_path = path
        except BPEError as e:
            self.own_tok = self.own_path = None
            self.main.show_error(str(e))
            self._failed_tok = str(e)
            return
        self._failed_tok = None
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
                "tokenizer": self.own_path or self._restore_tok,
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
                at = 1 + len(self.template_files())
                self.renderer.insertItem(at, f"File: {Path(path).name}", path)
                self.renderer.setItemData(at, path, Qt.ItemDataRole.ToolTipRole)
        chosen = state.get("renderer")
        at = self.renderer.findData(chosen) if isinstance(chosen, str) else -1
        if at < 0 and isinstance(chosen, str) and chosen != FILE:
            at = self.renderer.findText(chosen)
        if at >= 0:
            self.renderer.setCurrentIndex(at)
            self._chosen = at
            data = self.renderer.itemData(at)
            self.template_path = data if isinstance(data, str) else None
        tok = state.get("tokenizer")
        self._restore_tok = tok if isinstance(tok, str) and tok else None
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
        path = str(path)
        at = self.renderer.findData(path)
        if at < 0:
            at = 1 + len(self.template_files())   # (after the files opened before)
            self.renderer.insertItem(at, f"File: {Path(path).name}", path)
            self.renderer.setItemData(at, path, Qt.ItemDataRole.ToolTipRole)
        self.renderer.setCurrentIndex(at)
        self._chosen = at
        self.template_path = path
        self.render_now()

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
        self._chosen = i
        data = self.renderer.itemData(i)
        self.template_path = data if isinstance(data, str) else None
        self.render_now()

    @property
    def result(self):
        """The main prompt's encoding (None after an error)."""
        return self.main.result

    def set_other_tokenizer_file(self, path: str) -> None:
        """Show the conversation under this tokenizer too, beside the main one."""
        from ....engine.formats import load_tokenizer
        try:
            self.other_tok, self.other_path = load_tokenizer(path), path
        except BPEError as e:
            self.other.show_error(str(e))
        self.other.set_title(Path(path).name)
        self.other.setVisible(True)
        self.main.set_title("This tokenizer")
        self.compare.blockSignals(True)
        self.compare.setChecked(True)
        self.compare.blockSignals(False)
        self.render_now()

    def _on_compare(self, on: bool) -> None:
        if not on:
            self.other.setVisible(False)
            self.main.set_title("")
            self.other_tok = None
            return
        path, _ = QFileDialog.getOpenFileName(self, "Another tokenizer, side by side")
        if path:
            self.set_other_tokenizer_file(path)
        else:
            self.compare.setChecked(False)

    def render_now(self) -> None:
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
        try:
            body = self.editor.body()
        except BPEError as e:
            self.main.show_error(str(e))
            self.editor.set_counts(None)
            return
        n = len(body.get("messages") or ())
        enc = self._render(self.main, tok, path, body, main=True)
        self.editor.set_counts(enc.message_counts(n) if enc is not None else None)
        if self.other_tok is not None and self.other.isVisible():
            self._render(self.other, self.other_tok, self.other_path, body, main=False)

    def _render(self, pane: PromptPane, tok, path, body: dict, main: bool):
        """Render ``body`` for one pane (the template found beside that pane's tokenizer
        when the renderer says so); its encoding, or None after showing the error."""
        if tok is None:
            pane.show_error((self._failed_tok or "") if main else "")
            return None
        choice = self.renderer.currentText()
        try:
            tools = bool(body.get("tools"))
            template = None
            if self.template_path:
                choice = FILE
                template = read_template_file(self.template_path, None, tools)
            elif choice == BESIDE:
                template = template_beside(path, None, tools) if path else None
            renderer = choice if choice not in (BESIDE, FILE) else "jinja"
            if choice == BESIDE and template is None and own_renderer(tok):
                renderer = own_renderer(tok)   # (Mistral's files: mistral-common renders them)
            if main:
                self.origin.setText("Template: " + (
                    template.origin if template is not None
                    else f"{renderer}, the renderer of this tokenizer's files (they bring no "
                    "jinja template)" if renderer != "jinja" and choice == BESIDE
                    else renderer if renderer != "jinja" else "—"))
            if renderer == "jinja" and template is None:   # (the engine's words name a flag)
                pane.show_error(NO_TEMPLATE)
                return None
            enc = encode_chat(tok, body, renderer, template)
        except BPEError as e:
            pane.show_error(str(e))
            return None
        pane.show_encoding(enc)
        return enc

    def catch_up(self) -> None:
        if self.timer.isActive():
            self.render_now()

