/*
 * utf8.h -- code points (1, 2 or 4 bytes each, as Python's str keeps them) to UTF-8.
 * Plain C; static inline. ASCII goes 8 (UCS-1, UCS-2) or 4 (UCS-4) characters at a time
 * (SSE2 packs on x86-64, shifts elsewhere): most texts are mostly ASCII, and CPython's own
 * encoder takes ~11 instructions a character where this takes ~2.
 */
#ifndef BPE_UTIL_UTF8_H
#define BPE_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/portable.h"
#include "util/simd.h"
#if defined(BPE_SIMD_SSE2)
#include <emmintrin.h>
#define BPE_UTF8_SSE2 1
#endif

/* The most bytes n characters of `kind` (1, 2, 4) can take in UTF-8. */
static inline size_t bpe_utf8_room(int kind, size_t n)
{
    return n * (kind == 1 ? 2 : kind == 2 ? 3 : 4);
}

static inline unsigned char *bpe_utf8_put(unsigned char *o, uint32_t c)
{
    if (c < 0x80) {
        *o++ = (unsigned char)c;
    } else if (c < 0x800) {
        *o++ = (unsigned char)(0xC0 | c >> 6);
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *o++ = (unsigned char)(0xE0 | c >> 12);
        *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    } else {
        *o++ = (unsigned char)(0xF0 | c >> 18);
        *o++ = (unsigned char)(0x80 | (c >> 12 & 0x3F));
        *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (c & 0x3F));
    }
    return o;
}

#if defined(BPE_SIMD_X86) && !defined(BPE_NO_AVX512)
#include <immintrin.h>

#include "util/cpu.h"
#define BPE_UTF8_AVX512 1
#define BPE_UTF8_TARGET BPE_TARGET("avx512f,avx512bw,avx512vbmi2")

/* 1: this CPU can take 16 characters at a time (AVX-512 with byte compression) */
static inline int bpe_utf8_wide(void)
{
    return (bpe_cpu() & BPE_CPU_AVX512_VBMI2) != 0;
}

/* 16 code points (none a surrogate) as UTF-8 at o, whatever their lengths: each one's 1-4
 * bytes made in its 32-bit lane, the bytes past its length dropped by one compression
 * (random text of every plane: one character at a time, a branch on each one's length,
 * took ~13 cycles a character); the new o. Writes only the bytes it returns. */
BPE_UTF8_TARGET static inline unsigned char *bpe_utf8_put16(unsigned char *o, __m512i v)
{
    const __m512i m3f = _mm512_set1_epi32(0x3F), c80 = _mm512_set1_epi32(0x80);
    __mmask16 ge80 = _mm512_cmpge_epu32_mask(v, c80);
    __mmask16 ge800 = _mm512_cmpge_epu32_mask(v, _mm512_set1_epi32(0x800));
    __mmask16 ge10000 = _mm512_cmpge_epu32_mask(v, _mm512_set1_epi32(0x10000));
    __m512i t0 = _mm512_or_si512(_mm512_and_si512(v, m3f), c80);                 /* 10xxxxxx */
    __m512i t6 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(v, 6), m3f), c80);
    __m512i t12 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(v, 12), m3f), c80);
    __m512i b2 = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi32(v, 6), _mm512_set1_epi32(0xC0)),
                                 _mm512_slli_epi32(t0, 8));
    __m512i b3 = _mm512_or_si512(
        _mm512_or_si512(_mm512_srli_epi32(v, 12), _mm512_set1_epi32(0xE0)),
        _mm512_or_si512(_mm512_slli_epi32(t6, 8), _mm512_slli_epi32(t0, 16)));
    __m512i b4 = _mm512_or_si512(
        _mm512_or_si512(_mm512_srli_epi32(v, 18), _mm512_set1_epi32(0xF0)),
        _mm512_or_si512(_mm512_slli_epi32(t12, 8),
                        _mm512_or_si512(_mm512_slli_epi32(t6, 16), _mm512_slli_epi32(t0, 24))));
    __m512i bytes = _mm512_mask_mov_epi32(v, ge80, b2);
    bytes = _mm512_mask_mov_epi32(bytes, ge800, b3);
    bytes = _mm512_mask_mov_epi32(bytes, ge10000, b4);
    /* each lane's length in each of its bytes, against the byte's place in the lane */
    __m512i len = _mm512_set1_epi32(1);
    len = _mm512_mask_add_epi32(len, ge80, len, _mm512_set1_epi32(1));
    len = _mm512_mask_add_epi32(len, ge800, len, _mm512_set1_epi32(1));
    len = _mm512_mask_add_epi32(len, ge10000, len, _mm512_set1_epi32(1));
    __mmask64 keep = _mm512_cmplt_epu8_mask(_mm512_set1_epi32(0x03020100),
                                            _mm512_mullo_epi32(len, _mm512_set1_epi32(0x01010101)));
    unsigned cnt = (unsigned)bpe_popcount64(keep);
    _mm512_mask_storeu_epi8(o, cnt == 64 ? ~0ull : (1ull << cnt) - 1,
                            _mm512_maskz_compress_epi8(keep, bytes));
    return o + cnt;
}

/* 1: a surrogate among the 16 code points */
BPE_UTF8_TARGET static inline int bpe_utf8_surrogate16(__m512i v)
{
    return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(v, _mm512_set1_epi32(0xD800)),
                                   _mm512_set1_epi32(0x800)) != 0;
}

/* UCS-4 (4) or UCS-2 (2) characters p[i..) 16 at a time while no block holds a surrogate:
 * the new i (the caller converts the rest), the bytes written in *o. A block of 32 (UCS-2)
 * or 16 (UCS-4) ASCII characters is narrowed in one instruction: put16's compression
 * made 20 MB of English kept as UCS-2 (a few curly quotes) take 25.6 ms against SSE2's
 * 5.9 (Xeon, Sapphire Rapids); Chinese stays on put16 (1.2 ms against 3.4). */
BPE_UTF8_TARGET static inline size_t bpe_utf8_wide_run(int kind, const void *data, size_t i,
                                                       size_t n, unsigned char **o)
{
    for (;;) {
        if (kind == 2) {
            while (i + 32 <= n) {
                __m512i w = _mm512_loadu_si512((const uint16_t *)data + i);
                if (_mm512_test_epi16_mask(w, _mm512_set1_epi16((short)0xFF80)))
                    break;
                _mm256_storeu_si256((__m256i *)*o, _mm512_cvtepi16_epi8(w));
                *o += 32, i += 32;
            }
        } else {
            while (i + 16 <= n) {
                __m512i w = _mm512_loadu_si512((const uint32_t *)data + i);
                if (_mm512_test_epi32_mask(w, _mm512_set1_epi32((int)0xFFFFFF80)))
                    break;
                _mm_storeu_si128((__m128i *)*o, _mm512_cvtepi32_epi8(w));
                *o += 16, i += 16;
            }
        }
        if (i + 16 > n)
            return i;
        __m512i v = kind == 4 ? _mm512_loadu_si512((const uint32_t *)data + i)
                              : _mm512_cvtepu16_epi32(_mm256_loadu_si256(
                                    (const __m256i *)((const uint16_t *)data + i)));
        if (bpe_utf8_surrogate16(v))
            return i;
        *o = bpe_utf8_put16(*o, v);
        i += 16;
    }
}
#endif

/* Byte offsets into the UTF-8 s[0..n) made character offsets, in place (k of them, in
 * any order: a cursor walks either way; an offset inside a character counts it, one past
 * n is n). */
static inline void bpe_utf8_char_offsets(const unsigned char *s, size_t n, int64_t *off,
                                         size_t k)
{
    size_t byte = 0, ch = 0;
    for (size_t i = 0; i < k; i++) {
        size_t want = (size_t)off[i] > n ? n : (size_t)off[i];
        while (byte < want) {
            byte++;
            while (byte < n && (s[byte] & 0xC0) == 0x80)
                byte++;
            ch++;
        }
        while (byte > want) {
            byte--;
            while (byte > 0 && (s[byte] & 0xC0) == 0x80)
                byte--;
            ch--;
        }
        off[i] = (int64_t)ch;
    }
}

/* A map from a normalized text's bytes to the bytes of the UTF-8 text s[0..n) it came
 * from (src[i]: where norm[i]'s source starts; src[nl]: the end) made a map by
 * characters, in place: src[c] the character of s where normalized character c comes
 * from (its first byte's source), src[count]: the end's. Returns count + 1. */
static inline size_t bpe_utf8_char_sources(const unsigned char *s, size_t n,
                                           const unsigned char *norm, size_t nl, int64_t *src)
{
    size_t nc = 0;
    for (size_t i = 0; i < nl; i++)
        if ((norm[i] & 0xC0) != 0x80)
            src[nc++] = src[i];
    src[nc++] = src[nl];
    bpe_utf8_char_offsets(s, n, src, nc);
    return nc;
}

/* n characters at data (`kind` bytes each) as UTF-8 into out (room: bpe_utf8_room).
 * Returns the bytes written, or (size_t)-1 at a surrogate (UTF-8 cannot hold one). */
static inline size_t bpe_utf8_from_ucs(int kind, const void *data, size_t n, unsigned char *out)
{
    unsigned char *o = out;
    size_t i = 0;
    if (kind == 1) {
        const unsigned char *p = (const unsigned char *)data;
        while (i < n) {
            if (i + 8 <= n) {
                uint64_t v;
                memcpy(&v, p + i, 8);
                if (!(v & 0x8080808080808080ull)) {
                    memcpy(o, &v, 8);
                    o += 8, i += 8;
                    continue;
                }
            }
            o = bpe_utf8_put(o, p[i++]);
        }
    } else if (kind == 2) {
        const uint16_t *p = (const uint16_t *)data;
#ifdef BPE_UTF8_AVX512
        if (bpe_utf8_wide())
            i = bpe_utf8_wide_run(2, data, 0, n, &o); /* (then the rest, and a surrogate) */
#endif
        while (i < n) {
            if (i + 8 <= n) {
#ifdef BPE_UTF8_SSE2
                __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
                if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xFF80)),
                                                      _mm_setzero_si128())) == 0xFFFF) {
                    _mm_storel_epi64((__m128i *)o, _mm_packus_epi16(v, v));
                    o += 8, i += 8;
                    continue;
                }
#else
                uint64_t a, b;
                memcpy(&a, p + i, 8);
                memcpy(&b, p + i + 4, 8);
                if (!((a | b) & 0xFF80FF80FF80FF80ull)) {
                    for (int k = 0; k < 4; k++)
                        o[k] = (unsigned char)p[i + k], o[4 + k] = (unsigned char)p[i + 4 + k];
                    o += 8, i += 8;
                    continue;
                }
#endif
            }
#ifdef BPE_UTF8_SSE2
            if (i + 8 < n) { /* (not the last 8: a store below writes a byte past them) */
                /* 8 characters of one length, Han and kana (3 bytes, no surrogate) or
                 * Cyrillic, Greek, Arabic (2 bytes): without a branch per character;
                 * CPython's str keeps such text as 2-byte characters */
                __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
                __m128i hi = _mm_and_si128(v, _mm_set1_epi16((short)0xF800)), zero = _mm_setzero_si128();
                int short_ = _mm_movemask_epi8(_mm_cmpeq_epi16(hi, zero)); /* < 0x800 */
                int ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(
                    _mm_and_si128(v, _mm_set1_epi16((short)0xFF80)), zero));
                int surr = _mm_movemask_epi8(_mm_cmpeq_epi16(hi, _mm_set1_epi16((short)0xD800)));
                if (!short_ && !surr) {
                    for (int k = 0; k < 8; k++) {
                        uint32_t c = p[i + k];
                        uint32_t b = (0xE0 | c >> 12) | (0x80 | (c >> 6 & 0x3F)) << 8 |
                                     (0x80 | (c & 0x3F)) << 16;
                        memcpy(o + 3 * k, &b, 4); /* the 4th byte: the next one's first */
                    }
                    o += 24, i += 8;
                    continue;
                }
                if (short_ == 0xFFFF && !ascii) {
                    for (int k = 0; k < 8; k++) {
                        uint32_t c = p[i + k];
                        uint16_t b = (uint16_t)((0xC0 | c >> 6) | (0x80 | (c & 0x3F)) << 8);
                        memcpy(o + 2 * k, &b, 2);
                    }
                    o += 16, i += 8;
                    continue;
                }
            }
#endif
            /* mixed: the next 8 one by one */
            for (size_t e = i + 8 < n ? i + 8 : n; i < e; i++) {
                uint32_t c = p[i];
                if (c < 0x80) {
                    *o++ = (unsigned char)c;
                } else if (c < 0x800) {
                    o[0] = (unsigned char)(0xC0 | c >> 6);
                    o[1] = (unsigned char)(0x80 | (c & 0x3F));
                    o += 2;
                } else {
                    if (c >= 0xD800 && c < 0xE000)
                        return (size_t)-1;
                    o[0] = (unsigned char)(0xE0 | c >> 12);
                    o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
                    o[2] = (unsigned char)(0x80 | (c & 0x3F));
                    o += 3;
                }
            }
        }
    } else {
        const uint32_t *p = (const uint32_t *)data;
#ifdef BPE_UTF8_AVX512
        if (bpe_utf8_wide())
            i = bpe_utf8_wide_run(4, data, 0, n, &o); /* (then the rest, and a surrogate) */
#endif
        while (i < n) {
            if (i + 4 <= n) {
#ifdef BPE_UTF8_SSE2
                __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
                if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(v, _mm_set1_epi32((int)0xFFFFFF80)),
                                                      _mm_setzero_si128())) == 0xFFFF) {
                    __m128i w = _mm_packs_epi32(v, v); /* < 0x80: no saturation */
                    w = _mm_packus_epi16(w, w);
                    uint32_t four = (uint32_t)_mm_cvtsi128_si32(w);
                    memcpy(o, &four, 4);
                    o += 4, i += 4;
                    continue;
                }
#else
                if (!((p[i] | p[i + 1] | p[i + 2] | p[i + 3]) & 0xFFFFFF80u)) {
                    for (int k = 0; k < 4; k++)
                        o[k] = (unsigned char)p[i + k];
                    o += 4, i += 4;
                    continue;
                }
#endif
            }
            uint32_t c = p[i++];
            if (c >= 0xD800 && c < 0xE000)
                return (size_t)-1;
            o = bpe_utf8_put(o, c);
        }
    }
    return (size_t)(o - out);
}

#endif
