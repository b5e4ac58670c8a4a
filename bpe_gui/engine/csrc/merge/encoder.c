/*
 * encoder.c -- a whole text in one pass: special tokens, words, the shared word cache,
 * ids out (see encoder.h). Plain C: runs without the GIL.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, posix_memalign under -std=c99 (util/huge.h) */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/encoder.h"
#include "merge/merge.h"
#include "merge/wordcache.h"
#include "scan/scan.h"
#include "scan/scan_fast.h"
#include "scan/scan_mask.h"
#include "util/atomics.h"
#include "util/grow.h"
#include "util/huge.h"
#include "util/portable.h"
#include "util/utf8.h"

#define LIKELY(x) BPE_LIKELY(x)
#define UNLIKELY(x) BPE_UNLIKELY(x)

/* ---------------------------------------------------------------- special tokens */

int enc_specials_init(EncSpecials *sp, const unsigned char *const *tokens, const size_t *len,
                      const int32_t *ids, size_t n)
{
    memset(sp, 0, sizeof(*sp));
    if (!n)
        return 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += len[i];
    sp->arena = malloc(total ? total : 1);
    sp->off = malloc(n * sizeof(size_t));
    sp->len = malloc(n * sizeof(size_t));
    sp->id = malloc(n * sizeof(int32_t));
    size_t *order = malloc(n * sizeof(size_t));
    if (!sp->arena || !sp->off || !sp->len || !sp->id || !order) {
        free(order);
        enc_specials_free(sp);
        return -1;
    }
    /* by first byte, then longest first (insertion sort: a few hundred tokens at most) */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0) {
            size_t o = order[j - 1];
            if (tokens[o][0] < tokens[i][0] || (tokens[o][0] == tokens[i][0] && len[o] >= len[i]))
                break;
            order[j] = o;
            j--;
        }
        order[j] = i;
    }
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        memcpy(sp->arena + at, tokens[i], len[i]);
        sp->off[k] = at;
        sp->len[k] = len[i];
        sp->id[k] = ids[i];
        at += len[i];
        if (len[i] > sp->max_len)
            sp->max_len = len[i];
        if (len[i] == 1)
            sp->one[tokens[i][0] >> 6] |= 1ull << (tokens[i][0] & 63);
        else {
            size_t b = (size_t)tokens[i][0] | (size_t)tokens[i][1] << 8;
            sp->two[b >> 6] |= 1ull << (b & 63);
        }
    }
    free(order);
    sp->n = n;
    size_t k = 0;
    for (int b = 0; b < 256; b++) {
        sp->start[b] = (uint32_t)k;
        size_t k0 = k;
        while (k < n && sp->arena[sp->off[k]] == b)
            k++;
        if (k > k0) {
            sp->n_first++;
            sp->first = (unsigned char)b;
        }
    }
    sp->start[256] = (uint32_t)n;
    return 0;
}

void enc_specials_free(EncSpecials *sp)
{
    free(sp->arena);
    free(sp->off);
    free(sp->len);
    free(sp->id);
    memset(sp, 0, sizeof(*sp));
}

/* The longest special token at s[q..end), or -1; its length in *len. */
static inline ptrdiff_t special_at(const EncSpecials *sp, const unsigned char *s, size_t q,
                                   size_t end, size_t *len)
{
    /* most places that start like a token go no further: C source is full of '<', and
     * Llama 3's 256 added tokens all begin "<|" (each compared in turn, 8% of its time) */
    size_t b = q + 1 < end ? (size_t)s[q] | (size_t)s[q + 1] << 8 : 0;
    if (!(q + 1 < end && sp->two[b >> 6] >> (b & 63) & 1) && !(sp->one[s[q] >> 6] >> (s[q] & 63) & 1))
        return -1;
    for (uint32_t k = sp->start[s[q]]; k < sp->start[s[q] + 1]; k++) {
        size_t l = sp->len[k];
        if (l <= end - q && memcmp(s + q, sp->arena + sp->off[k], l) == 0) {
            *len = l;
            return (ptrdiff_t)k;
        }
    }
    return -1;
}

/* The leftmost special token in s[pos..end): its start (end if none), index and length. */
static size_t next_special(const EncSpecials *sp, const unsigned char *s, size_t pos,
                           size_t end, ptrdiff_t *which, size_t *len)
{
    if (!sp || !sp->n)
        return end;
    if (sp->n_first == 1) {
        while (pos < end) {
            const unsigned char *p = memchr(s + pos, sp->first, end - pos);
            if (!p)
                return end;
            size_t q = (size_t)(p - s);
            if ((*which = special_at(sp, s, q, end, len)) >= 0)
                return q;
            pos = q + 1;
        }
        return end;
    }
    for (size_t q = pos; q < end; q++)
        if (sp->start[s[q]] != sp->start[s[q] + 1] && (*which = special_at(sp, s, q, end, len)) >= 0)
            return q;
    return end;
}

/* ---------------------------------------------------------------- the shared cache */

struct EncSet {
    uint32_t seq;                /* even: stable; odd: a writer is at work */
    uint32_t meta;               /* way 0 (the newer word): length | ids << 8; way 1:
                                    the same << 16; length 0: empty */
    uint64_t key0[4], ids0[3];   /* bytes zero-padded; ids two to a word, the first low */
    uint64_t key1[4], ids1[3];
    uint64_t pad;
};

/* a victim set for every 8 sets (2 MB beside 16 MB): with one for every 64, the words a
 * full set pushed out outnumbered the victims' room once a text had ~100k distinct
 * words, and each came back to be merged again */
#define VICTIM_SHIFT 3

int enc_cache_init(EncCache *c, size_t words, int32_t limit)
{
    size_t bits = 1; /* sets of two words: words rounded up to a power of two, at least 4 */
    while (((size_t)2 << bits) < words && bits < 30)
        bits++;
    size_t vbits = bits > VICTIM_SHIFT ? bits - VICTIM_SHIFT : 1;
    size_t bytes = ((size_t)1 << bits) * sizeof(EncSet);
    size_t vbytes = ((size_t)1 << vbits) * sizeof(EncSet);
    /* read at random, a set per word: in huge pages (util/huge.h); 64-byte aligned */
    void *block = bpe_calloc_huge(1, bytes + vbytes + 64);
    if (!block)
        return -1;
    c->block = block;
    c->sets = (EncSet *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    c->bits = bits;
    c->victims = c->sets + ((size_t)1 << bits);
    c->victim_bits = vbits;
    c->limit = limit;
    return 0;
}

void enc_cache_free(EncCache *c)
{
    free(c->block);
    memset(c, 0, sizeof(*c));
}

void enc_cache_clear(EncCache *c)
{
    if (c->sets)
        memset(c->sets, 0, (((size_t)1 << c->bits) + ((size_t)1 << c->victim_bits)) * sizeof(EncSet));
}

size_t enc_cache_count(const EncCache *c)
{
    size_t k = 0;
    for (size_t i = 0; c->sets && i < ((size_t)1 << c->bits); i++)
        k += ((c->sets[i].meta & 0xFF) != 0) + ((c->sets[i].meta >> 16 & 0xFF) != 0);
    return k;
}

/* the low `bytes` bytes of a word (0..8) */
static const uint64_t low_bytes[9] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFF,
                                      0xFFFFFFFFFFFF, 0xFFFFFFFFFFFFFF, ~0ull};

/* The word's bytes in key[0..4), zero-padded (1 <= len <= 32); `readable`: bytes that
 * may be read from w. */
BPE_FORCE_INLINE void load_key(const unsigned char *w, size_t len,
                               size_t readable, uint64_t key[4])
{
    if (UNLIKELY(readable < 32)) {
        unsigned char tmp[32] = {0};
        memcpy(tmp, w, len);
        for (int j = 0; j < 4; j++)
            key[j] = load8(tmp + 8 * j);
        return;
    }
    if (LIKELY(len <= 8)) {
        key[0] = load8(w) & low_bytes[len];
        key[1] = key[2] = key[3] = 0;
    } else if (len <= 16) {
        key[0] = load8(w);
        key[1] = load8(w + 8) & low_bytes[len - 8];
        key[2] = key[3] = 0;
    } else {
        key[0] = load8(w);
        key[1] = load8(w + 8);
        key[2] = load8(w + 16) & low_bytes[len < 24 ? len - 16 : 8];
        key[3] = len > 24 ? load8(w + 24) & low_bytes[len - 24] : 0;
    }
}

/* the set of a word: the top bits of a product of its bytes (Fibonacci hashing); for
 * words of up to 16 bytes (key[2] = key[3] = 0) the encoder's loop computes the same */
static inline uint64_t key_product(const uint64_t key[4])
{
    return (key[0] ^ key[1] * 0xC2B2AE3D27D4EB4Full ^ key[2] * 0x165667B19E3779F9ull ^
            key[3] * 0xD6E8FEB86659FD93ull) * 0x9E3779B97F4A7C15ull;
}

static inline size_t set_of(const uint64_t key[4], size_t len, size_t bits)
{
    (void)len;
    return (size_t)(key_product(key) >> (64 - bits));
}

/* the victim set of a word: the product's bits below its set's, so the words of one full
 * set part among the victim sets */
static inline EncSet *victim_of(const EncCache *c, const uint64_t key[4])
{
    return &c->victims[(key_product(key) << c->bits) >> (64 - c->victim_bits)];
}

static inline int same_key(const uint64_t *a, const uint64_t key[4], size_t len)
{
    if (bpe_ld_rlx_u64(&a[0]) != key[0])
        return 0;
    if (LIKELY(len <= 8))
        return 1;
    if (bpe_ld_rlx_u64(&a[1]) != key[1])
        return 0;
    if (len <= 16)
        return 1;
    return bpe_ld_rlx_u64(&a[2]) == key[2] && bpe_ld_rlx_u64(&a[3]) == key[3];
}

/* A hit writes the word's ids at out (room for ENC_IDS_MAX) and returns their number;
 * 0: a miss (or a set being written). */
BPE_FORCE_INLINE size_t cache_get(EncSet *st, const uint64_t key[4],
                                  size_t len, uint32_t *out)
{
    uint32_t s0 = bpe_ld_acq_u32(&st->seq);
    uint32_t meta = bpe_ld_rlx_u32(&st->meta);
    const uint64_t *ids;
    if ((meta & 0xFF) == len && same_key(st->key0, key, len)) {
        ids = st->ids0;
    } else if ((meta >> 16 & 0xFF) == len && same_key(st->key1, key, len)) {
        ids = st->ids1;
        meta >>= 16;
    } else {
        return 0;
    }
    uint64_t a = bpe_ld_rlx_u64(&ids[0]), b = bpe_ld_rlx_u64(&ids[1]), d = bpe_ld_rlx_u64(&ids[2]);
    bpe_fence_acq();
    if (UNLIKELY((bpe_ld_rlx_u32(&st->seq) != s0) | (s0 & 1)))
        return 0;
    memcpy(out, &a, 8);
    memcpy(out + 2, &b, 8);
    memcpy(out + 4, &d, 8);
    return meta >> 8 & 0xFF;
}

static inline uint64_t two_ids(const int32_t *ids, size_t n, size_t i)
{
    uint64_t lo = i < n ? (uint32_t)ids[i] : 0, hi = i + 1 < n ? (uint32_t)ids[i + 1] : 0;
    return lo | hi << 32;
}

/* Store a word (its key, its ids two to a word, lm: length | ids << 8) in its set;
 * nothing when another thread is writing the set. `keep`: a word in way 0 stays and the
 * new word takes way 1; otherwise way 0 moves to way 1 and the new word takes way 0. The
 * word pushed out of way 1 is copied to out_key, out_ids and *out_lm (0: none) when
 * out_lm is not NULL. */
static void set_put(EncSet *st, const uint64_t key[4], uint32_t lm, const uint64_t ids[3],
                    int keep, uint64_t out_key[4], uint64_t out_ids[3], uint32_t *out_lm)
{
    uint32_t s0 = bpe_ld_rlx_u32(&st->seq);
    if ((s0 & 1) || !bpe_cas_acq_u32(&st->seq, s0, s0 + 1))
        return;
    bpe_fence_rel();
    uint32_t meta = bpe_ld_rlx_u32(&st->meta);
    if (out_lm && (*out_lm = meta >> 16) != 0) {
        for (int j = 0; j < 4; j++)
            out_key[j] = bpe_ld_rlx_u64(&st->key1[j]);
        for (int j = 0; j < 3; j++)
            out_ids[j] = bpe_ld_rlx_u64(&st->ids1[j]);
    }
    if (keep && (meta & 0xFFFF)) {
        for (int j = 0; j < 4; j++)
            bpe_st_rlx_u64(&st->key1[j], key[j]);
        for (size_t j = 0; j < 3; j++)
            bpe_st_rlx_u64(&st->ids1[j], ids[j]);
        bpe_st_rlx_u32(&st->meta, (meta & 0xFFFF) | lm << 16);
    } else {
        for (int j = 0; j < 4; j++)
            bpe_st_rlx_u64(&st->key1[j], bpe_ld_rlx_u64(&st->key0[j]));
        for (int j = 0; j < 3; j++)
            bpe_st_rlx_u64(&st->ids1[j], bpe_ld_rlx_u64(&st->ids0[j]));
        for (int j = 0; j < 4; j++)
            bpe_st_rlx_u64(&st->key0[j], key[j]);
        for (size_t j = 0; j < 3; j++)
            bpe_st_rlx_u64(&st->ids0[j], ids[j]);
        bpe_st_rlx_u32(&st->meta, (meta << 16) | lm);
    }
    bpe_st_rel_u32(&st->seq, s0 + 2);
}

/* Store a word (1 <= n <= ENC_IDS_MAX ids) in its set.
 * Which word a full set forgets: each set kept its newer word, so where three words meet
 * in a set, frequent ones pushed each other out over and over (5 MB of English, 45k
 * distinct words in 2**18 slots: 2,300 words merged again in every pass after the first,
 * ~12% of a warm batch). Now the word in way 0 stays and newcomers take turns in way 1:
 * a text's frequent words come early, so way 0 mostly holds one of them; one new word in
 * REFRESH_ONE_IN (by its hash, so a word does it every time) moves in front instead, so a
 * set whose first word went out of use (another kind of text) is taken back.
 * The word pushed out of way 1 goes to its victim set (a 2-way table 1/8 the size,
 * newest first), where word_slow finds it before merging it again. A warm batch (5 MB of
 * English in 255 texts, Llama 3.2, one core) went from 208 to 250 MB/s keeping way 0, to
 * 261 with the victims as well; one word in 8 moving in front cost 5%, one in 32 nothing
 * measurable (265). Per pass after the first: words merged again 2,300 -> 5, words taken
 * past the inline lookup 2,900 -> 5,600 (the victim sets' hits). */
#define REFRESH_ONE_IN 32

static void cache_put(const EncCache *c, EncSet *st, const uint64_t key[4], size_t len,
                      const int32_t *ids, size_t n)
{
    uint64_t packed[3] = {two_ids(ids, n, 0), two_ids(ids, n, 2), two_ids(ids, n, 4)};
    uint64_t out_key[4], out_ids[3];
    uint32_t out_lm = 0;
    int keep = (key_product(key) >> 20) % REFRESH_ONE_IN != 0;
    set_put(st, key, (uint32_t)len | (uint32_t)n << 8, packed, keep, out_key, out_ids, &out_lm);
    if (out_lm)
        set_put(victim_of(c, out_key), out_key, out_lm, out_ids, 0, NULL, NULL, NULL);
}

int enc_cache_holds(const EncCache *c, const unsigned char *w, size_t len)
{
    uint64_t key[4];
    uint32_t out[ENC_IDS_MAX + 2];
    if (!c->sets || !len || len > ENC_KEY_MAX)
        return 0;
    load_key(w, len, 0, key); /* (readable 0: copied, nothing read past w + len) */
    return cache_get(&c->sets[set_of(key, len, c->bits)], key, len, out) != 0 ||
           cache_get(victim_of(c, key), key, len, out) != 0;
}

/* ---------------------------------------------------------------- scratch */

void enc_scratch_free(EncScratch *sc)
{
    ms_free(&sc->x);
    wc_free(&sc->longs);
    wc_admit_free(&sc->admit);
    free(sc->ids);
    free(sc->buf);
    free(sc->marks);
    memset(sc, 0, sizeof(*sc));
}

void enc_scratch_trim(EncScratch *sc, size_t keep)
{
    if (sc->x.cap * 7 * sizeof(int32_t) > keep)
        ms_trim(&sc->x);
    if (sc->cap * sizeof(uint32_t) > keep) {
        free(sc->ids);
        sc->ids = NULL;
        sc->cap = 0;
    }
    if (sc->buf_cap > keep) {
        free(sc->buf);
        sc->buf = NULL;
        sc->buf_cap = 0;
    }
    if (sc->cap_marks * 2 * sizeof(uint32_t) > keep) {
        free(sc->marks);
        sc->marks = NULL;
        sc->cap_marks = 0;
    }
    sc->n_marks = 0;
}

static inline int room(EncScratch *sc, size_t more)
{
    if (sc->n + more <= sc->cap)
        return 0;
    if (bpe_grow((void **)&sc->ids, &sc->cap, sc->n + more, sizeof(uint32_t), 4096) < 0)
        return -1;
    return 0;
}

/* A special token just appended (sc->ids[sc->n - 1], `len` bytes), marked when asked. */
static int mark_special(EncScratch *sc, size_t len)
{
    if (!sc->mark)
        return 0;
    if (sc->n_marks + 1 > sc->cap_marks &&
        bpe_grow((void **)&sc->marks, &sc->cap_marks, sc->n_marks + 1, 2 * sizeof(uint32_t),
                 64) < 0)
        return -1;
    sc->marks[2 * sc->n_marks] = (uint32_t)(sc->n - 1);
    sc->marks[2 * sc->n_marks + 1] = (uint32_t)len;
    sc->n_marks++;
    return 0;
}

#ifndef ENC_AHEAD
/* words scanned ahead of their lookup (a power of two): 8 ran C source 8-14% faster
 * than 4 (in-process A/B, min of 3), 16 no faster there; on a later machine (AMD Zen 5,
 * a set's first load now most of a warm batch's time) 16 ran English 4-5% faster on a
 * fresh tokenizer and a warm batch 2-3%, C and Chinese level (alternating processes) */
#define ENC_AHEAD 16
#endif

/* The per-thread table of long words (and of words of more than ENC_IDS_MAX ids) holds
 * at most this many: room for every such word of a long Chinese text (8.9 MB of novels:
 * ~270,000), so that a second pass over it merges none of them again. Its slot is
 * prefetched as the shared sets' are (encode_piece_k), and a hit reads one entry. */
#define LONG_WORDS 524288

/* ---------------------------------------------------------------- encoding */

/* A long word's ids into the per-thread table (0; -1 out of memory; without room for the
 * table the word is just not remembered). */
static int long_put(EncScratch *sc, const unsigned char *w, size_t len, WcPlace *at,
                    const int32_t *ids, size_t k, int32_t limit)
{
    size_t none;
    if (!sc->longs.slots) {
        if (wc_init(&sc->longs, LONG_WORDS) < 0)
            return 0; /* not remembered */
        wc_find_hashed(&sc->longs, w, len, at, &none); /* (its slot in the new table) */
    }
    sc->longs.limit = limit;
    return wc_put_at(&sc->longs, w, len, at, ids, k) < 0 ? -1 : 0;
}

/* A word the shared cache does not hold: from the per-thread table of long words, or
 * merged; written out, stored (h: its hash, or 0 when not taken yet). */
static int word_miss(const MergeTable *m, const EncCache *c, EncSet *st, EncScratch *sc,
                     const unsigned char *w, size_t len, const uint64_t key[4], uint64_t h,
                     int32_t limit, size_t words_left)
{
    const int32_t *ids;
    size_t k;
    WcPlace at = {h ? h : bpe_hash_bytes(w, len), 0};
    if (sc->longs.slots && (ids = wc_find_hashed(&sc->longs, w, len, &at, &k)) != NULL) {
        wc_admit_found(&sc->admit, 1);
        if (room(sc, k + ENC_IDS_MAX * words_left + 8) < 0)
            return -1;
        memcpy(sc->ids + sc->n, ids, k * sizeof(uint32_t));
        sc->n += k;
        return 0;
    }
    sc->x.kept = 1;
    k = mt_encode_bytes(m, &sc->x, w, len, limit, 0);
    if (k == (size_t)-1 || room(sc, k + ENC_IDS_MAX * words_left + 8) < 0)
        return -1;
    memcpy(sc->ids + sc->n, sc->x.sym, k * sizeof(uint32_t));
    sc->n += k;
    if (!wc_admit_put(&sc->admit, at.hash))
        return 0;
    if (len <= ENC_KEY_MAX && k <= ENC_IDS_MAX) {
        if (st)
            cache_put(c, st, key, len, sc->x.sym, k);
        return 0;
    }
    return long_put(sc, w, len, &at, sc->x.sym, k, limit);
}

/* A word of up to 32 bytes, or longer, through the shared cache (when c is not NULL: its
 * set, then its victim set), the per-thread table of long words or merging: its ids
 * appended to sc->ids. */
static BPE_NOINLINE int word_slow(const MergeTable *m, const EncCache *c,
                                  EncScratch *sc, const unsigned char *w,
                                  size_t len, uint64_t h, size_t readable, int32_t limit,
                                  size_t words_left)
{
    uint64_t key[4] = {0, 0, 0, 0};
    EncSet *st = NULL;
    if (room(sc, ENC_IDS_MAX + 8) < 0)
        return -1;
    if (len <= ENC_KEY_MAX) {
        load_key(w, len, readable, key);
        if (c) {
            st = &c->sets[set_of(key, len, c->bits)];
            size_t got = cache_get(st, key, len, sc->ids + sc->n);
            /* a set with a free way never pushed a word out: then its victim set (read
             * at random, a miss in memory for each new word of a fresh cache) cannot
             * hold this one */
            uint32_t meta = bpe_ld_rlx_u32(&st->meta);
            if (!got && (meta & 0xFF) && (meta >> 16 & 0xFF))
                got = cache_get(victim_of(c, key), key, len, sc->ids + sc->n);
            if (got) {
                sc->n += got;
                wc_admit_found(&sc->admit, 1);
                return 0;
            }
        }
    }
    return word_miss(m, c, st, sc, w, len, key, h, limit, words_left);
}

/* The preset's one-load words (scan_fast.h), or its 64-byte windows (scan_mask.h: the
 * kinds from FAST_CL100K_MASK on). */
enum { FAST_NONE, FAST_GPT2, FAST_CL100K, FAST_QWEN2, FAST_O200K, FAST_CL100K_MASK,
       FAST_QWEN2_MASK, FAST_O200K_MASK };

static int pretok_mode = ENC_PRETOK_MASK;

int enc_pretok_set(int mode)
{
    if (mode != ENC_PRETOK_MASK && mode != ENC_PRETOK_WORD)
        return -1;
    pretok_mode = mode;
    return 0;
}

int enc_pretok_get(void) { return pretok_mode; }

static const char *const pretok_names[] = {"mask", "word"}; /* by ENC_PRETOK_* */

int enc_pretok_by_name(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(name, pretok_names[i]) == 0)
            return i;
    return -1;
}

const char *enc_pretok_name(int mode) { return pretok_names[mode]; }

int enc_pretok_from_env(const char **value)
{
    const char *v = *value = getenv("BPE_GUI_PRETOK");
    return !v || !*v ? 0 : enc_pretok_set(enc_pretok_by_name(v));
}

/* The one place that picks a preset's pre-tokenizer. */
static int fast_kind(int preset)
{
    /* ASCII is classed alike in every Unicode version: the kind alone decides */
    int mask = pretok_mode == ENC_PRETOK_MASK;
    switch (BPE_SCAN_KIND(preset)) {
    case BPE_SCAN_GPT2: return FAST_GPT2;
    case BPE_SCAN_CL100K: case BPE_SCAN_LLAMA3: return mask ? FAST_CL100K_MASK : FAST_CL100K;
    case BPE_SCAN_QWEN2: return mask ? FAST_QWEN2_MASK : FAST_QWEN2;
    case BPE_SCAN_O200K: return mask ? FAST_O200K_MASK : FAST_O200K;
    default: return FAST_NONE;
    }
}

/* The cl100k family's and o200k's words from 64-byte windows (scan_mask.h): the starts left in the
 * window taken at `base` (bit i: base + i). */
typedef struct {
    uint64_t bits;
    const unsigned char *base;
} MaskCursor;

/* The length of the word at w (a word start: the window's next one, or where the last
 * word the window did not decide ended), or 0 where a new window at w decides none; a
 * window is taken only where 66 bytes of the piece follow (w <= last). */
BPE_FORCE_INLINE size_t mask_word(MaskCursor *mc, const unsigned char *w,
                                  const unsigned char *last, int kind)
{
    if (!mc->bits) {
        if (w > last)
            return 0;
        mc->bits = mask_starts(w, kind != FAST_QWEN2_MASK, kind == FAST_O200K_MASK) & ~1ull;
        mc->base = w;
        if (!mc->bits)
            return 0;
    }
    size_t len = (size_t)(mc->base + bpe_ctz64(mc->bits) - w);
    mc->bits &= mc->bits - 1;
    return len;
}

BPE_FORCE_INLINE size_t fast_word(int kind, uint64_t v)
{
    switch (kind) {
    case FAST_GPT2: return fast_word_gpt2(v);
    case FAST_CL100K: case FAST_CL100K_MASK: return fast_word_cl100k(v, 1);
    case FAST_QWEN2: case FAST_QWEN2_MASK: return fast_word_cl100k(v, 0);
    case FAST_O200K: case FAST_O200K_MASK: return fast_word_o200k(v);
    default: return 0;
    }
}

int64_t enc_fast_word(int preset, const unsigned char *p, size_t n)
{
    int kind = fast_kind(preset);
    int64_t r = (int64_t)fast_word(kind, load8(p));
    if (r == FAST_MORE && n >= 16) {
        int e = fast_more(load8(p + 8), kind == FAST_O200K || kind == FAST_O200K_MASK);
        r = e < 0 ? -1 : 8 + e;
    }
    return r;
}

size_t enc_pretok_words(int preset, const unsigned char *s, size_t n, size_t *ends, size_t cap)
{
    int kind = fast_kind(preset);
    MaskCursor mc = {0, s};
    const unsigned char *last = n >= 66 ? s + n - 66 : NULL;
    size_t pos = 0, k = 0;
    while (pos < n && k < cap) {
        size_t len = 0;
        if (kind >= FAST_CL100K_MASK)
            len = mask_word(&mc, s + pos, last, kind);
        if (!len)
            len = bpe_scan_word(preset, s, pos, n) - pos;
        ends[k++] = pos += len;
    }
    return k;
}

/* s[pos..end): text without special tokens, scanned as a whole text. One pass: where
 * 8 (or 16) bytes settle the word (scan_fast.h: most words), the same bytes are its
 * cache key; otherwise the scanner cuts one word. Words of up to 16 bytes are looked up
 * inline; the rest call word_slow. `kind`: the preset's one-load words (fast_kind). */
BPE_FORCE_INLINE int encode_piece_k(
    int kind, const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
    const unsigned char *s, size_t pos, size_t end, size_t readable, int32_t limit)
{
    const EncCache *cc = c && c->limit == limit ? c : NULL;
    EncSet *sets = cc ? cc->sets : NULL;
    size_t shift = cc ? 64 - cc->bits : 0;
    if (!sets)
        kind = FAST_NONE, readable = 0; /* no inline lookups */
    /* words starting at or before these can be read 16 bytes at a time: from the text,
     * from the piece */
    const unsigned char *fast_end = readable >= 16 ? s + readable - 16 : NULL;
    const unsigned char *key_end = readable >= 32 ? s + readable - 32 : NULL;
    const unsigned char *piece_end8 = end >= 8 ? s + end - 8 : NULL;
    const unsigned char *piece_end16 = end >= 16 ? s + end - 16 : NULL;
    if (sc->longs.slots && sc->longs.limit != limit)
        wc_reset(&sc->longs), sc->longs.limit = limit;
    if (room(sc, 4 * ENC_IDS_MAX) < 0)
        return -1;
    uint32_t *out = sc->ids + sc->n, *out_end = sc->ids + sc->cap - ENC_IDS_MAX;
    /* Software pipelining: words are scanned and their sets prefetched ENC_AHEAD words
     * before they are looked up. The set's first load stalled most of the loop's cycles
     * (perf: the sets are megabytes, read at random); the scans of the next words now run
     * under it. */
    struct {
        const unsigned char *w;
        size_t len;
        uint64_t k0, k1;
        EncSet *st; /* NULL: the word goes to word_slow */
        uint64_t h; /* the word's hash in the long words' table (0: not taken) */
    } ring[ENC_AHEAD];
    size_t head = 0, pending = 0;
    uint32_t hits = 0; /* found inline (for wc_admit_found) */
    int masked = kind >= FAST_CL100K_MASK;
    MaskCursor mc = {0, s};
    const unsigned char *mask_last = end >= 66 ? s + end - 66 : NULL;
    for (;;) {
        if (pos < end) {
            const unsigned char *w = s + pos;
            size_t len = 0;
            uint64_t v = 0, v1 = 0;
            int inl = 1;
            if (masked && (len = mask_word(&mc, w, mask_last, kind)) != 0) {
                if (len <= 16 && w <= fast_end) {
                    v = load8(w);
                    v1 = load8(w + 8);
                } else {
                    inl = 0;
                }
            } else if (kind != FAST_NONE && w <= piece_end8) {
                v = load8(w);
                len = fast_word(kind, v);
                if (len == FAST_MORE) {
                    len = 0;
                    if (w <= piece_end16) {
                        v1 = load8(w + 8);
                        int e = fast_more(v1, kind == FAST_O200K || kind == FAST_O200K_MASK);
                        if (e >= 0 && e < 8)
                            len = 8 + (size_t)e;
                    }
                }
            }
            if (!len) {
                len = bpe_scan_word(preset, s, pos, end) - pos;
                if (len > 16 || w > fast_end) {
                    inl = 0;
                    /* a word of 17-32 bytes (Chinese clauses, mostly) is looked up in
                     * word_slow, but its set is prefetched here as the short words' are
                     * (its first load stalled: word_slow was 14% of Llama 3.2's Chinese) */
                    if (len > 16 && len <= ENC_KEY_MAX && w <= key_end && sets) {
                        uint64_t k[4] = {load8(w), load8(w + 8),
                                         load8(w + 16) & low_bytes[len < 24 ? len - 16 : 8],
                                         len > 24 ? load8(w + 24) & low_bytes[len - 24] : 0};
                        BPE_PREFETCH(&sets[key_product(k) >> shift]);
                    }
                } else {
                    v = load8(w);
                    v1 = load8(w + 8);
                }
            }
            pos += len;
            size_t slot = (head + pending) & (ENC_AHEAD - 1);
            ring[slot].w = w;
            ring[slot].len = len;
            ring[slot].st = NULL;
            ring[slot].h = 0;
            if (!inl && sc->longs.slots) /* (its slot's first load stalled too) */
                wc_prefetch(&sc->longs, ring[slot].h = bpe_hash_bytes(w, len));
            if (inl) {
                uint64_t k0 = len >= 8 ? v : v & low_bytes[len];
                uint64_t k1 = len > 8 ? v1 & low_bytes[len - 8] : 0;
                ring[slot].k0 = k0;
                ring[slot].k1 = k1;
                EncSet *st = &sets[((k0 ^ k1 * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull) >> shift];
                BPE_PREFETCH(st);
                BPE_PREFETCH((const char *)st + 64); /* way 1: a set is two lines */
                ring[slot].st = st;
            }
            if (++pending < ENC_AHEAD)
                continue;
        } else if (!pending) {
            break;
        }
        /* the oldest pending word */
        const unsigned char *pw = ring[head].w;
        size_t plen = ring[head].len;
        EncSet *pst = ring[head].st;
        uint64_t pk0 = ring[head].k0, pk1 = ring[head].k1, ph = ring[head].h;
        head = (head + 1) & (ENC_AHEAD - 1);
        pending--;
        if (LIKELY(pst != NULL) && LIKELY(out <= out_end)) {
            uint32_t s0 = bpe_ld_acq_u32(&pst->seq), meta = bpe_ld_rlx_u32(&pst->meta);
            const uint64_t *ids = NULL;
            if ((meta & 0xFF) == plen && bpe_ld_rlx_u64(&pst->key0[0]) == pk0 &&
                bpe_ld_rlx_u64(&pst->key0[1]) == pk1) {
                ids = pst->ids0;
            } else if ((meta >> 16 & 0xFF) == plen && bpe_ld_rlx_u64(&pst->key1[0]) == pk0 &&
                       bpe_ld_rlx_u64(&pst->key1[1]) == pk1) {
                ids = pst->ids1;
                meta >>= 16;
            }
            if (LIKELY(ids != NULL)) {
                uint64_t a = bpe_ld_rlx_u64(&ids[0]), b = bpe_ld_rlx_u64(&ids[1]), d = bpe_ld_rlx_u64(&ids[2]);
                bpe_fence_acq();
                if (LIKELY((bpe_ld_rlx_u32(&pst->seq) == s0) & !(s0 & 1))) {
                    memcpy(out, &a, 8);
                    memcpy(out + 2, &b, 8);
                    memcpy(out + 4, &d, 8);
                    out += meta >> 8 & 0xFF;
                    hits++;
                    continue;
                }
            }
        }
        sc->n = (size_t)(out - sc->ids);
        wc_admit_found(&sc->admit, hits);
        hits = 0;
        if (word_slow(m, cc, sc, pw, plen, ph,
                                 readable > (size_t)(pw - s) ? readable - (size_t)(pw - s) : 0,
                                 limit, 4) < 0)
            return -1;
        out = sc->ids + sc->n;
        out_end = sc->ids + sc->cap - ENC_IDS_MAX;
    }
    sc->n = (size_t)(out - sc->ids);
    wc_admit_found(&sc->admit, hits);
    return 0;
}

/* One copy of the loop for every preset (`kind` read where a word is cut): a copy per
 * kind of one-load words saved less than the 10% a copy must earn (bench/README.md). */
static int encode_piece(const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
                        const unsigned char *s, size_t pos, size_t end, size_t readable,
                        int32_t limit)
{
    return encode_piece_k(fast_kind(preset), m, preset, c, sc, s, pos, end, readable, limit);
}

/* s[0..n) encoded as enc_encode does, but only up to about `stop` (< n): the pieces
 * between special tokens before it, and of the piece that holds it, the words before its
 * last safe cut at or before stop (scan.h bpe_scan_safe_cut: whatever follows, the words
 * before the cut are those of the whole text). Every special token that starts before
 * stop must end inside s[0..n). Returns how many bytes were encoded (the rest starts a
 * word or a special token; 0 when the piece has no cut), or (size_t)-1 out of memory. */
#define CUT_WINDOW 4096 /* bytes before stop searched for a safe cut */

static size_t encode_upto(const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
                          const EncSpecials *sp, const unsigned char *s, size_t n,
                          size_t readable, int32_t limit, size_t stop)
{
    size_t pos = 0;
    while (pos < stop) {
        ptrdiff_t which = -1;
        size_t len = 0, q = next_special(sp, s, pos, n, &which, &len);
        if (q >= stop) { /* the piece [pos, q) holds stop */
            size_t lo = stop - pos > CUT_WINDOW ? stop - pos - CUT_WINDOW : 0;
            size_t p = bpe_scan_safe_cut(preset, s + pos, lo, stop - pos, q - pos);
            if (p == BPE_SCAN_NONE)
                return pos;
            if (encode_piece(m, preset, c, sc, s, pos, pos + p, readable, limit) < 0)
                return (size_t)-1;
            return pos + p;
        }
        if (q > pos && encode_piece(m, preset, c, sc, s, pos, q, readable, limit) < 0)
            return (size_t)-1;
        if (room(sc, 1) < 0)
            return (size_t)-1;
        sc->ids[sc->n++] = (uint32_t)sp->id[which];
        if (mark_special(sc, len) < 0)
            return (size_t)-1;
        pos = q + len;
    }
    return pos;
}

int enc_encode(const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
               const EncSpecials *sp, const unsigned char *s, size_t n, size_t readable,
               int32_t limit)
{
    size_t pos = 0;
    /* a long text's ids in one block made at once (a token holds 1.5-4.5 bytes of text:
     * n / 2 is room for nearly all; only the pages written are used): grown by doubling
     * from 16 KB, each copy faulted its pages in anew (perf: most of the page faults left) */
    if (n >= ((size_t)1 << 20) && room(sc, n / 2) < 0)
        return -1;
    while (pos < n) {
        ptrdiff_t which = -1;
        size_t len = 0, q = next_special(sp, s, pos, n, &which, &len);
        if (q > pos && encode_piece(m, preset, c, sc, s, pos, q, readable, limit) < 0)
            return -1;
        if (q == n)
            break;
        if (room(sc, 1) < 0)
            return -1;
        sc->ids[sc->n++] = (uint32_t)sp->id[which];
        if (mark_special(sc, len) < 0)
            return -1;
        pos = q + len;
    }
    return 0;
}

/* The UTF-8 of sc->buf: room for `need` bytes, the first `keep` kept. 0 or -1. */
static int buf_room(EncScratch *sc, size_t need, size_t keep)
{
    if (need <= sc->buf_cap)
        return 0;
    size_t cap = sc->buf_cap ? sc->buf_cap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *b = malloc(cap);
    if (!b)
        return -1;
    if (keep)
        memcpy(b, sc->buf, keep);
    free(sc->buf);
    sc->buf = b;
    sc->buf_cap = cap;
    return 0;
}

int enc_encode_ucs(const MergeTable *m, int preset, EncCache *c, EncScratch *sc,
                   const EncSpecials *sp, int kind, const void *data, size_t chars,
                   int32_t limit)
{
    const unsigned char *p = data;
    if (chars <= 2 * ENC_CHUNK) { /* the whole text at once */
        if (buf_room(sc, bpe_utf8_room(kind, chars) + ENC_KEY_MAX, 0) < 0)
            return -1;
        size_t n = bpe_utf8_from_ucs(kind, data, chars, sc->buf);
        if (n == (size_t)-1)
            return -2;
        memset(sc->buf + n, 0, ENC_KEY_MAX);
        return enc_encode(m, preset, c, sc, sp, sc->buf, n, n + ENC_KEY_MAX, limit);
    }
    /* a long text a chunk of characters at a time into one small buffer, kept in the
     * core's cache, instead of a copy of the whole (20 MB of UTF-8 for 20 MB of English,
     * written once and read once, each page of it fresh memory): each chunk is encoded
     * up to a safe cut, the bytes after it carried to the next */
    size_t keep = (sp ? sp->max_len : 0) + ENC_KEY_MAX; /* specials stay whole */
    size_t carry = 0, done = 0;
    if (!sc->flush && room(sc, bpe_utf8_room(kind, chars) / 2) < 0) /* as enc_encode */
        return -1;
    for (;;) {
        size_t take = chars - done < ENC_CHUNK ? chars - done : ENC_CHUNK;
        if (buf_room(sc, carry + bpe_utf8_room(kind, take) + ENC_KEY_MAX, carry) < 0)
            return -1;
        size_t w = bpe_utf8_from_ucs(kind, p + done * (size_t)kind, take, sc->buf + carry);
        if (w == (size_t)-1)
            return -2;
        done += take;
        size_t total = carry + w;
        memset(sc->buf + total, 0, ENC_KEY_MAX);
        if (done == chars)
            return enc_encode(m, preset, c, sc, sp, sc->buf, total, total + ENC_KEY_MAX, limit);
        size_t used = total > keep ? encode_upto(m, preset, c, sc, sp, sc->buf, total,
                                                 total + ENC_KEY_MAX, limit, total - keep)
                                   : 0;
        if (used == (size_t)-1)
            return -1;
        carry = total - used;
        if (used) /* (none: a word longer than the chunks so far, kept where it is) */
            memmove(sc->buf, sc->buf + used, carry);
        if (sc->flush && sc->n >= ENC_FLUSH_IDS) {
            if (sc->flush(sc->flush_ctx, sc->ids, sc->n) < 0)
                return -3;
            sc->n = 0;
        }
    }
}

/* ---- offsets ---- */

/* The UTF-8 length of character i of a str of `kind` bytes a character. */
static inline int char_bytes(int kind, const void *data, size_t i)
{
    uint32_t c = kind == 1 ? ((const uint8_t *)data)[i]
                 : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

int enc_char_spans(int kind, const void *data, size_t chars, const uint32_t *ids, size_t n,
                   const int32_t *len_of, size_t n_len, const uint32_t *marks,
                   size_t n_marks, int64_t *start, int64_t *end)
{
    size_t ci = 0;         /* the character holding the next byte */
    int used = 0;          /* bytes of it in tokens before */
    int clen = chars ? char_bytes(kind, data, 0) : 0;
    size_t mk = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t len;
        if (mk < n_marks && marks[2 * mk] == i) {
            len = marks[2 * mk + 1];
            mk++;
        } else {
            uint32_t id = ids[i];
            if (id >= n_len || len_of[id] <= 0)
                return -1;
            len = len_of[id];
        }
        start[i] = (int64_t)ci;
        if (used == 0 && clen == 1) { /* a run of ASCII characters: one byte each */
            while (len > 0 && ci < chars && char_bytes(kind, data, ci) == 1)
                ci++, len--;
            clen = ci < chars ? char_bytes(kind, data, ci) : 0;
        }
        while (len > 0) {
            if (ci >= chars)
                return -1; /* more bytes than the text */
            int64_t r = clen - used;
            if (len < r) {
                used += (int)len;
                break;
            }
            len -= r;
            ci++;
            used = 0;
            clen = ci < chars ? char_bytes(kind, data, ci) : 0;
        }
        end[i] = (int64_t)(used ? ci + 1 : ci);
    }
    return mk == n_marks && ci == chars && used == 0 ? 0 : -1;
}
