/*
 * scan_fast.h -- the common ASCII words of each pattern decided from one 8-byte load,
 * with no table: a hand-compiled scanner for the published patterns (GPT-2's letters;
 * cl100k / Llama 3 / Qwen2; o200k), in the same order of alternatives as scan.c.
 *
 * Plain C99, static inline. Only bytes whose class is the same in every Unicode version
 * and every `regex` release are decided: letters [A-Za-z] (o200k: upper [A-Z], lower
 * [a-z]), digits [0-9], the whitespace \t \n \r and space, the printable punctuation
 * 0x21-0x7E that is neither. Any other byte (a control character, DEL, a byte >= 0x80)
 * where the answer depends on it leaves the word to the scanner, which reads its tables.
 * Used by the encoder's one-pass loop (merge/encoder.c): the same 8 bytes are then the
 * word's cache key.
 *
 * A fast_word_* function gets v, the 8 bytes at a word start (the first in the lowest
 * bits, all 8 inside the text: the text goes on after them) and returns:
 *   1..7     the word's length;
 *   FAST_MORE (8): a letter run fills the 8 bytes (the caller may go on with
 *            fast_more_*, on the next 8);
 *   0        these bytes do not settle it: ask the scanner.
 * Why each rule is exact is said next to it; tests/engine/tokenizers/test_fast_scan.py
 * compares every function with `regex` on windows of every class of byte.
 */
#ifndef BPE_SCAN_FAST_H
#define BPE_SCAN_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "util/portable.h"

#define SWAR_HI 0x8080808080808080ull
#define SWAR_LO7 0x7F7F7F7F7F7F7F7Full
#define SWAR_ONES 0x0101010101010101ull
#define FAST_MORE 8

#define FAST_INLINE BPE_FORCE_INLINE
#define FAST_COLD static BPE_NOINLINE BPE_MAYBE_UNUSED

/* 0x80 in each byte of v that is in [lo, hi] (ASCII: hi < 0x80), 0 elsewhere. */
static inline uint64_t swar_in(uint64_t v, unsigned lo, unsigned hi)
{
    uint64_t x = v & SWAR_LO7; /* + below cannot carry into the next byte */
    uint64_t ge = x + SWAR_ONES * (0x80 - lo), gt = x + SWAR_ONES * (0x7F - hi);
    return ge & ~gt & ~v & SWAR_HI;
}

/* 0x80 in each byte of v equal to c */
static inline uint64_t swar_eq(uint64_t v, unsigned c)
{
    uint64_t x = v ^ (SWAR_ONES * c);
    return ~(((x & SWAR_LO7) + SWAR_LO7) | x | SWAR_LO7);
}

/* ASCII letters: [A-Za-z] (or-ing 0x20 folds upper case into lower; no other byte
 * lands in a-z that way: '@' -> '`', '[' ... '_' -> '{' ... DEL) */
static inline uint64_t swar_letters(uint64_t v)
{
    return swar_in(v | SWAR_ONES * 0x20, 'a', 'z') & ~v;
}

static inline uint64_t swar_lower(uint64_t v) { return swar_in(v, 'a', 'z'); }
static inline uint64_t swar_upper(uint64_t v) { return swar_in(v, 'A', 'Z'); }
static inline uint64_t swar_digits(uint64_t v) { return swar_in(v, '0', '9'); }
static inline uint64_t swar_crlf(uint64_t v) { return swar_eq(v, '\r') | swar_eq(v, '\n'); }
/* \t \n \r and space (\v and \f are whitespace too, but left to the scanner) */
static inline uint64_t swar_space(uint64_t v)
{
    return swar_eq(v, ' ') | swar_in(v, '\t', '\n') | swar_eq(v, '\r');
}

/* The first byte at or after byte i (0..8) whose 0x80 bit in mask is clear; 8 if none. */
static inline size_t swar_first_clear(uint64_t mask, size_t i)
{
    uint64_t stop = ~mask & SWAR_HI & (i >= 8 ? 0 : ~0ull << (8 * i));
    return stop ? (size_t)bpe_ctz64(stop) >> 3 : 8;
}

/* The byte at i (0..7) of v. */
static inline unsigned swar_byte(uint64_t v, size_t i) { return (unsigned)(v >> (8 * i)) & 0xFF; }
static inline int swar_has(uint64_t mask, size_t i) { return (int)(mask >> (8 * i + 7) & 1); }

/* The end of the letter run from byte i (a letter): 1..7, FAST_MORE when it fills the
 * bytes, 0 when the byte after it is >= 0x80 (it may be a letter or a mark). */
FAST_INLINE size_t letter_end(uint64_t letters, uint64_t v, size_t i)
{
    uint64_t stop = ~(letters | (i ? 0x80 : 0)) & SWAR_HI; /* byte 0 < i: the prefix */
    if (!stop)
        return FAST_MORE;
    if (v & stop & (0 - stop)) /* the byte after the run is >= 0x80 */
        return 0;
    return (size_t)bpe_ctz64(stop) >> 3;
}

/* GPT-2's ` ?\p{L}+` only: an optional space, then ASCII letters (the alternatives
 * before it need a '). Other words: the scanner. */
FAST_INLINE size_t fast_word_gpt2(uint64_t v)
{
    uint64_t l = swar_letters(v);
    size_t i = (v & 0xFF) == ' ';
    return swar_has(l, i) ? letter_end(l, v, i) : 0;
}

/* cl100k (end_whole: its \s++$ needs the end of the text, and v's 8 bytes are inside
 * it, so it never matches here), Llama 3, Qwen2 (num3 0: \p{N} instead of \p{N}{1,3}):
 *   '(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ | \p{N}{1,3} |
 *    ?[^\s\p{L}\p{N}]++[\r\n]*+ | \s++$ | \s*[\r\n] | \s+(?!\S) | \s */
FAST_COLD size_t cl100k_other(uint64_t v, uint64_t l, int num3);

FAST_INLINE size_t fast_word_cl100k(uint64_t v, int num3)
{
    if (v & 0x8080) /* a byte >= 0x80 first or second: its class needs the tables */
        return 0;
    uint64_t l = swar_letters(v);
    unsigned b0 = (unsigned)v & 0xFF;
    if (b0 == ' ') { /* the most common word: a space and letters */
        if (swar_has(l, 1))
            return letter_end(l, v, 1);
    } else if (swar_has(l, 0)) { /* letters: alternative 2 without a prefix */
        return letter_end(l, v, 0);
    }
    return cl100k_other(v, l, num3);
}

/* the rest of fast_word_cl100k: not a space before a letter, not a letter */
FAST_COLD size_t cl100k_other(uint64_t v, uint64_t l, int num3)
{
    unsigned b0 = (unsigned)v & 0xFF, b1 = swar_byte(v, 1);
    if (b0 == '\'') { /* alternative 1, then 2 with ' as the prefix, then 4 */
        unsigned f1 = b1 | 0x20, f2 = swar_byte(v, 2) | 0x20;
        if (!swar_has(l, 1))
            goto other;
        if (f1 == 's' || f1 == 'd' || f1 == 'm' || f1 == 't')
            return 2;
        if ((f1 == 'l' && f2 == 'l') || ((f1 == 'v' || f1 == 'r') && f2 == 'e'))
            return 3;
        return letter_end(l, v, 1);
    }
    /* a prefix (any ASCII but letters, digits, CR, LF; ' was above) and letters */
    if (swar_has(l, 1) && b0 < 0x80 && b0 != '\r' && b0 != '\n' && !(b0 >= '0' && b0 <= '9'))
        return letter_end(l, v, 1);
other:;
    uint64_t d = swar_digits(v);
    if (swar_has(d, 0)) { /* \p{N}{1,3}+ (possessive: three digits, whatever follows) */
        if (!num3)
            return 1;
        size_t r = swar_first_clear(d, 0);
        if (r >= 3)
            return 3;
        return swar_byte(v, r) < 0x80 ? r : 0; /* a byte >= 0x80 may be a digit */
    }
    uint64_t sp = swar_space(v);
    /* printable punctuation: [^\s\p{L}\p{N}] for certain */
    uint64_t p = swar_in(v, 0x21, 0x7E) & ~l & ~d;
    size_t i = b0 == ' ' && swar_has(p, 1);
    if (swar_has(p, i)) { /* ` ?[^\s\p{L}\p{N}]++[\r\n]*+`: no letter follows b0 (above) */
        size_t e1 = swar_first_clear(p, i);
        if (e1 == 8 || !swar_has(l | d | sp, e1))
            return 0; /* another byte may be punctuation too */
        size_t e2 = swar_first_clear(swar_crlf(v), e1);
        return e2 < 8 ? e2 : 0;
    }
    if (!swar_has(sp, 0))
        return 0;
    /* whitespace: alternatives 2 and 4 failed (no letter or punctuation after a
     * prefix), \s++$ needs the end of the text; the maximal run [0, r) ends at a byte
     * of a known class that is no whitespace */
    size_t r = swar_first_clear(sp, 0);
    if (r == 8 || !swar_has(l | d | p, r))
        return 0;
    uint64_t crlf = swar_crlf(v) & ~(~0ull << (8 * r));
    if (crlf) /* \s*[\r\n]: up to the last CR or LF of the run */
        return (size_t)(63 - bpe_clz64(crlf)) / 8 + 1;
    return r >= 2 ? r - 1 : 1; /* \s+(?!\S) gives back one; a single one: \s */
}

/* o200k:
 *   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|...)? |
 *   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|...)? |
 *   \p{N}{1,3} |  ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
 * Letters: one prefix character (' too: nothing before the letter alternatives), an
 * upper-case run, a lower-case run, one of them not empty: Upper* takes the capitals
 * and Lower+ the small letters after them; with no small letter the second alternative
 * takes the capitals. The next byte must be ASCII (a byte >= 0x80 may continue a run)
 * and not ' (a contraction may follow); after small letters it may be a capital. */
FAST_COLD size_t o200k_other(uint64_t v, uint64_t l);

FAST_INLINE size_t fast_word_o200k(uint64_t v)
{
    if (v & 0x8080) /* a byte >= 0x80 first or second: its class needs the tables */
        return 0;
    uint64_t up = swar_upper(v), lo = swar_lower(v), l = up | lo;
    unsigned b0 = (unsigned)v & 0xFF;
    uint64_t run = up;
    if (b0 == ' ' && swar_has(l, 1))
        run |= 0x80; /* the prefix joins the upper-case run: it may be empty */
    else if (!swar_has(l, 0))
        return o200k_other(v, l);
    uint64_t stop = ~run & SWAR_HI;                   /* the upper-case run ends */
    size_t u = stop ? (size_t)bpe_ctz64(stop) >> 3 : 8;
    size_t e = swar_first_clear(lo, u);
    if (e == 8)
        return u < 8 ? FAST_MORE : 0; /* small letters fill the bytes: go on */
    unsigned b = swar_byte(v, e);
    return b < 0x80 && b != '\'' ? e : 0;
}

/* the rest of fast_word_o200k: a prefix other than a space, digits, punctuation,
 * whitespace */
FAST_COLD size_t o200k_other(uint64_t v, uint64_t l)
{
    unsigned b0 = (unsigned)v & 0xFF;
    if (swar_has(l, 1) && b0 < 0x80 && b0 != '\r' && b0 != '\n' && !(b0 >= '0' && b0 <= '9')) {
        uint64_t up = swar_upper(v), lo = swar_lower(v);
        size_t u = swar_first_clear(up, 1), e = swar_first_clear(lo, u);
        if (e == 8)
            return u < 8 ? FAST_MORE : 0;
        unsigned b = swar_byte(v, e);
        return b < 0x80 && b != '\'' ? e : 0;
    }
    uint64_t d = swar_digits(v);
    if (swar_has(d, 0)) {
        size_t r = swar_first_clear(d, 0);
        if (r >= 3)
            return 3;
        return swar_byte(v, r) < 0x80 ? r : 0;
    }
    uint64_t sp = swar_space(v);
    uint64_t p = swar_in(v, 0x21, 0x7E) & ~l & ~d;
    size_t k = b0 == ' ' && swar_has(p, 1);
    if (swar_has(p, k)) { /* ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (no letter after b0: above) */
        size_t e1 = swar_first_clear(p, k);
        if (e1 == 8 || !swar_has(l | d | sp, e1))
            return 0;
        size_t e2 = swar_first_clear(swar_crlf(v) | swar_eq(v, '/'), e1);
        return e2 < 8 ? e2 : 0;
    }
    if (!swar_has(sp, 0))
        return 0;
    size_t r = swar_first_clear(sp, 0);
    if (r == 8 || !swar_has(l | d | p, r))
        return 0;
    uint64_t crlf = swar_crlf(v) & ~(~0ull << (8 * r));
    if (crlf) /* \s*[\r\n]+ */
        return (size_t)(63 - bpe_clz64(crlf)) / 8 + 1;
    return r >= 2 ? r - 1 : 1; /* \s+(?!\S), or a single \s+ */
}

/* After FAST_MORE: the end (0..7) in the next 8 bytes w of the letter run (cl100k,
 * GPT-2: all letters; o200k: small letters), 8 if it fills them too, or -1 when the byte
 * after it may continue it (>= 0x80) or, in o200k, start a contraction. */
FAST_INLINE int fast_more(uint64_t w, int o200k)
{
    uint64_t l = o200k ? swar_lower(w) : swar_letters(w);
    size_t e = swar_first_clear(l, 0);
    if (e == 8)
        return 8;
    unsigned b = swar_byte(w, e);
    return b < 0x80 && !(o200k && b == '\'') ? (int)e : -1;
}

#endif
