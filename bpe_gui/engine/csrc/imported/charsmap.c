/*
 * charsmap.c -- SentencePiece's precompiled character map (charsmap.h): checking a blob,
 * the two lookups, extended grapheme clusters, and tokenizers' Precompiled normalizer.
 * sentencepiece's own normalizer (which also removes extra spaces and adds the dummy
 * prefix) is in pipe_spm.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imported/charsmap.h"
#include "imported/pipeline.h"
#include "util/grow.h"

/* Darts-clone's unit: a leaf flag, a label, an offset to the children, or a value. */
static inline int u_leaf(uint32_t u) { return (u >> 8) & 1; }
static inline uint32_t u_value(uint32_t u) { return u & 0x7FFFFFFFu; }
static inline uint32_t u_label(uint32_t u) { return u & (0x80000000u | 0xFFu); }
static inline uint32_t u_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

int cm_put(CmBuf *b, const void *p, size_t n) {
    if (bpe_grow((void **)&b->p, &b->cap, b->n + n + 1, 1, 256) < 0) return PIPE_NOMEM;
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

/* Whether s[0..n) is UTF-8 (no overlong forms, no surrogates, up to U+10FFFF). */
static int valid_utf8(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned char b = s[i];
        if (b < 0x80) { i++; continue; }
        size_t k = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
        if (!k || b > 0xF4 || i + k > n) return 0;
        for (size_t j = 1; j < k; j++)
            if ((s[i + j] & 0xC0) != 0x80) return 0;
        uint32_t cp = cm_decode(s + i, k);
        if ((k == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
            (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return 0;
        i += k;
    }
    return 1;
}

static int refuse(char *err, size_t len, const char *msg) {
    snprintf(err, len, "%s", msg);
    return PIPE_INVALID;
}

/* Walk every node a lookup can reach: children inside the trie, leaves pointing at UTF-8
   strings inside the blob. */
static int check_trie(Charsmap *c, char *err, size_t el) {
    size_t n = c->n_units;
    uint8_t *seen = calloc(n, 1);
    size_t *stack = malloc(n * sizeof *stack), top = 0;
    int rc = 0;
    if (!seen || !stack) {
        rc = PIPE_NOMEM;
        goto done;
    }
    stack[top++] = u_offset(c->units[0]);
    memset(c->root, 0, sizeof c->root);
    int at_root = 1;
    while (top) {
        size_t base = stack[--top];
        for (uint32_t label = 1; label < 256; label++) {
            size_t child = base ^ label;
            if (child >= n) {
                rc = refuse(err, el, "its trie points outside itself (a child past the "
                            "last unit)");
                goto done;
            }
            uint32_t u = c->units[child];
            if (u_label(u) != label) continue;
            if (at_root) c->root[label] = 1;
            size_t next = child ^ u_offset(u);
            if (next >= n) {
                rc = refuse(err, el, "its trie points outside itself (an offset past the "
                            "last unit)");
                goto done;
            }
            if (u_leaf(u)) {
                uint32_t v = u_value(c->units[next]);
                if (v >= c->n_strs) {
                    rc = refuse(err, el, "a rule points outside the normalized strings");
                    goto done;
                }
                size_t e = v;
                while (e < c->n_strs && c->strs[e]) e++;
                if (!valid_utf8((const unsigned char *)c->strs + v, e - v)) {
                    rc = refuse(err, el, "a normalized string is not UTF-8");
                    goto done;
                }
            }
            if (!seen[child]) {
                seen[child] = 1;
                stack[top++] = next;
            }
        }
        at_root = 0;
    }
done:
    free(seen);
    free(stack);
    return rc;
}

int charsmap_load(Charsmap *c, const unsigned char *blob, size_t len, int hf, char *err,
                  size_t el) {
    memset(c, 0, sizeof *c);
    if (len <= 4) return refuse(err, el, "it is shorter than its 4-byte header");
    uint32_t size = (uint32_t)blob[0] | (uint32_t)blob[1] << 8 | (uint32_t)blob[2] << 16 |
                    (uint32_t)blob[3] << 24;
    if ((size_t)size >= len - 4 + (hf ? 1 : 0) || size >= len)
        return refuse(err, el, "its trie is said to be longer than the blob (truncated?)");
    if (size % 4 || size == 0)
        return refuse(err, el, "its trie size is not a positive multiple of 4 bytes");
    c->n_units = size / 4;
    c->n_strs = len - 4 - size;
    c->units = malloc(c->n_units * sizeof(uint32_t));
    c->strs = malloc(c->n_strs + 1);
    if (!c->units || !c->strs) {
        charsmap_free(c);
        return PIPE_NOMEM;
    }
    for (size_t i = 0; i < c->n_units; i++) {
        const unsigned char *p = blob + 4 + 4 * i;
        c->units[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                      (uint32_t)p[3] << 24;
    }
    memcpy(c->strs, blob + 4 + size, c->n_strs);
    c->strs[c->n_strs] = 0;
    int rc = 0;
    if (hf && !valid_utf8((const unsigned char *)c->strs, c->n_strs))
        rc = refuse(err, el, "its normalized strings are not UTF-8");
    if (!rc) rc = check_trie(c, err, el);
    if (rc) charsmap_free(c);
    return rc;
}

void charsmap_free(Charsmap *c) {
    free(c->units);
    free(c->strs);
    memset(c, 0, sizeof *c);
}

size_t charsmap_longest(const Charsmap *c, const unsigned char *s, size_t n, const char **out,
                        size_t *out_len) {
    if (!c->units || !n || !c->root[s[0]]) return 0;
    size_t pos = u_offset(c->units[0]), best = 0, found = 0;
    uint32_t value = 0;
    for (size_t i = 0; i < n; i++) {
        pos ^= s[i];
        if (pos >= c->n_units) break;
        uint32_t u = c->units[pos];
        if (u_label(u) != s[i]) break;
        pos ^= u_offset(u);
        if (pos >= c->n_units) break;
        if (u_leaf(u)) {
            /* sentencepiece keeps the first 32 results (kMaxTrieResultsSize) */
            if (found++ < 32) {
                best = i + 1;
                value = u_value(c->units[pos]);
            }
        }
    }
    if (!best) return 0;
    *out = c->strs + value;
    *out_len = strlen(c->strs + value);
    return best;
}

int charsmap_first(const Charsmap *c, const unsigned char *s, size_t n, const char **out,
                   size_t *out_len) {
    if (!c->units || !n || !c->root[s[0]]) return 0;
    size_t pos = u_offset(c->units[0]);
    for (size_t i = 0; i < n; i++) {
        if (!s[i]) return 0;
        pos ^= s[i];
        if (pos >= c->n_units) return 0;
        uint32_t u = c->units[pos];
        if (u_label(u) != s[i]) return 0;
        pos ^= u_offset(u);
        if (pos >= c->n_units) return 0;
        if (u_leaf(u)) {
            uint32_t v = u_value(c->units[pos]);
            *out = c->strs + v;
            *out_len = strlen(c->strs + v);
            return 1;
        }
    }
    return 0;
}

/* ---- extended grapheme clusters (UAX #29) ----------------------------------------- */

static inline uint8_t cls_at(const uint8_t *cls, const unsigned char *s, size_t k) {
    uint32_t cp = cm_decode(s, k);
    return cp < 0x110000 ? cls[cp] : GCB_OTHER;
}

size_t grapheme_end(const uint8_t *cls, const unsigned char *s, size_t n, size_t i) {
    size_t k = cm_char_len(s[i]);
    if (i + k > n) return n;
    uint8_t prev = cls_at(cls, s + i, k), pg = prev & 15;
    size_t j = i + k;
    int pict = (prev & GCB_PICT) != 0;          /* GB11: ExtPict Extend* (ZWJ) so far */
    int ri = pg == GCB_RI;                      /* GB12/13: regional indicators in a row */
    int incb = (prev & INCB_MASK) == INCB_CONSONANT ? 1 : 0; /* GB9c: 1 consonant seen,
                                                              2 and a linker after it */
    while (j < n) {
        size_t kk = cm_char_len(s[j]);
        if (j + kk > n) return n;
        uint8_t cur = cls_at(cls, s + j, kk), cg = cur & 15;
        int join;
        if (pg == GCB_CR && cg == GCB_LF) join = 1;                               /* GB3 */
        else if (pg == GCB_CR || pg == GCB_LF || pg == GCB_CONTROL) join = 0;     /* GB4 */
        else if (cg == GCB_CR || cg == GCB_LF || cg == GCB_CONTROL) join = 0;     /* GB5 */
        else if (pg == GCB_L && (cg == GCB_L || cg == GCB_V || cg == GCB_LV || cg == GCB_LVT))
            join = 1;                                                             /* GB6 */
        else if ((pg == GCB_LV || pg == GCB_V) && (cg == GCB_V || cg == GCB_T)) join = 1;
        else if ((pg == GCB_LVT || pg == GCB_T) && cg == GCB_T) join = 1;         /* GB8 */
        else if (cg == GCB_EXTEND || cg == GCB_ZWJ || cg == GCB_SPACINGMARK) join = 1;
        else if (pg == GCB_PREPEND) join = 1;                                     /* GB9b */
        else if (incb == 2 && (cur & INCB_MASK) == INCB_CONSONANT) join = 1;      /* GB9c */
        else if (pict == 2 && (cur & GCB_PICT)) join = 1;                         /* GB11 */
        else if (pg == GCB_RI && cg == GCB_RI && (ri & 1)) join = 1;              /* GB12/13 */
        else join = 0;
        if (!join) return j;
        /* the states of GB9c, GB11, GB12 after cur */
        uint8_t ic = cur & INCB_MASK;
        if (ic == INCB_CONSONANT) incb = 1;
        else if (incb && ic == INCB_LINKER) incb = 2;
        else if (incb && ic == INCB_EXTEND) { /* stays */ }
        else incb = 0;
        if (cur & GCB_PICT) pict = 1;
        else if (pict && cg == GCB_EXTEND) { /* stays */ }
        else if (pict == 1 && cg == GCB_ZWJ) pict = 2;
        else pict = 0;
        ri = cg == GCB_RI ? ri + 1 : 0;
        prev = cur;
        pg = cg;
        j += kk;
    }
    return n;
}

/* ---- tokenizers' Precompiled ------------------------------------------------------- */

static size_t count_chars(const char *p, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += ((unsigned char)p[i] & 0xC0) != 0x80;
    return c;
}

/* tokenizers' replace(): new_part's characters (change 0), the last `diff` made inserts,
   or the last change lowered by the characters removed. */
static int hf_replace(CmBuf *out, int32_t **ch, size_t *nch, size_t *cap, size_t old_chars,
                      const char *new_part, size_t new_len) {
    if (cm_put(out, new_part, new_len) < 0) return PIPE_NOMEM;
    if (!ch) return 0;
    size_t nc = count_chars(new_part, new_len);
    if (bpe_grow((void **)ch, cap, *nch + nc + 1, sizeof(int32_t), 1024) < 0) return PIPE_NOMEM;
    for (size_t i = 0; i < nc; i++) (*ch)[(*nch)++] = 0;
    ptrdiff_t diff = (ptrdiff_t)nc - (ptrdiff_t)old_chars;
    if (diff > 0) {
        for (size_t i = 0; i < (size_t)diff && i < *nch; i++) (*ch)[*nch - 1 - i] = 1;
    } else if (diff < 0 && *nch) {
        (*ch)[*nch - 1] += (int32_t)diff;
    }
    return 0;
}

int charsmap_hf(const Charsmap *c, const uint8_t *cls, const unsigned char *s, size_t n,
                CmBuf *out, int32_t **changes, size_t *n_changes) {
    size_t cap = 0;
    if (changes) {
        *changes = NULL;
        *n_changes = 0;
    }
    const char *norm;
    size_t nl;
    for (size_t i = 0; i < n;) {
        size_t k = cm_char_len(s[i]);
        if (i + k > n) k = n - i;
        size_t e = i + k;
        /* a cluster matters only when it is shorter than 6 bytes and more than one
           character; a character that can start no cluster of two is its own */
        if (e < n && (s[e] >= 0x80 || s[i] == '\r' || s[i] >= 0x80)) e = grapheme_end(cls, s, n, i);
        if (e - i < 6 && charsmap_first(c, s + i, e - i, &norm, &nl)) {
            if (hf_replace(out, changes, n_changes, &cap, count_chars((const char *)s + i, e - i),
                           norm, nl) < 0)
                return PIPE_NOMEM;
            i = e;
            continue;
        }
        while (i < e) {
            size_t kk = cm_char_len(s[i]);
            if (i + kk > e) kk = e - i;
            if (charsmap_first(c, s + i, kk, &norm, &nl)) {
                if (hf_replace(out, changes, n_changes, &cap, 1, norm, nl) < 0) return PIPE_NOMEM;
            } else {
                if (cm_put(out, s + i, kk) < 0) return PIPE_NOMEM;
                if (changes) {
                    if (bpe_grow((void **)changes, &cap, *n_changes + 1, sizeof(int32_t), 1024) < 0)
                        return PIPE_NOMEM;
                    (*changes)[(*n_changes)++] = 0;
                }
            }
            i += kk;
        }
    }
    return 0;
}
