/* Draw: the prepared draw protocol on hand-built snapshots (no world, no GPU). */
#include "draw_tests.h"

#include <math.h>
#include <stdio.h>
#include <orrery/draw.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    orr_assets *assets;
    orr_mesh_id cube, two_prims;
    orr_material_id opaque, cutout, blend;
} fixture;

static const float tri_pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const uint32_t tri_idx[] = {0, 1, 2};

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_int_equal(orr_assets_create(NULL, &f->assets, NULL), ORR_OK);
    orr_material m = orr_material_default();
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->opaque), ORR_OK);
    m.alpha_mode = ORR_ALPHA_MASK;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->cutout), ORR_OK);
    m.alpha_mode = ORR_ALPHA_BLEND;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->blend), ORR_OK);
    orr_primitive_desc p = {.vertex_count = 3, .positions = tri_pos, .index_count = 3, .indices = tri_idx,
                            .material = f->opaque};
    assert_int_equal(orr_assets_add_mesh(f->assets, &(orr_mesh_desc){.name = "tri", .primitive_count = 1, .primitives = &p},
                                         &f->cube), ORR_OK);
    orr_primitive_desc two[2] = {p, p};
    two[1].material = f->blend;
    assert_int_equal(orr_assets_add_mesh(f->assets, &(orr_mesh_desc){.name = "two", .primitive_count = 2, .primitives = two},
                                         &f->two_prims), ORR_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    orr_assets_destroy(f->assets);
    free(f);
    return 0;
}

static orr_render_instance instance(uint32_t id, orr_mesh_id mesh, double x, double z)
{
    orr_render_instance in = {.id = id, .mesh = mesh, .layers = 1, .visible = true};
    orr_affine3d_identity(&in.world);
    in.world.m[9] = x;
    in.world.m[11] = z;
    in.bounds = (orr_aabbf){{0, 0, 0}, {1, 1, 0}};
    return in;
}

/* Material override slots for hand-built snapshots: one shared array, each instance its own range. */
static orr_material_id g_bindings[1024];
static uint32_t g_binding_count;

static void set_override(orr_snapshot *s, orr_render_instance *in, uint32_t slot, orr_material_id m)
{
    assert_true(g_binding_count + slot + 1 <= 1024);
    if (slot >= in->material_count) { /* a new range, the old slots copied */
        uint32_t first = g_binding_count;
        for (uint32_t p = 0; p <= slot; p++)
            g_bindings[first + p] = p < in->material_count ? g_bindings[in->material_offset + p] : (orr_material_id){0, 0};
        in->material_offset = first;
        in->material_count = slot + 1;
        g_binding_count += slot + 1;
    }
    g_bindings[in->material_offset + slot] = m;
    s->material_bindings = g_bindings;
    s->material_binding_count = g_binding_count;
}

static orr_draw_view default_view(orr_draw_order order)
{
    orr_draw_view v = {.layer_mask = ORR_LAYERS_ALL, .order = order, .cull = false};
    orr_mat4d_identity(&v.view);
    orr_mat4d_perspective_reversed_infinite(1.0, 1.0, 0.1, &v.proj);
    return v;
}

static void test_pass_sort_and_spans(void **state)
{
    fixture *f = *state;
    orr_render_instance in[3] = {instance(0, f->two_prims, 0, -5), instance(1, f->cube, 0, -3),
                                 instance(2, f->two_prims, 0, -9)};
    orr_snapshot s = {.instance_count = 3, .instances = in};
    set_override(&s, &in[1], 0, f->cutout); /* per-instance override of slot 0 */
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_HIERARCHY);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draw_count, 5);
    uint32_t n;
    const orr_surface_draw *opaque = orr_draw_pass(&list, ORR_PASS_OPAQUE, &n);
    assert_int_equal(n, 2);
    assert_int_equal(opaque[0].instance, 0); /* hierarchy order inside the pass */
    assert_int_equal(opaque[1].instance, 2);
    const orr_surface_draw *cut = orr_draw_pass(&list, ORR_PASS_CUTOUT, &n);
    assert_int_equal(n, 1);
    assert_int_equal(cut[0].instance, 1);
    const orr_surface_draw *blend = orr_draw_pass(&list, ORR_PASS_TRANSPARENT, &n);
    assert_int_equal(n, 2);
    assert_int_equal(blend[0].instance, 2); /* back to front: z = -9 before z = -5 */
    assert_int_equal(blend[1].instance, 0);
    orr_draw_list_fini(&list);
}

static void test_hidden_repeat_offsets_and_drops(void **state)
{
    fixture *f = *state;
    orr_render_instance in[5] = {instance(0, f->cube, 0, -5), instance(1, f->cube, 0, -5), instance(2, f->cube, 0, -5),
                                 instance(3, f->cube, 0, -5), instance(4, f->cube, 0, -5)};
    in[1].visible = false;
    in[2].mesh = (orr_mesh_id){0, 0};
    in[3].mesh = (orr_mesh_id){77, 1}; /* never existed: stale */
    orr_snapshot s = {.instance_count = 5, .instances = in};
    set_override(&s, &in[4], 0, (orr_material_id){99, 3});
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_HIERARCHY);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draw_count, 1);
    /* offsets: the hidden and bad inputs repeat the previous offset */
    uint32_t expect[6] = {0, 1, 1, 1, 1, 1};
    assert_memory_equal(list.offsets, expect, sizeof expect);
    assert_int_equal(list.stats.hidden, 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_MISSING_MESH], 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_STALE_HANDLE], 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_MATERIAL_RANGE], 1);
    assert_string_equal(orr_drop_name(ORR_DROP_MIXED_RANGE), "mixed_range");
    orr_draw_list_fini(&list);
}

/* Every order's name parses back to it, an unknown name or NULL is refused and leaves the value. */
static void test_order_names(void **state)
{
    (void)state;
    for (unsigned k = 0; k < ORR_ORDER_COUNT; k++) {
        orr_draw_order o = (orr_draw_order)(k ? 0 : 1);
        assert_true(orr_draw_order_parse(orr_draw_order_name((orr_draw_order)k), &o));
        assert_int_equal(o, k);
    }
    assert_string_equal(orr_draw_order_name(ORR_ORDER_HIERARCHY), "hierarchy");
    assert_string_equal(orr_draw_order_name((orr_draw_order)7), "unknown");
    orr_draw_order o = ORR_ORDER_MESH;
    assert_false(orr_draw_order_parse("Mesh", &o));
    assert_false(orr_draw_order_parse("", &o));
    assert_false(orr_draw_order_parse(NULL, &o));
    assert_int_equal(o, ORR_ORDER_MESH);
}

/* Seed 002's drop-and-count for materials and slots: a material edited to an alpha mode that is none
 * of glTF's three is dropped as material_mode (not drawn opaque), its neighbours drawn; an override in a
 * slot past the mesh's primitives is counted as primitive_range while the primitives it has still draw;
 * an instance without a binding of its own draws its primitives' materials, never another's slot. */
static void test_material_mode_and_primitive_range(void **state)
{
    fixture *f = *state;
    orr_material_id odd;
    assert_int_equal(orr_assets_clone_material(f->assets, f->opaque, &odd), ORR_OK);
    orr_assets_try_edit_material(f->assets, odd)->alpha_mode = (orr_alpha_mode)7;
    orr_render_instance in[3] = {instance(0, f->cube, 0, -5), instance(1, f->cube, 0, -5), instance(2, f->cube, 0, -5)};
    orr_snapshot s = {.instance_count = 3, .instances = in};
    set_override(&s, &in[0], 0, odd);
    set_override(&s, &in[1], 2, f->blend); /* the cube has one primitive: slot 2 names none */
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_HIERARCHY);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_MATERIAL_MODE], 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_PRIMITIVE_RANGE], 1);
    assert_int_equal(list.draw_count, 2);
    const orr_mesh *cube = orr_assets_try_get_mesh(f->assets, f->cube);
    for (uint32_t d = 0; d < list.draw_count; d++) {
        assert_int_not_equal(list.draws[d].instance, 0);
        /* instance 1's slot 0 has no override (its range holds none there): the cube's own material,
         * as for instance 2, which has no range at all */
        assert_true(orr_material_id_eq(list.draws[d].material, cube->primitives[0].material));
    }
    orr_draw_list_fini(&list);
}

static void test_mesh_order_batches(void **state)
{
    fixture *f = *state;
    enum { N = 50 };
    orr_render_instance in[N];
    for (uint32_t i = 0; i < N; i++) in[i] = instance(i, i % 2 ? f->cube : f->two_prims, i, -5);
    orr_snapshot s = {.instance_count = N, .instances = in};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_MESH);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draw_count, N + N / 2);
    /* opaque: one batch per mesh primitive; transparent ones are depth-sorted but share a depth here */
    uint32_t opaque_batches = 0;
    for (uint32_t b = 0; b < list.batch_count; b++) opaque_batches += list.batches[b].pass == ORR_PASS_OPAQUE;
    assert_int_equal(opaque_batches, 2);
    /* hierarchy order breaks batches at every alternation */
    v.order = ORR_ORDER_HIERARCHY;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    opaque_batches = 0;
    for (uint32_t b = 0; b < list.batch_count; b++) opaque_batches += list.batches[b].pass == ORR_PASS_OPAQUE;
    assert_int_equal(opaque_batches, N);
    orr_draw_list_fini(&list);
}

static void test_frustum_cull_and_layers(void **state)
{
    fixture *f = *state;
    orr_render_instance in[4] = {instance(0, f->cube, 0, -5), instance(1, f->cube, 0, 5) /* behind */,
                                 instance(2, f->cube, 1000, -5) /* far right */, instance(3, f->cube, 0, -5)};
    in[3].layers = 2;
    orr_snapshot s = {.instance_count = 4, .instances = in};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_HIERARCHY);
    v.cull = true;
    v.layer_mask = 1;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draw_count, 1);
    assert_int_equal(list.stats.culled, 2);
    assert_int_equal(list.stats.layer_masked, 1);
    /* the same box far from the world origin, seen from a view origin beside it, is not culled */
    in[0].world.m[9] = 1.0e12;
    v.origin = (orr_vec3d){1.0e12, 0, 0};
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draws[0].instance, 0);
    assert_true(list.draws[0].bounds.min.x >= -0.001f && list.draws[0].bounds.max.x <= 1.001f);
    orr_draw_list_fini(&list);
}

static void test_mixed_range_dropped(void **state)
{
    fixture *f = *state;
    orr_render_instance in[2] = {instance(0, f->two_prims, 0, -5), instance(1, f->cube, 0, -5)};
    orr_snapshot s = {.instance_count = 2, .instances = in};
    set_override(&s, &in[0], 1, f->opaque); /* both primitives opaque: input order survives the sort */
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_HIERARCHY);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draw_count, 3);
    uint32_t expect[3] = {0, 2, 3};
    assert_memory_equal(list.offsets, expect, sizeof expect);
    /* an adapter that wrote a second mesh into input 0's range: that range goes, input 1's stays */
    list.draws[1].mesh = f->cube;
    orr_draw_check_ranges(&list, 2);
    assert_int_equal(list.draw_count, 1);
    assert_int_equal(list.draws[0].instance, 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_MIXED_RANGE], 1); /* once per range, not per draw */
    uint32_t after[3] = {0, 0, 1};
    assert_memory_equal(list.offsets, after, sizeof after);
    orr_draw_list_fini(&list);
}

static void test_skin_range_checked(void **state)
{
    fixture *f = *state;
    orr_affine3d joints[2];
    orr_affine3d_identity(&joints[0]);
    orr_affine3d_identity(&joints[1]);
    orr_render_instance in[2] = {instance(0, f->cube, 0, -5), instance(1, f->cube, 0, -5)};
    in[0].joint_offset = 0;
    in[0].joint_count = 2;
    in[1].joint_offset = 1;
    in[1].joint_count = 5; /* runs past the snapshot's joints */
    orr_snapshot s = {.instance_count = 2, .instances = in, .joint_count = 2, .joints = joints};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = default_view(ORR_ORDER_HIERARCHY);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.draw_count, 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_SKIN_RANGE], 1);
    assert_int_equal(list.skin_range_count, 1);
    assert_int_equal(list.draws[0].skin_table, 0);
    assert_int_equal(list.skin_ranges[0].count, 2);
    orr_draw_list_fini(&list);
}

/* A row of cubes running toward the view is listed nearest first, the row's last cube first, and a
 * scene culling on three threads (the row's reversal shared out in chunks) lists exactly what one culling
 * on its own thread lists. */
static void test_scene_cull_near_first_on_threads(void **state)
{
    fixture *f = *state;
    enum { N = 20000 };
    orr_render_instance *in = calloc(N, sizeof *in);
    assert_non_null(in);
    for (uint32_t i = 0; i < N; i++) in[i] = instance(i, f->cube, 0.0, -1.0 - 0.01 * (double)(N - i));
    orr_snapshot s = {.instance_count = N, .instances = in};
    orr_draw_scene scenes[2];
    orr_draw_visible vis[2];
    orr_draw_view v = default_view(ORR_ORDER_MESH);
    v.cull = true;
    for (int k = 0; k < 2; k++) {
        orr_draw_scene_init(&scenes[k], NULL);
        scenes[k].threads = k ? 3 : 1;
        orr_draw_visible_init(&vis[k], NULL);
        assert_int_equal(orr_draw_scene_build(&scenes[k], &s, f->assets, ORR_ORDER_MESH), ORR_OK);
        assert_int_equal(orr_draw_scene_cull(&scenes[k], &s, &v, &vis[k]), ORR_OK);
        assert_int_equal(vis[k].opaque_ranges, 1);
        assert_int_equal(vis[k].ranges[0].count, N);
        assert_true(vis[k].last_first[0] & 1u);
        for (uint32_t j = 0; j < N; j++)
            if (vis[k].items[vis[k].ranges[0].first + j] != N - 1 - j)
                fail_msg("%u thread(s): item %u is instance %u, not %u", scenes[k].threads, j,
                         vis[k].items[vis[k].ranges[0].first + j], N - 1 - j);
    }
    for (int k = 0; k < 2; k++) {
        orr_draw_visible_fini(&vis[k]);
        orr_draw_scene_fini(&scenes[k]);
    }
    free(in);
}

/* The retained form against the reference: for random snapshots (meshes of one and two primitives,
 * opaque, cutout and blended materials, overrides, hidden instances, layers, mirrored poses, bad data)
 * and random views (culling on, origins far away), a scene built once and culled per view draws exactly
 * what orr_draw_prepare draws for that view: the same (instance, primitive, material) sequence per pass,
 * the same batches, the same counters; a batch the cull lists last item first (orr_draw_visible.
 * last_first: near things first) read backwards, and its bit set exactly where the batch's last item
 * is nearer the view than its first. */
typedef struct draw_key {
    uint32_t instance, primitive, material;
    uint8_t pass;
} draw_key;

static uint32_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)*s;
}

static void test_scene_cull_equals_prepare(void **state)
{
    fixture *f = *state;
    enum { N = 300 };
    orr_render_instance *in = calloc(N, sizeof *in);
    draw_key *a = calloc(4 * N, sizeof *a), *b = calloc(4 * N, sizeof *b);
    assert_true(in && a && b);
    uint64_t seed = 0xabcdef12345ull;
    orr_draw_scene scene;
    orr_draw_visible vis;
    orr_draw_list list;
    orr_draw_scene_init(&scene, NULL);
    orr_draw_visible_init(&vis, NULL);
    orr_draw_list_init(&list, NULL);
    uint32_t compared = 0, compared_orders = 0;
    for (int round = 0; round < 60; round++) {
        g_binding_count = 0;
        orr_snapshot s = {.instance_count = N, .instances = in};
        orr_vec3d far = {round % 3 ? 0.0 : 1.0e9, 0.0, 0.0};
        for (uint32_t i = 0; i < N; i++) {
            uint32_t k = rnd(&seed);
            in[i] = instance(i, k % 3 ? f->cube : f->two_prims, far.x + (double)(k % 40) - 20.0, -(double)((k >> 8) % 60));
            in[i].world.m[10] = (double)((k >> 4) % 20) - 10.0;
            if ((k >> 12) % 9 == 0) in[i].world.m[0] = -1.0; /* mirrored */
            if ((k >> 16) % 11 == 0) in[i].visible = false;
            if ((k >> 20) % 7 == 0) in[i].layers = 2;
            if ((k >> 24) % 5 == 0) set_override(&s, &in[i], (k >> 27) % 2, (k >> 28) % 2 ? f->cutout : f->blend);
            if ((k >> 29) == 0) in[i].mesh = (orr_mesh_id){77, 1}; /* stale */
        }
        for (int order = 0; order < 2; order++) {
            assert_int_equal(orr_draw_scene_build(&scene, &s, f->assets, (orr_draw_order)order), ORR_OK);
            for (int view = 0; view < 3; view++) {
                orr_draw_view v = default_view((orr_draw_order)order);
                v.cull = true;
                v.origin = (orr_vec3d){far.x + (double)(rnd(&seed) % 10), 0, (double)(rnd(&seed) % 10)};
                double yaw = (double)(rnd(&seed) % 628) / 100.0;
                orr_mat4d_identity(&v.view);
                v.view.m[0] = v.view.m[10] = cos(yaw);
                v.view.m[8] = sin(yaw);
                v.view.m[2] = -sin(yaw);
                v.layer_mask = view == 2 ? 1u : 0u;
                assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
                assert_int_equal(orr_draw_scene_cull(&scene, &s, &v, &vis), ORR_OK);
                uint32_t na = 0, nb = 0;
                for (uint32_t k = 0; k < list.draw_count; k++) {
                    const orr_surface_draw *d = &list.draws[k];
                    a[na++] = (draw_key){d->instance, d->primitive, d->material.index, d->pass};
                }
                for (uint32_t g = 0; g < vis.range_count; g++) {
                    const orr_draw_range *rg = &vis.ranges[g];
                    const orr_draw_batch *bt = &scene.batches[rg->batch];
                    bool back = g < vis.opaque_ranges && (vis.last_first[rg->batch >> 5] >> (rg->batch & 31) & 1u);
                    if (g < vis.opaque_ranges && bt->pass <= ORR_PASS_CUTOUT && bt->count > 1) {
                        /* the rule: last item nearer the view (its box centre's view depth) than the first */
                        double d[2];
                        for (int e = 0; e < 2; e++) {
                            const orr_render_instance *ri = &in[scene.items[bt->first + (e ? bt->count - 1 : 0)]];
                            orr_vec3d c = {(ri->bounds.min.x + ri->bounds.max.x) * 0.5, (ri->bounds.min.y + ri->bounds.max.y) * 0.5,
                                           (ri->bounds.min.z + ri->bounds.max.z) * 0.5};
                            orr_vec3d w = orr_affine3d_transform_point(&ri->world, c);
                            w = orr_vec3d_sub(w, v.origin);
                            d[e] = -orr_mat4d_transform_point(&v.view, w).z;
                        }
                        if ((float)d[1] != (float)d[0]) assert_int_equal(back, (float)d[1] < (float)d[0]);
                        compared_orders += back;
                    } else {
                        assert_false(back);
                    }
                    for (uint32_t j = 0; j < rg->count; j++) {
                        uint32_t i = back ? rg->first + rg->count - 1 - j : rg->first + j;
                        b[nb++] = (draw_key){vis.items[i], bt->primitive, bt->material.index, bt->pass};
                    }
                }
                assert_int_equal(na, nb);
                for (uint32_t k = 0; k < na; k++)
                    if (memcmp(&a[k], &b[k], sizeof a[k]))
                        fail_msg("round %d order %d view %d: draw %u is instance %u primitive %u in prepare, %u %u culled",
                                 round, order, view, k, a[k].instance, a[k].primitive, b[k].instance, b[k].primitive);
                assert_int_equal(vis.stats.inputs, list.stats.inputs);
                assert_int_equal(vis.stats.hidden, list.stats.hidden);
                assert_int_equal(vis.stats.layer_masked, list.stats.layer_masked);
                assert_int_equal(vis.stats.culled, list.stats.culled);
                assert_int_equal(vis.stats.visible, list.stats.visible);
                assert_int_equal(vis.stats.surface_draws, list.stats.surface_draws);
                assert_memory_equal(vis.stats.dropped, list.stats.dropped, sizeof list.stats.dropped);
                /* batches: the non-empty ranges, those of one key that follow each other counted once */
                uint32_t batches = 0;
                const orr_draw_batch *last = NULL;
                for (uint32_t g = 0; g < vis.range_count; g++) {
                    if (!vis.ranges[g].count) continue;
                    const orr_draw_batch *bt = &scene.batches[vis.ranges[g].batch];
                    if (!last || last->pass != bt->pass || !orr_id_eq(last->mesh, bt->mesh) || last->primitive != bt->primitive ||
                        !orr_id_eq(last->material, bt->material) || last->mirrored != bt->mirrored || last->skinned != bt->skinned)
                        batches++;
                    last = bt;
                }
                assert_int_equal(batches, list.batch_count);
                compared += na;
            }
        }
    }
    print_message("retained scene and per-view cull: %u draws compared with orr_draw_prepare, %u batches listed last first\n",
                  compared, compared_orders);
    assert_true(compared > 1000);
    assert_true(compared_orders > 10);
    orr_draw_scene_fini(&scene);
    orr_draw_visible_fini(&vis);
    orr_draw_list_fini(&list);
    free(in);
    free(a);
    free(b);
}

/* Between ticks (orr_draw_motion): an instance with an earlier pose is culled, and its depth taken, at
 * the blended pose: the same draws, in the same order, as a snapshot whose instances stand there. And
 * the blend itself: translation linear, a turn halved at lag 0.5, a sheared pose keeps its linear part. */
static void test_motion_culls_at_blended_pose(void **state)
{
    fixture *f = *state;
    enum { N = 200 };
    orr_render_instance *in = calloc(N, sizeof *in), *at = calloc(N, sizeof *at);
    orr_affine3d *before = calloc(N, sizeof *before);
    orr_draw_blend *blends = calloc(N, sizeof *blends);
    uint32_t *entry_of = calloc(N, sizeof *entry_of);
    draw_key *a = calloc(4 * N, sizeof *a), *b = calloc(4 * N, sizeof *b);
    assert_true(in && at && before && blends && entry_of && a && b);
    uint64_t seed = 0x5eed1234ull;
    orr_draw_scene scene, scene_at;
    orr_draw_visible vis, vis_at;
    orr_draw_scene_init(&scene, NULL);
    orr_draw_scene_init(&scene_at, NULL);
    orr_draw_visible_init(&vis, NULL);
    orr_draw_visible_init(&vis_at, NULL);
    uint32_t moved_in = 0, compared = 0;
    for (int round = 0; round < 20; round++) {
        g_binding_count = 0;
        orr_snapshot s = {.instance_count = N, .instances = in};
        uint32_t entries = 0;
        for (uint32_t i = 0; i < N; i++) {
            uint32_t k = rnd(&seed);
            in[i] = instance(i, k % 3 ? f->cube : f->two_prims, (double)(k % 40) - 20.0, -(double)((k >> 8) % 40));
            entry_of[i] = 0;
            if ((k >> 16) % 3 == 0) { /* moving: from somewhere else, turned */
                orr_mat4d m;
                orr_mat4d_from_trs((orr_vec3d){(double)(rnd(&seed) % 60) - 30.0, 0, -(double)(rnd(&seed) % 40)},
                                   orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, (double)(rnd(&seed) % 300) / 100.0),
                                   ORR_VEC3_ONE, &m);
                orr_affine3d_from_mat4d(&m, &before[entries]);
                orr_draw_blend_prepare(&in[i].world, &before[entries], &blends[entries]);
                entry_of[i] = ++entries;
            }
        }
        orr_draw_motion mo = {.count = N, .entry_of = entry_of, .blends = blends};
        for (int step = 1; step <= 4; step++) {
            mo.lag = (float)step / 4.0f;
            memcpy(at, in, sizeof *in * N);
            for (uint32_t i = 0; i < N; i++)
                if (entry_of[i]) orr_draw_motion_pose(&in[i].world, &before[entry_of[i] - 1], mo.lag, &at[i].world);
            orr_snapshot s_at = s;
            s_at.instances = at;
            assert_int_equal(orr_draw_scene_build(&scene, &s, f->assets, ORR_ORDER_HIERARCHY), ORR_OK);
            assert_int_equal(orr_draw_scene_build(&scene_at, &s_at, f->assets, ORR_ORDER_HIERARCHY), ORR_OK);
            orr_draw_view v = default_view(ORR_ORDER_HIERARCHY), v_at = v;
            v.cull = v_at.cull = true;
            v.motion = &mo;
            assert_int_equal(orr_draw_scene_cull(&scene, &s, &v, &vis), ORR_OK);
            assert_int_equal(orr_draw_scene_cull(&scene_at, &s_at, &v_at, &vis_at), ORR_OK);
            uint32_t na = 0, nb = 0;
            for (uint32_t g = 0; g < vis.range_count; g++) {
                const orr_draw_batch *bt = &scene.batches[vis.ranges[g].batch];
                for (uint32_t i = vis.ranges[g].first; i < vis.ranges[g].first + vis.ranges[g].count; i++)
                    a[na++] = (draw_key){vis.items[i], bt->primitive, bt->material.index, bt->pass};
            }
            for (uint32_t g = 0; g < vis_at.range_count; g++) {
                const orr_draw_batch *bt = &scene_at.batches[vis_at.ranges[g].batch];
                for (uint32_t i = vis_at.ranges[g].first; i < vis_at.ranges[g].first + vis_at.ranges[g].count; i++)
                    b[nb++] = (draw_key){vis_at.items[i], bt->primitive, bt->material.index, bt->pass};
            }
            assert_int_equal(na, nb);
            assert_memory_equal(a, b, sizeof *a * na);
            assert_int_equal(vis.stats.culled, vis_at.stats.culled);
            /* what the motion changed: moving instances that the current pose alone would cull, or keep */
            orr_draw_view plain = v;
            plain.motion = NULL;
            assert_int_equal(orr_draw_scene_cull(&scene, &s, &plain, &vis_at), ORR_OK);
            moved_in += vis_at.stats.culled != vis.stats.culled;
            compared += na;
        }
    }
    print_message("motion cull: %u draws compared, %u views where the blend changed what is culled\n", compared, moved_in);
    assert_true(compared > 500 && moved_in > 10);

    /* the blend: lag 0.5 of a turn of 1.2 about Y and a move of 4 along X */
    orr_mat4d m0, m1;
    orr_mat4d_from_trs((orr_vec3d){0, 0, 0}, ORR_QUAT_IDENTITY, (orr_vec3d){1, 2, 1}, &m0);
    orr_mat4d_from_trs((orr_vec3d){4, 0, 0}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 1.2), (orr_vec3d){1, 2, 1}, &m1);
    orr_affine3d p0, p1, half, want;
    orr_affine3d_from_mat4d(&m0, &p0);
    orr_affine3d_from_mat4d(&m1, &p1);
    orr_draw_motion_pose(&p1, &p0, 0.5, &half);
    orr_mat4d mw;
    orr_mat4d_from_trs((orr_vec3d){2, 0, 0}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.6), (orr_vec3d){1, 2, 1}, &mw);
    orr_affine3d_from_mat4d(&mw, &want);
    for (int k = 0; k < 12; k++) assert_true(fabs(half.m[k] - want.m[k]) < 1e-12);
    p0.m[3] = 0.5; /* sheared: not a rotation times scales, so the current linear part */
    orr_draw_motion_pose(&p1, &p0, 0.5, &half);
    for (int k = 0; k < 9; k++) assert_true(half.m[k] == p1.m[k]);
    assert_true(fabs(half.m[9] - 2.0) < 1e-12);
    orr_draw_scene_fini(&scene);
    orr_draw_scene_fini(&scene_at);
    orr_draw_visible_fini(&vis);
    orr_draw_visible_fini(&vis_at);
    free(in);
    free(at);
    free(before);
    free(blends);
    free(entry_of);
    free(a);
    free(b);
}

/* A scene built on several threads is the one built on one, field for field: random snapshots large
 * enough that every pass of the build is shared out (collection, the sort's keys and digits, the
 * batches and their seams), of several meshes and materials (overrides), both passes and payload
 * kinds, mirrored and skinned poses, levels of detail, visibility ranges and bad data; each scene is
 * built again from other snapshots, smaller and larger, so that what a build keeps for the next one
 * (orr_draw_scene.build) is read only where it was written. */
static void expect_same_scene(const orr_draw_scene *want, const orr_draw_scene *got, uint32_t instances, const char *what)
{
    if (want->item_count != got->item_count || want->batch_count != got->batch_count)
        fail_msg("%s: %u items in %u batches, not %u in %u", what, got->item_count, got->batch_count, want->item_count,
                 want->batch_count);
    for (uint32_t k = 0; k < want->item_count; k++)
        if (want->items[k] != got->items[k]) fail_msg("%s: item %u is instance %u, not %u", what, k, got->items[k], want->items[k]);
    for (uint32_t b = 0; b < want->batch_count; b++) {
        const orr_draw_batch *x = &want->batches[b], *y = &got->batches[b];
        if (x->first != y->first || x->count != y->count || !orr_id_eq(x->mesh, y->mesh) || x->primitive != y->primitive ||
            !orr_id_eq(x->material, y->material) || x->pass != y->pass || x->skinned != y->skinned ||
            x->mirrored != y->mirrored || x->payload != y->payload || x->lod != y->lod || x->lod_error != y->lod_error ||
            x->lod_next != y->lod_next)
            fail_msg("%s: batch %u differs (first %u count %u, not %u %u)", what, b, y->first, y->count, x->first, x->count);
    }
    assert_memory_equal(want->pass_items, got->pass_items, sizeof want->pass_items);
    assert_memory_equal(want->pass_batches, got->pass_batches, sizeof want->pass_batches);
    assert_memory_equal(want->dropped, got->dropped, sizeof want->dropped);
    assert_int_equal(want->fur_fallbacks, got->fur_fallbacks);
    assert_int_equal(want->fur_reach_count, got->fur_reach_count);
    if (want->fur_reach_count)
        assert_memory_equal(want->fur_reach, got->fur_reach, want->fur_reach_count * sizeof *want->fur_reach);
    assert_int_equal(want->ranged_count, got->ranged_count);
    if (want->ranged_count) assert_memory_equal(want->ranged, got->ranged, want->ranged_count * sizeof *want->ranged);
    assert_memory_equal(want->scratch, got->scratch, (instances / 32 + 1) * sizeof(uint32_t)); /* the member bits */
}

/* A sphere whose simplified levels of detail the asset library builds (test_lod.c's). */
static orr_mesh_id sphere_mesh(orr_assets *assets, orr_material_id material, uint32_t levels)
{
    enum { ST = 24, SL = 48 };
    static float pos[(ST + 1) * (SL + 1) * 3], nrm[(ST + 1) * (SL + 1) * 3];
    static uint32_t idx[ST * SL * 6];
    uint32_t k = 0;
    for (uint32_t i = 0, v = 0; i <= ST; i++)
        for (uint32_t j = 0; j <= SL; j++, v++) {
            double th = ORR_PI * i / ST, ph = 2.0 * ORR_PI * j / SL;
            float q[3] = {(float)(sin(th) * cos(ph)), (float)cos(th), (float)(sin(th) * sin(ph))};
            memcpy(pos + v * 3, q, sizeof q);
            memcpy(nrm + v * 3, q, sizeof q);
        }
    for (uint32_t i = 0; i < ST; i++)
        for (uint32_t j = 0; j < SL; j++) {
            uint32_t a = i * (SL + 1) + j, b = a + 1, c = a + SL + 1, d = c + 1;
            idx[k++] = a, idx[k++] = d, idx[k++] = b, idx[k++] = a, idx[k++] = c, idx[k++] = d;
        }
    orr_primitive_desc p = {.vertex_count = (ST + 1) * (SL + 1), .positions = pos, .normals = nrm, .index_count = k,
                            .indices = idx, .material = material};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "sphere", .primitive_count = 1, .primitives = &p,
                                                                  .lod_levels = levels}, &id), ORR_OK);
    return id;
}

static void random_scene_snapshot(orr_snapshot *s, orr_render_instance *in, uint32_t n, const orr_mesh_id *meshes,
                                  uint32_t mesh_count, orr_material_id *bindings, const orr_material_id *materials,
                                  uint32_t material_count, orr_affine3d *joints, uint64_t *seed)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rnd(seed);
        /* runs of one mesh (as a game's spawners give), now and then another */
        orr_mesh_id mesh = i && r % 8 ? in[i - 1].mesh : meshes[rnd(seed) % mesh_count];
        in[i] = instance(i, mesh, (double)(r % 100), -1.0 - (double)(rnd(seed) % 50));
        if (r % 97 == 0) in[i].mesh = (orr_mesh_id){0, 0};    /* missing */
        if (r % 89 == 0) in[i].mesh = (orr_mesh_id){999, 3};  /* stale */
        if (r % 5 == 0) in[i].world.m[0] = -1.0;              /* mirrored */
        if (r % 11 == 0) in[i].visible = false;              /* (a cull's concern: still collected) */
        if (r % 7 == 0) {                                    /* an override of slot 0 */
            bindings[i] = materials[rnd(seed) % material_count];
            in[i].material_offset = i;
            in[i].material_count = 1;
        }
        if (r % 13 == 0) in[i].joint_offset = rnd(seed) % 4, in[i].joint_count = 1 + rnd(seed) % 4; /* some out of range */
        if (r % 17 == 0) in[i].range_far = 10.0f + (float)(r % 7);
        if (r % 19 == 0) in[i].range_near = 2.0f;
    }
    *s = (orr_snapshot){.instance_count = n, .instances = in, .material_bindings = bindings, .material_binding_count = n,
                        .joint_count = 6, .joints = joints};
}

static void test_scene_build_same_at_any_thread_count(void **state)
{
    fixture *f = *state;
    enum { MATERIALS = 40, MAX_N = 70000 };
    orr_material_id materials[MATERIALS];
    for (uint32_t k = 0; k < MATERIALS; k++) {
        orr_material m = orr_material_default();
        m.alpha_mode = k % 3 == 0 ? ORR_ALPHA_BLEND : k % 3 == 1 ? ORR_ALPHA_MASK : ORR_ALPHA_OPAQUE;
        m.base_color[0] = (float)k / MATERIALS;
        assert_int_equal(orr_assets_add_material(f->assets, &m, &materials[k]), ORR_OK);
    }
    orr_primitive_desc p = {.vertex_count = 3, .positions = tri_pos, .index_count = 3, .indices = tri_idx,
                            .material = f->cutout};
    orr_mesh_id cut;
    assert_int_equal(orr_assets_add_mesh(f->assets, &(orr_mesh_desc){.name = "cut", .primitive_count = 1, .primitives = &p},
                                         &cut), ORR_OK);
    orr_mesh_id grid = sphere_mesh(f->assets, f->opaque, 4);
    assert_true(orr_assets_try_get_mesh(f->assets, grid)->lod_count > 1);
    const orr_mesh_id meshes[] = {f->cube, f->two_prims, cut, grid};
    orr_render_instance *in = calloc(MAX_N, sizeof *in);
    orr_material_id *bindings = calloc(MAX_N, sizeof *bindings);
    orr_affine3d joints[6];
    for (int j = 0; j < 6; j++) orr_affine3d_identity(&joints[j]);
    assert_true(in && bindings);
    orr_workers *workers;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 16}, &workers, NULL), ORR_OK);
    static const uint32_t counts[] = {2, 3, 7, 16, 3};
    enum { SCENES = sizeof counts / sizeof *counts };
    orr_draw_scene scenes[SCENES]; /* each kept from snapshot to snapshot; the last on threads started per pass */
    for (uint32_t t = 0; t < SCENES; t++) {
        orr_draw_scene_init(&scenes[t], NULL);
        scenes[t].threads = counts[t];
        scenes[t].workers = t + 1 < SCENES ? workers : NULL;
    }
    static const uint32_t sizes[] = {50000, 9000, 70000, 50000};
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    uint32_t compared = 0;
    for (uint32_t round = 0; round < sizeof sizes / sizeof *sizes; round++) {
        orr_snapshot s;
        random_scene_snapshot(&s, in, sizes[round], meshes, 4, bindings, materials, MATERIALS, joints, &seed);
        for (int order = 0; order < ORR_ORDER_COUNT; order++) {
            orr_draw_scene want; /* one thread, a scene of its own */
            orr_draw_scene_init(&want, NULL);
            assert_int_equal(orr_draw_scene_build(&want, &s, f->assets, (orr_draw_order)order), ORR_OK);
            assert_true(want.batch_count > 8 && want.ranged_count > 0 && want.pass_items[ORR_PASS_TRANSPARENT] < want.item_count);
            for (uint32_t t = 0; t < SCENES; t++) {
                if (t + 1 == SCENES && round % 2) continue; /* threads started per pass: every other round */
                char what[64];
                snprintf(what, sizeof what, "%u instances, order %d, %u threads", sizes[round], order, counts[t]);
                assert_int_equal(orr_draw_scene_build(&scenes[t], &s, f->assets, (orr_draw_order)order), ORR_OK);
                expect_same_scene(&want, &scenes[t], s.instance_count, what);
                compared++;
            }
            orr_draw_scene_fini(&want);
        }
    }
    print_message("scene builds on threads: %u compared with one thread's\n", compared);
    for (uint32_t t = 0; t < SCENES; t++) orr_draw_scene_fini(&scenes[t]);
    orr_workers_destroy(workers);
    free(in);
    free(bindings);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pass_sort_and_spans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hidden_repeat_offsets_and_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_material_mode_and_primitive_range, setup, teardown),
        cmocka_unit_test(test_order_names),
        cmocka_unit_test_setup_teardown(test_mesh_order_batches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frustum_cull_and_layers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mixed_range_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_skin_range_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_cull_equals_prepare, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_cull_near_first_on_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scene_build_same_at_any_thread_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_motion_culls_at_blended_pose, setup, teardown),
    };
    int failed = cmocka_run_group_tests_name("draw", tests, NULL, NULL);
    failed += orrt_draw_meshlets();
    failed += orrt_draw_lods();
    failed += orrt_draw_ranges();
    failed += orrt_draw_fur();
    return orrt_exit_status(failed);
}
