/* The host's techniques: per target a list, checked whole and built at registration (shaders compiled
 * and reflected, attachments resolved, the running order found, pipelines made), then recorded after
 * the target's views each frame with the barriers their reads and writes need. */
#include "gpu/gpu_technique.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_memory.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_shader.h"

#include <orrery/technique.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

extern const uint32_t orri_spv_technique_fullscreen_vert[];
extern const size_t orri_spv_technique_fullscreen_vert_size;
extern const uint32_t orri_spv_technique_scene_vert[];
extern const size_t orri_spv_technique_scene_vert_size;

#define NAME_MAX_LEN 63
#define TRANSIENT_USAGE                                                                                           \
    (VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |         \
     VK_IMAGE_USAGE_TRANSFER_DST_BIT)
#define STORAGE_USAGE (TRANSIENT_USAGE | VK_IMAGE_USAGE_STORAGE_BIT)
#define NONE UINT32_MAX
/* "color", a depth per technique, a transient per write and a copy per transient (or "color") */
#define MAX_RES (2 + ORR_TECHNIQUE_MAX + 2 * ORR_TECHNIQUE_MAX * ORR_TECHNIQUE_MAX_WRITES)

typedef enum res_kind { RES_COLOR = 0, RES_DEPTH, RES_TRANSIENT, RES_COPY } res_kind;

/* An image the list's techniques touch. */
typedef struct tech_res {
    char name[NAME_MAX_LEN + 8];
    res_kind kind;
    orr_view_id view;     /* RES_DEPTH: whose depth */
    uint32_t source;      /* RES_COPY: the resource it copies */
    orr_format format;    /* RES_TRANSIENT, RES_COPY (the target's for a copy of "color") */
    VkFormat vk_format;
    uint32_t divisor;     /* its size: the target's divided by this, rounded up ("color", depths: 1) */
    orri_image image;     /* RES_TRANSIENT, RES_COPY: owned, at that size, in memory block `block` */
    uint32_t block;
    uint32_t first, last; /* running positions of its first and last use (its lifetime in the frame) */
    VkDeviceSize bytes;
    bool storage;         /* a compute technique writes it (a storage image) */
    bool attachment;      /* a graphics technique writes it (a colour attachment) */
} tech_res;

typedef struct tech {
    orr_handle handle;
    char name[NAME_MAX_LEN + 1];
    orr_view_id view;
    uint32_t reads[ORR_TECHNIQUE_MAX_READS];    /* the resource sampled at binding i (a copy: read and written) */
    uint32_t producer[ORR_TECHNIQUE_MAX_READS]; /* the technique (running order) whose write it sees; NONE:
                                                   the built-in passes */
    uint32_t read_count;
    uint32_t copies[ORR_TECHNIQUE_MAX_READS];   /* copy resources filled just before it */
    uint32_t copy_count;
    uint32_t writes[ORR_TECHNIQUE_MAX_WRITES];
    orr_load_op load[ORR_TECHNIQUE_MAX_WRITES];
    float clear[ORR_TECHNIQUE_MAX_WRITES][4];
    uint32_t write_count;
    uint32_t push_size;
    uint8_t push[ORR_TECHNIQUE_MAX_PUSH];
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSet sets[ORRI_FRAMES_IN_FLIGHT];
    /* scene techniques */
    orr_technique_kind kind;
    orr_technique_place place;
    uint32_t depth;           /* its view's depth resource (NONE: full-screen) */
    bool depth_write;
    orr_load_op depth_load;
    float depth_clear;
    uint32_t passes;          /* bit per orr_pass */
    int cull;                 /* -1: the material's; else a VkCullModeFlags */
    orr_technique_strategy strategy;
    bool replaces_view;       /* its view's built-in passes are not drawn */
    /* compute techniques */
    orr_dispatch dispatch;
    uint32_t groups[3];       /* ORR_DISPATCH_FIXED */
    uint32_t local[3];        /* the shader's workgroup size */
    bool scene_set;           /* its shader reads the scene's buffers (set 0, with its view's block) */
    /* hot reload: the desc's fields, the SPIR-V it runs, what the next frame builds */
    orr_technique_desc desc;           /* pointers cleared */
    uint32_t *spirv[2];                /* [0] the host's vertex shader (NULL: the library's), [1] fragment */
    size_t spirv_words[2];
    char *pending_glsl[2];             /* a reload's new source (or SPIR-V), either stage; NULL: kept */
    uint32_t *pending_spirv[2];
    size_t pending_size[2];            /* bytes: of the GLSL with its NUL, or of the SPIR-V */
    char pending_name[2][64];
    bool pending;
    orr_reload_state reload;
    char reload_message[sizeof(((orr_error *)0)->message)];
} tech;

/* One target's list, in running order. */
typedef struct tech_list {
    uint32_t target, generation; /* the target's index and generation */
    tech *techs;
    uint32_t count;
    tech_res *res;
    uint32_t res_count;
    VkDescriptorPool pool;
    bool recorded;      /* a frame recorded it (replacing it waits for the queue) */
    bool warned;        /* a skipped technique was logged */
    uint32_t width, height; /* the size the transients were made at */
    orri_allocation *blocks; /* the transients' memory: one block per set of lifetimes apart */
    uint32_t block_count;
    VkDeviceSize bytes, bytes_unshared; /* the blocks' bytes, and what each image on its own would take */
} tech_list;

struct orri_techniques {
    orr_handle_pool ids;
    uint32_t *where;    /* per id index: list index << 8 | position */
    uint32_t where_capacity;
    tech_list *lists;
    uint32_t list_count, list_capacity;
    VkShaderModule vertex;       /* full-screen triangle */
    VkShaderModule scene_vertex; /* scene techniques without a vertex shader of their own */
    VkSampler sampler;
};

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

/* ---- lists ----------------------------------------------------------------------------------- */

static tech_list *list_of(const orr_renderer *r, uint32_t target)
{
    orri_techniques *ts = r->techniques;
    if (!ts) return NULL;
    for (uint32_t i = 0; i < ts->list_count; i++)
        if (ts->lists[i].target == target && ts->lists[i].count) return &ts->lists[i];
    return NULL;
}

static void drop_pending(orr_renderer *r, tech *t, int k)
{
    orri_free(&r->allocator, t->pending_glsl[k], t->pending_glsl[k] ? t->pending_size[k] : 0);
    orri_free(&r->allocator, t->pending_spirv[k], t->pending_spirv[k] ? t->pending_size[k] : 0);
    t->pending_glsl[k] = NULL;
    t->pending_spirv[k] = NULL;
    t->pending_size[k] = 0;
}

/* Keeps the SPIR-V a technique was built from (taken over; either NULL). */
static void keep_spirv(tech *t, uint32_t *vs, size_t vs_words, uint32_t *fs, size_t fs_words)
{
    t->spirv[0] = vs, t->spirv_words[0] = vs_words;
    t->spirv[1] = fs, t->spirv_words[1] = fs_words;
}

/* Destroys what the list holds (the GPU done with it) and frees its ids. */
static void list_clear(orr_renderer *r, tech_list *l)
{
    orri_techniques *ts = r->techniques;
    for (uint32_t i = 0; i < l->count; i++) {
        tech *t = &l->techs[i];
        if (t->pipeline) vkDestroyPipeline(r->device, t->pipeline, NULL);
        if (t->layout) vkDestroyPipelineLayout(r->device, t->layout, NULL);
        if (t->set_layout) vkDestroyDescriptorSetLayout(r->device, t->set_layout, NULL);
        if (t->handle.generation) orr_handle_pool_free(&ts->ids, t->handle);
        for (int k = 0; k < 2; k++) {
            orri_free(&r->allocator, t->spirv[k], t->spirv_words[k] * 4);
            drop_pending(r, t, k);
        }
    }
    for (uint32_t i = 0; i < l->res_count; i++) orri_image_destroy(r, &l->res[i].image);
    for (uint32_t b = 0; b < l->block_count; b++) orri_memory_free(r, &l->blocks[b]);
    orri_free(&r->allocator, l->blocks, sizeof *l->blocks * l->res_count);
    if (l->pool) vkDestroyDescriptorPool(r->device, l->pool, NULL);
    orri_free(&r->allocator, l->techs, sizeof *l->techs * l->count);
    orri_free(&r->allocator, l->res, sizeof *l->res * l->res_count);
    *l = (tech_list){0};
    r->objects_epoch++;
}

/* Lets the GPU finish the frames that recorded the list. */
static void list_wait(orr_renderer *r, tech_list *l)
{
    if (l->recorded) ORRI_VK_LOG(r, vkQueueWaitIdle(r->queue));
    l->recorded = false;
}

void orri_techniques_fini(orr_renderer *r)
{
    orri_techniques *ts = r->techniques;
    if (!ts) return;
    for (uint32_t i = 0; i < ts->list_count; i++) list_clear(r, &ts->lists[i]);
    orri_free(&r->allocator, ts->lists, sizeof *ts->lists * ts->list_capacity);
    orri_free(&r->allocator, ts->where, sizeof *ts->where * ts->where_capacity);
    orr_handle_pool_fini(&ts->ids);
    if (ts->vertex) vkDestroyShaderModule(r->device, ts->vertex, NULL);
    if (ts->scene_vertex) vkDestroyShaderModule(r->device, ts->scene_vertex, NULL);
    if (ts->sampler) vkDestroySampler(r->device, ts->sampler, NULL);
    orri_free(&r->allocator, ts, sizeof *ts);
    r->techniques = NULL;
}

void orri_techniques_target_gone(orr_renderer *r, uint32_t target, bool now)
{
    tech_list *l = list_of(r, target);
    if (!l) return;
    if (!now) list_wait(r, l);
    list_clear(r, l);
}

bool orri_techniques_active(const orr_renderer *r, uint32_t target) { return list_of(r, target) != NULL; }

bool orri_techniques_replace_view(const orr_renderer *r, uint32_t target, uint32_t view)
{
    const tech_list *l = list_of(r, target);
    if (!l) return false;
    for (uint32_t n = 0; n < l->count; n++)
        if (l->techs[n].replaces_view && l->techs[n].view.index == view &&
            l->techs[n].view.generation == r->views[view].generation)
            return true;
    return false;
}

bool orri_techniques_read_depth(const orr_renderer *r, uint32_t view)
{
    orri_techniques *ts = r->techniques;
    if (!ts) return false;
    for (uint32_t i = 0; i < ts->list_count; i++)
        for (uint32_t k = 0; k < ts->lists[i].res_count; k++)
            if (ts->lists[i].res[k].kind == RES_DEPTH && ts->lists[i].res[k].view.index == view) return true;
    return false;
}

/* ---- checking a list ------------------------------------------------------------------------- */

/* The renderer's last error, prefixed with the call. */
static orr_result refuse(orr_renderer *r, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
static orr_result refuse(orr_renderer *r, orr_result code, const char *fmt, ...)
{
    char msg[sizeof r->error.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return orri_gpu_fail(r, code, "orr_renderer_set_techniques: %s", msg);
}

/* What a list being checked is made of before it replaces the old one. */
typedef struct plan {
    const orr_technique_desc *descs;
    uint32_t count;
    tech_res res[MAX_RES];
    uint32_t res_count;
    /* per desc (list order) */
    uint32_t reads[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX_READS];   /* declared resources */
    uint32_t writes[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX_WRITES];
    uint32_t producer[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX_READS]; /* list index, or NONE */
    uint32_t depth[ORR_TECHNIQUE_MAX];  /* a scene technique's view depth resource, or NONE */
    /* edges: before[i] has bit j when j must run before i */
    uint32_t before[ORR_TECHNIQUE_MAX];
    uint32_t edge_res[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX]; /* [i][j]: the resource of edge j -> i */
    uint32_t order[ORR_TECHNIQUE_MAX];  /* running order: list indices */
    uint32_t run_of[ORR_TECHNIQUE_MAX]; /* list index -> running position */
} plan;

static uint32_t res_find(const plan *p, res_kind kind, const char *name, orr_view_id view)
{
    for (uint32_t i = 0; i < p->res_count; i++) {
        const tech_res *x = &p->res[i];
        if (x->kind != kind) continue;
        if (kind == RES_DEPTH ? orr_view_id_eq(x->view, view) : !strcmp(x->name, name)) return i;
    }
    return NONE;
}

static uint32_t res_add(plan *p, res_kind kind, const char *name)
{
    tech_res *x = &p->res[p->res_count];
    *x = (tech_res){.kind = kind, .divisor = 1};
    snprintf(x->name, sizeof x->name, "%s", name);
    return p->res_count++;
}

static bool writes_res(const plan *p, uint32_t i, uint32_t res)
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
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': a scene technique needs a view (whose "
                      "camera, cull and depth it draws with)", n);
    if (t->samples > VK_SAMPLE_COUNT_1_BIT)
        return refuse(r, ORR_ERROR_UNSUPPORTED,
                      "technique '%s': scene techniques on a multisampled target are not supported", n);
    if ((unsigned)d->place > ORR_PLACE_AFTER_VIEW || (unsigned)sc->depth_test > ORR_DEPTH_ALWAYS ||
        (unsigned)sc->depth_load > ORR_LOAD_DONT_CARE || (unsigned)sc->blend > ORR_BLEND_ADD ||
        (unsigned)sc->cull > ORR_FACE_CULL_FRONT || (unsigned)sc->strategy > ORR_TECHNIQUE_INDIRECT)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': place, depth_test, depth_load, blend, cull or strategy is out of its enum", n);
    if (sc->passes >> ORR_PASS_COUNT)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': passes 0x%x names no orr_pass above bit %d", n,
                      sc->passes, ORR_PASS_COUNT - 1);
    if (!d->write_count && !sc->depth_write)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': writes nothing (no colour write and depth_write off)", n);
    if (sc->vertex.glsl && sc->vertex.spirv)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': vertex has GLSL source and SPIR-V (one of the two, or none)", n);
    if (sc->vertex.spirv && (sc->vertex.spirv_size < 20 || sc->vertex.spirv_size % 4))
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': vertex.spirv_size %zu is not a whole number of SPIR-V words", n,
                      sc->vertex.spirv_size);
    if (sc->replaces_view && (d->place != ORR_PLACE_AFTER_VIEWS || sc->depth_load != ORR_LOAD_CLEAR))
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': replaces its view's passes, so it runs after the views and clears the depth "
                      "(place ORR_PLACE_AFTER_VIEWS, depth_load ORR_LOAD_CLEAR)", n);
    if (d->place != ORR_PLACE_AFTER_VIEWS) { /* recorded with its view, outside the frame graph */
        const char *where = d->place == ORR_PLACE_BEFORE_VIEW ? "before" : "right after";
        if (d->read_count)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': placed %s its view, it reads '%s' (place it after the views to read)", n,
                          where, d->reads[0]);
        for (uint32_t w = 0; w < d->write_count; w++)
            if (d->writes[w].name && strcmp(d->writes[w].name, "color"))
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
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
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': a compute technique has no fragment shader (its shader is compute.shader)", n);
    if (!c->shader.glsl == !c->shader.spirv)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': compute.shader needs GLSL source or SPIR-V (one of the two)", n);
    if (c->shader.spirv && (c->shader.spirv_size < 20 || c->shader.spirv_size % 4))
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': compute.shader.spirv_size %zu is not a whole number of SPIR-V words", n,
                      c->shader.spirv_size);
    if (d->place != ORR_PLACE_AFTER_VIEWS)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': a compute technique runs after the views (place it there)", n);
    if ((unsigned)c->dispatch > ORR_DISPATCH_PER_INSTANCE)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': compute.dispatch %u is no orr_dispatch", n,
                      (unsigned)c->dispatch);
    if (c->dispatch == ORR_DISPATCH_FIXED)
        for (int k = 0; k < 3; k++)
            if (!c->groups[k] || c->groups[k] > r->properties.limits.maxComputeWorkGroupCount[k])
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': compute.groups[%d] is %u (1 to %u on this device)", n, k, c->groups[k],
                              r->properties.limits.maxComputeWorkGroupCount[k]);
    if (c->dispatch == ORR_DISPATCH_PER_INSTANCE && d->push_constant_size + 4 > ORR_TECHNIQUE_MAX_PUSH)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': push_constant_size %u leaves no room for the slot count a per-instance "
                      "dispatch adds (at most %d)", n, d->push_constant_size, ORR_TECHNIQUE_MAX_PUSH - 4);
    for (uint32_t w = 0; w < d->write_count; w++)
        if (d->writes && d->writes[w].name && !strcmp(d->writes[w].name, "color"))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': a compute technique writes storage images, and the target's colour "
                          "(rgba8 srgb) is none: write a transient and copy it with a full-screen technique", n);
    return ORR_OK;
}

/* The descs themselves: names, counts, sizes, views. */
static orr_result check_descs(orr_renderer *r, const orri_target *t, uint32_t target, const plan *p)
{
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        if (!d->name || !d->name[0]) return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "techniques[%u].name is empty", i);
        const char *n = d->name;
        if (strlen(n) > NAME_MAX_LEN)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "techniques[%u].name is longer than %d characters", i,
                          NAME_MAX_LEN);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(p->descs[j].name, n))
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "techniques[%u] and [%u] are both named '%s'", j, i, n);
        if ((unsigned)d->kind > ORR_TECHNIQUE_COMPUTE)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': kind %u is no orr_technique_kind", n,
                          (unsigned)d->kind);
        bool scene = d->kind == ORR_TECHNIQUE_SCENE;
        bool depth_only = scene && d->write_count == 0;
        if (d->kind == ORR_TECHNIQUE_COMPUTE) ORRI_TRY(check_compute(r, d));
        else if (depth_only ? d->fragment.glsl || d->fragment.spirv : !d->fragment.glsl == !d->fragment.spirv)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          depth_only ? "technique '%s': writes nothing but depth, so it takes no fragment shader"
                                     : "technique '%s': fragment needs GLSL source or SPIR-V (one of the two)",
                          n);
        if (d->fragment.spirv && (d->fragment.spirv_size < 20 || d->fragment.spirv_size % 4))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': fragment.spirv_size %zu is not a whole number of SPIR-V words", n,
                          d->fragment.spirv_size);
        uint32_t min_writes = scene ? 0 : 1; /* a compute technique writes at least one storage image */
        if (d->write_count < min_writes || d->write_count > ORR_TECHNIQUE_MAX_WRITES || (d->write_count && !d->writes))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %u writes (%u to %d)", n, d->write_count,
                          min_writes, ORR_TECHNIQUE_MAX_WRITES);
        if (scene) ORRI_TRY(check_scene(r, t, d));
        else if (d->place != ORR_PLACE_AFTER_VIEWS)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': a full-screen technique runs after the views (place it there)", n);
        if (d->read_count > ORR_TECHNIQUE_MAX_READS || (d->read_count && !d->reads))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %u reads (at most %d)", n, d->read_count,
                          ORR_TECHNIQUE_MAX_READS);
        if (d->push_constant_size % 4 || d->push_constant_size > ORR_TECHNIQUE_MAX_PUSH)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': push_constant_size %u (a multiple of 4, at most %d)", n,
                          d->push_constant_size, ORR_TECHNIQUE_MAX_PUSH);
        if (!orr_view_id_is_none(d->view)) {
            const char *why = view_target_ok(r, d->view, target);
            if (why) return refuse(r, ORR_ERROR_STALE_HANDLE, "technique '%s': its view %s", n, why);
        }
        for (uint32_t w = 0; w < d->write_count; w++) {
            const orr_technique_write *wr = &d->writes[w];
            if (!wr->name || !wr->name[0])
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': writes[%u].name is empty", n, w);
            if (strlen(wr->name) > NAME_MAX_LEN)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': writes[%u].name is too long", n, w);
            if (!strcmp(wr->name, "depth"))
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': writes 'depth', which only the built-in passes write", n);
            if ((unsigned)wr->format >= ORR_FORMAT_COUNT || (unsigned)wr->load > ORR_LOAD_DONT_CARE)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': writes[%u] ('%s') has no such %s", n,
                              w, wr->name, (unsigned)wr->format >= ORR_FORMAT_COUNT ? "format" : "load op");
            if (wr->divisor > ORR_TECHNIQUE_MAX_DIVISOR || (wr->divisor > 1 && !strcmp(wr->name, "color")))
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': writes[%u] ('%s') has divisor %u (%s)", n, w, wr->name, wr->divisor,
                              strcmp(wr->name, "color") ? "1 to 16" : "the target's colour is the target's size");
            if (!strcmp(wr->name, "color") && wr->format != ORR_FORMAT_DEFAULT)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': writes 'color' as %s; the target's colour has its own format (leave "
                              "it ORR_FORMAT_DEFAULT)",
                              n, orr_format_name(wr->format));
            for (uint32_t k = 0; k < w; k++)
                if (!strcmp(d->writes[k].name, wr->name))
                    return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': writes '%s' twice", n, wr->name);
        }
        for (uint32_t k = 0; k < d->read_count; k++) {
            const char *rn = d->reads[k];
            if (!rn || !rn[0])
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': reads[%u] is empty", n, k);
            if (!strcmp(rn, "depth") && orr_view_id_is_none(d->view))
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': reads 'depth' without a view (depth is a view's)", n);
            if (!strcmp(rn, "depth") && t->samples > VK_SAMPLE_COUNT_1_BIT)
                return refuse(r, ORR_ERROR_UNSUPPORTED,
                              "technique '%s': reads 'depth' of a multisampled target (not supported)", n);
            for (uint32_t j = 0; j < k; j++)
                if (!strcmp(d->reads[j], rn))
                    return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': reads '%s' twice", n, rn);
        }
    }
    return ORR_OK;
}

/* The depth of `view` as a resource of the list. */
static uint32_t depth_res(plan *p, orr_view_id view)
{
    uint32_t x = res_find(p, RES_DEPTH, NULL, view);
    if (x != NONE) return x;
    char name[NAME_MAX_LEN + 8];
    snprintf(name, sizeof name, "depth@view%u", view.index);
    x = res_add(p, RES_DEPTH, name);
    p->res[x].view = view;
    p->res[x].vk_format = ORRI_DEPTH_FORMAT;
    return x;
}

/* The attachments: "color", the views' depths, the transients with their formats (checked on the
 * device); each read and write resolved to one. */
static orr_result resolve_resources(orr_renderer *r, plan *p)
{
    p->res_count = 0;
    tech_res *color = &p->res[res_add(p, RES_COLOR, "color")];
    color->format = ORR_FORMAT_DEFAULT;
    color->vk_format = ORRI_COLOR_FORMAT;
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        for (uint32_t w = 0; w < d->write_count; w++) {
            const orr_technique_write *wr = &d->writes[w];
            if (!strcmp(wr->name, "color")) {
                p->writes[i][w] = 0;
                continue;
            }
            uint32_t x = res_find(p, RES_TRANSIENT, wr->name, (orr_view_id){0});
            if (x == NONE) {
                x = res_add(p, RES_TRANSIENT, wr->name);
                p->res[x].format = wr->format;
                p->res[x].vk_format = formats[wr->format].vk;
                p->res[x].source = i; /* its first writer, for messages */
                p->res[x].divisor = wr->divisor ? wr->divisor : 1;
            } else if (wr->divisor && wr->divisor != p->res[x].divisor) {
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s' writes '%s' at 1/%u of the target's size, technique '%s' at 1/%u: one "
                              "transient, one size",
                              d->name, wr->name, wr->divisor, p->descs[p->res[x].source].name, p->res[x].divisor);
            } else if (wr->format != ORR_FORMAT_DEFAULT && wr->format != p->res[x].format) {
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
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
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s' writes '%s' at 1/%u and '%s' at 1/%u of the target's size: one pass, "
                              "one size",
                              d->name, d->writes[0].name, a, d->writes[w].name, b);
            if (b != 1 && d->kind == ORR_TECHNIQUE_SCENE)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
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
        const char *cannot = !(have & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)                                 ? "sample"
                             : p->res[x].attachment && !(have & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) ? "render to"
                             : p->res[x].storage && !(have & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
                                 ? "write as a storage image (a compute technique writes it)"
                                 : NULL;
        if (cannot)
            return refuse(r, ORR_ERROR_UNSUPPORTED,
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
                x = res_find(p, RES_TRANSIENT, rn, (orr_view_id){0});
                if (x == NONE) {
                    char have[256] = "'color', 'depth' (with a view)";
                    size_t n = strlen(have);
                    for (uint32_t y = 1; y < p->res_count && n + 1 < sizeof have; y++)
                        if (p->res[y].kind == RES_TRANSIENT) {
                            int w = snprintf(have + n, sizeof have - n, ", '%s'", p->res[y].name);
                            if (w > 0) n += (size_t)w;
                        }
                    return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                  "technique '%s' reads '%s', which nothing writes (there are %s)", d->name, rn, have);
                }
            }
            p->reads[i][k] = x;
        }
        p->depth[i] = d->kind == ORR_TECHNIQUE_SCENE ? depth_res(p, d->view) : NONE;
    }
    return ORR_OK;
}

/* Who each read sees, the edges that follow, and the running order (the list's, moved only where an
 * edge needs it); a cycle is refused, naming it. */
static orr_result order_list(orr_renderer *r, plan *p)
{
    memset(p->before, 0, sizeof p->before);
    for (uint32_t i = 0; i < p->count; i++) {
        const orr_technique_desc *d = &p->descs[i];
        for (uint32_t k = 0; k < d->read_count; k++) {
            uint32_t x = p->reads[i][k];
            uint32_t prod = NONE;
            if (p->res[x].kind != RES_DEPTH) {
                for (uint32_t j = i; j-- > 0;)
                    if (writes_res(p, j, x)) {
                        prod = j;
                        break;
                    }
                if (prod == NONE && x != 0) /* a transient: its first writer listed after */
                    for (uint32_t j = i + 1; j < p->count && prod == NONE; j++)
                        if (writes_res(p, j, x)) prod = j;
                if (prod == NONE && x != 0)
                    return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                  "technique '%s' reads '%s', which nothing but itself writes", d->name,
                                  p->res[x].name);
            }
            p->producer[i][k] = prod;
            if (prod != NONE) {
                p->before[i] |= 1u << prod;
                p->edge_res[i][prod] = x;
            }
            /* later writers of what it reads wait for it (they would overwrite what it reads) */
            for (uint32_t j = i + 1; j < p->count; j++)
                if (j != prod && writes_res(p, j, x) && (prod == NONE || j > prod)) {
                    p->before[j] |= 1u << i;
                    p->edge_res[j][i] = x;
                }
        }
        /* writers of one attachment keep the list's order */
        for (uint32_t w = 0; w < d->write_count; w++)
            for (uint32_t j = i + 1; j < p->count; j++)
                if (writes_res(p, j, p->writes[i][w])) {
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
        uint32_t pick = NONE;
        for (uint32_t i = 0; i < p->count && pick == NONE; i++)
            if (!(done & (1u << i)) && (p->before[i] & ~done) == 0) pick = i;
        if (pick == NONE) { /* a cycle among what is left: walk back along edges until one repeats */
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
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "a dependency cycle: %s", msg);
        }
        done |= 1u << pick;
        p->run_of[pick] = n;
        p->order[n] = pick;
    }
    return ORR_OK;
}

/* ---- shaders and pipelines --------------------------------------------------------------------- */

static const char *ordinal_io(uint32_t n, char *buf, size_t size)
{
    snprintf(buf, size, "%u", n);
    return buf;
}

/* The shader's SPIR-V (compiled when GLSL) checked against the desc. *words is the caller's. */
static orr_result shader_for(orr_renderer *r, const orr_technique_desc *d, uint32_t **words, size_t *word_count)
{
    const char *n = d->name;
    char msg[sizeof r->error.message - 64];
    const char *sname = d->fragment.name ? d->fragment.name : n;
    if (d->fragment.glsl) {
        if (!orri_shader_compile(&r->allocator, ORRI_SHADER_FRAGMENT, d->fragment.glsl, sname, NULL, words, word_count, msg,
                                 sizeof msg))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': GLSL does not compile: %s", n, msg);
    } else {
        *word_count = d->fragment.spirv_size / 4;
        *words = orri_alloc(&r->allocator, d->fragment.spirv_size);
        if (!*words) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "technique '%s': out of memory", n);
        memcpy(*words, d->fragment.spirv, d->fragment.spirv_size);
    }
    orri_shader_io io;
    if (!orri_shader_reflect(*words, *word_count, &io, msg, sizeof msg))
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s", n, msg);
    if (!io.has_main || io.stage != ORRI_SHADER_FRAGMENT)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s has no fragment entry point 'main'", n, sname);
    char a[16];
    if (io.other_count)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s declares '%s' (set %u, binding %u), which a full-screen technique does not "
                      "provide (only its reads, as sampler2D at set 0)",
                      n, sname, io.other[0].name, io.other[0].set, io.other[0].binding);
    for (uint32_t s = 0; s < io.sampled_count; s++) {
        const orri_shader_slot *sl = &io.sampled[s];
        if (sl->set != 0 || sl->binding >= d->read_count)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s samples '%s' at set %u, binding %u, but declares %u reads (set 0, "
                          "bindings 0 to %d)",
                          n, sname, sl->name, sl->set, sl->binding, d->read_count, (int)d->read_count - 1);
        if (!sl->sampled_2d)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (binding %u, read '%s') as another kind than sampler2D", n,
                          sname, sl->name, sl->binding, d->reads[sl->binding]);
    }
    for (uint32_t k = 0; k < d->read_count; k++) {
        uint32_t found = 0;
        for (uint32_t s = 0; s < io.sampled_count; s++) found += io.sampled[s].set == 0 && io.sampled[s].binding == k;
        if (found != 1)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s %s set 0, binding %u (read '%s')", n, sname,
                          found ? "binds more than one sampler at" : "does not sample", k, d->reads[k]);
    }
    for (uint32_t o = 0; o < io.output_count; o++) {
        const orri_shader_slot *sl = &io.outputs[o];
        if (sl->location >= d->write_count)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' at location %s, but declares %u writes (locations 0 to %d)",
                          n, sname, sl->name, ordinal_io(sl->location, a, sizeof a), d->write_count,
                          (int)d->write_count - 1);
        if (!sl->is_float)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' (location %u) with integer components; the attachment "
                          "'%s' takes floats",
                          n, sname, sl->name, sl->location, d->writes[sl->location].name);
    }
    for (uint32_t w = 0; w < d->write_count; w++) {
        uint32_t found = 0;
        for (uint32_t o = 0; o < io.output_count; o++) found += io.outputs[o].location == w;
        if (!found)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s has no output at location %u (write '%s')", n, sname, w,
                          d->writes[w].name);
    }
    for (uint32_t k = 0; k < io.input_count; k++) {
        const orri_shader_slot *sl = &io.inputs[k];
        if (sl->location != 0 || sl->components > 2 || !sl->is_float)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s takes input '%s' at location %u; the full-screen vertex shader passes "
                          "only uv (location 0, vec2)",
                          n, sname, sl->name, sl->location);
    }
    if (io.push_size != d->push_constant_size)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s has a push constant block of %u bytes, the technique declares %u", n, sname,
                      io.push_size, d->push_constant_size);
    return ORR_OK;
}

static orr_result ensure_shared(orr_renderer *r)
{
    orri_techniques *ts = r->techniques;
    if (!ts) {
        ts = orri_alloc(&r->allocator, sizeof *ts);
        if (!ts) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
        orr_handle_pool_init(&ts->ids, &r->allocator, 0);
        r->techniques = ts;
    }
    if (!ts->vertex)
        ORRI_TRY(orri_shader_module(r, orri_spv_technique_fullscreen_vert, orri_spv_technique_fullscreen_vert_size,
                                    &ts->vertex));
    if (!ts->scene_vertex)
        ORRI_TRY(orri_shader_module(r, orri_spv_technique_scene_vert, orri_spv_technique_scene_vert_size,
                                    &ts->scene_vertex));
    if (!ts->sampler) {
        VkSamplerCreateInfo si = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            .magFilter = VK_FILTER_NEAREST,
            .minFilter = VK_FILTER_NEAREST,
            .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
            .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        };
        ORRI_VK(r, vkCreateSampler(r->device, &si, NULL, &ts->sampler));
    }
    return ORR_OK;
}

/* The technique's layouts and pipeline, from its checked SPIR-V. */
/* A technique's graphics pipeline: triangle lists, one viewport and scissor (dynamic), one sample, drawn
 * with dynamic rendering into the formats `rendering` names; the rest is the caller's. */
static orr_result make_pipeline(orr_renderer *r, const orr_technique_desc *d, tech *t,
                                const VkPipelineRenderingCreateInfo *rendering,
                                const VkPipelineShaderStageCreateInfo *stages, uint32_t stage_count,
                                const VkPipelineVertexInputStateCreateInfo *vi,
                                const VkPipelineRasterizationStateCreateInfo *rs,
                                const VkPipelineDepthStencilStateCreateInfo *ds,
                                const VkPipelineColorBlendStateCreateInfo *cb,
                                const VkPipelineDynamicStateCreateInfo *dy)
{
    VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                 .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                            .viewportCount = 1, .scissorCount = 1};
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    VkGraphicsPipelineCreateInfo gi = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = rendering,
        .stageCount = stage_count,
        .pStages = stages,
        .pVertexInputState = vi,
        .pInputAssemblyState = &ia,
        .pViewportState = &vp,
        .pRasterizationState = rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = ds,
        .pColorBlendState = cb,
        .pDynamicState = dy,
        .layout = t->layout,
    };
    VkResult made = vkCreateGraphicsPipelines(r->device, r->pipeline_cache, 1, &gi, NULL, &t->pipeline);
    if (made != VK_SUCCESS)
        return refuse(r, ORR_ERROR_VULKAN, "technique '%s': vkCreateGraphicsPipelines failed: %s", d->name,
                      orri_vk_result_name(made));
    return ORR_OK;
}

static orr_result build_pipeline(orr_renderer *r, const tech_res *res, const orr_technique_desc *d, tech *t,
                                 const uint32_t *words, size_t word_count)
{
    orri_techniques *ts = r->techniques;
    if (d->read_count && !t->set_layout) { /* a reload keeps the layouts: same reads, same host data */
        VkDescriptorSetLayoutBinding b[ORR_TECHNIQUE_MAX_READS];
        for (uint32_t k = 0; k < d->read_count; k++)
            b[k] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                                  VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = d->read_count, .pBindings = b};
        ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &t->set_layout));
    }
    VkPushConstantRange range = {VK_SHADER_STAGE_FRAGMENT_BIT, 0, d->push_constant_size};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = d->read_count ? 1 : 0,
        .pSetLayouts = &t->set_layout,
        .pushConstantRangeCount = d->push_constant_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    if (!t->layout) ORRI_VK(r, vkCreatePipelineLayout(r->device, &pli, NULL, &t->layout));
    VkShaderModule fs;
    ORRI_TRY(orri_shader_module(r, words, word_count * 4, &fs));
    VkFormat color_formats[ORR_TECHNIQUE_MAX_WRITES];
    VkPipelineColorBlendAttachmentState blend[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < d->write_count; w++) {
        color_formats[w] = res[t->writes[w]].vk_format;
        blend[w] = (VkPipelineColorBlendAttachmentState){.colorWriteMask = 0xf};
    }
    VkPipelineRenderingCreateInfo rendering = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                               .colorAttachmentCount = d->write_count,
                                               .pColorAttachmentFormats = color_formats};
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = ts->vertex, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = fs, .pName = "main"},
    };
    VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                 .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
                                                 .lineWidth = 1.0f};
    VkPipelineDepthStencilStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = d->write_count, .pAttachments = blend};
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                           .dynamicStateCount = 2, .pDynamicStates = dyn};
    orr_result made = make_pipeline(r, d, t, &rendering, stages, 2, &vi, &rs, &ds, &cb, &dy);
    vkDestroyShaderModule(r->device, fs, NULL);
    return made;
}

/* ---- scene techniques ------------------------------------------------------------------------- */

/* One stage's SPIR-V (compiled when GLSL, with the device's texture path defined), reflected. *words
 * is the caller's. */
static orr_result stage_spirv(orr_renderer *r, const orr_technique_desc *d, const orr_shader_desc *sh,
                              orri_shader_stage stage, uint32_t **words, size_t *word_count, orri_shader_io *io)
{
    const char *n = d->name;
    const char *what = stage == ORRI_SHADER_VERTEX ? "vertex" : "fragment";
    const char *sname = sh->name ? sh->name : n;
    char msg[sizeof r->error.message - 64];
    if (sh->glsl) {
        const char *pre = r->textures.array ? "#define ORR_SCENE_TEXTURE_ARRAY 1\n" : NULL;
        if (!orri_shader_compile(&r->allocator, stage, sh->glsl, sname, pre, words, word_count, msg, sizeof msg))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s GLSL does not compile: %s", n, what, msg);
    } else {
        *word_count = sh->spirv_size / 4;
        *words = orri_alloc(&r->allocator, sh->spirv_size);
        if (!*words) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "technique '%s': out of memory", n);
        memcpy(*words, sh->spirv, sh->spirv_size);
    }
    if (!orri_shader_reflect(*words, *word_count, io, msg, sizeof msg))
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s", n, msg);
    if (!io->has_main || io->stage != stage)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s has no %s entry point 'main'", n, sname, what);
    /* the descriptors: the scene's (scene.glsl) and its reads */
    for (uint32_t k = 0; k < io->other_count; k++) {
        const orri_shader_slot *sl = &io->other[k];
        bool ok = sl->set == 0 && (sl->binding == 0 ? sl->uniform_buffer : sl->binding <= 7 && sl->storage_buffer);
        if (!ok)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (set %u, binding %u), which the scene does not provide "
                          "(orrery/scene.glsl: set 0, the view block at binding 0, storage buffers at 1 to 7)",
                          n, sname, sl->name, sl->set, sl->binding);
    }
    for (uint32_t k = 0; k < io->sampled_count; k++) {
        const orri_shader_slot *sl = &io->sampled[k];
        if (sl->set == 1 && sl->binding == 0) continue; /* the textures */
        if (sl->set != 2 || sl->binding >= d->read_count)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s samples '%s' at set %u, binding %u, but declares %u reads (set 2, "
                          "bindings 0 to %d; the textures are set 1, binding 0)",
                          n, sname, sl->name, sl->set, sl->binding, d->read_count, (int)d->read_count - 1);
        if (!sl->sampled_2d)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (set 2, binding %u, read '%s') as another kind than "
                          "sampler2D", n, sname, sl->name, sl->binding, d->reads[sl->binding]);
    }
    if (io->push_size && io->push_size != d->push_constant_size)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s has a push constant block of %u bytes, the technique declares %u", n, sname,
                      io->push_size, d->push_constant_size);
    return ORR_OK;
}

/* A scene technique's stages, checked against its desc and each other; the SPIR-V of each (NULL: the
 * library's vertex stage, or no fragment stage) is the caller's. */
static orr_result scene_shaders(orr_renderer *r, const orr_technique_desc *d, uint32_t **vs, size_t *vs_words,
                                uint32_t **fs, size_t *fs_words, uint32_t *vertex_inputs)
{
    *vertex_inputs = 0x1ff; /* the library's vertex stage reads all nine */
    const char *n = d->name;
    const orr_shader_desc *vsh = &d->scene.vertex;
    orri_shader_io vio = {0}, fio = {0};
    bool own_vertex = vsh->glsl || vsh->spirv;
    if (own_vertex) {
        ORRI_TRY(stage_spirv(r, d, vsh, ORRI_SHADER_VERTEX, vs, vs_words, &vio));
        const char *sname = vsh->name ? vsh->name : n;
        *vertex_inputs = 0;
        for (uint32_t k = 0; k < vio.input_count; k++) *vertex_inputs |= 1u << (vio.inputs[k].location & 31);
        for (uint32_t k = 0; k < vio.input_count; k++)
            if (vio.inputs[k].location > 5)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s takes input '%s' at location %u; the pool vertex is at locations "
                              "0 to 5 (orrery/scene.glsl's orr_in_*)", n, sname, vio.inputs[k].name,
                              vio.inputs[k].location);
        if (d->scene.layer_mask && !vio.layer_constant)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': has a layer mask, but %s does not declare ORR_SCENE_LAYER_MASK "
                          "(constant_id 100: orrery/scene.glsl declares it, orr_scene_layer_kept() reads it)",
                          n, sname);
    }
    if (!d->write_count) return ORR_OK;
    ORRI_TRY(stage_spirv(r, d, &d->fragment, ORRI_SHADER_FRAGMENT, fs, fs_words, &fio));
    const char *sname = d->fragment.name ? d->fragment.name : n;
    for (uint32_t k = 0; k < d->read_count; k++) {
        uint32_t found = 0;
        for (uint32_t x = 0; x < fio.sampled_count; x++) found += fio.sampled[x].set == 2 && fio.sampled[x].binding == k;
        if (found != 1)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s %s set 2, binding %u (read '%s')", n,
                          sname, found ? "binds more than one sampler at" : "does not sample", k, d->reads[k]);
    }
    for (uint32_t o = 0; o < fio.output_count; o++) {
        const orri_shader_slot *sl = &fio.outputs[o];
        if (sl->location >= d->write_count)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' at location %u, but declares %u writes (locations 0 to %d)",
                          n, sname, sl->name, sl->location, d->write_count, (int)d->write_count - 1);
        if (!sl->is_float)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' (location %u) with integer components; the attachment "
                          "'%s' takes floats", n, sname, sl->name, sl->location, d->writes[sl->location].name);
    }
    for (uint32_t w = 0; w < d->write_count; w++) {
        uint32_t found = 0;
        for (uint32_t o = 0; o < fio.output_count; o++) found += fio.outputs[o].location == w;
        if (!found)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s has no output at location %u (write '%s')",
                          n, sname, w, d->writes[w].name);
    }
    for (uint32_t k = 0; k < fio.input_count; k++) {
        const orri_shader_slot *in = &fio.inputs[k];
        if (!own_vertex) {
            if (in->location > 8)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s takes input '%s' at location %u; the library's vertex stage passes "
                              "locations 0 to 8 (orrery/scene.glsl's ORR_SCENE_FRAGMENT inputs)",
                              n, sname, in->name, in->location);
            continue;
        }
        bool matched = false;
        for (uint32_t o = 0; o < vio.output_count && !matched; o++)
            matched = vio.outputs[o].location == in->location && vio.outputs[o].components >= in->components;
        if (!matched)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s takes input '%s' at location %u, which its vertex shader does not write",
                          n, sname, in->name, in->location);
    }
    return ORR_OK;
}

static const VkCompareOp depth_ops[] = {
    [ORR_DEPTH_NEARER_OR_EQUAL] = VK_COMPARE_OP_GREATER_OR_EQUAL, /* reversed Z: nearer is greater */
    [ORR_DEPTH_NEARER] = VK_COMPARE_OP_GREATER,
    [ORR_DEPTH_EQUAL] = VK_COMPARE_OP_EQUAL,
    [ORR_DEPTH_FARTHER] = VK_COMPARE_OP_LESS,
    [ORR_DEPTH_ALWAYS] = VK_COMPARE_OP_ALWAYS,
};

/* A scene technique's layouts and pipeline: the mesh pipelines' vertex input and sets 0 and 1, its reads
 * at set 2, its state. */
static orr_result build_scene_pipeline(orr_renderer *r, const tech_res *res, const orr_technique_desc *d, tech *t,
                                       const uint32_t *vs, size_t vs_words, const uint32_t *fs, size_t fs_words,
                                       uint32_t vertex_inputs)
{
    orri_techniques *ts = r->techniques;
    const orr_technique_scene *sc = &d->scene;
    if (d->read_count && !t->set_layout) { /* a reload keeps the layouts: same reads, same host data */
        VkDescriptorSetLayoutBinding b[ORR_TECHNIQUE_MAX_READS];
        for (uint32_t k = 0; k < d->read_count; k++)
            b[k] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                                  VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = d->read_count, .pBindings = b};
        ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &t->set_layout));
    }
    VkDescriptorSetLayout sets[3] = {r->set_layout, r->textures.layout, t->set_layout};
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, d->push_constant_size};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = d->read_count ? 3 : 2,
        .pSetLayouts = sets,
        .pushConstantRangeCount = d->push_constant_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    if (!t->layout) ORRI_VK(r, vkCreatePipelineLayout(r->device, &pli, NULL, &t->layout));
    VkShaderModule vmod = ts->scene_vertex, fmod = VK_NULL_HANDLE;
    if (vs) ORRI_TRY(orri_shader_module(r, vs, vs_words * 4, &vmod));
    if (fs) {
        orr_result rc = orri_shader_module(r, fs, fs_words * 4, &fmod);
        if (rc != ORR_OK) {
            if (vs) vkDestroyShaderModule(r->device, vmod, NULL);
            return rc;
        }
    }
    /* the layer mask (ORR_SCENE_LAYER_MASK) in both stages; the texture array's size (the fragment
     * shader's ORR_SCENE_TEXTURE_SLOTS) */
    uint32_t spec_data[2] = {sc->layer_mask, r->textures.slots};
    VkSpecializationMapEntry entries[2] = {{ORRI_SHADER_LAYER_CONSTANT, 0, 4}, {2, 4, 4}};
    VkSpecializationInfo vspec = {1, entries, 4, spec_data};
    VkSpecializationInfo fspec = {r->textures.array ? 2u : 1u, entries, sizeof spec_data, spec_data};
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vmod, .pName = "main", .pSpecializationInfo = &vspec},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = fmod, .pName = "main", .pSpecializationInfo = &fspec},
    };
    VkVertexInputBindingDescription binding = {0, ORRI_VERTEX_BYTES, VK_VERTEX_INPUT_RATE_VERTEX};
    static const VkVertexInputAttributeDescription all[9] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, ORRI_VERTEX_POSITION},
        {1, 0, VK_FORMAT_R32G32B32_SFLOAT, ORRI_VERTEX_NORMAL},
        {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, ORRI_VERTEX_TANGENT},
        {3, 0, VK_FORMAT_R32G32_SFLOAT, ORRI_VERTEX_UV0},
        {4, 0, VK_FORMAT_R32G32_SFLOAT, ORRI_VERTEX_UV1},
        {5, 0, VK_FORMAT_R32G32B32A32_SFLOAT, ORRI_VERTEX_COLOR},
        {6, 0, VK_FORMAT_R32G32B32A32_SFLOAT, ORRI_VERTEX_WEIGHTS},
        {7, 0, VK_FORMAT_R16G16B16A16_UINT, ORRI_VERTEX_JOINTS},
        {8, 0, VK_FORMAT_R32_UINT, ORRI_VERTEX_MORPH},
    };
    VkVertexInputAttributeDescription attrs[9]; /* those the vertex shader reads */
    uint32_t attr_count = 0;
    for (uint32_t a = 0; a < 9; a++)
        if (vertex_inputs & (1u << a)) attrs[attr_count++] = all[a];
    VkPipelineVertexInputStateCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                               .vertexBindingDescriptionCount = 1,
                                               .pVertexBindingDescriptions = &binding,
                                               .vertexAttributeDescriptionCount = attr_count,
                                               .pVertexAttributeDescriptions = attrs};
    VkPipelineRasterizationStateCreateInfo rs = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                 .polygonMode = VK_POLYGON_MODE_FILL,
                                                 .cullMode = VK_CULL_MODE_BACK_BIT, /* dynamic */
                                                 .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = sc->depth_test != ORR_DEPTH_ALWAYS || sc->depth_write,
        .depthWriteEnable = sc->depth_write,
        .depthCompareOp = depth_ops[sc->depth_test],
    };
    VkPipelineColorBlendAttachmentState blend[ORR_TECHNIQUE_MAX_WRITES];
    VkFormat color_formats[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < d->write_count; w++) {
        color_formats[w] = res[t->writes[w]].vk_format;
        blend[w] = (VkPipelineColorBlendAttachmentState){
            .blendEnable = sc->blend != ORR_BLEND_NONE,
            .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
            .dstColorBlendFactor = sc->blend == ORR_BLEND_ADD ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
            .colorBlendOp = VK_BLEND_OP_ADD,
            .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
            .dstAlphaBlendFactor = sc->blend == ORR_BLEND_ADD ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
            .alphaBlendOp = VK_BLEND_OP_ADD,
            .colorWriteMask = 0xf,
        };
    }
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = d->write_count, .pAttachments = blend};
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_CULL_MODE};
    VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                           .dynamicStateCount = 3, .pDynamicStates = dyn};
    VkPipelineRenderingCreateInfo rendering = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                               .colorAttachmentCount = d->write_count,
                                               .pColorAttachmentFormats = color_formats,
                                               .depthAttachmentFormat = ORRI_DEPTH_FORMAT};
    orr_result made = make_pipeline(r, d, t, &rendering, stages, fs ? 2 : 1, &vi, &rs, &ds, &cb, &dy);
    if (vs) vkDestroyShaderModule(r->device, vmod, NULL);
    if (fs) vkDestroyShaderModule(r->device, fmod, NULL);
    return made;
}

/* ---- compute techniques ---------------------------------------------------------------------- */

/* The GLSL format qualifier of a storage image of each format (NULL: none can be one). */
static const char *const storage_qualifier[ORR_FORMAT_COUNT] = {
    [ORR_FORMAT_RGBA8_UNORM] = "rgba8", [ORR_FORMAT_RGBA16F] = "rgba16f", [ORR_FORMAT_RGBA32F] = "rgba32f",
    [ORR_FORMAT_R32F] = "r32f",         [ORR_FORMAT_RG16F] = "rg16f",     [ORR_FORMAT_R8_UNORM] = "r8",
    [ORR_FORMAT_B10G11R11F] = "r11f_g11f_b10f",
};

/* A compute technique's SPIR-V (compiled when GLSL), checked against its desc: the scene's buffers at
 * set 0 (with a view), its reads as sampler2D and its writes as storage images of their transients'
 * formats at set 2, its push block. Sets t->local and t->scene_set. *words is the caller's. */
static orr_result compute_shader(orr_renderer *r, const orr_technique_desc *d, const tech_res *res, tech *t,
                                 uint32_t **words, size_t *word_count)
{
    const orr_shader_desc *sh = &d->compute.shader;
    const char *n = d->name, *sname = sh->name ? sh->name : n;
    char msg[sizeof r->error.message - 64];
    if (sh->glsl) {
        if (!orri_shader_compile(&r->allocator, ORRI_SHADER_COMPUTE, sh->glsl, sname, NULL, words, word_count, msg,
                                 sizeof msg))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': compute GLSL does not compile: %s", n, msg);
    } else {
        *word_count = sh->spirv_size / 4;
        *words = orri_alloc(&r->allocator, sh->spirv_size);
        if (!*words) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "technique '%s': out of memory", n);
        memcpy(*words, sh->spirv, sh->spirv_size);
    }
    orri_shader_io io;
    if (!orri_shader_reflect(*words, *word_count, &io, msg, sizeof msg))
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s", n, msg);
    if (!io.has_main || io.stage != ORRI_SHADER_COMPUTE)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s has no compute entry point 'main'", n, sname);
    t->scene_set = false;
    uint32_t found_writes[ORR_TECHNIQUE_MAX_WRITES] = {0};
    for (uint32_t k = 0; k < io.other_count; k++) {
        const orri_shader_slot *sl = &io.other[k];
        if (sl->set == 0) {
            bool ok = sl->binding == 0 ? sl->uniform_buffer : sl->binding <= 7 && sl->storage_buffer;
            if (!ok)
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s declares '%s' (set 0, binding %u), which the scene does not provide "
                              "(orrery/scene.glsl: the view block at binding 0, storage buffers at 1 to 7)",
                              n, sname, sl->name, sl->binding);
            if (orr_view_id_is_none(d->view))
                return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s reads the scene's buffers (set 0, '%s'), which need a view (whose "
                              "block and records it sees): give the technique one",
                              n, sname, sl->name);
            t->scene_set = true;
            continue;
        }
        uint32_t w = sl->binding - ORR_TECHNIQUE_STORAGE_BINDING;
        if (sl->set != 2 || sl->binding < ORR_TECHNIQUE_STORAGE_BINDING || w >= d->write_count || !sl->storage_image)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (set %u, binding %u), which a compute technique does not "
                          "provide (its %u writes are image2D at set 2, bindings %d to %d; the scene's buffers set 0)",
                          n, sname, sl->name, sl->set, sl->binding, d->write_count, ORR_TECHNIQUE_STORAGE_BINDING,
                          ORR_TECHNIQUE_STORAGE_BINDING + (int)d->write_count - 1);
        const tech_res *x = &res[t->writes[w]];
        const char *want = storage_qualifier[x->format], *has = orri_shader_image_format_name(sl->image_format);
        if (!want || strcmp(want, has))
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (write '%s', binding %u) with format qualifier %s; the "
                          "transient is %s (layout(%s))",
                          n, sname, sl->name, x->name, sl->binding, has, orr_format_name(x->format),
                          want ? want : "no storage format");
        found_writes[w]++;
    }
    for (uint32_t w = 0; w < d->write_count; w++)
        if (found_writes[w] != 1)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s %s set 2, binding %u (write '%s')", n,
                          sname, found_writes[w] ? "binds more than one image at" : "does not write an image2D at",
                          ORR_TECHNIQUE_STORAGE_BINDING + w, d->writes[w].name);
    for (uint32_t k = 0; k < io.sampled_count; k++) {
        const orri_shader_slot *sl = &io.sampled[k];
        if (sl->set != 2 || sl->binding >= d->read_count || !sl->sampled_2d)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s samples '%s' at set %u, binding %u; a compute technique's %u reads are "
                          "sampler2D at set 2, bindings 0 to %d (textures, set 1, are not bound for compute)",
                          n, sname, sl->name, sl->set, sl->binding, d->read_count, (int)d->read_count - 1);
    }
    for (uint32_t k = 0; k < d->read_count; k++) {
        uint32_t found = 0;
        for (uint32_t x = 0; x < io.sampled_count; x++) found += io.sampled[x].binding == k;
        if (found != 1)
            return refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s %s set 2, binding %u (read '%s')", n,
                          sname, found ? "binds more than one sampler at" : "does not sample", k, d->reads[k]);
    }
    uint32_t push = d->push_constant_size + (d->compute.dispatch == ORR_DISPATCH_PER_INSTANCE ? 4 : 0);
    if (io.push_size != push)
        return refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s has a push constant block of %u bytes, the technique declares %u%s", n, sname,
                      io.push_size, push,
                      d->compute.dispatch == ORR_DISPATCH_PER_INSTANCE ? " (its push_constant_size, then the slot count)"
                                                                       : "");
    memcpy(t->local, io.local_size, sizeof t->local);
    return ORR_OK;
}

/* A compute technique's layouts (set 0 the scene's, set 1 unbound, set 2 its images) and pipeline. */
static orr_result build_compute_pipeline(orr_renderer *r, const orr_technique_desc *d, tech *t, const uint32_t *words,
                                         size_t word_count)
{
    uint32_t push = d->push_constant_size + (d->compute.dispatch == ORR_DISPATCH_PER_INSTANCE ? 4 : 0);
    if (!t->set_layout) { /* a reload keeps the layouts */
        VkDescriptorSetLayoutBinding b[ORR_TECHNIQUE_MAX_READS + ORR_TECHNIQUE_MAX_WRITES];
        uint32_t count = 0;
        for (uint32_t k = 0; k < d->read_count; k++)
            b[count++] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                                        VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        for (uint32_t w = 0; w < d->write_count; w++)
            b[count++] = (VkDescriptorSetLayoutBinding){ORR_TECHNIQUE_STORAGE_BINDING + w,
                                                        VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
                                                        VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = count, .pBindings = b};
        ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &t->set_layout));
    }
    if (!t->layout) {
        VkDescriptorSetLayout sets[3] = {r->set_layout, r->textures.layout, t->set_layout};
        VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push};
        VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                          .setLayoutCount = 3, .pSetLayouts = sets,
                                          .pushConstantRangeCount = push ? 1 : 0, .pPushConstantRanges = &range};
        ORRI_VK(r, vkCreatePipelineLayout(r->device, &pli, NULL, &t->layout));
    }
    VkShaderModule module;
    ORRI_TRY(orri_shader_module(r, words, word_count * 4, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module, .pName = "main"},
        .layout = t->layout,
    };
    VkResult made = vkCreateComputePipelines(r->device, r->pipeline_cache, 1, &ci, NULL, &t->pipeline);
    vkDestroyShaderModule(r->device, module, NULL);
    if (made != VK_SUCCESS)
        return refuse(r, ORR_ERROR_VULKAN, "technique '%s': vkCreateComputePipelines failed: %s", d->name,
                      orri_vk_result_name(made));
    return ORR_OK;
}

/* The copies a technique's reads need (an attachment it also writes is read from a copy). */
static uint32_t copy_res(plan *p, uint32_t source)
{
    for (uint32_t x = 0; x < p->res_count; x++)
        if (p->res[x].kind == RES_COPY && p->res[x].source == source) return x;
    char name[NAME_MAX_LEN + 8];
    snprintf(name, sizeof name, "%.*s.copy", NAME_MAX_LEN, p->res[source].name);
    uint32_t x = res_add(p, RES_COPY, name);
    p->res[x].source = source;
    p->res[x].format = p->res[source].format;
    p->res[x].vk_format = p->res[source].vk_format;
    p->res[x].divisor = p->res[source].divisor;
    return x;
}

/* Builds the new list into `l` (zeroed), in running order. */
static orr_result build_list(orr_renderer *r, plan *p, tech_list *l)
{
    l->techs = orri_alloc(&r->allocator, sizeof *l->techs * p->count);
    if (!l->techs) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    l->count = p->count;
    for (uint32_t n = 0; n < p->count; n++) {
        uint32_t i = p->order[n];
        const orr_technique_desc *d = &p->descs[i];
        tech *t = &l->techs[n];
        snprintf(t->name, sizeof t->name, "%s", d->name);
        t->view = d->view;
        t->read_count = d->read_count;
        for (uint32_t k = 0; k < d->read_count; k++) {
            uint32_t x = p->reads[i][k];
            t->producer[k] = p->producer[i][k] == NONE ? NONE : p->run_of[p->producer[i][k]];
            if (p->res[x].kind != RES_DEPTH && writes_res(p, i, x)) {
                x = copy_res(p, x);
                t->copies[t->copy_count++] = x;
            }
            t->reads[k] = x;
        }
        t->write_count = d->write_count;
        for (uint32_t w = 0; w < d->write_count; w++) {
            t->writes[w] = p->writes[i][w];
            t->load[w] = d->writes[w].load;
            memcpy(t->clear[w], d->writes[w].clear, sizeof t->clear[w]);
        }
        t->push_size = d->push_constant_size;
        t->kind = d->kind;
        t->place = d->place;
        t->desc = *d; /* its fields, for a reload; the pointers are the caller's: cleared */
        t->desc.name = NULL, t->desc.reads = NULL, t->desc.writes = NULL;
        t->desc.fragment = (orr_shader_desc){0};
        t->desc.scene.vertex = (orr_shader_desc){0};
        t->desc.compute.shader = (orr_shader_desc){0};
        t->dispatch = d->compute.dispatch;
        memcpy(t->groups, d->compute.groups, sizeof t->groups);
        t->depth = p->depth[i];
        if (d->kind == ORR_TECHNIQUE_SCENE) {
            static const int culls[] = {-1, VK_CULL_MODE_NONE, VK_CULL_MODE_BACK_BIT, VK_CULL_MODE_FRONT_BIT};
            t->depth_write = d->scene.depth_write;
            t->depth_load = d->scene.depth_load;
            t->depth_clear = d->scene.depth_clear;
            t->passes = d->scene.passes ? d->scene.passes : (1u << ORR_PASS_OPAQUE) | (1u << ORR_PASS_CUTOUT);
            t->cull = culls[d->scene.cull];
            t->strategy = d->scene.strategy;
            t->replaces_view = d->scene.replaces_view;
        }
    }
    for (uint32_t n = 0; n < p->count; n++) {
        uint32_t i = p->order[n];
        uint32_t *words = NULL;
        size_t word_count = 0;
        if (p->descs[i].kind == ORR_TECHNIQUE_COMPUTE) {
            orr_result rc = compute_shader(r, &p->descs[i], p->res, &l->techs[n], &words, &word_count);
            if (rc == ORR_OK) rc = build_compute_pipeline(r, &p->descs[i], &l->techs[n], words, word_count);
            keep_spirv(&l->techs[n], NULL, 0, words, word_count);
            if (rc != ORR_OK) return rc;
            continue;
        }
        if (p->descs[i].kind == ORR_TECHNIQUE_SCENE) {
            uint32_t *vs = NULL, inputs = 0;
            size_t vs_words = 0;
            orr_result rc = scene_shaders(r, &p->descs[i], &vs, &vs_words, &words, &word_count, &inputs);
            if (rc == ORR_OK)
                rc = build_scene_pipeline(r, p->res, &p->descs[i], &l->techs[n], vs, vs_words, words, word_count,
                                          inputs);
            keep_spirv(&l->techs[n], vs, vs_words, words, word_count);
            if (rc != ORR_OK) return rc;
            continue;
        }
        orr_result rc = shader_for(r, &p->descs[i], &words, &word_count);
        if (rc == ORR_OK) rc = build_pipeline(r, p->res, &p->descs[i], &l->techs[n], words, word_count);
        keep_spirv(&l->techs[n], NULL, 0, words, word_count);
        if (rc != ORR_OK) return rc;
    }
    l->res = orri_alloc(&r->allocator, sizeof *l->res * p->res_count);
    if (!l->res) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(l->res, p->res, sizeof *l->res * p->res_count);
    l->res_count = p->res_count;
    uint32_t sets = 0, samplers = 0, storage = 0;
    for (uint32_t n = 0; n < l->count; n++) {
        const tech *t = &l->techs[n];
        if (!t->set_layout) continue;
        sets++, samplers += t->read_count;
        if (t->kind == ORR_TECHNIQUE_COMPUTE) storage += t->write_count;
    }
    if (sets) {
        VkDescriptorPoolSize sizes[2];
        uint32_t size_count = 0;
        if (samplers)
            sizes[size_count++] = (VkDescriptorPoolSize){VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                                        samplers * ORRI_FRAMES_IN_FLIGHT};
        if (storage)
            sizes[size_count++] = (VkDescriptorPoolSize){VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, storage * ORRI_FRAMES_IN_FLIGHT};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                         .maxSets = sets * ORRI_FRAMES_IN_FLIGHT, .poolSizeCount = size_count,
                                         .pPoolSizes = sizes};
        ORRI_VK(r, vkCreateDescriptorPool(r->device, &pi, NULL, &l->pool));
        for (uint32_t n = 0; n < l->count; n++) {
            tech *t = &l->techs[n];
            if (!t->set_layout) continue;
            VkDescriptorSetLayout layouts[ORRI_FRAMES_IN_FLIGHT];
            for (uint32_t s = 0; s < ORRI_FRAMES_IN_FLIGHT; s++) layouts[s] = t->set_layout;
            VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                              .descriptorPool = l->pool, .descriptorSetCount = ORRI_FRAMES_IN_FLIGHT,
                                              .pSetLayouts = layouts};
            ORRI_VK(r, vkAllocateDescriptorSets(r->device, &ai, t->sets));
        }
    }
    return ORR_OK;
}

orr_result orr_renderer_set_techniques(orr_renderer *r, orr_target_id target, const orr_technique_desc *techniques,
                                       uint32_t count, orr_technique_id *ids)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_set_techniques: renderer is NULL");
    ORRI_REQUIRE(techniques || !count, &r->error, "orr_renderer_set_techniques: techniques is NULL");
    if (!orr_handle_pool_is_alive(&r->target_pool, (orr_handle){target.index, target.generation}) ||
        !r->targets[target.index].alive || r->targets[target.index].generation != target.generation)
        return refuse(r, ORR_ERROR_STALE_HANDLE, "stale target id");
    const orri_target *tg = &r->targets[target.index];
    if (count > ORR_TECHNIQUE_MAX)
        return refuse(r, ORR_ERROR_CAPACITY, "%u techniques; a target has at most %d", count, ORR_TECHNIQUE_MAX);
    ORRI_TRY(ensure_shared(r));
    orri_techniques *ts = r->techniques;
    plan *p = orri_alloc(&r->allocator, sizeof *p);
    if (!p) return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    p->descs = techniques;
    p->count = count;
    tech_list fresh = {.target = target.index, .generation = target.generation};
    orr_result rc = check_descs(r, tg, target.index, p);
    if (rc == ORR_OK) rc = resolve_resources(r, p);
    if (rc == ORR_OK) rc = order_list(r, p);
    if (rc == ORR_OK && count) rc = build_list(r, p, &fresh);
    orri_free(&r->allocator, p, sizeof *p);
    /* room for the ids and the list before anything changes */
    uint32_t slot = NONE;
    if (rc == ORR_OK) {
        for (uint32_t i = 0; i < ts->list_count && slot == NONE; i++)
            if (ts->lists[i].count && ts->lists[i].target == target.index) slot = i;
        for (uint32_t i = 0; i < ts->list_count && slot == NONE; i++)
            if (!ts->lists[i].count) slot = i;
        if (slot == NONE && ts->list_count == ts->list_capacity) {
            uint32_t cap = ts->list_capacity ? ts->list_capacity * 2 : 4;
            tech_list *grown = orri_realloc(&r->allocator, ts->lists, sizeof *grown * ts->list_capacity,
                                            sizeof *grown * cap);
            if (!grown) rc = refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
            else {
                memset(grown + ts->list_capacity, 0, sizeof *grown * (cap - ts->list_capacity));
                ts->lists = grown;
                ts->list_capacity = cap;
            }
        }
        if (rc == ORR_OK && slot == NONE) slot = ts->list_count++;
    }
    if (rc != ORR_OK) {
        list_clear(r, &fresh);
        return rc;
    }
    tech_list *old = &ts->lists[slot];
    if (old->count && old->target == target.index) {
        list_wait(r, old);
        list_clear(r, old);
    }
    /* new ids (none can fail for the pool's room once the old ones are freed, but check anyway) */
    for (uint32_t n = 0; n < fresh.count; n++) {
        orr_handle h;
        if (orr_handle_pool_alloc(&ts->ids, &h) != ORR_OK ||
            (h.index >= ts->where_capacity && !ORRI_GROW(&r->allocator, ts->where, ts->where_capacity, h.index + 1))) {
            list_clear(r, &fresh);
            return refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        fresh.techs[n].handle = h;
        ts->where[h.index] = slot << 8 | n;
    }
    *old = fresh;
    r->objects_epoch++;
    if (ids) /* in the caller's order */
        for (uint32_t i = 0; i < count; i++)
            for (uint32_t n = 0; n < fresh.count; n++)
                if (!strcmp(fresh.techs[n].name, techniques[i].name))
                    ids[i] = (orr_technique_id){fresh.techs[n].handle.index, fresh.techs[n].handle.generation};
    return ORR_OK;
}

static tech *tech_get(orr_renderer *r, orr_technique_id id)
{
    orri_techniques *ts = r->techniques;
    if (!ts || !orr_handle_pool_is_alive(&ts->ids, (orr_handle){id.index, id.generation})) return NULL;
    uint32_t w = ts->where[id.index];
    tech *t = &ts->lists[w >> 8].techs[w & 0xff];
    return t->handle.generation == id.generation ? t : NULL;
}

orr_result orr_renderer_set_technique_data(orr_renderer *r, orr_technique_id id, const void *data, uint32_t size)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_set_technique_data: renderer is NULL");
    tech *t = tech_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_set_technique_data: stale technique id");
    if (size != t->push_size || (size && !data))
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_set_technique_data: technique '%s' takes %u bytes, not %u", t->name,
                             t->push_size, size);
    if (size) memcpy(t->push, data, size);
    return ORR_OK;
}

/* ---- transients ------------------------------------------------------------------------------- */

/* The list's transient images at width x height: each one's lifetime (first to last use in running
 * order; a copy's from the pass that fills it), then blocks of memory shared by images whose lifetimes
 * do not overlap (first fit, in order of first use), then the images bound into them. The old ones go
 * first: a resize waits for the frames that used them (the memory is freed at once, not retired). */
static orr_result make_transients(orr_renderer *r, tech_list *l, uint32_t width, uint32_t height)
{
    list_wait(r, l);
    for (uint32_t x = 0; x < l->res_count; x++) orri_image_destroy(r, &l->res[x].image);
    for (uint32_t b = 0; b < l->block_count; b++) orri_memory_free(r, &l->blocks[b]);
    l->block_count = 0;
    l->bytes = l->bytes_unshared = 0;
    l->width = l->height = 0;
    if (!l->blocks) {
        l->blocks = orri_alloc(&r->allocator, sizeof *l->blocks * l->res_count);
        if (!l->blocks) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for technique transients");
        memset(l->blocks, 0, sizeof *l->blocks * l->res_count);
    }
    VkMemoryRequirements need[MAX_RES], block_need[MAX_RES];
    uint32_t order[MAX_RES], n = 0;
    for (uint32_t x = 0; x < l->res_count; x++) {
        tech_res *res = &l->res[x];
        if (res->kind != RES_TRANSIENT && res->kind != RES_COPY) continue;
        res->first = UINT32_MAX, res->last = 0;
        for (uint32_t p = 0; p < l->count; p++) {
            const tech *t = &l->techs[p];
            bool used = false;
            for (uint32_t k = 0; k < t->read_count; k++) used |= t->reads[k] == x;
            for (uint32_t w = 0; w < t->write_count; w++) used |= t->writes[w] == x;
            for (uint32_t c = 0; c < t->copy_count; c++) used |= t->copies[c] == x || l->res[t->copies[c]].source == x;
            if (!used) continue;
            if (res->first == UINT32_MAX) res->first = p;
            res->last = p;
        }
        uint32_t w = (width + res->divisor - 1) / res->divisor, h = (height + res->divisor - 1) / res->divisor;
        orri_image_requirements(r, &(orri_image_desc){.width = w, .height = h, .format = res->vk_format,
                                                      .usage = res->storage ? STORAGE_USAGE : TRANSIENT_USAGE, .aspect = VK_IMAGE_ASPECT_COLOR_BIT},
                                &need[x]);
        res->bytes = need[x].size;
        l->bytes_unshared += need[x].size;
        uint32_t k = n++; /* by first use */
        while (k > 0 && l->res[order[k - 1]].first > res->first) order[k] = order[k - 1], k--;
        order[k] = x;
    }
    for (uint32_t i = 0; i < n; i++) {
        tech_res *res = &l->res[order[i]];
        uint32_t b = 0;
        for (; b < l->block_count; b++) {
            if (!(block_need[b].memoryTypeBits & need[order[i]].memoryTypeBits)) continue;
            bool apart = true;
            for (uint32_t j = 0; j < i && apart; j++) {
                const tech_res *o = &l->res[order[j]];
                if (o->block == b && !(o->last < res->first || res->last < o->first)) apart = false;
            }
            if (apart) break;
        }
        if (b == l->block_count) block_need[l->block_count++] = need[order[i]];
        VkMemoryRequirements *bn = &block_need[b];
        if (need[order[i]].size > bn->size) bn->size = need[order[i]].size;
        if (need[order[i]].alignment > bn->alignment) bn->alignment = need[order[i]].alignment;
        bn->memoryTypeBits &= need[order[i]].memoryTypeBits;
        res->block = b;
    }
    for (uint32_t b = 0; b < l->block_count; b++) {
        orri_memory_request mr = {.requirements = block_need[b], .kind = ORRI_MEMORY_DEVICE_OPTIMAL,
                                  .what = "technique transients"};
        ORRI_TRY(orri_memory_alloc(r, &mr, &l->blocks[b], NULL));
        l->bytes += block_need[b].size;
    }
    for (uint32_t i = 0; i < n; i++) {
        tech_res *res = &l->res[order[i]];
        uint32_t w = (width + res->divisor - 1) / res->divisor, h = (height + res->divisor - 1) / res->divisor;
        ORRI_TRY(orri_image_create_desc(r,
                                        &(orri_image_desc){.width = w, .height = h, .format = res->vk_format,
                                                           .usage = res->storage ? STORAGE_USAGE : TRANSIENT_USAGE, .aspect = VK_IMAGE_ASPECT_COLOR_BIT,
                                                           .what = res->kind == RES_COPY ? "technique copy"
                                                                                         : "technique transient",
                                                           .memory = &l->blocks[res->block]},
                                        &res->image));
    }
    l->width = width;
    l->height = height;
    r->objects_epoch++;
    return ORR_OK;
}

/* ---- hot reload -------------------------------------------------------------------------------- */

static tech *tech_get(orr_renderer *r, orr_technique_id id);

/* A copy of a reload's shader into the technique's pending slot k. */
static orr_result take_pending(orr_renderer *r, tech *t, int k, const orr_shader_desc *sh)
{
    static const char fn[] = "orr_renderer_reload_technique";
    if (!sh->glsl == !sh->spirv)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s': a shader is GLSL or SPIR-V (one of "
                             "the two)", fn, t->name);
    if (sh->spirv && (sh->spirv_size < 20 || sh->spirv_size % 4))
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s': spirv_size %zu is not a whole number "
                             "of SPIR-V words", fn, t->name, sh->spirv_size);
    drop_pending(r, t, k);
    size_t size = sh->glsl ? strlen(sh->glsl) + 1 : sh->spirv_size;
    void *copy = orri_alloc(&r->allocator, size);
    if (!copy) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    memcpy(copy, sh->glsl ? (const void *)sh->glsl : (const void *)sh->spirv, size);
    if (sh->glsl) t->pending_glsl[k] = copy;
    else t->pending_spirv[k] = copy;
    t->pending_size[k] = size;
    snprintf(t->pending_name[k], sizeof t->pending_name[k], "%s", sh->name ? sh->name : t->name);
    return ORR_OK;
}

orr_result orr_renderer_reload_technique(orr_renderer *r, orr_technique_id id, const orr_shader_desc *fragment,
                                         const orr_shader_desc *vertex)
{
    static const char fn[] = "orr_renderer_reload_technique";
    ORRI_REQUIRE(r, NULL, "orr_renderer_reload_technique: renderer is NULL");
    tech *t = tech_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "%s: stale technique id", fn);
    bool has_fragment = fragment && (fragment->glsl || fragment->spirv);
    bool has_vertex = vertex && (vertex->glsl || vertex->spirv);
    if (has_fragment && !t->spirv[1])
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s' is depth only: it has no fragment "
                             "shader to reload (set the list again)", fn, t->name);
    if (has_vertex && !t->spirv[0])
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s' draws with the library's vertex "
                             "stage: it has no vertex shader to reload (set the list again)", fn, t->name);
    if (has_fragment) ORRI_TRY(take_pending(r, t, 1, fragment));
    if (has_vertex) ORRI_TRY(take_pending(r, t, 0, vertex));
    if (has_fragment || has_vertex) {
        t->pending = true;
        t->reload = ORR_RELOAD_PENDING;
        t->reload_message[0] = '\0';
    }
    return ORR_OK;
}

orr_reload_state orr_renderer_technique_reload_state(orr_renderer *r, orr_technique_id id, char *message, size_t size)
{
    if (message && size) message[0] = '\0';
    tech *t = r ? tech_get(r, id) : NULL;
    if (!t) return ORR_RELOAD_NONE;
    if (message && size) snprintf(message, size, "%s", t->reload_message);
    return t->reload;
}

/* Builds technique n's pending shaders into a new pipeline (its layouts stay: same reads, same host
 * data), or keeps the old one and says why. The renderer's last error is left as it was: the frame
 * goes on either way. */
static void reload_one(orr_renderer *r, tech_list *l, tech *t)
{
    orr_error saved = r->error;
    orr_technique_desc d = t->desc;
    d.name = t->name;
    const char *reads[ORR_TECHNIQUE_MAX_READS];
    for (uint32_t k = 0; k < t->read_count; k++) {
        const tech_res *x = &l->res[t->reads[k]];
        reads[k] = x->kind == RES_COPY ? l->res[x->source].name : x->name;
    }
    orr_technique_write writes[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < t->write_count; w++)
        writes[w] = (orr_technique_write){.name = l->res[t->writes[w]].name, .format = l->res[t->writes[w]].format};
    d.reads = reads;
    d.writes = writes;
    orr_shader_desc *stage[2] = {&d.scene.vertex, t->kind == ORR_TECHNIQUE_COMPUTE ? &d.compute.shader : &d.fragment};
    for (int k = 0; k < 2; k++) {
        if (t->pending_glsl[k]) *stage[k] = (orr_shader_desc){.glsl = t->pending_glsl[k], .name = t->pending_name[k]};
        else if (t->pending_spirv[k])
            *stage[k] = (orr_shader_desc){.spirv = t->pending_spirv[k], .spirv_size = t->pending_size[k],
                                          .name = t->pending_name[k]};
        else if (t->spirv[k]) *stage[k] = (orr_shader_desc){.spirv = t->spirv[k], .spirv_size = t->spirv_words[k] * 4};
    }
    tech fresh = *t;
    fresh.pipeline = VK_NULL_HANDLE;
    uint32_t *vs = NULL, *fs = NULL, inputs = 0;
    size_t vs_words = 0, fs_words = 0;
    orr_result rc;
    if (t->kind == ORR_TECHNIQUE_COMPUTE) {
        rc = compute_shader(r, &d, l->res, &fresh, &fs, &fs_words);
        if (rc == ORR_OK) rc = build_compute_pipeline(r, &d, &fresh, fs, fs_words);
    } else if (t->kind == ORR_TECHNIQUE_SCENE) {
        rc = scene_shaders(r, &d, &vs, &vs_words, &fs, &fs_words, &inputs);
        if (rc == ORR_OK) rc = build_scene_pipeline(r, l->res, &d, &fresh, vs, vs_words, fs, fs_words, inputs);
    } else {
        rc = shader_for(r, &d, &fs, &fs_words);
        if (rc == ORR_OK) rc = build_pipeline(r, l->res, &d, &fresh, fs, fs_words);
    }
    for (int k = 0; k < 2; k++) drop_pending(r, t, k);
    t->pending = false;
    if (rc != ORR_OK) {
        const char *msg = r->error.message, *prefix = "orr_renderer_set_techniques: ";
        if (!strncmp(msg, prefix, strlen(prefix))) msg += strlen(prefix);
        snprintf(t->reload_message, sizeof t->reload_message, "%s", msg);
        t->reload = ORR_RELOAD_FAILED;
        orri_log(&r->logger, ORR_LOG_WARNING, "gpu: reload of technique '%s' failed, its old shaders stay: %s",
                 t->name, t->reload_message);
        if (fresh.pipeline) vkDestroyPipeline(r->device, fresh.pipeline, NULL);
        orri_free(&r->allocator, vs, vs_words * 4);
        orri_free(&r->allocator, fs, fs_words * 4);
        r->error = saved;
        return;
    }
    list_wait(r, l); /* the frames in flight drew with the old pipeline */
    vkDestroyPipeline(r->device, t->pipeline, NULL);
    t->pipeline = fresh.pipeline;
    memcpy(t->local, fresh.local, sizeof t->local); /* a compute shader's new local size */
    for (int k = 0; k < 2; k++) orri_free(&r->allocator, t->spirv[k], t->spirv_words[k] * 4);
    /* the library's vertex stage stays the library's: vs is NULL then */
    keep_spirv(t, vs, vs_words, fs, fs_words);
    t->reload = ORR_RELOAD_DONE;
    r->objects_epoch++;
    r->error = saved;
}

/* ---- a frame --------------------------------------------------------------------------------- */

orr_result orri_techniques_prepare(orr_renderer *r, uint32_t target)
{
    tech_list *l = list_of(r, target);
    if (!l) return ORR_OK;
    for (uint32_t n = 0; n < l->count; n++)
        if (l->techs[n].pending) reload_one(r, l, &l->techs[n]);
    const orri_target *t = &r->targets[target];
    if (l->width == t->desc.width && l->height == t->desc.height) return ORR_OK;
    return make_transients(r, l, t->desc.width, t->desc.height);
}

/* Where an attachment stands while a frame's techniques are recorded (or described). */
typedef struct res_state {
    VkImageLayout layout;
    VkPipelineStageFlags2 stage;
    VkAccessFlags2 access;
} res_state;

/* A recording, or (cmd NULL) its description into text. */
typedef struct rec {
    orr_renderer *r;
    VkCommandBuffer cmd;
    orri_frame *frame;      /* the frame recorded (scene techniques draw with its sets) */
    uint32_t draw_calls;
    const orri_target *target;
    tech_list *l;
    res_state state[MAX_RES];
    bool scene_visible;     /* a compute technique's barrier made the scene's buffers visible to it */
    char *text;
    size_t size, len;
} rec;

static void say(rec *rc, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void say(rec *rc, const char *fmt, ...)
{
    if (rc->cmd) return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (rc->len < rc->size) snprintf(rc->text + rc->len, rc->size - rc->len, "%s", line);
    rc->len += (size_t)n;
}

static VkImage res_image(const rec *rc, uint32_t x, VkImageView *view)
{
    const tech_res *res = &rc->l->res[x];
    const orri_image *img;
    if (res->kind == RES_COLOR) img = &rc->target->color;
    else if (res->kind == RES_DEPTH) img = &rc->r->views[res->view.index].depth;
    else img = &res->image;
    if (view) *view = img->view;
    return img->image;
}

static const char *layout_name(VkImageLayout l)
{
    switch (l) {
    case VK_IMAGE_LAYOUT_UNDEFINED: return "undefined";
    case VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL: return "color-attachment";
    case VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL: return "depth-attachment";
    case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL: return "shader-read";
    case VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL: return "transfer-src";
    case VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL: return "transfer-dst";
    case VK_IMAGE_LAYOUT_GENERAL: return "general (storage)";
    default: return "other";
    }
}

#define WRITE_ACCESS                                                                                            \
    (VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |                  \
     VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT)

/* Moves attachment x to `layout` for an access at `stage`: a barrier unless it is a read after reads
 * in the same layout. */
static void transition(rec *rc, uint32_t x, VkImageLayout layout, VkPipelineStageFlags2 stage, VkAccessFlags2 access,
                       bool write)
{
    res_state *s = &rc->state[x];
    if (!write && s->layout == layout && !(s->access & WRITE_ACCESS)) {
        s->stage |= stage;
        s->access |= access;
        return;
    }
    VkImageAspectFlags aspect = rc->l->res[x].kind == RES_DEPTH ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    if (rc->cmd)
        orri_barrier_image(rc->cmd, res_image(rc, x, NULL), aspect, s->stage, s->access & WRITE_ACCESS, stage, access,
                           s->layout, layout);
    say(rc, "    barrier %s: %s -> %s\n", rc->l->res[x].name, layout_name(s->layout), layout_name(layout));
    *s = (res_state){layout, stage, access};
}

static void start_states(rec *rc)
{
    bool storage = false; /* memory a compute technique wrote last frame may be any transient's now */
    for (uint32_t x = 0; x < rc->l->res_count; x++) storage |= rc->l->res[x].storage;
    for (uint32_t x = 0; x < rc->l->res_count; x++) {
        switch (rc->l->res[x].kind) {
        case RES_COLOR:
            rc->state[x] = (res_state){VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT};
            break;
        case RES_DEPTH:
            rc->state[x] = (res_state){VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                                           VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                                       VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT};
            break;
        default: /* last frame's uses, and those of a transient earlier in its memory, end before its first */
            rc->state[x] = (res_state){VK_IMAGE_LAYOUT_UNDEFINED,
                                       VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                           VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                                           (storage ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT : 0),
                                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT |
                                           (storage ? VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT : 0)};
            break;
        }
    }
}

/* Whether technique n runs this frame: its view alive and the target's, and what it reads written. */
static bool runs(const rec *rc, const bool *skip, uint32_t n)
{
    const tech *t = &rc->l->techs[n];
    if (!orr_view_id_is_none(t->view) && rc->cmd) {
        orr_renderer *r = rc->r;
        if (!orr_handle_pool_is_alive(&r->view_pool, (orr_handle){t->view.index, t->view.generation})) return false;
        const orri_view *v = &r->views[t->view.index];
        if (!v->alive || v->generation != t->view.generation || v->desc.target.index != rc->l->target) return false;
    }
    for (uint32_t k = 0; k < t->read_count; k++)
        if (t->producer[k] != NONE && skip[t->producer[k]]) return false;
    return true;
}

/* A scene technique's draws of its view (inside its rendering). The view's strategy where it asks for
 * none: shell and meshlet views' records are drawn batched (the technique's pipeline has no shell path
 * or mesh stages); a view drawn with mesh shaders has no records to draw (nothing drawn). */
static void draw_scene(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t slot, const tech *t,
                       uint32_t *draw_calls)
{
    const orri_view *v = &r->views[t->view.index];
    static const orr_strategy of_technique[] = {ORR_STRATEGY_DIRECT, ORR_STRATEGY_DIRECT, ORR_STRATEGY_BATCHED,
                                                ORR_STRATEGY_INDIRECT};
    orr_strategy strategy = of_technique[t->strategy];
    if (t->strategy == ORR_TECHNIQUE_STRATEGY_VIEW)
        strategy = v->desc.strategy <= ORR_STRATEGY_INDIRECT ? v->desc.strategy : ORR_STRATEGY_BATCHED;
    orri_scene_draw d = {
        .pipeline = t->pipeline,
        .layout = t->layout,
        .reads = t->read_count ? t->sets[slot] : VK_NULL_HANDLE,
        .push = t->push,
        .push_size = t->push_size,
        .passes = t->passes,
        .cull = t->cull,
        .strategy = strategy,
    };
    orri_indexed_record_scene(r, cmd, f, v, &d, draw_calls);
}

/* The workgroups a compute technique dispatches this frame (0 when its writes are not made yet). */
static void compute_groups(const rec *rc, const tech *t, uint32_t groups[3])
{
    const tech_res *x = &rc->l->res[t->writes[0]];
    groups[0] = groups[1] = groups[2] = 1;
    switch (t->dispatch) {
    case ORR_DISPATCH_PER_PIXEL:
        groups[0] = (x->image.width + t->local[0] - 1) / t->local[0];
        groups[1] = (x->image.height + t->local[1] - 1) / t->local[1];
        break;
    case ORR_DISPATCH_FIXED: memcpy(groups, t->groups, sizeof t->groups); break;
    case ORR_DISPATCH_PER_INSTANCE:
        groups[0] = (rc->r->instances.slots.count + t->local[0] - 1) / t->local[0];
        break;
    }
}

/* A compute technique, its reads already in the shader-read layout (images[k]): its writes cleared or
 * kept as their load ops say and made storage images, the scene's buffers made visible when it reads
 * them, its set written, the dispatch. */
static void record_compute(rec *rc, uint32_t slot, tech *t, const VkDescriptorImageInfo *images)
{
    orr_renderer *r = rc->r;
    VkCommandBuffer cmd = rc->cmd;
    VkDescriptorImageInfo storage[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < t->write_count; w++) {
        uint32_t x = t->writes[w];
        orr_load_op load = t->load[w];
        if (load == ORR_LOAD_DEFAULT) load = rc->state[x].layout == VK_IMAGE_LAYOUT_UNDEFINED ? ORR_LOAD_CLEAR
                                                                                            : ORR_LOAD_KEEP;
        if (load == ORR_LOAD_CLEAR) {
            transition(rc, x, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                       VK_ACCESS_2_TRANSFER_WRITE_BIT, true);
            say(rc, "    clear %s\n", rc->l->res[x].name);
            if (cmd) {
                VkClearColorValue clear;
                memcpy(clear.float32, t->clear[w], sizeof clear.float32);
                VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
                vkCmdClearColorImage(cmd, res_image(rc, x, NULL), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1,
                                     &range);
            }
        } else if (load == ORR_LOAD_DONT_CARE) {
            rc->state[x].layout = VK_IMAGE_LAYOUT_UNDEFINED; /* its contents may go */
        }
        transition(rc, x, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, true);
        storage[w] = (VkDescriptorImageInfo){VK_NULL_HANDLE, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_GENERAL};
        res_image(rc, x, &storage[w].imageView);
    }
    if (t->scene_set && !rc->scene_visible) { /* the frame's uploads, scatter and culls wrote them */
        if (cmd)
            orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT);
        say(rc, "    barrier scene buffers: transfer, compute writes -> compute reads\n");
        rc->scene_visible = true;
    }
    uint32_t groups[3];
    compute_groups(rc, t, groups);
    static const char *const how[] = {"per pixel", "fixed", "per instance slot"};
    say(rc, "    dispatch %s, local size %ux%ux%u", how[t->dispatch], t->local[0], t->local[1], t->local[2]);
    if (rc->l->width || t->dispatch != ORR_DISPATCH_PER_PIXEL)
        say(rc, ": %ux%ux%u workgroups", groups[0], groups[1], groups[2]);
    say(rc, "\n");
    if (!cmd) return;
    VkWriteDescriptorSet wr[ORR_TECHNIQUE_MAX_READS + ORR_TECHNIQUE_MAX_WRITES];
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->read_count; k++)
        wr[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = t->sets[slot],
                                         .dstBinding = k, .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                         .pImageInfo = &images[k]};
    for (uint32_t w = 0; w < t->write_count; w++)
        wr[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = t->sets[slot],
                                         .dstBinding = ORR_TECHNIQUE_STORAGE_BINDING + w, .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                         .pImageInfo = &storage[w]};
    vkUpdateDescriptorSets(r->device, n, wr, 0, NULL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->pipeline);
    if (t->scene_set) {
        uint32_t dyn_offset = (uint32_t)r->views[t->view.index].ubo_offset;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->layout, 0, 1, &rc->frame->set, 1, &dyn_offset);
    }
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->layout, 2, 1, &t->sets[slot], 0, NULL);
    uint8_t push[ORR_TECHNIQUE_MAX_PUSH + 4];
    uint32_t push_size = t->push_size;
    memcpy(push, t->push, t->push_size);
    if (t->dispatch == ORR_DISPATCH_PER_INSTANCE) {
        uint32_t slots = r->instances.slots.count;
        memcpy(push + push_size, &slots, 4);
        push_size += 4;
    }
    if (push_size) vkCmdPushConstants(cmd, t->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
    if (groups[0] && groups[1] && groups[2]) vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
}

static void record_one(rec *rc, uint32_t slot, tech *t)
{
    orr_renderer *r = rc->r;
    VkCommandBuffer cmd = rc->cmd;
    if (t->kind == ORR_TECHNIQUE_SCENE)
        say(rc, "  pass %s (scene, view %u%s)", t->name, t->view.index,
            t->replaces_view ? ", in place of its built-in passes" : "");
    else if (t->kind == ORR_TECHNIQUE_COMPUTE) say(rc, "  pass %s (compute)", t->name);
    else say(rc, "  pass %s", t->name);
    for (uint32_t k = 0; k < t->read_count; k++) say(rc, "%s%s", k ? ", " : "  reads ", rc->l->res[t->reads[k]].name);
    for (uint32_t w = 0; w < t->write_count; w++) say(rc, "%s%s", w ? ", " : "  writes ", rc->l->res[t->writes[w]].name);
    if (t->depth != NONE) say(rc, "  %s %s", t->depth_write ? "depth test+write" : "depth test", rc->l->res[t->depth].name);
    say(rc, "\n");
    /* copies of what it reads and writes */
    for (uint32_t c = 0; c < t->copy_count; c++) {
        uint32_t x = t->copies[c], src = rc->l->res[x].source;
        transition(rc, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_TRANSFER_READ_BIT, false);
        transition(rc, x, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                   VK_ACCESS_2_TRANSFER_WRITE_BIT, true);
        say(rc, "    copy %s -> %s\n", rc->l->res[src].name, rc->l->res[x].name);
        if (cmd) {
            VkImageCopy region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                  .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                  .extent = {rc->l->res[x].image.width, rc->l->res[x].image.height, 1}};
            vkCmdCopyImage(cmd, res_image(rc, src, NULL), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           res_image(rc, x, NULL), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        }
    }
    VkDescriptorImageInfo images[ORR_TECHNIQUE_MAX_READS];
    for (uint32_t k = 0; k < t->read_count; k++) {
        transition(rc, t->reads[k], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                   t->kind == ORR_TECHNIQUE_COMPUTE ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT
                                                    : VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                   VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, false);
        images[k] = (VkDescriptorImageInfo){r->techniques->sampler, VK_NULL_HANDLE,
                                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        res_image(rc, t->reads[k], &images[k].imageView);
    }
    if (t->kind == ORR_TECHNIQUE_COMPUTE) {
        record_compute(rc, slot, t, images);
        return;
    }
    VkRenderingAttachmentInfo att[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < t->write_count; w++) {
        uint32_t x = t->writes[w];
        bool fresh = rc->state[x].layout == VK_IMAGE_LAYOUT_UNDEFINED;
        orr_load_op load = t->load[w];
        if (load == ORR_LOAD_DEFAULT) load = fresh ? ORR_LOAD_CLEAR : ORR_LOAD_KEEP;
        VkAttachmentLoadOp op = load == ORR_LOAD_CLEAR  ? VK_ATTACHMENT_LOAD_OP_CLEAR
                                : load == ORR_LOAD_KEEP ? VK_ATTACHMENT_LOAD_OP_LOAD
                                                        : VK_ATTACHMENT_LOAD_OP_DONT_CARE;
        transition(rc, x, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                   VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
                       (op == VK_ATTACHMENT_LOAD_OP_LOAD ? VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT : 0),
                   true);
        att[w] = (VkRenderingAttachmentInfo){
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            .loadOp = op,
            .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        };
        memcpy(att[w].clearValue.color.float32, t->clear[w], sizeof t->clear[w]);
        res_image(rc, x, &att[w].imageView);
    }
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    if (t->depth != NONE) {
        bool clear = t->depth_load == ORR_LOAD_CLEAR, write = t->depth_write || clear;
        transition(rc, t->depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                   VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                   VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                       (write ? VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT : 0),
                   write);
        depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
        depth.loadOp = clear                                  ? VK_ATTACHMENT_LOAD_OP_CLEAR
                       : t->depth_load == ORR_LOAD_DONT_CARE ? VK_ATTACHMENT_LOAD_OP_DONT_CARE
                                                             : VK_ATTACHMENT_LOAD_OP_LOAD;
        depth.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        depth.clearValue.depthStencil.depth = t->depth_clear;
        res_image(rc, t->depth, &depth.imageView);
    }
    if (!cmd) return;
    orr_viewport rect = {0, 0, rc->target->desc.width, rc->target->desc.height};
    if (!orr_view_id_is_none(t->view)) rect = r->views[t->view.index].rect;
    uint32_t div = t->write_count ? rc->l->res[t->writes[0]].divisor : 1;
    if (div > 1) { /* the same part of a smaller image */
        uint32_t x1 = (rect.x + rect.width + div - 1) / div, y1 = (rect.y + rect.height + div - 1) / div;
        rect = (orr_viewport){rect.x / div, rect.y / div, x1 - rect.x / div, y1 - rect.y / div};
    }
    VkRect2D area = {{(int32_t)rect.x, (int32_t)rect.y}, {rect.width, rect.height}};
    if (t->read_count) {
        VkWriteDescriptorSet wr[ORR_TECHNIQUE_MAX_READS];
        for (uint32_t k = 0; k < t->read_count; k++)
            wr[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = t->sets[slot],
                                           .dstBinding = k, .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                           .pImageInfo = &images[k]};
        vkUpdateDescriptorSets(r->device, t->read_count, wr, 0, NULL);
    }
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = area, .layerCount = 1,
                          .colorAttachmentCount = t->write_count, .pColorAttachments = att,
                          .pDepthAttachment = t->depth != NONE ? &depth : NULL};
    vkCmdBeginRendering(cmd, &ri);
    VkViewport viewport = {(float)rect.x, (float)rect.y, (float)rect.width, (float)rect.height, 0.0f, 1.0f};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &area);
    if (t->kind == ORR_TECHNIQUE_SCENE) {
        draw_scene(r, cmd, rc->frame, slot, t, &rc->draw_calls);
        vkCmdEndRendering(cmd);
        return;
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->pipeline);
    if (t->read_count)
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, t->layout, 0, 1, &t->sets[slot], 0, NULL);
    if (t->push_size) vkCmdPushConstants(cmd, t->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, t->push_size, t->push);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    vkCmdEndRendering(cmd);
}

static void record_list(rec *rc, uint32_t slot)
{
    tech_list *l = rc->l;
    bool skip[ORR_TECHNIQUE_MAX] = {0};
    start_states(rc);
    uint32_t skipped = 0;
    for (uint32_t n = 0; n < l->count; n++) {
        if (l->techs[n].place != ORR_PLACE_AFTER_VIEWS) { /* recorded with their view */
            const tech *t = &l->techs[n];
            say(rc, "  pass %s (scene, %s view %u's built-in passes)%s%s\n", t->name,
                t->place == ORR_PLACE_BEFORE_VIEW ? "before" : "right after", t->view.index,
                t->write_count ? "  writes color" : "", t->depth_write ? "  depth write" : "");
            continue;
        }
        skip[n] = !runs(rc, skip, n);
        if (skip[n]) {
            skipped++;
            continue;
        }
        record_one(rc, slot, &l->techs[n]);
    }
    /* "color" and the depths as the views leave them, for what follows (read-back, the next frame) */
    say(rc, "  end\n");
    for (uint32_t x = 0; x < l->res_count; x++) {
        if (l->res[x].kind == RES_COLOR && rc->state[x].layout != VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
            transition(rc, x, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, true);
        if (l->res[x].kind == RES_DEPTH && rc->state[x].layout != VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL)
            transition(rc, x, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                       VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                       VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                       true);
    }
    if (skipped && !l->warned && rc->cmd) {
        orri_log(&rc->r->logger, ORR_LOG_WARNING,
                 "gpu: %u technique(s) of target %u skipped: a view they draw in is gone, or what they read is not "
                 "drawn",
                 skipped, l->target);
        l->warned = true;
    }
}

uint32_t orri_techniques_record(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target)
{
    tech_list *l = list_of(r, target);
    if (!l) return 0;
    rec rc = {.r = r, .cmd = cmd, .frame = &r->frames[slot], .target = &r->targets[target], .l = l};
    record_list(&rc, slot);
    l->recorded = true;
    return rc.draw_calls;
}

bool orri_techniques_record_view(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                                 bool after, uint32_t *draw_calls)
{
    tech_list *l = list_of(r, target);
    if (!l) return false;
    const orri_view *v = &r->views[view];
    orr_technique_place place = after ? ORR_PLACE_AFTER_VIEW : ORR_PLACE_BEFORE_VIEW;
    bool any = false;
    for (uint32_t n = 0; n < l->count; n++) {
        tech *t = &l->techs[n];
        if (t->place != place || t->view.index != view || t->view.generation != v->generation) continue;
        if (any || after) /* the view, or the one before, wrote what this one loads */
            orri_barrier_memory(cmd,
                                VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                    VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                                VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                                VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                                    VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                                VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
                                    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
        const orri_target *tg = &r->targets[target];
        VkRenderingAttachmentInfo att[ORR_TECHNIQUE_MAX_WRITES];
        for (uint32_t w = 0; w < t->write_count; w++) { /* "color" only (checked at registration) */
            orr_load_op load = t->load[w] == ORR_LOAD_DEFAULT ? ORR_LOAD_KEEP : t->load[w];
            att[w] = (VkRenderingAttachmentInfo){
                .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                .imageView = tg->color.view,
                .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                .loadOp = load == ORR_LOAD_CLEAR  ? VK_ATTACHMENT_LOAD_OP_CLEAR
                          : load == ORR_LOAD_KEEP ? VK_ATTACHMENT_LOAD_OP_LOAD
                                                  : VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
            };
            memcpy(att[w].clearValue.color.float32, t->clear[w], sizeof t->clear[w]);
        }
        /* the first one before the view finds the depth undefined: cleared unless it asks for what was there */
        orr_load_op dl = t->depth_load == ORR_LOAD_DEFAULT ? (any || after ? ORR_LOAD_KEEP : ORR_LOAD_CLEAR)
                                                           : t->depth_load;
        VkRenderingAttachmentInfo depth = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageView = v->depth.view,
            .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
            .loadOp = dl == ORR_LOAD_CLEAR ? VK_ATTACHMENT_LOAD_OP_CLEAR
                      : dl == ORR_LOAD_KEEP ? VK_ATTACHMENT_LOAD_OP_LOAD
                                            : VK_ATTACHMENT_LOAD_OP_DONT_CARE,
            .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
            .clearValue = {.depthStencil = {dl == ORR_LOAD_CLEAR && t->depth_load == ORR_LOAD_CLEAR ? t->depth_clear
                                                                                                   : 0.0f, 0}},
        };
        VkRect2D area = {{(int32_t)v->rect.x, (int32_t)v->rect.y}, {v->rect.width, v->rect.height}};
        VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = area, .layerCount = 1,
                              .colorAttachmentCount = t->write_count, .pColorAttachments = att,
                              .pDepthAttachment = &depth};
        vkCmdBeginRendering(cmd, &ri);
        VkViewport viewport = {(float)v->rect.x, (float)v->rect.y, (float)v->rect.width, (float)v->rect.height, 0.0f,
                               1.0f};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &area);
        draw_scene(r, cmd, &r->frames[slot], slot, t, draw_calls);
        vkCmdEndRendering(cmd);
        any = true;
        l->recorded = true;
    }
    return any;
}

size_t orr_renderer_describe_techniques(orr_renderer *r, orr_target_id target, char *text, size_t size)
{
    if (text && size) text[0] = '\0';
    if (!r || !orr_handle_pool_is_alive(&r->target_pool, (orr_handle){target.index, target.generation})) return 0;
    tech_list *l = list_of(r, target.index);
    if (!l || l->generation != target.generation) return 0;
    rec *rc = orri_alloc(&r->allocator, sizeof *rc);
    if (!rc) return 0;
    *rc = (rec){.r = r, .target = &r->targets[target.index], .l = l, .text = text, .size = text ? size : 0};
    say(rc, "target %u: %u technique(s) after the views\n", target.index, l->count);
    record_list(rc, 0);
    say(rc, "resources:\n");
    for (uint32_t x = 0; x < l->res_count; x++) {
        const tech_res *res = &l->res[x];
        static const char *kinds[] = {"the target's colour", "a view's depth", "transient", "copy"};
        char extent[40] = "";
        if (res->kind >= RES_TRANSIENT && res->divisor == 1) snprintf(extent, sizeof extent, ", target size");
        else if (res->kind >= RES_TRANSIENT)
            snprintf(extent, sizeof extent, ", 1/%u of the target's size", res->divisor);
        say(rc, "  %s: %s, %s%s", res->name, kinds[res->kind],
            res->kind == RES_DEPTH ? "d32f" : orr_format_name(res->format), extent);
        if (res->kind >= RES_TRANSIENT && l->width)
            say(rc, ", passes %u-%u, memory block %u", res->first, res->last, res->block);
        say(rc, "\n");
    }
    if (l->width && l->block_count)
        say(rc, "memory: %llu bytes in %u block(s) for the transients, %llu without reuse\n",
            (unsigned long long)l->bytes, l->block_count, (unsigned long long)l->bytes_unshared);
    size_t len = rc->len;
    orri_free(&r->allocator, rc, sizeof *rc);
    return len;
}
