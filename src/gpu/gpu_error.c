/* Errors: the renderer's last error and the names of VkResults (gpu_error.h). */
#include "gpu/gpu_error.h"

#include <stdarg.h>
#include <stdio.h>

const char *orri_vk_result_name(VkResult r)
{
    switch (r) {
#define X(name) case name: return #name;
        X(VK_SUCCESS) X(VK_NOT_READY) X(VK_TIMEOUT) X(VK_EVENT_SET) X(VK_EVENT_RESET) X(VK_INCOMPLETE)
        X(VK_ERROR_OUT_OF_HOST_MEMORY) X(VK_ERROR_OUT_OF_DEVICE_MEMORY) X(VK_ERROR_INITIALIZATION_FAILED)
        X(VK_ERROR_DEVICE_LOST) X(VK_ERROR_MEMORY_MAP_FAILED) X(VK_ERROR_LAYER_NOT_PRESENT)
        X(VK_ERROR_EXTENSION_NOT_PRESENT) X(VK_ERROR_FEATURE_NOT_PRESENT) X(VK_ERROR_INCOMPATIBLE_DRIVER)
        X(VK_ERROR_TOO_MANY_OBJECTS) X(VK_ERROR_FORMAT_NOT_SUPPORTED) X(VK_ERROR_FRAGMENTED_POOL)
        X(VK_ERROR_UNKNOWN) X(VK_ERROR_OUT_OF_POOL_MEMORY) X(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        X(VK_ERROR_FRAGMENTATION) X(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS) X(VK_PIPELINE_COMPILE_REQUIRED)
#undef X
    default: return "VkResult (unknown)";
    }
}

orr_result orri_gpu_fail(orr_renderer *r, orr_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_verror(&r->error, code, fmt, ap);
    va_end(ap);
    orri_log(&r->logger, ORR_LOG_ERROR, "gpu: %s", r->error.message);
    return code;
}
