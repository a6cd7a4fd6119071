/* gpu: the meshlet strategy (validation and synchronization validation on, as every gpu test).
 *   - it renders the same bytes as the indirect strategy for opaque content (and for the fixture's
 *     cut-out and blended quads, which it draws by meshlets and by the indexed path), in both orders, with
 *     the GPU's cull and the CPU's, through two views
 *   - its culling cuts what reaches the rasteriser when half of the scene is behind the camera and the
 *     far halves of the spheres face away, within the CPU reference's bounds, the image unchanged
 *   - the pool holds each mesh's meshlets once (its bytes are the sum over meshes, however many
 *     instances, views and frames)
 *   - skinned, morphed and blended surfaces go the indexed path and are counted by reason
 *   - which path ran (mesh shaders or the fallback) follows the device and orr_renderer_desc
 *   - (group mesh_shaders) on a device with mesh shaders, they render the same bytes as the fallback */
#include "gpu_fixture.h"
#include "gpu_tests.h"
#include "gpu/gpu_state.h" /* ORRI_VERTEX_BYTES, for the pool's bytes */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 180

static orr_vec3d zero3(void) { return (orr_vec3d){0, 0, 0}; }

static orr_mat4d trs(orr_vec3d t, orr_quatd r, orr_vec3d s)
{
    orr_mat4d m;
    orr_mat4d_from_trs(t, r, s, &m);
    return m;
}

/* The fixture's scene with meshlets, and spheres: a plain one, a mirrored one, one scaled unevenly (no
 * cone test), one of a double-sided material, and a row of small ones. */
static void meshlet_scene(fixture *f)
{
    fix_init_meshlets(f, zero3());
    orr_mesh_id sphere = fix_sphere(f, 24, 48, f->green);
    orr_quatd id = ORR_QUAT_IDENTITY;
    fix_add(f, 200, sphere, f->green, trs((orr_vec3d){0.75, 0.25, 1.0}, id, (orr_vec3d){0.9, 0.9, 0.9}));
    fix_add(f, 201, sphere, f->blue, trs((orr_vec3d){-1.0, 0.5, -0.75}, orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, 0.4),
                                         (orr_vec3d){-0.8, 0.8, 0.8}));
    fix_add(f, 202, sphere, f->red, trs((orr_vec3d){1.75, 0.75, -1.0}, id, (orr_vec3d){1.2, 0.5, 0.8}));
    fix_add(f, 203, sphere, f->ground, trs((orr_vec3d){-2.0, 0.0, 1.0}, id, (orr_vec3d){0.6, 0.6, 0.6}));
    for (uint32_t i = 0; i < 8; i++)
        fix_add(f, 210 + i, sphere, (i % 2) ? f->red : f->blue,
                trs((orr_vec3d){-2.0 + 0.5 * i, -0.25, -2.0}, id, (orr_vec3d){0.35, 0.35, 0.35}));
}

static uint8_t *render_views(orr_renderer *r, fixture *f, orr_strategy strategy, orr_draw_order order, orr_cull cull,
                             orr_render_stats *st)
{
    fix_view views[2];
    fix_two_views(zero3(), W, H, strategy, order, views);
    views[0].cull = views[1].cull = cull;
    return fix_render(r, f, W, H, views, 2, st);
}

/* A sphere of packed positions (16-bit normalized) and normals (8-bit), as quantized glTF files hold
 * them, or the same vertices read back as floats (orr_primitive_read_positions, _normals): added to
 * the fixture's meshlet scene at three poses. The renderer converts packed streams as it uploads them,
 * so both draw the same bytes, by every strategy that draws plain meshes (tangents generated from them
 * too: the fixture's materials have none). */
static void packed_scene(fixture *f, bool as_floats)
{
    fix_init_meshlets(f, zero3());
    enum { RINGS = 16, SEGS = 32, NV = (RINGS + 1) * (SEGS + 1), NT = 2 * RINGS * SEGS };
    int16_t *qp = malloc((size_t)NV * 8);
    int8_t *qn = malloc((size_t)NV * 4);
    uint32_t *idx = malloc((size_t)NT * 12);
    assert_true(qp && qn && idx);
    for (uint32_t r = 0; r <= RINGS; r++)
        for (uint32_t s = 0; s <= SEGS; s++) {
            double th = 3.14159265358979323846 * r / RINGS, ph = 2 * 3.14159265358979323846 * s / SEGS;
            double n[3] = {sin(th) * cos(ph), cos(th), -sin(th) * sin(ph)};
            uint32_t k = r * (SEGS + 1) + s;
            for (int c = 0; c < 3; c++)
                qp[k * 4 + c] = (int16_t)lround(0.5 * n[c] * 32767), qn[k * 4 + c] = (int8_t)lround(n[c] * 127);
            qp[k * 4 + 3] = 0, qn[k * 4 + 3] = 0;
        }
    uint32_t t = 0;
    for (uint32_t r = 0; r < RINGS; r++)
        for (uint32_t s = 0; s < SEGS; s++) {
            uint32_t a = r * (SEGS + 1) + s, b = a + SEGS + 1, q[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(idx + t * 3, q, sizeof q);
            t += 2;
        }
    orr_primitive_desc p = {.vertex_count = NV, .packed_positions = {qp, ORR_PACKING_I16_NORM},
                            .packed_normals = {qn, ORR_PACKING_I8_NORM}, .index_count = 3 * NT, .indices = idx};
    orr_mesh_desc d = {.name = "packed sphere", .primitive_count = 1, .primitives = &p, .build_meshlets = true};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(f->assets, &d, &id), ORR_OK);
    if (as_floats) { /* the same vertices as floats, in a mesh of its own */
        const orr_primitive *pp = &orr_assets_try_get_mesh(f->assets, id)->primitives[0];
        assert_null(pp->positions);
        float *pos = malloc((size_t)NV * 12), *nrm = malloc((size_t)NV * 12);
        assert_true(pos && nrm);
        orr_primitive_read_positions(pp, 0, NV, pos);
        orr_primitive_read_normals(pp, 0, NV, nrm);
        orr_primitive_desc fp = {.vertex_count = NV, .positions = pos, .normals = nrm, .index_count = 3 * NT, .indices = idx};
        d.primitives = &fp;
        assert_int_equal(orr_assets_add_mesh(f->assets, &d, &id), ORR_OK);
        assert_non_null(orr_assets_try_get_mesh(f->assets, id)->primitives[0].positions);
        free(pos), free(nrm);
    }
    free(qp), free(qn), free(idx);
    orr_quatd q = ORR_QUAT_IDENTITY;
    fix_add(f, 300, id, f->green, trs((orr_vec3d){0.5, 0.5, 0.5}, q, (orr_vec3d){1.5, 1.5, 1.5}));
    fix_add(f, 301, id, f->red, trs((orr_vec3d){-1.5, 0.25, -0.5}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.7),
                                    (orr_vec3d){1, 2, 1}));
    fix_add(f, 302, id, f->ground, trs((orr_vec3d){1.5, 0.0, -1.5}, q, (orr_vec3d){0.8, 0.8, 0.8}));
}

void test_packed_streams_render_like_floats(void **state)
{
    (void)state;
    fixture packed, floats;
    packed_scene(&packed, false);
    packed_scene(&floats, true);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    for (int s = ORR_STRATEGY_DIRECT; s <= ORR_STRATEGY_MESHLET; s++) {
        if (s == ORR_STRATEGY_SHELL) continue; /* (the fixture has no fur) */
        uint8_t *a = render_views(r, &packed, (orr_strategy)s, ORR_ORDER_MESH, ORR_CULL_CPU, NULL);
        uint8_t *b = render_views(r, &floats, (orr_strategy)s, ORR_ORDER_MESH, ORR_CULL_CPU, NULL);
        assert_true(fix_count_drawn(a, W, 0, 0, W, H) > W * H / 5);
        if (memcmp(a, b, (size_t)W * H * 4)) fail_msg("strategy %d: the packed sphere draws other bytes than its floats", s);
        free(a), free(b);
    }
    fix_renderer_done(r, &logged);
    fix_fini(&packed);
    fix_fini(&floats);
}

void test_meshlet_equals_indirect(void **state)
{
    (void)state;
    fixture f;
    meshlet_scene(&f);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    bool mesh_shaders = orr_renderer_uses_mesh_shaders(r);
    for (int order = ORR_ORDER_HIERARCHY; order <= ORR_ORDER_MESH; order++)
        for (int cull = ORR_CULL_CPU; cull <= ORR_CULL_GPU; cull++) {
            orr_render_stats si, sm;
            uint8_t *a = render_views(r, &f, ORR_STRATEGY_INDIRECT, (orr_draw_order)order, (orr_cull)cull, &si);
            uint8_t *b = render_views(r, &f, ORR_STRATEGY_MESHLET, (orr_draw_order)order, (orr_cull)cull, &sm);
            print_message("order %d cull %d (%s): meshlets sent %llu kept %llu, triangles sent %llu kept %llu, indexed "
                          "blended %u no_meshlets %u, draw calls %u (indirect %u)\n",
                          order, cull, mesh_shaders ? "mesh shaders" : "fallback", (unsigned long long)sm.meshlets.sent,
                          (unsigned long long)sm.meshlets.kept, (unsigned long long)sm.meshlets.triangles_sent,
                          (unsigned long long)sm.meshlets.triangles_kept, sm.meshlets.indexed[ORR_MESHLET_INDEXED_BLENDED],
                          sm.meshlets.indexed[ORR_MESHLET_INDEXED_NO_MESHLETS], sm.draws.calls, si.draws.calls);
            assert_true(fix_count_drawn(a, W, 0, 0, W, H) > W * H / 5);
            assert_memory_equal(a, b, (size_t)W * H * 4);
            assert_int_equal(sm.meshlets.views, 2);
            assert_int_equal(sm.meshlets.mesh_shader_views, mesh_shaders ? 2 : 0);
            assert_int_equal(si.meshlets.views, 0);
            assert_true(sm.meshlets.kept > 0 && sm.meshlets.kept < sm.meshlets.sent);
            assert_true(sm.meshlets.triangles_kept < sm.meshlets.triangles_sent);
            /* the glass quad is blended: the indexed path, once per view that sees it */
            assert_true(sm.meshlets.indexed[ORR_MESHLET_INDEXED_BLENDED] >= 1);
            assert_int_equal(sm.meshlets.indexed[ORR_MESHLET_INDEXED_NO_MESHLETS], 0);
            assert_int_equal(sm.meshlets.indexed[ORR_MESHLET_INDEXED_SKINNED], 0);
            /* the same visible set as the indirect strategy */
            assert_int_equal(sm.cull.visible, si.cull.visible);
            free(a);
            free(b);
        }
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}


/* The draw view the renderer makes of a view with an explicit pose, the default yfov (0.8) and znear
 * (0.05) and a viewport of w x h (gpu_view.c's orri_view_camera). */
static orr_draw_view draw_view_of(orr_mat4d pose, uint32_t w, uint32_t h)
{
    orr_draw_view dv = {.cull = true};
    dv.origin = orr_mat4d_translation(&pose);
    orr_mat4d_identity(&dv.view);
    for (int c = 0; c < 3; c++) {
        orr_vec3d axis = orr_vec3d_normalize((orr_vec3d){pose.m[c * 4 + 0], pose.m[c * 4 + 1], pose.m[c * 4 + 2]});
        dv.view.m[0 * 4 + c] = axis.x;
        dv.view.m[1 * 4 + c] = axis.y;
        dv.view.m[2 * 4 + c] = axis.z;
    }
    orr_mat4d_perspective_reversed_infinite(0.8, (double)w / h, 0.05, &dv.proj);
    return dv;
}

/* A ring of spheres around the camera (half of them behind it), each seen from outside: the cull keeps
 * the front half, the cone test drops the meshlets of each far half that faces away, the frustum test
 * the parts outside the view. */
static orr_mat4d ring_scene(fixture *f, uint32_t count)
{
    fix_init_meshlets(f, zero3());
    f->snapshot.instance_count = 0; /* only the spheres */
    f->snapshot.material_binding_count = 0;
    orr_mesh_id sphere = fix_sphere(f, 32, 64, f->red);
    for (uint32_t i = 0; i < count; i++) {
        double a = 2 * ORR_PI * (i + 0.5) / count;
        fix_add(f, 300 + i, sphere, (i % 3) ? f->red : f->blue,
                trs((orr_vec3d){4 * sin(a), 0.25 * (i % 2), -4 * cos(a)}, ORR_QUAT_IDENTITY, (orr_vec3d){1.5, 1.5, 1.5}));
    }
    return fix_look((orr_vec3d){0, 0.5, 0}, (orr_vec3d){0, 0.25, -4});
}

typedef struct reference {
    uint64_t sent, triangles_sent, kept, triangles_kept, triangles_kept_loose;
    uint32_t visible;
} reference;

/* The draw module's CPU reference of the meshlet strategy for one view, and the same test with every
 * meshlet's sphere widened by a relative 1e-3 and its cone's cutoff raised by 1e-3: what the GPU's
 * conservative binary32 test keeps must lie between the two. */
static reference cpu_reference(fixture *f, const orr_draw_view *dv)
{
    reference ref = {0};
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    assert_int_equal(orr_draw_prepare(&list, &f->snapshot, f->assets, dv), ORR_OK);
    orr_meshlet_list ml;
    orr_draw_meshlet_list_init(&ml, NULL);
    assert_int_equal(orr_draw_meshlet_cull_list(&ml, &list, &f->snapshot, f->assets, dv, ORR_MESHLET_CULL_ALL), ORR_OK);
    ref.sent = ml.stats.meshlets_sent;
    ref.kept = ml.stats.meshlets_kept;
    ref.triangles_sent = ml.stats.triangles_sent;
    ref.triangles_kept = ml.stats.triangles_kept;
    ref.visible = list.stats.surface_draws;
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(dv, ORR_MESHLET_CULL_ALL, &mv);
    for (uint32_t k = 0; k < ml.draw_count; k++) {
        const orr_meshlet_draw *d = &ml.draws[k];
        if (d->path != ORR_MESHLET_PATH_MESHLETS) continue;
        const orr_mesh *mesh = orr_assets_try_get_mesh(f->assets, d->mesh);
        const orr_material *mat = orr_assets_try_get_material(f->assets, d->material);
        orr_meshlet_instance inst;
        orr_draw_meshlet_instance_init(&mv, &f->snapshot.instances[d->instance].world, mat->double_sided, &inst);
        for (uint32_t m = d->meshlet_offset; m < d->meshlet_offset + d->meshlet_count; m++) {
            orr_meshlet_bounds b = mesh->meshlet_bounds[m];
            b.radius *= 1.001f;
            if (b.cone_cutoff < 1.0f) b.cone_cutoff += 1e-3f;
            if (orr_draw_meshlet_visible(&mv, &inst, &b)) ref.triangles_kept_loose += mesh->meshlets[m].triangle_count;
        }
    }
    orr_draw_meshlet_list_fini(&ml);
    orr_draw_list_fini(&list);
    return ref;
}

static uint8_t *render_one(orr_renderer *r, fixture *f, orr_mat4d pose, orr_strategy strategy, orr_render_stats *st)
{
    fix_view v = {.viewport = {0, 0, W, H}, .pose = pose, .strategy = strategy, .order = ORR_ORDER_MESH};
    return fix_render(r, f, W, H, &v, 1, st);
}

void test_meshlet_culling(void **state)
{
    (void)state;
    fixture f;
    orr_mat4d pose = ring_scene(&f, 12);
    orr_draw_view dv = draw_view_of(pose, W, H);
    reference ref = cpu_reference(&f, &dv);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_render_stats si, sm;
    uint8_t *a = render_one(r, &f, pose, ORR_STRATEGY_INDIRECT, &si);
    uint8_t *b = render_one(r, &f, pose, ORR_STRATEGY_MESHLET, &sm);
    uint64_t all = 0;
    for (uint32_t i = 0; i < f.snapshot.instance_count; i++)
        all += orr_assets_try_get_mesh(f.assets, f.instances[i].mesh)->primitives[0].index_count / 3;
    print_message("%s: %u of %u spheres visible; triangles of all %llu, sent %llu (reference %llu), kept %llu "
                  "(reference %llu..%llu); meshlets sent %llu kept %llu\n",
                  orr_renderer_uses_mesh_shaders(r) ? "mesh shaders" : "fallback", si.cull.visible, f.snapshot.instance_count,
                  (unsigned long long)all, (unsigned long long)sm.meshlets.triangles_sent,
                  (unsigned long long)ref.triangles_sent, (unsigned long long)sm.meshlets.triangles_kept,
                  (unsigned long long)ref.triangles_kept, (unsigned long long)ref.triangles_kept_loose,
                  (unsigned long long)sm.meshlets.sent, (unsigned long long)sm.meshlets.kept);
    /* the image is the indirect strategy's, and shows spheres */
    assert_memory_equal(a, b, (size_t)W * H * 4);
    assert_true(fix_count_drawn(a, W, 0, 0, W, H) > W * H / 10);
    /* half the ring is behind the camera: the cull (the same for both) sends at most half of it */
    assert_int_equal(sm.cull.visible, si.cull.visible);
    assert_int_equal(sm.cull.visible, ref.visible);
    assert_true(2 * sm.meshlets.triangles_sent <= all);
    assert_int_equal(sm.meshlets.sent, ref.sent);
    assert_int_equal(sm.meshlets.triangles_sent, ref.triangles_sent);
    /* of what is sent, the far halves face away: well under 60% reaches the rasteriser */
    assert_true(sm.meshlets.triangles_kept * 10 < sm.meshlets.triangles_sent * 6);
    assert_true(sm.meshlets.triangles_kept >= ref.triangles_kept);
    assert_true(sm.meshlets.triangles_kept <= ref.triangles_kept_loose);
    assert_true(sm.meshlets.kept <= sm.meshlets.sent);
    /* the indirect strategy sends every triangle of every visible sphere */
    assert_int_equal(sm.meshlets.indexed[ORR_MESHLET_INDEXED_NO_MESHLETS], 0);
    free(a);
    free(b);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* The bytes the pool must hold for the meshes the snapshot draws: each mesh once, its meshlets once. */
static uint64_t pool_bytes(const fixture *f)
{
    orr_mesh_id seen[64];
    uint32_t n = 0;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < f->snapshot.instance_count; i++) {
        orr_mesh_id id = f->instances[i].mesh;
        bool again = false;
        for (uint32_t k = 0; k < n && !again; k++) again = orr_id_eq(seen[k], id);
        if (again) continue;
        assert_true(n < 64);
        seen[n++] = id;
        const orr_mesh *m = orr_assets_try_get_mesh(f->assets, id);
        for (uint32_t p = 0; p < m->primitive_count; p++)
            bytes += (uint64_t)m->primitives[p].vertex_count * ORRI_VERTEX_BYTES + (uint64_t)m->primitives[p].index_count * 4;
        bytes += (uint64_t)m->meshlet_count * (sizeof(orr_gpu_meshlet) + sizeof(orr_gpu_meshlet_bounds)) +
                 (uint64_t)m->meshlet_vertex_count * 4 + (uint64_t)(m->meshlet_triangle_bytes + 3) / 4 * 4;
    }
    return bytes;
}

void test_meshlet_pool_once(void **state)
{
    (void)state;
    fixture f;
    meshlet_scene(&f);
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_render_stats st;
    free(render_views(r, &f, ORR_STRATEGY_MESHLET, ORR_ORDER_MESH, ORR_CULL_AUTO, &st));
    uint64_t expect = pool_bytes(&f), first = st.memory.geometry_bytes;
    print_message("pool: %llu bytes, expected %llu\n", (unsigned long long)first, (unsigned long long)expect);
    assert_int_equal(first, expect);
    /* more instances of the meshes already resident, more views, more frames: not a byte more */
    orr_mesh_id sphere = f.instances[f.snapshot.instance_count - 1].mesh;
    for (uint32_t i = 0; i < 40; i++)
        fix_add(&f, 400 + i, sphere, f.red, trs((orr_vec3d){-2 + 0.1 * i, 1.5, -3}, ORR_QUAT_IDENTITY, (orr_vec3d){0.2, 0.2, 0.2}));
    for (int frame = 0; frame < 3; frame++) {
        free(render_views(r, &f, ORR_STRATEGY_MESHLET, ORR_ORDER_HIERARCHY, ORR_CULL_CPU, &st));
        assert_int_equal(st.memory.geometry_bytes, first);
        free(render_one(r, &f, fix_look((orr_vec3d){0, 2, 5}, zero3()), ORR_STRATEGY_MESHLET, &st));
        assert_int_equal(st.memory.geometry_bytes, first);
    }
    assert_int_equal(pool_bytes(&f), expect);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* A skinned sphere (its upper half moved by a joint) and a morphed one, both with meshlets: drawn by
 * the indexed path, counted, and the image is the indirect strategy's. */
void test_meshlet_skinned_and_morphed(void **state)
{
    (void)state;
    fixture f;
    meshlet_scene(&f);
    orr_mesh_id sphere = f.instances[f.snapshot.instance_count - 1].mesh;
    const orr_primitive *sp = &orr_assets_try_get_mesh(f.assets, sphere)->primitives[0];
    uint32_t n = sp->vertex_count;
    uint16_t *joints = calloc((size_t)n * 4, sizeof *joints);
    float *weights = calloc((size_t)n * 4, sizeof *weights), *delta = calloc((size_t)n * 3, sizeof *delta);
    assert_true(joints && weights && delta);
    for (uint32_t i = 0; i < n; i++) {
        joints[i * 4] = sp->positions[i * 3 + 1] > 0 ? 1 : 0;
        weights[i * 4] = 1.0f;
        delta[i * 3 + 2] = 0.3f * sp->positions[i * 3 + 1];
    }
    orr_primitive_desc pd = {.vertex_count = n, .positions = sp->positions, .normals = sp->normals,
                             .index_count = sp->index_count, .indices = sp->indices, .material = f.green,
                             .joints = joints, .weights = weights};
    orr_mesh_id skinned, morphed;
    assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd, .build_meshlets = true},
                                         &skinned),
                     ORR_OK);
    orr_morph_target_desc target = {.positions = delta};
    float weight = 1.0f;
    orr_primitive_desc md = {.vertex_count = n, .positions = sp->positions, .normals = sp->normals,
                             .index_count = sp->index_count, .indices = sp->indices, .material = f.blue,
                             .target_count = 1, .targets = &target};
    assert_int_equal(orr_assets_add_mesh(f.assets,
                                         &(orr_mesh_desc){.primitive_count = 1, .primitives = &md, .weight_count = 1,
                                                          .weights = &weight, .build_meshlets = true},
                                         &morphed),
                     ORR_OK);
    assert_true(orr_assets_try_get_mesh(f.assets, skinned)->meshlet_count > 1);
    assert_true(orr_assets_try_get_mesh(f.assets, morphed)->meshlet_count > 1);
    orr_affine3d palette[2];
    orr_affine3d_identity(&palette[0]);
    orr_affine3d_identity(&palette[1]);
    palette[1].m[10] = 0.4; /* the upper half up */
    f.snapshot.joints = palette;
    f.snapshot.joint_count = 2;
    orr_render_instance *in = fix_add(&f, 500, skinned, f.green, trs((orr_vec3d){0.5, 0.5, 1.5}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    in->joint_offset = 0;
    in->joint_count = 2;
    fix_add(&f, 501, morphed, f.blue, trs((orr_vec3d){-0.75, 0.5, 1.5}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE));
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    for (int cull = ORR_CULL_CPU; cull <= ORR_CULL_GPU; cull++) {
        orr_render_stats si, sm;
        uint8_t *a = render_views(r, &f, ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, (orr_cull)cull, &si);
        uint8_t *b = render_views(r, &f, ORR_STRATEGY_MESHLET, ORR_ORDER_MESH, (orr_cull)cull, &sm);
        print_message("cull %d: indexed skinned %u morphed %u blended %u (triangles %llu)\n", cull,
                      sm.meshlets.indexed[ORR_MESHLET_INDEXED_SKINNED], sm.meshlets.indexed[ORR_MESHLET_INDEXED_MORPHED],
                      sm.meshlets.indexed[ORR_MESHLET_INDEXED_BLENDED], (unsigned long long)sm.meshlets.triangles_indexed);
        assert_memory_equal(a, b, (size_t)W * H * 4);
        /* each is seen by both views */
        assert_int_equal(sm.meshlets.indexed[ORR_MESHLET_INDEXED_SKINNED], 2);
        assert_int_equal(sm.meshlets.indexed[ORR_MESHLET_INDEXED_MORPHED], 2);
        assert_true(sm.meshlets.triangles_indexed >= 4ull * (sp->index_count / 3));
        free(a);
        free(b);
    }
    free(joints);
    free(weights);
    free(delta);
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

/* Which path the meshlet strategy takes follows the device and the desc, and the stats say so. */
void test_meshlet_path_selection(void **state)
{
    (void)state;
    fixture f;
    meshlet_scene(&f);
    fix_log la, lb;
    orr_renderer *a = fix_renderer(&la);
    orr_renderer *b = fix_renderer_meshlet_fallback(&lb);
    bool has = orr_renderer_has_mesh_shaders(a);
    /* the reasons' names, as --stats prints them */
    assert_string_equal(orr_meshlet_indexed_name(ORR_MESHLET_INDEXED_SKINNED), "skinned");
    assert_string_equal(orr_meshlet_indexed_name(ORR_MESHLET_INDEXED_CAPACITY), "capacity");
    assert_string_equal(orr_meshlet_indexed_name(ORR_MESHLET_INDEXED_COUNT), "unknown");
    print_message("%s: mesh shaders %s\n", orr_renderer_device_name(a), has ? "offered" : "not offered");
    assert_int_equal(orr_renderer_has_mesh_shaders(b), has);
    assert_int_equal(orr_renderer_uses_mesh_shaders(a), has);
    assert_false(orr_renderer_uses_mesh_shaders(b));
    orr_render_stats sa, sb;
    uint8_t *pa = render_views(a, &f, ORR_STRATEGY_MESHLET, ORR_ORDER_MESH, ORR_CULL_AUTO, &sa);
    uint8_t *pb = render_views(b, &f, ORR_STRATEGY_MESHLET, ORR_ORDER_MESH, ORR_CULL_AUTO, &sb);
    assert_int_equal(sa.meshlets.views, 2);
    assert_int_equal(sb.meshlets.views, 2);
    assert_int_equal(sa.meshlets.mesh_shader_views, has ? 2 : 0);
    assert_int_equal(sb.meshlets.mesh_shader_views, 0);
    /* the fallback draws the same picture whichever renderer it runs in */
    uint8_t *pi = render_views(b, &f, ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, ORR_CULL_AUTO, NULL);
    assert_memory_equal(pb, pi, (size_t)W * H * 4);
    free(pa);
    free(pb);
    free(pi);
    fix_renderer_done(a, &la);
    fix_renderer_done(b, &lb);
    fix_fini(&f);
}

/* (group mesh_shaders) Task and mesh shaders against the fallback on the same device: the same bytes
 * and the same counts. A device without them cannot run it: the test is reported skipped with the
 * reason (or fails where ORRERY_REQUIRE_MESH_SHADERS is set, as it must be on a device that has them). */
void test_mesh_shaders_equal_fallback(void **state)
{
    (void)state;
    fix_log la, lb;
    orr_renderer *a = fix_renderer(&la);
    if (!orr_renderer_uses_mesh_shaders(a)) {
        /* A device without them (lavapipe): what is checked here is the selection, not skipped: the
         * renderer says it has none, a meshlet view runs the fallback and draws indirect's bytes. The
         * comparison below runs where the device has them (the H200); ORRERY_REQUIRE_MESH_SHADERS makes
         * their absence a failure there. */
        const char *require = getenv("ORRERY_REQUIRE_MESH_SHADERS");
        if (require && *require && strcmp(require, "0") != 0)
            fail_msg("the device '%s' has no VK_EXT_mesh_shader with task and mesh shaders, and "
                     "ORRERY_REQUIRE_MESH_SHADERS is set", orr_renderer_device_name(a));
        assert_false(orr_renderer_has_mesh_shaders(a));
        fixture f;
        meshlet_scene(&f);
        orr_render_stats sa;
        uint8_t *pa = render_views(a, &f, ORR_STRATEGY_MESHLET, ORR_ORDER_MESH, ORR_CULL_GPU, &sa);
        uint8_t *pi = render_views(a, &f, ORR_STRATEGY_INDIRECT, ORR_ORDER_MESH, ORR_CULL_GPU, NULL);
        assert_int_equal(sa.meshlets.views, 2);
        assert_int_equal(sa.meshlets.mesh_shader_views, 0);
        assert_true(sa.meshlets.kept > 0 && sa.meshlets.kept < sa.meshlets.sent);
        assert_memory_equal(pa, pi, (size_t)W * H * 4);
        print_message("'%s' has no mesh shaders: the meshlet views ran the fallback (%llu of %llu meshlets kept), "
                      "indirect's bytes; the mesh-shader comparison runs on devices that have them\n",
                      orr_renderer_device_name(a), (unsigned long long)sa.meshlets.kept,
                      (unsigned long long)sa.meshlets.sent);
        free(pa);
        free(pi);
        fix_fini(&f);
        fix_renderer_done(a, &la);
        return;
    }
    orr_renderer *b = fix_renderer_meshlet_fallback(&lb);
    fixture f;
    meshlet_scene(&f);
    for (int order = ORR_ORDER_HIERARCHY; order <= ORR_ORDER_MESH; order++)
        for (int cull = ORR_CULL_CPU; cull <= ORR_CULL_GPU; cull++) {
            orr_render_stats sa, sb;
            uint8_t *pa = render_views(a, &f, ORR_STRATEGY_MESHLET, (orr_draw_order)order, (orr_cull)cull, &sa);
            uint8_t *pb = render_views(b, &f, ORR_STRATEGY_MESHLET, (orr_draw_order)order, (orr_cull)cull, &sb);
            uint8_t *pi = render_views(b, &f, ORR_STRATEGY_INDIRECT, (orr_draw_order)order, (orr_cull)cull, NULL);
            print_message("order %d cull %d: mesh shaders kept %llu of %llu meshlets, fallback %llu of %llu\n", order, cull,
                          (unsigned long long)sa.meshlets.kept, (unsigned long long)sa.meshlets.sent,
                          (unsigned long long)sb.meshlets.kept, (unsigned long long)sb.meshlets.sent);
            assert_int_equal(sa.meshlets.mesh_shader_views, 2);
            assert_int_equal(sb.meshlets.mesh_shader_views, 0);
            assert_memory_equal(pa, pb, (size_t)W * H * 4);
            assert_memory_equal(pb, pi, (size_t)W * H * 4);
            assert_int_equal(sa.meshlets.sent, sb.meshlets.sent);
            assert_int_equal(sa.meshlets.kept, sb.meshlets.kept);
            assert_int_equal(sa.meshlets.triangles_sent, sb.meshlets.triangles_sent);
            assert_int_equal(sa.meshlets.triangles_kept, sb.meshlets.triangles_kept);
            for (int k = 0; k < ORR_MESHLET_INDEXED_COUNT; k++) assert_int_equal(sa.meshlets.indexed[k], sb.meshlets.indexed[k]);
            free(pa);
            free(pb);
            free(pi);
        }
    fix_fini(&f);
    /* the ring: culling by task shaders, the same image and counts as the fallback's */
    orr_mat4d pose = ring_scene(&f, 12);
    orr_render_stats sa, sb;
    uint8_t *pa = render_one(a, &f, pose, ORR_STRATEGY_MESHLET, &sa);
    uint8_t *pb = render_one(b, &f, pose, ORR_STRATEGY_MESHLET, &sb);
    assert_memory_equal(pa, pb, (size_t)W * H * 4);
    assert_int_equal(sa.meshlets.triangles_kept, sb.meshlets.triangles_kept);
    assert_true(sa.meshlets.triangles_kept * 10 < sa.meshlets.triangles_sent * 6);
    free(pa);
    free(pb);
    fix_fini(&f);
    fix_renderer_done(a, &la);
    fix_renderer_done(b, &lb);
}
