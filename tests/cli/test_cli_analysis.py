"""``bpe-gui inspect`` and ``bpe-gui cost``, run as subprocesses; numbers checked against
tiktoken built from the files the command read."""
from __future__ import annotations

import base64
import csv
import json
import math
import os
import subprocess
import sys
from collections import Counter

import pytest

from test_cli import REPO, assert_user_error, err, out, run

tiktoken = pytest.importorskip("tiktoken")

CORPUS = ("The quick brown fox jumps over the lazy dog. It's a lovely day, isn't it?\n"
          "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n"
          "def square(x):\n    return x * x  # 🙂👍🏽\n<|endoftext|>") * 20


@pytest.fixture(scope="module")
def trained_dir(tmp_path_factory):
    work = tmp_path_factory.mktemp("trained")
    (work / "corpus.txt").write_text(CORPUS, "utf-8")
    p = run("train", "corpus.txt", "--vocab-size", "420", "--out", "tok", "--preset",
            "cl100k", "--special-token", "<|endoftext|>", "-q", cwd=work)
    assert p.returncode == 0, err(p)
    return work / "tok"


def tiktoken_from(folder):
    """tiktoken.Encoding from the exported .tiktoken files (its own loader)."""
    import tiktoken.load
    meta = json.loads((folder / "tokenizer.tiktoken.json").read_text("utf-8"))
    ranks = tiktoken.load.load_tiktoken_bpe(str(folder / "tokenizer.tiktoken"))
    return tiktoken.Encoding("t", pat_str=meta["pat_str"], mergeable_ranks=ranks,
                             special_tokens=meta["special_tokens"])


def oracle_classes(enc) -> dict[str, list[int]]:
    out = {"ok": [], "unreachable": [], "undecodable": [], "special": []}
    specials = set(enc._special_tokens.values())
    for i in range(enc.n_vocab):
        if i in specials:
            out["special"].append(i)
            continue
        try:
            text = enc.decode_single_token_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            out["undecodable"].append(i)
            continue
        out["ok" if enc.encode(text, allowed_special="all") == [i] else "unreachable"].append(i)
    return out


# ----- inspect --------------------------------------------------------------------------
def test_inspect_json_is_tiktokens_classification(tmp_path, trained_dir):
    p = run("inspect", "--tokenizer", str(trained_dir), "--json", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    got = json.loads(out(p))
    assert got["schema"] == "bpe-gui.inspect/2"
    want = oracle_classes(tiktoken_from(trained_dir))
    assert {k: [t["id"] for t in got[k]] for k in want} == want
    assert got["counts"] == {k: len(ids) for k, ids in want.items()}
    enc = tiktoken_from(trained_dir)
    for t in got["undecodable"] + got["ok"]:   # each token's bytes, as tiktoken has them
        assert bytes.fromhex(t["hex"]) == enc.decode_single_token_bytes(t["id"])


def test_inspect_text_lists_counts_and_tokens(tmp_path, trained_dir):
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.json"), cwd=tmp_path)
    assert p.returncode == 0, err(p)
    text = out(p)
    want = oracle_classes(tiktoken_from(trained_dir))
    for kind, ids in want.items():
        assert f"{kind + ':':<13} {len(ids):,}" in text
    assert "undecodable (" in text and "  128  <80>" in text        # readable: hex bytes
    assert "<|endoftext|>" in text and "\n  0  " not in text          # ok ones not listed
    p = run("inspect", "--tokenizer", str(trained_dir), "--limit", "3", "--ok", cwd=tmp_path)
    lines = out(p).splitlines()
    assert "ok (" in out(p) and any(line.startswith("  ... ") for line in lines)


def test_inspect_lists_what_an_unreachable_token_becomes(tmp_path):
    """A vocabulary with 'ing ' (GPT-2's pattern never cuts it out) as tiktoken ranks."""
    ranks = {bytes([b]): b for b in range(256)}
    for t in (b"in", b"ing", b"ing "):
        ranks[t] = len(ranks)
    lines = [f"{base64.b64encode(t).decode()} {r}" for t, r in ranks.items()]
    (tmp_path / "x.tiktoken").write_text("\n".join(lines) + "\n", "ascii")
    (tmp_path / "x.tiktoken.json").write_text(json.dumps(
        {"pat_str": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
         "special_tokens": {}}), "utf-8")
    p = run("inspect", "--tokenizer", str(tmp_path / "x.tiktoken"), cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert "unreachable:  1" in out(p)
    assert "  258  ing·   -> ing ·" in out(p)


def test_inspect_corpus_lists_dead_weight_counted_by_hand(tmp_path):
    """tiktoken ranks a, aa, aaa, aaab: 'aaab' is taken whole (its parts never formed);
    ' aaab' is merged: a three times, then aa, aaa and b once each, so aaa (never an
    output) has IoS 1 and aa (merged 2 times, output once in ' aa') 2/3."""
    ranks = {bytes([b]): b for b in range(256)}
    for t in (b"aa", b"aaa", b"aaab"):
        ranks[t] = len(ranks)
    (tmp_path / "x.tiktoken").write_text("".join(
        f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()), "ascii")
    (tmp_path / "x.tiktoken.json").write_text(json.dumps(
        {"pat_str": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
         "special_tokens": {}}), "utf-8")
    (tmp_path / "c.txt").write_text("aaab aaab aaab x aa", "utf-8")
    aa, aaa = 256, 257
    p = run("inspect", "--tokenizer", "x.tiktoken", "--corpus", "c.txt", "--json", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert [{k: t[k] for k in ("id", "merged", "output", "ios", "hex")}
            for t in json.loads(out(p))["dead_weight"]] == [
        {"id": aaa, "merged": 2, "output": 0, "ios": 1.0, "hex": b"aaa".hex()}]
    p = run("inspect", "--tokenizer", "x.tiktoken", "--corpus", "c.txt", "--threshold", "0.5",
            "--json", cwd=tmp_path)
    assert [(t["id"], t["merged"], t["output"]) for t in json.loads(out(p))["dead_weight"]] \
        == [(aaa, 2, 0), (aa, 2, 1)]
    p = run("inspect", "--tokenizer", "x.tiktoken", "--corpus", "c.txt", "--threshold", "0.5",
            "--limit", "1", cwd=tmp_path)
    text = out(p)
    assert "2 of 3 merged tokens (66.7%) have IoS ≥ 0.5 on 5 pieces of text" in text
    assert "  257  1.00           2           0  aaa" in text
    assert "  ... 1 more (--limit)" in text
    assert_user_error(run("inspect", "--tokenizer", "x.tiktoken", "--corpus", "c.txt",
                          "--threshold", "2", cwd=tmp_path), "share from 0 to 1")
    assert_user_error(run("inspect", "--tokenizer", "x.tiktoken", "--corpus", "nope.txt",
                          cwd=tmp_path), "nope.txt")


def test_inspect_corpus_output_counts_are_tiktokens_tokens(tmp_path, trained_dir):
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.tiktoken"), "--corpus",
            "c.txt", "--threshold", "0", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    enc = tiktoken_from(trained_dir)
    ids = Counter(enc.encode(CORPUS, allowed_special="all"))
    rows = [ln.split() for ln in out(p).split("IoS >= 0 (")[1].splitlines()[2:]
            if ln.strip() and not ln.startswith("  ...")]
    assert rows
    for tid, _, _, output, *_ in rows:
        assert int(output.replace(",", "")) == ids[int(tid)]


@pytest.mark.parametrize("threshold, min_count", [("0", "0"), ("0.9", "1"), ("0.5", "3"),
                                                  ("1", "1")])
def test_inspect_corpus_dead_weight_is_the_slow_references(tmp_path, trained_dir, threshold,
                                                           min_count):
    """Every token's merged and output counts, IoS and order equal PickyBPE's counted
    one pair at a time from the .tiktoken file's ranks (ios_reference.py, no engine), on
    a text with words the tokenizer never saw whole; a token that never occurs is never
    listed, even with --min-count 0."""
    import ios_reference as R
    text = CORPUS + "The quickest lazier foxes jumped; squares of 满纸 and 🙂🙂.\n" * 5
    (tmp_path / "c.txt").write_text(text, "utf-8")
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.tiktoken"), "--corpus",
            "c.txt", "--threshold", threshold, "--min-count", min_count, "--json", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    got = json.loads(out(p))["dead_weight"]
    meta = json.loads((trained_dir / "tokenizer.tiktoken.json").read_text("utf-8"))
    ranks = R.read_tiktoken(trained_dir / "tokenizer.tiktoken")
    output, merged = R.counts(text, meta["pat_str"], ranks=ranks,
                              specials=list(meta["special_tokens"]))
    vocab = {r: t for t, r in ranks.items()}
    output, merged = R.by_id(output, vocab), R.by_id(merged, vocab)
    removable = {r for t, r in ranks.items() if len(t) > 1}
    want = R.dead_ids(output, merged, removable, float(threshold), int(min_count))
    assert len(want) < len(removable)   # some tokens never occur or fall below
    assert want and [t["id"] for t in got] == want
    for t in got:
        m, o = merged.get(t["id"], 0), output.get(t["id"], 0)
        assert (t["merged"], t["output"]) == (m, o)
        assert t["ios"] == pytest.approx(m / (m + o))
    if threshold != "0.9":
        return
    # the summary line: counted at the threshold with every token that occurs
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.tiktoken"), "--corpus",
            "c.txt", "--threshold", threshold, cwd=tmp_path)
    dead = len(R.dead_ids(output, merged, removable, 0.9))
    never = sum(1 for i in removable if not output.get(i) and not merged.get(i))
    n_pieces = (sum(R.pieces(text, meta["pat_str"], list(meta["special_tokens"])).values())
                + text.count("<|endoftext|>"))
    assert 0 < never < len(removable)
    assert (f"{dead:,} of {len(removable):,} merged tokens "
            f"({100 * dead / len(removable):.1f}%) have IoS ≥ 0.9 on {n_pieces:,} pieces "
            f"of text; {never:,} never occur ({len(text):,} characters)") in out(p)
    # without special tokens in the text: only its pieces are counted
    plain = text.replace("<|endoftext|>", "")
    (tmp_path / "plain.txt").write_text(plain, "utf-8")
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.tiktoken"), "--corpus",
            "plain.txt", cwd=tmp_path)
    n_pieces = sum(R.pieces(plain, meta["pat_str"]).values())
    assert f"on {n_pieces:,} pieces of text" in out(p), out(p)


def test_inspect_as_of_a_merge_step(tmp_path, trained_dir):
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.bpe-gui.json"),
            "--merges", "30", "--json", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    got = json.loads(out(p))
    kinds = ("ok", "unreachable", "undecodable", "special")
    assert sum(len(got[k]) for k in kinds) == got["n_tokens"] == 256 + 1 + 30
    p = run("inspect", "--tokenizer", str(trained_dir / "tokenizer.tiktoken"), "--merges", "3",
            cwd=tmp_path)
    assert_user_error(p, "--merges", "merge list")


def test_inspect_errors(tmp_path):
    assert_user_error(run("inspect", "--tokenizer", str(tmp_path / "nope"), cwd=tmp_path),
                      "not found")
    assert_user_error(run("inspect", cwd=tmp_path), "--tokenizer")


@pytest.mark.parametrize("given", [["--threshold", "0.5"], ["--min-count", "3"],
                                   ["--threshold", "0.5", "--min-count", "3"]])
def test_inspect_refuses_dead_weight_filters_without_a_corpus(tmp_path, trained_dir, given):
    """They filter the dead weight on a corpus; without one they would be ignored."""
    p = run("inspect", "--tokenizer", str(trained_dir), *given, cwd=tmp_path)
    line = assert_user_error(p, "add --corpus FILE", *given[::2])
    assert "dead weight" in line


def test_inspect_and_cost_never_import_qt(tmp_path, trained_dir):
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "en.txt").write_text("hello world", "utf-8")
    code = ("import sys; from bpe_gui.cli import main; "
            f"assert main(['inspect', '--tokenizer', {str(trained_dir)!r}, '--json']) == 0; "
            f"assert main(['cost', '--tokenizer', {str(trained_dir)!r}, 'h']) == 0; "
            "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt imported'")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, env=env)
    assert p.returncode == 0, p.stderr.decode()


# ----- cost -----------------------------------------------------------------------------
TEXTS = {"en": "The lazy dog sleeps. The quick fox runs.\n" * 30,
         "zh": "满纸荒唐言，一把辛酸泪！\n" * 30,
         "code": "def square(x):\n    return x * x\n" * 30}


@pytest.fixture
def held(tmp_path):
    d = tmp_path / "held"
    d.mkdir()
    for lang, text in TEXTS.items():
        (d / f"{lang}.txt").write_text(text, "utf-8")
    return d


def test_cost_table_and_csv(tmp_path, trained_dir, held):
    p = run("train", str(trained_dir.parent / "corpus.txt"), "--vocab-size", "300", "--out",
            "small", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    p = run("cost", "--tokenizer", str(trained_dir), "--tokenizer", "small", str(held),
            "--reference", "zh", "--csv", "out/cost.csv", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    text = out(p)
    assert "parity (zh)" in text and "Rényi (2.5)" in text
    rows = list(csv.DictReader((tmp_path / "out" / "cost.csv").open(encoding="utf-8")))
    assert len(rows) == 6
    encs = {"tok": tiktoken_from(trained_dir), "small": tiktoken_from(tmp_path / "small")}
    tokens = {(lang, name): len(e.encode(t, allowed_special="all"))
              for lang, t in TEXTS.items() for name, e in encs.items()}
    for row in rows:
        lang, name = row["language"], row["tokenizer"]
        text_ = TEXTS[lang]
        enc = encs[name]
        ids = enc.encode(text_, allowed_special="all")
        assert int(row["tokens"]) == len(ids)
        assert float(row["parity"]) == pytest.approx(len(ids) / tokens["zh", name])
        c, n = Counter(ids), len(ids)
        size = enc.n_vocab
        h = math.log(sum((v / n) ** 2.5 for v in c.values())) / (1 - 2.5)
        assert float(row["renyi_efficiency"]) == pytest.approx(h / math.log(size), rel=1e-9)
        assert int(row["vocab_size"]) == size
        # the printed table shows the same row
        line = next(x for x in text.splitlines() if x.split()[:2] == [lang, name])
        assert f"{len(ids):,}" in line and f"{len(text_.encode()) / len(ids):.2f}" in line
    assert "wrote:  out/cost.csv" in text


def test_cost_errors(tmp_path, trained_dir, held):
    t = str(trained_dir)
    assert_user_error(run("cost", *["--tokenizer", t] * 5, str(held), cwd=tmp_path),
                      "at most 4")
    assert_user_error(run("cost", "--tokenizer", t, str(held), "--reference", "fr",
                          cwd=tmp_path), "reference language 'fr'", "code, en, zh")
    assert_user_error(run("cost", "--tokenizer", t, str(held), "--alpha", "-1", cwd=tmp_path),
                      "positive")
    assert_user_error(run("cost", "--tokenizer", t, str(tmp_path / "none"), cwd=tmp_path),
                      "not a folder")
    (held / "de.txt").write_bytes(b"gr\xfc\xdf")
    assert_user_error(run("cost", "--tokenizer", t, str(held), cwd=tmp_path),
                      "de.txt", "not valid UTF-8 at byte offset 2")
