/*
 * core_driver.c -- runs the training core of bpe_gui/engine/csrc/core/ without Python.
 * tests/engine/test_c_core.py builds it with the system C compiler from the core's
 * sources alone and compares the merges it prints with the engine's slow reference:
 *
 *   cc -std=c99 -O1 -I bpe_gui/engine/csrc tests/c/core_driver.c \
 *      bpe_gui/engine/csrc/core/core_*.c -o core_driver
 *   ./core_driver < corpus.txt
 *
 * Input (whitespace-separated integers; token bytes in hex, "-" for none):
 *   TIE MAX_STEPS                 TIE: 0 greatest, 1 first-seen, 2 lowest ids
 *   N_TOKENS  then N_TOKENS times: HEX
 *   N_WORDS   then N_WORDS times:  FREQ LEN SYMBOL...
 * Output: "merge A B NEW COUNT N_TIED" for each step, then "ok" once the checks of
 * core_exercise.h held (exit 0); a failed check exits 1, bad input 2.
 */
#include "core_exercise.h"

static int read_i64(int64_t *v)
{
    long long x;
    if (scanf("%lld", &x) != 1)
        return -1;
    *v = x;
    return 0;
}

static int hex_digit(int ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

int main(void)
{
    int64_t tie, steps, n_tokens, n_words;
    if (read_i64(&tie) || read_i64(&steps) || read_i64(&n_tokens) || tie < 0 || tie > 2 ||
        n_tokens < 1 || n_tokens > (1 << 24)) {
        fprintf(stderr, "bad header\n");
        return 2;
    }
    char word[4096];
    char *bytes = NULL;
    int64_t *offs = (int64_t *)calloc((size_t)n_tokens + 1, sizeof(int64_t));
    size_t len = 0, cap = 0;
    for (int64_t t = 0; t < n_tokens; t++) {
        if (scanf("%4095s", word) != 1) {
            fprintf(stderr, "bad token %lld\n", (long long)t);
            return 2;
        }
        size_t n = strcmp(word, "-") == 0 ? 0 : strlen(word) / 2;
        if (bpe_grow((void **)&bytes, &cap, len + n + 1, 1, 256) < 0)
            return 2;
        for (size_t i = 0; i < n; i++) {
            int hi = hex_digit(word[2 * i]), lo = hex_digit(word[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                fprintf(stderr, "bad hex in token %lld\n", (long long)t);
                return 2;
            }
            bytes[len++] = (char)(hi * 16 + lo);
        }
        offs[t + 1] = (int64_t)len;
    }
    if (read_i64(&n_words) || n_words < 0 || n_words > INT32_MAX / 2) {
        fprintf(stderr, "bad word count\n");
        return 2;
    }
    int32_t *symbols = NULL;
    size_t n_sym = 0, sym_cap = 0;
    int64_t *starts = (int64_t *)calloc((size_t)n_words + 1, sizeof(int64_t));
    int64_t *freqs = (int64_t *)calloc((size_t)n_words + 1, sizeof(int64_t));
    for (int64_t w = 0; w < n_words; w++) {
        int64_t f, n, s;
        if (read_i64(&f) || read_i64(&n) || f < 1 || n < 0) {
            fprintf(stderr, "bad word %lld\n", (long long)w);
            return 2;
        }
        if (bpe_grow((void **)&symbols, &sym_cap, n_sym + (size_t)n + 1, sizeof(int32_t), 256) < 0)
            return 2;
        for (int64_t i = 0; i < n; i++) {
            if (read_i64(&s) || s < 0 || s >= n_tokens) {
                fprintf(stderr, "bad symbol in word %lld\n", (long long)w);
                return 2;
            }
            symbols[n_sym++] = (int32_t)s;
        }
        freqs[w] = f;
        starts[w + 1] = (int64_t)n_sym;
    }
    CoreCorpus k = {(int)tie, steps, (int32_t)n_tokens, bytes ? bytes : "", offs,
                    (int32_t)n_words, symbols ? symbols : (int32_t *)offs, starts, freqs};
    int rc = exercise_core(&k, stdout);
    if (rc == 0)
        printf("ok\n");
    free(bytes);
    free(offs);
    free(symbols);
    free(starts);
    free(freqs);
    return rc;
}
