/*
 * pipe_load_gguf.c -- a GGUF file's string arrays (tokenizer.ggml.tokens, .merges) read
 * in place, and a `gpt2` vocabulary's model built from them with no Python object per
 * token or merge (formats/gguf_fmt.py reads the metadata scalars and words the errors;
 * python/pipelinemodule.c's from_gguf joins the two).
 *
 * A GGUF string array is `count` times (uint64 length, that many bytes), little- or
 * big-endian as the file is. Every length is checked against the bytes there are before
 * it is used: a hostile file is an answer (where it stops), never a read past the buffer.
 *
 * The model is the one llama.cpp builds (llama-vocab.cpp) and the one
 * tokenizers/imported/llama_vocab.py built from Python lists before this file:
 *   - a token's text names its id, a later token of the same text wins (token_to_id is
 *     assigned in order); an empty token is named "[EMPTY_<id>]" (it is shown, never
 *     matched); a ByteLevel text (GPT-2's alphabet) is looked up by its bytes, another
 *     text (a special token with a space in it) is only shown; without ByteLevel (Gemma
 *     4: raw UTF-8 tokens, "▁" for a space) every text is looked up as it is;
 *   - a merge listed twice keeps its first rank (bpe_ranks.emplace); a merge is cut at the
 *     first space after its first byte (a space inside a UTF-8 character is impossible,
 *     so that is its first character); one with no such space is dropped (llama.cpp keeps
 *     ("", ""), which never applies); ranks count the merges kept.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imported/pipeline.h"
#include "util/hash.h"
#include "util/portable.h"

static uint64_t rd64(const unsigned char *p, int big) {
    uint64_t v = 0;
    if (big)
        for (int k = 0; k < 8; k++) v = v << 8 | p[k];
    else
        for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
    return v;
}

int gguf_walk_strings(const unsigned char *buf, size_t len, size_t *pos, uint64_t *i,
                      uint64_t count, int big, uint64_t *claim) {
    size_t p = *pos;
    uint64_t k = *i;
    int rc = 0;
    for (; k < count; k++) {
        if (p > len || len - p < 8) { rc = 1; break; }
        uint64_t n = rd64(buf + p, big);
        if (n > len - p - 8) { rc = 2; *claim = n; break; }
        p += 8 + (size_t)n;
    }
    *pos = p;
    *i = k;
    return rc;
}

ptrdiff_t gguf_string_spans(const unsigned char *buf, size_t len, size_t start, size_t count,
                            int big, const char **out, size_t *out_len) {
    size_t p = start;
    for (size_t k = 0; k < count; k++) {
        if (p > len || len - p < 8) return (ptrdiff_t)k;
        uint64_t n = rd64(buf + p, big);
        if (n > len - p - 8) return (ptrdiff_t)k;
        out[k] = (const char *)buf + p + 8;
        out_len[k] = (size_t)n;
        p += 8 + (size_t)n;
    }
    return -1;
}

int gguf_count_fits(size_t len, ptrdiff_t count, char *error, size_t cap, const char *who) {
    if (count >= 0 && (size_t)count <= len / 8 + 1) return 0;
    snprintf(error, cap, "%s: a count does not fit the buffer", who);
    return PIPE_INVALID;
}

static int runs_past(ptrdiff_t k, char *error, size_t cap) {
    snprintf(error, cap, "string %lld of the array runs past the buffer", (long long)k);
    return PIPE_INVALID;
}

int gguf_string_offsets(const unsigned char *buf, size_t len, ptrdiff_t start, size_t count,
                        int big, uint64_t *out, char *error, size_t cap) {
    if (start < 0 || (size_t)start > len) return runs_past(0, error, cap);
    size_t p = (size_t)start;
    for (size_t k = 0; k < count; k++) {
        if (p > len || len - p < 8) return runs_past((ptrdiff_t)k, error, cap);
        uint64_t n = rd64(buf + p, big);
        if (n > len - p - 8) return runs_past((ptrdiff_t)k, error, cap);
        out[k] = p;
        p += 8 + (size_t)n;
    }
    out[count] = p;
    return 0;
}

int gguf_spans(const unsigned char *buf, size_t len, ptrdiff_t start, ptrdiff_t count,
               int big, const char ***p, size_t **n, char *error, size_t cap, const char *who) {
    *p = NULL, *n = NULL;
    if (gguf_count_fits(len, count, error, cap, who) < 0) return PIPE_INVALID;
    *p = malloc((size_t)(count ? count : 1) * sizeof(char *));
    *n = malloc((size_t)(count ? count : 1) * sizeof(size_t));
    if (!*p || !*n) {
        free(*p), free(*n);
        *p = NULL, *n = NULL;
        return PIPE_NOMEM;
    }
    ptrdiff_t bad = start < 0 || (size_t)start > len ? 0 :
        gguf_string_spans(buf, len, (size_t)start, (size_t)count, big, *p, *n);
    if (bad >= 0) {
        free(*p), free(*n);
        *p = NULL, *n = NULL;
        return runs_past(bad, error, cap);
    }
    return 0;
}

int pipe_load_gguf_buf(PipeModel *m, const unsigned char *buf, size_t len, ptrdiff_t ts,
                       ptrdiff_t tn, ptrdiff_t ms, ptrdiff_t mn, int big, int byte_level,
                       const char *const *want, const size_t *want_len, size_t n_want,
                       int32_t *want_id, PipeProblem *pr) {
    const char **tp = NULL, **mp = NULL;
    size_t *tl = NULL, *ml = NULL;
    int rc = gguf_spans(buf, len, ts, tn, big, &tp, &tl, m->error, sizeof m->error, "from_gguf");
    if (rc == 0)
        rc = gguf_spans(buf, len, ms, mn, big, &mp, &ml, m->error, sizeof m->error, "from_gguf");
    if (rc == 0)
        rc = pipe_load_gguf(m, tp, tl, (size_t)tn, mp, ml, (size_t)mn, byte_level, want,
                            want_len, n_want, want_id, pr);
    free(tp), free(tl), free(mp), free(ml);
    return rc;
}

/* Python's strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
int utf8_valid(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t k;
        uint32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF) { k = 1; cp = c & 0x1F; min = 0x80; }
        else if (c >= 0xE0 && c <= 0xEF) { k = 2; cp = c & 0x0F; min = 0x800; }
        else if (c >= 0xF0 && c <= 0xF4) { k = 3; cp = c & 0x07; min = 0x10000; }
        else return 0;
        if (n - i <= k) return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += k + 1;
    }
    return 1;
}

/* Texts -> index (open addressing; a slot: the hash's high 32 bits, index + 1; 0 empty).
 * The tag spares most probes a look at the text (which is elsewhere in memory). */
typedef struct {
    uint64_t *slots;
    size_t mask;
    const char *const *p;
    const size_t *n;
} TextIndex;

static int ti_init(TextIndex *t, size_t count, const char *const *p, const size_t *n) {
    size_t cap = 1024;
    while (cap < 2 * count + 2) cap *= 2;
    t->slots = calloc(cap, sizeof(uint64_t));
    t->mask = cap - 1;
    t->p = p;
    t->n = n;
    return t->slots ? 0 : PIPE_NOMEM;
}

/* The slot of text s[0..n) (hash h): the one holding it, or the empty one it would go in. */
static size_t ti_slot(const TextIndex *t, const char *s, size_t n, uint64_t h) {
    size_t i = (size_t)h & t->mask;
    uint64_t tag = h >> 32 << 32;
    for (;;) {
        uint64_t v = t->slots[i];
        if (!v) return i;
        if ((v & 0xFFFFFFFF00000000ull) == tag) {
            uint32_t k = (uint32_t)v - 1;
            if (t->n[k] == n && (n == 0 || memcmp(t->p[k], s, n) == 0)) return i;
        }
        i = (i + 1) & t->mask;
    }
}

static int32_t ti_get_h(const TextIndex *t, const char *s, size_t n, uint64_t h) {
    uint64_t v = t->slots[ti_slot(t, s, n, h)];
    return v ? (int32_t)((uint32_t)v - 1) : NONE_ID;
}

static int32_t ti_get(const TextIndex *t, const char *s, size_t n) {
    return ti_get_h(t, s, n, bpe_hash_bytes(s, n));
}

/* always inlined: a function of a prefetch alone is "pure" to gcc, its calls dropped */
BPE_FORCE_INLINE void ti_prefetch(const TextIndex *t, uint64_t h) {
    BPE_PREFETCH(&t->slots[(size_t)h & t->mask]);
}

/* Put index k (its text, hash h) in the table unless a text equal to it is there: 1 put,
 * 0 not. */
static int ti_put_h(TextIndex *t, uint32_t k, uint64_t h) {
    size_t i = ti_slot(t, t->p[k], t->n[k], h);
    if (t->slots[i]) return 0;
    t->slots[i] = (h >> 32 << 32) | ((uint64_t)k + 1);
    return 1;
}

/* A merge's split and hashes, worked out AHEAD merges before it is added, so that the
 * table slots it will probe are fetched into the cache meanwhile (the tables are
 * megabytes; a probe is a cache miss otherwise). */
#define AHEAD 8
typedef struct {
    uint64_t hm, ha, hb, hab;
    size_t na;     /* the left part's length; (size_t)-1: no space after the first byte */
} Ahead;

static void look_ahead(Ahead *a, const TextIndex *mi, const TextIndex *ti, const char *s,
                       size_t n, char *ab) {
    a->hm = bpe_hash_bytes(s, n);
    ti_prefetch(mi, a->hm);
    const char *sp = n > 1 ? memchr(s + 1, ' ', n - 1) : NULL;
    if (!sp) {
        a->na = (size_t)-1;
        return;
    }
    size_t na = (size_t)(sp - s), nb = n - na - 1;
    a->na = na;
    a->ha = bpe_hash_bytes(s, na);
    a->hb = bpe_hash_bytes(sp + 1, nb);
    memcpy(ab, s, na);
    memcpy(ab + na, sp + 1, nb);
    a->hab = bpe_hash_bytes(ab, na + nb);
    ti_prefetch(ti, a->ha);
    ti_prefetch(ti, a->hb);
    ti_prefetch(ti, a->hab);
}

int pipe_load_gguf(PipeModel *m, const char *const *tok, const size_t *tok_len, size_t n_tok,
                   const char *const *mer, const size_t *mer_len, size_t n_mer, int byte_level,
                   const char *const *want, const size_t *want_len, size_t n_want,
                   int32_t *want_id, PipeProblem *pr) {
    int rc = 0;
    TextIndex ti = {0}, mi = {0};
    const char **tp = malloc((n_tok ? n_tok : 1) * sizeof *tp);
    size_t *tl = malloc((n_tok ? n_tok : 1) * sizeof *tl);
    char *empty = NULL, *tmp = NULL, *named = NULL;
    size_t n_empty = 0, longest = 0;
    if (!tp || !tl) goto nomem;
    if (n_tok >= (size_t)MAX_IDS) {
        snprintf(m->error, sizeof m->error, "%zu tokens; at most %d are allowed", n_tok,
                 MAX_IDS - 1);
        rc = PIPE_INVALID;
        goto done;
    }
    for (size_t i = 0; i < n_tok; i++) {
        if (!tok_len[i]) n_empty++;
        if (tok_len[i] > longest) longest = tok_len[i];
    }
    /* "[EMPTY_<id>]": 8 + at most 8 digits + 1 */
    if (n_empty && !(empty = malloc(n_empty * 20))) goto nomem;
    size_t e = 0;
    for (size_t i = 0; i < n_tok; i++) {
        if (tok_len[i]) {
            tp[i] = tok[i];
            tl[i] = tok_len[i];
            continue;
        }
        char *s = empty + 20 * e++;
        tl[i] = (size_t)snprintf(s, 20, "[EMPTY_%zu]", i);
        tp[i] = s;
        if (tl[i] > longest) longest = tl[i];
    }
    for (size_t i = 0; i < n_tok; i++)
        if (!utf8_valid((const unsigned char *)tp[i], tl[i])) {
            rc = pipe_problem(pr, PP_NOT_UTF8, "vocab", (ptrdiff_t)i, NULL, tp[i],
                              tl[i] > 60 ? 60 : tl[i], NULL, 0, NULL, 0);
            goto done;
        }
    /* each text names its last token: put from the end, the first put of a text wins */
    if ((rc = ti_init(&ti, n_tok, tp, tl)) < 0) goto done;
    if (!(named = malloc(n_tok ? n_tok : 1))) goto nomem;
    {
        uint64_t hs[AHEAD];
        for (size_t k = 0; k < AHEAD && k < n_tok; k++) {
            hs[k] = bpe_hash_bytes(tp[n_tok - 1 - k], tl[n_tok - 1 - k]);
            ti_prefetch(&ti, hs[k]);
        }
        for (size_t k = 0; k < n_tok; k++) {   /* token i = n_tok - 1 - k */
            size_t i = n_tok - 1 - k;
            uint64_t h = hs[k % AHEAD];
            if (k + AHEAD < n_tok) {
                size_t j = i - AHEAD;
                hs[k % AHEAD] = bpe_hash_bytes(tp[j], tl[j]);
                ti_prefetch(&ti, hs[k % AHEAD]);
            }
            named[i] = (char)ti_put_h(&ti, (uint32_t)i, h);
        }
    }
    m->byte_level = byte_level;
    if ((rc = set_ids(m, (ptrdiff_t)n_tok)) < 0) goto done;
    if (!(tmp = malloc(longest + 1))) goto nomem;
    for (size_t i = 0; i < n_tok; i++) {
        if (!named[i]) continue; /* a later token has its text */
        ptrdiff_t k = byte_level ? utf8_byte_level(tp[i], tl[i], tmp) : -1;
        rc = k >= 0 ? add_key(m, tmp, (size_t)k, (int32_t)i, 1)
                    : add_key(m, tp[i], tl[i], (int32_t)i, !byte_level);
        if (rc < 0) goto done;
    }
    if ((rc = build_slots(m)) < 0 || (rc = start_merges(m)) < 0) goto done;
    /* the merges: the first of equal ones kept */
    if (n_mer && (rc = ti_init(&mi, n_mer, mer, mer_len)) < 0) goto done;
    size_t longest_merge = 1;
    for (size_t i = 0; i < n_mer; i++)
        if (mer_len[i] > longest_merge) longest_merge = mer_len[i];
    char *ab = malloc(longest_merge);
    Ahead ring[AHEAD];
    int32_t rank = 0;
    if (!ab) { rc = PIPE_NOMEM; goto merged; }
    for (size_t i = 0; i < n_mer && i < AHEAD; i++)
        look_ahead(&ring[i], &mi, &ti, mer[i], mer_len[i], ab);
    for (size_t i = 0; i < n_mer; i++) {
        Ahead a = ring[i % AHEAD];
        if (i + AHEAD < n_mer)
            look_ahead(&ring[i % AHEAD], &mi, &ti, mer[i + AHEAD], mer_len[i + AHEAD], ab);
        if (!ti_put_h(&mi, (uint32_t)i, a.hm)) continue; /* listed before */
        const char *s = mer[i];
        size_t n = mer_len[i];
        if (a.na == (size_t)-1) continue;
        size_t na = a.na, nb = n - na - 1;
        const char *sp = s + na;
        if (!nb) {
            rc = pipe_problem(pr, PP_BAD_MERGE, "merges", rank, NULL, s, n, NULL, 0, NULL, 0);
            goto merged;
        }
        memcpy(ab, s, na);
        memcpy(ab + na, sp + 1, nb);
        int32_t ia = ti_get_h(&ti, s, na, a.ha), ib = ti_get_h(&ti, sp + 1, nb, a.hb),
                iab = ti_get_h(&ti, ab, na + nb, a.hab);
        if (ia == NONE_ID || ib == NONE_ID || iab == NONE_ID) {
            const char *what = ia == NONE_ID || ib == NONE_ID ? "token" : "merged token";
            const char *part = ia == NONE_ID ? s : ib == NONE_ID ? sp + 1 : ab;
            size_t part_n = ia == NONE_ID ? na : ib == NONE_ID ? nb : na + nb;
            rc = pipe_problem(pr, PP_NOT_IN_VOCAB, "merges", rank, what, part, part_n, s, na,
                              sp + 1, nb);
            goto merged;
        }
        if ((rc = add_merge(m, ia, ib, rank++, iab)) < 0) goto merged;
    }
    rc = 0;
merged:
    free(ab);
    if (rc) goto done;
    for (size_t w = 0; w < n_want; w++)
        want_id[w] = n_tok ? ti_get(&ti, want[w], want_len[w]) : NONE_ID;
    goto done;
nomem:
    rc = PIPE_NOMEM;
done:
    free(ti.slots);
    free(mi.slots);
    free(tp);
    free(tl);
    free(empty);
    free(tmp);
    free(named);
    return rc;
}
