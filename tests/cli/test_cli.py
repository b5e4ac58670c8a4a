"""The ``bpe-gui`` command, run as users run it: in this process as a child would see it
(``run``; cli_in_process.py), or as a subprocess where the test is about the process.

Every run gets PYTHONPATH pointing at this checkout and a tmp_path working directory, so
nothing is written into the repository.
"""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_gui.cli.progress import Progress
from bpe_gui.cli.render import PARTIAL_STYLE, SPECIAL_STYLE, render_tokens
from bpe_gui.engine.display import readable
from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.formats.exports import RECORD
from cli_in_process import child_stdio, needs_process, run_in_process

REPO = Path(__file__).resolve().parents[2]
CORPUS = ("The quick brown fox jumps over the lazy dog. It's a lovely day, isn't it?\n"
          "满纸荒唐言，一把辛酸泪！都云作者痴，谁解其中味？\n"
          "def square(x):\n    return x * x  # 🙂👍🏽\n") * 30


def run(*args: str, cwd: Path, stdin: bytes | None = None, env: dict | None = None,
        timeout: float = 60, process: bool = False) -> subprocess.CompletedProcess:
    """``bpe-gui ARGS`` in ``cwd`` with ``env`` added to this environment: in this process
    (cli_in_process.py: what a child would see, ~1 s of imports less per run), or as a
    real ``python -m bpe_gui.cli`` child with ``process=True`` and where only a process
    can tell (the window; variables read at start-up, e.g. PYTHONIOENCODING, LC_ALL,
    BPE_GUI_*). ``timeout`` bounds the child only."""
    stdio = None if process or needs_process(args, Path(cwd), env) else child_stdio(str(REPO))
    if stdio is not None:
        return run_in_process(args, cwd, stdin, env, REPO, stdio)
    full_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    full_env["PYTHONPATH"] = str(REPO)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "bpe_gui.cli", *args], cwd=cwd, input=stdin,
                          capture_output=True, env=full_env, timeout=timeout)


def out(p: subprocess.CompletedProcess) -> str:
    return p.stdout.decode("utf-8")


def err(p: subprocess.CompletedProcess) -> str:
    return p.stderr.decode("utf-8")


# a progress line, printed without a terminal once a phase has taken over half a second
# (cli/progress.py): on a loaded machine a failing run may print some before its error
PROGRESS_LINE = re.compile(r"bpe-gui: [\w -]+ \d+% \([^)]*\)")


def assert_user_error(p: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 2, one stderr line 'bpe-gui: error: ...' (after progress lines, if the run was
    slow enough to print them, and notes), no traceback."""
    assert p.returncode == 2, (p.returncode, err(p))
    lines = [ln for ln in err(p).splitlines() if not PROGRESS_LINE.fullmatch(ln)
             and not ln.startswith("bpe-gui: note: ")]   # (e.g. the file a folder gave)
    assert len(lines) == 1, err(p)
    assert lines[0].startswith("bpe-gui: error: ")
    assert "Traceback" not in err(p)
    for n in needles:
        assert n.lower() in lines[0].lower(), lines[0]
    return lines[0]


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, "utf-8")
    return path


@pytest.fixture(scope="module")
def trained_dir(tmp_path_factory) -> Path:
    """One byte-level training run shared by the encode tests."""
    work = tmp_path_factory.mktemp("trained")
    (work / "corpus.txt").write_text(CORPUS, "utf-8")
    p = run("train", "corpus.txt", "--vocab-size", "320", "--out", "tok",
            "--special-token", "<|endoftext|>", "--preset", "cl100k", cwd=work)
    assert p.returncode == 0, err(p)
    return work / "tok"


# ----- train ----------------------------------------------------------------------------
def test_train_writes_every_byte_format(tmp_path, corpus):
    p = run("train", str(corpus), "--vocab-size", "300", "--out", "out",
            "--special-token", "<|endoftext|>", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    names = sorted(f.name for f in (tmp_path / "out").iterdir() if f.name != RECORD)
    assert names == sorted(["vocab.json", "merges.txt", "tokenizer.json", "tokenizer.tiktoken",
                            "tokenizer.tiktoken.json", "tokenizer.bpe-gui.json",
                            "tokenizer.merges.csv"])
    text = out(p)
    assert "merges:" in text and "bytes per token" in text and "vocab size:  300" in text
    data = json.loads((tmp_path / "out" / "tokenizer.bpe-gui.json").read_text("utf-8"))
    assert len(data["merges"]) == 300 - 257
    assert data["settings"]["special_tokens"] == ["<|endoftext|>"]
    # the summary's bytes per token is what encoding the corpus gives
    tok = load_tokenizer(tmp_path / "out")
    ids = tok.encode(CORPUS, allowed_special="all")
    expected = f"{len(CORPUS.encode()) / len(ids):.2f} bytes per token"
    assert expected in text


def test_train_options_reach_the_settings(tmp_path, corpus):
    p = run("train", str(corpus), "--num-merges", "12", "--out", "o", "--format", "native",
            "--tie-break", "lowest-ids", "--min-frequency", "2", "--preset", "gpt4",
            "--name", "small", "-q", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert err(p) == ""
    data = json.loads((tmp_path / "o" / "small.bpe-gui.json").read_text("utf-8"))
    s = data["settings"]
    assert (s["tie_rule"], s["min_frequency"], s["pattern"]) == ("lowest-ids", 2, "cl100k")
    assert len(data["merges"]) == 12
    assert [f.name for f in (tmp_path / "o").iterdir() if f.name != RECORD] == \
        ["small.bpe-gui.json"]


def test_format_lists_and_repeats(tmp_path, corpus):
    p = run("train", str(corpus), "--vocab-size", "280", "--out", "o", "--format", "gpt2,hf",
            "--format", "csv", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert sorted(f.name for f in (tmp_path / "o").iterdir() if f.name != RECORD) == \
        ["merges.txt", "tokenizer.json", "tokenizer.merges.csv", "vocab.json"]


def test_worked_example_via_cli(tmp_path):
    (tmp_path / "c.txt").write_text("low low lower newest newest widest widest widest", "utf-8")
    p = run("train", "c.txt", "--num-merges", "4", "--out", "o", "--format", "csv", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    rows = (tmp_path / "o" / "tokenizer.merges.csv").read_text("utf-8").splitlines()[1:]
    assert [tuple(r.split(",")[2:4]) for r in rows] == [("s", "t"), ("e", "st"), ("w", "i"),
                                                         ("wi", "d")]


def test_char_mode_writes_what_it_can_and_says_why(tmp_path, corpus):
    p = run("train", str(corpus), "--num-merges", "20", "--out", "o", "--mode", "char", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert sorted(f.name for f in (tmp_path / "o").iterdir() if f.name != RECORD) == \
        ["tokenizer.bpe-gui.json", "tokenizer.merges.csv"]
    notes = err(p)
    assert "not written as tiktoken" in notes and "not written as gpt2" in notes
    p = run("train", str(corpus), "--num-merges", "20", "--out", "o2", "--mode", "char",
            "--end-of-word", "prefix", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert (tmp_path / "o2" / "tokenizer.json").is_file()


def test_progress_lines_without_a_terminal(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text(CORPUS * 40, "utf-8")
    p = run("train", str(big), "--vocab-size", "800", "--out", "o", "--format", "native",
            "--pattern", r"\S+|\s+", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    for line in err(p).splitlines():
        assert line.startswith("bpe-gui: ") and "\r" not in line


def test_progress_bar_renders_in_place():

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = Progress(stream)
    bar("pretokenize", 50, 100)
    bar("pretokenize", 100, 100)
    bar("merge", 3, 3)
    bar.end_line()
    text = stream.getvalue()
    assert text.count("\r") >= 2 and "pre-tokenizing" in text and "merging" in text
    assert text.endswith("\n") and "100.0%" in text

    plain = io.StringIO()
    slow = Progress(plain)
    slow.QUIET_S = 0.0
    for done in range(0, 101, 5):
        slow("merge", done, 100)
    lines = plain.getvalue().splitlines()
    assert 5 <= len(lines) <= 11 and lines[-1].startswith("bpe-gui: merging 100%")


# ----- encode ---------------------------------------------------------------------------
def test_encode_text_prints_tokens_and_ids(tmp_path, trained_dir):
    text = "Hello  world<|endoftext|>红楼梦 🙂"
    p = run("encode", "--tokenizer", str(trained_dir), text, cwd=tmp_path)
    assert p.returncode == 0, err(p)
    tokens_line, ids_line = out(p).splitlines()
    tok = load_tokenizer(trained_dir)
    enc = tok.encode_with_offsets(text, allowed_special="all")
    assert ids_line.split() == [str(i) for i in enc.ids]
    assert tokens_line == " ".join(readable(t) for t in enc.tokens)
    assert "·" in tokens_line and "<|endoftext|>" in tokens_line
    assert "\x1b[" not in out(p)  # no colours when not printing to a terminal


@pytest.mark.parametrize("what", ["vocab.json", "tokenizer.json", "tokenizer.tiktoken",
                                  "tokenizer.bpe-gui.json", "merges.txt"])
def test_encode_stdin_any_file(tmp_path, trained_dir, what):
    text = "Hello world, 满纸荒唐言\n"
    p = run("encode", "--tokenizer", str(trained_dir / what), "--ids-only", cwd=tmp_path,
            stdin=text.encode("utf-8"))
    assert p.returncode == 0, err(p)
    ref = run("encode", "--tokenizer", str(trained_dir), "-", "--ids-only", cwd=tmp_path,
              stdin=text.encode("utf-8"))
    if what in ("vocab.json", "merges.txt"):  # GPT-2 files keep no pattern: say which
        p = run("encode", "--tokenizer", str(trained_dir / what), "--ids-only",
                "--preset", "cl100k", cwd=tmp_path, stdin=text.encode("utf-8"))
    assert out(p) == out(ref)
    assert len(out(p).splitlines()) == 1


@pytest.mark.regression
@pytest.mark.parametrize("preset", ["whitespace", "cjk"])
def test_encode_noncharacters_from_stdin(tmp_path, preset):
    """`printf '\\xef\\xbf\\xbf\\xef\\xbf\\xbf' | bpe-gui encode --tokenizer d/tokenizer.json
    --ids-only` printed a traceback (KeyError: U+FFFF, word_model's in-band mark) for a
    pattern the native scanner does not run; now the ids, as the trained tokenizer's."""
    (tmp_path / "corpus.txt").write_text(CORPUS, "utf-8")
    p = run("train", "corpus.txt", "--vocab-size", "300", "--out", "d", "--preset", preset,
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    text = "\uffff\uffff \ufffe\U0010ffff x\ufdd0"
    for stdin in (b"\xef\xbf\xbf\xef\xbf\xbf", text.encode("utf-8")):
        want = load_tokenizer(tmp_path / "d" / "tokenizer.bpe-gui.json").encode(stdin.decode(), allowed_special="all")
        for name in ("tokenizer.json", "tokenizer.tiktoken"):
            p = run("encode", "--tokenizer", f"d/{name}", "--ids-only", cwd=tmp_path,
                    stdin=stdin)
            assert p.returncode == 0 and "Traceback" not in err(p), err(p)
            assert out(p).split() == [str(i) for i in want]


def test_encode_colours_when_asked(tmp_path, trained_dir):
    p = run("encode", "--tokenizer", str(trained_dir), "--color", "always", "ab 你",
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    lines = out(p).splitlines()
    assert "\x1b[" in lines[0] and "tokens" in lines[2]
    shown = render_tokens([b"a", b" b", "你".encode()[:2], b"<s>"], [False, False, False, True],
                          color=True)
    assert PARTIAL_STYLE + "<E4 BD>" in shown and SPECIAL_STYLE + "<s>" in shown and "·b" in shown


def test_train_and_encode_never_import_qt(tmp_path, trained_dir):
    code = ("import sys; from bpe_gui.cli import main; "
            f"rc = main(['encode', '--tokenizer', {str(trained_dir)!r}, 'hi', '--ids-only']); "
            "assert rc == 0; assert not [m for m in sys.modules if m.startswith('PySide6')], "
            "'Qt imported'")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, env=env)
    assert p.returncode == 0, p.stderr.decode()


def test_python_dash_m_bpe_gui_runs_the_command(tmp_path, corpus):
    """`python -m bpe_gui` is the `bpe-gui` script (issue 20: the command line as a package)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    p = subprocess.run([sys.executable, "-m", "bpe_gui", "train", str(corpus), "--num-merges",
                        "5", "--format", "hf", "--out", "o", "-q"], cwd=tmp_path,
                       capture_output=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    assert (tmp_path / "o" / "tokenizer.json").is_file()


# ----- the runner itself ------------------------------------------------------------------
@pytest.mark.parametrize("args,stdin", [
    (["--help"], None), (["--version"], None),
    (["encode", "--tokenizer", "{tok}", "héllo 🙂 wörld", "--ids-only"], None),
    (["encode", "--tokenizer", "{tok}", "--json"], "naïve café\r\nline two\n".encode()),
    (["decode", "--tokenizer", "{tok}", "-"], b"72, 101, 300"),
    (["encode", "--tokenizer", "{tok}"], b"caf\xe9"),   # user error: not UTF-8
    (["train", "nope.txt", "--vocab-size", "300", "--out", "o"], None),   # user error
    (["train", "--vocab-size", "lots"], None)])   # argparse's error
def test_in_process_runs_give_what_a_process_gives(tmp_path, trained_dir, args, stdin):
    """run() in this process (cli_in_process.py) and as a child: the same exit status,
    standard output and standard error (less progress lines, which depend on timing)."""
    args = [a.replace("{tok}", str(trained_dir)) for a in args]

    def without_progress(b: bytes) -> list[bytes]:
        return [ln for ln in b.split(b"\n") if not PROGRESS_LINE.fullmatch(ln.decode())]
    stdio = child_stdio(str(REPO))
    if stdio is None:
        pytest.skip("a child here starts with other warning filters: run() takes a process")
    here = run_in_process(args, tmp_path, stdin, None, REPO, stdio)
    child = run(*args, cwd=tmp_path, stdin=stdin, process=True)
    assert (here.returncode, here.stdout) == (child.returncode, child.stdout)
    assert without_progress(here.stderr) == without_progress(child.stderr)
    assert child.returncode in (0, 2) and (child.stdout or child.stderr)


# ----- help and the window ----------------------------------------------------------------
@pytest.mark.parametrize("args,needle", [(["--help"], "train"), (["train", "--help"], "--vocab-size"),
                                         (["encode", "--help"], "--tokenizer")])
def test_help(tmp_path, args, needle):
    p = run(*args, cwd=tmp_path)
    assert p.returncode == 0 and needle in out(p) and "usage:" in out(p)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display detection is X11/Wayland")
def test_no_display_is_a_clear_error(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "PYTHONPATH")}
    env["PYTHONPATH"] = str(REPO)
    for args in ([], ["corpus.txt"]):  # bpe-gui FILE opens the window with the file
        (tmp_path / "corpus.txt").write_text("hello", "utf-8")
        p = subprocess.run([sys.executable, "-m", "bpe_gui.cli", *args], cwd=tmp_path,
                           capture_output=True, env=env, timeout=60)
        assert_user_error(p, "display")


# ----- user errors: exit 2, one line ------------------------------------------------------
def test_missing_corpus(tmp_path):
    assert_user_error(run("train", "nope.txt", "--vocab-size", "300", "--out", "o", cwd=tmp_path),
                      "nope.txt", "not found")


def test_empty_corpus(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    assert_user_error(run("train", "empty.txt", "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "empty")


def test_corpus_not_utf8(tmp_path):
    (tmp_path / "latin.txt").write_bytes("café olé".encode("latin-1"))
    assert_user_error(run("train", "latin.txt", "--vocab-size", "300", "--out", "o",
                          cwd=tmp_path), "utf-8", "offset 3")


def test_vocab_size_too_small(tmp_path, corpus):
    assert_user_error(run("train", str(corpus), "--vocab-size", "100", "--out", "o",
                          "--special-token", "<s>", cwd=tmp_path), "257")
    assert_user_error(run("train", str(corpus), "--vocab-size", "5", "--out", "o",
                          "--mode", "char", "-q", cwd=tmp_path), "at least")


def test_size_missing_or_not_a_number(tmp_path, corpus):
    assert_user_error(run("train", str(corpus), "--out", "o", cwd=tmp_path), "--vocab-size")
    assert_user_error(run("train", str(corpus), "--vocab-size", "lots", "--out", "o",
                          cwd=tmp_path), "lots", "train --help")


def test_empty_special_token(tmp_path, corpus):
    assert_user_error(run("train", str(corpus), "--vocab-size", "300", "--out", "o",
                          "--special-token", "", cwd=tmp_path), "empty")


def test_pattern_that_does_not_compile(tmp_path, corpus):
    assert_user_error(run("train", str(corpus), "--vocab-size", "300", "--out", "o",
                          "--pattern", r"(\p{L}+", cwd=tmp_path), "does not compile")


def test_pattern_that_runs_away(tmp_path):
    (tmp_path / "a.txt").write_text("a" * 3000 + "\n", "utf-8")
    p = run("train", "a.txt", "--vocab-size", "300", "--out", "o", "--pattern", "(a|aa)+b",
            cwd=tmp_path, env={"BPE_GUI_PATTERN_TIMEOUT": "0.3"})
    assert_user_error(p, "pattern", "stopped")
    assert not (tmp_path / "o").exists()


def test_output_folder_cannot_be_written(tmp_path, corpus):
    (tmp_path / "afile").write_text("x")
    p = run("train", str(corpus), "--vocab-size", "300", "--out", "afile/sub", cwd=tmp_path)
    assert_user_error(p, "afile")


def test_unknown_and_impossible_formats(tmp_path, corpus):
    assert_user_error(run("train", str(corpus), "--vocab-size", "300", "--out", "o",
                          "--format", "yaml", cwd=tmp_path), "yaml")
    p = run("train", str(corpus), "--vocab-size", "300", "--out", "o", "--mode", "char",
            "--format", "tiktoken", cwd=tmp_path)
    assert_user_error(p, "tiktoken", "byte")
    assert not (tmp_path / "o").exists()


def test_malformed_tokenizer_files(tmp_path, trained_dir):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "vocab.json").write_text((trained_dir / "vocab.json").read_text("utf-8"), "utf-8")
    lines = (trained_dir / "merges.txt").read_text("utf-8").splitlines()
    lines[6] = "onlyonetoken"
    (bad / "merges.txt").write_text("\n".join(lines) + "\n", "utf-8")
    assert_user_error(run("encode", "--tokenizer", str(bad), "hi", cwd=tmp_path),
                      "merges.txt, line 7")
    (bad / "tokenizer.json").write_text('{"version": "1.0"}', "utf-8")
    assert_user_error(run("encode", "--tokenizer", str(bad / "tokenizer.json"), "hi",
                          cwd=tmp_path), "'model'")
    assert_user_error(run("encode", "--tokenizer", "missing-dir", "hi", cwd=tmp_path),
                      "not found")


def test_stdin_not_utf8(tmp_path, trained_dir):
    assert_user_error(run("encode", "--tokenizer", str(trained_dir), cwd=tmp_path,
                          stdin=b"ok \xff\xfe"), "utf-8", "offset 3")


@pytest.mark.parametrize("name", ["llama3", "qwen2"])
def test_train_with_a_published_patterns_name(tmp_path, corpus, name):
    """--preset llama3 / qwen2 (names of published patterns, not in the window's list):
    the files written carry the pattern itself, and tokenizers reads them to the same ids."""
    from tokenizers import Tokenizer as HFTokenizer

    from bpe_gui.engine.text.presets import NAMED_PATTERNS
    p = run("train", str(corpus), "--vocab-size", "300", "--out", "out", "--preset", name,
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    raw = run("train", str(corpus), "--vocab-size", "300", "--out", "raw", "--pattern",
              NAMED_PATTERNS[name], cwd=tmp_path)
    assert raw.returncode == 0, err(raw)
    for f in ("tokenizer.json", "merges.txt", "tokenizer.tiktoken.json"):   # as the pattern gives
        assert (tmp_path / "out" / f).read_bytes() == (tmp_path / "raw" / f).read_bytes(), f
    hf = HFTokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    text = CORPUS + " 12345 67 it's"
    assert load_tokenizer(tmp_path / "out").encode(text, allowed_special="all") == hf.encode(text).ids
    bad = run("train", str(corpus), "--vocab-size", "300", "--out", "o2", "--preset", "llama4",
              cwd=tmp_path)
    assert bad.returncode != 0 and "unknown preset 'llama4'" in err(bad) and "qwen2" in err(bad)
