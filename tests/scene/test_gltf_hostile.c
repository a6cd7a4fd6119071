/* The loader against small hostile files (written here, at run time): each must be refused or loaded
 * within a time and memory bound the test asserts, however much work or memory the file asks for. */
#include "scene_tests.h"

#include <fcntl.h>
#include <orrery/world.h>
#include <stb/stb_image_write.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------------------ */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Peak resident memory in KiB (VmHWM; getrusage where /proc is missing). */
static long maxrss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    if (f) fclose(f);
    if (kib >= 0) return kib;
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* Resets the peak to the current footprint (Linux: clear_refs 5), so that a test's bound is its own
 * peak and not the highest of every test before it; returns that starting point. */
static long rss_mark(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
    return maxrss_kib();
}

/* A scratch folder for files the test writes (external buffers, images). */
static const char *scratch_dir(void)
{
    const char *dir = orrt_scratch("hostile");
    assert_non_null(dir);
    return dir;
}

static void write_file(const char *name, const void *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch_dir(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* A sparse file of `size` zero bytes: costs no disk and no memory until read. */
static void write_sparse(const char *name, off_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch_dir(), name);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static void remove_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch_dir(), name);
    unlink(path);
}

/* Loads JSON text with the scratch folder as base; returns the result and the message. */
static orr_result load_json(orr_assets *a, const char *json, const orr_gltf_options *opt, orr_prefab_id *p, orr_error *err)
{
    return orr_gltf_load_memory(a, json, strlen(json), scratch_dir(), NULL, opt, p, err);
}

static const char tri_uri[] = "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA";

/* ---- 1.4: joints checked once per mesh, not per node x primitive ------------------------------- */

static void test_nodes_x_primitives(void **state)
{
    (void)state;
    enum { N = 20000 };
    sbuf b = {0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,"
                  "\"min\":[0,0,0],\"max\":[1,1,0]}],\"meshes\":[{\"primitives\":[", tri_uri);
    for (int i = 0; i < N; i++) sb_printf(&b, "%s{\"attributes\":{\"POSITION\":0}}", i ? "," : "");
    sb_printf(&b, "]}],\"nodes\":[");
    for (int i = 0; i < N; i++) sb_printf(&b, "%s{\"mesh\":0}", i ? "," : "");
    sb_printf(&b, "],\"scenes\":[{\"nodes\":[");
    for (int i = 0; i < N; i++) sb_printf(&b, "%s%d", i ? "," : "", i);
    sb_printf(&b, "]}]}");
    write_file("nodes_x_primitives.gltf", b.s, b.n); /* kept for the benchmark: orrery bench gltf FILE */
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    double t0 = now_s();
    orr_result r = load_json(a, b.s, NULL, &p, &err);
    double dt = now_s() - t0;
    if (r != ORR_OK) fail_msg("%s", err.message);
    /* the time is the benchmark's (orrery bench gltf on the file this writes), not an assertion here */
    print_message("20000 nodes x 20000 primitives: %.2f s\n", dt);
    orr_assets_destroy(a);
    free(b.s);
}

static char *b64_uri(const void *data, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    char *out = malloc(n / 3 * 4 + 8 + 64);
    size_t o = (size_t)sprintf(out, "data:application/octet-stream;base64,");
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[o++] = tab[v >> 18 & 63];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = 0;
    return out;
}

/* The refusal still names the primitive, the element and the node. */
static void test_joint_out_of_range(void **state)
{
    (void)state;
    unsigned char buf[96] = {0};
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(buf, pos, 36);
    buf[36 + 4] = 2; /* element 1 names joint 2 */
    float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    memcpy(buf + 48, w, 48);
    char *uri = b64_uri(buf, sizeof buf);
    sbuf b = {0};
    sb_printf(&b,
              "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":96,\"uri\":\"%s\"}],"
              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
              "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],"
              "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]},"
              "{\"bufferView\":1,\"componentType\":5121,\"type\":\"VEC4\",\"count\":3},"
              "{\"bufferView\":2,\"componentType\":5126,\"type\":\"VEC4\",\"count\":3}],"
              "\"skins\":[{\"joints\":[0,1]}],"
              "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}},{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
              "\"nodes\":[{\"mesh\":0,\"skin\":0,\"children\":[1]},{}],\"scenes\":[{\"nodes\":[0]}]}",
              uri);
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(load_json(a, b.s, NULL, &p, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "meshes[0].primitives[1].attributes.JOINTS_0: element 1 has joint 2, skin 0 (used by node 0) has 2 joints"))
        fail_msg("message: %s", err.message);
    orr_assets_destroy(a);
    free(uri);
    free(b.s);
}

/* ---- 1.5: info applies the load's entity budget and decodes shared instance accessors once ----- */

/* `nodes` nodes instancing one triangle with one shared TRANSLATION accessor of `count` zeros, read
 * from a sparse external file. */
static char *instanced_json(uint32_t nodes, uint32_t count, const char *bin)
{
    sbuf b = {0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"],"
                  "\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"},{\"byteLength\":%llu,\"uri\":\"%s\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":1,\"byteLength\":%llu}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,"
                  "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":%u}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[",
              tri_uri, (unsigned long long)count * 12, bin, (unsigned long long)count * 12, count);
    for (uint32_t i = 0; i < nodes; i++)
        sb_printf(&b, "%s{\"mesh\":0,\"translation\":[%u,0,0],\"extensions\":{\"EXT_mesh_gpu_instancing\":{\"attributes\":{\"TRANSLATION\":1}}}}",
                  i ? "," : "", i * 10);
    sb_printf(&b, "],\"scenes\":[{\"nodes\":[");
    for (uint32_t i = 0; i < nodes; i++) sb_printf(&b, "%s%u", i ? "," : "", i);
    sb_printf(&b, "]}]}");
    return b.s;
}

static void test_info_instances(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/inst.gltf", scratch_dir());
    /* 5M instances: more than the 2^22 entities a load would accept, so info refuses too */
    write_sparse("inst5m.bin", (off_t)5000000 * 12);
    char *json = instanced_json(1, 5000000, "inst5m.bin");
    write_file("inst.gltf", json, strlen(json));
    free(json);
    orr_gltf_info info;
    orr_error err;
    double t0 = now_s();
    assert_int_equal(orr_gltf_info_file(path, NULL, NULL, &info, &err), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(err.message, "max_entities"));
    remove_file("inst5m.bin");
    /* 4 nodes sharing 1M instances: one decode, bounds right */
    write_sparse("inst1m.bin", (off_t)1000000 * 12);
    json = instanced_json(4, 1000000, "inst1m.bin");
    write_file("inst.gltf", json, strlen(json));
    free(json);
    if (orr_gltf_info_file(path, NULL, NULL, &info, &err) != ORR_OK) fail_msg("%s", err.message);
    double dt = now_s() - t0;
    print_message("info on instanced files: %.2f s\n", dt); /* timed by the benchmark, not asserted */
    assert_true(info.bounds.min.x == 0 && info.bounds.max.x == 31 && info.bounds.max.y == 1);
    remove_file("inst1m.bin");
    remove_file("inst.gltf");
}

/* ---- 1.6: skinned entities weigh what their component costs ------------------------------------ */

/* `n` scenes, each of one chain of `n` skinned nodes whose skin lists all `n` nodes as joints: n^2
 * SkinnedMesh components holding n^3 joint references. */
static char *skin_scenes_json(uint32_t n)
{
    unsigned char buf[96] = {0};
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(buf, pos, 36);
    float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    memcpy(buf + 48, w, 48);
    char *uri = b64_uri(buf, sizeof buf);
    sbuf b = {0};
    sb_printf(&b,
              "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":96,\"uri\":\"%s\"}],"
              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
              "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],"
              "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]},"
              "{\"bufferView\":1,\"componentType\":5121,\"type\":\"VEC4\",\"count\":3},"
              "{\"bufferView\":2,\"componentType\":5126,\"type\":\"VEC4\",\"count\":3}],\"skins\":[{\"joints\":[",
              uri);
    free(uri);
    for (uint32_t i = 0; i < n; i++) sb_printf(&b, "%s%u", i ? "," : "", i);
    sb_printf(&b, "]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
                  "\"nodes\":[");
    for (uint32_t i = 0; i < n; i++) {
        if (i + 1 < n) sb_printf(&b, "%s{\"mesh\":0,\"skin\":0,\"children\":[%u]}", i ? "," : "", i + 1);
        else sb_printf(&b, "%s{\"mesh\":0,\"skin\":0}", i ? "," : "");
    }
    sb_printf(&b, "],\"scenes\":[");
    for (uint32_t i = 0; i < n; i++) sb_printf(&b, "%s{\"nodes\":[0]}", i ? "," : "");
    sb_printf(&b, "]}");
    return b.s;
}

static void test_skinned_budget(void **state)
{
    (void)state;
    /* a 40 KB file claiming 1291^3 > 2^31 joint references (16 GiB of joint lists in the prefab, 200 GiB of
     * palettes per extraction), with only 1.7 million entities: refused by the budget, naming the skin */
    char *json = skin_scenes_json(1291);
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    long rss0 = rss_mark();
    double t0 = now_s();
    assert_int_equal(load_json(a, json, NULL, &p, &err), ORR_ERROR_CAPACITY);
    if (!strstr(err.message, "skins[0]: 1291 joints on 1666681 skinned entities would hold 2151685171 joint references"))
        fail_msg("%s", err.message);
    assert_non_null(strstr(err.message, "max_entities"));
    print_message("skinned budget refused in %.2f s\n", now_s() - t0); /* the work is the memory below */
    assert_true(maxrss_kib() - rss0 < 256 * 1024);
    assert_int_equal(orr_assets_mesh_count(a), 0);
    /* the same count in orr_gltf_info (validate, info) */
    orr_gltf_info info;
    char path[600];
    snprintf(path, sizeof path, "%s/skin_scenes.gltf", scratch_dir());
    write_file("skin_scenes.gltf", json, strlen(json));
    assert_int_equal(orr_gltf_info_file(path, NULL, NULL, &info, &err), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(err.message, "skins[0]"));
    free(json);
    /* 100 scenes of a chain of 100 with 100 joints each (10^6 joint references, 8 MB) is fine, and
     * every skinned entity holds its 100 joints: its scene's copies of the chain */
    json = skin_scenes_json(100);
    if (load_json(a, json, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    const orr_world *w = orr_prefab_world(a, p);
    assert_int_equal(orr_world_component_count(w, ORR_COMPONENT_SKINNED_MESH), 100 * 100);
    orr_entity scene = orr_entity_first_child(w, orr_prefab_root(a, p));
    orr_entity top = orr_entity_first_child(w, scene);
    uint32_t n;
    const orr_entity *joints = orr_skinned_mesh_joints(w, top, &n);
    assert_int_equal(n, 100);
    orr_entity at = top;
    for (uint32_t j = 0; j < n; j++, at = orr_entity_first_child(w, at)) assert_true(orr_entity_eq(joints[j], at));
    free(json);
    orr_assets_destroy(a);
}

/* ---- 1.7: URIs stay inside the file's folder unless allowed ----------------------------------- */

static void test_uri_outside_folder(void **state)
{
    (void)state;
    char sub[600];
    snprintf(sub, sizeof sub, "%s/sub", scratch_dir());
    mkdir(sub, 0700);
    char subx[700];
    snprintf(subx, sizeof subx, "%s/x", sub);
    mkdir(subx, 0700);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    write_file("tri.bin", pos, sizeof pos);
    write_file("sub/tri.bin", pos, sizeof pos);
    static const char fmt[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
    char abs[700];
    snprintf(abs, sizeof abs, "%s/tri.bin", scratch_dir());
    struct {
        const char *uri;
        bool inside;
    } cases[] = {
        {"/etc/passwd", false},      {abs, false},       {"../tri.bin", false}, {"%2e%2e%2ftri.bin", false},
        {"x/../../tri.bin", false},  {"tri.bin", true},  {"./tri.bin", true},   {"x/../tri.bin", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[2048];
        snprintf(json, sizeof json, fmt, cases[i].uri);
        orr_assets *a;
        assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
        orr_prefab_id p;
        orr_error err;
        orr_result r = orr_gltf_load_memory(a, json, strlen(json), sub, NULL, NULL, &p, &err);
        if (cases[i].inside) {
            if (r != ORR_OK) fail_msg("%s: %s", cases[i].uri, err.message);
        } else {
            assert_int_equal(r, ORR_ERROR_PARSE);
            if (!strstr(err.message, "buffers[0].uri: \"") || !strstr(err.message, "is outside the file's folder"))
                fail_msg("%s: %s", cases[i].uri, err.message);
            if (strcmp(cases[i].uri, "/etc/passwd") != 0) { /* allowed when asked */
                orr_gltf_options opt = {.allow_outside_uris = true};
                r = orr_gltf_load_memory(a, json, strlen(json), sub, NULL, &opt, &p, &err);
                if (r != ORR_OK) fail_msg("%s allowed: %s", cases[i].uri, err.message);
            }
        }
        orr_assets_destroy(a);
    }
    remove_file("tri.bin");
    remove_file("sub/tri.bin");
    rmdir(subx);
    rmdir(sub);
}

/* ---- 1.2 / 1.3: no amplification through repeated references ----------------------------------- */

/* 16000 images naming the same 400 KB file (the .gltf itself): nothing is read while no texture uses
 * them, and once when 16000 textures do (it is no image: each falls back, with a warning). */
static void test_self_referencing_images(void **state)
{
    (void)state;
    for (int textures = 0; textures < 2; textures++) {
        enum { N = 16000 };
        sbuf b = {0};
        sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"images\":[");
        for (int i = 0; i < N; i++) sb_printf(&b, "%s{\"uri\":\"self.gltf\"}", i ? "," : "");
        sb_printf(&b, "]");
        if (textures) {
            sb_printf(&b, ",\"textures\":[");
            for (int i = 0; i < N; i++) sb_printf(&b, "%s{\"source\":%d}", i ? "," : "", i);
            sb_printf(&b, "]");
        }
        sb_printf(&b, "}");
        while (b.n < 400000) sb_printf(&b, "          ");
        write_file("self.gltf", b.s, b.n);
        orr_assets *a;
        assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
        orr_prefab_id p;
        orr_error err;
        long rss0 = rss_mark();
        double t0 = now_s();
        orr_result r = orr_gltf_load_memory(a, b.s, b.n, scratch_dir(), NULL, NULL, &p, &err);
        if (r != ORR_OK) fail_msg("%s", err.message);
        double dt = now_s() - t0;
        print_message("%d images naming one file, %s textures: %.2f s, +%ld KiB\n", N, textures ? "with" : "without", dt,
                      maxrss_kib() - rss0);
        assert_true(maxrss_kib() - rss0 < 200 * 1024); /* before: 6 GB (each image read its own copy) */
        assert_int_equal(orr_assets_texture_count(a), textures ? 1 : 0); /* one white fallback, shared */
        orr_assets_destroy(a);
        free(b.s);
    }
    remove_file("self.gltf");
}

/* 5000 buffers naming the same file: opened once. */
static void test_self_referencing_buffers(void **state)
{
    (void)state;
    enum { N = 5000 };
    sbuf b = {0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[");
    for (int i = 0; i < N; i++) sb_printf(&b, "%s{\"uri\":\"selfbuf.gltf\",\"byteLength\":250000}", i ? "," : "");
    sb_printf(&b, "]}");
    while (b.n < 250000) sb_printf(&b, " ");
    write_file("selfbuf.gltf", b.s, b.n);
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    long rss0 = rss_mark();
    orr_result r = orr_gltf_load_memory(a, b.s, b.n, scratch_dir(), NULL, NULL, &p, &err);
    if (r != ORR_OK) fail_msg("%s", err.message);
    assert_true(maxrss_kib() - rss0 < 100 * 1024); /* before: 1.2 GB */
    orr_assets_destroy(a);
    free(b.s);
    remove_file("selfbuf.gltf");
    /* a buffer no view uses is never opened: neither a 1 GB file nor a missing one costs anything */
    write_sparse("unused.bin", (off_t)1 << 30);
    static const char unused[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"unused.bin\",\"byteLength\":1073741824},"
                                 "{\"uri\":\"missing.bin\",\"byteLength\":4}]}";
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    rss0 = rss_mark();
    if (load_json(a, unused, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_true(maxrss_kib() - rss0 < 16 * 1024);
    orr_assets_destroy(a);
    remove_file("unused.bin");
}

/* A view-less accessor is capped by the buffer bytes that exist, not by a byteLength without data;
 * and many primitives naming one accessor are each counted against the decoded-data budget. */
static void test_viewless_amplification(void **state)
{
    (void)state;
    sbuf b = {0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":9007199254740992}],"
                  "\"accessors\":[{\"componentType\":5126,\"type\":\"VEC3\",\"count\":16777216,\"min\":[0,0,0],\"max\":[0,0,0]}],"
                  "\"meshes\":[{\"primitives\":[");
    for (int i = 0; i < 64; i++) sb_printf(&b, "%s{\"attributes\":{\"POSITION\":0}}", i ? "," : "");
    sb_printf(&b, "]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}");
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    long rss0 = rss_mark();
    assert_int_equal(load_json(a, b.s, NULL, &p, &err), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(err.message, "accessors[0].count: 16777216 elements without a bufferView exceed the limit 65536"));
    free(b.s);
    /* within the cap: 60000 zeros named by 64 primitives cost 64 x 1.4 MB; a budget of 32 MB refuses */
    b = (sbuf){0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"type\":\"VEC3\",\"count\":60000,"
                  "\"min\":[0,0,0],\"max\":[0,0,0]}],\"meshes\":[{\"primitives\":[");
    for (int i = 0; i < 64; i++) sb_printf(&b, "%s{\"attributes\":{\"POSITION\":0}}", i ? "," : "");
    sb_printf(&b, "]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}");
    orr_gltf_options opt = {.max_decoded_bytes = 32u << 20};
    assert_int_equal(load_json(a, b.s, &opt, &p, &err), ORR_ERROR_CAPACITY);
    if (!strstr(err.message, "meshes[0].primitives[") || !strstr(err.message, "max_decoded_bytes")) fail_msg("%s", err.message);
    assert_int_equal(orr_assets_mesh_count(a), 0);
    assert_true(maxrss_kib() - rss0 < 100 * 1024);
    opt.max_decoded_bytes = 0; /* the default budget lets it load */
    if (load_json(a, b.s, &opt, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    free(b.s);
    orr_assets_destroy(a);
}

/* One 2048x2048 PNG named by 64 textures: decoded once, one library texture; a budget below its
 * pixels refuses it naming the image. */
static void test_texture_amplification(void **state)
{
    (void)state;
    enum { W = 2048, H = 2048, N = 64 };
    unsigned char *px = calloc((size_t)W * H, 4);
    assert_non_null(px);
    char png[600];
    snprintf(png, sizeof png, "%s/big.png", scratch_dir());
    assert_true(stbi_write_png(png, W, H, 4, px, W * 4) != 0);
    free(px);
    sbuf b = {0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"big.png\"}],\"textures\":[");
    for (int i = 0; i < N; i++) sb_printf(&b, "%s{\"source\":0}", i ? "," : "");
    sb_printf(&b, "],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},"
                  "\"occlusionTexture\":{\"index\":0}}]}");
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    long rss0 = rss_mark();
    if (load_json(a, b.s, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    /* textures[0] as sRGB and linear, the other 63 linear: two library textures */
    assert_int_equal(orr_assets_texture_count(a), 2);
    assert_true(maxrss_kib() - rss0 < 150 * 1024); /* 16 MB decoded, 2 copies; before: 64 copies, 1 GB */
    orr_assets_destroy(a);
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_gltf_options opt = {.max_decoded_bytes = 8u << 20};
    assert_int_equal(load_json(a, b.s, &opt, &p, &err), ORR_ERROR_CAPACITY);
    if (!strstr(err.message, "images[0]") || !strstr(err.message, "max_decoded_bytes")) fail_msg("%s", err.message);
    assert_int_equal(orr_assets_texture_count(a), 0);
    orr_assets_destroy(a);
    free(b.s);
    remove_file("big.png");
}

/* Animation keys: a node and path targeted twice in one animation is refused (glTF 2.0 3.11); key
 * bytes count against the budget. */
static void test_animation_amplification(void **state)
{
    (void)state;
    enum { KEYS = 100000 };
    float *data = malloc((size_t)KEYS * 16);
    assert_non_null(data);
    for (int i = 0; i < KEYS; i++) data[i] = (float)i;
    memset(data + KEYS, 0, (size_t)KEYS * 12);
    write_file("anim.bin", data, (size_t)KEYS * 16);
    free(data);
    static const char head[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1600000,\"uri\":\"anim.bin\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":400000},{\"buffer\":0,\"byteOffset\":400000,\"byteLength\":1200000}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":100000,\"min\":[0],\"max\":[99999]},"
        "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":100000}],"
        "\"nodes\":[{},{}],\"scenes\":[{\"nodes\":[0,1]}],\"animations\":[";
    sbuf b = {0};
    sb_printf(&b, "%s{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
                  "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
                  "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
                  "\"samplers\":[{\"input\":0,\"output\":1}]}]}", head);
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(load_json(a, b.s, NULL, &p, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "animations[0].channels[2].target: node 0 path 'translation' is already the target"))
        fail_msg("%s", err.message);
    free(b.s);
    /* 20 animations of the same sampler: 20 x 1.6 MB of keys; a 16 MB budget refuses */
    b = (sbuf){0};
    sb_printf(&b, "%s", head);
    for (int i = 0; i < 20; i++)
        sb_printf(&b, "%s{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
                      "\"samplers\":[{\"input\":0,\"output\":1}]}", i ? "," : "");
    sb_printf(&b, "]}");
    orr_gltf_options opt = {.max_decoded_bytes = 16u << 20};
    assert_int_equal(load_json(a, b.s, &opt, &p, &err), ORR_ERROR_CAPACITY);
    if (!strstr(err.message, "animations[") || !strstr(err.message, "max_decoded_bytes")) fail_msg("%s", err.message);
    assert_int_equal(orr_assets_clip_count(a), 0);
    if (load_json(a, b.s, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_int_equal(orr_assets_clip_count(a), 20);
    free(b.s);
    orr_assets_destroy(a);
    remove_file("anim.bin");
}

/* A normal map whose image cannot be decoded leaves the slot empty (white would bend every normal). */
static void test_undecodable_normal_map(void **state)
{
    (void)state;
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"data:image/png;base64,AAAAAAAA\"}],"
        "\"textures\":[{\"source\":0}],\"materials\":[{\"normalTexture\":{\"index\":0},"
        "\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]}";
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    if (load_json(a, json, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    const orr_material *m = NULL;
    for (uint32_t i = 0; i < 8 && !m; i++)
        for (uint32_t g = 1; g < 4 && !m; g++) {
            orr_material_id id = {i, g};
            if (!orr_id_eq(id, orr_assets_default_material(a))) m = orr_assets_try_get_material(a, id);
        }
    assert_non_null(m);
    assert_true(orr_id_is_none(m->normal_texture.texture));
    assert_false(orr_id_is_none(m->base_color_texture.texture)); /* white stands in as colour */
    orr_assets_destroy(a);
}

/* ---- 1.8: a failed load adds nothing and leaks nothing ------------------------------------------ */

/* Fails the k-th allocation (counting from when it is armed) and keeps the bytes outstanding. */
typedef struct failing {
    long long calls, fail_at, bytes; /* fail_at 0 = never */
} failing;

static void *failing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    failing *f = user;
    if (new_size == 0) {
        if (ptr) f->bytes -= (long long)old_size;
        free(ptr);
        return NULL;
    }
    if (f->fail_at && ++f->calls == f->fail_at) return NULL;
    void *p = realloc(ptr, new_size);
    if (p) f->bytes += (long long)new_size - (ptr ? (long long)old_size : 0);
    return p;
}

static void png_sink(void *ctx, void *data, int size)
{
    sbuf *b = ctx;
    if (b->n + (size_t)size + 1 > b->cap) {
        b->cap = (b->n + (size_t)size + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, data, (size_t)size);
    b->n += (size_t)size;
}

/* A skinned, textured, animated triangle with a material using its texture as color and as normals. */
static char *rich_json(void)
{
    unsigned char px[4 * 4 * 4];
    for (int i = 0; i < 64; i++) px[i] = (unsigned char)(i * 4);
    sbuf png = {0};
    assert_true(stbi_write_png_to_func(png_sink, &png, 4, 4, 4, px, 16) != 0);
    char *img_uri = b64_uri(png.s, png.n);
    free(png.s);
    unsigned char buf[224] = {0};
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uv[6] = {0, 0, 1, 0, 0, 1};
    static const float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const uint16_t idx[3] = {0, 1, 2};
    static const float ibm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    static const float times[2] = {0, 1}, tr[6] = {0, 0, 0, 1, 0, 0};
    memcpy(buf, pos, 36), memcpy(buf + 36, uv, 24), memcpy(buf + 72, w, 48), memcpy(buf + 120, idx, 6);
    memcpy(buf + 128, ibm, 64), memcpy(buf + 192, times, 8), memcpy(buf + 200, tr, 24);
    char *buf_uri = b64_uri(buf, sizeof buf);
    sbuf b = {0};
    sb_printf(&b,
              "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":224,\"uri\":\"%s\"}],"
              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},"
              "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":72,\"byteLength\":48},"
              "{\"buffer\":0,\"byteOffset\":120,\"byteLength\":6},{\"buffer\":0,\"byteOffset\":128,\"byteLength\":64},"
              "{\"buffer\":0,\"byteOffset\":192,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":200,\"byteLength\":24}],"
              "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]},"
              "{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC2\",\"count\":3},"
              "{\"bufferView\":2,\"componentType\":5121,\"type\":\"VEC4\",\"count\":3},"
              "{\"bufferView\":3,\"componentType\":5126,\"type\":\"VEC4\",\"count\":3},"
              "{\"bufferView\":4,\"componentType\":5123,\"type\":\"SCALAR\",\"count\":3},"
              "{\"bufferView\":5,\"componentType\":5126,\"type\":\"MAT4\",\"count\":1},"
              "{\"bufferView\":6,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":2,\"min\":[0],\"max\":[1]},"
              "{\"bufferView\":7,\"componentType\":5126,\"type\":\"VEC3\",\"count\":2}],"
              "\"images\":[{\"uri\":\"%s\"}],\"textures\":[{\"source\":0}],"
              "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},\"normalTexture\":{\"index\":0}}],"
              "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},"
              "\"indices\":4,\"material\":0}]}],"
              "\"skins\":[{\"joints\":[1],\"inverseBindMatrices\":5}],"
              "\"nodes\":[{\"mesh\":0,\"skin\":0,\"name\":\"body\"},{\"name\":\"bone\",\"children\":[2]},{\"camera\":0}],"
              "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":0.1}}],"
              "\"scenes\":[{\"nodes\":[0,1]},{\"nodes\":[1]}],\"scene\":0,"
              "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
              "\"samplers\":[{\"input\":6,\"output\":7}]}]}",
              buf_uri, img_uri);
    free(buf_uri);
    free(img_uri);
    return b.s;
}

typedef struct lib_counts {
    uint32_t meshes, materials, textures, skins, clips, prefabs;
} lib_counts;

static lib_counts counts_of(const orr_assets *a)
{
    return (lib_counts){orr_assets_mesh_count(a), orr_assets_material_count(a), orr_assets_texture_count(a),
                        orr_assets_skin_count(a), orr_assets_clip_count(a), orr_assets_prefab_count(a)};
}

static void test_each_allocation_failing(void **state)
{
    (void)state;
    char *json = rich_json();
    int failures = 0;
    for (long long k = 1;; k++) {
        failing f = {0};
        orr_assets_desc d = {.allocator = {failing_realloc, &f}};
        orr_assets *a;
        assert_int_equal(orr_assets_create(&d, &a, NULL), ORR_OK);
        /* something already in the library, which a failed load must leave alone */
        static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        orr_primitive_desc pd = {.vertex_count = 3, .positions = pos};
        orr_mesh_desc md = {.name = "mine", .primitive_count = 1, .primitives = &pd};
        orr_mesh_id mine;
        assert_int_equal(orr_assets_add_mesh(a, &md, &mine), ORR_OK);
        lib_counts before = counts_of(a);
        f.fail_at = k;
        f.calls = 0;
        orr_prefab_id p;
        orr_error err;
        orr_result r = orr_gltf_load_memory(a, json, strlen(json), NULL, "rich", NULL, &p, &err);
        f.fail_at = 0;
        bool injected = f.calls >= k;
        if (r == ORR_OK) { /* past the last allocation, or one the loader recovered from (a retried parse) */
            assert_int_equal(orr_assets_prefab_count(a), 1);
            assert_int_equal(orr_assets_skin_count(a), 1);
            assert_int_equal(orr_assets_clip_count(a), 1);
            orr_assets_destroy(a);
            assert_int_equal(f.bytes, 0);
            if (!injected) break;
            continue;
        }
        failures++;
        assert_int_equal(r, ORR_ERROR_OUT_OF_MEMORY);
        if (!strstr(err.message, "out of memory")) fail_msg("allocation %lld: %s", k, err.message);
        if (strstr(err.message, "prefab: prefab:")) fail_msg("allocation %lld: %s", k, err.message);
        lib_counts after = counts_of(a);
        if (memcmp(&before, &after, sizeof before) != 0)
            fail_msg("allocation %lld (%s): library went from %u/%u/%u/%u/%u/%u to %u/%u/%u/%u/%u/%u", k, err.message,
                     before.meshes, before.materials, before.textures, before.skins, before.clips, before.prefabs,
                     after.meshes, after.materials, after.textures, after.skins, after.clips, after.prefabs);
        assert_non_null(orr_assets_try_get_mesh(a, mine));
        orr_assets_destroy(a);
        if (f.bytes != 0) fail_msg("allocation %lld (%s): %lld bytes leaked", k, err.message, f.bytes);
        assert_true(k < 100000);
    }
    print_message("a load failing at each of its %d allocations: refused, nothing added, nothing leaked\n", failures);
    assert_true(failures > 50);
    free(json);
}

/* ---- P2: flat normals through the loader, quantized positions --------------------------------- */

static void test_loader_flat_normals_and_quantized_positions(void **state)
{
    (void)state;
    /* a strip of two triangles without normals, with tangents (ignored) */
    unsigned char buf[120] = {0};
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const uint16_t idx[4] = {0, 1, 2, 3};
    static const float tan[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    memcpy(buf, pos, 48), memcpy(buf + 48, idx, 8), memcpy(buf + 56, tan, 64);
    char *uri = b64_uri(buf, 120);
    sbuf b = {0};
    sb_printf(&b,
              "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":120,\"uri\":\"%s\"}],"
              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":8},"
              "{\"buffer\":0,\"byteOffset\":56,\"byteLength\":64}],"
              "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":4,\"min\":[0,0,0],\"max\":[1,1,1]},"
              "{\"bufferView\":1,\"componentType\":5123,\"type\":\"SCALAR\",\"count\":4},"
              "{\"bufferView\":2,\"componentType\":5126,\"type\":\"VEC4\",\"count\":4}],"
              "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TANGENT\":2},\"indices\":1,\"mode\":5}]}],"
              "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
              uri);
    free(uri);
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    if (load_json(a, b.s, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    free(b.s);
    const orr_mesh *m = NULL;
    for (uint32_t i = 0; i < 4 && !m; i++) m = orr_assets_try_get_mesh(a, (orr_mesh_id){i, 1});
    assert_non_null(m);
    const orr_primitive *pr = &m->primitives[0];
    assert_int_equal(pr->vertex_count, 6);
    assert_int_equal(pr->topology, ORR_TOPOLOGY_TRIANGLES);
    assert_true(pr->normals[2] == 1.0f && pr->normals[3 * 3 + 2] < 0.9f); /* two faces, two normals */
    assert_null(pr->tangents); /* they belonged to the normals the file did not have */
    orr_assets_destroy(a);

    /* KHR_mesh_quantization: POSITION as normalized unsigned short */
    static const uint16_t q[12] = {0, 0, 0, 0, 65535, 0, 0, 0, 0, 65535, 0, 0}; /* x, y, z, pad */
    uri = b64_uri(q, sizeof q);
    b = (sbuf){0};
    sb_printf(&b,
              "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
              "\"extensionsRequired\":[\"KHR_mesh_quantization\"],\"buffers\":[{\"byteLength\":24,\"uri\":\"%s\"}],"
              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24,\"byteStride\":8}],"
              "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"normalized\":true,\"type\":\"VEC3\",\"count\":3,"
              "\"min\":[0,0,0],\"max\":[1,1,0]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
              "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
              uri);
    free(uri);
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    if (load_json(a, b.s, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    m = NULL;
    for (uint32_t i = 0; i < 4 && !m; i++) m = orr_assets_try_get_mesh(a, (orr_mesh_id){i, 1});
    assert_non_null(m);
    assert_true(m->bounds.max.x == 1.0 && m->bounds.max.y == 1.0);
    /* only when required: the extension must be (glTF-Validator's NON_REQUIRED_EXTENSION) */
    char *used_only = strstr(b.s, "\"extensionsRequired\":[\"KHR_mesh_quantization\"],");
    assert_non_null(used_only);
    memmove(used_only, used_only + strlen("\"extensionsRequired\":[\"KHR_mesh_quantization\"],"),
            strlen(used_only + strlen("\"extensionsRequired\":[\"KHR_mesh_quantization\"],")) + 1);
    assert_int_equal(load_json(a, b.s, NULL, &p, &err), ORR_ERROR_PARSE);
    assert_non_null(strstr(err.message, "attributes.POSITION"));
    free(b.s);
    orr_assets_destroy(a);
}

typedef struct warnlog {
    int n;
    char all[4096];
} warnlog;

static void log_warning(void *user, orr_log_level level, const char *msg)
{
    warnlog *w = user;
    if (level != ORR_LOG_WARNING) return;
    w->n++;
    size_t n = strlen(w->all);
    snprintf(w->all + n, sizeof w->all - n, "%s\n", msg);
}

/* Sparse index accessors are range-checked after substitution: a replaced out-of-range base value is
 * fine, an out-of-range sparse value is refused naming its element. */
static void test_sparse_indices_checked_after_substitution(void **state)
{
    (void)state;
    for (int bad = 0; bad < 2; bad++) {
        unsigned char buf[48] = {0};
        static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        uint16_t base[3] = {0, 1, 9}, sidx[1] = {2}, sval[1] = {(uint16_t)(bad ? 7 : 2)};
        memcpy(buf, pos, 36), memcpy(buf + 36, base, 6), memcpy(buf + 42, sidx, 2), memcpy(buf + 44, sval, 2);
        char *uri = b64_uri(buf, sizeof buf);
        sbuf b = {0};
        sb_printf(&b,
                  "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":48,\"uri\":\"%s\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6},"
                  "{\"buffer\":0,\"byteOffset\":42,\"byteLength\":2},{\"buffer\":0,\"byteOffset\":44,\"byteLength\":2}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]},"
                  "{\"bufferView\":1,\"componentType\":5123,\"type\":\"SCALAR\",\"count\":3,\"sparse\":{\"count\":1,"
                  "\"indices\":{\"bufferView\":2,\"componentType\":5123},\"values\":{\"bufferView\":3}}}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
                  "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
                  uri);
        free(uri);
        orr_assets *a;
        assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
        orr_prefab_id p;
        orr_error err;
        orr_result r = load_json(a, b.s, NULL, &p, &err);
        if (bad) {
            assert_int_equal(r, ORR_ERROR_PARSE);
            if (!strstr(err.message, "meshes[0].primitives[0].indices: index 2 has value 7")) fail_msg("%s", err.message);
        } else if (r != ORR_OK) {
            fail_msg("%s", err.message);
        }
        orr_assets_destroy(a);
        free(b.s);
    }
}

/* KHR_texture_transform.texCoord beyond the two supported sets warns like the plain texCoord. */
static void test_texture_transform_texcoord_warns(void **state)
{
    (void)state;
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_transform\"],\"textures\":[{}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0,"
        "\"extensions\":{\"KHR_texture_transform\":{\"texCoord\":5}}}}}]}";
    warnlog w = {0};
    orr_assets_desc d = {.logger = {log_warning, &w}};
    orr_assets *a;
    assert_int_equal(orr_assets_create(&d, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    if (load_json(a, json, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    if (!strstr(w.all, "materials[0].pbrMetallicRoughness.baseColorTexture.extensions.KHR_texture_transform.texCoord: set 5 is not supported"))
        fail_msg("warnings: %s", w.all);
    orr_assets_destroy(a);
}

/* ---- P3: messages --------------------------------------------------------------------------------- */

static void expect_message(const char *json, const char *want)
{
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    assert_int_not_equal(load_json(a, json, NULL, &p, &err), ORR_OK);
    if (strncmp(err.message, want, strlen(want)) != 0) fail_msg("message '%s', expected '%s...'", err.message, want);
    for (const char *c = err.message; *c; c++) assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
    orr_assets_destroy(a);
}

/* MSFT_lod (nodes' levels of detail): a broken one is refused with the path of what breaks it. */
static void lod_message(const char *nodes, const char *extras_cov, const char *more, const char *want)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"MSFT_lod\"],\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0%s,"
             "\"extensions\":{\"MSFT_lod\":%s}}%s],\"scenes\":[{\"nodes\":[0]}]}",
             tri_uri, extras_cov, nodes, more);
    expect_message(json, want);
}

static void test_msft_lod_refused(void **state)
{
    (void)state;
    lod_message("{}", "", "", "nodes[0].extensions.MSFT_lod: required property 'ids' is missing");
    lod_message("{\"ids\":[7]}", "", "", "nodes[0].extensions.MSFT_lod.ids[0]: 7 is out of range, 1 nodes");
    lod_message("{\"ids\":[0]}", "", "", "nodes[0].extensions.MSFT_lod.ids[0]: node 0 is its own level of detail");
    lod_message("{\"ids\":\"x\"}", "", "", "nodes[0].extensions.MSFT_lod.ids: expected an array");
    /* a level without a mesh, one with levels of its own, too many levels, broken coverages */
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"extensionsUsed\":[\"MSFT_lod\"],"
             "\"nodes\":[{\"mesh\":0,\"extensions\":{\"MSFT_lod\":{\"ids\":[1]}}},{}]}", tri_uri);
    expect_message(json, "nodes[0].extensions.MSFT_lod.ids[0]: node 1 has no mesh");
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"extensionsUsed\":[\"MSFT_lod\"],"
             "\"nodes\":[{\"mesh\":0,\"extensions\":{\"MSFT_lod\":{\"ids\":[1]}}},"
             "{\"mesh\":0,\"extensions\":{\"MSFT_lod\":{\"ids\":[0]}}}]}", tri_uri);
    expect_message(json, "nodes[0].extensions.MSFT_lod.ids[0]: node 1 has levels of its own");
    lod_message("{\"ids\":[1,2,3,4,5,6,7,8]}", "", ",{\"mesh\":0},{\"mesh\":0},{\"mesh\":0},{\"mesh\":0},{\"mesh\":0},{\"mesh\":0},{\"mesh\":0},{\"mesh\":0}",
                "nodes[0].extensions.MSFT_lod.ids: 8 levels of detail, at most 7");
    lod_message("{\"ids\":[]}", ",\"extras\":{\"MSFT_screencoverage\":[0.5,0.2]}", "",
                "nodes[0].extras.MSFT_screencoverage: 2 values for 1 levels");
    lod_message("{\"ids\":[]}", ",\"extras\":{\"MSFT_screencoverage\":[1.5]}", "",
                "nodes[0].extras.MSFT_screencoverage[0]: expected a share of the screen in [0, 1]");
    lod_message("{\"ids\":[]}", ",\"extras\":{\"MSFT_screencoverage\":\"big\"}", "",
                "nodes[0].extras.MSFT_screencoverage: expected an array of numbers");
}

static void test_messages(void **state)
{
    (void)state;
    /* top-level members are named without a leading dot */
    expect_message("{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{}],\"scene\":9}", "scene: 9 is out of range, 1 scenes");
    expect_message("{\"asset\":7}", "asset: expected an object");
    /* control characters from the file are escaped: one printable line */
    expect_message("{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":1,\"type\":\"VEC3\\n\\u001b[31m\"}]}",
                   "accessors[0].type: 'VEC3\\x0a\\x1b[31m' is not an accessor type");
}

int orrt_scene_hostile(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nodes_x_primitives),
        cmocka_unit_test(test_msft_lod_refused),
        cmocka_unit_test(test_joint_out_of_range),
        cmocka_unit_test(test_info_instances),
        cmocka_unit_test(test_skinned_budget),
        cmocka_unit_test(test_uri_outside_folder),
        cmocka_unit_test(test_self_referencing_images),
        cmocka_unit_test(test_self_referencing_buffers),
        cmocka_unit_test(test_viewless_amplification),
        cmocka_unit_test(test_texture_amplification),
        cmocka_unit_test(test_animation_amplification),
        cmocka_unit_test(test_undecodable_normal_map),
        cmocka_unit_test(test_each_allocation_failing),
        cmocka_unit_test(test_loader_flat_normals_and_quantized_positions),
        cmocka_unit_test(test_sparse_indices_checked_after_substitution),
        cmocka_unit_test(test_texture_transform_texcoord_warns),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests_name("scene: hostile files", tests, NULL, NULL);
}
