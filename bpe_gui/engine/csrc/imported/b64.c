/*
 * b64.c -- standard base64 (the token bytes of a .tiktoken file).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "imported/pipeline.h"

static int8_t b64[256];

void init_b64(void) {
    const char *al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    memset(b64, -1, sizeof b64);
    for (int i = 0; i < 64; i++) b64[(unsigned char)al[i]] = (int8_t)i;
}

/* Standard base64 with padding; returns the decoded length or -1. */
ptrdiff_t b64_decode(const char *s, ptrdiff_t n, char *out) {
    if (n == 0 || n % 4) return -1;
    ptrdiff_t o = 0;
    for (ptrdiff_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int j = 0; j < 4; j++) {
            unsigned char c = (unsigned char)s[i + j];
            if (c == '=' && i + 4 == n && j >= 2) {
                v[j] = 0;
                pad++;
            } else if (b64[c] < 0 || pad) {
                return -1;
            } else {
                v[j] = b64[c];
            }
        }
        uint32_t w = (uint32_t)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        out[o++] = (char)(w >> 16);
        if (pad < 2) out[o++] = (char)(w >> 8);
        if (pad < 1) out[o++] = (char)w;
    }
    return o;
}

