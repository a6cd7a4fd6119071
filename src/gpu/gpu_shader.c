/* Run-time GLSL compilation (glslang's C interface) and SPIR-V reflection (SPIRV-Cross's C API). */
#include "gpu/gpu_shader.h"

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#include <spirv_cross_c.h>

#include <stdio.h>
#include <string.h>

/* glslang's log, one error per line ("ERROR: 0:3: 'foo' : undeclared identifier"), as
 * "name:3: 'foo' : undeclared identifier; ..." (its summary lines dropped). */
static void copy_log(const char *log, const char *name, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    const char *p = log ? log : "";
    while (*p && n + 1 < size) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *line = p;
        p = end ? end + 1 : p + len;
        if (len == 0) continue;
        if (!strncmp(line, "ERROR: ", 7)) line += 7, len -= 7;
        else if (!strncmp(line, "WARNING: ", 9)) continue;
        char one[512];
        snprintf(one, sizeof one, "%.*s", (int)len, line);
        if (strstr(one, "compilation errors") || strstr(one, "compilation terminated")) continue; /* summaries */
        /* "0:3: rest" -> "name:3: rest" */
        if (len > 2 && line[0] >= '0' && line[0] <= '9') {
            const char *colon = memchr(line, ':', len);
            if (colon) len -= (size_t)(colon - line), line = colon;
        }
        while (len && line[len - 1] == ' ') len--;
        int w = snprintf(out + n, size - n, "%s%s%.*s", n ? "; " : "", line[0] == ':' ? name : "", (int)len, line);
        if (w < 0) break;
        n += (size_t)w < size - n ? (size_t)w : size - n - 1;
    }
    /* a trailing " : " from glslang's padding */
    while (n > 0 && (out[n - 1] == ' ')) out[--n] = '\0';
    if (!out[0]) snprintf(out, size, "%s: does not compile", name);
}

extern const char orri_text_scene_glsl[];
extern const size_t orri_text_scene_glsl_size;
extern const char orri_text_gpu_shared_h[];
extern const size_t orri_text_gpu_shared_h_size;

/* A growing text. */
typedef struct text {
    const orr_allocator *a;
    char *p;
    size_t len, cap;
    bool failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1) cap *= 2;
        char *grown = orri_realloc(t->a, t->p, t->cap, cap);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->p = grown;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

/* The header an #include line names, when it is one of the library's ("orrery/scene.glsl",
 * "orrery/gpu_shared.h", or "gpu_shared.h" beside scene.glsl); NULL for a line that is no #include.
 * *other: an #include of anything else. */
static const char *included(const char *line, size_t len, size_t *size, bool *other)
{
    *other = false;
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i >= len || line[i] != '#') return NULL;
    i++;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (len - i < 7 || strncmp(line + i, "include", 7)) return NULL;
    i += 7;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i >= len || (line[i] != '"' && line[i] != '<')) return NULL;
    char close = line[i] == '"' ? '"' : '>';
    const char *b = line + i + 1, *e = memchr(b, close, len - i - 1);
    *other = true;
    if (!e) return NULL;
    size_t n = (size_t)(e - b);
    if ((n == 17 && !strncmp(b, "orrery/scene.glsl", n))) {
        *other = false;
        *size = orri_text_scene_glsl_size;
        return orri_text_scene_glsl;
    }
    if ((n == 19 && !strncmp(b, "orrery/gpu_shared.h", n)) || (n == 12 && !strncmp(b, "gpu_shared.h", n))) {
        *other = false;
        *size = orri_text_gpu_shared_h_size;
        return orri_text_gpu_shared_h;
    }
    return NULL;
}

/* `source` with the library's headers in place of their #include lines (glslang's C interface of this
 * version takes no include callback), each followed by a #line that gives the host's lines back their
 * numbers. false (message set) for another #include. */
static bool expand(text *out, const char *source, size_t size, const char *name, int depth, char *message,
                   size_t message_size)
{
    uint32_t line_no = 0;
    for (const char *p = source, *end = source + size; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line_no++;
        size_t hsize = 0;
        bool other = false;
        const char *h = included(p, len, &hsize, &other);
        if (other && depth == 0) { /* the library's headers include C headers in their C-only branches */
            snprintf(message, message_size, "%s:%u: #include of '%.*s': a technique's GLSL includes only "
                     "\"orrery/scene.glsl\" (and the gpu_shared.h it includes)", name, line_no, (int)len, p);
            return false;
        }
        if (h && depth < 2) {
            if (!expand(out, h, hsize, name, depth + 1, message, message_size)) return false;
            char directive[32];
            int n = snprintf(directive, sizeof directive, "\n#line %u\n", line_no + 1);
            put(out, directive, (size_t)n);
        } else {
            put(out, p, len);
            put(out, "\n", 1);
        }
        p += len + 1;
    }
    return true;
}

bool orri_shader_compile(const orr_allocator *a, orri_shader_stage stage, const char *source, const char *name,
                         const char *preamble, uint32_t **words, size_t *word_count, char *message, size_t message_size)
{
    static const glslang_stage_t stages[] = {GLSLANG_STAGE_VERTEX, GLSLANG_STAGE_FRAGMENT, GLSLANG_STAGE_COMPUTE,
                                            GLSLANG_STAGE_TASK, GLSLANG_STAGE_MESH};
    *words = NULL;
    *word_count = 0;
    /* reference counted by glslang: every compile takes and gives back its process state */
    if (!glslang_initialize_process()) {
        snprintf(message, message_size, "%s: the GLSL compiler could not start", name);
        return false;
    }
    text expanded = {.a = a};
    if (!expand(&expanded, source, strlen(source), name, 0, message, message_size)) {
        orri_free(a, expanded.p, expanded.cap);
        glslang_finalize_process();
        return false;
    }
    if (expanded.failed || !expanded.p) {
        snprintf(message, message_size, "%s: out of memory for the source", name);
        orri_free(a, expanded.p, expanded.cap);
        glslang_finalize_process();
        return false;
    }
    glslang_input_t in = {
        .language = GLSLANG_SOURCE_GLSL,
        .stage = stages[stage],
        .client = GLSLANG_CLIENT_VULKAN,
        .client_version = GLSLANG_TARGET_VULKAN_1_3,
        .target_language = GLSLANG_TARGET_SPV,
        .target_language_version = GLSLANG_TARGET_SPV_1_6,
        .code = expanded.p,
        .default_version = 450,
        .default_profile = GLSLANG_NO_PROFILE,
        .messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
        .resource = glslang_default_resource(),
    };
    bool ok = false;
    glslang_shader_t *shader = glslang_shader_create(&in);
    glslang_program_t *program = NULL;
    if (!shader) {
        snprintf(message, message_size, "%s: the GLSL compiler could not start", name);
        goto done;
    }
    if (preamble) glslang_shader_set_preamble(shader, preamble);
    if (!glslang_shader_preprocess(shader, &in) || !glslang_shader_parse(shader, &in)) {
        copy_log(glslang_shader_get_info_log(shader), name, message, message_size);
        goto done;
    }
    program = glslang_program_create();
    glslang_program_add_shader(program, shader);
    if (!glslang_program_link(program, GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT)) {
        copy_log(glslang_program_get_info_log(program), name, message, message_size);
        goto done;
    }
    glslang_program_SPIRV_generate(program, stages[stage]);
    size_t n = glslang_program_SPIRV_get_size(program);
    const char *spirv_log = glslang_program_SPIRV_get_messages(program);
    if (n == 0) {
        snprintf(message, message_size, "%s: no SPIR-V generated%s%s", name, spirv_log ? ": " : "",
                 spirv_log ? spirv_log : "");
        goto done;
    }
    *words = orri_alloc(a, n * sizeof(uint32_t));
    if (!*words) {
        snprintf(message, message_size, "%s: out of memory for %zu words of SPIR-V", name, n);
        goto done;
    }
    glslang_program_SPIRV_get(program, *words);
    *word_count = n;
    ok = true;
done:
    if (program) glslang_program_delete(program);
    if (shader) glslang_shader_delete(shader);
    glslang_finalize_process();
    orri_free(a, expanded.p, expanded.cap);
    return ok;
}

const char *orri_shader_image_format_name(uint32_t image_format)
{
    switch (image_format) {
    case SpvImageFormatUnknown: return "none";
    case SpvImageFormatRgba32f: return "rgba32f";
    case SpvImageFormatRgba16f: return "rgba16f";
    case SpvImageFormatR32f: return "r32f";
    case SpvImageFormatRgba8: return "rgba8";
    case SpvImageFormatRg16f: return "rg16f";
    case SpvImageFormatR11fG11fB10f: return "r11f_g11f_b10f";
    case SpvImageFormatR8: return "r8";
    default: return "another";
    }
}

static void slot_name(spvc_compiler c, const spvc_reflected_resource *res, orri_shader_slot *s)
{
    const char *name = res->name && res->name[0] ? res->name : spvc_compiler_get_name(c, res->id);
    snprintf(s->name, sizeof s->name, "%s", name && name[0] ? name : "(unnamed)");
}

static void io_slot(spvc_compiler c, const spvc_reflected_resource *res, orri_shader_slot *s)
{
    slot_name(c, res, s);
    s->location = spvc_compiler_get_decoration(c, res->id, SpvDecorationLocation);
    spvc_type t = spvc_compiler_get_type_handle(c, res->type_id);
    s->components = spvc_type_get_vector_size(t);
    s->is_float = spvc_type_get_basetype(t) == SPVC_BASETYPE_FP32;
}

bool orri_shader_reflect(const uint32_t *words, size_t word_count, orri_shader_io *io, char *message,
                         size_t message_size)
{
    memset(io, 0, sizeof *io);
    if (word_count < 5 || words[0] != 0x07230203u) {
        snprintf(message, message_size, "not SPIR-V (%zu words, first 0x%08x; SPIR-V starts 0x07230203)", word_count,
                 word_count ? words[0] : 0u);
        return false;
    }
    spvc_context ctx = NULL;
    if (spvc_context_create(&ctx) != SPVC_SUCCESS) {
        snprintf(message, message_size, "the SPIR-V reflection could not start");
        return false;
    }
    bool ok = false;
    spvc_parsed_ir ir;
    spvc_compiler c;
    spvc_resources res;
    if (spvc_context_parse_spirv(ctx, words, word_count, &ir) != SPVC_SUCCESS ||
        spvc_context_create_compiler(ctx, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &c) != SPVC_SUCCESS ||
        spvc_compiler_create_shader_resources(c, &res) != SPVC_SUCCESS) {
        snprintf(message, message_size, "SPIR-V that cannot be read: %s", spvc_context_get_last_error_string(ctx));
        goto done;
    }
    const spvc_entry_point *entries;
    size_t entry_count;
    if (spvc_compiler_get_entry_points(c, &entries, &entry_count) == SPVC_SUCCESS) {
        for (size_t i = 0; i < entry_count; i++) {
            if (strcmp(entries[i].name, "main") != 0) continue;
            io->has_main = true;
            switch (entries[i].execution_model) {
            case SpvExecutionModelVertex: io->stage = ORRI_SHADER_VERTEX; break;
            case SpvExecutionModelFragment: io->stage = ORRI_SHADER_FRAGMENT; break;
            case SpvExecutionModelGLCompute: io->stage = ORRI_SHADER_COMPUTE; break;
            case SpvExecutionModelTaskEXT: io->stage = ORRI_SHADER_TASK; break;
            case SpvExecutionModelMeshEXT: io->stage = ORRI_SHADER_MESH; break;
            default: io->has_main = false; break;
            }
            if (io->has_main) {
                spvc_compiler_set_entry_point(c, "main", entries[i].execution_model);
                break;
            }
        }
    }
    const spvc_reflected_resource *list;
    size_t count;
    spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list, &count);
    for (size_t i = 0; i < count; i++) {
        size_t size = 0;
        spvc_compiler_get_declared_struct_size(c, spvc_compiler_get_type_handle(c, list[i].base_type_id), &size);
        io->push_size += (uint32_t)size;
    }
    spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, &list, &count);
    for (size_t i = 0; i < count && io->sampled_count < ORRI_SHADER_MAX_IO; i++) {
        orri_shader_slot *s = &io->sampled[io->sampled_count++];
        slot_name(c, &list[i], s);
        s->set = spvc_compiler_get_decoration(c, list[i].id, SpvDecorationDescriptorSet);
        s->binding = spvc_compiler_get_decoration(c, list[i].id, SpvDecorationBinding);
        spvc_type t = spvc_compiler_get_type_handle(c, list[i].type_id);
        s->sampled_2d = spvc_type_get_image_dimension(t) == SpvDim2D && !spvc_type_get_image_arrayed(t) &&
                        !spvc_type_get_image_multisampled(t) && spvc_type_get_num_array_dimensions(t) == 0;
    }
    static const spvc_resource_type others[] = {
        SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, SPVC_RESOURCE_TYPE_STORAGE_IMAGE,
        SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, SPVC_RESOURCE_TYPE_SUBPASS_INPUT,
        SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        spvc_resources_get_resource_list_for_type(res, others[k], &list, &count);
        for (size_t i = 0; i < count && io->other_count < ORRI_SHADER_MAX_IO; i++) {
            orri_shader_slot *s = &io->other[io->other_count++];
            slot_name(c, &list[i], s);
            s->set = spvc_compiler_get_decoration(c, list[i].id, SpvDecorationDescriptorSet);
            s->binding = spvc_compiler_get_decoration(c, list[i].id, SpvDecorationBinding);
            s->uniform_buffer = others[k] == SPVC_RESOURCE_TYPE_UNIFORM_BUFFER;
            s->storage_buffer = others[k] == SPVC_RESOURCE_TYPE_STORAGE_BUFFER;
            if (others[k] == SPVC_RESOURCE_TYPE_STORAGE_IMAGE) {
                spvc_type t = spvc_compiler_get_type_handle(c, list[i].type_id);
                s->storage_image = spvc_type_get_image_dimension(t) == SpvDim2D && !spvc_type_get_image_arrayed(t) &&
                                   !spvc_type_get_image_multisampled(t) && spvc_type_get_num_array_dimensions(t) == 0;
                s->image_format = (uint32_t)spvc_type_get_image_storage_format(t);
            }
        }
    }
    const spvc_specialization_constant *constants;
    size_t constant_count = 0;
    if (spvc_compiler_get_specialization_constants(c, &constants, &constant_count) == SPVC_SUCCESS)
        for (size_t i = 0; i < constant_count; i++)
            if (constants[i].constant_id == ORRI_SHADER_LAYER_CONSTANT) io->layer_constant = true;
    bool groups = io->stage == ORRI_SHADER_COMPUTE || io->stage == ORRI_SHADER_TASK || io->stage == ORRI_SHADER_MESH;
    if (io->has_main && io->stage == ORRI_SHADER_MESH) {
        io->mesh_vertices = spvc_compiler_get_execution_mode_argument(c, SpvExecutionModeOutputVertices);
        io->mesh_primitives = spvc_compiler_get_execution_mode_argument(c, SpvExecutionModeOutputPrimitivesEXT);
    }
    for (uint32_t k = 0; k < 3; k++) {
        io->local_size[k] = groups
                                ? spvc_compiler_get_execution_mode_argument_by_index(c, SpvExecutionModeLocalSize, k)
                                : 1u;
        if (!io->local_size[k]) io->local_size[k] = 1;
    }
    spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_STAGE_OUTPUT, &list, &count);
    for (size_t i = 0; i < count && io->output_count < ORRI_SHADER_MAX_IO; i++)
        io_slot(c, &list[i], &io->outputs[io->output_count++]);
    spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_STAGE_INPUT, &list, &count);
    for (size_t i = 0; i < count && io->input_count < ORRI_SHADER_MAX_IO; i++)
        io_slot(c, &list[i], &io->inputs[io->input_count++]);
    ok = true;
done:
    spvc_context_destroy(ctx);
    return ok;
}
