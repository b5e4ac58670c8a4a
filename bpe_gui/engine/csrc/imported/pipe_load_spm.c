/*
 * pipe_load_spm.c -- a SentencePiece ``.model`` (a protobuf ModelProto) read in place:
 * each piece's text as (start, length) in the file's bytes, its score and type, and
 * where the spec messages are (trainer_spec, normalizer_spec, denormalizer_spec, which
 * formats/sentencepiece_fmt.py reads: they are small). Then what sentencepiece refuses
 * on load, checked over those arrays (ModelInterface::InitializePieces).
 *
 * This reader only says yes or no: a file it refuses is read again by the Python reader,
 * which names the field and what is wrong with it. So it must refuse every file the
 * Python reader refuses (it may refuse more: those are read by the Python reader, which
 * then accepts them). Every length is checked against the bytes left in its message.
 *
 * Wire format: a field is a varint tag (number << 3 | wire type) and its value: wire 0
 * a varint, 1 eight bytes, 5 four bytes, 2 a varint length and that many bytes.
 * ModelProto: 1 pieces (a message: 1 piece text, 2 score float, 3 type enum), 2
 * trainer_spec, 3 normalizer_spec, 5 denormalizer_spec; other fields are skipped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imported/pipeline.h"
#include "util/grow.h"
#include "util/hash.h"

/* A varint at buf[*pos..end): 0 read (*v its low 64 bits, *big set when it has more),
   1 it runs past end or is longer than 10 bytes (the Python reader refuses both). */
static int varint(const unsigned char *buf, size_t *pos, size_t end, uint64_t *v, int *big) {
    uint64_t r = 0;
    int shift = 0;
    *big = 0;
    for (;;) {
        if (*pos >= end) return 1;
        unsigned char b = buf[(*pos)++];
        if (shift < 64) {
            uint64_t part = (uint64_t)(b & 0x7F) << shift;
            if (shift > 57 && (uint64_t)(b & 0x7F) >> (64 - shift)) *big = 1;
            r |= part;
        } else if (b & 0x7F) {
            *big = 1;
        }
        if (b < 0x80) {
            *v = r;
            return 0;
        }
        shift += 7;
        if (shift >= 70) return 1;
    }
}

typedef struct {
    uint64_t num; /* field number (huge when the tag had more than 64 bits) */
    int wire;
    uint64_t value; /* wire 0: the varint (low 64 bits) */
    int value_big;
    size_t start, end; /* wire 1, 2, 5: the value's bytes */
} Field;

/* The next field of the message buf[*pos..end): 0 read, 1 refused. */
static int next_field(const unsigned char *buf, size_t *pos, size_t end, Field *f) {
    uint64_t tag;
    int big;
    if (varint(buf, pos, end, &tag, &big)) return 1;
    f->num = big ? UINT64_MAX : tag >> 3;
    f->wire = (int)(tag & 7);
    if (!big && f->num == 0) return 1;
    switch (f->wire) {
    case 0:
        return varint(buf, pos, end, &f->value, &f->value_big);
    case 1:
    case 5: {
        size_t k = f->wire == 1 ? 8 : 4;
        if (end - *pos < k) return 1;
        f->start = *pos;
        *pos += k;
        f->end = *pos;
        return 0;
    }
    case 2: {
        uint64_t n;
        if (varint(buf, pos, end, &n, &big) || big || n > end - *pos) return 1;
        f->start = *pos;
        *pos += (size_t)n;
        f->end = *pos;
        return 0;
    }
    default:
        return 1; /* groups (3, 4) and 6, 7: no SentencePiece model has them */
    }
}

void spm_proto_free(SpmProto *p) {
    free(p->start);
    free(p->len);
    free(p->score);
    free(p->type);
    memset(p, 0, sizeof *p);
}

/* One SentencePiece message: 0 read, 1 refused. */
static int read_piece(const unsigned char *buf, size_t pos, size_t end, SpmProto *p, size_t i) {
    size_t ts = 0, tl = 0;
    float score = 0.0f;
    uint8_t type = SPM_NORMAL;
    int has_text = 0;
    Field f;
    while (pos < end) {
        if (next_field(buf, &pos, end, &f)) return 1;
        if (f.num == 1 && f.wire == 2) {
            ts = f.start;
            tl = f.end - f.start;
            has_text = 1;
        } else if (f.num == 2 && f.wire == 5) {
            memcpy(&score, buf + f.start, 4); /* little-endian float, as x86 and ARM keep it */
        } else if (f.num == 3 && f.wire == 0) {
            type = (!f.value_big && f.value >= SPM_NORMAL && f.value <= SPM_BYTE)
                       ? (uint8_t)f.value : SPM_NORMAL;
        } else if (f.num >= 1 && f.num <= 3) {
            return 1; /* a known field of the wrong wire type */
        }
    }
    if (!has_text || tl == 0 || tl > UINT32_MAX) return 1; /* an empty piece */
    p->start[i] = (uint32_t)ts;
    p->len[i] = (uint32_t)tl;
    p->score[i] = score;
    p->type[i] = type;
    return 0;
}

int spm_proto_read(const unsigned char *buf, size_t len, SpmProto *p) {
    memset(p, 0, sizeof *p);
    for (int k = 0; k < 3; k++) p->spec[k][0] = p->spec[k][1] = -1;
    if (len > UINT32_MAX) return 1;
    size_t cap = 0, pos = 0;
    Field f;
    const uint16_t one = 1;
    if (*(const unsigned char *)&one != 1) return 1; /* big-endian: the Python reader */
    while (pos < len) {
        if (next_field(buf, &pos, len, &f)) goto refuse;
        if ((f.num == 1 || f.num == 2 || f.num == 3 || f.num == 5) && f.wire != 2) goto refuse;
        if (f.num == 1) {
            if (p->n == cap) {
                size_t c1 = cap, c2 = cap, c3 = cap, c4 = cap;
                if (bpe_grow((void **)&p->start, &c1, p->n + 1, sizeof(uint32_t), 1024) < 0 ||
                    bpe_grow((void **)&p->len, &c2, p->n + 1, sizeof(uint32_t), 1024) < 0 ||
                    bpe_grow((void **)&p->score, &c3, p->n + 1, sizeof(float), 1024) < 0 ||
                    bpe_grow((void **)&p->type, &c4, p->n + 1, 1, 1024) < 0) {
                    spm_proto_free(p);
                    return PIPE_NOMEM;
                }
                cap = c1;
                if (c2 < cap) cap = c2;
                if (c3 < cap) cap = c3;
                if (c4 < cap) cap = c4;
            }
            if (read_piece(buf, f.start, f.end, p, p->n)) goto refuse;
            p->n++;
        } else if (f.num == 2 || f.num == 3 || f.num == 5) {
            int k = f.num == 2 ? 0 : f.num == 3 ? 1 : 2;
            if (p->spec[k][0] >= 0) goto refuse; /* given twice: protobuf merges them */
            p->spec[k][0] = (int64_t)f.start;
            p->spec[k][1] = (int64_t)f.end;
        }
    }
    if (p->n == 0 || p->n >= MAX_IDS) goto refuse;
    return 0;
refuse:
    spm_proto_free(p);
    for (int k = 0; k < 3; k++) p->spec[k][0] = p->spec[k][1] = -1;
    return 1;
}

static int is_hex_upper(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

static int hex_value(unsigned char c) { return c <= '9' ? c - '0' : c - 'A' + 10; }

/* A set of piece texts (indices into the pieces), one per group of types. */
typedef struct {
    uint32_t *slot; /* index + 1, or 0 */
    size_t cap;
} TextSet;

/* 1 when the text of piece i was already in the set, else 0 (added). */
static int set_add(TextSet *s, const unsigned char *buf, const SpmProto *p, size_t i) {
    const unsigned char *t = buf + p->start[i];
    size_t n = p->len[i];
    size_t h = (size_t)bpe_hash_bytes(t, n) & (s->cap - 1);
    while (s->slot[h]) {
        size_t j = s->slot[h] - 1;
        if (p->len[j] == n && memcmp(buf + p->start[j], t, n) == 0) return 1;
        h = (h + 1) & (s->cap - 1);
    }
    s->slot[h] = (uint32_t)(i + 1);
    return 0;
}

int spm_proto_check(const unsigned char *buf, const SpmProto *p, int byte_fallback) {
    size_t cap = 16;
    while (cap < 2 * p->n) cap *= 2;
    TextSet normal = {calloc(cap, sizeof(uint32_t)), cap};
    TextSet reserved = {calloc(cap, sizeof(uint32_t)), cap};
    int rc = 0, unk = 0;
    uint8_t seen[256] = {0};
    int n_bytes = 0;
    if (!normal.slot || !reserved.slot) {
        rc = PIPE_NOMEM;
        goto done;
    }
    if (p->n == 0) {
        rc = 1;
        goto done;
    }
    for (size_t i = 0; i < p->n; i++) {
        int t = p->type[i];
        int grouped = t == SPM_NORMAL || t == SPM_USER_DEFINED || t == SPM_UNUSED;
        if (set_add(grouped ? &normal : &reserved, buf, p, i)) { /* defined twice */
            rc = 1;
            goto done;
        }
        if (t == SPM_UNKNOWN && unk++) { /* two <unk> */
            rc = 1;
            goto done;
        }
        if (t == SPM_BYTE) {
            const unsigned char *s = buf + p->start[i];
            if (!byte_fallback || p->len[i] != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>' ||
                !is_hex_upper(s[3]) || !is_hex_upper(s[4])) {
                rc = 1;
                goto done;
            }
            int b = hex_value(s[3]) << 4 | hex_value(s[4]);
            if (!seen[b]) {
                seen[b] = 1;
                n_bytes++;
            }
        }
    }
    if (!unk || (byte_fallback && n_bytes != 256)) rc = 1;
done:
    free(normal.slot);
    free(reserved.slot);
    return rc;
}
