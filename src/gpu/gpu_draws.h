/* The retained draw scenes (gpu_draws.c): one per draw order a view uses, their GPU copies, and each
 * view's cull on the CPU and its regions in the view-data buffer. */
#ifndef ORRERY_GPU_DRAWS_H
#define ORRERY_GPU_DRAWS_H

#include "gpu/gpu_state.h"
#include "gpu/gpu_upload.h"

void orri_draws_fini(orr_renderer *r);
void orri_draws_release(orr_renderer *r); /* another library: the scenes are rebuilt from nothing */
/* The scenes the target's views use, rebuilt (on the CPU only) when the layout changed, or `rebuild`
 * (the snapshot is taken whole, or a material's drawing state changed): those are marked fresh. */
orr_result orri_draws_build(orr_renderer *r, const orr_snapshot *s, const orr_assets *assets, bool rebuild);
/* After the fresh scenes' materials are resident (orri_materials_touch_scene): their batch states
 * resolved from what is resident; adds their upload to *stage. Creates or retires no texture, sampler
 * or material: planning only reads what residency made. */
orr_result orri_draws_plan(orr_renderer *r, const orr_assets *assets, uint64_t *stage);
/* Per view (camera already set): its cull on the CPU (the whole view, or only its transparent items
 * when the GPU culls the rest), its regions in the view-data buffer; adds its staging to *stage. */
/* The view's visibility ranges this frame (hysteresis kept per view): dv->range_hidden set where the
 * scene has instances with a range. */
orr_result orri_draws_ranges(orr_renderer *r, orri_view *v, const orr_snapshot *s, orr_draw_view *dv);
orr_result orri_draws_plan_view(orr_renderer *r, orri_view *v, const orr_snapshot *s, const orr_draw_view *dv,
                                uint64_t *stage);
/* Lays the regions of every view of the frame out in the view-data buffer (grown when needed). */
orr_result orri_draws_layout(orr_renderer *r, const uint32_t *views, uint32_t view_count);
/* Uploads: the rebuilt scenes' items and batches, each view's CPU-culled records and commands, and
 * its cull block (orr_gpu_cull, GPU-culled views). */
orr_result orri_draws_upload(orr_renderer *r, const orr_snapshot *s, orri_upload *up, const uint32_t *views,
                             uint32_t view_count, const orr_draw_view *dvs);
/* Records one view's passes with its strategy (inside its rendering). */
/* Two batch states drawn with the same bound state (pipeline and features, cull mode, texture set). */
bool orri_same_state(const orri_batch_state *a, const orri_batch_state *b);
/* The view's next run of scene batches before the transparent pass and before batch `stop`, from *b on:
 * batches of one state that draw meshes, the custom pass apart (the custom pass's fur batches are the
 * fur adapter's: skipped), with something visible where the CPU culled the view. Returns false when
 * there is none; else the run is [*b, *e). `stop` at or past the transparent pass's first batch: every
 * run before it (a run may then join the opaque and cut-out passes' batches). */
bool orri_draws_next_run(const orri_view *v, uint32_t stop, uint32_t *b, uint32_t *e);
/* The view's visible counts for the stats: CPU-culled ones from their cull, GPU-culled ones from their
 * latest completed frame. */
void orri_draws_stats(const orri_view *v, orr_render_stats *st);
/* The cull block's levels-of-detail vector (orr_gpu_cull.lod) of a camera view; its shadow views take
 * the same (their blocks subtract the camera's origin), so that a caster casts at the level it shows. */
void orri_draws_lod_block(const orr_draw_view *dv, float out[4]);

#endif
