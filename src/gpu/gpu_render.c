/* The renderer: creation, pipelines, library bindings, targets, views, the frame, readback.
 *
 * One frame (orr_renderer_render -> render_frame):
 *   plan_frame    wait for the frame slot's fence (its timestamps and GPU-cull counts are read then)
 *                 -> destroy what retired frames left behind -> (CPU) what the snapshot changed:
 *                 residency, instance slots and records, joints -> the retained draw scenes (rebuilt
 *                 only for a new layout), the materials and textures they draw made resident, then
 *                 their batch states planned from what is resident -> per view: camera, cull (CPU) or
 *                 cull block (GPU) -> the view-data layout -> size the frame's host buffer
 *   record_frame  timestamp -> uploads -> GPU culls (compute) -> one clear of the target -> each view
 *                 in ascending slot (its depth cleared, colour loaded, viewport + scissor) -> readback
 *                 copy (targets with readback) -> timestamp
 *   submit_frame  submit with the slot's fence (waited for when the slot comes round again, or by
 *                 read_target and finish)
 *   commit_frame  only now are the uploads done (resident, clean) and the snapshot applied; any failure
 *                 above aborts instead (orri_scene_abort) and the next frame takes its snapshot whole
 *
 * Which snapshot is applied how: the instance records hold the snapshot of frame `applied_frame`. A
 * snapshot whose delta_base is that frame is applied by its delta; the same snapshot again changes
 * nothing; anything else is taken whole. */
#include "gpu/gpu_internal.h"

#include <orrery/gpu_vulkan.h>

#include <math.h>
#include <string.h>
#include <time.h>

#define COLOR_FORMAT ORRI_COLOR_FORMAT
#define DEPTH_FORMAT ORRI_DEPTH_FORMAT
#define DEFAULT_YFOV 0.8
#define DEFAULT_ZNEAR 0.05
/* orr_view_lighting's default sky: radiance from above and below */
#define DEFAULT_SKY 0.25f
#define DEFAULT_GROUND 0.08f
#define MIN_FRAME_BYTES ((VkDeviceSize)1 << 20)

const char *orr_render_phase_name(orr_render_phase phase)
{
    static const char *const names[ORR_PHASE_COUNT] = {"residency", "instances", "scenes", "views", "record", "submit"};
    return (unsigned)phase < ORR_PHASE_COUNT ? names[phase] : "unknown";
}

/* The calling thread's CPU time: what a frame costs us, whatever else the machine (or a CPU Vulkan
 * driver's threads) is doing, and never the time spent blocked on a fence. */
static double thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- pipelines --------------------------------------------------------------------------- */

static orr_result create_layouts(orr_renderer *r)
{
    VkShaderStageFlags push_stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    /* the meshlet strategy's task and mesh shaders read the scene set too (where they are used) */
    VkShaderStageFlags stages = push_stages | orri_meshlets_shader_stages(r);
    VkDescriptorSetLayoutBinding b[9] = {
        {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, stages, NULL}, /* view block (frame buffer) */
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* records (view-data buffer) */
        {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* instances */
        {3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* materials */
        {4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* joints */
        {5, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL}, /* lights (frame buffer) */
        {6, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | orri_meshlets_shader_stages(r),
         NULL}, /* morph targets */
        {7, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | orri_meshlets_shader_stages(r),
         NULL}, /* morph weights */
        {8, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL}, /* vertex capture (test mode) */
    };
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = r->vertex_capture ? 9u : 8u, .pBindings = b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &r->set_layout));
    VkDescriptorSetLayout sets[2] = {r->set_layout, r->textures.layout}; /* scene, textures */
    /* The shell path's push constant; every mesh pipeline shares the layout, so the sets bound for a
     * view stay bound across both paths. */
    VkPushConstantRange push = {push_stages, 0, sizeof(orr_gpu_shell)};
    VkPipelineLayoutCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 2,
        .pSetLayouts = sets,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &push,
    };
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &pi, NULL, &r->pipeline_layout));
    /* Per frame slot: the graphics set (8 storage buffers), the cull set (5) and the scatter set (2). */
    VkDescriptorPoolSize sizes[2] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 2 * ORRI_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 15 * ORRI_FRAMES_IN_FLIGHT},
    };
    VkDescriptorPoolCreateInfo di = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 3 * ORRI_FRAMES_IN_FLIGHT,
        .poolSizeCount = 2,
        .pPoolSizes = sizes,
    };
    ORRI_VK(r, vkCreateDescriptorPool(r->device, &di, NULL, &r->descriptor_pool));
    return ORR_OK;
}

/* The cache and mesh shaders (mesh pipelines are made when a frame first needs them), the cull's and
 * the scatter's compute pipelines. */
static orr_result create_pipelines(orr_renderer *r)
{
    orr_result rc = orri_pipelines_init(r);
    if (rc == ORR_OK) rc = orri_draws_create_pipeline(r);
    if (rc == ORR_OK) rc = orri_scene_create_pipelines(r);
    if (rc == ORR_OK) rc = orri_meshlets_init(r);
    return rc;
}

static orr_result create_frames(orr_renderer *r)
{
    /* A pool per frame slot, reset whole when its frame is recorded again (no per-buffer reset). */
    VkCommandPoolCreateInfo pi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
        .queueFamilyIndex = r->queue_family,
    };
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) {
        orri_frame *f = &r->frames[i];
        ORRI_VK(r, vkCreateCommandPool(r->device, &pi, NULL, &f->pool));
        VkCommandBufferAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = f->pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 1,
        };
        ORRI_VK(r, vkAllocateCommandBuffers(r->device, &ai, &f->cmd));
        /* the draw commands' pool: reset only when they are recorded again (they may be submitted many times) */
        VkCommandPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .queueFamilyIndex = r->queue_family};
        ORRI_VK(r, vkCreateCommandPool(r->device, &dpi, NULL, &f->draw_pool));
        ai.commandPool = f->draw_pool;
        ORRI_VK(r, vkAllocateCommandBuffers(r->device, &ai, &f->draw_cmd));
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT};
        ORRI_VK(r, vkCreateFence(r->device, &fi, NULL, &f->fence));
        VkDescriptorSetLayout layouts[3] = {r->set_layout, r->cull_layout, r->scatter_layout};
        VkDescriptorSet sets[3];
        VkDescriptorSetAllocateInfo si = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = r->descriptor_pool,
            .descriptorSetCount = 3,
            .pSetLayouts = layouts,
        };
        ORRI_VK(r, vkAllocateDescriptorSets(r->device, &si, sets));
        f->set = sets[0];
        f->cull_set = sets[1];
        f->scatter_set = sets[2];
    }
    if (r->timestamps) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2 * ORRI_FRAMES_IN_FLIGHT};
        ORRI_VK(r, vkCreateQueryPool(r->device, &qi, NULL, &r->queries));
    }
    return ORR_OK;
}

/* ---- renderer ---------------------------------------------------------------------------- */

orr_result orr_renderer_create(const orr_renderer_desc *desc, orr_renderer **out, orr_error *err)
{
    static const orr_renderer_desc defaults = {0};
    if (!out) return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "orr_renderer_create: out is NULL");
    *out = NULL;
    if (!desc) desc = &defaults;
    orr_allocator a = orri_allocator_or_default(&desc->allocator);
    orr_renderer *r = orri_alloc(&a, sizeof *r);
    if (!r) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_renderer_create: out of memory");
    r->allocator = a;
    r->alive = ORRI_ALIVE;
    r->logger = desc->logger;
    r->mip_threads = desc->threads ? (desc->threads < ORRI_MAX_THREADS ? desc->threads : ORRI_MAX_THREADS) : orri_cores();
    r->mip_workers = desc->workers;
    r->last_gpu_ms = -1.0;
    orr_handle_pool_init(&r->target_pool, &r->allocator, 0);
    orr_handle_pool_init(&r->view_pool, &r->allocator, 0);
    orr_handle_pool_init(&r->library_pool, &r->allocator, 0);
    for (int o = 0; o < 2; o++) orr_draw_scene_init(&r->draws[o].scene, &r->allocator);
    orri_scene_init(r);
    orr_result rc = orri_device_create(r, desc);
    if (rc == ORR_OK) rc = orri_textures_init(r, desc->texture_sets);
    if (rc == ORR_OK) rc = create_layouts(r);
    if (rc == ORR_OK) rc = create_pipelines(r);
    if (rc == ORR_OK) rc = create_frames(r);
    if (rc == ORR_OK) rc = orri_textures_create_white(r);
    if (rc != ORR_OK) {
        if (err) *err = r->error;
        orr_renderer_destroy(r);
        return rc;
    }
    orri_log(&r->logger, ORR_LOG_INFO, "gpu: %s (Vulkan %u.%u.%u)%s, textures: %s", r->properties.deviceName,
             VK_API_VERSION_MAJOR(r->properties.apiVersion), VK_API_VERSION_MINOR(r->properties.apiVersion),
             VK_API_VERSION_PATCH(r->properties.apiVersion), r->messenger ? ", validation on" : "",
             r->textures.array ? "one array" : "a set per material");
    *out = r;
    return ORR_OK;
}

static void view_release(orr_renderer *r, orri_view *v, bool now);
static void target_release(orr_renderer *r, orri_target *t, bool now);

void orr_renderer_destroy(orr_renderer *r)
{
    if (!r) return;
    ORRI_DESTROY_ONCE(r, "orr_renderer_destroy");
    if (r->device) ORRI_VK_LOG(r, vkDeviceWaitIdle(r->device));
    for (uint32_t i = 0; i < r->view_capacity; i++)
        if (r->views[i].alive) view_release(r, &r->views[i], true);
    for (uint32_t i = 0; i < r->target_capacity; i++)
        if (r->targets[i].alive) target_release(r, &r->targets[i], true);
    orri_collect_garbage(r, UINT64_MAX);
    orri_texture_targets_fini(r);
    if (r->device) {
        orri_scene_fini(r);
        orri_draws_fini(r);
        orri_meshlets_fini(r);
        orri_textures_fini(r);
        for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) {
            orri_frame *f = &r->frames[i];
            orri_buffer_destroy(r, &f->data);
            if (f->fence) vkDestroyFence(r->device, f->fence, NULL);
            if (f->pool) vkDestroyCommandPool(r->device, f->pool, NULL); /* its command buffer with it */
            if (f->draw_pool) vkDestroyCommandPool(r->device, f->draw_pool, NULL);
            orri_free(&r->allocator, f->draw_key, f->draw_key_capacity);
            orri_free(&r->allocator, f->feedback, sizeof *f->feedback * f->feedback_capacity);
        }
        if (r->queries) vkDestroyQueryPool(r->device, r->queries, NULL);
        orri_shell_fini(r);
        orri_pipelines_fini(r);
        for (int k = 0; k < 4; k++)
            if (r->pipeline_cull[k]) vkDestroyPipeline(r->device, r->pipeline_cull[k], NULL);
        if (r->pipeline_scatter) vkDestroyPipeline(r->device, r->pipeline_scatter, NULL);
        if (r->scatter_pipeline_layout) vkDestroyPipelineLayout(r->device, r->scatter_pipeline_layout, NULL);
        if (r->scatter_layout) vkDestroyDescriptorSetLayout(r->device, r->scatter_layout, NULL);
        if (r->pipeline_layout) vkDestroyPipelineLayout(r->device, r->pipeline_layout, NULL);
        if (r->cull_pipeline_layout) vkDestroyPipelineLayout(r->device, r->cull_pipeline_layout, NULL);
        if (r->descriptor_pool) vkDestroyDescriptorPool(r->device, r->descriptor_pool, NULL);
        if (r->set_layout) vkDestroyDescriptorSetLayout(r->device, r->set_layout, NULL);
        if (r->cull_layout) vkDestroyDescriptorSetLayout(r->device, r->cull_layout, NULL);
    } else {
        orri_scene_fini(r); /* CPU arrays only: nothing was created on a device */
        orri_draws_fini(r);
        orri_meshlets_fini(r);
    }
    orri_memory_fini(r); /* every resource is gone: only empty bookkeeping is left */
    orri_device_destroy(r);
    orri_free(&r->allocator, r->garbage, sizeof *r->garbage * r->garbage_capacity);
    orri_free(&r->allocator, r->targets, sizeof *r->targets * r->target_capacity);
    orri_free(&r->allocator, r->views, sizeof *r->views * r->view_capacity);
    orri_free(&r->allocator, r->view_order, sizeof *r->view_order * r->view_order_capacity);
    orri_free(&r->allocator, r->draw_key, r->draw_key_capacity);
    orr_handle_pool_fini(&r->target_pool);
    orr_handle_pool_fini(&r->view_pool);
    orr_handle_pool_fini(&r->library_pool);
    orr_allocator a = r->allocator;
    orri_free(&a, r, sizeof *r);
}

const orr_error *orr_renderer_last_error(const orr_renderer *r) { return &r->error; }
const char *orr_renderer_device_name(const orr_renderer *r) { return r->properties.deviceName; }
uint32_t orr_renderer_sample_counts(const orr_renderer *r) { return (uint32_t)r->sample_counts; }
double orr_exposure_from_ev100(double ev100) { return 1.0 / (1.2 * exp2(ev100)); }

/* ---- library bindings -------------------------------------------------------------------- */

static bool library_alive(const orr_renderer *r, orr_library_id id)
{
    return orr_handle_pool_is_alive(&r->library_pool, (orr_handle){id.index, id.generation}) &&
           r->library.index == id.index && r->library.generation == id.generation;
}

/* Everything kept for the bound library goes (GPU objects after the frames in flight). */
static void release_library(orr_renderer *r)
{
    if (!r->library.generation) return;
    orri_scene_release(r);
    orri_draws_release(r);
    orr_handle_pool_free(&r->library_pool, (orr_handle){r->library.index, r->library.generation});
    r->library = (orr_library_id){0, 0};
    r->library_assets = NULL;
}

orr_result orr_renderer_bind_library(orr_renderer *r, const orr_assets *assets, orr_library_id *out)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_bind_library: renderer is NULL");
    ORRI_REQUIRE(assets && out, &r->error, "orr_renderer_bind_library: assets and out must not be NULL");
    release_library(r);
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&r->library_pool, &h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "orr_renderer_bind_library: no binding slot");
    r->library = (orr_library_id){h.index, h.generation};
    r->library_assets = assets;
    *out = r->library;
    return ORR_OK;
}

orr_result orr_renderer_unbind_library(orr_renderer *r, orr_library_id id)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_unbind_library: renderer is NULL");
    if (!library_alive(r, id)) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_unbind_library: stale library id");
    release_library(r);
    return ORR_OK;
}

/* ---- targets ----------------------------------------------------------------------------- */

static orri_target *target_get(orr_renderer *r, orr_target_id id)
{
    if (!orr_handle_pool_is_alive(&r->target_pool, (orr_handle){id.index, id.generation})) return NULL;
    orri_target *t = &r->targets[id.index];
    return t->alive && t->generation == id.generation ? t : NULL;
}

static void target_release(orr_renderer *r, orri_target *t, bool now)
{
    uint64_t last = now ? 0 : r->frame_number;
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

/* The colour image (and the multisampled one it resolves, where the target has samples) at a size. */
orr_result orri_target_set_size(orr_renderer *r, orri_target *t, uint32_t width, uint32_t height)
{
    if (t->color.image && t->desc.width == width && t->desc.height == height) return ORR_OK;
    ORRI_TRY(orri_garbage_reserve(r, 3 + ORRI_FRAMES_IN_FLIGHT));
    orri_retire_image(r, &t->color, r->frame_number);
    orri_retire_image(r, &t->msaa, r->frame_number);
    orri_retire_image(r, &t->sampled, r->frame_number);
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) orri_retire_buffer(r, &t->readback[i], r->frame_number);
    t->read_last = false;
    t->desc.width = width;
    t->desc.height = height;
    /* a texture target's image is sampled by materials: what showed the old one is released */
    if (t->desc.texture_key) ORRI_TRY(orri_texture_target_changed(r, t));
    ORRI_TRY(orri_image_create(r, width, height, COLOR_FORMAT,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                   VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT, "target color", &t->color));
    if (t->desc.texture_key)
        ORRI_TRY(orri_image_create(r, width, height, COLOR_FORMAT,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                   VK_IMAGE_ASPECT_COLOR_BIT, "texture target (sampled)", &t->sampled));
    if (t->samples <= VK_SAMPLE_COUNT_1_BIT) return ORR_OK;
    return orri_image_create_desc(r,
                                  &(orri_image_desc){.width = width, .height = height, .samples = t->samples,
                                                     .format = COLOR_FORMAT,
                                                     .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                              VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                                     .aspect = VK_IMAGE_ASPECT_COLOR_BIT,
                                                     .what = "target color (multisampled)"},
                                  &t->msaa);
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
        target_release(r, t, true);
        orr_handle_pool_free(&r->target_pool, h);
        return rc;
    }
    t->alive = true;
    t->generation = h.generation;
    if (t->desc.texture_key) r->texture_targets.live++;
    *out = (orr_target_id){h.index, h.generation};
    return ORR_OK;
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
    t->samples = (VkSampleCountFlagBits)(desc->samples ? desc->samples : 1);
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
    t->samples = (VkSampleCountFlagBits)(desc->samples ? desc->samples : 1);
    memcpy(t->desc.clear_color, desc->clear_color, sizeof t->desc.clear_color);
    return target_made(r, t, h, orri_surface_create(r, t, desc->surface, desc->width, desc->height, desc->present_mode),
                       out);
}

orr_result orr_renderer_resize_target(orr_renderer *r, orr_target_id id, uint32_t width, uint32_t height)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_resize_target: renderer is NULL");
    orri_target *t = target_get(r, id);
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
    orri_target *t = target_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_target_size: stale target id");
    *width = t->minimised ? 0 : t->desc.width;
    *height = t->minimised ? 0 : t->desc.height;
    return ORR_OK;
}

orr_result orr_renderer_destroy_target(orr_renderer *r, orr_target_id id)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_destroy_target: renderer is NULL");
    orri_target *t = target_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_destroy_target: stale target id");
    if (t->desc.texture_key) { /* its materials sample white from the next frame on */
        ORRI_TRY(orri_texture_target_changed(r, t));
        r->texture_targets.live--;
    }
    /* Views of a destroyed target go with it (their ids then fail). */
    for (uint32_t i = 0; i < r->view_capacity; i++) {
        orri_view *v = &r->views[i];
        if (v->alive && orr_id_eq(v->desc.target, id)) {
            view_release(r, v, false);
            orr_handle_pool_free(&r->view_pool, (orr_handle){i, v->generation});
        }
    }
    target_release(r, t, false);
    orr_handle_pool_free(&r->target_pool, (orr_handle){id.index, id.generation});
    return ORR_OK;
}

/* ---- views ------------------------------------------------------------------------------- */

static orri_view *view_get(orr_renderer *r, orr_view_id id)
{
    if (!orr_handle_pool_is_alive(&r->view_pool, (orr_handle){id.index, id.generation})) return NULL;
    orri_view *v = &r->views[id.index];
    return v->alive && v->generation == id.generation ? v : NULL;
}

static void view_release(orr_renderer *r, orri_view *v, bool now)
{
    orri_retire_image(r, &v->depth, now ? 0 : r->frame_number);
    orr_draw_visible_fini(&v->visible);
    orri_shell_view_fini(r, v);
    orri_meshlets_view_release(r, v);
    v->alive = false;
}

/* The viewport is given for the target's size now, and scaled if the target is resized later. */
static void view_set_base(orr_renderer *r, orri_view *v)
{
    const orri_target *t = &r->targets[v->desc.target.index];
    v->base_width = t->desc.width;
    v->base_height = t->desc.height;
}

/* The view's viewport on a target of w x h (its desc's, scaled from the size it was given for). */
static orr_viewport view_rect(const orri_view *v, uint32_t w, uint32_t h)
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

static orr_result check_view_desc(orr_renderer *r, const orr_view_desc *desc, const char *call)
{
    orri_target *t = target_get(r, desc->target);
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
    view_release(r, v, false);
    orr_handle_pool_free(&r->view_pool, (orr_handle){id.index, id.generation});
    return ORR_OK;
}

/* ---- per-view camera --------------------------------------------------------------------- */

typedef struct view_frame {
    orr_draw_view draw;  /* origin, rotation-only view, projection */
    orr_gpu_view gpu;
} view_frame;

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
static const orr_render_camera *view_snapshot_camera(const orri_view *v, const orr_snapshot *s)
{
    if (orr_id_is_none(v->desc.camera)) return NULL;
    for (uint32_t i = 0; i < s->camera_count; i++)
        if (orr_entity_eq(s->cameras[i].entity, v->desc.camera)) return &s->cameras[i];
    return NULL;
}

/* The aspect ratio a snapshot camera fixes (glTF aspectRatio, or xmag / ymag), or 0. */
static double camera_aspect(const orr_render_camera *cam)
{
    if (!cam) return 0.0;
    if (cam->projection == ORR_ORTHOGRAPHIC) return cam->ymag > 0 && cam->xmag > 0 ? cam->xmag / cam->ymag : 0.0;
    return cam->aspect > 0 && isfinite(cam->aspect) ? cam->aspect : 0.0;
}

/* The largest rectangle of `aspect` centred in `vp` (vp itself when aspect is 0). */
static orr_viewport letterbox(orr_viewport vp, double aspect)
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
static void view_camera(const orri_view *v, const orr_snapshot *s, orr_viewport rect, view_frame *out)
{
    const orr_render_camera *cam = view_snapshot_camera(v, s);
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
    double aspect = camera_aspect(cam) > 0 ? camera_aspect(cam) : (double)rect.width / (double)rect.height;

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

    orr_gpu_view *g = &out->gpu;
    for (int i = 0; i < 16; i++) {
        g->view[i] = (float)view.m[i];
        g->proj[i] = (float)proj.m[i];
    }
    orr_split_double(origin.x, &g->origin_hi[0], &g->origin_lo[0]);
    orr_split_double(origin.y, &g->origin_hi[1], &g->origin_lo[1]);
    orr_split_double(origin.z, &g->origin_hi[2], &g->origin_lo[2]);

    const orr_view_lighting *lt = &v->desc.lighting;
    for (int c = 0; c < 3; c++) {
        g->sky[c] = lt->custom_ambient ? lt->sky[c] : DEFAULT_SKY;
        g->ground[c] = lt->custom_ambient ? lt->ground[c] : DEFAULT_GROUND;
    }
    g->sky[3] = lt->exposure > 0 ? (float)lt->exposure : 1.0f;
    g->params[3] = lt->tone_mapping == ORR_TONE_MAPPING_NONE ? ORR_GPU_TONE_NONE : ORR_GPU_TONE_PBR_NEUTRAL;
}

/* ---- the frame --------------------------------------------------------------------------- */

/* What a frame slot's last frame found, read once its fence signalled: its GPU time and the counts of
 * its GPU-culled views. */
static void read_completed(orr_renderer *r, orri_frame *f)
{
    if (f->timed && r->queries) {
        uint64_t t[2];
        uint32_t slot = (uint32_t)(f - r->frames);
        VkResult res = vkGetQueryPoolResults(r->device, r->queries, slot * 2, 2, sizeof t, t, sizeof t[0],
                                             VK_QUERY_RESULT_64_BIT);
        if (res == VK_SUCCESS && f->frame_number >= r->last_gpu_frame_number) {
            r->last_gpu_ms = (double)(t[1] - t[0]) * r->properties.limits.timestampPeriod * 1e-6;
            r->last_gpu_frame = f->stats_frame;
            r->last_gpu_frame_number = f->frame_number;
        }
    }
    f->timed = false;
    for (uint32_t k = 0; k < f->feedback_count; k++) {
        const orri_feedback *fb = &f->feedback[k];
        if (fb->view >= r->view_capacity) continue;
        orri_view *v = &r->views[fb->view];
        if (!v->alive || v->generation != fb->generation || fb->frame_number < v->gpu_visible_frame) continue;
        const uint32_t *counts = (const uint32_t *)((const uint8_t *)f->data.map + fb->offset);
        v->gpu_visible = counts[0];
        v->gpu_batches = counts[1];
        v->gpu_visible_frame = fb->frame_number;
    }
    f->feedback_count = 0;
    orri_meshlets_read(r, f);
}

static orr_result wait_frame(orr_renderer *r, orri_frame *f)
{
    if (!f->fence) return orri_gpu_fail(r, ORR_ERROR_VULKAN, "frame fence lost after a failed submit");
    if (!f->frame_number) return ORR_OK;
    ORRI_VK(r, vkWaitForFences(r->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
    read_completed(r, f);
    return ORR_OK;
}

/* The views of `target`, by ascending slot (then creation index, so ties are deterministic). */
static orr_result collect_views(orr_renderer *r, orr_target_id target, uint32_t *count)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->view_capacity; i++) {
        if (!r->views[i].alive || !orr_id_eq(r->views[i].desc.target, target)) continue;
        if (!ORRI_GROW(&r->allocator, r->view_order, r->view_order_capacity, n + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory ordering views");
        uint32_t k = n++;
        while (k > 0 && r->views[r->view_order[k - 1]].desc.slot > r->views[i].desc.slot) {
            r->view_order[k] = r->view_order[k - 1];
            k--;
        }
        r->view_order[k] = i;
    }
    *count = n;
    return ORR_OK;
}

/* The snapshot's joint matrices live in the joint buffer; the view block needs only its own data. */
static orr_result write_view_block(orr_renderer *r, orri_frame *f, orri_view *v, const view_frame *vf,
                                   const orr_snapshot *s)
{
    orr_gpu_view gv = vf->gpu;
    ORRI_TRY(orri_lights_write(r, f, &v->desc, s, vf->draw.origin, &gv.params[1], &gv.params[2]));
    ORRI_TRY(orri_frame_alloc(r, f, sizeof(orr_gpu_view), &v->ubo_offset));
    gv.params[0] = (uint32_t)(v->records_at / sizeof(orr_gpu_record));
    if (r->vertex_capture) memcpy(&gv.ground[3], &r->capture.per_slot, sizeof(float)); /* as uint bits */
    memcpy((uint8_t *)f->data.map + v->ubo_offset, &gv, sizeof gv);
    return ORR_OK;
}

static orr_result ensure_depth(orr_renderer *r, orri_view *v, uint32_t width, uint32_t height)
{
    if (v->depth.image && v->depth.width == width && v->depth.height == height && v->depth.samples == v->samples)
        return ORR_OK;
    ORRI_TRY(orri_retire_image(r, &v->depth, r->frame_number));
    return orri_image_create_desc(r,
                                  &(orri_image_desc){.width = width, .height = height, .samples = v->samples,
                                                     .format = DEPTH_FORMAT,
                                                     .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                                     .aspect = VK_IMAGE_ASPECT_DEPTH_BIT, .what = "view depth"},
                                  &v->depth);
}

/* Vertex capture (the test mode): room for every instance slot's pool vertices, host-visible. */
static orr_result capture_plan(orr_renderer *r)
{
    orri_capture *c = &r->capture;
    uint64_t per_slot = r->geometry.vertex_space.end, slots = r->instances.slots.count;
    uint64_t bytes = (per_slot * slots + 1) * 16;
    if (per_slot > UINT32_MAX / 2 || bytes > ((uint64_t)1 << 32))
        return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "vertex capture: %llu slots x %llu vertices is too much to capture",
                             (unsigned long long)slots, (unsigned long long)per_slot);
    if (!c->buffer.buffer || c->buffer.size < bytes) {
        ORRI_TRY(orri_retire_buffer(r, &c->buffer, r->frame_number));
        ORRI_TRY(orri_buffer_create(r, bytes * 2, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    true, "vertex capture", &c->buffer));
    }
    c->per_slot = (uint32_t)per_slot;
    c->slots = (uint32_t)slots;
    return ORR_OK;
}

/* How the snapshot is applied to what the renderer holds. */
typedef enum apply_mode {
    APPLY_DELTA = 0, /* its changed and removed instances */
    APPLY_SAME,      /* it was applied already (rendered again, into another target) */
    APPLY_WHOLE,     /* everything */
} apply_mode;

/* One frame, from plan to submit: what its steps share. */
typedef struct frame_job {
    orr_target_id target_id;
    orri_target *t;
    const orr_snapshot *s;
    const orr_assets *assets;
    uint64_t number;        /* the frame being made: renderer.frame_number + 1 */
    uint32_t slot;          /* its frame slot */
    orri_frame *f;
    apply_mode mode;
    uint32_t view_count;    /* the target's views, in r->view_order */
    view_frame *views;      /* per view: camera and GPU view block */
    orr_draw_view *draw_views;
    size_t views_size, draw_views_size;
    orri_upload up;
    bool readback;          /* the frame is read back (into t->readback[slot]) */
    bool acquired;          /* a surface target's swapchain image is acquired for it */
    orr_render_stats stats;
} frame_job;

/* The frame buffer: large enough for this frame, and given back when a few frames in a row needed far
 * less (a frame that uploaded a whole scene must not pin that much host memory). */
static orr_result size_frame_buffer(orr_renderer *r, orri_frame *f, uint64_t stage)
{
    f->data_used = 0;
    bool small = f->data.size > 4 * MIN_FRAME_BYTES && stage * 8 < f->data.size;
    f->small_frames = small ? f->small_frames + 1 : 0;
    if (f->data.size >= stage && f->small_frames < 4) return ORR_OK;
    VkDeviceSize size = MIN_FRAME_BYTES;
    while (size < stage * (small ? 2 : 1)) size *= 2;
    f->small_frames = 0;
    orri_buffer_destroy(r, &f->data); /* the slot's fence was waited for: nothing uses it */
    return orri_buffer_create(r, size,
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                  VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                              true, "frame buffer", &f->data);
}

/* The slot's host buffer for this frame's readback, made when first asked for. */
static orr_result ensure_readback(orr_renderer *r, orri_target *t, uint32_t slot)
{
    if (t->readback[slot].buffer) return ORR_OK;
    return orri_buffer_create(r, (VkDeviceSize)t->desc.width * t->desc.height * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              true, "target readback", &t->readback[slot]);
}

/* Per view: viewport, camera, its scene and cull, its depth image; adds its staging to *stage. */
static orr_result plan_views(orr_renderer *r, frame_job *job, uint64_t *stage)
{
    uint32_t n = job->view_count ? job->view_count : 1;
    job->views_size = sizeof *job->views * n;
    job->draw_views_size = sizeof *job->draw_views * n;
    job->views = orri_alloc(&r->allocator, job->views_size);
    job->draw_views = orri_alloc(&r->allocator, job->draw_views_size);
    if (!job->views || !job->draw_views) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for view data");
    for (uint32_t k = 0; k < job->view_count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        const orri_target *t = &r->targets[v->desc.target.index]; /* the frame's, or a texture target */
        orr_viewport vp = view_rect(v, t->desc.width, t->desc.height);
        /* a camera that fixes its aspect draws into the part of the viewport of that shape */
        orr_viewport rect = letterbox(vp, camera_aspect(view_snapshot_camera(v, job->s)));
        v->rect = rect;
        v->samples = t->samples;
        view_camera(v, job->s, rect, &job->views[k]);
        job->draw_views[k] = job->views[k].draw;
        ORRI_TRY(orri_draws_plan_view(r, v, job->s, &job->draw_views[k], stage));
        ORRI_TRY(orri_shell_plan_view(r, v, job->s, job->assets, &job->draw_views[k]));
        ORRI_TRY(orri_meshlets_plan_view(r, v, job->s, job->assets, stage));
        *stage += sizeof(orr_gpu_view) + (uint64_t)orri_lights_count(&v->desc, job->s) * sizeof(orr_gpu_light) +
                  2 * r->frame_align;
        ORRI_TRY(ensure_depth(r, v, rect.x + rect.width, rect.y + rect.height));
    }
    return ORR_OK;
}

/* Plan (CPU only), the frame slot free: what the snapshot changed, the scenes, the views, and
 * a frame buffer big enough for everything the frame stages. */
static orr_result plan_frame(orr_renderer *r, frame_job *job)
{
    orri_frame *f = job->f;
    double t1 = thread_ms(); /* the slot's fence was waited for: the wait is not the frame's cost */
    orri_collect_garbage(r, job->number >= ORRI_FRAMES_IN_FLIGHT ? job->number - ORRI_FRAMES_IN_FLIGHT : 0);
    const orr_snapshot *s = job->s;
    job->mode = s->delta_base && s->delta_base == r->applied_frame ? APPLY_DELTA
                : s->delta_base && s->frame == r->applied_frame   ? APPLY_SAME
                                                                  : APPLY_WHOLE;
    bool whole = job->mode == APPLY_WHOLE;
    uint64_t stage = r->frame_align;
    /* A delta can bring new meshes only with a new layout (a changed mesh binding is one). */
    orri_scan scan = whole ? ORRI_SCAN_ALL
                     : job->mode == APPLY_DELTA && s->layout_version != r->layout_version ? ORRI_SCAN_CHANGED
                                                                                          : ORRI_SCAN_NONE;
    ORRI_TRY(orri_geometry_plan(r, s, job->assets, scan, &stage));
    double t2 = thread_ms();
    if (job->mode != APPLY_SAME) {
        ORRI_TRY(orri_instances_plan(r, s, whole, &stage));
        ORRI_TRY(orri_joints_plan(r, s, whole, &stage));
        ORRI_TRY(orri_weights_plan(r, s, whole, &stage));
    } else {
        r->instances.upload_count = r->joints.upload_count = r->weights.upload_count = 0;
        r->instances.upload_all = r->joints.upload_all = r->weights.upload_all = r->instances.flipped = false;
    }
    if (r->vertex_capture) ORRI_TRY(capture_plan(r));
    double t3 = thread_ms();
    ORRI_TRY(collect_views(r, job->target_id, &job->view_count));
    for (int o = 0; o < 2; o++) r->draws[o].used = false;
    for (uint32_t k = 0; k < job->view_count; k++) r->draws[r->views[r->view_order[k]].desc.order].used = true;
    orri_texture_targets_mark_used(r); /* any of them may be drawn before this target */
    /* Residency before planning: the materials (and their textures) the scenes draw are made resident
     * here; orri_draws_plan then only reads them. */
    bool restate = false;
    ORRI_TRY(orri_materials_refresh(r, job->assets, &restate));
    ORRI_TRY(orri_draws_build(r, s, job->assets, whole || restate));
    for (int o = 0; o < 2; o++)
        if (r->draws[o].fresh) ORRI_TRY(orri_materials_touch_scene(r, job->assets, &r->draws[o].scene));
    ORRI_TRY(orri_draws_plan(r, job->assets, &stage));
    uint32_t own_views = job->view_count;
    /* the texture targets the views sample, and theirs: their views before this target's */
    ORRI_TRY(orri_texture_targets_plan(r, s, job->assets, job->target_id.index, &job->view_count, &job->stats));
    const orri_texture_targets *tt = &r->texture_targets;
    job->stats.views = own_views;
    job->stats.texture_targets = tt->order_count - 1;
    job->stats.texture_views = job->view_count - own_views;
    for (uint32_t k = 0; k < job->view_count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        v->draws = &r->draws[v->desc.order];
        v->gpu_cull = v->desc.cull == ORR_CULL_GPU ||
                      (v->desc.cull == ORR_CULL_AUTO &&
                       (v->desc.strategy == ORR_STRATEGY_INDIRECT || v->desc.strategy == ORR_STRATEGY_MESHLET));
    }
    uint32_t keys = 0; /* the pipelines this frame draws with, at each of its targets' sample counts */
    for (int o = 0; o < 2; o++)
        if (r->draws[o].used) keys |= r->draws[o].pipeline_keys;
    for (uint32_t k = 0; k < tt->order_count; k++) {
        orri_target *ft = &r->targets[tt->order[k].target];
        ORRI_TRY(orri_pipelines_ensure(r, keys, ft->samples));
        if (ft != job->t && ft->desc.readback) ORRI_TRY(ensure_readback(r, ft, job->slot));
    }
    double t4 = thread_ms();
    ORRI_TRY(plan_views(r, job, &stage));
    ORRI_TRY(orri_draws_layout(r, r->view_order, job->view_count));
    ORRI_TRY(orri_meshlets_layout(r, r->view_order, job->view_count));
    stage += orri_materials_plan(r) + orri_textures_plan(r, job->assets);
    if (!ORRI_GROW(&r->allocator, f->feedback, f->feedback_capacity, job->view_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for cull feedback");
    ORRI_TRY(orri_meshlets_reserve_feedback(r, f, job->view_count));
    ORRI_TRY(size_frame_buffer(r, f, stage));
    double t5 = thread_ms();
    double *ms = job->stats.cpu_ms;
    ms[ORR_PHASE_RESIDENCY] += t2 - t1;
    ms[ORR_PHASE_INSTANCES] += t3 - t2;
    ms[ORR_PHASE_SCENES] += t4 - t3;
    ms[ORR_PHASE_VIEWS] += t5 - t4;
    return ORR_OK;
}

/* The frame's descriptor set: its last use has finished (fence), and no command bound it yet. */
static void write_frame_set(orr_renderer *r, const orri_frame *f)
{
    VkDescriptorBufferInfo infos[9] = {
        {f->data.buffer, 0, sizeof(orr_gpu_view)},
        {r->view_data.buffer, 0, VK_WHOLE_SIZE},
        {r->instances.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->materials.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->joints.buffer.buffer, 0, VK_WHOLE_SIZE},
        {f->data.buffer, 0, VK_WHOLE_SIZE}, /* the views' lights */
        {r->geometry.morphs.buffer, 0, VK_WHOLE_SIZE},
        {r->weights.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->capture.buffer.buffer, 0, VK_WHOLE_SIZE}, /* the test mode's (vertex_capture) */
    };
    uint32_t n = r->vertex_capture ? 9u : 8u;
    VkWriteDescriptorSet writes[9];
    for (uint32_t i = 0; i < n; i++) {
        writes[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = f->set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &infos[i],
        };
    }
    vkUpdateDescriptorSets(r->device, n, writes, 0, NULL);
    orri_textures_write_frame(r, (uint32_t)(f - r->frames));
}

/* The uploads: the views' blocks and parts first (at the same offsets every frame while the views,
 * their scenes and lights stay: the kept draw commands name those offsets), then the meshes, records,
 * joints, materials, textures, the meshlet views' parts. */
static orr_result record_uploads(orr_renderer *r, frame_job *job)
{
    orri_upload *up = &job->up;
    for (uint32_t k = 0; k < job->view_count; k++)
        ORRI_TRY(write_view_block(r, job->f, &r->views[r->view_order[k]], &job->views[k], job->s));
    ORRI_TRY(orri_draws_upload(r, job->s, up, r->view_order, job->view_count, job->draw_views));
    ORRI_TRY(orri_geometry_upload(r, job->assets, up));
    ORRI_TRY(orri_instances_upload(r, job->s, up));
    ORRI_TRY(orri_joints_upload(r, job->s, up));
    ORRI_TRY(orri_weights_upload(r, job->s, up));
    ORRI_TRY(orri_materials_upload(r, up));
    ORRI_TRY(orri_textures_upload(r, job->assets, up));
    ORRI_TRY(orri_meshlets_upload_views(r, up, r->view_order, job->view_count, job->draw_views));
    return ORR_OK;
}

/* The views of target `t` (view_order[first .. first + count), by slot): each its depth cleared, the
 * colour loaded, viewport and scissor, its passes. */
static void record_views(orr_renderer *r, frame_job *job, VkCommandBuffer cmd, const orri_target *t, uint32_t first,
                         uint32_t count)
{
    orr_render_stats *st = &job->stats;
    for (uint32_t k = first; k < first + count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        orri_barrier_image(cmd, v->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT,
                           VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                           VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                           VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                           VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                               VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                           VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
        VkRect2D area = {{(int32_t)v->rect.x, (int32_t)v->rect.y}, {v->rect.width, v->rect.height}};
        VkRenderingAttachmentInfo color = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageView = t->color.view,
            .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
            .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        };
        if (t->msaa.image) {
            /* Multisampled: the views draw into the samples (kept for the next view, which may overlap)
             * and each resolves its own area into the target's image. */
            color.imageView = t->msaa.view;
            color.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
            color.resolveImageView = t->color.view;
            color.resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        }
        VkRenderingAttachmentInfo depth = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
            .imageView = v->depth.view,
            .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
            .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
            .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
            .clearValue = {.depthStencil = {0.0f, 0}}, /* reversed Z: 0 is infinitely far */
        };
        VkRenderingInfo ri = {
            .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
            .renderArea = area,
            .layerCount = 1,
            .colorAttachmentCount = 1,
            .pColorAttachments = &color,
            .pDepthAttachment = &depth,
        };
        vkCmdBeginRendering(cmd, &ri);
        VkViewport viewport = {(float)v->rect.x, (float)v->rect.y, (float)v->rect.width, (float)v->rect.height, 0.0f, 1.0f};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &area);
        if (v->meshlet.active) orri_meshlets_record(r, cmd, job->f, v, &st->draw_calls);
        else orri_draws_record(r, cmd, job->f, v, &st->draw_calls);
        vkCmdEndRendering(cmd);
        /* The next view loads what this one stored. */
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    }
}

/* One clear for the whole target (its samples too, which views load); a texture target's after the
 * fragment shader reads of earlier frames. */
static void clear_target(VkCommandBuffer cmd, const orri_target *t)
{
    VkPipelineStageFlags2 before = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                   (t->desc.texture_key ? VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT : 0);
    orri_barrier_image(cmd, t->color.image, VK_IMAGE_ASPECT_COLOR_BIT, before, 0, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                       VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkClearColorValue clear;
    memcpy(clear.float32, t->desc.clear_color, sizeof clear.float32);
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range);
    orri_barrier_image(cmd, t->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                       VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    if (t->msaa.image) { /* the samples too: views load them */
        orri_barrier_image(cmd, t->msaa.image, VK_IMAGE_ASPECT_COLOR_BIT,
                           VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, 0, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                           VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        vkCmdClearColorImage(cmd, t->msaa.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range);
        orri_barrier_image(cmd, t->msaa.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                           VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                           VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    }
}

/* The frame's uploads, in the slot's upload command buffer: timestamp -> the uploads -> the instance
 * scatter. Recorded every frame. */
static orr_result record_uploads_cmd(orr_renderer *r, frame_job *job)
{
    VkCommandBuffer cmd = job->f->cmd;
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    ORRI_VK(r, vkResetCommandPool(r->device, job->f->pool, 0)); /* its fence was waited for in plan_frame */
    ORRI_VK(r, vkBeginCommandBuffer(cmd, &bi));
    if (r->queries) {
        vkCmdResetQueryPool(cmd, r->queries, job->slot * 2, 2);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_NONE, r->queries, job->slot * 2);
    }
    /* Earlier frames' reads and writes of the scene buffers come before this frame's copies and culls
     * (the stages that touch them, named: the best-practices layer asks for no ALL_COMMANDS here). */
    orri_barrier_memory(cmd,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT |
                            VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                            orri_meshlets_pipeline_stages(r),
                        VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT |
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    job->up = (orri_upload){.cmd = cmd, .frame = job->f, .frame_number = job->number};
    orr_result rc = record_uploads(r, job);
    if (rc == ORR_OK) orri_instances_scatter(r, cmd, job->f);
    if (rc == ORR_OK && r->vertex_capture) { /* NaN wherever this frame draws no vertex */
        vkCmdFillBuffer(cmd, r->capture.buffer.buffer, 0, VK_WHOLE_SIZE, 0x7fc00000u);
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    /* Out of the recording state even after an error, so that the next frame may begin it again (the
     * first error stays the frame's). */
    VkResult res = vkEndCommandBuffer(cmd);
    if (rc == ORR_OK && res != VK_SUCCESS)
        rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkEndCommandBuffer failed: %s", orri_vk_result_name(res));
    return rc;
}

/* The frame's draws, in the slot's draw command buffer: the GPU culls -> one clear of the target ->
 * the views -> readback -> timestamp. */
static orr_result record_draws_cmd(orr_renderer *r, frame_job *job)
{
    orri_target *t = job->t;
    VkCommandBuffer cmd = job->f->draw_cmd;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}; /* may be submitted again */
    ORRI_VK(r, vkResetCommandPool(r->device, job->f->draw_pool, 0));
    ORRI_VK(r, vkBeginCommandBuffer(cmd, &bi));
    orri_draws_cull(r, cmd, job->f, r->view_order, job->view_count);
    orri_meshlets_dispatch(r, cmd, job->f, r->view_order, job->view_count);
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                        VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT |
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
    write_frame_set(r, job->f);

    /* Texture targets whose image is new: readable from here on, whatever this frame draws. */
    orri_texture_targets_record_init(r, cmd);
    /* The texture targets this frame samples, each after those it samples, then the target: each one
     * clear, its views, and (texture targets) its image made readable for what follows. */
    const orri_texture_targets *tt = &r->texture_targets;
    bool read_any = job->readback;
    for (uint32_t k = 0; k < tt->order_count; k++) {
        orri_target *ft = &r->targets[tt->order[k].target];
        clear_target(cmd, ft);
        record_views(r, job, cmd, ft, tt->order[k].first_view, tt->order[k].view_count);
        if (ft == t) continue;
        orri_texture_targets_record_publish(r, cmd, ft, ft->desc.readback ? &ft->readback[job->slot] : NULL);
        read_any = read_any || ft->desc.readback;
    }
    orri_meshlets_feedback(r, cmd, job->f, r->view_order, job->view_count);
    if (t->surface) { /* to the acquired image, which is then presented */
        orri_surface_record(r, t, cmd, job->slot, job->readback ? &t->readback[job->slot] : NULL);
    } else if (t->desc.texture_key) { /* drawn as the target: its sampled image too */
        t->readback_bgra[job->slot] = false;
        orri_texture_targets_record_publish(r, cmd, t, job->readback ? &t->readback[job->slot] : NULL);
    } else if (job->readback) { /* the whole target into this slot's host buffer */
        t->readback_bgra[job->slot] = false;
        orri_barrier_image(cmd, t->color.image, VK_IMAGE_ASPECT_COLOR_BIT,
                           VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                           VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                           VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        VkBufferImageCopy copy = {
            .bufferOffset = 0,
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
            .imageExtent = {t->desc.width, t->desc.height, 1},
        };
        vkCmdCopyImageToBuffer(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, t->readback[job->slot].buffer,
                               1, &copy);
    }
    if (read_any)
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    /* after everything (bottom of pipe: the best-practices layer asks for no ALL_COMMANDS) */
    if (r->queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, r->queries, job->slot * 2 + 1);
    ORRI_VK(r, vkEndCommandBuffer(cmd));
    return ORR_OK;
}

/* ---- draw commands kept across frames ------------------------------------------------------ */

static void key_put(orr_renderer *r, size_t *size, const void *p, size_t n, bool *ok)
{
    if (!*ok) return;
    size_t need = *size + n;
    if (need > r->draw_key_capacity) {
        size_t cap = r->draw_key_capacity ? r->draw_key_capacity : 256;
        while (cap < need) cap *= 2;
        uint8_t *grown = orri_realloc(&r->allocator, r->draw_key, r->draw_key_capacity, cap);
        if (!grown) {
            *ok = false;
            return;
        }
        r->draw_key = grown;
        r->draw_key_capacity = cap;
    }
    memcpy(r->draw_key + *size, p, n);
    *size = need;
}
#define KEY(value) key_put(r, &size, &(value), sizeof(value), &ok)

/* Whether the frame's draw commands may be kept, and then (in r->draw_key, *key_size bytes) everything
 * they are recorded from: the objects they name (through objects_epoch, which moves whenever one is
 * made or destroyed), the target, each view's place, depth image, scene and frame-buffer offsets, and
 * the scenes' batches and their states. What is written into mapped memory every frame (the views'
 * cameras and lights, the cull blocks, the records) is read by the commands, not part of them. Kept
 * only for the common live case, where the GPU does the per-frame work: views culled on the GPU and
 * drawn indirect, an offscreen target, no texture targets, meshlets or fur, nothing transparent
 * (whose ranges the CPU sorts per frame), no texture array slots rewritten. */
static bool draw_commands_key(orr_renderer *r, const frame_job *job, size_t *key_size)
{
    const orri_target *t = job->t;
    if (t->surface || t->desc.texture_key || r->texture_targets.live || r->meshlets.any) return false;
    if (r->textures.array && r->textures.dirty_count[job->slot]) return false;
    for (uint32_t k = 0; k < job->view_count; k++) {
        const orri_view *v = &r->views[r->view_order[k]];
        if (!v->gpu_cull || v->desc.strategy != ORR_STRATEGY_INDIRECT || v->meshlet.active || v->shell.fur.draw_count ||
            v->visible.range_count != v->visible.opaque_ranges)
            return false;
    }
    size_t size = 0;
    bool ok = true;
    KEY(r->objects_epoch);
    KEY(job->target_id);
    KEY(t->desc.width);
    KEY(t->desc.height);
    KEY(t->desc.clear_color);
    KEY(t->samples);
    KEY(t->color.image);
    KEY(t->msaa.image);
    KEY(job->readback);
    KEY(t->readback[job->slot].buffer);
    KEY(job->view_count);
    for (uint32_t k = 0; k < job->view_count; k++) {
        const orri_view *v = &r->views[r->view_order[k]];
        uint32_t draws = (uint32_t)(v->draws - r->draws);
        KEY(r->view_order[k]);
        KEY(v->generation);
        KEY(v->rect);
        KEY(v->samples);
        KEY(v->depth.image);
        KEY(draws);
        KEY(v->ubo_offset);
        KEY(v->cull_offset);
        KEY(v->feedback_offset);
        KEY(v->records_at);
        KEY(v->commands_at);
        KEY(v->words_at);
        KEY(v->command_count);
    }
    for (int o = 0; o < 2; o++) {
        const orri_draws *d = &r->draws[o];
        if (!d->used) continue;
        const orr_draw_scene *sc = &d->scene;
        KEY(o);
        KEY(sc->batch_count);
        KEY(sc->pass_items);
        KEY(sc->pass_batches);
        for (uint32_t b = 0; b < sc->batch_count; b++) {
            const orri_batch_state *st = &d->state[b];
            KEY(sc->batches[b].payload);
            KEY(st->pipeline);
            KEY(st->cull);
            KEY(st->texture);
            KEY(st->index_count);
            KEY(st->first_index);
            KEY(st->vertex_offset);
            KEY(st->resident);
        }
    }
    *key_size = size;
    return ok;
}
#undef KEY

/* Record: the uploads' command buffer, then the draws' (or their recording from two frames ago,
 * when draw_commands_key says nothing they are made from changed: a frame in which nothing changed
 * records only its uploads' few commands). */
static orr_result record_frame(orr_renderer *r, frame_job *job)
{
    orri_frame *f = job->f;
    ORRI_TRY(record_uploads_cmd(r, job));
    size_t key_size = 0;
    bool keep = draw_commands_key(r, job, &key_size);
    if (keep && f->draw_valid && f->draw_key_size == key_size && !memcmp(f->draw_key, r->draw_key, key_size)) {
        job->stats.draw_calls = f->draw_calls;
        job->stats.commands_reused = true;
        if (job->readback) job->t->readback_bgra[job->slot] = false; /* (as recording it says) */
        r->meshlets.ran = false; /* (no meshlet view: what its dispatch would have said) */
        return orri_scene_reserve_commit(r);
    }
    f->draw_valid = false;
    ORRI_TRY(record_draws_cmd(r, job));
    if (keep) { /* the key becomes the slot's (and the slot's old buffer the next key's) */
        uint8_t *key = f->draw_key;
        size_t capacity = f->draw_key_capacity;
        f->draw_key = r->draw_key;
        f->draw_key_capacity = r->draw_key_capacity;
        f->draw_key_size = key_size;
        r->draw_key = key;
        r->draw_key_capacity = capacity;
        f->draw_valid = true;
        f->draw_calls = job->stats.draw_calls;
    }
    return orri_scene_reserve_commit(r);
}

/* After a failed reset or submit the fence's state is not known and nothing was queued to signal
 * it: a new one, created signalled, keeps the slot's next wait from hanging. */
static void replace_fence(orr_renderer *r, orri_frame *f)
{
    vkDestroyFence(r->device, f->fence, NULL);
    f->fence = VK_NULL_HANDLE;
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT};
    VkResult res = vkCreateFence(r->device, &fi, NULL, &f->fence);
    if (res != VK_SUCCESS) {
        f->fence = VK_NULL_HANDLE; /* wait_frame reports the slot as lost */
        orri_log(&r->logger, ORR_LOG_ERROR, "gpu: vkCreateFence after a failed submit failed: %s", orri_vk_result_name(res));
    }
}

/* Submit with the slot's fence (waited for when the slot comes round again, or by read_target). */
static orr_result submit_frame(orr_renderer *r, frame_job *job)
{
    orri_frame *f = job->f;
    /* The fence is reset only now, so a frame that failed earlier leaves it signalled. */
    VkResult res = vkResetFences(r->device, 1, &f->fence);
    if (res == VK_SUCCESS) {
        VkCommandBufferSubmitInfo ci[2] = {
            {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = f->cmd},
            {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = f->draw_cmd},
        };
        VkSubmitInfo2 si = {
            .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 2, .pCommandBufferInfos = ci};
        VkSemaphoreSubmitInfo wait, signal; /* a surface target: after the acquire, before the present */
        if (job->acquired) {
            orri_surface_semaphores(job->t, job->slot, &wait, &signal);
            si.waitSemaphoreInfoCount = si.signalSemaphoreInfoCount = 1;
            si.pWaitSemaphoreInfos = &wait;
            si.pSignalSemaphoreInfos = &signal;
        }
        res = vkQueueSubmit2(r->queue, 1, &si, f->fence);
        if (res != VK_SUCCESS) {
            replace_fence(r, f);
            return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkQueueSubmit2 failed: %s", orri_vk_result_name(res));
        }
        return ORR_OK;
    }
    replace_fence(r, f);
    return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkResetFences failed: %s", orri_vk_result_name(res));
}

/* The frame is queued: its uploads are done as far as later frames are concerned, and its snapshot is
 * what the renderer holds. */
static void commit_frame(orr_renderer *r, frame_job *job, orr_render_stats *stats)
{
    orri_scene_commit(r, job->number);
    orri_textures_commit(r);
    orri_texture_targets_commit(r);
    r->frame_number = job->number;
    r->applied_frame = job->s->frame;
    orri_frame *f = job->f;
    f->frame_number = job->number;
    f->stats_frame = job->s->frame;
    f->timed = r->queries != VK_NULL_HANDLE;
    f->feedback_count = 0;
    for (uint32_t k = 0; k < job->view_count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        if (v->gpu_cull)
            f->feedback[f->feedback_count++] = (orri_feedback){r->view_order[k], v->generation, v->feedback_offset, job->number};
    }
    orri_meshlets_submitted(r, f, job->number, r->view_order, job->view_count);
    job->t->last_frame = job->number;
    job->t->last_slot = job->slot;
    job->t->read_last = job->readback;
    const orri_texture_targets *tt = &r->texture_targets;
    for (uint32_t k = 0; k < tt->order_count; k++) { /* the texture targets drawn before it */
        orri_target *ft = &r->targets[tt->order[k].target];
        if (ft == job->t) continue;
        ft->last_frame = job->number;
        ft->last_slot = job->slot;
        ft->read_last = ft->desc.readback;
        ft->readback_bgra[job->slot] = false;
    }
    orr_render_stats *st = &job->stats;
    for (uint32_t k = 0; k < job->view_count; k++) orri_draws_stats(r, &r->views[r->view_order[k]], st);
    st->changed = r->instances.upload_all ? r->instances.slots.alive : r->instances.upload_count;
    st->full_sync = job->mode == APPLY_WHOLE;
    st->geometry_bytes = r->geometry.vertex_space.used * ORRI_VERTEX_BYTES + r->geometry.index_space.used * 4 +
                         r->geometry.morph_space.used * ORRI_MORPH_UNIT + orri_meshlets_bytes(r);
    st->instance_bytes = (uint64_t)r->instances.slots.alive * sizeof(orr_gpu_instance);
    st->material_bytes = (uint64_t)r->materials.count * sizeof(orr_gpu_material);
    st->uploaded_bytes = job->up.bytes;
    st->view_bytes = job->up.view_bytes;
    st->gpu_bytes = r->gpu_bytes;
    st->gpu_allocations = orri_memory_allocations(r);
    st->gpu_ms = r->last_gpu_ms;
    st->gpu_frame = r->last_gpu_frame;
    st->presented = true;
    st->swapchains = orri_surface_swapchains(job->t);
    r->last_stats = *st;
    if (stats) *stats = *st;
}

static orr_result render_frame(orr_renderer *r, const orr_render_desc *d, orri_target *t, orr_render_stats *stats)
{
    frame_job job = {.target_id = d->target, .t = t, .s = d->snapshot, .assets = d->assets, .number = r->frame_number + 1};
    job.slot = (uint32_t)(job.number % ORRI_FRAMES_IN_FLIGHT);
    job.f = &r->frames[job.slot];
    job.readback = d->readback || t->desc.readback;
    job.stats = (orr_render_stats){.frame = d->snapshot->frame, .instances = d->snapshot->instance_count};
    /* The slot's fence, then (a surface target) an image to draw into: waits, not the frame's cost. */
    double w0 = thread_ms();
    orr_result rc = wait_frame(r, job.f);
    bool draw = true;
    if (rc == ORR_OK && t->surface) rc = orri_surface_acquire(r, t, job.slot, &draw);
    job.stats.wait_ms = thread_ms() - w0;
    if (rc == ORR_OK && !draw) { /* minimised: nothing drawn, the snapshot not applied */
        job.stats.swapchains = orri_surface_swapchains(t);
        if (stats) *stats = job.stats;
        return ORR_OK;
    }
    job.acquired = rc == ORR_OK && t->surface;
    if (rc == ORR_OK && job.readback) rc = ensure_readback(r, t, job.slot);
    if (rc == ORR_OK) rc = plan_frame(r, &job);
    double t0 = thread_ms();
    if (rc == ORR_OK) rc = record_frame(r, &job);
    double t1 = thread_ms();
    if (rc == ORR_OK) rc = submit_frame(r, &job);
    double t2 = thread_ms();
    job.stats.cpu_ms[ORR_PHASE_RECORD] = t1 - t0;
    job.stats.cpu_ms[ORR_PHASE_SUBMIT] = t2 - t1;
    if (rc == ORR_OK) {
        commit_frame(r, &job, stats);
        if (t->surface) rc = orri_surface_present(r, t); /* the frame stands even if this fails */
        if (stats) stats->cpu_ms[ORR_PHASE_SUBMIT] += thread_ms() - t2;
    } else {
        if (job.acquired) orri_surface_abort(r, t, job.slot);
        /* Whatever the frame planned or recorded is redone by the next one, which takes its snapshot
         * whole (the records, joints and scenes this one changed on the CPU side never reached the GPU). */
        orri_scene_abort(r);
        r->applied_frame = 0;
        for (int o = 0; o < 2; o++) r->draws[o].built = false;
    }
    orri_free(&r->allocator, job.views, job.views_size);
    orri_free(&r->allocator, job.draw_views, job.draw_views_size);
    return rc;
}

orr_result orr_renderer_render(orr_renderer *r, const orr_render_desc *desc, orr_render_stats *stats)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_render: renderer is NULL");
    ORRI_REQUIRE(desc && desc->snapshot && desc->assets, &r->error, "orr_renderer_render: desc, desc->snapshot and desc->assets must not be NULL");
    if (stats) memset(stats, 0, sizeof *stats);
    orri_target *t = target_get(r, desc->target);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_render: stale target id");
    if (!library_alive(r, desc->library))
        return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE,
                             "orr_renderer_render: desc.library is stale (bind the library with orr_renderer_bind_library)");
    ORRI_ASSERT(desc->assets == r->library_assets,
                "orr_renderer_render: desc.assets is not the library desc.library was bound to");
    return render_frame(r, desc, t, stats);
}

orr_result orr_renderer_finish(orr_renderer *r, orr_render_stats *stats)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_finish: renderer is NULL");
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) {
        orri_frame *f = &r->frames[i];
        if (!f->frame_number || !f->fence) continue;
        ORRI_VK(r, vkWaitForFences(r->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
        read_completed(r, f);
    }
    if (!stats) return ORR_OK;
    *stats = r->last_stats;
    stats->visible = stats->surface_draws = stats->batches = stats->gpu_culled_views = stats->culled = 0;
    stats->fur_fallbacks = stats->fur_draws = 0;
    stats->shells = 0;
    memset(stats->dropped, 0, sizeof stats->dropped);
    stats->meshlet_views = stats->mesh_shader_views = 0;
    stats->meshlets_sent = stats->meshlets_kept = stats->meshlet_triangles_sent = stats->meshlet_triangles_kept = 0;
    stats->meshlet_triangles_indexed = 0;
    memset(stats->meshlet_indexed, 0, sizeof stats->meshlet_indexed);
    uint32_t views = r->last_stats.views + r->last_stats.texture_views; /* the texture targets' first */
    for (uint32_t k = 0; k < views && k < r->view_order_capacity; k++) {
        const orri_view *v = &r->views[r->view_order[k]];
        if (!v->alive) continue;
        orri_draws_stats(r, v, stats);
    }
    stats->gpu_ms = r->last_gpu_ms;
    stats->gpu_frame = r->last_gpu_frame;
    return ORR_OK;
}

orr_result orr_renderer_read_target(orr_renderer *r, orr_target_id target, uint8_t *rgba, size_t size)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_read_target: renderer is NULL");
    orri_target *t = target_get(r, target);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_read_target: stale target id");
    size_t need = (size_t)t->desc.width * t->desc.height * 4;
    if (!rgba || size < need)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "orr_renderer_read_target: buffer of %zu bytes, %ux%u needs %zu",
                             size, t->desc.width, t->desc.height, need);
    if (!t->last_frame)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "orr_renderer_read_target: the target was never rendered");
    if (!t->read_last)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_read_target: the target's last frame was not read back (ask with "
                             "orr_render_desc.readback, or make the target with orr_target_desc.readback)");
    orri_frame *f = &r->frames[t->last_slot];
    if (f->frame_number == t->last_frame) {
        ORRI_VK(r, vkWaitForFences(r->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
        read_completed(r, f);
    }
    memcpy(rgba, t->readback[t->last_slot].map, need);
    if (t->readback_bgra[t->last_slot]) /* a B8G8R8A8 swapchain image's bytes */
        for (size_t i = 0; i < need; i += 4) {
            uint8_t b = rgba[i];
            rgba[i] = rgba[i + 2];
            rgba[i + 2] = b;
        }
    return ORR_OK;
}

orr_result orr_renderer_read_vertices(orr_renderer *r, uint32_t instance_id, orr_mesh_id mesh, uint32_t primitive,
                                      float *xyz, uint32_t count)
{
    static const char fn[] = "orr_renderer_read_vertices";
    ORRI_ASSERT(r && (xyz || !count), "%s: a renderer and room for the vertices", fn);
    if (!r->vertex_capture)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: the renderer was made without vertex_capture", fn);
    uint32_t slot = orri_instances_slot(r, instance_id);
    const orri_resident_primitive *rp = orri_geometry_find(r, mesh, primitive);
    if (slot == UINT32_MAX || !rp)
        return orri_gpu_fail(r, ORR_ERROR_NOT_FOUND, "%s: instance %u or primitive %u of mesh %u is not resident", fn,
                             instance_id, primitive, mesh.index);
    if (count != rp->vertex_count)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: room for %u vertices, the primitive has %u", fn, count,
                             rp->vertex_count);
    const orri_capture *c = &r->capture;
    if (slot >= c->slots || (uint64_t)rp->vertex_offset + count > c->per_slot)
        return orri_gpu_fail(r, ORR_ERROR_NOT_FOUND, "%s: instance %u was not drawn since it was made resident", fn,
                             instance_id);
    ORRI_VK(r, vkDeviceWaitIdle(r->device)); /* the last frame's writes are in */
    const float *at = (const float *)c->buffer.map + ((size_t)slot * c->per_slot + (size_t)rp->vertex_offset) * 4;
    for (uint32_t v = 0; v < count; v++) memcpy(xyz + (size_t)v * 3, at + (size_t)v * 4, 3 * sizeof(float));
    return ORR_OK;
}
