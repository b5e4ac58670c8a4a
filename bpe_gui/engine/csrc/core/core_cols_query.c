/*
 * core: a core with columns read (core.h, "Columns"): a column's best, top and tied
 * pairs, a pair's count there, the rows of a column (or the words) the last step
 * changed; and the columns checked against a recount (bpe_core_check calls it).
 */
#include "core/core.h"

/* ---- queries ---- */

BpePairCount *bpe_core_top(BpeCore *c, int32_t col, int64_t k, int same_count_only,
                           int64_t *m)
{
    if (col >= 0 && col_sync(c, col) < 0) /* (its heap's size, up to date) */
        return NULL;
    int64_t have = col < 0 ? c->heap_n : c->cheap[col].n;
    k = k < have ? k : have;
    BpePairCount *pairs = (BpePairCount *)malloc((size_t)(k > 0 ? k : 1) * sizeof(BpePairCount));
    *m = !pairs ? -1 : col < 0 ? bpe_core_ranked(c, k, same_count_only, pairs)
                               : bpe_core_col_ranked(c, col, k, same_count_only, pairs);
    if (*m < 0) {
        free(pairs);
        return NULL;
    }
    return pairs;
}

int32_t bpe_core_col_rows(const BpeCore *c, int32_t col, int32_t *rows)
{
    int32_t n = 0;
    for (int32_t w = 0; w < c->n_words; w++)
        for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++)
            if (c->wc[e].col == col && c->wc[e].row >= 0) {
                if (rows)
                    rows[c->wc[e].row] = w;
                n = c->wc[e].row + 1 > n ? c->wc[e].row + 1 : n;
            }
    return n;
}

static void pair_of(const BpeCore *c, const HEnt *e, BpePairCount *out)
{
    out->a = c->pairs[e->p].a;
    out->b = c->pairs[e->p].b;
    out->count = e->count;
}

int bpe_core_col_best(BpeCore *c, int32_t col, BpePairCount *out)
{
    if (col_sync(c, col) < 0)
        return -1;
    const ColHeap *hp = &c->cheap[col];
    if (hp->n == 0)
        return 0;
    pair_of(c, &hp->h[0], out);
    return 1;
}

int64_t bpe_core_col_ranked(BpeCore *c, int32_t col, int64_t k, int same_count_only,
                            BpePairCount *out)
{
    if (col_sync(c, col) < 0)
        return -1;
    ColHeap *hp = &c->cheap[col];
    if (k > hp->n)
        k = hp->n;
    if (k <= 0)
        return 0;
    int32_t *stash = (int32_t *)malloc((size_t)k * sizeof(int32_t));
    if (!stash)
        return -1;
    int64_t top = hp->h[0].count, m = 0;
    while (m < k && hp->n > 0) {
        if (same_count_only && hp->h[0].count != top)
            break;
        pair_of(c, &hp->h[0], &out[m]);
        stash[m] = hp->h[0].p;
        cremove(c, col, stash[m++]);
    }
    for (int64_t i = 0; i < m; i++)   /* (back where they were: the room is theirs) */
        cinsert(c, col, stash[i]);
    free(stash);
    return m;
}

int64_t bpe_core_col_n_tied(BpeCore *c, int32_t col)
{
    if (col_sync(c, col) < 0)
        return -1;
    const ColHeap *hp = &c->cheap[col];
    int64_t n = 0;
    for (int32_t i = 0; i < hp->n; i++)
        n += hp->h[i].count == hp->h[0].count;
    return n;
}

int64_t bpe_core_col_pair_count(const BpeCore *c, int32_t col, int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a >= c->n_tokens || b >= c->n_tokens)
        return 0;
    int32_t p = pair_find(c, (int32_t)a, (int32_t)b);
    return p >= 0 ? pc_count(c, p, col) : 0;
}

int64_t bpe_core_col_touched(const BpeCore *c, int32_t col, int64_t limit, int32_t **out,
                             int64_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (c->n_steps == 0)
        return 0;
    const StepRec *r = &c->steps[c->n_steps - 1];
    int64_t k = c->rlog_n - r->rstart;
    WordKey *ks = (WordKey *)malloc((size_t)(k > 0 ? k : 1) * sizeof(WordKey));
    if (!ks)
        return -1;
    int64_t nd = 0;
    int32_t last = -1;
    const int32_t sa = c->span[r->a];
    for (int64_t i = r->rstart; i < c->rlog_n; i++) {
        int32_t sep, w = word_at(c, c->rlog[i] - sa, &sep);   /* the new token's first cell */
        if (w == last)
            continue;
        last = w;
        if (col < 0) {   /* the words themselves, by their frequencies */
            ks[nd].f = c->freq[w];
            ks[nd++].w = w;
            continue;
        }
        for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++)
            if (c->wc[e].col == col) {
                ks[nd].f = c->wc[e].cnt;
                ks[nd++].w = c->wc[e].row;
            }
    }
    return touched_ids(ks, nd, limit, out, n_out);
}

/* ---- check ---- */

static const char *col_heaps_ok(const BpeCore *c)
{
    int32_t H = c->n_heaped;
    for (int32_t h = 0; h < H; h++) {
        const ColHeap *hp = &c->cheap[h];
        int64_t live = 0;
        for (int32_t p = 0; p < c->n_pairs; p++) {
            const PCol *e = pc_find(c, p, h);
            int64_t cnt = e ? e->cnt : 0;
            int32_t at = e ? e->hpos : -1;
            if (e && e->col != (c->pcol[p].col <= -2 ? h : c->pcol[p].col))
                return "a pair's column entry names another column";
            if (cnt < 0)
                return "negative column count";
            if (c->pairs[p].count == 0 && cnt != 0)
                return "a column counts a pair that does not occur";
            if ((cnt > 0) != (at >= 0))
                return "pair with a column count > 0 not in that column's heap (or the reverse)";
            if (at >= 0 && (at >= hp->n || hp->h[at].p != p || hp->h[at].count != cnt))
                return "bad column heap entry";
            live += cnt > 0;
        }
        if (live != hp->n)
            return "column heap size";
        for (int32_t i = 1; i < hp->n; i++)
            if (better(c, &hp->h[i], &hp->h[(i - 1) / 2]))
                return "column heap order";
    }
    return NULL;
}

const char *bpe_core_col_check(const BpeCore *c, int *is_mem)
{
    *is_mem = 0;
    const char *err = col_heaps_ok(c);
    if (err)
        return err;
    int32_t H = c->n_heaped;
    int64_t *pc = (int64_t *)calloc((size_t)c->n_pairs * (size_t)H + 1, sizeof(int64_t));
    int64_t *cs = (int64_t *)calloc((size_t)c->n_cols + 1, sizeof(int64_t));
    int64_t *ts = (int64_t *)calloc((size_t)c->n_tokens + 1, sizeof(int64_t));
    if (!pc || !cs || !ts) {
        free(pc);
        free(cs);
        free(ts);
        *is_mem = 1;
        return "out of memory";
    }
    for (int32_t w = 0; w < c->n_words && !err; w++) {
        int64_t tf = 0, sum = 0;
        for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++) {
            if (c->wc[e].col < c->n_train)
                tf += c->wc[e].cnt;
            if (c->n_heaped == c->n_train || c->wc[e].col != c->n_train)
                sum += c->wc[e].cnt;
        }
        if (sum != c->freq[w])
            err = "a word's count is not the sum of its text columns";
        for (int32_t i = word_cell(c, w); c->sym[i] >= 0 && !err; i = tok_after(c, i)) {
            int32_t t = c->sym[i], nx = tok_after(c, i);
            ts[t] += tf;
            for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++)
                cs[c->wc[e].col] += c->wc[e].cnt;
            if (c->sym[nx] < 0)
                continue;
            int64_t p = pair_find(c, t, c->sym[nx]);
            for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++)
                if (c->wc[e].col < H)
                    pc[p * H + c->wc[e].col] += c->wc[e].cnt;
        }
    }
    for (int64_t i = 0; i < (int64_t)c->n_pairs * H && !err; i++)
        if (c->pairs[i / H].count > 0 && pc[i] != pc_count(c, (int32_t)(i / H), (int32_t)(i % H)))
            err = "a column's pair count differs from a recount";
    for (int32_t k = 0; k < c->n_cols && !err; k++)
        if (cs[k] != c->col_syms[k])
            err = "a column's symbols differ from a recount";
    for (int32_t t = 0; t < c->n_tokens && !err; t++)
        if (ts[t] != c->tsym[t])
            err = "a token's training occurrences differ from a recount";
    free(pc);
    free(cs);
    free(ts);
    return err;
}
