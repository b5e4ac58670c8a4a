"""``bpe-gui encode --explain``: each word, its rule, why it ended, and its merges."""
from __future__ import annotations

import re

import pytest

from bpe_gui.engine.display import readable
from bpe_gui.engine.formats import load_tokenizer
from test_cli import assert_user_error, err, out, run

TEXT = "It's the newest  12345 words!<|endoftext|>你好"
CORPUS = ("low low lower newest newest widest widest widest. It's the newest word!\n"
          "你好，世界。") * 20


def trained(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    p = run("train", "c.txt", "--vocab-size", "300", "--out", "tok", "--format", "native",
            "--special-token", "<|endoftext|>", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    return tmp_path / "tok"


def test_explain_prints_every_word_its_rule_reason_and_merges(tmp_path):
    folder = trained(tmp_path)
    p = run("encode", "--tokenizer", str(folder), "--explain", TEXT, cwd=tmp_path)
    assert p.returncode == 0, err(p)
    text = out(p)
    tok = load_tokenizer(folder)
    ex = tok.explain(TEXT)
    assert text.startswith("Pre-tokenizer: GPT-2, 6 rules")
    blocks = text.split("\n\nword ")[1:]
    assert len(blocks) == len(ex.words)
    ids = []
    for block, w in zip(blocks, ex.words):
        head, reason = block.splitlines()[:2]
        assert w.reason == reason.strip()
        if w.special:
            assert "special token" in head
            ids.append(w.special_id)
            continue
        assert ex.branches[w.branch].label in head
        ranks = [int(r) for r in re.findall(r"^  rank (\d+)", block, re.M)]
        assert ranks == [s.rank for s in w.playback.steps] == sorted(ranks)
        last = block.splitlines()[-1]
        assert last.split("ids ")[-1].split() == [str(i) for i in w.ids]
        assert " ".join(readable(t) for t in w.playback.final_symbols) in last
        ids += w.ids
    assert ids == tok.encode(TEXT, allowed_special="all")


def test_explain_and_ids_only_do_not_go_together(tmp_path):
    folder = trained(tmp_path)
    p = run("encode", "--tokenizer", str(folder), "--explain", "--ids-only", "x", cwd=tmp_path)
    assert_user_error(p, "--explain", "--ids-only")


def _explained_ids(text: str) -> list[int]:
    """The ids of every word block: its tokens line, or a special token's id."""
    ids = []
    for block in text.split("\n\nword ")[1:]:
        head = block.splitlines()[0]
        if "special token, id " in head:
            ids.append(int(head.rsplit("id ", 1)[1]))
        else:
            ids += [int(i) for i in block.splitlines()[-1].split("ids ")[-1].split()]
    return ids


def test_explain_works_with_imported_tiktoken_and_tokenizer_json(tmp_path):
    """It crashed with AttributeError ('_byte_ids') on every imported .tiktoken and
    byte-level tokenizer.json (issue 19); the ids equal tiktoken's and tokenizers'."""
    tiktoken = pytest.importorskip("tiktoken")
    tokenizers = pytest.importorskip("tokenizers")
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    p = run("train", "c.txt", "--vocab-size", "300", "--out", "tok", "--format", "tiktoken",
            "--format", "hf", "--special-token", "<|endoftext|>", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    from tiktoken.load import load_tiktoken_bpe
    meta = __import__("json").loads((tmp_path / "tok" / "tokenizer.tiktoken.json").read_text())
    enc = tiktoken.Encoding("t", pat_str=meta["pat_str"], special_tokens=meta["special_tokens"],
                            mergeable_ranks=load_tiktoken_bpe(str(tmp_path / "tok" /
                                                                  "tokenizer.tiktoken")))
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tok" / "tokenizer.json"))
    for name, want in (("tokenizer.tiktoken", enc.encode(TEXT, allowed_special="all")),
                       ("tokenizer.json", hf.encode(TEXT).ids)):
        p = run("encode", "--tokenizer", str(tmp_path / "tok" / name), "--explain", TEXT,
                cwd=tmp_path)
        assert p.returncode == 0, err(p)
        assert "Traceback" not in err(p)
        assert _explained_ids(out(p)) == want, name


def test_explain_of_a_whitespace_tokenizer_json_names_its_pieces(tmp_path):
    """A tokenizer.json whose pre-tokenizer is no one pattern (Whitespace): the words
    are the pieces it makes (tokenizers' pre_tokenize_str), and the header says so."""
    tk = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers
    hf = tk.Tokenizer(models.BPE(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    hf.train_from_iterator([CORPUS], trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"],
                                                         show_progress=False))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    text = "It's the newest  12345 words!"
    p = run("encode", "--tokenizer", str(path), "--explain", text, cwd=tmp_path)
    assert p.returncode == 0, err(p)
    shown = out(p)
    assert shown.startswith("Pre-tokenizer: The Whitespace pre-tokenizer's pieces")
    words = re.findall(r"^word \d+  “(.*?)”", shown, re.M)
    assert words == [w for w, _ in hf.pre_tokenizer.pre_tokenize_str(text)]
