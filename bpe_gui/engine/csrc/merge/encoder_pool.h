/*
 * encoder_pool.h -- a whole-text encoder between calls: its job (table, scanner preset,
 * merge limit, special tokens, the word cache every thread shares), its idle scratches,
 * its table's readers count (a writer adding a merge waits for them) and its calls under
 * way. Plain C.
 *
 * A call: enc_engine_enter (scratches taken, the table counted as read), the work without
 * the caller's lock (enc_engine_encode, enc_engine_spans, enc_batch_encode), then
 * enc_engine_leave. The caller serialises everything but the work (the bindings: the
 * GIL), so no reader comes in between a writer's last look at the count and its write.
 */
#ifndef BPE_MERGE_ENCODER_POOL_H
#define BPE_MERGE_ENCODER_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "imported/offsets.h"
#include "merge/batch.h"
#include "merge/encoder.h"
#include "merge/readers.h"

typedef struct {
    EncScratch **idle; /* one per thread that encoded at once, at most ENC_POOL_MAX */
    size_t n, cap;
    size_t long_bytes; /* their tables of long words (wc_bytes), at most ENC_IDLE_LONGS */
} EncPool;
#define ENC_POOL_MAX 256
/* Idle scratches keep their tables of long words (each up to WC_MAX_ARENA and its slots)
 * for the next call, at most this many bytes of them in all: a scratch whose table would
 * pass it goes idle without one. */
#define ENC_IDLE_LONGS ((size_t)64 << 20)

typedef struct {
    EncJob job;            /* its sp: &sp, or NULL when a call looks for none */
    EncSpecials sp;
    EncCache cache;
    EncPool pool;
    MergeReaders *readers; /* the table's */
    size_t active;         /* calls between enter and leave */
} EncEngine;

/* Over table m (read by `readers`), with the special tokens tokens[i] (lens[i] bytes) ->
 * ids[i] (tokens NULL: none), room for about `cache_words` words. 0, or -1 out of memory
 * (then enc_engine_free it). */
int enc_engine_init(EncEngine *e, const MergeTable *m, MergeReaders *readers, int preset,
                    int32_t limit, size_t cache_words, const unsigned char *const *tokens,
                    const size_t *lens, const int32_t *ids, size_t n_specials);
void enc_engine_free(EncEngine *e);

/* Forget every word: the shared cache's and the idle scratches' tables of long words
 * (only while no call is under way). */
void enc_engine_clear(EncEngine *e);

/* k idle scratches into sc[0..k), the table counted as read, the call as under way: 0,
 * or -1 out of memory (nothing taken or counted). */
int enc_engine_enter(EncEngine *e, EncScratch **sc, size_t k);
/* The table no longer read, the scratches back (trimmed; past ENC_POOL_MAX, freed). */
void enc_engine_leave(EncEngine *e, EncScratch **sc, size_t k);

/* The work: the text's ids appended to sc->ids (special tokens found when `specials`), a
 * long text's UTF-8 copy dropped: 0; -1 out of memory; -2 a lone surrogate. */
int enc_engine_encode(EncEngine *e, EncScratch *sc, const EncText *t, int specials);
/* The same, then each id's character span (enc_char_spans by the lengths len_of[0..n_len),
 * then off_adjust by adj) into *st, *en (malloc'd, sc->n each: the caller frees them):
 * 0; -1; -2; -3 the lengths do not tile the text or an id is past adj's. */
int enc_engine_spans(EncEngine *e, EncScratch *sc, const EncText *t, int specials,
                     const int32_t *len_of, size_t n_len, const OffAdjust *adj,
                     int64_t **st, int64_t **en);

/* A batch of n texts on k workers, its job e's: b's arrays made, *texts (b->texts) to
 * fill; 0, or -1 out of memory (then enc_engine_batch_free it). The work:
 * enc_batch_encode(b, k) with b->scratch entered. */
int enc_engine_batch_make(EncEngine *e, EncBatch *b, EncText **texts, size_t n, size_t k,
                          int specials);
/* The largest id of the batch (0 when none). */
uint32_t enc_engine_batch_top(const EncBatch *b, size_t k);
/* enc_batch_scatter of table[id] objects on k workers, the times each id was written
 * summed into *added (top + 1 counts, malloc'd: the caller frees them): 0, or -1 out of
 * memory (nothing written). */
int enc_engine_batch_scatter(EncBatch *b, void *const *dst, void *const *table, uint32_t top,
                             size_t k, uint32_t **added);
/* Everything enc_engine_batch_make made, the ids included. */
void enc_engine_batch_free(EncBatch *b);

#endif
