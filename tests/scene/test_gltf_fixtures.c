/* The loader on glTF files the tests write themselves, so that the suite covers every part of it
 * without the third-party corpus: containers, buffers, accessors, nodes, scenes, components,
 * refusals with their JSON paths, and warnings for untidy input. */
#include "scene_tests.h"

#include <math.h>
#include <orrery/world.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- tiny builders ------------------------------------------------------------------------------ */

typedef struct bin {
    unsigned char data[4096];
    size_t n;
} bin;

static size_t bin_put(bin *b, const void *p, size_t n)
{
    while (b->n % 4) b->data[b->n++] = 0;
    size_t at = b->n;
    memcpy(b->data + b->n, p, n);
    b->n += n;
    return at;
}

static char *b64(const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
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

typedef struct logbook {
    int warnings, errors; /* errors: places where the file breaks the spec (ORR_LOG_ERROR) */
    char last[600];
    char last_error[600];
    char all[8192]; /* every message, one per line, cut at the end */
} logbook;

static void record(void *user, orr_log_level level, const char *msg)
{
    logbook *l = user;
    if (level == ORR_LOG_WARNING) l->warnings++;
    if (level >= ORR_LOG_ERROR) l->errors++, snprintf(l->last_error, sizeof l->last_error, "%s", msg);
    snprintf(l->last, sizeof l->last, "%s", msg);
    size_t n = strlen(l->all);
    snprintf(l->all + n, sizeof l->all - n, "%s\n", msg);
}

static orr_assets *new_assets(logbook *log)
{
    orr_assets *a;
    orr_assets_desc d = {.logger = {record, log}};
    assert_int_equal(orr_assets_create(log ? &d : NULL, &a, NULL), ORR_OK);
    return a;
}

/* A triangle: 3 positions, ushort indices, in one data-URI buffer. %s slots: buffer uri, then extra
 * top-level members (may be ""), then extra node members. */
static const float tri_pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const uint16_t tri_idx[4] = {0, 1, 2, 0};

static char *triangle_json(const char *extra_root, const char *extra_node, const char *extra_prim)
{
    bin b = {0};
    bin_put(&b, tri_pos, sizeof tri_pos);
    bin_put(&b, tri_idx, 6);
    char *uri = b64(b.data, 42);
    char *json = malloc(8192);
    snprintf(json, 8192,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0,\"name\":\"tri\"%s}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1%s}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
             "\"buffers\":[{\"byteLength\":42,\"uri\":\"%s\"}]%s}",
             extra_node, extra_prim, uri, extra_root);
    free(uri);
    return json;
}

static orr_result load(orr_assets *a, const char *json, orr_prefab_id *p, orr_error *err)
{
    return orrt_load_text(a, json, NULL, p, err);
}

/* Skin weights that do not sum to 1 are divided by their sum, with one warning per primitive naming the
 * accessor, how many vertices and the worst sum; weights that do sum to 1 (floats, or normalized
 * unsigned bytes whose integers sum to 255) are kept as the spec reads them (c / 255). */
static void test_skin_weights_normalised(void **state)
{
    (void)state;
    static const uint8_t joints[12] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    static const float fw[12] = {0.5f, 0.25f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0}; /* sums 0.75, 1, 1 */
    static const uint8_t uw[12] = {255, 0, 0, 0, 128, 127, 0, 0, 100, 100, 0, 0};   /* sums 255, 255, 200 */
    bin b = {0};
    bin_put(&b, tri_pos, sizeof tri_pos); /* 0: 36 */
    bin_put(&b, tri_idx, 8);              /* 36: 8 (6 used) */
    bin_put(&b, joints, 12);              /* 44: 12 */
    bin_put(&b, fw, 48);                  /* 56: 48 */
    bin_put(&b, uw, 12);                  /* 104: 12 */
    char *uri = b64(b.data, 116);
    char *json = malloc(8192);
    snprintf(json, 8192,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"mesh\":0,\"skin\":0,\"name\":\"skinned\"},{\"name\":\"hip\",\"children\":[2]},{\"name\":\"knee\"}],"
             "\"skins\":[{\"joints\":[1,2]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":1},"
             "{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":4},\"indices\":1}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
             "{\"bufferView\":2,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":4,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6},"
             "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":56,\"byteLength\":48},"
             "{\"buffer\":0,\"byteOffset\":104,\"byteLength\":12}],"
             "\"buffers\":[{\"byteLength\":116,\"uri\":\"%s\"}]}",
             uri);
    free(uri);
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    free(json);
    assert_int_equal(log.warnings, 2);
    assert_non_null(strstr(log.all, "meshes[0].primitives[0].attributes.WEIGHTS_0: accessor 3: the weights of 1 of 3 "
                                    "vertices do not sum to 1 (worst: element 0, 0.75); normalized"));
    assert_non_null(strstr(log.all, "meshes[0].primitives[1].attributes.WEIGHTS_0: accessor 4: the weights of 1 of 3 "
                                    "vertices do not sum to 1 (worst: element 2, 0.784313738); normalized"));
    const orr_world *w = orr_prefab_world(a, p);
    orr_entity e = orr_world_find_in_subtree(w, ORR_ENTITY_NONE, ORR_COMPONENT_SKINNED_MESH);
    const orr_mesh *m = orr_assets_try_get_mesh(a, orr_mesh_renderer_try_get(w, e)->mesh);
    assert_non_null(m);
    assert_int_equal(m->primitive_count, 2);
    const float *f = m->primitives[0].weights, *u = m->primitives[1].weights;
    const float want_f[12] = {2.0f / 3.0f, 1.0f / 3.0f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0};
    const float want_u[12] = {1, 0, 0, 0, 128.0f / 255.0f, 127.0f / 255.0f, 0, 0, 0.5f, 0.5f, 0, 0};
    for (int k = 0; k < 12; k++) {
        assert_float_equal(f[k], want_f[k], 1e-7);
        assert_float_equal(u[k], want_u[k], 1e-7);
    }
    orr_assets_destroy(a);
}

/* Loads `json` expecting a refusal whose message starts with `prefix`. */
static void expect_refusal(const char *json, orr_result code, const char *prefix)
{
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    orr_result r = load(a, json, &p, &err);
    if (r == ORR_OK) fail_msg("loaded, expected a refusal starting '%s'", prefix);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0) fail_msg("message '%s' does not start with '%s'", err.message, prefix);
    if (code != ORR_OK) assert_int_equal(r, code);
    orr_assets_destroy(a);
}

static orr_entity find_named(const orr_world *w, const char *name)
{
    orr_subtree_iter it;
    orr_entity found = ORR_ENTITY_NONE;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);)
        if (strcmp(orr_entity_name(w, e), name) == 0 && orr_entity_eq(found, ORR_ENTITY_NONE)) found = e;
    orr_subtree_end(&it);
    return found;
}

static char *replace(const char *s, const char *from, const char *to);

/* ---- loading ------------------------------------------------------------------------------------ */

static void test_triangle_defaults(void **state)
{
    (void)state;
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    char *json = triangle_json("", "", "");
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(load(a, json, &p, &err), ORR_OK);
    assert_int_equal(log.warnings, 0);
    const orr_world *w = orr_prefab_world(a, p);
    orr_entity tri = find_named(w, "tri");
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, tri);
    assert_non_null(mr);
    assert_int_equal(mr->layers, 1);
    const orr_mesh *m = orr_assets_try_get_mesh(a, mr->mesh);
    assert_non_null(m);
    assert_int_equal(m->primitive_count, 1);
    const orr_primitive *pr = &m->primitives[0];
    assert_int_equal(pr->vertex_count, 3);
    assert_int_equal(pr->index_count, 3);
    assert_true(orr_id_eq(pr->material, orr_assets_default_material(a)));
    for (int v = 0; v < 3; v++) assert_true(fabsf(pr->normals[v * 3 + 2] - 1.0f) < 1e-6f); /* generated flat: +Z */
    assert_true(!pr->texcoords0 && !pr->colors && !pr->tangents); /* absent: read as zeros and white */
    assert_true(m->bounds.max.x == 1.0 && m->bounds.max.y == 1.0);
    free(json);
    orr_assets_destroy(a);
}

static void test_external_buffer_and_missing_file(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/orrt_gltf_%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    assert_int_equal(system(cmd), 0);
    char bpath[512], gpath[512];
    snprintf(bpath, sizeof bpath, "%s/tri data.bin", dir);
    snprintf(gpath, sizeof gpath, "%s/tri.gltf", dir);
    FILE *f = fopen(bpath, "wb");
    assert_non_null(f);
    fwrite(tri_pos, 1, sizeof tri_pos, f);
    fwrite(tri_idx, 1, 6, f);
    fclose(f);
    char *json = triangle_json("", "", "");
    char *uri = strstr(json, "data:");
    char *end = strchr(uri, '"');
    char out[8192];
    snprintf(out, sizeof out, "%.*stri%%20data.bin%s", (int)(uri - json), json, end);
    f = fopen(gpath, "wb");
    fputs(out, f);
    fclose(f);
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p, q;
    orr_error err;
    assert_int_equal(orr_gltf_load(a, gpath, NULL, &p, &err), ORR_OK);
    assert_int_equal(orr_gltf_load(a, gpath, NULL, &q, &err), ORR_OK);
    assert_true(orr_id_eq(p, q));
    assert_int_equal(orr_assets_mesh_count(a), 1);
    orr_gltf_info info;
    assert_int_equal(orr_gltf_info_file(gpath, NULL, NULL, &info, &err), ORR_OK);
    assert_int_equal(info.vertices, 3);
    assert_int_equal(info.indices, 3);
    assert_true(info.bounds.max.x == 1.0 && info.bounds.min.x == 0.0);
    orr_assets_destroy(a);
    remove(bpath);
    a = new_assets(NULL);
    assert_int_equal(orr_gltf_load(a, gpath, NULL, &p, &err), ORR_ERROR_IO);
    assert_non_null(strstr(err.message, "buffers[0].uri"));
    orr_assets_destroy(a);
    /* a FIFO where the buffer should be: refused at once, never a blocking read */
    assert_int_equal(mkfifo(bpath, 0600), 0);
    a = new_assets(NULL);
    assert_int_equal(orr_gltf_load(a, gpath, NULL, &p, &err), ORR_ERROR_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
    orr_assets_destroy(a);
    remove(bpath);
    remove(gpath);
    rmdir(dir);
    free(json);
}

static void test_glb_and_truncations(void **state)
{
    (void)state;
    const char *json = "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
                       "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
                       "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
                       "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"byteLength\":36}]}";
    size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + 8 + 36;
    unsigned char *g = calloc(1, total);
    uint32_t hdr[3] = {0x46546C67u, 2, (uint32_t)total};
    memcpy(g, hdr, 12);
    uint32_t ch[2] = {(uint32_t)jp, 0x4E4F534Au};
    memcpy(g + 12, ch, 8);
    memset(g + 20, ' ', jp);
    memcpy(g + 20, json, jl);
    uint32_t bh[2] = {36, 0x004E4942u};
    memcpy(g + 20 + jp, bh, 8);
    memcpy(g + 28 + jp, tri_pos, 36);
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(orr_gltf_load_memory(a, g, total, NULL, "mem.glb", NULL, &p, &err), ORR_OK);
    const orr_mesh *m = orr_assets_try_get_mesh(a, (orr_mesh_id){1, 1}) ? NULL : NULL;
    (void)m;
    assert_int_equal(orr_assets_mesh_count(a), 1);
    orr_assets_destroy(a);
    /* every truncation is refused, none crashes */
    for (size_t n = 0; n < total; n++) {
        a = new_assets(NULL);
        uint32_t len = (uint32_t)n; /* keep the header's length honest for the cut too, half of the time */
        unsigned char *cut = malloc(n + 1);
        memcpy(cut, g, n);
        if (n >= 12 && n % 2) memcpy(cut + 8, &len, 4);
        assert_int_not_equal(orr_gltf_load_memory(a, cut, n, NULL, NULL, NULL, &p, &err), ORR_OK);
        assert_true(err.message[0] != 0);
        free(cut);
        orr_assets_destroy(a);
    }
    /* a bad container version */
    g[4] = 1;
    a = new_assets(NULL);
    assert_int_equal(orr_gltf_load_memory(a, g, total, NULL, NULL, NULL, &p, &err), ORR_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "glb"));
    orr_assets_destroy(a);
    free(g);
}

static void test_sparse_normalized_stride(void **state)
{
    (void)state;
    bin b = {0};
    /* interleaved: position (3 floats) + uv (2 normalized ubytes + 2 pad) = 16-byte stride */
    unsigned char inter[48];
    for (int v = 0; v < 3; v++) {
        memcpy(inter + v * 16, tri_pos + v * 3, 12);
        inter[v * 16 + 12] = 255;
        inter[v * 16 + 13] = (unsigned char)(v * 51);
        inter[v * 16 + 14] = inter[v * 16 + 15] = 0;
    }
    size_t o_inter = bin_put(&b, inter, 48);
    uint8_t sp_idx[1] = {1};
    float sp_val[3] = {5, 6, 7};
    size_t o_si = bin_put(&b, sp_idx, 1);
    size_t o_sv = bin_put(&b, sp_val, 12);
    char *uri = b64(b.data, b.n);
    char json[8192];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1,\"NORMAL\":2}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
             "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
             "\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":48,\"byteStride\":16},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":1},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":12}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}]}",
             o_inter, o_si, o_sv, b.n, uri);
    free(uri);
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    const orr_world *w = orr_prefab_world(a, p);
    orr_entity e = orr_entity_first_child(w, orr_entity_first_child(w, orr_prefab_root(a, p)));
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, e);
    assert_non_null(mr);
    const orr_primitive *pr = &orr_assets_try_get_mesh(a, mr->mesh)->primitives[0];
    assert_true(pr->positions[3] == 1.0f && pr->positions[7] == 1.0f);
    assert_true(pr->texcoords0[0] == 1.0f);
    assert_true(fabsf(pr->texcoords0[3] - 0.2f) < 1e-6f);
    /* sparse: element 1 replaced by (5, 6, 7), normalized on load; the others zero */
    float l = sqrtf(25 + 36 + 49);
    assert_true(fabsf(pr->normals[3] - 5 / l) < 1e-6f);
    assert_true(pr->normals[0] == 0.0f || pr->normals[2] == 1.0f);
    orr_assets_destroy(a);
}

static void test_nodes_matrix_and_two_scenes(void **state)
{
    (void)state;
    /* node 0 (matrix: translate 1,2,3) with child 1 (TRS scale 2); node 2 sheared; scenes [0,2] and [0] */
    char *json = triangle_json(
        "", ",\"children\":[1]", "");
    /* splice the extra nodes in: replace the nodes array */
    char *nodes = strstr(json, "\"nodes\":[{\"mesh\"");
    char *nodes_end = strstr(nodes, "}],") + 2;
    char out[8192];
    snprintf(out, sizeof out,
             "%.*s\"nodes\":[{\"name\":\"a\",\"mesh\":0,\"children\":[1],\"matrix\":[1,0,0,0, 0,1,0,0, 0,0,1,0, 1,2,3,1]},"
             "{\"name\":\"b\",\"mesh\":0,\"scale\":[2,2,2],\"translation\":[1,0,0]},"
             "{\"name\":\"c\",\"matrix\":[1,0,0,0, 1,1,0,0, 0,0,1,0, 0,0,0,1]}]%s",
             (int)(nodes - json), json, nodes_end);
    /* two scenes */
    char *sc = strstr(out, "\"scenes\":[{\"nodes\":[0]}]");
    assert_non_null(sc);
    char out2[8192];
    snprintf(out2, sizeof out2, "%.*s\"scenes\":[{\"nodes\":[0,2],\"name\":\"first\"},{\"nodes\":[0]}]%s", (int)(sc - out), out,
             sc + strlen("\"scenes\":[{\"nodes\":[0]}]"));
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    if (load(a, out2, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_world *w = (orr_world *)orr_prefab_world(a, p);
    orr_entity root = orr_prefab_root(a, p);
    assert_int_equal(orr_entity_child_count(w, root), 2);
    orr_entity s0 = orr_entity_first_child(w, root), s1 = orr_entity_next_sibling(w, s0);
    assert_string_equal(orr_entity_name(w, s0), "first");
    assert_int_equal(orr_entity_child_count(w, s0), 2);
    assert_int_equal(orr_entity_child_count(w, s1), 1);
    /* a node in two scenes: two copies, each with its scene's layer */
    orr_entity b0 = orr_world_find(w, s0, "a/b"), b1 = orr_world_find(w, s1, "a/b");
    assert_true(orr_entity_is_alive(w, b0) && orr_entity_is_alive(w, b1) && !orr_entity_eq(b0, b1));
    assert_int_equal(orr_mesh_renderer_try_get(w, b0)->layers, 1);
    assert_int_equal(orr_mesh_renderer_try_get(w, b1)->layers, 2);
    orr_mat4d m;
    assert_int_equal(orr_entity_world_matrix(w, b0, &m), ORR_OK);
    assert_true(m.m[0] == 2.0 && m.m[12] == 2.0 && m.m[13] == 2.0 && m.m[14] == 3.0);
    /* a sheared matrix is kept as the local matrix */
    orr_entity c = orr_world_find(w, s0, "c");
    orr_transform lt;
    assert_int_equal(orr_entity_get_local(w, c, &lt), ORR_OK);
    assert_true(lt.has_matrix);
    assert_true(lt.matrix.m[4] == 1.0);
    assert_int_equal(orr_assets_mesh_count(a), 1);
    free(json);
    orr_assets_destroy(a);
}

static void test_components_camera_light_instancing(void **state)
{
    (void)state;
    bin b = {0};
    bin_put(&b, tri_pos, sizeof tri_pos);
    float inst_t[9] = {0, 0, 0, 10, 0, 0, 20, 0, 0};
    size_t ot = bin_put(&b, inst_t, sizeof inst_t);
    char *uri = b64(b.data, b.n);
    char json[8192];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_lights_punctual\",\"EXT_mesh_gpu_instancing\"],"
             "\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"spot\",\"intensity\":40,\"color\":[1,0.5,0],"
             "\"spot\":{\"innerConeAngle\":0.1,\"outerConeAngle\":0.5}},{\"type\":\"directional\",\"intensity\":3}]}},"
             "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":0.7,\"znear\":0.1}},"
             "{\"type\":\"orthographic\",\"orthographic\":{\"xmag\":2,\"ymag\":1,\"znear\":0,\"zfar\":50}}],"
             "\"scenes\":[{\"nodes\":[0,1,2,3]}],"
             "\"nodes\":[{\"name\":\"cam\",\"camera\":0},{\"name\":\"ortho\",\"camera\":1},"
             "{\"name\":\"spot\",\"extensions\":{\"KHR_lights_punctual\":{\"light\":0}}},"
             "{\"name\":\"many\",\"mesh\":0,\"extensions\":{\"EXT_mesh_gpu_instancing\":{\"attributes\":{\"TRANSLATION\":1}}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}]}",
             ot, b.n, uri);
    free(uri);
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    orr_world *w = (orr_world *)orr_prefab_world(a, p);
    const orr_camera *cam = orr_camera_try_get(w, find_named(w, "cam"));
    assert_non_null(cam);
    assert_int_equal(cam->projection, ORR_PERSPECTIVE);
    assert_true(fabs(cam->yfov - 0.7) < 1e-12 && fabs(cam->znear - 0.1) < 1e-12 && cam->zfar == 0);
    const orr_camera *ortho = orr_camera_try_get(w, find_named(w, "ortho"));
    assert_int_equal(ortho->projection, ORR_ORTHOGRAPHIC);
    assert_true(ortho->xmag == 2 && ortho->ymag == 1 && ortho->zfar == 50);
    const orr_light *l = orr_light_try_get(w, find_named(w, "spot"));
    assert_non_null(l);
    assert_int_equal(l->type, ORR_LIGHT_SPOT);
    assert_true(l->intensity == 40.0f && l->color[1] == 0.5f && l->outer_cone == 0.5f && l->inner_cone == 0.1f);
    assert_true(l->enabled);
    orr_entity many = find_named(w, "many");
    assert_false(orr_component_has(w, many, ORR_COMPONENT_MESH_RENDERER));
    assert_int_equal(orr_entity_child_count(w, many), 3);
    orr_entity third = orr_entity_next_sibling(w, orr_entity_next_sibling(w, orr_entity_first_child(w, many)));
    assert_true(orr_component_has(w, third, ORR_COMPONENT_MESH_RENDERER));
    orr_mat4d m;
    assert_int_equal(orr_entity_world_matrix(w, third, &m), ORR_OK);
    assert_true(m.m[12] == 20.0);
    orr_gltf_info info;
    (void)info;
    orr_assets_destroy(a);
}

static void test_animation_clip(void **state)
{
    (void)state;
    bin b = {0};
    bin_put(&b, tri_pos, sizeof tri_pos);
    float times[2] = {0, 2};
    float trans[6] = {0, 0, 0, 4, 0, 0};
    size_t o_t = bin_put(&b, times, 8), o_v = bin_put(&b, trans, 24);
    char *uri = b64(b.data, b.n);
    char json[8192];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"children\":[1]},{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"animations\":[{\"name\":\"slide\",\"samplers\":[{\"input\":1,\"output\":2,\"interpolation\":\"STEP\"}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[2]},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}]}",
             o_t, o_v, b.n, uri);
    free(uri);
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    const orr_world *w = orr_prefab_world(a, p);
    orr_clip_id clip;
    assert_int_equal(orr_prefab_clips(a, p, &clip, 1), 1);
    const orr_clip *c = orr_assets_try_get_clip(a, clip);
    assert_string_equal(c->name, "slide");
    assert_int_equal(c->channel_count, 1);
    assert_int_equal(c->channels[0].target, 1);
    assert_int_equal(c->channels[0].interpolation, ORR_INTERP_STEP);
    assert_true(c->channels[0].values[3] == 4.0f && c->duration == 2.0);
    const orr_animation_player *ap = orr_animation_player_try_get(w, orr_prefab_root(a, p));
    assert_non_null(ap);
    uint32_t n;
    const orr_entity *targets = orr_animation_player_targets(w, orr_prefab_root(a, p), &n);
    assert_int_equal(n, 2);
    assert_true(orr_component_has(w, targets[1], ORR_COMPONENT_MESH_RENDERER));
    /* instantiating remaps the targets into the new world */
    orr_world *live;
    assert_int_equal(orr_world_create(NULL, &live, NULL), ORR_OK);
    orr_entity inst;
    assert_int_equal(orr_prefab_instantiate(live, a, p, ORR_ENTITY_NONE, NULL, &inst), ORR_OK);
    const orr_animation_player *lp = orr_animation_player_try_get(live, inst);
    assert_non_null(lp);
    assert_true(orr_component_has(live, orr_animation_player_targets(live, inst, NULL)[1], ORR_COMPONENT_MESH_RENDERER));
    orr_world_destroy(live);
    orr_assets_destroy(a);
}

/* Past the old caps: a skin of 300 joints (refused before: at most 256), an animation whose channel
 * targets node 599 of 600 (dropped before: node >= 256), names of 1000 bytes (cut at 63 before). */
static void test_large_rig(void **state)
{
    (void)state;
    enum { J = 300, NODES = 600, NAME = 1000 };
    size_t cap = 64 + 48 + 48 + (size_t)J * 64 + 8 + 24;
    unsigned char *buf = calloc(1, cap);
    assert_non_null(buf);
    size_t n = 0;
    memcpy(buf + n, tri_pos, 36), n += 36;
    const uint16_t jnt[12] = {0, 0, 0, 0, J / 2, 0, 0, 0, J - 1, 0, 0, 0};
    memcpy(buf + n, jnt, 24), n += 24;
    const float wts[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    size_t o_w = n;
    memcpy(buf + n, wts, 48), n += 48;
    size_t o_ibm = n;
    for (int j = 0; j < J; j++) {
        float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.1f * (float)(j + 1), 0, 1};
        memcpy(buf + n, m, 64), n += 64;
    }
    size_t o_t = n;
    const float times[2] = {0, 1}, moves[6] = {0, 0, 0, 0, 5, 0};
    memcpy(buf + n, times, 8), n += 8;
    memcpy(buf + n, moves, 24), n += 24;
    char *uri = b64(buf, n);
    free(buf);
    char *name = malloc(NAME + 1);
    assert_non_null(name);
    memset(name, 'n', NAME);
    name[NAME] = 0;
    size_t jcap = 1u << 20;
    char *json = malloc(jcap);
    assert_non_null(json);
    size_t k = (size_t)snprintf(json, jcap,
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%d},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"VEC3\",\"count\":3,\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":1,\"componentType\":5123,\"type\":\"VEC4\",\"count\":3},"
        "{\"bufferView\":2,\"componentType\":5126,\"type\":\"VEC4\",\"count\":3},"
        "{\"bufferView\":3,\"componentType\":5126,\"type\":\"MAT4\",\"count\":%d},"
        "{\"bufferView\":4,\"componentType\":5126,\"type\":\"SCALAR\",\"count\":2,\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":5,\"componentType\":5126,\"type\":\"VEC3\",\"count\":2}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
        "\"animations\":[{\"samplers\":[{\"input\":4,\"output\":5}],\"channels\":["
        "{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"translation\"}},{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"translation\"}}]}],"
        "\"skins\":[{\"inverseBindMatrices\":3,\"joints\":[",
        n, uri, o_w, o_ibm, J * 64, o_t, o_t + 8, J, NODES - 1, J);
    free(uri);
    for (int j = 0; j < J; j++) k += (size_t)snprintf(json + k, jcap - k, "%s%d", j ? "," : "", j + 1);
    k += (size_t)snprintf(json + k, jcap - k, "]}],\"nodes\":[{\"name\":\"%s\",\"mesh\":0,\"skin\":0}", name);
    for (int j = 1; j <= J; j++) {
        char kids[32] = "";
        if (j < J) snprintf(kids, sizeof kids, ",\"children\":[%d]", j + 1);
        k += (size_t)snprintf(json + k, jcap - k, ",{\"name\":\"j%d%s\",\"translation\":[0,0.1,0]%s}", j,
                              j == J ? name : "", kids);
    }
    for (int j = J + 1; j < NODES; j++) k += (size_t)snprintf(json + k, jcap - k, ",{\"name\":\"x%d\"}", j);
    k += (size_t)snprintf(json + k, jcap - k, "],\"scenes\":[{\"nodes\":[0,1");
    for (int j = J + 1; j < NODES; j++) k += (size_t)snprintf(json + k, jcap - k, ",%d", j);
    k += (size_t)snprintf(json + k, jcap - k, "]}]}");
    assert_true(k < jcap);

    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    free(json);
    assert_int_equal(log.warnings, 0); /* nothing dropped, nothing cut */
    const orr_world *w = orr_prefab_world(a, p);
    orr_entity root = orr_prefab_root(a, p);
    /* the long name, whole, and found by path */
    char path[NAME + 16];
    snprintf(path, sizeof path, "scene0/%s", name);
    orr_entity body = orr_world_find(w, root, path);
    assert_true(body.generation != 0);
    assert_string_equal(orr_entity_name(w, body), name);
    /* the skin's 300 joints: the chain of j1 .. j300, the last one named with 1000 more bytes */
    const orr_skinned_mesh *sm = orr_skinned_mesh_try_get(w, body);
    assert_non_null(sm);
    assert_int_equal(orr_assets_try_get_skin(a, sm->skin)->joint_count, J);
    uint32_t count;
    const orr_entity *joints = orr_skinned_mesh_joints(w, body, &count);
    assert_int_equal(count, J);
    assert_string_equal(orr_entity_name(w, joints[0]), "j1");
    assert_int_equal(strlen(orr_entity_name(w, joints[J - 1])), 4 + NAME);
    for (uint32_t j = 1; j < J; j++) assert_true(orr_entity_eq(orr_entity_parent(w, joints[j]), joints[j - 1]));
    /* the player targets every node, so channels on nodes 300 and 599 both reach their entities */
    orr_clip_id clip;
    assert_int_equal(orr_prefab_clips(a, p, &clip, 1), 1);
    const orr_clip *c = orr_assets_try_get_clip(a, clip);
    assert_int_equal(c->channel_count, 2);
    assert_int_equal(c->channels[0].target, NODES - 1);
    const orr_entity *targets = orr_animation_player_targets(w, root, &count);
    assert_int_equal(count, NODES);
    assert_string_equal(orr_entity_name(w, targets[NODES - 1]), "x599");
    assert_true(orr_entity_eq(targets[J], joints[J - 1]));
    /* instantiated: lists copied and remapped into the live world */
    orr_world *live;
    assert_int_equal(orr_world_create(NULL, &live, NULL), ORR_OK);
    orr_entity inst;
    assert_int_equal(orr_prefab_instantiate(live, a, p, ORR_ENTITY_NONE, NULL, &inst), ORR_OK);
    orr_entity lbody = orr_world_find(live, inst, path);
    const orr_entity *lj = orr_skinned_mesh_joints(live, lbody, &count);
    assert_int_equal(count, J);
    assert_int_equal(strlen(orr_entity_name(live, lj[J - 1])), 4 + NAME);
    assert_string_equal(orr_entity_name(live, orr_animation_player_targets(live, inst, NULL)[NODES - 1]), "x599");
    orr_world_destroy(live);
    free(name);
    orr_assets_destroy(a);
}

/* A skinned, textured, morph-targeted triangle with a cubic-spline rotation and a weights channel. */
static void test_skin_texture_morph_cubic(void **state)
{
    (void)state;
    bin b = {0};
    size_t o_pos = bin_put(&b, tri_pos, sizeof tri_pos);
    uint8_t joints[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    size_t o_j = bin_put(&b, joints, sizeof joints);
    float weights[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0};
    size_t o_w = bin_put(&b, weights, sizeof weights);
    float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -2, 0, 0, 1};
    size_t o_ibm = bin_put(&b, ibm, sizeof ibm);
    float times[2] = {0, 1};
    size_t o_t = bin_put(&b, times, sizeof times);
    float rot[24] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}; /* in, value, out x 2 */
    size_t o_r = bin_put(&b, rot, sizeof rot);
    float morph[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    size_t o_m = bin_put(&b, morph, sizeof morph);
    float wv[2] = {0, 1};
    size_t o_wv = bin_put(&b, wv, sizeof wv);
    char *uri = b64(b.data, b.n);
    static const char png[] = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    char *json = malloc(16384);
    snprintf(json, 16384,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_transform\",\"KHR_materials_unlit\","
             "\"KHR_materials_emissive_strength\"],\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"name\":\"skinned\",\"mesh\":0,\"skin\":0},{\"name\":\"hip\",\"children\":[2]},{\"name\":\"knee\"}],"
             "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":3}],"
             "\"meshes\":[{\"weights\":[0],\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2},"
             "\"targets\":[{\"POSITION\":6}],\"material\":0}]}],"
             "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":"
             "{\"offset\":[0.5,0],\"scale\":[2,2],\"rotation\":0.25}}},\"metallicFactor\":0.1},\"normalTexture\":{\"index\":0,\"scale\":0.5},"
             "\"occlusionTexture\":{\"index\":0,\"strength\":0.25},\"emissiveTexture\":{\"index\":0},\"emissiveFactor\":[1,0,0],"
             "\"alphaMode\":\"MASK\",\"alphaCutoff\":0.3,\"doubleSided\":true,"
             "\"extensions\":{\"KHR_materials_unlit\":{},\"KHR_materials_emissive_strength\":{\"emissiveStrength\":5}}}],"
             "\"textures\":[{\"source\":0,\"sampler\":0}],\"images\":[{\"uri\":\"%s\"}],"
             "\"samplers\":[{\"magFilter\":9728,\"minFilter\":9728,\"wrapS\":33071,\"wrapT\":33648}],"
             "\"animations\":[{\"samplers\":[{\"input\":4,\"output\":5,\"interpolation\":\"CUBICSPLINE\"},{\"input\":4,\"output\":7}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"rotation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"weights\"}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
             "{\"bufferView\":5,\"componentType\":5126,\"count\":6,\"type\":\"VEC4\"},"
             "{\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":7,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":12},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":128},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":96},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}]}",
             png, o_pos, o_j, o_w, o_ibm, o_t, o_r, o_m, o_wv, b.n, uri);
    free(uri);
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    const orr_world *w = orr_prefab_world(a, p);
    orr_entity sk = find_named(w, "skinned");
    const orr_skinned_mesh *sm = orr_skinned_mesh_try_get(w, sk);
    assert_non_null(sm);
    uint32_t jn;
    const orr_entity *jl = orr_skinned_mesh_joints(w, sk, &jn);
    assert_int_equal(jn, 2);
    assert_true(orr_entity_eq(jl[0], find_named(w, "hip")) && orr_entity_eq(jl[1], find_named(w, "knee")));
    const orr_skin *skin = orr_assets_try_get_skin(a, sm->skin);
    assert_true(skin->inverse_bind[1].m[12] == -2.0);
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, sk);
    const orr_primitive *pr = &orr_assets_try_get_mesh(a, mr->mesh)->primitives[0];
    assert_int_equal(pr->joints[4], 1);
    assert_true(pr->weights[9] == 0.75f);
    const orr_material *m = orr_assets_try_get_material(a, pr->material);
    assert_int_equal(m->alpha_mode, ORR_ALPHA_MASK);
    assert_true(m->alpha_cutoff == 0.3f && m->double_sided && m->unlit && m->emissive_strength == 5.0f);
    assert_true(m->metallic == 0.1f && m->emissive[0] == 1.0f);
    assert_true(m->base_color_texture.offset[0] == 0.5f && m->base_color_texture.uv_scale[1] == 2.0f &&
                m->base_color_texture.rotation == 0.25f);
    assert_true(m->normal_texture.scale == 0.5f && m->occlusion_texture.scale == 0.25f);
    const orr_texture *t = orr_assets_try_get_texture(a, m->base_color_texture.texture);
    assert_non_null(t);
    assert_int_equal(t->width, 1);
    assert_int_equal(t->color_space, ORR_COLOR_SPACE_SRGB); /* used as base color */
    assert_int_equal(t->sampler.mag_filter, ORR_FILTER_NEAREST);
    assert_int_equal(t->sampler.wrap_s, ORR_WRAP_CLAMP);
    assert_int_equal(t->sampler.wrap_t, ORR_WRAP_MIRROR);
    /* the same glTF texture read as data (normal, occlusion) is its linear twin */
    const orr_texture *lin = orr_assets_try_get_texture(a, m->normal_texture.texture);
    assert_false(orr_id_eq(m->normal_texture.texture, m->base_color_texture.texture));
    assert_true(orr_id_eq(m->normal_texture.texture, m->occlusion_texture.texture));
    assert_true(orr_id_eq(m->emissive_texture.texture, m->base_color_texture.texture));
    assert_int_equal(lin->color_space, ORR_COLOR_SPACE_LINEAR);
    orr_clip_id clip;
    assert_int_equal(orr_prefab_clips(a, p, &clip, 1), 1);
    const orr_clip *c = orr_assets_try_get_clip(a, clip);
    assert_int_equal(c->channel_count, 2);
    assert_int_equal(c->channels[0].interpolation, ORR_INTERP_CUBICSPLINE);
    assert_int_equal(c->channels[0].components, 4);
    assert_true(c->channels[0].values[4 + 3] == 1.0f); /* key 0 value w */
    assert_int_equal(c->channels[1].path, ORR_ANIM_WEIGHTS);
    assert_int_equal(c->channels[1].components, 1);
    /* the morph target reaches the mesh (unwelded with it: the normals were generated flat), with the
     * mesh's default weight, and the bounds cover the target at weight 1 */
    const orr_mesh *mesh = orr_assets_try_get_mesh(a, mr->mesh);
    assert_int_equal(pr->target_count, 1);
    for (uint32_t k = 0; k < pr->vertex_count; k++) assert_true(pr->targets[0].positions[k * 3 + 2] == 1.0f);
    assert_int_equal(mesh->weight_count, 1);
    assert_true(mesh->weights[0] == 0.0f);
    assert_true(mesh->bounds.max.z >= 1.0);
    free(json);
    orr_assets_destroy(a);
}

static void test_undecodable_image_falls_back(void **state)
{
    (void)state;
    char *json = triangle_json(",\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
                               "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"data:image/png;base64,AAAA\"}]",
                               "", ",\"material\":0");
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    /* bytes that are no PNG or JPEG break the spec: an error (`validate` fails the file), drawn white */
    if (!strstr(log.last_error, "images[0]: cannot be decoded") || !strstr(log.last_error, "textures[0] falls back to white"))
        fail_msg("%s", log.all);
    const orr_material *m = orr_assets_try_get_material(a, (orr_material_id){1, 1});
    (void)m;
    free(json);
    orr_assets_destroy(a);
}

/* The loader allocates through the library's allocator and gives everything back, also on refusal. */
static void test_allocations_through_the_hooks(void **state)
{
    (void)state;
    orrt_counter c = {0};
    orr_assets_desc d = {.allocator = {orrt_counting_realloc, &c}};
    char *json = triangle_json("", "", "");
    char *bad = replace(json, "\"byteLength\":42", "\"byteLength\":48");
    for (int round = 0; round < 2; round++) {
        orr_assets *a;
        assert_int_equal(orr_assets_create(&d, &a, NULL), ORR_OK);
        orr_prefab_id p;
        orr_error err;
        orr_result r = load(a, round ? bad : json, &p, &err);
        assert_int_equal(r, round ? ORR_ERROR_PARSE : ORR_OK);
        if (!round) {
            orr_world *w;
            orr_world_desc wd = {.allocator = {orrt_counting_realloc, &c}};
            assert_int_equal(orr_world_create(&wd, &w, NULL), ORR_OK);
            orr_entity e;
            assert_int_equal(orr_prefab_instantiate(w, a, p, ORR_ENTITY_NONE, NULL, &e), ORR_OK);
            orr_world_destroy(w);
        }
        assert_true(c.bytes > 0 || round);
        orr_assets_destroy(a);
        assert_int_equal(c.bytes, 0);
    }
    free(bad);
    free(json);
}

static void test_meshlets_option(void **state)
{
    (void)state;
    char *json = triangle_json("", "", "");
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    orr_gltf_options opt = {.build_meshlets = true};
    assert_int_equal(orr_gltf_load_memory(a, json, strlen(json), NULL, "m", &opt, &p, &err), ORR_OK);
    const orr_world *w = orr_prefab_world(a, p);
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, find_named(w, "tri"));
    const orr_mesh *m = orr_assets_try_get_mesh(a, mr->mesh);
    assert_int_equal(m->meshlet_count, 1);
    assert_int_equal(m->primitives[0].meshlet_count, 1);
    assert_int_equal(m->meshlets[0].triangle_count, 1);
    free(json);
    orr_assets_destroy(a);
}

/* Nodes but no scenes: one implicit scene of the root nodes; neither nodes nor scenes: an empty root. */
static void test_implicit_scene(void **state)
{
    (void)state;
    char *json = triangle_json("", "", "");
    char *noscene = replace(json, "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],", "");
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    if (load(a, noscene, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_int_equal(orr_prefab_scene_count(a, p), 1);
    assert_int_equal(orr_prefab_default_scene(a, p), 0);
    const orr_world *w = orr_prefab_world(a, p);
    orr_entity s0 = orr_entity_first_child(w, orr_prefab_root(a, p));
    assert_string_equal(orr_entity_name(w, s0), "scene0");
    assert_string_equal(orr_entity_name(w, orr_entity_first_child(w, s0)), "tri");
    const char *empty = "{\"asset\":{\"version\":\"2.0\"}}";
    assert_int_equal(load(a, empty, &p, &err), ORR_OK);
    assert_int_equal(orr_prefab_scene_count(a, p), 0);
    assert_int_equal(orr_entity_child_count(orr_prefab_world(a, p), orr_prefab_root(a, p)), 0);
    assert_int_equal(orr_prefab_scene_count(a, (orr_prefab_id){77, 1}), 0);
    assert_null(orr_prefab_world(a, (orr_prefab_id){77, 1}));
    orr_world *live;
    assert_int_equal(orr_world_create(NULL, &live, NULL), ORR_OK);
    orr_entity e;
    assert_int_equal(orr_prefab_instantiate(live, a, (orr_prefab_id){77, 1}, ORR_ENTITY_NONE, NULL, &e), ORR_ERROR_STALE_HANDLE);
    orr_world_destroy(live);
    free(noscene);
    free(json);
    orr_assets_destroy(a);
}

static void test_entity_limit(void **state)
{
    (void)state;
    char *json = triangle_json("", "", "");
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    orr_gltf_options opt = {.max_entities = 2}; /* root + scene + node = 3 */
    assert_int_equal(orr_gltf_load_memory(a, json, strlen(json), NULL, NULL, &opt, &p, &err), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(err.message, "max_entities"));
    assert_int_equal(orr_assets_mesh_count(a), 0); /* refused before anything was added */
    /* the default budget: one 200-node tree listed by 30000 scenes is 6 million entities */
    size_t cap = 30000 * 16 + 200 * 8 + 4096, n = 0;
    char *bomb = malloc(cap);
    n += (size_t)sprintf(bomb + n, "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[");
    for (int i = 0; i < 30000; i++) n += (size_t)sprintf(bomb + n, "%s{\"nodes\":[0]}", i ? "," : "");
    n += (size_t)sprintf(bomb + n, "],\"nodes\":[{\"children\":[");
    for (int i = 1; i < 200; i++) n += (size_t)sprintf(bomb + n, "%s%d", i > 1 ? "," : "", i);
    n += (size_t)sprintf(bomb + n, "]}");
    for (int i = 1; i < 200; i++) n += (size_t)sprintf(bomb + n, ",{}");
    n += (size_t)sprintf(bomb + n, "]}");
    assert_int_equal(orr_gltf_load_memory(a, bomb, n, NULL, NULL, NULL, &p, &err), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(err.message, "6030001 entities"));
    free(bomb);
    /* zeros without file bytes: a view-less accessor is bounded by the file's buffer bytes */
    const char *zeros = "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":1000000,\"type\":\"MAT4\"}]}";
    assert_int_equal(orr_gltf_load_memory(a, zeros, strlen(zeros), NULL, NULL, NULL, &p, &err), ORR_ERROR_CAPACITY);
    assert_non_null(strstr(err.message, "accessors[0].count"));
    opt.max_entities = 3;
    assert_int_equal(orr_gltf_load_memory(a, json, strlen(json), NULL, NULL, &opt, &p, &err), ORR_OK);
    assert_int_equal(orr_world_entity_count(orr_prefab_world(a, p)), 3);
    free(json);
    orr_assets_destroy(a);
}

/* The command line: info --json and validate, on files written here (skips without the tool). */
static void test_tool_info_and_validate(void **state)
{
    (void)state;
    const char *tool = getenv("ORRERY_TOOL");
    if (!tool || access(tool, X_OK) != 0) orrt_skip("ORRERY_TOOL does not name the orrery tool (run through ctest)");
    char good[256], bad[256];
    snprintf(good, sizeof good, "/tmp/orrt_tool_%d_good.gltf", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/orrt_tool_%d_bad.gltf", (int)getpid());
    char *json = triangle_json("", "", "");
    char *broken = replace(json, "{\"bufferView\":1,", "{\"bufferView\":7,");
    FILE *f = fopen(good, "w");
    fputs(json, f);
    fclose(f);
    f = fopen(bad, "w");
    fputs(broken, f);
    fclose(f);
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "%s info --json %s", tool, good);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 0);
    const char *keys[] = {"\"scenes\": 1", "\"nodes\": 1", "\"meshes\": 1", "\"primitives\": 1", "\"materials\": 0",
                          "\"textures\": 0", "\"skins\": 0", "\"animations\": 0", "\"cameras\": 0", "\"lights\": 0",
                          "\"vertices\": 3", "\"indices\": 3", "\"bounds\": {\"min\": [0,0,0], \"max\": [1,1,0]}"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(out, keys[i])) fail_msg("info --json lacks %s: %s", keys[i], out);
    snprintf(cmd, sizeof cmd, "%s validate %s", tool, good);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 0);
    snprintf(cmd, sizeof cmd, "%s validate %s %s 2>/dev/null", tool, good, bad);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, bad));
    assert_non_null(strstr(out, "accessors[1].bufferView: 7 is out of range, 2 bufferViews"));
    assert_null(strstr(out, good));
    snprintf(cmd, sizeof cmd, "%s bench gltf %s --json --seconds 0.05", tool, good);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 0);
    /* one object per line: the load at 1 thread, its phases, the read baseline, at --threads 1 */
    const char *lines[] = {"{\"name\": \"load\", \"threads\": 1, \"workers\": \"none\", \"bytes\": ", "{\"name\": \"load.json_parse\", \"threads\": 1,",
                           "{\"name\": \"load.buffer_decode\", \"threads\": 1,", "{\"name\": \"load.image_decode\", \"threads\": 1,",
                           "{\"name\": \"load.build\", \"threads\": 1,", "{\"name\": \"baseline_read\", ",
                           "{\"name\": \"load_vs_read\", \"threads\": 1, \"workers\": \"none\", \"value\": ", "\"ns_per_item\": "};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (!strstr(out, lines[i])) fail_msg("bench gltf --json lacks %s: %s", lines[i], out);
    snprintf(cmd, sizeof cmd, "%s bench gltf %s --json --seconds 0.05 --threads 3", tool, good);
    assert_int_equal(orrt_run(cmd, out, sizeof out), 0);
    /* at N threads: the load starting its own, and on workers kept by the caller */
    assert_non_null(strstr(out, "{\"name\": \"load\", \"threads\": 3, \"workers\": \"started\", "));
    assert_non_null(strstr(out, "{\"name\": \"load_vs_read\", \"threads\": 3, \"workers\": \"kept\", "));
    assert_null(strstr(out, "\"threads\": 1, "));
    remove(good);
    remove(bad);
    free(json);
    free(broken);
}

static void test_untidy_loads_with_warnings(void **state)
{
    (void)state;
    char *json = triangle_json(",\"extensionsUsed\":[\"VENDOR_whatever\"],\"frobnicate\":1", ",\"wobble\":true", "");
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(load(a, json, &p, &err), ORR_OK);
    assert_true(log.warnings >= 3);
    assert_non_null(strstr(log.all, "extensionsUsed[0]: extension VENDOR_whatever is not supported, ignored"));
    assert_non_null(strstr(log.all, "frobnicate: unknown property, ignored"));
    assert_non_null(strstr(log.all, "nodes[0].wobble: unknown property, ignored"));
    /* min/max that disagree with the data */
    char *mm = replace(json, "\"max\":[1,1,0]", "\"max\":[1,2,0]");
    log.all[0] = 0;
    assert_int_equal(load(a, mm, &p, &err), ORR_OK);
    assert_non_null(strstr(log.all, "accessors[0]: declared min/max disagree with the data (component 1"));
    free(mm);
    /* a byte order mark */
    char *bom = malloc(strlen(json) + 4);
    sprintf(bom, "\xEF\xBB\xBF%s", json);
    log.warnings = 0;
    assert_int_equal(load(a, bom, &p, &err), ORR_OK);
    assert_non_null(strstr(log.all, "JSON: starts with a UTF-8 byte order mark"));
    assert_true(log.warnings >= 3); /* the mark is an error (JSON MUST be without one), logged as such */
    free(bom);
    free(json);
    orr_assets_destroy(a);
}

/* The threads of this process, as Linux lists them (0 elsewhere: the check below is then vacuous). */
static int thread_count(void)
{
    int n = 0;
#ifdef __linux__
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Threads:", 8)) n = atoi(line + 8);
    if (f) fclose(f);
#endif
    return n;
}

static void count_threads(void *user, orr_gltf_phase phase, uint64_t done, uint64_t total)
{
    (void)phase, (void)done, (void)total;
    int *most = user, n = thread_count();
    if (n > *most) *most = n;
}

/* A small file loads on the caller's thread alone, whatever orr_gltf_options.threads says: the load
 * starts its workers at its first parallel pass, and a file this small has none. */
static void test_small_load_starts_no_threads(void **state)
{
    (void)state;
    char *json = triangle_json("", "", "");
    orr_assets *a = new_assets(NULL);
    int before = thread_count(), most = 0;
    orr_gltf_options opt = {.threads = 8, .progress = count_threads, .progress_user = &most};
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(orr_gltf_load_memory(a, json, strlen(json), "/tmp", NULL, &opt, &p, &err), ORR_OK);
    assert_true(most > 0 || before == 0); /* the progress was reported */
    assert_int_equal(most, before);
    orr_assets_destroy(a);
    free(json);
}

/* Quantized vectors of 3 padded to 4 (KHR_mesh_quantization's layout, gltfpack's output) are scanned
 * for their extremes without their padding, whatever it holds, and up to the last element, whose
 * padding lies past the end of its view and its buffer here: declared bounds that match the data give
 * no warning, and bounds that an element breaks are named, wherever it lies (37 elements: whole steps of
 * the scan's vector loop, 8 or 16 elements each, then the rest). */
static void test_padded_vectors_scanned(void **state)
{
    (void)state;
    enum { N = 37 };
    /* positions: u16 x 3 at a stride of 8, padding 0xffff; x = 1..37, y = (7i) % 50 but 700 at 13, z = 100 - i.
     * normals: i8 x 3 at a stride of 4, padding 127; y = -127 at 20 (in the second step of 16), x = 127 at 35 (the rest) */
    uint16_t pos[N][4];
    int8_t nrm[N][4];
    for (int i = 0; i < N; i++) {
        pos[i][0] = (uint16_t)(i + 1), pos[i][1] = (uint16_t)(i == 13 ? 700 : i * 7 % 50), pos[i][2] = (uint16_t)(100 - i);
        pos[i][3] = 0xffff;
        int axis = i == 35 ? 0 : i == 20 || i % 4 == 1 ? 1 : 2; /* unit: one axis each */
        nrm[i][0] = nrm[i][1] = nrm[i][2] = 0, nrm[i][axis] = (int8_t)(i == 20 ? -127 : 127), nrm[i][3] = 127;
    }
    static const uint16_t idx[3] = {0, 1, 2};
    unsigned char bytes[N * 4 + 8 + N * 8 - 2];
    memcpy(bytes, nrm, N * 4);
    memcpy(bytes + N * 4, idx, 6);
    memset(bytes + N * 4 + 6, 0, 2);
    memcpy(bytes + N * 4 + 8, pos, N * 8 - 2); /* the buffer ends before the last position's padding */
    char *uri = b64(bytes, sizeof bytes), json[4096];
    const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
        "\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
        "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":%d}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d,\"byteStride\":8},"
        "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%d,\"byteStride\":4},{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":6}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":%d,\"type\":\"VEC3\",\"min\":[1,0,64],\"max\":[37,%d,100]},"
        "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,%d,0],\"max\":[127,127,127]},"
        "{\"bufferView\":2,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2}]}],"
        "\"nodes\":[{\"mesh\":0,\"name\":\"q\"}],\"scenes\":[{\"nodes\":[0]}]}";
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
#define FILL(ymax, nmin) snprintf(json, sizeof json, fmt, uri, (int)sizeof bytes, N * 4 + 8, N * 8 - 2, N * 4, N * 4, N, ymax, N, nmin)
    FILL(700, -127);
    if (load(a, json, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    if (log.warnings) fail_msg("warned: %s", log.all);
    const orr_world *w = orr_prefab_world(a, p);
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, find_named(w, "q"));
    const orr_mesh *m = orr_assets_try_get_mesh(a, mr->mesh);
    assert_true(m->primitives[0].bounds.max.y == 700.0f && m->primitives[0].bounds.min.z == 64.0f &&
                m->primitives[0].bounds.max.x == 37.0f && m->primitives[0].bounds.min.y == 0.0f);
    FILL(699, -126);
    assert_int_equal(load(a, json, &p, &err), ORR_OK);
    assert_non_null(strstr(log.all, "accessors[0]: declared min/max disagree with the data (component 1: data 0..700)"));
    assert_non_null(strstr(log.all, "accessors[1]: declared min/max disagree with the data (component 1: data -127..127)"));
#undef FILL
    orr_assets_destroy(a);
    free(uri);
}

/* What the glTF validator calls an error but the loader can take: loaded, with a warning that names
 * the place (the corpus test checks the same against the validator's reports; these need no corpus).
 * And a valid file gets none of them. */
static void test_validator_errors_warn(void **state)
{
    (void)state;
    char *base = triangle_json("", "", "");
    struct {
        const char *from, *to; /* edit of the triangle */
        const char *warning;   /* expected in the log */
    } cases[] = {
        {"\"scenes\":[{\"nodes\":[0]}]", "\"scenes\":[{\"nodes\":[0]}],\"animations\":[]", "animations: empty array, ignored"},
        {"\"scenes\":[{\"nodes\":[0]}]", "\"scenes\":[{\"nodes\":[0]},{\"nodes\":[]}]", "scenes[1].nodes: empty array, ignored"},
        {"\"name\":\"tri\"", "\"name\":\"tri\",\"children\":[]", "nodes[0].children: empty array, ignored"},
        {"{\"asset\"", "{\"extensionsUsed\":[\"KHR_materials_unlit\",\"KHR_materials_unlit\"],\"asset\"",
         "extensionsUsed[1]: KHR_materials_unlit is listed twice (extensionsUsed[0])"},
        {"\"name\":\"tri\"", "\"name\":\"tri\",\"extensions\":{\"VENDOR_x\":{}}",
         "nodes[0].extensions.VENDOR_x: extension VENDOR_x is not declared in extensionsUsed"},
        {"{\"asset\"", "{\"extensionsUsed\":[\"VENDOR_x\"],\"extensions\":{\"VENDOR_x\":{}},\"asset\"",
         "extensions.VENDOR_x: extension VENDOR_x is not supported, ignored"},
        {"{\"asset\"", "{\"extensionsUsed\":[\"KHR_texture_transform\"],\"asset\"", NULL}, /* declared, unused: fine */
        {"\"name\":\"tri\"", "\"name\":\"tri\",\"extensions\":{\"KHR_texture_transform\":{}}",
         "nodes[0].extensions.KHR_texture_transform: extension KHR_texture_transform does not belong here, ignored"},
        {"{\"asset\"", "{\"extensionsUsed\":[\"VENDOR_x\"],\"extensions\":{\"VENDOR_x\":5},\"asset\"",
         "extensions.VENDOR_x: expected an object, found a number; ignored"}, /* a supported one is refused */
        {"{\"asset\"", "{\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":1},"
                       "\"orthographic\":{\"xmag\":1,\"ymag\":1,\"znear\":1,\"zfar\":2}}],\"asset\"",
         "cameras[0]: both perspective and orthographic; the type ('perspective') is used"},
        /* with a mesh: weights for its morph targets, and the triangle has none */
        {"\"name\":\"tri\"", "\"name\":\"tri\",\"weights\":[1]", "nodes[0].weights: 1 weights for 0 morph targets"},
        {"\"mesh\":0,\"name\":\"tri\"", "\"name\":\"tri\",\"weights\":[1]", "nodes[0].weights: set without a mesh, ignored"},
        {"{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
         "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[3]}",
         "accessors[1]: declared min/max disagree with the data (component 0: data 0..2)"},
        {",\"indices\":1", ",\"indices\":1,\"material\":0", NULL}, /* an untextured material needs no coordinates */
    };
    logbook log = {0};
    orr_assets *a = new_assets(&log);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(load(a, base, &p, &err), ORR_OK);
    assert_int_equal(log.warnings, 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = replace(base, cases[i].from, cases[i].to);
        if (strstr(cases[i].to, "\"material\":0")) {
            char *with = replace(json, "\"buffers\"", "\"materials\":[{}],\"buffers\"");
            free(json);
            json = with;
        }
        orr_assets_destroy(a);
        memset(&log, 0, sizeof log);
        a = new_assets(&log);
        orr_result r = load(a, json, &p, &err);
        if (r != ORR_OK) fail_msg("case %zu: refused: %s", i, err.message);
        if (cases[i].warning && !strstr(log.all, cases[i].warning))
            fail_msg("case %zu: no warning '%s'; the log:\n%s", i, cases[i].warning, log.all);
        if (!cases[i].warning && log.warnings) fail_msg("case %zu: unexpected warnings:\n%s", i, log.all);
        free(json);
    }
    /* a material sampling TEXCOORD_1 on a primitive with only TEXCOORD_0 (the triangle has none: add one) */
    char *uv = replace(base, "\"attributes\":{\"POSITION\":0}", "\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":2},\"material\":0");
    char *acc = replace(uv, "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
                        "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
                        "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}");
    char *mat = replace(acc, "\"buffers\"", "\"materials\":[{\"emissiveTexture\":{\"index\":0,\"texCoord\":1}}],"
                                             "\"textures\":[{}],\"buffers\"");
    orr_assets_destroy(a);
    memset(&log, 0, sizeof log);
    a = new_assets(&log);
    assert_int_equal(load(a, mat, &p, &err), ORR_OK);
    if (!strstr(log.all, "meshes[0].primitives[0].material: material 0 samples TEXCOORD_1, which the primitive lacks"))
        fail_msg("no TEXCOORD_1 warning; the log:\n%s", log.all);
    free(uv), free(acc), free(mat);
    /* the restart value of an index type: 255 of UNSIGNED_BYTE, as a real vertex index (256 vertices) */
    {
        float pos[256 * 3] = {0};
        pos[3] = 1, pos[7] = 1;
        uint8_t idx[4] = {0, 1, 255, 0};
        bin b = {0};
        bin_put(&b, pos, sizeof pos);
        bin_put(&b, idx, 4);
        char *uri = b64(b.data, b.n);
        char *json = malloc(strlen(uri) + 2048);
        sprintf(json,
                "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
                "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":256,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
                "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"SCALAR\"}],"
                "\"bufferViews\":[{\"buffer\":0,\"byteLength\":3072},{\"buffer\":0,\"byteOffset\":3072,\"byteLength\":3}],"
                "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s\"}]}",
                b.n, uri);
        orr_assets_destroy(a);
        memset(&log, 0, sizeof log);
        a = new_assets(&log);
        assert_int_equal(load(a, json, &p, &err), ORR_OK);
        if (!strstr(log.all, "meshes[0].primitives[0].indices: index 2 is 255, the primitive restart value of UNSIGNED_BYTE"))
            fail_msg("no primitive restart warning; the log:\n%s", log.all);
        free(uri), free(json);
    }
    orr_assets_destroy(a);
    free(base);
}

/* ---- refusals: one message naming the JSON path ------------------------------------------------- */

static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    assert_non_null(at);
    char *out = malloc(strlen(s) + strlen(to) + 1);
    sprintf(out, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
    return out;
}

static void test_refusals_name_the_path(void **state)
{
    (void)state;
    char *base = triangle_json("", "", "");
    struct {
        const char *from, *to;
        orr_result code;
        const char *prefix;
    } cases[] = {
        {"{\"bufferView\":1,", "{\"bufferView\":9,", ORR_ERROR_PARSE, "accessors[1].bufferView: 9 is out of range, 2 bufferViews"},
        {"\"version\":\"2.0\"", "\"version\":\"3.0\"", ORR_ERROR_UNSUPPORTED, "asset.version"},
        {"\"version\":\"2.0\"}", "\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_texture_basisu\"]",
         ORR_ERROR_UNSUPPORTED, "extensionsRequired[0]: required extension KHR_texture_basisu"},
        {"\"byteOffset\":36,\"byteLength\":6", "\"byteOffset\":40,\"byteLength\":6", ORR_ERROR_PARSE, "bufferViews[1].byteLength"},
        {"\"count\":3,\"type\":\"SCALAR\"", "\"count\":4,\"type\":\"SCALAR\"", ORR_ERROR_PARSE, "accessors[1]: 4 elements"},
        {"\"componentType\":5123", "\"componentType\":5122", ORR_ERROR_PARSE, "meshes[0].primitives[0].indices: accessor 1 has format {SCALAR, SHORT}"},
        {"\"indices\":1", "\"indices\":1,\"material\":0", ORR_ERROR_PARSE, "meshes[0].primitives[0].material: 0 is out of range, 0 materials"},
        {"base64,", "base64,@", ORR_ERROR_PARSE, "buffers[0].uri: bad base64"},
        {"\"byteLength\":42", "\"byteLength\":48", ORR_ERROR_PARSE, "buffers[0].byteLength: 48 but the data has 42 bytes"},
        {"\"name\":\"tri\"", "\"name\":\"tri\",\"children\":[0]", ORR_ERROR_CYCLE, "nodes[0].children[0]"},
        {"\"scene\":0", "\"scene\":1", ORR_ERROR_PARSE, "scene: 1 is out of range, 1 scenes"},
        {"{\"mesh\":0,", "{\"mesh\":0,\"skin\":0,", ORR_ERROR_PARSE, "nodes[0].skin: 0 is out of range, 0 skins"},
        {"\"type\":\"VEC3\"", "\"type\":\"VEC4\"", ORR_ERROR_PARSE, "accessors[0]: 3 elements"},
        {"\"uri\":\"data:", "\"uri\":\"http://example.com/x.bin\",\"x\":\"", ORR_ERROR_PARSE, "buffers[0].uri: 'http"},
        {"{\"asset\"", "[{\"asset\"", ORR_ERROR_PARSE, "JSON"},
        {"\"byteLength\":36}", "\"byteLength\":36,\"byteStride\":6}", ORR_ERROR_PARSE, "bufferViews[0].byteStride: 6 is not a multiple of 4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = replace(base, cases[i].from, cases[i].to);
        expect_refusal(json, cases[i].code, cases[i].prefix);
        free(json);
    }
    /* NaN in the data, which JSON cannot spell: poke it into the buffer */
    bin b = {0};
    float bad[9] = {0, 0, 0, 1, 0, 0, 0, NAN, 0};
    bin_put(&b, bad, sizeof bad);
    bin_put(&b, tri_idx, 6);
    char *uri = b64(b.data, 42);
    const char *s = strstr(base, "data:");
    char json[8192];
    snprintf(json, sizeof json, "%.*s%s%s", (int)(s - base), base, uri, strchr(s, '"'));
    expect_refusal(json, ORR_ERROR_PARSE, "accessors[0]: element 2 component 1 is NaN");
    free(uri);
    /* double parents */
    char *two = replace(base, "\"nodes\":[{\"mesh\":0,\"name\":\"tri\"}]",
                        "\"nodes\":[{\"mesh\":0,\"name\":\"tri\",\"children\":[2]},{\"children\":[2]},{}]");
    expect_refusal(two, ORR_ERROR_PARSE, "nodes[1].children[0]: node 2 already has parent 0");
    free(two);
    /* empty input */
    expect_refusal("", ORR_ERROR_PARSE, "file is empty");
    free(base);
}

int orrt_scene_fixtures(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triangle_defaults),
        cmocka_unit_test(test_large_rig),
        cmocka_unit_test(test_external_buffer_and_missing_file),
        cmocka_unit_test(test_glb_and_truncations),
        cmocka_unit_test(test_sparse_normalized_stride),
        cmocka_unit_test(test_nodes_matrix_and_two_scenes),
        cmocka_unit_test(test_components_camera_light_instancing),
        cmocka_unit_test(test_animation_clip),
        cmocka_unit_test(test_skin_texture_morph_cubic),
        cmocka_unit_test(test_undecodable_image_falls_back),
        cmocka_unit_test(test_untidy_loads_with_warnings), cmocka_unit_test(test_padded_vectors_scanned), cmocka_unit_test(test_small_load_starts_no_threads),
        cmocka_unit_test(test_validator_errors_warn),
        cmocka_unit_test(test_allocations_through_the_hooks),
        cmocka_unit_test(test_meshlets_option),
        cmocka_unit_test(test_entity_limit),
        cmocka_unit_test(test_implicit_scene),
        cmocka_unit_test(test_tool_info_and_validate),
        cmocka_unit_test(test_refusals_name_the_path),
        cmocka_unit_test(test_skin_weights_normalised),
    };
    return cmocka_run_group_tests_name("scene: own fixtures", tests, NULL, NULL);
}
