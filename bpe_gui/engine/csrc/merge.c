/*
 * merge.c -- the merge table and the merge loops of byte-level encoding (see merge.h).
 * Plain C: no Python here, so merging runs without the GIL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define HEAP_FROM 24 /* words at least this long merge with a heap */
#define FILTER_BITS 20

static inline size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static int grow(MergeTable *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    MergeEntry *tab = calloc(cap, sizeof(MergeEntry));
    if (!tab)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->tab[i].key)
            continue;
        size_t s = slot_of(m->tab[i].key, cap);
        while (tab[s].key)
            s = (s + 1) & (cap - 1);
        tab[s] = m->tab[i];
    }
    free(m->tab);
    m->tab = tab;
    m->cap = cap;
    return 0;
}

const MergeEntry *mt_find(const MergeTable *m, int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    for (;;) {
        const MergeEntry *e = &m->tab[s];
        if (e->key == key)
            return e;
        if (!e->key)
            return NULL;
        s = (s + 1) & (m->cap - 1);
    }
}

static inline uint64_t filter_bit(int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) * 0xC2B2AE3D27D4EB4Full;
    return key >> (64 - FILTER_BITS);
}

static inline int32_t rank_of(const MergeTable *m, int32_t a, int32_t b, int32_t limit)
{
    uint64_t bit = filter_bit(a, b);
    if (!(m->filter[bit >> 6] >> (bit & 63) & 1))
        return NO_RANK;
    const MergeEntry *e = mt_find(m, a, b);
    return (e && e->rank < limit) ? e->rank : NO_RANK;
}

/* Scratch space for a word of n symbols (no Python calls: may run without the GIL). */
int mt_reserve(MergeTable *m, size_t n)
{
    if (n <= m->buf_cap)
        return 0;
    if (n > INT32_MAX - 1)
        return -1; /* positions are int32 (the heap packs rank and position in 64 bits) */
    size_t cap = m->buf_cap ? m->buf_cap : 64;
    while (cap < n)
        cap *= 2;
    int32_t *sym = realloc(m->sym, cap * sizeof(int32_t));
    if (sym) m->sym = sym;
    int32_t *rk = realloc(m->rk, cap * sizeof(int32_t));
    if (rk) m->rk = rk;
    int32_t *nxt = realloc(m->nxt, cap * sizeof(int32_t));
    if (nxt) m->nxt = nxt;
    int32_t *prv = realloc(m->prv, cap * sizeof(int32_t));
    if (prv) m->prv = prv;
    uint64_t *heap = realloc(m->heap, 3 * cap * sizeof(uint64_t)); /* n + 2 per merge */
    if (heap) m->heap = heap;
    if (!sym || !rk || !nxt || !prv || !heap)
        return -1;
    m->buf_cap = cap;
    return 0;
}

/* The rank of the pair at i (of rank < limit, else NO_RANK): from the byte-pair table
 * when the word is still raw bytes there (raw != NULL), else from the hash table. */
static inline int32_t first_rank(const MergeTable *m, const int32_t *s, const unsigned char *raw,
                                 size_t i, int32_t limit)
{
    if (raw) {
        int32_t r = m->bytepair[raw[i] * 256 + raw[i + 1]].rank;
        return r < limit ? r : NO_RANK;
    }
    return rank_of(m, s[i], s[i + 1], limit);
}

/* Short words: find the lowest rank by scanning; merge its leftmost occurrence. */
static size_t merge_scan(MergeTable *m, size_t n, int32_t limit, const unsigned char *raw)
{
    int32_t *s = m->sym, *rk = m->rk;
    for (size_t i = 0; i + 1 < n; i++)
        rk[i] = first_rank(m, s, raw, i, limit);
    while (n > 1) {
        int32_t best = NO_RANK;
        size_t at = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (rk[i] < best) {
                best = rk[i];
                at = i;
            }
        if (best == NO_RANK)
            break;
        s[at] = m->rank_new[best];
        memmove(s + at + 1, s + at + 2, (n - at - 2) * sizeof(int32_t));
        memmove(rk + at + 1, rk + at + 2, (n - at - 2) * sizeof(int32_t));
        n--;
        if (at + 1 < n)
            rk[at] = rank_of(m, s[at], s[at + 1], limit);
        if (at > 0)
            rk[at - 1] = rank_of(m, s[at - 1], s[at], limit);
    }
    return n;
}

/* heap of (rank << 32 | position): the lowest rank first, the leftmost among equals */
static inline void heap_push(uint64_t *h, size_t *len, uint64_t v)
{
    size_t i = (*len)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p] <= v)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static inline uint64_t heap_pop(uint64_t *h, size_t *len)
{
    uint64_t top = h[0], v = h[--(*len)];
    size_t i = 0, n = *len;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] < h[c])
            c++;
        if (v <= h[c])
            break;
        h[i] = h[c];
        i = c;
    }
    if (n)
        h[i] = v;
    return top;
}

/* Long words: symbols in a linked list, candidate merges in a heap; a popped entry is
 * stale when its position was merged away or its pair's rank changed since. */
static size_t merge_heap(MergeTable *m, size_t n, int32_t limit, const unsigned char *raw)
{
    int32_t *s = m->sym, *rk = m->rk, *nxt = m->nxt, *prv = m->prv;
    uint64_t *h = m->heap;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        nxt[i] = i + 1 < n ? (int32_t)(i + 1) : -1;
        prv[i] = (int32_t)i - 1;
        rk[i] = i + 1 < n ? first_rank(m, s, raw, i, limit) : NO_RANK;
        if (rk[i] != NO_RANK)
            heap_push(h, &hn, ((uint64_t)rk[i] << 32) | i);
    }
    while (hn) {
        uint64_t top = heap_pop(h, &hn);
        int32_t r = (int32_t)(top >> 32), i = (int32_t)(uint32_t)top;
        if (rk[i] != r || s[i] < 0)
            continue; /* stale */
        int32_t j = nxt[i];
        s[i] = m->rank_new[r];
        s[j] = -1; /* merged away */
        rk[j] = NO_RANK;
        nxt[i] = nxt[j];
        if (nxt[j] >= 0)
            prv[nxt[j]] = i;
        rk[i] = nxt[i] >= 0 ? rank_of(m, s[i], s[nxt[i]], limit) : NO_RANK;
        if (rk[i] != NO_RANK)
            heap_push(h, &hn, ((uint64_t)rk[i] << 32) | (uint32_t)i);
        int32_t p = prv[i];
        if (p >= 0) {
            rk[p] = rank_of(m, s[p], s[i], limit);
            if (rk[p] != NO_RANK)
                heap_push(h, &hn, ((uint64_t)rk[p] << 32) | (uint32_t)p);
        }
    }
    size_t w = 0;
    for (int32_t i = 0; i >= 0; i = nxt[i])
        s[w++] = s[i];
    return w;
}

/* Merge m->sym[0..n) in place; returns the new length. raw: the word's bytes when
 * m->sym holds exactly their byte tokens (then the first ranks come from the byte-pair
 * table), else NULL. */
size_t mt_merge_word(MergeTable *m, size_t n, int32_t limit, const unsigned char *raw)
{
    if (n < 2)
        return n;
    if (!m->bytepair)
        raw = NULL;
    return n < HEAP_FROM ? merge_scan(m, n, limit, raw) : merge_heap(m, n, limit, raw);
}

int mt_init(MergeTable *m, const int32_t byte_ids[256])
{
    memcpy(m->byte_ids, byte_ids, sizeof(m->byte_ids));
    m->bytepair = malloc(65536 * sizeof(*m->bytepair));
    m->filter = calloc((1u << FILTER_BITS) / 64, sizeof(uint64_t));
    if (!m->bytepair || !m->filter)
        return -1;
    for (int i = 0; i < 65536; i++)
        m->bytepair[i].rank = NO_RANK;
    return grow(m);
}

void mt_free(MergeTable *m)
{
    free(m->bytepair);
    free(m->filter);
    free(m->rank_new);
    free(m->tab);
    free(m->sym);
    free(m->rk);
    free(m->nxt);
    free(m->prv);
    free(m->heap);
    memset(m, 0, sizeof(*m));
}

int mt_add(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id)
{
    if (mt_find(m, a, b))
        return 0;
    if (rank > MT_MAX_RANK)
        return -2;
    if (2 * (m->n + 1) > m->cap && grow(m) < 0)
        return -1;
    if ((size_t)rank >= m->rank_cap) {
        size_t cap = m->rank_cap ? m->rank_cap : 1024;
        while (cap <= (size_t)rank)
            cap *= 2;
        int32_t *rn = realloc(m->rank_new, cap * sizeof(int32_t));
        if (!rn)
            return -1;
        m->rank_new = rn;
        m->rank_cap = cap;
    }
    m->rank_new[rank] = new_id;
    uint64_t bit = filter_bit(a, b);
    m->filter[bit >> 6] |= 1ull << (bit & 63);
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    while (m->tab[s].key)
        s = (s + 1) & (m->cap - 1);
    m->tab[s].key = key;
    m->tab[s].rank = rank;
    m->tab[s].new_id = new_id;
    m->n++;
    /* a merge of two byte tokens: also in the byte-pair table, for every byte value
     * whose token it is (a layout may give one id to several bytes only in odd files) */
    for (int x = 0; x < 256; x++) {
        if (m->byte_ids[x] != a)
            continue;
        for (int y = 0; y < 256; y++)
            if (m->byte_ids[y] == b)
                m->bytepair[x * 256 + y].rank = rank, m->bytepair[x * 256 + y].new_id = new_id;
    }
    return 1;
}
