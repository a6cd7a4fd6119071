/* A load's clock, thread count and workers; its jobs run on core's worker pool (orri_pool_run). */
#include "scene/gltf_internal.h"

#include "core/internal.h"

#include <time.h>

uint64_t orri_gltf_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t orri_gltf_threads(uint32_t requested)
{
    if (requested) return requested > ORRI_MAX_THREADS ? ORRI_MAX_THREADS : requested;
    return orri_cores();
}

orr_workers *orri_gltf_pool_get(orri_gltf_pool *p)
{
    if (!p) return NULL;
    if (p->given) return p->given;
    if (!p->own && !p->failed)
        p->failed = orr_workers_create(&(orr_workers_desc){.threads = p->threads, .allocator = p->allocator}, &p->own, NULL) != ORR_OK;
    return p->own;
}

void orri_gltf_pool_fini(orri_gltf_pool *p)
{
    orr_workers_destroy(p->own);
    p->own = NULL;
}

void orri_gltf_run(orri_gltf_pool *p, uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index),
                   void *ctx)
{
    orri_pool_run(threads > 1 && count > 1 ? orri_gltf_pool_get(p) : NULL, threads, count, job, ctx);
}
