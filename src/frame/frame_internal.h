/* The frame module's internals shared between its files: what the session asks of the extractor, and
 * the render thread's ring of snapshots (handover.c). */
#ifndef ORRI_FRAME_INTERNAL_H
#define ORRI_FRAME_INTERNAL_H

#include <orrery/frame.h>

/* Whether the extractor's last successful update built the snapshot anew (new arrays, every offset
 * where a build puts it) rather than redoing the changed instances in place. */
bool orri_extractor_rebuilt(const orr_extractor *extractor);

/* The render thread and its ring of snapshots. The simulation thread (the session's caller) pushes each
 * extracted snapshot; the ring keeps a few snapshots of its own, each brought up to date from the live
 * one by the instances changed since it was last filled (or copied whole after a rebuild), and the
 * render thread presents them in order, each exactly once. */
typedef struct orri_handover orri_handover;

orr_result orri_handover_create(const orr_allocator *allocator, orr_present_fn present, void *user,
                                const orr_assets *assets, orri_handover **out, orr_error *err);
/* Presents what is queued, then stops and joins the thread. NULL: no-op. Simulation thread. */
void orri_handover_destroy(orri_handover *handover);
/* Simulation thread, after a successful extraction into `live`: a slot of the ring brought to `live`
 * and queued for the render thread. Waits while the ring has no free slot or a frame is queued already
 * (the render thread is then a frame behind). `rebuilt`: the extraction built anew. */
orr_result orri_handover_push(orri_handover *handover, const orr_snapshot *live, bool rebuilt);
/* Simulation thread, after an extraction that failed: every slot is taken whole next time. */
void orri_handover_invalidate(orri_handover *handover);
/* Waits until every frame pushed has been presented (the render thread then idles until the next push). */
void orri_handover_flush(orri_handover *handover);
bool orri_handover_on_render_thread(const orri_handover *handover);
uint64_t orri_handover_presented(orri_handover *handover);
/* Slots filled so far: whole (orr_snapshot_copy) and in place (the changes only). */
void orri_handover_fills(const orri_handover *handover, uint64_t *whole, uint64_t *in_place);
/* The session's (NULL without a render thread), for tests. */
orri_handover *orri_session_handover(orr_session *session);

#endif
