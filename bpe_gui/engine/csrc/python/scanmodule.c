/*
 * bpe_gui.engine.text._scan -- Python binding of scan.c (the preset pre-tokenizer).
 *
 *   words(preset, text) -> list[str]          == regex.findall(pattern, text)
 *   word_ends(preset, text) -> array('q')     code-point offset of each word's end
 *   safe_cut(preset, text, lo, hi) -> int     code points; -1 if none (see scan.h)
 *   count_words(preset, data) -> int          scan only (str or bytes), for benchmarks
 *   set_tables(blob | None), tables_blob(), builtin_tables_blob(), TABLES_REGEX_VERSION,
 *   register_tables(blob) -> slot, slot_version(slot), MAX_TABLE_SLOTS
 * `preset` everywhere is a scanner id: a kind | a registered tables slot << 8 (scan.h).
 *   giant_cuts(preset, data, n, limit) -> (settled, reach, piece_cut): giant stretches
 *       without a safe cut (scan.h, scan_giant.inc), for the block readers
 *   _words_utf8 / _word_ends_utf8 / _safe_cut_utf8: the C API on raw bytes (tests)
 *
 * A str with lone surrogates has no UTF-8 form: UnicodeEncodeError (a ValueError).
 * words scans without the GIL a chunk of SCAN_TEXT_CHUNK words at a time (scan_text.h)
 * and takes the GIL back to turn each chunk into str objects, so memory stays bounded.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "scan/scan.h"
#include "scan/scan_text.h"
#define BPE_SCAN_PROVIDER /* scan.c is compiled in: this module exports it (scan.h) */
#include "python/convert.h"
#include "python/scan_python.h"
#include "text/normal_form.h"
#include "text/special_find.h"
#include "util/simd.h"

#define NOGIL_BYTES 65536 /* shorter texts keep the GIL: releasing it costs more */

static int check_preset(int preset) { return scan_py_check_id(preset); }

/* a str's UTF-8 (convert.h) for a scanner id checked first */
static int text_arg(int preset, PyObject *text, BpeUtf8 *u) {
    return check_preset(preset) < 0 ? -1 : bpe_py_utf8(text, u);
}

/* Short ASCII words recur all the time (" the", ","): a direct-mapped cache of str
   objects saves allocating them again (and their hashes stay computed). GIL held. */
#define WCACHE_SIZE 4096
#define WCACHE_MAXLEN 24
static PyObject *wcache[WCACHE_SIZE];

static PyObject *ascii_word(const unsigned char *p, size_t len) {
    PyObject **slot = NULL, *w;
    if (len <= WCACHE_MAXLEN) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 16777619u;
        slot = &wcache[(h ^ (h >> 15)) & (WCACHE_SIZE - 1)];
        w = *slot;
        if (w && (size_t)PyUnicode_GET_LENGTH(w) == len && !memcmp(PyUnicode_DATA(w), p, len)) {
            Py_INCREF(w);
            return w;
        }
    }
    w = PyUnicode_New((Py_ssize_t)len, 127);
    if (!w) return NULL;
    memcpy(PyUnicode_DATA(w), p, len);
    if (slot) {
        Py_INCREF(w);
        Py_XSETREF(*slot, w);
    }
    return w;
}

/* words: the text walked a chunk at a time (scan_text.h), the GIL let go over each
   chunk's scan of a long text and taken back to make its words */
static PyObject *py_words(PyObject *Py_UNUSED(self), PyObject *args) {
    int preset;
    PyObject *text;
    BpeUtf8 u;
    ScanWalk w;
    if (!PyArg_ParseTuple(args, "iU:words", &preset, &text) || text_arg(preset, text, &u) < 0)
        return NULL;
    PyObject *list = scan_walk_init(&w, preset, u.s, u.n, u.ascii) < 0 ? PyErr_NoMemory()
                                                                       : PyList_New(0);
    while (list) {
        size_t b = w.pos, c = w.cp, k;
        PyThreadState *ts = u.n >= NOGIL_BYTES ? PyEval_SaveThread() : NULL;
        k = scan_walk_next(&w);
        if (ts) PyEval_RestoreThread(ts);
        if (!k) break;
        for (size_t i = 0; i < k; b = w.ends[i], c = w.cps[i], i++) {
            PyObject *word = w.ends[i] - b == w.cps[i] - c /* all ASCII */
                                 ? ascii_word(u.s + b, w.ends[i] - b)
                                 : PyUnicode_Substring(text, (Py_ssize_t)c, (Py_ssize_t)w.cps[i]);
            if (!word || PyList_Append(list, word) < 0) {
                Py_XDECREF(word);
                Py_CLEAR(list);
                break;
            }
            Py_DECREF(word);
        }
    }
    scan_walk_free(&w);
    bpe_py_utf8_release(&u);
    return list;
}

static PyObject *py_word_ends(PyObject *Py_UNUSED(self), PyObject *args) {
    int preset;
    PyObject *text;
    BpeUtf8 u;
    if (!PyArg_ParseTuple(args, "iU:word_ends", &preset, &text) || text_arg(preset, text, &u) < 0)
        return NULL;
    size_t k;
    int64_t *ends;
    PyThreadState *ts = u.n >= NOGIL_BYTES ? PyEval_SaveThread() : NULL;
    ends = scan_text_char_ends(preset, u.s, u.n, u.ascii, &k);
    if (ts) PyEval_RestoreThread(ts);
    PyObject *arr = ends ? bpe_py_array("q", ends, k * sizeof(int64_t)) : PyErr_NoMemory();
    free(ends);
    bpe_py_utf8_release(&u);
    return arr;
}

/* safe_cut in code points: only text[lo - 2 : hi + 1] is encoded (the rules look at two
   characters before p and one at p). */
static PyObject *py_safe_cut(PyObject *Py_UNUSED(self), PyObject *args) {
    int preset;
    PyObject *text;
    Py_ssize_t lo, hi;
    if (!PyArg_ParseTuple(args, "iUnn:safe_cut", &preset, &text, &lo, &hi)) return NULL;
    if (check_preset(preset) < 0) return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (lo < 0) lo = 0;
    if (hi > len - 1) hi = len - 1;
    if (hi <= lo) return PyLong_FromLong(-1);
    Py_ssize_t first = lo >= 2 ? lo - 2 : 0;
    PyObject *part = PyUnicode_Substring(text, first, hi + 1);
    BpeUtf8 u;
    if (!part || bpe_py_utf8(part, &u) < 0) {
        Py_XDECREF(part);
        return NULL;
    }
    size_t p = scan_text_safe_cut(preset, u.s, u.n, (size_t)(lo - first));
    bpe_py_utf8_release(&u);
    Py_DECREF(part);
    return PyLong_FromSsize_t(p == BPE_SCAN_NONE ? -1 : first + (Py_ssize_t)p);
}

/* ---- raw UTF-8 bytes: the C API as other extensions see it (tests, benchmarks) */

static int bytes_arg(PyObject *args, const char *fmt, int *preset, Py_buffer *buf,
                     Py_ssize_t *lo, Py_ssize_t *hi) {
    int ok = lo ? PyArg_ParseTuple(args, fmt, preset, buf, lo, hi)
                : PyArg_ParseTuple(args, fmt, preset, buf);
    if (!ok) return -1;
    if (check_preset(*preset) < 0) {
        PyBuffer_Release(buf);
        return -1;
    }
    return 0;
}

/* the word ends of a buffer (GIL released), converted by `to` (convert.h) */
static PyObject *buffer_ends(PyObject *args, const char *fmt, int bytes) {
    int preset;
    Py_buffer buf;
    if (bytes_arg(args, fmt, &preset, &buf, NULL, NULL) < 0) return NULL;
    size_t k, *ends;
    Py_BEGIN_ALLOW_THREADS
    ends = bpe_scan_all_ends(preset, buf.buf, (size_t)buf.len, &k);
    Py_END_ALLOW_THREADS
    PyObject *list = !ends  ? PyErr_NoMemory()
                     : bytes ? bpe_py_bytes_pieces(buf.buf, ends, k)
                             : bpe_py_sizes(ends, k);
    free(ends);
    PyBuffer_Release(&buf);
    return list;
}

static PyObject *py_words_utf8(PyObject *Py_UNUSED(self), PyObject *args) {
    return buffer_ends(args, "iy*:_words_utf8", 1);
}

static PyObject *py_word_ends_utf8(PyObject *Py_UNUSED(self), PyObject *args) {
    return buffer_ends(args, "iy*:_word_ends_utf8", 0);
}

static PyObject *py_safe_cut_utf8(PyObject *Py_UNUSED(self), PyObject *args) {
    int preset;
    Py_buffer buf;
    Py_ssize_t lo, hi;
    if (bytes_arg(args, "iy*nn:_safe_cut_utf8", &preset, &buf, &lo, &hi) < 0) return NULL;
    size_t p = BPE_SCAN_NONE;
    if (lo >= 0 && hi > lo)
        p = bpe_scan_safe_cut(preset, buf.buf, (size_t)lo, (size_t)hi, (size_t)buf.len);
    PyBuffer_Release(&buf);
    return PyLong_FromLongLong(p == BPE_SCAN_NONE ? -1 : (long long)p);
}

/* giant_cuts(preset, data, n, limit) -> (settled, reach, piece_cut): scan_text.h's
   giant cuts of data[:n] (the piece cut -1 when none), for readers that found no safe
   cut */
static PyObject *py_giant_cuts(PyObject *Py_UNUSED(self), PyObject *args) {
    int preset;
    Py_buffer buf;
    Py_ssize_t n, limit;
    if (bytes_arg(args, "iy*nn:giant_cuts", &preset, &buf, &n, &limit) < 0) return NULL;
    if (n < 0 || n > buf.len || limit <= 0) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "giant_cuts: need 0 <= n <= len(data), limit > 0");
        return NULL;
    }
    size_t settled, reach, cut;
    Py_BEGIN_ALLOW_THREADS
    cut = scan_text_giant_cuts(preset, buf.buf, (size_t)n, (size_t)limit, &settled, &reach);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    return Py_BuildValue("nnn", (Py_ssize_t)settled, (Py_ssize_t)reach,
                         cut == BPE_SCAN_NONE ? (Py_ssize_t)-1 : (Py_ssize_t)cut);
}

/* count_words(preset, data: str | bytes) -> int: boundaries only, no objects */
static PyObject *py_count_words(PyObject *Py_UNUSED(self), PyObject *args) {
    int preset;
    PyObject *data;
    if (!PyArg_ParseTuple(args, "iO:count_words", &preset, &data)) return NULL;
    if (check_preset(preset) < 0) return NULL;
    BpeUtf8 u = {NULL, 0, 0, NULL};
    Py_buffer buf = {0};
    if (PyUnicode_Check(data) ? bpe_py_utf8(data, &u) < 0
                              : PyObject_GetBuffer(data, &buf, PyBUF_SIMPLE) < 0)
        return NULL;
    if (buf.obj) u.s = buf.buf, u.n = (size_t)buf.len;
    size_t count;
    Py_BEGIN_ALLOW_THREADS
    count = scan_text_count(preset, u.s, u.n);
    Py_END_ALLOW_THREADS
    bpe_py_release(&buf, 1);
    bpe_py_utf8_release(&u);
    return PyLong_FromSize_t(count);
}

/* ---- characters in a set */

/* all_in's and unsafe_spans' arguments checked: the bitmap has at least 65536 bits (its
 * code points in *top); -1 with the bitmap released and an error set. */
static int bitmap_args(PyObject *text, Py_buffer *bits, const char *who, Py_UCS4 *top) {
    if (bits->len < 8192) {
        PyBuffer_Release(bits);
        PyErr_Format(PyExc_ValueError, "%s needs a bitmap of 8192 bytes (65536 bits) or more", who);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        PyBuffer_Release(bits);
        return -1;
    }
#endif
    *top = (Py_UCS4)(bits->len * 8 > 0x110000 ? 0x110000 : bits->len * 8);
    return 0;
}

/* all_in(text, bits): 1 when every character of text is a code point whose bit is set in
 * bits (8192 bytes or more: 8 code points a byte, little-endian within each byte; code
 * points past the bitmap are not in it). For the normal-form quick check
 * (text/normal_forms.py): unicodedata.is_normalized looks every character up in its
 * record tables, ~10x the cost of one bit here. */
static PyObject *py_all_in(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text;
    Py_buffer bits;
    if (!PyArg_ParseTuple(args, "Uy*:all_in", &text, &bits))
        return NULL;
    Py_UCS4 top;
    if (bitmap_args(text, &bits, "all_in", &top) < 0)
        return NULL;
    int ok = nf_all_in(PyUnicode_KIND(text), PyUnicode_DATA(text),
                       (size_t)PyUnicode_GET_LENGTH(text), bits.buf, top);
    PyBuffer_Release(&bits);
    return PyBool_FromLong(ok);
}

/* find_stretches over a str (nf_stretches), the error set */
static int find_stretches(PyObject *text, const unsigned char *b, Py_UCS4 top, Py_ssize_t gap,
                          const unsigned char *known, unsigned char *missing, NfStretches *out) {
    if (nf_stretches(PyUnicode_KIND(text), PyUnicode_DATA(text),
                     (size_t)PyUnicode_GET_LENGTH(text), b, top, gap, known, missing, out) == 0)
        return 0;
    PyErr_NoMemory();
    return -1;
}

/* unsafe_spans(text, bits, gap) -> [start0, end0, start1, end1, ...]: the stretches of
 * text a normal form may change, each from the last character in bits (a "safe" one:
 * see all_in, and text/normal_forms.py) before a character not in it, to the next safe
 * character after (exclusive); stretches fewer than gap characters apart are joined.
 * Outside them every character is safe, and a boundary before a safe character is one
 * the form never crosses: the form of the text is the text with each stretch replaced by
 * its form. */
static PyObject *py_unsafe_spans(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text;
    Py_buffer bits;
    Py_ssize_t gap;
    if (!PyArg_ParseTuple(args, "Uy*n:unsafe_spans", &text, &bits, &gap))
        return NULL;
    Py_UCS4 top;
    if (bitmap_args(text, &bits, "unsafe_spans", &top) < 0)
        return NULL;
    NfStretches st = {NULL, 0, 0};
    PyObject *out = NULL;
    if (find_stretches(text, bits.buf, top, gap, NULL, NULL, &st) == 0)
        out = bpe_py_ints64(st.v, st.n, 1);
    free(st.v);
    PyBuffer_Release(&bits);
    return out;
}

/* normal_form(text, spans, tables) -> str: text with each stretch spans[2i]..spans[2i+1]
 * (characters; in order, apart, each bounded by characters the form leaves alone:
 * unsafe_spans') replaced by its NFC or NFKC, by the tables text/normal_forms.py builds
 * (text/normal_form.h); text itself when no stretch changes. In place of unicodedata
 * called on each stretch (Qwen2's NFC of 2 MB of random text: ~6,000 stretches, 9 ms).
 * The stretches' forms are made first (one buffer); then the str, of the narrowest kind
 * its characters need (nf_result_class, nf_assemble). */
static PyObject *form_of(PyObject *text, const int64_t *sp, Py_ssize_t ns, const NfTables *t) {
    PyObject *res = NULL;
    NfForms f = {0};
    size_t n = (size_t)PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    int rc = ns % 2 ? NF_BAD_SPANS : nf_forms(t, kind, data, n, sp, (size_t)ns, &f);
    if (rc == NF_NOMEM)
        PyErr_NoMemory();
    else if (rc == NF_BAD_SPANS)
        PyErr_SetString(PyExc_ValueError, ns % 2 ? "normal_form: spans come in pairs"
                                                 : "normal_form: spans out of order or range");
    else if (rc == NF_NO_ROOM)
        PyErr_SetString(PyExc_SystemError, "normal_form: a stretch grew past its room");
    else if (!f.changed)
        res = Py_NewRef(text);
    else {
        /* the highest class the text's kind holds: 0 ASCII, 1 Latin-1, 2 the BMP, 3 above */
        int top = kind == PyUnicode_1BYTE_KIND   ? !PyUnicode_IS_ASCII(text)
                  : kind == PyUnicode_2BYTE_KIND ? 2 : 3;
        static const Py_UCS4 most[4] = {0x7F, 0xFF, 0xFFFF, 0x10FFFF};
        int cls = nf_result_class(&f, kind, data, n, sp, (size_t)ns, top);
        if ((res = PyUnicode_New((Py_ssize_t)(f.kept + f.used), most[cls])))
            nf_assemble(&f, kind, data, n, sp, (size_t)ns, PyUnicode_KIND(res),
                        PyUnicode_DATA(res));
    }
    nf_forms_free(&f);
    return res;
}

static PyObject *py_normal_form(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text, *spans, *res = NULL;
    Py_buffer blob;
    if (!PyArg_ParseTuple(args, "UO!y*:normal_form", &text, &PyList_Type, &spans, &blob))
        return NULL;
    NfTables t;
    BpeIntArr sp = {0};
    if (nf_tables(&t, blob.buf, (size_t)blob.len) < 0) {
        PyErr_SetString(PyExc_ValueError, "normal_form: the tables are malformed");
        goto done;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        goto done;
#endif
    if (bpe_py_intarr_get(spans, 8, "normal_form(spans)", &sp) == 0)
        res = form_of(text, sp.data, sp.n, &t);
done:
    bpe_py_intarr_release(&sp);
    PyBuffer_Release(&blob);
    return res;
}

/* normal_form_of(text, bits, gap, tables, known) -> (str, None) or (None, missing):
 * unsafe_spans and normal_form in one call (no list of offsets: Qwen2's NFC of 2 MB of
 * random text of every plane listed 12,000 of them), with astral_blocks' question asked
 * on the way: `known` (544 bytes) says which blocks of 256 code points above the BMP the
 * bitmap holds; when the text has characters of others, nothing is made and `missing`
 * (544 bytes) names their blocks, for text/normal_forms.py to work out before it asks
 * again (once a process for each block). */
static PyObject *py_normal_form_of(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text, *res = NULL, *missing_obj = NULL;
    Py_buffer bits, blob, known;
    Py_ssize_t gap;
    if (!PyArg_ParseTuple(args, "Uy*ny*y*:normal_form_of", &text, &bits, &gap, &blob, &known))
        return NULL;
    Py_UCS4 top;
    NfStretches st = {NULL, 0, 0};
    unsigned char missing[0x110000 >> 11] = {0};
    NfTables t;
    if (bitmap_args(text, &bits, "normal_form_of", &top) < 0) {
        PyBuffer_Release(&blob), PyBuffer_Release(&known);
        return NULL;
    }
    if (known.len != (Py_ssize_t)sizeof missing) {
        PyErr_Format(PyExc_ValueError, "normal_form_of needs %d bytes of known blocks",
                     (int)sizeof missing);
        goto done;
    }
    if (nf_tables(&t, blob.buf, (size_t)blob.len) < 0) {
        PyErr_SetString(PyExc_ValueError, "normal_form_of: the tables are malformed");
        goto done;
    }
    if (find_stretches(text, bits.buf, top, gap, known.buf, missing, &st) < 0)
        goto done;
    int any = 0;
    for (size_t i = 0; i < sizeof missing; i++)
        any |= missing[i];
    if (any) {
        missing_obj = PyBytes_FromStringAndSize((const char *)missing, sizeof missing);
        res = missing_obj ? PyTuple_Pack(2, Py_None, missing_obj) : NULL;
    } else {
        PyObject *form = form_of(text, st.v, (Py_ssize_t)st.n, &t);
        res = form ? PyTuple_Pack(2, form, Py_None) : NULL;
        Py_XDECREF(form);
    }
done:
    Py_XDECREF(missing_obj);
    free(st.v);
    PyBuffer_Release(&bits), PyBuffer_Release(&blob), PyBuffer_Release(&known);
    return res;
}

/* astral_blocks(text) -> bytes: 544 bytes, bit b set when text holds a character above
 * U+FFFF of the block b (code points b * 256 .. b * 256 + 255). A text of 1- or 2-byte
 * characters has none (no pass). For text/normal_forms.py: the bitmaps of characters
 * above the BMP are worked out a block at a time, for the blocks a text uses. */
static PyObject *py_astral_blocks(PyObject *Py_UNUSED(self), PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "astral_blocks() needs a str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(arg) < 0)
        return NULL;
#endif
    unsigned char blocks[NF_BLOCK_BYTES];
    nf_astral_blocks(PyUnicode_KIND(arg), PyUnicode_DATA(arg), (size_t)PyUnicode_GET_LENGTH(arg),
                     blocks);
    return PyBytes_FromStringAndSize((const char *)blocks, sizeof blocks);
}

/* ---- tables */

static PyObject *blob_of(const bpe_scan_tables *t) {
    size_t need = bpe_scan_tables_to_blob(t, NULL, 0);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)need);
    if (b) bpe_scan_tables_to_blob(t, (unsigned char *)PyBytes_AS_STRING(b), need);
    return b;
}

static PyObject *py_tables_blob(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(noargs)) {
    return blob_of(bpe_scan_current_tables());
}

static PyObject *py_builtin_tables_blob(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(noargs)) {
    return blob_of(bpe_scan_builtin_tables());
}

/* ---- SpecialFinder: where a text first holds one of some strings (text/special_find.h) */

typedef struct {
    PyObject_HEAD
    SpecialFinder *f;
} FinderObject;

static void Finder_dealloc(FinderObject *self) {
    special_finder_free(self->f);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Finder_init(FinderObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"strings", NULL};
    PyObject *given;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:SpecialFinder", kwlist, &given))
        return -1;
    Py_UCS4 **strs;
    size_t *lens, n;
    if (bpe_py_ucs4_seq(given, &strs, &lens, &n, "SpecialFinder(strings)") < 0)
        return -1;
    special_finder_free(self->f);
    self->f = special_finder_new((const uint32_t *const *)strs, lens, n);
    bpe_py_ucs4_free(strs, lens, n);
    if (!self->f) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* search(text, pos=0) -> (start, end) of the leftmost, then longest, string in
 * text[pos:], or None. The GIL is let go over a long text (a str does not change). */
static PyObject *Finder_search(FinderObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t pos = 0;
    if (!PyArg_ParseTuple(args, "U|n:search", &text, &pos))
        return NULL;
    if (!self->f) {
        PyErr_SetString(PyExc_ValueError, "SpecialFinder was not initialised");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (pos < 0)
        pos = 0;
    size_t at = 0, len = 0;
    int kind = PyUnicode_KIND(text), found;
    const void *data = PyUnicode_DATA(text);
    if (n - pos > (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        found = special_finder_search(self->f, kind, data, (size_t)n, (size_t)pos, &at, &len);
        Py_END_ALLOW_THREADS
    } else {
        found = special_finder_search(self->f, kind, data, (size_t)n, (size_t)pos, &at, &len);
    }
    if (!found)
        Py_RETURN_NONE;
    return Py_BuildValue("nn", (Py_ssize_t)at, (Py_ssize_t)(at + len));
}

static PyMethodDef finder_methods[] = {
    {"search", (PyCFunction)Finder_search, METH_VARARGS,
     "search(text, pos=0) -> (start, end) | None: the leftmost, then longest, string"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FinderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bpe_gui.engine.text._scan.SpecialFinder",
    .tp_basicsize = sizeof(FinderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "SpecialFinder(strings): where a text first holds one of them",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Finder_init,
    .tp_dealloc = (destructor)Finder_dealloc,
    .tp_methods = finder_methods,
};

static PyMethodDef methods[] = {
    {"words", py_words, METH_VARARGS, "words(preset, text) -> list[str]"},
    {"word_ends", py_word_ends, METH_VARARGS, "word_ends(preset, text) -> array('q')"},
    {"safe_cut", py_safe_cut, METH_VARARGS, "safe_cut(preset, text, lo, hi) -> int"},
    {"count_words", py_count_words, METH_VARARGS, "count_words(preset, str|bytes) -> int"},
    {"_words_utf8", py_words_utf8, METH_VARARGS, "_words_utf8(preset, data) -> list[bytes]"},
    {"_word_ends_utf8", py_word_ends_utf8, METH_VARARGS, "_word_ends_utf8(preset, data)"},
    {"_safe_cut_utf8", py_safe_cut_utf8, METH_VARARGS, "_safe_cut_utf8(preset, data, lo, hi)"},
    {"giant_cuts", py_giant_cuts, METH_VARARGS,
     "giant_cuts(preset, data, n, limit) -> (settled, reach, piece_cut)"},
    {"all_in", py_all_in, METH_VARARGS, "all_in(text, bits) -> bool"},
    {"unsafe_spans", py_unsafe_spans, METH_VARARGS,
     "unsafe_spans(text, bits, gap) -> [start, end, ...]"},
    {"normal_form_of", py_normal_form_of, METH_VARARGS,
     "normal_form_of(text, bits, gap, tables, known) -> (str, missing blocks or None)"},
    {"normal_form", py_normal_form, METH_VARARGS,
     "normal_form(text, spans, tables) -> str: each stretch in its NFC or NFKC"},
    {"astral_blocks", py_astral_blocks, METH_O,
     "astral_blocks(text) -> bytes: the blocks of 256 of its characters above U+FFFF"},
    {"tables_blob", py_tables_blob, METH_NOARGS, "the current tables as a blob"},
    {"builtin_tables_blob", py_builtin_tables_blob, METH_NOARGS, "the built-in tables"},
    SCAN_PYTHON_METHODS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_scan",
    "Native pre-tokenizer for the GPT-2, cl100k, o200k, Llama 3, Qwen2 and tekken patterns.",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scan(void) {
    if (PyType_Ready(&FinderType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    if (scan_python_add_constants(m) < 0 ||
        PyModule_AddObjectRef(m, "SpecialFinder", (PyObject *)&FinderType) < 0 ||
        PyModule_AddIntConstant(m, "GPT2", BPE_SCAN_GPT2) < 0 ||
        PyModule_AddIntConstant(m, "CL100K", BPE_SCAN_CL100K) < 0 ||
        PyModule_AddIntConstant(m, "O200K", BPE_SCAN_O200K) < 0 ||
        PyModule_AddIntConstant(m, "LLAMA3", BPE_SCAN_LLAMA3) < 0 ||
        PyModule_AddIntConstant(m, "QWEN2", BPE_SCAN_QWEN2) < 0 ||
        PyModule_AddIntConstant(m, "TEKKEN", BPE_SCAN_TEKKEN) < 0 ||
        PyModule_AddStringConstant(m, "simd", BPE_SIMD_BUILT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    /* the scanner's functions for the other extensions (scan.h, scan_shared.c) */
    PyObject *api = PyCapsule_New((void *)bpe_scan_api_table(), BPE_SCAN_CAPSULE, NULL);
    if (!api || PyModule_AddObjectRef(m, "_C_API", api) < 0) {
        Py_XDECREF(api);
        Py_DECREF(m);
        return NULL;
    }
    Py_DECREF(api);
    return m;
}
