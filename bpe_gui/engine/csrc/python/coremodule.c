/*
 * bpe_gui.engine._core -- incremental Byte-Pair-Encoding training state.
 *
 * This file: the Python type (step, undo, run, properties) and the module. The rest:
 *   core.h         the data structures and how they fit (read it first)
 *   core_tables.c  token bytes, the pair table, the count histogram
 *   core_lists.c   growing arrays, sorting, pairs' position lists
 *   core_heap.c    the priority heap and the batched count updates of a step
 *   core_step.c    one merge step and its exact undo
 *   core_build.c   construction from Python arrays (the heavy part without the GIL)
 *   core_query.c   reading: best/top/tied pairs, history, touched words, counts
 *   core_check.c   _check() (full consistency check for tests) and _stats()
 *
 * Python API
 * ----------
 *   Core(symbols, starts, freqs, token_bytes, tie_rule=GREATEST)
 *       symbols: int32 buffer, bytes (each byte a symbol id) or a sequence; starts/freqs:
 *       int64 buffers (or sequences),
 *       token_bytes: sequence of bytes; tie_rule: GREATEST, FIRST_SEEN or LOWEST_IDS.
 *   best() -> (a, b, count) | None        top(k) -> [(a, b, count), ...]
 *   tied(limit) -> (n, [(a, b, count), ...])
 *   step() -> (a, b, new_id, count) | None  undo() -> (a, b, new_id)  (IndexError at 0)
 *   run(n, min_count=1) -> steps done (releases the GIL; other calls on the same Core
 *       from other threads raise RuntimeError meanwhile)
 *   history(start) -> [(a, b, new_id, count, n_tied, merged, gone), ...] of the steps
 *       from `start` on (gone: bit 0 a, bit 1 b no longer occur on their own)
 *   touched(limit) -> (n_words, [word ids by freq desc, id asc])
 *   word(w), pair_count(a, b), symbol_count(t), token(t)
 *   properties: n_tokens, n_steps, n_words, n_pairs (pairs with count > 0), tie_rule,
 *       total_symbols (frequency-weighted number of symbols in all words now)
 *   _check() (full consistency check, for tests), _stats() (internal sizes)
 * GREATEST compares (bytes(a), bytes(b)) like Python tuples; equal bytes: greater ids win.
 */
#include "core/core.h"

static void Core_dealloc(CoreObject *c)
{
    core_free_all(c);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *raise_step_error(int err)
{
    if (err == ERR_NOMEM)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_MemoryError,
                    "out of memory during a step; the Core can no longer be used");
    return NULL;
}

static PyObject *Core_step(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    int err;
    StepRec r;
    int res = do_step(c, &err, &r);
    if (res < 0)
        return raise_step_error(err);
    if (res == 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(iiiL)", r.a, r.b, r.id, (long long)r.count);
}

static PyObject *Core_undo(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    int err;
    StepRec r;
    int res = do_undo(c, &err, &r);
    if (res < 0)
        return raise_step_error(err);
    if (res == 0) {
        PyErr_SetString(PyExc_IndexError, "no step to undo");
        return NULL;
    }
    return Py_BuildValue("(iii)", r.a, r.b, r.id);
}

static PyObject *Core_run(CoreObject *c, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n", "min_count", NULL};
    Py_ssize_t n;
    long long min_count = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|L:run", kwlist, &n, &min_count))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (min_count < 1)
        min_count = 1;
    Py_ssize_t done = 0;
    int err = 0, res = 0;
    c->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    while (done < n) {
        fs_resolve_top(c);
        if (c->heap_n == 0 || c->heap[0].count < min_count)
            break;
        res = do_step(c, &err, NULL);
        if (res <= 0)
            break;
        done++;
    }
    Py_END_ALLOW_THREADS
    c->busy = 0;
    if (res < 0)
        return raise_step_error(err);
    return PyLong_FromSsize_t(done);
}

static PyObject *Core_get_n_tokens(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->n_tokens);
}
static PyObject *Core_get_n_steps(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->n_steps);
}
static PyObject *Core_get_n_words(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->n_words);
}
static PyObject *Core_get_tie_rule(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->tie);
}
static PyObject *Core_get_total_symbols(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLongLong((long long)c->total_syms);
}
static PyObject *Core_get_n_pairs(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->heap_n);
}

static PyGetSetDef Core_getset[] = {
    {"n_tokens", (getter)Core_get_n_tokens, NULL, "number of tokens (base + merged)", NULL},
    {"n_steps", (getter)Core_get_n_steps, NULL, "number of merges done", NULL},
    {"n_words", (getter)Core_get_n_words, NULL, "number of words", NULL},
    {"tie_rule", (getter)Core_get_tie_rule, NULL, "the tie rule", NULL},
    {"total_symbols", (getter)Core_get_total_symbols, NULL,
     "frequency-weighted number of symbols in all words now", NULL},
    {"n_pairs", (getter)Core_get_n_pairs, NULL, "number of pairs with count > 0", NULL},
    {NULL}};

static PyMethodDef Core_methods[] = {
    {"best", (PyCFunction)Core_best, METH_NOARGS,
     "best() -> (a, b, count) of the pair the next step merges, or None"},
    {"top", (PyCFunction)Core_top, METH_VARARGS,
     "top(k) -> up to k (a, b, count), best first"},
    {"tied", (PyCFunction)Core_tied, METH_VARARGS,
     "tied(limit) -> (n, pairs): how many pairs share the max count, and the first `limit`"},
    {"step", (PyCFunction)Core_step, METH_NOARGS,
     "step() -> (a, b, new_id, count) or None"},
    {"undo", (PyCFunction)Core_undo, METH_NOARGS,
     "undo() -> (a, b, new_id); IndexError if there is no step"},
    {"run", (PyCFunction)(void (*)(void))Core_run, METH_VARARGS | METH_KEYWORDS,
     "run(n, min_count=1) -> number of steps done"},
    {"history", (PyCFunction)Core_history, METH_VARARGS,
     "history(start) -> [(a, b, new_id, count, n_tied, merged, gone)] of steps start.."},
    {"touched", (PyCFunction)Core_touched, METH_VARARGS,
     "touched(limit) -> (n_words, word_ids) changed by the last step"},
    {"word", (PyCFunction)Core_word, METH_VARARGS, "word(w) -> list of symbol ids"},
    {"segmentation", (PyCFunction)Core_segmentation, METH_NOARGS,
     "segmentation() -> (symbols, starts): every word now, bytes of int32 / int64"},
    {"pair_count", (PyCFunction)Core_pair_count, METH_VARARGS, "pair_count(a, b) -> int"},
    {"symbol_count", (PyCFunction)Core_symbol_count, METH_VARARGS,
     "symbol_count(t) -> frequency-weighted occurrences of token t"},
    {"token", (PyCFunction)Core_token, METH_VARARGS, "token(t) -> bytes"},
    {"_stats", (PyCFunction)Core_stats, METH_NOARGS, "internal sizes (benchmarks)"},
    {"_check", (PyCFunction)Core_check, METH_NOARGS, "internal consistency check (tests)"},
    {NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_gui.engine._core.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Core(symbols, starts, freqs, token_bytes, tie_rule)\n\n"
              "Incremental BPE training state with exact undo.",
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
    .tp_new = Core_new,
};

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "_core", "Fast incremental BPE training core.", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "GREATEST", TIE_GREATEST) < 0 ||
        PyModule_AddIntConstant(m, "FIRST_SEEN", TIE_FIRST_SEEN) < 0 ||
        PyModule_AddIntConstant(m, "LOWEST_IDS", TIE_LOWEST_IDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
