/* The snapshot module alone (no world, no frame module linked): a hand-built snapshot is copied, the
 * copy equals it field for field, each field changed makes them differ, and the diff names exactly the
 * instances that changed, left or came, and whether the layout, lights, cameras or fur changed. */
#include "testutil.h"

#include <orrery/snapshot.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_tests.h"

/* Three instances (the second skinned with two joints, the third with two material overrides and fur),
 * a light and a camera, names for all; arrays from `s`'s allocator, so that fini frees them. */
void orrt_snapshot_build(orr_snapshot *s, uint64_t frame)
{
    const orr_allocator *a = &s->allocator;
    s->frame = frame;
    s->tick = frame * 2;
    s->revision = 40 + frame;
    s->structure_version = 3;
    s->layout_version = 1;
    s->instance_count = s->instance_capacity = 3;
    s->instances = a->realloc(a->user, NULL, 0, 3 * sizeof *s->instances);
    memset(s->instances, 0, 3 * sizeof *s->instances);
    static const char names[] = "root\0arm\0lamp\0eye\0rock\0arm"; /* the last one named by nobody */
    s->names_size = s->names_capacity = sizeof names;
    s->names = a->realloc(a->user, NULL, 0, sizeof names);
    memcpy(s->names, names, sizeof names);
    s->index_capacity = 8;
    s->index_of = a->realloc(a->user, NULL, 0, 8 * sizeof *s->index_of);
    memset(s->index_of, 0xff, 8 * sizeof *s->index_of);
    static const uint32_t ids[3] = {5, 2, 7}, name_at[3] = {0, 5, 18};
    for (uint32_t i = 0; i < 3; i++) {
        orr_render_instance *in = &s->instances[i];
        orr_affine3d_identity(&in->world);
        in->world.m[9] = 1.5 * i;
        in->entity = (orr_entity){ids[i], 1};
        in->id = ids[i];
        in->joint_offset = UINT32_MAX;
        in->layers = 1;
        in->visible = true;
        in->casts_shadows = true;
        in->mesh = (orr_mesh_id){1 + i % 2, 1};
        in->bounds = (orr_aabbf){{-1, -1, -1}, {1, 1, 1}};
        in->name = name_at[i];
        s->index_of[ids[i]] = i;
    }
    s->joint_count = s->joint_capacity = 2;
    s->joints = a->realloc(a->user, NULL, 0, 2 * sizeof *s->joints);
    orr_affine3d_identity(&s->joints[0]);
    orr_affine3d_identity(&s->joints[1]);
    s->joints[1].m[10] = 0.25;
    s->instances[1].joint_offset = 0;
    s->instances[1].joint_count = 2;
    s->material_binding_count = s->material_binding_capacity = 2;
    s->material_bindings = a->realloc(a->user, NULL, 0, 2 * sizeof *s->material_bindings);
    s->material_bindings[0] = (orr_material_id){3, 1};
    s->material_bindings[1] = (orr_material_id){4, 2};
    s->instances[2].material_offset = 0;
    s->instances[2].material_count = 2;
    s->fur_count = s->fur_capacity = 1;
    s->fur = a->realloc(a->user, NULL, 0, sizeof *s->fur);
    s->fur[0] = (orr_render_fur){.instance = 2, .set = 1, .shell_count = 8, .shell_length = 0.1f, .density = 4, .thinning = 0.5f};
    s->light_count = s->light_capacity = 1;
    s->lights = a->realloc(a->user, NULL, 0, sizeof *s->lights);
    memset(s->lights, 0, sizeof *s->lights);
    s->lights[0] = (orr_render_light){.entity = {9, 1}, .name = 9, .type = ORR_LIGHT_DIRECTIONAL, .color = {1, 1, 1},
                                      .intensity = 3};
    orr_affine3d_identity(&s->lights[0].world);
    s->camera_count = s->camera_capacity = 1;
    s->cameras = a->realloc(a->user, NULL, 0, sizeof *s->cameras);
    memset(s->cameras, 0, sizeof *s->cameras);
    s->cameras[0].entity = (orr_entity){10, 1};
    s->cameras[0].name = 14;
    orr_affine3d_identity(&s->cameras[0].world);
    s->cameras[0].yfov = 0.8;
    s->cameras[0].znear = 0.1;
    s->changed_count = s->changed_capacity = 1;
    s->changed = a->realloc(a->user, NULL, 0, sizeof *s->changed);
    s->changed[0] = 2;
    /* the first instance is morphed: two weights */
    s->weight_count = s->weight_capacity = 2;
    s->weights = a->realloc(a->user, NULL, 0, 2 * sizeof *s->weights);
    s->weights[0] = 0.25f;
    s->weights[1] = 1.5f;
    s->instances[0].weight_offset = 0;
    s->instances[0].weight_count = 2;
}

static void test_copy_equals(void **state)
{
    (void)state;
    orr_snapshot s, c;
    orr_snapshot_init(&s, NULL);
    orr_snapshot_init(&c, NULL);
    orrt_snapshot_build(&s, 4);
    assert_int_equal(orr_snapshot_copy(&s, &c), ORR_OK);
    assert_true(orr_snapshot_equal(&s, &c));
    assert_true(c.instances != s.instances && c.joints != s.joints && c.fur != s.fur && c.names != s.names);
    assert_int_equal(orr_snapshot_find(&c, 7), 2);
    /* each field, changed in the copy, makes the two differ, and the diff names that instance */
    orr_snapshot_delta d;
    orr_snapshot_delta_init(&d, NULL);
    for (int field = 0; field < 13; field++) {
        assert_int_equal(orr_snapshot_copy(&s, &c), ORR_OK);
        uint32_t expect = UINT32_MAX;
        bool layout = false;
        switch (field) {
        case 0: c.instances[0].world.m[9] = 1e-300, expect = 5; break;
        case 1: c.joints[1].m[0] = -1, expect = 2; break;
        case 2: c.material_bindings[1].generation = 3, expect = 7, layout = true; break;
        case 3: c.instances[1].name = 9, expect = 2; break; /* "lamp" instead of "arm" */
        case 4: c.instances[0].visible = false, expect = 5; break;
        case 5: c.instances[2].mesh.index = 9, expect = 7, layout = true; break;
        case 6: c.fur[0].density = 5, expect = 7; break;
        case 7: c.instances[0].layers = 2, expect = 5; break;
        case 8: c.instances[1].bounds.max.y = 2, expect = 2; break;
        case 9: c.lights[0].intensity = 4; break;
        case 10: c.cameras[0].yfov = 0.9; break;
        case 11: c.tick++; break;
        case 12: c.weights[1] = 1.25f, expect = 5; break;
        }
        if (orr_snapshot_equal(&s, &c)) fail_msg("field %d changed, the snapshots still compare equal", field);
        assert_int_equal(orr_snapshot_diff(&s, &c, &d), ORR_OK);
        assert_int_equal(d.changed_count, expect == UINT32_MAX ? 0 : 1);
        if (expect != UINT32_MAX) assert_int_equal(d.changed[0], expect);
        assert_int_equal(d.removed_count, 0);
        assert_int_equal(d.layout, layout);
        assert_int_equal(d.lights, field == 9);
        assert_int_equal(d.cameras, field == 10);
        assert_int_equal(d.fur, field == 6);
    }
    /* a name's offset or a binding's place does not matter, what it points at does */
    assert_int_equal(orr_snapshot_copy(&s, &c), ORR_OK);
    c.names[5] = 'A';
    assert_false(orr_snapshot_equal(&s, &c));
    assert_int_equal(orr_snapshot_copy(&s, &c), ORR_OK);
    c.instances[1].name = 23; /* the other "arm" */
    assert_true(orr_snapshot_equal(&s, &c));
    orr_snapshot_delta_fini(&d);
    orr_snapshot_fini(&s);
    orr_snapshot_fini(&c);
    orr_snapshot_fini(&c); /* twice: harmless */
    orr_snapshot_fini(NULL);
}

static void test_diff_sets(void **state)
{
    (void)state;
    orr_snapshot s, c;
    orr_snapshot_init(&s, NULL);
    orr_snapshot_init(&c, NULL);
    orrt_snapshot_build(&s, 4);
    orr_snapshot_delta d;
    orr_snapshot_delta_init(&d, NULL);
    /* from nothing: everything is new */
    assert_int_equal(orr_snapshot_diff(NULL, &s, &d), ORR_OK);
    assert_int_equal(d.changed_count, 3);
    assert_true(d.layout && d.lights && d.cameras && d.fur);
    /* the same: nothing */
    assert_int_equal(orr_snapshot_copy(&s, &c), ORR_OK);
    assert_int_equal(orr_snapshot_diff(&s, &c, &d), ORR_OK);
    assert_int_equal(d.changed_count + d.removed_count, 0);
    assert_false(d.layout || d.lights || d.cameras || d.fur);
    /* instance 2 (id 2) leaves, a new id 3 takes its place */
    c.instances[1].id = 3;
    c.instances[1].entity.index = 3;
    c.index_of[2] = UINT32_MAX;
    c.index_of[3] = 1;
    assert_int_equal(orr_snapshot_diff(&s, &c, &d), ORR_OK);
    assert_int_equal(d.changed_count, 1);
    assert_int_equal(d.changed[0], 3);
    assert_int_equal(d.removed_count, 1);
    assert_int_equal(d.removed[0], 2);
    assert_true(d.layout);
    /* two swap places: same data, another order */
    assert_int_equal(orr_snapshot_copy(&s, &c), ORR_OK);
    orr_render_instance t = c.instances[0];
    c.instances[0] = c.instances[1];
    c.instances[1] = t;
    c.index_of[5] = 1;
    c.index_of[2] = 0;
    assert_int_equal(orr_snapshot_diff(&s, &c, &d), ORR_OK);
    assert_int_equal(d.changed_count, 0);
    assert_true(d.layout);
    assert_false(orr_snapshot_equal(&s, &c));
    orr_snapshot_delta_fini(&d);
    orr_snapshot_fini(&s);
    orr_snapshot_fini(&c);
}

/* A plain snapshot of n instances, ids 0..n-1 in a shuffled order (from `seed`), for the threaded diff. */
static void plain_snapshot(orr_snapshot *s, uint32_t n, uint32_t id_space, uint64_t seed)
{
    const orr_allocator *a = &s->allocator;
    s->layout_version = 1;
    s->frame = 1;
    s->instance_count = s->instance_capacity = n;
    s->instances = a->realloc(a->user, NULL, 0, (size_t)n * sizeof *s->instances);
    memset(s->instances, 0, (size_t)n * sizeof *s->instances);
    s->index_capacity = id_space;
    s->index_of = a->realloc(a->user, NULL, 0, (size_t)id_space * sizeof *s->index_of);
    memset(s->index_of, 0xff, (size_t)id_space * sizeof *s->index_of);
    uint32_t *ids = malloc((size_t)id_space * sizeof *ids);
    for (uint32_t i = 0; i < id_space; i++) ids[i] = i;
    for (uint32_t i = id_space; i > 1; i--) { /* Fisher-Yates, the first n taken */
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t j = (uint32_t)((seed >> 33) % i), t = ids[i - 1];
        ids[i - 1] = ids[j], ids[j] = t;
    }
    for (uint32_t i = 0; i < n; i++) {
        orr_render_instance *in = &s->instances[i];
        orr_affine3d_identity(&in->world);
        in->id = ids[i];
        in->entity = (orr_entity){ids[i], 1};
        in->joint_offset = UINT32_MAX;
        in->visible = true;
        in->mesh = (orr_mesh_id){1, 1};
        s->index_of[ids[i]] = i;
    }
    free(ids);
}

static void expect_same_delta(const orr_snapshot_delta *a, const orr_snapshot_delta *b, uint32_t threads)
{
    if (a->changed_count != b->changed_count || a->removed_count != b->removed_count || a->layout != b->layout ||
        a->lights != b->lights || a->cameras != b->cameras || a->fur != b->fur ||
        (a->changed_count && memcmp(a->changed, b->changed, a->changed_count * sizeof *a->changed) != 0) ||
        (a->removed_count && memcmp(a->removed, b->removed, a->removed_count * sizeof *a->removed) != 0))
        fail_msg("the diff at %u threads (%u changed, %u removed, layout %d) differs from one thread's (%u, %u, %d)",
                 threads, b->changed_count, b->removed_count, b->layout, a->changed_count, a->removed_count, a->layout);
}

/* orr_snapshot_diff_threads gives orr_snapshot_diff's delta at any thread count: ids come and go across
 * chunks, records change, and instances trade places within a chunk and where two chunks meet (the
 * layout then changes by order alone). */
static void test_diff_threads(void **state)
{
    (void)state;
    enum { N = 5000 };
    orr_snapshot from, to;
    orr_snapshot_init(&from, NULL);
    orr_snapshot_init(&to, NULL);
    plain_snapshot(&from, N, N + 64, 7);
    orr_snapshot_delta one, many;
    orr_snapshot_delta_init(&one, NULL);
    orr_snapshot_delta_init(&many, NULL);
    static const uint32_t counts[] = {2, 3, 7, 16};
    for (int c = 0; c < 5; c++) {
        orr_snapshot_fini(&to);
        assert_int_equal(orr_snapshot_copy(&from, &to), ORR_OK);
        if (c == 1 || c == 4) /* some records change */
            for (uint32_t i = 3; i < N; i += 97) to.instances[i].world.m[9] += 1.0;
        if (c == 2) { /* a swap across chunks: the same set, another order */
            orr_render_instance t = to.instances[100];
            to.instances[100] = to.instances[3000], to.instances[3000] = t;
            to.index_of[to.instances[100].id] = 100, to.index_of[to.instances[3000].id] = 3000;
        }
        if (c == 3) { /* neighbours swapped where chunks meet (chunks are 256 instances or a multiple) */
            orr_render_instance t = to.instances[1023];
            to.instances[1023] = to.instances[1024], to.instances[1024] = t;
            to.index_of[to.instances[1023].id] = 1023, to.index_of[to.instances[1024].id] = 1024;
        }
        if (c == 4) { /* every 13th leaves (the rest close up), new ids come at the end */
            uint32_t k = 0;
            memset(to.index_of, 0xff, (size_t)to.index_capacity * sizeof *to.index_of);
            for (uint32_t i = 0; i < N; i++)
                if (i % 13) to.instances[k++] = to.instances[i];
            for (uint32_t id = N; id < N + 64 && k < N; id++, k++) {
                to.instances[k] = to.instances[0];
                to.instances[k].id = id, to.instances[k].entity.index = id;
            }
            to.instance_count = k;
            for (uint32_t i = 0; i < k; i++) to.index_of[to.instances[i].id] = i;
        }
        assert_int_equal(orr_snapshot_diff(&from, &to, &one), ORR_OK);
        assert_true(c == 0 ? !one.layout && !one.changed_count : c == 1 ? !one.layout && one.changed_count : one.layout);
        for (uint32_t k = 0; k < sizeof counts / sizeof *counts; k++) {
            assert_int_equal(orr_snapshot_diff_threads(&from, &to, &many, NULL, counts[k]), ORR_OK);
            expect_same_delta(&one, &many, counts[k]);
        }
    }
    orr_snapshot_delta_fini(&one);
    orr_snapshot_delta_fini(&many);
    orr_snapshot_fini(&from);
    orr_snapshot_fini(&to);
}

int orrt_snapshot_basic_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_equals),
        cmocka_unit_test(test_diff_sets),
        cmocka_unit_test(test_diff_threads),
    };
    return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
