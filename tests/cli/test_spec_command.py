"""A training spec prints as the exact ``bpe-gui train`` command that makes it, and the
command line's own parser and checks read that command back into the same spec
(engine/train/spec.py ``argv``/``command``, cli/train_on.py ``spec_of``), for every mode
and option (hypothesis draws the specs); and the command, run, trains what the spec's run
trains."""
from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.cli import main
from bpe_gui.cli.train_on import spec_of
from bpe_gui.engine.corpus import count_corpus
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.text import Pretokenizer
from bpe_gui.engine.train import (PARITY, PLAIN, SUPERBPE, TRAIN_ON, Language, ParityOptions,
                                  Trainer, TrainingSpec, TrainSettings, build_run, resolve)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "parallel"
TEXT = (FIXTURES / "en.train.txt").read_text("utf-8")
SPECIALS = ("<|endoftext|>", "<pad>", "<s>")
PATTERNS = ("gpt2", "cl100k", "o200k", "whitespace", "cjk", r"\w+|\s+|[^\w\s]+", "llama3")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("spec")
    out = {}
    for name in ("a b.txt", "c.txt"):
        (d / name).write_text(TEXT[:4000], encoding="utf-8")
    out["corpus"] = [str(d / "a b.txt"), str(d / "c.txt")]
    out["table"] = str(d / "t.counts.tsv")
    count_corpus(out["corpus"][1], Pretokenizer("cl100k", ["<s>"]), out=out["table"])
    t = Trainer.from_text(TEXT[:3000], TrainSettings(num_merges=30, special_tokens=("<s>",)))
    t.run()
    export_tokenizer(t.tokenizer(), d / "tok", "hf")
    out["base"] = str(d / "tok" / "tokenizer.json")
    return out


def settings_of(draw, *, mode: str = "byte", target_floor: int = 300) -> dict:
    merges = draw(st.booleans())
    return dict(num_merges=draw(st.integers(20, 90)) if merges else None,
                vocab_size=None if merges else draw(st.integers(target_floor, 400)),
                tie_rule=draw(st.sampled_from(["greatest", "first-seen", "lowest-ids",
                                               "lowest-ids-hf"])),
                min_frequency=draw(st.integers(1, 4)), mode=mode)


@st.composite
def specs(draw, files: dict) -> TrainingSpec:
    mode = draw(st.sampled_from([PLAIN, PLAIN, SUPERBPE, TRAIN_ON, PARITY]))
    corpus = tuple(draw(st.sampled_from([files["corpus"][:1], files["corpus"]])))
    encoding = draw(st.sampled_from(["utf-8", "latin-1"]))
    if mode == PLAIN:
        char = draw(st.booleans())
        s = TrainSettings(**settings_of(draw, mode="char" if char else "byte"),
                          end_of_word=draw(st.sampled_from(["suffix", "prefix"])),
                          pattern=draw(st.sampled_from(PATTERNS)),
                          special_tokens=tuple(draw(st.lists(st.sampled_from(SPECIALS),
                                                             unique=True, max_size=2))),
                          prune=draw(st.booleans()), lines=draw(st.booleans()),
                          special_text=draw(st.sampled_from(["cut", "text", "word"])))
        if draw(st.integers(0, 4)) == 0:   # a word-count table: its pattern and specials
            s = TrainSettings(**{**vars(s), "pattern": "cl100k", "special_tokens": ("<s>",),
                                 "lines": False, "special_text": "cut"})
            return TrainingSpec(counts=(files["table"],), settings=s)
        return TrainingSpec(corpus=corpus, settings=s, encoding=encoding,
                            threads=draw(st.sampled_from([None, 1, 2])))
    if mode == SUPERBPE:
        base = draw(st.booleans())
        kw = settings_of(draw)
        t = draw(st.integers(0, 18))
        if base:
            return TrainingSpec(SUPERBPE, corpus=corpus, base=files["base"], encoding=encoding,
                                settings=TrainSettings(**kw, superbpe_from=draw(
                                    st.sampled_from([None, t]))))
        return TrainingSpec(SUPERBPE, corpus=corpus, encoding=encoding, settings=TrainSettings(
            **kw, superbpe_from=t, pattern=draw(st.sampled_from(PATTERNS[:3])),
            special_tokens=tuple(draw(st.lists(st.sampled_from(SPECIALS), unique=True,
                                               max_size=1)))))
    if mode == TRAIN_ON:
        return TrainingSpec(TRAIN_ON, corpus=corpus, base=files["base"], encoding=encoding,
                            settings=TrainSettings(**settings_of(draw, target_floor=400),
                                                   lines=draw(st.booleans())))
    names = draw(st.lists(st.sampled_from(["en", "de", "ru", "zh"]), min_size=1, max_size=4,
                          unique=True))
    dev = draw(st.booleans())
    ratios = st.floats(0.05, 20, allow_nan=False).map(lambda r: round(r, draw(
        st.integers(0, 6))) or 0.5)
    langs = tuple(Language(n, str(FIXTURES / f"{n}.train.txt"),
                           str(FIXTURES / f"{n}.dev.txt") if dev else None,
                           None if dev else draw(ratios)) for n in names)
    window = draw(st.booleans())
    return TrainingSpec(PARITY, encoding=encoding, parity=ParityOptions(
        langs, "window" if window else "base", draw(st.integers(0, 30)),
        draw(st.integers(1, 200)), draw(st.floats(0.1, 8).map(lambda a: round(a, 3)))),
        settings=TrainSettings(num_merges=draw(st.integers(0, 500)), vocab_size=None,
                               min_frequency=draw(st.integers(1, 9)),
                               lines=draw(st.booleans())))


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_spec_reads_back_from_its_command(files, data):
    drawn = data.draw(specs(files))
    base = load_tokenizer(files["base"]) if drawn.base else None
    spec = resolve(drawn, base)
    argv = spec.argv()
    assert shlex.split(spec.command()) == ["bpe-gui", *argv]
    back, source = spec_of(argv)
    assert back == spec, spec.command()
    assert (source is None) == (base is None)


def test_the_command_trains_what_the_spec_trains(files, tmp_path, capsys):
    """Run through the command line, a spec's command writes the merges its run makes."""
    cases = [TrainingSpec(corpus=tuple(files["corpus"]), settings=TrainSettings(
                 num_merges=40, tie_rule="first-seen", pattern="o200k", lines=True)),
             TrainingSpec(corpus=tuple(files["corpus"]), settings=TrainSettings(
                 num_merges=40, special_tokens=("the",), special_text="word")),
             TrainingSpec(SUPERBPE, corpus=tuple(files["corpus"][:1]),
                          settings=TrainSettings(num_merges=40, superbpe_from=25)),
             TrainingSpec(TRAIN_ON, corpus=tuple(files["corpus"][:1]), base=files["base"],
                          settings=TrainSettings(num_merges=25)),
             TrainingSpec(PARITY, settings=TrainSettings(num_merges=40, vocab_size=None),
                          parity=ParityOptions((Language("en", str(FIXTURES / "en.train.txt"),
                                                         ratio=1.0),
                                                Language("zh", str(FIXTURES / "zh.train.txt"),
                                                         ratio=0.8))))]
    for k, spec in enumerate(cases):
        base = load_tokenizer(files["base"]) if spec.base else None
        run = build_run(spec, base=base)
        run.run()
        out = tmp_path / f"o{k}"
        argv = spec.argv(str(out))
        k = argv.index("--") if "--" in argv else len(argv)   # (options before the files)
        assert main([*argv[:k], "--format", "hf", "-q", *argv[k:]]) == 0
        capsys.readouterr()
        merges = json.loads((out / "tokenizer.json").read_text("utf-8"))["model"]["merges"]
        assert [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges] == \
            [tuple(_spelled(a) for a in m) for m in run.tokenizer().merges], spec.command()


def _spelled(token: bytes) -> str:
    from bpe_gui.engine.display import bytes_to_unicode
    table = bytes_to_unicode()
    return "".join(table[b] for b in token)


def test_text_in_memory_is_read_from_standard_input():
    spec = TrainingSpec(text="low lower", settings=TrainSettings(num_merges=5))
    assert spec.argv()[-2:] == ["--", "-"]


@pytest.mark.regression
@pytest.mark.parametrize("extra", [[], ["--lines", "--tie-rule", "lowest-ids-hf"],
                                   ["--from", "BASE"], ["--encoding", "latin-1"],
                                   ["--superbpe-from", "30"]])
def test_train_dash_reads_standard_input(files, tmp_path, extra):
    """`bpe-gui train -` said "-: file not found"; it reads the standard input, as the
    file would be read."""
    from test_cli import run
    extra = [files["base"] if a == "BASE" else a for a in extra]
    data = TEXT.encode("latin-1", "replace") if "latin-1" in extra else TEXT.encode()
    (tmp_path / "c.txt").write_bytes(data)
    outs = []
    for corpus, stdin in (("-", data), (str(tmp_path / "c.txt"), None)):
        out = tmp_path / f"o{len(outs)}"
        p = run("train", corpus, "--num-merges", "60", *extra, "--out", str(out), "--format",
                "hf", "-q", stdin=stdin, cwd=tmp_path)
        assert p.returncode == 0, p.stderr.decode()
        outs.append((out / "tokenizer.json").read_bytes())
    assert outs[0] == outs[1]


# ----- names and values that start with a dash; settings a mode does not use ------------
def _shell_train(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """``command`` run by a real shell in ``cwd``, ``bpe-gui`` being this checkout's."""
    import os
    import sys
    bin_dir = cwd / ".bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "bpe-gui"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m bpe_gui \"$@\"\n")
    shim.chmod(0o755)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)


def _merges_in(folder: Path) -> list:
    return load_tokenizer(folder / "tokenizer.json").merges


@pytest.mark.regression
@pytest.mark.parametrize("name, out, special", [
    ("-h", "tokenizer", None), ("-notes.txt", "tokenizer", None),
    ("--out=elsewhere", "tokenizer", None), ("c.txt", "-tok", None),
    ("c.txt", "tokenizer", "-->")])
def test_names_and_values_that_start_with_a_dash_are_the_specs(tmp_path, name, out,
                                                               special):
    """A corpus named -h printed the help and trained nothing; -notes.txt, --out=elsewhere,
    out -tok and a special token --> gave commands the command line refused."""
    (tmp_path / name).write_text(TEXT[:3000], encoding="utf-8")
    spec = TrainingSpec(corpus=(name,), settings=TrainSettings(
        num_merges=30, special_tokens=(special,) if special else ()))
    argv = shlex.split(spec.command(out))[1:]
    assert spec_of(argv)[0] == spec.validated()
    p = _shell_train(spec.command(out), tmp_path)
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "elsewhere").exists()
    run = build_run(replace_cwd(spec, tmp_path))
    run.run()
    assert _merges_in(tmp_path / out) == run.tokenizer().merges


def replace_cwd(spec: TrainingSpec, cwd: Path) -> TrainingSpec:
    from dataclasses import replace
    return replace(spec, corpus=tuple(str(cwd / c) for c in spec.corpus))


@pytest.mark.regression
def test_table_names_that_start_with_a_dash_are_the_specs(files, tmp_path, monkeypatch):
    """--counts took the names after it until the next option: a table named -t.tsv was
    read as an option."""
    import shutil
    shutil.copy(files["table"], tmp_path / "-t.tsv")
    monkeypatch.chdir(tmp_path)
    spec = TrainingSpec(counts=("-t.tsv", files["table"]), settings=TrainSettings(
        num_merges=10, pattern="cl100k", special_tokens=("<s>",)))
    assert spec_of(spec.argv())[0].counts == spec.counts


UNUSED_BUT_GIVEN = [
    TrainingSpec(PARITY, settings=TrainSettings(num_merges=20, special_tokens=("<s>",),
                                                pattern="cl100k", tie_rule="lowest-ids"),
                 parity=ParityOptions((Language("en", str(FIXTURES / "en.train.txt"),
                                                ratio=1.0),))),
    TrainingSpec(SUPERBPE, corpus=("c.txt",), threads=2, settings=TrainSettings(
        num_merges=40, superbpe_from=20, prune=True, lines=True)),
    TrainingSpec(counts=("t.tsv",), threads=2, settings=TrainSettings(num_merges=20)),
    TrainingSpec(corpus=("c.txt",), settings=TrainSettings(num_merges=20,
                                                           end_of_word="prefix")),
]


@pytest.mark.regression
@pytest.mark.parametrize("spec", UNUSED_BUT_GIVEN)
def test_a_command_holds_only_the_settings_its_mode_uses(spec):
    """command() of a spec not validated wrote settings its mode does not use, and the
    command line refused them, though build_run trains the spec."""
    argv = spec.argv()
    text = " ".join(argv)
    for flag in ("--special-token", "--pattern", "--preset", "--tie-rule", "--prune",
                 "--lines", "--threads", "--end-of-word"):
        assert flag not in text, spec.command()
    assert spec_of(argv)[0].validated() == spec.validated() if not spec.counts else True


@pytest.mark.regression
@pytest.mark.parametrize("spec, said", [
    (TrainingSpec(PARITY, settings=TrainSettings(num_merges=5), parity=ParityOptions(
        (Language("en", "a"), Language("de", "b")))), "--dev NAME=FILE.*--ratio"),
    (TrainingSpec(corpus=("c.txt",), threads="many"),
     r"TrainingSpec\(threads\) should be a whole number"),
    (TrainingSpec(corpus=("c.txt",), threads=0), r"TrainingSpec\(threads\)"),
    (TrainingSpec(corpus=(1, 2)), r"TrainingSpec\(corpus\)\[0\] should be a file path"),
    (TrainingSpec(corpus="abc"), r"TrainingSpec\(corpus\) should be"),
    (TrainingSpec(counts=("t.tsv", None)), r"TrainingSpec\(counts\)\[1\]"),
    (TrainingSpec(text=b"abc"), r"TrainingSpec\(text\) should be text"),
    (TrainingSpec(text="a", encoding=5), r"TrainingSpec\(encoding\)"),
    (TrainingSpec(TRAIN_ON, text="a", base=7), r"TrainingSpec\(base\)"),
    (TrainingSpec(text="a", settings={"num_merges": 5}), r"TrainingSpec\(settings\)"),
])
def test_what_build_run_and_the_command_rely_on_is_checked(spec, said):
    """threads="many" passed validated() and its command held --threads many; corpus
    (1, 2) raised a raw TypeError; a parity spec with neither dev texts nor ratios passed,
    and the command line refused its command."""
    from bpe_gui.engine.errors import SettingsError
    with pytest.raises(SettingsError, match=said):
        spec.validated()
    with pytest.raises(SettingsError, match=said):
        build_run(spec)


# ----- property: validated() iff build_run trains; the command, run by a shell, is the spec
AWKWARD = ("-h", "-notes.txt", "--out=elsewhere", "a b.txt", "it's \"q\" $x;`.txt",
           "naïve 日本.txt")
AWKWARD_SPECIALS = ("<|endoftext|>", "-->", "--x", "<s>")


@pytest.fixture(scope="module")
def awkward(tmp_path_factory) -> Path:
    """A folder of small files with names a shell or an option parser could misread,
    and a tokenizer to train on named -tok.json."""
    d = tmp_path_factory.mktemp("awkward")
    for k, name in enumerate(AWKWARD):
        (d / name).write_text(TEXT[k * 700:k * 700 + 1500], encoding="utf-8")
    t = Trainer.from_text(TEXT[:2000], TrainSettings(num_merges=20, special_tokens=("<s>",)))
    t.run()
    export_tokenizer(t.tokenizer(), d / "tok", "hf")
    (d / "tok" / "tokenizer.json").rename(d / "-tok.json")
    return d


@st.composite
def drawn_specs(draw) -> TrainingSpec:
    """Specs of every mode, with settings their mode may not use, some fields wrong."""
    mode = draw(st.sampled_from([PLAIN, SUPERBPE, TRAIN_ON, PARITY]))
    merges = draw(st.booleans())
    settings = TrainSettings(
        num_merges=draw(st.integers(3, 30)) if merges else None,
        vocab_size=None if merges else draw(st.integers(262, 300)),
        mode=draw(st.sampled_from(["byte", "byte", "char"])),
        end_of_word=draw(st.sampled_from(["suffix", "prefix"])),
        pattern=draw(st.sampled_from(["gpt2", "cl100k", "whitespace"])),
        special_tokens=tuple(draw(st.lists(st.sampled_from(AWKWARD_SPECIALS), unique=True,
                                           max_size=2))),
        tie_rule=draw(st.sampled_from(["greatest", "lowest-ids", "lowest-ids-hf"])),
        min_frequency=draw(st.integers(1, 3)), prune=draw(st.booleans()),
        lines=draw(st.booleans()),
        superbpe_from=draw(st.sampled_from([None, None, 0, 5, 12])))
    corpus = tuple(draw(st.lists(st.sampled_from(AWKWARD), min_size=1, max_size=2,
                                 unique=True)))
    wrong = draw(st.sampled_from([{}] * 6 + [{"threads": "many"}, {"threads": 0},
                                             {"corpus": (1, 2)}, {"encoding": 5}]))
    parity = None
    if mode == PARITY:
        ratio = draw(st.booleans())
        names = draw(st.sampled_from([("en",), ("en", "d-e"), ("-x", "ü b")]))
        parity = ParityOptions(tuple(
            Language(n, AWKWARD[k], None if ratio else AWKWARD[-1 - k],
                     float(k + 1) if ratio else None) for k, n in enumerate(names)),
            draw(st.sampled_from(["base", "window"])), draw(st.integers(0, 3)))
    spec = TrainingSpec(mode, corpus=corpus, settings=settings, parity=parity,
                        base="-tok.json" if mode == TRAIN_ON or (
                            mode == SUPERBPE and draw(st.booleans())) else None,
                        encoding=draw(st.sampled_from(["utf-8", "latin-1"])),
                        threads=draw(st.sampled_from([None, 1, 2])))
    return TrainingSpec(**{**vars(spec), **wrong})


def _trains(spec: TrainingSpec):
    """The run of ``spec``, run (None: build_run refused it, with the engine's error)."""
    from bpe_gui.engine.errors import BPEError
    base = load_tokenizer("-tok.json") if spec.base == "-tok.json" else None
    try:
        run = build_run(spec, base=base)
        run.run()
    except BPEError:
        return None
    return run


def _validated(spec: TrainingSpec) -> bool:
    """Whether validated() accepts ``spec``; on a tokenizer, resolve() with it loaded (the
    spec names it only: what its size leaves room for is known once it is read)."""
    from bpe_gui.engine.errors import SettingsError
    try:
        spec.validated()
        if spec.base == "-tok.json":
            resolve(spec, load_tokenizer(spec.base))
    except SettingsError:
        return False
    return True


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=drawn_specs())
def test_validated_accepts_exactly_what_build_run_trains(awkward, spec, monkeypatch):
    """validated() passed specs build_run refused (threads="many") and refused none it
    trains; an accepted spec's command reads back into the spec its run trains."""
    monkeypatch.chdir(awkward)
    run = _trains(spec)
    assert _validated(spec) == (run is not None), spec
    if run is not None:
        argv = shlex.split(spec.command("-out dir"))[1:]
        assert spec_of(argv)[0] == run.spec, spec.command("-out dir")


@pytest.mark.slow
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=drawn_specs())
def test_the_command_run_by_a_shell_trains_the_specs_merges(awkward, spec, monkeypatch,
                                                           tmp_path_factory):
    """command() run through a real shell trains the spec's files with its settings: the
    merges of its run."""
    from hypothesis import assume
    monkeypatch.chdir(awkward)
    run = _trains(spec)
    assume(run is not None)
    out = tmp_path_factory.mktemp("out") / "-out 'é'"
    p = _shell_train(spec.command(str(out)), awkward)
    assert p.returncode == 0, (spec.command(str(out)), p.stderr)
    assert load_tokenizer(out / "tokenizer.bpe-gui.json").merges == run.tokenizer().merges
