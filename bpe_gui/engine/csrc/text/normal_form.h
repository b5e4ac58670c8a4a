/*
 * normal_form.h -- NFC and NFKC of the stretches of a text that the form may change
 * (text/normal_forms.py finds them: outside them every character is its own form and a
 * boundary the form never crosses). Plain C: the tables come as one blob that
 * text/normal_forms.py builds from Python's own unicodedata (so the answers follow its
 * Unicode version), the characters as 32-bit code points.
 *
 * The blob, little-endian, in this order:
 *   uint32 magic NF_MAGIC, n_blocks, n_recs, n_decomp, n_pairs
 *   uint16 stage1[NF_STAGE1]  block of each 256 code points (0: the empty block)
 *   uint16 stage2[n_blocks * 256]  record of each code point, 1-based (0: none)
 *   (padding to 4 bytes)
 *   uint32 recs[n_recs]  a code point with a canonical combining class or a
 *       decomposition under the form (canonical for NFC, compatibility for NFKC; full,
 *       as NFD/NFKD of the character alone): bits 0-7 the class, 8-12 the length of its
 *       decomposition (0: none), 13-31 where it starts in decomp
 *   uint32 decomp[n_decomp]
 *   (padding to 8 bytes)
 *   uint64 keys[n_pairs]  the primary composites' two parts, first << 21 | second, sorted
 *   uint32 composites[n_pairs]
 * Hangul syllables are decomposed and composed by rule, not by the tables.
 */
#ifndef BPE_NORMAL_FORM_H
#define BPE_NORMAL_FORM_H

#include <stddef.h>
#include <stdint.h>

#define NF_MAGIC 0x4E46424Du /* "MBFN" */
#define NF_STAGE1 0x1100     /* blocks of 256 up to U+10FFFF */

typedef struct {
    const uint16_t *stage1, *stage2;
    const uint32_t *recs, *decomp, *composites;
    const uint64_t *keys;
    size_t n_blocks, n_recs, n_decomp, n_pairs;
} NfTables;

/* Read a blob into t: 0, or -1 when it is malformed (short, bad magic, an index out of
 * range). */
int nf_tables(NfTables *t, const void *blob, size_t size);

/* The form of in[0..n) (a stretch bounded by characters the form leaves alone), written
 * to out (room for at most `room` code points): its length, or (size_t)-1 when out is too
 * small (a character decomposes to at most 18, so 18 * n always suffices). work has room
 * for `room` code points too. */
size_t nf_compose(const NfTables *t, const uint32_t *in, size_t n, uint32_t *out,
                  uint32_t *work, size_t room);

/* ---- where a text may change: its characters against a bitmap of the "safe" ones (a
 * character its own form and a boundary the form never crosses: text/normal_forms.py
 * builds it). bits: a bit per code point below top, 8 a byte, little-endian within each
 * byte; code points from top on are not in it. A text: n characters at data, `kind`
 * bytes each (1, 2, 4), as Python's str keeps them. */

/* 1 when every character is in the bitmap. When every ASCII character is, 8 bytes at a
 * time, those all ASCII skipped without a look-up (Qwen2's NFC asks this of every long
 * text that is not ASCII: English with a few curly quotes took 12 instructions a
 * character, a tenth of its encode; a test per character whether it is ASCII cost
 * Russian, whose ASCII characters stand alone, 3x). */
int nf_all_in(int kind, const void *data, size_t n, const unsigned char *bits, uint32_t top);

/* The stretches a normal form may change, as pairs of character offsets (start, end) */
typedef struct {
    int64_t *v;    /* start0, end0, start1, end1, ... (malloc'ed: free it) */
    size_t n, cap; /* offsets held (twice the stretches), room */
} NfStretches;

/* Appends to out the stretches of the text: a character not in the bitmap, with the run
 * of others around it, from the safe character before it to the safe one after
 * (exclusive); stretches fewer than gap characters apart are joined. With `known` (544
 * bytes: the blocks of 256 code points above the BMP whose bits the bitmap holds), a
 * character above the BMP of a block not known sets its block's bit in `missing`.
 * 0, or -1 out of memory. */
int nf_stretches(int kind, const void *data, size_t n, const unsigned char *bits, uint32_t top,
                 ptrdiff_t gap, const unsigned char *known, unsigned char *missing,
                 NfStretches *out);

/* The forms of a text's stretches, end to end: what the str of the normalised text is
 * made of (the characters kept between the stretches come from the text itself). */
typedef struct {
    uint32_t *out;   /* the forms' code points (malloc'ed: nf_forms_free) */
    size_t *len;     /* each stretch's form's length (malloc'ed) */
    size_t used;     /* code points in out */
    size_t kept;     /* the text's characters outside the stretches */
    int changed;     /* a form differs from its stretch */
    int cls;         /* the highest class of the forms' characters: 0 ASCII, 1 Latin-1,
                        2 the BMP, 3 above (as a str's kind) */
} NfForms;

#define NF_NOMEM (-1)
#define NF_BAD_SPANS (-2)   /* spans out of order or range */
#define NF_NO_ROOM (-3)     /* a stretch's form grew past its room (a bug) */

/* The forms of the stretches sp[0..ns) (ns even: start, end pairs of character offsets,
 * in order and apart, each bounded by characters the form leaves alone) of a text of n
 * characters at data, `kind` bytes each, into f. 0 or NF_*; f to nf_forms_free either way. */
int nf_forms(const NfTables *t, int kind, const void *data, size_t n, const int64_t *sp,
             size_t ns, NfForms *f);
void nf_forms_free(NfForms *f);

/* The normalised text from the forms f of the stretches sp[0..ns) of the text (as
 * nf_forms had them). nf_result_class: the highest class of its characters (0 ASCII, 1
 * Latin-1, 2 the BMP, 3 above), the forms' and those of the parts kept, a pass that
 * stops at `top` (the highest the text's kind holds). nf_assemble: its f->kept + f->used
 * characters written to rdata, `rkind` bytes each (a kind that holds that class). */
int nf_result_class(const NfForms *f, int kind, const void *data, size_t n, const int64_t *sp,
                    size_t ns, int top);
void nf_assemble(const NfForms *f, int kind, const void *data, size_t n, const int64_t *sp,
                 size_t ns, int rkind, void *rdata);

/* The blocks of 256 code points above the BMP that a text holds characters of: bit b of
 * blocks (NF_BLOCK_BYTES) for code points b * 256 .. b * 256 + 255. A text of 1- or
 * 2-byte characters has none. */
#define NF_BLOCK_BYTES (0x110000 >> 11)
void nf_astral_blocks(int kind, const void *data, size_t n, unsigned char *blocks);

#endif
