/* Randomized world test: random operations (create, destroy, reparent both ways, sibling moves,
 * clone, components, transform edits, updates) applied to the world and to a plain reference model,
 * with the invariants checked after each batch:
 *   - links and root order equal the model's, pre-order iteration equals the model's pre-order;
 *   - new entities get the lowest free index (determinism);
 *   - after update, every cached world matrix equals a from-scratch recomputation bit for bit, and the
 *     lazy world matrix equals it before the update;
 *   - destroyed handles are refused everywhere;
 *   - queries return exactly the model's component sets in ascending entity order.
 * ORRERY_WORLD_RANDOM_OPS sets the number of operations (default 1,000,000; the sanitizer build in CI sets 200,000), ORRERY_WORLD_RANDOM_SEED the seed. */
#include "testutil.h"

#include <orrery/world.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mnode {
    bool alive;
    uint32_t gen;
    int64_t parent; /* -1 = root */
    uint32_t *kids;
    uint32_t nkids, capk;
    uint8_t comps; /* bit 0: MeshRenderer, bit 1: Light, bit 2: user type */
    uint32_t tag;  /* the user component's value */
} mnode;

typedef struct model {
    mnode *n;
    uint32_t cap;
    uint32_t *roots;
    uint32_t nroots, caproots;
    uint32_t *live;
    uint32_t nlive;
    uint32_t *live_pos;
    uint32_t lowest_free; /* lowest index that is not alive */
    orr_entity stale[256];
    uint32_t nstale;
} model;

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next_u64(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}
static uint32_t below(rng *r, uint32_t n) { return n ? (uint32_t)(next_u64(r) % n) : 0; }
static double uniform(rng *r, double lo, double hi) { return lo + (hi - lo) * (double)(next_u64(r) >> 11) / 9007199254740992.0; }

static void push_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        *a = realloc(*a, *cap * sizeof **a);
    }
    (*a)[(*n)++] = v;
}

static void remove_u32(uint32_t *a, uint32_t *n, uint32_t v)
{
    for (uint32_t i = 0; i < *n; i++) {
        if (a[i] == v) {
            memmove(a + i, a + i + 1, (*n - i - 1) * sizeof *a);
            (*n)--;
            return;
        }
    }
    fail_msg("model: %u not in list", v);
}

static void insert_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t at, uint32_t v)
{
    push_u32(a, n, cap, v);
    if (at >= *n) at = *n - 1;
    memmove(*a + at + 1, *a + at, (*n - 1 - at) * sizeof **a);
    (*a)[at] = v;
}

static orr_entity handle(const model *m, uint32_t i) { return (orr_entity){i, m->n[i].gen}; }

static void model_add(model *m, orr_entity e, int64_t parent)
{
    if (e.index >= m->cap) {
        uint32_t c = m->cap ? m->cap : 64;
        while (c <= e.index) c *= 2;
        m->n = realloc(m->n, c * sizeof *m->n);
        memset(m->n + m->cap, 0, (c - m->cap) * sizeof *m->n);
        m->live_pos = realloc(m->live_pos, c * sizeof *m->live_pos);
        m->live = realloc(m->live, c * sizeof *m->live);
        m->cap = c;
    }
    /* Lowest free index first. */
    assert_int_equal(e.index, m->lowest_free);
    mnode *n = &m->n[e.index];
    assert_false(n->alive);
    n->alive = true;
    n->gen = e.generation;
    n->parent = parent;
    n->nkids = 0;
    n->comps = 0;
    if (parent < 0) push_u32(&m->roots, &m->nroots, &m->caproots, e.index);
    else push_u32(&m->n[parent].kids, &m->n[parent].nkids, &m->n[parent].capk, e.index);
    m->live_pos[e.index] = m->nlive;
    m->live[m->nlive++] = e.index;
    while (m->lowest_free < m->cap && m->n[m->lowest_free].alive) m->lowest_free++;
}

static void model_kill(model *m, uint32_t i)
{
    mnode *n = &m->n[i];
    for (uint32_t k = 0; k < n->nkids; k++) model_kill(m, n->kids[k]);
    n->alive = false;
    m->stale[m->nstale++ % 256] = handle(m, i);
    uint32_t p = m->live_pos[i], last = m->live[--m->nlive];
    m->live[p] = last;
    m->live_pos[last] = p;
    if (i < m->lowest_free) m->lowest_free = i;
}

static void model_unlink(model *m, uint32_t i)
{
    int64_t p = m->n[i].parent;
    if (p < 0) remove_u32(m->roots, &m->nroots, i);
    else remove_u32(m->n[p].kids, &m->n[p].nkids, i);
}

static bool model_in_subtree(const model *m, uint32_t root, uint32_t x)
{
    for (int64_t a = x; a >= 0; a = m->n[a].parent)
        if ((uint32_t)a == root) return true;
    return false;
}

static void model_preorder(const model *m, uint32_t i, uint32_t **out, uint32_t *n, uint32_t *cap)
{
    push_u32(out, n, cap, i);
    for (uint32_t k = 0; k < m->n[i].nkids; k++) model_preorder(m, m->n[i].kids[k], out, n, cap);
}

static uint32_t model_subtree_size(const model *m, uint32_t i)
{
    uint32_t s = 1;
    for (uint32_t k = 0; k < m->n[i].nkids; k++) s += model_subtree_size(m, m->n[i].kids[k]);
    return s;
}

/* ---- checks --------------------------------------------------------------------------------- */

static void from_scratch(orr_world *w, orr_entity e, orr_mat4d *out)
{
    orr_transform t;
    assert_int_equal(orr_entity_get_local(w, e, &t), ORR_OK);
    orr_mat4d l;
    orr_transform_to_matrix(&t, &l);
    orr_entity p = orr_entity_parent(w, e);
    if (p.generation == 0) {
        *out = l;
    } else {
        orr_mat4d pw;
        from_scratch(w, p, &pw);
        orr_mat4d_mul(&pw, &l, out);
    }
}

static void check_world(orr_world *w, model *m, orr_component_type user_type)
{
    assert_int_equal(orr_world_entity_count(w), m->nlive);
    /* roots */
    uint32_t nroots = orr_world_roots(w, NULL, 0);
    assert_int_equal(nroots, m->nroots);
    orr_entity *roots = malloc((nroots + 1) * sizeof *roots);
    orr_world_roots(w, roots, nroots);
    for (uint32_t i = 0; i < nroots; i++) assert_true(orr_entity_eq(roots[i], handle(m, m->roots[i])));
    free(roots);
    /* links */
    for (uint32_t li = 0; li < m->nlive; li++) {
        uint32_t i = m->live[li];
        orr_entity e = handle(m, i);
        const mnode *n = &m->n[i];
        assert_true(orr_entity_is_alive(w, e));
        orr_entity p = orr_entity_parent(w, e);
        if (n->parent < 0) assert_int_equal(p.generation, 0);
        else assert_true(orr_entity_eq(p, handle(m, (uint32_t)n->parent)));
        assert_int_equal(orr_entity_child_count(w, e), n->nkids);
        orr_entity c = orr_entity_first_child(w, e), prev = ORR_ENTITY_NONE;
        for (uint32_t k = 0; k < n->nkids; k++) {
            assert_true(orr_entity_eq(c, handle(m, n->kids[k])));
            assert_true(orr_entity_eq(orr_entity_prev_sibling(w, c), prev));
            assert_true(orr_entity_eq(orr_entity_parent(w, c), e));
            prev = c;
            c = orr_entity_next_sibling(w, c);
        }
        assert_int_equal(c.generation, 0);
        assert_true(orr_entity_eq(orr_entity_last_child(w, e), prev));
        /* components */
        assert_int_equal(orr_component_has(w, e, ORR_COMPONENT_MESH_RENDERER), (n->comps & 1) != 0);
        assert_int_equal(orr_component_has(w, e, ORR_COMPONENT_LIGHT), (n->comps & 2) != 0);
        assert_int_equal(orr_component_has(w, e, user_type), (n->comps & 4) != 0);
        if (n->comps & 4) assert_int_equal(*(const uint32_t *)orr_component_get(w, e, user_type), n->tag);
    }
    /* pre-order */
    uint32_t *pre = NULL, npre = 0, cappre = 0;
    for (uint32_t r = 0; r < m->nroots; r++) model_preorder(m, m->roots[r], &pre, &npre, &cappre);
    assert_int_equal(npre, m->nlive);
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    uint32_t k = 0;
    for (orr_entity e; orr_subtree_next(&it, &e); k++) {
        assert_true(k < npre);
        assert_true(orr_entity_eq(e, handle(m, pre[k])));
    }
    orr_subtree_end(&it);
    assert_int_equal(k, npre);
    /* queries: ascending entity index, exactly the model's sets */
    orr_component_type types[3] = {ORR_COMPONENT_MESH_RENDERER, ORR_COMPONENT_LIGHT, user_type};
    for (uint32_t t = 0; t < 4; t++) {
        uint8_t want = t < 3 ? (uint8_t)(1u << t) : 5; /* t == 3: MeshRenderer and the user type */
        orr_component_type qt[2] = {types[t < 3 ? t : 0], user_type};
        orr_query q;
        orr_query_begin(w, qt, t < 3 ? 1 : 2, &q);
        uint32_t expect = 0;
        while (orr_query_next(&q)) {
            while (expect < m->cap && !(m->n[expect].alive && (m->n[expect].comps & want) == want)) expect++;
            assert_true(expect < m->cap);
            assert_true(orr_entity_eq(q.entity, handle(m, expect)));
            assert_ptr_equal(q.components[0], orr_component_try_get(w, q.entity, qt[0]));
            expect++;
        }
        orr_query_end(&q);
        while (expect < m->cap && !(m->n[expect].alive && (m->n[expect].comps & want) == want)) expect++;
        assert_int_equal(expect, m->cap);
    }
    /* lazy world matrix of a few entities, before the update */
    for (uint32_t i = 0; i < m->nlive && i < 16; i++) {
        orr_entity e = handle(m, m->live[(i * 7919u) % m->nlive]);
        orr_mat4d a, b;
        assert_int_equal(orr_entity_world_matrix(w, e, &a), ORR_OK);
        from_scratch(w, e, &b);
        assert_memory_equal(&a, &b, sizeof a);
    }
    /* cached world matrices after the update, in pre-order (parents first) */
    orr_world_update_transforms(w);
    orr_mat4d *ws = malloc((m->cap + 1) * sizeof *ws);
    for (uint32_t j = 0; j < npre; j++) {
        orr_entity e = handle(m, pre[j]);
        orr_transform t;
        orr_entity_get_local(w, e, &t);
        orr_mat4d l;
        orr_transform_to_matrix(&t, &l);
        int64_t p = m->n[pre[j]].parent;
        if (p < 0) ws[pre[j]] = l;
        else orr_mat4d_mul(&ws[p], &l, &ws[pre[j]]);
        orr_mat4d c;
        assert_int_equal(orr_entity_cached_world(w, e, &c), ORR_OK);
        if (memcmp(&c, &ws[pre[j]], sizeof c) != 0)
            fail_msg("entity %u: cached world matrix differs from a from-scratch recomputation", pre[j]);
    }
    free(ws);
    free(pre);
    /* stale handles */
    for (uint32_t s = 0; s < m->nstale && s < 256; s++) {
        orr_entity e = m->stale[s];
        if (e.index < m->cap && m->n[e.index].alive && m->n[e.index].gen == e.generation) continue;
        assert_false(orr_entity_is_alive(w, e));
        orr_mat4d c;
        assert_int_equal(orr_entity_cached_world(w, e, &c), ORR_ERROR_STALE_HANDLE);
        orr_transform t;
        assert_int_equal(orr_entity_get_local(w, e, &t), ORR_ERROR_STALE_HANDLE);
        assert_null(orr_component_try_get(w, e, ORR_COMPONENT_MESH_RENDERER));
        assert_int_equal(orr_entity_set_translation(w, e, (orr_vec3d){1, 2, 3}), ORR_ERROR_STALE_HANDLE);
        assert_int_equal(orr_entity_parent(w, e).generation, 0);
    }
}

/* ---- operations ------------------------------------------------------------------------------ */

static orr_quatd random_rotation(rng *r)
{
    return orr_quatd_normalize(
        (orr_quatd){uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1)});
}

static orr_transform random_local(rng *r)
{
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){uniform(r, -10, 10), uniform(r, -10, 10), uniform(r, -10, 10)};
    t.rotation = random_rotation(r);
    if (below(r, 4) == 0) {
        double s = uniform(r, 0.8, 1.25);
        t.scale = (orr_vec3d){s, s, s};
    } else if (below(r, 4) == 0) {
        t.scale = (orr_vec3d){uniform(r, 0.8, 1.25), uniform(r, 0.8, 1.25), uniform(r, 0.8, 1.25)};
    }
    if (below(r, 16) == 0) {
        t.has_matrix = true;
        orr_mat4d_from_trs((orr_vec3d){uniform(r, -1, 1), 0, 0}, random_rotation(r), (orr_vec3d){1, 1.1, 0.9},
                           &t.matrix);
    }
    return t;
}

static void op_clone(orr_world *w, model *m, rng *r, uint32_t src, int64_t parent)
{
    uint32_t *pre = NULL, npre = 0, cap = 0;
    model_preorder(m, src, &pre, &npre, &cap);
    orr_entity pe = parent < 0 ? ORR_ENTITY_NONE : handle(m, (uint32_t)parent);
    orr_transform lt = random_local(r);
    bool use_local = below(r, 2) == 0;
    orr_entity root;
    assert_int_equal(orr_world_clone(w, NULL, handle(m, src), pe, use_local ? &lt : NULL, &root), ORR_OK);
    /* The clone's pre-order matches the source's; add it to the model position by position. */
    uint32_t *map = malloc(npre * sizeof *map);
    orr_subtree_iter it;
    orr_subtree_begin(w, root, &it);
    uint32_t k = 0;
    orr_entity got[4096];
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        assert_true(k < npre && k < 4096);
        got[k++] = e;
    }
    orr_subtree_end(&it);
    assert_int_equal(k, npre);
    /* creation order is pre-order, so the lowest-free check applies position by position */
    for (uint32_t i = 0; i < npre; i++) {
        int64_t p = parent;
        if (i > 0) {
            uint32_t sp = (uint32_t)m->n[pre[i]].parent;
            uint32_t j = 0;
            while (pre[j] != sp) j++;
            p = map[j];
        }
        model_add(m, got[i], p);
        map[i] = got[i].index;
        m->n[got[i].index].comps = m->n[pre[i]].comps;
        m->n[got[i].index].tag = m->n[pre[i]].tag;
    }
    free(map);
    free(pre);
}

static void run_random(uint64_t ops, uint64_t seed, uint32_t target, uint32_t check_every)
{
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_component_desc ud = {.name = "Tag", .size = sizeof(uint32_t), .alignment = 4};
    orr_component_type user_type;
    assert_int_equal(orr_world_register_component(w, &ud, &user_type), ORR_OK);
    model m = {0};
    rng r = {seed ? seed : 1};
    uint64_t stats[8] = {0}; /* creates, destroys, reparents, cycles refused, sibling moves, clones, cloned nodes, max live */
    for (uint64_t op = 0; op < ops; op++) {
        uint32_t roll = below(&r, 100);
        uint32_t n = m.nlive;
        uint32_t pick = n ? m.live[below(&r, n)] : 0;
        if (n == 0 || roll < (n < target ? 22u : 12u)) {
            /* create */
            int64_t parent = (n == 0 || below(&r, 4) == 0) ? -1 : (int64_t)m.live[below(&r, n)];
            orr_transform t = random_local(&r);
            orr_entity_desc d = {.parent = parent < 0 ? ORR_ENTITY_NONE : handle(&m, (uint32_t)parent), .local = &t};
            orr_entity e;
            assert_int_equal(orr_entity_create(w, &d, &e), ORR_OK);
            model_add(&m, e, parent);
            stats[0]++;
        } else if (roll < 30) {
            /* destroy: keep the world near the target size */
            if (n > target / 4 || below(&r, 3) == 0) {
                if (model_subtree_size(&m, pick) > target / 2 && n < target) continue;
                assert_int_equal(orr_entity_destroy(w, handle(&m, pick)), ORR_OK);
                model_unlink(&m, pick);
                model_kill(&m, pick);
                stats[1]++;
            }
        } else if (roll < 42) {
            /* reparent, both modes; a cycle must fail and change nothing */
            int64_t parent = below(&r, 5) == 0 ? -1 : (int64_t)m.live[below(&r, n)];
            orr_parent_mode mode = below(&r, 2) ? ORR_KEEP_WORLD : ORR_KEEP_LOCAL;
            uint64_t sv = orr_world_structure_version(w);
            orr_result res = orr_entity_set_parent(w, handle(&m, pick),
                                                   parent < 0 ? ORR_ENTITY_NONE : handle(&m, (uint32_t)parent), mode);
            if (parent >= 0 && model_in_subtree(&m, pick, (uint32_t)parent)) {
                assert_int_equal(res, ORR_ERROR_CYCLE);
                stats[3]++;
                assert_int_equal(orr_world_structure_version(w), sv);
            } else {
                assert_int_equal(res, ORR_OK);
                stats[2]++;
                model_unlink(&m, pick);
                m.n[pick].parent = parent;
                if (parent < 0) push_u32(&m.roots, &m.nroots, &m.caproots, pick);
                else push_u32(&m.n[parent].kids, &m.n[parent].nkids, &m.n[parent].capk, pick);
            }
        } else if (roll < 46) {
            /* sibling index */
            int64_t p = m.n[pick].parent;
            uint32_t sibs = p < 0 ? m.nroots : m.n[p].nkids;
            uint32_t at = below(&r, sibs + 2);
            assert_int_equal(orr_entity_set_sibling_index(w, handle(&m, pick), at), ORR_OK);
            stats[4]++;
            model_unlink(&m, pick);
            if (p < 0) insert_u32(&m.roots, &m.nroots, &m.caproots, at, pick);
            else insert_u32(&m.n[p].kids, &m.n[p].nkids, &m.n[p].capk, at, pick);
            assert_int_equal(orr_entity_sibling_index(w, handle(&m, pick)), at < sibs ? at : sibs - 1);
        } else if (roll < 49) {
            /* clone */
            if (model_subtree_size(&m, pick) > 64) continue;
            int64_t parent = below(&r, 3) == 0 ? -1 : (int64_t)m.live[below(&r, n)];
            uint32_t before = m.nlive;
            op_clone(w, &m, &r, pick, parent);
            stats[5]++;
            stats[6] += m.nlive - before;
        } else if (roll < 50) {
            /* reserve: a hint that changes nothing observable, here in the middle of the churn */
            assert_int_equal(orr_world_reserve(w, m.nlive + below(&r, 256)), ORR_OK);
            assert_int_equal(orr_component_reserve(w, below(&r, 2) ? user_type : ORR_COMPONENT_MESH_RENDERER,
                                                   below(&r, 512)),
                             ORR_OK);
        } else if (roll < 60) {
            /* components */
            uint32_t bit = below(&r, 3);
            orr_component_type t = bit == 0 ? ORR_COMPONENT_MESH_RENDERER : bit == 1 ? ORR_COMPONENT_LIGHT : user_type;
            orr_entity e = handle(&m, pick);
            if (m.n[pick].comps & (1u << bit)) {
                assert_int_equal(orr_component_remove(w, e, t), ORR_OK);
                m.n[pick].comps &= (uint8_t)~(1u << bit);
            } else {
                uint32_t tag = pick * 7u;
                assert_int_equal(orr_component_add(w, e, t, bit == 2 ? &tag : NULL, NULL), ORR_OK);
                m.n[pick].comps |= (uint8_t)(1u << bit);
                if (bit == 2) m.n[pick].tag = tag;
            }
        } else if (roll < 90) {
            /* transform edits */
            orr_entity e = handle(&m, pick);
            orr_transform t = random_local(&r);
            switch (below(&r, 5)) {
            case 0: assert_int_equal(orr_entity_set_translation(w, e, t.translation), ORR_OK); break;
            case 1: assert_int_equal(orr_entity_set_rotation(w, e, t.rotation), ORR_OK); break;
            case 2: assert_int_equal(orr_entity_set_scale(w, e, t.scale), ORR_OK); break;
            case 3: assert_int_equal(orr_entity_set_local(w, e, &t), ORR_OK); break;
            default: {
                orr_mat4d wm;
                orr_transform_to_matrix(&t, &wm);
                assert_int_equal(orr_entity_set_world_matrix(w, e, &wm), ORR_OK);
                break;
            }
            }
        } else if (roll < 95) {
            orr_world_update_transforms(w);
        } else {
            /* a stale handle changes nothing */
            if (m.nstale) {
                orr_entity s = m.stale[below(&r, m.nstale < 256 ? m.nstale : 256)];
                if (!(s.index < m.cap && m.n[s.index].alive && m.n[s.index].gen == s.generation)) {
                    uint64_t sv = orr_world_structure_version(w);
                    assert_int_equal(orr_entity_destroy(w, s), ORR_ERROR_STALE_HANDLE);
                    assert_int_equal(orr_entity_set_parent(w, s, ORR_ENTITY_NONE, ORR_KEEP_WORLD), ORR_ERROR_STALE_HANDLE);
                    assert_int_equal(orr_component_add(w, s, ORR_COMPONENT_LIGHT, NULL, NULL), ORR_ERROR_STALE_HANDLE);
                    assert_int_equal(orr_world_structure_version(w), sv);
                }
            }
        }
        if (m.nlive > stats[7]) stats[7] = m.nlive;
        if (op % check_every == check_every - 1) check_world(w, &m, user_type);
    }
    print_message("creates %llu, destroys %llu, reparents %llu, cycles refused %llu, sibling moves %llu, clones %llu "
                  "(%llu nodes), most alive %llu, alive at the end %u\n",
                  (unsigned long long)stats[0], (unsigned long long)stats[1], (unsigned long long)stats[2],
                  (unsigned long long)stats[3], (unsigned long long)stats[4], (unsigned long long)stats[5],
                  (unsigned long long)stats[6], (unsigned long long)stats[7], m.nlive);
    check_world(w, &m, user_type);
    orr_world_destroy(w);
    for (uint32_t i = 0; i < m.cap; i++) free(m.n[i].kids);
    free(m.n);
    free(m.roots);
    free(m.live);
    free(m.live_pos);
}

static void test_random_ops(void **state)
{
    (void)state;
    const char *e = getenv("ORRERY_WORLD_RANDOM_OPS");
    const char *s = getenv("ORRERY_WORLD_RANDOM_SEED");
    uint64_t ops = e ? strtoull(e, NULL, 10) : 1000000;
    uint64_t seed = s ? strtoull(s, NULL, 10) : 0x5eedf00dULL;
    print_message("random world ops: %llu (seed %llu)\n", (unsigned long long)ops, (unsigned long long)seed);
    run_random(ops, seed, 600, 500);
}

/* A larger world, so that paged maps span several pages, pools pass the size at which they are put
 * back in entity order, and node-table compaction kicks in. */
static void test_random_ops_large(void **state)
{
    (void)state;
    const char *e = getenv("ORRERY_WORLD_RANDOM_OPS");
    uint64_t ops = e ? strtoull(e, NULL, 10) / 4 : 50000;
    print_message("random world ops, large world: %llu\n", (unsigned long long)ops);
    run_random(ops, 0xfeedbeefULL, 6000, 5000);
}

const struct CMUnitTest orrt_world_random_tests[] = {
    cmocka_unit_test(test_random_ops),
    cmocka_unit_test(test_random_ops_large),
};
const size_t orrt_world_random_count = sizeof orrt_world_random_tests / sizeof orrt_world_random_tests[0];
