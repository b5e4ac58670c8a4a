"""Bad input: each gets a typed error whose message says what is wrong and how to fix it."""
from __future__ import annotations

import gzip
import json
import lzma

import pytest

from bpe_gui.engine import (
    CorpusError, NotUTF8Error, PatternError, Pretokenizer, SettingsError, TrainSettings, Trainer,
    train_bpe)
from bpe_gui.engine.text import PRESETS, pretokenize
from bpe_gui.engine.corpus.files import read_documents
from bpe_gui.engine.errors import VocabSizeError


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(CorpusError) as ei:
        train_bpe(missing, vocab_size=300)
    msg = str(ei.value)
    assert "nope.txt" in msg and "not found" in msg and "Check the path" in msg


def test_empty_file(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_bytes(b"")
    with pytest.raises(CorpusError) as ei:
        train_bpe(p, vocab_size=300)
    assert "empty" in str(ei.value) and ("paste" in str(ei.value) or "open" in str(ei.value))


def test_whitespace_only_corpus_in_char_mode(tmp_path):
    p = tmp_path / "blank.txt"
    p.write_text("  \n\t \n   ", encoding="utf-8")
    with pytest.raises(CorpusError) as ei:
        Trainer.from_files(p, TrainSettings(mode="char"))
    msg = str(ei.value).lower()
    assert "whitespace" in msg and "add" in msg


def test_not_utf8_names_the_byte_offset(tmp_path):
    good = "héllo wörld, 你好\n".encode("utf-8") * 3
    data = good + "café".encode("latin-1") + b" more"
    p = tmp_path / "latin1.txt"
    p.write_bytes(data)
    with pytest.raises(NotUTF8Error) as ei:
        train_bpe(p, vocab_size=300)
    err = ei.value
    expected = len(good) + 3  # "caf" then the latin-1 é
    assert err.offset == expected
    with pytest.raises(UnicodeDecodeError) as raw:
        data.decode("utf-8")
    assert err.offset == raw.value.start
    msg = str(err)
    assert f"offset {expected}" in msg and "UTF-8" in msg and "latin-1" in msg
    # the fix it offers works: the user names the encoding
    assert read_documents(p, encoding="latin-1")[0].endswith("café more")


def test_binary_file(tmp_path):
    p = tmp_path / "image.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(CorpusError) as ei:
        train_bpe(p, vocab_size=300)
    assert "binary" in str(ei.value) and ".txt" in str(ei.value)


@pytest.mark.parametrize("mode,specials", [
    ("byte", ()), ("byte", ("<|endoftext|>", "<pad>")), ("char", ()), ("char", ("<s>",))])
def test_vocab_size_below_base_alphabet(mode, specials):
    base = 256 if mode == "byte" else 5  # char mode on "abc": a b c </w> <unk>
    need = base + len(specials)
    with pytest.raises(SettingsError) as ei:
        Trainer.from_text("abc abc", TrainSettings(vocab_size=need - 1, mode=mode,
                                                   special_tokens=specials))
    msg = str(ei.value)
    assert str(need - 1) in msg and f"at least {need}" in msg


def test_vocab_size_at_base_alphabet_is_fine():
    t = Trainer.from_text("abc abc", TrainSettings(vocab_size=256))
    assert t.step() is None


def test_empty_special_token():
    with pytest.raises(SettingsError) as ei:
        Trainer.from_text("abc", TrainSettings(special_tokens=("<|endoftext|>", "")))
    assert "#2" in str(ei.value) and "empty" in str(ei.value)


def test_duplicate_special_token():
    with pytest.raises(SettingsError) as ei:
        Trainer.from_text("abc", TrainSettings(special_tokens=("<s>", "</s>", "<s>")))
    assert "'<s>'" in str(ei.value) and "twice" in str(ei.value) and "Remove" in str(ei.value)


def test_pattern_that_does_not_compile():
    with pytest.raises(PatternError) as ei:
        Trainer.from_text("abc", TrainSettings(pattern=r"(\p{L}+"))
    msg = str(ei.value)
    assert "does not compile" in msg and "position" in msg and "Fix the pattern" in msg
    assert isinstance(ei.value, SettingsError)


RUNAWAY = r"(.*){1,32000}[bc]"  # the regex module really backtracks on this one


def test_pattern_that_runs_away_in_training(monkeypatch):
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.1)
    with pytest.raises(PatternError) as ei:
        Trainer.from_text("a" * 40, TrainSettings(pattern=RUNAWAY))
    msg = str(ei.value)
    assert "ran for more than 0.1 s" in msg and "preset" in msg


def test_pattern_that_runs_away_in_encoding(monkeypatch):
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.1)
    from bpe_gui.engine import Tokenizer
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], pattern=RUNAWAY)
    for call in (tok.encode, tok.encode_with_offsets, lambda t: list(tok.encode_iterable([t], allowed_special="all"))):
        with pytest.raises(PatternError, match="simplify it or pick a preset"):
            call("a" * 40)


def test_presets_are_not_time_limited():
    assert Pretokenizer("gpt2").timeout is None
    assert Pretokenizer(r"\w+|\s+").timeout == pretokenize.CUSTOM_TIMEOUT_S


def test_jsonl_without_text_field(tmp_path):
    p = tmp_path / "docs.jsonl"
    p.write_text(json.dumps({"text": "fine"}) + "\n" + json.dumps({"body": "oops"}) + "\n",
                 encoding="utf-8")
    with pytest.raises(CorpusError) as ei:
        train_bpe(p, vocab_size=300)
    msg = str(ei.value)
    assert "line 2" in msg and '"text"' in msg and "docs.jsonl" in msg


def test_jsonl_with_bad_json(tmp_path):
    p = tmp_path / "docs.jsonl.gz"
    with gzip.open(p, "wt", encoding="utf-8") as f:
        f.write('{"text": "a"}\n{"text": \n')
    with pytest.raises(CorpusError, match="line 2 is not valid JSON"):
        read_documents(p)


@pytest.mark.regression
def test_jsonl_bad_json_names_the_column(tmp_path):
    """A bad .jsonl line said "(Invalid control character at)": json's message ends in
    "at", and the column was left out."""
    p = tmp_path / "docs.jsonl"
    p.write_text('{"text": "a"}\n{"text": "b\x01"}\n', encoding="utf-8")
    with pytest.raises(CorpusError) as ei:
        train_bpe(p, vocab_size=300)
    assert "line 2 is not valid JSON (Invalid control character at column 12)" \
        in str(ei.value)



def test_jsonl_documents_are_kept_apart(tmp_path):
    p = tmp_path / "docs.jsonl"
    p.write_text('{"text": "ab"}\n\n{"text": "ab"}\n', encoding="utf-8")
    assert read_documents(p) == ["ab", "ab"]


def test_truncated_xz(tmp_path):
    data = lzma.compress(("some text to compress " * 2000).encode())
    p = tmp_path / "corpus.txt.xz"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError) as ei:
        train_bpe(p, vocab_size=300)
    msg = str(ei.value)
    assert "corpus.txt.xz" in msg and "decompressed" in msg and "truncated" in msg


def test_xz_and_gz_read(tmp_path):
    text = "hello 你好\n" * 10
    (tmp_path / "a.txt.xz").write_bytes(lzma.compress(text.encode()))
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(text.encode()))
    assert read_documents(tmp_path / "a.txt.xz") == [text] == read_documents(tmp_path / "a.txt.gz")


def test_folder_instead_of_file(tmp_path):
    with pytest.raises(CorpusError, match="folder"):
        train_bpe(tmp_path, vocab_size=300)


@pytest.mark.parametrize("field,value,words", [
    ("mode", "bytes", "'byte' or 'char'"), ("tie_rule", "random", "greatest"),
    ("min_frequency", 0, "at least 1"), ("end_of_word", "middle", "'suffix' or 'prefix'"),
    ("num_merges", -1, "0 or more")])
def test_bad_settings(field, value, words):
    with pytest.raises(SettingsError, match=words):
        TrainSettings(**{field: value}).validated()


# ----- the vocab size rule lives in TrainSettings.validated (issue #12) ----------------
@pytest.mark.parametrize("settings,n_base,bad", [
    (TrainSettings(vocab_size=255), None, True),                       # byte: 256 known
    (TrainSettings(vocab_size=256, special_tokens=("<s>",)), None, True),
    (TrainSettings(vocab_size=257, special_tokens=("<s>",)), None, False),
    (TrainSettings(vocab_size=4, mode="char"), None, False),           # alphabet unknown
    (TrainSettings(vocab_size=4, mode="char"), 5, True),
    (TrainSettings(vocab_size=5, mode="char"), 5, False),
    (TrainSettings(vocab_size=10, num_merges=3), None, False),         # merges decide
    (TrainSettings(vocab_size=10, prune=True), None, False),           # live symbols only
])
def test_validated_checks_the_vocab_size(settings, n_base, bad):
    if bad:
        with pytest.raises(VocabSizeError) as ei:
            settings.validated(n_base=n_base)
        need = (256 if settings.mode == "byte" else n_base) + len(settings.special_tokens)
        assert f"at least {need}" in str(ei.value)
    else:
        assert settings.validated(n_base=n_base).vocab_size == settings.vocab_size


def test_trainer_and_retarget_say_what_validated_says():
    """One rule, one message: the trainer (which knows a char-mode alphabet) and
    retarget raise exactly what TrainSettings.validated raises."""
    def message(fn):
        with pytest.raises(VocabSizeError) as ei:
            fn()
        return str(ei.value)
    byte = TrainSettings(vocab_size=200, special_tokens=("<s>",))
    char = TrainSettings(vocab_size=4, mode="char")
    assert message(lambda: Trainer.from_text("abc abc", byte)) == message(byte.validated)
    assert message(lambda: Trainer.from_text("abc abc", char)) == \
        message(lambda: char.validated(n_base=5))          # a b c </w> <unk>
    t = Trainer.from_text("abc abc", TrainSettings(num_merges=1))
    assert message(lambda: t.retarget(TrainSettings(vocab_size=200))) == \
        message(TrainSettings(vocab_size=200).validated)


# A published pattern's name where a pattern is asked for: it was taken for a regex that
# matched only itself, so training said "The corpus is empty".
NAMED_CORPUS = ("Llama 3 counts 12345 and 2024; Qwen2 counts 1 2 3 one digit at a time.\n"
                "it's 'em, don't you see? 满纸荒唐言 \r\n  ") * 20


@pytest.mark.parametrize("name, key", [("llama3", "LLAMA3_PATTERN"), ("Llama-3", "LLAMA3_PATTERN"),
                                       ("qwen2", "QWEN2_PATTERN"), ("tekken", "TEKKEN_PATTERN")])
def test_a_published_patterns_name_trains_with_that_pattern(name, key):
    from bpe_gui.engine.text import presets
    pattern = getattr(presets, key)

    def merges(p):
        t = Trainer.from_text(NAMED_CORPUS, TrainSettings(vocab_size=300, pattern=p))
        t.run()
        return t.merges

    assert TrainSettings(pattern=name).pattern == pattern   # saved and shown as the pattern
    by_name = merges(name)
    assert by_name == merges(pattern)
    assert by_name != merges("gpt2")   # the corpus tells the patterns apart


@pytest.mark.regression
@pytest.mark.parametrize("name, key", [("gpt4", "cl100k"), ("GPT-4", "cl100k"), ("gpt-2", "gpt2"),
                                       ("GPT2", "gpt2"), ("ws", "whitespace"),
                                       ("gpt4o", "o200k"), ("gpt-4o", "o200k")])
def test_a_presets_other_spelling_becomes_its_name(name, key):
    """A preset's other spelling (gpt4) was kept as typed, so the window, which shows the
    preset (cl100k), read it as a change not applied."""
    assert TrainSettings(pattern=name).pattern == key
    assert TrainSettings(pattern=key).pattern == key


@pytest.mark.regression
@pytest.mark.parametrize("key", sorted(PRESETS))
def test_a_presets_written_out_pattern_becomes_its_name(key):
    """A preset's pattern written out (as sessions saved before the spelling fix hold it)
    stayed as it was, and the window, which shows the preset, read it as not applied."""
    assert TrainSettings(pattern=PRESETS[key]).pattern == key
    custom = PRESETS[key] + "|x"   # (not a preset's: kept as written)
    assert TrainSettings(pattern=custom).pattern == custom


@pytest.mark.parametrize("word", ["llama4", "gpt5", "my_pattern"])
def test_a_plain_word_that_names_no_pattern_is_refused(word, tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(NAMED_CORPUS, encoding="utf-8")
    for call in (lambda: Trainer.from_text(NAMED_CORPUS, TrainSettings(pattern=word)),
                 lambda: train_bpe(str(path), vocab_size=300, pattern=word)):
        with pytest.raises(PatternError) as ei:
            call()
        msg = str(ei.value)
        assert repr(word) in msg and "matches only" in msg
        assert "llama3" in msg and "cl100k" in msg and "regular expression" in msg
