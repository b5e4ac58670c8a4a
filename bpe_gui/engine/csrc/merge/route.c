/*
 * route.c -- the one place that chooses how a word is merged (merge.h, "strategies"):
 * mt_route picks a strategy of the table in strategies.c for a word, and mt_merge and
 * mt_encode_bytes run what it picks, asking again, with the strategy left out, when one
 * gives the word back. The strategies live in merge.c (flat), small.c, reference.c and
 * token_boundaries.c;
 * none of them calls another, and none calls
 * back here: the pieces a word is cut into are merged through the function passed to
 * mt_merge_at_boundaries (mt_merge, from here), so no two files of the merge engine
 * depend on each other in a circle.
 *
 * Unforced (MT_AUTO), a word goes: whole when it is a token and the table takes whole
 * words (a rule, not a strategy: tiktoken's and ignore_merges'); non-ASCII words cut at
 * token boundaries; else its symbols by the
 * first that takes them of small, flat, and the reference.
 * Forced, the one strategy where it applies and the reference everywhere else.
 *
 * The table's life goes through here too (mt_add, mt_free), and a scratch's end
 * (ms_free): merge.c holds what every route needs, each strategy its own data, and this
 * file, which knows them all, tells each of a new merge and frees it; so merge.c calls no
 * strategy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

/* 1: the symbol strategy s can merge the n symbols of x (flags: MT_RAW, MT_SPANS) */
static int takes_symbols(int s, size_t n, int flags)
{
    switch (s) {
    case MT_SMALL:
        return n <= MT_SMALL_MAX;
    case MT_FLAT:
        return n <= MT_FLAT_MAX && (flags & MT_RAW) && mt_have_flat();
    case MT_REFERENCE:
        return 1;
    default:
        return 0;
    }
}

/* 1: every byte of p[0..n) (n >= 8) is >= 0x80 */
static int high_bytes(const unsigned char *p, size_t n)
{
    const uint64_t top = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        if ((load8(p + i) & top) != top)
            return 0;
    return (load8(p + n - 8) & top) == top;
}

/* 1: boundaries takes the byte-level word w[0..len): a table that knows every token's
 * bytes (sub2), a word of letters outside ASCII (Han, kana...), where tokens seldom cross
 * characters (ASCII words rarely have a cut). The tables know only the tokens with a
 * byte >= 0x80, so every byte but the first must be one. A short word only without a
 * limit (its characters' tokens are taken whole). A word of 2-byte letters (Cyrillic,
 * Greek, Arabic) is short and its tokens often cross them: looking for cuts there cost
 * more than it saved (callgrind, Russian); its first character or its last tells (random
 * text: a word that starts with a letter of 2 bytes is mostly of 3 and 4). */
static int boundaries_takes(const MergeTable *m, const unsigned char *w, size_t len,
                            int32_t limit)
{
    if (!m->bytes_ok || !m->cuts || len < 3 || w[len - 1] < 0x80)
        return 0;
    if (len < MT_CUT_FROM)
        return limit == NO_RANK;
    if (!high_bytes(w + 1, len - 1))
        return 0;
    return !((w[0] < 0x80 ? w[1] : w[0]) < 0xE0 && w[len - 3] < 0xE0 && w[len - 4] < 0xF0);
}

int mt_route(const MergeTable *m, int at, const unsigned char *w, size_t n, int flags,
             int32_t limit, unsigned declined)
{
    int f = m->strategy; /* MT_AUTO, or the one strategy forced */
#define OPEN(s) ((f == MT_AUTO || f == (s)) && !(declined >> (s) & 1))
    if (at == MT_AT_WORD) {
        return OPEN(MT_BOUNDARIES) && boundaries_takes(m, w, n, limit) ? MT_BOUNDARIES : MT_AUTO;
    }
    if (f != MT_AUTO) /* the forced one where it applies, else the reference */
        return OPEN(f) && takes_symbols(f, n, flags) ? f : MT_REFERENCE;
    static const int order[] = {MT_SMALL, MT_FLAT};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        if (OPEN(order[k]) && takes_symbols(order[k], n, flags))
            return order[k];
    return MT_REFERENCE;
#undef OPEN
}

static inline void note(const MergeTable *m, int s)
{
    if (m->strategy != MT_AUTO)
        mt_strategy_note(s);
}

/* One symbol strategy on the word: its length, or (size_t)-1 when it gave the word back
 * as it came. */
static size_t run_symbols(const MergeTable *m, MergeScratch *x, int s, size_t n, int32_t limit,
                          const unsigned char *w, int flags)
{
    switch (s) {
    case MT_SMALL:
        return mt_merge_small(m, x, n, limit, w, flags);
#if MT_HAVE_FLAT
    case MT_FLAT:
        return mt_merge_flat(m, x, n, limit, w, flags);
#endif
    default:
        return mt_merge_reference(m, x, n, limit, w, flags);
    }
}

static size_t merge_routed(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                           const unsigned char *w, int flags, unsigned declined)
{
    if (n < 2)
        return n;
    x->wlen = (flags & MT_SPANS) ? (size_t)x->en[n - 1] : 0; /* the word's bytes */
    mt_want_memo(m, x);
    if (!m->bytepair)
        flags &= ~MT_RAW;
    for (;;) {
        int s = mt_route(m, MT_AT_SYMBOLS, w, n, flags, limit, declined);
        size_t k = run_symbols(m, x, s, n, limit, w, flags);
        if (k != (size_t)-1) {
            note(m, s);
            return k;
        }
        declined |= 1u << s;
    }
}

size_t mt_merge(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                const unsigned char *w, int flags)
{
    return merge_routed(m, x, n, limit, w, flags, 0);
}

size_t mt_encode_bytes(const MergeTable *m, MergeScratch *x, const unsigned char *w, size_t len,
                       int32_t limit, int spans)
{
    if (ms_reserve(x, len) < 0)
        return (size_t)-1;
    spans = spans || m->by_span;
    if (m->whole_words && limit == NO_RANK && len >= 2) {
        int32_t id = mt_whole_word(m, w, len);
        if (id >= 0) {
            x->sym[0] = id;
            x->st[0] = 0;
            x->en[0] = (int32_t)len;
            return 1;
        }
    }
    if (mt_route(m, MT_AT_WORD, w, len, 0, limit, 0) == MT_BOUNDARIES) {
        mt_want_memo(m, x); /* cuts where no token crosses, each piece merged by mt_merge */
        size_t k = mt_merge_at_boundaries(m, x, w, len, limit, mt_merge);
        if (k != (size_t)-1) {
            note(m, MT_BOUNDARIES);
            return k;
        }
    }
    mt_raw_symbols(m, x, w, len, spans);
    return mt_merge(m, x, len, limit, w, (m->bytes_ok ? MT_RAW : 0) | (spans ? MT_SPANS : 0));
}

/* ---- the table's life: merge.c's table and every strategy's own data ---- */

int mt_add(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id, int replace)
{
    int rc = mt_table_add(m, a, b, rank, new_id, replace);
    if (m->cuts && (rc == 1 || (rc == 0 && replace))) /* (no thread merges while adding) */
        mt_cuts_merge_added(m->cuts, a, b, rank);
    return rc;
}

int mt_add_token(MergeTable *m, const unsigned char *p, size_t len, int32_t rank)
{
    return mt_cuts_add_token(m, p, len, rank); /* (only the boundaries strategy needs them) */
}

void mt_free(MergeTable *m)
{
    mt_cuts_free(m->cuts);
    mt_table_free(m);
}

void ms_free(MergeScratch *x)
{
    mt_pieces_free(x->pieces);
    ms_free_arrays(x);
    memset(x, 0, sizeof(*x));
}
