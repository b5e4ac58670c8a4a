/*
 * wordcache_type.c -- _encode.WordCache (see wordcache_type.h): word bytes -> token ids
 * in native memory, one per thread encoding; its methods refuse while encode_text uses it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "python/wordcache_type.h"

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

PyTypeObject WordCacheType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine._encode.WordCache",
    .tp_basicsize = sizeof(WordCache),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Word bytes -> token ids, in native memory (for Merger.encode_text).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordCache_init,
    .tp_dealloc = (destructor)WordCache_dealloc,
    .tp_methods = WordCache_methods,
    .tp_as_sequence = &WordCache_seq,
};

