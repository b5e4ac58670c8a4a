/*
 * atomics.h -- the atomic loads, stores and read-modify-writes the C shares between
 * threads (the encoder's seqlocked word cache, tables made once by whichever thread asks
 * first, bits of memos, a batch's next text). Typed, the memory order in the name:
 * rlx (relaxed), acq (acquire), rel (release), as C11 defines them.
 *
 * gcc and clang: their __atomic builtins, which work on plain (not _Atomic) objects, so the
 * structures need no change. MSVC (x86, x64, ARM64): naturally aligned loads and stores of
 * up to the pointer's width are single accesses (volatile keeps the compiler from splitting
 * or merging them); x86 orders them itself (TSO), so acquire and release need only keep the
 * compiler from moving accesses across (_ReadWriteBarrier), while ARM64 needs a DMB ISH
 * barrier; read-modify-writes are the Interlocked intrinsics (full barriers: at least the
 * order asked). 64-bit accesses on 32-bit x86 go through _InterlockedCompareExchange64.
 * Plain C; static inline.
 */
#ifndef BPE_UTIL_ATOMICS_H
#define BPE_UTIL_ATOMICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/portable.h"

typedef void *bpe_ptr; /* (a macro's `const T *` must read as void *const *) */

#if defined(__GNUC__)

#define BPE_ATOMIC_LDST(T, S)                                                                 \
    BPE_FORCE_INLINE T bpe_ld_rlx_##S(const T *p) { return __atomic_load_n((T *)p, __ATOMIC_RELAXED); } \
    BPE_FORCE_INLINE T bpe_ld_acq_##S(const T *p) { return __atomic_load_n((T *)p, __ATOMIC_ACQUIRE); } \
    BPE_FORCE_INLINE void bpe_st_rlx_##S(T *p, T v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); } \
    BPE_FORCE_INLINE void bpe_st_rel_##S(T *p, T v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
BPE_ATOMIC_LDST(unsigned char, u8)
BPE_ATOMIC_LDST(int, int)
BPE_ATOMIC_LDST(uint32_t, u32)
BPE_ATOMIC_LDST(uint64_t, u64)
BPE_ATOMIC_LDST(bpe_ptr, ptr)
#undef BPE_ATOMIC_LDST

BPE_FORCE_INLINE void bpe_fence_acq(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
BPE_FORCE_INLINE void bpe_fence_rel(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }

/* *p from expected to desired, acquire on success (a seqlock's writer); 1: done */
BPE_FORCE_INLINE int bpe_cas_acq_u32(uint32_t *p, uint32_t expected, uint32_t desired)
{
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* *p from *expected to desired, acquire and release on success, acquire on failure (a
 * table made once, published by whichever thread comes first); 1: done, 0: *expected is
 * set to the value found */
BPE_FORCE_INLINE int bpe_cas_acqrel_ptr(void **p, void **expected, void *desired)
{
    return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

BPE_FORCE_INLINE size_t bpe_fetch_add_rlx_size(size_t *p, size_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/* *p += v (v may be (uint32_t)-1 ...: modulo 2**32), acquire and release; the value before */
BPE_FORCE_INLINE uint32_t bpe_fetch_add_acqrel_u32(uint32_t *p, uint32_t v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
}

BPE_FORCE_INLINE void bpe_or_rlx_u64(uint64_t *p, uint64_t v)
{
    (void)__atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}

#elif defined(_MSC_VER)

#if defined(_M_ARM64)
#define BPE_ACQ_AFTER() __dmb(0xB) /* ISH */
#define BPE_REL_BEFORE() __dmb(0xB)
#define BPE_VLOAD(T, W, p) ((T)__iso_volatile_load##W((const volatile __int##W *)(p)))
#define BPE_VSTORE(W, p, v) __iso_volatile_store##W((volatile __int##W *)(p), (__int##W)(v))
#elif defined(_M_X64) || defined(_M_IX86)
#define BPE_ACQ_AFTER() _ReadWriteBarrier()
#define BPE_REL_BEFORE() _ReadWriteBarrier()
#define BPE_VLOAD(T, W, p) ((T) * (const volatile __int##W *)(p))
#define BPE_VSTORE(W, p, v) (*(volatile __int##W *)(p) = (__int##W)(v))
#else
#error "util/atomics.h: MSVC on x86, x64 or ARM64 only"
#endif

#define BPE_ATOMIC_LDST(T, S, W)                                                              \
    BPE_FORCE_INLINE T bpe_ld_rlx_##S(const T *p) { return BPE_VLOAD(T, W, p); }             \
    BPE_FORCE_INLINE T bpe_ld_acq_##S(const T *p)                                            \
    {                                                                                         \
        T v = BPE_VLOAD(T, W, p);                                                             \
        BPE_ACQ_AFTER();                                                                      \
        return v;                                                                             \
    }                                                                                         \
    BPE_FORCE_INLINE void bpe_st_rlx_##S(T *p, T v) { BPE_VSTORE(W, p, v); }                 \
    BPE_FORCE_INLINE void bpe_st_rel_##S(T *p, T v)                                          \
    {                                                                                         \
        BPE_REL_BEFORE();                                                                     \
        BPE_VSTORE(W, p, v);                                                                  \
    }
BPE_ATOMIC_LDST(unsigned char, u8, 8)
BPE_ATOMIC_LDST(int, int, 32)
BPE_ATOMIC_LDST(uint32_t, u32, 32)
#if defined(_M_IX86)
BPE_FORCE_INLINE uint64_t bpe_ld_rlx_u64(const uint64_t *p)
{
    return (uint64_t)_InterlockedCompareExchange64((volatile __int64 *)p, 0, 0);
}
BPE_FORCE_INLINE uint64_t bpe_ld_acq_u64(const uint64_t *p) { return bpe_ld_rlx_u64(p); }
BPE_FORCE_INLINE void bpe_st_rlx_u64(uint64_t *p, uint64_t v)
{
    __int64 old = (__int64)bpe_ld_rlx_u64(p), seen;
    while ((seen = _InterlockedCompareExchange64((volatile __int64 *)p, (__int64)v, old)) != old)
        old = seen;
}
BPE_FORCE_INLINE void bpe_st_rel_u64(uint64_t *p, uint64_t v) { bpe_st_rlx_u64(p, v); }
BPE_ATOMIC_LDST(bpe_ptr, ptr, 32)
#else
BPE_ATOMIC_LDST(uint64_t, u64, 64)
BPE_ATOMIC_LDST(bpe_ptr, ptr, 64)
#endif
#undef BPE_ATOMIC_LDST

BPE_FORCE_INLINE void bpe_fence_acq(void) { BPE_ACQ_AFTER(); }
BPE_FORCE_INLINE void bpe_fence_rel(void) { BPE_REL_BEFORE(); }

BPE_FORCE_INLINE int bpe_cas_acq_u32(uint32_t *p, uint32_t expected, uint32_t desired)
{
    return _InterlockedCompareExchange((volatile long *)p, (long)desired, (long)expected) ==
           (long)expected;
}

BPE_FORCE_INLINE int bpe_cas_acqrel_ptr(void **p, void **expected, void *desired)
{
    void *was = _InterlockedCompareExchangePointer((void *volatile *)p, desired, *expected);
    if (was == *expected)
        return 1;
    *expected = was;
    return 0;
}

BPE_FORCE_INLINE size_t bpe_fetch_add_rlx_size(size_t *p, size_t v)
{
#if defined(_M_IX86)
    return (size_t)_InterlockedExchangeAdd((volatile long *)p, (long)v);
#else
    return (size_t)_InterlockedExchangeAdd64((volatile __int64 *)p, (__int64)v);
#endif
}

BPE_FORCE_INLINE uint32_t bpe_fetch_add_acqrel_u32(uint32_t *p, uint32_t v)
{
    return (uint32_t)_InterlockedExchangeAdd((volatile long *)p, (long)v);
}

BPE_FORCE_INLINE void bpe_or_rlx_u64(uint64_t *p, uint64_t v)
{
#if defined(_M_IX86)
    __int64 old = (__int64)bpe_ld_rlx_u64(p), seen;
    while ((seen = _InterlockedCompareExchange64((volatile __int64 *)p, old | (__int64)v,
                                                 old)) != old)
        old = seen;
#else
    (void)_InterlockedOr64((volatile __int64 *)p, (__int64)v);
#endif
}

#else
#error "util/atomics.h: gcc, clang or MSVC (their atomic builtins or intrinsics)"
#endif

#endif
