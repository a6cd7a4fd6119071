/* The render thread on the real device: a session that presents on its render thread and one that
 * presents on the caller's, driven by the same random changes (moves, hide and show, material swaps,
 * creates, destroys, reparents; meshes added to and removed from the library; views replaced and the
 * target resized between frames; the whole world replaced while frames are in flight; a frame that the
 * host's renderer fails), each rendering with a renderer of its own in its present callback and reading
 * every frame back: every frame's image bytes are the same, no frame is lost, and the validation layer
 * (synchronization validation on) says nothing. CTest runs it as e2e_render_thread, also under
 * ThreadSanitizer in CI. Frames: ORRERY_RENDER_THREAD_FRAMES (default 1000) of a small target. */
#include "e2e_tests.h"

#include <orrery/frame.h>
#include <orrery/gpu.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t messages; /* validation messages, from either thread */

static void count_messages(void *user, orr_log_level level, const char *message)
{
    (void)user;
    if (!strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX)))
        __atomic_add_fetch(&messages, 1, __ATOMIC_SEQ_CST);
    if (level >= ORR_LOG_WARNING) fprintf(stderr, "[render thread] %s\n", message);
}

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t roll(rng *r, uint32_t n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s % n);
}

/* One host: a session, its renderer and what its present callback wrote. */
typedef struct host {
    orr_session *session;
    orr_renderer *renderer;
    orr_target_id target, stale;
    orr_view_id views[2];
    uint32_t width, height;
    pthread_t caller;
    /* written by the present callback (the render thread's, for the threaded host) */
    uint64_t *hashes;   /* per frame id: FNV-1a of the image bytes, 0 = none */
    uint32_t *covered;  /* per frame id: pixels not the clear colour */
    uint32_t frames;
    uint8_t *pixels;
    uint64_t presents, failed, off_thread;
    char error[640];
    /* the world, the host's side */
    rng r;
    orr_material_id mats[3];
    orr_mesh_id meshes[6];
    uint32_t mesh_count;
    orr_entity live[300];
    uint32_t live_count;
} host;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h | 1; /* never 0 */
}

static void paint(void *user, const orr_snapshot *s, const orr_assets *assets)
{
    (void)assets; /* the renderer draws the library it has bound: the session's */
    host *h = user;
    h->presents++;
    if (!pthread_equal(pthread_self(), h->caller)) h->off_thread++;
    if (s->frame >= h->frames) return;
    /* now and then the host's renderer fails a frame (a stale target): nothing drawn, the next frame
     * is taken whole */
    bool fail = s->frame % 97 == 41;
    orr_render_desc d = {.target = fail ? h->stale : h->target, .snapshot = s, .readback = true};
    if (orr_renderer_render(h->renderer, &d, NULL) != ORR_OK) {
        if (!fail && !h->error[0])
            snprintf(h->error, sizeof h->error, "frame %llu: %s", (unsigned long long)s->frame,
                     orr_renderer_last_error(h->renderer)->message);
        h->failed++;
        return;
    }
    size_t size = (size_t)h->width * h->height * 4;
    if (orr_renderer_read_target(h->renderer, h->target, h->pixels, size) != ORR_OK) {
        if (!h->error[0]) snprintf(h->error, sizeof h->error, "read back: %s", orr_renderer_last_error(h->renderer)->message);
        return;
    }
    h->hashes[s->frame] = fnv(h->pixels, size);
    uint32_t n = 0;
    for (size_t i = 0; i < (size_t)h->width * h->height; i++) n += memcmp(h->pixels + i * 4, h->pixels, 3) != 0;
    h->covered[s->frame] = n;
}

static orr_mesh_id add_box(orr_assets *a, float size, orr_material_id material)
{
    float pos[24], s = size * 0.5f;
    for (int c = 0; c < 8; c++) {
        pos[c * 3 + 0] = c & 1 ? s : -s;
        pos[c * 3 + 1] = c & 2 ? s : -s;
        pos[c * 3 + 2] = c & 4 ? s : -s;
    }
    static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    orr_primitive_desc p = {.vertex_count = 8, .positions = pos, .index_count = 36, .indices = idx, .material = material};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &id), ORR_OK);
    return id;
}

static orr_view_id add_view(host *h, uint32_t slot, orr_strategy strategy)
{
    orr_mat4d pose;
    orr_mat4d_from_trs((orr_vec3d){slot * 2.0, 6, 18},
                       orr_quatd_look_rotation((orr_vec3d){-(double)slot * 2.0, -6, -18}, (orr_vec3d){0, 1, 0}),
                       ORR_VEC3_ONE, &pose);
    orr_view_desc vd = {.target = h->target, .slot = slot, .viewport = {slot ? h->width / 2 : 0, 0, h->width / 2, h->height},
                        .pose = pose, .strategy = strategy, .order = slot ? ORR_ORDER_HIERARCHY : ORR_ORDER_MESH};
    orr_view_id id;
    assert_int_equal(orr_renderer_create_view(h->renderer, &vd, &id), ORR_OK);
    return id;
}

static void host_start(host *h, bool threaded, uint32_t frames)
{
    memset(h, 0, sizeof *h);
    h->caller = pthread_self();
    h->frames = frames + 1;
    h->hashes = calloc(h->frames, sizeof *h->hashes);
    h->covered = calloc(h->frames, sizeof *h->covered);
    h->width = 48, h->height = 32;
    h->pixels = malloc(64 * 48 * 4); /* the larger size the target is given */
    assert_true(h->hashes && h->covered && h->pixels);
    h->r.s = 0x5eedba11ull;
    assert_int_equal(orr_session_create(&(orr_session_desc){.present = paint, .present_user = h, .render_thread = threaded},
                                        &h->session, NULL),
                     ORR_OK);
    orr_error err = {0};
    orr_renderer_desc rd = {.validation = true, .validate_synchronization = true, .logger = {count_messages, NULL},
                            .threads = 1};
    if (orr_renderer_create(&rd, &h->renderer, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    orr_assets *a = orr_session_assets(h->session);
    assert_int_equal(orr_renderer_bind_library(h->renderer, a, NULL), ORR_OK);
    orr_target_desc td = {.width = h->width, .height = h->height, .samples = 1, .clear_color = {0.1f, 0.1f, 0.12f, 1}};
    assert_int_equal(orr_renderer_create_target(h->renderer, &td, &h->target), ORR_OK);
    /* a target made and destroyed: its id is stale, the host's way to fail a frame */
    assert_int_equal(orr_renderer_create_target(h->renderer, &td, &h->stale), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(h->renderer, h->stale), ORR_OK);
    h->views[0] = add_view(h, 0, ORR_STRATEGY_INDIRECT);
    h->views[1] = add_view(h, 1, ORR_STRATEGY_BATCHED);
    for (int k = 0; k < 3; k++) {
        orr_material m = orr_material_default();
        m.base_color[k] = 0.8f;
        if (k == 2) m.alpha_mode = ORR_ALPHA_BLEND, m.base_color[3] = 0.5f;
        assert_int_equal(orr_assets_add_material(a, &m, &h->mats[k]), ORR_OK);
    }
    h->meshes[0] = add_box(a, 1.0f, h->mats[0]);
    h->meshes[1] = add_box(a, 0.6f, h->mats[1]);
    h->mesh_count = 2;
}

static void refresh(host *h)
{
    orr_world *w = orr_session_world(h->session);
    h->live_count = 0;
    orr_subtree_iter it;
    orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
    for (orr_entity x; orr_subtree_next(&it, &x);)
        if (h->live_count < 300) h->live[h->live_count++] = x;
    orr_subtree_end(&it);
}

static void create_box(host *h, orr_entity parent)
{
    orr_world *w = orr_session_world(h->session);
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){roll(&h->r, 17) - 8.0, roll(&h->r, 3), roll(&h->r, 17) - 8.0};
    orr_entity n;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.parent = parent, .local = &t}, &n), ORR_OK);
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = h->meshes[roll(&h->r, h->mesh_count)];
    assert_int_equal(orr_component_add(w, n, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
}

/* Frame f's changes; the same on both hosts (their own random state, seeded alike). */
static void change(host *h, uint32_t f)
{
    orr_world *w = orr_session_world(h->session);
    refresh(h);
    for (uint32_t k = 0, ops = 1 + roll(&h->r, 6); k < ops; k++) {
        uint32_t op = roll(&h->r, 100);
        orr_entity e = h->live_count ? h->live[roll(&h->r, h->live_count)] : ORR_ENTITY_NONE;
        if (!orr_entity_is_alive(w, e)) e = ORR_ENTITY_NONE;
        if (op < 55 && e.generation) {
            orr_entity_set_translation(w, e, (orr_vec3d){roll(&h->r, 17) - 8.0, roll(&h->r, 5), roll(&h->r, 17) - 8.0});
        } else if (op < 62 && e.generation) {
            orr_mesh_renderer *mr = orr_mesh_renderer_edit(w, e);
            if (mr) mr->visible = !mr->visible;
        } else if (op < 70 && e.generation) {
            if (orr_component_has(w, e, ORR_COMPONENT_MESH_RENDERER))
                assert_int_equal(orr_mesh_renderer_set_material(w, e, 0, h->mats[roll(&h->r, 3)]), ORR_OK);
        } else if (op < 82 && h->live_count < 200) {
            create_box(h, roll(&h->r, 3) == 0 ? e : ORR_ENTITY_NONE);
        } else if (op < 92 && e.generation && h->live_count > 40) {
            orr_entity_destroy(w, e);
        } else if (op < 96 && e.generation) {
            orr_entity p = h->live[roll(&h->r, h->live_count)];
            if (orr_entity_is_alive(w, p)) orr_entity_set_parent(w, e, roll(&h->r, 2) ? p : ORR_ENTITY_NONE, ORR_KEEP_WORLD);
        }
        refresh(h);
    }
    /* the library: a mesh added now and then, an older one removed (orr_session_assets waits for the
     * render thread) */
    if (f % 40 == 20) {
        orr_assets *a = orr_session_assets(h->session);
        if (h->mesh_count == 6) {
            assert_int_equal(orr_assets_remove_mesh(a, h->meshes[2]), ORR_OK);
            memmove(&h->meshes[2], &h->meshes[3], 3 * sizeof h->meshes[0]);
            h->mesh_count--;
        }
        h->meshes[h->mesh_count++] = add_box(a, 0.3f + 0.1f * roll(&h->r, 8), h->mats[roll(&h->r, 3)]);
    }
    /* the renderer outside the callback: after orr_session_flush */
    if (f % 100 == 50) {
        orr_session_flush(h->session);
        uint32_t k = roll(&h->r, 2);
        assert_int_equal(orr_renderer_destroy_view(h->renderer, h->views[k]), ORR_OK);
        h->views[k] = add_view(h, k, roll(&h->r, 2) ? ORR_STRATEGY_INDIRECT : ORR_STRATEGY_DIRECT);
    }
    if (f % 300 == 150) {
        orr_session_flush(h->session);
        h->width = h->width == 48 ? 64 : 48;
        h->height = h->height == 32 ? 48 : 32;
        assert_int_equal(orr_renderer_resize_target(h->renderer, h->target, h->width, h->height), ORR_OK);
        for (uint32_t k = 0; k < 2; k++) {
            assert_int_equal(orr_renderer_destroy_view(h->renderer, h->views[k]), ORR_OK);
            h->views[k] = add_view(h, k, k ? ORR_STRATEGY_BATCHED : ORR_STRATEGY_INDIRECT);
        }
    }
    /* the world replaced while the frames before it are in flight */
    if (f % 250 == 200) {
        for (uint32_t i = 0; i < h->live_count; i++)
            if (orr_entity_is_alive(w, h->live[i]) && !orr_entity_parent(w, h->live[i]).generation)
                orr_entity_destroy(w, h->live[i]);
        for (int i = 0; i < 60; i++) create_box(h, ORR_ENTITY_NONE);
    }
}

static void host_stop(host *h)
{
    /* the renderer goes before the library it has bound (the session's); the session destroyed with
     * frames in flight: tests/frame */
    orr_session_flush(h->session);
    assert_int_equal(orr_renderer_finish(h->renderer, NULL), ORR_OK);
    orr_renderer_destroy(h->renderer);
    orr_session_destroy(h->session);
    free(h->hashes);
    free(h->covered);
    free(h->pixels);
}

void test_render_thread_same_images(void **state)
{
    (void)state;
    const char *env = getenv("ORRERY_RENDER_THREAD_FRAMES");
    uint32_t frames = env ? (uint32_t)atoi(env) : 1000;
    messages = 0;
    host *plain = malloc(sizeof *plain), *threaded = malloc(sizeof *threaded);
    assert_true(plain && threaded);
    host_start(plain, false, frames);
    host_start(threaded, true, frames);
    for (uint32_t i = 0; i < 80; i++) create_box(plain, ORR_ENTITY_NONE), create_box(threaded, ORR_ENTITY_NONE);
    for (uint32_t f = 1; f <= frames; f++) {
        change(plain, f);
        change(threaded, f);
        assert_int_equal(orr_session_run_frame(plain->session, 1.0 / 60.0), ORR_OK);
        assert_int_equal(orr_session_run_frame(threaded->session, 1.0 / 60.0), ORR_OK);
    }
    orr_session_flush(threaded->session);
    if (plain->error[0]) fail_msg("unthreaded: %s", plain->error);
    if (threaded->error[0]) fail_msg("threaded: %s", threaded->error);
    uint32_t same = 0, drawn = 0, distinct = 0, failed = 0;
    for (uint32_t f = 1; f <= frames; f++) {
        if (f % 97 == 41) { /* the failed frames: nothing read back on either */
            failed += !plain->hashes[f] && !threaded->hashes[f];
            continue;
        }
        if (!plain->hashes[f]) fail_msg("frame %u: the unthreaded host drew nothing", f);
        if (plain->hashes[f] != threaded->hashes[f])
            fail_msg("frame %u: the threaded image differs from the unthreaded one (%016llx, %016llx)", f,
                     (unsigned long long)threaded->hashes[f], (unsigned long long)plain->hashes[f]);
        same++;
        drawn += plain->covered[f] > 0;
        distinct += f > 1 && plain->hashes[f] != plain->hashes[f - 1];
    }
    print_message("render thread: %u frames, %u the same bytes threaded and unthreaded (%u with boxes drawn, %u "
                  "differing from the frame before), %u failed on both, %llu presented on the render thread\n",
                  frames, same, drawn, distinct, failed, (unsigned long long)threaded->off_thread);
    assert_int_equal(threaded->presents, frames);
    assert_int_equal(threaded->off_thread, frames);
    assert_int_equal(plain->off_thread, 0);
    assert_int_equal(failed, frames / 97 + (frames % 97 >= 41));
    assert_true(drawn >= same * 9 / 10); /* not blank images */
    assert_true(distinct >= same / 2);   /* and they change */
    host_stop(plain);
    host_stop(threaded);
    free(plain);
    free(threaded);
    assert_int_equal(messages, 0);
}

/* ---- interpolation between ticks, through a session ------------------------------------------ */

typedef struct glide {
    orr_entity body;
    orr_entity camera; /* following the body 10 m behind it (follow mode), else none */
    int jump;          /* 1: the body jumps 9 m ahead at tick 10, its MeshRenderer teleports there; 2: the
                          same jump unmarked */
    orr_renderer *renderer;
    orr_target_id target;
    uint32_t width, height;
    uint8_t *pixels;
    double centroid[256]; /* per frame id: the body's x in pixels (coverage-weighted), from the red */
    double still[256];    /* follow mode: a panel that stands still, its x from the green */
    float lag[256];
    char error[640];
} glide;

static void glide_system(void *user, orr_world *w, orr_assets *a, uint64_t tick, double step)
{
    (void)a;
    glide *g = user;
    double x = -5.0 + 12.0 * (double)tick * step; /* 12 m/s */
    if (g->jump && tick >= 10) x += 9.0;
    if (g->jump == 1 && (tick == 10 || tick == 11)) orr_mesh_renderer_edit(w, g->body)->teleports = tick == 10;
    orr_entity_set_translation(w, g->body, (orr_vec3d){x, 0, 0});
    if (g->camera.generation) orr_entity_set_translation(w, g->camera, (orr_vec3d){x, 0, 10});
}

static void glide_present(void *user, const orr_snapshot *s, const orr_assets *assets)
{
    (void)assets;
    glide *g = user;
    if (s->frame >= 256 || g->error[0]) return;
    g->lag[s->frame] = s->lag;
    if (orr_renderer_render(g->renderer, &(orr_render_desc){.target = g->target, .snapshot = s, .readback = true}, NULL) !=
            ORR_OK ||
        orr_renderer_read_target(g->renderer, g->target, g->pixels, (size_t)g->width * g->height * 4) != ORR_OK) {
        snprintf(g->error, sizeof g->error, "frame %llu: %s", (unsigned long long)s->frame,
                 orr_renderer_last_error(g->renderer)->message);
        return;
    }
    /* the body is lit, the background clear: weight each pixel by how far its red is from the clear's
     * (multisampled edges are partial, so the centroid moves by fractions of a pixel) */
    for (int c = 0; c < 2; c++) {
        double sum = 0, wx = 0;
        for (uint32_t y = 0; y < g->height; y++)
            for (uint32_t x = 0; x < g->width; x++) {
                double d = fabs((double)g->pixels[(y * g->width + x) * 4 + c] - g->pixels[c]);
                sum += d;
                wx += d * (x + 0.5);
            }
        (c ? g->still : g->centroid)[s->frame] = sum > 0 ? wx / sum : -1;
    }
}

/* The largest distance, in pixels, of the frames' centroids (from `first` on) from their least-squares
 * line in presentation time. */
static double off_line(const double *centroid, uint32_t first, uint32_t last, double frame_time)
{
    double n = 0, st = 0, sc = 0, stt = 0, stc = 0;
    for (uint32_t f = first; f <= last; f++) {
        double t = f * frame_time, c = centroid[f];
        n++, st += t, sc += c, stt += t * t, stc += t * c;
    }
    double slope = (n * stc - st * sc) / (n * stt - st * st), icept = (sc - slope * st) / n, worst = 0;
    for (uint32_t f = first; f <= last; f++) worst = fmax(worst, fabs(centroid[f] - (icept + slope * f * frame_time)));
    return worst;
}

/* follow: a camera entity follows the body (the view looks through it), a green panel stands still
 * above the body's path, and the body (red) is plain red; `*still_off`: the panel's centroid off its line
 * in time, `*body_spread`: how far the body's centroid wanders on screen (max - min). Returns the body's
 * centroid off its line in time. */
static double glide_run_follow(bool interpolate, bool threaded, bool follow, int jump, double *centroids,
                               double *still_off, double *body_spread)
{
    glide *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->jump = jump;
    g->width = 160, g->height = 48;
    g->pixels = malloc((size_t)g->width * g->height * 4);
    orr_session *s;
    assert_int_equal(orr_session_create(&(orr_session_desc){.fixed_step = 1.0 / 30.0, .interpolate = interpolate,
                                                            .render_thread = threaded, .present = glide_present,
                                                            .present_user = g},
                                        &s, NULL),
                     ORR_OK);
    orr_error err = {0};
    orr_renderer_desc rd = {.validation = true, .validate_synchronization = true, .logger = {count_messages, NULL},
                            .interpolate = interpolate};
    if (orr_renderer_create(&rd, &g->renderer, &err) != ORR_OK) fail_msg("renderer: %s", err.message);
    orr_assets *a = orr_session_assets(s);
    assert_int_equal(orr_renderer_bind_library(g->renderer, a, NULL), ORR_OK);
    assert_int_equal(orr_renderer_create_target(g->renderer,
                                                &(orr_target_desc){.width = g->width, .height = g->height, .samples = 4},
                                                &g->target),
                     ORR_OK);
    orr_world *w = orr_session_world(s);
    if (follow) {
        orr_transform ct = orr_transform_identity();
        ct.translation = (orr_vec3d){-5, 0, 10};
        assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.local = &ct}, &g->camera), ORR_OK);
        orr_camera cam = orr_camera_default();
        cam.yfov = 0.9;
        assert_int_equal(orr_component_add(w, g->camera, ORR_COMPONENT_CAMERA, &cam, NULL), ORR_OK);
    }
    orr_view_desc vd = {.target = g->target, .yfov = 0.9, .camera = follow ? g->camera : ORR_ENTITY_NONE};
    orr_mat4d_from_trs((orr_vec3d){0, 0, 10}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &vd.pose); /* looking along -Z */
    orr_view_id v;
    assert_int_equal(orr_renderer_create_view(g->renderer, &vd, &v), ORR_OK);
    /* a flat panel facing the camera (a thin box: its sides never show), moving along X at constant depth */
    orr_material m = orr_material_default();
    m.base_color[0] = 0.9f, m.unlit = true;
    if (follow) m.base_color[1] = m.base_color[2] = 0; /* red only: the still panel is green only */
    orr_material_id mat;
    assert_int_equal(orr_assets_add_material(a, &m, &mat), ORR_OK);
    orr_mesh_id box = add_box(a, 1.0f, mat);
    orr_transform t = orr_transform_identity();
    if (follow) {
        orr_material green = orr_material_default();
        green.base_color[0] = green.base_color[2] = 0, green.base_color[1] = 0.9f, green.unlit = true;
        orr_material_id gm;
        assert_int_equal(orr_assets_add_material(a, &green, &gm), ORR_OK);
        orr_transform pt = orr_transform_identity();
        pt.translation = (orr_vec3d){0, 2.5, 0};
        pt.scale = (orr_vec3d){2, 2, 0.01};
        orr_entity panel;
        assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.local = &pt}, &panel), ORR_OK);
        orr_mesh_renderer pr = orr_mesh_renderer_default();
        pr.mesh = add_box(a, 1.0f, gm);
        assert_int_equal(orr_component_add(w, panel, ORR_COMPONENT_MESH_RENDERER, &pr, NULL), ORR_OK);
    }
    t.scale = (orr_vec3d){2, 2, 0.01};
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.local = &t}, &g->body), ORR_OK);
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = box;
    assert_int_equal(orr_component_add(w, g->body, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
    assert_int_equal(orr_session_add_system(s, &(orr_system_desc){glide_system, g, NULL, .tick_only = true}), ORR_OK);
    const uint32_t frames = 108; /* 0.75 s at 144 Hz */
    for (uint32_t f = 1; f <= frames; f++) assert_int_equal(orr_session_run_frame(s, 1.0 / 144.0), ORR_OK);
    orr_session_flush(s);
    if (g->error[0]) fail_msg("%s", g->error);
    for (uint32_t f = 1; f <= frames; f++) assert_true(g->centroid[f] > 0);
    if (interpolate) assert_true(g->lag[2] > 0 && g->lag[2] < 1);
    else assert_true(g->lag[2] == 0);
    /* from the second tick on (the first frames show the body before any earlier pose) */
    double worst = off_line(g->centroid, 10, frames, 1.0 / 144.0);
    if (centroids) memcpy(centroids, g->centroid, (frames + 1) * sizeof *centroids);
    if (still_off) *still_off = off_line(g->still, 10, frames, 1.0 / 144.0);
    if (body_spread) {
        double lo = g->centroid[10], hi = lo;
        for (uint32_t f = 10; f <= frames; f++) lo = fmin(lo, g->centroid[f]), hi = fmax(hi, g->centroid[f]);
        *body_spread = hi - lo;
    }
    assert_int_equal(orr_renderer_finish(g->renderer, NULL), ORR_OK);
    orr_renderer_destroy(g->renderer);
    orr_session_destroy(s);
    free(g->pixels);
    free(g);
    return worst;
}

static double glide_run(bool interpolate, bool threaded)
{
    return glide_run_follow(interpolate, threaded, false, 0, NULL, NULL, NULL);
}

void test_interpolation_linear_in_time(void **state)
{
    (void)state;
    messages = 0;
    double smooth = glide_run(true, true), smooth_here = glide_run(true, false), stepped = glide_run(false, true);
    print_message("interpolation: a body at 12 m/s, 30 Hz ticks, 144 Hz frames: its centroid off its line in time by "
                  "at most %.3f px (render thread), %.3f px (caller's thread); %.3f px without interpolation\n",
                  smooth, smooth_here, stepped);
    assert_true(smooth < 0.25);      /* linear in presentation time within a pixel fraction */
    assert_true(smooth_here < 0.25);
    assert_true(stepped > 0.5);      /* where without interpolation it steps */
    assert_int_equal(messages, 0);
}

/* A camera that follows a body: both blend between ticks by the same rule, so the body stands still on
 * screen frame by frame while the world behind it glides (where a camera drawn at its last tick's pose
 * would jump against a body drawn between ticks, a judder of a pixel each tick at this speed). */
void test_interpolation_camera_follows(void **state)
{
    (void)state;
    messages = 0;
    double still_off, spread, still_off_here, spread_here, still_stepped, spread_stepped;
    glide_run_follow(true, true, true, 0, NULL, &still_off, &spread);
    glide_run_follow(true, false, true, 0, NULL, &still_off_here, &spread_here);
    glide_run_follow(false, true, true, 0, NULL, &still_stepped, &spread_stepped);
    print_message("following camera, 12 m/s, 30 Hz ticks, 144 Hz frames: the body wanders %.4f px on screen "
                  "(%.4f on the caller's thread, %.4f without interpolation); a still panel is off its line in time "
                  "by %.3f px (%.3f; %.3f without interpolation)\n",
                  spread, spread_here, spread_stepped, still_off, still_off_here, still_stepped);
    assert_true(spread < 0.02 && spread_here < 0.02); /* no judder against what it follows */
    assert_true(still_off < 0.25 && still_off_here < 0.25); /* and the camera itself glides */
    assert_true(still_stepped > 0.5);
    assert_int_equal(messages, 0);
}

/* Teleport: the body glides to x = -1.4 (tick 9), then jumps to x = 8 at tick 10 with its MeshRenderer's
 * teleports set for that tick. No frame may show it between the two places (each frame's centroid is at
 * most half a pixel past either); the same jump unmarked is drawn on the way, at least one frame. */
void test_interpolation_teleport(void **state)
{
    (void)state;
    messages = 0;
    /* where the view (at 0, 0, 10 looking along -Z, yfov 0.9, 160 x 48) draws x on the body's plane */
    const double half_width = 10.0 * tan(0.45) * 160.0 / 48.0;
    const double from = 80.0 * (1.0 + -1.4 / half_width) + 0.5, to = 80.0 * (1.0 + 8.0 / half_width) - 0.5;
    uint32_t on_the_way[2][2] = {{0}}, before = 0, after = 0;
    for (int marked = 0; marked < 2; marked++)
        for (int threaded = 0; threaded < 2; threaded++) {
            double c[128];
            glide_run_follow(true, threaded, false, marked ? 1 : 2, c, NULL, NULL);
            for (uint32_t f = 10; f <= 108; f++) { /* (the first frames glide from the origin to x = -5) */
                if (c[f] > from && c[f] < to) on_the_way[marked][threaded]++;
                else if (marked && c[f] <= from) before++;
                else if (marked) after++;
            }
        }
    print_message("teleport: frames drawn between the old and the new place: %u and %u marked (render thread, "
                  "caller's), %u and %u unmarked; marked: %u frames before, %u after\n",
                  on_the_way[1][1], on_the_way[1][0], on_the_way[0][1], on_the_way[0][0], before, after);
    assert_int_equal(on_the_way[1][0] + on_the_way[1][1], 0);
    assert_true(on_the_way[0][0] > 0 && on_the_way[0][1] > 0); /* the test could fail */
    assert_true(before > 20 && after > 20);
    assert_int_equal(messages, 0);
}
