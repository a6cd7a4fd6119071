/* Recording a session's snapshots with the resources they draw: the snapshot module writes the file
 * and knows resources only as bytes; the asset library encodes them; this glue, which may use both,
 * finds what a frame draws that the recording lacks. */
#include "core/internal.h"

#include <orrery/frame.h>

typedef struct record_ctx {
    orr_recorder *recorder;
    const orr_assets *assets;
    orr_allocator allocator;
    uint8_t *scratch;
    size_t scratch_size;
    orr_error *err;
} record_ctx;

/* Encodes and adds one resource (nothing for a stale id: the renderer skips it too). */
static orr_result add(record_ctx *c, orr_resource_kind kind, uint32_t index, uint32_t generation)
{
    size_t need = 0;
    for (int pass = 0; pass < 2; pass++) {
        void *out = pass ? c->scratch : NULL;
        size_t cap = pass ? c->scratch_size : 0;
        switch (kind) {
        case ORR_RESOURCE_MESH: need = orr_assets_encode_mesh(c->assets, (orr_mesh_id){index, generation}, out, cap); break;
        case ORR_RESOURCE_MATERIAL:
            need = orr_assets_encode_material(c->assets, (orr_material_id){index, generation}, out, cap);
            break;
        case ORR_RESOURCE_TEXTURE:
            need = orr_assets_encode_texture(c->assets, (orr_texture_id){index, generation}, out, cap);
            break;
        }
        if (!need) return ORR_OK;
        if (pass == 0 && need > c->scratch_size) {
            uint8_t *grown = orri_realloc(&c->allocator, c->scratch, c->scratch_size, need);
            if (!grown) return orri_error(c->err, ORR_ERROR_OUT_OF_MEMORY, "record: out of memory for a %zu-byte resource", need);
            c->scratch = grown;
            c->scratch_size = need;
        }
    }
    orr_result r = orr_recorder_add_resource(c->recorder, kind, index, generation, c->scratch, need);
    if (r != ORR_OK) orri_error(c->err, r, "%s", orr_recorder_last_error(c->recorder)->message);
    return r;
}

static orr_result texture(record_ctx *c, orr_texture_id id)
{
    if (orr_id_is_none(id) || orr_recorder_has_resource(c->recorder, ORR_RESOURCE_TEXTURE, id.index, id.generation))
        return ORR_OK;
    return add(c, ORR_RESOURCE_TEXTURE, id.index, id.generation);
}

static orr_result material(record_ctx *c, orr_material_id id)
{
    if (orr_id_is_none(id) || orr_recorder_has_resource(c->recorder, ORR_RESOURCE_MATERIAL, id.index, id.generation))
        return ORR_OK;
    const orr_material *m = orr_assets_try_get_material(c->assets, id);
    if (!m) return ORR_OK;
    const orr_texture_id t[6] = {m->base_color_texture.texture, m->metallic_roughness_texture.texture,
                                 m->normal_texture.texture, m->occlusion_texture.texture, m->emissive_texture.texture,
                                 m->fur.noise};
    for (int k = 0; k < 6; k++) {
        orr_result r = texture(c, t[k]);
        if (r != ORR_OK) return r;
    }
    return add(c, ORR_RESOURCE_MATERIAL, id.index, id.generation);
}

static orr_result mesh(record_ctx *c, orr_mesh_id id)
{
    if (orr_id_is_none(id) || orr_recorder_has_resource(c->recorder, ORR_RESOURCE_MESH, id.index, id.generation))
        return ORR_OK;
    const orr_mesh *m = orr_assets_try_get_mesh(c->assets, id);
    if (!m) return ORR_OK;
    for (uint32_t p = 0; p < m->primitive_count; p++) {
        orr_result r = material(c, m->primitives[p].material);
        if (r != ORR_OK) return r;
    }
    return add(c, ORR_RESOURCE_MESH, id.index, id.generation);
}

static orr_result instance(record_ctx *c, const orr_snapshot *s, const orr_render_instance *in)
{
    orr_result r = mesh(c, in->mesh);
    for (uint32_t k = 0; r == ORR_OK && k < in->material_count; k++)
        if ((uint64_t)in->material_offset + k < s->material_binding_count)
            r = material(c, s->material_bindings[in->material_offset + k]);
    return r;
}

orr_result orr_frame_record(orr_recorder *recorder, const orr_snapshot *s, const orr_assets *assets, orr_error *err)
{
    ORRI_ASSERT(recorder && s && assets, "orr_frame_record: a recorder, a snapshot and its assets");
    record_ctx c = {recorder, assets, orr_assets_allocator(assets), NULL, 0, err};
    orr_result r = ORR_OK;
    uint64_t last = orr_recorder_last_frame(recorder);
    if (orr_recorder_same_layout(recorder, s)) {
        /* the instances draw what they drew in the last recorded frame: nothing new (layout_version
         * covers meshes and bindings) */
    } else if (last && s->delta_base == last) { /* what changed since the last recorded frame: new ones included */
        for (uint32_t k = 0; r == ORR_OK && k < s->changed_count; k++) {
            if (k + 2 * ORRI_AHEAD < s->changed_count && s->changed[k + 2 * ORRI_AHEAD] < s->index_capacity)
                __builtin_prefetch(&s->index_of[s->changed[k + 2 * ORRI_AHEAD]]);
            if (k + ORRI_AHEAD < s->changed_count) { /* scattered records, fetched ahead */
                uint32_t ahead = orr_snapshot_find(s, s->changed[k + ORRI_AHEAD]);
                if (ahead < s->instance_count) __builtin_prefetch((const char *)&s->instances[ahead] + 128);
            }
            uint32_t i = orr_snapshot_find(s, s->changed[k]);
            if (i != UINT32_MAX && i < s->instance_count) r = instance(&c, s, &s->instances[i]);
        }
    } else { /* every instance: the first frame, or one whose delta is against another */
        for (uint32_t i = 0; r == ORR_OK && i < s->instance_count; i++) r = instance(&c, s, &s->instances[i]);
    }
    orri_free(&c.allocator, c.scratch, c.scratch_size);
    if (r == ORR_OK) {
        r = orr_recorder_add_frame(recorder, s);
        if (r != ORR_OK) orri_error(err, r, "%s", orr_recorder_last_error(recorder)->message);
    }
    return r;
}
