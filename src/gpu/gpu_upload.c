/* Staging: space in a frame's host buffer, the copies out of it, and the pools (geometry, meshlets)
 * grown with what earlier frames wrote copied over. */
#include "gpu/gpu_upload.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_resource.h"

#include <string.h>

#define MIN_POOL_UNITS 4096u

orr_result orri_frame_alloc(orr_renderer *r, orri_frame *frame, VkDeviceSize size, VkDeviceSize *offset)
{
    VkDeviceSize off = (frame->data_used + r->frame_align - 1) / r->frame_align * r->frame_align;
    if (off + size > frame->data.size)
        return orri_gpu_fail(r, ORR_ERROR_CAPACITY, "frame buffer overflow (%llu + %llu > %llu bytes): sizing bug",
                             (unsigned long long)off, (unsigned long long)size, (unsigned long long)frame->data.size);
    frame->data_used = off + size;
    *offset = off;
    return ORR_OK;
}

void orri_upload_copy(orri_upload *up, VkDeviceSize src, VkBuffer dst, VkDeviceSize dst_offset, VkDeviceSize size)
{
    if (!size) return;
    VkBufferCopy region = {src, dst_offset, size};
    vkCmdCopyBuffer(up->cmd, up->frame->data.buffer, dst, 1, &region);
    up->bytes += size;
}

/* Makes the pool buffer hold `need` units, copying the `committed` ones earlier frames wrote. The old
 * buffer is kept in `replaced` until the frame is submitted (then retired) or fails (then it is the
 * pool again: the copy out of it never ran). */
orr_result orri_pool_reserve(orr_renderer *r, orri_upload *up, orri_buffer *buf, orri_buffer *replaced,
                             uint64_t committed, uint64_t need, uint64_t unit, VkBufferUsageFlags usage,
                             const char *what)
{
    if (need * unit <= buf->size && buf->buffer) return ORR_OK;
    ORRI_ASSERT(!replaced->buffer, "orri_pool_reserve: %s grown twice in one frame", what);
    uint64_t size = buf->size ? buf->size : MIN_POOL_UNITS * unit;
    while (size < need * unit) size *= 2;
    orri_buffer fresh;
    ORRI_TRY(orri_buffer_create(r, size, usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                false, what, &fresh));
    if (committed && buf->buffer) {
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = committed * unit};
        vkCmdCopyBuffer(up->cmd, buf->buffer, fresh.buffer, 1, &region);
    }
    *replaced = *buf;
    *buf = fresh;
    return ORR_OK;
}
