/* Device memory: one sub-allocator over large blocks, so that a scene's many buffers and images share
 * a handful of vkAllocateMemory calls (drivers allow few, and each costs).
 *
 * A pool is one memory type and one kind of resource: linear (buffers) or optimal (images) never share
 * a block, so bufferImageGranularity never separates neighbours. A pool's blocks grow geometrically
 * (ORRI_BLOCK_MIN doubling up to ORRI_BLOCK_MAX, never above an eighth of the heap); in a block, space
 * is handed out first fit at the lowest aligned offset and freed ranges coalesce (orri_space), so the
 * space of released resources is reused and placement is deterministic. A resource the driver wants
 * alone (VkMemoryDedicatedRequirements) or one larger than half a block gets a block of its own. A
 * block whose last resource goes is freed at once: the memory the renderer holds follows what it uses.
 * Host-visible blocks are mapped once, for their lifetime; a resource's pointer is the block's plus its
 * offset. */
#include "gpu/gpu_memory.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_space.h"

#include <string.h>

#define ORRI_BLOCK_MIN ((VkDeviceSize)4 << 20)
#define ORRI_BLOCK_MAX ((VkDeviceSize)64 << 20)

static bool find_type(const orr_renderer *r, uint32_t type_bits, VkMemoryPropertyFlags need, VkMemoryPropertyFlags want,
                      uint32_t *out)
{
    for (int pass = 0; pass < 2; pass++) {
        VkMemoryPropertyFlags flags = pass == 0 ? need | want : need;
        for (uint32_t i = 0; i < r->memory.memoryTypeCount; i++) {
            if ((type_bits & (1u << i)) && (r->memory.memoryTypes[i].propertyFlags & flags) == flags) {
                *out = i;
                return true;
            }
        }
    }
    return false;
}

/* The memory type for a resource of `kind` (host: visible, coherent, cached where there is such a type;
 * otherwise device-local, or any type the resource allows when none is). */
static bool choose_type(const orr_renderer *r, uint32_t type_bits, orri_memory_kind kind, uint32_t *out)
{
    if (kind == ORRI_MEMORY_HOST)
        return find_type(r, type_bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         VK_MEMORY_PROPERTY_HOST_CACHED_BIT, out);
    return find_type(r, type_bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, out) || find_type(r, type_bits, 0, 0, out);
}

static orr_result new_block(orr_renderer *r, uint32_t type, orri_memory_kind kind, VkDeviceSize size, bool dedicated,
                            const VkMemoryDedicatedAllocateInfo *dedicated_info, const char *what, uint32_t *out)
{
    orri_memory *m = &r->mem;
    uint32_t slot = m->block_count;
    for (uint32_t i = 0; i < m->block_count; i++)
        if (!m->blocks[i].memory) {
            slot = i;
            break;
        }
    if (slot == m->block_count && !ORRI_GROW(&r->allocator, m->blocks, m->block_capacity, m->block_count + 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for device memory blocks (%s)", what);
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = dedicated_info,
        .allocationSize = size,
        .memoryTypeIndex = type,
    };
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkResult res = vkAllocateMemory(r->device, &ai, NULL, &memory);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkAllocateMemory (%s: a block of %llu bytes, memory type %u) failed: %s",
                             what, (unsigned long long)size, type, orri_vk_result_name(res));
    void *map = NULL;
    if (kind == ORRI_MEMORY_HOST) {
        res = vkMapMemory(r->device, memory, 0, VK_WHOLE_SIZE, 0, &map);
        if (res != VK_SUCCESS) {
            vkFreeMemory(r->device, memory, NULL);
            return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkMapMemory (%s) failed: %s", what, orri_vk_result_name(res));
        }
    }
    if (slot == m->block_count) m->block_count++;
    orri_block *b = &m->blocks[slot];
    orri_space keep = b->space; /* a reused slot keeps its free list's storage */
    memset(b, 0, sizeof *b);
    b->space = keep;
    orri_space_reset(&b->space);
    b->memory = memory;
    b->size = size;
    b->map = map;
    b->type = type;
    b->kind = kind;
    b->dedicated = dedicated;
    m->allocations++;
    r->gpu_bytes += size;
    *out = slot;
    return ORR_OK;
}

static void free_block(orr_renderer *r, orri_block *b)
{
    vkFreeMemory(r->device, b->memory, NULL); /* unmaps implicitly */
    r->gpu_bytes -= b->size;
    r->mem.allocations--;
    b->memory = VK_NULL_HANDLE;
    b->map = NULL;
    b->size = 0;
}

/* The size of the next block of a pool: doubling with the pool's blocks, at least `need`. */
static VkDeviceSize block_size(const orr_renderer *r, uint32_t type, orri_memory_kind kind, VkDeviceSize need)
{
    const orri_memory *m = &r->mem;
    VkDeviceSize size = ORRI_BLOCK_MIN;
    for (uint32_t i = 0; i < m->block_count; i++) {
        const orri_block *b = &m->blocks[i];
        if (b->memory && !b->dedicated && b->type == type && b->kind == kind && size < ORRI_BLOCK_MAX) size *= 2;
    }
    VkDeviceSize heap = r->memory.memoryHeaps[r->memory.memoryTypes[type].heapIndex].size / 8;
    if (heap >= ORRI_BLOCK_MIN && size > heap) size = heap;
    while (size < need) size *= 2;
    return size;
}

orr_result orri_memory_alloc(orr_renderer *r, const orri_memory_request *req, orri_allocation *out, void **map)
{
    memset(out, 0, sizeof *out);
    if (map) *map = NULL;
    uint32_t type;
    if (!choose_type(r, req->requirements.memoryTypeBits, req->kind, &type))
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "no memory type for %s", req->what);
    orri_memory *m = &r->mem;
    VkDeviceSize size = req->requirements.size ? req->requirements.size : 1;
    VkDeviceSize align = req->requirements.alignment ? req->requirements.alignment : 1;
    uint32_t block = UINT32_MAX;
    VkDeviceSize offset = 0;
    bool alone = req->dedicated || size > ORRI_BLOCK_MAX / 2;
    if (alone) {
        VkMemoryDedicatedAllocateInfo di = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                            .image = req->image, .buffer = req->buffer};
        ORRI_TRY(new_block(r, type, req->kind, size, true, req->dedicated ? &di : NULL, req->what, &block));
        uint64_t at = 0;
        (void)orri_space_alloc_aligned(&r->allocator, &m->blocks[block].space, size, 1, size, &at); /* never fails */
    } else {
        for (uint32_t i = 0; i < m->block_count && block == UINT32_MAX; i++) {
            orri_block *b = &m->blocks[i];
            if (!b->memory || b->dedicated || b->type != type || b->kind != req->kind) continue;
            uint64_t at = 0;
            orri_space_result sr = orri_space_alloc_aligned(&r->allocator, &b->space, size, align, b->size, &at);
            if (sr == ORRI_SPACE_NOMEM)
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for a block's free list (%s)", req->what);
            if (sr == ORRI_SPACE_OK) {
                block = i;
                offset = at;
            }
        }
        if (block == UINT32_MAX) {
            VkDeviceSize bs = block_size(r, type, req->kind, size);
            orr_result rc = new_block(r, type, req->kind, bs, false, NULL, req->what, &block);
            /* a smaller block when the device cannot give the usual one */
            while (rc == ORR_ERROR_VULKAN && bs / 2 >= size && bs > ORRI_BLOCK_MIN) {
                bs /= 2;
                rc = new_block(r, type, req->kind, bs, false, NULL, req->what, &block);
            }
            ORRI_TRY(rc);
            uint64_t at = 0;
            if (orri_space_alloc_aligned(&r->allocator, &m->blocks[block].space, size, align, bs, &at) != ORRI_SPACE_OK) {
                free_block(r, &m->blocks[block]);
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory placing %s in a new block", req->what);
            }
            offset = at;
        }
    }
    orri_block *b = &m->blocks[block];
    b->resources++;
    *out = (orri_allocation){.block = block + 1, .offset = offset, .size = size};
    if (map && b->map) *map = (uint8_t *)b->map + offset;
    return ORR_OK;
}

void orri_memory_free(orr_renderer *r, orri_allocation *a)
{
    if (!a->block) return;
    orri_block *b = &r->mem.blocks[a->block - 1];
    /* Freeing never fails for lack of memory here: a range that cannot join the list is lost only
     * until the block empties, which frees the whole block. */
    (void)orri_space_free(&r->allocator, &b->space, a->offset, a->size);
    if (--b->resources == 0) free_block(r, b);
    memset(a, 0, sizeof *a);
}

VkDeviceMemory orri_memory_handle(const orr_renderer *r, const orri_allocation *a)
{
    return a->block ? r->mem.blocks[a->block - 1].memory : VK_NULL_HANDLE;
}

void orri_memory_fini(orr_renderer *r)
{
    orri_memory *m = &r->mem;
    for (uint32_t i = 0; i < m->block_count; i++) {
        if (m->blocks[i].memory) free_block(r, &m->blocks[i]);
        orri_space_fini(&r->allocator, &m->blocks[i].space);
    }
    orri_free(&r->allocator, m->blocks, sizeof *m->blocks * m->block_capacity);
    memset(m, 0, sizeof *m);
}

uint32_t orri_memory_allocations(const orr_renderer *r) { return r->mem.allocations; }

static uint32_t grow_count(uint32_t have, uint32_t need, uint32_t minimum)
{
    uint32_t n = have ? have : minimum;
    while (n < need) n = n > UINT32_MAX / 2 ? need : n * 2;
    return n;
}

/* Grows every array to the same new capacity (at least `need`, doubling from `minimum`), the new
 * elements zeroed. All or nothing: the new arrays are allocated first, so on failure every array and
 * `*capacity` are as they were. */
bool orri_grow_parallel(orr_renderer *r, uint32_t *capacity, uint32_t need, uint32_t minimum,
                        const orri_parallel_array *arrays, uint32_t count)
{
    ORRI_ASSERT(count <= ORRI_MAX_PARALLEL_ARRAYS, "orri_grow_parallel: %u arrays, at most %u", count,
                ORRI_MAX_PARALLEL_ARRAYS);
    if (need <= *capacity) return true;
    uint32_t have = *capacity, cap = grow_count(have, need, minimum);
    void *fresh[ORRI_MAX_PARALLEL_ARRAYS];
    for (uint32_t i = 0; i < count; i++) {
        fresh[i] = (size_t)cap <= SIZE_MAX / arrays[i].elem_size ? orri_alloc(&r->allocator, arrays[i].elem_size * cap)
                                                                 : NULL;
        if (!fresh[i]) {
            while (i-- > 0) orri_free(&r->allocator, fresh[i], arrays[i].elem_size * cap);
            return false;
        }
    }
    for (uint32_t i = 0; i < count; i++) { /* orri_alloc zeroed the new elements */
        void **items = arrays[i].items;
        if (*items) memcpy(fresh[i], *items, arrays[i].elem_size * have);
        orri_free(&r->allocator, *items, arrays[i].elem_size * have);
        *items = fresh[i];
    }
    *capacity = cap;
    return true;
}
