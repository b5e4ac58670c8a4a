/*
 * bpe_gui.engine._pipeline -- the tables of an imported tokenizer, built and run in C.
 *
 * A published tokenizer has 100k-260k tokens and up to 300k merges. Loading one must
 * take no longer than its own library takes (tokenizers, tiktoken), so the work per
 * entry -- decoding a key, hashing it, resolving a merge to ids, base64 -- happens here
 * in one pass, with no Python object per entry until someone asks for one.
 *
 * Two kinds of model, as their own libraries run them:
 *   HF        merges are (left id, right id) -> (rank, new id); in a word, the pair of
 *             lowest rank is merged, the leftmost one first, one pair at a time (the
 *             order of tokenizers' heap). ignore_merges: a word that is itself a token
 *             becomes that token. Units are bytes (ByteLevel) or UTF-8 characters, with
 *             byte fallback (<0xNN> tokens) and an optional (fused) unknown token.
 *   TIKTOKEN  no merge list: the adjacent pair whose *concatenated bytes* have the lowest
 *             rank is merged (leftmost on ties), and a word that is a token is taken
 *             whole, as tiktoken's CoreBPE does.
 *
 * Python API
 * ----------
 *   Model.from_hf(vocab: dict[str, int], merges: list, byte_level: bool) -> (Model, problem)
 *   Model.from_tiktoken(data: bytes) -> (Model, problem)
 *       problem: None, or (where, index, message); where is "vocab", "merges" or "line"
 *   m.configure(ignore_merges, byte_fallback, unk_id, fuse_unk)
 *   m.tables(replacement: str | None, byte_fallback: bool) -> (id -> bytes, bytes -> id)
 *       the bytes each token stands for: ByteLevel keys decoded, <0xNN> as that byte,
 *       the Metaspace replacement character as a space
 *   m.id_of(key: bytes) -> int (-1 if absent);  m.key(id) -> bytes | None
 *   m.tokenize(word: str) -> (ids, starts, ends)   byte offsets within the word's UTF-8
 *   m.encode_words(words: list[str], cache: dict, cache_limit: int) -> list[int]
 *   m.n_ids, m.n_merges;  m.merge(k) -> (left id, right id, new id)
 *   m.rebuild() -> list of ids no merge of two lower ranks makes (TIKTOKEN: the merge
 *       list is derived on demand, only for the vocabulary browser and exports)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <ctype.h>
#include <string.h>

#include "cached_words.h"

#define KIND_HF 0
#define KIND_TIKTOKEN 1
#define NONE_ID (-1)
#define MAX_IDS (1 << 26)

typedef struct {
    uint64_t key; /* ((a << 32) | b) + 1; 0 marks an empty slot */
    int32_t rank;
    int32_t new_id;
} Pair;

typedef struct {
    int64_t off;  /* into arena */
    int32_t len;
    int32_t id;
    int32_t lookup; /* 1: a key the model looks up; 0: only shown (e.g. not ByteLevel text) */
} Entry;

typedef struct {
    int32_t id;
    int32_t start, end; /* byte offsets in the word */
} Sym;

typedef struct {
    PyObject_HEAD
    int kind, byte_level;
    Py_ssize_t n_ids;
    char *arena;
    size_t arena_len, arena_cap;
    Entry *entries;
    size_t n_entries, entries_cap;
    int32_t *first_entry; /* per id: its first entry, or -1 */
    int32_t *slots;       /* key hash: entry index + 1, or 0 */
    size_t n_slots;
    Pair *pairs;
    size_t pair_cap, n_pairs;
    int32_t *merge_a, *merge_b, *merge_new;
    Py_ssize_t n_merges, merges_cap;
    int ignore_merges, fuse_unk, byte_fallback;
    int32_t unk_id;
    int32_t fb[256];     /* <0xNN> token ids, or -1 */
    int32_t unit[256];   /* ByteLevel / tiktoken: the id of each single byte, or -1 */
    Sym *sym;
    int32_t *rk;
    size_t cap;
} Model;

static PyTypeObject ModelType;

/* ---- GPT-2's byte <-> unicode alphabet --------------------------------------------- */

static int32_t byte_to_cp[256];
static int32_t cp_to_byte[512];

static void init_alphabet(void) {
    int n = 0;
    for (int i = 0; i < 512; i++) cp_to_byte[i] = -1;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        byte_to_cp[b] = printable ? b : 256 + n++;
        cp_to_byte[byte_to_cp[b]] = b;
    }
}

/* ---- storage ---------------------------------------------------------------------- */

static uint64_t hash_bytes(const char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    /* FNV's low bits cluster for short keys that differ in one byte: mix them all in */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

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

static int32_t find_key(const Model *m, const char *p, size_t n) {
    if (!m->n_slots) return NONE_ID;
    size_t s = hash_bytes(p, n) & (m->n_slots - 1);
    for (;;) {
        int32_t e = m->slots[s];
        if (!e) return NONE_ID;
        const Entry *en = &m->entries[e - 1];
        if ((size_t)en->len == n && memcmp(m->arena + en->off, p, n) == 0) return en->id;
        s = (s + 1) & (m->n_slots - 1);
    }
}

/* Add a key for an id. Returns 1 if added, 0 if that key already names an id, -1 on error. */
static int add_key(Model *m, const char *p, size_t n, int32_t id, int lookup) {
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
    if (m->first_entry[id] < 0) m->first_entry[id] = (int32_t)m->n_entries;
    m->n_entries++;
    return 1;
}

static int build_slots(Model *m) {
    size_t n = 1024;
    while (n < 2 * m->n_entries + 2) n *= 2;
    PyMem_Free(m->slots);
    m->slots = PyMem_Calloc(n, sizeof(int32_t));
    if (!m->slots) {
        PyErr_NoMemory();
        return -1;
    }
    m->n_slots = n;
    for (size_t i = 0; i < m->n_entries; i++) {
        const Entry *en = &m->entries[i];
        if (!en->lookup) continue;
        size_t s = hash_bytes(m->arena + en->off, (size_t)en->len) & (n - 1);
        while (m->slots[s]) s = (s + 1) & (n - 1);
        m->slots[s] = (int32_t)(i + 1);
    }
    return 0;
}

static int set_ids(Model *m, Py_ssize_t n_ids) {
    m->n_ids = n_ids;
    m->first_entry = PyMem_Malloc((size_t)(n_ids ? n_ids : 1) * sizeof(int32_t));
    if (!m->first_entry) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n_ids; i++) m->first_entry[i] = -1;
    return 0;
}

static inline size_t pair_slot(uint64_t key, size_t cap) {
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static const Pair *find_pair(const Model *m, int32_t a, int32_t b) {
    if (!m->pair_cap) return NULL;
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = pair_slot(key, m->pair_cap);
    for (;;) {
        const Pair *p = &m->pairs[s];
        if (p->key == key) return p;
        if (!p->key) return NULL;
        s = (s + 1) & (m->pair_cap - 1);
    }
}

static int grow_pairs(Model *m) {
    size_t cap = m->pair_cap ? m->pair_cap * 2 : 4096;
    Pair *tab = PyMem_Calloc(cap, sizeof(Pair));
    if (!tab) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < m->pair_cap; i++) {
        if (!m->pairs[i].key) continue;
        size_t s = pair_slot(m->pairs[i].key, cap);
        while (tab[s].key) s = (s + 1) & (cap - 1);
        tab[s] = m->pairs[i];
    }
    PyMem_Free(m->pairs);
    m->pairs = tab;
    m->pair_cap = cap;
    return 0;
}

/* A later merge of the same pair replaces the earlier one (tokenizers builds a map). */
static int put_pair(Model *m, int32_t a, int32_t b, int32_t rank, int32_t new_id) {
    if (2 * (m->n_pairs + 1) > m->pair_cap && grow_pairs(m) < 0) return -1;
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = pair_slot(key, m->pair_cap);
    while (m->pairs[s].key && m->pairs[s].key != key) s = (s + 1) & (m->pair_cap - 1);
    if (!m->pairs[s].key) m->n_pairs++;
    m->pairs[s].key = key;
    m->pairs[s].rank = rank;
    m->pairs[s].new_id = new_id;
    return 0;
}

static int push_merge(Model *m, int32_t a, int32_t b, int32_t new_id) {
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

static int reserve(Model *m, size_t n) {
    if (n <= m->cap) return 0;
    size_t cap = m->cap ? m->cap : 64;
    while (cap < n) cap *= 2;
    Sym *s = PyMem_Realloc(m->sym, cap * sizeof(Sym));
    if (!s) goto nomem;
    m->sym = s;
    int32_t *r = PyMem_Realloc(m->rk, cap * sizeof(int32_t));
    if (!r) goto nomem;
    m->rk = r;
    m->cap = cap;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

static Model *new_model(int kind) {
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

static PyObject *problem(Model *m, const char *where, Py_ssize_t index, PyObject *msg) {
    if (!msg) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *r = Py_BuildValue("(N(snN))", (PyObject *)m, where, index, msg);
    return r;
}

/* ---- loading: tokenizer.json ------------------------------------------------------ */

/* The bytes a ByteLevel key stands for; -1 if a character is not in GPT-2's alphabet. */
static Py_ssize_t byte_level_bytes(PyObject *key, char *out, Py_ssize_t cap) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (n > cap) return -1;
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 512 || cp_to_byte[c] < 0) return -1;
        out[i] = (char)cp_to_byte[c];
    }
    return n;
}

static PyObject *merge_parts(PyObject *item, PyObject **a, PyObject **b) {
    /* returns a new list/tuple-free pair of borrowed-or-new refs in *a, *b (new refs) */
    if (PyUnicode_Check(item)) {
        /* tokenizers splits on ' ' exactly (str.split() would also cut at other spaces) */
        PyObject *sep = PyUnicode_FromString(" ");
        if (!sep) return NULL;
        PyObject *parts = PyUnicode_Split(item, sep, -1);
        Py_DECREF(sep);
        if (!parts) return NULL;
        if (PyList_GET_SIZE(parts) != 2) {
            Py_DECREF(parts);
            return Py_None;
        }
        *a = PyList_GET_ITEM(parts, 0);
        *b = PyList_GET_ITEM(parts, 1);
        Py_INCREF(*a);
        Py_INCREF(*b);
        Py_DECREF(parts);
    } else if ((PyList_Check(item) || PyTuple_Check(item)) && PySequence_Size(item) == 2) {
        *a = PySequence_GetItem(item, 0);
        *b = PySequence_GetItem(item, 1);
        if (!*a || !*b) {
            Py_XDECREF(*a);
            Py_XDECREF(*b);
            return NULL;
        }
        if (!PyUnicode_Check(*a) || !PyUnicode_Check(*b)) {
            Py_DECREF(*a);
            Py_DECREF(*b);
            return Py_None;
        }
    } else {
        return Py_None;
    }
    if (PyUnicode_GET_LENGTH(*a) == 0 || PyUnicode_GET_LENGTH(*b) == 0) {
        Py_DECREF(*a);
        Py_DECREF(*b);
        return Py_None;
    }
    return item;
}

static PyObject *Model_from_hf(PyObject *cls, PyObject *args) {
    PyObject *vocab, *merges;
    int byte_level;
    (void)cls;
    if (!PyArg_ParseTuple(args, "O!O!p", &PyDict_Type, &vocab, &PyList_Type, &merges,
                          &byte_level))
        return NULL;
    Model *m = new_model(KIND_HF);
    if (!m) return NULL;
    m->byte_level = byte_level;
    PyObject *k, *v;
    Py_ssize_t pos = 0, max_id = -1;
    while (PyDict_Next(vocab, &pos, &k, &v)) {
        long id = PyLong_Check(v) && !PyBool_Check(v) ? PyLong_AsLong(v) : -1;
        if (id == -1 && PyErr_Occurred()) PyErr_Clear();
        if (!PyUnicode_Check(k) || id < 0 || id >= MAX_IDS)
            return problem(m, "vocab", pos - 1,
                           PyUnicode_FromFormat("the id %R of %R is not a whole number from 0 "
                                                "to %d", v, k, MAX_IDS - 1));
        if (id > max_id) max_id = id;
    }
    if (set_ids(m, max_id + 1) < 0) goto fail;
    char buf[1024];
    pos = 0;
    while (PyDict_Next(vocab, &pos, &k, &v)) {
        int32_t id = (int32_t)PyLong_AsLong(v);
        Py_ssize_t n = byte_level ? byte_level_bytes(k, buf, sizeof buf) : -1;
        int lookup = 1;
        const char *p = buf;
        if (n < 0) { /* UTF-8 text: a char-level key, or a ByteLevel vocab's added token */
            lookup = !byte_level;
            p = PyUnicode_AsUTF8AndSize(k, &n);
            if (!p) goto fail;
        }
        if (add_key(m, p, (size_t)n, id, lookup) < 0) goto fail;
    }
    if (build_slots(m) < 0) goto fail;
    Py_ssize_t nm = PyList_GET_SIZE(merges);
    for (Py_ssize_t i = 0; i < nm; i++) {
        PyObject *a = NULL, *b = NULL;
        PyObject *ok = merge_parts(PyList_GET_ITEM(merges, i), &a, &b);
        if (!ok) goto fail;
        if (ok == Py_None)
            return problem(m, "merges", i,
                           PyUnicode_FromFormat("the merge %R should be \"left right\" or "
                                                "[\"left\", \"right\"]",
                                                PyList_GET_ITEM(merges, i)));
        PyObject *ab = PyUnicode_Concat(a, b);
        if (!ab) {
            Py_DECREF(a);
            Py_DECREF(b);
            goto fail;
        }
        PyObject *parts[3] = {a, b, ab};
        long ids[3];
        for (int j = 0; j < 3; j++) {
            PyObject *idv = PyDict_GetItemWithError(vocab, parts[j]);
            if (!idv) {
                PyObject *msg = PyErr_Occurred() ? NULL :
                    PyUnicode_FromFormat("the %s %R of the merge %R %R is not in the vocabulary",
                                         j == 2 ? "merged token" : "token", parts[j], a, b);
                Py_DECREF(a);
                Py_DECREF(b);
                Py_DECREF(ab);
                if (!msg) goto fail;
                return problem(m, "merges", i, msg);
            }
            ids[j] = PyLong_AsLong(idv);
        }
        Py_DECREF(a);
        Py_DECREF(b);
        Py_DECREF(ab);
        if (put_pair(m, (int32_t)ids[0], (int32_t)ids[1], (int32_t)i, (int32_t)ids[2]) < 0 ||
            push_merge(m, (int32_t)ids[0], (int32_t)ids[1], (int32_t)ids[2]) < 0)
            goto fail;
    }
    fill_units(m);
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
fail:
    Py_DECREF(m);
    return NULL;
}

/* ---- loading: tokenizer.json text, without a Python object per entry --------------- */
/* Python's json module makes ~700k objects of a 128k-token file's vocab and merges (a
   third of a second); these are read from the text instead, into the tables. */

typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static int buf_put(Buf *b, const char *p, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        char *q = PyMem_Realloc(b->p, cap);
        if (!q) {
            PyErr_NoMemory();
            return -1;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

static int hex4(const char *p, const char *end, uint32_t *v) {
    if (end - p < 4) return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        *v = *v * 16 + (uint32_t)d;
    }
    return 0;
}

static size_t utf8_put(uint32_t c, char *o) {
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xC0 | c >> 6); o[1] = (char)(0x80 | (c & 63)); return 2; }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12); o[1] = (char)(0x80 | (c >> 6 & 63));
        o[2] = (char)(0x80 | (c & 63));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18); o[1] = (char)(0x80 | (c >> 12 & 63));
    o[2] = (char)(0x80 | (c >> 6 & 63)); o[3] = (char)(0x80 | (c & 63));
    return 4;
}

/* A JSON string at p (the opening quote) into b as UTF-8; returns the position after it,
   or NULL if it is not a string this reader takes (the caller falls back to json). */
static const char *read_string(const char *p, const char *end, Buf *b) {
    if (p >= end || *p != '"') return NULL;
    p++;
    b->n = 0;
    for (;;) {
        const char *q = p;
        while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20) q++;
        if (q > p && buf_put(b, p, (size_t)(q - p)) < 0) return NULL;
        if (q >= end || (unsigned char)*q < 0x20) return NULL;
        if (*q == '"') return q + 1;
        q++; /* backslash */
        if (q >= end) return NULL;
        char c = *q++, o[4];
        size_t n = 1;
        switch (c) {
        case '"': case '\\': case '/': o[0] = c; break;
        case 'b': o[0] = '\b'; break;
        case 'f': o[0] = '\f'; break;
        case 'n': o[0] = '\n'; break;
        case 'r': o[0] = '\r'; break;
        case 't': o[0] = '\t'; break;
        case 'u': {
            uint32_t v, lo;
            if (hex4(q, end, &v) < 0) return NULL;
            q += 4;
            if (v >= 0xD800 && v < 0xDC00) {
                if (end - q < 6 || q[0] != '\\' || q[1] != 'u' || hex4(q + 2, end, &lo) < 0 ||
                    lo < 0xDC00 || lo >= 0xE000)
                    return NULL; /* a lone surrogate: let json report it */
                v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                q += 6;
            } else if (v >= 0xDC00 && v < 0xE000) {
                return NULL;
            }
            n = utf8_put(v, o);
            break;
        }
        default:
            return NULL;
        }
        if (buf_put(b, o, n) < 0) return NULL;
        p = q;
    }
}

static const char *skip_value(const char *p, const char *end, Buf *scratch) {
    p = skip_ws(p, end);
    if (p >= end) return NULL;
    if (*p == '"') return read_string(p, end, scratch);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = skip_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (obj) {
                p = read_string(skip_ws(p, end), end, scratch);
                if (!p) return NULL;
                p = skip_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            p = skip_value(p, end, scratch);
            if (!p) return NULL;
            p = skip_ws(p, end);
            if (p < end && *p == ',') { p++; continue; }
            if (p < end && *p == close) return p + 1;
            return NULL;
        }
    }
    const char *q = p;
    while (q < end && (isalnum((unsigned char)*q) || *q == '-' || *q == '+' || *q == '.')) q++;
    return q > p ? q : NULL;
}

/* Spans (start, end) of model.vocab and model.merges in a tokenizer.json, or None. */
static PyObject *find_model_tables(PyObject *mod, PyObject *args) {
    Py_buffer data;
    (void)mod;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    const char *s = data.buf, *end = s + data.len, *p = s;
    Buf key = {0}, scratch = {0};
    Py_ssize_t vs = -1, ve = -1, ms = -1, me = -1;
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    p = skip_ws(p, end);
    if (p >= end || *p != '{') goto none;
    p = skip_ws(p + 1, end);
    while (p < end && *p != '}') {
        p = read_string(p, end, &key);
        if (!p) goto none;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') goto none;
        p = skip_ws(p + 1, end);
        if (key.n == 5 && memcmp(key.p, "model", 5) == 0 && p < end && *p == '{') {
            p = skip_ws(p + 1, end);
            while (p < end && *p != '}') {
                p = read_string(p, end, &key);
                if (!p) goto none;
                p = skip_ws(p, end);
                if (p >= end || *p != ':') goto none;
                p = skip_ws(p + 1, end);
                const char *v0 = p;
                p = skip_value(p, end, &scratch);
                if (!p) goto none;
                if (key.n == 5 && memcmp(key.p, "vocab", 5) == 0 && *v0 == '{') {
                    vs = v0 - s; ve = p - s;
                } else if (key.n == 6 && memcmp(key.p, "merges", 6) == 0 && *v0 == '[') {
                    ms = v0 - s; me = p - s;
                }
                p = skip_ws(p, end);
                if (p < end && *p == ',') p = skip_ws(p + 1, end);
            }
            if (p >= end) goto none;
            p++;
        } else {
            p = skip_value(p, end, &scratch);
            if (!p) goto none;
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    PyMem_Free(key.p);
    PyMem_Free(scratch.p);
    PyBuffer_Release(&data);
    if (vs < 0 || ms < 0) Py_RETURN_NONE;
    return Py_BuildValue("((nn)(nn))", vs, ve, ms, me);
none:
    if (PyErr_Occurred()) PyErr_Clear();
    PyMem_Free(key.p);
    PyMem_Free(scratch.p);
    PyBuffer_Release(&data);
    Py_RETURN_NONE;
}

/* UTF-8 text -> the key bytes a ByteLevel vocab means; -1 if not all GPT-2 alphabet. */
static Py_ssize_t utf8_byte_level(const char *p, size_t n, char *out) {
    Py_ssize_t o = 0;
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

static int32_t text_key_id(const Model *m, const char *p, size_t n, char *tmp) {
    if (m->byte_level) {
        Py_ssize_t k = utf8_byte_level(p, n, tmp);
        return k < 0 ? NONE_ID : find_key(m, tmp, (size_t)k);
    }
    return find_key(m, p, n);
}

static PyObject *text_problem(Model *m, Py_ssize_t i, const char *what, Buf *a, Buf *b,
                              const char *part, size_t part_n) {
    PyObject *sa = PyUnicode_DecodeUTF8(a->p, (Py_ssize_t)a->n, "replace");
    PyObject *sb = PyUnicode_DecodeUTF8(b->p, (Py_ssize_t)b->n, "replace");
    PyObject *sp = PyUnicode_DecodeUTF8(part, (Py_ssize_t)part_n, "replace");
    PyObject *msg = (sa && sb && sp) ?
        PyUnicode_FromFormat("the %s %R of the merge %R %R is not in the vocabulary", what, sp,
                             sa, sb) : NULL;
    Py_XDECREF(sa);
    Py_XDECREF(sb);
    Py_XDECREF(sp);
    return problem(m, "merges", i, msg);
}

/* from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) or None
   (None: something this reader does not take; use json and from_hf instead). */
static PyObject *Model_from_hf_text(PyObject *cls, PyObject *args) {
    Py_buffer data;
    Py_ssize_t vs, ve, ms, me;
    int byte_level;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*(nn)(nn)p", &data, &vs, &ve, &ms, &me, &byte_level))
        return NULL;
    const char *s = data.buf, *p, *end;
    Buf key = {0}, a = {0}, b = {0};
    char *tmp = NULL;
    Model *m = new_model(KIND_HF);
    if (!m) goto fail;
    m->byte_level = byte_level;
    /* pass 1: the largest id */
    long max_id = -1, n_keys = 0;
    for (p = skip_ws(s + vs + 1, s + ve), end = s + ve; p < end && *p != '}';) {
        p = read_string(p, end, &key);
        if (!p) goto fallback;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') goto fallback;
        p = skip_ws(p + 1, end);
        long id = 0;
        if (p >= end || *p < '0' || *p > '9') goto fallback;
        while (p < end && *p >= '0' && *p <= '9' && id < MAX_IDS) id = id * 10 + (*p++ - '0');
        if (id >= MAX_IDS || (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) goto fallback;
        if (id > max_id) max_id = id;
        n_keys++;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    if (set_ids(m, max_id + 1) < 0) goto fail;
    /* pass 2: the keys */
    for (p = skip_ws(s + vs + 1, end); p < end && *p != '}';) {
        p = read_string(p, end, &key);
        p = skip_ws(p, end);
        p = skip_ws(p + 1, end);
        long id = 0;
        while (p < end && *p >= '0' && *p <= '9') id = id * 10 + (*p++ - '0');
        int lookup = 1;
        const char *kp = key.p;
        Py_ssize_t kn = (Py_ssize_t)key.n;
        if (byte_level) {
            if (key.n > (size_t)a.cap && buf_put(&a, key.p, key.n) < 0) goto fail;
            a.n = 0;
            Py_ssize_t k = utf8_byte_level(key.p, key.n, a.p);
            if (k >= 0) { kp = a.p; kn = k; } else { lookup = 0; }
        }
        if (add_key(m, kp ? kp : "", (size_t)kn, (int32_t)id, lookup) < 0) goto fail;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    if (build_slots(m) < 0) goto fail;
    /* the merges: "a b" strings or ["a", "b"] pairs */
    Py_ssize_t i = 0;
    for (p = skip_ws(s + ms + 1, s + me), end = s + me; p < end && *p != ']'; i++) {
        if (*p == '"') {
            p = read_string(p, end, &key);
            if (!p) goto fallback;
            char *sp = key.n ? memchr(key.p, ' ', key.n) : NULL;
            if (!sp || sp == key.p || sp == key.p + key.n - 1 ||
                memchr(sp + 1, ' ', (size_t)(key.p + key.n - sp - 1)))
                goto bad_merge;
            a.n = b.n = 0;
            if (buf_put(&a, key.p, (size_t)(sp - key.p)) < 0 ||
                buf_put(&b, sp + 1, (size_t)(key.p + key.n - sp - 1)) < 0)
                goto fail;
        } else if (*p == '[') {
            p = read_string(skip_ws(p + 1, end), end, &a);
            if (!p) goto bad_merge_fb;
            p = skip_ws(p, end);
            if (p >= end || *p != ',') goto bad_merge_fb;
            p = read_string(skip_ws(p + 1, end), end, &b);
            if (!p) goto bad_merge_fb;
            p = skip_ws(p, end);
            if (p >= end || *p != ']') goto bad_merge_fb;
            p++;
            if (!a.n || !b.n) goto bad_merge;
        } else {
            goto bad_merge_fb;
        }
        tmp = PyMem_Realloc(tmp, a.n + b.n + 1);
        if (!tmp || buf_put(&key, "", 0) < 0) goto fail;
        key.n = 0;
        if (buf_put(&key, a.p, a.n) < 0 || buf_put(&key, b.p, b.n) < 0) goto fail;
        int32_t ia = text_key_id(m, a.p, a.n, tmp), ib = text_key_id(m, b.p, b.n, tmp),
                iab = text_key_id(m, key.p, key.n, tmp);
        if (ia == NONE_ID || ib == NONE_ID || iab == NONE_ID) {
            PyObject *r = ia == NONE_ID ? text_problem(m, i, "token", &a, &b, a.p, a.n) :
                          ib == NONE_ID ? text_problem(m, i, "token", &a, &b, b.p, b.n) :
                          text_problem(m, i, "merged token", &a, &b, key.p, key.n);
            m = NULL;
            PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
            PyBuffer_Release(&data);
            return r;
        }
        if (put_pair(m, ia, ib, (int32_t)i, iab) < 0 || push_merge(m, ia, ib, iab) < 0)
            goto fail;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
    }
    fill_units(m);
    PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
    PyBuffer_Release(&data);
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
bad_merge: {
        PyObject *txt = PyUnicode_DecodeUTF8(key.p, (Py_ssize_t)key.n, "replace");
        PyObject *msg = txt ? PyUnicode_FromFormat("the merge %R should be \"left right\" or "
                                                   "[\"left\", \"right\"]", txt) : NULL;
        Py_XDECREF(txt);
        PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
        PyBuffer_Release(&data);
        return problem(m, "merges", i, msg);
    }
bad_merge_fb:
fallback:
    Py_XDECREF(m);
    PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
    PyBuffer_Release(&data);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
fail:
    Py_XDECREF(m);
    PyMem_Free(key.p); PyMem_Free(a.p); PyMem_Free(b.p); PyMem_Free(tmp);
    PyBuffer_Release(&data);
    return NULL;
}

/* The key of an id as the file spells it (ByteLevel keys in GPT-2's alphabet). */
static PyObject *Model_key_text(Model *m, PyObject *args) {
    Py_ssize_t id;
    if (!PyArg_ParseTuple(args, "n", &id)) return NULL;
    if (id < 0 || id >= m->n_ids || m->first_entry[id] < 0) Py_RETURN_NONE;
    const Entry *en = &m->entries[m->first_entry[id]];
    const char *p = m->arena + en->off;
    if (!(m->kind == KIND_HF && m->byte_level && en->lookup))
        return PyUnicode_DecodeUTF8(p, en->len, "replace");
    PyObject *s = PyUnicode_New(en->len, 511);
    if (!s) return NULL;
    for (int32_t i = 0; i < en->len; i++)
        PyUnicode_WriteChar(s, i, (Py_UCS4)byte_to_cp[(unsigned char)p[i]]);
    return s;
}

/* The id of a key given as the file spells it, or -1. */
static PyObject *Model_text_id(Model *m, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text)) return NULL;
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(text, &n);
    if (!p) return NULL;
    char *tmp = PyMem_Malloc((size_t)n + 1);
    if (!tmp) return PyErr_NoMemory();
    int32_t id = text_key_id(m, p, (size_t)n, tmp);
    PyMem_Free(tmp);
    if (id == NONE_ID) /* keys only shown (not ByteLevel text): compare their UTF-8 */
        for (size_t e = 0; e < m->n_entries; e++)
            if (!m->entries[e].lookup && m->entries[e].len == n &&
                memcmp(m->arena + m->entries[e].off, p, (size_t)n) == 0) {
                id = m->entries[e].id;
                break;
            }
    return PyLong_FromLong(id);
}

/* ---- loading: .tiktoken ----------------------------------------------------------- */

static int8_t b64[256];

static void init_b64(void) {
    const char *al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    memset(b64, -1, sizeof b64);
    for (int i = 0; i < 64; i++) b64[(unsigned char)al[i]] = (int8_t)i;
}

/* Standard base64 with padding; returns the decoded length or -1. */
static Py_ssize_t b64_decode(const char *s, Py_ssize_t n, char *out) {
    if (n == 0 || n % 4) return -1;
    Py_ssize_t o = 0;
    for (Py_ssize_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int j = 0; j < 4; j++) {
            unsigned char c = (unsigned char)s[i + j];
            if (c == '=' && i + 4 == n && j >= 2) {
                v[j] = 0;
                pad++;
            } else if (b64[c] < 0 || pad) {
                return -1;
            } else {
                v[j] = b64[c];
            }
        }
        uint32_t w = (uint32_t)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        out[o++] = (char)(w >> 16);
        if (pad < 2) out[o++] = (char)(w >> 8);
        if (pad < 1) out[o++] = (char)w;
    }
    return o;
}

/* A message with one %R: the given bytes. */
static PyObject *with_bytes(const char *fmt, const char *p, Py_ssize_t n) {
    PyObject *b = PyBytes_FromStringAndSize(p, n);
    if (!b) return NULL;
    PyObject *msg = PyUnicode_FromFormat(fmt, b);
    Py_DECREF(b);
    return msg;
}

static PyObject *Model_from_tiktoken(PyObject *cls, PyObject *args) {
    Py_buffer data;
    (void)cls;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    const char *s = data.buf, *end = s + data.len;
    Model *m = new_model(KIND_TIKTOKEN);
    if (!m) goto fail0;
    /* first pass: the largest rank, so ids can be sized */
    long max_rank = -1, lines = 0;
    for (const char *p = s; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lines++;
        const char *sp = memchr(p, ' ', (size_t)(le - p));
        if (sp) {
            long r = 0;
            for (const char *q = sp + 1; q < le && *q >= '0' && *q <= '9' && r < MAX_IDS; q++)
                r = r * 10 + (*q - '0');
            if (r > max_rank) max_rank = r;
        }
        p = le + 1;
    }
    if (set_ids(m, max_rank + 1) < 0) goto fail;
    char buf[4096];
    long lineno = 0;
    for (const char *p = s; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        const char *line = p;
        p = le + 1;
        if (le > line && le[-1] == '\r') le--;
        if (le == line) continue;
        const char *sp = memchr(line, ' ', (size_t)(le - line));
        if (!sp || memchr(sp + 1, ' ', (size_t)(le - sp - 1)))
            goto bad_parts;
        Py_ssize_t n = (sp - line) <= (Py_ssize_t)(sizeof buf / 4 * 3) ?
                       b64_decode(line, sp - line, buf) : -1;
        if (n <= 0) {
            PyBuffer_Release(&data);
            return problem(m, "line", lineno, with_bytes("%R is not valid base64 (or is empty)",
                                                        line, sp - line > 40 ? 40 : sp - line));
        }
        long r = 0;
        const char *q = sp + 1;
        if (q == le) goto bad_rank;
        for (; q < le; q++) {
            if (*q < '0' || *q > '9' || r >= MAX_IDS) goto bad_rank;
            r = r * 10 + (*q - '0');
        }
        if (r > max_rank) goto bad_rank;
        if (m->first_entry[r] >= 0) {
            PyBuffer_Release(&data);
            return problem(m, "line", lineno,
                           PyUnicode_FromFormat("rank %ld was already given to another token", r));
        }
        /* lookups while loading need the hash: insert entries into a growing table */
        if (2 * (m->n_entries + 1) > m->n_slots && build_slots(m) < 0) goto fail;
        int added = add_key(m, buf, (size_t)n, (int32_t)r, 1);
        if (added < 0) goto fail;
        if (added == 0) {
            PyBuffer_Release(&data);
            char what[64];
            snprintf(what, sizeof what, "%%R was already given rank %d",
                     (int)find_key(m, buf, (size_t)n));
            return problem(m, "line", lineno, with_bytes(what, buf, n));
        }
        size_t h = hash_bytes(buf, (size_t)n) & (m->n_slots - 1);
        while (m->slots[h]) h = (h + 1) & (m->n_slots - 1);
        m->slots[h] = (int32_t)m->n_entries;
        continue;
    bad_parts: {
        int parts = 1;
        for (const char *q = line; q < le; q++) parts += *q == ' ';
        PyBuffer_Release(&data);
        return problem(m, "line", lineno,
                       PyUnicode_FromFormat("each line must be 'BASE64 RANK' (token bytes in "
                                            "base64, one space, a whole number); this line "
                                            "has %d part(s)", parts));
    }
    bad_rank:
        PyBuffer_Release(&data);
        return problem(m, "line", lineno,
                       PyUnicode_FromString("the rank is not a whole number"));
    }
    PyBuffer_Release(&data);
    fill_units(m);
    return Py_BuildValue("(NO)", (PyObject *)m, Py_None);
fail:
    Py_XDECREF(m);
fail0:
    PyBuffer_Release(&data);
    return NULL;
}

/* ---- encoding --------------------------------------------------------------------- */

static inline int32_t pair_rank(const Model *m, const Sym *a, const Sym *b, const char *w,
                                int32_t *new_id) {
    if (m->kind == KIND_HF) {
        const Pair *p = find_pair(m, a->id, b->id);
        if (!p) return INT32_MAX;
        *new_id = p->new_id;
        return p->rank;
    }
    int32_t id = find_key(m, w + a->start, (size_t)(b->end - a->start));
    *new_id = id;
    return id == NONE_ID ? INT32_MAX : id; /* tiktoken: rank == id */
}

/* Merge m->sym[0..n): the lowest rank first, the leftmost of equal ranks, one pair at a
   time. `limit`: pairs of rank >= limit never merge (tiktoken rebuild). */
static size_t merge_syms(Model *m, size_t n, const char *w, int32_t limit) {
    Sym *s = m->sym;
    int32_t *rk = m->rk, dummy;
    if (n < 2) return n;
    for (size_t i = 0; i + 1 < n; i++) {
        int32_t r = pair_rank(m, &s[i], &s[i + 1], w, &dummy);
        rk[i] = r < limit ? r : INT32_MAX;
    }
    for (;;) {
        int32_t best = INT32_MAX;
        size_t at = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (rk[i] < best) {
                best = rk[i];
                at = i;
            }
        if (best == INT32_MAX) break;
        int32_t new_id;
        pair_rank(m, &s[at], &s[at + 1], w, &new_id);
        s[at].id = new_id;
        s[at].end = s[at + 1].end;
        memmove(&s[at + 1], &s[at + 2], (n - at - 2) * sizeof(Sym));
        memmove(&rk[at + 1], &rk[at + 2], (n - at - 2) * sizeof(int32_t));
        n--;
        if (at > 0) {
            int32_t r = pair_rank(m, &s[at - 1], &s[at], w, &dummy);
            rk[at - 1] = r < limit ? r : INT32_MAX;
        }
        if (at + 1 < n) {
            int32_t r = pair_rank(m, &s[at], &s[at + 1], w, &dummy);
            rk[at] = r < limit ? r : INT32_MAX;
        }
    }
    return n;
}

static inline void add_sym(Model *m, size_t *n, int32_t id, Py_ssize_t start, Py_ssize_t end) {
    m->sym[*n].id = id;
    m->sym[*n].start = (int32_t)start;
    m->sym[*n].end = (int32_t)end;
    (*n)++;
}

/* Symbols of a word before merging: HF's merge_word (unknown characters become byte
   fallback tokens, else the unknown token, fused if asked, else nothing). */
static size_t initial_syms(Model *m, const char *w, Py_ssize_t len) {
    size_t n = 0;
    if (m->kind == KIND_TIKTOKEN || m->byte_level) {
        for (Py_ssize_t i = 0; i < len; i++) {
            int32_t id = m->unit[(unsigned char)w[i]];
            if (id != NONE_ID)
                add_sym(m, &n, id, i, i + 1);
            else if (m->unk_id != NONE_ID) {
                if (m->fuse_unk && n && m->sym[n - 1].id == m->unk_id && m->sym[n - 1].end == i)
                    m->sym[n - 1].end = (int32_t)(i + 1);
                else
                    add_sym(m, &n, m->unk_id, i, i + 1);
            }
        }
        return n;
    }
    int32_t unk_start = -1, unk_end = -1;
    for (Py_ssize_t i = 0; i < len;) {
        unsigned char c = (unsigned char)w[i];
        Py_ssize_t cl = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (i + cl > len) cl = len - i;
        int32_t id = find_key(m, w + i, (size_t)cl);
        if (id != NONE_ID) {
            if (unk_start >= 0) {
                add_sym(m, &n, m->unk_id, unk_start, unk_end);
                unk_start = -1;
            }
            add_sym(m, &n, id, i, i + cl);
        } else {
            int fell_back = 0;
            if (m->byte_fallback) {
                fell_back = 1;
                for (Py_ssize_t j = 0; j < cl; j++)
                    if (m->fb[(unsigned char)w[i + j]] == NONE_ID) fell_back = 0;
                if (fell_back)  /* tokenizers adds these before a pending unknown token */
                    for (Py_ssize_t j = 0; j < cl; j++)
                        add_sym(m, &n, m->fb[(unsigned char)w[i + j]], i + j, i + j + 1);
            }
            if (!fell_back && m->unk_id != NONE_ID) {
                if (unk_start >= 0 && m->fuse_unk) {
                    unk_end = (int32_t)(i + cl);
                } else {
                    if (unk_start >= 0) add_sym(m, &n, m->unk_id, unk_start, unk_end);
                    unk_start = (int32_t)i;
                    unk_end = (int32_t)(i + cl);
                }
            }
        }
        i += cl;
    }
    if (unk_start >= 0) add_sym(m, &n, m->unk_id, unk_start, unk_end);
    return n;
}

/* Tokens of one word into m->sym; returns their number, or (size_t)-1 on error. */
static size_t tokenize_utf8(Model *m, const char *w, Py_ssize_t len) {
    if (len == 0) return 0;
    if (len > INT32_MAX / 4) { /* symbol offsets are int32 */
        PyErr_SetString(PyExc_ValueError, "a word of 512 MiB or more");
        return (size_t)-1;
    }
    if (reserve(m, (size_t)len * 4 + 1) < 0) return (size_t)-1;
    if (m->kind == KIND_TIKTOKEN || m->ignore_merges) {
        int32_t id = find_key(m, w, (size_t)len);
        if (id != NONE_ID) {
            size_t n = 0;
            add_sym(m, &n, id, 0, len);
            return n;
        }
    }
    size_t n = initial_syms(m, w, len);
    return merge_syms(m, n, w, INT32_MAX);
}

static PyObject *ids_tuple(const Model *m, size_t n) {
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(m->sym[i].id);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
    }
    return t;
}

static PyObject *Model_tokenize(Model *m, PyObject *args) {
    PyObject *word;
    if (!PyArg_ParseTuple(args, "U", &word)) return NULL;
    Py_ssize_t len;
    const char *w = PyUnicode_AsUTF8AndSize(word, &len);
    if (!w) return NULL;
    size_t n = tokenize_utf8(m, w, len);
    if (n == (size_t)-1) return NULL;
    PyObject *ids = ids_tuple(m, n), *starts = PyTuple_New((Py_ssize_t)n),
             *ends = PyTuple_New((Py_ssize_t)n);
    if (!ids || !starts || !ends) goto fail;
    for (size_t i = 0; i < n; i++) {
        PyObject *a = PyLong_FromLong(m->sym[i].start), *b = PyLong_FromLong(m->sym[i].end);
        if (!a || !b) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        PyTuple_SET_ITEM(starts, (Py_ssize_t)i, a);
        PyTuple_SET_ITEM(ends, (Py_ssize_t)i, b);
    }
    return Py_BuildValue("(NNN)", ids, starts, ends);
fail:
    Py_XDECREF(ids);
    Py_XDECREF(starts);
    Py_XDECREF(ends);
    return NULL;
}

/* one word for encode_words: the model's ids of its bytes */
static PyObject *word_ids(void *ctx, const char *utf8, Py_ssize_t len) {
    Model *m = ctx;
    size_t n = tokenize_utf8(m, utf8, len);
    return n == (size_t)-1 ? NULL : ids_tuple(m, n);
}

static PyObject *Model_encode_words(Model *m, PyObject *args) {
    PyObject *words, *cache;
    Py_ssize_t cache_limit;
    if (!PyArg_ParseTuple(args, "O!O!n", &PyList_Type, &words, &PyDict_Type, &cache,
                          &cache_limit))
        return NULL;
    return encode_words_cached(words, cache, cache_limit, word_ids, m);
}

/* ---- configuration and tables ----------------------------------------------------- */

static PyObject *Model_configure(Model *m, PyObject *args) {
    int ignore_merges, byte_fallback, fuse_unk, unk_id;
    if (!PyArg_ParseTuple(args, "ppip", &ignore_merges, &byte_fallback, &unk_id, &fuse_unk))
        return NULL;
    m->ignore_merges = ignore_merges;
    m->byte_fallback = byte_fallback;
    m->fuse_unk = fuse_unk;
    m->unk_id = (unk_id >= 0 && unk_id < m->n_ids) ? unk_id : NONE_ID;
    for (int b = 0; b < 256; b++) {
        char key[8];
        snprintf(key, sizeof key, "<0x%02X>", b);
        m->fb[b] = byte_fallback ? find_key(m, key, 6) : NONE_ID;
    }
    Py_RETURN_NONE;
}

/* The bytes an entry stands for (see the module comment). */
static Py_ssize_t shown_bytes(const Model *m, const Entry *en, const char *rep, Py_ssize_t rep_len,
                              int byte_fallback, char *out, Py_ssize_t cap) {
    const char *p = m->arena + en->off;
    Py_ssize_t n = en->len;
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
            Py_ssize_t o = 0;
            for (Py_ssize_t i = 0; i < n;) {
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

static PyObject *Model_tables(Model *m, PyObject *args) {
    PyObject *rep;
    int byte_fallback;
    if (!PyArg_ParseTuple(args, "Op", &rep, &byte_fallback)) return NULL;
    Py_ssize_t rep_len = 0;
    const char *rp = NULL;
    if (rep != Py_None) {
        rp = PyUnicode_AsUTF8AndSize(rep, &rep_len);
        if (!rp) return NULL;
    }
    PyObject *vocab = _PyDict_NewPresized(m->n_ids), *t2i = _PyDict_NewPresized(m->n_ids);
    if (!vocab || !t2i) goto fail;
    size_t cap = 256;
    char *buf = PyMem_Malloc(cap);
    if (!buf) goto fail;
    for (Py_ssize_t id = 0; id < m->n_ids; id++) {
        int32_t e = m->first_entry[id];
        if (e < 0) continue;
        const Entry *en = &m->entries[e];
        if ((size_t)en->len > cap) {
            cap = (size_t)en->len * 2;
            char *nb = PyMem_Realloc(buf, cap);
            if (!nb) {
                PyMem_Free(buf);
                PyErr_NoMemory();
                goto fail;
            }
            buf = nb;
        }
        Py_ssize_t n = shown_bytes(m, en, rp, rep_len, byte_fallback, buf, (Py_ssize_t)cap);
        PyObject *b = PyBytes_FromStringAndSize(buf, n < 0 ? 0 : n);
        PyObject *key = PyLong_FromSsize_t(id);
        if (!b || !key || PyDict_SetItem(vocab, key, b) < 0 ||
            (PyDict_SetDefault(t2i, b, key) == NULL)) {
            Py_XDECREF(b);
            Py_XDECREF(key);
            PyMem_Free(buf);
            goto fail;
        }
        Py_DECREF(b);
        Py_DECREF(key);
    }
    PyMem_Free(buf);
    return Py_BuildValue("(NN)", vocab, t2i);
fail:
    Py_XDECREF(vocab);
    Py_XDECREF(t2i);
    return NULL;
}

static PyObject *Model_id_of(Model *m, PyObject *args) {
    const char *p;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y#", &p, &n)) return NULL;
    return PyLong_FromLong(find_key(m, p, (size_t)n));
}

static PyObject *Model_key(Model *m, PyObject *args) {
    Py_ssize_t id;
    if (!PyArg_ParseTuple(args, "n", &id)) return NULL;
    if (id < 0 || id >= m->n_ids || m->first_entry[id] < 0) Py_RETURN_NONE;
    const Entry *en = &m->entries[m->first_entry[id]];
    return PyBytes_FromStringAndSize(m->arena + en->off, en->len);
}

static PyObject *Model_merge(Model *m, PyObject *args) {
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n", &k)) return NULL;
    if (k < 0 || k >= m->n_merges) {
        PyErr_SetString(PyExc_IndexError, "merge index out of range");
        return NULL;
    }
    return Py_BuildValue("(iii)", m->merge_a[k], m->merge_b[k], m->merge_new[k]);
}

/* TIKTOKEN: the merge that makes each multi-byte token, in rank order -- tiktoken's own
   merge loop on the token's bytes with only the ranks below it must end in two parts. */
static PyObject *Model_rebuild(Model *m, PyObject *noargs) {
    (void)noargs;
    PyObject *stray = PyList_New(0);
    if (!stray) return NULL;
    if (m->kind != KIND_TIKTOKEN || m->n_merges) return stray;
    for (Py_ssize_t id = 0; id < m->n_ids; id++) {
        int32_t e = m->first_entry[id];
        if (e < 0 || m->entries[e].len < 2) continue;
        const Entry *en = &m->entries[e];
        const char *w = m->arena + en->off;
        if (reserve(m, (size_t)en->len) < 0) goto fail;
        size_t n = 0;
        for (int32_t i = 0; i < en->len; i++) add_sym(m, &n, m->unit[(unsigned char)w[i]], i, i + 1);
        n = merge_syms(m, n, w, (int32_t)id);
        if (n == 2 && m->sym[0].id != NONE_ID && m->sym[1].id != NONE_ID) {
            if (push_merge(m, m->sym[0].id, m->sym[1].id, (int32_t)id) < 0) goto fail;
        } else {
            PyObject *v = PyLong_FromSsize_t(id);
            if (!v || PyList_Append(stray, v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
    }
    return stray;
fail:
    Py_DECREF(stray);
    return NULL;
}

static void Model_dealloc(Model *m) {
    PyMem_Free(m->arena);
    PyMem_Free(m->entries);
    PyMem_Free(m->first_entry);
    PyMem_Free(m->slots);
    PyMem_Free(m->pairs);
    PyMem_Free(m->merge_a);
    PyMem_Free(m->merge_b);
    PyMem_Free(m->merge_new);
    PyMem_Free(m->sym);
    PyMem_Free(m->rk);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Model_get_n_ids(Model *m, void *c) {
    (void)c;
    return PyLong_FromSsize_t(m->n_ids);
}

static PyObject *Model_get_n_merges(Model *m, void *c) {
    (void)c;
    return PyLong_FromSsize_t(m->n_merges);
}

static PyObject *Model_get_kind(Model *m, void *c) {
    (void)c;
    return PyUnicode_FromString(m->kind == KIND_HF ? "hf" : "tiktoken");
}

static PyMethodDef Model_methods[] = {
    {"from_hf", (PyCFunction)Model_from_hf, METH_VARARGS | METH_CLASS,
     "from_hf(vocab, merges, byte_level) -> (Model, problem)"},
    {"from_hf_text", (PyCFunction)Model_from_hf_text, METH_VARARGS | METH_CLASS,
     "from_hf_text(data, vocab_span, merges_span, byte_level) -> (Model, problem) or None"},
    {"key_text", (PyCFunction)Model_key_text, METH_VARARGS, "key_text(id) -> str or None"},
    {"text_id", (PyCFunction)Model_text_id, METH_VARARGS, "text_id(key: str) -> id or -1"},
    {"from_tiktoken", (PyCFunction)Model_from_tiktoken, METH_VARARGS | METH_CLASS,
     "from_tiktoken(data: bytes) -> (Model, problem)"},
    {"configure", (PyCFunction)Model_configure, METH_VARARGS,
     "configure(ignore_merges, byte_fallback, unk_id, fuse_unk)"},
    {"tables", (PyCFunction)Model_tables, METH_VARARGS,
     "tables(replacement, byte_fallback) -> (id -> bytes, bytes -> first id)"},
    {"id_of", (PyCFunction)Model_id_of, METH_VARARGS, "id_of(key: bytes) -> id or -1"},
    {"key", (PyCFunction)Model_key, METH_VARARGS, "key(id) -> bytes or None"},
    {"tokenize", (PyCFunction)Model_tokenize, METH_VARARGS,
     "tokenize(word) -> (ids, starts, ends) in bytes of the word's UTF-8"},
    {"encode_words", (PyCFunction)Model_encode_words, METH_VARARGS,
     "encode_words(words, cache, cache_limit) -> list of ids"},
    {"merge", (PyCFunction)Model_merge, METH_VARARGS, "merge(k) -> (left, right, new id)"},
    {"rebuild", (PyCFunction)Model_rebuild, METH_NOARGS,
     "rebuild() -> ids of multi-byte tokens no merge makes (tiktoken models)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Model_getset[] = {
    {"n_ids", (getter)Model_get_n_ids, NULL, "1 + the largest id", NULL},
    {"n_merges", (getter)Model_get_n_merges, NULL, "merges known so far", NULL},
    {"kind", (getter)Model_get_kind, NULL, "'hf' or 'tiktoken'", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine._pipeline.Model",
    .tp_basicsize = sizeof(Model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The tables of an imported BPE tokenizer (see the module docstring).",
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_methods = Model_methods,
    .tp_getset = Model_getset,
};

static PyMethodDef module_methods[] = {
    {"find_model_tables", (PyCFunction)find_model_tables, METH_VARARGS,
     "find_model_tables(data: bytes) -> ((vocab start, end), (merges start, end)) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef pipeline_module = {
    PyModuleDef_HEAD_INIT, "_pipeline",
    "Tables of imported tokenizers (tokenizer.json, .tiktoken), built and run in C.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__pipeline(void) {
    init_alphabet();
    init_b64();
    if (PyType_Ready(&ModelType) < 0) return NULL;
    PyObject *mod = PyModule_Create(&pipeline_module);
    if (!mod) return NULL;
    Py_INCREF(&ModelType);
    if (PyModule_AddObject(mod, "Model", (PyObject *)&ModelType) < 0) {
        Py_DECREF(&ModelType);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
