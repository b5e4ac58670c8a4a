"""Characters no font here can draw, shown as escapes instead of empty boxes.

Qt draws a character that no installed font has as an empty box: on a machine without
a Devanagari font a Hindi token read as a row of boxes in the encode view, the merge
table and the vocabulary alike. Every view that shows token text goes through
:class:`~bpe_gui.gui.models.roles.ReadableCache` (or :func:`shown`), which asks the one
:class:`Glyphs` of the application; a character without a glyph is shown as its escape,
as control characters are (``ह`` -> ``\\u0939``), its Unicode name goes in the tooltip
(:func:`names_note`), and the status bar says once per script which package has a font.
A text box still draws such a character as a box, and a token may hold only some of its
bytes (``<E0 A4>``) or stand for it (``<unk>``): the text boxes ask about their own
text (:meth:`Glyphs.note_text`, ``widgets/glyph_watch.py``), so the script is said
whatever the tokenizer.

Whether a glyph exists: the font's own cmap (``QRawFont.supportsCharacter``), then,
unless the font forbids merging (``QFont.NoFontMerging``), every installed family's --
what Qt's font merging falls back to. (``QFontMetrics.inFontUcs4`` sees the first font
only, and the glyph runs of a laid-out text name a box engine whose raw font crashes
when asked its family.)

Example: with no Devanagari font, ``shown("नमस्ते")`` -> ``'\\u0928\\u092e\\u0938\\u094d\\u0924\\u0947'``
and ``names_note("न")`` -> ``'No font here draws: U+0928 DEVANAGARI LETTER NA'``.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QRawFont

# Never checked: drawn as nothing or as a visible stand-in already (display.VISIBLE_WS,
# visible_controls), or invisible by design (format characters such as ZWJ).
_SKIP = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})

# Debian and Ubuntu packages with a font for a script, by the first word of the
# characters' Unicode names (script_of); every other script is in fonts-noto-core.
_PACKAGES = {"CJK": "fonts-noto-cjk", "Hangul": "fonts-noto-cjk",
             "Hiragana": "fonts-noto-cjk", "Katakana": "fonts-noto-cjk",
             "Bopomofo": "fonts-noto-cjk", "emoji": "fonts-noto-color-emoji"}
DEFAULT_PACKAGE = "fonts-noto-core"
# how such a character looks: a box in a text box; in a token, its escape or, split
# across tokens, its bytes
DRAWN_AS = ("the text draws such characters as empty boxes, tokens as escapes (\\u0939) "
            "or, split, as bytes (<E0 A4>).")


def escape(ch: str) -> str:
    r"""A character as Python writes its escape: 'ह' -> '\u0939', '😀' -> '\U0001f600'."""
    cp = ord(ch)
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


def script_of(ch: str) -> str:
    """The script a character belongs to, as a person names it: the first word of its
    Unicode name where that word names a script ('ह' and the danda '।' -> 'Devanagari',
    '你' and '。' -> 'CJK'), 'emoji' for pictographs, else 'symbol'."""
    cat = unicodedata.category(ch)
    if cat == "So" and ord(ch) >= 0x1F000:
        return "emoji"
    word = unicodedata.name(ch, "").split(" ")[0]
    if word in _CJK_WORDS:
        return "CJK"
    if word in _script_words() and word not in _NOT_SCRIPTS:
        return word.title()
    return "symbol"


_CJK_WORDS = frozenset({"CJK", "IDEOGRAPHIC", "FULLWIDTH", "HALFWIDTH", "KATAKANA-HIRAGANA"})
# first words of letters' names that name a style or a single letter, not a script
_NOT_SCRIPTS = frozenset({"", "MODIFIER", "MATHEMATICAL", "SUPERSCRIPT", "TURNED",
                          "VERTICAL", "SCRIPT", "DOUBLE-STRUCK", "BLACK-LETTER", "ROMAN",
                          "MICRO", "OHM", "KELVIN", "ANGSTROM", "PLANCK", "EULER",
                          "INFORMATION", "FEMININE", "MASCULINE", "CARON", "ALEF", "BET",
                          "GIMEL", "DALET"})


@lru_cache(maxsize=1)
def _script_words() -> frozenset[str]:
    """The first words of all letters' names (LATIN, DEVANAGARI, THAI, CJK, ...): once,
    about 0.1 s, and only when a character without a glyph is met."""
    return frozenset(unicodedata.name(chr(cp), " ").split(" ")[0] for cp in range(0x30000)
                     if unicodedata.category(chr(cp))[0] == "L")


def package_for(script: str) -> str:
    return _PACKAGES.get(script, DEFAULT_PACKAGE)


class Glyphs(QObject):
    """Which characters some font can draw, for one font (the application's by
    default) or for a given predicate (``has_glyph``: tests, or another font's)."""

    # (script, a sentence for the status bar: the script no font draws and the package
    # that has one); emitted once per script
    missing = Signal(str, str)

    def __init__(self, font: QFont | None = None,
                 has_glyph: Callable[[str], bool] | None = None):
        super().__init__()
        self.font = QFont(font) if font is not None else None
        self._has = has_glyph
        self._memo: dict[str, bool] = {}
        self._own: QRawFont | None = None
        self._others: list[QRawFont] | None = None
        self.scripts_missing: dict[str, str] = {}   # script -> the sentence said of it

    # ----- the question ---------------------------------------------------------------
    def drawable(self, ch: str) -> bool:
        got = self._memo.get(ch)
        if got is None:
            got = self._memo[ch] = (unicodedata.category(ch) in _SKIP
                                    or self._has_glyph(ch))
            if not got:
                self._note_missing(ch)
        return got

    def _has_glyph(self, ch: str) -> bool:
        if self._has is not None:
            return self._has(ch)
        if QGuiApplication.instance() is None:   # no fonts to ask: trust the text
            return True
        font = self.font if self.font is not None else QGuiApplication.font()
        if self._own is None:
            self._own = QRawFont.fromFont(font)
        cp = ord(ch)
        if self._own.supportsCharacter(cp):
            return True
        if font.styleStrategy() & QFont.StyleStrategy.NoFontMerging:
            return False
        if self._others is None:   # once: every family Qt could merge in
            self._others = [QRawFont.fromFont(QFont(f)) for f in QFontDatabase.families()]
        return any(raw.supportsCharacter(cp) for raw in self._others)

    def _note_missing(self, ch: str) -> None:
        script = script_of(ch)
        if script in self.scripts_missing:
            return
        what = script if script in ("emoji", "symbol") else f"{script} script"
        said = (f"No font here draws {what} (e.g. {escape(ch)}, {unicodedata.name(ch, '?')}): "
                f"{DRAWN_AS} Install a font for it, e.g. the Debian/Ubuntu package "
                f"{package_for(script)}.")
        self.scripts_missing[script] = said
        self.missing.emit(script, said)

    # ----- text, shown honestly ---------------------------------------------------------
    def shown(self, text: str) -> str:
        """The text with each character no font draws replaced by its escape."""
        if text.isascii():
            return text
        drawable = self.drawable
        if all(drawable(c) for c in text):
            return text
        return "".join(c if drawable(c) else escape(c) for c in text)

    def note_text(self, text: str) -> None:
        """Ask about each distinct character of a text a view draws as it is (a text
        box): one no font draws is a box there, whatever the tokens show (bytes of a
        split character, ``<unk>``), so its script is said (``missing``) all the same."""
        if not text.isascii():
            drawable = self.drawable
            for c in dict.fromkeys(text):   # (in order: the scripts are named so)
                drawable(c)

    def undrawn(self, text: str) -> list[str]:
        """The distinct characters of ``text`` no font draws, in order of appearance."""
        if text.isascii():
            return []
        return list(dict.fromkeys(c for c in text if not self.drawable(c)))

    def names_note(self, text: str, limit: int = 6) -> str:
        """'No font here draws: U+0939 DEVANAGARI LETTER HA, ...' for a tooltip, or ''."""
        chars = self.undrawn(text)
        if not chars:
            return ""
        named = [f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in chars[:limit]]
        more = f" and {len(chars) - limit} more" if len(chars) > limit else ""
        return "No font here draws: " + ", ".join(named) + more


_current: Glyphs | None = None


def glyphs() -> Glyphs:
    """The application's :class:`Glyphs` (made on first use, for its font)."""
    global _current
    if _current is None:
        _current = Glyphs()
    return _current


def use_glyphs(g: Glyphs | None) -> None:
    """Make ``g`` the application's (None: a fresh one for the application's font on
    next use). Views cache shown texts: call before they are made."""
    global _current
    _current = g


def shown(text: str) -> str:
    return glyphs().shown(text)


def names_note(text: str) -> str:
    return glyphs().names_note(text)


def token_note(token: bytes) -> str:
    """A tooltip's last line naming a token's characters no font draws ('' if none),
    led by a line break."""
    note = glyphs().names_note(token.decode("utf-8", "ignore"))
    return "\n" + note if note else ""
