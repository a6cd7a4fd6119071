/* Device (gpu_device.c): the Vulkan instance, validation messengers, the device chosen, its features
 * and queue. */
#ifndef ORRERY_GPU_DEVICE_H
#define ORRERY_GPU_DEVICE_H

#include "gpu/gpu_state.h"

orr_result orri_device_create(orr_renderer *r, const orr_renderer_desc *desc);
void orri_device_destroy(orr_renderer *r);
#endif
