/*
 * small.c -- the merge of a short word (strategies.c, "small"): words of 2..MT_SMALL_MAX
 * symbols, which are most of the words a text brings to the word cache new.
 *
 * The word lives in fixed arrays on the stack, one slot per first symbol: its token, its
 * byte span, its neighbours, and the key of the pair it starts (rank << 5 | place, or
 * KEY_NONE when it starts no pair or was merged away). Each pair's rank is looked up
 * once, when the pair appears: at the start (raw bytes: the byte-pair table) and after
 * a merge only the two pairs the merge made (the merged symbol with its left and its
 * right neighbour). The lowest key is the lowest rank, leftmost (places < 32 are
 * distinct, ranks < 2**26), found over a fixed block of 16 or 32 keys. The merged
 * symbols are written back to the scratch once, at the end.
 *
 * Lookups: merge-based pairs past the pair filter, rank-based pairs of 2..8 bytes past
 * the short keys' filter, then the memo and the table (mt_rank_past_filter); no
 * prefetches (the two pairs a merge makes are asked one after the other, and the second
 * does not wait on the first's answer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/filters.h"
#include "merge/merge.h"
#include "util/portable.h"

#define KEY_NONE 0x7FFFFFFF

/* the bytes w[at..at+len) (2 <= len <= 8) as a little-endian number, in a word of wlen
 * bytes; one load of 8 bytes when the word has 8 */
static inline uint64_t pair_bytes(const unsigned char *w, size_t wlen, size_t at, size_t len)
{
    if (wlen >= 8) {
        unsigned s = (unsigned)(64 - 8 * len);
        int inside = at + 8 <= wlen;
        uint64_t v = load8(w + (inside ? at : at + len - 8));
        return (v << (inside ? s : 0)) >> s;
    }
    uint64_t v = 0;
    for (size_t k = 0; k < len; k++)
        v |= (uint64_t)w[at + k] << (8 * k);
    return v;
}

/* The rank (< limit, else NO_RANK) of merging tokens a and b, the bytes w[at..at+len)
 * together; the token it makes in *made. */
BPE_FORCE_INLINE int32_t small_rank(const MergeTable *m, const MergeScratch *x, int32_t a,
                                 int32_t b, const unsigned char *w, size_t wlen, size_t at,
                                 size_t len, int32_t limit, int32_t *made)
{
    uint64_t key = 0, mask;
    if (m->by_span) {
        if (len <= 8 && m->short_keys) {
            key = pair_bytes(w, wlen, at, len);
            if (m->short_filter) {
                size_t k = mt_filter_word(key ^ len, &mask);
                if ((m->short_filter[k] & mask) != mask)
                    return NO_RANK;
            }
        } else if (len > m->max_key) {
            return NO_RANK;
        }
    } else if (a >= 0 && b >= 0) {
        size_t k = mt_filter_word((uint64_t)(uint32_t)a << 32 | (uint32_t)b, &mask);
        if ((m->filter[k] & mask) != mask)
            return NO_RANK;
    }
    int32_t r, *seen = mt_memo_slot(x, a, b);
    if (mt_memo_hit(seen, a, b, limit, &r, made))
        return r;
    return mt_rank_past_filter(m, x, a, b, w, at, len, key, limit, made);
}

static inline int32_t small_key(int32_t r, int32_t i)
{
    return r == NO_RANK ? KEY_NONE : r << 5 | i;
}

size_t mt_merge_small(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                      const unsigned char *w, int flags)
{
    int32_t key[MT_SMALL_MAX], sym[MT_SMALL_MAX], made[MT_SMALL_MAX], st[MT_SMALL_MAX],
        en[MT_SMALL_MAX];
    int8_t nxt[MT_SMALL_MAX], prv[MT_SMALL_MAX];
    int spans = (flags & MT_SPANS) != 0, raw = (flags & MT_RAW) != 0;
    int given = spans || m->by_span; /* x->st, x->en hold the spans (rank-based: always) */
    int32_t in = (int32_t)n;
    size_t pad = n <= 16 ? 16 : MT_SMALL_MAX;
    size_t wlen = given ? (size_t)x->en[n - 1] : n;
    for (int32_t i = 0; i < in; i++) {
        sym[i] = x->sym[i];
        st[i] = given ? x->st[i] : i;
        en[i] = given ? x->en[i] : i + 1;
        nxt[i] = (int8_t)(i + 1);
        prv[i] = (int8_t)(i - 1);
    }
    for (int32_t i = 0; i + 1 < in; i++) {
        int32_t r;
        if (raw) {
            size_t b = (size_t)w[st[i]] << 8 | w[st[i + 1]];
            r = m->bytepair[b].rank;
            made[i] = m->bytepair[b].new_id;
            r = r < limit ? r : NO_RANK;
        } else {
            r = small_rank(m, x, sym[i], sym[i + 1], w, wlen, (size_t)st[i],
                           (size_t)(en[i + 1] - st[i]), limit, &made[i]);
        }
        key[i] = small_key(r, i);
    }
    for (size_t i = n - 1; i < pad; i++)
        key[i] = KEY_NONE;
    for (;;) {
        int32_t best = mt_min_key(key, pad);
        if (best == KEY_NONE)
            break;
        int32_t i = best & 31, j = nxt[i], q = nxt[j], p = prv[i];
        key[j] = KEY_NONE; /* merged away */
        sym[i] = made[i];
        en[i] = en[j];
        nxt[i] = (int8_t)q;
        int32_t r = NO_RANK;
        if (q < in) {
            prv[q] = (int8_t)i;
            r = small_rank(m, x, sym[i], sym[q], w, wlen, (size_t)st[i],
                           (size_t)(en[q] - st[i]), limit, &made[i]);
        }
        key[i] = small_key(r, i);
        if (p >= 0)
            key[p] = small_key(small_rank(m, x, sym[p], sym[i], w, wlen, (size_t)st[p],
                                          (size_t)(en[i] - st[p]), limit, &made[p]),
                               p);
    }
    size_t k = 0;
    for (int32_t i = 0; i < in; i = nxt[i], k++) {
        x->sym[k] = sym[i];
        if (spans) {
            x->st[k] = st[i];
            x->en[k] = en[i];
        }
    }
    return k;
}
