/* World internals shared by the files of src/world. Not installed.
 *
 * Layout. Entities are handles from an orr_handle_pool (index + generation, lowest index reused
 * first). The node table is a set of arrays indexed by *slot*, a physical position that is separate
 * from the entity index: slot_of[entity index] -> slot (with the index's generation, so that checking a
 * handle reads that one place), node[slot].entity -> entity index; what a change touches of a node (its
 * parent, first child, entity, flags) is one orri_node record, the TRS, world matrix and sibling links
 * arrays of their own. The
 * links (parent, first child, previous/next sibling) are slots too, so a traversal never leaves
 * the node table. Sibling lists (the roots' too) are doubly linked with `next` ending in ORRI_NONE and
 * `prev` circular: the first sibling's prev is the last sibling, which gives an O(1) append without a
 * per-node last-child link (4 bytes a node).
 *
 * Order. While `linear` is true, the live slots taken in ascending order are exactly the pre-order of
 * the hierarchy (dead slots, "holes", may sit in between). Then a subtree is one contiguous slot range
 * and transform propagation is a flat loop, as fast as a plain array. A new node is appended at the
 * end of the table, which keeps the order when the node is last in pre-order (a new root, or a child
 * on the rightmost path, which is how worlds are usually built). Moves and out-of-order creates clear
 * `linear`; traversals then follow the links, which is always correct, and the table is put back in
 * pre-order (orri_world_relinearize) once enough disorder or holes have accumulated.
 *
 * Dirty transforms. A node whose local transform changed (or that was created or moved) carries
 * ORRI_NODE_DIRTY. Invariant: every dirty node is in `dirty_list` (as an entity index) or has a dirty
 * ancestor. The cached world matrix of a node is current exactly when no node on its path to the root
 * is dirty (and `all_dirty` is false). update_transforms walks only the subtrees of listed nodes.
 *
 * Change log. Every node whose world matrix propagation recomputes is appended to `moved`, and every
 * entity whose renderable component or Name is added, edited or removed to `edited` (entity indices),
 * each once: ORRI_NODE_MOVED / ORRI_NODE_EDITED mark the nodes already listed and are cleared with the
 * log. When a list cannot grow, or every transform is recomputed at once, `changes_all` stands in for
 * the lists (every entity may have changed) and nothing more is listed until the log is cleared; the
 * same holds from a structural change on (structure_version != changes_structure).
 *
 * Components. One sparse-set pool per type: dense data and dense entity indices, a paged sparse map
 * entity index -> dense index, and a presence bitset over entity indices that gives iteration in
 * ascending entity index without keeping the dense array sorted.
 *
 * Tails. A built-in type with variable-length data (Name: its text; MeshRenderer: material overrides;
 * SkinnedMesh: joints; AnimationPlayer: targets; MorphWeights: weights) keeps, after its public struct inside each dense
 * element (at tail_offset, beyond the `size` bytes that add copies and get hands out), a pointer to one
 * allocation of exactly its list: an orri_block header and then `count` elements (text: count bytes
 * and a NUL). NULL = empty. The pointer moves with the element (swap-remove, reorder, growth all copy
 * whole strides), so the list itself never moves until it is set again, and each element owns its
 * block alone: no two components share one, nothing else points at it. `tail_bytes` counts what the
 * blocks hold. */
#ifndef ORRERY_WORLD_INTERNAL_H
#define ORRERY_WORLD_INTERNAL_H

#include <orrery/world.h>

#include "core/internal.h"

#include <string.h>

#define ORRI_NONE UINT32_MAX

enum {
    ORRI_NODE_ALIVE = 1u,  /* the slot holds a live node (0 = hole) */
    ORRI_NODE_DIRTY = 2u,  /* local changed: this node's subtree needs its world matrices recomputed */
    ORRI_NODE_MATRIX = 4u, /* the node has a local matrix (in the matrix side table) */
    ORRI_NODE_MOVED = 8u,   /* the node's entity is in the change log's poses (see below) */
    ORRI_NODE_EDITED = 16u, /* ... in its edits */
};

/* Where an entity index lives, and its generation (the handle pool's, mirrored here): a handle is checked
 * and its slot found with one read, one line of one table. Generation 0 (zeroed entries) is never alive. */
typedef struct orri_place {
    uint32_t slot; /* ORRI_NONE: no live node */
    uint32_t generation;
} orri_place;

/* What a change of a node reads and writes of its links and state, in one record: four to a cache line,
 * so that a node moved at random costs one line of the table, not one of each of four arrays. The sibling
 * links, which only structural changes walk, stay arrays of their own. */
typedef struct orri_node {
    uint32_t parent, first; /* slots: the parent (ORRI_NONE: a root), the first child (ORRI_NONE: none) */
    uint32_t entity;        /* the entity index the slot holds */
    uint8_t flags;          /* ORRI_NODE_* */
} orri_node;
_Static_assert(sizeof(orri_node) == 16, "orri_node: four to a 64-byte line, none across two");

/* The binary64 TRS part of a local transform, stored densely for propagation. */
typedef struct orri_trs {
    orr_vec3d t;
    orr_quatd r;
    orr_vec3d s;
} orri_trs;

/* A cached world matrix: the first three rows of an affine 4x4 (whose last row is 0 0 0 1), column-major,
 * m[col * 3 + row]. 96 bytes instead of 128; the world hands out orr_mat4d copies. */
typedef orr_affine3d orri_affine;

static inline void orri_affine_to_mat4d(const orri_affine *a, orr_mat4d *out)
{
    for (int c = 0; c < 4; c++) {
        out->m[c * 4 + 0] = a->m[c * 3 + 0];
        out->m[c * 4 + 1] = a->m[c * 3 + 1];
        out->m[c * 4 + 2] = a->m[c * 3 + 2];
        out->m[c * 4 + 3] = c == 3 ? 1.0 : 0.0;
    }
}

/* The first three rows of m (its last row is dropped). */
static inline void orri_affine_from_mat4d(const orr_mat4d *m, orri_affine *out)
{
    for (int c = 0; c < 4; c++) {
        out->m[c * 3 + 0] = m->m[c * 4 + 0];
        out->m[c * 3 + 1] = m->m[c * 4 + 1];
        out->m[c * 3 + 2] = m->m[c * 4 + 2];
    }
}

/* dest = the first three rows of a x b, a taken with the last row 0 0 0 1. Every element is computed
 * with the operations of orr_mat4d_mul in the same order (the b[3] term included, though it is 0 for an
 * affine b, because it can flip the sign of a zero), so the result equals orr_mat4d_mul's to the last
 * bit. dest may alias a. */
static inline void orri_affine_mul(const orri_affine *a, const orr_mat4d *b, orri_affine *dest)
{
    orri_affine r;
    for (int c = 0; c < 4; c++) {
        const double *bc = &b->m[c * 4];
        for (int row = 0; row < 3; row++)
            r.m[c * 3 + row] = a->m[0 * 3 + row] * bc[0] + a->m[1 * 3 + row] * bc[1] + a->m[2 * 3 + row] * bc[2] +
                               a->m[3 * 3 + row] * bc[3];
    }
    *dest = r;
}

/* u32 -> u32 map over dense keys, in pages allocated on first use; ORRI_NONE = absent. */
#define ORRI_PAGE_BITS 10u
#define ORRI_PAGE_SIZE (1u << ORRI_PAGE_BITS)
typedef struct orri_paged_map {
    uint32_t **pages;
    uint32_t page_count;
} orri_paged_map;

static inline uint32_t orri_paged_get(const orri_paged_map *m, uint32_t key)
{
    uint32_t p = key >> ORRI_PAGE_BITS;
    if (p >= m->page_count || !m->pages[p]) return ORRI_NONE;
    return m->pages[p][key & (ORRI_PAGE_SIZE - 1)];
}
bool orri_paged_set_slow(const orr_allocator *a, orri_paged_map *m, uint32_t key, uint32_t value);
/* false only when a page could not be allocated (never when the key's page exists). */
static inline bool orri_paged_set(const orr_allocator *a, orri_paged_map *m, uint32_t key, uint32_t value)
{
    uint32_t p = key >> ORRI_PAGE_BITS;
    if (p < m->page_count && m->pages[p]) {
        m->pages[p][key & (ORRI_PAGE_SIZE - 1)] = value;
        return true;
    }
    return orri_paged_set_slow(a, m, key, value);
}
void orri_paged_fini(const orr_allocator *a, orri_paged_map *m);
/* Allocates (and writes) every page for keys below `keys`. */
bool orri_paged_reserve(const orr_allocator *a, orri_paged_map *m, uint32_t keys);

/* The head of a tail allocation; the elements follow (8-byte aligned). */
typedef struct orri_block {
    uint32_t count; /* elements (text: bytes without the NUL) */
    uint32_t reserved;
} orri_block;

typedef enum orri_tail_kind {
    ORRI_TAIL_NONE = 0,
    ORRI_TAIL_TEXT,     /* char, NUL-terminated */
    ORRI_TAIL_ENTITIES, /* orr_entity, remapped by clone */
    ORRI_TAIL_IDS,      /* 8-byte resource ids */
    ORRI_TAIL_FLOATS,   /* float (morph weights) */
} orri_tail_kind;

typedef struct orri_pool {
    char *name;          /* owned copy; NULL for an unnamed user type */
    uint32_t size, stride;
    uint32_t tail_offset; /* where the tail pointer sits in each element (ORRI_NONE: no tail) */
    orri_tail_kind tail;
    void (*copy)(void *dst, const void *src, void *user);
    void (*destroy)(void *component, void *user);
    void (*remap)(void *component, orr_entity_map_fn map, void *map_user, void *user);
    void *user;
    bool renderable;     /* add/remove bump the structure version, edit bumps the revision */
    uint8_t *data;       /* count x stride */
    uint32_t *entities;  /* dense -> entity index */
    uint32_t count, capacity, entities_capacity;
    uint32_t disorder;   /* dense entries not in ascending entity order (an estimate) */
    orri_paged_map sparse; /* entity index -> dense index */
    uint64_t *bits;      /* presence, one bit per entity index */
    uint64_t *dirty;     /* edited or added since the last orr_component_clear_dirty */
    uint32_t words, dirty_words;
} orri_pool;

static inline bool orri_bit(const uint64_t *bits, uint32_t words, uint32_t i)
{
    return (i >> 6) < words && (bits[i >> 6] >> (i & 63)) & 1u;
}

/* State that const entry points (subtree iteration) may change. */
typedef struct orri_world_mut {
    uint32_t iterations; /* live queries and subtree iterations */
} orri_world_mut;

struct orr_world {
    orr_allocator allocator;
    uint32_t alive; /* ORRI_ALIVE until destroyed */
    orr_logger logger;
    orr_error error;
    orri_world_mut *mut;
    orr_handle_pool handles;
    uint32_t entity_capacity;

    /* per entity index */
    orri_place *slot_of;
    uint32_t slot_of_cap;

    /* per slot: the node table */
    uint32_t slot_count; /* slots in use, holes included */
    uint32_t live;       /* live nodes */
    orri_trs *trs;
    orri_affine *world;
    orri_node *node;
    uint32_t *prev, *next; /* prev: circular, see above */
    uint32_t cap_trs, cap_world, cap_node, cap_prev, cap_next;
    uint32_t slot_cap; /* the smallest of the capacities above */

    uint32_t first_root, root_count; /* slot of the first root (its prev is the last root) */

    /* order */
    bool linear;        /* live slots ascending == pre-order */
    uint32_t disorder;  /* order-breaking changes since the last relinearize */
    uint32_t tail;      /* slot of the last node in pre-order (when linear and tail_valid) */
    bool tail_valid;

    /* local matrices, keyed by entity index */
    orri_paged_map matrix_of;
    orr_mat4d *matrices;
    uint32_t *matrix_owner;
    uint32_t matrix_count, cap_matrices, cap_matrix_owner;

    /* dirty transforms */
    uint32_t *dirty_list; /* entity indices */
    uint32_t dirty_count, dirty_cap;
    bool all_dirty;
    uint32_t *scratch, *scratch2; /* sorting and paths */
    uint32_t scratch_cap, scratch2_cap;

    /* components */
    orri_pool *pools;
    uint32_t pool_count, pool_cap;

    size_t tail_bytes; /* held by the components' tail blocks */

    /* change log */
    uint32_t *moved, *edited; /* entity indices */
    uint32_t moved_count, moved_cap, edited_count, edited_cap;
    bool changes_all;
    uint64_t change_epoch;
    uint64_t changes_structure; /* structure_version at the last clear */

    uint64_t structure_version;
    uint64_t revision;

    /* threads for the per-frame passes (orr_world_desc.workers, threads, parallel_from) */
    orr_workers *workers;     /* the host's (borrowed), or NULL */
    orr_workers *own_workers; /* started by orr_world_pass_threads when the host gave none */
    uint32_t threads;         /* resolved: at least 1 */
    uint32_t parallel_from;
};

/* ---- helpers shared between files ---- */

static inline bool orri_world_alive(const orr_world *w, orr_entity e)
{
    return e.index < w->slot_of_cap && w->slot_of[e.index].generation == e.generation && (e.generation & 1u);
}

static inline orr_entity orri_world_handle(const orr_world *w, uint32_t index)
{
    return (orr_entity){index, w->slot_of[index].generation};
}

static inline orr_entity orri_world_slot_entity(const orr_world *w, uint32_t slot)
{
    if (slot == ORRI_NONE) return ORR_ENTITY_NONE;
    return orri_world_handle(w, w->node[slot].entity);
}

/* Next slot in pre-order after `n` inside the subtree of `root` (ORRI_NONE: the whole world). */
static inline uint32_t orri_preorder_next(const orr_world *w, uint32_t n, uint32_t root)
{
    if (w->node[n].first != ORRI_NONE) return w->node[n].first;
    while (n != root) {
        if (w->next[n] != ORRI_NONE) return w->next[n];
        n = w->node[n].parent;
        if (n == ORRI_NONE) break;
    }
    return ORRI_NONE;
}

/* The first child of `parent` (ORRI_NONE: the first root); ORRI_NONE when there is none. */
static inline uint32_t orri_first_child(const orr_world *w, uint32_t parent)
{
    return parent == ORRI_NONE ? w->first_root : w->node[parent].first;
}

/* The last child of `parent` (ORRI_NONE = the last root); ORRI_NONE when there is none. */
static inline uint32_t orri_last_child(const orr_world *w, uint32_t parent)
{
    uint32_t h = orri_first_child(w, parent);
    return h == ORRI_NONE ? ORRI_NONE : w->prev[h];
}

#define ORRI_WORLD_NO_ITERATION(w, fn)                                                                          \
    ORRI_ASSERT((w)->mut->iterations == 0,                                                                      \
                "%s: structural change while %u query or subtree iteration(s) are live on this world; collect "  \
                "the entities first and apply the change after orr_query_end / orr_subtree_end",                \
                (fn), (w)->mut->iterations)

orr_result orri_world_stale(orr_world *w, const char *fn, orr_entity e);

/* world.c */
/* orri_grow without zeroing the new tail (for arrays whose elements are written when taken). */
bool orri_world_grow_raw(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t need, size_t elem);
#define ORRI_GROW_RAW(a, arr, cap, need) orri_world_grow_raw((a), (void **)&(arr), &(cap), (need), sizeof *(arr))
/* Grows to exactly `count` elements and writes the new tail with byte `fill` (commits the pages). */
bool orri_world_reserve_raw(const orr_allocator *a, void **items, uint32_t *capacity, uint32_t count, size_t elem,
                            int fill);
void orri_world_relinearize(orr_world *w);
void orri_world_maybe_relinearize(orr_world *w, bool for_update);
bool orri_world_ensure_scratch(orr_world *w, uint32_t need);
bool orri_world_ensure_scratch2(orr_world *w, uint32_t need);

/* Appends the entity of slot `s` to the change log's poses (ORRI_NODE_MOVED) or edits
 * (ORRI_NODE_EDITED) unless it is listed there already. */
void orri_world_log_slow(orr_world *w, uint32_t s, uint8_t kind);
static inline void orri_world_log(orr_world *w, uint32_t s, uint8_t kind)
{
    /* After a structural change the reader rebuilds anyway (see orr_world_changes.all): nothing is listed. */
    if (!(w->node[s].flags & kind) && !w->changes_all && w->structure_version == w->changes_structure)
        orri_world_log_slow(w, s, kind);
}

/* transform.c */
void orri_world_mark_dirty(orr_world *w, uint32_t slot, bool force_list);
void orri_world_local_matrix(const orr_world *w, uint32_t slot, orr_mat4d *out);
void orri_world_current_world(orr_world *w, uint32_t slot, orr_mat4d *out);
orr_result orri_world_store_local(orr_world *w, uint32_t slot, const orr_transform *t);
/* Which part of a local transform is not finite ("translation", "rotation", "scale", "matrix"), or NULL. */
const char *orri_world_bad_local(const orr_transform *t);
orr_result orri_world_store_local_matrix(orr_world *w, uint32_t slot, const orr_mat4d *local, const char *fn);
void orri_world_load_local(const orr_world *w, uint32_t slot, orr_transform *out);
void orri_world_drop_matrix(orr_world *w, uint32_t entity_index);

/* component.c */
orr_result orri_world_register_builtins(orr_world *w);
void orri_world_pools_fini(orr_world *w);
/* Removes every component of an entity being destroyed (destroy hooks run). */
void orri_world_remove_all_components(orr_world *w, uint32_t entity_index);
orr_result orri_pool_add(orr_world *w, uint32_t type, uint32_t entity_index, const void *init, void **out);
static inline void *orri_pool_get(const orri_pool *p, uint32_t entity_index)
{
    uint32_t d = orri_paged_get(&p->sparse, entity_index);
    return d == ORRI_NONE ? NULL : p->data + (size_t)d * p->stride;
}
/* The tail pointer of a component of a pool with a tail. */
static inline orri_block **orri_tail_of(const orri_pool *p, void *component)
{
    return (orri_block **)((uint8_t *)component + p->tail_offset);
}
static inline void *orri_block_items(orri_block *b) { return b + 1; }
static inline size_t orri_tail_elem(orri_tail_kind kind)
{
    return kind == ORRI_TAIL_TEXT ? 1 : kind == ORRI_TAIL_FLOATS ? 4 : 8;
}
/* A new block of `count` elements copied from `items` (text: NUL added); NULL when count is 0 or on
 * allocation failure (*ok false then). */
orri_block *orri_block_make(orr_world *w, orri_tail_kind kind, const void *items, uint32_t count, bool *ok);
void orri_block_free(orr_world *w, orri_tail_kind kind, orri_block *b);
bool orri_component_renderable_builtin(uint32_t type);

#endif
