/* Compressed geometry and textures, and parallel decoding: the real files of the sample corpus's
 * gltf-ext/ (Draco, WebP, a KTX2 file that is refused by name), gltfpack outputs of the samples made at
 * test time (EXT_meshopt_compression, lossless and quantized), the meshopt fallback-buffer rule, decoding
 * on any number of threads giving the same library bytes, and the checks made on a model's header
 * before the rest of it is read. */
#include "scene_tests.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <meshoptimizer.h>
#include <orrery/world.h>
#include <stb/stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* A loaded primitive's positions or normals as floats, however the library keeps them (packed where the
 * file quantized them: orr_primitive_read_positions, _normals): one of eight buffers used in turn, so
 * that a few can be held at once. */
static const float *floats_of(const orr_primitive *p, bool normals)
{
    static float *ring[8];
    static size_t cap[8];
    static unsigned next;
    unsigned i = next++ % 8;
    size_t n = (size_t)p->vertex_count * 3;
    if (cap[i] < n) {
        free(ring[i]);
        ring[i] = malloc(n * sizeof(float));
        assert_non_null(ring[i]);
        cap[i] = n;
    }
    if (normals) orr_primitive_read_normals(p, 0, p->vertex_count, ring[i]);
    else orr_primitive_read_positions(p, 0, p->vertex_count, ring[i]);
    return ring[i];
}

static void count_warning(void *user, orr_log_level level, const char *msg)
{
    (void)level, (void)msg;
    (*(int *)user)++;
}

/* Every message, one per line, cut at the end. */
typedef struct logbook {
    char all[4096];
} logbook;

static void log_all(void *user, orr_log_level level, const char *msg)
{
    (void)level;
    logbook *l = user;
    size_t n = strlen(l->all);
    snprintf(l->all + n, sizeof l->all - n, "%s\n", msg);
}

static orr_assets *new_assets(int *warnings)
{
    orr_assets *a;
    orr_assets_desc ad = {.logger = {warnings ? count_warning : NULL, warnings}};
    assert_int_equal(orr_assets_create(&ad, &a, NULL), ORR_OK);
    return a;
}

/* An asset library whose messages go into the logbook. */
static orr_assets *logged_assets(logbook *log)
{
    orr_assets *a;
    orr_assets_desc ad = {.logger = {log_all, log}};
    assert_int_equal(orr_assets_create(&ad, &a, NULL), ORR_OK);
    return a;
}

static const char *scratch(void)
{
    const char *dir = orrt_scratch("compressed");
    assert_non_null(dir);
    return dir;
}

static const char *scratch_path(const char *name)
{
    static char paths[4][512];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, 512, "%s/%s", scratch(), name);
    return p;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static bool have_gltfpack(void)
{
    return system("gltfpack -v >/dev/null 2>&1") == 0 || system("command -v gltfpack >/dev/null 2>&1") == 0;
}

/* The JSON of a .gltf or .glb, parsed independently of the loader. */
static cJSON *file_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    cJSON *j;
    if (n >= 20 && memcmp(buf, "glTF", 4) == 0) {
        uint32_t len;
        memcpy(&len, buf + 12, 4);
        j = cJSON_ParseWithLength(buf + 20, len);
    } else {
        j = cJSON_ParseWithLength(buf, (size_t)n);
    }
    free(buf);
    return j;
}

/* The meshes of a loaded prefab in node order (each once), for comparing geometry. */
typedef struct mesh_list {
    const orr_mesh *m[64];
    uint32_t n;
} mesh_list;

static mesh_list prefab_meshes(const orr_assets *a, orr_prefab_id p)
{
    mesh_list out = {0};
    const orr_world *w = orr_prefab_world(a, p);
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        const orr_mesh_renderer *mr = orr_component_try_get(w, e, ORR_COMPONENT_MESH_RENDERER);
        if (!mr) continue;
        const orr_mesh *m = orr_assets_try_get_mesh(a, mr->mesh);
        bool seen = false;
        for (uint32_t k = 0; k < out.n; k++) seen = seen || out.m[k] == m;
        if (m && !seen && out.n < 64) out.m[out.n++] = m;
    }
    orr_subtree_end(&it);
    return out;
}

/* A digest of every texture the prefab's materials name, in order: what the library holds. */
static uint64_t texture_digest(const orr_assets *a, orr_prefab_id p, uint32_t *textures)
{
    uint64_t h = 1469598103934665603u;
    *textures = 0;
    mesh_list ml = prefab_meshes(a, p);
    for (uint32_t i = 0; i < ml.n; i++) {
        for (uint32_t k = 0; k < ml.m[i]->primitive_count; k++) {
            const orr_material *mat = orr_assets_try_get_material(a, ml.m[i]->primitives[k].material);
            if (!mat) continue;
            const orr_texture_ref *refs[5] = {&mat->base_color_texture, &mat->metallic_roughness_texture, &mat->normal_texture,
                                              &mat->occlusion_texture, &mat->emissive_texture};
            for (int r = 0; r < 5; r++) {
                const orr_texture *t = orr_assets_try_get_texture(a, refs[r]->texture);
                if (!t) continue;
                (*textures)++;
                size_t n = (size_t)t->width * t->height * 4;
                h = (h ^ t->width) * 1099511628211u;
                h = (h ^ t->height) * 1099511628211u;
                for (size_t b = 0; b < n; b++) h = (h ^ t->rgba8[b]) * 1099511628211u;
            }
        }
    }
    return h;
}

static const orr_texture *first_base_color(const orr_assets *a, orr_prefab_id p)
{
    mesh_list ml = prefab_meshes(a, p);
    if (!ml.n) return NULL;
    const orr_material *mat = orr_assets_try_get_material(a, ml.m[0]->primitives[0].material);
    return mat ? orr_assets_try_get_texture(a, mat->base_color_texture.texture) : NULL;
}

/* ---- gltf-ext: every real file loads (the KTX2 one is refused by name) ---------------------------- */

static void test_ext_models_load(void **state)
{
    (void)state;
    char root[4096];
    snprintf(root, sizeof root, "%s", orrt_asset("gltf-ext"));
    DIR *d = opendir(root);
    assert_non_null(d);
    int files = 0, loaded = 0, refused = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char dir[4096 + 256];
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        DIR *md = opendir(dir);
        if (!md) continue;
        for (struct dirent *f; (f = readdir(md));) {
            size_t l = strlen(f->d_name);
            if (!((l > 5 && !strcmp(f->d_name + l - 5, ".gltf")) || (l > 4 && !strcmp(f->d_name + l - 4, ".glb")))) continue;
            char file[8192];
            snprintf(file, sizeof file, "%s/%s", dir, f->d_name);
            files++;
            cJSON *j = file_json(file);
            assert_non_null(j);
            const char *refuse = NULL; /* a required extension this build cannot read: refused by name */
            const cJSON *req = cJSON_GetObjectItemCaseSensitive(j, "extensionsRequired");
            for (const cJSON *r = req ? req->child : NULL; r; r = r->next)
                if (!strcmp(r->valuestring, "KHR_texture_basisu") ||
                    (!strcmp(r->valuestring, "KHR_draco_mesh_compression") && !orr_gltf_extension_supported(r->valuestring)))
                    refuse = r->valuestring;
            int warnings = 0;
            orr_assets *a = new_assets(&warnings);
            orr_prefab_id p;
            orr_error err;
            orr_result r = orr_gltf_load(a, file, NULL, &p, &err);
            if (refuse) {
                if (r != ORR_ERROR_UNSUPPORTED || !strstr(err.message, refuse))
                    fail_msg("%s: expected a refusal naming %s, got %d '%s'", file, refuse, r, err.message);
                refused++;
            } else {
                if (r != ORR_OK) fail_msg("%s: %s", file, err.message);
                loaded++;
                /* the counts the file declares, the geometry decoded */
                orr_gltf_info info;
                assert_int_equal(orr_gltf_info_file(file, NULL, NULL, &info, &err), ORR_OK);
                const cJSON *acc = cJSON_GetObjectItemCaseSensitive(j, "accessors");
                uint64_t verts = 0, idx = 0;
                uint32_t prims = 0;
                const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(j, "meshes");
                for (const cJSON *m = meshes ? meshes->child : NULL; m; m = m->next)
                    for (const cJSON *pr = cJSON_GetObjectItemCaseSensitive(m, "primitives")->child; pr; pr = pr->next) {
                        prims++;
                        const cJSON *pos = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pr, "attributes"), "POSITION");
                        verts += (uint64_t)cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(acc, pos->valueint), "count")->valuedouble;
                        const cJSON *ind = cJSON_GetObjectItemCaseSensitive(pr, "indices");
                        if (ind) idx += (uint64_t)cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(acc, ind->valueint), "count")->valuedouble;
                    }
                assert_int_equal(info.primitives, prims);
                assert_int_equal(info.vertices, verts);
                assert_int_equal(info.indices, idx);
                assert_false(orr_aabbd_is_empty(info.bounds));
                mesh_list ml = prefab_meshes(a, p);
                assert_int_equal(ml.n, cJSON_GetArraySize(meshes));
                for (uint32_t k = 0; k < ml.n; k++)
                    for (uint32_t q = 0; q < ml.m[k]->primitive_count; q++) {
                        const orr_primitive *pr = &ml.m[k]->primitives[q];
                        assert_true(pr->vertex_count > 0);
                        assert_true(pr->bounds.max.x > pr->bounds.min.x); /* real positions, not zeros */
                    }
                /* a WebP or Draco file's texture is its image, not the white fallback */
                const orr_texture *t = first_base_color(a, p);
                if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "textures"))) {
                    assert_non_null(t);
                    if (t->width <= 1) fail_msg("%s: the texture fell back to white", file);
                }
                if (strstr(file, "WebP")) {
                    assert_int_equal(t->width, 128);
                    assert_int_equal(t->height, 128);
                }
            }
            cJSON_Delete(j);
            orr_assets_destroy(a);
        }
        closedir(md);
    }
    closedir(d);
    print_message("gltf-ext: %d files, %d loaded, %d refused by name\n", files, loaded, refused);
    assert_true(files >= 6);
    assert_int_equal(refused, orr_gltf_extension_supported("KHR_draco_mesh_compression") ? 1 : 3); /* KTX2 (+ the Draco two) */
}

/* The three WebP variants show one picture: the WebP (required, or with a PNG fallback the loader does
 * not need), and the embedded copy decodes to exactly the same pixels as the external one. */
static void test_webp_variants_agree(void **state)
{
    (void)state;
    const char *names[3] = {"box-textured-separate.gltf", "box-textured-with-fallback.gltf", "box-textured-embedded.gltf"};
    uint64_t digest[3];
    for (int i = 0; i < 3; i++) {
        char rel[256], file[4096];
        snprintf(rel, sizeof rel, "gltf-ext/GltfPipeline_BoxTexturedWebP/%s", names[i]);
        snprintf(file, sizeof file, "%s", orrt_asset(rel)); /* skips without the samples, before allocating */
        orr_assets *a = new_assets(NULL);
        orr_prefab_id p;
        orr_error err;
        if (orr_gltf_load(a, file, NULL, &p, &err) != ORR_OK) fail_msg("%s: %s", rel, err.message);
        uint32_t n;
        digest[i] = texture_digest(a, p, &n);
        assert_true(n >= 1);
        orr_assets_destroy(a);
    }
    assert_true(digest[0] == digest[1]);
    assert_true(digest[0] == digest[2]);
}

/* A Draco primitive decodes to the attributes of the uncompressed model: MorphPrimitivesTest keeps the
 * vertex order (sequential encoding), so positions agree index by index; the Draco Box (edgebreaker)
 * reorders them, so they agree as a set. */
static void test_draco_matches_uncompressed(void **state)
{
    (void)state;
    if (!orr_gltf_extension_supported("KHR_draco_mesh_compression"))
        orrt_skip("this build has no Draco decoder (libdraco-dev at configure time)");
    struct {
        const char *draco, *plain;
        bool same_order;
        float tol;
    } pairs[2] = {
        {"gltf-ext/MorphPrimitivesTestDraco/MorphPrimitivesTest.glb", "gltf/MorphPrimitivesTest/MorphPrimitivesTest.gltf", true, 4e-5f},
        {"gltf-ext/BoxDraco/Box.gltf", "gltf/Box/Box.gltf", false, 1e-6f},
    };
    for (int k = 0; k < 2; k++) {
        char da[4096], pl[4096]; /* before anything is allocated: without the samples the test skips here */
        snprintf(da, sizeof da, "%s", orrt_asset(pairs[k].draco));
        snprintf(pl, sizeof pl, "%s", orrt_asset(pairs[k].plain));
        orr_assets *a = new_assets(NULL), *b = new_assets(NULL);
        orr_prefab_id pa, pb;
        orr_error err;
        if (orr_gltf_load(a, da, NULL, &pa, &err) != ORR_OK) fail_msg("%s: %s", da, err.message);
        if (orr_gltf_load(b, pl, NULL, &pb, &err) != ORR_OK) fail_msg("%s: %s", pl, err.message);
        mesh_list ma = prefab_meshes(a, pa), mb = prefab_meshes(b, pb);
        assert_int_equal(ma.n, mb.n);
        for (uint32_t m = 0; m < ma.n; m++) {
            assert_int_equal(ma.m[m]->primitive_count, mb.m[m]->primitive_count);
            for (uint32_t q = 0; q < ma.m[m]->primitive_count; q++) {
                const orr_primitive *x = &ma.m[m]->primitives[q], *y = &mb.m[m]->primitives[q];
                const float *xpos = floats_of(x, false), *ypos = floats_of(y, false), *xnrm = floats_of(x, true),
                            *ynrm = floats_of(y, true);
                assert_int_equal(x->vertex_count, y->vertex_count);
                assert_int_equal(x->index_count, y->index_count);
                for (uint32_t v = 0; v < x->vertex_count; v++) {
                    const float *px = xpos + (size_t)v * 3;
                    bool found = false;
                    for (uint32_t w = pairs[k].same_order ? v : 0; w < (pairs[k].same_order ? v + 1 : y->vertex_count) && !found; w++) {
                        const float *py = ypos + (size_t)w * 3;
                        bool pos = fabsf(px[0] - py[0]) <= pairs[k].tol && fabsf(px[1] - py[1]) <= pairs[k].tol &&
                                   fabsf(px[2] - py[2]) <= pairs[k].tol;
                        const float *nx = xnrm + (size_t)v * 3, *ny = ynrm + (size_t)w * 3;
                        bool nrm = fabsf(nx[0] - ny[0]) <= 1e-2f && fabsf(nx[1] - ny[1]) <= 1e-2f && fabsf(nx[2] - ny[2]) <= 1e-2f;
                        found = pos && nrm;
                    }
                    if (!found)
                        fail_msg("%s: mesh %u primitive %u vertex %u (%g %g %g) has no match in %s", da, m, q, v, px[0], px[1],
                                 px[2], pl);
                }
                if (pairs[k].same_order) /* the same triangles, index for index */
                    assert_memory_equal(x->indices, y->indices, (size_t)x->index_count * 4);
            }
        }
        orr_assets_destroy(a), orr_assets_destroy(b);
    }
}

/* ---- EXT_meshopt_compression: gltfpack outputs of the samples --------------------------------------- */

static bool pack(const char *in, const char *out, const char *flags)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "gltfpack -i '%s' -o '%s' %s >/dev/null 2>&1", in, out, flags);
    return system(cmd) == 0;
}

static bool requires_meshopt(const char *file)
{
    cJSON *j = file_json(file);
    bool found = false;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(j, "extensionsRequired");
    for (const cJSON *r = req ? req->child : NULL; r; r = r->next) found = found || !strcmp(r->valuestring, "EXT_meshopt_compression");
    cJSON_Delete(j);
    return found;
}

static int tri_cmp(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Triangle lists with the same triangles (each rotated to start at its smallest index), in any order. */
static bool same_triangles(const orr_primitive *x, const orr_primitive *y)
{
    if (x->index_count != y->index_count) return false;
    size_t n = x->index_count / 3;
    uint32_t *t[2] = {malloc(n * 12 + 1), malloc(n * 12 + 1)};
    const uint32_t *src[2] = {x->indices, y->indices};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t *v = src[s] + i * 3;
            int r = v[0] <= v[1] && v[0] <= v[2] ? 0 : v[1] <= v[2] ? 1 : 2;
            for (int k = 0; k < 3; k++) t[s][i * 3 + k] = v[(r + k) % 3];
        }
        qsort(t[s], n, 12, tri_cmp);
    }
    bool same = memcmp(t[0], t[1], n * 12) == 0;
    free(t[0]), free(t[1]);
    return same;
}

/* -noq keeps full precision: `-c -noq` (meshopt-compressed) must load to exactly the geometry of the
 * same pipeline's uncompressed output, and both within float rounding of the original's bounds. -cc
 * (quantized, filtered: octahedral normals, quaternions) loads with bounds within quantization error. */
static void test_gltfpack_outputs(void **state)
{
    (void)state;
    if (!have_gltfpack()) {
        const char *req = getenv("ORRERY_REQUIRE_ASSETS");
        if (req && *req) fail_msg("gltfpack is not installed (scripts/setup.sh installs it)");
        orrt_skip("gltfpack is not installed (scripts/setup.sh installs it)");
    }
    const char *models[] = {"CesiumMilkTruck/CesiumMilkTruck.gltf", "CesiumMan/CesiumMan.gltf", "BoxTextured/BoxTextured.gltf",
                            "Blender_03_skinned_cylinder/03_skinned_cylinder.gltf", "InterpolationTest/InterpolationTest.gltf",
                            "VertexColorTest/VertexColorTest.gltf"};
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        char rel[256], orig[4096];
        snprintf(rel, sizeof rel, "gltf/%s", models[k]);
        snprintf(orig, sizeof orig, "%s", orrt_asset(rel));
        char plain[512], lossless[512], quant[512];
        snprintf(plain, sizeof plain, "%s", scratch_path("plain.glb"));
        snprintf(lossless, sizeof lossless, "%s", scratch_path("lossless.glb"));
        snprintf(quant, sizeof quant, "%s", scratch_path("quant.glb"));
        assert_true(pack(orig, plain, "-noq"));
        assert_true(pack(orig, lossless, "-c -noq"));
        assert_true(pack(orig, quant, "-cc"));
        assert_true(requires_meshopt(lossless));
        assert_true(requires_meshopt(quant));
        orr_gltf_info io, ip, il, iq;
        orr_error err;
        assert_int_equal(orr_gltf_info_file(orig, NULL, NULL, &io, &err), ORR_OK);
        assert_int_equal(orr_gltf_info_file(plain, NULL, NULL, &ip, &err), ORR_OK);
        if (orr_gltf_info_file(lossless, NULL, NULL, &il, &err) != ORR_OK) fail_msg("%s (-c -noq): %s", models[k], err.message);
        if (orr_gltf_info_file(quant, NULL, NULL, &iq, &err) != ORR_OK) fail_msg("%s (-cc): %s", models[k], err.message);
        assert_int_equal(il.vertices, ip.vertices);
        assert_int_equal(il.indices, ip.indices);
        double ext = fmax(io.bounds.max.x - io.bounds.min.x, fmax(io.bounds.max.y - io.bounds.min.y, io.bounds.max.z - io.bounds.min.z));
        const double *o = &io.bounds.min.x, *l = &il.bounds.min.x, *q = &iq.bounds.min.x;
        for (int c = 0; c < 6; c++) {
            const double *oc = c < 3 ? o + c : &io.bounds.max.x + (c - 3);
            const double *lc = c < 3 ? l + c : &il.bounds.max.x + (c - 3);
            const double *qc = c < 3 ? q + c : &iq.bounds.max.x + (c - 3);
            if (fabs(*oc - *lc) > 1e-5 * ext) fail_msg("%s -c -noq: bound %d is %.9g, the original's %.9g", models[k], c, *lc, *oc);
            /* 14-bit positions by default: half a step of the extent, and some slack for the node transforms */
            if (fabs(*oc - *qc) > 2e-3 * ext) fail_msg("%s -cc: bound %d is %.9g, the original's %.9g", models[k], c, *qc, *oc);
        }
        /* the compressed file's geometry is the uncompressed one's, exactly */
        int quant_warnings = 0;
        orr_assets *a = new_assets(NULL), *b = new_assets(NULL), *c = new_assets(&quant_warnings);
        orr_prefab_id pa, pb, pc;
        if (orr_gltf_load(a, plain, NULL, &pa, &err) != ORR_OK) fail_msg("%s: %s", plain, err.message);
        if (orr_gltf_load(b, lossless, NULL, &pb, &err) != ORR_OK) fail_msg("%s: %s", lossless, err.message);
        if (orr_gltf_load(c, quant, NULL, &pc, &err) != ORR_OK) fail_msg("%s: %s", quant, err.message);
        /* a sound model quantized loads without a warning: its 8-bit normals are as near unit length as
         * 8 bits allow, which is no fault of the file */
        if (quant_warnings) fail_msg("%s -cc: %d warnings", models[k], quant_warnings);
        mesh_list ma = prefab_meshes(a, pa), mb = prefab_meshes(b, pb);
        assert_int_equal(ma.n, mb.n);
        for (uint32_t m = 0; m < ma.n; m++) {
            assert_int_equal(ma.m[m]->primitive_count, mb.m[m]->primitive_count);
            for (uint32_t p = 0; p < ma.m[m]->primitive_count; p++) {
                const orr_primitive *x = &ma.m[m]->primitives[p], *y = &mb.m[m]->primitives[p];
                assert_int_equal(x->vertex_count, y->vertex_count);
                assert_int_equal(x->index_count, y->index_count);
                assert_memory_equal(floats_of(x, false), floats_of(y, false), (size_t)x->vertex_count * 12);
                assert_memory_equal(floats_of(x, true), floats_of(y, true), (size_t)x->vertex_count * 12);
                if (x->texcoords0) assert_memory_equal(x->texcoords0, y->texcoords0, (size_t)x->vertex_count * 8);
                if (x->joints) assert_memory_equal(x->joints, y->joints, (size_t)x->vertex_count * 8);
                /* the same triangles with their winding; gltfpack orders and rotates them for the codec */
                if (x->topology == ORR_TOPOLOGY_TRIANGLES) assert_true(same_triangles(x, y));
                else assert_memory_equal(x->indices, y->indices, (size_t)x->index_count * 4);
            }
        }
        /* the quantized file's positions and normals stay packed as gltfpack wrote them (16-bit positions,
         * 8-bit normals), but where morph targets move them */
        mesh_list mc = prefab_meshes(c, pc);
        for (uint32_t m = 0; m < mc.n; m++)
            for (uint32_t p = 0; p < mc.m[m]->primitive_count; p++) {
                const orr_primitive *pq = &mc.m[m]->primitives[p];
                if (pq->target_count) assert_true(pq->positions && pq->normals);
                else if (!pq->packed_positions.data || !pq->packed_normals.data)
                    fail_msg("%s -cc: mesh %u primitive %u: positions %s, normals %s", models[k], m, p,
                             pq->packed_positions.data ? "packed" : "floats", pq->packed_normals.data ? "packed" : "floats");
            }
        assert_int_equal(orr_assets_clip_count(b), orr_assets_clip_count(a));
        assert_int_equal(orr_assets_skin_count(c), orr_assets_skin_count(a));
        orr_assets_destroy(a), orr_assets_destroy(b), orr_assets_destroy(c);
    }
}

/* ---- the fallback-buffer rule and malformed streams -------------------------------------------------- */

static char *b64(const uint8_t *p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(n / 3 * 4 + 8), *w = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *w++ = t[v >> 18 & 63], *w++ = t[v >> 12 & 63];
        *w++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *w++ = i + 2 < n ? t[v & 63] : '=';
    }
    *w = 0;
    return o;
}

/* A triangle whose positions (3 x float3, 36 bytes) and indices (3 x u16) are meshopt-compressed into
 * buffer 0 (a data URI); buffer 1 is the fallback placeholder. `view_ext`/`fallback` change the parts
 * a test breaks. */
static char *meshopt_triangle(const char *ext_name, bool fallback_flag, const char *tweak_from, const char *tweak_to,
                              bool corrupt)
{
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint16_t idx[3] = {0, 1, 2};
    uint8_t enc[1024];
    size_t vn = meshopt_encodeVertexBuffer(enc, sizeof enc, pos, 3, 12);
    size_t vpad = (vn + 3) & ~(size_t)3;
    size_t in = meshopt_encodeIndexBuffer(enc + vpad, sizeof enc - vpad, (const unsigned int[]){0, 1, 2}, 3);
    (void)idx;
    if (corrupt) enc[1] ^= 0xff, enc[2] ^= 0x55;
    char *data = b64(enc, vpad + in);
    char *json = malloc(8192);
    snprintf(json, 8192,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"%s\"],\"extensionsRequired\":[\"%s\"],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"},"
             "{\"byteLength\":44%s}],"
             "\"bufferViews\":[{\"buffer\":1,\"byteLength\":36,\"byteStride\":12,\"extensions\":{\"%s\":{\"buffer\":0,"
             "\"byteLength\":%zu,\"byteStride\":12,\"count\":3,\"mode\":\"ATTRIBUTES\"}}},"
             "{\"buffer\":1,\"byteOffset\":36,\"byteLength\":6,\"extensions\":{\"%s\":{\"buffer\":0,\"byteOffset\":%zu,"
             "\"byteLength\":%zu,\"byteStride\":2,\"count\":3,\"mode\":\"TRIANGLES\"}}}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
             ext_name, ext_name, vpad + in, data,
             fallback_flag ? (strcmp(ext_name, "KHR_meshopt_compression") ? ",\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}"
                                                                          : ",\"extensions\":{\"KHR_meshopt_compression\":{\"fallback\":true}}")
                           : "",
             ext_name, vn, ext_name, vpad, in);
    free(data);
    if (tweak_from) {
        char *at = strstr(json, tweak_from);
        assert_non_null(at);
        size_t fl = strlen(tweak_from), tl = strlen(tweak_to);
        memmove(at + tl, at + fl, strlen(at + fl) + 1);
        memcpy(at, tweak_to, tl);
    }
    return json;
}

static orr_result load_text(const char *json, orr_error *err, orr_assets **keep)
{
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_result r = orrt_load_text(a, json, NULL, &p, err);
    if (keep) *keep = a;
    else orr_assets_destroy(a);
    return r;
}

static void expect(const char *json, orr_result code, const char *needle)
{
    orr_error err;
    orr_result r = load_text(json, &err, NULL);
    if (r != code || (needle && !strstr(err.message, needle)))
        fail_msg("expected %d with '%s', got %d '%s'", code, needle ? needle : "", r, err.message);
}

static void test_meshopt_rules(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const char *ext = k ? "KHR_meshopt_compression" : "EXT_meshopt_compression";
        /* a compressed triangle decodes to its positions and indices */
        char *json = meshopt_triangle(ext, true, NULL, NULL, false);
        orr_assets *a;
        orr_error err;
        orr_result r = load_text(json, &err, &a);
        if (r != ORR_OK) fail_msg("%s: %s", ext, err.message);
        assert_int_equal(orr_assets_mesh_count(a), 1);
        orr_assets_destroy(a);
        free(json);
        /* a plain view may not use a fallback buffer */
        json = meshopt_triangle(ext, true, "{\"buffer\":1,\"byteOffset\":36,\"byteLength\":6,\"extensions\"",
                                "{\"buffer\":1,\"byteOffset\":36,\"byteLength\":6,\"x_extensions\"", false);
        expect(json, ORR_ERROR_PARSE, "bufferViews[1].buffer: buffer 1 is a meshopt fallback buffer");
        free(json);
        /* nor may compressed data come from one */
        json = meshopt_triangle(ext, true, "{\"buffer\":0,\"byteLength\"", "{\"buffer\":1,\"byteLength\"", false);
        expect(json, ORR_ERROR_PARSE, "bufferViews[0].extensions.");
        free(json);
        /* count x byteStride must be the view's byteLength */
        json = meshopt_triangle(ext, true, "\"byteStride\":12,\"count\":3", "\"byteStride\":12,\"count\":4", false);
        expect(json, ORR_ERROR_PARSE, "is not the bufferView's byteLength 36");
        free(json);
        /* a filter on indices */
        json = meshopt_triangle(ext, true, "\"mode\":\"TRIANGLES\"", "\"mode\":\"TRIANGLES\",\"filter\":\"OCTAHEDRAL\"", false);
        expect(json, ORR_ERROR_PARSE, "index modes take no filter");
        free(json);
        /* a corrupt stream is refused, naming the view */
        json = meshopt_triangle(ext, true, NULL, NULL, true);
        expect(json, ORR_ERROR_PARSE, "bufferViews[0].extensions.");
        free(json);
        /* a placeholder buffer without the fallback flag still works (no uri: nothing to read) */
        json = meshopt_triangle(ext, false, NULL, NULL, false);
        expect(json, ORR_OK, NULL);
        free(json);
    }
    /* KHR: the COLOR filter and version-1 attribute streams need a newer meshoptimizer: refused by name */
    char *json = meshopt_triangle("KHR_meshopt_compression", true, "\"mode\":\"ATTRIBUTES\"", "\"mode\":\"ATTRIBUTES\",\"filter\":\"COLOR\"", false);
    expect(json, ORR_ERROR_UNSUPPORTED, "COLOR is not supported");
    free(json);
}

/* Every normalized SHORT value as POSITION, every normalized BYTE and UNSIGNED_BYTE value as texture
 * coordinates (KHR_mesh_quantization) and every normalized UNSIGNED_SHORT value as colors: each the float
 * glTF's max(v / 32767, -1), max(v / 127, -1), v / 255 and v / 65535 give, exactly. */
static void test_normalized_integers_exact(void **state)
{
    (void)state;
    enum { N = 21846 }; /* 3 x N >= 65536 */
    size_t pos_bytes = (size_t)N * 8, uv_bytes = (size_t)N * 4, col_bytes = (size_t)N * 8;
    uint8_t *bin = calloc(1, pos_bytes + 2 * uv_bytes + col_bytes);
    for (uint32_t v = 0; v < N; v++) {
        for (uint32_t k = 0; k < 3; k++) {
            int16_t q = (int16_t)((v * 3 + k) % 65536 - 32768);
            memcpy(bin + (size_t)v * 8 + k * 2, &q, 2);
        }
        for (uint32_t k = 0; k < 2; k++) {
            bin[pos_bytes + (size_t)v * 4 + k] = (uint8_t)(v * 2 + k);
            bin[pos_bytes + uv_bytes + (size_t)v * 4 + k] = (uint8_t)(v * 2 + k); /* as int8: -128..127 */
        }
        for (uint32_t k = 0; k < 4; k++) {
            uint16_t c = (uint16_t)((v * 4 + k) % 65536);
            memcpy(bin + pos_bytes + 2 * uv_bytes + (size_t)v * 8 + k * 2, &c, 2);
        }
    }
    write_file(scratch_path("normalized.bin"), bin, pos_bytes + 2 * uv_bytes + col_bytes);
    free(bin);
    char json[2560];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
             "\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"normalized.bin\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":8},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":8}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"normalized\":true,\"count\":%d,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5121,\"normalized\":true,\"count\":%d,\"type\":\"VEC2\"},"
             "{\"bufferView\":2,\"componentType\":5120,\"normalized\":true,\"count\":%d,\"type\":\"VEC2\"},"
             "{\"bufferView\":3,\"componentType\":5123,\"normalized\":true,\"count\":%d,\"type\":\"VEC4\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1,\"TEXCOORD_1\":2,\"COLOR_0\":3},\"mode\":0}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
             pos_bytes + 2 * uv_bytes + col_bytes, pos_bytes, pos_bytes, uv_bytes, pos_bytes + uv_bytes, uv_bytes,
             pos_bytes + 2 * uv_bytes, col_bytes, N, N, N, N);
    const char *file = scratch_path("normalized.gltf");
    write_file(file, json, strlen(json));
    orr_assets *a = new_assets(NULL);
    orr_prefab_id p;
    orr_error err;
    if (orr_gltf_load(a, file, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    mesh_list ml = prefab_meshes(a, p);
    assert_int_equal(ml.n, 1);
    const orr_primitive *pr = &ml.m[0]->primitives[0];
    /* positions on a stride of four 16-bit components stay packed (a copy: the view is the file's, not
     * a decoded block of its own); the texture coordinates and colors are converted as before */
    assert_true(pr->packed_positions.data && pr->packed_positions.packing == ORR_PACKING_I16_NORM && !pr->positions);
    const float *ppos = floats_of(pr, false);
    assert_int_equal(pr->vertex_count, N);
    for (uint32_t v = 0; v < N; v++) {
        for (uint32_t k = 0; k < 3; k++) {
            int16_t q = (int16_t)((v * 3 + k) % 65536 - 32768);
            if (ppos[v * 3 + k] != (float)fmax(q / 32767.0, -1.0))
                fail_msg("SHORT %d became %.9g", q, ppos[v * 3 + k]);
        }
        for (uint32_t k = 0; k < 2; k++) {
            uint8_t u = (uint8_t)(v * 2 + k);
            int8_t i = (int8_t)u;
            if (pr->texcoords0[v * 2 + k] != (float)(u / 255.0)) fail_msg("UNSIGNED_BYTE %u became %.9g", u, pr->texcoords0[v * 2 + k]);
            if (pr->texcoords1[v * 2 + k] != (float)fmax(i / 127.0, -1.0)) fail_msg("BYTE %d became %.9g", i, pr->texcoords1[v * 2 + k]);
        }
        for (uint32_t k = 0; k < 4; k++) {
            uint16_t c = (uint16_t)((v * 4 + k) % 65536);
            if (pr->colors[v * 4 + k] != (float)(c / 65535.0)) fail_msg("UNSIGNED_SHORT %u became %.9g", c, pr->colors[v * 4 + k]);
        }
    }
    /* the bounds come from the data scan's extremes, converted: those of the converted positions */
    orr_aabbf box = orr_aabbf_grow(orr_aabbf_empty(), ppos, N);
    assert_memory_equal(&pr->bounds, &box, sizeof box);
    assert_true(box.min.x == -1.0f && box.max.x == 1.0f);
    orr_assets_destroy(a);
}

/* ---- decoded 32-bit indices handed to the asset library ------------------------------------------- */

/* A side x side grid whose triangles are listed `copies` times in one meshopt-compressed 32-bit index
 * view (TRIANGLES, byteStride 4), its positions and normals plain; `meshes` meshes share the one index
 * accessor, with normals or not. `bad_at` >= 0 makes that index one past the vertices; `corrupt` breaks
 * the compressed stream's header. The positions and indices written are returned (malloc'd). */
typedef struct grid_file {
    uint32_t side, copies;
    int meshes;
    bool normals;
    int64_t bad_at;
    bool corrupt;
} grid_file;

/* The (side - 1)^2 x 6 indices of a side x side grid's triangles, counter-clockwise seen from +Z. */
static void grid_triangles(uint32_t side, uint32_t *out)
{
    for (uint32_t y = 0; y + 1 < side; y++)
        for (uint32_t x = 0; x + 1 < side; x++, out += 6) {
            uint32_t a = y * side + x, b = a + 1, c = a + side, d = c + 1;
            const uint32_t t[6] = {a, c, b, b, c, d};
            memcpy(out, t, sizeof t);
        }
}

static char *grid_json(const grid_file *g, float **positions, uint32_t **indices, uint32_t *count)
{
    uint32_t side = g->side, nv = side * side, per = (side - 1) * (side - 1) * 6, n = per * g->copies, k = 0;
    size_t sbytes = (size_t)nv * 12;
    float *pos = malloc(sbytes), *nrm = malloc(sbytes);
    uint32_t *idx = malloc((size_t)n * 4);
    for (uint32_t v = 0; v < nv; v++) {
        pos[v * 3] = (float)(v % side), pos[v * 3 + 1] = (float)(v / side), pos[v * 3 + 2] = (float)((v * 7) % 5);
        nrm[v * 3] = nrm[v * 3 + 1] = 0.0f, nrm[v * 3 + 2] = 1.0f;
    }
    for (uint32_t c = 0; c < g->copies; c++, k += per) grid_triangles(side, idx + k);
    if (g->bad_at >= 0) idx[g->bad_at] = nv;
    size_t cap = meshopt_encodeIndexBufferBound(n, nv + 1);
    uint8_t *bin = malloc(cap + sbytes * 2);
    size_t in = meshopt_encodeIndexBuffer(bin, cap, idx, n), ipad = (in + 3) & ~(size_t)3;
    if (g->corrupt) bin[0] ^= 0xff; /* the header: the decoder refuses it */
    memset(bin + in, 0, ipad - in);
    memcpy(bin + ipad, pos, sbytes);
    memcpy(bin + ipad + sbytes, nrm, sbytes);
    char *data = b64(bin, ipad + sbytes * 2);
    free(bin), free(nrm);
    char mesh_json[1024] = "", node_list[512] = "", roots[256] = "";
    for (int m = 0; m < g->meshes; m++) {
        size_t o = strlen(mesh_json);
        snprintf(mesh_json + o, sizeof mesh_json - o, "%s{\"primitives\":[{\"attributes\":{\"POSITION\":0%s},\"indices\":2}]}",
                 m ? "," : "", g->normals ? ",\"NORMAL\":1" : "");
        o = strlen(node_list);
        snprintf(node_list + o, sizeof node_list - o, "%s{\"mesh\":%d}", m ? "," : "", m);
        o = strlen(roots);
        snprintf(roots + o, sizeof roots - o, "%s%d", m ? "," : "", m);
    }
    size_t jn = strlen(data) + 4096;
    char *json = malloc(jn);
    snprintf(json, jn,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
             "\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"},"
             "{\"byteLength\":%u,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
             "{\"buffer\":1,\"byteLength\":%u,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,"
             "\"byteLength\":%zu,\"byteStride\":4,\"count\":%u,\"mode\":\"TRIANGLES\"}}}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\",\"min\":[0,0,0],"
             "\"max\":[%u,%u,4]},{\"bufferView\":1,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"}],"
             "\"meshes\":[%s],\"nodes\":[%s],\"scenes\":[{\"nodes\":[%s]}]}",
             ipad + sbytes * 2, data, n * 4, ipad, sbytes, ipad + sbytes, sbytes, n * 4, in, n, nv, side - 1, side - 1, nv, n,
             mesh_json, node_list, roots);
    free(data);
    if (positions) *positions = pos;
    else free(pos);
    *indices = idx, *count = n;
    return json;
}

/* At more than one thread a large index view that only primitives read decodes beside the rest of the
 * load: the same indices as at one thread, and the same refusal of a bad index or a corrupt stream, also
 * when the file has a second problem that validation (a node naming no mesh) or the build (the decoded
 * bytes budget) would find first, and whether or not the load waited. */
static void test_late_index_views_alike(void **state)
{
    (void)state;
    uint32_t counts[] = {1, 2, 4, 4}; /* the last on workers of the caller's */
    orr_workers *shared;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &shared, NULL), ORR_OK);
    for (int variant = 0; variant < 5; variant++) {
        uint32_t *idx, n;
        grid_file g = {.side = 32, .copies = 200, .meshes = 1, .normals = true,
                       .bad_at = variant == 2 ? -1 : variant ? 1000000 : -1, .corrupt = variant == 2};
        char *json = grid_json(&g, NULL, &idx, &n);
        assert_true((uint64_t)n * 4 >= (uint64_t)4 << 20);
        if (variant == 3) { /* and a node naming a mesh the file does not have */
            char *at = strstr(json, "\"nodes\":[{\"mesh\":0}]");
            assert_non_null(at);
            size_t jn = strlen(json);
            char *grown = malloc(jn + 32);
            snprintf(grown, jn + 32, "%.*s\"nodes\":[{\"mesh\":0},{\"mesh\":7}]%s", (int)(at - json), json,
                     at + strlen("\"nodes\":[{\"mesh\":0}]"));
            free(json);
            json = grown;
        }
        char first[sizeof ((orr_error *)0)->message] = "";
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
            orr_assets *a = new_assets(NULL);
            orr_gltf_stats st;
            orr_gltf_options opt = {.threads = counts[k], .stats = &st, .max_decoded_bytes = variant == 4 ? 4096 : 0,
                                    .workers = k == 3 ? shared : NULL};
            orr_prefab_id p;
            orr_error err = {0};
            orr_result r = orr_gltf_load_memory(a, json, strlen(json), "/tmp", NULL, &opt, &p, &err);
            if (variant == 0) {
                if (r != ORR_OK) fail_msg("%u threads: %s", counts[k], err.message);
                assert_int_equal(st.deferred_views, counts[k] > 1 ? 1 : 0); /* the path under test was taken */
                assert_int_equal(st.split_views, counts[k] > 1 ? 1 : 0);    /* and decoded in chunks */
                mesh_list ml = prefab_meshes(a, p);
                assert_int_equal(ml.n, 1);
                const orr_primitive *pr = &ml.m[0]->primitives[0];
                assert_int_equal(pr->index_count, n);
                orr_primitive src = {.index_count = n, .indices = idx};
                if (!same_triangles(pr, &src)) fail_msg("%u threads: not the file's triangles", counts[k]); /* rotated */
                if (k == 0) memcpy(idx, pr->indices, (size_t)n * 4); /* the others give these very bytes */
                else if (memcmp(pr->indices, idx, (size_t)n * 4)) fail_msg("%u threads: other indices than at 1", counts[k]);
            } else {
                assert_int_equal(r, ORR_ERROR_PARSE);
                const char *want = variant != 2 ? "has value 1024, the primitive has 1024 vertices" /* its triangle rotated */
                                                : "bufferViews[2].extensions.EXT_meshopt_compression";
                if (!strstr(err.message, want)) fail_msg("variant %d, %u threads: '%s'", variant, counts[k], err.message);
                if (k == 0) snprintf(first, sizeof first, "%s", err.message);
                else if (strcmp(first, err.message)) fail_msg("%u threads: '%s', 1 thread: '%s'", counts[k], err.message, first);
                assert_int_equal(orr_assets_mesh_count(a), 0);
            }
            orr_assets_destroy(a);
        }
        free(json), free(idx);
    }
    orr_workers_destroy(shared);
}

/* Indices decoded from a compressed view into a block of their own become the primitive's indices
 * without a copy (one block of their size is ever allocated) when that primitive alone reads them.
 * Shared by two meshes, each gets a copy of its own, and both keep the file's triangles also when their
 * meshlets reorder them; unwelded for flat normals, the primitive has new indices (0..n-1) beside the
 * decoded block. Every byte comes back at destroy. */
static void test_meshopt_indices_handed_over(void **state)
{
    (void)state;
    struct {
        int meshes;
        bool normals, meshlets;
        int blocks; /* of the indices' bytes: the decoded view, and each copy (-1: meshlets add their own) */
    } cases[] = {{1, true, false, 1}, {2, true, false, 3}, {1, false, false, 2}, {1, true, true, -1}, {2, true, true, -1}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        float *pos;
        uint32_t *idx, n;
        grid_file g = {.side = 40, .copies = 1, .meshes = cases[k].meshes, .normals = cases[k].normals, .bad_at = -1};
        char *json = grid_json(&g, &pos, &idx, &n);
        orrt_counter c = {.size = (size_t)n * 4};
        orr_assets_desc ad = {.allocator = {orrt_counting_realloc, &c}};
        orr_assets *a;
        assert_int_equal(orr_assets_create(&ad, &a, NULL), ORR_OK);
        orr_gltf_options opt = {.build_meshlets = cases[k].meshlets};
        orr_prefab_id p;
        orr_error err;
        if (orr_gltf_load_memory(a, json, strlen(json), "/tmp", NULL, &opt, &p, &err) != ORR_OK)
            fail_msg("case %zu: %s", k, err.message);
        free(json);
        if (cases[k].blocks >= 0 && c.of_size != cases[k].blocks)
            fail_msg("case %zu: %d blocks of the indices' size, expected %d", k, c.of_size, cases[k].blocks);
        mesh_list ml = prefab_meshes(a, p);
        assert_int_equal(ml.n, cases[k].meshes);
        orr_primitive src = {.index_count = n, .indices = idx};
        for (uint32_t m = 0; m < ml.n; m++) {
            const orr_primitive *pr = &ml.m[m]->primitives[0];
            const float *ppos = floats_of(pr, false);
            if (cases[k].normals) {
                assert_int_equal(pr->vertex_count, 40 * 40);
                if (!same_triangles(pr, &src)) fail_msg("case %zu mesh %u: not the file's triangles", k, m);
            } else { /* unwelded: corner i is the file's index i */
                assert_int_equal(pr->vertex_count, n);
                for (uint32_t i = 0; i < n; i++)
                    if (memcmp(ppos + (size_t)i * 3, pos + (size_t)idx[i] * 3, 12))
                        fail_msg("case %zu: corner %u is not vertex %u", k, i, idx[i]);
            }
        }
        orr_assets_destroy(a);
        if (c.bytes != 0) fail_msg("case %zu: %lld bytes outstanding after destroy", k, c.bytes);
        free(pos), free(idx);
    }
}

/* A large index view that decodes beside the load (bufferViews[0]) listed before a large attribute view
 * that decodes in parts (bufferViews[1]): the loader moves the attribute view down its queue, and its
 * decoding scratch is freed once (the copy left behind used to free it again). The file's positions
 * and triangles at every thread count, from a .gltf with a .bin and from a .glb, whose mapping is
 * released beside the load once its last decoder is done: also when a plain view in it (raw positions)
 * is read after that and the mapping must stay, and when a warning makes the loader parse it again. */
static void test_late_index_view_before_attribute_view(void **state)
{
    (void)state;
    enum { G = 600, V = G * G, N = (G - 1) * (G - 1) * 6 };
    uint32_t *idx = malloc((size_t)N * 4);
    grid_triangles(G, idx);
    float *pos = malloc((size_t)V * 12);
    for (uint32_t v = 0; v < V; v++) pos[v * 3] = (float)(v % G), pos[v * 3 + 1] = (float)(v / G), pos[v * 3 + 2] = 0.0f;
    float *up = malloc((size_t)V * 12); /* the normals: all +z */
    for (uint32_t v = 0; v < V; v++) up[v * 3] = 0.0f, up[v * 3 + 1] = 0.0f, up[v * 3 + 2] = 1.0f;
    size_t ci = meshopt_encodeIndexBufferBound(N, V), cv = meshopt_encodeVertexBufferBound(V, 12);
    uint8_t *bin = calloc(1, ci + 2 * cv + 8 + (size_t)V * 12);
    size_t ni = meshopt_encodeIndexBuffer(bin, ci, idx, N), at = (ni + 3) & ~(size_t)3;
    size_t nv = meshopt_encodeVertexBuffer(bin + at, cv, pos, V, 12), nat = (at + nv + 3) & ~(size_t)3;
    size_t nn = meshopt_encodeVertexBuffer(bin + nat, cv, up, V, 12), raw = (nat + nn + 3) & ~(size_t)3;
    assert_true(ni > 0 && nv > 0 && nn > 0);
    memcpy(bin + raw, pos, (size_t)V * 12); /* the raw positions, after the compressed views */
    write_file(scratch_path("late_first.bin"), bin, nat + nn);
    enum { GLTF, GLB, GLB_RAW, GLB_WARNED };
    for (int container = GLTF; container <= GLB_WARNED; container++) {
        bool glb = container != GLTF, raw_positions = container == GLB_RAW;
        size_t bin_n = raw_positions ? raw + (size_t)V * 12 : nat + nn;
        char buffer0[96], view1[512], json[4096];
        if (glb) snprintf(buffer0, sizeof buffer0, "{\"byteLength\":%zu}", bin_n);
        else snprintf(buffer0, sizeof buffer0, "{\"byteLength\":%zu,\"uri\":\"late_first.bin\"}", bin_n);
        if (raw_positions) snprintf(view1, sizeof view1, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%d,\"byteStride\":12}", raw, V * 12);
        else
            snprintf(view1, sizeof view1,
                     "{\"buffer\":1,\"byteOffset\":%d,\"byteLength\":%d,\"byteStride\":12,\"extensions\":{\"EXT_meshopt_compression\":"
                     "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12,\"count\":%d,\"mode\":\"ATTRIBUTES\"}}}",
                     N * 4, V * 12, at, nv, V);
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
                 "\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
                 "\"buffers\":[%s,{\"byteLength\":%d,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
                 "\"bufferViews\":[{\"buffer\":1,\"byteLength\":%d,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,"
                 "\"byteLength\":%zu,\"byteStride\":4,\"count\":%d,\"mode\":\"TRIANGLES\"}}},%s,"
                 "{\"buffer\":1,\"byteOffset\":%d,\"byteLength\":%d,\"byteStride\":12,\"extensions\":{\"EXT_meshopt_compression\":"
                 "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12,\"count\":%d,\"mode\":\"ATTRIBUTES\"}}}],"
                 "\"accessors\":[{\"bufferView\":1,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,0,0],"
                 "\"max\":[%d,%d,0]},{\"bufferView\":0,\"componentType\":5125,\"count\":%d,\"type\":\"SCALAR\"},"
                 "{\"bufferView\":2,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":2},\"indices\":1}]}],"
                 "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
                 buffer0, N * 4 + V * 24, N * 4, ni, N, view1, N * 4 + V * 12, V * 12, nat, nn, V, V, G - 1,
                 container == GLB_WARNED ? G : G - 1, N, V);
        const char *file = scratch_path(glb ? "late_first.glb" : "late_first.gltf");
        if (glb) { /* header, JSON chunk (padded with spaces), BIN chunk */
            size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = (bin_n + 3) & ~(size_t)3, total = 28 + jp + bp;
            uint8_t *g = calloc(1, total);
            uint32_t words[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)jp, 0x4E4F534Au}, bh[2] = {(uint32_t)bp, 0x004E4942u};
            memcpy(g, words, 20);
            memset(g + 20, ' ', jp);
            memcpy(g + 20, json, jl);
            memcpy(g + 20 + jp, bh, 8);
            memcpy(g + 28 + jp, bin, bin_n);
            write_file(file, g, total);
            free(g);
        } else {
            write_file(file, json, strlen(json));
        }
        const uint32_t counts[] = {1, 2, 4, 4}; /* the last on workers of the caller's */
        orr_workers *shared;
        assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 4}, &shared, NULL), ORR_OK);
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
            int warnings = 0;
            orr_assets *a = new_assets(&warnings);
            orr_gltf_stats st;
            orr_gltf_options opt = {.threads = counts[k], .stats = &st, .workers = k == 3 ? shared : NULL};
            orr_prefab_id p;
            orr_error err;
            if (orr_gltf_load(a, file, &opt, &p, &err) != ORR_OK) fail_msg("%d, %u threads: %s", container, counts[k], err.message);
            assert_int_equal(st.deferred_views, counts[k] > 1 ? 1 : 0); /* the index view decoded beside the load */
            assert_int_equal(st.split_views, counts[k] > 1 ? (raw_positions ? 2 : 3) : 0); /* and in pieces */
            if (warnings != (container == GLB_WARNED)) fail_msg("%d, %u threads: %d warnings", container, counts[k], warnings);
            mesh_list ml = prefab_meshes(a, p);
            assert_int_equal(ml.n, 1);
            const orr_primitive *pr = &ml.m[0]->primitives[0];
            const float *ppos = floats_of(pr, false);
            assert_int_equal(pr->vertex_count, V);
            assert_memory_equal(ppos, pos, (size_t)V * 12);
            orr_primitive src = {.index_count = N, .indices = idx};
            if (!same_triangles(pr, &src)) fail_msg("%d, %u threads: not the file's triangles", container, counts[k]);
            orr_assets_destroy(a);
        }
        orr_workers_destroy(shared);
    }
    free(bin), free(idx), free(pos), free(up);
}

/* 16-bit indices are widened straight into the asset library's memory and handed over: one block of the
 * 32-bit indices' size is ever allocated, it holds the file's indices, and no scratch copy of that size
 * (the loader's own blocks carry a 16-byte header) is made on the way. */
static void test_short_indices_widened_once(void **state)
{
    (void)state;
    enum { G = 100, V = G * G, N = (G - 1) * (G - 1) * 6 };
    size_t pos_bytes = (size_t)V * 12, idx_bytes = (size_t)N * 2;
    uint8_t *bin = malloc(pos_bytes + idx_bytes);
    uint16_t *idx = (uint16_t *)(bin + pos_bytes);
    for (uint32_t v = 0; v < V; v++) {
        float p[3] = {(float)(v % G), (float)(v / G), 0.0f};
        memcpy(bin + (size_t)v * 12, p, 12);
    }
    uint32_t *wide = malloc((size_t)N * 4);
    grid_triangles(G, wide);
    for (uint32_t i = 0; i < N; i++) idx[i] = (uint16_t)wide[i];
    free(wide);
    char *data = b64(bin, pos_bytes + idx_bytes);
    size_t jn = strlen(data) + 2048;
    char *json = malloc(jn);
    snprintf(json, jn,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,0,0],"
             "\"max\":[%d,%d,0]},{\"bufferView\":1,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":0},\"indices\":1}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
             pos_bytes + idx_bytes, data, pos_bytes, pos_bytes, idx_bytes, V, G - 1, G - 1, N);
    free(data);
    orrt_counter c = {.size = (size_t)N * 4, .size2 = (size_t)N * 4 + 16};
    orr_assets_desc ad = {.allocator = {orrt_counting_realloc, &c}};
    orr_assets *a;
    assert_int_equal(orr_assets_create(&ad, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    if (orr_gltf_load_memory(a, json, strlen(json), "/tmp", NULL, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
    assert_int_equal(c.of_size2, 0);
    mesh_list ml = prefab_meshes(a, p);
    assert_int_equal(ml.n, 1);
    const orr_primitive *pr = &ml.m[0]->primitives[0];
    assert_int_equal(pr->index_count, N);
    for (uint32_t i = 0; i < N; i++)
        if (pr->indices[i] != idx[i]) fail_msg("index %u is %u, the file's %u", i, pr->indices[i], idx[i]);
    assert_int_equal(c.of_size, 1);
    orr_assets_destroy(a);
    assert_int_equal(c.bytes, 0);
    free(json), free(bin);
}

/* Tangents warned about past what rounding explains, by their type: 8-bit ones as near unit length as 8
 * bits allow (0.2% off) load quietly, a long one among them is named; float ones 0.2% off are named. */
static void test_tangent_tolerance_follows_the_type(void **state)
{
    (void)state;
    for (int floats = 0; floats < 2; floats++) {
        uint8_t bin[36 + 12 + 48] = {0};
        const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        memcpy(bin, pos, sizeof pos);
        for (int v = 0; v < 3; v++) {
            const int8_t n[4] = {0, 0, 127, 0};
            memcpy(bin + 36 + v * 4, n, 4);
            if (floats) {
                const float t[4] = {v == 2 ? 1.002f : 1.0f, 0, 0, 1};
                memcpy(bin + 48 + v * 16, t, 16);
            } else {
                const int8_t t[4] = {90, 90, 0, 127}, far[4] = {127, 127, 0, 127}; /* 1.0022 and 1.41 long */
                memcpy(bin + 48 + v * 4, v == 1 ? far : t, 4);
            }
        }
        write_file(scratch_path("tangents.bin"), bin, floats ? sizeof bin : 36 + 12 + 12);
        char json[1536];
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
                 "\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
                 "\"buffers\":[{\"byteLength\":%d,\"uri\":\"tangents.bin\"}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12,\"byteStride\":4},"
                 "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":%d}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
                 "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
                 "{\"bufferView\":2,\"componentType\":%d%s,\"count\":3,\"type\":\"VEC4\"}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TANGENT\":2}}]}],"
                 "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
                 floats ? 96 : 60, floats ? 48 : 12, floats ? 5126 : 5120, floats ? "" : ",\"normalized\":true");
        const char *file = scratch_path("tangents.gltf");
        write_file(file, json, strlen(json));
        logbook log = {0};
        orr_assets *a = logged_assets(&log);
        orr_prefab_id p;
        orr_error err;
        if (orr_gltf_load(a, file, NULL, &p, &err) != ORR_OK) fail_msg("%s", err.message);
        const char *want = floats ? "TANGENT: element 2 has length 1.002" : "TANGENT: element 1 has length 1.41";
        if (!strstr(log.all, want)) fail_msg("no warning '%s': %s", want, log.all);
        if (strstr(log.all, "NORMAL")) fail_msg("the normals are unit length: %s", log.all);
        orr_assets_destroy(a);
    }
}

/* A large quantized mesh (KHR_mesh_quantization: SHORT positions, normalized BYTE normals, normalized
 * USHORT coordinates; 2^17 points), whose streams the build converts in ranges on the pool: the same
 * library bytes at any thread count, the values glTF's normalization gives (every 16-bit one), normals
 * made unit length, and the first one far from it named in the warning (not the ones before it that are
 * off unit length by no more than rounding 8-bit components does). */
static void test_threads_convert_streams_alike(void **state)
{
    (void)state;
    enum { N = 1 << 17 };
    const uint32_t far[2] = {70001, 100000}; /* in different ranges of the conversion */
    size_t pos_bytes = (size_t)N * 8, nrm_bytes = (size_t)N * 4, uv_bytes = (size_t)N * 4;
    uint8_t *bin = calloc(1, pos_bytes + nrm_bytes + uv_bytes);
    for (uint32_t v = 0; v < N; v++) {
        int16_t pq[4] = {(int16_t)(v % 512), (int16_t)(v / 512), (int16_t)((v * 7) % 301 - 150), 0};
        int8_t nq[4] = {0, 127, 0, 0};
        if (v == far[0] || v == far[1]) nq[0] = 127; /* length sqrt 2: warned (the first) and normalized */
        /* 127.28 / 127 and 126.44 / 127 long: the nearest 8-bit vectors to unit ones, 0.2% and 0.4% off */
        if (v == 5000) nq[0] = 90, nq[1] = 90;
        if (v == 60000) nq[0] = nq[1] = nq[2] = 73;
        uint16_t uq[2] = {(uint16_t)(v * 13), (uint16_t)(65535 - v)};
        memcpy(bin + (size_t)v * 8, pq, 8);
        memcpy(bin + pos_bytes + (size_t)v * 4, nq, 4);
        memcpy(bin + pos_bytes + nrm_bytes + (size_t)v * 4, uq, 4);
    }
    write_file(scratch_path("quantized.bin"), bin, pos_bytes + nrm_bytes + uv_bytes);
    free(bin);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
             "\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"quantized.bin\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":8},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":4}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,0,-150],"
             "\"max\":[511,255,150]},"
             "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":%d,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5123,\"normalized\":true,\"count\":%d,\"type\":\"VEC2\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"mode\":0}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
             pos_bytes + nrm_bytes + uv_bytes, pos_bytes, pos_bytes, nrm_bytes, pos_bytes + nrm_bytes, uv_bytes, N, N, N);
    const char *file = scratch_path("quantized.gltf");
    write_file(file, json, strlen(json));
    uint32_t counts[] = {1, 2, 3, 0};
    uint64_t first = 0;
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        logbook log = {0};
        orr_assets *a = logged_assets(&log);
        orr_prefab_id p;
        orr_error err;
        orr_gltf_options opt = {.threads = counts[k]};
        if (orr_gltf_load(a, file, &opt, &p, &err) != ORR_OK) fail_msg("threads %u: %s", counts[k], err.message);
        mesh_list ml = prefab_meshes(a, p);
        assert_int_equal(ml.n, 1);
        const orr_primitive *pr = &ml.m[0]->primitives[0];
        const float *ppos = floats_of(pr, false), *pnrm = floats_of(pr, true);
        assert_int_equal(pr->vertex_count, N);
        uint64_t h = 1469598103934665603u;
        const float *streams[3] = {ppos, pnrm, pr->texcoords0};
        const size_t floats[3] = {(size_t)N * 3, (size_t)N * 3, (size_t)N * 2};
        for (int st = 0; st < 3; st++) {
            const uint8_t *b = (const uint8_t *)streams[st];
            for (size_t i = 0; i < floats[st] * 4; i++) h = (h ^ b[i]) * 1099511628211u;
        }
        if (k == 0) first = h;
        else if (h != first) fail_msg("%u threads: the mesh's streams differ from 1 thread's", counts[k]);
        uint32_t v = 70002;
        assert_true(ppos[v * 3] == (float)(v % 512) && ppos[v * 3 + 1] == (float)(v / 512));
        assert_true(pnrm[v * 3 + 1] == 1.0f && pnrm[v * 3] == 0.0f);
        for (uint32_t near = 5000; near <= 60000; near += 55000) {
            const float *q = pnrm + (size_t)near * 3;
            assert_true(fabsf(sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) - 1.0f) < 1e-6f && q[0] > 0.5f);
        }
        /* the two long normals, normalized; the first named in the warning, at any thread count */
        for (uint32_t f = 0; f < 2; f++)
            assert_true(pnrm[far[f] * 3] == 1.0f / sqrtf(2.0f) && pnrm[far[f] * 3 + 1] == 1.0f / sqrtf(2.0f));
        if (!strstr(log.all, "NORMAL: element 70001 has length 1.41421"))
            fail_msg("%u threads: no warning naming normal 70001 first: %s", counts[k], log.all);
        /* every 16-bit value (13 is odd: v x 13 takes each one), as glTF's v / 65535 gives it */
        for (uint32_t u = 0; u < N; u++)
            if (pr->texcoords0[u * 2] != (float)((uint16_t)(u * 13) / 65535.0) ||
                pr->texcoords0[u * 2 + 1] != (float)((uint16_t)(65535 - u) / 65535.0))
                fail_msg("%u threads: texture coordinate %u is %.9g, %.9g", counts[k], u, pr->texcoords0[u * 2], pr->texcoords0[u * 2 + 1]);
        orr_assets_destroy(a);
    }
}

/* Large meshopt attribute views (1 MiB decoded each: quantized positions, and normals through the
 * octahedral filter) decode in parts at more than one thread: the library gets the same streams as at one
 * thread (where meshoptimizer decodes each in one piece), on the load's workers and on the caller's. */
static void test_meshopt_attribute_views_alike(void **state)
{
    (void)state;
    enum { N = 1 << 17 };
    int16_t *pq = malloc((size_t)N * 8), *nq = malloc((size_t)N * 8);
    float *unit = malloc((size_t)N * 16);
    for (uint32_t v = 0; v < N; v++) {
        const int16_t p[4] = {(int16_t)(v % 512), (int16_t)(v / 512), (int16_t)((v * 7) % 301 - 150), 0};
        memcpy(pq + (size_t)v * 4, p, 8);
        float a = (float)v * 0.001f, b = (float)(v % 977) * 0.003f;
        unit[v * 4] = cosf(a) * sinf(b), unit[v * 4 + 1] = sinf(a) * sinf(b), unit[v * 4 + 2] = cosf(b), unit[v * 4 + 3] = 0;
    }
    meshopt_encodeFilterOct(nq, N, 8, 16, unit);
    size_t cap = meshopt_encodeVertexBufferBound(N, 8);
    uint8_t *bin = malloc(cap * 2);
    size_t pn = meshopt_encodeVertexBuffer(bin, cap, pq, N, 8), ppad = (pn + 3) & ~(size_t)3;
    memset(bin + pn, 0, ppad - pn);
    size_t nn = meshopt_encodeVertexBuffer(bin + ppad, cap, nq, N, 8);
    write_file(scratch_path("packed.bin"), bin, ppad + nn);
    free(bin), free(pq), free(nq), free(unit);
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\",\"KHR_mesh_quantization\"],"
             "\"extensionsRequired\":[\"EXT_meshopt_compression\",\"KHR_mesh_quantization\"],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"packed.bin\"},"
             "{\"byteLength\":%d,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
             "\"bufferViews\":[{\"buffer\":1,\"byteLength\":%d,\"byteStride\":8,\"extensions\":{\"EXT_meshopt_compression\":"
             "{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":8,\"count\":%d,\"mode\":\"ATTRIBUTES\"}}},"
             "{\"buffer\":1,\"byteOffset\":%d,\"byteLength\":%d,\"byteStride\":8,\"extensions\":{\"EXT_meshopt_compression\":"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":8,\"count\":%d,\"mode\":\"ATTRIBUTES\","
             "\"filter\":\"OCTAHEDRAL\"}}}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,0,-150],"
             "\"max\":[511,255,150]},"
             "{\"bufferView\":1,\"componentType\":5122,\"normalized\":true,\"count\":%d,\"type\":\"VEC3\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"mode\":0}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
             ppad + nn, N * 16, N * 8, pn, N, N * 8, N * 8, ppad, nn, N, N, N);
    const char *file = scratch_path("packed.gltf");
    write_file(file, json, strlen(json));
    orr_workers *shared;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &shared, NULL), ORR_OK);
    uint32_t counts[] = {1, 2, 5, 3}; /* the last on the caller's workers */
    uint64_t first = 0;
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        orr_assets *a = new_assets(NULL);
        orr_gltf_stats st;
        orr_gltf_options opt = {.threads = counts[k], .stats = &st, .workers = k == 3 ? shared : NULL};
        orr_prefab_id p;
        orr_error err;
        if (orr_gltf_load(a, file, &opt, &p, &err) != ORR_OK) fail_msg("threads %u: %s", counts[k], err.message);
        assert_int_equal(st.split_views, counts[k] > 1 ? 2 : 0); /* both views, in parts */
        mesh_list ml = prefab_meshes(a, p);
        assert_int_equal(ml.n, 1);
        const orr_primitive *pr = &ml.m[0]->primitives[0];
        const float *ppos = floats_of(pr, false), *pnrm = floats_of(pr, true);
        assert_int_equal(pr->vertex_count, N);
        uint64_t h = 1469598103934665603u;
        const uint8_t *streams[2] = {(const uint8_t *)ppos, (const uint8_t *)pnrm};
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < (size_t)N * 12; i++) h = (h ^ streams[s][i]) * 1099511628211u;
        if (k == 0) first = h;
        else if (h != first) fail_msg("%u threads: the mesh's streams differ from 1 thread's", counts[k]);
        uint32_t v = 100003; /* a vertex far into the stream: its position as written, its normal near the input's */
        assert_true(ppos[v * 3] == (float)(v % 512) && ppos[v * 3 + 1] == (float)(v / 512));
        float b = (float)(v % 977) * 0.003f;
        assert_true(fabsf(pnrm[v * 3 + 2] - cosf(b)) < 1e-3f);
        orr_assets_destroy(a);
    }
    /* declared bounds the decoded data breaks: the same warning at every thread count (the data of a
     * compressed view is scanned as its decoding ends, beside the other view's) */
    char *at = strstr(json, "\"max\":[511,255,150]");
    assert_non_null(at);
    memcpy(at, "\"max\":[511,254,150]", strlen("\"max\":[511,254,150]"));
    write_file(file, json, strlen(json));
    char first_log[4096] = "";
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        logbook log = {0};
        orr_assets *a = logged_assets(&log);
        orr_gltf_options opt = {.threads = counts[k], .workers = k == 3 ? shared : NULL};
        orr_prefab_id p;
        orr_error err;
        if (orr_gltf_load(a, file, &opt, &p, &err) != ORR_OK) fail_msg("threads %u: %s", counts[k], err.message);
        if (!strstr(log.all, "accessors[0]: declared min/max disagree with the data (component 1: data 0..255)"))
            fail_msg("threads %u: %s", counts[k], log.all);
        if (k == 0) snprintf(first_log, sizeof first_log, "%s", log.all);
        else assert_string_equal(log.all, first_log);
        orr_assets_destroy(a);
    }
    orr_workers_destroy(shared);
}

/* ---- decoded pixels handed over to the library ------------------------------------------------------ */

typedef struct pixel_counter {
    orrt_counter inner;
    size_t size;
    int blocks; /* of about `size` bytes made */
} pixel_counter;

static void *counting_pixels(void *user, void *ptr, size_t old_size, size_t new_size)
{
    pixel_counter *c = user;
    if (!ptr && new_size >= c->size && new_size <= c->size + 64) c->blocks++; /* (a header's room aside) */
    return orrt_counting_realloc(&c->inner, ptr, old_size, new_size);
}

/* An image's decoded pixels become the last texture made from them, not a copy: one block of an
 * image's size for a texture, another for each further texture of the same image (read as color and
 * as data; under another sampler), and nothing left after the library is destroyed. */
static void test_decoded_pixels_handed_over(void **state)
{
    (void)state;
    enum { W = 64, H = 48 };
    uint8_t px[W * H * 4];
    for (int p = 0; p < W * H * 4; p++) px[p] = (uint8_t)(p % 4 == 3 ? 255 : (p / 4 % W) * 3 + (p / 4 / W) * 5 + p % 4);
    assert_true(stbi_write_png(scratch_path("handed.png"), W, H, 4, px, W * 4) != 0);
    const char *head = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/"
                       "octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=\"}],"
                       "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
                       "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
                       "\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
                       "\"images\":[{\"uri\":\"handed.png\"}],\"samplers\":[{\"magFilter\":9728}],"
                       "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"material\":0}]}],"
                       "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],";
    struct {
        const char *rest; /* textures and materials */
        int blocks;
    } cases[] = {
        {"\"textures\":[{\"source\":0}],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]}", 1},
        {"\"textures\":[{\"source\":0}],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},"
         "\"normalTexture\":{\"index\":0}}]}", 2},
        {"\"textures\":[{\"source\":0},{\"source\":0,\"sampler\":0}],\"materials\":[{\"pbrMetallicRoughness\":"
         "{\"baseColorTexture\":{\"index\":0}},\"emissiveTexture\":{\"index\":1}}]}", 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char json[4096];
        snprintf(json, sizeof json, "%s%s", head, cases[k].rest);
        pixel_counter c = {.size = sizeof px};
        orr_assets_desc ad = {.allocator = {counting_pixels, &c}};
        orr_assets *a;
        assert_int_equal(orr_assets_create(&ad, &a, NULL), ORR_OK);
        orr_prefab_id p;
        orr_error err;
        if (orr_gltf_load_memory(a, json, strlen(json), scratch(), NULL, NULL, &p, &err) != ORR_OK)
            fail_msg("case %zu: %s", k, err.message);
        if (c.blocks != cases[k].blocks) fail_msg("case %zu: %d blocks of the pixels' size, expected %d", k, c.blocks, cases[k].blocks);
        const orr_material *m = orr_assets_try_get_material(a, prefab_meshes(a, p).m[0]->primitives[0].material);
        orr_texture_id ids[] = {m->base_color_texture.texture, m->normal_texture.texture, m->emissive_texture.texture};
        for (int t = 0; t < 3; t++) {
            const orr_texture *tx = orr_assets_try_get_texture(a, ids[t]);
            if (!tx || (t == 1 && k != 1) || (t == 2 && k != 2)) continue;
            assert_int_equal(tx->width, W);
            assert_int_equal(tx->height, H);
            if (memcmp(tx->rgba8, px, sizeof px)) fail_msg("case %zu: texture %d is not the image's pixels", k, t);
        }
        orr_assets_destroy(a);
        if (c.inner.bytes != 0) fail_msg("case %zu: %lld bytes outstanding after destroy", k, c.inner.bytes);
    }
}

/* ---- decoding on the pool: the same library bytes at any thread count ------------------------------- */

static void test_threads_give_the_same_bytes(void **state)
{
    (void)state;
    /* eight images of different sizes and formats (PNG RGBA, PNG gray, JPEG), each on its own material */
    const int n = 8;
    char json[16384];
    size_t o = (size_t)snprintf(json, sizeof json,
                                "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/"
                                "octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=\"}],"
                                "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
                                "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
                                "\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],\"images\":[");
    for (int i = 0; i < n; i++) {
        int w = 64 + 37 * i, h = 48 + 21 * i, comp = i % 3 == 1 ? 1 : 4;
        uint8_t *px = malloc((size_t)w * h * comp);
        for (int p = 0; p < w * h * comp; p++) px[p] = (uint8_t)(p * 7 + i * 13 + (p / w) * 3);
        char name[64];
        snprintf(name, sizeof name, "img%d.%s", i, i % 3 == 2 ? "jpg" : "png");
        if (i % 3 == 2) assert_true(stbi_write_jpg(scratch_path(name), w, h, comp, px, 90) != 0);
        else assert_true(stbi_write_png(scratch_path(name), w, h, comp, px, w * comp) != 0);
        free(px);
        o += (size_t)snprintf(json + o, sizeof json - o, "%s{\"uri\":\"%s\"}", i ? "," : "", name);
    }
    o += (size_t)snprintf(json + o, sizeof json - o, "],\"textures\":[");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(json + o, sizeof json - o, "%s{\"source\":%d}", i ? "," : "", i);
    o += (size_t)snprintf(json + o, sizeof json - o, "],\"materials\":[");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(json + o, sizeof json - o, "%s{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":%d}}}", i ? "," : "", i);
    o += (size_t)snprintf(json + o, sizeof json - o, "],\"meshes\":[");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(json + o, sizeof json - o, "%s{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"material\":%d}]}",
                              i ? "," : "", i);
    o += (size_t)snprintf(json + o, sizeof json - o, "],\"nodes\":[");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(json + o, sizeof json - o, "%s{\"mesh\":%d}", i ? "," : "", i);
    snprintf(json + o, sizeof json - o, "],\"scenes\":[{\"nodes\":[0,1,2,3,4,5,6,7]}]}");
    const char *file = scratch_path("threads.gltf");
    write_file(file, json, strlen(json));
    uint32_t counts[] = {1, 2, 3, 8, 0, 8}; /* the last on workers of the caller's */
    orr_workers *shared;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &shared, NULL), ORR_OK);
    uint64_t first = 0;
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        orr_assets *a = new_assets(NULL);
        orr_prefab_id p;
        orr_error err;
        orr_gltf_stats st;
        orr_gltf_options opt = {.threads = counts[k], .stats = &st, .workers = k == 5 ? shared : NULL};
        if (orr_gltf_load(a, file, &opt, &p, &err) != ORR_OK) fail_msg("threads %u: %s", counts[k], err.message);
        uint32_t textures;
        uint64_t h = texture_digest(a, p, &textures);
        assert_int_equal(textures, n);
        if (k == 0) first = h;
        else if (h != first) fail_msg("%u threads: the library's textures differ from 1 thread's", counts[k]);
        /* every image decoded, none fell back */
        mesh_list ml = prefab_meshes(a, p);
        for (uint32_t m = 0; m < ml.n; m++) {
            const orr_material *mat = orr_assets_try_get_material(a, ml.m[m]->primitives[0].material);
            const orr_texture *t = orr_assets_try_get_texture(a, mat->base_color_texture.texture);
            assert_int_equal(t->width, 64 + 37 * m);
            assert_int_equal(t->height, 48 + 21 * m);
        }
        assert_int_equal(st.threads, counts[k] ? counts[k] : (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
        assert_true(st.parses >= 1);
        assert_true(st.image_ns > 0);
        assert_true(st.total_ns >= st.image_ns + st.json_ns);
        orr_assets_destroy(a);
    }
    orr_workers_destroy(shared);
}

/* A texture with KHR_texture_basisu and a PNG source, the extension only used: the PNG is loaded. */
static void test_basisu_optional_falls_back(void **state)
{
    (void)state;
    uint8_t px[4 * 4 * 4];
    for (int i = 0; i < 64; i++) px[i] = (uint8_t)(i * 3);
    assert_true(stbi_write_png(scratch_path("fallback.png"), 4, 4, 4, px, 16) != 0);
    write_file(scratch_path("fake.ktx2"), "\xabKTX 20\xbb\r\n\x1a\n", 12);
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_basisu\"],"
        "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"images\":[{\"uri\":\"fallback.png\"},{\"uri\":\"fake.ktx2\",\"mimeType\":\"image/ktx2\"}],"
        "\"textures\":[{\"source\":0,\"extensions\":{\"KHR_texture_basisu\":{\"source\":1}}}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"material\":0}]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
    int warnings = 0;
    orr_assets *a = new_assets(&warnings);
    orr_prefab_id p;
    orr_error err;
    assert_int_equal(orr_gltf_load_memory(a, json, strlen(json), scratch(), NULL, NULL, &p, &err), ORR_OK);
    const orr_texture *t = first_base_color(a, p);
    assert_non_null(t);
    assert_int_equal(t->width, 4);
    assert_memory_equal(t->rgba8, px, sizeof px);
    assert_true(warnings >= 1); /* the extension is named as not supported */
    orr_assets_destroy(a);
    /* required: refused by name */
    char req[8192];
    const char *at = strstr(json, "\"extensionsUsed\"");
    snprintf(req, sizeof req, "%.*s\"extensionsRequired\"%s", (int)(at - json), json, at + strlen("\"extensionsUsed\""));
    a = new_assets(NULL);
    assert_int_equal(orr_gltf_load_memory(a, req, strlen(req), scratch(), NULL, NULL, &p, &err), ORR_ERROR_UNSUPPORTED);
    if (!strstr(err.message, "extensionsRequired[0]: required extension KHR_texture_basisu")) fail_msg("%s", err.message);
    orr_assets_destroy(a);
}

/* ---- a model's header is checked before the rest of it is read --------------------------------------- */


/* An allocator that counts the bytes it hands out (the work a load did: reading a file takes its bytes). */
typedef struct counted {
    uint64_t bytes;
} counted;

static void *counting_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counted *c = user;
    if (new_size > old_size) c->bytes += new_size - old_size;
    if (!new_size) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, new_size);
}

static void test_header_checked_first(void **state)
{
    (void)state;
    counted used = {0};
    orr_assets *a;
    orr_assets_desc ad = {.allocator = {counting_realloc, &used}};
    assert_int_equal(orr_assets_create(&ad, &a, NULL), ORR_OK);
    orr_prefab_id p;
    orr_error err;
    /* a GLB whose header declares 100 bytes, in a 256 MiB (sparse) file: refused after its header */
    const char *big = scratch_path("big.glb");
    int fd = open(big, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    assert_true(fd >= 0);
    uint8_t hdr[12] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 100, 0, 0, 0};
    assert_int_equal(write(fd, hdr, 12), 12);
    assert_int_equal(ftruncate(fd, (off_t)256 << 20), 0);
    close(fd);
    uint64_t before = used.bytes;
    assert_int_equal(orr_gltf_load(a, big, NULL, &p, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "more than the header's length 100")) fail_msg("%s", err.message);
    /* the work done: the bytes the load took, a few KiB (reading the 256 MiB would take them all) */
    print_message("a 256 MiB file refused after its header: %llu bytes allocated\n", (unsigned long long)(used.bytes - before));
    assert_true(used.bytes - before < (1u << 20));
    /* a GLB declaring more than the file has */
    uint8_t small[24] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 200, 0, 0, 0};
    write_file(scratch_path("short.glb"), small, sizeof small);
    assert_int_equal(orr_gltf_load(a, scratch_path("short.glb"), NULL, &p, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "declared length 200 but the file has 24 bytes")) fail_msg("%s", err.message);
    /* 64 MiB that are neither a GLB nor JSON: refused from its first bytes */
    const char *junk = scratch_path("junk.gltf");
    fd = open(junk, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    assert_int_equal(write(fd, "\n  xx", 5), 5);
    assert_int_equal(ftruncate(fd, (off_t)64 << 20), 0);
    close(fd);
    before = used.bytes;
    assert_int_equal(orr_gltf_load(a, junk, NULL, &p, &err), ORR_ERROR_PARSE);
    if (!strstr(err.message, "neither a GLB nor a JSON object (byte 3 is 0x78)")) fail_msg("%s", err.message);
    print_message("64 MiB of junk refused from its first bytes: %llu bytes allocated\n", (unsigned long long)(used.bytes - before));
    assert_true(used.bytes - before < (1u << 20));
    unlink(big), unlink(junk);
    /* nesting past cJSON's limit names the byte that opened the level too many */
    size_t depth = 1200, n = 0;
    char *deep = malloc(depth * 2 + 64);
    n += (size_t)sprintf(deep, "{\"asset\":{\"version\":\"2.0\"},\"extras\":");
    size_t first = n;
    for (size_t i = 0; i < depth; i++) deep[n++] = '[';
    for (size_t i = 0; i < depth; i++) deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = 0;
    assert_int_equal(orrt_load_text(a, deep, NULL, &p, &err), ORR_ERROR_PARSE);
    char want[128];
    /* the root object is level 1, so the 1000th '[' opens level 1001 */
    snprintf(want, sizeof want, "JSON: nesting deeper than 1000 at byte %zu", first + 999);
    if (strcmp(err.message, want) != 0) fail_msg("'%s', expected '%s'", err.message, want);
    free(deep);
    orr_assets_destroy(a);
}

/* Fixtures written here (need nothing outside the repository) */
int orrt_scene_compressed(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meshopt_rules),              cmocka_unit_test(test_threads_give_the_same_bytes),
        cmocka_unit_test(test_threads_convert_streams_alike), cmocka_unit_test(test_tangent_tolerance_follows_the_type),
        cmocka_unit_test(test_meshopt_attribute_views_alike),
        cmocka_unit_test(test_meshopt_indices_handed_over),
        cmocka_unit_test(test_decoded_pixels_handed_over),
        cmocka_unit_test(test_short_indices_widened_once),
        cmocka_unit_test(test_late_index_view_before_attribute_view),
        cmocka_unit_test(test_late_index_views_alike),
        cmocka_unit_test(test_normalized_integers_exact),
        cmocka_unit_test(test_basisu_optional_falls_back), cmocka_unit_test(test_header_checked_first),
    };
    return cmocka_run_group_tests_name("scene_compressed", tests, NULL, NULL);
}

/* The sample models of gltf-ext and gltf (skip when the folder is absent) */
int orrt_scene_compressed_samples(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ext_models_load),            cmocka_unit_test(test_webp_variants_agree),
        cmocka_unit_test(test_draco_matches_uncompressed), cmocka_unit_test(test_gltfpack_outputs),
    };
    return cmocka_run_group_tests_name("scene_compressed: sample models", tests, NULL, NULL);
}
