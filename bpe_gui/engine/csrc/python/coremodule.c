/*
 * bpe_gui.engine.train._core -- incremental Byte-Pair-Encoding training state: the Python
 * types around the plain-C trainer of core/ (core/core.h: the data structures and the
 * API). Core here, ColumnCore (parity training's core, a count per column on every word)
 * in core_columns.c; core_python.h is what the two share: one object, one `busy` guard,
 * one way of running without the GIL (BPE_PY_UNLOCKED: construction, step, undo, merge,
 * replay and run), the methods and properties alike in both.
 *
 * What each call takes and gives is train/_core.pyi (tests/engine/test_stubs.py holds
 * the two together). These files only turn arguments into C values and C results and
 * error codes (ERR_* of core.h) into Python objects and exceptions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "python/convert.h"

#include "core/core.h"
#include "python/core_python.h"
#include "util/simd.h"

/* ---- construction ---------------------------------------------------------------- */

int raise_build_error(const char *msg, int is_mem)
{
    if (is_mem)
        PyErr_NoMemory();
    else
        PyErr_SetString(PyExc_ValueError, msg);
    return -1;
}

/* A new object of `type` around a new, empty core (tie rule checked); NULL with an
 * exception set */
CoreObject *core_alloc(PyTypeObject *type, int tie, int keep_undo, int columns)
{
    const char *msg = bpe_core_tie_check(tie, columns);
    if (msg) {
        PyErr_SetString(PyExc_ValueError, msg);
        return NULL;
    }
    CoreObject *self = (CoreObject *)type->tp_alloc(type, 0);
    if (self && !(self->core = bpe_core_new(tie))) {
        Py_CLEAR(self);
        PyErr_NoMemory();
    }
    if (self)
        bpe_core_keep_undo(self->core, keep_undo);
    return self;
}

void Core_dealloc(CoreObject *self)
{
    bpe_core_free(self->core);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* the token bytes into the core: a sequence of bytes (or bytearray) objects */
static int add_tokens(BpeCore *c, PyObject *otok)
{
    BpeBytesList t;
    if (bpe_py_bytes_list_get(otok, &t, 0, "token_bytes must be a sequence of bytes") < 0)
        return -1;
    int is_mem;
    const char *msg = bpe_core_add_tokens(c, t.p, t.len, (int64_t)t.n, &is_mem);
    bpe_py_bytes_list_release(&t);
    return msg ? raise_build_error(msg, is_mem) : 0;
}

static PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"symbols", "starts", "freqs", "token_bytes", "tie_rule", "undo",
                             NULL};
    PyObject *osym, *ostarts, *ofreqs, *otok;
    int tie = TIE_GREATEST, keep_undo = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO|ip:Core", kwlist, &osym, &ostarts,
                                     &ofreqs, &otok, &tie, &keep_undo))
        return NULL;
    CoreObject *self = core_alloc(type, tie, keep_undo, 0);
    if (!self)
        return NULL;
    BpeCore *c = self->core;
    BpeIntArr s = {0}, st = {0}, fr = {0};
    const char *msg;
    int is_mem, rc = -1;
    if (bpe_py_intarr_get(osym, 4, "symbols", &s) < 0 ||
        bpe_py_intarr_get(ostarts, 8, "starts", &st) < 0 ||
        bpe_py_intarr_get(ofreqs, 8, "freqs", &fr) < 0)
        goto out;
    const int64_t *starts = (const int64_t *)st.data;
    if ((msg = bpe_core_check_shape(s.n, starts, st.n, fr.n)) != NULL) {
        PyErr_SetString(PyExc_ValueError, msg);
        goto out;
    }
    if (add_tokens(c, otok) < 0)
        goto out;
    BPE_PY_UNLOCKED(self, msg = bpe_core_build(c, (const int32_t *)s.data, (int32_t)s.n,
                                               starts, (const int64_t *)fr.data,
                                               (int32_t)(st.n - 1), &is_mem));
    rc = msg ? raise_build_error(msg, is_mem) : 0;
out:
    bpe_py_intarr_release(&s);
    bpe_py_intarr_release(&st);
    bpe_py_intarr_release(&fr);
    if (rc < 0)
        Py_CLEAR(self);
    return (PyObject *)self;
}

/* ---- stepping --------------------------------------------------------------------- */

PyObject *raise_step_error(int err)
{
    if (err == ERR_NO_UNDO) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this Core keeps no undo log (it was made with undo=False), so it "
                        "cannot go back a step: make it with undo=True to undo");
        return NULL;
    }
    if (err == ERR_NOMEM)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_MemoryError,
                    "out of memory during a step; the Core can no longer be used");
    return NULL;
}

static PyObject *Core_step(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(self) < 0)
        return NULL;
    int err, res;
    StepRec r;
    BPE_PY_UNLOCKED(self, res = bpe_core_step(self->core, &err, &r));
    if (res < 0)
        return raise_step_error(err);
    if (res == 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(iiiL)", r.a, r.b, r.id, (long long)r.count);
}

PyObject *Core_undo(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(self) < 0)
        return NULL;
    int err, res;
    StepRec r;
    BPE_PY_UNLOCKED(self, res = bpe_core_undo(self->core, &err, &r));
    if (res < 0)
        return raise_step_error(err);
    if (res == 0) {
        PyErr_SetString(PyExc_IndexError, "no step to undo");
        return NULL;
    }
    return Py_BuildValue("(iii)", r.a, r.b, r.id);
}

static PyObject *Core_run(CoreObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n", "min_count", NULL};
    Py_ssize_t n;
    long long min_count = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|L:run", kwlist, &n, &min_count) ||
        check_usable(self) < 0)
        return NULL;
    int64_t done;
    int err, res;
    BPE_PY_UNLOCKED(self, done = bpe_core_run(self->core, n, min_count, &res, &err));
    if (res < 0)
        return raise_step_error(err);
    return PyLong_FromSsize_t((Py_ssize_t)done);
}

/* merge(a, b, into=-1) of both types (bpe_core_merge, bpe_core_merge_into): 0 (the step
 * in *r), or -1 with an exception set */
int core_merge(CoreObject *self, PyObject *args, StepRec *r)
{
    int a, b, into = -1, err, res;
    if (!PyArg_ParseTuple(args, "ii|i:merge", &a, &b, &into) || check_usable(self) < 0)
        return -1;
    BPE_PY_UNLOCKED(self, res = into < 0 ? bpe_core_merge(self->core, a, b, &err, r)
                                       : bpe_core_merge_into(self->core, a, b, into, &err, r));
    if (res < 0)
        raise_step_error(err);
    else if (res == 0 && into >= 0)
        PyErr_Format(PyExc_ValueError, "merge(%d, %d, into=%d): token id out of range, or "
                     "token %d is not token %d's bytes then token %d's", a, b, into, into,
                     a, b);
    else if (res == 0)
        PyErr_Format(PyExc_ValueError, "merge(%d, %d): token id out of range", a, b);
    return res > 0 ? 0 : -1;
}

/* merge(a, b, into=-1) -> (new_id, count) */
static PyObject *Core_merge(CoreObject *self, PyObject *args)
{
    StepRec r;
    return core_merge(self, args, &r) < 0 ? NULL
                                           : Py_BuildValue("(iL)", r.id, (long long)r.count);
}

/* replay(pairs, top_k=0) -> (counts, ends, changed, tops), all bytes (core.h's BpeReplay) */
static PyObject *Core_replay(CoreObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pairs", "top_k", NULL};
    PyObject *pairs_obj;
    Py_ssize_t top_k = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|n:replay", kwlist, &pairs_obj, &top_k))
        return NULL;
    if (top_k < 0) {
        PyErr_SetString(PyExc_ValueError, "top_k must be >= 0");
        return NULL;
    }
    if (check_usable(self) < 0)
        return NULL;
    BpeIntArr pa;
    if (bpe_py_intarr_get(pairs_obj, 4, "pairs", &pa) < 0)
        return NULL;
    if (pa.n % 2) {
        bpe_py_intarr_release(&pa);
        PyErr_SetString(PyExc_ValueError, "pairs must hold a, b for each merge");
        return NULL;
    }
    const int32_t *ab = (const int32_t *)pa.data;
    int64_t n = pa.n / 2, bad = -1; /* bad: the merge whose id did not exist */
    BpeReplay r;
    int rc, err;
    BPE_PY_UNLOCKED(self, rc = bpe_core_replay(self->core, ab, n, top_k, &r, &bad, &err));
    PyObject *out = NULL;
    if (rc < 0) {
        raise_step_error(err);
    } else if (rc == 0) {
        PyErr_Format(PyExc_ValueError, "replay: merge %lld names a token id that does not "
                     "exist yet (%d, %d)", (long long)bad, (int)ab[2 * bad],
                     (int)ab[2 * bad + 1]);
    } else {
        /* y# makes None of a NULL buffer: an empty one (no merge changed a pair of this
         * sample) must still be bytes */
        out = Py_BuildValue("(y#y#y#y#)", (const char *)r.counts, (Py_ssize_t)(n * 8),
                            (const char *)r.ends, (Py_ssize_t)(n * 8),
                            r.changed ? (const char *)r.changed : "",
                            (Py_ssize_t)(r.n_changed * sizeof(BpePairCount)),
                            (const char *)r.tops,
                            (Py_ssize_t)(n * top_k * (Py_ssize_t)sizeof(BpePairCount)));
    }
    bpe_py_intarr_release(&pa);
    bpe_replay_free(&r);
    return out;
}

/* ---- reading ---------------------------------------------------------------------- */

PyObject *pair_tuple(const BpePairCount *p)
{
    return Py_BuildValue("(iiL)", p->a, p->b, (long long)p->count);
}

static PyObject *Core_best(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(self) < 0)
        return NULL;
    BpePairCount p;
    if (!bpe_core_best(self->core, &p))
        Py_RETURN_NONE;
    return pair_tuple(&p);
}

/* (nd, [ids...]) of a `touched` query (nd < 0: out of memory), ids freed */
PyObject *touched_result(int64_t nd, int32_t *ids, int64_t n_ids)
{
    if (nd < 0)
        return PyErr_NoMemory();
    PyObject *list = bpe_py_ints(ids, (size_t)n_ids, 1);
    free(ids);
    return bpe_py_steal_tuple(2, PyLong_FromLongLong((long long)nd), list);
}

/* word w's symbols now as a list of ids */
PyObject *word_list(const BpeCore *c, Py_ssize_t w)
{
    if (w < 0 || w >= c->n_words) {
        PyErr_SetString(PyExc_IndexError, "word index out of range");
        return NULL;
    }
    int64_t room = c->starts[w + 1] - c->starts[w];
    int32_t *sym = (int32_t *)malloc((size_t)(room > 0 ? room : 1) * sizeof(int32_t));
    if (!sym)
        return PyErr_NoMemory();
    PyObject *list = bpe_py_ints(sym, (size_t)bpe_core_word(c, (int32_t)w, sym), 1);
    free(sym);
    return list;
}

/* [(a, b, count), ...] of up to k best pairs of the core (col < 0) or of column col (only
 * those of the top count if asked) */
PyObject *top_list(BpeCore *c, int32_t col, Py_ssize_t k, int same_count_only)
{
    int64_t m;
    BpePairCount *pairs = bpe_core_top(c, col, k, same_count_only, &m);
    PyObject *list = pairs ? PyList_New((Py_ssize_t)m) : PyErr_NoMemory();
    for (int64_t i = 0; list && i < m; i++) {
        PyObject *t = pair_tuple(&pairs[i]);
        if (!t)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    free(pairs);
    return list;
}

static PyObject *Core_top(CoreObject *self, PyObject *args)
{
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n:top", &k) || check_usable(self) < 0)
        return NULL;
    return top_list(self->core, -1, k, 0);
}

static PyObject *Core_tied(CoreObject *self, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:tied", &limit) || check_usable(self) < 0)
        return NULL;
    PyObject *list = top_list(self->core, -1, limit, 1);
    return list ? Py_BuildValue("(LN)", (long long)bpe_core_n_tied(self->core), list) : NULL;
}

/* The steps from the `start` that args give (format fmt) on: *first, *n; -1 with an
 * exception set when the core is not usable or start is out of range. */
static int history_steps(CoreObject *self, PyObject *args, const char *fmt,
                         const StepRec **first, Py_ssize_t *n)
{
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, fmt, &start) || check_usable(self) < 0)
        return -1;
    const BpeCore *c = self->core;
    if (start < 0 || start > c->n_steps) {
        PyErr_SetString(PyExc_IndexError, "history start out of range");
        return -1;
    }
    *first = c->steps ? c->steps + start : NULL;   /* (no step made yet: none read) */
    *n = c->n_steps - start;
    return 0;
}

/* history(start) -> [(a, b, new_id, count, n_tied, merged, gone), ...] for the steps
 * from `start` on: what Trainer records after a run() made them without the GIL. */
static PyObject *Core_history(CoreObject *self, PyObject *args)
{
    const StepRec *first;
    Py_ssize_t n;
    if (history_steps(self, args, "n:history", &first, &n) < 0)
        return NULL;
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        const StepRec *r = &first[i];
        PyObject *t = Py_BuildValue("(iiiLiLi)", r->a, r->b, r->id, (long long)r->count,
                                    r->n_tied, (long long)r->merged, r->gone);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

/* history_columns(start) -> bytes: history(start) as seven int64 columns end to end (a,
 * b, new_id, count, n_tied, merged, gone), each as long as the steps: what Trainer adds
 * to its rows with no Python object per step. */
static PyObject *Core_history_columns(CoreObject *self, PyObject *args)
{
    const StepRec *first;
    Py_ssize_t n;
    if (history_steps(self, args, "n:history_columns", &first, &n) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 7 * n * (Py_ssize_t)sizeof(int64_t));
    if (!out)
        return NULL;
    bpe_core_history_columns(self->core, self->core->n_steps - n,
                             (int64_t *)PyBytes_AS_STRING(out));
    return out;
}

static PyObject *Core_touched(CoreObject *self, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:touched", &limit) || check_usable(self) < 0)
        return NULL;
    int32_t *ids = NULL;
    int64_t n_ids;
    int64_t nd = bpe_core_col_touched(self->core, -1, limit, &ids, &n_ids);
    return touched_result(nd, ids, n_ids);
}

PyObject *Core_word(CoreObject *self, PyObject *args)
{
    Py_ssize_t w;
    if (!PyArg_ParseTuple(args, "n:word", &w) || check_usable(self) < 0)
        return NULL;
    return word_list(self->core, w);
}

/* Every word's symbols at once (SuperBPE's rebuild reads them all): bytes of int32 ids,
   and bytes of n_words + 1 int64 starts into them. One call, not word(w) per word. */
static PyObject *Core_segmentation(CoreObject *self, PyObject *noargs)
{
    (void)noargs;
    if (check_usable(self) < 0)
        return NULL;
    const BpeCore *c = self->core;
    PyObject *sym = PyBytes_FromStringAndSize(NULL, ((Py_ssize_t)c->n_slots + 1) * 4);
    PyObject *st = PyBytes_FromStringAndSize(NULL, ((Py_ssize_t)c->n_words + 1) * 8);
    if (sym && st) {
        int64_t *s = (int64_t *)PyBytes_AS_STRING(st);
        bpe_core_segmentation(c, (int32_t *)PyBytes_AS_STRING(sym), s);
        _PyBytes_Resize(&sym, (Py_ssize_t)(s[c->n_words] * 4)); /* (not shared yet: in place) */
    }
    return bpe_py_steal_tuple(2, sym, st);
}

static PyObject *Core_pair_count(CoreObject *self, PyObject *args)
{
    long long a, b;
    if (!PyArg_ParseTuple(args, "LL:pair_count", &a, &b) || check_usable(self) < 0)
        return NULL;
    return PyLong_FromLongLong((long long)bpe_core_pair_count(self->core, a, b));
}

PyObject *Core_symbol_count(CoreObject *self, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:symbol_count", &t) || check_usable(self) < 0)
        return NULL;
    int64_t n = bpe_core_symbol_count(self->core, t);
    if (n < 0)
        PyErr_SetString(PyExc_IndexError, "token id out of range");
    return n < 0 ? NULL : PyLong_FromLongLong((long long)n);
}

PyObject *Core_token(CoreObject *self, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:token", &t) || check_idle(self) < 0)
        return NULL;
    const BpeCore *c = self->core;
    if (t < 0 || t >= c->n_tokens) {
        PyErr_SetString(PyExc_IndexError, "token id out of range");
        return NULL;
    }
    return PyBytes_FromStringAndSize(c->tok_buf + c->tok_off[t], c->tok_len[t]);
}

/* consistency check of the internal structures, for tests */
PyObject *check_result(const BpeCore *c)
{
    int is_mem;
    const char *err = bpe_core_check(c, &is_mem);
    if (err && is_mem)
        return PyErr_NoMemory();
    if (err) {
        PyErr_SetString(PyExc_AssertionError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Core_check(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    return check_usable(self) < 0 ? NULL : check_result(self->core);
}

/* sizes of the internal structures, for benchmarks (the columns' 0 without) */
PyObject *Core_stats(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_idle(self) < 0)
        return NULL;
    BpeCoreStats s;
    bpe_core_stats(self->core, &s);
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,"
                         "s:L}", "pairs", (long long)s.pairs, "pairs_cap", (long long)s.pairs_cap,
                         "live_pairs", (long long)s.live_pairs, "hash_cap", (long long)s.hash_cap,
                         "pos_entries", (long long)s.pos_entries, "pos_alloc_lists",
                         (long long)s.pos_alloc_lists, "pos_cap", (long long)s.pos_cap, "rlog",
                         (long long)s.rlog, "rlog_cap", (long long)s.rlog_cap, "scratch_cap",
                         (long long)s.scratch_cap, "approx_bytes", (long long)s.approx_bytes,
                         "column_heap_entries", (long long)s.col_heap_entries,
                         "column_heap_cap", (long long)s.col_heap_cap, "column_notes_cap",
                         (long long)s.col_notes_cap, "column_rows", (long long)s.col_rows,
                         "column_rows_free", (long long)s.col_rows_free, "column_entries",
                         (long long)s.col_entries, "cells", (long long)s.cells);
}

/* ---- the type and the module ----------------------------------------------------- */

/* the counts both types show, by closure: CORE_N_* */
PyObject *core_get(CoreObject *self, void *closure)
{
    if (check_idle(self) < 0)
        return NULL;
    const BpeCore *c = self->core;
    switch ((int)(intptr_t)closure) {
    case CORE_N_TOKENS: return PyLong_FromLong(c->n_tokens);
    case CORE_N_STEPS: return PyLong_FromLong(c->n_steps);
    case CORE_N_WORDS: return PyLong_FromLong(c->n_words);
    case CORE_TIE_RULE: return PyLong_FromLong(c->tie);
    case CORE_TOTAL_SYMBOLS: return PyLong_FromLongLong((long long)c->total_syms);
    case CORE_N_PAIRS: return PyLong_FromLong(c->heap_n);
    case CORE_N_COLUMNS: return PyLong_FromLong(c->n_cols);
    default: return PyLong_FromLong(c->n_heaped);
    }
}

static PyGetSetDef Core_getset[] = {
    CORE_GETSET_COMMON,
    {"tie_rule", (getter)core_get, NULL, "the tie rule", (void *)CORE_TIE_RULE},
    {"total_symbols", (getter)core_get, NULL,
     "frequency-weighted number of symbols in all words now", (void *)CORE_TOTAL_SYMBOLS},
    {"n_pairs", (getter)core_get, NULL, "number of pairs with count > 0", (void *)CORE_N_PAIRS},
    {NULL, NULL, NULL, NULL, NULL}};

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
    {"merge", (PyCFunction)Core_merge, METH_VARARGS,
     "merge(a, b, into=-1) -> (new_id, count): merge this pair, best or not; into: "
     "the existing token it makes"},
    {"replay", (PyCFunction)(void (*)(void))Core_replay, METH_VARARGS | METH_KEYWORDS,
     "replay(pairs, top_k=0) -> (counts, ends, changed, tops): merge these pairs in order"},
    {"run", (PyCFunction)(void (*)(void))Core_run, METH_VARARGS | METH_KEYWORDS,
     "run(n, min_count=1) -> number of steps done"},
    {"history", (PyCFunction)Core_history, METH_VARARGS,
     "history(start) -> [(a, b, new_id, count, n_tied, merged, gone)] of steps start.."},
    {"history_columns", (PyCFunction)Core_history_columns, METH_VARARGS,
     "history_columns(start) -> bytes: history(start) as seven int64 columns end to end"},
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
    {NULL, NULL, 0, NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_gui.engine.train._core.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Core(symbols, starts, freqs, token_bytes, tie_rule, undo=True)\n\n"
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
    PyObject *m = PyModule_Create(&coremodule);
    if (m && (PyModule_AddType(m, &CoreType) < 0 || PyModule_AddType(m, &ColumnCoreType) < 0 ||
              PyModule_AddIntConstant(m, "GREATEST", TIE_GREATEST) < 0 ||
              PyModule_AddIntConstant(m, "FIRST_SEEN", TIE_FIRST_SEEN) < 0 ||
              PyModule_AddIntConstant(m, "LOWEST_IDS", TIE_LOWEST_IDS) < 0 ||
              PyModule_AddIntConstant(m, "LOWEST_HF", TIE_LOWEST_HF) < 0 ||
              PyModule_AddIntConstant(m, "GREATEST_HF", TIE_GREATEST_HF) < 0 ||
              PyModule_AddStringConstant(m, "simd", BPE_SIMD_BUILT) < 0))
        Py_CLEAR(m);
    return m;
}
