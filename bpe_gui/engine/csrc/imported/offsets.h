/*
 * offsets.h -- token spans adjusted as tokenizers adjusts them, in plain C.
 *
 * A span is [st[i], en[i]) in characters of a text. Two rules, each in this one place
 * (the Python piece-by-piece path in tokenizers/imported/pipeline.py is their fallback
 * only, for an install without the C extensions):
 *
 *   off_align: spans in a normalized text mapped back to the text it came from.
 *     Character c of the normalized text stands for [starts[c], ends[c]) of the
 *     original; a token over characters [s, e) gets (starts[s], ends[e - 1]); an empty
 *     span sits where its character starts (past the end: where the last one ends).
 *   off_trim: tokenizers' ByteLevel post-processor with trim_offsets: a span leaves out
 *     its token's leading (lead[id]) and trailing (trail[id]) spaces, never crossing its
 *     other end; with add_prefix_space (`prefix`), the one space of a first token (at
 *     index 0 or at character 0) stays, since the pre-tokenizer put it there.
 */
#ifndef BPE_OFFSETS_H
#define BPE_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

void off_align(int64_t *st, int64_t *en, size_t n, const int64_t *starts,
               const int64_t *ends, size_t n_chars);

/* 0; -1 when an id is not below n_ids (the spans from it on are left as they were). */
int off_trim(int64_t *st, int64_t *en, const uint32_t *ids, size_t n, const int32_t *lead,
             const int32_t *trail, size_t n_ids, int prefix);

/* What an encode with offsets does to its tokens' character spans once it has them: */
typedef struct {
    const int64_t *starts, *ends; /* off_align's (NULL: the text is the original) */
    size_t n_chars;
    const int32_t *lead, *trail;  /* off_trim's by id (NULL: no trimming) */
    size_t n_ids;
    int prefix;
    size_t n_tokens; /* every id must have a token: below this */
} OffAdjust;

/* off_align, then off_trim, as `a` asks; 0, or -1 when an id is not below a->n_tokens
 * or (trimming) a->n_ids: then the spans are not all adjusted. */
int off_adjust(int64_t *st, int64_t *en, const uint32_t *ids, size_t n, const OffAdjust *a);

#endif
