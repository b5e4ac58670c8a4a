"""Special tokens added to a file's own (issue 69): ``load_tokenizer(path,
extra_special_tokens=...)`` and the command line's ``--special-token``, against
tiktoken's ``Encoding(special_tokens={**own, text: next id})`` and tokenizers'
``add_special_tokens``: the file's special tokens keep their ids, a new one gets the next
id after the vocabulary, and it is cut out of text as its library cuts it."""
from __future__ import annotations

import json

import pytest

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")
tokenizers = pytest.importorskip("tokenizers")

from bpe_gui.engine.errors import ArgumentError, ArgumentTypeError, FormatError  # noqa: E402
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer  # noqa: E402
from bpe_gui.engine.formats import known_encodings as known  # noqa: E402
from bpe_gui.engine.text.presets import O200K_PATTERN  # noqa: E402

from test_conformance import EOT, ranks_file, trained  # noqa: E402
from hf_files import CASES  # noqa: E402

NEW = ["<|new|>", "<tool>", EOT]   # two new ones, and one the files already have
TEXTS = [f"a<|new|>b {EOT} c<tool>", "hello<tool><tool> world", "plain text, it's"]


def tiktoken_with(enc, extra: list[str]):
    """tiktoken's own way: a new Encoding with the extra texts after the largest id."""
    own = {t: enc.encode_single_token(t) for t in enc.special_tokens_set}
    top = enc.max_token_value
    added = {t: top + 1 + k for k, t in enumerate(t for t in extra if t not in own)}
    return tiktoken.Encoding(enc.name + "+", pat_str=enc._pat_str,
                             mergeable_ranks=enc._mergeable_ranks,
                             special_tokens={**own, **added})


@pytest.fixture(scope="module")
def ranks_files(tmp_path_factory):
    """A .tiktoken with its metadata, and one recognised as a well-known encoding."""
    d = tmp_path_factory.mktemp("ranks")
    tok = trained().tokenizer()
    export_tokenizer(tok, d, "tiktoken")
    base = {t: i for i, t in tok.vocab.items() if i not in tok.special_ids.values()}
    bare = ranks_file(d / "renamed.tiktoken", base)
    return d / "tokenizer.tiktoken", bare


def test_a_tiktoken_file_adds_as_tiktoken_does(ranks_files):
    path = ranks_files[0]
    meta = json.loads(path.with_name(path.name + ".json").read_text())
    enc = tiktoken.Encoding("t", pat_str=meta["pat_str"],
                            mergeable_ranks=tiktoken_load.load_tiktoken_bpe(str(path)),
                            special_tokens=meta["special_tokens"])
    want = tiktoken_with(enc, NEW)
    tok = load_tokenizer(path, extra_special_tokens=NEW)
    assert tok.special_ids == {t: want.encode_single_token(t) for t in want.special_tokens_set}
    assert tok.special_ids[EOT] == enc.encode_single_token(EOT)   # the file's id kept
    for text in TEXTS:
        assert tok.encode(text, allowed_special="all") == want.encode(text, allowed_special="all")
        assert tok.encode_ordinary(text) == want.encode_ordinary(text)
        ids = want.encode(text, allowed_special="all")
        assert tok.decode(ids) == want.decode(ids)


def test_a_well_known_encoding_adds_after_its_own(ranks_files, monkeypatch):
    bare = ranks_files[1]
    ranks = tiktoken_load.load_tiktoken_bpe(str(bare))
    own = {EOT: max(ranks.values()) + 7, "<|fim_prefix|>": max(ranks.values()) + 9}
    fake = known.KnownEncoding("test_base", "Test", known.content_hash(bare.read_bytes()),
                               O200K_PATTERN, own)
    monkeypatch.setattr(known, "_BY_HASH", {fake.sha256: fake})
    enc = tiktoken.Encoding("k", pat_str=O200K_PATTERN, mergeable_ranks=ranks,
                            special_tokens=own)
    want = tiktoken_with(enc, NEW)
    tok = load_tokenizer(bare, extra_special_tokens=NEW)
    assert tok.meta["encoding"] == "test_base"
    assert tok.special_ids == {t: want.encode_single_token(t) for t in want.special_tokens_set}
    assert tok.special_ids["<|new|>"] == max(own.values()) + 1   # not a hole below them
    for text in TEXTS:
        assert tok.encode(text, allowed_special="all") == want.encode(text, allowed_special="all")


@pytest.mark.parametrize("case", ["llama3-template", "gpt2-bytelevel-regex"])
def test_a_tokenizer_json_adds_as_tokenizers_does(tmp_path, case):
    """Llama 3's added tokens (and its template's BOS) and GPT-2's: the post-processor
    still runs, and a text that is already a token keeps that token's id."""
    if case == "llama3-template":
        hf = CASES["llama3-ignore-merges"]()
        bos = "<|begin_of_text|>"
        hf.post_processor = tokenizers.processors.TemplateProcessing(
            single=f"{bos} $A", special_tokens=[(bos, hf.token_to_id(bos))])
    else:
        hf = CASES[case]()
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    extra = NEW + ["hello"]   # (a word the corpus made a token of, or text)
    tok = load_tokenizer(path, extra_special_tokens=extra)
    own = {t: hf.token_to_id(t) for t in tok.special_tokens if hf.token_to_id(t) is not None}
    hf.add_special_tokens(extra)
    for t in extra + list(own):
        assert tok.special_ids[t] == hf.token_to_id(t), t
    for t, i in own.items():
        if t not in extra:
            assert tok.special_ids[t] == i   # the file's ids unchanged
    for text in TEXTS:
        assert tok.encode(text, allowed_special="all") == hf.encode(text).ids
        assert tok.encode(text, allowed_special="all", add_special_tokens=False) == \
            hf.encode(text, add_special_tokens=False).ids
        ids = hf.encode(text).ids
        assert tok.decode(ids) == hf.decode(ids)


def test_merge_list_files_add_after_their_vocabulary(tmp_path):
    """GPT-2 files and bpe-gui's own: tiktoken over the same ranks is the oracle."""
    t = trained().tokenizer()
    export_tokenizer(t, tmp_path, "gpt2")
    export_tokenizer(t, tmp_path, "native")
    ranks = {b: i for i, b in t.vocab.items() if i not in t.special_ids.values()}
    want = tiktoken_with(tiktoken.Encoding("m", pat_str=t.pattern, mergeable_ranks=ranks,
                                           special_tokens=dict(t.special_ids)), NEW)
    for name in ("vocab.json", "tokenizer.bpe-gui.json"):
        tok = load_tokenizer(tmp_path / name, extra_special_tokens=NEW)
        assert tok.special_ids == {s: want.encode_single_token(s)
                                   for s in want.special_tokens_set}, name
        for text in TEXTS:
            assert tok.encode(text, allowed_special="all") == \
                want.encode(text, allowed_special="all")


def test_an_ordinary_token_cannot_become_special_in_a_merge_list_file(tmp_path):
    t = trained().tokenizer()
    export_tokenizer(t, tmp_path, "gpt2")
    with pytest.raises(FormatError, match=r"'e' to add is already an ordinary token .*id "
                       f"{t.bytes_to_id[b'e']}"):
        load_tokenizer(tmp_path / "vocab.json", extra_special_tokens=["e"])


def test_bad_extra_special_tokens_are_refused_saying_how(ranks_files):
    path = ranks_files[0]
    with pytest.raises(ArgumentTypeError, match=r"extra_special_tokens=\['<x>'\]"):
        load_tokenizer(path, extra_special_tokens="<x>")
    with pytest.raises(ArgumentError, match="empty token; give each special token some text"):
        load_tokenizer(path, extra_special_tokens=["<x>", ""])
    twice = load_tokenizer(path, extra_special_tokens=["<x>", "<x>"])
    assert twice.special_ids == load_tokenizer(path, extra_special_tokens=["<x>"]).special_ids


def test_the_command_line_adds_special_tokens(tmp_path, ranks_files):
    """encode and inspect --special-token: added to the file's (cl100k's <|endoftext|>
    keeps its id), not in place of them."""
    from test_cli import err, out, run
    path = ranks_files[0]
    meta = json.loads(path.with_name(path.name + ".json").read_text())
    enc = tiktoken.Encoding("t", pat_str=meta["pat_str"],
                            mergeable_ranks=tiktoken_load.load_tiktoken_bpe(str(path)),
                            special_tokens=meta["special_tokens"])
    want = tiktoken_with(enc, ["X"])
    text = f"aX{EOT}b"
    p = run("encode", "--tokenizer", str(path), "--special-token", "X", text, "--ids-only",
            cwd=tmp_path)   # (a .tiktoken file refuses typed special text, as tiktoken does)
    assert p.returncode == 2 and "--allowed-special X" in err(p)
    p = run("encode", "--tokenizer", str(path), "--special-token", "X", text, "--ids-only",
            "--allowed-special", "all", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert out(p).split() == [str(i) for i in want.encode(text, allowed_special="all")]
    assert str(enc.max_token_value + 1) in out(p).split()
    p = run("inspect", "--tokenizer", str(path), "--special-token", "X", "--json", "-q",
            cwd=tmp_path)
    special = {t["id"] for t in json.loads(out(p))["special"]}
    assert special == set(want._special_tokens.values())   # (X is also byte 88's text)
