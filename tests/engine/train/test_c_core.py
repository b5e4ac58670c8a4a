"""The training core runs without Python.

tests/c/core_driver.c is built here with the system C compiler from the sources of
bpe_gui/engine/csrc/core/ alone (no Python headers on the include path, so the core
cannot lean on them), with AddressSanitizer and UBSan where the compiler links them. It
trains small corpora and prints its merges, which must be the slow reference's
(engine_oracle) and train_bpe's. The driver also checks the core's structures after
every step, undoes every step and redoes them (tests/c/core_exercise.h). The libFuzzer
target tests/c/core_fuzz.c is built with a plain main() and run on a few random inputs,
so it keeps compiling; CONTRIBUTING.md says how to fuzz with it.
"""
from __future__ import annotations

import os
import random
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from bpe_gui.engine import train_bpe

from engine_oracle import Oracle, make_oracle

ROOT = Path(__file__).resolve().parents[3]
CSRC = ROOT / "bpe_gui" / "engine" / "csrc"
CORE_SOURCES = sorted(str(p) for p in (CSRC / "core").glob("*.c"))
TESTS_C = ROOT / "tests" / "c"
RULES = {"greatest": 0, "first-seen": 1, "lowest-ids": 2}
SPEC_TEXT = "low low lower newest newest widest widest widest"
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]


def _compiler() -> list[str] | None:
    if os.environ.get("CC"):
        return shlex.split(os.environ["CC"])
    found = next((shutil.which(c) for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    return [found] if found else None


def _build(tmp: Path, name: str, source: Path, *defines: str) -> Path:
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang; or $CC) to build the core's C test")
    out = tmp / name
    base = [*cc, "-std=c99", "-O1", "-g", "-Wall", *defines, "-I", str(CSRC), str(source),
            *CORE_SOURCES, "-o", str(out)]
    # with the sanitizers where this compiler links them (and a program built with them
    # runs: some sandboxes refuse ASan's memory layout); plain otherwise
    for flags in (SANITIZE, []):
        done = subprocess.run(base[:1] + flags + base[1:], capture_output=True, text=True)
        if done.returncode == 0 and (not flags or _runs(out)):
            return out
    pytest.fail(f"the core does not compile as plain C:\n{done.stderr}")


def _runs(exe: Path) -> bool:
    done = subprocess.run([str(exe)], input="0 1\n1 61\n0\n", capture_output=True, text=True)
    return done.returncode == 0


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("c_core"), "core_driver", TESTS_C / "core_driver.c")


def driver_input(o: Oracle, tie: int, steps: int) -> str:
    """The driver's input for the oracle's starting state (see core_driver.c)."""
    lines = [f"{tie} {steps}", str(len(o.tokens))]
    lines += [t.hex() or "-" for t in o.tokens]
    lines.append(str(len(o.words)))
    lines += [" ".join(map(str, [f, len(w), *w])) for w, f in zip(o.words, o.freqs)]
    return "\n".join(lines) + "\n"


def run_driver(driver: Path, o: Oracle, rule: str, steps: int) -> list[tuple[int, ...]]:
    """(a, b, new_id, count, n_tied) of each step the C core made."""
    done = subprocess.run([str(driver)], input=driver_input(o, RULES[rule], steps),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "ok"
    return [tuple(int(x) for x in ln.split()[1:]) for ln in lines[:-1]]


def check_against_oracle(driver: Path, o: Oracle, rule: str, steps: int) -> list[tuple[int, ...]]:
    got = run_driver(driver, o, rule, steps)
    tokens = list(o.tokens)
    o.train(num_merges=steps)
    # the oracle stops where GREATEST meets two tokens of equal bytes (no rule breaks
    # that tie); up to there every step must agree
    if not o.ambiguous:
        assert len(got) == len(o.merges)
    want = [(a, b, len(tokens) + i, count, n)
            for i, ((a, b, count), n) in enumerate(zip(o.merges, o.n_tied))]
    assert got[:len(want)] == want
    return got


@pytest.mark.parametrize("rule", list(RULES))
def test_spec_example_in_byte_mode_trains_the_reference_merges(driver: Path, rule: str):
    o = make_oracle(SPEC_TEXT, mode="byte", rule=rule)
    assert o is not None
    got = check_against_oracle(driver, o, rule, steps=100)
    assert len(got) > 10, "the corpus must give merges for the comparison to mean anything"


def test_spec_example_gives_train_bpe_merges(driver: Path, tmp_path: Path):
    """The same merges as the engine's own train_bpe (GPT-2 pattern, byte level)."""
    o = make_oracle(SPEC_TEXT, mode="byte", rule="greatest")
    tokens = list(o.tokens)
    got = run_driver(driver, o, "greatest", steps=100)
    for a, b, new, _count, _n in got:
        assert new == len(tokens)
        tokens.append(tokens[a] + tokens[b])
    corpus = tmp_path / "spec.txt"
    corpus.write_text(SPEC_TEXT, encoding="utf-8")
    _vocab, merges = train_bpe(corpus, vocab_size=256 + len(got))
    assert merges == [(tokens[a], tokens[b]) for a, b, *_ in got]


def random_corpus(seed: int) -> str:
    rng = random.Random(seed)
    pieces = ["a", "b", "ab", "ba", "aab", "c", "你", "好", "é", "😀", "st", "lo", "w"]
    words = ["".join(rng.choices(pieces, k=rng.randint(1, 6))) for _ in range(40)]
    return " ".join(rng.choices(words, k=rng.randint(50, 300)))


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("mode", ["byte", "char"])
@pytest.mark.parametrize("seed", range(4))
def test_random_corpora_train_the_reference_merges(driver: Path, rule: str, mode: str,
                                                   seed: int):
    o = make_oracle(random_corpus(seed), mode=mode, rule=rule)
    assert o is not None
    check_against_oracle(driver, o, rule, steps=60)


def test_fuzz_target_builds_and_runs(tmp_path: Path):
    exe = _build(tmp_path, "core_fuzz", TESTS_C / "core_fuzz.c", "-DBPE_FUZZ_MAIN")
    rng = random.Random(7)
    inputs = []
    for i in range(12):
        data = bytes([i * 21 % 256]) + bytes(rng.choice(b"aab ba  cd\xe4\xbd") for _ in range(400))
        inputs.append(tmp_path / f"in{i}")
        inputs[-1].write_bytes(data)
    done = subprocess.run([str(exe), *map(str, inputs)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
