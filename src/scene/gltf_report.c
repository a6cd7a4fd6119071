/* glTF 2.0 loader: how it allocates (size-prefixed blocks, so that frees need no size) and reports (log
 * lines with control characters escaped), and a parse pass's failures, warnings, violations and
 * memory (gltf_parse_internal.h). */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- allocation (size-prefixed, so frees need no size) ----------------------------------------- */

void *orri_gltf_alloc(const orr_allocator *a, size_t size)
{
    if (size == 0 || size > SIZE_MAX - 16) return NULL;
    orr_allocator al = orri_allocator_or_default(a);
    uint8_t *p = orri_alloc(&al, size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    return p + 16;
}

void *orri_gltf_alloc_uninit(const orr_allocator *a, size_t size)
{
    if (size == 0 || size > SIZE_MAX - 16) return NULL;
    orr_allocator al = orri_allocator_or_default(a);
    uint8_t *p = al.realloc(al.user, NULL, 0, size + 16); /* orri_alloc without its memset */
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    return p + 16;
}

void orri_gltf_dealloc(const orr_allocator *a, void *ptr, size_t size)
{
    (void)size;
    if (!ptr) return;
    uint8_t *p = (uint8_t *)ptr - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    orr_allocator al = orri_allocator_or_default(a);
    orri_free(&al, p, n + 16);
}

/* ---- log lines ---------------------------------------------------------------------------------- */

void orri_gltf_escape(char *msg, size_t cap)
{
    char tmp[1024];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 5 < sizeof tmp; p++) {
        if (*p < 0x20 || *p == 0x7f) o += (size_t)snprintf(tmp + o, sizeof tmp - o, "\\x%02x", *p);
        else tmp[o++] = (char)*p;
    }
    if (cap == 0) return;
    if (o >= cap) o = cap - 1; /* cut, as the message it came from would have been */
    memcpy(msg, tmp, o);
    msg[o] = 0;
}

void orri_gltf_vlog(const orr_logger *logger, orr_log_level level, const char *name, const char *fmt, va_list ap)
{
    if (!logger->log) return;
    char msg[600];
    int n = snprintf(msg, sizeof msg, "%s: ", name ? name : "glTF");
    if (n < 0 || (size_t)n >= sizeof msg) n = 0;
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    orri_gltf_escape(msg, sizeof msg);
    logger->log(logger->user, level, msg);
}

void orri_gltf_vwarn(const orr_logger *logger, const char *name, const char *fmt, va_list ap)
{
    orri_gltf_vlog(logger, ORR_LOG_WARNING, name, fmt, ap);
}

/* ---- a parse pass's reports and memory ------------------------------------------------------- */

bool orri_gltf_fail(orri_gltf_pctx *c, orr_result code, const char *fmt, ...)
{
    if (!c->failed) {
        va_list ap;
        va_start(ap, fmt);
        orri_verror(c->err, code, fmt, ap);
        va_end(ap);
        if (c->err) orri_gltf_escape(c->err->message, sizeof c->err->message);
        c->failed = true;
    }
    return false;
}

void orri_gltf_warn(orri_gltf_pctx *c, const char *fmt, ...)
{
    if (!c->doc->logger.log) return;
    if (!c->paths) {
        c->warned = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vwarn(&c->doc->logger, c->name, fmt, ap);
    va_end(ap);
}

/* A place where the file breaks the glTF 2.0 spec and the loader steps around it (the message says
 * how): logged at ORR_LOG_ERROR, so that a checker (orrery validate) calls the file invalid while a
 * viewer still draws it. */
void orri_gltf_vviolation(orri_gltf_pctx *c, const char *fmt, va_list ap)
{
    if (!c->doc->logger.log) return;
    if (!c->paths) {
        c->warned = true;
        return;
    }
    orri_gltf_vlog(&c->doc->logger, ORR_LOG_ERROR, c->name, fmt, ap);
}

void orri_gltf_violation(orri_gltf_pctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vviolation(c, fmt, ap);
    va_end(ap);
}

void *orri_gltf_palloc(orri_gltf_pctx *c, size_t count, size_t size)
{
    if (count == 0) return NULL;
    if (size && count > SIZE_MAX / size) {
        orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    void *p = orri_gltf_alloc(&c->doc->allocator, count * size);
    if (!p) orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes)", count * size);
    return p;
}

/* palloc for `size` bytes that are written before they are read (a decoder's scratch): not zeroed, so
 * that the pages are first touched by the workers that use them, not all by this thread. */
void *orri_gltf_palloc_scratch(orri_gltf_pctx *c, size_t size)
{
    void *p = orri_gltf_alloc_uninit(&c->doc->allocator, size);
    if (!p) orri_gltf_fail(c, ORR_ERROR_OUT_OF_MEMORY, "out of memory (%zu bytes)", size);
    return p;
}
