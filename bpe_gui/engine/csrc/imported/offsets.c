/* offsets.c -- token spans adjusted as tokenizers adjusts them (offsets.h). */
#include "imported/offsets.h"

void off_align(int64_t *st, int64_t *en, size_t n, const int64_t *starts,
               const int64_t *ends, size_t n_chars)
{
    for (size_t i = 0; i < n; i++) {
        if (en[i] > st[i]) {
            int64_t s0 = starts[st[i]];
            en[i] = ends[en[i] - 1];
            st[i] = s0;
        } else {
            int64_t k = (size_t)st[i] < n_chars ? starts[st[i]]
                        : n_chars               ? ends[n_chars - 1]
                                                : 0;
            st[i] = en[i] = k;
        }
    }
}

int off_trim(int64_t *st, int64_t *en, const uint32_t *ids, size_t n, const int32_t *lead,
             const int32_t *trail, size_t n_ids, int prefix)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids[i];
        if (id >= n_ids)
            return -1;
        int64_t ld = lead[id], tr = trail[id], s0 = st[i], e0 = en[i];
        if (ld) {
            if ((i == 0 || s0 == 0) && prefix && ld == 1)
                ld = 0;
            s0 = s0 + ld < e0 ? s0 + ld : e0;
        }
        if (tr && e0 >= tr)
            e0 = e0 - tr > s0 ? e0 - tr : s0;
        st[i] = s0;
        en[i] = e0;
    }
    return 0;
}

int off_adjust(int64_t *st, int64_t *en, const uint32_t *ids, size_t n, const OffAdjust *a)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= a->n_tokens)
            return -1;
    if (a->starts) /* normalized characters -> the original's */
        off_align(st, en, n, a->starts, a->ends, a->n_chars);
    if (a->lead) /* tokenizers' ByteLevel offset trimming */
        return off_trim(st, en, ids, n, a->lead, a->trail, a->n_ids, a->prefix);
    return 0;
}
