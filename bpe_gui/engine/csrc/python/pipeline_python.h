/*
 * pipeline_python.h -- what the files of _pipeline's bindings share: the Model
 * object, the types, the conversions and errors of pipelinemodule.c that
 * pipeline_spm.c and pipeline_hf.c use, and the methods and functions those two
 * define for the module's tables. Include it after Python.h.
 */
#ifndef BPE_PY_PIPELINE_PYTHON_H
#define BPE_PY_PIPELINE_PYTHON_H

#include "imported/pipeline.h"

typedef struct {
    PyObject_HEAD
    PipeModel pm;
    /* tokenize's scratch, kept between calls (tokenize holds the GIL: one caller at a
       time): a fresh one per word made merging's tables again each call (token_boundaries.c's
       4 MB piece cache, a rank-based model's 1 MB memo: ~100 us a word, most of
       encode_with_offsets on Chinese); dropped when the model's configuration changes */
    MergeScratch x;
} Model;

extern PyTypeObject ModelType;
extern PyTypeObject CharsmapType; /* pipeline_spm.c */

/* pipelinemodule.c */
/* The exception of a PIPE_* error code; NULL. */
PyObject *pipe_error(const PipeModel *pm, int rc);
Model *new_model(int kind);
/* The exception of a failed pipe_tokenize; NULL. */
PyObject *tokenize_error(int err);
/* (m, (where, index, msg)): the model as far as it was loaded, and what stopped it
 * (NULL msg: m released, NULL). */
PyObject *problem(Model *m, const char *where, Py_ssize_t index, PyObject *msg);

/* pipeline_hf.c */
PyObject *Model_from_hf(PyObject *cls, PyObject *args);

/* pipeline_spm.c */
PyObject *Model_from_spm(PyObject *cls, PyObject *args);
PyObject *Model_spm_proto(PyObject *cls, PyObject *args);
PyObject *Model_spm_proto_ok(PyObject *cls, PyObject *args);
PyObject *Model_spm_proto_texts(PyObject *cls, PyObject *args);
PyObject *Model_from_spm_proto(PyObject *cls, PyObject *args);
PyObject *Model_encode_cut(Model *self, PyObject *args);
PyObject *Model_spm_normalizer(Model *self, PyObject *args);
PyObject *Model_spm_encode(Model *self, PyObject *args);
PyObject *Model_spm_encode_offsets(Model *self, PyObject *args);
PyObject *Model_spm_normalize(Model *self, PyObject *args);
PyObject *Model_spm_segments(Model *self, PyObject *args);
PyObject *py_set_grapheme_classes(PyObject *mod, PyObject *args);
PyObject *py_has_grapheme_classes(PyObject *mod, PyObject *noargs);

#endif
