/*
 * bpe_gui.engine._encode -- the hot loop of Tokenizer.encode, in C.
 *
 * Python API
 * ----------
 *   Merger(byte_ids)            byte_ids: 256 ints, the token id of each single byte
 *   add(a, b, rank, new_id)     register a merge; the first rank given for (a, b) wins
 *   merge(ids, limit) -> tuple  apply merges of rank < limit to a list of ids
 *   encode_words(words, cache, limit, cache_limit) -> list[int]
 *       words: list of str (pre-tokens); cache: dict str -> tuple of ids, filled on
 *       misses and cleared when it reaches cache_limit entries.
 *
 * Merging follows training exactly: repeatedly take the pair with the lowest rank and
 * replace it everywhere in the word, left to right, without overlaps.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t key; /* ((a << 32) | b) + 1; 0 marks an empty slot */
    int32_t rank;
    int32_t new_id;
} Entry;

typedef struct {
    PyObject_HEAD
    Entry *tab;
    size_t cap; /* power of two */
    size_t n;
    int32_t byte_ids[256];
    int32_t *buf; /* scratch: symbols of the word being merged */
    int32_t *rk;  /* scratch: rank of the pair starting at each symbol */
    size_t buf_cap;
} Merger;

static inline size_t slot_of(uint64_t key, size_t cap) {
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static int grow(Merger *m) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    Entry *tab = PyMem_Calloc(cap, sizeof(Entry));
    if (!tab) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->tab[i].key) continue;
        size_t s = slot_of(m->tab[i].key, cap);
        while (tab[s].key) s = (s + 1) & (cap - 1);
        tab[s] = m->tab[i];
    }
    PyMem_Free(m->tab);
    m->tab = tab;
    m->cap = cap;
    return 0;
}

static inline const Entry *find(const Merger *m, int32_t a, int32_t b) {
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    for (;;) {
        const Entry *e = &m->tab[s];
        if (e->key == key) return e;
        if (!e->key) return NULL;
        s = (s + 1) & (m->cap - 1);
    }
}

static int reserve(Merger *m, size_t n) {
    if (n <= m->buf_cap) return 0;
    size_t cap = m->buf_cap ? m->buf_cap : 64;
    while (cap < n) cap *= 2;
    int32_t *buf = PyMem_Realloc(m->buf, cap * sizeof(int32_t));
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    m->buf = buf;
    int32_t *rk = PyMem_Realloc(m->rk, cap * sizeof(int32_t));
    if (!rk) {
        PyErr_NoMemory();
        return -1;
    }
    m->rk = rk;
    m->buf_cap = cap;
    return 0;
}

/* Merge m->buf[0..n) in place; returns the new length. */
static size_t merge_buf(Merger *m, size_t n, int32_t limit) {
    int32_t *s = m->buf, *rk = m->rk;
    if (n < 2) return n;
    for (size_t i = 0; i + 1 < n; i++) {
        const Entry *e = find(m, s[i], s[i + 1]);
        rk[i] = (e && e->rank < limit) ? e->rank : INT32_MAX;
    }
    for (;;) {
        int32_t best = INT32_MAX;
        size_t at = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (rk[i] < best) {
                best = rk[i];
                at = i;
            }
        if (best == INT32_MAX) break;
        int32_t a = s[at], b = s[at + 1];
        int32_t new_id = find(m, a, b)->new_id;
        /* every occurrence from the first one on, left to right, no overlaps */
        size_t w = at, i = at;
        while (i < n) {
            if (i + 1 < n && s[i] == a && s[i + 1] == b) {
                s[w++] = new_id;
                i += 2;
            } else {
                s[w++] = s[i++];
            }
        }
        n = w;
        if (n < 2) break;
        /* ranks change only around the merged symbols; recomputing from the first
           merge on keeps this simple and is still linear per round */
        for (size_t j = at ? at - 1 : 0; j + 1 < n; j++) {
            const Entry *e = find(m, s[j], s[j + 1]);
            rk[j] = (e && e->rank < limit) ? e->rank : INT32_MAX;
        }
    }
    return n;
}

static PyObject *tuple_of(const int32_t *s, size_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t) return NULL;
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

/* ---- methods ---------------------------------------------------------------- */

static int Merger_init(Merger *m, PyObject *args, PyObject *kw) {
    PyObject *ids;
    static char *kwlist[] = {"byte_ids", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &ids)) return -1;
    PyObject *seq = PySequence_Fast(ids, "byte_ids must be a sequence of 256 ints");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 256) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "byte_ids must have 256 entries");
        return -1;
    }
    for (int i = 0; i < 256; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        m->byte_ids[i] = (int32_t)v;
    }
    Py_DECREF(seq);
    if (!m->tab && grow(m) < 0) return -1;
    return 0;
}

static void Merger_dealloc(Merger *m) {
    PyMem_Free(m->tab);
    PyMem_Free(m->buf);
    PyMem_Free(m->rk);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Merger_add(Merger *m, PyObject *args) {
    int a, b, rank, new_id;
    if (!PyArg_ParseTuple(args, "iiii", &a, &b, &rank, &new_id)) return NULL;
    if (!m->tab) {
        PyErr_SetString(PyExc_RuntimeError, "Merger not initialised");
        return NULL;
    }
    if (find(m, a, b)) Py_RETURN_FALSE;
    if (2 * (m->n + 1) > m->cap && grow(m) < 0) return NULL;
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    while (m->tab[s].key) s = (s + 1) & (m->cap - 1);
    m->tab[s].key = key;
    m->tab[s].rank = rank;
    m->tab[s].new_id = new_id;
    m->n++;
    Py_RETURN_TRUE;
}

static PyObject *Merger_merge(Merger *m, PyObject *args) {
    PyObject *ids;
    int limit;
    if (!PyArg_ParseTuple(args, "Oi", &ids, &limit)) return NULL;
    PyObject *seq = PySequence_Fast(ids, "ids must be a sequence of ints");
    if (!seq) return NULL;
    size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
    if (reserve(m, n) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        m->buf[i] = (int32_t)v;
    }
    Py_DECREF(seq);
    n = merge_buf(m, n, limit);
    return tuple_of(m->buf, n);
}

static PyObject *Merger_encode_words(Merger *m, PyObject *args) {
    PyObject *words, *cache;
    int limit;
    Py_ssize_t cache_limit;
    if (!PyArg_ParseTuple(args, "O!O!in", &PyList_Type, &words, &PyDict_Type, &cache, &limit,
                          &cache_limit))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t nw = PyList_GET_SIZE(words);
    for (Py_ssize_t k = 0; k < nw; k++) {
        PyObject *w = PyList_GET_ITEM(words, k);
        PyObject *ids = PyDict_GetItemWithError(cache, w); /* borrowed */
        if (ids) {
            Py_INCREF(ids);
        } else {
            if (PyErr_Occurred()) goto fail;
            Py_ssize_t len;
            const char *utf8 = PyUnicode_AsUTF8AndSize(w, &len);
            if (!utf8) goto fail;
            if (reserve(m, (size_t)len) < 0) goto fail;
            for (Py_ssize_t i = 0; i < len; i++) m->buf[i] = m->byte_ids[(unsigned char)utf8[i]];
            size_t n = merge_buf(m, (size_t)len, limit);
            ids = tuple_of(m->buf, n);
            if (!ids) goto fail;
            if (PyDict_GET_SIZE(cache) >= cache_limit) PyDict_Clear(cache);
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
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef Merger_methods[] = {
    {"add", (PyCFunction)Merger_add, METH_VARARGS,
     "add(a, b, rank, new_id) -> bool: register a merge (False if the pair is known)"},
    {"merge", (PyCFunction)Merger_merge, METH_VARARGS,
     "merge(ids, limit) -> tuple: apply the merges of rank < limit"},
    {"encode_words", (PyCFunction)Merger_encode_words, METH_VARARGS,
     "encode_words(words, cache, limit, cache_limit) -> list of ids"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Merger_len(Merger *m, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(m->n);
}

static PyGetSetDef Merger_getset[] = {
    {"n_merges", (getter)Merger_len, NULL, "number of distinct merge pairs", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject MergerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine._encode.Merger",
    .tp_basicsize = sizeof(Merger),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Merge table for byte-level BPE encoding.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Merger_init,
    .tp_dealloc = (destructor)Merger_dealloc,
    .tp_methods = Merger_methods,
    .tp_getset = Merger_getset,
};

static struct PyModuleDef encode_module = {
    PyModuleDef_HEAD_INIT, "_encode", "The hot loop of Tokenizer.encode.", -1, NULL,
};

PyMODINIT_FUNC PyInit__encode(void) {
    if (PyType_Ready(&MergerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&encode_module);
    if (!m) return NULL;
    Py_INCREF(&MergerType);
    if (PyModule_AddObject(m, "Merger", (PyObject *)&MergerType) < 0) {
        Py_DECREF(&MergerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
