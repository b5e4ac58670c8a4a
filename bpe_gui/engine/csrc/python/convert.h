/*
 * convert.h -- C arrays of ids and offsets into Python objects, the one copy the
 * extensions share: a tuple or a list of ints, an array('I') of ids, and the table of
 * one int object per id that a list of millions of ids is made from. Include it after
 * Python.h; static inline (each extension has its own copy of what it uses).
 */
#ifndef BPE_PY_CONVERT_H
#define BPE_PY_CONVERT_H

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

/* ---- array('I') */
/* ids[0..n) as an array('I'): copied once, straight from the buffer (a memoryview of
 * it; a bytes object in between was a second copy of every id, and a third block of
 * their size). NULL with an exception set. */
static inline PyObject *bpe_py_id_array(const uint32_t *ids, size_t n)
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
    PyObject *arr = PyObject_CallFunction(bpe_py_array_type, "s", "I");
    PyObject *view = arr ? PyMemoryView_FromMemory(n ? (char *)ids : (char *)"",
                                                   (Py_ssize_t)(n * sizeof(uint32_t)),
                                                   PyBUF_READ)
                         : NULL;
    PyObject *r = view ? PyObject_CallMethod(arr, "frombytes", "O", view) : NULL;
    Py_XDECREF(view);
    if (!r)
        Py_CLEAR(arr);
    Py_XDECREF(r);
    return arr;
}

#endif
