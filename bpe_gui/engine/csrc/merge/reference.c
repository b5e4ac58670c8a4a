/*
 * reference.c -- the reference merge: the rule itself with no special case, the route
 * every word can take and the oracle the other strategies are tested against
 * (BPE_GUI_MERGE=reference).
 *
 * Rule: merge the pair of lowest rank, the leftmost among equals, until no pair of rank
 * < limit is left. Symbols sit in a linked list over their first places; every pair with
 * a rank goes into a binary heap as rank << 32 | place, so the heap's top is the lowest
 * rank, leftmost. An entry is current when the pair at its place still has its rank
 * (rk[i] == rank) and its place was not merged away: a pair's rank is set, and pushed,
 * whenever its neighbours change, so every current pair has an entry, and an entry whose
 * rank matches the pair at its place stands for that pair whatever pushed it. A word of n
 * symbols pushes at most n + 2 (n - 1) entries (x->heap has room for 3n) and costs
 * O(n log n). A merge's token is its rank's (the merge table's rank -> token; rank-based:
 * the rank is the token).
 *
 * Lookups are the plain ones: merge-based tables find (a, b) in the merge table
 * (mt_find); rank-based tables ask key_id for the bytes of the two symbols together
 * (the token's id is its rank and the new token). No byte-pair table, memo, filter or
 * short-key table: those are the other strategies' business.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

/* the rank (< limit, else NO_RANK) of merging symbols i and j */
static int32_t ref_rank(const MergeTable *m, const MergeScratch *x, int32_t i, int32_t j,
                        const unsigned char *w, int32_t limit)
{
    int32_t r = -1;
    if (m->by_span) {
        size_t len = (size_t)(x->en[j] - x->st[i]);
        if (len <= m->max_key)
            r = m->key_id(m->key_ctx, w + x->st[i], len);
    } else {
        const MergeEntry *e = mt_find(m, x->sym[i], x->sym[j]);
        r = e ? e->rank : -1;
    }
    return r >= 0 && r < limit ? r : NO_RANK;
}

/* the token a merge of rank r makes: the rank's token (rank-based: rank == id) */
static int32_t ref_made(const MergeTable *m, int32_t r)
{
    return m->by_span ? r : m->rank_new[r];
}

static void push(uint64_t *h, size_t *len, uint64_t v)
{
    size_t i = (*len)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p] <= v)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static uint64_t pop(uint64_t *h, size_t *len)
{
    uint64_t top = h[0], v = h[--(*len)];
    size_t i = 0, n = *len;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] < h[c])
            c++;
        if (v <= h[c])
            break;
        h[i] = h[c];
        i = c;
    }
    if (n)
        h[i] = v;
    return top;
}

size_t mt_merge_reference(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                          const unsigned char *w, int flags)
{
    int32_t *s = x->sym, *rk = x->rk, *nxt = x->nxt, *prv = x->prv, *st = x->st, *en = x->en;
    int spans = (flags & MT_SPANS) != 0;
    uint64_t *h = x->heap;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        nxt[i] = i + 1 < n ? (int32_t)(i + 1) : -1;
        prv[i] = (int32_t)i - 1;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        rk[i] = ref_rank(m, x, (int32_t)i, (int32_t)i + 1, w, limit);
        if (rk[i] != NO_RANK)
            push(h, &hn, (uint64_t)rk[i] << 32 | i);
    }
    rk[n - 1] = NO_RANK;
    while (hn) {
        uint64_t top = pop(h, &hn);
        int32_t r = (int32_t)(top >> 32), i = (int32_t)(uint32_t)top;
        if (rk[i] != r || prv[i] == -2)
            continue; /* not current */
        int32_t j = nxt[i];
        s[i] = ref_made(m, r);
        prv[j] = -2; /* merged away */
        rk[j] = NO_RANK;
        if (spans || m->by_span)
            en[i] = en[j];
        nxt[i] = nxt[j];
        if (nxt[j] >= 0)
            prv[nxt[j]] = i;
        rk[i] = nxt[i] >= 0 ? ref_rank(m, x, i, nxt[i], w, limit) : NO_RANK;
        if (rk[i] != NO_RANK)
            push(h, &hn, (uint64_t)rk[i] << 32 | (uint32_t)i);
        int32_t p = prv[i];
        if (p >= 0) {
            rk[p] = ref_rank(m, x, p, i, w, limit);
            if (rk[p] != NO_RANK)
                push(h, &hn, (uint64_t)rk[p] << 32 | (uint32_t)p);
        }
    }
    size_t k = 0;
    for (int32_t i = 0; i >= 0; i = nxt[i], k++) {
        s[k] = s[i];
        if (spans) {
            st[k] = st[i];
            en[k] = en[i];
        }
    }
    return k;
}
