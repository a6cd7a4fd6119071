/* A free list over [0, end): first fit at the lowest offset, freed ranges coalesced (gpu_space.h). */
#include "gpu/gpu_space.h"

#include <string.h>

bool orri_space_alloc(const orr_allocator *a, orri_space *s, uint64_t size, uint64_t *offset)
{
    (void)a; /* taking space never allocates: the list only shrinks or shortens */
    if (size == 0) {
        *offset = 0;
        return true;
    }
    for (uint32_t i = 0; i < s->free_count; i++) { /* first fit, lowest offset */
        orri_span *f = &s->free[i];
        if (f->size < size) continue;
        *offset = f->offset;
        f->offset += size;
        f->size -= size;
        if (!f->size) {
            memmove(f, f + 1, (size_t)(s->free_count - i - 1) * sizeof *f);
            s->free_count--;
        }
        s->used += size;
        return true;
    }
    *offset = s->end;
    s->end += size;
    s->used += size;
    return true;
}

orri_space_result orri_space_alloc_aligned(const orr_allocator *a, orri_space *s, uint64_t size, uint64_t align,
                                           uint64_t limit, uint64_t *offset)
{
    if (align == 0) align = 1;
    if (size == 0) size = 1; /* a resource always owns its bytes: two empty ones never share an offset */
    for (uint32_t i = 0; i < s->free_count; i++) { /* first fit, lowest offset */
        uint64_t lo = s->free[i].offset, hi = lo + s->free[i].size;
        uint64_t start = (lo + align - 1) / align * align;
        if (start + size > hi) continue;
        uint64_t pad = start - lo, tail = hi - (start + size);
        if (pad && tail) { /* the span splits in two */
            if (!orri_grow(a, (void **)&s->free, &s->free_capacity, s->free_count + 1, sizeof *s->free))
                return ORRI_SPACE_NOMEM;
            memmove(&s->free[i + 2], &s->free[i + 1], (size_t)(s->free_count - i - 1) * sizeof *s->free);
            s->free[i].size = pad;
            s->free[i + 1] = (orri_span){start + size, tail};
            s->free_count++;
        } else if (pad) {
            s->free[i].size = pad;
        } else if (tail) {
            s->free[i] = (orri_span){start + size, tail};
        } else {
            memmove(&s->free[i], &s->free[i + 1], (size_t)(s->free_count - i - 1) * sizeof *s->free);
            s->free_count--;
        }
        s->used += size;
        *offset = start;
        return ORRI_SPACE_OK;
    }
    uint64_t start = (s->end + align - 1) / align * align;
    if (start < s->end || start + size < start || start + size > limit) return ORRI_SPACE_FULL;
    if (start > s->end) { /* the alignment gap stays free (no free range ends at `end`) */
        if (!orri_grow(a, (void **)&s->free, &s->free_capacity, s->free_count + 1, sizeof *s->free))
            return ORRI_SPACE_NOMEM;
        s->free[s->free_count++] = (orri_span){s->end, start - s->end};
    }
    s->end = start + size;
    s->used += size;
    *offset = start;
    return ORRI_SPACE_OK;
}

bool orri_space_free(const orr_allocator *a, orri_space *s, uint64_t offset, uint64_t size)
{
    if (size == 0) return true;
    uint32_t i = 0;
    while (i < s->free_count && s->free[i].offset < offset) i++;
    bool join_prev = i > 0 && s->free[i - 1].offset + s->free[i - 1].size == offset;
    bool join_next = i < s->free_count && offset + size == s->free[i].offset;
    if (join_prev && join_next) {
        s->free[i - 1].size += size + s->free[i].size;
        memmove(&s->free[i], &s->free[i + 1], (size_t)(s->free_count - i - 1) * sizeof *s->free);
        s->free_count--;
    } else if (join_prev) {
        s->free[i - 1].size += size;
    } else if (join_next) {
        s->free[i].offset = offset;
        s->free[i].size += size;
    } else {
        if (!orri_grow(a, (void **)&s->free, &s->free_capacity, s->free_count + 1, sizeof *s->free)) return false;
        memmove(&s->free[i + 1], &s->free[i], (size_t)(s->free_count - i) * sizeof *s->free);
        s->free[i] = (orri_span){offset, size};
        s->free_count++;
    }
    s->used -= size;
    /* The last free range gives its space back to the end. */
    if (s->free_count && s->free[s->free_count - 1].offset + s->free[s->free_count - 1].size == s->end) {
        s->end = s->free[s->free_count - 1].offset;
        s->free_count--;
    }
    return true;
}

void orri_space_reset(orri_space *s)
{
    s->free_count = 0;
    s->end = s->used = 0;
}

void orri_space_fini(const orr_allocator *a, orri_space *s)
{
    orri_free(a, s->free, (size_t)s->free_capacity * sizeof *s->free);
    memset(s, 0, sizeof *s);
}
