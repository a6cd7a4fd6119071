/* World lifetime, entities, the node table and its order, the hierarchy, find and subtree iteration. */
#include "world/world_internal.h"

/* ---- small shared pieces ---------------------------------------------------------------- */

bool orri_paged_set_slow(const orr_allocator *a, orri_paged_map *m, uint32_t key, uint32_t value)
{
    uint32_t p = key >> ORRI_PAGE_BITS;
    if (p >= m->page_count) {
        uint32_t n = m->page_count ? m->page_count : 8;
        while (n <= p) n *= 2;
        uint32_t **pages = orri_realloc(a, m->pages, (size_t)m->page_count * sizeof *pages, (size_t)n * sizeof *pages);
        if (!pages) return false;
        memset(pages + m->page_count, 0, (size_t)(n - m->page_count) * sizeof *pages);
        m->pages = pages;
        m->page_count = n;
    }
    if (!m->pages[p]) {
        if (value == ORRI_NONE) return true;
        uint32_t *page = a->realloc(a->user, NULL, 0, ORRI_PAGE_SIZE * sizeof(uint32_t));
        if (!page) return false;
        memset(page, 0xff, ORRI_PAGE_SIZE * sizeof(uint32_t));
        m->pages[p] = page;
    }
    m->pages[p][key & (ORRI_PAGE_SIZE - 1)] = value;
    return true;
}

bool orri_paged_reserve(const orr_allocator *a, orri_paged_map *m, uint32_t keys)
{
    if (keys == 0) return true;
    uint32_t last = (keys - 1) >> ORRI_PAGE_BITS;
    for (uint32_t p = 0; p <= last; p++) {
        if (p < m->page_count && m->pages[p]) continue;
        /* set_slow allocates a missing page only for a real value: store one, then put NONE back. */
        if (!orri_paged_set_slow(a, m, p << ORRI_PAGE_BITS, 0)) return false;
        m->pages[p][0] = ORRI_NONE;
    }
    return true;
}

void orri_paged_fini(const orr_allocator *a, orri_paged_map *m)
{
    for (uint32_t i = 0; i < m->page_count; i++) orri_free(a, m->pages[i], ORRI_PAGE_SIZE * sizeof(uint32_t));
    orri_free(a, m->pages, (size_t)m->page_count * sizeof *m->pages);
    *m = (orri_paged_map){0};
}

orr_result orri_world_stale(orr_world *w, const char *fn, orr_entity e)
{
    return orri_error(&w->error, ORR_ERROR_STALE_HANDLE, "%s: entity %u:%u is stale (destroyed, or never created)",
                      fn, e.index, e.generation);
}

bool orri_world_ensure_scratch(orr_world *w, uint32_t need)
{
    return ORRI_GROW(&w->allocator, w->scratch, w->scratch_cap, need);
}

bool orri_world_ensure_scratch2(orr_world *w, uint32_t need)
{
    return ORRI_GROW(&w->allocator, w->scratch2, w->scratch2_cap, need);
}

/* ---- world lifetime ---------------------------------------------------------------------- */

orr_result orr_world_create(const orr_world_desc *desc, orr_world **out, orr_error *err)
{
    orr_world_desc d = desc ? *desc : (orr_world_desc){0};
    ORRI_REQUIRE(out, err, "orr_world_create: out is required");
    *out = NULL;
    orr_allocator a = orri_allocator_or_default(&d.allocator);
    orr_world *w = orri_alloc(&a, sizeof *w);
    if (!w) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_world_create: out of memory for the world");
    w->allocator = a;
    w->alive = ORRI_ALIVE;
    w->logger = d.logger;
    w->entity_capacity = d.entity_capacity;
    w->mut = orri_alloc(&a, sizeof *w->mut);
    orr_handle_pool_init(&w->handles, &a, d.entity_capacity);
    w->first_root = ORRI_NONE;
    w->linear = true;
    w->tail = ORRI_NONE;
    w->tail_valid = true;
    orr_world_set_threads(w, d.workers, d.threads, d.parallel_from);
    if (!w->mut || orri_world_register_builtins(w) != ORR_OK) {
        orr_world_destroy(w);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_world_create: out of memory for the built-in components");
    }
    orr_result r = d.reserve ? orr_world_reserve(w, d.reserve) : ORR_OK;
    if (r != ORR_OK) {
        orri_error(err, r, "orr_world_create: reserving %u entities: %s", d.reserve, w->error.message);
        orr_world_destroy(w);
        return r;
    }
    *out = w;
    return ORR_OK;
}

void orr_world_destroy(orr_world *w)
{
    if (!w) return;
    ORRI_DESTROY_ONCE(w, "orr_world_destroy");
    orr_allocator a = w->allocator;
    orri_world_pools_fini(w);
    orri_free(&a, w->slot_of, (size_t)w->slot_of_cap * sizeof(orri_place));
    orri_free(&a, w->trs, (size_t)w->cap_trs * sizeof(orri_trs));
    orri_free(&a, w->world, (size_t)w->cap_world * sizeof(orri_affine));
    orri_free(&a, w->node, (size_t)w->cap_node * sizeof(orri_node));
    orri_free(&a, w->prev, (size_t)w->cap_prev * sizeof(uint32_t));
    orri_free(&a, w->next, (size_t)w->cap_next * sizeof(uint32_t));
    orri_paged_fini(&a, &w->matrix_of);
    orri_free(&a, w->matrices, (size_t)w->cap_matrices * sizeof(orr_mat4d));
    orri_free(&a, w->matrix_owner, (size_t)w->cap_matrix_owner * sizeof(uint32_t));
    orri_free(&a, w->dirty_list, (size_t)w->dirty_cap * sizeof(uint32_t));
    orri_free(&a, w->moved, (size_t)w->moved_cap * sizeof(uint32_t));
    orri_free(&a, w->edited, (size_t)w->edited_cap * sizeof(uint32_t));
    orri_free(&a, w->scratch, (size_t)w->scratch_cap * sizeof(uint32_t));
    orri_free(&a, w->scratch2, (size_t)w->scratch2_cap * sizeof(uint32_t));
    orr_handle_pool_fini(&w->handles);
    orr_workers_destroy(w->own_workers);
    orri_free(&a, w->mut, sizeof *w->mut);
    orri_free(&a, w, sizeof *w);
}

const orr_error *orr_world_last_error(const orr_world *w) { return &w->error; }

void orr_world_set_threads(orr_world *w, orr_workers *workers, uint32_t threads, uint32_t parallel_from)
{
    ORRI_ASSERT(w, "orr_world_set_threads: world is NULL");
    if (!w) return;
    if (!threads) threads = workers ? orr_workers_threads(workers) : orri_cores();
    if (threads > ORRI_MAX_THREADS) threads = ORRI_MAX_THREADS;
    if (w->own_workers && (workers || orr_workers_threads(w->own_workers) != threads)) {
        orr_workers_destroy(w->own_workers); /* started for another count: started again when needed */
        w->own_workers = NULL;
    }
    w->workers = workers;
    w->threads = threads;
    w->parallel_from = parallel_from ? parallel_from : ORRI_PARALLEL_FROM;
}

uint32_t orr_world_pass_threads(orr_world *w, uint32_t items, orr_workers **workers)
{
    ORRI_ASSERT(w && workers, "orr_world_pass_threads: world and workers are required");
    *workers = NULL;
    if (w->threads <= 1 || items < w->parallel_from) return 1;
    if (!w->workers && !w->own_workers &&
        orr_workers_create(&(orr_workers_desc){.threads = w->threads, .allocator = w->allocator}, &w->own_workers, NULL) != ORR_OK)
        return 1; /* no threads to be had: the calling thread does it all, with the same results */
    *workers = w->workers ? w->workers : w->own_workers;
    return w->threads;
}

uint64_t orr_world_structure_version(const orr_world *w) { return w->structure_version; }
uint64_t orr_world_revision(const orr_world *w) { return w->revision; }
uint32_t orr_world_entity_count(const orr_world *w)
{
    ORRI_ASSERT(w, "orr_world_entity_count: world is NULL");
    return w ? w->handles.alive : 0;
}

size_t orr_world_memory_bytes(const orr_world *w)
{
    size_t b = sizeof *w + sizeof *w->mut;
    b += (size_t)w->handles.capacity * 4 + (size_t)w->handles.free_capacity * 4;
    b += (size_t)w->slot_of_cap * sizeof(orri_place);
    b += (size_t)w->cap_trs * sizeof(orri_trs) + (size_t)w->cap_world * sizeof(orri_affine);
    b += (size_t)w->cap_node * sizeof(orri_node) + ((size_t)w->cap_prev + w->cap_next) * 4;
    b += (size_t)w->matrix_of.page_count * sizeof(uint32_t *);
    for (uint32_t i = 0; i < w->matrix_of.page_count; i++)
        if (w->matrix_of.pages[i]) b += ORRI_PAGE_SIZE * 4;
    b += (size_t)w->cap_matrices * sizeof(orr_mat4d) + (size_t)w->cap_matrix_owner * 4;
    b += ((size_t)w->dirty_cap + w->moved_cap + w->edited_cap + w->scratch_cap + w->scratch2_cap) * 4;
    b += (size_t)w->pool_cap * sizeof(orri_pool);
    b += w->tail_bytes;
    for (uint32_t t = 0; t < w->pool_count; t++) {
        const orri_pool *p = &w->pools[t];
        if (p->name) b += strlen(p->name) + 1;
        b += (size_t)p->capacity * p->stride + (size_t)p->entities_capacity * 4;
        b += ((size_t)p->words + p->dirty_words) * 8;
        b += (size_t)p->sparse.page_count * sizeof(uint32_t *);
        for (uint32_t i = 0; i < p->sparse.page_count; i++)
            if (p->sparse.pages[i]) b += ORRI_PAGE_SIZE * 4;
    }
    return b;
}

/* ---- node table -------------------------------------------------------------------------- */

static uint32_t min_cap(const orr_world *w)
{
    uint32_t c = w->cap_trs;
    const uint32_t caps[] = {w->cap_world, w->cap_node, w->cap_prev, w->cap_next};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
        if (caps[i] < c) c = caps[i];
    return c;
}

/* Like orri_grow, without zeroing the new tail: every field of a slot is written when the slot is
 * taken, and memory that is never written is never touched (first touch is what creation costs most). */
bool orri_world_grow_raw(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t need, size_t elem)
{
    if (need <= *capacity) return true;
    uint64_t cap = *capacity ? *capacity : 8;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    if (cap < need || cap * elem > SIZE_MAX / 2) return false;
    void *p = orri_realloc(a, *items, (size_t)*capacity * elem, (size_t)cap * elem);
    if (!p) return false;
    *items = p;
    *capacity = (uint32_t)cap;
    return true;
}

/* Grows *items to exactly `count` elements (when it has fewer) and writes the new tail with `fill`:
 * the write commits the pages now, so that the creates that later use them take no page faults. */
bool orri_world_reserve_raw(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t count, size_t elem,
                            int fill)
{
    if (count <= *capacity) return true;
    if ((uint64_t)count * elem > SIZE_MAX / 2) return false;
    void *p = orri_realloc(a, *items, (size_t)*capacity * elem, (size_t)count * elem);
    if (!p) return false;
    memset((char *)p + (size_t)*capacity * elem, fill, (size_t)(count - *capacity) * elem);
    *items = p;
    *capacity = count;
    return true;
}
#define RESERVE(a, arr, cap, count) orri_world_reserve_raw((a), (void **)&(arr), &(cap), (count), sizeof *(arr), 0)

orr_result orr_world_reserve(orr_world *w, uint32_t count)
{
    ORRI_REQUIRE(w, NULL, "orr_world_reserve: world is NULL");
    static const char fn[] = "orr_world_reserve";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (w->entity_capacity && count > w->entity_capacity) count = w->entity_capacity;
    /* New nodes are appended after the holes; new entity indices come after the freed ones. */
    uint64_t slots = (uint64_t)w->slot_count + (count > w->live ? count - w->live : 0);
    if (slots > UINT32_MAX) slots = UINT32_MAX;
    uint32_t n = (uint32_t)slots;
    const orr_allocator *a = &w->allocator;
    bool ok = RESERVE(a, w->trs, w->cap_trs, n) && RESERVE(a, w->world, w->cap_world, n) &&
              RESERVE(a, w->node, w->cap_node, n) && RESERVE(a, w->prev, w->cap_prev, n) &&
              RESERVE(a, w->next, w->cap_next, n) &&
              RESERVE(a, w->slot_of, w->slot_of_cap, count) &&
              RESERVE(a, w->handles.generations, w->handles.capacity, count) && /* zero = never alive */
              /* the handle pool grows its free heap with its indices (so that freeing never allocates) */
              RESERVE(a, w->handles.free_heap, w->handles.free_capacity, count);
    w->slot_cap = min_cap(w);
    if (!ok) return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory reserving %u entities", fn, count);
    return ORR_OK;
}
#undef RESERVE

static bool grow_slots(orr_world *w, uint32_t need)
{
    if (need <= w->slot_cap) return true;
    const orr_allocator *a = &w->allocator;
    bool ok = ORRI_GROW_RAW(a, w->trs, w->cap_trs, need) && ORRI_GROW_RAW(a, w->world, w->cap_world, need) &&
              ORRI_GROW_RAW(a, w->node, w->cap_node, need) && ORRI_GROW_RAW(a, w->prev, w->cap_prev, need) &&
              ORRI_GROW_RAW(a, w->next, w->cap_next, need);
    w->slot_cap = min_cap(w);
    return ok;
}

static void shrink_one(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t cap, size_t elem)
{
    if (*capacity <= cap) return;
    void *p = orri_realloc(a, *items, (size_t)*capacity * elem, (size_t)cap * elem);
    if (!p) return; /* keep the larger block */
    *items = p;
    *capacity = cap;
}
#define SHRINK(a, arr, capv, cap) shrink_one((a), (void **)&(arr), &(capv), (cap), sizeof *(arr))

/* After many destroys: give back most of the unused slot capacity (keeping room to grow). */
static void shrink_slots(orr_world *w)
{
    uint32_t cap = w->slot_count * 2 < 64 ? 64 : w->slot_count * 2;
    if (w->slot_cap / 4 <= cap) return;
    const orr_allocator *a = &w->allocator;
    SHRINK(a, w->trs, w->cap_trs, cap);
    SHRINK(a, w->world, w->cap_world, cap);
    SHRINK(a, w->node, w->cap_node, cap);
    SHRINK(a, w->prev, w->cap_prev, cap);
    SHRINK(a, w->next, w->cap_next, cap);
    w->slot_cap = min_cap(w);
}
#undef SHRINK

/* One node's record across the slot arrays, for moving it. */
typedef struct node_rec {
    orri_trs trs;
    orri_affine world;
    orri_node node;
    uint32_t prev, next;
} node_rec;

static inline void rec_load(const orr_world *w, uint32_t s, node_rec *r)
{
    r->trs = w->trs[s];
    r->world = w->world[s];
    r->node = w->node[s];
    r->prev = w->prev[s];
    r->next = w->next[s];
}

static inline void rec_store(orr_world *w, uint32_t s, const node_rec *r)
{
    w->trs[s] = r->trs;
    w->world[s] = r->world;
    w->node[s] = r->node;
    w->prev[s] = r->prev;
    w->next[s] = r->next;
    w->slot_of[r->node.entity].slot = s;
}

/* Puts the live nodes back in pre-order, without holes, in place: the permutation is applied by
 * following its cycles, so no second copy of the table is needed (and no fresh memory is touched).
 * On allocation failure of the scratch nothing changes (the order is only a matter of speed). */
void orri_world_relinearize(orr_world *w)
{
    uint32_t n = w->live, S = w->slot_count;
    uint32_t words = (S + 31) / 32;
    if (!orri_world_ensure_scratch(w, S ? S : 1) || !orri_world_ensure_scratch2(w, words ? words : 1)) return;
    uint32_t *new_of_old = w->scratch, *moved = w->scratch2;
    uint32_t k = 0;
    for (uint32_t s = w->first_root; s != ORRI_NONE; s = orri_preorder_next(w, s, ORRI_NONE)) new_of_old[s] = k++;
    ORRI_ASSERT(k == n, "node table corrupt: %u nodes reachable, %u live", k, n);
#define MAP(x) ((x) == ORRI_NONE ? ORRI_NONE : new_of_old[x])
    for (uint32_t s = 0; s < S; s++) {
        if (!(w->node[s].flags & ORRI_NODE_ALIVE)) continue;
        w->node[s].parent = MAP(w->node[s].parent);
        w->node[s].first = MAP(w->node[s].first);
        w->prev[s] = MAP(w->prev[s]);
        w->next[s] = MAP(w->next[s]);
    }
    w->first_root = MAP(w->first_root);
#undef MAP
    /* moved bit of a position: its original node has left it (it is empty or holds its final node). */
    memset(moved, 0, (size_t)words * sizeof *moved);
#define MOVED(x) ((moved[(x) >> 5] >> ((x) & 31)) & 1u)
#define SET_MOVED(x) (moved[(x) >> 5] |= 1u << ((x) & 31))
    for (uint32_t i = 0; i < S; i++) {
        if (!(w->node[i].flags & ORRI_NODE_ALIVE) || MOVED(i)) continue;
        node_rec carry, tmp;
        rec_load(w, i, &carry);
        SET_MOVED(i);
        uint32_t dst = new_of_old[i];
        for (;;) {
            if (dst == i) {
                rec_store(w, dst, &carry);
                break;
            }
            if ((w->node[dst].flags & ORRI_NODE_ALIVE) && !MOVED(dst)) {
                /* occupied by a node that has not moved yet: take its place, carry it on */
                uint32_t next_dst = new_of_old[dst];
                rec_load(w, dst, &tmp);
                rec_store(w, dst, &carry);
                SET_MOVED(dst);
                carry = tmp;
                dst = next_dst;
            } else {
                rec_store(w, dst, &carry); /* a hole, or a position already emptied */
                SET_MOVED(dst);
                break;
            }
        }
    }
#undef MOVED
#undef SET_MOVED
    w->slot_count = n;
    w->linear = true;
    w->disorder = 0;
    w->tail = n ? n - 1 : ORRI_NONE;
    w->tail_valid = true;
    shrink_slots(w);
    /* The scratch is as large as the table; give it back rather than hold it. */
    orri_free(&w->allocator, w->scratch, (size_t)w->scratch_cap * sizeof(uint32_t));
    orri_free(&w->allocator, w->scratch2, (size_t)w->scratch2_cap * sizeof(uint32_t));
    w->scratch = w->scratch2 = NULL;
    w->scratch_cap = w->scratch2_cap = 0;
}

void orri_world_maybe_relinearize(orr_world *w, bool for_update)
{
    uint32_t holes = w->slot_count - w->live;
    bool disordered = !w->linear && (uint64_t)w->disorder * 32 >= w->live;
    bool holey = holes > 1024 && holes * 2 > w->live;
    if ((for_update && disordered) || holey) orri_world_relinearize(w);
}

/* ---- links ------------------------------------------------------------------------------- */

static void unlink_node(orr_world *w, uint32_t s)
{
    uint32_t p = w->node[s].parent, pv = w->prev[s], nx = w->next[s];
    uint32_t *head = p == ORRI_NONE ? &w->first_root : &w->node[p].first;
    uint32_t h = *head;
    if (s == h) *head = nx; /* pv is the last sibling: it stays the new first's prev */
    else w->next[pv] = nx;
    if (nx != ORRI_NONE) w->prev[nx] = pv;
    else if (s != h) w->prev[h] = pv; /* s was last: pv is */
    if (p == ORRI_NONE) w->root_count--;
    w->node[s].parent = w->prev[s] = w->next[s] = ORRI_NONE;
}

/* Links `s` under `p` (ORRI_NONE = roots) before `before` (ORRI_NONE = last). */
static void link_node(orr_world *w, uint32_t s, uint32_t p, uint32_t before)
{
    uint32_t *head = p == ORRI_NONE ? &w->first_root : &w->node[p].first;
    uint32_t h = *head;
    w->node[s].parent = p;
    if (before == ORRI_NONE) {
        w->next[s] = ORRI_NONE;
        if (h == ORRI_NONE) {
            *head = s;
            w->prev[s] = s; /* alone: first and last */
        } else {
            uint32_t last = w->prev[h];
            w->next[last] = s;
            w->prev[s] = last;
            w->prev[h] = s;
        }
    } else {
        uint32_t pv = w->prev[before]; /* the last sibling when `before` is the first */
        w->prev[s] = pv;
        w->next[s] = before;
        w->prev[before] = s;
        if (before == h) *head = s;
        else w->next[pv] = s;
    }
    if (p == ORRI_NONE) w->root_count++;
}

static uint32_t find_tail(const orr_world *w)
{
    uint32_t s = orri_last_child(w, ORRI_NONE);
    if (s == ORRI_NONE) return ORRI_NONE;
    for (uint32_t c; (c = orri_last_child(w, s)) != ORRI_NONE;) s = c;
    return s;
}

/* Whether a node appended as the last child of `p` would be last in pre-order. Bounded walk: a false
 * "no" only costs speed, never correctness. */
static bool appends_in_order(orr_world *w, uint32_t p)
{
    if (!w->linear) return false;
    if (p == ORRI_NONE) return true;
    if (!w->tail_valid) {
        w->tail = find_tail(w);
        w->tail_valid = true;
    }
    uint32_t s = w->tail;
    for (int i = 0; i < 64 && s != ORRI_NONE; i++, s = w->node[s].parent)
        if (s == p) return true;
    return false;
}

/* ---- entities ---------------------------------------------------------------------------- */

orr_result orr_entity_create(orr_world *w, const orr_entity_desc *desc, orr_entity *out)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_create: world is NULL");
    ORRI_REQUIRE(out, &w->error, "orr_entity_create: out is required");
    static const char fn[] = "orr_entity_create";
    orr_entity_desc d = desc ? *desc : (orr_entity_desc){0};
    ORRI_WORLD_NO_ITERATION(w, fn);
    *out = ORR_ENTITY_NONE;
    const char *bad = d.local ? orri_world_bad_local(d.local) : NULL;
    if (bad) return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT, "%s: the local %s is not finite", fn, bad);
    uint32_t ps = ORRI_NONE;
    if (d.parent.generation != 0) {
        if (!orri_world_alive(w, d.parent)) return orri_world_stale(w, fn, d.parent);
        ps = w->slot_of[d.parent.index].slot;
    }
    if (w->entity_capacity && w->handles.alive >= w->entity_capacity)
        return orri_error(&w->error, ORR_ERROR_CAPACITY, "%s: entity_capacity (%u) reached", fn, w->entity_capacity);
    if (w->slot_count == w->slot_cap && w->slot_count - w->live > w->slot_count / 4) {
        orri_world_relinearize(w); /* compact instead of growing */
        if (ps != ORRI_NONE) ps = w->slot_of[d.parent.index].slot;
    }
    uint32_t s = w->slot_count;
    /* Room in the free heap too, so that undoing this create (below, on a later failure) cannot fail. */
    if (!grow_slots(w, s + 1) ||
        (w->handles.free_count >= w->handles.free_capacity &&
         !ORRI_GROW(&w->allocator, w->handles.free_heap, w->handles.free_capacity, w->handles.free_count + 1)))
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    orr_handle h;
    orr_result r = orr_handle_pool_alloc(&w->handles, &h);
    if (r == ORR_ERROR_CAPACITY)
        return orri_error(&w->error, r, "%s: entity_capacity (%u) reached", fn, w->entity_capacity);
    if (r != ORR_OK) return orri_error(&w->error, r, "%s: out of memory", fn);
    if (h.index >= w->slot_of_cap && !ORRI_GROW(&w->allocator, w->slot_of, w->slot_of_cap, h.index + 1)) {
        orr_handle_pool_free(&w->handles, h);
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    bool in_order = appends_in_order(w, ps);
    w->slot_count++;
    w->live++;
    w->slot_of[h.index] = (orri_place){s, h.generation};
    w->node[s].entity = h.index;
    w->node[s].first = ORRI_NONE;
    w->node[s].flags = ORRI_NODE_ALIVE;
    if (d.local) {
        w->trs[s] = (orri_trs){d.local->translation, d.local->rotation, d.local->scale};
    } else {
        w->trs[s] = (orri_trs){{0, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE};
    }
    w->world[s] = (orri_affine){{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}};
    link_node(w, s, ps, ORRI_NONE);
    if (in_order) {
        w->tail = s;
    } else if (w->linear) {
        w->linear = false;
        w->disorder++;
    } else {
        w->disorder++;
    }
    orr_entity e = {h.index, h.generation};
    if (d.local && d.local->has_matrix && orri_world_store_local(w, s, d.local) != ORR_OK) {
        orr_entity_destroy(w, e);
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    /* A child of a dirty parent is covered by the parent's entry in the dirty list. */
    if (ps != ORRI_NONE && (w->node[ps].flags & ORRI_NODE_DIRTY)) w->node[s].flags |= ORRI_NODE_DIRTY;
    else orri_world_mark_dirty(w, s, false);
    if (d.name && orr_entity_set_name(w, e, d.name) != ORR_OK) {
        orr_entity_destroy(w, e);
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    w->structure_version++;
    w->revision++;
    if (out) *out = e;
    return ORR_OK;
}

static uint32_t leftmost_leaf(const orr_world *w, uint32_t s)
{
    while (w->node[s].first != ORRI_NONE) s = w->node[s].first;
    return s;
}

static void destroy_node(orr_world *w, uint32_t s)
{
    uint32_t e = w->node[s].entity;
    orri_world_remove_all_components(w, e);
    if (w->node[s].flags & ORRI_NODE_MATRIX) orri_world_drop_matrix(w, e);
    if (w->tail == s) w->tail_valid = false;
    w->node[s].flags = 0;
    w->live--;
    orr_handle_pool_free(&w->handles, (orr_handle){e, w->handles.generations[e]});
    w->slot_of[e] = (orri_place){ORRI_NONE, w->handles.generations[e]};
}

orr_result orr_entity_destroy(orr_world *w, orr_entity entity)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_destroy: world is NULL");
    static const char fn[] = "orr_entity_destroy";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (!orri_world_alive(w, entity)) return orri_world_stale(w, fn, entity);
    /* The handle pool's free heap must be able to take every index of the subtree, so that the
     * destroy cannot fail halfway. */
    uint32_t root = w->slot_of[entity.index].slot, count = 0;
    for (uint32_t s = root; s != ORRI_NONE; s = orri_preorder_next(w, s, root)) count++;
    if (!ORRI_GROW(&w->allocator, w->handles.free_heap, w->handles.free_capacity, w->handles.free_count + count))
        return orri_error(&w->error, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    unlink_node(w, root);
    /* Post-order: children in order, then their parent. */
    uint32_t n = leftmost_leaf(w, root);
    for (;;) {
        uint32_t succ = ORRI_NONE;
        if (n != root) succ = w->next[n] != ORRI_NONE ? leftmost_leaf(w, w->next[n]) : w->node[n].parent;
        destroy_node(w, n);
        if (n == root) break;
        n = succ;
    }
    w->structure_version++;
    w->revision++;
    orri_world_maybe_relinearize(w, false);
    return ORR_OK;
}

bool orr_entity_is_alive(const orr_world *w, orr_entity entity) { return orri_world_alive(w, entity); }

/* ---- hierarchy --------------------------------------------------------------------------- */

orr_result orr_entity_set_parent(orr_world *w, orr_entity child, orr_entity parent, orr_parent_mode mode)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_parent: world is NULL");
    static const char fn[] = "orr_entity_set_parent";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (!orri_world_alive(w, child)) return orri_world_stale(w, fn, child);
    uint32_t cs = w->slot_of[child.index].slot, ps = ORRI_NONE;
    if (parent.generation != 0) {
        if (!orri_world_alive(w, parent)) return orri_world_stale(w, fn, parent);
        ps = w->slot_of[parent.index].slot;
        for (uint32_t a = ps; a != ORRI_NONE; a = w->node[a].parent) {
            if (a == cs)
                return orri_error(&w->error, ORR_ERROR_CYCLE,
                                  "%s: entity %u:%u cannot become a child of %u:%u, which is itself or its descendant",
                                  fn, child.index, child.generation, parent.index, parent.generation);
        }
    }
    if (mode == ORR_KEEP_WORLD) {
        orr_mat4d cw, local;
        orri_world_current_world(w, cs, &cw);
        if (ps != ORRI_NONE) {
            orr_mat4d pw, inv;
            orri_world_current_world(w, ps, &pw);
            if (!orr_mat4d_inverse_affine(&pw, &inv))
                return orri_error(&w->error, ORR_ERROR_INVALID_ARGUMENT,
                                  "%s: the world matrix of parent %u:%u is singular, so the child's world pose "
                                  "cannot be kept; use ORR_KEEP_LOCAL",
                                  fn, parent.index, parent.generation);
            orr_mat4d_mul(&inv, &cw, &local);
        } else {
            local = cw;
        }
        orr_result r = orri_world_store_local_matrix(w, cs, &local, fn);
        if (r != ORR_OK) return r;
    }
    unlink_node(w, cs);
    link_node(w, cs, ps, ORRI_NONE);
    w->linear = false;
    w->disorder++;
    orri_world_mark_dirty(w, cs, true);
    w->structure_version++;
    w->revision++;
    return ORR_OK;
}

orr_result orr_entity_set_sibling_index(orr_world *w, orr_entity entity, uint32_t index)
{
    ORRI_REQUIRE(w, NULL, "orr_entity_set_sibling_index: world is NULL");
    static const char fn[] = "orr_entity_set_sibling_index";
    ORRI_WORLD_NO_ITERATION(w, fn);
    if (!orri_world_alive(w, entity)) return orri_world_stale(w, fn, entity);
    uint32_t s = w->slot_of[entity.index].slot, p = w->node[s].parent;
    unlink_node(w, s);
    uint32_t before = p == ORRI_NONE ? w->first_root : w->node[p].first;
    for (uint32_t i = 0; i < index && before != ORRI_NONE; i++) before = w->next[before];
    link_node(w, s, p, before);
    w->linear = false;
    w->disorder++;
    w->structure_version++;
    w->revision++;
    return ORR_OK;
}

orr_entity orr_entity_parent(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return ORR_ENTITY_NONE;
    return orri_world_slot_entity(w, w->node[w->slot_of[e.index].slot].parent);
}

orr_entity orr_entity_first_child(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return ORR_ENTITY_NONE;
    return orri_world_slot_entity(w, w->node[w->slot_of[e.index].slot].first);
}

orr_entity orr_entity_last_child(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return ORR_ENTITY_NONE;
    return orri_world_slot_entity(w, orri_last_child(w, w->slot_of[e.index].slot));
}

orr_entity orr_entity_next_sibling(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return ORR_ENTITY_NONE;
    return orri_world_slot_entity(w, w->next[w->slot_of[e.index].slot]);
}

orr_entity orr_entity_prev_sibling(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return ORR_ENTITY_NONE;
    uint32_t s = w->slot_of[e.index].slot;
    return orri_world_slot_entity(w, s == orri_first_child(w, w->node[s].parent) ? ORRI_NONE : w->prev[s]);
}

uint32_t orr_entity_child_count(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return 0;
    uint32_t n = 0;
    for (uint32_t c = w->node[w->slot_of[e.index].slot].first; c != ORRI_NONE; c = w->next[c]) n++;
    return n;
}

uint32_t orr_entity_children(const orr_world *w, orr_entity e, orr_entity *out, uint32_t max)
{
    if (!orri_world_alive(w, e)) return 0;
    uint32_t n = 0;
    for (uint32_t c = w->node[w->slot_of[e.index].slot].first; c != ORRI_NONE; c = w->next[c], n++)
        if (out && n < max) out[n] = orri_world_slot_entity(w, c);
    return n;
}

uint32_t orr_entity_sibling_index(const orr_world *w, orr_entity e)
{
    if (!orri_world_alive(w, e)) return UINT32_MAX;
    uint32_t n = 0;
    uint32_t s = w->slot_of[e.index].slot, h = orri_first_child(w, w->node[s].parent);
    for (uint32_t c = s; c != h; c = w->prev[c]) n++;
    return n;
}

uint32_t orr_world_roots(const orr_world *w, orr_entity *out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t s = w->first_root; s != ORRI_NONE; s = w->next[s], n++)
        if (out && n < max) out[n] = orri_world_slot_entity(w, s);
    return n;
}

orr_entity orr_world_find(const orr_world *w, orr_entity root, const char *path)
{
    if (!path) return ORR_ENTITY_NONE;
    uint32_t cur = ORRI_NONE;
    if (root.generation != 0) {
        if (!orri_world_alive(w, root)) return ORR_ENTITY_NONE;
        cur = w->slot_of[root.index].slot;
    }
    bool moved = false;
    const char *p = path;
    while (*p) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0) {
            uint32_t c = cur == ORRI_NONE ? w->first_root : w->node[cur].first;
            for (; c != ORRI_NONE; c = w->next[c]) {
                const orri_pool *np = &w->pools[ORR_COMPONENT_NAME];
                void *nc = orri_pool_get(np, w->node[c].entity);
                const orri_block *nb = nc ? *orri_tail_of(np, nc) : NULL;
                uint32_t nlen = nb ? nb->count : 0;
                /* a Name without text is "", which no segment (len > 0) matches */
                if (nb && nlen == len && memcmp(orri_block_items((orri_block *)nb), p, len) == 0) break;
            }
            if (c == ORRI_NONE) return ORR_ENTITY_NONE;
            cur = c;
            moved = true;
        }
        if (!end) break;
        p = end + 1;
    }
    if (!moved) return ORR_ENTITY_NONE;
    return orri_world_slot_entity(w, cur);
}

/* ---- subtree iteration ------------------------------------------------------------------- */

void orr_subtree_begin(const orr_world *w, orr_entity root, orr_subtree_iter *it)
{
    *it = (orr_subtree_iter){.world = w, .root = ORRI_NONE, .next = ORRI_NONE};
    if (root.generation == 0) {
        it->whole_world = true;
        if (w->first_root != ORRI_NONE) it->next = w->node[w->first_root].entity;
    } else if (orri_world_alive(w, root)) {
        it->root = root.index;
        it->next = root.index;
    }
    it->live = true;
    w->mut->iterations++;
}

bool orr_subtree_next(orr_subtree_iter *it, orr_entity *out)
{
    if (it->next == ORRI_NONE) {
        orr_subtree_end(it); /* finished: the guard is released here already */
        return false;
    }
    const orr_world *w = it->world;
    uint32_t e = it->next;
    uint32_t root = it->whole_world ? ORRI_NONE : w->slot_of[it->root].slot;
    uint32_t n = orri_preorder_next(w, w->slot_of[e].slot, root);
    it->next = n == ORRI_NONE ? ORRI_NONE : w->node[n].entity;
    if (out) *out = orri_world_handle(w, e);
    return true;
}

void orr_subtree_end(orr_subtree_iter *it)
{
    if (it->live) {
        it->world->mut->iterations--;
        it->live = false;
    }
    it->next = ORRI_NONE;
}
