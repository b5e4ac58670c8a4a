/*
 * encode_driver.c -- the encoder of bpe_gui/engine/csrc/merge/ without Python: a
 * merge-based byte-level table, the native scanner of a preset, the one-pass encoder with
 * its word cache. tests/engine/tokenizers/test_c_encoder.py builds it with the system C
 * compiler (or $CC: a cross compiler, see CONTRIBUTING.md) from scan/scan.c, text/ and
 * merge/ alone and compares its ids with tiktoken's:
 *
 *   cc -std=c99 -O1 -I bpe_gui/engine/csrc tests/c/encode_driver.c \
 *      bpe_gui/engine/csrc/scan/scan.c bpe_gui/engine/csrc/merge/\*.c -o encode_driver
 *   ./encode_driver model.txt text.txt
 *
 * model.txt (whitespace-separated integers):
 *   PRESET LIMIT                  the scanner's preset id, merges of rank < LIMIT used
 *   256 byte ids                  the id of each single byte
 *   N  then N times: A B RANK NEW a merge of ids A and B into NEW
 * Output: the ids of text.txt's bytes (UTF-8), one line, each followed by a space; exit
 * 0. Bad input exits 2, out of memory 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/encoder.h"
#include "merge/merge.h"

static int read_int(FILE *f, long long *v)
{
    return fscanf(f, "%lld", v) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: encode_driver MODEL TEXT\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    long long preset, limit, n, v[4];
    if (!f || read_int(f, &preset) || read_int(f, &limit)) {
        fprintf(stderr, "bad model header\n");
        return 2;
    }
    int32_t byte_ids[256];
    for (int i = 0; i < 256; i++) {
        if (read_int(f, &v[0])) {
            fprintf(stderr, "bad byte ids\n");
            return 2;
        }
        byte_ids[i] = (int32_t)v[0];
    }
    static MergeTable m; /* zeroed */
    if (read_int(f, &n) || mt_init(&m, byte_ids) < 0) {
        fprintf(stderr, "bad merge count, or out of memory\n");
        return 2;
    }
    for (long long i = 0; i < n; i++) {
        if (read_int(f, &v[0]) || read_int(f, &v[1]) || read_int(f, &v[2]) || read_int(f, &v[3])) {
            fprintf(stderr, "bad merge %lld\n", i);
            return 2;
        }
        if (mt_add(&m, (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3], 0) < 0)
            return 1;
    }
    fclose(f);

    FILE *t = fopen(argv[2], "rb");
    if (!t)
        return 2;
    size_t cap = 1 << 16, len = 0, got;
    unsigned char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len, t)) > 0) {
        len += got;
        if (len == cap)
            text = realloc(text, cap *= 2);
    }
    fclose(t);
    if (!text)
        return 1;

    static EncCache cache;
    static EncScratch sc; /* zeroed: an empty scratch */
    if (enc_cache_init(&cache, 1 << 12, (int32_t)limit) < 0)
        return 1;
    if (enc_encode(&m, (int)preset, &cache, &sc, NULL, text, len, len, (int32_t)limit) < 0)
        return 1;
    for (size_t i = 0; i < sc.n; i++)
        printf("%u ", (unsigned)sc.ids[i]);
    printf("\n");
    enc_scratch_free(&sc);
    enc_cache_free(&cache);
    mt_free(&m);
    free(text);
    return 0;
}
