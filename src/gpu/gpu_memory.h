/* Memory (gpu_memory.c): the sub-allocator of device memory (blocks per memory type and kind,
 * resources placed in them through gpu_space.h), and the host arrays grown together. */
#ifndef ORRERY_GPU_MEMORY_H
#define ORRERY_GPU_MEMORY_H

#include "gpu/gpu_state.h"

typedef struct orri_memory_request {
    VkMemoryRequirements requirements;
    orri_memory_kind kind;
    bool dedicated;   /* the driver prefers or requires a dedicated allocation */
    VkBuffer buffer;  /* the resource, named in the dedicated allocation */
    VkImage image;
    const char *what; /* for messages */
} orri_memory_request;
/* Places a resource; *map (NULL-able) is its host pointer in host memory. */
orr_result orri_memory_alloc(orr_renderer *r, const orri_memory_request *req, orri_allocation *out, void **map);
void orri_memory_free(orr_renderer *r, orri_allocation *a); /* zeroes *a; a zero allocation is a no-op */
VkDeviceMemory orri_memory_handle(const orr_renderer *r, const orri_allocation *a);
uint32_t orri_memory_allocations(const orr_renderer *r);
void orri_memory_fini(orr_renderer *r); /* after every resource is gone */
/* One of several arrays indexed alike that share one capacity. */
typedef struct orri_parallel_array {
    void **items;
    size_t elem_size;
} orri_parallel_array;
#define ORRI_PARALLEL_ARRAY(arr) ((orri_parallel_array){(void **)&(arr), sizeof *(arr)})
#define ORRI_MAX_PARALLEL_ARRAYS 8
/* Grows every array to the same new capacity (at least `need`, doubling from `minimum`), the new
 * elements zeroed. All or nothing: on failure every array and `*capacity` are as they were. */
bool orri_grow_parallel(orr_renderer *r, uint32_t *capacity, uint32_t need, uint32_t minimum,
                        const orri_parallel_array *arrays, uint32_t count);

#endif
