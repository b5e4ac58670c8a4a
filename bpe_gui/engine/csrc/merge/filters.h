/*
 * filters.h -- the hash of the merge engine's two bit filters (merge.c): the pair filter
 * (a pair of token ids) and the short keys' filter (2..8 bytes and their length). Each is
 * a blocked Bloom filter of 512 KB: two bits of one 64-bit word per entry. Shared with
 * small.c, whose own lookups must test the same bits.
 */
#ifndef BPE_MERGE_FILTERS_H
#define BPE_MERGE_FILTERS_H

#include <stddef.h>
#include <stdint.h>

#define MT_FILTER_WORDS_LOG 16
#define MT_FILTER_MUL1 0xC2B2AE3D27D4EB4Full
#define MT_FILTER_MUL2 0x9E3779B97F4A7C15ull

/* The word of the filter for the entry v (a pair: a << 32 | b; a short key: its bytes ^
 * its length), its two bits in *mask. */
static inline size_t mt_filter_word(uint64_t v, uint64_t *mask)
{
    uint64_t h = v * MT_FILTER_MUL1;
    uint64_t g = h * MT_FILTER_MUL2;
    *mask = 1ull << (g >> 58) | 1ull << (g >> 52 & 63);
    return (size_t)(h >> (64 - MT_FILTER_WORDS_LOG));
}

#endif
