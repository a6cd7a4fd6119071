/* A worker pool for one call: runs job(ctx, i) for every i in [0, count) on `threads` threads (the
 * caller's among them) and returns when all are done. Jobs are taken in index order from one atomic
 * counter, so which thread runs a job varies from run to run; callers make each job write only its
 * own slot, which is what keeps their results independent of the thread count. Nothing here
 * allocates through the caller's allocator or logs: a job must not either (their hooks need not be
 * thread-safe). */
#include "core/internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

uint32_t orri_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > ORRI_MAX_THREADS ? ORRI_MAX_THREADS : (uint32_t)n;
}

typedef struct pool {
    void (*job)(void *ctx, uint32_t index);
    void *ctx;
    uint32_t count;
    atomic_uint next;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->count) break;
        p->job(p->ctx, i);
    }
    return NULL;
}

void orri_pool_run(uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index), void *ctx)
{
    pool p = {.job = job, .ctx = ctx, .count = count};
    atomic_init(&p.next, 0);
    if (threads > count) threads = count;
    if (threads > ORRI_MAX_THREADS) threads = ORRI_MAX_THREADS;
    pthread_t tid[ORRI_MAX_THREADS];
    uint32_t started = 0;
    for (uint32_t t = 1; t < threads; t++) { /* a thread that cannot start leaves its share to the others */
        if (pthread_create(&tid[started], NULL, worker, &p) != 0) break;
        started++;
    }
    worker(&p);
    for (uint32_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
}
