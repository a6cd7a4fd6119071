/* Orrery window: GLFW windows as render targets, and their input. An optional module (built where
 * libglfw3-dev is installed); the rest of the library never depends on GLFW.
 *
 *   orr_window_create             a window with no client API (Vulkan presents into it)
 *   orr_window_instance_extensions  what orr_renderer_desc.instance_extensions needs for it
 *   orr_window_create_target      the window's surface target on a renderer, kept at the window's
 *                                 size by orr_window_poll (its views keep their relative viewports)
 *   orr_window_poll               the events since the last poll: size, keys, mouse, close
 *
 * GLFW is process-wide and single-threaded: windows are made, polled and destroyed on the main
 * thread. The first window initialises GLFW and the last one destroyed terminates it. No display (no
 * DISPLAY or WAYLAND_DISPLAY): ORR_ERROR_UNSUPPORTED with GLFW's reason.
 */
#ifndef ORRERY_WINDOW_H
#define ORRERY_WINDOW_H

#include <orrery/core.h>
#include <orrery/gpu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orr_window orr_window;

typedef struct orr_window_desc {
    uint32_t width, height; /* client area in screen units; 0 = 1280 x 720 */
    const char *title;      /* NULL = "orrery" */
    bool hidden;            /* not shown (tests); it still presents */
    bool fixed_size;        /* the user cannot resize it */
    orr_allocator allocator;
} orr_window_desc;

orr_result orr_window_create(const orr_window_desc *desc, orr_window **out, orr_error *err);
/* The window's target (if any) must be destroyed first, or the renderer with it. NULL is a no-op. */
void orr_window_destroy(orr_window *window);

/* The Vulkan instance extensions a surface of this window system needs, for
 * orr_renderer_desc.instance_extensions (or orr_vulkan_instance_desc.instance_extensions: a host that
 * opens windows and renderers one after another shares one instance); the array stays valid while
 * the window lives. */
const char *const *orr_window_instance_extensions(const orr_window *window, uint32_t *count);

typedef struct orr_window_target_desc {
    float clear_color[4];          /* linear RGBA */
    orr_present_mode present_mode; /* FIFO by default */
    bool readback;                 /* read every frame back (else only frames that ask) */
    uint32_t samples;              /* multisampling, as orr_target_desc.samples (0: 4 where the device has 4) */
} orr_window_target_desc;

/* A surface target for the window on `renderer` (made with orr_window_instance_extensions). The window
 * remembers it: orr_window_poll resizes it when the window's framebuffer size changes (0 x 0 while
 * minimised). The window follows its latest target (destroy an earlier one first). Failures:
 * orr_window_last_error. */
orr_result orr_window_create_target(orr_window *window, orr_renderer *renderer, const orr_window_target_desc *desc,
                                    orr_target_id *out);

/* Keys the window reports (the US layout's positions). */
typedef enum orr_key {
    ORR_KEY_UNKNOWN = 0,
    ORR_KEY_A, ORR_KEY_B, ORR_KEY_C, ORR_KEY_D, ORR_KEY_E, ORR_KEY_F, ORR_KEY_G, ORR_KEY_H, ORR_KEY_I,
    ORR_KEY_J, ORR_KEY_K, ORR_KEY_L, ORR_KEY_M, ORR_KEY_N, ORR_KEY_O, ORR_KEY_P, ORR_KEY_Q, ORR_KEY_R,
    ORR_KEY_S, ORR_KEY_T, ORR_KEY_U, ORR_KEY_V, ORR_KEY_W, ORR_KEY_X, ORR_KEY_Y, ORR_KEY_Z,
    ORR_KEY_0, ORR_KEY_1, ORR_KEY_2, ORR_KEY_3, ORR_KEY_4, ORR_KEY_5, ORR_KEY_6, ORR_KEY_7, ORR_KEY_8, ORR_KEY_9,
    ORR_KEY_F1, ORR_KEY_F2, ORR_KEY_F3, ORR_KEY_F4, ORR_KEY_F5, ORR_KEY_F6, ORR_KEY_F7, ORR_KEY_F8,
    ORR_KEY_F9, ORR_KEY_F10, ORR_KEY_F11, ORR_KEY_F12,
    ORR_KEY_ESCAPE, ORR_KEY_SPACE, ORR_KEY_ENTER, ORR_KEY_TAB, ORR_KEY_BACKSPACE,
    ORR_KEY_LEFT, ORR_KEY_RIGHT, ORR_KEY_UP, ORR_KEY_DOWN, ORR_KEY_PAGE_UP, ORR_KEY_PAGE_DOWN,
    ORR_KEY_SHIFT, ORR_KEY_CONTROL, ORR_KEY_ALT,
    ORR_KEY_COUNT,
} orr_key;

enum {
    ORR_MOUSE_LEFT = 1u << 0,
    ORR_MOUSE_RIGHT = 1u << 1,
    ORR_MOUSE_MIDDLE = 1u << 2,
};

/* What happened since the last poll. */
typedef struct orr_window_input {
    bool close;                    /* the user asked the window to close (or orr_window_request_close) */
    bool resized;                  /* the framebuffer size changed (the target followed) */
    uint32_t width, height;        /* framebuffer size in pixels now; 0 x 0 while minimised */
    double cursor_x, cursor_y;     /* pixels from the top left of the framebuffer */
    double cursor_dx, cursor_dy;   /* moved since the last poll */
    double scroll;                 /* wheel steps since the last poll (up is positive) */
    uint32_t buttons;              /* ORR_MOUSE_* held now */
    bool held[ORR_KEY_COUNT];      /* keys held now */
    uint8_t pressed[ORR_KEY_COUNT]; /* presses since the last poll (repeats not counted) */
} orr_window_input;

/* Processes the window system's events; `input` NULL-able. Resizes the window's target (a failure
 * to: orr_window_last_error). */
orr_result orr_window_poll(orr_window *window, orr_window_input *input);
/* What the last failed call of this window said (code ORR_OK when none failed). */
const orr_error *orr_window_last_error(const orr_window *window);

void orr_window_set_title(orr_window *window, const char *title);
/* Asks the window system for another client size (screen units); the framebuffer follows at a later
 * poll (orr_window_input.resized), once the window system agrees. */
void orr_window_set_size(orr_window *window, uint32_t width, uint32_t height);
void orr_window_request_close(orr_window *window);
void orr_window_framebuffer_size(const orr_window *window, uint32_t *width, uint32_t *height);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_WINDOW_H */
