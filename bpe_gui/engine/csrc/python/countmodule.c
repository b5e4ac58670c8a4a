/*
 * bpe_gui.engine.corpus._count -- counting pre-tokens (words) in a native hash table.
 *
 * Training only ever needs the unique words of a corpus and how often each occurs, so a
 * corpus of any size is read in blocks and each block is counted here, without the GIL and
 * without a Python string per word.
 *
 * What each call takes and gives is corpus/_count.pyi (tests/engine/test_stubs.py holds
 * the two together). First appearance: every counted word gets the key (block << 32) |
 * ordinal-in-block, and a word keeps the smallest key it was seen with. Blocks counted on
 * different threads or machines therefore merge into exactly the order a single pass over
 * the corpus gives, which the first-seen tie rule depends on.
 *
 * The table itself (layout, hashing, counting a text, its special tokens, adding tables
 * and other counters) is count/wordtable.c, writing tables out count/wordexport.c, the
 * rows of table files count/tsv.c; this file is the Python type around them and the
 * module's functions: arguments in, results and exceptions out.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan/scan.h"
#include "python/convert.h"
#include "python/scan_python.h"
#include "count/tsv.h"
#include "count/wordexport.h"
#include "count/wordtable.h"
#include "util/simd.h"

#define NO_PRESET (-1)

typedef struct {
    PyObject_HEAD
    WordTable t;
    int busy;
    int ready;              /* __init__ ran (WordCounter.__new__ alone leaves preset 0) */
} Counter;

/* ---- WordCounter ------------------------------------------------------------- */

/* 0, or -1 with OverflowError unless n more words from (block, ordinal) get keys */
static int check_keys(unsigned long long block, unsigned long long ordinal, uint64_t n)
{
    int r = wt_keys_fit(block, ordinal, n);
    if (r != WT_KEYS_OK)
        PyErr_SetString(PyExc_OverflowError, r == WT_KEYS_RANGE
                        ? "block or ordinal number too large" : "block or ordinal number "
                        "too large: a block holds at most 2**32 words (start a new block)");
    return r == WT_KEYS_OK ? 0 : -1;
}


static int check_idle(Counter *c)
{
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCounter is in use on another thread");
        return -1;
    }
    return 0;
}

static int Counter_init(Counter *c, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"preset", "specials", "lines", "special_words", NULL};
    int preset = NO_PRESET, lines = 0, special_words = 0;
    PyObject *ospecials = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|iOpp:WordCounter", kwlist, &preset,
                                     &ospecials, &lines, &special_words))
        return -1;
    if (preset != NO_PRESET && scan_py_check_id(preset) < 0)
        return -1;
    if (c->busy || c->t.n) {
        PyErr_SetString(PyExc_RuntimeError, "WordCounter is already initialised");
        return -1;
    }
    wt_free_specials(&c->t);
    c->t.preset = preset;
    c->t.lines = lines;
    c->t.special_words = special_words;
    c->ready = 1;
    if (!ospecials || ospecials == Py_None)
        return 0;
    BpeBytesList sp;
    if (bpe_py_bytes_list_get(ospecials, &sp, 0, "specials must be a sequence of bytes") < 0)
        return -1;
    int rc = wt_set_specials(&c->t, sp.p, sp.len, sp.n);
    bpe_py_bytes_list_release(&sp);
    if (rc == -2)
        PyErr_SetString(PyExc_TypeError, "specials must be non-empty bytes");
    else if (rc < 0)
        PyErr_NoMemory();
    return rc < 0 ? -1 : 0;
}

static void Counter_dealloc(Counter *c)
{
    wt_clear(&c->t);
    wt_free_specials(&c->t);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Counter_count(Counter *c, PyObject *args)
{
    PyObject *o;
    unsigned long long block = 0, ordinal = 0;
    Py_ssize_t stop = -1;
    if (!PyArg_ParseTuple(args, "O|KKn:count", &o, &block, &ordinal, &stop) || check_idle(c) < 0)
        return NULL;
    if (!c->ready) { /* its preset would be 0 (GPT-2) and its specials none */
        PyErr_SetString(PyExc_RuntimeError,
                        "WordCounter is not initialised (call WordCounter(preset, specials))");
        return NULL;
    }
    if (c->t.preset == NO_PRESET) {
        PyErr_SetString(PyExc_ValueError, "this WordCounter has no scanner: use count_words");
        return NULL;
    }
    BpeText t;
    if (bpe_py_text_get(o, &t) < 0)
        return NULL;
    if (check_keys(block, ordinal, (uint64_t)t.n) < 0) { /* a word has at least one byte */
        bpe_py_text_release(&t);
        return NULL;
    }
    int rc;
    uint64_t ord = ((uint64_t)block << 32) | ordinal;
    BPE_PY_UNLOCKED(c, rc = wt_count_block(&c->t, t.p, (size_t)t.n,
                                            stop >= 0 ? (size_t)stop : SIZE_MAX, &ord));
    bpe_py_text_release(&t);
    if (rc < 0)
        return PyErr_NoMemory();
    return PyLong_FromUnsignedLongLong(ord - ((uint64_t)block << 32));
}

static PyObject *Counter_count_words(Counter *c, PyObject *args)
{
    PyObject *owords;
    unsigned long long block = 0, ordinal = 0;
    if (!PyArg_ParseTuple(args, "O|KK:count_words", &owords, &block, &ordinal) || check_idle(c) < 0)
        return NULL;
    BpeBytesList w;
    if (bpe_py_bytes_list_get(owords, &w, 1, "words must be a sequence of str") < 0)
        return NULL;
    uint64_t ord = ((uint64_t)block << 32) | ordinal;
    int rc = check_keys(block, ordinal, w.n);
    if (rc == 0 && (rc = wt_add_words(&c->t, w.p, w.len, w.n, &ord)) < 0)
        PyErr_NoMemory();
    bpe_py_bytes_list_release(&w);
    return rc < 0 ? NULL : PyLong_FromUnsignedLongLong(ord - ((uint64_t)block << 32));
}

static PyTypeObject CounterType;

static PyObject *Counter_merge(Counter *c, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, &CounterType)) {
        PyErr_SetString(PyExc_TypeError, "merge() takes a WordCounter");
        return NULL;
    }
    Counter *o = (Counter *)arg;
    if (o == c) {
        PyErr_SetString(PyExc_ValueError, "a WordCounter cannot merge itself");
        return NULL;
    }
    if (check_idle(c) < 0 || check_idle(o) < 0)
        return NULL;
    int rc;
    o->busy = 1;
    BPE_PY_UNLOCKED(c, rc = wt_merge(&c->t, &o->t));
    o->busy = 0;
    if (rc < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* add_table(blob, starts, counts, firsts=None, block=0, ordinal=0) -> next ordinal: add
 * words given as arrays (as export() makes them); without firsts, word i was first seen at
 * (block << 32) | (ordinal + i), so a table read in pieces keeps its order. */
static PyObject *Counter_add_table(Counter *c, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"blob", "starts", "counts", "firsts", "block", "ordinal", NULL};
    Py_buffer b = {0}, st = {0}, ct = {0}, fi = {0};
    PyObject *ofirsts = Py_None;
    unsigned long long block = 0, ordinal = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*y*|OKK:add_table", kwlist, &b, &st, &ct,
                                     &ofirsts, &block, &ordinal))
        return NULL;
    int has_firsts = ofirsts != Py_None;
    PyObject *res = NULL;
    if (has_firsts && PyObject_GetBuffer(ofirsts, &fi, PyBUF_SIMPLE) < 0)
        goto out;
    size_t n = (size_t)ct.len / 8;
    if (ct.len % 8 || st.len != (Py_ssize_t)((n + 1) * 8) ||
        (has_firsts && fi.len != ct.len)) {
        PyErr_SetString(PyExc_ValueError, "add_table: arrays of mismatched sizes");
        goto out;
    }
    if (check_keys(block, ordinal, n) < 0)
        goto out;
    const int64_t *sp = (const int64_t *)st.buf, *cp = (const int64_t *)ct.buf;
    size_t bad = wt_table_bad_entry((size_t)b.len, sp, cp, n);
    if (bad < n) {
        PyErr_Format(PyExc_ValueError, "add_table: bad entry %zu", bad);
        goto out;
    }
    if (check_idle(c) < 0)
        goto out;
    int rc;
    BPE_PY_UNLOCKED(c, rc = wt_add_table(&c->t, (const unsigned char *)b.buf, sp, cp,
                                          has_firsts ? (const uint64_t *)fi.buf : NULL, n,
                                          ((uint64_t)block << 32) | ordinal));
    if (rc < 0) {
        PyErr_NoMemory();
        goto out;
    }
    res = PyLong_FromUnsignedLongLong(ordinal + n);
out:
    if (b.obj) PyBuffer_Release(&b);
    if (st.obj) PyBuffer_Release(&st);
    if (ct.obj) PyBuffer_Release(&ct);
    if (fi.obj) PyBuffer_Release(&fi);
    return res;
}

static PyObject *Counter_add_size(Counter *c, PyObject *args)
{
    long long chars, nbytes;
    if (!PyArg_ParseTuple(args, "LL:add_size", &chars, &nbytes) || check_idle(c) < 0)
        return NULL;
    c->t.chars += chars;
    c->t.bytes += nbytes;
    Py_RETURN_NONE;
}

/* ---- export: one table or several, in order of first appearance (wordexport.c) -------- */

/* (blob, starts, freqs[, firsts]) of the union of k tables (their counters marked busy
 * by the caller); several are gathered (wt_gather) and left empty. */
static PyObject *export_tables(Counter **cs, size_t k, int with_firsts, size_t threads)
{
    WordTable **ts = (WordTable **)malloc((k ? k : 1) * sizeof(*ts));
    WordExport x = {0};
    PyObject *o[4] = {NULL, NULL, NULL, NULL}, *res = NULL; /* blob, starts, freqs, firsts */
    int rc = ts ? 0 : -1;
    for (size_t j = 0; j < k && rc == 0; j++)
        ts[j] = &cs[j]->t;
    if (rc == 0) {
        Py_BEGIN_ALLOW_THREADS
        rc = we_prepare(&x, ts, k, threads);
        Py_END_ALLOW_THREADS
    }
    size_t size[4] = {x.bytes, (x.words + 1) * 8, x.words * 8, x.words * 8};
    for (int i = 0; i < 3 + with_firsts && rc == 0; i++)
        rc = (o[i] = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size[i])) ? 0 : -1;
    if (rc == 0) {
        Py_BEGIN_ALLOW_THREADS
        we_write(&x, (unsigned char *)PyBytes_AS_STRING(o[0]), (int64_t *)PyBytes_AS_STRING(o[1]),
                 (int64_t *)PyBytes_AS_STRING(o[2]),
                 o[3] ? (uint64_t *)PyBytes_AS_STRING(o[3]) : NULL);
        Py_END_ALLOW_THREADS
        res = bpe_py_steal_tuple(3 + with_firsts, o[0], o[1], o[2], o[3]);
    } else {
        PyErr_NoMemory();
        for (int i = 0; i < 4; i++)
            Py_XDECREF(o[i]);
    }
    we_free(&x, ts);
    free(ts);
    return res;
}

static PyObject *Counter_export(Counter *c, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"firsts", NULL};
    int with_firsts = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:export", kwlist, &with_firsts) ||
        check_idle(c) < 0)
        return NULL;
    c->busy = 1; /* the table is read without the GIL: nobody may grow it meanwhile */
    PyObject *res = export_tables(&c, 1, with_firsts, 1);
    c->busy = 0;
    return res;
}

static PyObject *Counter_clear(Counter *c, PyObject *Py_UNUSED(ignored))
{
    if (check_idle(c) < 0)
        return NULL;
    wt_reset(&c->t);
    Py_RETURN_NONE;
}

static Py_ssize_t Counter_len(Counter *c)
{
    return check_idle(c) < 0 ? -1 : (Py_ssize_t)c->t.n;
}

/* total, chars, bytes, preset, memory (closure 0..4) */
static PyObject *Counter_get(Counter *c, void *closure)
{
    int which = (int)(intptr_t)closure;
    if (which == 3)
        return PyLong_FromLong(c->t.preset);
    if (check_idle(c) < 0)
        return NULL;
    return which == 4 ? PyLong_FromSize_t(wt_memory(&c->t))
                      : PyLong_FromLongLong(which == 0 ? c->t.total : which == 1 ? c->t.chars
                                                                                 : c->t.bytes);
}

static PyGetSetDef Counter_getset[] = {
    {"total", (getter)Counter_get, NULL, "words counted (with repeats)", (void *)0},
    {"chars", (getter)Counter_get, NULL, "characters of the texts counted", (void *)1},
    {"bytes", (getter)Counter_get, NULL, "UTF-8 bytes of the texts counted", (void *)2},
    {"preset", (getter)Counter_get, NULL, "scanner preset, -1 for none", (void *)3},
    {"memory", (getter)Counter_get, NULL, "bytes the table holds (about)", (void *)4},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Counter_methods[] = {
    {"count", (PyCFunction)Counter_count, METH_VARARGS,
     "count(text, block=0, ordinal=0, stop=-1) -> next ordinal: count a whole text's words"},
    {"count_words", (PyCFunction)Counter_count_words, METH_VARARGS,
     "count_words(words, block=0, ordinal=0) -> next ordinal: count words given as str"},
    {"merge", (PyCFunction)Counter_merge, METH_O, "merge(other): add another counter"},
    {"export", (PyCFunction)(void (*)(void))Counter_export, METH_VARARGS | METH_KEYWORDS,
     "export(firsts=False) -> (blob, starts, freqs[, firsts]) in order of first appearance"},
    {"add_table", (PyCFunction)(void (*)(void))Counter_add_table, METH_VARARGS | METH_KEYWORDS,
     "add_table(blob, starts, counts, firsts=None, block=0, ordinal=0) -> next ordinal: "
     "add words given as arrays"},
    {"add_size", (PyCFunction)Counter_add_size, METH_VARARGS,
     "add_size(chars, bytes): count input text the counter did not see itself"},
    {"clear", (PyCFunction)Counter_clear, METH_NOARGS, "forget every word"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Counter_as_sequence = {
    .sq_length = (lenfunc)Counter_len,
};

static PyTypeObject CounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_gui.engine.corpus._count.WordCounter",
    .tp_basicsize = sizeof(Counter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Words of UTF-8 texts counted in a native hash table.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Counter_init,
    .tp_dealloc = (destructor)Counter_dealloc,
    .tp_methods = Counter_methods,
    .tp_getset = Counter_getset,
    .tp_as_sequence = &Counter_as_sequence,
};

/* ---- module functions ---------------------------------------------------------- */

static PyObject *mod_utf8_error(PyObject *Py_UNUSED(self), PyObject *arg)
{
    Py_buffer v;
    if (PyObject_GetBuffer(arg, &v, PyBUF_SIMPLE) < 0)
        return NULL;
    size_t bad;
    Py_BEGIN_ALLOW_THREADS
    bad = bpe_utf8_bad((const unsigned char *)v.buf, (size_t)v.len);
    Py_END_ALLOW_THREADS
    Py_ssize_t n = v.len;
    PyBuffer_Release(&v);
    return PyLong_FromSsize_t(bad == (size_t)n ? -1 : (Py_ssize_t)bad);
}

/* longest_gap(starts): the greatest starts[i + 1] - starts[i] of a buffer of int64 (a
 * table's word starts: its longest word), 0 for fewer than two entries */
static PyObject *mod_longest_gap(PyObject *Py_UNUSED(self), PyObject *arg)
{
    Py_buffer v;
    if (PyObject_GetBuffer(arg, &v, PyBUF_FORMAT) < 0)
        return NULL;
    if (v.itemsize != 8 || v.format == NULL || (strcmp(v.format, "q") != 0 &&
                                                 strcmp(v.format, "l") != 0)) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_TypeError, "longest_gap() takes a buffer of int64 ('q')");
        return NULL;
    }
    int64_t best = we_longest_gap((const int64_t *)v.buf, (size_t)v.len / 8);
    PyBuffer_Release(&v);
    return PyLong_FromLongLong((long long)best);
}

static PyObject *mod_safe_cut(PyObject *Py_UNUSED(self), PyObject *args)
{
    int preset;
    Py_buffer v;
    Py_ssize_t lo, hi;
    if (!PyArg_ParseTuple(args, "iy*nn:safe_cut", &preset, &v, &lo, &hi))
        return NULL;
    if (scan_py_check_id(preset) < 0) {
        PyBuffer_Release(&v);
        return NULL;
    }
    if (lo < 0)
        lo = 0;
    if (hi > v.len - 1)
        hi = v.len - 1;
    Py_ssize_t r = -1;
    if (hi > lo) {
        size_t cut;
        Py_BEGIN_ALLOW_THREADS
        cut = bpe_scan_safe_cut(preset, (const unsigned char *)v.buf, (size_t)lo, (size_t)hi,
                                (size_t)v.len);
        Py_END_ALLOW_THREADS
        r = cut == (size_t)-1 ? -1 : (Py_ssize_t)cut;
    }
    PyBuffer_Release(&v);
    return PyLong_FromSsize_t(r);
}


/* export_merged(counters, firsts=False, threads=0): as merge() of them all into the first,
 * then export(), without the merge's copy: the union is written out directly; its counts
 * are gathered on `threads` threads (0: one per counter). */
static PyObject *mod_export_merged(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"counters", "firsts", "threads", NULL};
    PyObject *ocs;
    int with_firsts = 0;
    Py_ssize_t threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|pn:export_merged", kwlist, &ocs,
                                     &with_firsts, &threads))
        return NULL;
    if (threads < 0) {
        PyErr_SetString(PyExc_ValueError, "export_merged(): threads must be 0 or more");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(ocs, "export_merged() takes a sequence of WordCounter");
    if (!seq)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Counter **cs = (Counter **)malloc((size_t)(k ? k : 1) * sizeof(Counter *));
    if (!cs) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    PyObject *res = NULL;
    for (Py_ssize_t j = 0; j < k; j++) {
        if (!PyObject_TypeCheck(items[j], &CounterType)) {
            PyErr_SetString(PyExc_TypeError, "export_merged() takes a sequence of WordCounter");
            goto out;
        }
        cs[j] = (Counter *)items[j];
        for (Py_ssize_t i = 0; i < j; i++)
            if (cs[i] == cs[j]) {
                PyErr_SetString(PyExc_ValueError, "export_merged(): a WordCounter is given twice");
                goto out;
            }
        if (check_idle(cs[j]) < 0)
            goto out;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        cs[j]->busy = 1;
    res = export_tables(cs, (size_t)k, with_firsts, threads ? (size_t)threads : (size_t)k);
    for (Py_ssize_t j = 0; j < k; j++)
        cs[j]->busy = 0;
out:
    free(cs);
    Py_DECREF(seq);
    return res;
}

/* ---- word-count table rows (tsv.c) ---------------------------------------------- */

static PyObject *mod_format_tsv(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"blob", "starts", "counts", "lo", "hi", NULL};
    Py_buffer b = {0}, st = {0}, ct = {0};
    Py_ssize_t lo = 0, hi = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*y*|nn:format_tsv", kwlist, &b, &st, &ct,
                                     &lo, &hi))
        return NULL;
    PyObject *res = NULL;
    Py_ssize_t n = ct.len / 8;
    const int64_t *sp = (const int64_t *)st.buf, *cp = (const int64_t *)ct.buf;
    if (hi < 0 || hi > n)
        hi = n;
    if (ct.len % 8 || st.len != (n + 1) * 8 || lo < 0 || lo > hi) {
        PyErr_SetString(PyExc_ValueError, "format_tsv: arrays of mismatched sizes");
        goto out;
    }
    size_t bad = bpe_tsv_bad_entry((size_t)b.len, sp, cp, (size_t)lo, (size_t)hi);
    if (bad < (size_t)hi) {
        PyErr_Format(PyExc_ValueError, "format_tsv: bad entry %zd", (Py_ssize_t)bad);
        goto out;
    }
    size_t size;
    Py_BEGIN_ALLOW_THREADS
    size = bpe_tsv_size((const unsigned char *)b.buf, sp, cp, (size_t)lo, (size_t)hi);
    Py_END_ALLOW_THREADS
    res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!res)
        goto out;
    Py_BEGIN_ALLOW_THREADS
    bpe_tsv_write((const unsigned char *)b.buf, sp, cp, (size_t)lo, (size_t)hi,
                  (unsigned char *)PyBytes_AS_STRING(res));
    Py_END_ALLOW_THREADS
out:
    PyBuffer_Release(&b);
    PyBuffer_Release(&st);
    PyBuffer_Release(&ct);
    return res;
}

static PyObject *mod_parse_tsv(PyObject *Py_UNUSED(self), PyObject *args)
{
    Py_buffer v;
    long long base = 0;
    if (!PyArg_ParseTuple(args, "y*|L:parse_tsv", &v, &base))
        return NULL;
    const unsigned char *s = (const unsigned char *)v.buf;
    size_t n = (size_t)v.len, rows;
    Py_BEGIN_ALLOW_THREADS
    rows = bpe_tsv_count_rows(s, n);
    Py_END_ALLOW_THREADS
    PyObject *o[3] = {PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n),  /* blob, ends, counts */
                      PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(rows * 8)),
                      PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(rows * 8))};
    bpe_tsv_rows r = {0};
    int rc = o[0] && o[1] && o[2] ? 0 : -1;
    if (rc == 0) {
        r.blob = (unsigned char *)PyBytes_AS_STRING(o[0]);
        r.ends = (int64_t *)PyBytes_AS_STRING(o[1]);
        r.counts = (int64_t *)PyBytes_AS_STRING(o[2]);
        Py_BEGIN_ALLOW_THREADS
        rc = bpe_tsv_parse(s, n, (int64_t)base, &r);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&v);
    /* shrunk to what was read (in place: these bytes objects are not shared yet) */
    if (rc == 0 && _PyBytes_Resize(&o[0], (Py_ssize_t)r.blob_len) == 0 &&
        _PyBytes_Resize(&o[1], (Py_ssize_t)(r.rows * 8)) == 0 &&
        _PyBytes_Resize(&o[2], (Py_ssize_t)(r.rows * 8)) == 0)
        return bpe_py_steal_tuple(3, o[0], o[1], o[2]);
    for (int k = 0; k < 3; k++)
        Py_XDECREF(o[k]);
    PyObject *e = r.err ? Py_BuildValue("(ns)", (Py_ssize_t)r.err_row, r.err) : NULL;
    if (e) {
        PyErr_SetObject(PyExc_ValueError, e);
        Py_DECREF(e);
    }
    return NULL;
}

static PyMethodDef module_methods[] = {
    SCAN_PYTHON_METHODS,
    {"export_merged", (PyCFunction)(void (*)(void))mod_export_merged,
     METH_VARARGS | METH_KEYWORDS,
     "export_merged(counters, firsts=False, threads=0) -> (blob, starts, freqs[, firsts]) of "
     "their union, gathered on threads threads (0: one per counter)"},
    {"utf8_error", mod_utf8_error, METH_O,
     "utf8_error(data) -> offset of the first invalid UTF-8 byte, or -1"},
    {"longest_gap", mod_longest_gap, METH_O,
     "longest_gap(starts) -> the greatest starts[i + 1] - starts[i] (int64 buffer), or 0"},
    {"safe_cut", mod_safe_cut, METH_VARARGS,
     "safe_cut(preset, data, lo, hi) -> a byte offset in (lo, hi] to cut a block at, or -1"},
    {"format_tsv", (PyCFunction)(void (*)(void))mod_format_tsv, METH_VARARGS | METH_KEYWORDS,
     "format_tsv(blob, starts, counts, lo=0, hi=n) -> rows of a word-count table file"},
    {"parse_tsv", mod_parse_tsv, METH_VARARGS,
     "parse_tsv(data, base=0) -> (blob, ends, counts): whole rows of a word-count table"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_count",
    "Counting pre-tokens in a native hash table (see countmodule.c).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__count(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m && (scan_python_add_constants(m) < 0 ||
              PyModule_AddStringConstant(m, "simd", BPE_SIMD_BUILT) < 0 ||
              PyModule_AddType(m, &CounterType) < 0))
        Py_CLEAR(m);
    return m;
}
