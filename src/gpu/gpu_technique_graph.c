/* The technique graph: a list checked before anything is built (gpu_technique_graph.h). */
#include "gpu/gpu_technique_graph.h"
#include "gpu/gpu_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    VkFormat vk;
    const char *name;
} formats[ORR_FORMAT_COUNT] = {
    [ORR_FORMAT_DEFAULT] = {ORRI_COLOR_FORMAT, "default (rgba8 srgb)"},
    [ORR_FORMAT_RGBA8_UNORM] = {VK_FORMAT_R8G8B8A8_UNORM, "rgba8"},
    [ORR_FORMAT_RGBA8_SRGB] = {VK_FORMAT_R8G8B8A8_SRGB, "rgba8 srgb"},
    [ORR_FORMAT_RGBA16F] = {VK_FORMAT_R16G16B16A16_SFLOAT, "rgba16f"},
    [ORR_FORMAT_RGBA32F] = {VK_FORMAT_R32G32B32A32_SFLOAT, "rgba32f"},
    [ORR_FORMAT_R32F] = {VK_FORMAT_R32_SFLOAT, "r32f"},
    [ORR_FORMAT_RG16F] = {VK_FORMAT_R16G16_SFLOAT, "rg16f"},
    [ORR_FORMAT_R8_UNORM] = {VK_FORMAT_R8_UNORM, "r8"},
    [ORR_FORMAT_B10G11R11F] = {VK_FORMAT_B10G11R11_UFLOAT_PACK32, "b10g11r11f"},
    [ORR_FORMAT_E5B9G9R9F] = {VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, "e5b9g9r9f"},
};

const char *orr_format_name(orr_format format)
{
    return (unsigned)format < ORR_FORMAT_COUNT ? formats[format].name : "unknown";
}

VkFormat orri_technique_vk_format(orr_format format) { return formats[format].vk; }

orri_tech_list *orri_technique_list_of(const orr_renderer *r, uint32_t target)
{
    orri_techniques *ts = r->techniques;
    if (!ts) return NULL;
    for (uint32_t i = 0; i < ts->list_count; i++)
        if (ts->lists[i].target == target && ts->lists[i].count) return &ts->lists[i];
    return NULL;
}

/* ---- checking a list ------------------------------------------------------------------------- */

/* The renderer's last error, prefixed with the call. */
orr_result orri_technique_refuse(orr_renderer *r, orr_result code, const char *fmt, ...)
{
    char msg[sizeof r->error.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return orri_gpu_fail(r, code, "orr_renderer_set_techniques: %s", msg);
}



static uint32_t res_find(const orri_tech_plan *p, orri_tech_res_kind kind, const char *name, orr_view_id view)
{
    for (uint32_t i = 0; i < p->res_count; i++) {
        const orri_tech_res *x = &p->res[i];
        if (x->kind != kind) continue;
        if (kind == ORRI_RES_DEPTH ? orr_view_id_eq(x->view, view) : !strcmp(x->name, name)) return i;
    }
    return ORRI_TECH_NONE;
}

static uint32_t res_add(orri_tech_plan *p, orri_tech_res_kind kind, const char *name)
{
    orri_tech_res *x = &p->res[p->res_count];
    *x = (orri_tech_res){.kind = kind, .divisor = 1};
    snprintf(x->name, sizeof x->name, "%s", name);
    return p->res_count++;
}

bool orri_technique_writes_res(const orri_tech_plan *p, uint32_t i, uint32_t res)
{
    for (uint32_t w = 0; w < p->descs[i].write_count; w++)
        if (p->writes[i][w] == res) return true;
    return false;
}

static const char *view_target_ok(orr_renderer *r, orr_view_id view, uint32_t target)
{
    if (!orr_handle_pool_is_alive(&r->view_pool, (orr_handle){view.index, view.generation})) return "is stale";
    const orri_view *v = &r->views[view.index];
    if (!v->alive || v->generation != view.generation) return "is stale";
    if (v->desc.target.index != target) return "is another target's";
    return NULL;
}

/* A scene technique's own fields (its view is checked with every technique's). */
static orr_result check_scene(orr_renderer *r, const orri_target *t, const orr_technique_desc *d)
{
    const char *n = d->name;
    const orr_technique_scene *sc = &d->scene;
    if (orr_view_id_is_none(d->view))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': a scene technique needs a view (whose "
                                     "camera, cull and depth it draws with)",
                                     n);
    if (t->samples > VK_SAMPLE_COUNT_1_BIT) /* the target's samples and the view's depth: no transient has them */
        for (uint32_t w = 0; w < d->write_count; w++)
            if (d->writes[w].name && strcmp(d->writes[w].name, "color"))
                return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                              "technique '%s': on a multisampled target (%u samples) a scene technique writes "
                              "\"color\" and depth only, not '%s'", n, (unsigned)t->samples, d->writes[w].name);
    if ((unsigned)d->place > ORR_PLACE_BEFORE_PASS || (unsigned)sc->depth_test > ORR_DEPTH_ALWAYS ||
        (unsigned)sc->depth_load > ORR_LOAD_DONT_CARE || (unsigned)sc->blend > ORR_BLEND_ADD ||
        (unsigned)sc->cull > ORR_FACE_CULL_FRONT || (unsigned)sc->strategy > ORR_TECHNIQUE_INDIRECT ||
        (unsigned)sc->topology > ORR_TECHNIQUE_CORNERS || (unsigned)sc->order > ORR_TECHNIQUE_ORDER_FAR_FIRST)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': place, depth_test, depth_load, blend, cull, topology, strategy or order is "
                      "out of its enum", n);
    if (sc->topology == ORR_TECHNIQUE_EDGES && !r->fill_mode_non_solid)
        return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                      "technique '%s': draws edges (ORR_TECHNIQUE_EDGES), but the device (%s) has no "
                      "fillModeNonSolid", n, r->properties.deviceName);
    if (sc->passes >> ORR_PASS_COUNT)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': passes 0x%x names no orr_pass above bit %d", n, sc->passes,
                                     ORR_PASS_COUNT - 1);
    if (!d->write_count && !sc->depth_write)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': writes nothing (no colour write and depth_write off)", n);
    /* the scene stages a technique may give (the fragment stage is checked with the others' kinds) */
    const struct {
        const char *name;
        const orr_shader_desc *sh;
    } stages[] = {{"vertex", &sc->vertex}, {"task", &sc->task}, {"mesh", &sc->mesh}};
    for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++) {
        const orr_shader_desc *sh = stages[k].sh;
        if (sh->glsl && sh->spirv)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s has GLSL source and SPIR-V (one of the two, or none)", n,
                          stages[k].name);
        if (sh->spirv && (sh->spirv_size < 20 || sh->spirv_size % 4))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s.spirv_size %zu is not a whole number of SPIR-V words", n,
                          stages[k].name, sh->spirv_size);
    }
    if (sc->replaces_view && (d->place != ORR_PLACE_AFTER_VIEWS || sc->depth_load != ORR_LOAD_CLEAR))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': replaces its view's passes, so it runs after the views and clears the depth "
                      "(place ORR_PLACE_AFTER_VIEWS, depth_load ORR_LOAD_CLEAR)", n);
    if (d->place == ORR_PLACE_BEFORE_PASS && (unsigned)d->pass > ORR_PASS_TRANSPARENT)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': placed before built-in pass %u, which is no orr_pass "
                                     "(ORR_PLACE_AFTER_VIEW runs after the last)",
                                     n, (unsigned)d->pass);
    if (d->place != ORR_PLACE_AFTER_VIEWS) { /* recorded in its view's list, among its built-in passes */
        const char *where = d->place == ORR_PLACE_AFTER_VIEW    ? "right after"
                            : d->place == ORR_PLACE_BEFORE_VIEW ? "before"
                                                                : "among the built-in passes of";
        if (d->read_count)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': placed %s its view, it reads '%s' (place it after the views to read)", n,
                          where, d->reads[0]);
        for (uint32_t w = 0; w < d->write_count; w++)
            if (d->writes[w].name && strcmp(d->writes[w].name, "color"))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': placed %s its view, it writes '%s' (only \"color\" and depth)", n,
                              where, d->writes[w].name);
    }
    return ORR_OK;
}

/* A compute technique's own fields. */
static orr_result check_compute(orr_renderer *r, const orr_technique_desc *d)
{
    const char *n = d->name;
    const orr_technique_compute *c = &d->compute;
    if (d->fragment.glsl || d->fragment.spirv)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': a compute technique has no fragment shader (its shader is compute.shader)", n);
    if (!c->shader.glsl == !c->shader.spirv)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': compute.shader needs GLSL source or SPIR-V (one of the two)", n);
    if (c->shader.spirv && (c->shader.spirv_size < 20 || c->shader.spirv_size % 4))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': compute.shader.spirv_size %zu is not a whole number of SPIR-V words", n,
                      c->shader.spirv_size);
    if (d->place != ORR_PLACE_AFTER_VIEWS)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': a compute technique runs after the views (place it there)", n);
    if ((unsigned)c->dispatch > ORR_DISPATCH_PER_INSTANCE)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': compute.dispatch %u is no orr_dispatch", n,
                                     (unsigned)c->dispatch);
    if (c->dispatch == ORR_DISPATCH_FIXED)
        for (int k = 0; k < 3; k++)
            if (!c->groups[k] || c->groups[k] > r->properties.limits.maxComputeWorkGroupCount[k])
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': compute.groups[%d] is %u (1 to %u on this device)", n, k, c->groups[k],
                              r->properties.limits.maxComputeWorkGroupCount[k]);
    if (c->dispatch == ORR_DISPATCH_PER_INSTANCE && d->push_constant_size + 4 > ORR_TECHNIQUE_MAX_PUSH)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': push_constant_size %u leaves no room for the slot count a per-instance "
                      "dispatch adds (at most %d)", n, d->push_constant_size, ORR_TECHNIQUE_MAX_PUSH - 4);
    return ORR_OK;
}

/* The descs themselves: names, counts, sizes, views. */
static orr_result check_descs(orr_renderer *r, const orri_target *t, uint32_t target, const orri_tech_plan *p)
{
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        if (!d->name || !d->name[0])
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "techniques[%u].name is empty", i);
        const char *n = d->name;
        if (strlen(n) > ORRI_TECH_NAME_MAX)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                         "techniques[%u].name is longer than %d characters", i, ORRI_TECH_NAME_MAX);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(p->descs[j].name, n))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                             "techniques[%u] and [%u] are both named '%s'", j, i, n);
        if ((unsigned)d->kind > ORR_TECHNIQUE_COMPUTE)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                         "technique '%s': kind %u is no orr_technique_kind", n, (unsigned)d->kind);
        bool scene = d->kind == ORR_TECHNIQUE_SCENE;
        bool depth_only = scene && d->write_count == 0;
        if (d->kind == ORR_TECHNIQUE_COMPUTE) ORRI_TRY(check_compute(r, d));
        else if (depth_only ? d->fragment.glsl || d->fragment.spirv : !d->fragment.glsl == !d->fragment.spirv)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          depth_only ? "technique '%s': writes nothing but depth, so it takes no fragment shader"
                                     : "technique '%s': fragment needs GLSL source or SPIR-V (one of the two)",
                          n);
        if (d->fragment.spirv && (d->fragment.spirv_size < 20 || d->fragment.spirv_size % 4))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': fragment.spirv_size %zu is not a whole number of SPIR-V words", n,
                          d->fragment.spirv_size);
        uint32_t min_writes = scene ? 0 : 1; /* a compute technique writes at least one storage image */
        if (d->write_count < min_writes || d->write_count > ORR_TECHNIQUE_MAX_WRITES || (d->write_count && !d->writes))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %u writes (%u to %d)", n,
                                         d->write_count, min_writes, ORR_TECHNIQUE_MAX_WRITES);
        if (scene) ORRI_TRY(check_scene(r, t, d));
        else if (d->place != ORR_PLACE_AFTER_VIEWS)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': a full-screen technique runs after the views (place it there)", n);
        if (d->read_count > ORR_TECHNIQUE_MAX_READS || (d->read_count && !d->reads))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %u reads (at most %d)", n,
                                         d->read_count, ORR_TECHNIQUE_MAX_READS);
        if (d->push_constant_size % 4 || d->push_constant_size > ORR_TECHNIQUE_MAX_PUSH)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': push_constant_size %u (a multiple of 4, at most %d)", n,
                          d->push_constant_size, ORR_TECHNIQUE_MAX_PUSH);
        if (!orr_view_id_is_none(d->view)) {
            const char *why = view_target_ok(r, d->view, target);
            if (why) return orri_technique_refuse(r, ORR_ERROR_STALE_HANDLE, "technique '%s': its view %s", n, why);
        }
        for (uint32_t w = 0; w < d->write_count; w++) {
            const orr_technique_write *wr = &d->writes[w];
            if (!wr->name || !wr->name[0])
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': writes[%u].name is empty",
                                             n, w);
            if (strlen(wr->name) > ORRI_TECH_NAME_MAX)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                             "technique '%s': writes[%u].name is too long", n, w);
            if (!strcmp(wr->name, "depth"))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': writes 'depth', which only the built-in passes write", n);
            if ((unsigned)wr->format >= ORR_FORMAT_COUNT || (unsigned)wr->load > ORR_LOAD_DONT_CARE)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                             "technique '%s': writes[%u] ('%s') has no such %s", n, w, wr->name,
                                             (unsigned)wr->format >= ORR_FORMAT_COUNT ? "format" : "load op");
            if (wr->divisor > ORR_TECHNIQUE_MAX_DIVISOR || (wr->divisor > 1 && !strcmp(wr->name, "color")))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': writes[%u] ('%s') has divisor %u (%s)", n, w, wr->name, wr->divisor,
                              strcmp(wr->name, "color") ? "1 to 16" : "the target's colour is the target's size");
            if (!strcmp(wr->name, "color") && wr->format != ORR_FORMAT_DEFAULT)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': writes 'color' as %s; the target's colour has its own format (leave "
                              "it ORR_FORMAT_DEFAULT)",
                              n, orr_format_name(wr->format));
            for (uint32_t k = 0; k < w; k++)
                if (!strcmp(d->writes[k].name, wr->name))
                    return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': writes '%s' twice", n,
                                                 wr->name);
        }
        for (uint32_t k = 0; k < d->read_count; k++) {
            const char *rn = d->reads[k];
            if (!rn || !rn[0])
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': reads[%u] is empty", n, k);
            if (!strcmp(rn, "depth") && orr_view_id_is_none(d->view))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': reads 'depth' without a view (depth is a view's)", n);
            if (!strcmp(rn, "depth") && t->samples > VK_SAMPLE_COUNT_1_BIT)
                return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                              "technique '%s': reads 'depth' of a multisampled target (not supported)", n);
            for (uint32_t j = 0; j < k; j++)
                if (!strcmp(d->reads[j], rn))
                    return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': reads '%s' twice", n,
                                                 rn);
        }
    }
    return ORR_OK;
}

/* The depth of `view` as a resource of the list. */
static uint32_t depth_res(orri_tech_plan *p, orr_view_id view)
{
    uint32_t x = res_find(p, ORRI_RES_DEPTH, NULL, view);
    if (x != ORRI_TECH_NONE) return x;
    char name[ORRI_TECH_NAME_MAX + 8];
    snprintf(name, sizeof name, "depth@view%u", view.index);
    x = res_add(p, ORRI_RES_DEPTH, name);
    p->res[x].view = view;
    p->res[x].vk_format = ORRI_DEPTH_FORMAT;
    return x;
}

/* The attachments: "color", the views' depths, the transients with their formats (checked on the
 * device); each read and write resolved to one. */
static orr_result resolve_resources(orr_renderer *r, orri_tech_plan *p)
{
    p->res_count = 0;
    orri_tech_res *color = &p->res[res_add(p, ORRI_RES_COLOR, "color")];
    color->format = ORR_FORMAT_DEFAULT;
    color->vk_format = ORRI_COLOR_FORMAT;
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        for (uint32_t w = 0; w < d->write_count; w++) {
            const orr_technique_write *wr = &d->writes[w];
            if (!strcmp(wr->name, "color")) {
                p->writes[i][w] = 0;
                /* sRGB is no storage format: a compute technique writes linear values into an rgba16f image
                 * of the target's size, blitted (encoded) into "color" after it; one for all of them */
                if (d->kind == ORR_TECHNIQUE_COMPUTE && res_find(p, ORRI_RES_STORAGE, "color.storage", (orr_view_id){0}) ==
                                                            ORRI_TECH_NONE) {
                    uint32_t x = res_add(p, ORRI_RES_STORAGE, "color.storage");
                    p->res[x].format = ORR_FORMAT_RGBA16F;
                    p->res[x].vk_format = orri_technique_vk_format(ORR_FORMAT_RGBA16F);
                    p->res[x].source = i;
                    p->res[x].divisor = 1;
                    p->res[x].storage = true;
                }
                continue;
            }
            uint32_t x = res_find(p, ORRI_RES_TRANSIENT, wr->name, (orr_view_id){0});
            if (x == ORRI_TECH_NONE) {
                x = res_add(p, ORRI_RES_TRANSIENT, wr->name);
                p->res[x].format = wr->format;
                p->res[x].vk_format = orri_technique_vk_format(wr->format);
                p->res[x].source = i; /* its first writer, for messages */
                p->res[x].divisor = wr->divisor ? wr->divisor : 1;
            } else if (wr->divisor && wr->divisor != p->res[x].divisor) {
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s' writes '%s' at 1/%u of the target's size, technique '%s' at 1/%u: one "
                              "transient, one size",
                              d->name, wr->name, wr->divisor, p->descs[p->res[x].source].name, p->res[x].divisor);
            } else if (wr->format != ORR_FORMAT_DEFAULT && wr->format != p->res[x].format) {
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s' writes '%s' as %s, technique '%s' as %s: one transient, one format",
                              d->name, wr->name, orr_format_name(wr->format), p->descs[p->res[x].source].name,
                              orr_format_name(p->res[x].format));
            }
            p->writes[i][w] = x;
            if (d->kind == ORR_TECHNIQUE_COMPUTE) p->res[x].storage = true;
            else p->res[x].attachment = true;
        }
    }
    /* one size per pass (one render area); scene techniques draw with their view's depth: full size */
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        for (uint32_t w = 0; w < d->write_count; w++) {
            uint32_t a = p->res[p->writes[i][0]].divisor, b = p->res[p->writes[i][w]].divisor;
            if (a != b)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s' writes '%s' at 1/%u and '%s' at 1/%u of the target's size: one pass, "
                              "one size",
                              d->name, d->writes[0].name, a, d->writes[w].name, b);
            if (b != 1 && d->kind == ORR_TECHNIQUE_SCENE)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s' writes '%s' at 1/%u of the target's size; a scene technique draws at "
                              "its view's size (its depth's)",
                              d->name, d->writes[w].name, b);
        }
    }
    /* every transient's format, on this device */
    for (uint32_t x = 1; x < p->res_count; x++) {
        VkFormatProperties fp;
        vkGetPhysicalDeviceFormatProperties(r->physical, p->res[x].vk_format, &fp);
        VkFormatFeatureFlags have = fp.optimalTilingFeatures;
        const VkFormatFeatureFlags blits = VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT;
        const char *cannot = p->res[x].kind == ORRI_RES_STORAGE && (have & blits) != blits ? "blit from and to"
                             : !(have & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)                                 ? "sample"
                             : p->res[x].attachment && !(have & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) ? "render to"
                             : p->res[x].storage && !(have & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
                                 ? "write as a storage image (a compute technique writes it)"
                                 : NULL;
        if (cannot)
            return orri_technique_refuse(r, ORR_ERROR_UNSUPPORTED,
                          "technique '%s': transient '%s' has format %s, which this device (%s) cannot %s",
                          p->descs[p->res[x].source].name, p->res[x].name, orr_format_name(p->res[x].format),
                          r->properties.deviceName, cannot);
    }
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        for (uint32_t k = 0; k < d->read_count; k++) {
            const char *rn = d->reads[k];
            uint32_t x;
            if (!strcmp(rn, "color")) {
                x = 0;
            } else if (!strcmp(rn, "depth")) {
                x = depth_res(p, d->view);
            } else {
                x = res_find(p, ORRI_RES_TRANSIENT, rn, (orr_view_id){0});
                if (x == ORRI_TECH_NONE) {
                    char have[256] = "'color', 'depth' (with a view)";
                    size_t n = strlen(have);
                    for (uint32_t y = 1; y < p->res_count && n + 1 < sizeof have; y++)
                        if (p->res[y].kind == ORRI_RES_TRANSIENT) {
                            int w = snprintf(have + n, sizeof have - n, ", '%s'", p->res[y].name);
                            if (w > 0) n += (size_t)w;
                        }
                    return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                  "technique '%s' reads '%s', which nothing writes (there are %s)", d->name, rn, have);
                }
            }
            p->reads[i][k] = x;
        }
        p->depth[i] = d->kind == ORR_TECHNIQUE_SCENE ? depth_res(p, d->view) : ORRI_TECH_NONE;
    }
    return ORR_OK;
}

/* Who each read sees, the edges that follow, and the running order (the list's, moved only where an
 * edge needs it); a cycle is refused, naming it. */
static orr_result order_list(orr_renderer *r, orri_tech_plan *p)
{
    memset(p->before, 0, sizeof p->before);
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        for (uint32_t k = 0; k < d->read_count; k++) {
            uint32_t x = p->reads[i][k];
            uint32_t prod = ORRI_TECH_NONE;
            if (p->res[x].kind != ORRI_RES_DEPTH) {
                for (uint32_t j = i; j-- > 0;)
                    if (orri_technique_writes_res(p, j, x)) {
                        prod = j;
                        break;
                    }
                if (prod == ORRI_TECH_NONE && x != 0) /* a transient: its first writer listed after */
                    for (uint32_t j = i + 1; j < p->count && prod == ORRI_TECH_NONE; j++)
                        if (orri_technique_writes_res(p, j, x)) prod = j;
                if (prod == ORRI_TECH_NONE && x != 0)
                    return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                  "technique '%s' reads '%s', which nothing but itself writes", d->name,
                                  p->res[x].name);
            }
            p->producer[i][k] = prod;
            if (prod != ORRI_TECH_NONE) {
                p->before[i] |= 1u << prod;
                p->edge_res[i][prod] = x;
            }
            /* later writers of what it reads wait for it (they would overwrite what it reads) */
            for (uint32_t j = i + 1; j < p->count; j++)
                if (j != prod && orri_technique_writes_res(p, j, x) && (prod == ORRI_TECH_NONE || j > prod)) {
                    p->before[j] |= 1u << i;
                    p->edge_res[j][i] = x;
                }
        }
        /* writers of one attachment keep the list's order */
        for (uint32_t w = 0; w < d->write_count; w++)
            for (uint32_t j = i + 1; j < p->count; j++)
                if (orri_technique_writes_res(p, j, p->writes[i][w])) {
                    bool reads_from_j = false;
                    for (uint32_t k = 0; k < d->read_count; k++)
                        if (p->producer[i][k] == j) reads_from_j = true;
                    if (!reads_from_j) {
                        p->before[j] |= 1u << i;
                        p->edge_res[j][i] = p->writes[i][w];
                    }
                    break;
                }
    }
    uint32_t done = 0;
    for (uint32_t n = 0; n < p->count; n++) {
        uint32_t pick = ORRI_TECH_NONE;
        for (uint32_t i = 0; i < p->count && pick == ORRI_TECH_NONE; i++)
            if (!(done & (1u << i)) && (p->before[i] & ~done) == 0) pick = i;
        if (pick == ORRI_TECH_NONE) { /* a cycle among what is left: walk back along edges until one repeats */
            uint32_t at = 0;
            while (done & (1u << at)) at++;
            uint32_t seen[ORR_TECHNIQUE_MAX], seen_count = 0;
            for (;;) {
                uint32_t k = 0;
                while (k < seen_count && seen[k] != at) k++;
                if (k < seen_count) {
                    memmove(seen, seen + k, (seen_count - k) * sizeof *seen);
                    seen_count -= k;
                    break;
                }
                seen[seen_count++] = at;
                uint32_t prev = 0;
                while (!((p->before[at] & ~done) & (1u << prev))) prev++;
                at = prev;
            }
            char msg[400];
            size_t len = 0;
            for (uint32_t k = 0; k < seen_count; k++) { /* seen[k + 1] runs before seen[k] */
                uint32_t a = seen[k], b = seen[(k + 1) % seen_count];
                int w = snprintf(msg + len, sizeof msg - len, "%s'%s' needs '%s' first ('%s')", k ? ", " : "",
                                 p->descs[a].name, p->descs[b].name, p->res[p->edge_res[a][b]].name);
                if (w < 0 || (size_t)w >= sizeof msg - len) break;
                len += (size_t)w;
            }
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "a dependency cycle: %s", msg);
        }
        done |= 1u << pick;
        p->run_of[pick] = n;
        p->order[n] = pick;
    }
    return ORR_OK;
}

/* The copies a technique's reads need (an attachment it also writes is read from a copy). */
uint32_t orri_technique_copy_res(orri_tech_plan *p, uint32_t source)
{
    for (uint32_t x = 0; x < p->res_count; x++)
        if (p->res[x].kind == ORRI_RES_COPY && p->res[x].source == source) return x;
    char name[ORRI_TECH_NAME_MAX + 8];
    snprintf(name, sizeof name, "%.*s.copy", ORRI_TECH_NAME_MAX, p->res[source].name);
    uint32_t x = res_add(p, ORRI_RES_COPY, name);
    p->res[x].source = source;
    p->res[x].format = p->res[source].format;
    p->res[x].vk_format = p->res[source].vk_format;
    p->res[x].divisor = p->res[source].divisor;
    return x;
}

/* On a multisampled target a scene technique after the views draws into the target's samples and
 * resolves them over its view's rectangle into "color": what a technique running before it wrote there
 * would be lost. */
static orr_result check_resolves(orr_renderer *r, const orri_target *t, const orri_tech_plan *p)
{
    if (t->samples == VK_SAMPLE_COUNT_1_BIT) return ORR_OK;
    for (uint32_t n = 0; n < p->count; n++) {
        const orr_technique_desc *d = &p->descs[p->order[n]];
        if (d->kind != ORR_TECHNIQUE_SCENE || d->place != ORR_PLACE_AFTER_VIEWS || !d->write_count) continue;
        for (uint32_t m = 0; m < n; m++) {
            const orr_technique_desc *e = &p->descs[p->order[m]];
            if (e->kind != ORR_TECHNIQUE_SCENE && orri_technique_writes_res(p, p->order[m], 0))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': on a multisampled target it resolves the target's samples into "
                              "\"color\", over what '%s' wrote there before it (run it first)", d->name, e->name);
        }
    }
    return ORR_OK;
}

orr_result orri_technique_plan(orr_renderer *r, uint32_t target, orri_tech_plan *p)
{
    orr_result rc = check_descs(r, &r->targets[target], target, p);
    if (rc == ORR_OK) rc = resolve_resources(r, p);
    if (rc == ORR_OK) rc = order_list(r, p);
    if (rc == ORR_OK) rc = check_resolves(r, &r->targets[target], p);
    return rc;
}
