/*
 * pipe_load_hf.c -- a tokenizer.json's BPE model into the tables, straight from the
 * file's text (from_hf_text; json_scan.c finds model.vocab and model.merges in it).
 * A file this reader does not take is read by json and python/pipelinemodule.c's
 * from_hf instead.
 *
 * The vocabulary in one pass: each key decoded (and mapped back from GPT-2's alphabet)
 * straight into the arena. The merges in batches: a batch's strings decoded first, then
 * its three keys per merge looked up together (find_keys: a published file's 150k-300k
 * merges are ~900k lookups in tables of megabytes, each a chain of cache misses when
 * made one at a time), then added to the merge table, sized once for all of them. A
 * string with an escape, or a merge that is odd in any way, is read by the plain code
 * (merge_slow), which also words the problems.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imported/json_scan.h"
#include "imported/pipeline.h"
#include "util/grow.h"

#define BATCH 32 /* merges looked up together */
#define AHEAD 16 /* merges added while a later one's slot is on its way */

typedef struct {
    Buf key, a, b; /* read_string's buffers (strings with escapes, the slow path) */
    char *tmp;     /* room for a merge's key bytes */
    size_t tmp_cap;
} Scratch;

/* One merge at p the plain way (any spelling, escapes): its three ids, or a problem.
   0 read (*next after it), 1 a problem in *pr, 2 not read (use json), or an error. */
static int merge_slow(PipeModel *m, const char *p, const char *end, ptrdiff_t i, Scratch *x,
                      int32_t ids[3], const char **next, PipeProblem *pr) {
    Buf *key = &x->key, *a = &x->a, *b = &x->b;
    if (*p == '"') {
        p = read_string(p, end, key);
        if (!p) goto fallback;
        char *sp = key->n ? memchr(key->p, ' ', key->n) : NULL;
        if (!sp || sp == key->p || sp == key->p + key->n - 1 ||
            memchr(sp + 1, ' ', (size_t)(key->p + key->n - sp - 1)))
            goto bad_merge;
        a->n = b->n = 0;
        if (buf_put(a, key->p, (size_t)(sp - key->p)) < 0 ||
            buf_put(b, sp + 1, (size_t)(key->p + key->n - sp - 1)) < 0)
            return PIPE_NOMEM;
    } else if (*p == '[') {
        p = read_string(skip_ws(p + 1, end), end, a);
        if (!p) goto fallback;
        p = skip_ws(p, end);
        if (p >= end || *p != ',') goto fallback;
        p = read_string(skip_ws(p + 1, end), end, b);
        if (!p) goto fallback;
        p = skip_ws(p, end);
        if (p >= end || *p != ']') goto fallback;
        p++;
        if (!a->n || !b->n) { /* quoted as "left right" would be */
            key->n = 0;
            if (buf_put(key, a->p ? a->p : "", a->n) < 0 || buf_put(key, " ", 1) < 0 ||
                buf_put(key, b->p ? b->p : "", b->n) < 0)
                return PIPE_NOMEM;
            goto bad_merge;
        }
    } else {
        goto fallback;
    }
    key->n = 0;
    if (buf_put(key, a->p, a->n) < 0 || buf_put(key, b->p, b->n) < 0) return PIPE_NOMEM;
    if (bpe_grow((void **)&x->tmp, &x->tmp_cap, key->n + 1, 1, 256) < 0) return PIPE_NOMEM;
    ids[0] = text_key_id(m, a->p, a->n, x->tmp);
    ids[1] = text_key_id(m, b->p, b->n, x->tmp);
    ids[2] = text_key_id(m, key->p, key->n, x->tmp);
    if (ids[0] == NONE_ID || ids[1] == NONE_ID || ids[2] == NONE_ID) {
        const char *what = ids[0] == NONE_ID || ids[1] == NONE_ID ? "token" : "merged token";
        const Buf *part = ids[0] == NONE_ID ? a : ids[1] == NONE_ID ? b : key;
        return pipe_problem(pr, PP_NOT_IN_VOCAB, "merges", i, what, part->p, part->n, a->p,
                            a->n, b->p, b->n);
    }
    *next = p;
    return 0;
bad_merge:
    return pipe_problem(pr, PP_BAD_MERGE, "merges", i, NULL, key->p, key->n, NULL, 0, NULL, 0);
fallback: /* a string that read_string does not take, or no memory for it */
    return key->oom || a->oom || b->oom ? PIPE_NOMEM : 2;
}

/* One merge at p the quick way, when it is plain: "a b" or ["a", "b"] with no escape,
   neither part empty: its parts' text in q[k][0..1] (start, end) and the position after
   it, or NULL (merge_slow reads it). */
static const char *merge_spans(const char *p, const char *end, const char *q[2][2]) {
    if (*p == '"') {
        const char *e = plain_end(p + 1, end), *sp;
        if (!e) return NULL;
        sp = memchr(p + 1, ' ', (size_t)(e - p - 1));
        if (!sp || sp == p + 1 || sp == e - 1 || memchr(sp + 1, ' ', (size_t)(e - sp - 1)))
            return NULL;
        q[0][0] = p + 1;
        q[0][1] = sp;
        q[1][0] = sp + 1;
        q[1][1] = e;
        return e + 1;
    }
    if (*p != '[') return NULL;
    for (int k = 0; k < 2; k++) {
        p = skip_ws(p + 1, end);
        if (p >= end || *p != '"' || !(q[k][1] = plain_end(q[k][0] = p + 1, end)) ||
            q[k][1] == q[k][0])
            return NULL;
        p = skip_ws(q[k][1] + 1, end);
        if (p >= end || *p != (k ? ']' : ',')) return NULL;
    }
    return p + 1;
}

/* A part of a merge (plain text q[0..n), not empty) as key bytes at out (room for n):
   their length, or -1 (a character outside GPT-2's alphabet: merge_slow says which). */
static inline ptrdiff_t part_bytes(const char *q, size_t n, int byte_level, char *out) {
    if (byte_level) return utf8_byte_level(q, n, out);
    memcpy(out, q, n);
    return (ptrdiff_t)n;
}

/* model.vocab s[vs..ve): the keys (see pipeline.h: ByteLevel keys as their bytes; a key
   outside GPT-2's alphabet only shown), each id's first entry. 0, 2 (not read: use json)
   or an error. */
static int load_vocab(PipeModel *m, const char *s, ptrdiff_t vs, ptrdiff_t ve, int byte_level,
                      Buf *key) {
    const char *p, *end = s + ve;
    int64_t max_id = -1;
    /* the keys' bytes are at most their JSON text's */
    if (bpe_grow((void **)&m->arena, &m->arena_cap, m->arena_len + (size_t)(ve - vs), 1,
                 1 << 16) < 0)
        return PIPE_NOMEM;
    for (p = skip_ws(s + vs + 1, end); p < end && *p != '}';) {
        const char *q, *e = *p == '"' ? plain_end(p + 1, end) : NULL;
        size_t n;
        if (e) {
            q = p + 1;
            n = (size_t)(e - q);
            p = e + 1;
        } else {
            p = read_string(p, end, key);
            if (!p) return key->oom ? PIPE_NOMEM : 2;
            q = key->p ? key->p : "";
            n = key->n;
            if (bpe_grow((void **)&m->arena, &m->arena_cap, m->arena_len + n, 1, 1 << 16) < 0)
                return PIPE_NOMEM;
        }
        p = skip_ws(p, end);
        if (p >= end || *p != ':') return 2;
        p = skip_ws(p + 1, end);
        int64_t id = 0;
        if (p >= end || *p < '0' || *p > '9') return 2;
        while (p < end && *p >= '0' && *p <= '9' && id < MAX_IDS) id = id * 10 + (*p++ - '0');
        if (id >= MAX_IDS || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) return 2;
        if (id > max_id) max_id = id;
        int rc, lookup = 1;
        char *out = m->arena + m->arena_len;
        ptrdiff_t k = byte_level ? utf8_byte_level(q, n, out) : -1;
        if (k < 0) { /* UTF-8 text: a char-level key, or a ByteLevel vocab's added token */
            lookup = !byte_level;
            memcpy(out, q, n);
            k = (ptrdiff_t)n;
        }
        if ((rc = add_key_at_end(m, (size_t)k, (int32_t)id, lookup)) < 0) return rc;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    return set_ids_from_entries(m, (ptrdiff_t)(max_id + 1));
}

/* See pipeline.h; the spans are model.vocab's and model.merges' in s. */
int pipe_load_hf_text(PipeModel *m, const char *s, ptrdiff_t vs, ptrdiff_t ve, ptrdiff_t ms,
                      ptrdiff_t me, int byte_level, PipeProblem *pr) {
    Scratch x = {0};
    char *bytes = NULL; /* a batch's merges' key bytes */
    size_t bytes_cap = 0;
    int rc;
    m->byte_level = byte_level;
    if ((rc = load_vocab(m, s, vs, ve, byte_level, &x.key)) != 0) goto done;
    if ((rc = build_slots(m)) < 0 || (rc = start_merges(m)) < 0) goto done;
    /* the merges: "a b" strings or ["a", "b"] pairs, BATCH at a time */
    const char *p, *end = s + me;
    ptrdiff_t i = 0;
    for (p = skip_ws(s + ms + 1, end); p < end && *p != ']';) {
        const char *at[BATCH], *kp[3 * BATCH];
        size_t kn[3 * BATCH], off[BATCH + 1];
        int32_t ids[3 * BATCH];
        ptrdiff_t na[BATCH], nb[BATCH];
        int k = 0, stop = 0; /* 1: a merge for merge_slow at p; 2: too many merges */
        off[0] = 0;
        for (; k < BATCH && p < end && *p != ']'; k++) {
            const char *q[2][2], *next;
            if (i + k >= MT_MAX_RANK) {
                stop = 2;
                break;
            }
            if (!(next = merge_spans(p, end, q))) {
                stop = 1;
                break;
            }
            size_t room = (size_t)(q[0][1] - q[0][0] + q[1][1] - q[1][0]);
            if (bpe_grow((void **)&bytes, &bytes_cap, off[k] + room, 1, 4096) < 0) {
                rc = PIPE_NOMEM;
                goto done;
            }
            char *w = bytes + off[k];
            if ((na[k] = part_bytes(q[0][0], (size_t)(q[0][1] - q[0][0]), byte_level, w)) < 0 ||
                (nb[k] = part_bytes(q[1][0], (size_t)(q[1][1] - q[1][0]), byte_level,
                                    w + na[k])) < 0) {
                stop = 1;
                break;
            }
            at[k] = p;
            off[k + 1] = off[k] + (size_t)(na[k] + nb[k]);
            p = skip_ws(next, end);
            if (p < end && *p == ',') p = skip_ws(p + 1, end);
        }
        for (int j = 0; j < k; j++) {
            const char *w = bytes + off[j];
            kp[3 * j] = w;
            kn[3 * j] = (size_t)na[j];
            kp[3 * j + 1] = w + na[j];
            kn[3 * j + 1] = (size_t)nb[j];
            kp[3 * j + 2] = w;
            kn[3 * j + 2] = (size_t)(na[j] + nb[j]);
        }
        find_keys(m, (size_t)(3 * k), kp, kn, ids);
        for (int j = 0; j < k; j++, i++) {
            int32_t *t = ids + 3 * j;
            if (t[0] == NONE_ID || t[1] == NONE_ID || t[2] == NONE_ID) {
                const char *ignored; /* merge_slow misses it too, and says which part */
                rc = merge_slow(m, at[j], end, i, &x, t, &ignored, pr);
                if (rc == 0) rc = PIPE_INVALID; /* (cannot be: the same lookups) */
                goto done;
            }
            if ((rc = push_merge(m, t[0], t[1], t[2])) < 0) goto done;
        }
        if (stop == 2) { /* refused as add_merge words it */
            rc = add_merge(m, 0, 0, (int32_t)MT_MAX_RANK, 0);
            goto done;
        }
        if (stop == 1) {
            int32_t t[3];
            if ((rc = merge_slow(m, p, end, i, &x, t, &p, pr)) != 0) goto done;
            if ((rc = push_merge(m, t[0], t[1], t[2])) < 0) goto done;
            i++;
            p = skip_ws(p, end);
            if (p < end && *p == ',') p = skip_ws(p + 1, end);
        }
    }
    /* into the merge table, sized once for all of them */
    if (mt_reserve(&m->mt, (size_t)m->n_merges) < 0) {
        rc = PIPE_NOMEM;
        goto done;
    }
    for (ptrdiff_t r = 0; r < m->n_merges; r++) {
        if (r + AHEAD < m->n_merges) /* its slot asked for a few merges ahead */
            mt_prefetch(&m->mt, m->merge_a[r + AHEAD], m->merge_b[r + AHEAD]);
        if ((rc = add_merge_only(m, m->merge_a[r], m->merge_b[r], (int32_t)r,
                                 m->merge_new[r])) < 0)
            goto done;
    }
    rc = 0;
done:
    free(x.key.p);
    free(x.a.p);
    free(x.b.p);
    free(x.tmp);
    free(bytes);
    return rc;
}
