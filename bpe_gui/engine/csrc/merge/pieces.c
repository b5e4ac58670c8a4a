/*
 * pieces.c -- many words cut where no merge can join them (SuperBPE's stage-2 pieces),
 * through the one segment loop (segment.h) with the caller's word cache. Apart from
 * wordcache.c so that the cache, which segment.h reads, calls neither the loop nor the
 * merge route. Plain C: runs without the GIL.
 */
#include <stdint.h>
#include <string.h>

#include "merge/merge.h"
#include "merge/pieces.h"
#include "merge/segment.h"
#include "util/grow.h"

/* the Cutter: the next place after start between two bytes no merge joins */
BPE_FORCE_INLINE size_t joins_next(void *self, const unsigned char *s, size_t n, size_t start)
{
    const uint8_t *joins = self;
    size_t j = start + 1;
    while (j < n && joins[(size_t)s[j - 1] << 8 | s[j]])
        j++;
    return j;
}

typedef struct {
    const MergeTable *m;
    MergeScratch x;
    int32_t limit;
} PiecesMerge;

static int pieces_merge(void *ctx, const unsigned char *p, size_t len, const int32_t **ids,
                        size_t *n)
{
    PiecesMerge *g = ctx;
    size_t k = mt_encode_bytes(g->m, &g->x, p, len, g->limit, 0);
    if (k == (size_t)-1)
        return -1;
    *ids = g->x.sym;
    *n = k;
    return 0;
}

BPE_FORCE_INLINE int pieces_emit(void *ctx, const int32_t *ids, size_t n)
{
    IdList *out = ctx;
    if (bpe_grow((void **)&out->ids, &out->cap, out->n + n, sizeof(int32_t), 1024) < 0)
        return -1;
    memcpy(out->ids + out->n, ids, n * sizeof(int32_t));
    out->n += n;
    return 0;
}

int pieces_encode(const MergeTable *m, WordCacheTable *c, const uint8_t *joins,
                  const unsigned char *blob, size_t blob_len, const int64_t *starts,
                  size_t n_pieces, int32_t limit, IdList *out, int64_t **out_starts_p)
{
    for (size_t i = 0; i < n_pieces; i++)
        if (starts[i] < 0 || starts[i] > starts[i + 1] || starts[i + 1] > (int64_t)blob_len)
            return -2;
    int64_t *out_starts = *out_starts_p = malloc((n_pieces + 1) * sizeof(int64_t));
    if (!out_starts)
        return -1;
    if (c->limit != limit) {
        wc_reset(c);
        c->limit = limit;
    }
    PiecesMerge g = {m, {0}, limit};
    SegCache sc;
    Cutter cut = {joins_next, (void *)joins};
    int rc = seg_cache_init(&sc, 0, c);
    out_starts[0] = 0;
    for (size_t i = 0; rc == 0 && i < n_pieces; i++) {
        size_t a = (size_t)starts[i], b = (size_t)starts[i + 1];
        rc = segment_encode(cut, &sc, pieces_merge, &g, pieces_emit, out, blob + a, b - a);
        out_starts[i + 1] = (int64_t)out->n;
    }
    ms_free(&g.x);
    seg_cache_free(&sc);
    return rc < 0 ? -1 : 0;
}
