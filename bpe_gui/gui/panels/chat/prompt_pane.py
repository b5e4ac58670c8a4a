"""One rendered prompt of the chat view: token chips filled by role (a control token the
template wrote in a fill of its own, typed ones outlined in red), the counts per role,
and the warnings; the chat view shows one, or two side by side (another tokenizer)."""
from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ....engine.display import is_partial, readable
from ...models.glyphs import shown, token_note
from ...models.roles import is_dark
from ...widgets.token_flow import PARTIAL, PLAIN, SPECIAL, TokenFlow

# role -> (light, dark) chip fill
ROLE_FILLS = {"system": ("#e4d4f7", "#4a3566"), "developer": ("#e4d4f7", "#4a3566"),
              "user": ("#cfe3ff", "#23466f"), "assistant": ("#cdeccf", "#1f5a3a"),
              "tool": ("#ffe1ae", "#5b4318"), "tools": ("#fff3c4", "#4d4417"),
              "documents": ("#fff3c4", "#4d4417"), "template": ("#e6e6e6", "#3a3a3a")}
# a prompt's chips beyond this are not laid out (a million took seconds and a gigabyte,
# and no one reads them one by one); the counts are always of every token
MAX_CHIPS = 100_000
# a control token the template wrote: the template's family (slate beside its grey
# text), a fill no role has, so it never reads as a message's text
CONTROL_FILL = ("#c3cddc", "#41506a")


class PromptPane(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.result = None
        self.title = QLabel()
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setVisible(False)
        self.flow = TokenFlow(self)
        self.flow.set_mark_color(QColor("#d62728"))
        self.flow.tip_of = self._tip
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #d62728;")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.flow, 1)
        lay.addWidget(self.counts)
        lay.addWidget(self.warnings)

    def set_title(self, text: str) -> None:
        self.title.setText(text)
        self.title.setVisible(bool(text))

    def show_error(self, message: str) -> None:
        self.result = None
        self.flow.set_tokens([], [], [])
        self.counts.setText("")
        self.warnings.setText(message)

    def show_encoding(self, enc) -> None:
        self.result = enc
        dark = is_dark(self.palette())
        colour: dict[tuple[str, str], QColor] = {}   # (one QColor per fill, shared)
        shown = enc.tokens[:MAX_CHIPS]
        fills, kinds = [], []
        for t in shown:
            pair = CONTROL_FILL if t.origin == "special" else \
                ROLE_FILLS.get(t.role, ROLE_FILLS["template"])
            fills.append(colour.setdefault(pair, QColor(pair[1] if dark else pair[0])))
            kinds.append(SPECIAL if t.special else PARTIAL if is_partial(t.piece) else PLAIN)
        self.flow.set_tokens([t.piece for t in shown], [t.id for t in shown], kinds,
                             text_of=_chip_text, text_key="chat",
                             marks=[t.injected for t in shown], fills=fills)
        cut = "" if len(shown) == len(enc.tokens) else \
            f" (the first {len(shown):,} shown as chips; the counts are of all)"
        self.counts.setText(f"{len(enc.tokens):,} tokens{cut} — " + " · ".join(
            f"{role} {n:,}" for role, n in enc.counts().items()))
        lines = [f"Message {(t.message or 0) + 1} ({t.role}) typed {t.text!r}: it became "
                 f"control token {t.id}." for t in enc.injections]
        if lines:
            lines.append("Tick 'Typed control tokens stay text' to keep such text as text.")
        lines += [n[:1].upper() + n[1:] for n in enc.notes]
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
        return f"id {t.id} · {_chip_text(t.piece)}\n{whose}{warn}{token_note(t.piece)}"


def _chip_text(piece: bytes) -> str:
    """A chip's text: a character no font here draws as its escape (glyphs.py), never
    an empty box."""
    return shown(readable(piece))
