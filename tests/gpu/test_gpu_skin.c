/* GPU skinning with a skin of 1,000 joints (and two more): the vertex shader places every vertex where
 * the snapshot's palette says, read back through an orthographic camera.
 *
 * The mesh: 1001 small quads, all at the same place in the bind pose; quad j (j < 1000) weighted wholly
 * to joint j, the last one 1/4 to joint 1000 and 3/4 to joint 1001. The palette sends quad j to cell
 * (j % 40, j / 40) of a grid of 1-unit cells, so with a camera that maps a unit to 10 pixels each cell's
 * centre must be lit and its border dark; a shader that lost a joint (a 256-joint cap, an index wrapped
 * or clamped, the instance's joint offset ignored) leaves cells dark or lights wrong ones. The palette
 * stands at a joint offset past a block of decoy matrices that would pile every quad into one corner. */
#include "gpu_fixture.h"

#include <stdlib.h>
#include <string.h>

void test_skinning_thousand_joints(void **state);

enum {
    GRID_W = 40,
    GRID_H = 25,
    GRID_JOINTS = GRID_W * GRID_H, /* 1000 */
    JOINTS = GRID_JOINTS + 2,
    QUADS = GRID_JOINTS + 1,
    PX = 10,               /* pixels per unit */
    VIEW_W = 40, VIEW_H = 30, /* units: the grid, and 5 rows above it for the blended quad */
    IMG_W = VIEW_W * PX, IMG_H = VIEW_H * PX,
};

/* Whether the pixel at the centre of cell (cx, cy)'s quad is lit; border: a pixel of its border. */
static bool lit(const uint8_t *px, int cx, int cy, bool border)
{
    int col = cx * PX + (border ? 0 : 5), row = (VIEW_H - 1 - cy) * PX + (border ? 9 : 4); /* +Y up: row 0 is the top */
    const uint8_t *p = px + ((size_t)row * IMG_W + col) * 4;
    return p[0] > 128 && p[1] > 128 && p[2] > 128;
}

static uint8_t *render_ortho(orr_renderer *r, fixture *f, orr_strategy strategy, orr_cull cull)
{
    orr_target_desc td = {.width = IMG_W, .height = IMG_H, .readback = true, .samples = 1};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    orr_view_desc vd = {.target = target, .camera = f->snapshot.cameras[0].entity, .layer_mask = ORR_LAYERS_ALL,
                        .order = ORR_ORDER_MESH, .strategy = strategy, .cull = cull};
    orr_view_id view;
    assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    orr_render_desc desc = fix_desc(r, f, target);
    orr_render_stats st;
    if (orr_renderer_render(r, &desc, &st) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    for (int k = 0; k < ORR_DROP_COUNT; k++) assert_int_equal(st.draws.dropped[k], 0);
    uint8_t *px = malloc((size_t)IMG_W * IMG_H * 4);
    assert_non_null(px);
    assert_int_equal(orr_renderer_read_target(r, target, px, (size_t)IMG_W * IMG_H * 4), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    return px;
}

void test_skinning_thousand_joints(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    f.snapshot.instance_count = 0; /* only the skinned mesh */
    f.snapshot.material_binding_count = 0;

    /* the mesh: quad q has corners (0.2 .. 0.8)^2 at z = 0 in the bind pose */
    enum { V = QUADS * 4, I = QUADS * 6 };
    float *pos = calloc(V * 3, sizeof *pos), *nrm = calloc(V * 3, sizeof *nrm), *wts = calloc(V * 4, sizeof *wts);
    uint16_t *jnt = calloc(V * 4, sizeof *jnt);
    uint32_t *idx = calloc(I, sizeof *idx);
    assert_true(pos && nrm && wts && jnt && idx);
    static const float corner[4][2] = {{0.2f, 0.2f}, {0.8f, 0.2f}, {0.8f, 0.8f}, {0.2f, 0.8f}};
    for (uint32_t q = 0; q < QUADS; q++) {
        for (uint32_t c = 0; c < 4; c++) {
            uint32_t v = q * 4 + c;
            pos[v * 3] = corner[c][0], pos[v * 3 + 1] = corner[c][1];
            nrm[v * 3 + 2] = 1;
            if (q < GRID_JOINTS) {
                jnt[v * 4] = (uint16_t)q;
                wts[v * 4] = 1;
            } else { /* the blended quad */
                jnt[v * 4] = GRID_JOINTS, jnt[v * 4 + 1] = GRID_JOINTS + 1;
                wts[v * 4] = 0.25f, wts[v * 4 + 1] = 0.75f;
            }
        }
        uint32_t b = q * 4, tri[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        memcpy(idx + q * 6, tri, sizeof tri);
    }
    orr_material white = orr_material_default();
    white.unlit = true;
    white.double_sided = true;
    orr_material_id mat;
    assert_int_equal(orr_assets_add_material(f.assets, &white, &mat), ORR_OK);
    orr_primitive_desc pd = {.vertex_count = V, .positions = pos, .normals = nrm, .joints = jnt, .weights = wts,
                             .index_count = I, .indices = idx, .material = mat};
    orr_mesh_id mesh;
    assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd}, &mesh),
                     ORR_OK);

    /* the joints buffer: JOINTS decoys (every quad to the top-right cell), then the palette */
    orr_affine3d *joints = calloc(2 * JOINTS, sizeof *joints);
    assert_non_null(joints);
    for (uint32_t j = 0; j < 2 * JOINTS; j++) orr_affine3d_identity(&joints[j]);
    for (uint32_t j = 0; j < JOINTS; j++) joints[j].m[9] = VIEW_W - 1, joints[j].m[10] = VIEW_H - 1;
    orr_affine3d *palette = joints + JOINTS;
    for (uint32_t j = 0; j < GRID_JOINTS; j++) palette[j].m[9] = j % GRID_W, palette[j].m[10] = j / GRID_W;
    palette[GRID_JOINTS].m[9] = 0, palette[GRID_JOINTS].m[10] = 26;      /* the blend: 1/4 of (0, 26) */
    palette[GRID_JOINTS + 1].m[9] = 32, palette[GRID_JOINTS + 1].m[10] = 26; /* and 3/4 of (32, 26): (24, 26) */
    f.snapshot.joints = joints;
    f.snapshot.joint_count = 2 * JOINTS;
    orr_mat4d identity;
    orr_mat4d_identity(&identity);
    orr_render_instance *in = fix_add(&f, 500, mesh, mat, identity);
    in->joint_offset = JOINTS;
    in->joint_count = JOINTS;
    in->bounds = (orr_aabbf){{-1, -1, -1}, {VIEW_W, VIEW_H, 1}}; /* where the palette takes it */

    /* an orthographic camera over the view, 10 units away, looking along -Z */
    orr_render_camera cam = {.entity = {900, 1}, .projection = ORR_ORTHOGRAPHIC, .ymag = VIEW_H / 2.0,
                             .xmag = VIEW_W / 2.0, .znear = 1, .zfar = 100};
    orr_mat4d pose;
    orr_mat4d_from_trs((orr_vec3d){VIEW_W / 2.0, VIEW_H / 2.0, 10}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &pose);
    orr_affine3d_from_mat4d(&pose, &cam.world);
    f.snapshot.cameras = &cam;
    f.snapshot.camera_count = 1;

    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *batched = render_ortho(r, &f, ORR_STRATEGY_BATCHED, ORR_CULL_CPU);
    uint32_t wrong = 0;
    for (uint32_t j = 0; j < GRID_JOINTS; j++) {
        int cx = (int)(j % GRID_W), cy = (int)(j / GRID_W);
        if (!lit(batched, cx, cy, false) || lit(batched, cx, cy, true)) {
            if (wrong++ < 8) print_message("joint %u: cell (%d, %d) centre %s, border %s\n", j, cx, cy,
                                           lit(batched, cx, cy, false) ? "lit" : "dark",
                                           lit(batched, cx, cy, true) ? "lit" : "dark");
        }
    }
    assert_int_equal(wrong, 0);
    assert_true(lit(batched, 24, 26, false));                              /* the blend of joints 1000 and 1001 */
    assert_false(lit(batched, 0, 26, false) || lit(batched, 32, 26, false)); /* not at either joint alone */
    assert_false(lit(batched, VIEW_W - 1, VIEW_H - 1, false));             /* no decoy was read */
    /* the lit area is exactly 1001 quads of 6 x 6 pixels */
    assert_int_equal(fix_count_drawn(batched, IMG_W, 0, 0, IMG_W, IMG_H), QUADS * 36);
    /* every strategy places them alike, the GPU-culled indirect one included */
    uint8_t *direct = render_ortho(r, &f, ORR_STRATEGY_DIRECT, ORR_CULL_CPU);
    uint8_t *indirect = render_ortho(r, &f, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    assert_memory_equal(direct, batched, (size_t)IMG_W * IMG_H * 4);
    assert_memory_equal(indirect, batched, (size_t)IMG_W * IMG_H * 4);
    free(batched), free(direct), free(indirect);
    fix_renderer_done(r, &logged);
    free(pos), free(nrm), free(wts), free(jnt), free(idx), free(joints);
    fix_fini(&f);
}
