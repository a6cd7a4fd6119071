/* The groups of test_scene; main() in test_scene_main.c runs them all. */
#ifndef ORRT_SCENE_TESTS_H
#define ORRT_SCENE_TESTS_H

#include "testutil.h"

#include <orrery/scene.h>

int orrt_scene_samples(void);  /* the shared sample corpus (skips when absent) */
int orrt_scene_fixtures(void); /* fixtures written by the tests themselves */
int orrt_scene_regress(void);  /* inputs the fuzzer found, kept in tests/scene/regress */
int orrt_scene_hostile(void);  /* hostile files written at run time: bounded time and memory */
int orrt_scene_files(void);    /* external files: symlinks kept inside the folder, require_files */
int orrt_scene_compressed(void); /* compressed geometry and textures, parallel decoding, header checks */
int orrt_scene_compressed_samples(void); /* the same on the sample models of gltf-ext and gltf */
int orrt_scene_meshopt(void);    /* the parallel triangle decoder against meshoptimizer's */
int orrt_scene_meshopt_vertices(void); /* the parallel attribute decoder against meshoptimizer's */
int orrt_scene_bounds(void);     /* orr_scene_bounds on worlds built by hand and on a loaded prefab */
int orrt_scene_progress(void);   /* orr_gltf_options.progress: the phases of a load */
int orrt_scene_robust(void);     /* files changing under a load, amplification, strings (issue 31) */
int orrt_scene_lod(void);        /* MSFT_lod on the Box sample's geometry: levels merged, or fallen back */

/* Loads from memory into `assets`; returns the result, message in err. */
orr_result orrt_load_text(orr_assets *assets, const char *json, const char *key, orr_prefab_id *out, orr_error *err);
/* Entities of the prefab world carrying a component type. */
uint32_t orrt_count_components(const orr_world *w, orr_component_type type);


#endif
