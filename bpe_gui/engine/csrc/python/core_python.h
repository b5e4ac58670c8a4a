/*
 * core_python.h -- what the two files of _core's bindings share: the object around a
 * BpeCore (Core's and ColumnCore's: one layout, one `busy` guard), the guards every entry
 * point starts with, the int-array arguments, and the conversions of coremodule.c that
 * core_columns.c uses too. Include it after Python.h and core/core.h.
 */
#ifndef BPE_PY_CORE_PYTHON_H
#define BPE_PY_CORE_PYTHON_H

typedef struct {
    PyObject_HEAD
    BpeCore *core;  /* never NULL once constructed */
    int busy;       /* without the GIL on some thread (Core: run, replay; ColumnCore: merge,
                     * undo), set and read with the GIL held */
} CoreObject;

/* Every entry point starts here: while a call works without the GIL on another thread,
 * the tables may be reallocated under any reader, so nothing may be read meanwhile. */
static inline int check_idle(CoreObject *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core is busy on another thread (in run(), replay() or merge())");
        return -1;
    }
    return 0;
}

/* ... and those that read or change the training state also need it whole */
static inline int check_usable(CoreObject *self)
{
    if (check_idle(self) < 0)
        return -1;
    if (self->core->broken) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Core state was lost after a failed memory allocation");
        return -1;
    }
    return 0;
}

typedef struct {
    Py_buffer view;
    int has_view;
    void *owned;
    const void *data;
    Py_ssize_t n;
} IntArr;

/* accept a 1-d buffer of integers of the given item size, or any sequence of ints */
int intarr_get(PyObject *obj, int itemsize, const char *name, IntArr *out);
void intarr_release(IntArr *x);
/* the exception of a failed step's error code; NULL */
PyObject *raise_step_error(int err);
/* (a, b, count) */
PyObject *pair_tuple(const BpePairCount *p);
/* [(a, b, count), ...] of pairs[0..m) (m < 0: out of memory), pairs freed */
PyObject *pair_list(BpePairCount *pairs, int64_t m);
/* (nd, [ids...]) of a `touched` query (nd < 0: out of memory), ids freed */
PyObject *touched_result(int64_t nd, int32_t *ids, int64_t n_ids);
/* word w's symbols now as a list of ids */
PyObject *word_list(const BpeCore *c, Py_ssize_t w);

/* bpe_core_check's verdict: None, or AssertionError saying what is wrong (_check) */
PyObject *check_result(const BpeCore *c);
/* token(t) -> its bytes: the one method of both types (their objects are alike) */
PyObject *Core_token(CoreObject *self, PyObject *args);

extern PyTypeObject ColumnCoreType; /* core_columns.c */

#endif
