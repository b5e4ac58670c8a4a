/*
 * pipeline.h -- the tables of an imported tokenizer (what _pipeline.Model holds), in
 * plain C: no Python here (python/pipelinemodule.c is the Model type around a PipeModel,
 * reads Python's dicts and lists for from_hf, and words the loaders' problems).
 *
 * A published tokenizer has 100k-260k tokens and up to 300k merges. Loading one must
 * take no longer than its own library takes (tokenizers, tiktoken), so the work per
 * entry -- decoding a key, hashing it, resolving a merge to ids, base64 -- happens in C
 * in one pass, with no Python object per entry until someone asks for one.
 *
 * Two kinds of model, as their own libraries run them, on the one merge engine (merge.h):
 *   HF        merges are (left id, right id) -> (rank, new id); in a word, the pair of
 *             lowest rank is merged, the leftmost one first. ignore_merges: a word that
 *             is itself a token becomes that token. Units are bytes (ByteLevel) or UTF-8
 *             characters, with byte fallback (<0xNN> tokens) and an optional (fused)
 *             unknown token.
 *   TIKTOKEN  no merge list: the adjacent pair whose *concatenated bytes* have the lowest
 *             rank is merged (leftmost on ties), and a word that is a token is taken
 *             whole, as tiktoken's CoreBPE does.
 *   SPM       SentencePiece BPE (a .model, a GGUF `llama` vocabulary): no merge list; the
 *             adjacent pair whose concatenation is a piece of the highest *score* is
 *             merged (leftmost on ties), on the characters of the normalized text
 *             (pipe_spm.c, with its own normalizer and the charsmap of charsmap.h).
 *
 * Files: pipe_tables.c (keys, ids, GPT-2's byte alphabet, configuration), json_scan.c
 * (a tokenizer.json's tables read from its text), b64.c, pipe_load_hf.c (from the text of
 * a tokenizer.json), pipe_load_gguf.c (a GGUF file's string arrays, read in place),
 * pipe_load_spm.c (a SentencePiece .model's pieces, read in place), pipe_load_tiktoken.c,
 * pipe_encode.c (words -> ids, the derived merge list).
 *
 * Errors: functions returning int give 0 (or a count) when done, PIPE_NOMEM when out of
 * memory, PIPE_INVALID when the input is refused (the message in m->error).
 *
 * Threads: after loading (and configure) a model is only read; each call merges in
 * scratch of its own, so threads can share one.
 */
#ifndef BPE_PIPELINE_H
#define BPE_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "merge/merge.h"

#define KIND_HF 0
#define KIND_TIKTOKEN 1
#define KIND_SPM 2
#define NONE_ID (-1)
#define MAX_IDS (1 << 26)

#define PIPE_NOMEM (-1)
#define PIPE_INVALID (-2)

typedef struct {
    int64_t off;  /* into arena */
    int32_t len;
    int32_t id;
    int32_t lookup; /* 1: a key the model looks up; 0: only shown (e.g. not ByteLevel text) */
} Entry;

typedef struct {
    int kind, byte_level;
    ptrdiff_t n_ids;
    char *arena;
    size_t arena_len, arena_cap;
    Entry *entries;
    size_t n_entries, entries_cap;
    int32_t *first_entry; /* per id: its first entry, or -1 */
    uint64_t *slots;      /* key hash: (hash tag << 32) | (entry index + 1), or 0 */
    uint64_t *kfilter;    /* one bit per hash of a key looked up */
    size_t n_slots;
    size_t *shown;        /* the entries not looked up (keys only shown: added tokens) */
    size_t n_shown, shown_cap;
    size_t max_key;       /* the longest key looked up, in bytes */
    MergeTable mt;        /* HF: the merges; TIKTOKEN: ranks by bytes (merge.h) */
    int32_t *merge_a, *merge_b, *merge_new;
    ptrdiff_t n_merges;
    size_t merges_cap;
    int ignore_merges, fuse_unk, byte_fallback;
    int32_t unk_id;
    int32_t fb[256];     /* <0xNN> token ids, or -1 */
    int32_t unit[256];   /* ByteLevel / tiktoken: the id of each single byte, or -1 */
    size_t unit_entries; /* n_entries when unit[] was filled: the ASCII characters' ids of a
                            model of characters come from it while no key has come since */
    char eow[64];        /* HF end_of_word_suffix ("</w>": CLIP): the last symbol of a word */
    size_t eow_len;      /* is its character (byte) followed by the suffix */
    int32_t eow_unit[256]; /* ByteLevel: the id of each byte + suffix */
    char error[192];     /* what the last PIPE_INVALID refused */
    struct SpmData *spm; /* KIND_SPM: pieces' scores and types, the normalizer (pipe_spm.c) */
    struct CutPairs *cut; /* HF without ByteLevel: where no merge crosses (pipe_spm.c) */
    void (*free_spm)(void *m); /* frees spm and cut: left here by pipe_spm.c when it makes
                                  either, so pipe_free (pipe_tables.c) calls nothing there */
} PipeModel;

/* Characters next to each other inside tokens a merge makes: a text may be cut between
 * two characters that never are, and its segments merged alone (pipe_spm.c). */
typedef struct CutPairs {
    uint8_t *joins;       /* per code point: 1 is followed, 2 is preceded, inside a token */
    uint64_t *pairs;      /* (a << 21 | b) + 1 */
    uint64_t *pair_bits;  /* a filter in front of pairs: one bit per hash of a pair */
    size_t pairs_cap, pairs_n;
    uint64_t ascii[256];  /* the pairs of two ASCII characters, bit a * 128 + b: one load
                             (long words of letters ask for every pair) */
} CutPairs;

/* What a loader found wrong in a file, for the binding to word (it quotes the spans as
 * Python's repr would): where ("merges" or "line"), the merge's or line's number. */
enum {
    PP_BASE64,          /* spans[0]: the base64 text (its first 40 bytes) */
    PP_RANK_TAKEN,      /* num: the rank */
    PP_TOKEN_TAKEN,     /* spans[0]: the token's bytes; num: the rank they have */
    PP_PARTS,           /* num: the parts of the line */
    PP_RANK_NOT_NUMBER,
    PP_NOT_IN_VOCAB,    /* what: "token" or "merged token"; spans: it, left, right */
    PP_BAD_MERGE,       /* spans[0]: the merge as written */
    PP_NOT_UTF8,        /* spans[0]: the token's bytes (its first 60) */
};

typedef struct {
    int kind;           /* PP_* */
    const char *where;
    ptrdiff_t index;
    int64_t num;
    const char *what;
    const char *span[3];
    size_t span_len[3];
    char *owned;        /* the spans' copies (free with pipe_problem_free) */
} PipeProblem;

void pipe_problem_free(PipeProblem *pr);
/* A problem in words, as a format for the binding: the numbers written in, each quoted
 * span a %R (Python's repr of it, the binding's to make) and arg[j] the span of the j-th:
 * its index, | PP_AS_TEXT when it is quoted as text (its bytes decoded, undecodable ones
 * replaced) rather than as bytes. The number of %R (0-3), or -1 for an unknown kind. */
#define PP_AS_TEXT 4
int pipe_problem_words(const PipeProblem *pr, char *fmt, size_t cap, int arg[3]);
/* Fill *pr (kind, where, index i, what) with copies of up to three spans of the input
 * (the loaders' "token X, merge Y" messages). 1, or PIPE_NOMEM. */
int pipe_problem(PipeProblem *pr, int kind, const char *where, ptrdiff_t i, const char *what,
                 const char *s0, size_t n0, const char *s1, size_t n1, const char *s2, size_t n2);

/* pipe_tables.c */
extern int32_t byte_to_cp[256];
extern int32_t cp_to_byte[512];
void init_alphabet(void);
void pipe_init(PipeModel *m, int kind);
void pipe_free(PipeModel *m);
int32_t find_key(const PipeModel *m, const char *p, size_t n);
/* k keys at once (p[j], n[j]; out[j] = find_key's answer), their loads overlapped */
void find_keys(const PipeModel *m, size_t k, const char *const *p, const size_t *n,
               int32_t *out);
/* 1 added, 0 that key already names an id, or an error */
int add_key(PipeModel *m, const char *p, size_t n, int32_t id, int lookup);
/* A key whose n bytes the caller wrote at the arena's end (room is the caller's): 1 or
 * an error. No lookup of it, and no first entry of its id: set_ids_from_entries makes
 * those once all are in. */
int add_key_at_end(PipeModel *m, size_t n, int32_t id, int lookup);
/* ids 0..n_ids-1 (above every entry's id), each one's first entry; the arena's room left
 * over given back. 0 or PIPE_NOMEM. */
int set_ids_from_entries(PipeModel *m, ptrdiff_t n_ids);
int build_slots(PipeModel *m);
void insert_slot(PipeModel *m, size_t i);
int set_ids(PipeModel *m, ptrdiff_t n_ids);
int push_merge(PipeModel *m, int32_t a, int32_t b, int32_t new_id);
int start_merges(PipeModel *m);
int add_merge(PipeModel *m, int32_t a, int32_t b, int32_t rank, int32_t new_id);
/* add_merge without the merge list (merge_a, merge_b, merge_new: the caller's) */
int add_merge_only(PipeModel *m, int32_t a, int32_t b, int32_t rank, int32_t new_id);
int finish_tiktoken(PipeModel *m);
void pipe_configure(PipeModel *m, int ignore_merges, int byte_fallback, int unk_id,
                    int fuse_unk);
/* end_of_word_suffix as key bytes (empty: none); PIPE_INVALID past 60 bytes */
int pipe_set_suffix(PipeModel *m, const char *p, size_t n);
/* The bytes an entry stands for (see pipelinemodule.c's tables()): their length, or -1
 * when they pass cap. */
ptrdiff_t shown_bytes(const PipeModel *m, const Entry *en, const char *rep, ptrdiff_t rep_len,
                      int byte_fallback, char *out, ptrdiff_t cap);
ptrdiff_t utf8_byte_level(const char *p, size_t n, char *out);
/* The same from n characters at data, `kind` bytes each (1, 2, 4: a Python str's own
 * form), into out (room for cap bytes): the bytes' count, or -1 when a character is not
 * in GPT-2's alphabet or n passes cap. */
ptrdiff_t chars_byte_level(int kind, const void *data, size_t n, char *out, size_t cap);
/* The id of a key as the file spells it (tmp: room for n bytes), or NONE_ID. */
int32_t text_key_id(const PipeModel *m, const char *p, size_t n, char *tmp);
/* The same into *id, also among the keys that are only shown (compared as UTF-8): 0, or
 * PIPE_NOMEM. */
int text_id(const PipeModel *m, const char *p, size_t n, int32_t *id);
/* The key of id as the file spells it, in UTF-8 (text_id's reverse): a ByteLevel key's
   bytes as GPT-2's alphabet's characters, another key's bytes as they are. NULL when id
   has no key; else a malloc'ed block of *n bytes (free it). */
char *key_text(const PipeModel *m, int64_t id, size_t *n);
/* The key of id as it is stored (*n bytes, in the model's arena), or NULL when id has none. */
const char *pipe_key(const PipeModel *m, int64_t id, size_t *n);
/* How many ids have a token. */
ptrdiff_t pipe_n_tokens(const PipeModel *m);
/* The bytes every token stands for (shown_bytes), end to end in *bytes (malloc'ed),
 * token k's at [(*off)[k], (*off)[k + 1]) and its id (*ids)[k] (malloc'ed, in id order),
 * *k of them. 0, or PIPE_NOMEM (nothing to free). */
int pipe_shown_all(const PipeModel *m, const char *rep, ptrdiff_t rep_len, int byte_fallback,
                   char **bytes, size_t **off, int32_t **ids, size_t *k);

/* b64.c */
void init_b64(void);
ptrdiff_t b64_decode(const char *s, ptrdiff_t n, char *out);

/* The loaders: 0 loaded, 1 a problem (in *pr, to free with pipe_problem_free), or an
 * error; pipe_load_hf_text also 2: something its reader does not take (use json). */
int pipe_load_tiktoken(PipeModel *m, const char *s, size_t len, PipeProblem *pr);
int pipe_load_hf_text(PipeModel *m, const char *s, ptrdiff_t vs, ptrdiff_t ve, ptrdiff_t ms,
                      ptrdiff_t me, int byte_level, PipeProblem *pr);

/* pipe_load_gguf.c: GGUF string arrays read in place, a `gpt2` vocabulary's model.
 * gguf_walk_strings: from string *i at byte *pos, step over strings while each fits in
 * buf[0..len): 0 all `count` read; 1 the length at *pos does not fit; 2 the string whose
 * length is at *pos does not fit (*claim: its length). *pos, *i: where it stopped. */
int gguf_walk_strings(const unsigned char *buf, size_t len, size_t *pos, uint64_t *i,
                      uint64_t count, int big, uint64_t *claim);
/* Pointers into buf and lengths of `count` strings from start: -1, or the index of the
 * first that does not fit. */
ptrdiff_t gguf_string_spans(const unsigned char *buf, size_t len, size_t start, size_t count,
                            int big, const char **out, size_t *out_len);
/* 0 when a buffer of len bytes may hold `count` strings (each has an 8-byte length), else
 * PIPE_INVALID with why in error[0..cap) (`who`: the call named in it). */
int gguf_count_fits(size_t len, ptrdiff_t count, char *error, size_t cap, const char *who);
/* Where each of `count` strings from start has its length field, as an offset in buf, and
 * out[count] the array's end (count + 1 values): 0, or PIPE_INVALID with why in error (a
 * string that does not fit). */
int gguf_string_offsets(const unsigned char *buf, size_t len, ptrdiff_t start, size_t count,
                        int big, uint64_t *out, char *error, size_t cap);
/* The spans of `count` strings from start (gguf_string_spans) in two malloc'ed arrays
 * (free both; NULL unless 0 is returned): 0, PIPE_NOMEM, or PIPE_INVALID with why in
 * error[0..cap) (gguf_count_fits; a string past the buffer's end). */
int gguf_spans(const unsigned char *buf, size_t len, ptrdiff_t start, ptrdiff_t count,
               int big, const char ***p, size_t **n, char *error, size_t cap, const char *who);
int utf8_valid(const unsigned char *s, size_t n);
/* A GGUF BPE vocabulary (`gpt2`: byte_level, ByteLevel keys; `gemma4`: UTF-8 keys) and
 * its merges ("left right" strings), as llama.cpp reads them (the file's header says
 * how); want[k]: texts whose ids go to want_id[k] (NONE_ID: no token). 0, 1 (a problem
 * in *pr) or an error. */
int pipe_load_gguf(PipeModel *m, const char *const *tok, const size_t *tok_len, size_t n_tok,
                   const char *const *mer, const size_t *mer_len, size_t n_mer, int byte_level,
                   const char *const *want, const size_t *want_len, size_t n_want,
                   int32_t *want_id, PipeProblem *pr);
/* pipe_load_gguf from a buffer: its tokens' and merges' string arrays (start, count)
 * found by gguf_spans first (their problems PIPE_INVALID, in m->error). */
int pipe_load_gguf_buf(PipeModel *m, const unsigned char *buf, size_t len, ptrdiff_t ts,
                       ptrdiff_t tn, ptrdiff_t ms, ptrdiff_t mn, int big, int byte_level,
                       const char *const *want, const size_t *want_len, size_t n_want,
                       int32_t *want_id, PipeProblem *pr);

/* pipe_load_spm.c: a SentencePiece .model (ModelProto) read in place: the pieces' texts
 * (start, len in the file's bytes), scores, types; the spans of trainer_spec,
 * normalizer_spec and denormalizer_spec (-1: absent). spm_proto_read: 0 read, 1 refused
 * (the Python reader says why), PIPE_NOMEM. spm_proto_check: what sentencepiece refuses
 * on load (a piece defined twice, no <unk> or two, byte pieces): 0 fine, 1 refused,
 * PIPE_NOMEM. */
typedef struct {
    size_t n;
    uint32_t *start, *len;
    float *score;
    uint8_t *type;
    int64_t spec[3][2];
} SpmProto;
int spm_proto_read(const unsigned char *buf, size_t len, SpmProto *p);
int spm_proto_check(const unsigned char *buf, const SpmProto *p, int byte_fallback);
void spm_proto_free(SpmProto *p);

/* json_scan.c: where model.vocab and model.merges are in a tokenizer.json's text:
 * 1 (spans: vocab start, end, merges start, end) or 0 (not found, or not read). */
int find_model_tables(const char *s, size_t n, ptrdiff_t spans[4]);

/* pipe_encode.c */
#define PIPE_WORD_TOO_LONG (-3)
/* The tokens of one word (its UTF-8) into x->sym (byte spans in x->st, x->en): how
 * many, or (size_t)-1 with *err PIPE_NOMEM or PIPE_WORD_TOO_LONG. */
size_t pipe_tokenize(const PipeModel *m, MergeScratch *x, const char *w, size_t len, int *err);
/* TIKTOKEN: the merge list derived from the ranks; the ids of multi-byte tokens no merge
 * of two lower ranks makes go to *stray (malloc'd, *n_stray of them). 0 or PIPE_NOMEM. */
int pipe_rebuild(PipeModel *m, int32_t **stray, size_t *n_stray);

/* pipe_spm.c: SentencePiece BPE (KIND_SPM) */
enum { SPM_NORMAL = 1, SPM_UNKNOWN, SPM_CONTROL, SPM_USER_DEFINED, SPM_UNUSED, SPM_BYTE };
/* The pieces (keys[i] of lens[i] bytes, their scores and types, id = index). llama: as
 * llama.cpp runs a GGUF `llama` vocabulary (any token may be merged into, no UNUSED
 * re-split, a later token of the same text wins, a byte with no <0xNN> token is the
 * token of the byte itself). 0, PIPE_NOMEM or PIPE_INVALID (m->error). */
int spm_load(PipeModel *m, size_t n, const char *const *keys, const size_t *lens,
             const float *scores, const uint8_t *types, int llama, int byte_fallback);
/* sentencepiece's normalizer: the charsmap blob (NULL/0: identity) and the flags. */
int spm_set_normalizer(PipeModel *m, const unsigned char *charsmap, size_t len,
                       int add_dummy_prefix, int remove_extra_ws, int escape_ws, int ws_suffix);

typedef struct {
    int32_t *ids;
    int64_t *st, *en;   /* with offsets: each id's span in the input (bytes) */
    size_t n, cap;
} SpmOut;
void spm_out_free(SpmOut *o);
/* The ids of a whole text s[0..n) (UTF-8): normalized, cut where no piece crosses, each
 * segment merged (or taken from a cache of segments when !offsets). prefix: llama: put
 * the space prefix before this text. 0 or PIPE_NOMEM. */
int spm_encode(const PipeModel *m, const unsigned char *s, size_t n, int prefix, int offsets,
               SpmOut *out);
/* The normalized text (into *norm, malloc'd, *norm_len bytes) and where each of its
 * bytes comes from in s (*n2o: norm_len + 1 entries, malloc'd; NULL not wanted). */
int spm_normalize_text(const PipeModel *m, const unsigned char *s, size_t n, int prefix,
                       char **norm, size_t *norm_len, int64_t **n2o);
/* The segments of a normalized text where no piece crosses (ends, *n of them). */
int spm_segments(const PipeModel *m, const unsigned char *s, size_t n, size_t **ends,
                 size_t *n_ends);
/* The ids of one normalized piece (no normalizer), spans in bytes of it. */
size_t spm_tokenize(const PipeModel *m, const unsigned char *w, size_t len, SpmOut *out,
                    int *err);
void spm_free(PipeModel *m);
/* One word's ids by its model's merge: spm_tokenize into o (KIND_SPM), else pipe_tokenize
 * into x; *ids points at them (o->ids or x->sym; spans in o or x). How many, or
 * (size_t)-1 with *err (PIPE_NOMEM, PIPE_WORD_TOO_LONG). */
size_t pipe_word(const PipeModel *m, MergeScratch *x, SpmOut *o, const char *w, size_t len,
                 const int32_t **ids, int *err);
int cuts_init(CutPairs *c);
void cuts_free(CutPairs *c);
int cuts_note(CutPairs *c, const unsigned char *p, size_t n); /* a token's characters */
/* HF without ByteLevel (and without ignore_merges): the cut tables from the merges' new
 * tokens (0: none can be made, a merge joins byte-fallback or unknown tokens: the text
 * is merged whole), then a whole text cut and merged by segments, through a cache. */
int pipe_build_cuts(PipeModel *m);
int pipe_encode_cut(const PipeModel *m, const unsigned char *s, size_t n, SpmOut *out);

#endif
