/* Record and replay through the tool: `orrery replay REC --frame K` writes the same PNG bytes as
 * `orrery render FILE --time K/60` (same size, views and strategy) for an animated, a skinned, a
 * morphed and an instanced sample and the built-in orrery; replaying twice gives the same bytes;
 * `snapshot REC --frame K --json` prints what `snapshot FILE --time K/60 --json` prints, but for the
 * frame number and the world revision, which the live loop and a one-frame run count differently (the
 * recording starts by posing tick 0, one more edit of the world). `orrery view REC --offscreen` plays
 * the recording, paused, stepped and looped by scripted keys, and shows the bytes replay gives for the
 * frame it should be at. */
#include "e2e_tests.h"

#include <cjson/cJSON.h>
#include <stb/stb_image.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *scratch_file(const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", orrt_scratch("e2e"), name);
    return p;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("%s was not written", path);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = malloc(*size ? *size : 1);
    assert_int_equal(fread(d, 1, *size, f), *size);
    fclose(f);
    return d;
}

/* Whether two files hold the same bytes (and the image is not blank: a test of two black frames proves
 * nothing). */
static void expect_same_png(const char *a, const char *b, const char *what)
{
    size_t na, nb;
    unsigned char *da = slurp(a, &na), *db = slurp(b, &nb);
    if (na != nb || memcmp(da, db, na) != 0) fail_msg("%s: %s and %s differ (%zu and %zu bytes)", what, a, b, na, nb);
    free(da);
    free(db);
    image im = load_png(a);
    long lit = 0;
    for (int i = 0; i < im.w * im.h; i++) lit += im.rgba[i * 4] > 8 || im.rgba[i * 4 + 1] > 8 || im.rgba[i * 4 + 2] > 8;
    if (lit < im.w * im.h / 200) fail_msg("%s: %s is nearly blank (%ld lit pixels)", what, a, lit);
    stbi_image_free(im.rgba);
}

/* The snapshot JSON without what the live loop counts otherwise (frame, revision). */
static char *json_of(const char *args)
{
    char cmd[4096], *path = scratch_file("snapshot.json");
    snprintf(cmd, sizeof cmd, "snapshot %s --json > %s", args, path);
    if (run(cmd) != 0) fail_msg("orrery %s failed: %.400s", cmd, out);
    size_t size;
    unsigned char *bytes = slurp(path, &size);
    cJSON *j = cJSON_ParseWithLength((const char *)bytes, size);
    free(bytes);
    remove(path);
    if (!j) fail_msg("orrery %s: not JSON", cmd);
    cJSON_DeleteItemFromObjectCaseSensitive(j, "frame");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "revision");
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}

/* `thorough`: also replayed twice, and a range read in order against --frame. */
static void record_and_compare(const char *label, const char *file, const char *scene_args, const uint32_t *frames,
                               int n, const char *view_args, bool thorough)
{
    char rec[512], args[8192];
    snprintf(rec, sizeof rec, "%s", scratch_file("replay_test.orrec"));
    uint32_t last = frames[n - 1];
    snprintf(args, sizeof args, "record %s %s -o %s --frames %u --quiet 2>&1", file, scene_args, rec, last + 1);
    if (run(args) != 0) fail_msg("%s: record failed: %.400s", label, out);
    for (int k = 0; k < n; k++) {
        char *r = scratch_file("replayed.png"), *d = scratch_file("rendered.png"), *again = scratch_file("again.png");
        snprintf(args, sizeof args, "replay %s --frame %u %s -o %s 2>&1", rec, frames[k], view_args, r);
        if (run(args) != 0) fail_msg("%s: replay --frame %u failed: %.400s", label, frames[k], out);
        snprintf(args, sizeof args, "render %s %s --time %.17g %s -o %s --quiet 2>&1", file, scene_args,
                 frames[k] / 60.0, view_args, d);
        if (run(args) != 0) fail_msg("%s: render failed: %.400s", label, out);
        char what[256];
        snprintf(what, sizeof what, "%s frame %u: replay against render", label, frames[k]);
        expect_same_png(r, d, what);
        if (k != n - 1) continue;
        if (thorough) {
            snprintf(args, sizeof args, "replay %s --frame %u %s -o %s 2>&1", rec, frames[k], view_args, again);
            assert_int_equal(run(args), 0);
            snprintf(what, sizeof what, "%s frame %u: replayed twice", label, frames[k]);
            expect_same_png(r, again, what);
        }
        /* the snapshot read back is the one render extracts */
        char rec_args[1024], file_args[4096];
        snprintf(rec_args, sizeof rec_args, "%s --frame %u", rec, frames[k]);
        snprintf(file_args, sizeof file_args, "%s %s --time %.17g --quiet", file, scene_args, frames[k] / 60.0);
        char *a = json_of(rec_args), *b = json_of(file_args);
        if (strcmp(a, b) != 0) fail_msg("%s frame %u: snapshot of the recording differs from the file's", label, frames[k]);
        free(a);
        free(b);
    }
    if (!thorough) {
        remove(rec);
        print_message("%s: frames replayed as rendered, byte for byte\n", label);
        return;
    }
    /* a range (the last two frames, read in order): the last one's PNG the same as --frame gives */
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s", scratch_file("range%03d.png"));
    char *one = scratch_file("one.png");
    snprintf(args, sizeof args, "replay %s --frames %u:%u --out-pattern %s %s 2>&1", rec, last - 1, last, pattern,
             view_args);
    if (run(args) != 0) fail_msg("%s: replay --frames failed: %.400s", label, out);
    snprintf(args, sizeof args, "replay %s --frame %u %s -o %s 2>&1", rec, last, view_args, one);
    assert_int_equal(run(args), 0);
    char name[600];
    snprintf(name, sizeof name, pattern, last);
    expect_same_png(name, one, "a range's last frame against --frame");
    for (uint32_t f = last - 1; f <= last; f++) {
        snprintf(name, sizeof name, pattern, f);
        remove(name);
    }
    print_message("%s: frames replayed as rendered, byte for byte\n", label);
    remove(rec);
}

void test_replay_samples(void **state)
{
    (void)state;
    static const uint32_t frames[] = {0, 61}, last[] = {61};
    static const struct {
        const char *label, *file, *scene, *view;
    } cases[] = {
        {"animated truck", "gltf/CesiumMilkTruck/CesiumMilkTruck.gltf", "", "--size 320x180 --views 2"},
        {"skinned CesiumMan", "gltf/CesiumMan/CesiumMan.gltf", "", "--size 240x240 --views 1 --strategy indirect"},
        {"morphed cube", "gltf/AnimatedMorphCube/AnimatedMorphCube.gltf", "", "--size 200x160 --views 1 --strategy direct"},
        {"instanced", "gltf/Blender_24_gpu_instancing/24_gpu_instancing.gltf", "--instances 3", "--size 320x180 --views 3"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char file[1024];
        snprintf(file, sizeof file, "'%s'", orrt_asset(cases[c].file));
        /* the truck at two frames, thoroughly; the others at one */
        if (c == 0) record_and_compare(cases[c].label, file, cases[c].scene, frames, 2, cases[c].view, true);
        else record_and_compare(cases[c].label, file, cases[c].scene, last, 1, cases[c].view, false);
    }
    /* Two of the truck's resources are equal under two ids: the second is stored as a reference to the
     * first (and replays as rendered, above). */
    char *rec = scratch_file("shared.orrec"), args[2048];
    snprintf(args, sizeof args, "record '%s' -o %s --frames 1 2>&1", orrt_asset("gltf/CesiumMilkTruck/CesiumMilkTruck.gltf"), rec);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "replay %s --info --json", rec);
    assert_int_equal(run(args), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    cJSON *res = cJSON_GetObjectItem(j, "resources");
    assert_int_equal(cJSON_GetObjectItem(res, "materials")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(res, "shared")->valueint, 1);
    cJSON_Delete(j);
    remove(rec);
}

void test_replay_builtin(void **state)
{
    (void)state;
    static const uint32_t frames[] = {0, 40};
    record_and_compare("built-in orrery", "", "--belt 3000", frames, 2, "--size 480x135 --views 4", true);
    /* --info says what is in it */
    char *rec = scratch_file("info.orrec"), args[1024];
    snprintf(args, sizeof args, "record --belt 500 -o %s --frames 301 2>&1", rec);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "replay %s --info --json", rec);
    assert_int_equal(run(args), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "frames")->valueint, 301);
    assert_int_equal(cJSON_GetObjectItem(j, "key_frames")->valueint, 2); /* at least every 300 frames */
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "resources"), "meshes")->valueint > 3);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "builtin")));
    cJSON_Delete(j);
    /* frames past the end, a broken recording: refused */
    snprintf(args, sizeof args, "replay %s --frame 301 2>&1", rec);
    assert_int_equal(run(args), 2);
    assert_non_null(strstr(out, "301 frames"));
    FILE *f = fopen(rec, "r+b");
    fseek(f, 200, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    snprintf(args, sizeof args, "replay %s --frame 3 2>&1", rec);
    assert_int_equal(run(args), 1);
    assert_non_null(strstr(out, "at byte"));
    remove(rec);
}

/* The PNG of `replay REC --frame K` with the view's options, at `path`. */
static void replayed(const char *rec, uint32_t k, const char *opts, const char *path)
{
    char args[4096];
    snprintf(args, sizeof args, "replay %s --frame %u %s -q -o %s 2>&1", rec, k, opts, path);
    if (run(args) != 0) fail_msg("replay --frame %u failed: %.400s", k, out);
}

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *da = slurp(a, &na), *db = slurp(b, &nb);
    bool same = na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

void test_replay_view(void **state)
{
    (void)state;
    char rec[512], args[8192];
    snprintf(rec, sizeof rec, "%s", scratch_file("view.orrec"));
    snprintf(args, sizeof args, "record '%s' -o %s --frames 40 --quiet 2>&1",
             orrt_asset("gltf/CesiumMilkTruck/CesiumMilkTruck.gltf"), rec);
    if (run(args) != 0) fail_msg("record failed: %.400s", out);
    static const char opts[] = "--size 160x90 --views 1 --strategy indirect";
    /* scripted keys, the frames run, and the recorded frame the last one shows: plain (one frame a loop),
     * paused and resumed, stepped on by N and Right while paused, stepped back by P past frame 0 (the
     * end, then a seek back from the key frame), and looped past the end */
    static const struct {
        const char *what, *keys;
        uint32_t frames, expect, otherwise;
    } cases[] = {
        {"played", "", 31, 30, 29},
        {"paused at 3, resumed at 6", "3:space,6:space", 12, 8, 11},
        {"stepped on while paused", "1:space,2:n,3:right", 5, 2, 4},
        {"stepped back past the start", "2:p,3:p,4:left", 6, 38, 5},
        {"looped", "", 45, 4, 39},
    };
    char *shot = scratch_file("view_shot.png"), *want = scratch_file("view_want.png"), *other = scratch_file("view_other.png");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        snprintf(args, sizeof args, "view %s --offscreen --frames %u %s%s %s --validation --screenshot %s -q 2>&1", rec,
                 cases[c].frames, cases[c].keys[0] ? "--keys " : "", cases[c].keys, opts, shot);
        int status = run(args);
        if (status != 0 && strstr(out, "without a window system")) skip();
        if (status != 0) fail_msg("view REC, %s: exit %d: %.400s", cases[c].what, status, out);
        replayed(rec, cases[c].expect, opts, want);
        char what[256];
        snprintf(what, sizeof what, "view REC %s: its last frame against replay --frame %u", cases[c].what,
                 cases[c].expect);
        expect_same_png(shot, want, what);
        /* the frame it would show had the keys done nothing else: other bytes (else the case proves nothing) */
        replayed(rec, cases[c].otherwise, opts, other);
        if (same_file(want, other))
            fail_msg("view REC %s: frames %u and %u of the recording look the same", cases[c].what, cases[c].expect,
                     cases[c].otherwise);
        print_message("view REC, %s: frame %u, as replay draws it\n", cases[c].what, cases[c].expect);
    }
    /* a recording takes no scene option; a broken one is refused with the reader's message */
    snprintf(args, sizeof args, "view %s --offscreen --frames 1 --instances 2 2>&1", rec);
    assert_int_equal(run(args), 2);
    assert_non_null(strstr(out, "is a recording"));
    FILE *f = fopen(rec, "r+b");
    fseek(f, 200, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    snprintf(args, sizeof args, "view %s --offscreen --frames 1 %s 2>&1", rec, opts);
    assert_int_equal(run(args), 1);
    assert_non_null(strstr(out, "at byte"));
    remove(rec);
    remove(shot);
    remove(want);
    remove(other);
}
