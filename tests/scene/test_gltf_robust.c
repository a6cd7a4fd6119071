/* The loader against input that changes under it or is built to cost more than its size (issue 31):
 * a file shrinking while it loads, memory amplification by the JSON, invalid UTF-8, NUL in strings,
 * duplicate keys, non-finite poses. Every file is written here, at run time. */
#include "scene_tests.h"

#include <fcntl.h>
#include <orrery/world.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *scratch_dir(void)
{
    const char *dir = orrt_scratch("robust");
    assert_non_null(dir);
    return dir;
}

static void scratch_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", scratch_dir(), name);
}

static void write_file(const char *name, const void *data, size_t n)
{
    char path[512];
    scratch_path(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* ---- 1: a file that shrinks while it loads ---------------------------------------------------- */

/* An allocator that cuts a file to `keep` bytes at its `at`-th call after being armed: a
 * deterministic stand-in for an exporter rewriting the file while a viewer loads it. */
typedef struct shrinker {
    const char *path;
    off_t keep;
    long calls, at;
    bool armed, done;
} shrinker;

static void *shrinking_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    shrinker *s = user;
    if (s->armed && !s->done && ++s->calls == s->at) {
        assert_int_equal(truncate(s->path, s->keep), 0);
        s->done = true;
    }
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, new_size);
}

/* A triangle list of `n` vertices (n a multiple of 3) whose positions fill `bin`: 12 n bytes. */
static char *big_mesh_json(uint32_t n, const char *uri, size_t bin_offset)
{
    char *json = malloc(2048);
    assert_non_null(json);
    snprintf(json, 2048,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1,1]}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%u}],"
             "\"buffers\":[{%s%s%s\"byteLength\":%zu}]}",
             n, bin_offset, 12 * n, uri ? "\"uri\":\"" : "", uri ? uri : "", uri ? "\"," : "", bin_offset + 12 * (size_t)n);
    return json;
}

static float *big_positions(uint32_t n)
{
    float *p = malloc(12 * (size_t)n);
    assert_non_null(p);
    for (uint32_t i = 0; i < 3 * n; i++) p[i] = (float)(i % 7) / 7.0f;
    return p;
}

/* Loads `model` once for each point at which `victim` may be cut (every allocation of the load),
 * each time from a fresh copy: every load either succeeds (the cut came after the file was read) or
 * is refused naming the victim; none kills the process. Returns how many were refused. */
static int load_while_shrinking(const char *model, const char *victim, const void *bytes, size_t n, off_t keep)
{
    char mpath[512], vpath[512];
    scratch_path(mpath, sizeof mpath, model);
    scratch_path(vpath, sizeof vpath, victim);
    int refused = 0;
    long total = -1;
    for (long at = 1; total < 0 || at <= total + 1; at++) {
        write_file(victim, bytes, n);
        shrinker s = {.path = vpath, .keep = keep, .at = at};
        orr_assets_desc ad = {.allocator = {shrinking_realloc, &s}};
        orr_assets *assets;
        assert_int_equal(orr_assets_create(&ad, &assets), ORR_OK);
        s.armed = true;
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load(assets, mpath, NULL, &prefab, &err);
        if (!s.done) total = s.calls; /* the whole load made fewer calls: this was the last point */
        if (r != ORR_OK) {
            refused++;
            if (!strstr(err.message, victim)) fail_msg("cut at call %ld: refused without naming %s: %s", at, victim, err.message);
        }
        orr_assets_destroy(assets);
        if (!s.done) break;
    }
    assert_true(total > 10);
    return refused;
}

static void test_file_shrinking_while_loading(void **state)
{
    (void)state;
    /* 300 KiB of positions: above the size the loader used to map */
    const uint32_t n = 3 * 8600;
    float *pos = big_positions(n);

    /* a GLB cut to its first page while it loads */
    char *json = big_mesh_json(n, NULL, 0);
    size_t jn = (strlen(json) + 3) & ~(size_t)3, bn = 12 * (size_t)n;
    size_t total = 12 + 8 + jn + 8 + bn;
    uint8_t *glb = calloc(1, total);
    assert_non_null(glb);
    uint32_t hdr[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)jn, 0x4E4F534Au};
    memcpy(glb, hdr, sizeof hdr);
    memset(glb + 20, ' ', jn);
    memcpy(glb + 20, json, strlen(json));
    uint32_t bin[2] = {(uint32_t)bn, 0x004E4942u};
    memcpy(glb + 20 + jn, bin, sizeof bin);
    memcpy(glb + 28 + jn, pos, bn);
    int refused = load_while_shrinking("shrink.glb", "shrink.glb", glb, total, 4096);
    print_message("shrinking .glb: %d loads refused\n", refused);
    assert_true(refused >= 1);
    free(json);
    free(glb);

    /* a .gltf whose external buffer is cut while it loads */
    json = big_mesh_json(n, "shrink.bin", 0);
    write_file("shrink.gltf", json, strlen(json));
    refused = load_while_shrinking("shrink.gltf", "shrink.bin", pos, bn, 4096);
    print_message("shrinking external buffer: %d loads refused\n", refused);
    assert_true(refused >= 1);
    free(json);
    free(pos);
}

int orrt_scene_robust(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_shrinking_while_loading),
    };
    return cmocka_run_group_tests_name("scene_robust", tests, NULL, NULL);
}
