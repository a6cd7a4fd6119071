/* The snapshot module alone (no world, no frame module linked): a hand-built snapshot is copied, the
 * copy equals it field for field, each field changed makes them differ, and the diff names exactly the
 * instances that changed, left or came, and whether the layout, lights, cameras or fur changed. */
#include "testutil.h"

#include <orrery/snapshot.h>
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

int orrt_snapshot_basic_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_equals),
        cmocka_unit_test(test_diff_sets),
    };
    return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
