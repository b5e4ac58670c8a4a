/*
 * core: the tables -- token bytes (with an 8-byte prefix for fast comparison), the
 * pair table (a dense matrix for small ids, an open-addressing hash for the rest) and
 * the histogram count -> number of pairs with that count (how many pairs tie).
 */
/* BPE_NO_MREMAP: the other systems' realloc route on Linux too (the nosimd variant of
 * tools/ci_variants.sh builds it, so that route is tested here) */
#if defined(__linux__) && !defined(BPE_NO_MREMAP)
#define BPE_MREMAP 1
#define _GNU_SOURCE /* mremap */
#endif
#include "core/core.h"

#if defined(BPE_MREMAP)
#include <sys/mman.h>
#endif

/* ---- large arrays ---- */

/* The pair records, the heap, FIRST_SEEN's bounds and the hash grow to tens of MB. From
 * malloc each growth would copy them, the old block alive meanwhile, and leave its hole
 * in the heap (glibc serves blocks of megabytes from the heap once such a block has
 * been freed). On Linux each is a mapping of its own, which mremap moves without
 * copying. *p is NULL or a block of old_bytes; -1 when out of memory (*p unchanged). */
int big_grow(void **p, size_t old_bytes, size_t new_bytes)
{
#if defined(BPE_MREMAP)
    void *q = *p ? mremap(*p, old_bytes, new_bytes, MREMAP_MAYMOVE)
                 : mmap(NULL, new_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (q == MAP_FAILED)
        return -1;
#else
    (void)old_bytes;
    void *q = realloc(*p, new_bytes);
    if (!q)
        return -1;
#endif
    *p = q;
    return 0;
}

void big_free(void *p, size_t bytes)
{
#if defined(BPE_MREMAP)
    if (p)
        (void)munmap(p, bytes);
#else
    (void)bytes;
    free(p);
#endif
}


/* ---- tokens ---- */

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

int ensure_tok_cap(BpeCore *c, int64_t need)
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
    RE(span, int32_t)
    RE(tok_pfx, uint64_t)
    RE(symcount, int64_t)
    RE(cLo, int32_t)
    RE(cLn, int32_t)
    RE(cRo, int32_t)
    RE(cRn, int32_t)
    RE(usedL, int32_t)
    RE(usedR, int32_t)
    if (c->n_cols) {
        RE(tsym, int64_t)
    }
#undef RE
    for (int64_t i = c->tok_cap; i < nc; i++) {
        c->cLo[i] = c->cLn[i] = c->cRo[i] = c->cRn[i] = -1;
        c->symcount[i] = 0;
        if (c->n_cols)
            c->tsym[i] = 0;
    }
    c->tok_cap = (int32_t)nc;
    return 0;
}

int ensure_tok_buf(BpeCore *c, int64_t extra)
{
    return bpe_grow((void **)&c->tok_buf, &c->tok_buf_cap, (size_t)(c->tok_buf_len + extra), 1,
                    4096);
}

/* caller reserved tok_cap and tok_buf */
void tok_append(BpeCore *c, const char *s, int64_t len)
{
    int32_t t = c->n_tokens++;
    c->tok_off[t] = c->tok_buf_len;
    c->tok_len[t] = (int32_t)len;
    if (len)
        memcpy(c->tok_buf + c->tok_buf_len, s, (size_t)len);
    c->tok_buf_len += len;
    c->tok_pfx[t] = make_pfx(c->tok_buf + c->tok_off[t], len);
    c->symcount[t] = 0;
    c->span[t] = 1;
}

void tok_append_concat(BpeCore *c, int32_t a, int32_t b)
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
    if (c->n_cols)
        c->tsym[t] = 0;
    /* a token spanning more cells than there are never occurs: clamping keeps it so */
    int64_t sp = (int64_t)c->span[a] + c->span[b];
    c->span[t] = sp > INT32_MAX ? INT32_MAX : (int32_t)sp;
}

/* ---- pair table ---- */

/* The hash: 8-byte entries, the top 32 bits of the pair's hash above its record index
 * (H_EMPTY: none), so a probe reads a record only when the hashes agree, and a resize or
 * a deletion finds an entry's home slot without reading records. Linear probing, at
 * most three quarters full, with backward-shift deletion when a pair dies. */

static inline uint32_t phash(int32_t a, int32_t b)
{
    return (uint32_t)((pkey(a, b) * 0x9E3779B97F4A7C15ULL) >> 32);
}

static inline uint64_t home(uint64_t e, int bits)
{
    return (e >> 32) >> (32 - bits);
}

int32_t pair_find(const BpeCore *c, int32_t a, int32_t b)
{
    if (a < c->dense_n && b < c->dense_n)
        return c->dense[(int64_t)a * c->dense_n + b];
    uint32_t h = phash(a, b);
    uint64_t mask = ((uint64_t)1 << c->hbits) - 1;
    uint64_t i = h >> (32 - c->hbits);
    for (;;) {
        uint64_t e = c->hent[i];
        if (e == H_EMPTY)
            return -1;
        if ((uint32_t)(e >> 32) == h) {
            int32_t v = (int32_t)(uint32_t)e;
            if (c->pairs[v].a == a && c->pairs[v].b == b)
                return v;
        }
        i = (i + 1) & mask;
    }
}

int hash_resize(BpeCore *c, int bits)
{
    uint64_t n = (uint64_t)1 << bits;
    uint64_t *ne = NULL;
    if (big_grow((void **)&ne, 0, n * sizeof(uint64_t)) < 0)
        return -1;
    memset(ne, 0xff, n * sizeof(uint64_t));
    uint64_t mask = n - 1;
    if (c->hent) {
        uint64_t on = (uint64_t)1 << c->hbits;
        for (uint64_t j = 0; j < on; j++) {
            uint64_t e = c->hent[j];
            if (e == H_EMPTY)
                continue;
            uint64_t i = home(e, bits);
            while (ne[i] != H_EMPTY)
                i = (i + 1) & mask;
            ne[i] = e;
        }
    }
    if (c->hent)
        big_free(c->hent, ((size_t)1 << c->hbits) * sizeof(uint64_t));
    c->hent = ne;
    c->hbits = bits;
    return 0;
}

/* make room for `extra` new pairs (pair array, heap and hash); dead pairs' records are
 * used again first */
int ensure_pairs(BpeCore *c, int64_t extra)
{
    int64_t fresh = extra - c->n_free;
    int64_t need = (int64_t)c->n_pairs + (fresh > 0 ? fresh : 0);
    if (need > INT32_MAX - 16)
        return -1;
    if (need > c->pairs_cap) {
        /* grow by a quarter: the records are most of the table, and realloc of a large
         * block moves pages rather than copying them */
        int64_t nc = c->pairs_cap < 1024 ? 1024 : c->pairs_cap + c->pairs_cap / 4;
        if (nc < need)
            nc = need;
        if (nc > INT32_MAX - 16)
            nc = INT32_MAX - 16;
        /* all three grow to nc before pairs_cap says so (a failure leaves some larger) */
        if (big_grow((void **)&c->pairs, c->pairs_mcap * sizeof(Pair), (size_t)nc * sizeof(Pair)) < 0)
            return -1;
        c->pairs_mcap = (size_t)nc;
        if (!c->n_cols) {   /* (a core with columns keeps no main heap) */
            if (big_grow((void **)&c->heap, c->heap_cap * sizeof(HEnt), (size_t)nc * sizeof(HEnt)) < 0)
                return -1;
            c->heap_cap = (size_t)nc;
        }
        if (c->tie == TIE_FIRST_SEEN) {
            if (big_grow((void **)&c->first, c->first_cap * sizeof(int32_t),
                         (size_t)nc * sizeof(int32_t)) < 0)
                return -1;
            c->first_cap = (size_t)nc;
        }
        c->pairs_cap = (int32_t)nc;
    }
    if (c->n_heaped && c->pcol_cap < (size_t)c->pairs_cap && col_grow_pairs(c) < 0)
        return -1;
    int bits = c->hbits;
    while ((c->hcount + extra) * 4 > ((int64_t)3 << bits))
        bits++;
    if (bits > 31)
        return -1;
    if (bits != c->hbits || !c->hent)
        if (hash_resize(c, bits) < 0)
            return -1;
    return 0;
}

int col_grow_pairs(BpeCore *c)
{
    size_t n = (size_t)c->pairs_cap;
    if (big_grow((void **)&c->pcol, c->pcol_cap * sizeof(PCol), n * sizeof(PCol)) < 0)
        return -1;
    c->pcol_cap = n;
    return 0;
}

int col_reserve_rows(BpeCore *c, int64_t n)
{
    size_t rows = (size_t)c->n_prows + (size_t)n, H = (size_t)c->n_heaped;
    if (bpe_grow((void **)&c->prows, &c->prows_cap, rows * H, sizeof(PCol), 64 * H) < 0)
        return -1;
    /* (every row may be freed at once) */
    return bpe_grow((void **)&c->free_rows, &c->free_rows_cap, rows, sizeof(int32_t), 64);
}

PCol *pc_slot(BpeCore *c, int32_t p, int32_t col)
{
    PCol *e = pc_find(c, p, col);
    if (e)
        return e;
    e = &c->pcol[p];
    /* its one column free (no count, in no heap of a column kept up to date): taken */
    if (e->col == -1 || (e->cnt == 0 && e->hpos < 0)) {
        e->col = col;
        e->cnt = 0;
        e->hpos = -1;
        return e;
    }
    int32_t H = c->n_heaped;
    int32_t r = c->n_free_rows ? c->free_rows[--c->n_free_rows] : c->n_prows++;
    PCol *row = &c->prows[(int64_t)r * H];
    for (int32_t h = 0; h < H; h++) {
        row[h].cnt = 0;
        row[h].hpos = -1;
        row[h].col = h;
    }
    row[e->col] = *e;
    e->col = -2 - r;
    e->cnt = 0;
    e->hpos = -1;
    return &row[col];
}

void pc_release(BpeCore *c, int32_t p)
{
    PCol *e = &c->pcol[p];
    if (e->col <= -2)
        c->free_rows[c->n_free_rows++] = -2 - e->col;
    e->col = -1;
    e->cnt = 0;
    e->hpos = -1;
}

/* find or create; the caller must have reserved room with ensure_pairs */
int32_t pair_get(BpeCore *c, int32_t a, int32_t b)
{
    int32_t *slotp;
    uint64_t *hslotp = NULL, hbits32 = 0;
    if (a < c->dense_n && b < c->dense_n) {
        slotp = &c->dense[(int64_t)a * c->dense_n + b];
        if (*slotp >= 0)
            return *slotp;
    } else {
        uint32_t h = phash(a, b);
        uint64_t mask = ((uint64_t)1 << c->hbits) - 1;
        uint64_t i = h >> (32 - c->hbits);
        for (;;) {
            uint64_t e = c->hent[i];
            if (e == H_EMPTY)
                break;
            if ((uint32_t)(e >> 32) == h) {
                int32_t v = (int32_t)(uint32_t)e;
                if (c->pairs[v].a == a && c->pairs[v].b == b)
                    return v;
            }
            i = (i + 1) & mask;
        }
        hslotp = &c->hent[i];
        hbits32 = (uint64_t)h << 32;
        slotp = NULL;
        c->hcount++;
    }
    int32_t idx;
    if (c->n_free > 0) {
        idx = c->free_head;
        c->free_head = c->pairs[idx].pos.inl[0];
        c->n_free--;
    } else {
        idx = c->n_pairs++;
    }
    Pair *p = &c->pairs[idx];
    p->count = 0;
    p->pos.ptr = NULL;
    p->a = a;
    p->b = b;
    p->len = 0;
    p->cap = INLINE_CAP;
    p->nocc = 0;
    p->hpos = -1;
    p->in_batch = 0;
    p->dirty = 0;
    if (c->first)
        c->first[idx] = INT32_MAX;
    if (c->n_heaped)
        col_new_pair(c, idx);
    if (slotp)
        *slotp = idx;
    else
        *hslotp = hbits32 | (uint32_t)idx;
    return idx;
}

/* A pair that no longer occurs (count 0, out of the heap, its list freed) leaves the
 * table; its record keeps a and b (bpe_core_changed reads them after the step) until a
 * later step takes it for a new pair. */
void pair_drop(BpeCore *c, int32_t idx)
{
    Pair *p = &c->pairs[idx];
    int32_t a = p->a, b = p->b;
    if (a < c->dense_n && b < c->dense_n) {
        c->dense[(int64_t)a * c->dense_n + b] = -1;
    } else {
        uint64_t mask = ((uint64_t)1 << c->hbits) - 1;
        uint64_t i = phash(a, b) >> (32 - c->hbits);
        while ((int32_t)(uint32_t)c->hent[i] != idx)
            i = (i + 1) & mask;
        /* backward-shift deletion */
        uint64_t j = i;
        for (;;) {
            j = (j + 1) & mask;
            uint64_t e = c->hent[j];
            if (e == H_EMPTY)
                break;
            uint64_t k = home(e, c->hbits);
            int move = (j > i) ? (k <= i || k > j) : (k <= i && k > j);
            if (move) {
                c->hent[i] = e;
                i = j;
            }
        }
        c->hent[i] = H_EMPTY;
        c->hcount--;
    }
    p->pos.inl[0] = c->free_head;   /* (its list is freed: cap is INLINE_CAP) */
    c->free_head = idx;
    c->n_free++;
}

/* ---- histogram ---- */

static inline uint64_t hbslot(int64_t k, int bits)
{
    return ((uint64_t)k * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

int hb_resize(BpeCore *c, int bits)
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

int64_t hist_get(const BpeCore *c, int64_t cnt)
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

int hist_add(BpeCore *c, int64_t cnt, int d)
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
