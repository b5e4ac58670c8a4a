/*
 * core_fuzz.c -- a libFuzzer target for the training core (see CONTRIBUTING.md, "Change
 * a C extension"): any bytes become a corpus -- the first byte the tie rule and the
 * number of steps, the rest words cut at byte 0x20, each byte a symbol of its own (a
 * byte-level table) -- that core_exercise.h builds, steps, checks, undoes and redoes.
 * A failed check aborts, which the fuzzer reports with the input.
 *
 *   clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -I bpe_gui/engine/csrc \
 *       tests/c/core_fuzz.c bpe_gui/engine/csrc/core/core_*.c -o core_fuzz && ./core_fuzz
 *
 * Built with -DBPE_FUZZ_MAIN instead (any C compiler), main() runs the target on the
 * files named on the command line (tests/engine/test_c_core.py does, so it stays built).
 */
#include "core_exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16)
        return 0;
    int32_t *symbols = (int32_t *)malloc(size * sizeof(int32_t));
    int64_t *starts = (int64_t *)malloc((size + 1) * sizeof(int64_t));
    int64_t *freqs = (int64_t *)malloc((size + 1) * sizeof(int64_t));
    char bytes[256];
    int64_t offs[257];
    if (!symbols || !starts || !freqs)
        abort();
    for (int i = 0; i < 256; i++) {
        bytes[i] = (char)i;
        offs[i] = i;
    }
    offs[256] = 256;
    int32_t n_words = 0, n_sym = 0;
    starts[0] = 0;
    for (size_t i = 1; i <= size; i++) {
        if (i == size || data[i] == 0x20) {
            if (n_sym > starts[n_words]) {
                /* a word's count: its first symbol's low bits, so counts differ and tie */
                freqs[n_words] = 1 + (symbols[starts[n_words]] & 3);
                starts[++n_words] = n_sym;
            }
            continue;
        }
        symbols[n_sym++] = data[i];
    }
    CoreCorpus k = {data[0] % 3, 1 + data[0] / 3 * 4, 256, bytes, offs,
                    n_words, symbols, starts, freqs};
    if (exercise_core(&k, NULL) != 0)
        abort();
    free(symbols);
    free(starts);
    free(freqs);
    return 0;
}

#ifdef BPE_FUZZ_MAIN
int main(int argc, char **argv)
{
    static uint8_t buf[1 << 16];
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f)
            return 2;
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("ok\n");
    return 0;
}
#endif
