/* The loader against the shared sample corpus: every valid model loads with the counts its file
 * declares; every must-refuse file is refused with a message naming the place the Khronos validator
 * names; no invalid file crashes, hangs or leaks (under ASan). Skips when the corpus is absent. */
#include "scene_tests.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <orrery/world.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) buf[len] = 0;
    if (n) *n = (size_t)len;
    return buf;
}

/* The JSON of a .gltf or .glb (the first chunk), parsed by cJSON independently of the loader. */
static cJSON *file_json(const char *path)
{
    size_t n;
    char *buf = slurp(path, &n);
    if (!buf) return NULL;
    cJSON *j;
    if (n >= 20 && memcmp(buf, "glTF", 4) == 0) {
        uint32_t len;
        memcpy(&len, buf + 12, 4);
        j = cJSON_ParseWithLength(buf + 20, len);
    } else {
        j = cJSON_Parse(buf);
    }
    free(buf);
    return j;
}

static uint32_t arr_len(const cJSON *j, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsArray(a) ? (uint32_t)cJSON_GetArraySize(a) : 0;
}

/* The main file of a model folder: its one .gltf or .glb. */
static bool model_file(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if ((l > 5 && strcmp(e->d_name + l - 5, ".gltf") == 0) || (l > 4 && strcmp(e->d_name + l - 4, ".glb") == 0)) {
            snprintf(out, cap, "%s/%s", dir, e->d_name);
            found = true;
            break;
        }
    }
    closedir(d);
    return found;
}

static void quiet(void *user, orr_log_level level, const char *msg)
{
    (void)level, (void)msg;
    (*(int *)user)++;
}

static void test_valid_models_load(void **state)
{
    (void)state;
    const char *root = orrt_asset("gltf");
    char rootdir[4096];
    snprintf(rootdir, sizeof rootdir, "%s", root);
    DIR *d = opendir(rootdir);
    assert_non_null(d);
    int models = 0, loaded = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char dir[4096 + 256], file[8192];
        snprintf(dir, sizeof dir, "%s/%s", rootdir, e->d_name);
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !model_file(dir, file, sizeof file)) continue;
        models++;
        int warnings = 0;
        orr_assets *assets;
        orr_assets_desc ad = {.logger = {quiet, &warnings}};
        assert_int_equal(orr_assets_create(&ad, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load(assets, file, NULL, &prefab, &err);
        if (r != ORR_OK) fail_msg("%s: %s", file, err.message);
        loaded++;

        /* counts as the file declares them */
        cJSON *j = file_json(file);
        assert_non_null(j);
        orr_gltf_info info;
        assert_int_equal(orr_gltf_info_file(file, NULL, NULL, &info, &err), ORR_OK);
        uint32_t prims = 0, lights = 0;
        uint64_t verts = 0, idx = 0;
        const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(j, "accessors");
        const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(j, "meshes");
        for (const cJSON *m = meshes ? meshes->child : NULL; m; m = m->next) {
            const cJSON *ps = cJSON_GetObjectItemCaseSensitive(m, "primitives");
            for (const cJSON *p = ps ? ps->child : NULL; p; p = p->next) {
                prims++;
                const cJSON *pos = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "attributes"), "POSITION");
                if (pos) verts += (uint64_t)cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(accessors, pos->valueint), "count")->valuedouble;
                const cJSON *ind = cJSON_GetObjectItemCaseSensitive(p, "indices");
                if (ind) idx += (uint64_t)cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(accessors, ind->valueint), "count")->valuedouble;
            }
        }
        const cJSON *lp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "extensions"), "KHR_lights_punctual");
        lights = arr_len(lp, "lights");
        assert_int_equal(info.scenes, arr_len(j, "scenes"));
        assert_int_equal(info.nodes, arr_len(j, "nodes"));
        assert_int_equal(info.meshes, arr_len(j, "meshes"));
        assert_int_equal(info.primitives, prims);
        assert_int_equal(info.materials, arr_len(j, "materials"));
        assert_int_equal(info.textures, arr_len(j, "textures"));
        assert_int_equal(info.skins, arr_len(j, "skins"));
        assert_int_equal(info.animations, arr_len(j, "animations"));
        assert_int_equal(info.cameras, arr_len(j, "cameras"));
        assert_int_equal(info.lights, lights);
        assert_int_equal(info.vertices, verts);
        assert_int_equal(info.indices, idx);
        if (info.meshes && info.nodes) assert_false(orr_aabbd_is_empty(info.bounds));

        /* the prefab: one child per scene, every mesh once, clips in glTF order */
        const orr_world *w = orr_prefab_world(assets, prefab);
        assert_non_null(w);
        orr_entity proot = orr_prefab_root(assets, prefab);
        uint32_t scenes = arr_len(j, "scenes");
        assert_int_equal(orr_entity_child_count(w, proot), scenes ? scenes : (arr_len(j, "nodes") ? 1 : 0));
        /* once per glTF index: meshes, materials (+ the default), skins, clips (one per animation with
         * usable channels); textures at most once per glTF texture and colour space (glTF textures
         * naming the same image, sampler and colour space share one) */
        assert_int_equal(orr_assets_mesh_count(assets), arr_len(j, "meshes"));
        assert_int_equal(orr_assets_material_count(assets), arr_len(j, "materials") + 1);
        assert_int_equal(orr_assets_skin_count(assets), arr_len(j, "skins"));
        assert_true(orr_assets_texture_count(assets) >= (arr_len(j, "textures") ? 1u : 0u) &&
                    orr_assets_texture_count(assets) <= 2 * arr_len(j, "textures"));
        assert_int_equal(orr_assets_clip_count(assets), arr_len(j, "animations"));
        assert_int_equal(orr_assets_prefab_count(assets), 1);
        assert_int_equal(orr_prefab_clips(assets, prefab, NULL, 0), arr_len(j, "animations"));
#define CHECK(cond) \
    if (!(cond)) fail_msg("%s: %s", file, #cond)
        if (arr_len(j, "meshes") && arr_len(j, "scenes")) CHECK(orrt_count_components(w, ORR_COMPONENT_MESH_RENDERER) > 0);
        uint32_t cam_nodes = 0;
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(j, "nodes");
        for (const cJSON *n = nodes ? nodes->child : NULL; n; n = n->next) cam_nodes += cJSON_HasObjectItem(n, "camera");
        if (cam_nodes && arr_len(j, "scenes")) CHECK(orrt_count_components(w, ORR_COMPONENT_CAMERA) > 0);
        if (arr_len(j, "animations")) CHECK(orr_component_has(w, proot, ORR_COMPONENT_ANIMATION_PLAYER));
        if (arr_len(j, "skins")) CHECK(orrt_count_components(w, ORR_COMPONENT_SKINNED_MESH) > 0);
        if (lights) CHECK(orrt_count_components(w, ORR_COMPONENT_LIGHT) > 0);
#undef CHECK

        /* loading the same path again gives the same prefab */
        orr_prefab_id again;
        assert_int_equal(orr_gltf_load(assets, file, NULL, &again, &err), ORR_OK);
        assert_true(orr_id_eq(prefab, again));
        cJSON_Delete(j);
        orr_assets_destroy(assets);
    }
    closedir(d);
    print_message("valid models: %d of %d loaded\n", loaded, models);
    assert_true(models >= 30);
}

/* "/accessors/0/byteOffset" -> "accessors[0].byteOffset" */
static void pointer_to_path(const char *ptr, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    const char *p = ptr;
    while (*p == '/') {
        p++;
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        bool num = n > 0;
        for (size_t i = 0; i < n; i++)
            if (p[i] < '0' || p[i] > '9') num = false;
        /* a token's escapes (RFC 6901): ~1 is '/', ~0 is '~' */
        char token[256];
        size_t t = 0;
        for (size_t i = 0; i < n && t + 1 < sizeof token; i++) {
            if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) token[t++] = p[++i] == '1' ? '/' : '~';
            else token[t++] = p[i];
        }
        token[t] = 0;
        int w = num ? snprintf(out + o, cap - o, "[%s]", token) : snprintf(out + o, cap - o, "%s%s", o ? "." : "", token);
        if (w < 0 || (size_t)w >= cap - o) break;
        o += (size_t)w;
        p += n;
    }
}

/* a is b, or b followed by a deeper part of the path */
static bool path_extends(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen >= blen && strncmp(a, b, blen) == 0 && (alen == blen || a[blen] == '.' || a[blen] == '[');
}

static void test_must_refuse(void **state)
{
    (void)state;
    char list[4096];
    snprintf(list, sizeof list, "%s", orrt_asset("gltf-invalid/must_refuse.txt"));
    char base[4096];
    snprintf(base, sizeof base, "%s", orrt_asset("gltf-invalid"));
    char *text = slurp(list, NULL);
    assert_non_null(text);
    int total = 0, refused = 0, placed = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!*line || *line == '#') continue;
        total++;
        char file[8192], report[8300];
        snprintf(file, sizeof file, "%s/%s", base, line);
        snprintf(report, sizeof report, "%s.report.json", file);
        orr_assets *assets;
        assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        orr_error err;
        orr_result r = orr_gltf_load(assets, file, NULL, &prefab, &err);
        orr_assets_destroy(assets);
        if (r == ORR_OK) {
            print_error("NOT REFUSED: %s\n", line);
            continue;
        }
        refused++;
        assert_true(err.message[0] != 0);
        /* the message's path (before the first ": ") must be, or lie under, a pointer the validator names */
        const char *colon = strstr(err.message, ": ");
        size_t mlen = colon ? (size_t)(colon - err.message) : 0;
        char *rj = slurp(report, NULL);
        cJSON *rep = rj ? cJSON_Parse(rj) : NULL;
        free(rj);
        bool ok = false, any_pointer = false;
        const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "issues"), "messages");
        for (const cJSON *m = msgs ? msgs->child : NULL; m && !ok; m = m->next) {
            if (cJSON_GetObjectItemCaseSensitive(m, "severity")->valueint != 0) continue;
            const cJSON *ptr = cJSON_GetObjectItemCaseSensitive(m, "pointer");
            if (!cJSON_IsString(ptr) || !ptr->valuestring[0]) {
                ok = true; /* the file as a whole (GLB container, JSON syntax) */
                continue;
            }
            any_pointer = true;
            char path[512];
            pointer_to_path(ptr->valuestring, path, sizeof path);
            if (mlen && (path_extends(err.message, mlen, path, strlen(path)) || path_extends(path, strlen(path), err.message, mlen)))
                ok = true;
        }
        (void)any_pointer;
        cJSON_Delete(rep);
        if (ok) placed++;
        else print_error("WRONG PLACE: %s: %s\n", line, err.message);
    }
    free(text);
    print_message("must_refuse: %d of %d refused, %d with the validator's path\n", refused, total, placed);
    assert_int_equal(refused, total);
    assert_int_equal(placed, total);
}

/* The warnings and errors of one load, kept for matching against the validator's pointers. */
typedef struct warn_log {
    int count;
    char lines[64][600];
    bool error[64]; /* logged at ORR_LOG_ERROR: the file breaks the spec there */
} warn_log;

static void keep_warning(void *user, orr_log_level level, const char *msg)
{
    warn_log *w = user;
    if (level < ORR_LOG_WARNING) return;
    if (w->count < 64) {
        snprintf(w->lines[w->count], sizeof w->lines[0], "%s", msg);
        w->error[w->count] = level >= ORR_LOG_ERROR;
    }
    w->count++;
}

/* The JSON path a loader message starts with: the message without the "name: " prefix the logger
 * adds (has_name), up to the next ": ". Returns its length, 0 when the message names none. */
static size_t message_path(const char *msg, bool has_name, const char **start)
{
    if (has_name) {
        const char *sep = strstr(msg, ": ");
        if (!sep) return 0;
        msg = sep + 2;
    }
    const char *colon = strstr(msg, ": ");
    *start = msg;
    return colon ? (size_t)(colon - msg) : 0;
}

/* Files of the invalid corpus that the loader takes without a word although the validator reports an
 * error, and why that is right. Each entry must still be in that state: one that starts to be
 * refused or warned about fails the test until it is taken out of this list. */
static const struct {
    const char *file;
    const char *why;
} corpus_accepted[] = {
    /* the WebP images no texture uses are intact; the file's error is the undeclared extension */
    {"ext/EXT_texture_webp/image/undeclared_extension.gltf", "the three WebP images are used by no texture"},
};

/* Every file of the invalid corpus (index.json: each has at least one validator error), loaded as
 * `orrery validate` loads it (check_images), is refused with a message, or loaded with at least one
 * ORR_LOG_ERROR message whose JSON path is one the validator's expected report gives for an error, or
 * a parent of it (so `validate` exits 1 naming the place). Loaded files are instantiated; nothing
 * crashes, hangs or leaks (under ASan). The files that are neither are listed and fail the test,
 * unless corpus_accepted says why. */
static void test_invalid_corpus_no_crash(void **state)
{
    (void)state;
    char base[4096];
    snprintf(base, sizeof base, "%s", orrt_asset("gltf-invalid"));
    char index[4200];
    snprintf(index, sizeof index, "%s/index.json", base);
    char *text = slurp(index, NULL);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    assert_true(cJSON_IsArray(j));
    const size_t accepted_n = sizeof corpus_accepted / sizeof corpus_accepted[0];
    bool accepted_seen[sizeof corpus_accepted / sizeof corpus_accepted[0]] = {0};
    int n = 0, refused = 0, warned = 0, silent = 0, unexplained = 0, errored = 0, no_error = 0;
    warn_log *log = malloc(sizeof *log);
    assert_non_null(log);
    for (const cJSON *e = j->child; e; e = e->next) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "file");
        const cJSON *rf = cJSON_GetObjectItemCaseSensitive(e, "report");
        const cJSON *ne = cJSON_GetObjectItemCaseSensitive(e, "expectedErrors");
        assert_true(cJSON_IsString(f) && cJSON_IsString(rf) && cJSON_IsNumber(ne));
        assert_true(ne->valueint > 0); /* the corpus holds error cases only */
        char file[8192], report[8192];
        snprintf(file, sizeof file, "%s/%s", base, f->valuestring);
        snprintf(report, sizeof report, "%s/%s", base, rf->valuestring);
        struct stat st;
        if (stat(file, &st) != 0) fail_msg("%s: listed in index.json but missing", f->valuestring);
        n++;

        memset(log, 0, sizeof *log);
        orr_assets *assets;
        orr_assets_desc ad = {.logger = {keep_warning, log}};
        assert_int_equal(orr_assets_create(&ad, &assets, NULL), ORR_OK);
        orr_prefab_id prefab;
        orr_error err;
        orr_gltf_options opt = {.check_images = true}; /* as `validate` loads */
        orr_result r = orr_gltf_load(assets, file, &opt, &prefab, &err);
        bool ok = false, error_placed = false;
        if (r != ORR_OK) {
            refused++;
            error_placed = true;
            if (!err.message[0]) fail_msg("%s: refused (%s) without a message", f->valuestring, orr_result_name(r));
            ok = true;
        } else {
            orr_world *w;
            assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
            orr_entity inst;
            assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &inst), ORR_OK);
            orr_world_destroy(w);

            char *rj = slurp(report, NULL);
            cJSON *rep = rj ? cJSON_Parse(rj) : NULL;
            free(rj);
            if (!rep) fail_msg("%s: report %s unreadable", f->valuestring, rf->valuestring);
            const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "issues"), "messages");
            int shown = log->count < 64 ? log->count : 64;
            for (const cJSON *m = msgs ? msgs->child : NULL; m && !error_placed; m = m->next) {
                const cJSON *sev = cJSON_GetObjectItemCaseSensitive(m, "severity");
                if (!cJSON_IsNumber(sev) || sev->valueint != 0) continue;
                const cJSON *ptr = cJSON_GetObjectItemCaseSensitive(m, "pointer");
                char path[512] = "";
                if (cJSON_IsString(ptr)) pointer_to_path(ptr->valuestring, path, sizeof path);
                for (int k = 0; k < shown; k++) {
                    const char *wp;
                    size_t wl = message_path(log->lines[k], true, &wp);
                    /* an error about the whole file (no pointer) is named by any warning */
                    bool placed = !path[0] || (wl && path_extends(path, strlen(path), wp, wl));
                    ok = ok || placed;
                    error_placed = error_placed || (placed && log->error[k]);
                }
            }
            cJSON_Delete(rep);
            if (ok) warned++;
            else silent++;
        }
        orr_gltf_info info;
        orr_gltf_info_file(file, NULL, NULL, &info, &err);
        orr_assets_destroy(assets);

        /* what `validate` says: an error (exit 1) at the validator's place; a file whose only words there
         * are warnings would pass it */
        if (error_placed) errored++;
        if (!error_placed && ok) {
            no_error++;
            print_error("WARNED BUT NO ERROR: %s\n", f->valuestring);
            unexplained++;
        }

        if (ok) {
            for (size_t k = 0; k < accepted_n; k++)
                if (strcmp(corpus_accepted[k].file, f->valuestring) == 0)
                    fail_msg("%s: listed in corpus_accepted but now %s; take it out of the list", f->valuestring,
                             r != ORR_OK ? "refused" : "warned about");
            continue;
        }
        bool explained = false;
        for (size_t k = 0; k < accepted_n; k++)
            if (strcmp(corpus_accepted[k].file, f->valuestring) == 0) {
                explained = accepted_seen[k] = true;
                print_message("accepted without a warning: %s: %s\n", f->valuestring, corpus_accepted[k].why);
            }
        if (!explained) {
            unexplained++;
            print_error("NEITHER REFUSED NOR WARNED: %s (%d warnings%s%s)\n", f->valuestring, log->count,
                        log->count ? ", first: " : "", log->count ? log->lines[0] : "");
        }
    }
    free(log);
    cJSON_Delete(j);
    for (size_t k = 0; k < accepted_n; k++)
        if (!accepted_seen[k])
            fail_msg("%s: listed in corpus_accepted but not in index.json", corpus_accepted[k].file);
    print_message("invalid corpus: %d files, %d refused, %d loaded with a warning at the validator's place, "
                  "%d loaded without one (%d explained); %d refused or loaded with an error at the validator's "
                  "place, %d with warnings only\n", n, refused, warned, silent, silent - unexplained, errored, no_error);
    assert_true(n > 100);
    assert_int_equal(refused + warned + silent, n);
    assert_int_equal(unexplained, 0);
}

static void test_shared_mesh_and_instances(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/SimpleMeshes/SimpleMeshes.gltf");
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(orr_gltf_load(assets, file, NULL, &prefab, &err), ORR_OK);
    assert_int_equal(orr_assets_mesh_count(assets), 1);
    const orr_world *pw = orr_prefab_world(assets, prefab);
    orr_mesh_id seen = {0, 0};
    int renderers = 0;
    orr_subtree_iter it;
    orr_subtree_begin(pw, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(pw, e);
        if (!mr) continue;
        if (renderers++) assert_true(orr_id_eq(seen, mr->mesh));
        seen = mr->mesh;
    }
    orr_subtree_end(&it);
    assert_int_equal(renderers, 2);

    /* two instances share every resource; the template is untouched */
    orr_world *w;
    assert_int_equal(orr_world_create(NULL, &w, NULL), ORR_OK);
    orr_entity a, b;
    orr_transform at = orr_transform_identity();
    at.translation.x = 10;
    assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, &at, &a), ORR_OK);
    assert_int_equal(orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &b), ORR_OK);
    assert_int_equal(orr_world_entity_count(w), 2 * orr_world_entity_count(pw));
    assert_int_equal(orrt_count_components(w, ORR_COMPONENT_MESH_RENDERER), 4);
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, e);
        if (mr) assert_true(orr_id_eq(seen, mr->mesh));
    }
    orr_subtree_end(&it);
    assert_int_equal(orr_assets_mesh_count(assets), 1);
    orr_mat4d m;
    assert_int_equal(orr_entity_world_matrix(w, a, &m), ORR_OK);
    assert_true(m.m[12] == 10.0);
    orr_world_destroy(w);
    orr_assets_destroy(assets);
}

static void test_multiple_scenes_layers(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/MultipleScenes/MultipleScenes.gltf");
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(orr_gltf_load(assets, file, NULL, &prefab, &err), ORR_OK);
    const orr_world *w = orr_prefab_world(assets, prefab);
    orr_entity root = orr_prefab_root(assets, prefab);
    assert_int_equal(orr_entity_child_count(w, root), 2);
    assert_int_equal(orr_prefab_default_scene(assets, prefab), 1);
    uint32_t layers_seen = 0;
    orr_entity scene = orr_entity_first_child(w, root);
    for (uint32_t si = 0; si < 2; si++, scene = orr_entity_next_sibling(w, scene)) {
        orr_subtree_iter it;
        orr_subtree_begin(w, scene, &it);
        for (orr_entity e; orr_subtree_next(&it, &e);) {
            const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(w, e);
            if (mr) {
                assert_int_equal(mr->layers, 1u << si);
                layers_seen |= mr->layers;
            }
        }
        orr_subtree_end(&it);
    }
    assert_int_equal(layers_seen, 3);
    orr_assets_destroy(assets);
}

static void test_skin_and_animation_targets(void **state)
{
    (void)state;
    const char *file = orrt_asset("gltf/SimpleSkin/SimpleSkin.gltf");
    orr_assets *assets;
    assert_int_equal(orr_assets_create(NULL, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(orr_gltf_load(assets, file, NULL, &prefab, &err), ORR_OK);
    const orr_world *w = orr_prefab_world(assets, prefab);
    orr_entity root = orr_prefab_root(assets, prefab);
    const orr_animation_player *ap = orr_animation_player_try_get(w, root);
    assert_non_null(ap);
    uint32_t target_count;
    const orr_entity *targets = orr_animation_player_targets(w, root, &target_count);
    assert_int_equal(target_count, 3); /* SimpleSkin: 3 nodes */
    orr_clip_id clip;
    assert_int_equal(orr_prefab_clips(assets, prefab, &clip, 1), 1);
    assert_true(orr_id_eq(clip, ap->clip));
    const orr_clip *c = orr_assets_try_get_clip(assets, clip);
    assert_non_null(c);
    for (uint32_t i = 0; i < c->channel_count; i++) {
        assert_true(c->channels[i].target < target_count);
        assert_true(orr_entity_is_alive(w, targets[c->channels[i].target]));
    }
    /* the skinned mesh's joints are entities of the same world */
    orr_subtree_iter it;
    int skinned = 0;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);) {
        const orr_skinned_mesh *sm = orr_skinned_mesh_try_get(w, e);
        if (!sm) continue;
        skinned++;
        uint32_t jn;
        const orr_entity *joints = orr_skinned_mesh_joints(w, e, &jn);
        assert_int_equal(jn, 2);
        for (uint32_t j = 0; j < jn; j++) assert_true(orr_entity_is_alive(w, joints[j]));
        const orr_skin *s = orr_assets_try_get_skin(assets, sm->skin);
        assert_non_null(s);
        assert_int_equal(s->joint_count, 2);
    }
    orr_subtree_end(&it);
    assert_int_equal(skinned, 1);
    orr_assets_destroy(assets);
}

/* CesiumMan as it ships: 210 of its 3,273 vertices have WEIGHTS_0 summing to between 0.185 and 0.99. The
 * load warns once, naming the accessor, and every stored vertex's weights sum to 1. */
static void test_cesium_man_weights_normalised(void **state)
{
    (void)state;
    const char *path = orrt_asset("gltf/CesiumMan/CesiumMan.gltf"); /* skips here, before anything is made */
    warn_log *log = calloc(1, sizeof *log);
    orr_assets *assets;
    orr_assets_desc ad = {.logger = {keep_warning, log}};
    assert_int_equal(orr_assets_create(&ad, &assets, NULL), ORR_OK);
    orr_prefab_id prefab;
    orr_error err;
    assert_int_equal(orr_gltf_load(assets, path, NULL, &prefab, &err), ORR_OK);
    int found = 0;
    for (int k = 0; k < log->count && k < 64; k++)
        found += strstr(log->lines[k], "meshes[0].primitives[0].attributes.WEIGHTS_0: accessor 5: the weights of 210 of "
                                        "3273 vertices do not sum to 1 (worst: element 1681, 0.184742384)") != NULL;
    assert_int_equal(found, 1);
    const orr_world *w = orr_prefab_world(assets, prefab);
    orr_entity e = orr_world_find_in_subtree(w, ORR_ENTITY_NONE, ORR_COMPONENT_SKINNED_MESH);
    const orr_mesh *m = orr_assets_try_get_mesh(assets, orr_mesh_renderer_try_get(w, e)->mesh);
    const orr_primitive *p = &m->primitives[0];
    assert_int_equal(p->vertex_count, 3273);
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        const float *wt = p->weights + (size_t)v * 4;
        double sum = (double)wt[0] + wt[1] + wt[2] + wt[3];
        if (fabs(sum - 1.0) > 1e-6) fail_msg("vertex %u: weights sum to %.9g", v, sum);
    }
    orr_assets_destroy(assets);
    free(log);
}

int orrt_scene_samples(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_models_load),
        cmocka_unit_test(test_must_refuse),
        cmocka_unit_test(test_invalid_corpus_no_crash),
        cmocka_unit_test(test_shared_mesh_and_instances),
        cmocka_unit_test(test_multiple_scenes_layers),
        cmocka_unit_test(test_skin_and_animation_targets),
        cmocka_unit_test(test_cesium_man_weights_normalised),
    };
    return cmocka_run_group_tests_name("scene: sample corpus", tests, NULL, NULL);
}
