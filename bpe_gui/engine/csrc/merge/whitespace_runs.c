/*
 * whitespace_runs.c -- a long run of ASCII whitespace (code's indentation, blank lines,
 * the run the patterns' \s+(?!\S) leaves) split where no token can cross, each piece
 * merged alone (token_boundaries.c's pieces and cache of pieces).
 *
 * Why: a run of n whitespace bytes is one word, new to the word cache when its mix of
 * spaces, tabs and newlines is; merging it whole walks n symbols through the long-word
 * merge loop. The same argument as token_boundaries.c's: where no symbol merging can
 * make spans a position p, merging each side alone gives the same symbols. Here the
 * symbols a whitespace run can make are known exactly and are few (cl100k: 425 strings):
 * starting from the six bytes' tokens, every pair of known symbols (a, b) that merges
 * (mt_pair: a merge of the two ids, or the token of their bytes together) makes a new
 * one, a's bytes then b's. That closure, taken once (lazily, after a scratch has merged
 * WS_BUILD_AFTER long runs whole: it costs 1-5 ms, English has a few such runs), is
 * every symbol any whitespace run can ever hold, whatever merge limit (a limit only
 * removes merges). An Aho-Corasick automaton over the closure's strings then gives, at
 * each byte of a run, the longest such string ending there; p is cut when none of them
 * spans it.
 *
 * Threads: the automaton is made once and published with a compare-and-swap (a thread
 * that loses frees its copy), like token_boundaries.c's table of characters; mt_add
 * forgets it (new merges may make new symbols).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

#define WS_FROM 24        /* shorter runs are merged whole (the short-word scan is quick) */
#define WS_BUILD_AFTER 256 /* runs merged whole (in one scratch) before the automaton is made */
#define WS_MAX_NODES 65536
#define WS_MAX_SYMBOLS 8192

/* the six ASCII whitespace bytes -> 0..5; others 6 */
static inline int ws_sym(unsigned char c)
{
    switch (c) {
    case '\t': return 0;
    case '\n': return 1;
    case '\v': return 2;
    case '\f': return 3;
    case '\r': return 4;
    case ' ': return 5;
    default: return 6;
    }
}

/* ws_tok's bit of a string of one kind */
enum { WS_TOK, WS_PRE, WS_SUF };
#define WS_TOK_BITS 17

static uint64_t ws_hash(const unsigned char *p, size_t len, int kind)
{
    uint64_t h = (len | (uint64_t)kind << 32) * 0x9E3779B97F4A7C15ull;
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        h = (h ^ load8(p + i)) * 0xC2B2AE3D27D4EB4Full + (h >> 29);
    uint64_t last = 0;
    for (; i < len; i++)
        last = last << 8 | p[i];
    h = (h ^ last) * 0x9E3779B97F4A7C15ull;
    return (h ^ h >> 31) * 0xD6E8FEB86659FD93ull >> (64 - WS_TOK_BITS);
}

static inline int ws_has(const MergeTable *m, const unsigned char *p, size_t len, int kind)
{
    uint64_t bit = ws_hash(p, len, kind);
    return (int)(m->ws_tok[bit >> 6] >> (bit & 63) & 1);
}

struct MergeWs {
    int32_t (*next)[6]; /* the automaton's transitions (node 0: the root) */
    int32_t *longest;   /* per node: the longest symbol string that ends there */
    size_t n;
};

static void ws_free(struct MergeWs *t)
{
    if (!t)
        return;
    free(t->next);
    free(t->longest);
    free(t);
}

void mt_ws_forget(MergeTable *m)
{
    ws_free(m->ws);
    m->ws = NULL;
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
} Syms;

static uint64_t sym_hash(int32_t id, const unsigned char *p, size_t len)
{
    return ws_hash(p, len, 0) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)id << 20;
}

/* add (id, p[0..len)) unless known: 1 added, 0 known, -1 no memory or too many */
static int syms_add(Syms *s, int32_t id, const unsigned char *p, size_t len)
{
    size_t k = (size_t)(sym_hash(id, p, len) >> 40) & (s->slot_cap - 1);
    for (; s->slot[k]; k = (k + 1) & (s->slot_cap - 1)) {
        size_t e = s->slot[k] - 1;
        if (s->id[e] == id && s->len[e] == len && memcmp(s->bytes + s->off[e], p, len) == 0)
            return 0;
    }
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
    if (mt_pair(m, s->id[a], s->id[b], buf, la + lb, &made) < 0 || made < 0)
        return 0;
    return syms_add(s, made, buf, la + lb) < 0 ? -1 : 0;
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
}

static struct MergeWs *ws_build(const MergeTable *m)
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
    int ok = s.id && s.off && s.len && s.side && s.bytes && s.slot && buf && t;
    static const unsigned char ws[6] = {'\t', '\n', '\v', '\f', '\r', ' '};
    for (int c = 0; ok && c < 6; c++)
        ok = m->byte_ids[ws[c]] >= 0 && syms_add(&s, m->byte_ids[ws[c]], &ws[c], 1) >= 0;
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
        int32_t *fail = malloc(cap * sizeof(int32_t)), *queue = malloc(cap * sizeof(int32_t));
        ok = t->next && t->longest && fail && queue;
        if (ok) {
            memset(t->next, 0xFF, cap * sizeof(*t->next)); /* -1: no child yet */
            t->n = 1;
        }
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

void mt_ws_note_token(MergeTable *m, const unsigned char *p, size_t len)
{
    if (len < 2 || m->ws_tok_lost || !mt_is_ws(p, len))
        return;
    if (!m->ws_tok && !(m->ws_tok = calloc(((size_t)1 << WS_TOK_BITS) / 64, sizeof(uint64_t)))) {
        m->ws_tok_lost = 1;
        return;
    }
    for (size_t k = 1; k <= len; k++) {
        uint64_t bits[3] = {k == len ? ws_hash(p, len, WS_TOK) : ws_hash(p, k, WS_PRE),
                            ws_hash(p + len - k, k, WS_SUF), 0};
        for (int i = 0; i < (k == len ? 1 : 2); i++)
            m->ws_tok[bits[i] >> 6] |= 1ull << (bits[i] & 63);
    }
}

int mt_is_ws_run(const unsigned char *w, size_t len)
{
    return len >= WS_FROM && mt_is_ws(w, len);
}

int mt_is_ws(const unsigned char *w, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (ws_sym(w[i]) == 6)
            return 0;
    return 1;
}

size_t mt_merge_whitespace(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                           size_t len, int32_t limit)
{
    /* the automaton costs 1-5 ms to make: a text with a few long runs merges them whole */
    if (!__atomic_load_n(&m->ws, __ATOMIC_ACQUIRE) && x->ws_whole < WS_BUILD_AFTER) {
        x->ws_whole++;
        return (size_t)-1;
    }
    const struct MergeWs *t = ws_of(m);
    if (!t)
        return (size_t)-1;
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
    mt_pieces_ready(x, limit);
    size_t out = 0;
    for (size_t a = 0, p; a < len; a = p) {
        p = (size_t)x->en[a]; /* (merging the piece at a writes only below p) */
        out = mt_put_piece(m, x, w, len, a, p - a, limit, out);
    }
    return out;
}
