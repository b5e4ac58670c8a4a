/*
 * core_columns.c -- `_core.ColumnCore`, the Python type around a core with columns
 * (core/core.h, "Columns"; core/core_cols.c): parity training's one core, its words a
 * count per language. Its object and guards are Core's (python/core_python.h);
 * coremodule.c registers the type.
 *
 *   ColumnCore(tables, n_train, with_sum=False, tie_rule=GREATEST_HF, undo=True)
 *       tables: a sequence of (blob, starts, counts) count tables (the words' bytes end
 *       to end, int64 starts with one more entry than counts, int64 counts >= 1); the
 *       first n_train are columns 0 .. n_train - 1, with their pair counts and heaps;
 *       with_sum: column n_train is their sum (heaped too); the other tables follow, one
 *       column each, whose symbols only are counted.
 *   best(col), top(col, k), tied(col, limit): as Core's, in a heaped column
 *   merge(a, b, into=-1) -> new_id    undo() -> (a, b, new_id)
 *   totals() -> each column's count-weighted symbols now
 *   rows(col) -> int32 bytes: the word number of each row of column col's table
 *   touched(col, limit) -> (n, rows): the rows of col the last step changed
 *   word(w), symbol_count(t) (over the first n_train columns), token(t),
 *   pair_count(col, a, b), _check(); n_tokens, n_steps, n_words, n_columns, n_heaped
 * As Core's: construction, merge() and undo() run without the GIL, the `busy` guard
 * keeping every other call on the same object out meanwhile.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core/core.h"
#include "python/convert.h"
#include "python/core_python.h"

typedef CoreObject ColObject;


static int col_heaped(ColObject *self, Py_ssize_t col)
{
    if (check_usable(self) < 0)
        return -1;
    if (col < 0 || col >= self->core->n_heaped) {
        PyErr_Format(PyExc_IndexError, "column %zd has no pair counts (the columns with "
                     "them are 0 to %d)", col, (int)self->core->n_heaped - 1);
        return -1;
    }
    return 0;
}

typedef struct {
    PyObject *blob;
    Py_buffer view;
    BpeIntArr st, cn;
} TableArgs;

static void tables_release(TableArgs *ta, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (ta[i].blob)
            PyBuffer_Release(&ta[i].view);
        bpe_py_intarr_release(&ta[i].st);
        bpe_py_intarr_release(&ta[i].cn);
    }
    free(ta);
}

/* the tables argument read into BpeTable views (the buffers held in ta until released) */
static int tables_get(PyObject *otab, TableArgs **ta_out, BpeTable **t_out, Py_ssize_t *n_out)
{
    PyObject *seq = PySequence_Fast(otab, "tables must be a sequence of (blob, starts, counts)");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    TableArgs *ta = (TableArgs *)calloc((size_t)(n > 0 ? n : 1), sizeof(TableArgs));
    BpeTable *t = (BpeTable *)calloc((size_t)(n > 0 ? n : 1), sizeof(BpeTable));
    Py_ssize_t i = 0;
    if (!ta || !t) {
        PyErr_NoMemory();
        goto fail;
    }
    for (; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i), *blob, *st, *cn;
        if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "OOO", &blob, &st, &cn)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "table %zd must be a tuple (blob, starts, counts)", i);
            goto fail;
        }
        if (PyObject_GetBuffer(blob, &ta[i].view, PyBUF_SIMPLE) < 0)
            goto fail;
        ta[i].blob = blob;
        if (bpe_py_intarr_get(st, 8, "starts", &ta[i].st) < 0 ||
            bpe_py_intarr_get(cn, 8, "counts", &ta[i].cn) < 0) {
            i++;
            goto fail;
        }
        if (ta[i].st.n != ta[i].cn.n + 1) {
            PyErr_Format(PyExc_ValueError, "table %zd: starts must have one more entry than "
                         "counts", i);
            i++;
            goto fail;
        }
        t[i].blob = (const unsigned char *)ta[i].view.buf;
        t[i].blob_len = ta[i].view.len;
        t[i].starts = (const int64_t *)ta[i].st.data;
        t[i].counts = (const int64_t *)ta[i].cn.data;
        t[i].n = ta[i].cn.n;
    }
    Py_DECREF(seq);
    *ta_out = ta;
    *t_out = t;
    *n_out = n;
    return 0;
fail:
    Py_DECREF(seq);
    if (ta)
        tables_release(ta, i);
    free(t);
    return -1;
}

static PyObject *Col_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"tables", "n_train", "with_sum", "tie_rule", "undo", NULL};
    PyObject *otab;
    int n_train, with_sum = 0, tie = TIE_GREATEST_HF, keep_undo = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oi|pip:ColumnCore", kwlist, &otab, &n_train,
                                     &with_sum, &tie, &keep_undo))
        return NULL;
    TableArgs *ta;
    BpeTable *t;
    Py_ssize_t n;
    ColObject *self = core_alloc(type, tie, keep_undo, 1);
    if (!self || tables_get(otab, &ta, &t, &n) < 0) {
        Py_XDECREF(self);
        return NULL;
    }
    const char *msg;
    int is_mem;
    BPE_PY_UNLOCKED(self, msg = bpe_core_build_tables(self->core, t, (int32_t)n, n_train,
                                                    with_sum, &is_mem));
    tables_release(ta, n);
    free(t);
    if (msg && raise_build_error(msg, is_mem) < 0)
        Py_CLEAR(self);
    return (PyObject *)self;
}


static PyObject *Col_best(ColObject *self, PyObject *args)
{
    Py_ssize_t col;
    if (!PyArg_ParseTuple(args, "n:best", &col) || col_heaped(self, col) < 0)
        return NULL;
    BpePairCount p;
    int got = bpe_core_col_best(self->core, (int32_t)col, &p);
    if (got < 0)
        return PyErr_NoMemory();
    if (!got)
        Py_RETURN_NONE;
    return pair_tuple(&p);
}

static PyObject *Col_top(ColObject *self, PyObject *args)
{
    Py_ssize_t col, k;
    if (!PyArg_ParseTuple(args, "nn:top", &col, &k) || col_heaped(self, col) < 0)
        return NULL;
    return top_list(self->core, (int32_t)col, k, 0);
}

static PyObject *Col_tied(ColObject *self, PyObject *args)
{
    Py_ssize_t col, limit;
    if (!PyArg_ParseTuple(args, "nn:tied", &col, &limit) || col_heaped(self, col) < 0)
        return NULL;
    int64_t n = bpe_core_col_n_tied(self->core, (int32_t)col);
    if (n < 0)
        return PyErr_NoMemory();
    PyObject *list = top_list(self->core, (int32_t)col, limit, 1);
    return list ? Py_BuildValue("(LN)", (long long)n, list) : NULL;
}

/* merge(a, b, into=-1) -> new_id */
static PyObject *Col_merge(ColObject *self, PyObject *args)
{
    StepRec r;
    return core_merge(self, args, &r) < 0 ? NULL : PyLong_FromLong(r.id);
}

static PyObject *Col_totals(ColObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_idle(self) < 0)
        return NULL;
    return bpe_py_ints64(self->core->col_syms, (size_t)self->core->n_cols, 0);
}

static PyObject *Col_rows(ColObject *self, PyObject *args)
{
    Py_ssize_t col;
    if (!PyArg_ParseTuple(args, "n:rows", &col) || check_idle(self) < 0)
        return NULL;
    const BpeCore *c = self->core;
    if (col < 0 || col >= c->n_cols) {
        PyErr_SetString(PyExc_IndexError, "column out of range");
        return NULL;
    }
    int32_t n = bpe_core_col_rows(c, (int32_t)col, NULL);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n * 4);
    if (out)
        bpe_core_col_rows(c, (int32_t)col, (int32_t *)PyBytes_AS_STRING(out));
    return out;
}

static PyObject *Col_touched(ColObject *self, PyObject *args)
{
    Py_ssize_t col, limit;
    if (!PyArg_ParseTuple(args, "nn:touched", &col, &limit) || check_usable(self) < 0)
        return NULL;
    if (col < 0 || col >= self->core->n_cols) {
        PyErr_SetString(PyExc_IndexError, "column out of range");
        return NULL;
    }
    int32_t *ids = NULL;
    int64_t n_ids;
    int64_t nd = bpe_core_col_touched(self->core, (int32_t)col, limit, &ids, &n_ids);
    return touched_result(nd, ids, n_ids);
}

static PyObject *Col_pair_count(ColObject *self, PyObject *args)
{
    Py_ssize_t col;
    long long a, b;
    if (!PyArg_ParseTuple(args, "nLL:pair_count", &col, &a, &b) || col_heaped(self, col) < 0)
        return NULL;
    return PyLong_FromLongLong((long long)bpe_core_col_pair_count(self->core, (int32_t)col,
                                                                  a, b));
}

static PyObject *Col_check(ColObject *self, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(self) < 0)
        return NULL;
    for (int32_t h = 0; h < self->core->n_heaped; h++)   /* (the check reads the heaps) */
        if (col_sync(self->core, h) < 0)
            return PyErr_NoMemory();
    return check_result(self->core);
}

static PyGetSetDef Col_getset[] = {
    CORE_GETSET_COMMON,
    {"n_columns", (getter)core_get, NULL, "number of columns", (void *)CORE_N_COLUMNS},
    {"n_heaped", (getter)core_get, NULL, "columns with pair counts (the first ones)",
     (void *)CORE_N_HEAPED},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef Col_methods[] = {
    {"best", (PyCFunction)Col_best, METH_VARARGS, "best(col) -> (a, b, count) or None"},
    {"top", (PyCFunction)Col_top, METH_VARARGS, "top(col, k) -> up to k (a, b, count)"},
    {"tied", (PyCFunction)Col_tied, METH_VARARGS, "tied(col, limit) -> (n, pairs)"},
    {"merge", (PyCFunction)Col_merge, METH_VARARGS, "merge(a, b, into=-1) -> new_id"},
    {"undo", (PyCFunction)Core_undo, METH_NOARGS, "undo() -> (a, b, new_id)"},
    {"totals", (PyCFunction)Col_totals, METH_NOARGS, "totals() -> symbols per column"},
    {"rows", (PyCFunction)Col_rows, METH_VARARGS, "rows(col) -> int32 bytes: word of each row"},
    {"touched", (PyCFunction)Col_touched, METH_VARARGS, "touched(col, limit) -> (n, rows)"},
    {"word", (PyCFunction)Core_word, METH_VARARGS, "word(w) -> list of symbol ids"},
    {"symbol_count", (PyCFunction)Core_symbol_count, METH_VARARGS,
     "symbol_count(t) -> occurrences of token t weighted by the first n_train columns"},
    {"token", (PyCFunction)Core_token, METH_VARARGS, "token(t) -> bytes"},
    {"pair_count", (PyCFunction)Col_pair_count, METH_VARARGS, "pair_count(col, a, b) -> int"},
    {"_check", (PyCFunction)Col_check, METH_NOARGS, "internal consistency check (tests)"},
    {"_stats", (PyCFunction)Core_stats, METH_NOARGS, "internal sizes (benchmarks)"},
    {NULL, NULL, 0, NULL}};

PyTypeObject ColumnCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_gui.engine.train._core.ColumnCore",
    .tp_basicsize = sizeof(ColObject),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ColumnCore(tables, n_train, with_sum=False, tie_rule=GREATEST_HF, undo=True)"
              "\n\nOne training core over several count tables, a count per table (column).",
    .tp_methods = Col_methods,
    .tp_getset = Col_getset,
    .tp_new = Col_new,
};
