/*
 * bpe_gui.engine.tokenizers.imported._pipeline -- the tables of an imported tokenizer, built
 * and run in C (imported/pipeline.h tells how). This file, pipeline_spm.c (the SentencePiece
 * calls and the Charsmap type) and pipeline_hf.c (from_hf, which reads the dict and list
 * json made; pipeline_python.h what they share) are the only ones of _pipeline that know
 * Python: arguments in, the Model type around a PipeModel, results and errors out.
 *
 * The Python API, each call's arguments, types and results: _pipeline.pyi beside the module
 * (tests/engine/test_stubs.py holds the two together). The C each call reaches:
 *   from_hf_text, from_tiktoken, from_gguf: imported/pipe_load_{hf,tiktoken,gguf}.c, a
 *       problem as (where, index, message), worded by pipe_problem_words (pipe_tables.c)
 *   gguf_walk, gguf_strings, gguf_offsets: GGUF string arrays read in place
 *   keys, tables, tokenize, encode_words, rebuild: pipe_tables.c, pipe_encode.c
 *   from_spm*, spm_*, encode_cut, Charsmap: pipe_load_spm.c, pipe_spm.c, charsmap.c
 *   merge_table: the merge table (merge.h) as a capsule for _encode.Merger.wrap
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <structmember.h>
#include <string.h>

#include "imported/pipeline.h"
#include "python/cached_words.h"
#include "python/convert.h"
#include "python/pipeline_python.h"
#include "util/simd.h"
#include "python/merge_strategies.h"

/* The exception of a PIPE_* error code; NULL. */
PyObject *pipe_error(const PipeModel *pm, int rc) {
    if (rc == PIPE_INVALID)
        PyErr_SetString(PyExc_ValueError, pm->error);
    else
        PyErr_NoMemory();
    return NULL;
}

Model *new_model(int kind) {
    Model *m = (Model *)ModelType.tp_alloc(&ModelType, 0);
    if (!m) return NULL;
    pipe_init(&m->pm, kind);
    return m;
}

/* ---- loading ------------------------------------------------------------------------ */

/* (m, (where, index, msg)): the model as far as it was loaded, and what stopped it. */
PyObject *problem(Model *m, const char *where, Py_ssize_t index, PyObject *msg) {
    if (!msg) {
        Py_DECREF(m);
        return NULL;
    }
    return Py_BuildValue("(N(snN))", (PyObject *)m, where, index, msg);
}

/* A loader's problem in words (imported/pipe_tables.c's pipe_problem_words, the spans it
   quotes as Python's repr of them), with the model. */
static PyObject *word_problem(Model *m, PipeProblem *pr) {
    char fmt[256];
    int arg[3];
    PyObject *q[3] = {NULL, NULL, NULL}, *msg = NULL;
    int k = pipe_problem_words(pr, fmt, sizeof fmt, arg), made = 0;
    for (; made < k; made++) {
        const char *p = pr->span[arg[made] & 3];
        Py_ssize_t n = (Py_ssize_t)pr->span_len[arg[made] & 3];
        q[made] = arg[made] & PP_AS_TEXT ? PyUnicode_DecodeUTF8(p, n, "replace")
                                         : PyBytes_FromStringAndSize(p, n);
        if (!q[made]) break;
    }
    if (k < 0)
        PyErr_SetString(PyExc_SystemError, "unknown problem");
    else if (made == k)
        msg = PyUnicode_FromFormat(fmt, q[0], q[1], q[2]);
    for (int j = 0; j < 3; j++) Py_XDECREF(q[j]);
    const char *where = pr->where;
    Py_ssize_t index = pr->index;
    pipe_problem_free(pr);
    return problem(m, where, index, msg);
}

/* A loader's answer (rc: 0 loaded, 1 a problem, or an error): (m, None), (m, problem),
   or NULL with the exception (m released). */
static PyObject *loaded(Model *m, int rc, PipeProblem *pr) {
    if (rc == 1) return word_problem(m, pr);
    if (rc == 0) return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
    pipe_error(&m->pm, rc);
    Py_DECREF(m);
    return NULL;
}

/* from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) or None
   (None: something this reader does not take; use json and from_hf instead). */
static PyObject *Model_from_hf_text(PyObject *cls, PyObject *args) {
    Py_buffer data;
    Py_ssize_t vs, ve, ms, me;
    int byte_level;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*(nn)(nn)p", &data, &vs, &ve, &ms, &me, &byte_level))
        return NULL;
    Model *m = new_model(KIND_HF);
    if (!m) {
        PyBuffer_Release(&data);
        return NULL;
    }
    PipeProblem pr;
    int rc = pipe_load_hf_text(&m->pm, data.buf, vs, ve, ms, me, byte_level, &pr);
    PyBuffer_Release(&data); /* (the problem's spans are copies) */
    if (rc != 2) return loaded(m, rc, &pr);
    Py_DECREF(m);
    Py_RETURN_NONE;
}

/* ---- GGUF string arrays (imported/pipe_load_gguf.c) ------------------------------- */

/* gguf_walk(buf, pos, i, count, big) -> (status, pos, i, claim): see gguf_walk_strings. */
static PyObject *Model_gguf_walk(PyObject *cls, PyObject *args) {
    Py_buffer b;
    Py_ssize_t pos;
    unsigned long long i, count;
    int big;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*nKKp", &b, &pos, &i, &count, &big)) return NULL;
    size_t p = pos < 0 ? 0 : (size_t)pos;
    uint64_t k = i, claim = 0;
    int st = gguf_walk_strings(b.buf, (size_t)b.len, &p, &k, count, big, &claim);
    PyBuffer_Release(&b);
    return Py_BuildValue("(inKK)", st, (Py_ssize_t)p, (unsigned long long)k,
                         (unsigned long long)claim);
}

/* gguf_strings(buf, start, count, big) -> list[str] (bytes not UTF-8: surrogateescape) */
static PyObject *Model_gguf_strings(PyObject *cls, PyObject *args) {
    Py_buffer b;
    Py_ssize_t start, count;
    int big;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*nnp", &b, &start, &count, &big)) return NULL;
    const char **p;
    size_t *n;
    char error[192];
    PyObject *out = NULL;
    int rc = gguf_spans(b.buf, (size_t)b.len, start, count, big, &p, &n, error, sizeof error,
                        "gguf_strings");
    if (rc == PIPE_INVALID) PyErr_SetString(PyExc_ValueError, error);
    else if (rc < 0) PyErr_NoMemory();
    else out = PyList_New(count);
    for (Py_ssize_t k = 0; out && k < count; k++) {
        PyObject *s = PyUnicode_DecodeUTF8(p[k], (Py_ssize_t)n[k], "surrogateescape");
        if (!s) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, s);
    }
    if (rc == 0) free(p), free(n);
    PyBuffer_Release(&b);
    return out;
}

/* gguf_offsets(buf, start, count, big) -> bytes: count + 1 native uint64 offsets, each
   string's length field (the last: the array's end) */
static PyObject *Model_gguf_offsets(PyObject *cls, PyObject *args) {
    Py_buffer b;
    Py_ssize_t start, count;
    int big;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*nnp", &b, &start, &count, &big)) return NULL;
    char error[192];
    int rc = gguf_count_fits((size_t)b.len, count, error, sizeof error, "gguf_offsets");
    PyObject *out = rc < 0 ? NULL : PyBytes_FromStringAndSize(NULL, (count + 1) * 8);
    if (out && (rc = gguf_string_offsets(b.buf, (size_t)b.len, start, (size_t)count, big,
                                         (uint64_t *)PyBytes_AS_STRING(out), error,
                                         sizeof error)) < 0)
        Py_CLEAR(out);
    if (rc < 0) PyErr_SetString(PyExc_ValueError, error);
    PyBuffer_Release(&b);
    return out;
}

/* from_gguf(buf, (tokens start, count), (merges start, count) | None, big, want,
   byte_level=True) -> (Model, problem, {text: id} of the texts in want that are tokens) */
static PyObject *Model_from_gguf(PyObject *cls, PyObject *args) {
    Py_buffer b;
    Py_ssize_t ts, tn, ms = 0, mn = 0;
    PyObject *mspan, *want;
    int big, byte_level = 1;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*(nn)OpO!|p", &b, &ts, &tn, &mspan, &big, &PyList_Type,
                          &want, &byte_level))
        return NULL;
    PyObject *r = NULL, *found = NULL;
    BpeBytesList wl = {0};
    size_t nw = (size_t)PyList_GET_SIZE(want);
    int32_t *wid = NULL;
    Model *m = NULL;
    if ((mspan != Py_None && !PyArg_ParseTuple(mspan, "nn", &ms, &mn)) ||
        bpe_py_bytes_list_get(want, &wl, 1, "from_gguf: want must be a list of str") < 0)
        goto done;
    if (!(wid = PyMem_Malloc((nw ? nw : 1) * sizeof(int32_t)))) {
        PyErr_NoMemory();
        goto done;
    }
    if (!(m = new_model(KIND_HF))) goto done;
    PipeProblem pr;
    int rc = pipe_load_gguf_buf(&m->pm, b.buf, (size_t)b.len, ts, tn, ms, mn, big, byte_level,
                                (const char *const *)wl.p, wl.len, nw, wid, &pr);
    if (rc < 0) {
        pipe_error(&m->pm, rc);
    } else if (rc == 1) {
        r = word_problem(m, &pr); /* (takes m) */
        m = NULL;
        if (r) Py_SETREF(r, Py_BuildValue("(OO{})", PyTuple_GET_ITEM(r, 0), PyTuple_GET_ITEM(r, 1)));
    } else if ((found = PyDict_New())) {
        for (size_t k = 0; found && k < nw; k++) {
            PyObject *id = wid[k] == NONE_ID ? NULL : PyLong_FromLong(wid[k]);
            if (wid[k] != NONE_ID && (!id || PyDict_SetItem(found, PyList_GET_ITEM(want, k), id) < 0))
                Py_CLEAR(found);
            Py_XDECREF(id);
        }
        r = found ? Py_BuildValue("(OOO)", (PyObject *)m, Py_None, found) : NULL;
    }
done:
    Py_XDECREF(found);
    Py_XDECREF((PyObject *)m);
    bpe_py_bytes_list_release(&wl);
    PyMem_Free(wid);
    PyBuffer_Release(&b);
    return r;
}

/* from_tiktoken(data) -> (Model, problem) */
static PyObject *Model_from_tiktoken(PyObject *cls, PyObject *args) {
    Py_buffer data;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    Model *m = new_model(KIND_TIKTOKEN);
    if (!m) {
        PyBuffer_Release(&data);
        return NULL;
    }
    PipeProblem pr;
    int rc = pipe_load_tiktoken(&m->pm, data.buf, (size_t)data.len, &pr);
    PyObject *r = loaded(m, rc, &pr); /* (worded before the buffer goes: a span may point into it) */
    PyBuffer_Release(&data);
    return r;
}

/* Spans (start, end) of model.vocab and model.merges in a tokenizer.json, or None. */
static PyObject *py_find_model_tables(PyObject *mod, PyObject *args) {
    Py_buffer data;
    (void)mod;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    ptrdiff_t spans[4];
    int found = find_model_tables(data.buf, (size_t)data.len, spans);
    PyBuffer_Release(&data);
    if (!found) Py_RETURN_NONE;
    return Py_BuildValue("((nn)(nn))", (Py_ssize_t)spans[0], (Py_ssize_t)spans[1],
                         (Py_ssize_t)spans[2], (Py_ssize_t)spans[3]);
}

/* ---- keys ---------------------------------------------------------------------------- */

/* The key of an id as the file spells it (ByteLevel keys in GPT-2's alphabet). */
static PyObject *Model_key_text(Model *self, PyObject *args) {
    Py_ssize_t id;
    if (!PyArg_ParseTuple(args, "n", &id)) return NULL;
    size_t n;
    if (!pipe_key(&self->pm, id, &n)) Py_RETURN_NONE;
    char *p = key_text(&self->pm, id, &n);
    if (!p) return PyErr_NoMemory();
    PyObject *r = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "replace");
    free(p);
    return r;
}

/* The id of a key given as the file spells it, or -1. */
static PyObject *Model_text_id(Model *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text)) return NULL;
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(text, &n);
    if (!p) return NULL;
    int32_t id;
    if (text_id(&self->pm, p, (size_t)n, &id) < 0) return PyErr_NoMemory();
    return PyLong_FromLong(id);
}

/* ---- configuration and tables ----------------------------------------------------- */

static PyObject *Model_configure(Model *self, PyObject *args) {
    int ignore_merges, byte_fallback, fuse_unk, unk_id;
    if (!PyArg_ParseTuple(args, "ppip", &ignore_merges, &byte_fallback, &unk_id, &fuse_unk))
        return NULL;
    pipe_configure(&self->pm, ignore_merges, byte_fallback, unk_id, fuse_unk);
    ms_free(&self->x);
    Py_RETURN_NONE;
}

static PyObject *Model_set_end_of_word_suffix(Model *self, PyObject *args) {
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    int rc = pipe_set_suffix(&self->pm, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    ms_free(&self->x);
    if (rc < 0) {
        PyErr_SetString(PyExc_ValueError, self->pm.error);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Model_tables(Model *self, PyObject *args) {
    const PipeModel *m = &self->pm;
    PyObject *rep;
    int byte_fallback;
    if (!PyArg_ParseTuple(args, "Op", &rep, &byte_fallback)) return NULL;
    Py_ssize_t rep_len = 0;
    const char *rp = NULL;
    if (rep != Py_None) {
        rp = PyUnicode_AsUTF8AndSize(rep, &rep_len);
        if (!rp) return NULL;
    }
    char *bytes;
    size_t *off, k;
    int32_t *ids;
    if (pipe_shown_all(m, rp, rep_len, byte_fallback, &bytes, &off, &ids, &k) < 0)
        return PyErr_NoMemory();
    PyObject *vocab = PyDict_New(), *t2i = PyDict_New();
    for (size_t j = 0; vocab && t2i && j < k; j++) {
        PyObject *b = PyBytes_FromStringAndSize(bytes + off[j], (Py_ssize_t)(off[j + 1] - off[j]));
        PyObject *key = PyLong_FromLong(ids[j]);
        if (!b || !key || PyDict_SetItem(vocab, key, b) < 0 || !PyDict_SetDefault(t2i, b, key))
            Py_CLEAR(vocab);
        Py_XDECREF(b);
        Py_XDECREF(key);
    }
    free(bytes), free(off), free(ids);
    if (vocab && t2i) return Py_BuildValue("(NN)", vocab, t2i);
    Py_XDECREF(vocab);
    Py_XDECREF(t2i);
    return NULL;
}

static PyObject *Model_id_of(Model *self, PyObject *args) {
    const char *p;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y#", &p, &n)) return NULL;
    return PyLong_FromLong(find_key(&self->pm, p, (size_t)n));
}

static PyObject *Model_key(Model *self, PyObject *args) {
    Py_ssize_t id;
    size_t n;
    if (!PyArg_ParseTuple(args, "n", &id)) return NULL;
    const char *p = pipe_key(&self->pm, id, &n);
    if (!p) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(p, (Py_ssize_t)n);
}

static PyObject *Model_merge(Model *self, PyObject *args) {
    const PipeModel *m = &self->pm;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n", &k)) return NULL;
    if (k < 0 || k >= m->n_merges) {
        PyErr_SetString(PyExc_IndexError, "merge index out of range");
        return NULL;
    }
    return Py_BuildValue("(iii)", m->merge_a[k], m->merge_b[k], m->merge_new[k]);
}

/* ---- encoding ------------------------------------------------------------------------ */

/* The exception of a failed pipe_tokenize; NULL. */
PyObject *tokenize_error(int err) {
    if (err == PIPE_WORD_TOO_LONG)
        PyErr_SetString(PyExc_ValueError, "a word of 512 MiB or more");
    else
        PyErr_NoMemory();
    return NULL;
}

/* (ids, starts, ends) of a word: pipe_tokenize's (in x) or spm_tokenize's (in o) */
static PyObject *spans_of(const MergeScratch *x, const SpmOut *o, size_t n) {
    if (o)
        return bpe_py_steal_tuple(3, bpe_py_ints(o->ids, n, 0), bpe_py_ints64(o->st, n, 0),
                                  bpe_py_ints64(o->en, n, 0));
    return bpe_py_steal_tuple(3, bpe_py_ints(x->sym, n, 0), bpe_py_ints(x->st, n, 0),
                              bpe_py_ints(x->en, n, 0));
}

#define TOKENIZE_KEEP ((size_t)1 << 16) /* symbols whose arrays tokenize keeps */

/* a word's ids by its model's merge (pipe_word); spans: (ids, starts, ends) */
static PyObject *word_tuple(const PipeModel *m, MergeScratch *x, const char *w, Py_ssize_t len,
                            int spans) {
    SpmOut o = {0};
    const int32_t *ids;
    int err;
    size_t n = pipe_word(m, x, &o, w, (size_t)len, &ids, &err);
    PyObject *r = n == (size_t)-1 ? tokenize_error(err)
                  : !spans        ? bpe_py_ints(ids, n, 0)
                                  : spans_of(x, m->kind == KIND_SPM ? &o : NULL, n);
    spm_out_free(&o);
    return r;
}

/* tokenize(word): a str (its UTF-8) or bytes (as they are: see cached_words.h) */
static PyObject *Model_tokenize(Model *self, PyObject *args) {
    PyObject *word;
    if (!PyArg_ParseTuple(args, "O", &word)) return NULL;
    Py_ssize_t len;
    const char *w;
    if (bpe_py_str_or_bytes(word, &w, &len, "tokenize(): the word") < 0) return NULL;
    PyObject *r = word_tuple(&self->pm, &self->x, w, len, 1);
    if (self->x.cap > TOKENIZE_KEEP) /* a giant word's arrays: given back (the caches stay) */
        ms_trim(&self->x);
    return r;
}

typedef struct {
    const PipeModel *m;
    MergeScratch x;
} WordCtx;

/* one word for encode_words: the model's ids of its bytes */
static PyObject *word_ids(void *ctx, const char *utf8, Py_ssize_t len) {
    WordCtx *c = ctx;
    return word_tuple(c->m, &c->x, utf8, len, 0);
}

static PyObject *Model_encode_words(Model *self, PyObject *args) {
    PyObject *words, *cache;
    Py_ssize_t cache_limit;
    if (!PyArg_ParseTuple(args, "O!O!n", &PyList_Type, &words, &PyDict_Type, &cache,
                          &cache_limit))
        return NULL;
    WordCtx ctx = {&self->pm, {0}};
    PyObject *out = encode_words_cached(words, cache, cache_limit, word_ids, &ctx);
    ms_free(&ctx.x);
    return out;
}

/* TIKTOKEN: derive the merge list (pipe_rebuild); the ids no merge makes. */
static PyObject *Model_rebuild(Model *self, PyObject *noargs) {
    (void)noargs;
    int32_t *stray;
    size_t n;
    ms_free(&self->x);
    if (pipe_rebuild(&self->pm, &stray, &n) < 0) return PyErr_NoMemory();
    PyObject *list = bpe_py_ints(stray, n, 1);
    free(stray);
    return list;
}

static void table_capsule_free(PyObject *cap) {
    Py_XDECREF((PyObject *)PyCapsule_GetContext(cap));
}

/* The merge table as a capsule for _encode.Merger.wrap (same merge.h on both sides); the
   capsule keeps the model alive. */
static PyObject *Model_merge_table(Model *m, PyObject *noargs) {
    (void)noargs;
    PyObject *cap = PyCapsule_New(&m->pm.mt, "bpe_gui.merge_table", table_capsule_free);
    if (!cap) return NULL;
    if (PyCapsule_SetContext(cap, m) < 0) {
        Py_DECREF(cap);
        return NULL;
    }
    Py_INCREF(m);
    return cap;
}

/* ---- the type and the module ----------------------------------------------------------- */

static void Model_dealloc(Model *m) {
    ms_free(&m->x);
    pipe_free(&m->pm);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Model_get_n_tokens(Model *m, void *c) {
    (void)c;
    return PyLong_FromSsize_t(pipe_n_tokens(&m->pm));
}

static PyMethodDef Model_methods[] = {
    {"from_hf", (PyCFunction)Model_from_hf, METH_VARARGS | METH_CLASS,
     "from_hf(vocab, merges, byte_level) -> (Model, problem)"},
    {"from_gguf", (PyCFunction)Model_from_gguf, METH_VARARGS | METH_CLASS,
     "from_gguf(buf, tokens_span, merges_span, big_endian, want) -> (Model, problem, ids)"},
    {"gguf_walk", (PyCFunction)Model_gguf_walk, METH_VARARGS | METH_CLASS,
     "gguf_walk(buf, pos, i, count, big_endian) -> (status, pos, i, claim)"},
    {"gguf_strings", (PyCFunction)Model_gguf_strings, METH_VARARGS | METH_CLASS,
     "gguf_strings(buf, start, count, big_endian) -> list[str]"},
    {"gguf_offsets", (PyCFunction)Model_gguf_offsets, METH_VARARGS | METH_CLASS,
     "gguf_offsets(buf, start, count, big_endian) -> bytes (count + 1 uint64)"},
    {"from_hf_text", (PyCFunction)Model_from_hf_text, METH_VARARGS | METH_CLASS,
     "from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) or None"},
    {"key_text", (PyCFunction)Model_key_text, METH_VARARGS, "key_text(id) -> str or None"},
    {"text_id", (PyCFunction)Model_text_id, METH_VARARGS, "text_id(key: str) -> id or -1"},
    {"from_tiktoken", (PyCFunction)Model_from_tiktoken, METH_VARARGS | METH_CLASS,
     "from_tiktoken(data: bytes) -> (Model, problem)"},
    {"configure", (PyCFunction)Model_configure, METH_VARARGS,
     "configure(ignore_merges, byte_fallback, unk_id, fuse_unk)"},
    {"set_end_of_word_suffix", (PyCFunction)Model_set_end_of_word_suffix, METH_VARARGS,
     "set_end_of_word_suffix(key bytes): the last symbol of a word gets it (HF's "
     "end_of_word_suffix); b'' for none"},
    {"tables", (PyCFunction)Model_tables, METH_VARARGS,
     "tables(replacement, byte_fallback) -> (id -> bytes, bytes -> first id)"},
    {"id_of", (PyCFunction)Model_id_of, METH_VARARGS, "id_of(key: bytes) -> id or -1"},
    {"key", (PyCFunction)Model_key, METH_VARARGS, "key(id) -> bytes or None"},
    {"tokenize", (PyCFunction)Model_tokenize, METH_VARARGS,
     "tokenize(word: str | bytes) -> (ids, starts, ends) in bytes of the word's UTF-8"},
    {"encode_words", (PyCFunction)Model_encode_words, METH_VARARGS,
     "encode_words(words, cache, cache_limit) -> list of ids"},
    {"merge", (PyCFunction)Model_merge, METH_VARARGS, "merge(k) -> (left, right, new id)"},
    {"merge_table", (PyCFunction)Model_merge_table, METH_NOARGS,
     "merge_table() -> capsule of the merge table, for _encode.Merger.wrap"},
    {"from_spm", (PyCFunction)Model_from_spm, METH_VARARGS | METH_CLASS,
     "from_spm(pieces, scores, types, llama, byte_fallback) -> Model"},
    {"spm_proto", (PyCFunction)Model_spm_proto, METH_VARARGS | METH_CLASS,
     "spm_proto(data) -> (starts, lens, scores, types, spec spans) | None (refused)"},
    {"spm_proto_ok", (PyCFunction)Model_spm_proto_ok, METH_VARARGS | METH_CLASS,
     "spm_proto_ok(data, starts, lens, types, byte_fallback) -> bool"},
    {"spm_proto_texts", (PyCFunction)Model_spm_proto_texts, METH_VARARGS | METH_CLASS,
     "spm_proto_texts(data, starts, lens) -> list[str]"},
    {"from_spm_proto", (PyCFunction)Model_from_spm_proto, METH_VARARGS | METH_CLASS,
     "from_spm_proto(data, starts, lens, scores, types, llama, byte_fallback) -> Model"},
    {"encode_cut", (PyCFunction)Model_encode_cut, METH_VARARGS,
     "encode_cut(text) -> ids of a long word merged by segments no merge crosses, or None"},
    {"spm_normalizer", (PyCFunction)Model_spm_normalizer, METH_VARARGS,
     "spm_normalizer(charsmap, add_dummy_prefix, remove_extra_whitespaces, "
     "escape_whitespaces, treat_whitespace_as_suffix)"},
    {"spm_encode", (PyCFunction)Model_spm_encode, METH_VARARGS,
     "spm_encode(text, prefix=True) -> list of ids"},
    {"spm_encode_offsets", (PyCFunction)Model_spm_encode_offsets, METH_VARARGS,
     "spm_encode_offsets(text, prefix=True) -> (ids, starts, ends)"},
    {"spm_normalize", (PyCFunction)Model_spm_normalize, METH_VARARGS,
     "spm_normalize(text, prefix=True) -> (normalized, sources)"},
    {"spm_segments", (PyCFunction)Model_spm_segments, METH_VARARGS,
     "spm_segments(normalized) -> segment ends"},
    {"rebuild", (PyCFunction)Model_rebuild, METH_NOARGS,
     "rebuild() -> ids of multi-byte tokens no merge makes (tiktoken models)"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Model_members[] = {
    {"n_ids", T_PYSSIZET, offsetof(Model, pm.n_ids), READONLY, "1 + the largest id"},
    {"n_merges", T_PYSSIZET, offsetof(Model, pm.n_merges), READONLY, "merges known so far"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef Model_getset[] = {
    {"n_tokens", (getter)Model_get_n_tokens, NULL, "how many ids have a token", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine.tokenizers.imported._pipeline.Model",
    .tp_basicsize = sizeof(Model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The tables of an imported BPE tokenizer (see the module docstring).",
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
    .tp_members = Model_members,
    .tp_getset = Model_getset,
};

static PyMethodDef module_methods[] = {
    {"find_model_tables", (PyCFunction)py_find_model_tables, METH_VARARGS,
     "find_model_tables(data: bytes) -> ((vocab start, end), (merges start, end)) or None"},
    {"set_grapheme_classes", (PyCFunction)py_set_grapheme_classes, METH_VARARGS,
     "set_grapheme_classes(table: bytes) -> None"},
    {"has_grapheme_classes", (PyCFunction)py_has_grapheme_classes, METH_NOARGS,
     "has_grapheme_classes() -> bool"},
    MERGE_STRATEGY_METHODS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef pipeline_module = {
    PyModuleDef_HEAD_INIT, "_pipeline",
    "Tables of imported tokenizers (tokenizer.json, .tiktoken), built and run in C.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__pipeline(void) {
    init_alphabet();
    init_b64();
    if (PyType_Ready(&ModelType) < 0 || PyType_Ready(&CharsmapType) < 0 ||
        merge_strategy_from_env() < 0)
        return NULL;
    PyObject *mod = PyModule_Create(&pipeline_module);
    if (!mod) return NULL;
    if (PyModule_AddStringConstant(mod, "simd", BPE_SIMD_BUILT) < 0 ||
        PyModule_AddObjectRef(mod, "Model", (PyObject *)&ModelType) < 0 ||
        PyModule_AddObjectRef(mod, "Charsmap", (PyObject *)&CharsmapType) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
