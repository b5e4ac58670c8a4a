"""The presets' Oniguruma patterns kept as data per Unicode version of `regex`
(formats/onig_presets.py): they are what the export's translation makes of them, they cut
as `regex` does in tokenizers, and any `regex` release gets its version's patterns, from
the data or made once and kept in the cache folder."""
import pytest
import regex

from bpe_gui.engine.formats import hf, onig_presets
from bpe_gui.engine.formats._onig_presets_data import PRESET_ONIG, RELEASES
from bpe_gui.engine.formats.onig_presets import preset_onig, presets_for_release
from bpe_gui.engine.io import cache
from bpe_gui.engine.text import unicode_versions
from bpe_gui.engine.text.presets import PRESETS

UNSEEN = "0.0.0-unseen"


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty cache folder, no remembered lookups, and `regex` saying it is a release
    the data has never seen."""
    monkeypatch.setenv(cache.ENV, str(tmp_path))
    monkeypatch.setattr(regex, "__version__", UNSEEN)
    presets_for_release.cache_clear()
    yield tmp_path
    presets_for_release.cache_clear()


def no_call(*args):
    raise AssertionError("computed again")


def test_each_entry_names_every_preset_and_each_release_a_held_version():
    for version, entry in PRESET_ONIG.items():
        assert set(entry) == set(PRESETS), version
        assert version in unicode_versions.VERSIONS
    assert set(RELEASES.values()) <= set(PRESET_ONIG)


def test_the_installed_regex_gets_its_versions_translation():
    # (the installed release's Unicode version as measured on every code point, so a
    # release recorded with a wrong version fails here)
    version = unicode_versions.regex_version()
    assert RELEASES.get(regex.__version__, version) == version
    for name, pattern in PRESETS.items():
        assert hf.onig_pattern(pattern) == hf.translated_onig(pattern), name
        if version in PRESET_ONIG:
            assert PRESET_ONIG[version][name] == hf.translated_onig(pattern), name


def test_not_a_preset_has_no_entry():
    assert preset_onig(None) is None
    assert preset_onig("no-such-preset") is None
    assert hf.onig_pattern(r"\p{L}+|\s+") == hf.translated_onig(r"\p{L}+|\s+")


@pytest.mark.regression
def test_an_unseen_release_is_measured_once_and_keyed_by_its_unicode_version(fresh,
                                                                             monkeypatch):
    """The data was kept for one regex release: any other translated at every run."""
    version = unicode_versions.regex_version()
    marked = {name: f"<{name} of {version}>" for name in PRESETS}
    monkeypatch.setattr(onig_presets, "PRESET_ONIG", {version: marked, "1.0.0": {}})
    monkeypatch.setattr(onig_presets, "translated_onig", no_call)
    assert preset_onig("gpt2") == marked["gpt2"]
    assert cache.read_cached(f"regex-unicode-{UNSEEN}.txt") == version.encode()
    # the next process reads the version from the cache folder: no regex pass
    presets_for_release.cache_clear()
    monkeypatch.setattr(unicode_versions, "regex_version", no_call)
    assert preset_onig("o200k") == marked["o200k"]


def test_a_version_without_data_is_translated_once_and_kept(fresh, monkeypatch):
    monkeypatch.setattr(onig_presets, "PRESET_ONIG", {})
    made = presets_for_release(UNSEEN)
    assert made == {name: hf.translated_onig(p) for name, p in PRESETS.items()}
    kept = list(fresh.glob("onig-presets-unicode-*.json"))
    assert len(kept) == 1
    presets_for_release.cache_clear()
    monkeypatch.setattr(onig_presets, "translated_onig", no_call)
    assert presets_for_release(UNSEEN) == made


def test_a_damaged_or_foreign_cache_file_is_made_again(fresh, monkeypatch):
    monkeypatch.setattr(onig_presets, "PRESET_ONIG", {})
    made = presets_for_release(UNSEEN)
    kept = next(fresh.glob("onig-presets-unicode-*.json"))
    measured = fresh / f"regex-unicode-{UNSEEN}.txt"
    for damage in ("flip a byte", "other presets", "not json", "not a version"):
        presets_for_release.cache_clear()
        if damage == "flip a byte":
            raw = bytearray(kept.read_bytes())
            raw[3] ^= 0x20
            kept.write_bytes(bytes(raw))
        elif damage == "other presets":
            cache.write_cached(kept.name, b'{"gpt2": "x"}')
        elif damage == "not json":
            cache.write_cached(kept.name, b"\xff{")
        else:
            cache.write_cached(measured.name, b"../../etc")
        assert presets_for_release(UNSEEN) == made, damage
        assert cache.read_cached(measured.name) == unicode_versions.regex_version().encode()
    assert sorted(p.name for p in fresh.iterdir()) == sorted([kept.name, measured.name])


def test_a_cache_folder_that_cannot_be_written_costs_only_time(fresh, monkeypatch):
    blocker = fresh / "file"
    blocker.write_text("x")
    monkeypatch.setenv(cache.ENV, str(blocker / "cache"))
    monkeypatch.setattr(onig_presets, "PRESET_ONIG", {})
    assert preset_onig("cl100k") == hf.translated_onig(PRESETS["cl100k"])


def unicode_delta_text() -> str:
    """Words around the code points whose letter or number class differs between the
    installed `regex` and unicodedata2 (the Unicode version of tokenizers' tables, see
    pyproject's test extra): the characters the export must write out for Oniguruma."""
    ud2 = pytest.importorskip("unicodedata2")
    if ud2.unidata_version != unicode_versions.TOKENIZERS.version:
        pytest.skip(f"unicodedata2 {ud2.unidata_version} is not tokenizers' Unicode")
    everything = "".join(map(chr, range(0x110000)))
    majors = "".join(ud2.category(ch)[0] for ch in everything).encode("ascii")
    picked = []
    for cls in ("L", "N"):
        ours = bytearray(0x110000)
        for m in regex.finditer(rf"\p{{{cls}}}+", everything):
            ours[m.start():m.end()] = b"\x01" * (m.end() - m.start())
        theirs = majors.translate(bytes(int(b == ord(cls)) for b in range(256)))
        differ = (int.from_bytes(ours, "little") ^ int.from_bytes(theirs, "little"))
        flags = differ.to_bytes(0x110000, "little")
        diff = []
        c = flags.find(1)
        while c >= 0:
            if not 0xD800 <= c < 0xE000:
                diff.append(c)
            c = flags.find(1, c + 1)
        picked += diff[::max(1, len(diff) // 40)]
    return " ".join(f"a{chr(c)}b 7{chr(c)} {chr(c)}{chr(c)}!" for c in picked)


def split(onig: str, text: str) -> list[str]:
    """tokenizers' words of ``text`` with the Oniguruma pattern ``onig`` (as exported)."""
    tokenizers = pytest.importorskip("tokenizers")
    pre = tokenizers.pre_tokenizers.Split(tokenizers.Regex(onig), behavior="isolated")
    return [w for w, _ in pre.pre_tokenize_str(text)]


def test_every_versions_entries_run_in_tokenizers_and_cut_as_ours():
    """The export does not ask tokenizers about a preset written from this data (that
    would import the library for every tokenizer.json): here the entries of every
    version compile in tokenizers' Oniguruma and cut the probe text as ours."""
    from bpe_gui.engine.formats.snapshot import PROBE_TEXT, words_differ
    for version, entry in PRESET_ONIG.items():
        for name, pattern in PRESETS.items():
            assert words_differ(pattern, split(entry[name], PROBE_TEXT)) is None, (version, name)


def test_the_installed_regexs_patterns_cut_the_letters_versions_disagree_on_as_regex():
    """Where tokenizers' Unicode and the installed `regex`'s disagree on a letter or a
    digit, the exported pattern still cuts as `regex` does."""
    text = unicode_delta_text()
    for name, pattern in PRESETS.items():
        assert split(preset_onig(name), text) == regex.findall(pattern, text), name
