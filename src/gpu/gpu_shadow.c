/* Shadows. A camera view whose orr_view_desc.shadows is enabled gets shadow views for every light of the
 * snapshot that casts shadows (the default key light when the snapshot has no lights), up to its
 * max_lights: directional lights first, then spot lights, then point lights, each kind in snapshot
 * order (a key light matters to the whole view, a local one to part of it); the others are counted
 * (renderer.shadows.over) and light the view unshadowed.
 * - A directional light: up to four cascades, the view's depth range [znear, distance] cut by the split
 *   scheme, each slice enclosed in a sphere (the same size whichever way the camera turns), whose centre
 *   is snapped to whole texels of a grid fixed in the world, so that the maps do not shimmer as the
 *   camera moves or turns.
 * - A spot light: one perspective map over its cone.
 * - A point light: a cube, six perspective maps along +X, -X, +Y, -Y, +Z, -Z, each a few texels wider
 *   than 90 degrees so that the filter's taps round a receiver near a face's edge stay on that face.
 *
 * Each layer is a shadow view of the shared scene: the camera view's draw scene, culled on the GPU by
 * the camera views' cull (shaders/cull.comp) against the layer's frustum, keeping only the instances that
 * cast shadows (ORR_GPU_INSTANCE_CASTS_SHADOWS) on the view's layers, then drawn depth-only into its
 * layer of one depth array that every view's shadow views share: the opaque casters with no fragment
 * stage (one multi-draw indirect per layer), the alpha-masked ones (the cut-out pass's batches) with a
 * second pipeline whose fragment stage discards what the cut-out pass cuts (shaders/shadow_mask.glsl),
 * so that they cast the shadow of their opaque texels and the opaque casters cost what they did.
 * Everything is relative to the camera view's binary64 origin: the frustum, its matrix and the cull, so
 * shadows are as exact 1e7 m from the world origin as at it. The receivers find a light's layers in the
 * shadow buffer (orr_gpu_light.shadow: its records, an orr_gpu_shadow per layer, written beside the
 * view's lights); the mesh fragment shaders (shade.glsl) take the first cascade whose depth range holds
 * the fragment's camera depth and whose map holds the filter's reach round it, blended over the last
 * fifth of its range into the next one (the last one into lit) so that the step between two texel sizes
 * does not show, or the cube face by the largest component of the direction from the light. They filter
 * with percentage-closer filtering made of gathers (the same on every device, whether or not its depth
 * format filters linearly). The receiver's point is moved along its normal (normal offset) and towards
 * the light (depth bias), both in texels of the map it reads, which scales them with its resolution. */
#include "gpu/gpu_shadow.h"
#include "gpu/gpu_draws.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_upload.h"
#include "gpu/gpu_view.h"

#include <math.h>
#include <string.h>

#define DEFAULT_MAP_SIZE 2048u
#define DEFAULT_CASCADES 4u
#define DEFAULT_DISTANCE 100.0
#define DEFAULT_DEPTH_BIAS 1.5f
#define DEFAULT_NORMAL_OFFSET 1.0f
#define DEFAULT_PCF 3u
#define DEFAULT_MAX_LIGHTS 4u
#define PRACTICAL_LAMBDA 0.75 /* the practical split: this much logarithmic, the rest uniform */
/* Without depth clamp, a cascade's box reaches this many radii towards the light for its casters. */
#define REACH_RADII 8.0
#define SPOT_NEAR 0.05 /* metres: a spot light's map starts this far from it */
/* A point light whose view is inside a cone narrower than this (radians, either side of its axis) has
 * one map over that cone instead of a cube (fit_point_focus). */
#define FOCUS_HALF_ANGLE (ORR_PI / 6.0)
/* The default key light's direction (gpu_light.c's) */
static const orr_vec3d DEFAULT_LIGHT_DIR = {-0.4, -1.0, -0.6};

static void destroy_map(orr_renderer *r)
{
    orri_shadows *sh = &r->shadows;
    for (uint32_t i = 0; i < sh->layers; i++)
        if (sh->layer_views && sh->layer_views[i]) vkDestroyImageView(r->device, sh->layer_views[i], NULL);
    orri_free(&r->allocator, sh->layer_views, sizeof *sh->layer_views * sh->layers);
    sh->layer_views = NULL;
    orri_image_destroy(r, &sh->map);
    sh->layers = sh->size = 0;
}

/* The map at `size` x `size` with `layers` layers (made again only when it must grow or change size:
 * the frames in flight are waited for first, a settings change). */
static orr_result ensure_map(orr_renderer *r, uint32_t size, uint32_t layers)
{
    orri_shadows *sh = &r->shadows;
    if (sh->map.image && sh->size == size && sh->layers >= layers) return ORR_OK;
    if (sh->map.image) {
        ORRI_VK(r, vkDeviceWaitIdle(r->device));
        destroy_map(r);
    }
    ORRI_TRY(orri_image_create_desc(r,
                                    &(orri_image_desc){.width = size, .height = size, .layers = layers,
                                                       .format = ORRI_DEPTH_FORMAT,
                                                       .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                                                VK_IMAGE_USAGE_SAMPLED_BIT |
                                                                VK_IMAGE_USAGE_TRANSFER_DST_BIT, /* the first clear */
                                                       .aspect = VK_IMAGE_ASPECT_DEPTH_BIT, .what = "shadow map"},
                                    &sh->map));
    sh->layer_views = orri_alloc(&r->allocator, sizeof *sh->layer_views * layers);
    if (!sh->layer_views) {
        orri_image_destroy(r, &sh->map);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the shadow map's layers");
    }
    memset(sh->layer_views, 0, sizeof *sh->layer_views * layers);
    sh->size = size;
    sh->layers = layers;
    sh->defined = false;
    for (uint32_t i = 0; i < layers; i++) {
        VkImageViewCreateInfo vi = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = sh->map.image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = ORRI_DEPTH_FORMAT,
            .subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, i, 1},
        };
        ORRI_VK(r, vkCreateImageView(r->device, &vi, NULL, &sh->layer_views[i]));
    }
    return ORR_OK;
}

orr_result orri_shadows_init(orr_renderer *r)
{
    orri_shadows *sh = &r->shadows;
    /* read by gathers of four comparisons (shade.glsl): no filtering of the sampler's, so that every
     * device filters alike, whether or not its depth format filters linearly */
    VkSamplerCreateInfo si = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_NEAREST,
        .minFilter = VK_FILTER_NEAREST,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        /* reversed depth: 1 nearest the light; lit where the receiver is at least as near as the map */
        .compareEnable = VK_TRUE,
        .compareOp = VK_COMPARE_OP_GREATER_OR_EQUAL,
        .maxLod = 0.0f,
    };
    ORRI_VK(r, vkCreateSampler(r->device, &si, NULL, &sh->sampler));
    return ensure_map(r, 1, 1);
}

void orri_shadows_fini(orr_renderer *r)
{
    orri_shadows *sh = &r->shadows;
    destroy_map(r);
    if (sh->sampler) vkDestroySampler(r->device, sh->sampler, NULL);
    if (sh->pipeline) vkDestroyPipeline(r->device, sh->pipeline, NULL);
    if (sh->mask_pipeline) vkDestroyPipeline(r->device, sh->mask_pipeline, NULL);
    orri_free(&r->allocator, sh->views, sizeof *sh->views * sh->capacity);
    orri_free(&r->allocator, sh->lights, sizeof *sh->lights * sh->light_capacity);
    memset(sh, 0, sizeof *sh);
}

/* A light that casts in a view, as its maps need it. */
typedef struct shadow_light {
    orr_light_type type;
    uint32_t index;    /* among the view's lights */
    orr_vec3d dir;     /* unit, the way it shines */
    orr_vec3d at;      /* spot and point: its position */
    double cos_outer;  /* spot: its cone */
    double range;      /* spot and point: how far it reaches (0: without end) */
} shadow_light;

static shadow_light light_of(const orr_render_light *l, uint32_t index)
{
    orr_vec3d z = {-l->world.m[6], -l->world.m[7], -l->world.m[8]};
    shadow_light out = {.type = l->type, .index = index, .dir = orr_vec3d_normalize(z),
                        .at = orr_affine3d_translation(&l->world), .cos_outer = l->cos_outer,
                        .range = l->range > 0 && isfinite(l->range) ? l->range : 0.0};
    if (!isfinite(out.dir.x) || !isfinite(out.dir.y) || !isfinite(out.dir.z)) out.dir = (orr_vec3d){0, 0, -1};
    return out;
}

/* The view's lights that cast shadows, in the order they get maps: directional, spot, point, each in
 * snapshot order (the default key light when the snapshot has none); up to `cap` into out, the count of
 * all of them returned. */
static uint32_t shadowed_lights(const orr_view_desc *d, const orr_snapshot *s, shadow_light *out, uint32_t cap)
{
    if (!s->light_count) {
        if (d->lighting.no_default_light) return 0;
        if (cap) out[0] = (shadow_light){.type = ORR_LIGHT_DIRECTIONAL, .dir = orr_vec3d_normalize(DEFAULT_LIGHT_DIR)};
        return 1;
    }
    static const orr_light_type order[3] = {ORR_LIGHT_DIRECTIONAL, ORR_LIGHT_SPOT, ORR_LIGHT_POINT};
    uint32_t n = 0;
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t i = 0; i < s->light_count; i++) {
            const orr_render_light *l = &s->lights[i];
            if (!l->casts_shadows || l->type != order[pass]) continue;
            if (n < cap) out[n] = light_of(l, i);
            n++;
        }
    return n;
}

static double dot3(orr_vec3d a, orr_vec3d b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static orr_vec3d add3(orr_vec3d a, orr_vec3d b) { return (orr_vec3d){a.x + b.x, a.y + b.y, a.z + b.z}; }
static orr_vec3d scale3(orr_vec3d a, double k) { return (orr_vec3d){a.x * k, a.y * k, a.z * k}; }

/* The camera's frustum as the view's planner made it: forward, and per unit of depth the half extents
 * (perspective) or the half extents themselves (orthographic); its near and far. */
typedef struct camera_shape {
    orr_vec3d forward;
    bool ortho;
    double hx, hy;
    double znear, zfar; /* zfar 0 = infinite */
} camera_shape;

static camera_shape shape_of(const orri_view_frame *vf, const orr_render_camera *cam)
{
    const double *v = vf->draw.view.m, *p = vf->draw.proj.m;
    camera_shape c = {.forward = {-v[0 * 4 + 2], -v[1 * 4 + 2], -v[2 * 4 + 2]}};
    c.hx = 1.0 / fabs(p[0]);
    c.hy = 1.0 / fabs(p[5]);
    if (p[11] != 0.0) { /* perspective, reversed and infinite: depth = znear / distance */
        c.znear = p[14];
        c.zfar = cam && cam->projection == ORR_PERSPECTIVE && cam->zfar > c.znear ? cam->zfar : 0.0;
    } else { /* orthographic: depth = (f - d) / (f - n) */
        c.ortho = true;
        c.znear = (p[14] - 1.0) / p[10];
        c.zfar = p[14] / p[10];
    }
    return c;
}

/* Right, up and back (against the light) of a light shining along dir. */
static void light_basis(orr_vec3d dir, orr_vec3d *right, orr_vec3d *up, orr_vec3d *back)
{
    *back = scale3(dir, -1.0);
    orr_vec3d helper = fabs(dir.y) < 0.99 ? (orr_vec3d){0, 1, 0} : (orr_vec3d){1, 0, 0};
    *right = orr_vec3d_normalize(orr_vec3d_cross(helper, *back));
    *up = orr_vec3d_cross(*back, *right);
}

/* The far plane of a light of `range` (0: without end)'s perspective maps: the range, unless that is
 * too near the near plane to make one (then none). */
static double far_of(double range) { return range > 2.0 * SPOT_NEAR ? range : 0.0; }

/* A perspective map from `at` (binary64, made relative to the origin) looking along `dir` with the half
 * angle `half` either side of its axis: near plane 5 cm, far plane `far` (0: infinite), reversed depth;
 * the world size of a texel per metre of distance along its axis. A spot light's map covers its cone, a
 * point light's cube face its quarter of the sphere round it, both out to the light's range. */
static void fit_perspective(orr_vec3d at_world, orr_vec3d dir, double half, double far, orr_vec3d origin,
                            uint32_t size, orr_mat4d *clip, double *texel_per_m)
{
    orr_vec3d right, up, back;
    light_basis(dir, &right, &up, &back);
    orr_vec3d at = orr_vec3d_sub(at_world, origin);
    orr_mat4d view;
    orr_mat4d_identity(&view);
    const orr_vec3d rows[3] = {right, up, back};
    for (int i = 0; i < 3; i++) {
        view.m[0 * 4 + i] = rows[i].x;
        view.m[1 * 4 + i] = rows[i].y;
        view.m[2 * 4 + i] = rows[i].z;
        view.m[3 * 4 + i] = -dot3(rows[i], at);
    }
    orr_mat4d proj;
    orr_mat4d_perspective_reversed_infinite(2.0 * half, 1.0, SPOT_NEAR, &proj);
    if (far > 0) { /* depth = near (far - d) / (d (far - near)): 1 at the near plane, 0 at the far one */
        proj.m[10] = SPOT_NEAR / (far - SPOT_NEAR);
        proj.m[14] = SPOT_NEAR * far / (far - SPOT_NEAR);
    }
    orr_mat4d_mul(&proj, &view, clip);
    *texel_per_m = 2.0 * tan(half) / size;
}

/* A spot light's map: over its cone and a little more (the filter's reach). */
static void fit_spot(const shadow_light *l, orr_vec3d origin, uint32_t size, orr_mat4d *clip, double *texel_per_m)
{
    double half = acos(fmax(-1.0, fmin(1.0, l->cos_outer))) * 1.05 + 0.01;
    if (half > 1.4) half = 1.4; /* a cone wider than 160 degrees: its map covers 160 */
    fit_perspective(l->at, l->dir, half, far_of(l->range), origin, size, clip, texel_per_m);
}

static const orr_vec3d CUBE_AXES[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};

/* The tangent of a cube face's half angle: 90 degrees and `margin` texels more on each side, so that
 * the filter's taps (and the receiver's offsets) round a point on the face's edge are still inside it. */
static double cube_face_tan(uint32_t size, uint32_t margin)
{
    double inner = size > 4 * margin ? (double)(size - 2 * margin) / size : 0.5; /* the 90 degrees' share */
    return 1.0 / inner;
}

/* Face `face` (+X, -X, +Y, -Y, +Z, -Z: gpu_shared.h's order) of a point light's cube, out to its range. */
static void fit_cube_face(const shadow_light *l, uint32_t face, orr_vec3d origin, uint32_t size, uint32_t margin,
                          orr_mat4d *clip, double *texel_per_m)
{
    fit_perspective(l->at, CUBE_AXES[face], atan(cube_face_tan(size, margin)), far_of(l->range), origin, size, clip,
                    texel_per_m);
}

/* The planes (x, y, z, w: dot(xyz, p) + w >= 0 inside) of the frustum of clip matrix m, in the space m
 * takes points from: left, right, bottom, top, then the near one (depth <= 1) or the far one (depth >= 0:
 * an orthographic cascade's side away from the light, a ranged light's far plane). */
static void frustum_planes(const orr_mat4d *clip, bool near_plane, double planes[5][4])
{
    const double *m = clip->m;
    for (int i = 0; i < 4; i++) {
        double row0 = m[i * 4 + 0], row1 = m[i * 4 + 1], row2 = m[i * 4 + 2], row3 = m[i * 4 + 3];
        planes[0][i] = row3 + row0;
        planes[1][i] = row3 - row0;
        planes[2][i] = row3 + row1;
        planes[3][i] = row3 - row1;
        planes[4][i] = near_plane ? row3 - row2 : row2;
    }
}

/* Whether the sphere at `c` (relative to the view's origin) of radius `radius` lies wholly outside one of
 * the camera view's frustum planes. */
static bool sphere_outside(const double planes[5][4], orr_vec3d c, double radius)
{
    for (int p = 0; p < 5; p++) {
        const double *q = planes[p];
        double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (len > 0 && q[0] * c.x + q[1] * c.y + q[2] * c.z + q[3] < -radius * len) return true;
    }
    return false;
}

/* The faces of a point light's cube (bit f: face f) that may hold a surface the camera view sees lit by
 * it: with a range, a face whose frustum out to the range lies wholly outside one of the view's frustum
 * planes holds none (the light reaches nothing past its range), nor does any when the range's sphere
 * does; without a range, all six. `at` is the light relative to the view's origin. */
static uint32_t seen_faces(const shadow_light *l, const double planes[5][4], orr_vec3d at, double face_tan)
{
    if (!(l->range > 0)) return 0x3fu;
    if (sphere_outside(planes, at, l->range)) return 0;
    uint32_t faces = 0;
    for (uint32_t face = 0; face < 6; face++) {
        orr_vec3d right, up, back;
        light_basis(CUBE_AXES[face], &right, &up, &back);
        double side = l->range * face_tan;
        orr_vec3d centre = add3(at, scale3(CUBE_AXES[face], l->range)), corners[5] = {at};
        for (int k = 0; k < 4; k++)
            corners[k + 1] = add3(centre, add3(scale3(right, k & 1 ? side : -side), scale3(up, k & 2 ? side : -side)));
        bool outside = false;
        for (int p = 0; p < 5 && !outside; p++) {
            const double *q = planes[p];
            outside = true;
            for (int k = 0; k < 5 && outside; k++)
                outside = q[0] * corners[k].x + q[1] * corners[k].y + q[2] * corners[k].z + q[3] < 0;
        }
        if (!outside) faces |= 1u << face;
    }
    return faces;
}

/* Cascade k's matrix, cull planes and texel for the slice [dn, df] of the camera, light `dir`. */
/* The sphere round the camera's slice [dn, df]: its centre's depth along the camera's axis and its
 * radius (the smallest sphere through the slice's corners with its centre on the axis). */
static void slice_sphere(const camera_shape *cs, double dn, double df, double *z, double *radius)
{
    if (cs->ortho) {
        *z = 0.5 * (dn + df);
        *radius = sqrt(0.25 * (df - dn) * (df - dn) + cs->hx * cs->hx + cs->hy * cs->hy);
        return;
    }
    double k2 = cs->hx * cs->hx + cs->hy * cs->hy;
    *z = 0.5 * (1.0 + k2) * (dn + df);
    if (*z > df) {
        *z = df;
        *radius = df * sqrt(k2);
    } else {
        *radius = sqrt((df - *z) * (df - *z) + df * df * k2);
    }
}

static void fit_cascade(const camera_shape *cs, orr_vec3d origin, orr_vec3d dir, double dn, double df, uint32_t size,
                        bool clamp, orr_mat4d *clip, double *texel)
{
    double z, radius;
    slice_sphere(cs, dn, df, &z, &radius);
    radius = ceil(radius * 16.0) / 16.0; /* a size that rounding cannot wobble */
    double t = 2.0 * radius / size;
    *texel = t;
    orr_vec3d right, up, back;
    light_basis(dir, &right, &up, &back);
    /* Snap to the texel grid of the light's plane anchored at the origin rounded to ORR_SHADOW_ANCHOR,
     * in binary64: the grid stays put in the world while the camera moves. */
    orr_vec3d anchor = {round(origin.x / ORR_SHADOW_ANCHOR) * ORR_SHADOW_ANCHOR,
                        round(origin.y / ORR_SHADOW_ANCHOR) * ORR_SHADOW_ANCHOR,
                        round(origin.z / ORR_SHADOW_ANCHOR) * ORR_SHADOW_ANCHOR};
    orr_vec3d to_anchor = orr_vec3d_sub(anchor, origin); /* anchor relative to the origin */
    orr_vec3d centre = scale3(cs->forward, z);           /* relative to the origin */
    orr_vec3d q = orr_vec3d_sub(centre, to_anchor);      /* relative to the anchor */
    double sx = floor(dot3(q, right) / t + 0.5) * t, sy = floor(dot3(q, up) / t + 0.5) * t, sz = dot3(q, back);
    orr_vec3d c = add3(to_anchor, add3(add3(scale3(right, sx), scale3(up, sy)), scale3(back, sz)));
    orr_mat4d view;
    orr_mat4d_identity(&view);
    const orr_vec3d rows[3] = {right, up, back};
    for (int i = 0; i < 3; i++) {
        view.m[0 * 4 + i] = rows[i].x;
        view.m[1 * 4 + i] = rows[i].y;
        view.m[2 * 4 + i] = rows[i].z;
        view.m[3 * 4 + i] = -dot3(rows[i], c);
    }
    double zmin = -radius, zmax = clamp ? radius : radius * (1.0 + REACH_RADII);
    orr_mat4d proj;
    memset(&proj, 0, sizeof proj);
    proj.m[0] = 1.0 / radius;
    proj.m[5] = 1.0 / radius;
    proj.m[10] = 1.0 / (zmax - zmin); /* depth 1 nearest the light */
    proj.m[14] = -zmin / (zmax - zmin);
    proj.m[15] = 1.0;
    orr_mat4d_mul(&proj, &view, clip);
}

/* A point light far from what the view can see of its shadows (the camera's frustum out to the shadow
 * distance, [zn, zf], inside a sphere that subtends less than FOCUS_HALF_ANGLE from the light): one
 * perspective map from the light over that sphere (a few texels wider for the filter), in place of the
 * cube, into *clip; false (the cube) when the light is nearer. A cube spreads its texels over every
 * direction round the light, but a light far from the view sees all of it in a narrow cone: the map
 * fitted to that cone puts every texel where the view may receive a shadow (as cascades are fitted to
 * the camera), which is what a sun lighting planets and moons millions of metres across, 1e11 m away,
 * needs (a cube face of 2048 texels is 7e8 m a texel at Jupiter's distance; the fitted map, for a
 * view a few 1e9 m deep, 1e6 m). */
static bool fit_point_focus(const shadow_light *l, const camera_shape *cs, orr_vec3d origin, double zn, double zf,
                            uint32_t size, uint32_t margin, orr_mat4d *clip, double *texel_per_m)
{
    double z, radius;
    slice_sphere(cs, zn, zf, &z, &radius);
    orr_vec3d to = orr_vec3d_sub(scale3(cs->forward, z), orr_vec3d_sub(l->at, origin)); /* light -> centre */
    double d = orr_vec3d_length(to);
    if (!(radius > 0) || !(d * sin(FOCUS_HALF_ANGLE) > radius)) return false;
    double half = atan(tan(asin(radius / d)) * cube_face_tan(size, margin));
    fit_perspective(l->at, scale3(to, 1.0 / d), half, far_of(l->range), origin, size, clip, texel_per_m);
    return true;
}

/* The slice ends: split scheme between near and far. */
static double split_at(orr_shadow_split scheme, double n, double f, uint32_t i, uint32_t count)
{
    double u = n + (f - n) * i / count, l = n * pow(f / n, (double)i / count);
    double lambda = scheme == ORR_SHADOW_SPLIT_UNIFORM ? 0.0 : scheme == ORR_SHADOW_SPLIT_LOGARITHMIC ? 1.0 : PRACTICAL_LAMBDA;
    return lambda * l + (1.0 - lambda) * u;
}

/* Layer sh->count: a shadow view of camera view `view` (block g, its frame's) through `clip`, its receiver
 * record, its block and its cull (cull planes from the matrix in binary64: x and y within -1..1; a
 * cascade's depth >= 0 (the side towards the light stays open: casters there are clamped or reached), a
 * ranged light's too (its far plane: casters past its range cast on nothing it lights), an unranged
 * perspective map's near plane (depth <= 1)). */
static void add_view(orr_renderer *r, uint32_t view, const orri_view_frame *vf, const orr_mat4d *clip, bool near_plane,
                     double depth_end, double texel, uint64_t *stage)
{
    orri_shadows *sh = &r->shadows;
    const orri_view *v = &r->views[view];
    orri_shadow_view *sv = &sh->views[sh->count];
    const orr_gpu_view *g = &vf->gpu;
    memset(sv, 0, sizeof *sv);
    sv->view = view;
    sv->layer = sh->count++;
    sv->draws = v->draws;
    for (int i = 0; i < 16; i++) sv->receiver.matrix[i] = (float)clip->m[i];
    sv->receiver.depth_end = (float)depth_end;
    sv->receiver.texel = (float)texel;
    sv->receiver.layer = sv->layer;
    orr_gpu_view *b = &sv->gpu;
    orr_mat4d identity; /* the block's view is identity, its projection the layer's matrix */
    orr_mat4d_identity(&identity);
    for (int i = 0; i < 16; i++) {
        b->view[i] = (float)identity.m[i];
        b->proj[i] = sv->receiver.matrix[i];
    }
    memcpy(b->origin_hi, g->origin_hi, sizeof b->origin_hi);
    memcpy(b->origin_lo, g->origin_lo, sizeof b->origin_lo);
    orr_gpu_cull *cb = &sv->cull;
    double planes[5][4];
    frustum_planes(clip, near_plane, planes);
    for (int p = 0; p < 5; p++)
        for (int i = 0; i < 4; i++) cb->planes[p][i] = (float)planes[p][i];
    memcpy(cb->origin_hi, g->origin_hi, sizeof cb->origin_hi);
    memcpy(cb->origin_lo, g->origin_lo, sizeof cb->origin_lo);
    const orr_draw_scene *sc = &v->draws->scene;
    uint32_t items = sc->pass_items[ORR_PASS_TRANSPARENT];
    cb->sizes[0] = items;
    cb->sizes[1] = sc->pass_batches[ORR_PASS_TRANSPARENT];
    cb->sizes[2] = (items + ORR_GPU_CULL_BLOCK - 1) / ORR_GPU_CULL_BLOCK;
    cb->sizes[3] = v->desc.layer_mask ? v->desc.layer_mask : ORR_LAYERS_ALL;
    cb->extra[2] = ORR_GPU_INSTANCE_CASTS_SHADOWS;
    orri_draws_lod_block(&vf->draw, cb->lod); /* the camera's levels: its origin is the block's too */
    *stage += sizeof(orr_gpu_view) + sizeof(orr_gpu_cull) + sizeof(orr_gpu_shadow) + 2 * r->frame_align;
}

orr_result orri_shadows_plan(orr_renderer *r, const uint32_t *views, uint32_t view_count, orri_view_frame *frames,
                             const orr_snapshot *s, uint64_t *stage)
{
    orri_shadows *sh = &r->shadows;
    sh->count = sh->light_count = sh->over = 0;
    uint32_t size = 0, max_layers = r->properties.limits.maxImageArrayLayers;
    for (uint32_t k = 0; k < view_count; k++) {
        orri_view *v = &r->views[views[k]];
        const orr_shadow_settings *set = &v->desc.shadows;
        orr_gpu_view *g = &frames[k].gpu;
        memset(g->shadow_params, 0, sizeof g->shadow_params);
        if (!set->enabled) continue;
        shadow_light lights[ORR_SHADOW_MAX_LIGHTS];
        uint32_t cap = set->max_lights ? set->max_lights : DEFAULT_MAX_LIGHTS;
        uint32_t all = shadowed_lights(&v->desc, s, lights, cap), n = all < cap ? all : cap;
        sh->over += all - n;
        if (!n) continue;
        uint32_t map = set->map_size ? set->map_size : DEFAULT_MAP_SIZE;
        if (size && map != size) /* one map: the first view's size wins (documented) */
            map = size;
        size = map;
        uint32_t cascades = set->cascades ? set->cascades : DEFAULT_CASCADES, taps = set->pcf ? set->pcf : DEFAULT_PCF;
        camera_shape cs = shape_of(&frames[k], orri_view_snapshot_camera(v, s));
        double zn = cs.znear > 0 ? cs.znear : 0.05, zf = set->distance > 0 ? set->distance : DEFAULT_DISTANCE;
        if (cs.zfar > 0 && cs.zfar < zf) zf = cs.zfar;
        g->shadow_params[0] = set->depth_bias > 0 ? set->depth_bias : DEFAULT_DEPTH_BIAS;
        g->shadow_params[1] = set->normal_offset > 0 ? set->normal_offset : DEFAULT_NORMAL_OFFSET;
        g->shadow_params[2] = 1.0f / (float)map;
        g->shadow_params[3] = (float)taps;
        orr_vec3d origin = frames[k].draw.origin;
        double face_tan = cube_face_tan(map, taps / 2 + 2); /* the filter's reach, its 2x2 footprint, the offsets */
        double camera[5][4]; /* the camera's frustum relative to its origin */
        orr_mat4d camera_clip;
        orr_mat4d_mul(&frames[k].draw.proj, &frames[k].draw.view, &camera_clip);
        frustum_planes(&camera_clip, true, camera);
        for (uint32_t i = 0; i < n; i++) {
            const shadow_light *light = &lights[i];
            orr_vec3d at = orr_vec3d_sub(light->at, origin);
            orr_mat4d focus;
            double focus_texel = 0;
            bool focused = light->type == ORR_LIGHT_POINT &&
                           fit_point_focus(light, &cs, origin, zn, zf, map, taps / 2 + 2, &focus, &focus_texel);
            uint32_t faces = light->type == ORR_LIGHT_POINT && !focused ? seen_faces(light, camera, at, face_tan) : 0;
            uint32_t layers = light->type == ORR_LIGHT_DIRECTIONAL   ? cascades
                              : light->type == ORR_LIGHT_SPOT || focused ? 1u
                                                                         : (uint32_t)__builtin_popcount(faces);
            if (light->type == ORR_LIGHT_DIRECTIONAL && !(zf > zn)) continue; /* no depth range to cover */
            /* a ranged light that reaches nothing the view sees: no map (and no shadow to cast) */
            if (!layers ||
                (light->type != ORR_LIGHT_DIRECTIONAL && light->range > 0 && sphere_outside(camera, at, light->range)))
                continue;
            if (sh->count + layers > max_layers) { /* the device's array holds no more: the rest unshadowed */
                sh->over += n - i;
                break;
            }
            if (!ORRI_GROW(&r->allocator, sh->views, sh->capacity, sh->count + layers) ||
                !ORRI_GROW(&r->allocator, sh->lights, sh->light_capacity, sh->light_count + 1))
                return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for shadow views");
            sh->lights[sh->light_count++] = (orri_shadow_light){.frame_view = k, .light = light->index,
                                                                 .first = sh->count, .count = layers, .faces = faces};
            double dn = zn;
            for (uint32_t c = 0, face = 0; c < layers; c++, face++) {
                orr_mat4d clip;
                double texel = 0, df = 0;
                if (light->type == ORR_LIGHT_DIRECTIONAL) {
                    df = c + 1 == layers ? zf : split_at(set->split, zn, zf, c + 1, layers);
                    fit_cascade(&cs, origin, light->dir, dn, df, map, sh->depth_clamp, &clip, &texel);
                    dn = df;
                } else if (light->type == ORR_LIGHT_SPOT) {
                    fit_spot(light, origin, map, &clip, &texel);
                } else if (focused) {
                    clip = focus;
                    texel = focus_texel;
                } else {
                    while (!(faces & (1u << face))) face++; /* the next face that holds something seen */
                    fit_cube_face(light, face, origin, map, taps / 2 + 2, &clip, &texel);
                }
                bool near_plane = light->type != ORR_LIGHT_DIRECTIONAL && !(far_of(light->range) > 0);
                add_view(r, views[k], &frames[k], &clip, near_plane, df, texel, stage);
                orri_shadow_view *sv = &sh->views[sh->count - 1]; /* for debug drawing */
                sv->clip = clip;
                sv->origin = origin;
                sv->cascade = light->type == ORR_LIGHT_POINT ? face : c;
            }
            /* the light's records (beside the view's lights): a point light's six, its faces left out too */
            *stage += r->frame_align + (faces ? (6u - layers) * sizeof(orr_gpu_shadow) : 0u);
        }
    }
    if (sh->count && !sh->pipeline)
        ORRI_TRY(orri_pipeline_create(r, 0, VK_SAMPLE_COUNT_1_BIT, (orri_pipeline_variant){.depth_only = true},
                                      &sh->pipeline));
    if (!sh->mask_pipeline) /* (a loop over the frame's few shadow views) */
        for (uint32_t i = 0; i < sh->count; i++) {
            const orr_draw_scene *sc = &sh->views[i].draws->scene;
            if (sc->pass_batches[ORR_PASS_CUTOUT + 1] == sc->pass_batches[ORR_PASS_CUTOUT]) continue;
            ORRI_TRY(orri_pipeline_create(r, 0, VK_SAMPLE_COUNT_1_BIT,
                                          (orri_pipeline_variant){.depth_only = true, .shadow_mask = true},
                                          &sh->mask_pipeline));
            break;
        }
    return ensure_map(r, size ? size : 1, sh->count ? sh->count : 1);
}

orr_result orri_shadows_write_lights(orr_renderer *r, orri_frame *f, uint32_t frame_view, VkDeviceSize lights_at)
{
    const orri_shadows *sh = &r->shadows;
    /* the lights are in frame-view order: this view's are a run of them (a loop over a view's few lights) */
    uint32_t first = 0;
    while (first < sh->light_count && sh->lights[first].frame_view < frame_view) first++;
    uint32_t end = first, records = 0;
    for (; end < sh->light_count && sh->lights[end].frame_view == frame_view; end++)
        records += sh->lights[end].faces ? 6u : sh->lights[end].count;
    if (!records) return ORR_OK;
    VkDeviceSize at;
    ORRI_TRY(orri_frame_alloc(r, f, (VkDeviceSize)records * sizeof(orr_gpu_shadow), &at));
    orr_gpu_shadow *out = (orr_gpu_shadow *)((uint8_t *)f->data.map + at);
    orr_gpu_light *lights = (orr_gpu_light *)((uint8_t *)f->data.map + lights_at);
    uint32_t row = (uint32_t)(at / 16);
    for (uint32_t i = first; i < end; i++) {
        const orri_shadow_light *sl = &sh->lights[i];
        uint32_t n = sl->faces ? 6u : sl->count, view = sl->first;
        lights[sl->light].shadow = row + 1;
        lights[sl->light].shadow_count = n;
        /* a point light's face left out: a zero record, which shade.glsl reads as lit (w = 0) */
        for (uint32_t c = 0; c < n; c++)
            *out++ = !sl->faces || (sl->faces & (1u << c)) ? sh->views[view++].receiver : (orr_gpu_shadow){0};
        row += n * ORR_GPU_SHADOW_ROWS;
    }
    return ORR_OK;
}

orr_result orri_shadows_upload(orr_renderer *r, orri_frame *f)
{
    orri_shadows *sh = &r->shadows;
    f->shadow_counts = sh->count;
    sh->counts_at = 0;
    if (sh->count) {
        ORRI_TRY(orri_frame_alloc(r, f, (VkDeviceSize)sh->count * 4u, &sh->counts_at));
        memset((uint8_t *)f->data.map + sh->counts_at, 0, (size_t)sh->count * 4u);
    }
    f->shadow_counts_at = sh->counts_at;
    for (uint32_t i = 0; i < sh->count; i++) {
        orri_shadow_view *sv = &sh->views[i];
        orr_gpu_cull *cb = &sv->cull;
        uint32_t w = (uint32_t)(sv->words_at / 4), blocks = cb->sizes[2];
        cb->scene[0] = sv->draws->item_base;
        cb->scene[1] = sv->draws->batch_base;
        cb->regions[0] = w;
        cb->regions[1] = w + blocks * ORR_GPU_CULL_WORDS;
        cb->regions[2] = (uint32_t)(sv->records_at / sizeof(orr_gpu_record));
        cb->regions[3] = (uint32_t)(sv->commands_at / 4);
        cb->extra[0] = w + blocks * (ORR_GPU_CULL_WORDS + 1u);
        cb->extra[1] = w + blocks * (ORR_GPU_CULL_WORDS + 1u) + 1u;
        const orri_view *cam = &r->views[sv->view]; /* out of its camera's range: no shadow either */
        cb->extra[3] = cam->ranged ? (uint32_t)(cam->range_at / 4) + 1u : 0u;
        sv->gpu.params[0] = (uint32_t)(sv->records_at / sizeof(orr_gpu_record));
        ORRI_TRY(orri_frame_alloc(r, f, sizeof(orr_gpu_view), &sv->ubo_offset));
        memcpy((uint8_t *)f->data.map + sv->ubo_offset, &sv->gpu, sizeof sv->gpu);
        ORRI_TRY(orri_frame_alloc(r, f, sizeof(orr_gpu_cull), &sv->cull_offset));
        memcpy((uint8_t *)f->data.map + sv->cull_offset, cb, sizeof *cb);
    }
    return ORR_OK;
}

static void map_barrier(VkCommandBuffer cmd, VkImage image, uint32_t layers, VkPipelineStageFlags2 src_stage,
                        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                        VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, layers},
    };
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

/* Commands [first, end) of shadow view sv: one multi-draw indirect, or a call each without it. */
static void draw_commands(const orr_renderer *r, VkCommandBuffer cmd, const orri_shadow_view *sv, uint32_t first,
                          uint32_t end, uint32_t *calls)
{
    const VkDeviceSize stride = sizeof(VkDrawIndexedIndirectCommand);
    if (first >= end) return;
    if (r->multi_draw_indirect) {
        vkCmdDrawIndexedIndirect(cmd, r->view_data.buffer, sv->commands_at + first * stride, end - first,
                                 (uint32_t)stride);
        (*calls)++;
        return;
    }
    for (uint32_t b = first; b < end; b++, (*calls)++)
        vkCmdDrawIndexedIndirect(cmd, r->view_data.buffer, sv->commands_at + b * stride, 1, (uint32_t)stride);
}

/* Shadow view sv's casters: the opaque and custom passes' batches depth only, then the cut-out pass's
 * with the mask pipeline (their materials' textures bound: a set per run of one material's batches, or
 * the texture array once), so that only their uncut fragments cast. */
static void draw_casters(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const orri_shadow_view *sv, uint32_t *calls)
{
    const orri_shadows *sh = &r->shadows;
    const orr_draw_scene *sc = &sv->draws->scene;
    uint32_t batches = sv->cull.sizes[1];
    uint32_t cut = sc->pass_batches[ORR_PASS_CUTOUT], cut_end = sc->pass_batches[ORR_PASS_CUTOUT + 1];
    if (cut_end > batches) cut_end = batches;
    if (cut > cut_end) cut = cut_end;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, sh->pipeline);
    if (cut == cut_end) { /* no cut-out batch: one draw of them all */
        draw_commands(r, cmd, sv, 0, batches, calls);
        return;
    }
    draw_commands(r, cmd, sv, 0, cut, calls);
    draw_commands(r, cmd, sv, cut_end, batches, calls);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, sh->mask_pipeline);
    if (r->textures.array) {
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 1, 1,
                                &r->textures.frame_sets[f - r->frames], 0, NULL);
        draw_commands(r, cmd, sv, cut, cut_end, calls);
        return;
    }
    const orri_batch_state *state = sv->draws->state;
    for (uint32_t b = cut, e; b < cut_end; b = e) { /* runs of one material's set */
        for (e = b + 1; e < cut_end && state[e].texture == state[b].texture;) e++;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 1, 1, &state[b].texture, 0,
                                NULL);
        draw_commands(r, cmd, sv, b, e, calls);
    }
}

void orri_shadows_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t *calls)
{
    orri_shadows *sh = &r->shadows;
    VkPipelineStageFlags2 tests = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    if (!sh->count) {
        /* No shadow view: the forward passes still bind the map (they sample none of it). It is cleared
         * once after it is made, so that it is never read undefined; after that it stays read-only. */
        if (sh->defined) return;
        map_barrier(cmd, sh->map.image, sh->layers, VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                    VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        VkImageSubresourceRange all = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, sh->layers};
        vkCmdClearDepthStencilImage(cmd, sh->map.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    &(VkClearDepthStencilValue){0.0f, 0}, 1, &all);
        map_barrier(cmd, sh->map.image, sh->layers, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT,
                    VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL);
        sh->defined = true;
        return;
    }
    /* The fragment shader reads of the frame before are done before the map is drawn again (the
     * previous contents are not kept: each layer is cleared as it is drawn). */
    map_barrier(cmd, sh->map.image, sh->layers, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, 0, tests,
                VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
    /* what the cull drew into each, for the stats once the frame completed (its total: the uint after
     * its block counts) */
    for (uint32_t i = 0; i < sh->count; i++) {
        const orri_shadow_view *sv = &sh->views[i];
        VkBufferCopy region = {sv->words_at + (VkDeviceSize)sv->cull.sizes[2] * (ORR_GPU_CULL_WORDS + 1u) * 4u,
                               sh->counts_at + 4u * i, 4};
        vkCmdCopyBuffer(cmd, r->view_data.buffer, f->data.buffer, 1, &region);
    }
    /* (the frame buffer holds the blocks and records that the draws after read too) */
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                        VK_ACCESS_2_HOST_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT);
    VkDeviceSize zero = 0;
    for (uint32_t i = 0; i < sh->count; i++) {
        const orri_shadow_view *sv = &sh->views[i];
        VkRenderingAttachmentInfo depth = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageView = sh->layer_views[sv->layer],
            .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
            .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
            .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
            .clearValue = {.depthStencil = {0.0f, 0}}, /* nothing: farthest from the light */
        };
        VkRect2D area = {{0, 0}, {sh->size, sh->size}};
        VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = area, .layerCount = 1,
                              .pDepthAttachment = &depth};
        vkCmdBeginRendering(cmd, &ri);
        VkViewport viewport = {0.0f, 0.0f, (float)sh->size, (float)sh->size, 0.0f, 1.0f};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &area);
        vkCmdSetCullMode(cmd, VK_CULL_MODE_NONE);
        vkCmdBindVertexBuffers(cmd, 0, 1, &r->geometry.vertices.buffer, &zero);
        vkCmdBindIndexBuffer(cmd, r->geometry.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        uint32_t dyn = (uint32_t)sv->ubo_offset;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 0, 1, &f->set, 1, &dyn);
        draw_casters(r, cmd, f, sv, calls);
        vkCmdEndRendering(cmd);
    }
    map_barrier(cmd, sh->map.image, sh->layers, tests, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT,
                VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL);
    sh->defined = true;
}

void orri_shadows_completed(orr_renderer *r, const orri_frame *f)
{
    if (f->frame_number < r->shadows.casters_frame) return; /* a later frame's are known */
    const uint32_t *counts = (const uint32_t *)((const uint8_t *)f->data.map + f->shadow_counts_at);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < f->shadow_counts; i++) sum += counts[i];
    r->shadows.casters = sum;
    r->shadows.casters_frame = f->frame_number;
}
