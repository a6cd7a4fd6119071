/* The technique record room (gpu_technique_record.h): a frame's technique commands and the frame
 * graph's text, from one walk over the list. */
#include "gpu/gpu_technique_record.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_technique_graph.h"
#include "gpu/gpu_technique_mesh.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    const orri_tech_frame *fr;
    uint32_t draw_calls;
    const orri_target *target;
    orri_tech_list *l;
    res_state state[ORRI_TECH_MAX_RES];
    bool scene_visible;     /* a compute technique's barrier made the scene's buffers visible to it */
    orri_text *out;         /* the description (cmd NULL) */
} rec;

static void text_add(orri_text *out, const char *fmt, va_list ap)
{
    char line[256];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n < 0) return;
    if (out->len < out->size) snprintf(out->text + out->len, out->size - out->len, "%s", line);
    out->len += (size_t)n;
}

void orri_text_say(orri_text *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_add(out, fmt, ap);
    va_end(ap);
}

static void say(rec *rc, const char *fmt, ...) ORRI_PRINTF(2, 3);
static void say(rec *rc, const char *fmt, ...)
{
    if (rc->cmd || !rc->out) return;
    va_list ap;
    va_start(ap, fmt);
    text_add(rc->out, fmt, ap);
    va_end(ap);
}

static VkImage res_image(const rec *rc, uint32_t x, VkImageView *view)
{
    const orri_tech_res *res = &rc->l->res[x];
    const orri_image *img;
    if (res->kind == ORRI_RES_COLOR) img = &rc->target->color;
    else if (res->kind == ORRI_RES_DEPTH) img = &rc->r->views[res->view.index].depth;
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
    VkImageAspectFlags aspect =
        rc->l->res[x].kind == ORRI_RES_DEPTH ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    if (!write && s->layout == layout && !(s->access & WRITE_ACCESS)) {
        /* a read at a stage the barrier into this layout did not name (a blit after a copy) waits for
         * that barrier through the stages it named */
        if ((s->stage & stage) != stage) {
            if (rc->cmd)
                orri_barrier_image(rc->cmd, res_image(rc, x, NULL), aspect, s->stage, 0, stage, access, layout, layout);
            say(rc, "    barrier %s: %s, another stage\n", rc->l->res[x].name, layout_name(layout));
        }
        s->stage |= stage;
        s->access |= access;
        return;
    }
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
        case ORRI_RES_COLOR:
            rc->state[x] = (res_state){VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT};
            break;
        case ORRI_RES_DEPTH:
            rc->state[x] = (res_state){VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                                           VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                                       VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT};
            break;
        default: /* last frame's uses, and those of a transient earlier in its memory, end before its first */
            rc->state[x] =
                (res_state){VK_IMAGE_LAYOUT_UNDEFINED,
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                VK_PIPELINE_STAGE_2_COPY_BIT |
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
    const orri_tech *t = &rc->l->techs[n];
    if (!orr_view_id_is_none(t->view) && rc->cmd) {
        orr_renderer *r = rc->r;
        if (!orr_handle_pool_is_alive(&r->view_pool, (orr_handle){t->view.index, t->view.generation})) return false;
        const orri_view *v = &r->views[t->view.index];
        if (!v->alive || v->generation != t->view.generation || v->desc.target.index != rc->l->target) return false;
    }
    for (uint32_t k = 0; k < t->read_count; k++)
        if (t->producer[k] != ORRI_TECH_NONE && skip[t->producer[k]]) return false;
    return true;
}

/* A depth as a key that sorts nearest first when ascending. */
static uint32_t near_first_key(float depth)
{
    uint32_t u;
    if (depth == 0.0f) depth = 0.0f; /* -0 sorts with +0 */
    memcpy(&u, &depth, sizeof u);
    return (u & 0x80000000u) ? ~u : u ^ 0x80000000u; /* ascending with the float */
}

/* The records technique t draws of view v (its passes; a GPU-culled view's blended ones only: the GPU
 * alone knows the others), sorted by their instances' view-space depth as t's order asks, into the
 * list's scratch; *count of them. Per frame and technique: a sort of what it draws (radix, linear in
 * its records) is what the order costs, and the records change every frame with the cull. NULL when
 * they cannot be sorted (no memory: the view's order is drawn then, logged once). */
static const orri_sorted_record *sort_records(orr_renderer *r, orri_tech_list *l, const orri_tech *t,
                                              const orri_view *v, const orri_tech_frame *fr, uint32_t *count)
{
    const orr_draw_view *dv = NULL;
    for (uint32_t k = 0; fr && k < fr->view_count && !dv; k++)
        if (r->view_order[k] == t->view.index) dv = &fr->draw_views[k];
    if (!dv) return NULL;
    const orr_draw_visible *vis = &v->visible;
    const orr_draw_scene *sc = &v->draws->scene;
    const orr_snapshot *s = fr->snapshot;
    uint32_t n = 0;
    for (uint32_t g = v->gpu_cull ? vis->opaque_ranges : 0; g < vis->range_count; g++) n += vis->ranges[g].count;
    /* records (2 words each), then perm, tmp and key (a word each) */
    size_t words = (size_t)n * 5 + 1;
    if (words > l->sort_words) {
        uint32_t *grown = orri_realloc(&r->allocator, l->sort, l->sort_words * 4, words * 4);
        if (!grown) {
            if (!l->warned) orri_log(&r->logger, ORR_LOG_WARNING, "gpu: technique '%s': out of memory sorting its "
                                                                  "records; drawn in the view's order", t->name);
            l->warned = true;
            return NULL;
        }
        l->sort = grown, l->sort_words = words;
    }
    orri_sorted_record *recs = (orri_sorted_record *)l->sort;
    uint32_t *perm = l->sort + 2 * (size_t)n, *tmp = perm + n, *key = tmp + n, m = 0;
    for (uint32_t g = v->gpu_cull ? vis->opaque_ranges : 0; g < vis->range_count; g++) {
        const orr_draw_range *rg = &vis->ranges[g];
        uint32_t pass = ORR_PASS_TRANSPARENT;
        if (g < vis->opaque_ranges)
            for (pass = 0; pass + 1 < ORR_PASS_COUNT && rg->batch >= sc->pass_batches[pass + 1]; pass++) {}
        /* fur and other payloads are their adapters' (a technique never draws them) */
        if (!(t->passes & (1u << pass)) || sc->batches[rg->batch].payload != ORR_PAYLOAD_MESH) continue;
        for (uint32_t p = rg->first; p < rg->first + rg->count; p++) {
            const orr_render_instance *in = &s->instances[vis->items[p]];
            orr_affine3d rel = in->world; /* relative to the view's origin before the product: binary64 */
            rel.m[9] -= dv->origin.x, rel.m[10] -= dv->origin.y, rel.m[11] -= dv->origin.z;
            orr_vec3d c = {0.5 * ((double)in->bounds.min.x + in->bounds.max.x),
                           0.5 * ((double)in->bounds.min.y + in->bounds.max.y),
                           0.5 * ((double)in->bounds.min.z + in->bounds.max.z)};
            orr_vec3d eye = orr_mat4d_transform_point(&dv->view, orr_affine3d_transform_point(&rel, c));
            uint32_t k = near_first_key((float)-eye.z);
            key[m] = t->order == ORR_TECHNIQUE_ORDER_FAR_FIRST ? ~k : k;
            recs[m] = (orri_sorted_record){p, rg->batch};
            perm[m] = m;
            m++;
        }
    }
    orr_sort_by_key_u32(perm, tmp, key, m, UINT32_MAX);
    /* the records in sorted order, in place of the keys and scratch (each 2 words: tmp and key) */
    orri_sorted_record *sorted = (orri_sorted_record *)tmp;
    for (uint32_t j = 0; j < m; j++) sorted[j] = recs[perm[j]];
    *count = m;
    return sorted;
}

/* A scene technique's draws of its view (inside its rendering). The view's strategy where it asks for
 * none: shell and meshlet views' records are drawn batched (the technique's pipeline has no shell path
 * or mesh stages), or indirect where the GPU culls them (meshlet views always). */
static void draw_scene(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t slot, orri_tech_list *l,
                       const orri_tech *t, const orri_tech_frame *fr, uint32_t *draw_calls)
{
    const orri_view *v = &r->views[t->view.index];
    if (t->mesh) { /* its task and mesh stages: workgroups per run of records, or its fixed count */
        uint32_t count = 0;
        const orri_sorted_record *sorted = NULL;
        if (t->order != ORR_TECHNIQUE_ORDER_VIEW && t->mesh_dispatch == ORR_MESH_PER_RECORD)
            sorted = sort_records(r, l, t, v, fr, &count);
        orri_technique_mesh_draw(r, cmd, f, slot, v, t, sorted, count, draw_calls);
        return;
    }
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
    if (t->order != ORR_TECHNIQUE_ORDER_VIEW) d.sorted = sort_records(r, l, t, v, fr, &d.sorted_count);
    orri_indexed_record_scene(r, cmd, f, v, &d, draw_calls);
}

/* The workgroups a compute technique dispatches this frame (0 when its writes are not made yet). */
static void compute_groups(const rec *rc, const orri_tech *t, uint32_t groups[3])
{
    const orri_tech_res *x = &rc->l->res[t->images[0]];
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

/* Image src into image dst (resources; the same size), converting their formats: "color" (sRGB)
 * decoded into its storage image, or the storage image encoded into "color". */
static void blit(rec *rc, uint32_t src, uint32_t dst)
{
    transition(rc, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_BLIT_BIT,
               VK_ACCESS_2_TRANSFER_READ_BIT, false);
    transition(rc, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_BLIT_BIT,
               VK_ACCESS_2_TRANSFER_WRITE_BIT, true);
    say(rc, "    blit %s -> %s\n", rc->l->res[src].name, rc->l->res[dst].name);
    if (!rc->cmd) return;
    int32_t w = (int32_t)rc->target->desc.width, h = (int32_t)rc->target->desc.height;
    VkImageBlit region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                          .srcOffsets = {{0, 0, 0}, {w, h, 1}},
                          .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                          .dstOffsets = {{0, 0, 0}, {w, h, 1}}};
    vkCmdBlitImage(rc->cmd, res_image(rc, src, NULL), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, res_image(rc, dst, NULL),
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region, VK_FILTER_NEAREST);
}

/* After a compute technique's dispatch: what it wrote of "color" blitted (encoded) into it. */
static void compute_to_color(rec *rc, const orri_tech *t)
{
    for (uint32_t w = 0; w < t->write_count; w++)
        if (t->images[w] != t->writes[w]) blit(rc, t->images[w], t->writes[w]);
}

static void describe_dispatch(rec *rc, const orri_tech *t, const uint32_t groups[3])
{
    static const char *const how[] = {"per pixel", "fixed", "per instance slot"};
    say(rc, "    dispatch %s, local size %ux%ux%u", how[t->dispatch], t->local[0], t->local[1], t->local[2]);
    if (rc->l->width || t->dispatch != ORR_DISPATCH_PER_PIXEL)
        say(rc, ": %ux%ux%u workgroups", groups[0], groups[1], groups[2]);
    say(rc, "\n");
}

/* A compute technique, its reads already in the shader-read layout (images[k]): its writes cleared or
 * kept as their load ops say and made storage images, the scene's buffers made visible when it reads
 * them, its set written, the dispatch. */
static void record_compute(rec *rc, uint32_t slot, orri_tech *t, const VkDescriptorImageInfo *images)
{
    orr_renderer *r = rc->r;
    VkCommandBuffer cmd = rc->cmd;
    VkDescriptorImageInfo storage[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < t->write_count; w++) {
        uint32_t x = t->images[w];
        bool color = x != t->writes[w]; /* "color", through its storage image */
        orr_load_op load = t->load[w];
        if (load == ORR_LOAD_DEFAULT)
            load = !color && rc->state[x].layout == VK_IMAGE_LAYOUT_UNDEFINED ? ORR_LOAD_CLEAR : ORR_LOAD_KEEP;
        if (load == ORR_LOAD_KEEP && color) { /* what "color" holds, decoded to linear values */
            blit(rc, t->writes[w], x);
        } else if (load == ORR_LOAD_CLEAR) {
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
    if (!cmd) { /* the description: the dispatch below, then what follows it */
        describe_dispatch(rc, t, groups);
        compute_to_color(rc, t);
        return;
    }
    describe_dispatch(rc, t, groups);
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


/* A scene technique's write of "color" on a multisampled target: into the target's samples (where the
 * views drew), resolved over the pass's area into the colour image, as the views do. */
static void resolved(const orri_target *tg, VkRenderingAttachmentInfo *att)
{
    att->imageView = tg->msaa.view;
    att->resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
    att->resolveImageView = tg->color.view;
    att->resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
}

/* The target's samples, written by the views or a scene technique before, loaded by the next. */
static void samples_barrier(rec *rc)
{
    if (rc->cmd)
        orri_barrier_memory(rc->cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    say(rc, "    barrier color samples: written -> loaded, resolved into color\n");
}

/* A pass's line of the description: its kind, reads, writes and depth. */
static void describe_pass(rec *rc, const orri_tech *t)
{
    static const char *const orders[] = {"", ", nearest first", ", farthest first"};
    static const char *const topologies[] = {"", ", edges", ", corners"};
    if (t->kind == ORR_TECHNIQUE_SCENE) {
        say(rc, "  pass %s (scene, view %u%s%s%s)", t->name, t->view.index,
            t->replaces_view ? ", in place of its built-in passes" : "", topologies[t->topology], orders[t->order]);
        if (t->mesh)
            say(rc, "  %s%s", t->spirv[ORRI_TECH_TASK] ? "task+mesh" : "mesh",
                t->mesh_dispatch == ORR_MESH_FIXED ? " fixed" : " per record");
    } else if (t->kind == ORR_TECHNIQUE_COMPUTE) say(rc, "  pass %s (compute)", t->name);
    else say(rc, "  pass %s", t->name);
    for (uint32_t k = 0; k < t->read_count; k++) say(rc, "%s%s", k ? ", " : "  reads ", rc->l->res[t->reads[k]].name);
    for (uint32_t w = 0; w < t->write_count; w++)
        say(rc, "%s%s", w ? ", " : "  writes ", rc->l->res[t->writes[w]].name);
    if (t->depth != ORRI_TECH_NONE)
        say(rc, "  %s %s", t->depth_write ? "depth test+write" : "depth test", rc->l->res[t->depth].name);
    say(rc, "\n");
}

static void record_one(rec *rc, uint32_t slot, orri_tech *t)
{
    orr_renderer *r = rc->r;
    VkCommandBuffer cmd = rc->cmd;
    describe_pass(rc, t);
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
        if (rc->cmd) compute_to_color(rc, t);
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
        if (t->kind == ORR_TECHNIQUE_SCENE && rc->target->msaa.image) { /* "color" (checked at registration) */
            samples_barrier(rc);
            resolved(rc->target, &att[w]);
        }
    }
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    if (t->depth != ORRI_TECH_NONE) {
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
                          .pDepthAttachment = t->depth != ORRI_TECH_NONE ? &depth : NULL};
    if (t->mesh) orri_technique_mesh_barrier(cmd);
    vkCmdBeginRendering(cmd, &ri);
    VkViewport viewport = {(float)rect.x, (float)rect.y, (float)rect.width, (float)rect.height, 0.0f, 1.0f};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &area);
    if (t->kind == ORR_TECHNIQUE_SCENE) {
        draw_scene(r, cmd, rc->frame, slot, rc->l, t, rc->fr, &rc->draw_calls);
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
    orri_tech_list *l = rc->l;
    bool skip[ORR_TECHNIQUE_MAX] = {0};
    start_states(rc);
    uint32_t skipped = 0;
    for (uint32_t n = 0; n < l->count; n++) {
        if (l->techs[n].place != ORR_PLACE_AFTER_VIEWS) continue; /* in their view's list */
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
        if (l->res[x].kind == ORRI_RES_COLOR && rc->state[x].layout != VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
            transition(rc, x, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, true);
        if (l->res[x].kind == ORRI_RES_DEPTH && rc->state[x].layout != VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL)
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

uint32_t orri_techniques_record(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target,
                                const orri_tech_frame *fr)
{
    orri_tech_list *l = orri_technique_list_of(r, target);
    if (!l) return 0;
    rec rc = {.r = r, .cmd = cmd, .frame = &r->frames[slot], .fr = fr, .target = &r->targets[target], .l = l};
    record_list(&rc, slot);
    l->recorded = true;
    return rc.draw_calls;
}

/* Technique n of the list placed in the view's list at `at`. */
static bool placed_at(const orr_renderer *r, const orri_tech_list *l, uint32_t n, uint32_t view, uint32_t at)
{
    const orri_tech *t = &l->techs[n];
    return t->place != ORR_PLACE_AFTER_VIEWS && t->at == at && t->view.index == view &&
           t->view.generation == r->views[view].generation;
}

bool orri_techniques_placed_at(const orr_renderer *r, uint32_t target, uint32_t view, uint32_t at)
{
    const orri_tech_list *l = orri_technique_list_of(r, target);
    for (uint32_t n = 0; l && n < l->count; n++)
        if (placed_at(r, l, n, view, at)) return true;
    return false;
}

void orri_techniques_describe_at(orr_renderer *r, uint32_t target, uint32_t view, uint32_t at, orri_text *out)
{
    orri_tech_list *l = orri_technique_list_of(r, target);
    rec rc = {.r = r, .target = &r->targets[target], .l = l, .out = out};
    for (uint32_t n = 0; l && n < l->count; n++)
        if (placed_at(r, l, n, view, at)) describe_pass(&rc, &l->techs[n]);
}

bool orri_techniques_record_at(orr_renderer *r, VkCommandBuffer cmd, uint32_t slot, uint32_t target, uint32_t view,
                               uint32_t at, bool written, const orri_tech_frame *fr, uint32_t *draw_calls)
{
    orri_tech_list *l = orri_technique_list_of(r, target);
    if (!l) return false;
    const orri_view *v = &r->views[view];
    bool any = false;
    for (uint32_t n = 0; n < l->count; n++) {
        orri_tech *t = &l->techs[n];
        if (!placed_at(r, l, n, view, at)) continue;
        if (any || written) /* a built-in pass, or the technique before, wrote what this one loads */
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
            if (tg->msaa.image) resolved(tg, &att[w]); /* the barrier above covers the samples */
        }
        /* the first one before the view finds the depth undefined: cleared unless it asks for what was there */
        orr_load_op dl = t->depth_load == ORR_LOAD_DEFAULT ? (any || written ? ORR_LOAD_KEEP : ORR_LOAD_CLEAR)
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
        if (t->mesh) orri_technique_mesh_barrier(cmd);
        vkCmdBeginRendering(cmd, &ri);
        VkViewport viewport = {(float)v->rect.x, (float)v->rect.y, (float)v->rect.width, (float)v->rect.height, 0.0f,
                               1.0f};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &area);
        draw_scene(r, cmd, &r->frames[slot], slot, l, t, fr, draw_calls);
        vkCmdEndRendering(cmd);
        any = true;
        l->recorded = true;
    }
    return any;
}

void orri_techniques_describe_list(orr_renderer *r, uint32_t target, orri_text *out)
{
    orri_tech_list *l = orri_technique_list_of(r, target);
    uint32_t after = 0;
    for (uint32_t n = 0; l && n < l->count; n++) after += l->techs[n].place == ORR_PLACE_AFTER_VIEWS;
    orri_text_say(out, "after the views: %u technique(s)\n", after);
    if (!l) return;
    rec *rc = orri_alloc(&r->allocator, sizeof *rc);
    if (!rc) return;
    *rc = (rec){.r = r, .target = &r->targets[target], .l = l, .out = out};
    record_list(rc, 0);
    say(rc, "resources:\n");
    for (uint32_t x = 0; x < l->res_count; x++) {
        const orri_tech_res *res = &l->res[x];
        static const char *kinds[] = {"the target's colour", "a view's depth", "transient", "copy",
                                      "what compute techniques write of the target's colour"};
        char extent[40] = "";
        if (res->kind >= ORRI_RES_TRANSIENT && res->divisor == 1) snprintf(extent, sizeof extent, ", target size");
        else if (res->kind >= ORRI_RES_TRANSIENT)
            snprintf(extent, sizeof extent, ", 1/%u of the target's size", res->divisor);
        say(rc, "  %s: %s, %s%s", res->name, kinds[res->kind],
            res->kind == ORRI_RES_DEPTH ? "d32f" : orr_format_name(res->format), extent);
        if (res->kind >= ORRI_RES_TRANSIENT && l->width)
            say(rc, ", passes %u-%u, memory block %u", res->first, res->last, res->block);
        say(rc, "\n");
    }
    if (l->width && l->block_count)
        say(rc, "memory: %llu bytes in %u block(s) for the transients, %llu without reuse\n",
            (unsigned long long)l->bytes, l->block_count, (unsigned long long)l->bytes_unshared);
    orri_free(&r->allocator, rc, sizeof *rc);
}
