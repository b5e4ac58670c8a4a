/*
 * strategies.c -- the table of merge strategies (merge.h, "strategies"): each one's name,
 * the words it applies to, the invariant that makes it give the reference's ids, and the
 * instruction set it needs; the strategy forced on tables made from now on
 * (BPE_GUI_MERGE, or the bindings' setter), and how many words each forced strategy
 * merged (the tests check that forcing one really runs it). Data only: route.c's
 * mt_route is the one place that chooses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/strategies.h"
#include "util/atomics.h"
#include "util/cpu.h"

const MtStrategy mt_strategies[MT_N_STRATEGIES] = {
    [MT_AUTO] = {"auto", 0, "", "every word: the cheapest strategy that applies (mt_route)",
                 "each strategy's own"},
    /* reference.c */
    [MT_REFERENCE] = {"reference", 0, "", "every word",
                      "the rule itself: a heap of (rank, place) over the linked symbols pops "
                      "the lowest rank, leftmost; an entry is current while the pair at its "
                      "place has its rank, and every pair with a rank has a current entry"},
    /* small.c */
    [MT_SMALL] = {"small", 0, "", "words of 2..32 symbols",
                  "keys rank << 5 | place (places < 32 are distinct, ranks < 2**26: the "
                  "smallest is the lowest rank, leftmost) in fixed arrays; a pair's rank is looked up when the pair "
                  "appears, so after a merge only the merged symbol's two pairs are new"},
    /* merge.c, flat_one */
    [MT_FLAT] = {"flat", BPE_CPU_AVX2, "AVX2",
                 "words of 2..1024 raw bytes (every byte a token) with every rank below 2**21",
                 "small's keys with 10 bits of place (rank << 10 | place < 2**31) in one flat "
                 "array, their minimum by AVX2; a symbol's place is its first byte, so its "
                 "span is its place to the next symbol's; a larger rank gives the word back "
                 "untouched"},
    /* token_boundaries.c */
    [MT_BOUNDARIES] = {"boundaries", 0, "",
                       "words of 3 bytes or more ending outside ASCII, in tables that know "
                       "every token's bytes (rank-based, or merges that make their parts' "
                       "bytes)",
                       "no token crosses a place the bit tables rule out (a 'maybe' only "
                       "leaves it uncut), so no merge joins its two sides and each piece "
                       "merges alone, in its own lowest-rank-leftmost order"},
};

static int forced = MT_AUTO;
static size_t used[MT_N_STRATEGIES];

int mt_strategy_by_name(const char *name)
{
    for (int s = 0; s < MT_N_STRATEGIES; s++)
        if (!strcmp(mt_strategies[s].name, name))
            return s;
    return -1;
}

int mt_strategy_runs_here(int s)
{
    int need = mt_strategies[s].cpu;
#if !MT_HAVE_FLAT
    if (need & BPE_CPU_AVX2)
        return 0;
#endif
    return (bpe_cpu() & need) == need;
}

int mt_strategy_set(int s)
{
    int was = bpe_ld_rlx_int(&forced); /* a setting, not a lock: no exchange needed */
    bpe_st_rlx_int(&forced, s);
    return was;
}

int mt_strategy_get(void)
{
    return bpe_ld_rlx_int(&forced);
}

int mt_strategy_from_env(const char **bad)
{
    const char *v = getenv("BPE_GUI_MERGE");
    *bad = NULL;
    if (!v || !*v)
        return 0;
    int s = mt_strategy_by_name(v);
    if (s < 0 || !mt_strategy_runs_here(s)) {
        *bad = v;
        return s < 0 ? -1 : -2;
    }
    mt_strategy_set(s);
    return 0;
}

void mt_strategy_note(int s)
{
    bpe_fetch_add_rlx_size(&used[s], 1);
}

uint64_t mt_strategy_used(int s)
{
    return bpe_fetch_add_rlx_size(&used[s], 0);
}
