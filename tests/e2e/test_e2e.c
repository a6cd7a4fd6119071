/* End to end on the real Vulkan device (lavapipe in CI), through the command-line tool, with the Khronos
 * validation layer on: a sample glTF file rendered through two views and compared with its golden image
 * byte for byte, determinism, strategy equality, the built-in orrery, and the dedup figures of --stats.
 * No Vulkan device is a failure, not a skip. Set ORRERY_UPDATE_GOLDEN=1 to rewrite the goldens. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stb/stb_image.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out[1 << 16];

static int run(const char *args)
{
    const char *tool = getenv("ORRERY_TOOL");
    if (!tool) fail_msg("ORRERY_TOOL is not set (run through ctest)");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s %s", tool, args);
    return orrt_run(cmd, out, sizeof out);
}

typedef struct image {
    int w, h;
    unsigned char *rgba;
} image;

static image load_png(const char *path)
{
    image im = {0};
    int n;
    im.rgba = stbi_load(path, &im.w, &im.h, &n, 4);
    if (!im.rgba) fail_msg("cannot decode %s: %s", path, stbi_failure_reason());
    return im;
}

static bool same_pixels(image a, image b)
{
    return a.w == b.w && a.h == b.h && memcmp(a.rgba, b.rgba, (size_t)a.w * a.h * 4) == 0;
}

/* Renders with validation on; the tool exits non-zero on any validation message. */
static void render(const char *file, const char *png, const char *extra)
{
    char args[4096];
    snprintf(args, sizeof args, "render %s -o %s --validation %s 2>&1", file, png, extra);
    int status = run(args);
    if (status != 0) fail_msg("render %s failed (%d): %s", file, status, out);
}

static char *tmp_png(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "/tmp/orrery_e2e_%d_%s.png", (int)getpid(), name);
    return p;
}

/* Pixels in the columns [x0, x1) that differ from the clear color (the top-left pixel). */
static long covered(image im, int x0, int x1)
{
    long n = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = x0; x < x1; x++)
            if (memcmp(im.rgba + ((size_t)y * im.w + x) * 4, im.rgba, 3) != 0) n++;
    return n;
}

/* The device a render ran on, from --stats. */
static void device_of(const char *file, char *device, size_t cap)
{
    char args[4096];
    snprintf(args, sizeof args, "render %s -o /dev/null --size 16x16 --views 1 --stats", file);
    assert_int_equal(run(args), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    snprintf(device, cap, "%s", cJSON_GetObjectItem(j, "device")->valuestring);
    cJSON_Delete(j);
}

static void test_sample_two_views_matches_golden(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/CesiumMilkTruck/CesiumMilkTruck.gltf");
    char *a = tmp_png("truck_a"), *b = tmp_png("truck_b");
    render(file, a, "--size 640x360 --views 2");
    render(file, b, "--size 640x360 --views 2");
    image ia = load_png(a), ib = load_png(b);
    assert_int_equal(ia.w, 640);
    assert_int_equal(ia.h, 360);
    assert_true(same_pixels(ia, ib)); /* a second run gives the same bytes */
    /* each half shows the truck, seen from a different side */
    long left = covered(ia, 0, 320), right = covered(ia, 320, 640);
    assert_true(left > 640 * 360 / 20);
    assert_true(right > 640 * 360 / 20);

    /* The golden is byte-exact on the device it was made on (named beside it); another device gets a
     * loose check, since rasterisers may round differently. */
    char golden[1024], device_file[1024], device[256], golden_device[256] = "";
    snprintf(golden, sizeof golden, "%s/tests/golden/e2e_milk_truck_2views.png", orrt_source_dir());
    snprintf(device_file, sizeof device_file, "%s/tests/golden/e2e_milk_truck_2views.device.txt", orrt_source_dir());
    device_of(file, device, sizeof device);
    const char *update = getenv("ORRERY_UPDATE_GOLDEN");
    if (update && *update == '1') {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "cp %s %s && echo '%s' > %s", a, golden, device, device_file);
        assert_int_equal(system(cmd), 0);
    }
    FILE *f = fopen(device_file, "r");
    if (f && fgets(golden_device, sizeof golden_device, f)) golden_device[strcspn(golden_device, "\n")] = 0;
    if (f) fclose(f);
    image ig = load_png(golden);
    if (!strcmp(device, golden_device)) {
        if (!same_pixels(ia, ig)) fail_msg("%s differs from the golden %s on %s", a, golden, device);
    } else {
        assert_int_equal(ig.w, ia.w);
        assert_int_equal(ig.h, ia.h);
        double sum = 0;
        for (long k = 0; k < (long)ia.w * ia.h * 4; k++) sum += abs((int)ia.rgba[k] - (int)ig.rgba[k]);
        double mean = sum / ((double)ia.w * ia.h * 4);
        print_message("device '%s' is not the golden's '%s': mean difference %.3f\n", device, golden_device, mean);
        assert_true(mean < 2.0);
    }
    stbi_image_free(ia.rgba), stbi_image_free(ib.rgba), stbi_image_free(ig.rgba);
    remove(a), remove(b);
}

static void test_strategies_render_the_same_bytes(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/Blender_02_shared_mesh/02_shared_mesh.gltf");
    char *d = tmp_png("direct"), *b = tmp_png("batched"), *i = tmp_png("indirect");
    render(file, d, "--size 320x180 --instances 9 --strategy direct");
    render(file, b, "--size 320x180 --instances 9 --strategy batched");
    render(file, i, "--size 320x180 --instances 9 --strategy indirect");
    image id = load_png(d), ib = load_png(b), ii = load_png(i);
    assert_true(covered(id, 0, id.w) > 1000);
    assert_true(same_pixels(id, ib));
    assert_true(same_pixels(id, ii));
    stbi_image_free(id.rgba), stbi_image_free(ib.rgba), stbi_image_free(ii.rgba);
    remove(d), remove(b), remove(i);
}

static cJSON *stats(const char *file, const char *extra)
{
    char args[4096];
    char *png = tmp_png("stats");
    snprintf(args, sizeof args, "render %s -o %s --size 160x90 --stats %s", file, png, extra);
    assert_int_equal(run(args), 0);
    remove(png);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("--stats did not print JSON: %s", out);
    return j;
}

static double num(cJSON *j, const char *key)
{
    cJSON *v = cJSON_GetObjectItem(j, key);
    if (!cJSON_IsNumber(v)) fail_msg("--stats has no number '%s'", key);
    return v->valuedouble;
}

static void test_stats_show_dedup(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/Box/Box.gltf");
    cJSON *one = stats(file, "--instances 1 --strategy batched --views 1");
    cJSON *many = stats(file, "--instances 16 --strategy batched --views 1");
    cJSON *direct = stats(file, "--instances 16 --strategy direct --views 1");
    double inst1 = num(one, "instances");
    assert_true(num(one, "geometry_bytes") > 0);
    assert_true(num(one, "geometry_bytes") == num(many, "geometry_bytes")); /* one copy of the mesh */
    assert_true(num(many, "instances") == 16 * inst1);
    assert_true(num(many, "instance_bytes") == 80 * num(many, "instances"));
    assert_true(num(many, "draw_calls") == num(one, "draw_calls"));     /* batched: one per primitive */
    assert_true(num(direct, "draw_calls") == 16 * num(one, "draw_calls")); /* direct: one per instance */
    cJSON *dropped = cJSON_GetObjectItem(many, "dropped");
    assert_non_null(cJSON_GetObjectItem(dropped, "stale_handle"));
    cJSON_Delete(one), cJSON_Delete(many), cJSON_Delete(direct);
}

static void test_builtin_orrery_renders(void **state)
{
    (void)state;
    char *p = tmp_png("builtin");
    render("", p, "--size 480x270 --views 2");
    image im = load_png(p);
    /* Earth (left) and Jupiter's system (right) each cover part of their half */
    assert_true(covered(im, 0, im.w / 2) > 500);
    assert_true(covered(im, im.w / 2, im.w) > 100);
    stbi_image_free(im.rgba);
    remove(p);
}

static void test_far_offset_renders_like_origin(void **state)
{
    (void)state;
    /* The whole scene moved 1e9 m away: views subtract their binary64 origin before anything is a
     * float, so the image is that of the scene at the origin. */
    const char *file = orrt_asset("gltf/Blender_02_node_hierarchy/02_node_hierarchy.gltf");
    char *a = tmp_png("origin"), *b = tmp_png("far");
    render(file, a, "--size 320x180 --views 1");
    render(file, b, "--size 320x180 --views 1 --offset 1e9,-2e9,3e9");
    image ia = load_png(a), ib = load_png(b);
    long diff = 0;
    for (long k = 0; k < (long)ia.w * ia.h * 4; k++) diff += abs((int)ia.rgba[k] - (int)ib.rgba[k]) > 2;
    assert_true(diff < (long)ia.w * ia.h / 100); /* fewer than 1% of channels differ by more than 2 */
    stbi_image_free(ia.rgba), stbi_image_free(ib.rgba);
    remove(a), remove(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_two_views_matches_golden), cmocka_unit_test(test_strategies_render_the_same_bytes),
        cmocka_unit_test(test_stats_show_dedup),                cmocka_unit_test(test_builtin_orrery_renders),
        cmocka_unit_test(test_far_offset_renders_like_origin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
