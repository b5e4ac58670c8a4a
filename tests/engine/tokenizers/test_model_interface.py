"""One model interface for every tokenizer (issue 19): the bugs it fixed, and the rules it
keeps (no module reads another's private attributes; no kind skips the base constructor).
The conformance suite (test_conformance.py) runs every kind through the same checks."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.tokenizers.explain import playback  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
EOT = "<|endoftext|>"
TEXT = "Hello, it's the lowest newest 你好 🙂 x=1\n"


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    d = tmp_path_factory.mktemp("kinds")
    t = Trainer.from_text(TEXT * 30, TrainSettings(vocab_size=330, pattern="cl100k",
                                                   special_tokens=[EOT]))
    t.run()
    export_tokenizer(t.tokenizer(), d, "tiktoken")
    hf = tokenizers.ByteLevelBPETokenizer()
    hf.train_from_iterator([TEXT * 30], vocab_size=320, show_progress=False)
    hf.save(str(d / "tokenizer.json"))
    return {"trained": t.tokenizer(), "at-step": t.tokenizer(at_step=20),
            "tiktoken": load_tokenizer(d / "tokenizer.tiktoken"),
            "tokenizer.json": load_tokenizer(d / "tokenizer.json")}


@pytest.mark.parametrize("name", ["trained", "at-step", "tiktoken", "tokenizer.json"])
def test_playback_and_explain_work_on_every_kind(kinds, name):
    """Imported .tiktoken and byte-level tokenizer.json raised AttributeError
    ('PipelineTokenizer' object has no attribute '_byte_ids')."""
    tok = kinds[name]
    ex = tok.explain(TEXT)
    assert ex.ids == tok.encode(TEXT)
    for w in ex.words:
        if w.playback is not None:
            assert list(playback(tok, w.text).final_ids) == tok.encode(w.text)


@pytest.mark.parametrize("name", ["trained", "at-step", "tiktoken", "tokenizer.json"])
def test_lone_surrogates_are_replaced_not_raised(kinds, name):
    """A lone surrogate raised UnicodeEncodeError from all three encoders."""
    tok = kinds[name]
    text = "a\ud83d b \ud83d\ude00"
    want = tok.encode("a\ufffd b 😀")   # tiktoken: a pair joined, a lone one U+FFFD
    assert tok.encode(text) == want
    enc = tok.encode_with_offsets(text)
    assert enc.ids == want
    assert enc.offsets[0] == (0, 1) and enc.offsets[-1][1] == len(text)   # the given string's
    assert list(tok.encode_iterable(["a\ud83d b \ud83d", "\ude00"], chunk_chars=1)) == want


def test_imported_tokenizer_has_no_steps(kinds):
    from bpe_gui.engine.errors import SettingsError
    tok = kinds["tiktoken"]
    assert tok.at_step(tok.n_merges) is tok
    with pytest.raises(SettingsError, match="cannot be cut at step 3"):
        tok.at_step(3)


def _private_reads(path: Path) -> list[str]:
    """``x._name`` reads where x is not self/cls (a module's own private names aside)."""
    tree = ast.parse(path.read_text("utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__") and isinstance(node.value, ast.Name) \
                and node.value.id not in ("self", "cls", "clone") \
                and not node.value.id.startswith("_"):
            out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}")
    return out


def test_engine_modules_read_no_private_attributes_of_others():
    # a sibling module; reads inside the class that defines the attribute
    allowed = {"table._words", "out._check_vocab_size",
               # the tokenizer's special-token policy, read by its sibling ids_file.py
               "tok._matchable", "tok._restricted",
               # tiktoken's own names (its tests and downstream code read them), and the
               # face's state, read by its module and the compat module that builds it
               "enc._pat_str", "enc._mergeable_ranks", "enc._special_tokens", "enc._tok",
               "enc._reduce"}
    found = [r for p in sorted((ROOT / "bpe_gui" / "engine").rglob("*.py"))
             for r in _private_reads(p) if r.split(" ")[1] not in allowed]
    assert found == []


@pytest.mark.parametrize("name", ["trained", "at-step", "tiktoken", "tokenizer.json",
                                  "one-piece"])
def test_a_word_too_long_to_play_back_keeps_its_ids_on_every_kind(kinds, name, tmp_path):
    """explain() replayed every word merge by merge, in Python, slowing with the square of
    its length: a text a pre-tokenizer keeps as one piece (Metaspace without split) took
    minutes. A word over PLAYBACK_MAX characters now gets its ids and no playback."""
    from bpe_gui.cli.explain import format_explanation
    from bpe_gui.engine.tokenizers.explain import PLAYBACK_MAX
    if name == "one-piece":
        from tokenizers import models, pre_tokenizers, trainers
        hf = tokenizers.Tokenizer(models.BPE(unk_token="<unk>"))
        hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first",
                                                    split=False)
        hf.train_from_iterator([TEXT * 30], trainers.BpeTrainer(
            vocab_size=150, special_tokens=["<unk>"], show_progress=False))
        hf.save(str(tmp_path / "tokenizer.json"))
        tok = load_tokenizer(tmp_path / "tokenizer.json")
    else:
        tok = kinds[name]
    long_word = "lowestnewest" * (PLAYBACK_MAX // 12 + 40)
    text = f"it's {long_word} the newest"
    ex = tok.explain(text)
    assert ex.ids == tok.encode(text)
    long = [w for w in ex.words if len(w.text) > PLAYBACK_MAX]
    assert len(long) == 1 and long[0].playback is None and long[0].token_ids
    short = [w for w in ex.words if len(w.text) <= PLAYBACK_MAX and not w.special]
    if name != "one-piece":   # (there the whole text is the one piece)
        assert short and all(w.playback is not None for w in short)
        assert list(long[0].ids) == tok.encode(long[0].text)
    shown = format_explanation(ex)
    assert f"{len(long[0].text):,} characters: longer than the {PLAYBACK_MAX:,}" in shown
    assert " ".join(map(str, long[0].token_ids[:5])) in shown
