/* Pipelines (gpu_pipeline.c): the cache every pipeline is made through, shader modules, compute
 * pipelines, and the mesh pipelines keyed by their state. */
#ifndef ORRERY_GPU_PIPELINE_H
#define ORRERY_GPU_PIPELINE_H

#include "gpu/gpu_state.h"

/* One shader stage of a graphics pipeline: a module the caller keeps, or SPIR-V (`code`, `size` bytes)
 * that orri_graphics_pipeline makes into a module for the call and destroys after it. */
typedef struct orri_graphics_stage {
    VkShaderStageFlagBits stage;
    VkShaderModule module;            /* VK_NULL_HANDLE: made from code */
    const uint32_t *code;
    size_t size;
    const VkSpecializationInfo *spec; /* NULL: none; stays the caller's */
} orri_graphics_stage;

/* How a colour attachment takes a fragment: written whole, blended over by the source's alpha, or
 * added to (scaled by the source's alpha; the alpha channel summed). */
typedef enum orri_blend { ORRI_BLEND_NONE, ORRI_BLEND_OVER, ORRI_BLEND_ADD } orri_blend;
#define ORRI_GRAPHICS_MAX_COLORS 4 /* colour attachments of one pipeline (ORR_TECHNIQUE_MAX_WRITES) */

/* A graphics pipeline drawn with dynamic rendering, one viewport and one scissor (both dynamic). Zero
 * is each field's default: no vertex input, triangle lists, one sample, no colour and no depth
 * attachment, no depth test nor write, colour written whole without blending, no culling,
 * counter-clockwise front faces, filled polygons, no depth clamp nor bias, no dynamic state beyond viewport and
 * scissor. A task or mesh stage leaves out the vertex input and input assembly. Every pointer is
 * the caller's and is read only during the call. */
typedef struct orri_graphics_desc {
    orri_graphics_stage stages[3];
    uint32_t stage_count;
    VkPipelineLayout layout;
    uint32_t vertex_stride;                                /* bytes of the one binding (0): 0, no binding */
    const VkVertexInputAttributeDescription *attributes;   /* attribute_count of them, of binding 0 */
    uint32_t attribute_count;
    VkPrimitiveTopology topology;
    const VkFormat *color_formats;                         /* color_count of them */
    uint32_t color_count;
    VkFormat depth_format;                                 /* VK_FORMAT_UNDEFINED: no depth attachment */
    VkSampleCountFlagBits samples;                         /* 0: one */
    bool depth_test;
    bool depth_write;
    VkCompareOp depth_compare;
    orri_blend blend[ORRI_GRAPHICS_MAX_COLORS];            /* of each colour attachment */
    VkCullModeFlags cull;
    VkFrontFace front_face;
    bool depth_clamp;
    bool lines;                                            /* polygons drawn as their edges (fillModeNonSolid) */
    float depth_bias_constant, depth_bias_slope;           /* both 0: no bias (unless dynamic) */
    const VkDynamicState *dynamic;                         /* dynamic_count of them, beyond viewport and scissor */
    uint32_t dynamic_count;
} orri_graphics_desc;

#define ORRI_VERTEX_LOCATIONS 9 /* the pool vertex's attributes, at shader locations 0 to 8 (scene.glsl) */
/* The pool vertex's attributes (binding 0) at the shader locations set in `locations` (bit k:
 * location k), in location order, into out[0 .. the count returned); out holds ORRI_VERTEX_LOCATIONS. */
uint32_t orri_vertex_attributes(uint32_t locations, VkVertexInputAttributeDescription *out);

/* Makes the pipeline `d` describes through the renderer's cache into *out and moves objects_epoch.
 * On failure *out is VK_NULL_HANDLE and the renderer's error reads "<what>: vkCreateGraphicsPipelines
 * failed: <VkResult>" (or names the shader module that could not be made); `what` is a printf format. */
orr_result orri_graphics_pipeline(orr_renderer *r, const orri_graphics_desc *d, VkPipeline *out, const char *what, ...)
    ORRI_PRINTF(4, 5);

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
    bool shadow_mask; /* with depth_only: the cut-out casters' fragment stage (shaders/shadow_mask.glsl) */
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
