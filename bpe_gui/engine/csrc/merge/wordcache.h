/*
 * wordcache.h -- word bytes -> token ids, in native memory: the encoder's table of long
 * words (encoder.h), and pieces cut where no merge joins two bytes, each segment merged
 * (merge.h) or found (SuperBPE's stage-2 pieces; SentencePiece's cut texts).
 *
 * The entries are valid for one merge limit (a tokenizer as of one training step): a
 * call with another limit empties the cache first. It holds at most max_words words and
 * empties itself when full, so its memory is bounded. One thread at a time (each
 * thread takes a cache of its own; the merge table is shared).
 */
#ifndef BPE_WORDCACHE_H
#define BPE_WORDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "merge/merge.h"

typedef struct {
    uint64_t hash;
    size_t word;   /* offset of the word's bytes in `bytes` */
    size_t ids;    /* offset of its ids in `idbuf` */
    uint32_t len;  /* word bytes */
    uint32_t n;    /* ids */
} CacheEntry;

typedef struct {
    uint32_t *slots; /* entry + 1; 0 = empty; NULL until wc_init */
    size_t cap;
    CacheEntry *ent;
    size_t n, ent_cap, max_words;
    unsigned char *bytes;
    size_t bytes_len, bytes_cap;
    int32_t *idbuf;
    size_t id_len, id_cap;
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

/* One word's ids (NULL: not there; *n their number). */
const int32_t *wc_find(WordCacheTable *c, const unsigned char *w, size_t len, size_t *n);
/* Remember a word's ids (a full table forgets every word first). 0, or -1 when out of
 * memory (the table stays usable). */
int wc_put(WordCacheTable *c, const unsigned char *w, size_t len, const int32_t *ids, size_t n);

/* Pieces blob[starts[i]..starts[i+1]) for i < n_pieces, each cut into segments between
 * every two bytes x, y with joins[x << 8 | y] == 0 (no merge ever joins them, so no
 * merge crosses there and merging the segments alone gives the piece's ids); each
 * segment merged (or taken from the cache) with the merges of rank < limit. The ids go
 * to out, piece i's at out_starts[i]..out_starts[i+1] (n_pieces + 1 entries). 0, or -1
 * when out of memory. */
int wc_encode_pieces(const MergeTable *m, WordCacheTable *c, const uint8_t *joins,
                     const unsigned char *blob, const int64_t *starts, size_t n_pieces,
                     int32_t limit, IdList *out, int64_t *out_starts);

#endif
