"""Bugs found by auditing the C extensions (one test each; each failed before its fix),
and the guards that audit checked: objects used before ``__init__`` or initialised
twice, numbers cut to 32 bits, objects read while another thread works on them without
the GIL, lists changed under a C loop by Python code it calls."""
from __future__ import annotations

import threading
from array import array

import pytest

_encode = pytest.importorskip("bpe_gui.engine.tokenizers._encode")
_count = pytest.importorskip("bpe_gui.engine.corpus._count")
_pipeline = pytest.importorskip("bpe_gui.engine.tokenizers.imported._pipeline")
_core = pytest.importorskip("bpe_gui.engine.train._core")

BYTE_IDS = list(range(256))


def _merger() -> "_encode.Merger":
    m = _encode.Merger(BYTE_IDS)
    m.add(ord("a"), ord("b"), 0, 256)
    return m


JOIN_ALL = b"\x01" * 65536   # encode_pieces cuts a piece nowhere: each is one word


def _pieces(m, words: list[str], limit: int, cache) -> list[int]:
    """The ids of the words, merged one by one through Merger.encode_pieces (which
    merges without the GIL, the WordCache marked busy meanwhile)."""
    blob = "".join(words).encode()
    starts, at = [0], 0
    for w in words:
        at += len(w.encode())
        starts.append(at)
    ids, _ = m.encode_pieces(blob, array("q", starts), JOIN_ALL, limit, cache)
    return list(array("i", ids))


def _model() -> "_pipeline.Model":
    vocab = {chr(c): c for c in range(ord("a"), ord("z") + 1)}
    vocab["ab"] = 200
    model, problem = _pipeline.Model.from_hf(vocab, ["a b"], False)
    assert problem is None
    return model


class ClearsOnHash(str):
    """A str whose hashing (a dict lookup asks for it) empties the list it came in."""
    victim: list = []

    def __hash__(self):
        self.victim.clear()
        return str.__hash__(self)


# ---- lists changed by Python code that a C loop calls -----------------------------

@pytest.mark.parametrize("encoder", ["merger", "model"])
def test_encode_words_survives_the_word_list_emptied_under_it(encoder):
    """encode_words kept the list's length and borrowed items across the dict lookup,
    which can run Python (a str subclass's __hash__): emptying the list there made it
    read past the list's freed items (a crash). Now it goes on with the list as it is."""
    words = [ClearsOnHash("ab"), "a" * 40 + "x", "b" * 40 + "y"]
    ClearsOnHash.victim = words
    if encoder == "merger":
        out = _merger().encode_words(words, {}, 1 << 30, 1000)
    else:
        out = _model().encode_words(words, {}, 1000)
    assert words == [] and (out == [256] or out == [200])


# ---- objects used before __init__, or initialised twice ----------------------------

def test_word_counter_refuses_to_scan_before_init():
    """WordCounter.__new__ left preset 0, so an uninitialised counter silently counted
    with the GPT-2 scanner instead of saying it was never set up. (It is an empty
    table otherwise: counting given words, merging and exporting work.)"""
    c = _count.WordCounter.__new__(_count.WordCounter)
    with pytest.raises(RuntimeError, match="not initialised"):
        c.count("a b")
    assert len(c) == 0
    c.count_words(["a", "b"])
    assert len(c) == 2


def test_uninitialised_and_reinitialised_objects_refuse():
    """Guards the audit checked (they held before): no method of an object whose
    __init__ never ran reaches a NULL table, and a second __init__ cannot swap the
    tables of an object in use."""
    m = _encode.Merger.__new__(_encode.Merger)
    for call in (lambda: m.add(1, 2, 0, 3), lambda: m.merge([1, 2], 10),
                 lambda: m.encode_words(["ab"], {}, 10, 10),
                 lambda: _pieces(m, ["ab"], 10, _encode.WordCache())):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    with pytest.raises(RuntimeError, match="already initialised"):
        _merger().__init__(BYTE_IDS)
    cache = _encode.WordCache.__new__(_encode.WordCache)
    with pytest.raises(RuntimeError, match="not initialised"):
        _pieces(_merger(), ["ab", " ab"], 10, cache)
    counted = _count.WordCounter(0)
    counted.count("some words")
    with pytest.raises(RuntimeError, match="already initialised"):
        counted.__init__(1)
    with pytest.raises(TypeError):
        _pipeline.Model()          # made only by its from_* constructors
    with pytest.raises(TypeError):
        _pipeline.Model.__new__(_pipeline.Model)
    with pytest.raises(TypeError):
        _core.Core.__new__(_core.Core)   # built whole in __new__, or not at all


# ---- numbers cut to 32 bits ----------------------------------------------------------

def test_word_counter_ordinals_do_not_run_into_the_next_block():
    """A word's first-appearance key is (block << 32) | ordinal: an ordinal that went
    past 2**32 - 1 silently became the next block's (and the returned next ordinal
    wrapped to 0), so first-seen order broke. Now that is an OverflowError, and the
    next ordinal is returned as it is."""
    c = _count.WordCounter(0)
    with pytest.raises(OverflowError, match="block"):
        c.count_words(["a", "b"], 0, 2**32 - 1)
    with pytest.raises(OverflowError, match="block"):
        c.count("a b", 0, 2**32 - 1)
    assert len(c) == 0
    assert c.count_words(["a"], 0, 2**32 - 1) == 2**32   # the last ordinal of a block
    with pytest.raises(OverflowError, match="block"):
        c.count_words(["b"], 0, 2**32)
    _, _, _, firsts = c.export(firsts=True)
    assert int.from_bytes(firsts, "little") == 2**32 - 1


def test_ids_out_of_int32_range_are_refused():
    """Guard the audit checked: ids go through a range check, never a silent cast."""
    m = _merger()
    for bad in (2**31, 2**32 + 5, -1):
        with pytest.raises((ValueError, OverflowError)):
            m.merge([bad], 10)
        with pytest.raises((ValueError, OverflowError)):
            m.add(bad, 1, 0, 300)
    with pytest.raises(ValueError):
        _core.Core([2**32 + 97], [0, 1], [1], [bytes([i]) for i in range(256)])


# ---- objects read while another thread works on them without the GIL ---------------

def _refused_while(work, calls) -> list[str]:
    """Run work() on a thread; call each of calls meanwhile; the names of those that
    raised RuntimeError (only calls made while work() was still going count)."""
    done = threading.Event()
    box = {}

    def run():
        try:
            box["result"] = work()
        finally:
            done.set()

    t = threading.Thread(target=run)
    t.start()
    refused = set()
    try:
        while not done.is_set() and len(refused) < len(calls):
            for name, call in calls.items():
                try:
                    call()
                except RuntimeError as e:
                    assert "in use" in str(e)
                    if not done.is_set():
                        refused.add(name)
    finally:
        t.join()
    return sorted(refused)


def test_word_counter_export_holds_off_other_threads():
    """export() released the GIL without marking the counter busy: count() on another
    thread could grow (reallocate) the table export() was reading."""
    c = _count.WordCounter(0)
    c.count(" ".join(f"w{i}" for i in range(400_000)))
    fresh = iter(range(10**9))
    calls = {"count": lambda: c.count(f"new{next(fresh)} words"),
             "count_words": lambda: c.count_words([f"x{next(fresh)}"]),
             "add_size": lambda: c.add_size(1, 1), "len": lambda: len(c),
             "total": lambda: c.total}
    for _ in range(5):
        refused = _refused_while(lambda: c.export(firsts=True), calls)
        if refused == sorted(calls):
            break
    assert refused == sorted(calls)


def test_word_cache_refuses_while_encode_pieces_runs():
    """WordCache.clear() while encode_pieces used the cache on another thread silently
    did nothing; len() read the cache as it changed. The Merger itself serves other
    threads meanwhile (its table is only read while merging)."""
    m = _merger()
    cache = _encode.WordCache()
    words = [f" w{i}" for i in range(400_000)]
    calls = {"clear": cache.clear, "len": lambda: len(cache)}
    for _ in range(5):
        refused = _refused_while(lambda: _pieces(m, words, 10, cache), calls)
        if refused == sorted(calls):
            break
    assert refused == sorted(calls)
    assert _refused_while(lambda: _pieces(m, words, 10, _encode.WordCache()),
                          {"n_merges": lambda: m.n_merges,
                           "merge": lambda: m.merge([97, 98], 10)}) == []


def test_a_full_word_cache_empties_itself_and_still_gives_each_words_ids():
    """A WordCache holds at most max_words words: the next one empties it first (its slot,
    found before, is stale then). 1,000 distinct words through a cache of 64, twice:
    each word's ids are those of the one merge ab -> 256 (every "ab" replaced: a and b
    differ, so two never overlap), and the cache never holds more than 64."""
    m, cache = _merger(), _encode.WordCache(max_words=64)
    words = [f" {i}ab{'ab' * (i % 7)}x{i}" for i in range(1000)]
    want = [i for w in words for i in _ab_ids(w)]
    for _ in range(2):
        assert _pieces(m, words, 10, cache) == want
        assert 0 < len(cache) <= 64


def _ab_ids(word: str) -> list[int]:
    parts = word.encode().split(b"ab")
    return [i for k, p in enumerate(parts) for i in ([256] if k else []) + list(p)]


def test_merger_add_waits_for_merging_on_other_threads():
    """add() while another thread merged without the GIL raised RuntimeError (or, without
    the guard, could have grown the table under the reader); now it waits for it."""
    m = _merger()
    words = ["ab", " "] * 300_000
    box = {}
    t = threading.Thread(target=lambda: box.update(ids=_pieces(m, words, 10,
                                                               _encode.WordCache())))
    t.start()
    added = m.add(ord("c"), ord("d"), 1, 257)   # waits, never raises
    t.join()
    assert added is True
    assert box["ids"] == [256, 32] * 300_000
    assert _pieces(m, ["cd"], 10, _encode.WordCache()) == [257]

# ---- a Merger over an imported model's table (Merger.wrap) ---------------------------

def _tiktoken_model(tokens=(b"ab", b"abab")) -> "_pipeline.Model":
    import base64
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    lines += [base64.b64encode(t) + b" %d" % (256 + k) for k, t in enumerate(tokens)]
    model, problem = _pipeline.Model.from_tiktoken(b"\n".join(lines) + b"\n")
    assert problem is None
    return model


def test_wrapped_table_is_read_only_and_keeps_its_model_alive():
    m = _encode.Merger.wrap(_tiktoken_model().merge_table())   # no other reference left
    assert _pieces(m, ["ababab", " ab"], 2**31 - 1, _encode.WordCache()) == [257, 256, 32, 256]
    with pytest.raises(RuntimeError, match="takes no merges"):
        m.add(97, 98, 0, 300)
    with pytest.raises(ValueError, match="bytes"):   # tiktoken ranks pairs by their bytes
        m.merge([97, 98], 10)


def test_wrap_refuses_a_table_without_every_byte():
    model, problem = _pipeline.Model.from_tiktoken(b"YQ== 0\nYg== 1\nYWI= 2\n")
    assert problem is None
    with pytest.raises(ValueError, match="single bytes"):
        _encode.Merger.wrap(model.merge_table())
    with pytest.raises(TypeError, match="merge_table"):
        _encode.Merger.wrap("not a capsule")
