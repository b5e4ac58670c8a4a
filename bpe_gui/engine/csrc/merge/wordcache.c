/*
 * wordcache.c -- the word cache of byte-level encoding, and encoding a whole text with
 * it: the native scanner cuts the words, a word seen before takes its ids from the cache,
 * a new one is merged (merge.c) and stored. Plain C: runs without the GIL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "merge/wordcache.h"
#include "util/grow.h"
#include "util/hash.h"

void wc_reset(WordCacheTable *c)
{
    if (c->slots)
        memset(c->slots, 0, c->cap * sizeof(uint64_t));
    c->n = c->arena_len = 0;
}

static CacheEntry *entry_of(const WordCacheTable *c, uint64_t v)
{
    return (CacheEntry *)(c->arena + ((v >> 32) - 1) * 8);
}

/* Returns the entry for a word, or NULL; *slot_out is where a new one would go. */
static CacheEntry *cache_find(WordCacheTable *c, const unsigned char *w, size_t len, uint64_t h,
                              size_t *slot_out)
{
    size_t s = (size_t)(h >> 32) & (c->cap - 1);
    for (;;) {
        uint64_t v = c->slots[s];
        if (!v) {
            *slot_out = s;
            return NULL;
        }
        if ((uint32_t)v == (uint32_t)(h >> 32)) {
            CacheEntry *e = entry_of(c, v);
            if (e->len == len && memcmp(e + 1, w, len) == 0)
                return e;
        }
        s = (s + 1) & (c->cap - 1);
    }
}

/* Twice the slots, every entry placed again; *slot: where the word of hash h (not in
 * the table) goes now. The slots grow with the words held, up to 2 * max_words: a table
 * sized for its most words from the start zeroed and touched megabytes for a text that
 * puts a few words in. -1 when out of memory (the table as it was). */
static int grow_slots(WordCacheTable *c, size_t *slot, uint64_t h)
{
    size_t cap = 2 * c->cap;
    uint64_t *slots = calloc(cap, sizeof(uint64_t));
    if (!slots)
        return -1;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->slots[i])
            continue;
        size_t s = (size_t)c->slots[i] & (cap - 1);
        while (slots[s])
            s = (s + 1) & (cap - 1);
        slots[s] = c->slots[i];
    }
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    size_t s = (size_t)(h >> 32) & (cap - 1);
    while (slots[s])
        s = (s + 1) & (cap - 1);
    *slot = s;
    return 0;
}

#define PAD(x, to) (((x) + (to) - 1) & ~(size_t)((to) - 1))

/* Store a word's ids in an entry of `size` bytes; -1 when out of memory (the cache stays
 * usable). */
static int cache_store(WordCacheTable *c, const unsigned char *w, size_t len, uint64_t h,
                       size_t slot, const int32_t *ids, size_t n, size_t size)
{
    if (2 * (c->n + 1) > c->cap && grow_slots(c, &slot, h) < 0)
        return -1;
    if (bpe_grow((void **)&c->arena, &c->arena_cap, c->arena_len + size, 1, 16384) < 0)
        return -1;
    CacheEntry *e = (CacheEntry *)(c->arena + c->arena_len);
    e->len = (uint32_t)len;
    e->n = (uint32_t)n;
    memcpy(e + 1, w, len);
    memcpy((unsigned char *)(e + 1) + PAD(len, 4), ids, n * sizeof(int32_t));
    c->slots[slot] = h >> 32 | (uint64_t)(c->arena_len / 8 + 1) << 32;
    c->arena_len += size;
    c->n++;
    return 0;
}

int wc_init(WordCacheTable *c, size_t max_words)
{
    size_t cap = 1024; /* (grown as words come: grow_slots) */
    uint64_t *slots = calloc(cap, sizeof(uint64_t));
    if (!slots)
        return -1;
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    c->max_words = max_words;
    c->limit = -1;
    wc_reset(c);
    return 0;
}

const int32_t *wc_find_hashed(WordCacheTable *c, const unsigned char *w, size_t len,
                              WcPlace *at, size_t *n)
{
    CacheEntry *e = cache_find(c, w, len, at->hash, &at->slot);
    if (!e)
        return NULL;
    *n = e->n;
    return (const int32_t *)((unsigned char *)(e + 1) + PAD(e->len, 4));
}

int wc_put_at(WordCacheTable *c, const unsigned char *w, size_t len, const WcPlace *at,
              const int32_t *ids, size_t n)
{
    size_t slot = at->slot, size = PAD(sizeof(CacheEntry) + PAD(len, 4) + n * sizeof(int32_t), 8);
    if (size > WC_MAX_ARENA)
        return 0; /* not cached */
    if (c->n >= c->max_words || c->arena_len + size > WC_MAX_ARENA) {
        wc_reset(c); /* bounded memory; the slot found is stale now */
        cache_find(c, w, len, at->hash, &slot);
    }
    return cache_store(c, w, len, at->hash, slot, ids, n, size);
}

void wc_free(WordCacheTable *c)
{
    free(c->slots);
    free(c->arena);
    memset(c, 0, sizeof(*c));
}

/* ---- the admission policy (wordcache.h) ---- */

void wc_admit_window(WcAdmit *a)
{
    a->sparse = a->win_hits * (WC_ADMIT_RATE - 1) < WC_ADMIT_WINDOW;
    a->win_hits = a->win_misses = 0;
    if (a->sparse && !a->door) /* (no memory: one in WC_ADMIT_SPARSE goes in) */
        a->door = calloc((size_t)1 << WC_DOOR_BITS, sizeof(uint32_t));
}

void wc_admit_tally(WcAdmit *a, int b)
{
    uint32_t looked = a->counts[b] & 0xFFFF, hit = a->counts[b] >> 16;
    if (looked >= WC_ADMIT_HALVE) {
        looked /= 2;
        hit /= 2;
        a->counts[b] = hit << 16 | looked;
    }
    int cold = looked >= WC_ADMIT_COLD && hit * WC_ADMIT_COLD_RATE < looked;
    a->cold = (a->cold & ~(1u << b)) | (uint32_t)cold << b;
}

void wc_admit_free(WcAdmit *a)
{
    free(a->door);
    memset(a, 0, sizeof(*a));
}
