/*
 * batch.h -- texts encoded on native threads (encoder.h's enc_encode for each), the ids
 * written out on the threads too (an encoder's scratches between calls: encoder_pool.h).
 * Plain C: the bindings hold no lock of theirs while the threads run.
 *
 * A batch runs in phases, each on k threads taking the next text from a shared counter
 * (bpe_run_threads): enc_batch_encode finds every text's ids (in a buffer of its own);
 * then the caller makes each text's result object, empty, of the right length (that
 * needs its interpreter); then enc_batch_scatter writes the ids into them on the
 * threads: as 4-byte ids, or as pointers from a table of one object per id, counting per
 * worker how many times each object was written (the caller adds the counts to the
 * objects' reference counts at the end, in one pass over the table: no object is
 * touched by two threads).
 */
#ifndef BPE_MERGE_BATCH_H
#define BPE_MERGE_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "merge/encoder.h"

/* A text: `len` characters of `kind` bytes each (1, 2, 4: Python's str); `utf8`: its
 * bytes are its UTF-8 (an ASCII str). */
typedef struct {
    const void *data;
    size_t len;
    int kind, utf8;
} EncText;

/* What enc_encode needs besides the text. */
typedef struct {
    const MergeTable *m;
    int preset;
    EncCache *cache;
    const EncSpecials *sp; /* NULL: no special tokens */
    int32_t limit;
} EncJob;

/* The text's ids appended to sc->ids: 0; -1 out of memory; -2 a lone surrogate. */
int enc_encode_text(const EncJob *j, EncScratch *sc, const EncText *t);

#define ENC_SCRATCH_KEEP ((size_t)1 << 20) /* a kept scratch's buffers hold at most this */

/* ---- a batch ---- */
typedef struct {
    EncJob job;
    const EncText *texts;
    size_t n;
    EncScratch **scratch; /* one per worker */
    /* per text, filled by enc_batch_encode: its ids (malloc'd; NULL when none), their
     * number, 0 or enc_encode_text's error */
    uint32_t **ids;
    size_t *n_ids;
    int *err;
    uint32_t *max_id; /* per worker: the largest id it wrote (0 when none) */
    size_t next;      /* the next text to take (atomic) */
} EncBatch;

/* Every text of b on k workers (b->scratch[0..k)). */
void enc_batch_encode(EncBatch *b, size_t k);

/* Each text's ids written into dst[i] (a text with an error or none: skipped), on k
 * workers: as uint32 ids when table is NULL, else as table[id] (void * each), and then
 * counts[w][id] += 1 for each written by worker w (counts: k arrays of n_table zeros;
 * every id is below n_table). */
void enc_batch_scatter(EncBatch *b, void *const *dst, void *const *table, size_t n_table,
                       uint32_t **counts, size_t k);

#endif
