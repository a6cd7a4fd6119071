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
    up->bytes += size;
    if (up->cmd) {
        VkBufferCopy region = {src, dst_offset, size};
        vkCmdCopyBuffer(up->cmd, up->frame->data.buffer, dst, 1, &region);
        return;
    }
    orr_renderer *r = up->r;
    if (!ORRI_GROW(&r->allocator, r->upload_ops, r->upload_op_capacity, up->op_count + 1)) {
        up->out_of_memory = true;
        return;
    }
    r->upload_ops[up->op_count++] = (orri_upload_op){src, dst, dst_offset, size};
}

orr_result orri_upload_begin(orr_renderer *r, orri_upload *up)
{
    if (up->cmd) return ORR_OK;
    orri_frame *f = up->frame;
    uint32_t slot = (uint32_t)(f - r->frames);
    f->upload_valid = false; /* whatever it held is gone */
    ORRI_VK(r, vkResetCommandPool(r->device, f->pool, 0)); /* its fence was waited for in plan_frame */
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}; /* may be submitted again */
    ORRI_VK(r, vkBeginCommandBuffer(f->cmd, &bi));
    up->cmd = f->cmd;
    if (r->queries) {
        vkCmdResetQueryPool(up->cmd, r->queries, slot * ORRI_QUERIES_PER_FRAME, ORRI_QUERIES_PER_FRAME);
        vkCmdWriteTimestamp2(up->cmd, VK_PIPELINE_STAGE_2_NONE, r->queries, slot * ORRI_QUERIES_PER_FRAME);
    }
    /* Earlier frames' reads and writes of the scene buffers come before this frame's copies and culls
     * (the stages that touch them, named: the best-practices layer asks for no ALL_COMMANDS here). */
    orri_barrier_memory(up->cmd, up->before, VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT |
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    for (uint32_t k = 0; k < up->op_count; k++) { /* the copies listed so far, in their order */
        const orri_upload_op *op = &r->upload_ops[k];
        vkCmdCopyBuffer(up->cmd, f->data.buffer, op->dst, 1, &(VkBufferCopy){op->src, op->dst_offset, op->size});
    }
    return ORR_OK;
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
    if (committed && buf->buffer) ORRI_TRY(orri_upload_begin(r, up)); /* (before the new buffer: nothing to undo) */
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
