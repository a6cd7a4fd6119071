/* libFuzzer target for the glTF loader: any bytes, as .gltf JSON or .glb, must load or be refused
 * with a message; never crash, hang, read out of bounds or leak. Loads, then instantiates the prefab
 * into a live world and runs the info pass on the same bytes.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DORRERY_FUZZ=ON && cmake --build build-fuzz --target fuzz_gltf
 * Seeds: tests/fuzz/make_corpus.py OUT_DIR (made from the sample models at run time, never committed).
 * Run: nice -n 19 build-fuzz/fuzz_gltf -dict=tests/fuzz/gltf.dict CORPUS_DIR SEED_DIR
 * External URIs resolve against $FUZZ_GLTF_BASE when set, else they are refused. */
#include "../../src/scene/gltf_internal.h"

#include <orrery/scene.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *base = getenv("FUZZ_GLTF_BASE");
    orr_assets *assets;
    if (orr_assets_create(NULL, &assets) != ORR_OK) return 0;
    orr_prefab_id prefab;
    orr_error err;
    orr_gltf_options opt = {.build_meshlets = size % 2 == 1, .max_entities = 200000};
    if (orr_gltf_load_memory(assets, data, size, base, "fuzz", &opt, &prefab, &err) == ORR_OK) {
        orr_world *w;
        if (orr_world_create(NULL, &w) == ORR_OK) {
            orr_entity e;
            orr_prefab_instantiate(w, assets, prefab, ORR_ENTITY_NONE, NULL, &e);
            orr_prefab_instantiate(w, assets, prefab, e, NULL, &e);
            orr_world_update_transforms(w);
            orr_world_destroy(w);
        }
        orri_gltf_parse_desc pd = {.data = data, .size = size, .base_dir = base};
        orri_gltf_doc *doc;
        if (orri_gltf_parse(&pd, &doc, &err) == ORR_OK) {
            orr_gltf_info info;
            orri_gltf_info(doc, &info);
            orri_gltf_free(doc);
        }
    } else if (!err.message[0]) {
        abort(); /* a refusal must say why */
    }
    orr_assets_destroy(assets);
    return 0;
}
