/* Targets and views: the public calls that make, resize and destroy them, and their checks. */
#include "gpu/gpu_target.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_meshlet.h"
#include "gpu/gpu_occlusion.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_shell.h"
#include "gpu/gpu_surface.h"
#include "gpu/gpu_target_image.h"
#include "gpu/gpu_technique.h"
#include "gpu/gpu_texture.h"
#include "gpu/gpu_texture_target.h"

#include <orrery/gpu_vulkan.h>

#include <math.h>
#include <string.h>

orri_target *orri_target_get(orr_renderer *r, orr_target_id id)
{
    if (!orr_handle_pool_is_alive(&r->target_pool, (orr_handle){id.index, id.generation})) return NULL;
    orri_target *t = &r->targets[id.index];
    return t->alive && t->generation == id.generation ? t : NULL;
}

void orri_target_release(orr_renderer *r, orri_target *t, bool now)
{
    uint64_t last = now ? 0 : r->frame_number;
    orri_techniques_target_gone(r, (uint32_t)(t - r->targets), now);
    orri_surface_destroy(r, t); /* waits for the queue: the swapchain's images are the presentation's */
    orri_retire_image(r, &t->color, last);
    orri_retire_image(r, &t->msaa, last);
    orri_retire_image(r, &t->sampled, last);
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) orri_retire_buffer(r, &t->readback[i], last);
    if (t->name) orri_strfree(&r->allocator, t->name);
    t->name = NULL;
    t->alive = false;
}

static orr_result check_target_size(orr_renderer *r, const char *call, uint32_t width, uint32_t height)
{
    uint32_t max = r->properties.limits.maxImageDimension2D;
    if (width == 0 || height == 0 || width > max || height > max)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: size %ux%u (1..%u each)", call, width, height, max);
    return ORR_OK;
}

/* `samples` (0 = 1) is a count the device has for colour and depth targets; the message names them. */
static orr_result check_samples(orr_renderer *r, const char *call, uint32_t samples)
{
    uint32_t n = samples ? samples : 1;
    if (!(n & (n - 1)) && n <= 8 && (r->sample_counts & n)) return ORR_OK;
    char have[32] = "";
    size_t len = 0;
    for (uint32_t c = 1; c <= 8; c *= 2)
        if (r->sample_counts & c) {
            int w = snprintf(have + len, sizeof have - len, "%s%u", len ? ", " : "", c);
            if (w > 0 && (size_t)w < sizeof have - len) len += (size_t)w;
        }
    return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED, "%s: %u samples per pixel: %s has %s", call, samples,
                         r->properties.deviceName, have);
}

/* A target slot, zeroed; the id is not handed out until the target is made. */
static orr_result target_alloc(orr_renderer *r, const char *call, orr_handle *h, orri_target **out)
{
    orr_result rc = orr_handle_pool_alloc(&r->target_pool, h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "%s: no target slot", call);
    if (h->index >= r->target_capacity) {
        if (!ORRI_GROW(&r->allocator, r->targets, r->target_capacity, h->index + 1)) {
            orr_handle_pool_free(&r->target_pool, *h);
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", call);
        }
    }
    *out = &r->targets[h->index];
    memset(*out, 0, sizeof **out);
    return ORR_OK;
}

static orr_result target_made(orr_renderer *r, orri_target *t, orr_handle h, orr_result rc, orr_target_id *out)
{
    if (rc != ORR_OK) {
        orri_target_release(r, t, true);
        orr_handle_pool_free(&r->target_pool, h);
        return rc;
    }
    t->alive = true;
    t->generation = h.generation;
    if (t->desc.texture_key) r->texture_targets.live++;
    *out = (orr_target_id){h.index, h.generation};
    return ORR_OK;
}

/* orr_target_desc.samples resolved: 0 is 4 where the device has 4 for colour and depth, else 1. */
static VkSampleCountFlagBits target_samples(const orr_renderer *r, uint32_t samples)
{
    if (!samples) samples = orr_renderer_sample_counts(r) & 4u ? 4u : 1u;
    return (VkSampleCountFlagBits)samples;
}

orr_result orr_renderer_create_target(orr_renderer *r, const orr_target_desc *desc, orr_target_id *out)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_create_target: renderer is NULL");
    ORRI_REQUIRE(desc && out, &r->error, "orr_renderer_create_target: desc and out must not be NULL");
    *out = (orr_target_id){0, 0};
    ORRI_TRY(check_target_size(r, "orr_renderer_create_target", desc->width, desc->height));
    ORRI_TRY(check_samples(r, "orr_renderer_create_target", desc->samples));
    const orri_target *taken = orri_texture_target_find(r, desc->texture_key);
    if (taken)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_create_target: texture key %llu is taken by target %u%s%s%s",
                             (unsigned long long)desc->texture_key, (uint32_t)(taken - r->targets),
                             taken->name ? " '" : "", taken->name ? taken->name : "", taken->name ? "'" : "");
    orr_handle h;
    orri_target *t;
    ORRI_TRY(target_alloc(r, "orr_renderer_create_target", &h, &t));
    t->desc = *desc;
    t->desc.width = t->desc.height = 0;
    t->desc.name = NULL; /* the copy below is the target's */
    if (desc->name && !(t->name = orri_strdup(&r->allocator, desc->name))) {
        orr_handle_pool_free(&r->target_pool, h);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "orr_renderer_create_target: out of memory");
    }
    t->samples = target_samples(r, desc->samples);
    return target_made(r, t, h, orri_target_set_size(r, t, desc->width, desc->height), out);
}

orr_result orr_renderer_create_surface_target(orr_renderer *r, const orr_surface_target_desc *desc, orr_target_id *out)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_create_surface_target: renderer is NULL");
    ORRI_REQUIRE(desc && out && desc->surface, &r->error, "orr_renderer_create_surface_target: desc and out must not be NULL, desc.surface not VK_NULL_HANDLE");
    *out = (orr_target_id){0, 0};
    const char *call = "orr_renderer_create_surface_target";
    orr_result rc = ORR_OK;
    if (!r->presentation)
        rc = orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: the renderer was made without the surface's instance "
                                                          "extensions (orr_renderer_desc.instance_extensions)", call);
    else if ((unsigned)desc->present_mode > ORR_PRESENT_FIFO_RELAXED)
        rc = orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: desc.present_mode %d is unknown", call, (int)desc->present_mode);
    else
        rc = check_target_size(r, call, desc->width, desc->height);
    if (rc == ORR_OK) rc = check_samples(r, call, desc->samples);
    orr_handle h;
    orri_target *t = NULL;
    if (rc == ORR_OK) rc = target_alloc(r, call, &h, &t);
    if (rc != ORR_OK) {
        vkDestroySurfaceKHR(r->instance, desc->surface, NULL); /* owned from the call on */
        return rc;
    }
    t->desc = (orr_target_desc){.readback = desc->readback, .samples = desc->samples};
    t->samples = target_samples(r, desc->samples);
    memcpy(t->desc.clear_color, desc->clear_color, sizeof t->desc.clear_color);
    return target_made(r, t, h, orri_surface_create(r, t, desc->surface, desc->width, desc->height, desc->present_mode),
                       out);
}

orr_result orr_renderer_resize_target(orr_renderer *r, orr_target_id id, uint32_t width, uint32_t height)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_resize_target: renderer is NULL");
    orri_target *t = orri_target_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_resize_target: stale target id");
    if (t->surface && (!width || !height)) {
        orri_surface_resize(t, 0, 0);
        return ORR_OK;
    }
    ORRI_TRY(check_target_size(r, "orr_renderer_resize_target", width, height));
    if (t->surface) {
        orri_surface_resize(t, width, height); /* the swapchain, then the colour, at the next frame */
        return ORR_OK;
    }
    return orri_target_set_size(r, t, width, height);
}

orr_result orr_renderer_target_size(orr_renderer *r, orr_target_id id, uint32_t *width, uint32_t *height)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_target_size: renderer is NULL");
    ORRI_REQUIRE(width && height, &r->error, "orr_renderer_target_size: width and height must not be NULL");
    orri_target *t = orri_target_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_target_size: stale target id");
    *width = t->minimised ? 0 : t->desc.width;
    *height = t->minimised ? 0 : t->desc.height;
    return ORR_OK;
}

orr_result orr_renderer_destroy_target(orr_renderer *r, orr_target_id id)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_destroy_target: renderer is NULL");
    orri_target *t = orri_target_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_destroy_target: stale target id");
    if (t->desc.texture_key) { /* its materials sample white from the next frame on */
        ORRI_TRY(orri_texture_target_changed(r, t));
        r->texture_targets.live--;
    }
    /* Views of a destroyed target go with it (their ids then fail). */
    for (uint32_t i = 0; i < r->view_capacity; i++) {
        orri_view *v = &r->views[i];
        if (v->alive && orr_id_eq(v->desc.target, id)) {
            orri_view_release(r, v, false);
            orr_handle_pool_free(&r->view_pool, (orr_handle){i, v->generation});
        }
    }
    orri_target_release(r, t, false);
    orr_handle_pool_free(&r->target_pool, (orr_handle){id.index, id.generation});
    return ORR_OK;
}

static orri_view *view_get(orr_renderer *r, orr_view_id id)
{
    if (!orr_handle_pool_is_alive(&r->view_pool, (orr_handle){id.index, id.generation})) return NULL;
    orri_view *v = &r->views[id.index];
    return v->alive && v->generation == id.generation ? v : NULL;
}

void orri_view_release(orr_renderer *r, orri_view *v, bool now)
{
    orri_retire_image(r, &v->depth, now ? 0 : r->frame_number);
    orr_draw_visible_fini(&v->visible);
    orr_draw_ranges_fini(&v->ranges);
    orri_shell_view_fini(r, v);
    orri_meshlets_view_release(r, v);
    orri_occlusion_view_release(r, v, now);
    v->alive = false;
}

/* The viewport is given for the target's size now, and scaled if the target is resized later. */
static void view_set_base(orr_renderer *r, orri_view *v)
{
    const orri_target *t = &r->targets[v->desc.target.index];
    v->base_width = t->desc.width;
    v->base_height = t->desc.height;
}

static orr_result check_view_desc(orr_renderer *r, const orr_view_desc *desc, const char *call)
{
    orri_target *t = orri_target_get(r, desc->target);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "%s: desc.target is stale", call);
    const orr_viewport *vp = &desc->viewport;
    if (vp->width || vp->height) {
        if (!vp->width || !vp->height || vp->x >= t->desc.width || vp->y >= t->desc.height ||
            vp->width > t->desc.width - vp->x || vp->height > t->desc.height - vp->y)
            return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                                 "%s: desc.viewport %u,%u %ux%u is outside the %ux%u target", call, vp->x, vp->y,
                                 vp->width, vp->height, t->desc.width, t->desc.height);
    }
    if ((unsigned)desc->strategy > ORR_STRATEGY_MESHLET)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: desc.strategy %d is unknown", call, (int)desc->strategy);
    const orr_shadow_settings *sh = &desc->shadows;
    if (sh->enabled && ((sh->map_size && (sh->map_size < 16 || sh->map_size > 8192)) ||
                        sh->cascades > ORR_SHADOW_MAX_CASCADES || (unsigned)sh->split > ORR_SHADOW_SPLIT_UNIFORM ||
                        !(sh->distance >= 0 && sh->distance < 1e12) || !(sh->depth_bias >= 0 && sh->depth_bias < 1e6f) ||
                        !(sh->normal_offset >= 0 && sh->normal_offset < 1e6f) || sh->pcf > 5 ||
                        sh->max_lights > ORR_SHADOW_MAX_LIGHTS))
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "%s: desc.shadows out of range (map_size 0 or 16..8192: %u, cascades 0..%d: %u, split %d, "
                             "distance >= 0: %g, depth_bias >= 0: %g, normal_offset >= 0: %g, pcf 0..5: %u, "
                             "max_lights 0..%d: %u)",
                             call, sh->map_size, ORR_SHADOW_MAX_CASCADES, sh->cascades, (int)sh->split, sh->distance,
                             (double)sh->depth_bias, (double)sh->normal_offset, sh->pcf, ORR_SHADOW_MAX_LIGHTS,
                             sh->max_lights);
    if (desc->shells > ORR_FUR_MAX_SHELLS)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: desc.shells %u is out of range (0 = unset, 1..%u)", call,
                             desc->shells, ORR_FUR_MAX_SHELLS);
    if ((unsigned)desc->cull > ORR_CULL_GPU)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: desc.cull %d is unknown", call, (int)desc->cull);
    if (desc->cull == ORR_CULL_GPU && desc->strategy != ORR_STRATEGY_INDIRECT && desc->strategy != ORR_STRATEGY_MESHLET)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "%s: desc.cull is ORR_CULL_GPU, which needs the indirect or meshlet strategy (the GPU "
                             "writes the instance counts)", call);
    if ((unsigned)desc->order > ORR_ORDER_MESH)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: desc.order %d is unknown", call, (int)desc->order);
    if (desc->yfov < 0 || desc->yfov >= ORR_PI || desc->znear < 0 || !isfinite(desc->yfov) || !isfinite(desc->znear))
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: desc.yfov %g or desc.znear %g is out of range", call,
                             desc->yfov, desc->znear);
    return ORR_OK;
}

orr_result orr_renderer_create_view(orr_renderer *r, const orr_view_desc *desc, orr_view_id *out)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_create_view: renderer is NULL");
    ORRI_REQUIRE(desc && out, &r->error, "orr_renderer_create_view: desc and out must not be NULL");
    *out = (orr_view_id){0, 0};
    ORRI_TRY(check_view_desc(r, desc, "orr_renderer_create_view"));
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&r->view_pool, &h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "orr_renderer_create_view: no view slot");
    if (h.index >= r->view_capacity) {
        if (!ORRI_GROW(&r->allocator, r->views, r->view_capacity, h.index + 1)) {
            orr_handle_pool_free(&r->view_pool, h);
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "orr_renderer_create_view: out of memory");
        }
    }
    orri_view *v = &r->views[h.index];
    memset(v, 0, sizeof *v);
    v->desc = *desc;
    view_set_base(r, v);
    orr_draw_visible_init(&v->visible, &r->allocator);
    orr_draw_ranges_init(&v->ranges, &r->allocator);
    v->alive = true;
    v->generation = h.generation;
    *out = (orr_view_id){h.index, h.generation};
    return ORR_OK;
}

orr_result orr_renderer_update_view(orr_renderer *r, orr_view_id id, const orr_view_desc *desc)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_update_view: renderer is NULL");
    ORRI_REQUIRE(desc, &r->error, "orr_renderer_update_view: desc must not be NULL");
    orri_view *v = view_get(r, id);
    if (!v) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_update_view: stale view id");
    ORRI_TRY(check_view_desc(r, desc, "orr_renderer_update_view"));
    v->desc = *desc; /* the depth image follows the viewport at the next render */
    view_set_base(r, v);
    return ORR_OK;
}

orr_result orr_renderer_destroy_view(orr_renderer *r, orr_view_id id)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_destroy_view: renderer is NULL");
    orri_view *v = view_get(r, id);
    if (!v) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_destroy_view: stale view id");
    orri_view_release(r, v, false);
    orr_handle_pool_free(&r->view_pool, (orr_handle){id.index, id.generation});
    return ORR_OK;
}
