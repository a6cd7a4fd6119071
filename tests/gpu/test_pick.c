/* gpu picking (pick.h): what a view shows at a pixel or in a rectangle, answered once the frame that
 * drew it completes. A pixel on an instance answers that instance's entity, mesh and primitive; one on
 * the clear colour answers nothing; the position of a picked point on the ground plane lies on the
 * ray through the pixel's centre, within 1 mm of the analytic intersection 1e7 m from the origin; every
 * strategy and cull answers the same; a layer mask leaves instances out; an entity destroyed and its
 * index reused is never answered with its old handle; a morphed instance is picked where its morph
 * weights put it. Validation and synchronization validation are
 * on: any message fails. */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/pick.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 96, H = 72 };

static orr_target_id add_target(orr_renderer *r) { return fix_target(r, W, H, NULL, NULL); }

static orr_view_id add_view(orr_renderer *r, orr_target_id target, orr_vec3d o, orr_strategy strategy, orr_cull cull)
{
    orr_view_desc d = {.target = target, .strategy = strategy, .cull = cull, .pose = fix_camera(o)};
    return fix_add_view(r, &d);
}

/* Every instance gets an entity of its own: index = instance id, generation 1. */
static void name_entities(fixture *f)
{
    for (uint32_t i = 0; i < f->snapshot.instance_count; i++)
        f->instances[i].entity = (orr_entity){f->instances[i].id, 1};
}

/* Asks, renders one frame, waits for the answer; returns the hit count (hits: up to `capacity`). */
static uint32_t pick_now(orr_renderer *r, fixture *f, orr_target_id target, const orr_pick_desc *pd, orr_pick_hit *hits,
                         uint32_t capacity)
{
    orr_pick_id id;
    if (orr_renderer_pick_rect(r, pd, &id) != ORR_OK) fail_msg("pick: %s", orr_renderer_last_error(r)->message);
    orr_pick_result res;
    assert_int_equal(orr_renderer_pick_result(r, id, true, &res, hits, capacity), ORR_OK);
    assert_int_equal(res.state, ORR_PICK_PENDING); /* no frame has drawn it yet: waiting does not help */
    fix_draw(r, f, target);
    assert_int_equal(orr_renderer_pick_result(r, id, true, &res, hits, capacity), ORR_OK);
    assert_int_equal(res.state, ORR_PICK_DONE);
    assert_int_equal(res.frame, f->snapshot.frame);
    /* handed over once */
    orr_pick_result again;
    assert_int_equal(orr_renderer_pick_result(r, id, false, &again, NULL, 0), ORR_ERROR_STALE_HANDLE);
    return res.hit_count;
}

/* A pick test's scene: the fixture moved by an offset, an entity per instance, a target and one view. */
typedef struct pick_scene {
    fixture f;
    orr_target_id target;
    orr_view_id view;
} pick_scene;

static void pick_scene_init(pick_scene *s, orr_renderer *r, orr_vec3d o, orr_strategy strategy, orr_cull cull)
{
    fix_init(&s->f, o);
    name_entities(&s->f);
    s->target = add_target(r);
    s->view = add_view(r, s->target, o, strategy, cull);
}

/* pick_now of the scene's view: the rectangle at x, y of w x h pixels, on the layers of `layer_mask`
 * (0: all). */
static uint32_t pick_in(orr_renderer *r, pick_scene *s, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                        uint32_t layer_mask, orr_pick_hit *hits, uint32_t capacity)
{
    orr_pick_desc pd = {.view = s->view, .rect = {x, y, w, h}, .layer_mask = layer_mask};
    return pick_now(r, &s->f, s->target, &pd, hits, capacity);
}

static const orr_pick_hit *find_id(const orr_pick_hit *hits, uint32_t n, uint32_t instance_id)
{
    for (uint32_t k = 0; k < n; k++)
        if (hits[k].instance_id == instance_id) return &hits[k];
    return NULL;
}

/* The whole view: every visible instance in front of the camera is seen, each with its own entity; a
 * pixel of one instance answers exactly it; a pixel of the clear colour answers nothing; the points
 * lie on the surfaces (the ground plane at y = -0.5). */
void test_pick_pixels(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    pick_scene s;
    pick_scene_init(&s, r, (orr_vec3d){0, 0, 0}, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    fixture *f = &s.f;
    orr_pick_hit hits[32];
    uint32_t n = pick_in(r, &s, 0, 0, W, H, 0, hits, 32);
    /* ids 10..15 are drawn: the cubes, the ground and the glass; 16 is cut out whole (its alpha is below
     * its cutoff) and 17 hidden */
    for (uint32_t id = 10; id <= 15; id++) {
        const orr_pick_hit *h = find_id(hits, n, id);
        if (!h) fail_msg("instance %u not seen in the whole view (%u hits)", id, n);
        assert_true(orr_entity_eq(h->entity, (orr_entity){id, 1}));
        assert_false(h->gone);
        assert_int_equal(h->primitive, 0);
        assert_true(orr_mesh_id_eq(h->mesh, id == 13 || id == 15 ? f->quad : f->cube));
        assert_true(h->depth > 0.0f && h->depth <= 1.0f);
    }
    assert_null(find_id(hits, n, 16));
    assert_null(find_id(hits, n, 17));
    assert_int_equal(n, 6);
    for (uint32_t k = 1; k < n; k++) assert_true(hits[k - 1].depth >= hits[k].depth); /* nearest first */
    /* the ground's point is on its plane, at the distance the camera says */
    const orr_pick_hit *g = find_id(hits, n, 13);
    assert_true(fabs(g->position.y + 0.5) < 1e-4);
    orr_vec3d e = fix_eye((orr_vec3d){0, 0, 0});
    double dx = g->position.x - e.x, dy = g->position.y - e.y, dz = g->position.z - e.z;
    assert_true(fabs(sqrt(dx * dx + dy * dy + dz * dz) - g->distance) < 1e-6);

    /* one pixel of each: that instance alone (nearest at that pixel is what is drawn there) */
    for (uint32_t k = 0; k < n; k++) {
        orr_pick_hit one[4];
        uint32_t m = pick_in(r, &s, hits[k].x, hits[k].y, 1, 1, 0, one, 4);
        assert_int_equal(m, 1);
        assert_int_equal(one[0].instance_id, hits[k].instance_id);
        assert_true(orr_entity_eq(one[0].entity, hits[k].entity));
        assert_int_equal(one[0].x, hits[k].x);
        assert_int_equal(one[0].y, hits[k].y);
        /* the one-pixel pass rasterises through a viewport moved by whole pixels: the same depth to rounding */
        assert_true(fabsf(one[0].depth - hits[k].depth) <= 1e-6f * hits[k].depth);
    }
    /* a pixel that shows the clear colour (found in the image): nothing */
    uint8_t *px = fix_frame(r, f, s.target, W, H);
    uint32_t cx = W, cy = 0;
    for (uint32_t y = 0; y < H && cx == W; y++)
        for (uint32_t x = 0; x < W && cx == W; x++)
            if (!fix_count_drawn(px, W, x, y, x + 1, y + 1)) cx = x, cy = y;
    free(px);
    assert_true(cx < W);
    assert_int_equal(pick_in(r, &s, cx, cy, 1, 1, 0, hits, 32), 0);
    /* a rectangle outside the view: answered, nothing */
    assert_int_equal(pick_in(r, &s, W + 5, 3, 4, 4, 0, hits, 32), 0);
    fix_fini(f);
    fix_renderer_done(r, &log);
}

/* A layer mask leaves instances out: the red cube's pixel then shows what is behind it. */
void test_pick_layer_mask(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    pick_scene s;
    pick_scene_init(&s, r, (orr_vec3d){0, 0, 0}, ORR_STRATEGY_INDIRECT, ORR_CULL_GPU);
    s.f.instances[0].layers = 2u; /* the red cube (id 10) on layer 1 alone */
    orr_pick_hit hits[32];
    uint32_t n = pick_in(r, &s, 0, 0, W, H, 0, hits, 32);
    const orr_pick_hit *red = find_id(hits, n, 10);
    assert_non_null(red);
    orr_pick_hit at = *red;
    /* every layer but the red cube's */
    n = pick_in(r, &s, 0, 0, W, H, ~2u, hits, 32);
    assert_null(find_id(hits, n, 10));
    assert_int_equal(n, 5);
    n = pick_in(r, &s, at.x, at.y, 1, 1, ~2u, hits, 32);
    assert_true(n <= 1);
    if (n) assert_true(hits[0].instance_id != 10 && hits[0].depth < at.depth);
    /* only its layer: it alone */
    n = pick_in(r, &s, 0, 0, W, H, 2u, hits, 32);
    assert_int_equal(n, 1);
    assert_int_equal(hits[0].instance_id, 10);
    fix_fini(&s.f);
    fix_renderer_done(r, &log);
}

/* Every strategy and cull answers the whole view alike, to the pixel and the depth's bits. */
void test_pick_strategies_agree(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    name_entities(&f);
    static const struct {
        orr_strategy strategy;
        orr_cull cull;
    } ways[] = {{ORR_STRATEGY_DIRECT, ORR_CULL_CPU},   {ORR_STRATEGY_BATCHED, ORR_CULL_CPU},
                {ORR_STRATEGY_INDIRECT, ORR_CULL_CPU}, {ORR_STRATEGY_INDIRECT, ORR_CULL_GPU},
                {ORR_STRATEGY_SHELL, ORR_CULL_CPU},    {ORR_STRATEGY_MESHLET, ORR_CULL_GPU}};
    orr_pick_hit first[32], hits[32];
    uint32_t first_n = 0;
    for (uint32_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        orr_target_id target = add_target(r);
        orr_view_id view = add_view(r, target, (orr_vec3d){0, 0, 0}, ways[w].strategy, ways[w].cull);
        uint32_t n = pick_now(r, &f, target, &(orr_pick_desc){.view = view, .rect = {0, 0, W, H}}, hits, 32);
        if (!w) {
            memcpy(first, hits, sizeof hits);
            first_n = n;
            assert_int_equal(n, 6);
            continue;
        }
        if (n != first_n) fail_msg("%s/%s: %u hits, direct: %u", orr_strategy_name(ways[w].strategy),
                                   orr_cull_name(ways[w].cull), n, first_n);
        for (uint32_t k = 0; k < n; k++) {
            assert_int_equal(hits[k].instance_id, first[k].instance_id);
            assert_true(orr_entity_eq(hits[k].entity, first[k].entity));
            assert_true(orr_mesh_id_eq(hits[k].mesh, first[k].mesh));
            assert_int_equal(hits[k].x, first[k].x);
            assert_int_equal(hits[k].y, first[k].y);
            assert_memory_equal(&hits[k].depth, &first[k].depth, sizeof(float));
        }
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    }
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* 1e7 m from the origin, the ground's point at a pixel is within 1 mm of where the pixel's ray meets
 * the plane y = -0.5 (computed here in binary64 from the camera alone). */
void test_pick_far_position(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    const orr_vec3d offsets[] = {{0, 0, 0}, {1e7, 0, -1e7}, {-3e6, 1e7, 2e6}};
    for (uint32_t o = 0; o < 3; o++) {
        orr_vec3d off = offsets[o];
        fixture f;
        fix_init(&f, off);
        name_entities(&f);
        orr_target_id target = add_target(r);
        orr_view_id view = add_view(r, target, off, ORR_STRATEGY_INDIRECT, ORR_CULL_AUTO);
        orr_mat4d pose = fix_camera(off);
        orr_mat4d proj;
        orr_mat4d_perspective_reversed_infinite(0.8, (double)W / H, 0.05, &proj);
        orr_mat4d inv_proj;
        assert_true(orr_mat4d_inverse(&proj, &inv_proj));
        uint32_t checked = 0;
        for (uint32_t y = H / 2; y < H; y += 5) /* the lower half: the ground, where no cube stands */
            for (uint32_t x = 2; x < W; x += 9) {
                orr_pick_hit h;
                uint32_t n = pick_now(r, &f, target, &(orr_pick_desc){.view = view, .rect = {x, y, 1, 1}}, &h, 1);
                if (n != 1 || h.instance_id != 13) continue;
                /* the ray through the pixel's centre, in binary64 */
                double ndc_x = 2.0 * (x + 0.5) / W - 1.0, ndc_y = 2.0 * (y + 0.5) / H - 1.0;
                const double *m = inv_proj.m, c[4] = {ndc_x, ndc_y, 1.0, 1.0}; /* at the near plane */
                double e[4];
                for (int row = 0; row < 4; row++)
                    e[row] = m[row] * c[0] + m[4 + row] * c[1] + m[8 + row] * c[2] + m[12 + row] * c[3];
                orr_vec3d dir = orr_mat4d_transform_dir(&pose, (orr_vec3d){e[0] / e[3], e[1] / e[3], e[2] / e[3]});
                orr_vec3d eye = orr_mat4d_translation(&pose);
                double t = (off.y - 0.5 - eye.y) / dir.y;
                orr_vec3d want = {eye.x + t * dir.x, eye.y + t * dir.y, eye.z + t * dir.z};
                double err = sqrt((h.position.x - want.x) * (h.position.x - want.x) +
                                  (h.position.y - want.y) * (h.position.y - want.y) +
                                  (h.position.z - want.z) * (h.position.z - want.z));
                if (err >= 1e-3)
                    fail_msg("offset %g,%g,%g pixel %u,%u: picked (%.6f, %.6f, %.6f), the ray meets the ground at "
                             "(%.6f, %.6f, %.6f): %.3g m apart", off.x, off.y, off.z, x, y, h.position.x, h.position.y,
                             h.position.z, want.x, want.y, want.z, err);
                checked++;
            }
        assert_true(checked >= 20);
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
        fix_fini(&f);
    }
    fix_renderer_done(r, &log);
}

/* An entity destroyed and its index reused (the same instance id, its slot reused, a new generation):
 * a pick of a later frame answers the new handle; a pick whose instance's slot changed hands before its
 * answer was read answers no entity, never the new one in the old one's place. */
void test_pick_stale_never(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    pick_scene s;
    pick_scene_init(&s, r, (orr_vec3d){0, 0, 0}, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    fixture *f = &s.f;
    orr_pick_hit hits[32];
    uint32_t n = pick_in(r, &s, 0, 0, W, H, 0, hits, 32);
    const orr_pick_hit *red = find_id(hits, n, 10);
    assert_non_null(red);
    orr_pick_hit at = *red;
    assert_true(orr_entity_eq(at.entity, (orr_entity){10, 1}));
    /* entity 10 destroyed; its index reused (generation 2) by an entity the world gives instance id 10 */
    f->snapshot.frame++;
    f->instances[0].entity = (orr_entity){10, 2};
    n = pick_in(r, &s, at.x, at.y, 1, 1, 0, hits, 32);
    assert_int_equal(n, 1);
    assert_true(orr_entity_eq(hits[0].entity, (orr_entity){10, 2}));
    /* asked in one frame, its slot handed to another entity by the next before the answer is read */
    orr_pick_id id;
    assert_int_equal(orr_renderer_pick(r, s.view, at.x, at.y, &id), ORR_OK);
    f->snapshot.frame++;
    fix_draw(r, f, s.target); /* draws the pick: the slot holds {10, 2} */
    f->snapshot.frame++;
    f->instances[0].entity = (orr_entity){10, 3};
    fix_draw(r, f, s.target); /* the slot now holds {10, 3} */
    orr_pick_result res;
    assert_int_equal(orr_renderer_pick_result(r, id, true, &res, hits, 32), ORR_OK);
    assert_int_equal(res.state, ORR_PICK_DONE);
    assert_int_equal(res.hit_count, 1);
    assert_true(orr_entity_eq(hits[0].entity, (orr_entity){10, 2}) || (hits[0].gone && orr_entity_is_none(hits[0].entity)));
    assert_false(orr_entity_eq(hits[0].entity, (orr_entity){10, 3}));
    fix_fini(f);
    fix_renderer_done(r, &log);
}

/* What a pick refuses, and a pick whose view goes before a frame draws it. */
void test_pick_refusals(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    orr_target_id target = add_target(r);
    orr_view_id view = add_view(r, target, (orr_vec3d){0, 0, 0}, ORR_STRATEGY_BATCHED, ORR_CULL_AUTO);
    orr_pick_id id;
    assert_int_equal(orr_renderer_pick_rect(r, &(orr_pick_desc){.view = view, .rect = {0, 0, 512, 512}}, &id),
                     ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_renderer_last_error(r)->message, "ORR_PICK_MAX_PIXELS"));
    assert_int_equal(orr_renderer_pick(r, (orr_view_id){view.index, view.generation + 1}, 1, 1, &id),
                     ORR_ERROR_STALE_HANDLE);
    orr_pick_id ids[ORR_PICK_MAX_PENDING];
    for (uint32_t k = 0; k < ORR_PICK_MAX_PENDING; k++) assert_int_equal(orr_renderer_pick(r, view, k, 1, &ids[k]), ORR_OK);
    assert_int_equal(orr_renderer_pick(r, view, 1, 1, &id), ORR_ERROR_CAPACITY);
    assert_int_equal(orr_renderer_destroy_view(r, view), ORR_OK);
    orr_pick_result res;
    for (uint32_t k = 0; k < ORR_PICK_MAX_PENDING; k++) {
        assert_int_equal(orr_renderer_pick_result(r, ids[k], false, &res, NULL, 0), ORR_OK);
        assert_int_equal(res.state, ORR_PICK_VIEW_GONE);
    }
    fix_draw(r, &f, target);
    fix_fini(&f);
    fix_renderer_done(r, &log);
}

/* Whether pixel x, y of px differs from the clear colour at every pixel within 2 of it (want true) or at
 * none (want false). */
static bool covered(const uint8_t *px, const uint8_t *clear, int x, int y, bool want)
{
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= W || yy >= H) {
                if (want) return false;
                continue;
            }
            if ((memcmp(px + ((size_t)yy * W + xx) * 4, clear, 4) != 0) != want) return false;
        }
    return true;
}

/* A morphed instance is picked where its weights draw it, as the view does: a quad whose one morph
 * target moves it 1 m along -x, alone in the view. At weight 1, a pixel that only the moved quad covers
 * answers the quad, at a point on the moved quad; a pixel that only the unmoved quad (weight 0) covers
 * answers nothing. Every strategy and cull. */
void test_pick_morphed(void **state)
{
    (void)state;
    fix_log log;
    orr_renderer *r = fix_renderer(&log);
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    for (uint32_t i = 0; i < f.snapshot.instance_count; i++) f.instances[i].visible = false;
    static const float pos[12] = {-0.4f, -0.4f, 0, 0.4f, -0.4f, 0, 0.4f, 0.4f, 0, -0.4f, 0.4f, 0};
    static const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const float delta[12] = {-1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3}; /* counter-clockwise seen from +z, where the camera is */
    orr_morph_target_desc morph = {.positions = delta};
    float rest = 0.0f;
    orr_primitive_desc pd = {.vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx,
                             .material = f.green, .target_count = 1, .targets = &morph};
    orr_mesh_id quad;
    assert_int_equal(orr_assets_add_mesh(f.assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd,
                                                                   .weight_count = 1, .weights = &rest},
                                         &quad),
                     ORR_OK);
    enum { QUAD = 77 };
    orr_mat4d at;
    orr_mat4d_from_trs((orr_vec3d){0.5, 0.25, 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &at);
    orr_render_instance *in = fix_add(&f, QUAD, quad, f.green, at);
    in->entity = (orr_entity){QUAD, 1};
    float weight = 0.0f;
    f.snapshot.weights = &weight;
    f.snapshot.weight_count = 1;
    in->weight_offset = 0;
    in->weight_count = 1;

    /* the images: unmoved (weight 0), then moved (weight 1), and the pixels only one of them covers,
     * each the nearest such to the image's centre */
    orr_target_id target_id = add_target(r);
    add_view(r, target_id, (orr_vec3d){0, 0, 0}, ORR_STRATEGY_BATCHED, ORR_CULL_CPU);
    uint8_t *unmoved = fix_frame(r, &f, target_id, W, H);
    weight = 1.0f;
    uint32_t changed = QUAD;
    fix_delta(&f, &changed, 1, NULL, 0, false);
    uint8_t *moved = fix_frame(r, &f, target_id, W, H);
    assert_int_equal(orr_renderer_destroy_target(r, target_id), ORR_OK);
    uint8_t clear[4];
    memcpy(clear, moved, 4); /* the corner: nothing else is drawn */
    int only_moved[2] = {-1, -1}, only_unmoved[2] = {-1, -1};
    long best_moved = -1, best_unmoved = -1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            long d = (long)(x - W / 2) * (x - W / 2) + (long)(y - H / 2) * (y - H / 2);
            if (covered(moved, clear, x, y, true) && covered(unmoved, clear, x, y, false) && (best_moved < 0 || d < best_moved))
                best_moved = d, only_moved[0] = x, only_moved[1] = y;
            if (covered(unmoved, clear, x, y, true) && covered(moved, clear, x, y, false) &&
                (best_unmoved < 0 || d < best_unmoved))
                best_unmoved = d, only_unmoved[0] = x, only_unmoved[1] = y;
        }
    free(unmoved), free(moved);
    print_message("morphed quad: picking %d,%d (moved only) and %d,%d (unmoved only)\n", only_moved[0], only_moved[1],
                  only_unmoved[0], only_unmoved[1]);
    if (only_moved[0] < 0 || only_unmoved[0] < 0) fail_msg("the moved and unmoved quads overlap: the test cannot tell");

    static const struct {
        orr_strategy strategy;
        orr_cull cull;
    } ways[] = {{ORR_STRATEGY_DIRECT, ORR_CULL_CPU},   {ORR_STRATEGY_BATCHED, ORR_CULL_CPU},
                {ORR_STRATEGY_INDIRECT, ORR_CULL_CPU}, {ORR_STRATEGY_INDIRECT, ORR_CULL_GPU},
                {ORR_STRATEGY_SHELL, ORR_CULL_CPU},    {ORR_STRATEGY_MESHLET, ORR_CULL_GPU}};
    for (uint32_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        orr_target_id target = add_target(r);
        orr_view_id view = add_view(r, target, (orr_vec3d){0, 0, 0}, ways[w].strategy, ways[w].cull);
        orr_pick_hit hit;
        uint32_t n = pick_now(r, &f, target, &(orr_pick_desc){.view = view, .rect = {(uint32_t)only_moved[0], (uint32_t)only_moved[1], 1, 1}},
                              &hit, 1);
        if (n != 1) fail_msg("%s/%s: %u hits at the moved quad", orr_strategy_name(ways[w].strategy), orr_cull_name(ways[w].cull), n);
        assert_int_equal(hit.instance_id, QUAD);
        assert_true(orr_mesh_id_eq(hit.mesh, quad));
        /* on the moved quad: x in [-0.9, -0.1], y in [-0.15, 0.65], z = 0 */
        print_message("%s/%s: picked at %.4f %.4f %.4f\n", orr_strategy_name(ways[w].strategy), orr_cull_name(ways[w].cull),
                      hit.position.x, hit.position.y, hit.position.z);
        assert_true(hit.position.x > -0.91 && hit.position.x < -0.09);
        assert_true(hit.position.y > -0.16 && hit.position.y < 0.66);
        assert_true(fabs(hit.position.z) < 0.01);
        n = pick_now(r, &f, target,
                     &(orr_pick_desc){.view = view, .rect = {(uint32_t)only_unmoved[0], (uint32_t)only_unmoved[1], 1, 1}}, &hit, 1);
        assert_int_equal(n, 0);
        assert_int_equal(orr_renderer_destroy_target(r, target), ORR_OK);
    }
    f.snapshot.weights = NULL;
    f.snapshot.weight_count = 0;
    fix_fini(&f);
    fix_renderer_done(r, &log);
}
