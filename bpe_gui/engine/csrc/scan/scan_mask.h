/*
 * scan_mask.h -- the cl100k family's word starts (cl100k, Llama 3, Qwen2), and o200k's, in
 * 64 bytes of ASCII at once, from class masks: pre-tokenization per pattern family.
 *
 * Plain C99, static inline. The window starts at a word start `pos` (the caller knows
 * one: regex's findall matches from there whatever came before), so no state crosses
 * windows: bit i of each mask is byte pos + i. Bytes are classed as in scan_fast.h (only
 * classes every Unicode version and `regex` release agree on): letters [A-Za-z], digits,
 * space, tab, CR/LF, the printable punctuation 0x21-0x7E that is neither. The window
 * ends at its first other byte (a control, \v \f, DEL, a byte >= 0x80): `w` below.
 *
 * The pattern (scan.c, cl100k): '(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ |
 * \p{N}{1,3}+ | ?[^\s\p{L}\p{N}]++[\r\n]*+ | \s++$ | \s*[\r\n] | \s+(?!\S) | \s
 * On these classes a byte starts a word by its neighbours alone:
 *   punctuation: after a letter, digit, tab or CR/LF (after a space it joins ` ?`, after
 *     punctuation it continues the run);
 *   a letter: not after a letter, space or tab (a prefix: space and tab always start a
 *     word before a non-space), nor after punctuation that starts a word (the prefix of
 *     `[^\r\n..]?+\p{L}++`); after the contraction `'s`, `'ll` ... at a word start;
 *   a digit: at the start of its run and every third digit after (Qwen2: every digit);
 *   CR/LF right after a punctuation run belong to it (`[\r\n]*+`); other whitespace runs
 *     start a word at their first byte, after their last CR/LF (`\s*[\r\n]` ends there)
 *     when no CR/LF follows in the run, and at their last space or tab before a
 *     non-space (`\s+(?!\S)` gives one back).
 * What is not decided inside the window is cut off: starts are kept up to `limit`, the
 * byte before the first unclassed byte (its class may decide the byte before it), or
 * the start of a whitespace run that reaches it (a CR/LF may come later). \s++$ needs
 * the end of the text: the caller keeps 64 bytes of text after pos, so no whitespace run
 * that reaches the end of the text ends before `limit`.
 *
 * o200k (scan_fast.h gives its pattern) differs in three places, all decided by
 * neighbours too: a capital after a small letter starts a word ([A-Z]*[a-z]+ stops
 * there); a contraction ('s 'T 're ...) ends the letter word before its ' (the ' and its
 * letters join that word, the next byte starts one) and is never a word of its own; a
 * punctuation run takes the CR, LF and / after it ([\r\n/]*).
 */
#ifndef BPE_SCAN_MASK_H
#define BPE_SCAN_MASK_H

#include <stddef.h>
#include <stdint.h>

#include "scan/scan_fast.h"
#include "util/portable.h"
#include "util/simd.h"
#if defined(BPE_SIMD_SSE2)
#include <emmintrin.h>
#endif

typedef struct {
    uint64_t l, d, sp, tab, nl, p, ap, up, sl, clean;
} MaskClasses;

#if defined(BPE_SIMD_SSE2)
/* 16 bytes' classes into bits [16 * k, 16 * k + 16) */
BPE_FORCE_INLINE void mask_classes16(const unsigned char *s, int k, MaskClasses *m, int o200k)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(s + 16 * k));
    /* (x - lo) <= span, unsigned: min(x - lo, span) == x - lo */
#define IN(x, lo, span)                                                                    \
    _mm_cmpeq_epi8(_mm_min_epu8(_mm_sub_epi8((x), _mm_set1_epi8((char)(lo))),             \
                                _mm_set1_epi8((char)(span))),                              \
                   _mm_sub_epi8((x), _mm_set1_epi8((char)(lo))))
#define BITS(x) ((uint64_t)(unsigned)_mm_movemask_epi8(x) << (16 * k))
    __m128i l = IN(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 25);
    __m128i d = IN(v, '0', 9), pr = IN(v, 0x21, 0x7E - 0x21);
    __m128i nl = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')),
                              _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
    __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), tab = _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'));
    uint64_t lb = BITS(l), db = BITS(d), prb = BITS(pr);
    m->l |= lb;
    m->d |= db;
    m->p |= prb & ~lb & ~db;
    m->sp |= BITS(sp);
    m->tab |= BITS(tab);
    m->nl |= BITS(nl);
    m->ap |= BITS(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')));
    if (o200k) {
        m->up |= BITS(IN(v, 'A', 25));
        m->sl |= BITS(_mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
    }
#undef BITS
#undef IN
}
#endif

/* 8 bytes' 0x80 flags (one per byte) into bits [8 * k, 8 * k + 8) */
static inline uint64_t mask_pack8(uint64_t hi, int k)
{
    return (((hi >> 7) * 0x0102040810204080ull) >> 56) << (8 * k);
}

/* The classes of s[0..64) (all readable); o200k: capitals and / too. */
BPE_FORCE_INLINE void mask_classes(const unsigned char *s, MaskClasses *m, int o200k)
{
    m->l = m->d = m->sp = m->tab = m->nl = m->p = m->ap = m->up = m->sl = 0;
#if defined(BPE_SIMD_SSE2)
    for (int k = 0; k < 4; k++)
        mask_classes16(s, k, m, o200k);
#else
    for (int k = 0; k < 8; k++) {
        uint64_t v = load8(s + 8 * k), l = swar_letters(v), d = swar_digits(v);
        m->l |= mask_pack8(l, k);
        m->d |= mask_pack8(d, k);
        m->p |= mask_pack8(swar_in(v, 0x21, 0x7E) & ~l & ~d, k);
        m->sp |= mask_pack8(swar_eq(v, ' '), k);
        m->tab |= mask_pack8(swar_eq(v, '\t'), k);
        m->nl |= mask_pack8(swar_crlf(v), k);
        m->ap |= mask_pack8(swar_eq(v, '\''), k);
        if (o200k) {
            m->up |= mask_pack8(swar_upper(v), k);
            m->sl |= mask_pack8(swar_eq(v, '/'), k);
        }
    }
#endif
    m->clean = m->l | m->d | m->p | m->sp | m->tab | m->nl;
}

/* The letters (ASCII, case folded) a contraction may hold after its ': 1 for s d m t
   (two bytes in all), 2 for ll ve re (three), else 0. */
static inline int mask_contraction(const unsigned char *a)
{
    unsigned c1 = a[1] | 0x20u, c2 = a[2] | 0x20u;
    if (c1 == 's' || c1 == 'd' || c1 == 'm' || c1 == 't')
        return 1;
    if ((c1 == 'l' && c2 == 'l') || ((c1 == 'v' || c1 == 'r') && c2 == 'e'))
        return 2;
    return 0;
}

/* The word starts in s[0..64) (s[0] starts a word; s[0..66) readable: a contraction's
   letters are read past 64): bit i set if a word starts at s[i], up to the limit above
   (bits past it are clear). num3: \p{N}{1,3}+ (0: Qwen2's \p{N}); o200k: its pattern
   (num3 too). */
BPE_FORCE_INLINE uint64_t mask_starts(const unsigned char *s, int num3, int o200k)
{
    MaskClasses m;
    mask_classes(s, &m, o200k);
    uint64_t unclean = ~m.clean;
    unsigned w = unclean ? (unsigned)bpe_ctz64(unclean) : 64; /* classed bytes */
    uint64_t in = w == 64 ? ~0ull : (1ull << w) - 1;
    uint64_t l = m.l & in, d = m.d & in, sp = m.sp & in, tab = m.tab & in, nl = m.nl & in;
    uint64_t p = m.p & in, st = sp | tab, ws = st | nl;
    /* CR/LF right after punctuation: its word's [\r\n]*+ (a carry runs through the run;
       o200k: [\r\n/]*, where a / it takes is no punctuation of its own and may seed
       the run again: the seeds are kept) */
    uint64_t tail = o200k ? nl | (m.sl & in) : nl;
    uint64_t seed = (p << 1) & nl, absorbed = (((tail + seed) ^ tail) & tail) | seed;
    p &= ~absorbed;
    uint64_t pstart = p & ((l | d | tab | nl | absorbed) << 1 | 1);
    uint64_t ews = ws & ~absorbed;
    uint64_t starts = pstart;
    starts |= l & ~(l << 1) & ~(st << 1) & ~(pstart << 1);
    if (o200k) /* a capital after a small letter */
        starts |= m.up & (l & ~m.up) << 1;
    starts |= ews & ~(ews << 1);
    /* a space or tab after the last CR/LF of its run: keep those with no CR/LF ahead */
    uint64_t after_nl = st & ((nl & ~absorbed) << 1);
    if (after_nl) {
        uint64_t a = nl, run = ws;
        for (int sh = 1; sh < 64; sh <<= 1) { /* a: whitespace with a CR/LF ahead in its run */
            a |= (a >> sh) & run;
            run &= run >> sh;
        }
        starts |= after_nl & ~a;
    }
    /* the last of a run before a non-space: \s+(?!\S) gives it back (where it is the
       run's first, or follows the run's last CR/LF, it starts a word already) */
    starts |= st & ~(ws >> 1);
    if (d) {
        uint64_t run_start = d & ~(d << 1);
        if (!num3) {
            run_start = d;
        } else {
            uint64_t x = run_start, cont = d & (d << 1) & (d << 2);
            while ((x = (x << 3) & cont) != 0)
                run_start |= x;
        }
        starts |= run_start;
    }
    /* a contraction: the bytes after its ' join a word (o200k: the ' too: it ends a
       letter word; cl100k: it starts one), and the byte after them starts the next
       (o200k: a ' there starts a word, whatever follows it) */
    uint64_t aps = o200k ? m.ap & l << 1 & in : m.ap & pstart & in;
    unsigned next = 0;
    while (aps) {
        unsigned j = (unsigned)bpe_ctz64(aps);
        aps &= aps - 1;
        int k = mask_contraction(s + j);
        if (k && !(o200k && j == next)) {
            starts &= ~((((2ull << k) - 1) << j) & ~((uint64_t)!o200k << j));
            next = j + 1 + (unsigned)k;
            if (next < 64)
                starts |= 1ull << next;
        }
    }
    starts |= 1;
    /* what the window decides: up to the byte before the first unclassed one, or the
       start of the whitespace run that reaches it */
    unsigned lim = w ? w - 1 : 0;
    if (w && (ws >> (w - 1) & 1)) {
        uint64_t non = ~ws & in;
        non &= (w - 1 >= 63) ? ~0ull : ((1ull << (w - 1)) - 1);
        lim = non ? 64 - (unsigned)bpe_clz64(non) : 0; /* the byte after the last non-space */
    } else if (o200k && w >= 2 && (m.ap >> (w - 1) & 1)) {
        lim = w - 2; /* (?i:'s) matches U+017F too: the ' may end the word before it */
    }
    return starts & (lim >= 63 ? ~0ull : (2ull << lim) - 1);
}

#endif
