/* End to end on the real Vulkan device (lavapipe in CI), through the command-line tool, with the Khronos
 * validation layer on: a sample glTF file rendered through two views and compared with its golden image
 * byte for byte, determinism, strategy equality, the built-in orrery, and the dedup figures of --stats.
 * No Vulkan device is a failure, not a skip. Set ORRERY_UPDATE_GOLDEN=1 to rewrite the goldens. */
#include "e2e_tests.h"

#include <cjson/cJSON.h>
#include <stb/stb_image.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char out[1 << 20];

int run(const char *args)
{
    char cmd[16384];
    int n = snprintf(cmd, sizeof cmd, "%s %s", orrt_tool(), args);
    if (n < 0 || (size_t)n >= sizeof cmd) fail_msg("command too long: %s", args);
    return orrt_run(cmd, out, sizeof out);
}

image load_png(const char *path)
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
    char args[8192];
    int n = snprintf(args, sizeof args, "render %s -o %s --validation %s 2>&1", file, png, extra);
    assert_true(n > 0 && (size_t)n < sizeof args);
    int status = run(args);
    if (status != 0) fail_msg("render %s failed (%d): %s", file, status, out);
}

static char *tmp_png(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s.png", orrt_scratch("e2e"), name);
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
    snprintf(device, sizeof device, "%s", orrt_golden_device(device));
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

/* A value of --stats by its path: "draws.calls" is the draws group's calls. */
static const cJSON *stat_at(const cJSON *j, const char *path)
{
    char key[64];
    for (const char *p = path; j && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        j = cJSON_GetObjectItem(j, key);
        p += n + (p[n] == '.');
    }
    return j;
}

static double num(cJSON *j, const char *key)
{
    const cJSON *v = stat_at(j, key);
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
    double inst1 = num(one, "cull.instances");
    assert_true(num(one, "memory.geometry_bytes") > 0);
    assert_true(num(one, "memory.geometry_bytes") == num(many, "memory.geometry_bytes")); /* one copy of the mesh */
    assert_true(num(many, "cull.instances") == 16 * inst1);
    assert_true(num(many, "memory.instance_bytes") == 80 * num(many, "cull.instances"));
    assert_true(num(many, "draws.calls") == num(one, "draws.calls"));     /* batched: one per primitive */
    assert_true(num(direct, "draws.calls") == 16 * num(one, "draws.calls")); /* direct: one per instance */
    assert_true(num(many, "draws.dropped.stale_handle") == 0);
    cJSON_Delete(one), cJSON_Delete(many), cJSON_Delete(direct);
}

/* ---- the built-in orrery: each view shows its body at the size its camera gives ---------------- */

static const cJSON *named(const cJSON *array, const char *name)
{
    for (const cJSON *e = array ? array->child : NULL; e; e = e->next)
        if (cJSON_IsString(cJSON_GetObjectItem(e, "entity")) && !strcmp(cJSON_GetObjectItem(e, "entity")->valuestring, name))
            return e;
    fail_msg("snapshot --json: no '%s'", name);
    return NULL;
}

static void json_numbers(const cJSON *j, const char *key, double *values, int n)
{
    const cJSON *a = cJSON_GetObjectItem(j, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) fail_msg("snapshot --json: '%s' is not %d numbers", key, n);
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next) values[i++] = e->valuedouble;
}

/* Where a body appears in a view, from the snapshot alone: its bounds' centre projected through the
 * camera (looking along -Z, +Y up, vertical field yfov, aspect of the viewport), and the pixel radius
 * of the sphere around it of radius `radius` (world metres). For a sphere on the view axis the
 * silhouette is a circle of radius f tan(asin(R / d)). */
typedef struct projected {
    double x, y; /* pixel, from the view's top-left corner */
    double radius;
} projected;

static projected project(const cJSON *camera, const double centre[3], double radius, int width, int height)
{
    double cw[16];
    json_numbers(camera, "world", cw, 16);
    const cJSON *yfov = cJSON_GetObjectItem(camera, "yfov");
    if (!cJSON_IsNumber(yfov)) fail_msg("snapshot --json: camera without yfov");
    double d[3] = {centre[0] - cw[12], centre[1] - cw[13], centre[2] - cw[14]};
    /* camera space: the rotation's columns are the camera's axes (the pose has no scale) */
    double cx = d[0] * cw[0] + d[1] * cw[1] + d[2] * cw[2];
    double cy = d[0] * cw[4] + d[1] * cw[5] + d[2] * cw[6];
    double cz = d[0] * cw[8] + d[1] * cw[9] + d[2] * cw[10];
    double dist = sqrt(cx * cx + cy * cy + cz * cz);
    if (!(cz < 0 && dist > radius)) /* in front of the camera, which is outside the body */
        fail_msg("camera %s: the body is behind it or around it (camera space z %g, distance %g, radius %g)",
                 cJSON_GetObjectItem(camera, "entity")->valuestring, cz, dist, radius);
    double t = tan(yfov->valuedouble / 2), aspect = (double)width / height;
    projected p = {
        .x = width / 2.0 * (1 + cx / -cz / (t * aspect)),
        .y = height / 2.0 * (1 - cy / -cz / t),
        .radius = height / 2.0 * tan(asin(radius / dist)) / t,
    };
    return p;
}

static const unsigned char *pixel(image im, int x, int y) { return im.rgba + ((size_t)y * im.w + x) * 4; }

/* Covered pixels from (x, y), not counting it, along (dx, dy) inside [x0, x1), until the clear colour. */
static int extent(image im, int x, int y, int dx, int dy, int x0, int x1, const unsigned char *clear)
{
    int n = 0;
    for (x += dx, y += dy; x >= x0 && x < x1 && y >= 0 && y < im.h && memcmp(pixel(im, x, y), clear, 3) != 0;
         x += dx, y += dy)
        n++;
    return n;
}

static void test_builtin_orrery_renders(void **state)
{
    (void)state;
    /* four views, side by side, use the built-in cameras in snapshot order (cmd_scene.c): cam_earth,
     * cam_jupiter, cam_belt, cam_sun (builtin.c); each looks at the centre of its body */
    static const struct {
        const char *camera, *body;
        bool sphere; /* the rock of the belt is not: its bounds give only an upper bound */
    } views[] = {{"cam_earth", "earth", true}, {"cam_jupiter", "jupiter", true}, {"cam_belt", "rock_0", false},
                 {"cam_sun", "sun", true}};
    const int count = 4, width = 960, height = 270;
    char *json_path = tmp_png("builtin_snapshot"), args[4096];
    snprintf(args, sizeof args, "snapshot --belt 2000 --json > %s", json_path); /* a belt whose JSON is small */
    assert_int_equal(run(args), 0);
    FILE *f = fopen(json_path, "rb");
    assert_non_null(f);
    static char text[1 << 22];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    remove(json_path);
    text[len] = 0;
    cJSON *snap = cJSON_Parse(text);
    if (!snap) fail_msg("snapshot --json is not JSON (%zu bytes)", len);

    char *p = tmp_png("builtin");
    char extra[64];
    snprintf(extra, sizeof extra, "--size %dx%d --views %d --belt 2000", width, height, count);
    render("", p, extra);
    image im = load_png(p);
    assert_int_equal(im.w, width);
    assert_int_equal(im.h, height);
    const unsigned char *bg = pixel(im, 0, 0); /* the target's clear colour: no body at a view's corner */
    for (int v = 0; v < count; v++) {
        int x0 = width * v / count, x1 = width * (v + 1) / count;
        const cJSON *cam = named(cJSON_GetObjectItem(snap, "cameras"), views[v].camera);
        const cJSON *body = named(cJSON_GetObjectItem(snap, "instances"), views[v].body);
        double w[16], mn[3], mx[3];
        json_numbers(body, "world", w, 16);
        json_numbers(cJSON_GetObjectItem(body, "bounds"), "min", mn, 3);
        json_numbers(cJSON_GetObjectItem(body, "bounds"), "max", mx, 3);
        /* the world centre of the local bounds; a sphere's radius is its box's half-extent times the
         * world scale (the sphere mesh is a unit sphere, uniformly scaled); for the rock, the radius of
         * the sphere through its box's corners, an upper bound */
        double lc[3], centre[3], radius = 0;
        for (int k = 0; k < 3; k++) lc[k] = (mn[k] + mx[k]) / 2;
        for (int k = 0; k < 3; k++) centre[k] = w[12 + k] + w[k] * lc[0] + w[4 + k] * lc[1] + w[8 + k] * lc[2];
        if (views[v].sphere) {
            radius = (mx[0] - mn[0]) / 2 * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        } else {
            for (int c = 0; c < 8; c++) {
                double h[3] = {(c & 1 ? mx[0] : mn[0]) - lc[0], (c & 2 ? mx[1] : mn[1]) - lc[1],
                               (c & 4 ? mx[2] : mn[2]) - lc[2]};
                double r2 = 0;
                for (int k = 0; k < 3; k++) {
                    double e = w[k] * h[0] + w[4 + k] * h[1] + w[8 + k] * h[2];
                    r2 += e * e;
                }
                radius = fmax(radius, sqrt(r2));
            }
        }
        projected pr = project(cam, centre, radius, x1 - x0, height);
        int px = x0 + (int)floor(pr.x), py = (int)floor(pr.y);
        print_message("%s in view %d: centre (%d, %d), expected radius %.1f px\n", views[v].body, v, px, py, pr.radius);
        assert_true(px >= x0 && px < x1 && py >= 0 && py < height);
        if (!memcmp(pixel(im, px, py), bg, 3))
            fail_msg("view %d (%s): the centre pixel (%d, %d) of %s is the clear colour", v, views[v].camera, px, py,
                     views[v].body);
        int r[4] = {extent(im, px, py, 1, 0, x0, x1, bg), extent(im, px, py, -1, 0, x0, x1, bg),
                    extent(im, px, py, 0, 1, x0, x1, bg), extent(im, px, py, 0, -1, x0, x1, bg)};
        print_message("  measured radius right %d, left %d, down %d, up %d\n", r[0], r[1], r[2], r[3]);
        for (int k = 0; k < 4; k++) {
            if (views[v].sphere && fabs(r[k] - pr.radius) > 3.0)
                fail_msg("view %d: %s's disc has radius %d px (direction %d), expected %.1f +- 3", v, views[v].body, r[k],
                         k, pr.radius);
            if (!views[v].sphere && r[k] > pr.radius + 1.0)
                fail_msg("view %d: %s reaches %d px from its centre, its bounds allow %.1f", v, views[v].body, r[k],
                         pr.radius);
        }
    }
    /* and the right body: Earth's disc is blue, Jupiter's is not */
    const unsigned char *earth = pixel(im, width / (2 * count), height / 2);
    const unsigned char *jupiter = pixel(im, width * 3 / (2 * count), height / 2);
    assert_true(earth[2] > earth[0]);
    assert_true(jupiter[0] > jupiter[2]);
    cJSON_Delete(snap);
    stbi_image_free(im.rgba);
    remove(p);
}

/* ---- the built-in orrery's monitor: a texture target showing cam_belt, seen from cam_sun ------------ */

static cJSON *builtin_snapshot(void)
{
    char *json_path = tmp_png("monitor_snapshot"), args[4096];
    snprintf(args, sizeof args, "snapshot --belt 0 --json > %s", json_path); /* the monitor and cam_sun: fixed */
    assert_int_equal(run(args), 0);
    FILE *f = fopen(json_path, "rb");
    assert_non_null(f);
    static char text[1 << 22];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    remove(json_path);
    text[len] = 0;
    cJSON *snap = cJSON_Parse(text);
    if (!snap) fail_msg("snapshot --json is not JSON (%zu bytes)", len);
    return snap;
}

static cJSON *stats_of(const char *args)
{
    assert_int_equal(run(args), 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("render --stats printed no JSON: %s", out);
    return j;
}

static int stat_int(const cJSON *j, const char *key)
{
    const cJSON *v = stat_at(j, key);
    if (!cJSON_IsNumber(v)) fail_msg("render --stats has no '%s'", key);
    return v->valueint;
}

static void test_builtin_monitor(void **state)
{
    (void)state;
    /* four views side by side; the last, cam_sun's, shows the monitor, whose screen is the 256 x 144
     * texture target drawn through cam_belt */
    const int count = 4, width = 1920, height = 540, vx0 = width * 3 / count, vw = width / count;
    cJSON *snap = builtin_snapshot();
    const cJSON *cam = named(cJSON_GetObjectItem(snap, "cameras"), "cam_sun");
    const cJSON *monitor = named(cJSON_GetObjectItem(snap, "instances"), "monitor");
    double cw[16], mw[16];
    json_numbers(cam, "world", cw, 16);
    json_numbers(monitor, "world", mw, 16);
    double t = tan(cJSON_GetObjectItem(cam, "yfov")->valuedouble / 2), aspect = (double)vw / height;
    /* the screen's centre (the monitor's origin) in camera space; it faces the camera squarely, so its
     * picture is its texture scaled evenly: 16 x 9 units of the monitor's scale */
    double d[3] = {mw[12] - cw[12], mw[13] - cw[13], mw[14] - cw[14]};
    double x = d[0] * cw[0] + d[1] * cw[1] + d[2] * cw[2], y = d[0] * cw[4] + d[1] * cw[5] + d[2] * cw[6];
    double z = d[0] * cw[8] + d[1] * cw[9] + d[2] * cw[10], scale = sqrt(mw[0] * mw[0] + mw[1] * mw[1] + mw[2] * mw[2]);
    assert_true(z < 0);
    double cx = vx0 + vw / 2.0 * (1 + x / -z / (t * aspect)), cy = height / 2.0 * (1 - y / -z / t);
    double hw = vw / 2.0 * (8 * scale / -z) / (t * aspect), hh = height / 2.0 * (4.5 * scale / -z) / t;
    print_message("monitor screen: centre (%.1f, %.1f), %.1f x %.1f px\n", cx, cy, 2 * hw, 2 * hh);
    assert_true(cx - hw >= vx0 && cx + hw <= vx0 + vw && cy - hh >= 0 && cy + hh <= height); /* all of it in view */
    cJSON_Delete(snap);

    char *p = tmp_png("monitor"), *b = tmp_png("belt"), args[4096];
    /* a belt dense enough that the belt camera sees many rocks */
    snprintf(args, sizeof args, "render --belt 20000 --size %dx%d --views %d --validation --stats -o %s", width, height,
             count, p);
    cJSON *st = stats_of(args);
    assert_int_equal(stat_int(st, "views.count"), 4);
    assert_int_equal(stat_int(st, "views.texture_targets"), 1);
    assert_int_equal(stat_int(st, "views.texture_views"), 1);
    assert_int_equal(stat_int(st, "views.texture_target_fallbacks"), 0);
    cJSON_Delete(st);
    /* what the screen shows: cam_belt at the texture target's size (the same settings and clear colour) */
    snprintf(args, sizeof args, "--belt 20000 --size 256x144 --views 1 --camera cam_belt");
    render("", b, args);
    image im = load_png(p), belt = load_png(b);
    assert_int_equal(belt.w, 256);
    const unsigned char *bg = pixel(im, 0, 0); /* the clear colour, the belt's background too */
    /* inside the screen (a margin off its edges): the pixels that show something (a rock) show it where
     * the belt render has one (or a neighbour of it: the screen is 1.16 x the texture's size) */
    long inside = 0, lit = 0, agree = 0;
    for (int py = (int)(cy - 0.8 * hh); py < (int)(cy + 0.8 * hh); py++)
        for (int px = (int)(cx - 0.8 * hw); px < (int)(cx + 0.8 * hw); px++) {
            inside++;
            const unsigned char *q = pixel(im, px, py);
            int off = abs(q[0] - bg[0]) + abs(q[1] - bg[1]) + abs(q[2] - bg[2]);
            if (off <= 12) continue;
            lit++;
            int u = (int)((px + 0.5 - (cx - hw)) / (2 * hw) * belt.w), v = (int)((py + 0.5 - (cy - hh)) / (2 * hh) * belt.h);
            bool seen = false;
            for (int dy = -1; dy <= 1 && !seen; dy++)
                for (int dx = -1; dx <= 1 && !seen; dx++) {
                    int bu = u + dx, bv = v + dy;
                    if (bu < 0 || bv < 0 || bu >= belt.w || bv >= belt.h) continue;
                    const unsigned char *r = pixel(belt, bu, bv);
                    seen = abs(r[0] - bg[0]) + abs(r[1] - bg[1]) + abs(r[2] - bg[2]) > 6;
                }
            agree += seen;
        }
    print_message("monitor: %ld of %ld screen pixels show a rock, %ld of them where the belt render has one\n", lit,
                  inside, agree);
    if (lit < 200) fail_msg("the monitor shows (nearly) nothing: %ld of %ld pixels", lit, inside);
    if (lit > inside / 2) fail_msg("the monitor is not the belt (white?): %ld of %ld pixels lit", lit, inside);
    if (agree < lit * 9 / 10) fail_msg("only %ld of %ld lit screen pixels match the belt render", agree, lit);
    stbi_image_free(im.rgba), stbi_image_free(belt.rgba);
    remove(p), remove(b);

    /* a view that does not show it (cam_earth's) still has the monitor's layer: it is drawn all the same */
    st = stats_of("render --belt 200 --size 64x36 --views 1 --stats -o /dev/null");
    assert_int_equal(stat_int(st, "views.texture_targets"), 1);
    cJSON_Delete(st);
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
    /* something was drawn: two blank images would agree too */
    long ca = covered(ia, 0, ia.w), cb = covered(ib, 0, ib.w);
    if (ca < 320 * 180 / 20) fail_msg("the scene at the origin is (nearly) empty: %ld pixels covered", ca);
    assert_true(labs(ca - cb) < ca / 50);
    long diff = 0;
    for (long k = 0; k < (long)ia.w * ia.h * 4; k++) diff += abs((int)ia.rgba[k] - (int)ib.rgba[k]) > 2;
    assert_true(diff < (long)ia.w * ia.h / 100); /* fewer than 1% of channels differ by more than 2 */
    stbi_image_free(ia.rgba), stbi_image_free(ib.rgba);
    remove(a), remove(b);
}

/* Mean absolute channel difference, and the share of channels that differ by more than 8. */
static void compare(image a, image b, double *mean, double *share)
{
    assert_int_equal(a.w, b.w);
    assert_int_equal(a.h, b.h);
    double sum = 0;
    long big = 0, n = (long)a.w * a.h * 4;
    for (long k = 0; k < n; k++) {
        int d = abs((int)a.rgba[k] - (int)b.rgba[k]);
        sum += d;
        big += d > 8;
    }
    *mean = sum / (double)n, *share = (double)big / (double)n;
}

/* gltfpack outputs of real samples render as the originals: -c -noq (meshopt-compressed, full
 * precision) within rasterisation noise (gltfpack reorders vertices and triangles, so edges may round
 * differently), -cc (quantized, filtered) within quantization error. */
static void test_meshopt_renders_like_original(void **state)
{
    (void)state;
    if (system("command -v gltfpack >/dev/null 2>&1") != 0) {
        const char *req = getenv("ORRERY_REQUIRE_ASSETS");
        if (req && *req) fail_msg("gltfpack is not installed (scripts/setup.sh installs it)");
        orrt_skip("gltfpack is not installed (scripts/setup.sh installs it)");
    }
    const char *models[] = {"gltf/CesiumMilkTruck/CesiumMilkTruck.gltf", "gltf/BoxTextured/BoxTextured.gltf",
                            "gltf/CesiumMan/CesiumMan.gltf"};
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        char orig[4096], cmd[16384], plain[256], lossless[256], quant[256];
        snprintf(orig, sizeof orig, "%s", orrt_asset(models[k]));
        snprintf(plain, sizeof plain, "%s/plain.glb", orrt_scratch("e2e"));
        snprintf(lossless, sizeof lossless, "%s/lossless.glb", orrt_scratch("e2e"));
        snprintf(quant, sizeof quant, "%s/quant.glb", orrt_scratch("e2e"));
        snprintf(cmd, sizeof cmd,
                 "gltfpack -i '%s' -o %s -noq >/dev/null 2>&1 && gltfpack -i '%s' -o %s -c -noq >/dev/null 2>&1 && "
                 "gltfpack -i '%s' -o %s -cc >/dev/null 2>&1",
                 orig, plain, orig, lossless, orig, quant);
        assert_int_equal(system(cmd), 0);
        char *po = tmp_png("orig"), *pp = tmp_png("plain"), *pl = tmp_png("lossless"), *pq = tmp_png("quant");
        render(orig, po, "--size 320x180 --views 1");
        render(plain, pp, "--size 320x180 --views 1");
        render(lossless, pl, "--size 320x180 --views 1");
        render(quant, pq, "--size 320x180 --views 1");
        image io = load_png(po), ip = load_png(pp), il = load_png(pl), iq = load_png(pq);
        double mean, share;
        assert_true(covered(io, 0, io.w) > 320 * 180 / 20);
        /* compressed and uncompressed output of the same gltfpack run: the same geometry, so the same
         * image but for triangle order (depth ties on shared edges) */
        compare(ip, il, &mean, &share);
        print_message("%s: -c -noq vs -noq: mean %.4f, %.3f%% of channels off by > 8\n", models[k], mean, share * 100);
        if (mean > 0.05 || share > 0.001) fail_msg("%s -c -noq vs -noq: mean %.4f, share %.4f", models[k], mean, share);
        /* and the original (gltfpack resamples animations at 30 Hz, so a skinned pose may move a little) */
        compare(io, il, &mean, &share);
        print_message("%s: -c -noq vs the original: mean %.3f, %.3f%% of channels off by > 8\n", models[k], mean, share * 100);
        if (mean > 1.0 || share > 0.015) fail_msg("%s -c -noq: mean %.3f, share %.4f", models[k], mean, share);
        compare(io, iq, &mean, &share);
        print_message("%s: -cc vs the original: mean %.3f, %.3f%% of channels off by > 8\n", models[k], mean, share * 100);
        if (mean > 1.5 || share > 0.03) fail_msg("%s -cc: mean %.3f, share %.4f", models[k], mean, share);
        stbi_image_free(io.rgba), stbi_image_free(ip.rgba), stbi_image_free(il.rgba), stbi_image_free(iq.rgba);
        remove(po), remove(pp), remove(pl), remove(pq), remove(plain), remove(lossless), remove(quant);
    }
}

/* Every real file of gltf-ext renders something (the KTX2 one is refused by name, exit 1). */
static void test_ext_files_render(void **state)
{
    (void)state;
    const char *files[] = {"gltf-ext/BoxDraco/Box.gltf", "gltf-ext/MorphPrimitivesTestDraco/MorphPrimitivesTest.glb",
                           "gltf-ext/GltfPipeline_BoxTexturedWebP/box-textured-separate.gltf",
                           "gltf-ext/GltfPipeline_BoxTexturedWebP/box-textured-with-fallback.gltf",
                           "gltf-ext/GltfPipeline_BoxTexturedWebP/box-textured-embedded.gltf"};
    image first_webp = {0};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char path[4096];
        snprintf(path, sizeof path, "'%s'", orrt_asset(files[k]));
        char *p = tmp_png("ext");
        render(path, p, "--size 160x120 --views 1");
        image im = load_png(p);
        if (covered(im, 0, im.w) < 160 * 120 / 20) fail_msg("%s: the image is (nearly) empty", files[k]);
        if (strstr(files[k], "WebP")) { /* the three WebP variants draw the same picture */
            if (!first_webp.rgba) first_webp = im, im.rgba = NULL;
            else assert_true(same_pixels(first_webp, im));
        }
        stbi_image_free(im.rgba);
        remove(p);
    }
    stbi_image_free(first_webp.rgba);
    char args[4096];
    snprintf(args, sizeof args, "render '%s' -o /dev/null --size 16x16 2>&1",
             orrt_asset("gltf-ext/glTFast_TextureVariantsKTX/TextureVariants-Embedded-KTX.gltf"));
    assert_int_equal(run(args), 1);
    if (!strstr(out, "KHR_texture_basisu")) fail_msg("the refusal does not name KHR_texture_basisu: %s", out);
}

/* The meshlet strategy renders the bytes of the indirect strategy (the same meshes, built with meshlets
 * for both, so that both draw the same index order), through two views with validation and
 * synchronization validation on, for sample models of every kind: plain, textured, cut-out and blended
 * (blended surfaces go the indexed path), instanced, skinned and morphed (the indexed path, counted by
 * reason). The GPU's counts come with --stats. */
static void test_meshlet_renders_like_indirect(void **state)
{
    (void)state;
    static const struct {
        const char *file, *extra;
        const char *indexed; /* the reason the sample's surfaces go the indexed path, or NULL: none does */
    } samples[] = {
        {"gltf/CesiumMilkTruck/CesiumMilkTruck.gltf", "", NULL},
        {"gltf/Blender_02_shared_mesh/02_shared_mesh.gltf", "--instances 9", NULL},
        {"gltf/TextureTransformTest/TextureTransformTest.gltf", "", NULL},
        {"gltf/Blender_01_alpha_mask/01_alpha_mask.gltf", "", NULL},
        {"gltf/Blender_01_alpha_blend/01_alpha_blend.gltf", "", "blended"},
        {"gltf/BoxTextured/BoxTextured.gltf", "", NULL},
        {"gltf/CesiumMan/CesiumMan.gltf", "--time 0.5", "skinned"},
        {"gltf/MorphPrimitivesTest/MorphPrimitivesTest.gltf", "", "morphed"},
    };
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        const char *file = orrt_asset(samples[k].file);
        char *a = tmp_png("meshlet_indirect"), *b = tmp_png("meshlet"), extra[512];
        snprintf(extra, sizeof extra, "--size 320x180 --views 2 --meshlets --strategy indirect %s", samples[k].extra);
        render(file, a, extra);
        snprintf(extra, sizeof extra, "--size 320x180 --views 2 --strategy meshlet %s", samples[k].extra);
        render(file, b, extra);
        image ia = load_png(a), ib = load_png(b);
        assert_true(covered(ia, 0, ia.w) > 500);
        if (!same_pixels(ia, ib)) fail_msg("%s: the meshlet strategy's image %s differs from indirect's %s", file, b, a);
        snprintf(extra, sizeof extra, "--views 2 --strategy meshlet %s", samples[k].extra);
        cJSON *j = stats(file, extra);
        cJSON *m = cJSON_GetObjectItem(j, "meshlets");
        if (!m) fail_msg("%s: --stats has no meshlets object", file);
        assert_int_equal(num(m, "views"), 2);
        cJSON *indexed = cJSON_GetObjectItem(m, "indexed");
        print_message("%s: path %s, meshlets sent %.0f kept %.0f, triangles sent %.0f kept %.0f, indexed %.0f\n",
                      samples[k].file, cJSON_GetObjectItem(m, "path")->valuestring, num(m, "sent"), num(m, "kept"),
                      num(m, "triangles_sent"), num(m, "triangles_kept"), num(m, "triangles_indexed"));
        assert_true(num(m, "kept") <= num(m, "sent"));
        assert_int_equal(num(indexed, "no_meshlets"), 0);
        if (samples[k].indexed) {
            assert_true(num(indexed, samples[k].indexed) >= 1);
            assert_true(num(m, "triangles_indexed") > 0);
        } else {
            assert_true(num(m, "sent") > 0);
            assert_int_equal(num(m, "triangles_indexed"), 0);
        }
        cJSON_Delete(j);
        stbi_image_free(ia.rgba), stbi_image_free(ib.rgba);
        remove(a), remove(b);
    }
}

/* Groups: "own" (the built-in scene: needs nothing outside the repository), "samples" (sample
 * models), "replay" and "render_thread"; CTest runs them as the entries e2e, e2e_samples, e2e_replay
 * and e2e_render_thread. */
int main(void)
{
    const struct CMUnitTest own[] = {
        cmocka_unit_test(test_builtin_orrery_renders), cmocka_unit_test(test_builtin_monitor),
        cmocka_unit_test(test_soak_live_loop),        cmocka_unit_test(test_golden_tolerance),
        cmocka_unit_test(test_api_misuse),            cmocka_unit_test(test_non_finite_poses_refused),
#ifndef NDEBUG
        cmocka_unit_test(test_double_destroy_caught_in_debug), /* a debug build's catch */
#endif
    };
    const struct CMUnitTest samples[] = {
        cmocka_unit_test(test_sample_two_views_matches_golden), cmocka_unit_test(test_strategies_render_the_same_bytes),
        cmocka_unit_test(test_stats_show_dedup), cmocka_unit_test(test_far_offset_renders_like_origin),
        cmocka_unit_test(test_meshopt_renders_like_original), cmocka_unit_test(test_ext_files_render),
        cmocka_unit_test(test_sample_goldens),    cmocka_unit_test(test_best_practices_truck),
        cmocka_unit_test(test_render_file_cameras), cmocka_unit_test(test_render_msaa),
        cmocka_unit_test(test_shell_strategy_samples), cmocka_unit_test(test_fur_through_the_tool),
        cmocka_unit_test(test_meshlet_renders_like_indirect), cmocka_unit_test(test_reference_vertices),
        cmocka_unit_test(test_lean_pipelines_shade_like_full), cmocka_unit_test(test_pick_skinned_sample),
        cmocka_unit_test(test_interpolation_skinned_sample), cmocka_unit_test(test_msft_lod_drawn),
    };
    const struct CMUnitTest replay[] = {
        cmocka_unit_test(test_replay_builtin),
        cmocka_unit_test(test_replay_samples),
        cmocka_unit_test(test_replay_view),
    };
    const struct CMUnitTest render_thread[] = {
        cmocka_unit_test(test_render_thread_same_images),
        cmocka_unit_test(test_interpolation_linear_in_time), cmocka_unit_test(test_interpolation_camera_follows),
        cmocka_unit_test(test_interpolation_teleport),
    };
    const char *only = getenv("ORRT_FILTER"); /* a pattern of test names (cmocka's: * and ?) */
    if (only && *only) cmocka_set_test_filter(only);
    int failed = 0;
    if (orrt_group_selected("own")) failed += cmocka_run_group_tests_name("e2e: built-in scene", own, NULL, NULL);
    if (orrt_group_selected("samples")) failed += cmocka_run_group_tests_name("e2e: sample models", samples, NULL, NULL);
    if (orrt_group_selected("replay")) failed += cmocka_run_group_tests_name("e2e: record and replay", replay, NULL, NULL);
    if (orrt_group_selected("render_thread"))
        failed += cmocka_run_group_tests_name("e2e: the render thread", render_thread, NULL, NULL);
    return orrt_exit_status(failed);
}
