/* End to end: sample models rendered through the command-line tool and compared with their goldens
 * (tests/golden/e2e_*.png, each with a .txt beside it saying what a person checked in it), the
 * best-practices layer on a render of the milk truck through the library, the file's cameras
 * (render --camera) and multisampling (render --msaa). */
#include "e2e_tests.h"

#include <cjson/cJSON.h>
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>
#include <stb/stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *tmp_png(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s.png", orrt_scratch("goldens"), name);
    return p;
}

static void device_name(char *device, size_t cap)
{
    assert_int_equal(run("render -o /dev/null --size 16x16 --views 1 --stats"), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    snprintf(device, cap, "%s", cJSON_GetObjectItem(j, "device")->valuestring);
    cJSON_Delete(j);
}

/* Byte for byte on the device named in NAME.device.txt; elsewhere within golden_tolerance (rasterisers
 * and filters round differently, by a level or two, on edges by more). ORRERY_UPDATE_GOLDEN=1 copies the
 * render over the golden (look at it before committing, and say what you checked in NAME.txt). */
/* Another device's render of a golden's scene: at most 0.05% of the pixels (65 of a 480 x 270 image)
 * may differ from the golden by more than 8 levels in a channel, and the mean difference stays below
 * 1.5 levels. Rounding on another CPU's lavapipe moves pixels by 1 or 2 levels (measured: 1,017 of
 * 129,600 pixels by 1 level, mean 0.000-0.005), a few edge pixels by more; an object missing, moved by
 * a pixel or more, or drawn in another colour changes hundreds of pixels by far more
 * (test_golden_tolerance checks each on a real golden). */
bool golden_tolerance(const unsigned char *a, const unsigned char *g, int w, int h, char *why, size_t cap)
{
    long far = 0;
    double sum = 0;
    int worst = 0;
    for (long p = 0; p < (long)w * h; p++) {
        int m = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)a[p * 4 + c] - (int)g[p * 4 + c]);
            sum += d;
            if (d > m) m = d;
        }
        if (m > 8) far++;
        if (m > worst) worst = m;
    }
    double mean = sum / ((double)w * h * 4);
    long allowed = (long)w * h / 2000;
    snprintf(why, cap, "%ld pixels differ by more than 8 levels (at most %ld), largest %d, mean %.3f (below 1.5)", far,
             allowed, worst, mean);
    return far <= allowed && mean < 1.5;
}

static void compare_golden(const char *name, const char *png)
{
    char golden[1024], device_file[1024], note[1024], device[256], golden_device[256] = "";
    snprintf(golden, sizeof golden, "%s/tests/golden/%s.png", orrt_source_dir(), name);
    snprintf(device_file, sizeof device_file, "%s/tests/golden/%s.device.txt", orrt_source_dir(), name);
    snprintf(note, sizeof note, "%s/tests/golden/%s.txt", orrt_source_dir(), name);
    device_name(device, sizeof device);
    snprintf(device, sizeof device, "%s", orrt_golden_device(device));
    const char *update = getenv("ORRERY_UPDATE_GOLDEN");
    if (update && *update == '1') {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "cp %s %s && echo '%s' > %s", png, golden, device, device_file);
        assert_int_equal(system(cmd), 0);
    }
    if (access(note, R_OK) != 0) fail_msg("%s: no note beside the golden saying what a person checked in it", note);
    FILE *f = fopen(device_file, "r");
    if (f && fgets(golden_device, sizeof golden_device, f)) golden_device[strcspn(golden_device, "\n")] = 0;
    if (f) fclose(f);
    image a = load_png(png), g = load_png(golden);
    assert_int_equal(a.w, g.w);
    assert_int_equal(a.h, g.h);
    if (!strcmp(device, golden_device)) {
        if (memcmp(a.rgba, g.rgba, (size_t)a.w * a.h * 4) != 0)
            fail_msg("%s differs from the golden %s on %s", png, golden, device);
    } else {
        char why[256];
        bool close = golden_tolerance(a.rgba, g.rgba, a.w, a.h, why, sizeof why);
        print_message("%s: device '%s' is not the golden's '%s': %s\n", name, device, golden_device, why);
        if (!close) fail_msg("%s is not within the tolerance of the golden %s: %s", png, golden, why);
    }
    stbi_image_free(a.rgba), stbi_image_free(g.rgba);
}

/* The sample goldens: lights (KHR_lights_punctual: a warm directional light and a red point light
 * above the cube), alpha blend and alpha mask, morph targets (the mesh's weights) and the file's
 * cameras (a perspective and an orthographic one, letterboxed to their aspect); shadowed samples and
 * the built-in orrery's moon in Earth's shadow. Rendered with the tool's defaults (4 samples where the
 * device has them), validation on. */
void test_sample_goldens(void **state)
{
    (void)state;
    static const struct {
        const char *name, *file, *args;
    } cases[] = {
        /* the framing camera, as the golden was made (the file's own camera is the default now) */
        {"e2e_lights", "gltf/KHRLightsPunctualExample/lights.gltf", "--size 480x270 --views 1 --camera frame"},
        {"e2e_alpha_blend", "gltf/Blender_01_alpha_blend/01_alpha_blend.gltf", "--size 480x270 --views 1"},
        {"e2e_alpha_mask", "gltf/Blender_01_alpha_mask/01_alpha_mask.gltf", "--size 480x270 --views 1"},
        {"e2e_morph_primitives", "gltf/MorphPrimitivesTest/MorphPrimitivesTest.gltf", "--size 480x270 --views 1"},
        {"e2e_cameras", "gltf/Cameras/Cameras.gltf", "--size 480x180 --views 2 --camera 0"},
        /* shadowed, each on a floor: the lights sample (both its lights cast), the truck under the
         * default key light */
        {"e2e_lights_shadows", "gltf/KHRLightsPunctualExample/lights.gltf", "--size 480x270 --views 1 --shadows --floor"},
        {"e2e_milk_truck_shadows", "gltf/CesiumMilkTruck/CesiumMilkTruck.gltf", "--size 480x270 --views 1 --shadows --floor"},
        /* the lights sample four times on a grid, all eight lights casting: a cube in another's shadow */
        {"e2e_lights_grid_shadows", "gltf/KHRLightsPunctualExample/lights.gltf",
         "--size 480x270 --views 1 --floor --instances 4 --shadow-lights 8"},
        /* the built-in orrery (no file): a partial eclipse of the moon, Earth's shadow across it */
        {"e2e_orrery_moon_eclipse", NULL,
         "--size 480x270 --views 1 --camera closeup_moon --time 8.05 --belt 0 --shadows --shadow-distance 1e8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *png = tmp_png(cases[i].name);
        char args[8192];
        if (cases[i].file)
            snprintf(args, sizeof args, "render '%s' -o %s --validation %s 2>&1", orrt_asset(cases[i].file), png,
                     cases[i].args);
        else
            snprintf(args, sizeof args, "render -o %s --validation %s 2>&1", png, cases[i].args);
        int status = run(args);
        if (status != 0) fail_msg("%s: render failed (%d): %s", cases[i].name, status, out);
        compare_golden(cases[i].name, png);
        remove(png);
    }
}

/* ---- the best-practices layer ---------------------------------------------------------------- */

typedef struct bp_log {
    uint32_t messages, debugging_extension;
    char first[512];
} bp_log;

static void bp_line(void *user, orr_log_level level, const char *message)
{
    (void)level;
    bp_log *log = user;
    if (strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX)) != 0) return;
    /* The one message that is not about the renderer: VK_EXT_debug_utils is a debugging extension
     * "to be avoided otherwise", and it is how validation messages reach us at all (it is enabled only
     * with validation). */
    if (strstr(message, "BestPractices-vkCreateInstance-specialuse-extension-debugging")) {
        log->debugging_extension++;
        return;
    }
    if (!log->messages++) snprintf(log->first, sizeof log->first, "%s", message);
    fprintf(stderr, "[best practices] %s\n", message);
}

/* The milk truck rendered through the library, two frames (the second reuses everything), with the
 * validation layer's best-practices and synchronization checks: nothing is reported but the
 * debugging-extension notice; its resources sit in a few device-memory blocks. */
void test_best_practices_truck(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/CesiumMilkTruck/CesiumMilkTruck.gltf");
    orr_session *session;
    assert_int_equal(orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_PRESENTING}, &session, NULL), ORR_OK);
    orr_assets *assets = orr_session_assets(session);
    orr_prefab_id prefab;
    orr_error err;
    if (orr_gltf_load(assets, file, NULL, &prefab, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_entity root;
    assert_int_equal(orr_prefab_instantiate(orr_session_world(session), assets, prefab, ORR_ENTITY_NONE, NULL, &root),
                     ORR_OK);
    assert_int_equal(orr_session_run_frame(session, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(session);
    bp_log log = {0};
    orr_renderer_desc rd = {.validation = true, .validate_best_practices = true, .logger = {.log = bp_line, .user = &log}};
    orr_renderer *r;
    if (orr_renderer_create(&rd, &r, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    orr_library_id lib;
    assert_int_equal(orr_renderer_bind_library(r, assets, &lib), ORR_OK);
    orr_target_desc td = {.width = 320, .height = 180, .readback = true, .samples = orr_renderer_sample_counts(r) & 4u ? 4 : 1};
    orr_target_id t;
    assert_int_equal(orr_renderer_create_target(r, &td, &t), ORR_OK);
    orr_mat4d pose;
    orr_mat4d_from_trs((orr_vec3d){4, 3, 6}, orr_quatd_look_rotation((orr_vec3d){-4, -2.5, -6}, (orr_vec3d){0, 1, 0}),
                       ORR_VEC3_ONE, &pose);
    for (uint32_t v = 0; v < 2; v++) {
        orr_view_desc vd = {.target = t, .slot = v, .viewport = {v * 160, 0, 160, 180}, .pose = pose,
                            .strategy = v ? ORR_STRATEGY_INDIRECT : ORR_STRATEGY_BATCHED, .order = ORR_ORDER_MESH};
        orr_view_id id;
        assert_int_equal(orr_renderer_create_view(r, &vd, &id), ORR_OK);
    }
    orr_render_desc desc = {.target = t, .snapshot = snap};
    orr_render_stats st;
    for (int frame = 0; frame < 2; frame++) assert_int_equal(orr_renderer_render(r, &desc, &st), ORR_OK);
    uint8_t *px = malloc(320 * 180 * 4);
    assert_int_equal(orr_renderer_read_target(r, t, px, 320 * 180 * 4), ORR_OK);
    free(px);
    print_message("milk truck: %u device-memory allocations for %llu bytes\n", st.memory.gpu_allocations,
                  (unsigned long long)st.memory.gpu_bytes);
    assert_true(st.memory.gpu_allocations <= 8);
    orr_renderer_destroy(r);
    orr_session_destroy(session);
    print_message("best practices: %u messages (and %u debugging-extension notices)\n", log.messages,
                  log.debugging_extension);
    if (log.messages) fail_msg("%u best-practices messages, the first: %s", log.messages, log.first);
}

/* ---- the file's cameras and multisampling ------------------------------------------------------- */

/* render --camera: a camera that fixes its aspect (Cameras.gltf's perspective camera, 1:1) is
 * letterboxed in a 2:1 target (the sides stay the clear colour, the middle square shows the scene);
 * a camera named on the command line looks the same as its index; a camera the file lacks is refused
 * with the cameras it has (exit 2); without --camera a file is seen through its own cameras, and
 * --camera frame frames it instead. */
void test_render_file_cameras(void **state)
{
    (void)state;
    const char *cams = orrt_asset("gltf/Cameras/Cameras.gltf");
    const char *png = tmp_png("cameras");
    char args[8192];
    snprintf(args, sizeof args, "render '%s' -o %s --size 200x100 --views 1 --camera 0 --validation 2>&1", cams, png);
    if (run(args) != 0) fail_msg("%s", out);
    image im = load_png(png);
    long outside = 0, inside = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++) {
            bool drawn = memcmp(im.rgba + ((size_t)y * im.w + x) * 4, im.rgba, 3) != 0;
            if (x < 50 || x >= 150) outside += drawn;
            else inside += drawn;
        }
    print_message("camera 0 (aspect 1) in 200x100: %ld pixels drawn in the middle square, %ld beside it\n", inside,
                  outside);
    assert_true(inside > 200);
    assert_int_equal(outside, 0);
    stbi_image_free(im.rgba);
    snprintf(args, sizeof args, "render '%s' -o /dev/null --size 64x64 --camera 7 2>&1", cams);
    assert_int_equal(run(args), 2);
    if (!strstr(out, "--camera 7") || !strstr(out, "2 cameras")) fail_msg("%s", out);
    /* by name and by index: the built-in scene's cameras are named */
    const char *a = tmp_png("cam_name"), *b = tmp_png("cam_index");
    snprintf(args, sizeof args, "render --belt 200 -o %s --size 96x64 --views 1 --camera cam_jupiter 2>&1", a);
    if (run(args) != 0) fail_msg("%s", out);
    assert_int_equal(run("snapshot --belt 200 --json"), 0);
    cJSON *snap = cJSON_Parse(out);
    assert_non_null(snap);
    int index = -1, k = 0;
    for (const cJSON *c = cJSON_GetObjectItem(snap, "cameras")->child; c; c = c->next, k++)
        if (!strcmp(cJSON_GetObjectItem(c, "entity")->valuestring, "cam_jupiter")) index = k;
    cJSON_Delete(snap);
    assert_true(index >= 0);
    snprintf(args, sizeof args, "render --belt 200 -o %s --size 96x64 --views 1 --camera %d 2>&1", b, index);
    if (run(args) != 0) fail_msg("%s", out);
    image ia = load_png(a), ib = load_png(b);
    assert_memory_equal(ia.rgba, ib.rgba, 96 * 64 * 4);
    stbi_image_free(ia.rgba), stbi_image_free(ib.rgba);
    /* a file with cameras is seen through its own by default: the bytes of --camera 0, two views
     * through cameras 0 and 1; --camera frame gives the framing camera instead (other bytes) */
    const char *given = tmp_png("cam_given"), *dflt = tmp_png("cam_default"), *framed = tmp_png("cam_framed");
    const char *how[] = {"--camera 0", "", "--camera frame"}, *pngs[] = {given, dflt, framed};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "render '%s' -o %s --size 120x60 --views 2 %s 2>&1", cams, pngs[i], how[i]);
        if (run(args) != 0) fail_msg("%s: %s", how[i], out);
    }
    image ig = load_png(given), id = load_png(dflt), iff = load_png(framed);
    assert_memory_equal(ig.rgba, id.rgba, 120 * 60 * 4);
    assert_true(memcmp(id.rgba, iff.rgba, 120 * 60 * 4) != 0);
    stbi_image_free(ig.rgba), stbi_image_free(id.rgba), stbi_image_free(iff.rgba);
    remove(png), remove(a), remove(b), remove(given), remove(dflt), remove(framed);
}

/* render --msaa: 1 and 4 (where the device has 4) give different edges and the same scene; a count
 * that is not a power of two up to 8 is bad usage; one the device lacks fails naming what it has. */
void test_render_msaa(void **state)
{
    (void)state;
    const char *truck = orrt_asset("gltf/CesiumMilkTruck/CesiumMilkTruck.gltf");
    const char *one = tmp_png("msaa1"), *four = tmp_png("msaa4");
    char args[8192];
    snprintf(args, sizeof args, "render '%s' -o %s --size 160x90 --views 1 --msaa 1 --validation 2>&1", truck, one);
    if (run(args) != 0) fail_msg("%s", out);
    snprintf(args, sizeof args, "render '%s' -o %s --size 160x90 --views 1 --msaa 4 --validation 2>&1", truck, four);
    int status = run(args);
    if (status == 0) {
        image a = load_png(one), b = load_png(four);
        long differ = 0;
        double sum = 0;
        for (long i = 0; i < 160L * 90 * 4; i++) {
            differ += a.rgba[i] != b.rgba[i];
            sum += abs((int)a.rgba[i] - (int)b.rgba[i]);
        }
        print_message("--msaa 1 against 4: %ld channels differ, mean %.3f\n", differ, sum / (160.0 * 90 * 4));
        assert_true(differ > 100);         /* edges */
        assert_true(sum / (160.0 * 90 * 4) < 8.0); /* the same picture */
        stbi_image_free(a.rgba), stbi_image_free(b.rgba);
    } else {
        assert_int_equal(status, 1);
        if (!strstr(out, "samples per pixel")) fail_msg("%s", out);
    }
    assert_int_equal(run("render -o /dev/null --size 16x16 --msaa 3 2>&1"), 2);
    assert_non_null(strstr(out, "--msaa"));
    assert_int_equal(run("render -o /dev/null --size 16x16 --msaa 16 2>&1"), 2);
    remove(one), remove(four);
}

/* The tolerance that another device's render is held to fails what a user would call a wrong picture,
 * on a real golden: the lights scene with an object gone (its pixels painted over with the clear
 * colour), moved by two pixels, or drawn in another colour (red and blue swapped where it is), and
 * passes the same image with every channel moved by a level (another CPU's rounding). */
void test_golden_tolerance(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/golden/e2e_lights.png", orrt_source_dir());
    image g = load_png(path);
    size_t bytes = (size_t)g.w * g.h * 4;
    unsigned char *a = malloc(bytes);
    assert_non_null(a);
    const unsigned char *bg = g.rgba; /* the top-left pixel: the clear colour */
    /* the object: the box of the pixels that are not the clear colour */
    int x0 = g.w, y0 = g.h, x1 = -1, y1 = -1;
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++)
            if (memcmp(g.rgba + ((size_t)y * g.w + x) * 4, bg, 4) != 0)
                x0 = x < x0 ? x : x0, y0 = y < y0 ? y : y0, x1 = x > x1 ? x : x1, y1 = y > y1 ? y : y1;
    assert_true(x1 > x0 + 10 && y1 > y0 + 10);
    char why[256];
    /* a level of rounding in every colour channel: passes */
    for (size_t k = 0; k < bytes; k++) a[k] = (unsigned char)(g.rgba[k] < 255 && k % 4 != 3 ? g.rgba[k] + 1 : g.rgba[k]);
    if (!golden_tolerance(a, g.rgba, g.w, g.h, why, sizeof why)) fail_msg("a level of rounding fails: %s", why);
    print_message("a level of rounding: %s\n", why);
    /* missing: every pixel of the object's box painted with the clear colour */
    memcpy(a, g.rgba, bytes);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) memcpy(a + ((size_t)y * g.w + x) * 4, bg, 4);
    assert_false(golden_tolerance(a, g.rgba, g.w, g.h, why, sizeof why));
    print_message("missing object: %s\n", why);
    /* moved two pixels to the right */
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++) {
            int sx = x >= 2 ? x - 2 : x;
            memcpy(a + ((size_t)y * g.w + x) * 4, g.rgba + ((size_t)y * g.w + sx) * 4, 4);
        }
    assert_false(golden_tolerance(a, g.rgba, g.w, g.h, why, sizeof why));
    print_message("moved object: %s\n", why);
    /* another colour: red and blue swapped on the object */
    memcpy(a, g.rgba, bytes);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            unsigned char *p = a + ((size_t)y * g.w + x) * 4, t = p[0];
            p[0] = p[2], p[2] = t;
        }
    assert_false(golden_tolerance(a, g.rgba, g.w, g.h, why, sizeof why));
    print_message("wrong colour: %s\n", why);
    free(a);
    stbi_image_free(g.rgba);
}
