/*
 * merge.h -- the merge table of byte-level encoding and the merge loops, in plain C.
 *
 * Merging: repeatedly merge the leftmost occurrence of the pair with the lowest rank,
 * until no pair of rank < limit is left (what tiktoken and Hugging Face do). For merges
 * learned by training -- a token is only ever merged further at a later rank -- this
 * equals training's "replace every occurrence left to right" rule, so encoding the
 * training corpus reproduces training. Short words scan for the lowest rank; long words
 * (Chinese with the GPT-2 pattern: whole clauses) use a heap, so a word of n symbols
 * costs O(n log n) rather than O(n^2).
 *
 * Lookups: pairs of two raw bytes come from a 256 x 256 table; other pairs from an
 * open-addressing hash, behind a 128 KB bit filter that answers most "no merge" lookups
 * without touching it; a merge's new id comes from its rank (ranks are dense).
 * A MergeTable is used by one thread at a time (its scratch buffers are shared).
 */
#ifndef BPE_MERGE_H
#define BPE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#define NO_RANK INT32_MAX
#define MT_MAX_RANK (1 << 26)   /* ranks are positions in a merge list */

typedef struct {
    uint64_t key; /* ((a << 32) | b) + 1; 0 marks an empty slot */
    int32_t rank;
    int32_t new_id;
} MergeEntry;

typedef struct {
    MergeEntry *tab;
    size_t cap; /* power of two; 0 until mt_init */
    size_t n;
    int32_t byte_ids[256];
    /* merges of two single bytes, by raw byte values: [x * 256 + y] = (rank, new id),
     * rank NO_RANK if none; the first merges of every word need no hash lookup */
    struct { int32_t rank, new_id; } *bytepair;
    /* rank -> new id (ranks are dense: the merge list's order), so a merge needs no
     * second lookup of its pair */
    int32_t *rank_new;
    size_t rank_cap;
    /* one bit per hash of a pair that has a merge */
    uint64_t *filter;
    /* scratch for one word */
    int32_t *sym, *rk, *nxt, *prv;
    uint64_t *heap;
    size_t buf_cap;
} MergeTable;

/* byte_ids: the token id of each single byte. 0, or -1 when out of memory. */
int mt_init(MergeTable *m, const int32_t byte_ids[256]);
void mt_free(MergeTable *m);

/* Register a merge: 1 added, 0 the pair is known (the first rank given wins), -1 out of
 * memory, -2 rank above MT_MAX_RANK. */
int mt_add(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id);

const MergeEntry *mt_find(const MergeTable *m, int32_t a, int32_t b);

/* Room in m->sym (and the other scratch arrays) for a word of n symbols; 0 or -1. */
int mt_reserve(MergeTable *m, size_t n);

/* Merge m->sym[0..n) in place with the merges of rank < limit; returns the new length.
 * raw: the word's bytes when m->sym holds exactly their byte tokens (the first ranks
 * then come from the byte-pair table), else NULL. */
size_t mt_merge_word(MergeTable *m, size_t n, int32_t limit, const unsigned char *raw);

#endif
