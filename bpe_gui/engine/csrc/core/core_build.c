/*
 * _core: construction -- Core(symbols, starts, freqs, token_bytes, tie_rule): the
 * arguments read as integer arrays, then the slots, pair table, position lists,
 * histogram and heap built without the GIL; and freeing it all.
 */
#include "core/core.h"

/* heavy part of construction, runs without the GIL. Returns NULL or an error message;
 * *is_mem is set for allocation failures. */
static const char *core_build(CoreObject *c, const int32_t *symbols, const int64_t *starts,
                              const int64_t *freqs, int *is_mem)
{
    *is_mem = 0;
    int32_t ns = c->n_slots, nwds = c->n_words;
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
    for (int32_t i = 0; i < ns; i++)
        if (symbols[i] < 0 || symbols[i] >= c->n_tokens)
            return "symbol id out of range of token_bytes";

    size_t n = (size_t)(ns > 0 ? ns : 1);
    c->sl = (Slot *)malloc(n * sizeof(Slot));
    c->starts = (int64_t *)malloc(((size_t)nwds + 1) * sizeof(int64_t));
    c->freq = (int64_t *)malloc(((size_t)nwds + 1) * sizeof(int64_t));
    c->hist_small = (int32_t *)calloc(HIST_SMALL, sizeof(int32_t));
    if (!c->sl || !c->starts || !c->freq || !c->hist_small)
        goto nomem;
    memcpy(c->starts, starts, ((size_t)nwds + 1) * sizeof(int64_t));
    memcpy(c->freq, freqs, (size_t)nwds * sizeof(int64_t));

    int64_t npairs_est = 0;
    c->total_syms = 0;
    for (int32_t w = 0; w < nwds; w++) {
        int32_t s = (int32_t)starts[w], e = (int32_t)starts[w + 1];
        int64_t f = freqs[w];
        for (int32_t i = s; i < e; i++) {
            int32_t t = symbols[i];
            c->sl[i].sym = t;
            c->sl[i].prv = i > s ? i - 1 : -1;
            c->sl[i].nxt = i + 1 < e ? i + 1 : -1;
            c->sl[i].wid = w;
            c->symcount[t] += f;
        }
        c->total_syms += f * (e - s);
        if (e - s > 1)
            npairs_est += e - s - 1;
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

    /* count pairs; remember each slot's pair */
    int32_t *sp = (int32_t *)malloc(n * sizeof(int32_t));
    if (!sp)
        goto nomem;
    for (int32_t i = 0; i < ns; i++) {
        if (c->sl[i].nxt < 0)
            continue;
        int32_t a = c->sl[i].sym, b = c->sl[i + 1].sym;
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
        p->count += c->freq[c->sl[i].wid];
        p->nocc++;
        sp[i] = idx;
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
    for (int32_t i = 0; i < ns; i++) {
        if (c->sl[i].nxt < 0)
            continue;
        Pair *p = &c->pairs[sp[i]];
        if (p->len == 0)
            p->first = i;
        pos_data(p)[p->len++] = i;
    }
    free(sp);
    (void)npairs_est;

    /* histogram and heap */
    c->heap_n = 0;
    for (int32_t j = 0; j < c->n_pairs; j++) {
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
    return NULL;
nomem:
    *is_mem = 1;
    return "out of memory";
}

typedef struct {
    Py_buffer view;
    int has_view;
    void *owned;
    const void *data;
    Py_ssize_t n;
} IntArr;

static void intarr_release(IntArr *x)
{
    if (x->has_view)
        PyBuffer_Release(&x->view);
    x->has_view = 0;
    free(x->owned);
    x->owned = NULL;
}

/* accept a 1-d buffer of integers of the given item size, or any sequence of ints */
static int intarr_get(PyObject *obj, int itemsize, const char *name, IntArr *out)
{
    memset(out, 0, sizeof(*out));
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &out->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return -1;
        out->has_view = 1;
        const char *fmt = out->view.format ? out->view.format : "B";
        while (*fmt == '@' || *fmt == '=' || *fmt == '<')
            fmt++;
        int ok = out->view.ndim <= 1 && out->view.itemsize == itemsize && fmt[0] &&
                 !fmt[1] && strchr("bBhHiIlLqQnN", fmt[0]) != NULL;
        if (ok) {
            out->data = out->view.buf;
            out->n = out->view.len / itemsize;
            return 0;
        }
        if (itemsize == 4 && out->view.itemsize == 1 && (fmt[0] == 'B' || fmt[0] == 'c') &&
            !fmt[1]) {
            /* bytes (e.g. the words of a byte-level table, end to end): widen in C */
            Py_ssize_t n = out->view.len;
            int32_t *mem = (int32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
            if (!mem) {
                PyBuffer_Release(&out->view);
                out->has_view = 0;
                PyErr_NoMemory();
                return -1;
            }
            const unsigned char *src = (const unsigned char *)out->view.buf;
            for (Py_ssize_t i = 0; i < n; i++)
                mem[i] = src[i];
            PyBuffer_Release(&out->view);
            out->has_view = 0;
            out->owned = mem;
            out->data = mem;
            out->n = n;
            return 0;
        }
        PyBuffer_Release(&out->view);
        out->has_view = 0;
        if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
            /* fall through to the generic sequence path (e.g. array('b'), bytes) */
        }
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s must be a buffer or sequence of integers", name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    void *mem = malloc((size_t)(n > 0 ? n : 1) * (size_t)itemsize);
    if (!mem) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            free(mem);
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
            }
            return -1;
        }
        if (itemsize == 4) {
            if (v < INT32_MIN || v > INT32_MAX) {
                Py_DECREF(seq);
                free(mem);
                PyErr_Format(PyExc_ValueError, "%s: value out of range", name);
                return -1;
            }
            ((int32_t *)mem)[i] = (int32_t)v;
        } else {
            ((int64_t *)mem)[i] = (int64_t)v;
        }
    }
    Py_DECREF(seq);
    out->owned = mem;
    out->data = mem;
    out->n = n;
    return 0;
}

void core_free_all(CoreObject *c)
{
    if (c->pairs) {
        for (int32_t j = 0; j < c->n_pairs; j++)
            if (c->pairs[j].cap > INLINE_CAP)
                free(c->pairs[j].pos.ptr);
    }
    free(c->pairs);
    free(c->heap);
    free(c->dense);
    free(c->hkeys);
    free(c->hvals);
    free(c->hist_small);
    free(c->hb_keys);
    free(c->hb_vals);
    free(c->touched);
    free(c->steps);
    free(c->rlog);
    free(c->scratch);
    free(c->sl);
    free(c->starts);
    free(c->freq);
    free(c->tok_off);
    free(c->tok_len);
    free(c->tok_pfx);
    free(c->symcount);
    free(c->tok_buf);
    free(c->cLo);
    free(c->cLn);
    free(c->cRo);
    free(c->cRn);
    free(c->usedL);
    free(c->usedR);
    c->pairs = NULL;
    c->n_pairs = 0;
}

PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"symbols", "starts", "freqs", "token_bytes", "tie_rule", NULL};
    PyObject *osym, *ostarts, *ofreqs, *otok;
    int tie = TIE_GREATEST;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO|i:Core", kwlist, &osym, &ostarts,
                                     &ofreqs, &otok, &tie))
        return NULL;
    if (tie != TIE_GREATEST && tie != TIE_FIRST_SEEN && tie != TIE_LOWEST_IDS) {
        PyErr_SetString(PyExc_ValueError, "tie_rule must be GREATEST, FIRST_SEEN or LOWEST_IDS");
        return NULL;
    }
    CoreObject *c = (CoreObject *)type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    /* tp_alloc zero-fills everything */
    c->tie = tie;
    IntArr s = {0}, st = {0}, fr = {0};
    PyObject *tokseq = NULL;
    if (intarr_get(osym, 4, "symbols", &s) < 0)
        goto fail;
    if (intarr_get(ostarts, 8, "starts", &st) < 0)
        goto fail;
    if (intarr_get(ofreqs, 8, "freqs", &fr) < 0)
        goto fail;
    if (st.n < 1) {
        PyErr_SetString(PyExc_ValueError, "starts must have n_words + 1 entries");
        goto fail;
    }
    if (fr.n != st.n - 1) {
        PyErr_SetString(PyExc_ValueError, "len(starts) must be len(freqs) + 1");
        goto fail;
    }
    if (s.n >= INT32_MAX - 1 || st.n >= INT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "too many symbols or words (max 2**31 - 2)");
        goto fail;
    }
    const int64_t *starts = (const int64_t *)st.data;
    if (starts[0] != 0 || starts[st.n - 1] != s.n) {
        PyErr_SetString(PyExc_ValueError,
                        "starts must begin with 0 and end with len(symbols)");
        goto fail;
    }
    tokseq = PySequence_Fast(otok, "token_bytes must be a sequence of bytes");
    if (!tokseq)
        goto fail;
    Py_ssize_t ntok = PySequence_Fast_GET_SIZE(tokseq);
    if (ntok >= INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many tokens");
        goto fail;
    }
    if (ensure_tok_cap(c, ntok + 1) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    {
        PyObject **items = PySequence_Fast_ITEMS(tokseq);
        int64_t total = 0;
        for (Py_ssize_t i = 0; i < ntok; i++) {
            if (PyBytes_Check(items[i]))
                total += PyBytes_GET_SIZE(items[i]);
            else if (PyByteArray_Check(items[i]))
                total += PyByteArray_GET_SIZE(items[i]);
            else {
                PyErr_SetString(PyExc_TypeError, "token_bytes must contain bytes objects");
                goto fail;
            }
        }
        if (ensure_tok_buf(c, total + 1) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t i = 0; i < ntok; i++) {
            int isb = PyBytes_Check(items[i]);
            Py_ssize_t len = isb ? PyBytes_GET_SIZE(items[i]) : PyByteArray_GET_SIZE(items[i]);
            if (len > INT32_MAX / 4) {
                PyErr_SetString(PyExc_ValueError, "token too long");
                goto fail;
            }
            tok_append(c, isb ? PyBytes_AS_STRING(items[i]) : PyByteArray_AS_STRING(items[i]),
                       len);
        }
    }
    Py_CLEAR(tokseq);
    c->n_base = c->n_tokens;
    c->n_slots = (int32_t)s.n;
    c->n_words = (int32_t)(st.n - 1);

    const char *msg;
    int is_mem;
    Py_BEGIN_ALLOW_THREADS
    msg = core_build(c, (const int32_t *)s.data, starts, (const int64_t *)fr.data, &is_mem);
    Py_END_ALLOW_THREADS
    if (msg) {
        if (is_mem)
            PyErr_NoMemory();
        else
            PyErr_SetString(PyExc_ValueError, msg);
        goto fail;
    }
    intarr_release(&s);
    intarr_release(&st);
    intarr_release(&fr);
    return (PyObject *)c;
fail:
    Py_XDECREF(tokseq);
    intarr_release(&s);
    intarr_release(&st);
    intarr_release(&fr);
    Py_DECREF(c);
    return NULL;
}
