/*
 * core: one merge step and its exact undo (both touch only the occurrences of the merged
 * pair and their neighbours: see core.h for the cell layout and the undo log), and
 * run(n), steps while the best count is high enough.
 */
#include "core/core.h"
#include "util/portable.h"
#include "core/core_lists.h"
#include "util/heap_trim.h"
#include "util/grow.h"

/* Position lists are many small blocks that die and grow all through training; glibc
 * keeps the pages they freed in the process (they count in its memory) until asked.
 * run() gives them back each time this much has been freed. */
#define TRIM_BYTES ((int64_t)8 << 20)

static void trim_heap(BpeCore *c)
{
    if (c->freed_bytes < TRIM_BYTES)
        return;
    c->freed_bytes = 0;
    bpe_heap_trim();
}

static void clear_caches(BpeCore *c)
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
static inline void left_pairs(BpeCore *c, int32_t s, int32_t a, int32_t nw, int32_t *po,
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
static inline void right_pairs(BpeCore *c, int32_t s, int32_t b, int32_t nw, int32_t *po,
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

#define WORD_AHEAD 6
#define WORD_QUEUE 16   /* > WORD_AHEAD + 1, a power of 2 */

typedef struct {
    int32_t sep, w;     /* a word's separator cell, and the word */
} WordRef;

typedef struct {
    WordRef q[WORD_QUEUE];
    int head, tail;
    int32_t ahead;      /* the separator of the last word queued */
} WordQueue;

/* The look-up stage of merge_pair: when cell x holds an occurrence of (a, b) past the
 * last word queued, its word is queued and its count fetched into the cache. Only
 * occurrences are queued: so every word queued has one merged or taken by an earlier
 * merge in it, and the queue never holds more than the words of WORD_AHEAD + 1 cells. */
static inline void queue_word(const BpeCore *c, WordQueue *wq, int32_t x, int32_t a, int32_t b,
                              int32_t sa)
{
    if (x <= wq->ahead || c->sym[x] != a || c->sym[x + sa] != b)
        return;
    int32_t sep, w = word_at(c, x, &sep);
    BPE_PREFETCH(&c->freq[w]);
    wq->q[wq->tail].sep = sep;
    wq->q[wq->tail].w = w;
    wq->tail = (wq->tail + 1) & (WORD_QUEUE - 1);
    wq->ahead = sep;
    if (c->n_cols) {
        /* a word's column entries are found through wc_start: the start now, the
         * entries of a word queued two words ago (its start in cache by then) */
        BPE_PREFETCH(&c->wc_start[w]);
        if (((wq->tail - wq->head) & (WORD_QUEUE - 1)) >= 3) {
            int32_t back = wq->q[(wq->tail - 3) & (WORD_QUEUE - 1)].w;
            BPE_PREFETCH(&c->wc[c->wc_start[back]]);
        }
    }
}

/* Merge the pair (a, b), whose index is w (-1 when it never occurred): every live
 * occurrence, left to right, into the token `into` (one made before, whose cells a and b
 * fill exactly) or, when `into` is -1, into a new token, made even where there is no
 * occurrence, so ids stay in step with a merge list replayed on another sample. 1 done,
 * -1 on error. */
static int merge_pair(BpeCore *c, int32_t w, int32_t a, int32_t b, int32_t into, int *err,
                      StepRec *out)
{
    Pair *p = w >= 0 ? &c->pairs[w] : NULL;
    int64_t count = p ? p->count : 0;
    int64_t k = count > 0 ? p->len : 0;
    /* (a core with columns keeps no histogram) */
    int64_t n_tied = count > 0 && !c->n_cols ? hist_get(c, count) : 0;

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
    int64_t rbase = c->keep_undo ? c->rlog_n : 0;
    if (c->n_tokens >= MAX_IDS - 2 ||
        ensure_tok_cap(c, (int64_t)c->n_tokens + 1) < 0 ||
        ensure_tok_buf(c, (int64_t)c->tok_len[a] + c->tok_len[b]) < 0 ||
        ensure_pairs(c, newp) < 0 ||
        bpe_grow((void **)&c->touched, &c->touched_cap, (size_t)nt, sizeof(Touch), 16) < 0 ||
        bpe_grow((void **)&c->rlog, &c->rlog_cap, (size_t)(rbase + k), sizeof(int32_t),
                 16) < 0 ||
        (c->n_cols && col_reserve(c, nt) < 0)) {
        *err = ERR_NOMEM;
        return -1;
    }
    if (c->n_steps == c->steps_cap) {
        size_t cap = (size_t)c->steps_cap;
        if (bpe_grow((void **)&c->steps, &cap, (size_t)c->n_steps + 1, sizeof(StepRec), 16) < 0) {
            *err = ERR_NOMEM;
            return -1;
        }
        c->steps_cap = (int32_t)cap;
    }
    ensure_scratch(c, k); /* optional: sort falls back to heapsort */

    int32_t nw = into;
    if (into < 0) {
        nw = c->n_tokens;
        tok_append_concat(c, a, b);
    }

    /* detach the positions of (a, b) */
    int32_t local[INLINE_CAP];
    int32_t *pos = local;
    int heap_alloc = 0;
    if (k > 0) {
        p = &c->pairs[w];
        heap_alloc = p->cap > INLINE_CAP;
        if (heap_alloc) {
            pos = p->pos.ptr;
            c->freed_bytes += (int64_t)p->cap * 4;
        }
        else
            memcpy(local, p->pos.inl, sizeof(local));
        p->pos.ptr = NULL;
        p->cap = INLINE_CAP;
        p->len = 0;
        sort_i32(c, pos, k);
    }

    batch_begin(c);
    c->rlog_n = rbase;
    int64_t rstart = rbase;
    int32_t *sym = c->sym;
    const int32_t sa = c->span[a], sb = c->span[b];
    int broken = 0;
    int64_t removed_w = 0;
    int32_t lastL = -1;
    /* The words of the occurrences, looked up WORD_AHEAD positions ahead of the merging
     * so that their counts are in cache when needed, queued in cell order. A cell's word
     * never changes, and an occurrence at its merge was one at its look-up (a step writes
     * no a or b into a cell), so the word of every occurrence merged is in the queue:
     * the first entry whose separator is at or past its cell. */
    WordQueue wq;
    wq.head = wq.tail = 0;
    wq.ahead = -1;
    int32_t whi = -1;                /* the separator of the word being merged, ... */
    int64_t f = 0;                   /* ... its count */
    int32_t wcur = -1;               /* ... and its number */
    int64_t removed_t = 0;           /* occurrences merged, weighted by the n_train columns */
    for (int64_t j = 0; j < k && j < WORD_AHEAD; j++)
        queue_word(c, &wq, pos[j], a, b, sa);
    for (int64_t i = 0; i < k; i++) {
        int32_t L = pos[i];
        if (i + 12 < k)
            BPE_PREFETCH_W(&sym[pos[i + 12]]);
        if (i + WORD_AHEAD < k)
            queue_word(c, &wq, pos[i + WORD_AHEAD], a, b, sa);
        if (L == lastL)
            continue;
        lastL = L;
        if (sym[L] != a)
            continue;
        int32_t R = L + sa;
        if (sym[R] != b)
            continue;
        int32_t N = R + sb;
        int32_t sn = sym[N];   /* < 0: the word's end */
        if (L > whi) {
            while (wq.head != wq.tail && wq.q[wq.head].sep < L)
                wq.head = (wq.head + 1) & (WORD_QUEUE - 1);
            if (wq.head != wq.tail) {
                whi = wq.q[wq.head].sep;
                wcur = wq.q[wq.head].w;
            } else {   /* (not reached: see above) */
                wcur = word_at(c, L, &whi);
            }
            f = c->freq[wcur];
        }
        int32_t sp = -1;
        int32_t P = tok_before(c, L, &sp);
        /* structure */
        sym[L] = nw;
        sym[R] = -1;
        sym[N - 1] = ~nw;
        c->rlog[c->rlog_n++] = R;
        /* counts */
        pair_add(c, w, -f, -1);
        int32_t lo = -1, ln = -1, ro = -1, rn = -1;
        if (P >= 0) {
            left_pairs(c, sp, a, nw, &lo, &ln);
            pair_add(c, lo, -f, -1);
            pair_add(c, ln, f, 1);
            if (pos_push(c, ln, P) < 0)
                broken = 1;
        }
        if (sn >= 0) {
            right_pairs(c, sn, b, nw, &ro, &rn);
            pair_add(c, ro, -f, -1);
            pair_add(c, rn, f, 1);
            if (pos_push(c, rn, L) < 0)
                broken = 1;
        }
        if (c->n_cols)
            removed_t += col_occ(c, wcur, w, lo, ln, ro, rn, -1);
        removed_w += f;
    }
    if (heap_alloc)
        free(pos);
    c->symcount[a] -= removed_w;
    c->symcount[b] -= removed_w;
    c->symcount[nw] += removed_w;
    c->total_syms -= removed_w;
    if (c->n_cols) {
        c->tsym[a] -= removed_t;
        c->tsym[b] -= removed_t;
        c->tsym[nw] += removed_t;
    }
    if (batch_end(c) < 0)
        broken = 1;
    clear_caches(c);
    if (c->n_cols)   /* (merged one call at a time: run() does not trim for it) */
        trim_heap(c);

    StepRec *r = &c->steps[c->n_steps++];
    r->a = a;
    r->b = b;
    r->id = nw;
    r->n_tied = n_tied > INT32_MAX ? INT32_MAX : (int32_t)n_tied;
    r->count = count;
    r->rstart = rstart;
    r->merged = removed_w;
    r->gone = (c->symcount[a] == 0) | ((c->symcount[b] == 0) << 1);
    r->reused = into >= 0;
    if (out)
        *out = *r;
    if (broken) {
        c->broken = 1;
        *err = ERR_BROKEN;
        return -1;
    }
    return 1;
}

/* returns 1 if a step was made, 0 if there is no pair, -1 on error (code in *err) */
int bpe_core_step(BpeCore *c, int *err, StepRec *out)
{
    *err = ERR_NONE;
    fs_resolve_top(c);
    if (c->heap_n == 0)
        return 0;
    int32_t w = c->heap[0].p;
    const Pair *p = &c->pairs[w];
    if (p->count <= 0)
        return 0;
    return merge_pair(c, w, p->a, p->b, -1, err, out);
}

int bpe_core_merge(BpeCore *c, int32_t a, int32_t b, int *err, StepRec *out)
{
    *err = ERR_NONE;
    if (a < 0 || b < 0 || a >= c->n_tokens || b >= c->n_tokens)
        return 0;
    return merge_pair(c, pair_find(c, a, b), a, b, -1, err, out);
}

int bpe_core_merge_into(BpeCore *c, int32_t a, int32_t b, int32_t into, int *err,
                        StepRec *out)
{
    *err = ERR_NONE;
    if (a < 0 || b < 0 || into < 0 || a >= c->n_tokens || b >= c->n_tokens ||
        into >= c->n_tokens)
        return 0;
    int64_t la = c->tok_len[a], lb = c->tok_len[b];
    /* its cells are a's and b's: the undo log and the cell layout rely on it */
    if (c->tok_len[into] != la + lb ||
        (int64_t)c->span[into] != (int64_t)c->span[a] + c->span[b] ||
        memcmp(c->tok_buf + c->tok_off[into], c->tok_buf + c->tok_off[a], (size_t)la) != 0 ||
        memcmp(c->tok_buf + c->tok_off[into] + la, c->tok_buf + c->tok_off[b], (size_t)lb) != 0)
        return 0;
    return merge_pair(c, pair_find(c, a, b), a, b, into, err, out);
}

int64_t bpe_core_changed(const BpeCore *c, BpePairCount *out, int64_t room)
{
    int64_t m = 0;
    for (int64_t i = 0; i < c->n_last_touched; i++) {
        const Touch *t = &c->touched[i];
        const Pair *p = &c->pairs[t->p];
        if (p->count == t->old_count)
            continue;
        if (m < room) {
            out[m].a = p->a;
            out[m].b = p->b;
            out[m].count = p->count;
        }
        m++;
    }
    return m;
}

int bpe_core_undo(BpeCore *c, int *err, StepRec *out)
{
    *err = ERR_NONE;
    if (c->n_steps == 0)
        return 0;
    if (!c->keep_undo) {
        *err = ERR_NO_UNDO;
        return -1;
    }
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
    if (bpe_grow((void **)&c->touched, &c->touched_cap, (size_t)(nt + newp + 1), sizeof(Touch),
                 16) < 0 ||
        ensure_pairs(c, newp + 1) < 0 ||
        (c->n_cols && col_reserve(c, nt + newp + 1) < 0)) {
        *err = ERR_NOMEM;
        return -1;
    }
    int32_t a = rec.a, b = rec.b, nw = rec.id;
    int32_t w = k > 0 ? pair_get(c, a, b) : -1;   /* (room reserved above) */
    int32_t *sym = c->sym;
    const int32_t sa = c->span[a], sb = c->span[b];
    int broken = 0;
    int64_t removed_w = 0;
    int32_t wlo = 0, whi = -1;   /* the cells of the word last looked up, its count */
    int64_t f = 0;
    int32_t wd = -1;             /* ... and its number */
    int64_t removed_t = 0;
    batch_begin(c);
    for (int64_t i = c->rlog_n - 1; i >= rec.rstart; i--) {
        int32_t R = c->rlog[i];
        if (i - 12 >= rec.rstart)
            BPE_PREFETCH_W(&sym[c->rlog[i - 12]]);
        int32_t L = R - sa, N = R + sb;
        int32_t sn = sym[N];   /* < 0: the word's end */
        if (L < wlo || L > whi) {
            wd = word_at(c, N, &whi);
            wlo = word_cell(c, wd);
            f = c->freq[wd];
        }
        int32_t sp = -1;
        int32_t P = tok_before(c, L, &sp);
        sym[L] = a;
        sym[R - 1] = sa > 1 ? ~a : a;
        sym[R] = b;
        sym[N - 1] = sb > 1 ? ~b : b;
        pair_add(c, w, f, 1);
        if (pos_push(c, w, L) < 0)
            broken = 1;
        int32_t lo = -1, ln = -1, ro = -1, rn = -1;
        if (P >= 0) {
            left_pairs(c, sp, a, nw, &lo, &ln);
            pair_add(c, ln, -f, -1);
            pair_add(c, lo, f, 1);
            if (pos_push(c, lo, P) < 0)
                broken = 1;
        }
        if (sn >= 0) {
            right_pairs(c, sn, b, nw, &ro, &rn);
            pair_add(c, rn, -f, -1);
            pair_add(c, ro, f, 1);
            if (pos_push(c, ro, R) < 0)
                broken = 1;
        }
        if (c->n_cols)
            removed_t += col_occ(c, wd, w, lo, ln, ro, rn, 1);
        removed_w += f;
    }
    c->symcount[a] += removed_w;
    c->symcount[b] += removed_w;
    c->symcount[nw] -= removed_w;
    c->total_syms += removed_w;
    if (c->n_cols) {
        c->tsym[a] += removed_t;
        c->tsym[b] += removed_t;
        c->tsym[nw] -= removed_t;
    }
    if (batch_end(c) < 0)
        broken = 1;
    clear_caches(c);
    c->rlog_n = rec.rstart;
    c->n_steps--;
    if (!rec.reused) {
        c->n_tokens--;
        c->tok_buf_len = c->tok_off[nw];
        c->symcount[nw] = 0;
    }
    if (out)
        *out = rec;
    if (broken) {
        c->broken = 1;
        *err = ERR_BROKEN;
        return -1;
    }
    return 1;
}

int64_t bpe_core_run(BpeCore *c, int64_t n, int64_t min_count, int *res, int *err)
{
    int64_t done = 0;
    *res = 0;
    *err = ERR_NONE;
    if (min_count < 1)
        min_count = 1;
    while (done < n) {
        fs_resolve_top(c);
        if (c->heap_n == 0 || c->heap[0].count < min_count)
            break;
        *res = bpe_core_step(c, err, NULL);
        if (*res <= 0)
            break;
        done++;
        trim_heap(c);
    }
    return done;
}

void bpe_replay_free(BpeReplay *r)
{
    free(r->counts);
    free(r->ends);
    free(r->tops);
    free(r->changed);
    memset(r, 0, sizeof(*r));
}

int bpe_core_replay(BpeCore *c, const int32_t *ab, int64_t n, int64_t top_k, BpeReplay *out,
                    int64_t *bad, int *err)
{
    BpePairCount *v = NULL;
    size_t m = 0, cap = 0;
    int rc = 1;
    *err = ERR_NONE;
    memset(out, 0, sizeof(*out));
    int64_t *counts = out->counts = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int64_t *ends = out->ends = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    BpePairCount *tops = out->tops = (BpePairCount *)malloc(
        (size_t)(n * top_k > 0 ? n * top_k : 1) * sizeof(BpePairCount));
    if (!counts || !ends || !tops) {
        *err = ERR_NOMEM;
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        int32_t a = ab[2 * i], b = ab[2 * i + 1];
        if (top_k) {
            BpePairCount *t = tops + i * top_k;
            int64_t k = bpe_core_ranked(c, top_k, 0, t);
            if (k < 0) {
                rc = -1;
                *err = ERR_NOMEM;
                break;
            }
            for (int64_t j = k; j < top_k; j++) {
                t[j].a = t[j].b = -1;
                t[j].count = 0;
            }
        }
        counts[i] = 0;
        ends[i] = (int64_t)m;
        if (a < 0)
            continue;
        StepRec r;
        int res = bpe_core_merge(c, a, b, err, &r);
        if (res < 0) {
            rc = -1;
            break;
        }
        if (res == 0) {
            *bad = i;
            rc = 0;
            break;
        }
        counts[i] = r.count;
        int64_t more = bpe_core_changed(c, NULL, 0);
        if (bpe_grow((void **)&v, &cap, m + (size_t)more, sizeof(BpePairCount), 1024) < 0) {
            rc = -1;
            *err = ERR_NOMEM;
            break;
        }
        m += (size_t)bpe_core_changed(c, v + m, more);
        ends[i] = (int64_t)m;
    }
    out->changed = v;
    out->n_changed = m;
    return rc;
}
