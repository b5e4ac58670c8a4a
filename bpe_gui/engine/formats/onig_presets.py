"""The presets' patterns as written into ``tokenizer.json`` (Oniguruma syntax, widened to
tokenizers' Unicode tables: :func:`hf.onig_pattern`), made once and kept here.

Translating with widening scans every code point with the installed ``regex`` (a tenth
of a second and tens of MB for each export); the result depends only on the pattern,
the installed ``regex`` and tokenizers' tables, so for the presets it is data. It is
used only when the installed ``regex`` is the version it was made with
(``REGEX_VERSION``); otherwise the export translates as for any pattern. A test checks
each entry against the translation. Regenerate after upgrading ``regex`` or the Unicode
data: ``python -m bpe_gui.engine.formats.onig_presets > bpe_gui/engine/formats/_onig_presets_data.py``.
"""
from __future__ import annotations

from ..errors import ExportError
from ..text.regex_release import regex_version
from ._onig_presets_data import PRESET_ONIG, REGEX_VERSION


def preset_onig(name: str | None) -> str | None:
    """The preset ``name``'s pattern for Oniguruma, or None (not a preset, or another
    ``regex`` than the one the data was made with)."""
    if name is None or regex_version() != REGEX_VERSION:
        return None
    return PRESET_ONIG.get(name)


def translated_onig(pattern: str) -> str:
    """Our pattern (``regex`` syntax) as Oniguruma must read it to mean the same (text
    .dialects): e.g. tiktoken's ``\\p{N}{1,3}+`` becomes ``\\p{N}{1,3}`` (in Oniguruma the
    trailing ``+`` repeats the group, so every digit run would be one word), and each
    class gets the code points it lacks in tokenizers' Unicode version written out."""
    from ..text.dialects import DialectError, matches_empty, translate
    from ..text.unicode_versions import TOKENIZERS
    try:
        if matches_empty(pattern):
            raise DialectError("it can match empty text (an alternative such as \\w* or a "
                               "lone anchor; make each match a character at least, \\w+), "
                               "and Oniguruma goes on from an empty match otherwise than "
                               "this app")
        return translate(pattern, "regex", "oniguruma", widen=TOKENIZERS)
    except DialectError as e:
        raise ExportError(f"The pre-tokenizer pattern cannot be written for Hugging Face "
                          f"tokenizers' regex engine (Oniguruma) with the same meaning: {e}. "
                          "Use a preset, or leave that part out of the pattern.") from e


def data_text() -> str:
    """The text of ``_onig_presets_data.py`` for the installed ``regex``."""
    from ..text.presets import PRESETS
    lines = ['"""Made by ``python -m bpe_gui.engine.formats.onig_presets`` (see there)."""',
             f"REGEX_VERSION = {regex_version()!r}", "PRESET_ONIG = {"]
    lines += [f"    {name!r}: {translated_onig(p)!r}," for name, p in PRESETS.items()]
    return "\n".join(lines + ["}", ""])


if __name__ == "__main__":
    import sys
    sys.stdout.write(data_text())
