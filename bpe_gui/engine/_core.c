/*
 * bpe_gui.engine._core -- incremental Byte-Pair-Encoding training state.
 *
 * Python API
 * ----------
 *   Core(symbols, starts, freqs, token_bytes, tie_rule=GREATEST)
 *       symbols: int32 buffer, bytes (each byte a symbol id) or a sequence; starts/freqs:
 *       int64 buffers (or sequences),
 *       token_bytes: sequence of bytes; tie_rule: GREATEST, FIRST_SEEN or LOWEST_IDS.
 *   best() -> (a, b, count) | None        top(k) -> [(a, b, count), ...]
 *   tied(limit) -> (n, [(a, b, count), ...])
 *   step() -> (a, b, new_id, count) | None  undo() -> (a, b, new_id)  (IndexError at 0)
 *   run(n, min_count=1) -> steps done (releases the GIL; other calls on the same Core
 *       from other threads raise RuntimeError meanwhile)
 *   history(start) -> [(a, b, new_id, count, n_tied, merged, gone), ...] of the steps
 *       from `start` on (gone: bit 0 a, bit 1 b no longer occur on their own)
 *   touched(limit) -> (n_words, [word ids by freq desc, id asc])
 *   word(w), pair_count(a, b), symbol_count(t), token(t)
 *   properties: n_tokens, n_steps, n_words, n_pairs (pairs with count > 0), tie_rule,
 *       total_symbols (frequency-weighted number of symbols in all words now)
 *   _check() (full consistency check, for tests), _stats() (internal sizes)
 * GREATEST compares (bytes(a), bytes(b)) like Python tuples; equal bytes: greater ids win.
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

/* ------------------------------------------------------------------------------ */
/* small helpers                                                                  */
/* ------------------------------------------------------------------------------ */

static int grow(void **ptr, int64_t *cap, int64_t need, size_t elsize)
{
    if (need <= *cap)
        return 0;
    int64_t nc = *cap < 16 ? 16 : *cap;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*ptr, (size_t)nc * elsize);
    if (!p)
        return -1;
    *ptr = p;
    *cap = nc;
    return 0;
}

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

/* ------------------------------------------------------------------------------ */
/* sorting int32 (non-negative values)                                            */
/* ------------------------------------------------------------------------------ */

static void isort_i32(int32_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int32_t x = a[i];
        int64_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void hsort_sift(int32_t *a, int64_t i, int64_t n)
{
    int32_t x = a[i];
    for (;;) {
        int64_t ch = 2 * i + 1;
        if (ch >= n)
            break;
        if (ch + 1 < n && a[ch + 1] > a[ch])
            ch++;
        if (a[ch] <= x)
            break;
        a[i] = a[ch];
        i = ch;
    }
    a[i] = x;
}

static void hsort_i32(int32_t *a, int64_t n)
{
    for (int64_t s = n / 2; s-- > 0;)
        hsort_sift(a, s, n);
    for (int64_t end = n - 1; end > 0; end--) {
        int32_t x = a[end];
        a[end] = a[0];
        a[0] = x;
        hsort_sift(a, 0, end);
    }
}

static int ensure_scratch(CoreObject *c, int64_t n)
{
    if (n <= c->scratch_cap)
        return 0;
    int64_t nc = c->scratch_cap < 1024 ? 1024 : c->scratch_cap;
    while (nc < n)
        nc *= 2;
    int32_t *p = (int32_t *)malloc((size_t)nc * sizeof(int32_t));
    if (!p)
        return -1;
    free(c->scratch);
    c->scratch = p;
    c->scratch_cap = nc;
    return 0;
}

static void sort_i32(CoreObject *c, int32_t *a, int64_t n)
{
    if (n < 2)
        return;
    if (n <= 32) {
        isort_i32(a, n);
        return;
    }
    int64_t i = 1;
    while (i < n && a[i - 1] <= a[i])
        i++;
    if (i == n)
        return;
    if (i == 1) {
        while (i < n && a[i - 1] >= a[i])
            i++;
        if (i == n) {
            for (int64_t l = 0, r = n - 1; l < r; l++, r--) {
                int32_t t = a[l];
                a[l] = a[r];
                a[r] = t;
            }
            return;
        }
    }
    if (ensure_scratch(c, n) < 0) {
        hsort_i32(a, n);
        return;
    }
    uint32_t bits = 0;
    for (int64_t j = 0; j < n; j++)
        bits |= (uint32_t)a[j];
    int passes = bits < (1u << 11) ? 1 : bits < (1u << 22) ? 2 : 3;
    int32_t *src = a, *dst = c->scratch;
    int64_t cnt[2048];
    for (int pass = 0; pass < passes; pass++) {
        int sh = 11 * pass;
        memset(cnt, 0, sizeof(cnt));
        for (int64_t j = 0; j < n; j++)
            cnt[((uint32_t)src[j] >> sh) & 2047]++;
        int64_t s = 0;
        for (int d = 0; d < 2048; d++) {
            int64_t t = cnt[d];
            cnt[d] = s;
            s += t;
        }
        for (int64_t j = 0; j < n; j++)
            dst[cnt[((uint32_t)src[j] >> sh) & 2047]++] = src[j];
        int32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, (size_t)n * sizeof(int32_t));
}

/* ------------------------------------------------------------------------------ */
/* tokens                                                                         */
/* ------------------------------------------------------------------------------ */

static uint64_t make_pfx(const char *s, int64_t len)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v <<= 8;
        if (i < len)
            v |= (unsigned char)s[i];
    }
    return v;
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

static int ensure_tok_cap(CoreObject *c, int64_t need)
{
    if (need <= c->tok_cap)
        return 0;
    if (need > INT32_MAX - 1)
        return -1;
    int64_t nc = c->tok_cap < 64 ? 64 : c->tok_cap;
    while (nc < need)
        nc *= 2;
    if (nc > INT32_MAX)
        nc = INT32_MAX;
    size_t n = (size_t)nc;
    void *p;
#define RE(field, T)                                              \
    p = realloc(c->field, n * sizeof(T));                         \
    if (!p)                                                       \
        return -1;                                                \
    c->field = (T *)p;
    RE(tok_off, int64_t)
    RE(tok_len, int32_t)
    RE(tok_pfx, uint64_t)
    RE(symcount, int64_t)
    RE(cLo, int32_t)
    RE(cLn, int32_t)
    RE(cRo, int32_t)
    RE(cRn, int32_t)
    RE(usedL, int32_t)
    RE(usedR, int32_t)
#undef RE
    for (int64_t i = c->tok_cap; i < nc; i++) {
        c->cLo[i] = c->cLn[i] = c->cRo[i] = c->cRn[i] = -1;
        c->symcount[i] = 0;
    }
    c->tok_cap = (int32_t)nc;
    return 0;
}

static int ensure_tok_buf(CoreObject *c, int64_t extra)
{
    int64_t need = c->tok_buf_len + extra;
    if (need <= c->tok_buf_cap)
        return 0;
    int64_t nc = c->tok_buf_cap < 4096 ? 4096 : c->tok_buf_cap;
    while (nc < need)
        nc *= 2;
    char *p = (char *)realloc(c->tok_buf, (size_t)nc);
    if (!p)
        return -1;
    c->tok_buf = p;
    c->tok_buf_cap = nc;
    return 0;
}

/* caller reserved tok_cap and tok_buf */
static void tok_append(CoreObject *c, const char *s, int64_t len)
{
    int32_t t = c->n_tokens++;
    c->tok_off[t] = c->tok_buf_len;
    c->tok_len[t] = (int32_t)len;
    if (len)
        memcpy(c->tok_buf + c->tok_buf_len, s, (size_t)len);
    c->tok_buf_len += len;
    c->tok_pfx[t] = make_pfx(c->tok_buf + c->tok_off[t], len);
    c->symcount[t] = 0;
}

static void tok_append_concat(CoreObject *c, int32_t a, int32_t b)
{
    int32_t t = c->n_tokens++;
    int64_t la = c->tok_len[a], lb = c->tok_len[b];
    int64_t off = c->tok_buf_len;
    c->tok_off[t] = off;
    c->tok_len[t] = (int32_t)(la + lb);
    if (la)
        memcpy(c->tok_buf + off, c->tok_buf + c->tok_off[a], (size_t)la);
    if (lb)
        memcpy(c->tok_buf + off + la, c->tok_buf + c->tok_off[b], (size_t)lb);
    c->tok_buf_len += la + lb;
    c->tok_pfx[t] = make_pfx(c->tok_buf + off, la + lb);
    c->symcount[t] = 0;
}

/* ------------------------------------------------------------------------------ */
/* pair table                                                                     */
/* ------------------------------------------------------------------------------ */

static inline uint64_t pkey(int32_t a, int32_t b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

static inline uint64_t hslot(uint64_t key, int bits)
{
    return (key * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

static int32_t pair_find(const CoreObject *c, int32_t a, int32_t b)
{
    if (a < c->dense_n && b < c->dense_n)
        return c->dense[(int64_t)a * c->dense_n + b];
    uint64_t key = pkey(a, b);
    uint64_t mask = ((uint64_t)1 << c->hbits) - 1;
    uint64_t i = hslot(key, c->hbits);
    for (;;) {
        uint64_t k = c->hkeys[i];
        if (k == key)
            return c->hvals[i];
        if (k == H_EMPTY)
            return -1;
        i = (i + 1) & mask;
    }
}

static int hash_resize(CoreObject *c, int bits)
{
    uint64_t n = (uint64_t)1 << bits;
    uint64_t *nk = (uint64_t *)malloc(n * sizeof(uint64_t));
    int32_t *nv = (int32_t *)malloc(n * sizeof(int32_t));
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    memset(nk, 0xff, n * sizeof(uint64_t));
    uint64_t mask = n - 1;
    if (c->hkeys) {
        uint64_t on = (uint64_t)1 << c->hbits;
        for (uint64_t j = 0; j < on; j++) {
            uint64_t k = c->hkeys[j];
            if (k == H_EMPTY)
                continue;
            uint64_t i = hslot(k, bits);
            while (nk[i] != H_EMPTY)
                i = (i + 1) & mask;
            nk[i] = k;
            nv[i] = c->hvals[j];
        }
    }
    free(c->hkeys);
    free(c->hvals);
    c->hkeys = nk;
    c->hvals = nv;
    c->hbits = bits;
    return 0;
}

/* make room for `extra` new pairs (pair array, heap and hash) */
static int ensure_pairs(CoreObject *c, int64_t extra)
{
    int64_t need = (int64_t)c->n_pairs + extra;
    if (need > INT32_MAX - 16)
        return -1;
    if (need > c->pairs_cap) {
        int64_t nc = c->pairs_cap < 1024 ? 1024 : c->pairs_cap;
        while (nc < need)
            nc *= 2;
        if (nc > INT32_MAX - 16)
            nc = INT32_MAX - 16;
        Pair *np = (Pair *)realloc(c->pairs, (size_t)nc * sizeof(Pair));
        if (!np)
            return -1;
        c->pairs = np;
        HEnt *nh = (HEnt *)realloc(c->heap, (size_t)nc * sizeof(HEnt));
        if (!nh)
            return -1;
        c->heap = nh;
        c->pairs_cap = (int32_t)nc;
    }
    int bits = c->hbits;
    while ((c->hcount + extra) * 2 > ((int64_t)1 << bits))
        bits++;
    if (bits != c->hbits || !c->hkeys)
        if (hash_resize(c, bits) < 0)
            return -1;
    return 0;
}

/* find or create; the caller must have reserved room with ensure_pairs */
static int32_t pair_get(CoreObject *c, int32_t a, int32_t b)
{
    int32_t *slotp;
    if (a < c->dense_n && b < c->dense_n) {
        slotp = &c->dense[(int64_t)a * c->dense_n + b];
        if (*slotp >= 0)
            return *slotp;
    } else {
        uint64_t key = pkey(a, b);
        uint64_t mask = ((uint64_t)1 << c->hbits) - 1;
        uint64_t i = hslot(key, c->hbits);
        for (;;) {
            uint64_t k = c->hkeys[i];
            if (k == key)
                return c->hvals[i];
            if (k == H_EMPTY)
                break;
            i = (i + 1) & mask;
        }
        c->hkeys[i] = key;
        slotp = &c->hvals[i];
        c->hcount++;
    }
    int32_t idx = c->n_pairs++;
    Pair *p = &c->pairs[idx];
    p->count = 0;
    p->pos.ptr = NULL;
    p->a = a;
    p->b = b;
    p->len = 0;
    p->cap = INLINE_CAP;
    p->nocc = 0;
    p->first = INT32_MAX;
    p->hpos = -1;
    p->stamp = 0;
    p->dirty = 0;
    *slotp = idx;
    return idx;
}

/* ------------------------------------------------------------------------------ */
/* heap                                                                           */
/* ------------------------------------------------------------------------------ */

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

static void sift_up(CoreObject *c, int32_t i)
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

static void sift_down(CoreObject *c, int32_t i)
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

static inline void heap_setkey(CoreObject *c, HEnt *e, int32_t p)
{
    e->p = p;
    e->count = c->pairs[p].count;
    e->first = c->pairs[p].first;
}

static void heap_insert(CoreObject *c, int32_t p)
{
    int32_t i = c->heap_n++;
    heap_setkey(c, &c->heap[i], p);
    c->pairs[p].hpos = i;
    sift_up(c, i);
}

/* re-read the key of p (in the heap) and restore the heap order */
static void heap_fix(CoreObject *c, int32_t p)
{
    int32_t i = c->pairs[p].hpos;
    heap_setkey(c, &c->heap[i], p);
    sift_up(c, i);
    if (c->pairs[p].hpos == i)
        sift_down(c, i);
}

static void heap_remove(CoreObject *c, int32_t p)
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

/* ------------------------------------------------------------------------------ */
/* histogram                                                                      */
/* ------------------------------------------------------------------------------ */

static inline uint64_t hbslot(int64_t k, int bits)
{
    return ((uint64_t)k * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

static int hb_resize(CoreObject *c, int bits)
{
    uint64_t n = (uint64_t)1 << bits, mask = n - 1;
    int64_t *nk = (int64_t *)malloc(n * sizeof(int64_t));
    int64_t *nv = (int64_t *)malloc(n * sizeof(int64_t));
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++)
        nk[i] = HB_EMPTY;
    if (c->hb_keys) {
        uint64_t on = (uint64_t)1 << c->hb_bits;
        for (uint64_t j = 0; j < on; j++) {
            if (c->hb_keys[j] == HB_EMPTY)
                continue;
            uint64_t i = hbslot(c->hb_keys[j], bits);
            while (nk[i] != HB_EMPTY)
                i = (i + 1) & mask;
            nk[i] = c->hb_keys[j];
            nv[i] = c->hb_vals[j];
        }
    }
    free(c->hb_keys);
    free(c->hb_vals);
    c->hb_keys = nk;
    c->hb_vals = nv;
    c->hb_bits = bits;
    return 0;
}

static int64_t hist_get(const CoreObject *c, int64_t cnt)
{
    if (cnt < HIST_SMALL)
        return cnt >= 0 ? c->hist_small[cnt] : 0;
    uint64_t mask = ((uint64_t)1 << c->hb_bits) - 1;
    uint64_t i = hbslot(cnt, c->hb_bits);
    while (c->hb_keys[i] != HB_EMPTY) {
        if (c->hb_keys[i] == cnt)
            return c->hb_vals[i];
        i = (i + 1) & mask;
    }
    return 0;
}

static int hist_add(CoreObject *c, int64_t cnt, int d)
{
    if (cnt < HIST_SMALL) {
        c->hist_small[cnt] += d;
        return 0;
    }
    if (d > 0 && (c->hb_n + 1) * 2 > ((int64_t)1 << c->hb_bits)) {
        if (hb_resize(c, c->hb_bits + 1) < 0)
            return -1;
    }
    uint64_t mask = ((uint64_t)1 << c->hb_bits) - 1;
    uint64_t i = hbslot(cnt, c->hb_bits);
    while (c->hb_keys[i] != HB_EMPTY && c->hb_keys[i] != cnt)
        i = (i + 1) & mask;
    if (c->hb_keys[i] == HB_EMPTY) {
        if (d < 0)
            return 0; /* cannot happen */
        c->hb_keys[i] = cnt;
        c->hb_vals[i] = 0;
        c->hb_n++;
    }
    c->hb_vals[i] += d;
    if (c->hb_vals[i] == 0) {
        /* backward-shift deletion */
        uint64_t j = i;
        for (;;) {
            j = (j + 1) & mask;
            if (c->hb_keys[j] == HB_EMPTY)
                break;
            uint64_t k = hbslot(c->hb_keys[j], c->hb_bits);
            int move = (j > i) ? (k <= i || k > j) : (k <= i && k > j);
            if (move) {
                c->hb_keys[i] = c->hb_keys[j];
                c->hb_vals[i] = c->hb_vals[j];
                i = j;
            }
        }
        c->hb_keys[i] = HB_EMPTY;
        c->hb_n--;
    }
    return 0;
}

/* ------------------------------------------------------------------------------ */
/* position lists                                                                 */
/* ------------------------------------------------------------------------------ */

/* drop invalid entries (and duplicates if `dedupe`); for FIRST_SEEN make first exact */
static void pos_compact(CoreObject *c, int32_t pidx, int dedupe)
{
    Pair *p = &c->pairs[pidx];
    int32_t *d = pos_data(p);
    int32_t a = p->a, b = p->b;
    int32_t m = 0, mn = INT32_MAX;
    for (int32_t i = 0; i < p->len; i++) {
        int32_t x = d[i];
        if (occ_ok(c, x, a, b)) {
            d[m++] = x;
            if (x < mn)
                mn = x;
        }
    }
    if (dedupe && m > 1) {
        sort_i32(c, d, m);
        int32_t u = 1;
        for (int32_t i = 1; i < m; i++)
            if (d[i] != d[u - 1])
                d[u++] = d[i];
        m = u;
    }
    p->len = m;
    if (c->tie == TIE_FIRST_SEEN) {
        p->first = mn;
        p->dirty = 0;
    }
    if (p->cap > INLINE_CAP) {
        if (m <= INLINE_CAP) {
            int32_t *old = p->pos.ptr;
            int32_t t0 = m > 0 ? old[0] : 0, t1 = m > 1 ? old[1] : 0;
            free(old);
            p->pos.inl[0] = t0;
            p->pos.inl[1] = t1;
            p->cap = INLINE_CAP;
        } else if (p->cap > 4 * (int64_t)m + 16) {
            int32_t nc = 2 * m + 8;
            int32_t *np = (int32_t *)realloc(p->pos.ptr, (size_t)nc * sizeof(int32_t));
            if (np) {
                p->pos.ptr = np;
                p->cap = nc;
            }
        }
    }
}

static int pos_push(CoreObject *c, int32_t pidx, int32_t x)
{
    Pair *p = &c->pairs[pidx];
    if (p->len == p->cap) {
        if ((int64_t)p->len >= 2 * (int64_t)p->nocc + 8)
            pos_compact(c, pidx, 1);
        if (p->len == p->cap) {
            int64_t nc = p->cap <= INLINE_CAP ? 8 : 2 * (int64_t)p->cap;
            if (nc > INT32_MAX)
                return -1;
            int32_t *np;
            if (p->cap <= INLINE_CAP) {
                np = (int32_t *)malloc((size_t)nc * sizeof(int32_t));
                if (!np)
                    return -1;
                memcpy(np, p->pos.inl, sizeof(int32_t) * (size_t)p->len);
            } else {
                np = (int32_t *)realloc(p->pos.ptr, (size_t)nc * sizeof(int32_t));
                if (!np)
                    return -1;
            }
            p->pos.ptr = np;
            p->cap = (int32_t)nc;
        }
    }
    pos_data(p)[p->len++] = x;
    if (x < p->first)
        p->first = x;
    return 0;
}

/* ------------------------------------------------------------------------------ */
/* batches                                                                        */
/* ------------------------------------------------------------------------------ */

static void batch_begin(CoreObject *c)
{
    if (c->stamp >= STAMP_MAX) {
        for (int32_t i = 0; i < c->n_pairs; i++)
            c->pairs[i].stamp = 0;
        c->stamp = 0;
    }
    c->stamp++;
    c->n_touched = 0;
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

static int batch_end(CoreObject *c)
{
    int err = 0;
    int fs = c->tie == TIE_FIRST_SEEN;
    for (int64_t i = 0; i < c->n_touched; i++) {
        Touch *t = &c->touched[i];
        int32_t pidx = t->p;
        Pair *p = &c->pairs[pidx];
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
            pos_free(p);
            p->first = INT32_MAX;
            p->dirty = 0;
        } else if (p->hpos < 0) {
            heap_insert(c, pidx);
        } else {
            HEnt *e = &c->heap[p->hpos];
            if (e->count != now || (fs && e->first != p->first))
                heap_fix(c, pidx);
        }
    }
    c->n_touched = 0;
    return err;
}

static void fs_resolve_top(CoreObject *c)
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

static void clear_caches(CoreObject *c)
{
    for (int32_t i = 0; i < c->nusedL; i++) {
        int32_t s = c->usedL[i];
        c->cLo[s] = c->cLn[s] = -1;
    }
    for (int32_t i = 0; i < c->nusedR; i++) {
        int32_t s = c->usedR[i];
        c->cRo[s] = c->cRn[s] = -1;
    }
    c->nusedL = c->nusedR = 0;
}

/* left neighbour symbol s: pairs (s, a) and (s, new) */
static inline void left_pairs(CoreObject *c, int32_t s, int32_t a, int32_t nw, int32_t *po,
                              int32_t *pn)
{
    if (c->cLo[s] < 0) {
        c->cLo[s] = pair_get(c, s, a);
        c->cLn[s] = pair_get(c, s, nw);
        c->usedL[c->nusedL++] = s;
    }
    *po = c->cLo[s];
    *pn = c->cLn[s];
}

/* right neighbour symbol s: pairs (b, s) and (new, s) */
static inline void right_pairs(CoreObject *c, int32_t s, int32_t b, int32_t nw, int32_t *po,
                               int32_t *pn)
{
    if (c->cRo[s] < 0) {
        c->cRo[s] = pair_get(c, b, s);
        c->cRn[s] = pair_get(c, nw, s);
        c->usedR[c->nusedR++] = s;
    }
    *po = c->cRo[s];
    *pn = c->cRn[s];
}

/* ------------------------------------------------------------------------------ */
/* step / undo                                                                    */
/* ------------------------------------------------------------------------------ */

#define ERR_NONE 0
#define ERR_NOMEM 1     /* nothing changed */
#define ERR_BROKEN 2    /* state lost */

/* returns 1 if a step was made, 0 if there is no pair, -1 on error (code in *err) */
static int do_step(CoreObject *c, int *err, StepRec *out)
{
    *err = ERR_NONE;
    fs_resolve_top(c);
    if (c->heap_n == 0)
        return 0;
    int32_t w = c->heap[0].p;
    Pair *p = &c->pairs[w];
    if (p->count <= 0)
        return 0;
    int32_t a = p->a, b = p->b;
    int64_t count = p->count;
    int64_t k = p->len;
    int64_t n_tied = hist_get(c, count);

    /* reserve everything that may grow, before changing anything */
    int64_t newp = 2 * ((int64_t)c->n_tokens + 1);
    if (2 * k < newp)
        newp = 2 * k;
    /* distinct pairs a step touches: (a, b), and (s, a), (s, new), (b, s), (new, s) for
     * the neighbour symbols s */
    int64_t nt = 5 * k + 1;
    if (nt > (int64_t)c->n_pairs + newp)
        nt = (int64_t)c->n_pairs + newp;
    if (nt > 4 * ((int64_t)c->n_tokens + 1) + 1)
        nt = 4 * ((int64_t)c->n_tokens + 1) + 1;
    if (c->n_tokens >= INT32_MAX - 2 ||
        ensure_tok_cap(c, (int64_t)c->n_tokens + 1) < 0 ||
        ensure_tok_buf(c, (int64_t)c->tok_len[a] + c->tok_len[b]) < 0 ||
        ensure_pairs(c, newp) < 0 ||
        grow((void **)&c->touched, &c->touched_cap, nt, sizeof(Touch)) < 0 ||
        grow((void **)&c->rlog, &c->rlog_cap, c->rlog_n + k, sizeof(int32_t)) < 0) {
        *err = ERR_NOMEM;
        return -1;
    }
    if (c->n_steps == c->steps_cap) {
        int64_t cap = c->steps_cap;
        if (grow((void **)&c->steps, &cap, (int64_t)c->n_steps + 1, sizeof(StepRec)) < 0) {
            *err = ERR_NOMEM;
            return -1;
        }
        c->steps_cap = (int32_t)cap;
    }
    ensure_scratch(c, k); /* optional: sort falls back to heapsort */

    int32_t nw = c->n_tokens;
    tok_append_concat(c, a, b);

    /* detach the positions of (a, b) */
    p = &c->pairs[w];
    int32_t local[INLINE_CAP];
    int32_t *pos;
    int heap_alloc = p->cap > INLINE_CAP;
    if (heap_alloc) {
        pos = p->pos.ptr;
    } else {
        memcpy(local, p->pos.inl, sizeof(local));
        pos = local;
    }
    p->pos.ptr = NULL;
    p->cap = INLINE_CAP;
    p->len = 0;
    sort_i32(c, pos, k);

    batch_begin(c);
    int64_t rstart = c->rlog_n;
    Slot *sl = c->sl;
    int broken = 0;
    int64_t removed_w = 0;
    int32_t lastL = -1;
    for (int64_t i = 0; i < k; i++) {
        int32_t L = pos[i];
#ifdef __GNUC__
        if (i + 12 < k)
            __builtin_prefetch(&sl[pos[i + 12]], 1);
#endif
        if (L == lastL)
            continue;
        lastL = L;
        if (sl[L].sym != a)
            continue;
        int32_t R = sl[L].nxt;
        if (R < 0 || sl[R].sym != b)
            continue;
        int64_t f = c->freq[sl[L].wid];
        int32_t P = sl[L].prv, N = sl[R].nxt;
        int32_t sp = P >= 0 ? sl[P].sym : -1;
        int32_t sn = N >= 0 ? sl[N].sym : -1;
        /* structure */
        sl[L].sym = nw;
        sl[R].sym = -1;
        sl[L].nxt = N;
        if (N >= 0)
            sl[N].prv = L;
        c->rlog[c->rlog_n++] = R;
        /* counts */
        pair_add(c, w, -f, -1);
        if (P >= 0) {
            int32_t po, pn;
            left_pairs(c, sp, a, nw, &po, &pn);
            pair_add(c, po, -f, -1);
            pair_add(c, pn, f, 1);
            if (pos_push(c, pn, P) < 0)
                broken = 1;
        }
        if (N >= 0) {
            int32_t po, pn;
            right_pairs(c, sn, b, nw, &po, &pn);
            pair_add(c, po, -f, -1);
            pair_add(c, pn, f, 1);
            if (pos_push(c, pn, L) < 0)
                broken = 1;
        }
        removed_w += f;
    }
    if (heap_alloc)
        free(pos);
    c->symcount[a] -= removed_w;
    c->symcount[b] -= removed_w;
    c->symcount[nw] += removed_w;
    c->total_syms -= removed_w;
    if (batch_end(c) < 0)
        broken = 1;
    clear_caches(c);

    StepRec *r = &c->steps[c->n_steps++];
    r->a = a;
    r->b = b;
    r->id = nw;
    r->n_tied = n_tied > INT32_MAX ? INT32_MAX : (int32_t)n_tied;
    r->count = count;
    r->rstart = rstart;
    r->merged = removed_w;
    r->gone = (c->symcount[a] == 0) | ((c->symcount[b] == 0) << 1);
    r->pad = 0;
    if (out)
        *out = *r;
    if (broken) {
        c->broken = 1;
        *err = ERR_BROKEN;
        return -1;
    }
    return 1;
}

static int do_undo(CoreObject *c, int *err, StepRec *out)
{
    *err = ERR_NONE;
    if (c->n_steps == 0)
        return 0;
    StepRec rec = c->steps[c->n_steps - 1];
    int64_t k = c->rlog_n - rec.rstart;
    int64_t nt = 5 * k + 1;
    if (nt > c->n_pairs)
        nt = c->n_pairs;
    if (nt > 4 * (int64_t)c->n_tokens + 1)
        nt = 4 * (int64_t)c->n_tokens + 1;
    /* every pair an undo touches exists already; the reserve is only a safety net */
    int64_t newp = 2 * ((int64_t)c->n_tokens + 1);
    if (2 * k < newp)
        newp = 2 * k;
    if (grow((void **)&c->touched, &c->touched_cap, nt + newp, sizeof(Touch)) < 0 ||
        ensure_pairs(c, newp) < 0) {
        *err = ERR_NOMEM;
        return -1;
    }
    int32_t a = rec.a, b = rec.b, nw = rec.id;
    int32_t w = pair_find(c, a, b);
    Slot *sl = c->sl;
    int broken = 0;
    int64_t removed_w = 0;
    batch_begin(c);
    for (int64_t i = c->rlog_n - 1; i >= rec.rstart; i--) {
        int32_t R = c->rlog[i];
#ifdef __GNUC__
        if (i - 12 >= rec.rstart)
            __builtin_prefetch(&sl[c->rlog[i - 12]], 1);
#endif
        int32_t L = sl[R].prv;
        int32_t N = sl[L].nxt;
        int32_t P = sl[L].prv;
        int64_t f = c->freq[sl[L].wid];
        int32_t sp = P >= 0 ? sl[P].sym : -1;
        int32_t sn = N >= 0 ? sl[N].sym : -1;
        sl[L].sym = a;
        sl[R].sym = b;
        sl[L].nxt = R;
        if (N >= 0)
            sl[N].prv = R;
        pair_add(c, w, f, 1);
        if (pos_push(c, w, L) < 0)
            broken = 1;
        if (P >= 0) {
            int32_t po, pn;
            left_pairs(c, sp, a, nw, &po, &pn);
            pair_add(c, pn, -f, -1);
            pair_add(c, po, f, 1);
            if (pos_push(c, po, P) < 0)
                broken = 1;
        }
        if (N >= 0) {
            int32_t po, pn;
            right_pairs(c, sn, b, nw, &po, &pn);
            pair_add(c, pn, -f, -1);
            pair_add(c, po, f, 1);
            if (pos_push(c, po, R) < 0)
                broken = 1;
        }
        removed_w += f;
    }
    c->symcount[a] += removed_w;
    c->symcount[b] += removed_w;
    c->symcount[nw] -= removed_w;
    c->total_syms += removed_w;
    if (batch_end(c) < 0)
        broken = 1;
    clear_caches(c);
    c->rlog_n = rec.rstart;
    c->n_steps--;
    c->n_tokens--;
    c->tok_buf_len = c->tok_off[nw];
    c->symcount[nw] = 0;
    if (out)
        *out = rec;
    if (broken) {
        c->broken = 1;
        *err = ERR_BROKEN;
        return -1;
    }
    return 1;
}

/* ------------------------------------------------------------------------------ */
/* construction                                                                   */
/* ------------------------------------------------------------------------------ */

/* heavy part of construction, runs without the GIL. Returns NULL or an error message;
 * *is_mem is set for allocation failures. */
static const char *core_build(CoreObject *c, const int32_t *symbols, const int64_t *starts,
                              const int64_t *freqs, int *is_mem)
{
    *is_mem = 0;
    int32_t ns = c->n_slots, nwds = c->n_words;
    for (int32_t w = 0; w < nwds; w++) {
        if (freqs[w] < 1)
            return "freqs must be >= 1";
        if (starts[w + 1] < starts[w])
            return "starts must be non-decreasing";
    }
    for (int32_t i = 0; i < ns; i++)
        if (symbols[i] < 0 || symbols[i] >= c->n_tokens)
            return "symbol id out of range of token_bytes";

    size_t n = (size_t)(ns > 0 ? ns : 1);
    c->sl = (Slot *)malloc(n * sizeof(Slot));
    c->starts = (int64_t *)malloc(((size_t)nwds + 1) * sizeof(int64_t));
    c->freq = (int64_t *)malloc(((size_t)nwds + 1) * sizeof(int64_t));
    c->hist_small = (int32_t *)calloc(HIST_SMALL, sizeof(int32_t));
    if (!c->sl || !c->starts || !c->freq || !c->hist_small)
        goto nomem;
    memcpy(c->starts, starts, ((size_t)nwds + 1) * sizeof(int64_t));
    memcpy(c->freq, freqs, (size_t)nwds * sizeof(int64_t));

    int64_t npairs_est = 0;
    c->total_syms = 0;
    for (int32_t w = 0; w < nwds; w++) {
        int32_t s = (int32_t)starts[w], e = (int32_t)starts[w + 1];
        int64_t f = freqs[w];
        for (int32_t i = s; i < e; i++) {
            int32_t t = symbols[i];
            c->sl[i].sym = t;
            c->sl[i].prv = i > s ? i - 1 : -1;
            c->sl[i].nxt = i + 1 < e ? i + 1 : -1;
            c->sl[i].wid = w;
            c->symcount[t] += f;
        }
        c->total_syms += f * (e - s);
        if (e - s > 1)
            npairs_est += e - s - 1;
    }

    /* dense table for small ids */
    c->dense_n = c->n_base < DENSE_MAX ? c->n_base : DENSE_MAX;
    c->dense = (int32_t *)malloc(((size_t)c->dense_n * c->dense_n + 1) * sizeof(int32_t));
    if (!c->dense)
        goto nomem;
    for (int64_t i = 0; i < (int64_t)c->dense_n * c->dense_n; i++)
        c->dense[i] = -1;
    if (hash_resize(c, 10) < 0 || hb_resize(c, 6) < 0 || ensure_pairs(c, 16) < 0)
        goto nomem;

    /* count pairs; remember each slot's pair */
    int32_t *sp = (int32_t *)malloc(n * sizeof(int32_t));
    if (!sp)
        goto nomem;
    for (int32_t i = 0; i < ns; i++) {
        if (c->sl[i].nxt < 0)
            continue;
        int32_t a = c->sl[i].sym, b = c->sl[i + 1].sym;
        int32_t idx;
        if (a < c->dense_n && b < c->dense_n && c->dense[a * c->dense_n + b] >= 0) {
            idx = c->dense[a * c->dense_n + b];
        } else {
            if (ensure_pairs(c, 1) < 0) {
                free(sp);
                goto nomem;
            }
            idx = pair_get(c, a, b);
        }
        Pair *p = &c->pairs[idx];
        p->count += c->freq[c->sl[i].wid];
        p->nocc++;
        sp[i] = idx;
    }
    /* allocate exact position lists */
    for (int32_t j = 0; j < c->n_pairs; j++) {
        Pair *p = &c->pairs[j];
        if (p->nocc > INLINE_CAP) {
            p->pos.ptr = (int32_t *)malloc((size_t)p->nocc * sizeof(int32_t));
            if (!p->pos.ptr) {
                for (int32_t q = 0; q < j; q++)
                    pos_free(&c->pairs[q]);
                free(sp);
                goto nomem;
            }
            p->cap = p->nocc;
        }
    }
    for (int32_t i = 0; i < ns; i++) {
        if (c->sl[i].nxt < 0)
            continue;
        Pair *p = &c->pairs[sp[i]];
        if (p->len == 0)
            p->first = i;
        pos_data(p)[p->len++] = i;
    }
    free(sp);
    (void)npairs_est;

    /* histogram and heap */
    c->heap_n = 0;
    for (int32_t j = 0; j < c->n_pairs; j++) {
        Pair *p = &c->pairs[j];
        if (p->count <= 0)
            continue;
        if (hist_add(c, p->count, 1) < 0)
            goto nomem;
        p->hpos = c->heap_n;
        heap_setkey(c, &c->heap[c->heap_n++], j);
    }
    for (int32_t i = c->heap_n / 2 - 1; i >= 0; i--)
        sift_down(c, i);
    return NULL;
nomem:
    *is_mem = 1;
    return "out of memory";
}

/* ------------------------------------------------------------------------------ */
/* Python glue                                                                    */
/* ------------------------------------------------------------------------------ */

static PyTypeObject CoreType;

typedef struct {
    Py_buffer view;
    int has_view;
    void *owned;
    const void *data;
    Py_ssize_t n;
} IntArr;

static void intarr_release(IntArr *x)
{
    if (x->has_view)
        PyBuffer_Release(&x->view);
    x->has_view = 0;
    free(x->owned);
    x->owned = NULL;
}

/* accept a 1-d buffer of integers of the given item size, or any sequence of ints */
static int intarr_get(PyObject *obj, int itemsize, const char *name, IntArr *out)
{
    memset(out, 0, sizeof(*out));
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &out->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return -1;
        out->has_view = 1;
        const char *fmt = out->view.format ? out->view.format : "B";
        while (*fmt == '@' || *fmt == '=' || *fmt == '<')
            fmt++;
        int ok = out->view.ndim <= 1 && out->view.itemsize == itemsize && fmt[0] &&
                 !fmt[1] && strchr("bBhHiIlLqQnN", fmt[0]) != NULL;
        if (ok) {
            out->data = out->view.buf;
            out->n = out->view.len / itemsize;
            return 0;
        }
        if (itemsize == 4 && out->view.itemsize == 1 && (fmt[0] == 'B' || fmt[0] == 'c') &&
            !fmt[1]) {
            /* bytes (e.g. the words of a byte-level table, end to end): widen in C */
            Py_ssize_t n = out->view.len;
            int32_t *mem = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
            if (!mem) {
                PyBuffer_Release(&out->view);
                out->has_view = 0;
                PyErr_NoMemory();
                return -1;
            }
            const unsigned char *src = (const unsigned char *)out->view.buf;
            for (Py_ssize_t i = 0; i < n; i++)
                mem[i] = src[i];
            PyBuffer_Release(&out->view);
            out->has_view = 0;
            out->owned = mem;
            out->data = mem;
            out->n = n;
            return 0;
        }
        PyBuffer_Release(&out->view);
        out->has_view = 0;
        if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
            /* fall through to the generic sequence path (e.g. array('b'), bytes) */
        }
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s must be a buffer or sequence of integers", name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    void *mem = malloc((size_t)(n > 0 ? n : 1) * (size_t)itemsize);
    if (!mem) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            free(mem);
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
            }
            return -1;
        }
        if (itemsize == 4) {
            if (v < INT32_MIN || v > INT32_MAX) {
                Py_DECREF(seq);
                free(mem);
                PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
                return -1;
            }
            ((int32_t *)mem)[i] = (int32_t)v;
        } else {
            ((int64_t *)mem)[i] = (int64_t)v;
        }
    }
    Py_DECREF(seq);
    out->owned = mem;
    out->data = mem;
    out->n = n;
    return 0;
}

static void core_free_all(CoreObject *c)
{
    if (c->pairs) {
        for (int32_t j = 0; j < c->n_pairs; j++)
            if (c->pairs[j].cap > INLINE_CAP)
                free(c->pairs[j].pos.ptr);
    }
    free(c->pairs);
    free(c->heap);
    free(c->dense);
    free(c->hkeys);
    free(c->hvals);
    free(c->hist_small);
    free(c->hb_keys);
    free(c->hb_vals);
    free(c->touched);
    free(c->steps);
    free(c->rlog);
    free(c->scratch);
    free(c->sl);
    free(c->starts);
    free(c->freq);
    free(c->tok_off);
    free(c->tok_len);
    free(c->tok_pfx);
    free(c->symcount);
    free(c->tok_buf);
    free(c->cLo);
    free(c->cLn);
    free(c->cRo);
    free(c->cRn);
    free(c->usedL);
    free(c->usedR);
    c->pairs = NULL;
    c->n_pairs = 0;
}

static void Core_dealloc(CoreObject *c)
{
    core_free_all(c);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"symbols", "starts", "freqs", "token_bytes", "tie_rule", NULL};
    PyObject *osym, *ostarts, *ofreqs, *otok;
    int tie = TIE_GREATEST;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO|i:Core", kwlist, &osym, &ostarts,
                                     &ofreqs, &otok, &tie))
        return NULL;
    if (tie != TIE_GREATEST && tie != TIE_FIRST_SEEN && tie != TIE_LOWEST_IDS) {
        PyErr_SetString(PyExc_ValueError, "tie_rule must be GREATEST, FIRST_SEEN or LOWEST_IDS");
        return NULL;
    }
    CoreObject *c = (CoreObject *)type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    /* tp_alloc zero-fills everything */
    c->tie = tie;
    IntArr s = {0}, st = {0}, fr = {0};
    PyObject *tokseq = NULL;
    if (intarr_get(osym, 4, "symbols", &s) < 0)
        goto fail;
    if (intarr_get(ostarts, 8, "starts", &st) < 0)
        goto fail;
    if (intarr_get(ofreqs, 8, "freqs", &fr) < 0)
        goto fail;
    if (st.n < 1) {
        PyErr_SetString(PyExc_ValueError, "starts must have n_words + 1 entries");
        goto fail;
    }
    if (fr.n != st.n - 1) {
        PyErr_SetString(PyExc_ValueError, "len(starts) must be len(freqs) + 1");
        goto fail;
    }
    if (s.n >= INT32_MAX - 1 || st.n >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "too many symbols or words (max 2**31 - 2)");
        goto fail;
    }
    const int64_t *starts = (const int64_t *)st.data;
    if (starts[0] != 0 || starts[st.n - 1] != s.n) {
        PyErr_SetString(PyExc_ValueError,
                        "starts must begin with 0 and end with len(symbols)");
        goto fail;
    }
    tokseq = PySequence_Fast(otok, "token_bytes must be a sequence of bytes");
    if (!tokseq)
        goto fail;
    Py_ssize_t ntok = PySequence_Fast_GET_SIZE(tokseq);
    if (ntok >= INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many tokens");
        goto fail;
    }
    if (ensure_tok_cap(c, ntok + 1) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    {
        PyObject **items = PySequence_Fast_ITEMS(tokseq);
        int64_t total = 0;
        for (Py_ssize_t i = 0; i < ntok; i++) {
            if (PyBytes_Check(items[i]))
                total += PyBytes_GET_SIZE(items[i]);
            else if (PyByteArray_Check(items[i]))
                total += PyByteArray_GET_SIZE(items[i]);
            else {
                PyErr_SetString(PyExc_TypeError, "token_bytes must contain bytes objects");
                goto fail;
            }
        }
        if (ensure_tok_buf(c, total + 1) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t i = 0; i < ntok; i++) {
            int isb = PyBytes_Check(items[i]);
            Py_ssize_t len = isb ? PyBytes_GET_SIZE(items[i]) : PyByteArray_GET_SIZE(items[i]);
            if (len > INT32_MAX / 4) {
                PyErr_SetString(PyExc_ValueError, "token too long");
                goto fail;
            }
            tok_append(c, isb ? PyBytes_AS_STRING(items[i]) : PyByteArray_AS_STRING(items[i]),
                       len);
        }
    }
    Py_CLEAR(tokseq);
    c->n_base = c->n_tokens;
    c->n_slots = (int32_t)s.n;
    c->n_words = (int32_t)(st.n - 1);

    const char *msg;
    int is_mem;
    Py_BEGIN_ALLOW_THREADS
    msg = core_build(c, (const int32_t *)s.data, starts, (const int64_t *)fr.data, &is_mem);
    Py_END_ALLOW_THREADS
    if (msg) {
        if (is_mem)
            PyErr_NoMemory();
        else
            PyErr_SetString(PyExc_ValueError, msg);
        goto fail;
    }
    intarr_release(&s);
    intarr_release(&st);
    intarr_release(&fr);
    return (PyObject *)c;
fail:
    Py_XDECREF(tokseq);
    intarr_release(&s);
    intarr_release(&st);
    intarr_release(&fr);
    Py_DECREF(c);
    return NULL;
}

/* Every entry point starts here: while run() works without the GIL on another thread,
 * the tables may be reallocated under any reader, so nothing may be read meanwhile. */
static int check_idle(CoreObject *c)
{
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Core is busy in run() on another thread");
        return -1;
    }
    return 0;
}

/* ... and those that read or change the training state also need it whole */
static int check_usable(CoreObject *c)
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

static PyObject *pair_tuple(CoreObject *c, int32_t pidx)
{
    Pair *p = &c->pairs[pidx];
    return Py_BuildValue("(iiL)", p->a, p->b, (long long)p->count);
}

static PyObject *Core_best(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    fs_resolve_top(c);
    if (c->heap_n == 0 || c->heap[0].count <= 0)
        Py_RETURN_NONE;
    return pair_tuple(c, c->heap[0].p);
}

/* pop up to k best pairs (for which accept() holds) into out[], then push them back */
static PyObject *ranked(CoreObject *c, Py_ssize_t k, int same_count_only)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    if (k <= 0 || c->heap_n == 0)
        return list;
    if (k > c->heap_n)
        k = c->heap_n;
    int32_t *stash = (int32_t *)malloc((size_t)k * sizeof(int32_t));
    if (!stash) {
        Py_DECREF(list);
        return PyErr_NoMemory();
    }
    int64_t top = c->heap[0].count;
    Py_ssize_t m = 0;
    while (m < k && c->heap_n > 0) {
        fs_resolve_top(c);
        int32_t t = c->heap[0].p;
        if (same_count_only && c->pairs[t].count != top)
            break;
        heap_remove(c, t);
        stash[m++] = t;
    }
    int err = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!err) {
            PyObject *tup = pair_tuple(c, stash[i]);
            if (!tup || PyList_Append(list, tup) < 0)
                err = 1;
            Py_XDECREF(tup);
        }
    }
    for (Py_ssize_t i = 0; i < m; i++)
        heap_insert(c, stash[i]);
    free(stash);
    if (err) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

static PyObject *Core_top(CoreObject *c, PyObject *args)
{
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n:top", &k))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    return ranked(c, k, 0);
}

static PyObject *Core_tied(CoreObject *c, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:tied", &limit))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (c->heap_n == 0)
        return Py_BuildValue("(i[])", 0);
    int64_t n = hist_get(c, c->heap[0].count);
    PyObject *list = ranked(c, limit, 1);
    if (!list)
        return NULL;
    PyObject *res = Py_BuildValue("(LN)", (long long)n, list);
    return res;
}

static PyObject *raise_step_error(int err)
{
    if (err == ERR_NOMEM)
        return PyErr_NoMemory();
    PyErr_SetString(PyExc_MemoryError,
                    "out of memory during a step; the Core can no longer be used");
    return NULL;
}

static PyObject *Core_step(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    int err;
    StepRec r;
    int res = do_step(c, &err, &r);
    if (res < 0)
        return raise_step_error(err);
    if (res == 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(iiiL)", r.a, r.b, r.id, (long long)r.count);
}

/* history(start) -> [(a, b, new_id, count, n_tied, merged, gone), ...] for the steps
 * from `start` on: what Trainer records after a run() made them without the GIL. */
static PyObject *Core_history(CoreObject *c, PyObject *args)
{
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "n:history", &start))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (start < 0 || start > c->n_steps) {
        PyErr_SetString(PyExc_IndexError, "history start out of range");
        return NULL;
    }
    PyObject *list = PyList_New(c->n_steps - start);
    if (!list)
        return NULL;
    for (Py_ssize_t i = start; i < c->n_steps; i++) {
        const StepRec *r = &c->steps[i];
        PyObject *t = Py_BuildValue("(iiiLiLi)", r->a, r->b, r->id, (long long)r->count,
                                    r->n_tied, (long long)r->merged, r->gone);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i - start, t);
    }
    return list;
}

static PyObject *Core_undo(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    int err;
    StepRec r;
    int res = do_undo(c, &err, &r);
    if (res < 0)
        return raise_step_error(err);
    if (res == 0) {
        PyErr_SetString(PyExc_IndexError, "no step to undo");
        return NULL;
    }
    return Py_BuildValue("(iii)", r.a, r.b, r.id);
}

static PyObject *Core_run(CoreObject *c, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n", "min_count", NULL};
    Py_ssize_t n;
    long long min_count = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "n|L:run", kwlist, &n, &min_count))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (min_count < 1)
        min_count = 1;
    Py_ssize_t done = 0;
    int err = 0, res = 0;
    c->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    while (done < n) {
        fs_resolve_top(c);
        if (c->heap_n == 0 || c->heap[0].count < min_count)
            break;
        res = do_step(c, &err, NULL);
        if (res <= 0)
            break;
        done++;
    }
    Py_END_ALLOW_THREADS
    c->busy = 0;
    if (res < 0)
        return raise_step_error(err);
    return PyLong_FromSsize_t(done);
}

typedef struct {
    int64_t f;
    int32_t w;
} WordKey;

static int wordkey_cmp(const void *x, const void *y)
{
    const WordKey *p = (const WordKey *)x, *q = (const WordKey *)y;
    if (p->f != q->f)
        return p->f > q->f ? -1 : 1;
    return (p->w > q->w) - (p->w < q->w);
}

/* max-heap by "worse" (the worst of the kept words at the root) */
static void wordkey_sift(WordKey *h, int64_t i, int64_t n)
{
    WordKey x = h[i];
    for (;;) {
        int64_t ch = 2 * i + 1;
        if (ch >= n)
            break;
        if (ch + 1 < n && wordkey_cmp(&h[ch + 1], &h[ch]) > 0)
            ch++;
        if (wordkey_cmp(&h[ch], &x) <= 0)
            break;
        h[i] = h[ch];
        i = ch;
    }
    h[i] = x;
}

static PyObject *Core_touched(CoreObject *c, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:touched", &limit))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (c->n_steps == 0)
        return Py_BuildValue("(i[])", 0);
    StepRec *r = &c->steps[c->n_steps - 1];
    int64_t k = c->rlog_n - r->rstart;
    WordKey *ws = (WordKey *)malloc((size_t)(k > 0 ? k : 1) * sizeof(WordKey));
    if (!ws)
        return PyErr_NoMemory();
    int64_t nd = 0, nd_sorted;
    int32_t last = -1;
    for (int64_t i = r->rstart; i < c->rlog_n; i++) {
        int32_t w = c->sl[c->rlog[i]].wid;
        if (w != last) {
            ws[nd].w = w;
            ws[nd].f = c->freq[w];
            nd++;
            last = w;
        }
    }
    nd_sorted = nd;
    if (limit < 0)
        limit = 0;
    if (limit > nd)
        limit = (Py_ssize_t)nd;
    if (limit > 0 && (int64_t)limit * 4 < nd) {
        /* keep the `limit` best in a heap whose root is the worst of them */
        int64_t m = limit;
        for (int64_t i = m / 2; i-- > 0;)
            wordkey_sift(ws, i, m);
        for (int64_t i = m; i < nd; i++) {
            if (wordkey_cmp(&ws[i], &ws[0]) < 0) {
                ws[0] = ws[i];
                wordkey_sift(ws, 0, m);
            }
        }
        nd_sorted = m;
    }
    qsort(ws, (size_t)nd_sorted, sizeof(WordKey), wordkey_cmp);
    PyObject *list = PyList_New(limit);
    if (!list) {
        free(ws);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < limit; i++) {
        PyObject *v = PyLong_FromLong(ws[i].w);
        if (!v) {
            free(ws);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    free(ws);
    return Py_BuildValue("(LN)", (long long)nd, list);
}

static PyObject *Core_word(CoreObject *c, PyObject *args)
{
    Py_ssize_t w;
    if (!PyArg_ParseTuple(args, "n:word", &w))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (w < 0 || w >= c->n_words) {
        PyErr_SetString(PyExc_IndexError, "word index out of range");
        return NULL;
    }
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    if (c->starts[w] == c->starts[w + 1])
        return list;
    for (int32_t i = (int32_t)c->starts[w]; i >= 0; i = c->sl[i].nxt) {
        PyObject *v = PyLong_FromLong(c->sl[i].sym);
        if (!v || PyList_Append(list, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(v);
    }
    return list;
}

static PyObject *Core_pair_count(CoreObject *c, PyObject *args)
{
    long long a, b;
    if (!PyArg_ParseTuple(args, "LL:pair_count", &a, &b))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (a < 0 || b < 0 || a >= c->n_tokens || b >= c->n_tokens)
        return PyLong_FromLong(0);
    int32_t p = pair_find(c, (int32_t)a, (int32_t)b);
    return PyLong_FromLongLong(p >= 0 ? (long long)c->pairs[p].count : 0);
}

static PyObject *Core_symbol_count(CoreObject *c, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:symbol_count", &t))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (t < 0 || t >= c->n_tokens) {
        PyErr_SetString(PyExc_IndexError, "token id out of range");
        return NULL;
    }
    return PyLong_FromLongLong((long long)c->symcount[t]);
}

static PyObject *Core_token(CoreObject *c, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:token", &t))
        return NULL;
    if (check_idle(c) < 0)
        return NULL;
    if (t < 0 || t >= c->n_tokens) {
        PyErr_SetString(PyExc_IndexError, "token id out of range");
        return NULL;
    }
    return PyBytes_FromStringAndSize(c->tok_buf + c->tok_off[t], c->tok_len[t]);
}

/* consistency check of the internal structures, for tests */
static PyObject *Core_check(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    const char *err = NULL;
    int64_t live = 0;
    for (int32_t j = 0; j < c->n_pairs && !err; j++) {
        Pair *p = &c->pairs[j];
        if (p->count < 0 || p->nocc < 0)
            err = "negative count";
        else if ((p->count > 0) != (p->hpos >= 0))
            err = "pair with count > 0 not in heap (or the reverse)";
        else if (p->hpos >= 0 && (p->hpos >= c->heap_n || c->heap[p->hpos].p != j))
            err = "bad heap position";
        else if (p->hpos >= 0 && (c->heap[p->hpos].count != p->count ||
                                  (c->tie == TIE_FIRST_SEEN && c->heap[p->hpos].first != p->first)))
            err = "stale heap key";
        else if (p->len > p->cap)
            err = "list overflow";
        live += p->count > 0;
        if (!err && p->count > 0 && c->tie == TIE_FIRST_SEEN && !p->dirty) {
            int32_t mn = INT32_MAX, *d = pos_data(p);
            for (int32_t i = 0; i < p->len; i++)
                if (d[i] < mn && occ_ok(c, d[i], p->a, p->b))
                    mn = d[i];
            if (mn != p->first)
                err = "clean FIRST_SEEN key is not exact";
        }
    }
    if (!err && live != c->heap_n)
        err = "heap size";
    for (int32_t i = 1; i < c->heap_n && !err; i++)
        if (better(c, &c->heap[i], &c->heap[(i - 1) / 2]))
            err = "heap order";
    for (int32_t s = 0; s < c->tok_cap && !err; s++)
        if (c->cLo[s] != -1 || c->cLn[s] != -1 || c->cRo[s] != -1 || c->cRn[s] != -1)
            err = "neighbour cache not cleared";
    /* full recount: counts, live-occurrence numbers, symbol counts, and every live
     * occurrence present in its pair's position list */
    if (!err) {
        unsigned char *seen = (unsigned char *)calloc((size_t)c->n_slots + 1, 1);
        int64_t *cnt = (int64_t *)calloc((size_t)c->n_pairs + 1, sizeof(int64_t));
        int64_t *occ = (int64_t *)calloc((size_t)c->n_pairs + 1, sizeof(int64_t));
        int64_t *sc = (int64_t *)calloc((size_t)c->n_tokens + 1, sizeof(int64_t));
        if (!seen || !cnt || !occ || !sc) {
            free(seen);
            free(cnt);
            free(occ);
            free(sc);
            return PyErr_NoMemory();
        }
        for (int32_t j = 0; j < c->n_pairs; j++) {
            Pair *p = &c->pairs[j];
            int32_t *d = pos_data(p);
            for (int32_t i = 0; i < p->len; i++)
                if (occ_ok(c, d[i], p->a, p->b))
                    seen[d[i]] = 1;
        }
        int64_t total = 0;
        for (int32_t w = 0; w < c->n_words && !err; w++) {
            if (c->starts[w] == c->starts[w + 1])
                continue;
            int64_t f = c->freq[w];
            for (int32_t i = (int32_t)c->starts[w]; i >= 0 && !err; i = c->sl[i].nxt) {
                int32_t t = c->sl[i].sym, r = c->sl[i].nxt;
                if (t < 0 || t >= c->n_tokens || c->sl[i].wid != w) {
                    err = "bad slot";
                    break;
                }
                sc[t] += f;
                total += f;
                if (r < 0)
                    break;
                if (c->sl[r].prv != i)
                    err = "broken links";
                int32_t pidx = pair_find(c, t, c->sl[r].sym);
                if (pidx < 0)
                    err = "live pair missing from the table";
                else {
                    cnt[pidx] += f;
                    occ[pidx]++;
                    if (!seen[i])
                        err = "live occurrence missing from its position list";
                }
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
    if (err) {
        PyErr_SetString(PyExc_AssertionError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* sizes of the internal structures, for benchmarks */
static PyObject *Core_stats(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_idle(c) < 0)
        return NULL;
    int64_t pos_entries = 0, pos_cap = 0, heap_lists = 0;
    for (int32_t j = 0; j < c->n_pairs; j++) {
        pos_entries += c->pairs[j].len;
        if (c->pairs[j].cap > INLINE_CAP) {
            pos_cap += c->pairs[j].cap;
            heap_lists++;
        }
    }
    int64_t bytes = (int64_t)c->n_slots * sizeof(Slot) + (int64_t)c->pairs_cap * (sizeof(Pair) + sizeof(HEnt)) +
                    ((int64_t)1 << c->hbits) * 12 + pos_cap * 4 + c->rlog_cap * 4 +
                    c->scratch_cap * 4 + c->touched_cap * (int64_t)sizeof(Touch) +
                    (int64_t)c->n_words * 16 + c->tok_buf_cap + (int64_t)c->tok_cap * 56;
    return Py_BuildValue("{s:i,s:i,s:i,s:L,s:L,s:L,s:L,s:L,s:L}", "pairs", c->n_pairs,
                         "pairs_cap", c->pairs_cap, "live_pairs", c->heap_n, "hash_cap",
                         (long long)((int64_t)1 << c->hbits), "pos_entries", (long long)pos_entries,
                         "pos_alloc_lists", (long long)heap_lists, "rlog", (long long)c->rlog_n,
                         "scratch_cap", (long long)c->scratch_cap, "approx_bytes", (long long)bytes);
}

static PyObject *Core_get_n_tokens(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->n_tokens);
}
static PyObject *Core_get_n_steps(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->n_steps);
}
static PyObject *Core_get_n_words(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->n_words);
}
static PyObject *Core_get_tie_rule(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->tie);
}
static PyObject *Core_get_total_symbols(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLongLong((long long)c->total_syms);
}
static PyObject *Core_get_n_pairs(CoreObject *c, void *closure)
{
    return check_idle(c) < 0 ? NULL : PyLong_FromLong(c->heap_n);
}

static PyGetSetDef Core_getset[] = {
    {"n_tokens", (getter)Core_get_n_tokens, NULL, "number of tokens (base + merged)", NULL},
    {"n_steps", (getter)Core_get_n_steps, NULL, "number of merges done", NULL},
    {"n_words", (getter)Core_get_n_words, NULL, "number of words", NULL},
    {"tie_rule", (getter)Core_get_tie_rule, NULL, "the tie rule", NULL},
    {"total_symbols", (getter)Core_get_total_symbols, NULL,
     "frequency-weighted number of symbols in all words now", NULL},
    {"n_pairs", (getter)Core_get_n_pairs, NULL, "number of pairs with count > 0", NULL},
    {NULL}};

static PyMethodDef Core_methods[] = {
    {"best", (PyCFunction)Core_best, METH_NOARGS,
     "best() -> (a, b, count) of the pair the next step merges, or None"},
    {"top", (PyCFunction)Core_top, METH_VARARGS,
     "top(k) -> up to k (a, b, count), best first"},
    {"tied", (PyCFunction)Core_tied, METH_VARARGS,
     "tied(limit) -> (n, pairs): how many pairs share the max count, and the first `limit`"},
    {"step", (PyCFunction)Core_step, METH_NOARGS,
     "step() -> (a, b, new_id, count) or None"},
    {"undo", (PyCFunction)Core_undo, METH_NOARGS,
     "undo() -> (a, b, new_id); IndexError if there is no step"},
    {"run", (PyCFunction)(void (*)(void))Core_run, METH_VARARGS | METH_KEYWORDS,
     "run(n, min_count=1) -> number of steps done"},
    {"history", (PyCFunction)Core_history, METH_VARARGS,
     "history(start) -> [(a, b, new_id, count, n_tied, merged, gone)] of steps start.."},
    {"touched", (PyCFunction)Core_touched, METH_VARARGS,
     "touched(limit) -> (n_words, word_ids) changed by the last step"},
    {"word", (PyCFunction)Core_word, METH_VARARGS, "word(w) -> list of symbol ids"},
    {"pair_count", (PyCFunction)Core_pair_count, METH_VARARGS, "pair_count(a, b) -> int"},
    {"symbol_count", (PyCFunction)Core_symbol_count, METH_VARARGS,
     "symbol_count(t) -> frequency-weighted occurrences of token t"},
    {"token", (PyCFunction)Core_token, METH_VARARGS, "token(t) -> bytes"},
    {"_stats", (PyCFunction)Core_stats, METH_NOARGS, "internal sizes (benchmarks)"},
    {"_check", (PyCFunction)Core_check, METH_NOARGS, "internal consistency check (tests)"},
    {NULL}};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_gui.engine._core.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Core(symbols, starts, freqs, token_bytes, tie_rule)\n\n"
              "Incremental BPE training state with exact undo.",
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
    .tp_new = Core_new,
};

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "_core", "Fast incremental BPE training core.", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "GREATEST", TIE_GREATEST) < 0 ||
        PyModule_AddIntConstant(m, "FIRST_SEEN", TIE_FIRST_SEEN) < 0 ||
        PyModule_AddIntConstant(m, "LOWEST_IDS", TIE_LOWEST_IDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
