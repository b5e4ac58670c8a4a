/*
 * cached_words.h -- the word loop behind encode_words() of _encode.Merger and
 * _pipeline.Model: the ids of each word of a list, from a dict cache or from the
 * extension's own tokenizer (then stored in the cache, which is cleared when it holds
 * cache_limit entries), all in one list. A word is a str (its UTF-8 is merged) or bytes
 * (merged as they are: a byte-level piece cut inside a character). The kind of object is
 * the only flag, so no character of a str means anything but itself, and a str and a
 * bytes word never share a cache entry (they are never equal). Include it after Python.h.
 */
#ifndef BPE_CACHED_WORDS_H
#define BPE_CACHED_WORDS_H

#include "python/convert.h"

/* A new tuple of the ids of one word (its bytes); NULL with an exception set. */
typedef PyObject *(*word_ids_fn)(void *ctx, const char *utf8, Py_ssize_t len);

static PyObject *encode_words_cached(PyObject *words, PyObject *cache,
                                     Py_ssize_t cache_limit, word_ids_fn ids_of, void *ctx)
{
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    /* the dict lookup can run Python code (a str subclass's __hash__ or __eq__) that
     * changes the list: re-read its length every time and hold the word meanwhile */
    PyObject *w = NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(words); k++) {
        w = PyList_GET_ITEM(words, k);
        Py_INCREF(w);
        PyObject *ids = PyDict_GetItemWithError(cache, w); /* borrowed */
        if (ids) {
            Py_INCREF(ids);
        } else {
            if (PyErr_Occurred())
                goto fail;
            Py_ssize_t len;
            const char *utf8;
            if (bpe_py_str_or_bytes(w, &utf8, &len, "encode_words: a word") < 0)
                goto fail;
            ids = ids_of(ctx, utf8, len);
            if (!ids)
                goto fail;
            if (PyDict_GET_SIZE(cache) >= cache_limit)
                PyDict_Clear(cache);
            if (PyDict_SetItem(cache, w, ids) < 0) {
                Py_DECREF(ids);
                goto fail;
            }
        }
        Py_ssize_t n = PyTuple_GET_SIZE(ids);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyList_Append(out, PyTuple_GET_ITEM(ids, i)) < 0) {
                Py_DECREF(ids);
                goto fail;
            }
        }
        Py_DECREF(ids);
        Py_CLEAR(w);
    }
    return out;
fail:
    Py_XDECREF(w);
    Py_DECREF(out);
    return NULL;
}

#endif
