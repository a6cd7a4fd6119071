/* The library binding: the asset library a renderer draws from, by handle (gpu_library.h). */
#include "gpu/gpu_library.h"
#include "gpu/gpu_draws.h"
#include "gpu/gpu_error.h"
#include "gpu/gpu_scene.h"

bool orri_library_alive(const orr_renderer *r, orr_library_id id)
{
    return orr_handle_pool_is_alive(&r->library_pool, (orr_handle){id.index, id.generation}) &&
           r->library.index == id.index && r->library.generation == id.generation;
}

/* Everything kept for the bound library goes (GPU objects after the frames in flight). */
static void release_library(orr_renderer *r)
{
    if (!r->library.generation) return;
    orri_scene_release(r);
    orri_draws_release(r);
    orr_handle_pool_free(&r->library_pool, (orr_handle){r->library.index, r->library.generation});
    r->library = (orr_library_id){0, 0};
    r->library_assets = NULL;
}

orr_result orr_renderer_bind_library(orr_renderer *r, const orr_assets *assets, orr_library_id *out)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_bind_library: renderer is NULL");
    ORRI_REQUIRE(assets, &r->error, "orr_renderer_bind_library: assets must not be NULL");
    release_library(r);
    orr_handle h;
    orr_result rc = orr_handle_pool_alloc(&r->library_pool, &h);
    if (rc != ORR_OK) return orri_gpu_fail(r, rc, "orr_renderer_bind_library: no binding slot");
    r->library = (orr_library_id){h.index, h.generation};
    r->library_assets = assets;
    if (out) *out = r->library;
    return ORR_OK;
}

orr_result orr_renderer_unbind_library(orr_renderer *r, orr_library_id id)
{
    ORRI_REQUIRE(r, NULL, "orr_renderer_unbind_library: renderer is NULL");
    if (!orri_library_alive(r, id)) return orri_gpu_fail(r, ORR_ERROR_STALE_HANDLE, "orr_renderer_unbind_library: stale library id");
    release_library(r);
    return ORR_OK;
}
