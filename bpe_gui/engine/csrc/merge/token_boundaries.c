/*
 * token_boundaries.c -- a long word split at token boundaries (points no token of the
 * vocabulary crosses), each piece merged on its own:
 * rank-based models (tiktoken), and merge-based ones whose every merge makes the token of
 * its two parts' bytes (byte-level tokenizer.json files: the loader checks each merge's
 * token is in the vocabulary).
 *
 * Why: under cl100k's and o200k's patterns a Chinese clause is one word of 30-100 bytes,
 * new to the word cache; merging it whole costs a heap and a pair lookup per merge. But
 * every symbol merging makes is a token whose bytes lie in the word, so where no token
 * of the vocabulary spans a position p (w[a..b) with a < p < b is never a token), no
 * merge ever joins the two sides of p: merging each side alone gives the same symbols
 * (the lowest-rank-leftmost order restricted to one side is that side's own order, since
 * no pair across p has a rank). The same holds for a merge list whose merges each make a
 * token of the vocabulary from their parts' bytes. Between most Han characters no token crosses; the pieces
 * are one to three characters, merged by the short-word scan once per call and then
 * taken from a cache of pieces (Han text repeats its characters).
 *
 * Two ways to find the boundaries. Words of whole 3-byte characters (Han, kana, Hangul:
 * nearly every such word) are cut between characters, by what crosses between those two
 * characters (see "whole characters" below: one look-up in a small table per boundary),
 * and a character whose token can stand for its three bytes starts its piece as that
 * token; a piece of one character is taken from a table of characters. Otherwise (a
 * merge limit: a tokenizer as of a training step; no memory for the tables) the byte
 * windows: deciding "no token crosses p" exactly would need every token crossing p;
 * instead a few bit tables over short byte strings (filled from every token at load)
 * answer "surely none" or "maybe" -- a "maybe" only leaves p uncut, so ids never change:
 *   level L = 2..5: if no L-byte window of the word across p lies inside any token, no
 *   token of L bytes or more crosses p; tokens shorter than L crossing p are exactly the
 *   shorter windows across p, each already checked against "is a token" at its level.
 * 2 and 3 bytes are exact tables; 4 and 5 bytes share one hashed table (a collision only
 * says "maybe").
 * A third way, for words of characters of every plane (random text): character by
 * character, where the place after a character is a sure cut by small tables of the
 * windows across a lead byte ("the place before a character's lead byte", `edge`) and its
 * last byte stands alone by its prefix (`joins`): then its tokens are its prefix's and
 * its last byte's, with no byte window looked up inside it.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, posix_memalign under -std=c99 (util/huge.h) */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "merge/segment.h"
#include "util/atomics.h"
#include "util/grow.h"
#include "util/huge.h"
#include "util/portable.h"

#define CUT_FROM MT_CUT_FROM
#define PIECE_MAX 15 /* pieces up to 15 bytes of at most 8 tokens are remembered */
#define PIECE_IDS 8
/* 65536 pieces of 64 bytes: 4 MB, in huge pages (util/huge.h); with 32768, Qwen2's Chinese
 * missed 19% more pieces, Llama 3's 40% more. A scratch starts with 4096 (256 KB, small
 * pages) and takes the large table once PIECE_GROW pieces went in: a text cut character
 * by character puts ~9,000 pieces in per 2 MB, and each fresh scratch had 4 MB of huge
 * pages zeroed for them; Chinese puts that many in within its first ~100 KB. */
#define PIECE_BITS 16
#define PIECE_BITS_FIRST 12
#define PIECE_GROW 16384

/* a piece's tokens: key = its bytes (little-endian, 8 and 7 of them) | length << 56 in
 * the second; 0: empty */
struct MergePiece {
    uint64_t key[2];
    int32_t ids[PIECE_IDS];
    uint8_t n, ends[PIECE_IDS];
};

/* a scratch's own (merge.h: MergeScratch.pieces): its cache of pieces, and how it merges
 * a piece */
struct MtPieces {
    struct MergePiece *slot; /* 2**bits of them; NULL: not made yet */
    uint32_t bits;
    uint32_t fills; /* pieces put in so far */
    mt_merge_fn merge; /* mt_merge_at_boundaries' caller's (route.c's mt_merge) */
};

void mt_pieces_free(struct MtPieces *p)
{
    if (p)
        free(p->slot);
    free(p);
}

/* ---- the strategy's own tables (merge.h: MergeTable.cuts) ---- */

struct MtCuts {
    MtInside in; /* (first: merge.h's mt_inside reads it) the 2..5-byte strings inside
                    tokens: add_inside */
    /* whole characters of 3 bytes (see "whole characters"): which tokens start with the
     * last bytes of a character or end with its first ones (`part`), which two
     * characters stand side by side inside a token (`pairs`, hashed) */
    uint64_t *part, *pairs;
    int32_t *longmin; /* rank-based: per character, the lowest rank of a longer token that
                         starts or ends with it (NULL: no ranks were given) */
    uint64_t *joins;  /* per prefix of a 3- or 4-byte character: the last bytes that make a
                         token with it */
    uint64_t *edge;   /* bits of the 3-byte windows y z L and z L b inside tokens (L a lead
                         byte) */
    /* merge-based: per token, the lowest rank of a merge with it as a part (INT32_MAX:
     * none), kept up to date as merges are added (mt_cuts_merge_added) */
    int32_t *minop;
    size_t minop_cap;
    int minop_lost; /* no memory for it once, or a part below 0: no character merges first */
    /* made when first needed, from the merges known then (threads may race: the first
     * one's stays), dropped when a merge is added */
    uint64_t *chars;   /* per character: its tokens alone, and whether it merges first */
    uint64_t *prefix4; /* per first three bytes of a 4-byte character: their tokens alone */
};

/* n <= 8 bytes at p, as load8, byte by byte (loading the tables) */
static inline uint64_t bytes_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline int has(const uint64_t *bits, size_t i)
{
    return (int)(bits[i >> 6] >> (i & 63) & 1);
}

static inline void set(uint64_t *bits, size_t i)
{
    bits[i >> 6] |= 1ull << (i & 63);
}

/* ---- whole characters of 3 bytes ("Han text") ----
 * Most words cut here are characters of 3 bytes each (Han, kana, Hangul, Thai). What
 * crosses the boundary between two such characters c1 c2 (or an ASCII first character
 * and c2) is read from the vocabulary at load, by character rather than by byte window:
 *   full: a token holds c1 and c2 whole, side by side (the `pairs` bits, hashed);
 *   c1 cut: a token starts with c1's last 1-2 bytes and goes on into c2 (L: c2 whole
 *     in it; D: only c2's first bytes, the token is those two parts);
 *   c2 cut: a token ends with c2's first 1-2 bytes after c1 whole (R) or after c1's last
 *     bytes (D). (The `part` bits, hashed; a few hundred tokens, so the table is small.)
 * A token across the boundary is one of these (the text is UTF-8, so a token that starts
 * or ends on a character boundary in itself does so in the word): where none is, the word
 * is cut, exactly (a hash collision only keeps a cut out).
 *
 * Merged first: a character c whose bytes alone merge into one token t, where every
 * merge with t as a part ranks above the merges inside c (the character table, built at
 * the first such word), and which no token cuts at either of its boundaries in this
 * word. Then merging with c's bytes or with t in their place gives the same tokens:
 * before c is whole no merge touches its bytes but its own, those rank below every merge
 * that uses t, and the merges elsewhere do not depend on how far c has got. So a piece
 * starts with one symbol per such character instead of three, and a piece of one such
 * character is its token, with no lookup. Next to a character of 2 or 4 bytes nothing is
 * cut and nothing merged first. */
#define CH_FIRST 0x800
#define CH_N (0x10000 - CH_FIRST)
#define PAIR_BITS 22 /* 512 KB: Qwen2 has ~19k pairs of Han characters inside tokens, 229 after 的 */
#define PART_BITS 16 /* 8 KB, then two filters of 8 KB by the second character's first two
                      * bytes: some token cuts here after a 3-byte character (PART_F3),
                      * after an ASCII one (PART_FA); most boundaries need no more */
#define PART_F3 ((size_t)1 << PART_BITS)
#define PART_FA (PART_F3 + 0x10000)
#define PART_WORDS ((PART_FA + 0x10000) / 64)
enum { PART_L = 1, PART_R = 2, PART_D = 3 };

static inline int is_cont(unsigned char b)
{
    return (b & 0xC0) == 0x80;
}

/* the code point of a 3-byte character at p (p[0..3) readable), or 0 */
static inline uint32_t char3(const unsigned char *p)
{
    /* the three bytes as one number: a lead 1110xxxx and two 10xxxxxx in one test */
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    if ((v & 0xC0C0F0u) != 0x8080E0u)
        return 0;
    uint32_t cp = (v & 0x0F) << 12 | (v >> 2 & 0x0FC0) | (v >> 16 & 0x3F);
    return cp >= CH_FIRST && (cp < 0xD800 || cp >= 0xE000) ? cp : 0;
}

/* the pair bits are megabytes read at random: first two bits per character (8 KB each,
 * in the first level cache), on the left of some pair, on the right of some */
#define PAIR_LEFT ((size_t)1 << PAIR_BITS)
#define PAIR_RIGHT (PAIR_LEFT + 0x10000)
#define PAIR_WORDS ((PAIR_RIGHT + 0x10000) / 64)

/* a pair's bit: in a block of 1024 bits (two cache lines) chosen by the left character,
 * so the pairs of a frequent character stay in the cache */
static inline size_t pair_bit(uint32_t c1, uint32_t c2)
{
    size_t block = (size_t)(((uint64_t)c1 * 0x9E3779B97F4A7C15ull) >> (64 - (PAIR_BITS - 10)));
    return block << 10 | (size_t)(((uint64_t)c2 * 0xC2B2AE3D27D4EB4Full) >> 54);
}

/* kind; n1 bytes of the left side (a character's code, or its last 1-2 bytes); n2 of the
 * right (a code, or its first 1-2 bytes) */
static inline size_t part_bit(int kind, size_t n1, uint64_t left, size_t n2, uint64_t right)
{
    uint64_t key = (uint64_t)kind << 60 | (uint64_t)n1 << 57 | (uint64_t)n2 << 54 | left << 24 | right;
    return (size_t)((key * 0xC2B2AE3D27D4EB4Full) >> (64 - PART_BITS));
}

/* the bytes p[0..n) (n <= 2) as a number */
static inline uint64_t few(const unsigned char *p, size_t n)
{
    return n == 1 ? p[0] : (uint64_t)p[0] | (uint64_t)p[1] << 8;
}

/* a filter's bits for the characters whose first n bytes (1 or 2) are p[0..n) */
static void filter_prefix(MergeTable *m, size_t filter, const unsigned char *p, size_t n)
{
    for (unsigned b = 0x80; b < 0xC0; b++)
        if (n == 1 || b == p[1])
            set(m->cuts->part, filter + ((size_t)p[0] << 8 | b));
}

/* the character facts of one token (see above) */
static void add_whole_chars(MergeTable *m, const unsigned char *p, size_t len, int32_t rank)
{
    size_t k = 0; /* continuation bytes it starts with: the end of a character */
    while (k < len && k < 3 && is_cont(p[k]))
        k++;
    size_t e = len, j = 0; /* it ends with the first j bytes of a 3-byte character at e */
    while (e > 0 && len - e < 3 && is_cont(p[e - 1]))
        e--;
    if (e > 0 && (p[e - 1] & 0xF0) == 0xE0 && len - (e - 1) < 3)
        j = len - --e;
    else
        e = len;
    if (k == 3)
        return; /* the end of a 4-byte character: never beside a cut or a character merged first */
    if (k && j && k == e) { /* D: the end of one character, the start of the next */
        set(m->cuts->part, part_bit(PART_D, k, few(p, k), j, few(p + e, j)));
        filter_prefix(m, PART_F3, p + e, j);
    }
    uint32_t c;
    if (k && e >= k + 3 && (c = char3(p + k)) != 0) { /* L */
        set(m->cuts->part, part_bit(PART_L, k, few(p, k), 3, c));
        filter_prefix(m, PART_F3, p + k, 2);
    }
    if (j && e > k) { /* R: after a whole character */
        if (p[e - 1] < 0x80) {
            set(m->cuts->part, part_bit(PART_R, 1, p[e - 1], j, few(p + e, j)));
            filter_prefix(m, PART_FA, p + e, j);
        } else if (e >= k + 3 && (c = char3(p + e - 3)) != 0) {
            set(m->cuts->part, part_bit(PART_R, 3, c, j, few(p + e, j)));
            filter_prefix(m, PART_F3, p + e, j);
        }
    }
    /* characters side by side: an ASCII or 3-byte one, then a 3-byte one */
    uint32_t prev = 0;
    int have = 0;
    for (size_t i = k; i < e;) {
        uint32_t cp;
        size_t n;
        if (p[i] < 0x80) {
            cp = p[i], n = 1;
        } else if (i + 3 <= e && (cp = char3(p + i)) != 0) {
            n = 3;
        } else { /* another character: the chain breaks */
            have = 0, i++;
            continue;
        }
        if (have && n == 3) {
            set(m->cuts->pairs, pair_bit(prev, cp));
            set(m->cuts->pairs, PAIR_LEFT + prev);
            set(m->cuts->pairs, PAIR_RIGHT + cp);
        }
        prev = cp, have = 1, i += n;
    }
    if (rank >= 0 && m->cuts->longmin && len > 3) {
        if ((c = char3(p)) != 0 && rank < m->cuts->longmin[c - CH_FIRST])
            m->cuts->longmin[c - CH_FIRST] = rank;
        if ((c = char3(p + len - 3)) != 0 && rank < m->cuts->longmin[c - CH_FIRST])
            m->cuts->longmin[c - CH_FIRST] = rank;
    }
}

/* ---- characters of 3 and 4 bytes between cuts: their last byte alone ----
 * In words of characters of every plane (random text, rare scripts) most places between
 * characters are cuts, but places inside a character are not settled by the two bytes
 * across them (every pair of continuation bytes lies inside some token), and the byte
 * windows of three and more bytes were looked up in tables of 4 MB, place by place (a
 * third of Qwen2's random text, whose tokens hold the first two bytes of many 4-byte
 * characters). Per character instead: a token that crosses the place before its last
 * byte z, inside it, is z with the byte before it, the two before it or the three (a
 * 4-byte character's whole bytes). Which z make one of these a token depends only on the
 * bytes before z, the character's prefix: a mask of 64 bits over z's six bits (`joins`,
 * set at load from the tokens of 2-4 bytes of that shape: mt_add_token). Where z stands
 * alone, the character's tokens are its prefix's and z's: a 3-byte prefix's from a table
 * filled in when first seen (three_bytes, as the character table), a 2-byte one's from the
 * byte-pair table. A text's characters share few prefixes (a plane's ideographs: a few
 * hundred), so these lookups stay in the cache. */
#define PREFIX4 ((size_t)5 << 12) /* F0..F4 and two continuation bytes */
#define PREFIX3 ((size_t)16 << 6) /* E0..EF and a continuation byte */
#define JOINS_N (PREFIX4 + PREFIX3)
#define PREFIX_SEEN (1ull << 62)  /* (three_bytes' entries use bits 0-51 and 63) */

static inline size_t prefix4_at(const unsigned char *p)
{
    return (size_t)(p[0] - 0xF0) << 12 | (size_t)(p[1] & 0x3F) << 6 | (size_t)(p[2] & 0x3F);
}

static inline size_t prefix3_at(const unsigned char *p)
{
    return PREFIX4 + ((size_t)(p[0] - 0xE0) << 6 | (size_t)(p[1] & 0x3F));
}

/* the joins of a token of 2-4 bytes (mt_add_token): the prefixes it ends the character of */
static void add_joins(uint64_t *joins, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (i ? !is_cont(p[i]) : p[i] < 0x80)
            return;
    uint64_t z = 1ull << (p[len - 1] & 63);
    if (len == 4 && p[0] >= 0xF0 && p[0] <= 0xF4) { /* a whole 4-byte character */
        joins[prefix4_at(p)] |= z;
    } else if (len == 3 && p[0] >= 0xE0 && p[0] <= 0xEF) { /* a whole 3-byte character */
        joins[prefix3_at(p)] |= z;
    } else if (len == 3 && is_cont(p[0])) { /* the last three bytes of a 4-byte one */
        for (unsigned b0 = 0xF0; b0 <= 0xF4; b0++)
            joins[prefix4_at((const unsigned char[]){(unsigned char)b0, p[0], p[1]})] |= z;
    } else if (len == 2 && is_cont(p[0])) { /* the last two of a 3- or 4-byte one */
        for (unsigned b0 = 0xF0; b0 <= 0xF4; b0++)
            for (unsigned b1 = 0x80; b1 < 0xC0; b1++)
                joins[prefix4_at((const unsigned char[]){(unsigned char)b0, (unsigned char)b1,
                                                          p[0]})] |= z;
        for (unsigned b0 = 0xE0; b0 <= 0xEF; b0++)
            joins[prefix3_at((const unsigned char[]){(unsigned char)b0, p[0]})] |= z;
    }
}

/* ---- the place before a character's lead byte ----
 * A token across it holds the two bytes there (z, the last of the character before, and
 * the lead L: the 16 KB table of two bytes settles most places), and if it has three
 * bytes or more, z L b (b: the next) or y z L; four or more, one of x y z L, y z L b,
 * z L b c. Windows of those shapes (every byte but the first >= 0x80, a lead after the
 * first; z is ASCII only as a word's first byte: a space before letters) are few (Qwen2:
 * 42,565 of four bytes of a word's letters), so they get tables of their own, made at
 * load (`edge`): the three-byte ones exact (160 KB), the four-byte ones and the three-byte
 * tokens hashed
 * (64 KB, two bits of one word each: a collision only leaves the place to the 4 MB
 * tables). Random text: the two-byte table settled 72% of the places between two
 * characters, the three-byte windows 18% more, the four-byte ones 9%. */
#define EDGE_L ((size_t)0)        /* y z L: (y - 0x80) << 12 | z << 6 | L, 64 KB */
#define EDGE_R ((size_t)1 << 19)  /* z L b: z << 12 | L << 6 | b, 32 KB */
#define EDGE_A (EDGE_R + ((size_t)1 << 18)) /* z L b, z ASCII (a word's first byte): 64 KB */
#define EDGE_H (EDGE_A + ((size_t)1 << 19)) /* hashed: 4-byte windows, 3-byte tokens */
#define EDGE_H_LOG 13                       /* words of 64 bits: 64 KB */
#define EDGE_N (EDGE_H + ((size_t)64 << EDGE_H_LOG))

/* the hashed part's word (an index of bits) and two bits for the n bytes v */
static inline size_t edge_word(uint64_t v, size_t n, uint64_t *bits)
{
    uint64_t h = (v | (uint64_t)n << 56) * 0x9E3779B97F4A7C15ull;
    *bits = 1ull << (h >> 20 & 63) | 1ull << (h >> 26 & 63);
    return EDGE_H + ((size_t)(h >> (64 - EDGE_H_LOG)) << 6);
}

static inline int edge_has(const uint64_t *edge, uint64_t v, size_t n)
{
    uint64_t bits;
    size_t at = edge_word(v, n, &bits);
    return (edge[at >> 6] & bits) == bits;
}

/* every byte of p[0..n) but the first >= 0x80, and a lead after the first */
static inline int edge_shape(const unsigned char *p, size_t n)
{
    int lead = 0;
    for (size_t i = 1; i < n; i++) {
        if (p[i] < 0x80)
            return 0;
        lead |= p[i] >= 0xC0;
    }
    return lead;
}

static void add_edges(uint64_t *edge, const unsigned char *p, size_t len)
{
    uint64_t bits;
    for (size_t i = 0; i + 4 <= len; i++)
        if (edge_shape(p + i, 4)) {
            size_t at = edge_word(bytes_le(p + i, 4), 4, &bits); /* (before bits is read) */
            edge[at >> 6] |= bits;
        }
    if (len == 3 && edge_shape(p, 3)) {
        size_t at = edge_word(bytes_le(p, 3), 3, &bits);
        edge[at >> 6] |= bits;
    }
    for (size_t i = 0; i + 3 <= len; i++) {
        const unsigned char *q = p + i;
        if (q[0] >= 0x80 && is_cont(q[1]) && q[2] >= 0xC0)
            set(edge, EDGE_L + ((size_t)(q[0] - 0x80) << 12 | (size_t)(q[1] & 0x3F) << 6 |
                                (size_t)(q[2] & 0x3F)));
        if (is_cont(q[0]) && q[1] >= 0xC0 && is_cont(q[2]))
            set(edge, EDGE_R + ((size_t)(q[0] & 0x3F) << 12 | (size_t)(q[1] & 0x3F) << 6 |
                                (size_t)(q[2] & 0x3F)));
        if (q[0] < 0x80 && q[1] >= 0xC0 && is_cont(q[2]))
            set(edge, EDGE_A + ((size_t)q[0] << 12 | (size_t)(q[1] & 0x3F) << 6 |
                                (size_t)(q[2] & 0x3F)));
    }
}

/* 1: surely no token crosses the place p before the lead byte w[p] of a word of len
 * bytes (1 <= p, p + 2 <= len); 0: not known here */
BPE_FORCE_INLINE int edge_cut(const MergeTable *m,
                              const unsigned char *w, size_t len,
                              size_t p)
{
    size_t k2 = 2 * (size_t)(w[p - 1] | w[p] << 8);
    uint64_t two = m->cuts->in.sub2[k2 >> 6] >> (k2 & 63);
    if (!(two & 1))
        return 1;
    const uint64_t *e = m->cuts->edge;
    unsigned z = w[p - 1];
    if ((two & 2) || !e || !is_cont(w[p + 1]))
        return 0;
    int yzl, zlb;
    uint64_t yzlb = 0; /* y z L b, from one load (y: 0 after an ASCII first byte) */
    if (z < 0x80) { /* an ASCII first byte: no y */
        if (p != 1)
            return 0;
        yzl = 0;
        zlb = has(e, EDGE_A + ((size_t)z << 12 | (size_t)(w[p] & 0x3F) << 6 |
                               (size_t)(w[p + 1] & 0x3F)));
        yzlb = bytes_le(w, 3) << 8;
    } else {
        if (p < 2 || w[p - 2] < 0x80 || !is_cont(z))
            return 0;
        yzl = has(e, EDGE_L + ((size_t)(w[p - 2] - 0x80) << 12 | (size_t)(z & 0x3F) << 6 |
                               (size_t)(w[p] & 0x3F)));
        zlb = has(e, EDGE_R + ((size_t)(z & 0x3F) << 12 | (size_t)(w[p] & 0x3F) << 6 |
                               (size_t)(w[p + 1] & 0x3F)));
        yzlb = load4(w + p - 2); /* (p + 2 <= len) */
    }
    if (!yzl && !zlb)
        return 1; /* no window of three bytes across p inside a token */
    /* three-byte tokens across p, then the four-byte windows inside the word (each one
     * load; the shape tests of edge_shape on its 32 bits: bytes 1-3 >= 0x80, one a lead) */
    if ((yzl && edge_has(e, yzlb & 0xFFFFFF, 3)) || (zlb && edge_has(e, yzlb >> 8, 3)))
        return 0;
    for (size_t s = p >= 3 ? p - 3 : 0; s < p && s + 4 <= len; s++) {
        uint64_t v = load4(w + s);
        if ((v & 0x80808000u) != 0x80808000u || !(v & v << 1 & 0x80808000u) ||
            edge_has(e, v, 4))
            return 0;
    }
    return 1;
}

/* ---- the strategy's own tables ---- */

void mt_cuts_merge_added(struct MtCuts *c, int32_t a, int32_t b, int32_t rank)
{
    free(c->chars); /* made from the merges known then (no thread merges while adding) */
    free(c->prefix4);
    c->chars = c->prefix4 = NULL;
    for (int k = 0; k < 2; k++) { /* the lowest rank of a merge with each part */
        int32_t t = k ? b : a;
        size_t had = c->minop_cap;
        if (t < 0 || bpe_grow((void **)&c->minop, &c->minop_cap, (size_t)t + 1, sizeof(int32_t),
                              1024) < 0) {
            c->minop_lost = 1; /* characters are not merged first: ids the same */
            continue;
        }
        for (size_t i = had; i < c->minop_cap; i++)
            c->minop[i] = INT32_MAX;
        if (rank < c->minop[t])
            c->minop[t] = rank;
    }
}

void mt_cuts_free(struct MtCuts *c)
{
    if (!c)
        return;
    free(c->chars);
    free(c->prefix4);
    free(c->minop);
    free(c->part);
    free(c->pairs);
    free(c->longmin);
    free(c->joins);
    free(c->edge);
    free(c->in.sub2);
    free(c->in.sub3);
    free(c->in.subh);
    free(c);
}

/* The tables, empty (`ranks`: with longmin); NULL when out of memory. */
static struct MtCuts *cuts_new(int ranks)
{
    struct MtCuts *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->part = calloc(PART_WORDS, sizeof(uint64_t));
    c->pairs = calloc(PAIR_WORDS, sizeof(uint64_t));
    c->joins = calloc(JOINS_N, sizeof(uint64_t)); /* (none: no character taken whole) */
    c->edge = calloc(EDGE_N / 64, sizeof(uint64_t)); /* (none: the 4 MB tables answer) */
    c->in.sub2 = calloc((2u << 16) / 64, sizeof(uint64_t));
    c->in.sub3 = bpe_calloc_huge((2u << 24) / 64, sizeof(uint64_t));
    c->in.subh = bpe_calloc_huge(((size_t)1 << MT_SUBH_BITS) / 64, sizeof(uint64_t));
    if (ranks && (c->longmin = malloc(CH_N * sizeof(int32_t))) != NULL)
        for (size_t i = 0; i < CH_N; i++)
            c->longmin[i] = INT32_MAX;
    if (!c->part || !c->pairs || (ranks && !c->longmin) || !c->in.sub2 || !c->in.sub3 ||
        !c->in.subh) {
        mt_cuts_free(c);
        return NULL;
    }
    return c;
}

/* Every string of 2..5 bytes inside the token p[0..len) into c's MtInside; the token
 * itself also as a token. */
static void add_inside(MtInside *in, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i + 2 <= len; i++)
        set(in->sub2, 2 * bytes_le(p + i, 2));
    for (size_t i = 0; i + 3 <= len; i++)
        set(in->sub3, 2 * bytes_le(p + i, 3));
    for (size_t i = 0; i + 4 <= len; i++)
        set(in->subh, mt_subh_bit(MT_IN4, bytes_le(p + i, 4)));
    if (len == 2)
        set(in->sub2, 2 * bytes_le(p, 2) + 1);
    if (len == 3)
        set(in->sub3, 2 * bytes_le(p, 3) + 1);
    if (len == 4)
        set(in->subh, mt_subh_bit(MT_TOK4, bytes_le(p, 4)));
    for (size_t i = 0; i + 5 <= len; i++)
        set(in->subh, mt_subh_bit(MT_IN5, bytes_le(p + i, 5)));
}

/* The cut tables of m, made at its first token: the merges it holds already told. */
static struct MtCuts *cuts_of(const MergeTable *m, int ranks)
{
    struct MtCuts *c = cuts_new(ranks);
    for (size_t i = 0; c && m->n && i < m->cap; i++) {
        uint64_t k = m->tab[i].key - 1; /* ((a << 32) | b) + 1; 0: empty */
        if (m->tab[i].key)
            mt_cuts_merge_added(c, (int32_t)(uint32_t)(k >> 32), (int32_t)(uint32_t)k,
                                m->tab[i].rank);
    }
    return c;
}

int mt_cuts_add_token(MergeTable *m, const unsigned char *p, size_t len, int32_t rank)
{
    /* Only tokens with a byte >= 0x80 (5% of cl100k's, 36% of o200k's: loading stays
     * quick): words are cut only when all their bytes but the first are >= 0x80, and
     * every token inside such a word, 2 bytes or more, has one. */
    size_t hi = 0;
    while (hi < len && p[hi] < 0x80)
        hi++;
    if (hi == len)
        return 0;
    /* (memory runs out at the first token only: then neither the tables nor the
     * table's filter of token bytes is kept, and no more tokens are given) */
    if (!m->cuts && !(m->cuts = cuts_of(m, rank >= 0)))
        return -1;
    struct MtCuts *c = m->cuts;
    add_inside(&c->in, p, len);
    add_whole_chars(m, p, len, rank);
    if (c->joins && len >= 2 && len <= 4)
        add_joins(c->joins, p, len);
    if (c->edge)
        add_edges(c->edge, p, len);
    return 0;
}

/* The windows of L bytes across p: L-1 of them, starting at p-L+1 .. p-1; win(L, s) is
 * the one starting at p-L+1+s. A level answers 1: no token crosses p; 0: one does; -1:
 * go on (tokens of L bytes may cross p, none shorter does). */
#define MASK(L) (~0ull >> (64 - 8 * (L)))

/* 1: surely no token crosses the middle of the 8 bytes in v (bytes 3 | 4), of which
 * only bytes lo..hi-1 are the word's (no token lies outside the word). */
BPE_FORCE_INLINE int no_token_across(const MergeTable *m,
                                     uint64_t v, size_t lo,
                                     size_t hi)
{
    /* level 2 first: the window of bytes 3..5 inside no token, no token crosses (16 KB,
     * in the first level cache: between the bytes of characters no token holds -- random
     * text of 4-byte characters -- most places are settled here) */
    size_t k2 = 2 * (size_t)(v >> 24 & 0xFFFF);
    uint64_t two2 = m->cuts->in.sub2[k2 >> 6] >> (k2 & 63);
    if (!(two2 & 1))
        return 1;
    /* then the 3-byte tokens across (inside a character of 3 bytes, the character is
     * mostly a token: one lookup), keeping the words read for level 3 */
    uint64_t in3 = 0; /* bit s: the window of 3 bytes at s lies inside a token */
    for (size_t s = 2; s <= 3; s++) {
        if (s < lo || s + 3 > hi)
            continue;
        size_t k = 2 * (size_t)(v >> (8 * s) & MASK(3));
        uint64_t two = m->cuts->in.sub3[k >> 6] >> (k & 63); /* bit 0 inside, bit 1 a token */
        if (two & 2)
            return 0;
        in3 |= (two & 1) << s;
    }
    if (two2 & 2) /* level 2: the window is a token */
        return 0;
    /* level 3 (no 3-byte token crosses, checked above) */
    if (!in3)
        return 1;
    int inside = 0;
    for (size_t s = 1; s <= 3; s++) {
        if (s < lo || s + 4 > hi)
            continue;
        uint64_t win = v >> (8 * s) & MASK(4);
        if (has(m->cuts->in.subh, mt_subh_bit(MT_IN4, win))) {
            if (has(m->cuts->in.subh, mt_subh_bit(MT_TOK4, win)))
                return 0;
            inside = 1;
        }
    }
    if (!inside)
        return 1;
    for (size_t s = 0; s <= 3; s++) {
        if (s < lo || s + 5 > hi)
            continue;
        if (has(m->cuts->in.subh, mt_subh_bit(MT_IN5, v >> (8 * s) & MASK(5))))
            return 0; /* maybe: no cut */
    }
    return 1;
}

/* 1: surely no token of the word's bytes crosses position p (0 < p < len, len >= 8),
 * near the ends: the 8 bytes w[p-4..p+4) shifted from the word's first or last 8 */
static int cut_near_end(const MergeTable *m, const unsigned char *w, size_t len, size_t p)
{
    if (p < 4)
        return no_token_across(m, load8(w) << (8 * (4 - p)), 4 - p, 8);
    return no_token_across(m, load8(w + len - 8) >> (8 * (p + 4 - len)), 0, 4 + (len - p));
}

/* 1: a cut at the place *p inside the word (its 8 bytes w[*p-4..*p+4) read at once:
 * constant bounds, the checks fold). A 3-byte token starting at *p-1 (a Han character,
 * mostly) settles *p and *p+1 with one lookup: *p moves on by one. */
BPE_FORCE_INLINE int cut_inside(const MergeTable *m,
                                const unsigned char *w, size_t *p)
{
    uint64_t v = load8(w + *p - 4);
    if ((w[*p - 1] & 0xF0) == 0xE0) {
        size_t k = 2 * (size_t)(v >> 24 & MASK(3)) + 1; /* w[p-1..p+2) */
        if (has(m->cuts->in.sub3, k)) {
            ++*p; /* p and p + 1 are inside that token */
            return 0;
        }
    }
    return no_token_across(m, v, 0, 8);
}

/* The first cut at or after p, or len. */
static size_t next_cut(const MergeTable *m, const unsigned char *w, size_t len, size_t p)
{
    for (; p < len; p++) {
        if (p < 4 || p + 4 > len) {
            if (cut_near_end(m, w, len, p))
                return p;
            continue;
        }
        if (cut_inside(m, w, &p)) /* inside the word: p + 4 <= len */
            return p;
    }
    return len;
}

/* next_cut over a copy of the word framed by PAD bytes 0xFF on each side (pw: the copy's
 * first byte of the word): every position is read as one inside the word. A window that
 * takes in a 0xFF lies inside no token of UTF-8 text (no such byte there), so it never
 * settles anything the word's own windows would not; and a file with such a token only
 * loses cuts, never ids ("maybe" leaves a place uncut). Random text of every plane: a
 * third of its places were near a word's end, each read by the shifting cut_near_end. */
#define PAD 8
#define PADDED_MAX 248
static size_t next_cut_padded(const MergeTable *m, const unsigned char *pw, size_t len, size_t p)
{
    for (; p < len; p++) {
        if (cut_inside(m, pw, &p))
            return p;
    }
    return len;
}

/* 1: a sure cut at q (0 < q <= len) of the framed word pw (next_cut_padded's copy) */
static inline int sure_cut(const MergeTable *m, const unsigned char *pw, size_t len, size_t q)
{
    size_t p = q;
    return q == len || (cut_inside(m, pw, &p) && p == q);
}

/* 1: no first byte of a 2- or 4-byte character in p[0..n) (n >= 8, every byte >= 0x80):
 * a word of 3-byte characters, cut by character (merge_han); others (emoji, mixed
 * scripts) by byte windows, which can cut beside their characters too */
static int only_3byte(const unsigned char *p, size_t n)
{
    /* (every byte is >= 0x80: high_bytes) a byte 110xxxxx or 1111xxxx: bit 6 set, and
     * bit 5 clear or bit 4 set; 8 bytes at a time, each bit moved up to bit 7 */
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        if ((v << 1) & (~(v << 2) | (v << 3)) & 0x8080808080808080ull)
            return 0;
    }
    for (; i < n; i++)
        if ((p[i] & 0xE0) == 0xC0 || p[i] >= 0xF0)
            return 0;
    return 1;
}

/* w[a..a+n) (n <= 8) of a word of len >= 8 bytes: one load, from a or from the end */
static inline uint64_t in_word(const unsigned char *w, size_t len, size_t a, size_t n)
{
    uint64_t v = a + 8 <= len ? load8(w + a) : load8(w + len - 8) >> (8 * (a + 8 - len));
    return n == 8 ? v : v & MASK(n);
}

/* What merging through a copy of x (y, its arrays moved to a piece) set up for good --
 * the memo of pairs -- stays with x: made in the copy alone it was
 * lost (and made again for the next piece) while x had none yet. Returns r. */
static inline size_t keep_setup(MergeScratch *x, const MergeScratch *y, size_t r)
{
    x->seen = y->seen;
    return r;
}

/* Merge the piece w[a..a+k) whose byte tokens are at sym[a..): returns its token count,
 * spans relative to a. */
static size_t merge_piece(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                          size_t a, size_t k, int32_t limit)
{
    MergeScratch y = *x;
    y.sym += a, y.st += a, y.en += a, y.rk += a; /* (rk: merge_han's marks, before a: done) */
    for (size_t i = 0; i < k; i++) {
        y.sym[i] = m->byte_ids[w[a + i]];
        y.st[i] = (int32_t)i;
        y.en[i] = (int32_t)i + 1;
    }
    return keep_setup(x, &y, x->pieces->merge(m, &y, k, limit, w + a, MT_RAW | MT_SPANS));
}

/* ---- the table of characters: each filled in when first seen ----
 * An entry: 0 unknown; bits 0-1 the number of tokens of the character's bytes merged
 * alone (1-3; 0: ids too large to keep), bit 2 it merges first (see "whole characters"),
 * bit 3 the first of two tokens has 2 bytes, bits 4-27 and 28-51 the first two ids (three
 * tokens are its three bytes). */
#define CH_KNOWN (1ull << 63)
#define CH_FIRST_OK 4u

static inline int32_t ch_id(uint64_t e, int k)
{
    return (int32_t)(e >> (4 + 24 * k) & 0xFFFFFF);
}

/* The tokens of three bytes c merged alone, as an entry of the table (without
 * CH_FIRST_OK); *first, *last: the ranks of its first and last merges (NO_RANK: none) */
static uint64_t three_bytes(const MergeTable *m, const unsigned char c[3], int32_t *first,
                            int32_t *last)
{
    /* its bytes alone: the lower of the two byte pairs first (the left on a tie) */
    int32_t r12 = m->bytepair[c[0] * 256 + c[1]].rank, r23 = m->bytepair[c[1] * 256 + c[2]].rank;
    *first = *last = NO_RANK;
    if (r12 == NO_RANK && r23 == NO_RANK)
        return CH_KNOWN | 3;
    int left = r12 <= r23;
    int32_t made, pair = m->bytepair[left ? c[0] * 256 + c[1] : c[1] * 256 + c[2]].new_id;
    *first = left ? r12 : r23;
    if (left)
        *last = mt_pair(m, pair, m->byte_ids[c[2]], c, 3, &made);
    else
        *last = mt_pair(m, m->byte_ids[c[0]], pair, c, 3, &made);
    if (*last < 0 || made < 0) { /* two tokens */
        int32_t a = left ? pair : m->byte_ids[c[0]], b = left ? m->byte_ids[c[2]] : pair;
        if (a < 0 || b < 0 || a > 0xFFFFFF || b > 0xFFFFFF)
            return CH_KNOWN;
        return CH_KNOWN | 2 | (left ? 8u : 0u) | (uint64_t)a << 4 | (uint64_t)b << 28;
    }
    if (made > 0xFFFFFF)
        return CH_KNOWN;
    return CH_KNOWN | 1 | (uint64_t)made << 4;
}

static uint64_t char_entry(const MergeTable *m, uint32_t cp)
{
    unsigned char c[3] = {(unsigned char)(0xE0 | cp >> 12), (unsigned char)(0x80 | (cp >> 6 & 0x3F)),
                          (unsigned char)(0x80 | (cp & 0x3F))};
    int32_t first, last;
    uint64_t e = three_bytes(m, c, &first, &last);
    if ((e & 3) != 1)
        return e;
    /* merged first: no merge with its token as a part at or below the merges inside it
     * (rank-based: a longer token that starts or ends with it, mt_add_token; merge-based:
     * from the merges, mt_add) */
    int32_t made = ch_id(e, 0);
    const struct MtCuts *cu = m->cuts;
    int32_t low = m->by_span ? cu->longmin[cp - CH_FIRST]
                             : (size_t)made < cu->minop_cap ? cu->minop[made] : INT32_MAX;
    return e | (low > last && low > first ? CH_FIRST_OK : 0);
}

/* *slot's table of n entries (all 0: unknown), made by the first thread that asks when
 * `ok`; NULL: none (not ok, no memory) */
BPE_FORCE_INLINE uint64_t *table_once(uint64_t **slot, int ok, size_t n)
{
    uint64_t *t = bpe_ld_acq_ptr((void *const *)slot);
    if (t || !ok || !(t = calloc(n, sizeof(uint64_t))))
        return t;
    uint64_t *none = NULL;
    if (!bpe_cas_acqrel_ptr((void **)slot, (void **)&none, t)) {
        free(t); /* another thread made it first */
        t = none;
    }
    return t;
}

/* the table (all unknown), made once; NULL: characters are not taken whole */
BPE_FORCE_INLINE uint64_t *chars_of(const MergeTable *m)
{
    const struct MtCuts *c = m->cuts;
    int ok = !m->dup_bytes && (m->by_span ? c->longmin != NULL : !c->minop_lost);
    return table_once(&m->cuts->chars, ok, CH_N);
}

/* the table's entry for cp, filled in on the first sight (every thread computes the same) */
static inline uint64_t char_of(const MergeTable *m, uint64_t *ch, uint32_t cp)
{
    uint64_t e = bpe_ld_rlx_u64(&ch[cp - CH_FIRST]);
    if (!e) {
        e = char_entry(m, cp);
        bpe_st_rlx_u64(&ch[cp - CH_FIRST], e);
    }
    return e;
}

/* The tokens of the three bytes w[a..a+3) from their entry e (1-3 tokens: three_bytes),
 * written at out; the new out. */
static inline size_t put_three(const MergeTable *m, MergeScratch *x, uint64_t e,
                               const unsigned char *w, size_t a, size_t out)
{
    int32_t *sym = x->sym + out, *st = x->st + out, *en = x->en + out, at = (int32_t)a;
    switch (e & 3) {
    case 1: /* one token */
        sym[0] = ch_id(e, 0), st[0] = at, en[0] = at + 3;
        return out + 1;
    case 2: { /* two: the first of 2 bytes (bit 3) or 1 */
        int32_t cut = at + (e & 8 ? 2 : 1);
        sym[0] = ch_id(e, 0), st[0] = at, en[0] = cut;
        sym[1] = ch_id(e, 1), st[1] = cut, en[1] = at + 3;
        return out + 2;
    }
    case 3: /* its three bytes */
        for (int32_t i = 0; i < 3; i++)
            sym[i] = m->byte_ids[w[a + (size_t)i]], st[i] = at + i, en[i] = at + i + 1;
        return out + 3;
    default:
        return out;
    }
}

/* per 4-byte character's prefix, in one line of the cache: its joins (copied from
 * m->cuts->joins) and its tokens (three_bytes, PREFIX_SEEN set; 0: not seen yet), made once;
 * NULL: none (no memory, an odd byte layout) */
BPE_FORCE_INLINE uint64_t *prefixes_of(const MergeTable *m)
{
    return table_once(&m->cuts->prefix4, m->cuts->joins && !m->dup_bytes && m->bytepair,
                      2 * PREFIX4);
}

/* the entry {joins, tokens} of the prefix of the 4-byte character at p, filled in on the
 * first sight (every thread computes the same) */
static inline const uint64_t *prefix_entry(const MergeTable *m, uint64_t *t,
                                           const unsigned char *p)
{
    size_t i = prefix4_at(p);
    uint64_t *e = &t[2 * i];
    if (!bpe_ld_acq_u64(&e[1])) {
        int32_t first, last;
        bpe_st_rlx_u64(&e[0], m->cuts->joins[i]);
        bpe_st_rel_u64(&e[1], three_bytes(m, p, &first, &last) | PREFIX_SEEN);
    }
    return e;
}

/* The bytes of a well-formed 3- or 4-byte character at w[a], or 0. */
static inline size_t char_at(const unsigned char *w, size_t len, size_t a)
{
    size_t k = w[a] >= 0xF0 ? 4 : w[a] >= 0xE0 ? 3 : 0;
    if (!k || a + k > len || w[a] > 0xF4)
        return 0;
    if (a + 4 <= len) { /* its continuation bytes, from one load */
        uint64_t v = load4(w + a), cont = k == 4 ? 0xC0C0C000u : 0xC0C000u;
        return (v & cont) == (0x80808000u & cont) ? k : 0;
    }
    for (size_t i = a + 1; i < a + k; i++)
        if (!is_cont(w[i]))
            return 0;
    return k;
}

/* Merge the piece w[a..a+k) of whole characters: first[i] >= 0 at a character merged
 * first (its token). Returns its token count, spans relative to a. */
static size_t merge_chars(const MergeTable *m, MergeScratch *x, const int32_t *first,
                          const unsigned char *w, size_t a, size_t k, int32_t limit)
{
    MergeScratch y = *x;
    y.sym += a, y.st += a, y.en += a, y.rk += a; /* (rk: merge_han's marks, before a: done) */
    size_t n = 0;
    for (size_t i = 0; i < k;) {
        int32_t t = i + 3 <= k && char3(w + a + i) ? first[a + i] : -1;
        size_t step = t >= 0 ? 3 : 1;
        y.sym[n] = t >= 0 ? t : m->byte_ids[w[a + i]];
        y.st[n] = (int32_t)i;
        y.en[n++] = (int32_t)(i + step);
        i += step;
    }
    return keep_setup(x, &y, x->pieces->merge(m, &y, n, limit, w + a, MT_SPANS));
}

/* the piece's tokens: merged, by characters (first: see merge_chars) or from its bytes */
static size_t merge_any(const MergeTable *m, MergeScratch *x, const int32_t *first,
                        const unsigned char *w, size_t a, size_t k, int32_t limit)
{
    return first ? merge_chars(m, x, first, w, a, k, limit) : merge_piece(m, x, w, a, k, limit);
}

/* the scratch's cache of pieces (its MtPieces made by mt_merge_at_boundaries), its table
 * made (the small one) when first asked for; NULL: no memory */
static inline struct MtPieces *pieces_of(MergeScratch *x)
{
    struct MtPieces *p = x->pieces;
    if (!p->slot) {
        if (!(p->slot = calloc((size_t)1 << PIECE_BITS_FIRST, sizeof(struct MergePiece))))
            return NULL;
        p->bits = PIECE_BITS_FIRST;
    }
    return p;
}

/* the slot of the key k0, k1 in the cache of pieces */
static inline struct MergePiece *piece_slot(struct MtPieces *p, uint64_t k0, uint64_t k1)
{
    return &p->slot[((k0 ^ k1 * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull) >>
                    (64 - p->bits)];
}

/* the large table in place of the small one (empty: the small one's pieces are dropped);
 * the slot of the key k0, k1 in whichever table the cache has then */
static struct MergePiece *grow_pieces(struct MtPieces *p, uint64_t k0, uint64_t k1)
{
    struct MergePiece *big = bpe_calloc_huge((size_t)1 << PIECE_BITS, sizeof(struct MergePiece));
    if (big) { /* (no memory: the small one stays) */
        free(p->slot);
        p->slot = big;
        p->bits = PIECE_BITS;
    }
    return piece_slot(p, k0, k1);
}

/* The n tokens of a piece at a just merged (merge_any: at x->sym[a..], spans relative to
 * a), moved to out (<= a); the new out. */
static inline size_t put_merged(MergeScratch *x, size_t a, size_t n, size_t out)
{
    for (size_t i = 0; i < n; i++, out++) {
        x->sym[out] = x->sym[a + i];
        x->st[out] = x->st[a + i] + (int32_t)a;
        x->en[out] = x->en[a + i] + (int32_t)a;
    }
    return out;
}

/* The tokens of the piece w[a..a+k), written at out (<= a: moving left, in order);
 * short pieces through the cache of pieces. */
static size_t put_piece(const MergeTable *m, MergeScratch *x, uint64_t *ch, const int32_t *first,
                        const unsigned char *w, size_t len, size_t a, size_t k, int32_t limit,
                        size_t out)
{
    if (k == 1) {
        x->sym[out] = m->byte_ids[w[a]];
        x->st[out] = (int32_t)a;
        x->en[out++] = (int32_t)(a + 1);
        return out;
    }
    if (k == 2) { /* two bytes: their one pair (the byte-pair table), as mt_merge would */
        size_t i = (size_t)w[a] << 8 | w[a + 1];
        if (m->bytepair[i].rank < limit) {
            x->sym[out] = m->bytepair[i].new_id;
            x->st[out] = (int32_t)a;
            x->en[out++] = (int32_t)(a + 2);
            return out;
        }
        for (size_t j = 0; j < 2; j++, out++) {
            x->sym[out] = m->byte_ids[w[a + j]];
            x->st[out] = (int32_t)(a + j);
            x->en[out] = (int32_t)(a + j + 1);
        }
        return out;
    }
    uint32_t cp;
    uint64_t e;
    if (k == 3 && ch && (cp = char3(w + a)) != 0 && ((e = char_of(m, ch, cp)) & 3))
        return put_three(m, x, e, w, a, out); /* one character: from the table */
    size_t n;
    if (k <= PIECE_MAX && limit == NO_RANK && pieces_of(x)) {
        uint64_t k0 = in_word(w, len, a, k < 8 ? k : 8),
                 k1 = (k > 8 ? in_word(w, len, a + 8, k - 8) : 0) | (uint64_t)k << 56;
        struct MergePiece *e = piece_slot(x->pieces, k0, k1);
        if (e->key[0] != k0 || e->key[1] != k1) {
            if (++x->pieces->fills == PIECE_GROW) /* a text whose pieces come back: */
                e = grow_pieces(x->pieces, k0, k1); /* the large table */
            n = merge_any(m, x, first, w, a, k, limit);
            if (n > PIECE_IDS) /* too many tokens to remember */
                return put_merged(x, a, n, out);
            for (size_t i = 0; i < n; i++) {
                e->ids[i] = x->sym[a + i];
                e->ends[i] = (uint8_t)x->en[a + i];
            }
            e->n = (uint8_t)n;
            e->key[0] = k0;
            e->key[1] = k1;
        }
        for (size_t i = 0, st = 0; i < e->n; i++) {
            x->sym[out] = e->ids[i];
            x->st[out] = (int32_t)(a + st);
            x->en[out++] = (int32_t)(a + (st = e->ends[i]));
        }
        return out;
    }
    return put_merged(x, a, merge_any(m, x, first, w, a, k, limit), out);
}

/* the token of the byte w[a] written at out */
static inline void put_byte(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                            size_t a, size_t out)
{
    x->sym[out] = m->byte_ids[w[a]];
    x->st[out] = (int32_t)a;
    x->en[out] = (int32_t)(a + 1);
}

/* The tokens of the character w[a..a+k) (char_at) between two cuts: where its last byte
 * stands alone (its prefix's joins), the prefix's tokens (three bytes: the table; two:
 * the byte-pair table) and the last byte's; else the character as one piece (the
 * character table for 3 bytes, the cache of pieces for 4: emoji, whole tokens). No merge
 * limit. */
static inline size_t put_char(const MergeTable *m, MergeScratch *x, uint64_t *pre, uint64_t *ch,
                              const unsigned char *w, size_t len, size_t a, size_t k,
                              size_t out)
{
    if (k == 4) {
        const uint64_t *e = prefix_entry(m, pre, w + a);
        if (e[0] >> (w[a + 3] & 63) & 1 || !(e[1] & 3))
            return put_piece(m, x, ch, NULL, w, len, a, 4, NO_RANK, out);
        out = put_three(m, x, e[1], w, a, out);
    } else {
        if (m->cuts->joins[prefix3_at(w + a)] >> (w[a + 2] & 63) & 1)
            return put_piece(m, x, ch, NULL, w, len, a, 3, NO_RANK, out);
        size_t i = (size_t)w[a] << 8 | w[a + 1];
        if (m->bytepair[i].rank != NO_RANK) { /* (no limit) */
            x->sym[out] = m->bytepair[i].new_id;
            x->st[out] = (int32_t)a;
            x->en[out++] = (int32_t)(a + 2);
        } else {
            put_byte(m, x, w, a, out++);
            put_byte(m, x, w, a + 1, out++);
        }
    }
    put_byte(m, x, w, a + k - 1, out);
    return out + 1;
}

/* the character's token if it merges first, else -1 */
static inline int32_t merged_first(const MergeTable *m, uint64_t *ch, uint32_t cp)
{
    uint64_t e = char_of(m, ch, cp);
    return (e & 3) == 1 && (e & CH_FIRST_OK) ? ch_id(e, 0) : -1;
}

/* What crosses the boundary between the character before (code c1, 1 or 3 bytes ending
 * at w + i) and the 3-byte character c2 at w + i: bit 0 a token holds both whole, bit 1
 * one cuts c1, bit 2 one cuts c2 (see "whole characters" above). */
static inline int crossing(const MergeTable *m, const unsigned char *w, size_t i, uint32_t c1,
                           size_t n1, uint32_t c2)
{
    int x = has(m->cuts->pairs, PAIR_LEFT + c1) && has(m->cuts->pairs, PAIR_RIGHT + c2) &&
            has(m->cuts->pairs, pair_bit(c1, c2));
    const unsigned char *q = w + i;
    if (!has(m->cuts->part, (n1 == 3 ? PART_F3 : PART_FA) + ((size_t)q[0] << 8 | q[1])))
        return x; /* no token ends in c2's first bytes or starts in c1's last ones */
    for (size_t j = 1; j <= 2; j++)
        if (has(m->cuts->part, part_bit(PART_R, n1, c1, j, few(q, j))))
            x |= 4;
    if (n1 == 3)
        for (size_t k = 1; k <= 2; k++) {
            if (has(m->cuts->part, part_bit(PART_L, k, few(q - k, k), 3, c2)))
                x |= 2;
            for (size_t j = 1; j <= 2; j++)
                if (has(m->cuts->part, part_bit(PART_D, k, few(q - k, k), j, few(q, j))))
                    x |= 6;
        }
    return x;
}

/* A word of whole characters, the Cutter: the next place where nothing crosses; the
 * characters merged first are marked in `first` (x->rk, at their first byte: their
 * token, else -1), free until pieces merge: a piece is merged once its characters and
 * its end are known, over its own places. Its state runs on from the cut it returned:
 * the character at a cut is read before the cut is returned, so each call starts past
 * its segment's first character (han_cut_init reads the word's). */
typedef struct {
    const MergeTable *m;
    uint64_t *ch;
    int32_t *first;
    size_t i;        /* the next character to read */
    size_t at;       /* the character before i */
    size_t n1;       /* its bytes; 0: not ASCII nor 3 bytes (nothing cut or merged first) */
    uint32_t c1;     /* its code */
    int cut_in;      /* a token cuts it at its left boundary */
} HanCut;

/* the bytes of the character at w + i (one of 3: *c its code; ASCII: *c the byte; 0:
 * another, then *step its bytes) */
static inline size_t han_char(const unsigned char *w, size_t len, size_t i, uint32_t *c,
                              size_t *step)
{
    uint32_t c2 = i + 3 <= len ? char3(w + i) : 0;
    size_t n2 = c2 ? 3 : w[i] < 0x80 ? 1 : 0;
    *step = n2;
    if (!n2)
        for (*step = 1; i + *step < len && is_cont(w[i + *step]); ++*step)
            ;
    *c = n2 == 1 ? w[i] : c2;
    return n2;
}

static inline void han_cut_init(HanCut *c, const MergeTable *m, uint64_t *ch, int32_t *first,
                                const unsigned char *w, size_t len)
{
    size_t step;
    c->m = m, c->ch = ch, c->first = first, c->at = 0, c->cut_in = 0;
    c->n1 = han_char(w, len, 0, &c->c1, &step);
    c->i = step;
}

BPE_FORCE_INLINE size_t han_next(void *self, const unsigned char *w, size_t len, size_t start)
{
    HanCut *c = self;
    const MergeTable *m = c->m;
    int32_t *first = c->first;
    size_t i = c->i, at = c->at, n1 = c->n1, cut = len;
    uint32_t c1 = c->c1;
    int cut_in = c->cut_in;
    (void)start; /* (i > start: past the segment's first character) */
    while (i < len) {
        uint32_t c2;
        size_t step, n2 = han_char(w, len, i, &c2, &step);
        int x2 = (n1 && n2 == 3) ? crossing(m, w, i, c1, n1, c2) : 7;
        if (n1 == 3) /* the character before is merged first unless a token cuts it */
            first[at] = !cut_in && !(x2 & 2) ? merged_first(m, c->ch, c1) : -1;
        cut_in = (x2 & 4) != 0, c1 = c2, n1 = n2, at = i, i += step;
        if (!x2) {
            cut = at;
            break;
        }
    }
    if (cut == len && n1 == 3)
        first[at] = !cut_in ? merged_first(m, c->ch, c1) : -1;
    c->i = i, c->at = at, c->n1 = n1, c->c1 = c1, c->cut_in = cut_in;
    return cut;
}

/* the pieces' tokens, written in x moving left (put_piece) */
typedef struct {
    const MergeTable *m;
    MergeScratch *x;
    uint64_t *ch;
    const int32_t *first;
    int32_t limit;
    size_t out;
} HanPieces;

BPE_FORCE_INLINE int han_piece(void *ctx, const unsigned char *w, size_t len, size_t a,
                               size_t e)
{
    HanPieces *g = ctx;
    g->out = put_piece(g->m, g->x, g->ch, g->first, w, len, a, e - a, g->limit, g->out);
    return 0;
}

/* A word of whole characters: its pieces (han_next) merged */
static size_t merge_han(const MergeTable *m, MergeScratch *x, uint64_t *ch,
                        const unsigned char *w, size_t len, int32_t limit)
{
    HanCut cut;
    han_cut_init(&cut, m, ch, x->rk, w, len);
    HanPieces g = {m, x, ch, x->rk, limit, 0};
    segment_walk((Cutter){han_next, &cut}, han_piece, &g, w, len);
    return g.out;
}

/* A short word of characters of 3 and 4 bytes, perhaps after an ASCII byte (" 𠀀",
 * "-中", "𠀀𠀁": random text of every plane has ~30,000 such words in 2 MB, each merged
 * whole in ~450-800 instructions): its tokens character by character, as the long
 * words' characters get them, where each place between them is a sure cut (edge_cut)
 * and a 4-byte character's last byte stands alone. Returns the token count, or
 * (size_t)-1: merge it whole. No merge limit. (Not put_char: its 3-byte characters go
 * through the joins, the byte pairs and the cache of pieces, where one look-up in the
 * character table serves here; through put_char random Unicode took 5% more
 * instructions, 265M -> 280M an encode, callgrind.) */
static size_t short_word(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                         size_t len)
{
    size_t a = w[0] < 0x80, out = 0;
    uint64_t *pre = NULL, *ch = NULL;
    if (a) {
        if (len < 4 || w[1] < 0xE0 || !edge_cut(m, w, len, 1))
            return (size_t)-1;
        put_byte(m, x, w, 0, out++);
    }
    while (a < len) {
        size_t k = char_at(w, len, a), e = a + k;
        if (!k || (e < len && (w[e] < 0xE0 || !edge_cut(m, w, len, e))))
            return (size_t)-1; /* (a lead at e: its character has 3 bytes or more) */
        if (k == 4) {
            const uint64_t *t;
            if ((!pre && !(pre = prefixes_of(m))) || (t = prefix_entry(m, pre, w + a),
                                                      t[0] >> (w[a + 3] & 63) & 1 || !(t[1] & 3)))
                return (size_t)-1;
            out = put_three(m, x, t[1], w, a, out);
            put_byte(m, x, w, a + 3, out++);
        } else {
            uint32_t cp = char3(w + a);
            uint64_t c;
            if ((!ch && !(ch = chars_of(m))) || !cp || !((c = char_of(m, ch, cp)) & 3))
                return (size_t)-1;
            out = put_three(m, x, c, w, a, out);
        }
        a = e;
    }
    return out;
}

/* Other words, the Cutter: by byte windows (next_cut), but a character between two sure
 * cuts (edge_cut at a lead byte, else the framed windows) is a segment of its own, its
 * last byte perhaps alone (put_char), and a space before a word's letters is one. */
typedef struct {
    const MergeTable *m;
    uint64_t *pre;            /* the prefixes' table; NULL: not by character (a limit) */
    const unsigned char *pw;  /* the framed copy (next_cut_padded), made when first needed */
    size_t k;                 /* the segment returned: a character of k bytes; 0: not */
    unsigned char *framed;    /* room for it: PAD + PADDED_MAX + PAD bytes */
} WinCut;

/* the framed copy of the word, or NULL: too long for one */
static inline const unsigned char *win_framed(WinCut *c, const unsigned char *w, size_t len)
{
    if (c->pw || len > PADDED_MAX)
        return c->pw;
    memset(c->framed, 0xFF, PAD);
    memcpy(c->framed + PAD, w, len);
    memset(c->framed + PAD + len, 0xFF, PAD);
    return c->pw = c->framed + PAD;
}

BPE_FORCE_INLINE size_t win_next(void *self, const unsigned char *w, size_t len, size_t a)
{
    WinCut *c = self;
    const MergeTable *m = c->m;
    c->k = 0;
    if (a == 0 && c->pre && w[0] < 0x80 && len >= 3 && w[1] >= 0xC0 && edge_cut(m, w, len, 1))
        return 1; /* a space before */
    size_t k = c->pre ? char_at(w, len, a) : 0, e = a + k;
    if (k && (e == len || (e + 1 < len && w[e] >= 0xC0 && edge_cut(m, w, len, e)) ||
              (win_framed(c, w, len) && sure_cut(m, c->pw, len, e)))) {
        c->k = k;
        return e;
    }
    return win_framed(c, w, len) ? next_cut_padded(m, c->pw, len, a + 1)
                                 : next_cut(m, w, len, a + 1);
}

typedef struct {
    const MergeTable *m;
    MergeScratch *x;
    const WinCut *cut;
    uint64_t *ch;
    int32_t limit;
    size_t out;
} WinPieces;

BPE_FORCE_INLINE int win_piece(void *ctx, const unsigned char *w, size_t len, size_t a, size_t e)
{
    WinPieces *g = ctx;
    if (g->cut->k) /* (no merge limit: the prefixes' tokens are merged without one) */
        g->out = put_char(g->m, g->x, g->cut->pre, g->ch, w, len, a, e - a, g->out);
    else if (e == a + 1) /* a byte alone (most of random 4-byte characters): its token */
        put_byte(g->m, g->x, w, a, g->out++);
    else
        g->out = put_piece(g->m, g->x, NULL, NULL, w, len, a, e - a, g->limit, g->out);
    return 0;
}

size_t mt_merge_at_boundaries(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                              size_t len, int32_t limit, mt_merge_fn merge)
{
    /* (route.c's mt_boundaries_takes chose the word: which words this strategy takes is
     * decided there) */
    if (len < CUT_FROM)
        return short_word(m, x, w, len); /* (whole characters: nothing merged) */
    if (!x->pieces && !(x->pieces = calloc(1, sizeof *x->pieces)))
        return (size_t)-1; /* (given back: merged whole) */
    x->pieces->merge = merge;
    if (limit == NO_RANK && only_3byte(w + 1, len - 1)) {
        uint64_t *ch = chars_of(m);
        if (ch)
            return merge_han(m, x, ch, w, len, limit);
    }
    unsigned char framed[PAD + PADDED_MAX + PAD];
    WinCut cut = {m, limit == NO_RANK ? prefixes_of(m) : NULL, NULL, 0, framed};
    WinPieces g = {m, x, &cut, cut.pre ? chars_of(m) : NULL, limit, 0};
    segment_walk((Cutter){win_next, &cut}, win_piece, &g, w, len);
    return g.out;
}
