/*
 * ws_tok.h -- the hashed bits of a rank-based table's whitespace tokens (MergeTable.ws_tok):
 * set by merge.c as tokens are given (mt_ws_note_token), read by whitespace_runs.c, which
 * skips the pairs of symbols whose bytes together are surely no token. Plain C, static
 * inline.
 */
#ifndef BPE_MERGE_WS_TOK_H
#define BPE_MERGE_WS_TOK_H

#include <stddef.h>
#include <stdint.h>

#include "util/load.h"

/* ws_tok's bit of a string of one kind */
enum { WS_TOK, WS_PRE, WS_SUF };
#define WS_TOK_BITS 17

static inline uint64_t ws_hash(const unsigned char *p, size_t len, int kind)
{
    uint64_t h = (len | (uint64_t)kind << 32) * 0x9E3779B97F4A7C15ull;
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        h = (h ^ load8(p + i)) * 0xC2B2AE3D27D4EB4Full + (h >> 29);
    uint64_t last = 0;
    for (; i < len; i++)
        last = last << 8 | p[i];
    h = (h ^ last) * 0x9E3779B97F4A7C15ull;
    return (h ^ h >> 31) * 0xD6E8FEB86659FD93ull >> (64 - WS_TOK_BITS);
}

#endif
