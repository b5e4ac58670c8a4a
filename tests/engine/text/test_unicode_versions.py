"""Each library's Unicode tables (text/unicode_versions.py), against the libraries
themselves and against unicodedata2, on every code point."""
from __future__ import annotations

import pytest
import regex

from bpe_gui.engine.text import unicode_versions as uv
from bpe_gui.engine.text.unicode_classes import all_code_points

ALL = all_code_points()


def library_members(library: str, expr: str) -> frozenset[int]:
    """The code points a library's own regex engine matches with one class."""
    text = ALL[:0xD800] + ALL[0xE000:]
    if library == "tiktoken":
        tiktoken = pytest.importorskip("tiktoken")
        ranks = {bytes([b]): b for b in range(256)}
        enc = tiktoken.Encoding("probe", pat_str=expr, mergeable_ranks=ranks, special_tokens={})
        kept = enc.decode_bytes(enc.encode_ordinary(text)).decode("utf-8")   # unmatched: dropped
    else:
        tokenizers = pytest.importorskip("tokenizers")
        split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(expr), "removed", invert=True)
        kept = "".join(w for w, _ in split.pre_tokenize_str(text))
    return frozenset(map(ord, kept))


def test_all_code_points_is_every_code_point_in_order():
    assert ALL == "".join(map(chr, range(0x110000)))   # surrogates included
    assert all_code_points() == ALL and all_code_points() is not ALL   # made anew, not kept


def test_data_decodes_every_code_point():
    for v in uv.VERSIONS:
        cats = uv.categories(v)
        assert len(cats) == 0x110000
        assert max(cats) < len(uv.CATEGORIES)
        assert all(uv.category(chr(c), v) == "Cs" for c in (0xD800, 0xDFFF))
    assert uv.category("\u088f", "16.0.0") == "Cn" and uv.category("\u088f", "17.0.0") == "Lo"


def test_data_equals_unicodedata2_of_its_version():
    """The committed categories of the installed unicodedata2's version equal it on every
    code point (the test extra pins the release tiktoken and tokenizers use)."""
    unicodedata2 = pytest.importorskip("unicodedata2")
    version = unicodedata2.unidata_version
    if version not in uv.VERSIONS:
        pytest.skip(f"unicodedata2 {version} is not a version bpe-gui has tables of")
    cats = uv.categories(version)
    bad = [c for c in range(0x110000)
           if uv.CATEGORIES[cats[c]] != unicodedata2.category(chr(c))]
    assert not bad, f"{len(bad)} code points differ, first U+{bad[0]:04X}"


@pytest.mark.slow
def test_data_equals_regex_of_its_version():
    """The installed regex's categories are one version's here, category for category."""
    version = uv.regex_version()
    if version is None:
        pytest.skip(f"regex {regex.__version__} carries a Unicode version not in the data")
    for cat in uv.CATEGORIES:
        if cat == "Cs":
            continue
        assert uv.regex_mask(rf"\p{{{cat}}}") == uv.mask(version, (cat,)), cat


CLASSES = [r"\p{L}", r"\p{N}", r"\p{M}", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}",
           r"\p{P}", r"\p{S}", r"\p{Nd}", r"\s", r"\d"]


@pytest.mark.slow
@pytest.mark.parametrize("library", ["tiktoken", "tokenizers"])
@pytest.mark.parametrize("expr", CLASSES)
def test_library_classes_are_its_version(library, expr):
    """What tiktoken and tokenizers match with each class is their Unicode version's
    class here, on every code point (the measurement behind LIBRARIES)."""
    version = uv.LIBRARIES[library].version
    theirs = library_members(library, expr)
    if expr == r"\d":
        ours = uv.members(version, ("Nd",))
    elif expr == r"\s":
        ours = frozenset(c for c in range(0x110000) if uv.regex_mask(r"\s")[c])
    else:
        ours = uv.members(version, uv.general_category(expr[3:-1]))
    assert theirs == ours, (f"{len(theirs ^ ours)} code points differ, e.g. "
                            f"U+{min(theirs ^ ours):04X}")


def differing(a: str, b: str, prefixes: tuple[str, ...]) -> list[int]:
    """Code points in one version's class and not the other's, from unicodedata2 and the
    stdlib's unicodedata where they hold that version, else from the data."""
    ma, mb = uv.mask(a, prefixes), uv.mask(b, prefixes)
    return [c for c in range(0x110000) if ma[c] != mb[c]]


def test_versions_differ_where_unicode_says():
    """Letters new in 16.0 and in 17.0 are letters only from then on: the test code
    points of the other tests, from unicodedata2 when it is installed."""
    new17 = differing("16.0.0", "17.0.0", ("L",))
    new16 = differing("15.1.0", "16.0.0", ("L",))
    assert 0x088F in new17 and 0x1C89 in new16
    assert len(new17) == 4644 and len(new16) == 4302
    try:
        import unicodedata2
    except ImportError:
        return
    if unicodedata2.unidata_version == "16.0.0":
        assert all(unicodedata2.category(chr(c)) == "Cn" for c in new17)
        assert all(unicodedata2.category(chr(c))[0] == "L" for c in new16)


def test_class_delta_names_what_regex_has_more():
    rem, add = uv.class_delta(r"\p{L}", ("L",), "16.0.0")
    if uv.regex_version() == "17.0.0":
        assert len(rem) == 4644 and not add and 0x088F in rem
    rem, add = uv.class_delta(r"\w", None, "16.0.0")
    assert all(uv.category(chr(c), "16.0.0") == "Cn" for c in rem)


def test_general_category_names():
    assert uv.general_category("L") == ("L",)
    assert uv.general_category("Letter") == ("L",)
    assert uv.general_category("lowercase_letter") == ("Ll",)
    assert uv.general_category("gc=Lu") == ("Lu",)
    assert uv.general_category("LC") == ("Lu", "Ll", "Lt")
    assert uv.general_category("Han") is None
    assert uv.general_category("Alphabetic") is None


def test_scanner_blobs_of_each_library():
    from bpe_gui.engine.text.unicode_classes import table_blob
    for classes in uv.LIBRARIES.values():
        blob = uv.scanner_blob(classes)
        assert blob.startswith(b"BPESCAN\0")
        assert classes.version.encode() in blob[20:52]
    assert len(table_blob()) > 0


def test_multi_folds_are_every_character_that_folds_to_several():
    """dialects._multi_folds (casefolded by blocks of one string of every code point) is
    what folding each code point alone gives."""
    from bpe_gui.engine.text.dialects import _multi_folds
    want = {f for f in map(str.casefold, ALL) if len(f) > 1}
    assert _multi_folds() == tuple(sorted(want))
    assert "ss" in want and "\u0069\u0307" in want


def test_fold_masks_kept_are_the_installed_regexs():
    """fold_masks() from the tables the scanner took (built in for the regex release they
    came from, or computed at import from another release) equals asking regex itself."""
    from bpe_gui.engine.text import _scan, unicode_classes as uc
    from bpe_gui.engine.text.scanner import native_scanner
    native_scanner("gpt2")   # tables installed, their fold masks kept
    want = uc.fold_masks(ALL)
    assert uc.fold_masks() == want and want[ord("S")] == 1
    for blob in (_scan.tables_blob(), _scan.builtin_tables_blob()):
        saved = dict(uc._FOLDS)
        try:
            uc._FOLDS.clear()
            uc.note_fold_masks(blob)   # kept only if the blob is the installed release's
            assert uc._FOLDS.get(regex.__version__, tuple(sorted(want.items()))) == \
                tuple(sorted(want.items()))
        finally:
            uc._FOLDS.clear()
            uc._FOLDS.update(saved)


@pytest.mark.parametrize("later", [v for v in uv.VERSIONS if v > "16.0.0"])
def test_unwiden_takes_the_version_the_file_was_widened_to(later):
    """A tokenizer.json exported where regex has Unicode `later` carries \\p{L} with the
    letters tokenizers' 16.0 lacks written out. It reads back as plain \\p{L} with
    `later`'s tables, not as an intermediate version with some code points still written
    out (both mean the same classes; the first fitting version used to win, so a file
    widened to 18.0 read back as 17.0 plus a list, off the native scanner)."""
    from bpe_gui.engine.text.dialects import unwiden
    extra = sorted(uv.members(later, ("L",)) - uv.members("16.0.0", ("L",)))
    assert extra
    ranges, start = [], extra[0]
    for a, b in zip(extra, extra[1:] + [-1]):
        if b != a + 1:
            ranges.append(f"\\U{start:08x}" + ("" if a == start else f"-\\U{a:08x}"))
            start = b
    got = unwiden(" ?[\\p{L}" + "".join(ranges) + "]+", uv.TOKENIZERS)
    assert got is not None
    assert got[0] == " ?\\p{L}+" and got[1].version == later
