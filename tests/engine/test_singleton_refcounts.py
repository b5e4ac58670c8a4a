"""No C extension of the engine loses (or leaks) a reference to None, True or False.

A missing Py_INCREF on a returned singleton lowers its reference count a little on every
call until the interpreter aborts ("none_dealloc"). The GUI package carries a guard for
PySide6 6.12.0, which has such a bug of its own; so this runs the extensions in a fresh
interpreter that imports nothing from the GUI (no guard), many rounds, and compares the
singletons' reference counts before and after.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 12) or sys.implementation.name != "cpython",
    reason="None, True and False are immortal from CPython 3.12: a lost reference can "
           "neither be seen nor crash")

SCRIPT = textwrap.dedent('''
    import gc, sys
    from array import array
    from bpe_gui.engine.corpus import _count
    from bpe_gui.engine.text import _scan
    from bpe_gui.engine.tokenizers import _encode
    from bpe_gui.engine.tokenizers.imported import _pipeline
    from bpe_gui.engine.train import _core

    def one_round():
        core = _core.Core(b"abab", [0, 4], [3], [bytes([i]) for i in range(256)])
        core.step(); core.step(); core.step()
        assert core.step() is None and core.best() is None   # no pair left: None
        core.undo(); core.tied(3); core.history(0); core.history_columns(0)
        core._check(); core._stats()
        m = _encode.Merger(list(range(256)))
        assert m.add(97, 98, 0, 256) is True and m.add(97, 98, 1, 257) is False
        cache = _encode.WordCache()
        m.encode_pieces(b"ab ab abc", array("q", [0, 2, 5, 9]), b"\x01" * 65536, 10, cache)
        cache.clear()
        m.encode_words(["ab", "c"], {}, 10, 10); m.merge([97, 98], 10)
        _encode.set_tables(None)
        c = _count.WordCounter(0, [b"<s>"])
        c.count("a b<s>a"); c.count_words(["x"]); c.add_size(1, 1)
        other = _count.WordCounter(-1, None)
        other.add_table(*c.export()); other.add_table(*c.export(firsts=True), block=1)
        other.merge(c); c.clear(); _count.set_tables(None)
        _count.utf8_error(b"ok"); _count.safe_cut(0, b"a b c", 0, 4)
        _scan.words(0, "a b"); _scan.safe_cut(0, "a b c", 0, 4); _scan.set_tables(None)
        model, problem = _pipeline.Model.from_hf({"a": 0, "b": 1, "ab": 2}, ["a b"], False)
        assert problem is None and model.key(99) is None and model.key_text(99) is None
        model.configure(False, True, -1, False); model.tables(None, False)
        model.tokenize("ab"); model.encode_words(["ab"], {}, 10)
        assert _pipeline.find_model_tables(b"{}") is None
        tk, problem = _pipeline.Model.from_tiktoken(b"YQ== 0\\nYg== 1\\nYWI= 2\\n")
        assert problem is None; tk.rebuild()

    one_round()   # warm up: caches, interned objects
    gc.collect()
    before = [sys.getrefcount(x) for x in (None, True, False)]
    for _ in range(3000):
        one_round()
    gc.collect()
    after = [sys.getrefcount(x) for x in (None, True, False)]
    print(*[a - b for a, b in zip(after, before)])
    assert "bpe_gui.gui" not in sys.modules and "PySide6" not in sys.modules
''')


@pytest.mark.slow
def test_extensions_keep_none_true_false_refcounts():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    drift = [int(x) for x in proc.stdout.split()]
    assert drift == [0, 0, 0], f"refcount drift of None, True, False: {drift}"
