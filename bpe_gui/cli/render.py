"""Tokens for a terminal: alternating backgrounds, special tokens and partial characters
marked; plain space-separated text when not a terminal."""
from __future__ import annotations

from typing import Sequence

from ..engine.display import is_partial, readable

BGS = ("\x1b[30;48;5;153m", "\x1b[30;48;5;223m")   # light blue, light orange
SPECIAL_STYLE = "\x1b[1;30;48;5;150m"                # bold on green
PARTIAL_STYLE = "\x1b[4;30;48;5;217m"                # underlined on pink: part of a character
RESET = "\x1b[0m"


def render_tokens(tokens: Sequence[bytes], special: Sequence[bool], color: bool) -> str:
    """Tokens for a terminal (alternating backgrounds) or plain (space-separated).

    Whitespace is visible (· for a space, ↵ for a newline) and a token holding part of a
    UTF-8 character shows its bytes, e.g. <E4 BD>.
    """
    if not color:
        return " ".join(readable(t) for t in tokens)
    out = []
    for k, (t, sp) in enumerate(zip(tokens, special)):
        style = SPECIAL_STYLE if sp else PARTIAL_STYLE if is_partial(t) else BGS[k % 2]
        out.append(f"{style}{readable(t)}{RESET}")
    return "".join(out)
