/*
 * pipe_encode.c -- the ids of a word with an imported model: its first symbols (bytes,
 * or characters with byte fallback and the unknown token, as tokenizers makes them),
 * then the merge engine (merge.h) -- heap merging for long words, so no word is
 * quadratic. Each call merges in scratch of its own: threads can share a model. And the
 * merge list of a tiktoken model, derived from its ranks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imported/pipeline.h"
#include "util/grow.h"

static inline void add_sym(MergeScratch *x, size_t *n, int32_t id, ptrdiff_t start,
                           ptrdiff_t end) {
    x->sym[*n] = id;
    x->st[*n] = (int32_t)start;
    x->en[*n] = (int32_t)end;
    (*n)++;
}

/* Symbols of a word before merging: HF's merge_word (unknown characters become byte
   fallback tokens, else the unknown token, fused if asked, else nothing). *raw: they are
   the word's bytes' own tokens, one each (ASCII letters of the model's single keys, no
   suffix), so the merge engine may read the first pairs' ranks off its table of byte
   pairs by the bytes (mt_init filled it from the merges of two single keys), as for a
   byte-level model: the pieces between cuts inside words of letters are such (random
   letters with the SentencePiece-style file: first_rank's lookups by id were an eighth of
   the encode). */
static size_t initial_syms(const PipeModel *m, MergeScratch *x, const char *w, ptrdiff_t len,
                           int *raw) {
    size_t n = 0;
    *raw = 0;
    if (m->kind == KIND_TIKTOKEN || m->byte_level) {
        for (ptrdiff_t i = 0; i < len; i++) {
            int32_t id = (m->eow_len && i == len - 1) ? m->eow_unit[(unsigned char)w[i]]
                                                      : m->unit[(unsigned char)w[i]];
            if (id != NONE_ID)
                add_sym(x, &n, id, i, i + 1);
            else if (m->unk_id != NONE_ID) {
                if (m->fuse_unk && n && x->sym[n - 1] == m->unk_id && x->en[n - 1] == i)
                    x->en[n - 1] = (int32_t)(i + 1);
                else
                    add_sym(x, &n, m->unk_id, i, i + 1);
            }
        }
        return n;
    }
    int32_t unk_start = -1, unk_end = -1;
    /* an ASCII character's id from the table of single bytes (filled after the keys:
       while no key has come since), not hashed (SentencePiece-style files on long words
       of letters: find_key per character was a third of the encode) */
    int ascii_known = m->unit_entries == m->n_entries && m->unit_entries;
    ptrdiff_t i = 0;
    if (ascii_known && !m->eow_len) { /* ASCII tokens first, in a loop of their own (pieces
                                         of random letters: ~20 -> ~8 instructions a byte) */
        for (; i < len; i++) {
            unsigned char c = (unsigned char)w[i];
            int32_t id = c < 0x80 ? m->unit[c] : NONE_ID;
            if (id == NONE_ID) break;
            x->sym[i] = id;
            x->st[i] = (int32_t)i;
            x->en[i] = (int32_t)i + 1;
        }
        n = (size_t)i;
        *raw = i == len;
    }
    while (i < len) {
        unsigned char c = (unsigned char)w[i];
        ptrdiff_t cl = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (i + cl > len) cl = len - i;
        int last = m->eow_len && i + cl == len;
        if (c < 0x80 && !last && ascii_known && m->unit[c] != NONE_ID && unk_start < 0) {
            add_sym(x, &n, m->unit[c], i, i + 1);
            i++;
            continue;
        }
        char key[4 + 64];
        const char *k = w + i;
        ptrdiff_t kl = cl;
        if (last) { /* the last character with the suffix: tokenizers' merge_word */
            memcpy(key, w + i, (size_t)cl);
            memcpy(key + cl, m->eow, m->eow_len);
            k = key;
            kl = cl + (ptrdiff_t)m->eow_len;
        }
        int32_t id = find_key(m, k, (size_t)kl);
        if (id != NONE_ID) {
            if (unk_start >= 0) {
                add_sym(x, &n, m->unk_id, unk_start, unk_end);
                unk_start = -1;
            }
            add_sym(x, &n, id, i, i + cl);
        } else {
            int fell_back = 0;
            if (m->byte_fallback) { /* every byte of the key (suffix too) as <0xNN> */
                fell_back = 1;
                for (ptrdiff_t j = 0; j < kl; j++)
                    if (m->fb[(unsigned char)k[j]] == NONE_ID) fell_back = 0;
                if (fell_back)  /* tokenizers adds these before a pending unknown token */
                    for (ptrdiff_t j = 0; j < kl; j++) {
                        ptrdiff_t at = j < cl ? i + j : i + cl - 1;
                        add_sym(x, &n, m->fb[(unsigned char)k[j]], at, at + 1);
                    }
            }
            if (!fell_back && m->unk_id != NONE_ID) {
                if (unk_start >= 0 && m->fuse_unk) {
                    unk_end = (int32_t)(i + cl);
                } else {
                    if (unk_start >= 0) add_sym(x, &n, m->unk_id, unk_start, unk_end);
                    unk_start = (int32_t)i;
                    unk_end = (int32_t)(i + cl);
                }
            }
        }
        i += cl;
    }
    if (unk_start >= 0) add_sym(x, &n, m->unk_id, unk_start, unk_end);
    return n;
}

size_t pipe_tokenize(const PipeModel *m, MergeScratch *x, const char *w, size_t len, int *err) {
    if (len == 0) return 0;
    if (len > INT32_MAX / 4) { /* symbol offsets are int32 */
        *err = PIPE_WORD_TOO_LONG;
        return (size_t)-1;
    }
    if (ms_reserve(x, len + 1) < 0) {
        *err = PIPE_NOMEM;
        return (size_t)-1;
    }
    const unsigned char *u = (const unsigned char *)w;
    int bytes = m->kind == KIND_TIKTOKEN || m->byte_level;
    if (bytes && m->mt.bytes_ok && !m->eow_len) /* every byte a token: the byte path */
        return mt_encode_bytes(&m->mt, x, u, len, NO_RANK, 1);
    if (m->mt.whole_words && len <= m->max_key) {
        int32_t id = find_key(m, w, len);
        if (id != NONE_ID) {
            size_t n = 0;
            add_sym(x, &n, id, 0, (ptrdiff_t)len);
            return n;
        }
    }
    int raw;
    size_t n = initial_syms(m, x, w, (ptrdiff_t)len, &raw);
    return mt_merge(&m->mt, x, n, NO_RANK, u, MT_SPANS | (raw ? MT_RAW : 0));
}

/* TIKTOKEN: the merge that makes each multi-byte token, in rank order -- tiktoken's own
   merge loop on the token's bytes with only the ranks below it must end in two parts. */
int pipe_rebuild(PipeModel *m, int32_t **stray, size_t *n_stray) {
    size_t cap = 0;
    *stray = NULL;
    *n_stray = 0;
    if (m->kind != KIND_TIKTOKEN || m->n_merges) return 0;
    MergeScratch x = {0};
    for (ptrdiff_t id = 0; id < m->n_ids; id++) {
        int32_t e = m->first_entry[id];
        if (e < 0 || m->entries[e].len < 2) continue;
        const Entry *en = &m->entries[e];
        const unsigned char *w = (const unsigned char *)m->arena + en->off;
        if (ms_reserve(&x, (size_t)en->len) < 0) goto nomem;
        size_t n = 0;
        for (int32_t i = 0; i < en->len; i++) add_sym(&x, &n, m->unit[w[i]], i, i + 1);
        n = mt_merge(&m->mt, &x, n, (int32_t)id, w, MT_SPANS | MT_RAW);
        if (n == 2 && x.sym[0] != NONE_ID && x.sym[1] != NONE_ID) {
            if (push_merge(m, x.sym[0], x.sym[1], (int32_t)id) < 0) goto nomem;
        } else {
            if (bpe_grow((void **)stray, &cap, *n_stray + 1, sizeof(int32_t), 64) < 0) goto nomem;
            (*stray)[(*n_stray)++] = (int32_t)id;
        }
    }
    ms_free(&x);
    return 0;
nomem:
    ms_free(&x);
    free(*stray);
    *stray = NULL;
    *n_stray = 0;
    return PIPE_NOMEM;
}
