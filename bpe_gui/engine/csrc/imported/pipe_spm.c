/*
 * pipe_spm.c -- SentencePiece BPE (KIND_SPM of pipeline.h), as sentencepiece's
 * SentencePieceProcessor::Encode runs a BPE .model, and as llama.cpp's llm_tokenizer_spm
 * runs a GGUF `llama` vocabulary.
 *
 * 1. Normalize (sentencepiece's Normalizer::Normalize): at each place, a user-defined
 *    symbol is kept as it is, else the charsmap's longest rule applies (charsmap.h), else
 *    the character; leading, trailing and repeated spaces removed
 *    (remove_extra_whitespaces); a space added before the text (add_dummy_prefix; after
 *    it with treat_whitespace_as_suffix); each space written as U+2581 '▁'.
 *    llama.cpp: only the space prefix and the '▁'s.
 * 2. Symbols: the characters of the normalized text, a user-defined symbol as one frozen
 *    symbol (never merged).
 * 3. Merge: repeatedly the adjacent pair whose concatenation is a piece with the highest
 *    score, the leftmost on ties (a heap of candidate pairs keyed by (score rank, left
 *    position); a candidate whose symbols changed since is dropped when popped).
 *    sentencepiece merges into NORMAL, USER_DEFINED and UNUSED pieces, llama.cpp into
 *    any token.
 * 4. Each symbol's id (sentencepiece looks a text up among CONTROL/UNKNOWN/BYTE pieces
 *    first); an UNUSED piece re-split into the pair last seen making it; a symbol that is
 *    no piece: its bytes' <0xNN> pieces (byte_fallback), else <unk>, consecutive <unk>s
 *    as one.
 *
 * Speed: no merge crosses a place between two characters a and b that are never next to
 * each other inside a piece, so the normalized text is cut there (usually before each
 * '▁') and each segment merged alone -- through a cache of segments when only ids are
 * wanted. A model with UNUSED pieces is merged whole (its re-split depends on pairs seen
 * anywhere in the text).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imported/charsmap.h"
#include "imported/pipeline.h"
#include "merge/segment.h"
#include "util/grow.h"
#include "util/hash.h"

#define N_CP 0x110000

typedef struct SpmData {
    int llama, byte_fallback, has_unused;
    size_t n;
    uint8_t *type;        /* per id */
    int32_t *srank;       /* per id: 0 for the highest score, equal scores equal ranks */
    int32_t *alt;         /* per id whose text is also a NORMAL-group piece: that piece */
    uint8_t *is_ud;       /* per id: the text of a USER_DEFINED piece */
    uint64_t ud_first[256];   /* bit L-1: a user-defined symbol of L bytes starts here;
                                 bit 63: one of 64 bytes or more */
    size_t *ud_long;      /* lengths >= 64, longest first */
    size_t n_ud_long;
    int n_ud;
    CutPairs cut;         /* the characters next to each other inside pieces */
    /* normalizer */
    Charsmap cm;
    int has_cm, add_dummy_prefix, remove_extra_ws, escape_ws, ws_suffix;
} SpmData;

static const unsigned char SPACE_SYM[3] = {0xE2, 0x96, 0x81};

void spm_free(PipeModel *m) {
    SpmData *d = m->spm;
    if (!d) return;
    free(d->type);
    free(d->srank);
    free(d->alt);
    free(d->is_ud);
    free(d->ud_long);
    cuts_free(&d->cut);
    charsmap_free(&d->cm);
    free(d);
    m->spm = NULL;
}

/* PipeModel.free_spm: its SentencePiece data and its cut pairs */
static void parts_free(void *p) {
    PipeModel *m = p;
    spm_free(m);
    if (m->cut) {
        cuts_free(m->cut);
        free(m->cut);
        m->cut = NULL;
    }
}

void spm_out_free(SpmOut *o) {
    free(o->ids);
    free(o->st);
    free(o->en);
    memset(o, 0, sizeof *o);
}

static int out_put(SpmOut *o, int32_t id, int64_t st, int64_t en, int offsets) {
    if (o->n == o->cap) {
        size_t c1 = o->cap, c2 = o->cap, c3 = o->cap;
        if (bpe_grow((void **)&o->ids, &c1, o->n + 1, sizeof(int32_t), 256) < 0) return PIPE_NOMEM;
        if (offsets && (bpe_grow((void **)&o->st, &c2, o->n + 1, sizeof(int64_t), 256) < 0 ||
                        bpe_grow((void **)&o->en, &c3, o->n + 1, sizeof(int64_t), 256) < 0))
            return PIPE_NOMEM;
        o->cap = c1;
    }
    o->ids[o->n] = id;
    if (offsets) {
        o->st[o->n] = st;
        o->en[o->n] = en;
    }
    o->n++;
    return 0;
}

/* ---- pairs of characters inside pieces ------------------------------------------- */

static inline uint64_t pair_key(uint32_t a, uint32_t b) { return ((uint64_t)a << 21 | b) + 1; }
#define PAIR_BITS 20
static inline size_t pair_bit(uint64_t k) {
    return (size_t)((k * 0xD6E8FEB86659FD93ull) >> (64 - PAIR_BITS));
}

static size_t pair_slot(const CutPairs *d, uint64_t k) {
    /* the product's high half folded in: its bits 20.. held little but b's */
    uint64_t h = k * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 32) & (d->pairs_cap - 1);
}

static int pair_add(CutPairs *d, uint32_t a, uint32_t b) {
    if (2 * (d->pairs_n + 1) > d->pairs_cap) {
        size_t cap = d->pairs_cap ? d->pairs_cap * 2 : 1024;
        uint64_t *old = d->pairs;
        size_t old_cap = d->pairs_cap;
        d->pairs = calloc(cap, sizeof(uint64_t));
        if (!d->pairs) {
            d->pairs = old;
            return PIPE_NOMEM;
        }
        d->pairs_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i]) {
                size_t s = pair_slot(d, old[i]);
                while (d->pairs[s]) s = (s + 1) & (cap - 1);
                d->pairs[s] = old[i];
            }
        free(old);
    }
    if (a < 128 && b < 128)
        d->ascii[a * 2 + (b >> 6)] |= 1ull << (b & 63);
    uint64_t k = pair_key(a, b);
    size_t bit = pair_bit(k);
    d->pair_bits[bit >> 6] |= 1ull << (bit & 63);
    size_t s = pair_slot(d, k);
    while (d->pairs[s]) {
        if (d->pairs[s] == k) return 0;
        s = (s + 1) & (d->pairs_cap - 1);
    }
    d->pairs[s] = k;
    d->pairs_n++;
    return 0;
}

static int pair_in(const CutPairs *d, uint32_t a, uint32_t b) {
    if (!d->pairs_cap) return 0;
    uint64_t k = pair_key(a, b);
    size_t bit = pair_bit(k);
    if (!(d->pair_bits[bit >> 6] >> (bit & 63) & 1)) return 0;
    size_t s = pair_slot(d, k);
    while (d->pairs[s]) {
        if (d->pairs[s] == k) return 1;
        s = (s + 1) & (d->pairs_cap - 1);
    }
    return 0;
}

/* No piece holds a next to b: no merge ever crosses between them. Two ASCII characters
   by their bit (the SentencePiece-style file's long words of letters: 43 instructions a
   pair through the filter and the table, a third of the cut's time) */
static inline int can_cut(const CutPairs *d, uint32_t a, uint32_t b) {
    if ((a | b) < 128) return !(d->ascii[a * 2 + (b >> 6)] >> (b & 63) & 1);
    if (a >= N_CP || b >= N_CP) return 0;
    if (!(d->joins[a] & 1) || !(d->joins[b] & 2)) return 1;
    return !pair_in(d, a, b);
}

int cuts_init(CutPairs *c) {
    memset(c, 0, sizeof *c);
    c->joins = calloc(N_CP, 1);
    c->pair_bits = calloc((1u << PAIR_BITS) / 64, sizeof(uint64_t));
    return c->joins && c->pair_bits ? 0 : PIPE_NOMEM;
}

void cuts_free(CutPairs *c) {
    free(c->joins);
    free(c->pairs);
    free(c->pair_bits);
    memset(c, 0, sizeof *c);
}

/* ---- loading --------------------------------------------------------------------- */

static int is_normal_group(int t) {
    return t == SPM_NORMAL || t == SPM_USER_DEFINED || t == SPM_UNUSED;
}

typedef struct {
    float score;
    int32_t id;
} Scored;

static int by_score_desc(const void *a, const void *b) {
    float x = ((const Scored *)a)->score, y = ((const Scored *)b)->score;
    return x > y ? -1 : x < y ? 1 : 0;
}

static int by_len_desc(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x > y ? -1 : x < y;
}

/* Record the characters next to each other inside a piece that merges can make. */
int cuts_note(CutPairs *d, const unsigned char *p, size_t n) {
    uint32_t prev = N_CP;
    for (size_t i = 0; i < n;) {
        size_t k = cm_char_len(p[i]);
        if (i + k > n) k = n - i;
        uint32_t cp = cm_decode(p + i, k);
        if (cp >= N_CP) cp = 0xFFFD;
        if (prev < N_CP) {
            d->joins[prev] |= 1;
            d->joins[cp] |= 2;
            if (pair_add(d, prev, cp) < 0) return PIPE_NOMEM;
        }
        prev = cp;
        i += k;
    }
    return 0;
}

int spm_load(PipeModel *m, size_t n, const char *const *keys, const size_t *lens,
             const float *scores, const uint8_t *types, int llama, int byte_fallback) {
    int rc;
    if (n == 0 || n >= MAX_IDS) {
        snprintf(m->error, sizeof m->error, "%s pieces", n ? "too many" : "no");
        return PIPE_INVALID;
    }
    SpmData *d = calloc(1, sizeof *d);
    if (!d) return PIPE_NOMEM;
    m->spm = d;
    m->free_spm = parts_free;
    d->llama = llama;
    d->byte_fallback = byte_fallback;
    d->n = n;
    d->type = malloc(n);
    d->srank = malloc(n * sizeof(int32_t));
    d->alt = malloc(n * sizeof(int32_t));
    d->is_ud = calloc(n, 1);
    int cut_rc = cuts_init(&d->cut);
    Scored *sc = malloc(n * sizeof *sc);
    if (!d->type || !d->srank || !d->alt || !d->is_ud || cut_rc || !sc) {
        free(sc);
        return PIPE_NOMEM;
    }
    memcpy(d->type, types, n);
    if ((rc = set_ids(m, (ptrdiff_t)n)) < 0) goto fail;
    for (size_t i = 0; i < n; i++) d->alt[i] = NONE_ID;
    /* keys: sentencepiece finds CONTROL/UNKNOWN/BYTE pieces first, so those go in first;
       llama.cpp's map keeps the last token of a text, so the tokens go in backwards */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            size_t i = llama ? n - 1 - k : k;
            int normal = is_normal_group(types[i]);
            if (!llama && normal != (pass == 1)) continue;
            if (llama && pass == 1) break;
            rc = lens[i] ? add_key(m, keys[i], lens[i], (int32_t)i, 1) : 0;
            if (rc < 0) goto fail;
            if (rc == 0) { /* the text names another id already: shown only */
                if (!llama && lens[i]) d->alt[find_key(m, keys[i], lens[i])] = (int32_t)i;
                if ((rc = add_key(m, keys[i], lens[i], (int32_t)i, 0)) < 0) goto fail;
            }
        }
    }
    if ((rc = build_slots(m)) < 0) goto fail;
    /* score ranks */
    for (size_t i = 0; i < n; i++) {
        if (isnan(scores[i])) {
            snprintf(m->error, sizeof m->error, "piece %zu has the score NaN", i);
            rc = PIPE_INVALID;
            goto fail;
        }
        sc[i].score = scores[i];
        sc[i].id = (int32_t)i;
    }
    qsort(sc, n, sizeof *sc, by_score_desc);
    int32_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && sc[i].score != sc[i - 1].score) r++;
        d->srank[sc[i].id] = r;
    }
    free(sc);
    sc = NULL;
    /* user-defined symbols, unused pieces, the characters pieces join */
    size_t long_cap = 0;
    for (size_t i = 0; i < n; i++) {
        int t = types[i];
        const unsigned char *p = (const unsigned char *)keys[i];
        if (!lens[i]) continue;
        if (!llama && t == SPM_USER_DEFINED) {
            d->n_ud++;
            int32_t tid = find_key(m, keys[i], lens[i]);
            if (tid >= 0) d->is_ud[tid] = 1;
            d->is_ud[i] = 1;
            if (lens[i] < 64) {
                d->ud_first[p[0]] |= 1ull << (lens[i] - 1);
            } else {
                d->ud_first[p[0]] |= 1ull << 63;
                if (bpe_grow((void **)&d->ud_long, &long_cap, d->n_ud_long + 1, sizeof(size_t),
                             8) < 0) {
                    rc = PIPE_NOMEM;
                    goto fail;
                }
                d->ud_long[d->n_ud_long++] = lens[i];
            }
        }
        if (!llama && t == SPM_UNUSED && lens[i] > cm_char_len(p[0])) d->has_unused = 1;
        if ((llama || is_normal_group(t)) && (rc = cuts_note(&d->cut, p, lens[i])) < 0) goto fail;
    }
    if (d->n_ud_long) {
        qsort(d->ud_long, d->n_ud_long, sizeof(size_t), by_len_desc);
    }
    /* byte fallback and the unknown piece */
    for (int b = 0; b < 256; b++) {
        char key[8];
        snprintf(key, sizeof key, "<0x%02X>", b);
        m->fb[b] = (byte_fallback || llama) ? find_key(m, key, 6) : NONE_ID;
        if (llama && m->fb[b] == NONE_ID) {
            char c = (char)b;
            m->fb[b] = find_key(m, &c, 1);
        }
    }
    m->byte_fallback = byte_fallback;
    m->unk_id = NONE_ID;
    if (!llama)
        for (size_t i = 0; i < n; i++)
            if (types[i] == SPM_UNKNOWN) m->unk_id = (int32_t)i;
    d->add_dummy_prefix = 1;
    d->escape_ws = 1;
    return 0;
fail:
    free(sc);
    return rc;
}

int spm_set_normalizer(PipeModel *m, const unsigned char *charsmap, size_t len,
                       int add_dummy_prefix, int remove_extra_ws, int escape_ws, int ws_suffix) {
    SpmData *d = m->spm;
    charsmap_free(&d->cm);
    d->has_cm = 0;
    if (charsmap && len) {
        char why[80];
        int rc = charsmap_load(&d->cm, charsmap, len, 0, why, sizeof why);
        if (rc == PIPE_INVALID)
            snprintf(m->error, sizeof m->error, "the precompiled charsmap is damaged: %s", why);
        if (rc) return rc;
        d->has_cm = 1;
    }
    d->add_dummy_prefix = add_dummy_prefix;
    d->remove_extra_ws = remove_extra_ws;
    d->escape_ws = escape_ws;
    d->ws_suffix = ws_suffix;
    return 0;
}

/* ---- user-defined symbols ------------------------------------------------------------- */

/* The longest user-defined symbol at p[0..n), or 0. */
static size_t ud_match(const PipeModel *m, const unsigned char *p, size_t n) {
    const SpmData *d = m->spm;
    uint64_t mask = d->ud_first[p[0]];
    if (!mask) return 0;
    if (mask >> 63)
        for (size_t k = 0; k < d->n_ud_long; k++) {
            size_t len = d->ud_long[k];
            if (len > n) continue;
            int32_t t = find_key(m, (const char *)p, len);
            if (t >= 0 && d->is_ud[t]) return len;
        }
    for (int bit = 62; bit >= 0; bit--) {
        if (!(mask >> bit & 1)) continue;
        size_t len = (size_t)bit + 1;
        if (len > n) continue;
        int32_t t = find_key(m, (const char *)p, len);
        if (t >= 0 && d->is_ud[t]) return len;
    }
    return 0;
}

/* ---- normalizing -------------------------------------------------------------------- */

typedef struct {
    CmBuf out;
    int64_t *n2o;
    size_t n2o_cap;
    int want_n2o;
} Norm;

static int norm_put(Norm *z, const void *p, size_t k, int64_t from) {
    if (cm_put(&z->out, p, k) < 0) return PIPE_NOMEM;
    if (z->want_n2o) {
        if (bpe_grow((void **)&z->n2o, &z->n2o_cap, z->out.n + 1, sizeof(int64_t), 1024) < 0)
            return PIPE_NOMEM;
        for (size_t i = z->out.n - k; i < z->out.n; i++) z->n2o[i] = from;
    }
    return 0;
}

/* s[a..b) as it is, each byte from its own place */
static int norm_run(Norm *z, const unsigned char *s, size_t a, size_t b) {
    if (!z->want_n2o) return cm_put(&z->out, s + a, b - a);
    for (size_t j = a; j < b; j++)
        if (norm_put(z, s + j, 1, (int64_t)j) < 0) return PIPE_NOMEM;
    return 0;
}

/* NormalizePrefix: (normalized text of the longest thing at s, bytes it takes). */
static size_t norm_prefix(const PipeModel *m, const unsigned char *s, size_t n,
                          const unsigned char **txt, size_t *txt_len) {
    const SpmData *d = m->spm;
    size_t k;
    if (d->n_ud && (k = ud_match(m, s, n)) > 0) {
        *txt = s;
        *txt_len = k;
        return k;
    }
    const char *norm;
    size_t nl;
    if (d->has_cm && (k = charsmap_longest(&d->cm, s, n, &norm, &nl)) > 0) {
        *txt = (const unsigned char *)norm;
        *txt_len = nl;
        return k;
    }
    k = cm_char_len(s[0]);
    if (k > n) k = n;
    *txt = s;
    *txt_len = k;
    return k;
}

static int add_ws(const SpmData *d, Norm *z, int64_t consumed) {
    return d->escape_ws ? norm_put(z, SPACE_SYM, 3, consumed) : norm_put(z, " ", 1, consumed);
}

static int normalize(const PipeModel *m, const unsigned char *s, size_t n, int prefix, Norm *z) {
    const SpmData *d = m->spm;
    int64_t consumed = 0;
    if (d->llama) { /* llama.cpp: a space before the text, every space as '▁' */
        if (prefix && n && norm_put(z, SPACE_SYM, 3, 0) < 0) return PIPE_NOMEM;
        size_t last = 0;
        for (size_t i = 0; i <= n; i++)
            if (i == n || s[i] == ' ') {
                if (norm_run(z, s, last, i) < 0) return PIPE_NOMEM;
                if (i < n && norm_put(z, SPACE_SYM, 3, (int64_t)i) < 0) return PIPE_NOMEM;
                last = i + 1;
            }
        goto end;
    }
    if (!z->want_n2o && !d->has_cm && !d->n_ud && !d->remove_extra_ws) {
        /* nothing replaced, nothing removed (Llama 2's and Mistral's identity): the text
           with each space written as '▁', in runs, instead of a character at a time */
        if (!n) goto end;
        if (!d->ws_suffix && d->add_dummy_prefix && add_ws(d, z, 0) < 0) return PIPE_NOMEM;
        if (!d->escape_ws) {
            if (cm_put(&z->out, s, n) < 0) return PIPE_NOMEM;
        } else {
            for (size_t last = 0;;) {
                const unsigned char *sp = memchr(s + last, ' ', n - last);
                size_t at = sp ? (size_t)(sp - s) : n;
                if (cm_put(&z->out, s + last, at - last) < 0) return PIPE_NOMEM;
                if (at == n) break;
                if (cm_put(&z->out, SPACE_SYM, 3) < 0) return PIPE_NOMEM;
                last = at + 1;
            }
        }
        if (d->ws_suffix && d->add_dummy_prefix && add_ws(d, z, 0) < 0) return PIPE_NOMEM;
        return 0;
    }
    const unsigned char *txt;
    size_t tl, k;
    if (d->remove_extra_ws)
        while (n) {
            k = norm_prefix(m, s, n, &txt, &tl);
            if (!(tl == 1 && txt[0] == ' ')) break;
            s += k;
            n -= k;
            consumed += (int64_t)k;
        }
    if (!n) goto end;
    if (!d->ws_suffix && d->add_dummy_prefix && add_ws(d, z, consumed) < 0) return PIPE_NOMEM;
    int prev_space = d->remove_extra_ws;
    while (n) {
        k = norm_prefix(m, s, n, &txt, &tl);
        while (prev_space && tl && txt[0] == ' ') {
            txt++;
            tl--;
        }
        if (tl) {
            size_t run = 0; /* bytes copied as they are, in one go */
            for (size_t i = 0; i < tl; i++) {
                if (d->escape_ws && txt[i] == ' ') {
                    if (run && norm_put(z, txt + i - run, run, consumed) < 0) return PIPE_NOMEM;
                    run = 0;
                    if (norm_put(z, SPACE_SYM, 3, consumed) < 0) return PIPE_NOMEM;
                } else {
                    run++;
                }
            }
            if (run && norm_put(z, txt + tl - run, run, consumed) < 0) return PIPE_NOMEM;
            prev_space = txt[tl - 1] == ' ';
        }
        consumed += (int64_t)k;
        s += k;
        n -= k;
        if (!d->remove_extra_ws) prev_space = 0;
    }
    if (d->remove_extra_ws) {
        const unsigned char *sp = d->escape_ws ? SPACE_SYM : (const unsigned char *)" ";
        size_t sl = d->escape_ws ? 3 : 1;
        while (z->out.n >= sl && memcmp(z->out.p + z->out.n - sl, sp, sl) == 0) {
            z->out.n -= sl;
            if (z->want_n2o) consumed = z->n2o[z->out.n];
        }
    }
    if (d->ws_suffix && d->add_dummy_prefix && add_ws(d, z, consumed) < 0) return PIPE_NOMEM;
end:
    if (z->want_n2o) {
        if (bpe_grow((void **)&z->n2o, &z->n2o_cap, z->out.n + 1, sizeof(int64_t), 1024) < 0)
            return PIPE_NOMEM;
        z->n2o[z->out.n] = d->llama ? (int64_t)n : consumed;
    }
    return 0;
}

int spm_normalize_text(const PipeModel *m, const unsigned char *s, size_t n, int prefix,
                       char **norm, size_t *norm_len, int64_t **n2o) {
    Norm z = {{0}, NULL, 0, n2o != NULL};
    int rc = normalize(m, s, n, prefix, &z);
    if (rc < 0) {
        free(z.out.p);
        free(z.n2o);
        return rc;
    }
    if (n2o && !z.n2o) { /* empty output: one entry */
        z.n2o = malloc(sizeof(int64_t));
        if (!z.n2o) {
            free(z.out.p);
            return PIPE_NOMEM;
        }
        z.n2o[0] = (int64_t)n;
    }
    *norm = z.out.p;
    *norm_len = z.out.n;
    if (n2o) *n2o = z.n2o;
    return 0;
}

/* ---- merging ------------------------------------------------------------------------ */

typedef struct {
    uint64_t key; /* score rank << 32 | left symbol */
    int32_t right, size;
} Cand;

typedef struct {
    int32_t *st, *ln, *prev, *next;
    uint8_t *frozen;
    size_t cap;
    Cand *heap;
    size_t n_heap, heap_cap;
    /* UNUSED re-split: piece id -> (left start, left length, right length) */
    int32_t (*rev)[4];
    size_t rev_cap;
    int32_t *ost, *oln; /* the final symbols */
    size_t n_out, out_cap;
} Scratch;

static void scratch_free(Scratch *x) {
    free(x->st);
    free(x->ln);
    free(x->prev);
    free(x->next);
    free(x->frozen);
    free(x->heap);
    free(x->rev);
    free(x->ost);
    free(x->oln);
    memset(x, 0, sizeof *x);
}

static int scratch_reserve(Scratch *x, size_t n) {
    if (n <= x->cap) return 0;
    size_t c = x->cap ? x->cap : 64;
    while (c < n) c *= 2;
    int32_t *a = realloc(x->st, c * 4), *b = a ? realloc(x->ln, c * 4) : NULL;
    if (a) x->st = a;
    if (b) x->ln = b;
    int32_t *e = b ? realloc(x->prev, c * 4) : NULL;
    if (e) x->prev = e;
    int32_t *f = e ? realloc(x->next, c * 4) : NULL;
    if (f) x->next = f;
    uint8_t *g = f ? realloc(x->frozen, c) : NULL;
    if (g) x->frozen = g;
    if (!g) return PIPE_NOMEM;
    x->cap = c;
    return 0;
}

static int heap_push(Scratch *x, uint64_t key, int32_t right, int32_t size) {
    if (bpe_grow((void **)&x->heap, &x->heap_cap, x->n_heap + 1, sizeof(Cand), 256) < 0)
        return PIPE_NOMEM;
    size_t i = x->n_heap++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (x->heap[p].key <= key) break;
        x->heap[i] = x->heap[p];
        i = p;
    }
    x->heap[i].key = key;
    x->heap[i].right = right;
    x->heap[i].size = size;
    return 0;
}

static Cand heap_pop(Scratch *x) {
    Cand top = x->heap[0], last = x->heap[--x->n_heap];
    size_t i = 0, n = x->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && x->heap[c + 1].key < x->heap[c].key) c++;
        if (x->heap[c].key >= last.key) break;
        x->heap[i] = x->heap[c];
        i = c;
    }
    if (n) x->heap[i] = last;
    return top;
}

static int rev_put(Scratch *x, int32_t id, int32_t st, int32_t ll, int32_t rl) {
    size_t cap = x->rev_cap;
    size_t s = ((uint32_t)id * 0x9E3779B1u) & (cap - 1);
    while (x->rev[s][0] != -1 && x->rev[s][0] != id) s = (s + 1) & (cap - 1);
    x->rev[s][0] = id;
    x->rev[s][1] = st;
    x->rev[s][2] = ll;
    x->rev[s][3] = rl;
    return 0;
}

static const int32_t *rev_get(const Scratch *x, int32_t id) {
    size_t cap = x->rev_cap;
    size_t s = ((uint32_t)id * 0x9E3779B1u) & (cap - 1);
    while (x->rev[s][0] != -1) {
        if (x->rev[s][0] == id) return x->rev[s];
        s = (s + 1) & (cap - 1);
    }
    return NULL;
}

/* The piece a merge of symbols l and r would make (NONE_ID: none). */
static int32_t merged_piece(const PipeModel *m, const Scratch *x, const unsigned char *w,
                            int32_t l, int32_t r) {
    const SpmData *d = m->spm;
    size_t size = (size_t)x->ln[l] + (size_t)x->ln[r];
    if (size > m->max_key) return NONE_ID;
    int32_t t = find_key(m, (const char *)w + x->st[l], size);
    if (t < 0 || d->llama) return t;
    return is_normal_group(d->type[t]) ? t : d->alt[t];
}

static int try_add(const PipeModel *m, Scratch *x, const unsigned char *w, int32_t l, int32_t r) {
    const SpmData *d = m->spm;
    if (l < 0 || r < 0 || (!d->llama && (x->frozen[l] || x->frozen[r]))) return 0;
    int32_t p = merged_piece(m, x, w, l, r);
    if (p < 0) return 0;
    if (heap_push(x, (uint64_t)d->srank[p] << 32 | (uint32_t)l, r, x->ln[l] + x->ln[r]) < 0)
        return PIPE_NOMEM;
    if (d->has_unused && d->type[p] == SPM_UNUSED) rev_put(x, p, x->st[l], x->ln[l], x->ln[r]);
    return 0;
}

static int emit(Scratch *x, int32_t st, int32_t ln) {
    if (x->n_out == x->out_cap) {
        size_t c1 = x->out_cap, c2 = x->out_cap;
        if (bpe_grow((void **)&x->ost, &c1, x->n_out + 1, 4, 64) < 0 ||
            bpe_grow((void **)&x->oln, &c2, x->n_out + 1, 4, 64) < 0)
            return PIPE_NOMEM;
        x->out_cap = c1 < c2 ? c1 : c2;
    }
    x->ost[x->n_out] = st;
    x->oln[x->n_out++] = ln;
    return 0;
}

static int resegment(const PipeModel *m, Scratch *x, const unsigned char *w, int32_t st,
                     int32_t ln) {
    const SpmData *d = m->spm;
    if (d->has_unused) {
        int32_t t = find_key(m, (const char *)w + st, (size_t)ln);
        if (t >= 0 && d->type[t] == SPM_UNUSED) {
            const int32_t *r = rev_get(x, t);
            if (r) {
                if (resegment(m, x, w, r[1], r[2]) < 0) return PIPE_NOMEM;
                return resegment(m, x, w, r[1] + r[2], r[3]);
            }
        }
    }
    return emit(x, st, ln);
}

/* Merge w[0..len) into its final symbols (x->ost, x->oln). */
static int merge_word(const PipeModel *m, Scratch *x, const unsigned char *w, size_t len) {
    const SpmData *d = m->spm;
    x->n_out = 0;
    x->n_heap = 0;
    if (!len) return 0;
    if (scratch_reserve(x, len) < 0) return PIPE_NOMEM;
    int32_t n = 0;
    for (size_t p = 0; p < len;) {
        size_t k = (!d->llama && d->n_ud) ? ud_match(m, w + p, len - p) : 0;
        x->frozen[n] = k > 0;
        if (!k) {
            k = cm_char_len(w[p]);
            if (k > len - p) k = len - p;
        }
        x->st[n] = (int32_t)p;
        x->ln[n] = (int32_t)k;
        x->prev[n] = n - 1;
        p += k;
        x->next[n] = p == len ? -1 : n + 1;
        n++;
    }
    if (d->has_unused) {
        size_t cap = 16;
        while (cap < 2 * (size_t)n) cap *= 2;
        if (cap > x->rev_cap) {
            free(x->rev);
            x->rev = malloc(cap * sizeof *x->rev);
            if (!x->rev) {
                x->rev_cap = 0;
                return PIPE_NOMEM;
            }
            x->rev_cap = cap;
        }
        for (size_t i = 0; i < x->rev_cap; i++) x->rev[i][0] = -1;
    }
    for (int32_t i = 1; i < n; i++)
        if (try_add(m, x, w, i - 1, i) < 0) return PIPE_NOMEM;
    while (x->n_heap) {
        Cand c = heap_pop(x);
        int32_t l = (int32_t)(uint32_t)c.key, r = c.right;
        if (!x->ln[l] || !x->ln[r] || x->ln[l] + x->ln[r] != c.size) continue;
        x->ln[l] += x->ln[r];
        x->ln[r] = 0;
        x->next[l] = x->next[r];
        if (x->next[r] >= 0) x->prev[x->next[r]] = l;
        if (try_add(m, x, w, x->prev[l], l) < 0 || try_add(m, x, w, l, x->next[l]) < 0)
            return PIPE_NOMEM;
    }
    for (int32_t i = 0; i != -1; i = x->next[i])
        if (resegment(m, x, w, x->st[i], x->ln[i]) < 0) return PIPE_NOMEM;
    return 0;
}

/* The ids of the final symbols of w (offsets: byte spans in w, plus `base`); prev_unk:
   whether the last id out was <unk> (carried across segments). */
static int symbols_out(const PipeModel *m, const Scratch *x, const unsigned char *w, SpmOut *o,
                       int offsets, int64_t base, int *prev_unk) {
    const SpmData *d = m->spm;
    for (size_t k = 0; k < x->n_out; k++) {
        int32_t st = x->ost[k], ln = x->oln[k];
        int32_t id = find_key(m, (const char *)w + st, (size_t)ln);
        if (d->llama) {
            if (id >= 0) {
                if (out_put(o, id, base + st, base + st + ln, offsets) < 0) return PIPE_NOMEM;
            } else {
                for (int32_t j = 0; j < ln; j++) /* as sentencepiece's byte pieces */
                    if (out_put(o, m->fb[w[st + j]], base + st, base + st + (j == ln - 1 ? ln : 0),
                                offsets) < 0)
                        return PIPE_NOMEM;
            }
            continue;
        }
        if (id < 0) id = m->unk_id;
        int unk = id == m->unk_id;
        if (unk && d->byte_fallback) {
            for (int32_t j = 0; j < ln; j++) /* the last byte holds the character's span */
                if (out_put(o, m->fb[w[st + j]], base + st, base + st + (j == ln - 1 ? ln : 0),
                            offsets) < 0)
                    return PIPE_NOMEM;
        } else if (unk && *prev_unk && o->n) {
            if (offsets) o->en[o->n - 1] = base + st + ln;
        } else {
            if (out_put(o, id, base + st, base + st + ln, offsets) < 0) return PIPE_NOMEM;
        }
        *prev_unk = unk;
    }
    return 0;
}

size_t spm_tokenize(const PipeModel *m, const unsigned char *w, size_t len, SpmOut *out,
                    int *err) {
    Scratch x = {0};
    int prev_unk = 0;
    int rc = merge_word(m, &x, w, len);
    if (!rc) rc = symbols_out(m, &x, w, out, 1, 0, &prev_unk);
    scratch_free(&x);
    if (rc) {
        *err = rc;
        return (size_t)-1;
    }
    return out->n;
}

size_t pipe_word(const PipeModel *m, MergeScratch *x, SpmOut *o, const char *w, size_t len,
                 const int32_t **ids, int *err) {
    if (m->kind != KIND_SPM) {
        *ids = x->sym;
        size_t n = pipe_tokenize(m, x, w, len, err);
        *ids = x->sym; /* (the call may have moved it) */
        return n;
    }
    size_t n = spm_tokenize(m, (const unsigned char *)w, len, o, err);
    *ids = o->ids;
    return n;
}

/* ---- segments and their cache --------------------------------------------------------- */

int spm_segments(const PipeModel *m, const unsigned char *s, size_t n, size_t **ends,
                 size_t *n_ends) {
    const SpmData *d = m->spm;
    size_t cap = 0;
    *ends = NULL;
    *n_ends = 0;
    uint32_t prev = N_CP;
    size_t pk = 0; /* where the previous character starts */
    for (size_t i = 0; i < n;) {
        size_t k = cm_char_len(s[i]);
        if (i + k > n) k = n - i;
        uint32_t cp = cm_decode(s + i, k);
        /* two characters that are no piece stay together: their <unk>s are one token */
        int unk2 = !d->llama && !d->byte_fallback && i && find_key(m, (const char *)s + i, k) < 0 &&
                   find_key(m, (const char *)s + pk, i - pk) < 0;
        if (i && !d->has_unused && !unk2 && can_cut(&d->cut, prev, cp)) {
            if (bpe_grow((void **)ends, &cap, *n_ends + 2, sizeof(size_t), 256) < 0)
                return PIPE_NOMEM;
            (*ends)[(*n_ends)++] = i;
        }
        prev = cp;
        pk = i;
        i += k;
    }
    if (n) {
        if (bpe_grow((void **)ends, &cap, *n_ends + 1, sizeof(size_t), 256) < 0) return PIPE_NOMEM;
        (*ends)[(*n_ends)++] = n;
    }
    return 0;
}

typedef struct {
    const PipeModel *m;
    Scratch x;
    SpmOut seg;
} SpmMerge;

static int spm_merge_segment(void *ctx, const unsigned char *p, size_t len,
                             const int32_t **ids, size_t *n) {
    SpmMerge *g = ctx;
    int rc, pu = 0;
    g->seg.n = 0;
    if ((rc = merge_word(g->m, &g->x, p, len)) < 0 ||
        (rc = symbols_out(g->m, &g->x, p, &g->seg, 0, 0, &pu)) < 0)
        return rc;
    *ids = g->seg.ids;
    *n = g->seg.n;
    return 0;
}

/* SentencePiece's Cutter: between two characters no piece holds next to each other (a
   model with UNUSED pieces is not cut: whole_text). It reads the character at each cut
   it returns before returning it, so a call finds its segment's first character read
   (spm_cut_init reads the text's). */
typedef struct {
    const SpmData *d;
    size_t k;      /* the bytes of the character at the next call's start */
    uint32_t cp;   /* that character */
} SpmCut;

static inline void spm_cut_init(SpmCut *c, const SpmData *d, const unsigned char *w,
                                size_t len) {
    c->d = d;
    c->k = len ? cm_char_len(w[0]) : 0;
    if (c->k > len) c->k = len;
    c->cp = len ? cm_decode(w, c->k) : 0;
}

BPE_FORCE_INLINE size_t spm_next_cut(void *self, const unsigned char *w, size_t len,
                                     size_t start) {
    SpmCut *c = self;
    size_t i = start, k = c->k;
    uint32_t prev = c->cp;
    for (i += k; i < len; i += k) {
        k = cm_char_len(w[i]);
        if (i + k > len) k = len - i;
        uint32_t cp = cm_decode(w + i, k);
        if (can_cut(&c->d->cut, prev, cp)) {
            c->k = k;
            c->cp = cp;
            return i;
        }
        prev = cp;
    }
    return len;
}

static size_t whole_text(void *self, const unsigned char *w, size_t len, size_t start) {
    (void)self, (void)w, (void)start;
    return len;
}

typedef struct {
    SpmOut *out;
    int32_t unk;
    int fuse, prev_unk;   /* fuse: consecutive <unk>s are one */
} SpmEmit;

BPE_FORCE_INLINE int spm_emit(void *ctx, const int32_t *ids, size_t ni) {
    SpmEmit *e = ctx;
    size_t from = 0;
    int rc;
    if (ni && e->prev_unk && ids[0] == e->unk) from = 1;
    for (size_t j = from; j < ni; j++)
        if ((rc = out_put(e->out, ids[j], 0, 0, 0)) < 0) return rc;
    if (ni) e->prev_unk = e->fuse && ids[ni - 1] == e->unk;
    return 0;
}

/* the offsets' piece: a segment merged, its tokens put out with their spans */
typedef struct {
    const PipeModel *m;
    Scratch *x;
    SpmOut *out;
    int offsets, prev_unk;
} SpmSpans;

BPE_FORCE_INLINE int spm_spans_piece(void *ctx, const unsigned char *w, size_t len,
                                     size_t start, size_t end) {
    SpmSpans *p = ctx;
    int rc;
    (void)len;
    if ((rc = merge_word(p->m, p->x, w + start, end - start)) < 0) return rc;
    return symbols_out(p->m, p->x, w + start, p->out, p->offsets, (int64_t)start, &p->prev_unk);
}

/* each segment's tokens with their spans: merged, never cached (out of line: the
   cached route's loop is compiled alone) */
static BPE_NOINLINE int spm_spans(const PipeModel *m, Scratch *x, SpmCut *at, SpmOut *out,
                                  int offsets, const unsigned char *w, size_t len) {
    SpmSpans p = {m, x, out, offsets, 0};
    Cutter cut = {spm_next_cut, at}, whole = {whole_text, NULL};
    return m->spm->has_unused ? segment_walk(whole, spm_spans_piece, &p, w, len)
                              : segment_walk(cut, spm_spans_piece, &p, w, len);
}

int spm_encode(const PipeModel *m, const unsigned char *s, size_t n, int prefix, int offsets,
               SpmOut *out) {
    const SpmData *d = m->spm;
    Norm z = {{0}, NULL, 0, offsets};
    SpmMerge g = {m, {0}, {0}};
    SegCache sc;
    int rc = seg_cache_init(&sc, offsets ? 0 : n, NULL);
    if (rc < 0 || (rc = normalize(m, s, n, prefix, &z)) < 0) goto done;
    const unsigned char *w = (const unsigned char *)z.out.p;
    size_t len = z.out.n;
    SpmCut at;
    spm_cut_init(&at, d, w, len);
    if (!offsets) {
        SpmEmit e = {out, m->unk_id, !d->llama && !d->byte_fallback, 0};
        Cutter cut = {spm_next_cut, &at}, whole = {whole_text, NULL};
        rc = d->has_unused
                 ? segment_encode(whole, &sc, spm_merge_segment, &g, spm_emit, &e, w, len)
                 : segment_encode(cut, &sc, spm_merge_segment, &g, spm_emit, &e, w, len);
        if (rc < 0) goto done;
    } else if ((rc = spm_spans(m, &g.x, &at, out, offsets, w, len)) < 0) {
        goto done;
    }
    if (offsets) /* normalized byte offsets -> the input's */
        for (size_t j = 0; j < out->n; j++) {
            out->st[j] = z.n2o[out->st[j]];
            out->en[j] = z.n2o[out->en[j]];
        }
done:
    free(z.out.p);
    free(z.n2o);
    scratch_free(&g.x);
    spm_out_free(&g.seg);
    seg_cache_free(&sc);
    return rc;
}

/* ---- tokenizer.json models without ByteLevel: cut where no merge crosses ------------ */

int pipe_build_cuts(PipeModel *m) {
    if (m->cut) return 1;
    if (m->kind != KIND_HF || m->byte_level || m->ignore_merges || !m->n_merges) return 0;
    /* merges that join byte-fallback or unknown tokens: their text is not their key */
    uint8_t *odd = calloc((size_t)m->n_ids + 1, 1);
    if (!odd) return PIPE_NOMEM;
    for (int b = 0; b < 256; b++)
        if (m->fb[b] >= 0) odd[m->fb[b]] = 1;
    if (m->unk_id >= 0) odd[m->unk_id] = 1;
    for (ptrdiff_t k = 0; k < m->n_merges; k++)
        if (odd[m->merge_a[k]] || odd[m->merge_b[k]]) {
            free(odd);
            return 0;
        }
    free(odd);
    CutPairs *c = malloc(sizeof *c);
    if (!c || cuts_init(c) < 0) {
        if (c) cuts_free(c);
        free(c);
        return PIPE_NOMEM;
    }
    for (ptrdiff_t k = 0; k < m->n_merges; k++) {
        int32_t e = m->first_entry[m->merge_new[k]];
        if (e < 0) continue;
        const Entry *en = &m->entries[e];
        if (cuts_note(c, (const unsigned char *)m->arena + en->off, (size_t)en->len) < 0) {
            cuts_free(c);
            free(c);
            return PIPE_NOMEM;
        }
    }
    m->cut = c;
    m->free_spm = parts_free;
    return 1;
}

typedef struct {
    const PipeModel *m;
    MergeScratch x;
} CutMerge;

static int cut_merge_segment(void *ctx, const unsigned char *p, size_t len,
                             const int32_t **ids, size_t *n) {
    CutMerge *g = ctx;
    int err = 0;
    size_t k = pipe_tokenize(g->m, &g->x, (const char *)p, len, &err);
    if (k == (size_t)-1) return err == PIPE_WORD_TOO_LONG ? PIPE_INVALID : PIPE_NOMEM;
    *ids = g->x.sym;
    *n = k;
    return 0;
}

/* a tokenizer.json model's Cutter: between two characters no token holds next to each
   other, but for two characters that are no token (their <unk>s may fuse). As
   SentencePiece's, it finds its segment's first character read (cut_at_init: the
   text's). */
typedef struct {
    const PipeModel *m;
    int fuse;
    size_t k;      /* the bytes of the character at the next call's start */
    uint32_t cp;   /* that character */
} CutAt;

static inline void cut_at_init(CutAt *c, const unsigned char *s, size_t n) {
    c->k = n ? cm_char_len(s[0]) : 0;
    if (c->k > n) c->k = n;
    c->cp = n ? cm_decode(s, c->k) : 0;
}

BPE_FORCE_INLINE size_t cut_next(void *self, const unsigned char *s, size_t n, size_t start) {
    CutAt *c = self;
    const PipeModel *m = c->m;
    size_t i = start, pk = start, k = c->k;
    uint32_t prev = c->cp;
    for (i += k; i < n; pk = i, i += k) {
        k = cm_char_len(s[i]);
        if (i + k > n) k = n - i;
        uint32_t cp = cm_decode(s + i, k);
        if (can_cut(m->cut, prev, cp) &&
            !(c->fuse && find_key(m, (const char *)s + i, k) < 0 &&
              find_key(m, (const char *)s + pk, i - pk) < 0)) {
            c->k = k;
            c->cp = cp;
            return i;
        }
        prev = cp;
    }
    return n;
}

static int cut_emit(void *ctx, const int32_t *ids, size_t ni) {
    int rc;
    for (size_t j = 0; j < ni; j++)
        if ((rc = out_put(ctx, ids[j], 0, 0, 0)) < 0) return rc;
    return 0;
}

int pipe_encode_cut(const PipeModel *m, const unsigned char *s, size_t n, SpmOut *out) {
    CutMerge g = {m, {0}};
    g.x.kept = n >= (1u << 16); /* a long text: the 1 MB memo of pair ranks pays */
    SegCache sc;
    int rc = seg_cache_init(&sc, n, NULL);
    if (rc < 0) goto done;
    /* a character that is no token becomes <unk> only when it has no byte-fallback
       tokens; only then may two such characters fuse into one <unk> across a cut */
    CutAt at = {m, m->unk_id != NONE_ID && m->fuse_unk, 0, 0};
    if (at.fuse && m->byte_fallback) {
        at.fuse = 0;
        for (int b = 0; b < 256; b++)
            if (m->fb[b] == NONE_ID) at.fuse = 1;
    }
    cut_at_init(&at, s, n);
    Cutter cut = {cut_next, &at};
    rc = segment_encode(cut, &sc, cut_merge_segment, &g, cut_emit, out, s, n);
done:
    ms_free(&g.x);
    seg_cache_free(&sc);
    return rc;
}
