/* Deep subtree clone, within a world or from another one (how a prefab is instantiated). */
#include "world/world_internal.h"

#include <stdlib.h>

typedef struct clone_pair {
    uint32_t src; /* source entity index */
    uint32_t pos; /* position in pre-order */
} clone_pair;

typedef struct clone_map {
    const orr_world *src;
    bool same_world;
    const clone_pair *pairs; /* sorted by src */
    const orr_entity *created; /* by pre-order position */
    uint32_t count;
} clone_map;

static int pair_cmp(const void *a, const void *b)
{
    uint32_t x = ((const clone_pair *)a)->src, y = ((const clone_pair *)b)->src;
    return x < y ? -1 : x > y;
}

static uint32_t find_pos(const clone_map *m, uint32_t src_index)
{
    uint32_t lo = 0, hi = m->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->pairs[mid].src < src_index) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->count && m->pairs[lo].src == src_index ? m->pairs[lo].pos : ORRI_NONE;
}

/* Inside the subtree: its clone. Outside: itself within one world, none across worlds. */
static orr_entity map_entity(void *user, orr_entity e)
{
    const clone_map *m = user;
    if (e.generation != 0 && orri_world_alive(m->src, e)) {
        uint32_t pos = find_pos(m, e.index);
        if (pos != ORRI_NONE) return m->created[pos];
    }
    return m->same_world ? e : ORR_ENTITY_NONE;
}

/* The type in `w` that matches source type `t`: built-ins by id, user types by name (registered in
 * `w` with the source's hooks when missing). */
static orr_result match_type(orr_world *w, const orr_world *src, uint32_t t, uint32_t *out)
{
    if (w == src || t < ORR_COMPONENT_BUILTIN_COUNT) {
        *out = t;
        return ORR_OK;
    }
    const orri_pool *p = &src->pools[t];
    if (!p->name)
        return orri_error(&w->error, ORR_ERROR_UNSUPPORTED,
                          "orr_world_clone: source component type %u has no name, so it cannot be matched across worlds", t);
    if (orr_world_find_component(w, p->name, out) == ORR_OK) {
        if (w->pools[*out].size != p->size)
            return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                              "orr_world_clone: component type '%s' has size %u here and %u in the source world", p->name,
                              w->pools[*out].size, p->size);
        return ORR_OK;
    }
    orr_component_desc d = {.name = p->name, .size = p->size, .alignment = 0, .copy = p->copy, .destroy = p->destroy,
                            .remap = p->remap, .user = p->user, .renderable = p->renderable};
    /* The stride of the source pool is a multiple of the original alignment; reuse it. */
    d.alignment = p->stride % 16 == 0 ? 16 : p->stride % 8 == 0 ? 8 : p->stride % 4 == 0 ? 4 : p->stride % 2 == 0 ? 2 : 1;
    return orr_world_register_component(w, &d, out);
}

orr_result orr_world_clone(orr_world *w, const orr_world *source, orr_entity root, orr_entity parent,
                           const orr_transform *local, orr_entity *out)
{
    ORRI_REQUIRE(w, NULL, "orr_world_clone: world is NULL");
    static const char fn[] = "orr_world_clone";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (out) *out = ORR_ENTITY_NONE;
    const orr_world *src = source ? source : w;
    if (!orri_world_alive(src, root))
        return orri_error(&w->error, ORR_ERROR_STALE_HANDLE, "%s: source root %u:%u is stale", fn, root.index,
                          root.generation);
    if (parent.generation != 0 && !orri_world_alive(w, parent)) return orri_world_stale(w, fn, parent);

    const orr_allocator *a = &w->allocator;
    uint32_t rs = src->slot_of[root.index].slot, k = 0;
    for (uint32_t s = rs; s != ORRI_NONE; s = orri_preorder_next(src, s, rs)) k++;
    if (w->entity_capacity && (uint64_t)w->handles.alive + k > w->entity_capacity)
        return orri_error(&w->error, ORR_ERROR_CAPACITY,
                          "%s: entity_capacity (%u) would be exceeded: %u alive, the subtree has %u", fn,
                          w->entity_capacity, w->handles.alive, k);

    uint32_t *order = orri_alloc(a, (size_t)k * sizeof *order);
    uint32_t *parent_pos = orri_alloc(a, (size_t)k * sizeof *parent_pos);
    clone_pair *pairs = orri_alloc(a, (size_t)k * sizeof *pairs);
    orr_entity *created = orri_alloc(a, (size_t)k * sizeof *created);
    uint32_t *type_map = orri_alloc(a, (size_t)src->pool_count * sizeof *type_map);
    orr_result r = ORR_OK;
    if (!order || !parent_pos || !pairs || !created || !type_map) {
        r = orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
        goto done;
    }
    k = 0;
    for (uint32_t s = rs; s != ORRI_NONE; s = orri_preorder_next(src, s, rs)) {
        order[k] = src->node[s].entity;
        pairs[k] = (clone_pair){src->node[s].entity, k};
        k++;
    }
    qsort(pairs, k, sizeof *pairs, pair_cmp);
    clone_map map = {.src = src, .same_world = src == w, .pairs = pairs, .created = created, .count = k};
    for (uint32_t i = 1; i < k; i++)
        parent_pos[i] = find_pos(&map, src->node[src->node[src->slot_of[order[i]].slot].parent].entity);
    uint32_t src_pools = src->pool_count; /* types registered below for a cross-world clone are not copied */
    for (uint32_t t = 0; t < src_pools && r == ORR_OK; t++) r = match_type(w, src, t, &type_map[t]);
    if (r != ORR_OK) goto done;

    /* Nodes, in pre-order, so that a clone under a node on the rightmost path keeps the table in order. */
    for (uint32_t i = 0; i < k; i++) {
        orr_transform t;
        if (i == 0 && local) t = *local;
        else orri_world_load_local(src, src->slot_of[order[i]].slot, &t);
        orr_entity_desc d = {.parent = i == 0 ? parent : created[parent_pos[i]], .local = &t};
        r = orr_entity_create(w, &d, &created[i]);
        if (r != ORR_OK) goto fail;
    }
    /* Components. The source pointer is fetched after the add, which may move a same-world pool. */
    for (uint32_t t = 0; t < src_pools; t++) {
        const orri_pool *sp = &src->pools[t];
        if (!sp->count) continue;
        for (uint32_t i = 0; i < k; i++) {
            if (!orri_bit(sp->bits, sp->words, order[i])) continue;
            void *dst;
            if (orri_pool_add(w, type_map[t], created[i].index, NULL, &dst) != ORR_OK) {
                r = orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
                goto fail;
            }
            orri_pool *dp = &w->pools[type_map[t]];
            const orri_pool *fp = &src->pools[t];
            const void *from = orri_pool_get(fp, order[i]);
            if (dp->copy) {
                memset(dst, 0, dp->stride);
                dp->copy(dst, from, dp->user);
            } else {
                memcpy(dst, from, dp->size);
            }
            if (dp->tail) { /* built-ins only: the same type in both worlds */
                const orri_block *sb = *orri_tail_of(fp, (void *)from);
                bool ok;
                orri_block *b = sb ? orri_block_make(w, dp->tail, orri_block_items((orri_block *)sb), sb->count, &ok) : NULL;
                if (sb && !ok) {
                    r = orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory copying the %s lists", fn,
                                   orr_world_component_name(w, type_map[t]));
                    goto fail;
                }
                *orri_tail_of(dp, dst) = b;
            }
        }
    }
    /* Entity references. */
    for (uint32_t i = 0; i < k; i++) {
        uint32_t e = created[i].index;
        for (uint32_t t = 0; t < ORR_COMPONENT_BUILTIN_COUNT; t++) { /* joints, animation targets */
            const orri_pool *p = &w->pools[t];
            void *c = p->tail == ORRI_TAIL_ENTITIES ? orri_pool_get(p, e) : NULL;
            orri_block *b = c ? *orri_tail_of(p, c) : NULL;
            orr_entity *list = b ? orri_block_items(b) : NULL;
            for (uint32_t j = 0; b && j < b->count; j++) list[j] = map_entity(&map, list[j]);
        }
        for (uint32_t t = ORR_COMPONENT_BUILTIN_COUNT; t < src_pools; t++) {
            orri_pool *dp = &w->pools[type_map[t]];
            if (!dp->remap) continue;
            void *c = orri_pool_get(dp, e);
            if (c) dp->remap(c, map_entity, &map, dp->user);
        }
    }
    if (out) *out = created[0];
    goto done;
fail:
    if (created[0].generation != 0 && orri_world_alive(w, created[0])) orr_entity_destroy(w, created[0]);
done:
    orri_free(a, order, (size_t)k * sizeof *order);
    orri_free(a, parent_pos, (size_t)k * sizeof *parent_pos);
    orri_free(a, pairs, (size_t)k * sizeof *pairs);
    orri_free(a, created, (size_t)k * sizeof *created);
    orri_free(a, type_map, (size_t)src->pool_count * sizeof *type_map);
    return r;
}
