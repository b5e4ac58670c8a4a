/*
 * pipe_tables.c -- the keys and ids of an imported tokenizer (see pipeline.h): an arena
 * of key bytes, a hash from key to id, the merge list, GPT-2's byte alphabet.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "imported/pipeline.h"
#include "util/hash.h"

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

static int arena_put(Model *m, const char *p, size_t n, int64_t *off) {
    if (m->arena_len + n > m->arena_cap) {
        size_t cap = m->arena_cap ? m->arena_cap : 1 << 16;
        while (cap < m->arena_len + n) cap *= 2;
        char *a = PyMem_Realloc(m->arena, cap);
        if (!a) {
            PyErr_NoMemory();
            return -1;
        }
        m->arena = a;
        m->arena_cap = cap;
    }
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
int32_t find_key(const Model *m, const char *p, size_t n) {
    if (!m->n_slots) return NONE_ID;
    uint64_t h = bpe_hash_bytes(p, n), bit = KF_BIT(h);
    if (!(m->kfilter[bit >> 6] >> (bit & 63) & 1)) return NONE_ID;
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

/* Put entry i (a key looked up) into the slots and the filter (room is the caller's). */
void insert_slot(Model *m, size_t i) {
    const Entry *en = &m->entries[i];
    uint64_t h = bpe_hash_bytes(m->arena + en->off, (size_t)en->len), bit = KF_BIT(h);
    m->kfilter[bit >> 6] |= 1ull << (bit & 63);
    size_t s = h & (m->n_slots - 1);
    while (m->slots[s]) s = (s + 1) & (m->n_slots - 1);
    m->slots[s] = (h >> 32) << 32 | (uint64_t)(i + 1);
}

/* Add a key for an id. Returns 1 if added, 0 if that key already names an id, -1 on error. */
int add_key(Model *m, const char *p, size_t n, int32_t id, int lookup) {
    if (n > INT32_MAX) { /* Entry.len is int32 */
        PyErr_SetString(PyExc_ValueError, "a token of 2 GiB or more");
        return -1;
    }
    if (lookup && find_key(m, p, n) != NONE_ID) return 0;
    if (m->n_entries == m->entries_cap) {
        size_t cap = m->entries_cap ? m->entries_cap * 2 : 1024;
        Entry *e = PyMem_Realloc(m->entries, cap * sizeof(Entry));
        if (!e) {
            PyErr_NoMemory();
            return -1;
        }
        m->entries = e;
        m->entries_cap = cap;
    }
    Entry *en = &m->entries[m->n_entries];
    if (arena_put(m, p, n, &en->off) < 0) return -1;
    en->len = (int32_t)n;
    en->id = id;
    en->lookup = lookup;
    if (lookup && n > m->max_key) m->max_key = n;
    if (m->first_entry[id] < 0) m->first_entry[id] = (int32_t)m->n_entries;
    m->n_entries++;
    return 1;
}

int build_slots(Model *m) {
    size_t n = 1024;
    while (n < 2 * m->n_entries + 2) n *= 2;
    PyMem_Free(m->slots);
    m->slots = PyMem_Calloc(n, sizeof(uint64_t));
    if (!m->kfilter) m->kfilter = PyMem_Calloc(KF_BITS / 64, sizeof(uint64_t));
    if (!m->slots || !m->kfilter) {
        PyErr_NoMemory();
        return -1;
    }
    m->n_slots = n;
    for (size_t i = 0; i < m->n_entries; i++)
        if (m->entries[i].lookup) insert_slot(m, i);
    return 0;
}

int set_ids(Model *m, Py_ssize_t n_ids) {
    m->n_ids = n_ids;
    m->first_entry = PyMem_Malloc((size_t)(n_ids ? n_ids : 1) * sizeof(int32_t));
    if (!m->first_entry) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n_ids; i++) m->first_entry[i] = -1;
    return 0;
}

int push_merge(Model *m, int32_t a, int32_t b, int32_t new_id) {
    if (m->n_merges == m->merges_cap) {
        Py_ssize_t cap = m->merges_cap ? m->merges_cap * 2 : 4096;
        int32_t *pa = PyMem_Realloc(m->merge_a, (size_t)cap * sizeof(int32_t));
        if (!pa) goto nomem;
        m->merge_a = pa;
        int32_t *pb = PyMem_Realloc(m->merge_b, (size_t)cap * sizeof(int32_t));
        if (!pb) goto nomem;
        m->merge_b = pb;
        int32_t *pn = PyMem_Realloc(m->merge_new, (size_t)cap * sizeof(int32_t));
        if (!pn) goto nomem;
        m->merge_new = pn;
        m->merges_cap = cap;
    }
    m->merge_a[m->n_merges] = a;
    m->merge_b[m->n_merges] = b;
    m->merge_new[m->n_merges] = new_id;
    m->n_merges++;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

Model *new_model(int kind) {
    Model *m = (Model *)ModelType.tp_alloc(&ModelType, 0);
    if (!m) return NULL;
    m->kind = kind;
    m->unk_id = NONE_ID;
    for (int i = 0; i < 256; i++) m->fb[i] = m->unit[i] = NONE_ID;
    return m;
}

static void fill_units(Model *m) {
    for (int b = 0; b < 256; b++) {
        char c = (char)b;
        m->unit[b] = find_key(m, &c, 1);
    }
}

/* the merge engine's view of the keys: the id of some bytes, or -1 */
static int32_t model_key(const void *ctx, const unsigned char *p, size_t n) {
    return find_key((const Model *)ctx, (const char *)p, n);
}

/* After the vocabulary, before the merges (HF): the merge table. 0 or -1. */
int start_merges(Model *m) {
    fill_units(m);
    if (mt_init(&m->mt, m->unit) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return mt_set_keys(&m->mt, model_key, m, m->max_key, 0, 0);
}

/* HF: merge `rank` makes new_id of (a, b); a later merge of a pair replaces an earlier
   one (tokenizers builds a map). 0 or -1. */
int add_merge(Model *m, int32_t a, int32_t b, int32_t rank, int32_t new_id) {
    int rc = mt_add(&m->mt, a, b, rank, new_id, 1);
    if (rc == -1) {
        PyErr_NoMemory();
        return -1;
    }
    if (rc == -2) {
        PyErr_Format(PyExc_ValueError, "more than %d merges", MT_MAX_RANK);
        return -1;
    }
    return push_merge(m, a, b, new_id);
}

/* After the ranks (TIKTOKEN): the pair of two symbols is ranked by its bytes together
   (by_span), a piece that is a token is taken whole (whole_words). 0 or -1. */
int finish_tiktoken(Model *m) {
    fill_units(m);
    if (mt_init(&m->mt, m->unit) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (mt_set_keys(&m->mt, model_key, m, m->max_key, 1, 1) < 0) return -1;
    /* the cut tables: without memory for them words are merged whole, ids the same */
    for (size_t e = 0; e < m->n_entries; e++)
        if (mt_add_token(&m->mt, (const unsigned char *)m->arena + m->entries[e].off,
                         (size_t)m->entries[e].len) < 0)
            break;
    return 0;
}

PyObject *problem(Model *m, const char *where, Py_ssize_t index, PyObject *msg) {
    if (!msg) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *r = Py_BuildValue("(N(snN))", (PyObject *)m, where, index, msg);
    return r;
}

