/*
 * bpe_gui.engine._pipeline -- the tables of an imported tokenizer, built and run in C
 * (pipeline.h tells how; this file is the Python type and the module).
 *
 * Python API
 * ----------
 *   Model.from_hf(vocab: dict[str, int], merges: list, byte_level: bool) -> (Model, problem)
 *   Model.from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) | None
 *   Model.from_tiktoken(data: bytes) -> (Model, problem)
 *       problem: None, or (where, index, message); where is "vocab", "merges" or "line"
 *   m.configure(ignore_merges, byte_fallback, unk_id, fuse_unk)
 *   m.tables(replacement: str | None, byte_fallback: bool) -> (id -> bytes, bytes -> id)
 *       the bytes each token stands for: ByteLevel keys decoded, <0xNN> as that byte,
 *       the Metaspace replacement character as a space
 *   m.id_of(key: bytes) -> int (-1 if absent);  m.key(id) -> bytes | None
 *   m.key_text(id) -> str | None;  m.text_id(key: str) -> int   (keys as the file spells them)
 *   m.tokenize(word: str) -> (ids, starts, ends)   byte offsets within the word's UTF-8
 *   m.encode_words(words: list[str], cache: dict, cache_limit: int) -> list[int]
 *   m.n_ids, m.n_merges;  m.merge(k) -> (left id, right id, new id)
 *   m.rebuild() -> list of ids no merge of two lower ranks makes (TIKTOKEN: the merge
 *       list is derived on demand, only for the vocabulary browser and exports)
 *   m.merge_table() -> capsule of the merge table (merge.h) for _encode.Merger.wrap
 *   find_model_tables(data) -> ((vocab start, end), (merges start, end)) | None
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "imported/pipeline.h"

/* The key of an id as the file spells it (ByteLevel keys in GPT-2's alphabet). */
static PyObject *Model_key_text(Model *m, PyObject *args) {
    Py_ssize_t id;
    if (!PyArg_ParseTuple(args, "n", &id)) return NULL;
    if (id < 0 || id >= m->n_ids || m->first_entry[id] < 0) Py_RETURN_NONE;
    const Entry *en = &m->entries[m->first_entry[id]];
    const char *p = m->arena + en->off;
    if (!(m->kind == KIND_HF && m->byte_level && en->lookup))
        return PyUnicode_DecodeUTF8(p, en->len, "replace");
    PyObject *s = PyUnicode_New(en->len, 511);
    if (!s) return NULL;
    for (int32_t i = 0; i < en->len; i++)
        PyUnicode_WriteChar(s, i, (Py_UCS4)byte_to_cp[(unsigned char)p[i]]);
    return s;
}

/* The id of a key given as the file spells it, or -1. */
static PyObject *Model_text_id(Model *m, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text)) return NULL;
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(text, &n);
    if (!p) return NULL;
    char *tmp = PyMem_Malloc((size_t)n + 1);
    if (!tmp) return PyErr_NoMemory();
    int32_t id = text_key_id(m, p, (size_t)n, tmp);
    PyMem_Free(tmp);
    if (id == NONE_ID) /* keys only shown (not ByteLevel text): compare their UTF-8 */
        for (size_t e = 0; e < m->n_entries; e++)
            if (!m->entries[e].lookup && m->entries[e].len == n &&
                memcmp(m->arena + m->entries[e].off, p, (size_t)n) == 0) {
                id = m->entries[e].id;
                break;
            }
    return PyLong_FromLong(id);
}

/* ---- configuration and tables ----------------------------------------------------- */

static PyObject *Model_configure(Model *m, PyObject *args) {
    int ignore_merges, byte_fallback, fuse_unk, unk_id;
    if (!PyArg_ParseTuple(args, "ppip", &ignore_merges, &byte_fallback, &unk_id, &fuse_unk))
        return NULL;
    m->ignore_merges = ignore_merges;
    m->byte_fallback = byte_fallback;
    m->fuse_unk = fuse_unk;
    m->unk_id = (unk_id >= 0 && unk_id < m->n_ids) ? unk_id : NONE_ID;
    if (m->kind == KIND_HF)
        m->mt.whole_words = ignore_merges;
    for (int b = 0; b < 256; b++) {
        char key[8];
        snprintf(key, sizeof key, "<0x%02X>", b);
        m->fb[b] = byte_fallback ? find_key(m, key, 6) : NONE_ID;
    }
    Py_RETURN_NONE;
}

/* The bytes an entry stands for (see the module comment). */
static Py_ssize_t shown_bytes(const Model *m, const Entry *en, const char *rep, Py_ssize_t rep_len,
                              int byte_fallback, char *out, Py_ssize_t cap) {
    const char *p = m->arena + en->off;
    Py_ssize_t n = en->len;
    if (m->kind == KIND_HF && !m->byte_level) {
        if (byte_fallback && n == 6 && memcmp(p, "<0x", 3) == 0 && p[5] == '>') {
            int hi = p[3], lo = p[4];
            int h = hi >= '0' && hi <= '9' ? hi - '0' : hi >= 'A' && hi <= 'F' ? hi - 'A' + 10 : -1;
            int l = lo >= '0' && lo <= '9' ? lo - '0' : lo >= 'A' && lo <= 'F' ? lo - 'A' + 10 : -1;
            if (h >= 0 && l >= 0) {
                out[0] = (char)(h * 16 + l);
                return 1;
            }
        }
        if (rep_len > 0) {
            Py_ssize_t o = 0;
            for (Py_ssize_t i = 0; i < n;) {
                if (i + rep_len <= n && memcmp(p + i, rep, (size_t)rep_len) == 0) {
                    if (o < cap) out[o++] = ' ';
                    i += rep_len;
                } else {
                    if (o < cap) out[o++] = p[i];
                    i++;
                }
            }
            return o <= cap ? o : -1;
        }
    }
    if (n > cap) return -1;
    memcpy(out, p, (size_t)n);
    return n;
}

static PyObject *Model_tables(Model *m, PyObject *args) {
    PyObject *rep;
    int byte_fallback;
    if (!PyArg_ParseTuple(args, "Op", &rep, &byte_fallback)) return NULL;
    Py_ssize_t rep_len = 0;
    const char *rp = NULL;
    if (rep != Py_None) {
        rp = PyUnicode_AsUTF8AndSize(rep, &rep_len);
        if (!rp) return NULL;
    }
    PyObject *vocab = _PyDict_NewPresized(m->n_ids), *t2i = _PyDict_NewPresized(m->n_ids);
    if (!vocab || !t2i) goto fail;
    size_t cap = 256;
    char *buf = PyMem_Malloc(cap);
    if (!buf) goto fail;
    for (Py_ssize_t id = 0; id < m->n_ids; id++) {
        int32_t e = m->first_entry[id];
        if (e < 0) continue;
        const Entry *en = &m->entries[e];
        if ((size_t)en->len > cap) {
            cap = (size_t)en->len * 2;
            char *nb = PyMem_Realloc(buf, cap);
            if (!nb) {
                PyMem_Free(buf);
                PyErr_NoMemory();
                goto fail;
            }
            buf = nb;
        }
        Py_ssize_t n = shown_bytes(m, en, rp, rep_len, byte_fallback, buf, (Py_ssize_t)cap);
        PyObject *b = PyBytes_FromStringAndSize(buf, n < 0 ? 0 : n);
        PyObject *key = PyLong_FromSsize_t(id);
        if (!b || !key || PyDict_SetItem(vocab, key, b) < 0 ||
            (PyDict_SetDefault(t2i, b, key) == NULL)) {
            Py_XDECREF(b);
            Py_XDECREF(key);
            PyMem_Free(buf);
            goto fail;
        }
        Py_DECREF(b);
        Py_DECREF(key);
    }
    PyMem_Free(buf);
    return Py_BuildValue("(NN)", vocab, t2i);
fail:
    Py_XDECREF(vocab);
    Py_XDECREF(t2i);
    return NULL;
}

static PyObject *Model_id_of(Model *m, PyObject *args) {
    const char *p;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y#", &p, &n)) return NULL;
    return PyLong_FromLong(find_key(m, p, (size_t)n));
}

static PyObject *Model_key(Model *m, PyObject *args) {
    Py_ssize_t id;
    if (!PyArg_ParseTuple(args, "n", &id)) return NULL;
    if (id < 0 || id >= m->n_ids || m->first_entry[id] < 0) Py_RETURN_NONE;
    const Entry *en = &m->entries[m->first_entry[id]];
    return PyBytes_FromStringAndSize(m->arena + en->off, en->len);
}

static PyObject *Model_merge(Model *m, PyObject *args) {
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n", &k)) return NULL;
    if (k < 0 || k >= m->n_merges) {
        PyErr_SetString(PyExc_IndexError, "merge index out of range");
        return NULL;
    }
    return Py_BuildValue("(iii)", m->merge_a[k], m->merge_b[k], m->merge_new[k]);
}

static void Model_dealloc(Model *m) {
    PyMem_Free(m->arena);
    PyMem_Free(m->entries);
    PyMem_Free(m->first_entry);
    PyMem_Free(m->slots);
    PyMem_Free(m->kfilter);
    mt_free(&m->mt);
    PyMem_Free(m->merge_a);
    PyMem_Free(m->merge_b);
    PyMem_Free(m->merge_new);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Model_get_n_ids(Model *m, void *c) {
    (void)c;
    return PyLong_FromSsize_t(m->n_ids);
}

static PyObject *Model_get_n_merges(Model *m, void *c) {
    (void)c;
    return PyLong_FromSsize_t(m->n_merges);
}

static PyObject *Model_get_kind(Model *m, void *c) {
    (void)c;
    return PyUnicode_FromString(m->kind == KIND_HF ? "hf" : "tiktoken");
}

static PyMethodDef Model_methods[] = {
    {"from_hf", (PyCFunction)Model_from_hf, METH_VARARGS | METH_CLASS,
     "from_hf(vocab, merges, byte_level) -> (Model, problem)"},
    {"from_hf_text", (PyCFunction)Model_from_hf_text, METH_VARARGS | METH_CLASS,
     "from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) or None"},
    {"key_text", (PyCFunction)Model_key_text, METH_VARARGS, "key_text(id) -> str or None"},
    {"text_id", (PyCFunction)Model_text_id, METH_VARARGS, "text_id(key: str) -> id or -1"},
    {"from_tiktoken", (PyCFunction)Model_from_tiktoken, METH_VARARGS | METH_CLASS,
     "from_tiktoken(data: bytes) -> (Model, problem)"},
    {"configure", (PyCFunction)Model_configure, METH_VARARGS,
     "configure(ignore_merges, byte_fallback, unk_id, fuse_unk)"},
    {"tables", (PyCFunction)Model_tables, METH_VARARGS,
     "tables(replacement, byte_fallback) -> (id -> bytes, bytes -> first id)"},
    {"id_of", (PyCFunction)Model_id_of, METH_VARARGS, "id_of(key: bytes) -> id or -1"},
    {"key", (PyCFunction)Model_key, METH_VARARGS, "key(id) -> bytes or None"},
    {"tokenize", (PyCFunction)Model_tokenize, METH_VARARGS,
     "tokenize(word) -> (ids, starts, ends) in bytes of the word's UTF-8"},
    {"encode_words", (PyCFunction)Model_encode_words, METH_VARARGS,
     "encode_words(words, cache, cache_limit) -> list of ids"},
    {"merge", (PyCFunction)Model_merge, METH_VARARGS, "merge(k) -> (left, right, new id)"},
    {"merge_table", (PyCFunction)Model_merge_table, METH_NOARGS,
     "merge_table() -> capsule of the merge table, for _encode.Merger.wrap"},
    {"rebuild", (PyCFunction)Model_rebuild, METH_NOARGS,
     "rebuild() -> ids of multi-byte tokens no merge makes (tiktoken models)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Model_getset[] = {
    {"n_ids", (getter)Model_get_n_ids, NULL, "1 + the largest id", NULL},
    {"n_merges", (getter)Model_get_n_merges, NULL, "merges known so far", NULL},
    {"kind", (getter)Model_get_kind, NULL, "'hf' or 'tiktoken'", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine._pipeline.Model",
    .tp_basicsize = sizeof(Model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The tables of an imported BPE tokenizer (see the module docstring).",
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
    .tp_getset = Model_getset,
};

static PyMethodDef module_methods[] = {
    {"find_model_tables", (PyCFunction)find_model_tables, METH_VARARGS,
     "find_model_tables(data: bytes) -> ((vocab start, end), (merges start, end)) or None"},
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
    if (PyType_Ready(&ModelType) < 0) return NULL;
    PyObject *mod = PyModule_Create(&pipeline_module);
    if (!mod) return NULL;
    Py_INCREF(&ModelType);
    if (PyModule_AddObject(mod, "Model", (PyObject *)&ModelType) < 0) {
        Py_DECREF(&ModelType);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
