/* scan_text.c -- see scan_text.h */
#include "scan/scan_text.h"

#include <stdlib.h>

#include "scan/scan.h"

int scan_walk_init(ScanWalk *w, int preset, const unsigned char *s, size_t n, int ascii)
{
    w->preset = preset;
    w->ascii = ascii;
    w->s = s;
    w->n = n;
    w->pos = w->cp = 0;
    w->cap = n < SCAN_TEXT_CHUNK ? n + 1 : SCAN_TEXT_CHUNK;
    w->ends = malloc((ascii ? 1 : 2) * w->cap * sizeof(size_t));
    w->cps = w->ends && !ascii ? w->ends + w->cap : w->ends;
    return w->ends ? 0 : -1;
}

void scan_walk_free(ScanWalk *w)
{
    free(w->ends);
    w->ends = w->cps = NULL;
}

size_t scan_walk_next(ScanWalk *w)
{
    if (w->pos >= w->n)
        return 0;
    size_t *ends = w->ends;
    size_t k = bpe_scan_words(w->preset, w->s, w->pos, w->n, ends, w->cap);
    if (!w->ascii) {
        const unsigned char *s = w->s;
        size_t b = w->pos, c = w->cp, *cps = w->cps;
        for (size_t i = 0; i < k; i++) {
            for (; b < ends[i]; b++)
                c += (s[b] & 0xC0) != 0x80;
            cps[i] = c;
        }
    }
    if (k) {
        w->pos = ends[k - 1];
        w->cp = w->cps[k - 1];
    }
    return k;
}

int64_t *scan_text_char_ends(int preset, const unsigned char *s, size_t n, int ascii, size_t *k)
{
    ScanWalk w;
    int64_t *out = NULL;
    size_t have = 0, cap = 0, got;
    if (scan_walk_init(&w, preset, s, n, ascii) < 0)
        goto fail;
    while ((got = scan_walk_next(&w)) > 0) {
        if (have + got > cap) {
            size_t c = cap ? 2 * cap : 1024;
            while (c < have + got)
                c *= 2;
            int64_t *p = realloc(out, c * sizeof(int64_t));
            if (!p)
                goto fail;
            out = p;
            cap = c;
        }
        for (size_t i = 0; i < got; i++)
            out[have + i] = (int64_t)w.cps[i];
        have += got;
    }
    if (!out && !(out = malloc(sizeof(int64_t))))
        goto fail;
    scan_walk_free(&w);
    *k = have;
    return out;
fail:
    scan_walk_free(&w);
    free(out);
    return NULL;
}

size_t scan_text_count(int preset, const unsigned char *s, size_t n)
{
    size_t count = 0, pos = 0, ends[1024];
    while (pos < n) {
        size_t k = bpe_scan_words(preset, s, pos, n, ends, 1024);
        count += k;
        pos = ends[k - 1];
    }
    return count;
}

size_t scan_text_safe_cut(int preset, const unsigned char *s, size_t n, size_t lo)
{
    size_t blo = 0; /* the byte where character lo starts (valid UTF-8: lead bytes) */
    for (size_t c = 0; c < lo && blo < n; c++)
        do
            blo++;
        while (blo < n && (s[blo] & 0xC0) == 0x80);
    if (n == 0)
        return BPE_SCAN_NONE;
    size_t p = bpe_scan_safe_cut(preset, s, blo, n - 1, n);
    if (p == BPE_SCAN_NONE)
        return p;
    size_t out = 0;
    for (size_t b = 0; b < p; b++)
        out += (s[b] & 0xC0) != 0x80;
    return out;
}

size_t scan_text_giant_cuts(int preset, const unsigned char *s, size_t n, size_t limit,
                            size_t *settled, size_t *reach)
{
    *settled = bpe_scan_settled(preset, s, n, reach);
    size_t cut = *settled < n ? bpe_scan_piece_cut(preset, s + *settled, n - *settled, limit)
                              : 0;
    return cut ? *settled + cut : BPE_SCAN_NONE;
}
