/*
 * pipe_load_hf.c -- a tokenizer.json's BPE model into the tables: from the dict and list
 * json made (from_hf), or straight from the file's text (from_hf_text).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "imported/pipeline.h"
#include "imported/json_scan.h"


/* The bytes a ByteLevel key stands for; -1 if a character is not in GPT-2's alphabet. */
static Py_ssize_t byte_level_bytes(PyObject *key, char *out, Py_ssize_t cap) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (n > cap) return -1;
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 512 || cp_to_byte[c] < 0) return -1;
        out[i] = (char)cp_to_byte[c];
    }
    return n;
}

static PyObject *merge_parts(PyObject *item, PyObject **a, PyObject **b) {
    /* returns a new list/tuple-free pair of borrowed-or-new refs in *a, *b (new refs) */
    if (PyUnicode_Check(item)) {
        /* tokenizers splits on ' ' exactly (str.split() would also cut at other spaces) */
        PyObject *sep = PyUnicode_FromString(" ");
        if (!sep) return NULL;
        PyObject *parts = PyUnicode_Split(item, sep, -1);
        Py_DECREF(sep);
        if (!parts) return NULL;
        if (PyList_GET_SIZE(parts) != 2) {
            Py_DECREF(parts);
            return Py_None;
        }
        *a = PyList_GET_ITEM(parts, 0);
        *b = PyList_GET_ITEM(parts, 1);
        Py_INCREF(*a);
        Py_INCREF(*b);
        Py_DECREF(parts);
    } else if ((PyList_Check(item) || PyTuple_Check(item)) && PySequence_Size(item) == 2) {
        *a = PySequence_GetItem(item, 0);
        *b = PySequence_GetItem(item, 1);
        if (!*a || !*b) {
            Py_XDECREF(*a);
            Py_XDECREF(*b);
            return NULL;
        }
        if (!PyUnicode_Check(*a) || !PyUnicode_Check(*b)) {
            Py_DECREF(*a);
            Py_DECREF(*b);
            return Py_None;
        }
    } else {
        return Py_None;
    }
    if (PyUnicode_GET_LENGTH(*a) == 0 || PyUnicode_GET_LENGTH(*b) == 0) {
        Py_DECREF(*a);
        Py_DECREF(*b);
        return Py_None;
    }
    return item;
}

PyObject *Model_from_hf(PyObject *cls, PyObject *args) {
    PyObject *vocab, *merges;
    int byte_level;
    (void)cls;
    if (!PyArg_ParseTuple(args, "O!O!p", &PyDict_Type, &vocab, &PyList_Type, &merges,
                          &byte_level))
        return NULL;
    Model *m = new_model(KIND_HF);
    if (!m) return NULL;
    m->byte_level = byte_level;
    PyObject *k, *v;
    Py_ssize_t pos = 0, max_id = -1;
    while (PyDict_Next(vocab, &pos, &k, &v)) {
        long id = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsLong(v) : -1;
        if (id == -1 && PyErr_Occurred()) PyErr_Clear();
        if (!PyUnicode_Check(k) || id < 0 || id >= MAX_IDS)
            return problem(m, "vocab", pos - 1,
                           PyUnicode_FromFormat("the id %R of %R is not a whole number from 0 "
                                                "to %d", v, k, MAX_IDS - 1));
        if (id > max_id) max_id = id;
    }
    if (set_ids(m, max_id + 1) < 0) goto fail;
    char buf[1024];
    pos = 0;
    while (PyDict_Next(vocab, &pos, &k, &v)) {
        int32_t id = (int32_t)PyLong_AsLong(v);
        Py_ssize_t n = byte_level ? byte_level_bytes(k, buf, sizeof buf) : -1;
        int lookup = 1;
        const char *p = buf;
        if (n < 0) { /* UTF-8 text: a char-level key, or a ByteLevel vocab's added token */
            lookup = !byte_level;
            p = PyUnicode_AsUTF8AndSize(k, &n);
            if (!p) goto fail;
        }
        if (add_key(m, p, (size_t)n, id, lookup) < 0) goto fail;
    }
    if (build_slots(m) < 0 || start_merges(m) < 0) goto fail;
    Py_ssize_t nm = PyList_GET_SIZE(merges);
    for (Py_ssize_t i = 0; i < nm; i++) {
        PyObject *a = NULL, *b = NULL;
        PyObject *ok = merge_parts(PyList_GET_ITEM(merges, i), &a, &b);
        if (!ok) goto fail;
        if (ok == Py_None)
            return problem(m, "merges", i,
                           PyUnicode_FromFormat("the merge %R should be \"left right\" or "
                                                "[\"left\", \"right\"]",
                                                PyList_GET_ITEM(merges, i)));
        PyObject *ab = PyUnicode_Concat(a, b);
        if (!ab) {
            Py_DECREF(a);
            Py_DECREF(b);
            goto fail;
        }
        PyObject *parts[3] = {a, b, ab};
        long ids[3];
        for (int j = 0; j < 3; j++) {
            PyObject *idv = PyDict_GetItemWithError(vocab, parts[j]);
            if (!idv) {
                PyObject *msg = PyErr_Occurred() ? NULL :
                    PyUnicode_FromFormat("the %s %R of the merge %R %R is not in the vocabulary",
                                         j == 2 ? "merged token" : "token", parts[j], a, b);
                Py_DECREF(a);
                Py_DECREF(b);
                Py_DECREF(ab);
                if (!msg) goto fail;
                return problem(m, "merges", i, msg);
            }
            ids[j] = PyLong_AsLong(idv);
        }
        Py_DECREF(a);
        Py_DECREF(b);
        Py_DECREF(ab);
        if (add_merge(m, (int32_t)ids[0], (int32_t)ids[1], (int32_t)i, (int32_t)ids[2]) < 0)
            goto fail;
    }
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
fail:
    Py_DECREF(m);
    return NULL;
}

static Py_ssize_t utf8_byte_level(const char *p, size_t n, char *out) {
    Py_ssize_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)p[i];
        uint32_t cp;
        if (c < 0x80) { cp = c; i += 1; }
        else if (c < 0xE0 && i + 1 < n) { cp = (uint32_t)(c & 31) << 6 | (p[i + 1] & 63); i += 2; }
        else return -1; /* the alphabet stops at U+0143: two bytes at most */
        if (cp >= 512 || cp_to_byte[cp] < 0) return -1;
        out[o++] = (char)cp_to_byte[cp];
    }
    return o;
}

int32_t text_key_id(const Model *m, const char *p, size_t n, char *tmp) {
    if (m->byte_level) {
        Py_ssize_t k = utf8_byte_level(p, n, tmp);
        return k < 0 ? NONE_ID : find_key(m, tmp, (size_t)k);
    }
    return find_key(m, p, n);
}

static PyObject *text_problem(Model *m, Py_ssize_t i, const char *what, Buf *a, Buf *b,
                              const char *part, size_t part_n) {
    PyObject *sa = PyUnicode_DecodeUTF8(a->p, (Py_ssize_t)a->n, "replace");
    PyObject *sb = PyUnicode_DecodeUTF8(b->p, (Py_ssize_t)b->n, "replace");
    PyObject *sp = PyUnicode_DecodeUTF8(part, (Py_ssize_t)part_n, "replace");
    PyObject *msg = (sa && sb && sp) ?
        PyUnicode_FromFormat("the %s %R of the merge %R %R is not in the vocabulary", what, sp,
                             sa, sb) : NULL;
    Py_XDECREF(sa);
    Py_XDECREF(sb);
    Py_XDECREF(sp);
    return problem(m, "merges", i, msg);
}

/* from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) or None
   (None: something this reader does not take; use json and from_hf instead). */
PyObject *Model_from_hf_text(PyObject *cls, PyObject *args) {
    Py_buffer data;
    Py_ssize_t vs, ve, ms, me;
    int byte_level;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*(nn)(nn)p", &data, &vs, &ve, &ms, &me, &byte_level))
        return NULL;
    const char *s = data.buf, *p, *end;
    Buf key = {0}, a = {0}, b = {0};
    char *tmp = NULL;
    Model *m = new_model(KIND_HF);
    if (!m) goto fail;
    m->byte_level = byte_level;
    /* pass 1: the largest id */
    long max_id = -1, n_keys = 0;
    for (p = skip_ws(s + vs + 1, s + ve), end = s + ve; p < end && *p != '}';) {
        p = read_string(p, end, &key);
        if (!p) goto fallback;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') goto fallback;
        p = skip_ws(p + 1, end);
        long id = 0;
        if (p >= end || *p < '0' || *p > '9') goto fallback;
        while (p < end && *p >= '0' && *p <= '9' && id < MAX_IDS) id = id * 10 + (*p++ - '0');
        if (id >= MAX_IDS || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) goto fallback;
        if (id > max_id) max_id = id;
        n_keys++;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    if (set_ids(m, max_id + 1) < 0) goto fail;
    /* pass 2: the keys */
    for (p = skip_ws(s + vs + 1, end); p < end && *p != '}';) {
        p = read_string(p, end, &key);
        p = skip_ws(p, end);
        p = skip_ws(p + 1, end);
        long id = 0;
        while (p < end && *p >= '0' && *p <= '9') id = id * 10 + (*p++ - '0');
        int lookup = 1;
        const char *kp = key.p;
        Py_ssize_t kn = (Py_ssize_t)key.n;
        if (byte_level) {
            if (key.n > (size_t)a.cap && buf_put(&a, key.p, key.n) < 0) goto fail;
            a.n = 0;
            Py_ssize_t k = utf8_byte_level(key.p, key.n, a.p);
            if (k >= 0) { kp = a.p; kn = k; } else { lookup = 0; }
        }
        if (add_key(m, kp ? kp : "", (size_t)kn, (int32_t)id, lookup) < 0) goto fail;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    if (build_slots(m) < 0 || start_merges(m) < 0) goto fail;
    /* the merges: "a b" strings or ["a", "b"] pairs */
    Py_ssize_t i = 0;
    for (p = skip_ws(s + ms + 1, s + me), end = s + me; p < end && *p != ']'; i++) {
        if (*p == '"') {
            p = read_string(p, end, &key);
            if (!p) goto fallback;
            char *sp = key.n ? memchr(key.p, ' ', key.n) : NULL;
            if (!sp || sp == key.p || sp == key.p + key.n - 1 ||
                memchr(sp + 1, ' ', (size_t)(key.p + key.n - sp - 1)))
                goto bad_merge;
            a.n = b.n = 0;
            if (buf_put(&a, key.p, (size_t)(sp - key.p)) < 0 ||
                buf_put(&b, sp + 1, (size_t)(key.p + key.n - sp - 1)) < 0)
                goto fail;
        } else if (*p == '[') {
            p = read_string(skip_ws(p + 1, end), end, &a);
            if (!p) goto bad_merge_fb;
            p = skip_ws(p, end);
            if (p >= end || *p != ',') goto bad_merge_fb;
            p = read_string(skip_ws(p + 1, end), end, &b);
            if (!p) goto bad_merge_fb;
            p = skip_ws(p, end);
            if (p >= end || *p != ']') goto bad_merge_fb;
            p++;
            if (!a.n || !b.n) goto bad_merge;
        } else {
            goto bad_merge_fb;
        }
        tmp = PyMem_Realloc(tmp, a.n + b.n + 1);
        if (!tmp || buf_put(&key, "", 0) < 0) goto fail;
        key.n = 0;
        if (buf_put(&key, a.p, a.n) < 0 || buf_put(&key, b.p, b.n) < 0) goto fail;
        int32_t ia = text_key_id(m, a.p, a.n, tmp), ib = text_key_id(m, b.p, b.n, tmp),
                iab = text_key_id(m, key.p, key.n, tmp);
        if (ia == NONE_ID || ib == NONE_ID || iab == NONE_ID) {
            PyObject *r = ia == NONE_ID ? text_problem(m, i, "token", &a, &b, a.p, a.n) :
                          ib == NONE_ID ? text_problem(m, i, "token", &a, &b, b.p, b.n) :
                          text_problem(m, i, "merged token", &a, &b, key.p, key.n);
            m = NULL;
            PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
            PyBuffer_Release(&data);
            return r;
        }
        if (add_merge(m, ia, ib, (int32_t)i, iab) < 0)
            goto fail;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
    PyBuffer_Release(&data);
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
bad_merge: {
        PyObject *txt = PyUnicode_DecodeUTF8(key.p, (Py_ssize_t)key.n, "replace");
        PyObject *msg = txt ? PyUnicode_FromFormat("the merge %R should be \"left right\" or "
                                                   "[\"left\", \"right\"]", txt) : NULL;
        Py_XDECREF(txt);
        PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
        PyBuffer_Release(&data);
        return problem(m, "merges", i, msg);
    }
bad_merge_fb:
fallback:
    Py_XDECREF(m);
    PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
    PyBuffer_Release(&data);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
fail:
    Py_XDECREF(m);
    PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
    PyBuffer_Release(&data);
    return NULL;
}
