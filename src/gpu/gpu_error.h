/* Errors (gpu_error.c): the renderer's last error, and the checks every room writes its Vulkan calls
 * with. */
#ifndef ORRERY_GPU_ERROR_H
#define ORRERY_GPU_ERROR_H

#include "gpu/gpu_state.h"

const char *orri_vk_result_name(VkResult r);
/* Sets the renderer's last error and returns `code`. */
orr_result orri_gpu_fail(orr_renderer *r, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
/* Checks a VkResult: on failure the message names the call. */
#define ORRI_VK(r, call)                                                                            \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS)                                                              \
            return orri_gpu_fail((r), ORR_ERROR_VULKAN, "%s failed: %s", #call,                    \
                                 orri_vk_result_name(vk_result_));                                 \
    } while (0)
/* For paths that cannot return a result (destroy, clean-up after a first error): a failure is logged
 * (ORR_LOG_ERROR), and the last error, which names the first failure, is left alone. */
#define ORRI_VK_LOG(r, call)                                                                        \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS)                                                              \
            orri_log(&(r)->logger, ORR_LOG_ERROR, "gpu: %s failed: %s", #call,                     \
                     orri_vk_result_name(vk_result_));                                             \
    } while (0)
#define ORRI_TRY(expr)                                                                              \
    do {                                                                                           \
        orr_result try_result_ = (expr);                                                           \
        if (try_result_ != ORR_OK) return try_result_;                                             \
    } while (0)

#endif
