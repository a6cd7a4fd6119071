/* The tool against input meant to lose data or never end (issue 31): outputs that are inputs or
 * read-only, times that would run for days, repeated options, output that must stay valid JSON. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <orrery/gpu.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int orrt_cli_hardening(void);

static char out[1 << 20], err_out[1 << 16];

/* Runs `PREFIX TOOL ARGS` with stdout in `out` and stderr in `err_out`; returns the exit status. */
static int run_as(const char *prefix, const char *args)
{
    char errf[128], cmd[4096];
    snprintf(errf, sizeof errf, "/tmp/orrery_hard_err_%d.txt", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s %s %s 2>%s", prefix, orrt_tool(), args, errf);
    int status = orrt_run(cmd, out, sizeof out);
    FILE *f = fopen(errf, "rb");
    size_t n = f ? fread(err_out, 1, sizeof err_out - 1, f) : 0;
    err_out[n] = 0;
    if (f) fclose(f);
    remove(errf);
    return status;
}

static int run(const char *args) { return run_as("", args); }

static const char *scratch(void)
{
    static char dir[128];
    snprintf(dir, sizeof dir, "/tmp/orrery_hard_%d", (int)getpid());
    mkdir(dir, 0777);
    chmod(dir, 0777); /* an ordinary user writes here too */
    return dir;
}

static int scratch_remove(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch());
    return system(cmd) == 0 ? 0 : -1;
}

static int scratch_fresh(void **state)
{
    int r = scratch_remove(state);
    scratch();
    return r;
}

static const char *in_scratch(const char *name)
{
    static char path[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(path[k], sizeof path[k], "%s/%s", scratch(), name);
    return path[k];
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* The whole file (NUL-terminated) in a malloc'd buffer; *size its length. */
static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    if (size) *size = (size_t)n;
    return b;
}

/* A triangle in an external buffer tri.bin, one node named `name` (written as given: raw bytes). */
static const char *write_model(const char *file, const char *name)
{
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    write_bytes(in_scratch("tri.bin"), pos, sizeof pos);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"name\":\"%s\",\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1,0]}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
             "\"buffers\":[{\"byteLength\":36,\"uri\":\"tri.bin\"}]}",
             name);
    const char *path = in_scratch(file);
    write_bytes(path, json, strlen(json));
    return path;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

static bool is_png(const char *path)
{
    unsigned char magic[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t n = fread(magic, 1, 8, f);
    fclose(f);
    return n == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8);
}

/* ---- item 2: no command destroys the user's data ------------------------------------------ */

/* The output is refused, exit 1, when it is the model (by name, through a symlink, through a hard
 * link), a non-PNG file (the model's buffer), or a file the user may not write; the file is untouched. */
static void test_output_never_replaces_an_input(void **state)
{
    (void)state;
    const char *model = write_model("m.gltf", "box");
    size_t size;
    char *before = read_all(model, &size);
    const char *sym = in_scratch("sym.png"), *hard = in_scratch("hard.png");
    assert_int_equal(symlink(model, sym), 0);
    assert_int_equal(link(model, hard), 0);
    const char *targets[] = {model, sym, hard, in_scratch("tri.bin")};
    for (size_t i = 0; i < 4; i++) {
        char args[1024];
        snprintf(args, sizeof args, "render %s --size 8x8 --views 1 -o %s", model, targets[i]);
        int status = run(args);
        if (status != 1 || !strstr(err_out, "refusing to replace")) fail_msg("'%s': exit %d, %s", args, status, err_out);
        snprintf(args, sizeof args, "view %s --offscreen --size 8x8 --frames 1 --screenshot %s", model, targets[i]);
        status = run(args);
        if (status != 1 || !strstr(err_out, "refusing to replace")) fail_msg("'%s': exit %d, %s", args, status, err_out);
        snprintf(args, sizeof args, "record %s --frames 1 -o %s", model, targets[i]);
        status = run(args);
        if (status != 1 || !strstr(err_out, "refusing to replace")) fail_msg("'%s': exit %d, %s", args, status, err_out);
    }
    /* a replay never writes over its recording, and a recording never over an image */
    const char *rec = in_scratch("m.orrec"), *png = in_scratch("m.png");
    char args[1024];
    snprintf(args, sizeof args, "record %s --frames 2 --quiet -o %s", model, rec);
    assert_int_equal(run(args), 0);
    size_t rec_size;
    char *rec_before = read_all(rec, &rec_size);
    snprintf(args, sizeof args, "replay %s --size 8x8 --frame 1 -o %s", rec, rec);
    if (run(args) != 1 || !strstr(err_out, "is the input file")) fail_msg("'%s': %s", args, err_out);
    snprintf(args, sizeof args, "replay %s --size 8x8 --frame 1 -o %s", rec, png);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "record %s --frames 1 -o %s", model, png);
    if (run(args) != 1 || !strstr(err_out, "is not a recording")) fail_msg("'%s': %s", args, err_out);
    size_t rec_after_size;
    char *rec_after = read_all(rec, &rec_after_size);
    assert_int_equal(rec_after_size, rec_size);
    assert_memory_equal(rec_after, rec_before, rec_size);
    free(rec_after);
    free(rec_before);
    size_t after_size;
    char *after = read_all(model, &after_size);
    assert_int_equal(after_size, size);
    assert_memory_equal(after, before, size);
    free(after);
    free(before);
    after = read_all(in_scratch("tri.bin"), &after_size);
    assert_int_equal(after_size, 36);
    free(after);
}

/* A read-only PNG stays as it is (root included); a writable one is replaced and keeps its mode. */
static void test_output_keeps_permissions(void **state)
{
    (void)state;
    const char *ro = in_scratch("ro.png"), *rw = in_scratch("rw.png");
    char args[1024];
    snprintf(args, sizeof args, "render --size 8x8 --views 1 -o %s", ro);
    assert_int_equal(run(args), 0);
    size_t size;
    char *before = read_all(ro, &size);
    assert_int_equal(chmod(ro, 0444), 0);
    snprintf(args, sizeof args, "render --size 16x16 --views 1 -o %s", ro);
    if (run(args) != 1 || !strstr(err_out, "read-only (mode 0444)")) fail_msg("%s", err_out);
    assert_int_equal(mode_of(ro), 0444);
    size_t after_size;
    char *after = read_all(ro, &after_size);
    assert_int_equal(after_size, size);
    assert_memory_equal(after, before, size);
    free(after);
    free(before);
    /* the library refuses it too, whoever calls it */
    uint8_t px[4] = {1, 2, 3, 255};
    orr_error err = {0};
    assert_int_equal(orr_gpu_write_png(ro, 1, 1, px, &err), ORR_ERROR_IO);
    assert_non_null(strstr(err.message, "read-only"));
    assert_int_equal(mode_of(ro), 0444);

    snprintf(args, sizeof args, "render --size 8x8 --views 1 -o %s", rw);
    assert_int_equal(run(args), 0);
    assert_int_equal(chmod(rw, 0640), 0);
    snprintf(args, sizeof args, "render --size 16x16 --views 1 -o %s", rw);
    assert_int_equal(run(args), 0);
    assert_int_equal(mode_of(rw), 0640);
    assert_true(is_png(rw));
    assert_int_equal(orr_gpu_write_png(rw, 1, 1, px, &err), ORR_OK);
    assert_int_equal(mode_of(rw), 0640);

    /* as an ordinary user (nobody), in a folder anybody may write: the read-only file is refused, the
     * user's own output is written */
    if (geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0) {
        const char *as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
        assert_int_equal(chmod(ro, 0644), 0); /* root's, writable by root alone */
        snprintf(args, sizeof args, "render --size 8x8 --views 1 -o %s", ro);
        int status = run_as(as_nobody, args);
        if (status != 1 || !strstr(err_out, "read-only (mode 0644)")) fail_msg("exit %d: %s", status, err_out);
        assert_int_equal(mode_of(ro), 0644);
        const char *mine = in_scratch("mine.png");
        snprintf(args, sizeof args, "render --size 8x8 --views 1 -o %s", mine);
        status = run_as(as_nobody, args);
        if (status != 0) fail_msg("as nobody: exit %d: %s", status, err_out);
        assert_true(is_png(mine));
    }
}

/* ---- item 4: values a command accepts finish ---------------------------------------------- */

/* The largest --ticks and --time: one tick's work (counted by serve), the tick reached exact. Before,
 * 1e8 ticks one by one: hours. */
static void test_largest_times_finish(void **state)
{
    (void)state;
    assert_int_equal(run("serve --belt 1000 --ticks 100000000 --json"), 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("serve --json: not JSON: %s", out);
    assert_int_equal(cJSON_GetObjectItem(j, "ticks")->valuedouble, 100000000.0);
    assert_int_equal(cJSON_GetObjectItem(j, "simulated")->valuedouble, 1.0);
    assert_int_equal(cJSON_GetObjectItem(j, "extractions")->valuedouble, 0.0);
    cJSON_Delete(j);
    assert_int_equal(run("serve --belt 1000 --ticks 100000000 --time 10000000 --json"), 0);
    j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "ticks")->valuedouble, 700000000.0);
    cJSON_Delete(j);
    assert_int_equal(run("snapshot --belt 1000 --time 1e7"), 0);
    if (!strstr(out, "tick 600000000,")) fail_msg("%s", out);
    /* a file's clip at a large time is the clip at that time modulo its length */
    const char *model = write_model("m.gltf", "box");
    char args[512];
    snprintf(args, sizeof args, "snapshot %s --time 1e7 --json", model);
    assert_int_equal(run(args), 0);
    j = cJSON_Parse(out);
    if (!j) fail_msg("not JSON: %s", out);
    assert_int_equal(cJSON_GetObjectItem(j, "tick")->valuedouble, 600000000.0);
    cJSON_Delete(j);
}

/* ---- item 6: output is valid whatever the input ------------------------------------------- */

/* Whether s[0..n) is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF). */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (!len || i + len > n) return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80) return false;
        if (len == 3 && ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] >= 0xa0))) return false;
        if (len == 4 && ((c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] >= 0x90))) return false;
        i += len;
    }
    return true;
}

/* A node name of raw bytes that are not UTF-8 (a lone continuation byte, an overlong form, a
 * surrogate, 0xff) and escaped control characters: snapshot --json is still JSON, in UTF-8, with
 * every control character escaped. Before: the bytes were written raw. */
static void test_json_output_is_valid(void **state)
{
    (void)state;
    const char *model = write_model("odd.gltf", "a\x80" "b\xc0\xaf\xed\xa0\x80\xff\\u0001\\u001f\\\"q\\\\\x7f\xc3\xa9");
    char args[512];
    snprintf(args, sizeof args, "snapshot %s --json --quiet", model);
    assert_int_equal(run(args), 0);
    size_t n = strlen(out);
    if (!valid_utf8((const unsigned char *)out, n)) fail_msg("snapshot --json is not UTF-8: %s", out);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)out[i] < 0x20 && out[i] != '\n') fail_msg("a raw control character 0x%02x at %zu", out[i], i);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("snapshot --json is not JSON: %s", out);
    cJSON *entity = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "instances"), 0), "entity");
    assert_true(cJSON_IsString(entity));
    const char *name = entity->valuestring;
    /* what was text stays: the plain letters, the escapes decoded, the e-acute */
    assert_non_null(strstr(name, "\"q\\"));
    assert_non_null(strstr(name, "\xc3\xa9"));
    assert_non_null(strchr(name, '\x01'));
    assert_int_equal(name[0], 'a');
    cJSON_Delete(j);
}

/* ---- item 9: options --------------------------------------------------------------------- */

static unsigned lines_with(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[2048];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        n += strstr(buf, needle) != NULL;
        line += len + (end != NULL);
    }
    return n;
}

static void test_options(void **state)
{
    (void)state;
    /* an option of one value given twice is refused, naming both; nothing is written */
    const char *a = in_scratch("a.png"), *b = in_scratch("b.png");
    char args[1024];
    snprintf(args, sizeof args, "render --size 8x8 --views 1 -o %s -o %s", a, b);
    assert_int_equal(run(args), 2);
    if (!strstr(err_out, "-o is given twice") || !strstr(err_out, a) || !strstr(err_out, b)) fail_msg("%s", err_out);
    snprintf(args, sizeof args, "render --size 8x8 --views 1 -o %s --output %s", a, b);
    assert_int_equal(run(args), 2);
    assert_non_null(strstr(err_out, "--output is given twice"));
    assert_int_equal(access(a, F_OK), -1);
    assert_int_equal(access(b, F_OK), -1);
    assert_int_equal(run("snapshot --time 1 --time 2"), 2);
    assert_non_null(strstr(err_out, "--time is given twice ('1', then '2')"));
    assert_int_equal(run("serve --ticks 1 --ticks 2"), 2);
    assert_non_null(strstr(err_out, "--ticks is given twice"));

    /* "--" ends the options: a file whose name begins with '-' */
    write_model("-dash.gltf", "dash");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' &&", scratch());
    assert_int_equal(run_as(cmd, "snapshot --json -- -dash.gltf"), 0);
    assert_non_null(strstr(out, "\"dash\""));
    assert_int_equal(run_as(cmd, "info -- -dash.gltf"), 0);
    assert_int_equal(run_as(cmd, "validate -- -dash.gltf"), 0);
    assert_int_equal(run_as(cmd, "render --size 8x8 --views 1 -o dash.png -- -dash.gltf"), 0);
    assert_true(is_png(in_scratch("dash.png")));
    assert_int_equal(run_as(cmd, "snapshot -dash.gltf"), 2); /* without it, an unknown option */
    assert_int_equal(run_as(cmd, "snapshot -- -dash.gltf --json"), 2); /* after it, no more options */
    assert_non_null(strstr(err_out, "unexpected argument '--json'"));

    /* a sample count the device lacks: its error said once */
    int status = run("render --size 8x8 --views 1 --msaa 8 -o /dev/null");
    if (status == 0) {
        print_message("the device has 8 samples per pixel: the refusal is not seen here\n");
    } else {
        assert_int_equal(status, 1);
        if (lines_with(err_out, "8 samples per pixel") != 1) fail_msg("want one line, got: %s", err_out);
    }
}

/* ---- item 5: the viewer's screenshot is the render --------------------------------------- */

/* A triangle that a clip moves 3 m along x and up over 1 s (so that the scene's box changes with time). */
static const char *write_animated(const char *file)
{
    /* positions 36 bytes, times 2 floats, translations 2 x vec3 */
    unsigned char bin[36 + 8 + 24];
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, times[2] = {0, 1}, tr[6] = {0, 0, 0, 3, 1.5f, 0};
    memcpy(bin, pos, 36);
    memcpy(bin + 36, times, 8);
    memcpy(bin + 44, tr, 24);
    write_bytes(in_scratch("anim.bin"), bin, sizeof bin);
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
        "\"nodes\":[{\"name\":\"still\",\"mesh\":0},{\"name\":\"moving\",\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
        "\"samplers\":[{\"input\":1,\"output\":2}]}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
        "\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],"
        "\"max\":[1]},{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":24}],\"buffers\":[{\"byteLength\":68,\"uri\":\"anim.bin\"}]}";
    const char *path = in_scratch(file);
    write_bytes(path, json, strlen(json));
    return path;
}

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = read_all(a, &na), *y = read_all(b, &nb);
    bool same = na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

/* view --frames N --screenshot: the bytes of render --time (N-1)/60, offscreen and in a window (on a
 * virtual display). Before, the viewer's camera framed the scene at its first frame and render's at
 * its own time: from N = 2 on they differed wherever the animation moved the scene's box. */
static void test_view_screenshot_is_the_render(void **state)
{
    (void)state;
    const char *model = write_animated("anim.gltf");
    const char *shot = in_scratch("view.png"), *window_shot = in_scratch("window.png"), *render = in_scratch("render.png");
    const char *prefix[2] = {"", "xvfb-run -a -s '-screen 0 640x480x24'"};
    bool have_xvfb = access("/usr/bin/xvfb-run", X_OK) == 0;
    const unsigned frames[] = {1, 2, 31};
    for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
        char args[1024];
        snprintf(args, sizeof args, "render %s --size 96x54 --views 1 --strategy indirect --time %.17g -o %s", model,
                 (frames[k] - 1) / 60.0, render);
        if (run(args) != 0) fail_msg("%s: %s", args, err_out);
        for (int w = 0; w < 2; w++) {
            if (w == 1 && !have_xvfb) {
                print_message("no xvfb-run: the window's screenshot is not compared\n");
                continue;
            }
            const char *out_png = w ? window_shot : shot;
            remove(out_png);
            snprintf(args, sizeof args, "view %s --size 96x54 %s--frames %u --screenshot %s", model,
                     w ? "" : "--offscreen ", frames[k], out_png);
            int status = run_as(prefix[w], args);
            if (status != 0) fail_msg("%s: exit %d %s", args, status, err_out);
            if (!same_file(out_png, render))
                fail_msg("view --frames %u%s differs from render --time %u/60", frames[k], w ? " (window)" : "",
                         frames[k] - 1);
        }
    }
    /* and the frames differ from one another: the comparison is of a moving scene */
    char args[1024];
    snprintf(args, sizeof args, "render %s --size 96x54 --views 1 --strategy indirect -o %s", model, shot);
    assert_int_equal(run(args), 0);
    assert_false(same_file(shot, render));
}

/* ---- item 7: nothing is silently not drawn ------------------------------------------------ */

/* Two triangles under a root at x = T: the default camera frames them, out there. From 1e20 m on the
 * renderer cannot place them (binary64 grid, float split), up to the largest finite values, where it
 * cannot place them at all: each render warns once and counts them. Before: 1e308 and 1.7e308 were
 * not drawn without a word. */
/* view --shadows: key B steps bounds, bounds and frusta, then the shadow cascades, whose frame is the
 * bytes of render --shadows --debug cascades at the same time (and not those without the drawing: the
 * comparison sees the boxes); without --shadows the third press turns the drawing off. */
static void test_view_debug_key_shows_cascades(void **state)
{
    (void)state;
    const char *model = write_animated("anim.gltf");
    const char *shot = in_scratch("view.png"), *drawn = in_scratch("drawn.png"), *plain = in_scratch("plain.png");
    const char *common = "--size 160x90 --views 1 --strategy indirect --shadows --floor --validation";
    char args[1024];
    snprintf(args, sizeof args, "render %s %s --time %.17g --debug cascades -o %s", model, common, 2 / 60.0, drawn);
    if (run(args) != 0) fail_msg("%s: %s", args, err_out);
    snprintf(args, sizeof args, "render %s %s --time %.17g -o %s", model, common, 2 / 60.0, plain);
    if (run(args) != 0) fail_msg("%s: %s", args, err_out);
    assert_false(same_file(drawn, plain));
    snprintf(args, sizeof args, "view %s --offscreen %s --frames 3 --keys 0:b,1:b,2:b --screenshot %s", model, common,
             shot);
    if (run(args) != 0) fail_msg("%s: %s", args, err_out);
    if (!same_file(shot, drawn)) fail_msg("view --shadows, B pressed 3 times: not the bytes of render --debug cascades");
    /* without --shadows: bounds, bounds and frusta, none */
    snprintf(args, sizeof args, "render %s --size 160x90 --views 1 --strategy indirect --floor --time %.17g -o %s",
             model, 2 / 60.0, plain);
    if (run(args) != 0) fail_msg("%s: %s", args, err_out);
    snprintf(args, sizeof args,
             "view %s --offscreen --size 160x90 --floor --frames 3 --keys 0:b,1:b,2:b --validation --screenshot %s",
             model, shot);
    if (run(args) != 0) fail_msg("%s: %s", args, err_out);
    if (!same_file(shot, plain)) fail_msg("view without --shadows, B pressed 3 times: the drawing is not off");
}

static void test_far_positions_always_warned(void **state)
{
    (void)state;
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    write_bytes(in_scratch("tri.bin"), pos, sizeof pos);
    const double far[] = {1e20, 1e200, 1e308, 1.7e308};
    for (size_t k = 0; k < sizeof far / sizeof far[0]; k++) {
        char json[2048], args[1024];
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                 "\"nodes\":[{\"name\":\"root\",\"translation\":[%.17g,0,0],\"children\":[1,2]},"
                 "{\"name\":\"a\",\"mesh\":0},{\"name\":\"b\",\"mesh\":0,\"translation\":[3,0,0]}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
                 "\"min\":[0,0,0],\"max\":[1,1,0]}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
                 "\"buffers\":[{\"byteLength\":36,\"uri\":\"tri.bin\"}]}",
                 far[k]);
        const char *model = in_scratch("far.gltf");
        write_bytes(model, json, strlen(json));
        snprintf(args, sizeof args, "render %s --size 32x18 --views 1 --stats -o %s", model, in_scratch("far.png"));
        int status = run(args);
        if (status != 0) fail_msg("x = %g: exit %d %s", far[k], status, err_out);
        if (lines_with(err_out, "beyond what binary64 origin subtraction resolves") != 1)
            fail_msg("x = %g: want one warning, got '%s'", far[k], err_out);
        cJSON *j = cJSON_Parse(out);
        if (!j) fail_msg("--stats is not JSON: %s", out);
        cJSON *n = cJSON_GetObjectItem(j, "far_instances");
        if (!cJSON_IsNumber(n) || n->valuedouble != 2) fail_msg("x = %g: far_instances: %s", far[k], out);
        cJSON_Delete(j);
    }
}

int orrt_cli_hardening(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_output_never_replaces_an_input, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_output_keeps_permissions, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_largest_times_finish, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_json_output_is_valid, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_options, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_view_screenshot_is_the_render, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_view_debug_key_shows_cascades, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_far_positions_always_warned, scratch_fresh, scratch_remove),
    };
    return cmocka_run_group_tests_name("cli_hardening", tests, NULL, NULL);
}
