/*
 * batch.c -- texts encoded on native threads, their ids written out on them (batch.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/batch.h"
#include "util/atomics.h"
#include "util/threads.h"

int enc_encode_text(const EncJob *j, EncScratch *sc, const EncText *t)
{
    if (t->utf8) /* its bytes are its UTF-8: scanned in place */
        return enc_encode(j->m, j->preset, j->cache, sc, j->sp, (const unsigned char *)t->data,
                          t->len, t->len, j->limit);
    return enc_encode_ucs(j->m, j->preset, j->cache, sc, j->sp, t->kind, t->data, t->len,
                          j->limit);
}

/* ---------------------------------------------------------------- batches */

typedef struct {
    EncBatch *b;
    void *const *dst;
    void *const *table;
    uint32_t **counts;
} Scatter;

static void encode_worker(void *ctx, size_t w)
{
    EncBatch *b = ctx;
    EncScratch *sc = b->scratch[w];
    uint32_t top = 0;
    for (;;) {
        size_t i = bpe_fetch_add_rlx_size(&b->next, 1);
        if (i >= b->n)
            break;
        sc->n = 0;
        int rc = enc_encode_text(&b->job, sc, &b->texts[i]);
        b->ids[i] = NULL;
        if (rc == 0 && sc->n) {
            b->ids[i] = malloc(sc->n * sizeof(uint32_t));
            if (!b->ids[i])
                rc = -1;
            else
                memcpy(b->ids[i], sc->ids, sc->n * sizeof(uint32_t));
        }
        b->n_ids[i] = rc == 0 ? sc->n : 0;
        b->err[i] = rc;
        for (size_t j = 0; j < b->n_ids[i]; j++)
            top = b->ids[i][j] > top ? b->ids[i][j] : top;
        sc->n = 0;
        enc_scratch_trim(sc, ENC_SCRATCH_KEEP); /* a long text's copy and ids let go */
    }
    b->max_id[w] = top;
}

void enc_batch_encode(EncBatch *b, size_t k)
{
    b->next = 0; /* (before any worker starts: starting a thread orders it) */
    bpe_run_threads(k, encode_worker, b);
}

static void scatter_worker(void *ctx, size_t w)
{
    Scatter *s = ctx;
    EncBatch *b = s->b;
    uint32_t *count = s->table ? s->counts[w] : NULL;
    for (;;) {
        size_t i = bpe_fetch_add_rlx_size(&b->next, 1);
        if (i >= b->n)
            break;
        const uint32_t *ids = b->ids[i];
        size_t n = b->n_ids[i];
        if (!n || b->err[i])
            continue;
        if (!s->table) {
            memcpy(s->dst[i], ids, n * sizeof(uint32_t));
            continue;
        }
        void **out = (void **)s->dst[i];
        for (size_t j = 0; j < n; j++) {
            out[j] = s->table[ids[j]];
            count[ids[j]]++;
        }
    }
}

void enc_batch_scatter(EncBatch *b, void *const *dst, void *const *table, size_t n_table,
                       uint32_t **counts, size_t k)
{
    (void)n_table; /* (the caller's promise: every id is below it) */
    Scatter s = {b, dst, table, counts};
    b->next = 0; /* (before any worker starts: starting a thread orders it) */
    bpe_run_threads(k, scatter_worker, &s);
}
