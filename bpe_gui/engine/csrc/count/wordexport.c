/*
 * wordexport.c -- word tables written out in order of first appearance (see wordexport.h).
 */
#include "count/wordexport.h"

#include <stdlib.h>
#include <string.h>

#include "util/heap_trim.h"

/* One table's entries in order of first appearance: the entries themselves, or (when
 * they were not added in that order) a sorted list of them. */
struct WordRun {
    const WordTable *t;
    const WordEntry **order;   /* NULL: t->entries are in order */
    size_t i;
};
typedef struct WordRun Run;

static int cmp_entry(const void *a, const void *b)
{
    const WordEntry *x = *(const WordEntry *const *)a, *y = *(const WordEntry *const *)b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x < y ? -1 : x > y;   /* (one array: the order they were added) */
}

static int run_init(Run *r, const WordTable *t)
{
    r->t = t;
    r->i = 0;
    r->order = NULL;
    if (!t->unordered || t->n == 0)
        return 0;
    r->order = (const WordEntry **)malloc(t->n * sizeof(*r->order));
    if (!r->order)
        return -1;
    for (size_t i = 0; i < t->n; i++)
        r->order[i] = &t->entries[i];
    qsort((void *)r->order, t->n, sizeof(*r->order), cmp_entry);
    return 0;
}

static inline const WordEntry *run_head(const Run *r)
{
    if (r->i >= r->t->n)
        return NULL;
    return r->order ? r->order[r->i] : &r->t->entries[r->i];
}

/* The smallest head of the runs (the lower run on equal keys: a block counted on two
 * tables) in *best, and in *next_key / *next_run the head that would come after it from
 * another run (next_run == k: none); returns that head, or NULL when all are spent. */
static const WordEntry *least_head(const Run *runs, size_t k, size_t *best, uint64_t *next_key,
                                   size_t *next_run)
{
    const WordEntry *e = NULL;
    *best = *next_run = k;
    *next_key = 0;
    for (size_t j = 0; j < k; j++) {
        const WordEntry *h = run_head(&runs[j]);
        if (!h)
            continue;
        if (!e || h->first < e->first) {
            if (e) {
                *next_key = e->first;
                *next_run = *best;
            }
            e = h;
            *best = j;
        } else if (*next_run == k || h->first < *next_key) {
            *next_key = h->first;
            *next_run = j;
        }
    }
    return e;
}

int we_prepare(WordExport *x, WordTable **ts, size_t k, size_t threads)
{
    int rc = 0;
    x->k = k;
    x->words = x->bytes = 0;
    x->gathered = 0;
    x->runs = (Run *)calloc(k ? k : 1, sizeof(Run));
    if (!x->runs)
        return -1;
    for (size_t j = 0; j < k && rc == 0; j++)
        rc = run_init(&x->runs[j], ts[j]);
    if (rc == 0 && k > 1) {
        /* (frees their indexes: the output is made without them) */
        rc = wt_gather(ts, k, threads);
        x->gathered = 1;
    }
    /* gathered: a word's total is in its first entry, its other entries have count 0 */
    size_t words = 0, bytes = 0;
    for (size_t j = 0; j < k && rc == 0; j++)
        for (size_t i = 0; i < ts[j]->n; i++)
            if (k == 1 || ts[j]->entries[i].count) {
                words++;
                bytes += ts[j]->entries[i].len;
            }
    x->words = words;
    x->bytes = bytes;
    return rc;
}

/* A run is taken from for as long as its head stays before every other run's: the tables
 * hold their ranges' words in long stretches, so the runs are compared once per stretch,
 * not once per word. */
void we_write(WordExport *x, unsigned char *bp, int64_t *sp, int64_t *fp, uint64_t *kp)
{
    Run *runs = x->runs;
    size_t k = x->k, m = 0, off = 0, best, next_run;
    uint64_t next_key;
    const WordEntry *e;
    sp[0] = 0;
    while ((e = least_head(runs, k, &best, &next_key, &next_run)) != NULL) {
        do {
            runs[best].i++;
            if (k > 1 && e->count == 0)
                continue;   /* (counted in another table's entry) */
            memcpy(bp + off, wt_word(e), e->len);
            off += e->len;
            sp[m + 1] = (int64_t)off;
            fp[m] = e->count;
            if (kp)
                kp[m] = e->first;
            m++;
        } while ((e = run_head(&runs[best])) != NULL &&
                 (next_run == k || e->first < next_key ||
                  (e->first == next_key && best < next_run)));
    }
}

void we_free(WordExport *x, WordTable **ts)
{
    for (size_t j = 0; x->runs && j < x->k; j++)
        free((void *)x->runs[j].order);
    free(x->runs);
    x->runs = NULL;
    if (x->gathered) {
        for (size_t j = 0; j < x->k; j++)
            wt_reset(ts[j]);
        bpe_heap_trim(); /* their pages, held in the counting threads' arenas */
    }
}

int64_t we_longest_gap(const int64_t *starts, size_t n)
{
    int64_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (starts[i] - starts[i - 1] > best)
            best = starts[i] - starts[i - 1];
    return best;
}
