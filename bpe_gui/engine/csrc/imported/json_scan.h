/*
 * json_scan.h -- reading the parts of a tokenizer.json that matter from its text,
 * without a Python object per entry (json_scan.c). Plain C.
 */
#ifndef BPE_JSON_SCAN_H
#define BPE_JSON_SCAN_H

#include <stddef.h>

/* a growing byte buffer (malloc'd: free p when done) */
typedef struct {
    char *p;
    size_t n, cap;
    int oom;    /* an append ran out of memory */
} Buf;

/* Append; 0, or -1 when out of memory (b->oom set). */
int buf_put(Buf *b, const char *p, size_t n);
const char *skip_ws(const char *p, const char *end);
/* A JSON string at p (the opening quote) into b as UTF-8; the position after it, or NULL
   if it is not a string this reader takes (the caller falls back to json). */
const char *read_string(const char *p, const char *end, Buf *b);

#endif
