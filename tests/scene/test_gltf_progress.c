/* orr_gltf_options.progress: the phases of a load, in order, with their counts, on the loading thread. */
#include "scene_tests.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct call {
    orr_gltf_phase phase;
    uint64_t done, total;
} call;

typedef struct recorder {
    call calls[64];
    unsigned n;
    pthread_t thread; /* the thread that started the load */
    bool other_thread;
} recorder;

static void record(void *user, orr_gltf_phase phase, uint64_t done, uint64_t total)
{
    recorder *r = user;
    if (!pthread_equal(pthread_self(), r->thread)) r->other_thread = true;
    if (r->n < 64) r->calls[r->n++] = (call){phase, done, total};
}

/* Three meshes, two textures on one 2x2 PNG each (two images), three nodes. */
static const char model[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2]}],"
    "\"nodes\":[{\"mesh\":0},{\"mesh\":1},{\"mesh\":2}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]},"
    "{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":1}]},{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
    "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}},"
    "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":1}}}],"
    "\"textures\":[{\"source\":0},{\"source\":1}],"
    "\"images\":[{\"uri\":\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEUlEQVR4nGP4z8DwH4QZYAwAR8oH+WdZbrcAAAAASUVORK5CYII=\"},"
    "{\"uri\":\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEUlEQVR4nGP4z8DwH4QZYAwAR8oH+WdZbrcAAAAASUVORK5CYII=\"}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,1,0]}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
    "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}]}";

static void test_load_reports_its_phases(void **state)
{
    (void)state;
    for (uint32_t threads = 1; threads <= 4; threads += 3) { /* the caller's thread alone, and a pool */
        orr_assets *assets;
        assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
        recorder r = {.thread = pthread_self()};
        orr_gltf_options opt = {.threads = threads, .progress = record, .progress_user = &r};
        orr_prefab_id prefab;
        orr_error err;
        if (orr_gltf_load_memory(assets, model, strlen(model), "/tmp", "progress", &opt, &prefab, &err) != ORR_OK)
            fail_msg("%s", err.message);
        const call want[] = {
            {ORR_GLTF_PHASE_PARSE, 0, strlen(model)},
            {ORR_GLTF_PHASE_IMAGES, 0, 2},
            {ORR_GLTF_PHASE_IMAGES, 2, 2},
            {ORR_GLTF_PHASE_MESHES, 0, 3},
            {ORR_GLTF_PHASE_MESHES, 1, 3},
            {ORR_GLTF_PHASE_MESHES, 2, 3},
            {ORR_GLTF_PHASE_MESHES, 3, 3},
            {ORR_GLTF_PHASE_WORLD, 0, 5}, /* root, scene, three nodes */
        };
        unsigned nwant = sizeof want / sizeof want[0];
        for (unsigned k = 0; k < r.n && k < nwant; k++)
            if (r.calls[k].phase != want[k].phase || r.calls[k].done != want[k].done || r.calls[k].total != want[k].total)
                fail_msg("threads %u, call %u: phase %d, %llu of %llu; expected phase %d, %llu of %llu", threads, k,
                         (int)r.calls[k].phase, (unsigned long long)r.calls[k].done,
                         (unsigned long long)r.calls[k].total, (int)want[k].phase,
                         (unsigned long long)want[k].done, (unsigned long long)want[k].total);
        assert_int_equal(r.n, nwant);
        assert_false(r.other_thread);
        orr_assets_destroy(assets);
    }
}

/* A refused load stops at the phase that refused it. */
static void test_refused_load_stops_reporting(void **state)
{
    (void)state;
    static const char broken[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":4}]}";
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    recorder r = {.thread = pthread_self()};
    orr_gltf_options opt = {.progress = record, .progress_user = &r};
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(orr_gltf_load_memory(assets, broken, strlen(broken), "/tmp", "broken", &opt, &prefab, &err),
                     ORR_ERROR_PARSE);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.calls[0].phase, ORR_GLTF_PHASE_PARSE);
    orr_assets_destroy(assets);
}

int orrt_scene_progress(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_reports_its_phases),
        cmocka_unit_test(test_refused_load_stops_reporting),
    };
    return cmocka_run_group_tests_name("scene: load progress", tests, NULL, NULL);
}
