/* Mesh techniques (orrery/technique.h, orr_technique_scene.mesh): a scene technique whose task and mesh
 * shaders take the vertex stage's place. Here they mark instances: one point, seven pixels wide, at the
 * origin of every visible instance of the marked layer, over the built-in look.
 *
 *   mesh_markers [--size WxH] [--out DIR] [--validation] [--require-mesh-shaders]
 *
 * Fifteen cubes in three rows on a grey ground, every other one on the marked layer, rendered:
 *   plain.png      the built-in look, no technique;
 *   vertex.png     the markers of a vertex technique: its shader places each corner of the instance's
 *                  triangles at the instance's origin (ORR_TECHNIQUE_CORNERS: points), the reference;
 *   mesh.png       the markers of a mesh technique dispatched per record: a mesh workgroup per visible
 *                  record emits the one point (or none, for an instance the layer filter drops);
 *   task_mesh.png  the same with a task shader first: a task workgroup per record launches the mesh
 *                  workgroup of a kept instance, whose slot it passes in its payload.
 * The mesh images must be the vertex image's bytes. On a renderer without mesh shaders (lavapipe) the
 * mesh techniques are refused at registration, with a message naming the technique; the example says
 * so (and fails with --require-mesh-shaders). Prints one JSON object per image. */
#include <orrery/gpu.h>
#include <orrery/snapshot.h>
#include <orrery/technique.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 3
#define COLUMNS 5
#define CUBES (ROWS * COLUMNS)
#define OBJECTS (CUBES + 1) /* and the ground */
#define LAYER_PLAIN 1u
#define LAYER_MARKED 2u

/* The host data of every marker shader (20 bytes); a mesh technique dispatched per record sees the
 * run's first record after it. */
typedef struct marker {
    float color[4];
    float size; /* pixels */
} marker;

static const char *const MARK_FRAG =
    "#version 450\n"
    "layout(push_constant) uniform Marker { vec4 color; float size; } pc;\n"
    "layout(location = 0) out vec4 o;\n"
    "void main() { o = pc.color; }\n";

static const char *const MARK_VERT =
    "#version 450\n"
    "#define ORR_SCENE_VERTEX\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(push_constant) uniform Marker { vec4 color; float size; } pc;\n"
    "void main()\n"
    "{\n"
    "    orr_gpu_record rec = orr_scene_record();\n"
    "    gl_PointSize = pc.size;\n"
    "    if (!orr_scene_layer_kept(rec.instance)) { gl_Position = ORR_SCENE_DROPPED; return; }\n"
    "    gl_Position = orr_scene_clip(orr_scene_place(rec.instance, vec3(0.0)));\n"
    "}\n";

/* One workgroup per record: orr_scene_group_record() reads it with the uint the library appends. */
static const char *const MARK_MESH =
    "#version 450\n"
    "#extension GL_EXT_mesh_shader : require\n"
    "#define ORR_SCENE_MESH\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(local_size_x = 1) in;\n"
    "layout(points, max_vertices = 1, max_primitives = 1) out;\n"
    "layout(push_constant) uniform Marker { vec4 color; float size; uint first; } pc;\n"
    "void main()\n"
    "{\n"
    "    orr_gpu_record rec = orr_scene_group_record(pc.first);\n"
    "    bool kept = orr_scene_layer_kept(rec.instance);\n"
    "    SetMeshOutputsEXT(kept ? 1u : 0u, kept ? 1u : 0u);\n"
    "    if (!kept) return;\n"
    "    gl_MeshVerticesEXT[0].gl_Position = orr_scene_clip(orr_scene_place(rec.instance, vec3(0.0)));\n"
    "    gl_MeshVerticesEXT[0].gl_PointSize = pc.size;\n"
    "    gl_PrimitivePointIndicesEXT[0] = 0u;\n"
    "}\n";

static const char *const MARK_TASK =
    "#version 450\n"
    "#extension GL_EXT_mesh_shader : require\n"
    "#define ORR_SCENE_TASK\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(local_size_x = 1) in;\n"
    "layout(push_constant) uniform Marker { vec4 color; float size; uint first; } pc;\n"
    "struct Marked { uint instance; };\n"
    "taskPayloadSharedEXT Marked marked;\n"
    "void main()\n"
    "{\n"
    "    orr_gpu_record rec = orr_scene_group_record(pc.first);\n"
    "    marked.instance = rec.instance;\n"
    "    EmitMeshTasksEXT(orr_scene_layer_kept(rec.instance) ? 1u : 0u, 1u, 1u);\n"
    "}\n";

/* After the task stage: the instance comes in the payload; the host block without the record's uint. */
static const char *const MARK_MESH_OF_TASK =
    "#version 450\n"
    "#extension GL_EXT_mesh_shader : require\n"
    "#define ORR_SCENE_MESH\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(local_size_x = 1) in;\n"
    "layout(points, max_vertices = 1, max_primitives = 1) out;\n"
    "layout(push_constant) uniform Marker { vec4 color; float size; } pc;\n"
    "struct Marked { uint instance; };\n"
    "taskPayloadSharedEXT Marked marked;\n"
    "void main()\n"
    "{\n"
    "    SetMeshOutputsEXT(1u, 1u);\n"
    "    gl_MeshVerticesEXT[0].gl_Position = orr_scene_clip(orr_scene_place(marked.instance, vec3(0.0)));\n"
    "    gl_MeshVerticesEXT[0].gl_PointSize = pc.size;\n"
    "    gl_PrimitivePointIndicesEXT[0] = 0u;\n"
    "}\n";

typedef struct log_state {
    uint32_t validation_messages;
} log_state;

static void log_line(void *user, orr_log_level level, const char *message)
{
    log_state *l = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) l->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "mesh_markers: %s\n", message);
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

/* Turned by `yaw` about +Y, scaled by s (the ground: flattened). */
static orr_affine3d place(double x, double y, double z, double yaw, double sx, double sy, double sz)
{
    orr_affine3d a;
    orr_affine3d_identity(&a);
    double c = cos(yaw), s = sin(yaw);
    a.m[0] = c * sx, a.m[2] = -s * sx;
    a.m[4] = sy;
    a.m[6] = s * sz, a.m[8] = c * sz;
    a.m[9] = x, a.m[10] = y, a.m[11] = z;
    return a;
}

static int usage(void)
{
    fprintf(stderr, "usage: mesh_markers [--size WxH] [--out DIR] [--validation] [--require-mesh-shaders]\n");
    return 2;
}

static int fail(orr_renderer *r, const char *what)
{
    fprintf(stderr, "mesh_markers: %s: %s\n", what, orr_renderer_last_error(r)->message);
    return 1;
}

/* Renders a frame into `pixels` and writes OUT/name.png (path into `path`). */
static int frame_png(orr_renderer *renderer, const orr_render_desc *desc, uint8_t *pixels, uint32_t width,
                     uint32_t height, const char *out_dir, const char *name, char *path, size_t path_size)
{
    size_t size = (size_t)width * height * 4;
    if (orr_renderer_render(renderer, desc, NULL) != ORR_OK ||
        orr_renderer_read_target(renderer, desc->target, pixels, size) != ORR_OK)
        return fail(renderer, name);
    snprintf(path, path_size, "%s/%s.png", out_dir, name);
    orr_error err;
    if (orr_gpu_write_png(path, width, height, pixels, &err) != ORR_OK) {
        fprintf(stderr, "mesh_markers: %s\n", err.message);
        return 1;
    }
    return 0;
}

/* The message as a JSON string's contents (quotes and backslashes dropped). */
static void json_text(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (; *in && n + 1 < size; in++)
        if (*in != '"' && *in != '\\' && (unsigned char)*in >= 0x20) out[n++] = *in;
    out[n] = '\0';
}

int main(int argc, char **argv)
{
    unsigned long width = 320, height = 200;
    const char *out_dir = ".";
    bool validation = false, require = false;
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
        } else if (!strcmp(argv[i], "--require-mesh-shaders")) {
            require = true;
        } else {
            return usage();
        }
    }

    log_state log = {0};
    orr_assets *assets = NULL;
    orr_renderer *renderer = NULL;
    uint8_t *pixels = NULL, *plain = NULL, *reference = NULL;
    int status = 1;
    orr_error err;
    size_t size = (size_t)width * height * 4;
    char path[4096];

    orr_mesh_id cube;
    orr_material_id paint[2];
    static const float colors[2][3] = {{0.15f, 0.35f, 0.8f}, {0.35f, 0.35f, 0.35f}};
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK || add_cube(assets, &cube) != ORR_OK) {
        fprintf(stderr, "mesh_markers: cannot build the asset library (out of memory)\n");
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        orr_material m = orr_material_default();
        memcpy(m.base_color, colors[k], sizeof colors[k]);
        m.metallic = 0.0f;
        m.roughness = 0.6f;
        if (orr_assets_add_material(assets, &m, &paint[k]) != ORR_OK) {
            fprintf(stderr, "mesh_markers: %s\n", orr_assets_last_error(assets)->message);
            goto done;
        }
    }
    static const char names[] = "cube\0ground\0camera\0sun";
    orr_render_instance instances[OBJECTS];
    orr_material_id bindings[OBJECTS];
    uint32_t index_of[OBJECTS], changed[OBJECTS];
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, cube);
    orr_aabbf box = {{(float)mesh->bounds.min.x, (float)mesh->bounds.min.y, (float)mesh->bounds.min.z},
                     {(float)mesh->bounds.max.x, (float)mesh->bounds.max.y, (float)mesh->bounds.max.z}};
    for (uint32_t k = 0; k < OBJECTS; k++) {
        bool ground = k == CUBES;
        double x = 1.2 * ((double)(k % COLUMNS) - 2.0), z = -1.6 * (double)(k / COLUMNS);
        instances[k] = (orr_render_instance){
            .world = ground ? place(0, -0.6, -1.6, 0, 8, 0.2, 6) : place(x, 0, z, 0.3 * k, 0.6, 0.6, 0.6),
            .entity = {k + 1, 1}, .id = k, .layers = !ground && k % 2 ? LAYER_MARKED : LAYER_PLAIN,
            .visible = true, .mesh = cube, .bounds = box, .name = ground ? 5 : 0, .material_offset = k,
            .material_count = 1};
        bindings[k] = paint[ground ? 1 : 0];
        index_of[k] = k;
    }
    orr_render_camera camera = {.entity = {100, 1}, .name = 12, .projection = ORR_PERSPECTIVE, .yfov = 0.8,
                                .znear = 0.05};
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){0, 2.5, 4.5},
                       orr_quatd_look_rotation((orr_vec3d){0, -2.5, -6.0}, (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &camera.world);
    orr_render_light sun = {.entity = {101, 1}, .name = 19, .type = ORR_LIGHT_DIRECTIONAL, .color = {1, 1, 1},
                            .intensity = 3};
    orr_mat4d_from_trs((orr_vec3d){0, 0, 0},
                       orr_quatd_look_rotation((orr_vec3d){-0.5, -0.8, -0.6}, (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE, &m);
    orr_affine3d_from_mat4d(&m, &sun.world);
    orr_snapshot snap = {.structure_version = 1, .layout_version = 1, .instance_count = OBJECTS,
                         .instances = instances, .light_count = 1, .lights = &sun, .camera_count = 1,
                         .cameras = &camera, .material_binding_count = OBJECTS, .material_bindings = bindings,
                         .changed = changed, .names_size = sizeof names, .names = (char *)names,
                         .index_capacity = OBJECTS, .index_of = index_of};

    orr_renderer_desc rd = {.validation = validation, .validate_synchronization = validation,
                            .logger = {.log = log_line, .user = &log}};
    if (orr_renderer_create(&rd, &renderer, &err) != ORR_OK) {
        fprintf(stderr, "mesh_markers: %s\n", err.message);
        goto done;
    }
    orr_target_id target;
    orr_view_id view;
    orr_target_desc td = {.width = (uint32_t)width, .height = (uint32_t)height,
                          .clear_color = {0.02f, 0.02f, 0.03f, 1}, .readback = true, .samples = 1};
    pixels = malloc(size);
    plain = malloc(size);
    reference = malloc(size);
    if (!pixels || !plain || !reference) {
        fprintf(stderr, "mesh_markers: out of memory\n");
        goto done;
    }
    /* a view culled on the CPU (the batched strategy's default): it tells a per-record dispatch its records */
    if (orr_renderer_bind_library(renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(renderer, &td, &target) != ORR_OK ||
        orr_renderer_create_view(renderer,
                                 &(orr_view_desc){.target = target, .camera = camera.entity,
                                                  .strategy = ORR_STRATEGY_BATCHED},
                                 &view) != ORR_OK) {
        fail(renderer, "setup");
        goto done;
    }
    orr_render_desc desc = {.target = target, .snapshot = &snap};
    uint64_t frame = 1;
    snap.frame = snap.tick = snap.revision = frame++;
    if (frame_png(renderer, &desc, plain, (uint32_t)width, (uint32_t)height, out_dir, "plain", path, sizeof path))
        goto done;
    printf("{\"image\": \"plain\", \"png\": \"%s\"}\n", path);

    /* The reference: a vertex technique, points at each instance's origin. */
    static const orr_technique_write to_color[] = {{.name = "color"}};
    const marker yellow = {{1.0f, 0.9f, 0.0f, 1.0f}, 7.0f};
    orr_technique_desc vertex = {.name = "markers", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                 .fragment = {.glsl = MARK_FRAG, .name = "markers.frag"},
                                 .writes = to_color, .write_count = 1, .push_constant_size = sizeof(marker),
                                 .scene = {.vertex = {.glsl = MARK_VERT, .name = "markers.vert"},
                                           .depth_test = ORR_DEPTH_ALWAYS, .topology = ORR_TECHNIQUE_CORNERS,
                                           .layer_mask = LAYER_MARKED}};
    orr_technique_id id;
    if (orr_renderer_set_techniques(renderer, target, &vertex, 1, &id) != ORR_OK ||
        orr_renderer_set_technique_data(renderer, id, &yellow, sizeof yellow) != ORR_OK) {
        fail(renderer, "vertex markers");
        goto done;
    }
    snap.frame = snap.tick = snap.revision = frame++;
    if (frame_png(renderer, &desc, reference, (uint32_t)width, (uint32_t)height, out_dir, "vertex", path,
                  sizeof path))
        goto done;
    uint32_t marked = 0, other = 0;
    for (size_t i = 0; i < (size_t)width * height; i++) {
        if (!memcmp(reference + 4 * i, plain + 4 * i, 4)) continue;
        const uint8_t *p = reference + 4 * i;
        if (p[0] == 255 && p[1] > 200 && p[2] == 0) marked++;
        else other++;
    }
    printf("{\"image\": \"vertex\", \"marker_pixels\": %u, \"other_changed\": %u, \"png\": \"%s\"}\n", marked, other,
           path);

    /* The mesh techniques: the same markers from a mesh stage, and from a task stage and a mesh stage. */
    bool mesh_shaders = orr_renderer_uses_mesh_shaders(renderer);
    bool same_everywhere = true;
    for (int task = 0; task < 2; task++) {
        const char *name = task ? "task_mesh" : "mesh";
        orr_technique_desc d = vertex;
        d.scene.vertex = (orr_shader_desc){0};
        d.scene.topology = ORR_TECHNIQUE_FILLED;
        d.scene.mesh = (orr_shader_desc){.glsl = task ? MARK_MESH_OF_TASK : MARK_MESH, .name = "markers.mesh"};
        if (task) d.scene.task = (orr_shader_desc){.glsl = MARK_TASK, .name = "markers.task"};
        orr_result rc = orr_renderer_set_techniques(renderer, target, &d, 1, &id);
        if (!mesh_shaders) {
            char msg[512];
            json_text(orr_renderer_last_error(renderer)->message, msg, sizeof msg);
            printf("{\"image\": \"%s\", \"mesh_shaders\": false, \"result\": \"%s\", \"refused\": \"%s\"}\n", name,
                   orr_result_name(rc), msg);
            if (rc != ORR_ERROR_UNSUPPORTED) same_everywhere = false;
            continue;
        }
        if (rc != ORR_OK || orr_renderer_set_technique_data(renderer, id, &yellow, sizeof yellow) != ORR_OK) {
            fail(renderer, name);
            goto done;
        }
        snap.frame = snap.tick = snap.revision = frame++;
        if (frame_png(renderer, &desc, pixels, (uint32_t)width, (uint32_t)height, out_dir, name, path, sizeof path))
            goto done;
        uint32_t differing = 0;
        for (size_t i = 0; i < (size_t)width * height; i++) differing += memcmp(pixels + 4 * i, reference + 4 * i, 4) != 0;
        printf("{\"image\": \"%s\", \"mesh_shaders\": true, \"same_as_vertex\": %s, \"differing\": %u, "
               "\"png\": \"%s\"}\n",
               name, differing ? "false" : "true", differing, path);
        if (differing) same_everywhere = false;
    }
    if (!mesh_shaders && require) {
        fprintf(stderr, "mesh_markers: '%s' has no mesh shaders, and --require-mesh-shaders was given\n",
                orr_renderer_device_name(renderer));
        goto done;
    }
    if (same_everywhere && orr_renderer_finish(renderer, NULL) == ORR_OK) status = 0;
done:
    orr_renderer_destroy(renderer);
    orr_assets_destroy(assets);
    free(pixels);
    free(plain);
    free(reference);
    if (log.validation_messages) {
        fprintf(stderr, "mesh_markers: %u validation messages\n", log.validation_messages);
        status = 1;
    }
    return status;
}
