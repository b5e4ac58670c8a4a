/*
 * bpe_gui.engine._encode -- the hot loop of Tokenizer.encode, in C.
 *
 * Python API
 * ----------
 *   Merger(byte_ids)            byte_ids: 256 ints, the token id of each single byte
 *   add(a, b, rank, new_id)     register a merge; the first rank given for (a, b) wins
 *   merge(ids, limit) -> tuple  apply merges of rank < limit to a list of ids
 *   encode_words(words, cache, limit, cache_limit) -> list[int]
 *       words: list of str (pre-tokens); cache: dict str -> tuple of ids, filled on
 *       misses and cleared when it reaches cache_limit entries.
 *   encode_text(preset, text, limit, cache) -> list[int]
 *       a whole text without special tokens, cut into words by the native scanner
 *       (scan.h) and merged word by word; cache: a WordCache. The scanning and merging
 *       run without the GIL.
 *   WordCache(max_words=262144)  word bytes -> ids, in native memory; cleared when full.
 *       One per tokenizer as of a step: its entries are only valid for one `limit`.
 *
 * Merging: repeatedly merge the leftmost occurrence of the pair with the lowest rank,
 * until no pair of rank < limit is left (what tiktoken and Hugging Face do). For merges
 * learned by training -- a token is only ever merged further at a later rank -- this
 * equals training's "replace every occurrence left to right" rule, so encoding the
 * training corpus reproduces training. Short words scan for the lowest rank; long words
 * (Chinese with the GPT-2 pattern: whole clauses) use a heap, so a word of n symbols
 * costs O(n log n) rather than O(n^2).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "scan.h"
#include "scan_python.h"

#ifndef BPE_SCAN_NPRESETS
#define BPE_SCAN_NPRESETS 3
#endif
#define HEAP_FROM 24 /* words at least this long merge with a heap */
#define NO_RANK INT32_MAX

typedef struct {
    uint64_t key; /* ((a << 32) | b) + 1; 0 marks an empty slot */
    int32_t rank;
    int32_t new_id;
} Entry;

typedef struct {
    PyObject_HEAD
    Entry *tab;
    size_t cap; /* power of two */
    size_t n;
    int32_t byte_ids[256];
    /* merges of two single bytes, by raw byte values: [x * 256 + y] = (rank, new id),
     * rank NO_RANK if none; the first merges of every word need no hash lookup */
    struct { int32_t rank, new_id; } *bytepair;
    /* rank -> new id (ranks are dense: the merge list's order), so a merge needs no
     * second lookup of its pair */
    int32_t *rank_new;
    size_t rank_cap;
    /* one bit per hash of a pair that has a merge: most pairs looked up have none, and
     * this 128 KB filter answers for them without touching the big table */
    uint64_t *filter;
    /* scratch for one word (never shared: a Merger is used by one thread at a time) */
    int32_t *sym, *rk, *nxt, *prv;
    uint64_t *heap;
    size_t buf_cap;
    int busy;
    /* id -> int object, made once, so building the result list is a copy of pointers */
    PyObject **id_objs;
    size_t n_id_objs;
} Merger;

/* ---- the merge table ---------------------------------------------------------- */

static inline size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static int grow(Merger *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    Entry *tab = PyMem_Calloc(cap, sizeof(Entry));
    if (!tab) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->tab[i].key)
            continue;
        size_t s = slot_of(m->tab[i].key, cap);
        while (tab[s].key)
            s = (s + 1) & (cap - 1);
        tab[s] = m->tab[i];
    }
    PyMem_Free(m->tab);
    m->tab = tab;
    m->cap = cap;
    return 0;
}

static inline const Entry *find(const Merger *m, int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    for (;;) {
        const Entry *e = &m->tab[s];
        if (e->key == key)
            return e;
        if (!e->key)
            return NULL;
        s = (s + 1) & (m->cap - 1);
    }
}

#define FILTER_BITS 20

static inline uint64_t filter_bit(int32_t a, int32_t b)
{
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) * 0xC2B2AE3D27D4EB4Full;
    return key >> (64 - FILTER_BITS);
}

static inline int32_t rank_of(const Merger *m, int32_t a, int32_t b, int32_t limit)
{
    uint64_t bit = filter_bit(a, b);
    if (!(m->filter[bit >> 6] >> (bit & 63) & 1))
        return NO_RANK;
    const Entry *e = find(m, a, b);
    return (e && e->rank < limit) ? e->rank : NO_RANK;
}

/* Scratch space for a word of n symbols (no Python calls: may run without the GIL). */
static int reserve(Merger *m, size_t n)
{
    if (n <= m->buf_cap)
        return 0;
    if (n > INT32_MAX - 1)
        return -1; /* positions are int32 (the heap packs rank and position in 64 bits) */
    size_t cap = m->buf_cap ? m->buf_cap : 64;
    while (cap < n)
        cap *= 2;
    int32_t *sym = realloc(m->sym, cap * sizeof(int32_t));
    if (sym) m->sym = sym;
    int32_t *rk = realloc(m->rk, cap * sizeof(int32_t));
    if (rk) m->rk = rk;
    int32_t *nxt = realloc(m->nxt, cap * sizeof(int32_t));
    if (nxt) m->nxt = nxt;
    int32_t *prv = realloc(m->prv, cap * sizeof(int32_t));
    if (prv) m->prv = prv;
    uint64_t *heap = realloc(m->heap, 3 * cap * sizeof(uint64_t)); /* n + 2 per merge */
    if (heap) m->heap = heap;
    if (!sym || !rk || !nxt || !prv || !heap)
        return -1;
    m->buf_cap = cap;
    return 0;
}

/* The rank of the pair at i (of rank < limit, else NO_RANK): from the byte-pair table
 * when the word is still raw bytes there (raw != NULL), else from the hash table. */
static inline int32_t first_rank(const Merger *m, const int32_t *s, const unsigned char *raw,
                                 size_t i, int32_t limit)
{
    if (raw) {
        int32_t r = m->bytepair[raw[i] * 256 + raw[i + 1]].rank;
        return r < limit ? r : NO_RANK;
    }
    return rank_of(m, s[i], s[i + 1], limit);
}

/* Short words: find the lowest rank by scanning; merge its leftmost occurrence. */
static size_t merge_scan(Merger *m, size_t n, int32_t limit, const unsigned char *raw)
{
    int32_t *s = m->sym, *rk = m->rk;
    for (size_t i = 0; i + 1 < n; i++)
        rk[i] = first_rank(m, s, raw, i, limit);
    while (n > 1) {
        int32_t best = NO_RANK;
        size_t at = 0;
        for (size_t i = 0; i + 1 < n; i++)
            if (rk[i] < best) {
                best = rk[i];
                at = i;
            }
        if (best == NO_RANK)
            break;
        s[at] = m->rank_new[best];
        memmove(s + at + 1, s + at + 2, (n - at - 2) * sizeof(int32_t));
        memmove(rk + at + 1, rk + at + 2, (n - at - 2) * sizeof(int32_t));
        n--;
        if (at + 1 < n)
            rk[at] = rank_of(m, s[at], s[at + 1], limit);
        if (at > 0)
            rk[at - 1] = rank_of(m, s[at - 1], s[at], limit);
    }
    return n;
}

/* heap of (rank << 32 | position): the lowest rank first, the leftmost among equals */
static inline void heap_push(uint64_t *h, size_t *len, uint64_t v)
{
    size_t i = (*len)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p] <= v)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static inline uint64_t heap_pop(uint64_t *h, size_t *len)
{
    uint64_t top = h[0], v = h[--(*len)];
    size_t i = 0, n = *len;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] < h[c])
            c++;
        if (v <= h[c])
            break;
        h[i] = h[c];
        i = c;
    }
    if (n)
        h[i] = v;
    return top;
}

/* Long words: symbols in a linked list, candidate merges in a heap; a popped entry is
 * stale when its position was merged away or its pair's rank changed since. */
static size_t merge_heap(Merger *m, size_t n, int32_t limit, const unsigned char *raw)
{
    int32_t *s = m->sym, *rk = m->rk, *nxt = m->nxt, *prv = m->prv;
    uint64_t *h = m->heap;
    size_t hn = 0;
    for (size_t i = 0; i < n; i++) {
        nxt[i] = i + 1 < n ? (int32_t)(i + 1) : -1;
        prv[i] = (int32_t)i - 1;
        rk[i] = i + 1 < n ? first_rank(m, s, raw, i, limit) : NO_RANK;
        if (rk[i] != NO_RANK)
            heap_push(h, &hn, ((uint64_t)rk[i] << 32) | i);
    }
    while (hn) {
        uint64_t top = heap_pop(h, &hn);
        int32_t r = (int32_t)(top >> 32), i = (int32_t)(uint32_t)top;
        if (rk[i] != r || s[i] < 0)
            continue; /* stale */
        int32_t j = nxt[i];
        s[i] = m->rank_new[r];
        s[j] = -1; /* merged away */
        rk[j] = NO_RANK;
        nxt[i] = nxt[j];
        if (nxt[j] >= 0)
            prv[nxt[j]] = i;
        rk[i] = nxt[i] >= 0 ? rank_of(m, s[i], s[nxt[i]], limit) : NO_RANK;
        if (rk[i] != NO_RANK)
            heap_push(h, &hn, ((uint64_t)rk[i] << 32) | (uint32_t)i);
        int32_t p = prv[i];
        if (p >= 0) {
            rk[p] = rank_of(m, s[p], s[i], limit);
            if (rk[p] != NO_RANK)
                heap_push(h, &hn, ((uint64_t)rk[p] << 32) | (uint32_t)p);
        }
    }
    size_t w = 0;
    for (int32_t i = 0; i >= 0; i = nxt[i])
        s[w++] = s[i];
    return w;
}

/* Merge m->sym[0..n) in place; returns the new length. raw: the word's bytes when
 * m->sym holds exactly their byte tokens (then the first ranks come from the byte-pair
 * table), else NULL. */
static size_t merge_word(Merger *m, size_t n, int32_t limit, const unsigned char *raw)
{
    if (n < 2)
        return n;
    if (!m->bytepair)
        raw = NULL;
    return n < HEAP_FROM ? merge_scan(m, n, limit, raw) : merge_heap(m, n, limit, raw);
}

static int check_ready(Merger *m)
{
    if (!m->tab) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is not initialised (call Merger(byte_ids))");
        return -1;
    }
    if (m->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is in use on another thread");
        return -1;
    }
    return 0;
}

static PyObject *tuple_of(const int32_t *s, size_t n)
{
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(s[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, v);
    }
    return t;
}

static int as_id(PyObject *o, int32_t *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > INT32_MAX - 1) {
        PyErr_Format(PyExc_ValueError, "token id %ld is out of range (0 to 2**31 - 2)", v);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* ---- the word cache ------------------------------------------------------------ */

typedef struct {
    uint64_t hash;
    size_t word;   /* offset of the word's bytes in `bytes` */
    size_t ids;    /* offset of its ids in `idbuf` */
    uint32_t len;  /* word bytes */
    uint32_t n;    /* ids */
} CEntry;

typedef struct {
    PyObject_HEAD
    uint32_t *slots; /* entry + 1; 0 = empty */
    size_t cap;
    CEntry *ent;
    size_t n, ent_cap, max_words;
    unsigned char *bytes;
    size_t bytes_len, bytes_cap;
    int32_t *idbuf;
    size_t id_len, id_cap;
    int32_t limit;   /* the merge limit the entries were made with; -1: none yet */
    int busy;
} WordCache;

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = (h ^ v) * 0x100000001b3ull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    while (n--)
        h = (h ^ *p++) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static void cache_reset(WordCache *c)
{
    if (c->slots)
        memset(c->slots, 0, c->cap * sizeof(uint32_t));
    c->n = c->bytes_len = c->id_len = 0;
}

/* Returns the entry for a word, or NULL; *slot_out is where a new one would go. */
static CEntry *cache_find(WordCache *c, const unsigned char *w, size_t len, uint64_t h,
                          size_t *slot_out)
{
    size_t s = (size_t)h & (c->cap - 1);
    for (;;) {
        uint32_t v = c->slots[s];
        if (!v) {
            *slot_out = s;
            return NULL;
        }
        CEntry *e = &c->ent[v - 1];
        if (e->hash == h && e->len == len && memcmp(c->bytes + e->word, w, len) == 0)
            return e;
        s = (s + 1) & (c->cap - 1);
    }
}

static int grow_to(void **p, size_t *cap, size_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * item);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Store a word's ids (m->sym[0..n)); -1 when out of memory (the cache stays usable). */
static int cache_store(WordCache *c, const unsigned char *w, size_t len, uint64_t h,
                       size_t slot, const int32_t *ids, size_t n)
{
    if (len > UINT32_MAX || n > UINT32_MAX)
        return 0; /* not cached */
    if (grow_to((void **)&c->ent, &c->ent_cap, c->n + 1, sizeof(CEntry)) < 0 ||
        grow_to((void **)&c->bytes, &c->bytes_cap, c->bytes_len + len, 1) < 0 ||
        grow_to((void **)&c->idbuf, &c->id_cap, c->id_len + n, sizeof(int32_t)) < 0)
        return -1;
    CEntry *e = &c->ent[c->n];
    e->hash = h;
    e->word = c->bytes_len;
    e->ids = c->id_len;
    e->len = (uint32_t)len;
    e->n = (uint32_t)n;
    memcpy(c->bytes + c->bytes_len, w, len);
    c->bytes_len += len;
    memcpy(c->idbuf + c->id_len, ids, n * sizeof(int32_t));
    c->id_len += n;
    c->slots[slot] = (uint32_t)(++c->n);
    return 0;
}

static int cache_idle(WordCache *c)
{
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCache is in use on another thread");
        return -1;
    }
    return 0;
}

static int WordCache_init(WordCache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"max_words", NULL};
    Py_ssize_t max_words = 262144;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|n:WordCache", kwlist, &max_words))
        return -1;
    if (max_words < 1 || max_words > (1 << 28)) {
        PyErr_SetString(PyExc_ValueError, "max_words must be between 1 and 2**28");
        return -1;
    }
    if (cache_idle(c) < 0)
        return -1;
    size_t cap = 1024;
    while (cap < 2 * (size_t)max_words)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof(uint32_t));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    c->max_words = (size_t)max_words;
    c->limit = -1;
    cache_reset(c);
    return 0;
}

static void WordCache_dealloc(WordCache *c)
{
    free(c->slots);
    free(c->ent);
    free(c->bytes);
    free(c->idbuf);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *WordCache_clear(WordCache *c, PyObject *Py_UNUSED(ignored))
{
    if (cache_idle(c) < 0)
        return NULL;
    cache_reset(c);
    Py_RETURN_NONE;
}

static Py_ssize_t WordCache_len(WordCache *c)
{
    return cache_idle(c) < 0 ? -1 : (Py_ssize_t)c->n;
}

static PyMethodDef WordCache_methods[] = {
    {"clear", (PyCFunction)WordCache_clear, METH_NOARGS, "forget every word"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods WordCache_seq = {.sq_length = (lenfunc)WordCache_len};

static PyTypeObject WordCacheType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine._encode.WordCache",
    .tp_basicsize = sizeof(WordCache),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Word bytes -> token ids, in native memory (for Merger.encode_text).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordCache_init,
    .tp_dealloc = (destructor)WordCache_dealloc,
    .tp_methods = WordCache_methods,
    .tp_as_sequence = &WordCache_seq,
};

/* ---- encoding a whole text ------------------------------------------------------ */

typedef struct {
    int32_t *ids;
    size_t n, cap;
} IdOut;

/* Scan and merge s[0..n) into out; no Python calls (runs without the GIL).
 * Returns 0, or -1 when out of memory. */
static int encode_utf8(Merger *m, WordCache *c, int preset, const unsigned char *s, size_t n,
                       int32_t limit, IdOut *out)
{
    if (c->limit != limit) {
        cache_reset(c);
        c->limit = limit;
    }
    size_t pos = 0, ends[256], n_ends = 0, k_end = 0;
    while (pos < n) {
        if (k_end == n_ends) {
            n_ends = bpe_scan_words(preset, s, pos, n, ends, 256);
            k_end = 0;
        }
        size_t end = ends[k_end++];
        const unsigned char *w = s + pos;
        size_t len = end - pos;
        pos = end;
        uint64_t h = hash_bytes(w, len);
        size_t slot;
        CEntry *e = cache_find(c, w, len, h, &slot);
        const int32_t *ids;
        size_t k;
        if (e) {
            ids = c->idbuf + e->ids;
            k = e->n;
        } else {
            if (reserve(m, len) < 0)
                return -1;
            for (size_t i = 0; i < len; i++)
                m->sym[i] = m->byte_ids[w[i]];
            k = merge_word(m, len, limit, w);
            ids = m->sym;
            if (c->n >= c->max_words)
                cache_reset(c); /* bounded memory; the slot found is stale now */
            if (c->n < c->max_words) {
                cache_find(c, w, len, h, &slot);
                if (cache_store(c, w, len, h, slot, m->sym, k) < 0)
                    return -1;
            }
        }
        if (grow_to((void **)&out->ids, &out->cap, out->n + k, sizeof(int32_t)) < 0)
            return -1;
        memcpy(out->ids + out->n, ids, k * sizeof(int32_t));
        out->n += k;
    }
    return 0;
}

/* The int object for a token id (kept for the Merger's lifetime). */
static PyObject *id_obj(Merger *m, int32_t id)
{
    if ((size_t)id >= m->n_id_objs) {
        size_t cap = m->n_id_objs ? m->n_id_objs : 1024;
        while (cap <= (size_t)id)
            cap *= 2;
        PyObject **p = PyMem_Realloc(m->id_objs, cap * sizeof(PyObject *));
        if (!p)
            return PyErr_NoMemory();
        memset(p + m->n_id_objs, 0, (cap - m->n_id_objs) * sizeof(PyObject *));
        m->id_objs = p;
        m->n_id_objs = cap;
    }
    if (!m->id_objs[id]) {
        m->id_objs[id] = PyLong_FromLong(id);
        if (!m->id_objs[id])
            return NULL;
    }
    return m->id_objs[id];
}

static PyObject *Merger_encode_text(Merger *m, PyObject *args)
{
    int preset, limit;
    PyObject *text;
    WordCache *c;
    if (!PyArg_ParseTuple(args, "iUiO!:encode_text", &preset, &text, &limit, &WordCacheType,
                          &c))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    if (preset < 0 || preset >= BPE_SCAN_NPRESETS) {
        PyErr_Format(PyExc_ValueError, "unknown scanner preset %d", preset);
        return NULL;
    }
    if (!c->slots || c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "WordCache is not initialised or in use");
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (!s)
        return NULL; /* lone surrogates: the caller falls back to Python */
    IdOut out = {NULL, 0, 0};
    int rc;
    m->busy = c->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = encode_utf8(m, c, preset, (const unsigned char *)s, (size_t)n, limit, &out);
    Py_END_ALLOW_THREADS
    m->busy = c->busy = 0;
    if (rc < 0) {
        free(out.ids);
        return PyErr_NoMemory();
    }
    PyObject *list = PyList_New((Py_ssize_t)out.n);
    if (!list) {
        free(out.ids);
        return NULL;
    }
    for (size_t i = 0; i < out.n; i++) {
        PyObject *v = id_obj(m, out.ids[i]);
        if (!v) {
            free(out.ids);
            Py_DECREF(list);
            return NULL;
        }
        Py_INCREF(v);
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    free(out.ids);
    return list;
}

/* ---- Merger methods ------------------------------------------------------------- */

static int Merger_init(Merger *m, PyObject *args, PyObject *kw)
{
    PyObject *ids;
    static char *kwlist[] = {"byte_ids", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &ids))
        return -1;
    if (m->tab) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is already initialised");
        return -1;
    }
    PyObject *seq = PySequence_Fast(ids, "byte_ids must be a sequence of 256 ints");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 256) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "byte_ids must have 256 entries");
        return -1;
    }
    for (int i = 0; i < 256; i++) {
        if (as_id(PySequence_Fast_GET_ITEM(seq, i), &m->byte_ids[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    m->bytepair = PyMem_Malloc(65536 * sizeof(*m->bytepair));
    m->filter = PyMem_Calloc((1u << FILTER_BITS) / 64, sizeof(uint64_t));
    if (!m->bytepair || !m->filter) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < 65536; i++)
        m->bytepair[i].rank = NO_RANK;
    return grow(m);
}

static void Merger_dealloc(Merger *m)
{
    PyMem_Free(m->bytepair);
    PyMem_Free(m->filter);
    PyMem_Free(m->rank_new);
    PyMem_Free(m->tab);
    free(m->sym);
    free(m->rk);
    free(m->nxt);
    free(m->prv);
    free(m->heap);
    for (size_t i = 0; i < m->n_id_objs; i++)
        Py_XDECREF(m->id_objs[i]);
    PyMem_Free(m->id_objs);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyObject *Merger_add(Merger *m, PyObject *args)
{
    PyObject *oa, *ob, *orank, *onew;
    int32_t a, b, rank, new_id;
    if (!PyArg_ParseTuple(args, "OOOO:add", &oa, &ob, &orank, &onew))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    if (as_id(oa, &a) < 0 || as_id(ob, &b) < 0 || as_id(orank, &rank) < 0 ||
        as_id(onew, &new_id) < 0)
        return NULL;
    if (find(m, a, b))
        Py_RETURN_FALSE;
    if (2 * (m->n + 1) > m->cap && grow(m) < 0)
        return NULL;
    if (rank > (1 << 26)) {  /* ranks are positions in a merge list */
        PyErr_Format(PyExc_ValueError, "merge rank %d is too large (at most 2**26)", rank);
        return NULL;
    }
    if ((size_t)rank >= m->rank_cap) {
        size_t cap = m->rank_cap ? m->rank_cap : 1024;
        while (cap <= (size_t)rank)
            cap *= 2;
        int32_t *rn = PyMem_Realloc(m->rank_new, cap * sizeof(int32_t));
        if (!rn)
            return PyErr_NoMemory();
        m->rank_new = rn;
        m->rank_cap = cap;
    }
    m->rank_new[rank] = new_id;
    uint64_t bit = filter_bit(a, b);
    m->filter[bit >> 6] |= 1ull << (bit & 63);
    uint64_t key = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1;
    size_t s = slot_of(key, m->cap);
    while (m->tab[s].key)
        s = (s + 1) & (m->cap - 1);
    m->tab[s].key = key;
    m->tab[s].rank = rank;
    m->tab[s].new_id = new_id;
    m->n++;
    /* a merge of two byte tokens: also in the byte-pair table, for every byte value
     * whose token it is (a layout may give one id to several bytes only in odd files) */
    for (int x = 0; x < 256; x++) {
        if (m->byte_ids[x] != a)
            continue;
        for (int y = 0; y < 256; y++)
            if (m->byte_ids[y] == b)
                m->bytepair[x * 256 + y].rank = rank, m->bytepair[x * 256 + y].new_id = new_id;
    }
    Py_RETURN_TRUE;
}

static PyObject *Merger_merge(Merger *m, PyObject *args)
{
    PyObject *ids;
    int limit;
    if (!PyArg_ParseTuple(args, "Oi:merge", &ids, &limit))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(ids, "ids must be a sequence of ints");
    if (!seq)
        return NULL;
    size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
    if (reserve(m, n) < 0) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < n; i++) {
        if (as_id(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), &m->sym[i]) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    n = merge_word(m, n, limit, NULL);
    return tuple_of(m->sym, n);
}

static PyObject *Merger_encode_words(Merger *m, PyObject *args)
{
    PyObject *words, *cache;
    int limit;
    Py_ssize_t cache_limit;
    if (!PyArg_ParseTuple(args, "O!O!in:encode_words", &PyList_Type, &words, &PyDict_Type,
                          &cache, &limit, &cache_limit))
        return NULL;
    if (check_ready(m) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    /* the dict lookup can run Python code (a str subclass's __hash__ or __eq__) that
     * changes the list: re-read its length every time and hold the word meanwhile */
    PyObject *w = NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(words); k++) {
        w = PyList_GET_ITEM(words, k);
        Py_INCREF(w);
        PyObject *ids = PyDict_GetItemWithError(cache, w); /* borrowed */
        if (ids) {
            Py_INCREF(ids);
        } else {
            if (PyErr_Occurred())
                goto fail;
            Py_ssize_t len;
            const char *utf8 = PyUnicode_AsUTF8AndSize(w, &len);
            if (!utf8)
                goto fail;
            if (reserve(m, (size_t)len) < 0) {
                PyErr_NoMemory();
                goto fail;
            }
            for (Py_ssize_t i = 0; i < len; i++)
                m->sym[i] = m->byte_ids[(unsigned char)utf8[i]];
            size_t n = merge_word(m, (size_t)len, limit, (const unsigned char *)utf8);
            ids = tuple_of(m->sym, n);
            if (!ids)
                goto fail;
            if (PyDict_GET_SIZE(cache) >= cache_limit)
                PyDict_Clear(cache);
            if (PyDict_SetItem(cache, w, ids) < 0) {
                Py_DECREF(ids);
                goto fail;
            }
        }
        Py_ssize_t n = PyTuple_GET_SIZE(ids);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyList_Append(out, PyTuple_GET_ITEM(ids, i)) < 0) {
                Py_DECREF(ids);
                goto fail;
            }
        }
        Py_DECREF(ids);
        Py_CLEAR(w);
    }
    return out;
fail:
    Py_XDECREF(w);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef Merger_methods[] = {
    {"add", (PyCFunction)Merger_add, METH_VARARGS,
     "add(a, b, rank, new_id) -> bool: register a merge (False if the pair is known)"},
    {"merge", (PyCFunction)Merger_merge, METH_VARARGS,
     "merge(ids, limit) -> tuple: apply the merges of rank < limit"},
    {"encode_words", (PyCFunction)Merger_encode_words, METH_VARARGS,
     "encode_words(words, cache, limit, cache_limit) -> list of ids"},
    {"encode_text", (PyCFunction)Merger_encode_text, METH_VARARGS,
     "encode_text(preset, text, limit, cache) -> list of ids (native scanner)"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Merger_len(Merger *m, void *closure)
{
    (void)closure;
    if (m->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Merger is in use on another thread");
        return NULL;
    }
    return PyLong_FromSize_t(m->n);
}

static PyGetSetDef Merger_getset[] = {
    {"n_merges", (getter)Merger_len, NULL, "number of distinct merge pairs", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject MergerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine._encode.Merger",
    .tp_basicsize = sizeof(Merger),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Merge table for byte-level BPE encoding.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Merger_init,
    .tp_dealloc = (destructor)Merger_dealloc,
    .tp_methods = Merger_methods,
    .tp_getset = Merger_getset,
};


static PyMethodDef encode_functions[] = {
    SCAN_PYTHON_METHODS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef encode_module = {
    PyModuleDef_HEAD_INIT, "_encode", "The hot loop of Tokenizer.encode.", -1,
    encode_functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__encode(void)
{
    if (PyType_Ready(&MergerType) < 0 || PyType_Ready(&WordCacheType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&encode_module);
    if (!m)
        return NULL;
    Py_INCREF(&MergerType);
    Py_INCREF(&WordCacheType);
    if (scan_python_add_constants(m) < 0 ||
        PyModule_AddObject(m, "Merger", (PyObject *)&MergerType) < 0 ||
        PyModule_AddObject(m, "WordCache", (PyObject *)&WordCacheType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
