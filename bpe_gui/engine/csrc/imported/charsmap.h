/*
 * charsmap.h -- SentencePiece's precompiled character map (`precompiled_charsmap` of a
 * .model's normalizer_spec, `Precompiled` in a tokenizer.json), in plain C.
 *
 * The blob is `uint32 trie size (little-endian)`, a Darts-clone double-array trie of the
 * source strings (4-byte units), then the normalized strings, each ended by a NUL; a
 * trie leaf's value is the offset of its normalized string. Two libraries read it two
 * ways, and each file is run as its own library runs it:
 *
 *   sentencepiece (charsmap_longest): at each place of the text, the longest source
 *     string (of the first 32 the trie gives) is replaced by its normalized string.
 *   tokenizers (charsmap_hf): the text is cut into extended grapheme clusters; a
 *     cluster shorter than 6 bytes whose bytes *start* with a source string becomes the
 *     normalized string of the shortest one (the rest of the cluster is dropped); every
 *     other character is replaced by its own normalized string, if it has one.
 *
 * A blob is checked once (charsmap_load): every trie unit the lookups can reach lies
 * inside the trie and every leaf points at a normalized string inside the blob that is
 * valid UTF-8, so a hostile file gets a message instead of a read out of bounds.
 */
#ifndef BPE_CHARSMAP_H
#define BPE_CHARSMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t *units;      /* host order */
    size_t n_units;
    char *strs;           /* the normalized strings (a copy), NUL-ended */
    size_t n_strs;
    uint8_t root[256];    /* 1: some source string starts with this byte */
} Charsmap;

/* 0, PIPE_NOMEM, or PIPE_INVALID with the reason in err. hf: tokenizers' reading (the
 * strings blob must be UTF-8 as a whole). */
int charsmap_load(Charsmap *c, const unsigned char *blob, size_t len, int hf, char *err,
                  size_t err_len);
void charsmap_free(Charsmap *c);

/* sentencepiece: the longest source string at s[0..n): its length (0: none) and its
 * normalized string in *out, *out_len. */
size_t charsmap_longest(const Charsmap *c, const unsigned char *s, size_t n, const char **out,
                        size_t *out_len);

/* tokenizers' transform(): the *shortest* source string that s[0..n) starts with (the
 * search stops at a NUL byte): 1 and its normalized string, or 0. */
int charsmap_first(const Charsmap *c, const unsigned char *s, size_t n, const char **out,
                   size_t *out_len);

/* Grapheme cluster classes, one byte per code point (0..0x10FFFF): the low 4 bits the
 * Grapheme_Cluster_Break value (GCB_*), GCB_PICT for Extended_Pictographic, and the
 * Indic_Conjunct_Break value in bits 5-6 (INCB_*). Made from `regex` by the binding. */
enum { GCB_OTHER, GCB_CR, GCB_LF, GCB_CONTROL, GCB_EXTEND, GCB_ZWJ, GCB_RI, GCB_PREPEND,
       GCB_SPACINGMARK, GCB_L, GCB_V, GCB_T, GCB_LV, GCB_LVT };
#define GCB_PICT 0x10
#define INCB_LINKER 0x20
#define INCB_CONSONANT 0x40
#define INCB_EXTEND 0x60
#define INCB_MASK 0x60

/* The end (byte offset) of the extended grapheme cluster that starts at s[i]. */
size_t grapheme_end(const uint8_t *cls, const unsigned char *s, size_t n, size_t i);

/* A growing byte buffer. */
typedef struct {
    char *p;
    size_t n, cap;
} CmBuf;

/* tokenizers' Precompiled normalizer on UTF-8 text: the normalized text into out; with
 * changes (not NULL), one tokenizers alignment change per output character (0 replaces a
 * character, 1 is inserted, -k replaces one and removes k more: NStr.transform's pairs).
 * 0 or PIPE_NOMEM. */
int charsmap_hf(const Charsmap *c, const uint8_t *cls, const unsigned char *s, size_t n,
                CmBuf *out, int32_t **changes, size_t *n_changes);

/* UTF-8 helpers */
static inline size_t cm_char_len(unsigned char b) {
    static const unsigned char len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return len[b >> 4];
}

static inline uint32_t cm_decode(const unsigned char *s, size_t k) {
    switch (k) {
    case 1: return s[0];
    case 2: return (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    case 3: return (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    default: return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
                    (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
    }
}

int cm_put(CmBuf *b, const void *p, size_t n);

#endif
