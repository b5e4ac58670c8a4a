/*
 * core: the priority heap of pairs (count descending, then the tie rule) and the
 * batch that applies a step's count changes to the heap and the histogram at its end;
 * the heaps of a core with columns, and its batch.
 */
#include "core/core.h"
#include "core/core_lists.h"

/* where pair p's place in a heap is kept: the main heap's (col -1) in its Pair, a
 * column's in its count record */
BPE_FORCE_INLINE int32_t *heap_pos(BpeCore *c, int32_t p, int32_t col)
{
    return col < 0 ? &c->pairs[p].hpos : hpos_of(c, p, col);
}

/* one sift of each way for every heap (h, n entries), inlined into each heap's own
 * (the main heap's with col -1 known, so its positions go straight to the Pairs) */
BPE_FORCE_INLINE void heap_sift_up(BpeCore *c, HEnt *h, int32_t col, int32_t i)
{
    HEnt x = h[i];
    while (i > 0) {
        int32_t par = (i - 1) >> 1;
        if (!better(c, &x, &h[par]))
            break;
        h[i] = h[par];
        *heap_pos(c, h[i].p, col) = i;
        i = par;
    }
    h[i] = x;
    *heap_pos(c, x.p, col) = i;
}

BPE_FORCE_INLINE void heap_sift_down(BpeCore *c, HEnt *h, int32_t n, int32_t col, int32_t i)
{
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
        *heap_pos(c, h[i].p, col) = i;
        i = ch;
    }
    h[i] = x;
    *heap_pos(c, x.p, col) = i;
}

void sift_up(BpeCore *c, int32_t i)
{
    heap_sift_up(c, c->heap, -1, i);
}

void sift_down(BpeCore *c, int32_t i)
{
    heap_sift_down(c, c->heap, c->heap_n, -1, i);
}

void heap_insert(BpeCore *c, int32_t p)
{
    int32_t i = c->heap_n++;
    heap_setkey(c, &c->heap[i], p);
    c->pairs[p].hpos = i;
    sift_up(c, i);
}

/* re-read the key of p (in the heap) and restore the heap order */
void heap_fix(BpeCore *c, int32_t p)
{
    int32_t i = c->pairs[p].hpos;
    heap_setkey(c, &c->heap[i], p);
    sift_up(c, i);
    if (c->pairs[p].hpos == i)
        sift_down(c, i);
}

/* pair p out of a heap (h, *n entries): the last entry takes its place */
BPE_FORCE_INLINE void heap_take(BpeCore *c, HEnt *h, int32_t *n, int32_t col, int32_t p)
{
    int32_t i = *heap_pos(c, p, col);
    HEnt last = h[--*n];
    *heap_pos(c, p, col) = -1;
    if (i < *n) {
        h[i] = last;
        *heap_pos(c, last.p, col) = i;
        heap_sift_up(c, h, col, i);
        if (*heap_pos(c, last.p, col) == i)
            heap_sift_down(c, h, *n, col, i);
    }
}

void heap_remove(BpeCore *c, int32_t p)
{
    heap_take(c, c->heap, &c->heap_n, -1, p);
}

/* ---- batches ---- */

void batch_begin(BpeCore *c)
{
    c->n_touched = 0;
}

int batch_end(BpeCore *c)
{
    if (c->n_cols) {
        col_batch_end(c);
        return 0;
    }
    int err = 0;
    int fs = c->tie == TIE_FIRST_SEEN;
    c->n_last_touched = c->n_touched;
    for (int64_t i = 0; i < c->n_touched; i++) {
        Touch *t = &c->touched[i];
        int32_t pidx = t->p;
        Pair *p = &c->pairs[pidx];
        p->in_batch = 0;
        int64_t old = t->old_count, now = p->count;
        if (old != now) {
            if (old > 0)
                hist_add(c, old, -1);
            if (now > 0 && hist_add(c, now, 1) < 0)
                err = -1;
        }
        if (now == 0) {
            if (p->hpos >= 0)
                heap_remove(c, pidx);
            if (p->cap > INLINE_CAP)
                c->freed_bytes += (int64_t)p->cap * 4;
            pos_free(p);
            p->dirty = 0;
            pair_drop(c, pidx);
        } else if (p->hpos < 0) {
            heap_insert(c, pidx);
        } else {
            HEnt *e = &c->heap[p->hpos];
            if (e->count != now || (fs && e->first != c->first[pidx]))
                heap_fix(c, pidx);
        }
    }
    c->n_touched = 0;
    return err;
}

void fs_resolve_top(BpeCore *c)
{
    if (c->tie != TIE_FIRST_SEEN)
        return;
    while (c->heap_n > 0) {
        int32_t t = c->heap[0].p;
        if (!c->pairs[t].dirty)
            return;
        pos_compact(c, t, 0);
        heap_setkey(c, &c->heap[0], t);
        sift_down(c, 0);
    }
}

/* ---- the columns' heaps (core.h, "Columns"; the main heap's order: better()) ---- */

static void csift_up(BpeCore *c, int32_t col, int32_t i)
{
    heap_sift_up(c, c->cheap[col].h, col, i);
}

void csift_down(BpeCore *c, int32_t col, int32_t i)
{
    heap_sift_down(c, c->cheap[col].h, c->cheap[col].n, col, i);
}

/* (room reserved: col_reserve) */
void cinsert(BpeCore *c, int32_t col, int32_t p)
{
    int32_t i = c->cheap[col].n++;
    cset(c, col, &c->cheap[col].h[i], p);
    csift_up(c, col, i);
}

void cremove(BpeCore *c, int32_t col, int32_t p)
{
    heap_take(c, c->cheap[col].h, &c->cheap[col].n, col, p);
}

static void cfix(BpeCore *c, int32_t col, int32_t p)
{
    int32_t i = *hpos_of(c, p, col);
    cset(c, col, &c->cheap[col].h[i], p);
    csift_up(c, col, i);
    if (*hpos_of(c, p, col) == i)
        csift_down(c, col, i);
}

int col_reserve(BpeCore *c, int64_t nt)
{
    for (int32_t h = 0; h < c->n_heaped; h++) {
        ColHeap *hp = &c->cheap[h];
        if (!hp->stale && bpe_grow((void **)&hp->pend, &hp->pend_cap,
                                   hp->n_pend + (size_t)nt, sizeof(int32_t), 64) < 0)
            return -1;
    }
    /* (a batch gives each pair it touches at most one row: its second column) */
    if (col_reserve_rows(c, nt) < 0)
        return -1;
    return bpe_grow((void **)&c->cdelta, &c->cdelta_cap, (size_t)nt * (size_t)c->n_heaped + 1,
                    sizeof(int64_t), 64);
}

/* Column col's heap built again from its counts (every pair's place in it set). */
static int col_rebuild(BpeCore *c, int32_t col)
{
    ColHeap *hp = &c->cheap[col];
    if (bpe_grow((void **)&hp->h, &hp->cap, (size_t)c->n_pairs + 1, sizeof(HEnt), 64) < 0)
        return -1;
    hp->n = 0;
    for (int32_t p = 0; p < c->n_pairs; p++) {
        PCol *e = pc_find(c, p, col);
        if (!e)
            continue;
        e->hpos = -1;
        if (c->pairs[p].count > 0 && e->cnt > 0) {
            e->hpos = hp->n;
            cset(c, col, &hp->h[hp->n++], p);
        }
    }
    for (int32_t i = hp->n / 2 - 1; i >= 0; i--)
        csift_down(c, col, i);
    hp->stale = 0;
    hp->n_pend = 0;
    return 0;
}

int col_sync(BpeCore *c, int32_t col)
{
    ColHeap *hp = &c->cheap[col];
    if (hp->stale)
        return col_rebuild(c, col);
    if (hp->n_pend == 0)
        return 0;
    if (bpe_grow((void **)&hp->h, &hp->cap, (size_t)hp->n + hp->n_pend, sizeof(HEnt), 64) < 0)
        return -1;
    for (size_t i = 0; i < hp->n_pend; i++) {
        int32_t p = hp->pend[i];
        const PCol *e = pc_find(c, p, col);
        int64_t cnt = e ? e->cnt : 0;
        int32_t at = e ? e->hpos : -1;
        if (cnt > 0 && at < 0)
            cinsert(c, col, p);
        else if (cnt == 0 && at >= 0)
            cremove(c, col, p);
        else if (at >= 0 && hp->h[at].count != cnt)
            cfix(c, col, p);
    }
    hp->n_pend = 0;
    return 0;
}

/* Every pair the batch touched: its columns' changes (its row of cdelta) into its
 * counts, and a note for each column's heap (col_sync). A pair that no longer occurs
 * leaves the heaps now: its record may be a new pair's by the time they are read. */
void col_batch_end(BpeCore *c)
{
    int32_t H = c->n_heaped;
    c->n_last_touched = c->n_touched;
    for (int64_t i = 0; i < c->n_touched; i++) {
        int32_t pidx = c->touched[i].p;
        Pair *p = &c->pairs[pidx];
        p->in_batch = 0;
        p->hpos = -1;
        const int64_t *d = c->cdelta + i * H;
        for (int32_t h = 0; h < H; h++) {
            if (!d[h])
                continue;
            pc_slot(c, pidx, h)->cnt += d[h];
            ColHeap *hp = &c->cheap[h];
            if (hp->stale || p->count == 0)
                continue;
            if (hp->n_pend > 2 * (size_t)hp->n + 16) {
                hp->stale = 1;   /* (more notes than the heap holds: build it again) */
                hp->n_pend = 0;
            } else {
                hp->pend[hp->n_pend++] = pidx;
            }
        }
        if (p->count == 0) {   /* it no longer occurs (no column counts it either) */
            for (int32_t h = 0; h < H; h++) {   /* (an earlier batch's note may have left
                                                 * it in a heap its count there left) */
                const PCol *e = pc_find(c, pidx, h);
                if (e && !c->cheap[h].stale && e->hpos >= 0)
                    cremove(c, h, pidx);
            }
            pc_release(c, pidx);
            if (p->cap > INLINE_CAP)
                c->freed_bytes += (int64_t)p->cap * 4;
            pos_free(p);
            p->dirty = 0;
            pair_drop(c, pidx);
        }
    }
    c->n_touched = 0;
}
