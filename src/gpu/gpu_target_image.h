/* A target's images (gpu_target_image.c). */
#ifndef ORRERY_GPU_TARGET_IMAGE_H
#define ORRERY_GPU_TARGET_IMAGE_H

#include "gpu/gpu_state.h"

/* Remakes the target's colour image at a new size (the old one retired after the frames in flight);
 * readback buffers are remade when next asked for. */
orr_result orri_target_set_size(orr_renderer *r, orri_target *t, uint32_t width, uint32_t height);
#endif
