/* Fur, the protocol's second payload kind: surfaces of a fur material whose instance has a sidecar entry
 * go to the custom pass as ORR_PAYLOAD_FUR and come out of the fur adapter with their parameters (the
 * material's, overridden by the entry); without an entry they fall back to the plain mesh path and are
 * counted; a bad sidecar is dropped and counted; the retained scene agrees with the reference. */
#include "draw_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    orr_assets *assets;
    orr_mesh_id furry, tri; /* furry: primitive 0 fur, primitive 1 opaque */
    orr_material_id fur, fur_mask, opaque, blend;
    orr_texture_id noise;
} fixture;

static const float tri_pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const uint32_t tri_idx[] = {0, 1, 2};

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_int_equal(orr_assets_create(NULL, &f->assets, NULL), ORR_OK);
    assert_int_equal(orr_assets_add_fur_noise(f->assets, NULL, &f->noise), ORR_OK);
    orr_material m = orr_material_default();
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->opaque), ORR_OK);
    m.alpha_mode = ORR_ALPHA_BLEND;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->blend), ORR_OK);
    m = orr_material_default();
    m.shading = ORR_SHADING_FUR;
    m.fur.noise = f->noise;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->fur), ORR_OK);
    m.alpha_mode = ORR_ALPHA_MASK;
    m.fur.shell_count = 8;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->fur_mask), ORR_OK);
    orr_primitive_desc p = {.vertex_count = 3, .positions = tri_pos, .index_count = 3, .indices = tri_idx, .material = f->fur};
    orr_primitive_desc two[2] = {p, p};
    two[1].material = f->opaque;
    assert_int_equal(orr_assets_add_mesh(f->assets, &(orr_mesh_desc){.name = "furry", .primitive_count = 2, .primitives = two},
                                         &f->furry), ORR_OK);
    p.material = f->opaque;
    assert_int_equal(orr_assets_add_mesh(f->assets, &(orr_mesh_desc){.name = "tri", .primitive_count = 1, .primitives = &p},
                                         &f->tri), ORR_OK);
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

static orr_render_instance instance(uint32_t id, orr_mesh_id mesh, double z)
{
    orr_render_instance in = {.id = id, .mesh = mesh, .layers = 1, .visible = true};
    orr_affine3d_identity(&in.world);
    in.world.m[11] = z;
    in.bounds = (orr_aabbf){{0, 0, 0}, {1, 1, 0}};
    return in;
}

static orr_draw_view view(void)
{
    orr_draw_view v = {.layer_mask = ORR_LAYERS_ALL, .cull = true};
    orr_mat4d_identity(&v.view);
    orr_mat4d_perspective_reversed_infinite(1.0, 1.0, 0.1, &v.proj);
    return v;
}

/* Four instances of the furry mesh: 0 and 2 with sidecar entries (2 overriding the shell count and length),
 * 1 without one (its fur surface falls back, counted), 3 hidden with an entry. */
static void test_fur_payload_and_fallback(void **state)
{
    fixture *f = *state;
    orr_render_instance in[4] = {instance(10, f->furry, -5), instance(11, f->furry, -6), instance(12, f->furry, -7),
                                 instance(13, f->furry, -8)};
    in[3].visible = false;
    orr_render_fur side[3] = {
        {.instance = 0},
        {.instance = 2, .set = ORR_FUR_SET_SHELL_COUNT | ORR_FUR_SET_SHELL_LENGTH, .shell_count = 4, .shell_length = 0.05f},
        {.instance = 3},
    };
    orr_snapshot s = {.instance_count = 4, .instances = in, .fur_count = 3, .fur = side};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = view();
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.fur_fallbacks, 1);
    assert_int_equal(list.stats.dropped[ORR_DROP_SIDECAR], 0);
    uint32_t n;
    const orr_surface_draw *custom = orr_draw_pass(&list, ORR_PASS_CUSTOM, &n);
    assert_int_equal(n, 2);
    assert_int_equal(custom[0].instance, 0);
    assert_int_equal(custom[1].instance, 2);
    for (uint32_t k = 0; k < n; k++) {
        assert_int_equal(custom[k].payload, ORR_PAYLOAD_FUR);
        assert_int_equal(custom[k].primitive, 0);
    }
    const orr_surface_draw *opaque = orr_draw_pass(&list, ORR_PASS_OPAQUE, &n);
    assert_int_equal(n, 4); /* primitive 1 of the three visible instances, and instance 1's fallback */
    uint32_t fallback = 0;
    for (uint32_t k = 0; k < n; k++) {
        assert_int_equal(opaque[k].payload, ORR_PAYLOAD_MESH);
        if (opaque[k].primitive == 0) {
            assert_int_equal(opaque[k].instance, 1);
            assert_true(orr_id_eq(opaque[k].material, f->fur));
            fallback++;
        }
    }
    assert_int_equal(fallback, 1);
    for (uint32_t b = 0; b < list.batch_count; b++)
        assert_int_equal(list.batches[b].payload, list.batches[b].pass == ORR_PASS_CUSTOM ? ORR_PAYLOAD_FUR : ORR_PAYLOAD_MESH);

    orr_fur_list fur;
    orr_draw_fur_list_init(&fur, NULL);
    assert_int_equal(orr_draw_fur_collect(&fur, &list, &s, f->assets), ORR_OK);
    assert_int_equal(fur.draw_count, 2);
    assert_int_equal(fur.batch_count, 1);
    assert_int_equal(fur.batches[0].count, 2);
    const orr_fur_draw *a = &fur.draws[0], *b = &fur.draws[1];
    assert_int_equal(a->instance, 0);
    assert_int_equal(a->instance_id, 10);
    assert_int_equal(a->sidecar, 0);
    assert_int_equal(a->shell_count, 16); /* the material's */
    assert_true(a->shell_length == 0.01f && a->density == 32.0f && a->thinning == 0.75f);
    assert_true(orr_id_eq(a->noise, f->noise));
    assert_int_equal(b->instance, 2);
    assert_int_equal(b->sidecar, 1);
    assert_int_equal(b->shell_count, 4); /* the entry's */
    assert_true(b->shell_length == 0.05f && b->density == 32.0f);
    assert_true(fur.stats.shells == 20);
    assert_true(fur.stats.triangles == 20);
    assert_int_equal(fur.stats.stale, 0);
    assert_int_equal(orr_draw_fur_entry(&s, 2), 1);
    assert_int_equal(orr_draw_fur_entry(&s, 1), UINT32_MAX);

    /* the meshlet reference leaves fur to its adapter */
    orr_meshlet_list ml;
    orr_draw_meshlet_list_init(&ml, NULL);
    assert_int_equal(orr_draw_meshlet_cull_list(&ml, &list, &s, f->assets, &v, ORR_MESHLET_CULL_ALL), ORR_OK);
    assert_int_equal(ml.stats.draws, list.draw_count - 2);
    assert_int_equal(ml.stats.indexed_no_meshlets, list.draw_count - 2);
    orr_draw_meshlet_list_fini(&ml);
    orr_draw_fur_list_fini(&fur);
    orr_draw_list_fini(&list);
}

/* Whatever the material's alpha mode, fur goes to the custom pass; a fur material made invalid by an
 * edit is dropped (material_mode), not drawn with values out of range. */
static void test_fur_pass_and_bad_material(void **state)
{
    fixture *f = *state;
    orr_render_instance in[2] = {instance(0, f->furry, -5), instance(1, f->furry, -6)};
    orr_material_id slots[2] = {f->fur_mask, {0, 0}};
    in[1].material_offset = 0;
    in[1].material_count = 1;
    orr_render_fur side[2] = {{.instance = 0}, {.instance = 1}};
    orr_snapshot s = {.instance_count = 2, .instances = in, .fur_count = 2, .fur = side, .material_bindings = slots,
                      .material_binding_count = 2};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = view();
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    uint32_t n;
    const orr_surface_draw *custom = orr_draw_pass(&list, ORR_PASS_CUSTOM, &n);
    assert_int_equal(n, 2);
    orr_fur_list fur;
    orr_draw_fur_list_init(&fur, NULL);
    assert_int_equal(orr_draw_fur_collect(&fur, &list, &s, f->assets), ORR_OK);
    assert_int_equal(fur.batch_count, 2); /* two materials */
    assert_int_equal(fur.draws[0].shell_count, 16);
    assert_int_equal(fur.draws[1].shell_count, 8);
    (void)custom;
    orr_material *edit = orr_assets_try_edit_material(f->assets, f->fur_mask);
    edit->fur.shell_count = 0;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_MATERIAL_MODE], 1);
    orr_draw_pass(&list, ORR_PASS_CUSTOM, &n);
    assert_int_equal(n, 1);
    edit = orr_assets_try_edit_material(f->assets, f->fur_mask);
    edit->fur.shell_count = 8;
    edit->shading = (orr_shading)9;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_MATERIAL_MODE], 1);
    edit = orr_assets_try_edit_material(f->assets, f->fur_mask);
    edit->shading = ORR_SHADING_FUR;
    orr_draw_fur_list_fini(&fur);
    orr_draw_list_fini(&list);
}

/* A sidecar out of order or naming an instance past the end is ignored whole; an entry with a value out
 * of range or an unknown bit is ignored alone; each ignored entry counts once as a sidecar drop, and
 * the surfaces fall back, counted. */
static void test_fur_bad_sidecar(void **state)
{
    fixture *f = *state;
    orr_render_instance in[3] = {instance(0, f->furry, -5), instance(1, f->furry, -6), instance(2, f->furry, -7)};
    orr_snapshot s = {.instance_count = 3, .instances = in};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = view();
    uint32_t n;

    orr_render_fur unordered[2] = {{.instance = 2}, {.instance = 0}};
    s.fur = unordered, s.fur_count = 2;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_SIDECAR], 2);
    assert_int_equal(list.stats.fur_fallbacks, 3);
    orr_draw_pass(&list, ORR_PASS_CUSTOM, &n);
    assert_int_equal(n, 0);

    orr_render_fur twice[2] = {{.instance = 1}, {.instance = 1}};
    s.fur = twice;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_SIDECAR], 2);
    assert_int_equal(list.stats.fur_fallbacks, 3);

    orr_render_fur past[2] = {{.instance = 0}, {.instance = 3}};
    s.fur = past;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_SIDECAR], 2);
    assert_int_equal(list.stats.fur_fallbacks, 3);

    orr_render_fur values[3] = {
        {.instance = 0, .set = ORR_FUR_SET_THINNING, .thinning = 2.0f},
        {.instance = 1, .set = 1u << 7},
        {.instance = 2, .set = ORR_FUR_SET_SHELL_COUNT | ORR_FUR_SET_DENSITY, .shell_count = ORR_FUR_MAX_SHELLS, .density = 4.0f},
    };
    s.fur = values, s.fur_count = 3;
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    assert_int_equal(list.stats.dropped[ORR_DROP_SIDECAR], 2);
    assert_int_equal(list.stats.fur_fallbacks, 2);
    const orr_surface_draw *custom = orr_draw_pass(&list, ORR_PASS_CUSTOM, &n);
    assert_int_equal(n, 1);
    assert_int_equal(custom[0].instance, 2);
    orr_fur_list fur;
    orr_draw_fur_list_init(&fur, NULL);
    assert_int_equal(orr_draw_fur_collect(&fur, &list, &s, f->assets), ORR_OK);
    assert_int_equal(fur.draw_count, 1);
    assert_int_equal(fur.draws[0].shell_count, ORR_FUR_MAX_SHELLS);
    assert_true(fur.draws[0].density == 4.0f);
    assert_int_equal(orr_draw_fur_entry(&s, 0), UINT32_MAX); /* a bad entry counts as none */
    assert_string_equal(orr_drop_name(ORR_DROP_SIDECAR), "sidecar");
    orr_draw_fur_list_fini(&fur);
    orr_draw_list_fini(&list);
}

/* The range rule with payloads chosen per surface: a range may hold plain mesh surfaces beside one other
 * payload kind (a fur instance's claws and eyes), not two other kinds. */
static void test_ranges_with_payloads(void **state)
{
    fixture *f = *state;
    orr_surface_draw draws[5] = {
        {.instance = 0, .mesh = f->furry, .primitive = 0, .payload = ORR_PAYLOAD_FUR},
        {.instance = 0, .mesh = f->furry, .primitive = 1, .payload = ORR_PAYLOAD_MESH},
        {.instance = 1, .mesh = f->furry, .primitive = 0, .payload = ORR_PAYLOAD_FUR},
        {.instance = 1, .mesh = f->furry, .primitive = 1, .payload = 7}, /* an adapter's own kind */
        {.instance = 2, .mesh = f->tri, .primitive = 0, .payload = ORR_PAYLOAD_MESH},
    };
    uint32_t offsets[4] = {0, 2, 4, 5};
    orr_draw_list list = {.draws = draws, .draw_count = 5, .offsets = offsets};
    orr_draw_check_ranges(&list, 3);
    assert_int_equal(list.draw_count, 3);
    assert_int_equal(list.stats.dropped[ORR_DROP_MIXED_RANGE], 1);
    uint32_t expect[4] = {0, 2, 2, 3};
    assert_memory_equal(offsets, expect, sizeof expect);
    assert_int_equal(draws[2].instance, 2);
}

/* Culling grows a furry instance's box by how far its fur reaches: a triangle 5 mm beyond the right edge
 * of the frustum is drawn when its fur (the material's 1 cm) reaches in, culled when the sidecar sets the
 * length to 0 or when it has no entry (plain, counted); the same in the reference, the retained cull and
 * the payload-only cull; the surface draw's bounds are the grown box. */
static void test_fur_reach_culling(void **state)
{
    fixture *f = *state;
    double edge = 5.0 * tan(0.5); /* the right plane at z = -5 (yfov 1, aspect 1) */
    orr_render_instance in[1] = {instance(0, f->furry, -5)};
    in[0].world.m[9] = edge + 0.005;
    orr_render_fur side[1] = {{.instance = 0}};
    orr_snapshot s = {.instance_count = 1, .instances = in, .fur = side, .fur_count = 1};
    orr_draw_view v = view();
    orr_draw_list list;
    orr_draw_scene scene;
    orr_draw_visible vis, pay;
    orr_draw_list_init(&list, NULL);
    orr_draw_scene_init(&scene, NULL);
    orr_draw_visible_init(&vis, NULL);
    orr_draw_visible_init(&pay, NULL);
    for (int c = 0; c < 4; c++) {
        /* 0: the material's reach; 1: the sidecar's 0; 2: the sidecar's 2 cm; 3: no entry */
        side[0].set = c == 1 || c == 2 ? ORR_FUR_SET_SHELL_LENGTH : 0;
        side[0].shell_length = c == 2 ? 0.02f : 0.0f;
        s.fur_count = c == 3 ? 0 : 1;
        bool drawn = c == 0 || c == 2;
        assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
        assert_int_equal(list.stats.visible, drawn ? 1 : 0);
        assert_int_equal(list.stats.culled, drawn ? 0 : 1);
        if (drawn) {
            uint32_t n;
            const orr_surface_draw *custom = orr_draw_pass(&list, ORR_PASS_CUSTOM, &n);
            assert_int_equal(n, 1);
            float reach = c == 2 ? 0.02f : 0.01f;
            assert_true(fabsf(custom[0].bounds.min.x - (float)(edge + 0.005 - reach)) < 1e-5f);
            assert_true(fabsf(custom[0].bounds.max.z - (-5.0f + reach)) < 1e-5f);
        }
        assert_int_equal(orr_draw_scene_build(&scene, &s, f->assets, ORR_ORDER_HIERARCHY), ORR_OK);
        assert_int_equal(scene.fur_reach_count, c == 3 ? 0 : 1);
        assert_int_equal(orr_draw_scene_cull(&scene, &s, &v, &vis), ORR_OK);
        assert_int_equal(vis.stats.visible, drawn ? 1 : 0);
        assert_int_equal(vis.stats.surface_draws, list.stats.surface_draws);
        assert_int_equal(orr_draw_scene_cull_payloads(&scene, &s, &v, &pay), ORR_OK);
        assert_int_equal(pay.stats.surface_draws, drawn ? 1 : 0);
        assert_int_equal(pay.range_count, c == 3 ? 0 : 1);
        assert_int_equal(pay.opaque_ranges, pay.range_count);
        assert_int_equal(pay.stats.fur_fallbacks, c == 3 ? 1 : 0);
    }
    orr_draw_list_fini(&list);
    orr_draw_scene_fini(&scene);
    orr_draw_visible_fini(&vis);
    orr_draw_visible_fini(&pay);
}

static uint32_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)*s;
}

/* Random snapshots of fur and plain instances, sidecar entries for some, hidden ones, both orders,
 * culling views: the retained scene and its cull give the fur adapter exactly the draws the reference
 * gives it, and the same counters. */
static void test_fur_retained_equals_prepare(void **state)
{
    fixture *f = *state;
    enum { N = 200 };
    orr_render_instance *in = calloc(N, sizeof *in);
    orr_render_fur *side = calloc(N, sizeof *side);
    uint64_t seed = 0xf00df00dull;
    orr_draw_list list;
    orr_draw_scene scene;
    orr_draw_visible vis, pay;
    orr_fur_list a, b, c;
    orr_draw_list_init(&list, NULL);
    orr_draw_scene_init(&scene, NULL);
    orr_draw_visible_init(&vis, NULL);
    orr_draw_visible_init(&pay, NULL);
    orr_draw_fur_list_init(&c, NULL);
    orr_draw_fur_list_init(&a, NULL);
    orr_draw_fur_list_init(&b, NULL);
    uint32_t compared = 0, fallbacks = 0;
    for (int round = 0; round < 20; round++) {
        uint32_t nf = 0;
        for (uint32_t i = 0; i < N; i++) {
            uint32_t k = rnd(&seed);
            in[i] = instance(i, k % 4 ? f->furry : f->tri, -(double)(k % 50));
            in[i].world.m[9] = (double)((k >> 8) % 30) - 15.0;
            if ((k >> 14) % 9 == 0) in[i].visible = false;
            if ((k >> 18) % 3)
                side[nf++] = (orr_render_fur){.instance = i,
                                              .set = ((k >> 20) % 2 ? ORR_FUR_SET_SHELL_COUNT : 0) |
                                                     ((k >> 28) % 2 ? ORR_FUR_SET_SHELL_LENGTH : 0),
                                              .shell_count = 1 + (k >> 22) % 64,
                                              .shell_length = (float)((k >> 29) % 4)}; /* up to 3 m: reaches in */
        }
        orr_snapshot s = {.instance_count = N, .instances = in, .fur = side, .fur_count = nf};
        for (int order = 0; order < 2; order++) {
            assert_int_equal(orr_draw_scene_build(&scene, &s, f->assets, (orr_draw_order)order), ORR_OK);
            for (int vi = 0; vi < 3; vi++) {
                orr_draw_view v = view();
                v.order = (orr_draw_order)order;
                double yaw = (double)(rnd(&seed) % 100) / 100.0 - 0.5;
                v.view.m[0] = v.view.m[10] = cos(yaw);
                v.view.m[8] = sin(yaw);
                v.view.m[2] = -sin(yaw);
                assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
                assert_int_equal(orr_draw_scene_cull(&scene, &s, &v, &vis), ORR_OK);
                assert_int_equal(vis.stats.fur_fallbacks, list.stats.fur_fallbacks);
                assert_memory_equal(vis.stats.dropped, list.stats.dropped, sizeof list.stats.dropped);
                assert_int_equal(orr_draw_fur_collect(&a, &list, &s, f->assets), ORR_OK);
                assert_int_equal(orr_draw_fur_collect_visible(&b, &scene, &vis, &s, f->assets), ORR_OK);
                assert_int_equal(a.draw_count, b.draw_count);
                for (uint32_t k = 0; k < a.draw_count; k++) {
                    const orr_fur_draw *x = &a.draws[k], *y = &b.draws[k];
                    if (x->instance != y->instance || x->primitive != y->primitive || x->shell_count != y->shell_count ||
                        x->sidecar != y->sidecar || !orr_id_eq(x->material, y->material))
                        fail_msg("round %d order %d view %d: fur draw %u differs (instance %u vs %u)", round, order, vi, k,
                                 x->instance, y->instance);
                    assert_int_equal(list.draws[x->draw].instance, x->instance);
                    assert_int_equal(vis.items[y->draw], y->instance);
                }
                assert_int_equal(a.batch_count, b.batch_count);
                assert_memory_equal(&a.stats, &b.stats, sizeof a.stats);
                assert_int_equal(vis.stats.visible, list.stats.visible);
                assert_int_equal(vis.stats.culled, list.stats.culled);
                /* the payload-only cull (a GPU-culled view's adapters): the same fur draws */
                assert_int_equal(orr_draw_scene_cull_payloads(&scene, &s, &v, &pay), ORR_OK);
                assert_int_equal(orr_draw_fur_collect_visible(&c, &scene, &pay, &s, f->assets), ORR_OK);
                assert_int_equal(c.draw_count, a.draw_count);
                for (uint32_t k = 0; k < a.draw_count; k++)
                    assert_true(a.draws[k].instance == c.draws[k].instance && a.draws[k].primitive == c.draws[k].primitive);
                assert_memory_equal(&a.stats, &c.stats, sizeof a.stats);
                compared += a.draw_count;
                fallbacks += list.stats.fur_fallbacks;
            }
        }
    }
    print_message("fur: %u fur draws compared between the retained scene and orr_draw_prepare, %u fallbacks counted\n",
                  compared, fallbacks);
    assert_true(compared > 1000 && fallbacks > 100);
    orr_draw_fur_list_fini(&a);
    orr_draw_fur_list_fini(&b);
    orr_draw_fur_list_fini(&c);
    orr_draw_list_fini(&list);
    orr_draw_scene_fini(&scene);
    orr_draw_visible_fini(&vis);
    orr_draw_visible_fini(&pay);
    free(in);
    free(side);
}

int orrt_draw_fur(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fur_payload_and_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fur_pass_and_bad_material, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fur_bad_sidecar, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ranges_with_payloads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fur_retained_equals_prepare, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fur_reach_culling, setup, teardown),
    };
    return cmocka_run_group_tests_name("draw: fur", tests, NULL, NULL);
}
