"""The conversation editor of the chat view: a row per message (role, text, remove), tools
as JSON, the template options; or the whole request body as JSON (tool calls, template
variables). A row keeps the keys of the message it was loaded from (``tool_calls``,
``tool_call_id`` ...), so a loaded conversation renders as it was written."""
from __future__ import annotations

import copy
import json

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QPlainTextEdit,
                               QPushButton, QToolButton, QVBoxLayout, QWidget)

from ....engine.chat import ChatError, parse_request
from ...widgets.flow_layout import FlowBar

ROLES = ("system", "developer", "user", "assistant", "tool")


def calls_summary(calls) -> str:
    """An assistant's tool calls in a line (OpenAI's ``function`` shape or llama-models'
    ``tool_name``), for the row whose text they stand in for."""
    out = []
    for c in calls if isinstance(calls, list) else ():
        fn = c.get("function", c) if isinstance(c, dict) else {}
        name = fn.get("name") or fn.get("tool_name") or "?"
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        out.append(f"{name}({args})")
    return "; ".join(out)


class MessageRow(QWidget):
    changed = Signal()
    removeRequested = Signal(object)

    def __init__(self, message: dict, parent=None):
        super().__init__(parent)
        self.extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        self.role = QComboBox()
        self.role.setEditable(True)   # other roles (ipython, function names for harmony)
        self.role.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.role.setMinimumContentsLength(8)
        self.role.addItems(ROLES)
        self.role.setCurrentText(str(message.get("role", "user")))
        content = message.get("content")
        # content parts (harmony's, OpenAI's lists) are edited as their JSON
        self.json_content = content is not None and not isinstance(content, str)
        self.content = QPlainTextEdit(content if isinstance(content, str) else
                                      "" if content is None else json.dumps(content,
                                                                            ensure_ascii=False))
        calls = calls_summary(self.extra.get("tool_calls"))
        # a tool call's row has no text of its own: say what stands in for it
        self.content.setPlaceholderText(f"tool call: {calls} (edit it in 'Edit as JSON')"
                                        if calls else "message text")
        self.content.setTabChangesFocus(True)
        fm = self.content.fontMetrics()
        self.content.setFixedHeight(fm.lineSpacing() * 2 + 12)
        self.remove = QToolButton()
        self.remove.setText("✕")
        self.remove.setToolTip("Remove this message")
        self.count = QLabel("")
        self.count.setToolTip("Tokens of this message's own text")
        extras = ", ".join(sorted(self.extra))
        self.extras = QLabel(f"+ {extras}" if extras else "")
        self.extras.setToolTip("Kept from the loaded conversation; edit them in "
                               "'Edit as JSON'")
        side = QVBoxLayout()
        side.setContentsMargins(0, 0, 0, 0)
        side.setSpacing(0)
        side.addWidget(self.role)
        side.addWidget(self.count)
        side.addWidget(self.extras)
        side.addStretch(1)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 2)
        row.addLayout(side)
        row.addWidget(self.content, 1)
        row.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignTop)
        self.role.currentTextChanged.connect(self.changed)
        self.content.textChanged.connect(self.changed)
        self.remove.clicked.connect(lambda: self.removeRequested.emit(self))

    def message(self) -> dict:
        out = {"role": self.role.currentText().strip() or "user"}
        text = self.content.toPlainText()
        out["content"] = text
        if self.json_content:
            try:
                out["content"] = json.loads(text)
            except json.JSONDecodeError:
                pass   # edited into plain text: sent as text
        out.update(self.extra)
        return out


class ConversationEditor(QWidget):
    """Rows of messages, tools, options; :meth:`body` is the request body they make."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[MessageRow] = []
        self._rows_box = QVBoxLayout()
        self._rows_box.setContentsMargins(0, 0, 0, 0)
        self._rows_box.setSpacing(0)
        self.add = QPushButton("Add message")
        self.as_json = QPushButton("Edit as JSON")
        self.as_json.setCheckable(True)
        self.as_json.setToolTip("The whole request body: messages with tool calls, tools, "
                                "chat_template_kwargs")
        self.json_edit = QPlainTextEdit()
        self.json_edit.setVisible(False)
        self.json_edit.setMinimumHeight(self.json_edit.fontMetrics().lineSpacing() * 8 + 12)
        self.tools_toggle = QToolButton()
        self.tools_toggle.setText("Tools (JSON)")
        self.tools_toggle.setCheckable(True)
        self.tools = QPlainTextEdit()
        self.tools.setPlaceholderText('[{"type": "function", "function": {"name": ...}}]')
        self.tools.setVisible(False)
        self.generation = QCheckBox("Add generation prompt")
        self.generation.setChecked(True)
        self.continue_final = QCheckBox("Continue the last message")
        self.sanitize = QCheckBox("Typed control tokens stay text")
        self.sanitize.setToolTip("sanitize_control_tokens (transformers 5): special-token "
                                 "text typed in a message is encoded as plain text")
        buttons = FlowBar()
        for b in (self.add, self.as_json, self.tools_toggle):
            buttons.addWidget(b)
        options = FlowBar()
        for box in (self.generation, self.continue_final, self.sanitize):
            options.addWidget(box)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self._rows_box)
        lay.addWidget(self.json_edit, 1)
        lay.addWidget(buttons)
        lay.addWidget(self.tools)
        lay.addWidget(options)
        lay.addStretch(1)
        self.add.clicked.connect(lambda: self.add_message({"role": self._next_role(),
                                                           "content": ""}))
        self.as_json.toggled.connect(self._json_mode)
        self.tools_toggle.toggled.connect(self.tools.setVisible)
        for w in (self.json_edit, self.tools):
            w.textChanged.connect(self.changed)
        for box in (self.generation, self.continue_final, self.sanitize):
            box.toggled.connect(self.changed)
        # (ticking one unticks the other)
        for tick, untick in ((self.generation, self.continue_final),
                             (self.continue_final, self.generation)):
            tick.toggled.connect(lambda on, u=untick: u.setChecked(u.isChecked() and not on))

    def _next_role(self) -> str:
        last = self.rows[-1].role.currentText() if self.rows else "assistant"
        return "assistant" if last == "user" else "user"

    def add_message(self, message: dict) -> MessageRow:
        row = MessageRow(message, self)
        row.changed.connect(self.changed)
        row.removeRequested.connect(self._remove)
        self.rows.append(row)
        self._rows_box.addWidget(row)
        row.setVisible(not self.as_json.isChecked())
        self.changed.emit()
        return row

    def _remove(self, row: MessageRow) -> None:
        self.rows.remove(row)
        row.setParent(None)
        row.deleteLater()
        self.changed.emit()

    def json_text(self) -> str:
        """The JSON being edited ('' when the rows are)."""
        return self.json_edit.toPlainText() if self.as_json.isChecked() else ""

    def show_json(self, text: str) -> None:
        """Edit this text as the whole request body (kept as typed, valid or not)."""
        with QSignalBlocker(self.as_json):   # (set, not a user's toggle)
            self.as_json.setChecked(True)
        self._json_widgets(True)
        self.json_edit.setPlainText(text)

    def _json_mode(self, on: bool) -> None:
        if on:   # (from the rows: the toggle is already on, so body() would read the JSON)
            self.json_edit.setPlainText(json.dumps(self._rows_body(strict=False), indent=2,
                                                   ensure_ascii=False))
        else:
            try:
                self.set_body(self._json_body())
            except ChatError:
                pass   # the rows keep what they had; the error shows while in JSON
        self._json_widgets(on)

    def _json_widgets(self, on: bool) -> None:
        """The JSON editor in place of the rows, the tools and the options (all of which
        the JSON holds): shown, not greyed, so it has their room."""
        self.json_edit.setVisible(on)
        for row in self.rows:
            row.setVisible(not on)
        for w in (self.add, self.tools_toggle, self.generation, self.continue_final,
                  self.sanitize):
            w.setVisible(not on)
        self.tools.setVisible(not on and self.tools_toggle.isChecked())

    def _json_body(self) -> dict:
        body = parse_request(self.json_edit.toPlainText(), "the conversation JSON")
        return {"messages": body} if isinstance(body, list) else body

    def body(self, strict: bool = True) -> dict:
        """The request body (ChatError for JSON that is not valid, or tools that are not
        a JSON list if strict)."""
        if self.as_json.isChecked():
            return self._json_body()
        return self._rows_body(strict)

    def _rows_body(self, strict: bool) -> dict:
        out: dict = {"messages": [r.message() for r in self.rows]}
        tools = self.tools.toPlainText().strip()
        if tools:
            try:
                parsed = json.loads(tools)
            except json.JSONDecodeError as e:
                if strict:
                    raise ChatError(f"tools are not valid JSON at line {e.lineno}, column "
                                    f"{e.colno}: {e.msg}.") from None
                parsed = None
            if parsed is not None:
                out["tools"] = parsed
        out.update({k: v for k, v in self._kept.items() if k not in out})
        out["add_generation_prompt"] = self.generation.isChecked()
        if self.continue_final.isChecked():
            out["continue_final_message"] = True
        if self.sanitize.isChecked():
            out["sanitize_control_tokens"] = True
        return out

    _kept: dict = {}

    def set_body(self, body: dict) -> None:
        """Show a request body (its messages as rows; keys the rows do not edit kept)."""
        body = copy.deepcopy(body)
        self.blockSignals(True)
        for row in list(self.rows):
            self.rows.remove(row)
            row.setParent(None)
            row.deleteLater()
        for m in body.get("messages") or ():
            if isinstance(m, dict):
                self.add_message(m)
        tools = body.get("tools")
        self.tools.setPlainText("" if not tools else json.dumps(tools, indent=2,
                                                               ensure_ascii=False))
        self.tools_toggle.setChecked(bool(tools))
        self.generation.setChecked(bool(body.get("add_generation_prompt", True)))
        self.continue_final.setChecked(bool(body.get("continue_final_message")))
        self.sanitize.setChecked(bool(body.get("sanitize_control_tokens")))
        self._kept = {k: v for k, v in body.items() if k not in (
            "messages", "tools", "add_generation_prompt", "continue_final_message",
            "sanitize_control_tokens")}
        if self.as_json.isChecked():   # (the body is shown where it is edited)
            self.json_edit.setPlainText(json.dumps(self._rows_body(strict=False), indent=2,
                                                   ensure_ascii=False))
        self.blockSignals(False)
        self.changed.emit()

    def set_counts(self, counts: list[int] | None) -> None:
        """Each row's count of tokens of its own text (None: not known)."""
        for k, row in enumerate(self.rows):
            n = counts[k] if counts is not None and k < len(counts) else None
            row.count.setText("" if n is None else f"{n:,} tokens")
