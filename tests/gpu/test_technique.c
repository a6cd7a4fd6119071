/* gpu techniques (technique.h): full-screen passes a host adds after the built-in look. Each is checked
 * against the same frame without it, pixel by pixel: a channel swap reading and writing "color", a grey
 * whose weights are host data (push constants), a chain through a transient listed in the wrong order,
 * a view's depth; then every refusal at registration with its message, and a refused list leaving the
 * old one in place. Every renderer runs with validation and synchronization validation. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include "gpu/gpu_shader.h"

#include <orrery/technique.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 64, H = 48 };
static const float CLEAR[4] = {0.05f, 0.1f, 0.2f, 1.0f};

static orr_target_id add_target(orr_renderer *r) { return fix_target(r, W, H, "main", CLEAR); }

static orr_view_id add_view(orr_renderer *r, orr_target_id target)
{
    return fix_add_view(r, &(orr_view_desc){.target = target, .pose = fix_camera((orr_vec3d){0, 0, 0})});
}

static const char *const READ_COLOR[] = {"color"};
static const orr_technique_write WRITE_COLOR[] = {{.name = "color"}};

static const char *SWAP_GLSL = "#version 450\n"
                               "layout(set = 0, binding = 0) uniform sampler2D color;\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() { o = texelFetch(color, ivec2(gl_FragCoord.xy), 0).bgra; }\n";

static const char *GREY_GLSL = "#version 450\n"
                               "layout(location = 0) in vec2 uv;\n"
                               "layout(set = 0, binding = 0) uniform sampler2D color;\n"
                               "layout(push_constant) uniform Grade { vec4 weights; } grade;\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() {\n"
                               "    vec4 c = texture(color, uv);\n"
                               "    o = vec4(vec3(dot(c.rgb, grade.weights.rgb)), 1.0);\n"
                               "}\n";

/* ---- what techniques draw ------------------------------------------------------------------------ */

void test_technique_channel_swap(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    uint8_t *base = fix_frame(r, &f, target, W, H);
    fix_assert_varied(base, W * H);
    orr_technique_desc swap = {.name = "swap", .fragment = {.glsl = SWAP_GLSL, .name = "swap.frag"},
                               .reads = READ_COLOR, .read_count = 1, .writes = WRITE_COLOR, .write_count = 1};
    fix_set_techniques(r, target, &swap, 1, NULL);
    uint8_t *swapped = fix_frame(r, &f, target, W, H);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        const uint8_t *a = base + 4 * i, *b = swapped + 4 * i;
        if (b[0] != a[2] || b[1] != a[1] || b[2] != a[0]) bad++;
    }
    if (bad) fail_msg("%u of %u pixels are not the frame's with red and blue swapped", bad, W * H);
    /* an empty list: the built-in look again, to the byte */
    fix_set_techniques(r, target, NULL, 0, NULL);
    uint8_t *again = fix_frame(r, &f, target, W, H);
    assert_memory_equal(again, base, (size_t)W * H * 4);
    free(base), free(swapped), free(again);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

void test_technique_host_data_grey(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    uint8_t *base = fix_frame(r, &f, target, W, H);
    orr_technique_desc grey = {.name = "grey", .fragment = {.glsl = GREY_GLSL}, .reads = READ_COLOR, .read_count = 1,
                               .writes = WRITE_COLOR, .write_count = 1, .push_constant_size = 16};
    orr_technique_id id;
    fix_set_techniques(r, target, &grey, 1, &id);
    /* luminance weights: R == G == B everywhere, and not one flat grey */
    float lum[4] = {0.2126f, 0.7152f, 0.0722f, 0};
    assert_int_equal(orr_renderer_set_technique_data(r, id, lum, sizeof lum), ORR_OK);
    uint8_t *g = fix_frame(r, &f, target, W, H);
    for (uint32_t i = 0; i < W * H; i++)
        if (g[4 * i] != g[4 * i + 1] || g[4 * i] != g[4 * i + 2])
            fail_msg("pixel %u,%u is %u,%u,%u: not grey", i % W, i / W, g[4 * i], g[4 * i + 1], g[4 * i + 2]);
    fix_assert_varied(g, W * H);
    /* the weights are the host's: all red gives the frame's red channel in all three */
    for (int c = 0; c < 3; c++) {
        float w[4] = {0};
        w[c] = 1.0f;
        assert_int_equal(orr_renderer_set_technique_data(r, id, w, sizeof w), ORR_OK);
        uint8_t *one = fix_frame(r, &f, target, W, H);
        for (uint32_t i = 0; i < W * H; i++)
            for (int k = 0; k < 3; k++)
                if (one[4 * i + k] != base[4 * i + c])
                    fail_msg("weights on channel %d: pixel %u,%u channel %d is %u, the frame's is %u", c, i % W,
                             i / W, k, one[4 * i + k], base[4 * i + c]);
        free(one);
    }
    /* the wrong size of host data is refused, naming the technique */
    assert_int_equal(orr_renderer_set_technique_data(r, id, lum, 8), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "'grey' takes 16 bytes"));
    /* a new list: the old id is stale */
    fix_set_techniques(r, target, &grey, 1, NULL);
    assert_int_equal(orr_renderer_set_technique_data(r, id, lum, sizeof lum), ORR_ERROR_STALE_HANDLE);
    free(base), free(g);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* "shift" writes a transient (16-bit float) that "back" reads: the frame's channels rotated, also across
 * a resize of the target (the transient remade). Listed the other way round, "shift" would read the
 * colour "back" wrote: a cycle, refused. A technique listed before the one that writes what it reads
 * runs after it. */
void test_technique_transient_chain(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    const char *shift_glsl = "#version 450\n"
                             "layout(set = 0, binding = 0) uniform sampler2D color;\n"
                             "layout(location = 0) out vec4 o;\n"
                             "void main() { o = texelFetch(color, ivec2(gl_FragCoord.xy), 0).gbra; }\n";
    const char *back_glsl = "#version 450\n"
                            "layout(set = 0, binding = 0) uniform sampler2D shifted;\n"
                            "layout(location = 0) out vec4 o;\n"
                            "void main() { o = texelFetch(shifted, ivec2(gl_FragCoord.xy), 0); }\n";
    static const char *const read_tmp[] = {"shifted"};
    orr_technique_write to_tmp = {.name = "shifted", .format = ORR_FORMAT_RGBA16F};
    orr_technique_desc list[2] = {
        {.name = "shift", .fragment = {.glsl = shift_glsl}, .reads = READ_COLOR, .read_count = 1, .writes = &to_tmp,
         .write_count = 1},
        {.name = "back", .fragment = {.glsl = back_glsl}, .reads = read_tmp, .read_count = 1, .writes = WRITE_COLOR,
         .write_count = 1},
    };
    orr_technique_id ids[2];
    fix_set_techniques(r, target, list, 2, ids);
    assert_false(orr_technique_id_eq(ids[0], ids[1]));
    char graph[2048];
    size_t len = orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    assert_true(len > 0 && len < sizeof graph);
    print_message("%s", graph);
    assert_non_null(strstr(graph, "shifted: transient, rgba16f"));
    for (int pass = 0; pass < 2; pass++) {
        uint32_t w = pass ? 80 : W, h = pass ? 40 : H;
        if (pass) assert_int_equal(orr_renderer_resize_target(r, target, w, h), ORR_OK);
        assert_int_equal(orr_renderer_set_techniques(r, target, NULL, 0, NULL), ORR_OK);
        uint8_t *base = fix_frame(r, &f, target, w, h);
        fix_assert_varied(base, w * h);
        fix_set_techniques(r, target, list, 2, NULL);
        uint8_t *out = fix_frame(r, &f, target, w, h);
        uint32_t bad = 0;
        for (uint32_t i = 0; i < w * h; i++) {
            const uint8_t *a = base + 4 * i, *b = out + 4 * i;
            /* through a 16-bit float in linear: within one step of the byte */
            if (abs(b[0] - a[1]) > 1 || abs(b[1] - a[2]) > 1 || abs(b[2] - a[0]) > 1) bad++;
        }
        if (bad) fail_msg("%ux%u: %u pixels are not the frame's channels rotated", w, h, bad);
        free(base), free(out);
    }
    /* the other way round: a cycle through "color" */
    orr_technique_desc swapped[2] = {list[1], list[0]};
    orr_result rc = orr_renderer_set_techniques(r, target, swapped, 2, NULL);
    assert_int_equal(rc, ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "'shift' needs 'back' first ('color')"));
    /* "use" listed before "make", whose transient it reads: make runs first */
    const char *make_glsl = "#version 450\n"
                            "layout(location = 0) out vec4 o;\n"
                            "void main() { ivec2 p = ivec2(gl_FragCoord.xy); o = vec4(float((p.x + p.y) & 1), 0.0, 1.0, 1.0); }\n";
    static const char *const read_pattern[] = {"pattern"};
    orr_technique_write to_pattern = {.name = "pattern", .format = ORR_FORMAT_RGBA8_UNORM};
    orr_technique_desc later[2] = {
        {.name = "use", .fragment = {.glsl = back_glsl}, .reads = read_pattern, .read_count = 1, .writes = WRITE_COLOR,
         .write_count = 1},
        {.name = "make", .fragment = {.glsl = make_glsl}, .writes = &to_pattern, .write_count = 1},
    };
    fix_set_techniques(r, target, later, 2, NULL);
    len = orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    print_message("%s", graph);
    const char *make = strstr(graph, "pass make"), *use = strstr(graph, "pass use");
    assert_true(make && use && make < use);
    uint8_t *out = fix_frame(r, &f, target, 80, 40);
    for (uint32_t i = 0; i < 80 * 40; i++) {
        uint8_t red = ((i % 80 + i / 80) & 1) ? 255 : 0;
        if (out[4 * i] != red || out[4 * i + 1] != 0 || out[4 * i + 2] != 255)
            fail_msg("pixel %u,%u is %u,%u,%u, not the pattern", i % 80, i / 80, out[4 * i], out[4 * i + 1],
                     out[4 * i + 2]);
    }
    free(out);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* A view's depth: white where the scene is drawn (reversed Z: depth above 0), black where it is not. */
void test_technique_reads_view_depth(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    orr_view_id view = add_view(r, target);
    uint8_t *base = fix_frame(r, &f, target, W, H);
    const char *glsl = "#version 450\n"
                       "layout(set = 0, binding = 0) uniform sampler2D depth;\n"
                       "layout(location = 0) out vec4 o;\n"
                       "void main() { o = vec4(vec3(texelFetch(depth, ivec2(gl_FragCoord.xy), 0).r > 0.0 ? 1.0 : 0.0), 1.0); }\n";
    static const char *const read_depth[] = {"depth"};
    orr_technique_desc d = {.name = "mask", .view = view, .fragment = {.glsl = glsl}, .reads = read_depth,
                            .read_count = 1, .writes = WRITE_COLOR, .write_count = 1};
    fix_set_techniques(r, target, &d, 1, NULL);
    for (int again = 0; again < 2; again++) { /* and a second frame (the depth read, then drawn into again) */
        uint8_t *mask = fix_frame(r, &f, target, W, H);
        uint32_t white = 0, black = 0;
        uint8_t clear[4];
        memcpy(clear, base, 4); /* the top left corner is sky */
        for (uint32_t i = 0; i < W * H; i++) {
            const uint8_t *m = mask + 4 * i;
            assert_true((m[0] == 0 || m[0] == 255) && m[0] == m[1] && m[1] == m[2]);
            if (m[0]) white++;
            else black++;
            if (!memcmp(base + 4 * i, clear, 3) && m[0]) fail_msg("pixel %u,%u shows sky but has depth", i % W, i / W);
        }
        if (white < W * H / 10 || black < W * H / 10) fail_msg("mask: %u white, %u black pixels", white, black);
        free(mask);
    }
    free(base);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* ---- refused at registration --------------------------------------------------------------------- */

static void refused(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, uint32_t n, orr_result code,
                    const char *const *expect, uint32_t expect_count)
{
    orr_result rc = orr_renderer_set_techniques(r, target, d, n, NULL);
    const char *msg = orr_renderer_last_error(r)->message;
    if (rc != code) fail_msg("expected %s, got %s: %s", orr_result_name(code), orr_result_name(rc), msg);
    for (uint32_t k = 0; k < expect_count; k++)
        if (!strstr(msg, expect[k])) fail_msg("the message does not say '%s': %s", expect[k], msg);
    print_message("refused: %s\n", msg);
}
#define REFUSED(r, t, d, n, code, ...)                                                                          \
    do {                                                                                                        \
        static const char *const expect_[] = {__VA_ARGS__};                                                    \
        refused((r), (t), (d), (n), (code), expect_, sizeof expect_ / sizeof expect_[0]);                      \
    } while (0)

void test_technique_refusals(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    uint8_t *base = fix_frame(r, &f, target, W, H);
    orr_technique_desc swap = {.name = "swap", .fragment = {.glsl = SWAP_GLSL}, .reads = READ_COLOR, .read_count = 1,
                               .writes = WRITE_COLOR, .write_count = 1};
    fix_set_techniques(r, target, &swap, 1, NULL);
    uint8_t *swapped = fix_frame(r, &f, target, W, H);

    /* GLSL that does not compile: the compiler's line, under the shader's name */
    orr_technique_desc d = swap;
    d.fragment = (orr_shader_desc){.name = "broken.frag",
                                   .glsl = "#version 450\nlayout(location = 0) out vec4 o;\nvoid main() {\n"
                                           "    o = vec4(undeclared_thing);\n}\n"};
    d.read_count = 0;
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "'swap'", "broken.frag:4:", "undeclared_thing");

    /* the interface against the declaration */
    d = swap;
    d.fragment.glsl = "#version 450\nlayout(set = 0, binding = 1) uniform sampler2D c;\n"
                      "layout(location = 0) out vec4 o;\nvoid main() { o = texture(c, vec2(0)); }\n";
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "'swap'", "binding 1", "declares 1 reads");
    d.fragment.glsl = "#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1); }\n";
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "does not sample set 0, binding 0", "read 'color'");
    d.fragment.glsl = SWAP_GLSL;
    d.push_constant_size = 8;
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "push constant block of 0 bytes", "declares 8");
    d = swap;
    d.fragment.glsl = GREY_GLSL;
    d.push_constant_size = 8;
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "push constant block of 16 bytes", "declares 8");
    d = swap;
    d.fragment.glsl = "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D c;\n"
                      "layout(location = 0) out vec4 o;\nlayout(location = 1) out vec4 p;\n"
                      "void main() { o = texture(c, vec2(0)); p = o; }\n";
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "location 1", "declares 1 writes");
    d.fragment.glsl = "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D c;\n"
                      "layout(set = 0, binding = 1) buffer B { vec4 v[]; } b;\n"
                      "layout(location = 0) out vec4 o;\nvoid main() { o = texture(c, vec2(0)) + b.v[0]; }\n";
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "declares 'B'", "binding 1");
    d = swap;
    d.fragment = (orr_shader_desc){.spirv = (const uint32_t *)"not a shader at all!", .spirv_size = 20};
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "'swap'", "not SPIR-V");

    /* a format the device cannot render to */
    static const char *const read_odd[] = {"odd"};
    orr_technique_write odd = {.name = "odd", .format = ORR_FORMAT_E5B9G9R9F};
    orr_technique_desc pair[2] = {
        {.name = "make", .fragment = {.glsl = "#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1); }\n"},
         .writes = &odd, .write_count = 1},
        {.name = "use", .fragment = {.glsl = "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D c;\n"
                                             "layout(location = 0) out vec4 o;\nvoid main() { o = texture(c, vec2(0)); }\n"},
         .reads = read_odd, .read_count = 1, .writes = WRITE_COLOR, .write_count = 1},
    };
    orr_result rc = orr_renderer_set_techniques(r, target, pair, 2, NULL);
    if (rc == ORR_OK) {
        print_message("this device renders to e5b9g9r9f: the unsupported format case does not apply\n");
        fix_set_techniques(r, target, &swap, 1, NULL);
    } else {
        assert_int_equal(rc, ORR_ERROR_UNSUPPORTED);
        assert_non_null(strstr(orr_renderer_last_error(r)->message, "'odd' has format e5b9g9r9f"));
        assert_non_null(strstr(orr_renderer_last_error(r)->message, "cannot render to"));
    }
    /* writers of one transient disagreeing on its format */
    orr_technique_write odd16 = {.name = "odd", .format = ORR_FORMAT_RGBA16F}, odd32 = {.name = "odd", .format = ORR_FORMAT_RGBA32F};
    orr_technique_desc three[3] = {pair[0], pair[0], pair[1]};
    three[0].writes = &odd16;
    three[1].name = "make2";
    three[1].writes = &odd32;
    REFUSED(r, target, three, 3, ORR_ERROR_INVALID_ARGUMENT, "'make2' writes 'odd' as rgba32f", "'make' as rgba16f");

    /* reading what nothing writes */
    d = pair[1];
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "'use' reads 'odd', which nothing writes");
    /* "depth" without a view */
    static const char *const read_depth[] = {"depth"};
    d.reads = read_depth;
    REFUSED(r, target, &d, 1, ORR_ERROR_INVALID_ARGUMENT, "'use': reads 'depth' without a view");

    /* a dependency cycle: each reads what the other writes */
    static const char *const read_a[] = {"a"}, *const read_b[] = {"b"};
    orr_technique_write wa = {.name = "a", .format = ORR_FORMAT_RGBA8_UNORM}, wb = {.name = "b", .format = ORR_FORMAT_RGBA8_UNORM};
    orr_technique_desc cyc[2] = {
        {.name = "one", .fragment = pair[1].fragment, .reads = read_a, .read_count = 1, .writes = &wb, .write_count = 1},
        {.name = "two", .fragment = pair[1].fragment, .reads = read_b, .read_count = 1, .writes = &wa, .write_count = 1},
    };
    REFUSED(r, target, cyc, 2, ORR_ERROR_INVALID_ARGUMENT, "dependency cycle", "'one' needs 'two' first ('a')",
            "'two' needs 'one' first ('b')");
    /* names */
    orr_technique_desc twice[2] = {swap, swap};
    REFUSED(r, target, twice, 2, ORR_ERROR_INVALID_ARGUMENT, "both named 'swap'");

    /* after every refusal the list set last still draws */
    uint8_t *still = fix_frame(r, &f, target, W, H);
    assert_memory_equal(still, swapped, (size_t)W * H * 4);
    /* and SPIR-V works as GLSL does */
    uint32_t *words;
    size_t count;
    char msg[256];
    orr_allocator libc = orr_allocator_default();
    assert_true(orri_shader_compile(&libc, ORRI_SHADER_FRAGMENT, SWAP_GLSL, "swap", NULL, &words, &count, msg, sizeof msg));
    d = swap;
    d.fragment = (orr_shader_desc){.spirv = words, .spirv_size = count * 4};
    fix_set_techniques(r, target, &d, 1, NULL);
    orri_free(&libc, words, count * 4);
    uint8_t *spv = fix_frame(r, &f, target, W, H);
    assert_memory_equal(spv, swapped, (size_t)W * H * 4);
    free(base), free(swapped), free(still), free(spv);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* A transient at half the target's size: a pattern written per pixel of the small image and read back
 * over the whole target lands on 2 x 2 blocks (at the target's size it would alternate per pixel). */
void test_technique_transient_fraction(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    static const char *SMALL = "#version 450\n"
                               "layout(location = 0) out vec4 o;\n"
                               "void main() {\n"
                               "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
                               "    o = vec4(float(p.x & 1), float(p.y & 1), 0.0, 1.0);\n"
                               "}\n";
    static const char *UP = "#version 450\n"
                            "layout(location = 0) in vec2 uv;\n"
                            "layout(set = 0, binding = 0) uniform sampler2D small;\n"
                            "layout(location = 0) out vec4 o;\n"
                            "void main() { o = texture(small, uv); }\n";
    static const orr_technique_write HALF[] = {{.name = "small", .format = ORR_FORMAT_RGBA8_UNORM, .divisor = 2}};
    static const char *const READ_SMALL[] = {"small"};
    orr_technique_desc list[2] = {
        {.name = "pattern", .fragment = {.glsl = SMALL}, .writes = HALF, .write_count = 1},
        {.name = "up", .fragment = {.glsl = UP}, .reads = READ_SMALL, .read_count = 1, .writes = WRITE_COLOR,
         .write_count = 1},
    };
    fix_set_techniques(r, target, list, 2, NULL);
    uint8_t *px = fix_frame(r, &f, target, W, H);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = px + 4 * (y * W + x);
            uint8_t want_r = ((x / 2) & 1) ? 255 : 0, want_g = ((y / 2) & 1) ? 255 : 0;
            if (p[0] != want_r || p[1] != want_g || p[2] != 0)
                fail_msg("pixel %u,%u is %u,%u,%u, expected %u,%u,0 (the half-size pattern)", x, y, p[0], p[1], p[2],
                         want_r, want_g);
        }
    char graph[2048];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    if (!strstr(graph, "small: transient, rgba8, 1/2 of the target's size"))
        fail_msg("the graph does not give the transient's size:\n%s", graph);
    /* writers of one transient agree on its size; a pass's writes share one */
    orr_technique_write other[] = {{.name = "small", .divisor = 4}};
    orr_technique_desc bad[3] = {list[0], list[1], list[0]};
    bad[2].name = "again";
    bad[2].writes = other;
    REFUSED(r, target, bad, 3, ORR_ERROR_INVALID_ARGUMENT, "writes 'small' at 1/4 of the target's size",
            "'pattern' at 1/2");
    orr_technique_write two[] = {{.name = "a", .divisor = 2}, {.name = "b"}};
    bad[0].writes = two;
    bad[0].write_count = 2;
    REFUSED(r, target, bad, 1, ORR_ERROR_INVALID_ARGUMENT, "one pass, one size");
    free(px);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}

/* Transients whose lifetimes do not overlap share memory: a chain color -> a -> b -> c -> color, each
 * pass a swizzle; "a" (passes 0-1) and "c" (passes 2-3) share a block, "b" (1-2) overlaps both. The
 * image is the frame's channels permuted, exactly, as without sharing. */
void test_technique_transient_reuse(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    add_view(r, target);
    uint8_t *base = fix_frame(r, &f, target, W, H);
#define SWIZZLE(s)                                                                                              \
    "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D src;\nlayout(location = 0) out vec4 o;\n"   \
    "void main() { o = texelFetch(src, ivec2(gl_FragCoord.xy), 0)." s "; }\n"
    static const char *const R_COLOR[] = {"color"}, *const R_A[] = {"a"}, *const R_B[] = {"b"}, *const R_C[] = {"c"};
    static const orr_technique_write W_A[] = {{.name = "a"}}, W_B[] = {{.name = "b"}}, W_C[] = {{.name = "c"}};
    orr_technique_desc chain[4] = {
        {.name = "to-a", .fragment = {.glsl = SWIZZLE("bgra")}, .reads = R_COLOR, .read_count = 1, .writes = W_A,
         .write_count = 1},
        {.name = "to-b", .fragment = {.glsl = SWIZZLE("rgba")}, .reads = R_A, .read_count = 1, .writes = W_B,
         .write_count = 1},
        {.name = "to-c", .fragment = {.glsl = SWIZZLE("grba")}, .reads = R_B, .read_count = 1, .writes = W_C,
         .write_count = 1},
        {.name = "back", .fragment = {.glsl = SWIZZLE("rgba")}, .reads = R_C, .read_count = 1, .writes = WRITE_COLOR,
         .write_count = 1},
    };
#undef SWIZZLE
    fix_set_techniques(r, target, chain, 4, NULL);
    uint8_t *px = fix_frame(r, &f, target, W, H);
    for (uint32_t i = 0; i < W * H; i++) { /* (r, g, b) -> a (b, g, r) -> c (g, b, r) */
        const uint8_t *a = base + 4 * i, *b = px + 4 * i;
        if (b[0] != a[1] || b[1] != a[2] || b[2] != a[0])
            fail_msg("pixel %u,%u is %u,%u,%u; the frame's %u,%u,%u as (g, b, r) expected", i % W, i / W, b[0], b[1],
                     b[2], a[0], a[1], a[2]);
    }
    char graph[4096];
    orr_renderer_describe_techniques(r, target, graph, sizeof graph);
    print_message("%s", graph);
    if (!strstr(graph, "a: transient, default (rgba8 srgb), target size, passes 0-1, memory block 0") ||
        !strstr(graph, "b: transient, default (rgba8 srgb), target size, passes 1-2, memory block 1") ||
        !strstr(graph, "c: transient, default (rgba8 srgb), target size, passes 2-3, memory block 0") ||
        !strstr(graph, "in 2 block(s) for the transients"))
        fail_msg("the graph does not show a and c sharing memory:\n%s", graph);
    /* a second frame, and one after a resize, the same way */
    uint8_t *again = fix_frame(r, &f, target, W, H);
    assert_memory_equal(again, px, (size_t)W * H * 4);
    free(base), free(px), free(again);
    fix_fini(&f);
    fix_renderer_done(r, &logged);
}
