/* Surface targets: a window's swapchain (gpu_vulkan.h). The target draws like any other, into its own
 * colour image (the renderer's colour format, so pipelines and bytes are those of an offscreen
 * target); a frame acquires one swapchain image before it is planned, copies the colour into it at the
 * end of its commands (a blit where the swapchain's channel order differs), and presents it after the
 * submit: one acquire and one present per frame, whatever the number of views.
 *
 * Semaphores: one per frame slot for the acquire (free again once the slot's fence has signalled: the
 * submit that waited on it is done), one per swapchain image for the present (free again when that
 * image is acquired next). A swapchain that is out of date, suboptimal, resized or left in an unknown
 * state by a failed frame is marked stale and remade before the next acquire, after the queue is idle
 * (a rare event: the wait keeps the retirement of images and semaphores simple).
 */
#include "gpu/gpu_surface.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_target_image.h"

#include <orrery/gpu_vulkan.h>

#include <string.h>

struct orri_surface {
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkSurfaceFormatKHR format;
    VkPresentModeKHR mode;
    bool blit;               /* the swapchain format's channel order differs from the colour image's */
    bool read_presented;     /* swapchain images may be copied from: readback reads what is presented */
    VkImage *images;
    VkSemaphore *presentable; /* per swapchain image */
    uint32_t image_count;
    VkSemaphore acquired[ORRI_FRAMES_IN_FLIGHT];
    uint32_t image;          /* acquired for this frame */
    uint32_t want_width, want_height; /* what the host last said (used where the surface says nothing) */
    bool stale;
    uint32_t swapchains;     /* made so far */
};

static VkPresentModeKHR vk_present_mode(orr_present_mode m)
{
    switch (m) {
    case ORR_PRESENT_MAILBOX: return VK_PRESENT_MODE_MAILBOX_KHR;
    case ORR_PRESENT_IMMEDIATE: return VK_PRESENT_MODE_IMMEDIATE_KHR;
    case ORR_PRESENT_FIFO_RELAXED: return VK_PRESENT_MODE_FIFO_RELAXED_KHR;
    case ORR_PRESENT_FIFO: break;
    }
    return VK_PRESENT_MODE_FIFO_KHR;
}

static bool blits(orr_renderer *r, VkFormat format, VkFormatFeatureFlags need)
{
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(r->physical, format, &p);
    return (p.optimalTilingFeatures & need) == need;
}

/* R8G8B8A8_SRGB (copied) or B8G8R8A8_SRGB (blitted), in the sRGB colour space. */
static orr_result choose_format(orr_renderer *r, orri_surface *s)
{
    uint32_t n = 0;
    ORRI_VK(r, vkGetPhysicalDeviceSurfaceFormatsKHR(r->physical, s->surface, &n, NULL));
    VkSurfaceFormatKHR *list = orri_alloc(&r->allocator, sizeof *list * (n ? n : 1));
    if (!list) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory listing surface formats");
    VkResult res = vkGetPhysicalDeviceSurfaceFormatsKHR(r->physical, s->surface, &n, list);
    int best = 0; /* 2: the colour format itself, 1: BGRA that blits */
    for (uint32_t i = 0; res == VK_SUCCESS && i < n; i++) {
        if (list[i].colorSpace != VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) continue;
        if (list[i].format == VK_FORMAT_R8G8B8A8_SRGB && best < 2) {
            s->format = list[i];
            best = 2;
        } else if (list[i].format == VK_FORMAT_B8G8R8A8_SRGB && best < 1 &&
                   blits(r, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_FEATURE_BLIT_SRC_BIT) &&
                   blits(r, VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_FEATURE_BLIT_DST_BIT)) {
            s->format = list[i];
            best = 1;
        }
    }
    orri_free(&r->allocator, list, sizeof *list * (n ? n : 1));
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkGetPhysicalDeviceSurfaceFormatsKHR failed: %s", orri_vk_result_name(res));
    if (!best)
        return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED, "the surface offers neither R8G8B8A8_SRGB nor B8G8R8A8_SRGB "
                                                       "(with the sRGB colour space) among its %u formats", n);
    s->blit = best == 1;
    return ORR_OK;
}

static orr_result choose_mode(orr_renderer *r, orri_surface *s, orr_present_mode want)
{
    s->mode = VK_PRESENT_MODE_FIFO_KHR; /* every surface has it */
    VkPresentModeKHR mode = vk_present_mode(want);
    if (mode == VK_PRESENT_MODE_FIFO_KHR) return ORR_OK;
    uint32_t n = 0;
    ORRI_VK(r, vkGetPhysicalDeviceSurfacePresentModesKHR(r->physical, s->surface, &n, NULL));
    VkPresentModeKHR *list = orri_alloc(&r->allocator, sizeof *list * (n ? n : 1));
    if (!list) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory listing present modes");
    VkResult res = vkGetPhysicalDeviceSurfacePresentModesKHR(r->physical, s->surface, &n, list);
    for (uint32_t i = 0; res == VK_SUCCESS && i < n; i++)
        if (list[i] == mode) s->mode = mode;
    orri_free(&r->allocator, list, sizeof *list * (n ? n : 1));
    if (s->mode != mode)
        orri_log(&r->logger, ORR_LOG_WARNING, "gpu: present mode %d is not offered by the surface: FIFO instead", (int)want);
    return ORR_OK;
}

static uint32_t clamp_u32(uint32_t v, uint32_t lo, uint32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static void destroy_sync(orr_renderer *r, orri_surface *s)
{
    for (uint32_t i = 0; i < s->image_count; i++)
        if (s->presentable && s->presentable[i]) vkDestroySemaphore(r->device, s->presentable[i], NULL);
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) {
        if (s->acquired[i]) vkDestroySemaphore(r->device, s->acquired[i], NULL);
        s->acquired[i] = VK_NULL_HANDLE;
    }
    orri_free(&r->allocator, s->presentable, sizeof *s->presentable * s->image_count);
    orri_free(&r->allocator, s->images, sizeof *s->images * s->image_count);
    s->presentable = NULL;
    s->images = NULL;
    s->image_count = 0;
}

static orr_result make_semaphore(orr_renderer *r, VkSemaphore *out)
{
    VkSemaphoreCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ORRI_VK(r, vkCreateSemaphore(r->device, &ci, NULL, out));
    return ORR_OK;
}

/* A new swapchain at the surface's size now (the old one handed over, then destroyed); the target's
 * colour image follows it. The queue is idle. A 0 x 0 surface (minimised) gets none: t->minimised. */
static orr_result remake(orr_renderer *r, orri_target *t)
{
    orri_surface *s = t->surface;
    VkSurfaceCapabilitiesKHR caps;
    ORRI_VK(r, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(r->physical, s->surface, &caps));
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) /* the surface takes the swapchain's size: the host's */
        extent = (VkExtent2D){clamp_u32(s->want_width, caps.minImageExtent.width, caps.maxImageExtent.width),
                              clamp_u32(s->want_height, caps.minImageExtent.height, caps.maxImageExtent.height)};
    if (!s->want_width || !s->want_height) extent = (VkExtent2D){0, 0}; /* the host says minimised */
    t->minimised = !extent.width || !extent.height;
    if (t->minimised) return ORR_OK; /* stays stale: asked again next frame */
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
    VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    if (!(caps.supportedUsageFlags & usage))
        return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED, "the surface's images cannot be copied to (no TRANSFER_DST usage)");
    s->read_presented = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
    if (s->read_presented) usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & alpha))
        for (uint32_t bit = 1; bit <= VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR; bit <<= 1)
            if (caps.supportedCompositeAlpha & bit) {
                alpha = (VkCompositeAlphaFlagBitsKHR)bit;
                break;
            }
    VkSwapchainKHR old = s->swapchain;
    VkSwapchainCreateInfoKHR ci = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
        .surface = s->surface,
        .minImageCount = count,
        .imageFormat = s->format.format,
        .imageColorSpace = s->format.colorSpace,
        .imageExtent = extent,
        .imageArrayLayers = 1,
        .imageUsage = usage,
        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = caps.currentTransform,
        .compositeAlpha = alpha,
        .presentMode = s->mode,
        .clipped = VK_TRUE,
        .oldSwapchain = old,
    };
    VkResult res = vkCreateSwapchainKHR(r->device, &ci, NULL, &s->swapchain);
    if (old) vkDestroySwapchainKHR(r->device, old, NULL);
    destroy_sync(r, s);
    if (res != VK_SUCCESS) {
        s->swapchain = VK_NULL_HANDLE;
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateSwapchainKHR (%ux%u) failed: %s", extent.width,
                             extent.height, orri_vk_result_name(res));
    }
    s->swapchains++;
    uint32_t n = 0;
    ORRI_VK(r, vkGetSwapchainImagesKHR(r->device, s->swapchain, &n, NULL));
    s->images = orri_alloc(&r->allocator, sizeof *s->images * (n ? n : 1));
    s->presentable = orri_alloc(&r->allocator, sizeof *s->presentable * (n ? n : 1));
    if (!s->images || !s->presentable) {
        orri_free(&r->allocator, s->images, sizeof *s->images * (n ? n : 1));
        orri_free(&r->allocator, s->presentable, sizeof *s->presentable * (n ? n : 1));
        s->images = NULL;
        s->presentable = NULL;
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for swapchain images");
    }
    memset(s->presentable, 0, sizeof *s->presentable * n);
    s->image_count = n;
    ORRI_VK(r, vkGetSwapchainImagesKHR(r->device, s->swapchain, &n, s->images));
    for (uint32_t i = 0; i < n; i++) ORRI_TRY(make_semaphore(r, &s->presentable[i]));
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) ORRI_TRY(make_semaphore(r, &s->acquired[i]));
    ORRI_TRY(orri_target_set_size(r, t, extent.width, extent.height));
    s->stale = false;
    orri_log(&r->logger, ORR_LOG_DEBUG, "gpu: swapchain %u: %ux%u, %u images of %s (%s), present mode %d", s->swapchains,
             extent.width, extent.height, n, s->format.format == VK_FORMAT_B8G8R8A8_SRGB ? "B8G8R8A8_SRGB" : "R8G8B8A8_SRGB",
             s->blit ? "blitted" : "copied", (int)s->mode);
    return ORR_OK;
}

orr_result orri_surface_create(orr_renderer *r, orri_target *t, VkSurfaceKHR surface, uint32_t width, uint32_t height,
                               orr_present_mode mode)
{
    VkBool32 supported = VK_FALSE;
    VkResult res = vkGetPhysicalDeviceSurfaceSupportKHR(r->physical, r->queue_family, surface, &supported);
    if (res != VK_SUCCESS || !supported) {
        vkDestroySurfaceKHR(r->instance, surface, NULL);
        if (res != VK_SUCCESS)
            return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkGetPhysicalDeviceSurfaceSupportKHR failed: %s",
                                 orri_vk_result_name(res));
        return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED, "the renderer's queue (%s, family %u) cannot present to this surface",
                             r->properties.deviceName, r->queue_family);
    }
    orri_surface *s = orri_alloc(&r->allocator, sizeof *s);
    if (!s) {
        vkDestroySurfaceKHR(r->instance, surface, NULL);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for a surface target");
    }
    memset(s, 0, sizeof *s);
    s->surface = surface;
    s->want_width = width;
    s->want_height = height;
    t->surface = s;
    orr_result rc = choose_format(r, s);
    if (rc == ORR_OK) rc = choose_mode(r, s, mode);
    if (rc == ORR_OK) rc = remake(r, t);
    if (rc != ORR_OK) orri_surface_destroy(r, t);
    return rc;
}

orr_result orri_surface_acquire(orr_renderer *r, orri_target *t, uint32_t slot, bool *draw)
{
    orri_surface *s = t->surface;
    *draw = false;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (s->stale || !s->swapchain) {
            ORRI_VK(r, vkQueueWaitIdle(r->queue));
            ORRI_TRY(remake(r, t));
            if (t->minimised) return ORR_OK;
        }
        VkResult res = vkAcquireNextImageKHR(r->device, s->swapchain, UINT64_MAX, s->acquired[slot], VK_NULL_HANDLE,
                                             &s->image);
        if (res == VK_SUCCESS || res == VK_SUBOPTIMAL_KHR) {
            if (res == VK_SUBOPTIMAL_KHR) s->stale = true; /* drawn and presented, then remade */
            *draw = true;
            return ORR_OK;
        }
        if (res != VK_ERROR_OUT_OF_DATE_KHR)
            return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkAcquireNextImageKHR failed: %s", orri_vk_result_name(res));
        s->stale = true; /* nothing was acquired: remade, then asked again */
    }
    return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkAcquireNextImageKHR: the swapchain is out of date right after it was made");
}

void orri_surface_record(orr_renderer *r, orri_target *t, VkCommandBuffer cmd, uint32_t slot, orri_buffer *readback)
{
    (void)r;
    orri_surface *s = t->surface;
    VkImage image = s->images[s->image];
    uint32_t w = t->desc.width, h = t->desc.height;
    orri_barrier_image(cmd, t->color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                       VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    /* The acquire semaphore is waited for at the transfer stage: this barrier's first scope. */
    orri_barrier_image(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, 0,
                       VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    VkImageSubresourceLayers layers = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    if (s->blit) { /* same size, nearest: a swizzle, the sRGB bytes kept */
        VkImageBlit blit = {
            .srcSubresource = layers,
            .srcOffsets = {{0, 0, 0}, {(int32_t)w, (int32_t)h, 1}},
            .dstSubresource = layers,
            .dstOffsets = {{0, 0, 0}, {(int32_t)w, (int32_t)h, 1}},
        };
        vkCmdBlitImage(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_NEAREST);
    } else {
        VkImageCopy copy = {.srcSubresource = layers, .dstSubresource = layers, .extent = {w, h, 1}};
        vkCmdCopyImage(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    }
    VkBufferImageCopy out = {.imageSubresource = layers, .imageExtent = {w, h, 1}};
    if (readback && s->read_presented) { /* what is presented, byte for byte */
        orri_barrier_image(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                           VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                           VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
        vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback->buffer, 1, &out);
        orri_barrier_image(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                           VK_ACCESS_2_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_2_NONE, 0,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
        t->readback_bgra[slot] = s->format.format == VK_FORMAT_B8G8R8A8_SRGB;
    } else {
        if (readback) { /* the surface's images cannot be read: the colour they were made from */
            vkCmdCopyImageToBuffer(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback->buffer, 1, &out);
            t->readback_bgra[slot] = false;
        }
        orri_barrier_image(cmd, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                           VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_NONE, 0,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    }
}

void orri_surface_semaphores(const orri_target *t, uint32_t slot, VkSemaphoreSubmitInfo *wait, VkSemaphoreSubmitInfo *signal)
{
    const orri_surface *s = t->surface;
    *wait = (VkSemaphoreSubmitInfo){
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = s->acquired[slot],
        .stageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
    };
    *signal = (VkSemaphoreSubmitInfo){
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = s->presentable[s->image],
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    };
}

orr_result orri_surface_present(orr_renderer *r, orri_target *t)
{
    orri_surface *s = t->surface;
    VkPresentInfoKHR pi = {
        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
        .waitSemaphoreCount = 1,
        .pWaitSemaphores = &s->presentable[s->image],
        .swapchainCount = 1,
        .pSwapchains = &s->swapchain,
        .pImageIndices = &s->image,
    };
    VkResult res = vkQueuePresentKHR(r->queue, &pi);
    if (res == VK_SUBOPTIMAL_KHR || res == VK_ERROR_OUT_OF_DATE_KHR) {
        s->stale = true;
        return ORR_OK;
    }
    if (res != VK_SUCCESS) {
        s->stale = true;
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkQueuePresentKHR failed: %s", orri_vk_result_name(res));
    }
    return ORR_OK;
}

void orri_surface_abort(orr_renderer *r, orri_target *t, uint32_t slot)
{
    orri_surface *s = t->surface;
    /* A batch that only waits consumes the acquire's signal, so the semaphore may be used again; the
     * image stays acquired until the swapchain is remade. */
    VkSemaphoreSubmitInfo wait = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = s->acquired[slot],
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    };
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .waitSemaphoreInfoCount = 1, .pWaitSemaphoreInfos = &wait};
    ORRI_VK_LOG(r, vkQueueSubmit2(r->queue, 1, &si, VK_NULL_HANDLE));
    s->stale = true;
}

void orri_surface_resize(orri_target *t, uint32_t width, uint32_t height)
{
    orri_surface *s = t->surface;
    s->want_width = width;
    s->want_height = height;
    s->stale = true;
    if (!width || !height) t->minimised = true;
}

uint32_t orri_surface_swapchains(const orri_target *t) { return t->surface ? t->surface->swapchains : 0; }

void orri_surface_destroy(orr_renderer *r, orri_target *t)
{
    orri_surface *s = t->surface;
    if (!s) return;
    ORRI_VK_LOG(r, vkQueueWaitIdle(r->queue));
    destroy_sync(r, s);
    if (s->swapchain) vkDestroySwapchainKHR(r->device, s->swapchain, NULL);
    vkDestroySurfaceKHR(r->instance, s->surface, NULL);
    orri_free(&r->allocator, s, sizeof *s);
    t->surface = NULL;
}

/* ---- the public side (gpu_vulkan.h) ---- */

VkInstance orr_renderer_vk_instance(const orr_renderer *r)
{
    ORRI_ASSERT(r, "orr_renderer_vk_instance: renderer must not be NULL");
    return r->instance;
}

VkPhysicalDevice orr_renderer_vk_physical_device(const orr_renderer *r)
{
    ORRI_ASSERT(r, "orr_renderer_vk_physical_device: renderer must not be NULL");
    return r->physical;
}
