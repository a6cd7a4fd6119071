#include "gpu_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const float FIX_CLEAR[4] = {0.0f, 0.0f, 0.0f, 1.0f};

static orr_material_id add_material(orr_assets *a, float r, float g, float b, float alpha, orr_alpha_mode mode,
                                    bool double_sided)
{
    orr_material m = orr_material_default();
    m.base_color[0] = r;
    m.base_color[1] = g;
    m.base_color[2] = b;
    m.base_color[3] = alpha;
    m.alpha_mode = mode;
    m.double_sided = double_sided;
    orr_material_id id;
    assert_int_equal(orr_assets_add_material(a, &m, &id), ORR_OK);
    return id;
}

/* A unit cube centred on the origin: 24 vertices (flat normals), counter-clockwise outside. */
static orr_mesh_id add_cube(orr_assets *a, orr_material_id material, bool meshlets)
{
    static const float n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    float pos[24 * 3], nrm[24 * 3], col[24 * 4];
    uint32_t idx[36];
    for (int face = 0; face < 6; face++) {
        const float *fn = n[face];
        /* two axes spanning the face, u x v = normal */
        float u[3] = {fn[1], fn[2], fn[0]};
        float v[3] = {fn[1] * u[2] - fn[2] * u[1], fn[2] * u[0] - fn[0] * u[2], fn[0] * u[1] - fn[1] * u[0]};
        static const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int c = 0; c < 4; c++) {
            int k = face * 4 + c;
            for (int j = 0; j < 3; j++) {
                pos[k * 3 + j] = 0.5f * (fn[j] + corner[c][0] * u[j] + corner[c][1] * v[j]);
                nrm[k * 3 + j] = fn[j];
            }
            /* a gentle vertex colour gradient, so vertex colours are exercised */
            col[k * 4 + 0] = 1.0f;
            col[k * 4 + 1] = c == 2 ? 0.8f : 1.0f;
            col[k * 4 + 2] = 1.0f;
            col[k * 4 + 3] = 1.0f;
        }
        uint32_t b = (uint32_t)face * 4;
        uint32_t tri[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        memcpy(idx + face * 6, tri, sizeof tri);
    }
    orr_primitive_desc p = {
        .vertex_count = 24, .positions = pos, .normals = nrm, .colors = col, .index_count = 36, .indices = idx,
        .material = material};
    orr_mesh_desc d = {.name = "cube", .primitive_count = 1, .primitives = &p, .build_meshlets = meshlets};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &d, &id), ORR_OK);
    return id;
}

/* A unit quad in the XY plane facing +Z. */
static orr_mesh_id add_quad(orr_assets *a, orr_material_id material, bool meshlets)
{
    float pos[12] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    orr_primitive_desc p = {
        .vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx, .material = material};
    orr_mesh_desc d = {.name = "quad", .primitive_count = 1, .primitives = &p, .build_meshlets = meshlets};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &d, &id), ORR_OK);
    return id;
}

orr_render_instance *fix_add(fixture *f, uint32_t id, orr_mesh_id mesh, orr_material_id material, orr_mat4d world)
{
    assert_true(f->snapshot.instance_count < FIX_MAX_INSTANCES);
    orr_render_instance *in = &f->instances[f->snapshot.instance_count++];
    memset(in, 0, sizeof *in);
    in->id = id;
    in->entity = (orr_entity){id, 1};
    in->mesh = mesh;
    uint32_t binding = f->snapshot.material_binding_count++;
    assert_true(binding < 4 * FIX_MAX_INSTANCES);
    f->bindings[binding] = material;
    in->material_offset = binding;
    in->material_count = 1;
    orr_affine3d_from_mat4d(&world, &in->world);
    orr_aabbd b = orr_assets_try_get_mesh(f->assets, mesh)->bounds;
    in->bounds = (orr_aabbf){{(float)b.min.x, (float)b.min.y, (float)b.min.z}, {(float)b.max.x, (float)b.max.y, (float)b.max.z}};
    in->layers = 1;
    in->visible = true;
    return in;
}

static orr_mat4d trs(orr_vec3d offset, orr_vec3d t, orr_quatd r, orr_vec3d s)
{
    orr_mat4d m;
    orr_mat4d_from_trs(orr_vec3d_add(t, offset), r, s, &m);
    return m;
}

/* Translations and camera points are short binary fractions, so that adding a large offset with an
 * exact binary fraction (test_large_coordinates) stays exact in binary64. */
void fix_init(fixture *f, orr_vec3d o) { fix_init_with(f, o, NULL); }

static void init_scene(fixture *f, orr_vec3d o, const orr_allocator *allocator, bool meshlets);

void fix_init_with(fixture *f, orr_vec3d o, const orr_allocator *allocator) { init_scene(f, o, allocator, false); }
void fix_init_meshlets(fixture *f, orr_vec3d o) { init_scene(f, o, NULL, true); }

orr_mesh_id fix_sphere(fixture *f, uint32_t rings, uint32_t segments, orr_material_id material)
{
    return fix_sphere_lods(f, rings, segments, material, 0);
}

orr_mesh_id fix_sphere_lods(fixture *f, uint32_t rings, uint32_t segments, orr_material_id material, uint32_t levels)
{
    uint32_t nv = (rings + 1) * (segments + 1), nt = 2 * rings * segments;
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv);
    uint32_t *idx = malloc(sizeof(uint32_t) * 3 * nt);
    assert_true(pos && nrm && idx);
    for (uint32_t r = 0; r <= rings; r++)
        for (uint32_t s = 0; s <= segments; s++) {
            double th = 3.14159265358979323846 * r / rings, ph = 2 * 3.14159265358979323846 * s / segments;
            uint32_t k = r * (segments + 1) + s;
            nrm[k * 3 + 0] = (float)(sin(th) * cos(ph));
            nrm[k * 3 + 1] = (float)cos(th);
            nrm[k * 3 + 2] = (float)(-sin(th) * sin(ph));
            for (int c = 0; c < 3; c++) pos[k * 3 + c] = 0.5f * nrm[k * 3 + c];
        }
    uint32_t t = 0;
    for (uint32_t r = 0; r < rings; r++)
        for (uint32_t s = 0; s < segments; s++) {
            uint32_t a = r * (segments + 1) + s, b = a + segments + 1;
            /* counter-clockwise seen from outside */
            uint32_t q[6] = {a, b, a + 1, a + 1, b, b + 1};
            memcpy(idx + t * 3, q, sizeof q);
            t += 2;
        }
    orr_primitive_desc p = {.vertex_count = nv, .positions = pos, .normals = nrm, .index_count = 3 * nt, .indices = idx,
                            .material = material};
    orr_mesh_desc d = {.name = "sphere", .primitive_count = 1, .primitives = &p, .build_meshlets = true, .lod_levels = levels};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(f->assets, &d, &id), ORR_OK);
    free(pos);
    free(nrm);
    free(idx);
    return id;
}

static void init_scene(fixture *f, orr_vec3d o, const orr_allocator *allocator, bool meshlets)
{
    memset(f, 0, sizeof *f);
    orr_assets_desc ad = {0};
    if (allocator) ad.allocator = *allocator;
    assert_int_equal(orr_assets_create(&ad, &f->assets, NULL), ORR_OK);
    f->red = add_material(f->assets, 0.8f, 0.1f, 0.1f, 1.0f, ORR_ALPHA_OPAQUE, false);
    f->green = add_material(f->assets, 0.1f, 0.7f, 0.2f, 1.0f, ORR_ALPHA_OPAQUE, false);
    f->blue = add_material(f->assets, 0.1f, 0.2f, 0.9f, 1.0f, ORR_ALPHA_OPAQUE, false);
    f->ground = add_material(f->assets, 0.5f, 0.5f, 0.45f, 1.0f, ORR_ALPHA_OPAQUE, true);
    f->glass = add_material(f->assets, 1.0f, 0.9f, 0.2f, 0.5f, ORR_ALPHA_BLEND, true);
    f->cutout = add_material(f->assets, 0.9f, 0.4f, 0.9f, 0.3f, ORR_ALPHA_MASK, true); /* below the 0.5 cutoff */
    f->cube = add_cube(f->assets, f->red, meshlets);
    f->quad = add_quad(f->assets, f->ground, meshlets);
    f->snapshot.instances = f->instances;
    f->snapshot.material_bindings = f->bindings;
    f->snapshot.frame = 1;

    orr_quatd id = ORR_QUAT_IDENTITY;
    orr_vec3d one = ORR_VEC3_ONE;
    fix_add(f, 10, f->cube, f->red, trs(o, (orr_vec3d){0, 0, 0}, id, one));
    fix_add(f, 11, f->cube, f->green,
            trs(o, (orr_vec3d){1.5, 0, 0}, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, 0.5), one));
    fix_add(f, 12, f->cube, f->blue, trs(o, (orr_vec3d){-1.5, -0.125, 0.5}, id, (orr_vec3d){0.7, 0.7, 0.7}));
    fix_add(f, 13, f->quad, f->ground,
            trs(o, (orr_vec3d){0, -0.5, 0}, orr_quatd_from_axis_angle((orr_vec3d){1, 0, 0}, -ORR_PI / 2),
                (orr_vec3d){6, 6, 1}));
    fix_add(f, 14, f->cube, f->red,
            trs(o, (orr_vec3d){0.25, 0.875, -1.0}, orr_quatd_from_axis_angle((orr_vec3d){1, 1, 0}, 0.7),
                (orr_vec3d){0.6, 0.6, 0.6}));
    fix_add(f, 15, f->quad, f->glass, trs(o, (orr_vec3d){0.25, 0.25, 1.25}, id, (orr_vec3d){1.6, 1.0, 1}));
    fix_add(f, 16, f->quad, f->cutout, trs(o, (orr_vec3d){-0.5, 1.25, 0.75}, id, (orr_vec3d){0.8, 0.8, 1}));
    /* hidden: must not appear */
    orr_render_instance *hidden = fix_add(f, 17, f->cube, f->green, trs(o, (orr_vec3d){0, 0, 2.25}, id, one));
    hidden->visible = false;

    f->light.type = ORR_LIGHT_DIRECTIONAL;
    f->light.color[0] = f->light.color[1] = f->light.color[2] = 1.0f;
    f->light.intensity = 3.0f;
    /* shining along its -Z: from up-right-front towards the scene */
    orr_mat4d light = trs(o, (orr_vec3d){0, 0, 0},
                          orr_quatd_look_rotation((orr_vec3d){-0.5, -1.0, -0.3}, (orr_vec3d){0, 1, 0}), one);
    orr_affine3d_from_mat4d(&light, &f->light.world);
    f->snapshot.lights = &f->light;
    f->snapshot.light_count = 1;
}

void fix_fini(fixture *f) { orr_assets_destroy(f->assets); }

/* The renderers the tests have alive, each with a serial: a renderer made at the address of a destroyed
 * one is another renderer (the mistake the library bindings exist to prevent). */
static struct {
    orr_renderer *r;
    uint64_t serial;
    const fixture *current; /* the fixture whose library it has bound (one at a time) */
    fix_log *log;           /* where its logger counts (the logger's user is &log: see fix_teardown) */
} live[16];
static uint64_t next_serial;

static int live_index(const orr_renderer *r)
{
    for (int i = 0; i < 16; i++)
        if (live[i].r == r) return i;
    fail_msg("renderer %p was not made by fix_renderer", (const void *)r);
    return 0;
}

orr_library_id fix_library(orr_renderer *r, fixture *f)
{
    int i = live_index(r);
    if (f->bound != r || f->bound_serial != live[i].serial || live[i].current != f) {
        assert_int_equal(orr_renderer_bind_library(r, f->assets, &f->library), ORR_OK);
        f->bound = r;
        f->bound_serial = live[i].serial;
        live[i].current = f;
    }
    return f->library;
}

void fix_delta(fixture *f, const uint32_t *changed, uint32_t changed_count, const uint32_t *removed,
               uint32_t removed_count, bool relayout)
{
    assert_true(changed_count <= FIX_MAX_INSTANCES && removed_count <= FIX_MAX_INSTANCES);
    orr_snapshot *s = &f->snapshot;
    s->delta_base = s->frame++;
    if (relayout) s->layout_version++;
    if (changed_count) memcpy(f->changed, changed, changed_count * sizeof *changed); /* NULL with 0 is allowed */
    if (removed_count) memcpy(f->removed, removed, removed_count * sizeof *removed);
    s->changed = f->changed;
    s->changed_count = changed_count;
    s->removed = f->removed;
    s->removed_count = removed_count;
}

orr_render_desc fix_desc(orr_renderer *r, fixture *f, orr_target_id target)
{
    memset(f->index_of, 0xff, sizeof f->index_of);
    for (uint32_t i = 0; i < f->snapshot.instance_count; i++) {
        assert_true(f->instances[i].id < FIX_MAX_IDS);
        f->index_of[f->instances[i].id] = i;
    }
    f->snapshot.index_of = f->index_of;
    f->snapshot.index_capacity = FIX_MAX_IDS;
    fix_library(r, f);
    return (orr_render_desc){.target = target, .snapshot = &f->snapshot};
}

orr_mat4d fix_look(orr_vec3d eye, orr_vec3d target)
{
    orr_mat4d m;
    orr_mat4d_look_at_pose(eye, target, (orr_vec3d){0, 1, 0}, &m);
    return m;
}

/* user: a fix_log * to count into (a renderer's slot's, or shared_sink) */
static void log_line(void *user, orr_log_level level, const char *message)
{
    fix_log *log = *(fix_log **)user;
    size_t prefix = strlen(ORR_GPU_VALIDATION_PREFIX);
    if (strncmp(message, ORR_GPU_VALIDATION_PREFIX, prefix) == 0) log->validation++;
    else if (level >= ORR_LOG_ERROR) log->errors++;
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "[gpu test] %s\n", message);
}

/* The process's Vulkan instances: every test renderer is made from one of them, so that the driver is
 * loaded once per process (a driver that takes static TLS at each load runs out after a dozen or so:
 * issue 38). [0] plain, [1] with a window system's instance extensions (the window tests'); made at
 * the first renderer that needs it, destroyed at exit. */
static struct {
    orr_vulkan_instance *vk;
    char extensions[8][128]; /* copied: a window's array lives with the window */
    uint32_t extension_count;
} shared[2];
static fix_log shared_log; /* messages no renderer heard (the instances' creation and destruction) */
static fix_log *shared_sink = &shared_log;

static void destroy_shared(void)
{
    fix_teardown(NULL); /* a renderer left alive goes before the instance it was made from */
    for (int k = 0; k < 2; k++) orr_vulkan_instance_destroy(shared[k].vk);
    if (shared_log.validation) {
        fprintf(stderr, "[gpu test] %u validation messages outside the renderers\n", shared_log.validation);
        _exit(1); /* the tests have run: only the exit status can still say it */
    }
}

/* What the renderers a failed test left say as fix_teardown destroys them (the test's own fix_log is
 * gone with its stack). */
static fix_log orphan_log;

int fix_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 16; i++) {
        if (!live[i].r) continue;
        fprintf(stderr, "[gpu test] a renderer the test left alive (it failed) destroyed in its teardown\n");
        live[i].log = &orphan_log;
        orr_renderer_destroy(live[i].r);
        live[i].r = NULL;
        live[i].log = NULL;
    }
    return 0;
}

void fix_with_teardown(struct CMUnitTest *tests, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!tests[i].teardown_func) tests[i].teardown_func = fix_teardown;
}

orr_vulkan_instance *fix_vulkan_instance(const char *const *extensions, uint32_t extension_count)
{
    int k = extension_count ? 1 : 0;
    if (shared[k].vk) {
        if (shared[k].extension_count != extension_count) fail_msg("the presenting instance was made with other extensions");
        for (uint32_t i = 0; i < extension_count; i++)
            if (strcmp(shared[k].extensions[i], extensions[i]) != 0)
                fail_msg("the presenting instance was made with other extensions (%s)", extensions[i]);
        return shared[k].vk;
    }
    orr_vulkan_instance_desc desc = {.validation = true,
                                     .validate_synchronization = true,
                                     .logger = {.log = log_line, .user = &shared_sink},
                                     .instance_extensions = extensions,
                                     .instance_extension_count = extension_count};
    if (extension_count > 8) fail_msg("more than 8 instance extensions");
    for (uint32_t i = 0; i < extension_count; i++) {
        if (strlen(extensions[i]) >= sizeof shared[k].extensions[i]) fail_msg("extension name too long: %s", extensions[i]);
        strcpy(shared[k].extensions[i], extensions[i]);
    }
    orr_error err = {0};
    orr_result rc = orr_vulkan_instance_create(&desc, &shared[k].vk, &err);
    if (rc != ORR_OK) fail_msg("no Vulkan instance (%s): %s", orr_result_name(rc), err.message);
    if (!shared[1 - k].vk) atexit(destroy_shared); /* once: at the first of the two */
    shared[k].extension_count = extension_count;
    return shared[k].vk;
}

/* A renderer made from `desc` on the process's instance, or on one of its own (the default path:
 * desc.vulkan_instance NULL), with validation (synchronization included) on, logging into `log`. */
static orr_renderer *make_renderer_on(fix_log *log, orr_renderer_desc desc, bool own_instance)
{
    memset(log, 0, sizeof *log);
    if (own_instance) {
        desc.validation = desc.validate_synchronization = true;
    } else {
        desc.vulkan_instance = fix_vulkan_instance(desc.instance_extensions, desc.instance_extension_count);
        desc.instance_extensions = NULL;
        desc.instance_extension_count = 0;
    }
    int slot = -1;
    for (int i = 0; i < 16 && slot < 0; i++)
        if (!live[i].r && !live[i].log) slot = i;
    if (slot < 0) fail_msg("more than 16 test renderers alive");
    live[slot].log = log;
    desc.logger = (orr_logger){.log = log_line, .user = &live[slot].log};
    const char *prefer = getenv("ORRERY_DEVICE");
    if (prefer && *prefer) desc.device_name = prefer;
    orr_renderer *r = NULL;
    orr_error err = {0};
    orr_result rc = orr_renderer_create(&desc, &r, &err);
    if (rc != ORR_OK) {
        live[slot].log = NULL;
        fail_msg("no renderer (%s): %s", orr_result_name(rc), err.message);
    }
    live[slot].r = r;
    live[slot].serial = ++next_serial;
    live[slot].current = NULL;
    return r;
}

static orr_renderer *make_renderer(fix_log *log, orr_renderer_desc desc) { return make_renderer_on(log, desc, false); }

orr_renderer *fix_renderer_own_instance(fix_log *log) { return make_renderer_on(log, (orr_renderer_desc){0}, true); }

/* A presenting renderer makes an instance of its own (the default path), which goes with it. One
 * instance kept for the process across windows failed about every second run of test_window_errors
 * under Xvfb (an X BadRequest after the window system was closed and opened again between tests):
 * lavapipe's X11 presentation keeps per-connection state in the instance, and a window system opened
 * anew can bring a connection at a freed one's address. */
orr_renderer *fix_renderer_presenting(fix_log *log, const orr_allocator *allocator, const char *const *extensions,
                                      uint32_t extension_count)
{
    return make_renderer_on(log,
                            (orr_renderer_desc){.allocator = allocator ? *allocator : (orr_allocator){0},
                                                .instance_extensions = extensions,
                                                .instance_extension_count = extension_count},
                            true);
}

orr_renderer *fix_renderer_with(fix_log *log, const orr_allocator *allocator)
{
    return make_renderer(log, (orr_renderer_desc){.allocator = allocator ? *allocator : (orr_allocator){0}});
}

orr_renderer *fix_renderer(fix_log *log) { return make_renderer(log, (orr_renderer_desc){0}); }
orr_renderer *fix_renderer_capture(fix_log *log) { return make_renderer(log, (orr_renderer_desc){.vertex_capture = true}); }
orr_renderer *fix_renderer_interpolating(fix_log *log, bool capture)
{
    return make_renderer(log, (orr_renderer_desc){.interpolate = true, .vertex_capture = capture});
}
orr_renderer *fix_renderer_sets(fix_log *log) { return make_renderer(log, (orr_renderer_desc){.texture_sets = true}); }
orr_renderer *fix_renderer_meshlet_fallback(fix_log *log)
{
    return make_renderer(log, (orr_renderer_desc){.meshlet_fallback = true});
}
orr_renderer *fix_renderer_baseline(fix_log *log)
{
    return make_renderer(log, (orr_renderer_desc){.baseline_gpu = true});
}
orr_renderer *fix_renderer_threads(fix_log *log, uint32_t threads, orr_workers *workers)
{
    return make_renderer(log, (orr_renderer_desc){.threads = threads, .workers = workers});
}

void fix_renderer_destroy(orr_renderer *r)
{
    int slot = live_index(r);
    orr_renderer_destroy(r);
    live[slot].r = NULL;
    live[slot].log = NULL;
}

void fix_renderer_done(orr_renderer *r, fix_log *log)
{
    /* the logger and the renderer's own count see the same messages while it lives */
    assert_int_equal(log->validation, orr_renderer_validation_messages(r));
    int slot = live_index(r);
    orr_renderer_destroy(r); /* its teardown messages still counted into `log` */
    live[slot].r = NULL;
    live[slot].log = NULL;
    if (log->validation) fail_msg("%u validation messages (teardown included; see [gpu test] lines)", log->validation);
    if (shared_log.validation)
        fail_msg("%u validation messages outside the renderers (see [gpu test] lines)", shared_log.validation);
}

uint8_t *fix_render(orr_renderer *r, fixture *f, uint32_t w, uint32_t h, const fix_view *views, uint32_t view_count,
                    orr_render_stats *stats)
{
    return fix_render_samples(r, f, w, h, views, view_count, 1, stats);
}

uint8_t *fix_render_samples(orr_renderer *r, fixture *f, uint32_t w, uint32_t h, const fix_view *views,
                            uint32_t view_count, uint32_t samples, orr_render_stats *stats)
{
    orr_target_desc td = {.width = w, .height = h, .readback = true, .samples = samples};
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    orr_target_id target;
    assert_int_equal(orr_renderer_create_target(r, &td, &target), ORR_OK);
    for (uint32_t i = 0; i < view_count; i++) {
        orr_view_desc vd = {
            .target = target,
            .slot = i,
            .viewport = views[i].viewport,
            .pose = views[i].pose,
            .layer_mask = ORR_LAYERS_ALL,
            .order = views[i].order,
            .strategy = views[i].strategy,
            .cull = views[i].cull,
            .lod_pixels = views[i].lod_pixels,
        };
        orr_view_id view;
        assert_int_equal(orr_renderer_create_view(r, &vd, &view), ORR_OK);
    }
    orr_render_desc desc = fix_desc(r, f, target);
    orr_result rc = orr_renderer_render(r, &desc, stats);
    if (rc != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
    size_t size = (size_t)w * h * 4;
    uint8_t *px = malloc(size);
    assert_non_null(px);
    rc = orr_renderer_read_target(r, target, px, size);
    if (rc != ORR_OK) fail_msg("read_target: %s", orr_renderer_last_error(r)->message);
    if (stats) assert_int_equal(orr_renderer_finish(r, stats), ORR_OK); /* what the GPU counted too */
    assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK); /* its views go with it */
    return px;
}

void fix_two_views(orr_vec3d o, uint32_t w, uint32_t h, orr_strategy strategy, orr_draw_order order, fix_view out[2])
{
    uint32_t half = w / 2;
    out[0] = (fix_view){
        .viewport = {0, 0, half, h},
        .pose = fix_look(orr_vec3d_add(o, (orr_vec3d){2.5, 2.0, 4.5}), orr_vec3d_add(o, (orr_vec3d){0, 0.25, 0})),
        .strategy = strategy,
        .order = order,
    };
    out[1] = (fix_view){
        .viewport = {half, 0, w - half, h},
        .pose = fix_look(orr_vec3d_add(o, (orr_vec3d){-3.5, 4.0, -3.0}), orr_vec3d_add(o, (orr_vec3d){0, 0, 0})),
        .strategy = strategy,
        .order = order,
    };
}

uint32_t fix_count_drawn(const uint8_t *rgba, uint32_t w, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1)
{
    uint32_t n = 0;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++) {
            const uint8_t *p = rgba + ((size_t)y * w + x) * 4;
            if (p[0] || p[1] || p[2]) n++;
        }
    return n;
}

orr_target_id fix_target(orr_renderer *r, uint32_t w, uint32_t h, const char *name, const float *clear)
{
    orr_target_desc td = {.width = w, .height = h, .readback = true, .name = name, .samples = 1};
    memcpy(td.clear_color, clear ? clear : FIX_CLEAR, sizeof td.clear_color);
    orr_target_id id;
    if (orr_renderer_create_target(r, &td, &id) != ORR_OK) fail_msg("target: %s", orr_renderer_last_error(r)->message);
    return id;
}

orr_vec3d fix_eye(orr_vec3d o) { return orr_vec3d_add(o, (orr_vec3d){2.5, 2.0, 4.5}); }

orr_mat4d fix_camera(orr_vec3d o) { return fix_look(fix_eye(o), orr_vec3d_add(o, (orr_vec3d){0, 0.25, 0})); }

orr_view_id fix_add_view(orr_renderer *r, const orr_view_desc *d)
{
    orr_view_id id;
    if (orr_renderer_create_view(r, d, &id) != ORR_OK) fail_msg("view: %s", orr_renderer_last_error(r)->message);
    return id;
}

void fix_draw(orr_renderer *r, fixture *f, orr_target_id target)
{
    orr_render_desc d = fix_desc(r, f, target);
    if (orr_renderer_render(r, &d, NULL) != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(r)->message);
}

uint8_t *fix_frame(orr_renderer *r, fixture *f, orr_target_id target, uint32_t w, uint32_t h)
{
    fix_draw(r, f, target);
    size_t size = (size_t)w * h * 4;
    uint8_t *px = malloc(size);
    assert_non_null(px);
    if (orr_renderer_read_target(r, target, px, size) != ORR_OK)
        fail_msg("read_target: %s", orr_renderer_last_error(r)->message);
    return px;
}

void fix_set_techniques(orr_renderer *r, orr_target_id target, const orr_technique_desc *d, uint32_t n,
                        orr_technique_id *ids)
{
    if (orr_renderer_set_techniques(r, target, d, n, ids) != ORR_OK)
        fail_msg("set_techniques: %s", orr_renderer_last_error(r)->message);
}

void fix_assert_varied(const uint8_t *px, uint32_t n)
{
    uint32_t distinct = 0;
    for (uint32_t i = 1; i < n; i++) distinct += memcmp(px + 4 * i, px, 3) != 0;
    if (distinct < n / 4)
        fail_msg("the base frame is nearly flat (%u pixels differ): a test against it would prove nothing", distinct);
}

void fix_assert_line(const char *text, const char *head, const char *line)
{
    size_t hl = strlen(head);
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= hl && !memcmp(p, head, hl)) {
            if (len != strlen(line) || memcmp(p, line, len))
                fail_msg("the line\n%.*s\nis not\n%s\nin:\n%s", (int)len, p, line, text);
            return;
        }
        p = end ? end + 1 : NULL;
    }
    fail_msg("no line begins with '%s' in:\n%s", head, text);
}
