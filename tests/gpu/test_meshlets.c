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
#include "gpu/gpu_internal.h" /* ORRI_VERTEX_BYTES, for the pool's bytes */

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
                          order, cull, mesh_shaders ? "mesh shaders" : "fallback", (unsigned long long)sm.meshlets_sent,
                          (unsigned long long)sm.meshlets_kept, (unsigned long long)sm.meshlet_triangles_sent,
                          (unsigned long long)sm.meshlet_triangles_kept, sm.meshlet_indexed[ORR_MESHLET_INDEXED_BLENDED],
                          sm.meshlet_indexed[ORR_MESHLET_INDEXED_NO_MESHLETS], sm.draw_calls, si.draw_calls);
            assert_true(fix_count_drawn(a, W, 0, 0, W, H) > W * H / 5);
            assert_memory_equal(a, b, (size_t)W * H * 4);
            assert_int_equal(sm.meshlet_views, 2);
            assert_int_equal(sm.mesh_shader_views, mesh_shaders ? 2 : 0);
            assert_int_equal(si.meshlet_views, 0);
            assert_true(sm.meshlets_kept > 0 && sm.meshlets_kept < sm.meshlets_sent);
            assert_true(sm.meshlet_triangles_kept < sm.meshlet_triangles_sent);
            /* the glass quad is blended: the indexed path, once per view that sees it */
            assert_true(sm.meshlet_indexed[ORR_MESHLET_INDEXED_BLENDED] >= 1);
            assert_int_equal(sm.meshlet_indexed[ORR_MESHLET_INDEXED_NO_MESHLETS], 0);
            assert_int_equal(sm.meshlet_indexed[ORR_MESHLET_INDEXED_SKINNED], 0);
            /* the same visible set as the indirect strategy */
            assert_int_equal(sm.visible, si.visible);
            free(a);
            free(b);
        }
    fix_renderer_done(r, &logged);
    fix_fini(&f);
}

