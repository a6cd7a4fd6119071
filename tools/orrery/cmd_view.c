/* view: the live loop of a session on screen. The world ticks, each presented frame is extracted
 * (incrementally) and drawn into a window through 1 to 4 views; the first view's camera is the
 * user's (orbit, pan, zoom, fly), the others keep the cameras `orrery render` would give them. */
#include "tool.h"

#ifndef ORRERY_HAVE_WINDOW

int orr_tool_view(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "orrery view: this orrery was built without a window system (install libglfw3-dev and "
                    "rebuild)\n");
    return 1;
}

#else

#include <math.h>
#include <orrery/window.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define VIEW_MAX 4u

static const char view_help[] =
    "usage: orrery view [FILE] [options]\n"
    "       orrery view REC [--size WxH] [--views N] [--strategy S] [--present MODE] [--frames N]\n"
    "                       [--screenshot PATH] [--offscreen] [--keys F:KEY,...] [--stats] [--validation]\n"
    "  FILE                 a glTF 2.0 file (.gltf or .glb); without it, the built-in orrery\n"
    "  REC                  a recording (orrery record; known by its first bytes): its frames played at\n"
    "                       the recorded 60 a second with no world and no glTF file, from frame 0, looping\n"
    "                       at the end; space pauses and resumes, N or Right steps one frame on, P or Left\n"
    "                       one back (pausing; a step back seeks from the key frame before it). With\n"
    "                       --frames N each loop shows the next frame, so the last is frame N-1 (modulo\n"
    "                       the recording's length): --screenshot writes the bytes `orrery replay REC\n"
    "                       --frame N-1 -o` writes with the same --size, --views and --strategy\n"
    "  --size WxH           window size, W and H each 1..16384 (default 1280x720)\n"
    "  --views N            1..4 views of the window (default 1; keys 1-4 change it)\n"
    "  --strategy S         direct | batched | indirect | shell | meshlet (default indirect; key S cycles;\n"
    "                       meshlet implies --meshlets)\n"
    "  --meshlets           build meshlets for the meshes (the meshlet strategy draws the others indexed)\n"
    "  --lods [N]           N levels of detail for every mesh (1..7, default 4); --lod-pixels PX: each\n"
    "                       instance shows the coarsest within PX pixels on screen (default 1 with --lods)\n"
    "  --present MODE       fifo | mailbox | immediate (default fifo: vertical sync)\n"
    "  --frames N           run N frames of 1/60 s each (not real time), then quit: for scripts\n"
    "  --screenshot PATH    with --frames, write the last frame as a PNG; otherwise where F12 writes\n"
    "                       (default orrery-view-NNN.png, the first NNN no file has); refused as for\n"
    "                       render -o: FILE itself, a file the user may not write, one not a PNG\n"
    "  --shadows            the lights that cast shadows cast shadow maps, as for render (key B shows them)\n"
    "  --floor              a grey floor under the scene, as for render (not for a recording)\n"
    "  --time, --anim, --instances, --offset, --belt, --fur, -q/--quiet: as for render\n"
    "  --offscreen          no window: the same loop into an offscreen target of --size (machines\n"
    "                       without a display; needs --frames)\n"
    "  --keys F:KEY,...     press KEY at frame F (0-based), as if typed: 1-4, space, n, p, s, c, f, b, tab,\n"
    "                       f12, esc, left, right (for scripts and tests; at most 64)\n"
    "  --click F:X,Y        click window pixel X,Y at frame F, as a left click does (for scripts; one)\n"
    "  --stats              print one JSON line at the end: frames, seconds, fps, cpu and gpu ms\n"
    "  --validation         enable the Khronos validation layer; any message fails the command\n"
    "keys and mouse:\n"
    "  left drag rotate (orbit) or look (fly), wheel zoom, right or middle drag pan\n"
    "  left click: print what is under the cursor on stdout (its name, handle and world position), once\n"
    "  the frame that drew the pick completes: 'pick view V (CAMERA) pixel X,Y: NAME (...) at (X, Y, Z) m'\n"
    "  Tab orbit/fly (fly: W A S D move, Q E down/up, Shift faster), F frame the scene\n"
    "  1-4 views, space pause, N/P next/previous animation (a recording: next/previous frame, as\n"
    "  Right/Left), S strategy, C the file's cameras, B debug drawing: bounds, then bounds and\n"
    "  the other views' frusta, then (with --shadows) the shadow cascades and maps, then none\n"
    "  F12 screenshot, Esc quit\n"
    "Exit status: 0 done, 1 failed (no display, a file that does not load), 2 bad usage.\n";

/* --keys: key presses at given frames. */
#define SCRIPT_MAX 64u
typedef struct key_script {
    uint32_t frame[SCRIPT_MAX];
    orr_key key[SCRIPT_MAX];
    uint32_t count;
} key_script;

static orr_key key_named(const char *name, size_t len)
{
    static const struct {
        const char *name;
        orr_key key;
    } named[] = {{"space", ORR_KEY_SPACE}, {"tab", ORR_KEY_TAB}, {"esc", ORR_KEY_ESCAPE}, {"f12", ORR_KEY_F12},
                 {"left", ORR_KEY_LEFT}, {"right", ORR_KEY_RIGHT}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i].name) == len && !strncmp(name, named[i].name, len)) return named[i].key;
    if (len == 1 && name[0] >= 'a' && name[0] <= 'z') return (orr_key)(ORR_KEY_A + (name[0] - 'a'));
    if (len == 1 && name[0] >= '0' && name[0] <= '9') return (orr_key)(ORR_KEY_0 + (name[0] - '0'));
    return ORR_KEY_UNKNOWN;
}

/* "F:KEY,F:KEY,...": false after a message naming the bad entry. */
static bool parse_keys(const char *list, key_script *out)
{
    out->count = 0;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        char *num_end = NULL;
        unsigned long f = colon ? strtoul(p, &num_end, 10) : 0;
        orr_key k = colon ? key_named(colon + 1, len - (size_t)(colon + 1 - p)) : ORR_KEY_UNKNOWN;
        if (!colon || num_end != colon || colon == p || f > TOOL_MAX_TICKS || k == ORR_KEY_UNKNOWN ||
            out->count == SCRIPT_MAX) {
            fprintf(stderr, "orrery view: --keys: bad entry '%.*s' (FRAME:KEY, FRAME 0..%u, KEY one of 0-9, a-z, "
                            "space, tab, esc, f12, left, right; at most %u entries)\n", (int)len, p, TOOL_MAX_TICKS, SCRIPT_MAX);
            return false;
        }
        out->frame[out->count] = (uint32_t)f;
        out->key[out->count++] = k;
        p = end ? end + 1 : p + len;
    }
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the user's camera --------------------------------------------------------------------- */

/* A free camera: where it is, where it looks (yaw about +Y, pitch up), and the distance to the point
 * it orbits. */
typedef struct free_cam {
    orr_vec3d eye;
    double yaw, pitch, distance;
    bool fly;
} free_cam;

static orr_vec3d cam_forward(const free_cam *c)
{
    return (orr_vec3d){-sin(c->yaw) * cos(c->pitch), sin(c->pitch), -cos(c->yaw) * cos(c->pitch)};
}

static orr_vec3d cam_right(const free_cam *c) { return (orr_vec3d){cos(c->yaw), 0, -sin(c->yaw)}; }

static orr_vec3d cam_target(const free_cam *c)
{
    return orr_vec3d_add(c->eye, orr_vec3d_scale(cam_forward(c), c->distance));
}

static void cam_pose(const free_cam *c, orr_mat4d *pose)
{
    orr_mat4d_from_trs(c->eye, orr_quatd_look_rotation(cam_forward(c), (orr_vec3d){0, 1, 0}), ORR_VEC3_ONE, pose);
}

/* The scene's visible bounds (a loop over the snapshot: only when the user frames it or grabs a camera). */
static orr_aabbd scene_box(const orr_snapshot *snap, const orr_assets *assets, uint32_t layers)
{
    orr_aabbd box = orr_aabbd_empty();
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const orr_render_instance *in = &snap->instances[i];
        if (!in->visible || !(in->layers & layers) || !orr_assets_try_get_mesh(assets, in->mesh)) continue;
        orr_aabbd local = {{in->bounds.min.x, in->bounds.min.y, in->bounds.min.z},
                           {in->bounds.max.x, in->bounds.max.y, in->bounds.max.z}};
        box = orr_aabbd_union(box, orr_aabbd_transform_affine(&in->world, local));
    }
    return orr_aabbd_is_empty(box) ? (orr_aabbd){{-1, -1, -1}, {1, 1, 1}} : box;
}

/* Takes over a view's camera (a pose, camera to world) where it is: the orbit point is the nearest
 * instance straight ahead (within 10 degrees), or the scene's centre. */
static void cam_grab(free_cam *c, const orr_mat4d *pose, const orr_snapshot *snap, const orr_assets *assets,
                     uint32_t layers)
{
    c->eye = (orr_vec3d){pose->m[12], pose->m[13], pose->m[14]};
    orr_vec3d fwd = orr_vec3d_normalize((orr_vec3d){-pose->m[8], -pose->m[9], -pose->m[10]});
    c->yaw = atan2(-fwd.x, -fwd.z);
    c->pitch = asin(fmax(-1.0, fmin(1.0, fwd.y)));
    orr_aabbd box = scene_box(snap, assets, layers);
    orr_vec3d centre = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    double best = orr_vec3d_length(orr_vec3d_sub(centre, c->eye));
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const orr_render_instance *in = &snap->instances[i];
        if (!in->visible || !(in->layers & layers)) continue;
        orr_vec3d to = orr_vec3d_sub(orr_affine3d_translation(&in->world), c->eye);
        double d = orr_vec3d_length(to);
        if (d > 0 && d < best && orr_vec3d_dot(to, fwd) > 0.985 * d) best = d;
    }
    c->distance = fmax(best, 1e-3);
}

static void cam_frame(free_cam *c, const orr_snapshot *snap, const orr_assets *assets, uint32_t layers, double yfov)
{
    orr_aabbd box = scene_box(snap, assets, layers);
    orr_vec3d centre = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    double radius = fmax(orr_vec3d_length(orr_vec3d_sub(box.max, box.min)) * 0.5, 1e-3);
    c->distance = radius / sin(yfov * 0.5) * 1.05;
    c->eye = orr_vec3d_sub(centre, orr_vec3d_scale(cam_forward(c), c->distance));
}

/* Mouse and keys move the camera; true when it moved. */
static bool cam_input(free_cam *c, const orr_window_input *in, double dt)
{
    bool moved = false;
    double size = fmax(in->height, 1);
    if ((in->buttons & ORR_MOUSE_LEFT) && (in->cursor_dx || in->cursor_dy)) {
        orr_vec3d target = cam_target(c);
        c->yaw -= in->cursor_dx / size * 3.0;
        c->pitch = fmax(-1.55, fmin(1.55, c->pitch - in->cursor_dy / size * 3.0));
        if (!c->fly) c->eye = orr_vec3d_sub(target, orr_vec3d_scale(cam_forward(c), c->distance));
        moved = true;
    }
    if ((in->buttons & (ORR_MOUSE_RIGHT | ORR_MOUSE_MIDDLE)) && (in->cursor_dx || in->cursor_dy)) {
        orr_vec3d up = orr_vec3d_cross(cam_right(c), cam_forward(c));
        double k = c->distance / size;
        c->eye = orr_vec3d_add(c->eye, orr_vec3d_scale(cam_right(c), -in->cursor_dx * k));
        c->eye = orr_vec3d_add(c->eye, orr_vec3d_scale(up, in->cursor_dy * k));
        moved = true;
    }
    if (in->scroll) {
        double f = pow(0.85, in->scroll);
        if (c->fly) {
            c->distance *= f; /* fly speed follows the distance scale */
        } else {
            orr_vec3d target = cam_target(c);
            c->distance *= f;
            c->eye = orr_vec3d_sub(target, orr_vec3d_scale(cam_forward(c), c->distance));
            moved = true;
        }
    }
    if (c->fly) {
        double speed = c->distance * (in->held[ORR_KEY_SHIFT] ? 2.0 : 0.5) * dt;
        orr_vec3d move = {0, 0, 0};
        if (in->held[ORR_KEY_W]) move = orr_vec3d_add(move, cam_forward(c));
        if (in->held[ORR_KEY_S]) move = orr_vec3d_sub(move, cam_forward(c));
        if (in->held[ORR_KEY_D]) move = orr_vec3d_add(move, cam_right(c));
        if (in->held[ORR_KEY_A]) move = orr_vec3d_sub(move, cam_right(c));
        if (in->held[ORR_KEY_E]) move.y += 1;
        if (in->held[ORR_KEY_Q]) move.y -= 1;
        if (move.x || move.y || move.z) {
            c->eye = orr_vec3d_add(c->eye, orr_vec3d_scale(move, speed));
            moved = true;
        }
    }
    return moved;
}

/* ---- the viewer ---------------------------------------------------------------------------- */

typedef struct viewer {
    tool_scene_options o;
    orr_session *session;
    orr_window *window;
    orr_renderer *renderer;
    orr_target_id target;
    orr_view_id views[VIEW_MAX];
    orr_view_desc descs[VIEW_MAX];
    uint32_t view_count;
    uint32_t want_views; /* views asked for by a key this frame (0 = as they are) */
    orr_strategy strategy;
    free_cam cam;
    bool cam_free;      /* view 0 is the user's camera (else its default camera) */
    int32_t cam_entity; /* view 0 shows the snapshot's camera of this index; -1 none */
    uint32_t clip;
    orr_clip_id *clips;
    bool paused;
    uint32_t shots;
    tool_render_log *rlog; /* the renderer's messages */
    /* a recording played (view REC): no session; its frames at 60 a second */
    tool_player *player;
    orr_snapshot snap;     /* the frame shown */
    uint64_t position;     /* its position in the recording */
    uint64_t frame_count;
    int64_t step;          /* frames to step this loop (N/P, arrows): pauses */
    /* a click's pick (pick.h): asked before a frame, printed once that frame completes */
    bool picking;
    orr_pick_id pick;
    uint32_t pick_view, pick_x, pick_y;
    uint32_t debug;        /* B: the built-in debug drawing (orr_debug_flags) */
    orr_shadow_settings shadows; /* --shadows: every view's */
    bool pressing;         /* the left button is down: a click if it comes up where it went down */
    double drag;           /* pixels moved since */
} viewer;

/* The pick's answer, printed when there is one (or waited for: `wait`). */
static int print_pick(viewer *v, bool wait)
{
    if (!v->picking) return 0;
    orr_pick_result res;
    orr_pick_hit hit;
    if (orr_renderer_pick_result(v->renderer, v->pick, wait, &res, &hit, 1) != ORR_OK) return 1;
    if (res.state == ORR_PICK_PENDING) return 0;
    v->picking = false;
    tool_print_pick(stdout, v->player ? &v->snap : orr_session_snapshot(v->session), v->pick_view,
                    v->pick_view < v->view_count ? v->descs[v->pick_view].camera : (orr_entity){0, 0}, v->pick_x,
                    v->pick_y, &res, &hit);
    fflush(stdout);
    return 0;
}

/* A click at window pixel x,y: a pick of the view there, answered by the next frame. */
static int click(viewer *v, uint32_t x, uint32_t y)
{
    if (print_pick(v, true)) return 1; /* one at a time: the last one's answer first */
    for (uint32_t i = 0; i < v->view_count; i++) {
        orr_viewport vp = v->descs[i].viewport;
        if (x < vp.x || x - vp.x >= vp.width || y < vp.y || y - vp.y >= vp.height) continue;
        if (orr_renderer_pick(v->renderer, v->views[i], x, y, &v->pick) != ORR_OK) return 1;
        v->picking = true;
        v->pick_view = i, v->pick_x = x, v->pick_y = y;
        return 0;
    }
    return 0;
}

/* What is shown: the session's snapshot and library, or the recording's frame and library. */
static const orr_snapshot *viewer_snapshot(const viewer *v)
{
    return v->player ? &v->snap : orr_session_snapshot(v->session);
}

static const orr_assets *viewer_assets(const viewer *v)
{
    return v->player ? tool_player_assets(v->player) : orr_session_assets(v->session);
}

static int renderer_failed(const viewer *v)
{
    tool_render_error(v->rlog, "orrery view", orr_renderer_last_error(v->renderer)->message);
    return 1;
}

/* The views' rectangles: 1 whole, 2 or 3 columns, 4 quadrants; each view's camera as render gives. */
static int make_views(viewer *v, uint32_t count)
{
    for (uint32_t i = 0; i < v->view_count; i++) orr_renderer_destroy_view(v->renderer, v->views[i]);
    v->view_count = 0;
    uint32_t w = 0, h = 0;
    if (orr_renderer_target_size(v->renderer, v->target, &w, &h) != ORR_OK) return renderer_failed(v);
    if ((!w || !h) && v->window) orr_window_framebuffer_size(v->window, &w, &h);
    if (!w || !h) w = h = 1;
    const orr_snapshot *snap = viewer_snapshot(v);
    uint32_t cam_used = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t x0, x1, y0 = 0, y1 = h;
        if (count == 4) {
            x0 = i % 2 ? w / 2 : 0, x1 = i % 2 ? w : w / 2;
            y0 = i / 2 ? h / 2 : 0, y1 = i / 2 ? h : h / 2;
        } else {
            x0 = (uint32_t)((uint64_t)w * i / count), x1 = (uint32_t)((uint64_t)w * (i + 1) / count);
        }
        if (x1 <= x0) x1 = x0 + 1;
        if (y1 <= y0) y1 = y0 + 1;
        orr_view_desc *d = &v->descs[i];
        *d = (orr_view_desc){.target = v->target, .slot = i, .viewport = {x0, y0, x1 - x0, y1 - y0},
                             .order = ORR_ORDER_MESH, .strategy = v->strategy,
                             .lighting = tool_default_lighting(&v->o, 0.0), .shadows = v->shadows};
        if (count == 1) d->viewport = (orr_viewport){0, 0, 0, 0}; /* the whole target, whatever its size */
        tool_default_camera(snap, &v->o, i, (double)(x1 - x0) / (y1 - y0), &cam_used, d);
        if (i == 0 && v->cam_free) {
            d->camera = (orr_entity){0, 0};
            cam_pose(&v->cam, &d->pose);
        } else if (i == 0 && v->cam_entity >= 0 && (uint32_t)v->cam_entity < snap->camera_count) {
            const orr_render_camera *c = &snap->cameras[v->cam_entity];
            d->camera = c->entity;
            d->yfov = c->yfov;
            d->znear = c->znear;
        }
        if (orr_renderer_create_view(v->renderer, d, &v->views[i]) != ORR_OK) return renderer_failed(v);
        v->view_count++;
    }
    return 0;
}

/* View 0's camera pose now (to grab it): its explicit pose, or its camera entity's in the snapshot. */
static orr_mat4d view0_pose(const viewer *v)
{
    const orr_snapshot *snap = viewer_snapshot(v);
    const orr_view_desc *d = &v->descs[0];
    for (uint32_t i = 0; i < snap->camera_count; i++)
        if (d->camera.index && orr_id_eq(snap->cameras[i].entity, d->camera)) {
            orr_mat4d m;
            orr_affine3d_to_mat4d(&snap->cameras[i].world, &m);
            return m;
        }
    return d->pose;
}

static int write_shot(viewer *v, const char *path)
{
    uint32_t w = 0, h = 0;
    if (orr_renderer_target_size(v->renderer, v->target, &w, &h) != ORR_OK) return renderer_failed(v);
    size_t size = (size_t)w * h * 4;
    uint8_t *px = malloc(size ? size : 1);
    if (!px) {
        fprintf(stderr, "orrery view: out of memory for a %ux%u screenshot\n", w, h);
        return 1;
    }
    char name[64];
    if (!path) { /* the first free name: an earlier screenshot is never replaced */
        struct stat st;
        do snprintf(name, sizeof name, "orrery-view-%03u.png", v->shots++);
        while (lstat(name, &st) == 0 && v->shots < UINT32_MAX);
        path = name;
    } else {
        v->shots++;
        if (tool_output_check("view", "--screenshot", path, v->o.file)) {
            free(px);
            return 1;
        }
    }
    int status = 0;
    orr_error err = {0};
    if (orr_renderer_read_target(v->renderer, v->target, px, size) != ORR_OK) {
        status = renderer_failed(v);
    } else if (orr_gpu_write_png(path, w, h, px, &err) != ORR_OK) {
        fprintf(stderr, "orrery view: %s\n", err.message);
        status = 1;
    } else {
        if (!v->o.quiet) fprintf(stderr, "orrery view: wrote %s (%ux%u)\n", path, w, h);
    }
    free(px);
    return status;
}


/* Which of the snapshot's cameras view 0 shows: -1 none (the user's, or a framing one). */
static int32_t view0_camera(const viewer *v)
{
    if (v->cam_free) return -1;
    if (v->cam_entity >= 0) return v->cam_entity;
    const orr_snapshot *snap = viewer_snapshot(v);
    for (uint32_t i = 0; i < snap->camera_count; i++)
        if (v->descs[0].camera.index && orr_id_eq(snap->cameras[i].entity, v->descs[0].camera)) return (int32_t)i;
    return -1;
}

/* View 0 becomes the user's camera, starting where it is. */
static void take_camera(viewer *v)
{
    if (v->cam_free) return;
    orr_mat4d pose = view0_pose(v);
    cam_grab(&v->cam, &pose, viewer_snapshot(v), viewer_assets(v), v->o.layers);
    v->cam_free = true;
    v->cam_entity = -1;
}

/* Keys other than the camera's; returns 0, or an exit status. v->want_views when the views must be
 * made again. */
static int handle_keys(viewer *v, const orr_window_input *in, bool *shot, bool *quit)
{
    const orr_snapshot *snap = viewer_snapshot(v);
    const orr_assets *assets = viewer_assets(v);
    if (in->pressed[ORR_KEY_ESCAPE]) *quit = true;
    for (uint32_t n = 1; n <= VIEW_MAX; n++)
        if (in->pressed[ORR_KEY_0 + n] && n != v->view_count) v->want_views = n;
    if (in->pressed[ORR_KEY_SPACE]) v->paused = !v->paused;
    if (v->player) { /* a recording: N / right one frame on, P / left one back (paused there) */
        int64_t on = (int64_t)in->pressed[ORR_KEY_N] + in->pressed[ORR_KEY_RIGHT];
        int64_t back = (int64_t)in->pressed[ORR_KEY_P] + in->pressed[ORR_KEY_LEFT];
        if (on || back) v->paused = true;
        v->step += on - back;
    } else if ((in->pressed[ORR_KEY_N] || in->pressed[ORR_KEY_P]) && v->o.clip_count) {
        orr_world *world = orr_session_world(v->session);
        v->clip = in->pressed[ORR_KEY_N] ? (v->clip + 1) % v->o.clip_count
                                         : (v->clip + v->o.clip_count - 1) % v->o.clip_count;
        tool_choose_animation(world, v->o.root, true, v->clips[v->clip]);
        fprintf(stderr, "orrery view: animation %u of %u\n", v->clip, v->o.clip_count);
    }
    if (in->pressed[ORR_KEY_S]) {
        v->strategy = (orr_strategy)((v->strategy + 1) % ORR_STRATEGY_COUNT);
        for (uint32_t i = 0; i < v->view_count; i++) {
            v->descs[i].strategy = v->strategy;
            if (orr_renderer_update_view(v->renderer, v->views[i], &v->descs[i]) != ORR_OK) return renderer_failed(v);
        }
    }
    if (in->pressed[ORR_KEY_C] && snap->camera_count) {
        /* the user's camera -> the file's camera 0 -> ... -> its last -> the user's camera again; from
         * the default view, which may be one of the file's cameras already, on to the one after it */
        int32_t next = v->cam_free ? 0 : view0_camera(v) + 1;
        if (next >= (int32_t)snap->camera_count) {
            take_camera(v);
        } else {
            v->cam_free = false;
            v->cam_entity = next;
            fprintf(stderr, "orrery view: camera %d of %u: %s\n", next, snap->camera_count,
                    orr_snapshot_name(snap, snap->cameras[next].name));
        }
        v->want_views = v->view_count;
    }
    if (in->pressed[ORR_KEY_TAB]) {
        take_camera(v);
        v->cam.fly = !v->cam.fly;
        v->want_views = v->view_count;
    }
    if (in->pressed[ORR_KEY_F]) {
        take_camera(v);
        cam_frame(&v->cam, snap, assets, v->o.layers, v->descs[0].yfov ? v->descs[0].yfov : 0.8);
        v->want_views = v->view_count;
    }
    if (in->pressed[ORR_KEY_F12]) *shot = true;
    if (in->pressed[ORR_KEY_B]) { /* none -> bounds -> bounds and frusta -> (with shadows) cascades -> none */
        uint32_t both = ORR_DEBUG_BOUNDS | ORR_DEBUG_FRUSTA;
        v->debug = !v->debug                                ? ORR_DEBUG_BOUNDS
                   : v->debug == ORR_DEBUG_BOUNDS           ? both
                   : v->debug == both && v->shadows.enabled ? ORR_DEBUG_CASCADES
                                                            : 0;
        orr_renderer_set_debug_draw(v->renderer, v->debug);
    }
    return 0;
}

int orr_tool_view(int argc, char **argv)
{
    viewer v = {.o = {.instances = 1}, .strategy = ORR_STRATEGY_INDIRECT, .cam_entity = -1};
    uint32_t width = 1280, height = 720, views = 1, frames = 0;
    const char *screenshot = NULL;
    bool stats = false, validation = false, offscreen = false;
    key_script script = {0};
    bool click_scripted = false;
    uint32_t click_frame = 0, click_x = 0, click_y = 0;
    orr_present_mode present = ORR_PRESENT_FIFO;
    static const char *const presents[] = {"fifo", "mailbox", "immediate", NULL};
    static const orr_present_mode present_of[] = {ORR_PRESENT_FIFO, ORR_PRESENT_MAILBOX, ORR_PRESENT_IMMEDIATE};
    bool ended = false; /* "--" seen */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int kind = tool_arg_kind(a, &ended);
        if (kind == 1) continue;
        if (kind == 2) {
            if (v.o.file) {
                fprintf(stderr, "orrery view: unexpected argument '%s' (one FILE: '%s')\n", a, v.o.file);
                return 2;
            }
            v.o.file = a;
            continue;
        }
        int shared = tool_scene_option(argc, argv, &i, &v.o);
        if (shared < 0) return 2;
        if (shared) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(view_help, stdout);
            return 0;
        } else if (!strcmp(a, "--size")) {
            const char *s = tool_opt_value(argc, argv, &i);
            if (!s) return 2;
            if (!tool_parse_size(s, &width, &height)) {
                fprintf(stderr, "orrery view: --size must be WxH with W and H each within 1..%u (got '%s')\n",
                        TOOL_MAX_SIZE, s);
                return 2;
            }
        } else if (!strcmp(a, "--views")) {
            if (!tool_opt_u32(argc, argv, &i, 1, VIEW_MAX, &views)) return 2;
        } else if (!strcmp(a, "--frames")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_TICKS, &frames)) return 2;
        } else if (!strcmp(a, "--screenshot")) {
            if (!(screenshot = tool_opt_value(argc, argv, &i))) return 2;
        } else if (!strcmp(a, "--strategy")) {
            if (!tool_opt_strategy("view", argc, argv, &i, &v.strategy)) return 2;
            if (v.strategy == ORR_STRATEGY_MESHLET) v.o.meshlets = true;
        } else if (!strcmp(a, "--present")) {
            int k = tool_opt_choice(argc, argv, &i, presents);
            if (k < 0) return 2;
            present = present_of[k];
        } else if (!strcmp(a, "--keys")) {
            const char *k = tool_opt_value(argc, argv, &i);
            if (!k || !parse_keys(k, &script)) return 2;
        } else if (!strcmp(a, "--click")) {
            const char *c = tool_opt_value(argc, argv, &i);
            if (!c) return 2;
            unsigned f, x, y;
            char tail;
            if (sscanf(c, "%u:%u,%u%c", &f, &x, &y, &tail) != 3 || f > TOOL_MAX_TICKS) {
                fprintf(stderr, "orrery view: --click must be FRAME:X,Y (window pixels; got '%s')\n", c);
                return 2;
            }
            click_scripted = true, click_frame = f, click_x = x, click_y = y;
        } else if (!strcmp(a, "--offscreen")) {
            offscreen = true;
        } else if (!strcmp(a, "--shadows")) {
            v.shadows.enabled = true;
        } else if (!strcmp(a, "--floor")) {
            v.o.floor = true;
        } else if (!strcmp(a, "--stats")) {
            stats = true;
        } else if (!strcmp(a, "--validation")) {
            validation = true;
        } else if (a[0] != '-' && !v.o.file) {
            v.o.file = a;
        } else {
            return tool_unknown_option("view", a);
        }
    }

    if (screenshot && tool_output_check("view", "--screenshot", screenshot, v.o.file)) return 1;
    v.o.framed = true;
    if (offscreen && !frames) {
        fprintf(stderr, "orrery view: --offscreen needs --frames N (nothing could end the loop)\n");
        return 2;
    }
    bool playing = v.o.file && tool_is_recording(v.o.file);
    const char *rec_path = playing ? v.o.file : NULL; /* the player's options say built-in or file after */
    if (playing && (v.o.instances != 1 || v.o.belt_given || v.o.anim_given || v.o.time != 0 || v.o.fur != 0 ||
                    v.o.offset.x != 0 || v.o.offset.y != 0 || v.o.offset.z != 0 || v.o.floor)) {
        fprintf(stderr, "orrery view: %s is a recording, played as recorded: --time, --anim, --instances, --offset, "
                        "--belt, --fur and --floor build a scene and do not apply\n", v.o.file);
        return 2;
    }
    tool_log log;
    tool_log_init(&log, v.o.file, v.o.quiet);
    v.o.log = &log;
    orr_snapshot_init(&v.snap, NULL);
    int status = 1;
    tool_render_log rlog = {.quiet = v.o.quiet};
    v.rlog = &rlog;
    orr_error err = {0};
    if (playing) {
        /* no world: the recording's resources in a library of their own, its frames read by position */
        if (!(v.player = tool_player_open(rec_path, &v.o))) goto done;
        v.frame_count = tool_player_frames(v.player);
        if (!v.frame_count) {
            fprintf(stderr, "orrery view: %s holds no frame\n", rec_path);
            goto done;
        }
    } else if (orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_PRESENTING,
                                                      .logger = tool_log_logger(&log)},
                                  &v.session, &err) != ORR_OK) {
        fprintf(stderr, "orrery view: could not create a session: %s\n", err.message);
        return 1;
    }
    int built = v.player ? 0 : tool_scene_build(v.session, &v.o);
    if (built) {
        status = built;
        goto done;
    }
    if (v.o.clip_count) {
        v.clips = malloc(sizeof *v.clips * v.o.clip_count);
        if (!v.clips) goto done;
        orr_prefab_clips(orr_session_assets(v.session), v.o.prefab, v.clips, v.o.clip_count);
        v.clip = v.o.anim >= 0 && (uint32_t)v.o.anim < v.o.clip_count ? (uint32_t)v.o.anim : 0;
    }
    char title[256];
    snprintf(title, sizeof title, "orrery - %s", rec_path ? rec_path : v.o.file ? v.o.file : "the built-in orrery");
    orr_window_desc wd = {.width = width, .height = height, .title = title};
    if (!offscreen && orr_window_create(&wd, &v.window, &err) != ORR_OK) {
        /* no display (a server, a container, ssh without X forwarding): the same loop runs offscreen */
        if (err.code == ORR_ERROR_UNSUPPORTED)
            fprintf(stderr, "orrery view: %s; without a display, 'orrery view --offscreen --frames N [--screenshot "
                            "PATH]' runs the same loop into an image\n", err.message);
        else
            fprintf(stderr, "orrery view: %s\n", err.message);
        goto done;
    }
    uint32_t ext_count = 0;
    const char *const *exts = v.window ? orr_window_instance_extensions(v.window, &ext_count) : NULL;
    orr_renderer_desc rd = {.validation = validation,
                            .validate_synchronization = validation,
                            .logger = {.log = tool_render_log_line, .user = &rlog},
                            .instance_extensions = exts,
                            .instance_extension_count = ext_count};
    if (orr_renderer_create(&rd, &v.renderer, &err) != ORR_OK) {
        tool_render_error(&rlog, "orrery view", err.message);
        goto done;
    }
    const orr_assets *assets = viewer_assets(&v);
    if (orr_renderer_bind_library(v.renderer, assets, NULL) != ORR_OK) {
        status = renderer_failed(&v);
        goto done;
    }
    uint32_t samples = 0; /* the library's default: 4 where the device has 4, else 1 */
    orr_window_target_desc td = {.clear_color = {0.01f, 0.01f, 0.015f, 1.0f}, .present_mode = present,
                                 .samples = samples};
    if (v.window && orr_window_create_target(v.window, v.renderer, &td, &v.target) != ORR_OK) {
        tool_render_error(&rlog, "orrery view", orr_window_last_error(v.window)->message);
        goto done;
    }
    orr_target_desc od = {.width = width, .height = height, .samples = samples};
    memcpy(od.clear_color, td.clear_color, sizeof od.clear_color);
    if (!v.window && orr_renderer_create_target(v.renderer, &od, &v.target) != ORR_OK) {
        status = renderer_failed(&v);
        goto done;
    }
    /* The first frame is the one `orrery render` draws (time 0, or --time), or the recording's first (its
     * default cameras frame it, as replay's do): then the loop. */
    if (v.player) {
        if (tool_player_read(v.player, 0, &v.snap) != ORR_OK) goto done;
        v.o.frame_box = tool_scene_box(&v.snap, assets, v.o.layers);
    } else if (orr_session_run_frame(v.session, 0.0) != ORR_OK) {
        fprintf(stderr, "orrery view: %s\n", orr_session_last_error(v.session)->message);
        goto done;
    }
    if (make_views(&v, views)) goto done;
    /* the built-in scene's monitor shows cam_belt through a texture target */
    orr_target_id monitor;
    orr_view_desc like = {.order = ORR_ORDER_MESH, .strategy = v.strategy, .lighting = tool_default_lighting(&v.o, 0.0)};
    if (!v.o.file && tool_monitor_target(v.renderer, viewer_snapshot(&v), &like, true, samples, &monitor)) {
        status = renderer_failed(&v);
        goto done;
    }

    double start = now_s(), last = start, title_at = start, cpu_sum = 0, gpu_ms = -1;
    double play_clock = 0; /* a recording's frames owed, in frames (real time x 60) */
    double cpu_all = 0, gpu_all = 0; /* over every drawn frame, for --stats */
    uint32_t frame = 0, title_frames = 0, drawn = 0, gpu_n = 0;
    orr_render_stats st = {0};
    for (;; frame++) {
        orr_window_input in = {.width = width, .height = height};
        if (v.window && orr_window_poll(v.window, &in) != ORR_OK) {
            tool_render_error(&rlog, "orrery view", orr_window_last_error(v.window)->message);
            goto done;
        }
        for (uint32_t k = 0; k < script.count; k++)
            if (script.frame[k] == frame) in.pressed[script.key[k]]++;
        double t = now_s(), dt = frames ? 1.0 / 60.0 : t - last;
        last = t;
        bool shot = false, quit = in.close;
        v.want_views = 0;
        if (handle_keys(&v, &in, &shot, &quit)) goto done;
        if (quit) break;
        /* a left click (down and up where it went down) picks what is under the cursor */
        bool left = (in.buttons & ORR_MOUSE_LEFT) != 0;
        if (v.pressing) v.drag += fabs(in.cursor_dx) + fabs(in.cursor_dy);
        if (left && !v.pressing) v.pressing = true, v.drag = 0;
        bool clicked = !left && v.pressing && v.drag < 4.0 && in.cursor_x >= 0 && in.cursor_y >= 0;
        if (!left) v.pressing = false;
        if (clicked && click(&v, (uint32_t)in.cursor_x, (uint32_t)in.cursor_y)) {
            status = renderer_failed(&v);
            goto done;
        }
        if (click_scripted && frame == click_frame && click(&v, click_x, click_y)) {
            status = renderer_failed(&v);
            goto done;
        }
        /* the mouse takes over view 0's camera where it is */
        if (!v.cam_free && (in.scroll || (in.buttons && (in.cursor_dx || in.cursor_dy)))) {
            take_camera(&v);
            v.want_views = v.view_count;
        }
        bool moved = v.cam_free && cam_input(&v.cam, &in, dt);
        double c0 = now_s();
        if (v.player) {
            /* the recording: scripted frames show the next recorded frame each; a live window its 60 a
             * second of real time; a step moves one either way; the end loops to the start */
            uint64_t n = v.frame_count, next = v.position;
            if (frame > 0 && v.step) {
                int64_t k = v.step % (int64_t)n;
                next = (v.position + (uint64_t)(k < 0 ? k + (int64_t)n : k)) % n;
            } else if (frame > 0 && !v.paused) {
                uint64_t advance = 1;
                if (!frames) {
                    play_clock += dt * 60.0;
                    advance = (uint64_t)play_clock;
                    play_clock -= (double)advance;
                }
                next = (v.position + advance % n) % n;
            }
            v.step = 0;
            if (next != v.position) {
                if (tool_player_read(v.player, next, &v.snap) != ORR_OK) goto done;
                v.position = next;
            }
        } else {
            /* the world: scripted frames tick exactly once each; a live window runs real time */
            orr_result rc = frame == 0 ? ORR_OK
                            : frames   ? (v.paused ? ORR_OK : orr_session_run_ticks(v.session, 1))
                                       : ORR_OK;
            if (rc == ORR_OK && frame > 0) rc = orr_session_run_frame(v.session, frames || v.paused ? 0.0 : dt);
            if (rc != ORR_OK) {
                fprintf(stderr, "orrery view: %s\n", orr_session_last_error(v.session)->message);
                goto done;
            }
        }
        if (v.want_views) {
            if (make_views(&v, v.want_views)) goto done;
        } else if (moved && v.view_count) {
            cam_pose(&v.cam, &v.descs[0].pose);
            v.descs[0].camera = (orr_entity){0, 0};
            if (orr_renderer_update_view(v.renderer, v.views[0], &v.descs[0]) != ORR_OK) {
                status = renderer_failed(&v);
                goto done;
            }
        }
        bool last_frame = frames && frame + 1 == frames;
        orr_render_desc desc = {.target = v.target, .snapshot = viewer_snapshot(&v),
                                .readback = shot || (last_frame && screenshot)};
        if (orr_renderer_render(v.renderer, &desc, &st) != ORR_OK) {
            status = renderer_failed(&v);
            goto done;
        }
        double c1 = now_s();
        if (print_pick(&v, false)) {
            status = renderer_failed(&v);
            goto done;
        }
        if (!st.presented) { /* minimised: nothing to draw, no reason to spin */
            struct timespec ts = {0, 16 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        double cpu = (c1 - c0) * 1e3 - st.time.wait_wall_ms; /* world, extraction and render, waits excluded */
        cpu_sum += cpu;
        cpu_all += cpu;
        drawn++;
        if (st.time.gpu_ms >= 0) {
            gpu_ms = st.time.gpu_ms;
            gpu_all += st.time.gpu_ms;
            gpu_n++;
        }
        if (desc.readback && write_shot(&v, shot ? (frames ? NULL : screenshot) : screenshot)) goto done;
        title_frames++;
        if (t - title_at >= 0.5) {
            char at[64] = "";
            if (v.player)
                snprintf(at, sizeof at, ", frame %llu of %llu", (unsigned long long)v.position,
                         (unsigned long long)v.frame_count);
            snprintf(title, sizeof title,
                     "orrery - %.1f fps, cpu %.2f ms, gpu %.2f ms, %u instances, %u visible, %u draw calls, %s%s%s",
                     title_frames / (t - title_at), cpu_sum / title_frames, gpu_ms, st.cull.instances, st.cull.visible,
                     st.draws.calls, orr_strategy_name(v.strategy), at, v.paused ? ", paused" : "");
            if (v.window) orr_window_set_title(v.window, title);
            title_at = t;
            title_frames = 0;
            cpu_sum = 0;
        }
        if (last_frame) {
            frame++;
            break;
        }
    }
    if (print_pick(&v, true)) { /* a click of the last frame */
        status = renderer_failed(&v);
        goto done;
    }
    if (stats) {
        orr_renderer_finish(v.renderer, &st);
        double seconds = now_s() - start;
        printf("{\"device\": ");
        tool_json_string(stdout, orr_renderer_device_name(v.renderer));
        printf(", \"frames\": %u, \"seconds\": %.3f, \"fps\": %.2f, \"views\": %u, \"instances\": %u, "
               "\"visible\": %u, \"draw_calls\": %u, \"cpu_ms_mean\": %.4f, \"gpu_ms_mean\": %.4f, "
               "\"swapchains\": %u}\n",
               frame, seconds, seconds > 0 ? frame / seconds : 0.0, st.views.count, st.cull.instances, st.cull.visible,
               st.draws.calls, drawn ? cpu_all / drawn : 0.0, gpu_n ? gpu_all / gpu_n : -1.0, st.swapchains);
    }
    status = 0;
done:
    if (v.renderer) orr_renderer_destroy(v.renderer); /* the window's target with it */
    orr_window_destroy(v.window);
    free(v.clips);
    orr_session_destroy(v.session);
    orr_snapshot_fini(&v.snap);
    tool_player_close(v.player);
    if (rlog.validation_messages) {
        fprintf(stderr, "orrery view: %u validation messages\n", rlog.validation_messages);
        status = 1;
    }
    return status;
}

#endif
