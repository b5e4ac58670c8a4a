"""The sweep, Python half: hostile tokenizer files and word-count tables.

Hostile files get the care broken ones get: a FormatError (or, for a pattern that runs
away while encoding, a PatternError) naming the file and, where it can, the key or line;
no other exception, no hang, bounded memory. Where a file means something to Hugging
Face ``tokenizers`` (an added token whose id clashes, an empty Split regex, a merge
given twice) it loads and encodes exactly as ``tokenizers`` does.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from bpe_gui.engine import BPEError, FormatError, PatternError, TrainSettings, Trainer
from bpe_gui.engine.corpus.table_file import read_table, write_table
from bpe_gui.engine.corpus.counting import PretokenTable, count_corpus
from bpe_gui.engine.errors import CorpusError
from bpe_gui.engine.display import gpt2_text
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer

tokenizers = pytest.importorskip("tokenizers")

CORPUS = "low low lower newest newest widest widest widest "
TEXTS = ["low lower newest", "h<x>h a <s>", "", "aaa widest  lowest\n\nnew"]
ADDED = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    t = Trainer.from_text(CORPUS * 5, TrainSettings(num_merges=10, special_tokens=("<s>",)))
    t.run()
    folder = tmp_path_factory.mktemp("exported")
    for fmt in ("hf", "gpt2", "tiktoken", "native"):
        export_tokenizer(t.tokenizer(), folder / fmt, fmt)
    return folder


def refused(call, path: Path, *words: str, kind: type = FormatError) -> BPEError:
    with pytest.raises(BPEError) as info:
        call()
    err = info.value
    assert isinstance(err, kind), f"{type(err).__name__}: {err}"
    assert str(path) in str(err)
    for w in words:
        assert w in str(err), f"{w!r} not in {str(err)!r}"
    return err


def hf_file(exported: Path, tmp_path: Path, change) -> Path:
    doc = json.loads((exported / "hf" / "tokenizer.json").read_text(encoding="utf-8"))
    change(doc)
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def same_as_tokenizers(p: Path, texts=TEXTS) -> None:
    ours, theirs = load_tokenizer(p), tokenizers.Tokenizer.from_file(str(p))
    for text in texts:
        assert ours.encode(text, allowed_special="all") == theirs.encode(text, add_special_tokens=False).ids, text


# ----- deeply nested JSON ----------------------------------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name", ["tokenizer.json", "vocab.json", "t.bpe-gui.json",
                                  "other.json"])
def test_json_too_deep_for_python(tmp_path, name):
    p = tmp_path / name
    p.write_text('{"model": ' + DEEP + "}" if name == "tokenizer.json" else DEEP)
    refused(lambda: load_tokenizer(p), p, "levels deep")


def test_tiktoken_metadata_too_deep(exported, tmp_path):
    (tmp_path / "t.tiktoken").write_bytes((exported / "tiktoken/tokenizer.tiktoken").read_bytes())
    meta = tmp_path / "t.tiktoken.json"
    meta.write_text('{"pat_str": "gpt2", "x": ' + DEEP + "}")
    refused(lambda: load_tokenizer(tmp_path / "t.tiktoken"), meta, "levels deep")


def test_nesting_tokenizers_refuses_is_refused_here_too(exported, tmp_path):
    # 200 levels: Python reads it, tokenizers (serde_json, 128 at most) refuses it
    node: dict = {"type": "NFC"}
    for _ in range(200):
        node = {"type": "Sequence", "normalizers": [node]}
    p = hf_file(exported, tmp_path, lambda d: d.update(normalizer=node))
    with pytest.raises(Exception):
        tokenizers.Tokenizer.from_file(str(p))
    refused(lambda: load_tokenizer(p), p, "128 levels")


# ----- tiktoken ranks ----------------------------------------------------------------------
@pytest.mark.parametrize("rank, words", [("99999999999", ("99999999999", "too large")),
                                         ("99999999999999999999999", ("too large",)),
                                         ("-5", ("-5", "negative")),
                                         ("x1", ("'x1'", "not a whole number"))])
def test_tiktoken_rank_named_as_such(exported, tmp_path, rank, words):
    lines = (exported / "tiktoken/tokenizer.tiktoken").read_text().splitlines()
    lines[3] = lines[3].split(" ")[0] + " " + rank
    p = tmp_path / "t.tiktoken"
    p.write_text("\n".join(lines) + "\n")
    err = refused(lambda: load_tokenizer(p), p, *words)
    assert err.line == 4


def test_tiktoken_bad_pat_str_names_file_and_key(exported, tmp_path):
    (tmp_path / "t.tiktoken").write_bytes((exported / "tiktoken/tokenizer.tiktoken").read_bytes())
    meta = tmp_path / "t.tiktoken.json"
    meta.write_text(json.dumps({"pat_str": "(", "special_tokens": {}}))
    err = refused(lambda: load_tokenizer(tmp_path / "t.tiktoken"), meta, "does not compile")
    assert err.key == "pat_str"
    meta.write_text(json.dumps({"pat_str": "gpt2", "special_tokens": {"": 300}}))
    refused(lambda: load_tokenizer(tmp_path / "t.tiktoken"), meta, "empty", "special_tokens")
    meta.write_text(json.dumps({"pat_str": "gpt2", "special_tokens": {"<x>": 2**40}}))
    refused(lambda: load_tokenizer(tmp_path / "t.tiktoken"), meta, "too large")


# ----- tokenizer.json files that mean something to tokenizers ------------------------------
def test_added_token_whose_id_clashes_gets_the_id_tokenizers_gives(exported, tmp_path):
    # 104 is 'h' in the model's vocabulary; tokenizers gives <x> the next free id instead
    p = hf_file(exported, tmp_path, lambda d: d["added_tokens"].append(
        {"id": 104, "content": "<x>", "special": True, **ADDED}))
    same_as_tokenizers(p)
    theirs = tokenizers.Tokenizer.from_file(str(p))
    assert load_tokenizer(p).decode([104]) == theirs.decode([104]) == "h"


def test_added_token_of_a_model_token_takes_the_model_id(exported, tmp_path):
    p = hf_file(exported, tmp_path, lambda d: d["added_tokens"].append(
        {"id": 300, "content": "h", "special": True, **ADDED}))
    same_as_tokenizers(p)


def test_empty_added_token_is_ignored_as_tokenizers_does(exported, tmp_path):
    p = hf_file(exported, tmp_path, lambda d: d["added_tokens"].append(
        {"id": 300, "content": "", "special": True, **ADDED}))
    same_as_tokenizers(p)


@pytest.mark.parametrize("pattern", [{"Regex": ""}, {"String": ""}, {"Regex": "a*"}])
@pytest.mark.parametrize("behavior", ["Isolated", "Removed", "MergedWithPrevious",
                                      "MergedWithNext", "Contiguous"])
def test_split_with_empty_matches_cuts_as_tokenizers(exported, tmp_path, pattern, behavior):
    def change(d):
        d["pre_tokenizer"]["pretokenizers"][0].update(pattern=pattern, behavior=behavior)
    same_as_tokenizers(hf_file(exported, tmp_path, change), TEXTS + ["baab aab", "aa"])


def test_merge_given_twice_ranks_last_as_gpt2_and_tokenizers(tmp_path):
    vocab = {gpt2_text(bytes([b])): b for b in range(256)}
    vocab.update({"ab": 256, "bc": 257})
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\nb c\na b\nb c\n")
    theirs = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(
        str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    theirs.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = load_tokenizer(tmp_path / "vocab.json")
    assert ours.encode("abc", allowed_special="all") == theirs.encode("abc").ids == [256, ord("c")]


# ----- patterns that run away --------------------------------------------------------------
RUNAWAY = """
    import json, sys
    from bpe_gui.engine import PatternError
    from bpe_gui.engine.text import pretokenize
    from bpe_gui.engine.formats import load_tokenizer
    pretokenize.CUSTOM_TIMEOUT_S = 0.5
    tok = load_tokenizer(sys.argv[1])
    try:
        tok.encode("a" * 60 + "b", allowed_special="all")
    except PatternError as e:
        print("REFUSED", e)
"""


@pytest.mark.slow
@pytest.mark.parametrize("where", ["split", "replace"])
def test_backtracking_regex_in_tokenizer_json_is_time_limited(exported, tmp_path, where):
    bad = {"Regex": "(a|aa)+$"}
    if where == "split":
        p = hf_file(exported, tmp_path, lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(
            pattern=bad))
    else:
        p = hf_file(exported, tmp_path, lambda d: d.update(
            normalizer={"type": "Replace", "pattern": bad, "content": "x"}))
    # a subprocess: without a limit it would run for hours
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(RUNAWAY), str(p)],
                         capture_output=True, text=True, timeout=120)
    assert "REFUSED" in run.stdout, run.stderr[-2000:]
    assert str(p) in run.stdout and ".Regex" in run.stdout and "0.5 s" in run.stdout


def test_backtracking_pat_str_names_the_metadata_file(exported, tmp_path, monkeypatch):
    from bpe_gui.engine.text import pretokenize
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.3)
    (tmp_path / "t.tiktoken").write_bytes((exported / "tiktoken/tokenizer.tiktoken").read_bytes())
    meta = tmp_path / "t.tiktoken.json"
    meta.write_text(json.dumps({"pat_str": "(a|aa)+$", "special_tokens": {}}))
    tok = load_tokenizer(tmp_path / "t.tiktoken")
    refused(lambda: tok.encode("a" * 60 + "b", allowed_special="all"), meta, "pat_str", kind=PatternError)


# ----- garbage ---------------------------------------------------------------------------
def sparse(p: Path, head: bytes, size: int) -> Path:
    with open(p, "wb") as f:   # a hole after the head: no disk used
        f.write(head)
        f.truncate(size)
    return p


@pytest.mark.parametrize("name", ["tokenizer.json", "vocab.json", "x.tiktoken",
                                  "x.bpe-gui.json", "other.json"])
@pytest.mark.parametrize("head", [random.Random(0).randbytes(4096),
                                  b'{"model": {"vocab": {"a": 1, '], ids=["random", "json"])
def test_garbage_is_refused_from_its_head_in_bounded_memory(tmp_path, name, head):
    p = sparse(tmp_path / name, head, 96 << 20)
    tracemalloc.start()
    try:
        refused(lambda: load_tokenizer(p), p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"{peak:,} bytes traced to refuse a 96 MiB file"


def test_a_gigabyte_is_refused_by_its_size(tmp_path):
    # a head that looks like JSON: only the size gives it away
    p = sparse(tmp_path / "tokenizer.json", b'{"model": ' + b" " * (80 << 10), 1 << 30)
    refused(lambda: load_tokenizer(p), p, "1.07 GB", "512 MiB")


def test_utf16_file_is_named_as_such(exported, tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_bytes((exported / "hf/tokenizer.json").read_text().encode("utf-16"))
    refused(lambda: load_tokenizer(p), p, "UTF-16")


# ----- not BPE, ids no machine holds -------------------------------------------------------
@pytest.mark.parametrize("model, kind", [
    ({"type": "Unigram", "unk_id": 0, "vocab": [["a", -1.0]]}, "Unigram"),
    ({"unk_id": 0, "vocab": [["a", -1.0]]}, "Unigram"),
    ({"type": "WordPiece", "unk_token": "a", "vocab": {"a": 0}}, "WordPiece"),
    ({"unk_token": "a", "vocab": {"a": 0}, "continuing_subword_prefix": "##",
      "max_input_chars_per_word": 100}, "WordPiece"),
    ({"type": "WordLevel", "unk_token": "a", "vocab": {"a": 0}}, "WordLevel"),
])
@pytest.mark.parametrize("own", [False, True])
def test_non_bpe_models_get_a_clear_sentence(exported, tmp_path, model, kind, own):
    p = hf_file(exported, tmp_path, lambda d: d.update(model=model))
    call = (lambda: load_tokenizer(p, special_tokens=[])) if own else (lambda: load_tokenizer(p))
    err = refused(call, p, f"is a {kind} model; only BPE tokenizers can be loaded")
    assert err.key == "model.type" and "cannot run this part" not in str(err)


@pytest.mark.parametrize("change, words", [
    (lambda d: d["added_tokens"].append({"id": 2**40, "content": "<y>", "special": True,
                                         **ADDED}), ("added_tokens[1].id", "too large")),
    (lambda d: d["added_tokens"].append({"id": -3, "content": "<y>", "special": True,
                                         **ADDED}), ("added_tokens[1].id", "negative")),
    (lambda d: d["model"]["vocab"].update(zzz=10**30), ("model.vocab",)),
])
def test_ids_no_machine_holds(exported, tmp_path, change, words):
    p = hf_file(exported, tmp_path, change)
    err = refused(lambda: load_tokenizer(p), p, *words)
    assert "cannot run this part" not in str(err)


def test_native_file_ids(exported, tmp_path):
    doc = json.loads((exported / "native/tokenizer.bpe-gui.json").read_text())
    doc["vocab"][0]["id"] = 2**40
    p = tmp_path / "t.bpe-gui.json"
    p.write_text(json.dumps(doc))
    refused(lambda: load_tokenizer(p), p, "too large", "vocab[0].id")


# ----- word-count table headers (reading only) ----------------------------------------------
@pytest.mark.parametrize("key, value, words", [
    ("modes", [], ("one or both of byte, char",)),
    ("modes", ["word"], ("one or both",)),
    ("pattern", "(", ("does not compile",)),
    ("special_tokens", [""], ("empty",)),
    ("preset", "bogus", ("not a preset",)),
])
def test_table_header_values_name_file_and_key(tmp_path, key, value, words):
    good = tmp_path / "ok.tsv"
    write_table(count_corpus(texts=["low lower newest"]), good)
    first, rest = good.read_text().split("\n", 1)
    magic, version, meta = first.split("\t", 2)
    meta = {**json.loads(meta), key: value}
    if key == "pattern":
        meta["preset"] = None
    p = tmp_path / "bad.tsv"
    p.write_text(f"{magic}\t{version}\t{json.dumps(meta)}\n{rest}")
    for call in (lambda: read_table(p), lambda: Trainer.from_counts(p)):
        err = refused(call, p, *words)
        assert err.key == key and err.line == 1


def test_counts_whose_pairs_pass_2_to_63_are_refused(tmp_path):
    # (a, b) occurs twice in 'abab' x 2**62 = 2**63 times: a 64-bit count wraps negative
    # and another pair would win; the header's totals fit, so only the pairs can tell
    good = tmp_path / "ok.tsv"
    write_table(count_corpus(texts=["abab xy"], pre=None), good)
    first, _ = good.read_text().split("\n", 1)
    magic, version, meta = first.split("\t", 2)
    meta = {**json.loads(meta), "words": 2, "total": 2**62 + 1}
    p = tmp_path / "big.tsv"
    p.write_text(f"{magic}\t{version}\t{json.dumps(meta)}\ncount\tword\n{2**62}\tabab\n"
                 f"1\txy\n")
    with pytest.raises(BPEError, match="2\\*\\*63 - 1") as info:   # the file is named
        Trainer.from_counts(p, TrainSettings(num_merges=1))
    assert str(p) in str(info.value)
    # the same counts built in memory: the trainer (its C core) refuses them in words
    table = PretokenTable.from_words(["abab", "xy"], [2**62, 1])
    with pytest.raises(CorpusError, match="2\\^63 - 1"):
        Trainer(table, TrainSettings(num_merges=1))


def test_only_patterns_that_can_run_away_pay_for_the_time_limit():
    from bpe_gui.engine.formats import known_encodings as known
    from bpe_gui.engine.tokenizers.imported.hf_parts import BYTE_LEVEL_PATTERN
    from bpe_gui.engine.tokenizers.imported.file_patterns import may_run_away
    from bpe_gui.engine.text.pretokenize import PRESETS
    published = [*PRESETS.values(), BYTE_LEVEL_PATTERN, known.R50K_PATTERN,
                 known.CL100K_PATTERN, known.LLAMA3_PATTERN]
    assert not any(may_run_away(p) for p in published)
    for p in ("(a|aa)+$", "(a+)*", "(?:ab){2,50}", r"(\w)\1", "(?i:a)+"):
        assert may_run_away(p), p
    for p in (r"[)]+", r"\)+", "x(?:y)?", r"[^)]*", r"\p{N}{1,3}"):
        assert not may_run_away(p), p


@pytest.mark.parametrize("size", [70_000, 3 << 20, (16 << 20) + 5000])
def test_a_nul_past_the_head_is_refused_at_its_offset(tmp_path, size):
    """A file read in one piece (up to 16 MiB) or by chunks names the first NUL's offset
    and otherwise comes back whole."""
    from bpe_gui.engine.io.reading import read_bytes
    body = b'{"model": {"vocab": {' + b'"a": 1, ' * (size // 8) + b'"b": 2}}}'
    p = tmp_path / "tokenizer.json"
    p.write_bytes(body)
    assert read_bytes(p, "JSON") == body
    at = len(body) - 100
    p.write_bytes(body[:at] + b"\0" + body[at + 1:] + b"\0")
    refused(lambda: load_tokenizer(p), p, f"a NUL byte at byte offset {at}")


def test_readers_word_a_missing_file_and_a_folder_alike(tmp_path):
    """io.reading.opened is the one wording of a file that cannot be opened: CLIP's
    merges, GGUF's metadata and SentencePiece's model say the same, naming what to pick."""
    from bpe_gui.engine.errors import FormatError
    from bpe_gui.engine.formats.clip_fmt import read_clip_merges
    from bpe_gui.engine.formats.gguf_fmt import read_metadata
    from bpe_gui.engine.formats.sentencepiece_fmt import read_model
    for read, what in ((read_clip_merges, "the merges file"), (read_metadata, "a .gguf file"),
                       (read_model, "a tokenizer.model file")):
        with pytest.raises(FormatError, match="file not found. Check the path, or pick"):
            read(tmp_path / "missing")
        with pytest.raises(FormatError, match=f"is a folder; pick {what} inside it"):
            read(tmp_path)


# ----- tampered pickles: a pickle holds a loaded tokenizer's files (formats/sources.py) ---
@pytest.fixture
def pickled(tmp_path):
    """A tokenizer loaded from a .tiktoken file, and its pickle's snapshot."""
    t = Trainer.from_text("low lower lowest newer wider " * 20, TrainSettings(num_merges=20))
    t.run()
    export_tokenizer(t.tokenizer(), tmp_path / "tok", "tiktoken")
    tok = load_tokenizer(tmp_path / "tok" / "tokenizer.tiktoken")
    return tok, tok.source.snapshot()


def _tampered(snap, **fields):
    import dataclasses
    return dataclasses.replace(snap, **fields)


@pytest.mark.regression
@pytest.mark.parametrize("change, said", [
    (lambda s: _tampered(s, files=()), "holds no tokenizer file"),
    (lambda s: _tampered(s, files=((s.files[0][0], "text"),)), "not a file's name and bytes"),
    (lambda s: _tampered(s, files=((s.files[0][0], s.files[0][1][:-9]),)), "decompress"),
    (lambda s: _tampered(s, files=(("../x.tiktoken", s.files[0][1]),)), "not a plain"),
    (lambda s: _tampered(s, files=(("/tmp/x.tiktoken", s.files[0][1]),)), "not a plain"),
    (lambda s: _tampered(s, files=(("..", s.files[0][1]),)), "not a plain"),
    (lambda s: _tampered(s, files=[s.files[0]]), "holds no tokenizer file"),
    (lambda s: {"files": s.files}, "holds no tokenizer file"),
])
def test_a_tampered_pickle_is_named_and_writes_nothing_outside(pickled, tmp_path,
                                                               monkeypatch, change, said):
    """A snapshot with no file raised IndexError, one with str bytes TypeError, a cut
    stream zlib.error; a file named ../x.tiktoken was written outside the folder."""
    import pickle
    import tempfile
    tok, snap = pickled
    inner = tmp_path / "tmp"
    inner.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(inner))
    raw = pickle.dumps((tok.source.rebuild, change(snap)))
    rebuild, bad = pickle.loads(raw)
    with pytest.raises(FormatError, match=f"pickled tokenizer.*{said}.*[Pp]ickle") as e:
        rebuild(bad)
    assert "Traceback" not in str(e.value)
    assert not (tmp_path / "x.tiktoken").exists() and not Path("/tmp/x.tiktoken").exists()
    assert list(inner.iterdir()) == []   # the folder it made is gone too


@pytest.mark.regression
def test_one_changed_byte_of_a_pickle_is_named(pickled):
    """One changed byte of the compressed stream raised a raw zlib.error."""
    import pickle
    tok, snap = pickled
    raw = pickle.dumps(tok)
    data = snap.files[0][1]
    k = raw.index(data) + len(data) // 2
    with pytest.raises(FormatError, match="pickled tokenizer"):
        pickle.loads(raw[:k] + bytes([raw[k] ^ 0x55]) + raw[k + 1:])
    assert pickle.loads(raw).encode("lower newer") == tok.encode("lower newer")
