/*
 * scan.c -- the native pre-tokenizer; API and table installation in scan.h.
 *
 * Each preset's pattern is an ordered alternation; regex tries the alternatives in
 * order at a word start and takes the first that matches (with backtracking inside
 * it). The functions gpt2_word, cl100k_word and o200k_word are that alternation written
 * out by hand (cl100k_family_word serves cl100k, Llama 3 and Qwen2; o200k_family_word
 * o200k and Mistral's tekken), in the same order, with each backtracking step resolved
 * by reasoning (comments say how). Classes per code point come from `regex`
 * (unicode_tables.h).
 */
#include "scan/scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unicode_tables.h"
#include "util/ascii_ws.h"
#include "util/portable.h"

/* flags of a code point; the same bits as bpe_gui/engine/text/unicode_classes.py */
enum { F_S = 0x01, F_L = 0x02, F_N = 0x04, F_M = 0x08, F_U = 0x10, F_W = 0x20, F_CRLF = 0x40 };
enum { F_HI = 0x80 }; /* in t->bytes only: a byte >= 0x80, decode it */
/* contraction letters, bit i = "sdmtlver"[i] */
enum { K_S = 1, K_D = 2, K_M = 4, K_T = 8, K_L = 16, K_V = 32, K_E = 64, K_R = 128 };
#define NSTAGE1 (0x110000 >> 8)
#define INVALID 0xFFFFFFFFu
#define FAIL ((size_t)-1)

struct bpe_scan_tables {
    const uint16_t *stage1;    /* NSTAGE1 block numbers */
    const uint8_t *blocks;     /* nblocks * 256 flags */
    uint8_t bytes[256];        /* flags of ASCII bytes; F_HI for bytes >= 0x80 */
    const uint8_t *ascii_fold; /* 128 fold masks */
    const uint32_t *fold_cp;   /* sorted code points >= 128 with a fold mask */
    const uint8_t *fold_mask;
    size_t nblocks, nfolds;
    char version[32];
    void *owned; /* one allocation holding the arrays, or NULL for the built-in tables */
};

static const bpe_scan_tables builtin = {
    bpe_builtin_stage1,     bpe_builtin_blocks,       BPE_BUILTIN_BYTE_FLAGS,
    bpe_builtin_ascii_fold, bpe_builtin_fold_cp,      bpe_builtin_fold_mask,
    BPE_SCAN_BUILTIN_NBLOCKS, BPE_SCAN_BUILTIN_NFOLDS, BPE_SCAN_TABLES_REGEX_VERSION,
    NULL};
static const bpe_scan_tables *current = &builtin;
/* registered tables (scan.h, "Tables"); slots[0] stays NULL: slot 0 is `current` */
static const bpe_scan_tables *slots[BPE_SCAN_MAX_SLOTS];

typedef const bpe_scan_tables T;

/* ---------------------------------------------------------------- decoding */

typedef struct {
    uint32_t cp; /* INVALID for an invalid byte */
    uint8_t f;   /* flags */
    uint8_t len; /* bytes */
} ch_t;

#define HOT BPE_FORCE_INLINE
#define COLD static BPE_NOINLINE

/* Strict UTF-8 (no overlongs, surrogates or > U+10FFFF); on failure one byte. */
HOT uint32_t decode(const uint8_t *s, size_t i, size_t n, uint8_t *len) {
    uint32_t c = s[i], cp;
    *len = 1;
    if (c < 0x80) return c;
    if (c < 0xE0) {
        if (c < 0xC2 || n - i < 2 || (s[i + 1] & 0xC0) != 0x80) return INVALID;
        *len = 2;
        return ((c & 0x1F) << 6) | (s[i + 1] & 0x3Fu);
    }
    if (c < 0xF0) {
        if (n - i < 3 || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) return INVALID;
        cp = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
        if (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000)) return INVALID;
        *len = 3;
        return cp;
    }
    if (c > 0xF4 || n - i < 4 || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 ||
        (s[i + 3] & 0xC0) != 0x80)
        return INVALID;
    cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) |
         (s[i + 3] & 0x3Fu);
    if (cp < 0x10000 || cp > 0x10FFFF) return INVALID;
    *len = 4;
    return cp;
}

/* decode for a character with 4 bytes readable at p (p[0] >= 0x80), without a branch on
   its length: the same answers. Per lead byte: the length (0: no lead). */
static const uint8_t LEAD_LEN[128] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
HOT uint32_t decode4(const uint8_t *p, uint8_t *len) {
    static const uint32_t cont_mask[5] = {0, 0, 0xC000, 0xC0C000, 0xC0C0C000};
    static const uint32_t lo[5] = {0, 0, 0x80, 0x800, 0x10000}, span[5] = {0, 0, 0x77F, 0xF7FF, 0xFFFFF};
    static const uint8_t sh[5] = {0, 0, 12, 6, 0}, lead_mask[5] = {0, 0, 0x1F, 0x0F, 0x07};
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    unsigned k = LEAD_LEN[p[0] & 0x7F];
    /* the 4-byte form of the bits, shifted down for shorter lengths */
    uint32_t cp4 = (v & lead_mask[k]) << 18 | (v >> 8 & 0x3F) << 12 | (v >> 16 & 0x3F) << 6 |
                   (v >> 24 & 0x3F);
    uint32_t cp = cp4 >> sh[k];
    int ok = k != 0 && ((v ^ 0x80808000u) & cont_mask[k]) == 0 && cp - lo[k] <= span[k] &&
             cp - 0xD800u >= 0x800u;
    *len = (uint8_t)(ok ? k : 1);
    return ok ? cp : INVALID;
}

HOT uint8_t flags_of(T *t, uint32_t cp) {
    if (cp == INVALID) return 0; /* "other" */
    return t->blocks[((size_t)t->stage1[cp >> 8] << 8) | (cp & 0xFF)];
}

HOT ch_t get_slow(T *t, const uint8_t *s, size_t i, size_t n) {
    ch_t c;
    c.cp = n - i >= 4 ? decode4(s + i, &c.len) : decode(s, i, n, &c.len);
    c.f = flags_of(t, c.cp);
    return c;
}

/* the character at i < n */
HOT ch_t get(T *t, const uint8_t *s, size_t i, size_t n) {
    if (s[i] < 0x80) {
        ch_t c = {s[i], t->bytes[s[i]], 1};
        return c;
    }
    return get_slow(t, s, i, n);
}

static uint8_t fold_mask(T *t, uint32_t cp) {
    if (cp < 128) return t->ascii_fold[cp];
    size_t a = 0, b = t->nfolds; /* binary search; there is one entry (U+017F) today */
    while (a < b) {
        size_t m = (a + b) / 2;
        if (t->fold_cp[m] == cp) return t->fold_mask[m];
        if (t->fold_cp[m] < cp) a = m + 1;
        else b = m;
    }
    return 0;
}

/* ---------------------------------------------------------------- runs */

/* The runs look at t->bytes first: flags of ASCII bytes, F_HI for the others. */

/* CJK ideographs U+4E00..U+9FA5 (the block as Unicode 1.1 filled it: letters, Lo, in
   every version since, so one code point's flags are the range's in any version's
   tables): how many of the 6 bytes at p (8 readable) are ideographs, two, one or none
   (0, 3 or 6). Chinese text is runs of them; decoding and looking up each cost ~70
   instructions a character (callgrind, Qwen2 / Llama 3 on Chinese). */
HOT size_t ideographs(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = bpe_bswap64(v);
#endif
    /* bytes 1, 2, 4, 5 continuation bytes (10xxxxxx), 0 and 3 leads 1110xxxx */
    if ((v & 0xC0C0F0C0C0F0ull) != 0x8080E08080E0ull) {
        if ((v & 0xC0C0F0ull) != 0x8080E0ull) return 0;
        v &= 0xFFFFFFull; /* the first character alone */
    }
    for (int k = 0; k < 2; k++) {
        uint32_t b0 = (uint32_t)(v >> (24 * k)) & 0xFF, b1 = (uint32_t)(v >> (24 * k + 8)) & 0xFF,
                 b2 = (uint32_t)(v >> (24 * k + 16)) & 0xFF;
        uint32_t cp = (b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F);
        if (!b0 || cp - 0x4E00u > 0x9FA5u - 0x4E00u) return 3 * (size_t)k;
    }
    return 6;
}

/* end of the run of characters from i whose flags have a bit of `mask` */
HOT size_t run_any(T *t, const uint8_t *s, size_t i, size_t n, uint8_t mask) {
    while (i < n) {
        uint8_t f = t->bytes[s[i]];
        if (f & mask) {
            i++;
            continue;
        }
        if (!(f & F_HI)) return i;
        if (s[i] - 0xE4u <= 0xE9u - 0xE4u && n - i >= 8 && (flags_of(t, 0x4E00) & mask)) {
            size_t k = ideographs(s + i);
            if (k) {
                i += k;
                continue;
            }
        }
        ch_t c = get_slow(t, s, i, n);
        if (!(c.f & mask)) return i;
        i += c.len;
    }
    return i;
}

/* end of the run of characters from i whose flags have no bit of `mask` */
HOT size_t run_none(T *t, const uint8_t *s, size_t i, size_t n, uint8_t mask) {
    while (i < n) {
        uint8_t f = t->bytes[s[i]];
        if (!(f & (mask | F_HI))) {
            i++;
            continue;
        }
        if (!(f & F_HI)) return i;
        ch_t c = get_slow(t, s, i, n);
        if (c.f & mask) return i;
        i += c.len;
    }
    return i;
}

#define OTHER(f) (!((f) & (F_S | F_L | F_N))) /* [^\s\p{L}\p{N}] */

/* \p{N}{1,3} from i, whose character is a number */
static size_t numbers3(T *t, const uint8_t *s, size_t i, size_t n) {
    for (int k = 0; k < 3 && i < n; k++) {
        ch_t c = get(t, s, i, n);
        if (!(c.f & F_N)) break;
        i += c.len;
    }
    return i;
}

/* The whitespace words. From pos (whitespace), the maximal run of \s ends at e.
   \s*[\r\n] (cl100k) and \s*[\r\n]+ (o200k): \s* backtracks from e until the next
   character is CR/LF, so the word ends after the LAST CR/LF of the run (when
   with_crlf). \s+(?!\S): at the end of the text the whole run; otherwise the character
   at e is \S, so \s+ gives back one character: the run minus its last character, if
   that leaves one. \s+: the whole run (a run of one before a non-space). \s++$ (before
   the others, when end_whole): the whole run if it reaches the end of the text (`$`
   also matches before a final \n, but the possessive run has taken that \n). */
static size_t whitespace_word(T *t, const uint8_t *s, size_t pos, size_t n, int with_crlf,
                              int end_whole) {
    size_t i = pos, last = pos, crlf_end = 0;
    while (i < n) {
        /* ASCII whitespace 16 bytes at a time (every Unicode version's \s holds it), the
           last \r or \n of the stretch looked for from its end */
        size_t j = i + bpe_ascii_ws_run(s + i, n - i);
        if (j > i) {
            last = j - 1;
            for (size_t q = j; q > i; q--)
                if (s[q - 1] == '\n' || s[q - 1] == '\r') {
                    crlf_end = q;
                    break;
                }
            if ((i = j) >= n)
                break;
        }
        ch_t c = get(t, s, i, n);
        if (!(c.f & F_S)) break;
        last = i;
        i += c.len;
        if (c.f & F_CRLF) crlf_end = i;
    }
    if (end_whole && i >= n) return n; /* \s++$ (tiktoken's cl100k) comes first */
    if (with_crlf && crlf_end) return crlf_end;
    if (i >= n) return i;
    return last > pos ? last : i;
}

/* After `'` at i: the length of (?i:[sdmt]|ll|ve|re) from i (0 if none). GPT-2 is case
   sensitive: pass fold == 0 to compare bytes. */
static size_t contraction(T *t, const uint8_t *s, size_t i, size_t n, int fold) {
    if (i >= n) return 0;
    ch_t c1 = get(t, s, i, n);
    uint8_t m1 = fold ? fold_mask(t, c1.cp)
                      : (c1.cp < 128 && c1.cp >= 'a' && c1.cp <= 'z' ? t->ascii_fold[c1.cp] : 0);
    if (m1 & (K_S | K_D | K_M | K_T)) return c1.len;
    if (!(m1 & (K_L | K_V | K_R)) || i + c1.len >= n) return 0;
    ch_t c2 = get(t, s, i + c1.len, n);
    uint8_t m2 = fold ? fold_mask(t, c2.cp)
                      : (c2.cp < 128 && c2.cp >= 'a' && c2.cp <= 'z' ? t->ascii_fold[c2.cp] : 0);
    if (((m1 & K_L) && (m2 & K_L)) || ((m1 & (K_V | K_R)) && (m2 & K_E)))
        return (size_t)c1.len + c2.len;
    return 0;
}

/* ---------------------------------------------------------------- GPT-2 */
/* '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
COLD size_t gpt2_rest(T *t, const uint8_t *s, size_t pos, size_t n) {
    ch_t c = get(t, s, pos, n);
    size_t i = pos + c.len, k;
    if (c.cp == '\'' && (k = contraction(t, s, i, n, 0)) != 0) return i + k;
    if (c.cp == ' ' && i < n) { /* ` ?` taken; if what follows fails, retry without */
        ch_t d = get(t, s, i, n);
        if (d.f & F_L) return run_any(t, s, i + d.len, n, F_L);
        if (d.f & F_N) return run_any(t, s, i + d.len, n, F_N);
        if (OTHER(d.f)) return run_none(t, s, i + d.len, n, F_S | F_L | F_N);
    }
    if (c.f & F_L) return run_any(t, s, i, n, F_L);
    if (c.f & F_N) return run_any(t, s, i, n, F_N);
    if (OTHER(c.f)) return run_none(t, s, i, n, F_S | F_L | F_N);
    return whitespace_word(t, s, pos, n, 0, 0);
}

#define ASCII_OTHER(f) (!((f) & (F_S | F_L | F_N | F_HI)))

/* fast path, inlined into the scan loop: ASCII letters or punctuation (but `'`), with
   or without a space before */
HOT size_t gpt2_word(T *t, const uint8_t *s, size_t pos, size_t n) {
    uint8_t f = t->bytes[s[pos]];
    if (f & F_L) return run_any(t, s, pos + 1, n, F_L);
    if (ASCII_OTHER(f) && s[pos] != '\'') return run_none(t, s, pos + 1, n, F_S | F_L | F_N);
    if (s[pos] == ' ' && pos + 1 < n) {
        f = t->bytes[s[pos + 1]];
        if (f & F_L) return run_any(t, s, pos + 2, n, F_L);
        if (ASCII_OTHER(f)) return run_none(t, s, pos + 2, n, F_S | F_L | F_N);
    }
    return gpt2_rest(t, s, pos, n);
}

/* ---------------------------------------------------------------- cl100k */
/* tiktoken's cl100k:
   '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
   |\s++$|\s*[\r\n]|\s+(?!\S)|\s
   Llama 3 (and minbpe's GPT-4, js-tiktoken's cl100k): the same without \s++$ (end_whole
   0); its other spellings ([\r\n]+ after \s*, no possessives, \s+ last) match the same
   words (pattern_kinds.py argues each). Qwen2: Llama 3 with \p{N} instead of \p{N}{1,3}
   (num3 0). The three share these functions; the flags are constants at each call, so
   the inlined fast path has no test of them left. */
COLD size_t cl100k_rest(T *t, const uint8_t *s, size_t pos, size_t n, int end_whole,
                        int num3) {
    ch_t c = get(t, s, pos, n);
    size_t i = pos + c.len, k;
    if (c.cp == '\'' && (k = contraction(t, s, i, n, 1)) != 0) return i + k;
    if (c.f & F_L) return run_any(t, s, i, n, F_L);
    /* a possessive prefix, then letters; without the prefix c itself is no letter */
    if (!(c.f & (F_L | F_N | F_CRLF)) && i < n) {
        ch_t d = get(t, s, i, n);
        if (d.f & F_L) return run_any(t, s, i + d.len, n, F_L);
    }
    if (c.f & F_N) return num3 ? numbers3(t, s, pos, n) : i;
    if (c.cp == ' ' && i < n) {
        ch_t d = get(t, s, i, n);
        if (OTHER(d.f))
            return run_any(t, s, run_none(t, s, i + d.len, n, F_S | F_L | F_N), n, F_CRLF);
    }
    if (OTHER(c.f)) return run_any(t, s, run_none(t, s, i, n, F_S | F_L | F_N), n, F_CRLF);
    return whitespace_word(t, s, pos, n, 1, end_whole);
}

/* fast path, inlined into the scan loop: as gpt2_word (no contraction starts with a
   letter, and a space is a prefix) */
HOT size_t cl100k_family_word(T *t, const uint8_t *s, size_t pos, size_t n, int end_whole,
                              int num3) {
    uint8_t f = t->bytes[s[pos]];
    if (f & F_L) return run_any(t, s, pos + 1, n, F_L);
    if (pos + 1 < n) {
        uint8_t g = t->bytes[s[pos + 1]];
        /* punctuation (but `'`) before an ASCII non-letter: no prefix, an other++ run */
        if (ASCII_OTHER(f) && s[pos] != '\'' && !(g & (F_L | F_HI)))
            return run_any(t, s, run_none(t, s, pos + 1, n, F_S | F_L | F_N), n, F_CRLF);
        if (s[pos] == ' ') {
            if (g & F_L) return run_any(t, s, pos + 2, n, F_L);
            if (ASCII_OTHER(g))
                return run_any(t, s, run_none(t, s, pos + 2, n, F_S | F_L | F_N), n, F_CRLF);
        }
    }
    return cl100k_rest(t, s, pos, n, end_whole, num3);
}

HOT size_t cl100k_word(T *t, const uint8_t *s, size_t pos, size_t n) {
    return cl100k_family_word(t, s, pos, n, 1, 1);
}
HOT size_t llama3_word(T *t, const uint8_t *s, size_t pos, size_t n) {
    return cl100k_family_word(t, s, pos, n, 0, 1);
}
HOT size_t qwen2_word(T *t, const uint8_t *s, size_t pos, size_t n) {
    return cl100k_family_word(t, s, pos, n, 0, 0);
}

/* ---------------------------------------------------------------- o200k */
/* Upper = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (F_U), lower = [\p{Ll}\p{Lm}\p{Lo}\p{M}] (F_W).
   Both hold Lm, Lo and marks ("both" characters). */

/* Upper*Lower+ from i. Upper* first takes the maximal run [i, j). If the character at j
   is lower, Lower+ takes the lower run from j. Otherwise Upper* gives back characters
   until Lower+ can start: at the last "both" character of the run, and Lower+ then
   stops right after it (the next character is upper-only or j). FAIL if none. */
static size_t o200k_upper_lower(T *t, const uint8_t *s, size_t i, size_t n) {
    size_t j = i, both_end = FAIL;
    while (j < n) {
        uint8_t f = t->bytes[s[j]], len = 1;
        if (s[j] - 0xE4u <= 0xE9u - 0xE4u && n - j >= 8 &&
            (flags_of(t, 0x4E00) & (F_U | F_W)) == (F_U | F_W)) {
            size_t k = ideographs(s + j); /* "both" characters: the run goes on */
            if (k) {
                j += k;
                both_end = j;
                continue;
            }
        }
        if (f & F_HI) {
            ch_t c = get_slow(t, s, j, n);
            f = c.f;
            len = c.len;
        }
        if (!(f & F_U)) {
            if (f & F_W) return run_any(t, s, j + len, n, F_W);
            break;
        }
        j += len;
        if (f & F_W) both_end = j;
    }
    return both_end;
}

/* Upper+Lower* from i: FAIL if i does not start an upper run. */
static size_t o200k_upper_plus(T *t, const uint8_t *s, size_t i, size_t n) {
    size_t j = run_any(t, s, i, n, F_U);
    return j == i ? FAIL : run_any(t, s, j, n, F_W);
}

/* (?i:'s|'t|'re|'ve|'m|'ll|'d)? after a word ending at e */
HOT size_t o200k_suffix(T *t, const uint8_t *s, size_t e, size_t n) {
    size_t k;
    if (e < n && s[e] == '\'' && (k = contraction(t, s, e + 1, n, 1)) != 0) return e + 1 + k;
    return e;
}

/* [^\s\p{L}\p{N}]+[\r\n/]* from i (whose character is "other") */
static size_t o200k_punct(T *t, const uint8_t *s, size_t i, size_t n) {
    i = run_none(t, s, i, n, F_S | F_L | F_N);
    while (i < n && (s[i] == '\r' || s[i] == '\n' || s[i] == '/')) i++;
    return i;
}

/* The o200k family: o200k itself, and Mistral's tekken (tekken.json's config.pattern,
   mistral-common's and every published file's): o200k's letter classes and alternatives
   in the same order, without the contraction suffix after the letter words and with
   single digits (\p{N} for \p{N}{1,3}):
     [^\r\n\p{L}\p{N}]?[U]*[L]+ | [^\r\n\p{L}\p{N}]?[U]+[L]* | \p{N} |
      ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
   The suffix is optional and last in its alternative, so it never makes a letter word
   fail or backtrack: leaving it out changes only where a letter word ends (never after
   `'s` ...). `tekken` is a constant at each call (the fast path is inlined per kind). */
#define O200K_END(e) (tekken ? (e) : o200k_suffix(t, s, (e), n))

static size_t o200k_family_rest(T *t, const uint8_t *s, size_t pos, size_t n, int tekken) {
    ch_t c = get(t, s, pos, n);
    size_t i = pos + c.len, e;
    if (!(c.f & (F_L | F_N | F_CRLF))) {
        /* [^\r\n\p{L}\p{N}]? is taken first; alternative 1 then retries without it,
           which can only work if c is a mark (upper and lower). Alternative 2 without
           the prefix needs c upper, i.e. a mark, and then alternative 1 already won. */
        if ((e = o200k_upper_lower(t, s, i, n)) != FAIL) return O200K_END(e);
        if ((c.f & F_U) && (e = o200k_upper_lower(t, s, pos, n)) != FAIL) return O200K_END(e);
        if ((e = o200k_upper_plus(t, s, i, n)) != FAIL) return O200K_END(e);
    } else if (c.f & F_L) {
        if ((e = o200k_upper_lower(t, s, pos, n)) != FAIL) return O200K_END(e);
        if ((e = o200k_upper_plus(t, s, pos, n)) != FAIL) return O200K_END(e);
        return i; /* unreachable: every letter is upper or lower (the generator checks) */
    }
    if (c.f & F_N) return tekken ? i : numbers3(t, s, pos, n);
    if (c.cp == ' ' && i < n) {
        ch_t d = get(t, s, i, n);
        if (OTHER(d.f)) return o200k_punct(t, s, i + d.len, n);
    }
    if (OTHER(c.f)) return o200k_punct(t, s, i, n);
    return whitespace_word(t, s, pos, n, 1, 0);
}

COLD size_t o200k_rest(T *t, const uint8_t *s, size_t pos, size_t n) {
    return o200k_family_rest(t, s, pos, n, 0);
}
COLD size_t tekken_rest(T *t, const uint8_t *s, size_t pos, size_t n) {
    return o200k_family_rest(t, s, pos, n, 1);
}

/* fast path, inlined into the scan loop: with or without a space before, an ASCII
   lower-case letter (the upper run is empty, so Upper*Lower+ is the lower run from
   there) or an ASCII capital and a lower-case letter (the upper run is the capital) */
HOT size_t o200k_family_word(T *t, const uint8_t *s, size_t pos, size_t n, int tekken) {
    size_t p = pos + (s[pos] == ' ');
    if (p + 1 < n) {
        uint8_t f = t->bytes[s[p]], g = t->bytes[s[p + 1]];
        if ((f & (F_U | F_W)) == F_U) {
            if ((g & (F_U | F_W)) == F_W) /* Capital, then lower case */
                return O200K_END(run_any(t, s, p + 2, n, F_W));
            if (!(g & (F_U | F_W | F_HI))) /* one capital: Upper+ */
                return O200K_END(p + 1);
        }
        if ((f & (F_U | F_W)) == F_W) return O200K_END(run_any(t, s, p + 1, n, F_W));
        /* punctuation, with or without a space, before an ASCII non-letter: no letter
           word can start (ASCII has no marks), so an other+[\r\n/]* run */
        if (ASCII_OTHER(f) && !(g & (F_U | F_W | F_HI))) return o200k_punct(t, s, p + 1, n);
    }
    return tekken ? tekken_rest(t, s, pos, n) : o200k_rest(t, s, pos, n);
}
#undef O200K_END

HOT size_t o200k_word(T *t, const uint8_t *s, size_t pos, size_t n) {
    return o200k_family_word(t, s, pos, n, 0);
}
HOT size_t tekken_word(T *t, const uint8_t *s, size_t pos, size_t n) {
    return o200k_family_word(t, s, pos, n, 1);
}

/* SuperBPE's stage 2: its own file */
#include "scan_stage2.inc"

/* ---------------------------------------------------------------- words */

size_t bpe_scan_word_t(T *t, int preset, const unsigned char *s, size_t pos, size_t n) {
    if (pos >= n) return n;
    switch (preset) {
    case BPE_SCAN_GPT2: return gpt2_word(t, s, pos, n);
    case BPE_SCAN_CL100K: return cl100k_word(t, s, pos, n);
    case BPE_SCAN_O200K: return o200k_word(t, s, pos, n);
    case BPE_SCAN_LLAMA3: return llama3_word(t, s, pos, n);
    case BPE_SCAN_QWEN2: return qwen2_word(t, s, pos, n);
    case BPE_SCAN_SUPERBPE2: return stage2_word(t, s, pos, n);
    case BPE_SCAN_TEKKEN: return tekken_word(t, s, pos, n);
    default: return n;
    }
}

size_t bpe_scan_words_t(T *t, int preset, const unsigned char *s, size_t pos, size_t n,
                        size_t *ends, size_t cap) {
    size_t k = 0;
#define LOOP(fn)                                   \
    while (k < cap && pos < n) ends[k++] = pos = fn(t, s, pos, n); \
    break;
    switch (preset) {
    case BPE_SCAN_GPT2: LOOP(gpt2_word)
    case BPE_SCAN_CL100K: LOOP(cl100k_word)
    case BPE_SCAN_O200K: LOOP(o200k_word)
    case BPE_SCAN_LLAMA3: LOOP(llama3_word)
    case BPE_SCAN_QWEN2: LOOP(qwen2_word)
    case BPE_SCAN_SUPERBPE2: LOOP(stage2_word)
    case BPE_SCAN_TEKKEN: LOOP(tekken_word)
    default:
        if (cap && pos < n) ends[k++] = n;
    }
#undef LOOP
    return k;
}

/* the tables of a scanner id: its slot's, or the current ones */
static inline T *tables_of(int id) {
    T *t = slots[BPE_SCAN_SLOT(id)];
    return t ? t : current;
}

int bpe_scan_id_ok(int id) {
    int slot = BPE_SCAN_SLOT(id);
    return id >= 0 && id <= 0xFFFF && BPE_SCAN_KIND(id) < BPE_SCAN_NPRESETS &&
           (slot == 0 || slots[slot] != NULL);
}

size_t bpe_scan_word(int id, const unsigned char *s, size_t pos, size_t n) {
    return bpe_scan_word_t(tables_of(id), BPE_SCAN_KIND(id), s, pos, n);
}

size_t bpe_scan_words(int id, const unsigned char *s, size_t pos, size_t n, size_t *ends,
                      size_t cap) {
    return bpe_scan_words_t(tables_of(id), BPE_SCAN_KIND(id), s, pos, n, ends, cap);
}

size_t *bpe_scan_all_ends(int preset, const unsigned char *s, size_t n, size_t *k) {
    size_t cap = 1024, got = 0, pos = 0;
    size_t *ends = (size_t *)malloc(cap * sizeof(size_t));
    while (ends && pos < n) {
        if (got == cap) {
            size_t *e = (size_t *)realloc(ends, 2 * cap * sizeof(size_t));
            if (!e) {
                free(ends);
                ends = NULL;
                break;
            }
            ends = e;
            cap *= 2;
        }
        got += bpe_scan_words(preset, s, pos, n, ends + got, cap - got);
        pos = ends[got - 1];
    }
    *k = got;
    return ends;
}

const bpe_scan_api *bpe_scan_api_table(void) {
    static const bpe_scan_api api = {
        BPE_SCAN_API_VERSION,     BPE_SCAN_NPRESETS,       bpe_scan_word,
        bpe_scan_words,           bpe_scan_safe_cut,       bpe_scan_builtin_tables,
        bpe_scan_current_tables,  bpe_scan_tables_version, bpe_scan_install_blob,
        bpe_scan_register_blob,   bpe_scan_id_ok,          bpe_scan_slot_tables};
    return &api;
}

/* safe cuts and table installation: separate files, compiled as part of this one */
#include "scan_safe_boundaries.inc"
#include "scan_tables.inc"
#include "scan_giant.inc"
