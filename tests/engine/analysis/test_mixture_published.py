"""Data-mixture inference on published merge lists (GPT-2, cl100k) against a slow,
independent program (tests/engine/mixture_reference.py): the engine's lazy rounds end
at the full program's optimum, and a limit that stops them first says so."""
from __future__ import annotations

import pytest

from bpe_gui.engine.analysis import infer_mixture
from bpe_gui.engine.formats import load_tokenizer

import mixture_reference as ref

pytest.importorskip("scipy")
pytest.importorskip("regex")


def case(name, tmp_path, merges, chars):
    path, ranks, pattern = ref.published(name, tmp_path)
    texts = {k: ref.sample(k, chars[k], skip=20_000) for k in ("en", "zh", "py")}
    rows, T, names = ref.program(texts, pattern, ref.merges_from_ranks(ranks, merges))
    return load_tokenizer(path), texts, rows, T, names


def assert_optimal(tok, texts, rows, T, names, merges):
    r = infer_mixture(tok, texts, merges=merges)
    assert r.converged and r.violation == 0.0
    assert not [w for w in r.warnings if w.kind == "not_converged"]
    want, optimum = ref.solve(rows, T, len(names))
    # the engine's shares are an optimum of the full program (it may have several) ...
    _, at_engine = ref.solve(rows, T, len(names), [r.proportions[n] for n in names])
    assert at_engine == pytest.approx(optimum, rel=1e-5, abs=1e-6)
    assert r.objective == pytest.approx(optimum, rel=1e-5, abs=1e-6)
    # ... and here the same one
    assert [r.proportions[n] for n in names] == pytest.approx(want, abs=2e-3)
    return r


# cl100k's first merges are runs of spaces and code, which beat far more pairs in every
# sample than GPT-2's: fewer merges and smaller samples keep its full program small
@pytest.mark.parametrize("name,merges,chars", [
    ("gpt2", 80, {"en": 15_000, "zh": 5_000, "py": 15_000}),
    ("cl100k_base", 50, {"en": 15_000, "zh": 6_000, "py": 15_000})])
def test_the_first_merges_reach_the_full_programs_optimum(tmp_path, name, merges, chars):
    tok, texts, rows, T, names = case(name, tmp_path, merges, chars)
    assert_optimal(tok, texts, rows, T, names, merges)


# more merges take the engine several rounds of constraints (cl100k's first 50: one; its
# first 200 on these samples: four); cl100k's full program is the slow oracle's cost (300
# merges on 60,000-character samples: a million rows, 90 s a solve)
@pytest.mark.slow
@pytest.mark.parametrize("name,merges,chars", [
    ("gpt2", 600, {"en": 100_000, "zh": 30_000, "py": 100_000}),
    ("cl100k_base", 200, {"en": 40_000, "zh": 15_000, "py": 40_000})])
def test_more_merges_reach_the_full_programs_optimum(tmp_path, name, merges, chars):
    tok, texts, rows, T, names = case(name, tmp_path, merges, chars)
    assert_optimal(tok, texts, rows, T, names, merges)


def test_a_round_limit_says_it_did_not_converge(tmp_path):
    """One round is far from the optimum here: the result says so, with the largest
    violation, and the shares it gives are indeed worse than the full program's."""
    chars = {"en": 15_000, "zh": 5_000, "py": 15_000}
    tok, texts, rows, T, names = case("gpt2", tmp_path, 80, chars)
    r = infer_mixture(tok, texts, merges=80, max_rounds=1)
    assert r.rounds == 1 and not r.converged and r.violation > 0
    said = [w.message for w in r.warnings if w.kind == "not_converged"]
    assert len(said) == 1 and "Not converged" in said[0] and "1 rounds" in said[0]
    assert f"{r.violation:,.1f} per million bytes" in said[0]
    _, optimum = ref.solve(rows, T, len(names))
    _, at_capped = ref.solve(rows, T, len(names), [r.proportions[n] for n in names])
    assert at_capped > optimum * (1 + 1e-4)
