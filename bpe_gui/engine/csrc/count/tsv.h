/*
 * tsv.h -- the rows of a word-count table file, "COUNT<TAB>WORD<LF>", in plain C99.
 *
 * A word may hold any character (it is UTF-8 text), so five bytes are escaped with a
 * backslash: "\\" (backslash), "\t" (tab), "\n" (line feed), "\r" (carriage return) and
 * "\0" (NUL). Nothing else is escaped, so a row is readable as it is, and the file splits
 * into rows at every LF and into two fields at the one TAB of each row. The format is
 * documented in README.md ("Word-count tables"); bpe_gui/engine/corpus/table_file.py reads the
 * header lines and hands the rows here.
 */
#ifndef BPE_TSV_H
#define BPE_TSV_H

#include <stddef.h>
#include <stdint.h>

/* Offset of the first byte of s[0..n) that is not valid UTF-8 (overlong forms and
   surrogates are invalid, as Python's decoder says; a character cut by n is invalid), or
   n when all of it is valid. */
size_t bpe_utf8_bad(const unsigned char *s, size_t n);

/* The first of rows lo..hi whose word lies outside blob[0..blob_len) or whose count is
   negative, or hi when all can be written. */
size_t bpe_tsv_bad_entry(size_t blob_len, const int64_t *starts, const int64_t *counts,
                         size_t lo, size_t hi);

/* Bytes the rows lo..hi of (blob, starts, counts) take once written. */
size_t bpe_tsv_size(const unsigned char *blob, const int64_t *starts, const int64_t *counts,
                    size_t lo, size_t hi);

/* Write rows lo..hi into out (bpe_tsv_size bytes); returns the bytes written. */
size_t bpe_tsv_write(const unsigned char *blob, const int64_t *starts, const int64_t *counts,
                     size_t lo, size_t hi, unsigned char *out);

typedef struct {
    unsigned char *blob;   /* words end to end, unescaped (room: n bytes) */
    int64_t *ends;         /* where each word ends in blob, plus `base` (room: rows) */
    int64_t *counts;       /* room: rows */
    size_t rows;           /* rows read */
    size_t blob_len;
    size_t err_row;        /* on error: the row (0-based) that is malformed */
    const char *err;       /* on error: what is wrong with it (a static string) */
} bpe_tsv_rows;

/* Rows in s[0..n): one per LF (the last may lack its LF). Room needed for parsing. */
size_t bpe_tsv_count_rows(const unsigned char *s, size_t n);

/* Parse the rows of s[0..n) into r (its arrays sized by the caller: n bytes of blob,
   bpe_tsv_count_rows entries each); word ends are offset by base. Returns 0, or -1 with
   r->err_row and r->err set (rows before it are in r). */
int bpe_tsv_parse(const unsigned char *s, size_t n, int64_t base, bpe_tsv_rows *r);

#endif
