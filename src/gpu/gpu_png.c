/* orr_write_png through stb_image_write (libstb carries the implementation). */
#include "gpu/gpu_internal.h"

#include <errno.h>
#include <string.h>
#include <stb/stb_image_write.h>

orr_result orr_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, orr_error *err)
{
    if (!path || !rgba || width == 0 || height == 0 || width > (uint32_t)INT32_MAX / 4 || height > (uint32_t)INT32_MAX)
        return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "orr_write_png: path, pixels and a non-empty size are needed");
    errno = 0;
    if (!stbi_write_png(path, (int)width, (int)height, 4, rgba, (int)(width * 4)))
        return orri_error(err, ORR_ERROR_IO, "%s: cannot write PNG%s%s", path, errno ? ": " : "", errno ? strerror(errno) : "");
    return ORR_OK;
}
