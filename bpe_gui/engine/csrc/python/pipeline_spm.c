/*
 * pipeline_spm.c -- the SentencePiece half of _pipeline's bindings (the module's
 * docstring, in pipelinemodule.c, lists the calls): models from pieces or from a .model
 * read in place, SentencePiece's normalizer and encoding, the cuts no merge crosses,
 * and tokenizers' Precompiled normalizer (the Charsmap type). Arguments in, results
 * out; the work is imported/pipe_spm.c's, pipe_load_spm.c's and charsmap.c's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "imported/charsmap.h"
#include "imported/pipeline.h"
#include "python/convert.h"
#include "python/pipeline_python.h"
#include "util/utf8.h"

/* ---- SentencePiece BPE ---------------------------------------------------------------- */

/* A SentencePiece model of n pieces (their texts keys[i] of lens[i] bytes, scores, types);
   nogil: the texts lie in a buffer no other thread can change, so the tables are built
   without the GIL (not when they are inside str objects of a list). NULL: the error set. */
static PyObject *spm_model(const char *const *keys, const size_t *lens, size_t n,
                           const void *scores, const void *types, int llama, int fb,
                           int nogil) {
    Model *m = new_model(KIND_SPM);
    if (!m) return NULL;
    int rc;
    PyThreadState *ts = nogil ? PyEval_SaveThread() : NULL;
    rc = spm_load(&m->pm, n, keys, lens, (const float *)scores, (const uint8_t *)types, llama, fb);
    if (ts) PyEval_RestoreThread(ts);
    if (rc < 0) {
        pipe_error(&m->pm, rc);
        Py_DECREF(m);
        return NULL;
    }
    return (PyObject *)m;
}

PyObject *Model_from_spm(PyObject *cls, PyObject *args) {
    PyObject *pieces;
    Py_buffer scores, types;
    int llama, byte_fallback;
    (void)cls;
    if (!PyArg_ParseTuple(args, "O!y*y*pp", &PyList_Type, &pieces, &scores, &types, &llama,
                          &byte_fallback))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(pieces);
    PyObject *r = NULL;
    const char **keys = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(char *));
    size_t *lens = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(size_t));
    if (!keys || !lens) {
        PyErr_NoMemory();
        goto done;
    }
    if (scores.len != n * (Py_ssize_t)sizeof(float) || types.len != n) {
        PyErr_SetString(PyExc_ValueError, "from_spm: one score (float32) and one type a piece");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        if (bpe_py_str_or_bytes(PyList_GET_ITEM(pieces, i), &keys[i], &len,
                                "from_spm: a piece") < 0)
            goto done;
        lens[i] = (size_t)len;
    }
    r = spm_model(keys, lens, (size_t)n, scores.buf, types.buf, llama, byte_fallback, 0);
done:
    PyMem_Free(keys);
    PyMem_Free(lens);
    PyBuffer_Release(&scores);
    PyBuffer_Release(&types);
    return r;
}

/* ---- a SentencePiece .model read in place (imported/pipe_load_spm.c) ------------------ */

/* spm_proto(data) -> (starts, lens, scores, types, (trainer, normalizer, denormalizer))
   | None: native uint32 starts and lengths of the pieces' texts in data, float32 scores,
   a type byte each; each spec message's (start, end) or None. None: refused (the Python
   reader says why). */
PyObject *Model_spm_proto(PyObject *cls, PyObject *args) {
    Py_buffer b;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    SpmProto p;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = spm_proto_read(b.buf, (size_t)b.len, &p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
    if (rc < 0) return PyErr_NoMemory();
    if (rc > 0) Py_RETURN_NONE;
    PyObject *specs = PyTuple_New(3);
    for (int k = 0; specs && k < 3; k++) {
        PyObject *v = p.spec[k][0] < 0 ? Py_NewRef(Py_None)
                                       : Py_BuildValue("(LL)", (long long)p.spec[k][0],
                                                       (long long)p.spec[k][1]);
        if (!v) Py_CLEAR(specs);
        else PyTuple_SET_ITEM(specs, k, v);
    }
    PyObject *r = specs ? Py_BuildValue("(y#y#y#y#N)", (const char *)p.start,
                                        (Py_ssize_t)(p.n * 4), (const char *)p.len,
                                        (Py_ssize_t)(p.n * 4), (const char *)p.score,
                                        (Py_ssize_t)(p.n * 4), (const char *)p.type,
                                        (Py_ssize_t)p.n, specs)
                        : NULL;
    spm_proto_free(&p);
    return r;
}

/* The buffers of spm_proto's arrays as an SpmProto (pointers into them, n pieces): 0, or
   -1 with ValueError when they do not fit data. */
static int proto_view(Py_buffer *data, Py_buffer *starts, Py_buffer *lens, Py_buffer *types,
                      SpmProto *p) {
    memset(p, 0, sizeof *p);
    size_t n = (size_t)types->len;
    if ((size_t)starts->len != 4 * n || (size_t)lens->len != 4 * n) {
        PyErr_SetString(PyExc_ValueError, "spm_proto: starts and lens: one uint32 a piece");
        return -1;
    }
    const uint32_t *st = starts->buf, *ln = lens->buf;
    for (size_t i = 0; i < n; i++)
        if (st[i] > (size_t)data->len || ln[i] > (size_t)data->len - st[i]) {
            PyErr_Format(PyExc_ValueError, "spm_proto: piece %zu lies outside the data", i);
            return -1;
        }
    p->n = n;
    p->start = (uint32_t *)starts->buf;
    p->len = (uint32_t *)lens->buf;
    p->type = (uint8_t *)types->buf;
    return 0;
}

/* spm_proto_ok(data, starts, lens, types, byte_fallback) -> bool: nothing sentencepiece
   refuses on load (False: the Python reader says what) */
PyObject *Model_spm_proto_ok(PyObject *cls, PyObject *args) {
    Py_buffer d, st, ln, ty;
    int fb;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*y*y*y*p", &d, &st, &ln, &ty, &fb)) return NULL;
    SpmProto p;
    PyObject *r = NULL;
    if (proto_view(&d, &st, &ln, &ty, &p) == 0) {
        int rc = spm_proto_check(d.buf, &p, fb);
        r = rc < 0 ? PyErr_NoMemory() : PyBool_FromLong(rc == 0);
    }
    PyBuffer_Release(&d);
    PyBuffer_Release(&st);
    PyBuffer_Release(&ln);
    PyBuffer_Release(&ty);
    return r;
}

/* spm_proto_texts(data, starts, lens) -> list[str] (bytes not UTF-8: surrogateescape) */
PyObject *Model_spm_proto_texts(PyObject *cls, PyObject *args) {
    Py_buffer d, st, ln;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*y*y*", &d, &st, &ln)) return NULL;
    PyObject *list = NULL;
    size_t n = (size_t)st.len / 4;
    const uint32_t *s = st.buf, *l = ln.buf;
    if ((size_t)ln.len != 4 * n) {
        PyErr_SetString(PyExc_ValueError, "spm_proto_texts: one start and one length a piece");
        goto done;
    }
    list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *t = NULL;
        if (s[i] <= (size_t)d.len && l[i] <= (size_t)d.len - s[i])
            t = PyUnicode_DecodeUTF8((const char *)d.buf + s[i], (Py_ssize_t)l[i],
                                     "surrogateescape");
        else
            PyErr_Format(PyExc_ValueError, "spm_proto_texts: piece %zu lies outside the data",
                         i);
        if (!t) Py_CLEAR(list);
        else PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
done:
    PyBuffer_Release(&d);
    PyBuffer_Release(&st);
    PyBuffer_Release(&ln);
    return list;
}

/* from_spm_proto(data, starts, lens, scores, types, llama, byte_fallback) -> Model: as
   from_spm, the pieces' texts read where spm_proto found them */
PyObject *Model_from_spm_proto(PyObject *cls, PyObject *args) {
    Py_buffer d, st, ln, sc, ty;
    int llama, fb;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*pp", &d, &st, &ln, &sc, &ty, &llama, &fb))
        return NULL;
    PyObject *r = NULL;
    const char **keys = NULL;
    size_t *lens = NULL;
    SpmProto p;
    if (proto_view(&d, &st, &ln, &ty, &p) < 0) goto done;
    if ((size_t)sc.len != 4 * p.n) {
        PyErr_SetString(PyExc_ValueError, "from_spm_proto: one score (float32) a piece");
        goto done;
    }
    keys = PyMem_Malloc((p.n ? p.n : 1) * sizeof(char *));
    lens = PyMem_Malloc((p.n ? p.n : 1) * sizeof(size_t));
    if (!keys || !lens) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < p.n; i++) {
        keys[i] = (const char *)d.buf + p.start[i];
        lens[i] = p.len[i];
    }
    r = spm_model(keys, lens, p.n, sc.buf, ty.buf, llama, fb, 1);
done:
    PyMem_Free(keys);
    PyMem_Free(lens);
    PyBuffer_Release(&d);
    PyBuffer_Release(&st);
    PyBuffer_Release(&ln);
    PyBuffer_Release(&sc);
    PyBuffer_Release(&ty);
    return r;
}

static int need_spm(Model *self) {
    if (self->pm.kind != KIND_SPM) {
        PyErr_SetString(PyExc_TypeError, "not a SentencePiece (spm) model");
        return -1;
    }
    return 0;
}

PyObject *Model_spm_normalizer(Model *self, PyObject *args) {
    PyObject *cm;
    int adp, rew, esc, suf;
    if (!PyArg_ParseTuple(args, "Opppp", &cm, &adp, &rew, &esc, &suf)) return NULL;
    if (need_spm(self) < 0) return NULL;
    if (cm != Py_None && !PyBytes_Check(cm)) {
        PyErr_SetString(PyExc_TypeError, "spm_normalizer: charsmap must be bytes or None");
        return NULL;
    }
    const unsigned char *p = cm == Py_None ? NULL : (const unsigned char *)PyBytes_AS_STRING(cm);
    size_t n = cm == Py_None ? 0 : (size_t)PyBytes_GET_SIZE(cm);
    int rc = spm_set_normalizer(&self->pm, p, n, adp, rew, esc, suf);
    if (rc < 0) return pipe_error(&self->pm, rc);
    Py_RETURN_NONE;
}

/* The text argument of an spm call on an spm model (fmt: "U", or "U|p" with the prefix
   flag too) as UTF-8 of *n bytes, borrowed from it; NULL with an exception set. */
static const char *spm_text(Model *self, PyObject *args, const char *fmt, Py_ssize_t *n,
                            int *prefix) {
    PyObject *text;
    if (!(prefix ? PyArg_ParseTuple(args, fmt, &text, prefix) : PyArg_ParseTuple(args, fmt, &text)))
        return NULL;
    if (need_spm(self) < 0) return NULL;
    return PyUnicode_AsUTF8AndSize(text, n);
}

static PyObject *spm_encode_py(Model *self, PyObject *args, int offsets) {
    int prefix = 1;
    Py_ssize_t n;
    const char *s = spm_text(self, args, "U|p", &n, &prefix);
    if (!s) return NULL;
    SpmOut o = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = spm_encode(&self->pm, (const unsigned char *)s, (size_t)n, prefix, offsets, &o);
    if (!rc && offsets) {
        bpe_utf8_char_offsets((const unsigned char *)s, (size_t)n, o.st, o.n);
        bpe_utf8_char_offsets((const unsigned char *)s, (size_t)n, o.en, o.n);
    }
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        spm_out_free(&o);
        return PyErr_NoMemory();
    }
    PyObject *r = !offsets ? bpe_py_ints_shared(o.ids, o.n)
                           : bpe_py_steal_tuple(3, bpe_py_ints_shared(o.ids, o.n),
                                                bpe_py_ints64(o.st, o.n, 1),
                                                bpe_py_ints64(o.en, o.n, 1));
    spm_out_free(&o);
    return r;
}

/* encode_cut(text) -> list of ids, or None when the model cannot be cut (see pipeline.h) */
PyObject *Model_encode_cut(Model *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text)) return NULL;
    int rc = pipe_build_cuts(&self->pm);
    if (rc < 0) return PyErr_NoMemory();
    if (rc == 0) Py_RETURN_NONE;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (!s) return NULL;
    SpmOut o = {0};
    Py_BEGIN_ALLOW_THREADS
    rc = pipe_encode_cut(&self->pm, (const unsigned char *)s, (size_t)n, &o);
    Py_END_ALLOW_THREADS
    PyObject *r = rc == PIPE_INVALID ? tokenize_error(PIPE_WORD_TOO_LONG) :
                  rc < 0 ? PyErr_NoMemory() : bpe_py_ints_shared(o.ids, o.n);
    spm_out_free(&o);
    return r;
}

PyObject *Model_spm_encode(Model *self, PyObject *args) {
    return spm_encode_py(self, args, 0);
}

PyObject *Model_spm_encode_offsets(Model *self, PyObject *args) {
    return spm_encode_py(self, args, 1);
}

PyObject *Model_spm_normalize(Model *self, PyObject *args) {
    int prefix = 1;
    Py_ssize_t n;
    const char *s = spm_text(self, args, "U|p", &n, &prefix);
    if (!s) return NULL;
    char *norm;
    size_t nl;
    int64_t *n2o;
    if (spm_normalize_text(&self->pm, (const unsigned char *)s, (size_t)n, prefix, &norm, &nl,
                           &n2o) < 0)
        return PyErr_NoMemory();
    size_t nc = bpe_utf8_char_sources((const unsigned char *)s, (size_t)n,
                                      (const unsigned char *)norm, nl, n2o);
    PyObject *r = bpe_py_steal_tuple(2, PyUnicode_DecodeUTF8(norm, (Py_ssize_t)nl, "replace"),
                                     bpe_py_ints64(n2o, nc, 1));
    free(norm);
    free(n2o);
    return r;
}

PyObject *Model_spm_segments(Model *self, PyObject *args) {
    Py_ssize_t n;
    const char *s = spm_text(self, args, "U", &n, NULL);
    if (!s) return NULL;
    size_t *ends, ne;
    if (spm_segments(&self->pm, (const unsigned char *)s, (size_t)n, &ends, &ne) < 0)
        return PyErr_NoMemory();
    int64_t *e64 = malloc((ne ? ne : 1) * sizeof(int64_t));
    if (!e64) {
        free(ends);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < ne; i++) e64[i] = (int64_t)ends[i];
    free(ends);
    bpe_utf8_char_offsets((const unsigned char *)s, (size_t)n, e64, ne);
    PyObject *r = bpe_py_ints64(e64, ne, 1);
    free(e64);
    return r;
}

/* ---- tokenizers' Precompiled normalizer ---------------------------------------------- */

static uint8_t *grapheme_classes; /* 0x110000 bytes, set once by set_grapheme_classes */

typedef struct {
    PyObject_HEAD
    Charsmap cm;
} CharsmapObject;


static PyObject *Charsmap_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    Py_buffer blob;
    (void)kw;
    if (!PyArg_ParseTuple(args, "y*", &blob)) return NULL;
    CharsmapObject *c = (CharsmapObject *)type->tp_alloc(type, 0);
    if (!c) {
        PyBuffer_Release(&blob);
        return NULL;
    }
    char why[96];
    int rc = charsmap_load(&c->cm, blob.buf, (size_t)blob.len, 1, why, sizeof why);
    PyBuffer_Release(&blob);
    if (rc < 0) {
        if (rc == PIPE_INVALID)
            PyErr_SetString(PyExc_ValueError, why);
        else
            PyErr_NoMemory();
        Py_DECREF(c);
        return NULL;
    }
    return (PyObject *)c;
}

static void Charsmap_dealloc(CharsmapObject *c) {
    charsmap_free(&c->cm);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Charsmap_normalize_hf(CharsmapObject *self, PyObject *args) {
    PyObject *text;
    int want = 0;
    if (!PyArg_ParseTuple(args, "U|p", &text, &want)) return NULL;
    if (!grapheme_classes) {
        PyErr_SetString(PyExc_RuntimeError, "set_grapheme_classes() was not called");
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (!s) return NULL;
    CmBuf out = {0};
    int32_t *ch = NULL;
    size_t nch = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = charsmap_hf(&self->cm, grapheme_classes, (const unsigned char *)s, (size_t)n, &out,
                     want ? &ch : NULL, &nch);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        free(out.p);
        free(ch);
        return PyErr_NoMemory();
    }
    PyObject *str = PyUnicode_DecodeUTF8(out.p ? out.p : "", (Py_ssize_t)out.n, "replace");
    free(out.p);
    if (!want || !str) {
        free(ch);
        return str;
    }
    PyObject *list = bpe_py_ints_shared(ch, nch);
    free(ch);
    if (!list) {
        Py_DECREF(str);
        return NULL;
    }
    return Py_BuildValue("(NN)", str, list);
}

PyObject *py_set_grapheme_classes(PyObject *mod, PyObject *args) {
    Py_buffer t;
    (void)mod;
    if (!PyArg_ParseTuple(args, "y*", &t)) return NULL;
    if (t.len != 0x110000) {
        PyBuffer_Release(&t);
        PyErr_SetString(PyExc_ValueError, "set_grapheme_classes: one byte per code point");
        return NULL;
    }
    uint8_t *copy = malloc(0x110000);
    if (!copy) {
        PyBuffer_Release(&t);
        return PyErr_NoMemory();
    }
    memcpy(copy, t.buf, 0x110000);
    PyBuffer_Release(&t);
    uint8_t *old = grapheme_classes;
    grapheme_classes = copy;
    free(old);
    Py_RETURN_NONE;
}

PyObject *py_has_grapheme_classes(PyObject *mod, PyObject *noargs) {
    (void)mod;
    (void)noargs;
    return PyBool_FromLong(grapheme_classes != NULL);
}

static PyMethodDef Charsmap_methods[] = {
    {"normalize_hf", (PyCFunction)Charsmap_normalize_hf, METH_VARARGS,
     "normalize_hf(text, changes=False) -> str, or (str, alignment changes)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject CharsmapType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name =
        "bpe_gui.engine.tokenizers.imported._pipeline.Charsmap",
    .tp_basicsize = sizeof(CharsmapObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A SentencePiece precompiled charsmap, checked (see the module docstring).",
    .tp_dealloc = (destructor)Charsmap_dealloc,
    .tp_methods = Charsmap_methods,
    .tp_new = Charsmap_new,
};
