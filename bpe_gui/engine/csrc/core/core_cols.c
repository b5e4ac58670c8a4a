/*
 * core: columns (parity training; core.h, "Columns") -- the heaps of the heaped columns
 * and their batch, construction from count tables (the union of their words, a count
 * per column on each), the columns' queries and their check against a recount.
 */
#include "core/core.h"
#include "util/hash.h"

/* ---- the columns' heaps (the main heap's order: better() of core.h) ---- */

static inline int32_t *hpos_of(BpeCore *c, int32_t p, int32_t col)
{
    return &c->phpos[(int64_t)p * c->n_heaped + col];
}

static void csift_up(BpeCore *c, int32_t col, int32_t i)
{
    HEnt *h = c->cheap[col].h;
    HEnt x = h[i];
    while (i > 0) {
        int32_t par = (i - 1) >> 1;
        if (!better(c, &x, &h[par]))
            break;
        h[i] = h[par];
        *hpos_of(c, h[i].p, col) = i;
        i = par;
    }
    h[i] = x;
    *hpos_of(c, x.p, col) = i;
}

static void csift_down(BpeCore *c, int32_t col, int32_t i)
{
    HEnt *h = c->cheap[col].h;
    int32_t n = c->cheap[col].n;
    HEnt x = h[i];
    for (;;) {
        int32_t ch = 2 * i + 1;
        if (ch >= n)
            break;
        if (ch + 1 < n && better(c, &h[ch + 1], &h[ch]))
            ch++;
        if (!better(c, &h[ch], &x))
            break;
        h[i] = h[ch];
        *hpos_of(c, h[i].p, col) = i;
        i = ch;
    }
    h[i] = x;
    *hpos_of(c, x.p, col) = i;
}

static inline void cset(BpeCore *c, int32_t col, HEnt *e, int32_t p)
{
    e->p = p;
    e->count = c->pcnt[(int64_t)p * c->n_heaped + col];
    e->first = 0;
}

/* (room reserved: col_reserve) */
static void cinsert(BpeCore *c, int32_t col, int32_t p)
{
    int32_t i = c->cheap[col].n++;
    cset(c, col, &c->cheap[col].h[i], p);
    csift_up(c, col, i);
}

static void cremove(BpeCore *c, int32_t col, int32_t p)
{
    ColHeap *hp = &c->cheap[col];
    int32_t i = *hpos_of(c, p, col);
    HEnt last = hp->h[--hp->n];
    *hpos_of(c, p, col) = -1;
    if (i < hp->n) {
        hp->h[i] = last;
        *hpos_of(c, last.p, col) = i;
        csift_up(c, col, i);
        if (*hpos_of(c, last.p, col) == i)
            csift_down(c, col, i);
    }
}

static void cfix(BpeCore *c, int32_t col, int32_t p)
{
    int32_t i = *hpos_of(c, p, col);
    cset(c, col, &c->cheap[col].h[i], p);
    csift_up(c, col, i);
    if (*hpos_of(c, p, col) == i)
        csift_down(c, col, i);
}

int col_grow_pairs(BpeCore *c)
{
    size_t n = (size_t)c->pairs_cap, H = (size_t)c->n_heaped;
    if (big_grow((void **)&c->pcnt, c->pcol_cap * H * sizeof(int64_t), n * H * sizeof(int64_t)) < 0)
        return -1;
    if (big_grow((void **)&c->phpos, c->pcol_cap * H * sizeof(int32_t), n * H * sizeof(int32_t)) < 0)
        return -1;   /* (pcnt is larger, pcol_cap unchanged: the next try grows both) */
    c->pcol_cap = n;
    return 0;
}

int col_reserve(BpeCore *c, int64_t nt)
{
    for (int32_t h = 0; h < c->n_heaped; h++) {
        ColHeap *hp = &c->cheap[h];
        if (bpe_grow((void **)&hp->h, &hp->cap, (size_t)hp->n + (size_t)nt, sizeof(HEnt), 64) < 0)
            return -1;
    }
    return 0;
}

/* Every pair the batch touched: its place in each column's heap, from its count there
 * now (keys are snapshots: each fix sees the others' keys as they were). */
void col_batch_end(BpeCore *c)
{
    int32_t H = c->n_heaped;
    c->n_last_touched = c->n_touched;
    for (int64_t i = 0; i < c->n_touched; i++) {
        int32_t pidx = c->touched[i].p;
        Pair *p = &c->pairs[pidx];
        p->in_batch = 0;
        const int64_t *pc = c->pcnt + (int64_t)pidx * H;
        int32_t *ph = c->phpos + (int64_t)pidx * H;
        for (int32_t h = 0; h < H; h++) {
            if (pc[h] > 0 && ph[h] < 0)
                cinsert(c, h, pidx);
            else if (pc[h] == 0 && ph[h] >= 0)
                cremove(c, h, pidx);
            else if (ph[h] >= 0 && c->cheap[h].h[ph[h]].count != pc[h])
                cfix(c, h, pidx);
        }
        if (p->count == 0) {   /* it no longer occurs (no column counts it either) */
            if (p->cap > INLINE_CAP)
                c->freed_bytes += (int64_t)p->cap * 4;
            pos_free(p);
            p->dirty = 0;
            pair_drop(c, pidx);
        }
    }
    c->n_touched = 0;
}

/* ---- construction from count tables ---- */

typedef struct {
    int32_t w;
    ColEnt e;
} RowEnt;

/* The union of the tables' words: each row's word number into rows[], the words' bytes
 * (first seen) into *wsrc / *wlen. Returns the number of words, -1 out of memory. */
static int64_t unify(const BpeTable *t, int32_t n_tables, int64_t n_rows, int32_t *rows,
                     const unsigned char ***wsrc, int64_t **wlen)
{
    int bits = 4;
    while (((int64_t)1 << bits) < 2 * n_rows)
        bits++;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    int32_t *slot = (int32_t *)malloc(((size_t)1 << bits) * sizeof(int32_t));
    *wsrc = (const unsigned char **)malloc((size_t)(n_rows + 1) * sizeof(unsigned char *));
    *wlen = (int64_t *)malloc((size_t)(n_rows + 1) * sizeof(int64_t));
    if (!slot || !*wsrc || !*wlen) {
        free(slot);
        return -1;
    }
    memset(slot, 0xff, ((size_t)1 << bits) * sizeof(int32_t));
    int64_t nw = 0, r = 0;
    for (int32_t ti = 0; ti < n_tables; ti++)
        for (int64_t i = 0; i < t[ti].n; i++, r++) {
            const unsigned char *s = t[ti].blob + t[ti].starts[i];
            int64_t len = t[ti].starts[i + 1] - t[ti].starts[i];
            uint64_t j = bpe_hash_bytes(s, (size_t)len) & mask;
            for (;; j = (j + 1) & mask) {
                int32_t v = slot[j];
                if (v < 0) {
                    slot[j] = (int32_t)nw;
                    (*wsrc)[nw] = s;
                    (*wlen)[nw] = len;
                    rows[r] = (int32_t)nw++;
                    break;
                }
                if ((*wlen)[v] == len && memcmp((*wsrc)[v], s, (size_t)len) == 0) {
                    rows[r] = v;
                    break;
                }
            }
        }
    free(slot);
    return nw;
}

static const char *check_tables(const BpeTable *t, int32_t n_tables, int64_t *n_rows)
{
    *n_rows = 0;
    for (int32_t ti = 0; ti < n_tables; ti++) {
        if (t[ti].starts[0] != 0 || t[ti].starts[t[ti].n] > t[ti].blob_len)
            return "a table's starts must begin with 0 and end within its words' bytes";
        for (int64_t i = 0; i < t[ti].n; i++) {
            if (t[ti].starts[i + 1] < t[ti].starts[i])
                return "a table's starts must be non-decreasing";
            if (t[ti].counts[i] < 1)
                return "a table's counts must be >= 1";
        }
        *n_rows += t[ti].n;
    }
    if (*n_rows >= MAX_IDS)
        return "too many words (at most 2**30 rows in all)";
    return NULL;
}

/* Each word's entries (CSR: wc_start, wc) from the rows' (word, column entry), ordered
 * by word, then as given (so by column); and freq = the sum over the text columns. */
static int word_entries(BpeCore *c, const RowEnt *re, int64_t n_ent, int32_t n_words)
{
    c->wc_start = (int64_t *)calloc((size_t)n_words + 2, sizeof(int64_t));
    c->wc = (ColEnt *)malloc((size_t)(n_ent > 0 ? n_ent : 1) * sizeof(ColEnt));
    if (!c->wc_start || !c->wc)
        return -1;
    for (int64_t i = 0; i < n_ent; i++)
        c->wc_start[re[i].w + 2]++;
    for (int32_t w = 0; w < n_words; w++)
        c->wc_start[w + 2] += c->wc_start[w + 1];
    for (int64_t i = 0; i < n_ent; i++)
        c->wc[c->wc_start[re[i].w + 1]++] = re[i].e;
    return 0;
}

/* The heaped columns' pair counts, every column's symbols, tsym; then their heaps. */
static int col_count(BpeCore *c)
{
    int32_t H = c->n_heaped;
    for (int32_t w = 0; w < c->n_words; w++) {
        int32_t x0 = word_cell(c, w), len = (int32_t)(c->starts[w + 1] - c->starts[w]);
        int64_t tf = 0;
        for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++) {
            const ColEnt *ce = &c->wc[e];
            c->col_syms[ce->col] += ce->cnt * len;
            if (ce->col < c->n_train)
                tf += ce->cnt;
        }
        for (int32_t i = x0; i < x0 + len; i++) {
            c->tsym[c->sym[i]] += tf;
            if (i + 1 == x0 + len)
                break;
            int64_t p = pair_find(c, c->sym[i], c->sym[i + 1]);
            for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++)
                if (c->wc[e].col < H)
                    c->pcnt[p * H + c->wc[e].col] += c->wc[e].cnt;
        }
    }
    for (int32_t h = 0; h < H; h++) {
        ColHeap *hp = &c->cheap[h];
        hp->cap = (size_t)c->n_pairs + 64;
        hp->h = (HEnt *)malloc(hp->cap * sizeof(HEnt));
        if (!hp->h)
            return -1;
        hp->n = 0;
        for (int32_t p = 0; p < c->n_pairs; p++)
            if (c->pcnt[(int64_t)p * H + h] > 0) {
                *hpos_of(c, p, h) = hp->n;
                cset(c, h, &hp->h[hp->n++], p);
            }
        for (int32_t i = hp->n / 2 - 1; i >= 0; i--)
            csift_down(c, h, i);
    }
    return 0;
}

const char *bpe_core_build_tables(BpeCore *c, const BpeTable *tables, int32_t n_tables,
                                  int32_t n_train, int with_sum, int *is_mem)
{
    *is_mem = 0;
    int64_t n_rows;
    const char *msg = check_tables(tables, n_tables, &n_rows);
    if (msg)
        return msg;
    if (n_train < 0 || n_train > n_tables)
        return "n_train must be between 0 and the number of tables";
    c->n_train = n_train;
    c->n_heaped = n_train + (with_sum ? 1 : 0);
    c->n_cols = n_tables + (with_sum ? 1 : 0);
    c->col_syms = (int64_t *)calloc((size_t)c->n_cols, sizeof(int64_t));
    c->cheap = (ColHeap *)calloc((size_t)(c->n_heaped > 0 ? c->n_heaped : 1), sizeof(ColHeap));
    if (!c->col_syms || !c->cheap || bpe_core_reserve_tokens(c, 257, 257) < 0)
        goto nomem;
    for (int i = 0; i < 256; i++) {
        char b = (char)i;
        bpe_core_add_token(c, &b, 1);
    }
    int32_t *rows = (int32_t *)malloc((size_t)(n_rows + 1) * sizeof(int32_t));
    const unsigned char **wsrc = NULL;
    int64_t *wlen = NULL;
    RowEnt *re = NULL;
    unsigned char *symbols = NULL;
    int64_t *starts = NULL, *freqs = NULL;
    int64_t nw = rows ? unify(tables, n_tables, n_rows, rows, &wsrc, &wlen) : -1;
    re = (RowEnt *)malloc((size_t)(n_rows + nw + 1) * sizeof(RowEnt));
    if (nw < 0 || !re)
        goto nomem_free;
    /* the rows' entries, table by table; the sum column's after the training tables */
    int64_t n_ent = 0, r = 0;
    int64_t *tf = NULL;
    for (int32_t ti = 0; ti < n_tables; ti++) {
        if (ti == n_train && with_sum) {
            tf = (int64_t *)calloc((size_t)nw + 1, sizeof(int64_t));
            if (!tf)
                goto nomem_free;
            for (int64_t e = 0; e < n_ent; e++)
                tf[re[e].w] += re[e].e.cnt;
            for (int64_t w = 0; w < nw; w++)
                if (tf[w] > 0) {
                    re[n_ent].w = (int32_t)w;
                    re[n_ent].e.col = n_train;
                    re[n_ent].e.row = -1;
                    re[n_ent++].e.cnt = tf[w];
                }
            free(tf);
        }
        int32_t col = ti < n_train ? ti : c->n_heaped + (ti - n_train);
        for (int64_t i = 0; i < tables[ti].n; i++, r++) {
            re[n_ent].w = rows[r];
            re[n_ent].e.col = col;
            re[n_ent].e.row = (int32_t)i;
            re[n_ent++].e.cnt = tables[ti].counts[i];
        }
    }
    if (n_tables == n_train && with_sum) {   /* (no dev tables: the sum column last) */
        tf = (int64_t *)calloc((size_t)nw + 1, sizeof(int64_t));
        if (!tf)
            goto nomem_free;
        for (int64_t e = 0; e < n_ent; e++)
            tf[re[e].w] += re[e].e.cnt;
        for (int64_t w = 0; w < nw; w++) {
            re[n_ent].w = (int32_t)w;
            re[n_ent].e.col = n_train;
            re[n_ent].e.row = -1;
            re[n_ent++].e.cnt = tf[w];
        }
        free(tf);
    }
    /* the words' symbols (their bytes) and counts over the text columns */
    int64_t n_sym = 0;
    for (int64_t w = 0; w < nw; w++)
        n_sym += wlen[w];
    if (n_sym + nw >= INT32_MAX - 1) {
        msg = "too many symbols or words (symbols + words below 2**31 - 2)";
        goto fail_free;
    }
    symbols = (unsigned char *)malloc((size_t)n_sym + 1);
    starts = (int64_t *)malloc((size_t)(nw + 1) * sizeof(int64_t));
    freqs = (int64_t *)calloc((size_t)nw + 1, sizeof(int64_t));
    if (!symbols || !starts || !freqs)
        goto nomem_free;
    starts[0] = 0;
    for (int64_t w = 0; w < nw; w++) {
        memcpy(symbols + starts[w], wsrc[w], (size_t)wlen[w]);
        starts[w + 1] = starts[w] + wlen[w];
    }
    for (int64_t e = 0; e < n_ent; e++)
        if (re[e].e.col != n_train || !with_sum)
            freqs[re[e].w] += re[e].e.cnt;
    free(rows);
    rows = NULL;
    free(wsrc);
    wsrc = NULL;
    free(wlen);
    wlen = NULL;
    if (word_entries(c, re, n_ent, (int32_t)nw) < 0)
        goto nomem_free;
    free(re);
    re = NULL;
    msg = core_build_any(c, NULL, symbols, (int32_t)n_sym, starts, freqs, (int32_t)nw, is_mem);
    free(symbols);
    free(starts);
    free(freqs);
    if (msg)
        return msg;
    if (col_count(c) < 0)
        goto nomem;
    return NULL;
nomem_free:
    msg = "out of memory";
    *is_mem = 1;
fail_free:
    free(rows);
    free(wsrc);
    free(wlen);
    free(re);
    free(symbols);
    free(starts);
    free(freqs);
    return msg;
nomem:
    *is_mem = 1;
    return "out of memory";
}

/* ---- queries ---- */

static void pair_of(const BpeCore *c, const HEnt *e, BpePairCount *out)
{
    out->a = c->pairs[e->p].a;
    out->b = c->pairs[e->p].b;
    out->count = e->count;
}

int bpe_core_col_best(const BpeCore *c, int32_t col, BpePairCount *out)
{
    const ColHeap *hp = &c->cheap[col];
    if (hp->n == 0)
        return 0;
    pair_of(c, &hp->h[0], out);
    return 1;
}

int64_t bpe_core_col_ranked(BpeCore *c, int32_t col, int64_t k, int same_count_only,
                            BpePairCount *out)
{
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

int64_t bpe_core_col_n_tied(const BpeCore *c, int32_t col)
{
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
    return p >= 0 ? c->pcnt[(int64_t)p * c->n_heaped + col] : 0;
}

typedef struct {
    int64_t cnt;
    int32_t row;
} RowKey;

static int rowkey_cmp(const void *x, const void *y)
{
    const RowKey *p = (const RowKey *)x, *q = (const RowKey *)y;
    if (p->cnt != q->cnt)
        return p->cnt > q->cnt ? -1 : 1;
    return (p->row > q->row) - (p->row < q->row);
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
    RowKey *ks = (RowKey *)malloc((size_t)(k > 0 ? k : 1) * sizeof(RowKey));
    if (!ks)
        return -1;
    int64_t nd = 0;
    int32_t last = -1;
    const int32_t sa = c->span[r->a];
    for (int64_t i = r->rstart; i < c->rlog_n; i++) {
        int32_t sep, w = word_at(c, c->rlog[i] - sa, &sep);
        if (w == last)
            continue;
        last = w;
        for (int64_t e = c->wc_start[w]; e < c->wc_start[w + 1]; e++)
            if (c->wc[e].col == col) {
                ks[nd].cnt = c->wc[e].cnt;
                ks[nd++].row = c->wc[e].row;
            }
    }
    qsort(ks, (size_t)nd, sizeof(RowKey), rowkey_cmp);
    if (limit > nd)
        limit = nd;
    if (limit < 0)
        limit = 0;
    int32_t *ids = (int32_t *)malloc((size_t)(limit > 0 ? limit : 1) * sizeof(int32_t));
    if (!ids) {
        free(ks);
        return -1;
    }
    for (int64_t i = 0; i < limit; i++)
        ids[i] = ks[i].row;
    free(ks);
    *out = ids;
    *n_out = limit;
    return nd;
}

/* ---- check ---- */

static const char *col_heaps_ok(const BpeCore *c)
{
    int32_t H = c->n_heaped;
    for (int32_t h = 0; h < H; h++) {
        const ColHeap *hp = &c->cheap[h];
        int64_t live = 0;
        for (int32_t p = 0; p < c->n_pairs; p++) {
            int64_t cnt = c->pcnt[(int64_t)p * H + h];
            int32_t at = c->phpos[(int64_t)p * H + h];
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
        if (c->pairs[i / H].count > 0 && pc[i] != c->pcnt[i])
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
