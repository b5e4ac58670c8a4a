"""Pairs of options where one would silently override the other are refused, saying which
to keep; each option alone still works."""
from __future__ import annotations

import json

import pytest

from test_cli import assert_user_error, err, out, run

CORPUS = "low lower newest widest the a of\n" * 40


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("pairs")
    (d / "c.txt").write_text(CORPUS, "utf-8")
    assert run("train", "c.txt", "--num-merges", "10", "--out", "tok", "--format", "native",
               "-q", cwd=d).returncode == 0
    return d


@pytest.mark.parametrize("extra", [[], ["--from", "tok/tokenizer.bpe-gui.json"]])
def test_vocab_size_with_num_merges_is_refused(work, extra):
    p = run("train", "c.txt", *extra, "--vocab-size", "300", "--num-merges", "5", "--out",
            "o", cwd=work)
    assert_user_error(p, "--vocab-size or --num-merges, not both", "300", "5")
    assert not (work / "o").exists()


@pytest.mark.parametrize("size", [["--vocab-size", "262"], ["--num-merges", "6"]])
def test_either_size_alone_trains(work, tmp_path, size):
    p = run("train", str(work / "c.txt"), *size, "--out", "o", "--format", "hf", "-q",
            cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    merges = json.loads((tmp_path / "o" / "tokenizer.json").read_text("utf-8"))["model"]["merges"]
    assert len(merges) == 6   # 262 = 256 bytes + 6 merges


@pytest.mark.parametrize("flags,needles", [
    (["--ids-only", "--json"], ["--ids-only and --json", "pick one"]),
    (["--json", "--color", "always"], ["--color always", "--json"]),
    (["--ids-only", "--color", "always"], ["--color always", "--ids-only"]),
])
def test_encode_output_forms_that_override_each_other(work, flags, needles):
    assert_user_error(run("encode", "--tokenizer", "tok", *flags, "low", cwd=work), *needles)


def test_encode_json_with_color_never_is_fine(work):
    p = run("encode", "--tokenizer", "tok", "--json", "--color", "never", "low", cwd=work)
    assert p.returncode == 0
    assert json.loads(out(p))["encodings"][0]["text"] == "low"


def test_inspect_ok_with_json_is_refused(work):
    assert_user_error(run("inspect", "--tokenizer", "tok", "--json", "--ok", cwd=work),
                      "--ok", "--json")
    p = run("inspect", "--tokenizer", "tok", "--json", cwd=work)
    assert p.returncode == 0 and "ok" in json.loads(out(p))


# ----- options that did nothing, or something else than they say (a sweep, 2026-11-27) -----
@pytest.mark.parametrize("command", [["encode", "low"], ["inspect"]])
def test_an_unknown_preset_is_refused_by_every_command_that_loads(work, command):
    """--preset nope was taken as a regex by encode and inspect: 'Hello world' gave no
    ids, and inspect called 870 tokens unreachable, exit 0. Refused as train refuses it."""
    assert_user_error(run(command[0], "--tokenizer", "tok", *command[1:], "--preset", "nope",
                          cwd=work), "unknown preset 'nope'", "cl100k")


def test_a_known_preset_still_splits_encode(work):
    gpt2 = run("encode", "--tokenizer", "tok", "--ids-only", "--preset", "gpt2",
               "low  lower", cwd=work)
    ws = run("encode", "--tokenizer", "tok", "--ids-only", "--preset", "whitespace",
             "low  lower", cwd=work)
    assert gpt2.returncode == ws.returncode == 0
    assert out(gpt2).split() and out(ws).split()


@pytest.mark.parametrize("flag", [["--preset", "cl100k"], ["--pattern", "x"]])
def test_decode_refuses_a_pattern_it_would_not_use(work, flag):
    """decode splits no text: a preset or pattern changed nothing (same output for any
    value, even a bogus one)."""
    assert_user_error(run("decode", "--tokenizer", "tok", *flag, "108", cwd=work),
                      f"{flag[0]} changes how text is split", "decode splits no text")
    p = run("decode", "--tokenizer", "tok", "108", "111", "119", cwd=work)
    assert p.returncode == 0 and out(p).strip() == "low"


@pytest.mark.parametrize("flag", ["--ordinary", "--add-special-tokens"])
def test_explain_refuses_reading_options_it_does_not_apply(work, flag):
    assert_user_error(run("encode", "--tokenizer", "tok", "--explain", flag, "low", cwd=work),
                      f"leave {flag} out", "--explain")


def test_cost_csv_to_stdout_and_json_are_two_outputs(work):
    (work / "held").mkdir(exist_ok=True)
    (work / "held" / "en.txt").write_text("low lower\n", "utf-8")
    assert_user_error(run("cost", "--tokenizer", "tok", "held", "--csv", "-", "--json",
                          cwd=work), "--csv - and --json", "pick one")


def test_chat_json_with_color_always_is_refused(work):
    (work / "conv.json").write_text(json.dumps({"messages": [
        {"role": "user", "content": "low"}]}), "utf-8")
    (work / "t.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}", "utf-8")
    assert_user_error(run("chat", "--tokenizer", "tok", "--template", "t.jinja", "--messages",
                          "conv.json", "--json", "--color", "always", cwd=work),
                      "--color always", "--json")


@pytest.mark.parametrize("where", ["jinja", "config"])
def test_chat_template_name_on_a_single_template_is_refused(work, where):
    """--template-name on a template of one text was ignored: it has no names."""
    (work / "conv.json").write_text(json.dumps({"messages": [
        {"role": "user", "content": "low"}]}), "utf-8")
    text = "{% for m in messages %}{{ m.content }}{% endfor %}"
    if where == "jinja":
        (work / "t.jinja").write_text(text, "utf-8")
        tpl = "t.jinja"
    else:
        (work / "tokenizer_config.json").write_text(json.dumps({"chat_template": text}),
                                                    "utf-8")
        tpl = "tokenizer_config.json"
    args = ["chat", "--tokenizer", "tok", "--template", tpl, "--messages", "conv.json"]
    assert_user_error(run(*args, "--template-name", "tool_use", cwd=work),
                      "holds one chat template", "'tool_use'", "leave the name out")
    assert run(*args, cwd=work).returncode == 0


@pytest.mark.parametrize("command", [["inspect"], ["mixture", "--category", "a=c.txt",
                                                   "--category", "b=held"]])
def test_more_merges_than_the_tokenizer_has_is_refused(work, command):
    """inspect/mixture --merges 100000 on a 10-merge tokenizer silently meant all ten."""
    (work / "held").mkdir(exist_ok=True)
    (work / "held" / "en.txt").write_text("low lower\n", "utf-8")
    assert_user_error(run(command[0], "--tokenizer", "tok", *command[1:], "--merges", "100000",
                          cwd=work), "--merges 100,000", "only 10 merges", "at most 10")
    if command == ["inspect"]:
        assert run("inspect", "--tokenizer", "tok", "--merges", "10", cwd=work).returncode == 0


@pytest.mark.parametrize("name", ["t.tsv.bz2", "t.tsv.zst", "t.zip"])
def test_count_refuses_a_compressed_name_it_would_not_compress(work, name):
    """count --out t.tsv.bz2 wrote plain text under a .bz2 name, exit 0."""
    assert_user_error(run("count", "c.txt", "--out", name, cwd=work), name,
                      ".gz or .xz only")
    assert not (work / name).exists()


@pytest.mark.parametrize("flag", [["--mode", "char"], ["--tie-rule", "first-seen"],
                                  ["--vocab-size", "500"], ["--lines"]])
def test_check_refuses_retraining_options_without_a_corpus(work, flag):
    """check with only --ids/--text checks the encoder: the merge check's options were
    ignored (the same output with or without them)."""
    (work / "ids.txt").write_text(out(run("encode", "--tokenizer", "tok", "--ids-only", "low",
                                          cwd=work)), "utf-8")
    (work / "text.txt").write_text("low", "utf-8")
    args = ["check", "--tokenizer", "tok", "--ids", "ids.txt", "--text", "text.txt"]
    assert_user_error(run(*args, *flag, cwd=work), flag[0], "--corpus")
    assert run(*args, cwd=work).returncode == 0


@pytest.mark.parametrize("bad", ["missing.txt", "latin1.txt"])
def test_check_text_that_cannot_be_read_is_named(work, bad):
    """check --text on a missing or latin-1 file: tracebacks (FileNotFoundError,
    UnicodeDecodeError); now the file is named with the fix."""
    (work / "latin1.txt").write_bytes("café".encode("latin-1"))
    (work / "ids.txt").write_text("1 2", "utf-8")
    line = assert_user_error(run("check", "--tokenizer", "tok", "--ids", "ids.txt", "--text",
                                 bad, cwd=work), bad)
    assert "Traceback" not in line


@pytest.mark.parametrize("command", ["train", "count"])
def test_a_pattern_that_leaves_text_out_is_warned_about(work, tmp_path, command):
    """train --pattern 'x*' trained on 153 of 200,000 bytes, exit 0, no word about it:
    now a warning names the file and how much the pattern leaves out (and how to keep
    it); a pattern that takes everything, and every preset, say nothing."""
    text = "hello world 123, again!\n" * 50
    (tmp_path / "c.txt").write_text(text, "utf-8")
    out = ["--vocab-size", "300", "--format", "hf", "--out", "o"] if command == "train" \
        else ["--out", "t.tsv"]
    p = run(command, "c.txt", "--pattern", "[a-z]+", *out, "-q", cwd=tmp_path)
    assert p.returncode == 0
    lost = len(text) - sum(len(w) for w in __import__("re").findall("[a-z]+", text))
    want = f"({lost:,} of {len(text):,} characters): text it does not match is left out"
    assert "warning: the pattern matches no word" in err(p) and want in err(p), err(p)
    assert "c.txt" in err(p) and r"|\s+|\S" in err(p)
    for quiet in (["--pattern", r"[a-z]+|\s+|\S"], ["--preset", "whitespace"], []):
        q = run(command, "c.txt", *quiet, *out, "-q", cwd=tmp_path)
        assert q.returncode == 0 and "warning" not in err(q), err(q)


def test_encode_warns_about_text_its_pattern_gives_no_ids(work):
    p = run("encode", "--tokenizer", "tok", "--pattern", "[a-z]+", "low 123 low", cwd=work)
    assert p.returncode == 0
    assert "(5 of 11 characters): they get no ids" in err(p), err(p)
    q = run("encode", "--tokenizer", "tok", "low 123 low", cwd=work)
    assert "warning" not in err(q)


@pytest.mark.regression
@pytest.mark.parametrize("flags, needles", [
    (["--allowed-special", "all", "--ordinary"], ["--allowed-special", "--ordinary"]),
    (["--allowed-special", "<s>", "--ordinary"], ["--allowed-special", "--ordinary"]),
    (["--disallowed-special", "<s>", "--ordinary"], ["--disallowed-special", "--ordinary"]),
    (["--add-special-tokens", "--ordinary"], ["--add-special-tokens", "--ordinary"]),
])
def test_ordinary_with_a_special_token_flag_is_refused(work, flags, needles):
    """--allowed-special all --ordinary exited 0 with --ordinary silently winning;
    --add-special-tokens --ordinary dropped the BOS that was asked for."""
    assert_user_error(run("encode", "--tokenizer", "tok", *flags, "a<s>", cwd=work), *needles)


@pytest.mark.parametrize("flags", [["--ordinary", "--no-add-special-tokens"],
                                   ["--ordinary", "--disallowed-special", "none"]])
def test_ordinary_with_what_it_means_anyway_is_fine(work, flags):
    p = run("encode", "--tokenizer", "tok", *flags, "--ids-only", "low", cwd=work)
    assert p.returncode == 0, p.stderr
    assert out(p) == out(run("encode", "--tokenizer", "tok", "--ordinary", "--ids-only",
                             "low", cwd=work))


@pytest.mark.regression
@pytest.mark.parametrize("out_flag", [["--out", "-"], ["--out=-"]])
def test_train_out_dash_is_refused(work, tmp_path, out_flag):
    """train --out - wrote a folder named -: training writes a folder, not the output."""
    p = run("train", str(work / "c.txt"), "--num-merges", "5", *out_flag, "-q", cwd=tmp_path)
    assert_user_error(p, "--out -", "folder", "./-")
    assert not (tmp_path / "-").exists()
