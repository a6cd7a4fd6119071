/* Residency of materials: the material slots (their records and, without the texture array, their
 * texture sets), refreshed when the library changes and touched for the materials the draw scenes
 * name, before anything is planned: planning reads orri_materials_set only. */
#include "gpu/gpu_material.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_memory.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_texture.h"
#include "gpu/gpu_upload.h"

#include <math.h>
#include <string.h>

#define COUNT_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

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

/* Whether a record with `textures` (orr_gpu_material.textures) samples a texture at its texcoords: its
 * batches' pipelines carry them (orri_pipeline_features). */
static bool shows_texture(uint32_t textures) { return (textures & ((1u << ORR_GPU_TEXTURE_UV_SLOTS) - 1u)) != 0; }

/* Refreshes slot `id.index` from the library; *restate when its drawing state changed. */
static orr_result touch(orr_renderer *r, const orr_assets *assets, orr_material_id id, bool *restate)
{
    orri_materials *mt = &r->materials;
    const orr_material *mat = orr_assets_try_get_material(assets, id);
    if (!mat) return ORR_OK;
    const orri_parallel_array arrays[] = {ORRI_PARALLEL_ARRAY(mt->records), ORRI_PARALLEL_ARRAY(mt->revision),
                                     ORRI_PARALLEL_ARRAY(mt->generation), ORRI_PARALLEL_ARRAY(mt->dirty),
                                     ORRI_PARALLEL_ARRAY(mt->sets)};
    if (!orri_grow_parallel(r, &mt->capacity, id.index + 1, 256, arrays, COUNT_OF(arrays)))
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
         shows_texture(old->textures) != shows_texture(rec.textures) || /* the pipeline's features */
         ((old->textures ^ rec.textures) & (1u << ORR_GPU_TEXTURE_NORMAL)) ||
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

void orri_materials_commit(orr_renderer *r)
{
    orri_materials *mt = &r->materials;
    if (mt->count) memset(mt->dirty, 0, sizeof *mt->dirty * mt->count);
    mt->dirty_count = 0;
}

void orri_materials_release(orr_renderer *r)
{
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
}

void orri_materials_fini(orr_renderer *r)
{
    orri_materials *mt = &r->materials;
    orri_free(&r->allocator, mt->records, sizeof *mt->records * mt->capacity);
    orri_free(&r->allocator, mt->revision, sizeof *mt->revision * mt->capacity);
    orri_free(&r->allocator, mt->generation, sizeof *mt->generation * mt->capacity);
    orri_free(&r->allocator, mt->dirty, sizeof *mt->dirty * mt->capacity);
    orri_free(&r->allocator, mt->sets, sizeof *mt->sets * mt->capacity); /* the sets go with their pools */
    orri_buffer_destroy(r, &mt->buffer);
}
