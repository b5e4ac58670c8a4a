/*
 * wordexport.h -- writing out one word table, or the union of several, in order of first
 * appearance (the arrays _count's export() and export_merged() return).
 *
 * Plain C (no Python), run without the GIL; the tables must not change meanwhile.
 * Functions returning int give 0, or -1 when out of memory.
 */
#ifndef BPE_WORDEXPORT_H
#define BPE_WORDEXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "count/wordtable.h"

struct WordRun;

typedef struct {
    struct WordRun *runs;   /* one per table */
    size_t k;
    size_t words, bytes;    /* of the output, known after we_prepare */
    int gathered;           /* several tables were gathered: they are spent (wt_clear them) */
} WordExport;

/* Gets ready to write out the k tables ts: orders the tables whose entries were not added
 * in order of first appearance, gathers the counts of several (wt_gather on `threads`
 * threads) and sizes the output. we_free afterwards, whatever it returns. */
int we_prepare(WordExport *x, WordTable **ts, size_t k, size_t threads);

/* The union's words into bp (their bytes, x->bytes of them), sp (x->words + 1 starts), fp
 * (counts) and kp (first-appearance keys, if not NULL); once per we_prepare. */
void we_write(WordExport *x, unsigned char *bp, int64_t *sp, int64_t *fp, uint64_t *kp);

/* ts: the tables given to we_prepare; when several were gathered they are spent: each is
 * emptied (wt_reset) and their pages go back to the system. */
void we_free(WordExport *x, WordTable **ts);

/* The greatest starts[i + 1] - starts[i] of n starts (a table's longest word), 0 for
 * fewer than two. */
int64_t we_longest_gap(const int64_t *starts, size_t n);

#endif
