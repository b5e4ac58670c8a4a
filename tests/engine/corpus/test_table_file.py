"""Word-count tables (counts.py, csrc/tsv.c): lossless round trips for any word, rows
that other tools read as two columns, malformed tables named by line, summing in order,
and training from a table equal to training from the corpus for every tie rule."""
from __future__ import annotations

import gzip
import pickle
from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from bpe_gui.engine.corpus import table_file as counts_mod
from bpe_gui.engine.corpus.counting import PretokenTable, count_corpus
from bpe_gui.engine.corpus.table_sums import read_tables
from bpe_gui.engine.corpus.table_file import HEADER, MAGIC, is_count_table, read_table, write_table
from bpe_gui.engine.corpus.table import CountMeta
from bpe_gui.engine.errors import FormatError, NotUTF8Error, SettingsError
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.train import train_bpe
from bpe_gui.engine.train.trainer import TIE_RULES, Trainer, TrainSettings

pytest.importorskip("bpe_gui.engine.corpus._count")

# every character but lone surrogates (UTF-8 cannot hold them)
any_word = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
META = CountMeta.for_counting(Pretokenizer("gpt2", ["<|endoftext|>"]),
                              [{"path": "x.txt", "bytes": 5}])


def reference_row(count: int, word: str) -> bytes:
    """The documented escapes, written the obvious way (the oracle for the C writer)."""
    esc = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\\0"}
    return f"{count}\t{''.join(esc.get(c, c) for c in word)}\n".encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(words=st.lists(any_word, min_size=1, max_size=40, unique=True),
       data=st.data())
def test_any_words_round_trip(tmp_path_factory, words, data):
    freqs = data.draw(st.lists(st.integers(1, 2**63 - 1), min_size=len(words),
                               max_size=len(words)))
    symbols = sum(len(w.encode("utf-8")) + 1 for w in words)
    if data.draw(st.booleans()):   # mostly a table the trainer can hold (below)
        freqs = [min(f, (2**63 - 1) // symbols) for f in freqs]
    table = PretokenTable.from_words(words, freqs, n_chars=7, n_bytes=9)
    path = tmp_path_factory.mktemp("t") / "w.counts.tsv"
    write_table(table, path, META)
    raw = path.read_bytes()
    body = raw.split(b"\n", 2)[2]
    assert body == b"".join(reference_row(f, w) for w, f in zip(words, freqs))
    # other tools see exactly two tab-separated columns per row
    assert all(len(r.split(b"\t")) == 2 for r in body.split(b"\n")[:-1])
    if sum(f * (len(w.encode("utf-8")) + 1) for w, f in zip(words, freqs)) > 2**63 - 1:
        # pair counts could pass the trainer's 64 bits: refused (issue 23), never wrapped
        with pytest.raises(FormatError, match=r"2\*\*63 - 1"):
            read_table(path)
        return
    back = read_table(path)
    assert back.words == words and back.freqs == freqs
    assert (back.n_chars, back.n_bytes) == (7, 9)
    assert back.meta == replace(META, words=len(words), total=sum(freqs), chars=7, bytes=9)


@settings(max_examples=50, deadline=None)
@given(words=st.lists(any_word, min_size=1, max_size=30, unique=True))
def test_round_trip_in_tiny_read_chunks_and_gzip(tmp_path_factory, words):
    table = PretokenTable.from_words(words, list(range(1, len(words) + 1)))
    path = tmp_path_factory.mktemp("t") / "w.counts.tsv.gz"
    write_table(table, path, META)
    assert gzip.open(path).read().startswith(MAGIC)
    assert is_count_table(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(counts_mod, "READ_BYTES", 5)
        back = read_table(path)
    assert back.words == words and back.freqs == table.freqs


def good_table(tmp_path, rows: bytes, meta: CountMeta | None = META, words=None, total=None):
    """A table file with these raw rows (and metadata that matches them unless told)."""
    n = rows.count(b"\n") if words is None else words
    tot = sum(int(r.split(b"\t")[0]) for r in rows.split(b"\n") if r[:1].isdigit()) \
        if total is None else total
    head = b""
    if meta is not None:
        m = replace(meta, words=n, total=tot)
        head = MAGIC + b"\t1\t" + m.to_json().encode() + b"\n"
    p = tmp_path / "bad.counts.tsv"
    p.write_bytes(head + HEADER + b"\n" + rows)
    return p


@pytest.mark.parametrize("rows, line, needle", [
    (b"3\ta\nx\tb\n", 4, "does not start with a count"),
    (b"3\ta\n7b\n", 4, "not followed by a tab"),
    (b"3\ta\n2\tb\tc\n", 4, "more than one tab"),
    (b"3\ta\n2\tb\\q\n", 4, "unknown escape"),
    (b"2\tb\\\n", 3, "lone backslash"),
    (b"3\ta\n2\t\n", 4, "word is empty"),
    (b"0\ta\n", 3, "count is 0"),
    (b"3\ta\r\n", 3, "carriage return"),
    (b"3\ta\n5\t\xff\xfe\n", 4, "not valid UTF-8"),
    (b"3\ta\n\n4\tb\n", 4, "does not start with a count"),
    (b"99999999999999999999\ta\n", 3, "too large"),
])
def test_malformed_rows_name_the_line(tmp_path, rows, line, needle):
    p = good_table(tmp_path, rows, words=1, total=1)
    with pytest.raises(FormatError) as e:
        read_table(p)
    assert e.value.line == line and needle in str(e.value) and f"line {line}" in str(e.value)


def test_malformed_row_line_numbers_across_read_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(counts_mod, "READ_BYTES", 16)
    rows = b"".join(b"%d\tword%d\n" % (i + 1, i) for i in range(200)) + b"5\tx\\y\n"
    with pytest.raises(FormatError) as e:
        read_table(good_table(tmp_path, rows))
    assert e.value.line == 2 + 200 + 1


def test_truncated_or_edited_tables_are_refused(tmp_path):
    rows = b"3\ta\n2\tb\n"
    with pytest.raises(FormatError, match="cut short"):
        read_table(good_table(tmp_path, rows, words=3))
    with pytest.raises(FormatError, match="add up to 5 but line 1 says 6"):
        read_table(good_table(tmp_path, rows, total=6))


@pytest.mark.parametrize("first, line, needle", [
    (MAGIC + b"\t1\t{not json\n", 1, "not valid JSON"),
    (MAGIC + b"\t2\t{}\n", 1, "version"),
    (MAGIC + b"\t1\t{\"version\": 1}\n", 1, "'pattern'"),
    (MAGIC + b"\t1\t{\"version\": 1, \"pattern\": \"x\", \"special_tokens\": \"<s>\"}\n",
     1, "'special_tokens'"),
    (b"word\tcount\n", 1, "count<tab>word"),
    (MAGIC + b"\t1\t{\"version\": 1, \"pattern\": \"x\"}\nword\tcount\n", 2, "line 2 must be"),
])
def test_malformed_headers_name_the_line(tmp_path, first, line, needle):
    p = tmp_path / "h.counts.tsv"
    p.write_bytes(first + (b"" if b"word\tcount" in first else HEADER + b"\n") + b"1\ta\n")
    with pytest.raises(FormatError) as e:
        read_table(p)
    assert e.value.line == line and needle in str(e.value)


def test_table_without_metadata_reads_and_trains_with_given_settings(tmp_path):
    p = good_table(tmp_path, b"5\t low\n2\t lower\n3\t newest\n", meta=None)
    t = read_table(p)
    assert t.meta is None and t.words == [" low", " lower", " newest"]
    tr = Trainer.from_counts(p, TrainSettings(num_merges=3, pattern="whitespace"))
    assert len(tr.run()) == 3
    # another tool's table may list a word twice: it counts once, with the sum, where it
    # first appears
    p = good_table(tmp_path, b"5\t low\n2\t lower\n3\t low\n", meta=None)
    t = read_table(p)
    assert t.words == [" low", " lower"] and t.freqs == [8, 2]


# ----- summing, and refusing what does not fit -------------------------------------------

TEXT_A = "low low lower newest newest widest widest widest <s> the cat"
TEXT_B = "the dog\tate 你好 newest lowest\n\nthe end<s>x"


def counted(tmp_path, name, text, pattern="gpt2", specials=("<s>",)):
    src = tmp_path / f"{name}.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / f"{name}.counts.tsv"
    table = count_corpus(src, Pretokenizer(pattern, specials), out=out)
    return src, out, table


def same_table(a: PretokenTable, b: PretokenTable) -> bool:
    return (a.blob, list(a.starts), list(a.counts), a.n_chars, a.n_bytes) == \
        (b.blob, list(b.starts), list(b.counts), b.n_chars, b.n_bytes)


def test_summed_tables_equal_counting_the_corpora_in_that_order(tmp_path):
    a, ta, _ = counted(tmp_path, "a", TEXT_A)
    b, tb, _ = counted(tmp_path, "b", TEXT_B)
    for order in ((a, b), (b, a)):
        direct = count_corpus(list(order), Pretokenizer("gpt2", ["<s>"]))
        tables = [ta if p == a else tb for p in order]
        summed = read_tables(tables)
        assert same_table(summed, direct)       # words, counts, first-appearance order
        assert [s["path"] for s in summed.meta.sources] == [str(p) for p in order]
        assert summed.meta.total == direct.total and summed.meta.words == len(direct)


def test_tables_of_other_patterns_specials_or_modes_are_refused(tmp_path):
    _, ta, _ = counted(tmp_path, "a", TEXT_A)
    _, tc, _ = counted(tmp_path, "c", TEXT_B, pattern="cl100k")
    _, ts, _ = counted(tmp_path, "s", TEXT_B, specials=())
    with pytest.raises(SettingsError, match=r"c\.counts\.tsv was counted with the GPT-4"):
        read_tables([ta, tc])
    with pytest.raises(SettingsError, match=r"special tokens \[\], but .*a\.counts\.tsv"):
        read_tables([ta, ts])
    with pytest.raises(SettingsError, match="counted with the GPT-2 preset, but training "
                       "asks for the GPT-4"):
        Trainer.from_counts(ta, TrainSettings(pattern="cl100k", special_tokens=("<s>",)))
    with pytest.raises(SettingsError, match=r"special tokens \['<s>'\], but training cuts "
                       r"at \[\]"):
        Trainer.from_counts(ta, TrainSettings())
    # a table whose words serve byte mode only (the metadata says so) refuses char mode
    t = read_table(ta)
    t.meta = replace(t.meta, modes=("byte",))
    with pytest.raises(SettingsError, match="mode"):
        Trainer.from_counts(t, TrainSettings(mode="char", special_tokens=("<s>",)))
    assert Trainer.from_counts(ta).settings.special_tokens == ("<s>",)   # its own


def test_errors_survive_pickling_as_themselves():
    """Errors raised on a Dask worker reach the client through pickle."""
    for err in (NotUTF8Error("a.txt", 5, b"\xff"), FormatError("t.tsv", "bad row.", line=3),
                SettingsError("no")):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert back.__dict__ == err.__dict__


# ----- training from a table = training from the corpus -----------------------------------

@pytest.mark.parametrize("tie", list(TIE_RULES))
@pytest.mark.parametrize("mode", ["byte", "char"])
def test_training_from_a_table_equals_training_from_the_corpus(tmp_path, corpora_dir, tie,
                                                               mode):
    import lzma
    with lzma.open(corpora_dir / "zh-en-d2l-zh-markdown.txt.xz", "rt", encoding="utf-8") as f:
        text = f.read(150_000)
    src = tmp_path / "c.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "c.counts.tsv"
    count_corpus(src, Pretokenizer("gpt2", ["<s>"]), out=out)
    s = TrainSettings(num_merges=300, tie_rule=tie, mode=mode, special_tokens=("<s>",))
    direct = Trainer.from_files(src, s)
    direct.run(detail=False)
    table = Trainer.from_counts(out, s)
    table.run(detail=False)
    assert table.merges == direct.merges and table.vocab == direct.vocab
    assert [r.count for r in table.steps] == [r.count for r in direct.steps]
    if mode == "byte":
        v, m = train_bpe(counts=out, num_merges=300, tie_rule=tie)   # the table's specials
        assert m == direct.merges and v == direct.vocab
