/*
 * simd.h -- which vector code this build holds (macros only; util/cpu.h asks the CPU).
 *
 *   BPE_SIMD_SSE2  SSE2 intrinsics: every x86-64 CPU has them (gcc, clang, MSVC).
 *   BPE_SIMD_X86   functions built for AVX2 / AVX-512 with BPE_TARGET and taken only where
 *                  bpe_cpu() finds the CPU has them: gcc and clang on x86-64 (their target
 *                  attribute lets one file hold code for several CPUs).
 *   BPE_SIMD_BUILT the list of the above as a string ("sse2,avx2,avx512", "sse2" or ""),
 *                  which each extension exposes as `simd`.
 *
 * BPE_NO_SIMD (setup.py defines it when BPE_GUI_NO_SIMD=1) leaves none of them: the build
 * an ARM Mac or a CPU without SSE2 gets, so every vector loop must have a scalar twin that
 * gives the same answer, and CI tests that build. Plain C.
 */
#ifndef BPE_UTIL_SIMD_H
#define BPE_UTIL_SIMD_H

#if !defined(BPE_NO_SIMD) &&                                                                 \
    (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define BPE_SIMD_SSE2 1
#endif

#if !defined(BPE_NO_SIMD) && defined(__GNUC__) && defined(__x86_64__)
#define BPE_SIMD_X86 1
#define BPE_TARGET(features) __attribute__((target(features)))
#endif

#if defined(BPE_SIMD_X86)
#define BPE_SIMD_BUILT "sse2,avx2,avx512"
#elif defined(BPE_SIMD_SSE2)
#define BPE_SIMD_BUILT "sse2"
#else
#define BPE_SIMD_BUILT ""
#endif

#endif
