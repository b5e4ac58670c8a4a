/*
 * pipeline.h -- the tables of an imported tokenizer (the Python type _pipeline.Model).
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
 *
 * Files: pipe_tables.c (keys, ids, GPT-2's byte alphabet), json_scan.c (reading a
 * tokenizer.json's tables from its text), b64.c, pipe_load_hf.c, pipe_load_tiktoken.c,
 * pipe_encode.c (words -> ids), pipelinemodule.c (the Python type and module).
 *
 * Threads: after loading (and configure) a Model is only read; each call merges in
 * scratch of its own, so threads can share one.
 */
#ifndef BPE_PIPELINE_H
#define BPE_PIPELINE_H

#include <stdint.h>
#include <string.h>

#include "merge/merge.h"

#define KIND_HF 0
#define KIND_TIKTOKEN 1
#define NONE_ID (-1)
#define MAX_IDS (1 << 26)

typedef struct {
    int64_t off;  /* into arena */
    int32_t len;
    int32_t id;
    int32_t lookup; /* 1: a key the model looks up; 0: only shown (e.g. not ByteLevel text) */
} Entry;

typedef struct {
    PyObject_HEAD
    int kind, byte_level;
    Py_ssize_t n_ids;
    char *arena;
    size_t arena_len, arena_cap;
    Entry *entries;
    size_t n_entries, entries_cap;
    int32_t *first_entry; /* per id: its first entry, or -1 */
    uint64_t *slots;      /* key hash: (hash tag << 32) | (entry index + 1), or 0 */
    uint64_t *kfilter;    /* one bit per hash of a key looked up */
    size_t n_slots;
    size_t max_key;       /* the longest key looked up, in bytes */
    MergeTable mt;        /* HF: the merges; TIKTOKEN: ranks by bytes (merge.h) */
    int32_t *merge_a, *merge_b, *merge_new;
    Py_ssize_t n_merges, merges_cap;
    int ignore_merges, fuse_unk, byte_fallback;
    int32_t unk_id;
    int32_t fb[256];     /* <0xNN> token ids, or -1 */
    int32_t unit[256];   /* ByteLevel / tiktoken: the id of each single byte, or -1 */
} Model;

extern PyTypeObject ModelType;

/* pipe_tables.c */
extern int32_t byte_to_cp[256];
extern int32_t cp_to_byte[512];
void init_alphabet(void);
int32_t find_key(const Model *m, const char *p, size_t n);
int add_key(Model *m, const char *p, size_t n, int32_t id, int lookup);
int build_slots(Model *m);
void insert_slot(Model *m, size_t i);
int set_ids(Model *m, Py_ssize_t n_ids);
int push_merge(Model *m, int32_t a, int32_t b, int32_t new_id);
Model *new_model(int kind);
int start_merges(Model *m);
int add_merge(Model *m, int32_t a, int32_t b, int32_t rank, int32_t new_id);
int finish_tiktoken(Model *m);
PyObject *problem(Model *m, const char *where, Py_ssize_t index, PyObject *msg);

/* b64.c */
void init_b64(void);
Py_ssize_t b64_decode(const char *s, Py_ssize_t n, char *out);

/* pipe_load_hf.c, pipe_load_tiktoken.c: class methods */
PyObject *Model_from_hf(PyObject *cls, PyObject *args);
PyObject *Model_from_hf_text(PyObject *cls, PyObject *args);
PyObject *Model_from_tiktoken(PyObject *cls, PyObject *args);
int32_t text_key_id(const Model *m, const char *p, size_t n, char *tmp);

/* json_scan.c */
PyObject *find_model_tables(PyObject *mod, PyObject *args);

/* pipe_encode.c */
PyObject *Model_tokenize(Model *m, PyObject *args);
PyObject *Model_encode_words(Model *m, PyObject *args);
PyObject *Model_rebuild(Model *m, PyObject *noargs);
PyObject *Model_merge_table(Model *m, PyObject *noargs);

#endif
