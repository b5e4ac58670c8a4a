/*
 * core: a full consistency check of the structures against a recount (Core._check(), which
 * tests call after every operation; tests/c/core_driver.c after every step), and the
 * structures' sizes (Core._stats(), for benchmarks).
 */
#include "core/core.h"

const char *bpe_core_check(const BpeCore *c, int *is_mem)
{
    *is_mem = 0;
    const char *err = NULL;
    int64_t live = 0;
    for (int32_t j = 0; j < c->n_pairs && !err; j++) {
        const Pair *p = &c->pairs[j];
        if (p->count < 0 || p->nocc < 0)
            err = "negative count";
        else if (!c->n_cols && (p->count > 0) != (p->hpos >= 0))   /* (columns: no main heap) */
            err = "pair with count > 0 not in heap (or the reverse)";
        else if (p->hpos >= 0 && (p->hpos >= c->heap_n || c->heap[p->hpos].p != j))
            err = "bad heap position";
        else if (p->hpos >= 0 && (c->heap[p->hpos].count != p->count ||
                                  (c->first && c->heap[p->hpos].first != c->first[j])))
            err = "stale heap key";
        else if (p->len > p->cap)
            err = "list overflow";
        live += p->count > 0;
        if (!err && p->count > 0 && c->tie == TIE_FIRST_SEEN && !p->dirty) {
            int32_t mn = INT32_MAX, *d = pos_data(p);
            for (int32_t i = 0; i < p->len; i++)
                if (d[i] < mn && occ_ok(c, d[i], p->a, p->b))
                    mn = d[i];
            if (mn != c->first[j])
                err = "clean FIRST_SEEN key is not exact";
        }
    }
    if (!err && !c->n_cols && live != c->heap_n)
        err = "heap size";
    if (!err) {   /* the table holds every record but the dead ones, each where it belongs */
        int64_t dense = 0, hashed = 0, n_free = 0;
        for (int64_t i = 0; i < (int64_t)c->dense_n * c->dense_n; i++)
            dense += c->dense[i] >= 0;
        for (int64_t i = 0; i < ((int64_t)1 << c->hbits); i++)
            hashed += c->hent[i] != H_EMPTY;
        for (int32_t j = c->free_head; n_free < c->n_free && !err; j = c->pairs[j].pos.inl[0]) {
            if (j < 0 || j >= c->n_pairs || c->pairs[j].count != 0 || c->pairs[j].hpos >= 0)
                err = "bad dead-pair chain";
            n_free++;
        }
        if (!err && (hashed != c->hcount || dense + hashed != (int64_t)c->n_pairs - c->n_free))
            err = "pair table size";
        for (int32_t j = 0; j < c->n_pairs && !err; j++)
            if (c->pairs[j].count > 0 && pair_find(c, c->pairs[j].a, c->pairs[j].b) != j)
                err = "a live pair is not found in the table";
    }
    for (int32_t i = 1; i < c->heap_n && !err; i++)
        if (better(c, &c->heap[i], &c->heap[(i - 1) / 2]))
            err = "heap order";
    for (int32_t s = 0; s < c->tok_cap && !err; s++)
        if (c->cLo[s] != -1 || c->cLn[s] != -1 || c->cRo[s] != -1 || c->cRn[s] != -1)
            err = "neighbour cache not cleared";
    /* full recount: counts, live-occurrence numbers, symbol counts, and every live
     * occurrence present in its pair's position list */
    if (!err) {
        unsigned char *seen = (unsigned char *)calloc((size_t)c->n_cells + 1, 1);
        int64_t *cnt = (int64_t *)calloc((size_t)c->n_pairs + 1, sizeof(int64_t));
        int64_t *occ = (int64_t *)calloc((size_t)c->n_pairs + 1, sizeof(int64_t));
        int64_t *sc = (int64_t *)calloc((size_t)c->n_tokens + 1, sizeof(int64_t));
        if (!seen || !cnt || !occ || !sc) {
            free(seen);
            free(cnt);
            free(occ);
            free(sc);
            *is_mem = 1;
            return "out of memory";
        }
        for (int32_t j = 0; j < c->n_pairs; j++) {
            const Pair *p = &c->pairs[j];
            int32_t *d = pos_data(p);
            for (int32_t i = 0; i < p->len; i++)
                if (occ_ok(c, d[i], p->a, p->b))
                    seen[d[i]] = 1;
        }
        int64_t total = 0;
        if (c->sym[0] > SEP_BASE)
            err = "no separator before the first word";
        for (int32_t w = 0; w < c->n_words && !err; w++) {
            int64_t f = c->freq[w];
            int32_t end = word_cell(c, w + 1) - 1;   /* the word's separator */
            if (c->sym[end] != SEP_BASE - w) {
                err = "bad separator";
                break;
            }
            for (int32_t i = word_cell(c, w); i != end && !err;) {
                int32_t t = c->sym[i];
                if (t < 0 || t >= c->n_tokens || c->span[t] > end - i) {
                    err = "bad cell";
                    break;
                }
                int32_t e = i + c->span[t] - 1;
                if (c->sym[e] != (e > i ? ~t : t)) {
                    err = "a token's last cell does not name it";
                    break;
                }
                sc[t] += f;
                total += f;
                int32_t r = e + 1;
                if (r == end)
                    break;
                int32_t pidx = pair_find(c, t, c->sym[r]);
                if (pidx < 0)
                    err = "live pair missing from the table";
                else {
                    cnt[pidx] += f;
                    occ[pidx]++;
                    if (!seen[i])
                        err = "live occurrence missing from its position list";
                }
                i = r;
            }
        }
        for (int32_t j = 0; j < c->n_pairs && !err; j++)
            if (cnt[j] != c->pairs[j].count || occ[j] != c->pairs[j].nocc)
                err = "pair count differs from a recount";
        for (int32_t t = 0; t < c->n_tokens && !err; t++)
            if (sc[t] != c->symcount[t])
                err = "symbol count differs from a recount";
        if (!err && total != c->total_syms)
            err = "total_symbols differs from a recount";
        free(seen);
        free(cnt);
        free(occ);
        free(sc);
    }
    if (!err && c->n_cols)
        err = bpe_core_col_check(c, is_mem);
    return err;
}

void bpe_core_stats(const BpeCore *c, BpeCoreStats *out)
{
    int64_t pos_entries = 0, pos_cap = 0, heap_lists = 0;
    for (int32_t j = 0; j < c->n_pairs; j++) {
        pos_entries += c->pairs[j].len;
        if (c->pairs[j].cap > INLINE_CAP) {
            pos_cap += c->pairs[j].cap;
            heap_lists++;
        }
    }
    out->pairs = c->n_pairs;
    out->pairs_cap = c->pairs_cap;
    out->live_pairs = c->heap_n;
    out->hash_cap = (int64_t)1 << c->hbits;
    out->pos_entries = pos_entries;
    out->pos_alloc_lists = heap_lists;
    out->pos_cap = pos_cap;
    out->rlog = c->rlog_n;
    out->rlog_cap = (int64_t)c->rlog_cap;
    out->scratch_cap = c->scratch_cap;
    out->approx_bytes = (int64_t)c->n_cells * 4 +
                        (int64_t)c->pairs_cap * (sizeof(Pair) + sizeof(HEnt)) +
                        ((int64_t)1 << c->hbits) * 8 + pos_cap * 4 + (int64_t)c->rlog_cap * 4 +
                        c->scratch_cap * 4 + (int64_t)c->touched_cap * (int64_t)sizeof(Touch) +
                        (int64_t)c->n_words * 16 + (int64_t)c->tok_buf_cap +
                        (int64_t)c->tok_cap * 60;
    out->col_heap_entries = out->col_heap_cap = out->col_notes_cap = 0;
    for (int32_t h = 0; h < c->n_heaped; h++) {
        out->col_heap_entries += c->cheap[h].n;
        out->col_heap_cap += (int64_t)c->cheap[h].cap;
        out->col_notes_cap += (int64_t)c->cheap[h].pend_cap;
    }
    out->col_rows = c->n_cols ? c->n_prows : 0;
    out->col_rows_free = c->n_cols ? c->n_free_rows : 0;
    out->col_entries = c->n_cols ? c->wc_start[c->n_words] : 0;
    out->cells = c->n_cells;
}
