/*
 * readers.h -- how many threads read a merge table, and a writer that waits until none
 * does (a trainer adding a merge while another thread encodes with the table). Plain C;
 * static inline; POSIX threads, or Win32's on Windows.
 *
 * One 32-bit word holds the readers (the low 24 bits) and the writers waiting (the high
 * 8): a reader comes and goes with one atomic add and touches the lock only when it is
 * the last to leave while a writer waits. A writer counts itself in under the lock and
 * sleeps on the condition until the readers are gone; the last reader to leave takes the
 * lock before it wakes the writers, so none can miss it (the writer holds the lock from
 * its look at the count until it sleeps).
 *
 * The caller decides who may come in meanwhile: the Python bindings let readers in only
 * with the GIL held, and a writer that waited without the GIL looks again once it has it
 * back (mr_busy), so that no reader comes in between that look and its write.
 */
#ifndef BPE_MERGE_READERS_H
#define BPE_MERGE_READERS_H

#include <stdint.h>

#include "util/atomics.h"

#ifdef _WIN32
#include <windows.h>
typedef SRWLOCK mr_lock_t;
typedef CONDITION_VARIABLE mr_cond_t;
#else
#include <pthread.h>
typedef pthread_mutex_t mr_lock_t;
typedef pthread_cond_t mr_cond_t;
#endif

#define MR_WRITER ((uint32_t)1 << 24)
#define MR_READERS (MR_WRITER - 1)

typedef struct {
    uint32_t state; /* readers + MR_WRITER * writers waiting */
    int ready;      /* the lock and the condition are made */
    mr_lock_t lock;
    mr_cond_t idle; /* signalled when the last reader leaves while a writer waits */
} MergeReaders;

/* 0, or -1 when the lock could not be made */
static inline int mr_init(MergeReaders *r)
{
    r->state = 0;
#ifdef _WIN32
    InitializeSRWLock(&r->lock);
    InitializeConditionVariable(&r->idle);
#else
    if (pthread_mutex_init(&r->lock, NULL) != 0)
        return -1;
    if (pthread_cond_init(&r->idle, NULL) != 0) {
        pthread_mutex_destroy(&r->lock);
        return -1;
    }
#endif
    r->ready = 1;
    return 0;
}

static inline void mr_free(MergeReaders *r)
{
#ifndef _WIN32
    if (r->ready) {
        pthread_cond_destroy(&r->idle);
        pthread_mutex_destroy(&r->lock);
    }
#endif
    r->ready = 0;
}

static inline void mr_enter(MergeReaders *r)
{
    (void)bpe_fetch_add_acqrel_u32(&r->state, 1);
}

static inline void mr_leave(MergeReaders *r)
{
    uint32_t was = bpe_fetch_add_acqrel_u32(&r->state, (uint32_t)-1);
    if ((was & MR_READERS) == 1 && was >= MR_WRITER) { /* the last, and a writer waits */
#ifdef _WIN32
        AcquireSRWLockExclusive(&r->lock);
        WakeAllConditionVariable(&r->idle);
        ReleaseSRWLockExclusive(&r->lock);
#else
        pthread_mutex_lock(&r->lock);
        pthread_cond_broadcast(&r->idle);
        pthread_mutex_unlock(&r->lock);
#endif
    }
}

/* 1 while some thread reads */
static inline int mr_busy(MergeReaders *r)
{
    return (bpe_ld_acq_u32(&r->state) & MR_READERS) != 0;
}

/* Returns once no thread reads (at once when mr_init was never called: no reader came). */
static inline void mr_wait_idle(MergeReaders *r)
{
    if (!r->ready || !mr_busy(r))
        return;
#ifdef _WIN32
    AcquireSRWLockExclusive(&r->lock);
#else
    pthread_mutex_lock(&r->lock);
#endif
    bpe_fetch_add_acqrel_u32(&r->state, MR_WRITER);
    while (bpe_fetch_add_acqrel_u32(&r->state, 0) & MR_READERS)
#ifdef _WIN32
        SleepConditionVariableSRW(&r->idle, &r->lock, INFINITE, 0);
#else
        pthread_cond_wait(&r->idle, &r->lock);
#endif
    bpe_fetch_add_acqrel_u32(&r->state, (uint32_t)-MR_WRITER);
#ifdef _WIN32
    ReleaseSRWLockExclusive(&r->lock);
#else
    pthread_mutex_unlock(&r->lock);
#endif
}

#endif
