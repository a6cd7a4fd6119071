/* Orrery gpu: the Vulkan renderer. It draws a snapshot (borrowed for the call, with the asset library)
 * through several views of one target; it never sees the world.
 *
 *   orr_renderer_create      picks a Vulkan 1.3 device (lavapipe on a CPU machine), dynamic rendering
 *   orr_renderer_create_target / orr_renderer_create_view
 *   orr_renderer_render      per frame: residency (upload meshes not resident yet), scene buffers (dirty
 *                            ranges of the 80-byte instance records), one color clear, then each view in
 *                            ascending slot: prepared draws (draw module) -> origin subtraction -> passes
 *   orr_renderer_read_target the target's pixels as RGBA8 (offscreen targets)
 *
 * Positions stay binary64 until a view subtracts its own origin: each instance's translation is stored
 * as two floats (high, low), each view's origin likewise, and the vertex shader subtracts high from high
 * and low from low first. Depth is reversed Z (32-bit float, clear 0, greater-or-equal), one depth image
 * per view. Views and targets are generational ids; destroying one retires its GPU resources after the
 * frames in flight and the old id then fails.
 */
#ifndef ORRERY_GPU_H
#define ORRERY_GPU_H

#include <orrery/assets.h>
#include <orrery/core.h>
#include <orrery/draw.h>
#include <orrery/snapshot.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orr_renderer orr_renderer;
typedef struct orr_target_id { uint32_t index, generation; } orr_target_id;
typedef struct orr_view_id { uint32_t index, generation; } orr_view_id;

typedef enum orr_strategy {
    ORR_STRATEGY_DIRECT = 0,   /* one draw per record */
    ORR_STRATEGY_BATCHED = 1,  /* one instanced draw per batch */
    ORR_STRATEGY_INDIRECT = 2, /* one multi-draw indirect per pass */
} orr_strategy;

/* Defaults (zero-initialised): libc allocator, no logger, no validation layer, the first suitable
 * device, capacities of 65536 instances and 4096 materials (grown on demand). */
typedef struct orr_renderer_desc {
    orr_allocator allocator;
    orr_logger logger;
    bool validation;          /* enable VK_LAYER_KHRONOS_validation; messages are logged and counted */
    const char *device_name;  /* substring of the device name to prefer; NULL = first suitable */
} orr_renderer_desc;

orr_result orr_renderer_create(const orr_renderer_desc *desc, orr_renderer **out, orr_error *err);
void orr_renderer_destroy(orr_renderer *renderer); /* waits for the GPU; NULL is a no-op */
const orr_error *orr_renderer_last_error(const orr_renderer *renderer);
const char *orr_renderer_device_name(const orr_renderer *renderer);
/* Validation messages (warnings and errors) seen since creation; 0 when validation is off. */
uint32_t orr_renderer_validation_messages(const orr_renderer *renderer);

typedef struct orr_target_desc {
    uint32_t width, height;   /* pixels */
    float clear_color[4];     /* linear RGBA; cleared once per frame for the whole target */
} orr_target_desc;

orr_result orr_renderer_create_target(orr_renderer *renderer, const orr_target_desc *desc, orr_target_id *out);
orr_result orr_renderer_destroy_target(orr_renderer *renderer, orr_target_id target);

typedef struct orr_viewport { uint32_t x, y, width, height; } orr_viewport;

/* A view: a projection of the shared scene onto part of a target. Camera: the snapshot camera whose
 * entity matches `camera`, or, when `camera` is none or absent, the explicit `pose` and projection. */
typedef struct orr_view_desc {
    orr_target_id target;
    uint32_t slot;            /* views draw in ascending slot order */
    orr_viewport viewport;    /* also the scissor; 0 x 0 = the whole target */
    orr_entity camera;
    orr_mat4d pose;           /* camera to world, used when no snapshot camera is named */
    double yfov;              /* radians; 0 = 0.8 */
    double znear;             /* 0 = 0.05 */
    uint32_t layer_mask;      /* 0 = all layers */
    orr_draw_order order;
    orr_strategy strategy;
} orr_view_desc;

orr_result orr_renderer_create_view(orr_renderer *renderer, const orr_view_desc *desc, orr_view_id *out);
orr_result orr_renderer_update_view(orr_renderer *renderer, orr_view_id view, const orr_view_desc *desc);
orr_result orr_renderer_destroy_view(orr_renderer *renderer, orr_view_id view);

/* Per-frame figures (render --stats). */
typedef struct orr_render_stats {
    uint64_t frame;
    uint32_t views;
    uint32_t instances;      /* snapshot instances */
    uint32_t visible;        /* summed over views */
    uint32_t surface_draws;  /* summed over views */
    uint32_t batches;        /* summed over views */
    uint32_t draw_calls;     /* vkCmdDraw* calls recorded */
    uint64_t geometry_bytes; /* resident geometry pool */
    uint64_t instance_bytes; /* 80 x instance slots in use */
    uint64_t material_bytes;
    uint64_t uploaded_bytes; /* this frame */
    uint32_t dropped[ORR_DROP_COUNT];
} orr_render_stats;

/* Draws one frame of `snapshot` into `target`: one clear, every view of the target in slot order. */
orr_result orr_renderer_render(orr_renderer *renderer, orr_target_id target, const orr_snapshot *snapshot,
                               const orr_assets *assets, orr_render_stats *stats);
/* Copies the target's last frame as RGBA8 (sRGB encoded), width x height x 4 bytes, rows top first. */
orr_result orr_renderer_read_target(orr_renderer *renderer, orr_target_id target, uint8_t *rgba, size_t size);

/* Writes RGBA8 pixels as a PNG file. */
orr_result orr_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, orr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_GPU_H */
