/* Scene buffers: instance slots with their 80-byte records, the joint palettes and the morph weights;
 * and the end of a frame for everything resident (orri_scene_commit, orri_scene_abort). Each frame first
 * plans (CPU only: what is new, what changed, how many staging bytes that takes), then records the uploads
 * into the frame's command buffer. Only what the snapshot names as changed is planned, unless the frame
 * takes it whole. What a frame uploads of meshes and materials stays marked (pending, dirty) until
 * orri_scene_commit, after the frame's submit; a frame that fails calls orri_scene_abort instead, and
 * the next frame uploads it again (and takes its snapshot whole: see gpu_frame.c). */
#include "gpu/gpu_scene.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_geometry.h"
#include "gpu/gpu_material.h"
#include "gpu/gpu_memory.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_texture.h"
#include "gpu/gpu_upload.h"

#include <math.h>
#include <string.h>

extern const uint32_t orri_spv_scatter_comp[];
extern const size_t orri_spv_scatter_comp_size;
#define COUNT_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
#define NONE UINT32_MAX
#define JOINT_BYTES (3 * 16) /* three vec4 rows */

uint32_t orri_instances_slot(const orr_renderer *r, uint32_t instance_id)
{
    const orri_instances *in = &r->instances;
    uint32_t slot = instance_id < in->id_capacity ? in->slot_of_id[instance_id] & ORRI_SLOT_MASK : 0;
    return slot ? slot - 1 : NONE;
}

static void free_slot(orri_instances *in, uint32_t id)
{
    uint32_t slot = id < in->id_capacity ? in->slot_of_id[id] & ORRI_SLOT_MASK : 0;
    if (!slot) return;
    orr_handle_pool_free(&in->slots, (orr_handle){slot - 1, in->slots.generations[slot - 1]});
    in->slot_of_id[id] = 0;
}

/* The slot of instance `id`, given one (the lowest free) when it has none. */
static orr_result ensure_slot(orr_renderer *r, uint32_t id, uint32_t *out)
{
    orri_instances *in = &r->instances;
    if (id >= in->id_capacity) {
        uint32_t cap = in->id_capacity;
        if (!ORRI_GROW(&r->allocator, in->slot_of_id, cap, id + 1))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance slots");
        in->id_capacity = cap;
    }
    if (in->slot_of_id[id]) {
        *out = (in->slot_of_id[id] & ORRI_SLOT_MASK) - 1;
        return ORR_OK;
    }
    /* The pool hands out a free index below slots.count or slots.count itself: room for that first. */
    const orri_parallel_array arrays[] = {ORRI_PARALLEL_ARRAY(in->id_of_slot), ORRI_PARALLEL_ARRAY(in->slot_index),
                                          ORRI_PARALLEL_ARRAY(in->entity_of_slot), ORRI_PARALLEL_ARRAY(in->slot_since)};
    if (!orri_grow_parallel(r, &in->slot_capacity, in->slots.count + 1, 1024, arrays, COUNT_OF(arrays)))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance slots");
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&in->slots, &h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "no instance slot for instance id %u", id);
    if (h.index >= ORRI_SLOT_MASK) { /* slot + 1 must fit below the handedness bits */
        orr_handle_pool_free(&in->slots, h);
        return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "no instance slot for instance id %u: %u instances at most", id,
                             ORRI_SLOT_MASK);
    }
    in->slot_of_id[id] = (h.index + 1) | 2u << ORRI_SLOT_BITS; /* handedness neither: the first record sets it */
    in->id_of_slot[h.index] = id;
    in->slot_index[h.index] = NONE;
    in->entity_of_slot[h.index] = ORR_ENTITY_NONE;
    in->slot_since[h.index] = r->frame_number + 1; /* the frame being made */
    *out = h.index;
    return ORR_OK;
}

/* Notes the entity the slot's record is about to be written for (what a pick answers), and from
 * which frame: a pick of an earlier frame that finds the slot changed since answers no entity. */
static inline void note_entity(orr_renderer *r, uint32_t slot, orr_entity entity)
{
    orri_instances *in = &r->instances;
    if (orr_entity_eq(in->entity_of_slot[slot], entity)) return;
    in->entity_of_slot[slot] = entity;
    in->slot_since[slot] = r->frame_number + 1;
}

/* Notes the handedness the slot's record is about to get; a flip re-sorts the draws. */
static void note_handedness(orri_instances *in, uint32_t id, const orr_render_instance *src)
{
    uint32_t m = orr_draw_mirrored(src) ? 1u : 0u, had = in->slot_of_id[id] >> ORRI_SLOT_BITS;
    if (had != 2 && had != m) in->flipped = true;
    in->slot_of_id[id] = (in->slot_of_id[id] & ORRI_SLOT_MASK) | m << ORRI_SLOT_BITS;
}

/* What a record is made from (orr_render_instance puts it first): the pose up to the visibility. */
static inline void prefetch_instance(const orr_render_instance *in)
{
    __builtin_prefetch(in);
    __builtin_prefetch((const char *)in + 64);
    __builtin_prefetch((const char *)&in->visible);
}

/* The delta's look-ups (orri_instances_plan), chunk by chunk: out[k] for changed[k] is its snapshot
 * index (NONE: not in the snapshot) and its slot, or NONE where this thread cannot tell it alone (no
 * slot yet, or a record about to turn over), with NOTE set when the slot's entity is not the
 * instance's (note_entity has something to write): only reads, so that the calling thread's pass after
 * it reads nothing at random where the slot's entity stays. `first` ends as the first k the calling
 * thread has something to do for (count: none), the smallest of the chunks' own, so that its pass
 * starts there: the entries before it stand where they are. */
#define NOTE (1u << 31) /* above every slot (ORRI_SLOT_BITS) */
typedef struct find_pass {
    const orr_snapshot *s;
    const orri_instances *in;
    orri_record_upload *out;
    uint32_t count;
    uint32_t first; /* (atomic) */
} find_pass;

static void find_job(void *ctx, uint32_t c)
{
    find_pass *p = ctx;
    const orr_snapshot *s = p->s;
    const orri_instances *in = p->in;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    uint32_t first = p->count;
    for (uint32_t k = from; k < to; k++) {
        /* Scattered ids, so that their misses overlap: their index and slot ORRI_AHEAD x 2 on, then (those
         * arrived) the record ORRI_AHEAD on. */
        if (k + 2 * ORRI_AHEAD < to) {
            uint32_t ahead = s->changed[k + 2 * ORRI_AHEAD];
            if (ahead < s->index_capacity) __builtin_prefetch(&s->index_of[ahead]);
            if (ahead < in->id_capacity) __builtin_prefetch(&in->slot_of_id[ahead]);
        }
        if (k + ORRI_AHEAD < to) {
            uint32_t ahead = s->changed[k + ORRI_AHEAD], i = orr_snapshot_find(s, ahead);
            if (i != NONE) prefetch_instance(&s->instances[i]);
            uint32_t at = ahead < in->id_capacity ? in->slot_of_id[ahead] & ORRI_SLOT_MASK : 0;
            if (at) __builtin_prefetch(&in->entity_of_slot[at - 1]);
        }
        uint32_t id = s->changed[k], i = orr_snapshot_find(s, id), slot = NONE;
        if (i != NONE && id < in->id_capacity && (in->slot_of_id[id] & ORRI_SLOT_MASK) &&
            in->slot_of_id[id] >> ORRI_SLOT_BITS == (orr_draw_mirrored(&s->instances[i]) ? 1u : 0u)) {
            slot = (in->slot_of_id[id] & ORRI_SLOT_MASK) - 1;
            if (!orr_entity_eq(in->entity_of_slot[slot], s->instances[i].entity)) slot |= NOTE;
        }
        p->out[k] = (orri_record_upload){i, slot};
        if ((i == NONE || slot == NONE || (slot & NOTE)) && k < first) first = k;
    }
    for (uint32_t seen = __atomic_load_n(&p->first, __ATOMIC_RELAXED); first < seen;)
        if (__atomic_compare_exchange_n(&p->first, &seen, first, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
}

orr_result orri_instances_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage)
{
    orri_instances *in = &r->instances;
    in->upload_count = 0;
    in->flipped = false;
    /* Room for every slot this frame may hand out; a new buffer holds nothing, so it is filled whole. */
    uint64_t need = (uint64_t)in->slots.count + (whole ? s->instance_count : s->changed_count);
    if (!in->buffer.buffer || in->buffer.size < need * sizeof(orr_gpu_instance)) {
        ORRI_TRY(orri_buffer_ensure(r, &in->buffer, (need + 1024) * sizeof(orr_gpu_instance),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    "instance buffer", NULL));
        ORRI_TRY(orri_buffer_ensure(r, &in->motion, (need + 1024) * sizeof(orr_gpu_motion),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    "motion buffer", NULL));
        whole = true;
    }
    in->tick = orri_motion_tick(s->tick);
    in->upload_all = whole;
    /* Slots of instances that left go first, so that new ones reuse the lowest in the same frame. */
    if (whole) {
        /* Taken whole: the snapshot says nothing of what left, so every slot is looked at (this is the
         * frame that uploads every record anyway). slot_index says which instance each slot holds. */
        for (uint32_t slot = 0; slot < in->slots.count; slot++) in->slot_index[slot] = NONE;
        for (uint32_t i = 0; i < s->instance_count; i++) {
            uint32_t slot = orri_instances_slot(r, s->instances[i].id);
            if (slot != NONE) in->slot_index[slot] = i;
        }
        for (uint32_t slot = 0; slot < in->slots.count; slot++) {
            bool alive = orr_handle_pool_is_alive(&in->slots, (orr_handle){slot, in->slots.generations[slot]});
            if (alive && in->slot_index[slot] == NONE) free_slot(in, in->id_of_slot[slot]);
        }
        for (uint32_t i = 0; i < s->instance_count; i++) {
            uint32_t slot;
            ORRI_TRY(ensure_slot(r, s->instances[i].id, &slot));
            in->slot_index[slot] = i;
            note_entity(r, slot, s->instances[i].entity);
            note_handedness(in, s->instances[i].id, &s->instances[i]);
        }
    } else {
        /* A delta: its removed and changed instances only (found through the snapshot's index_of). */
        for (uint32_t k = 0; k < s->removed_count; k++) free_slot(in, s->removed[k]);
        if (!ORRI_GROW(&r->allocator, in->upload, in->upload_capacity, s->changed_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance uploads");
        /* The look-ups first, in chunks (on several threads when there are enough): each changed id's
         * snapshot index, and its slot where it has one whose handedness stays; then, on this thread and
         * in `changed` order, the rest (new slots, turned records) and the list closed up. */
        find_pass fp = {.s = s, .in = in, .out = in->upload, .count = s->changed_count, .first = s->changed_count};
        orr_workers *workers;
        uint32_t threads = orri_pass_threads(r, s->changed_count, &workers);
        orri_pool_run(workers, threads, (s->changed_count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, find_job, &fp);
        in->upload_count = fp.first; /* (a frame of moves alone: all of them, and no pass here) */
        for (uint32_t k = fp.first; k < s->changed_count; k++) {
            orri_record_upload u = in->upload[k];
            if (u.index == NONE) continue; /* a delta naming an id it does not hold: nothing to draw */
            if (u.slot == NONE) {
                ORRI_TRY(ensure_slot(r, s->changed[k], &u.slot));
                note_handedness(in, s->changed[k], &s->instances[u.index]);
                u.slot |= NOTE;
            }
            if (u.slot & NOTE) { /* what a pick answers (the look-up found the slot's entity unchanged otherwise) */
                u.slot &= ~NOTE;
                note_entity(r, u.slot, s->instances[u.index].entity);
            }
            in->upload[in->upload_count++] = u;
        }
    }
    uint32_t n = in->upload_all ? in->slots.count : in->upload_count;
    *stage += (uint64_t)n * (sizeof(orr_gpu_instance) + sizeof(uint32_t)) + 2 * r->frame_align;
    if (in->upload_all) *stage += (uint64_t)n * sizeof(orr_gpu_motion) + r->frame_align; /* no motion */
    return ORR_OK;
}

/* Built in registers and stored once: `dst` is mapped memory, write-combined on discrete GPUs, where
 * a zeroing pass followed by field stores writes each line twice and in pieces. */
/* Whether the instance's weight range lies in the snapshot's weights (a hand-built snapshot may say
 * otherwise: the mesh's default weights are drawn then). */
static bool has_weights(const orr_render_instance *in, const orr_snapshot *s)
{
    return in->weight_count && s->weights && in->weight_offset <= s->weight_count &&
           in->weight_count <= s->weight_count - in->weight_offset;
}

static void instance_record(const orr_snapshot *s, const orr_render_instance *src, orr_gpu_instance *dst, bool fresh)
{
    orr_gpu_instance rec = {0};
    const double *m = src->world.m;
    for (int k = 0; k < 9; k++) rec.linear[k] = (float)m[k];
    for (int k = 0; k < 3; k++) orr_split_double(m[9 + k], &rec.t_hi[k], &rec.t_lo[k]);
    rec.flags = (orr_draw_mirrored(src) ? ORR_GPU_INSTANCE_MIRRORED : 0u) |
                (src->joint_count ? ORR_GPU_INSTANCE_SKINNED : 0u) | (src->visible ? ORR_GPU_INSTANCE_VISIBLE : 0u) |
                (src->casts_shadows ? ORR_GPU_INSTANCE_CASTS_SHADOWS : 0u) |
                (fresh || (src->reserved[0] & ORR_RENDER_INSTANCE_TELEPORT) ? ORR_GPU_INSTANCE_TELEPORT : 0u);
    rec.layers = src->layers;
    rec.joint_offset = src->joint_offset;
    rec.joint_count = src->joint_count;
    rec.weight_offset = has_weights(src, s) ? src->weight_offset : ORR_GPU_NO_MORPH;
    *dst = rec;
}

/* The records into the frame buffer, chunk by chunk: every slot's (whole), or the changed ones' with
 * their slots. Each chunk writes its own range of the mapped staging. */
typedef struct record_pass {
    const orr_snapshot *s;
    const orri_instances *in;
    uint64_t fresh_from;        /* a slot given out in this frame (slot_since) holds a new instance */
    orr_gpu_instance *staged;
    orr_gpu_motion *motions;    /* whole: every slot's, none */
    uint32_t *slots;
    uint32_t count;
} record_pass;

static void whole_job(void *ctx, uint32_t c)
{
    const record_pass *p = ctx;
    const orri_instances *in = p->in;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    for (uint32_t slot = from; slot < to; slot++) {
        bool alive = orr_handle_pool_is_alive(&in->slots, (orr_handle){slot, in->slots.generations[slot]});
        uint32_t i = alive ? in->slot_index[slot] : NONE;
        if (i == NONE) memset(&p->staged[slot], 0, sizeof p->staged[slot]); /* drawn by nothing */
        else instance_record(p->s, &p->s->instances[i], &p->staged[slot], false);
        p->staged[slot].flags &= ~ORR_GPU_INSTANCE_TELEPORT; /* (copied, not scattered) */
        p->motions[slot] = (orr_gpu_motion){.tick = ORR_GPU_NO_TICK}; /* the frame starts over: no motion */
    }
}

static void changed_job(void *ctx, uint32_t c)
{
    const record_pass *p = ctx;
    const orr_snapshot *s = p->s;
    const orri_record_upload *u = p->in->upload;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    for (uint32_t k = from; k < to; k++) {
        if (k + ORRI_AHEAD < to) {
            prefetch_instance(&s->instances[u[k + ORRI_AHEAD].index]);
            __builtin_prefetch(&p->in->slot_since[u[k + ORRI_AHEAD].slot]);
        }
        p->slots[k] = u[k].slot;
        instance_record(s, &s->instances[u[k].index], &p->staged[k], p->in->slot_since[u[k].slot] >= p->fresh_from);
    }
}

orr_result orri_instances_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up)
{
    orri_instances *in = &r->instances;
    uint32_t n = in->upload_all ? in->slots.count : in->upload_count;
    in->scatter_count = 0;
    if (!n) return ORR_OK;
    VkDeviceSize off = 0;
    ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)n * sizeof(orr_gpu_instance), &off));
    record_pass p = {.s = s, .in = in, .fresh_from = r->frame_number + 1,
                     .staged = (orr_gpu_instance *)((uint8_t *)up->frame->data.map + off), .count = n};
    orr_workers *workers;
    uint32_t threads = orri_pass_threads(r, n, &workers), chunks = (n + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK;
    if (in->upload_all) { /* every slot, in slot order: one copy, and one of no motion */
        VkDeviceSize motions_at = 0;
        ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)n * sizeof(orr_gpu_motion), &motions_at));
        p.motions = (orr_gpu_motion *)((uint8_t *)up->frame->data.map + motions_at);
        orri_pool_run(workers, threads, chunks, whole_job, &p);
        orri_upload_copy(up, off, in->buffer.buffer, 0, (VkDeviceSize)n * sizeof(orr_gpu_instance));
        orri_upload_copy(up, motions_at, in->motion.buffer, 0, (VkDeviceSize)n * sizeof(orr_gpu_motion));
        return ORR_OK;
    }
    /* The changed ones: their slots, then their records, written into place by one dispatch
     * (orri_instances_scatter), where a copy with a region per record costs the GPU a copy each. */
    VkDeviceSize slots_at = 0;
    ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)n * sizeof(uint32_t), &slots_at));
    p.slots = (uint32_t *)((uint8_t *)up->frame->data.map + slots_at);
    orri_pool_run(workers, threads, chunks, changed_job, &p);
    in->scatter_slots = slots_at;
    in->scatter_records = off;
    in->scatter_count = n;
    up->bytes += (uint64_t)n * (sizeof(orr_gpu_instance) + sizeof(uint32_t));
    return ORR_OK;
}

orr_result orri_scene_create_pipelines(orr_renderer *r)
{
    VkDescriptorSetLayoutBinding b[3] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}, /* the frame buffer */
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}, /* the instances */
        {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}, /* their motions */
    };
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 3, .pBindings = b};
    ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &r->scatter_layout));
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 5 * sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                     .pSetLayouts = &r->scatter_layout, .pushConstantRangeCount = 1,
                                     .pPushConstantRanges = &push};
    ORRI_VK(r, vkCreatePipelineLayout(r->device, &pi, NULL, &r->scatter_pipeline_layout));
    return orri_compute_pipelines(r, orri_spv_scatter_comp, orri_spv_scatter_comp_size, r->scatter_pipeline_layout, NULL, 1,
                                  "scatter", &r->pipeline_scatter);
}

orr_result orri_instances_scatter(orr_renderer *r, orri_upload *up)
{
    orri_instances *in = &r->instances;
    if (in->upload_all || !in->scatter_count) return ORR_OK;
    ORRI_TRY(orri_upload_begin(r, up));
    VkCommandBuffer cmd = up->cmd;
    orri_frame *f = up->frame;
    VkDescriptorBufferInfo infos[3] = {{f->data.buffer, 0, VK_WHOLE_SIZE}, {in->buffer.buffer, 0, VK_WHOLE_SIZE},
                                       {in->motion.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[3];
    for (uint32_t i = 0; i < 3; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = f->scatter_set,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[i]};
    vkUpdateDescriptorSets(r->device, 3, w, 0, NULL);
    uint32_t push[5] = {in->scatter_count, (uint32_t)(in->scatter_slots / 4), (uint32_t)(in->scatter_records / 4),
                        in->tick, r->joints.kept ? 1u : 0u};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->pipeline_scatter);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->scatter_pipeline_layout, 0, 1, &f->scatter_set, 0, NULL);
    vkCmdPushConstants(cmd, r->scatter_pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    vkCmdDispatch(cmd, (in->scatter_count + 63) / 64, 1, 1);
    /* the records are in place before the cull and the draws read them */
    orri_barrier_memory(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    return ORR_OK;
}

static bool has_palette(const orr_render_instance *in, const orr_snapshot *s)
{
    return in->joint_count && in->joint_offset != NONE && in->joint_offset <= s->joint_count &&
           in->joint_count <= s->joint_count - in->joint_offset;
}

orr_result orri_joints_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage)
{
    orri_joints *j = &r->joints;
    j->upload_count = 0;
    j->upload_all = whole;
    j->kept = false;
    bool fresh, fresh_before;
    VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    ORRI_TRY(orri_buffer_ensure(r, &j->buffer, (VkDeviceSize)(s->joint_count + 1) * JOINT_BYTES, usage, "joint buffer",
                                &fresh));
    ORRI_TRY(orri_buffer_ensure(r, &j->before, (VkDeviceSize)(s->joint_count + 1) * JOINT_BYTES, usage,
                                "joint motion buffer", &fresh_before));
    if (fresh) j->upload_all = true;
    j->mirror = fresh || fresh_before;
    uint64_t joints = 0;
    if (j->upload_all) {
        joints = s->joint_count;
    } else if (s->joint_count) { /* a snapshot without skins has no ranges to look for */
        const orri_parallel_array arrays[] = {ORRI_PARALLEL_ARRAY(j->upload), ORRI_PARALLEL_ARRAY(j->staged_at),
                                              ORRI_PARALLEL_ARRAY(j->keep)};
        if (!orri_grow_parallel(r, &j->upload_capacity, s->changed_count, 64, arrays, COUNT_OF(arrays)))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for joint uploads");
        for (uint32_t k = 0; k < s->changed_count; k++) {
            uint32_t i = orr_snapshot_find(s, s->changed[k]);
            if (i == NONE || !has_palette(&s->instances[i], s)) continue;
            j->upload[j->upload_count++] = i;
            joints += s->instances[i].joint_count;
        }
    }
    *stage += joints * JOINT_BYTES + r->frame_align;
    return ORR_OK;
}

static void joint_rows(const orr_affine3d *src, uint32_t n, float *rows)
{
    for (uint32_t k = 0; k < n; k++) {
        const double *m = src[k].m;
        for (int row = 0; row < 3; row++)
            for (int c = 0; c < 4; c++) rows[k * 12 + row * 4 + c] = (float)m[c * 3 + row];
    }
}

/* The palettes' rows into the frame buffer, chunk by chunk: JOINT_CHUNK joints of the whole palette
 * array, or ORRI_FRAME_CHUNK of the changed instances' ranges (at the places planned for them). */
#define JOINT_CHUNK 4096u
typedef struct joint_pass {
    const orr_snapshot *s;
    const orri_joints *j;
    uint8_t *map;
    VkDeviceSize at;
    uint32_t count;
} joint_pass;

static void joints_whole_job(void *ctx, uint32_t c)
{
    const joint_pass *p = ctx;
    uint32_t from = c * JOINT_CHUNK, to = p->count - from < JOINT_CHUNK ? p->count : from + JOINT_CHUNK;
    joint_rows(p->s->joints + from, to - from, (float *)(p->map + p->at) + (size_t)from * 12);
}

static void joints_changed_job(void *ctx, uint32_t c)
{
    const joint_pass *p = ctx;
    uint32_t from = c * ORRI_FRAME_CHUNK, to = p->count - from < ORRI_FRAME_CHUNK ? p->count : from + ORRI_FRAME_CHUNK;
    for (uint32_t k = from; k < to; k++) {
        const orr_render_instance *in = &p->s->instances[p->j->upload[k]];
        joint_rows(p->s->joints + in->joint_offset, in->joint_count, (float *)(p->map + p->j->staged_at[k]));
    }
}

/* A new joint buffer or joint motion buffer: the motion buffer becomes a copy of the joints as
 * uploaded, so that a joint motion of an earlier frame blends nothing rather than reading rows that
 * were never written. */
static orr_result joints_mirror(orr_renderer *r, orri_upload *up, const orr_snapshot *s)
{
    orri_joints *j = &r->joints;
    if (!j->mirror || !s->joint_count) return ORR_OK;
    ORRI_TRY(orri_upload_begin(r, up));
    orri_barrier_memory(up->cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    vkCmdCopyBuffer(up->cmd, j->buffer.buffer, j->before.buffer, 1,
                    &(VkBufferCopy){0, 0, (VkDeviceSize)s->joint_count * JOINT_BYTES});
    return ORR_OK;
}

orr_result orri_joints_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up)
{
    orri_joints *j = &r->joints;
    joint_pass p = {.s = s, .j = j, .map = (uint8_t *)up->frame->data.map};
    orr_workers *workers;
    if (j->upload_all) {
        if (!s->joint_count) return ORR_OK;
        ORRI_TRY(orri_frame_alloc(r, up->frame, (VkDeviceSize)s->joint_count * JOINT_BYTES, &p.at));
        p.count = s->joint_count;
        uint32_t threads = orri_pass_threads(r, s->joint_count / 16, &workers);
        orri_pool_run(workers, threads, (p.count + JOINT_CHUNK - 1) / JOINT_CHUNK, joints_whole_job, &p);
        orri_upload_copy(up, p.at, j->buffer.buffer, 0, (VkDeviceSize)s->joint_count * JOINT_BYTES);
        return joints_mirror(r, up, s);
    }
    /* Between ticks: the rows each changed range holds now go to the joint motion buffer first (a GPU
     * copy, read before the uploads below write over them), unless the buffers are new. */
    if (!j->mirror && j->upload_count) {
        ORRI_TRY(orri_upload_begin(r, up));
        for (uint32_t k = 0; k < j->upload_count; k++) {
            const orr_render_instance *in = &s->instances[j->upload[k]];
            VkDeviceSize at = (VkDeviceSize)in->joint_offset * JOINT_BYTES;
            j->keep[k] = (VkBufferCopy){at, at, (VkDeviceSize)in->joint_count * JOINT_BYTES};
        }
        vkCmdCopyBuffer(up->cmd, j->buffer.buffer, j->before.buffer, j->upload_count, j->keep);
        orri_barrier_memory(up->cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                            VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    }
    j->kept = !j->mirror;
    /* Their places and copies on this thread, in order; then the rows, in chunks. */
    uint64_t joints = 0;
    for (uint32_t k = 0; k < j->upload_count; k++) {
        const orr_render_instance *in = &s->instances[j->upload[k]];
        VkDeviceSize bytes = (VkDeviceSize)in->joint_count * JOINT_BYTES;
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &j->staged_at[k]));
        orri_upload_copy(up, j->staged_at[k], j->buffer.buffer, (VkDeviceSize)in->joint_offset * JOINT_BYTES, bytes);
        joints += in->joint_count;
    }
    p.count = j->upload_count;
    uint32_t threads = orri_pass_threads(r, (uint32_t)(joints / 16 < UINT32_MAX ? joints / 16 : UINT32_MAX), &workers);
    orri_pool_run(workers, threads, (p.count + ORRI_FRAME_CHUNK - 1) / ORRI_FRAME_CHUNK, joints_changed_job, &p);
    return joints_mirror(r, up, s);
}

orr_result orri_weights_plan(orr_renderer *r, const orr_snapshot *s, bool whole, uint64_t *stage)
{
    orri_weights *wt = &r->weights;
    wt->upload_count = 0;
    wt->upload_all = whole;
    bool fresh;
    ORRI_TRY(orri_buffer_ensure(r, &wt->buffer, (VkDeviceSize)(s->weight_count + 1) * sizeof(float),
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, "weight buffer",
                                &fresh));
    if (fresh) wt->upload_all = true;
    if (s->weight_count > wt->held_count) { /* the new entries hold nothing yet: NaN compares unequal */
        uint32_t old = wt->held_count;
        if (!ORRI_GROW(&r->allocator, wt->held, wt->held_capacity, s->weight_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for morph weights");
        for (uint32_t k = old; k < s->weight_count; k++) wt->held[k] = NAN;
        wt->held_count = s->weight_count;
    }
    uint64_t floats = 0;
    if (wt->upload_all) {
        floats = s->weight_count;
        if (s->weight_count) memcpy(wt->held, s->weights, (size_t)s->weight_count * sizeof(float));
    } else if (s->weight_count) { /* the changed instances whose weights are not what the buffer holds */
        if (!ORRI_GROW(&r->allocator, wt->upload, wt->upload_capacity, s->changed_count))
            return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for weight uploads");
        for (uint32_t k = 0; k < s->changed_count; k++) {
            uint32_t i = orr_snapshot_find(s, s->changed[k]);
            if (i == NONE || !has_weights(&s->instances[i], s)) continue;
            const orr_render_instance *in = &s->instances[i];
            size_t bytes = (size_t)in->weight_count * sizeof(float);
            if (!memcmp(wt->held + in->weight_offset, s->weights + in->weight_offset, bytes)) continue;
            memcpy(wt->held + in->weight_offset, s->weights + in->weight_offset, bytes);
            wt->upload[wt->upload_count++] = i;
            floats += in->weight_count;
        }
    }
    *stage += floats * sizeof(float) + (uint64_t)wt->upload_count * r->frame_align + r->frame_align;
    return ORR_OK;
}

orr_result orri_weights_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up)
{
    orri_weights *wt = &r->weights;
    if (wt->upload_all) {
        if (!s->weight_count) return ORR_OK;
        VkDeviceSize off = 0, bytes = (VkDeviceSize)s->weight_count * sizeof(float);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        memcpy((uint8_t *)up->frame->data.map + off, s->weights, bytes);
        orri_upload_copy(up, off, wt->buffer.buffer, 0, bytes);
        return ORR_OK;
    }
    for (uint32_t k = 0; k < wt->upload_count; k++) {
        const orr_render_instance *in = &s->instances[wt->upload[k]];
        VkDeviceSize off = 0, bytes = (VkDeviceSize)in->weight_count * sizeof(float);
        ORRI_TRY(orri_frame_alloc(r, up->frame, bytes, &off));
        memcpy((uint8_t *)up->frame->data.map + off, s->weights + in->weight_offset, bytes);
        orri_upload_copy(up, off, wt->buffer.buffer, (VkDeviceSize)in->weight_offset * sizeof(float), bytes);
    }
    return ORR_OK;
}

orr_result orri_scene_reserve_commit(orr_renderer *r)
{
    return orri_garbage_reserve(r, orri_geometry_retirements(r));
}

void orri_scene_commit(orr_renderer *r, uint64_t frame_number)
{
    orri_geometry_commit(r, frame_number); /* cannot fail: orri_scene_reserve_commit made room in the queue */
    orri_materials_commit(r);
}

void orri_scene_abort(orr_renderer *r)
{
    orri_geometry_abort(r);
    /* pending meshes and dirty materials simply stay marked; the records, joints and scenes are
     * redone whole by the next frame */
}

void orri_scene_init(orr_renderer *r)
{
    orr_handle_pool_init(&r->instances.slots, &r->allocator, 0);
}

void orri_scene_release(orr_renderer *r)
{
    uint64_t last = r->frame_number;
    orri_geometry_release(r);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orr_handle_pool_init(&in->slots, &r->allocator, 0);
    if (in->id_capacity) memset(in->slot_of_id, 0, sizeof *in->slot_of_id * in->id_capacity);
    orri_retire_buffer(r, &in->buffer, last);
    orri_retire_buffer(r, &in->motion, last);
    orri_retire_buffer(r, &r->joints.buffer, last);
    orri_retire_buffer(r, &r->joints.before, last);
    orri_retire_buffer(r, &r->weights.buffer, last);
    r->weights.held_count = 0;

    orri_materials_release(r);
    orri_textures_release(r, last);
    r->applied_frame = 0;
}

void orri_scene_fini(orr_renderer *r)
{
    orri_geometry_fini(r);

    orri_instances *in = &r->instances;
    orr_handle_pool_fini(&in->slots);
    orri_free(&r->allocator, in->slot_of_id, sizeof *in->slot_of_id * in->id_capacity);
    orri_free(&r->allocator, in->id_of_slot, sizeof *in->id_of_slot * in->slot_capacity);
    orri_free(&r->allocator, in->slot_index, sizeof *in->slot_index * in->slot_capacity);
    orri_free(&r->allocator, in->entity_of_slot, sizeof *in->entity_of_slot * in->slot_capacity);
    orri_free(&r->allocator, in->slot_since, sizeof *in->slot_since * in->slot_capacity);
    orri_free(&r->allocator, in->upload, sizeof *in->upload * in->upload_capacity);
    orri_buffer_destroy(r, &in->buffer);
    orri_buffer_destroy(r, &in->motion);
    orri_joints *j = &r->joints;
    orri_free(&r->allocator, j->upload, sizeof *j->upload * j->upload_capacity);
    orri_free(&r->allocator, j->staged_at, sizeof *j->staged_at * j->upload_capacity);
    orri_free(&r->allocator, j->keep, sizeof *j->keep * j->upload_capacity);
    orri_buffer_destroy(r, &j->buffer);
    orri_buffer_destroy(r, &j->before);
    orri_weights *wt = &r->weights;
    orri_free(&r->allocator, wt->upload, sizeof *wt->upload * wt->upload_capacity);
    orri_free(&r->allocator, wt->held, sizeof *wt->held * wt->held_capacity);
    orri_buffer_destroy(r, &wt->buffer);
    orri_buffer_destroy(r, &r->capture.buffer);

    orri_materials_fini(r);
}
