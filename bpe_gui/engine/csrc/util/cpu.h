/* What this CPU can run, asked once a process: the vector loops (merge.c's flat loop,
 * merge/lanes.c, util/utf8.h) are built for AVX2 / AVX-512 with BPE_TARGET (util/simd.h)
 * and taken only where the CPU has them. x86-64 with gcc or clang; elsewhere, and in a
 * build without SIMD, nothing. Plain C; static inline. */
#ifndef BPE_UTIL_CPU_H
#define BPE_UTIL_CPU_H

#include "util/simd.h"
#if defined(BPE_SIMD_X86)
#include "util/atomics.h"
#endif

enum {
    BPE_CPU_AVX2 = 1,
    BPE_CPU_AVX512 = 2,       /* F, BW, DQ, VL */
    BPE_CPU_AVX512_VBMI2 = 4, /* BW and VBMI2 (byte compression) */
};

/* the BPE_CPU_* bits this CPU has */
static inline int bpe_cpu(void)
{
#if defined(BPE_SIMD_X86)
    static int known = -1;
    int v = bpe_ld_rlx_int(&known);
    if (v < 0) {
        __builtin_cpu_init();
        v = (__builtin_cpu_supports("avx2") ? BPE_CPU_AVX2 : 0) |
            (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                     __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")
                 ? BPE_CPU_AVX512
                 : 0) |
            (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2")
                 ? BPE_CPU_AVX512_VBMI2
                 : 0);
        bpe_st_rlx_int(&known, v);
    }
    return v;
#else
    return 0;
#endif
}

#endif
