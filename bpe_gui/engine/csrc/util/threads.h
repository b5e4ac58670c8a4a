/*
 * threads.h -- run one function on k native threads at once and wait for them all
 * (bpe_run_threads): POSIX threads, or Win32 threads on Windows. Header-only. The calling
 * thread is worker 0, so k = 1 starts no thread; a thread that cannot be started leaves
 * its share to the others (each worker takes work until none is left), so the result
 * never depends on how many started.
 */
#ifndef BPE_UTIL_THREADS_H
#define BPE_UTIL_THREADS_H

#include <stddef.h>
#include <stdlib.h>

typedef void (*bpe_worker_fn)(void *ctx, size_t worker);

typedef struct {
    bpe_worker_fn fn;
    void *ctx;
    size_t worker;
} BpeThreadArg;

#ifdef _WIN32
#include <windows.h>

static inline DWORD WINAPI bpe_thread_main(LPVOID p)
{
    BpeThreadArg *a = (BpeThreadArg *)p;
    a->fn(a->ctx, a->worker);
    return 0;
}
typedef HANDLE bpe_thread_t;
static inline int bpe_thread_start(bpe_thread_t *t, BpeThreadArg *a)
{
    *t = CreateThread(NULL, 0, bpe_thread_main, a, 0, NULL);
    return *t ? 0 : -1;
}
static inline void bpe_thread_join(bpe_thread_t t)
{
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
#else
#include <pthread.h>

static inline void *bpe_thread_main(void *p)
{
    BpeThreadArg *a = (BpeThreadArg *)p;
    a->fn(a->ctx, a->worker);
    return NULL;
}
typedef pthread_t bpe_thread_t;
static inline int bpe_thread_start(bpe_thread_t *t, BpeThreadArg *a)
{
    return pthread_create(t, NULL, bpe_thread_main, a) == 0 ? 0 : -1;
}
static inline void bpe_thread_join(bpe_thread_t t)
{
    pthread_join(t, NULL);
}
#endif

/* fn(ctx, w) on k workers, w = 0 (this thread) .. k-1; returns once all have returned.
 * Workers that could not be started (no memory, no threads) do not run: fn must take its
 * work from a shared counter, so that the workers that run do it all. */
static inline void bpe_run_threads(size_t k, bpe_worker_fn fn, void *ctx)
{
    BpeThreadArg *args = k > 1 ? (BpeThreadArg *)calloc(k, sizeof(BpeThreadArg)) : NULL;
    bpe_thread_t *ts = args ? (bpe_thread_t *)calloc(k, sizeof(bpe_thread_t)) : NULL;
    unsigned char *ok = ts ? (unsigned char *)calloc(k, 1) : NULL;
    for (size_t w = 1; ok && w < k; w++) {
        args[w].fn = fn;
        args[w].ctx = ctx;
        args[w].worker = w;
        ok[w] = bpe_thread_start(&ts[w], &args[w]) == 0;
    }
    fn(ctx, 0);
    for (size_t w = 1; ok && w < k; w++)
        if (ok[w])
            bpe_thread_join(ts[w]);
    free(ok);
    free(ts);
    free(args);
}

#endif
