/*
 * pipe_load_tiktoken.c -- a .tiktoken ranks file ("BASE64 RANK" lines) into the tables.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "imported/pipeline.h"

/* the problem of line `lineno` (spans point into the file, or to the copy in owned) */
static int line_problem(PipeProblem *pr, int kind, int64_t lineno, int64_t num) {
    memset(pr, 0, sizeof *pr);
    pr->kind = kind;
    pr->where = "line";
    pr->index = (ptrdiff_t)lineno;
    pr->num = num;
    return 1;
}

int pipe_load_tiktoken(PipeModel *m, const char *s, size_t len, PipeProblem *pr) {
    const char *end = s + len;
    int rc;
    /* first pass: the largest rank, so ids can be sized */
    int64_t max_rank = -1, lines = 0; /* (not long: 32 bits on Windows) */
    for (const char *p = s; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lines++;
        const char *sp = memchr(p, ' ', (size_t)(le - p));
        if (sp) {
            int64_t r = 0;
            for (const char *q = sp + 1; q < le && *q >= '0' && *q <= '9' && r < MAX_IDS; q++)
                r = r * 10 + (*q - '0');
            if (r > max_rank) max_rank = r;
        }
        p = le + 1;
    }
    if ((rc = set_ids(m, (ptrdiff_t)(max_rank + 1))) < 0) return rc;
    char buf[4096];
    int64_t lineno = 0;
    for (const char *p = s; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        const char *line = p;
        p = le + 1;
        if (le > line && le[-1] == '\r') le--;
        if (le == line) continue;
        const char *sp = memchr(line, ' ', (size_t)(le - line));
        if (!sp || memchr(sp + 1, ' ', (size_t)(le - sp - 1))) {
            int parts = 1;
            for (const char *q = line; q < le; q++) parts += *q == ' ';
            return line_problem(pr, PP_PARTS, lineno, parts);
        }
        ptrdiff_t n = (sp - line) <= (ptrdiff_t)(sizeof buf / 4 * 3) ?
                      b64_decode(line, sp - line, buf) : -1;
        /* only padding ('=', as Whisper's multilingual.tiktoken has at rank 50256): the
           empty token, which tiktoken and Whisper accept; it is never a piece's token */
        int empty = sp > line && sp - line < 4;
        for (const char *q = line; empty && q < sp; q++) empty = *q == '=';
        if (empty) n = 0;
        if (n < 0 || (n == 0 && !empty)) {
            line_problem(pr, PP_BASE64, lineno, 0);
            pr->span[0] = line;
            pr->span_len[0] = (size_t)(sp - line > 40 ? 40 : sp - line);
            return 1;
        }
        int64_t r = 0;
        const char *q = sp + 1;
        if (q == le) return line_problem(pr, PP_RANK_NOT_NUMBER, lineno, 0);
        for (; q < le; q++) {
            if (*q < '0' || *q > '9' || r >= MAX_IDS)
                return line_problem(pr, PP_RANK_NOT_NUMBER, lineno, 0);
            r = r * 10 + (*q - '0');
        }
        if (r > max_rank) return line_problem(pr, PP_RANK_NOT_NUMBER, lineno, 0);
        if (m->first_entry[r] >= 0) return line_problem(pr, PP_RANK_TAKEN, lineno, r);
        if (empty) { /* an id with no key to look up: shown (as nothing), never found */
            if ((rc = add_key(m, buf, 0, (int32_t)r, 0)) < 0) return rc;
            continue;
        }
        /* lookups while loading need the hash: insert entries into a growing table */
        if (2 * (m->n_entries + 1) > m->n_slots && (rc = build_slots(m)) < 0) return rc;
        int added = add_key(m, buf, (size_t)n, (int32_t)r, 1);
        if (added < 0) return added;
        if (added == 0) {
            line_problem(pr, PP_TOKEN_TAKEN, lineno, find_key(m, buf, (size_t)n));
            pr->owned = malloc((size_t)n);
            if (!pr->owned) return PIPE_NOMEM;
            memcpy(pr->owned, buf, (size_t)n);
            pr->span[0] = pr->owned;
            pr->span_len[0] = (size_t)n;
            return 1;
        }
        insert_slot(m, m->n_entries - 1);
    }
    return finish_tiktoken(m);
}
