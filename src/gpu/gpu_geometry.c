/* Residency of meshes: the geometry pool (by mesh id, space reused through gpu_space.c; vertices,
 * indices, morph targets), each mesh's meshlets beside it (gpu_meshlet_pool.c). A frame plans the
 * meshes its instances name (CPU only), uploads them, and they are resident once the frame is
 * submitted (orri_geometry_commit); a failed frame gives the pool back its old buffers. */
#include "gpu/gpu_geometry.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_meshlet_pool.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_space.h"
#include "gpu/gpu_upload.h"

#include <math.h>
#include <string.h>

#define NONE UINT32_MAX
#define ORRI_UNPACKED 256u /* packed vertices converted at a time while they are written */

/* Gives a resident mesh's pool space back (its data stays until something is written over it: frames
 * in flight that still draw it are ordered before that write by the frame's first barrier). */
static void release_mesh(orr_renderer *r, orri_resident_mesh *m)
{
    orri_geometry *g = &r->geometry;
    for (uint32_t p = 0; p < m->primitive_count && m->primitives; p++) {
        const orri_resident_primitive *rp = &m->primitives[p];
        /* A failed free (no memory for the list) only loses that range until the library is rebound. */
        (void)orri_space_free(&r->allocator, &g->vertex_space, (uint64_t)rp->vertex_offset, rp->vertex_count);
        (void)orri_space_free(&r->allocator, &g->index_space, rp->first_index, (uint64_t)rp->index_count + rp->lod_index_count);
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
        uint64_t indices = (uint64_t)prim->index_count + prim->lod_index_count; /* level 0, then the others */
        if (placed && !orri_space_alloc(&r->allocator, &g->index_space, indices, &i)) {
            (void)orri_space_free(&r->allocator, &g->vertex_space, v, prim->vertex_count);
            placed = false;
        }
        if (placed && mu && !orri_space_alloc(&r->allocator, &g->morph_space, mu, &mo)) {
            (void)orri_space_free(&r->allocator, &g->vertex_space, v, prim->vertex_count);
            (void)orri_space_free(&r->allocator, &g->index_space, i, indices);
            placed = false;
        }
        *rp = (orri_resident_primitive){.first_index = (uint32_t)i, .index_count = prim->index_count,
                                        .vertex_offset = (int32_t)v, .vertex_count = prim->vertex_count,
                                        .morph_at = mu ? (uint32_t)mo : ORR_GPU_NO_MORPH, .morph_units = (uint32_t)mu,
                                        .lod_index_count = prim->lod_index_count};
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
                      ((uint64_t)mesh->primitives[p].index_count + mesh->primitives[p].lod_index_count) * 4 + morph_units(&mesh->primitives[p]) * ORRI_MORPH_UNIT +
                      3 * r->frame_align;
        if (mesh) *stage += orri_meshlets_stage(r, mesh);
    }
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
            VkDeviceSize ibytes = ((VkDeviceSize)prim->index_count + prim->lod_index_count) * 4;
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
                memcpy((uint8_t *)up->frame->data.map + off, prim->indices, (size_t)prim->index_count * 4);
                if (prim->lod_index_count)
                    memcpy((uint8_t *)up->frame->data.map + off + (size_t)prim->index_count * 4, prim->lod_indices,
                           (size_t)prim->lod_index_count * 4);
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

/* A pool grown by the failed frame: the new buffer was named only by commands never submitted, so it
 * goes now, and the old one (which still holds every committed byte) is the pool again. */
static void pool_restore(orr_renderer *r, orri_buffer *buf, orri_buffer *replaced)
{
    if (!replaced->buffer) return; /* not grown, or grown from nothing (then nothing was committed) */
    orri_buffer_destroy(r, buf);
    *buf = *replaced;
    memset(replaced, 0, sizeof *replaced);
}

/* ---- end of a frame, another library, destruction ------------------------------------------ */

uint32_t orri_geometry_retirements(const orr_renderer *r)
{
    const orri_geometry *g = &r->geometry;
    return (g->replaced_vertices.buffer ? 1u : 0u) + (g->replaced_indices.buffer ? 1u : 0u) +
           (g->replaced_morphs.buffer ? 1u : 0u) + orri_meshlets_retirements(r);
}

void orri_geometry_commit(orr_renderer *r, uint64_t frame_number)
{
    orri_geometry *g = &r->geometry;
    /* cannot fail: the caller made room in the queue for orri_geometry_retirements */
    (void)orri_retire_buffer(r, &g->replaced_vertices, frame_number);
    (void)orri_retire_buffer(r, &g->replaced_indices, frame_number);
    (void)orri_retire_buffer(r, &g->replaced_morphs, frame_number);
    g->pending_count = 0;
    g->vertex_committed = g->vertex_space.end;
    g->index_committed = g->index_space.end;
    g->morph_committed = g->morph_space.end;
    orri_meshlets_commit(r, frame_number);
}

void orri_geometry_abort(orr_renderer *r)
{
    pool_restore(r, &r->geometry.vertices, &r->geometry.replaced_vertices);
    pool_restore(r, &r->geometry.indices, &r->geometry.replaced_indices);
    pool_restore(r, &r->geometry.morphs, &r->geometry.replaced_morphs);
    orri_meshlets_abort(r);
}

void orri_geometry_release(orr_renderer *r)
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
}

void orri_geometry_fini(orr_renderer *r)
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
}
