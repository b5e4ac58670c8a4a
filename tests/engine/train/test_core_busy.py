"""While ``Core.run`` works on another thread (it releases the GIL and reallocates its
tables), every other entry point of the same Core must refuse with RuntimeError instead
of reading memory that may be freed under it.

The run is made long (sixty thousand distinct words, merged until no pair is
left) so that the main thread's calls all land while it is going; the test checks that
the run was still going after the last call. Run by hand under valgrind once:
``valgrind --error-exitcode=1 python -m pytest tests/engine/test_core_busy.py``.
"""
from __future__ import annotations

import random
import threading

import pytest

_core = pytest.importorskip("bpe_gui.engine.train._core")

# every public entry point with arguments that would work on an idle Core
CALLS = {
    "best": (), "top": (5,), "tied": (5,), "step": (), "undo": (), "run": (1,),
    "history": (0,), "history_columns": (0,), "touched": (5,), "word": (0,),
    "pair_count": (97, 98), "symbol_count": (97,), "token": (97,), "_stats": (), "_check": (),
    "segmentation": (),
    "merge": (97, 98), "replay": ([97, 98],),
}
GETTERS = ("n_tokens", "n_steps", "n_words", "n_pairs", "tie_rule", "total_symbols")


def _big_core() -> "_core.Core":
    rng = random.Random(7)
    letters = bytes(97 + i % 26 for i in range(256))
    words = sorted({rng.randbytes(rng.randint(6, 14)).translate(letters)
                    for _ in range(60_000)})
    symbols = b"".join(words)
    starts, n = [0], 0
    for w in words:
        n += len(w)
        starts.append(n)
    return _core.Core(symbols, starts, [1] * len(words), [bytes([i]) for i in range(256)])


def test_the_busy_test_covers_every_entry_point():
    public = {name for name in dir(_core.Core) if not name.startswith("__")}
    assert public == set(CALLS) | set(GETTERS)


def test_every_entry_point_refuses_while_run_works_on_another_thread():
    core = _big_core()
    core.step()  # so undo, touched and history have something to read
    started = threading.Event()
    result = {}

    def work():
        started.set()
        result["done"] = core.run(10**9)

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    # wait until run() holds the Core: then it refuses everything
    while True:
        try:
            _ = core.n_steps
        except RuntimeError:
            break
        assert worker.is_alive(), "run() ended before it could be observed"
    refused = []
    for name, args in CALLS.items():
        with pytest.raises(RuntimeError, match="busy"):
            getattr(core, name)(*args)
        refused.append(name)
    for name in GETTERS:
        with pytest.raises(RuntimeError, match="busy"):
            getattr(core, name)
        refused.append(name)
    still_running = worker.is_alive()
    worker.join()
    assert still_running, "run() finished before every call was tried; make it longer"
    assert result["done"] > 1000 and len(refused) == len(CALLS) + len(GETTERS)
    # afterwards the Core is whole and usable again
    core._check()
    assert core.n_steps == 1 + result["done"]
    core.undo()
    assert core.n_steps == result["done"]


# ColumnCore: the same guard around merge() and undo(), which release the GIL too
COL_CALLS = {
    "best": (0,), "top": (0, 5), "tied": (0, 5), "merge": (99, 100), "undo": (),
    "totals": (), "rows": (0,), "touched": (0, 5), "word": (0,), "symbol_count": (97,),
    "token": (97,), "pair_count": (0, 97, 98), "_check": (), "_stats": (),
}
COL_GETTERS = ("n_tokens", "n_steps", "n_words", "n_columns", "n_heaped")


def test_the_column_busy_test_covers_every_entry_point():
    public = {name for name in dir(_core.ColumnCore) if not name.startswith("__")}
    assert public == set(COL_CALLS) | set(COL_GETTERS)


@pytest.mark.regression
def test_every_column_entry_point_refuses_while_merge_works_on_another_thread():
    """ColumnCore.merge held the GIL for its whole merge (a quarter of a second on a word
    of four million symbols), so no other thread ran meanwhile."""
    from array import array
    blob = b"ab" * 2_000_000
    core = _core.ColumnCore([(blob, array("q", [0, len(blob)]), array("q", [1]))], 1)
    started = threading.Event()
    result = {}

    def work():
        started.set()
        result["id"] = core.merge(97, 98)

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    while True:   # until merge() holds the core (the GIL released: this thread runs)
        try:
            _ = core.n_steps
        except RuntimeError:
            break
        assert worker.is_alive(), "merge() ended before it could be observed"
    refused = []
    for name, args in COL_CALLS.items():
        with pytest.raises(RuntimeError, match="busy"):
            getattr(core, name)(*args)
        refused.append(name)
    for name in COL_GETTERS:
        with pytest.raises(RuntimeError, match="busy"):
            getattr(core, name)
        refused.append(name)
    still_running = worker.is_alive()
    worker.join()
    assert still_running, "merge() finished before every call was tried; make it longer"
    assert result["id"] == 256 and len(refused) == len(COL_CALLS) + len(COL_GETTERS)
    core._check()
    assert core.n_steps == 1 and core.word(0)[:3] == [256, 256, 256]
    core.undo()
    assert core.n_steps == 0
