/*
 * core: the priority heap of pairs (count descending, then the tie rule) and the
 * batch that applies a step's count changes to the heap and the histogram at its end.
 */
#include "core/core.h"
#include "core/core_lists.h"

void sift_up(BpeCore *c, int32_t i)
{
    HEnt *h = c->heap;
    Pair *P = c->pairs;
    HEnt x = h[i];
    while (i > 0) {
        int32_t par = (i - 1) >> 1;
        if (!better(c, &x, &h[par]))
            break;
        h[i] = h[par];
        P[h[i].p].hpos = i;
        i = par;
    }
    h[i] = x;
    P[x.p].hpos = i;
}

void sift_down(BpeCore *c, int32_t i)
{
    HEnt *h = c->heap;
    Pair *P = c->pairs;
    int32_t n = c->heap_n;
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
        P[h[i].p].hpos = i;
        i = ch;
    }
    h[i] = x;
    P[x.p].hpos = i;
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

void heap_remove(BpeCore *c, int32_t p)
{
    int32_t i = c->pairs[p].hpos;
    HEnt last = c->heap[--c->heap_n];
    c->pairs[p].hpos = -1;
    if (i < c->heap_n) {
        c->heap[i] = last;
        c->pairs[last.p].hpos = i;
        sift_up(c, i);
        if (c->pairs[last.p].hpos == i)
            sift_down(c, i);
    }
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
