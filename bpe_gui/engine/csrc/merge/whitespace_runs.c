/*
 * whitespace_runs.c -- a long run of ASCII whitespace (code's indentation, blank lines,
 * the run the patterns' \s+(?!\S) leaves) merged on the few symbols whitespace can make:
 * without a merge limit, read off pairs of them; with one, split where no symbol crosses
 * and each piece merged on their own small pair table.
 *
 * Why: a run of n whitespace bytes is one word, new to the word cache when its mix of
 * spaces, tabs and newlines is; merging it whole walks n symbols through the long-word
 * merge loop, each pair looked up in tables of megabytes. But the symbols a whitespace
 * run can make are known exactly and are few (cl100k: 425 strings): starting from the six
 * bytes' tokens, every pair of known symbols (a, b) that merges (mt_pair: a merge of the
 * two ids, or the token of their bytes together) makes a new one, a's bytes then b's.
 * That closure, taken once (lazily, after a scratch has merged WS_BUILD_AFTER bytes of
 * long runs whole: it costs a few ms, about as much as merging that; English has a few
 * such runs), is every symbol any whitespace run can ever hold, whatever merge limit (a
 * limit only removes merges), and the pairs that merged making it are every merge among
 * them (each ordered pair was tried), kept in a table of their own (numbers of 13 bits,
 * ranks renumbered in their order). An Aho-Corasick automaton over the closure's strings
 * gives, at each byte of a run, the symbols ending there.
 *
 * Without a limit (the encoder's case) the run is not merged at all: the last token of
 * each prefix is found among the symbols ending there by pairs of symbols ("a run by its
 * last tokens" below: about 1.5 symbols tried per byte, each a 2-bit memo). With a limit
 * (a tokenizer as of a training step) the run is cut where no symbol spans a byte (the
 * same argument as token_boundaries.c's: merging each side alone gives the same symbols)
 * and each piece merged on the closure's pair table (ws_merge).
 *
 * Threads: the automaton is made once and published with a compare-and-swap (a thread
 * that loses frees its copy), like token_boundaries.c's table of characters; mt_add
 * forgets it (new merges may make new symbols). The pairs' memo is filled by any thread
 * (atomic or; each finds the same answer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "merge/ws_tok.h"
#include "util/ascii_ws.h"


#define WS_FROM 24        /* shorter runs are merged whole (the short-word scan is quick) */
#define WS_BUILD_AFTER 4096 /* bytes of runs merged whole (in one scratch) before the
                            * automaton is made: merged whole they go at ~17 MB/s, and
                            * making it costs ~2 ms (32768 was the bound: a fresh
                            * tokenizer on 2 MB of whitespace spent 1.9 ms merging the
                            * first 32 KB; 4096: that text 6% faster, 2 MB of C source,
                            * which now makes it, and English, which does not, level) */
#define WS_MAX_NODES 65536
#define WS_MAX_SYMBOLS 8192  /* symbols are numbered in 13 bits (the pair table's entries) */
#define WS_MAX_PAIRS (1u << 22)
#define WS_MAX_RANKS (1u << 21) /* a key is local rank << 10 | place, in 31 bits */
#define WS_LOCAL_MAX 1024    /* longer pieces go through the scratch's merge (route.c) */
#define WS_DP_SYMBOLS 2048   /* more symbols: no pair memo (it would pass 1 MB) */
#define WS_MAX_STEPS (1u << 20) /* the symbols' merges, each noted (8 MB at most) */

/* the six ASCII whitespace bytes -> 1..6; others 0 */
static const uint8_t WS_CODE[256] = {['\t'] = 1, ['\n'] = 2, ['\v'] = 3, ['\f'] = 4, ['\r'] = 5,
                                     [' '] = 6};

/* a whitespace byte -> 0..5 (the automaton's letters, the first symbols' numbers) */
static inline int ws_sym(unsigned char c)
{
    return WS_CODE[c] - 1;
}


static inline int ws_has(const MergeTable *m, const unsigned char *p, size_t len, int kind)
{
    uint64_t bit = ws_hash(p, len, kind);
    return (int)(m->ws_tok[bit >> 6] >> (bit & 63) & 1);
}

struct MergeWs {
    void (*free)(void *); /* first: merge.c frees the table by it (merge.h) */
    int32_t (*next)[6]; /* the automaton's transitions (node 0: the root) */
    int32_t *longest;   /* per node: the longest symbol string that ends there */
    size_t n;
    /* the symbols' merges among themselves (see "merging a piece" below) */
    int32_t *id;        /* per symbol: its token */
    uint64_t *pair;     /* open addressing: WS_KEY(a, b) + 1 | made << 27 | local rank << 40; 0 empty */
    size_t pair_bits;
    int32_t *rank;      /* local rank -> rank (ascending, distinct) */
    size_t n_rank;
    uint64_t bytepair[6][6]; /* the pairs of two bytes' symbols (their entry, or 0) */
    /* a whole run by its tokens' pairs (see "a run by its last tokens" below); dp 0: not */
    int dp;
    size_t n_sym;
    int32_t *cand;      /* per node: the longest symbol its string ends with, or -1 */
    int32_t *next_cand; /* per symbol: the longest symbol it ends with, shorter, or -1 */
    int32_t *len;       /* per symbol: its bytes */
    uint8_t *self;      /* per symbol: its bytes alone merge into it */
    uint8_t *ends;      /* per symbol: its first byte's symbol | its last byte's << 4 */
    struct WsStep { uint32_t rank; uint16_t first, last; } *hist; /* see ws_pair_ok */
    uint32_t *hist_at;  /* per symbol: where its steps start in hist */
    uint64_t *memo;     /* 2 bits per pair of symbols (a * n_sym + b): known, compatible */
};

#define WS_KEY(a, b) ((uint64_t)(a) << 13 | (uint64_t)(b))

static inline size_t ws_slot(const struct MergeWs *t, uint32_t a, uint32_t b)
{
    return (size_t)((WS_KEY(a, b) * 0x9E3779B97F4A7C15ull) >> (64 - t->pair_bits));
}

/* the entry of the symbols a, b (their merge), or 0: they do not merge */
static inline uint64_t ws_find(const struct MergeWs *t, uint32_t a, uint32_t b)
{
    uint64_t key = WS_KEY(a, b) + 1;
    size_t mask = ((size_t)1 << t->pair_bits) - 1;
    for (size_t k = ws_slot(t, a, b);; k = (k + 1) & mask) {
        uint64_t e = t->pair[k];
        if ((e & 0x7FFFFFF) == key || !e)
            return e;
    }
}

static void ws_free(void *p)
{
    struct MergeWs *t = p;
    if (!t)
        return;
    free(t->next);
    free(t->longest);
    free(t->id);
    free(t->pair);
    free(t->rank);
    free(t->cand);
    free(t->next_cand);
    free(t->len);
    free(t->self);
    free(t->ends);
    free(t->hist);
    free(t->hist_at);
    free(t->memo);
    free(t);
}


/* ---- the closure: symbols (id, bytes) ---- */
typedef struct {
    int32_t *id;
    uint32_t *off, *len;
    uint8_t *side;  /* bit 0: may be a merge's first part, bit 1: its second */
    unsigned char *bytes;
    size_t n, cap, nbytes, bytes_cap;
    uint32_t *slot; /* open addressing over (id, bytes): symbol + 1, 0 empty */
    size_t slot_cap;
    /* the pairs that merge: (a, b, rank, made symbol) */
    struct WsPair { uint32_t a, b, made; int32_t rank; } *pairs;
    size_t n_pairs, pairs_cap;
} Syms;

static uint64_t sym_hash(int32_t id, const unsigned char *p, size_t len)
{
    return ws_hash(p, len, 0) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)id << 20;
}

/* add (id, p[0..len)) unless known: 1 added, 0 known (its index in *at), -1 no memory or
 * too many */
static int syms_add(Syms *s, int32_t id, const unsigned char *p, size_t len, size_t *at)
{
    size_t k = (size_t)(sym_hash(id, p, len) >> 40) & (s->slot_cap - 1);
    for (; s->slot[k]; k = (k + 1) & (s->slot_cap - 1)) {
        size_t e = s->slot[k] - 1;
        if (s->id[e] == id && s->len[e] == len && memcmp(s->bytes + s->off[e], p, len) == 0) {
            *at = e;
            return 0;
        }
    }
    *at = s->n;
    if (s->n >= s->cap)
        return -1;
    while (s->nbytes + len > s->bytes_cap) {
        unsigned char *b = s->bytes_cap < ((size_t)1 << 26) ? realloc(s->bytes, 2 * s->bytes_cap) : NULL;
        if (!b)
            return -1;
        s->bytes = b;
        s->bytes_cap *= 2;
    }
    memcpy(s->bytes + s->nbytes, p, len);
    s->id[s->n] = id;
    s->off[s->n] = (uint32_t)s->nbytes;
    s->len[s->n] = (uint32_t)len;
    s->nbytes += len;
    s->slot[k] = (uint32_t)++s->n;
    return 1;
}

/* try the pair (a, b): a new symbol when it merges */
static int syms_pair(const MergeTable *m, Syms *s, size_t a, size_t b, unsigned char *buf)
{
    size_t la = s->len[a], lb = s->len[b];
    int32_t made = -1;
    if (la + lb > 4096)
        return -1; /* no whitespace token is that long: something is odd, give up */
    if (m->by_span ? la + lb > m->max_key : !mt_may_merge(m, s->id[a], s->id[b]))
        return 0;
    memcpy(buf, s->bytes + s->off[a], la);
    memcpy(buf + la, s->bytes + s->off[b], lb);
    if (m->by_span && m->short_keys && !m->ws_tok_lost &&
        (!m->ws_tok || !ws_has(m, buf, la + lb, WS_TOK))) /* every token went by ws_tok */
        return 0;
    int32_t rank = mt_pair(m, s->id[a], s->id[b], buf, la + lb, &made);
    if (rank < 0 || made < 0)
        return 0;
    size_t at;
    if (syms_add(s, made, buf, la + lb, &at) < 0)
        return -1;
    if (s->n_pairs == s->pairs_cap) {
        size_t cap = s->pairs_cap ? 2 * s->pairs_cap : 1024;
        struct WsPair *q = cap <= WS_MAX_PAIRS ? realloc(s->pairs, cap * sizeof(*q)) : NULL;
        if (!q)
            return -1;
        s->pairs = q;
        s->pairs_cap = cap;
    }
    s->pairs[s->n_pairs++] = (struct WsPair){(uint32_t)a, (uint32_t)b, (uint32_t)at, rank};
    return 0;
}

/* Which parts of a merge symbol i may be (bit 0 first, bit 1 second): merge-based, a
 * token with no merge at all is neither (minop); rank-based, a string is a token's first
 * part only if some whitespace token starts with it (ws_tok). */
static int sides(const MergeTable *m, const Syms *s, size_t i)
{
    if (!m->by_span) {
        if (m->minop_lost)
            return 3;
        int32_t id = s->id[i];
        return id >= 0 && (size_t)id < m->minop_cap && m->minop[id] != INT32_MAX ? 3 : 0;
    }
    if (!m->short_keys || m->ws_tok_lost)
        return 3;
    if (!m->ws_tok)
        return 0; /* no token of two whitespace bytes or more */
    const unsigned char *p = s->bytes + s->off[i];
    return ws_has(m, p, s->len[i], WS_PRE) | ws_has(m, p, s->len[i], WS_SUF) << 1;
}

static void syms_free(Syms *s)
{
    free(s->id), free(s->off), free(s->len), free(s->bytes), free(s->slot), free(s->side);
    free(s->pairs);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* the pairs' table (local ranks: the ranks' order, ties kept) and the symbols' tokens */
static int ws_pairs(struct MergeWs *t, const Syms *s)
{
    t->id = malloc((s->n ? s->n : 1) * sizeof(int32_t));
    t->rank = malloc((s->n_pairs ? s->n_pairs : 1) * sizeof(int32_t));
    t->pair_bits = 6;
    while (((size_t)1 << t->pair_bits) < 2 * s->n_pairs)
        t->pair_bits++;
    t->pair = calloc((size_t)1 << t->pair_bits, sizeof(uint64_t));
    if (!t->id || !t->rank || !t->pair)
        return -1;
    memcpy(t->id, s->id, s->n * sizeof(int32_t));
    for (size_t i = 0; i < s->n_pairs; i++)
        t->rank[i] = s->pairs[i].rank;
    qsort(t->rank, s->n_pairs, sizeof(int32_t), cmp_i32);
    size_t n = 0;
    for (size_t i = 0; i < s->n_pairs; i++)
        if (!n || t->rank[i] != t->rank[n - 1])
            t->rank[n++] = t->rank[i];
    t->n_rank = n;
    if (n > WS_MAX_RANKS)
        return -1;
    size_t mask = ((size_t)1 << t->pair_bits) - 1;
    for (size_t i = 0; i < s->n_pairs; i++) {
        const struct WsPair *q = &s->pairs[i];
        size_t lo = 0, hi = n; /* the local rank: the rank's place among the distinct ones */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (t->rank[mid] < q->rank)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint64_t e = (WS_KEY(q->a, q->b) + 1) | (uint64_t)q->made << 27 | (uint64_t)lo << 40;
        size_t k = ws_slot(t, q->a, q->b);
        while (t->pair[k])
            k = (k + 1) & mask;
        t->pair[k] = e;
    }
    for (uint32_t a = 0; a < 6; a++)
        for (uint32_t b = 0; b < 6; b++)
            t->bytepair[a][b] = ws_find(t, a, b);
    return 0;
}

static void ws_dp_ready(struct MergeWs *t, const Syms *s);

static __attribute__((noinline)) struct MergeWs *ws_build(const MergeTable *m)
{
    Syms s = {0};
    s.cap = WS_MAX_SYMBOLS;
    s.bytes_cap = (size_t)1 << 16;
    s.slot_cap = 2 * WS_MAX_SYMBOLS;
    s.id = malloc(s.cap * sizeof(int32_t));
    s.off = malloc(s.cap * sizeof(uint32_t));
    s.len = malloc(s.cap * sizeof(uint32_t));
    s.side = malloc(s.cap);
    s.bytes = malloc(s.bytes_cap);
    s.slot = calloc(s.slot_cap, sizeof(uint32_t));
    unsigned char *buf = malloc(8192);
    struct MergeWs *t = calloc(1, sizeof(*t));
    if (t)
        t->free = ws_free;
    size_t at;
    int ok = s.id && s.off && s.len && s.side && s.bytes && s.slot && buf && t;
    static const unsigned char ws[6] = {'\t', '\n', '\v', '\f', '\r', ' '};
    for (int c = 0; ok && c < 6; c++)
        ok = m->byte_ids[ws[c]] >= 0 && syms_add(&s, m->byte_ids[ws[c]], &ws[c], 1, &at) > 0;
    /* every ordered pair of symbols once: symbol i against each j <= i, both ways; only
     * symbols that can be the first (side 1) or second part (side 2) of a merge */
    for (size_t i = 0; ok && i < s.n; i++) {
        s.side[i] = (uint8_t)sides(m, &s, i);
        for (size_t j = 0; ok && j <= i; j++) {
            if ((s.side[i] & 1) && (s.side[j] & 2))
                ok = syms_pair(m, &s, i, j, buf) >= 0;
            if (ok && i != j && (s.side[j] & 1) && (s.side[i] & 2))
                ok = syms_pair(m, &s, j, i, buf) >= 0;
        }
    }
    /* the automaton over the symbols' strings (the trie, then failure links breadth-first) */
    if (ok) {
        size_t cap = 1;
        for (size_t i = 0; i < s.n; i++)
            cap += s.len[i];
        if (cap > WS_MAX_NODES)
            cap = WS_MAX_NODES;
        t->next = malloc(cap * sizeof(*t->next));
        t->longest = calloc(cap, sizeof(int32_t));
        t->cand = malloc(cap * sizeof(int32_t));
        t->next_cand = malloc(s.n * sizeof(int32_t));
        int32_t *fail = malloc(cap * sizeof(int32_t)), *queue = malloc(cap * sizeof(int32_t));
        ok = t->next && t->longest && t->cand && t->next_cand && fail && queue;
        if (ok) {
            memset(t->next, 0xFF, cap * sizeof(*t->next)); /* -1: no child yet */
            memset(t->cand, 0xFF, cap * sizeof(int32_t));  /* -1: no symbol ends there */
            t->n = 1;
        }
        t->dp = 1;
        for (size_t i = 0; ok && i < s.n; i++) {
            int32_t v = 0;
            for (size_t k = 0; ok && k < s.len[i]; k++) {
                int c = ws_sym(s.bytes[s.off[i] + k]);
                if (t->next[v][c] < 0) {
                    if (t->n >= cap) {
                        ok = 0;
                        break;
                    }
                    t->next[v][c] = (int32_t)t->n++;
                }
                v = t->next[v][c];
            }
            if (ok && (int32_t)s.len[i] > t->longest[v])
                t->longest[v] = (int32_t)s.len[i]; /* its depth */
            if (ok && t->cand[v] >= 0)
                t->dp = 0; /* two symbols of the same bytes (two ids): not told apart by bytes */
            if (ok)
                t->cand[v] = (int32_t)i;
        }
        size_t qh = 0, qt = 0;
        for (int c = 0; ok && c < 6; c++) {
            int32_t u = t->next[0][c];
            if (u < 0) {
                t->next[0][c] = 0;
            } else {
                fail[u] = 0;
                queue[qt++] = u;
            }
        }
        while (ok && qh < qt) {
            int32_t v = queue[qh++];
            if (t->longest[fail[v]] > t->longest[v])
                t->longest[v] = t->longest[fail[v]];
            if (t->cand[v] >= 0) /* (fail[v] is nearer the root: done) */
                t->next_cand[t->cand[v]] = t->cand[fail[v]];
            else
                t->cand[v] = t->cand[fail[v]];
            for (int c = 0; c < 6; c++) {
                int32_t u = t->next[v][c];
                if (u < 0) {
                    t->next[v][c] = t->next[fail[v]][c];
                } else {
                    fail[u] = t->next[fail[v]][c];
                    queue[qt++] = u;
                }
            }
        }
        free(fail);
        free(queue);
    }
    if (ok)
        ok = ws_pairs(t, &s) == 0;
    if (ok && t->dp)
        ws_dp_ready(t, &s);
    syms_free(&s);
    free(buf);
    if (!ok) {
        ws_free(t);
        return NULL;
    }
    return t;
}

/* the automaton, made once; NULL: runs are merged whole */
static const struct MergeWs *ws_of(const MergeTable *m)
{
    struct MergeWs **slot = &((MergeTable *)m)->ws, *t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (t)
        return t;
    if (m->ws_failed || !(t = ws_build(m))) {
        ((MergeTable *)m)->ws_failed = 1; /* (a benign race: every thread finds the same) */
        return NULL;
    }
    struct MergeWs *none = NULL;
    if (!__atomic_compare_exchange_n(slot, &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        ws_free(t); /* another thread made it first */
        t = none;
    }
    return t;
}


int mt_is_ws_run(const unsigned char *w, size_t len)
{
    return len >= WS_FROM && mt_is_ws(w, len);
}

int mt_is_ws(const unsigned char *w, size_t len)
{
    return bpe_ascii_ws_run(w, len) == len; /* (WS_CODE's six bytes) */
}

/* ---- merging a piece ----
 * Every symbol a whitespace run holds while it merges is one of the closure's, and every
 * pair of them that merges was found making the closure (each ordered pair was tried):
 * so a piece merges on the closure's own numbers, its pairs looked up in a table of a few
 * thousand entries (tens of KB, in the core's caches) instead of the merge table's or the
 * token keys' megabytes. The order is the same as mt_merge's: the lowest rank, leftmost
 * (local ranks keep the ranks' order and their ties). Each symbol keeps the place of its
 * first byte; key[i] = local rank of the pair at i << 10 | i, or WS_NONE; blocks of 32
 * keep their lowest key (bmin), and a merge scans again only the blocks it changed. */
#define WS_NONE 0x7FFFFFFF


/* the key of the pair at i (entry e of its two symbols), the symbol it makes in made[i] */
static inline int32_t ws_key(uint64_t e, uint32_t lim, size_t i, uint16_t *made)
{
    uint32_t r = (uint32_t)(e >> 40);
    if (!e || r >= lim)
        return WS_NONE;
    made[i] = (uint16_t)(e >> 27 & 0x1FFF);
    return (int32_t)(r << 10 | i);
}

/* Merge the piece w[a..a+k) (2 <= k <= WS_LOCAL_MAX) with the merges of local rank < lim;
 * its tokens written at out (<= a: in order), spans in x->st / x->en. */
static size_t ws_merge(const struct MergeWs *t, MergeScratch *x, const unsigned char *w,
                       size_t a, size_t k, uint32_t lim, size_t out, struct WsStep *hist)
{
    int32_t end = (int32_t)k - 1; /* the last symbol's place (for hist) */
    size_t nb = (k + 31) / 32, wide = nb == 1 ? (k + 3) & ~(size_t)3 : 32;
    int32_t *key = (int32_t *)x->heap, *bmin = key + 32 * nb, *nxt = x->nxt, *prv = x->prv;
    uint16_t *sym = (uint16_t *)(bmin + 36), *made = sym + k;
    const unsigned char *p = w + a;
    for (size_t i = 0; i < k; i++) {
        sym[i] = (uint16_t)ws_sym(p[i]);
        nxt[i] = (int32_t)i + 1;
        prv[i] = (int32_t)i - 1;
    }
    for (size_t i = 0; i + 1 < k; i++)
        key[i] = ws_key(t->bytepair[sym[i]][sym[i + 1]], lim, i, made);
    for (size_t i = k - 1; i < 32 * nb; i++)
        key[i] = WS_NONE;
    size_t top = (nb + 3) & ~(size_t)3;
    for (size_t b = 0; b < top; b++)
        bmin[b] = b < nb ? mt_min_key(key + 32 * b, wide) : WS_NONE;
    for (;;) {
        int32_t best = nb == 1 ? bmin[0] : mt_min_key(bmin, top);
        if (best == WS_NONE)
            break;
        int32_t i = best & 1023, j = nxt[i], q = nxt[j], h = prv[i];
        sym[i] = made[i];
        key[j] = WS_NONE;
        nxt[i] = q;
        if ((size_t)q < k) {
            prv[q] = i;
            key[i] = ws_key(ws_find(t, sym[i], sym[q]), lim, (size_t)i, made);
        } else {
            key[i] = WS_NONE;
        }
        if (h >= 0)
            key[h] = ws_key(ws_find(t, sym[h], sym[i]), lim, (size_t)h, made);
        if (hist) { /* each merge: its rank, then the first and the last symbol */
            end = (size_t)q < k ? end : i;
            *hist++ = (struct WsStep){(uint32_t)best >> 10, sym[0], sym[end]};
        }
        /* blocks changed: i's, j's, h's */
        int32_t bi = i >> 5, bj = j >> 5, bh = h >= 0 ? h >> 5 : bi;
        bmin[bi] = mt_min_key(key + 32 * bi, wide);
        if (bj != bi)
            bmin[bj] = mt_min_key(key + 32 * bj, wide);
        if (bh != bi)
            bmin[bh] = mt_min_key(key + 32 * bh, wide);
    }
    for (size_t i = 0; i < k; i = (size_t)nxt[i], out++) {
        x->sym[out] = t->id[sym[i]];
        x->st[out] = (int32_t)(a + i);
        x->en[out] = (int32_t)(a + (size_t)nxt[i]);
    }
    return out;
}

/* the local ranks below limit: how many of the ranks are */
static uint32_t ws_limit(const struct MergeWs *t, int32_t limit)
{
    if (limit == NO_RANK)
        return (uint32_t)t->n_rank;
    size_t lo = 0, hi = t->n_rank;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->rank[mid] < limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* ---- a run by its last tokens ----
 * Two facts of any merging by the lowest rank, leftmost (the bpe crate's README states
 * them; the argument is short): (1) a stretch of the tokens a text merges into is what its
 * own bytes merge into (no merge crossed its ends, and the merges inside were each the
 * lowest of fewer pairs); (2) a row of tokens t1 .. tn is what its bytes merge into when
 * t1's bytes alone merge into t1 and every two neighbours' bytes merge into those two
 * ("compatible"): merging the whole, each token's merges come in its own order and a pair
 * across a boundary never wins, since at that moment the merging of the two neighbours
 * alone took a pair inside one of them, which is lower and to the left, or lower. So the
 * tokens of w[0..e) end with the one symbol s ending at e whose bytes alone merge into s
 * (e = |s|) or which is compatible with the last token of w[0..e-|s|): the symbols ending
 * at each byte come from the automaton, longest first (1.5 tried per byte on the bench's
 * runs), and whether two symbols are compatible is merged once (ws_merge on their bytes,
 * which stand side by side in the run) and kept, 2 bits a pair (threads may race: each
 * finds the same). Only without a merge limit (the pairs' answers assume every merge). */
static void ws_dp_ready(struct MergeWs *t, const Syms *s)
{
    size_t longest = 0, n = s->n, steps = 0;
    t->dp = 0;
    for (size_t i = 0; i < n; i++) {
        longest = s->len[i] > longest ? s->len[i] : longest;
        steps += s->len[i] - 1;
    }
    if (n > WS_DP_SYMBOLS || longest > WS_LOCAL_MAX || steps > WS_MAX_STEPS)
        return;
    MergeScratch y = {0};
    t->n_sym = n;
    t->len = malloc(n * sizeof(int32_t));
    t->self = malloc(n);
    t->ends = malloc(n);
    t->hist_at = malloc(n * sizeof(uint32_t));
    t->hist = malloc((steps ? steps : 1) * sizeof(struct WsStep));
    t->memo = calloc((2 * n * n + 63) / 64, sizeof(uint64_t));
    if (!t->len || !t->self || !t->ends || !t->hist_at || !t->hist || !t->memo ||
        ms_reserve(&y, longest) < 0) {
        ms_free(&y);
        return; /* (freed with t) */
    }
    for (size_t i = 0, at = 0; i < n; i++) {
        const unsigned char *p = s->bytes + s->off[i];
        size_t l = s->len[i], k = 1;
        t->len[i] = (int32_t)l;
        t->ends[i] = (uint8_t)(ws_sym(p[0]) | ws_sym(p[l - 1]) << 4);
        t->hist_at[i] = (uint32_t)at;
        if (l > 1) /* its bytes alone, each merge noted */
            k = ws_merge(t, &y, p, 0, l, (uint32_t)t->n_rank, 0, t->hist + at);
        t->self[i] = k == 1 && (l == 1 || y.sym[0] == t->id[i]);
        at += l - 1;
    }
    ms_free(&y);
    t->dp = 1;
}

/* Whether the bytes of the symbols a, b side by side merge into a, b. Both merge alone
 * (self), each in the order of its steps (hist: each merge's rank, then its first and
 * last symbols), and merging them together takes the next step of one or the other until
 * the pair across (a's last symbol now, b's first) is the lowest: lower than a's next
 * step (a's pairs are to its left, and win a tie) and no higher than b's. */
static __attribute__((noinline)) int ws_pair_ok(const struct MergeWs *t, int32_t a, int32_t b)
{
    if (!t->self[a] || !t->self[b])
        return 0;
    const struct WsStep *ha = t->hist + t->hist_at[a], *hb = t->hist + t->hist_at[b];
    size_t na = (size_t)t->len[a] - 1, nb = (size_t)t->len[b] - 1, ia = 0, ib = 0;
    uint32_t x = t->ends[a] >> 4, y = t->ends[b] & 15, c = 0;
    for (int moved = 1;; ) {
        if (moved) {
            uint64_t e = ws_find(t, x, y);
            c = e ? (uint32_t)(e >> 40) : UINT32_MAX;
        }
        uint32_t ma = ia < na ? ha[ia].rank : UINT32_MAX, mb = ib < nb ? hb[ib].rank : UINT32_MAX;
        if (c < ma && c <= mb)
            return 0;
        if (ma == UINT32_MAX && mb == UINT32_MAX)
            return 1;
        uint32_t was = ma <= mb ? x : y;
        if (ma <= mb)
            x = ha[ia++].last;
        else
            y = hb[ib++].first;
        moved = (ma <= mb ? x : y) != was;
    }
}

/* The tokens of the run w[0..len) by the last token of each w[0..e) (kept in x->rk[e-1]);
 * (size_t)-1 if some e has none (cannot happen: the closure holds every symbol). */
static size_t ws_by_pairs(const struct MergeWs *t, MergeScratch *x, const unsigned char *w,
                          size_t len)
{
    /* (the tables in locals: stores to last[] would have them read again each time) */
    const int32_t(*next)[6] = t->next;
    const int32_t *cand = t->cand, *next_cand = t->next_cand, *slen = t->len;
    const uint8_t *self = t->self;
    uint64_t *memo = t->memo;
    size_t n_sym = t->n_sym;
    int32_t *last = x->rk, v = 0;
    for (size_t b = 0; b < len; b++) {
        v = next[v][ws_sym(w[b])];
        int32_t s = cand[v];
        for (; s >= 0; s = next_cand[s]) {
            size_t st = b + 1 - (size_t)slen[s];
            if (!st) {
                if (self[s])
                    break;
                continue;
            }
            int32_t a = last[st - 1];
            size_t bit = 2 * ((size_t)a * n_sym + (size_t)s);
            uint64_t known = __atomic_load_n(&memo[bit >> 6], __ATOMIC_RELAXED) >> (bit & 63);
            if (__builtin_expect(!(known & 1), 0)) {
                known = 1 | (uint64_t)ws_pair_ok(t, a, s) << 1;
                __atomic_fetch_or(&memo[bit >> 6], known << (bit & 63), __ATOMIC_RELAXED);
            }
            if (known & 2)
                break;
        }
        if (s < 0)
            return (size_t)-1;
        last[b] = s;
    }
    size_t k = 0;
    for (size_t e = len; e; e -= (size_t)slen[last[e - 1]])
        k++;
    for (size_t e = len, out = k; e;) {
        int32_t s = last[e - 1];
        out--;
        x->sym[out] = t->id[s];
        x->en[out] = (int32_t)e;
        e -= (size_t)slen[s];
        x->st[out] = (int32_t)e;
    }
    return k;
}

int mt_ws_wait(const MergeTable *m, MergeScratch *x, size_t len)
{
    /* the automaton costs 1-5 ms to make: a text with a few long runs merges them whole */
    if (!__atomic_load_n(&m->ws, __ATOMIC_ACQUIRE) && x->ws_whole < WS_BUILD_AFTER) {
        x->ws_whole += len < WS_BUILD_AFTER ? (uint32_t)len : WS_BUILD_AFTER;
        return 1;
    }
    return 0;
}

size_t mt_merge_whitespace(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                           size_t len, int32_t limit, int how)
{
    const struct MergeWs *t = ws_of(m);
    if (!t)
        return (size_t)-1;
    if (how == MT_WS_PAIRS)
        return t->dp && limit == NO_RANK ? ws_by_pairs(t, x, w, len) : (size_t)-1;
    /* st[b]: where the longest symbol string ending at byte b starts */
    int32_t v = 0;
    for (size_t b = 0; b < len; b++) {
        v = t->next[v][ws_sym(w[b])];
        int32_t l = t->longest[v];
        x->st[b] = (int32_t)(b + 1) - (l > 0 ? l : 1);
    }
    /* en[p]: the first cut after p (p is cut when no such string spans it: every string
     * ending at b >= p starts at p or later) */
    int32_t low = INT32_MAX, cut = (int32_t)len;
    for (size_t p = len; p-- > 0;) {
        if (x->st[p] < low)
            low = x->st[p];
        x->en[p] = cut;
        if (low >= (int32_t)p)
            cut = (int32_t)p;
    }
    uint32_t lim = ws_limit(t, limit);
    size_t out = 0;
    for (size_t a = 0, p; a < len; a = p) {
        p = (size_t)x->en[a]; /* (merging the piece at a writes only below p) */
        if (p - a == 1) {
            x->sym[out] = m->byte_ids[w[a]];
            x->st[out] = (int32_t)a;
            x->en[out++] = (int32_t)p;
        } else if (p - a <= WS_LOCAL_MAX) {
            out = ws_merge(t, x, w, a, p - a, lim, out, NULL);
        } else { /* its bytes' tokens merged alone, through the scratch's merge */
            size_t k = p - a, n;
            MergeScratch y = *x; /* (writes only at a.. below p: the cuts after p stay) */
            y.sym += a, y.st += a, y.en += a, y.rk += a;
            for (size_t i = 0; i < k; i++) {
                y.sym[i] = m->byte_ids[w[a + i]];
                y.st[i] = (int32_t)i;
                y.en[i] = (int32_t)i + 1;
            }
            n = x->merge(m, &y, k, limit, w + a, MT_RAW | MT_SPANS);
            x->seen = y.seen; /* what merging set up for good stays with x */
            for (size_t i = 0; i < n; i++, out++) {
                x->sym[out] = x->sym[a + i];
                x->st[out] = x->st[a + i] + (int32_t)a;
                x->en[out] = x->en[a + i] + (int32_t)a;
            }
        }
    }
    return out;
}

size_t mt_ws_by_pairs(const MergeTable *m, MergeScratch *x, const unsigned char *w, size_t len)
{
    const struct MergeWs *t;
    if (!m->bytes_ok || !len || !mt_is_ws(w, len) || !(t = ws_of(m)) || !t->dp)
        return (size_t)-1;
    return ws_by_pairs(t, x, w, len);
}
