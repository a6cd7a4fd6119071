/* A load's clock and thread count; its jobs run on core's worker pool (orri_pool_run). */
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
