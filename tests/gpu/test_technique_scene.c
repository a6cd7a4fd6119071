/* gpu scene techniques (technique.h, ORR_TECHNIQUE_SCENE): the shared scene drawn again with the host's
 * shaders. A flat colour over one layer's instances lands on exactly the pixels where that layer shows
 * in the forward image (found without techniques: the frame with the layer and the frame without it);
 * a depth pre-pass before the forward pass leaves every strategy's image the same to the byte; an
 * inverted hull drawn by a host vertex shader changes only pixels around the selected instances, to
 * its colour; every refusal that belongs to scene techniques, with its message. Validation and
 * synchronization validation are on: any message fails. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/technique.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 96, H = 72 };
#define LAYER_X 2u /* bit 1: the rotated green cube (instance 1) and the small red one (instance 4) */

static orr_target_id add_target(orr_renderer *r)
{
    return fix_target(r, W, H, "main", (float[4]){0.05f, 0.1f, 0.2f, 1.0f});
}

static orr_view_desc view_desc(orr_target_id target, orr_strategy strategy)
{
    return (orr_view_desc){.target = target, .strategy = strategy, .pose = fix_camera((orr_vec3d){0, 0, 0})};
}

static uint8_t *frame(orr_renderer *r, fixture *f, orr_target_id target) { return fix_frame(r, f, target, W, H); }

static void set_ok(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, uint32_t n)
{
    fix_set_techniques(r, target, d, n, NULL);
}

static void fixture_with_layers(fixture *f)
{
    fix_init(f, (orr_vec3d){0, 0, 0});
    f->instances[1].layers = LAYER_X;
    f->instances[4].layers = LAYER_X;
}

static const orr_technique_write WRITE_COLOR[] = {{.name = "color"}};

/* Flat magenta (255, 0, 255 in the sRGB target) wherever the fragment survives. */
static const char *FLAT_GLSL = "#version 450\n"
                               "#define ORR_SCENE_FRAGMENT\n"
                               "#include \"orrery/scene.glsl\"\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() { o = vec4(1.0, 0.0, 1.0, 1.0); }\n";

static bool magenta(const uint8_t *p) { return p[0] == 255 && p[1] == 0 && p[2] == 255; }

/* A texture read through scene.glsl (white: the fixture's materials have none) times the material's
 * base colour, unlit: each instance's own colour, on either texture path. */
static const char *UNLIT_GLSL = "#version 450\n"
                                "#define ORR_SCENE_FRAGMENT\n"
                                "#include \"orrery/scene.glsl\"\n"
                                "layout(location = 0) out vec4 o;\n"
                                "void main() {\n"
                                "    vec4 t = orr_scene_texture(orr_material, ORR_GPU_TEXTURE_BASE_COLOR, orr_uv_a.xy);\n"
                                "    orr_gpu_material m = materials[orr_material];\n"
                                "    o = vec4(t.rgb * vec3(m.base_color[0], m.base_color[1], m.base_color[2]), 1.0);\n"
                                "}\n";

static bool near(const uint8_t *p, int r, int g, int b)
{
    return abs(p[0] - r) <= 1 && abs(p[1] - g) <= 1 && abs(p[2] - b) <= 1;
}

static void flat_layer(orr_renderer *r, fix_log *logged_in)
{
    fix_log *logged = logged_in;
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = add_target(r);
    orr_view_desc vd = view_desc(target, ORR_STRATEGY_BATCHED);
    orr_view_id view = fix_add_view(r, &vd);
    uint8_t *all = frame(r, &f, target);
    /* where layer X shows: the forward image with it and without it differ there */
    vd.layer_mask = ~LAYER_X;
    assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
    uint8_t *without = frame(r, &f, target);
    vd.layer_mask = 0;
    assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
    orr_technique_desc flat = {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                               .fragment = {.glsl = FLAT_GLSL, .name = "flat.frag"},
                               .writes = WRITE_COLOR, .write_count = 1,
                               .scene = {.layer_mask = LAYER_X}};
    set_ok(r, target, &flat, 1);
    uint8_t *drawn = frame(r, &f, target);
    uint32_t shown = 0, wrong = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        bool x_shows = memcmp(all + 4 * i, without + 4 * i, 4) != 0;
        shown += x_shows;
        bool ok = x_shows ? magenta(drawn + 4 * i) : !memcmp(drawn + 4 * i, all + 4 * i, 4);
        if (!ok && wrong++ < 5)
            print_message("pixel %u,%u: layer X %s, drawn %u,%u,%u, forward %u,%u,%u\n", i % W, i / W,
                          x_shows ? "shows" : "hidden", drawn[4 * i], drawn[4 * i + 1], drawn[4 * i + 2], all[4 * i],
                          all[4 * i + 1], all[4 * i + 2]);
    }
    if (shown < 200) fail_msg("layer X shows on only %u pixels: the test would prove little", shown);
    if (wrong) fail_msg("%u of %u pixels are not the flat colour exactly where layer X shows", wrong, W * H);
    /* every strategy draws the same records: the same pixels */
    static const orr_technique_strategy strategies[] = {ORR_TECHNIQUE_DIRECT, ORR_TECHNIQUE_INDIRECT};
    for (uint32_t s = 0; s < 2; s++) {
        flat.scene.strategy = strategies[s];
        set_ok(r, target, &flat, 1);
        uint8_t *again = frame(r, &f, target);
        assert_memory_equal(again, drawn, (size_t)W * H * 4);
        free(again);
    }
    /* a layer no instance has: the forward image, to the byte */
    flat.scene.layer_mask = 1u << 7;
    set_ok(r, target, &flat, 1);
    uint8_t *none = frame(r, &f, target);
    assert_memory_equal(none, all, (size_t)W * H * 4);
    char graph[2048];
    size_t len = orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    assert_true(len > 0 && len < sizeof graph);
    fix_assert_line(graph, "  pass flat ", "  pass flat (scene, view 0)  writes color  depth test depth@view0");
    /* the scene's materials and textures as the built-in shaders see them: the selected cubes' own
     * base colours (red and green), unlit */
    orr_technique_desc unlit = flat;
    unlit.fragment = (orr_shader_desc){.glsl = UNLIT_GLSL, .name = "unlit.frag"};
    unlit.scene.layer_mask = LAYER_X;
    set_ok(r, target, &unlit, 1);
    uint8_t *own = frame(r, &f, target);
    uint32_t red = 0, green = 0, other = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (!magenta(drawn + 4 * i)) {
            assert_memory_equal(own + 4 * i, all + 4 * i, 4);
            continue;
        }
        const uint8_t *p = own + 4 * i;
        if (near(p, 231, 89, 89)) red++;         /* (0.8, 0.1, 0.1) in sRGB */
        else if (near(p, 89, 218, 124)) green++; /* (0.1, 0.7, 0.2) */
        else other++;
    }
    if (!red || !green || other)
        fail_msg("unlit base colours over layer X: %u red, %u green, %u other pixels", red, green, other);
    free(all), free(without), free(drawn), free(none), free(own);
    fix_fini(&f);
    fix_renderer_done(r, logged);
}

void test_technique_scene_flat_layer(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    flat_layer(r, &logged);
    fix_log sets; /* a descriptor set per material instead of the texture array */
    r = fix_renderer_sets(&sets);
    flat_layer(r, &sets);
}

void test_technique_scene_depth_prepass(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    static const struct {
        orr_strategy strategy;
        orr_cull cull;
    } cases[] = {{ORR_STRATEGY_DIRECT, ORR_CULL_CPU}, {ORR_STRATEGY_BATCHED, ORR_CULL_CPU},
                 {ORR_STRATEGY_INDIRECT, ORR_CULL_GPU}, {ORR_STRATEGY_INDIRECT, ORR_CULL_CPU}};
    for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        orr_target_id target = add_target(r);
        orr_view_desc vd = view_desc(target, cases[c].strategy);
        vd.cull = cases[c].cull;
        orr_view_id view = fix_add_view(r, &vd);
        uint8_t *base = frame(r, &f, target);
        /* depth only, opaque surfaces (a cut-out's holes must not write depth), before the view */
        orr_technique_desc pre = {.name = "depth-prepass", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                  .place = ORR_PLACE_BEFORE_VIEW,
                                  .scene = {.depth_write = true, .passes = 1u << ORR_PASS_OPAQUE}};
        set_ok(r, target, &pre, 1);
        for (int n = 0; n < 3; n++) { /* every frame, the frames in flight included */
            uint8_t *with = frame(r, &f, target);
            if (memcmp(with, base, (size_t)W * H * 4)) {
                uint32_t diff = 0;
                for (uint32_t i = 0; i < W * H; i++) diff += memcmp(with + 4 * i, base + 4 * i, 4) != 0;
                fail_msg("strategy %d, cull %d, frame %d: %u pixels differ with the depth pre-pass",
                         (int)cases[c].strategy, (int)cases[c].cull, n, diff);
            }
            free(with);
        }
        free(base);
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    }
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* An inverted hull: the selected instances' back faces pushed out along their normals, in one colour. */
static const char *HULL_VERT = "#version 450\n"
                               "#define ORR_SCENE_VERTEX\n"
                               "#include \"orrery/scene.glsl\"\n"
                               "void main() {\n"
                               "    orr_gpu_record rec = orr_scene_record();\n"
                               "    if (!orr_scene_layer_kept(rec.instance)) { gl_Position = ORR_SCENE_DROPPED; return; }\n"
                               "    vec3 n = normalize(orr_scene_normal(rec.instance, orr_in_normal));\n"
                               "    gl_Position = orr_scene_clip(orr_scene_place(rec.instance, orr_in_position) + 0.06 * n);\n"
                               "}\n";
static const char *HULL_FRAG = "#version 450\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() { o = vec4(1.0, 0.0, 1.0, 1.0); }\n";

void test_technique_scene_host_vertex(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = add_target(r);
    orr_view_desc vd = view_desc(target, ORR_STRATEGY_INDIRECT);
    orr_view_id view = fix_add_view(r, &vd);
    uint8_t *base = frame(r, &f, target);
    vd.layer_mask = ~LAYER_X;
    assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
    uint8_t *without = frame(r, &f, target);
    vd.layer_mask = 0;
    assert_int_equal(orr_renderer_update_view(r, view, &vd), ORR_OK);
    orr_technique_desc hull = {.name = "outline", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                               .fragment = {.glsl = HULL_FRAG}, .writes = WRITE_COLOR, .write_count = 1,
                               .scene = {.vertex = {.glsl = HULL_VERT, .name = "hull.vert"},
                                         .cull = ORR_FACE_CULL_FRONT, .layer_mask = LAYER_X}};
    set_ok(r, target, &hull, 1);
    uint8_t *out = frame(r, &f, target);
    uint32_t changed = 0, bad = 0, inside = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        if (!memcmp(out + 4 * i, base + 4 * i, 4)) continue;
        changed++;
        bad += !magenta(out + 4 * i);
        inside += memcmp(base + 4 * i, without + 4 * i, 4) != 0; /* over the selected instances themselves */
    }
    if (changed < 40) fail_msg("the outline changed only %u pixels", changed);
    if (bad) fail_msg("%u changed pixels are not the outline's colour", bad);
    /* the hull's back faces lie behind the instances' front: the instances stay as they were */
    if (inside > changed / 10) fail_msg("%u of %u outline pixels cover the selected instances", inside, changed);
    free(base), free(without), free(out);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

static void refused(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, orr_result code,
                    const char *expect)
{
    orr_result rc = orr_renderer_set_techniques(r, target, d, 1, NULL);
    const char *msg = orr_renderer_last_error(r)->message;
    if (rc != code) fail_msg("expected %s, got %s: %s", orr_result_name(code), orr_result_name(rc), msg);
    if (!strstr(msg, expect)) fail_msg("the message does not say '%s': %s", expect, msg);
    print_message("refused: %s\n", msg);
}

void test_technique_scene_refusals(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = add_target(r);
    orr_view_desc vd = view_desc(target, ORR_STRATEGY_BATCHED);
    orr_view_id view = fix_add_view(r, &vd);
    orr_technique_desc good = {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                               .fragment = {.glsl = FLAT_GLSL, .name = "flat.frag"},
                               .writes = WRITE_COLOR, .write_count = 1};
    set_ok(r, target, &good, 1);
    uint8_t *before = frame(r, &f, target);
    orr_technique_desc d = good;
    d.view = (orr_view_id){0};
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "'flat': a scene technique needs a view");
    d = good;
    d.fragment.glsl = "#version 450\n"
                      "layout(set = 0, binding = 9) buffer Extra { vec4 x[]; } extra;\n"
                      "layout(location = 0) out vec4 o;\n"
                      "void main() { o = extra.x[0]; }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "declares 'Extra' (set 0, binding 9), which the scene does not provide");
    d = good;
    d.fragment.glsl = "#version 450\n"
                      "layout(location = 12) in vec4 extra;\n"
                      "layout(location = 0) out vec4 o;\n"
                      "void main() { o = extra; }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "input 'extra' at location 12");
    d = good;
    d.fragment.glsl = "#version 450\n#include \"my/lights.glsl\"\nvoid main() {}\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "flat.frag:2: #include of");
    d = good;
    d.scene.layer_mask = LAYER_X;
    d.scene.vertex.glsl = "#version 450\n"
                          "layout(location = 0) in vec3 p;\n"
                          "void main() { gl_Position = vec4(p, 1.0); }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "does not declare ORR_SCENE_LAYER_MASK");
    d.scene.layer_mask = 0; /* and flat.frag reads what the library's vertex stage writes, not this one */
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "input 'orr_world_rel' at location 0, which its vertex shader does not write");
    d = good;
    d.place = ORR_PLACE_BEFORE_VIEW;
    static const orr_technique_write WRITE_T[] = {{.name = "mask", .format = ORR_FORMAT_R8_UNORM}};
    d.writes = WRITE_T;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "placed before its view, it writes 'mask'");
    d.place = ORR_PLACE_BEFORE_PASS;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "placed among the built-in passes of its view, it writes 'mask'");
    d = good;
    d.place = ORR_PLACE_BEFORE_PASS;
    d.pass = ORR_PASS_COUNT;
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "placed before built-in pass 4, which is no orr_pass");
    d = good;
    d.write_count = 0;
    d.fragment = (orr_shader_desc){0};
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "writes nothing");
    d = good;
    d.fragment.glsl = "#version 450\n#define ORR_SCENE_FRAGMENT\n#include \"orrery/scene.glsl\"\n"
                      "layout(location = 0) out vec4 o;\nvoid main() { o = vec4(orr_normal, undefined_thing); }\n";
    refused(r, target, &d, ORR_ERROR_INVALID_ARGUMENT, "flat.frag:5:");
    /* the list set first still draws, to the byte */
    uint8_t *after = frame(r, &f, target);
    assert_memory_equal(after, before, (size_t)W * H * 4);
    free(before), free(after);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* Hot reload: new source drawn from the next frame on; source that does not compile keeps the old. */
void test_technique_scene_reload(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = add_target(r);
    orr_view_desc vd = view_desc(target, ORR_STRATEGY_BATCHED);
    orr_view_id view = fix_add_view(r, &vd);
    orr_technique_desc list[2] = {
        {.name = "depth-prepass", .kind = ORR_TECHNIQUE_SCENE, .view = view, .place = ORR_PLACE_BEFORE_VIEW,
         .scene = {.depth_write = true, .passes = 1u << ORR_PASS_OPAQUE}},
        {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view, .fragment = {.glsl = FLAT_GLSL, .name = "flat.frag"},
         .writes = WRITE_COLOR, .write_count = 1, .scene = {.layer_mask = LAYER_X}},
    };
    orr_technique_id ids[2];
    if (orr_renderer_set_techniques(r, target, list, 2, ids) != ORR_OK)
        fail_msg("set_techniques: %s", orr_renderer_last_error(r)->message);
    assert_int_equal(orr_renderer_technique_reload_state(r, ids[1], NULL, 0), ORR_RELOAD_NONE);
    uint8_t *magenta_px = frame(r, &f, target);
    static const char *GREEN = "#version 450\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() { o = vec4(0.0, 1.0, 0.0, 1.0); }\n";
    assert_int_equal(orr_renderer_reload_technique(r, ids[1], &(orr_shader_desc){.glsl = GREEN}, NULL), ORR_OK);
    assert_int_equal(orr_renderer_technique_reload_state(r, ids[1], NULL, 0), ORR_RELOAD_PENDING);
    uint8_t *green_px = frame(r, &f, target);
    assert_int_equal(orr_renderer_technique_reload_state(r, ids[1], NULL, 0), ORR_RELOAD_DONE);
    uint32_t swapped = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        const uint8_t *a = magenta_px + 4 * i, *b = green_px + 4 * i;
        if (magenta(a)) {
            if (b[0] != 0 || b[1] != 255 || b[2] != 0) fail_msg("pixel %u,%u: not green after the reload", i % W, i / W);
            swapped++;
        } else if (memcmp(a, b, 4)) {
            fail_msg("pixel %u,%u changed with the reload, outside the technique's pixels", i % W, i / W);
        }
    }
    assert_true(swapped > 200);
    /* source that does not compile: the frame renders with the green shader still, and says why */
    static const char *BROKEN = "#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = nope; }\n";
    assert_int_equal(
        orr_renderer_reload_technique(r, ids[1], &(orr_shader_desc){.glsl = BROKEN, .name = "flat-v3.frag"}, NULL),
        ORR_OK);
    uint8_t *kept = frame(r, &f, target);
    assert_memory_equal(kept, green_px, (size_t)W * H * 4);
    char why[512];
    assert_int_equal(orr_renderer_technique_reload_state(r, ids[1], why, sizeof why), ORR_RELOAD_FAILED);
    if (!strstr(why, "flat-v3.frag:3:") || !strstr(why, "nope")) fail_msg("the reload's message: %s", why);
    /* stages a technique does not have */
    assert_int_equal(orr_renderer_reload_technique(r, ids[0], &(orr_shader_desc){.glsl = GREEN}, NULL),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "depth only"));
    assert_int_equal(orr_renderer_reload_technique(r, ids[1], NULL, &(orr_shader_desc){.glsl = GREEN}),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "library's vertex stage"));
    /* the old list's ids are stale once it is replaced */
    if (orr_renderer_set_techniques(r, target, list, 2, NULL) != ORR_OK)
        fail_msg("set_techniques: %s", orr_renderer_last_error(r)->message);
    assert_int_equal(orr_renderer_reload_technique(r, ids[1], &(orr_shader_desc){.glsl = GREEN}, NULL),
                     ORR_ERROR_STALE_HANDLE);
    uint8_t *again = frame(r, &f, target);
    assert_memory_equal(again, magenta_px, (size_t)W * H * 4);
    free(magenta_px), free(green_px), free(kept), free(again);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* Right after its view: the target's next view draws over what the technique drew. View A draws
 * everything, view B (the same camera, slot 1) the layers in its mask. A flat colour over layer X placed
 * right after A is what the same technique after the views gives where B draws nothing, and B's image
 * where it draws. */
void test_technique_scene_after_view(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    orr_target_id target = add_target(r);
    orr_view_desc a = view_desc(target, ORR_STRATEGY_BATCHED);
    orr_view_id view_a = fix_add_view(r, &a);
    orr_view_desc b = a;
    b.slot = 1;
    b.layer_mask = 1u << 7; /* nothing: B draws no instance */
    orr_view_id view_b = fix_add_view(r, &b);
    orr_technique_desc flat = {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view_a,
                               .fragment = {.glsl = FLAT_GLSL}, .writes = WRITE_COLOR, .write_count = 1,
                               .scene = {.layer_mask = LAYER_X}};
    set_ok(r, target, &flat, 1);
    uint8_t *after_views = frame(r, &f, target);
    flat.place = ORR_PLACE_AFTER_VIEW;
    set_ok(r, target, &flat, 1);
    uint8_t *after_a = frame(r, &f, target);
    assert_memory_equal(after_a, after_views, (size_t)W * H * 4);
    /* B draws every layer but X over A's image */
    b.layer_mask = ~LAYER_X;
    assert_int_equal(orr_renderer_update_view(r, view_b, &b), ORR_OK);
    set_ok(r, target, NULL, 0);
    uint8_t *base = frame(r, &f, target);
    set_ok(r, target, &flat, 1);
    uint8_t *covered = frame(r, &f, target);
    uint32_t in_m = 0, kept = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        bool m = magenta(after_views + 4 * i);
        in_m += m;
        if (magenta(covered + 4 * i)) {
            if (!m) fail_msg("pixel %u,%u: flat colour where layer X does not show in view A", i % W, i / W);
            kept++;
        } else if (memcmp(covered + 4 * i, base + 4 * i, 4)) {
            fail_msg("pixel %u,%u: neither the flat colour nor the two views' image", i % W, i / W);
        }
    }
    if (!kept || kept >= in_m) fail_msg("%u of %u flat pixels left after view B: B should cover some, not all", kept, in_m);
    char graph[4096];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    const char *blended = strstr(graph, "pass blended (built-in"), *placed = strstr(graph, "pass flat (scene, view");
    if (!blended || !placed || placed < blended) fail_msg("the graph does not place it after view A:\n%s", graph);
    (void)view_a;
    free(after_views), free(after_a), free(base), free(covered);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* The built-in passes are entries of the view's list: the graph lists them (a target without techniques
 * too), and a scene technique placed before one of them runs between them. One that draws nothing
 * between each pair leaves every strategy's image the same to the byte (the view's rendering ended, its
 * depth stored, and begun again); a flat colour over the opaque surfaces placed before the blended pass
 * is what the same technique after the view gives, except where the blended quad then covers it. */
void test_technique_scene_between_passes(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fixture_with_layers(&f);
    /* the cut-out and blended quads partly behind the red cube: their passes need the depth before them */
    f.instances[5].world.m[11] = -0.75;
    f.instances[6].world.m[9] = 0.0, f.instances[6].world.m[10] = 0.5, f.instances[6].world.m[11] = -1.0;
    static const struct {
        orr_strategy strategy;
        orr_cull cull;
    } cases[] = {{ORR_STRATEGY_DIRECT, ORR_CULL_CPU}, {ORR_STRATEGY_BATCHED, ORR_CULL_CPU},
                 {ORR_STRATEGY_INDIRECT, ORR_CULL_GPU}, {ORR_STRATEGY_INDIRECT, ORR_CULL_CPU}};
    for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        orr_target_id target = add_target(r);
        orr_view_desc vd = view_desc(target, cases[c].strategy);
        vd.cull = cases[c].cull;
        orr_view_id view = fix_add_view(r, &vd);
        uint8_t *base = frame(r, &f, target);
        char graph[4096];
        size_t len = orr_renderer_describe_techniques(r, target, graph, sizeof graph);
        const char *order[] = {"pass opaque (built-in", "pass cutout (built-in", "pass custom (built-in",
                               "pass blended (built-in"};
        const char *at = graph;
        for (uint32_t k = 0; k < 4 && at; k++) at = strstr(at, order[k]);
        if (!len || len >= sizeof graph || !at) fail_msg("no built-in passes in order in the graph:\n%s", graph);
        /* nothing drawn (a layer no instance has) between every two built-in passes */
        orr_technique_desc none[3];
        static const char *const names[3] = {"before-cutout", "before-custom", "before-blended"};
        for (uint32_t k = 0; k < 3; k++)
            none[k] = (orr_technique_desc){.name = names[k], .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                           .fragment = {.glsl = FLAT_GLSL}, .writes = WRITE_COLOR, .write_count = 1,
                                           .place = ORR_PLACE_BEFORE_PASS, .pass = (orr_pass)(ORR_PASS_CUTOUT + k),
                                           .scene = {.layer_mask = 1u << 7}};
        set_ok(r, target, none, 3);
        for (int n = 0; n < 3; n++) { /* every frame, the frames in flight included */
            uint8_t *split = frame(r, &f, target);
            assert_memory_equal(split, base, (size_t)W * H * 4);
            free(split);
        }
        orr_renderer_describe_techniques(r, target, graph, sizeof graph);
        const char *seq[] = {"pass opaque (built-in", "pass before-cutout (scene", "pass cutout (built-in",
                             "pass before-custom (scene", "pass custom (built-in", "pass before-blended (scene",
                             "pass blended (built-in"};
        at = graph;
        for (uint32_t k = 0; k < 7 && at; k++) at = strstr(at, seq[k]);
        if (!at) fail_msg("the graph does not list them between the built-in passes:\n%s", graph);
        /* a flat colour over every opaque surface: after the view, then before the blended pass */
        orr_technique_desc flat = {.name = "flat", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                   .fragment = {.glsl = FLAT_GLSL}, .writes = WRITE_COLOR, .write_count = 1,
                                   .place = ORR_PLACE_AFTER_VIEW};
        set_ok(r, target, &flat, 1);
        uint8_t *after = frame(r, &f, target);
        flat.place = ORR_PLACE_BEFORE_PASS;
        flat.pass = ORR_PASS_TRANSPARENT;
        set_ok(r, target, &flat, 1);
        uint8_t *between = frame(r, &f, target);
        uint32_t flat_px = 0, under_glass = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            const uint8_t *a = after + 4 * i, *b = between + 4 * i;
            if (!magenta(a)) {
                if (memcmp(b, base + 4 * i, 4))
                    fail_msg("case %u, pixel %u,%u: drawn where the flat colour is not", c, i % W, i / W);
                continue;
            }
            flat_px++;
            if (magenta(b)) continue;
            under_glass++; /* the blended quad over the flat colour: neither it nor the forward image */
            if (!memcmp(b, base + 4 * i, 4))
                fail_msg("case %u, pixel %u,%u: the forward image where the flat colour was drawn", c, i % W, i / W);
        }
        if (flat_px < 200 || !under_glass || under_glass == flat_px)
            fail_msg("case %u: %u flat pixels, %u of them under the blended quad: it should cover some", c, flat_px,
                     under_glass);
        free(base), free(after), free(between);
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    }
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}
