/* A deferred renderer built from techniques (orrery/technique.h) over the shared scene, with no
 * scene-specific code in the library: the generality check of the technique interface.
 *
 *   deferred [--size WxH] [--out DIR] [--frames N] [--validation]
 *
 * A red cube, a green sphere and a blue cube on a grey ground, under a white sun and a warm point
 * light, rendered twice:
 *   forward.png   the built-in look (the forward passes);
 *   deferred.png  three techniques in place of the view's built-in passes:
 *     gbuffer   a scene technique drawn with the batched strategy that replaces the view's passes
 *               (orr_technique_scene.replaces_view): base colour, normal and metallic-roughness-occlusion
 *               into three transients, and the view's depth, cleared and written by it;
 *     lighting  a compute technique, one invocation per pixel: reads the G-buffer and the depth,
 *               rebuilds each pixel's position from the depth and the view's projection, and lights it
 *               from the scene's light buffer with the built-in passes' BRDF, exposure and tone mapping,
 *               into a fourth transient ("lit", alpha 0 where nothing was drawn);
 *     present   a full-screen technique that copies "lit" into the target's colour (where something was
 *               drawn: the clear colour stays elsewhere).
 * Each is rendered N times (--frames, default 1), each frame waited for: its GPU time is the median of
 * theirs (-1 where the device has no timestamps).
 * Prints one JSON object per image: its name, the draw calls of the frame, the GPU time, the pixels that
 * are not the clear colour; for the deferred one also how far it is from the forward image over those pixels (the
 * largest channel difference, the pixels off by more than 2 of 255, the mean difference in thousandths),
 * and writes the frame graph to DIR/deferred_graph.txt. */
#include <orrery/gpu.h>
#include <orrery/snapshot.h>
#include <orrery/technique.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBJECTS 4

/* The G-buffer: what the library's vertex stage passes, the material and its textures. */
static const char *const GBUFFER_FRAG =
    "#version 450\n"
    "#define ORR_SCENE_FRAGMENT\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(location = 0) out vec4 o_albedo; // linear base colour\n"
    "layout(location = 1) out vec4 o_normal; // world orientation; a = 1 where drawn\n"
    "layout(location = 2) out vec4 o_mro;    // metallic, roughness, occlusion\n"
    "void main()\n"
    "{\n"
    "    orr_gpu_material m = materials[orr_material];\n"
    "    vec4 base = vec4(m.base_color[0], m.base_color[1], m.base_color[2], m.base_color[3]) * orr_color *\n"
    "                orr_scene_texture(orr_material, ORR_GPU_TEXTURE_BASE_COLOR, orr_uv_a.xy);\n"
    "    vec4 mr = orr_scene_texture(orr_material, ORR_GPU_TEXTURE_METALLIC_ROUGHNESS, orr_uv_a.zw);\n"
    "    float occlusion = orr_scene_texture(orr_material, ORR_GPU_TEXTURE_OCCLUSION, orr_uv_b.zw).r;\n"
    "    float len = length(orr_normal);\n"
    "    o_albedo = vec4(base.rgb, 1.0);\n"
    "    o_normal = vec4(len > 0.0 ? orr_normal / len : vec3(0.0, 0.0, 1.0), 1.0);\n"
    "    o_mro = vec4(clamp(m.metallic * mr.b, 0.0, 1.0), clamp(m.roughness * mr.g, 0.03, 1.0),\n"
    "                 1.0 + m.occlusion_strength * (occlusion - 1.0), 1.0);\n"
    "}\n";

/* The lighting: glTF metallic-roughness under the view's punctual lights and its two-colour sky, as
 * the built-in passes shade, from the G-buffer. */
static const char *const LIGHTING_COMP =
    "#version 450\n"
    "#define ORR_SCENE_COMPUTE\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(set = 2, binding = 0) uniform sampler2D g_albedo;\n"
    "layout(set = 2, binding = 1) uniform sampler2D g_normal;\n"
    "layout(set = 2, binding = 2) uniform sampler2D g_mro;\n"
    "layout(set = 2, binding = 3) uniform sampler2D g_depth;\n"
    "layout(set = 2, binding = 8, rgba16f) writeonly uniform image2D lit;\n"
    "layout(push_constant) uniform Rect { vec4 rect; } view; // the view's rectangle: x, y, width, height\n"
    "const float PI = 3.14159265358979;\n"
    "float d_ggx(float n_dot_h, float a2) { float f = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0; return a2 / (PI * f * f); }\n"
    "float v_ggx(float n_dot_l, float n_dot_v, float a2)\n"
    "{\n"
    "    float gl = n_dot_l + sqrt(a2 + (1.0 - a2) * n_dot_l * n_dot_l);\n"
    "    float gv = n_dot_v + sqrt(a2 + (1.0 - a2) * n_dot_v * n_dot_v);\n"
    "    return 1.0 / (gl * gv);\n"
    "}\n"
    "vec3 pbr_neutral(vec3 color)\n"
    "{\n"
    "    const float start = 0.8 - 0.04, desaturation = 0.15;\n"
    "    float x = min(color.r, min(color.g, color.b));\n"
    "    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;\n"
    "    color -= offset;\n"
    "    float peak = max(color.r, max(color.g, color.b));\n"
    "    if (peak < start) return color;\n"
    "    const float d = 1.0 - start;\n"
    "    float new_peak = 1.0 - d * d / (peak + d - start);\n"
    "    color *= new_peak / peak;\n"
    "    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);\n"
    "    return mix(color, vec3(new_peak), g);\n"
    "}\n"
    "vec3 sky_along(vec3 dir) { return mix(u_view.ground.rgb, u_view.sky.rgb, clamp(0.5 + 0.5 * dir.y, 0.0, 1.0)); }\n"
    "void main()\n"
    "{\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    if (any(greaterThanEqual(p, imageSize(lit)))) return;\n"
    "    vec4 nrm = texelFetch(g_normal, p, 0);\n"
    "    if (nrm.a == 0.0) { imageStore(lit, p, vec4(0.0)); return; }\n"
    "    // the point, relative to the view origin, from the depth (reversed Z) and the projection\n"
    "    vec2 ndc = (vec2(p) + 0.5 - view.rect.xy) / view.rect.zw * 2.0 - 1.0;\n"
    "    vec4 cam = inverse(u_view.proj) * vec4(ndc, texelFetch(g_depth, p, 0).r, 1.0);\n"
    "    vec3 world_rel = (inverse(u_view.view) * vec4(cam.xyz / cam.w, 1.0)).xyz;\n"
    "    vec3 base = texelFetch(g_albedo, p, 0).rgb;\n"
    "    vec3 mro = texelFetch(g_mro, p, 0).rgb;\n"
    "    vec3 n = nrm.xyz;\n"
    "    float metallic = mro.r, roughness = mro.g, occlusion = mro.b;\n"
    "    float a2 = roughness * roughness * roughness * roughness;\n"
    "    vec3 c_diff = mix(base, vec3(0.0), metallic);\n"
    "    vec3 f0 = mix(vec3(0.04), base, metallic);\n"
    "    vec3 v = normalize(-world_rel);\n"
    "    float n_dot_v = abs(dot(n, v)) + 1e-5;\n"
    "    vec3 color = vec3(0.0);\n"
    "    for (uint i = 0u; i < u_view.params.z; i++) {\n"
    "        orr_gpu_light light = lights[u_view.params.y + i];\n"
    "        vec3 radiance = vec3(light.color[0], light.color[1], light.color[2]) * light.intensity;\n"
    "        vec3 dir = vec3(light.direction[0], light.direction[1], light.direction[2]);\n"
    "        vec3 l;\n"
    "        if (light.type == ORR_GPU_LIGHT_DIRECTIONAL) {\n"
    "            l = -dir;\n"
    "        } else {\n"
    "            vec3 to_light = vec3(light.position[0], light.position[1], light.position[2]) - world_rel;\n"
    "            float d2 = max(dot(to_light, to_light), 1e-12);\n"
    "            float d = sqrt(d2);\n"
    "            l = to_light / d;\n"
    "            float window = light.range > 0.0 ? clamp(1.0 - pow(d / light.range, 4.0), 0.0, 1.0) : 1.0;\n"
    "            float falloff = window / d2;\n"
    "            if (light.type == ORR_GPU_LIGHT_SPOT) {\n"
    "                float scale = 1.0 / max(light.cos_inner - light.cos_outer, 1e-4);\n"
    "                float a = clamp((dot(dir, -l) - light.cos_outer) * scale, 0.0, 1.0);\n"
    "                falloff *= a * a;\n"
    "            }\n"
    "            radiance *= falloff;\n"
    "        }\n"
    "        float n_dot_l = dot(n, l);\n"
    "        if (n_dot_l <= 0.0) continue;\n"
    "        vec3 h = normalize(l + v);\n"
    "        float n_dot_h = max(dot(n, h), 0.0), v_dot_h = max(dot(v, h), 0.0);\n"
    "        vec3 f = f0 + (1.0 - f0) * pow(1.0 - v_dot_h, 5.0);\n"
    "        vec3 diffuse = (1.0 - f) * (1.0 / PI) * c_diff;\n"
    "        vec3 specular = f * d_ggx(n_dot_h, a2) * v_ggx(n_dot_l, n_dot_v, a2);\n"
    "        color += (diffuse + specular) * radiance * n_dot_l;\n"
    "    }\n"
    "    vec3 r = reflect(-v, n);\n"
    "    vec3 env = mix(sky_along(r), 0.5 * (u_view.sky.rgb + u_view.ground.rgb), roughness);\n"
    "    const vec4 c0 = vec4(-1.0, -0.0275, -0.572, 0.022), c1 = vec4(1.0, 0.0425, 1.04, -0.04);\n"
    "    vec4 k = roughness * c0 + c1;\n"
    "    float a004 = min(k.x * k.x, exp2(-9.28 * n_dot_v)) * k.x + k.y;\n"
    "    vec2 ab = vec2(-1.04, 1.04) * a004 + k.zw;\n"
    "    vec3 ambient = c_diff * sky_along(n) * (1.0 - (f0 * ab.x + ab.y)) + env * (f0 * ab.x + ab.y);\n"
    "    color += ambient * occlusion;\n"
    "    color *= u_view.sky.w; // exposure\n"
    "    if (u_view.params.w == ORR_GPU_TONE_PBR_NEUTRAL) color = pbr_neutral(color);\n"
    "    imageStore(lit, p, vec4(color, 1.0));\n"
    "}\n";

/* "lit" into the target's colour where something was drawn. */
static const char *const PRESENT_FRAG = "#version 450\n"
                                        "layout(set = 0, binding = 0) uniform sampler2D lit;\n"
                                        "layout(location = 0) out vec4 o;\n"
                                        "void main()\n"
                                        "{\n"
                                        "    vec4 c = texelFetch(lit, ivec2(gl_FragCoord.xy), 0);\n"
                                        "    if (c.a == 0.0) discard;\n"
                                        "    o = vec4(c.rgb, 1.0);\n"
                                        "}\n";

typedef struct log_state {
    uint32_t validation_messages;
} log_state;

static void log_line(void *user, orr_log_level level, const char *message)
{
    log_state *l = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) l->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "deferred: %s\n", message);
}

/* A cube [-0.5, 0.5]^3; normals generated (flat) by the library. */
static orr_result add_cube(orr_assets *assets, orr_mesh_id *out)
{
    static const float pos[24] = {-0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, -0.5f, -0.5f, 0.5f, -0.5f,
                                  -0.5f, -0.5f, 0.5f,  0.5f, -0.5f, 0.5f,  0.5f, 0.5f, 0.5f,  -0.5f, 0.5f, 0.5f};
    static const uint32_t idx[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                     3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    orr_primitive_desc prim = {.vertex_count = 8, .positions = pos, .index_count = 36, .indices = idx};
    return orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "cube", .primitive_count = 1, .primitives = &prim},
                               out);
}

/* A UV sphere of radius 0.5 with smooth normals, counter-clockwise outside. */
#define RINGS 24
#define SEGMENTS 32
static orr_result add_sphere(orr_assets *assets, orr_mesh_id *out)
{
    static float pos[(RINGS + 1) * (SEGMENTS + 1) * 3], nrm[(RINGS + 1) * (SEGMENTS + 1) * 3];
    static uint32_t idx[RINGS * SEGMENTS * 6];
    uint32_t v = 0, i = 0;
    for (uint32_t r = 0; r <= RINGS; r++)
        for (uint32_t s = 0; s <= SEGMENTS; s++, v++) {
            const double pi = 3.14159265358979323846;
            double th = pi * r / RINGS, ph = 2 * pi * s / SEGMENTS;
            float n[3] = {(float)(sin(th) * cos(ph)), (float)cos(th), (float)(-sin(th) * sin(ph))};
            for (int k = 0; k < 3; k++) nrm[3 * v + k] = n[k], pos[3 * v + k] = 0.5f * n[k];
        }
    for (uint32_t r = 0; r < RINGS; r++)
        for (uint32_t s = 0; s < SEGMENTS; s++) {
            uint32_t a = r * (SEGMENTS + 1) + s, b = a + SEGMENTS + 1;
            uint32_t q[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(idx + i, q, sizeof q);
            i += 6;
        }
    orr_primitive_desc prim = {.vertex_count = v, .positions = pos, .normals = nrm, .index_count = i, .indices = idx};
    return orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "sphere", .primitive_count = 1, .primitives = &prim},
                               out);
}

static orr_affine3d place(double x, double y, double z, double sx, double sy, double sz)
{
    orr_affine3d a;
    orr_affine3d_identity(&a);
    a.m[0] = sx, a.m[4] = sy, a.m[8] = sz;
    a.m[9] = x, a.m[10] = y, a.m[11] = z;
    return a;
}

static int usage(void)
{
    fprintf(stderr, "usage: deferred [--size WxH] [--out DIR] [--frames N] [--validation]\n");
    return 2;
}

static int fail(orr_renderer *r, const char *what)
{
    fprintf(stderr, "deferred: %s: %s\n", what, orr_renderer_last_error(r)->message);
    return 1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Renders `frames` frames (each waited for), the last into `pixels` and OUT/name.png; *calls receives
 * its draw calls, *gpu_ms the median GPU time. */
static int frame_png(orr_renderer *renderer, orr_render_desc *desc, orr_snapshot *snap, uint32_t frames,
                     uint8_t *pixels, uint32_t width, uint32_t height, const char *out_dir, const char *name,
                     uint32_t *calls, double *gpu_ms)
{
    size_t size = (size_t)width * height * 4;
    orr_render_stats stats;
    double *times = malloc(sizeof *times * frames);
    if (!times) return 1;
    for (uint32_t f = 0; f < frames; f++) {
        snap->frame = snap->tick = snap->revision = snap->frame + 1;
        if (orr_renderer_render(renderer, desc, &stats) != ORR_OK || orr_renderer_finish(renderer, &stats) != ORR_OK) {
            free(times);
            return fail(renderer, name);
        }
        times[f] = stats.time.gpu_ms;
    }
    qsort(times, frames, sizeof *times, by_value);
    *gpu_ms = times[frames / 2];
    free(times);
    if (orr_renderer_read_target(renderer, desc->target, pixels, size) != ORR_OK) return fail(renderer, name);
    *calls = stats.draws.calls;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", out_dir, name);
    orr_error err;
    if (orr_gpu_write_png(path, width, height, pixels, &err) != ORR_OK) {
        fprintf(stderr, "deferred: %s\n", err.message);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long width = 320, height = 200;
    const char *out_dir = ".";
    bool validation = false;
    unsigned long frames = 1;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            width = strtoul(argv[++i], &end, 10);
            if (*end != 'x') return usage();
            height = strtoul(end + 1, &end, 10);
            if (*end || width < 1 || height < 1 || width > 4096 || height > 4096) return usage();
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = strtoul(argv[++i], &end, 10);
            if (*end || frames < 1 || frames > 100000) return usage();
        } else if (!strcmp(argv[i], "--validation")) {
            validation = true;
        } else {
            return usage();
        }
    }

    log_state log = {0};
    orr_assets *assets = NULL;
    orr_renderer *renderer = NULL;
    uint8_t *forward = NULL, *deferred = NULL;
    char *graph = NULL;
    int status = 1;
    orr_error err;

    orr_mesh_id cube, sphere;
    orr_material_id paint[OBJECTS];
    static const float colors[OBJECTS][3] = {
        {0.8f, 0.08f, 0.05f}, {0.1f, 0.7f, 0.15f}, {0.05f, 0.15f, 0.9f}, {0.35f, 0.35f, 0.35f}};
    static const float metallic[OBJECTS] = {0.0f, 0.0f, 0.6f, 0.0f}, roughness[OBJECTS] = {0.6f, 0.35f, 0.4f, 0.8f};
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK || add_cube(assets, &cube) != ORR_OK ||
        add_sphere(assets, &sphere) != ORR_OK) {
        fprintf(stderr, "deferred: cannot build the asset library (out of memory)\n");
        goto done;
    }
    for (int k = 0; k < OBJECTS; k++) {
        orr_material m = orr_material_default();
        memcpy(m.base_color, colors[k], sizeof colors[k]);
        m.metallic = metallic[k];
        m.roughness = roughness[k];
        if (orr_assets_add_material(assets, &m, &paint[k]) != ORR_OK) {
            fprintf(stderr, "deferred: %s\n", orr_assets_last_error(assets)->message);
            goto done;
        }
    }
    /* red cube, green sphere, blue cube, ground (a flat cube) */
    static const char names[] = "red\0sphere\0blue\0ground\0camera\0sun\0lamp";
    static const uint32_t name_at[OBJECTS] = {0, 4, 11, 16};
    const orr_mesh_id meshes[OBJECTS] = {cube, sphere, cube, cube};
    const orr_affine3d worlds[OBJECTS] = {place(-1.4, 0, 0, 1, 1, 1), place(0, 0.1, 0.2, 1.2, 1.2, 1.2),
                                          place(1.4, 0, -0.2, 1, 1, 1), place(0, -0.6, 0, 6, 0.2, 4)};
    orr_render_instance instances[OBJECTS];
    orr_material_id bindings[OBJECTS];
    uint32_t index_of[OBJECTS], changed[OBJECTS];
    for (uint32_t k = 0; k < OBJECTS; k++) {
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, meshes[k]);
        orr_aabbf box = {{(float)mesh->bounds.min.x, (float)mesh->bounds.min.y, (float)mesh->bounds.min.z},
                         {(float)mesh->bounds.max.x, (float)mesh->bounds.max.y, (float)mesh->bounds.max.z}};
        instances[k] = (orr_render_instance){.world = worlds[k], .entity = {k + 1, 1}, .id = k, .layers = 1,
                                             .visible = true, .casts_shadows = true, .mesh = meshes[k],
                                             .bounds = box, .name = name_at[k], .material_offset = k,
                                             .material_count = 1};
        bindings[k] = paint[k];
        index_of[k] = k;
    }
    orr_render_camera camera = {.entity = {10, 1}, .name = 23, .projection = ORR_PERSPECTIVE, .yfov = 0.8,
                                .znear = 0.05};
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 2.0, 5.5},
                       orr_quatd_look_rotation((orr_vec3d){0, -2.0, -5.5}, (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &camera.world);
    orr_render_light lights[2] = {
        {.entity = {11, 1}, .name = 30, .type = ORR_LIGHT_DIRECTIONAL, .color = {1, 1, 1}, .intensity = 3},
        {.entity = {12, 1}, .name = 34, .type = ORR_LIGHT_POINT, .color = {1, 0.6f, 0.3f}, .intensity = 4,
         .range = 6},
    };
    orr_mat4d_from_trs((orr_vec3d){0, 0, 0},
                       orr_quatd_look_rotation((orr_vec3d){-0.5, -0.8, -0.6}, (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &lights[0].world);
    lights[1].world = place(0.7, 1.0, 1.3, 1, 1, 1);
    orr_snapshot snap = {.structure_version = 1, .layout_version = 1, .instance_count = OBJECTS,
                         .instances = instances, .light_count = 2, .lights = lights, .camera_count = 1,
                         .cameras = &camera, .material_binding_count = OBJECTS, .material_bindings = bindings,
                         .changed = changed, .names_size = sizeof names, .names = (char *)names,
                         .index_capacity = OBJECTS, .index_of = index_of};

    orr_renderer_desc rd = {.validation = validation, .validate_synchronization = validation,
                            .logger = {.log = log_line, .user = &log}};
    if (orr_renderer_create(&rd, &renderer, &err) != ORR_OK) {
        fprintf(stderr, "deferred: %s\n", err.message);
        goto done;
    }
    orr_target_id target;
    orr_view_id view;
    /* one sample per pixel: scene techniques draw into single-sampled targets */
    static const float clear[4] = {0.02f, 0.02f, 0.03f, 1};
    orr_target_desc td = {.width = (uint32_t)width, .height = (uint32_t)height,
                          .clear_color = {clear[0], clear[1], clear[2], clear[3]}, .readback = true, .samples = 1};
    size_t n = (size_t)width * height;
    forward = malloc(n * 4);
    deferred = malloc(n * 4);
    graph = malloc(8192);
    if (!forward || !deferred || !graph) {
        fprintf(stderr, "deferred: out of memory\n");
        goto done;
    }
    if (orr_renderer_bind_library(renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(renderer, &td, &target) != ORR_OK ||
        orr_renderer_create_view(renderer, &(orr_view_desc){.target = target, .camera = camera.entity}, &view) !=
            ORR_OK) {
        fail(renderer, "setup");
        goto done;
    }
    orr_render_desc desc = {.target = target, .snapshot = &snap};
    uint32_t forward_calls, deferred_calls;
    double forward_ms, deferred_ms;
    if (frame_png(renderer, &desc, &snap, (uint32_t)frames, forward, (uint32_t)width, (uint32_t)height, out_dir,
                  "forward", &forward_calls, &forward_ms))
        goto done;

    /* The three techniques, listed in running order. */
    static const orr_technique_write gbuffer_writes[] = {
        {.name = "albedo", .format = ORR_FORMAT_RGBA16F},
        {.name = "normal", .format = ORR_FORMAT_RGBA16F},
        {.name = "mro", .format = ORR_FORMAT_RGBA8_UNORM},
    };
    static const char *const lighting_reads[] = {"albedo", "normal", "mro", "depth"};
    /* every pixel written (alpha 0 where nothing was drawn): no clear needed */
    static const orr_technique_write lighting_writes[] = {
        {.name = "lit", .format = ORR_FORMAT_RGBA16F, .load = ORR_LOAD_DONT_CARE}};
    static const char *const present_reads[] = {"lit"};
    static const orr_technique_write present_writes[] = {{.name = "color"}};
    orr_technique_desc list[3] = {
        {.name = "gbuffer", .kind = ORR_TECHNIQUE_SCENE, .view = view,
         .fragment = {.glsl = GBUFFER_FRAG, .name = "gbuffer.frag"}, .writes = gbuffer_writes, .write_count = 3,
         .scene = {.depth_write = true, .depth_load = ORR_LOAD_CLEAR, .depth_clear = 0.0f,
                   .strategy = ORR_TECHNIQUE_BATCHED, .replaces_view = true}},
        {.name = "lighting", .kind = ORR_TECHNIQUE_COMPUTE, .view = view, .reads = lighting_reads, .read_count = 4,
         .writes = lighting_writes, .write_count = 1, .push_constant_size = 16,
         .compute = {.shader = {.glsl = LIGHTING_COMP, .name = "lighting.comp"}, .dispatch = ORR_DISPATCH_PER_PIXEL}},
        {.name = "present", .fragment = {.glsl = PRESENT_FRAG, .name = "present.frag"}, .reads = present_reads,
         .read_count = 1, .writes = present_writes, .write_count = 1},
    };
    orr_technique_id ids[3];
    float rect[4] = {0, 0, (float)width, (float)height}; /* the view covers the target */
    if (orr_renderer_set_techniques(renderer, target, list, 3, ids) != ORR_OK ||
        orr_renderer_set_technique_data(renderer, ids[1], rect, sizeof rect) != ORR_OK) {
        fail(renderer, "techniques");
        goto done;
    }
    if (frame_png(renderer, &desc, &snap, (uint32_t)frames, deferred, (uint32_t)width, (uint32_t)height, out_dir,
                  "deferred", &deferred_calls, &deferred_ms))
        goto done;
    orr_renderer_describe_techniques(renderer, target, graph, 8192);
    char path[4096];
    snprintf(path, sizeof path, "%s/deferred_graph.txt", out_dir);
    FILE *gf = fopen(path, "w");
    if (!gf || fputs(graph, gf) < 0 || fclose(gf)) {
        fprintf(stderr, "deferred: cannot write %s\n", path);
        goto done;
    }

    /* The comparison, over the pixels either image drew (not the clear colour). */
    uint8_t bg[4];
    memcpy(bg, forward, 4); /* the top left corner is sky in this framing */
    uint32_t drawn_forward = 0, drawn_deferred = 0, compared = 0, off = 0, worst = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        bool f = memcmp(forward + 4 * i, bg, 4) != 0, d = memcmp(deferred + 4 * i, bg, 4) != 0;
        drawn_forward += f, drawn_deferred += d;
        if (!f && !d) continue;
        compared++;
        uint32_t most = 0;
        for (int c = 0; c < 3; c++) {
            uint32_t diff = (uint32_t)abs((int)forward[4 * i + c] - (int)deferred[4 * i + c]);
            sum += diff;
            if (diff > most) most = diff;
        }
        off += most > 2;
        if (most > worst) worst = most;
    }
    printf("{\"image\": \"forward\", \"draw_calls\": %u, \"gpu_ms\": %.4f, \"drawn\": %u, \"png\": "
           "\"%s/forward.png\"}\n",
           forward_calls, forward_ms, drawn_forward, out_dir);
    printf("{\"image\": \"deferred\", \"draw_calls\": %u, \"gpu_ms\": %.4f, \"drawn\": %u, \"compared\": %u, "
           "\"max_diff\": %u, \"off_by_more_than_2\": %u, \"mean_diff_x1000\": %llu, \"png\": \"%s/deferred.png\"}\n",
           deferred_calls, deferred_ms, drawn_deferred, compared, worst, off,
           compared ? (unsigned long long)(sum * 1000 / (3ull * compared)) : 0ull, out_dir);
    if (orr_renderer_finish(renderer, NULL) == ORR_OK) status = 0;
done:
    orr_renderer_destroy(renderer);
    orr_assets_destroy(assets);
    free(forward);
    free(deferred);
    free(graph);
    if (log.validation_messages) {
        fprintf(stderr, "deferred: %u validation messages\n", log.validation_messages);
        status = 1;
    }
    return status;
}
