/* orr_gpu_write_png: stb_image_write (libstb carries the implementation) encodes, and the I/O is ours so
 * that every write, the sync and the close are checked and a failed write never leaves a truncated
 * file under the requested name. */
#include "gpu/gpu_state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stb/stb_image_write.h>

/* Where the encoder's bytes go: a file descriptor, and the first failure. */
typedef struct png_sink {
    int fd;
    int error; /* errno of the first failed write; 0 = none */
} png_sink;

static void sink_write(void *context, void *data, int size)
{
    png_sink *s = context;
    const uint8_t *p = data;
    size_t left = size > 0 ? (size_t)size : 0;
    while (left && !s->error) {
        ssize_t n = write(s->fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            s->error = n < 0 ? errno : EIO;
            break;
        }
        p += n, left -= (size_t)n;
    }
}

static orr_result io_error(orr_error *err, const char *path, int e)
{
    return orri_error(err, ORR_ERROR_IO, "%s: cannot write PNG: %s", path, strerror(e));
}

/* Encodes into the sink; false with s->error set (ENOMEM when the encoder itself failed). */
static bool encode(png_sink *s, uint32_t width, uint32_t height, const uint8_t *rgba)
{
    if (!stbi_write_png_to_func(sink_write, s, (int)width, (int)height, 4, rgba, (int)(width * 4)) && !s->error)
        s->error = ENOMEM;
    return !s->error;
}

orr_result orr_gpu_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, orr_error *err)
{
    if (!path || !*path || !rgba || width == 0 || height == 0 || width > (uint32_t)INT32_MAX / 4 ||
        height > (uint32_t)INT32_MAX)
        return orri_error(err, ORR_ERROR_INVALID_ARGUMENT, "orr_gpu_write_png: path, pixels and a non-empty size are needed");
    /* A symlink is written through: the file it names is replaced, not the link. */
    char real[PATH_MAX];
    const char *dest = path;
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real)) dest = real;
    /* Something that is not a regular file (a device such as /dev/full, a pipe) cannot be replaced:
     * it is written in place, every write and the close checked. */
    if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) return io_error(err, path, EISDIR);
        png_sink s = {.fd = open(dest, O_WRONLY | O_CLOEXEC)};
        if (s.fd < 0) return io_error(err, path, errno);
        bool ok = encode(&s, width, height, rgba);
        if (close(s.fd) != 0 && ok) s.error = errno, ok = false;
        return ok ? ORR_OK : io_error(err, path, s.error);
    }
    /* An existing file the user may not write is not replaced, though the folder would let a rename
     * do it: its mode says so (root too: a file without any write bit is read-only to everyone). */
    bool existing = stat(dest, &st) == 0;
    if (existing && (access(dest, W_OK) != 0 || (geteuid() == 0 && !(st.st_mode & 0222))))
        return orri_error(err, ORR_ERROR_IO, "%s: cannot write PNG: the file is read-only (mode %04o): refusing to "
                          "replace it", path, (unsigned)(st.st_mode & 07777));
    /* A regular file (or none yet): write a temporary file beside it, sync, then rename over the
     * requested name, so that the name holds either the old file or the whole new one. The temporary
     * name is unique by process id and attempt (O_EXCL), with no state kept between calls. The new
     * file keeps an existing one's permission bits (and owner and group, where the user may set them). */
    char tmp[PATH_MAX + 64];
    png_sink s = {.fd = -1};
    for (unsigned attempt = 0; attempt < 1000 && s.fd < 0; attempt++) {
        if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld-%u.tmp", dest, (long)getpid(), attempt) >= sizeof tmp)
            return io_error(err, path, ENAMETOOLONG);
        s.fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (s.fd < 0 && errno != EEXIST) return io_error(err, path, errno);
    }
    if (s.fd < 0) return io_error(err, path, EEXIST);
    bool ok = true;
    if (existing) {
        if (fchmod(s.fd, st.st_mode & 07777) != 0) s.error = errno, ok = false;
        if (ok && (st.st_uid != geteuid() || st.st_gid != getegid()) && fchown(s.fd, st.st_uid, st.st_gid) != 0) {
            /* not permitted: the file becomes the user's, as any rewrite by them would */
        }
    }
    ok = ok && encode(&s, width, height, rgba);
    if (ok && fsync(s.fd) != 0 && errno != EINVAL && errno != EROFS) s.error = errno, ok = false;
    if (close(s.fd) != 0 && ok) s.error = errno, ok = false;
    if (ok && rename(tmp, dest) != 0) s.error = errno, ok = false;
    if (!ok) {
        unlink(tmp);
        return io_error(err, path, s.error);
    }
    return ORR_OK;
}
