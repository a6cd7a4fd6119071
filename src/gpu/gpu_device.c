/* Device: the Vulkan instance (orr_vulkan_instance: shared, or the renderer's own), validation
 * messengers, device choice, its features (the mesh shaders the meshlet strategy draws with) and queue. */
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

#include "gpu/gpu_device.h"
#include "gpu/gpu_error.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSTANCE_VK(in, call)                                                                          \
    do {                                                                                           \
        VkResult vk_result_ = (call);                                                              \
        if (vk_result_ != VK_SUCCESS)                                                              \
            return instance_fail((in), ORR_ERROR_VULKAN, "%s failed: %s", #call,                   \
                                 orri_vk_result_name(vk_result_));                                 \
    } while (0)
#define PAYLOAD_BYTES (4u * (2u + ORR_GPU_MESHLET_TASK_THREADS)) /* meshlet_payload.glsl */

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

/* The meshlet strategy's task and mesh shaders: whether `pd` has what they need (the limits kept
 * when it has), and their entry points once the device is made. */
static bool query_mesh_shaders(orr_renderer *r, VkPhysicalDevice pd)
{
    orri_meshlets *ml = &r->meshlets;
    ml->supported = false;
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n) return false;
    VkExtensionProperties *list = orri_alloc(&r->allocator, sizeof *list * n);
    if (!list) return false;
    bool found = false;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, list) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(list[i].extensionName, VK_EXT_MESH_SHADER_EXTENSION_NAME);
    orri_free(&r->allocator, list, sizeof *list * n);
    if (!found) return false;
    VkPhysicalDeviceMeshShaderFeaturesEXT mf = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &mf};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    VkPhysicalDeviceMeshShaderPropertiesEXT mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &mp};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    uint32_t threads = ORR_GPU_MESHLET_TASK_THREADS;
    ml->supported = mf.taskShader && mf.meshShader && mp.maxMeshOutputVertices >= ORR_MESHLET_MAX_VERTICES &&
                    mp.maxMeshOutputPrimitives >= ORR_MESHLET_MAX_TRIANGLES && mp.maxTaskWorkGroupInvocations >= threads &&
                    mp.maxTaskWorkGroupSize[0] >= threads && mp.maxMeshWorkGroupInvocations >= threads &&
                    mp.maxMeshWorkGroupSize[0] >= threads && mp.maxMeshWorkGroupCount[0] >= threads &&
                    mp.maxTaskPayloadSize >= PAYLOAD_BYTES && mp.maxTaskWorkGroupCount[0] > 0 &&
                    mp.maxTaskWorkGroupTotalCount > 0;
    ml->max_mesh_vertices = mp.maxMeshOutputVertices;
    ml->max_mesh_primitives = mp.maxMeshOutputPrimitives;
    ml->max_mesh_invocations = mp.maxMeshWorkGroupInvocations;
    ml->max_task_invocations = mp.maxTaskWorkGroupInvocations;
    ml->max_task_total = mp.maxTaskWorkGroupTotalCount;
    ml->max_mesh_total = mp.maxMeshWorkGroupTotalCount;
    ml->max_task_groups = mp.maxTaskWorkGroupCount[0] < mp.maxTaskWorkGroupTotalCount ? mp.maxTaskWorkGroupCount[0]
                                                                                     : mp.maxTaskWorkGroupTotalCount;
    return ml->supported;
}

static orr_result mesh_shaders_ready(orr_renderer *r)
{
    orri_meshlets *ml = &r->meshlets;
    if (!ml->mesh_shaders) return ORR_OK;
    ml->draw_mesh_tasks_indirect =
        (PFN_vkCmdDrawMeshTasksIndirectEXT)vkGetDeviceProcAddr(r->device, "vkCmdDrawMeshTasksIndirectEXT");
    ml->draw_mesh_tasks = (PFN_vkCmdDrawMeshTasksEXT)vkGetDeviceProcAddr(r->device, "vkCmdDrawMeshTasksEXT");
    if (!ml->draw_mesh_tasks_indirect || !ml->draw_mesh_tasks)
        return orri_gpu_fail(r, ORR_ERROR_UNSUPPORTED, "%s: VK_EXT_mesh_shader is enabled but vkCmdDrawMeshTasks%sEXT "
                                                       "is missing", r->properties.deviceName,
                             ml->draw_mesh_tasks ? "Indirect" : "");
    return ORR_OK;
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
    r->shadows.depth_clamp = features.depthClamp == VK_TRUE; /* shadow views (gpu_shadow.c) */
    r->fill_mode_non_solid = features.fillModeNonSolid == VK_TRUE; /* techniques' edges (technique.h) */
    r->sample_counts = lim->framebufferColorSampleCounts & lim->framebufferDepthSampleCounts &
                       (VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_2_BIT | VK_SAMPLE_COUNT_4_BIT | VK_SAMPLE_COUNT_8_BIT);
    (void)query_mesh_shaders(r, r->physical); /* the meshlet strategy's task and mesh shaders */
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
                     .depthClamp = r->shadows.depth_clamp ? VK_TRUE : VK_FALSE,
                     .fillModeNonSolid = r->fill_mode_non_solid ? VK_TRUE : VK_FALSE,
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
    ORRI_TRY(mesh_shaders_ready(r));
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
