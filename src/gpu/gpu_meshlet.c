/* The meshlet strategy (ORR_STRATEGY_MESHLET): per view its draws, the compute stages, the task and
 * mesh pipelines, the fallback's expanded commands and the GPU's counts. The data
 * flow is in gpu_meshlet.h; the per-meshlet test is the draw module's orr_draw_meshlet_classify, mirrored in
 * binary32 by shaders/meshlet.glsl.
 *
 * Equivalence with the indexed strategies. The primitive's indices are in meshlet order (the assets
 * module rewrote them when it built the meshlets), so the fallback, which draws each record's meshlets
 * in order, record after record, rasterises the same triangles in the same order as an instanced draw of
 * the batch, with the same vertex shader: what it leaves out (culled meshlets) has no pixel on screen,
 * since the test is conservative (outside the frustum; every triangle facing away, and those are culled
 * by the rasteriser anyway). The mesh shader shades each vertex with the vertex shader's code (vertex.glsl,
 * precise throughout), so it hands the rasteriser the same positions and values; what Vulkan does not
 * keep is the order between the mesh workgroups of different task workgroups, which only shows where two
 * fragments of one draw have exactly the same depth (coplanar overlapping triangles of one batch). Blended
 * surfaces, whose colours depend on that order, are drawn by the indexed path. */
#include "gpu/gpu_meshlet.h"
#include "gpu/gpu_draws.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_geometry.h"
#include "gpu/gpu_meshlet_pool.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_shell.h"
#include "gpu/gpu_texture.h"
#include "gpu/gpu_upload.h"

#include <math.h>
#include <string.h>

extern const uint32_t orri_spv_meshlet_comp[];
extern const size_t orri_spv_meshlet_comp_size;
extern const uint32_t orri_spv_meshlet_task[];
extern const size_t orri_spv_meshlet_task_size;
extern const uint32_t orri_spv_meshlet_mesh[];
extern const size_t orri_spv_meshlet_mesh_size;
#define COMMAND_BYTES ((VkDeviceSize)sizeof(VkDrawIndexedIndirectCommand))
#define TASK_COMMAND_BYTES ((VkDeviceSize)sizeof(VkDrawMeshTasksIndirectCommandEXT))
#define COUNTER_BYTES ((VkDeviceSize)ORR_GPU_MESHLET_COUNTERS * 4)
#define REGION_ALIGN 256u
#define BINDINGS 13u
/* The mesh pipelines' push constant range: the task shader's task command, and the fragment shader's
 * shell block (declared there, used only by fur pipelines) over the same bytes. */
#define PUSH_STAGES (VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_FRAGMENT_BIT)

_Static_assert(ORR_GPU_MESHLET_MAX_VERTICES == ORR_MESHLET_MAX_VERTICES, "the mesh shader's vertex outputs");

_Static_assert(ORR_GPU_MESHLET_MAX_TRIANGLES == ORR_MESHLET_MAX_TRIANGLES, "the mesh shader's primitive outputs");

_Static_assert(ORR_MESHLET_MAX_VERTICES < 256 && ORR_MESHLET_MAX_TRIANGLES < (1 << 24), "orr_gpu_meshlet.counts");

_Static_assert(ORR_GPU_MESHLET_CULL_FRUSTUM == ORR_MESHLET_CULL_FRUSTUM && ORR_GPU_MESHLET_CULL_CONE == ORR_MESHLET_CULL_CONE,
               "the cull flags");

_Static_assert(sizeof(orr_gpu_meshlet_bounds) == sizeof(orr_meshlet_bounds), "meshlet bounds go up as they are");

/* meshlet.mesh reads the interleaved vertex as 25 words at these places */
_Static_assert(ORRI_VERTEX_BYTES == 100 && ORRI_VERTEX_NORMAL == 12 && ORRI_VERTEX_TANGENT == 24 && ORRI_VERTEX_UV0 == 40 &&
                   ORRI_VERTEX_UV1 == 48 && ORRI_VERTEX_COLOR == 56 && ORRI_VERTEX_WEIGHTS == 72 &&
                   ORRI_VERTEX_JOINTS == 88 && ORRI_VERTEX_MORPH == 96,
               "the vertex layout meshlet.mesh reads");

_Static_assert(ORR_MESHLET_INDEXED_COUNT <= ORR_GPU_MESHLET_COUNTERS - ORR_GPU_MESHLET_COUNT_INDEXED, "counter room");

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

const char *orr_meshlet_indexed_name(orr_meshlet_indexed reason)
{
    static const char *const names[ORR_MESHLET_INDEXED_COUNT] = {"skinned", "morphed", "blended", "no_meshlets",
                                                                 "capacity"};
    return (unsigned)reason < ORR_MESHLET_INDEXED_COUNT ? names[reason] : "unknown";
}

bool orr_renderer_has_mesh_shaders(const orr_renderer *r) { return r->meshlets.supported; }

bool orr_renderer_uses_mesh_shaders(const orr_renderer *r) { return r->meshlets.mesh_shaders; }

VkShaderStageFlags orri_meshlets_shader_stages(const orr_renderer *r)
{
    return r->meshlets.mesh_shaders ? VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT : 0;
}

VkPipelineStageFlags2 orri_meshlets_pipeline_stages(const orr_renderer *r)
{
    return r->meshlets.mesh_shaders ? VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT : 0;
}

orr_result orri_meshlets_init(orr_renderer *r)
{
    orri_meshlets *ml = &r->meshlets;
    VkShaderStageFlags stages = VK_SHADER_STAGE_COMPUTE_BIT | orri_meshlets_shader_stages(r);
    VkDescriptorSetLayoutBinding b[BINDINGS];
    for (uint32_t i = 0; i < BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){
            i, i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL};
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = BINDINGS, .pBindings = b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &ml->set_layout));
    VkPipelineLayoutCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &ml->set_layout};
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &ci, NULL, &ml->compute_layout));
    VkDescriptorPoolSize sizes[2] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, ORRI_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (BINDINGS - 1) * ORRI_FRAMES_IN_FLIGHT},
    };
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = ORRI_FRAMES_IN_FLIGHT, .poolSizeCount = 2, .pPoolSizes = sizes};
    ORRI_VK(r, vkCreateDescriptorPool(r->device, &pi, NULL, &ml->pool));
    VkDescriptorSetLayout layouts[ORRI_FRAMES_IN_FLIGHT];
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) layouts[i] = ml->set_layout;
    VkDescriptorSetAllocateInfo si = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = ml->pool,
                                      .descriptorSetCount = ORRI_FRAMES_IN_FLIGHT, .pSetLayouts = layouts};
    ORRI_VK(r, vkAllocateDescriptorSets(r->device, &si, ml->sets));

    static const uint32_t stage_of[2] = {ORR_GPU_MESHLET_TASKS, ORR_GPU_MESHLET_EXPAND};
    ORRI_TRY(orri_compute_pipelines(r, orri_spv_meshlet_comp, orri_spv_meshlet_comp_size, ml->compute_layout, stage_of, 2,
                                    "meshlets", ml->compute));
    if (!ml->mesh_shaders) return ORR_OK;
    /* The mesh pipelines: the scene's set, the textures' set, this set; the task command in a push
     * constant, in the range of the fragment shader's (its shell block, read only by fur pipelines). */
    VkDescriptorSetLayout sets[3] = {r->set_layout, r->textures.layout, ml->set_layout};
    VkPushConstantRange push = {PUSH_STAGES, 0, sizeof(orr_gpu_shell)};
    VkPipelineLayoutCreateInfo gi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 3,
                                     .pSetLayouts = sets, .pushConstantRangeCount = 1, .pPushConstantRanges = &push};
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &gi, NULL, &ml->graphics_layout));
    ORRI_TRY(orri_shader_module(r, orri_spv_meshlet_task, orri_spv_meshlet_task_size, &ml->task));
    ORRI_TRY(orri_shader_module(r, orri_spv_meshlet_mesh, orri_spv_meshlet_mesh_size, &ml->mesh));
    return ORR_OK;
}

static orr_result ensure_pipelines(orr_renderer *r, uint32_t keys, VkSampleCountFlagBits samples)
{
    orri_meshlets *ml = &r->meshlets;
    uint32_t s = orri_samples_index(samples);
    orri_pipeline_variant variant = {.meshlets = true};
    for (uint32_t k = 0; k < ORRI_PIPELINE_KEYS; k++)
        if ((keys & (1u << k)) && !ml->pipelines[s][k]) ORRI_TRY(orri_pipeline_create(r, k, samples, variant, &ml->pipelines[s][k]));
    return ORR_OK;
}

void orri_meshlets_fini(orr_renderer *r)
{
    orri_meshlets *ml = &r->meshlets;
    if (r->device) {
        for (uint32_t s = 0; s < ORRI_SAMPLE_COUNTS; s++)
            for (uint32_t k = 0; k < ORRI_PIPELINE_KEYS; k++)
                if (ml->pipelines[s][k]) vkDestroyPipeline(r->device, ml->pipelines[s][k], NULL);
        for (int k = 0; k < 2; k++)
            if (ml->compute[k]) vkDestroyPipeline(r->device, ml->compute[k], NULL);
        if (ml->task) vkDestroyShaderModule(r->device, ml->task, NULL);
        if (ml->mesh) vkDestroyShaderModule(r->device, ml->mesh, NULL);
        if (ml->graphics_layout) vkDestroyPipelineLayout(r->device, ml->graphics_layout, NULL);
        if (ml->compute_layout) vkDestroyPipelineLayout(r->device, ml->compute_layout, NULL);
        if (ml->pool) vkDestroyDescriptorPool(r->device, ml->pool, NULL); /* the sets with it */
        if (ml->set_layout) vkDestroyDescriptorSetLayout(r->device, ml->set_layout, NULL);
        orri_buffer_destroy(r, &ml->data);
    }
    orri_meshlets_pool_fini(r);
    for (int k = 0; k < ORRI_FRAMES_IN_FLIGHT; k++)
        orri_free(&r->allocator, ml->feedback[k], sizeof *ml->feedback[k] * ml->feedback_capacity[k]);
    bool supported = ml->supported, mesh_shaders = ml->mesh_shaders;
    memset(ml, 0, sizeof *ml);
    ml->supported = supported;
    ml->mesh_shaders = mesh_shaders;
}

void orri_meshlets_view_release(orr_renderer *r, orri_view *v)
{
    orri_meshlet_view *mv = &v->meshlet;
    orri_free(&r->allocator, mv->draws, sizeof *mv->draws * mv->draw_capacity);
    orri_free(&r->allocator, mv->tasks, sizeof *mv->tasks * mv->task_capacity);
    memset(mv, 0, sizeof *mv);
}

/* How draw `batch` of the view is drawn: by meshlets (-1) or indexed, and why. */
static int indexed_reason(const orr_renderer *r, const orr_assets *assets, const orr_draw_batch *batch,
                          const orr_primitive **prim_out, const orr_primitive_lod **level_out,
                          const orri_meshlet_mesh **mesh_out)
{
    if (batch->pass == ORR_PASS_TRANSPARENT) return ORR_MESHLET_INDEXED_BLENDED;
    if (batch->skinned) return ORR_MESHLET_INDEXED_SKINNED;
    const orri_resident_primitive *rp = orri_geometry_find(r, batch->mesh, batch->primitive);
    if (rp && rp->morph_at != ORR_GPU_NO_MORPH) return ORR_MESHLET_INDEXED_MORPHED;
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, batch->mesh);
    const orri_meshlet_mesh *mm = orri_meshlets_resident(r, batch->mesh);
    if (!mesh || !mm || batch->primitive >= mesh->primitive_count) return ORR_MESHLET_INDEXED_NO_MESHLETS;
    const orr_primitive *prim = &mesh->primitives[batch->primitive];
    const orr_primitive_lod *lv = &prim->lods[batch->lod < mesh->lod_count ? batch->lod : 0]; /* the batch's level's */
    if (!lv->meshlet_count || lv->meshlet_offset + (uint64_t)lv->meshlet_count > mm->count)
        return ORR_MESHLET_INDEXED_NO_MESHLETS;
    *level_out = lv;
    *prim_out = prim;
    *mesh_out = mm;
    return -1;
}

orr_result orri_meshlets_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_assets *assets,
                                   uint64_t *stage)
{
    (void)s;
    orri_meshlets *ml = &r->meshlets;
    orri_meshlet_view *mv = &v->meshlet;
    mv->active = v->desc.strategy == ORR_STRATEGY_MESHLET;
    mv->draw_count = mv->task_count = mv->slot_count = 0;
    if (!mv->active) return ORR_OK;
    const orri_draws *d = v->draws;
    const orr_draw_scene *sc = &d->scene;
    const orr_draw_visible *vis = &v->visible;
    uint32_t opaque = sc->pass_batches[ORR_PASS_TRANSPARENT];
    uint32_t n = v->command_count; /* the opaque batches, then the blended ranges */
    if (!ORRI_GROW(&r->allocator, mv->draws, mv->draw_capacity, n ? n : 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the meshlet draws of view %u",
                             (uint32_t)(v - r->views));
    uint64_t slots = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t b, records;
        if (c < opaque) {
            b = c;
            records = v->gpu_cull ? sc->batches[b].count : vis->ranges[b].count; /* at most, or exactly */
        } else {
            const orr_draw_range *rg = &vis->ranges[vis->opaque_ranges + (c - opaque)];
            b = rg->batch;
            records = rg->count;
        }
        const orr_draw_batch *batch = &sc->batches[b];
        const orri_batch_state *st = &d->state[b];
        const orr_primitive *prim = NULL;
        const orr_primitive_lod *level = NULL;
        const orri_meshlet_mesh *mm = NULL;
        if (batch->payload != ORR_PAYLOAD_MESH) { /* the payload's adapter draws it (fur: the shell path) */
            mv->draws[c] = (orr_gpu_meshlet_draw){.command = c, .flags = ORR_GPU_MESHLET_SKIP,
                                                  .first = ml->mesh_shaders ? mv->task_count : (uint32_t)slots};
            continue;
        }
        int reason = indexed_reason(r, assets, batch, &prim, &level, &mm);
        uint32_t meshlets = level ? level->meshlet_count : 0;
        if (reason < 0 && !ml->mesh_shaders && slots + (uint64_t)records * meshlets > ORR_MESHLET_MAX_SLOTS)
            reason = ORR_MESHLET_INDEXED_CAPACITY;
        orr_gpu_meshlet_draw *e = &mv->draws[c];
        *e = (orr_gpu_meshlet_draw){.command = c, .triangles = st->index_count / 3};
        if (reason >= 0) {
            e->flags = ORR_GPU_MESHLET_INDEXED | (uint32_t)reason << 8;
            e->first = (uint32_t)slots;
            e->slots = ml->mesh_shaders ? 0 : 1;
            slots += e->slots;
            continue;
        }
        e->meshlet_first = mm->first + level->meshlet_offset;
        e->meshlet_count = meshlets;
        e->flags = st->cull != VK_CULL_MODE_NONE ? ORR_GPU_MESHLET_CONE : 0;
        e->chunks = (meshlets + ORR_GPU_MESHLET_TASK_THREADS - 1) / ORR_GPU_MESHLET_TASK_THREADS;
        if (!ml->mesh_shaders) {
            e->first = (uint32_t)slots;
            e->slots = records * meshlets;
            slots += e->slots;
            continue;
        }
        /* task commands of at most max_task_groups workgroups each */
        uint64_t groups = (uint64_t)records * e->chunks, limit = ml->max_task_groups;
        uint32_t tasks = (uint32_t)((groups + limit - 1) / limit);
        e->first = mv->task_count;
        e->slots = 0;
        if (!ORRI_GROW(&r->allocator, mv->tasks, mv->task_capacity, mv->task_count + tasks))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the task commands of view %u",
                                 (uint32_t)(v - r->views));
        for (uint32_t k = 0; k < tasks; k++)
            mv->tasks[mv->task_count++] = (orr_gpu_meshlet_task){c, (uint32_t)(k * limit)};
    }
    mv->draw_count = n;
    mv->slot_count = (uint32_t)slots;
    if (ml->mesh_shaders) ORRI_TRY(ensure_pipelines(r, d->pipeline_keys, v->samples));
    *stage += sizeof(orr_gpu_meshlet_view) + (uint64_t)n * sizeof(orr_gpu_meshlet_draw) +
              (uint64_t)mv->task_count * sizeof(orr_gpu_meshlet_task) + COUNTER_BYTES + 5 * r->frame_align;
    return ORR_OK;
}

orr_result orri_meshlets_layout(orr_renderer *r, const uint32_t *views, uint32_t view_count)
{
    orri_meshlets *ml = &r->meshlets;
    VkDeviceSize at = 0;
    ml->any = false;
    for (uint32_t k = 0; k < view_count; k++) {
        orri_meshlet_view *mv = &r->views[views[k]].meshlet;
        if (!mv->active) continue;
        ml->any = true;
        mv->data_at = at;
        at = align_up(at + COUNTER_BYTES, REGION_ALIGN);
        mv->out_at = at;
        at = align_up(at + (ml->mesh_shaders ? (VkDeviceSize)mv->task_count * TASK_COMMAND_BYTES
                                             : (VkDeviceSize)mv->slot_count * COMMAND_BYTES) + 16, REGION_ALIGN);
    }
    if (!ml->any) return ORR_OK;
    return orri_buffer_ensure(r, &ml->data, at,
                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              "meshlet data", NULL);
}

/* The view's block: its frustum planes (unit normals) and camera relative to its origin, in float. */
static void view_block(const orr_renderer *r, const orri_view *v, const orr_draw_view *dv, orr_gpu_meshlet_view *b)
{
    const orri_meshlets *ml = &r->meshlets;
    const orri_meshlet_view *mv = &v->meshlet;
    orr_meshlet_view test;
    orr_draw_meshlet_view_init(dv, ORR_MESHLET_CULL_ALL, &test);
    memset(b, 0, sizeof *b);
    for (int p = 0; p < 5; p++)
        for (int i = 0; i < 4; i++) b->planes[p][i] = (float)test.planes[p][i];
    orr_split_double(dv->origin.x, &b->origin_hi[0], &b->origin_lo[0]);
    orr_split_double(dv->origin.y, &b->origin_hi[1], &b->origin_lo[1]);
    orr_split_double(dv->origin.z, &b->origin_hi[2], &b->origin_lo[2]);
    b->origin_hi[3] = r->motions.view_lag; /* between ticks (orr_meshlet_blended) */
    b->origin_lo[3] = r->motions.view_tick;
    b->forward[0] = (float)test.forward.x;
    b->forward[1] = (float)test.forward.y;
    b->forward[2] = (float)test.forward.z;
    b->forward[3] = test.orthographic ? 1.0f : 0.0f;
    b->sizes[0] = mv->draw_count;
    b->sizes[1] = ml->mesh_shaders ? mv->task_count : mv->slot_count;
    b->sizes[2] = ORR_MESHLET_CULL_ALL;
    b->sizes[3] = (uint32_t)(v->records_at / sizeof(orr_gpu_record));
    b->regions[0] = (uint32_t)(mv->draws_offset / sizeof(orr_gpu_meshlet_draw));
    b->regions[1] = (uint32_t)(mv->tasks_offset / sizeof(orr_gpu_meshlet_task));
    b->regions[2] = (uint32_t)(v->commands_at / 4);
    b->regions[3] = (uint32_t)(mv->out_at / 4);
    b->extra[0] = (uint32_t)(mv->data_at / 4);
    b->extra[1] = ml->max_task_groups;
}

orr_result orri_meshlets_upload_views(orr_renderer *r, orri_upload *up, const uint32_t *views, uint32_t view_count,
                                      const orr_draw_view *dvs)
{
    for (uint32_t k = 0; k < view_count; k++) {
        orri_view *v = &r->views[views[k]];
        orri_meshlet_view *mv = &v->meshlet;
        if (!mv->active) continue;
        uint8_t *map = up->frame->data.map;
        VkDeviceSize bytes = (VkDeviceSize)(mv->draw_count ? mv->draw_count : 1) * sizeof(orr_gpu_meshlet_draw);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &mv->draws_offset));
        if (mv->draw_count) memcpy(map + mv->draws_offset, mv->draws, (size_t)mv->draw_count * sizeof *mv->draws);
        bytes = (VkDeviceSize)(mv->task_count ? mv->task_count : 1) * sizeof(orr_gpu_meshlet_task);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &mv->tasks_offset));
        if (mv->task_count) memcpy(map + mv->tasks_offset, mv->tasks, (size_t)mv->task_count * sizeof *mv->tasks);
        ORRI_TRY(orri_frame_alloc(r, up->frame, sizeof(orr_gpu_meshlet_view), &mv->block_offset));
        view_block(r, v, &dvs[k], (orr_gpu_meshlet_view *)(map + mv->block_offset));
        ORRI_TRY(orri_frame_alloc(r, up->frame, COUNTER_BYTES, &mv->feedback_offset));
        memset(map + mv->feedback_offset, 0, COUNTER_BYTES);
        up->view_bytes += (uint64_t)mv->draw_count * sizeof(orr_gpu_meshlet_draw) +
                          (uint64_t)mv->task_count * sizeof(orr_gpu_meshlet_task) + sizeof(orr_gpu_meshlet_view);
    }
    return ORR_OK;
}

static void write_set(orr_renderer *r, const orri_frame *f)
{
    orri_meshlets *ml = &r->meshlets;
    VkDescriptorSet set = ml->sets[f - r->frames];
    VkDescriptorBufferInfo infos[BINDINGS] = {
        {f->data.buffer, 0, sizeof(orr_gpu_meshlet_view)},
        {ml->buffers[ORRI_MESHLET_BUFFER_MESHLETS].buffer, 0, VK_WHOLE_SIZE},
        {ml->buffers[ORRI_MESHLET_BUFFER_BOUNDS].buffer, 0, VK_WHOLE_SIZE},
        {ml->buffers[ORRI_MESHLET_BUFFER_VERTICES].buffer, 0, VK_WHOLE_SIZE},
        {ml->buffers[ORRI_MESHLET_BUFFER_WORDS].buffer, 0, VK_WHOLE_SIZE},
        {r->geometry.vertices.buffer, 0, VK_WHOLE_SIZE},
        {f->data.buffer, 0, VK_WHOLE_SIZE}, /* the views' draws */
        {f->data.buffer, 0, VK_WHOLE_SIZE}, /* and task commands */
        {r->view_data.buffer, 0, VK_WHOLE_SIZE}, /* the views' indexed commands */
        {ml->data.buffer, 0, VK_WHOLE_SIZE},
        {r->instances.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->view_data.buffer, 0, VK_WHOLE_SIZE}, /* the views' records */
        {r->instances.motion.buffer, 0, VK_WHOLE_SIZE}, /* the instances' motions (between ticks) */
    };
    VkWriteDescriptorSet w[BINDINGS];
    for (uint32_t i = 0; i < BINDINGS; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = i,
                                      .descriptorCount = 1,
                                      .descriptorType = i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC
                                                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &infos[i]};
    vkUpdateDescriptorSets(r->device, BINDINGS, w, 0, NULL);
}

void orri_meshlets_dispatch(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                            uint32_t view_count)
{
    orri_meshlets *ml = &r->meshlets;
    ml->ran = ml->any && r->geometry.vertices.buffer && r->instances.buffer.buffer && ml->data.buffer;
    if (!ml->ran) return; /* nothing to draw: the views' counts stay zero */
    write_set(r, f);
    /* The uploads (pools, records, materials, the CPU's commands), the instance scatter and the GPU culls
     * before the counters are zeroed and the compute stage, the task and the mesh shaders read them. */
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                            orri_meshlets_pipeline_stages(r),
                        VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                            VK_ACCESS_2_UNIFORM_READ_BIT);
    for (uint32_t k = 0; k < view_count; k++) {
        const orri_meshlet_view *mv = &r->views[views[k]].meshlet;
        if (mv->active) vkCmdFillBuffer(cmd, ml->data.buffer, mv->data_at, COUNTER_BYTES, 0);
    }
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ml->compute[ml->mesh_shaders ? 0 : 1]);
    for (uint32_t k = 0; k < view_count; k++) {
        const orri_meshlet_view *mv = &r->views[views[k]].meshlet;
        if (!mv->active) continue;
        uint32_t threads = ml->mesh_shaders ? (mv->draw_count > mv->task_count ? mv->draw_count : mv->task_count)
                                            : mv->slot_count;
        if (!threads) continue;
        uint32_t dyn = (uint32_t)mv->block_offset;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ml->compute_layout, 0, 1, &ml->sets[f - r->frames], 1,
                                &dyn);
        vkCmdDispatch(cmd, (threads + ORR_GPU_MESHLET_THREADS - 1) / ORR_GPU_MESHLET_THREADS, 1, 1);
    }
    /* The commands and counts before the draws (indirect reads; with mesh shaders the task shader's
     * reads and atomics). */
    orri_barrier_memory(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | orri_meshlets_pipeline_stages(r),
        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT |
            (ml->mesh_shaders ? VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT : 0));
}

typedef struct bound_state {
    VkPipelineLayout layout; /* what the sets were bound with (VK_NULL_HANDLE: none yet) */
    VkPipeline pipeline;
    int cull;
    VkDescriptorSet texture;
} bound_state;

/* The state of batch `st`, drawn by meshlets (`mesh`) or by the indexed path: its pipeline and, where the
 * layout changes, every set again (the two layouts differ in their push constants). */
static void bind(orr_renderer *r, VkCommandBuffer cmd, const orri_frame *f, const orri_view *v,
                 const orri_batch_state *st, bool mesh, bound_state *bs)
{
    orri_meshlets *ml = &r->meshlets;
    uint32_t slot = (uint32_t)(f - r->frames);
    VkPipelineLayout layout = mesh ? ml->graphics_layout : r->pipeline_layout;
    VkPipeline pipeline = mesh ? ml->pipelines[orri_samples_index(v->samples)][st->pipeline]
                               : orri_pipeline_get(r, st->pipeline, st->features, v->samples);
    if (pipeline != bs->pipeline) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        bs->pipeline = pipeline;
    }
    if ((int)st->cull != bs->cull) {
        vkCmdSetCullMode(cmd, st->cull);
        bs->cull = (int)st->cull;
    }
    if (layout != bs->layout) {
        uint32_t dyn = (uint32_t)v->ubo_offset;
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &f->set, 1, &dyn);
        if (r->textures.array)
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 1, 1, &r->textures.frame_sets[slot], 0,
                                    NULL);
        if (mesh) {
            uint32_t dyn2 = (uint32_t)v->meshlet.block_offset;
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 2, 1, &ml->sets[slot], 1, &dyn2);
        }
        bs->layout = layout;
        bs->texture = VK_NULL_HANDLE;
    }
    if (st->texture && st->texture != bs->texture) {
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 1, 1, &st->texture, 0, NULL);
        bs->texture = st->texture;
    }
}

/* The scene's sets bound with the indexed path's layout (what the fur adapter draws with). */
static void bind_indexed_sets(orr_renderer *r, VkCommandBuffer cmd, const orri_frame *f, const orri_view *v,
                              bound_state *bs)
{
    if (bs->layout == r->pipeline_layout) return;
    uint32_t dyn = (uint32_t)v->ubo_offset;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipeline_layout, 0, 1, &f->set, 1, &dyn);
    orri_textures_bind_frame(r, cmd, (uint32_t)(f - r->frames));
    bs->layout = r->pipeline_layout;
    bs->texture = VK_NULL_HANDLE;
}

/* Indirect draws of `count` commands of `stride` bytes from `offset` (one multi-draw where the device
 * has them). */
static void multi_draw(orr_renderer *r, VkCommandBuffer cmd, VkBuffer buffer, VkDeviceSize offset, uint32_t count,
                       uint32_t *draw_calls)
{
    uint32_t max = r->multi_draw_indirect ? r->properties.limits.maxDrawIndirectCount : 1;
    for (uint32_t done = 0; done < count;) {
        uint32_t n = count - done < max ? count - done : max;
        vkCmdDrawIndexedIndirect(cmd, buffer, offset + (VkDeviceSize)done * COMMAND_BYTES, n, (uint32_t)COMMAND_BYTES);
        (*draw_calls)++;
        done += n;
    }
}

/* Draws [c0, c1) of the view (one pipeline state). */
static void draw_run(orr_renderer *r, VkCommandBuffer cmd, const orri_frame *f, const orri_view *v, uint32_t c0, uint32_t c1,
                     const orri_batch_state *st, bound_state *bs, uint32_t *draw_calls)
{
    orri_meshlets *ml = &r->meshlets;
    const orri_meshlet_view *mv = &v->meshlet;
    if (!ml->mesh_shaders) { /* the expanded slots of the run are contiguous: one multi-draw */
        uint32_t first = mv->draws[c0].first, end = mv->draws[c1 - 1].first + mv->draws[c1 - 1].slots;
        if (end == first) return;
        bind(r, cmd, f, v, st, false, bs);
        multi_draw(r, cmd, ml->data.buffer, mv->out_at + (VkDeviceSize)first * COMMAND_BYTES, end - first, draw_calls);
        return;
    }
    for (uint32_t c = c0; c < c1;) {
        const orr_gpu_meshlet_draw *e = &mv->draws[c];
        if (e->flags & ORR_GPU_MESHLET_INDEXED) { /* a run of indexed ones: their own commands */
            uint32_t k = c + 1;
            while (k < c1 && (mv->draws[k].flags & ORR_GPU_MESHLET_INDEXED)) k++;
            bind(r, cmd, f, v, st, false, bs);
            multi_draw(r, cmd, r->view_data.buffer, v->commands_at + (VkDeviceSize)c * COMMAND_BYTES, k - c, draw_calls);
            c = k;
            continue;
        }
        for (uint32_t t = e->first; t < mv->task_count && mv->tasks[t].draw == c; t++) {
            bind(r, cmd, f, v, st, true, bs);
            uint32_t task = (uint32_t)(mv->tasks_offset / sizeof(orr_gpu_meshlet_task)) + t;
            vkCmdPushConstants(cmd, ml->graphics_layout, PUSH_STAGES, 0, sizeof task, &task);
            ml->draw_mesh_tasks_indirect(cmd, ml->data.buffer, mv->out_at + (VkDeviceSize)t * TASK_COMMAND_BYTES, 1,
                                         (uint32_t)TASK_COMMAND_BYTES);
            (*draw_calls)++;
        }
        c++;
    }
}

void orri_meshlets_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, orri_view *v, uint32_t first_pass,
                          uint32_t end_pass, uint32_t *draw_calls)
{
    const orri_draws *d = v->draws;
    const orr_draw_scene *sc = &d->scene;
    const orri_meshlet_view *mv = &v->meshlet;
    if (!sc->batch_count || !r->meshlets.ran || !mv->draw_count) return;
    VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &r->geometry.vertices.buffer, &zero);
    vkCmdBindIndexBuffer(cmd, r->geometry.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    bound_state bs = {VK_NULL_HANDLE, VK_NULL_HANDLE, -1, VK_NULL_HANDLE};
    const orr_draw_visible *vis = &v->visible;
    /* Before the transparent pass: one draw per scene batch, in runs of one state (as every strategy
     * does: orri_draws_next_run). */
    uint32_t stop = sc->pass_batches[end_pass];
    for (uint32_t b = sc->pass_batches[first_pass], e = 0; orri_draws_next_run(v, stop, &b, &e); b = e)
        draw_run(r, cmd, f, v, b, e, &d->state[b], &bs, draw_calls);
    /* the fur adapter's shells, with the scene sets of the indexed path */
    if (v->shell.fur.draw_count && first_pass <= ORR_PASS_CUSTOM && ORR_PASS_CUSTOM < end_pass) {
        bind_indexed_sets(r, cmd, f, v, &bs);
        orri_shell_record_fur(r, cmd, v, draw_calls);
        bs = (bound_state){r->pipeline_layout, VK_NULL_HANDLE, -1, VK_NULL_HANDLE};
    }
    if (end_pass <= ORR_PASS_TRANSPARENT) return;
    /* Blended: the view's ranges, back to front, by the indexed path. */
    uint32_t opaque = sc->pass_batches[ORR_PASS_TRANSPARENT];
    for (uint32_t g = vis->opaque_ranges; g < vis->range_count;) {
        const orri_batch_state *st = &d->state[vis->ranges[g].batch];
        uint32_t e = g + 1;
        while (e < vis->range_count && orri_same_state(&d->state[vis->ranges[e].batch], st)) e++;
        draw_run(r, cmd, f, v, opaque + (g - vis->opaque_ranges), opaque + (e - vis->opaque_ranges), st, &bs, draw_calls);
        g = e;
    }
}

void orri_meshlets_feedback(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, const uint32_t *views,
                            uint32_t view_count)
{
    orri_meshlets *ml = &r->meshlets;
    if (!ml->ran) return; /* the frame buffer's copies stay zero */
    /* After the compute stage's and the task shaders' atomics, and after every shader that read the frame
     * buffer (view blocks, lights, the tables), which the copies write into. */
    orri_barrier_memory(cmd,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | orri_meshlets_pipeline_stages(r),
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT);
    for (uint32_t k = 0; k < view_count; k++) {
        const orri_meshlet_view *mv = &r->views[views[k]].meshlet;
        if (!mv->active) continue;
        VkBufferCopy region = {mv->data_at, mv->feedback_offset, COUNTER_BYTES};
        vkCmdCopyBuffer(cmd, ml->data.buffer, f->data.buffer, 1, &region);
    }
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                        VK_ACCESS_2_HOST_READ_BIT);
}

orr_result orri_meshlets_reserve_feedback(orr_renderer *r, orri_frame *f, uint32_t view_count)
{
    orri_meshlets *ml = &r->meshlets;
    uint32_t slot = (uint32_t)(f - r->frames);
    if (!ORRI_GROW(&r->allocator, ml->feedback[slot], ml->feedback_capacity[slot], view_count ? view_count : 1))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for meshlet feedback");
    return ORR_OK;
}

void orri_meshlets_submitted(orr_renderer *r, orri_frame *f, uint64_t frame_number, const uint32_t *views,
                             uint32_t view_count)
{
    orri_meshlets *ml = &r->meshlets;
    uint32_t slot = (uint32_t)(f - r->frames);
    ml->feedback_count[slot] = 0;
    if (!ml->any) return;
    for (uint32_t k = 0; k < view_count && k < ml->feedback_capacity[slot]; k++) {
        const orri_view *v = &r->views[views[k]];
        if (v->meshlet.active)
            ml->feedback[slot][ml->feedback_count[slot]++] =
                (orri_meshlet_feedback){views[k], v->generation, v->meshlet.feedback_offset, frame_number};
    }
}

static uint64_t word64(const uint32_t *c, uint32_t at) { return (uint64_t)c[at] | (uint64_t)c[at + 1] << 32; }

void orri_meshlets_read(orr_renderer *r, orri_frame *f)
{
    orri_meshlets *ml = &r->meshlets;
    uint32_t slot = (uint32_t)(f - r->frames);
    for (uint32_t k = 0; k < ml->feedback_count[slot]; k++) {
        const orri_meshlet_feedback *fb = &ml->feedback[slot][k];
        if (fb->view >= r->view_capacity) continue;
        orri_view *v = &r->views[fb->view];
        orri_meshlet_view *mv = &v->meshlet;
        if (!v->alive || v->generation != fb->generation || fb->frame_number < mv->counted_frame) continue;
        const uint32_t *c = (const uint32_t *)((const uint8_t *)f->data.map + fb->offset);
        mv->sent = word64(c, ORR_GPU_MESHLET_COUNT_SENT);
        mv->kept = word64(c, ORR_GPU_MESHLET_COUNT_KEPT);
        mv->triangles_sent = word64(c, ORR_GPU_MESHLET_COUNT_TRIANGLES_SENT);
        mv->triangles_kept = word64(c, ORR_GPU_MESHLET_COUNT_TRIANGLES_KEPT);
        mv->triangles_indexed = word64(c, ORR_GPU_MESHLET_COUNT_TRIANGLES_INDEXED);
        for (int i = 0; i < ORR_MESHLET_INDEXED_COUNT; i++) mv->indexed[i] = c[ORR_GPU_MESHLET_COUNT_INDEXED + i];
        mv->counted_frame = fb->frame_number;
    }
    ml->feedback_count[slot] = 0;
}

void orri_meshlets_stats(const orr_renderer *r, const orri_view *v, orr_render_stats *st)
{
    const orri_meshlet_view *mv = &v->meshlet;
    if (v->desc.strategy != ORR_STRATEGY_MESHLET) return;
    st->meshlets.views++;
    if (r->meshlets.mesh_shaders) st->meshlets.mesh_shader_views++;
    st->meshlets.sent += mv->sent;
    st->meshlets.kept += mv->kept;
    st->meshlets.triangles_sent += mv->triangles_sent;
    st->meshlets.triangles_kept += mv->triangles_kept;
    st->meshlets.triangles_indexed += mv->triangles_indexed;
    for (int i = 0; i < ORR_MESHLET_INDEXED_COUNT; i++) st->meshlets.indexed[i] += mv->indexed[i];
}
