#include "scene_tests.h"

#include <string.h>

orr_result orrt_load_text(orr_assets *assets, const char *json, const char *key, orr_prefab_id *out, orr_error *err)
{
    return orr_gltf_load_memory(assets, json, strlen(json), "/tmp", key, NULL, out, err);
}

uint32_t orrt_count_components(const orr_world *w, orr_component_type type)
{
    uint32_t n = 0;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);)
        if (orr_component_has(w, e, type)) n++;
    orr_subtree_end(&it);
    return n;
}

/* Groups: "own" (fixtures, regressions, hostile files, external files: they need nothing outside the
 * repository) and "samples" (the shared sample corpus); CTest runs them as the entries scene and
 * scene_samples. */
int main(void)
{
    int failed = 0;
    if (orrt_group_selected("own")) {
        failed += orrt_scene_fixtures();
        failed += orrt_scene_regress();
        failed += orrt_scene_hostile();
        failed += orrt_scene_files();
        failed += orrt_scene_compressed();
        failed += orrt_scene_meshopt();
        failed += orrt_scene_meshopt_vertices();
        failed += orrt_scene_bounds();
        failed += orrt_scene_progress();
        failed += orrt_scene_robust();
    }
    if (orrt_group_selected("samples")) {
        failed += orrt_scene_samples();
        failed += orrt_scene_compressed_samples();
        failed += orrt_scene_lod();
    }
    return orrt_exit_status(failed);
}
