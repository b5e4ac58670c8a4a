"""Colours of old and new in a trainer that trained on from another tokenizer (see
controller/origin.py): what was learned here is outlined (chips) or underlined (text)
in green, readable on the light and dark themes; the timeline's collapsed block of
inherited merges has a background of its own.
"""
from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from .roles import TokenColors, is_dark


def new_color(palette: QPalette | None = None) -> QColor:
    """The colour of what was learned here: green, readable on both themes."""
    return QColor("#5fd38a") if is_dark(palette) else QColor("#17803d")


def block_color_for(colors: TokenColors) -> QColor:
    """The background of the timeline's collapsed block of inherited merges, for the
    palette whose token colours these are (light text: dark)."""
    dark = colors.text.lightness() > 128
    return QColor("#2f3a4a") if dark else QColor("#e4e9f2")


def new_color_for(colors: TokenColors) -> QColor:
    """new_color for the palette whose token colours these are."""
    return QColor("#5fd38a") if colors.text.lightness() > 128 else QColor("#17803d")
