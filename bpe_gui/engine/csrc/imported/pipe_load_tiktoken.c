/*
 * pipe_load_tiktoken.c -- a .tiktoken ranks file ("BASE64 RANK" lines) into the tables.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "imported/pipeline.h"

/* A message with one %R: the given bytes. */
static PyObject *with_bytes(const char *fmt, const char *p, Py_ssize_t n) {
    PyObject *b = PyBytes_FromStringAndSize(p, n);
    if (!b) return NULL;
    PyObject *msg = PyUnicode_FromFormat(fmt, b);
    Py_DECREF(b);
    return msg;
}

PyObject *Model_from_tiktoken(PyObject *cls, PyObject *args) {
    Py_buffer data;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    const char *s = data.buf, *end = s + data.len;
    Model *m = new_model(KIND_TIKTOKEN);
    if (!m) goto fail0;
    /* first pass: the largest rank, so ids can be sized */
    long max_rank = -1, lines = 0;
    for (const char *p = s; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lines++;
        const char *sp = memchr(p, ' ', (size_t)(le - p));
        if (sp) {
            long r = 0;
            for (const char *q = sp + 1; q < le && *q >= '0' && *q <= '9' && r < MAX_IDS; q++)
                r = r * 10 + (*q - '0');
            if (r > max_rank) max_rank = r;
        }
        p = le + 1;
    }
    if (set_ids(m, max_rank + 1) < 0) goto fail;
    char buf[4096];
    long lineno = 0;
    for (const char *p = s; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        const char *line = p;
        p = le + 1;
        if (le > line && le[-1] == '\r') le--;
        if (le == line) continue;
        const char *sp = memchr(line, ' ', (size_t)(le - line));
        if (!sp || memchr(sp + 1, ' ', (size_t)(le - sp - 1)))
            goto bad_parts;
        Py_ssize_t n = (sp - line) <= (Py_ssize_t)(sizeof buf / 4 * 3) ?
                       b64_decode(line, sp - line, buf) : -1;
        if (n <= 0) {
            PyBuffer_Release(&data);
            return problem(m, "line", lineno, with_bytes("%R is not valid base64 (or is empty)",
                                                        line, sp - line > 40 ? 40 : sp - line));
        }
        long r = 0;
        const char *q = sp + 1;
        if (q == le) goto bad_rank;
        for (; q < le; q++) {
            if (*q < '0' || *q > '9' || r >= MAX_IDS) goto bad_rank;
            r = r * 10 + (*q - '0');
        }
        if (r > max_rank) goto bad_rank;
        if (m->first_entry[r] >= 0) {
            PyBuffer_Release(&data);
            return problem(m, "line", lineno,
                           PyUnicode_FromFormat("rank %ld was already given to another token", r));
        }
        /* lookups while loading need the hash: insert entries into a growing table */
        if (2 * (m->n_entries + 1) > m->n_slots && build_slots(m) < 0) goto fail;
        int added = add_key(m, buf, (size_t)n, (int32_t)r, 1);
        if (added < 0) goto fail;
        if (added == 0) {
            PyBuffer_Release(&data);
            char what[64];
            snprintf(what, sizeof what, "%%R was already given rank %d",
                     (int)find_key(m, buf, (size_t)n));
            return problem(m, "line", lineno, with_bytes(what, buf, n));
        }
        insert_slot(m, m->n_entries - 1);
        continue;
    bad_parts: {
        int parts = 1;
        for (const char *q = line; q < le; q++) parts += *q == ' ';
        PyBuffer_Release(&data);
        return problem(m, "line", lineno,
                       PyUnicode_FromFormat("each line must be 'BASE64 RANK' (token bytes in "
                                            "base64, one space, a whole number); this line "
                                            "has %d part(s)", parts));
    }
    bad_rank:
        PyBuffer_Release(&data);
        return problem(m, "line", lineno,
                       PyUnicode_FromString("the rank is not a whole number"));
    }
    PyBuffer_Release(&data);
    if (finish_tiktoken(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
fail:
    Py_XDECREF(m);
fail0:
    PyBuffer_Release(&data);
    return NULL;
}

/* ---- encoding --------------------------------------------------------------------- */
