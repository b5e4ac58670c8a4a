"""Every merge strategy of the C engine forced on every kind of tokenizer (issue 54).

The engine picks a strategy per word by its length, its bytes and the CPU (csrc/merge,
mt_route), so a test run on one machine walks only that machine's routes. Forcing a
strategy (``merge_strategy(NAME)``, as ``BPE_GUI_MERGE=NAME``) sends every word it can
take through it and every other word through ``reference``, on any CPU with its
instruction set; here each one runs over the conformance kinds (test_conformance.py:
trained, as of a step, GPT-2 files, tokenizer.json byte-level and Metaspace, .tiktoken,
a known encoding, SentencePiece, GGUF, tekken, CLIP) against each kind's own library,
on texts that reach every strategy (short and long words, whitespace runs, Han clauses,
characters of every plane, long words in a row).
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tiktoken")
pytest.importorskip("tokenizers")

from bpe_gui.engine.tokenizers import (merge_strategies, merge_strategy,  # noqa: E402
                                       set_merge_strategy)
from bpe_gui.engine.tokenizers.strategies import strategy_counts  # noqa: E402

from long_texts import ROW  # noqa: E402
from test_conformance import KINDS, TEXTS, build  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]

# Every strategy this file forces. A strategy added to csrc/merge/strategies.c and not
# here fails test_every_strategy_is_forced_here.
FORCED = ["reference", "small", "flat", "boundaries"]

if not merge_strategies():   # pragma: no cover - only without a C compiler at install time
    pytest.skip("the C extensions are not built: no merge strategies", allow_module_level=True)


def _texts() -> dict[str, str]:
    rnd = random.Random(54)
    letters = "abcdefghijklmnopqrstuvwxyz"
    han = "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年"
    planes = "aé中🙂Ж\u0301ßπ😀한"
    return {
        **TEXTS,
        # words of 33..1024 bytes (flat)
        "long-letters": " ".join("".join(rnd.choice(letters) for _ in range(rnd.randint(30, 300)))
                                 for _ in range(24)),
        "long-runs": "x" * 700 + " " + "ab" * 300 + " " + "aaab" * 90,
        # over 1024 symbols and over 32768 (the reference: no other strategy takes them)
        "very-long": "ab" * 1500 + " " + "q" * 33000,
        "row": ROW,
        # whitespace runs of every length
        "whitespace": "a" + "".join(rnd.choice([" ", "  ", "\n", "\t", "\r\n", " \n"]) * rnd.randint(1, 40)
                                    + rnd.choice(letters) for _ in range(40)),
        # Han clauses (boundaries by characters), characters of every plane (by windows)
        "han": "".join(rnd.choice(han) for _ in range(400)) + "，" +
               "".join(rnd.choice(han) for _ in range(60)),
        "planes": " ".join("".join(rnd.choice(planes) for _ in range(rnd.randint(2, 40)))
                           for _ in range(30)),
        "russian": "Привет мир, это проверка токенизатора на русском языке " * 3,
    }


TEXTS_ALL = _texts()


def test_every_strategy_is_forced_here():
    """The engine's table and this file's list are the same: no strategy goes untested."""
    assert [s.name for s in merge_strategies()] == FORCED


def test_the_table_says_what_each_strategy_relies_on():
    for s in merge_strategies():
        assert s.applies and s.invariant, s.name
        assert s.runs_here or s.needs, s.name   # only an instruction set keeps one out
    assert merge_strategies()[0].name == "reference" and merge_strategies()[0].runs_here


def test_forcing_an_unknown_strategy_says_which_exist():
    with pytest.raises(ValueError, match="no merge strategy named 'bogus'.*reference"):
        set_merge_strategy("bogus")


@pytest.mark.slow
@pytest.mark.parametrize("name", FORCED)
def test_forced_strategy_gives_each_librarys_ids(name, tmp_path):
    """Under the forced strategy every kind's ids equal its own library's, by encode and
    by encode_with_offsets, and the strategy merged some word (forcing really runs it)."""
    strategy = {s.name: s for s in merge_strategies()}[name]
    if not strategy.runs_here:
        pytest.skip(f"this CPU lacks {strategy.needs}, which the {name!r} strategy needs")
    before = strategy_counts()
    wrong = []
    for kind_name in KINDS:
        d = tmp_path / kind_name
        d.mkdir()
        with merge_strategy(name), pytest.MonkeyPatch.context() as mp:
            kind = build(kind_name, d, mp)
        for text_name, text in TEXTS_ALL.items():
            want = kind.oracle(text)
            if kind.tok.encode(text, allowed_special="all") != want:
                wrong.append((kind_name, text_name, "encode"))
            if text_name != "very-long" and \
                    kind.tok.encode_with_offsets(text, allowed_special="all").ids != want:
                wrong.append((kind_name, text_name, "encode_with_offsets"))
    assert wrong == []
    ran = strategy_counts()[name] - before.get(name, 0)
    assert ran > 0, f"forcing {name!r} merged no word by it: the texts miss its words"


def test_environment_variable_forces_a_strategy_for_the_process():
    """BPE_GUI_MERGE=reference: every word of a tokenizer made then merges by the
    reference; a name that is no strategy stops the import with the known names."""
    code = ("from bpe_gui.engine.tokenizers.strategies import strategy_counts\n"
            "from bpe_gui.engine.train.trainer import TrainSettings, Trainer\n"
            "t = Trainer.from_text('hello world ' * 50 + 'x' * 100, TrainSettings("
            "vocab_size=300, pattern='gpt2'))\n"
            "t.run()\n"
            "t.tokenizer().encode('hello world and a longer word ' + 'x' * 80, allowed_special='all')\n"
            "c = strategy_counts()\n"
            "print(c['reference'] > 0, sum(v for k, v in c.items() if k != 'reference'))\n")
    env = {**os.environ, "BPE_GUI_MERGE": "reference", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "0"]
    env["BPE_GUI_MERGE"] = "bogus"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode != 0
    assert "BPE_GUI_MERGE=bogus names no merge strategy" in out.stderr
    assert "reference" in out.stderr
