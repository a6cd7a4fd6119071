/* Surface targets (gpu_surface.c): the swapchain a target presents through. */
#ifndef ORRERY_GPU_SURFACE_H
#define ORRERY_GPU_SURFACE_H

#include "gpu/gpu_state.h"

/* Makes t->surface: checks presentation support, picks format and mode, makes the first swapchain
 * (and sizes the target to it). The surface is destroyed on failure. */
orr_result orri_surface_create(orr_renderer *r, orri_target *t, VkSurfaceKHR surface, uint32_t width, uint32_t height,
                               orr_present_mode mode);
/* Before the frame is planned, its slot's fence waited for: remakes a stale swapchain, then acquires
 * an image. *draw is false when there is nothing to draw into (minimised). */
orr_result orri_surface_acquire(orr_renderer *r, orri_target *t, uint32_t slot, bool *draw);
/* Copies the target's colour (in COLOR_ATTACHMENT_OPTIMAL) to the acquired image and readies it for
 * presenting; with `readback`, the presented image's bytes into it as well. */
void orri_surface_record(orr_renderer *r, orri_target *t, VkCommandBuffer cmd, uint32_t slot, orri_buffer *readback);
/* The semaphores of the frame's submit: wait for the acquire, signal the present. */
void orri_surface_semaphores(const orri_target *t, uint32_t slot, VkSemaphoreSubmitInfo *wait, VkSemaphoreSubmitInfo *signal);
/* After the submit: queues the present. An out-of-date or suboptimal swapchain is remade next frame. */
orr_result orri_surface_present(orr_renderer *r, orri_target *t);
/* The frame failed after its acquire: the acquire's semaphore is consumed and the swapchain remade. */
void orri_surface_abort(orr_renderer *r, orri_target *t, uint32_t slot);
/* The size the host says the window has now (0 x 0: minimised): the swapchain is remade next frame. */
void orri_surface_resize(orri_target *t, uint32_t width, uint32_t height);
uint32_t orri_surface_swapchains(const orri_target *t);
/* Waits for the queue, then destroys the swapchain, its semaphores and the surface. */
void orri_surface_destroy(orr_renderer *r, orri_target *t);
#endif
