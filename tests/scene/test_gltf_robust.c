/* The loader against input that changes under it or is built to cost more than its size (issue 31):
 * a file shrinking while it loads, memory amplification by the JSON, invalid UTF-8, NUL in strings,
 * duplicate keys, non-finite poses. Every file is written here, at run time. */
#include "scene_tests.h"
#include <cjson/cJSON.h>

#include <fcntl.h>
#include <orrery/world.h>
#include <stb/stb_image_write.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
        assert_int_equal(orr_assets_create(&ad, &assets, NULL), ORR_OK);
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


/* ---- 3: memory bounded by the file -------------------------------------------------------------- */

/* Peak resident memory in KiB since the last rss_mark (Linux: clear_refs 5 resets VmHWM). */
static long maxrss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    if (f) fclose(f);
    return kib;
}

static long rss_mark(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
    return maxrss_kib();
}

/* `{"asset":...,"KEY":[ITEM,ITEM,...]}` with n items. */
static char *repeated_json(const char *key, const char *item, size_t n, size_t *len)
{
    char head[128];
    int hn = snprintf(head, sizeof head, "{\"asset\":{\"version\":\"2.0\"},\"%s\":[", key);
    size_t in = strlen(item), total = (size_t)hn + n * (in + 1) + 2;
    char *t = malloc(total + 1);
    assert_non_null(t);
    memcpy(t, head, (size_t)hn);
    char *o = t + hn;
    for (size_t i = 0; i < n; i++) {
        memcpy(o, item, in);
        o += in;
        *o++ = i + 1 < n ? ',' : ']';
    }
    *o++ = '}';
    *o = 0;
    *len = (size_t)(o - t);
    return t;
}

/* 30 MB of empty nodes (the old loader took 3.6 GB and 11 s to refuse them at the entity limit) and of
 * zeros in extras (taken at 1.2 GB): refused before the tree is built, within a small multiple of the
 * text, with a message that says why. */
static void test_json_amplification(void **state)
{
    (void)state;
    static const struct {
        const char *key, *item;
        size_t n;
    } cases[] = {{"nodes", "{}", 10000000}, {"extras", "0", 15000000}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t len;
        char *text = repeated_json(cases[k].key, cases[k].item, cases[k].n, &len);
        orr_assets *assets;
        assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
        long base = rss_mark();
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load_memory(assets, text, len, scratch_dir(), NULL, NULL, &prefab, &err);
        long grew = maxrss_kib() - base;
        print_message("%zu x %s in %s (%zu bytes): %s, %s; peak +%ld KiB\n", cases[k].n, cases[k].item, cases[k].key, len,
                      orr_result_name(r), err.message, grew);
        assert_int_equal(r, ORR_ERROR_CAPACITY);
        assert_non_null(strstr(err.message, "JSON: "));
        assert_non_null(strstr(err.message, "times the"));
        if (base > 0) assert_true(grew < 4 * (long)(len >> 10)); /* the text's size, not the tree's */
        orr_assets_destroy(assets);
        free(text);
    }
    /* the same shape at a size a real file has loads */
    size_t len;
    char *text = repeated_json("nodes", "{\"name\":\"n\"}", 20000, &len);
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(orr_gltf_load_memory(assets, text, len, scratch_dir(), NULL, NULL, &prefab, &err), ORR_OK);
    orr_assets_destroy(assets);
    free(text);
}

/* ---- 6, 9: strings and keys ------------------------------------------------------------------------ */

typedef struct warnlog {
    int n;
    char all[8192];
} warnlog;

static void log_warning(void *user, orr_log_level level, const char *msg)
{
    warnlog *w = user;
    if (level < ORR_LOG_WARNING) return;
    w->n++;
    size_t n = strlen(w->all);
    snprintf(w->all + n, sizeof w->all - n, "%s\n", msg);
}

/* Loads `json` (from memory, base = the scratch folder) into a fresh library with a logger; the
 * library is returned for inspection (destroy it). */
static orr_result load_logged(const char *json, warnlog *log, orr_assets **assets, orr_prefab_id *prefab, orr_error *err)
{
    memset(log, 0, sizeof *log);
    orr_assets_desc ad = {.logger = {log_warning, log}};
    assert_int_equal(orr_assets_create(&ad, assets, NULL), ORR_OK);
    return orr_gltf_load_memory(*assets, json, strlen(json), scratch_dir(), NULL, NULL, prefab, err);
}

/* The first entity of the prefab named `name`, or none. */
static bool prefab_has_name(const orr_assets *a, orr_prefab_id p, const char *name)
{
    const orr_world *w = orr_prefab_world(a, p);
    bool found = false;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);)
        if (strcmp(orr_entity_name(w, e), name) == 0) found = true;
    orr_subtree_end(&it);
    return found;
}

/* A NUL in a URI cut the string at it ("Box0.bin\u0000../../x" read as "Box0.bin"): refused, as %00 is.
 * Elsewhere (a name) the string is cut and a warning says so. */
static void test_json_nul_in_strings(void **state)
{
    (void)state;
    write_file("Box0.bin", "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
    warnlog log;
    orr_assets *assets;
    orr_prefab_id prefab;
    orr_error err;
    orr_result r = load_logged("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"Box0.bin\\u0000../../x\","
                               "\"byteLength\":12}]}", &log, &assets, &prefab, &err);
    assert_int_equal(r, ORR_ERROR_PARSE);
    assert_non_null(strstr(err.message, "buffers[0].uri: holds \\u0000 (NUL)"));
    orr_assets_destroy(assets);

    /* the raw byte likewise (cJSON cut the string at it too) */
    static const char raw[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"Box0.bin\0../../x\",\"byteLength\":12}]}";
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    r = orr_gltf_load_memory(assets, raw, sizeof raw - 1, scratch_dir(), NULL, NULL, &prefab, &err);
    assert_int_equal(r, ORR_ERROR_PARSE);
    assert_non_null(strstr(err.message, "buffers[0].uri: holds \\u0000 (NUL)"));
    orr_assets_destroy(assets);

    r = load_logged("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\\u0000b\"}]}", &log, &assets, &prefab, &err);
    assert_int_equal(r, ORR_OK);
    assert_non_null(strstr(log.all, "nodes[0].name: the string holds \\u0000 (NUL)"));
    orr_assets_destroy(assets);
}

/* glTF 2.0 (3.2): keys MUST be unique. cJSON silently took the first of two; the file is refused
 * naming the key, in a small object and in a large one (sorted, not compared pairwise). */
static void test_json_duplicate_keys(void **state)
{
    (void)state;
    warnlog log;
    orr_assets *assets;
    orr_prefab_id prefab;
    orr_error err;
    orr_result r = load_logged("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{\"name\":\"a\",\"translation\":[1,2,3],"
                               "\"name\":\"b\"}]}", &log, &assets, &prefab, &err);
    assert_int_equal(r, ORR_ERROR_PARSE);
    assert_string_equal(err.message, "nodes[1].name: the key appears more than once (glTF: keys MUST be unique)");
    orr_assets_destroy(assets);

    char json[4096];
    int o = snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"extras\":{");
    for (int i = 0; i < 100; i++) o += snprintf(json + o, sizeof json - (size_t)o, "\"k%d\":%d,", i, i);
    snprintf(json + o, sizeof json - (size_t)o, "\"k42\":0}}");
    r = load_logged(json, &log, &assets, &prefab, &err);
    assert_int_equal(r, ORR_ERROR_PARSE);
    assert_string_equal(err.message, "extras.k42: the key appears more than once (glTF: keys MUST be unique)");
    orr_assets_destroy(assets);

    snprintf(json + o, sizeof json - (size_t)o, "\"k100\":0}}");
    assert_int_equal(load_logged(json, &log, &assets, &prefab, &err), ORR_OK);
    orr_assets_destroy(assets);
}

/* A node name with invalid UTF-8 was taken raw (and `snapshot --json` printed it raw): warned about
 * with its path, each invalid byte replaced by U+FFFD, so every name in the prefab is UTF-8. */
static void test_json_invalid_utf8(void **state)
{
    (void)state;
    warnlog log;
    orr_assets *assets;
    orr_prefab_id prefab;
    orr_error err;
    orr_result r = load_logged("{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":["
                               "{\"name\":\"ok \xC3\xA9\"},{\"name\":\"bad \xC3\x28 \xED\xA0\x80 \xF8\"}]}",
                               &log, &assets, &prefab, &err);
    assert_int_equal(r, ORR_OK);
    assert_non_null(strstr(log.all, "nodes[1].name: not valid UTF-8"));
    assert_null(strstr(log.all, "nodes[0].name"));
    assert_true(prefab_has_name(assets, prefab, "ok \xC3\xA9"));
    assert_true(prefab_has_name(assets, prefab,
                                "bad \xEF\xBF\xBD( \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD"));
    orr_assets_destroy(assets);
}

/* What cJSON misread is refused by name: a number longer than its 63-character buffer. */
static void test_json_strict(void **state)
{
    (void)state;
    char json[512];
    snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"extras\":[1.%070d]}", 0);
    warnlog log;
    orr_assets *assets;
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(load_logged(json, &log, &assets, &prefab, &err), ORR_ERROR_PARSE);
    assert_string_equal(err.message, "JSON: a number longer than 63 characters at byte 37");
    orr_assets_destroy(assets);
    /* a string that ends the text with a backslash is a syntax error, not "out of memory" */
    assert_int_equal(load_logged("\"abc\\", &log, &assets, &prefab, &err), ORR_ERROR_PARSE);
    assert_non_null(strstr(err.message, "JSON: syntax error"));
    orr_assets_destroy(assets);
}

/* ---- 7: poses a file gives that binary64 cannot place ----------------------------------------------- */

/* A translation of 1.7e308 was loaded without a word and then not drawn; 1e308 likewise. Each node
 * whose world transform overflows or lies beyond DBL_MAX / 2 is warned about and counted. */
static void test_unplaceable_nodes(void **state)
{
    (void)state;
    warnlog log;
    orr_assets *assets;
    orr_prefab_id prefab;
    orr_error err;
    memset(&log, 0, sizeof log);
    orr_assets_desc ad = {.logger = {log_warning, &log}};
    assert_int_equal(orr_assets_create(&ad, &assets, NULL), ORR_OK);
    const char *json = "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0,2,3]}],\"nodes\":["
                       "{\"translation\":[1.7e308,0,0],\"children\":[1]},{\"translation\":[1.7e308,0,0]},"
                       "{\"translation\":[0,-1e308,0]},{\"translation\":[1e20,0,0],\"scale\":[1e200,1,1],\"children\":[4]},"
                       "{\"translation\":[1e200,0,0]}]}";
    orr_gltf_stats st;
    orr_gltf_options opt = {.stats = &st};
    assert_int_equal(orr_gltf_load_memory(assets, json, strlen(json), scratch_dir(), NULL, &opt, &prefab, &err), ORR_OK);
    print_message("%s", log.all);
    assert_non_null(strstr(log.all, "nodes[0]: its world transform lies too far (translation 1.7e+308 0 0)"));
    assert_non_null(strstr(log.all, "nodes[1]: its world transform overflows"));
    assert_non_null(strstr(log.all, "nodes[2]: its world transform lies too far"));
    assert_null(strstr(log.all, "nodes[3]:")); /* 1e20 is far, but binary64 places it */
    assert_non_null(strstr(log.all, "nodes[4]: its world transform overflows")); /* 1e200 x 1e200 */
    assert_int_equal(st.unplaceable_nodes, 4);
    orr_assets_destroy(assets);
}

/* ---- 8: what the validator calls an error is an error ------------------------------------------------ */

typedef struct errlog {
    int errors;
    char all[4096];
} errlog;

static void log_errors(void *user, orr_log_level level, const char *msg)
{
    errlog *w = user;
    if (level < ORR_LOG_ERROR) return;
    w->errors++;
    size_t n = strlen(w->all);
    snprintf(w->all + n, sizeof w->all - n, "%s\n", msg);
}

/* Files the loader took with no word or a mere warning although they break the spec (the validator's
 * sampler_input_no_bounds, skin/skeleton_invalid, skin/no_common_root, an image media type no
 * extension allows): loaded, with an ORR_LOG_ERROR message naming the place, which `validate` turns
 * into exit status 1. */
static void test_spec_violations_logged_as_errors(void **state)
{
    (void)state;
    static const char tri[] = "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
                              "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"}],"
                              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}]";
    char json[4096];
    struct {
        const char *body, *want;
    } cases[] = {
        {"\"nodes\":[{}],\"accessors\":[{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":2,"
         "\"type\":\"SCALAR\"},{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
         "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
         "\"samplers\":[{\"input\":0,\"output\":1}]}]",
         "animations[0].samplers[0].input: accessor 0 has no min/max"},
        {"\"nodes\":[{\"children\":[1]},{},{}],\"skins\":[{\"joints\":[1,2]}]",
         "skins[0].joints: joint 1 (node 2) shares no root with joint 0 (node 1)"},
        {"\"nodes\":[{\"children\":[1,2]},{},{}],\"skins\":[{\"joints\":[1,2],\"skeleton\":1}]",
         "skins[0].skeleton: node 1 is not joint 1 (node 2) nor one of its ancestors"},
        {"\"images\":[{\"bufferView\":0,\"mimeType\":\"image/webp\"}]",
         "images[0].mimeType: 'image/webp' is not an image type"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},%s,%s}", tri, cases[k].body);
        errlog log = {0};
        orr_assets_desc ad = {.logger = {log_errors, &log}};
        orr_assets *assets;
        assert_int_equal(orr_assets_create(&ad, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load_memory(assets, json, strlen(json), scratch_dir(), NULL, NULL, &prefab, &err);
        if (r != ORR_OK) fail_msg("case %zu refused: %s", k, err.message);
        if (!strstr(log.all, cases[k].want)) fail_msg("case %zu: no error '%s' in:\n%s", k, cases[k].want, log.all);
        orr_assets_destroy(assets);
    }
}

/* ---- 9: a PNG whose zlib checksum is wrong ------------------------------------------------------ */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

typedef struct membuf {
    uint8_t *p;
    size_t n;
} membuf;

static void mem_sink(void *ctx, void *data, int size)
{
    membuf *m = ctx;
    m->p = realloc(m->p, m->n + (size_t)size);
    assert_non_null(m->p);
    memcpy(m->p + m->n, data, (size_t)size);
    m->n += (size_t)size;
}

/* A textured triangle whose image is `png`. */
static const char png_model[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
    "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],\"textures\":[{\"source\":0}],"
    "\"images\":[{\"uri\":\"%s\"}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/"
    "octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}]}";

/* The zlib stream's Adler-32 is the last thing a PNG decoder reaches; libspng refuses a wrong one, and
 * stb_image, tried next for what libspng refuses, never checks it: the image was taken silently. Now
 * damage refuses the image (a warning naming it, the texture white); the intact PNG loads quietly. */
static void test_png_bad_adler32(void **state)
{
    (void)state;
    uint8_t px[8 * 8 * 4];
    for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 7);
    membuf png = {0};
    assert_true(stbi_write_png_to_func(mem_sink, &png, 8, 8, 4, px, 32) != 0);
    write_file("good.png", png.p, png.n);
    /* IDAT: [length][type][data ... adler32][crc]; IEND is the last 12 bytes */
    uint8_t *idat = NULL;
    for (size_t i = 8; i + 8 <= png.n; i++)
        if (memcmp(png.p + i + 4, "IDAT", 4) == 0) {
            idat = png.p + i;
            break;
        }
    assert_non_null(idat);
    size_t len = (size_t)idat[0] << 24 | (size_t)idat[1] << 16 | (size_t)idat[2] << 8 | idat[3];
    uint8_t *data_end = idat + 8 + len;
    assert_true(data_end + 4 + 12 == png.p + png.n);
    data_end[-1] ^= 0x5A; /* the Adler-32's last byte */
    uint32_t crc = crc32_of(idat + 4, len + 4);
    data_end[0] = (uint8_t)(crc >> 24), data_end[1] = (uint8_t)(crc >> 16), data_end[2] = (uint8_t)(crc >> 8), data_end[3] = (uint8_t)crc;
    write_file("adler.png", png.p, png.n);
    free(png.p);

    const char *names[2] = {"good.png", "adler.png"};
    for (int k = 0; k < 2; k++) {
        char json[2048];
        snprintf(json, sizeof json, png_model, names[k]);
        warnlog log;
        orr_assets *assets;
        orr_prefab_id prefab;
        orr_error err;
        assert_int_equal(load_logged(json, &log, &assets, &prefab, &err), ORR_OK);
        if (k == 0 && log.n) fail_msg("the intact PNG: %s", log.all);
        if (k == 1 && !strstr(log.all, "images[0]: PNG: IDAT stream error; textures[0] falls back to white"))
            fail_msg("the damaged PNG: %s", log.all);
        orr_assets_destroy(assets);
    }
}

/* ---- running out of memory after the JSON pre-scan ------------------------------------------- */

/* cJSON's allocation hooks for the child below: malloc until `oom_budget` bytes were asked for, NULL
 * after that (cJSON's hooks are process-wide; only the forked child sets them, the library never). */
static size_t oom_budget, oom_asked;
static void *oom_malloc(size_t n)
{
    oom_asked += n;
    return oom_asked > oom_budget ? NULL : malloc(n);
}

/* A file that passes the JSON pre-scan (its tree fits the budget the text allows) and then runs out
 * of memory while cJSON builds the tree is refused as ORR_ERROR_OUT_OF_MEMORY with a message saying
 * so, not as a syntax error: the scan reads the text as strictly as cJSON, so a cJSON failure after it
 * can only be an allocation. cJSON allocates through its own process-wide hooks, so the failure is
 * made there, in a forked child: 20,000 strings (2 MB of text, a tree of about 4 MB), of which cJSON
 * gets 1 MiB. The child's exit status: 0 refused as out of memory, 1 refused otherwise (the message
 * on stderr), 2 loaded. */
static void test_json_out_of_memory_reported_as_such(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        enum { STRINGS = 20000, LEN = 100 };
        size_t cap = (size_t)STRINGS * (LEN + 3) + 256, n = 0;
        char *text = malloc(cap);
        orr_assets *assets;
        if (!text || orr_assets_create(NULL, &assets, NULL) != ORR_OK) _exit(3);
        n += (size_t)snprintf(text, cap, "{\"asset\":{\"version\":\"2.0\"},\"extras\":[");
        for (int i = 0; i < STRINGS; i++) {
            text[n++] = '"';
            memset(text + n, 'a' + i % 26, LEN), n += LEN;
            text[n++] = '"';
            if (i + 1 < STRINGS) text[n++] = ',';
        }
        n += (size_t)snprintf(text + n, cap - n, "]}");
        oom_budget = (size_t)1 << 20;
        cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = oom_malloc, .free_fn = free});
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load_memory(assets, text, n, "/tmp", NULL, NULL, &prefab, &err);
        fprintf(stderr, "json out-of-memory child: %s: %s\n", orr_result_name(r), r == ORR_OK ? "loaded" : err.message);
        cJSON_InitHooks(NULL);
        orr_assets_destroy(assets);
        free(text);
        if (r == ORR_OK) _exit(2);
        _exit(r == ORR_ERROR_OUT_OF_MEMORY && strstr(err.message, "JSON: out of memory") && !strstr(err.message, "syntax")
                  ? 0
                  : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status)) fail_msg("the child died (status 0x%x)", status);
    if (WEXITSTATUS(status) == 2) fail_msg("cJSON's budget did not bite: the tree was built");
    if (WEXITSTATUS(status) != 0) fail_msg("not refused as out of memory (child exit %d, message above)", WEXITSTATUS(status));
}

int orrt_scene_robust(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_shrinking_while_loading),
        cmocka_unit_test(test_json_amplification),
        cmocka_unit_test(test_json_nul_in_strings),
        cmocka_unit_test(test_json_duplicate_keys),
        cmocka_unit_test(test_json_invalid_utf8),
        cmocka_unit_test(test_json_strict),
        cmocka_unit_test(test_unplaceable_nodes),
        cmocka_unit_test(test_png_bad_adler32),
        cmocka_unit_test(test_spec_violations_logged_as_errors),
        cmocka_unit_test(test_json_out_of_memory_reported_as_such),
    };
    return cmocka_run_group_tests_name("scene_robust", tests, NULL, NULL);
}
