/*
 * special_find.c -- see special_find.h.
 */
#include "text/special_find.h"

#include <stdlib.h>
#include <string.h>

#include "util/portable.h"
#include "util/simd.h"
#if defined(BPE_SIMD_SSE2)
#include <emmintrin.h>
#endif

/* up to this many first characters (or first pairs) are searched for one by one; past
 * it, a look-up a character */
#define SF_FEW 4
#define SF_BLOCK 64

struct SpecialFinder {
    uint32_t *chars;      /* every string's code points, back to back, in search order */
    size_t *start, *len;  /* string i: chars[start[i] .. start[i] + len[i]) */
    uint32_t *second;     /* string i's second character (strings of one: unused) */
    uint32_t *firsts;     /* the distinct first characters, ascending */
    /* the strings starting with firsts[g]: group[g] .. group[g + 1]; those of two
     * characters or more first (group[g] .. longer[g]), by second character and there the
     * longest first, then the one of one character, if any */
    size_t *group, *longer;
    size_t n, n_firsts;
    /* 1-byte texts: the distinct (first, second) pairs of bytes, when every string that
     * can occur in such a text has two characters or more and there are at most SF_FEW
     * pairs (n_pairs: SF_FEW + 1 otherwise) */
    uint8_t pair_a[SF_FEW], pair_b[SF_FEW];
    size_t n_pairs;
    uint8_t byte_first[256]; /* 1 where a 1-byte character is some string's first */
    uint8_t bits[8192];      /* bit (c & 0xFFFF) set for each first character c */
};

typedef struct {
    uint32_t first, second; /* second: 0 for a string of one character */
    size_t len, src;
} Order;

/* by first character, then those of two or more by second character and the longest
 * first, then the one of one character */
static int search_order(const void *a, const void *b) {
    const Order *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if ((x->len == 1) != (y->len == 1))
        return x->len == 1 ? 1 : -1;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

void special_finder_free(SpecialFinder *f) {
    if (!f)
        return;
    free(f->chars);
    free(f->start);
    free(f->len);
    free(f->second);
    free(f->firsts);
    free(f->group);
    free(f->longer);
    free(f);
}

static void note_pair(SpecialFinder *f, const Order *o) {
    if (o->first > 0xFF || (o->len > 1 && o->second > 0xFF) || f->n_pairs > SF_FEW)
        return; /* cannot occur in a 1-byte text, or already too many */
    if (o->len == 1) {
        f->n_pairs = SF_FEW + 1;
        return;
    }
    for (size_t j = 0; j < f->n_pairs; j++)
        if (f->pair_a[j] == o->first && f->pair_b[j] == o->second)
            return;
    if (f->n_pairs == SF_FEW) {
        f->n_pairs = SF_FEW + 1;
        return;
    }
    f->pair_a[f->n_pairs] = (uint8_t)o->first;
    f->pair_b[f->n_pairs++] = (uint8_t)o->second;
}

SpecialFinder *special_finder_new(const uint32_t *const *strs, const size_t *lens, size_t n) {
    SpecialFinder *f = calloc(1, sizeof *f);
    size_t m = n ? n : 1, total = 0;
    Order *order = malloc(m * sizeof *order);
    for (size_t i = 0; i < n; i++)
        total += lens[i];
    if (f) {
        f->chars = malloc((total ? total : 1) * sizeof *f->chars);
        f->start = malloc(m * sizeof *f->start);
        f->len = malloc(m * sizeof *f->len);
        f->second = malloc(m * sizeof *f->second);
        f->firsts = malloc(m * sizeof *f->firsts);
        f->group = malloc((m + 1) * sizeof *f->group);
        f->longer = malloc(m * sizeof *f->longer);
    }
    if (!f || !order || !f->chars || !f->start || !f->len || !f->second || !f->firsts ||
        !f->group || !f->longer) {
        free(order);
        special_finder_free(f);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (Order){strs[i][0], lens[i] > 1 ? strs[i][1] : 0, lens[i], i};
    qsort(order, n, sizeof *order, search_order);
    size_t at = 0;
    f->n = n;
    for (size_t i = 0; i < n; i++) {
        const Order *o = &order[i];
        memcpy(f->chars + at, strs[o->src], o->len * sizeof *f->chars);
        f->start[i] = at;
        f->len[i] = o->len;
        f->second[i] = o->second;
        at += o->len;
        if (i == 0 || o->first != order[i - 1].first) {
            f->group[f->n_firsts] = i;
            f->longer[f->n_firsts] = i;
            f->firsts[f->n_firsts++] = o->first;
            if (o->first < 256)
                f->byte_first[o->first] = 1;
            f->bits[(o->first & 0xFFFF) >> 3] |= (uint8_t)(1u << (o->first & 7));
        }
        if (o->len > 1)
            f->longer[f->n_firsts - 1] = i + 1;
        note_pair(f, o);
    }
    f->group[f->n_firsts] = n;
    free(order);
    return f;
}

static inline uint32_t unit_at(int kind, const void *t, size_t i) {
    return kind == 1   ? ((const uint8_t *)t)[i]
           : kind == 2 ? ((const uint16_t *)t)[i]
                       : ((const uint32_t *)t)[i];
}

/* The first index in [lo, hi) of the sorted a whose value is not below key (hi: none). */
static size_t lower_bound(const uint32_t *a, size_t lo, size_t hi, uint32_t key) {
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The longest string that starts at text[p]: 1 with its length in *len, or 0. */
static int match_at(const SpecialFinder *f, int kind, const void *text, size_t n, size_t p,
                    size_t *len) {
    uint32_t c = unit_at(kind, text, p);
    size_t g = lower_bound(f->firsts, 0, f->n_firsts, c);
    if (g == f->n_firsts || f->firsts[g] != c)
        return 0;
    size_t end = f->longer[g];
    if (p + 1 < n) { /* those of two characters or more whose second is text[p + 1] */
        uint32_t c2 = unit_at(kind, text, p + 1);
        size_t lo = lower_bound(f->second, f->group[g], end, c2);
        for (size_t i = lo; i < end && f->second[i] == c2; i++) {
            size_t L = f->len[i], k = 2;
            if (L > n - p)
                continue;
            const uint32_t *s = f->chars + f->start[i];
            while (k < L && unit_at(kind, text, p + k) == s[k])
                k++;
            if (k == L) {
                *len = L;
                return 1;
            }
        }
    }
    if (end < f->group[g + 1]) { /* the string of one character */
        *len = 1;
        return 1;
    }
    return 0;
}

/* 1-byte characters, the scalar way: memchr for each of a few first characters, the
 * nearest taken; a look-up a character past SF_FEW of them */
static int search_bytes(const SpecialFinder *f, const uint8_t *t, size_t n, size_t from,
                        size_t *at, size_t *len) {
    uint32_t cs[SF_FEW];
    size_t nc = 0;
    for (size_t g = 0; g < f->n_firsts && f->firsts[g] <= 0xFF; g++)
        if (nc++ < SF_FEW)
            cs[nc - 1] = f->firsts[g];
    if (nc > SF_FEW) {
        for (size_t p = from; p < n; p++)
            if (f->byte_first[t[p]] && match_at(f, 1, t, n, p, len)) {
                *at = p;
                return 1;
            }
        return 0;
    }
    const uint8_t *next[SF_FEW];
    for (size_t j = 0; j < nc; j++)
        next[j] = memchr(t + from, (int)cs[j], n - from);
    for (;;) {
        size_t best = nc;
        for (size_t j = 0; j < nc; j++)
            if (next[j] && (best == nc || next[j] < next[best]))
                best = j;
        if (best == nc)
            return 0;
        size_t p = (size_t)(next[best] - t);
        if (match_at(f, 1, t, n, p, len)) {
            *at = p;
            return 1;
        }
        next[best] = memchr(t + p + 1, (int)cs[best], n - p - 1);
    }
}

#if defined(BPE_SIMD_SSE2)
/* 1-byte characters, SSE2: 16 places at a time, a place kept where its byte and the next
 * are one of the pairs (in C, '<' is common and "<|" rare); the rest as above */
static int search_pairs(const SpecialFinder *f, const uint8_t *t, size_t n, size_t from,
                        size_t *at, size_t *len) {
    __m128i a[SF_FEW], b[SF_FEW];
    for (size_t j = 0; j < f->n_pairs; j++) {
        a[j] = _mm_set1_epi8((char)f->pair_a[j]);
        b[j] = _mm_set1_epi8((char)f->pair_b[j]);
    }
    size_t p = from;
    for (; n - p > 16; p += 16) {
        __m128i x0 = _mm_loadu_si128((const __m128i *)(t + p));
        __m128i x1 = _mm_loadu_si128((const __m128i *)(t + p + 1));
        uint32_t m = 0;
        for (size_t j = 0; j < f->n_pairs; j++)
            m |= (uint32_t)_mm_movemask_epi8(
                _mm_and_si128(_mm_cmpeq_epi8(x0, a[j]), _mm_cmpeq_epi8(x1, b[j])));
        for (; m; m &= m - 1) {
            size_t q = p + (size_t)bpe_ctz32(m);
            if (match_at(f, 1, t, n, q, len)) {
                *at = q;
                return 1;
            }
        }
    }
    return search_bytes(f, t, n, p, at, len);
}
#endif

/* Which of a block's SF_BLOCK characters are one of the wanted first characters (w,
 * padded with its first; nc of them): bit k for u[k]. SSE2: the block tested with 8 or
 * 16 compares first, the bits made only for a block that holds one; the scalar twin gives
 * the same bits. */
#if defined(BPE_SIMD_SSE2)
typedef __m128i Want;
#define WANT2(c) _mm_set1_epi16((short)(c))
#define WANT4(c) _mm_set1_epi32((int)(c))

#define EQ_ANY(CMPEQ, x, w, nc)                                                             \
    ((nc) == 1 ? CMPEQ(x, w[0])                                                             \
               : _mm_or_si128(_mm_or_si128(CMPEQ(x, w[0]), CMPEQ(x, w[1])),                 \
                              _mm_or_si128(CMPEQ(x, w[2]), CMPEQ(x, w[3]))))
#define LOAD(u, k) _mm_loadu_si128((const __m128i *)((u) + (k)))

static uint64_t block_mask_2(const uint16_t *u, const Want *w, size_t nc) {
    __m128i a = _mm_or_si128(_mm_or_si128(EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 0), w, nc),
                                          EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 8), w, nc)),
                             _mm_or_si128(EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 16), w, nc),
                                          EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 24), w, nc)));
    __m128i b = _mm_or_si128(_mm_or_si128(EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 32), w, nc),
                                          EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 40), w, nc)),
                             _mm_or_si128(EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 48), w, nc),
                                          EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 56), w, nc)));
    if (!_mm_movemask_epi8(_mm_or_si128(a, b)))
        return 0;
    uint64_t m = 0;
    for (size_t v = 0; v < SF_BLOCK / 8; v++) {
        __m128i e = EQ_ANY(_mm_cmpeq_epi16, LOAD(u, 8 * v), w, nc);
        m |= (uint64_t)(_mm_movemask_epi8(_mm_packs_epi16(e, e)) & 0xFF) << (8 * v);
    }
    return m;
}

static uint64_t block_mask_4(const uint32_t *u, const Want *w, size_t nc) {
    __m128i acc = _mm_setzero_si128();
    for (size_t v = 0; v < SF_BLOCK / 4; v += 4)
        acc = _mm_or_si128(acc, _mm_or_si128(
            _mm_or_si128(EQ_ANY(_mm_cmpeq_epi32, LOAD(u, 4 * v), w, nc),
                         EQ_ANY(_mm_cmpeq_epi32, LOAD(u, 4 * v + 4), w, nc)),
            _mm_or_si128(EQ_ANY(_mm_cmpeq_epi32, LOAD(u, 4 * v + 8), w, nc),
                         EQ_ANY(_mm_cmpeq_epi32, LOAD(u, 4 * v + 12), w, nc))));
    if (!_mm_movemask_epi8(acc))
        return 0;
    uint64_t m = 0;
    for (size_t v = 0; v < SF_BLOCK / 4; v++) {
        __m128i e = EQ_ANY(_mm_cmpeq_epi32, LOAD(u, 4 * v), w, nc);
        __m128i h = _mm_packs_epi32(e, e);
        m |= (uint64_t)(_mm_movemask_epi8(_mm_packs_epi16(h, h)) & 0xF) << (4 * v);
    }
    return m;
}
#else
typedef uint32_t Want;
#define WANT2(c) (c)
#define WANT4(c) (c)
#define BLOCK_MASK(NAME, T)                                                                 \
    static uint64_t NAME(const T *u, const Want *w, size_t nc) {                            \
        uint64_t m = 0;                                                                     \
        (void)nc;                                                                           \
        for (size_t k = 0; k < SF_BLOCK; k++) {                                             \
            uint32_t x = u[k];                                                              \
            m |= (uint64_t)((x == w[0]) | (x == w[1]) | (x == w[2]) | (x == w[3])) << k;    \
        }                                                                                   \
        return m;                                                                           \
    }
BLOCK_MASK(block_mask_2, uint16_t)
BLOCK_MASK(block_mask_4, uint32_t)
#endif

/* 2- or 4-byte characters: with a few first characters, a block of SF_BLOCK at a time,
 * the strings compared only where the block's mask says (block_mask_*); else a bit a
 * character */
#define SEARCH_WIDE(T, MASK, WANT)                                                          \
    do {                                                                                    \
        const T *u = text;                                                                  \
        Want w[SF_FEW];                                                                     \
        uint32_t c[SF_FEW];                                                                 \
        size_t nc = 0, p = from;                                                            \
        for (size_t g = 0; g < f->n_firsts && f->firsts[g] <= limit; g++)                   \
            if (nc++ < SF_FEW)                                                              \
                c[nc - 1] = f->firsts[g];                                                   \
        if (nc == 0)                                                                        \
            return 0;                                                                       \
        for (size_t j = 0; j < SF_FEW; j++)                                                 \
            w[j] = WANT(c[j < nc ? j : 0]);                                                 \
        for (; nc <= SF_FEW && n - p >= SF_BLOCK; p += SF_BLOCK)                            \
            for (uint64_t m = MASK(u + p, w, nc); m; m &= m - 1) {                          \
                size_t q = p + (size_t)bpe_ctz64(m);                                        \
                if (match_at(f, (int)sizeof(T), text, n, q, len)) {                         \
                    *at = q;                                                                \
                    return 1;                                                               \
                }                                                                           \
            }                                                                               \
        for (; p < n; p++) {                                                                \
            uint32_t x = u[p];                                                              \
            if ((f->bits[(x & 0xFFFF) >> 3] >> (x & 7) & 1) &&                              \
                match_at(f, (int)sizeof(T), text, n, p, len)) {                             \
                *at = p;                                                                    \
                return 1;                                                                   \
            }                                                                               \
        }                                                                                   \
        return 0;                                                                           \
    } while (0)

static int search_2(const SpecialFinder *f, const void *text, size_t n, size_t from,
                    size_t *at, size_t *len, uint32_t limit) {
    SEARCH_WIDE(uint16_t, block_mask_2, WANT2);
}

static int search_4(const SpecialFinder *f, const void *text, size_t n, size_t from,
                    size_t *at, size_t *len, uint32_t limit) {
    SEARCH_WIDE(uint32_t, block_mask_4, WANT4);
}

int special_finder_search(const SpecialFinder *f, int kind, const void *text, size_t n,
                          size_t from, size_t *at, size_t *len) {
    if (f->n == 0 || from >= n)
        return 0;
    if (kind == 1) {
        if (f->n_pairs == 0)
            return 0; /* every string has a character past 0xFF in its first two */
#if defined(BPE_SIMD_SSE2)
        if (f->n_pairs <= SF_FEW)
            return search_pairs(f, text, n, from, at, len);
#endif
        return search_bytes(f, text, n, from, at, len);
    }
    if (kind == 2)
        return search_2(f, text, n, from, at, len, 0xFFFF);
    return search_4(f, text, n, from, at, len, 0x10FFFF);
}
