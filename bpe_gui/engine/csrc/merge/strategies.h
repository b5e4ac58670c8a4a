/*
 * strategies.h -- the merge strategies (strategies.c): their numbers, their table, the one
 * forced on tables made from now on, and what this build compiled in. Plain C; no other
 * file of the merge engine is needed to read it.
 */
#ifndef BPE_MERGE_STRATEGIES_H
#define BPE_MERGE_STRATEGIES_H

#include <stdint.h>

#include "util/simd.h"

/* ---- strategies: the ways a word can be merged, each giving the reference's ids ----
 * One table (strategies.c: name, the words it applies to, the invariant it relies on,
 * the instruction set it needs) and one function that chooses (mt_route, route.c).
 * A table made while a strategy is forced (BPE_GUI_MERGE=NAME, or mt_strategy_set)
 * sends every word that strategy can take through it and every other word through the
 * reference merge (reference.c), so a test of a strategy runs it on any CPU that has its
 * instruction set. MT_AUTO: the cheapest strategy that applies. */
enum {
    MT_AUTO,
    MT_REFERENCE,  /* reference.c: every word */
    MT_SMALL,      /* small.c: words of 2..32 symbols, on the stack */
    MT_FLAT,       /* merge.c: raw words of 2..1024 bytes, AVX2 */
    MT_BOUNDARIES, /* token_boundaries.c: non-ASCII words cut where no token crosses */
    MT_N_STRATEGIES
};
typedef struct {
    const char *name;
    int cpu;           /* the BPE_CPU_* bits it needs (util/cpu.h) */
    const char *needs; /* those, in words ("": none) */
    const char *applies, *invariant;
} MtStrategy;
extern const MtStrategy mt_strategies[MT_N_STRATEGIES];

/* what this build has compiled in (the vector loops: gcc or clang on x86-64, not under
 * BPE_NO_SIMD: util/simd.h) */
#if defined(BPE_SIMD_X86) && !defined(BPE_NO_FLAT)
#define MT_HAVE_FLAT 1
#else
#define MT_HAVE_FLAT 0
#endif

int mt_strategy_by_name(const char *name); /* its MT_*, or -1 */
int mt_strategy_runs_here(int s);          /* 1: this build and CPU can run it */
int mt_strategy_set(int s);                /* for tables made from now on; the previous */
int mt_strategy_get(void);
/* BPE_GUI_MERGE: 0 (unset, or set to a strategy this CPU runs), -1 no such strategy, -2
 * this CPU or build cannot run it (*bad: the value) */
int mt_strategy_from_env(const char **bad);
void mt_strategy_note(int s);       /* a forced table merged a word by s (counted) */
uint64_t mt_strategy_used(int s);   /* words counted for s in this process */

#endif
