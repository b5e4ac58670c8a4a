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
        PyErr_SetString(PyExc_RuntimeError, "Core is busy on another thread (building, "
                        "stepping, undoing, merging, replaying or running)");
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


/* A new object of `type` around a new, empty core (tie rule checked for a core with
 * columns or not); NULL with an exception set. Core_dealloc frees both types'. */
CoreObject *core_alloc(PyTypeObject *type, int tie, int keep_undo, int columns);
void Core_dealloc(CoreObject *self);
/* the exception of a failed build (*is_mem: MemoryError, else ValueError msg); -1 */
int raise_build_error(const char *msg, int is_mem);
/* the exception of a failed step's error code; NULL */
PyObject *raise_step_error(int err);
/* (a, b, count) */
PyObject *pair_tuple(const BpePairCount *p);
/* (nd, [ids...]) of a `touched` query (nd < 0: out of memory), ids freed */
PyObject *touched_result(int64_t nd, int32_t *ids, int64_t n_ids);
/* word w's symbols now as a list of ids */
PyObject *word_list(const BpeCore *c, Py_ssize_t w);
/* [(a, b, count), ...] of up to k best pairs of the core (col < 0) or of column col */
PyObject *top_list(BpeCore *c, int32_t col, Py_ssize_t k, int same_count_only);

/* bpe_core_check's verdict: None, or AssertionError saying what is wrong (_check) */
PyObject *check_result(const BpeCore *c);
/* The methods of both types (their objects are alike): token(t) -> its bytes, word(w),
 * undo() -> (a, b, new_id), symbol_count(t), _stats(); and merge's parsing and step,
 * each formatting its result */
PyObject *Core_token(CoreObject *self, PyObject *args);
PyObject *Core_word(CoreObject *self, PyObject *args);
PyObject *Core_undo(CoreObject *self, PyObject *ignored);
PyObject *Core_symbol_count(CoreObject *self, PyObject *args);
PyObject *Core_stats(CoreObject *self, PyObject *ignored);
int core_merge(CoreObject *self, PyObject *args, StepRec *r);

/* The properties both types have, and core_get's codes (the closure) for the others */
enum { CORE_N_TOKENS, CORE_N_STEPS, CORE_N_WORDS, CORE_TIE_RULE, CORE_TOTAL_SYMBOLS,
       CORE_N_PAIRS, CORE_N_COLUMNS, CORE_N_HEAPED };
PyObject *core_get(CoreObject *self, void *closure);
#define CORE_GETSET_COMMON                                                         \
    {"n_tokens", (getter)core_get, NULL, "number of tokens (base + merged)",       \
     (void *)CORE_N_TOKENS},                                                       \
    {"n_steps", (getter)core_get, NULL, "number of merges done", (void *)CORE_N_STEPS}, \
    {"n_words", (getter)core_get, NULL, "number of words", (void *)CORE_N_WORDS}

extern PyTypeObject ColumnCoreType; /* core_columns.c */

#endif
