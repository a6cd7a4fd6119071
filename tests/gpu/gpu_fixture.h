/* A procedural scene for the gpu tests: meshes and materials built with the asset library and a
 * hand-built snapshot (no world, no glTF), plus renderer helpers that fail the test on any error. */
#ifndef ORRERY_TESTS_GPU_FIXTURE_H
#define ORRERY_TESTS_GPU_FIXTURE_H

#include "testutil.h"

#include <orrery/gpu.h>
#include <orrery/technique.h>

#define FIX_MAX_INSTANCES 2048
#define FIX_MAX_IDS 4096 /* instance ids stay below */

typedef struct fixture {
    orr_assets *assets;
    orr_mesh_id cube, quad;
    orr_material_id red, green, blue, ground, glass, cutout;
    orr_render_instance instances[FIX_MAX_INSTANCES];
    orr_material_id bindings[4 * FIX_MAX_INSTANCES]; /* each instance's slot 0 override, one per fix_add */
    orr_render_light light;
    orr_snapshot snapshot; /* built by hand: no delta unless fix_delta gives one */
    uint32_t index_of[FIX_MAX_IDS];
    uint32_t changed[FIX_MAX_INSTANCES], removed[FIX_MAX_INSTANCES];
    orr_renderer *bound;   /* the renderer `library` binds the assets to... */
    uint64_t bound_serial; /* ...told apart from a later renderer at the same address */
    orr_library_id library;
} fixture;

/* The scene: cubes, a double-sided ground, a transparent and a cut-out quad, one directional light;
 * every translation is moved by `offset` (binary64). */
void fix_init(fixture *f, orr_vec3d offset);
/* The same with the asset library made through `allocator`. */
void fix_init_with(fixture *f, orr_vec3d offset, const orr_allocator *allocator);
/* The same scene with meshlets built for its meshes (orr_mesh_desc.build_meshlets). */
void fix_init_meshlets(fixture *f, orr_vec3d offset);
/* A UV sphere of radius 0.5 (rings x segments quads, counter-clockwise outside) with meshlets, drawn
 * with `material` by default. */
orr_mesh_id fix_sphere(fixture *f, uint32_t rings, uint32_t segments, orr_material_id material);
/* The same with `levels` levels of detail beyond the full one. */
orr_mesh_id fix_sphere_lods(fixture *f, uint32_t rings, uint32_t segments, orr_material_id material, uint32_t levels);
void fix_fini(fixture *f);
/* Appends an instance (world = T x R x S, T moved by offset by the caller) whose slot 0 draws with
 * `material`. */
orr_render_instance *fix_add(fixture *f, uint32_t id, orr_mesh_id mesh, orr_material_id material, orr_mat4d world);
/* The fixture's library bound to `r` (bound once per renderer). */
orr_library_id fix_library(orr_renderer *r, fixture *f);
/* Makes the snapshot the next frame with a delta against the current one: `changed` (ids) and
 * `removed` (ids) as given, layout_version bumped when `relayout`. Without it a render takes the
 * snapshot whole. */
void fix_delta(fixture *f, const uint32_t *changed, uint32_t changed_count, const uint32_t *removed,
               uint32_t removed_count, bool relayout);
/* A render desc for the fixture's snapshot into `target` (its index_of made current). */
orr_render_desc fix_desc(orr_renderer *r, fixture *f, orr_target_id target);

/* A camera pose (camera to world) at eye looking at target, +Y up. */
orr_mat4d fix_look(orr_vec3d eye, orr_vec3d target);

/* What a test renderer's logger saw. Validation messages are counted here, by their prefix
 * (ORR_GPU_VALIDATION_PREFIX), so that those raised while the renderer is destroyed (leaked objects
 * at vkDestroyDevice / vkDestroyInstance) are counted too. */
typedef struct fix_log {
    uint32_t validation; /* validation messages */
    uint32_t errors;     /* the renderer's own ORR_LOG_ERROR lines ("gpu: ...") */
} fix_log;

/* The process's Vulkan instance that every fix_renderer is made from (validation with synchronization
 * on; with `extensions`, the one with them: one set per process), made at its first use and destroyed
 * at exit, so that the driver is loaded once whatever the number of renderers. Validation messages no
 * renderer hears fail the next fix_renderer_done (or the exit status). */
orr_vulkan_instance *fix_vulkan_instance(const char *const *extensions, uint32_t extension_count);

/* A renderer with validation on, made from fix_vulkan_instance, logging into `log` (zeroed here; it
 * must outlive the renderer); fails the test (never skips) when there is no Vulkan device. */
orr_renderer *fix_renderer(fix_log *log);
/* The same on a Vulkan instance of its own (orr_renderer_desc.vulkan_instance NULL: the default path),
 * made and destroyed with it. */
orr_renderer *fix_renderer_own_instance(fix_log *log);
/* The same with an allocator of the test's (NULL = libc). */
orr_renderer *fix_renderer_with(fix_log *log, const orr_allocator *allocator);
/* The same with instance extensions (a window's surface ones: presentation on). */
orr_renderer *fix_renderer_presenting(fix_log *log, const orr_allocator *allocator, const char *const *extensions,
                                      uint32_t extension_count);
/* The same, taking a descriptor set per material even where the device could index one texture array
 * (orr_renderer_desc.texture_sets). */
orr_renderer *fix_renderer_sets(fix_log *log);
/* The same, with the meshlet strategy's fallback even where the device has mesh shaders
 * (orr_renderer_desc.meshlet_fallback). */
orr_renderer *fix_renderer_meshlet_fallback(fix_log *log);
/* With orr_renderer_desc.baseline_gpu (the floor drawn and timed after each frame). */
orr_renderer *fix_renderer_baseline(fix_log *log);
/* With orr_renderer_desc.threads and .workers (mip chains built on them). */
orr_renderer *fix_renderer_threads(fix_log *log, uint32_t threads, orr_workers *workers);
/* A test's teardown (cmocka's): destroys the renderers that a failed test left alive (a passing one
 * leaves none), so that one failure is reported as that and the tests after it run; also run at exit,
 * before the process's Vulkan instances go. (A failed test's asset libraries are left: the fixture that
 * held them is gone with its stack, and some tests destroy theirs themselves.) */
int fix_teardown(void **state);
/* Gives each of `count` tests without a teardown fix_teardown. */
void fix_with_teardown(struct CMUnitTest *tests, size_t count);
/* Destroys the renderer (its messages still counted into its log), asserting nothing: for a test that
 * looks at its teardown's messages itself. */
void fix_renderer_destroy(orr_renderer *r);
/* With orr_renderer_desc.vertex_capture (orr_renderer_read_vertices). */
orr_renderer *fix_renderer_capture(fix_log *log);
/* With orr_renderer_desc.interpolate (frames between ticks blended), and vertex_capture if `capture`. */
orr_renderer *fix_renderer_interpolating(fix_log *log, bool capture);
/* Destroys the renderer, then asserts that validation reported nothing, teardown included. */
void fix_renderer_done(orr_renderer *r, fix_log *log);

/* Renders the snapshot into a new target of w x h with the given views (viewports, cameras and
 * strategy) and returns the pixels (caller frees); `stats` (NULL-able) as orr_renderer_finish completes
 * them. */
typedef struct fix_view {
    orr_viewport viewport;
    orr_mat4d pose;
    orr_strategy strategy;
    orr_draw_order order;
    orr_cull cull;
    float lod_pixels; /* orr_view_desc.lod_pixels */
} fix_view;
uint8_t *fix_render(orr_renderer *r, fixture *f, uint32_t w, uint32_t h, const fix_view *views, uint32_t view_count,
                    orr_render_stats *stats);
/* The same into a target of `samples` samples per pixel (fix_render: 1; 0: the library's default). */
uint8_t *fix_render_samples(orr_renderer *r, fixture *f, uint32_t w, uint32_t h, const fix_view *views,
                            uint32_t view_count, uint32_t samples, orr_render_stats *stats);

/* The two-view layout used by several tests: left and right halves, two cameras around the scene. */
void fix_two_views(orr_vec3d offset, uint32_t w, uint32_t h, orr_strategy strategy, orr_draw_order order,
                   fix_view out[2]);

/* Pixels that differ from the clear colour inside a rectangle. */
uint32_t fix_count_drawn(const uint8_t *rgba, uint32_t w, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1);
extern const float FIX_CLEAR[4];

/* ---- one target, one view, one frame: what most feature tests start from (each fails the test on
 * an error, naming the call and the renderer's message) ---- */
/* A read-back target of w x h, one sample, named `name` (NULL: none), cleared to `clear` (NULL:
 * FIX_CLEAR). */
orr_target_id fix_target(orr_renderer *r, uint32_t w, uint32_t h, const char *name, const float *clear);
/* The tests' usual camera on the scene moved by `o`: at fix_eye(o) = o + (2.5, 2, 4.5), looking at
 * o + (0, 0.25, 0). */
orr_vec3d fix_eye(orr_vec3d o);
orr_mat4d fix_camera(orr_vec3d o);
/* A view made from `d`. */
orr_view_id fix_add_view(orr_renderer *r, const orr_view_desc *d);
/* Renders one frame of the fixture's snapshot into `target`. */
void fix_draw(orr_renderer *r, fixture *f, orr_target_id target);
/* The same, then the target (w x h) read back; the caller frees the pixels. */
uint8_t *fix_frame(orr_renderer *r, fixture *f, orr_target_id target, uint32_t w, uint32_t h);
/* Fails unless `text` (a technique graph's description) has a line that begins with `head` and is
 * exactly `line`: a pass's whole line, not a word of it. */
void fix_assert_line(const char *text, const char *head, const char *line);
/* The frame (n pixels) is not one flat colour, so that a test comparing against it can fail: at least
 * a quarter of its pixels differ from the first in RGB. */
void fix_assert_varied(const uint8_t *px, uint32_t n);
/* orr_renderer_set_techniques, which must take them. */
void fix_set_techniques(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, uint32_t n,
                        orr_technique_id *ids);

#endif
