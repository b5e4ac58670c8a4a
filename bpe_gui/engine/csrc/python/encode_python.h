/*
 * encode_python.h -- what the two files of _encode's bindings share: the Merger object
 * (encodemodule.c) that an Encoder (encoder_python.c) reads, its checks, and the types.
 * Include it after Python.h.
 */
#ifndef BPE_PY_ENCODE_PYTHON_H
#define BPE_PY_ENCODE_PYTHON_H

#include <stdint.h>

#include "merge/merge.h"
#include "merge/readers.h"
#include "python/convert.h"

typedef struct {
    PyObject_HEAD
    MergeTable own;
    const MergeTable *t; /* &own, or an imported model's table (Merger.wrap) */
    PyObject *owner;     /* that table's capsule, which keeps its model alive */
    MergeReaders readers; /* threads merging without the GIL (they come in with it held) */
    /* id -> int object, made once, so building the result list is a copy of pointers */
    BpeIdObjs ids;
    size_t id_objs_dense; /* every id below this has its object */
} Merger;

extern PyTypeObject MergerType;  /* encodemodule.c */
extern PyTypeObject EncoderType; /* encoder_python.c */

/* 0, or -1 with RuntimeError when m has no table yet */
int check_ready(Merger *m);
/* 0 if preset is a scanner id this process can scan with, else -1 with ValueError */
int check_preset(int preset);

#endif
