/*
 * encoder.h -- encoding a whole text in one pass over its UTF-8: special tokens found,
 * the words between them cut by the native scanner (scan.h), each word's ids taken from
 * a word cache shared by every thread of one tokenizer or merged (merge.h) on a miss, the
 * ids written into one growing uint32 array. Plain C: runs without the GIL.
 *
 * The shared cache (EncCache) is a table of 2-way sets of flat slots: a word of up to
 * 32 bytes with up to 6 ids sits in one 64-byte slot (its bytes, zero-padded, compared
 * 8 at a time; its ids copied out with three 8-byte moves), so a hit reads one cache line
 * and calls nothing. Longer words and words of more ids (C's long comment lines,
 * Chinese clauses) go to a per-thread table (wordcache.h's WordCacheTable, in the
 * thread's EncScratch), where every word the sets miss is looked for before it is
 * merged. The memory is fixed when the cache is made: a full set keeps the word it got first and
 * lets newcomers take turns in its other slot (encoder.c, cache_put); the word pushed out
 * goes to a victim set, 1/8 as many, looked at before a word is merged again.
 *
 * Threads: any number of threads encode with one EncCache at once, each with its own
 * EncScratch. Each set has a sequence number (a seqlock): a writer makes it odd while it
 * writes (a writer that finds it odd or loses the race just does not store its word), a
 * reader compares it before and after reading and treats a change as a miss. So readers
 * never wait and never see a half-written word, and a word merged by one thread serves
 * every other thread from then on.
 *
 * The entries are valid for one merge limit (EncCache.limit); a call with another limit
 * neither reads nor fills the shared cache.
 */
#ifndef BPE_ENCODER_H
#define BPE_ENCODER_H

#include <stddef.h>
#include <stdint.h>

#include "merge/merge.h"
#include "merge/wordcache.h"

/* ---- special tokens: found leftmost, the longest at a place (tiktoken's and
 * tokenizers' rule for them); the text between them is encoded as separate texts ---- */
typedef struct {
    size_t n, max_len;
    unsigned char *arena;  /* every token's bytes */
    size_t *off, *len;     /* token i: arena[off[i] .. off[i] + len[i]) */
    int32_t *id;
    uint32_t start[257];   /* tokens whose first byte is b: start[b] .. start[b + 1],
                              longest first */
    int n_first;           /* distinct first bytes; one: memchr finds the candidates */
    unsigned char first;   /* that byte */
    uint64_t two[1024];    /* bit b0 | b1 << 8: some token of 2+ bytes starts with b0 b1 */
    uint64_t one[4];       /* bit b: some token is the byte b alone */
} EncSpecials;

/* tokens[i] (len[i] bytes, > 0) is special token ids[i]. 0, or -1 out of memory. */
int enc_specials_init(EncSpecials *sp, const unsigned char *const *tokens, const size_t *len,
                      const int32_t *ids, size_t n);
void enc_specials_free(EncSpecials *sp);

/* ---- the shared word cache ---- */
#define ENC_KEY_MAX 32 /* bytes of a word in a slot */
#define ENC_IDS_MAX 6  /* ids of a word in a slot */

typedef struct EncSet EncSet;

typedef struct {
    EncSet *sets;
    void *block;      /* the allocation sets and victims lie in (aligned to 64 bytes) */
    size_t bits;      /* 2**bits sets */
    EncSet *victims;  /* 2**victim_bits sets of the words pushed out of full sets */
    size_t victim_bits;
    int32_t limit;    /* the merge limit of its entries */
} EncCache;

/* Room for about `words` words (rounded up to a power of two, at least 1024). */
int enc_cache_init(EncCache *c, size_t words, int32_t limit);
void enc_cache_free(EncCache *c);
/* Forget every word (only while no thread encodes with it). */
void enc_cache_clear(EncCache *c);
/* Words held in the sets (counts the slots in use, not the victim sets': for tests and
 * statistics). */
size_t enc_cache_count(const EncCache *c);
/* 1: the word w[0..len) (1..ENC_KEY_MAX bytes) is in the sets or the victim sets (tests). */
int enc_cache_holds(const EncCache *c, const unsigned char *w, size_t len);

/* ---- one thread's scratch ---- */

typedef struct {
    MergeScratch x;          /* merging a new word */
    WordCacheTable longs;    /* words too long for the shared cache; NULL slots: none yet */
    uint32_t *ids;           /* the result: ids[0 .. n) */
    size_t n, cap;
    unsigned char *buf;      /* a text's UTF-8, when it is not ASCII */
    size_t buf_cap;
    /* when `mark` is set: each special token found, as (its index in ids, its bytes),
     * marks[2k], marks[2k + 1] for k < n_marks (encode_with_offsets' spans) */
    int mark;
    uint32_t *marks;
    size_t n_marks, cap_marks;
    WcAdmit admit;           /* which merged words go into the caches (wordcache.h) */
    /* where a long str's ids go between its chunks, when set (encode_to_array: into
     * the array, so that they are written once and the ids here stay in pages used
     * before): 0, or -1 with an error set; then n is 0 again */
    int (*flush)(void *ctx, const uint32_t *ids, size_t n);
    void *flush_ctx;
} EncScratch;

void enc_scratch_free(EncScratch *sc);
/* After a call: give back what one giant word or text made grow past `keep` bytes. */
void enc_scratch_trim(EncScratch *sc, size_t keep);

/* Encode s[0..n) (UTF-8) with the scanner `preset`, the merges of rank < limit, the
 * special tokens sp (NULL: none) and the cache c (NULL: none), appending the ids to
 * sc->ids. `readable` >= n: bytes from s that may be read (loads of 8 bytes past a
 * word's end, never used). 0, or -1 when out of memory. */
int enc_encode(const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
               const EncSpecials *sp, const unsigned char *s, size_t n, size_t readable,
               int32_t limit);

/* The same for a text of `chars` characters of `kind` bytes each (1, 2, 4: Python's
 * str), turned into UTF-8 in sc->buf a chunk of ENC_CHUNK characters at a time for a long
 * text, its ids given to sc->flush (when set) once ENC_FLUSH_IDS are held. 0, -1 out of
 * memory, -2 a lone surrogate (no UTF-8 for it; ids may have been appended), -3 the
 * flush's error. */
#define ENC_CHUNK 65536
#define ENC_FLUSH_IDS 65536
int enc_encode_ucs(const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
                   const EncSpecials *sp, int kind, const void *data, size_t chars,
                   int32_t limit);

/* ---- offsets: where each token lies in the text ---- */

/* The character span [start[i], end[i]) of each of the n tokens ids[] of a text of
 * `chars` characters of `kind` bytes each (Python's str: 1, 2, 4), whose UTF-8 the
 * tokens cover one after another: token i holds len_of[ids[i]] bytes (ids below n_len),
 * a marked token (the marks of EncScratch: index, bytes; by index) its mark's. A token
 * holding part of a character's UTF-8 covers the whole character (two neighbours may
 * share it). 0, or -1 when the lengths do not tile the text's UTF-8 (an id without a
 * length, too few or too many bytes): then nothing is promised about the spans. */
int enc_char_spans(int kind, const void *data, size_t chars, const uint32_t *ids, size_t n,
                   const int32_t *len_of, size_t n_len, const uint32_t *marks,
                   size_t n_marks, int64_t *start, int64_t *end);

/* The one-load word of a preset (scan/scan_fast.h) at p[0..n), n >= 8, for tests: the
 * answer for its first 8 bytes (1..7 the word's length, 8 FAST_MORE, 0 undecided); with
 * FAST_MORE and n >= 16, -1 or 8 + the run's end in p[8..16). */
int64_t enc_fast_word(int preset, const unsigned char *p, size_t n);
/* The pre-tokenizer of cl100k, Llama 3, Qwen2 and o200k: 64-byte windows of class
 * masks (scan/scan_mask.h), the default, or a word at a time (scan_fast.h and the
 * scanner). BPE_GUI_PRETOK=mask|word forces one at import. set: 0, or -1 for an unknown
 * mode. Set it before encoding starts, never while another thread encodes. */
enum { ENC_PRETOK_MASK = 0, ENC_PRETOK_WORD = 1 };
int enc_pretok_set(int mode);
int enc_pretok_get(void);
/* The modes by name: "mask", "word" (-1: no mode of that name), and each one's name. */
int enc_pretok_by_name(const char *name);
const char *enc_pretok_name(int mode);
/* BPE_GUI_PRETOK=mask|word: the mode it names set, or nothing when it is unset or empty:
 * 0, or -1 when it names no mode (*value: what it holds). */
int enc_pretok_from_env(const char **value);
/* The word ends of s[0..n), scanned as a whole text, as the encoder finds them (the
 * windows of the mode set, the scanner for the words they leave): up to cap stored,
 * how many returned. For the tests against `regex`. */
size_t enc_pretok_words(int preset, const unsigned char *s, size_t n, size_t *ends, size_t cap);

#endif
