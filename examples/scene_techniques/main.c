/* Scene techniques (orrery/technique.h, ORR_TECHNIQUE_SCENE): the shared scene drawn again with the
 * host's shaders, which include the installed orrery/scene.glsl and read the scene's instances,
 * materials and lights exactly as the built-in shaders do.
 *
 *   scene_techniques [--size WxH] [--out DIR] [--validation]
 *
 * A red cube (layer 1), a green sphere (layer 2) and a blue cube (layer 4) on a grey ground (layer 1),
 * rendered four times:
 *   plain.png    the built-in look, no technique;
 *   prepass.png  a depth pre-pass before the view's built-in passes: depth only, no shader of the host's
 *                (the library's vertex stage); the forward pass then loads that depth. The same bytes;
 *   outline.png  a yellow outline of the selected layers (2 and 4): an inverted hull, the instances'
 *                back faces pushed outwards by a host vertex shader, drawn after the view
 *                with front faces culled, so only the rim outside each silhouette shows;
 *   toon.png     a toon shader for layer 2: after the view, with depth test EQUAL (exactly the surface
 *                the built-in pass left), N.L of the view's lights quantised to three bands of the
 *                material's base colour.
 * Prints one JSON object per image: its name, whether it has the plain image's bytes, how many pixels
 * differ from the plain image and how many distinct colours those pixels have, the PNG. */
#include <orrery/gpu.h>
#include <orrery/snapshot.h>
#include <orrery/technique.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBJECTS 4
#define LAYER_GROUND 1u
#define LAYER_TOON 2u
#define LAYER_SELECTED 4u

/* The outline: the record's instance, kept by the layer filter, each vertex pushed out from the mesh's
 * centre by a width in mesh units (host data). Away from the centre rather than along the normal: a
 * cube's faces have normals of their own at each corner, and pushed along those they would part and
 * leave gaps in the hull (the meshes here are convex around their origin). */
static const char *const HULL_VERT =
    "#version 450\n"
    "#define ORR_SCENE_VERTEX\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(push_constant) uniform Outline { vec4 color; float width; } outline;\n"
    "void main()\n"
    "{\n"
    "    orr_gpu_record rec = orr_scene_record();\n"
    "    if (!orr_scene_layer_kept(rec.instance)) { gl_Position = ORR_SCENE_DROPPED; return; }\n"
    "    vec3 p = orr_in_position + outline.width * normalize(orr_in_position);\n"
    "    gl_Position = orr_scene_clip(orr_scene_place(rec.instance, p));\n"
    "}\n";
static const char *const HULL_FRAG =
    "#version 450\n"
    "layout(push_constant) uniform Outline { vec4 color; float width; } outline;\n"
    "layout(location = 0) out vec4 o;\n"
    "void main() { o = outline.color; }\n";

/* The toon shader: what the library's vertex stage passes (ORR_SCENE_FRAGMENT), the material, the
 * view's lights. */
static const char *const TOON_FRAG =
    "#version 450\n"
    "#define ORR_SCENE_FRAGMENT\n"
    "#include \"orrery/scene.glsl\"\n"
    "layout(location = 0) out vec4 o;\n"
    "void main()\n"
    "{\n"
    "    orr_gpu_material m = materials[orr_material];\n"
    "    vec3 base = vec3(m.base_color[0], m.base_color[1], m.base_color[2]);\n"
    "    vec3 n = normalize(orr_normal);\n"
    "    float lit = 0.0;\n"
    "    for (uint i = 0u; i < u_view.params.z; i++) {\n"
    "        orr_gpu_light l = lights[u_view.params.y + i];\n"
    "        vec3 to_light = l.type == ORR_GPU_LIGHT_DIRECTIONAL\n"
    "            ? -vec3(l.direction[0], l.direction[1], l.direction[2])\n"
    "            : normalize(vec3(l.position[0], l.position[1], l.position[2]) - orr_world_rel);\n"
    "        lit = max(lit, dot(n, to_light));\n"
    "    }\n"
    "    float band = lit > 0.6 ? 1.0 : lit > 0.2 ? 0.6 : 0.3;\n"
    "    o = vec4(base * band, 1.0);\n"
    "}\n";

typedef struct log_state {
    uint32_t validation_messages;
} log_state;

static void log_line(void *user, orr_log_level level, const char *message)
{
    log_state *l = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) l->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "scene_techniques: %s\n", message);
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
    fprintf(stderr, "usage: scene_techniques [--size WxH] [--out DIR] [--validation]\n");
    return 2;
}

static int fail(orr_renderer *r, const char *what)
{
    fprintf(stderr, "scene_techniques: %s: %s\n", what, orr_renderer_last_error(r)->message);
    return 1;
}

/* Renders one frame, writes OUT/name.png and says how it differs from `plain` (NULL: it is the plain
 * image). */
static int frame_png(orr_renderer *renderer, const orr_render_desc *desc, uint8_t *pixels, uint32_t width,
                     uint32_t height, const char *out_dir, const char *name, const uint8_t *plain)
{
    size_t size = (size_t)width * height * 4;
    if (orr_renderer_render(renderer, desc, NULL) != ORR_OK ||
        orr_renderer_read_target(renderer, desc->target, pixels, size) != ORR_OK)
        return fail(renderer, name);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", out_dir, name);
    orr_error err;
    if (orr_gpu_write_png(path, width, height, pixels, &err) != ORR_OK) {
        fprintf(stderr, "scene_techniques: %s\n", err.message);
        return 1;
    }
    uint32_t changed = 0, colors = 0;
    uint32_t seen[64];
    for (size_t i = 0; plain && i < (size_t)width * height; i++) {
        if (!memcmp(pixels + 4 * i, plain + 4 * i, 4)) continue;
        changed++;
        uint32_t c;
        memcpy(&c, pixels + 4 * i, 4);
        uint32_t k = 0;
        while (k < colors && k < 64 && seen[k] != c) k++;
        if (k == colors) {
            if (colors < 64) seen[colors] = c;
            colors++;
        }
    }
    printf("{\"image\": \"%s\", \"same_as_plain\": %s, \"changed\": %u, \"changed_colors\": %u, \"png\": \"%s\"}\n",
           name, plain && !changed ? "true" : "false", changed, colors, path);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long width = 320, height = 200;
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

    orr_mesh_id cube, sphere;
    orr_material_id paint[OBJECTS];
    static const float colors[OBJECTS][3] = {
        {0.8f, 0.08f, 0.05f}, {0.1f, 0.7f, 0.15f}, {0.05f, 0.15f, 0.9f}, {0.35f, 0.35f, 0.35f}};
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK || add_cube(assets, &cube) != ORR_OK ||
        add_sphere(assets, &sphere) != ORR_OK) {
        fprintf(stderr, "scene_techniques: cannot build the asset library (out of memory)\n");
        goto done;
    }
    for (int k = 0; k < OBJECTS; k++) {
        orr_material m = orr_material_default();
        memcpy(m.base_color, colors[k], sizeof colors[k]);
        m.metallic = 0.0f;
        m.roughness = 0.6f;
        if (orr_assets_add_material(assets, &m, &paint[k]) != ORR_OK) {
            fprintf(stderr, "scene_techniques: %s\n", orr_assets_last_error(assets)->message);
            goto done;
        }
    }
    /* red cube, green sphere, blue cube, ground (a flat cube) */
    static const char names[] = "red\0sphere\0blue\0ground\0camera\0sun";
    static const uint32_t name_at[OBJECTS] = {0, 4, 11, 16};
    const orr_mesh_id meshes[OBJECTS] = {cube, sphere, cube, cube};
    const uint32_t layers[OBJECTS] = {LAYER_GROUND, LAYER_TOON | LAYER_SELECTED, LAYER_SELECTED, LAYER_GROUND};
    const orr_affine3d worlds[OBJECTS] = {place(-1.4, 0, 0, 1, 1, 1), place(0, 0.1, 0.2, 1.2, 1.2, 1.2),
                                          place(1.4, 0, -0.2, 1, 1, 1), place(0, -0.6, 0, 6, 0.2, 4)};
    orr_render_instance instances[OBJECTS];
    orr_material_id bindings[OBJECTS];
    uint32_t index_of[OBJECTS], changed[OBJECTS];
    for (uint32_t k = 0; k < OBJECTS; k++) {
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, meshes[k]);
        orr_aabbf box = {{(float)mesh->bounds.min.x, (float)mesh->bounds.min.y, (float)mesh->bounds.min.z},
                         {(float)mesh->bounds.max.x, (float)mesh->bounds.max.y, (float)mesh->bounds.max.z}};
        instances[k] = (orr_render_instance){.world = worlds[k], .entity = {k + 1, 1}, .id = k, .layers = layers[k],
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
    orr_render_light sun = {.entity = {11, 1}, .name = 30, .type = ORR_LIGHT_DIRECTIONAL, .color = {1, 1, 1},
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
        fprintf(stderr, "scene_techniques: %s\n", err.message);
        goto done;
    }
    orr_target_id target;
    orr_view_id view;
    /* one sample per pixel: scene techniques draw into single-sampled targets */
    orr_target_desc td = {.width = (uint32_t)width, .height = (uint32_t)height,
                          .clear_color = {0.02f, 0.02f, 0.03f, 1}, .readback = true, .samples = 1};
    pixels = malloc((size_t)width * height * 4);
    plain = malloc((size_t)width * height * 4);
    if (!pixels || !plain) {
        fprintf(stderr, "scene_techniques: out of memory\n");
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
    uint64_t frame = 1;
    snap.frame = snap.tick = snap.revision = frame++;
    if (frame_png(renderer, &desc, plain, (uint32_t)width, (uint32_t)height, out_dir, "plain", NULL)) goto done;

    /* 1. A depth pre-pass: depth only (no shader of the host's), the opaque pass, before the view. */
    orr_technique_desc prepass = {.name = "depth-prepass", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                                  .place = ORR_PLACE_BEFORE_VIEW,
                                  .scene = {.depth_write = true, .passes = 1u << ORR_PASS_OPAQUE}};
    if (orr_renderer_set_techniques(renderer, target, &prepass, 1, NULL) != ORR_OK) {
        fail(renderer, "prepass");
        goto done;
    }
    snap.frame = snap.tick = snap.revision = frame++;
    if (frame_png(renderer, &desc, pixels, (uint32_t)width, (uint32_t)height, out_dir, "prepass", plain)) goto done;

    /* 2. An outline of the selected layers: an inverted hull, after the view. */
    static const orr_technique_write to_color[] = {{.name = "color"}};
    struct {
        float color[4];
        float width;
    } outline = {{1.0f, 0.85f, 0.0f, 1.0f}, 0.06f};
    orr_technique_desc hull = {.name = "outline", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                               .fragment = {.glsl = HULL_FRAG, .name = "outline.frag"},
                               .writes = to_color, .write_count = 1, .push_constant_size = sizeof outline,
                               .scene = {.vertex = {.glsl = HULL_VERT, .name = "outline.vert"},
                                         .cull = ORR_FACE_CULL_FRONT, .layer_mask = LAYER_SELECTED}};
    orr_technique_id hull_id;
    if (orr_renderer_set_techniques(renderer, target, &hull, 1, &hull_id) != ORR_OK ||
        orr_renderer_set_technique_data(renderer, hull_id, &outline, sizeof outline) != ORR_OK) {
        fail(renderer, "outline");
        goto done;
    }
    snap.frame = snap.tick = snap.revision = frame++;
    if (frame_png(renderer, &desc, pixels, (uint32_t)width, (uint32_t)height, out_dir, "outline", plain)) goto done;

    /* 3. A toon shader for layer 2: over exactly the surface the built-in pass drew. */
    orr_technique_desc toon = {.name = "toon", .kind = ORR_TECHNIQUE_SCENE, .view = view,
                               .fragment = {.glsl = TOON_FRAG, .name = "toon.frag"},
                               .writes = to_color, .write_count = 1,
                               .scene = {.depth_test = ORR_DEPTH_EQUAL, .layer_mask = LAYER_TOON}};
    if (orr_renderer_set_techniques(renderer, target, &toon, 1, NULL) != ORR_OK) {
        fail(renderer, "toon");
        goto done;
    }
    snap.frame = snap.tick = snap.revision = frame++;
    if (frame_png(renderer, &desc, pixels, (uint32_t)width, (uint32_t)height, out_dir, "toon", plain)) goto done;
    if (orr_renderer_finish(renderer, NULL) == ORR_OK) status = 0;
done:
    orr_renderer_destroy(renderer);
    orr_assets_destroy(assets);
    free(pixels);
    free(plain);
    if (log.validation_messages) {
        fprintf(stderr, "scene_techniques: %u validation messages\n", log.validation_messages);
        status = 1;
    }
    return status;
}
