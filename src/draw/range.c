/* Visibility ranges: one view's verdicts with hysteresis (orr_draw_ranges_update). */
#include "core/internal.h"
#include "draw/draw_internal.h"

#include <math.h>
#include <string.h>

void orr_draw_ranges_init(orr_draw_ranges *r, const orr_allocator *allocator)
{
    *r = (orr_draw_ranges){.allocator = orri_allocator_or_default(allocator)};
}

void orr_draw_ranges_fini(orr_draw_ranges *r)
{
    if (!r) return;
    orri_free(&r->allocator, r->shown, (size_t)r->capacity * sizeof *r->shown);
    orr_allocator keep = r->allocator;
    *r = (orr_draw_ranges){.allocator = keep};
}

/* A bound of 0 (or not a number) is no bound; a negative margin none. */
static bool in_range(double d, double near, double far, double margin)
{
    bool lo = !(near > 0) || d >= near + margin, hi = !(far > 0) || d <= far - margin;
    return lo && hi;
}

orr_result orr_draw_ranges_update(orr_draw_ranges *r, const orr_draw_scene *scene, const orr_snapshot *s, orr_vec3d origin)
{
    ORRI_REQUIRE(r && scene && s, NULL, "orr_draw_ranges_update: every argument is required");
    uint32_t words = s->instance_count / 32 + 1;
    if (words != r->words) { /* one block: shown, then hidden */
        if (!orri_grow(&r->allocator, (void **)&r->shown, &r->capacity, 2 * words, sizeof *r->shown))
            return ORR_ERROR_OUT_OF_MEMORY;
        r->hidden = r->shown + words;
        r->known = false;
    }
    if (!r->known || r->layout_version != s->layout_version) {
        memset(r->shown, 0, (size_t)words * sizeof *r->shown);
        r->known = false;
    }
    memset(r->hidden, 0, (size_t)words * sizeof *r->hidden);
    r->words = words;
    r->layout_version = s->layout_version;
    /* Only the instances with a range: the scene lists them. */
    for (uint32_t k = 0; k < scene->ranged_count; k++) {
        uint32_t i = scene->ranged[k];
        if (i >= s->instance_count) continue;
        const orr_render_instance *in = &s->instances[i];
        orr_aabbd local = {{in->bounds.min.x, in->bounds.min.y, in->bounds.min.z},
                           {in->bounds.max.x, in->bounds.max.y, in->bounds.max.z}};
        orr_aabbd box = orr_aabbd_transform_affine(&in->world, local);
        orr_vec3d c = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
        double d = orr_vec3d_length(orr_vec3d_sub(c, origin));
        double m = in->range_margin > 0 ? in->range_margin : 0.0;
        bool was = r->shown[i >> 5] >> (i & 31) & 1u, shown;
        if (!r->known) shown = in_range(d, in->range_near, in->range_far, 0.0);
        else if (was) shown = in_range(d, in->range_near, in->range_far, -m); /* hides past a bound by the margin */
        else shown = in_range(d, in->range_near, in->range_far, m);          /* shows inside both by the margin */
        if (shown) r->shown[i >> 5] |= 1u << (i & 31);
        else {
            r->shown[i >> 5] &= ~(1u << (i & 31));
            r->hidden[i >> 5] |= 1u << (i & 31);
        }
    }
    r->known = true;
    return ORR_OK;
}
