/*
 * core: sorting cell positions, and the position lists of pairs
 * (every live occurrence of a pair is in its list; stale entries are dropped lazily).
 */
#include "core/core.h"
#include "core/core_lists.h"

/* ---- sorting int32 (non-negative values) ---- */

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

int ensure_scratch(BpeCore *c, int64_t n)
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

void sort_i32(BpeCore *c, int32_t *a, int64_t n)
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

/* ---- position lists ---- */

/* drop invalid entries (and duplicates if `dedupe`); for FIRST_SEEN make first exact */
void pos_compact(BpeCore *c, int32_t pidx, int dedupe)
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
    if (c->first) {
        c->first[pidx] = mn;
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
                p->cap = (unsigned int)nc;
            }
        }
    }
}

/* the slow path of pos_push (core.h): the list is full; compact it or make it larger */
int pos_grow(BpeCore *c, int32_t pidx)
{
    Pair *p = &c->pairs[pidx];
    if ((int64_t)p->len >= 2 * (int64_t)p->nocc + 8)
        pos_compact(c, pidx, 1);
    if (p->len == p->cap) {
        int64_t nc = p->cap <= INLINE_CAP ? 8 : 2 * (int64_t)p->cap;
        if (nc >= POS_CAP_MAX)
            nc = POS_CAP_MAX - 1;
        if (nc <= p->len)
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
            c->freed_bytes += (int64_t)p->cap * 4;   /* (when it moved) */
        }
        p->pos.ptr = np;
        p->cap = (unsigned int)nc;
    }
    return 0;
}
