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

/* A large block: 2 MiB aligned, so that its whole huge pages are the block's, and offered them. */
static void *large_block(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_PAGE) (void)madvise(p, size & ~(HUGE_PAGE - 1), MADV_HUGEPAGE); /* advice: may be refused */
#endif
    return p;
}

static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)user;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    if (new_size < ORR_LARGE_BLOCK && (!ptr || old_size < ORR_LARGE_BLOCK)) return realloc(ptr, new_size);
    if (new_size < ORR_LARGE_BLOCK) { /* shrunk below the threshold: a small block again */
        void *small = malloc(new_size);
        if (small) {
            memcpy(small, ptr, new_size);
            free(ptr);
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
