/* The window module: a GLFW window, its surface target and its input (window.h). GLFW's callbacks
 * gather what happens between polls into the window; a poll hands it over and starts again. */
#include "core/internal.h"

#include <orrery/gpu_vulkan.h>
#include <orrery/window.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <string.h>

/* GLFW's Vulkan entry point, declared here as GLFW does under GLFW_INCLUDE_VULKAN (which would include
 * the Vulkan header a second way). */
VkResult glfwCreateWindowSurface(VkInstance instance, GLFWwindow *window, const VkAllocationCallbacks *allocator,
                                 VkSurfaceKHR *surface);

struct orr_window {
    orr_allocator allocator;
    GLFWwindow *glfw;
    const char **extensions;
    uint32_t extension_count;
    orr_renderer *renderer; /* the window's target, resized by the poll */
    orr_target_id target;
    uint32_t fb_width, fb_height;
    bool have_cursor;
    double last_x, last_y;
    orr_window_input pending; /* gathered since the last poll */
    orr_error error;          /* of the last call that failed */
};

/* GLFW is process-wide: initialised with the first window, terminated with the last. */
static uint32_t glfw_users;
static char glfw_reason[256];

static void glfw_error(int code, const char *description)
{
    snprintf(glfw_reason, sizeof glfw_reason, "%s (GLFW error 0x%x)", description ? description : "?", code);
}

static orr_key key_of(int k)
{
    if (k >= GLFW_KEY_A && k <= GLFW_KEY_Z) return (orr_key)(ORR_KEY_A + (k - GLFW_KEY_A));
    if (k >= GLFW_KEY_0 && k <= GLFW_KEY_9) return (orr_key)(ORR_KEY_0 + (k - GLFW_KEY_0));
    if (k >= GLFW_KEY_F1 && k <= GLFW_KEY_F12) return (orr_key)(ORR_KEY_F1 + (k - GLFW_KEY_F1));
    switch (k) {
    case GLFW_KEY_ESCAPE: return ORR_KEY_ESCAPE;
    case GLFW_KEY_SPACE: return ORR_KEY_SPACE;
    case GLFW_KEY_ENTER: case GLFW_KEY_KP_ENTER: return ORR_KEY_ENTER;
    case GLFW_KEY_TAB: return ORR_KEY_TAB;
    case GLFW_KEY_BACKSPACE: return ORR_KEY_BACKSPACE;
    case GLFW_KEY_LEFT: return ORR_KEY_LEFT;
    case GLFW_KEY_RIGHT: return ORR_KEY_RIGHT;
    case GLFW_KEY_UP: return ORR_KEY_UP;
    case GLFW_KEY_DOWN: return ORR_KEY_DOWN;
    case GLFW_KEY_PAGE_UP: return ORR_KEY_PAGE_UP;
    case GLFW_KEY_PAGE_DOWN: return ORR_KEY_PAGE_DOWN;
    case GLFW_KEY_LEFT_SHIFT: case GLFW_KEY_RIGHT_SHIFT: return ORR_KEY_SHIFT;
    case GLFW_KEY_LEFT_CONTROL: case GLFW_KEY_RIGHT_CONTROL: return ORR_KEY_CONTROL;
    case GLFW_KEY_LEFT_ALT: case GLFW_KEY_RIGHT_ALT: return ORR_KEY_ALT;
    default: return ORR_KEY_UNKNOWN;
    }
}

static void on_key(GLFWwindow *glfw, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    orr_window *w = glfwGetWindowUserPointer(glfw);
    orr_key k = key_of(key);
    if (k == ORR_KEY_UNKNOWN) return;
    if (action == GLFW_PRESS && w->pending.pressed[k] < UINT8_MAX) w->pending.pressed[k]++;
    if (action == GLFW_PRESS || action == GLFW_REPEAT) w->pending.held[k] = true;
    if (action == GLFW_RELEASE) w->pending.held[k] = false;
}

static void on_scroll(GLFWwindow *glfw, double dx, double dy)
{
    (void)dx;
    orr_window *w = glfwGetWindowUserPointer(glfw);
    w->pending.scroll += dy;
}

static void on_button(GLFWwindow *glfw, int button, int action, int mods)
{
    (void)mods;
    orr_window *w = glfwGetWindowUserPointer(glfw);
    uint32_t bit = button == GLFW_MOUSE_BUTTON_LEFT    ? ORR_MOUSE_LEFT
                   : button == GLFW_MOUSE_BUTTON_RIGHT ? ORR_MOUSE_RIGHT
                   : button == GLFW_MOUSE_BUTTON_MIDDLE ? ORR_MOUSE_MIDDLE
                                                        : 0;
    if (action == GLFW_PRESS) w->pending.buttons |= bit;
    else if (action == GLFW_RELEASE) w->pending.buttons &= ~bit;
}

static orr_result fail(orr_error *err, orr_result code, const char *what)
{
    return orri_error(err, code, "window: %s: %s", what, glfw_reason[0] ? glfw_reason : "no reason given");
}

orr_result orr_window_create(const orr_window_desc *desc, orr_window **out, orr_error *err)
{
    ORRI_REQUIRE(desc && out, err, "orr_window_create: desc and out must not be NULL");
    *out = NULL;
    if (err) *err = (orr_error){0};
    glfw_reason[0] = '\0';
    if (glfw_users == 0) {
        glfwSetErrorCallback(glfw_error);
        if (!glfwInit()) return fail(err, ORR_ERROR_UNSUPPORTED, "no window system (glfwInit failed)");
    }
    glfw_users++;
    orr_allocator allocator = orri_allocator_or_default(&desc->allocator);
    orr_window *w = orri_alloc(&allocator, sizeof *w);
    if (!w) {
        if (--glfw_users == 0) glfwTerminate();
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "window: out of memory");
    }
    w->allocator = allocator;
    orr_result rc = ORR_OK;
    if (!glfwVulkanSupported()) rc = fail(err, ORR_ERROR_UNSUPPORTED, "GLFW finds no Vulkan loader");
    uint32_t n = 0;
    const char **exts = rc == ORR_OK ? glfwGetRequiredInstanceExtensions(&n) : NULL;
    if (rc == ORR_OK && !exts)
        rc = fail(err, ORR_ERROR_UNSUPPORTED, "the window system has no Vulkan surface extensions");
    if (rc == ORR_OK) {
        w->extensions = orri_alloc(&w->allocator, sizeof *w->extensions * n);
        if (!w->extensions) rc = orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "window: out of memory");
        else {
            memcpy(w->extensions, exts, sizeof *w->extensions * n);
            w->extension_count = n;
        }
    }
    if (rc == ORR_OK) {
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        glfwWindowHint(GLFW_VISIBLE, desc->hidden ? GLFW_FALSE : GLFW_TRUE);
        glfwWindowHint(GLFW_RESIZABLE, desc->fixed_size ? GLFW_FALSE : GLFW_TRUE);
        int width = desc->width ? (int)desc->width : 1280, height = desc->height ? (int)desc->height : 720;
        w->glfw = glfwCreateWindow(width, height, desc->title ? desc->title : "orrery", NULL, NULL);
        if (!w->glfw) rc = fail(err, ORR_ERROR_UNSUPPORTED, "glfwCreateWindow failed");
    }
    if (rc != ORR_OK) {
        orr_window_destroy(w);
        return rc;
    }
    glfwSetWindowUserPointer(w->glfw, w);
    glfwSetKeyCallback(w->glfw, on_key);
    glfwSetScrollCallback(w->glfw, on_scroll);
    glfwSetMouseButtonCallback(w->glfw, on_button);
    orr_window_framebuffer_size(w, &w->fb_width, &w->fb_height);
    *out = w;
    return ORR_OK;
}

void orr_window_destroy(orr_window *w)
{
    if (!w) return;
    if (w->glfw) glfwDestroyWindow(w->glfw);
    orri_free(&w->allocator, w->extensions, sizeof *w->extensions * w->extension_count);
    orr_allocator a = w->allocator;
    orri_free(&a, w, sizeof *w);
    if (glfw_users && --glfw_users == 0) glfwTerminate();
}

const char *const *orr_window_instance_extensions(const orr_window *w, uint32_t *count)
{
    ORRI_ASSERT(w && count, "orr_window_instance_extensions: window and count must not be NULL");
    *count = w->extension_count;
    return w->extensions;
}

orr_result orr_window_create_target(orr_window *w, orr_renderer *renderer, const orr_window_target_desc *desc,
                                    orr_target_id *out)
{
    ORRI_REQUIRE(w && renderer && desc && out, NULL, "orr_window_create_target: window, renderer, desc and out must not be NULL");
    *out = (orr_target_id){0, 0};
    glfw_reason[0] = '\0';
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VkResult res = glfwCreateWindowSurface(orr_renderer_vk_instance(renderer), w->glfw, NULL, &surface);
    if (res != VK_SUCCESS)
        return fail(&w->error, ORR_ERROR_VULKAN, "glfwCreateWindowSurface failed");
    orr_surface_target_desc sd = {
        .surface = surface,
        .width = w->fb_width,
        .height = w->fb_height,
        .present_mode = desc->present_mode,
        .readback = desc->readback,
        .samples = desc->samples,
    };
    memcpy(sd.clear_color, desc->clear_color, sizeof sd.clear_color);
    orr_result rc = orr_renderer_create_surface_target(renderer, &sd, out);
    if (rc != ORR_OK) {
        w->error = *orr_renderer_last_error(renderer);
        return rc;
    }
    w->renderer = renderer;
    w->target = *out;
    return ORR_OK;
}

orr_result orr_window_poll(orr_window *w, orr_window_input *input)
{
    ORRI_REQUIRE(w, NULL, "orr_window_poll: window must not be NULL");
    glfwPollEvents();
    orr_window_input *p = &w->pending;
    uint32_t fw = 0, fh = 0;
    orr_window_framebuffer_size(w, &fw, &fh);
    p->resized = fw != w->fb_width || fh != w->fb_height;
    p->width = fw;
    p->height = fh;
    orr_result rc = ORR_OK;
    if (p->resized) {
        w->fb_width = fw;
        w->fb_height = fh;
        if (w->renderer) rc = orr_renderer_resize_target(w->renderer, w->target, fw, fh);
        if (rc != ORR_OK) w->error = *orr_renderer_last_error(w->renderer);
    }
    double x = 0, y = 0;
    glfwGetCursorPos(w->glfw, &x, &y);
    float sx = 1, sy = 1; /* screen units -> framebuffer pixels */
    int ww = 0, wh = 0;
    glfwGetWindowSize(w->glfw, &ww, &wh);
    if (ww > 0 && wh > 0) {
        sx = (float)fw / (float)ww;
        sy = (float)fh / (float)wh;
    }
    x *= sx;
    y *= sy;
    p->cursor_dx = w->have_cursor ? x - w->last_x : 0;
    p->cursor_dy = w->have_cursor ? y - w->last_y : 0;
    p->cursor_x = w->last_x = x;
    p->cursor_y = w->last_y = y;
    w->have_cursor = true;
    p->close = p->close || glfwWindowShouldClose(w->glfw);
    if (input) *input = *p;
    /* what is counted starts again; what is held stays */
    p->resized = false;
    p->scroll = 0;
    memset(p->pressed, 0, sizeof p->pressed);
    return rc;
}

void orr_window_set_title(orr_window *w, const char *title)
{
    ORRI_ASSERT(w && title, "orr_window_set_title: window and title must not be NULL");
    glfwSetWindowTitle(w->glfw, title);
}

void orr_window_set_size(orr_window *w, uint32_t width, uint32_t height)
{
    ORRI_ASSERT(w && width && height, "orr_window_set_size: a window and a size of at least 1 x 1");
    glfwSetWindowSize(w->glfw, (int)width, (int)height);
}

void orr_window_request_close(orr_window *w)
{
    ORRI_ASSERT(w, "orr_window_request_close: window must not be NULL");
    w->pending.close = true;
}

void orr_window_framebuffer_size(const orr_window *w, uint32_t *width, uint32_t *height)
{
    ORRI_ASSERT(w && width && height, "orr_window_framebuffer_size: window, width and height must not be NULL");
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(w->glfw, &fw, &fh);
    *width = fw > 0 ? (uint32_t)fw : 0;
    *height = fh > 0 ? (uint32_t)fh : 0;
}

const orr_error *orr_window_last_error(const orr_window *w)
{
    ORRI_ASSERT(w, "orr_window_last_error: window must not be NULL");
    return &w->error;
}
