/* External files: a symlink inside the model's folder must not lead the loader outside it (files and
 * folders, buffers and images), allow_outside_uris still follows them, and require_files reports every
 * buffer and image file that cannot be used, used or not. Every fixture is written here, at run time,
 * into a scratch folder with a model folder and an "outside" folder beside it. */
#include "scene_tests.h"

#include <orrery/world.h>
#include <stb/stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256], model[300], outside[300];

static void path_in(char *out, size_t cap, const char *dir, const char *name) { snprintf(out, cap, "%s/%s", dir, name); }

static void put(const char *dir, const char *name, const void *data, size_t n)
{
    char p[512];
    path_in(p, sizeof p, dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void link_in_model(const char *name, const char *target)
{
    char p[512];
    path_in(p, sizeof p, model, name);
    unlink(p);
    if (symlink(target, p) != 0) fail_msg("symlink %s -> %s failed", p, target);
}

/* A 2x2 PNG of one colour. */
static void put_png(const char *dir, const char *name, uint8_t r, uint8_t g, uint8_t b)
{
    uint8_t px[16];
    for (int i = 0; i < 4; i++) px[i * 4] = r, px[i * 4 + 1] = g, px[i * 4 + 2] = b, px[i * 4 + 3] = 255;
    char p[512];
    path_in(p, sizeof p, dir, name);
    assert_true(stbi_write_png(p, 2, 2, 4, px, 8) != 0);
}

/* Positions of the triangle in tri.bin: inside the folder (0..1), outside (0..7), so a test can
 * tell which file was read. */
static const float inside_pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const float outside_pos[9] = {0, 0, 0, 7, 0, 0, 0, 7, 0};

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/orrery_files_%ld", (long)getpid());
    path_in(model, sizeof model, root, "model");
    path_in(outside, sizeof outside, root, "outside");
    mkdir(root, 0700);
    mkdir(model, 0700);
    mkdir(outside, 0700);
    put(model, "tri.bin", inside_pos, sizeof inside_pos);
    put(outside, "tri.bin", outside_pos, sizeof outside_pos);
    put_png(model, "red.png", 255, 0, 0);
    put_png(outside, "green.png", 0, 255, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* A triangle whose positions come from buffer uri `buffer` (36 bytes), textured by image uri
 * `image` (NULL = no material); `extra_buffers` and `extra_images` append unused entries (JSON
 * members, "" = none). */
static char *model_json(const char *buffer, const char *image, const char *extra_buffers, const char *extra_images)
{
    char *j = malloc(4096);
    assert_non_null(j);
    char images[1024] = "";
    if (image || *extra_images)
        snprintf(images, sizeof images, ",\"images\":[%s%s%s%s%s]", image ? "{\"uri\":\"" : "", image ? image : "",
                 image ? "\"}" : "", image && *extra_images ? "," : "", extra_images);
    snprintf(j, 4096,
             "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"tri\",\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}%s}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
             "\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}%s%s]%s%s}",
             image ? ",\"material\":0" : "", buffer, *extra_buffers ? "," : "", extra_buffers,
             image ? ",\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
                     "\"textures\":[{\"source\":0}]"
                   : "",
             images);
    return j;
}

typedef struct logbook {
    int warnings, errors;
    char all[8192];
} logbook;

/* `errors` counts what is wrong with the files: model_json's own two spec errors (its POSITION has no
 * min/max, its material samples coordinates the primitive lacks) are logged at every load, not counted. */
static void record(void *user, orr_log_level level, const char *msg)
{
    logbook *l = user;
    if (level == ORR_LOG_WARNING) l->warnings++;
    if (level >= ORR_LOG_ERROR && !strstr(msg, "POSITION: accessor 0 has no min/max") && !strstr(msg, "samples TEXCOORD_0"))
        l->errors++;
    size_t n = strlen(l->all);
    snprintf(l->all + n, sizeof l->all - n, "%s\n", msg);
}

/* Writes `json` as model/NAME and loads it from its path (so the folder is the model's). */
static orr_result load_model(const char *name, const char *json, const orr_gltf_options *opt, logbook *log,
                             orr_assets **out_assets, orr_prefab_id *p, orr_error *err)
{
    put(model, name, json, strlen(json));
    char path[512];
    path_in(path, sizeof path, model, name);
    orr_assets_desc d = {.logger = {record, log}};
    assert_int_equal(orr_assets_create(log ? &d : NULL, out_assets, NULL), ORR_OK);
    return orr_gltf_load(*out_assets, path, opt, p, err);
}

/* The triangle's x extent and its base colour texture's first texel (red channel, green channel). */
static void loaded(const orr_assets *a, orr_prefab_id p, float *max_x, int *red, int *green)
{
    const orr_world *w = orr_prefab_world(a, p);
    const orr_mesh *mesh = NULL;
    const orr_mesh_renderer *mr = NULL;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);)
        if (!mr) mr = orr_mesh_renderer_try_get(w, e);
    orr_subtree_end(&it);
    assert_non_null(mr);
    mesh = orr_assets_try_get_mesh(a, mr->mesh);
    assert_non_null(mesh);
    *max_x = (float)mesh->bounds.max.x;
    const orr_material *m = orr_assets_try_get_material(a, mesh->primitives[0].material);
    const orr_texture *t = m ? orr_assets_try_get_texture(a, m->base_color_texture.texture) : NULL;
    *red = t ? t->rgba8[0] : -1;
    *green = t ? t->rgba8[1] : -1;
}

static void expect_outside(orr_result r, const orr_error *err, const char *json_path, const char *target)
{
    assert_int_equal(r, ORR_ERROR_PARSE);
    if (!strstr(err->message, json_path) || !strstr(err->message, "outside the model's folder") ||
        !strstr(err->message, target) || !strstr(err->message, "allow_outside_uris"))
        fail_msg("expected '%s ... %s ... outside the model's folder', got: %s", json_path, target, err->message);
}

static void test_buffer_symlinks_stay_inside(void **state)
{
    (void)state;
    orr_assets *a;
    orr_prefab_id p;
    orr_error err;
    float x;
    int red, green;
    /* the plain file loads, and a link to a file inside the folder is fine */
    char *json = model_json("tri.bin", NULL, "", "");
    assert_int_equal(load_model("plain.gltf", json, NULL, NULL, &a, &p, &err), ORR_OK);
    loaded(a, p, &x, &red, &green);
    assert_true(x == 1.0f);
    orr_assets_destroy(a);
    free(json);
    link_in_model("alias.bin", "tri.bin");
    json = model_json("alias.bin", NULL, "", "");
    if (load_model("alias.gltf", json, NULL, NULL, &a, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_assets_destroy(a);
    free(json);

    /* a file link to /etc/passwd: before, its bytes became vertices */
    struct stat st;
    if (stat("/etc/passwd", &st) == 0 && st.st_size >= 36) {
        link_in_model("plink.bin", "/etc/passwd");
        json = model_json("plink.bin", NULL, "", "");
        expect_outside(load_model("plink.gltf", json, NULL, NULL, &a, &p, &err), &err, "buffers[0].uri", "/etc/passwd");
        assert_int_equal(orr_assets_mesh_count(a), 0);
        orr_assets_destroy(a);
        free(json);
    }
    /* a file link to a file beside the folder */
    char target[512];
    path_in(target, sizeof target, outside, "tri.bin");
    link_in_model("flink.bin", target);
    json = model_json("flink.bin", NULL, "", "");
    expect_outside(load_model("flink.gltf", json, NULL, NULL, &a, &p, &err), &err, "buffers[0].uri", target);
    orr_assets_destroy(a);
    orr_gltf_options allow = {.allow_outside_uris = true};
    if (load_model("flink.gltf", json, &allow, NULL, &a, &p, &err) != ORR_OK) fail_msg("allowed: %s", err.message);
    loaded(a, p, &x, &red, &green);
    assert_true(x == 7.0f); /* the outside file was followed */
    orr_assets_destroy(a);
    free(json);

    /* a folder link: sub -> outside */
    link_in_model("sub", outside);
    json = model_json("sub/tri.bin", NULL, "", "");
    expect_outside(load_model("dlink.gltf", json, NULL, NULL, &a, &p, &err), &err, "buffers[0].uri", target);
    orr_assets_destroy(a);
    if (load_model("dlink.gltf", json, &allow, NULL, &a, &p, &err) != ORR_OK) fail_msg("allowed: %s", err.message);
    loaded(a, p, &x, &red, &green);
    assert_true(x == 7.0f);
    orr_assets_destroy(a);
    free(json);

    /* an unused buffer is not read, but it is checked all the same */
    json = model_json("tri.bin", NULL, "{\"byteLength\":36,\"uri\":\"flink.bin\"}", "");
    expect_outside(load_model("unused.gltf", json, NULL, NULL, &a, &p, &err), &err, "buffers[1].uri", target);
    orr_assets_destroy(a);
    free(json);

    /* a link that cannot be resolved, other than a missing file, refuses the file: a loop */
    link_in_model("loop.bin", "loop.bin");
    json = model_json("tri.bin", NULL, "{\"byteLength\":4,\"uri\":\"loop.bin\"}", "");
    assert_int_equal(load_model("loop.gltf", json, NULL, NULL, &a, &p, &err), ORR_ERROR_IO);
    if (!strstr(err.message, "buffers[1].uri: cannot resolve") || !strstr(err.message, "loop.bin"))
        fail_msg("%s", err.message);
    orr_assets_destroy(a);
    free(json);

    /* the model's own folder reached through a link is still its folder */
    char via[512], path[600];
    path_in(via, sizeof via, root, "modellink");
    unlink(via);
    assert_int_equal(symlink(model, via), 0);
    snprintf(path, sizeof path, "%s/plain.gltf", via);
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    if (orr_gltf_load(a, path, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_assets_destroy(a);
    /* and from memory, against a base folder given as a link */
    json = model_json("tri.bin", NULL, "", "");
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    if (orr_gltf_load_memory(a, json, strlen(json), via, NULL, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_assets_destroy(a);
    free(json);
    json = model_json("flink.bin", NULL, "", "");
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    expect_outside(orr_gltf_load_memory(a, json, strlen(json), via, NULL, NULL, &p, &err), &err, "buffers[0].uri", target);
    orr_assets_destroy(a);
    free(json);
}

static void test_image_symlinks_stay_inside(void **state)
{
    (void)state;
    orr_assets *a;
    orr_prefab_id p;
    orr_error err;
    float x;
    int red, green;
    char *json = model_json("tri.bin", "red.png", "", "");
    if (load_model("red.gltf", json, NULL, NULL, &a, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    loaded(a, p, &x, &red, &green);
    assert_int_equal(red, 255);
    assert_int_equal(green, 0);
    orr_assets_destroy(a);
    free(json);

    char target[512];
    path_in(target, sizeof target, outside, "green.png");
    link_in_model("ilink.png", target);
    link_in_model("sub", outside);
    orr_gltf_options allow = {.allow_outside_uris = true};
    const char *uris[] = {"ilink.png", "sub/green.png"}; /* a file link, a folder link */
    for (int k = 0; k < 2; k++) {
        json = model_json("tri.bin", uris[k], "", "");
        expect_outside(load_model("img.gltf", json, NULL, NULL, &a, &p, &err), &err, "images[0].uri", target);
        assert_int_equal(orr_assets_texture_count(a), 0);
        orr_assets_destroy(a);
        if (load_model("img.gltf", json, &allow, NULL, &a, &p, &err) != ORR_OK) fail_msg("allowed: %s", err.message);
        loaded(a, p, &x, &red, &green);
        assert_int_equal(red, 0); /* the outside image was followed */
        assert_int_equal(green, 255);
        orr_assets_destroy(a);
        free(json);
    }
}

static void test_require_files_reports_each(void **state)
{
    (void)state;
    orr_assets *a;
    orr_prefab_id p;
    orr_error err;
    char dir[512];
    path_in(dir, sizeof dir, model, "folder.bin");
    mkdir(dir, 0700);
    /* an unused missing buffer, an unused buffer longer than its file, an unused folder, a used
     * image and an unused image that are missing */
    char *json = model_json("tri.bin", "gone.png",
                            "{\"byteLength\":16,\"uri\":\"nothing.bin\"},{\"byteLength\":64,\"uri\":\"tri.bin\"},"
                            "{\"byteLength\":4,\"uri\":\"folder.bin\"}",
                            "{\"uri\":\"also_gone.png\"}");
    /* by default the file loads: unused buffers are never opened, the missing image is a warning and a
     * white texture */
    logbook log = {0};
    if (load_model("files.gltf", json, NULL, &log, &a, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_int_equal(log.errors, 0);
    if (!strstr(log.all, "gone.png")) fail_msg("no warning for the missing image: %s", log.all);
    orr_assets_destroy(a);
    /* required: each is an error, logged once, under the first JSON path naming it */
    memset(&log, 0, sizeof log);
    orr_gltf_options req = {.require_files = true};
    assert_int_equal(load_model("files.gltf", json, &req, &log, &a, &p, &err), ORR_ERROR_IO);
    assert_int_equal(orr_assets_mesh_count(a), 0);
    assert_int_equal(log.errors, 5);
    const char *want[] = {"buffers[1].uri: cannot open '", "nothing.bin': No such file",
                          "buffers[2].byteLength: 64 but the file has 36 bytes",
                          "buffers[3].uri: cannot read '", "folder.bin': not a regular file",
                          "images[0].uri: cannot open '", "gone.png': No such file", "images[1].uri: cannot open '",
                          "also_gone.png'"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(log.all, want[i])) fail_msg("log lacks '%s':\n%s", want[i], log.all);
    if (!strstr(err.message, "buffers[1].uri: cannot open") || !strstr(err.message, "and 4 more"))
        fail_msg("%s", err.message);
    orr_assets_destroy(a);
    free(json);
    /* a complete file passes the same check */
    json = model_json("tri.bin", "red.png", "{\"byteLength\":36,\"uri\":\"tri.bin\"}", "{\"uri\":\"red.png\"}");
    memset(&log, 0, sizeof log);
    if (load_model("whole.gltf", json, &req, &log, &a, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_int_equal(log.errors, 0);
    orr_assets_destroy(a);
    free(json);
    rmdir(dir);
}

static void test_info_file_warns(void **state)
{
    (void)state;
    char *json = model_json("tri.bin", "gone.png", "{\"byteLength\":16,\"uri\":\"nothing.bin\"}", "");
    put(model, "info.gltf", json, strlen(json));
    char path[512];
    path_in(path, sizeof path, model, "info.gltf");
    logbook log = {0};
    orr_logger logger = {record, &log};
    orr_gltf_info info;
    orr_error err;
    if (orr_gltf_info_file(path, NULL, &logger, &info, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_int_equal(info.textures, 1);
    assert_int_equal(log.errors, 0);
    if (!strstr(log.all, "buffers[1].uri: cannot open") || !strstr(log.all, "images[0].uri: cannot open") ||
        !strstr(log.all, "accessor 0 has no min/max"))
        fail_msg("%s", log.all);
    /* options apply: the entity budget, and the folder */
    orr_gltf_options small = {.max_entities = 2};
    assert_int_equal(orr_gltf_info_file(path, &small, NULL, &info, &err), ORR_ERROR_CAPACITY);
    free(json);
    char target[512];
    path_in(target, sizeof target, outside, "tri.bin");
    link_in_model("flink.bin", target);
    json = model_json("flink.bin", NULL, "", "");
    put(model, "info.gltf", json, strlen(json));
    expect_outside(orr_gltf_info_file(path, NULL, NULL, &info, &err), &err, "buffers[0].uri", target);
    orr_gltf_options allow = {.allow_outside_uris = true};
    if (orr_gltf_info_file(path, &allow, NULL, &info, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_true(info.bounds.max.x == 7.0);
    free(json);
}

int orrt_scene_files(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffer_symlinks_stay_inside),
        cmocka_unit_test(test_image_symlinks_stay_inside),
        cmocka_unit_test(test_require_files_reports_each),
        cmocka_unit_test(test_info_file_warns),
    };
    return cmocka_run_group_tests_name("scene: external files", tests, setup, teardown);
}
