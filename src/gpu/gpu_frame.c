/* The frame: plan, record, submit, commit; readback and finish.
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
#include "gpu/gpu_baseline.h"
#include "gpu/gpu_cull.h"
#include "gpu/gpu_debug_draw.h"
#include "gpu/gpu_draws.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_geometry.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_library.h"
#include "gpu/gpu_light.h"
#include "gpu/gpu_material.h"
#include "gpu/gpu_memory.h"
#include "gpu/gpu_meshlet.h"
#include "gpu/gpu_motion.h"
#include "gpu/gpu_meshlet_pool.h"
#include "gpu/gpu_occlusion.h"
#include "gpu/gpu_pick.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_scene.h"
#include "gpu/gpu_shadow.h"
#include "gpu/gpu_shell.h"
#include "gpu/gpu_surface.h"
#include "gpu/gpu_target.h"
#include "gpu/gpu_technique.h"
#include "gpu/gpu_technique_builtin.h"
#include "gpu/gpu_technique_record.h"
#include "gpu/gpu_texture.h"
#include "gpu/gpu_texture_target.h"
#include "gpu/gpu_upload.h"
#include "gpu/gpu_view.h"

#include <orrery/gpu_vulkan.h>

#include <math.h>
#include <string.h>
#include <time.h>

#define DEPTH_FORMAT ORRI_DEPTH_FORMAT
#define MIN_FRAME_BYTES ((VkDeviceSize)1 << 20)
#define KEY(value) key_put(r, &size, &(value), sizeof(value), &ok)

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

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The phases' clock. A renderer that may share its passes out times them in wall-clock time: the
 * calling thread's CPU time would leave out the workers' share, and the time it waits for them. */
static double phase_ms(const orr_renderer *r)
{
    return r->mip_threads > 1 ? wall_ms() : thread_ms();
}

/* A view's counts for the stats: its cull's (the draw scenes), its shell path's, its meshlets'. */
static void view_stats(const orr_renderer *r, const orri_view *v, orr_render_stats *st)
{
    orri_draws_stats(v, st);
    orri_shell_stats(v, st);
    orri_meshlets_stats(r, v, st);
}

/* What a frame slot's last frame found, read once its fence signalled: its GPU time and the counts of
 * its GPU-culled views. */
static void read_completed(orr_renderer *r, orri_frame *f)
{
    if (f->timed && r->queries) {
        uint64_t t[ORRI_QUERIES_PER_FRAME];
        uint32_t slot = (uint32_t)(f - r->frames), n = f->baseline_timed ? 3u : 2u;
        VkResult res = vkGetQueryPoolResults(r->device, r->queries, slot * ORRI_QUERIES_PER_FRAME, n, sizeof t, t,
                                             sizeof t[0], VK_QUERY_RESULT_64_BIT);
        if (res == VK_SUCCESS && f->frame_number >= r->last_gpu_frame_number) {
            double period = r->properties.limits.timestampPeriod * 1e-6;
            r->last_gpu_ms = (double)(t[1] - t[0]) * period;
            r->last_baseline_ms = f->baseline_timed ? (double)(t[2] - t[1]) * period : -1.0;
            r->last_gpu_frame = f->stats_frame;
            r->last_gpu_frame_number = f->frame_number;
            /* the shadow views and the views after them, written in every timed frame */
            res = vkGetQueryPoolResults(r->device, r->queries, slot * ORRI_QUERIES_PER_FRAME + 3, 3, sizeof t, t,
                                        sizeof t[0], VK_QUERY_RESULT_64_BIT);
            r->last_shadow_ms = res == VK_SUCCESS && f->shadows_timed ? (double)(t[1] - t[0]) * period : -1.0;
            r->last_views_ms = res == VK_SUCCESS ? (double)(t[2] - t[1]) * period : -1.0;
        }
    }
    f->timed = f->baseline_timed = f->shadows_timed = false;
    for (uint32_t k = 0; k < f->feedback_count; k++) {
        const orri_feedback *fb = &f->feedback[k];
        if (fb->view >= r->view_capacity) continue;
        orri_view *v = &r->views[fb->view];
        if (!v->alive || v->generation != fb->generation || fb->frame_number < v->gpu_visible_frame) continue;
        const uint32_t *counts = (const uint32_t *)((const uint8_t *)f->data.map + fb->offset);
        v->gpu_visible = counts[0];
        v->gpu_batches = counts[1];
        for (uint32_t l = 0; l < ORR_MESH_MAX_LODS; l++) {
            v->gpu_lod_surfaces[l] = counts[2 + l];
            v->gpu_lod_triangles[l] = counts[2 + ORR_GPU_LODS + 2 * l] | (uint64_t)counts[3 + ORR_GPU_LODS + 2 * l] << 32;
        }
        memcpy(v->gpu_instances, counts + 2 + ORR_GPU_CULL_LOD_WORDS, sizeof v->gpu_instances);
        v->gpu_visible_frame = fb->frame_number;
    }
    f->feedback_count = 0;
    orri_shadows_completed(r, f);
    orri_meshlets_read(r, f);
    orri_picks_completed(r, f->frame_number);
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
static orr_result write_view_block(orr_renderer *r, orri_frame *f, uint32_t k, orri_view *v, const orri_view_frame *vf,
                                   const orr_snapshot *s)
{
    orr_gpu_view gv = vf->gpu;
    ORRI_TRY(orri_lights_write(r, f, &v->desc, s, vf->draw.origin, &gv.params[1], &gv.params[2]));
    if (gv.params[2]) ORRI_TRY(orri_shadows_write_lights(r, f, k, (VkDeviceSize)gv.params[1] * sizeof(orr_gpu_light)));
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
                                                     .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                                              VK_IMAGE_USAGE_SAMPLED_BIT, /* techniques */
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
    orri_view_frame *views;      /* per view: camera and GPU view block (renderer.view_frames) */
    orr_draw_view *draw_views;   /* (renderer.draw_views) */
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
    /* the renderer's, grown only (a frame allocates nothing here) */
    if (!ORRI_GROW(&r->allocator, r->view_frames, r->view_frames_capacity, n) ||
        !ORRI_GROW(&r->allocator, r->draw_views, r->draw_views_capacity, n))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for view data");
    job->views = r->view_frames;
    job->draw_views = r->draw_views;
    /* Between ticks: the instances the CPU culls where they are drawn. Only where some view culls any
     * item on the CPU (every item of a CPU-culled view, the transparent and fur ones of any): a frame
     * whose views all cull on the GPU and draw neither makes no lookup. */
    bool cpu = false;
    for (uint32_t k = 0; k < job->view_count; k++) {
        const orri_view *v = &r->views[r->view_order[k]];
        const orr_draw_scene *sc = &v->draws->scene;
        cpu = cpu || !v->gpu_cull || sc->item_count > sc->pass_items[ORR_PASS_TRANSPARENT] || sc->fur_reach_count;
    }
    const orr_draw_motion *motion = NULL;
    ORRI_TRY(orri_motion_draw(r, job->s, cpu, &motion));
    for (uint32_t k = 0; k < job->view_count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        const orri_target *t = &r->targets[v->desc.target.index]; /* the frame's, or a texture target */
        orr_viewport vp = orri_view_rect(v, t->desc.width, t->desc.height);
        /* a camera that fixes its aspect draws into the part of the viewport of that shape */
        orr_viewport rect = orri_view_letterbox(vp, orri_view_camera_aspect(orri_view_snapshot_camera(v, job->s)));
        v->rect = rect;
        v->samples = t->samples;
        orri_view_camera(v, job->s, rect, &job->views[k]);
        job->draw_views[k] = job->views[k].draw;
        job->draw_views[k].motion = motion;
        ORRI_TRY(orri_draws_ranges(r, v, job->s, &job->draw_views[k]));
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
    double t1 = phase_ms(r); /* the slot's fence was waited for: the wait is not the frame's cost */
    orri_collect_garbage(r, job->number >= ORRI_FRAMES_IN_FLIGHT ? job->number - ORRI_FRAMES_IN_FLIGHT : 0);
    const orr_snapshot *s = job->s;
    job->mode = s->delta_base && s->delta_base == r->applied_frame ? APPLY_DELTA
                : s->delta_base && s->frame == r->applied_frame   ? APPLY_SAME
                                                                  : APPLY_WHOLE;
    bool whole = job->mode == APPLY_WHOLE;
    if (whole || (job->mode == APPLY_DELTA && (s->changed_count || s->removed_count))) r->instances_epoch++;
    uint64_t stage = r->frame_align;
    /* A delta can bring new meshes only with a new layout (a changed mesh binding is one). */
    orri_scan scan = whole ? ORRI_SCAN_ALL
                     : job->mode == APPLY_DELTA && s->layout_version != r->layout_version ? ORRI_SCAN_CHANGED
                                                                                          : ORRI_SCAN_NONE;
    ORRI_TRY(orri_geometry_plan(r, s, job->assets, scan, &stage));
    double t2 = phase_ms(r);
    if (job->mode != APPLY_SAME) {
        ORRI_TRY(orri_instances_plan(r, s, whole, &stage));
        ORRI_TRY(orri_motion_instances_plan(r, s)); /* (the CPU cull's view of the blend) */
        ORRI_TRY(orri_joints_plan(r, s, whole, &stage));
        ORRI_TRY(orri_weights_plan(r, s, whole, &stage));
    } else {
        r->instances.upload_count = r->joints.upload_count = r->weights.upload_count = 0;
        r->instances.upload_all = r->joints.upload_all = r->weights.upload_all = r->instances.flipped = false;
        r->joints.mirror = r->joints.kept = false;
    }
    if (r->vertex_capture) ORRI_TRY(capture_plan(r));
    double t3 = phase_ms(r);
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
    job->stats.views.count = own_views;
    job->stats.views.texture_targets = tt->order_count - 1;
    job->stats.views.texture_views = job->view_count - own_views;
    for (uint32_t k = 0; k < job->view_count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        v->draws = &r->draws[v->desc.order];
        v->gpu_cull = orri_view_culls_on_gpu(&v->desc);
    }
    uint32_t width = 0, height = 0; /* the largest of them: the floor's scratch images (orri_baseline) */
    for (uint32_t k = 0; k < tt->order_count; k++) {
        orri_target *ft = &r->targets[tt->order[k].target];
        for (int o = 0; o < 2; o++) /* the pipelines this frame draws with, at each of its targets' sample counts */
            if (r->draws[o].used)
                ORRI_TRY(orri_pipelines_ensure(r, r->draws[o].state, r->draws[o].scene.batch_count, ft->samples));
        if (ft != job->t && ft->desc.readback) ORRI_TRY(ensure_readback(r, ft, job->slot));
        width = ft->desc.width > width ? ft->desc.width : width;
        height = ft->desc.height > height ? ft->desc.height : height;
    }
    ORRI_TRY(orri_baseline_plan(r, width, height, job->t->samples));
    double t4 = phase_ms(r);
    ORRI_TRY(plan_views(r, job, &stage));
    ORRI_TRY(orri_shadows_plan(r, r->view_order, job->view_count, job->views, job->s, &stage));
    ORRI_TRY(orri_picks_plan(r, r->view_order, job->draw_views, job->view_count));
    ORRI_TRY(orri_debug_plan(r, job->slot, job->target_id.index, r->view_order, job->draw_views, job->view_count,
                             job->s));
    ORRI_TRY(orri_draws_layout(r, r->view_order, job->view_count));
    ORRI_TRY(orri_meshlets_layout(r, r->view_order, job->view_count));
    ORRI_TRY(orri_occlusion_plan(r, r->view_order, job->view_count, &stage));
    stage += orri_materials_plan(r) + orri_textures_plan(r, job->assets);
    if (!ORRI_GROW(&r->allocator, f->feedback, f->feedback_capacity, job->view_count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for cull feedback");
    ORRI_TRY(orri_meshlets_reserve_feedback(r, f, job->view_count));
    ORRI_TRY(size_frame_buffer(r, f, stage));
    double t5 = phase_ms(r);
    double *ms = job->stats.time.cpu_ms;
    ms[ORR_PHASE_RESIDENCY] += t2 - t1;
    ms[ORR_PHASE_INSTANCES] += t3 - t2;
    ms[ORR_PHASE_SCENES] += t4 - t3;
    ms[ORR_PHASE_VIEWS] += t5 - t4;
    return ORR_OK;
}

/* The frame's descriptor set: its last use has finished (fence), and no command bound it yet. */
static void write_frame_set(orr_renderer *r, const orri_frame *f)
{
    VkDescriptorBufferInfo infos[12] = {
        {f->data.buffer, 0, sizeof(orr_gpu_view)},
        {r->view_data.buffer, 0, VK_WHOLE_SIZE},
        {r->instances.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->materials.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->joints.buffer.buffer, 0, VK_WHOLE_SIZE},
        {f->data.buffer, 0, VK_WHOLE_SIZE}, /* the views' lights */
        {r->geometry.morphs.buffer, 0, VK_WHOLE_SIZE},
        {r->weights.buffer.buffer, 0, VK_WHOLE_SIZE},
        {r->capture.buffer.buffer, 0, VK_WHOLE_SIZE}, /* the test mode's (vertex_capture) */
        {f->data.buffer, 0, VK_WHOLE_SIZE}, /* the views' shadow records (gpu_shadow.c), binding 10 */
        {r->instances.motion.buffer, 0, VK_WHOLE_SIZE}, /* binding 11 */
        {r->joints.before.buffer, 0, VK_WHOLE_SIZE},    /* binding 12 */
    };
    uint32_t n = r->vertex_capture ? 9u : 8u;
    VkWriteDescriptorSet writes[13];
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
    writes[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->set,
                                         .dstBinding = 10, .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[9]};
    writes[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->set,
                                         .dstBinding = 11, .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[10]};
    writes[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->set,
                                         .dstBinding = 12, .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[11]};
    VkDescriptorImageInfo shadow = {r->shadows.sampler, r->shadows.map.view, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL};
    writes[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->set,
                                         .dstBinding = 9, .descriptorCount = 1,
                                         .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                         .pImageInfo = &shadow}; /* the shadow map (gpu_shadow.c) */
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
        ORRI_TRY(write_view_block(r, job->f, k, &r->views[r->view_order[k]], &job->views[k], job->s));
    ORRI_TRY(orri_shadows_upload(r, job->f));
    ORRI_TRY(orri_draws_upload(r, job->s, up, r->view_order, job->view_count, job->draw_views));
    ORRI_TRY(orri_occlusion_upload(r, up, r->view_order, job->view_count, job->draw_views));
    ORRI_TRY(orri_geometry_upload(r, job->assets, up));
    ORRI_TRY(orri_instances_upload(r, job->s, up));
    ORRI_TRY(orri_joints_upload(r, job->s, up));
    ORRI_TRY(orri_weights_upload(r, job->s, up));
    ORRI_TRY(orri_materials_upload(r, up));
    ORRI_TRY(orri_textures_upload(r, job->assets, up));
    ORRI_TRY(orri_meshlets_upload_views(r, up, r->view_order, job->view_count, job->draw_views));
    return ORR_OK;
}

/* The views of target `t` (view_order[first .. first + count), by slot): each its depth made an
 * attachment, its technique list (gpu_technique_builtin), its id pass when a pick asked. */
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
        /* its technique list: the built-in passes, and the host's scene techniques placed among them */
        orri_tech_frame fr = {job->s, job->draw_views, job->view_count};
        orri_builtin_record_view(r, cmd, job->slot, (uint32_t)(t - r->targets), r->view_order[k], &fr,
                                 &st->draws.calls);
        orri_picks_record(r, cmd, job->f, r->view_order[k], &st->draws.calls); /* frames that pick only */
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

/* Whether the slot's upload recording holds exactly this frame's listed copies (and its head). */
static bool same_uploads(const orr_renderer *r, const orri_frame *f, const orri_upload *up)
{
    return f->upload_valid && f->upload_epoch == r->objects_epoch && f->upload_op_count == up->op_count &&
           (!up->op_count || !memcmp(f->upload_ops, r->upload_ops, sizeof *r->upload_ops * up->op_count));
}

/* The frame's uploads, in the slot's upload command buffer: timestamp -> the uploads -> the instance
 * scatter. Begun only when a command other than a copy out of the frame buffer is needed; a frame of
 * copies alone (a frame where nothing changed: the views' few) submits the slot's recording again when
 * it holds the same copies, and otherwise records them with nothing else and keeps the list. */
static orr_result record_uploads_cmd(orr_renderer *r, frame_job *job)
{
    orri_frame *f = job->f;
    job->up = (orri_upload){.r = r, .frame = f, .frame_number = job->number,
                            .before = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                      VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT |
                                      VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                                      orri_meshlets_pipeline_stages(r)};
    orri_upload *up = &job->up;
    orr_result rc = record_uploads(r, job);
    if (rc == ORR_OK && up->out_of_memory) rc = orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory listing uploads");
    if (rc == ORR_OK) rc = orri_instances_scatter(r, up);
    if (rc == ORR_OK && r->vertex_capture) { /* NaN wherever this frame draws no vertex */
        rc = orri_upload_begin(r, up);
        if (rc == ORR_OK) {
            vkCmdFillBuffer(up->cmd, r->capture.buffer.buffer, 0, VK_WHOLE_SIZE, 0x7fc00000u);
            orri_barrier_memory(up->cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        }
    }
    bool listed = !up->cmd; /* copies alone: kept, or recorded now and kept */
    if (rc == ORR_OK && listed && same_uploads(r, f, up)) {
        job->stats.uploads_reused = true;
        return ORR_OK;
    }
    if (rc == ORR_OK && listed) rc = orri_upload_begin(r, up);
    if (!up->cmd) return rc; /* nothing begun (a failure before any command) */
    /* Out of the recording state even after an error, so that the next frame may begin it again (the
     * first error stays the frame's). */
    VkResult res = vkEndCommandBuffer(up->cmd);
    if (rc == ORR_OK && res != VK_SUCCESS)
        rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkEndCommandBuffer failed: %s", orri_vk_result_name(res));
    if (rc == ORR_OK && listed) { /* the list becomes the slot's (and the slot's old one the next list) */
        orri_upload_op *ops = f->upload_ops;
        uint32_t capacity = f->upload_op_capacity;
        f->upload_ops = r->upload_ops;
        f->upload_op_capacity = r->upload_op_capacity;
        f->upload_op_count = up->op_count;
        r->upload_ops = ops;
        r->upload_op_capacity = capacity;
        f->upload_valid = true;
        f->upload_epoch = r->objects_epoch;
    }
    return rc;
}

/* The frame's draws, in the slot's draw command buffer: the GPU culls -> one clear of the target ->
 * the views -> readback -> timestamp. */
static orr_result record_draws_cmd(orr_renderer *r, frame_job *job)
{
    orri_target *t = job->t;
    VkCommandBuffer cmd = job->f->draw_cmd;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}; /* may be submitted again */
    const orri_texture_targets *tt = &r->texture_targets;
    for (uint32_t k = 0; k < tt->order_count; k++) ORRI_TRY(orri_techniques_prepare(r, tt->order[k].target));
    ORRI_VK(r, vkResetCommandPool(r->device, job->f->draw_pool, 0));
    ORRI_VK(r, vkBeginCommandBuffer(cmd, &bi));
    orri_cull_record(r, cmd, job->f, r->view_order, job->view_count);
    orri_occlusion_record_culls(r, cmd, job->f, r->view_order, job->view_count);
    orri_meshlets_dispatch(r, cmd, job->f, r->view_order, job->view_count);
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                        VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT |
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
    write_frame_set(r, job->f);
    /* the shadow views timed: from the end of what came before (uploads, culls) to their end */
    if (r->queries)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, r->queries,
                             job->slot * ORRI_QUERIES_PER_FRAME + 3);
    orri_shadows_record(r, cmd, job->f, &job->stats.draws.calls); /* before any view samples them */
    if (r->queries)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, r->queries,
                             job->slot * ORRI_QUERIES_PER_FRAME + 4);

    /* Texture targets whose image is new: readable from here on, whatever this frame draws. */
    orri_texture_targets_record_init(r, cmd);
    /* The texture targets this frame samples, each after those it samples, then the target: each one
     * clear, its views, and (texture targets) its image made readable for what follows. */
    bool read_any = job->readback;
    for (uint32_t k = 0; k < tt->order_count; k++) {
        orri_target *ft = &r->targets[tt->order[k].target];
        clear_target(cmd, ft);
        record_views(r, job, cmd, ft, tt->order[k].first_view, tt->order[k].view_count);
        orri_tech_frame fr = {job->s, job->draw_views, job->view_count};
        job->stats.draws.calls += orri_techniques_record(r, cmd, job->slot, tt->order[k].target, &fr); /* the host's */
        if (ft == t) continue;
        orri_texture_targets_record_publish(r, cmd, ft, ft->desc.readback ? &ft->readback[job->slot] : NULL);
        read_any = read_any || ft->desc.readback;
    }
    if (r->queries) /* the views and techniques drawn */
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, r->queries,
                             job->slot * ORRI_QUERIES_PER_FRAME + 5);
    orri_meshlets_feedback(r, cmd, job->f, r->view_order, job->view_count);
    orri_occlusion_record_feedback(r, cmd, job->f, r->view_order, job->view_count);
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
    if (r->queries)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT, r->queries,
                             job->slot * ORRI_QUERIES_PER_FRAME + 1);
    /* the floor, timed apart, once the frame's work is done */
    job->f->draw_baseline = orri_baseline_record(r, cmd, job->f, r->view_order, job->view_count,
                                                 job->slot * ORRI_QUERIES_PER_FRAME + 2);
    ORRI_VK(r, vkEndCommandBuffer(cmd));
    return ORR_OK;
}

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
    if (orri_techniques_active(r, (uint32_t)(t - r->targets))) return false; /* host data is in the commands */
    if (orri_picks_planned(r)) return false; /* a pick's id pass, this frame only */
    if (orri_debug_planned(r)) return false; /* debug lines, written per frame */
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
        KEY(v->occluding);
        KEY(v->occlusion_offset);
    }
    KEY(r->shadows.count);
    KEY(r->shadows.map.image);
    KEY(r->shadows.counts_at);
    for (uint32_t k = 0; k < r->shadows.count; k++) {
        const orri_shadow_view *sv = &r->shadows.views[k];
        KEY(sv->layer);
        KEY(sv->ubo_offset);
        KEY(sv->cull_offset);
        KEY(sv->words_at);
        KEY(sv->records_at);
        KEY(sv->commands_at);
        KEY(sv->cull.sizes);
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
            KEY(st->features);
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
        job->stats.draws.calls = f->draw_calls;
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
        f->draw_calls = job->stats.draws.calls;
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
    f->baseline_timed = f->timed && f->draw_baseline;
    f->shadows_timed = f->timed && r->shadows.count;
    f->feedback_count = 0;
    for (uint32_t k = 0; k < job->view_count; k++) {
        orri_view *v = &r->views[r->view_order[k]];
        if (v->gpu_cull)
            f->feedback[f->feedback_count++] = (orri_feedback){r->view_order[k], v->generation, v->feedback_offset, job->number};
    }
    orri_meshlets_submitted(r, f, job->number, r->view_order, job->view_count);
    orri_picks_submitted(r, job->number, job->s->frame);
    orri_debug_submitted(r);
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
    for (uint32_t k = 0; k < job->view_count; k++) view_stats(r, &r->views[r->view_order[k]], st);
    st->cull.changed = r->instances.upload_all ? r->instances.slots.alive : r->instances.upload_count;
    st->full_sync = job->mode == APPLY_WHOLE;
    st->memory.geometry_bytes = r->geometry.vertex_space.used * ORRI_VERTEX_BYTES + r->geometry.index_space.used * 4 +
                         r->geometry.morph_space.used * ORRI_MORPH_UNIT + orri_meshlets_bytes(r);
    st->memory.instance_bytes = (uint64_t)r->instances.slots.alive * sizeof(orr_gpu_instance);
    st->memory.material_bytes = (uint64_t)r->materials.count * sizeof(orr_gpu_material);
    st->memory.uploaded_bytes = job->up.bytes;
    st->memory.view_bytes = job->up.view_bytes;
    st->memory.gpu_bytes = r->gpu_bytes;
    st->memory.shadow_bytes = r->shadows.map.memory.size;
    st->views.shadow_views = r->shadows.count;
    st->views.shadow_lights = r->shadows.light_count;
    st->views.shadow_lights_over = r->shadows.over;
    st->views.shadow_casters = r->shadows.casters;
    st->memory.gpu_allocations = orri_memory_allocations(r);
    st->time.gpu_ms = r->last_gpu_ms;
    st->time.gpu_frame = r->last_gpu_frame;
    st->time.baseline_gpu_ms = r->last_baseline_ms;
    st->time.shadow_gpu_ms = r->last_shadow_ms;
    st->time.views_gpu_ms = r->last_views_ms;
    st->draws.pipelines = r->pipeline_count;
    st->presented = true;
    st->swapchains = orri_surface_swapchains(job->t);
    r->last_stats = *st;
    if (stats) *stats = *st;
}

static orr_result render_frame(orr_renderer *r, const orr_render_desc *d, orri_target *t, orr_render_stats *stats)
{
    orr_snapshot blended; /* the snapshot with its lights and cameras between ticks (gpu_motion.c) */
    orr_snapshot current; /* a renderer that does not interpolate: the snapshot at lag 0 */
    const orr_snapshot *given = d->snapshot;
    if (!r->interpolate && given->lag != 0.0f) {
        current = *given;
        current.lag = 0.0f;
        given = &current;
    }
    frame_job job = {.target_id = d->target, .t = t, .s = given, .assets = r->library_assets,
                     .number = r->frame_number + 1};
    job.slot = (uint32_t)(job.number % ORRI_FRAMES_IN_FLIGHT);
    job.f = &r->frames[job.slot];
    job.readback = d->readback || t->desc.readback;
    job.stats = (orr_render_stats){.frame = d->snapshot->frame, .cull.instances = d->snapshot->instance_count};
    /* The slot's fence, then (a surface target) an image to draw into: waits, not the frame's cost. */
    double w0 = phase_ms(r), ww0 = wall_ms();
    orr_result rc = orri_motion_snapshot(r, given, &blended, &job.s);
    if (rc == ORR_OK) rc = wait_frame(r, job.f);
    bool draw = true;
    if (rc == ORR_OK && t->surface) rc = orri_surface_acquire(r, t, job.slot, &draw);
    job.stats.time.wait_ms = phase_ms(r) - w0;
    job.stats.time.wait_wall_ms = wall_ms() - ww0;
    if (rc == ORR_OK && !draw) { /* minimised: nothing drawn, the snapshot not applied */
        job.stats.swapchains = orri_surface_swapchains(t);
        if (stats) *stats = job.stats;
        return ORR_OK;
    }
    job.acquired = rc == ORR_OK && t->surface;
    if (rc == ORR_OK && job.readback) rc = ensure_readback(r, t, job.slot);
    if (rc == ORR_OK) rc = plan_frame(r, &job);
    double t0 = phase_ms(r);
    if (rc == ORR_OK) rc = record_frame(r, &job);
    double t1 = phase_ms(r);
    if (rc == ORR_OK) rc = submit_frame(r, &job);
    double t2 = phase_ms(r);
    job.stats.time.cpu_ms[ORR_PHASE_RECORD] = t1 - t0;
    job.stats.time.cpu_ms[ORR_PHASE_SUBMIT] = t2 - t1;
    if (rc == ORR_OK) {
        commit_frame(r, &job, stats);
        if (t->surface) rc = orri_surface_present(r, t); /* the frame stands even if this fails */
        if (stats) stats->time.cpu_ms[ORR_PHASE_SUBMIT] += phase_ms(r) - t2;
    } else {
        if (job.acquired) orri_surface_abort(r, t, job.slot);
        /* Whatever the frame planned or recorded is redone by the next one, which takes its snapshot
         * whole (the records, joints and scenes this one changed on the CPU side never reached the GPU). */
        orri_scene_abort(r);
        r->applied_frame = 0;
        for (int o = 0; o < 2; o++) r->draws[o].built = false;
    }
    return rc;
}

orr_result orr_renderer_render(orr_renderer *r, const orr_render_desc *desc, orr_render_stats *stats)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_render: renderer is NULL");
    ORRI_REQUIRE(desc && desc->snapshot, &r->error, "orr_renderer_render: desc and desc->snapshot must not be NULL");
    if (stats) memset(stats, 0, sizeof *stats);
    orri_target *t = orri_target_get(r, desc->target);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_render: stale target id");
    if (!r->library_assets)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_render: no asset library bound (bind one with orr_renderer_bind_library)");
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
    stats->cull.visible = stats->draws.surfaces = stats->draws.batches = stats->views.gpu_culled = stats->cull.culled = 0;
    stats->cull.occluded = 0;
    stats->draws.fur_fallbacks = stats->draws.fur_draws = 0;
    stats->draws.shells = 0;
    stats->cull.out_of_range = 0;
    memset(stats->draws.lod_surfaces, 0, sizeof stats->draws.lod_surfaces);
    memset(stats->draws.lod_triangles, 0, sizeof stats->draws.lod_triangles);
    memset(stats->draws.dropped, 0, sizeof stats->draws.dropped);
    stats->meshlets.views = stats->meshlets.mesh_shader_views = 0;
    stats->meshlets.sent = stats->meshlets.kept = stats->meshlets.triangles_sent = stats->meshlets.triangles_kept = 0;
    stats->meshlets.triangles_indexed = 0;
    memset(stats->meshlets.indexed, 0, sizeof stats->meshlets.indexed);
    uint32_t views = r->last_stats.views.count + r->last_stats.views.texture_views; /* the texture targets' first */
    for (uint32_t k = 0; k < views && k < r->view_order_capacity; k++) {
        const orri_view *v = &r->views[r->view_order[k]];
        if (!v->alive) continue;
        view_stats(r, v, stats);
    }
    stats->time.gpu_ms = r->last_gpu_ms;
    stats->time.gpu_frame = r->last_gpu_frame;
    stats->time.baseline_gpu_ms = r->last_baseline_ms;
    stats->time.shadow_gpu_ms = r->last_shadow_ms;
    stats->views.shadow_casters = r->shadows.casters;
    stats->time.views_gpu_ms = r->last_views_ms;
    return ORR_OK;
}

orr_result orr_renderer_read_target(orr_renderer *r, orr_target_id target, uint8_t *rgba, size_t size)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_read_target: renderer is NULL");
    orri_target *t = orri_target_get(r, target);
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
