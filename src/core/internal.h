/* Internal helpers shared by every module: allocation through the context's hooks, error
 * formatting, growable arrays, logging and debug asserts. Not installed; include as "core/internal.h". */
#ifndef ORRERY_CORE_INTERNAL_H
#define ORRERY_CORE_INTERNAL_H

#include <orrery/core.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define ORRI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define ORRI_PRINTF(fmt, args)
#endif

/* API misuse (not bad data) is caught in debug builds with a clear message. */
#ifdef NDEBUG
#define ORRI_ASSERT(cond, ...) ((void)0)
#else
#define ORRI_ASSERT(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) orri_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                      \
    } while (0)
#endif
void orri_assert_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    ORRI_PRINTF(4, 5);

/* A context's `alive` field: ORRI_ALIVE from its create until its destroy, which sets ORRI_DEAD before
 * the memory is freed. Destroying twice is undefined; a debug build catches it when the freed memory
 * still reads ORRI_DEAD (the field sits after the allocator, past what the C library writes into a
 * freed block), and a sanitizer build reports the use after free. */
#define ORRI_ALIVE 0x6f72724cu /* "orrL" */
#define ORRI_DEAD 0x6f727244u  /* "orrD" */
#define ORRI_DESTROY_ONCE(ctx, fn)                                                                 \
    do {                                                                                           \
        ORRI_ASSERT((ctx)->alive == ORRI_ALIVE, "%s: destroyed already (or not one): destroying twice is undefined", fn); \
        (ctx)->alive = ORRI_DEAD;                                                                  \
    } while (0)

/* What a call that returns orr_result cannot do without (its context, a required pointer): API
 * misuse, checked in every build at the cost of a compare. A debug build stops there with the
 * message (as ORRI_ASSERT); a release build returns ORR_ERROR_INVALID_ARGUMENT from the call, with
 * the message in `err` (an orr_error*, NULL-able: none when the context itself is missing). */
#ifdef NDEBUG
#define ORRI_REQUIRE(cond, err, ...)                                                               \
    do {                                                                                           \
        if (!(cond)) return orri_error((err), ORR_ERROR_INVALID_ARGUMENT, __VA_ARGS__);            \
    } while (0)
#else
#define ORRI_REQUIRE(cond, err, ...)                                                               \
    do {                                                                                           \
        if (!(cond)) orri_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                      \
    } while (0)
#endif

/* A worker pool for one call (pool.c): job(ctx, i) for every i in [0, count), on up to `threads`
 * threads including the caller's; returns when every job is done. A job writes only its own slot and
 * neither allocates through the library's allocator nor logs (their hooks need not be thread-safe). */
#define ORRI_MAX_THREADS 256u
/* job(ctx, i) for i in [0, count) on up to `threads` threads, this one among them: on `workers` when
 * given (NULL: threads started for the call). pool.c says more. */
void orri_pool_run(orr_workers *workers, uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index),
                   void *ctx);
/* A job of its own on kept workers, beside the caller's work, without a thread of its own (one more
 * than the cores would take turns with them): orri_pool_spawn lists it for one worker to take;
 * orri_pool_join runs it on the caller's thread if none has, and returns once it is done. Its record
 * is the caller's, untouched between the two. */
typedef struct orri_pool_task {
    orr_workers *workers;
    void (*job)(void *ctx, uint32_t index);
    void *ctx;
    uint32_t count;
    _Atomic uint32_t next;
    _Atomic uint32_t helpers; /* workers inside it now (changed under the workers' mutex) */
    uint32_t helpers_max;     /* at most */
    bool listed;
    struct orri_pool_task *prev_open, *next_open;
} orri_pool_task;
void orri_pool_spawn(orr_workers *workers, orri_pool_task *task, void (*job)(void *ctx, uint32_t index), void *ctx);
void orri_pool_join(orri_pool_task *task);
/* orr_sort_by_key_u32 shared out on `workers` (up to `threads` threads, the caller's among them): each
 * pass's digits counted per chunk of the input (one chunk a thread, of at least `min_chunk` entries),
 * then placed chunk after chunk. A stable sort has one result, so the order is the serial one's at any
 * thread count and chunking. `counts` holds ORRI_SORT_DIGITS words per thread; one chunk (few
 * entries, one thread) is the serial sort. */
#define ORRI_SORT_DIGITS 2048u
void orri_sort_by_key_u32_shared(orr_workers *workers, uint32_t threads, uint32_t *perm, uint32_t *tmp, const uint32_t *keys,
                                 uint32_t n, uint32_t max, uint32_t min_chunk, uint32_t *counts);
uint32_t orri_cores(void); /* online cores, at least 1, at most ORRI_MAX_THREADS */
/* Per-frame passes (propagation, extraction) are shared out in chunks of a fixed number of items, the
 * same at every thread count, and their results are merged in chunk order: that is what keeps their
 * bytes independent of how many threads ran them. A pass of fewer than ORRI_PARALLEL_FROM items (the
 * default of orr_world_desc.parallel_from) stays on the calling thread: waking a worker costs some
 * microseconds, about what 1,000 changed entities cost to redo, so a frame of 50 changes wakes none. */
#define ORRI_FRAME_CHUNK 256u
#define ORRI_PARALLEL_FROM 1024u
/* Elements from which the asset library shares a primitive's passes out (orr_mesh_desc.threads), so
 * that its callers know when workers are worth starting for it. */
#define ORRI_RANGES_FROM (1u << 16)

/* A hot loop over large streams, compiled twice: for AVX2 where the CPU has it (chosen once, when the
 * library is loaded) and for the baseline x86-64 elsewhere. Not under ThreadSanitizer, whose
 * instrumented resolvers would run before its runtime is up (the program crashes while it loads). */
#if defined(__SANITIZE_THREAD__)
#define ORRI_WIDE
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ORRI_WIDE
#endif
#endif
#if !defined(ORRI_WIDE) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define ORRI_WIDE __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef ORRI_WIDE
#define ORRI_WIDE
#endif

/* A mesh's bounding sphere: its center is its box's (binary64; the box not empty), and its radius the
 * largest orri_dist2 of a position from that center rounded to binary32 (`c`). One definition for the
 * asset library and for a caller that finds the radius while it makes the positions
 * (orr_mesh_desc.sphere_r2). */
static inline orr_vec3d orri_sphere_center(orr_aabbd bounds, float c[3])
{
    orr_vec3d center = orr_vec3d_scale(orr_vec3d_add(bounds.min, bounds.max), 0.5);
    c[0] = (float)center.x, c[1] = (float)center.y, c[2] = (float)center.z;
    return center;
}
static inline float orri_dist2(const float q[3], const float c[3])
{
    float dx = q[0] - c[0], dy = q[1] - c[1], dz = q[2] - c[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Normals (3 floats each) made unit length where they are not already (within 1e-6), the others left as
 * they are, bit for bit (under flush-to-zero too); those of length 0 or infinite stay as they are. One
 * definition for the glTF loader, which normalizes the normals it converts, and the asset library,
 * which normalizes packed normals as they are read, so that both give the same bits. */
void orri_normalize3(float *v, size_t n);

/* The allocator with libc filled in when the caller gave none. */
orr_allocator orri_allocator_or_default(const orr_allocator *allocator);
void *orri_alloc(const orr_allocator *a, size_t size);  /* zeroed; NULL on failure */
void *orri_realloc(const orr_allocator *a, void *ptr, size_t old_size, size_t new_size);
void orri_free(const orr_allocator *a, void *ptr, size_t size);
char *orri_strdup(const orr_allocator *a, const char *s); /* free with strlen + 1 */
void orri_strfree(const orr_allocator *a, char *s);

/* Grows *items (of elem_size) so that it holds at least `need` elements, doubling. The new tail is
 * zeroed. Returns false on allocation failure, leaving the array unchanged. */
bool orri_grow(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t need, size_t elem_size);
#define ORRI_GROW(a, arr, cap, need) orri_grow((a), (void **)&(arr), &(cap), (need), sizeof *(arr))

/* A growable array that its owner embeds, so that a struct's teardown is one ORRI_VEC_FREE per array
 * and no size is recomputed by hand:
 *     ORRI_VEC(orr_entity) lights;                       (a member: items, count, capacity)
 *     orr_entity *e = ORRI_VEC_PUSH(&allocator, &x->lights);   (NULL: out of memory, nothing changed)
 *     ORRI_VEC_FREE(&allocator, &x->lights);             (empty again; a zeroed one is empty too)
 * Memory comes from the owner's allocator, passed to each call (the owner keeps one for all its arrays).
 * Growth doubles and zeroes the new tail (orri_grow); an element reused after `count` was lowered keeps
 * what it held. `v` is evaluated more than once: pass a plain address. */
#define ORRI_VEC(T)                                                                                \
    struct {                                                                                       \
        T *items;                                                                                  \
        uint32_t count, capacity;                                                                  \
    }
/* Room for at least `need` elements (count unchanged); false on allocation failure, nothing changed. */
#define ORRI_VEC_RESERVE(a, v, need) orri_grow((a), (void **)&(v)->items, &(v)->capacity, (need), sizeof *(v)->items)
/* One element more at the end: its address, or NULL on allocation failure (nothing changed). */
#define ORRI_VEC_PUSH(a, v)                                                                        \
    ((v)->count < UINT32_MAX && ORRI_VEC_RESERVE((a), (v), (v)->count + 1) ? &(v)->items[(v)->count++] : NULL)
#define ORRI_VEC_FREE(a, v)                                                                        \
    (orri_free((a), (v)->items, (size_t)(v)->capacity * sizeof *(v)->items), (v)->items = NULL,      \
     (v)->count = (v)->capacity = 0)

/* How many places ahead loops over scattered items (entities, instances of large tables) fetch what
 * they will touch: far enough that a memory miss arrives in time at the loop's pace, near enough to
 * stay within the misses a core keeps in flight. */
#define ORRI_AHEAD 16

/* Fills `err` (NULL-able) and returns `code`. */
orr_result orri_error(orr_error *err, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
orr_result orri_verror(orr_error *err, orr_result code, const char *fmt, va_list ap);

void orri_log(const orr_logger *logger, orr_log_level level, const char *fmt, ...) ORRI_PRINTF(3, 4);

#endif
