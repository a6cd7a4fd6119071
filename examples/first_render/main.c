/* Load a glTF file, place it in a world, look at it through one view, write a PNG.
 *   first_render MODEL.gltf OUT.png */
#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <orrery/scene.h>
#include <stdio.h>

#define CHECK(call, message) \
    if ((call) != ORR_OK) return fprintf(stderr, "first_render: %s\n", (message)), 1

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: first_render MODEL.gltf OUT.png\n"), 2;
    enum { W = 640, H = 360 };
    orr_error err = {0};
    orr_assets *assets;
    orr_world *world;
    CHECK(orr_assets_create(NULL, &assets, NULL), "out of memory");
    CHECK(orr_world_create(NULL, &world, NULL), "out of memory");

    /* the file's resources go into the asset library, its nodes into a prefab we instantiate */
    orr_prefab_id model;
    orr_entity root;
    orr_aabbd box;
    CHECK(orr_gltf_load(assets, argv[1], NULL, &model, &err), err.message);
    CHECK(orr_prefab_instantiate(world, assets, model, ORR_ENTITY_NONE, NULL, &root), "instantiate failed");
    CHECK(orr_scene_bounds(world, assets, root, &box), "bounds failed");

    /* what the renderer sees: a snapshot of the world */
    orr_snapshot snapshot;
    orr_snapshot_init(&snapshot, NULL);
    CHECK(orr_frame_extract(world, assets, 1, 0, NULL, &snapshot), "extraction failed");

    /* a camera on the box's diagonal looking at its centre; the pose is camera to world */
    orr_vec3d centre = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    orr_vec3d eye = orr_vec3d_add(centre, orr_vec3d_scale(orr_vec3d_sub(box.max, box.min), 1.5));
    orr_view_desc view = {.yfov = 0.8};
    orr_mat4d_look_at_pose(eye, centre, (orr_vec3d){0, 1, 0}, &view.pose);

    orr_renderer *gpu;
    orr_view_id view_id;
    static uint8_t rgba[W * H * 4];
    CHECK(orr_renderer_create(&(orr_renderer_desc){0}, &gpu, &err), err.message);
    const char *gpu_error = orr_renderer_last_error(gpu)->message;
    CHECK(orr_renderer_bind_library(gpu, assets, NULL), gpu_error);
    CHECK(orr_renderer_create_target(gpu, &(orr_target_desc){.width = W, .height = H, .readback = true,
                                     .clear_color = {0.05f, 0.05f, 0.06f, 1}}, &view.target), gpu_error);
    CHECK(orr_renderer_create_view(gpu, &view, &view_id), gpu_error);
    orr_render_desc frame = {.target = view.target, .snapshot = &snapshot};
    CHECK(orr_renderer_render(gpu, &frame, NULL), gpu_error);
    CHECK(orr_renderer_read_target(gpu, view.target, rgba, sizeof rgba), gpu_error);
    CHECK(orr_gpu_write_png(argv[2], W, H, rgba, &err), err.message);
    printf("first_render: wrote %s (%dx%d)\n", argv[2], W, H);

    orr_renderer_destroy(gpu);
    orr_snapshot_fini(&snapshot);
    orr_world_destroy(world);
    orr_assets_destroy(assets);
    return 0;
}
