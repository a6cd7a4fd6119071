/* The host's techniques: per target a list, checked whole and built at registration (shaders compiled
 * and reflected, attachments resolved, the running order found, pipelines made), then recorded after
 * the target's views each frame with the barriers their reads and writes need. */
#include "gpu/gpu_technique.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_memory.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_technique_build.h"
#include "gpu/gpu_technique_graph.h"
#include "gpu/gpu_technique_mesh.h"

#include <stdio.h>
#include <string.h>

#define TRANSIENT_USAGE                                                                                           \
    (VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |         \
     VK_IMAGE_USAGE_TRANSFER_DST_BIT)
#define STORAGE_USAGE (TRANSIENT_USAGE | VK_IMAGE_USAGE_STORAGE_BIT)

/* ---- lists ----------------------------------------------------------------------------------- */

static void drop_pending(orr_renderer *r, orri_tech *t, int k)
{
    orri_free(&r->allocator, t->pending_glsl[k], t->pending_glsl[k] ? t->pending_size[k] : 0);
    orri_free(&r->allocator, t->pending_spirv[k], t->pending_spirv[k] ? t->pending_size[k] : 0);
    t->pending_glsl[k] = NULL;
    t->pending_spirv[k] = NULL;
    t->pending_size[k] = 0;
}

/* Keeps the SPIR-V a technique was built from (taken over; any NULL). */
static void keep_spirv(orri_tech *t, uint32_t *const spirv[ORRI_TECH_STAGES], const size_t words[ORRI_TECH_STAGES])
{
    for (int k = 0; k < ORRI_TECH_STAGES; k++) t->spirv[k] = spirv[k], t->spirv_words[k] = words[k];
}

/* Destroys what the list holds (the GPU done with it) and frees its ids. */
static void list_clear(orr_renderer *r, orri_tech_list *l)
{
    orri_techniques *ts = r->techniques;
    for (uint32_t i = 0; i < l->count; i++) {
        orri_tech *t = &l->techs[i];
        if (t->pipeline) vkDestroyPipeline(r->device, t->pipeline, NULL);
        if (t->layout) vkDestroyPipelineLayout(r->device, t->layout, NULL);
        if (t->set_layout) vkDestroyDescriptorSetLayout(r->device, t->set_layout, NULL);
        if (t->handle.generation) orr_handle_pool_free(&ts->ids, t->handle);
        for (int k = 0; k < ORRI_TECH_STAGES; k++) {
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
    orri_free(&r->allocator, l->sort, l->sort_words * 4);
    *l = (orri_tech_list){0};
    r->objects_epoch++;
}

/* Lets the GPU finish the frames that recorded the list. */
static void list_wait(orr_renderer *r, orri_tech_list *l)
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
    orri_tech_list *l = orri_technique_list_of(r, target);
    if (!l) return;
    if (!now) list_wait(r, l);
    list_clear(r, l);
}

bool orri_techniques_active(const orr_renderer *r, uint32_t target)
{
    return orri_technique_list_of(r, target) != NULL;
}

bool orri_techniques_replace_view(const orr_renderer *r, uint32_t target, uint32_t view)
{
    const orri_tech_list *l = orri_technique_list_of(r, target);
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
            if (ts->lists[i].res[k].kind == ORRI_RES_DEPTH && ts->lists[i].res[k].view.index == view) return true;
    return false;
}

/* Builds the new list into `l` (zeroed), in running order. */
static orr_result build_list(orr_renderer *r, orri_tech_plan *p, orri_tech_list *l)
{
    l->techs = orri_alloc(&r->allocator, sizeof *l->techs * p->count);
    if (!l->techs) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    l->count = p->count;
    for (uint32_t n = 0; n < p->count; n++) {
        uint32_t i = p->order[n];
        const orr_technique_desc *d = &p->descs[i];
        orri_tech *t = &l->techs[n];
        snprintf(t->name, sizeof t->name, "%s", d->name);
        t->view = d->view;
        t->read_count = d->read_count;
        for (uint32_t k = 0; k < d->read_count; k++) {
            uint32_t x = p->reads[i][k];
            t->producer[k] = p->producer[i][k] == ORRI_TECH_NONE ? ORRI_TECH_NONE : p->run_of[p->producer[i][k]];
            if (p->res[x].kind != ORRI_RES_DEPTH && orri_technique_writes_res(p, i, x)) {
                x = orri_technique_copy_res(p, x);
                t->copies[t->copy_count++] = x;
            }
            t->reads[k] = x;
        }
        t->write_count = d->write_count;
        for (uint32_t w = 0; w < d->write_count; w++) {
            t->writes[w] = p->writes[i][w];
            t->images[w] = t->writes[w];
            if (t->writes[w] == 0 && d->kind == ORR_TECHNIQUE_COMPUTE) /* "color" */
                for (uint32_t x = 0; x < p->res_count; x++)
                    if (p->res[x].kind == ORRI_RES_STORAGE) t->images[w] = x;
            t->load[w] = d->writes[w].load;
            memcpy(t->clear[w], d->writes[w].clear, sizeof t->clear[w]);
        }
        t->push_size = d->push_constant_size;
        t->kind = d->kind;
        t->place = d->place;
        /* where in its view's list: before built-in pass `at`, or (ORR_PASS_COUNT) after the last */
        t->at = d->place == ORR_PLACE_BEFORE_PASS  ? (uint32_t)d->pass
                : d->place == ORR_PLACE_AFTER_VIEW ? ORR_PASS_COUNT
                                                   : 0;
        t->desc = *d; /* its fields, for a reload; the pointers are the caller's: cleared */
        t->desc.name = NULL, t->desc.reads = NULL, t->desc.writes = NULL;
        t->desc.fragment = (orr_shader_desc){0};
        t->desc.scene.vertex = (orr_shader_desc){0};
        t->desc.scene.task = (orr_shader_desc){0};
        t->desc.scene.mesh = (orr_shader_desc){0};
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
            t->order = d->scene.order;
            t->topology = d->scene.topology;
            t->replaces_view = d->scene.replaces_view;
            t->mesh = orri_technique_is_mesh(d);
            t->mesh_dispatch = d->scene.mesh_dispatch;
            memcpy(t->mesh_groups, d->scene.mesh_groups, sizeof t->mesh_groups);
        }
    }
    for (uint32_t n = 0; n < p->count; n++) {
        uint32_t *spirv[ORRI_TECH_STAGES];
        size_t words[ORRI_TECH_STAGES];
        orr_result rc = orri_technique_build(r, p->res, &p->descs[p->order[n]], &l->techs[n], spirv, words);
        keep_spirv(&l->techs[n], spirv, words);
        if (rc != ORR_OK) return rc;
    }
    l->res = orri_alloc(&r->allocator, sizeof *l->res * p->res_count);
    if (!l->res) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(l->res, p->res, sizeof *l->res * p->res_count);
    l->res_count = p->res_count;
    uint32_t sets = 0, samplers = 0, storage = 0;
    for (uint32_t n = 0; n < l->count; n++) {
        const orri_tech *t = &l->techs[n];
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
            sizes[size_count++] =
                (VkDescriptorPoolSize){VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, storage * ORRI_FRAMES_IN_FLIGHT};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                         .maxSets = sets * ORRI_FRAMES_IN_FLIGHT, .poolSizeCount = size_count,
                                         .pPoolSizes = sizes};
        ORRI_VK(r, vkCreateDescriptorPool(r->device, &pi, NULL, &l->pool));
        for (uint32_t n = 0; n < l->count; n++) {
            orri_tech *t = &l->techs[n];
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
        return orri_technique_refuse(r, ORR_ERROR_STALE_HANDLE, "stale target id");
    if (count > ORR_TECHNIQUE_MAX)
        return orri_technique_refuse(r, ORR_ERROR_CAPACITY, "%u techniques; a target has at most %d", count,
                                     ORR_TECHNIQUE_MAX);
    ORRI_TRY(orri_technique_shared(r));
    orri_techniques *ts = r->techniques;
    orri_tech_plan *p = orri_alloc(&r->allocator, sizeof *p);
    if (!p) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
    p->descs = techniques;
    p->count = count;
    orri_tech_list fresh = {.target = target.index, .generation = target.generation};
    orr_result rc = orri_technique_plan(r, target.index, p);
    if (rc == ORR_OK && count) rc = build_list(r, p, &fresh);
    orri_free(&r->allocator, p, sizeof *p);
    /* room for the ids and the list before anything changes */
    uint32_t slot = ORRI_TECH_NONE;
    if (rc == ORR_OK) {
        for (uint32_t i = 0; i < ts->list_count && slot == ORRI_TECH_NONE; i++)
            if (ts->lists[i].count && ts->lists[i].target == target.index) slot = i;
        for (uint32_t i = 0; i < ts->list_count && slot == ORRI_TECH_NONE; i++)
            if (!ts->lists[i].count) slot = i;
        if (slot == ORRI_TECH_NONE && ts->list_count == ts->list_capacity) {
            uint32_t cap = ts->list_capacity ? ts->list_capacity * 2 : 4;
            orri_tech_list *grown = orri_realloc(&r->allocator, ts->lists, sizeof *grown * ts->list_capacity,
                                            sizeof *grown * cap);
            if (!grown) rc = orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
            else {
                memset(grown + ts->list_capacity, 0, sizeof *grown * (cap - ts->list_capacity));
                ts->lists = grown;
                ts->list_capacity = cap;
            }
        }
        if (rc == ORR_OK && slot == ORRI_TECH_NONE) slot = ts->list_count++;
    }
    if (rc != ORR_OK) {
        list_clear(r, &fresh);
        return rc;
    }
    orri_tech_list *old = &ts->lists[slot];
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
            return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
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

static orri_tech *tech_get(orr_renderer *r, orr_technique_id id)
{
    orri_techniques *ts = r->techniques;
    if (!ts || !orr_handle_pool_is_alive(&ts->ids, (orr_handle){id.index, id.generation})) return NULL;
    uint32_t w = ts->where[id.index];
    orri_tech *t = &ts->lists[w >> 8].techs[w & 0xff];
    return t->handle.generation == id.generation ? t : NULL;
}

orr_result orr_renderer_set_technique_data(orr_renderer *r, orr_technique_id id, const void *data, uint32_t size)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_set_technique_data: renderer is NULL");
    orri_tech *t = tech_get(r, id);
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
static orr_result make_transients(orr_renderer *r, orri_tech_list *l, uint32_t width, uint32_t height)
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
    VkMemoryRequirements need[ORRI_TECH_MAX_RES], block_need[ORRI_TECH_MAX_RES];
    uint32_t order[ORRI_TECH_MAX_RES], n = 0;
    for (uint32_t x = 0; x < l->res_count; x++) {
        orri_tech_res *res = &l->res[x];
        if (res->kind != ORRI_RES_TRANSIENT && res->kind != ORRI_RES_COPY && res->kind != ORRI_RES_STORAGE) continue;
        res->first = UINT32_MAX, res->last = 0;
        for (uint32_t p = 0; p < l->count; p++) {
            const orri_tech *t = &l->techs[p];
            bool used = false;
            for (uint32_t k = 0; k < t->read_count; k++) used |= t->reads[k] == x;
            for (uint32_t w = 0; w < t->write_count; w++) used |= t->writes[w] == x || t->images[w] == x;
            for (uint32_t c = 0; c < t->copy_count; c++) used |= t->copies[c] == x || l->res[t->copies[c]].source == x;
            if (!used) continue;
            if (res->first == UINT32_MAX) res->first = p;
            res->last = p;
        }
        uint32_t w = (width + res->divisor - 1) / res->divisor, h = (height + res->divisor - 1) / res->divisor;
        orri_image_requirements(r,
                                &(orri_image_desc){.width = w,
                                                   .height = h,
                                                   .format = res->vk_format,
                                                   .usage = res->storage ? STORAGE_USAGE : TRANSIENT_USAGE,
                                                   .aspect = VK_IMAGE_ASPECT_COLOR_BIT},
                                &need[x]);
        res->bytes = need[x].size;
        l->bytes_unshared += need[x].size;
        uint32_t k = n++; /* by first use */
        while (k > 0 && l->res[order[k - 1]].first > res->first) order[k] = order[k - 1], k--;
        order[k] = x;
    }
    for (uint32_t i = 0; i < n; i++) {
        orri_tech_res *res = &l->res[order[i]];
        uint32_t b = 0;
        for (; b < l->block_count; b++) {
            if (!(block_need[b].memoryTypeBits & need[order[i]].memoryTypeBits)) continue;
            bool apart = true;
            for (uint32_t j = 0; j < i && apart; j++) {
                const orri_tech_res *o = &l->res[order[j]];
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
        orri_tech_res *res = &l->res[order[i]];
        uint32_t w = (width + res->divisor - 1) / res->divisor, h = (height + res->divisor - 1) / res->divisor;
        ORRI_TRY(orri_image_create_desc(
            r,
            &(orri_image_desc){.width = w,
                               .height = h,
                               .format = res->vk_format,
                               .usage = res->storage ? STORAGE_USAGE : TRANSIENT_USAGE,
                               .aspect = VK_IMAGE_ASPECT_COLOR_BIT,
                               .what = res->kind == ORRI_RES_COPY      ? "technique copy"
                                       : res->kind == ORRI_RES_STORAGE ? "technique colour storage"
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


/* Whether a reload's shader can be taken (checked for every given stage before any is taken). */
static orr_result check_pending(orr_renderer *r, const char *fn, const orri_tech *t, const orr_shader_desc *sh)
{
    if (!sh->glsl == !sh->spirv)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s': a shader is GLSL or SPIR-V (one of "
                             "the two)", fn, t->name);
    if (sh->spirv && (sh->spirv_size < 20 || sh->spirv_size % 4))
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s': spirv_size %zu is not a whole number "
                             "of SPIR-V words", fn, t->name, sh->spirv_size);
    return ORR_OK;
}

/* The copy of a checked reload shader's bytes (NULL: out of memory), its size in *size. */
static void *copy_pending(orr_renderer *r, const orr_shader_desc *sh, size_t *size)
{
    *size = sh->glsl ? strlen(sh->glsl) + 1 : sh->spirv_size;
    void *copy = orri_alloc(&r->allocator, *size);
    if (copy) memcpy(copy, sh->glsl ? (const void *)sh->glsl : (const void *)sh->spirv, *size);
    return copy;
}

/* Takes a copy into the technique's pending slot k (dropping what was pending there). */
static void take_pending(orr_renderer *r, orri_tech *t, int k, const orr_shader_desc *sh, void *copy, size_t size)
{
    drop_pending(r, t, k);
    if (sh->glsl) t->pending_glsl[k] = copy;
    else t->pending_spirv[k] = copy;
    t->pending_size[k] = size;
    snprintf(t->pending_name[k], sizeof t->pending_name[k], "%s", sh->name ? sh->name : t->name);
}

/* A reload of the stages in `stages` (by slot; NULL or zeroed: kept), refused whole when the technique
 * has no such stage. */
static orr_result reload_stages(orr_renderer *r, const char *fn, orr_technique_id id,
                                const orr_shader_desc *const stages[ORRI_TECH_STAGES], bool mesh)
{
    ORRI_REQUIRE(r, NULL, "%s: renderer is NULL", fn);
    orri_tech *t = tech_get(r, id);
    if (!t) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "%s: stale technique id", fn);
    bool has[ORRI_TECH_STAGES], any = false;
    for (int k = 0; k < ORRI_TECH_STAGES; k++) has[k] = stages[k] && (stages[k]->glsl || stages[k]->spirv);
    if (has[ORRI_TECH_FRAGMENT] && !t->spirv[ORRI_TECH_FRAGMENT])
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s' is depth only: it has no fragment "
                             "shader to reload (set the list again)", fn, t->name);
    if (has[ORRI_TECH_VERTEX] && t->mesh != mesh)
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s' %s (set the list again, or reload "
                             "it with %s)", fn, t->name, t->mesh ? "is a mesh technique: it has no vertex shader"
                                                                 : "has no mesh shader",
                             t->mesh ? "orr_renderer_reload_technique_mesh" : "orr_renderer_reload_technique");
    if (has[ORRI_TECH_VERTEX] && !t->spirv[ORRI_TECH_VERTEX])
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s' draws with the library's vertex "
                             "stage: it has no vertex shader to reload (set the list again)", fn, t->name);
    if (has[ORRI_TECH_TASK] && !t->spirv[ORRI_TECH_TASK])
        return orri_gpu_fail(r, ORR_ERROR_INVALID_ARGUMENT, "%s: technique '%s' has no task shader to reload (set "
                             "the list again)", fn, t->name);
    /* all or nothing: every given stage checked and copied before any is taken */
    for (int k = 0; k < ORRI_TECH_STAGES; k++)
        if (has[k]) ORRI_TRY(check_pending(r, fn, t, stages[k]));
    void *copies[ORRI_TECH_STAGES] = {0};
    size_t sizes[ORRI_TECH_STAGES] = {0};
    for (int k = 0; k < ORRI_TECH_STAGES; k++) {
        if (!has[k]) continue;
        copies[k] = copy_pending(r, stages[k], &sizes[k]);
        if (copies[k]) continue;
        for (int j = 0; j < k; j++) orri_free(&r->allocator, copies[j], sizes[j]);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    for (int k = 0; k < ORRI_TECH_STAGES; k++) {
        if (!has[k]) continue;
        take_pending(r, t, k, stages[k], copies[k], sizes[k]);
        any = true;
    }
    if (any) {
        t->pending = true;
        t->reload = ORR_RELOAD_PENDING;
        t->reload_message[0] = '\0';
    }
    return ORR_OK;
}

orr_result orr_renderer_reload_technique(orr_renderer *r, orr_technique_id id, const orr_shader_desc *fragment,
                                         const orr_shader_desc *vertex)
{
    const orr_shader_desc *stages[ORRI_TECH_STAGES] = {[ORRI_TECH_VERTEX] = vertex, [ORRI_TECH_FRAGMENT] = fragment};
    return reload_stages(r, "orr_renderer_reload_technique", id, stages, false);
}

orr_result orr_renderer_reload_technique_mesh(orr_renderer *r, orr_technique_id id, const orr_shader_desc *fragment,
                                              const orr_shader_desc *task, const orr_shader_desc *mesh)
{
    const orr_shader_desc *stages[ORRI_TECH_STAGES] = {[ORRI_TECH_VERTEX] = mesh, [ORRI_TECH_FRAGMENT] = fragment,
                                                       [ORRI_TECH_TASK] = task};
    return reload_stages(r, "orr_renderer_reload_technique_mesh", id, stages, true);
}

orr_reload_state orr_renderer_technique_reload_state(orr_renderer *r, orr_technique_id id, char *message, size_t size)
{
    if (message && size) message[0] = '\0';
    orri_tech *t = r ? tech_get(r, id) : NULL;
    if (!t) return ORR_RELOAD_NONE;
    if (message && size) snprintf(message, size, "%s", t->reload_message);
    return t->reload;
}

/* Builds technique n's pending shaders into a new pipeline (its layouts stay: same reads, same host
 * data), or keeps the old one and says why. The renderer's last error is left as it was: the frame
 * goes on either way. */
static void reload_one(orr_renderer *r, orri_tech_list *l, orri_tech *t)
{
    orr_error saved = r->error;
    orr_technique_desc d = t->desc;
    d.name = t->name;
    const char *reads[ORR_TECHNIQUE_MAX_READS];
    for (uint32_t k = 0; k < t->read_count; k++) {
        const orri_tech_res *x = &l->res[t->reads[k]];
        reads[k] = x->kind == ORRI_RES_COPY ? l->res[x->source].name : x->name;
    }
    orr_technique_write writes[ORR_TECHNIQUE_MAX_WRITES];
    for (uint32_t w = 0; w < t->write_count; w++)
        writes[w] = (orr_technique_write){.name = l->res[t->writes[w]].name, .format = l->res[t->writes[w]].format};
    d.reads = reads;
    d.writes = writes;
    orr_shader_desc *stage[ORRI_TECH_STAGES] = {
        [ORRI_TECH_VERTEX] = t->mesh ? &d.scene.mesh : &d.scene.vertex,
        [ORRI_TECH_FRAGMENT] = t->kind == ORR_TECHNIQUE_COMPUTE ? &d.compute.shader : &d.fragment,
        [ORRI_TECH_TASK] = &d.scene.task};
    for (int k = 0; k < ORRI_TECH_STAGES; k++) {
        if (t->pending_glsl[k]) *stage[k] = (orr_shader_desc){.glsl = t->pending_glsl[k], .name = t->pending_name[k]};
        else if (t->pending_spirv[k])
            *stage[k] = (orr_shader_desc){.spirv = t->pending_spirv[k], .spirv_size = t->pending_size[k],
                                          .name = t->pending_name[k]};
        else if (t->spirv[k]) *stage[k] = (orr_shader_desc){.spirv = t->spirv[k], .spirv_size = t->spirv_words[k] * 4};
    }
    orri_tech fresh = *t;
    fresh.pipeline = VK_NULL_HANDLE;
    uint32_t *spirv[ORRI_TECH_STAGES];
    size_t words[ORRI_TECH_STAGES];
    orr_result rc = orri_technique_build(r, l->res, &d, &fresh, spirv, words);
    for (int k = 0; k < ORRI_TECH_STAGES; k++) drop_pending(r, t, k);
    t->pending = false;
    if (rc != ORR_OK) {
        const char *msg = r->error.message, *prefix = "orr_renderer_set_techniques: ";
        if (!strncmp(msg, prefix, strlen(prefix))) msg += strlen(prefix);
        snprintf(t->reload_message, sizeof t->reload_message, "%s", msg);
        t->reload = ORR_RELOAD_FAILED;
        orri_log(&r->logger, ORR_LOG_WARNING, "gpu: reload of technique '%s' failed, its old shaders stay: %s",
                 t->name, t->reload_message);
        if (fresh.pipeline) vkDestroyPipeline(r->device, fresh.pipeline, NULL);
        for (int k = 0; k < ORRI_TECH_STAGES; k++) orri_free(&r->allocator, spirv[k], words[k] * 4);
        r->error = saved;
        return;
    }
    list_wait(r, l); /* the frames in flight drew with the old pipeline */
    vkDestroyPipeline(r->device, t->pipeline, NULL);
    t->pipeline = fresh.pipeline;
    memcpy(t->local, fresh.local, sizeof t->local); /* a compute shader's new local size */
    for (int k = 0; k < ORRI_TECH_STAGES; k++) orri_free(&r->allocator, t->spirv[k], t->spirv_words[k] * 4);
    /* the library's vertex stage stays the library's: spirv[ORRI_TECH_VERTEX] is NULL then */
    keep_spirv(t, spirv, words);
    t->reload = ORR_RELOAD_DONE;
    r->objects_epoch++;
    r->error = saved;
}

/* ---- a frame --------------------------------------------------------------------------------- */

orr_result orri_techniques_prepare(orr_renderer *r, uint32_t target)
{
    orri_tech_list *l = orri_technique_list_of(r, target);
    if (!l) return ORR_OK;
    for (uint32_t n = 0; n < l->count; n++)
        if (l->techs[n].pending) reload_one(r, l, &l->techs[n]);
    const orri_target *t = &r->targets[target];
    if (l->width == t->desc.width && l->height == t->desc.height) return ORR_OK;
    return make_transients(r, l, t->desc.width, t->desc.height);
}
