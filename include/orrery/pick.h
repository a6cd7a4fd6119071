/* Orrery picking: what a view shows at a pixel, or in a rectangle of pixels.
 *
 *   orr_renderer_pick         asks what the view shows at one pixel
 *   orr_renderer_pick_rect    asks what it shows in a rectangle: every instance seen there
 *   orr_renderer_pick_result  the answer, once the frame that drew it has completed on the GPU
 *
 * Latency: a pick is drawn by the next orr_renderer_render of the view's target (the frame that asks),
 * as an id pass over the shared scene after the view's passes: the view's cull, strategy and records,
 * the library's vertex stage (skinned and morphed vertices where they are drawn), alpha-masked
 * surfaces cut as they are drawn, into an image of the rectangle's size. Its answer is there once that
 * frame has completed on the GPU: orr_renderer_pick_result with `wait` false says "not yet" until then,
 * and with `wait` true waits for that one frame. At the latest it is ready when the render two frames
 * later returns (that render waits for the frame's slot). A frame that no pick asked for draws no id
 * pass and reads nothing back: picking costs nothing until it is used.
 *
 * Answers are of the frame that drew them: the entity is the one the snapshot of that frame named for
 * the instance (a generational handle: when an entity is destroyed and its index reused, a pick of a
 * later frame answers the new handle, never the old one). An instance whose slot a later frame gave to
 * another entity before the answer was read is answered as no entity (orr_pick_hit.gone), never as
 * the other. A pick whose target is not rendered stays pending; destroying its view ends it (its answer:
 * ORR_PICK_VIEW_GONE). Answers are handed over once: the id then fails.
 *
 * A view of the meshlet strategy is picked by its records, drawn indirect as its GPU cull left them
 * (whether its meshlets are drawn by mesh shaders or by their fallback): the same triangles.
 */
#ifndef ORRERY_PICK_H
#define ORRERY_PICK_H

#include <orrery/gpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORR_PICK_MAX_PIXELS 65536u /* a rectangle's width x height at most (1 MiB read back) */
#define ORR_PICK_MAX_PENDING 64u   /* picks asked for and not yet answered, per renderer */

typedef struct orr_pick_id {
    uint32_t index, generation;
} orr_pick_id;
static inline bool orr_pick_id_eq(orr_pick_id a, orr_pick_id b)
{
    return a.index == b.index && a.generation == b.generation;
}
static inline bool orr_pick_id_is_none(orr_pick_id id) { return id.generation == 0; }

/* A pick. Zero-initialised apart from view: the pixel at 0,0, every layer the view draws. */
typedef struct orr_pick_desc {
    orr_view_id view;
    orr_viewport rect;   /* target pixels, 0,0 at the top left; width or height 0: the one pixel at x,y.
                            Clipped to the view's rectangle (where it draws this frame); nothing of it
                            inside: answered with no hit */
    uint32_t layer_mask; /* 0: every layer the view draws; else those of them in the mask */
} orr_pick_desc;

typedef enum orr_pick_state {
    ORR_PICK_PENDING = 0,   /* not drawn yet, or its frame not complete */
    ORR_PICK_DONE = 1,      /* answered (hits, maybe none) */
    ORR_PICK_VIEW_GONE = 2, /* its view was destroyed before a frame drew it */
} orr_pick_state;

/* One instance seen: its nearest pixel in the rectangle. */
typedef struct orr_pick_hit {
    orr_entity entity;      /* the snapshot's entity of the instance in that frame; none when gone */
    uint32_t instance_id;   /* orr_render_instance.id */
    orr_mesh_id mesh;
    uint32_t primitive;     /* index in the mesh */
    uint32_t x, y;          /* the pixel (target coordinates) */
    float depth;            /* as stored: reversed Z, 1 at the near plane, towards 0 far away */
    double distance;        /* metres from the camera to the point, along the pixel's ray */
    orr_vec3d position;     /* the point seen at the pixel's centre, binary64 world space: from the depth
                               and the view's binary64 origin */
    bool gone;              /* the instance's slot holds another entity (or its mesh is released) since
                               that frame: entity none, instance_id UINT32_MAX */
} orr_pick_hit;

typedef struct orr_pick_result {
    orr_pick_state state;
    uint64_t frame;          /* orr_render_stats.frame of the frame that drew it (DONE) */
    uint32_t hit_count;      /* instances seen (all of them, even past `capacity`), nearest first */
} orr_pick_result;

/* Asks what `desc->view` shows at the pixel or in the rectangle; answered by the next frame of its
 * target. *out receives the pick's id. ORR_ERROR_STALE_HANDLE for a stale view;
 * ORR_ERROR_INVALID_ARGUMENT for a rectangle of more than ORR_PICK_MAX_PIXELS; ORR_ERROR_CAPACITY with
 * ORR_PICK_MAX_PENDING picks unanswered. */
orr_result orr_renderer_pick_rect(orr_renderer *renderer, const orr_pick_desc *desc, orr_pick_id *out);
/* The one pixel x,y of the view's target (every layer the view draws). */
orr_result orr_renderer_pick(orr_renderer *renderer, orr_view_id view, uint32_t x, uint32_t y, orr_pick_id *out);
/* The pick's answer into *result, and its first `capacity` hits (nearest first; NULL-able when 0) into
 * `hits`. `wait`: waits for the frame that drew it when it is submitted and not complete (never for a
 * pick no frame has drawn yet: PENDING). Once DONE or VIEW_GONE is returned the pick is over and its id
 * fails with ORR_ERROR_STALE_HANDLE. */
orr_result orr_renderer_pick_result(orr_renderer *renderer, orr_pick_id pick, bool wait, orr_pick_result *result,
                                    orr_pick_hit *hits, uint32_t capacity);

#ifdef __cplusplus
}
#endif
#endif /* ORRERY_PICK_H */
