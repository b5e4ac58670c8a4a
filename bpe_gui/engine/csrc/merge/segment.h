/*
 * segment.h -- a text cut into segments no merge crosses, each segment's ids from a memo,
 * a word cache or merged: the one segment loop of every cut where no merge crosses:
 * SentencePiece's texts and tokenizer.json models without ByteLevel
 * (imported/pipe_spm.c), SuperBPE's stage-2 pieces (pieces.c) and
 * the boundaries strategy's long non-ASCII words (token_boundaries.c).
 *
 * A Cutter says where the segment that starts at `start` ends (its next cut); merging
 * each segment alone gives the text's ids because no merge crosses a cut. segment_walk
 * runs a Cutter over a text and hands each segment to a piece function. segment_encode
 * is segment_walk with each segment's ids from the SegCache's memo of short segments,
 * then its word table (wordcache.h) as the one admission policy WcAdmit lets it, else
 * from the caller's merge function, handed to the caller's emit function (the
 * boundaries strategy's pieces keep each token's span, so they go to its own cache of
 * pieces instead). Header-only and force-inlined: the cut, piece, merge and emit
 * functions are constants at each call, so the compiler makes one loop of each caller's
 * functions, with no call through a pointer left.
 */
#ifndef BPE_SEGMENT_H
#define BPE_SEGMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/wordcache.h"
#include "util/hash.h"
#include "util/portable.h"

/* ---- cutters ---- */

/* The end of the segment of s[0..n) that starts at start (start < n): a place after
 * start where no merge crosses, or n. Called with each segment's start in turn, so self
 * may keep what it read at the cut it returned (the character there). */
typedef size_t (*seg_cut_fn)(void *self, const unsigned char *s, size_t n, size_t start);

typedef struct {
    seg_cut_fn next;
    void *self;
} Cutter;

/* ---- the memo of short segments ---- */

/* Short segments (up to 4 bytes: one character, the usual segment of CJK text) by their
 * bytes in a direct-mapped table of a few hundred KB: no hash of the bytes, and no trip
 * into the word table's megabytes. Exact: a key is the segment's bytes and length. */
#define SEG_MEMO_BITS 12
#define SEG_MEMO_IDS 4
#define SEG_MEMO_MIN_TEXT 8192   /* shorter texts go without (the table costs its zeroing) */
#define SEG_CACHE_MAX (1u << 18)

typedef struct {
    uint64_t key;   /* 0: empty; else len << 32 | the bytes */
    int32_t n, ids[SEG_MEMO_IDS];
} SegMemoEntry;

/* (len 1 to 4) */
static inline uint64_t seg_memo_key(const unsigned char *p, size_t len)
{
    uint64_t v = (uint64_t)len << 32 | p[0]; /* (byte by byte: a memcpy of len bytes
                                                 read back at once stalls the store) */
    if (len > 1) v |= (uint64_t)p[1] << 8;
    if (len > 2) v |= (uint64_t)p[2] << 16;
    if (len > 3) v |= (uint64_t)p[3] << 24;
    return v;
}

static inline SegMemoEntry *seg_memo_slot(SegMemoEntry *memo, uint64_t key)
{
    return &memo[(key * 0x9E3779B97F4A7C15ull) >> (64 - SEG_MEMO_BITS)];
}

static inline void seg_memo_put(SegMemoEntry *e, uint64_t key, const int32_t *ids, size_t n)
{
    if (n > SEG_MEMO_IDS) return;
    e->key = key;
    e->n = (int32_t)n;
    memcpy(e->ids, ids, n * sizeof(int32_t));
}

/* ---- the segments of one text seen before ---- */

/* The memo of short segments, then the word table, each word let in by the one
 * admission policy. The table is the cache's own (made at the first segment looked
 * up, emptied when SEG_CACHE_MAX segments are in) or a caller's that outlives it (a
 * WordCache kept between calls: its own bound). A SegCache stays where it was made
 * (`table` may point into it). */
typedef struct {
    SegMemoEntry *memo;   /* NULL: none (a short text) */
    WordCacheTable *table;
    WordCacheTable own;
    WcAdmit admit;
} SegCache;

/* table: a caller's word table (made: wc_init), or NULL for one of its own. 0, or -1
 * when out of memory. */
static inline int seg_cache_init(SegCache *c, size_t text_len, WordCacheTable *table)
{
    memset(c, 0, sizeof(*c));
    c->table = table ? table : &c->own;
    if (text_len >= SEG_MEMO_MIN_TEXT &&
        !(c->memo = calloc((size_t)1 << SEG_MEMO_BITS, sizeof(SegMemoEntry))))
        return -1;
    return 0;
}

static inline void seg_cache_free(SegCache *c)
{
    free(c->memo);
    wc_free(&c->own);
    wc_admit_free(&c->admit);
}

/* A segment's ids, made on a miss (0, or the caller's negative error code): *ids, *n;
 * they stay valid until the next call. */
typedef int (*seg_merge_fn)(void *ctx, const unsigned char *p, size_t len,
                            const int32_t **ids, size_t *n);

/* The ids of the segment p[0..len): from the memo, the cache, or merged (and put in).
 * 0, the merge's error, or -1 when out of memory. */
BPE_FORCE_INLINE int seg_ids(SegCache *c, const unsigned char *p, size_t len, seg_merge_fn merge,
                             void *ctx, const int32_t **ids, size_t *n)
{
    SegMemoEntry *me = NULL;
    uint64_t mk = 0;
    if (c->memo && len && len <= 4) {
        mk = seg_memo_key(p, len);
        me = seg_memo_slot(c->memo, mk);
        if (me->key == mk) {
            *ids = me->ids;
            *n = (size_t)me->n;
            wc_admit_found(&c->admit, 1);
            return 0;
        }
    }
    int b = wc_admit_class(len), use = wc_admit_look(&c->admit, b), rc;
    WordCacheTable *t = c->table;
    WcPlace at;
    *ids = NULL;
    if (use) {
        if (BPE_UNLIKELY(!t->slots) && wc_init(t, SEG_CACHE_MAX) < 0) return -1;
        *ids = wc_find_at(t, p, len, &at, n);
        wc_admit_seen(&c->admit, b, *ids != NULL);
    }
    if (!*ids) {
        if ((rc = merge(ctx, p, len, ids, n)) < 0) return rc;
        if (use && wc_admit_put(&c->admit, at.hash) && wc_put_at(t, p, len, &at, *ids, *n) < 0)
            return -1;
    }
    if (me) seg_memo_put(me, mk, *ids, *n);
    return 0;
}

/* Takes one segment's ids (0, or a negative error code that stops the loop). */
typedef int (*seg_emit_fn)(void *ctx, const int32_t *ids, size_t n);

/* ---- the one segment loop ---- */

/* Takes the segment s[start..end) of the text s[0..n): its ids found or made, and
 * handed on (0, or a negative error code that stops the loop). */
typedef int (*seg_piece_fn)(void *ctx, const unsigned char *s, size_t n, size_t start,
                            size_t end);

/* s[0..n) cut by `cut`, each segment handed to piece in order. 0, or piece's first
 * negative code. */
BPE_FORCE_INLINE int segment_walk(Cutter cut, seg_piece_fn piece, void *ctx,
                                  const unsigned char *s, size_t n)
{
    int rc;
    seg_cut_fn next = cut.next;
    void *self = cut.self;
    for (size_t start = 0; start < n;) {
        size_t end = next(self, s, n, start);
        if ((rc = piece(ctx, s, n, start, end)) < 0)
            return rc;
        start = end;
    }
    return 0;
}

/* segment_encode's piece: its ids from seg_ids, handed to emit */
typedef struct {
    SegCache *c;
    seg_merge_fn merge;
    void *merge_ctx;
    seg_emit_fn emit;
    void *emit_ctx;
} SegCached;

BPE_FORCE_INLINE int seg_cached_piece(void *ctx, const unsigned char *s, size_t n,
                                      size_t start, size_t end)
{
    SegCached *g = ctx;
    const int32_t *ids;
    size_t ni;
    int rc;
    (void)n;
    if ((rc = seg_ids(g->c, s + start, end - start, g->merge, g->merge_ctx, &ids, &ni)) < 0)
        return rc;
    return g->emit(g->emit_ctx, ids, ni);
}

/* s[0..n) cut by `cut`, each segment's ids (seg_ids) handed to emit in order. 0, or the
 * first negative code of merge or emit, or -1 when out of memory. */
BPE_FORCE_INLINE int segment_encode(Cutter cut, SegCache *c, seg_merge_fn merge,
                                    void *merge_ctx, seg_emit_fn emit, void *emit_ctx,
                                    const unsigned char *s, size_t n)
{
    SegCached g = {c, merge, merge_ctx, emit, emit_ctx};
    return segment_walk(cut, seg_cached_piece, &g, s, n);
}

#endif
