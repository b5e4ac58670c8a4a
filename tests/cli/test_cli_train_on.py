"""`bpe-gui train --from TOKENIZER` and `bpe-gui train --superbpe-from T` / `--from T
--superbpe`, run as a subprocess: the same merges as the engine's Python API, inherited
ids unchanged, exports that `tokenizers` and `tiktoken` load with the engine's ids, the
summary's token counts equal to encoding the corpus with the tokenizers before and after,
and bad input refused in one line."""
from __future__ import annotations

import base64
import json

import pytest

from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.train import stage2, train_on, train_superbpe
from bpe_gui.engine.train.inherited import merge_list_tokenizer
from bpe_gui.engine.train.trainer import TrainSettings, Trainer

from test_cli import CORPUS, assert_user_error, err, out, run

EOT = "<|endoftext|>"
NEW = ("满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n"
       "By the way, at the end of the day: said the old man. It was 1999, and 2024!\n"
       "def cube(x):\n    return x * x * x  # ok\n") * 25 + \
      "".join(f"line {i}: the rest of the world, as a matter of fact.\n" for i in range(60))
HELD = "世界和平，都云作者痴。By the way: the old man said 42 things... def f(y): return y\n"
RULES = ("greatest", "first-seen", "lowest-ids")


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A byte-level tokenizer trained here (120 merges, one special token), exported as
    GPT-2 files, tokenizer.json and .tiktoken; and the new corpus file."""
    t = Trainer.from_text(CORPUS, TrainSettings(num_merges=120, special_tokens=(EOT,)))
    t.run()
    tok = t.tokenizer()
    d = tmp_path_factory.mktemp("src")
    for fmt in ("gpt2", "hf", "tiktoken"):
        export_tokenizer(tok, d / fmt, fmt)
    corpus = d / "new.txt"
    corpus.write_text(NEW, "utf-8")
    paths = {"gpt2": d / "gpt2", "hf": d / "hf" / "tokenizer.json",
             "tiktoken": d / "tiktoken" / "tokenizer.tiktoken"}
    return tok, paths, corpus


def hf_ids(folder, text):
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids


def tiktoken_ids(folder, text):
    tiktoken = pytest.importorskip("tiktoken")
    meta = json.loads((folder / "tokenizer.tiktoken.json").read_text())
    ranks = {base64.b64decode(t): int(r) for t, r in
             (line.split() for line in (folder / "tokenizer.tiktoken").read_text().splitlines())}
    enc = tiktoken.Encoding("t", pat_str=meta["pat_str"], mergeable_ranks=ranks,
                            special_tokens=meta["special_tokens"])
    return enc.encode(text)


def summary(stdout: str) -> dict[str, str]:
    return {line.split(":", 1)[0]: line.split(":", 1)[1].strip()
            for line in stdout.splitlines() if ":" in line}


@pytest.mark.parametrize("fmt,rule", [("gpt2", "greatest"), ("hf", "first-seen"),
                                      ("tiktoken", "lowest-ids"), ("hf", "greatest")])
def test_train_on_from_each_format_gives_the_engines_merges_and_keeps_ids(
        source, tmp_path, fmt, rule):
    tok, paths, corpus = source
    p = run("train", "--from", str(paths[fmt]), str(corpus), "--num-merges", "60",
            "--tie-break", rule, "--out", str(tmp_path / "o"), "--format", "hf,tiktoken",
            "--preset", "gpt2", cwd=tmp_path)   # the source's own preset: accepted
    assert p.returncode == 0, err(p)
    src = load_tokenizer(paths[fmt])
    engine = train_on(src, [corpus], TrainSettings(num_merges=60, tie_rule=rule)).tokenizer()
    got = load_tokenizer(tmp_path / "o" / "tokenizer.json")
    assert got.merges == engine.merges and got.vocab == engine.vocab
    assert all(got.vocab[i] == b for i, b in tok.vocab.items())   # inherited ids unchanged
    assert len(got.merges) == 120 + 60 and got.merges[:120] == tok.merges
    assert hf_ids(tmp_path / "o", HELD) == engine.encode(HELD, allowed_special="all")
    assert tiktoken_ids(tmp_path / "o", HELD) == engine.encode(HELD, allowed_special="all")
    s = summary(out(p))
    assert s["inherited"].startswith("120 merges") and s["learned"].startswith("60 merges")
    # the token counts it prints are the corpus encoded before and after (an independent
    # count: the whole text through each tokenizer's encoder)
    before, after = len(src.encode(NEW, allowed_special="all")), len(engine.encode(NEW, allowed_special="all"))
    assert after < before
    assert f"({before:,} tokens) -> " in s["bytes/token"] and f"({after:,} tokens)" in s["bytes/token"]
    assert s["corpus"] == f"{len(NEW.encode()):,} bytes"


@pytest.mark.slow
def test_train_on_from_a_count_table_equals_the_corpus(source, tmp_path):
    tok, paths, corpus = source
    table = tmp_path / "new.counts.tsv"
    p = run("count", str(corpus), "--preset", "gpt2", "--special-token", EOT, "--out",
            str(table), cwd=tmp_path)
    assert p.returncode == 0, err(p)
    for name, inputs in (("c", [str(corpus)]), ("t", ["--counts", str(table)])):
        p = run("train", "--from", str(paths["hf"]), *inputs, "--num-merges", "40", "-q",
                "--out", str(tmp_path / name), "--format", "hf", cwd=tmp_path)
        assert p.returncode == 0, err(p)
    a, b = (load_tokenizer(tmp_path / n / "tokenizer.json") for n in "ct")
    assert a.merges == b.merges and len(a.merges) == 160
    # a table counted without the tokenizer's special token (or with another preset)
    for i, opts in enumerate((["--preset", "gpt2"], ["--preset", "cl100k", "--special-token", EOT])):
        other = tmp_path / f"other{i}.counts.tsv"
        assert run("count", str(corpus), *opts, "--out", str(other), cwd=tmp_path).returncode == 0
        p = run("train", "--from", str(paths["hf"]), "--counts", str(other), "--num-merges",
                "5", "--out", str(tmp_path / "x"), cwd=tmp_path)
        assert_user_error(p, "special tokens" if i == 0 else "preset", "count the corpus again")


def test_train_on_to_a_vocab_size_counts_the_inherited_tokens(source, tmp_path):
    tok, paths, corpus = source
    size = max(tok.vocab) + 1 + 25
    p = run("train", "--from", str(paths["gpt2"]), str(corpus), "--vocab-size", str(size),
            "-q", "--out", str(tmp_path / "o"), "--format", "hf", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert len(load_tokenizer(tmp_path / "o" / "tokenizer.json").vocab) == size


@pytest.mark.parametrize("rule", RULES)
def test_superbpe_from_the_corpus_gives_the_engines_tokenizer(source, tmp_path, rule):
    _, _, corpus = source
    p = run("train", str(corpus), "--superbpe-from", "80", "--vocab-size", "420",
            "--tie-break", rule, "--out", str(tmp_path / "o"), "--format", "hf", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    engine = train_superbpe([corpus], TrainSettings(vocab_size=420, superbpe_from=80,
                                                    tie_rule=rule)).tokenizer()
    got = load_tokenizer(tmp_path / "o" / "tokenizer.json")
    assert got.merges == engine.merges and got.vocab == engine.vocab
    assert any(b" " in t.strip() for t in got.vocab.values())   # superwords were made
    assert hf_ids(tmp_path / "o", HELD) == engine.encode(HELD, allowed_special="all")
    assert hf_ids(tmp_path / "o", NEW) == engine.encode(NEW, allowed_special="all")
    s = summary(out(p))
    assert s["stage 1"].startswith("80 merges")
    assert s["stage 2"].startswith(f"{420 - 256 - 80} merges")


@pytest.mark.parametrize("fmt,at", [("hf", None), ("gpt2", 100), ("hf", 100)])
def test_stage2_on_top_of_a_tokenizer(source, tmp_path, fmt, at):
    tok, paths, corpus = source
    extra = ["--superbpe"] if at is None else ["--superbpe-from", str(at)]
    p = run("train", "--from", str(paths[fmt]), *extra, str(corpus), "--num-merges", "50",
            "--tie-break", "first-seen", "--out", str(tmp_path / "o"), "--format", "hf",
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    src = load_tokenizer(paths[fmt])
    start = src if at is None else merge_list_tokenizer(src).at_step(at)
    engine = stage2(start, [corpus], TrainSettings(num_merges=50, tie_rule="first-seen"))
    engine_tok = engine.tokenizer()
    got = load_tokenizer(tmp_path / "o" / "tokenizer.json")
    assert got.merges == engine_tok.merges and got.vocab == engine_tok.vocab
    assert got.merges[:start.n_merges] == start.merges
    assert hf_ids(tmp_path / "o", HELD) == engine_tok.encode(HELD, allowed_special="all")
    assert summary(out(p))["stage 1"].startswith(f"{start.n_merges} merges (kept)")


@pytest.mark.parametrize("args,needles", [
    (["--from", "BAD"], ["bad.json"]),
    (["--from", "missing/tokenizer.json"], ["not found"]),
    (["--superbpe-from", "500", "--vocab-size", "400"], ["after the target", "144 merges"]),
    (["--superbpe-from", "500", "--num-merges", "100"], ["after the target"]),
    (["--superbpe-from", "10", "--vocab-size", "400", "--mode", "char"], ["byte mode"]),
    (["--from", "SRC", "--mode", "char"], ["byte-level", "decides"]),
    (["--from", "SRC", "--preset", "cl100k"], ["pre-tokenizer", "decides"]),
    (["--from", "SRC", "--special-token", "<x>"], ["special tokens are <|endoftext|>"]),
    (["--from", "SRC", "--prune"], ["--prune"]),
    (["--from", "SRC", "--superbpe-from", "9999"], ["only 120 merges"]),
    (["--from", "SRC", "--superbpe", "--preset", "gpt2"], ["stage 2"]),
    (["--from", "SRC", "--vocab-size", "100"], ["no room"]),
    (["--superbpe", "--vocab-size", "400"], ["--from"]),
    (["--from", "SRC", "--superbpe", "--superbpe-from", "3"], ["not both"]),
])
def test_bad_input_is_one_line_and_exit_2(source, tmp_path, args, needles):
    _, paths, corpus = source
    bad = tmp_path / "bad.json"
    bad.write_text("this is not a tokenizer")
    args = [str(bad) if a == "BAD" else str(paths["hf"]) if a == "SRC" else a for a in args]
    if "--vocab-size" not in args and "--num-merges" not in args:
        args += ["--num-merges", "10"]
    p = run("train", str(corpus), *args, "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert_user_error(p, *needles)
    assert not (tmp_path / "o").exists()


def test_superbpe_on_a_character_level_tokenizer_is_refused(source, tmp_path):
    """The engine's rule (build.resolve), as the command line says it: stage 2's tokens
    hold spaces as bytes."""
    _, _, corpus = source
    assert run("train", str(corpus), "--num-merges", "20", "--mode", "char", "--format",
               "native", "--out", "src", "-q", cwd=tmp_path).returncode == 0
    p = run("train", str(corpus), "--from", "src/tokenizer.bpe-gui.json", "--superbpe",
            "--num-merges", "10", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert_user_error(p, "SuperBPE needs a byte-level tokenizer", "is char-level")
    assert not (tmp_path / "o").exists()


def test_superbpe_refuses_count_tables(source, tmp_path):
    _, _, corpus = source
    table = tmp_path / "t.counts.tsv"
    assert run("count", str(corpus), "--out", str(table), cwd=tmp_path).returncode == 0
    p = run("train", "--counts", str(table), "--superbpe-from", "10", "--vocab-size", "400",
            "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert_user_error(p, "stage-2", "corpus files")


def test_export_never_overwrites_the_source(source, tmp_path):
    tok, paths, corpus = source
    folder = paths["gpt2"]
    before = {f.name: f.read_bytes() for f in folder.iterdir()}
    p = run("train", "--from", str(folder), str(corpus), "--num-merges", "5",
            "--out", str(folder), cwd=tmp_path)
    assert_user_error(p)
    assert {f.name: f.read_bytes() for f in folder.iterdir()} == before


@pytest.mark.parametrize("mode", ["from", "superbpe"])
def test_a_latin1_corpus_trains_as_its_utf8_text(source, tmp_path, mode):
    _, paths, _ = source
    text = "Café, naïve façade: the rest of the world. Über straße!\n" * 40
    (tmp_path / "u.txt").write_text(text, "utf-8")
    (tmp_path / "l.txt").write_text(text, "latin-1")
    extra = ["--from", str(paths["hf"])] if mode == "from" else ["--superbpe-from", "30"]
    for name, enc in (("u", "utf-8"), ("l", "latin-1")):
        p = run("train", str(tmp_path / f"{name}.txt"), *extra, "--num-merges", "60",
                "--encoding", enc, "-q", "--out", str(tmp_path / f"o{name}"), "--format", "hf",
                cwd=tmp_path)
        assert p.returncode == 0, err(p)
    a, b = (load_tokenizer(tmp_path / f"o{n}" / "tokenizer.json") for n in "ul")
    assert a.merges == b.merges and len(a.merges) > 30


@pytest.mark.parametrize("extra", [[], ["--mode", "byte"], ["--superbpe-from", "5"], ["--from"]])
def test_end_of_word_in_byte_mode_is_refused_with_the_reason(extra, tmp_path):
    """--end-of-word places char mode's </w>; byte-level BPE has none, so it was accepted
    and changed nothing (was: exit 0, both values the same merges)."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    if extra == ["--from"]:
        assert run("train", str(corpus), "--num-merges", "20", "--format", "native",
                   "--out", "src", "-q", cwd=tmp_path).returncode == 0
        extra = ["--from", "src/tokenizer.bpe-gui.json"]
    for eow in ("prefix", "suffix"):
        p = run("train", str(corpus), "--num-merges", "30", "--end-of-word", eow, *extra,
                "--out", "o", cwd=tmp_path)
        line = assert_user_error(p, f"--end-of-word {eow}", "character-level BPE only",
                                 "is byte-level (no </w>)", "leave --end-of-word out")
        assert ("--mode char" in line) == (extra in ([], ["--mode", "byte"]))
        assert not (tmp_path / "o").exists()
    p = run("train", str(corpus), "--num-merges", "30", "--end-of-word", "prefix",
            "--mode", "char", "--format", "native", "--out", "o", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)


@pytest.mark.parametrize("extra", [[], ["--from", "src"]])
def test_encoding_with_count_tables_is_refused(extra, tmp_path):
    """A table's words are read already: --encoding had no effect there (was: exit 0)."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    assert run("count", str(corpus), "--out", "t.tsv", cwd=tmp_path).returncode == 0
    assert run("train", str(corpus), "--num-merges", "10", "--format", "native", "--out",
               "src", "-q", cwd=tmp_path).returncode == 0
    p = run("train", "--counts", "t.tsv", *extra, "--num-merges", "20", "--encoding",
            "latin-1", "--out", "o", cwd=tmp_path)
    assert_user_error(p, "--encoding says how corpus files are read", "--counts",
                      "bpe-gui count")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("extra", [["--from", "src"], ["--superbpe-from", "5"]])
def test_threads_with_train_on_or_superbpe_is_refused(extra, tmp_path):
    """Training on and SuperBPE pick their counting threads: --threads had no effect (was:
    exit 0). The refusal says what they pick, as counting.default_workers does (it said
    "every core", though a regex pattern counts on one thread)."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    assert run("train", str(corpus), "--num-merges", "10", "--format", "native", "--out",
               "src", "-q", cwd=tmp_path).returncode == 0
    p = run("train", str(corpus), *extra, "--num-merges", "20", "--threads", "1",
            "--out", "o", cwd=tmp_path)
    assert_user_error(p, "--threads", "leave --threads out", "one thread for a pattern")
    from bpe_gui.engine.corpus.counting import default_workers
    assert default_workers(native=False) == 1   # what the message says of a regex pattern
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("option", ["--prune", "--threads", "--lines"])
@pytest.mark.parametrize("extra", [["--from", "SRC"], ["--superbpe-from", "5"]])
def test_refused_options_give_the_spec_reason(source, option, extra, tmp_path):
    """An option training on or SuperBPE does not use is refused with the words the window
    shows as the greyed option's tooltip (engine.train.unused), not words of its own."""
    from bpe_gui.engine.train import SUPERBPE, TRAIN_ON, TrainingSpec, unused
    _, paths, corpus = source
    base = str(paths["hf"]) if extra[0] == "--from" else None
    extra = [base if a == "SRC" else a for a in extra]
    why = unused(TrainingSpec(mode=TRAIN_ON if base else SUPERBPE, base=base))
    key = option.lstrip("-")
    value = ["2"] if option == "--threads" else []
    p = run("train", str(corpus), *extra, "--num-merges", "20", option, *value,
            "--out", "o", cwd=tmp_path)
    if key not in why:   # (training on reads its corpus by lines if asked)
        assert p.returncode == 0, err(p)
        return
    assert_user_error(p, option, why[key], f"leave {option} out")
    assert not (tmp_path / "o").exists()
