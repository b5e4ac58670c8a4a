/*
 * wordtable.h -- a table of words (pre-tokens) and their counts, for _count.
 *
 * Layout: one open-addressing table whose slots hold the entries themselves (hash,
 * length, the word's first 8 bytes, count, first appearance), so looking up a word of up
 * to 8 bytes -- most words -- touches one cache line; longer words are compared against
 * their copy in an arena of large chunks (never moved, so a resize copies no text). The
 * scanner hands over words in batches, and the slots of a whole batch are prefetched
 * before any is looked at, so the memory latencies overlap.
 *
 * First appearance: a word counted with key (block << 32) | ordinal keeps the smallest
 * key it was seen with, so tables filled on different threads or machines merge into the
 * order one pass over the corpus gives.
 *
 * Plain C (no Python); nothing here is thread-safe: one thread uses a table at a time.
 * Functions returning int give 0, or -1 when out of memory (the table stays usable).
 */
#ifndef BPE_WORDTABLE_H
#define BPE_WORDTABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key8;          /* the word's first 8 bytes, zero-padded */
    uint32_t hash32;        /* low bits of the hash */
    uint32_t len;           /* 0: an empty slot (words are never empty) */
    int64_t count;
    uint64_t first;         /* (block << 32) | ordinal: first appearance */
    const unsigned char *p; /* the whole word in the arena, when longer than 8 bytes */
} WordSlot;

typedef struct {
    int preset;             /* BPE_SCAN_* for wt_count_text */
    int lines;              /* each line (up to and with its \n) is a text of its own */
    /* special tokens, longest first: never counted, never split */
    ptrdiff_t n_specials;
    unsigned char **sp;
    size_t *sp_len;
    /* the table */
    WordSlot *slots;
    size_t cap;             /* power of two */
    size_t n;               /* words in it */
    /* arena for words longer than 8 bytes */
    unsigned char **chunks;
    size_t n_chunks, chunks_cap;
    size_t chunk_used, chunk_size, arena_bytes;
    /* totals */
    int64_t total, chars, bytes;
} WordTable;

/* Add `count` occurrences of a word first seen at `first`. */
int wt_add(WordTable *t, const unsigned char *p, size_t n, int64_t count, uint64_t first);

/* Count the words of s[0..n), a whole text (with t->lines, each of its lines is one, its
 * \n included, as Hugging Face's trainer reads files): cut at special tokens, then by
 * the scanner.
 * The first word gets the key *ordp, the next *ordp + 1, ... (*ordp is left after the
 * last). Adds to t->total (not to chars or bytes). */
int wt_count_text(WordTable *t, const unsigned char *s, size_t n, uint64_t *ordp);
/* The same, counting only the words (and special tokens) that start before stop <= n: the
 * text after stop is only looked at, as the text that follows (see scan_giant.inc). */
int wt_count_text_until(WordTable *t, const unsigned char *s, size_t n, size_t stop,
                        uint64_t *ordp);

/* The bytes of a slot's word (len bytes). */
const unsigned char *wt_word(const WordSlot *e);

/* Characters in UTF-8 text (bytes that are not continuation bytes). */
int64_t wt_count_chars(const unsigned char *p, size_t n);

/* Free the words (not the special tokens) and empty the table. */
void wt_clear(WordTable *t);

#endif
