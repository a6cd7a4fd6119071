/* Instance, validation messenger, device choice, memory, buffers, images, deferred destruction. */
#if defined(__SANITIZE_ADDRESS__)
#define ORRI_PIN_DRIVERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORRI_PIN_DRIVERS 1
#endif
#endif
#ifdef ORRI_PIN_DRIVERS
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE */
#include <dlfcn.h>
#include <link.h>
#endif

#include "gpu/gpu_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the Vulkan instance and validation --------------------------------------------------- */

/* Shared by every renderer made with it (orr_renderer_desc.vulkan_instance), or made by one renderer for
 * itself. Renderers on several threads may use it at once: after creation only the counters change. */
struct orr_vulkan_instance {
    orr_allocator allocator;
    orr_logger logger;
    orr_error error;
    VkInstance vk;
    VkDebugUtilsMessengerEXT messenger; /* the instance's own (validation): counts every message, logs
                                           those no renderer's messenger hears */
    bool validation;
    bool presentation;                  /* the host asked for instance extensions (a window system's) */
    VkPhysicalDevice physical[16];      /* enumerated once, at creation */
    uint32_t physical_count;
    _Atomic uint32_t renderers;         /* live renderers made with it */
    _Atomic uint32_t listening;         /* renderers whose messenger is alive */
    _Atomic uint32_t messages;          /* every validation message */
    _Atomic uint32_t unheard;           /* those logged here (no renderer listened) */
};

static orr_result instance_fail(orr_vulkan_instance *in, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
static orr_result instance_fail(orr_vulkan_instance *in, orr_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_verror(&in->error, code, fmt, ap);
    va_end(ap);
    orri_log(&in->logger, ORR_LOG_ERROR, "gpu: %s", in->error.message);
    return code;
}

#define INSTANCE_VK(in, call)                                                                          \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS)                                                              \
            return instance_fail((in), ORR_ERROR_VULKAN, "%s failed: %s", #call,                   \
                                 orri_vk_result_name(vk_result_));                                 \
    } while (0)

static void log_validation(const orr_logger *logger, VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                           const VkDebugUtilsMessengerCallbackDataEXT *data)
{
    orr_log_level level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? ORR_LOG_ERROR : ORR_LOG_WARNING;
    const char *message = data && data->pMessage ? data->pMessage : "(no message)";
    orri_log(logger, level, ORR_GPU_VALIDATION_PREFIX "%s", message);
    if (!logger->log) fprintf(stderr, "orrery: " ORR_GPU_VALIDATION_PREFIX "%s\n", message);
}

/* A renderer's messenger: while it lives, it hears every message of its instance (another renderer's
 * too, on that renderer's thread). */
static VKAPI_ATTR VkBool32 VKAPI_CALL renderer_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                       VkDebugUtilsMessageTypeFlagsEXT types,
                                                       const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    orr_renderer *r = user;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        atomic_fetch_add(&r->validation_messages, 1);
        log_validation(&r->logger, severity, data);
    }
    return VK_FALSE;
}

/* The instance's messenger (and the one vkCreateInstance / vkDestroyInstance report through). */
static VKAPI_ATTR VkBool32 VKAPI_CALL instance_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                       VkDebugUtilsMessageTypeFlagsEXT types,
                                                       const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    orr_vulkan_instance *in = user;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        atomic_fetch_add(&in->messages, 1);
        if (atomic_load(&in->listening) == 0) {
            atomic_fetch_add(&in->unheard, 1);
            log_validation(&in->logger, severity, data);
        }
    }
    return VK_FALSE;
}

static VkDebugUtilsMessengerCreateInfoEXT messenger_info(PFN_vkDebugUtilsMessengerCallbackEXT callback, void *user)
{
    return (VkDebugUtilsMessengerCreateInfoEXT){
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = callback,
        .pUserData = user,
    };
}

static bool has_layer(const VkLayerProperties *layers, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(layers[i].layerName, name) == 0) return true;
    return false;
}

static bool has_extension(const VkExtensionProperties *ext, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ext[i].extensionName, name) == 0) return true;
    return false;
}

static orr_result create_instance_with(orr_vulkan_instance *in, const orr_vulkan_instance_desc *desc, bool features,
                                       const char *const *exts_on, uint32_t ext_count)
{
    bool validation = desc->validation;
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validation) {
        uint32_t n = 0;
        INSTANCE_VK(in, vkEnumerateInstanceLayerProperties(&n, NULL));
        VkLayerProperties *layers = orri_alloc(&in->allocator, sizeof *layers * (n ? n : 1));
        if (!layers) return instance_fail(in, ORR_ERROR_OUT_OF_MEMORY, "out of memory listing Vulkan layers");
        VkResult res = vkEnumerateInstanceLayerProperties(&n, layers);
        bool found = res == VK_SUCCESS && has_layer(layers, n, layer);
        orri_free(&in->allocator, layers, sizeof *layers * (n ? n : 1));
        if (!found)
            return instance_fail(in, ORR_ERROR_UNSUPPORTED,
                                 "validation asked for, but VK_LAYER_KHRONOS_validation is not installed "
                                 "(Debian: vulkan-validationlayers)");
        uint32_t en = 0;
        INSTANCE_VK(in, vkEnumerateInstanceExtensionProperties(layer, &en, NULL));
        VkExtensionProperties *exts = orri_alloc(&in->allocator, sizeof *exts * (en ? en : 1));
        if (!exts) return instance_fail(in, ORR_ERROR_OUT_OF_MEMORY, "out of memory listing Vulkan extensions");
        res = vkEnumerateInstanceExtensionProperties(layer, &en, exts);
        found = res == VK_SUCCESS && has_extension(exts, en, ext);
        bool have_features = res == VK_SUCCESS && has_extension(exts, en, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        orri_free(&in->allocator, exts, sizeof *exts * (en ? en : 1));
        if (features && !have_features)
            return instance_fail(in, ORR_ERROR_UNSUPPORTED, "synchronization or best-practices validation asked for, but "
                                                            "the validation layer lacks %s",
                                 VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        if (!found) {
            uint32_t gn = 0;
            INSTANCE_VK(in, vkEnumerateInstanceExtensionProperties(NULL, &gn, NULL));
            exts = orri_alloc(&in->allocator, sizeof *exts * (gn ? gn : 1));
            if (!exts) return instance_fail(in, ORR_ERROR_OUT_OF_MEMORY, "out of memory listing Vulkan extensions");
            res = vkEnumerateInstanceExtensionProperties(NULL, &gn, exts);
            found = res == VK_SUCCESS && has_extension(exts, gn, ext);
            orri_free(&in->allocator, exts, sizeof *exts * (gn ? gn : 1));
        }
        if (!found) return instance_fail(in, ORR_ERROR_UNSUPPORTED, "validation asked for, but %s is missing", ext);
    }
    uint32_t api = 0;
    if (vkEnumerateInstanceVersion(&api) != VK_SUCCESS || api < VK_API_VERSION_1_3)
        return instance_fail(in, ORR_ERROR_NO_DEVICE, "no Vulkan device: the Vulkan loader offers %u.%u, Orrery needs 1.3",
                             VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "orrery",
        .pEngineName = "orrery",
        .engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkDebugUtilsMessengerCreateInfoEXT mi = messenger_info(instance_message, in);
    VkValidationFeatureEnableEXT enables[2];
    uint32_t enable_count = 0;
    if (desc->validate_synchronization) enables[enable_count++] = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    if (desc->validate_best_practices) enables[enable_count++] = VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT;
    VkValidationFeaturesEXT vf = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .pNext = &mi,
        .enabledValidationFeatureCount = enable_count,
        .pEnabledValidationFeatures = enables,
    };
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = features ? (const void *)&vf : validation ? (const void *)&mi : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = exts_on,
    };
    VkResult res = vkCreateInstance(&ci, NULL, &in->vk);
    if (res == VK_ERROR_INCOMPATIBLE_DRIVER)
        return instance_fail(in, ORR_ERROR_NO_DEVICE,
                             "no Vulkan device: vkCreateInstance found no driver (install a Vulkan driver; on a CPU "
                             "machine Debian's mesa-vulkan-drivers gives lavapipe)");
    if (res == VK_ERROR_EXTENSION_NOT_PRESENT)
        return instance_fail(in, ORR_ERROR_UNSUPPORTED, "vkCreateInstance: an instance extension asked for (%u from the "
                                                        "host) is not present", desc->instance_extension_count);
    if (res != VK_SUCCESS)
        return instance_fail(in, ORR_ERROR_VULKAN, "vkCreateInstance failed: %s", orri_vk_result_name(res));
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(in->vk, "vkCreateDebugUtilsMessengerEXT");
        if (!create) return instance_fail(in, ORR_ERROR_UNSUPPORTED, "vkCreateDebugUtilsMessengerEXT is missing");
        INSTANCE_VK(in, create(in->vk, &mi, NULL, &in->messenger));
    }
    uint32_t n = 0;
    res = vkEnumeratePhysicalDevices(in->vk, &n, NULL);
    if (res != VK_SUCCESS)
        return instance_fail(in, ORR_ERROR_NO_DEVICE, "no Vulkan device: vkEnumeratePhysicalDevices failed: %s",
                             orri_vk_result_name(res));
    if (n == 0)
        return instance_fail(in, ORR_ERROR_NO_DEVICE,
                             "no Vulkan device: the loader lists none (on a CPU machine install mesa-vulkan-drivers "
                             "for lavapipe)");
    n = n < 16 ? n : 16;
    res = vkEnumeratePhysicalDevices(in->vk, &n, in->physical);
    if (res != VK_SUCCESS && res != VK_INCOMPLETE)
        return instance_fail(in, ORR_ERROR_NO_DEVICE, "no Vulkan device: vkEnumeratePhysicalDevices failed: %s",
                             orri_vk_result_name(res));
    in->physical_count = n;
    return ORR_OK;
}

static orr_result instance_init(orr_vulkan_instance *in, const orr_vulkan_instance_desc *desc)
{
    bool features = desc->validation && (desc->validate_synchronization || desc->validate_best_practices);
    in->validation = desc->validation;
    /* the layer's extensions, then the host's (a window system's surface extensions) */
    ORRI_ASSERT(!desc->instance_extension_count || desc->instance_extensions,
                "orr_vulkan_instance_desc: instance_extension_count without instance_extensions");
    size_t exts_size = sizeof(const char *) * (2 + (size_t)desc->instance_extension_count);
    const char **exts_on = orri_alloc(&in->allocator, exts_size);
    if (!exts_on) return instance_fail(in, ORR_ERROR_OUT_OF_MEMORY, "out of memory for instance extensions");
    uint32_t ext_count = 0;
    if (desc->validation) exts_on[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (features) exts_on[ext_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    for (uint32_t i = 0; i < desc->instance_extension_count; i++) exts_on[ext_count++] = desc->instance_extensions[i];
    in->presentation = desc->instance_extension_count > 0;
    orr_result rc = create_instance_with(in, desc, features, exts_on, ext_count);
    orri_free(&in->allocator, exts_on, exts_size);
    return rc;
}

static void instance_fini(orr_vulkan_instance *in)
{
    if (in->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(in->vk, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy) destroy(in->vk, in->messenger, NULL);
        in->messenger = VK_NULL_HANDLE;
    }
    if (in->vk) vkDestroyInstance(in->vk, NULL);
    in->vk = VK_NULL_HANDLE;
}

orr_result orr_vulkan_instance_create(const orr_vulkan_instance_desc *desc, orr_vulkan_instance **out, orr_error *err)
{
    static const orr_vulkan_instance_desc defaults = {0};
    if (!out) return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "orr_vulkan_instance_create: out is NULL");
    *out = NULL;
    if (!desc) desc = &defaults;
    orr_allocator a = orri_allocator_or_default(&desc->allocator);
    orr_vulkan_instance *in = orri_alloc(&a, sizeof *in);
    if (!in) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_vulkan_instance_create: out of memory");
    in->allocator = a;
    in->logger = desc->logger;
    orr_result rc = instance_init(in, desc);
    if (rc != ORR_OK) {
        if (err) *err = in->error;
        orr_vulkan_instance_destroy(in);
        return rc;
    }
    *out = in;
    return ORR_OK;
}

void orr_vulkan_instance_destroy(orr_vulkan_instance *in)
{
    if (!in) return;
    uint32_t alive = atomic_load(&in->renderers);
    ORRI_ASSERT(alive == 0, "orr_vulkan_instance_destroy: %u renderer(s) made with this instance are still alive "
                            "(destroy every renderer first)", alive);
    (void)alive;
    instance_fini(in);
    orr_allocator a = in->allocator;
    orri_free(&a, in, sizeof *in);
}

uint32_t orr_vulkan_instance_validation_messages(const orr_vulkan_instance *in)
{
    return in ? atomic_load(&((orr_vulkan_instance *)in)->messages) : 0;
}

VkInstance orr_vulkan_instance_vk(const orr_vulkan_instance *in) { return in->vk; }

uint32_t orr_renderer_validation_messages(const orr_renderer *r)
{
    /* a renderer's own instance reports its creation and destruction to the renderer's logger too */
    uint32_t own = r->owns_instance && r->vulkan ? atomic_load(&r->vulkan->unheard) : 0;
    return atomic_load(&((orr_renderer *)r)->validation_messages) + own;
}

/* The instance the renderer draws through: the host's (desc->instance), or one of its own made from
 * the desc's instance settings. */
static orr_result renderer_instance(orr_renderer *r, const orr_renderer_desc *desc)
{
    orr_vulkan_instance *in = desc->vulkan_instance;
    if (in) {
        ORRI_ASSERT(!desc->validation && !desc->validate_synchronization && !desc->validate_best_practices &&
                        !desc->instance_extension_count,
                    "orr_renderer_desc: validation and instance_extensions are the shared instance's "
                    "(orr_vulkan_instance_desc) when desc.vulkan_instance is set; leave them zero here");
    } else {
        in = orri_alloc(&r->allocator, sizeof *in);
        if (!in) return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the Vulkan instance");
        in->allocator = r->allocator;
        in->logger = r->logger;
        r->owns_instance = true;
    }
    r->vulkan = in;
    atomic_fetch_add(&in->renderers, 1);
    if (r->owns_instance) {
        orr_vulkan_instance_desc id = {.validation = desc->validation,
                                    .validate_synchronization = desc->validate_synchronization,
                                    .validate_best_practices = desc->validate_best_practices,
                                    .instance_extensions = desc->instance_extensions,
                                    .instance_extension_count = desc->instance_extension_count};
        if (instance_init(in, &id) != ORR_OK) {
            r->error = in->error; /* already logged, through the same logger */
            return in->error.code;
        }
    }
    r->instance = in->vk;
    r->presentation = in->presentation;
    if (in->validation) {
        VkDebugUtilsMessengerCreateInfoEXT mi = messenger_info(renderer_message, r);
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(in->vk, "vkCreateDebugUtilsMessengerEXT");
        if (!create) return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED, "vkCreateDebugUtilsMessengerEXT is missing");
        ORRI_VK(r, create(in->vk, &mi, NULL, &r->messenger));
        atomic_fetch_add(&in->listening, 1);
    }
    return ORR_OK;
}

/* ---- device choice ----------------------------------------------------------------------- */

/* Why a device cannot be used, or NULL when it can; fills the queue family. */
static bool device_has_extension(VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n) return false;
    VkExtensionProperties *list = malloc(sizeof *list * n);
    if (!list) return false;
    bool found = vkEnumerateDeviceExtensionProperties(pd, NULL, &n, list) == VK_SUCCESS && has_extension(list, n, name);
    free(list);
    return found;
}

static const char *unsuitable(VkPhysicalDevice pd, bool presentation, uint32_t *family, bool *mdi, bool *timestamps)
{
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < VK_API_VERSION_1_3) return "Vulkan 1.3 is not supported";
    if (presentation && !device_has_extension(pd, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) return "no VK_KHR_swapchain";
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f13};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    if (!f13.dynamicRendering) return "no dynamicRendering";
    if (!f13.synchronization2) return "no synchronization2";
    *mdi = f2.features.multiDrawIndirect && props.limits.maxDrawIndirectCount > 1;
    /* indirect commands carry firstInstance = first record */
    if (!f2.features.drawIndirectFirstInstance) return "no drawIndirectFirstInstance";
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(pd, VK_FORMAT_R8G8B8A8_SRGB, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT |
                                VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    if ((fp.optimalTilingFeatures & need) != need) return "R8G8B8A8_SRGB cannot be a blended color attachment";
    vkGetPhysicalDeviceFormatProperties(pd, VK_FORMAT_D32_SFLOAT, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) return "no D32_SFLOAT depth";
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties qf[32];
    if (n > 32) n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, qf);
    for (uint32_t i = 0; i < n; i++) {
        /* compute too: views are culled on the GPU in the same command buffer */
        if ((qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
            qf[i].queueCount > 0) {
            *family = i;
            *timestamps = qf[i].timestampValidBits > 0 && props.limits.timestampPeriod > 0;
            return NULL;
        }
    }
    return "no queue with graphics and compute";
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static orr_result pick_device(orr_renderer *r, const char *prefer)
{
    const VkPhysicalDevice *list = r->vulkan->physical;
    uint32_t n = r->vulkan->physical_count;
    int best = -1, best_rank = 1 << 30;
    char why[400] = "";
    size_t why_len = 0;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(list[i], &props);
        uint32_t family = 0;
        bool mdi = false, timestamps = false;
        const char *no = unsuitable(list[i], r->presentation, &family, &mdi, &timestamps);
        if (no) {
            int w = snprintf(why + why_len, sizeof why - why_len, "%s%s: %s", why_len ? "; " : "", props.deviceName, no);
            if (w > 0 && (size_t)w < sizeof why - why_len) why_len += (size_t)w;
            continue;
        }
        /* Preferred by name first, then discrete > integrated > virtual > CPU, then enumeration order. */
        int rank = type_rank(props.deviceType);
        if (prefer && *prefer && strstr(props.deviceName, prefer)) rank -= 100;
        if (rank < best_rank) {
            best_rank = rank;
            best = (int)i;
            r->queue_family = family;
            r->multi_draw_indirect = mdi;
            r->timestamps = timestamps;
        }
    }
    if (best < 0) return orri_gpu_fail(r, ORR_ERROR_NO_DEVICE, "no suitable Vulkan 1.3 device (%s)", why);
    r->physical = list[best];
    vkGetPhysicalDeviceProperties(r->physical, &r->properties);
    vkGetPhysicalDeviceMemoryProperties(r->physical, &r->memory);
    VkDeviceSize align = ORRI_FRAME_ALIGN;
    const VkPhysicalDeviceLimits *lim = &r->properties.limits;
    if (lim->minUniformBufferOffsetAlignment > align) align = lim->minUniformBufferOffsetAlignment;
    if (lim->minStorageBufferOffsetAlignment > align) align = lim->minStorageBufferOffsetAlignment;
    r->frame_align = align;
    VkPhysicalDeviceFeatures features;
    vkGetPhysicalDeviceFeatures(r->physical, &features);
    r->sampled_image_dynamic_indexing = features.shaderSampledImageArrayDynamicIndexing == VK_TRUE;
    r->sample_counts = lim->framebufferColorSampleCounts & lim->framebufferDepthSampleCounts &
                       (VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_2_BIT | VK_SAMPLE_COUNT_4_BIT | VK_SAMPLE_COUNT_8_BIT);
    (void)orri_meshlets_query(r, r->physical); /* the meshlet strategy's task and mesh shaders */
    return ORR_OK;
}

#ifdef ORRI_PIN_DRIVERS
/* Sanitizer builds only. vkDestroyInstance unloads the driver and layers; what they still hold in
 * their globals then looks leaked to LeakSanitizer, under an <unknown module> no suppression can
 * name. Marking every loaded object RTLD_NODELETE keeps them mapped until exit (no state is kept
 * here: the extra reference is never dropped). */
static int pin_object(struct dl_phdr_info *info, size_t size, void *user)
{
    (void)size;
    (void)user;
    if (info->dlpi_name && info->dlpi_name[0]) (void)dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}
#endif

orr_result orri_device_create(orr_renderer *r, const orr_renderer_desc *desc)
{
    ORRI_TRY(renderer_instance(r, desc));
    ORRI_TRY(pick_device(r, desc->device_name));
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = r->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .dynamicRendering = VK_TRUE,
        .synchronization2 = VK_TRUE,
        .maintenance4 = VK_TRUE, /* required by Vulkan 1.3; glslc's SPIR-V 1.6 sizes workgroups with LocalSizeId */
    };
    if (desc->vertex_capture) { /* the capture's vertex shader writes a storage buffer */
        VkPhysicalDeviceFeatures have;
        vkGetPhysicalDeviceFeatures(r->physical, &have);
        if (!have.vertexPipelineStoresAndAtomics)
            return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED,
                                 "orr_renderer_desc.vertex_capture: the device (%s) has no vertexPipelineStoresAndAtomics",
                                 r->properties.deviceName);
        r->vertex_capture = true;
    }
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &f13,
        .features = {.vertexPipelineStoresAndAtomics = r->vertex_capture ? VK_TRUE : VK_FALSE,
                     .multiDrawIndirect = r->multi_draw_indirect ? VK_TRUE : VK_FALSE,
                     .drawIndirectFirstInstance = VK_TRUE,
                     .shaderSampledImageArrayDynamicIndexing = r->sampled_image_dynamic_indexing ? VK_TRUE : VK_FALSE},
    };
    const char *extensions[2];
    uint32_t extension_count = 0;
    if (r->presentation) extensions[extension_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    /* Mesh shaders for the meshlet strategy, unless its fallback is asked for. */
    VkPhysicalDeviceMeshShaderFeaturesEXT mesh = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT,
                                                  .taskShader = VK_TRUE, .meshShader = VK_TRUE};
    r->meshlets.mesh_shaders = r->meshlets.supported && !desc->meshlet_fallback;
    if (r->meshlets.mesh_shaders) {
        extensions[extension_count++] = VK_EXT_MESH_SHADER_EXTENSION_NAME;
        mesh.pNext = f13.pNext;
        f13.pNext = &mesh;
    }
    VkDeviceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qi,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    VkResult res = vkCreateDevice(r->physical, &ci, NULL, &r->device);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_NO_DEVICE, "no Vulkan device: vkCreateDevice on %s failed: %s",
                             r->properties.deviceName, orri_vk_result_name(res));
    vkGetDeviceQueue(r->device, r->queue_family, 0, &r->queue);
    ORRI_TRY(orri_meshlets_device_ready(r));
#ifdef ORRI_PIN_DRIVERS
    dl_iterate_phdr(pin_object, NULL);
#endif
    return ORR_OK;
}

void orri_device_destroy(orr_renderer *r)
{
    if (r->device) vkDestroyDevice(r->device, NULL);
    r->device = VK_NULL_HANDLE;
    orr_vulkan_instance *in = r->vulkan;
    if (!in) return;
    if (r->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(in->vk, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy) destroy(in->vk, r->messenger, NULL);
        r->messenger = VK_NULL_HANDLE;
        atomic_fetch_sub(&in->listening, 1);
    }
    atomic_fetch_sub(&in->renderers, 1);
    if (r->owns_instance) {
        instance_fini(in);
        orri_free(&r->allocator, in, sizeof *in);
    }
    r->vulkan = NULL;
    r->instance = VK_NULL_HANDLE;
}

/* ---- buffers and images (their memory: gpu_memory.c) ------------------------------------------ */

/* A memory block of its own: where the driver requires one, or prefers one for a resource of 1 MiB or
 * more (smaller ones share blocks: a small allocation of its own is what the best-practices layer
 * warns about, and what drivers allow few of). */
static bool dedicated(const VkMemoryDedicatedRequirements *dr, VkDeviceSize size)
{
    return dr->requiresDedicatedAllocation || (dr->prefersDedicatedAllocation && size >= ((VkDeviceSize)1 << 20));
}

orr_result orri_buffer_create(orr_renderer *r, VkDeviceSize size, VkBufferUsageFlags usage, bool host,
                              const char *what, orri_buffer *out)
{
    memset(out, 0, sizeof *out);
    r->objects_epoch++;
    if (size == 0) size = 16;
    VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult res = vkCreateBuffer(r->device, &bi, NULL, &out->buffer);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateBuffer (%s) failed: %s", what, orri_vk_result_name(res));
    VkMemoryDedicatedRequirements dr = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &dr};
    VkBufferMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2, .buffer = out->buffer};
    vkGetBufferMemoryRequirements2(r->device, &ri, &req);
    orri_memory_request mr = {.requirements = req.memoryRequirements,
                              .kind = host ? ORRI_MEMORY_HOST : ORRI_MEMORY_DEVICE_LINEAR,
                              .dedicated = dedicated(&dr, req.memoryRequirements.size),
                              .buffer = out->buffer,
                              .what = what};
    orr_result rc = orri_memory_alloc(r, &mr, &out->memory, &out->map);
    if (rc == ORR_OK) {
        res = vkBindBufferMemory(r->device, out->buffer, orri_memory_handle(r, &out->memory), out->memory.offset);
        if (res != VK_SUCCESS)
            rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkBindBufferMemory (%s) failed: %s", what, orri_vk_result_name(res));
    }
    if (rc != ORR_OK) {
        orri_buffer_destroy(r, out);
        return rc;
    }
    out->size = size;
    return ORR_OK;
}

void orri_buffer_destroy(orr_renderer *r, orri_buffer *b)
{
    if (b->buffer) r->objects_epoch++;
    if (b->buffer) vkDestroyBuffer(r->device, b->buffer, NULL);
    orri_memory_free(r, &b->memory);
    memset(b, 0, sizeof *b);
}

orr_result orri_image_create(orr_renderer *r, uint32_t width, uint32_t height, VkFormat format,
                             VkImageUsageFlags usage, VkImageAspectFlags aspect, const char *what, orri_image *out)
{
    return orri_image_create_desc(r, &(orri_image_desc){.width = width, .height = height, .format = format,
                                                         .usage = usage, .aspect = aspect, .what = what},
                                  out);
}

orr_result orri_image_create_levels(orr_renderer *r, uint32_t width, uint32_t height, uint32_t levels, VkFormat format,
                                    VkImageUsageFlags usage, VkImageAspectFlags aspect, const char *what,
                                    orri_image *out)
{
    return orri_image_create_desc(r, &(orri_image_desc){.width = width, .height = height, .levels = levels,
                                                         .format = format, .usage = usage, .aspect = aspect, .what = what},
                                  out);
}

orr_result orri_image_create_desc(orr_renderer *r, const orri_image_desc *d, orri_image *out)
{
    r->objects_epoch++;
    memset(out, 0, sizeof *out);
    uint32_t levels = d->levels ? d->levels : 1;
    VkSampleCountFlagBits samples = d->samples ? d->samples : VK_SAMPLE_COUNT_1_BIT;
    VkImageCreateInfo ii = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = d->format,
        .extent = {d->width, d->height, 1},
        .mipLevels = levels,
        .arrayLayers = 1,
        .samples = samples,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = d->usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VkResult res = vkCreateImage(r->device, &ii, NULL, &out->image);
    if (res != VK_SUCCESS)
        return orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateImage (%s, %ux%u) failed: %s", d->what, d->width, d->height,
                             orri_vk_result_name(res));
    VkMemoryDedicatedRequirements dr = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &dr};
    VkImageMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, .image = out->image};
    vkGetImageMemoryRequirements2(r->device, &ri, &req);
    orri_memory_request mr = {.requirements = req.memoryRequirements,
                              .kind = ORRI_MEMORY_DEVICE_OPTIMAL,
                              .dedicated = dedicated(&dr, req.memoryRequirements.size),
                              .image = out->image,
                              .what = d->what};
    orr_result rc = orri_memory_alloc(r, &mr, &out->memory, NULL);
    if (rc == ORR_OK) {
        res = vkBindImageMemory(r->device, out->image, orri_memory_handle(r, &out->memory), out->memory.offset);
        if (res != VK_SUCCESS)
            rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkBindImageMemory (%s) failed: %s", d->what, orri_vk_result_name(res));
    }
    if (rc == ORR_OK) {
        VkImageViewCreateInfo vi = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = out->image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = d->format,
            .subresourceRange = {d->aspect, 0, levels, 0, 1},
        };
        res = vkCreateImageView(r->device, &vi, NULL, &out->view);
        if (res != VK_SUCCESS)
            rc = orri_gpu_fail(r, ORR_ERROR_VULKAN, "vkCreateImageView (%s) failed: %s", d->what, orri_vk_result_name(res));
    }
    if (rc != ORR_OK) {
        orri_image_destroy(r, out);
        return rc;
    }
    out->width = d->width;
    out->height = d->height;
    out->levels = levels;
    out->samples = samples;
    return ORR_OK;
}

void orri_image_destroy(orr_renderer *r, orri_image *img)
{
    if (img->image) r->objects_epoch++;
    if (img->view) vkDestroyImageView(r->device, img->view, NULL);
    if (img->image) vkDestroyImage(r->device, img->image, NULL);
    orri_memory_free(r, &img->memory);
    memset(img, 0, sizeof *img);
}

/* ---- barriers ------------------------------------------------------------------------------ */

void orri_barrier_levels(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, uint32_t levels,
                         VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                         VkAccessFlags2 dst_access, VkImageLayout from, VkImageLayout to)
{
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {aspect, 0, levels, 0, 1},
    };
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 1, .pImageMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

void orri_barrier_image(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkPipelineStageFlags2 src_stage,
                        VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access,
                        VkImageLayout from, VkImageLayout to)
{
    orri_barrier_levels(cmd, image, aspect, 1, src_stage, src_access, dst_stage, dst_access, from, to);
}

void orri_barrier_memory(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                         VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                          .srcStageMask = src_stage,
                          .srcAccessMask = src_access,
                          .dstStageMask = dst_stage,
                          .dstAccessMask = dst_access};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

/* ---- deferred destruction ---------------------------------------------------------------- */

static void destroy_garbage(orr_renderer *r, orri_garbage *g)
{
    orri_buffer_destroy(r, &g->buffer);
    orri_image_destroy(r, &g->image);
    if (g->set) {
        ORRI_VK_LOG(r, vkFreeDescriptorSets(r->device, g->pool, 1, &g->set));
        r->objects_epoch++;
    }
    g->set = VK_NULL_HANDLE;
}

orr_result orri_garbage_reserve(orr_renderer *r, uint32_t count)
{
    if (!ORRI_GROW(&r->allocator, r->garbage, r->garbage_capacity, r->garbage_count + count))
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the deferred-destruction queue");
    return ORR_OK;
}

static orr_result retire(orr_renderer *r, orri_garbage g)
{
    if (g.last_use == 0 || !r->device) { /* never used by a submitted frame: destroy now */
        destroy_garbage(r, &g);
        return ORR_OK;
    }
    if (!ORRI_GROW(&r->allocator, r->garbage, r->garbage_capacity, r->garbage_count + 1)) {
        /* Out of memory for the queue: wait for the GPU instead of leaking. */
        ORRI_VK_LOG(r, vkDeviceWaitIdle(r->device));
        destroy_garbage(r, &g);
        return orri_gpu_fail(r, ORR_ERROR_OUT_OF_MEMORY, "out of memory for the deferred-destruction queue");
    }
    r->garbage[r->garbage_count++] = g;
    return ORR_OK;
}

orr_result orri_retire_buffer(orr_renderer *r, orri_buffer *b, uint64_t last_use)
{
    if (!b->buffer && !b->memory.block) return ORR_OK;
    orri_garbage g = {.last_use = last_use, .buffer = *b};
    memset(b, 0, sizeof *b);
    return retire(r, g);
}

orr_result orri_retire_image(orr_renderer *r, orri_image *img, uint64_t last_use)
{
    if (!img->image && !img->memory.block) return ORR_OK;
    orri_garbage g = {.last_use = last_use, .image = *img};
    memset(img, 0, sizeof *img);
    return retire(r, g);
}

orr_result orri_retire_set(orr_renderer *r, VkDescriptorPool pool, VkDescriptorSet set, uint64_t last_use)
{
    if (!set) return ORR_OK;
    orri_garbage g = {.last_use = last_use, .pool = pool, .set = set};
    return retire(r, g);
}

void orri_collect_garbage(orr_renderer *r, uint64_t completed)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r->garbage_count; i++) {
        orri_garbage *g = &r->garbage[i];
        if (g->last_use <= completed) {
            destroy_garbage(r, g);
        } else {
            r->garbage[kept++] = *g;
        }
    }
    r->garbage_count = kept;
}
