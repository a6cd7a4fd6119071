/* Component pools (sparse sets with a presence bitset), built-in and user types, and queries. */
#include "world/world_internal.h"

/* ---- defaults ---------------------------------------------------------------------------- */

orr_mesh_renderer orr_mesh_renderer_default(void)
{
    return (orr_mesh_renderer){.layers = 1, .visible = true, .casts_shadows = true};
}

orr_light orr_light_default(void)
{
    return (orr_light){.type = ORR_LIGHT_POINT,
                       .color = {1, 1, 1},
                       .intensity = 1,
                       .outer_cone = (float)(ORR_PI / 4),
                       .enabled = true,
                       .casts_shadows = true};
}

orr_camera orr_camera_default(void)
{
    return (orr_camera){.projection = ORR_PERSPECTIVE, .yfov = 0.8, .xmag = 1, .ymag = 1, .znear = 0.05};
}

orr_animation_player orr_animation_player_default(void) { return (orr_animation_player){.loop = true, .speed = 1}; }

bool orri_component_renderable_builtin(uint32_t type)
{
    return type == ORR_COMPONENT_MESH_RENDERER || type == ORR_COMPONENT_SKINNED_MESH || type == ORR_COMPONENT_LIGHT ||
           type == ORR_COMPONENT_CAMERA || type == ORR_COMPONENT_FUR || type == ORR_COMPONENT_MORPH_WEIGHTS;
}

/* Writes the default value of a component of `type` into `dst` (zero for user types). */
static void default_value(uint32_t type, void *dst, uint32_t size)
{
    switch (type) {
    case ORR_COMPONENT_MESH_RENDERER: *(orr_mesh_renderer *)dst = orr_mesh_renderer_default(); break;
    case ORR_COMPONENT_LIGHT: *(orr_light *)dst = orr_light_default(); break;
    case ORR_COMPONENT_CAMERA: *(orr_camera *)dst = orr_camera_default(); break;
    case ORR_COMPONENT_ANIMATION_PLAYER: *(orr_animation_player *)dst = orr_animation_player_default(); break;
    default: memset(dst, 0, size); break;
    }
}

/* ---- registration ------------------------------------------------------------------------ */

static orr_result add_pool(orr_world *w, const orr_component_desc *d, orri_tail_kind tail, uint32_t *out)
{
    if (!ORRI_GROW(&w->allocator, w->pools, w->pool_cap, w->pool_count + 1)) return ORR_ERROR_OUT_OF_MEMORY;
    uint32_t align = d->alignment ? d->alignment : 8;
    if (tail && align < 8) align = 8; /* the tail pointer */
    orri_pool p = {0};
    p.name = d->name ? orri_strdup(&w->allocator, d->name) : NULL;
    if (d->name && !p.name) return ORR_ERROR_OUT_OF_MEMORY;
    p.size = d->size;
    p.stride = (d->size + align - 1) / align * align;
    p.tail = tail;
    p.tail_offset = ORRI_NONE;
    if (tail) {
        p.tail_offset = p.stride;
        p.stride += (uint32_t)sizeof(orri_block *);
    }
    p.copy = d->copy;
    p.destroy = d->destroy;
    p.remap = d->remap;
    p.user = d->user;
    p.renderable = d->renderable;
    w->pools[w->pool_count] = p;
    *out = w->pool_count++;
    return ORR_OK;
}

orr_result orri_world_register_builtins(orr_world *w)
{
    static const struct {
        const char *name;
        uint32_t size, align;
        orri_tail_kind tail;
    } b[ORR_COMPONENT_BUILTIN_COUNT] = {
        {"Name", 0, 8, ORRI_TAIL_TEXT}, /* nothing but its text */
        {"MeshRenderer", sizeof(orr_mesh_renderer), 4, ORRI_TAIL_IDS},
        {"SkinnedMesh", sizeof(orr_skinned_mesh), 4, ORRI_TAIL_ENTITIES},
        {"Light", sizeof(orr_light), 4, ORRI_TAIL_NONE},
        {"Camera", sizeof(orr_camera), 8, ORRI_TAIL_NONE},
        {"AnimationPlayer", sizeof(orr_animation_player), 8, ORRI_TAIL_ENTITIES},
        {"Fur", sizeof(orr_fur_instance), 4, ORRI_TAIL_NONE},
        {"MorphWeights", 0, 8, ORRI_TAIL_FLOATS}, /* nothing but its weights */
    };
    for (uint32_t i = 0; i < ORR_COMPONENT_BUILTIN_COUNT; i++) {
        orr_component_desc d = {.name = b[i].name, .size = b[i].size, .alignment = b[i].align,
                                .renderable = orri_component_renderable_builtin(i)};
        uint32_t id;
        orr_result r = add_pool(w, &d, b[i].tail, &id);
        if (r != ORR_OK) return r;
    }
    return ORR_OK;
}

void orri_world_pools_fini(orr_world *w)
{
    const orr_allocator *a = &w->allocator;
    for (uint32_t t = 0; t < w->pool_count; t++) {
        orri_pool *p = &w->pools[t];
        if (p->destroy)
            for (uint32_t i = 0; i < p->count; i++) p->destroy(p->data + (size_t)i * p->stride, p->user);
        if (p->tail)
            for (uint32_t i = 0; i < p->count; i++)
                orri_block_free(w, p->tail, *orri_tail_of(p, p->data + (size_t)i * p->stride));
        orri_strfree(a, p->name);
        orri_free(a, p->data, (size_t)p->capacity * p->stride);
        orri_free(a, p->entities, (size_t)p->entities_capacity * sizeof(uint32_t));
        orri_free(a, p->bits, (size_t)p->words * 8);
        orri_free(a, p->dirty, (size_t)p->dirty_words * 8);
        orri_paged_fini(a, &p->sparse);
    }
    orri_free(a, w->pools, (size_t)w->pool_cap * sizeof(orri_pool));
    w->pools = NULL;
    w->pool_count = w->pool_cap = 0;
}

orr_result orr_world_register_component(orr_world *w, const orr_component_desc *desc, orr_component_type *out)
{
    ORRI_REQUIRE(w, NULL, "orr_world_register_component: world is NULL");
    static const char fn[] = "orr_world_register_component";
    if (!desc || desc->size == 0 || desc->size > (1u << 24))
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: desc->size must be within 1..16 MiB", fn);
    uint32_t al = desc->alignment;
    if (al > 16 || (al & (al - 1)) != 0)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                          "%s: desc->alignment %u is not a power of two up to 16", fn, al);
    if (desc->name) {
        orr_component_type existing;
        if (orr_world_find_component(w, desc->name, &existing) == ORR_OK)
            return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: a component type named '%s' exists (id %u)",
                              fn, desc->name, existing);
    }
    uint32_t id;
    if (add_pool(w, desc, ORRI_TAIL_NONE, &id) != ORR_OK) return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    if (out) *out = id;
    return ORR_OK;
}

orr_result orr_world_find_component(const orr_world *w, const char *name, orr_component_type *out)
{
    ORRI_REQUIRE(w, NULL, "orr_world_find_component: world is NULL");
    for (uint32_t t = 0; name && t < w->pool_count; t++) {
        if (w->pools[t].name && !strcmp(w->pools[t].name, name)) {
            if (out) *out = t;
            return ORR_OK;
        }
    }
    return ORR_ERROR_NOT_FOUND;
}

const char *orr_world_component_name(const orr_world *w, orr_component_type type)
{
    if (type >= w->pool_count || !w->pools[type].name) return "";
    return w->pools[type].name;
}

uint32_t orr_world_component_count(const orr_world *w, orr_component_type type)
{
    return type < w->pool_count ? w->pools[type].count : 0;
}

/* ---- pool operations --------------------------------------------------------------------- */

static bool cover_bits(const orr_allocator *a, uint64_t **bits, uint32_t *words, uint32_t index)
{
    return orri_grow(a, (void **)bits, words, (index >> 6) + 1, sizeof(uint64_t));
}

/* Rewrites the dense arrays in ascending entity order, so that queries read them sequentially. */
static void pool_reorder(orr_world *w, orri_pool *p)
{
    const orr_allocator *a = &w->allocator;
    uint8_t *data = a->realloc(a->user, NULL, 0, (size_t)p->capacity * p->stride);
    uint32_t *ents = a->realloc(a->user, NULL, 0, (size_t)p->capacity * sizeof(uint32_t));
    if (!data || !ents) {
        orri_free(a, data, (size_t)p->capacity * p->stride);
        orri_free(a, ents, (size_t)p->capacity * sizeof(uint32_t));
        return;
    }
    uint32_t k = 0;
    for (uint32_t wi = 0; wi < p->words; wi++) {
        for (uint64_t m = p->bits[wi]; m; m &= m - 1) {
            uint32_t e = wi * 64 + (uint32_t)__builtin_ctzll(m);
            uint32_t old = orri_paged_get(&p->sparse, e);
            memcpy(data + (size_t)k * p->stride, p->data + (size_t)old * p->stride, p->stride);
            ents[k] = e;
            orri_paged_set(a, &p->sparse, e, k); /* page exists */
            k++;
        }
    }
    orri_free(a, p->data, (size_t)p->capacity * p->stride);
    orri_free(a, p->entities, (size_t)p->entities_capacity * sizeof(uint32_t));
    p->data = data;
    p->entities = ents;
    p->entities_capacity = p->capacity;
    p->disorder = 0;
}

static void maybe_reorder(orr_world *w, orri_pool *p)
{
    if (p->count >= 1024 && p->disorder > p->count / 4) pool_reorder(w, p);
}

/* What extraction reads goes into the change log: edits of renderable components, and names (adding or
 * removing a renderable component is a structural change, which the log does not list). */
static void log_component_change(orr_world *w, uint32_t type, uint32_t e)
{
    if (!w->pools[type].renderable && type != ORR_COMPONENT_NAME) return;
    uint32_t s = e < w->slot_of_cap ? w->slot_of[e].slot : ORRI_NONE;
    if (s != ORRI_NONE) orri_world_log(w, s, ORRI_NODE_EDITED);
}

orr_result orri_pool_add(orr_world *w, uint32_t type, uint32_t e, const void *init, void **out)
{
    orri_pool *p = &w->pools[type];
    const orr_allocator *a = &w->allocator;
    uint32_t i = p->count;
    if (i >= p->capacity || i >= p->entities_capacity || (e >> 6) >= p->words || (e >> 6) >= p->dirty_words) {
        uint32_t cap = p->capacity;
        if (!orri_world_grow_raw(a, (void **)&p->data, &cap, i + 1, p->stride)) return ORR_ERROR_OUT_OF_MEMORY;
        p->capacity = cap;
        if (!ORRI_GROW_RAW(a, p->entities, p->entities_capacity, i + 1) || !cover_bits(a, &p->bits, &p->words, e) ||
            !cover_bits(a, &p->dirty, &p->dirty_words, e))
            return ORR_ERROR_OUT_OF_MEMORY;
    }
    if (!orri_paged_set(a, &p->sparse, e, i)) return ORR_ERROR_OUT_OF_MEMORY;
    void *dst = p->data + (size_t)i * p->stride;
    if (init) {
        if (p->copy) {
            memset(dst, 0, p->stride);
            p->copy(dst, init, p->user);
        } else {
            memcpy(dst, init, p->size);
        }
    } else {
        default_value(type, dst, p->size);
    }
    if (p->tail) *orri_tail_of(p, dst) = NULL; /* lists start empty; init's struct has no tail */
    if (i > 0 && p->entities[i - 1] > e) p->disorder++;
    p->entities[i] = e;
    p->count++;
    p->bits[e >> 6] |= 1ull << (e & 63);
    p->dirty[e >> 6] |= 1ull << (e & 63);
    if (p->renderable) {
        w->structure_version++;
        w->revision++;
    }
    log_component_change(w, type, e);
    maybe_reorder(w, p);
    if (out) *out = orri_pool_get(p, e);
    return ORR_OK;
}

static void pool_remove(orr_world *w, uint32_t type, uint32_t e)
{
    orri_pool *p = &w->pools[type];
    uint32_t i = orri_paged_get(&p->sparse, e);
    if (p->destroy) p->destroy(p->data + (size_t)i * p->stride, p->user);
    if (p->tail) orri_block_free(w, p->tail, *orri_tail_of(p, p->data + (size_t)i * p->stride));
    uint32_t last = --p->count;
    if (i != last) {
        memcpy(p->data + (size_t)i * p->stride, p->data + (size_t)last * p->stride, p->stride);
        p->entities[i] = p->entities[last];
        orri_paged_set(&w->allocator, &p->sparse, p->entities[i], i);
        p->disorder++;
    }
    orri_paged_set(&w->allocator, &p->sparse, e, ORRI_NONE);
    p->bits[e >> 6] &= ~(1ull << (e & 63));
    p->dirty[e >> 6] &= ~(1ull << (e & 63));
    if (p->renderable) {
        w->structure_version++;
        w->revision++;
    }
    log_component_change(w, type, e);
    maybe_reorder(w, p);
}

void orri_world_remove_all_components(orr_world *w, uint32_t e)
{
    for (uint32_t t = 0; t < w->pool_count; t++)
        if (orri_bit(w->pools[t].bits, w->pools[t].words, e)) pool_remove(w, t, e);
}

orr_result orr_component_reserve(orr_world *w, orr_component_type type, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_component_reserve: world is NULL");
    static const char fn[] = "orr_component_reserve";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (type >= w->pool_count)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: component type %u is not registered", fn, type);
    orri_pool *p = &w->pools[type];
    const orr_allocator *a = &w->allocator;
    uint32_t cover = count > w->handles.capacity ? count : w->handles.capacity;
    uint32_t words = (uint32_t)(((uint64_t)cover + 63) / 64);
    uint32_t cap = p->capacity;
    bool ok = orri_world_reserve_raw(a, (void **)&p->data, &cap, count, p->stride, 0);
    p->capacity = cap;
    ok = ok && orri_world_reserve_raw(a, (void **)&p->entities, &p->entities_capacity, count, sizeof(uint32_t), 0) &&
         orri_world_reserve_raw(a, (void **)&p->bits, &p->words, words, sizeof(uint64_t), 0) &&
         orri_world_reserve_raw(a, (void **)&p->dirty, &p->dirty_words, words, sizeof(uint64_t), 0) &&
         orri_paged_reserve(a, &p->sparse, cover);
    if (!ok)
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory reserving %u %s components", fn,
                          count, orr_world_component_name(w, type));
    return ORR_OK;
}

/* ---- public component access ------------------------------------------------------------- */

orr_result orr_component_add(orr_world *w, orr_entity e, orr_component_type type, const void *init, void **out)
{
    ORRI_REQUIRE(w, NULL, "orr_component_add: world is NULL");
    static const char fn[] = "orr_component_add";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (out) *out = NULL;
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    if (type >= w->pool_count)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: component type %u is not registered", fn, type);
    orri_pool *p = &w->pools[type];
    if (orri_bit(p->bits, p->words, e.index))
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: entity %u:%u already has a %s component", fn,
                          e.index, e.generation, orr_world_component_name(w, type));
    if (orri_pool_add(w, type, e.index, init, out) != ORR_OK)
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    return ORR_OK;
}

orr_result orr_component_remove(orr_world *w, orr_entity e, orr_component_type type)
{
    ORRI_REQUIRE(w, NULL, "orr_component_remove: world is NULL");
    static const char fn[] = "orr_component_remove";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    if (type >= w->pool_count)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: component type %u is not registered", fn, type);
    if (!orri_bit(w->pools[type].bits, w->pools[type].words, e.index))
        return orri_error(&w->error, ORR_ERROR_NOT_FOUND, "%s: entity %u:%u has no %s component", fn, e.index,
                          e.generation, orr_world_component_name(w, type));
    pool_remove(w, type, e.index);
    return ORR_OK;
}

bool orr_component_has(const orr_world *w, orr_entity e, orr_component_type type)
{
    return orri_world_alive(w, e) && type < w->pool_count &&
           orri_bit(w->pools[type].bits, w->pools[type].words, e.index);
}

const void *orr_component_try_get(const orr_world *w, orr_entity e, orr_component_type type)
{
    if (!orr_component_has(w, e, type)) return NULL;
    return orri_pool_get(&w->pools[type], e.index);
}

const void *orr_component_get(const orr_world *w, orr_entity e, orr_component_type type)
{
    const void *c = orr_component_try_get(w, e, type);
    ORRI_ASSERT(c != NULL, "orr_component_get: entity %u:%u has no %s component (or is stale); use "
                "orr_component_try_get when it may be absent", e.index, e.generation,
                orr_world_component_name(w, type));
    return c;
}

void *orr_component_edit(orr_world *w, orr_entity e, orr_component_type type)
{
    if (!orr_component_has(w, e, type)) return NULL;
    orri_pool *p = &w->pools[type];
    p->dirty[e.index >> 6] |= 1ull << (e.index & 63);
    if (p->renderable) w->revision++;
    log_component_change(w, type, e.index);
    return orri_pool_get(p, e.index);
}

bool orr_component_is_dirty(const orr_world *w, orr_entity e, orr_component_type type)
{
    return orr_component_has(w, e, type) && orri_bit(w->pools[type].dirty, w->pools[type].dirty_words, e.index);
}

void orr_component_clear_dirty(orr_world *w, orr_component_type type)
{
    if (type >= w->pool_count) return;
    orri_pool *p = &w->pools[type];
    if (p->dirty) memset(p->dirty, 0, (size_t)p->dirty_words * 8);
}

/* ---- tails: variable-length data ----------------------------------------------------------- */

static size_t block_bytes(orri_tail_kind kind, uint32_t count)
{
    return sizeof(orri_block) + (size_t)count * orri_tail_elem(kind) + (kind == ORRI_TAIL_TEXT ? 1 : 0);
}

orri_block *orri_block_make(orr_world *w, orri_tail_kind kind, const void *items, uint32_t count, bool *ok)
{
    *ok = true;
    if (count == 0) return NULL;
    if ((size_t)count > (SIZE_MAX - sizeof(orri_block) - 1) / orri_tail_elem(kind)) { /* 32-bit hosts */
        *ok = false;
        return NULL;
    }
    size_t bytes = block_bytes(kind, count);
    orri_block *b = w->allocator.realloc(w->allocator.user, NULL, 0, bytes);
    if (!b) {
        *ok = false;
        return NULL;
    }
    b->count = count;
    b->reserved = 0;
    if (items) memcpy(orri_block_items(b), items, (size_t)count * orri_tail_elem(kind));
    else memset(orri_block_items(b), 0, (size_t)count * orri_tail_elem(kind));
    if (kind == ORRI_TAIL_TEXT) ((char *)orri_block_items(b))[count] = '\0';
    w->tail_bytes += bytes;
    return b;
}

void orri_block_free(orr_world *w, orri_tail_kind kind, orri_block *b)
{
    if (!b) return;
    size_t bytes = block_bytes(kind, b->count);
    w->tail_bytes -= bytes;
    orri_free(&w->allocator, b, bytes);
}

/* The tail of entity e's component of `type`, or an error naming `fn` (stale entity, no component). */
static orr_result tail_for_edit(orr_world *w, orr_entity e, uint32_t type, const char *fn, orri_block ***out)
{
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    orri_pool *p = &w->pools[type];
    void *c = orri_bit(p->bits, p->words, e.index) ? orri_pool_get(p, e.index) : NULL;
    if (!c)
        return orri_error(&w->error, ORR_ERROR_NOT_FOUND, "%s: entity %u:%u has no %s component", fn, e.index,
                          e.generation, orr_world_component_name(w, type));
    *out = orri_tail_of(p, c);
    return ORR_OK;
}

/* What every set does after the new block is in place: the edit is seen as orr_component_edit's. */
static void tail_edited(orr_world *w, uint32_t type, uint32_t e)
{
    orri_pool *p = &w->pools[type];
    p->dirty[e >> 6] |= 1ull << (e & 63);
    if (p->renderable) w->revision++;
    log_component_change(w, type, e);
}

/* Replaces the list of e's `type` component with a copy of items[0..count). */
static orr_result tail_set(orr_world *w, orr_entity e, uint32_t type, const void *items, uint32_t count, const char *fn)
{
    orri_block **slot = NULL;
    orr_result r = tail_for_edit(w, e, type, fn, &slot);
    if (r != ORR_OK) return r;
    ORRI_ASSERT(items || count == 0, "%s: %u items from a NULL array", fn, count);
    orri_tail_kind kind = w->pools[type].tail;
    bool ok;
    orri_block *b = orri_block_make(w, kind, items, count, &ok);
    if (!ok)
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %u entries of entity %u:%u", fn,
                          count, e.index, e.generation);
    orri_block_free(w, kind, *slot);
    *slot = b;
    tail_edited(w, type, e.index);
    return ORR_OK;
}

/* Read once per instance by extraction: the least that finds it (a live entity's sparse entry is its
 * component or none). */
static const void *tail_get(const orr_world *w, orr_entity e, uint32_t type, uint32_t *count)
{
    if (count) *count = 0;
    if (!orri_world_alive(w, e)) return NULL;
    const orri_pool *p = &w->pools[type];
    uint32_t d = orri_paged_get(&p->sparse, e.index);
    if (d == ORRI_NONE) return NULL;
    orri_block *b = *orri_tail_of(p, p->data + (size_t)d * p->stride);
    if (!b) return NULL;
    if (count) *count = b->count;
    return orri_block_items(b);
}

orr_result orr_mesh_renderer_set_materials(orr_world *w, orr_entity e, const orr_material_id *materials, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_mesh_renderer_set_materials: world is NULL");
    ORRI_REQUIRE(materials || !count, &w->error, "orr_mesh_renderer_set_materials: %u materials from a NULL array", count);
    return tail_set(w, e, ORR_COMPONENT_MESH_RENDERER, materials, count, "orr_mesh_renderer_set_materials");
}

orr_result orr_mesh_renderer_set_material(orr_world *w, orr_entity e, uint32_t slot, orr_material_id material)
{
    ORRI_REQUIRE(w, NULL, "orr_mesh_renderer_set_material: world is NULL");
    static const char fn[] = "orr_mesh_renderer_set_material";
    orri_block **tail = NULL;
    orr_result r = tail_for_edit(w, e, ORR_COMPONENT_MESH_RENDERER, fn, &tail);
    if (r != ORR_OK) return r;
    if (slot == UINT32_MAX)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: slot %u is out of range", fn, slot);
    orri_block *b = *tail;
    uint32_t n = b ? b->count : 0;
    if (slot >= n) { /* a larger block: the old slots, none up to the new one */
        bool ok;
        orri_block *g = orri_block_make(w, ORRI_TAIL_IDS, NULL, slot + 1, &ok);
        if (!ok)
            return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %u slots of entity %u:%u", fn,
                              slot + 1, e.index, e.generation);
        if (n) memcpy(orri_block_items(g), orri_block_items(b), (size_t)n * sizeof(orr_material_id));
        orri_block_free(w, ORRI_TAIL_IDS, b);
        *tail = b = g;
    }
    ((orr_material_id *)orri_block_items(b))[slot] = material;
    tail_edited(w, ORR_COMPONENT_MESH_RENDERER, e.index);
    return ORR_OK;
}

const orr_material_id *orr_mesh_renderer_materials(const orr_world *w, orr_entity e, uint32_t *count)
{
    return tail_get(w, e, ORR_COMPONENT_MESH_RENDERER, count);
}

orr_result orr_skinned_mesh_set_joints(orr_world *w, orr_entity e, const orr_entity *joints, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_skinned_mesh_set_joints: world is NULL");
    ORRI_REQUIRE(joints || !count, &w->error, "orr_skinned_mesh_set_joints: %u joints from a NULL array", count);
    return tail_set(w, e, ORR_COMPONENT_SKINNED_MESH, joints, count, "orr_skinned_mesh_set_joints");
}

const orr_entity *orr_skinned_mesh_joints(const orr_world *w, orr_entity e, uint32_t *count)
{
    return tail_get(w, e, ORR_COMPONENT_SKINNED_MESH, count);
}

orr_result orr_animation_player_set_targets(orr_world *w, orr_entity e, const orr_entity *targets, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_animation_player_set_targets: world is NULL");
    ORRI_REQUIRE(targets || !count, &w->error, "orr_animation_player_set_targets: %u targets from a NULL array", count);
    return tail_set(w, e, ORR_COMPONENT_ANIMATION_PLAYER, targets, count, "orr_animation_player_set_targets");
}

const orr_entity *orr_animation_player_targets(const orr_world *w, orr_entity e, uint32_t *count)
{
    return tail_get(w, e, ORR_COMPONENT_ANIMATION_PLAYER, count);
}

orr_result orr_morph_weights_set(orr_world *w, orr_entity e, const float *weights, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_morph_weights_set: world is NULL");
    ORRI_REQUIRE(weights || !count, &w->error, "orr_morph_weights_set: %u weights from a NULL array", count);
    static const char fn[] = "orr_morph_weights_set";
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    if (!orr_component_has(w, e, ORR_COMPONENT_MORPH_WEIGHTS)) {
        ORRI_WORLD_NO_ITERATION(w, fn); /* adding the component is structural */
        orr_result r = orr_component_add(w, e, ORR_COMPONENT_MORPH_WEIGHTS, NULL, NULL);
        if (r != ORR_OK) return r;
    }
    return tail_set(w, e, ORR_COMPONENT_MORPH_WEIGHTS, weights, count, fn);
}

orr_result orr_morph_weights_write(orr_world *w, orr_entity e, uint32_t first, const float *weights, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_morph_weights_write: world is NULL");
    ORRI_REQUIRE(weights || !count, &w->error, "orr_morph_weights_write: %u weights from a NULL array", count);
    static const char fn[] = "orr_morph_weights_write";
    orri_block **tail = NULL;
    orr_result r = tail_for_edit(w, e, ORR_COMPONENT_MORPH_WEIGHTS, fn, &tail);
    if (r != ORR_OK) return r;
    ORRI_ASSERT(weights || count == 0, "%s: %u weights from a NULL array", fn, count);
    if (count == 0) return ORR_OK;
    if (first > UINT32_MAX - count)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: entries %u + %u are out of range", fn, first, count);
    orri_block *b = *tail;
    uint32_t n = b ? b->count : 0;
    if (first + count > n) { /* a larger block: the old entries, zeros up to the new ones */
        bool ok;
        orri_block *g = orri_block_make(w, ORRI_TAIL_FLOATS, NULL, first + count, &ok);
        if (!ok)
            return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %u weights of entity %u:%u", fn,
                              first + count, e.index, e.generation);
        if (n) memcpy(orri_block_items(g), orri_block_items(b), (size_t)n * sizeof(float));
        orri_block_free(w, ORRI_TAIL_FLOATS, b);
        *tail = b = g;
    } else if (memcmp((float *)orri_block_items(b) + first, weights, (size_t)count * sizeof(float)) == 0) {
        return ORR_OK; /* nothing changed: nothing to log */
    }
    memcpy((float *)orri_block_items(b) + first, weights, (size_t)count * sizeof(float));
    tail_edited(w, ORR_COMPONENT_MORPH_WEIGHTS, e.index);
    return ORR_OK;
}

const float *orr_morph_weights(const orr_world *w, orr_entity e, uint32_t *count)
{
    return tail_get(w, e, ORR_COMPONENT_MORPH_WEIGHTS, count);
}

orr_result orr_entity_set_name(orr_world *w, orr_entity e, const char *name)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_name: world is NULL");
    static const char fn[] = "orr_entity_set_name";
    if (!orri_world_alive(w, e)) return orri_world_stale(w, fn, e);
    size_t len = name ? strlen(name) : 0;
    if (len >= UINT32_MAX)
        return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: a name of %zu bytes is too long", fn, len);
    /* The new text first, so that a failure leaves the entity as it was (with or without its Name). */
    bool ok;
    orri_block *b = orri_block_make(w, ORRI_TAIL_TEXT, name, (uint32_t)len, &ok);
    if (!ok)
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory for a name of %zu bytes", fn, len);
    orri_pool *p = &w->pools[ORR_COMPONENT_NAME];
    void *c = orri_bit(p->bits, p->words, e.index) ? orri_pool_get(p, e.index) : NULL;
    if (!c) {
        ORRI_WORLD_NO_ITERATION(w, fn); /* adding the Name is structural for its pool */
        if (orri_pool_add(w, ORR_COMPONENT_NAME, e.index, NULL, &c) != ORR_OK) {
            orri_block_free(w, ORRI_TAIL_TEXT, b);
            return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
        }
        p = &w->pools[ORR_COMPONENT_NAME];
    }
    orri_block **tail = orri_tail_of(p, c);
    orri_block_free(w, ORRI_TAIL_TEXT, *tail);
    *tail = b;
    tail_edited(w, ORR_COMPONENT_NAME, e.index);
    return ORR_OK;
}

const char *orr_entity_name(const orr_world *w, orr_entity e)
{
    const char *n = tail_get(w, e, ORR_COMPONENT_NAME, NULL);
    return n ? n : "";
}

orr_entity orr_world_find_in_subtree(const orr_world *w, orr_entity root, orr_component_type type)
{
    if (type >= w->pool_count) return ORR_ENTITY_NONE;
    const orri_pool *p = &w->pools[type];
    uint32_t r = ORRI_NONE, s;
    if (root.generation != 0) {
        if (!orri_world_alive(w, root)) return ORR_ENTITY_NONE;
        r = w->slot_of[root.index].slot;
        s = r;
    } else {
        s = w->first_root;
    }
    for (; s != ORRI_NONE; s = orri_preorder_next(w, s, r))
        if (orri_bit(p->bits, p->words, w->node[s].entity)) return orri_world_slot_entity(w, s);
    return ORR_ENTITY_NONE;
}

/* ---- queries ----------------------------------------------------------------------------- */

void orr_query_begin(orr_world *w, const orr_component_type *types, uint32_t type_count, orr_query *q)
{
    ORRI_ASSERT(type_count >= 1 && type_count <= ORR_QUERY_MAX_TYPES,
                "orr_query_begin: type_count %u is not within 1..%d", type_count, ORR_QUERY_MAX_TYPES);
    *q = (orr_query){.world = w,
                     .type_count = type_count > ORR_QUERY_MAX_TYPES ? ORR_QUERY_MAX_TYPES : type_count,
                     .live = true};
    for (uint32_t i = 0; i < q->type_count; i++) {
        ORRI_ASSERT(types[i] < w->pool_count, "orr_query_begin: component type %u is not registered", types[i]);
        q->types[i] = types[i];
    }
    w->mut->iterations++;
}

bool orr_query_next(orr_query *q)
{
    orr_world *w = q->world;
    if (!q->live || q->cursor == UINT32_MAX) {
        orr_query_end(q);
        return false;
    }
    uint32_t n = q->type_count, words = UINT32_MAX;
    for (uint32_t t = 0; t < n; t++) {
        if (q->types[t] >= w->pool_count) {
            orr_query_end(q);
            return false;
        }
        uint32_t pw = w->pools[q->types[t]].words;
        if (pw < words) words = pw;
    }
    uint32_t c = q->cursor;
    for (uint32_t wi = c >> 6; wi < words; wi++) {
        uint64_t m = ~0ull;
        for (uint32_t t = 0; t < n; t++) m &= w->pools[q->types[t]].bits[wi];
        if (wi == c >> 6) m &= ~0ull << (c & 63);
        if (!m) continue;
        uint32_t e = wi * 64 + (uint32_t)__builtin_ctzll(m);
        q->entity = orri_world_handle(w, e);
        for (uint32_t t = 0; t < n; t++) q->components[t] = orri_pool_get(&w->pools[q->types[t]], e);
        q->cursor = e + 1;
        return true;
    }
    q->entity = ORR_ENTITY_NONE;
    orr_query_end(q);
    return false;
}

void orr_query_end(orr_query *q)
{
    if (q->live) {
        q->world->mut->iterations--;
        q->live = false;
    }
    q->cursor = UINT32_MAX;
}
