/*
 * wordcache.h -- word bytes -> token ids, in native memory: the encoder's table of long
 * words (encoder.h), and pieces cut where no merge joins two bytes, each segment merged
 * (merge.h) or found (SuperBPE's stage-2 pieces; SentencePiece's cut texts).
 *
 * The entries are valid for one merge limit (a tokenizer as of one training step): a
 * call with another limit empties the cache first. It holds at most max_words words in
 * at most WC_MAX_ARENA bytes and empties itself when full, so its memory is bounded. One
 * thread at a time (each thread takes a cache of its own; the merge table is shared).
 */
#ifndef BPE_WORDCACHE_H
#define BPE_WORDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "merge/merge.h"
#include "util/hash.h"
#include "util/portable.h"

#define WC_MAX_ARENA ((size_t)32 << 20)

/* An entry in the arena: this header, the word's bytes (padded to 4), its ids (padded
 * to 8); a hit reads one place, in the order the words were stored. */
typedef struct {
    uint32_t len;  /* word bytes */
    uint32_t n;    /* ids */
} CacheEntry;

typedef struct {
    /* the hash's high half (its low bits: the slot) | (the entry's offset in the arena
     * / 8 + 1) << 32; 0 = empty; NULL until wc_init */
    uint64_t *slots;
    size_t cap;
    unsigned char *arena; /* the entries, one after another */
    size_t arena_len, arena_cap;
    size_t n, max_words;
    int32_t limit;   /* the merge limit the entries were made with; -1: none yet */
} WordCacheTable;

/* A growing list of ids (free ids when done). */
typedef struct {
    int32_t *ids;
    size_t n, cap;
} IdList;

int wc_init(WordCacheTable *c, size_t max_words);   /* 0, or -1 when out of memory */
void wc_free(WordCacheTable *c);
void wc_reset(WordCacheTable *c);                    /* forget every word */
/* the memory the table holds */
static inline size_t wc_bytes(const WordCacheTable *c)
{
    return c->slots ? c->cap * sizeof(uint64_t) + c->arena_cap : 0;
}

/* A lookup that found nothing and the put that follows it, on one hash of the word: its
 * hash (for wc_admit_put too) and the slot it goes in. */
typedef struct {
    uint64_t hash;
    size_t slot;
} WcPlace;
/* One word's ids (NULL: not there; *n their number), at->hash given; keeps the word's
 * slot in at->slot */
const int32_t *wc_find_hashed(WordCacheTable *c, const unsigned char *w, size_t len,
                              WcPlace *at, size_t *n);
/* wc_find_hashed, the hash taken inline (a segment loop's hot path) */
static inline const int32_t *wc_find_at(WordCacheTable *c, const unsigned char *w, size_t len,
                                        WcPlace *at, size_t *n)
{
    at->hash = bpe_hash_bytes(w, len);
    return wc_find_hashed(c, w, len, at, n);
}
/* Fetch the slot of the word of hash h into the CPU's cache ahead of wc_find_hashed. */
BPE_FORCE_INLINE void wc_prefetch(const WordCacheTable *c, uint64_t h)
{
    BPE_PREFETCH(&c->slots[(size_t)(h >> 32) & (c->cap - 1)]);
}
/* Remember the ids of a word wc_find_* did not find, the table unchanged since (a full
 * table forgets every word first). 0, or -1 when out of memory (the table stays usable). */
int wc_put_at(WordCacheTable *c, const unsigned char *w, size_t len, const WcPlace *at,
              const int32_t *ids, size_t n);

/* ---- which words a cache takes: the one admission policy of every word cache (the
 * encoder's shared cache and its long words, SentencePiece's segments, SuperBPE's
 * pieces) ----
 *
 * A text whose words do not come back (random letters, random Unicode, hashes) finds a
 * cache no help and pays for every word it looks up and puts there: the hash, the
 * lookup, the store, the cache lines it takes and a word pushed out for each. Two rules:
 *   look  -- a word of more than WC_ADMIT_MAX_LEN bytes is merged every time; and per
 *            length class (1, 2-3, 4-7 ... bytes): lookups and hits, both halved every
 *            WC_ADMIT_HALVE lookups; a class that has had WC_ADMIT_COLD lookups and fewer
 *            hits than 1 in WC_ADMIT_COLD_RATE is not looked up (nor put in) but for one
 *            word in WC_ADMIT_PROBE, which keeps the count going (the counts are taken
 *            every WC_ADMIT_TALLY lookups of a class);
 *   put   -- over windows of WC_ADMIT_WINDOW merged words: after a window where fewer
 *            than one word in WC_ADMIT_RATE was found, a merged word goes in only when it
 *            comes back (its fingerprint is in `door`, the words merged lately; this
 *            counts as found, so the rate recovers when a text turns to words that
 *            repeat), and otherwise one in WC_ADMIT_SPARSE (words that come back after
 *            longer).
 * A caller whose lookups are cheaper than the rule (the encoder's inline probe of its
 * shared cache) looks up every word and asks only `put`. A zeroed WcAdmit is a fresh
 * one; wc_admit_free gives back its door. */
#define WC_ADMIT_MAX_LEN 256
#define WC_ADMIT_WINDOW 1024
#define WC_ADMIT_RATE 4
#define WC_ADMIT_SPARSE 8
#define WC_DOOR_BITS 11
#define WC_ADMIT_CLASSES 9
#define WC_ADMIT_COLD 4096
#define WC_ADMIT_COLD_RATE 64
#define WC_ADMIT_PROBE 32
#define WC_ADMIT_HALVE 16384
#define WC_ADMIT_TALLY 64 /* (a power of two dividing WC_ADMIT_COLD and WC_ADMIT_HALVE) */

typedef struct {
    size_t win_hits;                 /* words found since the window began */
    uint32_t win_misses, tick;       /* words merged since; sparse puts counted */
    int sparse;
    uint32_t *door;                  /* 2**WC_DOOR_BITS fingerprints; NULL until sparse */
    /* per class: lookups (low 16 bits) and hits (high 16), both at most WC_ADMIT_HALVE */
    uint32_t counts[WC_ADMIT_CLASSES], skipped[WC_ADMIT_CLASSES];
    uint32_t cold;                   /* bit b: class b is not looked up (but to probe) */
} WcAdmit;

void wc_admit_free(WcAdmit *a);
/* (out of line, seldom: the end of a window, the next one's rule; and class b's counts
 * taken every WC_ADMIT_TALLY lookups, whether it is cold from then on) */
void wc_admit_window(WcAdmit *a);
void wc_admit_tally(WcAdmit *a, int b);

/* A word's length class (-1: more than WC_ADMIT_MAX_LEN bytes, never looked up), for
 * wc_admit_look and wc_admit_seen. */
static inline int wc_admit_class(size_t len)
{
    if (len > WC_ADMIT_MAX_LEN)
        return -1;
    return 63 - bpe_clz64((uint64_t)len | 1); /* (below WC_ADMIT_CLASSES) */
}

/* 1: look the word of class b up in the cache (and put it in when it is not there, if
 * wc_admit_put agrees); then tell wc_admit_seen what the lookup found. */
static inline int wc_admit_look(WcAdmit *a, int b)
{
    if (b < 0)
        return 0;
    if (BPE_LIKELY(!(a->cold >> b & 1)))
        return 1;
    return (++a->skipped[b] & (WC_ADMIT_PROBE - 1)) == 0;
}

static inline void wc_admit_seen(WcAdmit *a, int b, int found)
{
    uint32_t c = a->counts[b] += 1u + ((uint32_t)found << 16);
    a->win_hits += (size_t)found;
    if ((c & (WC_ADMIT_TALLY - 1)) == 0)
        wc_admit_tally(a, b);
}

/* n words found without wc_admit_look (the encoder's inline hits, a memo in front) */
static inline void wc_admit_found(WcAdmit *a, size_t n) { a->win_hits += n; }

/* 1: the word just merged (h: a hash of it) goes into the cache */
static inline int wc_admit_put(WcAdmit *a, uint64_t h)
{
    if (++a->win_misses >= WC_ADMIT_WINDOW)
        wc_admit_window(a);
    if (BPE_LIKELY(!a->sparse))
        return 1;
    if (a->door) {
        uint32_t fp = (uint32_t)h | 1, *d = &a->door[h >> (64 - WC_DOOR_BITS)];
        if (*d == fp) {
            a->win_hits++;
            return 1;
        }
        *d = fp;
    }
    return ++a->tick % WC_ADMIT_SPARSE == 0;
}

#endif
