/*
 * special_find.h -- where a text first holds one of a set of strings (special tokens'
 * text): the leftmost place, and there the longest of them, which is what one regex
 * search of their alternation (longest first) finds. Plain C, over a Python str's code
 * units as they are stored (1, 2 or 4 bytes each, `kind`); the strings as code points.
 *
 * A text is searched for the first characters of the strings only: with a few of them
 * (special tokens nearly all start with '<' or '['), memchr for each over a text of
 * 1-byte characters, or a block at a time over wider ones; else one look-up a character.
 * Only at such a character are the strings compared. This is the default special-token
 * policy's check on every encode (tokenizers/special_policy.py), so it must cost a few
 * milliseconds on 20 MB where a regex search costs tens.
 */
#ifndef BPE_SPECIAL_FIND_H
#define BPE_SPECIAL_FIND_H

#include <stddef.h>
#include <stdint.h>

typedef struct SpecialFinder SpecialFinder;

/* A finder of the n strings strs[i] (lens[i] code points each, every one at least 1), or
 * NULL when out of memory. The strings are copied. */
SpecialFinder *special_finder_new(const uint32_t *const *strs, const size_t *lens, size_t n);
void special_finder_free(SpecialFinder *f);

/* Search text[from .. n) (code units of `kind` bytes: 1, 2 or 4): 1 with the place in *at
 * and the string's length in *len, or 0 when none of the strings is there. */
int special_finder_search(const SpecialFinder *f, int kind, const void *text, size_t n,
                          size_t from, size_t *at, size_t *len);

#endif
