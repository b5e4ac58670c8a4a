/*
 * wordtable.h -- a table of words (pre-tokens) and their counts, for _count.
 *
 * Layout: the entries (word, count, first appearance) lie end to end in the order they
 * were added, 32 bytes each; an open-addressing index of 8-byte slots (a 32-bit hash tag
 * and the entry's number) finds them, so a probe that meets another word's slot rarely
 * looks at its entry. A word of up to 8 bytes -- most words -- lives in its entry; longer
 * words are copied once into an arena of large chunks (never moved). Growing the index
 * copies slots only: an entry keeps the hash bits that place it. The scanner hands over
 * words in batches, and the slots of a whole batch are prefetched before any is looked
 * at, so the memory latencies overlap.
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
    union {
        uint64_t key8;            /* len <= 8: the word itself, zero-padded */
        const unsigned char *p;   /* longer: the word in the arena */
    } w;
    uint64_t first;         /* (block << 32) | ordinal: first appearance */
    int64_t count;
    uint32_t len;           /* bytes (words are never empty) */
    uint32_t hi;            /* the hash's high half: it chooses the slot */
} WordEntry;

typedef struct {
    int preset;             /* BPE_SCAN_* for wt_count_text */
    int lines;              /* each line (up to and with its \n) is a text of its own */
    int special_words;      /* each special token found is also a word, whole (tokenizers'
                               trainer after add_special_tokens) */
    /* special tokens, longest first: never split, counted only with special_words */
    ptrdiff_t n_specials;
    unsigned char **sp;
    size_t *sp_len;
    /* the table */
    WordEntry *entries;     /* n of them, in the order they were added */
    size_t entries_cap;
    uint64_t *slots;        /* (hash tag << 32) | (entry + 1); 0: empty */
    size_t cap;             /* slots: a power of two */
    size_t n;               /* words in it */
    size_t word_bytes;      /* their bytes, end to end */
    int unordered;          /* 0: the entries are in order of first appearance (count()
                               adds them so when blocks come in order): no sort to export */
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

/* The bytes of an entry's word (len bytes). */
static inline const unsigned char *wt_word(const WordEntry *e)
{
    return e->len <= 8 ? (const unsigned char *)&e->w.key8 : e->w.p;
}

/* Gather the counts of k distinct tables for one export of their union: each word's
 * total goes to its entry with the smallest key (the first appearance over all tables),
 * and its other entries get count 0; their indexes are freed. Returns -1 when out of
 * memory (the counts are then partly gathered: the tables serve nothing but wt_clear).
 * Afterwards the tables only serve that export (entries with count > 0, merged by key),
 * then wt_clear. Done on `threads` threads (the caller's among them), each gathering
 * partitions of the words by hash; the result is the same for any number. */
int wt_gather(WordTable **ts, size_t k, size_t threads);

/* Characters in UTF-8 text (bytes that are not continuation bytes). */
int64_t wt_count_chars(const unsigned char *p, size_t n);

/* Free the words (not the special tokens) and empty the table. */
void wt_clear(WordTable *t);
/* wt_clear, and the totals (total, chars, bytes) back to 0 */
void wt_reset(WordTable *t);
/* bytes the table holds (about): its slots, entries and arena */
size_t wt_memory(const WordTable *t);

/* The special tokens: copies of sp[0..n) (len[i] bytes each) replace the table's, kept
 * longest first, so at one start the longest wins: 0, -1 out of memory (none kept), or -2
 * when one is empty (nothing changed). wt_free_specials frees them. */
int wt_set_specials(WordTable *t, const unsigned char *const *sp, const size_t *len, size_t n);
void wt_free_specials(WordTable *t);

/* First-appearance keys are (block << 32) | ordinal: whether n more words numbered from
 * (block, ordinal) get keys of their own. WT_KEYS_OK; WT_KEYS_RANGE: block is 2**31 or more,
 * or ordinal 2**32 or more; WT_KEYS_FULL: the block's 2**32 ordinals run out (a new block
 * must start). */
enum { WT_KEYS_OK, WT_KEYS_RANGE, WT_KEYS_FULL };
static inline int wt_keys_fit(uint64_t block, uint64_t ordinal, uint64_t n)
{
    if (block >= (1ull << 31) || ordinal >= (1ull << 32))
        return WT_KEYS_RANGE;
    return ordinal + n > (1ull << 32) ? WT_KEYS_FULL : WT_KEYS_OK;
}

/* wt_count_text_until, and the size of s[0..stop) (stop > n: all of s) added to the
 * table's chars and bytes: a block of a corpus counted. */
int wt_count_block(WordTable *t, const unsigned char *s, size_t n, size_t stop,
                   uint64_t *ordp);

/* The words p[i] (len[i] bytes each, i < n), each seen once, at *ordp, *ordp + 1, ...
 * (*ordp is left after the last); empty ones are skipped. Adds to t->total. */
int wt_add_words(WordTable *t, const unsigned char *const *p, const size_t *len, size_t n,
                 uint64_t *ordp);

/* Every word of src added to t (its first appearance the earlier of the two), and src's
 * totals to t's. */
int wt_merge(WordTable *t, const WordTable *src);

/* A table as arrays (wordexport.h's output): word i is blob[starts[i]..starts[i + 1]),
 * seen counts[i] times. The first entry that is not a word of blob[0..blob_len) (starts
 * out of order or range, an empty word, a count below 1), or n when all are. */
size_t wt_table_bad_entry(size_t blob_len, const int64_t *starts, const int64_t *counts,
                          size_t n);
/* Its n words added (checked with wt_table_bad_entry first), word i first seen at
 * firsts[i], or without firsts at key0 + i; their counts added to t->total. */
int wt_add_table(WordTable *t, const unsigned char *blob, const int64_t *starts,
                 const int64_t *counts, const uint64_t *firsts, size_t n, uint64_t key0);

#endif
