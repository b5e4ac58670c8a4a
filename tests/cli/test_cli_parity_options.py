"""Every option of `bpe-gui train` with `--parity`: honoured (its effect checked here,
merges against HF's ParityBpeTrainer where they change) or refused naming the option and
why; never silently ignored. Also the files: an empty one is named, dev texts of different
lengths are flagged, and --encoding reads the files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_gui.cli import main
from bpe_gui.engine.formats.exports import RECORD

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
LANGS = ("en", "de")


def base_args(out: Path, *, num_merges: int = 30) -> list[str]:
    args = ["train", "--parity", "base", "--num-merges", str(num_merges), "--out", str(out)]
    for lang in LANGS:
        args += ["--language", f"{lang}={FIXTURES / f'{lang}.train.txt'}",
                 "--ratio", f"{lang}=1"]
    return args


def hf_merges(texts: list[list[str]], **kw) -> list[str]:
    """HF ParityBpeTrainer with ByteLevel on the given texts of each language, ratio 1."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tr = trainers.ParityBpeTrainer(show_progress=False, **kw)
    tok_iters = [iter(t) for t in texts]
    tr.train_from_iterator(tok, tok_iters, ratio=[1.0] * len(texts))
    return [" ".join(m) for m in json.loads(tok.to_str())["model"]["merges"]]


def file_merges(folder: Path) -> list[str]:
    data = json.loads((folder / "tokenizer.json").read_text("utf-8"))
    return [" ".join(m) for m in data["model"]["merges"]]


def whole(lang: str) -> list[str]:
    return [(FIXTURES / f"{lang}.train.txt").read_text("utf-8")]


def by_line(lang: str) -> list[str]:
    with open(FIXTURES / f"{lang}.train.txt", encoding="utf-8", newline="\n") as f:
        return f.readlines()


def train_actions():
    """The train parser's options, as users write them, outside the parity group
    (--help aside): the hidden older names too."""
    from bpe_gui.cli.entry import build_parser
    sub = next(a for a in build_parser(["train"])._actions if a.choices)
    train = sub.choices["train"]
    parity = next(g for g in train._action_groups if (g.title or "").startswith("parity"))
    own = {id(a) for a in parity._group_actions}
    for a in train._actions:
        if id(a) in own or "-h" in a.option_strings:
            continue
        yield a.option_strings[-1] if a.option_strings else "CORPUS"


# ----- the walk ---------------------------------------------------------------------------
# refused: a value that would change plain training
REFUSED = {
    "CORPUS": ["{corpus}"], "--counts": ["{corpus}"], "--vocab-size": ["300"],
    "--special-token": ["<s>"], "--preset": ["cl100k"], "--pattern": [r"\S+"],
    "--mode": ["char"], "--end-of-word": ["prefix"], "--tie-rule": ["first-seen"],
    "--tie-break": ["first-seen"], "--prune": [], "--from": ["{corpus}"],
    "--from-model": ["gpt2"], "--superbpe-from": ["0"], "--superbpe": [], "--threads": ["2"],
    "--special-text": ["text"],
}


def _honoured(out: Path, stdout: str, stderr: str, option: str) -> None:
    """Each honoured option's effect, seen from outside."""
    if option == "--num-merges":     # (given as 7 in the walk)
        assert len(file_merges(out)) == 7
    elif option == "--out":
        assert (out / "tokenizer.json").is_file()
    elif option == "--lines":
        assert file_merges(out) == hf_merges([by_line(g) for g in LANGS], num_merges=30)
    elif option == "--min-frequency":
        got = file_merges(out)
        assert got == hf_merges([whole(g) for g in LANGS], num_merges=30, min_frequency=300)
        assert len(got) < 30
    elif option == "--format":
        assert sorted(p.name for p in out.iterdir() if p.name != RECORD) == ["tokenizer.json"]
    elif option == "--name":
        names = [p.name for p in out.iterdir()]
        assert "x.bpe-gui.json" in names and not any(n.startswith("tokenizer") for n in names)
    elif option == "--quiet":
        assert stderr == ""
    elif option == "--encoding":   # (the files are UTF-8: UTF-8 named differently)
        assert file_merges(out) == hf_merges([whole(g) for g in LANGS], num_merges=30)
    else:
        raise AssertionError(f"{option}: say here how parity training honours it, or "
                             "refuse it (cli/parity_options.py PLAIN_OPTIONS)")


HONOURED_VALUES = {"--num-merges": ["7"], "--out": [], "--lines": [],
                   "--min-frequency": ["300"], "--format": ["hf"], "--name": ["x"],
                   "--quiet": [], "--encoding": ["UTF8"]}


@pytest.mark.parametrize("option", list(train_actions()))
def test_every_train_option_is_honoured_or_refused_with_parity(tmp_path, capsys, option):
    corpus = tmp_path / "c.txt"
    corpus.write_text("some text\n", "utf-8")
    out = tmp_path / "out"
    args = base_args(out)
    if option in REFUSED:
        values = [v.format(corpus=corpus) for v in REFUSED[option]]
        args += values if option == "CORPUS" else [option, *values]
        assert main(args) == 2
        line = capsys.readouterr().err.strip()
        shown = "corpus files" if option == "CORPUS" else \
            ("--tie-rule" if option == "--tie-break" else option)
        assert line.startswith(f"bpe-gui: error: {shown}"), line
        assert "not available with --parity: " in line
        assert not out.exists()
        return
    assert option in HONOURED_VALUES, f"{option} is new: add it to REFUSED or HONOURED_VALUES"
    if option == "--num-merges":
        args[args.index("--num-merges") + 1] = "7"
    elif option != "--out":
        args += [option, *HONOURED_VALUES[option]]
    capsys.readouterr()
    assert main(args) == 0
    got = capsys.readouterr()
    _honoured(out, got.out, got.err, option)


def test_the_table_names_every_option_of_train():
    from bpe_gui.cli.parity_options import PLAIN_OPTIONS
    walked = set(train_actions()) - {"--tie-break"}   # (the older name of --tie-rule)
    assert walked == set(PLAIN_OPTIONS)


@pytest.mark.parametrize("given", [["--preset", "gpt2"], ["--preset", "gpt-2"],
                                   ["--mode", "byte"]])
def test_parity_own_settings_given_are_taken(tmp_path, capsys, given):
    out = tmp_path / "out"
    assert main([*base_args(out), *given, "--format", "hf"]) == 0, capsys.readouterr().err
    assert file_merges(out) == hf_merges([whole(g) for g in LANGS], num_merges=30)


# ----- the files ----------------------------------------------------------------------------
def test_encoding_reads_the_language_files(tmp_path, capsys):
    """A Latin-1 file: refused without --encoding (the message asks for it), read with it;
    the merges are HF's on the decoded text."""
    text = "Straße café naïve über Größe déjà vu\n" * 40
    (tmp_path / "de.txt").write_bytes(text.encode("latin-1"))
    args = ["train", "--parity", "base", "--language", f"en={FIXTURES / 'en.train.txt'}",
            "--language", f"de={tmp_path / 'de.txt'}", "--ratio", "en=1", "--ratio", "de=1",
            "--num-merges", "40", "--out", str(tmp_path / "out"), "--format", "hf", "-q"]
    assert main(args) == 2
    assert "--encoding latin-1" in capsys.readouterr().err
    assert main([*args, "--encoding", "latin-1"]) == 0, capsys.readouterr().err
    assert file_merges(tmp_path / "out") == hf_merges([whole("en"), [text]], num_merges=40)


@pytest.mark.parametrize("which", ["--language", "--dev"])
def test_an_empty_file_is_named(tmp_path, capsys, which):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    args = ["train", "--parity", "base", "--num-merges", "5", "--out", str(tmp_path / "o")]
    for lang in LANGS:
        part = "train" if which == "--dev" or lang == "en" else None
        args += ["--language", f"{lang}={FIXTURES / f'{lang}.train.txt' if part else empty}",
                 "--dev", f"{lang}={FIXTURES / f'{lang}.dev.txt' if which == '--language' or lang == 'en' else empty}"]
    assert main(args) == 2
    line = capsys.readouterr().err
    kind = "training" if which == "--language" else "dev"
    assert str(empty) in line and f"{kind} file of language 'de' is empty" in line, line


def test_dev_texts_of_different_lengths_are_flagged(tmp_path, capsys):
    """100 lines against 30: the run goes on (a translation may wrap differently) with a
    warning naming both files and their lengths; parallel ones get none."""
    short = tmp_path / "de.dev.txt"
    short.write_text("".join(by_line("de")[:30]), "utf-8")
    args = ["train", "--parity", "base", "--num-merges", "5", "--out", str(tmp_path / "o"),
            "-q", "--language", f"en={FIXTURES / 'en.train.txt'}",
            "--language", f"de={FIXTURES / 'de.train.txt'}",
            "--dev", f"en={FIXTURES / 'en.dev.txt'}"]
    assert main([*args, "--dev", f"de={short}"]) == 0
    err = capsys.readouterr().err
    assert "bpe-gui: warning: the dev texts have different numbers of lines" in err
    assert f"({FIXTURES / 'en.dev.txt'}): 100" in err and f"({short}): 30" in err
    assert "--ratio" in err
    assert main([*args, "--dev", f"de={FIXTURES / 'de.dev.txt'}"]) == 0
    assert "warning" not in capsys.readouterr().err


def _lines(text: str) -> int:
    """Lines as a reader sees them: every \\n, and a last line without one."""
    return text.count("\n") + (text != "" and not text.endswith("\n"))


@pytest.mark.parametrize("variant", ["same", "no final newline", "blank line more",
                                     "one line less", "blank lines inside", "gz", "gz short"])
@pytest.mark.parametrize("lines", [False, True])
def test_dev_line_counts_come_from_the_counted_words(tmp_path, capsys, monkeypatch, variant,
                                                     lines):
    """The dev files' lines come from their counted words (each \\n in a word, times its
    count) and the last byte, so a plain file is read once (was: read again to the end
    for the warning); compressed ones are still read again. The warning appears exactly
    when the lines differ."""
    import gzip

    from bpe_gui.engine.train import parity_dev
    de = (FIXTURES / "de.dev.txt").read_text("utf-8")
    text = {"same": de, "no final newline": de.rstrip("\n"), "blank line more": de + "\n",
            "one line less": de[:de.rfind("\n", 0, len(de) - 1) + 1],
            "blank lines inside": de.replace("\n", "\n\n", 3)[:-1],
            "gz": de, "gz short": de[:de.find("\n") + 1]}[variant]
    if variant.startswith("gz"):
        dev = tmp_path / "de.dev.txt.gz"
        dev.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        dev = tmp_path / "de.dev.txt"
        dev.write_bytes(text.encode("utf-8"))
        real = parity_dev._file_lines

        def no_second_read(path, encoding):
            assert str(path) != str(dev), "a plain dev file was read again"
            return real(path, encoding)
        monkeypatch.setattr(parity_dev, "_file_lines", no_second_read)
    en = (FIXTURES / "en.dev.txt").read_text("utf-8")
    args = ["train", "--parity", "base", "--num-merges", "5", "--out", str(tmp_path / "o"),
            "-q", "--language", f"en={FIXTURES / 'en.train.txt'}",
            "--language", f"de={FIXTURES / 'de.train.txt'}",
            "--dev", f"en={FIXTURES / 'en.dev.txt'}", "--dev", f"de={dev}"]
    assert main(args + (["--lines"] if lines else [])) == 0
    err = capsys.readouterr().err
    if _lines(text) == _lines(en):
        assert "warning" not in err
    else:
        assert "different numbers of lines" in err
        assert f"({dev}): {_lines(text):,}" in err and f": {_lines(en):,}" in err


def test_window_share_is_its_own_flag_and_alpha_is_costs():
    """train's window share was --alpha, the flag `cost` has for the Rényi order: it is
    --window-share now (--alpha still read for it, not shown), and each help says which
    number it is."""
    import argparse

    from bpe_gui.cli.entry import build_parser
    parser = build_parser()
    train = ["train", "--parity", "window", "--out", "o"]
    assert parser.parse_args([*train, "--window-share", "1.25"]).window_share == 1.25
    assert parser.parse_args([*train, "--alpha", "1.5"]).window_share == 1.5
    assert parser.parse_args(train).window_share is None
    assert parser.parse_args(["cost", "f", "--tokenizer", "t", "--alpha", "1.5"]).alpha == 1.5
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {(cmd, opt): a.help for cmd in ("train", "cost")
             for a in sub.choices[cmd]._actions for opt in a.option_strings}
    assert helps[("train", "--alpha")] == argparse.SUPPRESS
    assert "window variant" in helps[("train", "--window-share")]
    assert "Rényi" in helps[("cost", "--alpha")]


@pytest.mark.parametrize("flag", ["--window-share", "--alpha"])
def test_window_share_outside_the_window_variant_is_refused(tmp_path, capsys, flag):
    base = base_args(tmp_path / "o")
    assert main([*base, flag, "2"]) == 2
    assert "--window-share apply to --parity window only" in capsys.readouterr().err
    plain = ["train", str(FIXTURES / "en.train.txt"), "--num-merges", "5", "--out",
             str(tmp_path / "p")]
    assert main([*plain, flag, "2"]) == 2
    assert "--window-share belong to parity training" in capsys.readouterr().err
