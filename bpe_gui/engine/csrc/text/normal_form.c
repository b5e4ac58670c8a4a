/*
 * normal_form.c -- NFC and NFKC of short stretches (see normal_form.h): decompose each
 * character (by the tables; Hangul syllables by rule), put each run of combining marks in
 * canonical order (a stable sort by class), compose (the standard's algorithm: a mark
 * joins the last starter unless a mark of its class or higher, or a starter, stands
 * between them; Hangul by rule, the rest by the table of primary composites).
 */
#include "text/normal_form.h"

#include <stdlib.h>
#include <string.h>

enum { S_BASE = 0xAC00, L_BASE = 0x1100, V_BASE = 0x1161, T_BASE = 0x11A7,
       L_COUNT = 19, V_COUNT = 21, T_COUNT = 28, N_COUNT = V_COUNT * T_COUNT,
       S_COUNT = L_COUNT * N_COUNT };

int nf_tables(NfTables *t, const void *blob, size_t size)
{
    const unsigned char *p = blob;
    uint32_t head[5];
    if (size < sizeof(head))
        return -1;
    memcpy(head, p, sizeof(head));
    if (head[0] != NF_MAGIC || head[1] == 0)
        return -1;
    t->n_blocks = head[1], t->n_recs = head[2], t->n_decomp = head[3], t->n_pairs = head[4];
    size_t at = sizeof(head);
    size_t need = at + 2 * (NF_STAGE1 + t->n_blocks * 256);
    need = (need + 3) & ~(size_t)3;
    size_t recs_at = need;
    need += 4 * (t->n_recs + t->n_decomp);
    need = (need + 7) & ~(size_t)7;
    size_t keys_at = need;
    need += 12 * t->n_pairs;
    if (need != size || ((uintptr_t)p & 7))
        return -1;
    t->stage1 = (const uint16_t *)(p + at);
    t->stage2 = t->stage1 + NF_STAGE1;
    t->recs = (const uint32_t *)(p + recs_at);
    t->decomp = t->recs + t->n_recs;
    t->keys = (const uint64_t *)(p + keys_at);
    t->composites = (const uint32_t *)(t->keys + t->n_pairs);
    for (size_t i = 0; i < NF_STAGE1; i++)
        if (t->stage1[i] >= t->n_blocks)
            return -1;
    for (size_t i = 0; i < t->n_blocks * 256; i++)
        if (t->stage2[i] > t->n_recs || (i < 256 && t->stage2[i]))
            return -1; /* (block 0 is the empty one) */
    for (size_t i = 0; i < t->n_recs; i++)
        if ((t->recs[i] >> 13) + (t->recs[i] >> 8 & 31) > t->n_decomp)
            return -1;
    for (size_t i = 1; i < t->n_pairs; i++)
        if (t->keys[i - 1] >= t->keys[i])
            return -1;
    return 0;
}

static inline uint32_t rec_of(const NfTables *t, uint32_t cp)
{
    if (cp >= 0x110000)
        return 0;
    size_t r = t->stage2[(size_t)t->stage1[cp >> 8] * 256 + (cp & 255)];
    return r ? t->recs[r - 1] : 0;
}

static inline int ccc(const NfTables *t, uint32_t cp)
{
    return (int)(rec_of(t, cp) & 0xFF);
}

/* the primary composite of a and b, or 0 */
static uint32_t compose(const NfTables *t, uint32_t a, uint32_t b)
{
    if (a - L_BASE < L_COUNT && b - V_BASE < V_COUNT)
        return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) * T_COUNT;
    if (a - S_BASE < S_COUNT && (a - S_BASE) % T_COUNT == 0 && b - T_BASE - 1 < T_COUNT - 1)
        return a + (b - T_BASE);
    uint64_t key = (uint64_t)a << 21 | b;
    size_t lo = 0, hi = t->n_pairs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n_pairs && t->keys[lo] == key ? t->composites[lo] : 0;
}

size_t nf_compose(const NfTables *t, const uint32_t *in, size_t n, uint32_t *out,
                  uint32_t *work, size_t room)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) { /* decompose */
        uint32_t cp = in[i];
        if (cp - S_BASE < S_COUNT) {
            uint32_t s = cp - S_BASE;
            if (m + 3 > room)
                return (size_t)-1;
            work[m++] = L_BASE + s / N_COUNT;
            work[m++] = V_BASE + s % N_COUNT / T_COUNT;
            if (s % T_COUNT)
                work[m++] = T_BASE + s % T_COUNT;
            continue;
        }
        uint32_t r = rec_of(t, cp), len = r >> 8 & 31;
        if (m + (len ? len : 1) > room)
            return (size_t)-1;
        if (len) {
            memcpy(work + m, t->decomp + (r >> 13), len * sizeof(uint32_t));
            m += len;
        } else {
            work[m++] = cp;
        }
    }
    for (size_t i = 1; i < m; i++) { /* canonical order: marks sorted by class, stably */
        uint32_t c = work[i];
        int cc = ccc(t, c);
        size_t j = i;
        while (cc && j > 0 && ccc(t, work[j - 1]) > cc) {
            work[j] = work[j - 1];
            j--;
        }
        work[j] = c;
    }
    if (!m)
        return 0;
    size_t k = 1, sp = 0; /* the last starter at out[sp] */
    out[0] = work[0];
    int last = ccc(t, work[0]) ? 256 : 0; /* (a mark first: nothing composes with it) */
    for (size_t i = 1; i < m; i++) {
        uint32_t c = work[i], made;
        int cc = ccc(t, c);
        if ((last < cc || last == 0) && (made = compose(t, out[sp], c)) != 0) {
            out[sp] = made;
            continue;
        }
        if (cc == 0)
            sp = k;
        last = cc;
        out[k++] = c;
    }
    return k;
}

/* ---- where a text may change */

static inline uint64_t load_chars(const void *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

#define HIGH1 0x8080808080808080ull /* per character kind: the bits above 0x7F */
#define HIGH2 0xFF80FF80FF80FF80ull
#define HIGH4 0xFFFFFF80FFFFFF80ull

#define IN_SET(c) ((c) < top && (b[(c) >> 3] >> ((c) & 7) & 1))
#define ALL_IN_LOOP(T, HIGH)                                                              \
    do {                                                                                  \
        const T *q = (const T *)data;                                                     \
        const size_t per = 8 / sizeof(T);                                                 \
        size_t i = 0;                                                                     \
        for (; ascii_in && ok && i + per <= n; i += per)                                  \
            if (load_chars(q + i) & (HIGH))                                               \
                for (size_t k = 0; k < per; k++)                                          \
                    ok &= IN_SET((uint32_t)q[i + k]);                                     \
        for (; ok && i < n; i++)                                                          \
            ok = IN_SET((uint32_t)q[i]);                                                  \
    } while (0)

int nf_all_in(int kind, const void *data, size_t n, const unsigned char *bits, uint32_t top)
{
    const unsigned char *b = bits;
    int ok = 1, ascii_in = 1; /* every ASCII character is in the set: runs of them skipped */
    for (int i = 0; i < 16; i++)
        ascii_in &= b[i] == 0xFF;
    if (kind == 1)
        ALL_IN_LOOP(uint8_t, HIGH1);
    else if (kind == 2)
        ALL_IN_LOOP(uint16_t, HIGH2);
    else
        ALL_IN_LOOP(uint32_t, HIGH4);
    return ok;
}

static int stretch_add(NfStretches *s, int64_t a, int64_t z)
{
    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        int64_t *v = (int64_t *)realloc(s->v, cap * sizeof(int64_t));
        if (!v)
            return -1;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = a;
    s->v[s->n++] = z;
    return 0;
}

#define STRETCH_LOOP(T)                                                                   \
    do {                                                                                  \
        const T *q = (const T *)data;                                                     \
        for (ptrdiff_t i = 0; i < len; i++) {                                             \
            uint32_t c = q[i];                                                            \
            if (IN_SET(c)) {                                                              \
                last_safe = i;                                                            \
                continue;                                                                 \
            }                                                                             \
            ptrdiff_t s0 = last_safe, j = i;                                              \
            for (;;) {                                                                    \
                if (known && c > 0xFFFF && !(known[c >> 11] >> (c >> 8 & 7) & 1))         \
                    missing[c >> 11] |= (unsigned char)(1u << (c >> 8 & 7));              \
                if (++j == len)                                                           \
                    break;                                                                \
                c = q[j];                                                                 \
                if (IN_SET(c))                                                            \
                    break;                                                                \
            }                                                                             \
            if (zs >= 0 && s0 - ze < gap) {                                               \
                ze = j; /* join */                                                        \
            } else {                                                                      \
                if (zs >= 0 && stretch_add(out, zs, ze) < 0)                              \
                    return -1;                                                            \
                zs = s0, ze = j;                                                          \
            }                                                                             \
            i = j - 1;                                                                    \
            last_safe = j; /* (j < len: the safe character at j) */                       \
        }                                                                                 \
    } while (0)

int nf_stretches(int kind, const void *data, size_t n, const unsigned char *bits, uint32_t top,
                 ptrdiff_t gap, const unsigned char *known, unsigned char *missing,
                 NfStretches *out)
{
    const unsigned char *b = bits;
    ptrdiff_t len = (ptrdiff_t)n, last_safe = 0, zs = -1, ze = -1;
    if (kind == 1)
        STRETCH_LOOP(uint8_t);
    else if (kind == 2)
        STRETCH_LOOP(uint16_t);
    else
        STRETCH_LOOP(uint32_t);
    return zs >= 0 ? stretch_add(out, zs, ze) : 0;
}

static void widen(int kind, const void *data, size_t a, size_t b, uint32_t *to)
{
    if (kind == 1)
        for (size_t i = a; i < b; i++)
            to[i - a] = ((const uint8_t *)data)[i];
    else if (kind == 2)
        for (size_t i = a; i < b; i++)
            to[i - a] = ((const uint16_t *)data)[i];
    else
        memcpy(to, (const uint32_t *)data + a, (b - a) * sizeof(uint32_t));
}

static inline int char_class(uint32_t c)
{
    return c < 0x80 ? 0 : c < 0x100 ? 1 : c < 0x10000 ? 2 : 3;
}

int nf_forms(const NfTables *t, int kind, const void *data, size_t n, const int64_t *sp,
             size_t ns, NfForms *f)
{
    uint32_t *in = NULL, *work = NULL;
    size_t cap = 64, room = 0;
    int rc = 0;
    f->used = 0, f->kept = n, f->changed = 0, f->cls = 0;
    f->out = (uint32_t *)malloc(cap * sizeof(uint32_t));
    f->len = (size_t *)malloc((ns / 2 + 1) * sizeof(size_t));
    if (!f->out || !f->len)
        return NF_NOMEM;
    int64_t last = 0;
    for (size_t k = 0; k < ns; k += 2) {
        int64_t s = sp[k], e = sp[k + 1]; /* (checked before any use as an index) */
        if (s < last || e < s || e > (int64_t)n) {
            rc = NF_BAD_SPANS;
            break;
        }
        size_t want = 18 * (size_t)(e - s) + 4; /* (a character decomposes to 18 at most) */
        if (want > room) {
            free(in), free(work);
            work = NULL;
            if (!(in = (uint32_t *)malloc(want * sizeof(uint32_t))) ||
                !(work = (uint32_t *)malloc(want * sizeof(uint32_t)))) {
                rc = NF_NOMEM;
                break;
            }
            room = want;
        }
        if (f->used + want > cap) {
            size_t c2 = (f->used + want) * 2;
            uint32_t *b2 = (uint32_t *)realloc(f->out, c2 * sizeof(uint32_t));
            if (!b2) {
                rc = NF_NOMEM;
                break;
            }
            f->out = b2, cap = c2;
        }
        widen(kind, data, (size_t)s, (size_t)e, in);
        uint32_t *o = f->out + f->used;
        size_t m = nf_compose(t, in, (size_t)(e - s), o, work, room);
        if (m == (size_t)-1) {
            rc = NF_NO_ROOM;
            break;
        }
        if (m != (size_t)(e - s) || memcmp(in, o, m * sizeof(uint32_t)))
            f->changed = 1;
        int cls = f->cls;
        for (size_t i = 0; i < m; i++)
            if (char_class(o[i]) > cls)
                cls = char_class(o[i]);
        f->cls = cls;
        f->len[k / 2] = m;
        f->used += m;
        f->kept -= (size_t)(e - s);
        last = e;
    }
    free(in), free(work);
    return rc;
}

void nf_forms_free(NfForms *f)
{
    free(f->out), free(f->len);
    f->out = NULL, f->len = NULL;
}

static inline uint32_t char_at(int kind, const void *data, size_t i)
{
    return kind == 1 ? ((const uint8_t *)data)[i]
           : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
}

static inline void char_put(int kind, void *data, size_t i, uint32_t c)
{
    if (kind == 1)
        ((uint8_t *)data)[i] = (uint8_t)c;
    else if (kind == 2)
        ((uint16_t *)data)[i] = (uint16_t)c;
    else
        ((uint32_t *)data)[i] = c;
}

/* the part of the text kept before stretch k (k == ns / 2: after the last) */
#define KEPT_FROM(k) ((k) ? (size_t)sp[2 * (k) - 1] : 0)
#define KEPT_TO(k) ((k) < np ? (size_t)sp[2 * (k)] : n)

int nf_result_class(const NfForms *f, int kind, const void *data, size_t n, const int64_t *sp,
                    size_t ns, int top)
{
    int cls = f->cls;
    size_t np = ns / 2;
    for (size_t k = 0; k <= np && cls < top; k++)
        for (size_t i = KEPT_FROM(k); i < KEPT_TO(k) && cls < top; i++)
            if (char_class(char_at(kind, data, i)) > cls)
                cls = char_class(char_at(kind, data, i));
    return cls;
}

/* n code points from `in` to `kind`-byte characters at out (a loop per kind) */
static void narrow(const uint32_t *in, size_t n, int kind, void *out)
{
    if (kind == 1)
        for (size_t i = 0; i < n; i++)
            ((uint8_t *)out)[i] = (uint8_t)in[i];
    else if (kind == 2)
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)out)[i] = (uint16_t)in[i];
    else
        memcpy(out, in, n * sizeof(uint32_t));
}

void nf_assemble(const NfForms *f, int kind, const void *data, size_t n, const int64_t *sp,
                 size_t ns, int rkind, void *rdata)
{
    size_t np = ns / 2, j = 0, at = 0;
    const uint32_t *outs = f->out; /* (locals: stores through rdata could alias f) */
    const size_t *lens = f->len;
    char *r = (char *)rdata;
    for (size_t k = 0; k <= np; k++) {
        size_t a = KEPT_FROM(k), z = KEPT_TO(k);
        if (rkind == kind) { /* the part kept, whole */
            memcpy(r + j * (size_t)kind, (const char *)data + a * (size_t)kind,
                   (z - a) * (size_t)kind);
        } else {
            for (size_t i = a; i < z; i++)
                char_put(rkind, r, j + i - a, char_at(kind, data, i));
        }
        j += z - a;
        if (k == np)
            break;
        narrow(outs + at, lens[k], rkind, r + j * (size_t)rkind);
        j += lens[k];
        at += lens[k];
    }
}

void nf_astral_blocks(int kind, const void *data, size_t n, unsigned char *blocks)
{
    memset(blocks, 0, NF_BLOCK_BYTES);
    if (kind != 4)
        return;
    /* a byte a block (a plain store: setting bits would wait on the last store) */
    unsigned char seen[0x110000 >> 8] = {0};
    const uint32_t *p = (const uint32_t *)data;
    for (size_t i = 0; i < n; i++)
        seen[(p[i] < 0x110000 ? p[i] : 0) >> 8] = 1;
    for (size_t b = 0x100; b < sizeof seen; b++)
        blocks[b >> 3] |= (unsigned char)(seen[b] << (b & 7));
}
