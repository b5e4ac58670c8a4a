/*
 * scan_text.h -- a whole text's words as _scan's str functions want them: word ends in
 * bytes and in characters (code points), a chunk at a time, so a binding turns each
 * chunk into objects before the next and memory stays bounded; every word end in
 * characters at once; the number of words; a safe cut in characters; a giant stretch's
 * cuts. Plain C over scan.h (compiled into _scan). A text is UTF-8, s[0..n); `ascii`
 * says it is all ASCII (then a byte is a character and no count is made).
 */
#ifndef BPE_SCAN_TEXT_H
#define BPE_SCAN_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define SCAN_TEXT_CHUNK 65536 /* words a chunk at most */

typedef struct {
    int preset, ascii;
    const unsigned char *s;
    size_t n;
    size_t pos, cp;    /* where the next chunk starts: a byte offset and its character */
    size_t *ends;      /* this chunk's word ends in bytes */
    size_t *cps;       /* ... and in characters (ends itself for an ASCII text) */
    size_t cap;        /* room of each */
} ScanWalk;

/* Ready to walk s[0..n) from its start: 0, or -1 out of memory (scan_walk_free either
   way). A text of n bytes has at most n words: a short one gets a short buffer. */
int scan_walk_init(ScanWalk *w, int preset, const unsigned char *s, size_t n, int ascii);
void scan_walk_free(ScanWalk *w);

/* The next chunk's words: how many (0 when the text is done); their ends in w->ends and
   w->cps; w->pos and w->cp move to the last. A word i spans bytes [ends[i-1], ends[i])
   and characters [cps[i-1], cps[i]), word 0 from where the chunk started. */
size_t scan_walk_next(ScanWalk *w);

/* Every word end of the text in characters, malloc'ed (*k of them; NULL out of memory). */
int64_t *scan_text_char_ends(int preset, const unsigned char *s, size_t n, int ascii, size_t *k);

/* How many words s[0..n) holds. */
size_t scan_text_count(int preset, const unsigned char *s, size_t n);

/* bpe_scan_safe_cut in characters: the text s[0..n) (whose first character starts a
   word), candidates after character lo up to the last character; the cut's character
   offset, or BPE_SCAN_NONE. */
size_t scan_text_safe_cut(int preset, const unsigned char *s, size_t n, size_t lo);

/* A giant stretch without a safe cut (scan.h: bpe_scan_settled, then bpe_scan_piece_cut
   on what follows): *settled, *reach, and the piece cut as an offset in s, or
   BPE_SCAN_NONE. */
size_t scan_text_giant_cuts(int preset, const unsigned char *s, size_t n, size_t limit,
                            size_t *settled, size_t *reach);

#endif
