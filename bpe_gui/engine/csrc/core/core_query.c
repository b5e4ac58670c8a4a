/*
 * _core: what Python reads -- the best and the top pairs, the ties, the history of
 * steps, the words the last step touched, a word's symbols, counts and token bytes.
 * Every function checks first that run() is not working on another thread.
 */
#include "core/core.h"

static PyObject *pair_tuple(CoreObject *c, int32_t pidx)
{
    Pair *p = &c->pairs[pidx];
    return Py_BuildValue("(iiL)", p->a, p->b, (long long)p->count);
}

PyObject *Core_best(CoreObject *c, PyObject *Py_UNUSED(ignored))
{
    if (check_usable(c) < 0)
        return NULL;
    fs_resolve_top(c);
    if (c->heap_n == 0 || c->heap[0].count <= 0)
        Py_RETURN_NONE;
    return pair_tuple(c, c->heap[0].p);
}

/* pop up to k best pairs (for which accept() holds) into out[], then push them back */
static PyObject *ranked(CoreObject *c, Py_ssize_t k, int same_count_only)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    if (k <= 0 || c->heap_n == 0)
        return list;
    if (k > c->heap_n)
        k = c->heap_n;
    int32_t *stash = (int32_t *)malloc((size_t)k * sizeof(int32_t));
    if (!stash) {
        Py_DECREF(list);
        return PyErr_NoMemory();
    }
    int64_t top = c->heap[0].count;
    Py_ssize_t m = 0;
    while (m < k && c->heap_n > 0) {
        fs_resolve_top(c);
        int32_t t = c->heap[0].p;
        if (same_count_only && c->pairs[t].count != top)
            break;
        heap_remove(c, t);
        stash[m++] = t;
    }
    int err = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (!err) {
            PyObject *tup = pair_tuple(c, stash[i]);
            if (!tup || PyList_Append(list, tup) < 0)
                err = 1;
            Py_XDECREF(tup);
        }
    }
    for (Py_ssize_t i = 0; i < m; i++)
        heap_insert(c, stash[i]);
    free(stash);
    if (err) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

PyObject *Core_top(CoreObject *c, PyObject *args)
{
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "n:top", &k))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    return ranked(c, k, 0);
}

PyObject *Core_tied(CoreObject *c, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:tied", &limit))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (c->heap_n == 0)
        return Py_BuildValue("(i[])", 0);
    int64_t n = hist_get(c, c->heap[0].count);
    PyObject *list = ranked(c, limit, 1);
    if (!list)
        return NULL;
    PyObject *res = Py_BuildValue("(LN)", (long long)n, list);
    return res;
}

/* history(start) -> [(a, b, new_id, count, n_tied, merged, gone), ...] for the steps
 * from `start` on: what Trainer records after a run() made them without the GIL. */
PyObject *Core_history(CoreObject *c, PyObject *args)
{
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "n:history", &start))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (start < 0 || start > c->n_steps) {
        PyErr_SetString(PyExc_IndexError, "history start out of range");
        return NULL;
    }
    PyObject *list = PyList_New(c->n_steps - start);
    if (!list)
        return NULL;
    for (Py_ssize_t i = start; i < c->n_steps; i++) {
        const StepRec *r = &c->steps[i];
        PyObject *t = Py_BuildValue("(iiiLiLi)", r->a, r->b, r->id, (long long)r->count,
                                    r->n_tied, (long long)r->merged, r->gone);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i - start, t);
    }
    return list;
}

typedef struct {
    int64_t f;
    int32_t w;
} WordKey;

static int wordkey_cmp(const void *x, const void *y)
{
    const WordKey *p = (const WordKey *)x, *q = (const WordKey *)y;
    if (p->f != q->f)
        return p->f > q->f ? -1 : 1;
    return (p->w > q->w) - (p->w < q->w);
}

/* max-heap by "worse" (the worst of the kept words at the root) */
static void wordkey_sift(WordKey *h, int64_t i, int64_t n)
{
    WordKey x = h[i];
    for (;;) {
        int64_t ch = 2 * i + 1;
        if (ch >= n)
            break;
        if (ch + 1 < n && wordkey_cmp(&h[ch + 1], &h[ch]) > 0)
            ch++;
        if (wordkey_cmp(&h[ch], &x) <= 0)
            break;
        h[i] = h[ch];
        i = ch;
    }
    h[i] = x;
}

PyObject *Core_touched(CoreObject *c, PyObject *args)
{
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "n:touched", &limit))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (c->n_steps == 0)
        return Py_BuildValue("(i[])", 0);
    StepRec *r = &c->steps[c->n_steps - 1];
    int64_t k = c->rlog_n - r->rstart;
    WordKey *ws = (WordKey *)malloc((size_t)(k > 0 ? k : 1) * sizeof(WordKey));
    if (!ws)
        return PyErr_NoMemory();
    int64_t nd = 0, nd_sorted;
    int32_t last = -1;
    for (int64_t i = r->rstart; i < c->rlog_n; i++) {
        int32_t w = c->sl[c->rlog[i]].wid;
        if (w != last) {
            ws[nd].w = w;
            ws[nd].f = c->freq[w];
            nd++;
            last = w;
        }
    }
    nd_sorted = nd;
    if (limit < 0)
        limit = 0;
    if (limit > nd)
        limit = (Py_ssize_t)nd;
    if (limit > 0 && (int64_t)limit * 4 < nd) {
        /* keep the `limit` best in a heap whose root is the worst of them */
        int64_t m = limit;
        for (int64_t i = m / 2; i-- > 0;)
            wordkey_sift(ws, i, m);
        for (int64_t i = m; i < nd; i++) {
            if (wordkey_cmp(&ws[i], &ws[0]) < 0) {
                ws[0] = ws[i];
                wordkey_sift(ws, 0, m);
            }
        }
        nd_sorted = m;
    }
    qsort(ws, (size_t)nd_sorted, sizeof(WordKey), wordkey_cmp);
    PyObject *list = PyList_New(limit);
    if (!list) {
        free(ws);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < limit; i++) {
        PyObject *v = PyLong_FromLong(ws[i].w);
        if (!v) {
            free(ws);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    free(ws);
    return Py_BuildValue("(LN)", (long long)nd, list);
}

PyObject *Core_word(CoreObject *c, PyObject *args)
{
    Py_ssize_t w;
    if (!PyArg_ParseTuple(args, "n:word", &w))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (w < 0 || w >= c->n_words) {
        PyErr_SetString(PyExc_IndexError, "word index out of range");
        return NULL;
    }
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    if (c->starts[w] == c->starts[w + 1])
        return list;
    for (int32_t i = (int32_t)c->starts[w]; i >= 0; i = c->sl[i].nxt) {
        PyObject *v = PyLong_FromLong(c->sl[i].sym);
        if (!v || PyList_Append(list, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(v);
    }
    return list;
}

/* Every word's symbols at once (SuperBPE's rebuild reads them all): bytes of int32 ids,
   and bytes of n_words + 1 int64 starts into them. One call, not word(w) per word. */
PyObject *Core_segmentation(CoreObject *c, PyObject *noargs)
{
    (void)noargs;
    if (check_usable(c) < 0)
        return NULL;
    int32_t *sym = malloc(((size_t)c->n_slots + 1) * sizeof(int32_t));
    int64_t *st = malloc(((size_t)c->n_words + 1) * sizeof(int64_t));
    if (!sym || !st) {
        free(sym);
        free(st);
        return PyErr_NoMemory();
    }
    int64_t k = 0;
    st[0] = 0;
    for (int32_t w = 0; w < c->n_words; w++) {
        if (c->starts[w] != c->starts[w + 1])
            for (int32_t i = (int32_t)c->starts[w]; i >= 0; i = c->sl[i].nxt)
                sym[k++] = c->sl[i].sym;
        st[w + 1] = k;
    }
    PyObject *out = Py_BuildValue("(y#y#)", (const char *)sym, (Py_ssize_t)(k * 4),
                                  (const char *)st, (Py_ssize_t)(((size_t)c->n_words + 1) * 8));
    free(sym);
    free(st);
    return out;
}

PyObject *Core_pair_count(CoreObject *c, PyObject *args)
{
    long long a, b;
    if (!PyArg_ParseTuple(args, "LL:pair_count", &a, &b))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (a < 0 || b < 0 || a >= c->n_tokens || b >= c->n_tokens)
        return PyLong_FromLong(0);
    int32_t p = pair_find(c, (int32_t)a, (int32_t)b);
    return PyLong_FromLongLong(p >= 0 ? (long long)c->pairs[p].count : 0);
}

PyObject *Core_symbol_count(CoreObject *c, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:symbol_count", &t))
        return NULL;
    if (check_usable(c) < 0)
        return NULL;
    if (t < 0 || t >= c->n_tokens) {
        PyErr_SetString(PyExc_IndexError, "token id out of range");
        return NULL;
    }
    return PyLong_FromLongLong((long long)c->symcount[t]);
}

PyObject *Core_token(CoreObject *c, PyObject *args)
{
    long long t;
    if (!PyArg_ParseTuple(args, "L:token", &t))
        return NULL;
    if (check_idle(c) < 0)
        return NULL;
    if (t < 0 || t >= c->n_tokens) {
        PyErr_SetString(PyExc_IndexError, "token id out of range");
        return NULL;
    }
    return PyBytes_FromStringAndSize(c->tok_buf + c->tok_off[t], c->tok_len[t]);
}
