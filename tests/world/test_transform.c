/* World transforms: hand-computed world matrices, lazy versus cached, set_world_matrix, reparent
 * keeping world or local pose (shear kept as the local matrix), local matrices, dirty propagation. */
#include "testutil.h"

#include <math.h>
#include <orrery/world.h>
#include <string.h>

#include "world/world_internal.h" /* one white-box test: poisoning a cached matrix */

static void assert_mat_near(const orr_mat4d *a, const orr_mat4d *b, double eps)
{
    for (int i = 0; i < 16; i++)
        if (fabs(a->m[i] - b->m[i]) > eps) fail_msg("m[%d]: %.17g != %.17g", i, a->m[i], b->m[i]);
}

/* The cached world matrix, by value (identity when stale). */
static orr_mat4d cached(const orr_world *w, orr_entity e)
{
    orr_mat4d m;
    orr_entity_cached_world(w, e, &m);
    return m;
}

static void assert_cached_equal(const orr_world *w, orr_entity e, const orr_mat4d *expect)
{
    orr_mat4d m = cached(w, e);
    assert_memory_equal(&m, expect, sizeof m);
}

static void assert_vec_near(orr_vec3d a, orr_vec3d b, double eps)
{
    if (fabs(a.x - b.x) > eps || fabs(a.y - b.y) > eps || fabs(a.z - b.z) > eps)
        fail_msg("(%.17g %.17g %.17g) != (%.17g %.17g %.17g)", a.x, a.y, a.z, b.x, b.y, b.z);
}

static orr_entity make(orr_world *w, orr_entity parent, orr_vec3d t, orr_quatd r, orr_vec3d s)
{
    orr_transform l = orr_transform_identity();
    l.translation = t;
    l.rotation = r;
    l.scale = s;
    orr_entity_desc d = {.parent = parent, .local = &l};
    orr_entity e;
    assert_int_equal(orr_entity_create(w, &d, &e), ORR_OK);
    return e;
}

static void test_hand_computed(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    /* parent: translate (10,0,0), rotate 90 degrees about Z, scale 2; child: translate (1,0,0) */
    orr_quatd rz = orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, ORR_PI / 2);
    orr_entity p = make(w, ORR_ENTITY_NONE, (orr_vec3d){10, 0, 0}, rz, (orr_vec3d){2, 2, 2});
    orr_entity c = make(w, p, (orr_vec3d){1, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_entity g = make(w, c, (orr_vec3d){0, 1, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){3, 3, 3});
    orr_world_update_transforms(w);
    /* child origin: 10 + R(2 * (1,0,0)) = (10, 2, 0); grandchild: child + R(2 * (0,1,0)) = (8, 2, 0) */
    assert_vec_near(orr_mat4d_translation((orr_mat4d[]){cached(w, c)}), (orr_vec3d){10, 2, 0}, 1e-12);
    assert_vec_near(orr_mat4d_translation((orr_mat4d[]){cached(w, g)}), (orr_vec3d){8, 2, 0}, 1e-12);
    /* grandchild x axis: R(6 * x) = (0, 6, 0) */
    const orr_mat4d *gw = (orr_mat4d[]){cached(w, g)};
    assert_vec_near((orr_vec3d){gw->m[0], gw->m[1], gw->m[2]}, (orr_vec3d){0, 6, 0}, 1e-12);
    /* a point (1,0,0) in the grandchild: (8,2,0) + (0,6,0) */
    assert_vec_near(orr_mat4d_transform_point(gw, (orr_vec3d){1, 0, 0}), (orr_vec3d){8, 8, 0}, 1e-12);
    orr_world_destroy(w);
}

static void test_lazy_and_cached(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity p = make(w, ORR_ENTITY_NONE, (orr_vec3d){1, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_entity c = make(w, p, (orr_vec3d){0, 1, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_entity s = make(w, ORR_ENTITY_NONE, (orr_vec3d){5, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_world_update_transforms(w);
    orr_mat4d before_s = cached(w, s);
    assert_int_equal(orr_entity_set_translation(w, p, (orr_vec3d){2, 0, 0}), ORR_OK);
    /* lazy: sees the change at once; the cache sees it after the update */
    orr_mat4d lazy;
    assert_int_equal(orr_entity_world_matrix(w, c, &lazy), ORR_OK);
    assert_vec_near(orr_mat4d_translation(&lazy), (orr_vec3d){2, 1, 0}, 0);
    assert_vec_near(orr_mat4d_translation((orr_mat4d[]){cached(w, c)}), (orr_vec3d){1, 1, 0}, 0);
    orr_world_update_transforms(w);
    assert_cached_equal(w, c, &lazy);
    assert_cached_equal(w, s, &before_s);
    /* the other setters */
    assert_int_equal(orr_entity_set_scale(w, p, (orr_vec3d){2, 2, 2}), ORR_OK);
    assert_int_equal(orr_entity_set_rotation(w, p, orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, ORR_PI)), ORR_OK);
    orr_world_update_transforms(w);
    assert_vec_near(orr_mat4d_translation((orr_mat4d[]){cached(w, c)}), (orr_vec3d){2, -2, 0}, 1e-12);
    orr_transform t;
    assert_int_equal(orr_entity_get_local(w, p, &t), ORR_OK);
    assert_vec_near(t.scale, (orr_vec3d){2, 2, 2}, 0);
    orr_transform lt;
    assert_int_equal(orr_entity_get_local(w, c, &lt), ORR_OK);
    assert_vec_near(lt.translation, (orr_vec3d){0, 1, 0}, 0);
    assert_false(lt.has_matrix);
    /* invalidate recomputes everything to the same values */
    orr_mat4d cw = cached(w, c);
    orr_world_invalidate_transforms(w);
    assert_int_equal(orr_entity_world_matrix(w, c, &lazy), ORR_OK);
    assert_memory_equal(&lazy, &cw, sizeof cw);
    orr_world_update_transforms(w);
    assert_cached_equal(w, c, &cw);
    orr_world_destroy(w);
}

static void test_local_matrix(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){1, 0, 0};
    t.has_matrix = true;
    orr_mat4d_identity(&t.matrix);
    t.matrix.m[12] = 5; /* matrix translates by 5 in x, then T by 1 */
    t.matrix.m[4] = 0.5; /* and shears */
    orr_entity_desc d = {.local = &t};
    orr_entity e;
    assert_int_equal(orr_entity_create(w, &d, &e), ORR_OK);
    orr_world_update_transforms(w);
    const orr_mat4d *m = (orr_mat4d[]){cached(w, e)};
    assert_vec_near(orr_mat4d_transform_point(m, (orr_vec3d){0, 2, 0}), (orr_vec3d){7, 2, 0}, 1e-12);
    orr_transform back;
    orr_entity_get_local(w, e, &back);
    assert_true(back.has_matrix);
    assert_memory_equal(&back.matrix, &t.matrix, sizeof t.matrix);
    /* clearing the matrix */
    t.has_matrix = false;
    assert_int_equal(orr_entity_set_local(w, e, &t), ORR_OK);
    orr_world_update_transforms(w);
    assert_vec_near(orr_mat4d_translation((orr_mat4d[]){cached(w, e)}), (orr_vec3d){1, 0, 0}, 0);
    orr_entity_get_local(w, e, &back);
    assert_false(back.has_matrix);
    orr_world_destroy(w);
}

static void test_projective_local_matrix(void **state)
{
    (void)state;
    /* A local matrix whose last row is not 0 0 0 1 (glTF forbids them) is kept as given; world matrices
     * stay affine: parent world x local, with the last row then set to 0 0 0 1. */
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){1, 2, 3};
    t.has_matrix = true;
    orr_mat4d_identity(&t.matrix);
    t.matrix.m[3] = 0.5;
    t.matrix.m[12] = 4;
    t.matrix.m[15] = 2;
    orr_entity p, c;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.local = &t}, &p), ORR_OK);
    c = make(w, p, (orr_vec3d){1, 0, 0}, orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, 0.4), ORR_VEC3_ONE);
    orr_world_update_transforms(w);
    orr_mat4d expect_p, local_c, expect_c, lazy;
    orr_transform_to_matrix(&t, &expect_p);
    expect_p.m[3] = expect_p.m[7] = expect_p.m[11] = 0;
    expect_p.m[15] = 1;
    assert_cached_equal(w, p, &expect_p);
    orr_transform lc;
    orr_entity_get_local(w, c, &lc);
    orr_transform_to_matrix(&lc, &local_c);
    orr_mat4d_mul(&expect_p, &local_c, &expect_c);
    assert_cached_equal(w, c, &expect_c);
    assert_int_equal(orr_entity_world_matrix(w, c, &lazy), ORR_OK);
    assert_memory_equal(&lazy, &expect_c, sizeof lazy);
    orr_transform back;
    orr_entity_get_local(w, p, &back);
    assert_memory_equal(&back.matrix, &t.matrix, sizeof t.matrix);
    orr_world_destroy(w);
}

static void test_set_world_matrix(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity p = make(w, ORR_ENTITY_NONE, (orr_vec3d){3, 4, 5},
                        orr_quatd_from_axis_angle((orr_vec3d){1, 1, 0}, 0.7), (orr_vec3d){2, 2, 2});
    orr_entity c = make(w, p, (orr_vec3d){1, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_mat4d target;
    orr_mat4d_from_trs((orr_vec3d){-7, 1, 2}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 1.1),
                       (orr_vec3d){0.5, 0.5, 0.5}, &target);
    assert_int_equal(orr_entity_set_world_matrix(w, c, &target), ORR_OK);
    orr_mat4d got;
    orr_entity_world_matrix(w, c, &got);
    assert_mat_near(&got, &target, 1e-12);
    orr_world_update_transforms(w);
    assert_mat_near((orr_mat4d[]){cached(w, c)}, &target, 1e-12);
    orr_transform t;
    orr_entity_get_local(w, c, &t);
    assert_false(t.has_matrix);
    assert_vec_near(t.scale, (orr_vec3d){0.25, 0.25, 0.25}, 1e-12);
    orr_world_destroy(w);
}

static void test_reparent_modes(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity a = make(w, ORR_ENTITY_NONE, (orr_vec3d){1, 2, 3},
                        orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, 0.3), (orr_vec3d){2, 2, 2});
    orr_entity b = make(w, ORR_ENTITY_NONE, (orr_vec3d){-4, 0, 1},
                        orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, 1.2), ORR_VEC3_ONE);
    orr_entity c = make(w, a, (orr_vec3d){0, 1, 0}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.5), ORR_VEC3_ONE);
    orr_mat4d before, after;
    orr_entity_world_matrix(w, c, &before);
    /* keep world */
    assert_int_equal(orr_entity_set_parent(w, c, b, ORR_KEEP_WORLD), ORR_OK);
    orr_entity_world_matrix(w, c, &after);
    assert_mat_near(&after, &before, 1e-12);
    orr_world_update_transforms(w);
    assert_mat_near((orr_mat4d[]){cached(w, c)}, &before, 1e-12);
    /* keep local */
    orr_transform l0, l1;
    orr_entity_get_local(w, c, &l0);
    assert_int_equal(orr_entity_set_parent(w, c, a, ORR_KEEP_LOCAL), ORR_OK);
    orr_entity_get_local(w, c, &l1);
    assert_memory_equal(&l0, &l1, sizeof l0);
    orr_world_update_transforms(w);
    orr_mat4d aw = cached(w, a), lm, expect;
    orr_transform_to_matrix(&l1, &lm);
    orr_mat4d_mul(&aw, &lm, &expect);
    assert_cached_equal(w, c, &expect);
    /* to none: a root, world kept */
    orr_entity_world_matrix(w, c, &before);
    assert_int_equal(orr_entity_set_parent(w, c, ORR_ENTITY_NONE, ORR_KEEP_WORLD), ORR_OK);
    orr_entity_world_matrix(w, c, &after);
    assert_mat_near(&after, &before, 1e-12);
    orr_world_destroy(w);
}

static void test_reparent_shear(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    /* a non-uniformly scaled parent; a rotated child kept in world space under it needs shear */
    orr_entity p = make(w, ORR_ENTITY_NONE, (orr_vec3d){0, 0, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){1, 3, 1});
    orr_entity c = make(w, ORR_ENTITY_NONE, (orr_vec3d){1, 1, 1}, orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, 0.6),
                        ORR_VEC3_ONE);
    orr_mat4d before, after;
    orr_entity_world_matrix(w, c, &before);
    assert_int_equal(orr_entity_set_parent(w, c, p, ORR_KEEP_WORLD), ORR_OK);
    orr_transform t;
    orr_entity_get_local(w, c, &t);
    assert_true(t.has_matrix);
    assert_vec_near(t.translation, (orr_vec3d){0, 0, 0}, 0);
    assert_vec_near(t.scale, ORR_VEC3_ONE, 0);
    orr_world_update_transforms(w);
    after = cached(w, c);
    assert_mat_near(&after, &before, 1e-12);
    orr_world_destroy(w);
}

static void test_propagation_touches_dirty_only(void **state)
{
    (void)state;
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    enum { N = 200 };
    orr_entity e[N];
    for (int i = 0; i < N; i++)
        e[i] = make(w, i % 10 ? e[i - i % 10] : ORR_ENTITY_NONE, (orr_vec3d){i, 0, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE);
    orr_world_update_transforms(w);
    /* Poison one cached matrix (white-box: the public API only copies it out): an update with nothing
     * dirty must not touch it. */
    double *poison = &w->world[w->slot_of[e[55].index].slot].m[0];
    orr_mat4d saved = cached(w, e[55]);
    *poison = 42;
    orr_world_update_transforms(w);
    assert_true(cached(w, e[55]).m[0] == 42);
    /* Dirtying another subtree leaves it alone too; dirtying its root recomputes it. */
    orr_entity_set_translation(w, e[70], (orr_vec3d){1, 1, 1});
    orr_world_update_transforms(w);
    assert_true(cached(w, e[55]).m[0] == 42);
    assert_vec_near(orr_mat4d_translation((orr_mat4d[]){cached(w, e[71])}), (orr_vec3d){72, 1, 1}, 0);
    orr_entity_set_translation(w, e[50], (orr_vec3d){50, 0, 0});
    orr_world_update_transforms(w);
    assert_cached_equal(w, e[55], &saved);
    orr_world_destroy(w);
}

static void test_churn_keeps_results(void **state)
{
    (void)state;
    /* Heavy churn (out-of-order creates, moves, destroys) then a full check against a fresh world built
     * in order: the table order is internal and must never show. */
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    enum { N = 3000 };
    static orr_entity e[N];
    for (int i = 0; i < N; i++) {
        orr_entity parent = i > 10 ? e[(i * 7919) % i] : ORR_ENTITY_NONE;
        e[i] = make(w, parent, (orr_vec3d){i % 7, i % 5, i % 3}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, i * 0.01),
                    ORR_VEC3_ONE);
    }
    for (int i = 0; i < N; i += 13) orr_entity_set_parent(w, e[i], e[(i * 31) % N], ORR_KEEP_LOCAL);
    orr_world_update_transforms(w);
    for (int i = 0; i < N; i += 17) orr_entity_set_translation(w, e[i], (orr_vec3d){1, 2, 3});
    orr_world_update_transforms(w);
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    uint32_t count = 0;
    for (orr_entity x; orr_subtree_next(&it, &x); count++) {
        orr_mat4d lazy;
        orr_entity_world_matrix(w, x, &lazy);
        assert_cached_equal(w, x, &lazy);
    }
    orr_subtree_end(&it);
    assert_int_equal(count, N);
    orr_world_destroy(w);
}

const struct CMUnitTest orrt_world_transform_tests[] = {
    cmocka_unit_test(test_hand_computed),
    cmocka_unit_test(test_lazy_and_cached),
    cmocka_unit_test(test_local_matrix),
    cmocka_unit_test(test_projective_local_matrix),
    cmocka_unit_test(test_set_world_matrix),
    cmocka_unit_test(test_reparent_modes),
    cmocka_unit_test(test_reparent_shear),
    cmocka_unit_test(test_propagation_touches_dirty_only),
    cmocka_unit_test(test_churn_keeps_results),
};
const size_t orrt_world_transform_count = sizeof orrt_world_transform_tests / sizeof orrt_world_transform_tests[0];
