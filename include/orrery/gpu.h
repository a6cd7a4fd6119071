/* Orrery gpu: the Vulkan renderer. It draws a snapshot (borrowed for the call) of the asset library bound
 * to it through several views of one target; it never sees the world.
 *
 *   orr_vulkan_instance_create  (optional) one Vulkan instance for every renderer of the process
 *   orr_renderer_create        picks a Vulkan 1.3 device (lavapipe on a CPU machine), dynamic rendering
 *   orr_renderer_bind_library  once: the asset library whose ids the snapshots name (residency is kept
 *                              per binding, never by the library's address)
 *   orr_renderer_create_target, orr_renderer_create_view  where pixels go, and the cameras that draw there
 *   orr_renderer_render        per frame: residency (upload meshes, morph targets and textures with
 *                              their mip chains not resident yet),
 *                              the 80-byte instance records of the snapshot's changed instances only,
 *                              the retained draw scenes (rebuilt only when the snapshot's layout
 *                              changed), one color clear, then each view in ascending slot: its cull
 *                              (on the GPU, or on the CPU) -> origin subtraction -> passes (opaque,
 *                              cutout, custom, blended) drawn with the view's strategy (the custom
 *                              pass's fur by the fur adapter on the shell path), each view with every
 *                              snapshot light relative to its own origin; the meshlet strategy culls
 *                              each record's meshlets on the GPU (task shaders, or a compute pass)
 *                              after the view's cull
 *   orr_renderer_read_target   the target's pixels as RGBA8 (frames read back: asked for per frame,
 *                              or every frame by the target)
 *   orr_renderer_create_surface_target  (gpu_vulkan.h; a window: window.h) a swapchain, acquired once
 *                              and presented once per frame however many views share it
 *
 * Texture targets: a target made with a texture key (orr_target_desc.texture_key) is a texture that
 * materials sample, through the library's target textures with that key (orr_assets_add_target_texture),
 * in any slot. A frame of target T first draws, each once and in an order where a target comes after
 * every target it samples, the texture targets that T's views draw materials of (instances that are
 * visible and in the view's layer mask, wherever they are in the frustum), and theirs in turn: each
 * at its own size and sample count, its clear and its own views, its multisampled colour resolved, then
 * copied into the image its target textures show (never an attachment itself, so no draw sees it being
 * written), readable by the fragment shaders that follow; then T. A texture target whose views would sample it, directly or through
 * other texture targets, is refused (orr_renderer_render fails, naming the targets and the material,
 * and nothing is drawn). A material slot whose target texture has no live target here samples white
 * (counted: orr_render_stats.views.texture_target_fallbacks); destroying a texture target retires its image
 * after the frames in flight, and its materials sample white from the next frame on.
 *
 * Work per frame follows what changed: a snapshot whose delta the renderer can apply (it rendered the
 * snapshot of frame delta_base last) costs only its changed and removed instances, and a view culled
 * on the GPU costs the CPU a few commands whatever the instance count. Any other snapshot (the first,
 * one built by hand, one after a skipped frame or a failed one) is taken whole.
 *
 * Between ticks (orr_snapshot.lag above 0, for a renderer made with orr_renderer_desc.interpolate;
 * any other ignores the lag): each instance whose record changed at the snapshot's tick
 * is drawn at the blend of the pose its record held before and its current one (translation linearly,
 * relative to each view's origin; rotation by normalised quaternion and scale linearly, when both poses
 * are a rotation times a positive scale per axis, else its current linear part), in the vertex stage:
 * a frame between ticks uploads nothing per instance. A new instance, or one marked
 * ORR_RENDER_INSTANCE_TELEPORT, stands where it is; a frame that takes the snapshot whole starts
 * over (no blend until the next change). Lag 0 draws every instance's own record, the same bytes as
 * without interpolation. A skinned instance whose palette was written at that tick (in place: same
 * joint offset and count) also blends its joint matrices, row by row, with the ones they replaced
 * (kept on the GPU in a second joint buffer as large as the first): skinning is linear in them, so each
 * vertex stands at the blend of its two places. Every cull that decides what such a frame draws (the
 * GPU cull and its occlusion phases, the shadow views', the CPU cull: orr_draw_motion) tests an
 * instance at the pose it is drawn at, so that near an edge it is neither dropped a frame early nor
 * kept a frame late; a pick draws the frame's records with the same vertex stage, so it hits what is on
 * screen; the meshlet strategy keeps every meshlet of an instance drawn blended (its per-meshlet tests
 * are of one pose). Levels of detail, visibility ranges and the baseline use the current poses.
 * Lights and snapshot cameras blend by the same rule (on the CPU: they go up whole every frame), by
 * entity: one whose pose changed at the snapshot's tick stands between the pose the renderer saw before
 * and its current one, so that a camera following a body moves with it frame by frame. A view's own
 * pose (no camera entity) is the host's, drawn as given.
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

/* The renderer: a Vulkan device and everything it holds for one host (targets, views, the GPU copy of
 * the bound asset library). Its ids (orr_target_id, orr_view_id, orr_library_id) are declared in core.h. */
typedef struct orr_renderer orr_renderer;

/* How a view draws its plain mesh surfaces; all are fed by the same batches and records. Whatever the
 * strategy, the custom pass's fur surfaces (ORR_PAYLOAD_FUR) are drawn by the fur adapter on the shell
 * path: a fur surface needs its shell index. */
typedef enum orr_strategy {
    ORR_STRATEGY_DIRECT = 0,   /* one draw per record */
    ORR_STRATEGY_BATCHED = 1,  /* one instanced draw per batch */
    ORR_STRATEGY_INDIRECT = 2, /* one multi-draw indirect per run of batches with one pipeline state */
    ORR_STRATEGY_SHELL = 3,    /* a draw per record whose instance count is its shell count (the
                                  shader's instance index is the shell index): one for a plain surface */
    ORR_STRATEGY_MESHLET = 4,  /* per record, its meshlets, each culled on the GPU (frustum, normal cone):
                                  task and mesh shaders where the device has them
                                  (orr_renderer_uses_mesh_shaders), else a compute fallback. Needs meshes
                                  with meshlets (orr_mesh_desc.build_meshlets); what meshlets cannot draw
                                  goes through the indexed path (orr_render_stats.meshlets.indexed). Opaque
                                  content: the bytes of indirect on the same device (docs/architecture.md
                                  names the one exception) */
} orr_strategy;
#define ORR_STRATEGY_COUNT 5

/* The strategy's lower-case name ("direct", "batched", "indirect", "shell", "meshlet"); "unknown" for
 * a value out of range. Never NULL; the string is static. */
const char *orr_strategy_name(orr_strategy strategy);
/* The strategy named `name` (as orr_strategy_name spells it) into *out; false (and *out untouched) when
 * `name` is NULL or names none. */
bool orr_strategy_parse(const char *name, orr_strategy *out);

typedef enum orr_cull {
    ORR_CULL_AUTO = 0, /* on the GPU for the indirect and meshlet strategies, on the CPU for the others */
    ORR_CULL_CPU = 1,  /* the draw module's cull (the reference) */
    ORR_CULL_GPU = 2,  /* a compute pass writes the visible records and instance counts (indirect and
                          meshlet only) */
} orr_cull;
#define ORR_CULL_COUNT 3

/* "auto", "cpu" or "gpu"; "unknown" out of range. Never NULL; static. */
const char *orr_cull_name(orr_cull cull);
/* The cull named `name` into *out; false (and *out untouched) when `name` is NULL or names none. */
bool orr_cull_parse(const char *name, orr_cull *out);

/* A Vulkan instance that several renderers share (orr_renderer_desc.vulkan_instance). Zero-initialised
 * desc: libc allocator, no logger, no validation layer, no instance extensions.
 * Without one, each renderer makes and destroys an instance of its own, and the driver is loaded and
 * unloaded with it; a host that makes more than a few renderers in one process shares one instance
 * instead (docs/api.md says why: some drivers run out of thread-local storage).
 * The instance holds what is the instance's: the validation layer and its settings, the host's
 * instance extensions, the list of physical devices (read once, here). Renderers on several threads
 * may share it. Each renderer made with it must be destroyed before it: orr_vulkan_instance_destroy
 * while one lives is API misuse (a debug assert names the count).
 * Validation messages: while a renderer made with the instance lives, each message of the instance
 * reaches that renderer's logger and count (another renderer's messages too, on that renderer's
 * thread: a logger shared by renderers on several threads must take lines from any of them);
 * messages raised while none lives (creation, destruction) reach the instance's logger. Failures:
 * as orr_renderer_desc says (ORR_ERROR_NO_DEVICE, ORR_ERROR_UNSUPPORTED), also when the loader
 * lists no device. */
typedef struct orr_vulkan_instance orr_vulkan_instance;

typedef struct orr_vulkan_instance_desc {
    orr_allocator allocator;  /* for the object itself; zero: libc */
    orr_logger logger;        /* its own failures and the validation messages no renderer hears */
    bool validation;          /* as orr_renderer_desc.validation, for every renderer made with it */
    bool validate_synchronization;
    bool validate_best_practices;
    const char *const *instance_extensions; /* as orr_renderer_desc.instance_extensions */
    uint32_t instance_extension_count;
} orr_vulkan_instance_desc;

orr_result orr_vulkan_instance_create(const orr_vulkan_instance_desc *desc, orr_vulkan_instance **out,
                                      orr_error *err);
void orr_vulkan_instance_destroy(orr_vulkan_instance *instance); /* NULL: no-op */
/* Every validation message the instance raised since creation (heard by renderers or not). */
uint32_t orr_vulkan_instance_validation_messages(const orr_vulkan_instance *instance);

/* Defaults (zero-initialised): libc allocator, no logger, no validation layer, the first suitable
 * device. Instance, material and geometry buffers start small and grow on demand. Device memory comes
 * from a few large blocks that buffers and images are placed in (orr_render_stats.memory.gpu_allocations);
 * pipelines are made through one pipeline cache, each the first time a frame needs its state.
 * Textures: where the device indexes arrays of sampled images dynamically, one array that every
 * material indexes (an indirect pass is then one multi-draw whatever the textures); elsewhere
 * (lavapipe) a descriptor set per material, bound per batch.
 * Suitable: Vulkan 1.3 with dynamicRendering, synchronization2 and drawIndirectFirstInstance, a
 * graphics queue, R8G8B8A8_SRGB colour and D32_SFLOAT depth. Among those a device whose name contains
 * device_name wins, then discrete > integrated > virtual > CPU (lavapipe), then enumeration order.
 * No usable device: ORR_ERROR_NO_DEVICE with a message saying why. validation without the layer
 * installed: ORR_ERROR_UNSUPPORTED.
 * vulkan_instance NULL (the default): the renderer makes a Vulkan instance of its own from
 * validation, validate_* and instance_extensions, and destroys it with itself; fine for a process
 * that makes a few renderers (see orr_vulkan_instance for why one that makes many shares one). With
 * a shared instance those fields must be left zero (they are the instance's: a debug assert). */
typedef struct orr_renderer_desc {
    orr_allocator allocator;
    orr_logger logger;
    orr_vulkan_instance *vulkan_instance; /* NULL, or the shared instance to make the device from.
                                             Not to be destroyed before the renderer */
    bool validation;          /* VK_LAYER_KHRONOS_validation + debug messenger: warnings and errors are
                                 logged (ORR_LOG_WARNING / ORR_LOG_ERROR, ORR_GPU_VALIDATION_PREFIX)
                                 and counted */
    const char *const *instance_extensions; /* more instance extensions: a window system's surface ones
                                               (orr_window_instance_extensions); any of them turns
                                               presentation on (devices without VK_KHR_swapchain are then
                                               unsuitable) */
    uint32_t instance_extension_count;
    bool validate_synchronization; /* with validation: the layer's synchronization validation too */
    bool validate_best_practices;  /* with validation: its best-practices checks too */
    const char *device_name;  /* substring of the device name to prefer; NULL = first suitable */
    bool texture_sets;        /* a descriptor set per material even where the device can index one
                                 texture array (the fallback path, chosen anyway: for comparisons) */
    bool vertex_capture;      /* a test mode: the mesh vertex shader also writes each vertex's world position,
                                 as it placed it, to a host-visible buffer (orr_renderer_read_vertices).
                                 Costs a buffer of instance slots x pool vertices x 16 bytes and a fill
                                 per frame. ORR_ERROR_UNSUPPORTED at creation on a device without
                                 vertexPipelineStoresAndAtomics. The meshlet strategy's mesh shaders do
                                 not capture (their fallback does: ask for it with meshlet_fallback). */
    bool meshlet_fallback;    /* the meshlet strategy draws through its fallback (compute expansion into
                                 indexed indirect draws) even where the device has mesh shaders: for
                                 comparisons; VK_EXT_mesh_shader is then not enabled */
    bool baseline_gpu;        /* a benchmark aid: each frame also draws every view's visible instances again
                                 with the leanest pipeline that can draw them (the pool position plus the
                                 instance's translation, a constant colour, one indirect draw per view)
                                 into scratch images of its own, after the frame's work, and times it
                                 (orr_render_stats.baseline_gpu_ms): the device's floor for that frame.
                                 Costs that GPU time and two images of the largest target size; views of
                                 a sample count other than the frame's target's are left out. Needs
                                 timestamps */
    uint32_t threads;         /* threads for the frame's passes over many items (instance and joint records,
                                 draw-scene rebuilds, the CPU cull, the views' records) and for the mip
                                 chains of the textures a frame uploads: 0 = one per online core, 1 = the
                                 frame's thread alone, N = N (at most 256); the uploads, draw order and
                                 image are the same bytes whatever the count. A pass of fewer than 1024
                                 items, and a frame with little to build, runs on the frame's thread */
    orr_workers *workers;     /* NULL, or threads kept by the caller that those passes run on (up to
                                 `threads` of them); without, the renderer starts its own the first time a
                                 pass is shared out and keeps them (a frame that shares mip building starts
                                 its own for the frame). Not to be destroyed before the renderer */
    bool interpolate;         /* draw frames between ticks (orr_snapshot.lag above 0) blended ("Between
                                 ticks" above). Costs, on the frame's thread, a pose held per changed
                                 instance every frame that applies a snapshot (64 bytes per instance slot,
                                 64 MB at 1M, and a pass over the changes), so that the CPU cull can test
                                 an instance where a later frame between ticks draws it. Off: every lag is
                                 taken as 0 and every frame draws the current poses (the same bytes as at
                                 lag 0), and nothing is held. Chosen at creation, not per frame: a renderer
                                 that began holding poses at the first frame drawn between ticks would not
                                 know the earlier pose of what changed at that tick, and would cull those
                                 instances at their current pose while drawing them blended */
} orr_renderer_desc;

orr_result orr_renderer_create(const orr_renderer_desc *desc, orr_renderer **out, orr_error *err);

/* Binds the asset library that the snapshots rendered from now on refer to: every orr_renderer_render
 * draws from it. The library is borrowed while bound: keep it alive until it is unbound, another is
 * bound, or the renderer is destroyed. One library is bound at a time: binding another (or unbinding)
 * releases what the renderer holds for the previous one (after the frames in flight), and its id then
 * fails. A library destroyed and another created at the same address are two bindings: nothing of the
 * first is drawn for the second. `out` is NULL-able: the id serves only to unbind. */
orr_result orr_renderer_bind_library(orr_renderer *renderer, const orr_assets *assets, orr_library_id *out);
orr_result orr_renderer_unbind_library(orr_renderer *renderer, orr_library_id library);
void orr_renderer_destroy(orr_renderer *renderer); /* waits for the GPU; NULL is a no-op */
const orr_error *orr_renderer_last_error(const orr_renderer *renderer);
const char *orr_renderer_device_name(const orr_renderer *renderer);
/* Validation messages (warnings and errors) seen since creation; 0 when validation is off. With a
 * shared instance, every message the instance raised while this renderer lived (orr_vulkan_instance).
 * Messages raised while the renderer is destroyed (objects still alive at vkDestroyDevice /
 * vkDestroyInstance) come after this can be read: a caller that must see every message counts them in
 * its logger. */
uint32_t orr_renderer_validation_messages(const orr_renderer *renderer);
/* Whether the device offers what the meshlet strategy's task and mesh shaders need: VK_EXT_mesh_shader
 * with taskShader and meshShader, mesh outputs of ORR_MESHLET_MAX_VERTICES vertices and
 * ORR_MESHLET_MAX_TRIANGLES triangles, and workgroups of 32 (lavapipe of Mesa 22 does not). */
bool orr_renderer_has_mesh_shaders(const orr_renderer *renderer);
/* Whether the meshlet strategy draws with them: the device has them and orr_renderer_desc.meshlet_fallback
 * was not set. Otherwise it draws through its fallback; orr_render_stats says which path each frame took. */
bool orr_renderer_uses_mesh_shaders(const orr_renderer *renderer);
/* Each validation message reaches the logger as one line that starts with this prefix, at
 * ORR_LOG_WARNING or ORR_LOG_ERROR (without a logger: stderr, after "orrery: "). The renderer's
 * own lines start with "gpu: ". */
#define ORR_GPU_VALIDATION_PREFIX "vulkan validation: "

typedef struct orr_target_desc {
    uint32_t width, height;   /* pixels */
    float clear_color[4];     /* linear RGBA; cleared once per frame for the whole target */
    bool readback;            /* read every frame back (else only frames that ask: orr_render_desc) */
    uint32_t samples;         /* multisampling: 1, 2, 4 or 8 samples per pixel, resolved into the target's
                                 image (offscreen or swapchain) before read-back or present; a count the
                                 device lacks for colour and depth is refused, naming the ones it has
                                 (orr_renderer_sample_counts). 0: 4 where the device has 4, else 1 (as
                                 `orrery render` and `orrery view` choose); a target that scene
                                 techniques draw into asks for 1 (technique.h) */
    uint64_t texture_key;     /* nonzero: a texture target, whose colour image the target textures with
                                 this key show (see the top of this header); one live target per key */
    const char *name;         /* NULL-able; copied; names the target in messages */
} orr_target_desc;

/* The sample counts targets may have on this device: bit n set = 2^n samples (1 | 2 | 4 | 8 at most). */
uint32_t orr_renderer_sample_counts(const orr_renderer *renderer);

/* ORR_ERROR_INVALID_ARGUMENT for a texture key a live target already has. */
orr_result orr_renderer_create_target(orr_renderer *renderer, const orr_target_desc *desc, orr_target_id *out);
/* Also destroys the target's views (their ids then fail). GPU resources are retired after the frames
 * in flight (a surface target's swapchain: the queue is waited for). */
orr_result orr_renderer_destroy_target(orr_renderer *renderer, orr_target_id target);
/* A new size in pixels. The target's images are remade at the next frame (the old ones retired after
 * the frames in flight); its views keep their viewports relative to the target (a view on the right
 * half stays on the right half). 0 x 0, for a surface target only, is a minimised window: frames
 * draw nothing (orr_render_stats.presented false) until a size comes back. */
orr_result orr_renderer_resize_target(orr_renderer *renderer, orr_target_id target, uint32_t width, uint32_t height);
/* The target's size now: a surface target follows its window (the swapchain is remade when the
 * surface reports another size); 0 x 0 while minimised. */
orr_result orr_renderer_target_size(orr_renderer *renderer, orr_target_id target, uint32_t *width, uint32_t *height);

/* How a surface target's frames reach the screen. A mode the surface lacks falls back to FIFO (which
 * every surface has), with a warning. */
typedef enum orr_present_mode {
    ORR_PRESENT_FIFO = 0,     /* vertical sync, no tearing */
    ORR_PRESENT_MAILBOX = 1,  /* no tearing, the newest frame wins */
    ORR_PRESENT_IMMEDIATE = 2, /* no wait: may tear */
    ORR_PRESENT_FIFO_RELAXED = 3,
} orr_present_mode;

typedef struct orr_viewport { uint32_t x, y, width, height; } orr_viewport;

typedef enum orr_tone_mapping {
    ORR_TONE_MAPPING_PBR_NEUTRAL = 0, /* Khronos PBR Neutral: colours up to 0.76 stay as they are,
                                         brighter ones roll off towards white */
    ORR_TONE_MAPPING_NONE = 1,        /* the exposed value, clamped to 1 by the target */
} orr_tone_mapping;

/* How a view turns the scene's light into pixels. Light is physical (lux, candela, and emission in
 * nits, KHR_materials_emissive_strength included); `exposure` scales it before tone mapping. For a
 * camera's EV100, exposure = 1 / (1.2 x 2^EV100) (orr_gpu_exposure_from_ev100). Zero-initialised: exposure
 * 1, PBR Neutral, the default sky (radiance 0.25 from above, 0.08 from below, per channel), and a
 * default key light (3 lux, from above-front-right) when the snapshot has no lights. */
typedef struct orr_view_lighting {
    double exposure;                  /* 0 = 1 */
    orr_tone_mapping tone_mapping;
    bool custom_ambient;              /* sky and ground below instead of the default (zeros: none) */
    float sky[3], ground[3];          /* linear radiance of the upper and lower hemisphere: the ambient
                                         term (diffuse: the sky's irradiance, exact as spherical
                                         harmonics of order 1; specular: the sky along the reflection),
                                         darkened by occlusion maps */
    bool no_default_light;            /* a snapshot without lights stays unlit (ambient and emission) */
} orr_view_lighting;

double orr_gpu_exposure_from_ev100(double ev100); /* 1 / (1.2 x 2^ev100) */

/** How a view's shadow distance is cut into cascades (orr_shadow_settings.split). */
typedef enum orr_shadow_split {
    ORR_SHADOW_SPLIT_PRACTICAL = 0, /**< 3/4 logarithmic, 1/4 uniform (the default) */
    ORR_SHADOW_SPLIT_LOGARITHMIC,   /**< near / far ratio the same in every cascade */
    ORR_SHADOW_SPLIT_UNIFORM,       /**< the same depth in every cascade */
} orr_shadow_split;

/** The most cascades a directional light's shadow has. */
#define ORR_SHADOW_MAX_CASCADES 4

/** The most lights that cast shadows in one view (orr_shadow_settings.max_lights). */
#define ORR_SHADOW_MAX_LIGHTS 16

/** A view's shadows (orr_view_desc.shadows). Off by default: the view's image is then what it was
 * without shadows, to the byte. On, every light of the snapshot whose casts_shadows is set casts (the
 * default key light when the snapshot has none), up to `max_lights` of them: directional lights first,
 * then spot lights, then point lights, each kind in snapshot order; the lights past the limit light the
 * view unshadowed and are counted in orr_render_stats.views.shadow_lights_over. For each shadowed light
 * the renderer makes shadow views of the shared scene:
 * - a directional light: the view's depth range up to `distance` cut into `cascades` slices, each
 *   fitted with a bounding sphere (its size does not change as the camera turns) and snapped to whole
 *   texels of a grid fixed in the world (anchored at the view origin rounded to ORR_SHADOW_ANCHOR
 *   metres), so that shadows do not shimmer as the camera moves;
 * - a spot light: one perspective map over its cone;
 * - a point light: a cube of six perspective maps (+X, -X, +Y, -Y, +Z, -Z), each a little wider than
 *   90 degrees so that the filter never reaches past a face's edge; a receiver reads the face of the
 *   largest component of its direction from the light. A point light far from the view (the sphere
 *   round the camera's frustum out to `distance` subtends less than 30 degrees from it: a sun over
 *   planets) has one perspective map fitted to that sphere instead, whose texels all land where the
 *   view can receive a shadow; receivers past `distance` are then lit.
 * A spot or point light with a range (orr_render_light.range) has its maps end there (casters past it
 * are not drawn), a face of its cube that holds nothing the view sees within the range is not drawn,
 * and a light whose range reaches nothing the view sees has no map.
 * Each shadow view draws the instances whose renderer casts shadows (orr_mesh_renderer.casts_shadows),
 * visible and on the view's layers, culled on the GPU against its own frustum with the view's binary64
 * origin subtracted first, depth-only (alpha-masked surfaces cut as the view cuts them, so that only
 * their opaque texels cast) into one layer of a depth array image that every view shares: layers = the shadow views of the frame, each map_size x map_size
 * texels of 4 bytes (memory in orr_render_stats.memory.shadow_bytes; one directional light at the
 * defaults: 4 x 16 MiB). The view's surfaces sample it with percentage-closer filtering (the same on
 * every device); a directional light's from the first cascade whose map holds the point with the
 * filter's reach, blended over the last fifth of that cascade's depth range into the next one (the last
 * one into lit), so that no boundary between cascades shows. Zeros give the defaults below. */
typedef struct orr_shadow_settings {
    bool enabled;           /**< false: no shadow views (the default) */
    uint32_t map_size;      /**< texels per side of each cascade's map, 16..8192; 0 = 2048 */
    uint32_t cascades;      /**< 1..ORR_SHADOW_MAX_CASCADES; 0 = 4 */
    orr_shadow_split split; /**< how the distance is cut */
    double distance;        /**< metres from the camera that shadows reach; 0 = 100 (a camera whose zfar is
                                 nearer stops there) */
    float depth_bias;       /**< receiver depth bias in texels of the cascade (its world size per texel);
                                 0 = 1.5 */
    float normal_offset;    /**< the receiver's point moved along its normal, in texels per texel that
                                 the filter reaches from it (pcf 3: 2 texels), which keeps every tap in
                                 front of a surface whatever its slope to the light; 0 = 1.0 */
    uint32_t pcf;           /**< filter taps per side, one texel apart, each a bilinear 2x2 comparison:
                                 1..5; 0 = 3 */
    uint32_t max_lights;    /**< the most lights that cast shadows in the view, 1..ORR_SHADOW_MAX_LIGHTS;
                                 0 = 4 (a key light and three local ones: at most 24 shadow views, four
                                 point lights' cubes, per camera view) */
} orr_shadow_settings;

/** The grid (metres) the shadow texel snapping is anchored to: the view origin rounded to a multiple
 * of it. A camera that travels this far moves the anchor once; two scenes that differ by a translation
 * that is a multiple of it on each axis draw the same shadow bytes. */
#define ORR_SHADOW_ANCHOR 10000.0

/* A view: a projection of the shared scene onto part of a target. Camera: the snapshot camera whose
 * entity matches `camera` (its pose and projection: perspective yfov, znear (its zfar is ignored: the
 * far plane is infinite); orthographic xmag, ymag, znear, zfar), or, when `camera` is none or not in
 * the snapshot, the explicit `pose`, yfov and znear. The aspect ratio is the viewport's, unless the
 * snapshot camera fixes one (a perspective aspect, or xmag / ymag): the view then draws into the largest
 * rectangle of that aspect centred in its viewport, and leaves the rest as the target's clear colour.
 * The view origin is the pose's translation; the rotation (columns normalised) and projection are
 * computed in binary64 after subtracting it. */
typedef struct orr_view_desc {
    orr_target_id target;
    uint32_t slot;            /* views draw in ascending slot order */
    orr_viewport viewport;    /* also the scissor; 0 x 0 = the whole target */
    orr_entity camera;
    orr_mat4d pose;           /* camera to world (-Z forward, +Y up); all zero = identity */
    double yfov;              /* radians; 0 = 0.8 */
    double znear;             /* 0 = 0.05 */
    uint32_t layer_mask;      /* 0 = all layers */
    orr_draw_order order;
    orr_strategy strategy;
    orr_cull cull;            /* ORR_CULL_GPU with another strategy than indirect: refused */
    orr_view_lighting lighting;
    uint32_t shells;          /* the shell count of every fur surface this view draws, whatever its
                                 material's (orr_fur.shell_count) or its instance's sidecar entry says:
                                 the view wins when set; 0 = not set (each fur surface its own count).
                                 1..ORR_FUR_MAX_SHELLS. Plain surfaces are one shell whatever it is. */
    orr_shadow_settings shadows; /* off unless enabled */
    bool occlusion;           /* the GPU cull also culls by occlusion, in two phases (the surfaces visible
                                 the frame before drawn first, a depth pyramid of their depth, then the
                                 others tested against it); conservative: the same image bytes as without.
                                 Needs the GPU cull (ORR_CULL_GPU, or AUTO with indirect); not done (the
                                 view draws as without) for a multisampled target, the meshlet strategy,
                                 or a view a host technique draws before or in place of. Off by default */
    float lod_pixels;         /* levels of detail: each instance of a mesh with levels shows the coarsest
                                 level whose error projects within this many pixels of the viewport
                                 (orr_draw_lod_pick; the same pick on the GPU cull and the CPU one);
                                 0 = level 0 always */
} orr_view_desc;

orr_result orr_renderer_create_view(orr_renderer *renderer, const orr_view_desc *desc, orr_view_id *out);
orr_result orr_renderer_update_view(orr_renderer *renderer, orr_view_id view, const orr_view_desc *desc);
orr_result orr_renderer_destroy_view(orr_renderer *renderer, orr_view_id view);

/* Where a frame's CPU time goes (orr_render_stats.time.cpu_ms), in the order the frame runs them. */
typedef enum orr_render_phase {
    ORR_PHASE_RESIDENCY = 0, /* waiting excluded: meshes and textures to upload, deferred destruction */
    ORR_PHASE_INSTANCES,     /* instance slots and the changed records */
    ORR_PHASE_SCENES,        /* the retained draw scenes (rebuilt only when the layout changed) */
    ORR_PHASE_VIEWS,         /* per view: camera, CPU cull (views culled on the CPU) */
    ORR_PHASE_RECORD,        /* uploads and commands (the draw commands only when they changed) */
    ORR_PHASE_SUBMIT,
    ORR_PHASE_COUNT,
} orr_render_phase;

/* Why the meshlet strategy drew a surface through the indexed path instead (orr_render_stats.meshlets.indexed,
 * per record drawn). Surfaces of another payload (fur) are their adapter's under every strategy (the fur
 * adapter's shells: orr_render_stats.draws.fur_draws), not the meshlet strategy's. */
typedef enum orr_meshlet_indexed {
    ORR_MESHLET_INDEXED_SKINNED = 0, /* skinning moves vertices out of the meshlets' bind-pose bounds */
    ORR_MESHLET_INDEXED_MORPHED,     /* so do morph targets */
    ORR_MESHLET_INDEXED_BLENDED,     /* alpha blend: its order is the draw order, which task shaders do not keep
                                        between workgroups */
    ORR_MESHLET_INDEXED_NO_MESHLETS, /* the primitive has none (its mesh was added without build_meshlets,
                                        or it is not a triangle list) */
    ORR_MESHLET_INDEXED_CAPACITY,    /* the fallback's command slots for the view ran out
                                        (ORR_MESHLET_MAX_SLOTS) */
    ORR_MESHLET_INDEXED_COUNT,
} orr_meshlet_indexed;
const char *orr_meshlet_indexed_name(orr_meshlet_indexed reason); /* "skinned", "morphed", ... */
/* The most indexed commands the fallback writes for one view (records x meshlets): 80 MB of commands. */
#define ORR_MESHLET_MAX_SLOTS (1u << 22)
const char *orr_render_phase_name(orr_render_phase phase); /* "residency", "instances", ... */

/* Per-frame figures (render --stats), grouped by what they count. "Summed over views": over the target's
 * own views and those of the texture targets drawn before it. Views culled on the GPU, and the meshlet
 * strategy, know some figures only once the GPU has run: orr_renderer_finish completes them. */
typedef struct orr_render_stats {
    uint64_t frame;
    bool presented;       /* the frame was drawn (false: a minimised surface target, nothing done) */
    bool full_sync;       /* the snapshot was taken whole (no applicable delta) */
    bool commands_reused; /* the frame's cull and draw commands were its slot's earlier recording, submitted
                             again (nothing they are made from changed: see ORR_PHASE_RECORD) */
    bool uploads_reused;  /* and its upload commands (it uploaded only the views' copies, the same ones) */
    uint32_t swapchains;  /* surface targets: swapchains made since the target was (1 + recreations) */
    struct {
        uint32_t count;                    /* the target's own */
        uint32_t texture_targets;          /* texture targets drawn before it (those its materials
                                              sample, and theirs) */
        uint32_t texture_views;            /* their views */
        uint32_t texture_target_fallbacks; /* material texture slots drawn whose target texture has no
                                              live texture target (none made, or destroyed): white */
        uint32_t gpu_culled;               /* views culled on the GPU */
        uint32_t shadow_views;             /* shadow views drawn (cascades, spot maps and cube faces,
                                              summed over views) */
        uint32_t shadow_lights;            /* lights that cast shadows, summed over views */
        uint32_t shadow_lights_over;       /* lights whose casts_shadows is set that a view with shadows
                                              on lit unshadowed, past its max_lights (summed over views) */
        uint32_t shadow_casters;           /* instances drawn into the shadow views, summed over them (the
                                              GPU's counts: of the latest completed frame, as cull.visible
                                              for GPU-culled views) */
    } views;
    struct {
        uint32_t instances; /* snapshot instances */
        uint32_t changed;   /* instance records this frame uploaded */
        uint32_t visible;   /* summed over views: instances drawn (GPU-culled views: those with a surface
                               before the transparent pass, as of each view's latest completed frame, and
                               the transparent surfaces the CPU culls, one count each) */
        uint32_t culled;    /* summed over views: instances outside their frustum (GPU-culled views: as
                               visible counts them) */
        uint32_t occluded;  /* summed over views with occlusion: instances in their frustum that the depth
                               pyramid hid, as of each view's latest completed frame */
        uint32_t out_of_range; /* summed over views: instances outside their visibility range. Each
                                  instance a view may show (visible, in its layers) is one of visible,
                                  culled, occluded or out_of_range, whatever its levels of detail
                                  (GPU-culled views: an instance with transparent surfaces, once per
                                  such surface, and once more when it has others) */
    } cull;
    struct {
        uint32_t surfaces;                 /* surface draws, summed over views */
        uint32_t batches;                  /* summed over views: batches with a visible draw */
        uint32_t calls;                    /* vkCmdDraw* calls recorded */
        uint32_t pipelines;                /* graphics pipelines made for drawing scenes: one per drawing
                                              state (alpha mode, sides), sample count and what the batches'
                                              vertices carry (only what a mesh has and its material reads),
                                              per path (record, shell, meshlet) */
        uint32_t dropped[ORR_DROP_COUNT];  /* by reason (orr_drop_name) */
        uint32_t fur_draws;                /* summed over views: fur surfaces drawn (one shell draw each) */
        uint64_t shells;                   /* summed over views: the shells those drew */
        uint32_t fur_fallbacks;            /* summed over views: surfaces of a fur material drawn as plain
                                              ones, their instance having no usable fur sidecar entry */
        uint32_t lod_surfaces[ORR_MESH_MAX_LODS];  /* summed over views: surface draws at each level of
                                                      detail (level 0 for meshes without levels) */
        uint64_t lod_triangles[ORR_MESH_MAX_LODS]; /* and the triangles they draw (GPU-culled views: as
                                                      of their latest completed cull, like surfaces) */
    } draws;
    struct {
        uint64_t geometry_bytes; /* resident geometry pool */
        uint64_t instance_bytes; /* 80 x instance slots in use */
        uint64_t material_bytes;
        uint64_t uploaded_bytes; /* this frame: meshes, textures, instance records, joints, materials, draw scenes */
        uint64_t view_bytes;     /* this frame: the CPU-culled views' records and indirect commands */
        uint64_t shadow_bytes;   /* the shadow maps' depth array (in gpu_bytes too) */
        uint64_t gpu_bytes;      /* device memory the renderer holds (buffers, images, pools) */
        uint32_t gpu_allocations; /* the vkAllocateMemory blocks that memory is in (see orr_renderer_create) */
    } memory;
    struct {
        double cpu_ms[ORR_PHASE_COUNT]; /* this call's time per phase: the calling thread's CPU time
                                           with `threads` 1, else wall-clock time (a pass shared out on
                                           workers costs what the caller waits for it) */
        double wait_ms;   /* waiting for a frame slot (and a surface's image), in the phases' clock: in
                             no phase */
        double wait_wall_ms; /* the same wait in wall-clock time: what a host timing its frame by the
                                wall clock subtracts to leave the frame's own cost */
        double gpu_ms;    /* GPU time of the latest frame known complete (timestamps); -1 = none yet */
        uint64_t gpu_frame; /* which frame gpu_ms is of (the `frame` of that call) */
        double baseline_gpu_ms; /* orr_renderer_desc.baseline_gpu: the floor's GPU time in that same frame;
                                   -1 = none (not asked for, or none known yet) */
        double shadow_gpu_ms;   /* of gpu_ms, the shadow views' (their maps drawn); -1 = none (that frame
                                   drew none, or none known yet) */
        double views_gpu_ms;    /* of gpu_ms, the views' and techniques' after the shadow views; -1 =
                                   none known yet */
    } time;
    /* The meshlet strategy, summed over its views, as of each view's latest completed frame. Sent: the
     * meshlets (and triangles) of the visible records drawn by meshlets, what the indexed strategies
     * send for them; kept: those that passed the frustum and cone tests. */
    struct {
        uint32_t views;             /* views drawn with the meshlet strategy */
        uint32_t mesh_shader_views; /* of them, by task and mesh shaders (the others by the fallback) */
        uint64_t sent, kept;
        uint64_t triangles_sent, triangles_kept;
        uint32_t indexed[ORR_MESHLET_INDEXED_COUNT]; /* records drawn by the indexed path, by reason */
        uint64_t triangles_indexed;                  /* their triangles */
    } meshlets;
} orr_render_stats;

/* One frame. The asset library is the one bound (orr_renderer_bind_library), not named here. */
typedef struct orr_render_desc {
    orr_target_id target;
    const orr_snapshot *snapshot; /* its ids name the bound library's assets; borrowed for the call */
    bool readback;                /* read this frame back (orr_renderer_read_target), e.g. a screenshot */
} orr_render_desc;

/* Draws one frame of the snapshot into the target: uploads meshes and textures not resident yet and
 * the changed instance and material records, one clear, then every view of the target in slot order
 * (its own depth, its strategy and cull), then the target's techniques. Shading is glTF 2.0
 * metallic-roughness with every texture slot, morph targets and skins on the GPU, every light of the
 * snapshot and the view's orr_view_lighting (docs/gltf.md says what is drawn); a fur surface as orr_fur
 * describes, one shell being the plain surface to the byte. Does not wait for the GPU (two frames in
 * flight). `stats` is NULL-able. Fails with the renderer's last error set: a stale target, no library
 * bound, a texture target that would sample itself, a Vulkan error. Bad data in the snapshot is dropped and
 * counted (orr_render_stats.draws.dropped), not a failure. */
orr_result orr_renderer_render(orr_renderer *renderer, const orr_render_desc *desc, orr_render_stats *stats);
/* Waits for every frame submitted, then completes `stats` (NULL-able; the figures of the last
 * orr_renderer_render) with what only the GPU knew: gpu_ms of that frame, the visible counts of its
 * views culled on the GPU and the meshlet counts of its meshlet views. */
orr_result orr_renderer_finish(orr_renderer *renderer, orr_render_stats *stats);
/* Vertex capture (orr_renderer_desc.vertex_capture): the world positions (x, y, z each) that the last
 * frame's draws gave the `count` vertices of primitive `primitive` of `mesh` for instance `instance_id`
 * (NaN for a vertex no view drew; with several views, the last one's). Waits for the GPU. count must be
 * the resident primitive's vertex count (orr_primitive.vertex_count). ORR_ERROR_NOT_FOUND when the
 * instance or the mesh is not resident. */
orr_result orr_renderer_read_vertices(orr_renderer *renderer, uint32_t instance_id, orr_mesh_id mesh,
                                      uint32_t primitive, float *xyz, uint32_t count);
/* Copies the target's last frame as RGBA8 (sRGB encoded), width x height x 4 bytes, rows top first;
 * a surface target's, from the swapchain image presented (where the surface lets images be copied);
 * a texture target's, of the last frame that drew it (as a target, or before one that samples it:
 * then only with orr_target_desc.readback). Waits for that frame. ORR_ERROR_INVALID_ARGUMENT when
 * `size` is too small, nothing was rendered, or the last frame was not read back (neither
 * orr_render_desc.readback nor orr_target_desc.readback). */
orr_result orr_renderer_read_target(orr_renderer *renderer, orr_target_id target, uint8_t *rgba, size_t size);

/* Writes RGBA8 pixels (rows top first) as a PNG file. A regular file is written to a temporary name
 * beside it, synced and renamed over `path`, so `path` never holds a truncated image: on failure it
 * keeps what it held before (a symlink is followed, its target replaced). A device or pipe
 * (/dev/stdout) is written in place. A file that exists keeps its permission bits; one the user may
 * not write (no write permission for them, or no write bit at all when the user is root) is refused,
 * not replaced. Every write and the close are checked: ORR_ERROR_IO naming the path and the reason
 * (`out.png: cannot write PNG: No space left on device`). */
orr_result orr_gpu_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, orr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_GPU_H */
