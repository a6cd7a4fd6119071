/* gpu scene techniques' pipeline state and draw order (technique.h: orr_technique_scene.topology and
 * .order). Three cubes stand one behind the other on the camera's line of sight, listed middle, near,
 * far, each in its own colour. Drawn with no depth test, the order alone decides each pixel: farthest
 * first leaves the image a depth test keeping the nearest surface gives, to the byte; nearest first
 * the image of a test keeping the farthest. Their edges and corners land on the filled cubes' pixels
 * (within one pixel), fewer of them. Validation and synchronization validation are on: any message
 * fails. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/technique.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 96, H = 72 };

static const orr_technique_write WRITE_COLOR[] = {{.name = "color"}};

/* Each instance's own base colour, unlit. */
static const char *UNLIT_GLSL = "#version 450\n"
                                "#define ORR_SCENE_FRAGMENT\n"
                                "#include \"orrery/scene.glsl\"\n"
                                "layout(location = 0) out vec4 o;\n"
                                "void main() {\n"
                                "    orr_gpu_material m = materials[orr_material];\n"
                                "    o = vec4(m.base_color[0], m.base_color[1], m.base_color[2], 1.0);\n"
                                "}\n";

/* Three cubes on the line from the fixture's camera to what it looks at: the middle one (green) listed
 * first, then the near one (blue), then the far one (red); nothing else. */
static void fixture_in_line(fixture *f)
{
    fix_init(f, (orr_vec3d){0, 0, 0});
    f->snapshot.instance_count = 0;
    f->snapshot.material_binding_count = 0;
    orr_vec3d eye = fix_eye((orr_vec3d){0, 0, 0}), at = {0, 0.25, 0};
    static const double along[3] = {0.15, 0.5, -0.4}; /* of the way to the eye: 4.6, 2.7 and 7.6 m from it */
    orr_material_id colours[3] = {f->green, f->blue, f->red};
    for (uint32_t k = 0; k < 3; k++) {
        orr_vec3d p = orr_vec3d_add(at, orr_vec3d_scale(orr_vec3d_sub(eye, at), along[k]));
        orr_mat4d m;
        orr_mat4d_from_trs(p, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.4 * k), (orr_vec3d){1, 1, 1}, &m);
        fix_add(f, 20 + k, f->cube, colours[k], m);
    }
}

static uint8_t *with(orr_renderer *r, fixture *f, orr_target_id target, const orr_technique_desc *d)
{
    fix_set_techniques(r, target, d, 1, NULL);
    return fix_frame(r, f, target, W, H);
}

static uint32_t differing(const uint8_t *a, const uint8_t *b)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++) n += memcmp(a + 4 * i, b + 4 * i, 3) != 0;
    return n;
}

static void same_image(const uint8_t *got, const uint8_t *want, const char *what)
{
    uint32_t n = differing(got, want);
    if (n) fail_msg("%s: %u pixels differ", what, n);
}

/* Nearest first and farthest first against depth tests, on a view culled on the CPU; on one culled on
 * the GPU the opaque records keep the view's order (technique.h says so). */
void test_technique_scene_order(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_in_line(&f);
    orr_target_id target = fix_target(r, W, H, "order", NULL);
    orr_view_desc vd = {.target = target, .strategy = ORR_STRATEGY_BATCHED, .pose = fix_camera((orr_vec3d){0, 0, 0})};
    orr_view_id view = fix_add_view(r, &vd);
    orr_technique_desc d = {.name = "unlit", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                            .fragment = {.glsl = UNLIT_GLSL, .name = "unlit.frag"},
                            .writes = WRITE_COLOR, .write_count = 1};
    /* the references: a depth test of its own keeping the nearest surface, then the farthest */
    d.scene = (orr_technique_scene){.depth_load = ORR_LOAD_CLEAR, .depth_clear = 0.0f, .depth_write = true,
                                    .depth_test = ORR_DEPTH_NEARER};
    uint8_t *nearest = with(r, &f, target, &d);
    d.scene = (orr_technique_scene){.depth_load = ORR_LOAD_CLEAR, .depth_clear = 1.0f, .depth_write = true,
                                    .depth_test = ORR_DEPTH_FARTHER};
    uint8_t *farthest = with(r, &f, target, &d);
    uint32_t covered = 0;
    for (uint32_t i = 0; i < W * H; i++) covered += memcmp(nearest + 4 * i, nearest, 3) != 0; /* not the clear */
    uint32_t hidden = differing(nearest, farthest);
    print_message("the cubes cover %u pixels, %u of them hidden behind another\n", covered, hidden);
    if (covered < 800 || hidden < 200) fail_msg("the cubes cover %u pixels, hide each other on %u: the test would prove little", covered, hidden);
    /* no depth test: the order alone */
    d.scene = (orr_technique_scene){.depth_test = ORR_DEPTH_ALWAYS, .order = ORR_TECHNIQUE_ORDER_FAR_FIRST};
    uint8_t *far_first = with(r, &f, target, &d);
    same_image(far_first, nearest, "farthest first without a depth test, against the nearest surface");
    d.scene.order = ORR_TECHNIQUE_ORDER_NEAR_FIRST;
    uint8_t *near_first = with(r, &f, target, &d);
    same_image(near_first, farthest, "nearest first without a depth test, against the farthest surface");
    char graph[2048];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    if (!strstr(graph, "pass unlit (scene, view 0, nearest first)")) fail_msg("the graph does not say the order:\n%s", graph);
    /* the view's order is neither: listed middle, near, far (three batches) */
    d.scene.order = ORR_TECHNIQUE_ORDER_VIEW;
    uint8_t *listed = with(r, &f, target, &d);
    if (!differing(listed, nearest) || !differing(listed, farthest))
        fail_msg("the view's order draws the same image as a depth order: the scene does not tell them apart");
    /* a view culled on the GPU: its opaque records in the view's order whatever is asked */
    vd.strategy = ORR_STRATEGY_INDIRECT;
    vd.cull = ORR_CULL_GPU;
    assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
    uint8_t *gpu_listed = with(r, &f, target, &d);
    d.scene.order = ORR_TECHNIQUE_ORDER_FAR_FIRST;
    uint8_t *gpu_far_first = with(r, &f, target, &d);
    same_image(gpu_far_first, gpu_listed, "a GPU-culled view, farthest first, against its own order");
    free(nearest), free(farthest), free(far_first), free(near_first), free(listed), free(gpu_listed);
    free(gpu_far_first);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

static bool magenta(const uint8_t *p) { return p[0] == 255 && p[1] == 0 && p[2] == 255; }

/* Pixels of `img` in the flat colour; each must lie within a pixel of one of `filled`'s. */
static uint32_t flat_near_filled(const uint8_t *img, const uint8_t *filled, const char *what)
{
    uint32_t n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (!magenta(img + 4 * (y * W + x))) continue;
            n++;
            bool near = false;
            for (int dy = -1; dy <= 1 && !near; dy++)
                for (int dx = -1; dx <= 1 && !near; dx++) {
                    int u = x + dx, v = y + dy;
                    near = u >= 0 && v >= 0 && u < W && v < H && magenta(filled + 4 * (v * W + u));
                }
            if (!near) fail_msg("%s: pixel %d,%d is drawn away from the filled cubes", what, x, y);
        }
    return n;
}

void test_technique_scene_topology(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_in_line(&f);
    orr_target_id target = fix_target(r, W, H, "topology", NULL);
    orr_view_desc vd = {.target = target, .strategy = ORR_STRATEGY_BATCHED, .pose = fix_camera((orr_vec3d){0, 0, 0})};
    orr_view_id view = fix_add_view(r, &vd);
    static const char *FLAT = "#version 450\n"
                              "layout(location = 0) out vec4 o;\n"
                              "void main() { o = vec4(1.0, 0.0, 1.0, 1.0); }\n";
    orr_technique_desc d = {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                            .fragment = {.glsl = FLAT, .name = "flat.frag"}, .writes = WRITE_COLOR, .write_count = 1,
                            .scene = {.depth_test = ORR_DEPTH_ALWAYS}};
    uint8_t *filled = with(r, &f, target, &d);
    uint32_t area = flat_near_filled(filled, filled, "filled");
    if (area < 800) fail_msg("the cubes cover only %u pixels", area);
    d.scene.topology = ORR_TECHNIQUE_EDGES;
    uint8_t *edges = with(r, &f, target, &d);
    uint32_t lines = flat_near_filled(edges, filled, "edges");
    /* three cubes' silhouettes and face diagonals: many pixels, yet far from the filled area */
    if (lines < 60 || lines > area * 3 / 4) fail_msg("the edges cover %u pixels of the cubes' %u", lines, area);
    d.scene.topology = ORR_TECHNIQUE_CORNERS;
    uint8_t *corners = with(r, &f, target, &d);
    uint32_t points = flat_near_filled(corners, filled, "corners");
    if (points < 6 || points > 24) fail_msg("%u corner pixels; three cubes have 24 corners", points);
    char graph[2048];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    if (!strstr(graph, "pass flat (scene, view 0, corners)")) fail_msg("the graph does not say the topology:\n%s", graph);
    d.scene.topology = (orr_technique_topology)7;
    assert_int_equal(orr_renderer_set_techniques(r, target, &d, 1, NULL), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "topology"));
    free(filled), free(edges), free(corners);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

#define LAYER_X 2u /* the fixture's rotated green cube and small red one */

static bool in_flat(const uint8_t *p) { return magenta(p); }

/* On a target of 4 samples: a depth pre-pass leaves every view's image the same to the byte (the
 * technique's pipeline has the target's samples and tests the view's multisampled depth); a flat colour
 * over layer X lands where the layer shows, blended with what is behind at its edges (the samples
 * resolved), whether placed right after the view or after the views; what cannot be resolved is
 * refused. */
void test_technique_scene_msaa(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    f.instances[1].layers = LAYER_X;
    f.instances[4].layers = LAYER_X;
    orr_target_desc td = {.width = W, .height = H, .readback = true, .name = "msaa", .samples = 4};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    if (orr_renderer_create_target(r, &td, &target) != ORR_OK)
        fail_msg("target: %s", orr_renderer_last_error(r)->message);
    static const struct {
        orr_strategy strategy;
        orr_cull cull;
    } cases[] = {{ORR_STRATEGY_BATCHED, ORR_CULL_CPU}, {ORR_STRATEGY_INDIRECT, ORR_CULL_GPU}};
    static const char *FLAT = "#version 450\n"
                              "layout(location = 0) out vec4 o;\n"
                              "void main() { o = vec4(1.0, 0.0, 1.0, 1.0); }\n";
    for (uint32_t c = 0; c < 2; c++) {
        orr_view_desc vd = {.target = target, .strategy = cases[c].strategy, .cull = cases[c].cull,
                            .pose = fix_camera((orr_vec3d){0, 0, 0})};
        orr_view_id view = fix_add_view(r, &vd);
        fix_set_techniques(r, target, NULL, 0, NULL);
        uint8_t *base = fix_frame(r, &f, target, W, H);
        fix_assert_varied(base, W * H);
        orr_technique_desc pre = {.name = "depth-prepass", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                  .place = ORR_PLACE_BEFORE_VIEW,
                                  .scene = {.depth_write = true, .passes = 1u << ORR_PASS_OPAQUE}};
        for (int n = 0; n < 3; n++) { /* the frames in flight too */
            uint8_t *with_pre = with(r, &f, target, &pre);
            same_image(with_pre, base, "a depth pre-pass on 4 samples");
            free(with_pre);
        }
        vd.layer_mask = ~LAYER_X;
        assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
        fix_set_techniques(r, target, NULL, 0, NULL);
        uint8_t *without = fix_frame(r, &f, target, W, H);
        vd.layer_mask = 0;
        assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
        orr_technique_desc flat = {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                   .fragment = {.glsl = FLAT}, .writes = WRITE_COLOR, .write_count = 1,
                                   .scene = {.layer_mask = LAYER_X}};
        uint8_t *after_views = with(r, &f, target, &flat);
        uint32_t whole = 0, edge = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            const uint8_t *p = after_views + 4 * i;
            bool x_shows = memcmp(base + 4 * i, without + 4 * i, 3) != 0;
            if (in_flat(p)) whole++;
            else if (memcmp(p, base + 4 * i, 3)) edge++;
            if (!x_shows && memcmp(p, base + 4 * i, 3))
                fail_msg("case %u: pixel %u,%u changed where layer X does not show", c, i % W, i / W);
        }
        if (whole < 150 || !edge || edge > whole)
            fail_msg("case %u: %u pixels in the flat colour, %u blended at its edges", c, whole, edge);
        flat.place = ORR_PLACE_AFTER_VIEW;
        uint8_t *after_view = with(r, &f, target, &flat);
        same_image(after_view, after_views, "placed right after the view, against after the views");
        free(base), free(without), free(after_views), free(after_view);
        assert_int_equal(orr_renderer_destroy_view(r, view), ORR_OK);
    }
    /* what a multisampled target cannot give a scene technique */
    orr_view_desc vd = {.target = target, .strategy = ORR_STRATEGY_BATCHED, .pose = fix_camera((orr_vec3d){0, 0, 0})};
    orr_view_id view = fix_add_view(r, &vd);
    static const orr_technique_write WRITE_MASK[] = {{.name = "mask", .format = ORR_FORMAT_R8_UNORM}};
    orr_technique_desc mask = {.name = "mask", .kind = ORR_TECHNIQUE_SCENE, .view = view, .fragment = {.glsl = FLAT},
                               .writes = WRITE_MASK, .write_count = 1};
    assert_int_equal(orr_renderer_set_techniques(r, target, &mask, 1, NULL), ORR_ERROR_UNSUPPORTED);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "writes \"color\" and depth only, not 'mask'"));
    orr_technique_desc two[2] = {
        {.name = "grade", .fragment = {.glsl = FLAT}, .writes = WRITE_COLOR, .write_count = 1},
        {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view, .fragment = {.glsl = FLAT},
         .writes = WRITE_COLOR, .write_count = 1},
    };
    assert_int_equal(orr_renderer_set_techniques(r, target, two, 2, NULL), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "over what 'grade' wrote there before it"));
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* An inverted hull over layer X: back faces pushed out along their normals (the faces a meshlet's cone
 * test drops), in the flat colour. */
static const char *HULL_VERT = "#version 450\n"
                               "#define ORR_SCENE_VERTEX\n"
                               "#include \"orrery/scene.glsl\"\n"
                               "void main() {\n"
                               "    orr_gpu_record rec = orr_scene_record();\n"
                               "    if (!orr_scene_layer_kept(rec.instance)) { gl_Position = ORR_SCENE_DROPPED; return; }\n"
                               "    vec3 n = normalize(orr_scene_normal(rec.instance, orr_in_normal));\n"
                               "    gl_Position = orr_scene_clip(orr_scene_place(rec.instance, orr_in_position) + 0.06 * n);\n"
                               "}\n";

/* A view drawn by the meshlet strategy: its scene techniques draw the view's records (the instances its
 * cull kept, whole: a technique's face culling is its own, so no meshlet is dropped for it), the same
 * bytes as on an indirect view of the same camera, whichever path draws the view's meshlets (here the
 * fallback; on a device with mesh shaders, theirs); its built-in passes split by techniques placed
 * between them draw the same bytes as unsplit. */
void test_technique_scene_meshlet_view(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init_meshlets(&f, (orr_vec3d){0, 0, 0});
    f.instances[1].layers = LAYER_X;
    f.instances[4].layers = LAYER_X;
    static const char *FLAT = "#version 450\n"
                              "layout(location = 0) out vec4 o;\n"
                              "void main() { o = vec4(1.0, 0.0, 1.0, 1.0); }\n";
    uint8_t *images[2][2];
    orr_strategy strategies[2] = {ORR_STRATEGY_MESHLET, ORR_STRATEGY_INDIRECT};
    for (uint32_t s = 0; s < 2; s++) {
        orr_target_id target = fix_target(r, W, H, "meshlets", NULL);
        orr_view_desc vd = {.target = target, .strategy = strategies[s], .pose = fix_camera((orr_vec3d){0, 0, 0})};
        orr_view_id view = fix_add_view(r, &vd);
        images[s][0] = fix_frame(r, &f, target, W, H);
        /* techniques that draw nothing between every two built-in passes: the strategy's walk split
         * there draws the same bytes */
        orr_technique_desc none[3];
        static const char *const names[3] = {"before-cutout", "before-custom", "before-blended"};
        for (uint32_t k = 0; k < 3; k++)
            none[k] = (orr_technique_desc){.name = names[k], .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                           .fragment = {.glsl = FLAT}, .writes = WRITE_COLOR, .write_count = 1,
                                           .place = ORR_PLACE_BEFORE_PASS, .pass = (orr_pass)(ORR_PASS_CUTOUT + k),
                                           .scene = {.layer_mask = 1u << 7}};
        fix_set_techniques(r, target, none, 3, NULL);
        uint8_t *split = fix_frame(r, &f, target, W, H);
        same_image(split, images[s][0], "the view's passes split by techniques that draw nothing");
        free(split);
        orr_technique_desc list[3] = {
            {.name = "depth-prepass", .kind = ORR_TECHNIQUE_SCENE, .view = view, .place = ORR_PLACE_BEFORE_VIEW,
             .scene = {.depth_write = true, .passes = 1u << ORR_PASS_OPAQUE}},
            {.name = "outline", .kind = ORR_TECHNIQUE_SCENE, .view = view, .fragment = {.glsl = FLAT},
             .writes = WRITE_COLOR, .write_count = 1,
             .scene = {.vertex = {.glsl = HULL_VERT, .name = "hull.vert"}, .cull = ORR_FACE_CULL_FRONT,
                       .layer_mask = LAYER_X}},
            {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view, .fragment = {.glsl = FLAT},
             .writes = WRITE_COLOR, .write_count = 1, .scene = {.layer_mask = LAYER_X, .blend = ORR_BLEND_ADD}},
        };
        fix_set_techniques(r, target, list, 3, NULL);
        images[s][1] = fix_frame(r, &f, target, W, H);
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    }
    same_image(images[0][0], images[1][0], "the meshlet view against the indirect one, without techniques");
    uint32_t drawn = differing(images[0][1], images[0][0]);
    if (drawn < 200) fail_msg("the techniques changed only %u pixels of the meshlet view", drawn);
    same_image(images[0][1], images[1][1], "the meshlet view's techniques against the indirect view's");
    for (uint32_t s = 0; s < 2; s++) free(images[s][0]), free(images[s][1]);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}
