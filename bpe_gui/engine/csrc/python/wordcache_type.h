/*
 * wordcache_type.h -- _encode.WordCache, the Python type around a WordCacheTable
 * (wordcache.h), in wordcache_type.c; Merger.encode_text (encodemodule.c) takes one.
 * Include after Python.h.
 */
#ifndef BPE_WORDCACHE_TYPE_H
#define BPE_WORDCACHE_TYPE_H

#include "merge/wordcache.h"

typedef struct {
    PyObject_HEAD
    WordCacheTable wc;
    int busy; /* in encode_text on some thread (set and read with the GIL held) */
} WordCache;

extern PyTypeObject WordCacheType;

#endif
