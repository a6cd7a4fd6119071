/* Prefabs, as an engine user would use them: instantiate a prefab twice, give one
 * instance its own copy of a material and make it blue, parent the second under the first keeping its
 * world pose, then move it to the parent's origin.
 *
 * It links the whole library (find_package(orrery), or pkg-config orrery). The prefab is a glTF file
 * (pawn.gltf beside this file: a root "pawn" with a cube "body" 1.5 m above it, painted orange-red).
 *
 *   1. parent = instantiate(pawn) at the origin, named Parent_Instance; its cube's material is cloned
 *      (a material instance, which this instance alone draws with) and the clone made blue: only this
 *      instance turns blue, the prefab and the other instance keep the shared material;
 *   2. child = instantiate(pawn) at x = 2, named Child_Instance, scaled by 0.5;
 *   3. set_parent(child, parent, ORR_KEEP_WORLD): the child stays where it was in the world;
 *   4. set_translation(child, 0): its local position becomes zero, so it moves to the parent's origin.
 *
 * A camera placed once from orr_scene_bounds (zoom-to-fit: the box of both instances after step 3)
 * renders a PNG after step 3 (OUT/1_parented.png) and after step 4 (OUT/2_moved.png). Each step prints
 * one JSON object: the step, each instance's world position, scale and parent, and the colour its cube
 * is drawn with.
 *
 *   prefab [--model pawn.gltf] [--out DIR] [--size WxH] [--validation] */
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct host {
    orr_renderer *renderer;
    orr_target_id target;
    uint32_t width, height;
    uint8_t *pixels;
    const char *path; /* the PNG the next presented frame goes to */
    uint32_t validation_messages;
    bool failed;
} host;

static void log_line(void *user, orr_log_level level, const char *message)
{
    host *h = user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX))) h->validation_messages++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "prefab: %s\n", message);
}

/* The present callback: renders the snapshot and writes it to h->path. */
static void present(void *user, const orr_snapshot *snapshot, const orr_assets *assets)
{
    (void)assets; /* the renderer draws from the library bound to it in main */
    host *h = user;
    orr_render_desc desc = {.target = h->target, .snapshot = snapshot};
    orr_error err;
    if (orr_renderer_render(h->renderer, &desc, NULL) != ORR_OK ||
        orr_renderer_read_target(h->renderer, h->target, h->pixels, (size_t)h->width * h->height * 4) != ORR_OK) {
        fprintf(stderr, "prefab: %s\n", orr_renderer_last_error(h->renderer)->message);
        h->failed = true;
    } else if (orr_gpu_write_png(h->path, h->width, h->height, h->pixels, &err) != ORR_OK) {
        fprintf(stderr, "prefab: %s\n", err.message);
        h->failed = true;
    }
}

/* The instance's MeshRenderer entity (its first in pre-order), and the colour it draws primitive 0 with. */
static orr_entity renderer_of(const orr_world *world, orr_entity instance)
{
    return orr_world_find_in_subtree(world, instance, ORR_COMPONENT_MESH_RENDERER);
}

static const float *drawn_color(const orr_world *world, const orr_assets *assets, orr_entity instance)
{
    orr_entity e = renderer_of(world, instance);
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(world, e);
    const orr_mesh *mesh = mr ? orr_assets_try_get_mesh(assets, mr->mesh) : NULL;
    if (!mesh || !mesh->primitive_count) return NULL;
    uint32_t overrides = 0;
    const orr_material_id *slots = orr_mesh_renderer_materials(world, e, &overrides);
    orr_material_id id = overrides && slots[0].generation ? slots[0] : mesh->primitives[0].material;
    const orr_material *m = orr_assets_try_get_material(assets, id);
    return m ? m->base_color : NULL;
}

static void print_instance(orr_world *world, const orr_assets *assets, orr_entity e)
{
    orr_mat4d m;
    orr_entity_world_matrix(world, e, &m);
    double scale = sqrt(m.m[0] * m.m[0] + m.m[1] * m.m[1] + m.m[2] * m.m[2]);
    const float *c = drawn_color(world, assets, e);
    const char *parent = orr_entity_name(world, orr_entity_parent(world, e));
    printf("\"%s\": {\"world\": [%.6f, %.6f, %.6f], \"scale\": %.6f, \"parent\": \"%s\", \"color\": [%.3f, %.3f, %.3f]}",
           orr_entity_name(world, e), m.m[12], m.m[13], m.m[14], scale, parent, c ? c[0] : -1.0, c ? c[1] : -1.0,
           c ? c[2] : -1.0);
}

static int usage(void)
{
    fprintf(stderr, "usage: prefab [--model FILE] [--out DIR] [--size WxH] [--validation]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *model = "pawn.gltf", *out_dir = ".";
    unsigned long width = 320, height = 240;
    bool validation = false;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            model = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            width = strtoul(argv[++i], &end, 10);
            if (*end != 'x') return usage();
            height = strtoul(end + 1, &end, 10);
            if (*end || width < 1 || height < 1 || width > 4096 || height > 4096) return usage();
        } else if (!strcmp(argv[i], "--validation")) {
            validation = true;
        } else {
            return usage();
        }
    }

    host h = {.width = (uint32_t)width, .height = (uint32_t)height};
    orr_session *session = NULL;
    int status = 1;
    orr_error err;
    if (orr_renderer_create(&(orr_renderer_desc){.validation = validation, .logger = {log_line, &h}}, &h.renderer, &err) !=
        ORR_OK) {
        fprintf(stderr, "prefab: %s\n", err.message);
        return 1;
    }
    if (orr_session_create(&(orr_session_desc){.present = present, .present_user = &h}, &session, NULL) != ORR_OK) {
        fprintf(stderr, "prefab: cannot create a session (out of memory)\n");
        goto done;
    }
    orr_world *world = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    orr_prefab_id pawn;
    if (orr_gltf_load(assets, model, NULL, &pawn, &err) != ORR_OK) {
        fprintf(stderr, "%s: %s\n", model, err.message);
        goto done;
    }

    /* 1. the parent, with its own blue copy of the cube's material */
    orr_transform at = orr_transform_identity();
    orr_entity parent, child;
    if (orr_prefab_instantiate(world, assets, pawn, ORR_ENTITY_NONE, &at, &parent) != ORR_OK ||
        orr_entity_set_name(world, parent, "Parent_Instance") != ORR_OK)
        goto world_error;
    orr_entity parent_mr = renderer_of(world, parent);
    const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(world, parent_mr);
    const orr_mesh *mesh = mr ? orr_assets_try_get_mesh(assets, mr->mesh) : NULL;
    orr_material_id blue;
    if (!mesh || orr_assets_clone_material(assets, mesh->primitives[0].material, &blue) != ORR_OK) {
        fprintf(stderr, "prefab: %s: no mesh with a material to clone\n", model);
        goto done;
    }
    orr_material *paint = orr_assets_try_edit_material(assets, blue);
    paint->base_color[0] = 0.0f, paint->base_color[1] = 0.0f, paint->base_color[2] = 1.0f, paint->base_color[3] = 1.0f;
    if (orr_mesh_renderer_set_material(world, parent_mr, 0, blue) != ORR_OK) /* primitive 0 draws the clone */
        goto world_error;

    /* 2. the child: a second instance at x = 2, half size */
    at.translation = (orr_vec3d){2, 0, 0};
    if (orr_prefab_instantiate(world, assets, pawn, ORR_ENTITY_NONE, &at, &child) != ORR_OK ||
        orr_entity_set_name(world, child, "Child_Instance") != ORR_OK ||
        orr_entity_set_scale(world, child, (orr_vec3d){0.5, 0.5, 0.5}) != ORR_OK)
        goto world_error;

    /* 3. parented, keeping its world pose (the default) */
    if (orr_entity_set_parent(world, child, parent, ORR_KEEP_WORLD) != ORR_OK) goto world_error;

    /* Zoom-to-fit, once: a camera entity framing both instances from the front and a little above. */
    orr_aabbd box;
    if (orr_scene_bounds(world, assets, parent, &box) != ORR_OK || orr_aabbd_is_empty(box)) {
        fprintf(stderr, "prefab: %s: nothing to frame\n", model);
        goto done;
    }
    orr_vec3d centre = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    double radius = 0.5 * orr_vec3d_length(orr_vec3d_sub(box.max, box.min));
    orr_camera cam = orr_camera_default();
    orr_vec3d dir = orr_vec3d_normalize((orr_vec3d){0, 0.35, 1});
    orr_vec3d eye = orr_vec3d_add(centre, orr_vec3d_scale(dir, radius / sin(cam.yfov * 0.5) * 1.1));
    orr_transform cam_pose = orr_transform_identity();
    cam_pose.translation = eye;
    cam_pose.rotation = orr_quatd_look_rotation(orr_vec3d_sub(centre, eye), (orr_vec3d){0, 1, 0});
    orr_entity camera, sun;
    orr_transform sun_pose = orr_transform_identity();
    sun_pose.rotation = orr_quatd_look_rotation((orr_vec3d){-0.4, -0.7, -1.0}, (orr_vec3d){0, 1, 0});
    orr_light light = orr_light_default();
    light.type = ORR_LIGHT_DIRECTIONAL;
    if (orr_entity_create(world, &(orr_entity_desc){.name = "camera", .local = &cam_pose}, &camera) != ORR_OK ||
        orr_component_add(world, camera, ORR_COMPONENT_CAMERA, &cam, NULL) != ORR_OK ||
        orr_entity_create(world, &(orr_entity_desc){.name = "sun", .local = &sun_pose}, &sun) != ORR_OK ||
        orr_component_add(world, sun, ORR_COMPONENT_LIGHT, &light, NULL) != ORR_OK)
        goto world_error;

    h.pixels = malloc((size_t)h.width * h.height * 4);
    orr_target_desc td = {.width = h.width, .height = h.height, .clear_color = {0.02f, 0.02f, 0.03f, 1}, .readback = true};
    orr_view_id view;
    if (!h.pixels || orr_renderer_bind_library(h.renderer, assets, NULL) != ORR_OK ||
        orr_renderer_create_target(h.renderer, &td, &h.target) != ORR_OK ||
        orr_renderer_create_view(h.renderer, &(orr_view_desc){.target = h.target, .camera = camera}, &view) != ORR_OK) {
        fprintf(stderr, "prefab: %s\n", h.pixels ? orr_renderer_last_error(h.renderer)->message : "out of memory");
        goto done;
    }

    char paths[2][4096];
    snprintf(paths[0], sizeof paths[0], "%s/1_parented.png", out_dir);
    snprintf(paths[1], sizeof paths[1], "%s/2_moved.png", out_dir);
    for (int step = 0; step < 2; step++) {
        /* 4. (second step) the local position zeroed: the child moves to its parent's origin */
        if (step == 1 && orr_entity_set_translation(world, child, (orr_vec3d){0, 0, 0}) != ORR_OK) goto world_error;
        h.path = paths[step];
        if (orr_session_run_frame(session, 0.0) != ORR_OK) { /* no tick is due: it only presents */
            fprintf(stderr, "prefab: %s\n", orr_session_last_error(session)->message);
            goto done;
        }
        if (h.failed) goto done;
        printf("{\"step\": \"%s\", \"png\": \"%s\", ", step ? "moved" : "parented", paths[step]);
        print_instance(world, assets, parent);
        printf(", ");
        print_instance(world, assets, child);
        printf("}\n");
    }
    if (orr_renderer_finish(h.renderer, NULL) == ORR_OK) status = 0;
    goto done;
world_error:
    fprintf(stderr, "prefab: %s\n", orr_world_last_error(world)->message);
done:
    orr_renderer_destroy(h.renderer);
    orr_session_destroy(session);
    free(h.pixels);
    if (h.validation_messages) {
        fprintf(stderr, "prefab: %u validation messages\n", h.validation_messages);
        status = 1;
    }
    return status;
}
