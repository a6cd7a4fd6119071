/* A post-process: a colour grade that the host adds to the renderer as a full-screen technique
 * (orrery/technique.h), after the built-in look. The grade is a 3 x 3 colour matrix applied to the
 * target's colour in linear light; its GLSL is compiled when the technique is registered, and the
 * matrix is the technique's host data (push constants), changed between frames without registering
 * anything again.
 *
 *   post_process [--size WxH] [--out DIR] [--validation]
 *
 * renders three cubes (red, green, blue) four times: without the technique (plain.png), then with it
 * and the identity matrix (identity.png: the same bytes), red and blue swapped (swap.png), and a
 * monochrome grade (mono.png: luminance weights in every row, so R == G == B on every pixel). Prints
 * one JSON object per image: its name, whether it has the plain image's bytes, how many pixels are
 * grey (R == G == B) of how many, how many grey levels it has, the PNG. */
#include <orrery/gpu.h>
#include <orrery/snapshot.h>
#include <orrery/technique.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUBES 3

/* The grade: o = M c, the matrix's rows as three vec4s (std430 push constant layout: 48 bytes). */
static const char *const GRADE_GLSL =
    "#version 450\n"
    "layout(location = 0) in vec2 uv;\n"
    "layout(set = 0, binding = 0) uniform sampler2D color;\n"
    "layout(push_constant) uniform Grade { vec4 rows[3]; } grade;\n"
    "layout(location = 0) out vec4 o;\n"
    "void main()\n"
    "{\n"
    "    vec4 c = texelFetch(color, ivec2(gl_FragCoord.xy), 0);\n"
    "    o = vec4(dot(grade.rows[0].rgb, c.rgb), dot(grade.rows[1].rgb, c.rgb), dot(grade.rows[2].rgb, c.rgb), c.a);\n"
    "}\n";

typedef struct grade {
    const char *name;
    float rows[3][4];
} grade;

typedef struct log_state {
    uint32_t validation_messages;
} log_state;

static void log_line(void *user, orr_log_level level, const char *message)
{
    log_state *l = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) l->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "post_process: %s\n", message);
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

/* A pose: translation only (binary64, as the snapshot holds it). */
static orr_affine3d at(double x, double y, double z)
{
    orr_affine3d a;
    orr_affine3d_identity(&a);
    a.m[9] = x, a.m[10] = y, a.m[11] = z;
    return a;
}

static int usage(void)
{
    fprintf(stderr, "usage: post_process [--size WxH] [--out DIR] [--validation]\n");
    return 2;
}

/* Renders one frame and writes it as OUT/name.png; `plain` (NULL-able) is compared with it. */
static int frame_png(orr_renderer *renderer, const orr_render_desc *desc, uint8_t *pixels, uint32_t width,
                     uint32_t height, const char *out_dir, const char *name, const uint8_t *plain)
{
    size_t size = (size_t)width * height * 4;
    if (orr_renderer_render(renderer, desc, NULL) != ORR_OK ||
        orr_renderer_read_target(renderer, desc->target, pixels, size) != ORR_OK) {
        fprintf(stderr, "post_process: %s: %s\n", name, orr_renderer_last_error(renderer)->message);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", out_dir, name);
    orr_error err;
    if (orr_gpu_write_png(path, width, height, pixels, &err) != ORR_OK) {
        fprintf(stderr, "post_process: %s\n", err.message);
        return 1;
    }
    uint32_t grey = 0, levels = 0;
    bool seen[256] = {false};
    for (size_t i = 0; i < (size_t)width * height; i++) {
        const uint8_t *p = pixels + 4 * i;
        if (p[0] == p[1] && p[1] == p[2]) {
            grey++;
            if (!seen[p[0]]) seen[p[0]] = true, levels++;
        }
    }
    printf("{\"image\": \"%s\", \"same_as_plain\": %s, \"grey_pixels\": %u, \"pixels\": %u, \"grey_levels\": %u, "
           "\"png\": \"%s\"}\n",
           name, plain && !memcmp(plain, pixels, size) ? "true" : "false", grey, width * height, levels, path);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long width = 320, height = 180;
    const char *out_dir = ".";
    bool validation = false;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            width = strtoul(argv[++i], &end, 10);
            if (*end != 'x') return usage();
            height = strtoul(end + 1, &end, 10);
            if (*end || width < 1 || height < 1 || width > 4096 || height > 4096) return usage();
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--validation")) {
            validation = true;
        } else {
            return usage();
        }
    }

    log_state log = {0};
    orr_assets *assets = NULL;
    orr_renderer *renderer = NULL;
    uint8_t *pixels = NULL, *plain = NULL;
    int status = 1;
    orr_error err;

    /* The scene: three cubes (red, green, blue), a camera and a sun, in a snapshot built by hand. */
    orr_mesh_id cube;
    orr_material_id paint[CUBES];
    static const float colors[CUBES][3] = {{0.9f, 0.08f, 0.05f}, {0.08f, 0.8f, 0.1f}, {0.05f, 0.15f, 0.9f}};
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK || add_cube(assets, &cube) != ORR_OK) {
        fprintf(stderr, "post_process: cannot build the asset library (out of memory)\n");
        goto done;
    }
    for (int k = 0; k < CUBES; k++) {
        orr_material m = orr_material_default();
        memcpy(m.base_color, colors[k], sizeof colors[k]);
        m.metallic = 0.0f;
        if (orr_assets_add_material(assets, &m, &paint[k]) != ORR_OK) {
            fprintf(stderr, "post_process: %s\n", orr_assets_last_error(assets)->message);
            goto done;
        }
    }
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, cube);
    orr_aabbf box = {{(float)mesh->bounds.min.x, (float)mesh->bounds.min.y, (float)mesh->bounds.min.z},
                     {(float)mesh->bounds.max.x, (float)mesh->bounds.max.y, (float)mesh->bounds.max.z}};

    static const char names[] = "red\0green\0blue\0camera\0sun";
    orr_render_instance instances[CUBES];
    orr_material_id bindings[CUBES];
    uint32_t index_of[CUBES], changed[CUBES];
    for (uint32_t k = 0; k < CUBES; k++) {
        instances[k] = (orr_render_instance){
            .world = at(-1.5 + 1.5 * k, k == 2 ? -1.0 : 0.0, 0), .entity = {k + 1, 1}, .id = k, .layers = 1,
            .visible = true, .casts_shadows = true, .mesh = cube, .bounds = box,
            .name = k == 0 ? 0 : k == 1 ? 4 : 10, .material_offset = k, .material_count = 1};
        bindings[k] = paint[k];
        index_of[k] = k;
    }
    orr_render_camera camera = {.entity = {10, 1}, .name = 15, .projection = ORR_PERSPECTIVE, .yfov = 0.8,
                                .znear = 0.05};
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 1.0, 6}, orr_quatd_look_rotation((orr_vec3d){0, -1.0, -6}, (orr_vec3d){0, 1, 0}),
                       ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &camera.world);
    orr_render_light sun = {.entity = {11, 1}, .name = 22, .type = ORR_LIGHT_DIRECTIONAL, .color = {1, 1, 1},
                            .intensity = 3};
    orr_mat4d_from_trs((orr_vec3d){0, 0, 0}, orr_quatd_look_rotation((orr_vec3d){-0.3, -0.6, -1}, (orr_vec3d){0, 1, 0}),
                       ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &sun.world);
    orr_snapshot snap = {.structure_version = 1, .layout_version = 1, .instance_count = CUBES, .instances = instances,
                         .light_count = 1, .lights = &sun, .camera_count = 1, .cameras = &camera,
                         .material_binding_count = CUBES, .material_bindings = bindings, .changed = changed,
                         .names_size = sizeof names, .names = (char *)names, .index_capacity = CUBES,
                         .index_of = index_of};

    orr_renderer_desc rd = {.validation = validation, .logger = {.log = log_line, .user = &log}};
    if (orr_renderer_create(&rd, &renderer, &err) != ORR_OK) {
        fprintf(stderr, "post_process: %s\n", err.message);
        goto done;
    }
    orr_target_id target;
    orr_view_id view;
    orr_target_desc td = {.width = (uint32_t)width, .height = (uint32_t)height, .clear_color = {0.02f, 0.02f, 0.03f, 1},
                          .readback = true};
    pixels = malloc((size_t)width * height * 4);
    plain = malloc((size_t)width * height * 4);
    if (!pixels || !plain || orr_renderer_bind_library(renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(renderer, &td, &target) != ORR_OK ||
        orr_renderer_create_view(renderer, &(orr_view_desc){.target = target, .camera = camera.entity}, &view) != ORR_OK) {
        fprintf(stderr, "post_process: %s\n", pixels && plain ? orr_renderer_last_error(renderer)->message : "out of memory");
        goto done;
    }
    snap.frame = snap.tick = snap.revision = 1;
    orr_render_desc desc = {.target = target, .snapshot = &snap};
    if (frame_png(renderer, &desc, pixels, (uint32_t)width, (uint32_t)height, out_dir, "plain", NULL)) goto done;
    memcpy(plain, pixels, (size_t)width * height * 4);

    /* The grade: reads the target's colour after the views, writes it back (the library reads a copy
     * made just before), 48 bytes of host data. Registration compiles and checks it. */
    static const char *const reads[] = {"color"};
    static const orr_technique_write writes[] = {{.name = "color"}};
    orr_technique_desc grade_desc = {.name = "grade", .fragment = {.glsl = GRADE_GLSL, .name = "grade.frag"},
                                     .reads = reads, .read_count = 1, .writes = writes, .write_count = 1,
                                     .push_constant_size = sizeof(float[3][4])};
    orr_technique_id grade_id;
    if (orr_renderer_set_techniques(renderer, target, &grade_desc, 1, &grade_id) != ORR_OK) {
        fprintf(stderr, "post_process: %s\n", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    static const grade grades[] = {
        {"identity", {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}},
        {"swap", {{0, 0, 1, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}}},
        {"mono", {{0.2126f, 0.7152f, 0.0722f, 0}, {0.2126f, 0.7152f, 0.0722f, 0}, {0.2126f, 0.7152f, 0.0722f, 0}}},
    };
    for (size_t g = 0; g < sizeof grades / sizeof grades[0]; g++) {
        snap.frame = snap.tick = snap.revision = g + 2; /* the same scene, taken whole each frame */
        if (orr_renderer_set_technique_data(renderer, grade_id, grades[g].rows, sizeof grades[g].rows) != ORR_OK) {
            fprintf(stderr, "post_process: %s\n", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        if (frame_png(renderer, &desc, pixels, (uint32_t)width, (uint32_t)height, out_dir, grades[g].name, plain))
            goto done;
    }
    if (orr_renderer_finish(renderer, NULL) == ORR_OK) status = 0;
done:
    orr_renderer_destroy(renderer);
    orr_assets_destroy(assets);
    free(pixels);
    free(plain);
    if (log.validation_messages) {
        fprintf(stderr, "post_process: %u validation messages\n", log.validation_messages);
        status = 1;
    }
    return status;
}
