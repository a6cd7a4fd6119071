/* A target's images at its size: the colour image, the multisampled one it resolves, and a texture
 * target's sampled copy. */
#include "gpu/gpu_target_image.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_resource.h"
#include "gpu/gpu_texture_target.h"

#define COLOR_FORMAT ORRI_COLOR_FORMAT

/* The colour image (and the multisampled one it resolves, where the target has samples) at a size. */
orr_result orri_target_set_size(orr_renderer *r, orri_target *t, uint32_t width, uint32_t height)
{
    if (t->color.image && t->desc.width == width && t->desc.height == height) return ORR_OK;
    ORRI_TRY(orri_garbage_reserve(r, 3 + ORRI_FRAMES_IN_FLIGHT));
    orri_retire_image(r, &t->color, r->frame_number);
    orri_retire_image(r, &t->msaa, r->frame_number);
    orri_retire_image(r, &t->sampled, r->frame_number);
    for (uint32_t i = 0; i < ORRI_FRAMES_IN_FLIGHT; i++) orri_retire_buffer(r, &t->readback[i], r->frame_number);
    t->read_last = false;
    t->desc.width = width;
    t->desc.height = height;
    /* a texture target's image is sampled by materials: what showed the old one is released */
    if (t->desc.texture_key) ORRI_TRY(orri_texture_target_changed(r, t));
    ORRI_TRY(orri_image_create(r, width, height, COLOR_FORMAT,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                   VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT /* techniques */,
                               VK_IMAGE_ASPECT_COLOR_BIT, "target color", &t->color));
    if (t->desc.texture_key)
        ORRI_TRY(orri_image_create(r, width, height, COLOR_FORMAT,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                   VK_IMAGE_ASPECT_COLOR_BIT, "texture target (sampled)", &t->sampled));
    if (t->samples <= VK_SAMPLE_COUNT_1_BIT) return ORR_OK;
    return orri_image_create_desc(r,
                                  &(orri_image_desc){.width = width, .height = height, .samples = t->samples,
                                                     .format = COLOR_FORMAT,
                                                     .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                              VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                                     .aspect = VK_IMAGE_ASPECT_COLOR_BIT,
                                                     .what = "target color (multisampled)"},
                                  &t->msaa);
}
