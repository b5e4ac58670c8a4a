/*
 * encoder_pool.c -- a whole-text encoder between calls: its scratches, its readers count,
 * its batches' buffers (encoder_pool.h).
 */
#include "merge/encoder_pool.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

int enc_engine_init(EncEngine *e, const MergeTable *m, MergeReaders *readers, int preset,
                    int32_t limit, size_t cache_words, const unsigned char *const *tokens,
                    const size_t *lens, const int32_t *ids, size_t n_specials)
{
    EncJob j = {m, preset, &e->cache, &e->sp, limit};
    e->job = j;
    e->readers = readers;
    if (tokens && enc_specials_init(&e->sp, tokens, lens, ids, n_specials) < 0)
        return -1;
    return enc_cache_init(&e->cache, cache_words, limit);
}

void enc_engine_free(EncEngine *e)
{
    for (size_t i = 0; i < e->pool.n; i++) {
        enc_scratch_free(e->pool.idle[i]);
        free(e->pool.idle[i]);
    }
    free(e->pool.idle);
    enc_cache_free(&e->cache);
    enc_specials_free(&e->sp);
}

/* sc trimmed and kept idle, or freed past ENC_POOL_MAX */
static void give(EncPool *p, EncScratch *sc)
{
    sc->mark = 0;
    sc->n = 0;
    enc_scratch_trim(sc, ENC_SCRATCH_KEEP);
    if (p->n < ENC_POOL_MAX &&
        bpe_grow((void **)&p->idle, &p->cap, p->n + 1, sizeof(EncScratch *), 8) == 0) {
        if (p->long_bytes + wc_bytes(&sc->longs) > ENC_IDLE_LONGS)
            wc_free(&sc->longs);
        p->long_bytes += wc_bytes(&sc->longs);
        p->idle[p->n++] = sc;
        return;
    }
    enc_scratch_free(sc);
    free(sc);
}

void enc_engine_clear(EncEngine *e)
{
    enc_cache_clear(&e->cache);
    for (size_t i = 0; i < e->pool.n; i++)
        wc_free(&e->pool.idle[i]->longs);
    e->pool.long_bytes = 0;
}

int enc_engine_enter(EncEngine *e, EncScratch **sc, size_t k)
{
    EncPool *p = &e->pool;
    for (size_t i = 0; i < k; i++) {
        if (!(sc[i] = p->n ? p->idle[--p->n] : calloc(1, sizeof(EncScratch)))) {
            while (i--)
                give(p, sc[i]);
            return -1;
        }
        p->long_bytes -= wc_bytes(&sc[i]->longs);
    }
    mr_enter(e->readers);
    e->active++;
    return 0;
}

void enc_engine_leave(EncEngine *e, EncScratch **sc, size_t k)
{
    mr_leave(e->readers);
    for (size_t i = 0; i < k; i++)
        give(&e->pool, sc[i]);
    e->active--;
}

static EncJob job_of(const EncEngine *e, int specials)
{
    EncJob j = e->job;
    j.sp = specials ? &e->sp : NULL;
    return j;
}

int enc_engine_encode(EncEngine *e, EncScratch *sc, const EncText *t, int specials)
{
    EncJob j = job_of(e, specials);
    int rc = enc_encode_text(&j, sc, t);
    if (sc->buf_cap > ENC_SCRATCH_KEEP) { /* a long text's UTF-8: its peak, dropped now */
        free(sc->buf);
        sc->buf = NULL;
        sc->buf_cap = 0;
    }
    return rc;
}

int enc_engine_spans(EncEngine *e, EncScratch *sc, const EncText *t, int specials,
                     const int32_t *len_of, size_t n_len, const OffAdjust *adj,
                     int64_t **st, int64_t **en)
{
    sc->mark = 1;
    sc->n_marks = 0;
    int rc = enc_engine_encode(e, sc, t, specials);
    size_t n = sc->n ? sc->n : 1;
    if (rc < 0)
        return rc;
    if (!(*st = malloc(n * sizeof(int64_t))) || !(*en = malloc(n * sizeof(int64_t))))
        return -1;
    if (enc_char_spans(t->kind, t->data, t->len, sc->ids, sc->n, len_of, n_len, sc->marks,
                       sc->n_marks, *st, *en) < 0 || off_adjust(*st, *en, sc->ids, sc->n, adj) < 0)
        return -3;
    return 0;
}

int enc_engine_batch_make(EncEngine *e, EncBatch *b, EncText **texts, size_t n, size_t k,
                          int specials)
{
    size_t m = n ? n : 1;
    memset(b, 0, sizeof(*b));
    b->job = job_of(e, specials);
    b->n = n;
    b->texts = *texts = calloc(m, sizeof(EncText));
    b->scratch = calloc(k, sizeof(EncScratch *));
    b->ids = calloc(m, sizeof(uint32_t *));
    b->n_ids = calloc(m, sizeof(size_t));
    b->err = calloc(m, sizeof(int));
    b->max_id = calloc(k, sizeof(uint32_t));
    return *texts && b->scratch && b->ids && b->n_ids && b->err && b->max_id ? 0 : -1;
}

uint32_t enc_engine_batch_top(const EncBatch *b, size_t k)
{
    uint32_t top = 0;
    for (size_t w = 0; w < k; w++)
        top = b->max_id[w] > top ? b->max_id[w] : top;
    return top;
}

int enc_engine_batch_scatter(EncBatch *b, void *const *dst, void *const *table, uint32_t top,
                             size_t k, uint32_t **added)
{
    size_t n_table = (size_t)top + 1;
    uint32_t **counts = calloc(k, sizeof(uint32_t *));
    int rc = counts ? 0 : -1;
    for (size_t w = 0; rc == 0 && w < k; w++)
        if (!(counts[w] = calloc(n_table, sizeof(uint32_t))))
            rc = -1;
    if (rc == 0) {
        enc_batch_scatter(b, dst, table, n_table, counts, k);
        for (size_t w = 1; w < k; w++)
            for (size_t id = 0; id < n_table; id++)
                counts[0][id] += counts[w][id];
        *added = counts[0];
        counts[0] = NULL;
    }
    for (size_t w = 0; counts && w < k; w++)
        free(counts[w]);
    free(counts);
    return rc;
}

void enc_engine_batch_free(EncBatch *b)
{
    for (size_t i = 0; b->ids && i < b->n; i++)
        free(b->ids[i]);
    free((void *)b->texts);
    free(b->scratch);
    free(b->ids);
    free(b->n_ids);
    free(b->err);
    free(b->max_id);
    memset(b, 0, sizeof(*b));
}
