/* Generational handle pool with lowest-first reuse through a binary min-heap of free indices. */
#include "core/internal.h"

void orr_handle_pool_init(orr_handle_pool *pool, const orr_allocator *allocator, uint32_t limit)
{
    *pool = (orr_handle_pool){.limit = limit, .allocator = orri_allocator_or_default(allocator)};
}

void orr_handle_pool_fini(orr_handle_pool *pool)
{
    if (!pool) return;
    orri_free(&pool->allocator, pool->generations, (size_t)pool->capacity * sizeof(uint32_t));
    orri_free(&pool->allocator, pool->free_heap, (size_t)pool->free_capacity * sizeof(uint32_t));
    orr_allocator a = pool->allocator;
    *pool = (orr_handle_pool){.allocator = a};
}

static void heap_push(uint32_t *heap, uint32_t *count, uint32_t value)
{
    uint32_t i = (*count)++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (heap[parent] <= value) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = value;
}

static uint32_t heap_pop(uint32_t *heap, uint32_t *count)
{
    uint32_t top = heap[0];
    uint32_t last = heap[--(*count)];
    uint32_t i = 0, n = *count;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (n) heap[i] = last;
    return top;
}

orr_result orr_handle_pool_alloc(orr_handle_pool *pool, orr_handle *out)
{
    ORRI_REQUIRE(pool && out, NULL, "orr_handle_pool_alloc: pool and out are required");
    uint32_t index;
    if (pool->free_count) {
        index = heap_pop(pool->free_heap, &pool->free_count);
    } else {
        if (pool->limit && pool->count >= pool->limit) return ORR_ERROR_CAPACITY;
        if (pool->count == UINT32_MAX) return ORR_ERROR_CAPACITY;
        /* The free heap grows with the indices, so that freeing never allocates (a free that could
         * fail would leave a released object's handle alive on an out-of-memory path). */
        if (!ORRI_GROW(&pool->allocator, pool->generations, pool->capacity, pool->count + 1) ||
            !ORRI_GROW(&pool->allocator, pool->free_heap, pool->free_capacity, pool->count + 1))
            return ORR_ERROR_OUT_OF_MEMORY;
        index = pool->count++;
    }
    uint32_t gen = pool->generations[index] + 1; /* even (free) -> odd (alive) */
    pool->generations[index] = gen;
    pool->alive++;
    *out = (orr_handle){.index = index, .generation = gen};
    return ORR_OK;
}

bool orr_handle_pool_is_alive(const orr_handle_pool *pool, orr_handle handle)
{
    return handle.generation != 0 && handle.index < pool->count &&
           pool->generations[handle.index] == handle.generation && (handle.generation & 1u);
}

orr_result orr_handle_pool_free(orr_handle_pool *pool, orr_handle handle)
{
    ORRI_REQUIRE(pool, NULL, "orr_handle_pool_free: pool is NULL");
    if (!orr_handle_pool_is_alive(pool, handle)) return ORR_ERROR_STALE_HANDLE;
    ORRI_ASSERT(pool->free_count < pool->free_capacity, "orr_handle_pool_free: the free heap was not reserved");
    /* A generation about to wrap past UINT32_MAX retires its index instead of reusing it, so an old
     * handle can never become alive again. */
    pool->generations[handle.index] = handle.generation + 1;
    pool->alive--;
    if (handle.generation + 2 > handle.generation) heap_push(pool->free_heap, &pool->free_count, handle.index);
    return ORR_OK;
}
