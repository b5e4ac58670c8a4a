/*
 * tsv.c -- writing and reading the rows of word-count tables (see tsv.h).
 *
 * Python would spend a few microseconds per row on escaping and number formatting; a
 * table of 10 M words is then tens of seconds. Here a row is a handful of nanoseconds,
 * so reading and writing a table runs at disk speed.
 */
#include "count/tsv.h"

#include <string.h>

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

size_t bpe_utf8_bad(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* ASCII runs (most text): 32 bytes a step, then 8 */
        while (i + 32 <= n && ((load64(s + i) | load64(s + i + 8) | load64(s + i + 16) |
                                load64(s + i + 24)) & 0x8080808080808080ull) == 0)
            i += 32;
        if (i + 8 <= n && (load64(s + i) & 0x8080808080808080ull) == 0) {
            i += 8;
            continue;
        }
        unsigned char b = s[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        size_t k;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b >= 0xC2 && b <= 0xDF)
            k = 1;
        else if (b >= 0xE0 && b <= 0xEF) {
            k = 2;
            if (b == 0xE0) lo = 0xA0;
            if (b == 0xED) hi = 0x9F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            k = 3;
            if (b == 0xF0) lo = 0x90;
            if (b == 0xF4) hi = 0x8F;
        } else
            return i;
        if (i + k >= n) /* cut off by the end of the data */
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t j = 2; j <= k; j++)
            if ((s[i + j] & 0xC0) != 0x80)
                return i;
        i += k + 1;
    }
    return n;
}

/* ---- writing ------------------------------------------------------------------- */

/* The escape letter of a byte that must be escaped, or 0. */
static inline unsigned char escape_of(unsigned char c)
{
    switch (c) {
    case '\\': return '\\';
    case '\t': return 't';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\0': return '0';
    default: return 0;
    }
}

static inline size_t digits(uint64_t v)
{
    size_t d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

size_t bpe_tsv_bad_entry(size_t blob_len, const int64_t *starts, const int64_t *counts,
                         size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        if (starts[i] < 0 || starts[i + 1] < starts[i] || (uint64_t)starts[i + 1] > blob_len ||
            counts[i] < 0)
            return i;
    return hi;
}

size_t bpe_tsv_size(const unsigned char *blob, const int64_t *starts, const int64_t *counts,
                    size_t lo, size_t hi)
{
    size_t size = 0;
    for (size_t i = lo; i < hi; i++) {
        size += digits((uint64_t)counts[i]) + 2; /* TAB, LF */
        for (int64_t j = starts[i]; j < starts[i + 1]; j++)
            size += 1 + (escape_of(blob[j]) != 0);
    }
    return size;
}

size_t bpe_tsv_write(const unsigned char *blob, const int64_t *starts, const int64_t *counts,
                     size_t lo, size_t hi, unsigned char *out)
{
    unsigned char *o = out;
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = (uint64_t)counts[i];
        size_t d = digits(v);
        for (size_t k = d; k-- > 0; v /= 10)
            o[k] = (unsigned char)('0' + v % 10);
        o += d;
        *o++ = '\t';
        for (int64_t j = starts[i]; j < starts[i + 1]; j++) {
            unsigned char c = blob[j], e = escape_of(c);
            if (e) {
                *o++ = '\\';
                *o++ = e;
            } else
                *o++ = c;
        }
        *o++ = '\n';
    }
    return (size_t)(o - out);
}

/* ---- reading ------------------------------------------------------------------- */

size_t bpe_tsv_count_rows(const unsigned char *s, size_t n)
{
    size_t rows = 0;
    const unsigned char *p = s, *end = s + n;
    while (p < end) {
        const unsigned char *nl = (const unsigned char *)memchr(p, '\n', (size_t)(end - p));
        rows++;
        if (!nl)
            break;
        p = nl + 1;
    }
    return rows;
}

/* Parse one row s[0..n) (without its LF) into r; 0 or -1 with r->err set. */
static int parse_row(const unsigned char *s, size_t n, int64_t base, bpe_tsv_rows *r)
{
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (v > (UINT64_C(1) << 62) / 5) { /* v * 10 would pass 2^63 */
            r->err = "the count is too large (more than 2^63 - 1)";
            return -1;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
        i++;
    }
    if (v >= (UINT64_C(1) << 63)) {
        r->err = "the count is too large (more than 2^63 - 1)";
        return -1;
    }
    if (i == n || s[i] != '\t') {
        r->err = i == 0 ? "a row must be COUNT<tab>WORD, and it does not start with a count"
                        : "a row must be COUNT<tab>WORD: the count is not followed by a tab";
        return -1;
    }
    if (v == 0) {
        r->err = "the count is 0: every word in a table occurs at least once";
        return -1;
    }
    i++;
    if (i == n) {
        r->err = "the word is empty (a row must be COUNT<tab>WORD)";
        return -1;
    }
    unsigned char *w = r->blob + r->blob_len, *o = w;
    for (; i < n; i++) {
        unsigned char c = s[i];
        if (c == '\\') {
            if (++i == n) {
                r->err = "the word ends in a lone backslash (write a backslash as \\\\)";
                return -1;
            }
            switch (s[i]) {
            case '\\': c = '\\'; break;
            case 't': c = '\t'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case '0': c = '\0'; break;
            default:
                r->err = "unknown escape in the word (only \\\\ \\t \\n \\r \\0 are escapes)";
                return -1;
            }
        } else if (c == '\t') {
            r->err = "the row has more than one tab (a tab in a word is written \\t)";
            return -1;
        } else if (c == '\r') {
            r->err = "the row holds a carriage return (a Windows line end?): rows end "
                     "with LF only, and a CR in a word is written \\r";
            return -1;
        }
        *o++ = c;
    }
    size_t len = (size_t)(o - w);
    if (bpe_utf8_bad(w, len) != len) {
        r->err = "the word is not valid UTF-8";
        return -1;
    }
    r->blob_len += len;
    r->ends[r->rows] = base + (int64_t)r->blob_len;
    r->counts[r->rows] = (int64_t)v;
    r->rows++;
    return 0;
}

int bpe_tsv_parse(const unsigned char *s, size_t n, int64_t base, bpe_tsv_rows *r)
{
    const unsigned char *p = s, *end = s + n;
    r->rows = r->blob_len = 0;
    r->err = NULL;
    while (p < end) {
        const unsigned char *nl = (const unsigned char *)memchr(p, '\n', (size_t)(end - p));
        const unsigned char *stop = nl ? nl : end;
        if (parse_row(p, (size_t)(stop - p), base, r) < 0) {
            r->err_row = r->rows;
            return -1;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}
