/* The technique build room: a technique's shaders compiled (GLSL) or copied (SPIR-V), reflected and
 * checked against its desc, and its layouts and pipeline made, for each kind (full-screen, scene,
 * compute); the shaders and sampler every list shares. */
#ifndef ORRERY_GPU_TECHNIQUE_BUILD_H
#define ORRERY_GPU_TECHNIQUE_BUILD_H

#include "gpu/gpu_state.h"

#include <orrery/technique.h>

typedef struct orri_tech orri_tech;
typedef struct orri_tech_res orri_tech_res;

/* The renderer's technique state (renderer.techniques) and what every list shares: the full-screen and
 * the scene vertex shaders, the sampler of reads. */
orr_result orri_technique_shared(orr_renderer *r);
/* Technique `t` (its writes resolved into `res`) built from `d`: its shaders checked, its layouts (kept
 * when t has them: a reload) and a new pipeline into t->pipeline. spirv[k] receives the SPIR-V of its
 * stage in slot k (ORRI_TECH_STAGES of each; ORRI_TECH_VERTEX: the host's vertex or mesh shader, NULL for the library's;
 * ORRI_TECH_FRAGMENT: fragment or compute, NULL for none; ORRI_TECH_TASK), words[k] their sizes; the
 * caller's, on failure too. */
orr_result orri_technique_build(orr_renderer *r, const orri_tech_res *res, const orr_technique_desc *d, orri_tech *t,
                                uint32_t **spirv, size_t *words);

#endif /* ORRERY_GPU_TECHNIQUE_BUILD_H */
