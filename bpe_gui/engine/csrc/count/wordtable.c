/*
 * wordtable.c -- the word counter's table (see wordtable.h): hashing, the open-addressing
 * slots, the arena of long words, and counting a whole text (special tokens, then the
 * native scanner, in batches). Plain C: no Python here, so it runs without the GIL.
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan/scan.h"
#include "count/wordtable.h"
#include "util/atomics.h"
#include "util/grow.h"
#include "util/portable.h"
#include "util/threads.h"

#define ARENA_FIRST (64u << 10)
#define ARENA_CHUNK (4u << 20)
#define BATCH 256

/* ------------------------------------------------------------------------------ */
/* hashing                                                                        */
/* ------------------------------------------------------------------------------ */

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static const uint64_t LOW_BYTES[9] = {
    0, 0xffull, 0xffffull, 0xffffffull, 0xffffffffull, 0xffffffffffull, 0xffffffffffffull,
    0xffffffffffffffull, ~0ull};

/* The word's first 8 bytes, zero-padded. Reads 8 bytes at once when `end` allows it. */
static inline uint64_t key8_at(const unsigned char *p, size_t n, const unsigned char *end)
{
    size_t k = n < 8 ? n : 8;
    if (p + 8 <= end)
        return load64(p) & LOW_BYTES[k];
    uint64_t v = 0;
    memcpy(&v, p, k);
    return v;
}

static inline uint64_t key8_of(const unsigned char *p, size_t n)
{
    return key8_at(p, n, p + n);
}

/* A multiply-rotate hash: the first 8 bytes (already loaded as k8), then 8-byte lanes,
 * then a final avalanche. Words are short, so the per-word constant cost matters most. */
static inline uint64_t hash_word(uint64_t k8, const unsigned char *p, size_t n)
{
    uint64_t h = (k8 ^ (n * 0x9E3779B97F4A7C15ull)) * 0xbf58476d1ce4e5b9ull;
    if (n > 8) {
        p += 8;
        n -= 8;
        while (n >= 8) {
            h = (h ^ load64(p)) * 0x5bd1e9955bd1e995ull;
            h = (h << 31) | (h >> 33);
            p += 8;
            n -= 8;
        }
        if (n) {
            uint64_t t = 0;
            memcpy(&t, p, n);
            h = (h ^ t) * 0x5bd1e9955bd1e995ull;
        }
    }
    return mix64(h);
}

/* ------------------------------------------------------------------------------ */
/* the table (no Python calls: these run without the GIL)                         */
/* ------------------------------------------------------------------------------ */

#define TAG(h) ((uint32_t)(h))
#define HI(h) ((uint32_t)((h) >> 32))

/* The slots moved into a new index of new_cap (a power of two, larger), each placed by
 * its word's hash's high half: read from its entry, or (entries NULL) from the slot's
 * own top half, where the union's index keeps it. */
static int move_slots(uint64_t **slots, size_t *cap, size_t new_cap, const WordEntry *entries)
{
    uint64_t *to = (uint64_t *)calloc(new_cap, sizeof(uint64_t));
    if (!to)
        return -1;
    for (size_t i = 0; i < *cap; i++) {
        uint64_t v = (*slots)[i];
        if (!v)
            continue;
        size_t s = (entries ? entries[(uint32_t)v - 1].hi : (uint32_t)(v >> 32)) & (new_cap - 1);
        while (to[s])
            s = (s + 1) & (new_cap - 1);
        to[s] = v;
    }
    free(*slots);
    *slots = to;
    *cap = new_cap;
    return 0;
}

static int grow_slots(WordTable *c)
{
    return move_slots(&c->slots, &c->cap, c->cap ? c->cap * 2 : 4096, c->entries);
}

/* Room in the index for `more` new words: the load stays at most 3/4. */
static int reserve(WordTable *c, size_t more)
{
    while (c->cap == 0 || (c->n + more) * 4 >= c->cap * 3)
        if (grow_slots(c) < 0)
            return -1;
    return 0;
}

static const unsigned char *arena_copy(WordTable *c, const unsigned char *p, size_t n)
{
    if (c->n_chunks == 0 || c->chunk_used + n > c->chunk_size) {
        /* chunks start small (a small corpus keeps little) and double up to ARENA_CHUNK */
        size_t size = c->chunk_size ? c->chunk_size * 2 : ARENA_FIRST;
        if (size > ARENA_CHUNK)
            size = ARENA_CHUNK;
        if (n > size)
            size = n;
        if (bpe_grow((void **)&c->chunks, &c->chunks_cap, c->n_chunks + 1, sizeof(*c->chunks),
                     16) < 0)
            return NULL;
        unsigned char *mem = (unsigned char *)malloc(size ? size : 1);
        if (!mem)
            return NULL;
        c->chunks[c->n_chunks++] = mem;
        c->chunk_used = 0;
        c->chunk_size = size;
        c->arena_bytes += size;
    }
    unsigned char *dst = c->chunks[c->n_chunks - 1] + c->chunk_used;
    memcpy(dst, p, n);
    c->chunk_used += n;
    return dst;
}

static inline int same_word(const WordEntry *e, const unsigned char *p, size_t n, uint64_t k8)
{
    if (e->len != n)
        return 0;
    if (n <= 8)
        return e->w.key8 == k8;
    if (load64(e->w.p) != k8)
        return 0;
    if (n <= 16)   /* (the last 8 bytes overlap the first: both words are n >= 9 long) */
        return load64(e->w.p + n - 8) == load64(p + n - 8);
    return memcmp(e->w.p + 8, p + 8, n - 8) == 0;
}

/* The slot where word (p, n) with hash h is, or the empty slot where it would go. */
static inline size_t probe(const WordTable *c, const unsigned char *p, size_t n, uint64_t k8,
                           uint64_t h)
{
    size_t mask = c->cap - 1, s = HI(h) & mask;
    uint32_t tag = TAG(h);
    for (;;) {
        uint64_t v = c->slots[s];
        if (!v || ((uint32_t)(v >> 32) == tag && same_word(&c->entries[(uint32_t)v - 1], p, n, k8)))
            return s;
        s = (s + 1) & mask;
    }
}

/* Add `count` occurrences of a word with hash h first seen at `first` (the index has
 * room: reserve). Returns 0, or -1 when out of memory (the table is left consistent). */
static int add_hashed(WordTable *c, const unsigned char *p, size_t n, uint64_t k8, uint64_t h,
                      int64_t count, uint64_t first)
{
    if (n > UINT32_MAX || n == 0)
        return n == 0 ? 0 : -1;
    size_t s = probe(c, p, n, k8, h);
    uint64_t v = c->slots[s];
    if (v) {
        WordEntry *e = &c->entries[(uint32_t)v - 1];
        e->count += count;
        if (first < e->first) {
            e->first = first;
            c->unordered = 1;   /* (it may now come before words added after it) */
        }
        return 0;
    }
    if (c->n >= UINT32_MAX - 1)   /* entry numbers are 32-bit */
        return -1;
    if (bpe_grow((void **)&c->entries, &c->entries_cap, c->n + 1, sizeof(WordEntry),
                 1024) < 0)
        return -1;
    WordEntry *e = &c->entries[c->n];
    if (n <= 8) {
        e->w.key8 = k8;
    } else if (!(e->w.p = arena_copy(c, p, n))) {
        return -1;
    }
    if (c->n && first < c->entries[c->n - 1].first)
        c->unordered = 1;
    e->len = (uint32_t)n;
    e->hi = HI(h);
    e->count = count;
    e->first = first;
    c->slots[s] = ((uint64_t)TAG(h) << 32) | (uint64_t)(c->n + 1);
    c->n++;
    c->word_bytes += n;
    return 0;
}

int wt_add(WordTable *c, const unsigned char *p, size_t n, int64_t count,
                           uint64_t first)
{
    if (reserve(c, 1) < 0)
        return -1;
    uint64_t k8 = key8_of(p, n);
    return add_hashed(c, p, n, k8, hash_word(k8, p, n), count, first);
}

/* Count the words of s whose ends are ends[0..k) (the first starts at `start`): hash
 * them all and prefetch their slots first, then look them up. */
static int add_batch(WordTable *c, const unsigned char *s, size_t start, const size_t *ends,
                     size_t k, uint64_t *ord)
{
    uint64_t hs[BATCH], ks[BATCH];
    const unsigned char *end = s + ends[k - 1];
    /* room before the batch, so the prefetched slots stay where they are */
    if (reserve(c, k) < 0)
        return -1;
    size_t p = start, mask = c->cap - 1;
    for (size_t j = 0; j < k; j++) {
        ks[j] = key8_at(s + p, ends[j] - p, end);
        hs[j] = hash_word(ks[j], s + p, ends[j] - p);
        BPE_PREFETCH(&c->slots[HI(hs[j]) & mask]);
        p = ends[j];
    }
    /* then the entries their first slots name, so a word met before costs no wait */
    for (size_t j = 0; j < k; j++) {
        uint64_t v = c->slots[HI(hs[j]) & mask];
        if (v)
            BPE_PREFETCH(&c->entries[(uint32_t)v - 1]);
    }
    p = start;
    for (size_t j = 0; j < k; j++) {
        if (add_hashed(c, s + p, ends[j] - p, ks[j], hs[j], 1, (*ord)++) < 0)
            return -1;
        p = ends[j];
    }
    return 0;
}

/* Words scanned and not yet added: s[start..ends[0]), s[ends[0]..ends[1]), ... (offsets in
 * the buffer s, one word after the other), the first numbered ord. A batch fills across
 * short texts (the lines of a buffer), so its slots are prefetched together. */
typedef struct {
    size_t start, k;
    uint64_t ord;
    size_t ends[BATCH];
} Pending;

static int flush(WordTable *c, const unsigned char *s, Pending *pb)
{
    if (pb->k == 0)
        return 0;
    int rc = add_batch(c, s, pb->start, pb->ends, pb->k, &pb->ord);
    pb->start = pb->ends[pb->k - 1];
    pb->k = 0;
    return rc;
}

void wt_clear(WordTable *c)
{
    for (size_t i = 0; i < c->n_chunks; i++)
        free(c->chunks[i]);
    free(c->chunks);
    free(c->slots);
    free(c->entries);
    c->chunks = NULL;
    c->slots = NULL;
    c->entries = NULL;
    c->n = c->cap = c->entries_cap = c->word_bytes = 0;
    c->unordered = 0;
    c->n_chunks = c->chunks_cap = c->chunk_used = c->chunk_size = c->arena_bytes = 0;
}

void wt_reset(WordTable *c)
{
    wt_clear(c);
    c->total = c->chars = c->bytes = 0;
}

size_t wt_memory(const WordTable *c)
{
    return c->cap * sizeof(uint64_t) + c->entries_cap * sizeof(WordEntry) + c->arena_bytes;
}

void wt_free_specials(WordTable *c)
{
    for (ptrdiff_t k = 0; k < c->n_specials; k++)
        free(c->sp[k]);
    free(c->sp);
    free(c->sp_len);
    c->sp = NULL;
    c->sp_len = NULL;
    c->n_specials = 0;
}

int wt_set_specials(WordTable *c, const unsigned char *const *sp, const size_t *len, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!len[k])
            return -2;
    wt_free_specials(c);
    c->sp = (unsigned char **)calloc(n ? n : 1, sizeof(unsigned char *));
    c->sp_len = (size_t *)calloc(n ? n : 1, sizeof(size_t));
    if (!c->sp || !c->sp_len)
        goto fail;
    for (size_t k = 0; k < n; k++) {
        if (!(c->sp[k] = (unsigned char *)malloc(len[k])))
            goto fail;
        memcpy(c->sp[k], sp[k], len[k]);
        c->sp_len[k] = len[k];
        c->n_specials = (ptrdiff_t)k + 1;
    }
    /* longest first (insertion sort: there are few) */
    for (ptrdiff_t i = 1; i < c->n_specials; i++)
        for (ptrdiff_t j = i; j > 0 && c->sp_len[j] > c->sp_len[j - 1]; j--) {
            unsigned char *tp = c->sp[j];
            size_t tl = c->sp_len[j];
            c->sp[j] = c->sp[j - 1];
            c->sp_len[j] = c->sp_len[j - 1];
            c->sp[j - 1] = tp;
            c->sp_len[j - 1] = tl;
        }
    return 0;
fail:
    wt_free_specials(c);
    return -1;
}

int wt_count_block(WordTable *c, const unsigned char *s, size_t n, size_t stop,
                   uint64_t *ordp)
{
    size_t until = stop < n ? stop : n;
    int rc = wt_count_text_until(c, s, n, until, ordp);
    c->chars += wt_count_chars(s, until);
    c->bytes += (int64_t)until;
    return rc;
}

int wt_add_words(WordTable *c, const unsigned char *const *p, const size_t *len, size_t n,
                 uint64_t *ordp)
{
    for (size_t i = 0; i < n; i++) {
        if (!len[i])
            continue;
        if (wt_add(c, p[i], len[i], 1, (*ordp)++) < 0)
            return -1;
        c->total++;
    }
    return 0;
}

int wt_merge(WordTable *c, const WordTable *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const WordEntry *e = &src->entries[i];
        if (wt_add(c, wt_word(e), e->len, e->count, e->first) < 0)
            return -1;
    }
    c->total += src->total;
    c->chars += src->chars;
    c->bytes += src->bytes;
    return 0;
}

size_t wt_table_bad_entry(size_t blob_len, const int64_t *starts, const int64_t *counts,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (starts[i] < 0 || starts[i + 1] <= starts[i] || (uint64_t)starts[i + 1] > blob_len ||
            counts[i] < 1)
            return i;
    return n;
}

int wt_add_table(WordTable *c, const unsigned char *blob, const int64_t *starts,
                 const int64_t *counts, const uint64_t *firsts, size_t n, uint64_t key0)
{
    for (size_t i = 0; i < n; i++) {
        if (wt_add(c, blob + starts[i], (size_t)(starts[i + 1] - starts[i]), counts[i],
                   firsts ? firsts[i] : key0 + i) < 0)
            return -1;
        c->total += counts[i];
    }
    return 0;
}

/* Gathering several tables' counts (see wordtable.h) through one index of every word of
 * the union: each entry is looked up once, whatever the number of tables (looking each
 * word up in every other table's own index costs k - 1 lookups per entry). A slot holds
 * the hash's high half (as the entries keep it) and the entry's number among all the
 * tables' entries, plus one (0: empty); it is filled to at most three quarters, as the
 * tables' own indexes are, and those are freed first, so that the peak stays near
 * theirs. */
#define GATHER_BATCH 64

typedef struct {
    WordTable **ts;
    size_t k;
    const size_t *base;   /* k + 1: the number of each table's first entry */
    uint64_t *slots;
    size_t cap, used;
} Union;

static WordEntry *union_entry(const Union *u, size_t g, size_t *table)
{
    size_t lo = 0, hi = u->k;   /* the table with base[t] <= g < base[t + 1] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (u->base[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    *table = lo;
    return &u->ts[lo]->entries[g - u->base[lo]];
}

static int union_grow(Union *u)
{
    return move_slots(&u->slots, &u->cap, u->cap * 2, NULL);
}

/* Entry e (number g, of table j) into the union: the first entry of its word found keeps
 * the word's total unless e was seen before it (a smaller key; equal keys only if a block
 * was counted twice, on two tables: then the lower table, which came first, keeps it). */
static void union_add(Union *u, WordEntry *e, size_t g)
{
    size_t mask = u->cap - 1, s = e->hi & mask, t;
    const unsigned char *w = wt_word(e);
    for (;; s = (s + 1) & mask) {
        uint64_t v = u->slots[s];
        if (!v)
            break;
        if ((uint32_t)(v >> 32) != e->hi)
            continue;
        WordEntry *f = union_entry(u, (uint32_t)v - 1, &t);
        if (f->len != e->len || memcmp(wt_word(f), w, e->len) != 0)
            continue;
        if (e->first < f->first) {
            e->count += f->count;
            f->count = 0;
            u->slots[s] = ((uint64_t)e->hi << 32) | (uint64_t)(g + 1);
        } else {
            f->count += e->count;
            e->count = 0;
        }
        return;
    }
    u->slots[s] = ((uint64_t)e->hi << 32) | (uint64_t)(g + 1);
    u->used++;
}

/* The union split by the top bits of the words' hashes into `parts` partitions (a power
 * of two), each gathered through an index of its own by whichever worker takes it: a
 * word's entries all fall in one partition, and within it the tables are read in order,
 * as one index reads them, so the result does not depend on the partitions or workers. */
typedef struct {
    WordTable **ts;
    size_t k;
    const size_t *base;
    size_t largest;      /* entries of the largest table */
    size_t parts;
    unsigned shift;      /* a hash's partition: hi >> shift (parts > 1) */
    size_t next;         /* the next partition to take */
    int failed;
} Gather;

static void gather_part(Gather *g, size_t part)
{
    Union u = {g->ts, g->k, g->base, NULL, 1024, 0};
    while ((g->largest / g->parts + 1) * 4 >= u.cap * 3)
        u.cap *= 2;
    u.slots = (uint64_t *)calloc(u.cap, sizeof(uint64_t));
    int rc = u.slots ? 0 : -1;
    size_t sel[GATHER_BATCH];
    for (size_t j = 0; j < g->k && rc == 0; j++) {
        WordEntry *es = g->ts[j]->entries;
        size_t n = g->ts[j]->n;
        for (size_t i0 = 0; i0 < n && rc == 0; i0 += GATHER_BATCH) {
            size_t end = n - i0 < GATHER_BATCH ? n : i0 + GATHER_BATCH, m = 0;
            for (size_t i = i0; i < end; i++)
                if (g->parts == 1 || (es[i].hi >> g->shift) == part)
                    sel[m++] = i;
            if ((u.used + m) * 4 >= u.cap * 3 && (rc = union_grow(&u)) < 0)
                break;
            for (size_t i = 0; i < m; i++)
                BPE_PREFETCH(&u.slots[es[sel[i]].hi & (u.cap - 1)]);
            for (size_t i = 0; i < m; i++)
                union_add(&u, &es[sel[i]], g->base[j] + sel[i]);
        }
    }
    free(u.slots);
    if (rc < 0)
        bpe_st_rlx_int(&g->failed, 1);
}

static void gather_worker(void *ctx, size_t worker)
{
    Gather *g = (Gather *)ctx;
    (void)worker;
    for (;;) {
        size_t part = bpe_fetch_add_rlx_size(&g->next, 1);
        if (part >= g->parts || bpe_ld_rlx_int(&g->failed))
            return;
        gather_part(g, part);
    }
}

int wt_gather(WordTable **ts, size_t k, size_t threads)
{
    size_t *base = (size_t *)malloc((k + 1) * sizeof(size_t)), largest = 0;
    if (!base)
        return -1;
    base[0] = 0;
    for (size_t j = 0; j < k; j++) {   /* the tables' own lookups are over */
        free(ts[j]->slots);
        ts[j]->slots = NULL;
        ts[j]->cap = 0;
        base[j + 1] = base[j] + ts[j]->n;
        if (ts[j]->n > largest)
            largest = ts[j]->n;
    }
    if (base[k] >= UINT32_MAX) {   /* (a slot holds an entry's number in 32 bits) */
        free(base);
        return -1;
    }
    /* a few partitions per worker, so that a slow one holds up little */
    Gather g = {ts, k, base, largest, 1, 32, 0, 0};
    if (threads > 1)
        while (g.parts < 4 * threads && g.parts < 256) {
            g.parts *= 2;
            g.shift--;
        }
    bpe_run_threads(threads > 1 ? threads : 1, gather_worker, &g);
    free(base);
    return g.failed ? -1 : 0;
}

/* Characters in UTF-8 text: the bytes that are not continuation bytes (10xxxxxx),
 * eight at a time. */
int64_t wt_count_chars(const unsigned char *p, size_t n)
{
    int64_t cont = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = load64(p + i);
        /* one bit (bit 7) per continuation byte; the multiply adds the eight up into the
         * top byte (no popcount instruction needed) */
        uint64_t c = (x & ~(x << 1) & 0x8080808080808080ull) >> 7;
        cont += (int64_t)((c * 0x0101010101010101ull) >> 56);
    }
    for (; i < n; i++)
        cont += (p[i] & 0xC0) == 0x80;
    return (int64_t)n - cont;
}

/* ------------------------------------------------------------------------------ */
/* counting a text: special tokens, then the scanner                              */
/* ------------------------------------------------------------------------------ */

/* The first occurrence of needle in hay, or NULL. */
static const unsigned char *find_bytes(const unsigned char *hay, size_t n,
                                       const unsigned char *needle, size_t m)
{
#if defined(__GLIBC__) || defined(__APPLE__)
    return (const unsigned char *)memmem(hay, n, needle, m);
#else
    const unsigned char *end = hay + n;
    while (m && (size_t)(end - hay) >= m) {
        const unsigned char *f = (const unsigned char *)memchr(hay, needle[0],
                                                               (size_t)(end - hay) - m + 1);
        if (!f)
            return NULL;
        if (memcmp(f, needle, m) == 0)
            return f;
        hay = f + 1;
    }
    return NULL;
#endif
}

/* The next special token that starts at or after pos and ends by hi: its start in *at
 * and its index; -1 if none. next[k] caches where special k occurs next in s[0..n) (SIZE_MAX:
 * nowhere), searched again once pos passes it. An occurrence that ends past hi is no
 * match for the text s[..hi), and neither is any later one of the same token. */
static ptrdiff_t next_special(WordTable *c, const unsigned char *s, size_t n, size_t pos,
                               size_t hi, size_t *next, size_t *at)
{
    ptrdiff_t best = -1;
    for (ptrdiff_t k = 0; k < c->n_specials; k++) {
        if (next[k] != SIZE_MAX && next[k] < pos) {
            const unsigned char *f = NULL;
            if (pos + c->sp_len[k] <= n)
                f = find_bytes(s + pos, n - pos, c->sp[k], c->sp_len[k]);
            next[k] = f ? (size_t)(f - s) : SIZE_MAX;
        }
        if (next[k] == SIZE_MAX || next[k] + c->sp_len[k] > hi)
            continue;
        /* leftmost wins; at the same start the longest (specials are sorted longest first) */
        if (best < 0 || next[k] < *at) {
            best = k;
            *at = next[k];
        }
    }
    return best;
}

/* Count the words of s[0..n), a whole text; the first word gets the first-appearance key
 * *ord, the next *ord + 1, ... (*ord is left after the last). Returns 0 or -1 (out of
 * memory). */
int wt_count_text(WordTable *c, const unsigned char *s, size_t n, uint64_t *ordp)
{
    return wt_count_text_until(c, s, n, n, ordp);
}

/* The number of the k words ending at ends[] (the first starting at p) that start
 * before lim. */
static size_t starting_before(size_t p, const size_t *ends, size_t k, size_t lim)
{
    while (k > 0 && (k > 1 ? ends[k - 2] : p) >= lim)
        k--;
    return k;
}

static int count_range(WordTable *c, const unsigned char *s, size_t n, size_t lo, size_t hi,
                       size_t stop, size_t *next, Pending *pb);

int wt_count_text_until(WordTable *c, const unsigned char *s, size_t n, size_t stop,
                        uint64_t *ordp)
{
    /* where each special token occurs first: one cache for the whole buffer, so its lines
     * (below) are not searched one by one */
    size_t *next = NULL;
    if (c->n_specials) {
        next = (size_t *)malloc((size_t)c->n_specials * sizeof(size_t));
        if (!next)
            return -1;
        for (ptrdiff_t k = 0; k < c->n_specials; k++) {
            const unsigned char *f = c->sp_len[k] <= n
                ? find_bytes(s, n, c->sp[k], c->sp_len[k]) : NULL;
            next[k] = f ? (size_t)(f - s) : SIZE_MAX;
        }
    }
    int rc = 0;
    Pending pb;
    pb.start = pb.k = 0;
    pb.ord = *ordp;
    if (!c->lines) {
        rc = count_range(c, s, n, 0, n, stop, next, &pb);
    } else {
        /* line by line: no word, lookahead or special token reaches past a line's \n */
        size_t pos = 0;
        while (pos < n && pos < stop && rc == 0) {
            const unsigned char *nl = (const unsigned char *)memchr(s + pos, '\n', n - pos);
            size_t end = nl ? (size_t)(nl - s) + 1 : n;
            rc = count_range(c, s, n, pos, end, stop < end ? stop : end, next, &pb);
            pos = end;
        }
    }
    if (rc == 0)
        rc = flush(c, s, &pb);
    *ordp = pb.ord;
    free(next);
    return rc;
}

/* Count the words of the text s[lo..hi) (cut at special tokens, then by the scanner) that
 * start before stop (lo <= stop <= hi); s[0..n) is the buffer it lies in, next the special
 * tokens' cache over it (next_special), NULL without special tokens. The words join pb
 * (added when it is full, when a special token leaves a gap, and at the end). */
static int count_range(WordTable *c, const unsigned char *s, size_t n, size_t lo, size_t hi,
                       size_t stop, size_t *next, Pending *pb)
{
    size_t pos = lo;
    while (pos < hi && pos < stop) {
        size_t end = hi, at = SIZE_MAX;
        ptrdiff_t k = next ? next_special(c, s, n, pos, hi, next, &at) : -1;
        if (k >= 0)
            end = at;
        /* the piece s[pos..end) is a whole text for the scanner */
        size_t p = 0;
        while (p < end - pos && pos + p < stop) {
            if (pb->k && pb->ends[pb->k - 1] != pos + p && flush(c, s, pb) < 0)
                return -1;   /* (a special token between: the batch's words must touch) */
            if (pb->k == 0)
                pb->start = pos + p;
            size_t *out = pb->ends + pb->k;
            size_t got = bpe_scan_words(c->preset, s + pos, p, end - pos, out, BATCH - pb->k);
            if (pos + out[got - 1] > stop)   /* (the last words may start at or after stop) */
                got = starting_before(p, out, got, stop - pos);
            p = out[got - 1];
            for (size_t j = 0; j < got; j++)
                out[j] += pos;
            pb->k += got;
            c->total += (int64_t)got;
            if (pb->k == BATCH && flush(c, s, pb) < 0)
                return -1;
        }
        if (k >= 0 && c->special_words && at < stop) {   /* the token: a word of its own */
            if (pb->k && pb->ends[pb->k - 1] != at && flush(c, s, pb) < 0)
                return -1;
            if (pb->k == 0)
                pb->start = at;
            pb->ends[pb->k++] = at + c->sp_len[k];
            c->total++;
            if (pb->k == BATCH && flush(c, s, pb) < 0)
                return -1;
        }
        pos = k >= 0 ? end + c->sp_len[k] : hi;
    }
    return 0;
}
