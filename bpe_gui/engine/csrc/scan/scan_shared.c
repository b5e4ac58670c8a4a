/*
 * scan_shared.c -- the scanner of scan.h for an extension that does not compile scan.c:
 * each function calls the one in `_scan`, through the table `_scan` exports (see scan.h,
 * "One scanner for every extension"). scan_python_add_constants() sets bpe_scan_shared
 * at module init, before anything can scan.
 */
#include "scan/scan.h"

const bpe_scan_api *bpe_scan_shared = NULL;

size_t bpe_scan_word(int preset, const unsigned char *s, size_t pos, size_t n) {
    return bpe_scan_shared->word(preset, s, pos, n);
}

size_t bpe_scan_words(int preset, const unsigned char *s, size_t pos, size_t n, size_t *ends,
                      size_t cap) {
    return bpe_scan_shared->words(preset, s, pos, n, ends, cap);
}

size_t bpe_scan_safe_cut(int preset, const unsigned char *s, size_t lo, size_t hi, size_t n) {
    return bpe_scan_shared->safe_cut(preset, s, lo, hi, n);
}

const bpe_scan_tables *bpe_scan_builtin_tables(void) { return bpe_scan_shared->builtin_tables(); }

const bpe_scan_tables *bpe_scan_current_tables(void) { return bpe_scan_shared->current_tables(); }

const char *bpe_scan_tables_version(const bpe_scan_tables *t) {
    return bpe_scan_shared->tables_version(t);
}

int bpe_scan_install_blob(const unsigned char *blob, size_t len, const char **error) {
    return bpe_scan_shared->install_blob(blob, len, error);
}

int bpe_scan_register_blob(const unsigned char *blob, size_t len, const char **error) {
    return bpe_scan_shared->register_blob(blob, len, error);
}

int bpe_scan_id_ok(int id) { return bpe_scan_shared->id_ok(id); }

const bpe_scan_tables *bpe_scan_slot_tables(int slot) {
    return bpe_scan_shared->slot_tables(slot);
}
