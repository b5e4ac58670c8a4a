/*
 * The incremental BPE trainer in plain C (no Python here: python/coremodule.c is the
 * `_core.Core` type around it, and tests/c/core_driver.c runs it without Python): the
 * data structures, the functions the files of core/ share, and the API at the end.
 *
 * Files:
 *   core.h         the data structures and how they fit (read it first); the API
 *   core_tables.c  token bytes, the pair table, the count histogram
 *   core_lists.c   sorting, pairs' position lists
 *   core_heap.c    the priority heap and the batched count updates of a step
 *   core_step.c    one merge step and its exact undo; run(n)
 *   core_build.c   construction from integer arrays, and freeing
 *   core_query.c   reading: best/top/tied pairs, touched words, a word, the segmentation
 *   core_check.c   a full consistency check (for tests) and the structures' sizes
 *   core_cols.c    columns (parity training): a count per column on every word and pair,
 *                  construction from count tables (their heaps: core_heap.c)
 *   core_cols_query.c  the columns read (best, top, tied, touched rows) and checked
 *

 * Data layout
 * -----------
 * Every symbol of every word is a "cell" of one int32 array, sym: the words one after
 * the other, each followed by a separator cell, with one more separator before the
 * first word (word w's cells start at starts[w] + w + 1). A token of the words covers
 * span[t] cells (1 for every initial token, span[a] + span[b] for a merge of (a, b)):
 *   - its first cell holds its id t (>= 0): only a token's first cell holds an id >= 0;
 *   - its last cell, when span[t] > 1, holds ~t (< 0), so the token before a cell x
 *     starts at x - span[t] for the t read at x - 1;
 *   - its other cells hold stale negative values that nothing reads;
 *   - the separator after word w holds SEP_BASE - w (<= SEP_BASE, below every ~t).
 * So the token after the one at x starts at x + span[sym[x]] (a separator there ends
 * the word), and the word of a cell is the separator's on its right (a binary search of
 * the word starts when that is far). A merge of the occurrence (L, R) writes the new
 * id into L, -1 into R and ~new into the last cell of b's token; the undo of it needs
 * only R, with a and b (L = R - span[a]), so the undo log of a step is the list of its
 * right cells, in the order they were merged. A merge may also write a token made
 * before (bpe_core_merge_into: its cells are a's then b's), whose undo keeps it. A core made without undo
 * (bpe_core_keep_undo(c, 0)) keeps only the last step's list (bpe_core_col_touched reads it).
 *
 * Every pair (a, b) that occurs has a Pair record (found through a dense table for
 * small ids or an open-addressing hash) holding its frequency-weighted count, the
 * number of live occurrences, and a list of left-cell positions.  The list may hold
 * stale or duplicate entries; every live occurrence is always in it.  Entries are
 * validated on use; lists are compacted when they grow past twice the live count.
 * A pair whose count falls to 0 leaves the table at the end of the step, and its record
 * is chained for the next new pair to take (records stay near the live pairs).
 *
 * Priority: an indexed binary heap holding every pair with count > 0, ordered by count
 * descending, then by the tie rule.  LOWEST_HF compares ids through hf_rank (the 256
 * single bytes renumbered as tokenizers numbers its byte-level alphabet), GREATEST_HF
 * the tokens' bytes through it (their GPT-2 spellings).  For FIRST_SEEN the key is the pair's first live
 * occurrence (smallest left cell); it is kept as a lower bound that is made exact
 * lazily (a "dirty" pair at the top of the heap is recomputed and sifted down).
 *
 * A step or undo touches only the occurrences of the merged pair and their neighbours;
 * the counts of all pairs touched are updated in a batch at the end (heap, histogram).
 *
 * Columns (parity training; n_cols 0: none). Every word carries a count per column (one
 * language's training text, all of them together, one language's dev text), kept
 * sparse: word w's entries wc[wc_start[w] .. wc_start[w + 1]), by column, only those
 * whose count is > 0; freq[w] is their sum over the columns that are texts (not the
 * sum column), so a pair's count is > 0 exactly while it occurs, as in a plain core.
 * The first n_heaped columns have a count per pair and a heap of their own (cheap[col],
 * ordered as the main heap: count, then the tie rule). A pair's count and heap place in
 * a column (a PCol) are kept sparse, as most pairs occur in one language only: pcol[p]
 * holds them for the one column the pair is counted in, or points to a row of n_heaped
 * PCols in prows once a second column counts it (rows are reused after the pair is
 * gone); a column with no PCol for the pair counts 0 and has it in no heap.
 * A step adds its changes per touched pair (cdelta) and the batch's end puts them into
 * the counts and notes them for each column's heap, which takes them in when that
 * column is next read (a language whose turn does not come costs no heap work); the
 * main heap and the histogram are not kept. The other columns only count their
 * symbols (col_syms), as do the heaped ones.
 */
#ifndef BPE_CORE_H
#define BPE_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/portable.h"

#define TIE_GREATEST 0
#define TIE_FIRST_SEEN 1
#define TIE_LOWEST_IDS 2
/* Hugging Face's BpeTrainer: the lowest (a, b) in tokenizers' numbering, where the
 * alphabet is sorted by code point -- in byte mode the code point GPT-2's byte-to-
 * character map gives each byte, so printable bytes come before the others -- and new
 * tokens are numbered in the order they are made (as here). */
#define TIE_LOWEST_HF 3
/* Hugging Face's ParityBpeTrainer: the greatest (a, b) comparing the tokens' spellings in
 * GPT-2's byte-to-character map (as strings, first token, then second): in byte mode the
 * bytes compare through hf_rank, which orders them as the characters they map to. */
#define TIE_GREATEST_HF 4

#define INLINE_CAP 2
#define DENSE_MAX 1024
#define HIST_SMALL 65536
#define HB_EMPTY ((int64_t)-1)
#define H_EMPTY UINT64_MAX
#define POS_CAP_MAX ((int64_t)1 << 30)
/* Token ids and word numbers stay below MAX_IDS: the cells' encoding (core.h, "Data
 * layout") keeps ~t and the separators SEP_BASE - w apart. */
#define MAX_IDS (1 << 30)
#define SEP_BASE (-(1 << 30) - 1)

/* ------------------------------------------------------------------------------ */
/* types                                                                          */
/* ------------------------------------------------------------------------------ */

typedef struct {
    int64_t count;             /* frequency-weighted number of occurrences */
    union {
        int32_t *ptr;          /* heap-allocated positions when cap > INLINE_CAP */
        int32_t inl[INLINE_CAP];
    } pos;
    int32_t a, b;
    int32_t len;               /* positions list: entries, */
    unsigned int cap : 30;     /* ... room (below POS_CAP_MAX) */
    unsigned int in_batch : 1; /* touched in the batch under way (Touch holds it) */
    unsigned int dirty : 1;    /* FIRST_SEEN: its `first` may be below the true first */
    int32_t nocc;              /* live occurrences (unweighted) */
    int32_t hpos;              /* index in the heap, -1 if not in it */
} Pair;                        /* (40 bytes: a record per live pair) */

typedef struct {
    int64_t old_count;
    int32_t p;
} Touch;

typedef struct {
    int64_t count;             /* key snapshot */
    int32_t p;                 /* pair index */
    int32_t first;             /* key snapshot (FIRST_SEEN) */
} HEnt;

/* a word's count in one column, and the word's row in that column's count table (-1
 * for the sum column, made here) */
typedef struct {
    int32_t col, row;
    int64_t cnt;
} ColEnt;

/* pair p's count and heap place (-1: none) in a heaped column; in pcol[p], `col` is
 * which column (-1: none yet), or -2 - r when the pair's PCols are row r of prows
 * (entry col of the row: column col) */
typedef struct {
    int64_t cnt;
    int32_t hpos;
    int32_t col;
} PCol;

/* a heaped column's heap: entries as the main heap's (a snapshot of each count), places
 * in the pairs' PCols. Kept lazily: a batch only notes the pairs whose count in the column
 * changed (pend; a pair may be there twice), and the heap takes them in when the column
 * is next read (col_sync); past `stale` notes it is built again instead. */
typedef struct {
    HEnt *h;
    int32_t n;
    size_t cap;
    int32_t *pend;
    size_t n_pend, pend_cap;
    int stale;
} ColHeap;

typedef struct {
    int32_t a, b, id;
    int32_t n_tied;            /* pairs that shared the top count when it was chosen */
    int64_t count;
    int64_t rstart;            /* start of this step's merged right cells in rlog */
    int64_t merged;            /* occurrences replaced, frequency-weighted */
    int32_t gone;              /* bit 0: a no longer occurs alone after it; bit 1: b */
    int32_t reused;            /* 1: id is a token made before (bpe_core_merge_into): an
                                * undo keeps it */
} StepRec;

typedef struct BpeCore {
    int tie;
    int hf_bytes;              /* LOWEST_HF or GREATEST_HF, and ids 0..255 are the single
                                * bytes: hf_rank */
    int32_t hf_rank[256];      /* byte id -> its rank in tokenizers' byte-level alphabet */
    int broken;                /* a failed allocation in a step lost the state */

    int keep_undo;             /* 0: the undo log holds only the last step */

    /* cells and words */
    int32_t n_slots, n_words;  /* n_slots: the symbols the words were built from */
    int32_t n_cells;           /* n_slots + n_words + 1 (a separator after each word) */
    int32_t *sym;
    int64_t *starts, *freq;
    int64_t total_syms;        /* frequency-weighted number of live symbols */

    /* tokens */
    int32_t n_tokens, n_base, tok_cap;
    int64_t *tok_off;
    int32_t *tok_len;
    int32_t *span;             /* cells a token covers (clamped to INT32_MAX) */
    uint64_t *tok_pfx;         /* first 8 bytes, big endian, zero padded */
    int64_t *symcount;
    char *tok_buf;
    int64_t tok_buf_len;
    size_t tok_buf_cap;
    /* per-step neighbour caches, indexed by token id (-1 = unknown) */
    int32_t *cLo, *cLn, *cRo, *cRn, *usedL, *usedR;
    int32_t nusedL, nusedR;

    /* pairs */
    Pair *pairs;
    int32_t n_pairs, pairs_cap;
    HEnt *heap;                /* capacity pairs_cap */
    size_t pairs_mcap, heap_cap, first_cap;   /* the blocks' sizes (big_grow) */
    int32_t heap_n;
    int32_t dense_n;
    int32_t *dense;
    uint64_t *hent;            /* the hash: hash << 32 | pair index (core_tables.c) */
    int hbits;
    int64_t hcount;
    int32_t free_head, n_free; /* dead records, chained through pos.inl[0] */
    int32_t *first;            /* FIRST_SEEN only (else NULL), per record: a lower bound
                                * of the pair's first live occurrence */

    /* histogram count -> number of pairs with that count */
    int32_t *hist_small;
    int64_t *hb_keys, *hb_vals;
    int hb_bits;
    int64_t hb_n;

    /* batch of touched pairs */
    Touch *touched;
    int64_t n_touched;
    int64_t n_last_touched;    /* the last batch's, kept after it ends (bpe_core_changed) */
    size_t touched_cap;

    /* undo */
    StepRec *steps;
    int32_t n_steps, steps_cap;
    int32_t *rlog;
    int64_t rlog_n;
    size_t rlog_cap;

    int32_t *scratch;
    int64_t scratch_cap;
    int64_t freed_bytes;       /* position lists freed since the heap was last trimmed */

    /* columns (see "Columns" above; core_cols.c) */
    int32_t n_cols, n_heaped, n_train;   /* n_train: the columns tsym sums */
    int64_t *wc_start;
    ColEnt *wc;
    int64_t *col_syms;         /* per column: its count-weighted symbols now */
    int64_t *tsym;             /* per token: occurrences weighted by the n_train columns */
    PCol *pcol;                /* per pair record: its count and heap place in the one
                                * heaped column that counts it, or its row of prows */
    size_t pcol_cap;           /* records pcol has room for */
    PCol *prows;               /* rows of n_heaped PCols (pairs in several columns) */
    int32_t n_prows;           /* rows in use or free */
    size_t prows_cap;          /* PCols prows has room for */
    int32_t *free_rows;        /* rows of pairs gone, for the next to take */
    int32_t n_free_rows;
    size_t free_rows_cap;
    int64_t *cdelta;           /* per pair the batch touched (its Touch's index, held in
                                * Pair.hpos meanwhile) and heaped column: the change */
    size_t cdelta_cap;
    ColHeap *cheap;            /* n_heaped heaps */
} BpeCore;

#define ERR_NONE 0
#define ERR_NOMEM 1     /* nothing changed */
#define ERR_BROKEN 2    /* state lost */
#define ERR_NO_UNDO 3   /* undo asked of a core that keeps no undo log; nothing changed */

/* ---- small helpers (inline: they sit on the hot path of every step) ---- */

static inline int32_t *pos_data(const Pair *p)
{
    return p->cap > INLINE_CAP ? p->pos.ptr : (int32_t *)p->pos.inl;
}

static inline void pos_free(Pair *p)
{
    if (p->cap > INLINE_CAP)
        free(p->pos.ptr);
    p->pos.ptr = NULL;
    p->cap = INLINE_CAP;
    p->len = 0;
}

/* x is the first cell of an a followed by a b in its word */
static inline int occ_ok(const BpeCore *c, int32_t x, int32_t a, int32_t b)
{
    return c->sym[x] == a && c->sym[x + c->span[a]] == b;
}

/* the first cell of word w (its separator is at word_cell(c, w + 1) - 1) */
static inline int32_t word_cell(const BpeCore *c, int32_t w)
{
    return (int32_t)(c->starts[w] + w + 1);
}

/* The token before the one starting at cell x: its first cell (its id in *t), or -1
 * at the start of the word. */
static inline int32_t tok_before(const BpeCore *c, int32_t x, int32_t *t)
{
    int32_t v = c->sym[x - 1];
    if (v <= SEP_BASE)
        return -1;
    int32_t u = v >= 0 ? v : ~v;
    *t = u;
    return x - c->span[u];
}

/* The cell after the last of the token starting at x holds, for the next token, its id;
 * at the end of the word, the separator (< 0). */
static inline int32_t tok_after(const BpeCore *c, int32_t x)
{
    return x + c->span[c->sym[x]];
}

/* the word holding cell x, a token's first cell or a separator, and the cell of its
 * separator in *sep (core_query.c) */
int32_t word_at(const BpeCore *c, int32_t x, int32_t *sep);

/* a word (or a row of a column's table) and its count, as the touched lists sort them */
typedef struct {
    int64_t f;
    int32_t w;
} WordKey;

/* bpe_core_col_touched's end: of the nd keys in ws (freed here),
 * the ids of the `limit` with the highest counts, lower id first on equal counts, into
 * *out (malloc'd) and *n_out; returns nd, or -1 when out of memory (core_query.c). */
int64_t touched_ids(WordKey *ws, int64_t nd, int64_t limit, int32_t **out, int64_t *n_out);

static inline int tok_cmp(const BpeCore *c, int32_t x, int32_t y)
{
    if (x == y)
        return 0;
    uint64_t px = c->tok_pfx[x], py = c->tok_pfx[y];
    if (px != py)
        return px < py ? -1 : 1;
    int32_t lx = c->tok_len[x], ly = c->tok_len[y];
    int32_t m = lx < ly ? lx : ly;
    if (m > 8) {
        int r = memcmp(c->tok_buf + c->tok_off[x] + 8, c->tok_buf + c->tok_off[y] + 8,
                       (size_t)(m - 8));
        if (r)
            return r;
    }
    return (lx > ly) - (lx < ly);
}

/* tok_cmp with the bytes ranked through hf_rank (GREATEST_HF in byte mode): the order of
 * the tokens' GPT-2 spellings as strings. */
static inline int tok_cmp_hf(const BpeCore *c, int32_t x, int32_t y)
{
    if (x == y)
        return 0;
    const unsigned char *px = (const unsigned char *)c->tok_buf + c->tok_off[x];
    const unsigned char *py = (const unsigned char *)c->tok_buf + c->tok_off[y];
    int32_t lx = c->tok_len[x], ly = c->tok_len[y];
    int32_t m = lx < ly ? lx : ly;
    for (int32_t i = 0; i < m; i++)
        if (px[i] != py[i])
            return c->hf_rank[px[i]] < c->hf_rank[py[i]] ? -1 : 1;
    return (lx > ly) - (lx < ly);
}

static inline uint64_t pkey(int32_t a, int32_t b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

/* A token's id as LOWEST_HF compares it: a byte's rank in tokenizers' alphabet (all of
 * them below 256, like the bytes' own ids), any other token its own id. */
static inline int32_t hf_id(const BpeCore *c, int32_t t)
{
    return t < 256 ? c->hf_rank[t] : t;
}

/* Heap entries carry a snapshot of the key (count, FIRST_SEEN position): counts change
 * during a batch while the heap is only fixed at the end, one pair at a time, and every
 * fix must see a heap whose other keys are consistent. */
static inline int better(const BpeCore *c, const HEnt *x, const HEnt *y)
{
    if (x->count != y->count)
        return x->count > y->count;
    const Pair *p = &c->pairs[x->p], *q = &c->pairs[y->p];
    if (c->tie == TIE_GREATEST || c->tie == TIE_GREATEST_HF) {
        int hf = c->tie == TIE_GREATEST_HF && c->hf_bytes;
        int r = hf ? tok_cmp_hf(c, p->a, q->a) : tok_cmp(c, p->a, q->a);
        if (r)
            return r > 0;
        r = hf ? tok_cmp_hf(c, p->b, q->b) : tok_cmp(c, p->b, q->b);
        if (r)
            return r > 0;
        if (p->a != q->a)
            return p->a > q->a;
        return p->b > q->b;
    }
    if (c->tie == TIE_FIRST_SEEN && x->first != y->first)
        return x->first < y->first;
    if (c->tie == TIE_LOWEST_HF && c->hf_bytes) {
        int32_t ra = hf_id(c, p->a), qa = hf_id(c, q->a);
        if (ra != qa)
            return ra < qa;
        return hf_id(c, p->b) < hf_id(c, q->b);
    }
    if (p->a != q->a)
        return p->a < q->a;
    return p->b < q->b;
}

static inline void heap_setkey(BpeCore *c, HEnt *e, int32_t p)
{
    e->p = p;
    e->count = c->pairs[p].count;
    e->first = c->first ? c->first[p] : 0;
}

static inline void pair_add(BpeCore *c, int32_t pidx, int64_t df, int32_t dn)
{
    Pair *p = &c->pairs[pidx];
    if (!p->in_batch) {
        p->in_batch = 1;
        if (c->n_heaped) {   /* (a core with columns keeps no main heap: hpos is free) */
            p->hpos = (int32_t)c->n_touched;
            int64_t *d = c->cdelta + c->n_touched * c->n_heaped;
            for (int32_t h = 0; h < c->n_heaped; h++)   /* (a few: no memset call) */
                d[h] = 0;
        }
        Touch *t = &c->touched[c->n_touched++];
        t->p = pidx;
        t->old_count = p->count;
    }
    p->count += df;
    p->nocc += dn;
    if (dn < 0)
        p->dirty = 1;
}

/* core_lists.c (sorting, position lists): core_lists.h */

/* ---- core_tables.c: tokens, pair table, histogram ---- */
int ensure_tok_cap(BpeCore *c, int64_t need);
int ensure_tok_buf(BpeCore *c, int64_t extra);
void tok_append(BpeCore *c, const char *s, int64_t len);      /* room reserved */
void tok_append_concat(BpeCore *c, int32_t a, int32_t b);     /* room reserved */
int32_t pair_find(const BpeCore *c, int32_t a, int32_t b);   /* -1 if absent */
int hash_resize(BpeCore *c, int bits);
int big_grow(void **p, size_t old_bytes, size_t new_bytes);   /* large arrays */
void big_free(void *p, size_t bytes);
int ensure_pairs(BpeCore *c, int64_t extra);
int32_t pair_get(BpeCore *c, int32_t a, int32_t b);          /* room reserved */
void pair_drop(BpeCore *c, int32_t idx);                     /* count 0, out of the heap */
int hb_resize(BpeCore *c, int bits);
int64_t hist_get(const BpeCore *c, int64_t cnt);
int hist_add(BpeCore *c, int64_t cnt, int d);

/* ---- core_heap.c: heap and batches ---- */
void sift_up(BpeCore *c, int32_t i);
void sift_down(BpeCore *c, int32_t i);
void heap_insert(BpeCore *c, int32_t p);
void heap_fix(BpeCore *c, int32_t p);
void heap_remove(BpeCore *c, int32_t p);
void batch_begin(BpeCore *c);
int batch_end(BpeCore *c);
void fs_resolve_top(BpeCore *c);

/* ---- core_build.c ---- */
const char *core_build_any(BpeCore *c, const int32_t *symbols, const unsigned char *bytes,
                           int32_t n_symbols, const int64_t *starts, const int64_t *freqs,
                           int32_t n_words, int *is_mem);

/* ---- columns: core_tables.c, core_heap.c ---- */
int col_grow_pairs(BpeCore *c);                       /* pcol to pairs_cap */
int col_reserve_rows(BpeCore *c, int64_t n);          /* room for n more rows of prows */
PCol *pc_slot(BpeCore *c, int32_t p, int32_t col);    /* made if none (room reserved) */
void pc_release(BpeCore *c, int32_t p);               /* a pair gone: no PCol left */
int col_reserve(BpeCore *c, int64_t nt);              /* room for a batch of nt pairs */
int col_sync(BpeCore *c, int32_t col);                /* the heap up to date: 0, -1 nomem */
void col_batch_end(BpeCore *c);                       /* batch_end of a core with columns */
void csift_down(BpeCore *c, int32_t col, int32_t i);
void cinsert(BpeCore *c, int32_t col, int32_t p);     /* room reserved */
void cremove(BpeCore *c, int32_t col, int32_t p);

/* Pair p's PCol for heaped column col, or NULL when it has none (count 0 there, in no
 * heap of it). */
static inline PCol *pc_find(const BpeCore *c, int32_t p, int32_t col)
{
    PCol *e = &c->pcol[p];
    if (e->col == col)
        return e;
    if (e->col <= -2)
        return &c->prows[(int64_t)(-2 - e->col) * c->n_heaped + col];
    return NULL;
}

/* pair p's count in heaped column col */
static inline int64_t pc_count(const BpeCore *c, int32_t p, int32_t col)
{
    const PCol *e = pc_find(c, p, col);
    return e ? e->cnt : 0;
}

/* pair p's place in column col's heap (p is in it, so it has a PCol there) */
static inline int32_t *hpos_of(BpeCore *c, int32_t p, int32_t col)
{
    return &pc_find(c, p, col)->hpos;
}

/* a column heap entry for pair p, its key read now */
static inline void cset(BpeCore *c, int32_t col, HEnt *e, int32_t p)
{
    e->p = p;
    e->count = pc_count(c, p, col);
    e->first = 0;
}

/* A new pair record's columns: no count, in no heap. */
static inline void col_new_pair(BpeCore *c, int32_t idx)
{
    PCol *e = &c->pcol[idx];
    e->cnt = 0;
    e->hpos = -1;
    e->col = -1;
}

/* One occurrence in word w merged (sign -1) or unmerged (+1): the columns' share of the
 * pair_add calls beside it -- (a, b) at pab, (s, a) at lo and (s, new) at ln for a left
 * neighbour s, (b, s) at ro and (new, s) at rn for a right one (-1: no neighbour) -- and
 * of the symbols each column counts. Returns the word's count over the n_train columns. */
BPE_FORCE_INLINE int64_t col_occ(BpeCore *c, int32_t w, int32_t pab, int32_t lo, int32_t ln,
                                 int32_t ro, int32_t rn, int64_t sign)
{
    const ColEnt *e = c->wc + c->wc_start[w], *end = c->wc + c->wc_start[w + 1];
    int32_t H = c->n_heaped;
    int64_t tf = 0;
    const Pair *P = c->pairs;
    /* the pairs' rows of the batch's changes (pair_add made each one, just before) */
    int64_t *dab = c->cdelta + (int64_t)P[pab].hpos * H;
    int64_t *dlo = lo >= 0 ? c->cdelta + (int64_t)P[lo].hpos * H : NULL;
    int64_t *dln = lo >= 0 ? c->cdelta + (int64_t)P[ln].hpos * H : NULL;
    int64_t *dro = ro >= 0 ? c->cdelta + (int64_t)P[ro].hpos * H : NULL;
    int64_t *drn = ro >= 0 ? c->cdelta + (int64_t)P[rn].hpos * H : NULL;
    for (; e < end; e++) {
        int32_t col = e->col;
        int64_t g = sign * e->cnt;
        c->col_syms[col] += g;
        if (col < c->n_train)
            tf += e->cnt;
        if (col >= H)
            continue;
        dab[col] += g;
        if (dlo) {
            dlo[col] += g;
            dln[col] -= g;
        }
        if (dro) {
            dro[col] += g;
            drn[col] -= g;
        }
    }
    return tf;
}

/* ------------------------------------------------------------------------------ */
/* the API: what python/coremodule.c and tests/c/core_driver.c call               */
/* ------------------------------------------------------------------------------ */
/* A core is built in three calls -- bpe_core_new, the tokens (reserve, then add each),
 * bpe_core_build -- then stepped, undone and read. No function here locks anything:
 * one thread at a time (the Python type refuses calls while run() works unlocked). */

/* A new, empty core with a tie rule (TIE_*); NULL when out of memory. */
BpeCore *bpe_core_new(int tie);
/* keep = 0: no undo log (bpe_core_undo refuses); call before bpe_core_build. A new core
 * keeps one. */
void bpe_core_keep_undo(BpeCore *c, int keep);
/* Frees the core and everything in it (NULL is fine). */
void bpe_core_free(BpeCore *c);

/* The shape of (symbols, starts, freqs) before anything is read: NULL if it is right,
 * else what is wrong. starts has n_starts entries (n_words + 1), freqs n_freqs. */
const char *bpe_core_check_shape(int64_t n_symbols, const int64_t *starts, int64_t n_starts,
                                 int64_t n_freqs);
/* Room for n tokens and for `bytes` bytes of them: 0, or -1 when out of memory. */
int bpe_core_reserve_tokens(BpeCore *c, int64_t n, int64_t bytes);
/* Append token bytes s[0..len) as the next id (room reserved). */
void bpe_core_add_token(BpeCore *c, const char *s, int64_t len);
/* The base tokens at once: s[i][0..len[i]) for i < n, room reserved here. NULL when
 * added, else what is wrong (*is_mem: a failed allocation). */
const char *bpe_core_add_tokens(BpeCore *c, const unsigned char *const *s, const size_t *len,
                                int64_t n, int *is_mem);
/* Whether tie rule `tie` is one a core (columns = 0) or a core with columns (1) knows:
 * NULL, else what is wrong. */
const char *bpe_core_tie_check(int tie, int columns);
/* The words: symbols[starts[w]..starts[w + 1]) of word w (n_words + 1 starts, shape
 * checked) seen freqs[w] times; the tokens added so far are the base tokens. Builds the
 * pair table, position lists and heap. NULL when done, else what is wrong (*is_mem set
 * when it is a failed allocation); the core is then only good for bpe_core_free. */
const char *bpe_core_build(BpeCore *c, const int32_t *symbols, int32_t n_symbols,
                           const int64_t *starts, const int64_t *freqs, int32_t n_words,
                           int *is_mem);

/* One merge of the best pair, or the undo of the last one: 1 done (the step in *out if
 * out is not NULL), 0 nothing to do, -1 error (ERR_* in *err; ERR_BROKEN: c->broken). */
int bpe_core_step(BpeCore *c, int *err, StepRec *out);
int bpe_core_undo(BpeCore *c, int *err, StepRec *out);
/* One merge of the given pair (a, b) of existing ids, best or not, even where it does not
 * occur (its token is made all the same): 1 done, 0 an id out of range, -1 error. */
int bpe_core_merge(BpeCore *c, int32_t a, int32_t b, int *err, StepRec *out);
/* bpe_core_merge, but the pair makes the existing token `into` (Hugging Face's parity
 * trainer: a merge whose token an earlier merge made keeps that token's id), whose bytes
 * must be a's then b's: 1 done, 0 an id out of range or another token, -1 error. */
int bpe_core_merge_into(BpeCore *c, int32_t a, int32_t b, int32_t into, int *err,
                        StepRec *out);
/* Up to n steps while the best count is >= min_count: the number done (*res: -1 after
 * an error, code in *err). */
int64_t bpe_core_run(BpeCore *c, int64_t n, int64_t min_count, int *res, int *err);

typedef struct {
    int32_t a, b;
    int64_t count;
} BpePairCount;

/* The pair the next step merges: 1 (in *out), or 0 if none has a count. */
int bpe_core_best(BpeCore *c, BpePairCount *out);
/* Up to k best pairs, best first, into out[] (room for k; with same_count_only, only
 * those that share the top count): how many, or -1 when out of memory. */
int64_t bpe_core_ranked(BpeCore *c, int64_t k, int same_count_only, BpePairCount *out);
/* Up to k best pairs of the core (col < 0) or of heaped column col, best first (as
 * bpe_core_ranked, bpe_core_col_ranked), in a block of their own (malloc'd, the caller
 * frees it): NULL when out of memory; *m how many. */
BpePairCount *bpe_core_top(BpeCore *c, int32_t col, int64_t k, int same_count_only,
                           int64_t *m);
/* How many pairs share the top count (0 when there is no pair). */
int64_t bpe_core_n_tied(const BpeCore *c);
/* Word w's symbols now into out (room for the word's symbols at the start): how many. */
int64_t bpe_core_word(const BpeCore *c, int32_t w, int32_t *out);
/* Every word's symbols now: sym (room n_slots) and st (n_words + 1 starts into sym). */
void bpe_core_segmentation(const BpeCore *c, int32_t *sym, int64_t *st);
/* The steps from `start` (<= n_steps) on as seven columns of n = n_steps - start int64
 * end to end into col (room 7 n): a, b, new id, count, n_tied, merged, gone. */
void bpe_core_history_columns(const BpeCore *c, int64_t start, int64_t *col);
/* Token t's occurrences now, frequency-weighted (with columns: weighted by the first
 * n_train), or -1 when t is no token. */
int64_t bpe_core_symbol_count(const BpeCore *c, int64_t t);
/* Frequency-weighted count of the pair (a, b) (0 if it never occurred or ids are out of
 * range). */
int64_t bpe_core_pair_count(const BpeCore *c, int64_t a, int64_t b);

/* The pairs whose counts the last step or undo changed, with their counts now (0: gone),
 * into out[] (room for `room`): how many there are (more than room: call again). */
int64_t bpe_core_changed(const BpeCore *c, BpePairCount *out, int64_t room);

/* What a replay of n merges found, each array malloc'd here (bpe_replay_free): counts[i]
 * merge i's count before it (0: skipped); with top_k, tops[i * top_k ..] the best pairs
 * before it (a = b = -1 past the last); changed (n_changed records): the pairs each merge
 * changed, with their counts after it; ends[i]: records so far after merge i. */
typedef struct {
    int64_t *counts, *ends;
    BpePairCount *tops, *changed;
    size_t n_changed;
} BpeReplay;
/* The merges of the pairs ab[0..2n) (a0, b0, a1, b1, ...; a = -1: a merge to skip, no
 * token made) in order, into *out (bpe_replay_free it, whatever this returns).
 * 1 done, 0 merge *bad names an id that does not exist yet, -1 error (ERR_* in *err). */
int bpe_core_replay(BpeCore *c, const int32_t *ab, int64_t n, int64_t top_k, BpeReplay *out,
                    int64_t *bad, int *err);
void bpe_replay_free(BpeReplay *r);

/* Recounts everything and compares (tests): NULL if consistent, else what differs
 * (*is_mem set when the check itself had no memory). */
const char *bpe_core_check(const BpeCore *c, int *is_mem);

/* ---- columns (core_cols.c) ---- */

/* One count table: n words, word i's bytes blob[starts[i] .. starts[i + 1]), seen
 * counts[i] times. */
typedef struct {
    const unsigned char *blob;
    const int64_t *starts;
    const int64_t *counts;
    int64_t n, blob_len;
} BpeTable;

/* A core over the union of the tables' words, byte level (the 256 bytes are its base
 * tokens: add none before), each word with a count per column: tables[0 .. n_train)
 * are columns 0 .. n_train - 1 (heaped), then, with with_sum, column n_train is their
 * sum (heaped), then the other tables, one column each (counted only). Words come in
 * order of first appearance, table by table. NULL when built, else what is wrong
 * (*is_mem: a failed allocation); the core is then only good for bpe_core_free. */
const char *bpe_core_build_tables(BpeCore *c, const BpeTable *tables, int32_t n_tables,
                                  int32_t n_train, int with_sum, int *is_mem);
/* Column col's best pair (1), or 0 when it has none, -1 out of memory; col must be
 * heaped. (The column queries bring its heap up to date first: col_sync.) */
int bpe_core_col_best(BpeCore *c, int32_t col, BpePairCount *out);
/* Up to k of column col's best pairs, best first (same_count_only: those of the top
 * count): how many, or -1 when out of memory. */
int64_t bpe_core_col_ranked(BpeCore *c, int32_t col, int64_t k, int same_count_only,
                            BpePairCount *out);
/* How many of column col's pairs share its top count (-1 out of memory). */
int64_t bpe_core_col_n_tied(BpeCore *c, int32_t col);
/* Pair (a, b)'s count in heaped column col (0: none, or ids out of range). */
int64_t bpe_core_col_pair_count(const BpeCore *c, int32_t col, int64_t a, int64_t b);
/* The rows (in column col's table) of the words the last step changed that have a count
 * in col: how many (0 before any step), and in *out (malloc'd, the caller frees it;
 * *n_out of them, at most limit) those with the highest counts there, lower row first on
 * equal counts; col -1: the words' ids by their frequencies (any core). -1 when out of
 * memory. */
int64_t bpe_core_col_touched(const BpeCore *c, int32_t col, int64_t limit, int32_t **out,
                             int64_t *n_out);
/* The number of rows of column col's table (col < n_cols), and with rows (room for that
 * many) the word of each row. */
int32_t bpe_core_col_rows(const BpeCore *c, int32_t col, int32_t *rows);
/* Recounts the columns and checks their heaps (col_sync them first): NULL if consistent
 * (bpe_core_check). */
const char *bpe_core_col_check(const BpeCore *c, int *is_mem);

typedef struct {
    int64_t pairs, pairs_cap, live_pairs, hash_cap, pos_entries, pos_alloc_lists, pos_cap,
        rlog, rlog_cap,
        scratch_cap, approx_bytes;
    /* the columns' (0 without): their heaps' entries, room and notes' room, the rows
     * (and free ones), the (word, column) entries, the cells */
    int64_t col_heap_entries, col_heap_cap, col_notes_cap, col_rows, col_rows_free,
        col_entries, cells;
} BpeCoreStats;
/* Sizes of the internal structures (benchmarks). */
void bpe_core_stats(const BpeCore *c, BpeCoreStats *out);

#endif
