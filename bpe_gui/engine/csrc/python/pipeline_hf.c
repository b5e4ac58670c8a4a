/*
 * pipeline_hf.c -- _pipeline's Model.from_hf: a Hugging Face BPE model's vocab and merges
 * from the dict and list json made (pipelinemodule.c has the rest of the bindings).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "imported/pipeline.h"
#include "python/convert.h"
#include "python/pipeline_python.h"
#include "util/utf8.h"

/* The bytes a ByteLevel key stands for (chars_byte_level on the str's own characters);
   -1 if a character is not in GPT-2's alphabet. */
static Py_ssize_t byte_level_bytes(PyObject *key, char *out, Py_ssize_t cap) {
    return chars_byte_level(PyUnicode_KIND(key), PyUnicode_DATA(key),
                            (size_t)PyUnicode_GET_LENGTH(key), out, (size_t)cap);
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

/* from_hf(vocab, merges, byte_level): the tables from the dict and list json made. */
PyObject *Model_from_hf(PyObject *cls, PyObject *args) {
    PyObject *vocab, *merges;
    int byte_level;
    (void)cls;
    if (!PyArg_ParseTuple(args, "O!O!p", &PyDict_Type, &vocab, &PyList_Type, &merges,
                          &byte_level))
        return NULL;
    Model *m = new_model(KIND_HF);
    if (!m) return NULL;
    PipeModel *pm = &m->pm;
    int rc;
    pm->byte_level = byte_level;
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
    if ((rc = set_ids(pm, max_id + 1)) < 0) goto error;
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
        if ((rc = add_key(pm, p, (size_t)n, id, lookup)) < 0) goto error;
    }
    if ((rc = build_slots(pm)) < 0 || (rc = start_merges(pm)) < 0) goto error;
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
        if ((rc = add_merge(pm, (int32_t)ids[0], (int32_t)ids[1], (int32_t)i,
                            (int32_t)ids[2])) < 0)
            goto error;
    }
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
error:
    pipe_error(pm, rc);
fail:
    Py_DECREF(m);
    return NULL;
}
