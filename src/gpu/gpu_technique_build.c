/* The technique build room (gpu_technique_build.h): shaders checked, layouts and pipelines made. */
#include "gpu/gpu_technique_build.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_pipeline.h"
#include "gpu/gpu_shader.h"
#include "gpu/gpu_technique_graph.h"
#include "gpu/gpu_technique_mesh.h"

#include <stdio.h>
#include <string.h>

extern const uint32_t orri_spv_technique_fullscreen_vert[];
extern const size_t orri_spv_technique_fullscreen_vert_size;
extern const uint32_t orri_spv_technique_scene_vert[];
extern const size_t orri_spv_technique_scene_vert_size;

/* ---- shaders and pipelines --------------------------------------------------------------------- */

static const char *ordinal_io(uint32_t n, char *buf, size_t size)
{
    snprintf(buf, size, "%u", n);
    return buf;
}

/* The shader's SPIR-V (compiled when GLSL) checked against the desc. *words is the caller's. */
static orr_result shader_for(orr_renderer *r, const orr_technique_desc *d, uint32_t **words, size_t *word_count)
{
    const char *n = d->name;
    char msg[sizeof r->error.message - 64];
    const char *sname = d->fragment.name ? d->fragment.name : n;
    if (d->fragment.glsl) {
        if (!orri_shader_compile(&r->allocator, ORRI_SHADER_FRAGMENT, d->fragment.glsl, sname, NULL, words, word_count,
                                 msg, sizeof msg))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': GLSL does not compile: %s", n,
                                         msg);
    } else {
        *word_count = d->fragment.spirv_size / 4;
        *words = orri_alloc(&r->allocator, d->fragment.spirv_size);
        if (!*words) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "technique '%s': out of memory", n);
        memcpy(*words, d->fragment.spirv, d->fragment.spirv_size);
    }
    orri_shader_io io;
    if (!orri_shader_reflect(*words, *word_count, &io, msg, sizeof msg))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s", n, msg);
    if (!io.has_main || io.stage != ORRI_SHADER_FRAGMENT)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': %s has no fragment entry point 'main'", n, sname);
    char a[16];
    if (io.other_count)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s declares '%s' (set %u, binding %u), which a full-screen technique does not "
                      "provide (only its reads, as sampler2D at set 0)",
                      n, sname, io.other[0].name, io.other[0].set, io.other[0].binding);
    for (uint32_t s = 0; s < io.sampled_count; s++) {
        const orri_shader_slot *sl = &io.sampled[s];
        if (sl->set != 0 || sl->binding >= d->read_count)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s samples '%s' at set %u, binding %u, but declares %u reads (set 0, "
                          "bindings 0 to %d)",
                          n, sname, sl->name, sl->set, sl->binding, d->read_count, (int)d->read_count - 1);
        if (!sl->sampled_2d)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (binding %u, read '%s') as another kind than sampler2D", n,
                          sname, sl->name, sl->binding, d->reads[sl->binding]);
    }
    for (uint32_t k = 0; k < d->read_count; k++) {
        uint32_t found = 0;
        for (uint32_t s = 0; s < io.sampled_count; s++) found += io.sampled[s].set == 0 && io.sampled[s].binding == k;
        if (found != 1)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s %s set 0, binding %u (read '%s')", n, sname,
                          found ? "binds more than one sampler at" : "does not sample", k, d->reads[k]);
    }
    for (uint32_t o = 0; o < io.output_count; o++) {
        const orri_shader_slot *sl = &io.outputs[o];
        if (sl->location >= d->write_count)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' at location %s, but declares %u writes (locations 0 to %d)",
                          n, sname, sl->name, ordinal_io(sl->location, a, sizeof a), d->write_count,
                          (int)d->write_count - 1);
        if (!sl->is_float)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' (location %u) with integer components; the attachment "
                          "'%s' takes floats",
                          n, sname, sl->name, sl->location, d->writes[sl->location].name);
    }
    for (uint32_t w = 0; w < d->write_count; w++) {
        uint32_t found = 0;
        for (uint32_t o = 0; o < io.output_count; o++) found += io.outputs[o].location == w;
        if (!found)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s has no output at location %u (write '%s')", n, sname, w,
                          d->writes[w].name);
    }
    for (uint32_t k = 0; k < io.input_count; k++) {
        const orri_shader_slot *sl = &io.inputs[k];
        if (sl->location != 0 || sl->components > 2 || !sl->is_float)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s takes input '%s' at location %u; the full-screen vertex shader passes "
                          "only uv (location 0, vec2)",
                          n, sname, sl->name, sl->location);
    }
    if (io.push_size != d->push_constant_size)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s has a push constant block of %u bytes, the technique declares %u", n, sname,
                      io.push_size, d->push_constant_size);
    return ORR_OK;
}

orr_result orri_technique_shared(orr_renderer *r)
{
    orri_techniques *ts = r->techniques;
    if (!ts) {
        ts = orri_alloc(&r->allocator, sizeof *ts);
        if (!ts) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
        orr_handle_pool_init(&ts->ids, &r->allocator, 0);
        r->techniques = ts;
    }
    if (!ts->vertex)
        ORRI_TRY(orri_shader_module(r, orri_spv_technique_fullscreen_vert, orri_spv_technique_fullscreen_vert_size,
                                    &ts->vertex));
    if (!ts->scene_vertex)
        ORRI_TRY(orri_shader_module(r, orri_spv_technique_scene_vert, orri_spv_technique_scene_vert_size,
                                    &ts->scene_vertex));
    if (!ts->sampler) {
        VkSamplerCreateInfo si = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            .magFilter = VK_FILTER_NEAREST,
            .minFilter = VK_FILTER_NEAREST,
            .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
            .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        };
        ORRI_VK(r, vkCreateSampler(r->device, &si, NULL, &ts->sampler));
    }
    return ORR_OK;
}

/* The technique's layouts and pipeline, from its checked SPIR-V. */
static orr_result build_pipeline(orr_renderer *r, const orri_tech_res *res, const orr_technique_desc *d, orri_tech *t,
                                 const uint32_t *words, size_t word_count)
{
    orri_techniques *ts = r->techniques;
    if (d->read_count && !t->set_layout) { /* a reload keeps the layouts: same reads, same host data */
        VkDescriptorSetLayoutBinding b[ORR_TECHNIQUE_MAX_READS];
        for (uint32_t k = 0; k < d->read_count; k++)
            b[k] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                                  VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = d->read_count, .pBindings = b};
        ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &t->set_layout));
    }
    VkPushConstantRange range = {VK_SHADER_STAGE_FRAGMENT_BIT, 0, d->push_constant_size};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = d->read_count ? 1 : 0,
        .pSetLayouts = &t->set_layout,
        .pushConstantRangeCount = d->push_constant_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    if (!t->layout) ORRI_VK(r, vkCreatePipelineLayout(r->device, &pli, NULL, &t->layout));
    VkFormat color_formats[ORR_TECHNIQUE_MAX_WRITES];
    orri_graphics_desc desc = {
        .stages = {{.stage = VK_SHADER_STAGE_VERTEX_BIT, .module = ts->vertex},
                   {.stage = VK_SHADER_STAGE_FRAGMENT_BIT, .code = words, .size = word_count * 4}},
        .stage_count = 2,
        .layout = t->layout,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
        .color_formats = color_formats,
        .color_count = d->write_count,
    };
    for (uint32_t w = 0; w < d->write_count; w++) color_formats[w] = res[t->writes[w]].vk_format;
    return orri_graphics_pipeline(r, &desc, &t->pipeline, "orr_renderer_set_techniques: technique '%s'", d->name);
}

/* ---- scene techniques ------------------------------------------------------------------------- */

/* One stage's SPIR-V (compiled when GLSL, with the device's texture path defined), reflected. *words
 * is the caller's. */
static orr_result stage_spirv(orr_renderer *r, const orr_technique_desc *d, const orr_shader_desc *sh,
                              orri_shader_stage stage, uint32_t **words, size_t *word_count, orri_shader_io *io)
{
    const char *n = d->name;
    static const char *const whats[] = {"vertex", "fragment", "compute", "task", "mesh"};
    const char *what = whats[stage];
    const char *sname = sh->name ? sh->name : n;
    char msg[sizeof r->error.message - 64];
    if (sh->glsl) {
        const char *pre = r->textures.array ? "#define ORR_SCENE_TEXTURE_ARRAY 1\n" : NULL;
        if (!orri_shader_compile(&r->allocator, stage, sh->glsl, sname, pre, words, word_count, msg, sizeof msg))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s GLSL does not compile: %s",
                                         n, what, msg);
    } else {
        *word_count = sh->spirv_size / 4;
        *words = orri_alloc(&r->allocator, sh->spirv_size);
        if (!*words) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "technique '%s': out of memory", n);
        memcpy(*words, sh->spirv, sh->spirv_size);
    }
    if (!orri_shader_reflect(*words, *word_count, io, msg, sizeof msg))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s", n, msg);
    if (!io->has_main || io->stage != stage)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s has no %s entry point 'main'",
                                     n, sname, what);
    /* the descriptors: the scene's (scene.glsl) and its reads */
    for (uint32_t k = 0; k < io->other_count; k++) {
        const orri_shader_slot *sl = &io->other[k];
        bool ok = sl->set == 0 && (sl->binding == 0 ? sl->uniform_buffer : sl->binding <= 7 && sl->storage_buffer);
        if (!ok)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (set %u, binding %u), which the scene does not provide "
                          "(orrery/scene.glsl: set 0, the view block at binding 0, storage buffers at 1 to 7)",
                          n, sname, sl->name, sl->set, sl->binding);
    }
    for (uint32_t k = 0; k < io->sampled_count; k++) {
        const orri_shader_slot *sl = &io->sampled[k];
        if (sl->set == 1 && sl->binding == 0) continue; /* the textures */
        if (sl->set != 2 || sl->binding >= d->read_count)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s samples '%s' at set %u, binding %u, but declares %u reads (set 2, "
                          "bindings 0 to %d; the textures are set 1, binding 0)",
                          n, sname, sl->name, sl->set, sl->binding, d->read_count, (int)d->read_count - 1);
        if (!sl->sampled_2d)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (set 2, binding %u, read '%s') as another kind than "
                          "sampler2D", n, sname, sl->name, sl->binding, d->reads[sl->binding]);
    }
    if (stage == ORRI_SHADER_TASK || stage == ORRI_SHADER_MESH) return ORR_OK; /* gpu_technique_mesh's checks */
    /* a mesh technique's fragment stage may see the whole block, the first record's uint included */
    bool whole = orri_technique_is_mesh(d) && io->push_size == orri_technique_mesh_push(d);
    if (io->push_size && io->push_size != d->push_constant_size && !whole)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': %s has a push constant block of %u bytes, the technique declares %u", n, sname,
                      io->push_size, d->push_constant_size);
    return ORR_OK;
}

/* A mesh technique's task (when given) and mesh stages into spirv[ORRI_TECH_TASK] and
 * spirv[ORRI_TECH_VERTEX] (the caller's, on failure too), checked; *mio: the mesh stage's reflection. */
static orr_result mesh_stages(orr_renderer *r, const orr_technique_desc *d, uint32_t *spirv[ORRI_TECH_STAGES],
                              size_t words[ORRI_TECH_STAGES], orri_shader_io *mio)
{
    ORRI_TRY(orri_technique_mesh_check_desc(r, d));
    const orr_shader_desc *task = &d->scene.task, *mesh = &d->scene.mesh;
    bool has_task = task->glsl || task->spirv;
    const char *tname = task->name ? task->name : d->name, *mname = mesh->name ? mesh->name : d->name;
    orri_shader_io tio = {0};
    if (has_task) {
        ORRI_TRY(stage_spirv(r, d, task, ORRI_SHADER_TASK, &spirv[ORRI_TECH_TASK], &words[ORRI_TECH_TASK], &tio));
        ORRI_TRY(orri_technique_mesh_check_stage(r, d, ORRI_SHADER_TASK, &tio, tname, true));
    }
    ORRI_TRY(stage_spirv(r, d, mesh, ORRI_SHADER_MESH, &spirv[ORRI_TECH_VERTEX], &words[ORRI_TECH_VERTEX], mio));
    ORRI_TRY(orri_technique_mesh_check_stage(r, d, ORRI_SHADER_MESH, mio, mname, !has_task));
    /* the layer filter is the first stage's to honour (the task shader's when there is one) */
    if (d->scene.layer_mask && !(has_task ? tio.layer_constant : mio->layer_constant))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                      "technique '%s': has a layer mask, but %s does not declare ORR_SCENE_LAYER_MASK "
                      "(constant_id 100: orrery/scene.glsl declares it, orr_scene_layer_kept() reads it)",
                      d->name, has_task ? tname : mname);
    return ORR_OK;
}

/* A scene technique's stages, checked against its desc and each other; the SPIR-V of each (NULL: the
 * library's vertex stage, or no fragment stage) is the caller's. */
static orr_result scene_shaders(orr_renderer *r, const orr_technique_desc *d, uint32_t *spirv[ORRI_TECH_STAGES],
                                size_t words[ORRI_TECH_STAGES], uint32_t *vertex_inputs)
{
    uint32_t **vs = &spirv[ORRI_TECH_VERTEX], **fs = &spirv[ORRI_TECH_FRAGMENT];
    size_t *vs_words = &words[ORRI_TECH_VERTEX], *fs_words = &words[ORRI_TECH_FRAGMENT];
    *vertex_inputs = 0x1ff; /* the library's vertex stage reads all nine */
    const char *n = d->name;
    const orr_shader_desc *vsh = &d->scene.vertex;
    orri_shader_io vio = {0}, fio = {0};
    bool mesh = orri_technique_is_mesh(d);
    bool own_vertex = vsh->glsl || vsh->spirv || mesh; /* a mesh shader writes the fragment inputs */
    if (mesh) {
        ORRI_TRY(mesh_stages(r, d, spirv, words, &vio));
        *vertex_inputs = 0;
    } else if (own_vertex) {
        ORRI_TRY(stage_spirv(r, d, vsh, ORRI_SHADER_VERTEX, vs, vs_words, &vio));
        const char *sname = vsh->name ? vsh->name : n;
        *vertex_inputs = 0;
        for (uint32_t k = 0; k < vio.input_count; k++) *vertex_inputs |= 1u << (vio.inputs[k].location & 31);
        for (uint32_t k = 0; k < vio.input_count; k++)
            if (vio.inputs[k].location > 5)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s takes input '%s' at location %u; the pool vertex is at locations "
                              "0 to 5 (orrery/scene.glsl's orr_in_*)", n, sname, vio.inputs[k].name,
                              vio.inputs[k].location);
        if (d->scene.layer_mask && !vio.layer_constant)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': has a layer mask, but %s does not declare ORR_SCENE_LAYER_MASK "
                          "(constant_id 100: orrery/scene.glsl declares it, orr_scene_layer_kept() reads it)",
                          n, sname);
    }
    if (!d->write_count) return mesh ? orri_technique_mesh_device(r, d) : ORR_OK;
    ORRI_TRY(stage_spirv(r, d, &d->fragment, ORRI_SHADER_FRAGMENT, fs, fs_words, &fio));
    const char *sname = d->fragment.name ? d->fragment.name : n;
    for (uint32_t k = 0; k < d->read_count; k++) {
        uint32_t found = 0;
        for (uint32_t x = 0; x < fio.sampled_count; x++)
            found += fio.sampled[x].set == 2 && fio.sampled[x].binding == k;
        if (found != 1)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                         "technique '%s': %s %s set 2, binding %u (read '%s')", n, sname,
                                         found ? "binds more than one sampler at" : "does not sample", k, d->reads[k]);
    }
    for (uint32_t o = 0; o < fio.output_count; o++) {
        const orri_shader_slot *sl = &fio.outputs[o];
        if (sl->location >= d->write_count)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' at location %u, but declares %u writes (locations 0 to %d)",
                          n, sname, sl->name, sl->location, d->write_count, (int)d->write_count - 1);
        if (!sl->is_float)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s writes '%s' (location %u) with integer components; the attachment "
                          "'%s' takes floats", n, sname, sl->name, sl->location, d->writes[sl->location].name);
    }
    for (uint32_t w = 0; w < d->write_count; w++) {
        uint32_t found = 0;
        for (uint32_t o = 0; o < fio.output_count; o++) found += fio.outputs[o].location == w;
        if (!found)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                         "technique '%s': %s has no output at location %u (write '%s')", n, sname, w,
                                         d->writes[w].name);
    }
    for (uint32_t k = 0; k < fio.input_count; k++) {
        const orri_shader_slot *in = &fio.inputs[k];
        if (!own_vertex) {
            if (in->location > 8)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s takes input '%s' at location %u; the library's vertex stage passes "
                              "locations 0 to 8 (orrery/scene.glsl's ORR_SCENE_FRAGMENT inputs)",
                              n, sname, in->name, in->location);
            continue;
        }
        bool matched = false;
        for (uint32_t o = 0; o < vio.output_count && !matched; o++)
            matched = vio.outputs[o].location == in->location && vio.outputs[o].components >= in->components;
        if (!matched)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s takes input '%s' at location %u, which its %s shader does not write",
                          n, sname, in->name, in->location, mesh ? "mesh" : "vertex");
    }
    if (mesh && d->scene.mesh_dispatch == ORR_MESH_FIXED)
        for (uint32_t k = 0; k < fio.sampled_count; k++)
            if (fio.sampled[k].set == 1)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s samples the scene's textures ('%s', set 1), but a mesh technique "
                              "of a fixed count draws no material", n, sname, fio.sampled[k].name);
    return mesh ? orri_technique_mesh_device(r, d) : ORR_OK;
}

static const VkCompareOp depth_ops[] = {
    [ORR_DEPTH_NEARER_OR_EQUAL] = VK_COMPARE_OP_GREATER_OR_EQUAL, /* reversed Z: nearer is greater */
    [ORR_DEPTH_NEARER] = VK_COMPARE_OP_GREATER,
    [ORR_DEPTH_EQUAL] = VK_COMPARE_OP_EQUAL,
    [ORR_DEPTH_FARTHER] = VK_COMPARE_OP_LESS,
    [ORR_DEPTH_ALWAYS] = VK_COMPARE_OP_ALWAYS,
};

/* A scene technique's layouts and pipeline: the mesh pipelines' vertex input and sets 0 and 1, its reads
 * at set 2, its state. */
static orr_result build_scene_pipeline(orr_renderer *r, const orri_tech_res *res, const orr_technique_desc *d,
                                       orri_tech *t, uint32_t *const spirv[ORRI_TECH_STAGES],
                                       const size_t words[ORRI_TECH_STAGES], uint32_t vertex_inputs)
{
    const uint32_t *vs = spirv[ORRI_TECH_VERTEX], *fs = spirv[ORRI_TECH_FRAGMENT];
    size_t vs_words = words[ORRI_TECH_VERTEX], fs_words = words[ORRI_TECH_FRAGMENT];
    bool mesh = orri_technique_is_mesh(d);
    orri_techniques *ts = r->techniques;
    const orr_technique_scene *sc = &d->scene;
    if (d->read_count && !t->set_layout) { /* a reload keeps the layouts: same reads, same host data */
        VkDescriptorSetLayoutBinding b[ORR_TECHNIQUE_MAX_READS];
        for (uint32_t k = 0; k < d->read_count; k++)
            b[k] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                                  VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = d->read_count, .pBindings = b};
        ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &t->set_layout));
    }
    VkDescriptorSetLayout sets[3] = {r->set_layout, r->textures.layout, t->set_layout};
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, d->push_constant_size};
    if (mesh) range = (VkPushConstantRange){ORRI_TECH_MESH_PUSH_STAGES, 0, orri_technique_mesh_push(d)};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = d->read_count ? 3 : 2,
        .pSetLayouts = sets,
        .pushConstantRangeCount = range.size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    if (!t->layout) ORRI_VK(r, vkCreatePipelineLayout(r->device, &pli, NULL, &t->layout));
    /* the layer mask (ORR_SCENE_LAYER_MASK) in both stages; the texture array's size (the fragment
     * shader's ORR_SCENE_TEXTURE_SLOTS) */
    uint32_t spec_data[2] = {sc->layer_mask, r->textures.slots};
    VkSpecializationMapEntry entries[2] = {{ORRI_SHADER_LAYER_CONSTANT, 0, 4}, {2, 4, 4}};
    VkSpecializationInfo vspec = {1, entries, 4, spec_data};
    VkSpecializationInfo fspec = {r->textures.array ? 2u : 1u, entries, sizeof spec_data, spec_data};
    VkVertexInputAttributeDescription attrs[ORRI_VERTEX_LOCATIONS]; /* those the vertex shader reads */
    uint32_t attr_count = orri_vertex_attributes(vertex_inputs, attrs);
    VkFormat color_formats[ORR_TECHNIQUE_MAX_WRITES];
    VkDynamicState cull = VK_DYNAMIC_STATE_CULL_MODE;
    orri_graphics_desc desc = {
        .stages = {{.stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs ? VK_NULL_HANDLE : ts->scene_vertex,
                    .code = vs, .size = vs_words * 4, .spec = &vspec},
                   {.stage = VK_SHADER_STAGE_FRAGMENT_BIT, .code = fs, .size = fs_words * 4, .spec = &fspec}},
        .stage_count = fs ? 2 : 1,
        .layout = t->layout,
        .vertex_stride = ORRI_VERTEX_BYTES,
        .attributes = attrs,
        .attribute_count = attr_count,
        .topology = sc->topology == ORR_TECHNIQUE_CORNERS ? VK_PRIMITIVE_TOPOLOGY_POINT_LIST
                                                           : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
        .lines = sc->topology == ORR_TECHNIQUE_EDGES,
        .color_formats = color_formats,
        .color_count = d->write_count,
        .depth_format = ORRI_DEPTH_FORMAT,
        .samples = r->targets[r->views[d->view.index].desc.target.index].samples, /* its view's target's */
        .depth_test = sc->depth_test != ORR_DEPTH_ALWAYS || sc->depth_write,
        .depth_write = sc->depth_write,
        .depth_compare = depth_ops[sc->depth_test],
        .cull = VK_CULL_MODE_BACK_BIT, /* dynamic */
        .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .dynamic = &cull,
        .dynamic_count = 1,
    };
    if (mesh) { /* task (when given) and mesh stages in the vertex stage's place: no vertex input */
        uint32_t k = 0;
        if (spirv[ORRI_TECH_TASK])
            desc.stages[k++] = (orri_graphics_stage){.stage = VK_SHADER_STAGE_TASK_BIT_EXT,
                                                     .code = spirv[ORRI_TECH_TASK],
                                                     .size = words[ORRI_TECH_TASK] * 4, .spec = &vspec};
        desc.stages[k++] = (orri_graphics_stage){.stage = VK_SHADER_STAGE_MESH_BIT_EXT, .code = vs,
                                                 .size = vs_words * 4, .spec = &vspec};
        if (fs)
            desc.stages[k++] = (orri_graphics_stage){.stage = VK_SHADER_STAGE_FRAGMENT_BIT, .code = fs,
                                                     .size = fs_words * 4, .spec = &fspec};
        desc.stage_count = k;
        desc.vertex_stride = 0, desc.attributes = NULL, desc.attribute_count = 0;
    }
    for (uint32_t w = 0; w < d->write_count; w++) {
        color_formats[w] = res[t->writes[w]].vk_format;
        desc.blend[w] = sc->blend == ORR_BLEND_ADD     ? ORRI_BLEND_ADD
                       : sc->blend == ORR_BLEND_ALPHA ? ORRI_BLEND_OVER
                                                      : ORRI_BLEND_NONE;
    }
    return orri_graphics_pipeline(r, &desc, &t->pipeline, "orr_renderer_set_techniques: technique '%s'", d->name);
}

/* ---- compute techniques ---------------------------------------------------------------------- */

/* The GLSL format qualifier of a storage image of each format (NULL: none can be one). */
static const char *const storage_qualifier[ORR_FORMAT_COUNT] = {
    [ORR_FORMAT_RGBA8_UNORM] = "rgba8", [ORR_FORMAT_RGBA16F] = "rgba16f", [ORR_FORMAT_RGBA32F] = "rgba32f",
    [ORR_FORMAT_R32F] = "r32f",         [ORR_FORMAT_RG16F] = "rg16f",     [ORR_FORMAT_R8_UNORM] = "r8",
    [ORR_FORMAT_B10G11R11F] = "r11f_g11f_b10f",
};

/* A compute technique's SPIR-V (compiled when GLSL), checked against its desc: the scene's buffers at
 * set 0 (with a view), its reads as sampler2D and its writes as storage images of their transients'
 * formats at set 2, its push block. Sets t->local and t->scene_set. *words is the caller's. */
static orr_result compute_shader(orr_renderer *r, const orr_technique_desc *d, const orri_tech_res *res, orri_tech *t,
                                 uint32_t **words, size_t *word_count)
{
    const orr_shader_desc *sh = &d->compute.shader;
    const char *n = d->name, *sname = sh->name ? sh->name : n;
    char msg[sizeof r->error.message - 64];
    if (sh->glsl) {
        if (!orri_shader_compile(&r->allocator, ORRI_SHADER_COMPUTE, sh->glsl, sname, NULL, words, word_count, msg,
                                 sizeof msg))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                         "technique '%s': compute GLSL does not compile: %s", n, msg);
    } else {
        *word_count = sh->spirv_size / 4;
        *words = orri_alloc(&r->allocator, sh->spirv_size);
        if (!*words) return orri_technique_refuse(r, ORR_ERROR_OUT_OF_MEMORY, "technique '%s': out of memory", n);
        memcpy(*words, sh->spirv, sh->spirv_size);
    }
    orri_shader_io io;
    if (!orri_shader_reflect(*words, *word_count, &io, msg, sizeof msg))
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s", n, msg);
    if (!io.has_main || io.stage != ORRI_SHADER_COMPUTE)
        return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                     "technique '%s': %s has no compute entry point 'main'", n, sname);
    t->scene_set = false;
    uint32_t found_writes[ORR_TECHNIQUE_MAX_WRITES] = {0};
    for (uint32_t k = 0; k < io.other_count; k++) {
        const orri_shader_slot *sl = &io.other[k];
        if (sl->set == 0) {
            bool ok = sl->binding == 0 ? sl->uniform_buffer : sl->binding <= 7 && sl->storage_buffer;
            if (!ok)
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s declares '%s' (set 0, binding %u), which the scene does not provide "
                              "(orrery/scene.glsl: the view block at binding 0, storage buffers at 1 to 7)",
                              n, sname, sl->name, sl->binding);
            if (orr_view_id_is_none(d->view))
                return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                              "technique '%s': %s reads the scene's buffers (set 0, '%s'), which need a view (whose "
                              "block and records it sees): give the technique one",
                              n, sname, sl->name);
            t->scene_set = true;
            continue;
        }
        uint32_t w = sl->binding - ORR_TECHNIQUE_STORAGE_BINDING;
        if (sl->set != 2 || sl->binding < ORR_TECHNIQUE_STORAGE_BINDING || w >= d->write_count || !sl->storage_image)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (set %u, binding %u), which a compute technique does not "
                          "provide (its %u writes are image2D at set 2, bindings %d to %d; the scene's buffers set 0)",
                          n, sname, sl->name, sl->set, sl->binding, d->write_count, ORR_TECHNIQUE_STORAGE_BINDING,
                          ORR_TECHNIQUE_STORAGE_BINDING + (int)d->write_count - 1);
        const orri_tech_res *x = &res[t->images[w]];
        const char *want = storage_qualifier[x->format], *has = orri_shader_image_format_name(sl->image_format);
        if (!want || strcmp(want, has))
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s declares '%s' (write '%s', binding %u) with format qualifier %s; %s "
                          "is %s (layout(%s))",
                          n, sname, sl->name, res[t->writes[w]].name, sl->binding, has,
                          x->kind == ORRI_RES_STORAGE ? "what it writes of \"color\"" : "the transient",
                          orr_format_name(x->format), want ? want : "no storage format");
        found_writes[w]++;
    }
    for (uint32_t w = 0; w < d->write_count; w++)
        if (found_writes[w] != 1)
            return orri_technique_refuse(
                r, ORR_ERROR_INVALID_ARGUMENT, "technique '%s': %s %s set 2, binding %u (write '%s')", n, sname,
                found_writes[w] ? "binds more than one image at" : "does not write an image2D at",
                ORR_TECHNIQUE_STORAGE_BINDING + w, d->writes[w].name);
    for (uint32_t k = 0; k < io.sampled_count; k++) {
        const orri_shader_slot *sl = &io.sampled[k];
        if (sl->set != 2 || sl->binding >= d->read_count || !sl->sampled_2d)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                          "technique '%s': %s samples '%s' at set %u, binding %u; a compute technique's %u reads are "
                          "sampler2D at set 2, bindings 0 to %d (textures, set 1, are not bound for compute)",
                          n, sname, sl->name, sl->set, sl->binding, d->read_count, (int)d->read_count - 1);
    }
    for (uint32_t k = 0; k < d->read_count; k++) {
        uint32_t found = 0;
        for (uint32_t x = 0; x < io.sampled_count; x++) found += io.sampled[x].binding == k;
        if (found != 1)
            return orri_technique_refuse(r, ORR_ERROR_INVALID_ARGUMENT,
                                         "technique '%s': %s %s set 2, binding %u (read '%s')", n, sname,
                                         found ? "binds more than one sampler at" : "does not sample", k, d->reads[k]);
    }
    uint32_t push = d->push_constant_size + (d->compute.dispatch == ORR_DISPATCH_PER_INSTANCE ? 4 : 0);
    if (io.push_size != push)
        return orri_technique_refuse(
            r, ORR_ERROR_INVALID_ARGUMENT,
            "technique '%s': %s has a push constant block of %u bytes, the technique declares %u%s", n, sname,
            io.push_size, push,
            d->compute.dispatch == ORR_DISPATCH_PER_INSTANCE ? " (its push_constant_size, then the slot count)" : "");
    memcpy(t->local, io.local_size, sizeof t->local);
    return ORR_OK;
}

/* A compute technique's layouts (set 0 the scene's, set 1 unbound, set 2 its images) and pipeline. */
static orr_result build_compute_pipeline(orr_renderer *r, const orr_technique_desc *d, orri_tech *t,
                                         const uint32_t *words, size_t word_count)
{
    uint32_t push = d->push_constant_size + (d->compute.dispatch == ORR_DISPATCH_PER_INSTANCE ? 4 : 0);
    if (!t->set_layout) { /* a reload keeps the layouts */
        VkDescriptorSetLayoutBinding b[ORR_TECHNIQUE_MAX_READS + ORR_TECHNIQUE_MAX_WRITES];
        uint32_t count = 0;
        for (uint32_t k = 0; k < d->read_count; k++)
            b[count++] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                                        VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        for (uint32_t w = 0; w < d->write_count; w++)
            b[count++] = (VkDescriptorSetLayoutBinding){ORR_TECHNIQUE_STORAGE_BINDING + w,
                                                        VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
                                                        VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = count, .pBindings = b};
        ORRI_VK(r, vkCreateDescriptorSetLayout(r->device, &li, NULL, &t->set_layout));
    }
    if (!t->layout) {
        VkDescriptorSetLayout sets[3] = {r->set_layout, r->textures.layout, t->set_layout};
        VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push};
        VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                          .setLayoutCount = 3, .pSetLayouts = sets,
                                          .pushConstantRangeCount = push ? 1 : 0, .pPushConstantRanges = &range};
        ORRI_VK(r, vkCreatePipelineLayout(r->device, &pli, NULL, &t->layout));
    }
    VkShaderModule module;
    ORRI_TRY(orri_shader_module(r, words, word_count * 4, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module, .pName = "main"},
        .layout = t->layout,
    };
    VkResult made = vkCreateComputePipelines(r->device, r->pipeline_cache, 1, &ci, NULL, &t->pipeline);
    vkDestroyShaderModule(r->device, module, NULL);
    if (made != VK_SUCCESS)
        return orri_technique_refuse(r, ORR_ERROR_VULKAN, "technique '%s': vkCreateComputePipelines failed: %s",
                                     d->name, orri_vk_result_name(made));
    return ORR_OK;
}

orr_result orri_technique_build(orr_renderer *r, const orri_tech_res *res, const orr_technique_desc *d, orri_tech *t,
                                uint32_t **spirv, size_t *words)
{
    for (int k = 0; k < ORRI_TECH_STAGES; k++) spirv[k] = NULL, words[k] = 0;
    const int f = ORRI_TECH_FRAGMENT;
    if (d->kind == ORR_TECHNIQUE_COMPUTE) {
        ORRI_TRY(compute_shader(r, d, res, t, &spirv[f], &words[f]));
        return build_compute_pipeline(r, d, t, spirv[f], words[f]);
    }
    if (d->kind == ORR_TECHNIQUE_SCENE) {
        uint32_t inputs = 0;
        ORRI_TRY(scene_shaders(r, d, spirv, words, &inputs));
        return build_scene_pipeline(r, res, d, t, spirv, words, inputs);
    }
    ORRI_TRY(shader_for(r, d, &spirv[f], &words[f]));
    return build_pipeline(r, res, d, t, spirv[f], words[f]);
}
