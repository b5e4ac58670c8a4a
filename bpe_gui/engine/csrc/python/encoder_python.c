/*
 * encoder_python.c -- `_encode.Encoder`, the Python type around whole-text encoding
 * (merge/encoder.h) and batches on native threads (merge/batch.h), whose state between
 * calls is merge/encoder_pool.h's: arguments in, ids, arrays and spans out. Its Merger is encodemodule.c's (python/encode_python.h), whose
 * module registers the type.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "merge/encoder_pool.h"
#include "python/convert.h"
#include "python/encode_python.h"
#include "util/grow.h"

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
    if (check_preset(preset) < 0)   /* a kind, with a tables slot or not */
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
    int rc = around ? append_ids(sc, PyTuple_GET_ITEM(around, 0), "around[0]: ids before") : 0;
    if (rc == 0) {
        Py_BEGIN_ALLOW_THREADS
        rc = enc_engine_encode(&e->eng, sc, &t, !ordinary);
        Py_END_ALLOW_THREADS
        if (rc < 0)
            encode_error(rc, text);
        else if (!around || append_ids(sc, PyTuple_GET_ITEM(around, 1), "around[1]: ids after") == 0)
            res = as_array ? bpe_py_id_array(sc->ids, sc->n)
                           : bpe_py_id_list_giving_back(&e->merger->ids, &sc->ids, &sc->cap,
                                                        sc->n, ENC_SCRATCH_KEEP / sizeof(uint32_t));
    }
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
    enc_cache_clear(&e->eng.cache);
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

static PyObject *Encoder_scratches(Encoder *e, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(e->eng.pool.n);
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
    {"clear", (PyCFunction)Encoder_clear, METH_NOARGS, "forget every cached word"},
    {"holds", (PyCFunction)Encoder_holds, METH_O,
     "holds(word: bytes) -> whether the shared cache holds the word (its UTF-8, as the "
     "pattern cut it): for tests"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Encoder_getset[] = {
    {"cached_words", (getter)Encoder_cached, NULL, "words in the shared cache", NULL},
    {"idle_scratches", (getter)Encoder_scratches, NULL,
     "per-thread scratch kept between calls (one per thread that encoded at once)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject EncoderType = {
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
