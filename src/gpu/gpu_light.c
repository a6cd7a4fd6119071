/* Lights: every enabled light of the snapshot goes to each view, made relative to the view's own origin
 * in binary64 before anything becomes a float, as KHR_lights_punctual describes it (lux for directional
 * lights, candela for point and spot lights, range, cone cosines). A snapshot without lights is lit by
 * a default key light unless the view asks for none. The records are written into the frame buffer,
 * which the mesh shaders read as their light buffer. */
#include "gpu/gpu_light.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_upload.h"

#include <math.h>
#include <string.h>

/* The default key light: from above, front and right, like a studio's key, of 3 lux. */
#define DEFAULT_LIGHT_LUX 3.0f

uint32_t orri_lights_count(const orr_view_desc *v, const orr_snapshot *s)
{
    if (s->light_count) return s->light_count;
    return v->lighting.no_default_light ? 0u : 1u;
}

static void to_floats(orr_vec3d v, float *out)
{
    out[0] = (float)v.x;
    out[1] = (float)v.y;
    out[2] = (float)v.z;
}

orr_result orri_lights_write(orr_renderer *r, orri_frame *f, const orr_view_desc *v, const orr_snapshot *s,
                             orr_vec3d origin, uint32_t *first, uint32_t *count)
{
    uint32_t n = orri_lights_count(v, s);
    *first = *count = 0;
    if (!n) return ORR_OK;
    VkDeviceSize off = 0;
    ORRI_TRY(orri_frame_alloc(r, f, (VkDeviceSize)n * sizeof(orr_gpu_light), &off));
    orr_gpu_light *out = (orr_gpu_light *)((uint8_t *)f->data.map + off);
    if (!s->light_count) {
        memset(out, 0, sizeof *out);
        out->type = ORR_GPU_LIGHT_DIRECTIONAL;
        to_floats(orr_vec3d_normalize((orr_vec3d){-0.4, -1.0, -0.6}), out->direction);
        out->color[0] = out->color[1] = out->color[2] = 1.0f;
        out->intensity = DEFAULT_LIGHT_LUX;
    }
    for (uint32_t i = 0; i < s->light_count; i++) {
        const orr_render_light *l = &s->lights[i];
        orr_gpu_light *g = &out[i];
        memset(g, 0, sizeof *g);
        g->type = l->type == ORR_LIGHT_DIRECTIONAL ? ORR_GPU_LIGHT_DIRECTIONAL
                  : l->type == ORR_LIGHT_SPOT      ? ORR_GPU_LIGHT_SPOT
                                                   : ORR_GPU_LIGHT_POINT;
        /* the light shines along its -Z: the third column of its world matrix, turned round */
        orr_vec3d z = {l->world.m[6], l->world.m[7], l->world.m[8]};
        orr_vec3d dir = orr_vec3d_normalize(orr_vec3d_scale(z, -1.0));
        if (!isfinite(dir.x) || !isfinite(dir.y) || !isfinite(dir.z)) dir = (orr_vec3d){0, 0, -1};
        to_floats(dir, g->direction);
        to_floats(orr_vec3d_sub(orr_affine3d_translation(&l->world), origin), g->position);
        memcpy(g->color, l->color, sizeof g->color);
        g->intensity = l->intensity;
        g->range = l->range > 0 ? l->range : 0.0f;
        g->cos_inner = l->cos_inner;
        g->cos_outer = l->cos_outer;
    }
    *first = (uint32_t)(off / sizeof(orr_gpu_light));
    *count = n;
    return ORR_OK;
}
