/*
 * json_scan.h -- reading the parts of a tokenizer.json that matter from its text,
 * without a Python object per entry (json_scan.c). Plain C.
 */
#ifndef BPE_JSON_SCAN_H
#define BPE_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/load.h" /* load8 */
#include "util/portable.h"

/* a growing byte buffer (malloc'd: free p when done) */
typedef struct {
    char *p;
    size_t n, cap;
    int oom;    /* an append ran out of memory */
} Buf;

/* Append; 0, or -1 when out of memory (b->oom set). */
int buf_put(Buf *b, const char *p, size_t n);


#define JSON_ONES 0x0101010101010101ull
#define JSON_HIGH 0x8080808080808080ull

/* Past JSON whitespace (a pretty-printed file's indentation 8 spaces at a time). */
static inline const char *skip_ws(const char *p, const char *end) {
    while (p < end) {
        char c = *p;
        if (c == ' ') {
            p++;
            while (end - p >= 8 && load8((const unsigned char *)p) == 0x20 * JSON_ONES) p += 8;
            while (p < end && *p == ' ') p++;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            p++;
        } else {
            break;
        }
    }
    return p;
}

/* A JSON string's text from q (just past its opening quote) when it holds no escape and
   no control character: its closing quote; else NULL (read_string takes it). Eight bytes
   at a time: the lowest byte flagged by these tests is the first such byte. */
static inline const char *plain_end(const char *q, const char *end) {
    while (end - q >= 8) {
        uint64_t v = load8((const unsigned char *)q), quote = v ^ ('"' * JSON_ONES), bs = v ^ ('\\' * JSON_ONES);
        uint64_t hit = ((quote - JSON_ONES) & ~quote) | ((bs - JSON_ONES) & ~bs) |
                       ((v - 0x20 * JSON_ONES) & ~v);
        hit &= JSON_HIGH;
        if (hit) {
            q += bpe_ctz64(hit) >> 3;
            return *q == '"' ? q : NULL;
        }
        q += 8;
    }
    for (; q < end; q++) {
        unsigned char c = (unsigned char)*q;
        if (c == '"') return q;
        if (c == '\\' || c < 0x20) return NULL;
    }
    return NULL;
}

/* A JSON string at p (the opening quote) into b as UTF-8; the position after it, or NULL
   if it is not a string this reader takes (the caller falls back to json). */
const char *read_string(const char *p, const char *end, Buf *b);

#endif
