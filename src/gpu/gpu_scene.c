/* Scene buffers: the geometry pool (residency by mesh id, space reused through a free list), instance
 * slots with their 80-byte records, the joint palettes and the material slots. Each frame first plans
 * (CPU only: what is new, what changed, how many staging bytes that takes), then records the uploads
 * into the frame's command buffer. Only what the snapshot names as changed is planned, unless the frame
 * takes it whole. What a frame uploads of meshes and materials stays marked (pending, dirty) until
 * orri_scene_commit, after the frame's submit; a frame that fails calls orri_scene_abort instead, and
 * the next frame uploads it again (and takes its snapshot whole: see gpu_render.c). */
#include "gpu/gpu_internal.h"

#include <math.h>
#include <string.h>

extern const uint32_t orri_spv_scatter_comp[];
extern const size_t orri_spv_scatter_comp_size;

#define MIN_POOL_UNITS 4096u
#define COUNT_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
#define NONE UINT32_MAX

orr_result orri_frame_alloc(orr_renderer *r, orri_frame *frame, VkDeviceSize size, VkDeviceSize *offset)
{
    VkDeviceSize off = (frame->data_used + r->frame_align - 1) / r->frame_align * r->frame_align;
    if (off + size > frame->data.size)
        return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "frame buffer overflow (%llu + %llu > %llu bytes): sizing bug",
                             (unsigned long long)off, (unsigned long long)size, (unsigned long long)frame->data.size);
    frame->data_used = off + size;
    *offset = off;
    return ORR_OK;
}

void orri_upload_copy(orri_upload *up, VkDeviceSize src, VkBuffer dst, VkDeviceSize dst_offset, VkDeviceSize size)
{
    if (!size) return;
    VkBufferCopy region = {src, dst_offset, size};
    vkCmdCopyBuffer(up->cmd, up->frame->data.buffer, dst, 1, &region);
    up->bytes += size;
}

orr_result orri_buffer_ensure(orr_renderer *r, orri_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage,
                              const char *what, bool *fresh)
{
    if (fresh) *fresh = false;
    if (b->buffer && b->size >= size) return ORR_OK;
    /* A quarter more than asked (growth stays geometric, the slack small: these buffers are per
     * instance), in 64 KiB steps. */
    VkDeviceSize cap = (size + size / 4 + 65535) / 65536 * 65536;
    ORRI_TRY(orri_retire_buffer(r, b, r->frame_number));
    ORRI_TRY(orri_buffer_create(r, cap, usage, false, what, b));
    if (fresh) *fresh = true;
    return ORR_OK;
}

/* ---- space: a free list over [0, end) ------------------------------------------------------------ */

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

/* ---- geometry pool ----------------------------------------------------------------------- */

/* Gives a resident mesh's pool space back (its data stays until something is written over it: frames
 * in flight that still draw it are ordered before that write by the frame's first barrier). */
static void release_mesh(orr_renderer *r, orri_resident_mesh *m)
{
    orri_geometry *g = &r->geometry;
    for (uint32_t p = 0; p < m->primitive_count && m->primitives; p++) {
        const orri_resident_primitive *rp = &m->primitives[p];
        /* A failed free (no memory for the list) only loses that range until the library is rebound. */
        (void)orri_space_free(&r->allocator, &g->vertex_space, (uint64_t)rp->vertex_offset, rp->vertex_count);
        (void)orri_space_free(&r->allocator, &g->index_space, rp->first_index, rp->index_count);
    }
    if (m->primitives) orri_free(&r->allocator, m->primitives, sizeof *m->primitives * m->primitive_count);
    memset(m, 0, sizeof *m);
}

static void drop_pending(orri_geometry *g, uint32_t mesh_index)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < g->pending_count; k++)
        if (g->pending[k].index != mesh_index) g->pending[kept++] = g->pending[k];
    g->pending_count = kept;
}

/* Meshes the library removed since the last look go (their draws are dropped when the scenes are
 * rebuilt: r->geometry.released). */
static void release_removed(orr_renderer *r, const orr_assets *assets)
{
    orri_geometry *g = &r->geometry;
    for (uint32_t i = 0; i < g->mesh_capacity; i++) {
        orri_resident_mesh *m = &g->meshes[i];
        if (!m->generation || orr_assets_get_mesh(assets, (orr_mesh_id){i, m->generation})) continue;
        drop_pending(g, i);
        release_mesh(r, m);
        g->released = true;
    }
}

static orr_result plan_mesh(orr_renderer *r, const orr_assets *assets, orr_mesh_id id)
{
    orri_geometry *g = &r->geometry;
    if (ORR_ID_IS_NONE(id)) return ORR_OK;
    if (id.index < g->mesh_capacity && g->meshes[id.index].generation == id.generation) return ORR_OK;
    const orr_mesh *mesh = orr_assets_get_mesh(assets, id);
    if (!mesh) return ORR_OK; /* the draw module counts it */
    if (id.index >= g->mesh_capacity) {
        uint32_t cap = g->mesh_capacity;
        if (!ORRI_GROW(&r->allocator, g->meshes, cap, id.index + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for mesh residency");
        g->mesh_capacity = cap;
    }
    orri_resident_mesh *m = &g->meshes[id.index];
    if (m->generation) { /* an older generation of this index: the library removed it */
        drop_pending(g, id.index);
        release_mesh(r, m);
        g->released = true;
    }
    m->primitives = orri_alloc(&r->allocator, sizeof *m->primitives * (mesh->primitive_count ? mesh->primitive_count : 1));
    if (!m->primitives || !ORRI_GROW(&r->allocator, g->pending, g->pending_capacity, g->pending_count + 1)) {
        release_mesh(r, m);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for mesh residency");
    }
    m->primitive_count = mesh->primitive_count;
    m->generation = id.generation;
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        const orr_primitive *prim = &mesh->primitives[p];
        orri_resident_primitive *rp = &m->primitives[p];
        uint64_t v = 0, i = 0;
        if (!orri_space_alloc(&r->allocator, &g->vertex_space, prim->vertex_count, &v) ||
            !orri_space_alloc(&r->allocator, &g->index_space, prim->index_count, &i) || v > INT32_MAX || i > UINT32_MAX) {
            m->primitive_count = p; /* what was given goes back */
            release_mesh(r, m);
            return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "geometry pool: no room for mesh %u", id.index);
        }
        *rp = (orri_resident_primitive){.first_index = (uint32_t)i, .index_count = prim->index_count,
                                        .vertex_offset = (int32_t)v, .vertex_count = prim->vertex_count};
    }
    g->pending[g->pending_count++] = id;
    return ORR_OK;
}

orr_result orri_geometry_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, orri_scan scan,
                              uint64_t *stage)
{
    orri_geometry *g = &r->geometry;
    g->released = false;
    if (orr_assets_removals(assets) != g->removals) {
        release_removed(r, assets);
        g->removals = orr_assets_removals(assets);
    }
    /* Meshes planned by a frame that was not submitted stay pending (they count as resident): this
     * frame uploads them again into the pool space they were given. */
    if (scan == ORRI_SCAN_ALL) {
        for (uint32_t i = 0; i < s->instance_count; i++) ORRI_TRY(plan_mesh(r, assets, s->instances[i].mesh));
    } else if (scan == ORRI_SCAN_CHANGED) {
        for (uint32_t k = 0; k < s->changed_count; k++) {
            uint32_t i = orr_snapshot_find(s, s->changed[k]);
            if (i != NONE) ORRI_TRY(plan_mesh(r, assets, s->instances[i].mesh));
        }
    }
    for (uint32_t k = 0; k < g->pending_count; k++) {
        const orr_mesh *mesh = orr_assets_get_mesh(assets, g->pending[k]);
        for (uint32_t p = 0; mesh && p < mesh->primitive_count; p++)
            *stage += (uint64_t)mesh->primitives[p].vertex_count * ORRI_VERTEX_BYTES +
                      (uint64_t)mesh->primitives[p].index_count * 4 + 2 * r->frame_align;
    }
    return ORR_OK;
}

/* Makes the pool buffer hold `need` units, copying the `committed` ones earlier frames wrote. The old
 * buffer is kept in `replaced` until the frame is submitted (then retired) or fails (then it is the
 * pool again: the copy out of it never ran). */
static orr_result pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                               uint64_t committed, uint64_t need, uint64_t unit, VkBufferUsageFlags usage,
                               const char *what)
{
    if (need * unit <= buf->size && buf->buffer) return ORR_OK;
    ORRI_ASSERT(!replaced->buffer, "pool_reserve: %s grown twice in one frame", what);
    uint64_t size = buf->size ? buf->size : MIN_POOL_UNITS * unit;
    while (size < need * unit) size *= 2;
    orri_buffer fresh;
    ORRI_TRY(orri_buffer_create(r, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                false, what, &fresh));
    if (committed && buf->buffer) {
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = committed * unit};
        vkCmdCopyBuffer(up->cmd, buf->buffer, fresh.buffer, 1, &region);
    }
    *replaced = *buf;
    *buf = fresh;
    return ORR_OK;
}

orr_result orri_geometry_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up)
{
    orri_geometry *g = &r->geometry;
    ORRI_TRY(pool_reserve(r, up, &g->vertices, &g->replaced_vertices, g->vertex_committed, g->vertex_space.end,
                          ORRI_VERTEX_BYTES, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, "geometry pool vertices"));
    ORRI_TRY(pool_reserve(r, up, &g->indices, &g->replaced_indices, g->index_committed, g->index_space.end, 4,
                          VK_BUFFER_USAGE_INDEX_BUFFER_BIT, "geometry pool indices"));
    for (uint32_t k = 0; k < g->pending_count; k++) {
        orr_mesh_id id = g->pending[k];
        const orr_mesh *mesh = orr_assets_get_mesh(assets, id);
        const orri_resident_mesh *m = &g->meshes[id.index];
        if (!mesh || mesh->primitive_count != m->primitive_count) continue;
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const orr_primitive *prim = &mesh->primitives[p];
            const orri_resident_primitive *rp = &m->primitives[p];
            VkDeviceSize vbytes = (VkDeviceSize)prim->vertex_count * ORRI_VERTEX_BYTES;
            VkDeviceSize ibytes = (VkDeviceSize)prim->index_count * 4;
            if (vbytes) {
                VkDeviceSize off = 0;
                ORRI_TRY(orri_frame_alloc(r, up->frame, vbytes, &off));
                uint8_t *v = (uint8_t *)up->frame->data.map + off;
                for (uint32_t i = 0; i < prim->vertex_count; i++, v += ORRI_VERTEX_BYTES) {
                    memcpy(v + 0, prim->positions + 3 * i, 3 * sizeof(float));
                    memcpy(v + 12, prim->normals + 3 * i, 3 * sizeof(float));
                    memcpy(v + 24, prim->colors + 4 * i, 4 * sizeof(float));
                    memcpy(v + 40, prim->texcoords0 + 2 * i, 2 * sizeof(float));
                    memcpy(v + 48, prim->weights + 4 * i, 4 * sizeof(float));
                    memcpy(v + 64, prim->joints + 4 * i, 4 * sizeof(uint16_t));
                }
                orri_upload_copy(up, off, g->vertices.buffer, (VkDeviceSize)rp->vertex_offset * ORRI_VERTEX_BYTES, vbytes);
            }
            if (ibytes) {
                VkDeviceSize off = 0;
                ORRI_TRY(orri_frame_alloc(r, up->frame, ibytes, &off));
                memcpy((uint8_t *)up->frame->data.map + off, prim->indices, ibytes);
                orri_upload_copy(up, off, g->indices.buffer, (VkDeviceSize)rp->first_index * 4, ibytes);
            }
        }
    }
    return ORR_OK; /* the meshes stay pending until orri_scene_commit */
}

const orri_resident_primitive *orri_geometry_find(const orr_renderer *r, orr_mesh_id mesh, uint32_t primitive)
{
    const orri_geometry *g = &r->geometry;
    if (mesh.index >= g->mesh_capacity) return NULL;
    const orri_resident_mesh *m = &g->meshes[mesh.index];
    if (m->generation != mesh.generation || primitive >= m->primitive_count) return NULL;
    return &m->primitives[primitive];
}

static uint32_t grow_count(uint32_t have, uint32_t need, uint32_t minimum)
{
    uint32_t n = have ? have : minimum;
    while (n < need) n = n > UINT32_MAX / 2 ? need : n * 2;
    return n;
}

/* One of several arrays indexed alike that share one capacity. */
typedef struct parallel_array {
    void **items;
    size_t elem_size;
} parallel_array;

#define PARALLEL_ARRAY(arr) ((parallel_array){(void **)&(arr), sizeof *(arr)})
#define MAX_PARALLEL_ARRAYS 8

/* Grows every array to the same new capacity (at least `need`, doubling from `minimum`), the new
 * elements zeroed. All or nothing: the new arrays are allocated first, so on failure every array and
 * `*capacity` are as they were. */
static bool grow_parallel(orr_renderer *r, uint32_t *capacity, uint32_t need, uint32_t minimum,
                          const parallel_array *arrays, uint32_t count)
{
    ORRI_ASSERT(count <= MAX_PARALLEL_ARRAYS, "grow_parallel: %u arrays, at most %u", count, MAX_PARALLEL_ARRAYS);
    if (need <= *capacity) return true;
    uint32_t have = *capacity, cap = grow_count(have, need, minimum);
    void *fresh[MAX_PARALLEL_ARRAYS];
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

/* ---- instance slots ---------------------------------------------------------------------- */

uint32_t orri_instances_slot(const orr_renderer *r, uint32_t instance_id)
{
    const orri_instances *in = &r->instances;
    return instance_id < in->id_capacity && in->slot_of_id[instance_id] ? in->slot_of_id[instance_id] - 1 : NONE;
}

static void free_slot(orri_instances *in, uint32_t id)
{
    uint32_t slot = id < in->id_capacity ? in->slot_of_id[id] : 0;
    if (!slot) return;
    orr_handle_pool_free(&in->slots, (orr_handle){slot - 1, in->slots.generations[slot - 1]});
    in->slot_of_id[id] = 0;
}

/* The slot of instance `id`, given one (the lowest free) when it has none. */
static orr_result ensure_slot(orr_renderer *r, uint32_t id, uint32_t *out)
{
    orri_instances *in = &r->instances;
    if (id >= in->id_capacity) {
        uint32_t cap = in->id_capacity;
        if (!ORRI_GROW(&r->allocator, in->slot_of_id, cap, id + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance slots");
        in->id_capacity = cap;
    }
    if (in->slot_of_id[id]) {
        *out = in->slot_of_id[id] - 1;
        return ORR_OK;
    }
    /* The pool hands out a free index below slots.count or slots.count itself: room for that first. */
    const parallel_array arrays[] = {PARALLEL_ARRAY(in->id_of_slot), PARALLEL_ARRAY(in->slot_index),
                                     PARALLEL_ARRAY(in->mirrored)};
    if (!grow_parallel(r, &in->slot_capacity, in->slots.count + 1, 1024, arrays, COUNT_OF(arrays)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance slots");
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&in->slots, &h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "no instance slot for instance id %u", id);
    in->slot_of_id[id] = h.index + 1;
    in->id_of_slot[h.index] = id;
    in->mirrored[h.index] = 2; /* neither: the first record sets it */
    in->slot_index[h.index] = NONE;
    *out = h.index;
    return ORR_OK;
}

/* Notes the handedness the slot's record is about to get; a flip re-sorts the draws. */
static void note_handedness(orri_instances *in, uint32_t slot, const orr_render_instance *src)
{
    uint8_t m = orr_draw_mirrored(src);
    if (in->mirrored[slot] != 2 && in->mirrored[slot] != m) in->flipped = true;
    in->mirrored[slot] = m;
}

orr_result orri_instances_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage)
{
    orri_instances *in = &r->instances;
    in->upload_count = 0;
    in->flipped = false;
    /* Room for every slot this frame may hand out; a new buffer holds nothing, so it is filled whole. */
    uint64_t need = (uint64_t)in->slots.count + (whole ? s->instance_count : s->changed_count);
    if (!in->buffer.buffer || in->buffer.size < need * sizeof(orr_gpu_instance)) {
        ORRI_TRY(orri_buffer_ensure(r, &in->buffer, (need + 1024) * sizeof(orr_gpu_instance),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    "instance buffer", NULL));
        whole = true;
    }
    in->upload_all = whole;
    /* Slots of instances that left go first, so that new ones reuse the lowest in the same frame. */
    if (whole) {
        /* Taken whole: the snapshot says nothing of what left, so every slot is looked at (this is the
         * frame that uploads every record anyway). slot_index says which instance each slot holds. */
        for (uint32_t slot = 0; slot < in->slots.count; slot++) in->slot_index[slot] = NONE;
        for (uint32_t i = 0; i < s->instance_count; i++) {
            uint32_t slot = orri_instances_slot(r, s->instances[i].id);
            if (slot != NONE) in->slot_index[slot] = i;
        }
        for (uint32_t slot = 0; slot < in->slots.count; slot++) {
            bool alive = orr_handle_pool_is_alive(&in->slots, (orr_handle){slot, in->slots.generations[slot]});
            if (alive && in->slot_index[slot] == NONE) free_slot(in, in->id_of_slot[slot]);
        }
        for (uint32_t i = 0; i < s->instance_count; i++) {
            uint32_t slot;
            ORRI_TRY(ensure_slot(r, s->instances[i].id, &slot));
            in->slot_index[slot] = i;
            note_handedness(in, slot, &s->instances[i]);
        }
    } else {
        /* A delta: its removed and changed instances only (found through the snapshot's index_of). */
        for (uint32_t k = 0; k < s->removed_count; k++) free_slot(in, s->removed[k]);
        if (!ORRI_GROW(&r->allocator, in->upload, in->upload_capacity, s->changed_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance uploads");
        for (uint32_t k = 0; k < s->changed_count; k++) {
            if (k + 8 < s->changed_count) { /* scattered ids: their misses overlap */
                uint32_t ahead = s->changed[k + 8];
                if (ahead < s->index_capacity) __builtin_prefetch(&s->index_of[ahead]);
                if (ahead < in->id_capacity) __builtin_prefetch(&in->slot_of_id[ahead]);
            }
            uint32_t i = orr_snapshot_find(s, s->changed[k]), slot;
            if (i == NONE) continue; /* a delta naming an id it does not hold: nothing to draw */
            ORRI_TRY(ensure_slot(r, s->changed[k], &slot));
            note_handedness(in, slot, &s->instances[i]);
            in->upload[in->upload_count++] = i;
        }
    }
    uint32_t n = in->upload_all ? in->slots.count : in->upload_count;
    *stage += (uint64_t)n * (sizeof(orr_gpu_instance) + sizeof(uint32_t)) + 2 * r->frame_align;
    return ORR_OK;
}

static void instance_record(const orr_render_instance *src, orr_gpu_instance *dst)
{
    memset(dst, 0, sizeof *dst);
    const double *m = src->world.m;
    for (int k = 0; k < 9; k++) dst->linear[k] = (float)m[k];
    for (int k = 0; k < 3; k++) orr_split_double(m[9 + k], &dst->t_hi[k], &dst->t_lo[k]);
    dst->flags = (orr_draw_mirrored(src) ? ORR_GPU_INSTANCE_MIRRORED : 0u) |
                 (src->joint_count ? ORR_GPU_INSTANCE_SKINNED : 0u) | (src->visible ? ORR_GPU_INSTANCE_VISIBLE : 0u);
    dst->layers = src->layers;
    dst->joint_offset = src->joint_offset;
    dst->joint_count = src->joint_count;
}

orr_result orri_instances_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up)
{
    orri_instances *in = &r->instances;
    uint32_t n = in->upload_all ? in->slots.count : in->upload_count;
    in->scatter_count = 0;
    if (!n) return ORR_OK;
    VkDeviceSize off = 0;
    ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)n * sizeof(orr_gpu_instance), &off));
    orr_gpu_instance *staged = (orr_gpu_instance *)((uint8_t *)up->frame->data.map + off);
    if (in->upload_all) { /* every slot, in slot order: one copy */
        for (uint32_t slot = 0; slot < n; slot++) {
            bool alive = orr_handle_pool_is_alive(&in->slots, (orr_handle){slot, in->slots.generations[slot]});
            uint32_t i = alive ? in->slot_index[slot] : NONE;
            if (i == NONE) memset(&staged[slot], 0, sizeof staged[slot]); /* drawn by nothing */
            else instance_record(&s->instances[i], &staged[slot]);
        }
        orri_upload_copy(up, off, in->buffer.buffer, 0, (VkDeviceSize)n * sizeof *staged);
        return ORR_OK;
    }
    /* The changed ones: their slots, then their records, written into place by one dispatch
     * (orri_instances_scatter), where a copy with a region per record costs the GPU a copy each. */
    VkDeviceSize slots_at = 0;
    ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)n * sizeof(uint32_t), &slots_at));
    uint32_t *slots = (uint32_t *)((uint8_t *)up->frame->data.map + slots_at);
    for (uint32_t k = 0; k < n; k++) {
        const orr_render_instance *src = &s->instances[in->upload[k]];
        slots[k] = in->slot_of_id[src->id] - 1;
        instance_record(src, &staged[k]);
    }
    in->scatter_slots = slots_at;
    in->scatter_records = off;
    in->scatter_count = n;
    up->bytes += (uint64_t)n * (sizeof *staged + sizeof *slots);
    return ORR_OK;
}

orr_result orri_scene_create_pipelines(orr_renderer *r)
{
    VkDescriptorSetLayoutBinding b[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}, /* the frame buffer */
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}, /* the instances */
    };
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 2, .pBindings = b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &r->scatter_layout));
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 3 * sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &r->scatter_layout, .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &push};
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &pi, NULL, &r->scatter_pipeline_layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = orri_spv_scatter_comp_size, .pCode = orri_spv_scatter_comp};
    VkShaderModule module;
    ORRI_VK(r, vkCreateShaderModule(r->device, &mi, NULL, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module, .pName = "main"},
        .layout = r->scatter_pipeline_layout,
    };
    VkResult res = vkCreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &ci, NULL, &r->pipeline_scatter);
    vkDestroyShaderModule(r->device, module, NULL);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateComputePipelines (scatter) failed: %s", orri_vk_result_name(res));
    return ORR_OK;
}

void orri_instances_scatter(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f)
{
    orri_instances *in = &r->instances;
    if (in->upload_all || !in->scatter_count) return;
    VkDescriptorBufferInfo infos[2] = {{f->data.buffer, 0, VK_WHOLE_SIZE}, {in->buffer.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (uint32_t i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->scatter_set,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[i]};
    vkUpdateDescriptorSets(r->device, 2, w, 0, NULL);
    uint32_t push[3] = {in->scatter_count, (uint32_t)(in->scatter_slots / 4), (uint32_t)(in->scatter_records / 4)};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipeline_scatter);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->scatter_pipeline_layout, 0, 1, &f->scatter_set, 0, NULL);
    vkCmdPushConstants(cmd, r->scatter_pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    vkCmdDispatch(cmd, (in->scatter_count + 63) / 64, 1, 1);
    /* the records are in place before the cull and the draws read them */
    VkMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                          .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                          .srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                          .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                          VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                          .dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

/* ---- joints ------------------------------------------------------------------------------ */

#define JOINT_BYTES (3 * 16) /* three vec4 rows */

static bool has_palette(const orr_render_instance *in, const orr_snapshot *s)
{
    return in->joint_count && in->joint_offset != NONE && in->joint_offset <= s->joint_count &&
           in->joint_count <= s->joint_count - in->joint_offset;
}

orr_result orri_joints_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage)
{
    orri_joints *j = &r->joints;
    j->upload_count = 0;
    j->upload_all = whole;
    bool fresh;
    ORRI_TRY(orri_buffer_ensure(r, &j->buffer, (VkDeviceSize)(s->joint_count + 1) * JOINT_BYTES,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, "joint buffer",
                                &fresh));
    if (fresh) j->upload_all = true;
    uint64_t joints = 0;
    if (j->upload_all) {
        joints = s->joint_count;
    } else if (s->joint_count) { /* a snapshot without skins has no ranges to look for */
        if (!ORRI_GROW(&r->allocator, j->upload, j->upload_capacity, s->changed_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for joint uploads");
        for (uint32_t k = 0; k < s->changed_count; k++) {
            uint32_t i = orr_snapshot_find(s, s->changed[k]);
            if (i == NONE || !has_palette(&s->instances[i], s)) continue;
            j->upload[j->upload_count++] = i;
            joints += s->instances[i].joint_count;
        }
    }
    *stage += joints * JOINT_BYTES + r->frame_align;
    return ORR_OK;
}

static void joint_rows(const orr_affine3d *src, uint32_t n, float *rows)
{
    for (uint32_t k = 0; k < n; k++) {
        const double *m = src[k].m;
        for (int row = 0; row < 3; row++)
            for (int c = 0; c < 4; c++) rows[k * 12 + row * 4 + c] = (float)m[c * 3 + row];
    }
}

orr_result orri_joints_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up)
{
    orri_joints *j = &r->joints;
    if (j->upload_all) {
        if (!s->joint_count) return ORR_OK;
        VkDeviceSize off = 0;
        ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)s->joint_count * JOINT_BYTES, &off));
        joint_rows(s->joints, s->joint_count, (float *)((uint8_t *)up->frame->data.map + off));
        orri_upload_copy(up, off, j->buffer.buffer, 0, (VkDeviceSize)s->joint_count * JOINT_BYTES);
        return ORR_OK;
    }
    for (uint32_t k = 0; k < j->upload_count; k++) {
        const orr_render_instance *in = &s->instances[j->upload[k]];
        VkDeviceSize off = 0, bytes = (VkDeviceSize)in->joint_count * JOINT_BYTES;
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        joint_rows(s->joints + in->joint_offset, in->joint_count, (float *)((uint8_t *)up->frame->data.map + off));
        orri_upload_copy(up, off, j->buffer.buffer, (VkDeviceSize)in->joint_offset * JOINT_BYTES, bytes);
    }
    return ORR_OK;
}

/* ---- materials --------------------------------------------------------------------------- */

static void material_record(const orr_material *m, orr_gpu_material *dst)
{
    memset(dst, 0, sizeof *dst);
    memcpy(dst->base_color, m->base_color, sizeof dst->base_color);
    for (int k = 0; k < 3; k++) dst->emissive[k] = m->emissive[k] * m->emissive_strength;
    dst->alpha_cutoff = m->alpha_cutoff;
    dst->metallic = m->metallic;
    dst->roughness = m->roughness;
    dst->alpha_mode = (uint32_t)m->alpha_mode;
    dst->flags = (m->double_sided ? ORR_GPU_MATERIAL_DOUBLE_SIDED : 0u) | (m->unlit ? ORR_GPU_MATERIAL_UNLIT : 0u);
    const orr_texture_ref *t = &m->base_color_texture;
    /* the image itself comes from the per-batch descriptor set; the index is informative */
    dst->base_color_texture = ORR_ID_IS_NONE(t->texture) ? ORR_GPU_NO_TEXTURE : t->texture.index;
    dst->base_color_texcoord = t->texcoord;
    /* KHR_texture_transform: uv' = T x R x S x uv, as columns of a 2x3 matrix. The rotation turns
     * the UVs counter-clockwise as the image is seen (v down): u' = c u + s v, v' = -s u + c v, which
     * is what glTF's TextureTransformTest sample checks (its arrow meets the green marker). */
    float sx = t->uv_scale[0], sy = t->uv_scale[1];
    if (sx == 0.0f && sy == 0.0f) sx = sy = 1.0f; /* a zeroed ref: the defaults */
    float c = 1.0f, s = 0.0f;
    if (t->rotation != 0.0f) {
        c = cosf(t->rotation);
        s = sinf(t->rotation);
    }
    dst->uv_transform[0] = c * sx;
    dst->uv_transform[1] = -s * sx;
    dst->uv_transform[2] = s * sy;
    dst->uv_transform[3] = c * sy;
    dst->uv_transform[4] = t->offset[0];
    dst->uv_transform[5] = t->offset[1];
}

/* Refreshes slot `id.index` from the library; *restate when its drawing state changed. */
static orr_result touch(orr_renderer *r, const orr_assets *assets, orr_material_id id, bool *restate)
{
    orri_materials *mt = &r->materials;
    const orr_material *mat = orr_assets_get_material(assets, id);
    if (!mat) return ORR_OK;
    const parallel_array arrays[] = {PARALLEL_ARRAY(mt->records), PARALLEL_ARRAY(mt->revision),
                                     PARALLEL_ARRAY(mt->generation), PARALLEL_ARRAY(mt->dirty)};
    if (!grow_parallel(r, &mt->capacity, id.index + 1, 256, arrays, COUNT_OF(arrays)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for material slots");
    if (id.index + 1 > mt->count) mt->count = id.index + 1;
    uint64_t rev = orr_assets_material_revision(assets, id);
    if (mt->generation[id.index] == id.generation && mt->revision[id.index] == rev + 1) return ORR_OK;
    bool known = mt->generation[id.index] == id.generation;
    mt->generation[id.index] = id.generation;
    mt->revision[id.index] = rev + 1;
    orr_gpu_material rec;
    material_record(mat, &rec);
    orr_gpu_material *old = &mt->records[id.index];
    if (known && restate &&
        (old->alpha_mode != rec.alpha_mode || ((old->flags ^ rec.flags) & ORR_GPU_MATERIAL_DOUBLE_SIDED) ||
         old->base_color_texture != rec.base_color_texture))
        *restate = true;
    if (memcmp(&rec, old, sizeof rec) != 0) {
        *old = rec;
        if (!mt->dirty[id.index]) mt->dirty_count++;
        mt->dirty[id.index] = 1;
    }
    return ORR_OK;
}

orr_result orri_materials_touch(orr_renderer *r, const orr_assets *assets, orr_material_id id)
{
    return touch(r, assets, id, NULL);
}

orr_result orri_materials_refresh(orr_renderer *r, const orr_assets *assets, bool *restate)
{
    orri_materials *mt = &r->materials;
    uint64_t rev = orr_assets_revision(assets);
    if (rev == mt->assets_revision) return ORR_OK;
    mt->assets_revision = rev;
    /* The library changed: every slot in use is looked at again (materials, not instances). */
    for (uint32_t i = 0; i < mt->count; i++)
        if (mt->generation[i]) ORRI_TRY(touch(r, assets, (orr_material_id){i, mt->generation[i]}, restate));
    return ORR_OK;
}

uint64_t orri_materials_plan(orr_renderer *r)
{
    orri_materials *mt = &r->materials;
    uint32_t count = mt->count ? mt->count : 1;
    if (!mt->buffer.buffer || mt->buffer.size < (VkDeviceSize)count * sizeof(orr_gpu_material)) {
        mt->gpu_realloc = true;
        mt->dirty_count = mt->count;
        for (uint32_t k = 0; k < mt->count; k++) mt->dirty[k] = 1;
    }
    return mt->dirty_count ? (uint64_t)mt->dirty_count * sizeof(orr_gpu_material) + r->frame_align : 0;
}

orr_result orri_materials_upload(orr_renderer *r, orri_upload *up)
{
    orri_materials *mt = &r->materials;
    if (mt->gpu_realloc || !mt->buffer.buffer) {
        uint32_t cap = mt->capacity ? mt->capacity : 256;
        ORRI_TRY(orri_retire_buffer(r, &mt->buffer, up->frame_number));
        ORRI_TRY(orri_buffer_create(r, (VkDeviceSize)cap * sizeof(orr_gpu_material),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false,
                                    "material buffer", &mt->buffer));
        mt->gpu_realloc = false;
    }
    if (!mt->dirty_count) return ORR_OK;
    VkDeviceSize off = 0;
    ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)mt->dirty_count * sizeof(orr_gpu_material), &off));
    uint32_t k = 0;
    for (uint32_t i = 0; i < mt->count; i++) { /* slots, not instances: materials are few */
        if (!mt->dirty[i]) continue;
        VkDeviceSize at = off + (VkDeviceSize)k++ * sizeof(orr_gpu_material);
        memcpy((uint8_t *)up->frame->data.map + at, &mt->records[i], sizeof(orr_gpu_material));
        orri_upload_copy(up, at, mt->buffer.buffer, (VkDeviceSize)i * sizeof(orr_gpu_material), sizeof(orr_gpu_material));
    }
    return ORR_OK;
}

/* ---- end of a frame ---------------------------------------------------------------------- */

orr_result orri_scene_reserve_commit(orr_renderer *r)
{
    const orri_geometry *g = &r->geometry;
    return orri_garbage_reserve(r, (g->replaced_vertices.buffer ? 1u : 0u) + (g->replaced_indices.buffer ? 1u : 0u));
}

void orri_scene_commit(orr_renderer *r, uint64_t frame_number)
{
    orri_geometry *g = &r->geometry;
    /* cannot fail: orri_scene_reserve_commit made room in the queue */
    (void)orri_retire_buffer(r, &g->replaced_vertices, frame_number);
    (void)orri_retire_buffer(r, &g->replaced_indices, frame_number);
    g->pending_count = 0;
    g->vertex_committed = g->vertex_space.end;
    g->index_committed = g->index_space.end;
    orri_materials *mt = &r->materials;
    if (mt->count) memset(mt->dirty, 0, sizeof *mt->dirty * mt->count);
    mt->dirty_count = 0;
}

/* A pool grown by the failed frame: the new buffer was named only by commands never submitted, so it
 * goes now, and the old one (which still holds every committed byte) is the pool again. */
static void pool_restore(orr_renderer *r, orri_buffer *buf, orri_buffer *replaced)
{
    if (!replaced->buffer) return; /* not grown, or grown from nothing (then nothing was committed) */
    orri_buffer_destroy(r, buf);
    *buf = *replaced;
    memset(replaced, 0, sizeof *replaced);
}

void orri_scene_abort(orr_renderer *r)
{
    pool_restore(r, &r->geometry.vertices, &r->geometry.replaced_vertices);
    pool_restore(r, &r->geometry.indices, &r->geometry.replaced_indices);
    /* pending meshes and dirty materials simply stay marked; the records, joints and scenes are
     * redone whole by the next frame */
}

/* ---- lifetime ---------------------------------------------------------------------------- */

void orri_scene_init(orr_renderer *r)
{
    orr_handle_pool_init(&r->instances.slots, &r->allocator, 0);
}

void orri_scene_release(orr_renderer *r)
{
    orri_geometry *g = &r->geometry;
    uint64_t last = r->frame_number;
    for (uint32_t i = 0; i < g->mesh_capacity; i++) {
        orri_resident_mesh *m = &g->meshes[i];
        if (m->primitives) orri_free(&r->allocator, m->primitives, sizeof *m->primitives * m->primitive_count);
        memset(m, 0, sizeof *m);
    }
    orri_space_reset(&g->vertex_space);
    orri_space_reset(&g->index_space);
    g->vertex_committed = g->index_committed = 0;
    g->pending_count = 0;
    g->removals = 0;
    orri_retire_buffer(r, &g->vertices, last);
    orri_retire_buffer(r, &g->indices, last);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orr_handle_pool_init(&in->slots, &r->allocator, 0);
    if (in->id_capacity) memset(in->slot_of_id, 0, sizeof *in->slot_of_id * in->id_capacity);
    orri_retire_buffer(r, &in->buffer, last);
    orri_retire_buffer(r, &r->joints.buffer, last);

    orri_materials *mt = &r->materials;
    if (mt->capacity) {
        memset(mt->generation, 0, sizeof *mt->generation * mt->capacity);
        memset(mt->revision, 0, sizeof *mt->revision * mt->capacity);
        memset(mt->dirty, 0, sizeof *mt->dirty * mt->capacity);
        memset(mt->records, 0, sizeof *mt->records * mt->capacity);
    }
    mt->count = mt->dirty_count = 0;
    mt->assets_revision = 0;
    orri_textures_release(r, last);
    r->applied_frame = 0;
}

void orri_scene_fini(orr_renderer *r)
{
    orri_geometry *g = &r->geometry;
    for (uint32_t i = 0; i < g->mesh_capacity; i++)
        if (g->meshes[i].primitives)
            orri_free(&r->allocator, g->meshes[i].primitives, sizeof *g->meshes[i].primitives * g->meshes[i].primitive_count);
    orri_free(&r->allocator, g->meshes, sizeof *g->meshes * g->mesh_capacity);
    orri_free(&r->allocator, g->pending, sizeof *g->pending * g->pending_capacity);
    orri_space_fini(&r->allocator, &g->vertex_space);
    orri_space_fini(&r->allocator, &g->index_space);
    orri_buffer_destroy(r, &g->vertices);
    orri_buffer_destroy(r, &g->indices);
    orri_buffer_destroy(r, &g->replaced_vertices);
    orri_buffer_destroy(r, &g->replaced_indices);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orri_free(&r->allocator, in->slot_of_id, sizeof *in->slot_of_id * in->id_capacity);
    orri_free(&r->allocator, in->id_of_slot, sizeof *in->id_of_slot * in->slot_capacity);
    orri_free(&r->allocator, in->mirrored, sizeof *in->mirrored * in->slot_capacity);
    orri_free(&r->allocator, in->slot_index, sizeof *in->slot_index * in->slot_capacity);
    orri_free(&r->allocator, in->upload, sizeof *in->upload * in->upload_capacity);
    orri_buffer_destroy(r, &in->buffer);
    orri_joints *j = &r->joints;
    orri_free(&r->allocator, j->upload, sizeof *j->upload * j->upload_capacity);
    orri_buffer_destroy(r, &j->buffer);

    orri_materials *mt = &r->materials;
    orri_free(&r->allocator, mt->records, sizeof *mt->records * mt->capacity);
    orri_free(&r->allocator, mt->revision, sizeof *mt->revision * mt->capacity);
    orri_free(&r->allocator, mt->generation, sizeof *mt->generation * mt->capacity);
    orri_free(&r->allocator, mt->dirty, sizeof *mt->dirty * mt->capacity);
    orri_buffer_destroy(r, &mt->buffer);
}
