/* A renderer-only host: it renders snapshots that it did not extract from a world, as a replay viewer
 * or a client that receives snapshots over a network would. No world is linked.
 *
 * It links the replay side of Orrery only (find_package(orrery COMPONENTS replay), or pkg-config
 * orrery-replay): core, assets, the snapshot types, draw and gpu. The asset library is filled by hand
 * (one cube mesh and three material instances), and so is the snapshot (orrery/snapshot.h): three
 * instances of the cube, drawn red, green and blue through per-instance material bindings, a camera and
 * a directional light. Frame after frame the blue cube rises; each snapshot after the first names it as
 * the one change since the previous frame (delta_base, changed, index_of), so the renderer uploads that
 * one instance record and keeps the rest.
 *
 *   replay_host [--frames N] [--size WxH] [--out DIR] [--validation]
 *
 * writes OUT/replay_NNN.png per frame and prints one JSON object per frame: frame, whether the renderer
 * took the snapshot whole (full_sync), how many instance records it uploaded (changed), the blue
 * cube's height, the PNG. */
#include <orrery/draw.h>
#include <orrery/gpu.h>
#include <orrery/snapshot.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUBES 3
#define RISE 0.25 /* metres a frame */

typedef struct log_state {
    uint32_t validation_messages;
} log_state;

static void log_line(void *user, orr_log_level level, const char *message)
{
    log_state *l = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) l->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "replay_host: %s\n", message);
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
    fprintf(stderr, "usage: replay_host [--frames N] [--size WxH] [--out DIR] [--validation]\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned long frames = 3, width = 320, height = 180;
    const char *out_dir = ".";
    bool validation = false;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = strtoul(argv[++i], &end, 10);
            if (*end || frames < 1 || frames > 1000) return usage();
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
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
    uint8_t *pixels = NULL;
    int status = 1;
    orr_error err;

    /* The resources the snapshots name: what a recording carries, or a server sends ahead. */
    orr_mesh_id cube;
    orr_material_id paint[CUBES];
    static const float colors[CUBES][3] = {{0.9f, 0.08f, 0.05f}, {0.08f, 0.8f, 0.1f}, {0.05f, 0.15f, 0.9f}};
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK || add_cube(assets, &cube) != ORR_OK) {
        fprintf(stderr, "replay_host: cannot build the asset library (out of memory)\n");
        goto done;
    }
    for (int k = 0; k < CUBES; k++) {
        orr_material m = orr_material_default();
        memcpy(m.base_color, colors[k], sizeof colors[k]);
        m.metallic = 0.0f;
        if (orr_assets_add_material(assets, &m, &paint[k]) != ORR_OK) {
            fprintf(stderr, "replay_host: %s\n", orr_assets_last_error(assets)->message);
            goto done;
        }
    }
    const orr_mesh *mesh = orr_assets_try_get_mesh(assets, cube);
    orr_aabbf box = {{(float)mesh->bounds.min.x, (float)mesh->bounds.min.y, (float)mesh->bounds.min.z},
                     {(float)mesh->bounds.max.x, (float)mesh->bounds.max.y, (float)mesh->bounds.max.z}};

    /* The snapshot, by hand. Entities are only names here (no world: the renderer never dereferences
     * them); the camera's entity is how the view finds the camera. The arrays are this host's. */
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

    /* The renderer: the library bound, an offscreen target read back, one view through the camera. */
    orr_renderer_desc rd = {.validation = validation, .logger = {.log = log_line, .user = &log}};
    if (orr_renderer_create(&rd, &renderer, &err) != ORR_OK) {
        fprintf(stderr, "replay_host: %s\n", err.message);
        goto done;
    }
    orr_target_id target;
    orr_view_id view;
    orr_target_desc td = {.width = (uint32_t)width, .height = (uint32_t)height, .clear_color = {0.02f, 0.02f, 0.03f, 1},
                          .readback = true};
    pixels = malloc((size_t)width * height * 4);
    if (!pixels || orr_renderer_bind_library(renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(renderer, &td, &target) != ORR_OK ||
        orr_renderer_create_view(renderer, &(orr_view_desc){.target = target, .camera = camera.entity}, &view) != ORR_OK) {
        fprintf(stderr, "replay_host: %s\n", pixels ? orr_renderer_last_error(renderer)->message : "out of memory");
        goto done;
    }

    for (unsigned long f = 1; f <= frames; f++) {
        /* frame 1 is taken whole (no delta); each later one is the previous plus one moved instance */
        snap.frame = f;
        snap.tick = f;
        snap.revision = f;
        if (f == 1) {
            snap.delta_base = 0;
            snap.changed_count = 0;
        } else {
            instances[2].world.m[10] += RISE;
            snap.delta_base = f - 1;
            changed[0] = instances[2].id;
            snap.changed_count = 1;
        }
        orr_render_stats st;
        orr_render_desc desc = {.target = target, .snapshot = &snap};
        if (orr_renderer_render(renderer, &desc, &st) != ORR_OK ||
            orr_renderer_read_target(renderer, target, pixels, (size_t)width * height * 4) != ORR_OK) {
            fprintf(stderr, "replay_host: frame %lu: %s\n", f, orr_renderer_last_error(renderer)->message);
            goto done;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/replay_%03lu.png", out_dir, f);
        if (orr_gpu_write_png(path, (uint32_t)width, (uint32_t)height, pixels, &err) != ORR_OK) {
            fprintf(stderr, "replay_host: %s\n", err.message);
            goto done;
        }
        uint32_t dropped = 0;
        for (int d = 0; d < ORR_DROP_COUNT; d++) dropped += st.draws.dropped[d];
        printf("{\"frame\": %lu, \"full_sync\": %s, \"changed\": %u, \"instances\": %u, \"dropped\": %u, "
               "\"blue_y\": %.6f, \"png\": \"%s\"}\n",
               f, st.full_sync ? "true" : "false", st.cull.changed, st.cull.instances, dropped, instances[2].world.m[10], path);
    }
    if (orr_renderer_finish(renderer, NULL) == ORR_OK) status = 0;
done:
    orr_renderer_destroy(renderer);
    orr_assets_destroy(assets);
    free(pixels);
    if (log.validation_messages) {
        fprintf(stderr, "replay_host: %u validation messages\n", log.validation_messages);
        status = 1;
    }
    return status;
}
