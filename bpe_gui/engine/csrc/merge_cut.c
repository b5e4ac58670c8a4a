/*
 * merge_cut.c -- rank-based models (tiktoken): a long word cut where no token can cross,
 * each piece merged on its own.
 *
 * Why: under cl100k's and o200k's patterns a Chinese clause is one word of 30-100 bytes,
 * new to the word cache; merging it whole costs a heap and a pair lookup per merge. But
 * every symbol merging makes is a token whose bytes lie in the word, so where no token
 * of the vocabulary spans a position p (w[a..b) with a < p < b is never a token), no
 * merge ever joins the two sides of p: merging each side alone gives the same symbols
 * (the lowest-rank-leftmost order restricted to one side is that side's own order, since
 * no pair across p has a rank). Between most Han characters no token crosses; the pieces
 * are one to three characters, merged by the short-word scan.
 *
 * Deciding "no token crosses p" exactly would need every token crossing p; instead a few
 * bit tables over short byte strings (filled from every token at load) answer "surely
 * none" or "maybe" -- a "maybe" only leaves p uncut, so ids never change:
 *   level L = 2..5: if no L-byte window of the word across p lies inside any token, no
 *   token of L bytes or more crosses p; tokens shorter than L crossing p are exactly the
 *   shorter windows across p, each already checked against "is a token" at its level.
 * 2 and 3 bytes are exact tables; 4 and 5 bytes share one hashed table (a collision only
 * says "maybe").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define SUBH_BITS 25 /* 4 MB; o200k puts ~2M short strings in it */
#define CUT_FROM 9   /* shorter words are merged whole (nothing to win) */
#define PIECE_MAX 7  /* pieces up to 7 bytes are remembered (a key of one uint64) */
#define PIECE_BITS 13

/* a piece's tokens: key = its bytes (little-endian) | length << 56; 0: empty */
struct MergePiece {
    uint64_t key;
    int32_t ids[PIECE_MAX];
    uint8_t n, ends[PIECE_MAX];
};

enum { IN4 = 1, TOK4 = 2, IN5 = 3 };

/* 8 bytes at p, the first in the lowest bits, on any host */
static inline uint64_t load8(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* n <= 8 bytes at p, as load8; `room`: bytes readable from p (>= 8: one load) */
static inline uint64_t load_le(const unsigned char *p, size_t n, size_t room)
{
    if (room >= 8)
        return n == 8 ? load8(p) : load8(p) & (~0ull >> (64 - 8 * n));
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline size_t subh_bit(int kind, uint64_t v)
{
    return (size_t)(((v | (uint64_t)kind << 56) * 0x9E3779B97F4A7C15ull) >> (64 - SUBH_BITS));
}

static inline int has(const uint64_t *bits, size_t i)
{
    return (int)(bits[i >> 6] >> (i & 63) & 1);
}

static inline void set(uint64_t *bits, size_t i)
{
    bits[i >> 6] |= 1ull << (i & 63);
}

int mt_add_token(MergeTable *m, const unsigned char *p, size_t len)
{
    if (!m->sub2) {
        m->sub2 = calloc((2u << 16) / 64, sizeof(uint64_t));
        m->sub3 = calloc((2u << 24) / 64, sizeof(uint64_t));
        m->subh = calloc(((size_t)1 << SUBH_BITS) / 64, sizeof(uint64_t));
        if (!m->sub2 || !m->sub3 || !m->subh) {
            free(m->sub2), free(m->sub3), free(m->subh);
            m->sub2 = m->sub3 = m->subh = NULL;
            return -1;
        }
    }
    /* every string of 2..5 bytes inside the token; the token itself also as a token */
    for (size_t i = 0; i + 2 <= len; i++)
        set(m->sub2, 2 * load_le(p + i, 2, 0));
    for (size_t i = 0; i + 3 <= len; i++)
        set(m->sub3, 2 * load_le(p + i, 3, 0));
    for (size_t i = 0; i + 4 <= len; i++)
        set(m->subh, subh_bit(IN4, load_le(p + i, 4, 0)));
    if (len == 2)
        set(m->sub2, 2 * load_le(p, 2, 0) + 1);
    if (len == 3)
        set(m->sub3, 2 * load_le(p, 3, 0) + 1);
    if (len == 4)
        set(m->subh, subh_bit(TOK4, load_le(p, 4, 0)));
    for (size_t i = 0; i + 5 <= len; i++)
        set(m->subh, subh_bit(IN5, load_le(p + i, 5, 0)));
    return 0;
}

/* The windows of L bytes across p: L-1 of them, starting at p-L+1 .. p-1; win(L, s) is
 * the one starting at p-L+1+s. A level answers 1: no token crosses p; 0: one does; -1:
 * go on (tokens of L bytes may cross p, none shorter does). */
#define MASK(L) (~0ull >> (64 - 8 * (L)))

/* 1: surely no token crosses the middle of the 8 bytes in v (bytes 3 | 4), of which
 * only bytes lo..hi-1 are the word's (no token lies outside the word). */
static inline __attribute__((always_inline)) int no_token_across(const MergeTable *m,
                                                                 uint64_t v, size_t lo,
                                                                 size_t hi)
{
    /* level 2: the window of bytes 3..5 */
    size_t k = 2 * (size_t)(v >> 24 & 0xFFFF);
    if (!has(m->sub2, k))
        return 1;
    if (has(m->sub2, k + 1))
        return 0;
    /* levels 3..5: the windows of L bytes start at byte 5-L .. 3 of v, inside [lo, hi) */
    int inside = 0;
    for (size_t s = 2; s <= 3; s++) {
        if (s < lo || s + 3 > hi)
            continue;
        k = 2 * (size_t)(v >> (8 * s) & MASK(3));
        if (has(m->sub3, k)) {
            if (has(m->sub3, k + 1))
                return 0;
            inside = 1;
        }
    }
    if (!inside)
        return 1;
    inside = 0;
    for (size_t s = 1; s <= 3; s++) {
        if (s < lo || s + 4 > hi)
            continue;
        uint64_t win = v >> (8 * s) & MASK(4);
        if (has(m->subh, subh_bit(IN4, win))) {
            if (has(m->subh, subh_bit(TOK4, win)))
                return 0;
            inside = 1;
        }
    }
    if (!inside)
        return 1;
    for (size_t s = 0; s <= 3; s++) {
        if (s < lo || s + 5 > hi)
            continue;
        if (has(m->subh, subh_bit(IN5, v >> (8 * s) & MASK(5))))
            return 0; /* maybe: no cut */
    }
    return 1;
}

/* 1: surely no token of the word's bytes crosses position p (0 < p < len); inside the
 * word the 8 bytes w[p-4..p+4) are read at once (constant bounds: the checks fold). */
static int cut_at(const MergeTable *m, const unsigned char *w, size_t len, size_t p)
{
    if (p >= 4 && p + 4 <= len)
        return no_token_across(m, load8(w + p - 4), 0, 8);
    size_t lo = p >= 4 ? 0 : 4 - p, hi = p + 4 <= len ? 8 : 4 + (len - p);
    return no_token_across(m, load_le(w + p - 4 + lo, hi - lo, 0) << (8 * lo), lo, hi);
}

/* Merge the piece w[a..a+k) whose byte tokens are at sym[a..): returns its token count,
 * spans relative to a. */
static size_t merge_piece(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                          size_t a, size_t k, int32_t limit)
{
    MergeScratch y = *x;
    y.sym += a, y.st += a, y.en += a;
    for (size_t i = 0; i < k; i++) {
        y.sym[i] = m->byte_ids[w[a + i]];
        y.st[i] = (int32_t)i;
        y.en[i] = (int32_t)i + 1;
    }
    return mt_merge(m, &y, k, limit, w + a, MT_RAW | MT_SPANS);
}

size_t mt_merge_cut(const MergeTable *m, MergeScratch *x, const unsigned char *w, size_t len,
                    int32_t limit)
{
    /* words of letters outside ASCII (Han, kana...) are where tokens seldom cross
     * characters; ASCII words rarely have a cut, so they are not searched for one */
    if (!m->sub2 || len < CUT_FROM || w[len - 1] < 0x80)
        return (size_t)-1; /* the caller merges the word whole */
    if (!x->pieces && limit == NO_RANK) /* calloc: fresh pages come zeroed (empty) */
        x->pieces = calloc((size_t)1 << PIECE_BITS, sizeof(struct MergePiece));
    size_t out = 0, a = 0;
    for (size_t p = 1; p <= len; p++) {
        if (p < len && !cut_at(m, w, len, p))
            continue;
        size_t k = p - a;
        if (k == 1) {
            x->sym[out] = m->byte_ids[w[a]];
            x->st[out] = (int32_t)a;
            x->en[out++] = (int32_t)p;
        } else if (k <= PIECE_MAX && x->pieces && limit == NO_RANK) {
            uint64_t key = load_le(w + a, k, len - a) | (uint64_t)k << 56;
            struct MergePiece *e =
                &x->pieces[(key * 0x9E3779B97F4A7C15ull) >> (64 - PIECE_BITS)];
            if (e->key != key) {
                size_t n = merge_piece(m, x, w, a, k, limit);
                for (size_t i = 0; i < n; i++) {
                    e->ids[i] = x->sym[a + i];
                    e->ends[i] = (uint8_t)x->en[a + i];
                }
                e->n = (uint8_t)n;
                e->key = key;
            }
            for (size_t i = 0, st = 0; i < e->n; i++) { /* out <= a: moving left */
                x->sym[out] = e->ids[i];
                x->st[out] = (int32_t)(a + st);
                x->en[out++] = (int32_t)(a + (st = e->ends[i]));
            }
        } else {
            k = merge_piece(m, x, w, a, k, limit);
            for (size_t i = 0; i < k; i++, out++) { /* out <= a + i: moving left, in order */
                x->sym[out] = x->sym[a + i];
                x->st[out] = x->st[a + i] + (int32_t)a;
                x->en[out] = x->en[a + i] + (int32_t)a;
            }
        }
        a = p;
    }
    return out;
}
