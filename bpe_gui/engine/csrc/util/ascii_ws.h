/*
 * ascii_ws.h -- how many bytes at p are ASCII whitespace (\t \n \v \f \r and space, what
 * \s matches below 0x80 in every Unicode version), 16 at a time (SSE2 on x86-64; a byte at
 * a time elsewhere). Plain C; static inline.
 *
 * Why: a run of whitespace thousands of bytes long (a file's indentation, blank lines)
 * was scanned a byte at a time, a table lookup and a branch on each (the scanner's
 * whitespace word, ~15 instructions a byte, and the merge's check that a word is all
 * whitespace, ~5: callgrind, cl100k on 2 MB of whitespace runs, a fifth of the encode).
 */
#ifndef BPE_UTIL_ASCII_WS_H
#define BPE_UTIL_ASCII_WS_H

#include <stddef.h>

#include "util/portable.h"
#include "util/simd.h"
#if defined(BPE_SIMD_SSE2)
#include <emmintrin.h>
#endif

static inline int bpe_is_ascii_ws(unsigned char c)
{
    return c == ' ' || (unsigned)(c - '\t') <= (unsigned)('\r' - '\t');
}

/* the length of the run of ASCII whitespace bytes at p[0..n) */
static inline size_t bpe_ascii_ws_run(const unsigned char *p, size_t n)
{
    size_t i = 0;
#if defined(BPE_SIMD_SSE2)
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), four = _mm_set1_epi8(4);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i)), d = _mm_sub_epi8(v, tab);
        /* (v - '\t') <= 4 unsigned: min(d, 4) == d */
        __m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(_mm_min_epu8(d, four), d));
        unsigned mask = (unsigned)_mm_movemask_epi8(ws);
        if (mask != 0xFFFF)
            return i + (size_t)bpe_ctz32(~mask);
    }
#endif
    while (i < n && bpe_is_ascii_ws(p[i]))
        i++;
    return i;
}

#endif
