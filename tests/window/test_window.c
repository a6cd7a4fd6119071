/* window: GLFW windows as surface targets, on a virtual display (xvfb-run, see CMakeLists.txt) with
 * lavapipe in CI. What is presented is read back from the swapchain image itself and must equal an
 * offscreen render of the same views byte for byte; validation (synchronization included) must stay
 * silent through resizes, minimising and teardown. */
#include "gpu_fixture.h"

#include <orrery/window.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define W 320
#define H 240

typedef struct windowed {
    orr_window *window;
    orr_renderer *r;
    fix_log log;
    orr_target_id target;
} windowed;

/* A window and a presenting renderer with its target; skips when there is no display at all. */
static bool open_window(windowed *w, uint32_t width, uint32_t height, bool fixed)
{
    memset(w, 0, sizeof *w);
    orr_error err = {0};
    orr_window_desc wd = {.width = width, .height = height, .title = "orrery test", .fixed_size = fixed};
    orr_result rc = orr_window_create(&wd, &w->window, &err);
    if (rc == ORR_ERROR_UNSUPPORTED && !getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
        orrt_skip("no display and no xvfb-run (Debian: xvfb)");
        return false;
    }
    if (rc != ORR_OK) fail_msg("window: %s", err.message);
    uint32_t n = 0;
    const char *const *exts = orr_window_instance_extensions(w->window, &n);
    assert_true(n >= 1);
    w->r = fix_renderer_presenting(&w->log, NULL, exts, n);
    orr_window_target_desc td = {.samples = 1}; /* as the offscreen render it is compared with */
    memcpy(td.clear_color, FIX_CLEAR, sizeof td.clear_color);
    rc = orr_window_create_target(w->window, w->r, &td, &w->target);
    if (rc != ORR_OK) fail_msg("window target: %s", orr_window_last_error(w->window)->message);
    return true;
}

static void close_window(windowed *w)
{
    assert_int_equal(orr_renderer_destroy_target(w->r, w->target), ORR_OK);
    fix_renderer_done(w->r, &w->log);
    orr_window_destroy(w->window);
}

static void add_views(orr_renderer *r, orr_target_id target, const fix_view *views, uint32_t n, orr_view_id *ids)
{
    for (uint32_t i = 0; i < n; i++) {
        orr_view_desc vd = {
            .target = target,
            .slot = i,
            .viewport = views[i].viewport,
            .pose = views[i].pose,
            .strategy = views[i].strategy,
        };
        assert_int_equal(orr_renderer_create_view(r, &vd, &ids[i]), ORR_OK);
    }
}

/* One view on the whole target, or four on its quadrants (each its own camera and strategy). */
static uint32_t layout(uint32_t count, uint32_t w, uint32_t h, fix_view *out)
{
    static const orr_vec3d eyes[4] = {{2.5, 2.0, 4.5}, {-3.5, 4.0, -3.0}, {0.5, 6.0, 0.5}, {5.0, 1.0, -1.0}};
    for (uint32_t i = 0; i < count; i++) {
        uint32_t x0 = count == 1 ? 0 : (i % 2) * (w / 2), y0 = count == 1 ? 0 : (i / 2) * (h / 2);
        uint32_t x1 = count == 1 || i % 2 ? w : w / 2, y1 = count == 1 || i / 2 ? h : h / 2;
        out[i] = (fix_view){
            .viewport = count == 1 ? (orr_viewport){0, 0, 0, 0} : (orr_viewport){x0, y0, x1 - x0, y1 - y0},
            .pose = fix_look(eyes[i], (orr_vec3d){0, 0.25, 0}),
            .strategy = (orr_strategy)(i % 3),
        };
    }
    return count;
}

/* Polls until the framebuffer is w x h (the window system answers a resize a little later). */
static void poll_until_size(orr_window *window, uint32_t w, uint32_t h)
{
    orr_window_input in;
    for (int i = 0; i < 400; i++) {
        assert_int_equal(orr_window_poll(window, &in), ORR_OK);
        if (in.width == w && in.height == h) return;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fail_msg("the window never reached %ux%u (it is %ux%u)", w, h, in.width, in.height);
}

/* Renders `frames` frames into the window, the last one read back. */
static uint8_t *present(windowed *w, fixture *f, uint32_t frames, uint32_t width, uint32_t height,
                        orr_render_stats *st)
{
    for (uint32_t i = 0; i < frames; i++) {
        assert_int_equal(orr_window_poll(w->window, NULL), ORR_OK);
        orr_render_desc d = fix_desc(w->r, f, w->target);
        d.readback = i + 1 == frames;
        orr_result rc = orr_renderer_render(w->r, &d, st);
        if (rc != ORR_OK) fail_msg("render: %s", orr_renderer_last_error(w->r)->message);
        assert_true(st->presented);
    }
    uint32_t tw = 0, th = 0;
    assert_int_equal(orr_renderer_target_size(w->r, w->target, &tw, &th), ORR_OK);
    assert_int_equal(tw, width);
    assert_int_equal(th, height);
    size_t size = (size_t)width * height * 4;
    uint8_t *px = malloc(size);
    assert_non_null(px);
    orr_result rc = orr_renderer_read_target(w->r, w->target, px, size);
    if (rc != ORR_OK) fail_msg("read_target: %s", orr_renderer_last_error(w->r)->message);
    return px;
}

static void assert_same_image(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h, const char *what)
{
    size_t differ = 0;
    for (size_t i = 0; i < (size_t)w * h * 4; i++) differ += a[i] != b[i];
    if (differ) fail_msg("%s: %zu of %zu bytes differ from the offscreen render", what, differ, (size_t)w * h * 4);
    assert_true(fix_count_drawn(a, w, 0, 0, w, h) > w * h / 20); /* and something was drawn */
}

/* 1 and 4 views: the presented bytes are the offscreen bytes. */
static void test_window_presents_offscreen_bytes(void **state)
{
    (void)state;
    windowed w;
    if (!open_window(&w, W, H, true)) return;
    uint32_t fw = 0, fh = 0;
    orr_window_framebuffer_size(w.window, &fw, &fh);
    assert_true(fw > 0 && fh > 0);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    for (uint32_t count = 1; count <= 4; count += 3) {
        fix_view views[4];
        layout(count, fw, fh, views);
        orr_view_id ids[4];
        add_views(w.r, w.target, views, count, ids);
        orr_render_stats st;
        uint8_t *shown = present(&w, &f, 3, fw, fh, &st);
        assert_int_equal(st.views.count, count);
        assert_int_equal(st.swapchains, 1); /* no resize: the first swapchain throughout */
        uint8_t *offscreen = fix_render(w.r, &f, fw, fh, views, count, NULL);
        char what[64];
        snprintf(what, sizeof what, "%u view%s", count, count > 1 ? "s" : "");
        assert_same_image(shown, offscreen, fw, fh, what);
        print_message("%s on a %ux%u window: presented bytes equal the offscreen render\n", what, fw, fh);
        free(shown);
        free(offscreen);
        for (uint32_t i = 0; i < count; i++) assert_int_equal(orr_renderer_destroy_view(w.r, ids[i]), ORR_OK);
    }
    /* a frame that did not ask is not read back */
    orr_render_desc d = fix_desc(w.r, &f, w.target);
    assert_int_equal(orr_renderer_render(w.r, &d, NULL), ORR_OK);
    uint8_t one[4];
    assert_int_equal(orr_renderer_read_target(w.r, w.target, one, sizeof one), ORR_ERROR_INVALID_ARGUMENT);
    uint8_t *px = malloc((size_t)fw * fh * 4);
    assert_int_equal(orr_renderer_read_target(w.r, w.target, px, (size_t)fw * fh * 4), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(w.r)->message, "not read back"));
    free(px);
    close_window(&w);
    fix_fini(&f);
}

/* A resized window gets a new swapchain; four quadrant views stay quadrants of the new size. */
static void test_window_resize(void **state)
{
    (void)state;
    windowed w;
    if (!open_window(&w, W, H, false)) return;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    uint32_t fw = 0, fh = 0;
    orr_window_framebuffer_size(w.window, &fw, &fh);
    fix_view views[4];
    layout(4, fw, fh, views);
    orr_view_id ids[4];
    add_views(w.r, w.target, views, 4, ids);
    orr_render_stats st;
    free(present(&w, &f, 2, fw, fh, &st));
    uint32_t before = st.swapchains;

    uint32_t nw = 2 * W + 40, nh = H + 100; /* not a multiple: the quadrants' edges are rounded */
    orr_window_set_size(w.window, nw, nh);
    poll_until_size(w.window, nw, nh);
    uint8_t *shown = present(&w, &f, 3, nw, nh, &st);
    assert_true(st.swapchains > before);
    fix_view scaled[4];
    layout(4, nw, nh, scaled);
    uint8_t *offscreen = fix_render(w.r, &f, nw, nh, scaled, 4, NULL);
    assert_same_image(shown, offscreen, nw, nh, "4 views after a resize");
    print_message("resized %ux%u -> %ux%u: swapchains %u -> %u, the quadrants follow\n", fw, fh, nw, nh, before,
                  st.swapchains);
    free(shown);
    free(offscreen);

    /* minimised: nothing drawn, nothing fails; restored: drawn again */
    assert_int_equal(orr_renderer_resize_target(w.r, w.target, 0, 0), ORR_OK);
    uint32_t tw = 1, th = 1;
    assert_int_equal(orr_renderer_target_size(w.r, w.target, &tw, &th), ORR_OK);
    assert_int_equal(tw, 0);
    orr_render_desc d = fix_desc(w.r, &f, w.target);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(orr_renderer_render(w.r, &d, &st), ORR_OK);
        assert_false(st.presented);
    }
    assert_int_equal(orr_renderer_resize_target(w.r, w.target, nw, nh), ORR_OK);
    shown = present(&w, &f, 2, nw, nh, &st);
    offscreen = fix_render(w.r, &f, nw, nh, scaled, 4, NULL);
    assert_same_image(shown, offscreen, nw, nh, "4 views after minimise and restore");
    free(shown);
    free(offscreen);
    close_window(&w);
    fix_fini(&f);
}

/* Wrong uses get a message, not a crash: a surface target on a renderer made without the window's
 * extensions, an unknown present mode; a mode the surface lacks falls back to FIFO. */
static void test_window_errors(void **state)
{
    (void)state;
    orr_window *window = NULL;
    orr_error err = {0};
    orr_window_desc wd = {.width = 64, .height = 64};
    orr_result rc = orr_window_create(&wd, &window, &err);
    if (rc == ORR_ERROR_UNSUPPORTED && !getenv("DISPLAY")) {
        orrt_skip("no display");
        return;
    }
    assert_int_equal(rc, ORR_OK);
    fix_log log;
    orr_renderer *plain = fix_renderer(&log);
    orr_window_target_desc td = {0};
    orr_target_id t;
    assert_int_not_equal(orr_window_create_target(window, plain, &td, &t), ORR_OK);
    print_message("without the surface extensions: %s\n", orr_window_last_error(window)->message);
    assert_true(strlen(orr_window_last_error(window)->message) > 10);
    fix_renderer_done(plain, &log);

    uint32_t n = 0;
    const char *const *exts = orr_window_instance_extensions(window, &n);
    orr_renderer *r = fix_renderer_presenting(&log, NULL, exts, n);
    td.present_mode = (orr_present_mode)99;
    assert_int_equal(orr_window_create_target(window, r, &td, &t), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_window_last_error(window)->message, "present_mode"));
    td.present_mode = ORR_PRESENT_MAILBOX; /* lavapipe on X11 has it or falls back: either way a target */
    assert_int_equal(orr_window_create_target(window, r, &td, &t), ORR_OK);
    assert_int_equal(orr_renderer_destroy_target(r, t), ORR_OK);
    assert_int_equal(orr_renderer_resize_target(r, t, 10, 10), ORR_ERROR_STALE_HANDLE);
    fix_renderer_done(r, &log);
    orr_window_destroy(window);
}

/* ---- orrery view ------------------------------------------------------------------------- */

static bool read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(n > 0 ? (size_t)n : 1);
    *size = n > 0 && fread(*data, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    return *size > 0;
}

static void run_tool(const char *args, int expect, char *out, size_t cap)
{
    const char *tool = getenv("ORRERY_TOOL");
    assert_non_null(tool);
    char cmd[2048];
    int n = snprintf(cmd, sizeof cmd, "%s %s", tool, args);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    char sink[4096];
    int rc = orrt_run(cmd, out ? out : sink, out ? cap : sizeof sink);
    if (rc != expect) fail_msg("'%s' exited %d, not %d", cmd, rc, expect);
}

/* A screenshot of the viewer's frame N is `orrery render` of the same time: the built-in orrery (in
 * motion) after 29 ticks, two views; validation on and silent. */
static void test_view_screenshot_is_render(void **state)
{
    (void)state;
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
        orrt_skip("no display and no xvfb-run (Debian: xvfb)");
        return;
    }
    char dir[] = "/tmp/orrery-view-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char args[1024], out[4096];
    snprintf(args, sizeof args, "view --belt 2000 --views 2 --size 320x180 --frames 30 --screenshot %s/view.png --validation "
             "--stats 2>&1", dir);
    run_tool(args, 0, out, sizeof out);
    assert_non_null(strstr(out, "\"frames\": 30"));
    assert_non_null(strstr(out, "\"swapchains\": 1"));
    snprintf(args, sizeof args, "render --belt 2000 --views 2 --size 320x180 --time 0.48333333 -o %s/render.png", dir);
    run_tool(args, 0, NULL, 0);
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/view.png", dir);
    snprintf(pb, sizeof pb, "%s/render.png", dir);
    assert_true(read_file(pa, &a, &na));
    assert_true(read_file(pb, &b, &nb));
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na); /* one encoder, the same pixels: the same file */
    free(a);
    free(b);
    remove(pa);
    remove(pb);
    rmdir(dir);
}

/* The keys, scripted: 4 views, another strategy, framing, a file camera, pause, a screenshot, quit
 * early with Esc; every frame under validation. */
static void test_view_keys(void **state)
{
    (void)state;
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
        orrt_skip("no display and no xvfb-run (Debian: xvfb)");
        return;
    }
    char dir[] = "/tmp/orrery-view-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char args[1024], out[4096];
    snprintf(args, sizeof args, "view --belt 2000 --size 320x180 --frames 40 --keys 1:4,2:s,3:f,4:c,5:space,6:tab,7:2,8:3,"
             "9:f12,10:n,12:esc --screenshot %s/never.png --validation --stats 2>&1", dir);
    const char *tool = getenv("ORRERY_TOOL");
    char full[2048];
    snprintf(full, sizeof full, "cd %s && %s %s", dir, tool, args); /* F12 writes into the working folder */
    int rc = orrt_run(full, out, sizeof out);
    if (rc != 0) fail_msg("%s: exit %d\n%s", full, rc, out);
    assert_non_null(strstr(out, "\"frames\": 12")); /* Esc at frame 12 */
    assert_non_null(strstr(out, "\"views\": 3"));
    assert_non_null(strstr(out, "camera 0 of"));
    char shot[512];
    snprintf(shot, sizeof shot, "%s/orrery-view-000.png", dir);
    uint8_t *png = NULL;
    size_t n = 0;
    assert_true(read_file(shot, &png, &n));
    assert_memory_equal(png, "\x89PNG", 4);
    free(png);
    remove(shot);
    snprintf(shot, sizeof shot, "%s/never.png", dir);
    assert_null(fopen(shot, "rb")); /* the run ended before its last frame */
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_presents_offscreen_bytes),
        cmocka_unit_test(test_window_resize),
        cmocka_unit_test(test_window_errors),
        cmocka_unit_test(test_view_screenshot_is_render),
        cmocka_unit_test(test_view_keys),
    };
    return orrt_exit_status(cmocka_run_group_tests_name("window", tests, NULL, NULL));
}
