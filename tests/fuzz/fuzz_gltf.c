/* libFuzzer target for the glTF loader: any bytes, as .gltf JSON or .glb, must load or be refused
 * with a message; never crash, hang, read out of bounds or leak. Loads, then instantiates the prefab
 * into a live world, plays its animation (the player's targets), extracts a snapshot (joint palettes
 * from the skinned entities' joint lists, names, material bindings), clones an instance (the lists
 * copied and remapped) and extracts again incrementally, and runs the info pass on the same bytes.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DORRERY_FUZZ=ON && cmake --build build-fuzz --target fuzz_gltf
 * Seeds: tests/fuzz/make_corpus.py OUT_DIR (made from the sample models at run time, never committed).
 * Run: nice -n 19 build-fuzz/fuzz_gltf -dict=tests/fuzz/gltf.dict CORPUS_DIR SEED_DIR
 * External URIs resolve against $FUZZ_GLTF_BASE when set, else against a folder the target fills
 * once (/tmp/orrery_fuzz_base: b.bin, 256 bytes, and i.png, a 2x2 image), so that buffer and image
 * files, shared sources and the outside-the-folder check are exercised. The info pass (parse, entity
 * budget, bounds) runs on every input, loaded or not. Every input is also decoded as a meshopt
 * triangle stream and as a meshopt attribute stream (its first byte made a header) by the parallel
 * decoders, in small pieces, and by meshoptimizer: the two must agree on the result and, on success, on
 * every byte. As raw bytes rarely make a stream whose layout holds together (so that the pieces decode at
 * all), the input is also taken as triangles and as vertices that meshoptimizer encodes, one byte of the
 * encoding then changed where the input says, and decoded both ways again. */
#include "scene/gltf_internal.h"

#include <meshoptimizer.h>
#include <orrery/anim.h>
#include <orrery/frame.h>
#include <orrery/scene.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fuzz_base(void)
{
    const char *env = getenv("FUZZ_GLTF_BASE");
    if (env) return env;
    static const char dir[] = "/tmp/orrery_fuzz_base";
    static int ready; /* the harness's own, not the library's */
    if (!ready) {
        mkdir(dir, 0700);
        FILE *f = fopen("/tmp/orrery_fuzz_base/b.bin", "wb");
        if (f) {
            for (int i = 0; i < 256; i++) fputc(i, f);
            fclose(f);
        }
        static const unsigned char png[] = { /* 2x2 RGBA */
            0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
            0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06, 0x00, 0x00, 0x00, 0x72, 0xb6, 0x0d, 0x24, 0x00,
            0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x0a, 0x21,
            0x14, 0x00, 0x45, 0xcc, 0x07, 0xf9, 0x66, 0xcb, 0xff, 0x39, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
            0x44, 0xae, 0x42, 0x60, 0x82};
        f = fopen("/tmp/orrery_fuzz_base/i.png", "wb");
        if (f) {
            fwrite(png, 1, sizeof png, f);
            fclose(f);
        }
        ready = 1;
    }
    return dir;
}

/* The bytes as a triangle stream of 1/4 to 4/4 of the triangles their size allows (fewer leave bytes
 * for the data section), decoded both ways. */
static void triangles_alike(const uint8_t *data, size_t size)
{
    if (size < 18 || size > (1u << 16)) return;
    static orri_meshopt_tri_scratch *scratch; /* the harness's own, for the most triangles */
    if (!scratch && !(scratch = malloc(orri_meshopt_tri_scratch_size((size_t)3 << 16, 64)))) return;
    size_t tris = (size - 17) * (1 + data[size - 1] % 4) / 4, n = tris * 3, isz = data[size / 2] & 1 ? 4 : 2;
    uint8_t *s = malloc(size), *a = calloc(n + 1, isz), *b = calloc(n + 1, isz);
    if (s && a && b) {
        memcpy(s, data, size);
        s[0] = (uint8_t)(0xe0 | (data[0] & 1));
        int ra = meshopt_decodeIndexBuffer(a, n, isz, s, size);
        orri_meshopt_tri_desc d = {.dst = b, .index_count = n, .index_size = isz, .src = s, .size = size,
                                   .threads = 2 + (uint32_t)(size % 3), .chunk_triangles = 1 + data[size / 3] % 8,
                                   .scratch = scratch, .scratch_chunks = 64};
        int rb = orri_meshopt_decode_triangles(&d);
        if (ra != rb || (ra == 0 && memcmp(a, b, n * isz) != 0)) abort();
    }
    free(s), free(a), free(b);
}

/* The bytes as an attribute stream of 4 to 64-byte vertices, as many as its size might hold, decoded
 * both ways: a version 0 header, and the input's own bytes for the groups and the tail. */
static void vertices_alike(const uint8_t *data, size_t size)
{
    if (size < 40 || size > (1u << 16)) return;
    size_t vs = 4 * (1 + (size_t)data[size / 2] % 16), n = size * (1 + data[size - 1] % 8) / vs;
    uint8_t *s = malloc(size), *a = calloc(n + 1, vs), *b = calloc(n + 1, vs);
    orri_meshopt_vtx_scratch *scratch = malloc(orri_meshopt_vtx_scratch_size(size, n, vs));
    if (s && a && b && scratch) {
        memcpy(s, data, size);
        s[0] = 0xa0;
        int ra = meshopt_decodeVertexBuffer(a, n, vs, s, size);
        orri_meshopt_vtx_desc d = {.dst = b, .vertex_count = n, .vertex_size = vs, .src = s, .size = size,
                                   .threads = 2 + (uint32_t)(size % 3), .part_blocks = 1,
                                   .walk_runs = 1 + data[size / 3] % 16, .scratch = scratch};
        int rb = orri_meshopt_decode_vertices(&d);
        if (ra != rb || (ra == 0 && memcmp(a, b, n * vs) != 0)) abort();
    }
    free(s), free(a), free(b), free(scratch);
}

/* A strip of triangles that steps where the input says (mostly by one vertex, so that most codes are
 * the cache's), meshoptimizer-encoded, one byte then changed: decoded both ways. */
static void encoded_triangles_alike(const uint8_t *data, size_t size)
{
    if (size < 8 || size > (1u << 15)) return;
    size_t tris = size, n = tris * 3;
    uint32_t *idx = malloc(n * 4), v = 0;
    size_t cap = meshopt_encodeIndexBufferBound(n, 1u << 20);
    uint8_t *enc = malloc(cap), *a = calloc(n + 1, 4), *b = calloc(n + 1, 4);
    static orri_meshopt_tri_scratch *scratch;
    if (!scratch && !(scratch = malloc(orri_meshopt_tri_scratch_size((size_t)3 << 15, 64)))) return;
    if (idx && enc && a && b) {
        for (size_t t = 0; t < tris; t++) {
            uint8_t c = data[t];
            v = c < 200 ? v + 1 : c < 250 ? v + (c & 7) : c & 15; /* a step, a jump, or back near the start */
            idx[t * 3] = v, idx[t * 3 + 1] = v + 1 + (c & 1), idx[t * 3 + 2] = v + 2 - (c & 1);
        }
        meshopt_encodeIndexVersion(data[0] & 1);
        size_t es = meshopt_encodeIndexBuffer(enc, cap, idx, n);
        meshopt_encodeIndexVersion(1);
        if (es > 1 && data[1] & 1) enc[1 + (data[2] | (size_t)data[3] << 8) % (es - 1)] ^= (uint8_t)(1u << (data[4] & 7));
        int ra = meshopt_decodeIndexBuffer(a, n, 4, enc, es);
        orri_meshopt_tri_desc d = {.dst = b, .index_count = n, .index_size = 4, .src = enc, .size = es,
                                   .threads = 2 + data[5] % 6, .chunk_triangles = 1 + data[6] % 64,
                                   .scratch = scratch, .scratch_chunks = 64};
        int rb = orri_meshopt_decode_triangles(&d);
        if (ra != rb || (ra == 0 && memcmp(a, b, n * 4) != 0)) abort();
    }
    free(idx), free(enc), free(a), free(b);
}

/* The input as vertices of 4 to 64 bytes, meshoptimizer-encoded, one byte then changed: decoded both
 * ways, with walkers and parts as small as they go. */
static void encoded_vertices_alike(const uint8_t *data, size_t size)
{
    if (size < 8 || size > (1u << 16)) return;
    size_t vs = 4 * (1 + (size_t)data[0] % 16), n = size / vs;
    size_t cap = meshopt_encodeVertexBufferBound(n, vs);
    uint8_t *enc = malloc(cap), *a = calloc(n + 1, vs), *b = calloc(n + 1, vs);
    orri_meshopt_vtx_scratch *scratch = NULL;
    if (enc && a && b) {
        size_t es = meshopt_encodeVertexBuffer(enc, cap, data, n, vs);
        scratch = malloc(orri_meshopt_vtx_scratch_size(es, n, vs));
        if (scratch && es > 1) {
            if (data[1] & 1) enc[1 + (data[2] | (size_t)data[3] << 8) % (es - 1)] ^= (uint8_t)(1u << (data[4] & 7));
            int ra = meshopt_decodeVertexBuffer(a, n, vs, enc, es);
            orri_meshopt_vtx_desc d = {.dst = b, .vertex_count = n, .vertex_size = vs, .src = enc, .size = es,
                                       .threads = 2 + data[5] % 6, .part_blocks = 1, .walk_runs = 1 + data[6] % 32,
                                       .scratch = scratch};
            int rb = orri_meshopt_decode_vertices(&d);
            if (ra != rb || (ra == 0 && memcmp(a, b, n * vs) != 0)) abort();
        }
    }
    free(enc), free(a), free(b), free(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    triangles_alike(data, size);
    vertices_alike(data, size);
    encoded_triangles_alike(data, size);
    encoded_vertices_alike(data, size);
    const char *base = fuzz_base();
    orr_assets *assets;
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK) return 0;
    orr_prefab_id prefab;
    orr_error err;
    orr_gltf_options opt = {.build_meshlets = size % 2 == 1, .max_entities = 200000, .max_decoded_bytes = 64u << 20,
                            .threads = size % 3 == 0 ? 2 : 1}; /* the decoding pool too, now and then */
    if (orr_gltf_load_memory(assets, data, size, base, "fuzz", &opt, &prefab, &err) == ORR_OK) {
        orr_world *w;
        if (orr_world_create(NULL, &w, NULL) == ORR_OK) {
            orr_entity e, first = ORR_ENTITY_NONE;
            if (orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &e) == ORR_OK) first = e;
            orr_prefab_instantiate(w, assets, prefab, e, NULL, &e);
            orr_anim_apply(w, assets, 7, 1.0 / 60.0);
            orr_world_update_transforms(w);
            orr_snapshot snap;
            orr_snapshot_init(&snap, NULL);
            orr_extractor *x = NULL;
            if (orr_extractor_create(NULL, &x, NULL) == ORR_OK && orr_extractor_update(x, w, assets, 1, 7, &snap) == ORR_OK &&
                first.generation) {
                orr_entity c;
                orr_world_clone(w, NULL, first, ORR_ENTITY_NONE, NULL, &c);
                orr_anim_apply(w, assets, 8, 1.0 / 60.0);
                orr_world_update_transforms(w);
                orr_extractor_update(x, w, assets, 2, 8, &snap);
                /* what the draw protocol trusts: every range inside its array */
                for (uint32_t i = 0; i < snap.instance_count; i++) {
                    const orr_render_instance *in = &snap.instances[i];
                    if (in->joint_count && in->joint_offset + (uint64_t)in->joint_count > snap.joint_count) abort();
                    if (in->material_count && in->material_offset + (uint64_t)in->material_count > snap.material_binding_count)
                        abort();
                    if (in->name >= snap.names_size) abort();
                }
            }
            orr_snapshot_fini(&snap);
            orr_extractor_destroy(x);
            orr_world_destroy(w);
        }
    } else if (!err.message[0]) {
        abort(); /* a refusal must say why */
    }
    orr_assets_destroy(assets);
    /* the info pass, whether the load succeeded or not (it must refuse what load refuses, never crash) */
    orri_gltf_parse_desc pd = {.data = data, .size = size, .base_dir = base};
    orri_gltf_doc *doc;
    if (orri_gltf_parse(&pd, &doc, &err) == ORR_OK) {
        uint64_t entities;
        if (orri_gltf_entity_budget(doc, 200000, &entities, &err) == ORR_OK) {
            orr_gltf_info info;
            orri_gltf_info(doc, &info);
        }
        orri_gltf_free(doc);
    }
    return 0;
}
