/*
 * _core's shared definitions: the data structures of the incremental trainer, and the
 * functions the files of the extension share (see coremodule.c for the file map).
 *
 * Data layout
 * -----------
 * Every symbol of every word is a "slot" in global arrays (sym, prv, nxt, wid).
 * A word is a doubly linked list of slots; a merge of the occurrence (L, R) writes the
 * new id into L and unlinks R (sym[R] = -1) but leaves R's own links untouched, so an
 * undo can find L again as prv[R] and relink R ("dancing links").  The undo log of a
 * step is just the list of removed right slots, in the order they were removed.
 *
 * Every pair (a, b) that ever occurred has a Pair record (found through a dense table
 * for small ids or an open-addressing hash) holding its frequency-weighted count, the
 * number of live occurrences, and a list of left-slot positions.  The list may hold
 * stale or duplicate entries; every live occurrence is always in it.  Entries are
 * validated on use; lists are compacted when they grow past twice the live count.
 *
 * Priority: an indexed binary heap holding every pair with count > 0, ordered by count
 * descending, then by the tie rule.  For FIRST_SEEN the key is the pair's first live
 * occurrence (smallest left slot); it is kept as a lower bound that is made exact
 * lazily (a "dirty" pair at the top of the heap is recomputed and sifted down).
 *
 * A step or undo touches only the occurrences of the merged pair and their neighbours;
 * the counts of all pairs touched are updated in a batch at the end (heap, histogram).
 */
#ifndef BPE_CORE_H
#define BPE_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TIE_GREATEST 0
#define TIE_FIRST_SEEN 1
#define TIE_LOWEST_IDS 2

#define INLINE_CAP 2
#define DENSE_MAX 1024
#define HIST_SMALL 65536
#define HB_EMPTY ((int64_t)-1)
#define H_EMPTY UINT64_MAX
#define STAMP_MAX 0x7fffffffu

/* ------------------------------------------------------------------------------ */
/* types                                                                          */
/* ------------------------------------------------------------------------------ */

typedef struct {
    int64_t count;             /* frequency-weighted number of occurrences */
    union {
        int32_t *ptr;          /* heap-allocated positions when cap > INLINE_CAP */
        int32_t inl[INLINE_CAP];
    } pos;
    int32_t a, b;
    int32_t len, cap;          /* positions list */
    int32_t nocc;              /* live occurrences (unweighted) */
    int32_t first;             /* FIRST_SEEN: lower bound of the first live occurrence */
    int32_t hpos;              /* index in the heap, -1 if not in it */
    unsigned int stamp : 31;   /* batch stamp */
    unsigned int dirty : 1;    /* FIRST_SEEN: `first` may be below the true first */
} Pair;

typedef struct {
    int64_t old_count;
    int32_t p;
} Touch;

typedef struct {
    int32_t sym;               /* token id, -1 once removed by a merge */
    int32_t prv, nxt;          /* neighbours in the word, -1 at the ends */
    int32_t wid;               /* word index */
} Slot;

typedef struct {
    int64_t count;             /* key snapshot */
    int32_t p;                 /* pair index */
    int32_t first;             /* key snapshot (FIRST_SEEN) */
} HEnt;

typedef struct {
    int32_t a, b, id;
    int32_t n_tied;            /* pairs that shared the top count when it was chosen */
    int64_t count;
    int64_t rstart;            /* start of this step's removed slots in rlog */
    int64_t merged;            /* occurrences replaced, frequency-weighted */
    int32_t gone;              /* bit 0: a no longer occurs alone after it; bit 1: b */
    int32_t pad;
} StepRec;

typedef struct {
    PyObject_HEAD
    int tie;
    int busy;
    int broken;

    /* slots and words */
    int32_t n_slots, n_words;
    Slot *sl;
    int64_t *starts, *freq;
    int64_t total_syms;        /* frequency-weighted number of live symbols */

    /* tokens */
    int32_t n_tokens, n_base, tok_cap;
    int64_t *tok_off;
    int32_t *tok_len;
    uint64_t *tok_pfx;         /* first 8 bytes, big endian, zero padded */
    int64_t *symcount;
    char *tok_buf;
    int64_t tok_buf_len, tok_buf_cap;
    /* per-step neighbour caches, indexed by token id (-1 = unknown) */
    int32_t *cLo, *cLn, *cRo, *cRn, *usedL, *usedR;
    int32_t nusedL, nusedR;

    /* pairs */
    Pair *pairs;
    int32_t n_pairs, pairs_cap;
    HEnt *heap;                /* capacity pairs_cap */
    int32_t heap_n;
    int32_t dense_n;
    int32_t *dense;
    uint64_t *hkeys;
    int32_t *hvals;
    int hbits;
    int64_t hcount;

    /* histogram count -> number of pairs with that count */
    int32_t *hist_small;
    int64_t *hb_keys, *hb_vals;
    int hb_bits;
    int64_t hb_n;

    /* batch of touched pairs */
    unsigned int stamp;
    Touch *touched;
    int64_t n_touched, touched_cap;

    /* undo */
    StepRec *steps;
    int32_t n_steps, steps_cap;
    int32_t *rlog;
    int64_t rlog_n, rlog_cap;

    int32_t *scratch;
    int64_t scratch_cap;
} CoreObject;

#define ERR_NONE 0
#define ERR_NOMEM 1     /* nothing changed */
#define ERR_BROKEN 2    /* state lost */

/* ---- small helpers (inline: they sit on the hot path of every step) ---- */

static inline int32_t *pos_data(Pair *p)
{
    return p->cap > INLINE_CAP ? p->pos.ptr : p->pos.inl;
}

static inline void pos_free(Pair *p)
{
    if (p->cap > INLINE_CAP)
        free(p->pos.ptr);
    p->pos.ptr = NULL;
    p->cap = INLINE_CAP;
    p->len = 0;
}

static inline int occ_ok(const CoreObject *c, int32_t x, int32_t a, int32_t b)
{
    const Slot *sl = c->sl;
    if (sl[x].sym != a)
        return 0;
    int32_t r = sl[x].nxt;
    return r >= 0 && sl[r].sym == b;
}

static inline int tok_cmp(const CoreObject *c, int32_t x, int32_t y)
{
    if (x == y)
        return 0;
    uint64_t px = c->tok_pfx[x], py = c->tok_pfx[y];
    if (px != py)
        return px < py ? -1 : 1;
    int32_t lx = c->tok_len[x], ly = c->tok_len[y];
    int32_t m = lx < ly ? lx : ly;
    if (m > 8) {
        int r = memcmp(c->tok_buf + c->tok_off[x] + 8, c->tok_buf + c->tok_off[y] + 8,
                       (size_t)(m - 8));
        if (r)
            return r;
    }
    return (lx > ly) - (lx < ly);
}

static inline uint64_t pkey(int32_t a, int32_t b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

static inline uint64_t hslot(uint64_t key, int bits)
{
    return (key * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

/* Heap entries carry a snapshot of the key (count, FIRST_SEEN position): counts change
 * during a batch while the heap is only fixed at the end, one pair at a time, and every
 * fix must see a heap whose other keys are consistent. */
static inline int better(const CoreObject *c, const HEnt *x, const HEnt *y)
{
    if (x->count != y->count)
        return x->count > y->count;
    const Pair *p = &c->pairs[x->p], *q = &c->pairs[y->p];
    if (c->tie == TIE_GREATEST) {
        int r = tok_cmp(c, p->a, q->a);
        if (r)
            return r > 0;
        r = tok_cmp(c, p->b, q->b);
        if (r)
            return r > 0;
        if (p->a != q->a)
            return p->a > q->a;
        return p->b > q->b;
    }
    if (c->tie == TIE_FIRST_SEEN && x->first != y->first)
        return x->first < y->first;
    if (p->a != q->a)
        return p->a < q->a;
    return p->b < q->b;
}

static inline void heap_setkey(CoreObject *c, HEnt *e, int32_t p)
{
    e->p = p;
    e->count = c->pairs[p].count;
    e->first = c->pairs[p].first;
}

static inline void pair_add(CoreObject *c, int32_t pidx, int64_t df, int32_t dn)
{
    Pair *p = &c->pairs[pidx];
    if (p->stamp != c->stamp) {
        p->stamp = c->stamp;
        Touch *t = &c->touched[c->n_touched++];
        t->p = pidx;
        t->old_count = p->count;
    }
    p->count += df;
    p->nocc += dn;
    if (dn < 0)
        p->dirty = 1;
}

/* Append x to the position list of pair pidx (growing it in core_lists.c when full). */
int pos_grow(CoreObject *c, int32_t pidx);
static inline int pos_push(CoreObject *c, int32_t pidx, int32_t x)
{
    Pair *p = &c->pairs[pidx];
    if (p->len == p->cap && pos_grow(c, pidx) < 0)
        return -1;
    pos_data(p)[p->len++] = x;
    if (x < p->first)
        p->first = x;
    return 0;
}

/* Every entry point starts here: while run() works without the GIL on another thread,
 * the tables may be reallocated under any reader, so nothing may be read meanwhile. */
static inline int check_idle(CoreObject *c)
{
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core is busy in run() on another thread");
        return -1;
    }
    return 0;
}

/* ... and those that read or change the training state also need it whole */
static inline int check_usable(CoreObject *c)
{
    if (check_idle(c) < 0)
        return -1;
    if (c->broken) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Core state was lost after a failed memory allocation");
        return -1;
    }
    return 0;
}

/* ---- core_lists.c: growing arrays, sorting, position lists ---- */
int grow(void **ptr, int64_t *cap, int64_t need, size_t elsize);
int ensure_scratch(CoreObject *c, int64_t n);
void sort_i32(CoreObject *c, int32_t *a, int64_t n);
void pos_compact(CoreObject *c, int32_t pidx, int dedupe);

/* ---- core_tables.c: tokens, pair table, histogram ---- */
int ensure_tok_cap(CoreObject *c, int64_t need);
int ensure_tok_buf(CoreObject *c, int64_t extra);
void tok_append(CoreObject *c, const char *s, int64_t len);      /* room reserved */
void tok_append_concat(CoreObject *c, int32_t a, int32_t b);     /* room reserved */
int32_t pair_find(const CoreObject *c, int32_t a, int32_t b);   /* -1 if absent */
int hash_resize(CoreObject *c, int bits);
int ensure_pairs(CoreObject *c, int64_t extra);
int32_t pair_get(CoreObject *c, int32_t a, int32_t b);          /* room reserved */
int hb_resize(CoreObject *c, int bits);
int64_t hist_get(const CoreObject *c, int64_t cnt);
int hist_add(CoreObject *c, int64_t cnt, int d);

/* ---- core_heap.c: heap and batches ---- */
void sift_up(CoreObject *c, int32_t i);
void sift_down(CoreObject *c, int32_t i);
void heap_insert(CoreObject *c, int32_t p);
void heap_fix(CoreObject *c, int32_t p);
void heap_remove(CoreObject *c, int32_t p);
void batch_begin(CoreObject *c);
int batch_end(CoreObject *c);
void fs_resolve_top(CoreObject *c);

/* ---- core_step.c: 1 step made, 0 none possible, -1 error (ERR_* in *err) ---- */
int do_step(CoreObject *c, int *err, StepRec *out);
int do_undo(CoreObject *c, int *err, StepRec *out);

/* ---- core_build.c ---- */
void core_free_all(CoreObject *c);
PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kwds);

/* ---- core_query.c, core_check.c: methods (see coremodule.c) ---- */
PyObject *Core_best(CoreObject *c, PyObject *ignored);
PyObject *Core_top(CoreObject *c, PyObject *args);
PyObject *Core_tied(CoreObject *c, PyObject *args);
PyObject *Core_history(CoreObject *c, PyObject *args);
PyObject *Core_touched(CoreObject *c, PyObject *args);
PyObject *Core_word(CoreObject *c, PyObject *args);
PyObject *Core_segmentation(CoreObject *c, PyObject *noargs);
PyObject *Core_pair_count(CoreObject *c, PyObject *args);
PyObject *Core_symbol_count(CoreObject *c, PyObject *args);
PyObject *Core_token(CoreObject *c, PyObject *args);
PyObject *Core_check(CoreObject *c, PyObject *ignored);
PyObject *Core_stats(CoreObject *c, PyObject *ignored);

#endif
