/*
 * hash.h -- the one hash of byte strings in csrc/ (the word cache's words, an imported
 * tokenizer's keys). Plain C; static inline, so the lookups that call it on every word
 * keep it inlined.
 */
#ifndef BPE_UTIL_HASH_H
#define BPE_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A 64-bit hash of p[0..n): FNV-style over eight bytes at a time, then every bit mixed
 * in (murmur3's finaliser), so a table may take its slot, a tag and a filter bit from
 * different bits of one hash. Fast for the short keys it is given (most are < 16 bytes);
 * not for hostile input. */
static inline uint64_t bpe_hash_bytes(const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = (h ^ v) * 0x100000001b3ull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    while (n--)
        h = (h ^ *p++) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

#endif
