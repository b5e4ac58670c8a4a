/*
 * json_scan.c -- JSON strings and values read from a tokenizer.json's text, and where its
 * model.vocab and model.merges are (find_model_tables). Python's json module makes ~700k
 * objects of a 128k-token file's vocab and merges (a third of a second); these are read
 * from the text instead, into the tables (pipe_load_hf.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imported/json_scan.h"
#include "imported/pipeline.h"
#include "util/grow.h"


int buf_put(Buf *b, const char *p, size_t n) {
    if (bpe_grow((void **)&b->p, &b->cap, b->n + n, 1, 256) < 0) {
        b->oom = 1;
        return -1;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}


static int hex4(const char *p, const char *end, uint32_t *v) {
    if (end - p < 4) return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        *v = *v * 16 + (uint32_t)d;
    }
    return 0;
}

static size_t utf8_put(uint32_t c, char *o) {
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xC0 | c >> 6); o[1] = (char)(0x80 | (c & 63)); return 2; }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12); o[1] = (char)(0x80 | (c >> 6 & 63));
        o[2] = (char)(0x80 | (c & 63));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18); o[1] = (char)(0x80 | (c >> 12 & 63));
    o[2] = (char)(0x80 | (c >> 6 & 63)); o[3] = (char)(0x80 | (c & 63));
    return 4;
}

/* A JSON string at p (the opening quote) into b as UTF-8; returns the position after it,
   or NULL if it is not a string this reader takes (the caller falls back to json). */
const char *read_string(const char *p, const char *end, Buf *b) {
    if (p >= end || *p != '"') return NULL;
    p++;
    b->n = 0;
    for (;;) {
        const char *q = p;
        while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20) q++;
        if (q > p && buf_put(b, p, (size_t)(q - p)) < 0) return NULL;
        if (q >= end || (unsigned char)*q < 0x20) return NULL;
        if (*q == '"') return q + 1;
        q++; /* backslash */
        if (q >= end) return NULL;
        char c = *q++, o[4];
        size_t n = 1;
        switch (c) {
        case '"': case '\\': case '/': o[0] = c; break;
        case 'b': o[0] = '\b'; break;
        case 'f': o[0] = '\f'; break;
        case 'n': o[0] = '\n'; break;
        case 'r': o[0] = '\r'; break;
        case 't': o[0] = '\t'; break;
        case 'u': {
            uint32_t v, lo;
            if (hex4(q, end, &v) < 0) return NULL;
            q += 4;
            if (v >= 0xD800 && v < 0xDC00) {
                if (end - q < 6 || q[0] != '\\' || q[1] != 'u' || hex4(q + 2, end, &lo) < 0 ||
                    lo < 0xDC00 || lo >= 0xE000)
                    return NULL; /* a lone surrogate: let json report it */
                v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            } else if (v >= 0xDC00 && v < 0xE000) {
                return NULL;
            }
            n = utf8_put(v, o);
            break;
        }
        default:
            return NULL;
        }
        if (buf_put(b, o, n) < 0) return NULL;
        p = q;
    }
}

/* Past a JSON string at p (the opening quote), as read_string takes it, without copying
   it when it has no escape (most keys); NULL where read_string gives NULL. */
static inline const char *skip_string(const char *p, const char *end, Buf *scratch) {
    const char *q = plain_end(p + 1, end);
    return q ? q + 1 : read_string(p, end, scratch);
}

static inline int value_char(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '+' || c == '.';
}

static const char *skip_value(const char *p, const char *end, Buf *scratch) {
    p = skip_ws(p, end);
    if (p >= end) return NULL;
    if (*p == '"') return skip_string(p, end, scratch);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = skip_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (obj) {
                p = skip_ws(p, end);
                if (p >= end || *p != '"') return NULL;
                p = skip_string(p, end, scratch);
                if (!p) return NULL;
                p = skip_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            p = skip_value(p, end, scratch);
            if (!p) return NULL;
            p = skip_ws(p, end);
            if (p < end && *p == ',') { p++; continue; }
            if (p < end && *p == close) return p + 1;
            return NULL;
        }
    }
    const char *q = p;
    while (q < end && value_char((unsigned char)*q)) q++;
    return q > p ? q : NULL;
}

/* Spans (start, end) of model.vocab and model.merges in a tokenizer.json (see pipeline.h). */
int find_model_tables(const char *s, size_t n, ptrdiff_t spans[4]) {
    const char *end = s + n, *p = s;
    Buf key = {0}, scratch = {0};
    ptrdiff_t vs = -1, ve = -1, ms = -1, me = -1;
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    p = skip_ws(p, end);
    if (p >= end || *p != '{') goto none;
    p = skip_ws(p + 1, end);
    while (p < end && *p != '}') {
        p = read_string(p, end, &key);
        if (!p) goto none;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') goto none;
        p = skip_ws(p + 1, end);
        if (key.n == 5 && memcmp(key.p, "model", 5) == 0 && p < end && *p == '{') {
            p = skip_ws(p + 1, end);
            while (p < end && *p != '}') {
                p = read_string(p, end, &key);
                if (!p) goto none;
                p = skip_ws(p, end);
                if (p >= end || *p != ':') goto none;
                p = skip_ws(p + 1, end);
                const char *v0 = p;
                p = skip_value(p, end, &scratch);
                if (!p) goto none;
                if (key.n == 5 && memcmp(key.p, "vocab", 5) == 0 && *v0 == '{') {
                    vs = v0 - s; ve = p - s;
                } else if (key.n == 6 && memcmp(key.p, "merges", 6) == 0 && *v0 == '[') {
                    ms = v0 - s; me = p - s;
                }
                p = skip_ws(p, end);
                if (p < end && *p == ',') p = skip_ws(p + 1, end);
            }
            if (p >= end) goto none;
            p++;
        } else {
            p = skip_value(p, end, &scratch);
            if (!p) goto none;
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    free(key.p);
    free(scratch.p);
    if (vs < 0 || ms < 0) return 0;
    spans[0] = vs;
    spans[1] = ve;
    spans[2] = ms;
    spans[3] = me;
    return 1;
none: /* (also when out of memory: the caller falls back to json) */
    free(key.p);
    free(scratch.p);
    return 0;
}

