/*
 * pipe_encode.c -- the ids of a word with an imported model: its first symbols (bytes,
 * or characters with byte fallback and the unknown token, as tokenizers makes them),
 * then the merge engine (merge.h) -- heap merging for long words, so no word is
 * quadratic. Each call merges in scratch of its own: threads can share a Model.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "python/cached_words.h"
#include "imported/pipeline.h"

static inline void add_sym(MergeScratch *x, size_t *n, int32_t id, Py_ssize_t start,
                           Py_ssize_t end) {
    x->sym[*n] = id;
    x->st[*n] = (int32_t)start;
    x->en[*n] = (int32_t)end;
    (*n)++;
}

/* Symbols of a word before merging: HF's merge_word (unknown characters become byte
   fallback tokens, else the unknown token, fused if asked, else nothing). */
static size_t initial_syms(const Model *m, MergeScratch *x, const char *w, Py_ssize_t len) {
    size_t n = 0;
    if (m->kind == KIND_TIKTOKEN || m->byte_level) {
        for (Py_ssize_t i = 0; i < len; i++) {
            int32_t id = m->unit[(unsigned char)w[i]];
            if (id != NONE_ID)
                add_sym(x, &n, id, i, i + 1);
            else if (m->unk_id != NONE_ID) {
                if (m->fuse_unk && n && x->sym[n - 1] == m->unk_id && x->en[n - 1] == i)
                    x->en[n - 1] = (int32_t)(i + 1);
                else
                    add_sym(x, &n, m->unk_id, i, i + 1);
            }
        }
        return n;
    }
    int32_t unk_start = -1, unk_end = -1;
    for (Py_ssize_t i = 0; i < len;) {
        unsigned char c = (unsigned char)w[i];
        Py_ssize_t cl = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (i + cl > len) cl = len - i;
        int32_t id = find_key(m, w + i, (size_t)cl);
        if (id != NONE_ID) {
            if (unk_start >= 0) {
                add_sym(x, &n, m->unk_id, unk_start, unk_end);
                unk_start = -1;
            }
            add_sym(x, &n, id, i, i + cl);
        } else {
            int fell_back = 0;
            if (m->byte_fallback) {
                fell_back = 1;
                for (Py_ssize_t j = 0; j < cl; j++)
                    if (m->fb[(unsigned char)w[i + j]] == NONE_ID) fell_back = 0;
                if (fell_back)  /* tokenizers adds these before a pending unknown token */
                    for (Py_ssize_t j = 0; j < cl; j++)
                        add_sym(x, &n, m->fb[(unsigned char)w[i + j]], i + j, i + j + 1);
            }
            if (!fell_back && m->unk_id != NONE_ID) {
                if (unk_start >= 0 && m->fuse_unk) {
                    unk_end = (int32_t)(i + cl);
                } else {
                    if (unk_start >= 0) add_sym(x, &n, m->unk_id, unk_start, unk_end);
                    unk_start = (int32_t)i;
                    unk_end = (int32_t)(i + cl);
                }
            }
        }
        i += cl;
    }
    if (unk_start >= 0) add_sym(x, &n, m->unk_id, unk_start, unk_end);
    return n;
}

/* Tokens of one word into x->sym (byte spans in x->st, x->en); returns their number, or
   (size_t)-1 with an exception set. */
static size_t tokenize_utf8(const Model *m, MergeScratch *x, const char *w, Py_ssize_t len) {
    if (len == 0) return 0;
    if (len > INT32_MAX / 4) { /* symbol offsets are int32 */
        PyErr_SetString(PyExc_ValueError, "a word of 512 MiB or more");
        return (size_t)-1;
    }
    if (ms_reserve(x, (size_t)len + 1) < 0) {
        PyErr_NoMemory();
        return (size_t)-1;
    }
    const unsigned char *u = (const unsigned char *)w;
    int bytes = m->kind == KIND_TIKTOKEN || m->byte_level;
    if (bytes && m->mt.bytes_ok) /* every byte has a token: the engine's byte path */
        return mt_encode_bytes(&m->mt, x, u, (size_t)len, NO_RANK, 1);
    if (m->mt.whole_words && (size_t)len <= m->max_key) {
        int32_t id = find_key(m, w, (size_t)len);
        if (id != NONE_ID) {
            size_t n = 0;
            add_sym(x, &n, id, 0, len);
            return n;
        }
    }
    size_t n = initial_syms(m, x, w, len);
    return mt_merge(&m->mt, x, n, NO_RANK, u, MT_SPANS);
}

static PyObject *ids_tuple(const MergeScratch *x, size_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(x->sym[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
    }
    return t;
}

static PyObject *spans_of(const MergeScratch *x, size_t n) {
    PyObject *ids = ids_tuple(x, n), *starts = PyTuple_New((Py_ssize_t)n),
             *ends = PyTuple_New((Py_ssize_t)n);
    if (!ids || !starts || !ends) goto fail;
    for (size_t i = 0; i < n; i++) {
        PyObject *a = PyLong_FromLong(x->st[i]), *b = PyLong_FromLong(x->en[i]);
        if (!a || !b) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        PyTuple_SET_ITEM(starts, (Py_ssize_t)i, a);
        PyTuple_SET_ITEM(ends, (Py_ssize_t)i, b);
    }
    return Py_BuildValue("(NNN)", ids, starts, ends);
fail:
    Py_XDECREF(ids);
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    return NULL;
}

PyObject *Model_tokenize(Model *m, PyObject *args) {
    PyObject *word;
    if (!PyArg_ParseTuple(args, "U", &word)) return NULL;
    Py_ssize_t len;
    const char *w = PyUnicode_AsUTF8AndSize(word, &len);
    if (!w) return NULL;
    MergeScratch x = {0};
    size_t n = tokenize_utf8(m, &x, w, len);
    PyObject *r = n == (size_t)-1 ? NULL : spans_of(&x, n);
    ms_free(&x);
    return r;
}

typedef struct {
    const Model *m;
    MergeScratch x;
} WordCtx;

/* one word for encode_words: the model's ids of its bytes */
static PyObject *word_ids(void *ctx, const char *utf8, Py_ssize_t len) {
    WordCtx *c = ctx;
    size_t n = tokenize_utf8(c->m, &c->x, utf8, len);
    return n == (size_t)-1 ? NULL : ids_tuple(&c->x, n);
}

PyObject *Model_encode_words(Model *m, PyObject *args) {
    PyObject *words, *cache;
    Py_ssize_t cache_limit;
    if (!PyArg_ParseTuple(args, "O!O!n", &PyList_Type, &words, &PyDict_Type, &cache,
                          &cache_limit))
        return NULL;
    WordCtx ctx = {m, {0}};
    PyObject *out = encode_words_cached(words, cache, cache_limit, word_ids, &ctx);
    ms_free(&ctx.x);
    return out;
}

/* TIKTOKEN: the merge that makes each multi-byte token, in rank order -- tiktoken's own
   merge loop on the token's bytes with only the ranks below it must end in two parts. */
PyObject *Model_rebuild(Model *m, PyObject *noargs) {
    (void)noargs;
    PyObject *stray = PyList_New(0);
    if (!stray) return NULL;
    if (m->kind != KIND_TIKTOKEN || m->n_merges) return stray;
    MergeScratch x = {0};
    for (Py_ssize_t id = 0; id < m->n_ids; id++) {
        int32_t e = m->first_entry[id];
        if (e < 0 || m->entries[e].len < 2) continue;
        const Entry *en = &m->entries[e];
        const unsigned char *w = (const unsigned char *)m->arena + en->off;
        if (ms_reserve(&x, (size_t)en->len) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        size_t n = 0;
        for (int32_t i = 0; i < en->len; i++) add_sym(&x, &n, m->unit[w[i]], i, i + 1);
        n = mt_merge(&m->mt, &x, n, (int32_t)id, w, MT_SPANS | MT_RAW);
        if (n == 2 && x.sym[0] != NONE_ID && x.sym[1] != NONE_ID) {
            if (push_merge(m, x.sym[0], x.sym[1], (int32_t)id) < 0) goto fail;
        } else {
            PyObject *v = PyLong_FromSsize_t(id);
            if (!v || PyList_Append(stray, v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
    }
    ms_free(&x);
    return stray;
fail:
    ms_free(&x);
    Py_DECREF(stray);
    return NULL;
}

static void table_capsule_free(PyObject *cap) {
    Py_XDECREF((PyObject *)PyCapsule_GetContext(cap));
}

/* The merge table as a capsule for _encode.Merger.wrap (same merge.h on both sides); the
   capsule keeps the model alive. */
PyObject *Model_merge_table(Model *m, PyObject *noargs) {
    (void)noargs;
    PyObject *cap = PyCapsule_New(&m->mt, "bpe_gui.merge_table", table_capsule_free);
    if (!cap) return NULL;
    if (PyCapsule_SetContext(cap, m) < 0) {
        Py_DECREF(cap);
        return NULL;
    }
    Py_INCREF(m);
    return cap;
}
