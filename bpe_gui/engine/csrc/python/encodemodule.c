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
 *   encode_pieces(blob, starts, joins, limit, cache) -> (ids, starts)
 *       words cut where no merge joins two bytes, merged (or found in cache, a
 *       WordCache) without the GIL: pieces.h's pieces_encode.
 *   Merger.wrap(table)          a Merger over an imported model's table (the capsule of
 *       _pipeline.Model.merge_table()), for an Encoder
 *   Encoder(merger, preset, limit, specials, cache_words)  whole texts in one pass
 *       (merge/encoder.h); batches on native threads (merge/batch.h)
 *   WordCache(max_words=262144)  word bytes -> ids, in native memory; cleared when full.
 *       Its entries are valid for one `limit` (it empties itself for another one).
 *
 * Threads: any number of threads can encode with one Merger at once (the table is only
 * read; each call merges in scratch of its own). A WordCache serves one thread at a time
 * (Tokenizer keeps one per thread). add() waits until no thread merges without the GIL.
 *
 * The merge table and the merge loops are merge/merge.c (how merging works is in
 * merge/merge.h); the word cache merge/wordcache.c; whole texts merge/encoder.c and
 * batches merge/batch.c, an encoder's state between calls merge/encoder_pool.c; this
 * file is the Python types around them, the only file of _encode that knows Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "python/cached_words.h"
#include "python/convert.h"
#include "merge/merge.h"
#include "merge/pieces.h"
#include "scan/scan.h"
#include "python/scan_python.h"
#include "python/merge_strategies.h"
#include "merge/wordcache.h"
#include "merge/encoder_pool.h"
#include "imported/offsets.h"
#include "util/grow.h"
#include "util/simd.h"


/* ---- WordCache: a WordCacheTable (merge/wordcache.h), one per thread encoding; its
 * methods refuse while encode_pieces uses it ------------------------------------ */

typedef struct {
    PyObject_HEAD
    WordCacheTable wc;
    int busy; /* in encode_pieces on some thread (set and read with the GIL held) */
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
    .tp_doc = "Word bytes -> token ids, in native memory (for Merger.encode_pieces).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordCache_init,
    .tp_dealloc = (destructor)WordCache_dealloc,
    .tp_methods = WordCache_methods,
    .tp_as_sequence = &WordCache_seq,
};

/* ---- Merger -------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    MergeTable own;
    const MergeTable *t; /* &own, or an imported model's table (Merger.wrap) */
    PyObject *owner;     /* that table's capsule, which keeps its model alive */
    MergeReaders readers; /* threads merging without the GIL (they come in with it held) */
    /* id -> int object, made once, so building the result list is a copy of pointers */
    BpeIdObjs ids;
    size_t id_objs_dense; /* every id below this has its object */
} Merger;

static PyTypeObject MergerType;


/* 0, or -1 with RuntimeError when m has no table yet */
static int check_ready(Merger *m)
{
    if (!m->t) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is not initialised (call Merger(byte_ids))");
        return -1;
    }
    return 0;
}

/* encode_pieces(blob, starts, joins, limit, cache) -> (ids, starts): see wordcache.h's
   pieces_encode; starts and the returned starts are int64 buffers (n + 1), ids int32
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
    if (check_ready(m) < 0)
        goto done;
    if (joins.len != 65536 || starts.len % 8 || starts.len < 8) {
        PyErr_SetString(PyExc_ValueError, "encode_pieces: joins must be 65536 bytes and "
                        "starts n + 1 int64 values");
        goto done;
    }
    if (!c->wc.slots || c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCache is not initialised or in use");
        goto done;
    }
    int rc;
    mr_enter(&m->readers);
    BPE_PY_UNLOCKED(c, rc = pieces_encode(m->t, &c->wc, joins.buf, blob.buf, (size_t)blob.len,
                                          starts.buf, n, limit, &out, &out_starts);
                       mr_leave(&m->readers));
    if (rc == -2)
        PyErr_SetString(PyExc_ValueError, "encode_pieces: starts out of order or range");
    else if (rc < 0)
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
    int rc = bpe_py_ids_in(seq, byte_ids);
    Py_DECREF(seq);
    if (rc < 0)
        return -1;
    if (mt_init(&m->own, byte_ids) < 0 || mr_init(&m->readers) < 0) {
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
    mr_free(&m->readers);
    Py_XDECREF(m->owner);
    bpe_py_id_objs_free(&m->ids);
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
    if (bpe_py_id(oa, &a) < 0 || bpe_py_id(ob, &b) < 0 || bpe_py_id(orank, &rank) < 0 ||
        bpe_py_id(onew, &new_id) < 0)
        return NULL;
    /* other threads merge with the table without the GIL: wait until they are done
     * (a trainer adding a step while a view encodes); readers come in with the GIL held,
     * so none can between the last look and the write below */
    while (mr_busy(&m->readers)) {
        Py_BEGIN_ALLOW_THREADS
        mr_wait_idle(&m->readers);
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
        PyErr_Format(PyExc_ValueError, "merge rank %d is too large (below 2**26)", rank);
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
                        "pairs by their bytes: use encode_words or an Encoder)");
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
    int rc = bpe_py_ids_in(seq, x.sym);
    Py_DECREF(seq);
    if (rc < 0) {
        ms_free(&x);
        return NULL;
    }
    n = mt_merge(m->t, &x, n, limit, NULL, 0);
    PyObject *t = bpe_py_ints(x.sym, n, 0);
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
    return n == (size_t)-1 ? PyErr_NoMemory() : bpe_py_ints(c->x.sym, n, 0);
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
    if (mr_init(&m->readers) < 0) {
        Py_DECREF(m);
        return PyErr_NoMemory();
    }
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


/* ---- Encoder: whole texts to ids in one pass (merge/encoder_pool.h: the job, the
 * scratches, the readers count); lists, arrays, batches on native threads ---------- */

typedef struct {
    PyObject_HEAD
    Merger *merger;  /* a reference: its table, its id objects, its reader count */
    EncEngine eng;
} Encoder;

/* A str's characters, read with the GIL held (the str is immutable and kept alive, so
 * they can be read without it). */
static int text_ref(PyObject *text, EncText *t)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.80s", Py_TYPE(text)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return -1;
#endif
    t->data = PyUnicode_DATA(text);
    t->len = (size_t)PyUnicode_GET_LENGTH(text);
    t->kind = PyUnicode_KIND(text);
    t->utf8 = PyUnicode_IS_ASCII(text); /* a compact ASCII str holds its UTF-8 */
    return 0;
}

/* The error of enc_engine_encode's code (with the GIL held); NULL. */
static PyObject *encode_error(int rc, PyObject *text)
{
    if (rc == -3) /* the flush's own */
        return NULL;
    if (rc == -2 && !PyUnicode_AsUTF8AndSize(text, NULL))
        return NULL; /* UnicodeEncodeError, as str.encode words it */
    if (rc == -2)
        PyErr_SetString(PyExc_UnicodeEncodeError, "lone surrogate");
    else
        PyErr_NoMemory();
    return NULL;
}

static int Encoder_init(Encoder *e, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"merger", "preset", "limit", "specials", "cache_words", NULL};
    PyObject *merger, *specials = Py_None, *keys = NULL, *ids = NULL;
    int preset, limit = INT32_MAX;
    Py_ssize_t cache_words = 1 << 17;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!i|iOn:Encoder", kwlist, &MergerType, &merger,
                                     &preset, &limit, &specials, &cache_words))
        return -1;
    if (e->merger) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder is already initialised");
        return -1;
    }
    if (check_ready((Merger *)merger) < 0)
        return -1;
    if (!((Merger *)merger)->t->bytes_ok) {
        PyErr_SetString(PyExc_ValueError, "the model lacks tokens for some single bytes");
        return -1;
    }
    if (scan_py_check_id(preset) < 0)   /* a kind, with a tables slot or not */
        return -1;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "limit must be >= 0");
        return -1;
    }
    if (cache_words < 1 || cache_words > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "cache_words must be between 1 and 2**26");
        return -1;
    }
    if (specials != Py_None && !PyDict_Check(specials)) {
        PyErr_SetString(PyExc_TypeError, "specials must be a dict of str -> id");
        return -1;
    }
    BpeBytesList toks = {0}; /* the special tokens' UTF-8, and their ids */
    int32_t *id = NULL;
    int rc = -1;
    if (specials != Py_None) {
        if (!(keys = PyDict_Keys(specials)) || !(ids = PyDict_Values(specials)) ||
            bpe_py_bytes_list_get(keys, &toks, 1, "special tokens must be str") < 0)
            goto out;
        if (!(id = PyMem_Calloc(toks.n + 1, sizeof(int32_t)))) {
            PyErr_NoMemory();
            goto out;
        }
        for (size_t i = 0; i < toks.n; i++)
            if (toks.len[i] == 0) {
                PyErr_SetString(PyExc_ValueError, "a special token is empty");
                goto out;
            }
        if (bpe_py_ids_in(ids, id) < 0)
            goto out;
    }
    Merger *m = (Merger *)merger;
    if (enc_engine_init(&e->eng, m->t, &m->readers, preset, limit, (size_t)cache_words,
                        toks.p, toks.len, id, toks.n) < 0) {
        PyErr_NoMemory();
        goto out;
    }
    Py_INCREF(merger);
    e->merger = m;
    rc = 0;
out:
    bpe_py_bytes_list_release(&toks);
    PyMem_Free(id);
    Py_XDECREF(keys);
    Py_XDECREF(ids);
    return rc;
}

static void Encoder_dealloc(Encoder *e)
{
    enc_engine_free(&e->eng);
    Py_XDECREF(e->merger);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static int encoder_ready(Encoder *e)
{
    if (!e->merger) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder is not initialised");
        return -1;
    }
    return 0;
}

/* The ids of a sequence of ints appended to sc->ids (`around`'s halves): 0, or -1 with
 * an error set. */
static int append_ids(EncScratch *sc, PyObject *seq, const char *what)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast)
        return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    int rc = bpe_grow((void **)&sc->ids, &sc->cap, sc->n + (size_t)k + 1, sizeof(uint32_t),
                      4096) < 0 ? (PyErr_NoMemory(), -1) : 0;
    if (rc == 0 && (rc = bpe_py_ids_in(fast, (int32_t *)sc->ids + sc->n)) == 0)
        sc->n += (size_t)k;
    Py_DECREF(fast);
    return rc;
}

/* encode_to_array's EncScratch.flush: the ids appended to the array, the GIL taken for
 * it and given back */
typedef struct {
    PyObject *arr;
    PyThreadState *ts;
} ArraySink;

static int array_sink(void *ctx, const uint32_t *ids, size_t n)
{
    ArraySink *s = ctx;
    PyEval_RestoreThread(s->ts);
    int rc = bpe_py_array_extend(s->arr, ids, n * sizeof(uint32_t));
    s->ts = PyEval_SaveThread();
    return rc;
}

/* encode(text) -> list, or an array('I') when as_array; special tokens found unless
 * `ordinary`; `around` (NULL: none): (ids before, ids after) written around the text's
 * (a post-processor's BOS and EOS, without a second copy of the ids) */
static PyObject *encode_one(Encoder *e, PyObject *text, int as_array, int ordinary,
                            PyObject *around)
{
    EncText t;
    EncScratch *sc;
    if (encoder_ready(e) < 0 || text_ref(text, &t) < 0)
        return NULL;
    if (around && (!PyTuple_Check(around) || PyTuple_GET_SIZE(around) != 2)) {
        PyErr_SetString(PyExc_TypeError, "around should be a tuple (ids before, ids after)");
        return NULL;
    }
    if (enc_engine_enter(&e->eng, &sc, 1) < 0)
        return PyErr_NoMemory();
    PyObject *res = NULL;
    ArraySink sink = {NULL, NULL}; /* an array's ids go into it a chunk at a time */
    int rc = around ? append_ids(sc, PyTuple_GET_ITEM(around, 0), "around[0]: ids before") : 0;
    if (rc == 0 && as_array && !(sink.arr = bpe_py_array("I", NULL, 0)))
        rc = -1;
    if (rc == 0) {
        sc->flush = as_array ? array_sink : NULL;
        sc->flush_ctx = &sink;
        sink.ts = PyEval_SaveThread();
        rc = enc_engine_encode(&e->eng, sc, &t, !ordinary);
        PyEval_RestoreThread(sink.ts);
        sc->flush = NULL;
        if (rc < 0)
            encode_error(rc, text);
        else if (around && append_ids(sc, PyTuple_GET_ITEM(around, 1), "around[1]: ids after") < 0)
            rc = -1;
        else if (!as_array)
            res = bpe_py_id_list_giving_back(&e->merger->ids, &sc->ids, &sc->cap, sc->n,
                                             ENC_SCRATCH_KEEP / sizeof(uint32_t));
        else if (bpe_py_array_extend(sink.arr, sc->ids, sc->n * sizeof(uint32_t)) == 0)
            res = sink.arr, sink.arr = NULL;
    }
    Py_XDECREF(sink.arr);
    enc_engine_leave(&e->eng, &sc, 1);
    return res;
}

static PyObject *Encoder_encode(Encoder *e, PyObject *text)
{
    return encode_one(e, text, 0, 0, NULL);
}

static PyObject *Encoder_encode_ordinary(Encoder *e, PyObject *text)
{
    return encode_one(e, text, 0, 1, NULL);
}

/* (text, around=None) with positional arguments only, parsed by hand (METH_FASTCALL) */
static PyObject *array_call(Encoder *e, PyObject *const *args, Py_ssize_t nargs, int ordinary)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes the text and optionally around "
                     "(ids before, ids after)", ordinary ? "encode_ordinary_to_array"
                                                         : "encode_to_array");
        return NULL;
    }
    return encode_one(e, args[0], 1, ordinary, nargs == 2 && args[1] != Py_None ? args[1] : NULL);
}

static PyObject *Encoder_encode_to_array(Encoder *e, PyObject *const *args, Py_ssize_t nargs)
{
    return array_call(e, args, nargs, 0);
}

static PyObject *Encoder_encode_ordinary_to_array(Encoder *e, PyObject *const *args,
                                                  Py_ssize_t nargs)
{
    return array_call(e, args, nargs, 1);
}

/* encode_offsets(text, lengths, tokens, ordinary=False, align=None, trim=None):
 * the text's ids (special tokens found unless `ordinary`) with each token's character
 * span, from the ids alone: token i holds lengths[ids[i]] bytes (int32 by id; a special
 * token found, the bytes it matched), so the spans follow from the text (enc_char_spans).
 * `align`: (starts, ends), int64 by character: the text is a normalized one and its
 * character c stands for [starts[c], ends[c]) of the original (a token covering
 * characters [s, e) gets (starts[s], ends[e - 1])). `trim`: (lead, trail, prefix), int32
 * by id: tokenizers' ByteLevel offset trimming, after `align` (both: imported/offsets.h).
 * -> (ids, tokens[id] of each, spans as (start, end) tuples, indices of the special
 * tokens found), or None when the lengths do not tile the text or an id has no token. */
static PyObject *Encoder_encode_offsets(Encoder *e, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"text", "lengths", "tokens", "ordinary", "align", "trim", NULL};
    PyObject *text, *lengths, *tokens, *align = Py_None, *trim = Py_None;
    int ordinary = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO!|pOO:encode_offsets", kwlist, &text,
                                     &lengths, &PyList_Type, &tokens, &ordinary, &align, &trim))
        return NULL;
    EncText t;
    if (encoder_ready(e) < 0 || text_ref(text, &t) < 0)
        return NULL;
    Py_buffer bufs[5] = {{0}}, *lb = &bufs[0];  /* lengths, align's two, trim's two */
    PyObject *res = NULL, *a0, *a1, *t0, *t1;
    OffAdjust adj = {0};
    if (PyObject_GetBuffer(lengths, lb, PyBUF_SIMPLE) < 0)
        return NULL;
    if (lb->len % 4) {
        PyErr_SetString(PyExc_ValueError, "lengths: int32 by id");
        goto out;
    }
    Py_ssize_t n_len = lb->len / 4;
    if (align != Py_None && (!PyArg_ParseTuple(align, "OO:align", &a0, &a1) ||
                             bpe_py_buffer_n(a0, &bufs[1], 8, t.len, "align starts") < 0 ||
                             bpe_py_buffer_n(a1, &bufs[2], 8, t.len, "align ends") < 0))
        goto out;
    if (trim != Py_None && (!PyArg_ParseTuple(trim, "OOp:trim", &t0, &t1, &adj.prefix) ||
                            bpe_py_buffer_n(t0, &bufs[3], 4, n_len, "trim lead") < 0 ||
                            bpe_py_buffer_n(t1, &bufs[4], 4, n_len, "trim trail") < 0))
        goto out;
    adj.starts = bufs[1].buf, adj.ends = bufs[2].buf, adj.n_chars = (size_t)t.len;
    adj.lead = bufs[3].buf, adj.trail = bufs[4].buf, adj.n_ids = (size_t)n_len;
    adj.n_tokens = (size_t)PyList_GET_SIZE(tokens);
    EncScratch *sc;
    int64_t *st = NULL, *en = NULL;
    if (enc_engine_enter(&e->eng, &sc, 1) < 0) {
        PyErr_NoMemory();
        goto out;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = enc_engine_spans(&e->eng, sc, &t, !ordinary, lb->buf, (size_t)n_len, &adj, &st, &en);
    Py_END_ALLOW_THREADS
    if (rc == -3) {
        res = Py_NewRef(Py_None);
    } else if (rc < 0) {
        encode_error(rc, text);
    } else {
        PyObject *offs = bpe_py_spans(st, en, sc->n); /* (first: see bpe_py_spans) */
        res = bpe_py_steal_tuple(4, bpe_py_id_list(&e->merger->ids, sc->ids, sc->n),
                                 bpe_py_pick(tokens, sc->ids, sc->n), offs,
                                 bpe_py_u32_every(sc->marks, sc->n_marks, 2));
    }
    free(st);
    free(en);
    enc_engine_leave(&e->eng, &sc, 1);
out:
    bpe_py_release(bufs, 5);
    return res;
}

/* ---- batches (merge/batch.h): the texts encoded on native threads without the GIL;
 * each result made empty with it; the ids written into them on the threads without it,
 * each list's int objects counted per thread and their references added at the end ---- */

/* The int objects of ids 0..top made (with the GIL); -1 when out of memory. */
static int id_objs_upto(Merger *m, uint32_t top)
{
    for (size_t id = m->id_objs_dense; id <= top; id++)
        if (!bpe_py_id_obj(&m->ids, (uint32_t)id))
            return -1;
    if ((size_t)top + 1 > m->id_objs_dense)
        m->id_objs_dense = (size_t)top + 1;
    return 0;
}

/* The lists of a batch's texts into res (with the GIL): made empty and untracked, filled
 * on k threads without the GIL, then their items' references added. -1 with an
 * exception set. */
static int batch_lists(Merger *m, EncBatch *b, PyObject *res, size_t k)
{
    uint32_t top = enc_engine_batch_top(b, k), *added = NULL;
    if (id_objs_upto(m, top) < 0)
        return -1;
    void **dst = PyMem_Calloc(b->n ? b->n : 1, sizeof(void *));
    int rc = dst ? 0 : (PyErr_NoMemory(), -1);
    for (size_t i = 0; rc == 0 && i < b->n; i++) {
        PyObject *list = PyList_New((Py_ssize_t)b->n_ids[i]);
        if (!list) {
            rc = -1;
            break;
        }
        PyObject_GC_UnTrack(list); /* no one may see its items before they are set */
        dst[i] = PySequence_Fast_ITEMS(list);
        PyList_SET_ITEM(res, (Py_ssize_t)i, list);
    }
    if (rc == 0) { /* (a list made before an error holds NULL items: fine to free) */
        Py_BEGIN_ALLOW_THREADS
        rc = enc_engine_batch_scatter(b, dst, (void *const *)m->ids.objs, top, k, &added);
        Py_END_ALLOW_THREADS
        if (rc < 0)
            PyErr_NoMemory();
        for (size_t id = 0; rc == 0 && id <= top; id++)
            if (added[id])
                Py_SET_REFCNT(m->ids.objs[id], Py_REFCNT(m->ids.objs[id]) + added[id]);
    }
    for (size_t i = 0; i < b->n; i++) {
        PyObject *list = PyList_GET_ITEM(res, (Py_ssize_t)i);
        if (list)
            PyObject_GC_Track(list);
    }
    free(added);
    PyMem_Free(dst);
    return rc;
}

/* encode_batch(texts, threads, as_array=False, ordinary=False) -> list of lists (or
 * arrays) */
static PyObject *Encoder_encode_batch(Encoder *e, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"texts", "threads", "as_array", "ordinary", NULL};
    PyObject *texts;
    Py_ssize_t threads = 1;
    int as_array = 0, ordinary = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|npp:encode_batch", kwlist, &PyList_Type,
                                     &texts, &threads, &as_array, &ordinary))
        return NULL;
    if (encoder_ready(e) < 0)
        return NULL;
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 1");
        return NULL;
    }
    texts = PySequence_List(texts); /* our own list: the caller's may change meanwhile */
    if (!texts)
        return NULL;
    size_t n = (size_t)PyList_GET_SIZE(texts);
    size_t k = (size_t)threads < n ? (size_t)threads : (n ? n : 1);
    PyObject *res = NULL;
    int entered = 0;
    EncBatch b;
    EncText *refs;
    if (enc_engine_batch_make(&e->eng, &b, &refs, n, k, !ordinary) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (text_ref(PyList_GET_ITEM(texts, (Py_ssize_t)i), &refs[i]) < 0)
            goto done;
    if (enc_engine_enter(&e->eng, b.scratch, k) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    entered = 1;
    Py_BEGIN_ALLOW_THREADS
    enc_batch_encode(&b, k);
    Py_END_ALLOW_THREADS
    for (size_t i = 0; i < n; i++)
        if (b.err[i] < 0) {
            encode_error(b.err[i], PyList_GET_ITEM(texts, (Py_ssize_t)i));
            goto done;
        }
    if (!(res = PyList_New((Py_ssize_t)n)))
        goto done;
    for (size_t i = 0; as_array && i < n; i++) {
        PyObject *a = bpe_py_id_array(b.ids[i], b.n_ids[i]);
        if (!a) {
            Py_CLEAR(res);
            goto done;
        }
        PyList_SET_ITEM(res, (Py_ssize_t)i, a);
        free(b.ids[i]); /* (each text's ids gone once copied: the batch's peak) */
        b.ids[i] = NULL;
    }
    if (!as_array && batch_lists(e->merger, &b, res, k) < 0)
        Py_CLEAR(res);
done:
    if (entered)
        enc_engine_leave(&e->eng, b.scratch, k);
    enc_engine_batch_free(&b);
    Py_DECREF(texts);
    return res;
}

static PyObject *Encoder_clear(Encoder *e, PyObject *Py_UNUSED(ignored))
{
    if (encoder_ready(e) < 0)
        return NULL;
    if (e->eng.active) {
        PyErr_SetString(PyExc_RuntimeError, "Encoder.clear(): another thread is encoding");
        return NULL;
    }
    enc_engine_clear(&e->eng);
    Py_RETURN_NONE;
}

static PyObject *Encoder_cached(Encoder *e, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(e->merger ? enc_cache_count(&e->eng.cache) : 0);
}

static PyObject *Encoder_holds(Encoder *e, PyObject *word)
{
    if (encoder_ready(e) < 0)
        return NULL;
    if (!PyBytes_Check(word)) {
        PyErr_Format(PyExc_TypeError, "Encoder.holds(word): expected bytes, got %.80s",
                     Py_TYPE(word)->tp_name);
        return NULL;
    }
    return PyBool_FromLong(enc_cache_holds(&e->eng.cache, (const unsigned char *)PyBytes_AS_STRING(word),
                                           (size_t)PyBytes_GET_SIZE(word)));
}

static PyObject *Encoder_idle(Encoder *e, void *closure)
{
    (void)closure;
    return Py_BuildValue("(nn)", (Py_ssize_t)e->eng.pool.n, (Py_ssize_t)e->eng.pool.long_bytes);
}

static PyMethodDef Encoder_methods[] = {
    {"encode", (PyCFunction)Encoder_encode, METH_O,
     "encode(text) -> list of ids (special tokens found)"},
    {"encode_ordinary", (PyCFunction)Encoder_encode_ordinary, METH_O,
     "encode_ordinary(text) -> list of ids (no special tokens looked for)"},
    {"encode_to_array", (PyCFunction)(void (*)(void))Encoder_encode_to_array, METH_FASTCALL,
     "encode_to_array(text, around=None) -> array('I') of ids (special tokens found); "
     "around: (ids before, ids after) put around them"},
    {"encode_ordinary_to_array", (PyCFunction)(void (*)(void))Encoder_encode_ordinary_to_array,
     METH_FASTCALL,
     "encode_ordinary_to_array(text, around=None) -> array('I') of ids; around as above"},
    {"encode_batch", (PyCFunction)(void (*)(void))Encoder_encode_batch,
     METH_VARARGS | METH_KEYWORDS,
     "encode_batch(texts, threads=1, as_array=False, ordinary=False) -> a list of ids (or "
     "array) per text, encoded on `threads` native threads"},
    {"encode_offsets", (PyCFunction)(void (*)(void))Encoder_encode_offsets,
     METH_VARARGS | METH_KEYWORDS,
     "encode_offsets(text, lengths, tokens, ordinary=False, align=None, trim=None) -> "
     "(ids, tokens, spans, special indices), the spans from the ids' byte lengths; None "
     "when the lengths do not tile the text"},
    {"clear", (PyCFunction)Encoder_clear, METH_NOARGS, "forget every cached word, long ones too"},
    {"holds", (PyCFunction)Encoder_holds, METH_O,
     "holds(word: bytes) -> whether the shared cache holds the word (its UTF-8, as the "
     "pattern cut it): for tests"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Encoder_getset[] = {
    {"cached_words", (getter)Encoder_cached, NULL, "words in the shared cache", NULL},
    {"idle", (getter)Encoder_idle, NULL, "(scratches kept between calls: one per thread that "
     "encoded at once; bytes of their tables of long words)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject EncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine.tokenizers._encode.Encoder",
    .tp_basicsize = sizeof(Encoder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Encoder(merger, preset, limit=2**31-1, specials=None, cache_words=131072): "
              "whole texts to ids in one pass, special tokens included, with a word cache "
              "every thread shares.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Encoder_init,
    .tp_dealloc = (destructor)Encoder_dealloc,
    .tp_methods = Encoder_methods,
    .tp_getset = Encoder_getset,
};


/* _fast_word(preset, data) -> int: scan_fast.h's answer for the 8 bytes data[0..8)
 * at a word start (1..7 the word's length, 8 FAST_MORE, 0 undecided); with 16 bytes and
 * FAST_MORE, -1 or 8 + the run's end in data[8..16). For the tests against `regex`. */
static PyObject *fast_word_py(PyObject *mod, PyObject *args)
{
    (void)mod;
    int preset;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "iy*:_fast_word", &preset, &b))
        return NULL;
    if (b.len < 8) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_ValueError, "_fast_word needs at least 8 bytes");
        return NULL;
    }
    int64_t r = enc_fast_word(preset, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return PyLong_FromLongLong(r);
}

/* set_pretok_mode(name) -> the name before */
static PyObject *set_pretok_mode_py(PyObject *mod, PyObject *arg)
{
    (void)mod;
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name)
        return NULL;
    int before = enc_pretok_get();
    if (enc_pretok_set(enc_pretok_by_name(name)) < 0)
        return PyErr_Format(PyExc_ValueError,
                            "no pre-tokenizer mode named %R (known: 'mask', 'word')", arg);
    return PyUnicode_FromString(enc_pretok_name(before));
}

static PyObject *pretok_mode_py(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyUnicode_FromString(enc_pretok_name(enc_pretok_get()));
}

/* At import: BPE_GUI_PRETOK=mask|word picks the mode for the whole process. */
static int pretok_from_env(void)
{
    const char *v;
    if (enc_pretok_from_env(&v) == 0)
        return 0;
    PyErr_Format(PyExc_ValueError, "BPE_GUI_PRETOK=%s names no pre-tokenizer mode (known: "
                 "mask, word); unset it or pick one of those", v);
    return -1;
}

/* _pretok_words(preset, data) -> list[int]: the word ends of data as the encoder finds
 * them in the current mode (tests against `regex`) */
static PyObject *pretok_words_py(PyObject *mod, PyObject *args)
{
    (void)mod;
    int preset;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "iy*:_pretok_words", &preset, &b))
        return NULL;
    if (!bpe_scan_id_ok(preset)) {
        PyBuffer_Release(&b);
        return PyErr_Format(PyExc_ValueError, "_pretok_words: no scanner %d", preset);
    }
    size_t n = (size_t)b.len, *ends = malloc((n ? n : 1) * sizeof(size_t));
    PyObject *out = NULL;
    if (!ends) {
        PyBuffer_Release(&b);
        return PyErr_NoMemory();
    }
    size_t k;
    Py_BEGIN_ALLOW_THREADS
    k = enc_pretok_words(preset, b.buf, n, ends, n);
    Py_END_ALLOW_THREADS
    out = bpe_py_sizes(ends, k);
    free(ends);
    PyBuffer_Release(&b);
    return out;
}

/* trim_offsets(ids, offsets, lead, trail, prefix) -> list[(start, end)]: off_trim over
 * spans found another way (the piece-by-piece path of an imported pipeline); lead and
 * trail int32 by id. */
static PyObject *trim_offsets_py(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *ids, *offs, *lead, *trail, *res = NULL;
    int prefix;
    if (!PyArg_ParseTuple(args, "O!O!OOp:trim_offsets", &PyList_Type, &ids, &PyList_Type,
                          &offs, &lead, &trail, &prefix))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(ids);
    if (PyList_GET_SIZE(offs) != n) {
        PyErr_SetString(PyExc_ValueError, "trim_offsets: one offset per id");
        return NULL;
    }
    Py_buffer tb[2] = {{0}, {0}}; /* lead, trail: int32 by id */
    BpeIntArr id = {0};
    size_t room = n ? (size_t)n : 1;
    int64_t *st = PyMem_Malloc(room * sizeof *st), *en = PyMem_Malloc(room * sizeof *en);
    if (!st || !en) {
        PyErr_NoMemory();
        goto out;
    }
    if (PyObject_GetBuffer(lead, &tb[0], PyBUF_SIMPLE) < 0)
        goto out;
    Py_ssize_t n_ids = tb[0].len / 4;
    if (tb[0].len % 4 || bpe_py_buffer_n(trail, &tb[1], 4, n_ids, "trim_offsets trail") < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "trim_offsets: lead is int32 by id");
        goto out;
    }
    if (bpe_py_intarr_get(ids, 4, "trim_offsets ids", &id) < 0 ||
        bpe_py_spans_in(offs, st, en, "trim_offsets") < 0)
        goto out;
    const uint32_t *v = (const uint32_t *)id.data;
    if (off_trim(st, en, v, (size_t)n, tb[0].buf, tb[1].buf, (size_t)n_ids, prefix) == 0) {
        res = bpe_py_spans(st, en, (size_t)n);
    } else {
        Py_ssize_t i = 0;
        while (v[i] < (uint32_t)n_ids) /* (off_trim refuses an id past lead's) */
            i++;
        PyErr_Format(PyExc_ValueError, "trim_offsets: id %d has no entry in lead",
                     (int)(int32_t)v[i]);
    }
out:
    PyMem_Free(st);
    PyMem_Free(en);
    bpe_py_intarr_release(&id);
    bpe_py_release(tb, 2);
    return res;
}

static PyMethodDef encode_functions[] = {
    {"trim_offsets", trim_offsets_py, METH_VARARGS,
     "trim_offsets(ids, offsets, lead, trail, prefix) -> list[(start, end)]: tokenizers' "
     "ByteLevel offset trimming (lead, trail: int32 spaces by id)"},
    SCAN_PYTHON_METHODS,
    {"set_pretok_mode", set_pretok_mode_py, METH_O,
     "set_pretok_mode(name) -> the mode before: the cl100k family's and o200k's "
     "pre-tokenizer, 'mask' (64-byte windows) or 'word' (a word at a time), for encodes "
     "from now on"},
    {"pretok_mode", pretok_mode_py, METH_NOARGS, "pretok_mode() -> 'mask' or 'word'"},
    {"_pretok_words", pretok_words_py, METH_VARARGS,
     "_pretok_words(preset, data) -> list[int]: the encoder's word ends (tests)"},
    {"_fast_word", fast_word_py, METH_VARARGS,
     "_fast_word(preset, data) -> int: the one-load word scanner's answer (tests)"},
    MERGE_STRATEGY_METHODS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef encode_module = {
    PyModuleDef_HEAD_INIT, "_encode", "The hot loop of Tokenizer.encode.", -1,
    encode_functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__encode(void)
{
    if (merge_strategy_from_env() < 0 || pretok_from_env() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&encode_module);
    if (m && (scan_python_add_constants(m) < 0 ||
              PyModule_AddIntConstant(m, "ENC_CHUNK", ENC_CHUNK) < 0 ||
              PyModule_AddStringConstant(m, "simd", BPE_SIMD_BUILT) < 0 ||
              PyModule_AddType(m, &MergerType) < 0 || PyModule_AddType(m, &WordCacheType) < 0 ||
              PyModule_AddType(m, &EncoderType) < 0))
        Py_CLEAR(m);
    return m;
}
