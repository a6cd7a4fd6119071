/* Pipelines (gpu_pipeline.c): the cache every pipeline is made through, shader modules, compute
 * pipelines, and the mesh pipelines keyed by their state. */
#ifndef ORRERY_GPU_PIPELINE_H
#define ORRERY_GPU_PIPELINE_H

#include "gpu/gpu_state.h"

/* The key of a batch of pass `pass` (orr_pass) whose material is (or is not) double-sided. */
uint32_t orri_pipeline_key(uint32_t pass, bool double_sided);
/* The features (ORRI_FEATURE_*) a batch's pipeline must carry: its material's record shows `textures`
 * (orr_gpu_material.textures, the resident ones), its primitive `prim` (NULL: unknown, all of them) has
 * what it has, `morphed`: its pool vertices name a morph header. Every feature left out is one the
 * full shaders would have computed to no effect for that batch, so the images are the same bytes. */
uint32_t orri_pipeline_features(uint32_t textures, const orr_primitive *prim, bool morphed);
/* Which mesh pipeline of a key: the record path (mesh pipelines), or the shell path (push constant,
 * gl_InstanceIndex the shell index), with fur's thinning or without. */
typedef struct orri_pipeline_variant {
    bool lean;         /* the lean shaders of `features` (the record path only); false: the full ones */
    uint32_t features;
    bool shell;
    bool fur;
    bool meshlets; /* the meshlet strategy's task and mesh shaders (its layout) instead of the vertex shader */
    bool depth_only; /* shadow views: the full vertex shader, no fragment stage nor colour, depth clamped
                        where the device can (renderer.shadows.depth_clamp) */
} orri_pipeline_variant;
orr_result orri_pipeline_create(orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, orri_pipeline_variant variant,
                                VkPipeline *out);
uint32_t orri_samples_index(VkSampleCountFlagBits samples); /* 1, 2, 4, 8 -> 0..3 */
orr_result orri_shader_module(orr_renderer *r, const uint32_t *code, size_t size, VkShaderModule *out);
/* `count` compute pipelines of one SPIR-V module with `layout`, pipeline k with specialization constant 0
 * = stages[k] (stages NULL: one pipeline, no specialization); the module is not kept. */
orr_result orri_compute_pipelines(orr_renderer *r, const uint32_t *code, size_t size, VkPipelineLayout layout,
                                  const uint32_t *stages, uint32_t count, const char *what, VkPipeline *out);
/* The cache and shader modules (after the layouts and the texture path are known). */
orr_result orri_pipelines_init(orr_renderer *r);
/* Builds the pipelines that the batch states states[0 .. count) draw with at `samples` and that do not
 * exist yet. */
orr_result orri_pipelines_ensure(orr_renderer *r, const orri_batch_state *states, uint32_t count,
                                 VkSampleCountFlagBits samples);
VkPipeline orri_pipeline_get(const orr_renderer *r, uint32_t key, uint32_t features, VkSampleCountFlagBits samples);
void orri_pipelines_fini(orr_renderer *r);
#endif
