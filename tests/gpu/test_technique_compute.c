/* gpu compute techniques (technique.h, ORR_TECHNIQUE_COMPUTE): a compute shader that inverts the frame
 * per pixel (a local size that does not divide the target: the last workgroups must reach its edges),
 * checked pixel by pixel against the frame without it, into a transient and straight into "color"
 * (linear values through an rgba16f image the library blits into the sRGB target); a fixed dispatch whose covered rectangle is
 * exactly its workgroups; a per-instance dispatch that reads the scene's instance buffer; a hot reload;
 * every refusal with its message. Every renderer runs with validation and synchronization validation:
 * a missing or wrong barrier fails the test. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/technique.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 64, H = 48 };

static orr_target_id add_target(orr_renderer *r)
{
    return fix_target(r, W, H, "main", (float[4]){0.05f, 0.1f, 0.2f, 1.0f});
}

static orr_view_id add_view(orr_renderer *r, orr_target_id target)
{
    return fix_add_view(r, &(orr_view_desc){.target = target, .pose = fix_camera((orr_vec3d){0, 0, 0})});
}

static uint8_t *frame(orr_renderer *r, fixture *f, orr_target_id target) { return fix_frame(r, f, target, W, H); }

/* The frame inverted in its stored (sRGB-encoded) values: 255 - each byte, give or take the rounding
 * of the encode and decode. Local size 5 x 7: 64 x 48 needs 13 x 7 workgroups, past both edges. */
static const char *INVERT_GLSL =
    "#version 450\n"
    "layout(local_size_x = 5, local_size_y = 7) in;\n"
    "layout(set = 2, binding = 0) uniform sampler2D color;\n"
    "layout(set = 2, binding = 8, rgba32f) writeonly uniform image2D inverted;\n"
    "vec3 encode(vec3 c) { return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c)); }\n"
    "vec3 decode(vec3 s) { return mix(s / 12.92, pow((s + 0.055) / 1.055, vec3(2.4)), step(0.04045, s)); }\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    if (any(greaterThanEqual(p, imageSize(inverted)))) return;\n"
    "    vec4 c = texelFetch(color, p, 0);\n"
    "    imageStore(inverted, p, vec4(decode(1.0 - encode(c.rgb)), 1.0));\n"
    "}\n";

/* The transient as it is, into the target's colour. */
static const char *SHOW_GLSL = "#version 450\n"
                               "layout(set = 0, binding = 0) uniform sampler2D shown;\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() { o = texelFetch(shown, ivec2(gl_FragCoord.xy), 0); }\n";

static const char *IDENTITY_GLSL = "#version 450\n"
                                   "layout(local_size_x = 8, local_size_y = 8) in;\n"
                                   "layout(set = 2, binding = 0) uniform sampler2D color;\n"
                                   "layout(set = 2, binding = 8, rgba32f) writeonly uniform image2D inverted;\n"
                                   "void main() {\n"
                                   "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
                                   "    if (any(greaterThanEqual(p, imageSize(inverted)))) return;\n"
                                   "    imageStore(inverted, p, texelFetch(color, p, 0));\n"
                                   "}\n";

static const char *const READ_COLOR[] = {"color"};
static const char *const READ_INVERTED[] = {"inverted"};
static const char *const READ_MARK[] = {"mark"};
static const orr_technique_write WRITE_COLOR[] = {{.name = "color"}};
static const orr_technique_write WRITE_INVERTED[] = {{.name = "inverted", .format = ORR_FORMAT_RGBA32F}};

void test_technique_compute_invert(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    uint8_t *base = frame(r, &f, target);
    fix_assert_varied(base, W * H);
    orr_technique_desc list[2] = {
        {.name = "invert", .kind = ORR_TECHNIQUE_COMPUTE, .reads = READ_COLOR, .read_count = 1,
         .writes = WRITE_INVERTED, .write_count = 1,
         .compute = {.shader = {.glsl = INVERT_GLSL, .name = "invert.comp"}, .dispatch = ORR_DISPATCH_PER_PIXEL}},
        {.name = "show", .fragment = {.glsl = SHOW_GLSL}, .reads = READ_INVERTED, .read_count = 1,
         .writes = WRITE_COLOR, .write_count = 1},
    };
    orr_technique_id ids[2];
    fix_set_techniques(r, target, list, 2, ids);
    char graph[2048];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    for (int pass = 0; pass < 2; pass++) { /* twice: the second frame finds last frame's writes */
        uint8_t *inv = frame(r, &f, target);
        uint32_t bad = 0, worst = 0;
        for (uint32_t i = 0; i < W * H; i++)
            for (int c = 0; c < 3; c++) {
                int d = abs((int)inv[4 * i + c] - (255 - (int)base[4 * i + c]));
                if (d > 1) bad++;
                if ((uint32_t)d > worst) worst = (uint32_t)d;
            }
        if (bad)
            fail_msg("frame %d: %u channels differ from the inverted frame by more than 1 (worst %u); pixel 63,47 is "
                     "%u,%u,%u, the frame's %u,%u,%u",
                     pass, bad, worst, inv[4 * (W * H - 1)], inv[4 * (W * H - 1) + 1], inv[4 * (W * H - 1) + 2],
                     base[4 * (W * H - 1)], base[4 * (W * H - 1) + 1], base[4 * (W * H - 1) + 2]);
        free(inv);
    }
    /* the graph names the dispatch: 13 x 7 workgroups of 5 x 7 */
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    if (!strstr(graph, "pass invert (compute)") || !strstr(graph, "dispatch per pixel, local size 5x7x1: 13x7x1"))
        fail_msg("the graph does not name the dispatch:\n%s", graph);
    if (!strstr(graph, "barrier inverted: general (storage) -> shader-read"))
        fail_msg("no barrier between the compute write and the full-screen read:\n%s", graph);
    /* hot reload: an identity in its place gives the frame back (within the round trip through rgba32f) */
    assert_int_equal(orr_renderer_reload_technique(r, ids[0], &(orr_shader_desc){.glsl = IDENTITY_GLSL}, NULL),
                     ORR_OK);
    uint8_t *same = frame(r, &f, target);
    assert_int_equal(orr_renderer_technique_reload_state(r, ids[0], NULL, 0), ORR_RELOAD_DONE);
    assert_memory_equal(same, base, (size_t)W * H * 4);
    /* a reload that does not compile keeps the identity */
    assert_int_equal(orr_renderer_reload_technique(r, ids[0], &(orr_shader_desc){.glsl = "#version 450\nnope\n"}, NULL),
                     ORR_OK);
    uint8_t *kept = frame(r, &f, target);
    char why[512];
    assert_int_equal(orr_renderer_technique_reload_state(r, ids[0], why, sizeof why), ORR_RELOAD_FAILED);
    assert_non_null(strstr(why, "compute GLSL does not compile"));
    assert_memory_equal(kept, base, (size_t)W * H * 4);
    free(base), free(same), free(kept);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* A fixed dispatch of 3 x 2 workgroups of 4 x 4 marks the 12 x 8 pixels at the top left; the rest is
 * the transient's clear value. */
static const char *MARK_FIXED_GLSL = "#version 450\n"
                                     "layout(local_size_x = 4, local_size_y = 4) in;\n"
                                     "layout(set = 2, binding = 8, rgba8) writeonly uniform image2D mark;\n"
                                     "void main() { imageStore(mark, ivec2(gl_GlobalInvocationID.xy), vec4(1.0)); }\n";

/* Per instance slot: row 0 white up to the slot count the library pushes; row 1 white where the
 * instance buffer (set 0, the scene's) says the instance is visible. */
static const char *MARK_INSTANCES_GLSL =
    "#version 450\n"
    "#define ORR_SCENE_COMPUTE 1\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(local_size_x = 3) in;\n"
    "layout(set = 2, binding = 8, rgba8) writeonly uniform image2D mark;\n"
    "layout(push_constant) uniform Count { vec4 tint; uint slots; } pc;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i >= pc.slots) return;\n"
    "    imageStore(mark, ivec2(i, 0), pc.tint);\n"
    "    bool visible = (instances[i].flags & ORR_GPU_INSTANCE_VISIBLE) != 0u;\n"
    "    imageStore(mark, ivec2(i, 1), visible ? vec4(1.0) : vec4(0.0, 0.0, 0.0, 1.0));\n"
    "}\n";

void test_technique_compute_dispatch_sizes(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    orr_view_id view = add_view(r, target);
    static const orr_technique_write MARK[] = {
        {.name = "mark", .format = ORR_FORMAT_RGBA8_UNORM, .load = ORR_LOAD_CLEAR, .clear = {0, 0, 0, 1}}};
    orr_technique_desc list[2] = {
        {.name = "fixed", .kind = ORR_TECHNIQUE_COMPUTE, .writes = MARK, .write_count = 1,
         .compute = {.shader = {.glsl = MARK_FIXED_GLSL}, .dispatch = ORR_DISPATCH_FIXED, .groups = {3, 2, 1}}},
        {.name = "show", .fragment = {.glsl = SHOW_GLSL}, .reads = READ_MARK, .read_count = 1, .writes = WRITE_COLOR,
         .write_count = 1},
    };
    fix_set_techniques(r, target, list, 2, NULL);
    uint8_t *px = frame(r, &f, target);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = px + 4 * (y * W + x);
            uint8_t want = x < 12 && y < 8 ? 255 : 0;
            if (p[0] != want || p[1] != want || p[2] != want)
                fail_msg("fixed dispatch: pixel %u,%u is %u,%u,%u, not %u", x, y, p[0], p[1], p[2], want);
        }
    free(px);
    /* per instance: the fixture's 8 instances, 7 of them visible; host data before the slot count */
    list[0] = (orr_technique_desc){
        .name = "instances", .kind = ORR_TECHNIQUE_COMPUTE, .view = view, .writes = MARK, .write_count = 1,
        .push_constant_size = 16,
        .compute = {.shader = {.glsl = MARK_INSTANCES_GLSL}, .dispatch = ORR_DISPATCH_PER_INSTANCE}};
    orr_technique_id ids[2];
    fix_set_techniques(r, target, list, 2, ids);
    float tint[4] = {1, 0.5f, 0, 1};
    assert_int_equal(orr_renderer_set_technique_data(r, ids[0], tint, sizeof tint), ORR_OK);
    px = frame(r, &f, target);
    uint32_t marked = 0, visible = 0, want_visible = 0;
    for (uint32_t x = 0; x < W; x++) {
        const uint8_t *p0 = px + 4 * x, *p1 = px + 4 * (W + x);
        if (p0[0] == 255 && p0[1] > 150 && p0[1] < 210 && p0[2] == 0) marked++; /* 0.5 linear, sRGB-encoded: 188 */
        else if (p0[0] || p0[1] || p0[2]) fail_msg("per instance: pixel %u,0 is %u,%u,%u", x, p0[0], p0[1], p0[2]);
        if (p1[0] == 255) visible++;
    }
    for (uint32_t i = 0; i < f.snapshot.instance_count; i++) want_visible += f.snapshot.instances[i].visible;
    assert_int_equal(marked, f.snapshot.instance_count);
    assert_int_equal(visible, want_visible);
    assert_true(visible < marked); /* the hidden one is told apart: the buffer was read */
    free(px);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

static void refused(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, uint32_t n, orr_result code,
                    const char *needle)
{
    orr_result rc = orr_renderer_set_techniques(r, target, d, n, NULL);
    const char *msg = orr_renderer_last_error(r)->message;
    if (rc != code || !strstr(msg, needle))
        fail_msg("expected %d with '%s', got %d: %s", code, needle, rc, msg);
}

void test_technique_compute_refusals(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_target_id target = add_target(r);
    orr_technique_desc d = {.name = "c", .kind = ORR_TECHNIQUE_COMPUTE, .reads = READ_COLOR, .read_count = 1,
                            .writes = WRITE_INVERTED, .write_count = 1,
                            .compute = {.shader = {.glsl = INVERT_GLSL, .name = "invert.comp"}}};
    orr_technique_desc bad = d;
    bad.writes = WRITE_COLOR; /* "color" through an rgba16f image: the shader's rgba32f is refused */
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT,
            "with format qualifier rgba32f; what it writes of \"color\" is rgba16f (layout(rgba16f))");
    bad = d;
    bad.fragment.glsl = SHOW_GLSL;
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "has no fragment shader");
    bad = d;
    bad.compute.shader.glsl = NULL;
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "compute.shader needs GLSL source or SPIR-V");
    bad = d;
    bad.compute.dispatch = ORR_DISPATCH_FIXED; /* groups left 0 */
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "compute.groups[0] is 0");
    bad = d;
    bad.write_count = 0;
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "technique 'c': 0 writes (1 to 4)");
    /* the shader against the declarations */
    static const orr_technique_write HALF[] = {{.name = "inverted", .format = ORR_FORMAT_RGBA16F}};
    bad = d;
    bad.writes = HALF;
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT,
            "declares 'inverted' (write 'inverted', binding 8) with format qualifier rgba32f; the transient is rgba16f");
    bad = d;
    bad.compute.shader.glsl = "#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1.0); }\n";
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "technique 'c'");
    bad = d;
    bad.compute.shader.glsl = "#version 450\nlayout(local_size_x = 8) in;\nvoid main() { undeclared(); }\n";
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "compute GLSL does not compile: invert.comp:3:");
    bad = d;
    bad.compute.shader.glsl = MARK_INSTANCES_GLSL; /* set 0 without a view */
    bad.read_count = 0;
    bad.push_constant_size = 16;
    bad.compute.dispatch = ORR_DISPATCH_PER_INSTANCE;
    static const orr_technique_write MARK8[] = {{.name = "mark", .format = ORR_FORMAT_RGBA8_UNORM}};
    bad.writes = MARK8;
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "reads the scene's buffers (set 0, ");
    orr_view_id view = add_view(r, target);
    bad.view = view;
    bad.compute.dispatch = ORR_DISPATCH_PER_PIXEL; /* the push block then has 4 bytes too many */
    refused(r, target, &bad, 1, ORR_ERROR_INVALID_ARGUMENT, "push constant block of 20 bytes, the technique declares 16");
    bad.compute.dispatch = ORR_DISPATCH_PER_INSTANCE;
    fix_set_techniques(r, target, &bad, 1, NULL);
    /* a format no storage image takes: the target's own sRGB format, refused before compiling */
    static const orr_technique_write SRGB[] = {{.name = "inverted", .format = ORR_FORMAT_RGBA8_SRGB}};
    bad = d;
    bad.writes = SRGB;
    orr_result rc = orr_renderer_set_techniques(r, target, &bad, 1, NULL);
    const char *msg = orr_renderer_last_error(r)->message;
    if (rc == ORR_ERROR_UNSUPPORTED) assert_non_null(strstr(msg, "cannot write as a storage image"));
    else if (rc != ORR_ERROR_INVALID_ARGUMENT || !strstr(msg, "the transient is rgba8 srgb (layout(no storage format))"))
        fail_msg("an sRGB storage write: %d %s", rc, msg);
    /* a scene technique in place of its view's passes clears the depth it draws with, after the views */
    static const orr_technique_write GB[] = {{.name = "albedo", .format = ORR_FORMAT_RGBA16F}};
    orr_technique_desc gbuffer = {.name = "gbuffer", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                  .fragment = {.glsl = SHOW_GLSL}, .writes = GB, .write_count = 1,
                                  .scene = {.depth_write = true, .replaces_view = true}};
    refused(r, target, &gbuffer, 1, ORR_ERROR_INVALID_ARGUMENT,
            "technique 'gbuffer': replaces its view's passes, so it runs after the views and clears the depth");
    fix_renderer_done(r, &logged);
}

/* The inversion written straight into "color": linear values into the rgba16f image that stands for it,
 * blitted (sRGB-encoded) into the target after the dispatch; "color" read from a copy. */
static const char *INVERT_COLOR_GLSL =
    "#version 450\n"
    "layout(local_size_x = 5, local_size_y = 7) in;\n"
    "layout(set = 2, binding = 0) uniform sampler2D color;\n"
    "layout(set = 2, binding = 8, rgba16f) writeonly uniform image2D color_out;\n"
    "vec3 encode(vec3 c) { return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c)); }\n"
    "vec3 decode(vec3 s) { return mix(s / 12.92, pow((s + 0.055) / 1.055, vec3(2.4)), step(0.04045, s)); }\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    if (any(greaterThanEqual(p, imageSize(color_out)))) return;\n"
    "    vec4 c = texelFetch(color, p, 0);\n"
    "    imageStore(color_out, p, vec4(decode(1.0 - encode(c.rgb)), 1.0));\n"
    "}\n";

static const char *IDENTITY_COLOR_GLSL = "#version 450\n"
                                         "layout(local_size_x = 8, local_size_y = 8) in;\n"
                                         "layout(set = 2, binding = 0) uniform sampler2D color;\n"
                                         "layout(set = 2, binding = 8, rgba16f) writeonly uniform image2D o;\n"
                                         "void main() {\n"
                                         "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
                                         "    if (any(greaterThanEqual(p, imageSize(o)))) return;\n"
                                         "    imageStore(o, p, texelFetch(color, p, 0));\n"
                                         "}\n";

/* White over the 12 x 8 pixels a fixed dispatch of 3 x 2 workgroups of 4 x 4 covers. */
static const char *MARK_COLOR_GLSL = "#version 450\n"
                                     "layout(local_size_x = 4, local_size_y = 4) in;\n"
                                     "layout(set = 2, binding = 8, rgba16f) writeonly uniform image2D o;\n"
                                     "void main() { imageStore(o, ivec2(gl_GlobalInvocationID.xy), vec4(1.0)); }\n";

void test_technique_compute_color(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    uint8_t *base = frame(r, &f, target);
    fix_assert_varied(base, W * H);
    orr_technique_desc d = {.name = "invert", .kind = ORR_TECHNIQUE_COMPUTE, .reads = READ_COLOR, .read_count = 1,
                            .writes = WRITE_COLOR, .write_count = 1,
                            .compute = {.shader = {.glsl = INVERT_COLOR_GLSL, .name = "invert.comp"}}};
    orr_technique_id id;
    fix_set_techniques(r, target, &d, 1, &id);
    for (int pass = 0; pass < 2; pass++) { /* the second frame finds the first's images */
        uint8_t *inv = frame(r, &f, target);
        uint32_t bad = 0, worst = 0;
        for (uint32_t i = 0; i < W * H; i++)
            for (int c = 0; c < 3; c++) {
                int e = abs((int)inv[4 * i + c] - (255 - (int)base[4 * i + c]));
                bad += e > 1;
                worst = (uint32_t)e > worst ? (uint32_t)e : worst;
            }
        if (bad) fail_msg("frame %d: %u channels differ from the inverted frame by more than 1 (worst %u)", pass, bad, worst);
        free(inv);
    }
    char graph[2048];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    if (!strstr(graph, "copy color -> color.copy") || !strstr(graph, "blit color -> color.storage") ||
        !strstr(graph, "blit color.storage -> color") || !strstr(graph, "color.storage: what compute techniques write"))
        fail_msg("the graph does not show the storage image and its blits:\n%s", graph);
    /* an identity gives the frame back to the byte: sRGB decoded to rgba16f and encoded again */
    assert_int_equal(orr_renderer_reload_technique(r, id, &(orr_shader_desc){.glsl = IDENTITY_COLOR_GLSL}, NULL),
                     ORR_OK);
    uint8_t *same = frame(r, &f, target);
    assert_int_equal(orr_renderer_technique_reload_state(r, id, NULL, 0), ORR_RELOAD_DONE);
    assert_memory_equal(same, base, (size_t)W * H * 4);
    /* a dispatch that writes part of it: the rest kept (the default load), or cleared */
    static const orr_technique_write KEEP[] = {{.name = "color"}};
    static const orr_technique_write CLEAR[] = {{.name = "color", .load = ORR_LOAD_CLEAR, .clear = {0, 0, 0, 1}}};
    const orr_technique_write *loads[2] = {KEEP, CLEAR};
    for (int l = 0; l < 2; l++) {
        orr_technique_desc mark = {.name = "mark", .kind = ORR_TECHNIQUE_COMPUTE, .writes = loads[l], .write_count = 1,
                                   .compute = {.shader = {.glsl = MARK_COLOR_GLSL}, .dispatch = ORR_DISPATCH_FIXED,
                                               .groups = {3, 2, 1}}};
        fix_set_techniques(r, target, &mark, 1, NULL);
        uint8_t *px = frame(r, &f, target);
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                const uint8_t *p = px + 4 * (y * W + x), *b = base + 4 * (y * W + x);
                bool in = x < 12 && y < 8;
                bool ok = in ? p[0] == 255 && p[1] == 255 && p[2] == 255
                             : l == 0 ? !memcmp(p, b, 3) : !p[0] && !p[1] && !p[2];
                if (!ok)
                    fail_msg("%s: pixel %u,%u is %u,%u,%u", l ? "cleared" : "kept", x, y, p[0], p[1], p[2]);
            }
        free(px);
    }
    free(base), free(same);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}
