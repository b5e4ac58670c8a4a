/*
 * merge.c -- the merge table and the merge loops of every tokenizer (see merge.h).
 * Plain C: no Python here, so merging runs without the GIL.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, posix_memalign under -std=c99 (util/huge.h) */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "merge/filters.h"
#include "merge/merge.h"
#include "util/cpu.h"
#include "util/huge.h"
#include "util/grow.h"
#include "util/portable.h"
#include "util/simd.h"
#if defined(BPE_SIMD_SSE2)
#include <emmintrin.h> /* raw_symbols */
#endif


#define HEAP_FROM (MT_SCAN_MAX + 1) /* words at least this long are past the scan */

/* The low bits of the product hold only b's (the key's low half): folded with the high
   ones, so pairs with one right token spread over the whole table (taking bits 17.. gave
   Llama 3's 280k merges probes of 14 slots on average, 1.2 now). */
static inline size_t slot_of(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

static int grow_to(MergeTable *m, size_t cap)
{
    MergeEntry *tab = bpe_calloc_huge(cap, sizeof(MergeEntry));
    if (!tab)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->tab[i].key)
            continue;
        size_t s = slot_of(m->tab[i].key, cap);
        while (tab[s].key)
            s = (s + 1) & (cap - 1);
        tab[s] = m->tab[i];
    }
    free(m->tab);
    m->tab = tab;
    m->cap = cap;
    return 0;
}

static int grow(MergeTable *m)
{
    return grow_to(m, m->cap ? m->cap * 2 : 1024);
}

void mt_prefetch(const MergeTable *m, int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    BPE_PREFETCH(&m->tab[slot_of(key, m->cap)]);
}

int mt_reserve(MergeTable *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 1024;
    while (2 * (n + 1) > cap) {
        if (cap > SIZE_MAX / 4 / sizeof(MergeEntry))
            return -1;
        cap *= 2;
    }
    return cap > m->cap ? grow_to(m, cap) : 0;
}

const MergeEntry *mt_find(const MergeTable *m, int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    for (;;) {
        const MergeEntry *e = &m->tab[s];
        if (e->key == key)
            return e;
        if (!e->key)
            return NULL;
        s = (s + 1) & (m->cap - 1);
    }
}

/* The merge filter: two bits of one 64-bit word per pair (a blocked Bloom filter of
 * 512 KB). One bit in 128 KB let 10% of the pairs without a merge through to the table
 * (Llama 3.2's 280k merges on random letters: 142k of the 168k probes found nothing, each
 * a miss in a table of megabytes); two in one word of a table four times larger pass ~2%,
 * still one load. */
#define PAIR_FILTER_WORDS_LOG MT_FILTER_WORDS_LOG
static inline size_t filter_word(int32_t a, int32_t b, uint64_t *mask)
{
    return mt_filter_word((uint64_t)(uint32_t)a << 32 | (uint32_t)b, mask);
}

static inline int filter_has(const MergeTable *m, int32_t a, int32_t b)
{
    uint64_t mask;
    size_t k = filter_word(a, b, &mask);
    return (m->filter[k] & mask) == mask;
}

/* the rank of the merge of (a, b), or -1; its new token in *made */
static inline int32_t merge_rank(const MergeTable *m, int32_t a, int32_t b, int32_t *made)
{
    if (!filter_has(m, a, b))
        return -1;
    const MergeEntry *e = mt_find(m, a, b);
    if (!e)
        return -1;
    *made = e->new_id;
    return e->rank;
}

int ms_reserve(MergeScratch *x, size_t n)
{
    if (n <= x->cap)
        return 0;
    if (n > INT32_MAX - 1)
        return -1; /* positions are int32 (the heap packs rank and position in 64 bits) */
    size_t cap = x->cap ? x->cap : 64;
    while (cap < n)
        cap *= 2;
    int32_t **arrays[] = {&x->sym, &x->rk, &x->nxt, &x->prv, &x->st, &x->en};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        int32_t *p = realloc(*arrays[k], cap * sizeof(int32_t));
        if (!p)
            return -1;
        *arrays[k] = p;
    }
    uint64_t *heap = realloc(x->heap, 3 * cap * sizeof(uint64_t)); /* n + 2 per merge */
    if (!heap)
        return -1;
    x->heap = heap;
    x->cap = cap;
    return 0;
}

void ms_trim(MergeScratch *x)
{
    int32_t **arrays[] = {&x->sym, &x->rk, &x->nxt, &x->prv, &x->st, &x->en};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        free(*arrays[k]);
        *arrays[k] = NULL;
    }
    free(x->heap);
    x->heap = NULL;
    x->cap = 0;
}

void ms_free_arrays(MergeScratch *x)
{
    free(x->sym);
    free(x->rk);
    free(x->nxt);
    free(x->prv);
    free(x->st);
    free(x->en);
    free(x->heap);
    free(x->seen);
}

#define SEEN_BITS MT_SEEN_BITS

/* 0: the bytes p[0..len) (len >= 2) are surely no token, by the cut tables (token_boundaries.c);
 * cheaper than hashing them: most pairs of Han characters are no token. The tables know
 * the tokens with a byte >= 0x80 only: bytes that end in ASCII at both ends are not
 * answered (1). */
static inline int maybe_token(const MergeTable *m, const unsigned char *p, size_t len)
{
    const MtInside *in = mt_inside(m);
    if (!in || (p[0] < 0x80 && p[len - 1] < 0x80))
        return 1;
    if (len == 2) {
        size_t k = 2 * (size_t)(p[0] | p[1] << 8) + 1;
        return (int)(in->sub2[k >> 6] >> (k & 63) & 1);
    }
    if (len == 3) {
        size_t k = 2 * (size_t)(p[0] | p[1] << 8 | (uint32_t)p[2] << 16) + 1;
        return (int)(in->sub3[k >> 6] >> (k & 63) & 1);
    }
    if (len == 4) {
        size_t k = mt_subh_bit(MT_TOK4, load4(p));
        return (int)(in->subh[k >> 6] >> (k & 63) & 1);
    }
    /* every 2 bytes of a token are inside a token: its first, middle and last two in the
     * 16 KB table first (random non-ASCII words are mostly settled there), then every
     * 5 bytes: its first and last 5 */
    size_t a = 2 * (size_t)(p[0] | p[1] << 8), b = 2 * (size_t)(p[len / 2 - 1] | p[len / 2] << 8),
           c = 2 * (size_t)(p[len - 2] | p[len - 1] << 8);
    if (!(in->sub2[a >> 6] >> (a & 63) & in->sub2[b >> 6] >> (b & 63) & in->sub2[c >> 6] >> (c & 63) & 1))
        return 0;
    size_t k = mt_subh_bit(MT_IN5, load5(p)), k2 = mt_subh_bit(MT_IN5, load5(p + len - 5));
    return (int)(in->subh[k >> 6] >> (k & 63) & in->subh[k2 >> 6] >> (k2 & 63) & 1);
}

/* ---- keys of 2..8 bytes: an open-addressing table keyed by the bytes as a number ---- */

struct MergeShortKey {
    uint64_t key; /* the bytes, little-endian, zero-padded */
    int32_t id;
    int32_t len;  /* 0: empty */
};

/* p[0..len) (2 <= len <= 8) as a little-endian number, reading no byte past p + len */
static inline uint64_t short_bytes(const unsigned char *p, size_t len)
{
    if (len >= 4)
        return load4(p) | load4(p + len - 4) << (8 * (len - 4));
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (len == 3 ? (uint64_t)p[2] << 16 : 0);
}

static inline size_t short_slot(uint64_t key, size_t len, size_t cap)
{
    /* the product's high half folded into its low bits, as slot_of: bits 20.. of it held
     * little but the key's first five bytes, so tokens sharing them crowded one run of
     * slots (o200k: 1.93 probes to find a key, 1.23 now) */
    uint64_t h = (key ^ len) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 32) & (cap - 1);
}

/* the short keys' filter, as the pair filter (two bits of one word, 512 KB): with one bit
 * in 128 KB, half the probes of cl100k's table on random letters found nothing */
static inline size_t short_filter_word(uint64_t key, size_t len, uint64_t *mask)
{
    return mt_filter_word(key ^ len, mask);
}

/* 0: the 2..8 bytes key (short_bytes) of length len is surely no token */
static inline int short_filter_has(const MergeTable *m, uint64_t key, size_t len)
{
    if (!m->short_filter)
        return 1;
    uint64_t mask;
    size_t word = short_filter_word(key, len, &mask); /* (before mask is read) */
    return (m->short_filter[word] & mask) == mask;
}

/* The id of the 2..8 bytes key of length len from the table itself, or -1. */
static inline int32_t short_probe(const MergeTable *m, uint64_t key, size_t len)
{
    size_t cap = m->short_cap;
    for (size_t s = short_slot(key, len, cap);; s = (s + 1) & (cap - 1)) {
        const struct MergeShortKey *e = &m->short_keys[s];
        if (e->key == key && (size_t)e->len == len)
            return e->id;
        if (!e->len)
            return -1;
    }
}

/* The id of the 2..8 bytes key (short_bytes) of length len, or -1. */
static inline int32_t short_key(const MergeTable *m, uint64_t key, size_t len)
{
    return short_filter_has(m, key, len) ? short_probe(m, key, len) : -1;
}

/* The id of the token p[0..len) (len >= 2), or -1. */
static inline int32_t key_of(const MergeTable *m, const unsigned char *p, size_t len)
{
    if (len <= 8 && m->short_keys)
        return short_key(m, short_bytes(p, len), len);
    if (len > m->max_key || !maybe_token(m, p, len))
        return -1;
    return m->key_id(m->key_ctx, p, len);
}

int mt_add_short_key(MergeTable *m, const unsigned char *p, size_t len, int32_t id)
{
    if (len < 2 || len > 8)
        return 0;
    if (2 * (m->short_n + 1) > m->short_cap) {
        size_t cap = m->short_cap ? 2 * m->short_cap : 1 << 16;
        struct MergeShortKey *t = bpe_calloc_huge(cap, sizeof(*t)), *old = m->short_keys;
        if (!t) { /* a partial table would miss keys: none at all (key_id answers) */
            free(old);
            m->short_keys = NULL;
            m->short_cap = m->short_n = 0;
            return -1;
        }
        for (size_t i = 0; i < m->short_cap; i++) {
            if (!old[i].len)
                continue;
            size_t s = short_slot(old[i].key, (size_t)old[i].len, cap);
            while (t[s].len)
                s = (s + 1) & (cap - 1);
            t[s] = old[i];
        }
        free(old);
        m->short_keys = t;
        m->short_cap = cap;
    }
    uint64_t key = short_bytes(p, len);
    if (!m->short_filter && !(m->short_filter = calloc((size_t)1 << PAIR_FILTER_WORDS_LOG, sizeof(uint64_t)))) {
        free(m->short_keys); /* no filter: no table (key_id answers) */
        m->short_keys = NULL;
        m->short_cap = m->short_n = 0;
        return -1;
    }
    uint64_t mask;
    size_t word = short_filter_word(key, len, &mask); /* (before mask is read) */
    m->short_filter[word] |= mask;
    size_t s = short_slot(key, len, m->short_cap);
    for (;; s = (s + 1) & (m->short_cap - 1)) {
        struct MergeShortKey *e = &m->short_keys[s];
        if (!e->len)
            break;
        if (e->key == key && (size_t)e->len == len)
            return 0; /* the first id stays */
    }
    m->short_keys[s].key = key;
    m->short_keys[s].len = (int32_t)len;
    m->short_keys[s].id = id;
    m->short_n++;
    return 0;
}

/* short_bytes of w[i..i+len) (2 <= len <= 8) in a word w[0..n) of 8 bytes or more,
 * without a branch on len: one load of the 8 bytes from i, or, near the word's end, of
 * the 8 that end with the key's, shifted (short_bytes' branches on len, which varies
 * at random in a long word, were mispredicted about once a merge) */
static inline uint64_t word_bytes(const unsigned char *w, size_t n, size_t i, size_t len)
{
    unsigned s = (unsigned)(64 - 8 * len);
    int inside = i + 8 <= n;
    uint64_t v = load8(w + (inside ? i : i + len - 8));
    return (v << (inside ? s : 0)) >> s;
}

/* short_bytes of the pair's bytes w[at..at+len) in the word x merges (x->wlen bytes):
 * without a branch on len when the word has 8 bytes or more */
static inline uint64_t pair_bytes(const MergeScratch *x, const unsigned char *w, size_t at,
                                  size_t len)
{
    return x->wlen >= 8 ? word_bytes(w, x->wlen, at, len) : short_bytes(w + at, len);
}

#define memo_slot mt_memo_slot
#define memo_hit mt_memo_hit

/* pair_rank past its filter and the memo (seen: the pair's slot there, or NULL): the table,
 * its answer kept in the memo (len, key: a rank-based pair's bytes, and as a number when
 * they are 2..8). Out of line: most pairs are settled before (the SentencePiece-style
 * file's long words: pair_rank was a call per pair, a third of the encode). */
BPE_NOINLINE static int32_t pair_rank_slow(const MergeTable *m, int32_t a,
                                           int32_t b, const unsigned char *w,
                                           int32_t limit, int32_t *made,
                                           size_t at, size_t len, uint64_t key,
                                           int32_t *seen)
{
    int32_t r;
    if (m->by_span) { /* tiktoken: the rank of the two symbols' bytes w[at..at+len)
                         together (a short key: past the filter already) */
        r = *made = m->short_keys && len <= 8 ? short_probe(m, key, len)
                                              : key_of(m, w + at, len);
    } else if (a >= 0 && b >= 0) { /* past the filter already */
        const MergeEntry *e = mt_find(m, a, b);
        r = e ? e->rank : -1;
        if (e)
            *made = e->new_id;
    } else {
        r = merge_rank(m, a, b, made);
    }
    if (seen) {
        seen[0] = a;
        seen[1] = b;
        seen[2] = r;
        seen[3] = r >= 0 ? *made : -1;
    }
    return (r >= 0 && r < limit) ? r : NO_RANK;
}

/* The rank (< limit, else NO_RANK) of the pair of symbols i and j (j follows i); the
 * token it makes in *made (kept beside the rank, so a merge needs no rank -> token look-up
 * in a table of megabytes). Inlined: the filter (512 KB), then the memo of recently seen
 * pairs (1 MB, direct-mapped: a pair of tokens has one rank, whatever bytes it came from)
 * -- most pairs of a new word have no rank, and those need neither the memo's slot nor a
 * place in it; of those that have, most were seen before (character models: nearly every
 * pair of letters merges) -- then the table, out of line. */
BPE_FORCE_INLINE int32_t
pair_rank(const MergeTable *m, const MergeScratch *x, int32_t i, int32_t j,
          const unsigned char *w, int32_t limit, int32_t *made)
{
    size_t len = 0;   /* rank-based: the pair's bytes, */
    uint64_t key = 0; /* as a number when they are 2..8 */
    int32_t a = x->sym[i], b = x->sym[j];
    if (!m->by_span) {
        if (a >= 0 && b >= 0 && !filter_has(m, a, b))
            return NO_RANK;
    } else {
        len = (size_t)(x->en[j] - x->st[i]);
        if (m->short_keys && len <= 8) {
            key = pair_bytes(x, w, (size_t)x->st[i], len);
            if (!short_filter_has(m, key, len))
                return NO_RANK;
        }
    }
    int32_t *seen = memo_slot(x, a, b), r;
    if (memo_hit(seen, a, b, limit, &r, made))
        return r;
    return pair_rank_slow(m, a, b, w, limit, made, m->by_span ? (size_t)x->st[i] : 0, len, key,
                          seen);
}

int32_t mt_rank_past_filter(const MergeTable *m, const MergeScratch *x, int32_t a, int32_t b,
                            const unsigned char *w, size_t at, size_t len, uint64_t key,
                            int32_t limit, int32_t *made)
{
    int32_t *seen = memo_slot(x, a, b), r;
    if (memo_hit(seen, a, b, limit, &r, made))
        return r;
    return pair_rank_slow(m, a, b, w, limit, made, at, len, key, seen);
}

/* The rank of the pair at i while the word is still raw bytes (byte-pair table). */
static inline BPE_MAYBE_UNUSED int32_t first_rank(const MergeTable *m, const MergeScratch *x,
        const unsigned char *w, int flags, size_t i, int32_t limit, int32_t *made)
{
    if (flags & MT_RAW) {
        int32_t r = m->bytepair[w[i] * 256 + w[i + 1]].rank;
        *made = m->bytepair[w[i] * 256 + w[i + 1]].new_id;
        return r < limit ? r : NO_RANK;
    }
    return pair_rank(m, x, (int32_t)i, (int32_t)i + 1, w, limit, made);
}

/* A key of no pair (none starts there, or its symbol was merged away): above every key. */
#define KEY_NONE 0x7FFFFFFF


/* Words of HEAP_FROM..FLAT_MAX raw bytes (MT_RAW) on a CPU with AVX2: every pair's key
 * (rank << 10 | position) in one flat array, the lowest found by a SIMD minimum over the
 * whole word after each merge (a word of 160 bytes: five steps of 32 keys), the
 * pair's neighbours relinked and two ranks looked up again, as small.c does for short
 * words. No queue to keep in order. A rank of 2**21 or more does not fit the key: the
 * word is given back (the reference takes it). A CPU with AVX-512 runs the AVX2 loop
 * too: a copy with 512-bit minima (64 keys a step) was slower on long words, as its
 * words of 20-300 bytes were padded to 64 keys and each 512-bit minimum costs two
 * 256-bit ones on some CPUs. */
#define FLAT_MAX MT_FLAT_MAX
#define FLAT_POS 10
#define FLAT_RANKS (1 << (31 - FLAT_POS))

static inline BPE_MAYBE_UNUSED int flat_overflow(int32_t r)
{
    return r != NO_RANK && r >= FLAT_RANKS;
}

static inline BPE_MAYBE_UNUSED int32_t flat_key(int32_t r, int32_t i)
{
    return r == NO_RANK ? KEY_NONE : r << FLAT_POS | i;
}

#if MT_HAVE_FLAT
#include <immintrin.h>

/* the lowest of k[0..n), n a multiple of 32 */
BPE_TARGET("avx2") static inline int32_t flat_min8(const int32_t *k, size_t n)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)k), b = _mm256_loadu_si256((const __m256i *)(k + 8)),
            c = _mm256_loadu_si256((const __m256i *)(k + 16)), d = _mm256_loadu_si256((const __m256i *)(k + 24));
    for (size_t i = 32; i < n; i += 32) {
        a = _mm256_min_epi32(a, _mm256_loadu_si256((const __m256i *)(k + i)));
        b = _mm256_min_epi32(b, _mm256_loadu_si256((const __m256i *)(k + i + 8)));
        c = _mm256_min_epi32(c, _mm256_loadu_si256((const __m256i *)(k + i + 16)));
        d = _mm256_min_epi32(d, _mm256_loadu_si256((const __m256i *)(k + i + 24)));
    }
    __m256i best = _mm256_min_epi32(_mm256_min_epi32(a, b), _mm256_min_epi32(c, d));
    __m128i v = _mm_min_epi32(_mm256_castsi256_si128(best), _mm256_extracti128_si256(best, 1));
    v = _mm_min_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = _mm_min_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(v);
}

/* pair_rank for the flat loop, for one kind of table (by_span constant where it is
 * inlined) and symbols that are all tokens (MT_RAW). In the flat loop a symbol's place is
 * the place of its first byte, so the pair of symbols i and j is the bytes w[i..end),
 * end the place of the symbol after j (no spans kept). A copy of pair_rank's filter part:
 * one function for both, by_span a parameter, cost the flat loop 2-4 instructions a byte
 * and the character models' long words 4% (callgrind: gcc inlined it otherwise). */
BPE_FORCE_INLINE int32_t
flat_rank(const MergeTable *m, const MergeScratch *x, int32_t i, int32_t j, int32_t end,
          const unsigned char *w, size_t n, int32_t limit, int32_t *made, int by_span)
{
    size_t len = 0;
    uint64_t key = 0;
    if (by_span) {
        len = (size_t)(end - i);
        if (len <= 8 && m->short_keys) {
            key = word_bytes(w, n, i, len);
            if (!short_filter_has(m, key, len))
                return NO_RANK;
        }
    } else if (!filter_has(m, x->sym[i], x->sym[j])) { /* (every symbol a token: MT_RAW) */
        return NO_RANK;
    }
    int32_t a = x->sym[i], b = x->sym[j], *seen = memo_slot(x, a, b), r;
    if (memo_hit(seen, a, b, limit, &r, made))
        return r;
    return pair_rank_slow(m, a, b, w, limit, made, (size_t)i, len, key, seen);
}

/* One word in the flat loop: small.c's keys, wider (rank << 10 | position); a start and
 * steps over this struct, inlined whole into flat_one. */
struct FlatWord {
    MergeScratch *x;
    const unsigned char *w;
    size_t n, pad;
    int state; /* 1: merging, 0: done, -1: a rank too large for the keys */
};

/* Each merge of a word waits for the filter words (or memo slots) of the two pairs it
 * made before the next minimum can be known: perf put a quarter of the flat loop's
 * samples on those two loads, in a loop whose instructions, cut by a third, made it only
 * 8-12% faster. No prefetches here: the loop runs at over three instructions a cycle and asking for
 * the two new pairs' lines cost more instructions than the waits they saved (cl100k long
 * words 28 -> 29 MB/s, Llama 3.2 29 -> 31 without them); nor did asking at one step and
 * answering at the word's next help (bench/README.md, round 14). What the loop loses
 * most time on is branches it mispredicts, more than loads or instructions: the key of
 * a pair's bytes branched on their length, which varies at random in a long word (one
 * miss about every merge); word_bytes takes it without a branch (cl100k long words
 * 1.11-1.16x), where fewer instructions (the spans no longer kept) had changed
 * nothing. A symbol's place is its first byte's (the start makes the symbols from the
 * bytes), so the loop keeps no spans: flat_finish makes them from the places. One loop
 * for both kinds of table, m->by_span read at each pair: a copy for each kind is a loop
 * more to keep exact for a gain under the 10% a copy must earn (bench/README.md). */

/* the word's symbols linked, each pair's key from the byte-pair table (blocks of 32
 * keys, flat_min8's); -1: a rank too large for the keys */
BPE_TARGET("avx2") BPE_FORCE_INLINE int
flat_start(const MergeTable *m, struct FlatWord *f, int32_t limit)
{
    MergeScratch *x = f->x;
    int32_t *key = (int32_t *)x->heap, *nxt = x->nxt, *prv = x->prv; /* 6 * cap int32 */
    const unsigned char *w = f->w;
    size_t n = f->n;
    f->pad = (n + 31) & ~(size_t)31;
    for (size_t i = 0; i < n; i++) {
        x->sym[i] = m->byte_ids[w[i]];
        nxt[i] = (int32_t)i + 1;
        prv[i] = (int32_t)i - 1;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        int32_t r = first_rank(m, x, w, MT_RAW, i, limit, &x->rk[i]);
        if (flat_overflow(r))
            return -1;
        key[i] = flat_key(r, (int32_t)i);
    }
    for (size_t i = n - 1; i < f->pad; i++)
        key[i] = KEY_NONE;
    return 1;
}

/* one merge, the lowest rank, leftmost: 1; 0: none left; -1: a rank too large */
BPE_TARGET("avx2") BPE_FORCE_INLINE int
flat_step(const MergeTable *m, struct FlatWord *f, int32_t limit)
{
    MergeScratch *x = f->x;
    int32_t *key = (int32_t *)x->heap, *nxt = x->nxt, *prv = x->prv;
    const unsigned char *w = f->w;
    size_t n = f->n;
    int32_t best = flat_min8(key, f->pad);
    if (best == KEY_NONE)
        return 0;
    int32_t i = best & (FLAT_MAX - 1), j = nxt[i], p = prv[i], q = nxt[j];
    key[j] = KEY_NONE; /* merged away (flat_finish skips a symbol -1) */
    x->sym[j] = -1;
    x->sym[i] = x->rk[i];
    nxt[i] = q;
    int32_t r = NO_RANK, rp = NO_RANK;
    if ((size_t)q < n) {
        prv[q] = i;
        r = flat_rank(m, x, i, q, nxt[q], w, n, limit, &x->rk[i], m->by_span);
    }
    if (p >= 0)
        rp = flat_rank(m, x, p, i, q, w, n, limit, &x->rk[p], m->by_span);
    if (flat_overflow(r) || flat_overflow(rp))
        return -1;
    key[i] = flat_key(r, i);
    if (p >= 0)
        key[p] = flat_key(rp, p);
    return 1;
}

/* one word: f->state 0 (merged) or -1 (a rank too large) */
BPE_TARGET("avx2") static void flat_one(const MergeTable *m, struct FlatWord *f,
                                        int32_t limit)
{
    struct FlatWord g = *f; /* a local: its fields stay in registers */
    g.state = flat_start(m, &g, limit);
    while (g.state > 0)
        g.state = flat_step(m, &g, limit);
    f->state = g.state;
}

/* the flat loop's symbols moved to the front; their spans from their places (a symbol
 * starts at its place and ends where the next starts) */
static size_t flat_finish(MergeScratch *x, size_t n, int spans)
{
    size_t k = 0;
    if (!spans) {
        for (size_t i = 0; i < n; i++) {
            x->sym[k] = x->sym[i];
            k += x->sym[i] >= 0;
        }
        return k;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t s = x->sym[i];
        x->sym[k] = s;
        x->st[k] = (int32_t)i;
        x->en[k] = x->nxt[i];
        k += s >= 0;
    }
    return k;
}

#endif

void mt_want_memo(const MergeTable *m, MergeScratch *x)
{
    /* rank-based: always (hashing bytes costs more than the table's setup); merge-based:
     * in a scratch kept between calls (a table probe is cheaper, the memo pays when the
     * same pairs come back word after word) */
    if (!x->seen && (m->by_span || x->kept)) { /* no memory: merging goes on without */
        x->seen = malloc(sizeof(*x->seen) << SEEN_BITS);
        if (x->seen)
            memset(x->seen, 0xFF, sizeof(*x->seen) << SEEN_BITS); /* ids -1: empty */
    }
}

/* the word's symbols as it came: its bytes' tokens (and their spans) (every byte has a
 * token: MT_RAW) */
static void raw_symbols(const MergeTable *m, MergeScratch *x, const unsigned char *w,
                        size_t len, int spans)
{
    size_t i = 0;
    for (; i + 4 <= len; i += 4) { /* (four at a time: one loop test for four) */
        x->sym[i] = m->byte_ids[w[i]];
        x->sym[i + 1] = m->byte_ids[w[i + 1]];
        x->sym[i + 2] = m->byte_ids[w[i + 2]];
        x->sym[i + 3] = m->byte_ids[w[i + 3]];
    }
    for (; i < len; i++)
        x->sym[i] = m->byte_ids[w[i]];
    if (!spans)
        return;
    i = 0;
#if defined(BPE_SIMD_SSE2)
    /* each byte its own span, four at a time (a long word's bytes: callgrind, o200k on
     * random letters, 14 -> 7 instructions a byte for this function) */
    __m128i at = _mm_setr_epi32(0, 1, 2, 3);
    const __m128i one = _mm_set1_epi32(1), four = _mm_set1_epi32(4);
    for (; i + 4 <= len; i += 4) {
        _mm_storeu_si128((__m128i *)(x->st + i), at);
        _mm_storeu_si128((__m128i *)(x->en + i), _mm_add_epi32(at, one));
        at = _mm_add_epi32(at, four);
    }
#endif
    for (; i < len; i++) {
        x->st[i] = (int32_t)i;
        x->en[i] = (int32_t)i + 1;
    }
}

/* ---- the symbol strategies' entry points (merge.h; route.c chooses among them) ---- */

void mt_raw_symbols(const MergeTable *m, MergeScratch *x, const unsigned char *w, size_t len,
                    int spans)
{
    raw_symbols(m, x, w, len, spans);
}

int32_t mt_whole_word(const MergeTable *m, const unsigned char *w, size_t len)
{
    return len >= 2 ? key_of(m, w, len) : -1;
}

int mt_have_flat(void)
{
#if MT_HAVE_FLAT
    return (bpe_cpu() & BPE_CPU_AVX2) != 0;
#else
    return 0;
#endif
}

#if MT_HAVE_FLAT
size_t mt_merge_flat(const MergeTable *m, MergeScratch *x, size_t n, int32_t limit,
                     const unsigned char *w, int flags)
{
    int spans = flags & MT_SPANS;
    struct FlatWord f = {x, w, n, 0, 1};
    flat_one(m, &f, limit);
    if (f.state == 0)
        return flat_finish(x, n, spans);
    raw_symbols(m, x, w, n, spans); /* the word as it came */
    return (size_t)-1;
}

#endif

int32_t mt_pair(const MergeTable *m, int32_t a, int32_t b, const unsigned char *ab, size_t len,
                int32_t *new_id)
{
    if (m->by_span) /* the rank of the bytes together; that token is the new one */
        return *new_id = key_of(m, ab, len);
    const MergeEntry *e = mt_find(m, a, b);
    if (!e)
        return -1;
    *new_id = e->new_id;
    return e->rank;
}

int mt_init(MergeTable *m, const int32_t byte_ids[256])
{
    memcpy(m->byte_ids, byte_ids, sizeof(m->byte_ids));
    m->bytepair = malloc(65536 * sizeof(*m->bytepair));
    m->filter = calloc((size_t)1 << PAIR_FILTER_WORDS_LOG, sizeof(uint64_t));
    int32_t top = -1;
    m->bytes_ok = 1;
    for (int x = 0; x < 256; x++) {
        if (byte_ids[x] > top)
            top = byte_ids[x];
        if (byte_ids[x] < 0)
            m->bytes_ok = 0;
    }
    m->n_byte_of = (size_t)(top + 1);
    m->byte_of = malloc((m->n_byte_of ? m->n_byte_of : 1) * sizeof(int16_t));
    if (!m->bytepair || !m->filter || !m->byte_of)
        return -1;
    for (size_t i = 0; i < m->n_byte_of; i++)
        m->byte_of[i] = -1;
    for (int x = 0; x < 256; x++) {
        if (byte_ids[x] < 0)
            continue;
        if (m->byte_of[byte_ids[x]] >= 0)
            m->dup_bytes = 1;
        m->byte_of[byte_ids[x]] = (int16_t)x;
    }
    for (int i = 0; i < 65536; i++)
        m->bytepair[i].rank = NO_RANK;
    m->strategy = mt_strategy_get();
    return grow(m);
}

int mt_set_keys(MergeTable *m, mt_key_fn key_id, const void *ctx, size_t max_key, int by_span,
                int whole_words)
{
    m->key_id = key_id;
    m->key_ctx = ctx;
    m->max_key = max_key;
    m->by_span = by_span;
    m->whole_words = whole_words;
    if (by_span) /* the rank of two bytes is that of the two-byte token */
        for (int i = 0; i < 65536; i++) {
            unsigned char two[2] = {(unsigned char)(i >> 8), (unsigned char)i};
            int32_t r = max_key >= 2 ? key_id(ctx, two, 2) : -1;
            m->bytepair[i].rank = r >= 0 ? r : NO_RANK;
            m->bytepair[i].new_id = r;
        }
    return 0;
}

void mt_table_free(MergeTable *m)
{
    free(m->bytepair);
    free(m->filter);
    free(m->byte_of);
    free(m->rank_new);
    free(m->tab);
    free(m->short_keys);
    free(m->short_filter);
    memset(m, 0, sizeof(*m));
}

static void set_bytepair(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id)
{
    if (!m->dup_bytes) {
        if ((size_t)a < m->n_byte_of && (size_t)b < m->n_byte_of && m->byte_of[a] >= 0 &&
            m->byte_of[b] >= 0) {
            int i = m->byte_of[a] * 256 + m->byte_of[b];
            m->bytepair[i].rank = rank;
            m->bytepair[i].new_id = new_id;
        }
        return;
    }
    /* a layout that gives one id to several bytes: every byte value whose token it is */
    for (int x = 0; x < 256; x++) {
        if (m->byte_ids[x] != a)
            continue;
        for (int y = 0; y < 256; y++)
            if (m->byte_ids[y] == b)
                m->bytepair[x * 256 + y].rank = rank, m->bytepair[x * 256 + y].new_id = new_id;
    }
}

int mt_table_add(MergeTable *m, int32_t a, int32_t b, int32_t rank, int32_t new_id, int replace)
{
    if (rank < 0 || rank >= MT_MAX_RANK) /* the keys pack a rank in 26 bits */
        return -2;
    MergeEntry *known = (MergeEntry *)mt_find(m, a, b);
    if (known && !replace)
        return 0;
    if (bpe_grow((void **)&m->rank_new, &m->rank_cap, (size_t)rank + 1, sizeof(int32_t), 1024) < 0)
        return -1;
    m->rank_new[rank] = new_id;
    set_bytepair(m, a, b, rank, new_id);
    if (known) {
        known->rank = rank;
        known->new_id = new_id;
        return 0;
    }
    if (2 * (m->n + 1) > m->cap && grow(m) < 0)
        return -1;
    uint64_t mask;
    size_t word = filter_word(a, b, &mask); /* (before mask is read) */
    m->filter[word] |= mask;
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    while (m->tab[s].key)
        s = (s + 1) & (m->cap - 1);
    m->tab[s].key = key;
    m->tab[s].rank = rank;
    m->tab[s].new_id = new_id;
    m->n++;
    return 1;
}
