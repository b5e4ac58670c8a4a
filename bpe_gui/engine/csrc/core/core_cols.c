/*
 * core: columns (parity training; core.h, "Columns"; their heaps and batch are in
 * core_heap.c, their queries and check in core_cols_query.c) -- construction from
 * count tables: the union of their words, a count per column on each.
 */
#include "core/core.h"
#include "util/hash.h"

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

/* The pair counts are summed in a table of the pairs by a group of heaped columns (at
 * most this many entries: at the start the pairs are the bytes', at most 65536), then
 * made PCols once each, a group of columns at a time. */
#define DENSE_COUNTS ((int64_t)1 << 20)

/* The heaped columns' pair counts, every column's symbols, tsym. */
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
        for (int32_t i = x0; i < x0 + len; i++)
            c->tsym[c->sym[i]] += tf;
    }
    int64_t np = c->n_pairs > 0 ? c->n_pairs : 1;
    int32_t G = DENSE_COUNTS / np < H ? (int32_t)(DENSE_COUNTS / np) : H;
    if (G < 1)
        G = 1;
    int64_t *sums = (int64_t *)malloc((size_t)np * (size_t)G * sizeof(int64_t));
    if (!sums)
        return -1;
    for (int32_t g0 = 0; g0 < H; g0 += G) {
        int32_t g1 = g0 + G < H ? g0 + G : H;
        memset(sums, 0, (size_t)np * (size_t)G * sizeof(int64_t));
        for (int32_t w = 0; w < c->n_words; w++) {
            const ColEnt *e0 = c->wc + c->wc_start[w], *e1 = c->wc + c->wc_start[w + 1];
            int32_t x0 = word_cell(c, w), x1 = x0 + (int32_t)(c->starts[w + 1] - c->starts[w]);
            for (int32_t i = x0; i + 1 < x1; i++) {
                int32_t a = c->sym[i], b = c->sym[i + 1];
                int32_t p = a < c->dense_n && b < c->dense_n
                    ? c->dense[(int64_t)a * c->dense_n + b] : pair_find(c, a, b);
                for (const ColEnt *ce = e0; ce < e1; ce++)
                    if (ce->col >= g0 && ce->col < g1)
                        sums[(int64_t)p * G + (ce->col - g0)] += ce->cnt;
            }
        }
        for (int32_t p = 0; p < c->n_pairs; p++)
            for (int32_t h = g0; h < g1; h++) {
                int64_t n = sums[(int64_t)p * G + (h - g0)];
                if (!n)
                    continue;
                if (col_reserve_rows(c, 1) < 0) {
                    free(sums);
                    return -1;
                }
                pc_slot(c, p, h)->cnt = n;
            }
    }
    free(sums);
    /* a column's heap is built when the column is first read (col_sync): one whose
     * language never has a turn costs none */
    for (int32_t h = 0; h < H; h++)
        c->cheap[h].stale = 1;
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
