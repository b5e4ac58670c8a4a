"""SuperBPE's stage-2 pieces counted by the native streaming pipeline (scanner kind
"superbpe2", csrc/scan_stage2.inc): the pieces are the reference's split regex in
"isolated" behaviour, line by line (continue_oracle.py's slow Python version is the
oracle), and a count table made natively is the one the `regex` path makes."""
from __future__ import annotations

import functools
import lzma
from array import array
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe_gui.engine.train import _core
from bpe_gui.engine.train import _pycore
from bpe_gui.engine.corpus.blocks import BLOCK_BYTES, BlockReader
from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.corpus.table_file import read_table, write_table
from bpe_gui.engine.tokenizers.merge_model import word_cache
from bpe_gui.engine.text.presets import PRESET_IDS
from bpe_gui.engine.text.scanner import _scan
from bpe_gui.engine.train.superbpe import TRAIN_PATTERN, stage2_pretokenizer
from bpe_gui.engine.corpus.table import PretokenTable
from bpe_gui.engine.tokenizers.trained import Tokenizer
from bpe_gui.engine.train.inherited import WHOLE_WORD, segment_words
from bpe_gui.engine.train.trainer import TrainSettings, Trainer
from bpe_gui.engine.corpus.word_limit import MAX_WORD_BYTES, split_long_words

from continue_oracle import SUPERBPE_SPLIT, isolated_split, sample_text, superbpe_words
from scan_oracle import MARKS, NUMBERS, OTHERS, SPACES, corpus_prefix

pytestmark = pytest.mark.skipif(_scan is None, reason="the _scan extension was not built")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "corpora"
EOT = "<|endoftext|>"
KIND = PRESET_IDS["superbpe2"]

# what the split regex tells apart: numbers, runs of "other" characters (with a space
# before, CR, LF and / after), runs of spaces before whitespace, and letters of every
# script between them
piece = st.one_of(
    st.sampled_from(["a", "Word", " the", "\u4e2d\u6587", "\u3042", "\u0627\u0644", "e\u0301",
                     "\u00df", "x", "I"]),
    st.sampled_from(SPACES + [" ", " ", "   ", "\n", " \n", "\r\n"]),
    st.sampled_from(NUMBERS + ["7", "2024", "12345"]),
    st.sampled_from(OTHERS + [":", ": ", "...", "--", " --", "!!\r\n", "./", "/\n", "\u3002"]),
    st.sampled_from(MARKS),
    st.text(alphabet="ab 1.:/-\n\r\t\u4e2d\u0301", min_size=1, max_size=8),
    st.characters(blacklist_categories=("Cs",)),
)
stage2_texts = st.lists(piece, max_size=40).map("".join)
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def oracle_lines(text: str) -> list[str]:
    """The reference's pieces in order: each line (its \\n kept) split in isolation."""
    return [p for line in regex.findall(r"[^\n]*\n|[^\n]+", text)
            for p in isolated_split(line, SUPERBPE_SPLIT)]


def test_stage2_pretokenizer_runs_natively():
    pre = stage2_pretokenizer([EOT])
    assert pre.kind == "superbpe2" and pre.native is not None
    reader = BlockReader([], pre, texts=["a b"])
    assert reader.bounds.native == KIND and reader.bounds.block_bytes == BLOCK_BYTES


@pytest.mark.slow
@FAST
@given(text=stage2_texts)
def test_pieces_are_the_isolated_split_line_by_line(text):
    assert _scan.words(KIND, text) == oracle_lines(text)
    ends = _scan.word_ends(KIND, text)
    assert list(ends) == [sum(map(len, oracle_lines(text)[:i + 1]))
                          for i in range(len(ends))]


@pytest.mark.slow
@FAST
@given(text=stage2_texts, cut=st.data())
def test_safe_cuts_of_stage2_text(text, cut):
    """Wherever the scanner says a stage-2 text may be cut, the oracle agrees, whatever
    follows the character at the cut."""
    if len(text) < 2:
        return
    p = _scan.safe_cut(KIND, text, 0, len(text) - 1)
    if p == -1:
        return
    tail = cut.draw(stage2_texts, label="tail")
    for x in (text, text[:p + 1] + tail):
        assert oracle_lines(x) == oracle_lines(x[:p]) + oracle_lines(x[p:]), (x, p)


def _regex_table(paths=(), texts=(), specials=(EOT,)):
    """The same count through the `regex` path (what stage 2 used before the scanner)."""
    pre = stage2_pretokenizer(specials)
    pre.native = None
    return count_corpus(paths, pre, texts=list(texts))


def _same_tables(a, b) -> None:
    assert a.blob == b.blob and list(a.starts) == list(b.starts)
    assert list(a.counts) == list(b.counts)
    assert (a.n_chars, a.n_bytes) == (b.n_chars, b.n_bytes)
    assert a.meta.pattern == b.meta.pattern == TRAIN_PATTERN


@pytest.mark.slow
@FAST
@given(texts=st.lists(stage2_texts, min_size=1, max_size=4))
def test_counts_equal_the_oracle_and_the_regex_path(texts):
    texts = [t + EOT + t[::-1] for t in texts if t.strip()] or ["x"]
    table = count_corpus(texts=texts, pre=stage2_pretokenizer([EOT]))
    want: dict[str, int] = {}
    for t in texts:
        for w, c in superbpe_words(t, [EOT]).items():
            want[w] = want.get(w, 0) + c
    assert dict(zip(table.words, table.counts)) == want
    _same_tables(table, _regex_table(texts=texts))


def _corpus_files(tmp_path: Path, corpora: list[Path], chars: int) -> list[Path]:
    out = []
    for src in corpora:
        dst = tmp_path / (src.name.split(".")[0] + ".txt")
        text = corpus_prefix(src, chars) if src.suffix == ".xz" else src.read_text("utf-8")
        dst.write_text(text, encoding="utf-8")
        out.append(dst)
    return out


def test_fixture_corpora_count_as_before(tmp_path):
    """Every fixture corpus, counted natively (one thread and several), gives the table
    the `regex` path gives, and the oracle's counts; the table file round-trips."""
    files = _corpus_files(tmp_path, sorted(FIXTURES.iterdir()), 10 ** 7)
    for f in files:
        text = f.read_text(encoding="utf-8")
        native = count_corpus([f], stage2_pretokenizer([EOT]), workers=1)
        assert dict(zip(native.words, native.counts)) == dict(superbpe_words(text, [EOT]))
        _same_tables(native, _regex_table([f]))
    both = count_corpus(files, stage2_pretokenizer(), workers=3)
    _same_tables(both, _regex_table(files, specials=()))
    back = read_table(write_table(both, tmp_path / "s2.tsv.gz"))
    _same_tables(back, both)


def test_shared_corpora_stream_in_blocks_as_before(corpora_dir, tmp_path):
    """Megabytes of real text (English, Chinese, code, markdown): several blocks each,
    cut at the scanner's safe cuts, counted on threads: the `regex` path's table."""
    names = ["en-gutenberg-20mb.txt.xz", "zh-four-classic-novels.txt.xz",
             "code-python-stdlib.py.txt.xz", "zh-en-d2l-zh-markdown.txt.xz"]
    files = _corpus_files(tmp_path, [corpora_dir / n for n in names], 5_000_000)
    pre = stage2_pretokenizer()
    reader = BlockReader(files, pre)
    assert sum(1 for _ in reader) >= 2 * len(files)   # streamed: blocks per file
    native = count_corpus(files, pre, workers=2)
    _same_tables(native, _regex_table(files, specials=()))


@pytest.mark.parametrize("line", ["lorem ipsum, dolor sit amet " * 200_000,
                                  "a" * (9 << 20) + " b"], ids=["words", "letters"])
def test_a_long_line_without_cuts_is_carried_whole(tmp_path, line):
    """A 5.6 MB line of letters, spaces and single commas has no safe cut (it is one
    stage-2 piece): the reader carries it into the next block, and the table is the
    oracle's with that piece cut at word_limit's 64 KiB. (The `regex` path ran out of
    memory on it: MemoryError from its findall.) A 9 MB run of one letter is cut by the
    reader's giant_cut, which holds for stage 2 too."""
    text = "head 1..2\n" + line + "\ntail 3\n"
    f = tmp_path / "long.txt"
    f.write_text(text, encoding="utf-8")
    native = count_corpus([f], stage2_pretokenizer(), workers=2)
    want = split_long_words(PretokenTable.from_counter(superbpe_words(text), len(text),
                                                       len(text)))
    assert native.blob == want.blob and list(native.starts) == list(want.starts)
    assert list(native.counts) == list(want.counts)
    assert max(len(w) for w in native.words) == MAX_WORD_BYTES


def test_xz_corpus_file(tmp_path, corpora_dir):
    f = tmp_path / "en.txt.xz"
    with lzma.open(f, "wt", encoding="utf-8") as out:
        out.write(corpus_prefix(corpora_dir / "en-tinyshakespeare.txt.xz", 200_000))
    _same_tables(count_corpus([f], stage2_pretokenizer()), _regex_table([f], specials=()))


@pytest.mark.parametrize("which", ["c", "python"])
def test_core_segmentation_is_every_word_now(which):
    """Core.segmentation() (what a stage-2 rebuild reads) == word(w) for every word,
    after merges and undos, in the C core and in its Python stand-in."""
    cls = _core.Core if which == "c" else _pycore.Core
    words = [b"abab", b"", b"ab ab ab", b"b", b"aaab", b"ab"]
    symbols, starts = array("i"), array("q", [0])
    for w in words:
        symbols.extend(w)
        starts.append(len(symbols))
    core = cls(symbols, starts, array("q", [3, 1, 2, 5, 1, 4]),
               [bytes([i]) for i in range(256)], 0)
    for act in ("none", "run", "undo", "run"):
        if act == "run":
            core.run(2, 1)
        elif act == "undo":
            core.undo()
        raw_symbols, raw_starts = core.segmentation()
        got_symbols, got_starts = array("i"), array("q")
        got_symbols.frombytes(raw_symbols)
        got_starts.frombytes(raw_starts)
        assert [list(got_symbols[got_starts[w]:got_starts[w + 1]])
                for w in range(len(words))] == [core.word(w) for w in range(len(words))]
        assert len(got_starts) == len(words) + 1


# ----- segmenting the pieces with the stage-1 merges (train_on.segment_words) ----------

def _stage1(pattern: str, text: str, n: int):
    t = Trainer.from_text(text, TrainSettings(num_merges=n, pattern=pattern))
    t.run(detail=False)
    return t.tokenizer()


STAGE1_TEXT = (sample_text(3, 400) + " a  b   c\n\n\t x: y -- z/ 12345 \u4e2d\u6587\u4e2d "
               "e\u0301e\u0301 !!\r\n") * 2
STAGE1 = {"gpt2": _stage1("gpt2", STAGE1_TEXT, 300),
          # merges across spaces and punctuation too: segments are cut at fewer places
          "lines": _stage1(r"[^\n]+\n?|\n", STAGE1_TEXT, 300)}


@functools.cache
def _whole_word_tokenizer(which: str) -> Tokenizer:
    tok = STAGE1[which]
    return Tokenizer(tok.vocab, list(tok.merges), [], pattern=WHOLE_WORD)


def _whole_word(which: str) -> Tokenizer:
    """The stage-1 tokenizer merging each piece whole, built once (building it was a
    third of the test's time), its caches emptied: each piece merged afresh."""
    whole = _whole_word_tokenizer(which)
    whole.pipeline.reset()
    return whole


@pytest.mark.slow
@pytest.mark.parametrize("which", sorted(STAGE1))
@FAST
@given(texts=st.lists(stage2_texts, min_size=1, max_size=3))
def test_segmenting_in_c_is_merging_each_piece_whole(which, texts):
    """Each piece cut where no merge joins two bytes, merged in C through a cache: the
    ids of merging the whole piece (the tokenizer's own encode, one piece at a time)."""
    tok = STAGE1[which]
    table = count_corpus(texts=[t for t in texts if t] or ["x"], pre=stage2_pretokenizer())
    symbols, starts, freqs, _ = segment_words(tok, table)
    whole = _whole_word(which)
    assert [list(symbols[starts[i]:starts[i + 1]]) for i in range(len(table))] == \
        [whole.encode(w, allowed_special="all") for w in table.words]
    assert list(freqs) == list(table.counts)


def test_encode_pieces_refuses_bad_buffers():
    """Wrong sizes and starts past the blob are errors, never a read out of bounds."""
    model = STAGE1["gpt2"].model
    cache = word_cache(16)
    joins = model.joins()
    ok = array("q", [0, 2, 5])
    ids, ends = model.encode_pieces(b"ab cd", ok, joins, cache)
    assert len(ends) == 24 and len(ids) == 4 * array("q", ends)[-1]
    for blob, starts, j in [(b"ab cd", ok, joins[:-1]), (b"ab", ok, joins),
                            (b"ab cd", array("q", [0, 3, 2]), joins),
                            (b"ab cd", array("q", [-1, 2]), joins), (b"ab cd", b"123", joins)]:
        with pytest.raises(ValueError, match="encode_pieces"):
            model.encode_pieces(blob, starts, j, cache)
