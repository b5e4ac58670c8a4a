/*
 * pipe_tables.c -- the keys and ids of an imported tokenizer (see pipeline.h): an arena
 * of key bytes, a hash from key to id, the merge list, GPT-2's byte alphabet; keys as
 * the file spells them; the configuration.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, posix_memalign under -std=c99 (util/huge.h) */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imported/pipeline.h"
#include "util/huge.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/portable.h"

/* ---- GPT-2's byte <-> unicode alphabet --------------------------------------------- */

int32_t byte_to_cp[256];
int32_t cp_to_byte[512];

void init_alphabet(void) {
    int n = 0;
    for (int i = 0; i < 512; i++) cp_to_byte[i] = -1;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        byte_to_cp[b] = printable ? b : 256 + n++;
        cp_to_byte[byte_to_cp[b]] = b;
    }
}

/* ---- storage ---------------------------------------------------------------------- */

static int arena_put(PipeModel *m, const char *p, size_t n, int64_t *off) {
    if (bpe_grow((void **)&m->arena, &m->arena_cap, m->arena_len + n, 1, 1 << 16) < 0)
        return PIPE_NOMEM;
    memcpy(m->arena + m->arena_len, p, n);
    *off = (int64_t)m->arena_len;
    m->arena_len += n;
    return 0;
}

#define KF_BITS (1u << 21) /* the key filter's bits (256 KB) */
#define KF_BIT(h) (((h) >> 21) & (KF_BITS - 1))

/* Most lookups while merging are of byte spans that are no token: the filter (in cache)
   answers those; a slot holds its key's hash tag, so a probe reads an entry only when the
   tags agree. */
static inline int32_t find_hashed(const PipeModel *m, const char *p, size_t n, uint64_t h) {
    uint32_t tag = (uint32_t)(h >> 32);
    size_t s = h & (m->n_slots - 1);
    for (;;) {
        uint64_t v = m->slots[s];
        if (!v) return NONE_ID;
        if ((uint32_t)(v >> 32) == tag) {
            const Entry *en = &m->entries[(uint32_t)v - 1];
            if ((size_t)en->len == n && memcmp(m->arena + en->off, p, n) == 0) return en->id;
        }
        s = (s + 1) & (m->n_slots - 1);
    }
}

int32_t find_key(const PipeModel *m, const char *p, size_t n) {
    if (!m->n_slots) return NONE_ID;
    uint64_t h = bpe_hash_bytes(p, n), bit = KF_BIT(h);
    if (!(m->kfilter[bit >> 6] >> (bit & 63) & 1)) return NONE_ID;
    return find_hashed(m, p, n, h);
}

#define PREFETCH(a) BPE_PREFETCH(a)
#define FIND_MAX 128

/* Each key's slot, then its entry, then its bytes are asked of memory for all the keys
   before the first is read (one at a time, each lookup waits for the three in turn);
   then each is found as find_key finds it (without the filter: a loader's keys are
   mostly there). */
void find_keys(const PipeModel *m, size_t k, const char *const *p, const size_t *n,
               int32_t *out) {
    if (k > FIND_MAX) {
        find_keys(m, FIND_MAX, p, n, out);
        find_keys(m, k - FIND_MAX, p + FIND_MAX, n + FIND_MAX, out + FIND_MAX);
        return;
    }
    uint64_t h[FIND_MAX];
    const Entry *en[FIND_MAX];
    if (!m->n_slots) {
        for (size_t j = 0; j < k; j++) out[j] = NONE_ID;
        return;
    }
    for (size_t j = 0; j < k; j++) {
        h[j] = bpe_hash_bytes(p[j], n[j]);
        PREFETCH(&m->slots[h[j] & (m->n_slots - 1)]);
    }
    for (size_t j = 0; j < k; j++) {
        uint64_t v = m->slots[h[j] & (m->n_slots - 1)];
        en[j] = v && (uint32_t)(v >> 32) == (uint32_t)(h[j] >> 32) ?
                &m->entries[(uint32_t)v - 1] : NULL;
        if (en[j]) PREFETCH(en[j]);
    }
    for (size_t j = 0; j < k; j++)
        if (en[j]) PREFETCH(m->arena + en[j]->off);
    for (size_t j = 0; j < k; j++) out[j] = find_hashed(m, p[j], n[j], h[j]);
}

/* Put entry i (a key looked up) into the slots and the filter (room is the caller's). */
void insert_slot(PipeModel *m, size_t i) {
    const Entry *en = &m->entries[i];
    uint64_t h = bpe_hash_bytes(m->arena + en->off, (size_t)en->len), bit = KF_BIT(h);
    m->kfilter[bit >> 6] |= 1ull << (bit & 63);
    size_t s = h & (m->n_slots - 1);
    while (m->slots[s]) s = (s + 1) & (m->n_slots - 1);
    m->slots[s] = (h >> 32) << 32 | (uint64_t)(i + 1);
}

/* Add a key for an id. Returns 1 if added, 0 if that key already names an id, or an error. */
/* Room for one more entry of n bytes (m->n_entries is its index), listed among the
 * shown keys if it is not looked up; 0, or an error. */
static int entry_room(PipeModel *m, size_t n, int lookup) {
    if (n > INT32_MAX) { /* Entry.len is int32 */
        snprintf(m->error, sizeof m->error, "a token of 2 GiB or more");
        return PIPE_INVALID;
    }
    if (bpe_grow((void **)&m->entries, &m->entries_cap, m->n_entries + 1, sizeof(Entry), 1024) < 0)
        return PIPE_NOMEM;
    /* the few keys only shown, listed: text_id's fallback reads them instead of every
     * entry (257 calls over Llama 3's 128k entries took 30-70 ms of its load) */
    if (!lookup) {
        if (bpe_grow((void **)&m->shown, &m->shown_cap, m->n_shown + 1, sizeof(size_t), 16) < 0)
            return PIPE_NOMEM;
        m->shown[m->n_shown++] = m->n_entries;
    }
    return 0;
}

int add_key(PipeModel *m, const char *p, size_t n, int32_t id, int lookup) {
    if (n <= INT32_MAX && lookup && find_key(m, p, n) != NONE_ID) return 0;
    int rc = entry_room(m, n, lookup);
    if (rc < 0) return rc;
    Entry *en = &m->entries[m->n_entries];
    if (arena_put(m, p, n, &en->off) < 0) return PIPE_NOMEM;
    en->len = (int32_t)n;
    en->id = id;
    en->lookup = lookup;
    if (lookup && n > m->max_key) m->max_key = n;
    if (m->first_entry[id] < 0) m->first_entry[id] = (int32_t)m->n_entries;
    m->n_entries++;
    return 1;
}

int add_key_at_end(PipeModel *m, size_t n, int32_t id, int lookup) {
    int rc = entry_room(m, n, lookup);
    if (rc < 0) return rc;
    Entry *en = &m->entries[m->n_entries++];
    en->off = (int64_t)m->arena_len;
    en->len = (int32_t)n;
    en->id = id;
    en->lookup = lookup;
    m->arena_len += n;
    if (lookup && n > m->max_key) m->max_key = n;
    return 1;
}

int set_ids_from_entries(PipeModel *m, ptrdiff_t n_ids) {
    if (m->arena_cap > m->arena_len + (1 << 16)) { /* give back what was reserved ahead */
        char *a = realloc(m->arena, m->arena_len ? m->arena_len : 1);
        if (a) {
            m->arena = a;
            m->arena_cap = m->arena_len ? m->arena_len : 1;
        }
    }
    int rc = set_ids(m, n_ids);
    if (rc < 0) return rc;
    for (size_t e = 0; e < m->n_entries; e++)
        if (m->first_entry[m->entries[e].id] < 0) m->first_entry[m->entries[e].id] = (int32_t)e;
    return 0;
}

int build_slots(PipeModel *m) {
    size_t n = 1024;
    while (n < 2 * m->n_entries + 2) n *= 2;
    free(m->slots);
    m->slots = bpe_calloc_huge(n, sizeof(uint64_t));
    if (!m->kfilter) m->kfilter = calloc(KF_BITS / 64, sizeof(uint64_t));
    if (!m->slots || !m->kfilter) return PIPE_NOMEM;
    m->n_slots = n;
    for (size_t i = 0; i < m->n_entries; i++)
        if (m->entries[i].lookup) insert_slot(m, i);
    return 0;
}

int set_ids(PipeModel *m, ptrdiff_t n_ids) {
    m->n_ids = n_ids;
    m->first_entry = malloc((size_t)(n_ids ? n_ids : 1) * sizeof(int32_t));
    if (!m->first_entry) return PIPE_NOMEM;
    for (ptrdiff_t i = 0; i < n_ids; i++) m->first_entry[i] = -1;
    return 0;
}

int push_merge(PipeModel *m, int32_t a, int32_t b, int32_t new_id) {
    if ((size_t)m->n_merges == m->merges_cap) {
        /* three arrays of one capacity: each grows to the same size */
        size_t need = m->merges_cap + 1, cap_a = m->merges_cap, cap_b = cap_a, cap_n = cap_a;
        if (bpe_grow((void **)&m->merge_a, &cap_a, need, sizeof(int32_t), 4096) < 0 ||
            bpe_grow((void **)&m->merge_b, &cap_b, need, sizeof(int32_t), 4096) < 0 ||
            bpe_grow((void **)&m->merge_new, &cap_n, need, sizeof(int32_t), 4096) < 0)
            return PIPE_NOMEM;
        m->merges_cap = cap_a;
    }
    m->merge_a[m->n_merges] = a;
    m->merge_b[m->n_merges] = b;
    m->merge_new[m->n_merges] = new_id;
    m->n_merges++;
    return 0;
}

void pipe_init(PipeModel *m, int kind) {
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->unk_id = NONE_ID;
    for (int i = 0; i < 256; i++) m->fb[i] = m->unit[i] = NONE_ID;
}

void pipe_free(PipeModel *m) {
    if (m->free_spm) m->free_spm(m);
    free(m->arena);
    free(m->entries);
    free(m->first_entry);
    free(m->slots);
    free(m->shown);
    free(m->kfilter);
    mt_free(&m->mt);
    free(m->merge_a);
    free(m->merge_b);
    free(m->merge_new);
    memset(m, 0, sizeof *m);
}

static void fill_units(PipeModel *m) {
    for (int b = 0; b < 256; b++) {
        char c = (char)b;
        m->unit[b] = find_key(m, &c, 1);
    }
    m->unit_entries = m->n_entries;
}

/* the merge engine's view of the keys: the id of some bytes, or -1 */
static int32_t model_key(const void *ctx, const unsigned char *p, size_t n) {
    return find_key((const PipeModel *)ctx, (const char *)p, n);
}

/* After the vocabulary, before the merges (HF): the merge table. A ByteLevel model also
   gets the cut tables (token_boundaries.c): every merge makes a token of the vocabulary whose
   bytes are its two parts' (the loader checks it), so no merge joins two sides of a
   place no token crosses, and long non-ASCII words (Chinese clauses) are cut there. */
int start_merges(PipeModel *m) {
    fill_units(m);
    if (mt_init(&m->mt, m->unit) < 0) return PIPE_NOMEM;
    if (mt_set_keys(&m->mt, model_key, m, m->max_key, 0, 0) < 0) return PIPE_NOMEM;
    if (m->byte_level)
        for (size_t e = 0; e < m->n_entries; e++)
            if (m->entries[e].lookup &&
                mt_add_token(&m->mt, (const unsigned char *)m->arena + m->entries[e].off,
                             (size_t)m->entries[e].len, -1) < 0)
                break; /* no memory for them: words are merged whole, ids the same */
    return 0;
}

/* HF: merge `rank` makes new_id of (a, b); a later merge of a pair replaces an earlier
   one (tokenizers builds a map). */
int add_merge_only(PipeModel *m, int32_t a, int32_t b, int32_t rank, int32_t new_id) {
    int rc = mt_add(&m->mt, a, b, rank, new_id, 1);
    if (rc == -1) return PIPE_NOMEM;
    if (rc == -2) {
        snprintf(m->error, sizeof m->error, "more than %d merges", MT_MAX_RANK);
        return PIPE_INVALID;
    }
    return 0;
}

int add_merge(PipeModel *m, int32_t a, int32_t b, int32_t rank, int32_t new_id) {
    int rc = add_merge_only(m, a, b, rank, new_id);
    return rc < 0 ? rc : push_merge(m, a, b, new_id);
}

/* After the ranks (TIKTOKEN): the pair of two symbols is ranked by its bytes together
   (by_span), a piece that is a token is taken whole (whole_words). */
int finish_tiktoken(PipeModel *m) {
    fill_units(m);
    if (mt_init(&m->mt, m->unit) < 0) return PIPE_NOMEM;
    if (mt_set_keys(&m->mt, model_key, m, m->max_key, 1, 1) < 0) return PIPE_NOMEM;
    /* the cut tables and the short keys: without memory for them words are merged
       whole and keys found by hashing their bytes, ids the same (an entry never looked
       up, Whisper's empty token, is in neither) */
    int cut = 1, shorts = 1;
    for (size_t e = 0; e < m->n_entries && (cut || shorts); e++) {
        if (!m->entries[e].lookup)
            continue;
        const unsigned char *p = (const unsigned char *)m->arena + m->entries[e].off;
        size_t len = (size_t)m->entries[e].len;
        if (cut && mt_add_token(&m->mt, p, len, m->entries[e].id) < 0)
            cut = 0;
        if (shorts && mt_add_short_key(&m->mt, p, len, m->entries[e].id) < 0)
            shorts = 0;
    }
    return 0;
}

/* ---- configuration ------------------------------------------------------------------ */

void pipe_configure(PipeModel *m, int ignore_merges, int byte_fallback, int unk_id,
                    int fuse_unk) {
    m->ignore_merges = ignore_merges;
    m->byte_fallback = byte_fallback;
    m->fuse_unk = fuse_unk;
    m->unk_id = (unk_id >= 0 && unk_id < m->n_ids) ? unk_id : NONE_ID;
    if (m->kind == KIND_HF)
        m->mt.whole_words = ignore_merges;
    for (int b = 0; b < 256; b++) {
        char key[8];
        snprintf(key, sizeof key, "<0x%02X>", b);
        m->fb[b] = byte_fallback ? find_key(m, key, 6) : NONE_ID;
    }
}

int pipe_set_suffix(PipeModel *m, const char *p, size_t n) {
    if (n > 60) {
        snprintf(m->error, sizeof m->error, "an end_of_word_suffix of more than 60 bytes");
        return PIPE_INVALID;
    }
    memcpy(m->eow, p, n);
    m->eow_len = n;
    for (int b = 0; b < 256; b++) {
        char key[64 + 1];
        key[0] = (char)b;
        memcpy(key + 1, p, n);
        m->eow_unit[b] = n ? find_key(m, key, n + 1) : m->unit[b];
    }
    return 0;
}

/* ---- keys as the file spells them, and as they are shown ------------------------------ */

/* A ByteLevel key's UTF-8 text -> the bytes it stands for (out: room for n), or -1 if a
   character is not in GPT-2's alphabet. */
ptrdiff_t utf8_byte_level(const char *p, size_t n, char *out) {
    ptrdiff_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)p[i];
        uint32_t cp;
        if (c < 0x80) { cp = c; i += 1; }
        else if (c < 0xE0 && i + 1 < n) { cp = (uint32_t)(c & 31) << 6 | (p[i + 1] & 63); i += 2; }
        else return -1; /* the alphabet stops at U+0143: two bytes at most */
        if (cp >= 512 || cp_to_byte[cp] < 0) return -1;
        out[o++] = (char)cp_to_byte[cp];
    }
    return o;
}

#define BYTE_LEVEL_LOOP(T)                                     \
    for (size_t i = 0; i < n; i++) {                           \
        uint32_t c = ((const T *)data)[i];                     \
        if (c >= 512 || cp_to_byte[c] < 0) return -1;          \
        out[i] = (char)cp_to_byte[c];                          \
    }

ptrdiff_t chars_byte_level(int kind, const void *data, size_t n, char *out, size_t cap) {
    if (n > cap) return -1;
    if (kind == 1) BYTE_LEVEL_LOOP(uint8_t)
    else if (kind == 2) BYTE_LEVEL_LOOP(uint16_t)
    else BYTE_LEVEL_LOOP(uint32_t)
    return (ptrdiff_t)n;
}

int32_t text_key_id(const PipeModel *m, const char *p, size_t n, char *tmp) {
    if (m->byte_level) {
        ptrdiff_t k = utf8_byte_level(p, n, tmp);
        return k < 0 ? NONE_ID : find_key(m, tmp, (size_t)k);
    }
    return find_key(m, p, n);
}

int text_id(const PipeModel *m, const char *p, size_t n, int32_t *out) {
    char *tmp = malloc(n + 1);
    if (!tmp) return PIPE_NOMEM;
    int32_t id = text_key_id(m, p, n, tmp);
    free(tmp);
    if (id == NONE_ID) /* keys only shown (not ByteLevel text): compare their UTF-8 */
        for (size_t k = 0; k < m->n_shown; k++) {
            const Entry *en = &m->entries[m->shown[k]];
            if ((size_t)en->len == n && memcmp(m->arena + en->off, p, n) == 0) {
                id = en->id;
                break;
            }
        }
    *out = id;
    return 0;
}

ptrdiff_t shown_bytes(const PipeModel *m, const Entry *en, const char *rep, ptrdiff_t rep_len,
                      int byte_fallback, char *out, ptrdiff_t cap) {
    const char *p = m->arena + en->off;
    ptrdiff_t n = en->len;
    if (m->kind == KIND_HF && !m->byte_level) {
        if (byte_fallback && n == 6 && memcmp(p, "<0x", 3) == 0 && p[5] == '>') {
            int hi = p[3], lo = p[4];
            int h = hi >= '0' && hi <= '9' ? hi - '0' : hi >= 'A' && hi <= 'F' ? hi - 'A' + 10 : -1;
            int l = lo >= '0' && lo <= '9' ? lo - '0' : lo >= 'A' && lo <= 'F' ? lo - 'A' + 10 : -1;
            if (h >= 0 && l >= 0) {
                out[0] = (char)(h * 16 + l);
                return 1;
            }
        }
        if (rep_len > 0) {
            ptrdiff_t o = 0;
            for (ptrdiff_t i = 0; i < n;) {
                if (i + rep_len <= n && memcmp(p + i, rep, (size_t)rep_len) == 0) {
                    if (o < cap) out[o++] = ' ';
                    i += rep_len;
                } else {
                    if (o < cap) out[o++] = p[i];
                    i++;
                }
            }
            return o <= cap ? o : -1;
        }
    }
    if (n > cap) return -1;
    memcpy(out, p, (size_t)n);
    return n;
}

int pipe_problem(PipeProblem *pr, int kind, const char *where, ptrdiff_t i, const char *what,
                 const char *s0, size_t n0, const char *s1, size_t n1, const char *s2, size_t n2) {
    memset(pr, 0, sizeof *pr);
    pr->kind = kind;
    pr->where = where;
    pr->index = i;
    pr->what = what;
    pr->owned = malloc(n0 + n1 + n2 + 1);
    if (!pr->owned) return PIPE_NOMEM;
    const char *src[3] = {s0, s1, s2};
    size_t len[3] = {n0, n1, n2}, off = 0;
    for (int k = 0; k < 3; k++) {
        if (len[k]) memcpy(pr->owned + off, src[k], len[k]);
        pr->span[k] = pr->owned + off;
        pr->span_len[k] = len[k];
        off += len[k];
    }
    return 1;
}

void pipe_problem_free(PipeProblem *pr) {
    free(pr->owned);
    pr->owned = NULL;
}

int pipe_problem_words(const PipeProblem *pr, char *fmt, size_t cap, int arg[3]) {
    int k = 0;
    switch (pr->kind) {
    case PP_BASE64:
        snprintf(fmt, cap, "%%R is not valid base64 (or is empty)");
        arg[k++] = 0;
        break;
    case PP_RANK_TAKEN:
        snprintf(fmt, cap, "rank %lld was already given to another token", (long long)pr->num);
        break;
    case PP_TOKEN_TAKEN:
        snprintf(fmt, cap, "%%R was already given rank %d", (int)pr->num);
        arg[k++] = 0;
        break;
    case PP_PARTS:
        snprintf(fmt, cap, "each line must be 'BASE64 RANK' (token bytes in base64, one space, "
                 "a whole number); this line has %d part(s)", (int)pr->num);
        break;
    case PP_RANK_NOT_NUMBER:
        snprintf(fmt, cap, "the rank is not a whole number");
        break;
    case PP_NOT_IN_VOCAB:
        snprintf(fmt, cap, "the %s %%R of the merge %%R %%R is not in the vocabulary", pr->what);
        for (; k < 3; k++) arg[k] = k | PP_AS_TEXT;
        break;
    case PP_BAD_MERGE:
        snprintf(fmt, cap, "the merge %%R should be \"left right\" or [\"left\", \"right\"]");
        arg[k++] = 0 | PP_AS_TEXT;
        break;
    case PP_NOT_UTF8:
        snprintf(fmt, cap, "token %lld is not UTF-8 text (it starts %%R)", (long long)pr->index);
        arg[k++] = 0;
        break;
    default:
        return -1;
    }
    return k;
}

ptrdiff_t pipe_n_tokens(const PipeModel *m) {
    ptrdiff_t k = 0;
    for (ptrdiff_t id = 0; id < m->n_ids; id++) k += m->first_entry[id] >= 0;
    return k;
}

int pipe_shown_all(const PipeModel *m, const char *rep, ptrdiff_t rep_len, int byte_fallback,
                   char **bytes, size_t **off, int32_t **ids, size_t *k) {
    /* shown bytes are at most the key's (a byte's <0xNN>, a ByteLevel character and the
       replacement character each become one byte): one block the keys' size holds them */
    size_t nt = 0, room = 1, used = 0, j = 0;
    for (ptrdiff_t id = 0; id < m->n_ids; id++)
        if (m->first_entry[id] >= 0) nt++, room += (size_t)m->entries[m->first_entry[id]].len;
    *bytes = malloc(room);
    *off = malloc((nt + 1) * sizeof(size_t));
    *ids = malloc((nt ? nt : 1) * sizeof(int32_t));
    if (!*bytes || !*off || !*ids) {
        free(*bytes), free(*off), free(*ids);
        *bytes = NULL, *off = NULL, *ids = NULL;
        return PIPE_NOMEM;
    }
    for (ptrdiff_t id = 0; id < m->n_ids; id++) {
        int32_t e = m->first_entry[id];
        if (e < 0) continue;
        ptrdiff_t n = shown_bytes(m, &m->entries[e], rep, rep_len, byte_fallback, *bytes + used,
                                  (ptrdiff_t)(room - used));
        (*off)[j] = used;
        (*ids)[j++] = (int32_t)id;
        used += n < 0 ? 0 : (size_t)n;
    }
    (*off)[j] = used;
    *k = j;
    return 0;
}

const char *pipe_key(const PipeModel *m, int64_t id, size_t *n) {
    if (id < 0 || id >= m->n_ids || m->first_entry[id] < 0) return NULL;
    const Entry *en = &m->entries[m->first_entry[id]];
    *n = (size_t)en->len;
    return m->arena + en->off;
}

char *key_text(const PipeModel *m, int64_t id, size_t *n) {
    if (id < 0 || id >= m->n_ids || m->first_entry[id] < 0) return NULL;
    const Entry *en = &m->entries[m->first_entry[id]];
    const unsigned char *p = (const unsigned char *)m->arena + en->off;
    char *out = malloc(2 * (size_t)en->len + 1); /* (GPT-2's alphabet: below U+0800) */
    if (!out) return NULL;
    if (!(m->kind == KIND_HF && m->byte_level && en->lookup)) {
        memcpy(out, p, (size_t)en->len);
        *n = (size_t)en->len;
        return out;
    }
    size_t k = 0;
    for (int32_t i = 0; i < en->len; i++) {
        uint32_t c = (uint32_t)byte_to_cp[p[i]];
        if (c < 0x80) {
            out[k++] = (char)c;
        } else {
            out[k++] = (char)(0xC0 | c >> 6);
            out[k++] = (char)(0x80 | (c & 0x3F));
        }
    }
    *n = k;
    return out;
}
