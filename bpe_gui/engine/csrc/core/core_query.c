/*
 * core: reading -- the best and the top pairs, the ties, the end of the lists of words
 * the last step touched (core_cols_query.c makes them), a word's symbols, every word's,
 * a pair's count. (The history of steps is
 * c->steps, a token's bytes c->tok_buf at c->tok_off: read in place.)
 */
#include "core/core.h"

static void pair_out(const BpeCore *c, int32_t pidx, BpePairCount *out)
{
    const Pair *p = &c->pairs[pidx];
    out->a = p->a;
    out->b = p->b;
    out->count = p->count;
}

int bpe_core_best(BpeCore *c, BpePairCount *out)
{
    fs_resolve_top(c);
    if (c->heap_n == 0 || c->heap[0].count <= 0)
        return 0;
    pair_out(c, c->heap[0].p, out);
    return 1;
}

/* pop up to k best pairs into out[], then push them back */
int64_t bpe_core_ranked(BpeCore *c, int64_t k, int same_count_only, BpePairCount *out)
{
    if (k <= 0 || c->heap_n == 0)
        return 0;
    if (k > c->heap_n)
        k = c->heap_n;
    int32_t *stash = (int32_t *)malloc((size_t)k * sizeof(int32_t));
    if (!stash)
        return -1;
    int64_t top = c->heap[0].count;
    int64_t m = 0;
    while (m < k && c->heap_n > 0) {
        fs_resolve_top(c);
        int32_t t = c->heap[0].p;
        if (same_count_only && c->pairs[t].count != top)
            break;
        heap_remove(c, t);
        stash[m++] = t;
    }
    for (int64_t i = 0; i < m; i++)
        pair_out(c, stash[i], &out[i]);
    for (int64_t i = 0; i < m; i++)
        heap_insert(c, stash[i]);
    free(stash);
    return m;
}

int64_t bpe_core_n_tied(const BpeCore *c)
{
    return c->heap_n == 0 ? 0 : hist_get(c, c->heap[0].count);
}

static int wordkey_cmp(const void *x, const void *y)
{
    const WordKey *p = (const WordKey *)x, *q = (const WordKey *)y;
    if (p->f != q->f)
        return p->f > q->f ? -1 : 1;
    return (p->w > q->w) - (p->w < q->w);
}

/* max-heap by "worse" (the worst of the kept words at the root) */
static void wordkey_sift(WordKey *h, int64_t i, int64_t n)
{
    WordKey x = h[i];
    for (;;) {
        int64_t ch = 2 * i + 1;
        if (ch >= n)
            break;
        if (ch + 1 < n && wordkey_cmp(&h[ch + 1], &h[ch]) > 0)
            ch++;
        if (wordkey_cmp(&h[ch], &x) <= 0)
            break;
        h[i] = h[ch];
        i = ch;
    }
    h[i] = x;
}

int64_t touched_ids(WordKey *ws, int64_t nd, int64_t limit, int32_t **out, int64_t *n_out)
{
    int64_t nd_sorted = nd;
    if (limit < 0)
        limit = 0;
    if (limit > nd)
        limit = nd;
    if (limit > 0 && limit * 4 < nd) {
        /* keep the `limit` best in a heap whose root is the worst of them */
        int64_t m = limit;
        for (int64_t i = m / 2; i-- > 0;)
            wordkey_sift(ws, i, m);
        for (int64_t i = m; i < nd; i++) {
            if (wordkey_cmp(&ws[i], &ws[0]) < 0) {
                ws[0] = ws[i];
                wordkey_sift(ws, 0, m);
            }
        }
        nd_sorted = m;
    }
    qsort(ws, (size_t)nd_sorted, sizeof(WordKey), wordkey_cmp);
    int32_t *ids = (int32_t *)malloc((size_t)(limit > 0 ? limit : 1) * sizeof(int32_t));
    if (!ids) {
        free(ws);
        return -1;
    }
    for (int64_t i = 0; i < limit; i++)
        ids[i] = ws[i].w;
    free(ws);
    *out = ids;
    *n_out = limit;
    return nd;
}

/* x: a token's first cell or a separator; the word's separator cell into *sep */
int32_t word_at(const BpeCore *c, int32_t x, int32_t *sep)
{
    const int32_t *sym = c->sym;
    for (int i = 0; i < 16; i++) {   /* near the word's end: its separator says */
        int32_t v = sym[x];
        if (v < 0) {
            *sep = x;
            return SEP_BASE - v;
        }
        x += c->span[v];
    }
    int32_t lo = 0, hi = c->n_words - 1;   /* the last word starting at or before x */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (word_cell(c, mid) <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    *sep = word_cell(c, lo + 1) - 1;
    return lo;
}

int64_t bpe_core_word(const BpeCore *c, int32_t w, int32_t *out)
{
    int64_t n = 0;
    for (int32_t i = word_cell(c, w); c->sym[i] >= 0; i = tok_after(c, i))
        out[n++] = c->sym[i];
    return n;
}

int64_t bpe_core_symbol_count(const BpeCore *c, int64_t t)
{
    return t < 0 || t >= c->n_tokens ? -1 : c->n_cols ? c->tsym[t] : c->symcount[t];
}

void bpe_core_history_columns(const BpeCore *c, int64_t start, int64_t *col)
{
    int64_t n = c->n_steps - start;
    for (int64_t i = 0; i < n; i++) {
        const StepRec *r = &c->steps[start + i];
        col[i] = r->a;
        col[n + i] = r->b;
        col[2 * n + i] = r->id;
        col[3 * n + i] = r->count;
        col[4 * n + i] = r->n_tied;
        col[5 * n + i] = r->merged;
        col[6 * n + i] = r->gone;
    }
}

void bpe_core_segmentation(const BpeCore *c, int32_t *sym, int64_t *st)
{
    int64_t k = 0;
    st[0] = 0;
    for (int32_t w = 0; w < c->n_words; w++) {
        for (int32_t i = word_cell(c, w); c->sym[i] >= 0; i = tok_after(c, i))
            sym[k++] = c->sym[i];
        st[w + 1] = k;
    }
}

int64_t bpe_core_pair_count(const BpeCore *c, int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a >= c->n_tokens || b >= c->n_tokens)
        return 0;
    int32_t p = pair_find(c, (int32_t)a, (int32_t)b);
    return p >= 0 ? c->pairs[p].count : 0;
}
