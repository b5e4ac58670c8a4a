/*
 * grow.h -- the one growable array of csrc/: make room in a malloc'd array by doubling.
 * Plain C; static inline, so each extension that includes it has its own copy and needs
 * no extra source file.
 */
#ifndef BPE_UTIL_GROW_H
#define BPE_UTIL_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Make *p (an array of *cap elements of `item` bytes, or NULL with *cap 0) hold at least
 * `need` elements: its capacity doubles from `first` (or from *cap) until it does.
 * 0, or -1 when out of memory or past SIZE_MAX bytes (then *p and *cap are unchanged).
 * Example: cap 0, need 5, first 16 -> cap 16; cap 16, need 40 -> cap 64. */
static inline int bpe_grow(void **p, size_t *cap, size_t need, size_t item, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : first;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    if (item && c > SIZE_MAX / item)
        return -1;
    void *q = realloc(*p, c * item);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

#endif
