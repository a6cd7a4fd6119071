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
        if (rp->morph_units) (void)orri_space_free(&r->allocator, &g->morph_space, rp->morph_at, rp->morph_units);
    }
    if (m->primitives) orri_free(&r->allocator, m->primitives, sizeof *m->primitives * m->primitive_count);
    memset(m, 0, sizeof *m);
    orri_meshlets_release_mesh(r, (uint32_t)(m - g->meshes)); /* its meshlets too */
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
        if (!m->generation || orr_assets_try_get_mesh(assets, (orr_mesh_id){i, m->generation})) continue;
        drop_pending(g, i);
        release_mesh(r, m);
        g->released = true;
    }
}

/* The morph buffer's vec4s for a primitive: header, default weights (four a vec4), three deltas per
 * vertex per target. */
static uint64_t morph_units(const orr_primitive *prim)
{
    if (!prim->target_count || !prim->targets) return 0;
    return 1 + (prim->target_count + 3) / 4 + (uint64_t)prim->target_count * prim->vertex_count * 3;
}

static orr_result plan_mesh(orr_renderer *r, const orr_assets *assets, orr_mesh_id id)
{
    orri_geometry *g = &r->geometry;
    if (orr_id_is_none(id)) return ORR_OK;
    if (id.index < g->mesh_capacity && g->meshes[id.index].generation == id.generation) return ORR_OK;
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, id);
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
        uint64_t v = 0, i = 0, mo = 0, mu = morph_units(prim);
        bool placed = orri_space_alloc(&r->allocator, &g->vertex_space, prim->vertex_count, &v);
        if (placed && !orri_space_alloc(&r->allocator, &g->index_space, prim->index_count, &i)) {
            (void)orri_space_free(&r->allocator, &g->vertex_space, v, prim->vertex_count);
            placed = false;
        }
        if (placed && mu && !orri_space_alloc(&r->allocator, &g->morph_space, mu, &mo)) {
            (void)orri_space_free(&r->allocator, &g->vertex_space, v, prim->vertex_count);
            (void)orri_space_free(&r->allocator, &g->index_space, i, prim->index_count);
            placed = false;
        }
        *rp = (orri_resident_primitive){.first_index = (uint32_t)i, .index_count = prim->index_count,
                                        .vertex_offset = (int32_t)v, .vertex_count = prim->vertex_count,
                                        .morph_at = mu ? (uint32_t)mo : ORR_GPU_NO_MORPH, .morph_units = (uint32_t)mu};
        if (!placed || v > INT32_MAX || i > UINT32_MAX || mo + mu > UINT32_MAX) {
            m->primitive_count = placed ? p + 1 : p; /* what was given goes back */
            release_mesh(r, m);
            return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "geometry pool: no room for mesh %u", id.index);
        }
    }
    g->pending[g->pending_count++] = id;
    orri_meshlets_plan_mesh(r, mesh, id); /* and its meshlets, where it has them */
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
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, g->pending[k]);
        for (uint32_t p = 0; mesh && p < mesh->primitive_count; p++)
            *stage += (uint64_t)mesh->primitives[p].vertex_count * ORRI_VERTEX_BYTES +
                      (uint64_t)mesh->primitives[p].index_count * 4 + morph_units(&mesh->primitives[p]) * ORRI_MORPH_UNIT +
                      3 * r->frame_align;
        if (mesh) *stage += orri_meshlets_stage(r, mesh);
    }
    return ORR_OK;
}

/* Makes the pool buffer hold `need` units, copying the `committed` ones earlier frames wrote. The old
 * buffer is kept in `replaced` until the frame is submitted (then retired) or fails (then it is the
 * pool again: the copy out of it never ran). */
orr_result orri_pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                             uint64_t committed, uint64_t need, uint64_t unit, VkBufferUsageFlags usage,
                             const char *what)
{
    if (need * unit <= buf->size && buf->buffer) return ORR_OK;
    ORRI_ASSERT(!replaced->buffer, "orri_pool_reserve: %s grown twice in one frame", what);
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

static bool all_zero(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0f) return false;
    return true;
}

/* Tangents for a primitive without them (glTF asks for MikkTSpace; this is its per-vertex core, without
 * its welding rules): each triangle's direction of increasing u, accumulated per vertex (the triangle's
 * area weighs it in), made orthogonal to the vertex normal; w = +1 where the direction of increasing v
 * runs opposite to cross(normal, tangent) (glTF's v points down the image, so a bitangent of
 * cross(n, t) x w points up it, the way normal maps' +Y does). A vertex without a usable direction (no
 * texcoords, a degenerate triangle) gets any unit vector orthogonal to its normal. `out`: 4 per vertex;
 * `pos` and `nrm`: the primitive's positions and normals as floats. */
static void generate_tangents(const orr_primitive *p, const float *pos, const float *nrm, float *out, float *bitangent_sum)
{
    size_t n = p->vertex_count;
    memset(out, 0, n * 4 * sizeof(float));
    memset(bitangent_sum, 0, n * 3 * sizeof(float));
    bool strip = p->topology == ORR_TOPOLOGY_TRIANGLE_STRIP;
    uint32_t tris = !p->texcoords0                     ? 0 /* no direction of u anywhere */
                    : p->topology == ORR_TOPOLOGY_TRIANGLES ? p->index_count / 3
                    : strip && p->index_count >= 3     ? p->index_count - 2
                                                       : 0;
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t i0, i1, i2;
        if (!strip) i0 = p->indices[t * 3], i1 = p->indices[t * 3 + 1], i2 = p->indices[t * 3 + 2];
        else i0 = p->indices[t], i1 = p->indices[t + 1 + t % 2], i2 = p->indices[t + 2 - t % 2];
        if (i0 >= n || i1 >= n || i2 >= n) continue;
        const float *p0 = pos + (size_t)i0 * 3, *p1 = pos + (size_t)i1 * 3, *p2 = pos + (size_t)i2 * 3;
        const float *w0 = p->texcoords0 + (size_t)i0 * 2, *w1 = p->texcoords0 + (size_t)i1 * 2, *w2 = p->texcoords0 + (size_t)i2 * 2;
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float du1 = w1[0] - w0[0], dv1 = w1[1] - w0[1], du2 = w2[0] - w0[0], dv2 = w2[1] - w0[1];
        float det = du1 * dv2 - du2 * dv1;
        if (det == 0.0f || !isfinite(det)) continue;
        float inv = 1.0f / det;
        float sdir[3], tdir[3];
        for (int c = 0; c < 3; c++) {
            sdir[c] = (e1[c] * dv2 - e2[c] * dv1) * inv;
            tdir[c] = (e2[c] * du1 - e1[c] * du2) * inv;
        }
        /* weighted by the triangle's area in uv (|det|): the directions above are per unit of uv */
        float wgt = fabsf(det);
        uint32_t corner[3] = {i0, i1, i2};
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++) {
                out[(size_t)corner[k] * 4 + (size_t)c] += sdir[c] * wgt;
                bitangent_sum[(size_t)corner[k] * 3 + (size_t)c] += tdir[c] * wgt;
            }
    }
    for (size_t i = 0; i < n; i++) {
        const float *nv = nrm + i * 3;
        float *t = out + i * 4;
        float d = nv[0] * t[0] + nv[1] * t[1] + nv[2] * t[2];
        float o[3] = {t[0] - nv[0] * d, t[1] - nv[1] * d, t[2] - nv[2] * d};
        float len = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        if (!(len > 1e-12f) || !isfinite(len)) { /* any unit vector orthogonal to the normal */
            float a[3] = {fabsf(nv[0]) < 0.9f ? 1.0f : 0.0f, fabsf(nv[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
            float ad = nv[0] * a[0] + nv[1] * a[1] + nv[2] * a[2];
            o[0] = a[0] - nv[0] * ad, o[1] = a[1] - nv[1] * ad, o[2] = a[2] - nv[2] * ad;
            len = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
            if (!(len > 0.0f)) o[0] = 1.0f, o[1] = o[2] = 0.0f, len = 1.0f;
        }
        t[0] = o[0] / len, t[1] = o[1] / len, t[2] = o[2] / len;
        const float *b = bitangent_sum + i * 3;
        float cx = nv[1] * t[2] - nv[2] * t[1], cy = nv[2] * t[0] - nv[0] * t[2], cz = nv[0] * t[1] - nv[1] * t[0];
        t[3] = cx * b[0] + cy * b[1] + cz * b[2] > 0.0f ? -1.0f : 1.0f;
    }
}

#define ORRI_UNPACKED 256u /* packed vertices converted at a time while they are written */

/* Writes a primitive's interleaved vertices at `dst`; `tangents` replaces the mesh's (NULL-able); `pos`
 * and `nrm` are its positions and normals as floats (NULL: the primitive's, packed ones converted a block
 * at a time). An absent stream is written as zeros (colors as opaque white): a step of 0 reads the one
 * default. */
static void write_vertices(const orr_primitive *prim, const float *tangents, const float *pos, const float *nrm,
                           uint32_t morph_at, uint8_t *v)
{
    static const float zeros[4] = {0, 0, 0, 0}, white[4] = {1, 1, 1, 1};
    static const uint16_t no_joints[4] = {0, 0, 0, 0};
    const float *tan = tangents ? tangents : prim->tangents ? prim->tangents : zeros;
    const float *uv0 = prim->texcoords0 ? prim->texcoords0 : zeros, *uv1 = prim->texcoords1 ? prim->texcoords1 : zeros;
    const float *col = prim->colors ? prim->colors : white, *wgt = prim->weights ? prim->weights : zeros;
    const uint16_t *jnt = prim->joints ? prim->joints : no_joints;
    size_t ts = tan == zeros ? 0 : 4, u0s = uv0 == zeros ? 0 : 2, u1s = uv1 == zeros ? 0 : 2, cs = col == white ? 0 : 4,
           ws = wgt == zeros ? 0 : 4, js = jnt == no_joints ? 0 : 4;
    if (!pos) pos = prim->positions;
    if (!nrm) nrm = prim->normals;
    float pb[ORRI_UNPACKED * 3], nb[ORRI_UNPACKED * 3]; /* packed positions and normals, a block at a time */
    for (size_t i = 0; i < prim->vertex_count; i++, v += ORRI_VERTEX_BYTES) {
        size_t b = i % ORRI_UNPACKED;
        if (b == 0) {
            uint32_t n = prim->vertex_count - i < ORRI_UNPACKED ? (uint32_t)(prim->vertex_count - i) : ORRI_UNPACKED;
            if (!pos) orr_primitive_read_positions(prim, (uint32_t)i, n, pb);
            if (!nrm) orr_primitive_read_normals(prim, (uint32_t)i, n, nb);
        }
        memcpy(v + ORRI_VERTEX_POSITION, pos ? pos + 3 * i : pb + 3 * b, 3 * sizeof(float));
        memcpy(v + ORRI_VERTEX_NORMAL, nrm ? nrm + 3 * i : nb + 3 * b, 3 * sizeof(float));
        memcpy(v + ORRI_VERTEX_TANGENT, tan + ts * i, 4 * sizeof(float));
        memcpy(v + ORRI_VERTEX_UV0, uv0 + u0s * i, 2 * sizeof(float));
        memcpy(v + ORRI_VERTEX_UV1, uv1 + u1s * i, 2 * sizeof(float));
        memcpy(v + ORRI_VERTEX_COLOR, col + cs * i, 4 * sizeof(float));
        memcpy(v + ORRI_VERTEX_WEIGHTS, wgt + ws * i, 4 * sizeof(float));
        memcpy(v + ORRI_VERTEX_JOINTS, jnt + js * i, 4 * sizeof(uint16_t));
        memcpy(v + ORRI_VERTEX_MORPH, &morph_at, sizeof morph_at);
    }
}

/* A primitive's morph data at `dst` (morph_units(prim) vec4s): header, the mesh's weights, deltas. */
static void write_morphs(const orr_mesh *mesh, const orr_primitive *prim, uint32_t first_vertex, float *dst)
{
    uint32_t tc = prim->target_count, vc = prim->vertex_count;
    uint32_t weights_units = (tc + 3) / 4;
    orr_gpu_morph h = {.target_count = tc, .vertex_count = vc, .first_vertex = first_vertex};
    memcpy(dst, &h, sizeof h);
    float *w = dst + 4;
    memset(w, 0, (size_t)weights_units * 16);
    for (uint32_t t = 0; t < tc && t < mesh->weight_count; t++) w[t] = mesh->weights[t];
    float *d = w + (size_t)weights_units * 4;
    for (uint32_t t = 0; t < tc; t++) {
        const orr_morph_target *mt = &prim->targets[t];
        for (uint32_t i = 0; i < vc; i++, d += 12) {
            memcpy(d + 0, mt->positions + (size_t)i * 3, 12);
            memcpy(d + 4, mt->normals + (size_t)i * 3, 12);
            memcpy(d + 8, mt->tangents + (size_t)i * 3, 12);
            d[3] = d[7] = d[11] = 0.0f;
        }
    }
}

orr_result orri_geometry_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up)
{
    orri_geometry *g = &r->geometry;
    /* the vertices are storage too: the meshlet strategy's mesh shader reads them */
    ORRI_TRY(orri_pool_reserve(r, up, &g->vertices, &g->replaced_vertices, g->vertex_committed, g->vertex_space.end,
                               ORRI_VERTEX_BYTES, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               "geometry pool vertices"));
    ORRI_TRY(orri_pool_reserve(r, up, &g->indices, &g->replaced_indices, g->index_committed, g->index_space.end, 4,
                               VK_BUFFER_USAGE_INDEX_BUFFER_BIT, "geometry pool indices"));
    /* always a buffer: the shaders bind it whether or not anything is morphed */
    ORRI_TRY(orri_pool_reserve(r, up, &g->morphs, &g->replaced_morphs, g->morph_committed, g->morph_space.end,
                               ORRI_MORPH_UNIT, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "geometry pool morph targets"));
    for (uint32_t k = 0; k < g->pending_count; k++) {
        orr_mesh_id id = g->pending[k];
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, id);
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
                float *tangents = NULL, *scratch = NULL, *pos = NULL, *nrm = NULL;
                size_t vc = prim->vertex_count, packed = (prim->positions ? 0 : 3) + (prim->normals ? 0 : 3);
                size_t scratch_size = vc * (7 + packed) * sizeof(float);
                bool triangles = prim->topology == ORR_TOPOLOGY_TRIANGLES || prim->topology == ORR_TOPOLOGY_TRIANGLE_STRIP;
                if (triangles && (!prim->tangents || all_zero(prim->tangents, vc * 4))) {
                    scratch = orri_alloc(&r->allocator, scratch_size);
                    if (!scratch) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory generating tangents");
                    tangents = scratch;
                    /* (packed positions and normals as floats after the tangents' 7 floats a vertex) */
                    float *unpacked = scratch + vc * 7;
                    pos = prim->positions, nrm = prim->normals;
                    if (!pos) orr_primitive_read_positions(prim, 0, (uint32_t)vc, pos = unpacked), unpacked += vc * 3;
                    if (!nrm) orr_primitive_read_normals(prim, 0, (uint32_t)vc, nrm = unpacked);
                    generate_tangents(prim, pos, nrm, tangents, scratch + vc * 4);
                }
                write_vertices(prim, tangents, pos, nrm, rp->morph_at, (uint8_t *)up->frame->data.map + off);
                if (scratch) orri_free(&r->allocator, scratch, scratch_size);
                orri_upload_copy(up, off, g->vertices.buffer, (VkDeviceSize)rp->vertex_offset * ORRI_VERTEX_BYTES, vbytes);
            }
            if (ibytes) {
                VkDeviceSize off = 0;
                ORRI_TRY(orri_frame_alloc(r, up->frame, ibytes, &off));
                memcpy((uint8_t *)up->frame->data.map + off, prim->indices, ibytes);
                orri_upload_copy(up, off, g->indices.buffer, (VkDeviceSize)rp->first_index * 4, ibytes);
            }
            if (rp->morph_units) {
                VkDeviceSize off = 0, mbytes = (VkDeviceSize)rp->morph_units * ORRI_MORPH_UNIT;
                ORRI_TRY(orri_frame_alloc(r, up->frame, mbytes, &off));
                write_morphs(mesh, prim, (uint32_t)rp->vertex_offset, (float *)((uint8_t *)up->frame->data.map + off));
                orri_upload_copy(up, off, g->morphs.buffer, (VkDeviceSize)rp->morph_at * ORRI_MORPH_UNIT, mbytes);
            }
        }
    }
    ORRI_TRY(orri_meshlets_upload(r, assets, up));
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
    uint32_t slot = instance_id < in->id_capacity ? in->slot_of_id[instance_id] & ORRI_SLOT_MASK : 0;
    return slot ? slot - 1 : NONE;
}

static void free_slot(orri_instances *in, uint32_t id)
{
    uint32_t slot = id < in->id_capacity ? in->slot_of_id[id] & ORRI_SLOT_MASK : 0;
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
        *out = (in->slot_of_id[id] & ORRI_SLOT_MASK) - 1;
        return ORR_OK;
    }
    /* The pool hands out a free index below slots.count or slots.count itself: room for that first. */
    const parallel_array arrays[] = {PARALLEL_ARRAY(in->id_of_slot), PARALLEL_ARRAY(in->slot_index)};
    if (!grow_parallel(r, &in->slot_capacity, in->slots.count + 1, 1024, arrays, COUNT_OF(arrays)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance slots");
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&in->slots, &h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "no instance slot for instance id %u", id);
    if (h.index >= ORRI_SLOT_MASK) { /* slot + 1 must fit below the handedness bits */
        orr_handle_pool_free(&in->slots, h);
        return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "no instance slot for instance id %u: %u instances at most", id,
                             ORRI_SLOT_MASK);
    }
    in->slot_of_id[id] = (h.index + 1) | 2u << ORRI_SLOT_BITS; /* handedness neither: the first record sets it */
    in->id_of_slot[h.index] = id;
    in->slot_index[h.index] = NONE;
    *out = h.index;
    return ORR_OK;
}

/* Notes the handedness the slot's record is about to get; a flip re-sorts the draws. */
static void note_handedness(orri_instances *in, uint32_t id, const orr_render_instance *src)
{
    uint32_t m = orr_draw_mirrored(src) ? 1u : 0u, had = in->slot_of_id[id] >> ORRI_SLOT_BITS;
    if (had != 2 && had != m) in->flipped = true;
    in->slot_of_id[id] = (in->slot_of_id[id] & ORRI_SLOT_MASK) | m << ORRI_SLOT_BITS;
}

/* What a record is made from (orr_render_instance puts it first): the pose up to the visibility. */
static inline void prefetch_instance(const orr_render_instance *in)
{
    __builtin_prefetch(in);
    __builtin_prefetch((const char *)in + 64);
    __builtin_prefetch((const char *)&in->visible);
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
            note_handedness(in, s->instances[i].id, &s->instances[i]);
        }
    } else {
        /* A delta: its removed and changed instances only (found through the snapshot's index_of). */
        for (uint32_t k = 0; k < s->removed_count; k++) free_slot(in, s->removed[k]);
        if (!ORRI_GROW(&r->allocator, in->upload, in->upload_capacity, s->changed_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance uploads");
        for (uint32_t k = 0; k < s->changed_count; k++) {
            /* Scattered ids, so that their misses overlap: their index and slot ORRI_AHEAD x 2 on, then (those
             * arrived) the record ORRI_AHEAD on. */
            if (k + 2 * ORRI_AHEAD < s->changed_count) {
                uint32_t ahead = s->changed[k + 2 * ORRI_AHEAD];
                if (ahead < s->index_capacity) __builtin_prefetch(&s->index_of[ahead]);
                if (ahead < in->id_capacity) __builtin_prefetch(&in->slot_of_id[ahead]);
            }
            if (k + ORRI_AHEAD < s->changed_count) {
                uint32_t ahead = s->changed[k + ORRI_AHEAD];
                uint32_t i = orr_snapshot_find(s, ahead);
                if (i != NONE) prefetch_instance(&s->instances[i]);
            }
            uint32_t i = orr_snapshot_find(s, s->changed[k]), slot;
            if (i == NONE) continue; /* a delta naming an id it does not hold: nothing to draw */
            ORRI_TRY(ensure_slot(r, s->changed[k], &slot));
            note_handedness(in, s->changed[k], &s->instances[i]);
            in->upload[in->upload_count++] = (orri_record_upload){i, slot};
        }
    }
    uint32_t n = in->upload_all ? in->slots.count : in->upload_count;
    *stage += (uint64_t)n * (sizeof(orr_gpu_instance) + sizeof(uint32_t)) + 2 * r->frame_align;
    return ORR_OK;
}

/* Built in registers and stored once: `dst` is mapped memory, write-combined on discrete GPUs, where
 * a zeroing pass followed by field stores writes each line twice and in pieces. */
/* Whether the instance's weight range lies in the snapshot's weights (a hand-built snapshot may say
 * otherwise: the mesh's default weights are drawn then). */
static bool has_weights(const orr_render_instance *in, const orr_snapshot *s)
{
    return in->weight_count && s->weights && in->weight_offset <= s->weight_count &&
           in->weight_count <= s->weight_count - in->weight_offset;
}

static void instance_record(const orr_snapshot *s, const orr_render_instance *src, orr_gpu_instance *dst)
{
    orr_gpu_instance rec = {0};
    const double *m = src->world.m;
    for (int k = 0; k < 9; k++) rec.linear[k] = (float)m[k];
    for (int k = 0; k < 3; k++) orr_split_double(m[9 + k], &rec.t_hi[k], &rec.t_lo[k]);
    rec.flags = (orr_draw_mirrored(src) ? ORR_GPU_INSTANCE_MIRRORED : 0u) |
                (src->joint_count ? ORR_GPU_INSTANCE_SKINNED : 0u) | (src->visible ? ORR_GPU_INSTANCE_VISIBLE : 0u);
    rec.layers = src->layers;
    rec.joint_offset = src->joint_offset;
    rec.joint_count = src->joint_count;
    rec.weight_offset = has_weights(src, s) ? src->weight_offset : ORR_GPU_NO_MORPH;
    *dst = rec;
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
            else instance_record(s, &s->instances[i], &staged[slot]);
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
        if (k + ORRI_AHEAD < n) prefetch_instance(&s->instances[in->upload[k + ORRI_AHEAD].index]);
        slots[k] = in->upload[k].slot;
        instance_record(s, &s->instances[in->upload[k].index], &staged[k]);
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
    return orri_compute_pipelines(r, orri_spv_scatter_comp, orri_spv_scatter_comp_size, r->scatter_pipeline_layout, NULL, 1,
                                  "scatter", &r->pipeline_scatter);
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
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
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

/* ---- morph weights ----------------------------------------------------------------------- */

orr_result orri_weights_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage)
{
    orri_weights *wt = &r->weights;
    wt->upload_count = 0;
    wt->upload_all = whole;
    bool fresh;
    ORRI_TRY(orri_buffer_ensure(r, &wt->buffer, (VkDeviceSize)(s->weight_count + 1) * sizeof(float),
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, "weight buffer",
                                &fresh));
    if (fresh) wt->upload_all = true;
    if (s->weight_count > wt->held_count) { /* the new entries hold nothing yet: NaN compares unequal */
        uint32_t old = wt->held_count;
        if (!ORRI_GROW(&r->allocator, wt->held, wt->held_capacity, s->weight_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for morph weights");
        for (uint32_t k = old; k < s->weight_count; k++) wt->held[k] = NAN;
        wt->held_count = s->weight_count;
    }
    uint64_t floats = 0;
    if (wt->upload_all) {
        floats = s->weight_count;
        if (s->weight_count) memcpy(wt->held, s->weights, (size_t)s->weight_count * sizeof(float));
    } else if (s->weight_count) { /* the changed instances whose weights are not what the buffer holds */
        if (!ORRI_GROW(&r->allocator, wt->upload, wt->upload_capacity, s->changed_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for weight uploads");
        for (uint32_t k = 0; k < s->changed_count; k++) {
            uint32_t i = orr_snapshot_find(s, s->changed[k]);
            if (i == NONE || !has_weights(&s->instances[i], s)) continue;
            const orr_render_instance *in = &s->instances[i];
            size_t bytes = (size_t)in->weight_count * sizeof(float);
            if (!memcmp(wt->held + in->weight_offset, s->weights + in->weight_offset, bytes)) continue;
            memcpy(wt->held + in->weight_offset, s->weights + in->weight_offset, bytes);
            wt->upload[wt->upload_count++] = i;
            floats += in->weight_count;
        }
    }
    *stage += floats * sizeof(float) + (uint64_t)wt->upload_count * r->frame_align + r->frame_align;
    return ORR_OK;
}

orr_result orri_weights_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up)
{
    orri_weights *wt = &r->weights;
    if (wt->upload_all) {
        if (!s->weight_count) return ORR_OK;
        VkDeviceSize off = 0, bytes = (VkDeviceSize)s->weight_count * sizeof(float);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        memcpy((uint8_t *)up->frame->data.map + off, s->weights, bytes);
        orri_upload_copy(up, off, wt->buffer.buffer, 0, bytes);
        return ORR_OK;
    }
    for (uint32_t k = 0; k < wt->upload_count; k++) {
        const orr_render_instance *in = &s->instances[wt->upload[k]];
        VkDeviceSize off = 0, bytes = (VkDeviceSize)in->weight_count * sizeof(float);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        memcpy((uint8_t *)up->frame->data.map + off, s->weights + in->weight_offset, bytes);
        orri_upload_copy(up, off, wt->buffer.buffer, (VkDeviceSize)in->weight_offset * sizeof(float), bytes);
    }
    return ORR_OK;
}

/* ---- materials --------------------------------------------------------------------------- */

static const orr_texture_ref *texture_ref(const orr_material *m, uint32_t slot)
{
    switch (slot) {
    case ORR_GPU_TEXTURE_BASE_COLOR: return &m->base_color_texture;
    case ORR_GPU_TEXTURE_METALLIC_ROUGHNESS: return &m->metallic_roughness_texture;
    case ORR_GPU_TEXTURE_NORMAL: return &m->normal_texture;
    case ORR_GPU_TEXTURE_OCCLUSION: return &m->occlusion_texture;
    default: return &m->emissive_texture;
    }
}

/* The texture of slot `slot` (ORR_GPU_TEXTURE_*): a glTF slot's, or a fur material's noise. */
static orr_texture_id slot_texture(const orr_material *m, uint32_t slot)
{
    if (slot == ORR_GPU_TEXTURE_FUR_NOISE) return m->shading == ORR_SHADING_FUR ? m->fur.noise : (orr_texture_id){0, 0};
    return texture_ref(m, slot)->texture;
}

/* KHR_texture_transform: uv' = T x R x S x uv, as the columns of a 2x3 matrix. The rotation turns the
 * UVs counter-clockwise as the image is seen (v down): u' = c u + s v, v' = -s u + c v, which is what
 * glTF's TextureTransformTest sample checks (its arrow meets the green marker). */
static void uv_transform(const orr_texture_ref *t, float out[6])
{
    float sx = t->uv_scale[0], sy = t->uv_scale[1];
    if (sx == 0.0f && sy == 0.0f) sx = sy = 1.0f; /* a zeroed ref: the defaults */
    float c = 1.0f, s = 0.0f;
    if (t->rotation != 0.0f) {
        c = cosf(t->rotation);
        s = sinf(t->rotation);
    }
    out[0] = c * sx;
    out[1] = -s * sx;
    out[2] = s * sy;
    out[3] = c * sy;
    out[4] = t->offset[0];
    out[5] = t->offset[1];
}

/* The record of material `m`, its textures as the renderer holds them now. */
static void material_record(const orr_renderer *r, const orr_material *m, orr_gpu_material *dst)
{
    memset(dst, 0, sizeof *dst);
    memcpy(dst->base_color, m->base_color, sizeof dst->base_color);
    for (int k = 0; k < 3; k++) dst->emissive[k] = m->emissive[k] * m->emissive_strength;
    dst->alpha_cutoff = m->alpha_cutoff;
    dst->metallic = m->metallic;
    dst->roughness = m->roughness;
    dst->normal_scale = m->normal_texture.scale;
    dst->occlusion_strength = m->occlusion_texture.scale;
    dst->alpha_mode = (uint32_t)m->alpha_mode;
    dst->flags = (m->double_sided ? ORR_GPU_MATERIAL_DOUBLE_SIDED : 0u) | (m->unlit ? ORR_GPU_MATERIAL_UNLIT : 0u) |
                 (m->shading == ORR_SHADING_FUR ? ORR_GPU_MATERIAL_FUR : 0u);
    dst->fur_length = m->shading == ORR_SHADING_FUR ? m->fur.shell_length : 0.0f;
    for (uint32_t k = 0; k < ORR_GPU_TEXTURE_SLOTS; k++) {
        orr_texture_id id = slot_texture(m, k);
        if (orri_textures_resident(r, id)) dst->textures |= 1u << k;
        dst->texture[k] = orri_textures_index(r, id);
        if (k >= ORR_GPU_TEXTURE_UV_SLOTS) continue; /* the noise: texcoord set 0, no transform */
        const orr_texture_ref *t = texture_ref(m, k);
        if (t->texcoord == 1) dst->texcoords |= 1u << k;
        uv_transform(t, &dst->uv_transform[k * 6]);
    }
}

/* The textures material `m` shows now: its resident ones (none = white). */
static void shown_textures(const orr_renderer *r, const orr_material *m, orr_texture_id shown[ORR_GPU_TEXTURE_SLOTS])
{
    for (uint32_t k = 0; k < ORR_GPU_TEXTURE_SLOTS; k++) {
        orr_texture_id id = slot_texture(m, k);
        shown[k] = orri_textures_resident(r, id) ? id : (orr_texture_id){0, 0};
    }
}

/* Without the texture array: slot `slot` has a set, and it shows what material `m` shows now (the
 * same images: a texture target's is remade with its size). */
static bool set_current(const orr_renderer *r, uint32_t slot, const orr_material *m)
{
    uint32_t entry = r->materials.sets[slot];
    if (!entry) return false;
    orr_texture_id shown[ORR_GPU_TEXTURE_SLOTS];
    shown_textures(r, m, shown);
    return orri_textures_set_shows(r, entry - 1, shown);
}

/* Without the texture array: the material's texture set, another one when the textures it shows
 * changed; *changed when that happened to a known slot. */
static orr_result material_set(orr_renderer *r, uint32_t slot, const orr_material *m, bool known, bool *changed)
{
    uint32_t *entry = &r->materials.sets[slot];
    orr_texture_id shown[ORR_GPU_TEXTURE_SLOTS];
    shown_textures(r, m, shown);
    if (*entry && orri_textures_set_shows(r, *entry - 1, shown)) return ORR_OK;
    uint32_t fresh;
    ORRI_TRY(orri_textures_get_set(r, shown, &fresh));
    if (*entry) orri_textures_put_set(r, *entry - 1);
    if (known && *entry != fresh + 1) *changed = true;
    *entry = fresh + 1;
    return ORR_OK;
}

/* Refreshes slot `id.index` from the library; *restate when its drawing state changed. */
static orr_result touch(orr_renderer *r, const orr_assets *assets, orr_material_id id, bool *restate)
{
    orri_materials *mt = &r->materials;
    const orr_material *mat = orr_assets_try_get_material(assets, id);
    if (!mat) return ORR_OK;
    const parallel_array arrays[] = {PARALLEL_ARRAY(mt->records), PARALLEL_ARRAY(mt->revision),
                                     PARALLEL_ARRAY(mt->generation), PARALLEL_ARRAY(mt->dirty),
                                     PARALLEL_ARRAY(mt->sets)};
    if (!grow_parallel(r, &mt->capacity, id.index + 1, 256, arrays, COUNT_OF(arrays)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for material slots");
    if (id.index + 1 > mt->count) mt->count = id.index + 1;
    uint64_t rev = orr_assets_material_revision(assets, id);
    bool known = mt->generation[id.index] == id.generation;
    /* The same revision may still show other textures than it did (one was removed since). */
    bool same = known && mt->revision[id.index] == rev + 1;
    for (uint32_t k = 0; k < ORR_GPU_TEXTURE_SLOTS; k++) ORRI_TRY(orri_textures_request(r, assets, slot_texture(mat, k)));
    orr_gpu_material rec;
    material_record(r, mat, &rec);
    orr_gpu_material *old = &mt->records[id.index];
    if (same && memcmp(&rec, old, sizeof rec) == 0 && (r->textures.array || set_current(r, id.index, mat))) return ORR_OK;
    mt->generation[id.index] = id.generation;
    mt->revision[id.index] = rev + 1;
    bool changed = false;
    if (!r->textures.array) ORRI_TRY(material_set(r, id.index, mat, known, &changed));
    /* Drawing state, and what the draw scenes are built from: the pass (alpha mode, shading) and the fur
     * that grows culled boxes. */
    if (known && restate &&
        (changed || old->alpha_mode != rec.alpha_mode ||
         ((old->flags ^ rec.flags) & (ORR_GPU_MATERIAL_DOUBLE_SIDED | ORR_GPU_MATERIAL_FUR)) ||
         old->fur_length != rec.fur_length))
        *restate = true;
    if (memcmp(&rec, old, sizeof rec) != 0 || !known) {
        *old = rec;
        if (!mt->dirty[id.index]) mt->dirty_count++;
        mt->dirty[id.index] = 1;
    }
    return ORR_OK;
}

VkDescriptorSet orri_materials_set(const orr_renderer *r, orr_material_id id)
{
    const orri_materials *mt = &r->materials;
    if (r->textures.array) return VK_NULL_HANDLE;
    if (id.index >= mt->capacity || mt->generation[id.index] != id.generation || !mt->sets[id.index])
        return orri_textures_set(r, 0);
    return orri_textures_set(r, mt->sets[id.index] - 1);
}

orr_result orri_materials_touch(orr_renderer *r, const orr_assets *assets, orr_material_id id)
{
    return touch(r, assets, id, NULL);
}

orr_result orri_materials_touch_scene(orr_renderer *r, const orr_assets *assets, const orr_draw_scene *scene)
{
    for (uint32_t b = 0; b < scene->batch_count; b++)
        ORRI_TRY(orri_materials_touch(r, assets, scene->batches[b].material)); /* its textures asked for too */
    return ORR_OK;
}

orr_result orri_materials_refresh(orr_renderer *r, const orr_assets *assets, bool *restate)
{
    orri_materials *mt = &r->materials;
    uint64_t rev = orr_assets_revision(assets);
    if (rev == mt->assets_revision && !mt->stale) return ORR_OK;
    mt->assets_revision = rev;
    mt->stale = false;
    ORRI_TRY(orri_textures_release_removed(r, assets));
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
    return orri_garbage_reserve(r, (g->replaced_vertices.buffer ? 1u : 0u) + (g->replaced_indices.buffer ? 1u : 0u) +
                                       (g->replaced_morphs.buffer ? 1u : 0u) + orri_meshlets_retirements(r));
}

void orri_scene_commit(orr_renderer *r, uint64_t frame_number)
{
    orri_geometry *g = &r->geometry;
    /* cannot fail: orri_scene_reserve_commit made room in the queue */
    (void)orri_retire_buffer(r, &g->replaced_vertices, frame_number);
    (void)orri_retire_buffer(r, &g->replaced_indices, frame_number);
    (void)orri_retire_buffer(r, &g->replaced_morphs, frame_number);
    g->pending_count = 0;
    g->vertex_committed = g->vertex_space.end;
    g->index_committed = g->index_space.end;
    g->morph_committed = g->morph_space.end;
    orri_meshlets_commit(r, frame_number);
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
    pool_restore(r, &r->geometry.morphs, &r->geometry.replaced_morphs);
    orri_meshlets_abort(r);
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
    orri_space_reset(&g->morph_space);
    g->vertex_committed = g->index_committed = g->morph_committed = 0;
    g->pending_count = 0;
    g->removals = 0;
    orri_retire_buffer(r, &g->vertices, last);
    orri_retire_buffer(r, &g->indices, last);
    orri_retire_buffer(r, &g->morphs, last);
    orri_meshlets_release(r, last);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orr_handle_pool_init(&in->slots, &r->allocator, 0);
    if (in->id_capacity) memset(in->slot_of_id, 0, sizeof *in->slot_of_id * in->id_capacity);
    orri_retire_buffer(r, &in->buffer, last);
    orri_retire_buffer(r, &r->joints.buffer, last);
    orri_retire_buffer(r, &r->weights.buffer, last);
    r->weights.held_count = 0;

    orri_materials *mt = &r->materials;
    if (mt->capacity) {
        memset(mt->generation, 0, sizeof *mt->generation * mt->capacity);
        memset(mt->revision, 0, sizeof *mt->revision * mt->capacity);
        memset(mt->dirty, 0, sizeof *mt->dirty * mt->capacity);
        memset(mt->records, 0, sizeof *mt->records * mt->capacity);
        for (uint32_t i = 0; i < mt->capacity; i++)
            if (mt->sets[i]) orri_textures_put_set(r, mt->sets[i] - 1);
        memset(mt->sets, 0, sizeof *mt->sets * mt->capacity);
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
    orri_space_fini(&r->allocator, &g->morph_space);
    orri_buffer_destroy(r, &g->vertices);
    orri_buffer_destroy(r, &g->indices);
    orri_buffer_destroy(r, &g->morphs);
    orri_buffer_destroy(r, &g->replaced_vertices);
    orri_buffer_destroy(r, &g->replaced_indices);
    orri_buffer_destroy(r, &g->replaced_morphs);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orri_free(&r->allocator, in->slot_of_id, sizeof *in->slot_of_id * in->id_capacity);
    orri_free(&r->allocator, in->id_of_slot, sizeof *in->id_of_slot * in->slot_capacity);
    orri_free(&r->allocator, in->slot_index, sizeof *in->slot_index * in->slot_capacity);
    orri_free(&r->allocator, in->upload, sizeof *in->upload * in->upload_capacity);
    orri_buffer_destroy(r, &in->buffer);
    orri_joints *j = &r->joints;
    orri_free(&r->allocator, j->upload, sizeof *j->upload * j->upload_capacity);
    orri_buffer_destroy(r, &j->buffer);
    orri_weights *wt = &r->weights;
    orri_free(&r->allocator, wt->upload, sizeof *wt->upload * wt->upload_capacity);
    orri_free(&r->allocator, wt->held, sizeof *wt->held * wt->held_capacity);
    orri_buffer_destroy(r, &wt->buffer);
    orri_buffer_destroy(r, &r->capture.buffer);

    orri_materials *mt = &r->materials;
    orri_free(&r->allocator, mt->records, sizeof *mt->records * mt->capacity);
    orri_free(&r->allocator, mt->revision, sizeof *mt->revision * mt->capacity);
    orri_free(&r->allocator, mt->generation, sizeof *mt->generation * mt->capacity);
    orri_free(&r->allocator, mt->dirty, sizeof *mt->dirty * mt->capacity);
    orri_free(&r->allocator, mt->sets, sizeof *mt->sets * mt->capacity); /* the sets go with their pools */
    orri_buffer_destroy(r, &mt->buffer);
}
