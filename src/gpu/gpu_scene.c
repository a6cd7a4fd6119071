/* Scene buffers: the geometry pool (residency by mesh id), instance slots with their 80-byte records,
 * and material slots. Each frame first plans (CPU only: what is new, what changed, how many staging
 * bytes that takes), then records the uploads into the frame's command buffer. What a frame uploads
 * stays marked (pending meshes, dirty records) until orri_scene_commit, after the frame's submit; a
 * frame that fails calls orri_scene_abort instead and the next frame uploads it all again. */
#include "gpu/gpu_internal.h"

#include <math.h>
#include <string.h>

#define MIN_POOL_BYTES (64u * 1024u)
#define COUNT_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

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

/* Copies the dirty elements (one staging block, one region per run). The marks stay until the
 * frame is submitted (orri_scene_commit). */
static orr_result upload_dirty(orr_renderer *r, orri_upload *up, const uint8_t *dirty, uint32_t count, const void *records,
                               size_t stride, VkBuffer dst)
{
    uint32_t dirty_count = 0, runs = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!dirty[i]) continue;
        dirty_count++;
        if (i == 0 || !dirty[i - 1]) runs++;
    }
    if (!dirty_count) return ORR_OK;
    VkDeviceSize off = 0;
    ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)dirty_count * stride, &off));
    VkBufferCopy *regions = orri_alloc(&r->allocator, sizeof *regions * runs);
    if (!regions) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for upload regions");
    uint8_t *staging = (uint8_t *)up->frame->data.map + off;
    VkDeviceSize src = off;
    uint32_t run = 0;
    for (uint32_t i = 0; i < count;) {
        if (!dirty[i]) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j < count && dirty[j]) j++;
        size_t bytes = (size_t)(j - i) * stride;
        memcpy(staging, (const uint8_t *)records + (size_t)i * stride, bytes);
        regions[run++] = (VkBufferCopy){.srcOffset = src, .dstOffset = (VkDeviceSize)i * stride, .size = bytes};
        staging += bytes;
        src += bytes;
        i = j;
    }
    vkCmdCopyBuffer(up->cmd, up->frame->data.buffer, dst, runs, regions);
    orri_free(&r->allocator, regions, sizeof *regions * runs);
    up->bytes += (uint64_t)dirty_count * stride;
    return ORR_OK;
}

static uint32_t grow_count(uint32_t have, uint32_t need, uint32_t minimum)
{
    uint32_t n = have ? have : minimum;
    while (n < need) n = n > UINT32_MAX / 2 ? need : n * 2;
    return n;
}

/* One of several arrays indexed alike (slots, material ids) that share one capacity. */
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

/* ---- geometry pool ----------------------------------------------------------------------- */

static void release_mesh(orr_renderer *r, orri_resident_mesh *m)
{
    if (m->primitives) orri_free(&r->allocator, m->primitives, sizeof *m->primitives * m->primitive_count);
    memset(m, 0, sizeof *m);
}

/* Forgets every resident mesh (another asset library: its ids start again). */
static void geometry_release(orr_renderer *r)
{
    orri_geometry *g = &r->geometry;
    for (uint32_t i = 0; i < g->mesh_capacity; i++) release_mesh(r, &g->meshes[i]);
    g->vertex_used = g->index_used = 0;
    g->vertex_committed = g->index_committed = 0;
    g->pending_count = 0;
}

orr_result orri_geometry_plan(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, uint64_t *stage)
{
    orri_geometry *g = &r->geometry;
    if (g->assets != assets) {
        geometry_release(r);
        orri_textures_release(r, r->frame_number);
        g->assets = assets;
        for (uint32_t i = 0; i < r->materials.capacity; i++) r->materials.generation[i] = 0;
    }
    /* Meshes planned by a frame that was not submitted stay pending (they count as resident): this
     * frame uploads them again into the pool space they were given. */
    for (uint32_t i = 0; i < s->instance_count; i++) {
        orr_mesh_id id = s->instances[i].mesh;
        if (ORR_ID_IS_NONE(id)) continue;
        if (id.index < g->mesh_capacity && g->meshes[id.index].generation == id.generation) continue;
        const orr_mesh *mesh = orr_assets_get_mesh(assets, id);
        if (!mesh) continue; /* the draw module counts it */
        if (id.index >= g->mesh_capacity) {
            uint32_t cap = g->mesh_capacity;
            if (!ORRI_GROW(&r->allocator, g->meshes, cap, id.index + 1))
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for mesh residency");
            g->mesh_capacity = cap;
        }
        orri_resident_mesh *m = &g->meshes[id.index];
        release_mesh(r, m); /* an older generation of this index (its pool space is not reused) */
        m->primitives = orri_alloc(&r->allocator, sizeof *m->primitives * (mesh->primitive_count ? mesh->primitive_count : 1));
        if (!m->primitives) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for mesh residency");
        if (!ORRI_GROW(&r->allocator, g->pending, g->pending_capacity, g->pending_count + 1)) {
            release_mesh(r, m);
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for mesh residency");
        }
        m->primitive_count = mesh->primitive_count;
        m->generation = id.generation;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const orr_primitive *prim = &mesh->primitives[p];
            orri_resident_primitive *rp = &m->primitives[p];
            rp->vertex_offset = (int32_t)(g->vertex_used / ORRI_VERTEX_BYTES);
            rp->first_index = (uint32_t)(g->index_used / 4);
            rp->index_count = prim->index_count;
            g->vertex_used += (uint64_t)prim->vertex_count * ORRI_VERTEX_BYTES;
            g->index_used += (uint64_t)prim->index_count * 4;
        }
        g->pending[g->pending_count++] = id;
    }
    for (uint32_t k = 0; k < g->pending_count; k++) {
        const orr_mesh *mesh = orr_assets_get_mesh(assets, g->pending[k]);
        for (uint32_t p = 0; mesh && p < mesh->primitive_count; p++)
            *stage += (uint64_t)mesh->primitives[p].vertex_count * ORRI_VERTEX_BYTES +
                      (uint64_t)mesh->primitives[p].index_count * 4 + 2 * r->frame_align;
    }
    return ORR_OK;
}

/* Makes the pool buffer hold `need` bytes, copying what earlier frames wrote. The old buffer is kept
 * in `replaced` until the frame is submitted (then retired) or fails (then it is the pool again: the
 * copy out of it never ran). */
static orr_result pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                               uint64_t committed, uint64_t need, VkBufferUsageFlags usage, const char *what)
{
    if (need <= buf->size && buf->buffer) return ORR_OK;
    ORRI_ASSERT(!replaced->buffer, "pool_reserve: %s grown twice in one frame", what);
    uint64_t size = buf->size ? buf->size : MIN_POOL_BYTES;
    while (size < need) size *= 2;
    orri_buffer fresh;
    ORRI_TRY(orri_buffer_create(r, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                false, what, &fresh));
    if (committed) {
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = committed};
        vkCmdCopyBuffer(up->cmd, buf->buffer, fresh.buffer, 1, &region);
    }
    *replaced = *buf;
    *buf = fresh;
    return ORR_OK;
}

orr_result orri_geometry_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up)
{
    orri_geometry *g = &r->geometry;
    ORRI_TRY(pool_reserve(r, up, &g->vertices, &g->replaced_vertices, g->vertex_committed, g->vertex_used,
                          VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, "geometry pool vertices"));
    ORRI_TRY(pool_reserve(r, up, &g->indices, &g->replaced_indices, g->index_committed, g->index_used,
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
                VkBufferCopy region = {off, (VkDeviceSize)rp->vertex_offset * ORRI_VERTEX_BYTES, vbytes};
                vkCmdCopyBuffer(up->cmd, up->frame->data.buffer, g->vertices.buffer, 1, &region);
            }
            if (ibytes) {
                VkDeviceSize off = 0;
                ORRI_TRY(orri_frame_alloc(r, up->frame, ibytes, &off));
                memcpy((uint8_t *)up->frame->data.map + off, prim->indices, ibytes);
                VkBufferCopy region = {off, (VkDeviceSize)rp->first_index * 4, ibytes};
                vkCmdCopyBuffer(up->cmd, up->frame->data.buffer, g->indices.buffer, 1, &region);
            }
            up->bytes += vbytes + ibytes;
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

/* ---- instance slots ---------------------------------------------------------------------- */

static uint32_t hash_u32(uint32_t k)
{
    k ^= k >> 16;
    k *= 0x7feb352du;
    k ^= k >> 15;
    k *= 0x846ca68bu;
    k ^= k >> 16;
    return k;
}

static void map_insert(orri_instances *in, uint32_t key, uint32_t slot)
{
    uint32_t mask = in->map_capacity - 1;
    for (uint32_t i = hash_u32(key) & mask;; i = (i + 1) & mask) {
        if (in->map_values[i] == 0 || in->map_keys[i] == key) {
            if (in->map_values[i] == 0) in->map_count++;
            in->map_keys[i] = key;
            in->map_values[i] = slot + 1;
            return;
        }
    }
}

uint32_t orri_instances_slot(const orr_renderer *r, uint32_t instance_id)
{
    const orri_instances *in = &r->instances;
    if (!in->map_capacity) return UINT32_MAX;
    uint32_t mask = in->map_capacity - 1;
    for (uint32_t i = hash_u32(instance_id) & mask; in->map_values[i]; i = (i + 1) & mask)
        if (in->map_keys[i] == instance_id) return in->map_values[i] - 1;
    return UINT32_MAX;
}

/* Rebuilds the id -> slot map with room for `need` keys at most half full. */
static bool map_rebuild(orr_renderer *r, uint32_t need)
{
    orri_instances *in = &r->instances;
    uint32_t cap = in->map_capacity;
    if (cap < 2 * need || !cap) {
        uint32_t want = 64;
        while (want < 2 * need) want *= 2;
        uint32_t *keys = orri_alloc(&r->allocator, sizeof *keys * want);
        uint32_t *values = orri_alloc(&r->allocator, sizeof *values * want);
        if (!keys || !values) {
            orri_free(&r->allocator, keys, sizeof *keys * want);
            orri_free(&r->allocator, values, sizeof *values * want);
            return false;
        }
        orri_free(&r->allocator, in->map_keys, sizeof *in->map_keys * cap);
        orri_free(&r->allocator, in->map_values, sizeof *in->map_values * cap);
        in->map_keys = keys;
        in->map_values = values;
        in->map_capacity = cap = want;
    } else {
        memset(in->map_values, 0, sizeof *in->map_values * cap);
    }
    in->map_count = 0;
    for (uint32_t s = 0; s < in->slots.count; s++) {
        if (orr_handle_pool_is_alive(&in->slots, (orr_handle){s, in->slot_generation[s]}))
            map_insert(in, in->slot_owner[s], s);
    }
    return true;
}

static void instance_record(const orr_render_instance *src, orr_gpu_instance *dst)
{
    memset(dst, 0, sizeof *dst);
    const double *m = src->world.m;
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) dst->linear[c * 3 + row] = (float)m[c * 4 + row];
    for (int k = 0; k < 3; k++) orr_split_double(m[12 + k], &dst->t_hi[k], &dst->t_lo[k]);
    double det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                 m[8] * (m[1] * m[6] - m[2] * m[5]);
    dst->flags = (det < 0 ? ORR_GPU_INSTANCE_MIRRORED : 0u) | (src->joint_count ? ORR_GPU_INSTANCE_SKINNED : 0u);
    dst->joint_offset = src->joint_offset;
    dst->joint_count = src->joint_count;
}

orr_result orri_instances_plan(orr_renderer *r, const orr_snapshot *s, uint64_t frame_number, uint64_t *stage)
{
    orri_instances *in = &r->instances;
    if (in->map_capacity < 2 * (in->slots.alive + s->instance_count) &&
        !map_rebuild(r, in->slots.alive + s->instance_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the instance map");
    /* First free the slots whose instance left the snapshot (ascending), so that new instances reuse
     * the lowest free slots in the same frame. */
    for (uint32_t i = 0; i < s->instance_count; i++) {
        uint32_t slot = orri_instances_slot(r, s->instances[i].id);
        if (slot != UINT32_MAX) in->slot_seen[slot] = frame_number;
    }
    bool freed = false;
    for (uint32_t slot = 0; slot < in->slots.count; slot++) {
        orr_handle h = {slot, in->slot_generation[slot]};
        if (in->slot_seen[slot] != frame_number && orr_handle_pool_is_alive(&in->slots, h)) {
            orr_handle_pool_free(&in->slots, h);
            freed = true;
        }
    }
    if (freed && !map_rebuild(r, in->slots.alive + s->instance_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the instance map");
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *src = &s->instances[i];
        uint32_t slot = orri_instances_slot(r, src->id);
        if (slot == UINT32_MAX) {
            /* The pool hands out a free index below slots.count or slots.count itself: room for that
             * first, so that every index it ever handed out has its per-slot elements. */
            const parallel_array arrays[] = {PARALLEL_ARRAY(in->slot_generation), PARALLEL_ARRAY(in->slot_owner),
                                             PARALLEL_ARRAY(in->slot_seen), PARALLEL_ARRAY(in->records),
                                             PARALLEL_ARRAY(in->dirty)};
            if (!grow_parallel(r, &in->capacity, in->slots.count + 1, 1024, arrays, COUNT_OF(arrays)))
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance slots");
            orr_handle h;
            orr_result rc = orr_handle_pool_alloc(&in->slots, &h);
            if (rc != ORR_OK) return orri_gpu_fail(r, rc, "no instance slot for instance id %u", src->id);
            slot = h.index;
            in->slot_generation[slot] = h.generation;
            in->slot_owner[slot] = src->id;
            map_insert(in, src->id, slot);
        }
        in->slot_seen[slot] = frame_number;
        orr_gpu_instance rec;
        instance_record(src, &rec);
        if (memcmp(&rec, &in->records[slot], sizeof rec) != 0) {
            in->records[slot] = rec;
            in->dirty[slot] = 1;
        }
    }
    uint32_t used = in->slots.count; /* the GPU buffer covers every slot index handed out */
    if (!in->buffer.buffer || in->buffer.size < (VkDeviceSize)used * sizeof(orr_gpu_instance)) {
        in->gpu_realloc = true;
        for (uint32_t k = 0; k < used; k++) in->dirty[k] = 1;
    }
    uint32_t dirty = 0;
    for (uint32_t k = 0; k < used; k++) dirty += in->dirty[k];
    if (dirty) *stage += (uint64_t)dirty * sizeof(orr_gpu_instance) + r->frame_align;
    return ORR_OK;
}

orr_result orri_instances_upload(orr_renderer *r, orri_upload *up)
{
    orri_instances *in = &r->instances;
    if (in->gpu_realloc || !in->buffer.buffer) {
        uint32_t cap = in->capacity ? in->capacity : 1024;
        ORRI_TRY(orri_retire_buffer(r, &in->buffer, up->frame_number));
        ORRI_TRY(orri_buffer_create(r, (VkDeviceSize)cap * sizeof(orr_gpu_instance),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false,
                                    "instance buffer", &in->buffer));
        in->gpu_realloc = false;
    }
    return upload_dirty(r, up, in->dirty, in->slots.count, in->records, sizeof(orr_gpu_instance), in->buffer.buffer);
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

orr_result orri_materials_touch(orr_renderer *r, const orr_assets *assets, orr_material_id id)
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
    mt->generation[id.index] = id.generation;
    mt->revision[id.index] = rev + 1;
    orr_gpu_material rec;
    material_record(mat, &rec);
    if (memcmp(&rec, &mt->records[id.index], sizeof rec) != 0) {
        mt->records[id.index] = rec;
        mt->dirty[id.index] = 1;
    }
    return ORR_OK;
}

uint64_t orri_materials_plan(orr_renderer *r)
{
    orri_materials *mt = &r->materials;
    uint32_t count = mt->count ? mt->count : 1;
    if (!mt->buffer.buffer || mt->buffer.size < (VkDeviceSize)count * sizeof(orr_gpu_material)) {
        mt->gpu_realloc = true;
        for (uint32_t k = 0; k < mt->count; k++) mt->dirty[k] = 1;
    }
    uint32_t dirty = 0;
    for (uint32_t k = 0; k < mt->count; k++) dirty += mt->dirty[k];
    return dirty ? (uint64_t)dirty * sizeof(orr_gpu_material) + r->frame_align : 0;
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
    return upload_dirty(r, up, mt->dirty, mt->count, mt->records, sizeof(orr_gpu_material), mt->buffer.buffer);
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
    g->vertex_committed = g->vertex_used;
    g->index_committed = g->index_used;
    if (r->instances.slots.count) memset(r->instances.dirty, 0, sizeof *r->instances.dirty * r->instances.slots.count);
    if (r->materials.count) memset(r->materials.dirty, 0, sizeof *r->materials.dirty * r->materials.count);
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
    /* pending meshes and dirty records simply stay marked */
}

/* ---- lifetime ---------------------------------------------------------------------------- */

void orri_scene_init(orr_renderer *r)
{
    orr_handle_pool_init(&r->instances.slots, &r->allocator, 0);
}

void orri_scene_fini(orr_renderer *r)
{
    orri_geometry *g = &r->geometry;
    for (uint32_t i = 0; i < g->mesh_capacity; i++) release_mesh(r, &g->meshes[i]);
    orri_free(&r->allocator, g->meshes, sizeof *g->meshes * g->mesh_capacity);
    orri_free(&r->allocator, g->pending, sizeof *g->pending * g->pending_capacity);
    orri_buffer_destroy(r, &g->vertices);
    orri_buffer_destroy(r, &g->indices);
    orri_buffer_destroy(r, &g->replaced_vertices);
    orri_buffer_destroy(r, &g->replaced_indices);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orri_free(&r->allocator, in->slot_generation, sizeof *in->slot_generation * in->capacity);
    orri_free(&r->allocator, in->slot_owner, sizeof *in->slot_owner * in->capacity);
    orri_free(&r->allocator, in->slot_seen, sizeof *in->slot_seen * in->capacity);
    orri_free(&r->allocator, in->records, sizeof *in->records * in->capacity);
    orri_free(&r->allocator, in->dirty, sizeof *in->dirty * in->capacity);
    orri_free(&r->allocator, in->map_keys, sizeof *in->map_keys * in->map_capacity);
    orri_free(&r->allocator, in->map_values, sizeof *in->map_values * in->map_capacity);
    orri_buffer_destroy(r, &in->buffer);

    orri_materials *mt = &r->materials;
    orri_free(&r->allocator, mt->records, sizeof *mt->records * mt->capacity);
    orri_free(&r->allocator, mt->revision, sizeof *mt->revision * mt->capacity);
    orri_free(&r->allocator, mt->generation, sizeof *mt->generation * mt->capacity);
    orri_free(&r->allocator, mt->dirty, sizeof *mt->dirty * mt->capacity);
    orri_buffer_destroy(r, &mt->buffer);
}
