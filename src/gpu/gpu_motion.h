/* Lights and cameras between ticks (gpu_motion.c): the poses they held before they last changed, and
 * the snapshot a frame draws with them blended. */
#ifndef ORRERY_GPU_MOTION_H
#define ORRERY_GPU_MOTION_H

#include "gpu/gpu_state.h"

/* Notes the snapshot's lights' and cameras' poses (each one's earlier pose and the tick it changed at,
 * by entity), then sets `*out` to the snapshot to draw: `s` itself at lag 0 or when none of them changed
 * at its tick, else `scratch`, a shallow copy of `s` whose lights and cameras (renderer-owned arrays)
 * stand at the blend of their earlier and current poses, as instances do in the vertex stage. Out of
 * memory: the frame fails (`*out` is `s`; nothing is remembered, so the next frame blends none). A
 * renderer that does not interpolate notes nothing (`*out` is `s`). */
orr_result orri_motion_snapshot(orr_renderer *r, const orr_snapshot *s, orr_snapshot *scratch, const orr_snapshot **out);
/* After orri_instances_plan: each changed record's current pose is held (per slot) and the pose it
 * replaces noted as its earlier one at the snapshot's tick, unless it jumps (a new instance, or
 * ORR_RENDER_INSTANCE_TELEPORT); a frame that writes every record starts over (no instance blends), as
 * the scatter does with the GPU's motion records. Costs what changed (every slot on such a frame), and
 * only in a renderer that interpolates (orr_renderer_desc.interpolate; any other holds nothing). */
orr_result orri_motion_instances_plan(orr_renderer *r, const orr_snapshot *s);
/* The views' orr_draw_motion for the snapshot (and its lag and tick as the views' blocks hold them, in
 * view_lag and view_tick): NULL at lag 0 or when no instance changed at its tick;
 * its lookup by snapshot index is rebuilt only when those instances or the layout changed (a frame
 * between ticks costs nothing per instance here); also NULL unless `needed` (no view culls on the CPU). */
orr_result orri_motion_draw(orr_renderer *r, const orr_snapshot *s, bool needed, const orr_draw_motion **out);
/* Frees what orri_motion_snapshot keeps. */
void orri_motion_fini(orr_renderer *r);

#endif
