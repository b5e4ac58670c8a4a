/*
 * pipe_load_hf.c -- a tokenizer.json's BPE model into the tables, straight from the
 * file's text (from_hf_text; json_scan.c finds model.vocab and model.merges in it).
 * A file this reader does not take is read by json and python/pipelinemodule.c's
 * from_hf instead.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imported/json_scan.h"
#include "imported/pipeline.h"

/* See pipeline.h; the spans are model.vocab's and model.merges' in s. */
int pipe_load_hf_text(PipeModel *m, const char *s, ptrdiff_t vs, ptrdiff_t ve, ptrdiff_t ms,
                      ptrdiff_t me, int byte_level, PipeProblem *pr) {
    const char *p, *end;
    Buf key = {0}, a = {0}, b = {0};
    char *tmp = NULL;
    int rc = 0;
    m->byte_level = byte_level;
    /* pass 1: the largest id */
    long max_id = -1, n_keys = 0;
    for (p = skip_ws(s + vs + 1, s + ve), end = s + ve; p < end && *p != '}';) {
        p = read_string(p, end, &key);
        if (!p) goto fallback;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') goto fallback;
        p = skip_ws(p + 1, end);
        long id = 0;
        if (p >= end || *p < '0' || *p > '9') goto fallback;
        while (p < end && *p >= '0' && *p <= '9' && id < MAX_IDS) id = id * 10 + (*p++ - '0');
        if (id >= MAX_IDS || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) goto fallback;
        if (id > max_id) max_id = id;
        n_keys++;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    if ((rc = set_ids(m, max_id + 1)) < 0) goto done;
    /* pass 2: the keys */
    for (p = skip_ws(s + vs + 1, end); p < end && *p != '}';) {
        p = read_string(p, end, &key);
        p = skip_ws(p, end);
        p = skip_ws(p + 1, end);
        long id = 0;
        while (p < end && *p >= '0' && *p <= '9') id = id * 10 + (*p++ - '0');
        int lookup = 1;
        const char *kp = key.p;
        ptrdiff_t kn = (ptrdiff_t)key.n;
        if (byte_level) {
            if (key.n > a.cap && buf_put(&a, key.p, key.n) < 0) goto nomem;
            a.n = 0;
            ptrdiff_t k = utf8_byte_level(key.p, key.n, a.p);
            if (k >= 0) { kp = a.p; kn = k; } else { lookup = 0; }
        }
        if ((rc = add_key(m, kp ? kp : "", (size_t)kn, (int32_t)id, lookup)) < 0) goto done;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    if ((rc = build_slots(m)) < 0 || (rc = start_merges(m)) < 0) goto done;
    /* the merges: "a b" strings or ["a", "b"] pairs */
    ptrdiff_t i = 0;
    for (p = skip_ws(s + ms + 1, s + me), end = s + me; p < end && *p != ']'; i++) {
        if (*p == '"') {
            p = read_string(p, end, &key);
            if (!p) goto fallback;
            char *sp = key.n ? memchr(key.p, ' ', key.n) : NULL;
            if (!sp || sp == key.p || sp == key.p + key.n - 1 ||
                memchr(sp + 1, ' ', (size_t)(key.p + key.n - sp - 1)))
                goto bad_merge;
            a.n = b.n = 0;
            if (buf_put(&a, key.p, (size_t)(sp - key.p)) < 0 ||
                buf_put(&b, sp + 1, (size_t)(key.p + key.n - sp - 1)) < 0)
                goto nomem;
        } else if (*p == '[') {
            p = read_string(skip_ws(p + 1, end), end, &a);
            if (!p) goto fallback;
            p = skip_ws(p, end);
            if (p >= end || *p != ',') goto fallback;
            p = read_string(skip_ws(p + 1, end), end, &b);
            if (!p) goto fallback;
            p = skip_ws(p, end);
            if (p >= end || *p != ']') goto fallback;
            p++;
            if (!a.n || !b.n) goto bad_merge;
        } else {
            goto fallback;
        }
        char *t = realloc(tmp, a.n + b.n + 1);
        if (!t) goto nomem;
        tmp = t;
        if (buf_put(&key, "", 0) < 0) goto nomem;
        key.n = 0;
        if (buf_put(&key, a.p, a.n) < 0 || buf_put(&key, b.p, b.n) < 0) goto nomem;
        int32_t ia = text_key_id(m, a.p, a.n, tmp), ib = text_key_id(m, b.p, b.n, tmp),
                iab = text_key_id(m, key.p, key.n, tmp);
        if (ia == NONE_ID || ib == NONE_ID || iab == NONE_ID) {
            const char *what = ia == NONE_ID || ib == NONE_ID ? "token" : "merged token";
            const char *part = ia == NONE_ID ? a.p : ib == NONE_ID ? b.p : key.p;
            size_t part_n = ia == NONE_ID ? a.n : ib == NONE_ID ? b.n : key.n;
            rc = pipe_problem(pr, PP_NOT_IN_VOCAB, "merges", i, what, part, part_n, a.p, a.n,
                              b.p, b.n);
            goto done;
        }
        if ((rc = add_merge(m, ia, ib, (int32_t)i, iab)) < 0) goto done;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    rc = 0;
    goto done;
bad_merge:
    /* (the merge as read into key: for a [left, right] pair, the key read before it) */
    rc = pipe_problem(pr, PP_BAD_MERGE, "merges", i, NULL, key.p, key.n, NULL, 0, NULL, 0);
    goto done;
fallback: /* a string that read_string does not take, or no memory for it */
    rc = key.oom || a.oom || b.oom ? PIPE_NOMEM : 2;
    goto done;
nomem:
    rc = PIPE_NOMEM;
done:
    free(key.p);
    free(a.p);
    free(b.p);
    free(tmp);
    return rc;
}
