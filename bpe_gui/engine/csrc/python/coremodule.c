/*
 * bpe_gui.engine.train._core -- incremental Byte-Pair-Encoding training state: the Python type
 * around the plain-C trainer of core/ (core/core.h: the data structures and the API).
 * This file is the only one of _core that knows Python: arguments in, Python objects
 * out, the GIL released while the core builds and runs, and the `busy` guard that keeps
 * other threads out meanwhile.
 *
 * Python API
 * ----------
 *   Core(symbols, starts, freqs, token_bytes, tie_rule=GREATEST, undo=True)
 *       symbols: int32 buffer, bytes (each byte a symbol id) or a sequence; starts/freqs:
 *       int64 buffers (or sequences),
 *       token_bytes: sequence of bytes; tie_rule: GREATEST, FIRST_SEEN, LOWEST_IDS,
 *       LOWEST_HF or GREATEST_HF (core.h); undo=False: no undo log (less memory), undo() raises
 *       RuntimeError.
 *   best() -> (a, b, count) | None        top(k) -> [(a, b, count), ...]
 *   tied(limit) -> (n, [(a, b, count), ...])
 *   step() -> (a, b, new_id, count) | None  undo() -> (a, b, new_id)  (IndexError at 0)
 *   merge(a, b, into=-1) -> (new_id, count): this pair merged, best or not (a merge list
 *       replayed); into: the existing token it makes (parity: a token made again)
 *   replay(pairs, top_k=0) -> (counts, ends, changed, tops): many merges without the GIL,
 *       and what each changed (a merge list replayed on a sample: see Core_replay)
 *   run(n, min_count=1) -> steps done (releases the GIL; other calls on the same Core
 *       from other threads raise RuntimeError meanwhile)
 *   history(start) -> [(a, b, new_id, count, n_tied, merged, gone), ...] of the steps
 *       from `start` on (gone: bit 0 a, bit 1 b no longer occur on their own)
 *   touched(limit) -> (n_words, [word ids by freq desc, id asc])
 *   word(w), pair_count(a, b), symbol_count(t), token(t)
 *   properties: n_tokens, n_steps, n_words, n_pairs (pairs with count > 0), tie_rule,
 *       total_symbols (frequency-weighted number of symbols in all words now)
 *   _check() (full consistency check, for tests), _stats() (internal sizes)
 *   ColumnCore: parity training's core, a count per column on every word
 *       (python/core_columns.c)
 * GREATEST compares (bytes(a), bytes(b)) like Python tuples; equal bytes: greater ids win.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "python/convert.h"

#include "core/core.h"
#include "python/core_python.h"
#include "util/simd.h"

/* ---- construction ---------------------------------------------------------------- */

void intarr_release(IntArr *x)
{
    if (x->has_view)
        PyBuffer_Release(&x->view);
    x->has_view = 0;
    free(x->owned);
    x->owned = NULL;
}

/* accept a 1-d buffer of integers of the given item size, or any sequence of ints */
int intarr_get(PyObject *obj, int itemsize, const char *name, IntArr *out)
{
    memset(out, 0, sizeof(*out));
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &out->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return -1;
        out->has_view = 1;
        const char *fmt = out->view.format ? out->view.format : "B";
        while (*fmt == '@' || *fmt == '=' || *fmt == '<')
            fmt++;
        int ok = out->view.ndim <= 1 && out->view.itemsize == itemsize && fmt[0] &&
                 !fmt[1] && strchr("bBhHiIlLqQnN", fmt[0]) != NULL;
        if (ok) {
            out->data = out->view.buf;
            out->n = out->view.len / itemsize;
            return 0;
        }
        if (itemsize == 4 && out->view.itemsize == 1 && (fmt[0] == 'B' || fmt[0] == 'c') &&
            !fmt[1]) {
            /* bytes (e.g. the words of a byte-level table, end to end): widen in C */
            Py_ssize_t n = out->view.len;
            int32_t *mem = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
            if (!mem) {
                PyBuffer_Release(&out->view);
                out->has_view = 0;
                PyErr_NoMemory();
                return -1;
            }
            const unsigned char *src = (const unsigned char *)out->view.buf;
            for (Py_ssize_t i = 0; i < n; i++)
                mem[i] = src[i];
            PyBuffer_Release(&out->view);
            out->has_view = 0;
            out->owned = mem;
            out->data = mem;
            out->n = n;
            return 0;
        }
        PyBuffer_Release(&out->view);
        out->has_view = 0;
        if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
            /* fall through to the generic sequence path (e.g. array('b'), bytes) */
        }
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s must be a buffer or sequence of integers", name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    void *mem = malloc((size_t)(n > 0 ? n : 1) * (size_t)itemsize);
    if (!mem) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            free(mem);
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
            }
            return -1;
        }
        if (itemsize == 4) {
            if (v < INT32_MIN || v > INT32_MAX) {
                Py_DECREF(seq);
                free(mem);
                PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
                return -1;
            }
            ((int32_t *)mem)[i] = (int32_t)v;
        } else {
            ((int64_t *)mem)[i] = (int64_t)v;
        }
    }
    Py_DECREF(seq);
    out->owned = mem;
    out->data = mem;
    out->n = n;
    return 0;
}

/* the token bytes into the core: a sequence of bytes (or bytearray) objects */
static int add_tokens(BpeCore *c, PyObject *otok)
{
    PyObject *tokseq = PySequence_Fast(otok, "token_bytes must be a sequence of bytes");
    if (!tokseq)
        return -1;
    Py_ssize_t ntok = PySequence_Fast_GET_SIZE(tokseq);
    PyObject **items = PySequence_Fast_ITEMS(tokseq);
    int64_t total = 0;
    if (ntok >= INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many tokens");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < ntok; i++) {
        if (PyBytes_Check(items[i]))
            total += PyBytes_GET_SIZE(items[i]);
        else if (PyByteArray_Check(items[i]))
            total += PyByteArray_GET_SIZE(items[i]);
        else {
            PyErr_SetString(PyExc_TypeError, "token_bytes must contain bytes objects");
            goto fail;
        }
    }
    if (bpe_core_reserve_tokens(c, ntok + 1, total + 1) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < ntok; i++) {
        int isb = PyBytes_Check(items[i]);
        Py_ssize_t len = isb ? PyBytes_GET_SIZE(items[i]) : PyByteArray_GET_SIZE(items[i]);
        if (len > INT32_MAX / 4) {
            PyErr_SetString(PyExc_ValueError, "token too long");
            goto fail;
        }
        bpe_core_add_token(c, isb ? PyBytes_AS_STRING(items[i]) : PyByteArray_AS_STRING(items[i]),
                           len);
    }
    Py_DECREF(tokseq);
    return 0;
fail:
    Py_DECREF(tokseq);
    return -1;
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
    if (tie != TIE_GREATEST && tie != TIE_FIRST_SEEN && tie != TIE_LOWEST_IDS &&
        tie != TIE_LOWEST_HF && tie != TIE_GREATEST_HF) {
        PyErr_SetString(PyExc_ValueError, "tie_rule must be GREATEST, FIRST_SEEN, "
                        "LOWEST_IDS, LOWEST_HF or GREATEST_HF");
        return NULL;
    }
    CoreObject *self = (CoreObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->core = bpe_core_new(tie);
    if (!self->core) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    BpeCore *c = self->core;
    bpe_core_keep_undo(c, keep_undo);
    IntArr s = {0}, st = {0}, fr = {0};
    if (intarr_get(osym, 4, "symbols", &s) < 0)
        goto fail;
    if (intarr_get(ostarts, 8, "starts", &st) < 0)
        goto fail;
    if (intarr_get(ofreqs, 8, "freqs", &fr) < 0)
        goto fail;
    const int64_t *starts = (const int64_t *)st.data;
    const char *msg = bpe_core_check_shape(s.n, starts, st.n, fr.n);
    if (msg) {
        PyErr_SetString(PyExc_ValueError, msg);
        goto fail;
    }
    if (add_tokens(c, otok) < 0)
        goto fail;
    int is_mem;
    Py_BEGIN_ALLOW_THREADS
    msg = bpe_core_build(c, (const int32_t *)s.data, (int32_t)s.n, starts,
                         (const int64_t *)fr.data, (int32_t)(st.n - 1), &is_mem);
    Py_END_ALLOW_THREADS
    if (msg) {
        if (is_mem)
            PyErr_NoMemory();
        else
            PyErr_SetString(PyExc_ValueError, msg);
        goto fail;
    }
    intarr_release(&s);
    intarr_release(&st);
    intarr_release(&fr);
    return (PyObject *)self;
fail:
    intarr_release(&s);
    intarr_release(&st);
    intarr_release(&fr);
    Py_DECREF(self);
    return NULL;
}

static void Core_dealloc(CoreObject *self)
{
    bpe_core_free(self->core);
    Py_TYPE(self)->tp_free((PyObject *)self);
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
    int err;
    StepRec r;
    int res = bpe_core_step(self->core, &err, &r);
    if (res < 0)
        return raise_step_error(err);
    if (res == 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(iiiL)", r.a, r.b, r.id, (long long)r.count);
}

static PyObject *Core_undo(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(self) < 0)
        return NULL;
    int err;
    StepRec r;
    int res = bpe_core_undo(self->core, &err, &r);
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
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|L:run", kwlist, &n, &min_count))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    int64_t done;
    int err, res;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    done = bpe_core_run(self->core, n, min_count, &res, &err);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (res < 0)
        return raise_step_error(err);
    return PyLong_FromSsize_t((Py_ssize_t)done);
}

/* merge(a, b, into=-1) -> (new_id, count): one merge of the given pair, best or not; the
 * pair may not occur (count 0), its token is made all the same; into >= 0: the pair makes
 * that token, made before (its bytes a's then b's), as Hugging Face's parity trainer
 * keeps a token's id when a merge makes it again. */
static PyObject *Core_merge(CoreObject *self, PyObject *args)
{
    int a, b, into = -1;
    if (!PyArg_ParseTuple(args, "ii|i:merge", &a, &b, &into))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    int err;
    StepRec r;
    int res = into < 0 ? bpe_core_merge(self->core, a, b, &err, &r)
                       : bpe_core_merge_into(self->core, a, b, into, &err, &r);
    if (res < 0)
        return raise_step_error(err);
    if (res == 0 && into >= 0) {
        PyErr_Format(PyExc_ValueError, "merge(%d, %d, into=%d): token id out of range, or "
                     "token %d is not token %d's bytes then token %d's", a, b, into, into,
                     a, b);
        return NULL;
    }
    if (res == 0) {
        PyErr_Format(PyExc_ValueError, "merge(%d, %d): token id out of range", a, b);
        return NULL;
    }
    return Py_BuildValue("(iL)", r.id, (long long)r.count);
}

/* replay(pairs, top_k=0) -> (counts, ends, changed, tops), all bytes: merges the pairs
 * a0, b0, a1, b1, ... (int32 buffer; a = -1: a merge to skip, no token made) in order
 * without the GIL. counts: int64 per merge, its count before; changed: (a int32, b int32,
 * count int64) records of the pairs each merge changed, with their counts after it; ends:
 * int64 per merge, records so far; tops: top_k records per merge, the best pairs before
 * it (a = b = -1 past the last). ValueError when an id does not exist at its merge. */
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
    IntArr pa;
    if (intarr_get(pairs_obj, 4, "pairs", &pa) < 0)
        return NULL;
    if (pa.n % 2) {
        intarr_release(&pa);
        PyErr_SetString(PyExc_ValueError, "pairs must hold a, b for each merge");
        return NULL;
    }
    const int32_t *ab = (const int32_t *)pa.data;
    int64_t n = pa.n / 2;
    int64_t *counts = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int64_t *ends = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    BpePairCount *tops = (BpePairCount *)malloc(
        (size_t)(n * top_k > 0 ? n * top_k : 1) * sizeof(BpePairCount));
    BpePairCount *chv = NULL;
    size_t chn = 0;
    if (!counts || !ends || !tops) {
        free(counts);
        free(ends);
        free(tops);
        intarr_release(&pa);
        return PyErr_NoMemory();
    }
    BpeCore *c = self->core;
    int64_t bad = -1;   /* the merge whose id did not exist */
    int rc, err;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = bpe_core_replay(c, ab, n, top_k, counts, ends, tops, &chv, &chn, &bad, &err);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    intarr_release(&pa);
    PyObject *out = NULL;
    if (rc < 0) {
        raise_step_error(err);
    } else if (rc == 0) {
        PyErr_Format(PyExc_ValueError, "replay: merge %lld names a token id that does not "
                     "exist yet (%d, %d)", (long long)bad, (int)ab[2 * bad],
                     (int)ab[2 * bad + 1]);
    } else {
        /* y# makes None of a NULL buffer: an empty one (no merge changed a pair of this
         * sample, no top pairs asked) must still be bytes */
        out = Py_BuildValue("(y#y#y#y#)", counts ? (const char *)counts : "",
                            (Py_ssize_t)(n * 8), ends ? (const char *)ends : "",
                            (Py_ssize_t)(n * 8), chv ? (const char *)chv : "",
                            (Py_ssize_t)(chn * sizeof(BpePairCount)),
                            tops ? (const char *)tops : "",
                            (Py_ssize_t)(n * top_k * (Py_ssize_t)sizeof(BpePairCount)));
    }
    free(counts);
    free(ends);
    free(tops);
    free(chv);
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

/* [(a, b, count), ...] of pairs[0..m) (m < 0: out of memory), pairs freed */
PyObject *pair_list(BpePairCount *pairs, int64_t m)
{
    PyObject *list = m < 0 ? PyErr_NoMemory() : PyList_New((Py_ssize_t)m);
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

/* [(a, b, count), ...] of up to k best pairs (only those of the top count if asked) */
static PyObject *ranked(BpeCore *c, Py_ssize_t k, int same_count_only)
{
    if (k > c->heap_n)
        k = c->heap_n;
    BpePairCount *pairs = (BpePairCount *)malloc((size_t)(k > 0 ? k : 1) * sizeof(BpePairCount));
    if (!pairs)
        return PyErr_NoMemory();
    int64_t m = bpe_core_ranked(c, k, same_count_only, pairs);
    return pair_list(pairs, m);
}

static PyObject *Core_top(CoreObject *self, PyObject *args)
{
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n:top", &k))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    return ranked(self->core, k, 0);
}

static PyObject *Core_tied(CoreObject *self, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:tied", &limit))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    if (self->core->heap_n == 0)
        return Py_BuildValue("(i[])", 0);
    int64_t n = bpe_core_n_tied(self->core);
    PyObject *list = ranked(self->core, limit, 1);
    if (!list)
        return NULL;
    return Py_BuildValue("(LN)", (long long)n, list);
}

/* The steps from the `start` that args give (format fmt) on: *first, *n; -1 with an
 * exception set when the core is not usable or start is out of range. */
static int history_steps(CoreObject *self, PyObject *args, const char *fmt,
                         const StepRec **first, Py_ssize_t *n)
{
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, fmt, &start))
        return -1;
    if (check_usable(self) < 0)
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
    int64_t *col = (int64_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        const StepRec *r = &first[i];
        col[i] = r->a;
        col[n + i] = r->b;
        col[2 * n + i] = r->id;
        col[3 * n + i] = r->count;
        col[4 * n + i] = r->n_tied;
        col[5 * n + i] = r->merged;
        col[6 * n + i] = r->gone;
    }
    return out;
}

static PyObject *Core_touched(CoreObject *self, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:touched", &limit))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    int32_t *ids = NULL;
    int64_t n_ids;
    int64_t nd = bpe_core_touched(self->core, limit, &ids, &n_ids);
    return touched_result(nd, ids, n_ids);
}

static PyObject *Core_word(CoreObject *self, PyObject *args)
{
    Py_ssize_t w;
    if (!PyArg_ParseTuple(args, "n:word", &w))
        return NULL;
    if (check_usable(self) < 0)
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
    int32_t *sym = malloc(((size_t)c->n_slots + 1) * sizeof(int32_t));
    int64_t *st = malloc(((size_t)c->n_words + 1) * sizeof(int64_t));
    if (!sym || !st) {
        free(sym);
        free(st);
        return PyErr_NoMemory();
    }
    bpe_core_segmentation(c, sym, st);
    PyObject *out = Py_BuildValue("(y#y#)", (const char *)sym, (Py_ssize_t)(st[c->n_words] * 4),
                                  (const char *)st, (Py_ssize_t)(((size_t)c->n_words + 1) * 8));
    free(sym);
    free(st);
    return out;
}

static PyObject *Core_pair_count(CoreObject *self, PyObject *args)
{
    long long a, b;
    if (!PyArg_ParseTuple(args, "LL:pair_count", &a, &b))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    return PyLong_FromLongLong((long long)bpe_core_pair_count(self->core, a, b));
}

static PyObject *Core_symbol_count(CoreObject *self, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:symbol_count", &t))
        return NULL;
    if (check_usable(self) < 0)
        return NULL;
    if (t < 0 || t >= self->core->n_tokens) {
        PyErr_SetString(PyExc_IndexError, "token id out of range");
        return NULL;
    }
    return PyLong_FromLongLong((long long)self->core->symcount[t]);
}

PyObject *Core_token(CoreObject *self, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:token", &t))
        return NULL;
    if (check_idle(self) < 0)
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

/* sizes of the internal structures, for benchmarks */
static PyObject *Core_stats(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_idle(self) < 0)
        return NULL;
    BpeCoreStats s;
    bpe_core_stats(self->core, &s);
    return Py_BuildValue("{s:i,s:i,s:i,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "pairs", (int)s.pairs,
                         "pairs_cap", (int)s.pairs_cap, "live_pairs", (int)s.live_pairs,
                         "hash_cap", (long long)s.hash_cap, "pos_entries",
                         (long long)s.pos_entries, "pos_alloc_lists", (long long)s.pos_alloc_lists,
                         "pos_cap", (long long)s.pos_cap, "rlog", (long long)s.rlog,
                         "rlog_cap", (long long)s.rlog_cap, "scratch_cap", (long long)s.scratch_cap,
                         "approx_bytes", (long long)s.approx_bytes);
}


/* ---- the type and the module ----------------------------------------------------- */

static PyObject *Core_get_n_tokens(CoreObject *self, void *Py_UNUSED(closure))
{
    return check_idle(self) < 0 ? NULL : PyLong_FromLong(self->core->n_tokens);
}
static PyObject *Core_get_n_steps(CoreObject *self, void *Py_UNUSED(closure))
{
    return check_idle(self) < 0 ? NULL : PyLong_FromLong(self->core->n_steps);
}
static PyObject *Core_get_n_words(CoreObject *self, void *Py_UNUSED(closure))
{
    return check_idle(self) < 0 ? NULL : PyLong_FromLong(self->core->n_words);
}
static PyObject *Core_get_tie_rule(CoreObject *self, void *Py_UNUSED(closure))
{
    return check_idle(self) < 0 ? NULL : PyLong_FromLong(self->core->tie);
}
static PyObject *Core_get_total_symbols(CoreObject *self, void *Py_UNUSED(closure))
{
    return check_idle(self) < 0 ? NULL : PyLong_FromLongLong((long long)self->core->total_syms);
}
static PyObject *Core_get_n_pairs(CoreObject *self, void *Py_UNUSED(closure))
{
    return check_idle(self) < 0 ? NULL : PyLong_FromLong(self->core->heap_n);
}

static PyGetSetDef Core_getset[] = {
    {"n_tokens", (getter)Core_get_n_tokens, NULL, "number of tokens (base + merged)", NULL},
    {"n_steps", (getter)Core_get_n_steps, NULL, "number of merges done", NULL},
    {"n_words", (getter)Core_get_n_words, NULL, "number of words", NULL},
    {"tie_rule", (getter)Core_get_tie_rule, NULL, "the tie rule", NULL},
    {"total_symbols", (getter)Core_get_total_symbols, NULL,
     "frequency-weighted number of symbols in all words now", NULL},
    {"n_pairs", (getter)Core_get_n_pairs, NULL, "number of pairs with count > 0", NULL},
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
    if (PyType_Ready(&CoreType) < 0 || PyType_Ready(&ColumnCoreType) < 0)
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
    Py_INCREF(&ColumnCoreType);
    if (PyModule_AddObject(m, "ColumnCore", (PyObject *)&ColumnCoreType) < 0) {
        Py_DECREF(&ColumnCoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "GREATEST", TIE_GREATEST) < 0 ||
        PyModule_AddIntConstant(m, "FIRST_SEEN", TIE_FIRST_SEEN) < 0 ||
        PyModule_AddIntConstant(m, "LOWEST_IDS", TIE_LOWEST_IDS) < 0 ||
        PyModule_AddIntConstant(m, "LOWEST_HF", TIE_LOWEST_HF) < 0 ||
        PyModule_AddIntConstant(m, "GREATEST_HF", TIE_GREATEST_HF) < 0 ||
        PyModule_AddStringConstant(m, "simd", BPE_SIMD_BUILT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
