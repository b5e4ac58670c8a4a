/*
 * pieces.h -- SuperBPE's stage-2 pieces encoded through the segment loop (pieces.c).
 */
#ifndef BPE_PIECES_H
#define BPE_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "merge/merge.h"
#include "merge/wordcache.h"

/* Pieces blob[starts[i]..starts[i+1]) for i < n_pieces, each cut into segments between
 * every two bytes x, y with joins[x << 8 | y] == 0 (no merge ever joins them, so no
 * merge crosses there and merging the segments alone gives the piece's ids); each
 * segment merged (or taken from the cache) with the merges of rank < limit. The ids go
 * to out, piece i's at (*out_starts)[i]..(*out_starts)[i+1] (n_pieces + 1 entries,
 * malloc'd: the caller frees them, and out->ids). 0; -1 out of memory; -2 the starts are
 * out of order or past blob_len (nothing done). */
int pieces_encode(const MergeTable *m, WordCacheTable *c, const uint8_t *joins,
                  const unsigned char *blob, size_t blob_len, const int64_t *starts,
                  size_t n_pieces, int32_t limit, IdList *out, int64_t **out_starts);

#endif
