/* The memory room's allocator of ranges (gpu_space.c): the geometry pool's, the meshlet pool's and
 * the device-memory blocks' space is handed out through it. CPU only: it knows nothing of Vulkan. */
#ifndef ORRERY_GPU_SPACE_H
#define ORRERY_GPU_SPACE_H

#include "core/internal.h"

/* Space in [0, end) handed out in units (vertices, indices): first fit at the lowest offset, freed
 * ranges coalesced, so that the space of released meshes is reused and allocation is deterministic. */
typedef struct orri_span {
    uint64_t offset, size;
} orri_span;
typedef struct orri_space {
    orri_span *free; /* sorted by offset, never adjacent */
    uint32_t free_count, free_capacity;
    uint64_t end;    /* everything at or above is free */
    uint64_t used;   /* units handed out and not freed */
} orri_space;
/* false only when the free list could not grow (nothing changed). */
bool orri_space_alloc(const orr_allocator *a, orri_space *s, uint64_t size, uint64_t *offset);
bool orri_space_free(const orr_allocator *a, orri_space *s, uint64_t offset, uint64_t size);
/* Aligned first fit below `limit` (a block's size): *offset is a multiple of `align`; the gap an
 * alignment leaves stays free. A size of 0 takes 1 unit. FULL: no room (nothing changed); NOMEM: the
 * free list could not grow (nothing changed). Freed with orri_space_free (the size asked for, or 1). */
typedef enum orri_space_result { ORRI_SPACE_OK = 0, ORRI_SPACE_FULL, ORRI_SPACE_NOMEM } orri_space_result;
orri_space_result orri_space_alloc_aligned(const orr_allocator *a, orri_space *s, uint64_t size, uint64_t align,
                                           uint64_t limit, uint64_t *offset);
void orri_space_reset(orri_space *s);
void orri_space_fini(const orr_allocator *a, orri_space *s);

#endif
