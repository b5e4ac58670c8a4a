/*
 * core_lists.h -- what core_lists.c gives the rest of the trainer: sorting, the scratch,
 * pairs' position lists (appending inline, growing there). Apart from core.h, so that
 * no inline code of core.h, which core_lists.c includes, calls into core_lists.c.
 */
#ifndef BPE_CORE_LISTS_H
#define BPE_CORE_LISTS_H

#include "core/core.h"

/* Append x to the position list of pair pidx (growing it in core_lists.c when full). */
int pos_grow(BpeCore *c, int32_t pidx);
static inline int pos_push(BpeCore *c, int32_t pidx, int32_t x)
{
    Pair *p = &c->pairs[pidx];
    if (p->len == p->cap && pos_grow(c, pidx) < 0)
        return -1;
    pos_data(p)[p->len++] = x;
    if (c->first && x < c->first[pidx])
        c->first[pidx] = x;
    return 0;
}

int ensure_scratch(BpeCore *c, int64_t n);
void sort_i32(BpeCore *c, int32_t *a, int64_t n);
void pos_compact(BpeCore *c, int32_t pidx, int dedupe);

#endif
