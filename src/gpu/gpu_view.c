/* Per view and frame: where it draws on its target (its viewport scaled, letterboxed to a camera's
 * aspect) and its camera in binary64, then floats relative to its origin. */
#include "gpu/gpu_view.h"

#include <math.h>
#include <string.h>

#define DEFAULT_YFOV 0.8
#define DEFAULT_ZNEAR 0.05
/* orr_view_lighting's default sky: radiance from above and below */
#define DEFAULT_SKY 0.25f
#define DEFAULT_GROUND 0.08f

static const char *const strategy_names[ORR_STRATEGY_COUNT] = {"direct", "batched", "indirect", "shell", "meshlet"};
static const char *const cull_names[ORR_CULL_COUNT] = {"auto", "cpu", "gpu"};

const char *orr_strategy_name(orr_strategy strategy)
{
    return (unsigned)strategy < ORR_STRATEGY_COUNT ? strategy_names[strategy] : "unknown";
}

bool orr_strategy_parse(const char *name, orr_strategy *out)
{
    for (unsigned k = 0; name && k < ORR_STRATEGY_COUNT; k++)
        if (!strcmp(name, strategy_names[k])) return *out = (orr_strategy)k, true;
    return false;
}

const char *orr_cull_name(orr_cull cull)
{
    return (unsigned)cull < ORR_CULL_COUNT ? cull_names[cull] : "unknown";
}

bool orr_cull_parse(const char *name, orr_cull *out)
{
    for (unsigned k = 0; name && k < ORR_CULL_COUNT; k++)
        if (!strcmp(name, cull_names[k])) return *out = (orr_cull)k, true;
    return false;
}

/* The view's viewport on a target of w x h (its desc's, scaled from the size it was given for). */
orr_viewport orri_view_rect(const orri_view *v, uint32_t w, uint32_t h)
{
    orr_viewport vp = v->desc.viewport;
    if (!vp.width || !vp.height) return (orr_viewport){0, 0, w, h};
    if (w == v->base_width && h == v->base_height) return vp;
    uint64_t bw = v->base_width, bh = v->base_height;
    uint32_t x0 = (uint32_t)(vp.x * (uint64_t)w / bw), x1 = (uint32_t)((vp.x + (uint64_t)vp.width) * w / bw);
    uint32_t y0 = (uint32_t)(vp.y * (uint64_t)h / bh), y1 = (uint32_t)((vp.y + (uint64_t)vp.height) * h / bh);
    if (x0 >= w) x0 = w - 1;
    if (y0 >= h) y0 = h - 1;
    return (orr_viewport){x0, y0, x1 > x0 ? x1 - x0 : 1, y1 > y0 ? y1 - y0 : 1};
}

static bool mat_is_zero(const orr_mat4d *m)
{
    for (int i = 0; i < 16; i++)
        if (m->m[i] != 0.0) return false;
    return true;
}

static void perspective_or_ortho(const orr_render_camera *cam, double yfov, double aspect, double znear, orr_mat4d *proj)
{
    if (cam && cam->projection == ORR_ORTHOGRAPHIC && cam->ymag > 0) {
        /* Reversed-Z orthographic: depth 1 at near, 0 at far (a finite far is needed). */
        double n = cam->znear > 0 ? cam->znear : DEFAULT_ZNEAR;
        double f = cam->zfar > n ? cam->zfar : n + 1e6;
        double ymag = cam->ymag, xmag = ymag * aspect;
        memset(proj, 0, sizeof *proj);
        proj->m[0] = 1.0 / xmag;
        proj->m[5] = -1.0 / ymag;
        proj->m[10] = 1.0 / (f - n);
        proj->m[14] = f / (f - n);
        proj->m[15] = 1.0;
        return;
    }
    orr_mat4d_perspective_reversed_infinite(yfov, aspect, znear, proj);
}

/* The snapshot camera a view looks through, or NULL. */
const orr_render_camera *orri_view_snapshot_camera(const orri_view *v, const orr_snapshot *s)
{
    if (orr_id_is_none(v->desc.camera)) return NULL;
    for (uint32_t i = 0; i < s->camera_count; i++)
        if (orr_entity_eq(s->cameras[i].entity, v->desc.camera)) return &s->cameras[i];
    return NULL;
}

/* The aspect ratio a snapshot camera fixes (glTF aspectRatio, or xmag / ymag), or 0. */
double orri_view_camera_aspect(const orr_render_camera *cam)
{
    if (!cam) return 0.0;
    if (cam->projection == ORR_ORTHOGRAPHIC) return cam->ymag > 0 && cam->xmag > 0 ? cam->xmag / cam->ymag : 0.0;
    return cam->aspect > 0 && isfinite(cam->aspect) ? cam->aspect : 0.0;
}

/* The largest rectangle of `aspect` centred in `vp` (vp itself when aspect is 0). */
orr_viewport orri_view_letterbox(orr_viewport vp, double aspect)
{
    if (!(aspect > 0)) return vp;
    double w = vp.width, h = vp.height;
    if (w / h > aspect) w = h * aspect;
    else h = w / aspect;
    uint32_t iw = (uint32_t)(w + 0.5), ih = (uint32_t)(h + 0.5);
    if (iw < 1) iw = 1;
    if (ih < 1) ih = 1;
    if (iw > vp.width) iw = vp.width;
    if (ih > vp.height) ih = vp.height;
    return (orr_viewport){vp.x + (vp.width - iw) / 2, vp.y + (vp.height - ih) / 2, iw, ih};
}

/* The camera in binary64: origin, then rotation and projection relative to it, then floats; and the
 * view's lighting settings. */
void orri_view_camera(const orri_view *v, const orr_snapshot *s, orr_viewport rect, orri_view_frame *out)
{
    const orr_render_camera *cam = orri_view_snapshot_camera(v, s);
    orr_mat4d pose;
    if (cam) orr_affine3d_to_mat4d(&cam->world, &pose);
    else if (mat_is_zero(&v->desc.pose)) orr_mat4d_identity(&pose);
    else pose = v->desc.pose;
    double yfov = v->desc.yfov > 0 ? v->desc.yfov : DEFAULT_YFOV;
    double znear = v->desc.znear > 0 ? v->desc.znear : DEFAULT_ZNEAR;
    if (cam && cam->projection == ORR_PERSPECTIVE) {
        if (cam->yfov > 0) yfov = cam->yfov;
        if (cam->znear > 0) znear = cam->znear;
    }
    double aspect = orri_view_camera_aspect(cam) > 0 ? orri_view_camera_aspect(cam) : (double)rect.width / (double)rect.height;

    orr_vec3d origin = orr_mat4d_translation(&pose);
    /* Rotation only: the columns normalised (a camera's scale does not zoom), inverted by transposing. */
    orr_vec3d axis[3];
    for (int c = 0; c < 3; c++)
        axis[c] = orr_vec3d_normalize((orr_vec3d){pose.m[c * 4 + 0], pose.m[c * 4 + 1], pose.m[c * 4 + 2]});
    orr_mat4d view;
    orr_mat4d_identity(&view);
    for (int c = 0; c < 3; c++) { /* row c of the view is camera axis c */
        view.m[0 * 4 + c] = axis[c].x;
        view.m[1 * 4 + c] = axis[c].y;
        view.m[2 * 4 + c] = axis[c].z;
    }
    orr_mat4d proj;
    perspective_or_ortho(cam, yfov, aspect, znear, &proj);

    memset(out, 0, sizeof *out);
    out->draw.origin = origin;
    out->draw.view = view;
    out->draw.proj = proj;
    out->draw.cull = true;
    out->draw.layer_mask = v->desc.layer_mask;
    out->draw.order = v->desc.order;
    out->draw.lod_pixels = v->desc.lod_pixels;
    out->draw.lod_height = (float)rect.height;

    orr_gpu_view *g = &out->gpu;
    for (int i = 0; i < 16; i++) {
        g->view[i] = (float)view.m[i];
        g->proj[i] = (float)proj.m[i];
    }
    orr_split_double(origin.x, &g->origin_hi[0], &g->origin_lo[0]);
    orr_split_double(origin.y, &g->origin_hi[1], &g->origin_lo[1]);
    orr_split_double(origin.z, &g->origin_hi[2], &g->origin_lo[2]);
    /* Between ticks: the snapshot's lag and tick (vertex.glsl blends the instances that changed at it);
     * at lag 0 a tick that no motion holds, so that no instance blends */
    orri_motion_view(s->lag, s->tick, &g->origin_hi[3], &g->origin_lo[3]);

    const orr_view_lighting *lt = &v->desc.lighting;
    for (int c = 0; c < 3; c++) {
        g->sky[c] = lt->custom_ambient ? lt->sky[c] : DEFAULT_SKY;
        g->ground[c] = lt->custom_ambient ? lt->ground[c] : DEFAULT_GROUND;
    }
    g->sky[3] = lt->exposure > 0 ? (float)lt->exposure : 1.0f;
    g->params[3] = lt->tone_mapping == ORR_TONE_MAPPING_NONE ? ORR_GPU_TONE_NONE : ORR_GPU_TONE_PBR_NEUTRAL;
}
