/* libFuzzer target for the recording reader (src/snapshot/recording.c) and the resource decoders
 * (src/assets/encode.c): any bytes must open and read, or be refused with a message; never crash, hang,
 * read out of bounds, leak or allocate without bound. Opens the input, reads every frame in order (at
 * most 64), seeks back to the middle and to the last, checks what the renderer trusts of each snapshot
 * (every range inside its array, the fur sidecar in order), and decodes every resource into an asset
 * library with the ids remapped as a replay host does.
 *
 * Checksums would stop almost every mutation at the first section, so an input of even size has them
 * made right first (the header's, each section's, each resource's content hash, the trailer's, as far
 * as the sections' lengths hold together): those inputs reach the parsers behind them; odd sizes test
 * the checksums themselves.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DORRERY_FUZZ=ON && cmake --build build-fuzz --target fuzz_recording
 * Seeds: ORRERY_FUZZ_SEEDS=DIR build-fuzz/fuzz_recording -runs=0 writes small recordings of a world made
 * here (no sample model) to DIR in formats 3 and 2 (seed_v3_*, seed_v2_*; ORRERY_RECORDING_SEEDS=DIR
 * build/test_snapshot writes the snapshot tests' richer sequences); tests/fuzz/recording_corpus holds the
 * minimised corpus (regression inputs: tests/snapshot runs them all through the reader), with the seeds
 * of format 1 (seed_v1_*) kept so that the oldest format stays read (docs/fuzzing.md).
 * Run: nice -n 19 build-fuzz/fuzz_recording -max_len=16384 -timeout=30 CORPUS_DIR tests/fuzz/recording_corpus */
#include <orrery/frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ---- checksums made right ------------------------------------------------------------------ */

static void put_sum(uint8_t *d, size_t at, size_t n)
{
    uint64_t s = orr_recording_checksum(d + at, n);
    memcpy(d + at + n, &s, 8);
}

static void fix_checksums(uint8_t *d, size_t size)
{
    if (size < 24) return;
    put_sum(d, 0, 16);
    size_t end = size >= 48 ? size - 24 : size;
    if (size >= 48) put_sum(d, size - 24, 16);
    for (size_t at = 24; at + 24 <= end;) {
        uint32_t type;
        uint64_t length;
        memcpy(&type, d + at, 4);
        memcpy(&length, d + at + 8, 8);
        if (length > end - at - 24) return;
        if (type == 2 && length >= 24) { /* a resource's content hash */
            uint64_t h = orr_recording_checksum(d + at + 40, length - 24);
            memcpy(d + at + 32, &h, 8);
        }
        put_sum(d, at, 16 + length);
        at += 24 + length;
    }
}

/* ---- the ids of a replay library ----------------------------------------------------------- */

typedef struct remap_table {
    uint32_t from_index[3][64], from_gen[3][64], to_index[3][64], to_gen[3][64];
    uint32_t count[3];
} remap_table;

static bool lookup(const remap_table *t, int k, uint32_t index, uint32_t gen, uint32_t *oi, uint32_t *og)
{
    for (uint32_t i = 0; i < t->count[k]; i++)
        if (t->from_index[k][i] == index && t->from_gen[k][i] == gen) {
            *oi = t->to_index[k][i];
            *og = t->to_gen[k][i];
            return true;
        }
    *oi = *og = 0;
    return false;
}

static orr_material_id map_material(void *user, orr_material_id id)
{
    orr_material_id o;
    lookup(user, 1, id.index, id.generation, &o.index, &o.generation);
    return o;
}

static orr_texture_id map_texture(void *user, orr_texture_id id)
{
    orr_texture_id o;
    lookup(user, 0, id.index, id.generation, &o.index, &o.generation);
    return o;
}

static orr_mesh_id map_mesh(void *user, orr_mesh_id id)
{
    orr_mesh_id o;
    lookup(user, 2, id.index, id.generation, &o.index, &o.generation);
    return o;
}

/* ---- what the renderer trusts -------------------------------------------------------------- */

static void check(const orr_snapshot *s)
{
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        if (in->joint_count && (in->joint_offset == UINT32_MAX || in->joint_offset + (uint64_t)in->joint_count > s->joint_count))
            abort();
        if (in->material_count && in->material_offset + (uint64_t)in->material_count > s->material_binding_count) abort();
        if (in->name >= s->names_size && s->names_size) abort();
        if (in->weight_count && in->weight_offset + (uint64_t)in->weight_count > s->weight_count) abort();
        if (orr_snapshot_find(s, in->id) != i) abort();
    }
    for (uint32_t k = 0; k < s->fur_count; k++)
        if (s->fur[k].instance >= s->instance_count || (k && s->fur[k].instance <= s->fur[k - 1].instance)) abort();
    for (uint32_t k = 0; k < s->light_count; k++)
        if (s->lights[k].name >= s->names_size) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    if (size % 2 == 0) fix_checksums(copy, size);
    orr_recording *rec;
    orr_error err;
    if (orr_recording_open_memory(copy, size, NULL, &rec, &err) == ORR_OK) {
        orr_recording_info info;
        orr_recording_get_info(rec, &info);
        orr_snapshot s;
        orr_snapshot_init(&s, NULL);
        uint64_t n = info.stats.frames < 64 ? info.stats.frames : 64;
        for (uint64_t f = 0; f < n; f++)
            if (orr_recording_read_frame(rec, f, NULL, &s, &err) == ORR_OK) check(&s);
        if (n && orr_recording_read_frame(rec, n / 2, NULL, &s, &err) == ORR_OK) check(&s);
        /* the resources, into a library of their own, and the last frame with the ids remapped */
        orr_assets *assets;
        remap_table t = {0};
        if (orr_assets_create(NULL, &assets, NULL) == ORR_OK) {
            orr_resource_remap rr = {.material = map_material, .texture = map_texture, .user = &t};
            for (uint32_t i = 0; i < info.stats.resources && i < 64; i++) {
                orr_recording_resource r;
                if (orr_recording_get_resource(rec, i, &r) != ORR_OK) abort();
                int k = (int)r.kind - 1;
                uint32_t oi = 0, og = 0;
                orr_result res = ORR_ERROR_PARSE;
                if (r.kind == ORR_RESOURCE_TEXTURE) {
                    orr_texture_id id;
                    if ((uint64_t)r.size <= (64u << 10) &&
                        (res = orr_assets_decode_texture(assets, r.bytes, r.size, &id, &err)) == ORR_OK)
                        oi = id.index, og = id.generation;
                } else if (r.kind == ORR_RESOURCE_MATERIAL) {
                    orr_material_id id;
                    if ((res = orr_assets_decode_material(assets, r.bytes, r.size, &rr, &id, &err)) == ORR_OK)
                        oi = id.index, og = id.generation;
                } else {
                    orr_mesh_id id;
                    if ((res = orr_assets_decode_mesh(assets, r.bytes, r.size, &rr, &id, &err)) == ORR_OK)
                        oi = id.index, og = id.generation;
                }
                if (res == ORR_OK && t.count[k] < 64) {
                    t.from_index[k][t.count[k]] = r.index;
                    t.from_gen[k][t.count[k]] = r.generation;
                    t.to_index[k][t.count[k]] = oi;
                    t.to_gen[k][t.count[k]] = og;
                    t.count[k]++;
                }
            }
            orr_snapshot_remap sr = {.mesh = map_mesh, .material = map_material, .user = &t};
            if (n && orr_recording_read_frame(rec, n - 1, &sr, &s, &err) == ORR_OK) check(&s);
            orr_assets_destroy(assets);
        }
        orr_snapshot_fini(&s);
        orr_recording_close(rec);
    }
    free(copy);
    return 0;
}

/* ---- seeds --------------------------------------------------------------------------------- */

/* A session with three renderables (two meshes, one with a texture and morph targets, one instance
 * with material overrides), a light and a camera; `frames` frames with one of them moving and one
 * renamed half way, and (`churn`) one destroyed and another made two frames later (a removal, then a
 * new instance: frames whose order changes); recorded in format `version` with key frames every
 * `interval`. */
static void write_seed(const char *path, uint32_t frames, uint32_t interval, uint32_t version, bool churn)
{
    orr_session *session;
    if (orr_session_create(NULL, &session, NULL) != ORR_OK) return;
    orr_world *w = orr_session_world(session);
    orr_assets *a = orr_session_assets(session);
    static const uint8_t pixels[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    orr_texture_id tex;
    orr_assets_add_texture(a, &(orr_texture_desc){.name = "t", .width = 2, .height = 2, .rgba8 = pixels}, &tex);
    orr_material m = orr_material_default();
    m.base_color_texture.texture = tex;
    orr_material_id mat, mat2;
    orr_assets_add_material(a, &m, &mat);
    m.base_color[1] = 0.5f;
    orr_assets_add_material(a, &m, &mat2);
    static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uv[6] = {0, 0, 1, 0, 0, 1}, up[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    orr_morph_target_desc target = {.positions = up};
    orr_primitive_desc p = {.vertex_count = 3, .positions = tri, .texcoords0 = uv, .material = mat, .target_count = 1,
                            .targets = &target};
    static const float w0 = 0.5f;
    orr_mesh_id mesh, plain;
    orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "tri", .primitive_count = 1, .primitives = &p, .weight_count = 1,
                                            .weights = &w0},
                        &mesh);
    orr_primitive_desc q = {.vertex_count = 3, .positions = tri};
    orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &q}, &plain);
    orr_entity e[3];
    for (int i = 0; i < 3; i++) {
        orr_transform t = orr_transform_identity();
        t.translation.x = i;
        orr_entity_create(w, &(orr_entity_desc){.name = i ? "b" : "a", .local = &t}, &e[i]);
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = i == 1 ? plain : mesh;
        orr_component_add(w, e[i], ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
    }
    orr_mesh_renderer_set_materials(w, e[2], &mat2, 1);
    orr_entity light, cam;
    orr_entity_create(w, &(orr_entity_desc){.name = "sun"}, &light);
    orr_light l = orr_light_default();
    orr_component_add(w, light, ORR_COMPONENT_LIGHT, &l, NULL);
    orr_entity_create(w, &(orr_entity_desc){.name = "eye"}, &cam);
    orr_camera c = orr_camera_default();
    orr_component_add(w, cam, ORR_COMPONENT_CAMERA, &c, NULL);
    orr_recorder *rec;
    if (orr_recorder_create(path, &(orr_recorder_desc){.key_interval = interval, .format_version = version}, &rec,
                            NULL) == ORR_OK) {
        for (uint32_t f = 0; f < frames; f++) {
            orr_entity_set_translation(w, e[0], (orr_vec3d){0, 0.25 * f, 0});
            if (f == frames / 2) orr_entity_set_name(w, e[1], "renamed");
            if (churn && f == 2) orr_entity_destroy(w, e[1]);
            if (churn && f == 4) {
                orr_entity made;
                orr_entity_create(w, &(orr_entity_desc){.name = "new"}, &made);
                orr_mesh_renderer mr = orr_mesh_renderer_default();
                mr.mesh = plain;
                orr_component_add(w, made, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
                orr_mesh_renderer_set_materials(w, made, &mat, 1);
            }
            if (orr_session_run_frame(session, f ? 1.0 / 60.0 : 0.0) != ORR_OK) break;
            if (orr_frame_record(rec, orr_session_snapshot(session), a, NULL) != ORR_OK) break;
        }
        orr_recorder_finish(rec);
        orr_recorder_destroy(rec);
    }
    orr_session_destroy(session);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("ORRERY_FUZZ_SEEDS");
    if (!dir) return 0;
    char path[4096];
    /* frames, key interval, format version, churn */
    static const uint32_t shapes[6][4] = {{6, 3, 3, 0}, {3, 1, 3, 0}, {9, 300, 3, 0}, {8, 300, 3, 1}, {6, 3, 2, 0}, {8, 5, 2, 1}};
    for (int k = 0; k < 6; k++) {
        snprintf(path, sizeof path, "%s/seed_v%u_%u_frames_key_%u%s.orrec", dir, shapes[k][2], shapes[k][0],
                 shapes[k][1], shapes[k][3] ? "_churn" : "");
        write_seed(path, shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3] != 0);
    }
    return 0;
}
