/*
 * core_exercise.h -- what tests/c/core_driver.c and core_fuzz.c do with a core, in plain
 * C (no Python anywhere): build it from a corpus, step it to the end with a full
 * consistency check after every step, undo every step (checked again, back to the
 * words it was built from), and redo them, which must give the same merges; then a core
 * without an undo log, which must make the same steps and refuse to undo.
 */
#ifndef BPE_TESTS_CORE_EXERCISE_H
#define BPE_TESTS_CORE_EXERCISE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

typedef struct {
    int tie;                 /* TIE_* */
    int64_t max_steps;
    int32_t n_tokens;        /* base tokens: bytes[offs[t]..offs[t + 1]) */
    const char *bytes;
    const int64_t *offs;
    int32_t n_words;         /* word w: symbols[starts[w]..starts[w + 1]), seen freqs[w] times */
    const int32_t *symbols;
    const int64_t *starts;
    const int64_t *freqs;
} CoreCorpus;

/* Prints what failed (on stderr) and returns 1; 0 when every check held. The merges go
 * to `out` (NULL: not printed) as "merge A B NEW COUNT N_TIED", one line a step. */
static int exercise_core(const CoreCorpus *k, FILE *out)
{
    int is_mem = 0, err = 0, bad = 1;
    const char *msg;
    StepRec *recs = NULL;
    int32_t *seg = NULL;
    int64_t *seg_st = NULL;
    BpeCore *c = bpe_core_new(k->tie);
    if (!c) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    int64_t n_symbols = k->starts[k->n_words];
    msg = bpe_core_check_shape(n_symbols, k->starts, (int64_t)k->n_words + 1, k->n_words);
    if (msg)
        goto failed;
    if (bpe_core_reserve_tokens(c, (int64_t)k->n_tokens + 1, k->offs[k->n_tokens] + 1) < 0) {
        msg = "out of memory";
        goto failed;
    }
    for (int32_t t = 0; t < k->n_tokens; t++)
        bpe_core_add_token(c, k->bytes + k->offs[t], k->offs[t + 1] - k->offs[t]);
    msg = bpe_core_build(c, k->symbols, (int32_t)n_symbols, k->starts, k->freqs, k->n_words,
                         &is_mem);
    if (msg || (msg = bpe_core_check(c, &is_mem)) != NULL)
        goto failed;

    recs = (StepRec *)malloc((size_t)(k->max_steps > 0 ? k->max_steps : 1) * sizeof(StepRec));
    seg = (int32_t *)malloc((size_t)(n_symbols + 1) * sizeof(int32_t));
    seg_st = (int64_t *)malloc(((size_t)k->n_words + 1) * sizeof(int64_t));
    if (!recs || !seg || !seg_st) {
        msg = "out of memory";
        goto failed;
    }
    int64_t n = 0;
    while (n < k->max_steps) {
        BpePairCount best;
        int has_best = bpe_core_best(c, &best);
        int res = bpe_core_step(c, &err, &recs[n]);
        if (res < 0) {
            msg = "a step failed (out of memory)";
            goto failed;
        }
        if (res == 0)
            break;
        if (!has_best || best.a != recs[n].a || best.b != recs[n].b || best.count != recs[n].count) {
            msg = "the step did not merge the pair best() named";
            goto failed;
        }
        if ((msg = bpe_core_check(c, &is_mem)) != NULL)
            goto failed;
        if (out)
            fprintf(out, "merge %d %d %d %lld %d\n", recs[n].a, recs[n].b, recs[n].id,
                    (long long)recs[n].count, recs[n].n_tied);
        n++;
    }
    for (int64_t i = n; i-- > 0;) {
        StepRec r;
        if (bpe_core_undo(c, &err, &r) != 1) {
            msg = "an undo failed";
            goto failed;
        }
        if (r.a != recs[i].a || r.b != recs[i].b || r.id != recs[i].id) {
            msg = "an undo took back another step than the one made";
            goto failed;
        }
        if ((msg = bpe_core_check(c, &is_mem)) != NULL)
            goto failed;
    }
    if (bpe_core_undo(c, &err, NULL) != 0 || c->n_tokens != k->n_tokens) {
        msg = "undo went past the first step";
        goto failed;
    }
    bpe_core_segmentation(c, seg, seg_st);
    if (memcmp(seg_st, k->starts, ((size_t)k->n_words + 1) * sizeof(int64_t)) != 0 ||
        memcmp(seg, k->symbols, (size_t)n_symbols * sizeof(int32_t)) != 0) {
        msg = "undoing every step did not give back the words";
        goto failed;
    }
    for (int64_t i = 0; i < n; i++) {
        StepRec r;
        if (bpe_core_step(c, &err, &r) != 1 || r.a != recs[i].a || r.b != recs[i].b ||
            r.id != recs[i].id || r.count != recs[i].count) {
            msg = "a redo made another merge";
            goto failed;
        }
    }
    if ((msg = bpe_core_check(c, &is_mem)) != NULL)
        goto failed;
    /* a core without an undo log makes the same steps, and refuses to go back */
    bpe_core_free(c);
    c = bpe_core_new(k->tie);
    if (!c || bpe_core_reserve_tokens(c, (int64_t)k->n_tokens + 1, k->offs[k->n_tokens] + 1) < 0) {
        msg = "out of memory";
        goto failed;
    }
    bpe_core_keep_undo(c, 0);
    for (int32_t t = 0; t < k->n_tokens; t++)
        bpe_core_add_token(c, k->bytes + k->offs[t], k->offs[t + 1] - k->offs[t]);
    msg = bpe_core_build(c, k->symbols, (int32_t)n_symbols, k->starts, k->freqs, k->n_words,
                         &is_mem);
    if (msg)
        goto failed;
    for (int64_t i = 0; i < n; i++) {
        StepRec r;
        if (bpe_core_step(c, &err, &r) != 1 || r.a != recs[i].a || r.b != recs[i].b ||
            r.id != recs[i].id || r.count != recs[i].count) {
            msg = "a core without undo log made another merge";
            goto failed;
        }
        if ((msg = bpe_core_check(c, &is_mem)) != NULL)
            goto failed;
    }
    if (n > 0 && (bpe_core_undo(c, &err, NULL) != -1 || err != ERR_NO_UNDO)) {
        msg = "a core without undo log went back";
        goto failed;
    }
    bad = 0;
failed:
    if (bad)
        fprintf(stderr, "core check failed: %s\n", msg ? msg : "?");
    free(recs);
    free(seg);
    free(seg_st);
    bpe_core_free(c);
    return bad;
}

#endif
