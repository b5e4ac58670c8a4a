"""The presets' Oniguruma patterns kept as data (formats/onig_presets.py) are exactly
what the export's translation makes of them, and the export uses them."""
import pytest
import regex

from bpe_gui.engine.formats import hf
from bpe_gui.engine.formats._onig_presets_data import PRESET_ONIG, REGEX_VERSION
from bpe_gui.engine.formats.onig_presets import preset_onig
from bpe_gui.engine.text.presets import PRESETS


def test_data_is_for_the_installed_regex_and_every_preset():
    # made with another regex, the data is ignored: regenerate it (see onig_presets.py)
    assert REGEX_VERSION == regex.__version__
    assert set(PRESET_ONIG) == set(PRESETS)


def test_each_preset_equals_its_translation():
    for name, pattern in PRESETS.items():
        assert PRESET_ONIG[name] == hf.translated_onig(pattern), name
        assert hf.onig_pattern(pattern) == PRESET_ONIG[name]


def test_unknown_regex_version_or_pattern_falls_back(monkeypatch):
    assert preset_onig(None) is None
    assert preset_onig("no-such-preset") is None
    monkeypatch.setattr(regex, "__version__", "0.0.0")
    assert preset_onig("gpt2") is None
    assert hf.onig_pattern(PRESETS["gpt2"]) == PRESET_ONIG["gpt2"]   # by translation


def test_each_preset_entry_runs_in_tokenizers_and_cuts_as_ours():
    """The export does not ask tokenizers about a preset written from this data (that
    would import the library for every tokenizer.json): here each entry compiles in
    tokenizers' Oniguruma and cuts the probe text into our words."""
    tokenizers = pytest.importorskip("tokenizers")
    from bpe_gui.engine.formats.snapshot import PROBE_TEXT, words_differ
    for name, pattern in PRESETS.items():
        split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(PRESET_ONIG[name]),
                                                behavior="isolated")
        theirs = [w for w, _ in split.pre_tokenize_str(PROBE_TEXT)]
        assert words_differ(pattern, theirs) is None, name
