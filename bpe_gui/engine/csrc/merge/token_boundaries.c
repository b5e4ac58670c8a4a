/*
 * token_boundaries.c -- a long word split at token boundaries (points no token of the
 * vocabulary crosses), each piece merged on its own:
 * rank-based models (tiktoken), and merge-based ones whose every merge makes the token of
 * its two parts' bytes (byte-level tokenizer.json files: the loader checks each merge's
 * token is in the vocabulary).
 *
 * Why: under cl100k's and o200k's patterns a Chinese clause is one word of 30-100 bytes,
 * new to the word cache; merging it whole costs a heap and a pair lookup per merge. But
 * every symbol merging makes is a token whose bytes lie in the word, so where no token
 * of the vocabulary spans a position p (w[a..b) with a < p < b is never a token), no
 * merge ever joins the two sides of p: merging each side alone gives the same symbols
 * (the lowest-rank-leftmost order restricted to one side is that side's own order, since
 * no pair across p has a rank). The same holds for a merge list whose merges each make a
 * token of the vocabulary from their parts' bytes. Between most Han characters no token crosses; the pieces
 * are one to three characters, merged by the short-word scan once per call and then
 * taken from a cache of pieces (Han text repeats its characters).
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
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, posix_memalign under -std=c99 (util/huge.h) */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "util/huge.h"

#define CUT_FROM 9   /* shorter words are merged whole (little to win; the loads need 8) */
#define PIECE_MAX 15 /* pieces up to 15 bytes of at most 8 tokens are remembered */
#define PIECE_IDS 8
/* 65536 pieces of 64 bytes: 4 MB, in huge pages (util/huge.h); with 32768, Qwen2's Chinese
 * missed 19% more pieces, Llama 3's 40% more */
#define PIECE_BITS 16

/* a piece's tokens: key = its bytes (little-endian, 8 and 7 of them) | length << 56 in
 * the second; 0: empty */
struct MergePiece {
    uint64_t key[2];
    int32_t ids[PIECE_IDS];
    uint8_t n, ends[PIECE_IDS];
};

/* n <= 8 bytes at p, as load8, byte by byte (loading the tables) */
static inline uint64_t bytes_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
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
    /* Only tokens with a byte >= 0x80 (5% of cl100k's, 36% of o200k's: loading stays
     * quick): words are cut only when all their bytes but the first are >= 0x80, and
     * every token inside such a word, 2 bytes or more, has one. */
    size_t hi = 0;
    while (hi < len && p[hi] < 0x80)
        hi++;
    if (hi == len)
        return 0;
    if (!m->sub2) {
        m->sub2 = calloc((2u << 16) / 64, sizeof(uint64_t));
        m->sub3 = bpe_calloc_huge((2u << 24) / 64, sizeof(uint64_t));
        m->subh = bpe_calloc_huge(((size_t)1 << MT_SUBH_BITS) / 64, sizeof(uint64_t));
        if (!m->sub2 || !m->sub3 || !m->subh) {
            free(m->sub2), free(m->sub3), free(m->subh);
            m->sub2 = m->sub3 = m->subh = NULL;
            return -1;
        }
    }
    /* every string of 2..5 bytes inside the token; the token itself also as a token */
    for (size_t i = 0; i + 2 <= len; i++)
        set(m->sub2, 2 * bytes_le(p + i, 2));
    for (size_t i = 0; i + 3 <= len; i++)
        set(m->sub3, 2 * bytes_le(p + i, 3));
    for (size_t i = 0; i + 4 <= len; i++)
        set(m->subh, mt_subh_bit(MT_IN4, bytes_le(p + i, 4)));
    if (len == 2)
        set(m->sub2, 2 * bytes_le(p, 2) + 1);
    if (len == 3)
        set(m->sub3, 2 * bytes_le(p, 3) + 1);
    if (len == 4)
        set(m->subh, mt_subh_bit(MT_TOK4, bytes_le(p, 4)));
    for (size_t i = 0; i + 5 <= len; i++)
        set(m->subh, mt_subh_bit(MT_IN5, bytes_le(p + i, 5)));
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
    /* first the 3-byte tokens across (inside a character of 3 bytes, the character is
     * mostly a token: one lookup), keeping the words read for level 3 */
    uint64_t in3 = 0; /* bit s: the window of 3 bytes at s lies inside a token */
    for (size_t s = 2; s <= 3; s++) {
        if (s < lo || s + 3 > hi)
            continue;
        size_t k = 2 * (size_t)(v >> (8 * s) & MASK(3));
        uint64_t two = m->sub3[k >> 6] >> (k & 63); /* bit 0 inside, bit 1 a token */
        if (two & 2)
            return 0;
        in3 |= (two & 1) << s;
    }
    /* level 2: the window of bytes 3..5 */
    size_t k = 2 * (size_t)(v >> 24 & 0xFFFF);
    uint64_t two = m->sub2[k >> 6] >> (k & 63);
    if (!(two & 1))
        return 1;
    if (two & 2)
        return 0;
    /* level 3 (no 3-byte token crosses, checked above) */
    if (!in3)
        return 1;
    int inside = 0;
    for (size_t s = 1; s <= 3; s++) {
        if (s < lo || s + 4 > hi)
            continue;
        uint64_t win = v >> (8 * s) & MASK(4);
        if (has(m->subh, mt_subh_bit(MT_IN4, win))) {
            if (has(m->subh, mt_subh_bit(MT_TOK4, win)))
                return 0;
            inside = 1;
        }
    }
    if (!inside)
        return 1;
    for (size_t s = 0; s <= 3; s++) {
        if (s < lo || s + 5 > hi)
            continue;
        if (has(m->subh, mt_subh_bit(MT_IN5, v >> (8 * s) & MASK(5))))
            return 0; /* maybe: no cut */
    }
    return 1;
}

/* 1: surely no token of the word's bytes crosses position p (0 < p < len, len >= 8),
 * near the ends: the 8 bytes w[p-4..p+4) shifted from the word's first or last 8 */
static int cut_near_end(const MergeTable *m, const unsigned char *w, size_t len, size_t p)
{
    if (p < 4)
        return no_token_across(m, load8(w) << (8 * (4 - p)), 4 - p, 8);
    return no_token_across(m, load8(w + len - 8) >> (8 * (p + 4 - len)), 0, 4 + (len - p));
}

/* The first cut at or after p, or len. Inside the word the 8 bytes w[p-4..p+4) are read
 * at once (constant bounds: the checks fold); a 3-byte token starting at p-1 (a Han
 * character, mostly) settles p and p+1 with one lookup. */
static size_t next_cut(const MergeTable *m, const unsigned char *w, size_t len, size_t p)
{
    for (; p < len; p++) {
        if (p < 4 || p + 4 > len) {
            if (cut_near_end(m, w, len, p))
                return p;
            continue;
        }
        uint64_t v = load8(w + p - 4); /* inside the word: p + 4 <= len */
        if ((w[p - 1] & 0xF0) == 0xE0) {
            size_t k = 2 * (size_t)(v >> 24 & MASK(3)) + 1; /* w[p-1..p+2) */
            if (has(m->sub3, k)) {
                p++; /* p and p + 1 are inside that token */
                continue;
            }
        }
        if (no_token_across(m, v, 0, 8))
            return p;
    }
    return len;
}

/* 1: every byte of p[0..n) (n >= 8) is >= 0x80 */
static int high_bytes(const unsigned char *p, size_t n)
{
    const uint64_t top = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        if ((load8(p + i) & top) != top)
            return 0;
    return (load8(p + n - 8) & top) == top;
}

/* w[a..a+n) (n <= 8) of a word of len >= 8 bytes: one load, from a or from the end */
static inline uint64_t in_word(const unsigned char *w, size_t len, size_t a, size_t n)
{
    uint64_t v = a + 8 <= len ? load8(w + a) : load8(w + len - 8) >> (8 * (a + 8 - len));
    return n == 8 ? v : v & MASK(n);
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

size_t mt_merge_at_boundaries(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                              size_t len, int32_t limit)
{
    /* words of letters outside ASCII (Han, kana...) are where tokens seldom cross
     * characters (ASCII words rarely have a cut); the tables know only the tokens with
     * a byte >= 0x80, so every byte but the first must be one */
    if (!m->sub2 || len < CUT_FROM || w[len - 1] < 0x80 || !high_bytes(w + 1, len - 1))
        return (size_t)-1; /* the caller merges the word whole */
    /* letters of 3 or 4 bytes (Han, kana, Thai...), where tokens seldom cross characters;
     * a word of 2-byte letters (Cyrillic, Greek, Arabic) is short and its tokens often
     * cross them: looking for cuts there cost more than it saved (callgrind, Russian) */
    if ((w[0] < 0x80 ? w[1] : w[0]) < 0xE0)
        return (size_t)-1;
    if (!x->pieces && limit == NO_RANK) /* zeroed: empty */
        x->pieces = bpe_calloc_huge((size_t)1 << PIECE_BITS, sizeof(struct MergePiece));
    size_t out = 0;
    for (size_t a = 0, p; a < len; a = p) {
        p = next_cut(m, w, len, a + 1);
        size_t k = p - a;
        if (k == 1) {
            x->sym[out] = m->byte_ids[w[a]];
            x->st[out] = (int32_t)a;
            x->en[out++] = (int32_t)p;
        } else if (k <= PIECE_MAX && x->pieces && limit == NO_RANK) {
            uint64_t k0 = in_word(w, len, a, k < 8 ? k : 8),
                     k1 = (k > 8 ? in_word(w, len, a + 8, k - 8) : 0) | (uint64_t)k << 56;
            struct MergePiece *e =
                &x->pieces[((k0 ^ k1 * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull) >>
                           (64 - PIECE_BITS)];
            if (e->key[0] != k0 || e->key[1] != k1) {
                size_t n = merge_piece(m, x, w, a, k, limit);
                if (n > PIECE_IDS) { /* too many tokens to remember */
                    for (size_t i = 0; i < n; i++, out++) {
                        x->sym[out] = x->sym[a + i];
                        x->st[out] = x->st[a + i] + (int32_t)a;
                        x->en[out] = x->en[a + i] + (int32_t)a;
                    }
                    continue;
                }
                for (size_t i = 0; i < n; i++) {
                    e->ids[i] = x->sym[a + i];
                    e->ends[i] = (uint8_t)x->en[a + i];
                }
                e->n = (uint8_t)n;
                e->key[0] = k0;
                e->key[1] = k1;
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
    }
    return out;
}
