/*
 * huge.h -- zeroed tables of megabytes that are read at random (the word cache, the merge
 * and token tables, the boundary bit tables), in transparent huge pages where Linux gives
 * them (madvise mode, the usual default). Plain C; static inline.
 *
 * Why: each lookup in such a table lands on another 4 KB page, so nearly every one missed
 * the TLB as well as the cache (perf: the first load of a word-cache set, of a boundary
 * bit, took most of the encoder's cycles; in a virtual machine a page walk is dearer
 * still). In 2 MB pages a table of 16 MB needs 8 TLB entries. Elsewhere (or when the
 * system says no) this is plain calloc. Free with free().
 */
#ifndef BPE_UTIL_HUGE_H
#define BPE_UTIL_HUGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#define BPE_HUGE_PAGE ((size_t)2 << 20)

/* n items of `item` bytes, zeroed; NULL when out of memory. A table of a huge page or
 * more starts on a huge page's boundary, and every whole huge page of it is marked for
 * huge pages; a smaller one is calloc's.
 *
 * Why aligned: calloc's block of megabytes starts 16 bytes past a page, wherever mmap
 * puts it, and only the huge pages wholly inside it can be huge: a table of 4 MB (the
 * merge table, the short keys, the boundary bits, the cache of pieces) got one of its
 * two, the word cache of 8 MB three of its four or all four by where it landed, and the
 * rest was read through 4 KB pages; so each process got other pages. */
static inline void *bpe_calloc_huge(size_t n, size_t item)
{
    if (item && n > SIZE_MAX / item)
        return NULL;
    size_t bytes = n * item;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= BPE_HUGE_PAGE && bytes <= SIZE_MAX - BPE_HUGE_PAGE) {
        size_t whole = (bytes + 4095) & ~(size_t)4095; /* whole small pages: madvise's unit */
        void *p = NULL;
        if (posix_memalign(&p, BPE_HUGE_PAGE, whole) != 0)
            return NULL;
        /* the block may be memory freed earlier (the heap), in small pages and not zeroed:
         * its pages go back, so it faults in afresh, reading as zeros */
        if (madvise(p, whole, MADV_DONTNEED) != 0) {
            memset(p, 0, whole); /* (not given back: zeroed by hand) */
            return p;
        }
        size_t huge = whole & ~(BPE_HUGE_PAGE - 1);
        (void)madvise(p, huge, MADV_HUGEPAGE); /* a hint: no huge pages is fine */
        return p;
    }
#endif
    (void)bytes;
    return calloc(n ? n : 1, item ? item : 1);
}

/* (Blocks written once from one end to the other, a text's ids, are not marked for huge
 * pages: where the kernel has no free huge page, a fault in such a block compacts memory
 * first, and a 20 MB block took 60-150 ms to fault in instead of 15-19 in small pages.
 * Tables read at random keep them: there each lookup would miss the TLB as well.) */

#endif
