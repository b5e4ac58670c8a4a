"""`bpe-gui train --lines` / `bpe-gui count --lines`: Hugging Face's merges from the
command line, and tables counted the other way refused with a reason."""
from __future__ import annotations

import json

import pytest

from test_cli import CORPUS, assert_user_error, run

tokenizers = pytest.importorskip("tokenizers")


def hf_merges(path, vocab_size: int) -> list:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train([str(path)], trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=0, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return [list(m) if isinstance(m, list) else m.split(" ")
            for m in json.loads(tok.to_str())["model"]["merges"]]


def their_merges(path) -> list:
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    return [list(m) if isinstance(m, list) else m.split(" ") for m in merges]


def test_train_lines_with_hf_rule_writes_hf_merges_and_tables_follow(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS.replace(". ", ".  \n   ") * 3, encoding="utf-8")
    p = run("train", str(corpus), "--vocab-size", "400", "--lines", "--tie-break",
            "lowest-ids-hf", "--format", "hf", "--out", "a", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    want = hf_merges(corpus, 400)
    assert their_merges(tmp_path / "a" / "tokenizer.json") == want
    # a table counted with --lines trains the same, --lines taken from it
    assert run("count", str(corpus), "--lines", "--out", "l.tsv", cwd=tmp_path).returncode == 0
    p = run("train", "--counts", "l.tsv", "--vocab-size", "400", "--tie-break",
            "lowest-ids-hf", "--format", "hf", "--out", "b", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert their_merges(tmp_path / "b" / "tokenizer.json") == want
    # a table counted from whole files cannot be read by lines
    assert run("count", str(corpus), "--out", "w.tsv", cwd=tmp_path).returncode == 0
    assert_user_error(run("train", "--counts", "w.tsv", "--vocab-size", "400", "--lines",
                          "--out", "c", cwd=tmp_path),
                      "--lines needs words counted one line at a time", "w.tsv",
                      "bpe-gui count --lines")
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("count_first", [False, True])
def test_lines_keeps_a_bom_as_hf_does(tmp_path, count_first):
    """HF reads a file's BOM as U+FEFF and merges its bytes like any others (was: dropped,
    4 merges against HF's 6); a table counted with --lines keeps it too."""
    corpus = tmp_path / "bom.txt"
    corpus.write_bytes(b"\xef\xbb\xbfhello world\nthe cat sat\nhello there\n")
    source = [str(corpus)]
    if count_first:
        assert run("count", str(corpus), "--lines", "--out", "t.tsv", cwd=tmp_path).returncode == 0
        source = ["--counts", "t.tsv"]
    p = run("train", *source, "--vocab-size", "300", "--lines", "--tie-break",
            "lowest-ids-hf", "--format", "hf", "--out", "a", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    want = hf_merges(corpus, 300)
    assert ["»", "¿"] in want   # (the BOM's bytes EF BB BF, in GPT-2's spelling)
    assert their_merges(tmp_path / "a" / "tokenizer.json") == want


def test_lines_says_when_a_word_over_64_kib_is_cut(tmp_path):
    """HF keeps such a word whole; we cut it into 64 KiB pieces (memory: word_limit.py),
    and the run says so, naming --lines's difference. A corpus without one: no note, and
    HF's merges."""
    long_word = ("ab" * 40_000) + "\n"
    (tmp_path / "long.txt").write_text("hello world\n" * 5 + long_word, "utf-8")
    (tmp_path / "short.txt").write_text("hello world\n" * 5 + "ab" * 100 + "\n", "utf-8")
    p = run("train", "long.txt", "--vocab-size", "270", "--lines", "--tie-break",
            "lowest-ids-hf", "--format", "hf", "--out", "a", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    note = p.stderr.decode()
    assert "bpe-gui: note: words longer than 64 KiB were cut" in note
    assert "at 1 place(s)" in note   # 80,000 bytes: one cut
    assert "Hugging Face's trainer keeps them whole" in note
    p = run("train", "short.txt", "--vocab-size", "270", "--lines", "--tie-break",
            "lowest-ids-hf", "--format", "hf", "--out", "b", "-q", cwd=tmp_path)
    assert p.returncode == 0 and p.stderr == b""
    assert their_merges(tmp_path / "b" / "tokenizer.json") == hf_merges(tmp_path / "short.txt", 270)


@pytest.mark.parametrize("size,cuts", [(65_533, 0), (65_536, 0), (65_537, 1),
                                       (3 * 65_536 + 1, 3)])
def test_the_cut_note_comes_from_the_cuts_made(tmp_path, size, cuts):
    """A word of 65,533-65,536 bytes is taken whole (the note said it was cut: it judged
    by the words' lengths in the table); one byte more is one cut, and the note says
    how many were made."""
    (tmp_path / "c.txt").write_text("hello world\n" * 5 + "a" * size + "\n", "utf-8")
    p = run("train", "c.txt", "--vocab-size", "260", "--lines", "--format", "hf", "--out",
            "a", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    note = p.stderr.decode()
    if cuts:
        assert f"cut into pieces of at most 64 KiB before training, at {cuts} place(s)" in note
    else:
        assert note == ""


def test_check_takes_lines_from_our_file_and_as_a_flag(tmp_path):
    """`check` counts the reference as the result was trained: one text per line from a
    .bpe-gui.json that records it (was: whole texts, so our own --lines output checked
    as different), and from --lines for files that record nothing -- held against the
    merges tokenizers' BpeTrainer wrote itself."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS.replace(". ", ".  \n   ") * 3, encoding="utf-8")
    p = run("train", str(corpus), "--vocab-size", "400", "--lines", "--tie-rule",
            "lowest-ids-hf", "--format", "native", "--out", "a", "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    ours = tmp_path / "a" / "tokenizer.bpe-gui.json"
    p = run("check", "--tokenizer", str(ours), "--corpus", str(corpus), cwd=tmp_path)
    assert p.returncode == 0, p.stdout.decode()
    assert "one text per line (from tokenizer.bpe-gui.json)" in p.stdout.decode()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train([str(corpus)], trainers.BpeTrainer(
        vocab_size=400, min_frequency=0, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.save(str(tmp_path / "hf.json"))
    hf = ["--tokenizer", "hf.json", "--corpus", str(corpus), "--tie-rule", "lowest-ids-hf"]
    p = run("check", *hf, "--lines", cwd=tmp_path)
    assert p.returncode == 0, p.stdout.decode()
    assert "one text per line (given)" in p.stdout.decode()
    # whole texts (a word may span a line break) part from HF's merges on this corpus
    assert run("check", *hf, cwd=tmp_path).returncode == 1


def test_train_on_with_lines_counts_one_text_per_line(tmp_path):
    """--from with --lines (was: accepted and ignored, and a table counted with --lines
    refused for want of it): on from a tokenizer of no merges, with HF's tie rule,
    tokenizers' BpeTrainer merges; from a table counted with --lines, the same."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS.replace(". ", ".  \n   ") * 3, encoding="utf-8")
    assert run("train", str(corpus), "--num-merges", "0", "--format", "native", "--out",
               "src", "-q", cwd=tmp_path).returncode == 0
    on = ["--from", "src/tokenizer.bpe-gui.json", "--num-merges", "100", "--tie-rule",
          "lowest-ids-hf", "--format", "hf", "-q"]
    want = hf_merges(corpus, 356)
    p = run("train", str(corpus), *on, "--lines", "--out", "a", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert their_merges(tmp_path / "a" / "tokenizer.json") == want
    p = run("train", str(corpus), *on, "--out", "w", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert their_merges(tmp_path / "w" / "tokenizer.json") != want   # (words span lines)
    assert run("count", str(corpus), "--lines", "--out", "l.tsv", cwd=tmp_path).returncode == 0
    p = run("train", "--counts", "l.tsv", *on, "--lines", "--out", "b", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert their_merges(tmp_path / "b" / "tokenizer.json") == want


@pytest.mark.parametrize("superbpe", [["--superbpe-from", "20"], ["--from", "src", "--superbpe"]])
def test_superbpe_refuses_lines_with_the_reason(superbpe, tmp_path):
    """SuperBPE reads stage 2 line by line with its own pattern (was: --lines accepted,
    same merges as without)."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    assert run("train", str(corpus), "--num-merges", "30", "--format", "native", "--out",
               "src", "-q", cwd=tmp_path).returncode == 0
    assert_user_error(run("train", str(corpus), *superbpe, "--num-merges", "40", "--lines",
                          "--out", "o", cwd=tmp_path),
                      "--lines: SuperBPE reads its corpus its own way", "leave --lines out")
    assert not (tmp_path / "o").exists()
