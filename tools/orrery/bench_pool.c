/* tool_pool: threads kept for the benches' threaded baselines. A run is one job list with an atomic
 * cursor; the threads wait on a condition variable between runs (woken as orr_workers wakes its own). */
#include "tool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct tool_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint64_t run;      /* runs given so far; a thread takes part in each once */
    uint32_t threads, inside;
    bool quit;
    void (*job)(void *ctx, uint32_t i);
    void *ctx;
    uint32_t count;
    atomic_uint next;
    pthread_t tid[];
};

static void take(tool_pool *p)
{
    for (uint32_t i; (i = atomic_fetch_add(&p->next, 1)) < p->count;) p->job(p->ctx, i);
}

static void *pool_main(void *arg)
{
    tool_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->run == seen) pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) break;
        seen = p->run;
        p->inside++;
        pthread_mutex_unlock(&p->mu);
        take(p);
        pthread_mutex_lock(&p->mu);
        if (--p->inside == 0) pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

tool_pool *tool_pool_create(uint32_t threads)
{
    if (threads < 1) threads = 1;
    tool_pool *p = calloc(1, sizeof *p + sizeof(pthread_t) * threads);
    if (!p) return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    for (uint32_t t = 1; t < threads; t++) {
        if (pthread_create(&p->tid[p->threads], NULL, pool_main, p) != 0) break;
        p->threads++;
    }
    if (p->threads + 1 < threads) {
        tool_pool_destroy(p);
        return NULL;
    }
    return p;
}

void tool_pool_run(tool_pool *p, uint32_t count, void (*job)(void *ctx, uint32_t i), void *ctx)
{
    if (!p->threads || count < 2) {
        for (uint32_t i = 0; i < count; i++) job(ctx, i);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->job = job, p->ctx = ctx, p->count = count;
    atomic_store(&p->next, 0);
    p->run++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    take(p);
    pthread_mutex_lock(&p->mu);
    /* Every index is taken (by this thread's take); a thread that took one is still inside. One that
     * comes in later finds none left and touches nothing of this run. */
    while (p->inside) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void tool_pool_destroy(tool_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t t = 0; t < p->threads; t++) pthread_join(p->tid[t], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
