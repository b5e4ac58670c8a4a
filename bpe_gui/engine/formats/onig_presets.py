"""The presets' patterns as written into ``tokenizer.json`` (Oniguruma syntax, widened to
tokenizers' Unicode tables: :func:`hf.onig_pattern`), made once and kept.

Translating with widening scans every code point with the installed ``regex`` (a tenth
of a second and tens of MB for each export); the result depends only on the pattern,
the Unicode tables of the installed ``regex`` and tokenizers' tables, so for the presets
it is data, kept per Unicode version of ``regex`` (``PRESET_ONIG``), not per release: a
new ``regex`` release on the same Unicode version needs nothing new.

Which Unicode version a ``regex`` release carries is known only by asking ``regex``
(importing it costs start-up, and nothing else on the presets' paths needs it). So:

- a release the data was made with is in ``RELEASES`` (release -> Unicode version);
- any other release is measured once per machine (:func:`..text.unicode_versions.regex_version`)
  and its version kept in the user's cache folder (:mod:`..io.cache`);
- a Unicode version the data does not hold is translated once and the patterns kept in
  the cache folder too, named by what they are made from (the patterns, tokenizers'
  version, the translator's source), so a changed recipe never reads older patterns.

A damaged or unreadable cache file is made again. A test checks the installed version's
entry against the translation and every entry in tokenizers. Add or refresh the entry of
the installed ``regex``: ``python -m bpe_gui.engine.formats.onig_presets`` (``--check``:
exit 1 if it is missing or stale).
"""
from __future__ import annotations

import re
import zlib
from functools import lru_cache
from pathlib import Path

from ..errors import ExportError
from ..text.presets import PRESETS
from ..text.regex_release import regex_version
from ._onig_presets_data import PRESET_ONIG, RELEASES

DATA = Path(__file__).resolve().parent / "_onig_presets_data.py"
_SOURCES = [Path(__file__).resolve().parents[1] / "text" / name
            for name in ("dialects.py", "unicode_versions.py")]
_UNKNOWN = "unknown"   # cached for a regex whose Unicode version the data here lacks


def preset_onig(name: str | None) -> str | None:
    """The preset ``name``'s pattern for Oniguruma with the installed ``regex``, or None
    (not a preset)."""
    if name is None or name not in PRESETS:
        return None
    return presets_for_release(regex_version())[name]


@lru_cache(maxsize=4)
def presets_for_release(release: str) -> dict[str, str]:
    """Every preset's Oniguruma pattern for the ``regex`` release ``release`` (the
    installed one: its Unicode version is measured on the installed module)."""
    version = RELEASES.get(release) or _unicode_of(release)
    if version in PRESET_ONIG:
        return PRESET_ONIG[version]
    return _translated_cached(f"unicode-{version}" if version != _UNKNOWN
                              else f"regex-{_safe(release)}")


def _safe(text: str) -> str:
    """``text`` as part of a file name."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


def _unicode_of(release: str) -> str:
    """The Unicode version of the installed ``regex`` (release ``release``), or
    ``_UNKNOWN``: read from the cache folder, else measured (importing ``regex``) and kept."""
    from ..io.cache import read_cached, write_cached
    name = f"regex-unicode-{_safe(release)}.txt"
    kept = read_cached(name)
    if kept is not None:
        text = kept.decode("ascii", "replace")
        if text == _UNKNOWN or re.fullmatch(r"\d+\.\d+\.\d+", text):
            return text
    from ..text.unicode_versions import regex_version as unicode_version
    version = unicode_version() or _UNKNOWN
    write_cached(name, version.encode("ascii"))
    return version


def recipe() -> str:
    """A checksum of what the translated presets are made from besides ``regex``: the
    preset patterns and the sources of the translator and of tokenizers' Unicode version
    (read, not imported: importing them imports ``regex``)."""
    made_of = repr(sorted(PRESETS.items())).encode()
    for source in _SOURCES:
        try:
            made_of += source.read_bytes()
        except OSError:
            pass
    return f"{zlib.crc32(made_of):08x}"


def _translated_cached(key: str) -> dict[str, str]:
    """Every preset translated (:func:`translated_onig`), kept in the cache folder as
    ``onig-presets-KEY-RECIPE.json``; a file that is damaged or names other presets is
    made again."""
    import json

    from ..io.cache import read_cached, write_cached
    name = f"onig-presets-{key}-{recipe()}.json"
    kept = read_cached(name)
    if kept is not None:
        try:
            got = json.loads(kept.decode("utf-8"))
        except ValueError:   # (UnicodeDecodeError is one)
            got = None
        if isinstance(got, dict) and set(got) == set(PRESETS) and \
                all(isinstance(v, str) for v in got.values()):
            return got
    made = {name: translated_onig(p) for name, p in PRESETS.items()}
    write_cached(name, json.dumps(made, ensure_ascii=True).encode("ascii"))
    return made


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
    """The text of ``_onig_presets_data.py`` with the installed ``regex``'s entry added
    or made anew (the other entries kept)."""
    from ..text.unicode_versions import regex_version as unicode_version
    version = unicode_version()
    if version is None:
        raise SystemExit(f"regex {regex_version()}: its Unicode version is none of those in "
                         "text/unicode_data.json; add it there first (python -m "
                         "bpe_gui.engine.text.unicode_versions --help)")
    releases = {**RELEASES, regex_version(): version}
    entries = dict(PRESET_ONIG)
    entries[version] = {name: translated_onig(p) for name, p in PRESETS.items()}
    lines = ['"""Made by ``python -m bpe_gui.engine.formats.onig_presets`` (see there)."""',
             "# regex release -> the Unicode version of its tables (the releases each entry",
             "# was made with)", "RELEASES = {"]
    lines += [f"    {r!r}: {v!r}," for r, v in sorted(releases.items())]
    lines += ["}", "# Unicode version of regex -> preset -> its pattern for Oniguruma",
              "PRESET_ONIG = {"]
    for v in sorted(entries, key=lambda v: tuple(int(p) for p in v.split("."))):
        lines.append(f"    {v!r}: {{")
        lines += [f"        {name!r}: {p!r}," for name, p in entries[v].items()]
        lines.append("    },")
    return "\n".join(lines + ["}", ""])


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description="Add the installed regex's entry to "
                                 "formats/_onig_presets_data.py.")
    ap.add_argument("--check", action="store_true", help="only say whether it is up to date")
    args = ap.parse_args(argv)
    text = data_text()
    current = DATA.read_text("utf-8")
    if args.check:
        ok = current == text
        print(f"{DATA}: {'up to date' if ok else 'OUT OF DATE'} (regex {regex_version()})")
        return 0 if ok else 1
    from ..io.atomic import write_atomic
    write_atomic(DATA, text.encode("utf-8"))
    print(f"wrote {DATA} (regex {regex_version()})")
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())
