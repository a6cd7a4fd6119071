/* Results, allocation, errors, logging and growable arrays. */
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

const char *orr_result_name(orr_result result)
{
    switch (result) {
    case ORR_OK: return "ok";
    case ORR_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case ORR_ERROR_OUT_OF_MEMORY: return "out of memory";
    case ORR_ERROR_IO: return "i/o error";
    case ORR_ERROR_PARSE: return "parse error";
    case ORR_ERROR_STALE_HANDLE: return "stale handle";
    case ORR_ERROR_NOT_FOUND: return "not found";
    case ORR_ERROR_CAPACITY: return "capacity exceeded";
    case ORR_ERROR_UNSUPPORTED: return "unsupported";
    case ORR_ERROR_VULKAN: return "vulkan error";
    case ORR_ERROR_NO_DEVICE: return "no vulkan device";
    case ORR_ERROR_CYCLE: return "cycle in hierarchy";
    }
    return "unknown result";
}

void orri_assert_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "orrery: API misuse at %s:%d (%s): ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Freed large blocks kept for reuse. libc gives a freed block this large back to the system, so the
 * next one is mapped afresh and every page of it faults and is zeroed by the kernel on first touch: a
 * glTF load that frees its decoding scratch, or a library destroyed and loaded again, would pay that
 * for every byte each time (a third of loading a compressed 1M-vertex mesh on 16 threads). A request
 * takes the smallest kept block that holds it with at most a quarter to spare; a freed block is kept
 * while the cache has room (ORRI_KEPT_BLOCKS blocks, ORRI_KEPT_BYTES in all), else freed; one left
 * behind by a resize is freed (a growing table never asks for its old size again). Whether a
 * freed block is a large one, and its size, are what libc says it holds (malloc_usable_size) and its
 * alignment, not what the caller says it asked for. */
#if defined(__SANITIZE_ADDRESS__)
#define ORRI_KEEP_BLOCKS 0 /* every block freed, so that AddressSanitizer sees a use after free */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORRI_KEEP_BLOCKS 0
#endif
#endif
#if !defined(ORRI_KEEP_BLOCKS) && defined(__GLIBC__)
#define ORRI_KEEP_BLOCKS 1
#endif
#if ORRI_KEEP_BLOCKS
#include <malloc.h>
#include <pthread.h>
#define ORRI_KEPT_BLOCKS 32
#define ORRI_KEPT_BYTES ((size_t)256 << 20)
static struct {
    pthread_mutex_t lock;
    uint32_t n;
    size_t bytes;
    size_t limit; /* bytes kept at most (orr_allocator_default_set_cache_limit) */
    struct kept_block { void *p; size_t size; } block[ORRI_KEPT_BLOCKS];
} kept = {.lock = PTHREAD_MUTEX_INITIALIZER, .limit = ORRI_KEPT_BYTES};

static void *kept_take(size_t size)
{
    void *p = NULL;
    pthread_mutex_lock(&kept.lock);
    uint32_t best = kept.n;
    for (uint32_t i = 0; i < kept.n; i++)
        if (kept.block[i].size >= size && kept.block[i].size - size <= size / 4 &&
            (best == kept.n || kept.block[i].size < kept.block[best].size))
            best = i;
    if (best < kept.n) {
        p = kept.block[best].p;
        kept.bytes -= kept.block[best].size;
        kept.block[best] = kept.block[--kept.n];
    }
    pthread_mutex_unlock(&kept.lock);
    return p;
}

static bool kept_give(void *p)
{
    size_t size = malloc_usable_size(p);
    if ((uintptr_t)p % HUGE_PAGE || size < ORR_LARGE_BLOCK) return false; /* not one large_block made */
    pthread_mutex_lock(&kept.lock);
#ifndef NDEBUG
    for (uint32_t i = 0; i < kept.n; i++) /* kept twice, it would be handed to two owners */
        ORRI_ASSERT(kept.block[i].p != p, "orr_allocator_default: block %p freed twice", p);
#endif
    bool ok = kept.n < ORRI_KEPT_BLOCKS && kept.bytes <= kept.limit && size <= kept.limit - kept.bytes;
    if (ok) kept.block[kept.n++] = (struct kept_block){p, size}, kept.bytes += size;
    pthread_mutex_unlock(&kept.lock);
    return ok;
}

size_t orr_allocator_default_trim(void)
{
    pthread_mutex_lock(&kept.lock);
    size_t bytes = kept.bytes;
    for (uint32_t i = 0; i < kept.n; i++) free(kept.block[i].p);
    kept.n = 0, kept.bytes = 0;
    pthread_mutex_unlock(&kept.lock);
    return bytes;
}

size_t orr_allocator_default_set_cache_limit(size_t bytes)
{
    pthread_mutex_lock(&kept.lock);
    size_t previous = kept.limit;
    kept.limit = bytes;
    while (kept.n && kept.bytes > bytes) { /* the largest first: the fewest blocks given back */
        uint32_t big = 0;
        for (uint32_t i = 1; i < kept.n; i++)
            if (kept.block[i].size > kept.block[big].size) big = i;
        free(kept.block[big].p);
        kept.bytes -= kept.block[big].size;
        kept.block[big] = kept.block[--kept.n];
    }
    pthread_mutex_unlock(&kept.lock);
    return previous;
}
#else
static void *kept_take(size_t size) { (void)size; return NULL; }
static bool kept_give(void *p) { (void)p; return false; }
size_t orr_allocator_default_trim(void) { return 0; }
size_t orr_allocator_default_set_cache_limit(size_t bytes) { (void)bytes; return 0; }
#endif

/* A large block: 2 MiB aligned, so that its whole huge pages are the block's, and offered them. */
static void *large_block(size_t size)
{
    void *p = kept_take(size);
    if (p) return p; /* aligned and advised when it was first made */
    if (posix_memalign(&p, HUGE_PAGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_PAGE) (void)madvise(p, size & ~(HUGE_PAGE - 1), MADV_HUGEPAGE); /* advice: may be refused */
#endif
    return p;
}

static void block_free(void *p)
{
    if (p && !kept_give(p)) free(p);
}

static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)user;
    if (new_size == 0) {
        block_free(ptr);
        return NULL;
    }
    if (new_size < ORR_LARGE_BLOCK && (!ptr || old_size < ORR_LARGE_BLOCK)) return realloc(ptr, new_size);
    if (new_size < ORR_LARGE_BLOCK) { /* shrunk below the threshold: a small block again */
        void *small = malloc(new_size);
        if (small) {
            memcpy(small, ptr, new_size);
            free(ptr); /* not kept: a table that shrank or grew will not ask for its old size again */
        }
        return small;
    }
    void *p = large_block(new_size);
    if (p && ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        free(ptr);
    }
    return p;
}

orr_allocator orr_allocator_default(void) { return (orr_allocator){.realloc = default_realloc, .user = NULL}; }

orr_allocator orri_allocator_or_default(const orr_allocator *allocator)
{
    if (allocator && allocator->realloc) return *allocator;
    return orr_allocator_default();
}

void *orri_alloc(const orr_allocator *a, size_t size)
{
    if (size == 0) size = 1;
    void *p = a->realloc(a->user, NULL, 0, size);
    if (p) memset(p, 0, size);
    return p;
}

void *orri_realloc(const orr_allocator *a, void *ptr, size_t old_size, size_t new_size)
{
    if (!ptr) return orri_alloc(a, new_size);
    return a->realloc(a->user, ptr, old_size, new_size ? new_size : 1);
}

void orri_free(const orr_allocator *a, void *ptr, size_t size)
{
    if (ptr) a->realloc(a->user, ptr, size, 0);
}

char *orri_strdup(const orr_allocator *a, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = a->realloc(a->user, NULL, 0, n);
    if (d) memcpy(d, s, n);
    return d;
}

void orri_strfree(const orr_allocator *a, char *s)
{
    if (s) orri_free(a, s, strlen(s) + 1);
}

bool orri_grow(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t need, size_t elem_size)
{
    if (need <= *capacity) return true;
    uint64_t cap = *capacity ? *capacity : 8;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    if (cap < need || cap * elem_size > SIZE_MAX / 2) return false;
    void *p = orri_realloc(a, *items, (size_t)*capacity * elem_size, (size_t)cap * elem_size);
    if (!p) return false;
    memset((char *)p + (size_t)*capacity * elem_size, 0, (size_t)(cap - *capacity) * elem_size);
    *items = p;
    *capacity = (uint32_t)cap;
    return true;
}

orr_result orri_verror(orr_error *err, orr_result code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    }
    return code;
}

orr_result orri_error(orr_error *err, orr_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_verror(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void orri_log(const orr_logger *logger, orr_log_level level, const char *fmt, ...)
{
    if (!logger || !logger->log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    logger->log(logger->user, level, line);
}

void orr_sort_u32(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t max)
{
    if (n < 64) {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t x = v[i], j = i;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    /* LSD radix, 11 bits per pass, only as many passes as `max` needs. */
    uint32_t *src = v, *dst = tmp;
    for (uint32_t shift = 0; shift < 32 && (max >> shift) != 0; shift += 11) {
        uint32_t count[2048] = {0};
        for (uint32_t i = 0; i < n; i++) count[(src[i] >> shift) & 2047]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < 2048; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & 2047]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, (size_t)n * sizeof *v);
}

void orr_sort_by_key_u32(uint32_t *perm, uint32_t *tmp, const uint32_t *keys, uint32_t n, uint32_t max)
{
    if (n < 2 || max == 0) return;
    uint32_t *src = perm, *dst = tmp;
    for (uint32_t shift = 0; shift < 32 && (max >> shift) != 0; shift += 11) {
        uint32_t count[2048] = {0};
        for (uint32_t i = 0; i < n; i++) count[(keys[src[i]] >> shift) & 2047]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < 2048; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) dst[count[(keys[src[i]] >> shift) & 2047]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != perm) memcpy(perm, src, (size_t)n * sizeof *perm);
}

/* One pass of the shared sort: chunk c of src, its digits counted (count) or placed (scatter). */
typedef struct sort_pass {
    const uint32_t *keys, *src;
    uint32_t *dst, *counts;
    uint32_t n, chunk, shift;
} sort_pass;

static void sort_count_job(void *ctx, uint32_t c)
{
    const sort_pass *p = ctx;
    uint32_t *count = p->counts + (size_t)c * ORRI_SORT_DIGITS, shift = p->shift;
    uint32_t from = c * p->chunk, to = p->n - from < p->chunk ? p->n : from + p->chunk;
    memset(count, 0, ORRI_SORT_DIGITS * sizeof *count);
    for (uint32_t i = from; i < to; i++) count[(p->keys[p->src[i]] >> shift) & (ORRI_SORT_DIGITS - 1)]++;
}

static void sort_scatter_job(void *ctx, uint32_t c)
{
    const sort_pass *p = ctx;
    uint32_t *count = p->counts + (size_t)c * ORRI_SORT_DIGITS, shift = p->shift;
    uint32_t from = c * p->chunk, to = p->n - from < p->chunk ? p->n : from + p->chunk;
    for (uint32_t i = from; i < to; i++) p->dst[count[(p->keys[p->src[i]] >> shift) & (ORRI_SORT_DIGITS - 1)]++] = p->src[i];
}

void orri_sort_by_key_u32_shared(orr_workers *workers, uint32_t threads, uint32_t *perm, uint32_t *tmp, const uint32_t *keys,
                                 uint32_t n, uint32_t max, uint32_t min_chunk, uint32_t *counts)
{
    if (n < 2 || max == 0) return;
    if (workers && threads > orr_workers_threads(workers)) threads = orr_workers_threads(workers);
    if (threads > ORRI_MAX_THREADS) threads = ORRI_MAX_THREADS;
    if (min_chunk < 1) min_chunk = 1;
    uint32_t chunks = n / min_chunk < threads ? n / min_chunk : threads;
    if (chunks < 2) {
        orr_sort_by_key_u32(perm, tmp, keys, n, max);
        return;
    }
    uint32_t chunk = (n + chunks - 1) / chunks;
    chunks = (n + chunk - 1) / chunk;
    sort_pass p = {.keys = keys, .src = perm, .dst = tmp, .counts = counts, .n = n, .chunk = chunk};
    for (uint32_t shift = 0; shift < 32 && (max >> shift) != 0; shift += 11) {
        p.shift = shift;
        orri_pool_run(workers, chunks, chunks, sort_count_job, &p);
        /* Digit d of chunk c goes after every smaller digit, and after digit d of the chunks before c. */
        uint32_t sum = 0;
        for (uint32_t d = 0; d < ORRI_SORT_DIGITS; d++)
            for (uint32_t c = 0; c < chunks; c++) {
                uint32_t *at = &counts[(size_t)c * ORRI_SORT_DIGITS + d], k = *at;
                *at = sum;
                sum += k;
            }
        orri_pool_run(workers, chunks, chunks, sort_scatter_job, &p);
        const uint32_t *t = p.src;
        p.src = p.dst;
        p.dst = (uint32_t *)t;
    }
    if (p.src != perm) memcpy(perm, p.src, (size_t)n * sizeof *perm);
}
