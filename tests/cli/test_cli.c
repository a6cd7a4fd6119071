/* The command-line tool as a user drives it: help, errors, snapshot JSON, the server; bad option
 * values (exit 2, naming the option and its range), the loader's warnings on stderr, writes that fail
 * (exit 1, no truncated file left), --anim past the file's animations, validate's file checks. The
 * few renders run on the Vulkan device (lavapipe without a GPU), at a few pixels. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stb_image.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static char out[1 << 20];

int orrt_cli_long_work(void);
int orrt_cli_hardening(void);
int orrt_cli_usage(void);

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s", orrt_tool(), args);
    return orrt_run(cmd, out, sizeof out);
}

/* A small glTF written by the test: two nodes sharing one triangle mesh, a parent with a child, and an
 * animation moving the child along x by 2 m over 2 s. */
static const char *fixture_path(void)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/orrery_tool_fixture_%d.gltf", (int)getpid());
    /* positions: 3 x vec3 float (36 bytes); indices 3 x u16 (6 bytes, padded to 8); times 2 floats (8);
     * translations 2 x vec3 (24) */
    unsigned char bin[36 + 8 + 8 + 24] = {0};
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    unsigned short idx[3] = {0, 1, 2};
    float times[2] = {0, 2};
    float tr[6] = {0, 0, 0, 2, 0, 0};
    memcpy(bin, pos, 36);
    memcpy(bin + 36, idx, 6);
    memcpy(bin + 44, times, 8);
    memcpy(bin + 52, tr, 24);
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char enc[256];
    size_t n = sizeof bin, k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = bin[i] << 16 | (i + 1 < n ? bin[i + 1] << 8 : 0) | (i + 2 < n ? bin[i + 2] : 0);
        enc[k++] = b64[v >> 18 & 63];
        enc[k++] = b64[v >> 12 & 63];
        enc[k++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        enc[k++] = i + 2 < n ? b64[v & 63] : '=';
    }
    enc[k] = 0;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
            "\"nodes\":[{\"name\":\"parent\",\"mesh\":0,\"translation\":[1,0,0],\"children\":[1]},"
            "{\"name\":\"child\",\"mesh\":0},{\"name\":\"other\",\"mesh\":0,\"translation\":[0,0,-3]}],"
            "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
            "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
            "\"samplers\":[{\"input\":2,\"output\":3}]}],"
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
            "\"min\":[0,0,0],\"max\":[1,1,0]},"
            "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
            "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[2]},"
            "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
            "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
            "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6},"
            "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":52,\"byteLength\":24}],"
            "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}]}",
            sizeof bin, enc);
    fclose(f);
    return path;
}

static void test_help(void **state)
{
    (void)state;
    assert_int_equal(run("--help"), 0);
    assert_non_null(strstr(out, "render"));
    assert_non_null(strstr(out, "snapshot"));
    assert_non_null(strstr(out, "validate"));
    assert_int_equal(run("render --help"), 0);
    assert_non_null(strstr(out, "--views"));
    assert_non_null(strstr(out, "--strategy"));
    assert_int_equal(run("frobnicate 2>&1"), 2);
    assert_non_null(strstr(out, "unknown command"));
}

static void test_missing_and_broken_files_exit_1_with_one_line(void **state)
{
    (void)state;
    assert_int_equal(run("render /nonexistent/x.gltf -o /tmp/never.png 2>&1"), 1);
    assert_non_null(strstr(out, "/nonexistent/x.gltf"));
    assert_non_null(strchr(out, '\n'));
    assert_null(strchr(strchr(out, '\n') + 1, '\n')); /* exactly one line */

    char path[256], cmd[512];
    snprintf(path, sizeof path, "/tmp/orrery_broken_%d.gltf", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"bufferView\":9,\"componentType\":5126,\"count\":1,"
          "\"type\":\"VEC3\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
          "\"buffers\":[{\"byteLength\":12,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA\"}]}",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "snapshot %s 2>&1", path);
    assert_int_equal(run(cmd), 1);
    assert_non_null(strstr(out, "accessors[0].bufferView"));
    assert_non_null(strchr(out, '\n'));
    assert_null(strchr(strchr(out, '\n') + 1, '\n'));
    remove(path);
}

static cJSON *snapshot_json(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "snapshot %s --json", args);
    assert_int_equal(run(cmd), 0);
    cJSON *j = cJSON_Parse(out);
    if (!j) fail_msg("snapshot --json is not JSON: %.200s", out);
    return j;
}

static void test_snapshot_json(void **state)
{
    (void)state;
    const char *path = fixture_path();
    cJSON *j = snapshot_json(path);
    assert_int_equal(cJSON_GetObjectItem(j, "frame")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(j, "tick")->valueint, 0);
    cJSON *inst = cJSON_GetObjectItem(j, "instances");
    assert_int_equal(cJSON_GetArraySize(inst), 3);
    /* pre-order: parent, child, other; parent and child share the mesh */
    cJSON *parent = cJSON_GetArrayItem(inst, 0), *child = cJSON_GetArrayItem(inst, 1), *other = cJSON_GetArrayItem(inst, 2);
    assert_string_equal(cJSON_GetObjectItem(parent, "entity")->valuestring, "parent");
    assert_string_equal(cJSON_GetObjectItem(child, "entity")->valuestring, "child");
    assert_string_equal(cJSON_GetObjectItem(other, "entity")->valuestring, "other");
    assert_int_equal(cJSON_GetObjectItem(parent, "mesh")->valueint, cJSON_GetObjectItem(child, "mesh")->valueint);
    cJSON *world = cJSON_GetObjectItem(child, "world");
    assert_int_equal(cJSON_GetArraySize(world), 16);
    assert_true(cJSON_GetArrayItem(world, 12)->valuedouble == 1.0); /* the child sits at its parent's x = 1 */
    cJSON *bounds = cJSON_GetObjectItem(parent, "bounds");
    assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(bounds, "max"), 0)->valuedouble == 1.0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(parent, "visible")));
    cJSON_Delete(j);

    /* --time 1.7 plays the animation for round(1.7 x 60) = 102 ticks: x = 1 + 2 x 1.7 / 2 */
    char args[512];
    snprintf(args, sizeof args, "%s --time 1.7", path);
    j = snapshot_json(args);
    assert_int_equal(cJSON_GetObjectItem(j, "tick")->valueint, 102);
    child = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "instances"), 1);
    double x = cJSON_GetArrayItem(cJSON_GetObjectItem(child, "world"), 12)->valuedouble;
    assert_float_equal(x, 1.0 + 1.7, 1e-6);
    cJSON_Delete(j);
    /* --anim none keeps the rest pose */
    snprintf(args, sizeof args, "%s --time 1.7 --anim none", path);
    j = snapshot_json(args);
    child = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "instances"), 1);
    assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(child, "world"), 12)->valuedouble == 1.0);
    cJSON_Delete(j);
    /* the same inputs print the same snapshot */
    snprintf(args, sizeof args, "snapshot %s --time 0.5 --json", path);
    assert_int_equal(run(args), 0);
    char *first = strdup(out);
    assert_int_equal(run(args), 0);
    assert_string_equal(first, out);
    free(first);
    remove(path);
}

/* Morph weights from every source, as snapshot --json prints them: the mesh's defaults (0.25, 0.5), a
 * node's `weights` overriding them, a linear and a step animation channel; a mesh without targets prints
 * none. The bounds hold the shape: a weight of 1.5 on the target that lifts y by 2 lifts the box's top
 * from 3 (the mesh's, weights in [0, 1]) to 4. */
static const char morph_gltf[] =
"{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2,3,4]}],\"nodes\":[{\"name\":\"plain\",\"mesh"
"\":0},{\"name\":\"posed\",\"mesh\":0,\"weights\":[1,0]},{\"name\":\"animated\",\"mesh\":0},{\"name\":\"stepped\",\"mesh\""
":0},{\"name\":\"rigid\",\"mesh\":1}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"PO"
"SITION\":1},{\"POSITION\":2}]}],\"weights\":[0.25,0.5]},{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\""
"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"weights\"}},{\"sampler\":1,\"target\":{"
"\"node\":3,\"path\":\"weights\"}}],\"samplers\":[{\"input\":3,\"output\":4,\"interpolation\":\"LINEAR\"},{\"input\":3,"
"\"output\":5,\"interpolation\":\"STEP\"}]}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"t"
"ype\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3"
"\",\"min\":[0,2,0],\"max\":[0,2,0]},{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[-"
"1,0,0],\"max\":[-1,0,0]},{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max"
"\":[1]},{\"bufferView\":4,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"},{\"bufferView\":5,\"componentTyp"
"e\":5126,\"count\":4,\"type\":\"SCALAR\"}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buf"
"fer\":0,\"byteOffset\":36,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":72,\"byteLength\":36},{\"buffer\":0,\"by"
"teOffset\":108,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":116,\"byteLength\":16},{\"buffer\":0,\"byteOffset\""
":132,\"byteLength\":16}],\"buffers\":[{\"byteLength\":148,\"uri\":\"data:application/octet-stream;base64,AAAA"
"AAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAEAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAEAAAAAAAACAvwAA"
"AAAAAAAAAACAvwAAAAAAAAAAAACAvwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAEAAAAA/AAAAAAAAAAAAAIA/AACAPw==\"}]}";

static const cJSON *instance_named(const cJSON *j, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "instances"))
    {
        if (strcmp(cJSON_GetObjectItem(e, "entity")->valuestring, name) == 0) return e;
    }
    fail_msg("no instance %s", name);
    return NULL;
}

static void expect_weights(const cJSON *j, const char *name, double w0, double w1)
{
    const cJSON *weights = cJSON_GetObjectItem(instance_named(j, name), "weights");
    if (cJSON_GetArraySize(weights) != 2) fail_msg("%s: %d weights", name, cJSON_GetArraySize(weights));
    double a = cJSON_GetArrayItem(weights, 0)->valuedouble, b = cJSON_GetArrayItem(weights, 1)->valuedouble;
    if (a != w0 || b != w1) fail_msg("%s: weights %g %g, expected %g %g", name, a, b, w0, w1);
}

static double bounds_max_y(const cJSON *j, const char *name)
{
    const cJSON *b = cJSON_GetObjectItem(instance_named(j, name), "bounds");
    return cJSON_GetArrayItem(cJSON_GetObjectItem(b, "max"), 1)->valuedouble;
}

static void test_snapshot_json_morph_weights(void **state)
{
    (void)state;
    char path[256], args[512];
    snprintf(path, sizeof path, "/tmp/orrery_morph_%d.gltf", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(morph_gltf, f);
    fclose(f);
    snprintf(args, sizeof args, "%s --time 0.5", path);
    cJSON *j = snapshot_json(args);
    expect_weights(j, "plain", 0.25, 0.5);   /* the mesh's */
    expect_weights(j, "posed", 1, 0);        /* the node's */
    expect_weights(j, "animated", 1, 0.25);  /* linear: (0, 0) -> (2, 0.5) over 1 s */
    expect_weights(j, "stepped", 0, 0);      /* step: (0, 0) until 1 s */
    assert_null(cJSON_GetObjectItem(instance_named(j, "rigid"), "weights"));
    assert_true(bounds_max_y(j, "animated") == 3.0);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "%s --time 0.75", path);
    j = snapshot_json(args);
    expect_weights(j, "animated", 1.5, 0.375);
    assert_true(bounds_max_y(j, "animated") == 4.0);
    assert_true(bounds_max_y(j, "plain") == 3.0);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "%s --anim none", path);
    j = snapshot_json(args);
    expect_weights(j, "animated", 0.25, 0.5); /* no animation: the mesh's */
    cJSON_Delete(j);
    remove(path);
}

static void test_builtin_snapshot_has_lights_and_cameras(void **state)
{
    (void)state;
    cJSON *j = snapshot_json("--belt 2000"); /* the default belt's JSON runs to tens of megabytes */
    /* rocks, bodies, the monitor, the sky */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "instances")), 2000 + 18 + 1 + 1);
    cJSON *lights = cJSON_GetObjectItem(j, "lights");
    assert_int_equal(cJSON_GetArraySize(lights), 1);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(lights, 0), "type")->valuestring, "point");
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(j, "cameras")) >= 2);
    /* real distances: something sits beyond 1e11 m */
    double far = 0;
    cJSON *inst;
    cJSON_ArrayForEach(inst, cJSON_GetObjectItem(j, "instances"))
    {
        double x = cJSON_GetArrayItem(cJSON_GetObjectItem(inst, "world"), 12)->valuedouble;
        if (x > far) far = x;
        if (-x > far) far = -x;
    }
    assert_true(far > 1e11);
    cJSON_Delete(j);
}

/* The viewer's loop without a window: scripted frames and keys into an offscreen target, validation
 * on; the last frame's screenshot is a PNG of --size. Without --frames nothing would end it. */
static void test_view_offscreen(void **state)
{
    (void)state;
    const char *dir = orrt_scratch("cli_view");
    assert_non_null(dir);
    char png[256];
    snprintf(png, sizeof png, "%s/offscreen.png", dir);
    char args[512];
    snprintf(args, sizeof args, "view --offscreen --belt 500 --size 200x100 --frames 8 --keys 2:3,4:s,5:space "
             "--screenshot %s --validation --stats", png);
    assert_int_equal(run(args), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "frames")->valueint, 8);
    assert_int_equal(cJSON_GetObjectItem(j, "views")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(j, "instances")->valueint, 520); /* rocks, bodies, the monitor, the sky */
    cJSON_Delete(j);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char head[24];
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    assert_memory_equal(head + 1, "PNG", 3);
    assert_int_equal((head[16] << 24) | (head[17] << 16) | (head[18] << 8) | head[19], 200); /* IHDR width */
    assert_int_equal((head[20] << 24) | (head[21] << 16) | (head[22] << 8) | head[23], 100);
    remove(png);
    assert_int_equal(run("view --offscreen 2>&1"), 2);
    assert_non_null(strstr(out, "--frames"));
    assert_int_equal(run("view --offscreen --frames 2 --keys 1:nokey 2>&1"), 2);
    assert_non_null(strstr(out, "--keys"));
}

/* render --post: a host fragment shader over the frame (a grey by luminance: R == G == B on every
 * pixel, and not one flat grey), --graph printing its pass, copy and barriers; a shader that does not
 * compile refused with the compiler's line, before anything is drawn. */
static void test_render_post_process(void **state)
{
    (void)state;
    /* a folder of this run's own: parallel runs of the suite would share fixed /tmp names */
    const char *dir = orrt_scratch("cli_post");
    assert_non_null(dir);
    char grey[256], broken[256], png[256], never[256];
    snprintf(grey, sizeof grey, "%s/grey.frag", dir);
    snprintf(broken, sizeof broken, "%s/broken.frag", dir);
    snprintf(png, sizeof png, "%s/post.png", dir);
    snprintf(never, sizeof never, "%s/never.png", dir);
    FILE *f = fopen(grey, "w");
    assert_non_null(f);
    fputs("#version 450\n"
          "layout(set = 0, binding = 0) uniform sampler2D color;\n"
          "layout(location = 0) out vec4 o;\n"
          "void main() {\n"
          "    vec4 c = texelFetch(color, ivec2(gl_FragCoord.xy), 0);\n"
          "    o = vec4(vec3(dot(c.rgb, vec3(0.2126, 0.7152, 0.0722))), 1.0);\n"
          "}\n", f);
    fclose(f);
    f = fopen(broken, "w");
    assert_non_null(f);
    fputs("#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = nothing_here; }\n", f);
    fclose(f);
    char args[768];
    snprintf(args, sizeof args, "render --size 96x54 --views 1 --post %s --graph --validation -q -o %s", grey, png);
    assert_int_equal(run(args), 0);
    assert_non_null(strstr(out, "pass post  reads color.copy  writes color"));
    assert_non_null(strstr(out, "copy color -> color.copy"));
    FILE *p = fopen(png, "rb");
    assert_non_null(p);
    fseek(p, 0, SEEK_END);
    long size = ftell(p);
    fseek(p, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)size);
    assert_non_null(bytes);
    assert_int_equal(fread(bytes, 1, (size_t)size, p), (size_t)size);
    fclose(p);
    int w, h, n;
    unsigned char *px = stbi_load_from_memory(bytes, (int)size, &w, &h, &n, 4);
    free(bytes);
    assert_non_null(px);
    assert_int_equal(w, 96);
    assert_int_equal(h, 54);
    uint32_t levels = 0;
    bool seen[256] = {false};
    for (int i = 0; i < w * h; i++) {
        const unsigned char *q = px + 4 * i;
        if (q[0] != q[1] || q[1] != q[2]) fail_msg("pixel %d,%d is %u,%u,%u: not grey", i % w, i / w, q[0], q[1], q[2]);
        if (!seen[q[0]]) seen[q[0]] = true, levels++;
    }
    stbi_image_free(px);
    if (levels < 8) fail_msg("the grey frame has %u levels: nearly flat", levels);
    snprintf(args, sizeof args, "render --size 32x18 --views 1 --post %s -q -o %s 2>&1", broken, png);
    assert_int_equal(run(args), 1);
    assert_non_null(strstr(out, "broken.frag:3"));
    assert_non_null(strstr(out, "nothing_here"));
    /* without --post: the views' built-in passes */
    snprintf(args, sizeof args, "render --size 32x18 --views 1 --graph -q -o %s", png);
    assert_int_equal(run(args), 0);
    assert_non_null(strstr(out, "pass opaque (built-in)  writes color  depth test+write depth@view"));
    assert_non_null(strstr(out, "pass blended (built-in, back to front)"));
    snprintf(args, sizeof args, "render --post /nonexistent/x.frag -o %s 2>&1", never);
    assert_int_equal(run(args), 1);
    assert_non_null(strstr(out, "--post /nonexistent/x.frag: cannot read it"));
    assert_true(access(never, F_OK) != 0); /* refused before anything was written */
}

static void test_serve_never_extracts(void **state)
{
    (void)state;
    assert_int_equal(run("serve --ticks 120 --json"), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "ticks")->valueint, 120);
    assert_int_equal(cJSON_GetObjectItem(j, "extractions")->valueint, 0);
    /* the built-in scene by default: the belt's 100,000 rocks and more */
    assert_true(cJSON_GetObjectItem(j, "entities")->valueint > 100000);
    cJSON_Delete(j);
    assert_int_equal(run("serve 2>&1"), 2);
    assert_non_null(strstr(out, "--ticks"));
}

/* ---- bad input ---------------------------------------------------------------------------- */

static char err_out[1 << 16]; /* stderr of run_split */

/* Runs the tool (in folder `dir`, NULL = here) with stdout in `out` and stderr in `err_out`; returns
 * the exit status. */
static int run_split_in(const char *dir, const char *args)
{
    char errf[128], cmd[4096];
    snprintf(errf, sizeof errf, "/tmp/orrery_cli_err_%d.txt", (int)getpid());
    snprintf(cmd, sizeof cmd, "%s%s%s%s %s 2>%s", dir ? "cd '" : "", dir ? dir : "", dir ? "' && " : "", orrt_tool(), args, errf);
    int status = orrt_run(cmd, out, sizeof out);
    FILE *f = fopen(errf, "rb");
    size_t n = f ? fread(err_out, 1, sizeof err_out - 1, f) : 0;
    err_out[n] = 0;
    if (f) fclose(f);
    remove(errf);
    return status;
}

static int run_split(const char *args) { return run_split_in(NULL, args); }

static unsigned count_of(const char *hay, const char *needle)
{
    unsigned n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* A scratch folder for the fixtures of one test. */
static const char *scratch(void)
{
    static char dir[128];
    snprintf(dir, sizeof dir, "/tmp/orrery_cli_%d", (int)getpid());
    mkdir(dir, 0700);
    return dir;
}

static int scratch_remove(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch());
    return system(cmd) == 0 ? 0 : -1;
}

/* Each test that writes fixtures starts with an empty folder, removed after it, failed or not. */
static int scratch_fresh(void **state)
{
    int r = scratch_remove(state);
    scratch();
    return r;
}

static const char *in_scratch(const char *name)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", scratch(), name);
    return path[k];
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A triangle from the external buffer tri.bin (36 bytes, written too), `nodes` nodes sharing it; with
 * `image` a textured material whose image is that URI (and texture coordinates for it, read from the
 * same bytes); `extra_buffers` appended to the buffers. */
static const char *write_model(const char *name, int nodes, const char *image, const char *extra_buffers)
{
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    FILE *f = fopen(in_scratch("tri.bin"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(pos, 1, sizeof pos, f), sizeof pos);
    fclose(f);
    char list[1024] = "", node_json[4096] = "";
    for (int i = 0; i < nodes; i++) {
        size_t a = strlen(list), b = strlen(node_json);
        snprintf(list + a, sizeof list - a, "%s%d", i ? "," : "", i);
        snprintf(node_json + b, sizeof node_json - b, "%s{\"name\":\"n%d\",\"mesh\":0}", i ? "," : "", i);
    }
    char json[8192];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[%s]}],\"nodes\":[%s],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0%s}%s}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"byteLength\":36,\"uri\":\"tri.bin\"}%s%s]"
             "%s%s%s}",
             list, node_json, image ? ",\"TEXCOORD_0\":1" : "", image ? ",\"material\":0" : "", *extra_buffers ? "," : "",
             extra_buffers,
             image ? ",\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
                     "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\""
                   : "",
             image ? image : "", image ? "\"}]" : "");
    const char *path = in_scratch(name);
    write_text(path, json);
    return path;
}

typedef struct bad_case {
    const char *args;   /* after the tool */
    const char *option; /* the message must name it */
    const char *range;  /* and its range ("" = no range to name) */
} bad_case;

static void test_option_values_refused_with_range(void **state)
{
    (void)state;
    char png[256]; /* a copy: in_scratch's names are reused four calls later */
    snprintf(png, sizeof png, "%s", in_scratch("never.png"));
    char file_args[512];
    const char *model = write_model("one.gltf", 1, NULL, "");
    const bad_case cases[] = {
        {"render --size 4294967297x100", "--size", "1..16384"},
        {"render --size -4294967295x64", "--size", "1..16384"},
        {"render --size 0x5", "--size", "1..16384"},
        {"render --size 12x", "--size", "1..16384"},
        {"render --size 16385x16", "--size", "1..16384"},
        {"render --size '+64x64'", "--size", "1..16384"},
        {"render --size ' 64x64'", "--size", "1..16384"},
        {"render --size 64x+64", "--size", "1..16384"},
        {"render --size", "--size", "needs a value"},
        {"render --views 0", "--views", "1..16"},
        {"render --views 17", "--views", "1..16"},
        {"render --views 4294967298", "--views", "1..16"},
        {"render --views +3", "--views", "1..16"},
        {"render --views ' 3'", "--views", "1..16"},
        {"render --views 3x", "--views", "1..16"},
        {"render --views 16 --size 8x8", "--views 16", "at least 16 pixels wide"}, /* a column a view */
        {"render --strategy fastest", "--strategy", "direct, batched, indirect, shell, meshlet"},
        {"render --strategy batched --cull gpu", "--cull gpu", "indirect or meshlet"},
        {"bench frame --mesh sphere:0", "--mesh", "1..2048"},
        {"bench frame --mesh sphere:2049", "--mesh", "1..2048"},
        {"bench frame --mesh ball", "--mesh", "cube or sphere:R"},
        {"bench frame --strategy shells", "--strategy", "shell, meshlet"},
        {"bench frame --strategy direct --cull gpu", "--cull gpu", "indirect or meshlet"},
        {"bench frame --scene town", "--scene", "cubes, city or spheres"},
        {"bench frame --occlusion --strategy indirect --cull cpu", "--occlusion", "--cull gpu"},
        {"bench frame --scene city --mesh sphere:4", "--scene city", "no --mesh"},
        {"bench frame --png", "--png", "needs a value"},
        {"render --order random", "--order", "hierarchy, mesh"},
        {"render --cull none", "--cull", "auto, cpu, gpu"},
        {"replay --strategy x", "--strategy", "direct, batched, indirect, shell, meshlet"},
        {"render --instances 0", "--instances", "1..1000000"},
        {"render --instances 1000001", "--instances", "1..1000000"},
        {"snapshot --instances 4294967297", "--instances", "1..1000000"},
        {"snapshot --instances +2", "--instances", "1..1000000"},
        {"serve --ticks 1 --instances ' 2'", "--instances", "1..1000000"},
        {"serve --ticks -1", "--ticks", "0..100000000"},
        {"serve --ticks 4294967297", "--ticks", "0..100000000"},
        {"serve --ticks +5", "--ticks", "0..100000000"},
        {"serve --ticks 1e3", "--ticks", "0..100000000"},
        {"serve --ticks 100000001", "--ticks", "0..100000000"},
        {"snapshot --time -1", "--time", "0..1e+07"},
        {"snapshot --time 1e8", "--time", "0..1e+07"},
        {"snapshot --time nan", "--time", "0..1e+07"},
        {"snapshot --time 0x10", "--time", "0..1e+07"},
        {"snapshot --time ' 1'", "--time", "0..1e+07"},
        {"snapshot --time 1s", "--time", "0..1e+07"},
        {"render --time inf", "--time", "0..1e+07"},
        {"snapshot --offset 1,2", "--offset", "1e+30"},
        {"snapshot --offset 1,2,3,4", "--offset", "1e+30"},
        {"snapshot --offset 1e31,0,0", "--offset", "1e+30"},
        {"snapshot --offset nan,0,0", "--offset", "1e+30"},
        {"snapshot --offset ' 1,0,0'", "--offset", "1e+30"},
        {"snapshot --anim -1", "--anim", "none"},
        {"snapshot --anim 2x", "--anim", "none"},
        {"bench world --n 12abc", "--n", "1..100000000"},
        {"bench world --n 4294967297", "--n", "1..100000000"},
        {"bench world --reps abc", "--reps", "1..10000"},
        {"bench world --reps 0", "--reps", "1..10000"},
        {"bench world --shape round", "--shape", "wide or deep"},
        {"bench world --threads 0", "--threads", "1..256"},
        {"bench frame --threads 257", "--threads", "1..256"},
        {"snapshot --belt 1000001", "--belt", "0..1000000"},
        {"serve --ticks 1 --belt -3", "--belt", "0..1000000"},
        {"bench extract --skinned --joints 0", "--joints", "1..65536"},
        {"bench extract --n 0 --skinned", "--n", "1..100000"},
        {"bench extract --skinned --n 100000 --joints 65536", "--joints", "10^8 entities"},
        {"render --shells 0", "--shells", "1..256"},
        {"render --shells 257", "--shells", "1..256"},
        {"render --fur 0", "--fur", "LENGTH[,DENSITY]"},
        {"render --fur -0.5", "--fur", "LENGTH[,DENSITY]"},
        {"render --fur 2e6", "--fur", "LENGTH[,DENSITY]"},
        {"snapshot --fur 0.1,0", "--fur", "LENGTH[,DENSITY]"},
        {"snapshot --fur 0.1,", "--fur", "LENGTH[,DENSITY]"},
        {"snapshot --fur 0.1,2,3", "--fur", "LENGTH[,DENSITY]"},
        {"serve --ticks 1 --fur nan", "--fur", "LENGTH[,DENSITY]"},
        {"bench frame --shells 300", "--shells", "1..256"},
        {"bench frame --fur 0", "--fur", "above 0"},
        {"bench frame --strategy shell --cull gpu", "--cull gpu", "indirect"},
        {"bench frame --strategy meshes", "--strategy", "direct, batched, indirect, shell, meshlet"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024];
        if (!strncmp(cases[i].args, "render ", 7)) /* a value of the last option must not be "-o" */
            snprintf(args, sizeof args, "render -o %s %s", png, cases[i].args + 7);
        else
            snprintf(args, sizeof args, "%s", cases[i].args);
        int status = run_split(args);
        if (status != 2 || !strstr(err_out, cases[i].option) || !strstr(err_out, cases[i].range))
            fail_msg("'%s': exit %d (want 2), stderr: %s", cases[i].args, status, err_out);
        if (count_of(err_out, "\n") != 1) fail_msg("'%s': want one line, got: %s", cases[i].args, err_out);
        if (exists(png)) fail_msg("'%s' wrote %s", cases[i].args, png);
    }
    /* bench gltf's budget, on a real file */
    snprintf(file_args, sizeof file_args, "bench gltf %s --seconds abc", model);
    assert_int_equal(run_split(file_args), 2);
    assert_non_null(strstr(err_out, "--seconds"));
    assert_non_null(strstr(err_out, "0.001..3600"));
    /* the instance limit counts entities: 20 nodes (22 entities a copy) x 1000000 copies */
    const char *wide = write_model("wide.gltf", 20, NULL, "");
    snprintf(file_args, sizeof file_args, "snapshot %s --instances 1000000", wide);
    assert_int_equal(run_split(file_args), 2);
    if (!strstr(err_out, wide) || !strstr(err_out, "--instances 1000000") || !strstr(err_out, "22 entities") ||
        !strstr(err_out, "16777216"))
        fail_msg("%s", err_out);
    /* the edges of the ranges are accepted */
    snprintf(file_args, sizeof file_args, "render %s --size 1x1 --views 1 -o %s", model, png);
    if (run_split(file_args) != 0) fail_msg("render --size 1x1: %s", err_out);
    assert_true(exists(png));
    remove(png);
    snprintf(file_args, sizeof file_args, "render %s --size 16x1 --views 16 -o %s", model, png);
    if (run_split(file_args) != 0) fail_msg("render --views 16: %s", err_out);
    remove(png);
    snprintf(file_args, sizeof file_args, "serve %s --ticks 0 --json --instances 3 --time 0 --offset -1e30,0,1.5e-3", model);
    if (run_split(file_args) != 0) fail_msg("serve --ticks 0: %s", err_out);
    assert_non_null(strstr(out, "\"ticks\": 0"));
}

static void test_anim_refused_alike(void **state)
{
    (void)state;
    const char *one = fixture_path(); /* one animation */
    const char *none = write_model("static.gltf", 1, NULL, "");
    char args[512];
    snprintf(args, sizeof args, "snapshot %s --anim 1", one);
    assert_int_equal(run_split(args), 2);
    if (!strstr(err_out, one) || !strstr(err_out, "--anim 1") || !strstr(err_out, "has 1 animation") ||
        !strstr(err_out, "0..0"))
        fail_msg("%s", err_out);
    snprintf(args, sizeof args, "snapshot %s --anim 99", one);
    assert_int_equal(run_split(args), 2);
    assert_non_null(strstr(err_out, "--anim 99"));
    /* before, a file without animations ignored the index */
    snprintf(args, sizeof args, "snapshot %s --anim 5", none);
    assert_int_equal(run_split(args), 2);
    if (!strstr(err_out, none) || !strstr(err_out, "--anim 5") || !strstr(err_out, "has 0 animations"))
        fail_msg("%s", err_out);
    snprintf(args, sizeof args, "render %s --anim 0 --size 8x8 --views 1 -o /dev/null", none);
    assert_int_equal(run_split(args), 2);
    assert_non_null(strstr(err_out, "--anim 0"));
    snprintf(args, sizeof args, "serve %s --ticks 1 --anim 0", none);
    assert_int_equal(run_split(args), 2);
    assert_int_equal(run_split("snapshot --anim 3"), 2); /* the built-in scene has no clips */
    assert_non_null(strstr(err_out, "--anim 3: the built-in scene has 0 animations"));
    /* what exists is accepted, and none always */
    snprintf(args, sizeof args, "snapshot %s --anim 0 --time 1", one);
    assert_int_equal(run_split(args), 0);
    snprintf(args, sizeof args, "snapshot %s --anim none", none);
    assert_int_equal(run_split(args), 0);
    snprintf(args, sizeof args, "snapshot %s", none); /* the default 0 is not an index asked for */
    assert_int_equal(run_split(args), 0);
    assert_int_equal(run_split("snapshot --anim none"), 0);
    remove(one);
}

/* In the scratch folder, so that FILE can be a relative name, unlike the loader's real path. */
static int run_split_here(const char *args) { return run_split_in(scratch(), args); }

/* Each scene command prints the loader's warnings once, naming the file once (as typed, not also as
 * the loader's real path); --quiet drops them. */
static void test_warnings_on_stderr(void **state)
{
    (void)state;
    write_model("untextured.gltf", 1, "missing_texture.png", "");
    const char *model = "untextured.gltf";
    const char *cmds[] = {"render %s --size 8x8 --views 1 -o /dev/null", "snapshot %s", "snapshot %s --json",
                          "serve %s --ticks 2", "info %s", "info %s --json"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[512], quiet[600];
        snprintf(args, sizeof args, cmds[i], model);
        int status = run_split_here(args);
        if (status != 0) fail_msg("'%s': exit %d: %s", args, status, err_out);
        /* render's last line names what it wrote (not a warning: --quiet drops it too) */
        char *wrote = strstr(err_out, "orrery render: wrote /dev/null (8x8)\n");
        if (i == 0 && !wrote) fail_msg("'%s': no line naming what was written: %s", args, err_out);
        if (wrote) *wrote = 0;
        /* one line: "warning: untextured.gltf: images[0]...missing_texture.png..." */
        if (count_of(err_out, "\n") != 1 || count_of(err_out, "missing_texture.png") != 1 ||
            count_of(err_out, model) != 1 || strncmp(err_out, "warning: untextured.gltf: images[0]", 35) != 0)
            fail_msg("'%s': want one warning naming %s once and images[0], got: %s", args, model, err_out);
        snprintf(quiet, sizeof quiet, "%s --quiet", args);
        assert_int_equal(run_split_here(quiet), 0);
        if (err_out[0]) fail_msg("'%s': stderr not empty: %s", quiet, err_out);
        snprintf(quiet, sizeof quiet, "%s -q", args);
        assert_int_equal(run_split_here(quiet), 0);
        assert_int_equal(err_out[0], 0);
    }
    /* validate prints the parse's warnings the same way (before: "warning: FILE: /real/FILE: ..."), and
     * each place where the file breaks the spec (POSITION without min/max) as an error line on stdout,
     * with exit status 1 (before: a warning, exit 0) */
    write_text(in_scratch("nominmax.gltf"),
               "{\"asset\":{\"version\":\"2.0\"},\"frobnicate\":1,\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"byteLength\":36,\"uri\":\"tri.bin\"}]}");
    assert_int_equal(run_split_here("validate nominmax.gltf"), 1);
    if (count_of(err_out, "nominmax.gltf") != 1 || !strstr(err_out, "warning: nominmax.gltf: frobnicate: unknown property"))
        fail_msg("%s", err_out);
    if (count_of(out, "nominmax.gltf") != 1 ||
        !strstr(out, "nominmax.gltf: meshes[0].primitives[0].attributes.POSITION: accessor 0 has no min/max"))
        fail_msg("%s", out);
    assert_int_equal(run_split_here("validate -q nominmax.gltf"), 1);
    assert_int_equal(err_out[0], 0);
    /* a file that loads clean prints nothing */
    write_model("clean.gltf", 1, NULL, "");
    assert_int_equal(run_split_here("snapshot clean.gltf"), 0);
    if (err_out[0]) fail_msg("clean file: %s", err_out);
}

static void test_validate_checks_every_file(void **state)
{
    (void)state;
    const char *good = write_model("good.gltf", 1, NULL, "");
    /* a buffer nothing uses whose file is missing: before, validate passed it */
    const char *unused = write_model("unused.gltf", 1, NULL, "{\"byteLength\":8,\"uri\":\"no_such.bin\"}");
    char args[1024];
    snprintf(args, sizeof args, "validate %s", good);
    if (run_split(args) != 0) fail_msg("%s%s", out, err_out);
    snprintf(args, sizeof args, "validate %s %s", good, unused);
    assert_int_equal(run_split(args), 1);
    if (!strstr(out, unused) || !strstr(out, "buffers[1].uri: cannot open") || !strstr(out, "no_such.bin") ||
        strstr(out, good))
        fail_msg("%s", out);
    /* two missing images (one used by a texture, one not) and a short buffer: a line each, the file
     * named once per line, errors not silenced by --quiet */
    char *images = malloc(2048);
    const char *textured = write_model("textured.gltf", 1, "gone.png", "{\"byteLength\":99,\"uri\":\"tri.bin\"}");
    FILE *f = fopen(textured, "rb");
    size_t n = fread(images, 1, 2047, f);
    fclose(f);
    images[n] = 0;
    char *at = strstr(images, "\"images\":[");
    assert_non_null(at);
    char edited[4096];
    snprintf(edited, sizeof edited, "%.*s\"images\":[{\"uri\":\"also_gone.png\"},%s", (int)(at - images), images, at + 10);
    write_text(textured, edited);
    free(images);
    snprintf(args, sizeof args, "validate --quiet %s", textured);
    assert_int_equal(run_split(args), 1);
    const char *want[] = {"buffers[1].byteLength: 99 but the file has 36 bytes", "images[0].uri: cannot open",
                          "also_gone.png", "images[1].uri: cannot open", "gone.png'"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i])) fail_msg("lacks '%s': %s", want[i], out);
    assert_int_equal(count_of(out, "\n"), 3);
    assert_int_equal(count_of(out, textured), 3);
    assert_int_equal(err_out[0], 0);
    /* a symlink out of the folder is refused by validate and every command */
    char beside[128];
    snprintf(beside, sizeof beside, "/tmp/orrery_cli_outside_%d.bin", (int)getpid());
    write_text(beside, "four bytes or more");
    const char *link = in_scratch("plink.bin");
    assert_int_equal(symlink(beside, link), 0);
    const char *escaping = write_model("escaping.gltf", 1, NULL, "{\"byteLength\":4,\"uri\":\"plink.bin\"}");
    snprintf(args, sizeof args, "validate %s", escaping);
    assert_int_equal(run_split(args), 1);
    char want_msg[256];
    snprintf(want_msg, sizeof want_msg, "resolves to \"%s\", outside the model's folder", beside);
    if (!strstr(out, "buffers[1].uri") || !strstr(out, want_msg)) fail_msg("%s", out);
    snprintf(args, sizeof args, "snapshot %s --json", escaping);
    assert_int_equal(run_split(args), 1);
    assert_non_null(strstr(err_out, "outside the model's folder"));
    assert_int_equal(out[0], 0);
    remove(beside);
    assert_int_equal(run_split("validate --frobnicate"), 2);
    assert_non_null(strstr(err_out, "--frobnicate"));
}

/* Names in the scratch folder other than `keep` (a temporary file left behind would show here). */
static unsigned stray_files(const char *keep)
{
    DIR *d = opendir(scratch());
    assert_non_null(d);
    unsigned n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, keep)) n++;
    closedir(d);
    return n;
}

/* bench frame, small: one JSON line for the frames and one for the baseline, the moves counted; the
 * cameras turned away (--camera away) see nothing, outside they see the grid. */
static void test_bench_frame_json(void **state)
{
    (void)state;
    const char *cameras[2] = {"outside", "away"};
    for (int c = 0; c < 3; c++) { /* the third: outside, on 3 threads (wall-clock figures), the GPU idle first */
        char args[256];
        snprintf(args, sizeof args, "bench frame --n 400 --moving 5 --frames 4 --size 32x32 --camera %s --json%s",
                 cameras[c % 2], c == 2 ? " --threads 3 --settle" : "");
        assert_int_equal(run(args), 0);
        char *second = strchr(out, '\n');
        assert_non_null(second);
        *second++ = '\0';
        cJSON *f = cJSON_Parse(out), *b = cJSON_Parse(second);
        if (!f || !b) fail_msg("bench frame --json: not two JSON lines: %.300s", out);
        assert_string_equal(cJSON_GetObjectItem(f, "name")->valuestring, "frame");
        assert_string_equal(cJSON_GetObjectItem(f, "camera")->valuestring, cameras[c % 2]);
        assert_int_equal(cJSON_GetObjectItem(f, "threads")->valueint, c == 2 ? 3 : 1);
        assert_string_equal(cJSON_GetObjectItem(f, "clock")->valuestring, c == 2 ? "wall" : "thread_cpu");
        assert_true(cJSON_IsBool(cJSON_GetObjectItem(f, "settle")));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(f, "settle")), c == 2);
        assert_int_equal(cJSON_GetObjectItem(b, "threads")->valueint, c == 2 ? 3 : 1);
        /* 5% of 400 moves a frame, picked at random (a repeat moves one instance twice) */
        int changed = cJSON_GetObjectItem(f, "changed_median")->valueint;
        assert_true(changed > 10 && changed <= 20);
        double visible = cJSON_GetObjectItem(f, "visible")->valuedouble;
        if (c != 1) assert_true(visible > 0);
        else assert_true(visible == 0);
        assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(f, "phases"), "extract") != NULL);
        assert_string_equal(cJSON_GetObjectItem(b, "name")->valuestring, "baseline_changed");
        assert_int_equal(cJSON_GetObjectItem(b, "changed")->valueint, 20);
        cJSON_Delete(f);
        cJSON_Delete(b);
    }
}

/* bench frame --scene city, small: a street of buildings seen from inside; with --occlusion the GPU cull
 * hides buildings behind the first rows, and what it draws is what the frustum cull alone draws less
 * those (the surfaces of a frame are counted once: visible + occluded the same both ways); the last
 * frames' images (--png) are the same bytes, and not an empty street. */
static void test_bench_frame_city(void **state)
{
    (void)state;
    double visible[2] = {0, 0}, occluded[2] = {0, 0}, frustum[2] = {0, 0};
    char png[2][1024];
    for (int occ = 0; occ < 2; occ++) {
        snprintf(png[occ], sizeof png[occ], "%s", in_scratch(occ ? "city-occlusion.png" : "city.png"));
        char args[2400];
        snprintf(args, sizeof args,
                 "bench frame --scene city --n 400 --moving 2 --frames 4 --size 96x32 --views 2 --strategy indirect "
                 "--cull gpu --no-baseline-gpu --png %s --json%s",
                 png[occ], occ ? " --occlusion" : "");
        if (run(args) != 0) fail_msg("%s: %s", args, out);
        char *nl = strchr(out, '\n');
        if (nl) *nl = '\0';
        cJSON *f = cJSON_Parse(out);
        if (!f) fail_msg("bench frame --json: not a JSON line: %.300s", out);
        assert_string_equal(cJSON_GetObjectItem(f, "name")->valuestring, "frame");
        assert_string_equal(cJSON_GetObjectItem(f, "scene")->valuestring, "city");
        assert_true(cJSON_IsBool(cJSON_GetObjectItem(f, "occlusion")));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(f, "occlusion")), occ);
        visible[occ] = cJSON_GetObjectItem(f, "visible")->valuedouble;
        frustum[occ] = cJSON_GetObjectItem(f, "culled_frustum")->valuedouble;
        occluded[occ] = cJSON_GetObjectItem(f, "culled_occlusion")->valuedouble;
        cJSON_Delete(f);
    }
    /* without: nothing occluded; the street's sides seen, most of the city outside the views */
    assert_true(occluded[0] == 0 && visible[0] > 0 && frustum[0] > visible[0]);
    /* with: the same frustum, a part of it hidden, and the rest drawn */
    if (!(frustum[1] == frustum[0] && occluded[1] > 0 && visible[1] > 0 && visible[1] + occluded[1] == visible[0]))
        fail_msg("city: visible %g/%g, frustum %g/%g, occluded %g/%g", visible[0], visible[1], frustum[0], frustum[1],
                 occluded[0], occluded[1]);
    int w[2], h[2], n;
    unsigned char *px[2];
    for (int k = 0; k < 2; k++) {
        px[k] = stbi_load(png[k], &w[k], &h[k], &n, 4);
        if (!px[k]) fail_msg("%s: not a PNG", png[k]);
        assert_int_equal(w[k], 96);
        assert_int_equal(h[k], 32);
    }
    if (memcmp(px[0], px[1], 96 * 32 * 4) != 0) fail_msg("city: the images differ with --occlusion");
    uint32_t buildings = 0; /* pixels not the sky's (the clear colour, at the top left) */
    for (int i = 0; i < 96 * 32; i++) buildings += memcmp(px[0] + 4 * i, px[0], 4) != 0;
    if (buildings < 96 * 32 / 4) fail_msg("city: %u pixels of buildings in 96 x 32", buildings);
    stbi_image_free(px[0]);
    stbi_image_free(px[1]);
    remove(png[0]);
    remove(png[1]);
}

/* bench world on 2 threads: the world's passes and the baselines shared out; the bench checks the world's
 * matrices against the baseline's bit for bit (exit 1 when one differs), and every line names its threads. */
static void test_bench_world_threads(void **state)
{
    (void)state;
    assert_int_equal(run("bench world --n 5000 --reps 1 --threads 2 --json"), 0);
    uint32_t lines = 0;
    for (char *line = out, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        cJSON *j = cJSON_Parse(line);
        if (!j) fail_msg("bench world --json: not a JSON line: %.200s", line);
        cJSON *t = cJSON_GetObjectItem(j, "threads");
        if (cJSON_GetObjectItem(j, "ns_per_item") && (!t || t->valueint != 2)) fail_msg("no \"threads\": 2 in %.200s", line);
        lines++;
        cJSON_Delete(j);
    }
    assert_true(lines >= 2 * 9); /* both shapes */
}

static void test_write_failures_exit_1(void **state)
{
    (void)state;
    char args[1024];
    /* a device that takes no bytes */
    assert_int_equal(run_split("render --size 16x16 --views 1 -o /dev/full"), 1);
    if (!strstr(err_out, "/dev/full: cannot write PNG: No space left on device")) fail_msg("%s", err_out);
    /* a folder that does not exist */
    snprintf(args, sizeof args, "render --size 16x16 --views 1 -o %s", in_scratch("no/such/dir.png"));
    assert_int_equal(run_split(args), 1);
    assert_non_null(strstr(err_out, "no/such/dir.png: cannot write PNG"));
    /* a file system that fills up part-way (a file size limit: writes past 4 KiB fail with EFBIG): before,
     * exit 0 and a truncated PNG under the name; now exit 1, and the name keeps what it held */
    const char *png = in_scratch("picture.png");
    snprintf(args, sizeof args, "render --size 256x256 --views 1 -o %s", png);
    assert_int_equal(run_split(args), 0);
    struct stat st;
    assert_int_equal(stat(png, &st), 0);
    assert_true(st.st_size > 8192); /* so the limit below cuts it */
    unsigned char magic[8];
    FILE *f = fopen(png, "rb");
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal(stray_files("picture.png"), 0);
    write_text(png, "\x89PNG\r\n\x1a\nthe previous picture"); /* a PNG by its signature: render replaces it */
    snprintf(args, sizeof args, "sh -c 'trap \"\" XFSZ; ulimit -f 8; exec %s render --size 256x256 --views 1 -o %s'",
             orrt_tool(), png);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s 2>&1", args);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 1);
    if (!strstr(out, png) || !strstr(out, "cannot write PNG: File too large")) fail_msg("%s", out);
    f = fopen(png, "rb");
    char back[64] = {0};
    assert_true(fread(back, 1, sizeof back - 1, f) > 0);
    fclose(f);
    assert_string_equal(back, "\x89PNG\r\n\x1a\nthe previous picture");
    assert_int_equal(stray_files("picture.png"), 0); /* the temporary file is gone too */
    remove(png);
    snprintf(cmd, sizeof cmd, "sh -c 'trap \"\" XFSZ; ulimit -f 8; exec %s render --size 256x256 --views 1 -o %s' 2>&1",
             orrt_tool(), png);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 1);
    assert_false(exists(png)); /* no file at all rather than a truncated one */
    assert_int_equal(stray_files("picture.png"), 0);
    /* a symlink is written through: the link stays, its target is replaced */
    const char *target = in_scratch("target.png"), *link = in_scratch("link.png");
    write_text(target, "\x89PNG\r\n\x1a\nold");
    assert_int_equal(symlink(target, link), 0);
    snprintf(args, sizeof args, "render --size 16x16 --views 1 -o %s", link);
    assert_int_equal(run_split(args), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(target, &st), 0);
    assert_true(st.st_size > 8);
    /* stdout that cannot be written: JSON and text output alike */
    const char *model = write_model("m.gltf", 1, NULL, "");
    const char *to_full[] = {"snapshot --json", "snapshot", "serve --ticks 1 --json", "info %s --json", "info %s",
                             "validate /nonexistent.gltf", "render --size 8x8 --views 1 -o /dev/null --stats", "--help"};
    for (size_t i = 0; i < sizeof to_full / sizeof to_full[0]; i++) {
        char a[512];
        snprintf(a, sizeof a, to_full[i], model);
        snprintf(args, sizeof args, "%s >/dev/full", a);
        int status = run_split(args);
        if (status != 1 || !strstr(err_out, "writing the output failed: No space left on device"))
            fail_msg("'%s': exit %d, stderr: %s", a, status, err_out);
    }
    /* /dev/null is a device too: written in place, exit 0 */
    assert_int_equal(run_split("render --size 8x8 --views 1 -o /dev/null"), 0);
}

/* `validate` on every file of the Khronos validator's own invalid corpus (index.json; each file has
 * at least one error in the validator's report): exit 1, with a line on stdout naming the file and,
 * after it, the reason. Before: exit 0 on 12 of the 162 (errors inside extensions the loader does not
 * read, broken images no texture uses, an UNSIGNED_INT application attribute, a tangent space a
 * material's extension needs); must_refuse.txt's files are refused (the library's own test). */
/* render --pick centre: in the built-in orrery every view's centre pixel picks the body its camera is
 * named after (cam_belt looks at a rock of the belt), with every strategy and cull; a pixel on the
 * clear colour (a small file's corner) picks nothing. */
static void test_render_pick_builtin(void **state)
{
    (void)state;
    static const char *const ways[] = {"--strategy direct", "--strategy batched", "--strategy indirect --cull cpu",
                                       "--strategy indirect --cull gpu"};
    static const char *const want[4][2] = {
        {"(cam_earth)", ": earth ("}, {"(cam_jupiter)", ": jupiter ("}, {"(cam_belt)", ": rock_"}, {"(cam_sun)", ": sun ("}};
    for (unsigned w = 0; w < 4; w++) {
        char args[512];
        snprintf(args, sizeof args, "render --views 4 --size 400x150 --belt 300 --pick centre --validation -q %s -o "
                 "/tmp/orrery-cli-pick-%d.png", ways[w], (int)getpid());
        assert_int_equal(run_split(args), 0);
        unsigned lines = 0;
        for (const char *line = out; *line; lines++) {
            const char *end = strchr(line, '\n');
            assert_non_null(end);
            char one[512];
            snprintf(one, sizeof one, "%.*s", (int)(end - line), line);
            assert_true(lines < 4);
            if (!strstr(one, want[lines][0]) || !strstr(one, want[lines][1]))
                fail_msg("%s: view %u: '%s' (want %s and %s)", ways[w], lines, one, want[lines][0], want[lines][1]);
            assert_non_null(strstr(one, " m away"));
            line = end + 1;
        }
        assert_int_equal(lines, 4);
    }
    char args[256];
    /* the small file's triangle framed in the middle: its corner shows the clear colour */
    snprintf(args, sizeof args, "render %s --views 1 --size 160x90 --pick 0,0 -q -o /tmp/orrery-cli-pick-%d.png",
             fixture_path(), (int)getpid());
    assert_int_equal(run_split(args), 0);
    assert_non_null(strstr(out, "pixel 0,0: nothing\n"));
    /* view: a click prints what is under it, once the frame that drew the pick completes */
    assert_int_equal(run_split("view --offscreen --belt 300 --size 320x180 --views 2 --frames 3 --click 1:80,90 "
                               "--validation"), 0);
    assert_non_null(strstr(out, "pick view 0 (cam_earth) pixel 80,90: earth ("));
    assert_int_equal(count_of(out, "pick view"), 1);
    assert_int_equal(run_split("view --offscreen --frames 3 --click 1:80"), 2);
    assert_non_null(strstr(err_out, "--click must be FRAME:X,Y"));
    /* render --debug bounds: the same frame with each instance's box over it; a bad entry refused */
    char plain[128], boxed[128];
    snprintf(plain, sizeof plain, "/tmp/orrery-cli-plain-%d.png", (int)getpid());
    snprintf(boxed, sizeof boxed, "/tmp/orrery-cli-boxed-%d.png", (int)getpid());
    snprintf(args, sizeof args, "render %s --views 1 --size 160x90 --msaa 1 -q -o %s", fixture_path(), plain);
    assert_int_equal(run_split(args), 0);
    snprintf(args, sizeof args, "render %s --views 1 --size 160x90 --msaa 1 -q --debug bounds,cascades --validation -o %s",
             fixture_path(), boxed);
    assert_int_equal(run_split(args), 0);
    FILE *fa = fopen(plain, "rb"), *fb = fopen(boxed, "rb");
    assert_non_null(fa);
    assert_non_null(fb);
    static unsigned char ba[1 << 16], bb[1 << 16];
    size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
    fclose(fa), fclose(fb);
    assert_true(na != nb || memcmp(ba, bb, na));
    remove(plain), remove(boxed);
    assert_int_equal(run_split("render --debug bounds,walls -o /tmp/orrery-cli-never.png"), 2);
    assert_non_null(strstr(err_out, "--debug takes bounds, frusta and cascades, comma-separated (got 'walls')"));
    assert_int_equal(run_split("view --offscreen --belt 100 --size 160x90 --frames 3 --keys 1:b,2:b --validation"), 0);
    snprintf(args, sizeof args, "render --pick 3 -o /tmp/orrery-cli-pick-%d.png", (int)getpid());
    assert_int_equal(run_split(args), 2);
    assert_non_null(strstr(err_out, "--pick must be centre or X,Y"));
    snprintf(args, sizeof args, "/tmp/orrery-cli-pick-%d.png", (int)getpid());
    remove(args);
}

static void test_validate_fails_every_invalid_file(void **state)
{
    (void)state;
    char base[4096], index[4200];
    snprintf(base, sizeof base, "%s", orrt_asset("gltf-invalid"));
    snprintf(index, sizeof index, "%s/index.json", base);
    FILE *f = fopen(index, "rb");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cJSON *j = cJSON_Parse(text);
    assert_true(cJSON_IsArray(j));
    int files = 0, passed = 0;
    for (const cJSON *e = j->child; e; e = e->next) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "file");
        assert_true(cJSON_IsString(name));
        char path[8192], args[8300], head[8200];
        snprintf(path, sizeof path, "%s/%s", base, name->valuestring);
        snprintf(args, sizeof args, "validate -q '%s'", path);
        int status = run_split(args);
        files++;
        snprintf(head, sizeof head, "%s: ", path);
        bool named = strncmp(out, head, strlen(head)) == 0 && out[strlen(head)] && out[strlen(head)] != '\n';
        if (status != 1 || !named) {
            passed++;
            print_error("%s: exit %d, stdout: %s\n", name->valuestring, status, out);
        }
    }
    cJSON_Delete(j);
    print_message("validate: %d invalid files, %d not reported\n", files, passed);
    assert_true(files > 100);
    assert_int_equal(passed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_render_post_process),
        cmocka_unit_test(test_missing_and_broken_files_exit_1_with_one_line),
        cmocka_unit_test(test_snapshot_json),
        cmocka_unit_test(test_snapshot_json_morph_weights),
        cmocka_unit_test(test_builtin_snapshot_has_lights_and_cameras),
        cmocka_unit_test(test_view_offscreen),
        cmocka_unit_test(test_serve_never_extracts),
        cmocka_unit_test(test_bench_frame_json), cmocka_unit_test(test_bench_frame_city),
        cmocka_unit_test(test_bench_world_threads),
        cmocka_unit_test_setup_teardown(test_option_values_refused_with_range, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_anim_refused_alike, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_warnings_on_stderr, scratch_fresh, scratch_remove),
        cmocka_unit_test_setup_teardown(test_validate_checks_every_file, scratch_fresh, scratch_remove),
        cmocka_unit_test(test_validate_fails_every_invalid_file),
        cmocka_unit_test(test_render_pick_builtin),
        cmocka_unit_test_setup_teardown(test_write_failures_exit_1, scratch_fresh, scratch_remove),
    };
    const char *only = getenv("ORRT_FILTER"); /* a pattern of test names (cmocka's: * and ?) */
    if (only && *only) cmocka_set_test_filter(only);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    failed += orrt_cli_long_work(); /* tests/cli/test_long_work.c */
    failed += orrt_cli_hardening(); /* tests/cli/test_hardening.c */
    failed += orrt_cli_usage();     /* tests/cli/test_usage.c */
    return failed;
}
