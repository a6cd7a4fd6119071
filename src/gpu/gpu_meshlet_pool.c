/* Residency of meshlets: each resident mesh's meshlets once, in four pool buffers beside the geometry
 * pool's (descriptors, bounds, vertex entries, triangle words), placed through free lists like the
 * vertices and indices; gpu_geometry.c plans, uploads, commits and releases them with its meshes. */
#include "gpu/gpu_meshlet_pool.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_space.h"
#include "gpu/gpu_upload.h"

#include <string.h>

static uint32_t triangle_words(const orr_mesh *mesh) { return (mesh->meshlet_triangle_bytes + 3) / 4; }

const orri_meshlet_mesh *orri_meshlets_resident(const orr_renderer *r, orr_mesh_id id)
{
    const orri_meshlets *ml = &r->meshlets;
    if (id.index >= ml->mesh_capacity || ml->meshes[id.index].generation != id.generation) return NULL;
    return &ml->meshes[id.index];
}

void orri_meshlets_release_mesh(orr_renderer *r, uint32_t index)
{
    orri_meshlets *ml = &r->meshlets;
    if (index >= ml->mesh_capacity || !ml->meshes[index].generation) return;
    orri_meshlet_mesh *m = &ml->meshes[index];
    /* A failed free (no memory for the list) only loses that range until the library is rebound. */
    (void)orri_space_free(&r->allocator, &ml->spaces[ORRI_MESHLET_SPACE_MESHLETS], m->first, m->count);
    (void)orri_space_free(&r->allocator, &ml->spaces[ORRI_MESHLET_SPACE_VERTICES], m->vertex_first, m->vertex_count);
    (void)orri_space_free(&r->allocator, &ml->spaces[ORRI_MESHLET_SPACE_WORDS], m->word_first, m->word_count);
    memset(m, 0, sizeof *m);
}

void orri_meshlets_plan_mesh(orr_renderer *r, const orr_mesh *mesh, orr_mesh_id id)
{
    orri_meshlets *ml = &r->meshlets;
    orri_meshlets_release_mesh(r, id.index); /* an older generation of the index */
    if (!mesh->meshlet_count || !mesh->meshlets || !mesh->meshlet_bounds) return;
    if (id.index >= ml->mesh_capacity) {
        uint32_t cap = ml->mesh_capacity;
        if (!ORRI_GROW(&r->allocator, ml->meshes, cap, id.index + 1)) {
            orri_log(&r->logger, ORR_LOG_WARNING, "gpu: out of memory for the meshlets of mesh %u: drawn indexed", id.index);
            return;
        }
        ml->mesh_capacity = cap;
    }
    uint64_t first = 0, vertex_first = 0, word_first = 0;
    uint32_t words = triangle_words(mesh);
    (void)orri_space_alloc(&r->allocator, &ml->spaces[ORRI_MESHLET_SPACE_MESHLETS], mesh->meshlet_count, &first);
    (void)orri_space_alloc(&r->allocator, &ml->spaces[ORRI_MESHLET_SPACE_VERTICES], mesh->meshlet_vertex_count, &vertex_first);
    (void)orri_space_alloc(&r->allocator, &ml->spaces[ORRI_MESHLET_SPACE_WORDS], words, &word_first);
    orri_meshlet_mesh *m = &ml->meshes[id.index];
    *m = (orri_meshlet_mesh){.generation = id.generation, .first = (uint32_t)first, .count = mesh->meshlet_count,
                             .vertex_first = (uint32_t)vertex_first, .vertex_count = mesh->meshlet_vertex_count,
                             .word_first = (uint32_t)word_first, .word_count = words};
    if (first + mesh->meshlet_count > UINT32_MAX || vertex_first + mesh->meshlet_vertex_count > UINT32_MAX ||
        word_first + words > UINT32_MAX) {
        orri_meshlets_release_mesh(r, id.index);
        orri_log(&r->logger, ORR_LOG_WARNING, "gpu: the meshlet pool has no room for mesh %u: drawn indexed", id.index);
    }
}

uint64_t orri_meshlets_stage(const orr_renderer *r, const orr_mesh *mesh)
{
    if (!mesh->meshlet_count) return 0;
    return (uint64_t)mesh->meshlet_count * (sizeof(orr_gpu_meshlet) + sizeof(orr_gpu_meshlet_bounds)) +
           (uint64_t)mesh->meshlet_vertex_count * 4 + (uint64_t)triangle_words(mesh) * 4 + 4 * r->frame_align;
}

uint64_t orri_meshlets_bytes(const orr_renderer *r)
{
    const orri_meshlets *ml = &r->meshlets;
    return ml->spaces[ORRI_MESHLET_SPACE_MESHLETS].used * (sizeof(orr_gpu_meshlet) + sizeof(orr_gpu_meshlet_bounds)) +
           ml->spaces[ORRI_MESHLET_SPACE_VERTICES].used * 4 + ml->spaces[ORRI_MESHLET_SPACE_WORDS].used * 4;
}

orr_result orri_meshlets_upload(orr_renderer *r, const orr_assets *assets, orri_upload *up)
{
    orri_meshlets *ml = &r->meshlets;
    const orri_space *sp = ml->spaces;
    /* Buffers only once something needs them: a meshlet view (its descriptors name them) or meshlets. */
    if (!ml->any && !sp[0].end && !sp[1].end && !sp[2].end && !ml->buffers[0].buffer) return ORR_OK;
    static const char *const what[ORRI_MESHLET_BUFFERS] = {"meshlet pool descriptors", "meshlet pool bounds",
                                                           "meshlet pool vertex entries", "meshlet pool triangles"};
    static const uint64_t unit[ORRI_MESHLET_BUFFERS] = {sizeof(orr_gpu_meshlet), sizeof(orr_gpu_meshlet_bounds), 4, 4};
    static const int space_of[ORRI_MESHLET_BUFFERS] = {ORRI_MESHLET_SPACE_MESHLETS, ORRI_MESHLET_SPACE_MESHLETS,
                                                       ORRI_MESHLET_SPACE_VERTICES, ORRI_MESHLET_SPACE_WORDS};
    for (int k = 0; k < ORRI_MESHLET_BUFFERS; k++)
        ORRI_TRY(orri_pool_reserve(r, up, &ml->buffers[k], &ml->replaced[k], ml->committed[space_of[k]],
                                   sp[space_of[k]].end, unit[k], VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, what[k]));
    const orri_geometry *g = &r->geometry;
    for (uint32_t p = 0; p < g->pending_count; p++) {
        orr_mesh_id id = g->pending[p];
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, id);
        const orri_meshlet_mesh *m = orri_meshlets_resident(r, id);
        if (!mesh || !m || m->count != mesh->meshlet_count) continue;
        VkDeviceSize off = 0, bytes = (VkDeviceSize)m->count * sizeof(orr_gpu_meshlet);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        orr_gpu_meshlet *d = (orr_gpu_meshlet *)((uint8_t *)up->frame->data.map + off);
        for (uint32_t k = 0; k < m->count; k++) {
            const orr_meshlet *src = &mesh->meshlets[k];
            d[k] = (orr_gpu_meshlet){.vertex_offset = m->vertex_first + src->vertex_offset,
                                     .triangle_offset = m->word_first + src->triangle_offset / 4,
                                     .counts = src->vertex_count | src->triangle_count << 8,
                                     .first_index = src->first_index};
        }
        orri_upload_copy(up, off, ml->buffers[ORRI_MESHLET_BUFFER_MESHLETS].buffer, (VkDeviceSize)m->first * sizeof *d, bytes);
        bytes = (VkDeviceSize)m->count * sizeof(orr_gpu_meshlet_bounds);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        memcpy((uint8_t *)up->frame->data.map + off, mesh->meshlet_bounds, bytes);
        orri_upload_copy(up, off, ml->buffers[ORRI_MESHLET_BUFFER_BOUNDS].buffer,
                         (VkDeviceSize)m->first * sizeof(orr_gpu_meshlet_bounds), bytes);
        bytes = (VkDeviceSize)m->vertex_count * 4;
        if (bytes) {
            ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
            memcpy((uint8_t *)up->frame->data.map + off, mesh->meshlet_vertices, bytes);
            orri_upload_copy(up, off, ml->buffers[ORRI_MESHLET_BUFFER_VERTICES].buffer, (VkDeviceSize)m->vertex_first * 4,
                             bytes);
        }
        bytes = (VkDeviceSize)m->word_count * 4;
        if (bytes) {
            ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
            uint8_t *w = (uint8_t *)up->frame->data.map + off;
            memset(w, 0, bytes);
            memcpy(w, mesh->meshlet_triangles, mesh->meshlet_triangle_bytes);
            orri_upload_copy(up, off, ml->buffers[ORRI_MESHLET_BUFFER_WORDS].buffer, (VkDeviceSize)m->word_first * 4, bytes);
        }
    }
    return ORR_OK;
}

uint32_t orri_meshlets_retirements(const orr_renderer *r)
{
    uint32_t n = 0;
    for (int k = 0; k < ORRI_MESHLET_BUFFERS; k++) n += r->meshlets.replaced[k].buffer ? 1u : 0u;
    return n;
}

void orri_meshlets_commit(orr_renderer *r, uint64_t frame_number)
{
    orri_meshlets *ml = &r->meshlets;
    for (int k = 0; k < ORRI_MESHLET_BUFFERS; k++) (void)orri_retire_buffer(r, &ml->replaced[k], frame_number);
    for (int k = 0; k < ORRI_MESHLET_SPACES; k++) ml->committed[k] = ml->spaces[k].end;
}

void orri_meshlets_abort(orr_renderer *r)
{
    orri_meshlets *ml = &r->meshlets;
    for (int k = 0; k < ORRI_MESHLET_BUFFERS; k++) {
        if (!ml->replaced[k].buffer) continue; /* as the geometry pool: the old buffer holds every committed byte */
        orri_buffer_destroy(r, &ml->buffers[k]);
        ml->buffers[k] = ml->replaced[k];
        memset(&ml->replaced[k], 0, sizeof ml->replaced[k]);
    }
}

void orri_meshlets_release(orr_renderer *r, uint64_t last_use)
{
    orri_meshlets *ml = &r->meshlets;
    if (ml->mesh_capacity) memset(ml->meshes, 0, sizeof *ml->meshes * ml->mesh_capacity);
    for (int k = 0; k < ORRI_MESHLET_SPACES; k++) {
        orri_space_reset(&ml->spaces[k]);
        ml->committed[k] = 0;
    }
    for (int k = 0; k < ORRI_MESHLET_BUFFERS; k++) orri_retire_buffer(r, &ml->buffers[k], last_use);
}

void orri_meshlets_pool_fini(orr_renderer *r)
{
    orri_meshlets *ml = &r->meshlets;
    if (r->device) {
        for (int k = 0; k < ORRI_MESHLET_BUFFERS; k++) {
            orri_buffer_destroy(r, &ml->buffers[k]);
            orri_buffer_destroy(r, &ml->replaced[k]);
        }
    }
    for (int k = 0; k < ORRI_MESHLET_SPACES; k++) orri_space_fini(&r->allocator, &ml->spaces[k]);
    orri_free(&r->allocator, ml->meshes, sizeof *ml->meshes * ml->mesh_capacity);
}
