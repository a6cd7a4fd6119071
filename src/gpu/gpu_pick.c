/* Picks (include/orrery/pick.h). A pick waits for a frame of its view's target; that frame's plan
 * gives it its rectangle (clipped to where the view draws), the view's binary64 camera and its images;
 * after the view's passes an id pass draws the view's records again (its cull, strategy and batches,
 * the library's vertex stage) into an RGBA32 uint image of the rectangle's size (instance slot + 1,
 * the provoking vertex's pool index, the depth's bits), copied into host memory. When the frame's
 * fence signals, the pixels become hits: one per instance and primitive seen, at its nearest pixel,
 * its entity as of that frame (orri_instances.entity_of_slot and slot_since) and its point unprojected
 * in binary64. */
#include "gpu/gpu_pick.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_indexed.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"

#include <orrery/pick.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t orri_spv_pick_vert[];
extern const size_t orri_spv_pick_vert_size;
extern const uint32_t orri_spv_pick_frag[];
extern const size_t orri_spv_pick_frag_size;
extern const uint32_t orri_spv_pick_array_frag[];
extern const size_t orri_spv_pick_array_frag_size;

#define ID_FORMAT VK_FORMAT_R32G32B32A32_UINT
#define ID_BYTES 16u

typedef enum pick_state {
    PICK_FREE = 0,
    PICK_WAITING,   /* asked; no frame has drawn it (or the one that planned it failed) */
    PICK_PLANNED,   /* the frame being made draws it */
    PICK_SUBMITTED, /* drawn by frame `number`, not known complete */
    PICK_DONE,      /* answered: hits */
    PICK_GONE,      /* its view went before a frame drew it */
} pick_state;

typedef struct pick {
    pick_state state;
    orr_pick_desc desc;
    orr_viewport rect;      /* target pixels, clipped to the view's rectangle; 0 x 0: nothing of it inside */
    orr_viewport view_rect; /* where the view drew in that frame */
    orr_draw_view camera;   /* the view's camera in that frame (binary64 origin, view, projection) */
    uint64_t number;        /* the renderer frame that drew it */
    uint64_t stats_frame;
    orri_image ids, depth;
    orri_buffer readback;
    orr_pick_hit *hits;
    uint32_t hit_count, hit_capacity;
} pick;

typedef struct orri_picks {
    orr_handle_pool ids;
    pick items[ORR_PICK_MAX_PENDING];
    uint32_t planned;           /* picks the frame being made draws */
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t pipeline_slots;    /* the texture array's size it was made for */
} orri_picks;

/* A pick's images and read-back buffer: no frame in flight uses them when this is called (the frame
 * that drew them has completed, or none was submitted with them). */
static void pick_free_images(orr_renderer *r, pick *p)
{
    orri_image_destroy(r, &p->ids);
    orri_image_destroy(r, &p->depth);
    orri_buffer_destroy(r, &p->readback);
}

static void pick_release(orr_renderer *r, pick *p)
{
    pick_free_images(r, p);
    orri_free(&r->allocator, p->hits, sizeof *p->hits * p->hit_capacity);
    p->hits = NULL;
    p->hit_count = p->hit_capacity = 0;
}

void orri_picks_fini(orr_renderer *r)
{
    orri_picks *ps = r->picks;
    if (!ps) return;
    for (uint32_t i = 0; i < ORR_PICK_MAX_PENDING; i++) pick_release(r, &ps->items[i]);
    if (ps->pipeline) vkDestroyPipeline(r->device, ps->pipeline, NULL);
    if (ps->layout) vkDestroyPipelineLayout(r->device, ps->layout, NULL);
    orr_handle_pool_fini(&ps->ids);
    orri_free(&r->allocator, ps, sizeof *ps);
    r->picks = NULL;
}

/* The id pass's pipeline: the mesh pipelines' vertex input and sets 0 and 1, a 16-byte push constant
 * (the layer mask), depth tested and written (reversed Z), one RGBA32 uint output. Remade when the
 * texture array grows (its size is a specialization constant of the fragment shader). */
static orr_result ensure_pipeline(orr_renderer *r, orri_picks *ps)
{
    if (ps->pipeline && ps->pipeline_slots == r->textures.slots) return ORR_OK;
    if (!ps->layout) {
        VkDescriptorSetLayout sets[2] = {r->set_layout, r->textures.layout};
        VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
        VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 2,
                                         .pSetLayouts = sets, .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
        ORRI_VK(r, vkCreatePipelineLayout(r->device, &li, NULL, &ps->layout));
    }
    if (ps->pipeline) { /* no frame in flight draws picks with it: the one that did was waited for */
        ORRI_VK(r, vkDeviceWaitIdle(r->device));
        vkDestroyPipeline(r->device, ps->pipeline, NULL);
        ps->pipeline = VK_NULL_HANDLE;
        r->objects_epoch++;
    }
    uint32_t slots = r->textures.slots;
    VkSpecializationMapEntry entry = {2, 0, 4};
    VkSpecializationInfo fspec = {1, &entry, 4, &slots};
    /* what pick.vert reads (no normal or tangent: it shades nothing) */
    VkVertexInputAttributeDescription attrs[ORRI_VERTEX_LOCATIONS];
    uint32_t attr_count = orri_vertex_attributes(0x1f9u, attrs);
    VkFormat color = ID_FORMAT;
    VkDynamicState cull = VK_DYNAMIC_STATE_CULL_MODE;
    orri_graphics_desc desc = {
        .stages = {{.stage = VK_SHADER_STAGE_VERTEX_BIT, .code = orri_spv_pick_vert, .size = orri_spv_pick_vert_size},
                   {.stage = VK_SHADER_STAGE_FRAGMENT_BIT,
                    .code = r->textures.array ? orri_spv_pick_array_frag : orri_spv_pick_frag,
                    .size = r->textures.array ? orri_spv_pick_array_frag_size : orri_spv_pick_frag_size,
                    .spec = r->textures.array ? &fspec : NULL}},
        .stage_count = 2,
        .layout = ps->layout,
        .vertex_stride = ORRI_VERTEX_BYTES,
        .attributes = attrs,
        .attribute_count = attr_count,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
        .color_formats = &color,
        .color_count = 1,
        .depth_format = ORRI_DEPTH_FORMAT,
        .depth_test = true,
        .depth_write = true,
        .depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL,
        .cull = VK_CULL_MODE_BACK_BIT,
        .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .dynamic = &cull,
        .dynamic_count = 1,
    };
    ORRI_TRY(orri_graphics_pipeline(r, &desc, &ps->pipeline, "pick pipeline"));
    ps->pipeline_slots = slots;
    return ORR_OK;
}

static const orri_view *live_view(const orr_renderer *r, orr_view_id id)
{
    if (id.index >= r->view_capacity) return NULL;
    const orri_view *v = &r->views[id.index];
    return v->alive && v->generation == id.generation ? v : NULL;
}

/* The part of `a` inside `b` (0 x 0 when none). */
static orr_viewport clip_rect(orr_viewport a, orr_viewport b)
{
    uint64_t x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
    uint64_t ax1 = (uint64_t)a.x + a.width, bx1 = (uint64_t)b.x + b.width;
    uint64_t ay1 = (uint64_t)a.y + a.height, by1 = (uint64_t)b.y + b.height;
    uint64_t x1 = ax1 < bx1 ? ax1 : bx1, y1 = ay1 < by1 ? ay1 : by1;
    if (x1 <= x0 || y1 <= y0) return (orr_viewport){0, 0, 0, 0};
    return (orr_viewport){(uint32_t)x0, (uint32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
}

orr_result orri_picks_plan(orr_renderer *r, const uint32_t *view_order, const orr_draw_view *cameras, uint32_t count)
{
    orri_picks *ps = r->picks;
    if (!ps) return ORR_OK;
    ps->planned = 0;
    for (uint32_t i = 0; i < ORR_PICK_MAX_PENDING; i++) {
        pick *p = &ps->items[i];
        if (p->state == PICK_PLANNED) p->state = PICK_WAITING; /* its frame failed: the next one draws it */
        if (p->state != PICK_WAITING) continue;
        if (!live_view(r, p->desc.view)) {
            p->state = PICK_GONE;
            continue;
        }
        uint32_t k = 0;
        while (k < count && view_order[k] != p->desc.view.index) k++;
        if (k == count) continue; /* not this frame's: its own target's frame draws it */
        const orri_view *v = &r->views[view_order[k]];
        p->view_rect = v->rect;
        p->camera = cameras[k];
        p->rect = clip_rect(p->desc.rect, v->rect);
        if (p->rect.width) {
            if (!ps->pipeline || ps->pipeline_slots != r->textures.slots) ORRI_TRY(ensure_pipeline(r, ps));
            if (!p->ids.image || p->ids.width != p->rect.width || p->ids.height != p->rect.height) {
                pick_free_images(r, p); /* of a frame that failed: never drawn */
                ORRI_TRY(orri_image_create(r, p->rect.width, p->rect.height, ID_FORMAT,
                                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                           VK_IMAGE_ASPECT_COLOR_BIT, "pick ids", &p->ids));
                ORRI_TRY(orri_image_create(r, p->rect.width, p->rect.height, ORRI_DEPTH_FORMAT,
                                           VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                                           "pick depth", &p->depth));
                ORRI_TRY(orri_buffer_create(r, (VkDeviceSize)p->rect.width * p->rect.height * ID_BYTES,
                                            VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, "pick readback", &p->readback));
                r->objects_epoch++;
            }
        }
        p->state = PICK_PLANNED;
        ps->planned++;
    }
    return ORR_OK;
}

bool orri_picks_planned(const orr_renderer *r) { return r->picks && r->picks->planned; }

void orri_picks_record(orr_renderer *r, VkCommandBuffer cmd, orri_frame *f, uint32_t view, uint32_t *draw_calls)
{
    orri_picks *ps = r->picks;
    if (!ps || !ps->planned) return;
    const orri_view *v = &r->views[view];
    for (uint32_t i = 0; i < ORR_PICK_MAX_PENDING; i++) {
        pick *p = &ps->items[i];
        if (p->state != PICK_PLANNED || p->desc.view.index != view || !p->rect.width) continue;
        orri_barrier_image(cmd, p->ids.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
                           VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                           VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
        orri_barrier_image(cmd, p->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
                           VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                           VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                           VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
        VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = p->ids.view,
                                           .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
        VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = p->depth.view,
                                           .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                           .clearValue = {.depthStencil = {0.0f, 0}}};
        VkRect2D area = {{0, 0}, {p->rect.width, p->rect.height}};
        VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = area, .layerCount = 1,
                              .colorAttachmentCount = 1, .pColorAttachments = &color, .pDepthAttachment = &depth};
        vkCmdBeginRendering(cmd, &ri);
        /* the view's viewport, moved so that the rectangle's top left is the image's */
        VkViewport viewport = {(float)v->rect.x - (float)p->rect.x, (float)v->rect.y - (float)p->rect.y,
                               (float)v->rect.width, (float)v->rect.height, 0.0f, 1.0f};
        vkCmdSetViewport(cmd, 0, 1, &viewport);
        vkCmdSetScissor(cmd, 0, 1, &area);
        uint32_t push[4] = {p->desc.layer_mask, 0, 0, 0};
        orr_strategy strategy = v->desc.strategy <= ORR_STRATEGY_INDIRECT ? v->desc.strategy : ORR_STRATEGY_BATCHED;
        orri_scene_draw d = {
            .pipeline = ps->pipeline,
            .layout = ps->layout,
            .push = push,
            .push_size = sizeof push,
            .passes = (1u << ORR_PASS_OPAQUE) | (1u << ORR_PASS_CUTOUT) | (1u << ORR_PASS_TRANSPARENT),
            .cull = -1,
            .strategy = strategy,
        };
        orri_indexed_record_scene(r, cmd, f, v, &d, draw_calls);
        vkCmdEndRendering(cmd);
        orri_barrier_image(cmd, p->ids.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                           VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                           VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        VkBufferImageCopy copy = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                  .imageExtent = {p->rect.width, p->rect.height, 1}};
        vkCmdCopyImageToBuffer(cmd, p->ids.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, p->readback.buffer, 1, &copy);
        orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                            VK_ACCESS_2_HOST_READ_BIT);
    }
}

void orri_picks_submitted(orr_renderer *r, uint64_t number, uint64_t stats_frame)
{
    orri_picks *ps = r->picks;
    if (!ps || !ps->planned) return;
    for (uint32_t i = 0; i < ORR_PICK_MAX_PENDING; i++) {
        pick *p = &ps->items[i];
        if (p->state != PICK_PLANNED) continue;
        p->state = PICK_SUBMITTED;
        p->number = number;
        p->stats_frame = stats_frame;
    }
    ps->planned = 0;
}

/* The mesh primitive whose pool vertices hold `vertex` (one scan of the resident meshes: picks are
 * rare); false when none does (a mesh released since). */
static bool primitive_of(const orr_renderer *r, uint32_t vertex, orr_mesh_id *mesh, uint32_t *primitive)
{
    const orri_geometry *g = &r->geometry;
    for (uint32_t m = 0; m < g->mesh_capacity; m++) {
        const orri_resident_mesh *rm = &g->meshes[m];
        if (!rm->generation) continue;
        for (uint32_t k = 0; k < rm->primitive_count; k++) {
            const orri_resident_primitive *rp = &rm->primitives[k];
            int64_t at = (int64_t)vertex - rp->vertex_offset;
            if (at >= 0 && at < rp->vertex_count) {
                *mesh = (orr_mesh_id){m, rm->generation};
                *primitive = k;
                return true;
            }
        }
    }
    return false;
}

/* The point seen at the centre of pixel x,y at reversed-Z depth `depth`, relative to the view origin:
 * the clip-space point through the inverse projection, then the inverse (rotation-only) view. */
static orr_vec3d unproject(const pick *p, uint32_t x, uint32_t y, float depth)
{
    const orr_viewport *vr = &p->view_rect;
    double ndc_x = 2.0 * ((double)x + 0.5 - vr->x) / vr->width - 1.0;
    double ndc_y = 2.0 * ((double)y + 0.5 - vr->y) / vr->height - 1.0;
    orr_mat4d inv_proj, inv_view;
    if (!orr_mat4d_inverse(&p->camera.proj, &inv_proj) || !orr_mat4d_inverse(&p->camera.view, &inv_view))
        return (orr_vec3d){NAN, NAN, NAN};
    const double *m = inv_proj.m;
    double c[4] = {ndc_x, ndc_y, depth, 1.0}, e[4];
    for (int row = 0; row < 4; row++)
        e[row] = m[0 * 4 + row] * c[0] + m[1 * 4 + row] * c[1] + m[2 * 4 + row] * c[2] + m[3 * 4 + row] * c[3];
    orr_vec3d eye = {e[0] / e[3], e[1] / e[3], e[2] / e[3]};
    return orr_mat4d_transform_point(&inv_view, eye);
}

static int hit_order(const void *a, const void *b)
{
    const orr_pick_hit *x = a, *y = b;
    if (x->depth != y->depth) return x->depth > y->depth ? -1 : 1; /* reversed Z: larger is nearer */
    if (x->y != y->y) return x->y < y->y ? -1 : 1;
    return x->x < y->x ? -1 : x->x > y->x;
}

/* The pick's pixels as hits: per instance slot and primitive, its nearest pixel. */
static void answer(orr_renderer *r, pick *p)
{
    p->state = PICK_DONE;
    uint32_t n = p->rect.width * p->rect.height;
    if (!n || !p->readback.map) return;
    const uint32_t *px = p->readback.map;
    const orri_instances *in = &r->instances;
    orr_pick_hit *hits = NULL;
    uint32_t *slots = NULL; /* per hit: the slot it was found by */
    uint32_t count = 0, capacity = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *id = px + (size_t)i * 4;
        if (!id[0]) continue;
        uint32_t slot = id[0] - 1;
        float depth;
        memcpy(&depth, &id[2], sizeof depth);
        orr_mesh_id mesh = {0, 0};
        uint32_t primitive = 0;
        bool found = primitive_of(r, id[1], &mesh, &primitive);
        uint32_t h = 0;
        while (h < count && !(slots[h] == slot && orr_mesh_id_eq(hits[h].mesh, mesh) && hits[h].primitive == primitive))
            h++;
        if (h == count) {
            if (count == capacity) {
                uint32_t cap = capacity ? capacity * 2 : 8;
                orr_pick_hit *more = orri_alloc(&r->allocator, sizeof *more * cap);
                uint32_t *more_slots = orri_alloc(&r->allocator, sizeof *more_slots * cap);
                if (!more || !more_slots) { /* out of memory: the hits found so far */
                    orri_free(&r->allocator, more, sizeof *more * cap);
                    orri_free(&r->allocator, more_slots, sizeof *more_slots * cap);
                    break;
                }
                if (count) memcpy(more, hits, sizeof *hits * count);
                if (count) memcpy(more_slots, slots, sizeof *slots * count);
                orri_free(&r->allocator, hits, sizeof *hits * capacity);
                orri_free(&r->allocator, slots, sizeof *slots * capacity);
                hits = more, slots = more_slots, capacity = cap;
            }
            count++;
            slots[h] = slot;
            /* the slot's entity, unless a frame after the pick's gave the slot to another */
            bool same = found && slot < in->slots.count && in->slot_since[slot] <= p->number;
            hits[h] = (orr_pick_hit){.depth = -1.0f, .mesh = mesh, .primitive = primitive, .gone = !same,
                                     .entity = same ? in->entity_of_slot[slot] : ORR_ENTITY_NONE,
                                     .instance_id = same ? in->id_of_slot[slot] : UINT32_MAX};
        }
        if (depth > hits[h].depth) {
            hits[h].depth = depth;
            hits[h].x = p->rect.x + i % p->rect.width;
            hits[h].y = p->rect.y + i / p->rect.width;
        }
    }
    for (uint32_t h = 0; h < count; h++) {
        orr_vec3d rel = unproject(p, hits[h].x, hits[h].y, hits[h].depth);
        hits[h].distance = sqrt(rel.x * rel.x + rel.y * rel.y + rel.z * rel.z);
        hits[h].position = (orr_vec3d){p->camera.origin.x + rel.x, p->camera.origin.y + rel.y, p->camera.origin.z + rel.z};
    }
    if (count > 1) qsort(hits, count, sizeof *hits, hit_order);
    orri_free(&r->allocator, slots, sizeof *slots * capacity);
    p->hits = hits;
    p->hit_count = count;
    p->hit_capacity = capacity;
}

void orri_picks_completed(orr_renderer *r, uint64_t number)
{
    orri_picks *ps = r->picks;
    if (!ps) return;
    for (uint32_t i = 0; i < ORR_PICK_MAX_PENDING; i++) {
        pick *p = &ps->items[i];
        if (p->state != PICK_SUBMITTED || p->number != number) continue;
        answer(r, p);
        pick_free_images(r, p); /* its frame has completed */
    }
}

/* ---- the public calls ---- */

static pick *pick_get(orr_renderer *r, orr_pick_id id)
{
    orri_picks *ps = r->picks;
    if (!ps || orr_pick_id_is_none(id) || id.index >= ORR_PICK_MAX_PENDING) return NULL;
    if (!orr_handle_pool_is_alive(&ps->ids, (orr_handle){id.index, id.generation})) return NULL;
    return &ps->items[id.index];
}

orr_result orr_renderer_pick_rect(orr_renderer *r, const orr_pick_desc *desc, orr_pick_id *out)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_pick_rect: renderer is NULL");
    ORRI_REQUIRE(desc && out, &r->error, "orr_renderer_pick_rect: desc and out must not be NULL");
    *out = (orr_pick_id){0, 0};
    if (!live_view(r, desc->view)) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_pick_rect: stale view id");
    orr_pick_desc d = *desc;
    if (!d.rect.width || !d.rect.height) d.rect.width = d.rect.height = 1;
    if ((uint64_t)d.rect.width * d.rect.height > ORR_PICK_MAX_PIXELS)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT,
                             "orr_renderer_pick_rect: a rectangle of %ux%u pixels; ORR_PICK_MAX_PIXELS is %u",
                             d.rect.width, d.rect.height, ORR_PICK_MAX_PIXELS);
    if (!r->picks) {
        orri_picks *ps = orri_alloc(&r->allocator, sizeof *ps);
        if (!ps) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "orr_renderer_pick_rect: out of memory");
        orr_handle_pool_init(&ps->ids, &r->allocator, ORR_PICK_MAX_PENDING);
        r->picks = ps;
    }
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&r->picks->ids, &h);
    if (rc == ORR_ERROR_CAPACITY)
        return orri_gpu_fail(r, rc, "orr_renderer_pick_rect: %u picks unanswered (ORR_PICK_MAX_PENDING): read their "
                             "answers with orr_renderer_pick_result", ORR_PICK_MAX_PENDING);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "orr_renderer_pick_rect: out of memory");
    pick *p = &r->picks->items[h.index];
    *p = (pick){.state = PICK_WAITING, .desc = d};
    *out = (orr_pick_id){h.index, h.generation};
    return ORR_OK;
}

orr_result orr_renderer_pick(orr_renderer *r, orr_view_id view, uint32_t x, uint32_t y, orr_pick_id *out)
{
    return orr_renderer_pick_rect(r, &(orr_pick_desc){.view = view, .rect = {x, y, 1, 1}}, out);
}

orr_result orr_renderer_pick_result(orr_renderer *r, orr_pick_id id, bool wait, orr_pick_result *result,
                                    orr_pick_hit *hits, uint32_t capacity)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_pick_result: renderer is NULL");
    ORRI_REQUIRE(result && (hits || !capacity), &r->error, "orr_renderer_pick_result: result (and hits when capacity "
                                                           "is not 0) must not be NULL");
    *result = (orr_pick_result){0};
    pick *p = pick_get(r, id);
    if (!p) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_pick_result: stale pick id (answered, or never asked)");
    if (p->state == PICK_WAITING && !live_view(r, p->desc.view)) p->state = PICK_GONE;
    if (p->state == PICK_SUBMITTED) {
        orri_frame *f = &r->frames[p->number % ORRI_FRAMES_IN_FLIGHT];
        if (f->frame_number != p->number) { /* its slot moved on: the frame completed */
            orri_picks_completed(r, p->number);
        } else if (f->fence) {
            VkResult st = wait ? vkWaitForFences(r->device, 1, &f->fence, VK_TRUE, UINT64_MAX)
                               : vkGetFenceStatus(r->device, f->fence);
            if (st == VK_SUCCESS) orri_picks_completed(r, p->number);
            else if (st != VK_NOT_READY && st != VK_TIMEOUT)
                return orri_gpu_fail(r, ORR_ERROR_VULKAN, "orr_renderer_pick_result: waiting for the frame failed: %s",
                                     orri_vk_result_name(st));
        }
    }
    if (p->state == PICK_DONE) {
        result->state = ORR_PICK_DONE;
        result->frame = p->stats_frame;
        result->hit_count = p->hit_count;
        for (uint32_t h = 0; h < capacity && h < p->hit_count; h++) hits[h] = p->hits[h];
    } else if (p->state == PICK_GONE) {
        result->state = ORR_PICK_VIEW_GONE;
    } else {
        result->state = ORR_PICK_PENDING;
        return ORR_OK;
    }
    pick_release(r, p);
    p->state = PICK_FREE;
    (void)orr_handle_pool_free(&r->picks->ids, (orr_handle){id.index, id.generation});
    return ORR_OK;
}
