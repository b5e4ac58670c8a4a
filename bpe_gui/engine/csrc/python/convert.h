/*
 * convert.h -- the conversions between Python objects and C arrays, the one copy the
 * extensions share. Out: a tuple or a list of ints, an array of ids or offsets, a list of
 * (start, end) spans, the table of one int object per id that a list of millions of ids
 * is made from, a tuple of results made one by one. In: a str's UTF-8 or a bytes-like
 * object's bytes, a buffer of n fixed-size items. Include it after Python.h; static
 * inline (each extension has its own copy of what it uses).
 */
#ifndef BPE_PY_CONVERT_H
#define BPE_PY_CONVERT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* v[0..n) as Python ints, a tuple or a list (`list`); v holds int32_t, int64_t or
 * size_t values (`type`); NULL with an exception set */
enum { BPE_PY_I32, BPE_PY_I64, BPE_PY_SIZE };
static inline PyObject *bpe_py_int_seq(const void *v, size_t n, int type, int list)
{
    PyObject *out = list ? PyList_New((Py_ssize_t)n) : PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        PyObject *x = type == BPE_PY_I32   ? PyLong_FromLong(((const int32_t *)v)[i])
                      : type == BPE_PY_I64 ? PyLong_FromLongLong(((const int64_t *)v)[i])
                                           : PyLong_FromSize_t(((const size_t *)v)[i]);
        if (!x)
            Py_CLEAR(out);
        else if (list)
            PyList_SET_ITEM(out, (Py_ssize_t)i, x);
        else
            PyTuple_SET_ITEM(out, (Py_ssize_t)i, x);
    }
    return out;
}

static inline PyObject *bpe_py_ints(const int32_t *v, size_t n, int list)
{
    return bpe_py_int_seq(v, n, BPE_PY_I32, list);
}

static inline PyObject *bpe_py_ints64(const int64_t *v, size_t n, int list)
{
    return bpe_py_int_seq(v, n, BPE_PY_I64, list);
}

static inline PyObject *bpe_py_sizes(const size_t *v, size_t n)
{
    return bpe_py_int_seq(v, n, BPE_PY_SIZE, 1);
}

/* v[0], v[stride], v[2 * stride]... (n of them) as a list of ints */
static inline PyObject *bpe_py_u32_every(const uint32_t *v, size_t n, size_t stride)
{
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        PyObject *x = PyLong_FromUnsignedLong(v[i * stride]);
        if (!x)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, (Py_ssize_t)i, x);
    }
    return out;
}

/* ---- one int object per id: a long list of ids is a copy of pointers (a text's
 * millions of ids are a few thousand distinct ones), no allocation per item, here or
 * when it is freed */
typedef struct {
    PyObject **objs; /* id -> its int object, or NULL (made at first use) */
    size_t n;
} BpeIdObjs;

/* the int object of id (>= 0), borrowed from the table; NULL with an exception set */
static inline PyObject *bpe_py_id_obj(BpeIdObjs *t, uint32_t id)
{
    if (id >= t->n) {
        size_t cap = t->n ? t->n : 1024;
        while (cap <= id)
            cap *= 2;
        PyObject **p = PyMem_Realloc(t->objs, cap * sizeof(PyObject *));
        if (!p)
            return PyErr_NoMemory();
        memset(p + t->n, 0, (cap - t->n) * sizeof(PyObject *));
        t->objs = p;
        t->n = cap;
    }
    if (!t->objs[id] && !(t->objs[id] = PyLong_FromUnsignedLong(id)))
        return NULL;
    return t->objs[id];
}

/* list[lo..hi) = the int objects of ids[lo..hi); 0, or -1 with an exception set (those
 * items left NULL) */
static inline int bpe_py_fill_ids(BpeIdObjs *t, PyObject *list, const uint32_t *ids, size_t lo,
                           size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        uint32_t id = ids[i];
        PyObject *v = id < t->n ? t->objs[id] : NULL;
        if (!v && !(v = bpe_py_id_obj(t, id)))
            return -1;
        Py_INCREF(v);
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    return 0;
}

/* [ids...] as a list of the table's int objects; NULL with an exception set */
static inline PyObject *bpe_py_id_list(BpeIdObjs *t, const uint32_t *ids, size_t n)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (list && bpe_py_fill_ids(t, list, ids, 0, n) < 0)
        Py_CLEAR(list);
    return list;
}

/* (*ids)[0..n) as a list, their block handed back as the list fills: the list is filled
 * from the end `step` ids at a time and the block shrunk behind (*cap: its room), so the
 * ids and their list (twice their size) are never both whole: a long text's peak. NULL
 * with an exception set. */
static inline PyObject *bpe_py_id_list_giving_back(BpeIdObjs *t, uint32_t **ids, size_t *cap,
                                                   size_t n, size_t step)
{
    if (n <= step)
        return bpe_py_id_list(t, *ids, n);
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t hi = n; hi;) {
        size_t lo = hi > step ? hi - step : 0;
        if (bpe_py_fill_ids(t, list, *ids, lo, hi) < 0) {
            Py_DECREF(list); /* (unfilled items are NULL) */
            return NULL;
        }
        hi = lo;
        uint32_t *p = hi ? (uint32_t *)realloc(*ids, hi * sizeof(uint32_t)) : NULL;
        if (p) { /* (a failed shrink keeps the larger block) */
            *ids = p;
            *cap = hi;
        }
    }
    return list;
}

static inline void bpe_py_id_objs_free(BpeIdObjs *t)
{
    for (size_t i = 0; i < t->n; i++)
        Py_XDECREF(t->objs[i]);
    PyMem_Free(t->objs);
    t->objs = NULL;
    t->n = 0;
}

/* [v...] as a list for one call: a long one (of ints below 4n) shares one int object per
 * value among its items, made for this list alone (a model without a table of its own:
 * an id table of a Merger's lifetime is the one above); NULL with an exception set */
#define BPE_PY_SHARED_MIN 4096
static inline PyObject *bpe_py_ints_shared(const int32_t *v, size_t n)
{
    int32_t hi = -1;
    if (n >= BPE_PY_SHARED_MIN)
        for (size_t i = 0; i < n; i++)
            hi = v[i] > hi ? v[i] : hi;
    if (hi < 0 || (size_t)hi >= 4 * n)
        return bpe_py_ints(v, n, 1);
    BpeIdObjs t = {NULL, 0};
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *x = v[i] >= 0 ? bpe_py_id_obj(&t, (uint32_t)v[i]) : PyLong_FromLong(v[i]);
        if (!x) {
            Py_CLEAR(list);
            break;
        }
        if (v[i] >= 0)
            Py_INCREF(x);
        PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
    bpe_py_id_objs_free(&t);
    return list;
}

/* ---- arrays */
/* bytes [v, v + size) as an array of `typecode` ('I', 'q'...): copied once, straight
 * from the memory (a memoryview of it; a bytes object in between was a second copy of
 * every item, and a third block of their size). NULL with an exception set. */
static inline int bpe_py_array_extend(PyObject *arr, const void *v, size_t size)
{
    PyObject *view = PyMemoryView_FromMemory(size ? (char *)v : (char *)"", (Py_ssize_t)size,
                                             PyBUF_READ);
    PyObject *r = view ? PyObject_CallMethod(arr, "frombytes", "O", view) : NULL;
    Py_XDECREF(view);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static inline PyObject *bpe_py_array(const char *typecode, const void *v, size_t size)
{
    static PyObject *bpe_py_array_type; /* array.array, imported at the first call */
    if (!bpe_py_array_type) {
        PyObject *mod = PyImport_ImportModule("array");
        if (!mod)
            return NULL;
        bpe_py_array_type = PyObject_GetAttrString(mod, "array");
        Py_DECREF(mod);
        if (!bpe_py_array_type)
            return NULL;
    }
    PyObject *arr = PyObject_CallFunction(bpe_py_array_type, "s", typecode);
    if (arr && bpe_py_array_extend(arr, v, size) < 0)
        Py_CLEAR(arr);
    return arr;
}

/* ids[0..n) as an array('I') */
static inline PyObject *bpe_py_id_array(const uint32_t *ids, size_t n)
{
    return bpe_py_array("I", ids, n * sizeof(uint32_t));
}

/* ---- spans */
/* [(st[i], en[i]) ...] as a list of tuples. A token's end is mostly the next one's start,
 * and the tokens of one character's bytes share their span: those objects are shared
 * (most of the time of an encode with offsets is these objects: 132k tokens of Chinese,
 * ~20 ms made one at a time against 4 ms of ids). The pairs, holding only ints, are
 * untracked by the cycle collector at once (as its first pass would), and the list is
 * hidden from it while it fills: the pairs made trigger it every 700, and it would walk
 * the young list each time (quadratic). Make the spans before any other long young list
 * of the same result, for the same reason. NULL with an exception set. */
static inline PyObject *bpe_py_spans(const int64_t *st, const int64_t *en, size_t n)
{
    PyObject *offs = PyList_New((Py_ssize_t)n);
    if (!offs)
        return NULL;
    PyObject_GC_UnTrack(offs);
    PyObject *last = NULL, *last_s = NULL, *last_e = NULL;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (last && st[i] == st[i - 1] && en[i] == en[i - 1]) {
            Py_INCREF(last);
            PyList_SET_ITEM(offs, (Py_ssize_t)i, last);
            continue;
        }
        PyObject *a = last && st[i] == en[i - 1] ? last_e : last && st[i] == st[i - 1] ? last_s
                                                                                      : NULL;
        if (a)
            Py_INCREF(a);
        else
            a = PyLong_FromLongLong(st[i]);
        PyObject *b = en[i] == st[i] && a ? (Py_INCREF(a), a) : PyLong_FromLongLong(en[i]);
        PyObject *pair = a && b ? PyTuple_New(2) : NULL;
        if (!pair) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            bad = 1;
            break;
        }
        PyTuple_SET_ITEM(pair, 0, a);
        PyTuple_SET_ITEM(pair, 1, b);
        PyObject_GC_UnTrack(pair);
        PyList_SET_ITEM(offs, (Py_ssize_t)i, pair);
        last = pair, last_s = a, last_e = b;
    }
    PyObject_GC_Track(offs); /* (tracked again as it was, before any exit) */
    if (bad)
        Py_CLEAR(offs); /* (unfilled items are NULL) */
    return offs;
}

/* [items[idx[i]] ...]: each a new reference to an item of `items` (a list; every idx[i]
 * below its length, checked by the caller); NULL with an exception set */
static inline PyObject *bpe_py_pick(PyObject *items, const uint32_t *idx, size_t n)
{
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        PyObject *x = PyList_GET_ITEM(items, (Py_ssize_t)idx[i]);
        Py_INCREF(x);
        PyList_SET_ITEM(out, (Py_ssize_t)i, x);
    }
    return out;
}

/* ---- results */
/* (x0, ..., x[n-1]), made of n new references, taken (stolen) even when one of them is
 * NULL: then NULL, the exception of the one that failed still set. Saves each caller's
 * "if all made, pack them, else drop those made". */
static inline PyObject *bpe_py_steal_tuple(int n, ...)
{
    PyObject *t = PyTuple_New(n);
    int bad = !t;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        PyObject *x = va_arg(ap, PyObject *);
        if (!x)
            bad = 1;
        if (t)
            PyTuple_SET_ITEM(t, i, x); /* (a NULL item: fine to free) */
        else
            Py_XDECREF(x);
    }
    va_end(ap);
    if (bad)
        Py_CLEAR(t);
    return t;
}

/* ---- input */
/* The bytes of a str (its UTF-8, cached in the str) or of a bytes object (as they are),
 * borrowed from o: 0, or -1 with an exception set (TypeError naming `what`; a lone
 * surrogate: UnicodeEncodeError). */
static inline int bpe_py_str_or_bytes(PyObject *o, const char **p, Py_ssize_t *n,
                                      const char *what)
{
    if (PyBytes_Check(o)) {
        *p = PyBytes_AS_STRING(o);
        *n = PyBytes_GET_SIZE(o);
        return 0;
    }
    if (PyUnicode_Check(o))
        return (*p = PyUnicode_AsUTF8AndSize(o, n)) ? 0 : -1;
    PyErr_Format(PyExc_TypeError, "%s must be str or bytes, not %.80s", what,
                 Py_TYPE(o)->tp_name);
    return -1;
}

/* A text as UTF-8 bytes: a str (its cached UTF-8 form) or any bytes-like object (a
 * buffer held until bpe_py_text_release). */
typedef struct {
    Py_buffer view;
    int has_view;
    const unsigned char *p;
    Py_ssize_t n;
} BpeText;

static inline int bpe_py_text_get(PyObject *o, BpeText *t)
{
    memset(t, 0, sizeof(*t));
    if (PyUnicode_Check(o)) {
        const char *p = PyUnicode_AsUTF8AndSize(o, &t->n);
        if (!p)
            return -1; /* lone surrogates: UnicodeEncodeError */
        t->p = (const unsigned char *)p;
        return 0;
    }
    if (PyObject_GetBuffer(o, &t->view, PyBUF_SIMPLE) < 0)
        return -1;
    t->has_view = 1;
    t->p = (const unsigned char *)t->view.buf;
    t->n = t->view.len;
    return 0;
}

static inline void bpe_py_text_release(BpeText *t)
{
    if (t->has_view)
        PyBuffer_Release(&t->view);
    t->has_view = 0;
}

/* o's buffer, which must hold n items of `item` bytes: 0, or -1 with an exception set
 * (ValueError naming `what`); release it with PyBuffer_Release. */
static inline int bpe_py_buffer_n(PyObject *o, Py_buffer *b, Py_ssize_t item, Py_ssize_t n,
                                  const char *what)
{
    if (PyObject_GetBuffer(o, b, PyBUF_SIMPLE) < 0)
        return -1;
    if (b->len != n * item) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd bytes, got %zd", what, n * item,
                     b->len);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

/* PyBuffer_Release of each buffer that holds one (b->obj set) */
static inline void bpe_py_release(Py_buffer *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
}

/* ---- more input: token ids, integer arrays, byte strings */
/* o as a token id (0 to 2**31 - 2): 0, or -1 with an exception set */
static inline int bpe_py_id(PyObject *o, int32_t *out)
{
    long long v = PyLong_AsLongLong(o); /* (not long: 32 bits on Windows) */
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > INT32_MAX - 1) {
        PyErr_Format(PyExc_ValueError, "token id %lld is out of range (0 to 2**31 - 2)", v);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* the items of fast (a PySequence_Fast result) as token ids into out: 0, or -1 with an
 * exception set */
static inline int bpe_py_ids_in(PyObject *fast, int32_t *out)
{
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++)
        if (bpe_py_id(PySequence_Fast_GET_ITEM(fast, i), &out[i]) < 0)
            return -1;
    return 0;
}

/* Integers as a C array of int32 or int64 (`itemsize` 4 or 8): a 1-d buffer of integers of
 * that size read in place, bytes widened to int32, or any sequence of ints copied. */
typedef struct {
    Py_buffer view;
    int has_view;
    void *owned;
    const void *data;
    Py_ssize_t n;
} BpeIntArr;

static inline void bpe_py_intarr_release(BpeIntArr *x)
{
    if (x->has_view)
        PyBuffer_Release(&x->view);
    x->has_view = 0;
    free(x->owned);
    x->owned = NULL;
}

/* 0, or -1 with an exception set (TypeError or ValueError naming `name`) */
static inline int bpe_py_intarr_get(PyObject *obj, int itemsize, const char *name,
                                    BpeIntArr *out)
{
    memset(out, 0, sizeof(*out));
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &out->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return -1;
        out->has_view = 1;
        const char *fmt = out->view.format ? out->view.format : "B";
        while (*fmt == '@' || *fmt == '=' || *fmt == '<')
            fmt++;
        int one = fmt[0] && !fmt[1];
        if (out->view.ndim <= 1 && out->view.itemsize == itemsize && one &&
            strchr("bBhHiIlLqQnN", fmt[0]) != NULL) {
            out->data = out->view.buf;
            out->n = out->view.len / itemsize;
            return 0;
        }
        if (itemsize == 4 && out->view.itemsize == 1 && one && (fmt[0] == 'B' || fmt[0] == 'c')) {
            /* bytes (e.g. the words of a byte-level table, end to end): widened here */
            Py_ssize_t n = out->view.len;
            int32_t *mem = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
            const unsigned char *src = (const unsigned char *)out->view.buf;
            for (Py_ssize_t i = 0; mem && i < n; i++)
                mem[i] = src[i];
            bpe_py_intarr_release(out);
            if (!mem) {
                PyErr_NoMemory();
                return -1;
            }
            out->owned = mem;
            out->data = mem;
            out->n = n;
            return 0;
        }
        bpe_py_intarr_release(out); /* (another buffer, e.g. array('b'): as a sequence) */
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
        int bad = v == -1 && PyErr_Occurred();
        if (bad && PyErr_ExceptionMatches(PyExc_OverflowError))
            PyErr_Clear();
        else if (bad) {
            Py_DECREF(seq);
            free(mem);
            return -1;
        }
        if (bad || (itemsize == 4 && (v < INT32_MIN || v > INT32_MAX))) {
            Py_DECREF(seq);
            free(mem);
            PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
            return -1;
        }
        if (itemsize == 4)
            ((int32_t *)mem)[i] = (int32_t)v;
        else
            ((int64_t *)mem)[i] = (int64_t)v;
    }
    Py_DECREF(seq);
    out->owned = mem;
    out->data = mem;
    out->n = n;
    return 0;
}

/* A sequence of byte strings as pointers and lengths: bytes or bytearray objects as they
 * are, or str objects' UTF-8 (cached in each str), borrowed from the items, which `seq`
 * holds until bpe_py_bytes_list_release. */
typedef struct {
    PyObject *seq;
    const unsigned char **p;
    size_t *len;
    size_t n;
} BpeBytesList;

static inline void bpe_py_bytes_list_release(BpeBytesList *b)
{
    Py_CLEAR(b->seq);
    free(b->p);
    free(b->len);
    b->p = NULL;
    b->len = NULL;
}

/* strs: the items must be str, else bytes or bytearray. 0, or -1 with an exception set
 * (TypeError `msg` for anything else; a lone surrogate: UnicodeEncodeError) */
static inline int bpe_py_bytes_list_get(PyObject *o, BpeBytesList *b, int strs,
                                        const char *msg)
{
    memset(b, 0, sizeof(*b));
    PyObject *seq = PySequence_Fast(o, "");
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
    b->seq = seq;
    b->n = (size_t)n;
    b->p = (const unsigned char **)malloc((b->n ? b->n : 1) * sizeof(*b->p));
    b->len = (size_t *)malloc((b->n ? b->n : 1) * sizeof(size_t));
    if (seq && (!b->p || !b->len)) {
        bpe_py_bytes_list_release(b);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; seq && i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t len;
        if (strs && PyUnicode_Check(x)) {
            if (!(b->p[i] = (const unsigned char *)PyUnicode_AsUTF8AndSize(x, &len))) {
                bpe_py_bytes_list_release(b);
                return -1;
            }
            b->len[i] = (size_t)len;
        } else if (strs) {
            seq = NULL;
        } else if (PyBytes_Check(x)) {
            b->p[i] = (const unsigned char *)PyBytes_AS_STRING(x);
            b->len[i] = (size_t)PyBytes_GET_SIZE(x);
        } else if (PyByteArray_Check(x)) {
            b->p[i] = (const unsigned char *)PyByteArray_AS_STRING(x);
            b->len[i] = (size_t)PyByteArray_GET_SIZE(x);
        } else {
            seq = NULL;
        }
    }
    if (!seq) {
        bpe_py_bytes_list_release(b);
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, msg);
        return -1;
    }
    return 0;
}

/* A list of (start, end) tuples of ints into st[] and en[] (room for its length): 0, or
 * -1 with an exception set (TypeError naming `what` for an item that is no pair) */
static inline int bpe_py_spans_in(PyObject *list, int64_t *st, int64_t *en, const char *what)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *o = PyList_GET_ITEM(list, i);
        if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 2) {
            PyErr_Format(PyExc_TypeError, "%s: offsets are (start, end) tuples", what);
            return -1;
        }
        st[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(o, 0));
        en[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(o, 1));
        if (PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* ---- the GIL */
/* `call` without the GIL, obj->busy set meanwhile: the guard by which every other call on
 * obj refuses to read what `call` may change or reallocate (set and read with the GIL) */
#define BPE_PY_UNLOCKED(obj, call) \
    do {                           \
        (obj)->busy = 1;           \
        Py_BEGIN_ALLOW_THREADS     \
        call;                      \
        Py_END_ALLOW_THREADS       \
        (obj)->busy = 0;           \
    } while (0)

/* A str as UTF-8 for one call, without keeping a UTF-8 copy in the str: an ASCII str's
 * own characters, any other's encoded into a temporary bytes (owner; release with
 * bpe_py_utf8_release). 0, or -1 with an exception set (TypeError when o is not a str,
 * UnicodeEncodeError at a lone surrogate). */
typedef struct {
    const unsigned char *s;
    size_t n;
    int ascii;
    PyObject *owner; /* the bytes holding s, or NULL */
} BpeUtf8;

static inline int bpe_py_utf8(PyObject *o, BpeUtf8 *u)
{
    u->owner = NULL;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(o) < 0)
        return -1; /* legacy strs before 3.12 */
#endif
    u->ascii = PyUnicode_IS_ASCII(o);
    if (u->ascii) {
        u->s = (const unsigned char *)PyUnicode_DATA(o);
        u->n = (size_t)PyUnicode_GET_LENGTH(o);
        return 0;
    }
    if (!(u->owner = PyUnicode_AsUTF8String(o)))
        return -1;
    u->s = (const unsigned char *)PyBytes_AS_STRING(u->owner);
    u->n = (size_t)PyBytes_GET_SIZE(u->owner);
    return 0;
}

static inline void bpe_py_utf8_release(BpeUtf8 *u)
{
    Py_CLEAR(u->owner);
}

/* [s[0:ends[0]], s[ends[0]:ends[1]], ...] (k pieces) as a list of bytes; NULL with an
 * exception set */
static inline PyObject *bpe_py_bytes_pieces(const unsigned char *s, const size_t *ends, size_t k)
{
    PyObject *list = PyList_New((Py_ssize_t)k);
    for (size_t i = 0, start = 0; list && i < k; start = ends[i++]) {
        PyObject *w = PyBytes_FromStringAndSize((const char *)s + start,
                                                (Py_ssize_t)(ends[i] - start));
        if (!w)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, w);
    }
    return list;
}

/* Each str of a sequence as its characters (PyMem copies of UCS-4; free them with
 * bpe_py_ucs4_free), *n of them, each one character or more: 0, or -1 with an exception
 * set naming `what` (TypeError: not a sequence; ValueError: an item not such a str;
 * nothing to free) */
static inline void bpe_py_ucs4_free(Py_UCS4 **strs, size_t *lens, size_t n)
{
    for (size_t i = 0; strs && i < n; i++)
        PyMem_Free(strs[i]);
    PyMem_Free(strs);
    PyMem_Free(lens);
}

static inline int bpe_py_ucs4_seq(PyObject *given, Py_UCS4 ***strs, size_t **lens, size_t *n,
                                  const char *what)
{
    PyObject *seq = PySequence_Fast(given, "");
    if (!seq) {
        if (PyErr_ExceptionMatches(PyExc_TypeError))
            PyErr_Format(PyExc_TypeError, "%s should be a sequence of str, not %.80s", what,
                         Py_TYPE(given)->tp_name);
        return -1;
    }
    *n = (size_t)PySequence_Fast_GET_SIZE(seq);
    *strs = PyMem_Calloc(*n + 1, sizeof **strs);
    *lens = PyMem_Calloc(*n + 1, sizeof **lens);
    int rc = *strs && *lens ? 0 : (PyErr_NoMemory(), -1);
    for (size_t i = 0; rc == 0 && i < *n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i);
        if (!PyUnicode_Check(s) || PyUnicode_GetLength(s) < 1) {
            PyErr_Format(PyExc_ValueError, "%s: item %zu is %R; each should be a str of one "
                         "character or more", what, i, s);
            rc = -1;
        } else if (!((*strs)[i] = PyUnicode_AsUCS4Copy(s))) {
            rc = -1;
        } else {
            (*lens)[i] = (size_t)PyUnicode_GetLength(s);
        }
    }
    Py_DECREF(seq);
    if (rc < 0) {
        bpe_py_ucs4_free(*strs, *lens, *n);
        *strs = NULL, *lens = NULL;
    }
    return rc;
}

#endif
