"""Parity's ratio mode on real corpora of unequal sizes and scripts, against Hugging Face
tokenizers' ``ParityBpeTrainer``: English prose, Chinese novels, Chinese/English
Markdown, Python source, Markus Kuhn's many-script demo and Hindi, from 2 KB to a few
hundred KB (the fixtures' excerpts, or the full corpora with BPE_GUI_CORPORA_DIR); several
ratio vectors, one text per line and whole files, both variants.

HF's rule is ours (``parity_trainer.rs``: ``adjusted = (initial_len / len) / ratio``,
lengths in the pre-tokenizer's units, the training words' bytes; the lowest served, the
first language on a tie; each language's length lowered by what the merge removed from
its training words). Where a run seemed to part from HF, it was given other texts: a
file's lines without their newline (``str.splitlines()``) are not the lines HF's file
reader, Python's ``open(f)`` and ``--lines`` give (each keeps its ``\\n``)."""
from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from bpe_gui.engine.train import ParityData, ParitySettings, ParityTrainer, hf_lines

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

SCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "scripts"

# (language, file in the corpora folder, characters read): sizes 2 KB .. ~300 KB
CORPORA = (("en", "en-tinyshakespeare.txt.xz", 120_000),
           ("zh", "zh-four-classic-novels.txt.xz", 60_000),
           ("mixed", "zh-en-d2l-zh-markdown.txt.xz", 50_000),
           ("code", "code-python-stdlib.py.txt.xz", 40_000),
           ("multi", "multi-utf8-demo.txt", 14_058),
           ("hi", None, 0))
RATIO_VECTORS = {"equal": (1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
                 "by-script": (1.0, 0.9, 1.3, 0.7, 2.0, 2.6),
                 "far": (3.0, 0.5, 1.0, 1.0, 0.8, 1.7)}


def read(path: Path, chars: int) -> str:
    """The first ``chars`` characters of a corpus (xz or not), cut at a line end."""
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as f:   # type: ignore[operator]
        text = f.read(chars)
    cut = text.rfind("\n") + 1
    return text[:cut] if cut else text


@pytest.fixture(scope="module")
def corpus_files(corpora_dir, tmp_path_factory) -> list[tuple[str, Path]]:
    """Each corpus cut to its size, written as a file (what the command line reads)."""
    out = tmp_path_factory.mktemp("parity-corpora")
    files = []
    for name, file, chars in CORPORA:
        text = read(SCRIPTS / "hi.txt", 10**6) if file is None else \
            read(corpora_dir / file, chars)
        p = out / f"{name}.txt"
        p.write_text(text, encoding="utf-8", newline="\n")
        files.append((name, p))
    sizes = [p.stat().st_size for _, p in files]
    assert max(sizes) > 50 * min(sizes)   # unequal sizes: what the ratio mode weighs
    return files


def hf_merges(texts: list[list[str]], ratio: list[float], **kw) -> list[str]:
    """HF's merges ("a b", GPT-2 byte-level spelling) for these per-language texts."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.ParityBpeTrainer(show_progress=False, **kw)
    trainer.train_from_iterator(tok, [iter(t) for t in texts], ratio=ratio)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [" ".join(m) if isinstance(m, list) else m for m in merges]


def texts_of(files, lines: bool) -> list[list[str]]:
    """What HF is fed: each file's lines as its file reader gives them (each with its
    newline), or the whole file as one text."""
    out = []
    for _, p in files:
        text = p.read_text(encoding="utf-8")
        out.append(hf_lines(text) if lines else [text])
    return out


def first_difference(a: list[str], b: list[str]) -> str | None:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"merge {i + 1}: HF {x!r}, ours {y!r}"
    return None if len(a) == len(b) else f"{len(a)} merges against {len(b)}"


def check(files, ratios, lines: bool, **kw) -> ParityTrainer:
    expected = hf_merges(texts_of(files, lines), list(ratios), **kw)
    t = ParityTrainer.from_files(files, None, ParitySettings(**kw, ratios=ratios),
                                 lines=lines)
    t.run()
    assert first_difference(expected, t.hf_merges()) is None
    return t


@pytest.mark.parametrize("lines", [True, False], ids=["lines", "whole-files"])
@pytest.mark.parametrize("ratios", ["by-script", "far"])
def test_ratio_mode_on_six_real_corpora_equals_hf(corpus_files, ratios, lines):
    """Six corpora of different sizes and scripts, 1,500 merges: every merge is HF's,
    and the turns went to more than one language."""
    t = check(corpus_files, RATIO_VECTORS[ratios], lines, num_merges=1500)
    assert len({st.language for st in t.steps}) > 1


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["base", "window"])
@pytest.mark.parametrize("lines", [True, False], ids=["lines", "whole-files"])
@pytest.mark.parametrize("ratios", sorted(RATIO_VECTORS))
def test_ratio_mode_on_real_corpora_every_vector_and_variant(corpus_files, ratios, lines,
                                                            variant):
    """Every ratio vector, both variants (the window's share a tight one), 3,000 merges;
    and each four-corpus subset of the first ratio vector's languages."""
    kw = dict(num_merges=3000, variant=variant, window_size=40, alpha=1.3)
    check(corpus_files, RATIO_VECTORS[ratios], lines, **kw)
    for drop in range(0, 6, 2):
        keep = [i for i in range(6) if i not in (drop, drop + 1)]
        check([corpus_files[i] for i in keep],
              tuple(RATIO_VECTORS[ratios][i] for i in keep), lines, **kw)


def test_lines_without_their_newline_are_other_texts_not_another_rule(tmp_path, corpora_dir):
    """Issue 79's case (700 lines of English, Chinese, Hindi; ratios 1.0, 0.9, 2.6) parted
    from HF at merge 29 only because HF was fed ``splitlines()`` (no newline): fed the
    lines its file reader gives, HF equals ``--lines``; fed lines without newlines, HF
    equals ours fed the same."""
    files = []
    for name, path in (("english", corpora_dir / "en-tinyshakespeare.txt.xz"),
                       ("chinese", corpora_dir / "zh-four-classic-novels.txt.xz"),
                       ("hindi", SCRIPTS / "hi.txt")):
        opener = lzma.open if path.suffix == ".xz" else open
        with opener(path, "rt", encoding="utf-8", newline="\n") as f:   # type: ignore[operator]
            head = [line for _, line in zip(range(700), f)]
        p = tmp_path / f"{name}.txt"
        p.write_text("".join(head), encoding="utf-8", newline="\n")
        files.append((name, p))
    for ratios in ((1.0, 0.9, 2.6), (1.0, 1.0, 1.0), (2.6, 1.0, 1.0)):
        with_newlines = check(files, ratios, True, num_merges=400).hf_merges()
        bare = [p.read_text(encoding="utf-8").splitlines() for _, p in files]
        t = ParityTrainer(ParityData.from_texts([(n, b) for (n, _), b in zip(files, bare)]),
                          ParitySettings(num_merges=400, ratios=ratios))
        t.run()
        assert first_difference(hf_merges(bare, list(ratios), num_merges=400),
                                t.hf_merges()) is None
        if ratios == (1.0, 0.9, 2.6):
            assert t.hf_merges() != with_newlines   # other texts, other merges
