/* Pipelines: a VkPipelineCache that every pipeline is made through, and the mesh pipelines keyed by
 * their state: alpha (opaque, with no discard in its shader; cutout; blended, no depth writes) x
 * double-sided (the back face shades as its front), x the target's sample count, x the features its
 * batches need (ORRI_FEATURE_*: what the material shows and the primitive has, shaders/variant.glsl;
 * at most 6 keys x 24 masks per sample count, in practice a few: a scene's kinds of material and
 * mesh). A batch needing all of them draws with the full shaders, any other with the lean variant of
 * its mask, whose vertex input fetches only the attributes it reads. A pipeline is built
 * once, the first frame that draws with its key (the draw scenes note the keys they use); the cull
 * mode stays dynamic, since mirrored instances cull front faces. The fragment shader is the one of
 * the device's texture path (mesh_array.frag with the texture array, else mesh.frag). The shell path's
 * pipelines (gpu_shell.c) are the same ones with the vertex shader's SHELL constant set (instance and
 * material from the push constant) and, for fur, the fragment shader's FUR constant. The meshlet
 * strategy's (gpu_meshlet.c) have its task and mesh shaders in front of the same fragment shader, with
 * the same states (variant.meshlets). */
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_error.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern const uint32_t orri_spv_mesh_vert[];
extern const size_t orri_spv_mesh_vert_size;
extern const uint32_t orri_spv_mesh_capture_vert[];
extern const size_t orri_spv_mesh_capture_vert_size;
extern const uint32_t orri_spv_mesh_frag[];
extern const size_t orri_spv_mesh_frag_size;
extern const uint32_t orri_spv_mesh_array_frag[];
extern const size_t orri_spv_mesh_array_frag_size;
extern const uint32_t orri_spv_shadow_mask_frag[];
extern const size_t orri_spv_shadow_mask_frag_size;
extern const uint32_t orri_spv_shadow_mask_array_frag[];
extern const size_t orri_spv_shadow_mask_array_frag_size;
/* the lean variants by mask (build/shaders/mesh_variants.c) */
typedef struct orri_spv_entry {
    const uint32_t *code;
    const size_t *size;
} orri_spv_entry;
extern const orri_spv_entry orri_spv_mesh_vert_variants[ORRI_FEATURE_MASKS];
extern const orri_spv_entry orri_spv_mesh_frag_variants[ORRI_FRAGMENT_MASKS];
extern const orri_spv_entry orri_spv_mesh_array_frag_variants[ORRI_FRAGMENT_MASKS];

uint32_t orri_pipeline_key(uint32_t pass, bool double_sided)
{
    uint32_t alpha = pass == ORR_PASS_TRANSPARENT ? ORR_GPU_ALPHA_BLEND
                     : pass == ORR_PASS_CUTOUT    ? ORR_GPU_ALPHA_MASK
                                                  : ORR_GPU_ALPHA_OPAQUE;
    return alpha * 2u + (double_sided ? 1u : 0u);
}

uint32_t orri_pipeline_features(uint32_t textures, const orr_primitive *prim, bool morphed)
{
    if (!prim) return ORRI_FEATURES_ALL;
    uint32_t f = 0;
    if (textures & ((1u << ORR_GPU_TEXTURE_UV_SLOTS) - 1u)) f |= ORRI_FEATURE_TEXCOORDS;
    if (textures & (1u << ORR_GPU_TEXTURE_NORMAL)) f |= ORRI_FEATURE_TANGENTS | ORRI_FEATURE_TEXCOORDS;
    if (prim->colors) f |= ORRI_FEATURE_COLORS;
    if (prim->weights) f |= ORRI_FEATURE_SKIN; /* (zero weights: the bind pose, whatever the joints) */
    if (morphed) f |= ORRI_FEATURE_MORPH;
    return f;
}

uint32_t orri_samples_index(VkSampleCountFlagBits samples)
{
    switch (samples) {
    case VK_SAMPLE_COUNT_2_BIT: return 1;
    case VK_SAMPLE_COUNT_4_BIT: return 2;
    case VK_SAMPLE_COUNT_8_BIT: return 3;
    default: return 0;
    }
}

orr_result orri_shader_module(orr_renderer *r, const uint32_t *code, size_t size, VkShaderModule *out)
{
    VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    ORRI_VK(r, vkCreateShaderModule(r->device, &ci, NULL, out));
    return ORR_OK;
}

orr_result orri_graphics_pipeline(orr_renderer *r, const orri_graphics_desc *d, VkPipeline *out, const char *what, ...)
{
    enum { MAX_DYNAMIC = 8 };
    ORRI_ASSERT(d->stage_count >= 1 && d->stage_count <= 3, "orri_graphics_pipeline: 1 to 3 stages");
    ORRI_ASSERT(d->color_count <= ORRI_GRAPHICS_MAX_COLORS, "orri_graphics_pipeline: %u colour attachments",
                d->color_count);
    ORRI_ASSERT(d->dynamic_count <= MAX_DYNAMIC - 2, "orri_graphics_pipeline: at most 6 dynamic states");
    *out = VK_NULL_HANDLE;
    VkPipelineShaderStageCreateInfo stages[3];
    VkShaderModule made[3] = {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE}; /* those made here */
    bool mesh_shading = false;
    orr_result rc = ORR_OK;
    for (uint32_t k = 0; k < d->stage_count && rc == ORR_OK; k++) {
        const orri_graphics_stage *st = &d->stages[k];
        if (!st->module) rc = orri_shader_module(r, st->code, st->size, &made[k]);
        stages[k] = (VkPipelineShaderStageCreateInfo){.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                      .stage = st->stage,
                                                      .module = st->module ? st->module : made[k],
                                                      .pName = "main",
                                                      .pSpecializationInfo = st->spec};
        mesh_shading |= (st->stage & (VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT)) != 0;
    }
    VkVertexInputBindingDescription binding = {0, d->vertex_stride, VK_VERTEX_INPUT_RATE_VERTEX};
    VkPipelineVertexInputStateCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = d->vertex_stride ? 1u : 0u,
        .pVertexBindingDescriptions = &binding,
        .vertexAttributeDescriptionCount = d->attribute_count,
        .pVertexAttributeDescriptions = d->attributes,
    };
    VkPipelineInputAssemblyStateCreateInfo ia = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
                                                 .topology = d->topology};
    VkPipelineViewportStateCreateInfo vp = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                            .viewportCount = 1, .scissorCount = 1};
    VkDynamicState dyn[MAX_DYNAMIC] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    bool dynamic_bias = false;
    for (uint32_t k = 0; k < d->dynamic_count; k++) {
        dyn[2 + k] = d->dynamic[k];
        dynamic_bias |= d->dynamic[k] == VK_DYNAMIC_STATE_DEPTH_BIAS;
    }
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .depthClampEnable = d->depth_clamp ? VK_TRUE : VK_FALSE,
        .polygonMode = d->lines ? VK_POLYGON_MODE_LINE : VK_POLYGON_MODE_FILL,
        .cullMode = d->cull,
        .frontFace = d->front_face,
        .depthBiasEnable = dynamic_bias || d->depth_bias_constant != 0.0f || d->depth_bias_slope != 0.0f,
        .depthBiasConstantFactor = d->depth_bias_constant,
        .depthBiasSlopeFactor = d->depth_bias_slope,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                               .rasterizationSamples = d->samples ? d->samples : VK_SAMPLE_COUNT_1_BIT};
    VkPipelineDepthStencilStateCreateInfo ds = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
                                                .depthTestEnable = d->depth_test ? VK_TRUE : VK_FALSE,
                                                .depthWriteEnable = d->depth_write ? VK_TRUE : VK_FALSE,
                                                .depthCompareOp = d->depth_compare};
    VkPipelineColorBlendAttachmentState att[ORRI_GRAPHICS_MAX_COLORS];
    for (uint32_t k = 0; k < d->color_count; k++) {
        bool add = d->blend[k] == ORRI_BLEND_ADD;
        att[k] = (VkPipelineColorBlendAttachmentState){
            .blendEnable = d->blend[k] != ORRI_BLEND_NONE,
            .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
            .dstColorBlendFactor = add ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
            .colorBlendOp = VK_BLEND_OP_ADD,
            .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
            .dstAlphaBlendFactor = add ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
            .alphaBlendOp = VK_BLEND_OP_ADD,
            .colorWriteMask = 0xf,
        };
    }
    VkPipelineColorBlendStateCreateInfo cb = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                              .attachmentCount = d->color_count, .pAttachments = att};
    VkPipelineDynamicStateCreateInfo dy = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                           .dynamicStateCount = 2 + d->dynamic_count, .pDynamicStates = dyn};
    VkPipelineRenderingCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                        .colorAttachmentCount = d->color_count,
                                        .pColorAttachmentFormats = d->color_formats,
                                        .depthAttachmentFormat = d->depth_format};
    VkGraphicsPipelineCreateInfo gi = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &ri,
        .stageCount = d->stage_count,
        .pStages = stages,
        .pVertexInputState = mesh_shading ? NULL : &vi, /* mesh shading reads no vertex input */
        .pInputAssemblyState = mesh_shading ? NULL : &ia,
        .pViewportState = &vp,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = &ds,
        .pColorBlendState = &cb,
        .pDynamicState = &dy,
        .layout = d->layout,
    };
    VkResult res = rc == ORR_OK ? vkCreateGraphicsPipelines(r->device, r->pipeline_cache, 1, &gi, NULL, out)
                                : VK_SUCCESS;
    for (uint32_t k = 0; k < d->stage_count; k++)
        if (made[k]) vkDestroyShaderModule(r->device, made[k], NULL);
    if (rc != ORR_OK) return rc;
    if (res != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        char name[128];
        va_list ap;
        va_start(ap, what);
        vsnprintf(name, sizeof name, what, ap);
        va_end(ap);
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "%s: vkCreateGraphicsPipelines failed: %s", name,
                             orri_vk_result_name(res));
    }
    r->objects_epoch++;
    return ORR_OK;
}

orr_result orri_compute_pipelines(orr_renderer *r, const uint32_t *code, size_t size, VkPipelineLayout layout,
                                  const uint32_t *stages, uint32_t count, const char *what, VkPipeline *out)
{
    enum { MAX = 8 };
    ORRI_ASSERT(count >= 1 && count <= MAX && (stages || count == 1), "orri_compute_pipelines: 1..8 stages");
    VkShaderModule module;
    ORRI_TRY(orri_shader_module(r, code, size, &module));
    VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec[MAX];
    VkComputePipelineCreateInfo ci[MAX];
    for (uint32_t k = 0; k < count; k++) {
        spec[k] = (VkSpecializationInfo){1, &entry, sizeof(uint32_t), stages ? &stages[k] : NULL};
        ci[k] = (VkComputePipelineCreateInfo){
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                      .module = module, .pName = "main", .pSpecializationInfo = stages ? &spec[k] : NULL},
            .layout = layout,
        };
    }
    VkResult res = vkCreateComputePipelines(r->device, r->pipeline_cache, count, ci, NULL, out);
    vkDestroyShaderModule(r->device, module, NULL);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateComputePipelines (%s) failed: %s", what, orri_vk_result_name(res));
    return ORR_OK;
}

orr_result orri_pipelines_init(orr_renderer *r)
{
    VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    ORRI_VK(r, vkCreatePipelineCache(r->device, &ci, NULL, &r->pipeline_cache));
    if (r->vertex_capture) /* the test mode: the same shading, and each vertex written to the capture buffer */
        ORRI_TRY(orri_shader_module(r, orri_spv_mesh_capture_vert, orri_spv_mesh_capture_vert_size, &r->mesh_vs));
    else ORRI_TRY(orri_shader_module(r, orri_spv_mesh_vert, orri_spv_mesh_vert_size, &r->mesh_vs));
    if (r->textures.array) ORRI_TRY(orri_shader_module(r, orri_spv_mesh_array_frag, orri_spv_mesh_array_frag_size, &r->mesh_fs));
    else ORRI_TRY(orri_shader_module(r, orri_spv_mesh_frag, orri_spv_mesh_frag_size, &r->mesh_fs));
    return ORR_OK;
}

/* shade.glsl's specialization constants 0, 1, 3 and 2 (the last only with the texture array) */
typedef struct fragment_constants {
    uint32_t alpha;
    VkBool32 double_sided;
    VkBool32 fur;
    uint32_t texture_slots;
} fragment_constants;

/* The lean shader modules of `features`, made when first asked for. */
static orr_result lean_modules(orr_renderer *r, uint32_t features, VkShaderModule *vs, VkShaderModule *fs)
{
    uint32_t fragment = features & (ORRI_FRAGMENT_MASKS - 1u);
    const orri_spv_entry *v = &orri_spv_mesh_vert_variants[features];
    const orri_spv_entry *f = r->textures.array ? &orri_spv_mesh_array_frag_variants[fragment]
                                                : &orri_spv_mesh_frag_variants[fragment];
    ORRI_ASSERT(v->code && f->code, "lean mesh shaders: no variant of features %u", features);
    if (!r->lean_vs[features]) ORRI_TRY(orri_shader_module(r, v->code, *v->size, &r->lean_vs[features]));
    if (!r->lean_fs[fragment]) ORRI_TRY(orri_shader_module(r, f->code, *f->size, &r->lean_fs[fragment]));
    *vs = r->lean_vs[features];
    *fs = r->lean_fs[fragment];
    return ORR_OK;
}

uint32_t orri_vertex_attributes(uint32_t locations, VkVertexInputAttributeDescription *out)
{
    static const VkVertexInputAttributeDescription all[ORRI_VERTEX_LOCATIONS] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, ORRI_VERTEX_POSITION},
        {1, 0, VK_FORMAT_R32G32B32_SFLOAT, ORRI_VERTEX_NORMAL},
        {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, ORRI_VERTEX_TANGENT},
        {3, 0, VK_FORMAT_R32G32_SFLOAT, ORRI_VERTEX_UV0},
        {4, 0, VK_FORMAT_R32G32_SFLOAT, ORRI_VERTEX_UV1},
        {5, 0, VK_FORMAT_R32G32B32A32_SFLOAT, ORRI_VERTEX_COLOR},
        {6, 0, VK_FORMAT_R32G32B32A32_SFLOAT, ORRI_VERTEX_WEIGHTS},
        {7, 0, VK_FORMAT_R16G16B16A16_UINT, ORRI_VERTEX_JOINTS},
        {8, 0, VK_FORMAT_R32_UINT, ORRI_VERTEX_MORPH},
    };
    uint32_t n = 0;
    for (uint32_t k = 0; k < ORRI_VERTEX_LOCATIONS; k++)
        if (locations & (1u << k)) out[n++] = all[k];
    return n;
}

/* The locations of the pool vertex's attributes a vertex shader of `features` reads. */
static uint32_t feature_locations(uint32_t features)
{
    uint32_t l = 0x3u; /* position, normal */
    if (features & ORRI_FEATURE_TANGENTS) l |= 1u << 2;
    if (features & ORRI_FEATURE_TEXCOORDS) l |= 3u << 3;
    if (features & ORRI_FEATURE_COLORS) l |= 1u << 5;
    if (features & ORRI_FEATURE_SKIN) l |= 3u << 6;
    if (features & ORRI_FEATURE_MORPH) l |= 1u << 8;
    return l;
}

orr_result orri_pipeline_create(orr_renderer *r, uint32_t key, VkSampleCountFlagBits samples, orri_pipeline_variant variant,
                                VkPipeline *out)
{
    uint32_t alpha = key / 2u;
    VkBool32 double_sided = (key & 1u) ? VK_TRUE : VK_FALSE;
    bool blend = alpha == ORR_GPU_ALPHA_BLEND;
    fragment_constants spec_data = {alpha, double_sided, variant.fur ? VK_TRUE : VK_FALSE, r->textures.slots};
    VkSpecializationMapEntry entries[4] = {
        {0, offsetof(fragment_constants, alpha), sizeof(uint32_t)},
        {1, offsetof(fragment_constants, double_sided), sizeof(VkBool32)},
        {3, offsetof(fragment_constants, fur), sizeof(VkBool32)},
        {2, offsetof(fragment_constants, texture_slots), sizeof(uint32_t)},
    };
    VkSpecializationInfo spec = {r->textures.array ? 4u : 3u, entries, sizeof spec_data, &spec_data};
    VkBool32 shell = variant.shell ? VK_TRUE : VK_FALSE; /* mesh.vert's constant 0 */
    VkSpecializationMapEntry vertex_entry = {0, 0, sizeof(VkBool32)};
    VkSpecializationInfo vertex_spec = {1, &vertex_entry, sizeof shell, &shell};
    ORRI_ASSERT(!variant.lean || !(variant.shell || variant.fur || variant.meshlets),
                "orri_pipeline_create: the lean shaders have no shell path and no mesh shader");
    bool lean = variant.lean && variant.features != ORRI_FEATURES_ALL;
    uint32_t features = variant.lean ? variant.features : ORRI_FEATURES_ALL;
    VkShaderModule vs = r->mesh_vs, fs = r->mesh_fs;
    if (lean) ORRI_TRY(lean_modules(r, features, &vs, &fs));
    VkVertexInputAttributeDescription attrs[ORRI_VERTEX_LOCATIONS];
    VkFormat color = ORRI_COLOR_FORMAT;
    VkDynamicState cull = VK_DYNAMIC_STATE_CULL_MODE; /* set per batch: mirrored instances cull front faces */
    /* glTF front faces are counter-clockwise; the projection's y flip keeps the image upright, so the
     * winding seen in framebuffer space is unchanged and CCW stays front. */
    orri_graphics_desc desc = {
        .stages = {{.stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs, .spec = lean ? NULL : &vertex_spec},
                   {.stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fs, .spec = &spec}},
        .stage_count = variant.depth_only ? 1 : 2,
        .layout = variant.meshlets ? r->meshlets.graphics_layout : r->pipeline_layout,
        .vertex_stride = ORRI_VERTEX_BYTES,
        .attributes = attrs,
        .attribute_count = orri_vertex_attributes(feature_locations(features), attrs),
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
        .color_formats = &color,
        .color_count = variant.depth_only ? 0u : 1u,
        .depth_format = ORRI_DEPTH_FORMAT,
        .samples = samples,
        .depth_test = true,
        .depth_write = !blend,
        .depth_compare = VK_COMPARE_OP_GREATER_OR_EQUAL, /* reversed Z */
        .blend = {blend ? ORRI_BLEND_OVER : ORRI_BLEND_NONE},
        .cull = double_sided ? VK_CULL_MODE_NONE : VK_CULL_MODE_BACK_BIT,
        .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .depth_clamp = variant.depth_only && r->shadows.depth_clamp,
        .dynamic = &cull,
        .dynamic_count = 1,
    };
    ORRI_ASSERT(!variant.shadow_mask || (variant.depth_only && !variant.meshlets),
                "orri_pipeline_create: the shadow mask is a depth-only vertex pipeline's");
    if (variant.shadow_mask) { /* the cut-out casters: their fragments cut as the cut-out pass cuts them */
        desc.stages[1] = (orri_graphics_stage){
            .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
            .code = r->textures.array ? orri_spv_shadow_mask_array_frag : orri_spv_shadow_mask_frag,
            .size = r->textures.array ? orri_spv_shadow_mask_array_frag_size : orri_spv_shadow_mask_frag_size,
            .spec = &spec};
        desc.stage_count = 2;
    }
    if (variant.meshlets) { /* the meshlet strategy's task and mesh shaders in front of the same fragment shader */
        desc.stages[2] = desc.stages[1];
        desc.stages[0] = (orri_graphics_stage){.stage = VK_SHADER_STAGE_TASK_BIT_EXT, .module = r->meshlets.task};
        desc.stages[1] = (orri_graphics_stage){.stage = VK_SHADER_STAGE_MESH_BIT_EXT, .module = r->meshlets.mesh};
        desc.stage_count = 3;
    }
    const char *what = variant.shadow_mask ? "shadow mask"
                       : variant.depth_only ? "shadow"
                       : variant.meshlets ? "meshlets"
                       : variant.fur      ? "fur"
                       : variant.shell    ? "shell"
                                          : "mesh";
    ORRI_TRY(orri_graphics_pipeline(r, &desc, out, "%s pipeline (key %u, features %u, %u samples)", what, key, features,
                                    (unsigned)samples));
    r->pipeline_count++;
    return ORR_OK;
}

orr_result orri_pipelines_ensure(orr_renderer *r, const orri_batch_state *states, uint32_t count,
                                 VkSampleCountFlagBits samples)
{
    uint32_t s = orri_samples_index(samples);
    for (uint32_t b = 0; b < count; b++) {
        VkPipeline *p = &r->pipelines[s][states[b].pipeline][states[b].features];
        if (!*p)
            ORRI_TRY(orri_pipeline_create(r, states[b].pipeline, samples,
                                          (orri_pipeline_variant){.lean = true, .features = states[b].features}, p));
    }
    return ORR_OK;
}

VkPipeline orri_pipeline_get(const orr_renderer *r, uint32_t key, uint32_t features, VkSampleCountFlagBits samples)
{
    return r->pipelines[orri_samples_index(samples)][key][features];
}

void orri_pipelines_fini(orr_renderer *r)
{
    for (uint32_t s = 0; s < ORRI_SAMPLE_COUNTS; s++)
        for (uint32_t k = 0; k < ORRI_PIPELINE_KEYS; k++)
            for (uint32_t m = 0; m < ORRI_FEATURE_MASKS; m++)
                if (r->pipelines[s][k][m]) vkDestroyPipeline(r->device, r->pipelines[s][k][m], NULL);
    for (uint32_t m = 0; m < ORRI_FEATURE_MASKS; m++)
        if (r->lean_vs[m]) vkDestroyShaderModule(r->device, r->lean_vs[m], NULL);
    for (uint32_t m = 0; m < ORRI_FRAGMENT_MASKS; m++)
        if (r->lean_fs[m]) vkDestroyShaderModule(r->device, r->lean_fs[m], NULL);
    memset(r->lean_vs, 0, sizeof r->lean_vs);
    memset(r->lean_fs, 0, sizeof r->lean_fs);
    if (r->mesh_vs) vkDestroyShaderModule(r->device, r->mesh_vs, NULL);
    if (r->mesh_fs) vkDestroyShaderModule(r->device, r->mesh_fs, NULL);
    if (r->pipeline_cache) vkDestroyPipelineCache(r->device, r->pipeline_cache, NULL);
    memset(r->pipelines, 0, sizeof r->pipelines);
    r->mesh_vs = r->mesh_fs = VK_NULL_HANDLE;
    r->pipeline_cache = VK_NULL_HANDLE;
}
