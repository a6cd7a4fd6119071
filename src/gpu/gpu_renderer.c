/* The renderer: creation and destruction (layouts, pipelines, frame slots, in the order the rooms
 * need them). */
#include "gpu/gpu_baseline.h"
#include "gpu/gpu_cull.h"
#include "gpu/gpu_debug_draw.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_draws.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_memory.h"
#include "gpu/gpu_meshlet.h"
#include "gpu/gpu_motion.h"
#include "gpu/gpu_occlusion.h"
#include "gpu/gpu_pick.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_scene.h"
#include "gpu/gpu_shadow.h"
#include "gpu/gpu_shell.h"
#include "gpu/gpu_target.h"
#include "gpu/gpu_technique.h"
#include "gpu/gpu_texture.h"
#include "gpu/gpu_texture_target.h"
#include "gpu/gpu_upload.h"
#include "gpu/gpu_view.h"

#include <orrery/gpu_vulkan.h>

#include <math.h>
#include <string.h>

static orr_result create_layouts(orr_renderer *r)
{
    VkShaderStageFlags push_stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    /* the meshlet strategy's task and mesh shaders read the scene set too (where they are used), and
     * so do the host's compute techniques and mesh techniques (technique.h): every binding scene.glsl
     * declares, the lights included */
    VkShaderStageFlags stages = push_stages | orri_meshlets_shader_stages(r) | VK_SHADER_STAGE_COMPUTE_BIT;
    VkShaderStageFlags host = VK_SHADER_STAGE_COMPUTE_BIT | orri_meshlets_shader_stages(r);
    VkDescriptorSetLayoutBinding b[13] = {
        {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, stages, NULL}, /* view block (frame buffer) */
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* records (view-data buffer) */
        {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* instances */
        {3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* materials */
        {4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL},         /* joints */
        {5, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT | host, NULL}, /* lights (frame buffer) */
        {6, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | orri_meshlets_shader_stages(r) | host,
         NULL}, /* morph targets */
        {7, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | orri_meshlets_shader_stages(r) | host,
         NULL}, /* morph weights */
        {8, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL}, /* vertex capture (test mode) */
        {9, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL}, /* shadow map */
        {10, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL}, /* shadow records (frame buffer) */
        {11, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | orri_meshlets_shader_stages(r) | host,
         NULL}, /* instance motions (between ticks) */
        {12, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | orri_meshlets_shader_stages(r) | host,
         NULL}, /* joint motions (between ticks) */
    };
    if (!r->vertex_capture) { /* the shadow map, records and motions keep bindings 9 to 12 */
        b[8] = b[9];
        b[9] = b[10];
        b[10] = b[11];
        b[11] = b[12];
    }
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = r->vertex_capture ? 13u : 12u, .pBindings = b};
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
    /* Per frame slot: the graphics set (11 storage buffers), the cull set (6) and the scatter set (3). */
    VkDescriptorPoolSize sizes[3] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 2 * ORRI_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 20 * ORRI_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, ORRI_FRAMES_IN_FLIGHT}, /* the shadow map */
    };
    VkDescriptorPoolCreateInfo di = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 3 * ORRI_FRAMES_IN_FLIGHT,
        .poolSizeCount = 3,
        .pPoolSizes = sizes,
    };
    ORRI_VK(r, vkCreateDescriptorPool(r->device, &di, NULL, &r->descriptor_pool));
    return ORR_OK;
}

/* The cache and mesh shaders (mesh pipelines are made when a frame first needs them), the cull's and
 * the scatter's compute pipelines. */
static orr_result create_pipelines(orr_renderer *r, const orr_renderer_desc *desc)
{
    orr_result rc = orri_pipelines_init(r);
    if (rc == ORR_OK) rc = orri_baseline_init(r, desc->baseline_gpu && r->timestamps);
    if (rc == ORR_OK) rc = orri_occlusion_init(r); /* (its set layout is the cull's set 1) */
    if (rc == ORR_OK) rc = orri_cull_create_pipeline(r);
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
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = ORRI_QUERIES_PER_FRAME * ORRI_FRAMES_IN_FLIGHT};
        ORRI_VK(r, vkCreateQueryPool(r->device, &qi, NULL, &r->queries));
    }
    return ORR_OK;
}

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
    r->interpolate = desc->interpolate;
    r->mip_threads = desc->threads ? (desc->threads < ORRI_MAX_THREADS ? desc->threads : ORRI_MAX_THREADS) : orri_cores();
    r->mip_workers = desc->workers;
    r->last_gpu_ms = -1.0;
    r->last_baseline_ms = -1.0;
    r->last_shadow_ms = r->last_views_ms = -1.0;
    orr_handle_pool_init(&r->target_pool, &r->allocator, 0);
    orr_handle_pool_init(&r->view_pool, &r->allocator, 0);
    orr_handle_pool_init(&r->library_pool, &r->allocator, 0);
    for (int o = 0; o < 2; o++) orr_draw_scene_init(&r->draws[o].scene, &r->allocator);
    orri_scene_init(r);
    orr_result rc = orri_device_create(r, desc);
    if (rc == ORR_OK) rc = orri_textures_init(r, desc->texture_sets);
    if (rc == ORR_OK) rc = create_layouts(r);
    if (rc == ORR_OK) rc = create_pipelines(r, desc);
    if (rc == ORR_OK) rc = create_frames(r);
    if (rc == ORR_OK) rc = orri_textures_create_white(r);
    if (rc == ORR_OK) rc = orri_shadows_init(r);
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

uint32_t orri_pass_threads(orr_renderer *r, uint32_t items, orr_workers **workers)
{
    *workers = NULL;
    if (r->mip_threads <= 1 || items < ORRI_PARALLEL_FROM) return 1;
    if (!r->mip_workers && !r->own_workers &&
        orr_workers_create(&(orr_workers_desc){.threads = r->mip_threads, .allocator = r->allocator}, &r->own_workers,
                           NULL) != ORR_OK)
        return 1; /* no threads to be had: the calling thread does it all, with the same bytes */
    *workers = r->mip_workers ? r->mip_workers : r->own_workers;
    return r->mip_threads;
}

void orr_renderer_destroy(orr_renderer *r)
{
    if (!r) return;
    ORRI_DESTROY_ONCE(r, "orr_renderer_destroy");
    if (r->device) ORRI_VK_LOG(r, vkDeviceWaitIdle(r->device));
    for (uint32_t i = 0; i < r->view_capacity; i++)
        if (r->views[i].alive) orri_view_release(r, &r->views[i], true);
    for (uint32_t i = 0; i < r->target_capacity; i++)
        if (r->targets[i].alive) orri_target_release(r, &r->targets[i], true);
    if (r->device) orri_techniques_fini(r);
    if (r->device) orri_picks_fini(r);
    if (r->device) orri_debug_fini(r);
    orri_collect_garbage(r, UINT64_MAX);
    orri_texture_targets_fini(r);
    if (r->device) {
        orri_scene_fini(r);
        orri_draws_fini(r);
        orri_meshlets_fini(r);
        orri_textures_fini(r);
        orri_shadows_fini(r);
        for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) {
            orri_frame *f = &r->frames[i];
            orri_buffer_destroy(r, &f->data);
            if (f->fence) vkDestroyFence(r->device, f->fence, NULL);
            if (f->pool) vkDestroyCommandPool(r->device, f->pool, NULL); /* its command buffer with it */
            if (f->draw_pool) vkDestroyCommandPool(r->device, f->draw_pool, NULL);
            orri_free(&r->allocator, f->draw_key, f->draw_key_capacity);
            orri_free(&r->allocator, f->upload_ops, sizeof *f->upload_ops * f->upload_op_capacity);
            orri_free(&r->allocator, f->feedback, sizeof *f->feedback * f->feedback_capacity);
        }
        if (r->queries) vkDestroyQueryPool(r->device, r->queries, NULL);
        orri_shell_fini(r);
        orri_baseline_fini(r);
        orri_pipelines_fini(r);
        for (int k = 0; k < 4; k++)
            if (r->pipeline_cull[k]) vkDestroyPipeline(r->device, r->pipeline_cull[k], NULL);
        orri_occlusion_fini(r);
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
    orri_motion_fini(r);
    orri_memory_fini(r); /* every resource is gone: only empty bookkeeping is left */
    orri_device_destroy(r);
    orri_free(&r->allocator, r->garbage, sizeof *r->garbage * r->garbage_capacity);
    orri_free(&r->allocator, r->targets, sizeof *r->targets * r->target_capacity);
    orri_free(&r->allocator, r->views, sizeof *r->views * r->view_capacity);
    orri_free(&r->allocator, r->view_order, sizeof *r->view_order * r->view_order_capacity);
    orri_free(&r->allocator, r->view_frames, sizeof *r->view_frames * r->view_frames_capacity);
    orri_free(&r->allocator, r->upload_ops, sizeof *r->upload_ops * r->upload_op_capacity);
    orri_free(&r->allocator, r->draw_views, sizeof *r->draw_views * r->draw_views_capacity);
    orri_free(&r->allocator, r->draw_key, r->draw_key_capacity);
    orr_handle_pool_fini(&r->target_pool);
    orr_handle_pool_fini(&r->view_pool);
    orr_handle_pool_fini(&r->library_pool);
    orr_workers_destroy(r->own_workers);
    orr_allocator a = r->allocator;
    orri_free(&a, r, sizeof *r);
}

const orr_error *orr_renderer_last_error(const orr_renderer *r) { return &r->error; }

const char *orr_renderer_device_name(const orr_renderer *r) { return r->properties.deviceName; }

uint32_t orr_renderer_sample_counts(const orr_renderer *r) { return (uint32_t)r->sample_counts; }

double orr_gpu_exposure_from_ev100(double ev100) { return 1.0 / (1.2 * exp2(ev100)); }

