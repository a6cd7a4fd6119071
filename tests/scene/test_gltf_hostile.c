/* The loader against small hostile files (written here, at run time): each must be refused or loaded
 * within a time and memory bound the test asserts, however much work or memory the file asks for. */
#include "scene_tests.h"

#include <fcntl.h>
#include <orrery/world.h>
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

static __attribute__((unused)) long maxrss_kib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* A scratch folder for files the test writes (external buffers, images). */
static const char *scratch_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/orrery_hostile_%ld", (long)getpid());
        mkdir(dir, 0700);
    }
    return dir;
}

static __attribute__((unused)) void write_file(const char *name, const void *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch_dir(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* A sparse file of `size` zero bytes: costs no disk and no memory until read. */
static __attribute__((unused)) void write_sparse(const char *name, off_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch_dir(), name);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static __attribute__((unused)) void remove_file(const char *name)
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
    orr_assets *a;
    assert_int_equal(orr_assets_create(NULL, &a), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    double t0 = now_s();
    orr_result r = load_json(a, b.s, NULL, &p, &err);
    double dt = now_s() - t0;
    if (r != ORR_OK) fail_msg("%s", err.message);
    print_message("20000 nodes x 20000 primitives: %.2f s\n", dt);
    assert_true(dt < 10.0); /* 17 s in release before; well under a second now, even under ASan */
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
    assert_int_equal(orr_assets_create(NULL, &a), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(load_json(a, b.s, NULL, &p, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "meshes[0].primitives[1].attributes.JOINTS_0: element 1 has joint 2, skin 0 (used by node 0) has 2 joints"))
        fail_msg("message: %s", err.message);
    orr_assets_destroy(a);
    free(uri);
    free(b.s);
}

int orrt_scene_hostile(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nodes_x_primitives),
        cmocka_unit_test(test_joint_out_of_range),
    };
    int r = cmocka_run_group_tests_name("scene: hostile files", tests, NULL, NULL);
    rmdir(scratch_dir());
    return r;
}
