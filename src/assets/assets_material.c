/* The asset library's materials: the default, fur parameters, and materials kept with a revision each
 * (so that a renderer refreshes only what was edited). */
#include "core/internal.h"
#include "assets/assets_internal.h"

#include <math.h>

/* ---- materials --------------------------------------------------------------------------- */

orr_material orr_material_default(void)
{
    orr_texture_ref none = {.scale = 1.0f, .uv_scale = {1.0f, 1.0f}};
    return (orr_material){
        .base_color = {1, 1, 1, 1},
        .metallic = 1.0f,
        .roughness = 1.0f,
        .emissive_strength = 1.0f,
        .alpha_cutoff = 0.5f,
        .alpha_mode = ORR_ALPHA_OPAQUE,
        .base_color_texture = none,
        .metallic_roughness_texture = none,
        .normal_texture = none,
        .occlusion_texture = none,
        .emissive_texture = none,
        .shading = ORR_SHADING_PBR,
        .fur = {.shell_count = 16, .shell_length = 0.01f, .density = 32.0f, .thinning = 0.75f},
    };
}

bool orr_fur_valid(const orr_fur *f)
{
    return f->shell_count >= 1 && f->shell_count <= ORR_FUR_MAX_SHELLS && isfinite(f->shell_length) &&
           f->shell_length >= 0.0f && isfinite(f->density) && f->density > 0.0f && f->thinning >= 0.0f &&
           f->thinning <= 1.0f;
}

bool orr_fur_override_valid(uint32_t set, uint32_t shell_count, float shell_length, float density, float thinning)
{
    if (set & ~(uint32_t)ORR_FUR_SET_ALL) return false;
    orr_fur f = {.shell_count = 1, .shell_length = 0.0f, .density = 1.0f, .thinning = 0.0f};
    if (set & ORR_FUR_SET_SHELL_COUNT) f.shell_count = shell_count;
    if (set & ORR_FUR_SET_SHELL_LENGTH) f.shell_length = shell_length;
    if (set & ORR_FUR_SET_DENSITY) f.density = density;
    if (set & ORR_FUR_SET_THINNING) f.thinning = thinning;
    return orr_fur_valid(&f);
}

orr_result orr_assets_add_material(orr_assets *a, const orr_material *material, orr_material_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_add_material: assets is NULL");
    ORRI_REQUIRE(material && out, &a->error, "orr_assets_add_material: material and out are required");
    if ((unsigned)material->alpha_mode > ORR_ALPHA_BLEND)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT,
                          "material: alpha_mode %u is not OPAQUE (0), MASK (1) or BLEND (2)", (unsigned)material->alpha_mode);
    if ((unsigned)material->shading > ORR_SHADING_FUR)
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT, "material: shading %u is not a shading mode",
                          (unsigned)material->shading);
    if (material->shading == ORR_SHADING_FUR && !orr_fur_valid(&material->fur)) {
        const orr_fur *f = &material->fur;
        return orri_error(&a->error, ORR_ERROR_INVALID_ARGUMENT,
                          "material: fur.%s is out of range (shell_count %u in 1..%u, shell_length %g >= 0, density %g > 0, "
                          "thinning %g in 0..1)",
                          f->shell_count < 1 || f->shell_count > ORR_FUR_MAX_SHELLS ? "shell_count"
                          : !(isfinite(f->shell_length) && f->shell_length >= 0.0f)  ? "shell_length"
                          : !(isfinite(f->density) && f->density > 0.0f)             ? "density"
                                                                                      : "thinning",
                          f->shell_count, ORR_FUR_MAX_SHELLS, (double)f->shell_length, (double)f->density,
                          (double)f->thinning);
    }
    orr_handle h = {0, 0};
    orri_assets_material_slot *m = NULL;
    orr_result r = orri_assets_pool_add(a, &a->materials, &h, (void **)&m);
    if (r != ORR_OK) return r;
    m->value = *material;
    m->revision = 1;
    *out = (orr_material_id){h.index, h.generation};
    return ORR_OK;
}

orr_result orr_assets_clone_material(orr_assets *a, orr_material_id source, orr_material_id *out)
{
    ORRI_REQUIRE(a, NULL, "orr_assets_clone_material: assets is NULL");
    ORRI_REQUIRE(out, &a->error, "orr_assets_clone_material: out is required");
    const orr_material *src = orr_assets_try_get_material(a, source);
    if (!src) return orri_error(&a->error, ORR_ERROR_STALE_HANDLE, "clone_material: stale material id %u", source.index);
    orr_material copy = *src; /* the pool may move while adding */
    return orr_assets_add_material(a, &copy, out);
}

const orr_material *orr_assets_try_get_material(const orr_assets *a, orr_material_id id)
{
    orri_assets_material_slot *m = pool_item(&a->materials, AS_HANDLE(id));
    return m ? &m->value : NULL;
}

orr_material *orr_assets_try_edit_material(orr_assets *a, orr_material_id id)
{
    orri_assets_material_slot *m = pool_item(&a->materials, AS_HANDLE(id));
    if (!m) return NULL;
    m->revision++;
    a->revision++;
    return &m->value;
}

uint64_t orr_assets_material_revision(const orr_assets *a, orr_material_id id)
{
    orri_assets_material_slot *m = pool_item(&a->materials, AS_HANDLE(id));
    return m ? m->revision : 0;
}

orr_material_id orr_assets_default_material(const orr_assets *a) { return a->default_material; }
