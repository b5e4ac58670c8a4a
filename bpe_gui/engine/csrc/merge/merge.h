/*
 * merge.h -- the merge engine of every tokenizer: one merge table, the merge loops, in
 * plain C (no Python: merging runs without the GIL).
 *
 * Merging: repeatedly merge the leftmost occurrence of the pair with the lowest rank,
 * until no pair of rank < limit is left. Two ways to rank a pair, on the same loops:
 *   merge-based  (trained, GPT-2 files, tokenizer.json): the pair (left id, right id) has
 *                a merge (rank, new id) in a hash table (what tokenizers does).
 *   rank-based   (.tiktoken): the rank of a pair is the rank of its concatenated bytes,
 *                looked up by key_id(); the new token is that one (rank == id), as
 *                tiktoken's CoreBPE does.
 * whole_words: a word that is itself a token is taken whole (tiktoken always; HF with
 * ignore_merges). For merges learned by training -- a token is only ever merged further
 * at a later rank -- lowest-rank-leftmost equals training's "replace every occurrence
 * left to right" rule. How a word is merged is one of the strategies below ("strategies":
 * one table, strategies.c; one place that chooses, route.c's mt_route): short words scan
 * for the lowest rank; words of 33..1024 raw bytes scan one flat array of keys with an
 * AVX2 minimum where the CPU has one; other words go to the reference merge
 * (reference.c, a heap), so a word of n symbols costs O(n log n) rather than O(n^2)
 * (1,000,000 spaces, "x" * 10**6).
 *
 * Lookups: pairs of two raw bytes come from a 256 x 256 table; other pairs from an
 * open-addressing hash behind a 512 KB filter (two bits of one word a pair); a merge's
 * new id comes from its rank;
 * rank-based spans of 2..8 bytes from a table keyed by the bytes as one number (no
 * hashing of a byte string). Long words of non-ASCII letters (Chinese clauses) are first
 * cut where no token can cross, and the pieces merged alone (token_boundaries.c): for rank-based
 * tables and for merge-based ones whose every merge makes the token of its two parts'
 * bytes (byte-level tokenizer.json files).
 *
 * Threads: a MergeTable is only read while merging, so any number of threads can merge
 * with one table at once, each with its own MergeScratch. Adding merges must wait until
 * no thread merges (the extensions count the threads that do).
 */
#ifndef BPE_MERGE_H
#define BPE_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "merge/strategies.h"
#include "util/load.h" /* load4, load5, load8 */
#include "util/simd.h"

#if defined(BPE_SIMD_SSE2)
#include <emmintrin.h>
#endif

#define NO_RANK INT32_MAX
#define MT_MAX_RANK (1 << 26)   /* ranks (positions in a merge list, or token ids) are below */

typedef struct {
    uint64_t key; /* ((a << 32) | b) + 1; 0 marks an empty slot */
    int32_t rank;
    int32_t new_id;
} MergeEntry;

/* The id of the token whose bytes are p[0..n), or -1 (rank-based models, whole words). */
typedef int32_t (*mt_key_fn)(const void *ctx, const unsigned char *p, size_t n);

typedef struct MergeTable {
    MergeEntry *tab;
    size_t cap; /* power of two; 0 until mt_init */
    size_t n;
    int32_t byte_ids[256]; /* -1: the byte has no token */
    int bytes_ok;          /* every byte has a token */
    /* merges of two single bytes, by raw byte values: [x * 256 + y] = (rank, new id),
     * rank NO_RANK if none; the first merges of every word need no hash lookup */
    struct { int32_t rank, new_id; } *bytepair;
    /* id -> the byte it is the token of (-1: none), for ids up to the largest byte id */
    int16_t *byte_of;
    size_t n_byte_of;
    int dup_bytes; /* one id serves several bytes (odd files): byte_of is not enough */
    /* rank -> new id (ranks are dense: the merge list's order) */
    int32_t *rank_new;
    size_t rank_cap;
    /* one bit per hash of a pair that has a merge */
    uint64_t *filter;
    /* rank-based models and whole words */
    mt_key_fn key_id;
    const void *key_ctx;
    size_t max_key;  /* the longest token, in bytes: longer spans are no token */
    int by_span;     /* 1: rank-based */
    int whole_words;
    /* the boundaries strategy's own tables (token_boundaries.c makes, fills and frees
     * them; route.c tells it of new merges); NULL: words are not cut. They begin with an
     * MtInside, which merge.c reads too (mt_inside) */
    struct MtCuts *cuts;
    /* keys of 2..8 bytes -> id (mt_add_short_key): one probe by their bytes as a number,
     * no hashing of a byte string; NULL: key_id answers them too */
    struct MergeShortKey *short_keys;
    size_t short_cap, short_n;
    uint64_t *short_filter; /* two bits per hash of a short key (512 KB, merge.c): most
                               spans tried while merging are no token, and the table
                               itself is megabytes read at random */
    int strategy;       /* MT_AUTO, or the one strategy forced on this table (mt_init takes
                           the process's: mt_strategy_set, BPE_GUI_MERGE) */
} MergeTable;

/* Per-thread scratch: one word's symbols, ranks, list links, byte spans, heap; and the
 * ranks of recently seen pairs (a pair of tokens has one rank, so hashing their bytes or
 * probing the merge table again can be skipped): for rank-based tables, and for
 * merge-based ones in a scratch that is `kept`. */
typedef struct MergeScratch {
    int32_t *sym, *rk, *nxt, *prv, *st, *en;
    uint64_t *heap;
    size_t cap;
    int32_t (*seen)[4]; /* (left id, right id, rank or -1, new id), direct-mapped; NULL: none yet */
    int kept;           /* kept between calls (the encoder's): merge-based tables memoise too */
    /* the boundaries strategy's own scratch (token_boundaries.c: short pieces' tokens, and
     * how it merges a piece; made, filled and freed there); NULL: none yet */
    struct MtPieces *pieces;
    size_t wlen;             /* mt_merge: the word's bytes (its last symbol's end) */
} MergeScratch;

/* ---- strategies: the ways a word can be merged (strategies.h); their entry points ---- */

/* The strategies over a word's n symbols in x (as mt_merge; each returns the new length,
 * or (size_t)-1 when it gave the word back as it came). route.c calls them; merge.c
 * holds all but the reference (reference.c). */
typedef size_t (*mt_merge_fn)(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                              const unsigned char *w, int flags);
size_t mt_merge_reference(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                          const unsigned char *w, int flags);
#define MT_SMALL_MAX 32 /* symbols of a word small takes at most (places fit 5 bits) */
size_t mt_merge_small(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                      const unsigned char *w, int flags);
size_t mt_merge_flat(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                     const unsigned char *w, int flags); /* -1: a rank too large */
int mt_have_flat(void); /* 1: this build has the flat loop and the CPU AVX2 */
/* x->sym (and spans) of a byte-level word as it came: its bytes' tokens */
void mt_raw_symbols(const MergeTable *m, MergeScratch *x, const unsigned char *w, size_t len,
                    int spans);
/* the token of the whole word w[0..len), or -1 */
int32_t mt_whole_word(const MergeTable *m, const unsigned char *w, size_t len);

/* mt_route's places: a byte-level word w[0..n) (every byte a token) past the whole-word
 * rule: MT_BOUNDARIES or MT_AUTO (merge its symbols); n symbols in x (flags MT_RAW,
 * MT_SPANS; w unread): MT_SMALL, MT_FLAT or MT_REFERENCE. */
enum { MT_AT_WORD, MT_AT_SYMBOLS };
/* The strategy for a word at `at` (merged with the merges of rank < limit), leaving out
 * those whose bit is set in `declined` (they gave the word back). The one place that
 * chooses. */
int mt_route(const MergeTable *m, int at, const unsigned char *w, size_t n, int flags,
             int32_t limit, unsigned declined);

/* byte_ids: the token id of each single byte (-1: none). 0, or -1 when out of memory. */
int mt_init(MergeTable *m, const int32_t byte_ids[256]);
void mt_free(MergeTable *m); /* (route.c: the table and every strategy's own data) */

/* Rank-based ranks (key_id gives a token's id = rank) and/or whole words; fills the
 * byte-pair table of a rank-based model. 0 or -1. */
int mt_set_keys(MergeTable *m, mt_key_fn key_id, const void *ctx, size_t max_key, int by_span,
                int whole_words);

/* Tell the engine one token's bytes (every token, after mt_set_keys), so that long words
 * can be cut where no token can cross (0, or -1 when out of memory: then words are merged
 * whole, as before). Rank-based tables, and merge-based ones whose merges each make the
 * token of their parts' bytes together. */
int mt_add_token(MergeTable *m, const unsigned char *p, size_t len, int32_t rank);
/* (rank: the token's rank in a rank-based table, its id; -1 in a merge-based one; route.c:
 * the strategies that need the tokens are told, mt_cuts_add_token) */

/* The rank of merging the tokens a and b, whose bytes together are ab[0..len), and the
 * token it makes (*new_id); -1: they do not merge. */
int32_t mt_pair(const MergeTable *m, int32_t a, int32_t b, const unsigned char *ab, size_t len,
                int32_t *new_id);

/* Rank-based models and whole words: the token of the 2..8 bytes p[0..len) is `id`
 * (the first id given for a key stays). 0, or -1 when out of memory (then key_id
 * answers, as without the table). */
int mt_add_short_key(MergeTable *m, const unsigned char *p, size_t len, int32_t id);
/* (out of memory: the table is dropped whole; call no more) */

/* Register a merge: 1 added, 0 the pair is known (kept unless `replace`: then the later
 * rank wins, as tokenizers' map does), -1 out of memory, -2 rank MT_MAX_RANK or more. */
int mt_add(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id, int replace);
/* (route.c: merge.c's table gets it, mt_table_add, and each strategy's own data is told
 * of it) */
int mt_table_add(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id,
                 int replace);
void mt_table_free(MergeTable *m);
/* token_boundaries.c's own tables: told of a merge added (a, b -> rank); freed; and a
 * scratch's own (MergeScratch.pieces), freed */
void mt_cuts_merge_added(struct MtCuts *c, int32_t a, int32_t b, int32_t rank);
/* token_boundaries.c's part of mt_add_token: m->cuts made at the first token that has a
 * byte >= 0x80, and filled */
int mt_cuts_add_token(MergeTable *m, const unsigned char *p, size_t len, int32_t rank);
void mt_cuts_free(struct MtCuts *c);
void mt_pieces_free(struct MtPieces *p);
/* Room for n merges in all, so that adding them moves no entry (a loader that knows how
   many it will add). 0, or -1 when out of memory (the table is as it was). */
int mt_reserve(MergeTable *m, size_t n);
/* Ask memory for the slot of the pair (a, b) ahead of mt_add or mt_find (a loader adding
   many merges: each one's slot is a cache miss). */
void mt_prefetch(const MergeTable *m, int32_t a, int32_t b);

const MergeEntry *mt_find(const MergeTable *m, int32_t a, int32_t b);

/* Room in x for a word of n symbols: 0 or -1. */
int ms_reserve(MergeScratch *x, size_t n);
void ms_free(MergeScratch *x); /* (route.c: merge.c's arrays, ms_free_arrays, and each
                                  strategy's own data) */
void ms_free_arrays(MergeScratch *x);
/* Give back the word arrays (a giant word's), keeping the memo and the caches. */
void ms_trim(MergeScratch *x);

#define MT_RAW 1   /* x->sym holds exactly the byte tokens of w[0..n) */
#define MT_SPANS 2 /* x->st / x->en hold each symbol's byte span in w; keep them */

/* Merge x->sym[0..n) in place with the merges of rank < limit; returns the new length.
 * w: the word's bytes (needed by rank-based models, which need MT_SPANS too). */
size_t mt_merge(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                const unsigned char *w, int flags);

/* A byte-level word w[0..len) (every byte has a token): whole (whole_words) or merged.
 * The ids end in x->sym (spans in x->st / x->en when `spans`); returns their number, or
 * (size_t)-1 when out of memory. */
size_t mt_encode_bytes(const MergeTable *m, MergeScratch *x, const unsigned char *w, size_t len,
                       int32_t limit, int spans);

/* ---- long words in the flat loop ---- */
#define MT_FLAT_MAX 1024 /* bytes of a word the flat loop takes at most */

/* 64K pairs (1 MB a scratch): long Han-character words revisit many pairs; 16K missed
 * often enough that cl100k/o200k Chinese spent ~3% more instructions (callgrind) */
#define MT_SEEN_BITS 16 /* the memo of pair ranks (MergeScratch.seen) */

/* The memo's slot for the pair (a, b) (the scratch has a memo, both are tokens), or NULL */
static inline int32_t *mt_memo_slot(const MergeScratch *x, int32_t a, int32_t b)
{
    if (!x->seen || a < 0 || b < 0)
        return NULL;
    uint64_t h = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) * 0x9E3779B97F4A7C15ull;
    return x->seen[h >> (64 - MT_SEEN_BITS)];
}

/* 1: the memo's slot holds the pair (a, b): its rank (< limit, else NO_RANK) in *r, the
 * token it makes in *made */
static inline int mt_memo_hit(const int32_t *seen, int32_t a, int32_t b, int32_t limit,
                           int32_t *r, int32_t *made)
{
    if (!seen || seen[0] != a || seen[1] != b)
        return 0;
    *r = seen[2] >= 0 && seen[2] < limit ? seen[2] : NO_RANK;
    *made = seen[3];
    return 1;
}

/* The rank (< limit, else NO_RANK) of merging the tokens a and b, past the filters: from
 * x's memo or the table (rank-based: their bytes w[at..at+len), as a number `key` when
 * len <= 8); the token it makes in *made. */
int32_t mt_rank_past_filter(const MergeTable *m, const MergeScratch *x, int32_t a, int32_t b,
                            const unsigned char *w, size_t at, size_t len, uint64_t key,
                            int32_t limit, int32_t *made);

/* x's memo of pair ranks, made if the table wants one (rank-based; merge-based in a
 * kept scratch) and there is memory */
void mt_want_memo(const MergeTable *m, MergeScratch *x);

/* Which short byte strings lie inside some token, of the tokens with a byte >= 0x80: the
 * first member of the boundaries strategy's tables (struct MtCuts, token_boundaries.c,
 * filled by mt_add_token), for its cuts and for merge.c's quick "no token" before a key
 * is hashed. */
typedef struct MtInside {
    uint64_t *sub2; /* 2 bits per 2 bytes: inside a token, is a token */
    uint64_t *sub3; /* 2 bits per 3 bytes: inside a token, is a token */
    uint64_t *subh; /* hashed bits: 4 and 5 bytes inside a token, 4 bytes a token */
} MtInside;

/* m's strings inside tokens; NULL: not known (no token was given) */
static inline const MtInside *mt_inside(const MergeTable *m)
{
    return (const MtInside *)(const void *)m->cuts; /* (its first member) */
}

#define MT_SUBH_BITS 25 /* 4 MB; o200k puts ~2M short strings in it */
enum { MT_IN4 = 1, MT_TOK4 = 2, MT_IN5 = 3 };
static inline size_t mt_subh_bit(int kind, uint64_t v) /* v: <= 7 bytes, little-endian */
{
    return (size_t)(((v | (uint64_t)kind << 56) * 0x9E3779B97F4A7C15ull) >> (64 - MT_SUBH_BITS));
}

/* A byte-level word w[0..len) (every byte has a token) that mt_route sends to
 * MT_BOUNDARIES: split at the boundaries no token crosses, each piece merged
 * (token_boundaries.c); (size_t)-1 when it gives the word back (no cut found where one
 * was needed). */
#define MT_CUT_FROM 9 /* shorter words: only whole characters, and only without a limit */
size_t mt_merge_at_boundaries(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                              size_t len, int32_t limit, mt_merge_fn merge);
/* (merge: how it merges a piece's symbols, route.c's mt_merge: so no strategy calls back
 * into route.c) */


/* The lowest of key[0..n), n a multiple of 4 and at least 4 (merge.c's blocks of pair
 * keys, padded with a key above every other). */
static inline int32_t mt_min_key(const int32_t *key, size_t n)
{
#if defined(BPE_SIMD_SSE2)
    __m128i best = _mm_loadu_si128((const __m128i *)key);
    for (size_t i = 4; i < n; i += 4) { /* (n a multiple of 4, at least 4) */
        __m128i v = _mm_loadu_si128((const __m128i *)(key + i)), lt = _mm_cmplt_epi32(v, best);
        best = _mm_or_si128(_mm_and_si128(lt, v), _mm_andnot_si128(lt, best));
    }
    __m128i sh = _mm_shuffle_epi32(best, _MM_SHUFFLE(1, 0, 3, 2)), lt = _mm_cmplt_epi32(sh, best);
    best = _mm_or_si128(_mm_and_si128(lt, sh), _mm_andnot_si128(lt, best));
    sh = _mm_shuffle_epi32(best, _MM_SHUFFLE(2, 3, 0, 1));
    lt = _mm_cmplt_epi32(sh, best);
    best = _mm_or_si128(_mm_and_si128(lt, sh), _mm_andnot_si128(lt, best));
    return _mm_cvtsi128_si32(best);
#else
    int32_t best = key[0];
    for (size_t i = 1; i < n; i++)
        best = key[i] < best ? key[i] : best;
    return best;
#endif
}

#endif
