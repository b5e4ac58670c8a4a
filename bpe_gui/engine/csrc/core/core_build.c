/*
 * core: construction -- Core(symbols, starts, freqs, token_bytes, tie_rule): the
 * arguments read as integer arrays, then the cells, pair table, position lists,
 * histogram and heap built without the GIL; and freeing it all.
 */
#include "core/core.h"
#include "util/heap_trim.h"

/* A core of at least this many cells gives its pages back (heap_trim.h) after its build
 * (the build's scratch) and when freed (so the export after a run fits in them); a
 * smaller one leaves the heap alone. */
#define TRIM_CELLS ((int64_t)1 << 18)

BpeCore *bpe_core_new(int tie)
{
    BpeCore *c = (BpeCore *)calloc(1, sizeof(BpeCore));
    if (c) {
        c->tie = tie;
        c->keep_undo = 1;
    }
    return c;
}

void bpe_core_keep_undo(BpeCore *c, int keep)
{
    c->keep_undo = keep != 0;
}

const char *bpe_core_check_shape(int64_t n_symbols, const int64_t *starts, int64_t n_starts,
                                 int64_t n_freqs)
{
    if (n_starts < 1)
        return "starts must have n_words + 1 entries";
    if (n_freqs != n_starts - 1)
        return "len(starts) must be len(freqs) + 1";
    if (n_starts > MAX_IDS || n_symbols + n_starts >= INT32_MAX - 1)
        return "too many symbols or words (at most 2**30 words, and symbols + words "
               "below 2**31 - 2)";
    if (starts[0] != 0 || starts[n_starts - 1] != n_symbols)
        return "starts must begin with 0 and end with len(symbols)";
    return NULL;
}

int bpe_core_reserve_tokens(BpeCore *c, int64_t n, int64_t bytes)
{
    return ensure_tok_cap(c, n) < 0 || ensure_tok_buf(c, bytes) < 0 ? -1 : 0;
}

void bpe_core_add_token(BpeCore *c, const char *s, int64_t len)
{
    tok_append(c, s, len);
}

const char *bpe_core_add_tokens(BpeCore *c, const unsigned char *const *s, const size_t *len,
                                int64_t n, int *is_mem)
{
    int64_t total = 0;
    *is_mem = 0;
    if (n >= INT32_MAX / 2)
        return "too many tokens";
    for (int64_t i = 0; i < n; i++) {
        if (len[i] > INT32_MAX / 4)
            return "token too long";
        total += (int64_t)len[i];
    }
    if (bpe_core_reserve_tokens(c, n + 1, total + 1) < 0) {
        *is_mem = 1;
        return "out of memory";
    }
    for (int64_t i = 0; i < n; i++)
        tok_append(c, (const char *)s[i], (int64_t)len[i]);
    return NULL;
}

const char *bpe_core_tie_check(int tie, int columns)
{
    if (columns)
        return tie == TIE_GREATEST || tie == TIE_LOWEST_IDS || tie == TIE_LOWEST_HF ||
                       tie == TIE_GREATEST_HF
                   ? NULL
                   : "tie_rule must be GREATEST, LOWEST_IDS, LOWEST_HF or GREATEST_HF (a core "
                     "with columns keeps no first-seen keys)";
    return tie == TIE_GREATEST || tie == TIE_FIRST_SEEN || tie == TIE_LOWEST_IDS ||
                   tie == TIE_LOWEST_HF || tie == TIE_GREATEST_HF
               ? NULL
               : "tie_rule must be GREATEST, FIRST_SEEN, LOWEST_IDS, LOWEST_HF or GREATEST_HF";
}

/* LOWEST_HF and GREATEST_HF in byte mode (ids 0..255 are the bytes 0..255): rank each byte as tokenizers
 * numbers ByteLevel's alphabet, sorted by the character GPT-2's map gives it -- the
 * bytes that stand for themselves (! to ~, U+00A1 to U+00AC, U+00AE to U+00FF) in
 * order, then the others (mapped to U+0100 onwards in byte order), in order. Any other
 * base alphabet (character mode) is already numbered by code point. */
static void hf_ranks(BpeCore *c)
{
    c->hf_bytes = 0;
    if ((c->tie != TIE_LOWEST_HF && c->tie != TIE_GREATEST_HF) || c->n_base < 256)
        return;
    for (int32_t i = 0; i < 256; i++)
        if (c->tok_len[i] != 1 || (unsigned char)c->tok_buf[c->tok_off[i]] != (unsigned)i)
            return;
    int32_t r = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < 256; b++) {
            int self = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            if (self == (pass == 0))
                c->hf_rank[b] = r++;
        }
    c->hf_bytes = 1;
}

/* The heavy part of construction (the Python type runs it without the GIL). */
const char *bpe_core_build(BpeCore *c, const int32_t *symbols, int32_t n_symbols,
                           const int64_t *starts, const int64_t *freqs, int32_t n_words,
                           int *is_mem)
{
    return core_build_any(c, symbols, NULL, n_symbols, starts, freqs, n_words, is_mem);
}

/* bpe_core_build with the symbols given as int32 ids or, where symbols is NULL, as
 * bytes (the ids 0..255: the words of count tables, end to end) */
const char *core_build_any(BpeCore *c, const int32_t *symbols, const unsigned char *bytes,
                           int32_t n_symbols, const int64_t *starts, const int64_t *freqs,
                           int32_t n_words, int *is_mem)
{
    *is_mem = 0;
    c->n_base = c->n_tokens;
    hf_ranks(c);
    c->n_slots = n_symbols;
    c->n_words = n_words;
    int32_t nwds = c->n_words;
    if (c->n_tokens > MAX_IDS - 2)
        return "too many tokens (at most 2**30 - 2)";
    /* every count the trainer keeps (a pair's, a symbol's, total_syms) is at most the sum
     * of freq x symbols over the words: refuse when that passes INT64_MAX, rather than
     * let a pair count wrap around and a wrong pair win */
    int64_t sum = 0;
    for (int32_t w = 0; w < nwds; w++) {
        int64_t len = starts[w + 1] - starts[w];
        if (freqs[w] < 1)
            return "freqs must be >= 1";
        if (starts[w + 1] < starts[w])
            return "starts must be non-decreasing";
        if (len > 0 && freqs[w] > (INT64_MAX - sum) / len)   /* freq * len + sum > MAX */
            return "counts too large: the word counts times the words' symbols add up past "
                   "2**63 - 1, so pair counts would overflow";
        sum += freqs[w] * len;
    }
    for (int32_t i = 0; symbols && i < n_symbols; i++)
        if (symbols[i] < 0 || symbols[i] >= c->n_tokens)
            return "symbol id out of range of token_bytes";
    if (!symbols && c->n_tokens < 256)
        return "symbol id out of range of token_bytes";

    c->n_cells = n_symbols + nwds + 1;
    size_t n = (size_t)c->n_cells;
    c->sym = (int32_t *)malloc(n * sizeof(int32_t));
    c->starts = (int64_t *)malloc(((size_t)nwds + 1) * sizeof(int64_t));
    c->freq = (int64_t *)malloc(((size_t)nwds + 1) * sizeof(int64_t));
    c->hist_small = (int32_t *)calloc(HIST_SMALL, sizeof(int32_t));
    if (!c->sym || !c->starts || !c->freq || !c->hist_small)
        goto nomem;
    memcpy(c->starts, starts, ((size_t)nwds + 1) * sizeof(int64_t));
    memcpy(c->freq, freqs, (size_t)nwds * sizeof(int64_t));

    c->total_syms = 0;
    int32_t *sym = c->sym;
    int64_t *symcount = c->symcount;
    sym[0] = SEP_BASE;
    for (int32_t w = 0; w < nwds; w++) {
        int32_t s = (int32_t)starts[w], e = (int32_t)starts[w + 1];
        int32_t *cell = sym + word_cell(c, w);
        int64_t f = freqs[w];
        for (int32_t i = s; i < e; i++) {
            int32_t t = symbols ? symbols[i] : bytes[i];
            cell[i - s] = t;
            symcount[t] += f;
        }
        cell[e - s] = SEP_BASE - w;
        c->total_syms += f * (e - s);
    }

    /* dense table for small ids */
    c->dense_n = c->n_base < DENSE_MAX ? c->n_base : DENSE_MAX;
    c->dense = (int32_t *)malloc(((size_t)c->dense_n * c->dense_n + 1) * sizeof(int32_t));
    if (!c->dense)
        goto nomem;
    for (int64_t i = 0; i < (int64_t)c->dense_n * c->dense_n; i++)
        c->dense[i] = -1;
    if (hash_resize(c, 10) < 0 || hb_resize(c, 6) < 0 || ensure_pairs(c, 16) < 0)
        goto nomem;

    /* count pairs; remember each cell's pair (-1 where none starts) */
    int32_t *sp = (int32_t *)malloc(n * sizeof(int32_t));
    if (!sp)
        goto nomem;
    sp[n - 1] = -1;
    for (int32_t w = 0; w < nwds; w++) {
        int32_t x0 = word_cell(c, w), x1 = x0 + (int32_t)(starts[w + 1] - starts[w]);
        int64_t f = freqs[w];
        sp[x0 - 1] = -1;
        if (x1 > x0)
            sp[x1 - 1] = -1;
        for (int32_t i = x0; i + 1 < x1; i++) {
            int32_t a = sym[i], b = sym[i + 1];
            int32_t idx;
            if (a < c->dense_n && b < c->dense_n && c->dense[a * c->dense_n + b] >= 0) {
                idx = c->dense[a * c->dense_n + b];
            } else {
                if (ensure_pairs(c, 1) < 0) {
                    free(sp);
                    goto nomem;
                }
                idx = pair_get(c, a, b);
            }
            Pair *p = &c->pairs[idx];
            p->count += f;
            p->nocc++;
            sp[i] = idx;
        }
    }
    /* allocate exact position lists */
    for (int32_t j = 0; j < c->n_pairs; j++) {
        Pair *p = &c->pairs[j];
        if (p->nocc > INLINE_CAP) {
            p->pos.ptr = (int32_t *)malloc((size_t)p->nocc * sizeof(int32_t));
            if (!p->pos.ptr) {
                for (int32_t q = 0; q < j; q++)
                    pos_free(&c->pairs[q]);
                free(sp);
                goto nomem;
            }
            p->cap = p->nocc;
        }
    }
    for (int32_t i = 0; i < c->n_cells; i++) {
        if (sp[i] < 0)
            continue;
        Pair *p = &c->pairs[sp[i]];
        if (p->len == 0 && c->first)
            c->first[sp[i]] = i;
        pos_data(p)[p->len++] = i;
    }
    free(sp);

    /* histogram and heap (a core with columns keeps neither: core_cols.c has its heaps) */
    c->heap_n = 0;
    for (int32_t j = 0; j < c->n_pairs && !c->n_cols; j++) {
        Pair *p = &c->pairs[j];
        if (p->count <= 0)
            continue;
        if (hist_add(c, p->count, 1) < 0)
            goto nomem;
        p->hpos = c->heap_n;
        heap_setkey(c, &c->heap[c->heap_n++], j);
    }
    for (int32_t i = c->heap_n / 2 - 1; i >= 0; i--)
        sift_down(c, i);
    if (c->n_cells >= TRIM_CELLS)
        bpe_heap_trim();   /* the build's scratch arrays are freed: before training grows */
    return NULL;
nomem:
    *is_mem = 1;
    return "out of memory";
}

void bpe_core_free(BpeCore *c)
{
    if (!c)
        return;
    int big = c->n_cells >= TRIM_CELLS;
    if (c->pairs) {
        for (int32_t j = 0; j < c->n_pairs; j++)
            if (c->pairs[j].cap > INLINE_CAP)
                free(c->pairs[j].pos.ptr);
    }
    big_free(c->pairs, c->pairs_mcap * sizeof(Pair));
    big_free(c->heap, c->heap_cap * sizeof(HEnt));
    big_free(c->first, c->first_cap * sizeof(int32_t));
    free(c->dense);
    if (c->hent)
        big_free(c->hent, ((size_t)1 << c->hbits) * sizeof(uint64_t));
    free(c->hist_small);
    free(c->hb_keys);
    free(c->hb_vals);
    free(c->touched);
    free(c->steps);
    free(c->rlog);
    free(c->scratch);
    free(c->sym);
    free(c->starts);
    free(c->freq);
    free(c->tok_off);
    free(c->tok_len);
    free(c->span);
    free(c->tok_pfx);
    free(c->symcount);
    free(c->tok_buf);
    free(c->cLo);
    free(c->cLn);
    free(c->cRo);
    free(c->cRn);
    free(c->usedL);
    free(c->usedR);
    free(c->wc_start);
    free(c->wc);
    free(c->col_syms);
    free(c->tsym);
    big_free(c->pcol, c->pcol_cap * sizeof(PCol));
    free(c->prows);
    free(c->free_rows);
    free(c->cdelta);
    if (c->cheap)
        for (int32_t h = 0; h < c->n_heaped; h++) {
            free(c->cheap[h].h);
            free(c->cheap[h].pend);
        }
    free(c->cheap);
    free(c);
    if (big)
        bpe_heap_trim();
}

