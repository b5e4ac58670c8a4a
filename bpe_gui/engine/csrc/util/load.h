/*
 * load.h -- little-endian loads of a few bytes, the first byte in the lowest bits on any
 * host (merge.c's pair keys, token_boundaries.c's windows, the encoder's words,
 * json_scan.h's eight bytes at a time). Plain C, static inline.
 */
#ifndef BPE_UTIL_LOAD_H
#define BPE_UTIL_LOAD_H

#include <stdint.h>
#include <string.h>

#include "util/portable.h"

/* p[0..4) and p[0..5), the first in the lowest bits, on any host */
static inline uint64_t load4(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = bpe_bswap32(v);
#endif
    return v;
}

static inline uint64_t load5(const unsigned char *p)
{
    return load4(p) | (uint64_t)p[4] << 32;
}

/* 8 bytes at p, the first in the lowest bits, on any host */
static inline uint64_t load8(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = bpe_bswap64(v);
#endif
    return v;
}

#endif
