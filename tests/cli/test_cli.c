/* The command-line tool as a user drives it (no GPU): help, errors, snapshot JSON, the server. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static char out[1 << 20];

static const char *tool(void)
{
    const char *t = getenv("ORRERY_TOOL");
    if (!t) fail_msg("ORRERY_TOOL is not set (run through ctest)");
    return t;
}

static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s", tool(), args);
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
          "\"type\":\"VEC3\"}],\"bufferViews\":[],\"buffers\":[]}",
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

static void test_builtin_snapshot_has_lights_and_cameras(void **state)
{
    (void)state;
    cJSON *j = snapshot_json("");
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(j, "instances")) > 2000);
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

static void test_serve_never_extracts(void **state)
{
    (void)state;
    assert_int_equal(run("serve --ticks 120 --json"), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "ticks")->valueint, 120);
    assert_int_equal(cJSON_GetObjectItem(j, "extractions")->valueint, 0);
    assert_true(cJSON_GetObjectItem(j, "entities")->valueint > 2000);
    cJSON_Delete(j);
    assert_int_equal(run("serve 2>&1"), 2);
    assert_non_null(strstr(out, "--ticks"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_missing_and_broken_files_exit_1_with_one_line),
        cmocka_unit_test(test_snapshot_json),
        cmocka_unit_test(test_builtin_snapshot_has_lights_and_cameras),
        cmocka_unit_test(test_serve_never_extracts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
