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
        memset(c->slots, 0, c->cap * sizeof(uint32_t));
    c->n = c->bytes_len = c->id_len = 0;
}

/* Returns the entry for a word, or NULL; *slot_out is where a new one would go. */
static CacheEntry *cache_find(WordCacheTable *c, const unsigned char *w, size_t len, uint64_t h,
                          size_t *slot_out)
{
    size_t s = (size_t)h & (c->cap - 1);
    for (;;) {
        uint32_t v = c->slots[s];
        if (!v) {
            *slot_out = s;
            return NULL;
        }
        CacheEntry *e = &c->ent[v - 1];
        if (e->hash == h && e->len == len && memcmp(c->bytes + e->word, w, len) == 0)
            return e;
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
    uint32_t *slots = calloc(cap, sizeof(uint32_t));
    if (!slots)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        size_t s = (size_t)c->ent[i].hash & (cap - 1);
        while (slots[s])
            s = (s + 1) & (cap - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    size_t s = (size_t)h & (cap - 1);
    while (slots[s])
        s = (s + 1) & (cap - 1);
    *slot = s;
    return 0;
}

/* Store a word's ids (m->sym[0..n)); -1 when out of memory (the cache stays usable). */
static int cache_store(WordCacheTable *c, const unsigned char *w, size_t len, uint64_t h,
                       size_t slot, const int32_t *ids, size_t n)
{
    if (len > UINT32_MAX || n > UINT32_MAX)
        return 0; /* not cached */
    if (2 * (c->n + 1) > c->cap && grow_slots(c, &slot, h) < 0)
        return -1;
    if (bpe_grow((void **)&c->ent, &c->ent_cap, c->n + 1, sizeof(CacheEntry), 1024) < 0 ||
        bpe_grow((void **)&c->bytes, &c->bytes_cap, c->bytes_len + len, 1, 1024) < 0 ||
        bpe_grow((void **)&c->idbuf, &c->id_cap, c->id_len + n, sizeof(int32_t), 1024) < 0)
        return -1;
    CacheEntry *e = &c->ent[c->n];
    e->hash = h;
    e->word = c->bytes_len;
    e->ids = c->id_len;
    e->len = (uint32_t)len;
    e->n = (uint32_t)n;
    memcpy(c->bytes + c->bytes_len, w, len);
    c->bytes_len += len;
    memcpy(c->idbuf + c->id_len, ids, n * sizeof(int32_t));
    c->id_len += n;
    c->slots[slot] = (uint32_t)(++c->n);
    return 0;
}

int wc_init(WordCacheTable *c, size_t max_words)
{
    size_t cap = 1024; /* (grown as words come: grow_slots) */
    uint32_t *slots = calloc(cap, sizeof(uint32_t));
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
    return c->idbuf + e->ids;
}

int wc_put_at(WordCacheTable *c, const unsigned char *w, size_t len, const WcPlace *at,
              const int32_t *ids, size_t n)
{
    size_t slot = at->slot;
    if (c->n >= c->max_words) {
        wc_reset(c); /* bounded memory; the slot found is stale now */
        cache_find(c, w, len, at->hash, &slot);
    }
    return c->n < c->max_words ? cache_store(c, w, len, at->hash, slot, ids, n) : 0;
}

const int32_t *wc_find(WordCacheTable *c, const unsigned char *w, size_t len, size_t *n)
{
    WcPlace at;
    return wc_find_at(c, w, len, &at, n);
}

int wc_put(WordCacheTable *c, const unsigned char *w, size_t len, const int32_t *ids, size_t n)
{
    uint64_t h = bpe_hash_bytes(w, len);
    size_t slot;
    if (c->n >= c->max_words)
        wc_reset(c); /* bounded memory */
    if (cache_find(c, w, len, h, &slot))
        return 0;
    return cache_store(c, w, len, h, slot, ids, n);
}

void wc_free(WordCacheTable *c)
{
    free(c->slots);
    free(c->ent);
    free(c->bytes);
    free(c->idbuf);
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
