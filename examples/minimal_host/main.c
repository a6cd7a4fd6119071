/* A minimal host: a session, one user system that moves things, a present callback that renders each
 * presented frame with a view of the world's camera, and one PNG per frame.
 *
 * It links the whole library (find_package(orrery), or pkg-config orrery). The world, built here by
 * hand: a red cube that stays at the origin, a blue cube that the system slides along +X from the tick
 * count alone (so the same ticks give the same frames), a camera entity looking at both from +Z and a
 * directional light. The session runs at a fixed step of 1/60 s; each run_frame advances 1/30 s (two
 * ticks) and, because the profile presents, extracts a snapshot and calls `present` with it. `present`
 * hands the snapshot to the renderer, reads the target back and writes OUT/frame_NNN.png.
 *
 *   minimal_host [--frames N] [--size WxH] [--out DIR] [--validation]
 *
 * prints one JSON object per frame: frame, tick, the blue cube's x in metres and the PNG written.
 * --validation turns on the Khronos validation layer; any message then fails the run (exit 1). */
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLIDE_SPEED 6.0 /* m/s along +X: 0.2 m a frame at 30 frames a second */
#define SLIDE_START -2.5

/* ---- the world -------------------------------------------------------------------------------- */

/* A cube [-0.5, 0.5]^3 in one material; normals are generated (flat) by the asset library. */
static orr_result add_cube(orr_assets *assets, orr_material_id material, orr_mesh_id *out)
{
    static const float pos[24] = {-0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, -0.5f, -0.5f, 0.5f, -0.5f,
                                  -0.5f, -0.5f, 0.5f,  0.5f, -0.5f, 0.5f,  0.5f, 0.5f, 0.5f,  -0.5f, 0.5f, 0.5f};
    static const uint32_t idx[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                     3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
    orr_primitive_desc prim = {.vertex_count = 8, .positions = pos, .index_count = 36, .indices = idx,
                               .material = material};
    return orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "cube", .primitive_count = 1, .primitives = &prim},
                               out);
}

static orr_result add_colored_cube(orr_world *world, orr_assets *assets, const char *name, float r, float g, float b,
                                   orr_vec3d at, orr_entity *out)
{
    orr_material m = orr_material_default();
    m.base_color[0] = r, m.base_color[1] = g, m.base_color[2] = b;
    m.metallic = 0.0f;
    orr_material_id material;
    orr_mesh_id mesh;
    orr_result rc;
    if ((rc = orr_assets_add_material(assets, &m, &material)) != ORR_OK) return rc;
    if ((rc = add_cube(assets, material, &mesh)) != ORR_OK) return rc;
    orr_transform local = orr_transform_identity();
    local.translation = at;
    if ((rc = orr_entity_create(world, &(orr_entity_desc){.name = name, .local = &local}, out)) != ORR_OK) return rc;
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    return orr_component_add(world, *out, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
}

/* The user system: the blue cube's position from the tick count (tick t has run t x step seconds). */
static void slide(void *user, orr_world *world, orr_assets *assets, uint64_t tick, double step)
{
    (void)assets;
    const orr_entity *mover = user;
    orr_entity_set_translation(world, *mover, (orr_vec3d){SLIDE_START + SLIDE_SPEED * (double)tick * step, 0, 0});
}

/* ---- the host --------------------------------------------------------------------------------- */

typedef struct host {
    orr_renderer *renderer;
    orr_target_id target;
    uint32_t width, height;
    uint8_t *pixels;
    const char *out_dir;
    orr_entity mover;
    uint32_t validation_messages;
    bool failed; /* a frame that could not be rendered or written: the host stops */
} host;

static void log_line(void *user, orr_log_level level, const char *message)
{
    host *h = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) h->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "minimal_host: %s\n", message);
}

/* The present callback: the snapshot and the asset library are borrowed for this call only. */
static void present(void *user, const orr_snapshot *snapshot, const orr_assets *assets)
{
    (void)assets; /* the renderer draws from the library bound to it in main */
    host *h = user;
    if (h->failed) return;
    orr_render_desc desc = {.target = h->target, .snapshot = snapshot};
    orr_render_stats stats;
    size_t size = (size_t)h->width * h->height * 4;
    if (orr_renderer_render(h->renderer, &desc, &stats) != ORR_OK ||
        orr_renderer_read_target(h->renderer, h->target, h->pixels, size) != ORR_OK) {
        fprintf(stderr, "minimal_host: frame %llu: %s\n", (unsigned long long)snapshot->frame,
                orr_renderer_last_error(h->renderer)->message);
        h->failed = true;
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%03llu.png", h->out_dir, (unsigned long long)snapshot->frame);
    orr_error err;
    if (orr_gpu_write_png(path, h->width, h->height, h->pixels, &err) != ORR_OK) {
        fprintf(stderr, "minimal_host: %s\n", err.message);
        h->failed = true;
        return;
    }
    /* What was drawn, from the snapshot itself (the world is not reachable from it): the blue cube's
     * pose, found by its entity. */
    double mover_x = 0;
    for (uint32_t i = 0; i < snapshot->instance_count; i++)
        if (orr_entity_eq(snapshot->instances[i].entity, h->mover))
            mover_x = orr_affine3d_translation(&snapshot->instances[i].world).x;
    printf("{\"frame\": %llu, \"tick\": %llu, \"instances\": %u, \"mover_x\": %.6f, \"png\": \"%s\"}\n",
           (unsigned long long)snapshot->frame, (unsigned long long)snapshot->tick, snapshot->instance_count, mover_x,
           path);
}

static int usage(void)
{
    fprintf(stderr, "usage: minimal_host [--frames N] [--size WxH] [--out DIR] [--validation]\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned long frames = 4, width = 320, height = 180;
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

    host h = {.width = (uint32_t)width, .height = (uint32_t)height, .out_dir = out_dir};
    orr_session *session = NULL;
    int status = 1;
    orr_error err;
    orr_renderer_desc rd = {.validation = validation, .logger = {.log = log_line, .user = &h}};
    if (orr_renderer_create(&rd, &h.renderer, &err) != ORR_OK) {
        fprintf(stderr, "minimal_host: %s\n", err.message);
        return 1;
    }
    orr_session_desc sd = {.present = present, .present_user = &h}; /* presenting, 1/60 s step */
    if (orr_session_create(&sd, &session, NULL) != ORR_OK) {
        fprintf(stderr, "minimal_host: cannot create a session (out of memory)\n");
        goto done;
    }
    orr_world *world = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);

    /* The world: two cubes, a camera 6 m back along +Z and 2 m up looking at them, a light from above-front. */
    orr_entity still, camera, sun;
    orr_transform at = orr_transform_identity();
    if (add_colored_cube(world, assets, "red_cube", 0.9f, 0.08f, 0.05f, (orr_vec3d){0, 1.0, 0}, &still) != ORR_OK ||
        add_colored_cube(world, assets, "blue_cube", 0.05f, 0.15f, 0.9f, (orr_vec3d){SLIDE_START, 0, 0}, &h.mover) !=
            ORR_OK)
        goto world_error;
    at.translation = (orr_vec3d){0, 2.0, 6};
    at.rotation = orr_quatd_look_rotation((orr_vec3d){0, -1.5, -6}, (orr_vec3d){0, 1, 0}); /* at (0, 0.5, 0) */
    if (orr_entity_create(world, &(orr_entity_desc){.name = "camera", .local = &at}, &camera) != ORR_OK ||
        orr_component_add(world, camera, ORR_COMPONENT_CAMERA, NULL, NULL) != ORR_OK)
        goto world_error;
    at.translation = (orr_vec3d){0, 0, 0};
    at.rotation = orr_quatd_look_rotation((orr_vec3d){-0.3, -0.6, -1.0}, (orr_vec3d){0, 1, 0});
    orr_light light = orr_light_default();
    light.type = ORR_LIGHT_DIRECTIONAL;
    light.intensity = 3.0f;
    if (orr_entity_create(world, &(orr_entity_desc){.name = "sun", .local = &at}, &sun) != ORR_OK ||
        orr_component_add(world, sun, ORR_COMPONENT_LIGHT, &light, NULL) != ORR_OK)
        goto world_error;
    if (orr_session_add_system(session, &(orr_system_desc){.fn = slide, .user = &h.mover}) != ORR_OK) {
        fprintf(stderr, "minimal_host: %s\n", orr_session_last_error(session)->message);
        goto done;
    }

    /* The renderer: the session's asset library bound once, an offscreen target read back every frame,
     * one view through the camera entity (the snapshot carries its pose and projection). */
    h.pixels = malloc((size_t)h.width * h.height * 4);
    orr_target_desc td = {.width = h.width, .height = h.height, .clear_color = {0.02f, 0.02f, 0.03f, 1}, .readback = true};
    orr_view_id view;
    if (!h.pixels || orr_renderer_bind_library(h.renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(h.renderer, &td, &h.target) != ORR_OK ||
        orr_renderer_create_view(h.renderer, &(orr_view_desc){.target = h.target, .camera = camera}, &view) != ORR_OK) {
        fprintf(stderr, "minimal_host: %s\n", h.pixels ? orr_renderer_last_error(h.renderer)->message : "out of memory");
        goto done;
    }

    /* The loop: a real host passes the time since the last frame; this one a fixed 1/30 s. */
    for (unsigned long f = 0; f < frames && !h.failed; f++) {
        if (orr_session_run_frame(session, 1.0 / 30.0) != ORR_OK) {
            fprintf(stderr, "minimal_host: %s\n", orr_session_last_error(session)->message);
            goto done;
        }
    }
    if (!h.failed && orr_renderer_finish(h.renderer, NULL) == ORR_OK) status = 0;
    goto done;
world_error:
    fprintf(stderr, "minimal_host: %s\n", orr_world_last_error(world)->message);
done:
    orr_renderer_destroy(h.renderer); /* waits for the GPU; then the library it was bound to may go */
    orr_session_destroy(session);
    free(h.pixels);
    if (h.validation_messages) {
        fprintf(stderr, "minimal_host: %u validation messages\n", h.validation_messages);
        status = 1;
    }
    return status;
}
