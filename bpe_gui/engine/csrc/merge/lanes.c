/*
 * lanes.c -- long words merged sixteen at a time: each word in a lane of AVX-512 vectors.
 *
 * What it does is the flat loop's (merge.c): each pair's key is rank << 10 | position,
 * the lowest key merges, its neighbours are relinked and the two new pairs ranked. But
 * the flat loop does one word's merges one after another, and each waits for the last:
 * the minimum of the word's keys, the links of the pair it names, the bytes of the two
 * new pairs, their filter words, then the minimum again (perf: ~120 cycles a merge, most
 * of it waiting on loads and on branches that go either way at random). Here sixteen
 * words take a step together: their keys lie position by position (row p holds position
 * p of every word), so one vector minimum down the rows gives each word's lowest key, and
 * the links, the bytes and the filter words of sixteen pairs are fetched by one gather
 * each. Only the pairs the filter lets through (a token, mostly) are ranked one by one, by
 * the memo and the table as the flat loop does (mt_rank_past_filter). A word that is done
 * leaves its lane idle until the group ends, so words are sorted by length first and
 * grouped with words of about their length; the rows scanned are those of the longest.
 *
 * Exact: the same keys, the same rule (lowest rank, leftmost), the same lookups as the
 * flat loop, so each word gets mt_encode_bytes' ids. A rank too large for the keys
 * (2**21 or more) sends the word back (MT_LANE_ALONE), as the flat loop gives it back.
 *
 * Where it runs: x86-64 CPUs with AVX-512 (F, BW, DQ, VL), built by gcc or clang; elsewhere
 * mt_lanes_ok says no and the encoder merges long words in the flat loop.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/filters.h"
#include "merge/merge.h"
#include "util/atomics.h"
#include "util/cpu.h"
#include "util/portable.h"

static int lanes_wanted = 1;

int mt_lanes_use(int on)
{
    int was = bpe_ld_rlx_int(&lanes_wanted);
    bpe_st_rlx_int(&lanes_wanted, on ? 1 : 0);
    return was;
}

#if MT_HAVE_LANES
#include <immintrin.h>

#define LANES 16
#define ROWS MT_FLAT_MAX              /* positions of a word */
#define STRIDE (MT_FLAT_MAX + 64)     /* bytes of a word's copy (8 zero bytes after it) */
#define POS_BITS 10                   /* a key: rank << POS_BITS | position */
#define KEY_RANKS (1 << (31 - POS_BITS))
#define NONE INT32_MAX                /* no pair: above every key (NO_RANK too) */
#define TARGET BPE_TARGET("avx512f,avx512bw,avx512dq,avx512vl")

struct MergeLanes {
    void (*free)(void *); /* first: merge.c frees the lanes by it (merge.h) */
    void *block;
    int32_t *key, *nxt, *prv, *sym, *rk; /* [position * LANES + lane] */
    unsigned char *buf;                  /* lane l's word at buf + l * STRIDE */
    uint32_t order[64];                  /* a batch's words, shortest first */
};

static int cpu_ok(void)
{
    return (bpe_cpu() & BPE_CPU_AVX512) != 0;
}

int mt_lanes_cpu(void)
{
    return cpu_ok();
}

int mt_lanes_ok(const MergeTable *m)
{
    return bpe_ld_rlx_int(&lanes_wanted) && cpu_ok() && m->bytes_ok &&
           m->bytepair && m->filter;
}

static void lanes_free(void *p)
{
    struct MergeLanes *L = p;
    free(L->block);
    free(L);
}

static struct MergeLanes *lanes_of(MergeScratch *x)
{
    if (x->lanes)
        return x->lanes;
    struct MergeLanes *L = calloc(1, sizeof(*L));
    size_t ints = (size_t)ROWS * LANES, bytes = 5 * ints * sizeof(int32_t) + LANES * STRIDE;
    unsigned char *b = L ? malloc(bytes + 64) : NULL;
    if (!b) {
        free(L);
        return NULL;
    }
    L->block = b;
    L->free = lanes_free;
    int32_t *a = (int32_t *)(((uintptr_t)b + 63) & ~(uintptr_t)63);
    L->key = a, L->nxt = a + ints, L->prv = a + 2 * ints, L->sym = a + 3 * ints;
    L->rk = a + 4 * ints;
    L->buf = (unsigned char *)(a + 5 * ints);
    return x->lanes = L;
}

/* The filter's words and bits of eight entries v (filters.h, eight lanes at once): 1 in
 * the lanes of m whose two bits are set. */
TARGET static inline __mmask8 filter8(const uint64_t *filter, __mmask8 m, __m512i v)
{
    const __m512i one = _mm512_set1_epi64(1);
    __m512i h = _mm512_mullo_epi64(v, _mm512_set1_epi64((long long)MT_FILTER_MUL1));
    __m512i g = _mm512_mullo_epi64(h, _mm512_set1_epi64((long long)MT_FILTER_MUL2));
    __m512i bits = _mm512_or_si512(
        _mm512_sllv_epi64(one, _mm512_srli_epi64(g, 58)),
        _mm512_sllv_epi64(one, _mm512_and_si512(_mm512_srli_epi64(g, 52), _mm512_set1_epi64(63))));
    __m512i at = _mm512_srli_epi64(h, 64 - MT_FILTER_WORDS_LOG);
    __m512i word = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), m, at,
                                                (const long long *)filter, 8);
    return _mm512_mask_cmpeq_epi64_mask(m, _mm512_and_si512(word, bits), bits);
}

/* The ranks (< limit, else NONE) of the pairs (a, b) of the lanes in m, whose bytes are
 * each lane's word from `start` to `end`, and the tokens they make (*made). Rank-based:
 * spans of up to 8 bytes by the short keys' filter, longer ones straight on; merge-based:
 * the pair filter. The lanes a filter lets through are ranked one by one. */
TARGET static inline __m512i ranks(const MergeTable *m, const MergeScratch *x,
                                   const unsigned char *buf, __mmask16 mask, __m512i a,
                                   __m512i b, __m512i start, __m512i end, int32_t limit,
                                   __m512i *made)
{
    const __m512i lane_at = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(STRIDE));
    __m512i len = _mm512_sub_epi32(end, start);
    uint64_t keys[LANES];
    __mmask16 pass = 0, tried;
    if (m->by_span) {
        __mmask16 shrt = m->short_keys && m->short_filter
                             ? _mm512_mask_cmple_epi32_mask(mask, len, _mm512_set1_epi32(8))
                             : 0;
        __m512i off = _mm512_add_epi32(lane_at, start);
        for (int half = 0; half < 2; half++) {
            __mmask8 hm = (__mmask8)(shrt >> (8 * half));
            if (!hm)
                continue;
            __m256i o = half ? _mm512_extracti32x8_epi32(off, 1) : _mm512_castsi512_si256(off);
            __m512i n = _mm512_cvtepi32_epi64(
                half ? _mm512_extracti32x8_epi32(len, 1) : _mm512_castsi512_si256(len));
            __m512i v = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), hm, o,
                                                    (const long long *)buf, 1);
            /* the span's bytes alone: (1 << 8 len) - 1, all of them at 8 */
            __m512i low = _mm512_sub_epi64(_mm512_sllv_epi64(_mm512_set1_epi64(1),
                                                             _mm512_slli_epi64(n, 3)),
                                           _mm512_set1_epi64(1));
            low = _mm512_mask_mov_epi64(low, _mm512_cmpeq_epi64_mask(n, _mm512_set1_epi64(8)),
                                        _mm512_set1_epi64(-1));
            v = _mm512_and_si512(v, low);
            _mm512_storeu_si512(keys + 8 * half, v);
            pass |= (__mmask16)filter8(m->short_filter, hm, _mm512_xor_si512(v, n)) << (8 * half);
        }
        tried = pass | (mask & ~shrt); /* longer spans: no filter */
    } else {
        for (int half = 0; half < 2; half++) {
            __mmask8 hm = (__mmask8)(mask >> (8 * half));
            if (!hm)
                continue;
            __m512i ah = _mm512_cvtepu32_epi64(half ? _mm512_extracti32x8_epi32(a, 1)
                                                    : _mm512_castsi512_si256(a));
            __m512i bh = _mm512_cvtepu32_epi64(half ? _mm512_extracti32x8_epi32(b, 1)
                                                    : _mm512_castsi512_si256(b));
            pass |= (__mmask16)filter8(m->filter, hm, _mm512_or_si512(_mm512_slli_epi64(ah, 32), bh))
                    << (8 * half);
        }
        tried = pass;
    }
    __m512i r = _mm512_set1_epi32(NONE);
    if (!tried)
        return r;
    int32_t rs[LANES], mk[LANES], as[LANES], bs[LANES], ss[LANES], ls[LANES];
    _mm512_storeu_si512(rs, r);
    _mm512_storeu_si512(mk, *made);
    _mm512_storeu_si512(as, a);
    _mm512_storeu_si512(bs, b);
    _mm512_storeu_si512(ss, start);
    _mm512_storeu_si512(ls, len);
    for (unsigned t = tried; t; t &= t - 1) {
        int l = bpe_ctz32(t);
        uint64_t key = m->by_span && pass >> l & 1 ? keys[l] : 0; /* (a short span's) */
        rs[l] = mt_rank_past_filter(m, x, as[l], bs[l], buf + (size_t)l * STRIDE, (size_t)ss[l],
                                    (size_t)ls[l], key, limit, &mk[l]);
    }
    *made = _mm512_loadu_si512(mk);
    return _mm512_loadu_si512(rs);
}

/* rank << POS_BITS | position, or NONE */
TARGET static inline __m512i key_of(__m512i r, __m512i pos)
{
    const __m512i none = _mm512_set1_epi32(NONE);
    return _mm512_mask_or_epi32(none, _mm512_cmpneq_epi32_mask(r, none),
                                _mm512_slli_epi32(r, POS_BITS), pos);
}

/* lanes whose ranks do not fit a key */
TARGET static inline __mmask16 too_large(__mmask16 m, __m512i r)
{
    return _mm512_mask_cmpge_epi32_mask(m, r, _mm512_set1_epi32(KEY_RANKS)) &
           _mm512_cmpneq_epi32_mask(r, _mm512_set1_epi32(NONE));
}

/* A group of nl <= 16 words, each in a lane: merged, their ids written. */
TARGET static void group(const MergeTable *m, MergeScratch *x, struct MergeLanes *L,
                         MergeLaneWord *const *g, int nl, int32_t limit)
{
    int32_t n[LANES] = {0};
    size_t rows = 0;
    for (int l = 0; l < nl; l++) {
        n[l] = (int32_t)g[l]->len;
        memcpy(L->buf + (size_t)l * STRIDE, g[l]->w, g[l]->len);
        memset(L->buf + (size_t)l * STRIDE + g[l]->len, 0, 8);
        rows = g[l]->len > rows ? g[l]->len : rows;
    }
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i lane_at = _mm512_mullo_epi32(lane, _mm512_set1_epi32(STRIDE));
    const __m512i none = _mm512_set1_epi32(NONE), len = _mm512_loadu_si512(n);
    const __m512i lim = _mm512_set1_epi32(limit);
    int32_t *key = L->key, *nxt = L->nxt, *prv = L->prv, *sym = L->sym, *rk = L->rk;
    __mmask16 act = (__mmask16)((1u << nl) - 1), alone = 0;
    /* each position: linked to its neighbours, its byte's token, the pair of its byte and
     * the next one's from the byte-pair table */
    for (size_t p = 0; p < rows; p++) {
        __m512i pos = _mm512_set1_epi32((int)p);
        _mm512_store_si512(nxt + p * LANES, _mm512_set1_epi32((int)p + 1));
        _mm512_store_si512(prv + p * LANES, _mm512_set1_epi32((int)p - 1));
        __mmask16 in = _mm512_mask_cmplt_epi32_mask(act, pos, len);
        __mmask16 two = _mm512_mask_cmplt_epi32_mask(act, _mm512_add_epi32(pos, _mm512_set1_epi32(1)), len);
        __m512i four = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in,
                                                   _mm512_add_epi32(lane_at, pos), L->buf, 1);
        __m512i b0 = _mm512_and_si512(four, _mm512_set1_epi32(0xFF));
        __m512i bp = _mm512_or_si512(_mm512_slli_epi32(b0, 8),
                                     _mm512_and_si512(_mm512_srli_epi32(four, 8), _mm512_set1_epi32(0xFF)));
        bp = _mm512_slli_epi32(bp, 1); /* (rank, new id) pairs */
        __m512i r = _mm512_mask_i32gather_epi32(none, two, bp, (const int *)m->bytepair, 4);
        __m512i made = _mm512_mask_i32gather_epi32(none, two, _mm512_add_epi32(bp, _mm512_set1_epi32(1)),
                                                   (const int *)m->bytepair, 4);
        r = _mm512_mask_mov_epi32(none, _mm512_cmplt_epi32_mask(r, lim), r);
        alone |= too_large(two, r);
        _mm512_store_si512(key + p * LANES, key_of(r, pos));
        _mm512_store_si512(rk + p * LANES, made);
        _mm512_store_si512(sym + p * LANES,
                           _mm512_mask_i32gather_epi32(none, in, b0, m->byte_ids, 4));
    }
    act &= ~alone;
    for (;;) {
        /* each lane's lowest key */
        __m512i k0 = none, k1 = none, k2 = none, k3 = none;
        size_t p = 0;
        for (; p + 4 <= rows; p += 4) {
            k0 = _mm512_min_epi32(k0, _mm512_load_si512(key + p * LANES));
            k1 = _mm512_min_epi32(k1, _mm512_load_si512(key + (p + 1) * LANES));
            k2 = _mm512_min_epi32(k2, _mm512_load_si512(key + (p + 2) * LANES));
            k3 = _mm512_min_epi32(k3, _mm512_load_si512(key + (p + 3) * LANES));
        }
        for (; p < rows; p++)
            k0 = _mm512_min_epi32(k0, _mm512_load_si512(key + p * LANES));
        __m512i best = _mm512_min_epi32(_mm512_min_epi32(k0, k1), _mm512_min_epi32(k2, k3));
        act = _mm512_mask_cmpneq_epi32_mask(act, best, none);
        if (!act)
            break;
        /* merge i and j (the symbol after it); p before, q after */
        __m512i i = _mm512_and_si512(best, _mm512_set1_epi32((1 << POS_BITS) - 1));
        __m512i ii = _mm512_add_epi32(_mm512_slli_epi32(i, 4), lane);
        __m512i j = _mm512_mask_i32gather_epi32(none, act, ii, nxt, 4);
        __m512i pv = _mm512_mask_i32gather_epi32(none, act, ii, prv, 4);
        __m512i jj = _mm512_add_epi32(_mm512_slli_epi32(j, 4), lane);
        __m512i q = _mm512_mask_i32gather_epi32(none, act, jj, nxt, 4);
        __m512i made_i = m->by_span ? _mm512_srli_epi32(best, POS_BITS)
                                    : _mm512_mask_i32gather_epi32(none, act, ii, rk, 4);
        _mm512_mask_i32scatter_epi32(sym, act, ii, made_i, 4);
        _mm512_mask_i32scatter_epi32(key, act, jj, none, 4);
        _mm512_mask_i32scatter_epi32(nxt, act, ii, q, 4);
        __mmask16 has_q = _mm512_mask_cmplt_epi32_mask(act, q, len);
        __mmask16 has_p = _mm512_mask_cmpge_epi32_mask(act, pv, _mm512_setzero_si512());
        __m512i qq = _mm512_add_epi32(_mm512_slli_epi32(q, 4), lane);
        __m512i pp = _mm512_add_epi32(_mm512_slli_epi32(pv, 4), lane);
        _mm512_mask_i32scatter_epi32(prv, has_q, qq, i, 4);
        __m512i end = _mm512_mask_i32gather_epi32(none, has_q, qq, nxt, 4);
        __m512i sq = _mm512_mask_i32gather_epi32(none, has_q, qq, sym, 4);
        __m512i sp = _mm512_mask_i32gather_epi32(none, has_p, pp, sym, 4);
        /* the pairs (i, q) and (p, i) */
        __m512i mi = none, mp = none;
        __m512i r = ranks(m, x, L->buf, has_q, made_i, sq, i, end, limit, &mi);
        __m512i rp = ranks(m, x, L->buf, has_p, sp, made_i, pv, q, limit, &mp);
        __mmask16 big = too_large(has_q, r) | too_large(has_p, rp);
        alone |= big;
        act &= ~big;
        _mm512_mask_i32scatter_epi32(key, act, ii, key_of(r, i), 4);
        _mm512_mask_i32scatter_epi32(key, act & has_p, pp, key_of(rp, pv), 4);
        if (!m->by_span) {
            _mm512_mask_i32scatter_epi32(rk, act, ii, mi, 4);
            _mm512_mask_i32scatter_epi32(rk, act & has_p, pp, mp, 4);
        }
    }
    /* each lane's symbols, walked along the links all lanes at once (one after another
     * they were a chain of dependent loads a token: a sixth of the time), row t of `key`
     * the t-th symbol of each */
    __m512i at = _mm512_setzero_si512();
    __mmask16 walk = (__mmask16)((1u << nl) - 1) & ~alone;
    size_t t = 0;
    for (; walk; t++) {
        __m512i aa = _mm512_add_epi32(_mm512_slli_epi32(at, 4), lane);
        _mm512_store_si512(key + t * LANES, _mm512_mask_i32gather_epi32(none, walk, aa, sym, 4));
        at = _mm512_mask_i32gather_epi32(at, walk, aa, nxt, 4);
        walk = _mm512_mask_cmplt_epi32_mask(walk, at, len);
    }
    for (int l = 0; l < nl; l++) {
        if (alone >> l & 1) {
            g[l]->k = MT_LANE_ALONE;
            continue;
        }
        uint32_t k = 0, *out = g[l]->out;
        for (; k < t && key[k * LANES + l] != NONE; k++)
            out[k] = (uint32_t)key[k * LANES + l];
        g[l]->k = k;
    }
}

int mt_merge_lanes(const MergeTable *m, MergeScratch *x, MergeLaneWord *words, size_t n,
                   int32_t limit)
{
    struct MergeLanes *L = lanes_of(x);
    if (!L)
        return -1;
    mt_want_memo(m, x);
    for (size_t done = 0; done < n;) {
        /* a batch of up to 64, shortest first (insertion sort), in groups of 16 */
        size_t b = n - done < 64 ? n - done : 64;
        for (size_t k = 0; k < b; k++) {
            uint32_t v = (uint32_t)(done + k), len = words[v].len;
            size_t at = k;
            while (at > 0 && words[L->order[at - 1]].len > len) {
                L->order[at] = L->order[at - 1];
                at--;
            }
            L->order[at] = v;
        }
        for (size_t k = 0; k < b; k += LANES) {
            MergeLaneWord *g[LANES];
            int nl = (int)(b - k < LANES ? b - k : LANES);
            for (int l = 0; l < nl; l++)
                g[l] = &words[L->order[k + (size_t)l]];
            group(m, x, L, g, nl, limit);
        }
        done += b;
    }
    if (m->strategy != MT_AUTO) /* forced: count the words the lanes merged */
        for (size_t k = 0; k < n; k++)
            if (words[k].k != MT_LANE_ALONE)
                mt_strategy_note(MT_LANES);
    return 0;
}

#else /* no AVX-512 lanes in this build */

int mt_lanes_cpu(void)
{
    return 0;
}

int mt_lanes_ok(const MergeTable *m)
{
    (void)m;
    return 0;
}

int mt_merge_lanes(const MergeTable *m, MergeScratch *x, MergeLaneWord *words, size_t n,
                   int32_t limit)
{
    (void)m, (void)x, (void)limit;
    for (size_t k = 0; k < n; k++)
        words[k].k = MT_LANE_ALONE;
    return 0;
}

#endif
