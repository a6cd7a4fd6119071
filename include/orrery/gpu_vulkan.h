/* Orrery gpu, the Vulkan side: for hosts that hold Vulkan objects themselves, such as a window
 * system's surface. Most hosts use window.h (GLFW) instead and never include this header.
 *
 *   orr_renderer_vk_instance           the renderer's VkInstance, to make a surface with
 *   orr_vulkan_instance_vk             a shared instance's VkInstance (the same for its renderers)
 *   orr_renderer_create_surface_target  a target that presents to a VkSurfaceKHR
 *
 * A surface target draws like any target (one colour clear, then its views in slot order) into an
 * image of the renderer's colour format, copied once per frame to the swapchain image acquired at the
 * start of the frame and presented at its end: one acquire and one present, however many views. A
 * surface that reports another size (a resized window) or an out-of-date swapchain gets a new
 * swapchain at the next frame; a minimised window (0 x 0) draws nothing. */
#ifndef ORRERY_GPU_VULKAN_H
#define ORRERY_GPU_VULKAN_H

#include <orrery/gpu.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

VkInstance orr_renderer_vk_instance(const orr_renderer *renderer); /* its orr_vulkan_instance's, if shared */
VkInstance orr_vulkan_instance_vk(const orr_vulkan_instance *instance);
VkPhysicalDevice orr_renderer_vk_physical_device(const orr_renderer *renderer);

/* The renderer must have been made with the surface's instance extensions
 * (orr_renderer_desc.instance_extensions, or its orr_vulkan_instance_desc's). Swapchain format:
 * R8G8B8A8 or B8G8R8A8 with the sRGB encoding, which every desktop driver offers (none:
 * ORR_ERROR_UNSUPPORTED). */
typedef struct orr_surface_target_desc {
    VkSurfaceKHR surface;          /* made from orr_renderer_vk_instance; the target owns it from this
                                      call on (destroyed with the target, or here when this fails) */
    uint32_t width, height;        /* the window's framebuffer size, used where the surface does not
                                      say its own (Wayland) */
    float clear_color[4];          /* linear RGBA */
    orr_present_mode present_mode; /* FIFO by default */
    bool readback;                 /* read every frame back (else only frames that ask) */
    uint32_t samples;              /* multisampling, as orr_target_desc.samples (0: 4 where the device has 4) */
} orr_surface_target_desc;

orr_result orr_renderer_create_surface_target(orr_renderer *renderer, const orr_surface_target_desc *desc,
                                              orr_target_id *out);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_GPU_VULKAN_H */
