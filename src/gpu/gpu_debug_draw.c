/* Debug drawing (include/orrery/debug_draw.h). The host's lines are kept in binary64 until a frame is
 * planned; then, per view of the frame's target, every line (the host's, then each visible instance's
 * bounds and the other views' frusta when asked) is made relative to the view's origin in binary64 and
 * rounded into the frame slot's host-visible vertex buffer, depth-tested lines first. Inside the view's
 * rendering, after its passes, two draws of a line-list pipeline (per sample count; the depth test a
 * dynamic state) with the view's rotation and projection as one float matrix. */
#include "gpu/gpu_debug_draw.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"

#include <orrery/debug_draw.h>

#include <math.h>
#include <string.h>

extern const uint32_t orri_spv_debug_line_vert[];
extern const size_t orri_spv_debug_line_vert_size;
extern const uint32_t orri_spv_debug_line_frag[];
extern const size_t orri_spv_debug_line_frag_size;

#define VERTEX_BYTES 16u /* float position[3] relative to the view origin, RGBA8 unorm colour */

typedef struct dd_line {
    orr_vec3d a, b;
    uint32_t rgba; /* RGBA8 unorm, R in the low byte */
    bool depth_test;
} dd_line;

typedef struct dd_view { /* one view of the frame being made */
    uint32_t view;       /* index */
    VkDeviceSize offset; /* its vertices in the slot's buffer */
    uint32_t lines;      /* the region's: depth-tested lines from its start, the others at its end */
    uint32_t tested, untested;
    float view_proj[16];
} dd_view;

typedef struct orri_debug {
    dd_line *lines;
    uint32_t count, capacity;
    uint32_t flags;
    orri_buffer vertices[ORRI_FRAMES_IN_FLIGHT];
    dd_view *views;
    uint32_t view_count, view_capacity;
    bool planned;
    VkPipelineLayout layout;
    VkPipeline pipelines[ORRI_SAMPLE_COUNTS]; /* by log2 of the sample count */
} orri_debug;

/* ---- the host's list ---- */

static orri_debug *debug_of(orr_renderer *r)
{
    if (!r->debug) r->debug = orri_alloc(&r->allocator, sizeof *r->debug);
    return r->debug;
}

static uint32_t pack(const float c[4])
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        float x = c[k] != c[k] ? 0.0f : c[k] < 0.0f ? 0.0f : c[k] > 1.0f ? 1.0f : c[k];
        v |= (uint32_t)lrintf(x * 255.0f) << (8 * k);
    }
    return v;
}

/* Room for `n` more lines: false (and an error set) past the cap or out of memory. */
static orr_result reserve(orr_renderer *r, orri_debug *d, uint32_t n, const char *fn)
{
    if (!d) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    if ((uint64_t)d->count + n > ORR_DEBUG_MAX_LINES)
        return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "%s: %u lines this frame already (ORR_DEBUG_MAX_LINES is %u)", fn,
                             d->count, ORR_DEBUG_MAX_LINES);
    if (!ORRI_GROW(&r->allocator, d->lines, d->capacity, d->count + n))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %u lines", fn, d->count + n);
    return ORR_OK;
}

static void put(orri_debug *d, orr_vec3d a, orr_vec3d b, uint32_t rgba, bool depth_test)
{
    d->lines[d->count++] = (dd_line){a, b, rgba, depth_test};
}

static const orr_debug_style no_style = {{0, 0, 0, 0}, false};

orr_result orr_renderer_debug_line(orr_renderer *r, orr_vec3d a, orr_vec3d b, const orr_debug_style *style)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_debug_line: renderer is NULL");
    if (!style) style = &no_style;
    orri_debug *d = debug_of(r);
    ORRI_TRY(reserve(r, d, 1, "orr_renderer_debug_line"));
    put(d, a, b, pack(style->color), style->depth_test);
    return ORR_OK;
}

/* The 12 edges of the box whose corners are c[0..7] (bit 0: x max, bit 1: y max, bit 2: z max). */
static void put_box(orri_debug *d, const orr_vec3d c[8], uint32_t rgba, bool depth_test)
{
    for (uint32_t i = 0; i < 8; i++)
        for (uint32_t bit = 1; bit < 8; bit <<= 1)
            if (!(i & bit)) put(d, c[i], c[i | bit], rgba, depth_test);
}

static void box_corners(orr_aabbd box, const orr_mat4d *m, orr_vec3d c[8])
{
    for (uint32_t i = 0; i < 8; i++) {
        orr_vec3d p = {i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z};
        c[i] = m ? orr_mat4d_transform_point(m, p) : p;
    }
}

orr_result orr_renderer_debug_box(orr_renderer *r, orr_aabbd box, const orr_mat4d *transform,
                                  const orr_debug_style *style)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_debug_box: renderer is NULL");
    if (!style) style = &no_style;
    orri_debug *d = debug_of(r);
    ORRI_TRY(reserve(r, d, 12, "orr_renderer_debug_box"));
    orr_vec3d c[8];
    box_corners(box, transform, c);
    put_box(d, c, pack(style->color), style->depth_test);
    return ORR_OK;
}

orr_result orr_renderer_debug_sphere(orr_renderer *r, orr_vec3d centre, double radius, const orr_debug_style *style)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_debug_sphere: renderer is NULL");
    if (!style) style = &no_style;
    orri_debug *d = debug_of(r);
    ORRI_TRY(reserve(r, d, 3 * ORR_DEBUG_SPHERE_SEGMENTS, "orr_renderer_debug_sphere"));
    uint32_t rgba = pack(style->color);
    for (int plane = 0; plane < 3; plane++)
        for (uint32_t s = 0; s < ORR_DEBUG_SPHERE_SEGMENTS; s++) {
            double t0 = 2.0 * ORR_PI * s / ORR_DEBUG_SPHERE_SEGMENTS, t1 = 2.0 * ORR_PI * (s + 1) / ORR_DEBUG_SPHERE_SEGMENTS;
            double u0 = radius * cos(t0), v0 = radius * sin(t0), u1 = radius * cos(t1), v1 = radius * sin(t1);
            orr_vec3d a = centre, b = centre;
            if (plane == 0) a.x += u0, a.y += v0, b.x += u1, b.y += v1;
            else if (plane == 1) a.y += u0, a.z += v0, b.y += u1, b.z += v1;
            else a.z += u0, a.x += v0, b.z += u1, b.x += v1;
            put(d, a, b, rgba, style->depth_test);
        }
    return ORR_OK;
}

orr_result orr_renderer_debug_frustum(orr_renderer *r, const orr_mat4d *pose, double yfov, double aspect, double znear,
                                      double zfar, const orr_debug_style *style)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_debug_frustum: renderer is NULL");
    ORRI_REQUIRE(pose, &r->error, "orr_renderer_debug_frustum: pose must not be NULL");
    if (!style) style = &no_style;
    if (!(yfov > 0 && yfov < ORR_PI && aspect > 0 && znear > 0 && zfar > znear))
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_debug_frustum: needs 0 < yfov < pi, aspect > 0 and 0 < znear < zfar "
                             "(got %g, %g, %g, %g)", yfov, aspect, znear, zfar);
    orri_debug *d = debug_of(r);
    ORRI_TRY(reserve(r, d, 12, "orr_renderer_debug_frustum"));
    orr_vec3d c[8];
    double t = tan(yfov * 0.5);
    for (uint32_t i = 0; i < 8; i++) {
        double z = i & 4 ? zfar : znear, y = z * t, x = y * aspect;
        c[i] = orr_mat4d_transform_point(pose, (orr_vec3d){i & 1 ? x : -x, i & 2 ? y : -y, -z});
    }
    put_box(d, c, pack(style->color), style->depth_test);
    return ORR_OK;
}

orr_result orr_renderer_debug_axes(orr_renderer *r, const orr_mat4d *pose, double length, const orr_debug_style *style)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_debug_axes: renderer is NULL");
    ORRI_REQUIRE(pose, &r->error, "orr_renderer_debug_axes: pose must not be NULL");
    if (!style) style = &no_style;
    orri_debug *d = debug_of(r);
    ORRI_TRY(reserve(r, d, 3, "orr_renderer_debug_axes"));
    static const float colors[3][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
    orr_vec3d o = orr_mat4d_transform_point(pose, (orr_vec3d){0, 0, 0});
    for (int k = 0; k < 3; k++) {
        orr_vec3d e = {k == 0 ? length : 0, k == 1 ? length : 0, k == 2 ? length : 0};
        put(d, o, orr_mat4d_transform_point(pose, e), pack(colors[k]), style->depth_test);
    }
    return ORR_OK;
}

void orr_renderer_set_debug_draw(orr_renderer *r, uint32_t flags)
{
    ORRI_ASSERT(r, "orr_renderer_set_debug_draw: renderer is NULL");
    orri_debug *d = flags || r->debug ? debug_of(r) : NULL;
    if (d) d->flags = flags;
}

uint32_t orr_renderer_debug_line_count(const orr_renderer *r) { return r && r->debug ? r->debug->count : 0; }

/* ---- the frame ---- */

void orri_debug_fini(orr_renderer *r)
{
    orri_debug *d = r->debug;
    if (!d) return;
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) orri_buffer_destroy(r, &d->vertices[i]);
    for (uint32_t i = 0; i < ORRI_SAMPLE_COUNTS; i++)
        if (d->pipelines[i]) vkDestroyPipeline(r->device, d->pipelines[i], NULL);
    if (d->layout) vkDestroyPipelineLayout(r->device, d->layout, NULL);
    orri_free(&r->allocator, d->lines, sizeof *d->lines * d->capacity);
    orri_free(&r->allocator, d->views, sizeof *d->views * d->view_capacity);
    orri_free(&r->allocator, d, sizeof *d);
    r->debug = NULL;
}

static orr_result ensure_pipeline(orr_renderer *r, orri_debug *d, VkSampleCountFlagBits samples)
{
    uint32_t k = orri_samples_index(samples);
    if (d->pipelines[k]) return ORR_OK;
    if (!d->layout) {
        VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, 64};
        VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
        ORRI_VK(r, vkCreatePipelineLayout(r->device, &li, NULL, &d->layout));
    }
    static const VkVertexInputAttributeDescription attrs[2] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                               {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 12}};
    VkFormat color = ORRI_COLOR_FORMAT;
    VkDynamicState depth_test = VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE;
    orri_graphics_desc desc = {
        .stages = {{.stage = VK_SHADER_STAGE_VERTEX_BIT, .code = orri_spv_debug_line_vert,
                    .size = orri_spv_debug_line_vert_size},
                   {.stage = VK_SHADER_STAGE_FRAGMENT_BIT, .code = orri_spv_debug_line_frag,
                    .size = orri_spv_debug_line_frag_size}},
        .stage_count = 2,
        .layout = d->layout,
        .vertex_stride = VERTEX_BYTES,
        .attributes = attrs,
        .attribute_count = 2,
        .topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
        .color_formats = &color,
        .color_count = 1,
        .depth_format = ORRI_DEPTH_FORMAT,
        .samples = samples,
        .depth_test = true, /* dynamic */
        .depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL,
        .blend = {ORRI_BLEND_OVER},
        .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .dynamic = &depth_test,
        .dynamic_count = 1,
    };
    return orri_graphics_pipeline(r, &desc, &d->pipelines[k], "debug draw pipeline (%u samples)", (unsigned)samples);
}

/* Writes lines into a view's region: depth-tested ones from the front, the others from the back. */
typedef struct writer {
    uint8_t *base;       /* the view's region */
    uint32_t front, back; /* lines written at each end */
    uint32_t total;      /* lines the region holds */
    orr_vec3d origin;
} writer;

static void vertex(uint8_t *at, orr_vec3d p, orr_vec3d origin, uint32_t rgba)
{
    float xyz[3] = {(float)(p.x - origin.x), (float)(p.y - origin.y), (float)(p.z - origin.z)};
    memcpy(at, xyz, sizeof xyz);
    memcpy(at + 12, &rgba, 4);
}

static void emit(writer *w, orr_vec3d a, orr_vec3d b, uint32_t rgba, bool depth_test)
{
    if (w->front + w->back >= w->total) return; /* the cap: dropped */
    uint32_t line = depth_test ? w->front++ : w->total - ++w->back;
    uint8_t *at = w->base + (size_t)line * 2 * VERTEX_BYTES;
    vertex(at, a, w->origin, rgba);
    vertex(at + VERTEX_BYTES, b, w->origin, rgba);
}

static const float BOUNDS_COLOR[4] = {1.0f, 0.85f, 0.1f, 1.0f};
static const float FRUSTA_COLOR[4] = {0.1f, 0.9f, 0.9f, 1.0f};
static const float CASCADE_COLORS[ORR_SHADOW_MAX_CASCADES][4] = {
    {1.0f, 0.15f, 0.15f, 1.0f}, {0.15f, 1.0f, 0.15f, 1.0f}, {0.25f, 0.35f, 1.0f, 1.0f}, {1.0f, 0.2f, 1.0f, 1.0f}};

/* The corners of the box that clip space x, y in -1..1 and depth z0..z1 (w 1) make through the inverse
 * of `clip` (its inverse `inv`), plus `origin`: bit 0 x, bit 1 y, bit 2 z1. */
static void clip_box(const orr_mat4d *inv, orr_vec3d origin, double z0, double z1, orr_vec3d c[8])
{
    for (uint32_t i = 0; i < 8; i++) {
        double ndc[4] = {i & 1 ? 1.0 : -1.0, i & 2 ? 1.0 : -1.0, i & 4 ? z1 : z0, 1.0};
        double e[4];
        for (int row = 0; row < 4; row++)
            e[row] = inv->m[row] * ndc[0] + inv->m[4 + row] * ndc[1] + inv->m[8 + row] * ndc[2] + inv->m[12 + row] * ndc[3];
        c[i] = (orr_vec3d){origin.x + e[0] / e[3], origin.y + e[1] / e[3], origin.z + e[2] / e[3]};
    }
}

static bool layers_in(uint32_t layers, uint32_t mask) { return !mask || (layers & mask) != 0; }

/* The built-in lines of a view (how many, and with `w`, written). */
static uint32_t builtin_lines(const orr_renderer *r, const orri_debug *d, const orri_view *v, uint32_t self,
                              const uint32_t *view_order, const orr_draw_view *cameras, uint32_t count,
                              const orr_snapshot *s, writer *w)
{
    uint32_t n = 0;
    if (d->flags & ORR_DEBUG_BOUNDS) {
        uint32_t rgba = pack(BOUNDS_COLOR);
        for (uint32_t i = 0; i < s->instance_count; i++) {
            const orr_render_instance *in = &s->instances[i];
            if (!in->visible || !layers_in(in->layers, v->desc.layer_mask) || in->bounds.min.x > in->bounds.max.x)
                continue;
            n += 12;
            if (!w) continue;
            orr_mat4d m;
            orr_affine3d_to_mat4d(&in->world, &m);
            orr_aabbd box = {{in->bounds.min.x, in->bounds.min.y, in->bounds.min.z},
                             {in->bounds.max.x, in->bounds.max.y, in->bounds.max.z}};
            orr_vec3d c[8];
            box_corners(box, &m, c);
            for (uint32_t a = 0; a < 8; a++)
                for (uint32_t bit = 1; bit < 8; bit <<= 1)
                    if (!(a & bit)) emit(w, c[a], c[a | bit], rgba, true);
        }
    }
    if (d->flags & ORR_DEBUG_FRUSTA) {
        uint32_t rgba = pack(FRUSTA_COLOR);
        for (uint32_t k = 0; k < count; k++) {
            const orri_view *o = &r->views[view_order[k]];
            if (view_order[k] == self || o->desc.target.index != v->desc.target.index) continue;
            n += 12;
            if (!w) continue;
            /* the frustum's corners: clip space through the inverse of proj x view, at the near plane
             * (z 1, reversed) and at 1000 x the near distance (z 0.001 of an infinite reversed
             * perspective) or the far plane (z 0, orthographic) */
            const orr_draw_view *cam = &cameras[k];
            orr_mat4d vp, inv;
            orr_mat4d_mul(&cam->proj, &cam->view, &vp);
            if (!orr_mat4d_inverse(&vp, &inv)) continue;
            bool perspective = cam->proj.m[11] != 0.0;
            orr_vec3d c[8];
            clip_box(&inv, cam->origin, 1.0, perspective ? 1e-3 : 0.0, c);
            for (uint32_t a = 0; a < 8; a++)
                for (uint32_t bit = 1; bit < 8; bit <<= 1)
                    if (!(a & bit)) emit(w, c[a], c[a | bit], rgba, true);
        }
    }
    if (d->flags & ORR_DEBUG_CASCADES) {
        /* the frame's shadow views of the target's views (planned before this): each cascade's box (its
         * map's clip space, depth 0..1, back to the world), a spot light's map to 1000 x its near
         * distance */
        for (uint32_t i = 0; i < r->shadows.count; i++) {
            const orri_shadow_view *sv = &r->shadows.views[i];
            if (r->views[sv->view].desc.target.index != v->desc.target.index) continue;
            n += 12;
            if (!w) continue;
            orr_mat4d inv;
            if (!orr_mat4d_inverse(&sv->clip, &inv)) continue;
            bool perspective = sv->clip.m[3] != 0.0 || sv->clip.m[7] != 0.0 || sv->clip.m[11] != 0.0;
            orr_vec3d c[8];
            clip_box(&inv, sv->origin, perspective ? 1.0 : 0.0, perspective ? 1e-3 : 1.0, c);
            uint32_t rgba = pack(CASCADE_COLORS[sv->cascade % ORR_SHADOW_MAX_CASCADES]);
            for (uint32_t a = 0; a < 8; a++)
                for (uint32_t bit = 1; bit < 8; bit <<= 1)
                    if (!(a & bit)) emit(w, c[a], c[a | bit], rgba, true);
        }
    }
    return n;
}

orr_result orri_debug_plan(orr_renderer *r, uint32_t slot, uint32_t target, const uint32_t *view_order,
                           const orr_draw_view *cameras, uint32_t count, const orr_snapshot *s)
{
    orri_debug *d = r->debug;
    if (d) d->planned = false;
    if (!d || (!d->count && !d->flags)) return ORR_OK;
    if (!ORRI_GROW(&r->allocator, d->views, d->view_capacity, count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for debug drawing");
    /* per view of the target: how many lines, and where */
    d->view_count = 0;
    VkDeviceSize bytes = 0;
    for (uint32_t k = 0; k < count; k++) {
        const orri_view *v = &r->views[view_order[k]];
        if (v->desc.target.index != target) continue;
        uint64_t n = (uint64_t)d->count + builtin_lines(r, d, v, view_order[k], view_order, cameras, count, s, NULL);
        if (n > ORR_DEBUG_MAX_LINES) n = ORR_DEBUG_MAX_LINES;
        if (!n) continue;
        dd_view *dv = &d->views[d->view_count++];
        *dv = (dd_view){.view = view_order[k], .offset = bytes, .lines = (uint32_t)n};
        bytes += n * 2 * VERTEX_BYTES;
    }
    if (!d->view_count) return ORR_OK;
    orri_buffer *buf = &d->vertices[slot];
    if (!buf->buffer || buf->size < bytes) { /* the slot's last frame has completed: nothing uses it */
        orri_buffer_destroy(r, buf);
        ORRI_TRY(orri_buffer_create(r, bytes + bytes / 2, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true, "debug lines", buf));
    }
    for (uint32_t j = 0; j < d->view_count; j++) {
        dd_view *dv = &d->views[j];
        const orri_view *v = &r->views[dv->view];
        uint32_t k = 0;
        while (view_order[k] != dv->view) k++;
        const orr_draw_view *cam = &cameras[k];
        ORRI_TRY(ensure_pipeline(r, d, v->samples));
        writer w = {.base = (uint8_t *)buf->map + dv->offset, .total = dv->lines, .origin = cam->origin};
        for (uint32_t i = 0; i < d->count; i++) emit(&w, d->lines[i].a, d->lines[i].b, d->lines[i].rgba, d->lines[i].depth_test);
        (void)builtin_lines(r, d, v, dv->view, view_order, cameras, count, s, &w);
        dv->tested = w.front;
        dv->untested = w.back;
        orr_mat4d vp;
        orr_mat4d_mul(&cam->proj, &cam->view, &vp);
        for (int e = 0; e < 16; e++) dv->view_proj[e] = (float)vp.m[e];
    }
    d->planned = true;
    return ORR_OK;
}

bool orri_debug_planned(const orr_renderer *r) { return r->debug && r->debug->planned; }

void orri_debug_record(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t view, uint32_t *draw_calls)
{
    orri_debug *d = r->debug;
    if (!d || !d->planned) return;
    const dd_view *dv = NULL;
    for (uint32_t j = 0; j < d->view_count && !dv; j++)
        if (d->views[j].view == view) dv = &d->views[j];
    if (!dv) return;
    const orri_view *v = &r->views[view];
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->pipelines[orri_samples_index(v->samples)]);
    vkCmdPushConstants(cmd, d->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof dv->view_proj, dv->view_proj);
    VkDeviceSize offset = dv->offset;
    vkCmdBindVertexBuffers(cmd, 0, 1, &d->vertices[slot].buffer, &offset);
    if (dv->tested) {
        vkCmdSetDepthTestEnable(cmd, VK_TRUE);
        vkCmdDraw(cmd, dv->tested * 2, 1, 0, 0);
        (*draw_calls)++;
    }
    if (dv->untested) {
        vkCmdSetDepthTestEnable(cmd, VK_FALSE);
        vkCmdDraw(cmd, dv->untested * 2, 1, (dv->lines - dv->untested) * 2, 0);
        (*draw_calls)++;
    }
}

void orri_debug_submitted(orr_renderer *r)
{
    orri_debug *d = r->debug;
    if (!d) return;
    d->count = 0;
    d->planned = false;
}
