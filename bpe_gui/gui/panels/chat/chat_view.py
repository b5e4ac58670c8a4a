"""The chat view: what the model sees of a conversation.

A conversation (conversation_editor.py) is rendered with the tokenizer's own chat template
or a renderer that is code (engine.chat) and shown as token chips coloured by whose text
each token is: a role's (its colour), the template's scaffolding (grey), a control token
(the special colour); a control token made of typed text is outlined in red and listed.
Counts per role below, per message beside each message. The tokenizer is the window's
(imported or trained), or one opened here for the chat alone.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QHBoxLayout, QLabel,
                               QPushButton, QScrollArea, QSizePolicy, QSplitter, QVBoxLayout,
                               QWidget)

from ....engine.chat import encode_chat, read_template_file, template_beside
from ....engine.display import is_partial, readable
from ....engine.errors import BPEError
from ...models.roles import TokenColors, is_dark
from ...widgets.token_flow import PARTIAL, PLAIN, SPECIAL, TokenFlow
from .conversation_editor import ConversationEditor

DEBOUNCE_MS = 250
WIDE = 900   # wider than this: the prompt beside the conversation
BESIDE = "Template that comes with the tokenizer"
FILE = "Template file…"
RENDERERS = (BESIDE, FILE, "mistral-common", "harmony", "llama3-meta")
# role -> (light, dark) chip fill
ROLE_FILLS = {"system": ("#e4d4f7", "#4a3566"), "developer": ("#e4d4f7", "#4a3566"),
              "user": ("#cfe3ff", "#23466f"), "assistant": ("#cdeccf", "#1f5a3a"),
              "tool": ("#ffe1ae", "#5b4318"), "tools": ("#fff3c4", "#4d4417"),
              "documents": ("#fff3c4", "#4d4417"), "template": ("#e6e6e6", "#3a3a3a")}
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
        self.result = None
        self.tok_label = QLabel()
        # a long file name gives way before the controls do (800 pixels wide)
        self.tok_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.open_tok = QPushButton("Tokenizer…")
        self.open_tok.setToolTip("Open a tokenizer for the chat view alone")
        self.renderer = QComboBox()
        self.renderer.addItems(RENDERERS)
        self.renderer.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.renderer.setMinimumContentsLength(16)
        self.renderer.setToolTip("How the conversation becomes text: the model's jinja "
                                 "template, or a renderer that is code")
        self.origin = QLabel()
        self.origin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editor = ConversationEditor(self)
        self.flow = TokenFlow(self)
        self.flow.set_mark_color(QColor("#d62728"))
        self.flow.tip_of = self._tip
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #d62728;")
        top = QHBoxLayout()
        top.addWidget(self.tok_label, 1)
        top.addWidget(self.open_tok)
        top.addWidget(self.renderer, 2)
        out = QWidget()
        out_lay = QVBoxLayout(out)
        out_lay.setContentsMargins(0, 0, 0, 0)
        out_lay.addWidget(self.flow, 1)
        out_lay.addWidget(self.counts)
        out_lay.addWidget(self.warnings)
        self.split = QSplitter()
        self.split.setChildrenCollapsible(False)
        editor_area = self._scrolled(self.editor)
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
        self.renderer.activated.connect(self._on_renderer)
        self.open_tok.clicked.connect(self._pick_tokenizer)
        controller.tokenizerChanged.connect(self.timer.start)
        self.editor.set_body(SAMPLE)

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
        if self.split.orientation() != want:
            self.split.setOrientation(want)
        super().resizeEvent(event)

    # ----- what renders ---------------------------------------------------------------
    def tokenizer(self):
        """(tokenizer, its file or None)."""
        if self.own_tok is not None:
            return self.own_tok, self.own_path
        c = self.controller
        tok = c.tokenizer()
        path = c.imported_path if (c.use_imported and c.imported is not None) else None
        return tok, path

    def set_tokenizer_file(self, path: str) -> None:
        """Open a tokenizer for this view alone (a message says why not)."""
        from ....engine.formats import load_tokenizer
        try:
            self.own_tok = load_tokenizer(path)
            self.own_path = path
        except BPEError as e:
            self._show_error(str(e))
            return
        self.render_now()

    def set_template_file(self, path: str) -> None:
        self.template_path = path
        self.renderer.setCurrentText(FILE)
        self.render_now()

    def _pick_tokenizer(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a tokenizer for the chat view")
        if path:
            self.set_tokenizer_file(path)

    def _on_renderer(self, _i: int) -> None:
        if self.renderer.currentText() == FILE and self.template_path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open a chat template", "",
                                                  "Chat templates (*.jinja *.json);;All (*)")
            if not path:
                self.renderer.setCurrentText(BESIDE)
                return
            self.template_path = path
        self.render_now()

    def render_now(self) -> None:
        self.timer.stop()
        tok, path = self.tokenizer()
        self.tok_label.setText("Tokenizer: " + (Path(path).name if path else
                                               "the trained one" if tok is not None else
                                               "none: import or train one, or open one here"))
        if tok is None:
            return self._show_error("")
        choice = self.renderer.currentText()
        try:
            body = self.editor.body()
            tools = bool(body.get("tools"))
            template = None
            if choice == FILE and self.template_path:
                template = read_template_file(self.template_path, None, tools)
            elif choice == BESIDE:
                template = template_beside(path, None, tools) if path else None
            renderer = choice if choice not in (BESIDE, FILE) else "jinja"
            self.origin.setText("Template: " + (template.origin if template is not None
                                                else renderer if renderer != "jinja" else "—"))
            self.result = encode_chat(tok, body, renderer, template)
        except BPEError as e:
            return self._show_error(str(e))
        self._show(self.result, len(body.get("messages") or ()))

    # ----- showing ----------------------------------------------------------------------
    def _show_error(self, message: str) -> None:
        self.result = None
        self.flow.set_tokens([], [], [])
        self.counts.setText("")
        self.warnings.setText(message)
        self.editor.set_counts(None)

    def _show(self, enc, n_messages: int) -> None:
        dark = is_dark(self.palette())
        fills, kinds = [], []
        colors = TokenColors.for_palette(self.palette())
        for t in enc.tokens:
            if t.origin == "special":
                fills.append(colors.special)
            else:
                pair = ROLE_FILLS.get(t.role, ROLE_FILLS["template"])
                fills.append(QColor(pair[1] if dark else pair[0]))
            kinds.append(SPECIAL if t.special else PARTIAL if is_partial(t.piece) else PLAIN)
        self.flow.set_tokens([t.piece for t in enc.tokens], enc.ids, kinds,
                             text_of=readable, text_key="chat",
                             marks=[t.injected for t in enc.tokens], fills=fills)
        counts = enc.counts()
        self.counts.setText(f"{len(enc.tokens):,} tokens — " + " · ".join(
            f"{role} {n:,}" for role, n in counts.items()))
        self.editor.set_counts(enc.message_counts(n_messages))
        lines = [f"Message {(t.message or 0) + 1} ({t.role}) typed {t.text!r}: it became "
                 f"control token {t.id}." for t in enc.injections]
        if lines:
            lines.append("Tick 'Typed control tokens stay text' to keep such text as text.")
        if not enc.exact_origins:
            lines.append("The template changes the messages' text: origins were found by "
                         "looking the text up.")
        self.warnings.setText("\n".join(lines))

    def _tip(self, i: int) -> str:
        enc = self.result
        if enc is None or not 0 <= i < len(enc.tokens):
            return ""
        t = enc.tokens[i]
        whose = "the template's text" if t.origin == "scaffolding" else \
            "a control token the template wrote" if t.origin == "special" else \
            f"{t.role}'s {t.origin.replace('_', ' ')}" + (
                f" (message {t.message + 1})" if t.message is not None else "")
        warn = "\ntyped text that became a control token" if t.injected else ""
        return f"id {t.id} · {readable(t.piece)}\n{whose}{warn}"

    def catch_up(self) -> None:
        if self.timer.isActive():
            self.render_now()

