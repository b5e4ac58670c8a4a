/*
 * heap_trim.h -- give the pages a phase freed back to the system. glibc's malloc keeps
 * freed memory (in every thread's arena) resident in the process until asked; a phase
 * that frees megabytes before the next one allocates would otherwise add both to the
 * process's peak. Elsewhere the allocator decides and this does nothing. Plain C.
 */
#ifndef BPE_UTIL_HEAP_TRIM_H
#define BPE_UTIL_HEAP_TRIM_H

#if defined(__GLIBC__)
#include <malloc.h>
#endif

static inline void bpe_heap_trim(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

#endif
