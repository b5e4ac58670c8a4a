/*
 * portable.h -- the compiler-specific pieces the C needs, one spelling for gcc and clang
 * (their __builtin_* and __attribute__), MSVC (its intrinsics and __declspec) and any other
 * C99 compiler (plain C). Nothing outside util/ names a compiler's builtin or attribute:
 * tests/test_portability.py reads the C as MSVC would and refuses any that is left.
 * Atomics are in util/atomics.h. Plain C; static inline.
 */
#ifndef BPE_UTIL_PORTABLE_H
#define BPE_UTIL_PORTABLE_H

#include <stdint.h>

#if defined(_MSC_VER) && !defined(__GNUC__)
#include <intrin.h>
#if defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h> /* _mm_prefetch */
#endif
#endif

/* ---- attributes -----------------------------------------------------------------------
 * BPE_FORCE_INLINE  in place of `static inline`: inlined even where the compiler would not
 *                   (a hot loop's helpers)
 * BPE_NOINLINE      kept out of line (a cold path, so the hot one stays small)
 * BPE_MAYBE_UNUSED  a static function some builds do not call
 * BPE_LIKELY(c), BPE_UNLIKELY(c)  the branch's expected way (a hint; c's value unchanged) */
#if defined(__GNUC__)
#define BPE_FORCE_INLINE static inline __attribute__((always_inline))
#define BPE_NOINLINE __attribute__((noinline))
#define BPE_MAYBE_UNUSED __attribute__((unused))
#define BPE_LIKELY(c) __builtin_expect(!!(c), 1)
#define BPE_UNLIKELY(c) __builtin_expect(!!(c), 0)
#elif defined(_MSC_VER)
#define BPE_FORCE_INLINE static __forceinline
#define BPE_NOINLINE __declspec(noinline)
#define BPE_MAYBE_UNUSED
#define BPE_LIKELY(c) (!!(c))
#define BPE_UNLIKELY(c) (!!(c))
#else
#define BPE_FORCE_INLINE static inline
#define BPE_NOINLINE
#define BPE_MAYBE_UNUSED
#define BPE_LIKELY(c) (!!(c))
#define BPE_UNLIKELY(c) (!!(c))
#endif

/* ---- prefetch: a hint that *p is read soon (BPE_PREFETCH_W: written); no effect on
 * what the code computes, so p may point anywhere */
#if defined(__GNUC__)
#define BPE_PREFETCH(p) __builtin_prefetch(p)
#define BPE_PREFETCH_W(p) __builtin_prefetch((p), 1)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#define BPE_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define BPE_PREFETCH_W(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#elif defined(_MSC_VER) && defined(_M_ARM64) && !defined(__clang__)
#define BPE_PREFETCH(p) __prefetch((const void *)(p)) /* (clang-cl has no __prefetch) */
#define BPE_PREFETCH_W(p) __prefetch((const void *)(p))
#else
#define BPE_PREFETCH(p) ((void)(p))
#define BPE_PREFETCH_W(p) ((void)(p))
#endif

/* ---- bit scans, x != 0 for ctz and clz: the index of the lowest set bit (ctz), the
 * number of zero bits above the highest (clz); popcount: the set bits */
static inline int bpe_ctz32(uint32_t x)
{
#if defined(__GNUC__)
    return __builtin_ctz(x);
#elif defined(_MSC_VER)
    unsigned long i;
    _BitScanForward(&i, x);
    return (int)i;
#else
    int n = 0;
    while (!(x & 1))
        x >>= 1, n++;
    return n;
#endif
}

static inline int bpe_ctz64(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
#else
    return (uint32_t)x ? bpe_ctz32((uint32_t)x) : 32 + bpe_ctz32((uint32_t)(x >> 32));
#endif
}

static inline int bpe_clz64(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_clzll(x);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
    unsigned long i;
    _BitScanReverse64(&i, x);
    return 63 - (int)i;
#else
    int n = 0;
    while (!(x >> 63))
        x <<= 1, n++;
    return n;
#endif
}

static inline int bpe_popcount64(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_popcountll(x);
#else
    /* (MSVC's __popcnt64 needs the POPCNT instruction, which not every x86-64 CPU has) */
    x = x - (x >> 1 & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + (x >> 2 & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* ---- byte order reversed */
static inline uint32_t bpe_bswap32(uint32_t x)
{
#if defined(__GNUC__)
    return __builtin_bswap32(x);
#elif defined(_MSC_VER)
    return _byteswap_ulong(x);
#else
    return x >> 24 | (x >> 8 & 0xFF00u) | (x << 8 & 0xFF0000u) | x << 24;
#endif
}

static inline uint64_t bpe_bswap64(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_bswap64(x);
#elif defined(_MSC_VER)
    return _byteswap_uint64(x);
#else
    return (uint64_t)bpe_bswap32((uint32_t)x) << 32 | bpe_bswap32((uint32_t)(x >> 32));
#endif
}

#endif
