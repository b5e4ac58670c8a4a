/*
 * bpe_gui.engine.tokenizers._encode -- the hot loop of Tokenizer.encode, in C.
 *
 * Python API
 * ----------
 *   Merger(byte_ids)            byte_ids: 256 ints, the token id of each single byte
 *   add(a, b, rank, new_id)     register a merge; the first rank given for (a, b) wins
 *   merge(ids, limit) -> tuple  apply merges of rank < limit to a list of ids
 *   encode_words(words, cache, limit, cache_limit) -> list[int]
 *       words: list of str (pre-tokens); cache: dict str -> tuple of ids, filled on
 *       misses and cleared when it reaches cache_limit entries.
 *   encode_text(preset, text, limit, cache) -> list[int]
 *       a whole text without special tokens, cut into words by the native scanner
 *       (scan.h) and merged word by word; cache: a WordCache. The scanning and merging
 *       run without the GIL.
 *   Merger.wrap(table)          a Merger over an imported model's table (the capsule of
 *       _pipeline.Model.merge_table()): whole texts of a .tiktoken model encode here too
 *   WordCache(max_words=262144)  word bytes -> ids, in native memory; cleared when full.
 *       Its entries are valid for one `limit` (it empties itself for another one).
 *
 * Threads: any number of threads can encode with one Merger at once (the table is only
 * read; each call merges in scratch of its own). A WordCache serves one thread at a time
 * (Tokenizer keeps one per thread). add() waits until no thread is in encode_text.
 *
 * The merge table and the merge loops are merge/merge.c (how merging works is in
 * merge/merge.h); the word cache and whole-text encoding merge/wordcache.c; this file
 * is the Python types around them (the only file of _encode that knows Python).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "python/cached_words.h"
#include "merge/merge.h"
#include "scan/scan.h"
#include "python/scan_python.h"
#include "merge/wordcache.h"

#ifdef _WIN32
#include <windows.h>
static void pause_a_little(void) { Sleep(1); }
#else
#include <time.h>
static void pause_a_little(void)
{
    struct timespec t = {0, 200000}; /* 0.2 ms */
    nanosleep(&t, NULL);
}
#endif

/* ---- WordCache: a WordCacheTable (merge/wordcache.h), one per thread encoding; its
 * methods refuse while encode_text uses it ---------------------------------------- */

typedef struct {
    PyObject_HEAD
    WordCacheTable wc;
    int busy; /* in encode_text on some thread (set and read with the GIL held) */
} WordCache;

static int cache_idle(WordCache *c)
{
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCache is in use on another thread");
        return -1;
    }
    return 0;
}

static int WordCache_init(WordCache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"max_words", NULL};
    Py_ssize_t max_words = 262144;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|n:WordCache", kwlist, &max_words))
        return -1;
    if (max_words < 1 || max_words > (1 << 28)) {
        PyErr_SetString(PyExc_ValueError, "max_words must be between 1 and 2**28");
        return -1;
    }
    if (cache_idle(c) < 0)
        return -1;
    if (wc_init(&c->wc, (size_t)max_words) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void WordCache_dealloc(WordCache *c)
{
    wc_free(&c->wc);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *WordCache_clear(WordCache *c, PyObject *Py_UNUSED(ignored))
{
    if (cache_idle(c) < 0)
        return NULL;
    wc_reset(&c->wc);
    Py_RETURN_NONE;
}

static Py_ssize_t WordCache_len(WordCache *c)
{
    return cache_idle(c) < 0 ? -1 : (Py_ssize_t)c->wc.n;
}

static PyMethodDef WordCache_methods[] = {
    {"clear", (PyCFunction)WordCache_clear, METH_NOARGS, "forget every word"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods WordCache_seq = {.sq_length = (lenfunc)WordCache_len};

static PyTypeObject WordCacheType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine.tokenizers._encode.WordCache",
    .tp_basicsize = sizeof(WordCache),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Word bytes -> token ids, in native memory (for Merger.encode_text).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordCache_init,
    .tp_dealloc = (destructor)WordCache_dealloc,
    .tp_methods = WordCache_methods,
    .tp_as_sequence = &WordCache_seq,
};

/* ---- Merger -------------------------------------------------------------------- */

#ifndef BPE_SCAN_NPRESETS
#define BPE_SCAN_NPRESETS 3
#endif

typedef struct {
    PyObject_HEAD
    MergeTable own;
    const MergeTable *t; /* &own, or an imported model's table (Merger.wrap) */
    PyObject *owner;     /* that table's capsule, which keeps its model alive */
    Py_ssize_t readers; /* threads in encode_text (changed with the GIL held only) */
    /* id -> int object, made once, so building the result list is a copy of pointers */
    PyObject **id_objs;
    size_t n_id_objs;
} Merger;

static int check_ready(Merger *m)
{
    if (!m->t) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is not initialised (call Merger(byte_ids))");
        return -1;
    }
    return 0;
}

static PyObject *tuple_of(const int32_t *s, size_t n)
{
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(s[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
    }
    return t;
}

static int as_id(PyObject *o, int32_t *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > INT32_MAX - 1) {
        PyErr_Format(PyExc_ValueError, "token id %ld is out of range (0 to 2**31 - 2)", v);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* The int object for a token id (kept for the Merger's lifetime). */
static PyObject *id_obj(Merger *m, int32_t id)
{
    if ((size_t)id >= m->n_id_objs) {
        size_t cap = m->n_id_objs ? m->n_id_objs : 1024;
        while (cap <= (size_t)id)
            cap *= 2;
        PyObject **p = PyMem_Realloc(m->id_objs, cap * sizeof(PyObject *));
        if (!p)
            return PyErr_NoMemory();
        memset(p + m->n_id_objs, 0, (cap - m->n_id_objs) * sizeof(PyObject *));
        m->id_objs = p;
        m->n_id_objs = cap;
    }
    if (!m->id_objs[id]) {
        m->id_objs[id] = PyLong_FromLong(id);
        if (!m->id_objs[id])
            return NULL;
    }
    return m->id_objs[id];
}

static PyObject *Merger_encode_text(Merger *m, PyObject *args)
{
    int preset, limit;
    PyObject *text;
    WordCache *c;
    if (!PyArg_ParseTuple(args, "iUiO!:encode_text", &preset, &text, &limit, &WordCacheType,
                          &c))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    if (scan_py_check_id(preset) < 0)
        return NULL;
    if (!c->wc.slots || c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCache is not initialised or in use");
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (!s)
        return NULL; /* lone surrogates: the caller falls back to Python */
    IdList out = {NULL, 0, 0};
    int rc;
    m->readers++;
    c->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = wc_encode_utf8(m->t, &c->wc, preset, (const unsigned char *)s, (size_t)n, limit, &out);
    Py_END_ALLOW_THREADS
    m->readers--;
    c->busy = 0;
    if (rc < 0) {
        free(out.ids);
        return PyErr_NoMemory();
    }
    PyObject *list = PyList_New((Py_ssize_t)out.n);
    if (!list) {
        free(out.ids);
        return NULL;
    }
    for (size_t i = 0; i < out.n; i++) {
        PyObject *v = id_obj(m, out.ids[i]);
        if (!v) {
            free(out.ids);
            Py_DECREF(list);
            return NULL;
        }
        Py_INCREF(v);
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    free(out.ids);
    return list;
}

/* encode_pieces(blob, starts, joins, limit, cache) -> (ids, starts): see wordcache.h's
   wc_encode_pieces; starts and the returned starts are int64 buffers (n + 1), ids int32
   bytes, joins 65536 bytes. */
static PyObject *Merger_encode_pieces(Merger *m, PyObject *args)
{
    Py_buffer blob, starts, joins;
    int limit;
    WordCache *c;
    if (!PyArg_ParseTuple(args, "y*y*y*iO!:encode_pieces", &blob, &starts, &joins, &limit,
                          &WordCacheType, &c))
        return NULL;
    PyObject *res = NULL;
    int64_t *out_starts = NULL;
    IdList out = {NULL, 0, 0};
    size_t n = starts.len >= 8 ? (size_t)starts.len / 8 - 1 : 0;
    const int64_t *st = (const int64_t *)starts.buf;
    if (check_ready(m) < 0)
        goto done;
    if (joins.len != 65536 || starts.len % 8 || starts.len < 8) {
        PyErr_SetString(PyExc_ValueError, "encode_pieces: joins must be 65536 bytes and "
                        "starts n + 1 int64 values");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (st[i] < 0 || st[i] > st[i + 1] || st[i + 1] > (int64_t)blob.len) {
            PyErr_SetString(PyExc_ValueError, "encode_pieces: starts out of order or range");
            goto done;
        }
    if (!c->wc.slots || c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCache is not initialised or in use");
        goto done;
    }
    out_starts = malloc((n + 1) * sizeof(int64_t));
    if (!out_starts) {
        PyErr_NoMemory();
        goto done;
    }
    int rc;
    m->readers++;
    c->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = wc_encode_pieces(m->t, &c->wc, (const uint8_t *)joins.buf,
                          (const unsigned char *)blob.buf, st, n, limit, &out, out_starts);
    Py_END_ALLOW_THREADS
    m->readers--;
    c->busy = 0;
    if (rc < 0)
        PyErr_NoMemory();
    else
        res = Py_BuildValue("(y#y#)", (const char *)out.ids, (Py_ssize_t)(out.n * 4),
                            (const char *)out_starts, (Py_ssize_t)((n + 1) * 8));
done:
    free(out.ids);
    free(out_starts);
    PyBuffer_Release(&blob);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&joins);
    return res;
}

/* ---- Merger methods ------------------------------------------------------------- */

static int Merger_init(Merger *m, PyObject *args, PyObject *kw)
{
    PyObject *ids;
    static char *kwlist[] = {"byte_ids", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &ids))
        return -1;
    if (m->t) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is already initialised");
        return -1;
    }
    PyObject *seq = PySequence_Fast(ids, "byte_ids must be a sequence of 256 ints");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 256) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "byte_ids must have 256 entries");
        return -1;
    }
    int32_t byte_ids[256];
    for (int i = 0; i < 256; i++) {
        if (as_id(PySequence_Fast_GET_ITEM(seq, i), &byte_ids[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    if (mt_init(&m->own, byte_ids) < 0) {
        mt_free(&m->own);
        PyErr_NoMemory();
        return -1;
    }
    m->t = &m->own;
    return 0;
}

static void Merger_dealloc(Merger *m)
{
    mt_free(&m->own);
    Py_XDECREF(m->owner);
    for (size_t i = 0; i < m->n_id_objs; i++)
        Py_XDECREF(m->id_objs[i]);
    PyMem_Free(m->id_objs);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Merger_add(Merger *m, PyObject *args)
{
    PyObject *oa, *ob, *orank, *onew;
    int32_t a, b, rank, new_id;
    if (!PyArg_ParseTuple(args, "OOOO:add", &oa, &ob, &orank, &onew))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    if (as_id(oa, &a) < 0 || as_id(ob, &b) < 0 || as_id(orank, &rank) < 0 ||
        as_id(onew, &new_id) < 0)
        return NULL;
    /* other threads merge with the table without the GIL: wait until they are done
     * (a trainer adding a step while a view encodes; each encode is short) */
    while (m->readers > 0) {
        Py_BEGIN_ALLOW_THREADS
        pause_a_little();
        Py_END_ALLOW_THREADS
    }
    if (m->owner) {
        PyErr_SetString(PyExc_RuntimeError, "this Merger reads an imported model's table: "
                        "it takes no merges");
        return NULL;
    }
    switch (mt_add(&m->own, a, b, rank, new_id, 0)) {
    case 1:
        Py_RETURN_TRUE;
    case 0:
        Py_RETURN_FALSE;
    case -2:
        PyErr_Format(PyExc_ValueError, "merge rank %d is too large (at most 2**26)", rank);
        return NULL;
    default:
        return PyErr_NoMemory();
    }
}

static PyObject *Merger_merge(Merger *m, PyObject *args)
{
    PyObject *ids;
    int limit;
    if (!PyArg_ParseTuple(args, "Oi:merge", &ids, &limit))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    if (m->t->by_span) { /* ranks of byte spans: ids alone do not say them */
        PyErr_SetString(PyExc_ValueError, "merge() needs a merge-based table (this one ranks "
                        "pairs by their bytes: use encode_words or encode_text)");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(ids, "ids must be a sequence of ints");
    if (!seq)
        return NULL;
    size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
    MergeScratch x = {0};
    if (ms_reserve(&x, n) < 0) {
        Py_DECREF(seq);
        ms_free(&x);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < n; i++) {
        if (as_id(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), &x.sym[i]) < 0) {
            Py_DECREF(seq);
            ms_free(&x);
            return NULL;
        }
    }
    Py_DECREF(seq);
    n = mt_merge(m->t, &x, n, limit, NULL, 0);
    PyObject *t = tuple_of(x.sym, n);
    ms_free(&x);
    return t;
}

/* one word for encode_words: its bytes as byte ids, merged up to the limit */
typedef struct {
    Merger *m;
    int limit;
    MergeScratch x; /* this call's own */
} WordMerge;

static PyObject *merged_word(void *ctx, const char *utf8, Py_ssize_t len)
{
    WordMerge *c = ctx;
    size_t n = mt_encode_bytes(c->m->t, &c->x, (const unsigned char *)utf8, (size_t)len,
                               c->limit, 0);
    return n == (size_t)-1 ? PyErr_NoMemory() : tuple_of(c->x.sym, n);
}

static PyObject *Merger_encode_words(Merger *m, PyObject *args)
{
    PyObject *words, *cache;
    int limit;
    Py_ssize_t cache_limit;
    if (!PyArg_ParseTuple(args, "O!O!in:encode_words", &PyList_Type, &words, &PyDict_Type,
                          &cache, &limit, &cache_limit))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    WordMerge ctx = {m, limit, {0}};
    PyObject *out = encode_words_cached(words, cache, cache_limit, merged_word, &ctx);
    ms_free(&ctx.x);
    return out;
}

static PyTypeObject MergerType;

/* An imported model's merge table (a capsule from _pipeline.Model.merge_table(), the
 * same merge.h compiled there), read by this extension's whole-text encoding. */
static PyObject *Merger_wrap(PyObject *cls, PyObject *cap)
{
    (void)cls;
    if (!PyCapsule_IsValid(cap, "bpe_gui.merge_table")) {
        PyErr_SetString(PyExc_TypeError, "wrap() takes the merge table of an imported "
                        "model (_pipeline.Model.merge_table())");
        return NULL;
    }
    const MergeTable *t = PyCapsule_GetPointer(cap, "bpe_gui.merge_table");
    if (!t->bytes_ok) {
        PyErr_SetString(PyExc_ValueError, "the model lacks tokens for some single bytes");
        return NULL;
    }
    Merger *m = (Merger *)MergerType.tp_alloc(&MergerType, 0);
    if (!m)
        return NULL;
    Py_INCREF(cap);
    m->owner = cap;
    m->t = t;
    return (PyObject *)m;
}

static PyMethodDef Merger_methods[] = {
    {"wrap", (PyCFunction)Merger_wrap, METH_O | METH_CLASS,
     "wrap(table) -> Merger reading an imported model's merge table (read-only)"},
    {"add", (PyCFunction)Merger_add, METH_VARARGS,
     "add(a, b, rank, new_id) -> bool: register a merge (False if the pair is known)"},
    {"merge", (PyCFunction)Merger_merge, METH_VARARGS,
     "merge(ids, limit) -> tuple: apply the merges of rank < limit"},
    {"encode_words", (PyCFunction)Merger_encode_words, METH_VARARGS,
     "encode_words(words, cache, limit, cache_limit) -> list of ids"},
    {"encode_text", (PyCFunction)Merger_encode_text, METH_VARARGS,
     "encode_text(preset, text, limit, cache) -> list of ids (native scanner)"},
    {"encode_pieces", (PyCFunction)Merger_encode_pieces, METH_VARARGS,
     "encode_pieces(blob, starts, joins, limit, cache) -> (ids, starts), as bytes"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Merger_len(Merger *m, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(m->t ? m->t->n : 0);
}

static PyGetSetDef Merger_getset[] = {
    {"n_merges", (getter)Merger_len, NULL, "number of distinct merge pairs", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject MergerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine.tokenizers._encode.Merger",
    .tp_basicsize = sizeof(Merger),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Merge table for byte-level BPE encoding.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Merger_init,
    .tp_dealloc = (destructor)Merger_dealloc,
    .tp_methods = Merger_methods,
    .tp_getset = Merger_getset,
};


static PyMethodDef encode_functions[] = {
    SCAN_PYTHON_METHODS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef encode_module = {
    PyModuleDef_HEAD_INIT, "_encode", "The hot loop of Tokenizer.encode.", -1,
    encode_functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__encode(void)
{
    if (PyType_Ready(&MergerType) < 0 || PyType_Ready(&WordCacheType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&encode_module);
    if (!m)
        return NULL;
    Py_INCREF(&MergerType);
    Py_INCREF(&WordCacheType);
    if (scan_python_add_constants(m) < 0 ||
        PyModule_AddObject(m, "Merger", (PyObject *)&MergerType) < 0 ||
        PyModule_AddObject(m, "WordCache", (PyObject *)&WordCacheType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
