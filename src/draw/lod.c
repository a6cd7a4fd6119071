/* Levels of detail: which level of a mesh an instance shows in a view (orr_draw_lod_pick). The
 * arithmetic is binary32, term by term in the order shaders/cull.comp writes it (its `precise` values),
 * so that the CPU reference and the GPU cull pick the same level. */
#include "core/internal.h"
#include "draw/draw_internal.h"

#include <math.h>

void orr_draw_lod_view_init(const orr_draw_view *view, orr_draw_lod_view *out)
{
    *out = (orr_draw_lod_view){.k = -1.0f};
    orr_split_double(view->origin.x, &out->origin_hi[0], &out->origin_lo[0]);
    orr_split_double(view->origin.y, &out->origin_hi[1], &out->origin_lo[1]);
    orr_split_double(view->origin.z, &out->origin_hi[2], &out->origin_lo[2]);
    /* pixels per metre at a distance of one metre (perspective), or per metre (orthographic) */
    double px = fabs(view->proj.m[5]) * (double)view->lod_height * 0.5; /* (Vulkan clip y points down: -f) */
    if (view->lod_pixels > 0.0f && px > 0.0 && isfinite(px)) out->k = (float)((double)view->lod_pixels / px);
    out->perspective = view->proj.m[11] != 0.0;
}

float orri_draw_lod_distance(const orr_draw_lod_view *lv, const orr_render_instance *in, const orr_aabbf *bounds,
                             float *scale)
{
    const double *m = in->world.m;
    float l[9], c[3], h[3], off[3], ce[3], he[3];
    for (int k = 0; k < 9; k++) l[k] = (float)m[k];
    const float lo[3] = {bounds->min.x, bounds->min.y, bounds->min.z}, hi[3] = {bounds->max.x, bounds->max.y, bounds->max.z};
    for (int i = 0; i < 3; i++) {
        float th, tl;
        orr_split_double(m[9 + i], &th, &tl);
        c[i] = (lo[i] + hi[i]) * 0.5f;
        h[i] = (hi[i] - lo[i]) * 0.5f;
        off[i] = (th - lv->origin_hi[i]) + (tl - lv->origin_lo[i]);
    }
    for (int i = 0; i < 3; i++) { /* column j, row i is l[j * 3 + i] */
        ce[i] = ((l[i] * c[0] + l[3 + i] * c[1]) + l[6 + i] * c[2]) + off[i];
        he[i] = (fabsf(l[i]) * h[0] + fabsf(l[3 + i]) * h[1]) + fabsf(l[6 + i]) * h[2];
    }
    float cc = (ce[0] * ce[0] + ce[1] * ce[1]) + ce[2] * ce[2], rr = (he[0] * he[0] + he[1] * he[1]) + he[2] * he[2];
    float s0 = (l[0] * l[0] + l[1] * l[1]) + l[2] * l[2], s1 = (l[3] * l[3] + l[4] * l[4]) + l[5] * l[5],
          s2 = (l[6] * l[6] + l[7] * l[7]) + l[8] * l[8];
    *scale = sqrtf(fmaxf(fmaxf(s0, s1), s2));
    return fmaxf(sqrtf(cc) - sqrtf(rr), 0.0f);
}

bool orr_draw_lod_pick(const orr_draw_lod_view *lv, const orr_draw_batch *batch, const orr_render_instance *instance,
                       const orr_aabbf *bounds)
{
    if (lv->k < 0.0f) return batch->lod == 0;
    float s, d = orri_draw_lod_distance(lv, instance, bounds, &s);
    float allowed = lv->perspective ? lv->k * d : lv->k;
    bool fine = batch->lod_error * s <= allowed;
    bool next_fine = batch->lod_next >= 0.0f && batch->lod_next * s <= allowed;
    return fine && !next_fine;
}
