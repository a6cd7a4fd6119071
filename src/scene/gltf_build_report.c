/* glTF 2.0 build: how the build reports (warnings, violations, errors into the load's orr_error,
 * progress), allocates, and counts what it adds to the library against the load's budget. */
#include "core/internal.h"
#include "scene/gltf_build_internal.h"

#include <limits.h>
#include <string.h>

void orri_gltf_bwarn(orri_gltf_bctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vwarn(&b->logger, b->name, fmt, ap);
    va_end(ap);
}

/* bwarn for a place where the file breaks the glTF 2.0 spec (orri_gltf_violation, gltf_report.c). */
void orri_gltf_bviolation(orri_gltf_bctx *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orri_gltf_vlog(&b->logger, ORR_LOG_ERROR, b->name, fmt, ap);
    va_end(ap);
}

void *orri_gltf_balloc(orri_gltf_bctx *b, size_t count, size_t size)
{
    if (!count || !size) return NULL;
    if (count > SIZE_MAX / size) return NULL;
    return orri_gltf_alloc(&b->alloc, count * size);
}

void orri_gltf_bfree(orri_gltf_bctx *b, void *p) { orri_gltf_dealloc(&b->alloc, p, 0); }

orr_result orri_gltf_oom(orri_gltf_bctx *b, const char *what)
{
    return orri_error(b->err, ORR_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
}

/* The same, naming the element: "meshes[3]: out of memory". */
orr_result orri_gltf_oom_at(orri_gltf_bctx *b, const char *array, uint32_t index)
{
    return orri_error(b->err, ORR_ERROR_OUT_OF_MEMORY, "%s[%u]: out of memory", array, index);
}

orr_result orri_gltf_from_assets(orri_gltf_bctx *b, orr_result r, const char *what)
{
    const orr_error *e = orr_assets_last_error(b->assets);
    const char *msg = e && e->message[0] ? e->message : orr_result_name(r);
    size_t n = strlen(what);
    if (strncmp(msg, what, n) == 0 && msg[n] == ':') return orri_error(b->err, r, "%s", msg); /* no "prefab: prefab:" */
    return orri_error(b->err, r, "%s: %s", what, msg);
}

/* Counts `bytes` the load is about to add to the library against its budget; refuses (CAPACITY)
 * naming `what` before anything is allocated when they would exceed it. */
orr_result orri_gltf_affordable(orri_gltf_bctx *b, uint64_t bytes, const char *what)
{
    if (bytes > b->budget - b->spent)
        return orri_error(b->err, ORR_ERROR_CAPACITY,
                          "%s: %llu more bytes of decoded data would exceed the load's budget of %llu (%llu spent; "
                          "orr_gltf_options.max_decoded_bytes)",
                          what, (unsigned long long)bytes, (unsigned long long)b->budget, (unsigned long long)b->spent);
    return ORR_OK;
}

orr_result orri_gltf_spend(orri_gltf_bctx *b, uint64_t bytes, const char *what)
{
    orr_result r = orri_gltf_affordable(b, bytes, what);
    if (r == ORR_OK) b->spent += bytes;
    return r;
}

/* orr_gltf_options.progress, when there is one. */
void orri_gltf_progress(const orr_gltf_options *o, orr_gltf_phase phase, uint64_t done, uint64_t total)
{
    if (o && o->progress) o->progress(o->progress_user, phase, done, total);
}
