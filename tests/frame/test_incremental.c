/* Incremental extraction against the full one: thousands of frames of random world operations (moves of
 * roots and inner nodes, hide and show, material and mesh swaps, layers, renames, lights and cameras,
 * create, destroy, reparent both ways, clone, skinned characters whose joints move, variable-length data
 * set through the world's list calls: material overrides over up to 40 slots, joint lists of 3 and 260
 * joints replaced, shortened, lengthened and given stale entries, names up to 300 bytes, Fur components
 * added, edited (values made unusable and usable again) and removed, morph weights set, written and
 * removed on a mesh with 3 and 2 targets on its two primitives); after every frame
 * the snapshot that orr_extractor_update keeps equals orr_frame_extract's field by field, and its changed and
 * removed lists name exactly the instances whose data differs from the previous frame's (by the
 * snapshot module's instance comparison, found independently of the change log), the fur sidecar holds exactly the world's Fur components
 * in instance order, each morphed instance carries its entity's weights (the mesh's defaults past them)
 * and bounds that hold its morphed vertices, and layout_version bumps whenever an instance's fur entry appears, goes, or turns
 * usable or unusable. */
#include "frame_tests.h"

#include <math.h>
#include <orrery/draw.h>
#include <orrery/frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t pick(rng *r, uint32_t n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return n ? (uint32_t)(r->s % n) : 0;
}

static double unit(rng *r) { return (double)pick(r, 1u << 30) / (double)(1u << 30); }

#define MAX_LIVE 1200
#define BIG_JOINTS 260 /* past the old cap of 256 */

typedef struct scene {
    orr_world *w;
    orr_assets *a;
    orr_mesh_id meshes[3];
    orr_material_id materials[3];
    orr_skin_id skin, big_skin;
    orr_entity live[MAX_LIVE];
    uint32_t live_count;
    bool unskinned; /* operate makes no skinned instance (a move instead) */
} scene;

static void refresh_live(scene *sc)
{
    sc->live_count = 0;
    orr_subtree_iter it;
    orr_subtree_begin(sc->w, ORR_ENTITY_NONE, &it);
    for (orr_entity e; sc->live_count < MAX_LIVE && orr_subtree_next(&it, &e);) sc->live[sc->live_count++] = e;
    orr_subtree_end(&it);
}

static orr_entity any(scene *sc, rng *r) { return sc->live_count ? sc->live[pick(r, sc->live_count)] : ORR_ENTITY_NONE; }

/* Random Fur values: some overrides, now and then one out of range (an entry the draw module ignores). */
static orr_fur_instance random_fur(rng *r)
{
    orr_fur_instance f = {.set = pick(r, 16), .shell_count = 1 + pick(r, 40), .shell_length = (float)unit(r) * 0.1f,
                          .density = 1.0f + (float)pick(r, 64), .thinning = (float)unit(r)};
    switch (pick(r, 8)) {
    case 0: f.shell_count = pick(r, 2) ? 0 : ORR_FUR_MAX_SHELLS + 1; break;
    case 1: f.thinning = 1.5f; break;
    case 2: f.set |= 1u << 7; break; /* an unknown bit */
    default: break;
    }
    return f;
}

static void edit_fur(scene *sc, rng *r, orr_entity e)
{
    if (!orr_component_has(sc->w, e, ORR_COMPONENT_MESH_RENDERER)) return;
    if (!orr_component_has(sc->w, e, ORR_COMPONENT_FUR)) {
        orr_fur_instance f = random_fur(r);
        orr_component_add(sc->w, e, ORR_COMPONENT_FUR, pick(r, 4) ? &f : NULL, NULL); /* structural */
        return;
    }
    switch (pick(r, 6)) {
    case 0: orr_component_remove(sc->w, e, ORR_COMPONENT_FUR); break; /* structural */
    case 1: orr_fur_instance_edit(sc->w, e); break; /* an edit that changes nothing */
    case 2: { /* one value */
        orr_fur_instance *f = orr_fur_instance_edit(sc->w, e);
        f->shell_length = (float)unit(r);
        f->set |= ORR_FUR_SET_SHELL_LENGTH;
        break;
    }
    default: *orr_fur_instance_edit(sc->w, e) = random_fur(r); break;
    }
}

static void create(scene *sc, rng *r)
{
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){unit(r) * 10 - 5, unit(r) * 10 - 5, unit(r) * 10 - 5};
    t.rotation = orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, unit(r) * 6);
    char name[32];
    snprintf(name, sizeof name, "n%u", pick(r, 1000));
    orr_entity parent = pick(r, 3) ? any(sc, r) : ORR_ENTITY_NONE;
    orr_entity e;
    if (orr_entity_create(sc->w, &(orr_entity_desc){.name = pick(r, 4) ? name : NULL, .parent = parent, .local = &t}, &e) !=
        ORR_OK)
        return;
    uint32_t kind = pick(r, 10);
    if (kind < 7) {
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = sc->meshes[pick(r, 3)];
        if (orr_component_add(sc->w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL) == ORR_OK && pick(r, 3) == 0)
            orr_mesh_renderer_set_material(sc->w, e, pick(r, 2), sc->materials[pick(r, 3)]);
        if (pick(r, 4) == 0) edit_fur(sc, r, e);
    }
    if (kind == 7 || kind == 8) {
        orr_light l = orr_light_default();
        l.enabled = pick(r, 4) != 0;
        orr_component_add(sc->w, e, ORR_COMPONENT_LIGHT, &l, NULL);
    }
    if (kind == 9) orr_component_add(sc->w, e, ORR_COMPONENT_CAMERA, NULL, NULL);
}

/* A skinned character: a body with a MeshRenderer and a chain of 3 (or BIG_JOINTS) joints under a hip;
 * its joint list may be a few longer or shorter than the skin. */
static void create_skinned(scene *sc, rng *r)
{
    orr_entity hip, body;
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){unit(r) * 4, 0, unit(r) * 4};
    if (orr_entity_create(sc->w, &(orr_entity_desc){.name = "hip", .local = &t}, &hip) != ORR_OK) return;
    bool big = pick(r, 3) == 0;
    uint32_t n = big ? BIG_JOINTS : 3;
    orr_entity joints[BIG_JOINTS + 2];
    orr_entity prev = hip;
    for (uint32_t j = 0; j < n + 2; j++) {
        t = orr_transform_identity();
        t.translation.y = big ? 0.02 : 0.5;
        orr_entity_create(sc->w, &(orr_entity_desc){.name = "bone", .parent = prev, .local = &t}, &joints[j]);
        prev = joints[j];
    }
    if (orr_entity_create(sc->w, &(orr_entity_desc){.name = "body", .parent = hip}, &body) != ORR_OK) return;
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = sc->meshes[0];
    orr_component_add(sc->w, body, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
    orr_skinned_mesh sk = {.skin = big ? sc->big_skin : sc->skin};
    orr_component_add(sc->w, body, ORR_COMPONENT_SKINNED_MESH, &sk, NULL);
    orr_skinned_mesh_set_joints(sc->w, body, joints, n - 1 + pick(r, 4));
}

/* The world's joint list of a SkinnedMesh replaced: reversed, cut, grown with a stale and a none entry,
 * or emptied. */
static void edit_joints(scene *sc, rng *r, orr_entity e)
{
    uint32_t n;
    const orr_entity *now = orr_skinned_mesh_joints(sc->w, e, &n);
    if (!orr_component_has(sc->w, e, ORR_COMPONENT_SKINNED_MESH)) return;
    orr_entity list[BIG_JOINTS + 8];
    uint32_t m = n < BIG_JOINTS + 4 ? n : BIG_JOINTS + 4;
    if (m) memcpy(list, now, m * sizeof *list); /* copied before the set replaces the world's array */
    switch (pick(r, 5)) {
    case 0:
        for (uint32_t j = 0; j < m / 2; j++) {
            orr_entity t = list[j];
            list[j] = list[m - 1 - j];
            list[m - 1 - j] = t;
        }
        break;
    case 1: m = m ? pick(r, m) : 0; break;
    case 2:
        /* stale (or not alive yet: generation + 2 may be born later), holds the bind pose; and a handle of
         * an index far past the world's, which extraction must not size anything by */
        list[m] = m ? (orr_entity){list[0].index, list[0].generation + 2} : (orr_entity){7, 2};
        m++;
        list[m++] = (orr_entity){0xfffff000u, 1};
        list[m++] = ORR_ENTITY_NONE;
        break;
    case 3: m = 0; break;
    default: break; /* the same list again */
    }
    orr_skinned_mesh_set_joints(sc->w, e, list, m);
}

/* Material overrides replaced through the list calls: one slot (up to 40), a whole list, or none. */
static void edit_materials(scene *sc, rng *r, orr_entity e)
{
    orr_material_id list[24];
    switch (pick(r, 3)) {
    case 0:
        orr_mesh_renderer_set_material(sc->w, e, pick(r, 3) ? pick(r, 3) : pick(r, 40),
                                       pick(r, 3) ? sc->materials[pick(r, 3)] : (orr_material_id){0, 0});
        break;
    case 1: {
        uint32_t n = pick(r, 24);
        for (uint32_t k = 0; k < n; k++) list[k] = pick(r, 2) ? sc->materials[pick(r, 3)] : (orr_material_id){0, 0};
        orr_mesh_renderer_set_materials(sc->w, e, list, n);
        break;
    }
    default: orr_mesh_renderer_set_materials(sc->w, e, NULL, 0); break;
    }
}

/* Morph weights: a list set (0 to 5 entries, some outside [0, 1]), one entry written (sometimes the same
 * value: no change), or the component removed (structural). */
static void edit_weights(scene *sc, rng *r, orr_entity e)
{
    float list[5];
    uint32_t n = pick(r, 6), had;
    for (uint32_t k = 0; k < n; k++) list[k] = (float)(unit(r) * 3 - 1);
    const float *now = orr_morph_weights(sc->w, e, &had);
    switch (pick(r, 5)) {
    case 0:
    case 1: orr_morph_weights_set(sc->w, e, list, n); break;
    case 2:
        if (orr_component_has(sc->w, e, ORR_COMPONENT_MORPH_WEIGHTS)) orr_morph_weights_write(sc->w, e, pick(r, 4), list, n ? 1 : 0);
        break;
    case 3:
        if (had) {
            float same_value = now[0];
            orr_morph_weights_write(sc->w, e, 0, &same_value, 1);
        }
        break;
    default: orr_component_remove(sc->w, e, ORR_COMPONENT_MORPH_WEIGHTS); break;
    }
}

static void move(scene *sc, rng *r, orr_entity e)
{
    switch (pick(r, 4)) {
    case 0: orr_entity_set_translation(sc->w, e, (orr_vec3d){unit(r) * 8 - 4, unit(r) * 8 - 4, unit(r) * 8 - 4}); break;
    case 1: orr_entity_set_rotation(sc->w, e, orr_quatd_from_axis_angle((orr_vec3d){1, 1, 0}, unit(r) * 6)); break;
    case 2: orr_entity_set_scale(sc->w, e, (orr_vec3d){0.5 + unit(r), pick(r, 8) ? 1.0 : -1.0, 1.0}); break;
    default: { /* the same translation again: no change */
        orr_transform t;
        orr_entity_get_local(sc->w, e, &t);
        orr_entity_set_translation(sc->w, e, t.translation);
    }
    }
}

static void edit_renderer(scene *sc, rng *r, orr_entity e)
{
    orr_mesh_renderer *mr = orr_mesh_renderer_edit(sc->w, e);
    if (!mr) return;
    switch (pick(r, 6)) {
    case 0: mr->visible = !mr->visible; break;
    case 1: mr->layers = mr->layers; break; /* overrides: edit_materials, without an edit beside it */
    case 2: mr->mesh = sc->meshes[pick(r, 3)]; break;
    case 3: mr->layers = 1u << pick(r, 4); break;
    case 4: mr->casts_shadows = !mr->casts_shadows; break;
    default: break; /* an edit that changes nothing */
    }
}

static void operate(scene *sc, rng *r)
{
    uint32_t ops = pick(r, 12);
    for (uint32_t k = 0; k < ops; k++) {
        refresh_live(sc);
        orr_entity e = any(sc, r);
        uint32_t op = pick(r, 100);
        if (sc->unskinned && ((op >= 68 && op < 70) || op == 73)) op = 0;
        if (op < 40) { /* most frames only move things: the incremental path */
            if (e.generation) move(sc, r, e);
        } else if (op < 55) {
            if (e.generation && pick(r, 3) == 0) edit_materials(sc, r, e); /* logged by the set alone */
            else if (e.generation) edit_renderer(sc, r, e);
        } else if (op < 60) {
            char name[301];
            uint32_t len = pick(r, 2) ? 0 : 64 + pick(r, 237); /* long names, past the old 63 bytes */
            for (uint32_t c = 0; c < len; c++) name[c] = (char)('a' + pick(r, 3));
            name[len] = '\0';
            if (e.generation) orr_entity_set_name(sc->w, e, len ? name : pick(r, 2) ? "renamed" : "again");
        } else if (op < 64) {
            orr_light *l = e.generation ? orr_light_edit(sc->w, e) : NULL;
            if (l) l->enabled = !l->enabled, l->intensity = (float)unit(r);
            orr_camera *c = e.generation ? orr_camera_edit(sc->w, e) : NULL;
            if (c) c->yfov = 0.3 + unit(r);
        } else if (op < 68) {
            /* a skinned character's bones move */
            for (uint32_t i = 0; i < sc->live_count; i++) {
                if (strcmp(orr_entity_name(sc->w, sc->live[i]), "bone") == 0 && pick(r, 2))
                    orr_entity_set_rotation(sc->w, sc->live[i], orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, unit(r)));
            }
        } else if (op < 70) {
            /* a SkinnedMesh's joints replaced (on a body, most of the time) */
            orr_entity body = ORR_ENTITY_NONE;
            for (uint32_t i = 0; i < sc->live_count && pick(r, 4); i++)
                if (orr_component_has(sc->w, sc->live[i], ORR_COMPONENT_SKINNED_MESH)) body = sc->live[i];
            if (body.generation) edit_joints(sc, r, body);
            else if (e.generation) edit_joints(sc, r, e);
        } else if (op < 73) { /* structural from here */
            if (sc->live_count < MAX_LIVE - 20) create(sc, r);
        } else if (op < 74) {
            if (sc->live_count < MAX_LIVE - 20) create_skinned(sc, r);
        } else if (op < 77) {
            if (e.generation && sc->live_count > 30) orr_entity_destroy(sc->w, e);
        } else if (op < 80) {
            orr_entity p = pick(r, 3) ? any(sc, r) : ORR_ENTITY_NONE;
            if (e.generation) orr_entity_set_parent(sc->w, e, p, pick(r, 2) ? ORR_KEEP_WORLD : ORR_KEEP_LOCAL);
        } else if (op < 81) {
            if (e.generation && sc->live_count < MAX_LIVE / 2) orr_world_clone(sc->w, sc->w, e, ORR_ENTITY_NONE, NULL, NULL);
        } else if (op < 82) {
            if (e.generation && orr_component_has(sc->w, e, ORR_COMPONENT_MESH_RENDERER))
                orr_component_remove(sc->w, e, ORR_COMPONENT_MESH_RENDERER);
        } else if (op < 83) {
            if (e.generation) orr_entity_set_sibling_index(sc->w, e, 0);
        } else if (op < 86) { /* morph weights, on a morphed instance most of the time */
            for (uint32_t i = 0; i < sc->live_count && e.generation && pick(r, 8); i++) {
                orr_entity c = sc->live[(i + pick(r, sc->live_count)) % sc->live_count];
                const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(sc->w, c);
                if (mr && orr_id_eq(mr->mesh, sc->meshes[2])) {
                    e = c;
                    break;
                }
            }
            if (e.generation && sc->live_count < MAX_LIVE - 20) edit_weights(sc, r, e);
        } else if (op < 90) { /* Fur: value edits most of the time, now and then added or removed */
            for (uint32_t i = 0; i < sc->live_count && e.generation; i++) {
                orr_entity c = sc->live[(i + pick(r, sc->live_count)) % sc->live_count];
                if (!orr_component_has(sc->w, c, ORR_COMPONENT_FUR)) continue;
                if (pick(r, 4)) e = c; /* one that wears fur */
                break;
            }
            if (e.generation) edit_fur(sc, r, e);
        }
    }
}

/* ---- comparison, written here ------------------------------------------------------------ */


/* The sidecar entry of instance `index` (a linear search: the sidecar's own order is checked apart). */
static const orr_render_fur *fur_at(const orr_snapshot *s, uint32_t index)
{
    for (uint32_t k = 0; k < s->fur_count; k++)
        if (s->fur[k].instance == index) return &s->fur[k];
    return NULL;
}

/* Whether the draw module would use an entry: values in orr_fur's ranges, as written in assets.h. */
static bool fur_usable(const orr_render_fur *e)
{
    if (!e || (e->set & ~0xfu)) return false;
    if ((e->set & ORR_FUR_SET_SHELL_COUNT) && (e->shell_count < 1 || e->shell_count > ORR_FUR_MAX_SHELLS)) return false;
    if ((e->set & ORR_FUR_SET_SHELL_LENGTH) && !(e->shell_length >= 0.0f && e->shell_length < INFINITY)) return false;
    if ((e->set & ORR_FUR_SET_DENSITY) && !(e->density > 0.0f && e->density < INFINITY)) return false;
    if ((e->set & ORR_FUR_SET_THINNING) && !(e->thinning >= 0.0f && e->thinning <= 1.0f)) return false;
    return true;
}

/* Every extracted field of two instances: the snapshot module's comparison (tests/snapshot checks it
 * field by field). */
static bool same(const orr_snapshot *sa, const orr_render_instance *a, const orr_snapshot *sb,
                 const orr_render_instance *b)
{
    return orr_snapshot_instance_equal(sa, a, sb, b);
}

/* Each instance's weights are its entity's MorphWeights, the mesh's defaults past them (0.5, then 0),
 * three of them on the morphed mesh and none elsewhere; its bounds hold the shape at those weights. */
static void expect_weights_of_world(const orr_snapshot *s, orr_world *w, const scene *sc, uint32_t frame)
{
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        bool morphed = orr_id_eq(in->mesh, sc->meshes[2]);
        if (in->weight_count != (morphed ? 3u : 0u))
            fail_msg("frame %u: instance %u has %u weights", frame, i, in->weight_count);
        if (!morphed) continue;
        assert_true(in->weight_offset + 3 <= s->weight_count);
        uint32_t n;
        const float *own = orr_morph_weights(w, in->entity, &n);
        float wt[3];
        for (uint32_t t = 0; t < 3; t++) {
            wt[t] = t < n ? own[t] : t == 0 ? 0.5f : 0.0f;
            if (memcmp(&s->weights[in->weight_offset + t], &wt[t], 4) != 0)
                fail_msg("frame %u: instance %u weight %u is %g, its entity's %g", frame, i, t,
                         (double)s->weights[in->weight_offset + t], (double)wt[t]);
        }
        /* every morphed vertex: the triangle's (targets up, left, up) and the quad's (up, left) */
        static const float tri_xy[] = {0, 0, 1, 0, 0, 1}, quad_xy[] = {0, 0, 2, 0, 2, 2, 0, 2};
        for (uint32_t v = 0; v < 7; v++) {
            bool on_tri = v < 3;
            const float *xy = on_tri ? &tri_xy[v * 2] : &quad_xy[(v - 3) * 2];
            float x = xy[0] - wt[1], y = xy[1] + wt[0] + (on_tri ? wt[2] : 0.0f);
            if (x < in->bounds.min.x || x > in->bounds.max.x || y < in->bounds.min.y || y > in->bounds.max.y)
                fail_msg("frame %u: instance %u bounds x %g..%g y %g..%g miss its vertex (%g, %g)", frame, i,
                         (double)in->bounds.min.x, (double)in->bounds.max.x, (double)in->bounds.min.y,
                         (double)in->bounds.max.y, (double)x, (double)y);
        }
    }
}

static const orr_render_instance *by_id(const orr_snapshot *s, uint32_t id)
{
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (s->instances[i].id == id) return &s->instances[i];
    return NULL;
}

static bool listed(const uint32_t *list, uint32_t n, uint32_t id)
{
    for (uint32_t k = 0; k < n; k++)
        if (list[k] == id) return true;
    return false;
}

/* The sidecar is the world's Fur components of the snapshot's instances, in instance order. */
static void expect_fur_of_world(const orr_snapshot *s, orr_world *w, uint32_t frame)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_fur_instance *c = orr_fur_instance_try_get(w, s->instances[i].entity);
        if (!c) continue;
        if (k >= s->fur_count || s->fur[k].instance != i)
            fail_msg("frame %u: instance %u wears fur but sidecar entry %u is %s", frame, i, k,
                     k < s->fur_count ? "another instance's" : "missing");
        const orr_render_fur *e = &s->fur[k++];
        assert_true(e->set == c->set && e->shell_count == c->shell_count && e->shell_length == c->shell_length &&
                    e->density == c->density && e->thinning == c->thinning);
    }
    assert_int_equal(k, s->fur_count);
}

/* Whether an instance kept from `prev` to `now` has its fur drawn otherwise (an entry appeared, went, or
 * turned usable or unusable): the draw protocol's layout. */
static bool fur_relaid(const orr_snapshot *now, const orr_snapshot *prev)
{
    for (uint32_t i = 0; i < now->instance_count; i++) {
        const orr_render_instance *was = by_id(prev, now->instances[i].id);
        if (!was) continue;
        const orr_render_fur *a = fur_at(now, i), *b = fur_at(prev, (uint32_t)(was - prev->instances));
        if ((a == NULL) != (b == NULL) || fur_usable(a) != fur_usable(b)) return true;
    }
    return false;
}

static void expect_equal(const orr_snapshot *inc, const orr_snapshot *full, uint32_t frame)
{
    if (inc->instance_count != full->instance_count)
        fail_msg("frame %u: %u instances incrementally, %u in full", frame, inc->instance_count, full->instance_count);
    for (uint32_t i = 0; i < inc->instance_count; i++)
        if (!same(inc, &inc->instances[i], full, &full->instances[i]))
            fail_msg("frame %u: instance %u (id %u) differs from the full extraction", frame, i, inc->instances[i].id);
    if (!orr_snapshot_equal(inc, full))
        fail_msg("frame %u: the snapshots differ (joints %u/%u, lights %u/%u, cameras %u/%u, fur %u/%u, changed %u/%u, "
                 "removed %u/%u, layout %llu/%llu)", frame, inc->joint_count, full->joint_count, inc->light_count,
                 full->light_count, inc->camera_count, full->camera_count, inc->fur_count, full->fur_count,
                 inc->changed_count, full->changed_count, inc->removed_count, full->removed_count,
                 (unsigned long long)inc->layout_version, (unsigned long long)full->layout_version);
}

/* changed = exactly the ids whose data differs from `prev` (new ones included), removed = exactly the
 * ids that left; each once. */
static uint32_t pose_marked; /* changed instances the extraction marked pose-only (changed_at) */

static void expect_delta(const orr_snapshot *inc, const orr_snapshot *prev, uint32_t frame)
{
    uint32_t expected = 0;
    for (uint32_t i = 0; i < inc->instance_count; i++) {
        const orr_render_instance *now = &inc->instances[i], *was = by_id(prev, now->id);
        bool differs = !was || !same(inc, now, prev, was);
        if (differs != listed(inc->changed, inc->changed_count, now->id))
            fail_msg("frame %u: id %u %s but is %s in changed", frame, now->id, differs ? "changed" : "did not change",
                     differs ? "not" : "");
        expected += differs;
    }
    assert_int_equal(inc->changed_count, expected);
    /* the hint beside changed, when given: each one's index, and pose-only ones changed nothing but
     * their world (and palette) */
    if (inc->changed_at_count == inc->changed_count && inc->changed_at_frame == inc->frame)
        for (uint32_t k = 0; k < inc->changed_count; k++) {
            uint32_t i = inc->changed_at[k] & ~ORR_CHANGED_POSE;
            if (i >= inc->instance_count || inc->instances[i].id != inc->changed[k])
                fail_msg("frame %u: changed_at[%u] = %u does not name id %u", frame, k, i, inc->changed[k]);
            const orr_render_instance *now = &inc->instances[i], *was = by_id(prev, now->id);
            if (!(inc->changed_at[k] & ORR_CHANGED_POSE)) continue;
            pose_marked++;
            if (!was || !orr_entity_eq(now->entity, was->entity) || now->layers != was->layers ||
                now->visible != was->visible || now->casts_shadows != was->casts_shadows ||
                !orr_id_eq(now->mesh, was->mesh) || memcmp(&now->bounds, &was->bounds, sizeof now->bounds) != 0 ||
                now->joint_count != was->joint_count || now->weight_count != was->weight_count ||
                now->material_count != was->material_count ||
                strcmp(orr_snapshot_name(inc, now->name), orr_snapshot_name(prev, was->name)) != 0)
                fail_msg("frame %u: id %u is marked pose-only but more than its pose changed", frame, now->id);
        }
    uint32_t gone = 0;
    for (uint32_t i = 0; i < prev->instance_count; i++) {
        bool left = !by_id(inc, prev->instances[i].id);
        if (left != listed(inc->removed, inc->removed_count, prev->instances[i].id))
            fail_msg("frame %u: id %u %s but is %s in removed", frame, prev->instances[i].id, left ? "left" : "stayed",
                     left ? "not" : "");
        gone += left;
    }
    assert_int_equal(inc->removed_count, gone);
}

/* The meshes, materials and skins every scene of these tests uses. */
static void scene_assets(scene *sc)
{
    static const float tri[] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, quad[] = {0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0};
    if (!sc->a) assert_int_equal(orr_assets_create(NULL, &sc->a, NULL), ORR_OK);
    /* mesh 2 is morphed: 3 targets on its triangle, 2 on its quad, one default weight given */
    static const float up[] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0}, left[] = {-1, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0, 0};
    static const float def_weight = 0.5f;
    orr_morph_target_desc targets[3] = {{.positions = up}, {.positions = left}, {.positions = up}};
    for (int m = 0; m < 3; m++) {
        orr_primitive_desc p[2] = {{.vertex_count = 3, .positions = tri}, {.vertex_count = 4, .positions = quad}};
        if (m == 2) p[0].target_count = 3, p[0].targets = targets, p[1].target_count = 2, p[1].targets = targets;
        orr_mesh_desc d = {.primitive_count = (uint32_t)(m == 2 ? 2 : 1), .primitives = m == 1 ? &p[1] : p,
                           .weight_count = m == 2 ? 1 : 0, .weights = &def_weight};
        assert_int_equal(orr_assets_add_mesh(sc->a, &d, &sc->meshes[m]), ORR_OK);
        orr_material mat = orr_material_default();
        mat.base_color[0] = 0.2f * m;
        mat.alpha_mode = m == 1 ? ORR_ALPHA_BLEND : m == 2 ? ORR_ALPHA_MASK : ORR_ALPHA_OPAQUE; /* every pass drawn */
        assert_int_equal(orr_assets_add_material(sc->a, &mat, &sc->materials[m]), ORR_OK);
    }
    orr_mat4d ibm[3];
    for (int j = 0; j < 3; j++) orr_mat4d_from_trs((orr_vec3d){0, -0.5 * (j + 1), 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &ibm[j]);
    assert_int_equal(orr_assets_add_skin(sc->a, &(orr_skin_desc){.joint_count = 3, .inverse_bind = ibm}, &sc->skin), ORR_OK);
    orr_mat4d big_ibm[BIG_JOINTS];
    for (int j = 0; j < BIG_JOINTS; j++)
        orr_mat4d_from_trs((orr_vec3d){0, -0.02 * (j + 1), 0}, ORR_QUAT_IDENTITY, ORR_VEC3_ONE, &big_ibm[j]);
    assert_int_equal(orr_assets_add_skin(sc->a, &(orr_skin_desc){.joint_count = BIG_JOINTS, .inverse_bind = big_ibm},
                                         &sc->big_skin),
                     ORR_OK);
}

/* ---- the random world, for the render thread's tests (frame_tests.h) --------------------------- */

struct orrt_random_world {
    scene sc;
    rng r;
};

orrt_random_world *orrt_random_world_create(orr_world *w, orr_assets *a, uint64_t seed)
{
    orrt_random_world *rw = calloc(1, sizeof *rw);
    assert_non_null(rw);
    rw->sc.w = w;
    rw->sc.a = a;
    rw->r.s = seed;
    scene_assets(&rw->sc);
    for (int i = 0; i < 60; i++) create(&rw->sc, &rw->r);
    for (int i = 0; i < 3; i++) create_skinned(&rw->sc, &rw->r);
    return rw;
}

void orrt_random_world_step(orrt_random_world *rw) { operate(&rw->sc, &rw->r); }

void orrt_random_world_move(orrt_random_world *rw)
{
    refresh_live(&rw->sc);
    for (uint32_t k = 0, n = 1 + pick(&rw->r, 8); k < n; k++) {
        orr_entity e = any(&rw->sc, &rw->r);
        if (e.generation) move(&rw->sc, &rw->r, e);
    }
}

void orrt_random_world_replace(orrt_random_world *rw)
{
    refresh_live(&rw->sc);
    for (uint32_t i = 0; i < rw->sc.live_count; i++)
        if (orr_entity_is_alive(rw->sc.w, rw->sc.live[i]) && !orr_entity_parent(rw->sc.w, rw->sc.live[i]).generation)
            orr_entity_destroy(rw->sc.w, rw->sc.live[i]);
    for (int i = 0; i < 40; i++) create(&rw->sc, &rw->r);
    create_skinned(&rw->sc, &rw->r);
}

void orrt_random_world_destroy(orrt_random_world *rw) { free(rw); }

void test_incremental_equals_full(void **state)
{
    (void)state;
    scene sc = {0};
    assert_int_equal(orr_world_create(NULL, &sc.w, NULL), ORR_OK);
    scene_assets(&sc);
    rng r = {0x1234567887654321ull};
    for (int i = 0; i < 60; i++) create(&sc, &r);
    for (int i = 0; i < 3; i++) create_skinned(&sc, &r);

    orr_snapshot inc, full[2];
    orr_snapshot_init(&inc, NULL);
    orr_extractor *x;
    assert_int_equal(orr_extractor_create(NULL, &x, NULL), ORR_OK);
    orr_snapshot_init(&full[0], NULL);
    orr_snapshot_init(&full[1], NULL);
    const char *env = getenv("ORRERY_INCREMENTAL_FRAMES");
    uint32_t frames = env ? (uint32_t)atoi(env) : 3000, in_place = 0, rebuilt = 0, changed_total = 0, furry = 0,
             fur_relayouts = 0;
    for (uint32_t f = 1; f <= frames; f++) {
        if (f > 1) operate(&sc, &r);
        uint64_t layout_before = inc.layout_version;
        orr_world_update_transforms(sc.w);
        bool structural = orr_world_get_changes(sc.w).all; /* the update then builds anew */
        assert_int_equal(orr_extractor_update(x, sc.w, sc.a, f, f, &inc), ORR_OK);
        orr_snapshot *now = &full[f & 1], *prev = &full[(f & 1) ^ 1];
        assert_int_equal(orr_frame_extract(sc.w, sc.a, f, f, f > 1 ? prev : NULL, now), ORR_OK);
        expect_equal(&inc, now, f);
        expect_fur_of_world(&inc, sc.w, f);
        expect_weights_of_world(&inc, sc.w, &sc, f);
        furry += inc.fur_count;
        if (f > 1) {
            assert_int_equal(inc.delta_base, f - 1);
            expect_delta(&inc, prev, f);
            if (fur_relaid(&inc, prev)) {
                fur_relayouts++;
                if (inc.layout_version == layout_before)
                    fail_msg("frame %u: an instance's fur entry came, went or turned (un)usable, layout_version "
                             "stayed %llu", f, (unsigned long long)layout_before);
            }
        }
        in_place += !structural;
        rebuilt += structural;
        changed_total += inc.changed_count;
        /* after a frame, the log is empty */
        orr_world_changes after = orr_world_get_changes(sc.w);
        assert_int_equal(after.moved_count + after.edited_count, 0);
        assert_false(after.all);
    }
    print_message("incremental extraction: %u frames (%u in place, %u rebuilt), %u changed instances in all, %u fur "
                  "entries, %u fur relayouts\n", frames, in_place, rebuilt, changed_total, furry, fur_relayouts);
    assert_true(in_place > frames / 3); /* the in-place path really ran */
    assert_true(pose_marked > 0);        /* and marked moves pose-only (checked in expect_delta) */
    assert_true(furry > frames);          /* fur was there most of the time */
    assert_true(fur_relayouts > 10);
    orr_snapshot_fini(&inc);
    orr_extractor_destroy(x);
    orr_snapshot_fini(&full[0]);
    orr_snapshot_fini(&full[1]);
    orr_world_destroy(sc.w);
    orr_assets_destroy(sc.a);
}

/* ---- the same bytes at any thread count ------------------------------------------------------ */

#define THREAD_RUNS 5
#define CROWD_ROOTS 64
#define CROWD_KIDS 16 /* per root, each with a grandchild */
#define CROWD (CROWD_ROOTS * (1 + 2 * CROWD_KIDS))
#define DANCERS 4

typedef struct threaded {
    scene sc;
    rng r;
    orr_entity crowd[CROWD];
    orr_entity bones[DANCERS][BIG_JOINTS];
    orr_extractor *x;
    orr_snapshot snap;
    orr_workers *workers;       /* the draw scenes' (NULL at one thread) */
    orr_draw_scene draws[2];    /* per draw order, rebuilt when the layout changed */
    orr_draw_visible visible[2]; /* and culled every frame */
    uint64_t built_layout;
} threaded;

/* A crowd of renderables in a three-level hierarchy, created in pre-order (the table stays in it). */
static void make_crowd(threaded *t)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < CROWD_ROOTS; i++) {
        orr_entity parent = ORR_ENTITY_NONE;
        for (uint32_t j = 0; j < 1 + 2 * CROWD_KIDS; j++) {
            orr_transform tr = orr_transform_identity();
            tr.translation = (orr_vec3d){i * 3.0 + j * 0.1, j * 0.2, unit(&t->r)};
            orr_entity p = j == 0 ? ORR_ENTITY_NONE : j % 2 ? parent : t->crowd[k - 1];
            orr_entity e = ORR_ENTITY_NONE;
            orr_entity_create(t->sc.w, &(orr_entity_desc){.parent = p, .local = &tr}, &e);
            orr_mesh_renderer mr = orr_mesh_renderer_default();
            mr.mesh = t->sc.meshes[j % 2];
            orr_component_add(t->sc.w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
            if (j == 0) parent = e;
            t->crowd[k++] = e;
        }
    }
}

/* Skinned characters of BIG_JOINTS joints in a chain. */
static void make_dancers(threaded *t)
{
    for (uint32_t d = 0; d < DANCERS; d++) {
        orr_entity prev = ORR_ENTITY_NONE, body;
        for (uint32_t j = 0; j < BIG_JOINTS; j++) {
            orr_transform tr = orr_transform_identity();
            tr.translation = j ? (orr_vec3d){0, 0.02, 0} : (orr_vec3d){d * 2.0, 0, -3};
            orr_entity_create(t->sc.w, &(orr_entity_desc){.parent = prev, .local = &tr}, &t->bones[d][j]);
            prev = t->bones[d][j];
        }
        orr_entity_create(t->sc.w, &(orr_entity_desc){.parent = t->bones[d][0]}, &body);
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = t->sc.meshes[0];
        orr_component_add(t->sc.w, body, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
        orr_skinned_mesh sk = {.skin = t->sc.big_skin};
        orr_component_add(t->sc.w, body, ORR_COMPONENT_SKINNED_MESH, &sk, NULL);
        orr_skinned_mesh_set_joints(t->sc.w, body, t->bones[d], BIG_JOINTS);
    }
}

/* One frame of motion: the dancers' joints posed from the frame number (as animation poses them from
 * the tick), and a random share of the crowd moved (roots, children and grandchildren, often a parent
 * and its child both, so that dirty subtrees nest across the chunks of a pass). */
static void stir(threaded *t, uint32_t frame, bool skins)
{
    for (uint32_t d = 0; skins && d < DANCERS; d++)
        for (uint32_t j = 1; j < BIG_JOINTS; j += 1 + (frame + d) % 3)
            orr_entity_set_rotation(t->sc.w, t->bones[d][j],
                                    orr_quatd_from_axis_angle((orr_vec3d){0, 0, 1}, 0.01 * sin(frame * 0.1 + j)));
    uint32_t moves = pick(&t->r, 4) == 0 ? CROWD / 2 : pick(&t->r, 3) == 0 ? 30 : pick(&t->r, 400);
    orr_entity e[CROWD];
    orr_vec3d v[CROWD];
    for (uint32_t k = 0; k < moves; k++) {
        e[k] = t->crowd[pick(&t->r, CROWD)];
        v[k] = (orr_vec3d){unit(&t->r) * 10, unit(&t->r), unit(&t->r)};
    }
    orr_entity_set_translations(t->sc.w, e, v, moves); /* destroyed ones are stale: skipped */
    if (pick(&t->r, 50) == 0) { /* every node at once, the crowd's roots moved too */
        for (uint32_t i = 0; i < CROWD; i += 1 + 2 * CROWD_KIDS)
            orr_entity_set_translation(t->sc.w, t->crowd[i], (orr_vec3d){i * 0.1, unit(&t->r), 1});
        orr_world_invalidate_transforms(t->sc.w);
    }
}

/* The moved lists of two worlds' change logs: the same entities in the same order. */
static void expect_same_log(orr_world *a, orr_world *b, uint32_t threads, uint32_t frame)
{
    orr_world_changes ca = orr_world_get_changes(a), cb = orr_world_get_changes(b);
    if (ca.all != cb.all || ca.moved_count != cb.moved_count || ca.edited_count != cb.edited_count ||
        (ca.moved_count && memcmp(ca.moved, cb.moved, ca.moved_count * sizeof *ca.moved) != 0))
        fail_msg("frame %u: the change log at %u threads (%u moved) differs from one thread's (%u moved)", frame, threads,
                 cb.moved_count, ca.moved_count);
}

/* The draw scenes of `t` (both orders) built again where the layout changed, on its threads, and culled
 * by the frame's view (it circles the scene; some frames show some layers only). */
static void draw_frame(threaded *t, uint32_t frame)
{
    if (frame == 1 || t->snap.layout_version != t->built_layout) {
        for (int o = 0; o < 2; o++)
            assert_int_equal(orr_draw_scene_build(&t->draws[o], &t->snap, t->sc.a, (orr_draw_order)o), ORR_OK);
        t->built_layout = t->snap.layout_version;
    }
    double a = frame * 0.07;
    orr_vec3d eye = {12 * cos(a), 3 * sin(a * 0.3), 12 * sin(a)}, target = {2 * sin(a * 2), 0, 0};
    orr_draw_view v = {.cull = frame % 7 != 0, .layer_mask = frame % 5 == 0 ? 0x3u : 0u, .origin = eye};
    orr_mat4d_perspective_reversed_infinite(0.9, 1.5, 0.1, &v.proj);
    orr_mat4d_look_at((orr_vec3d){0, 0, 0}, orr_vec3d_sub(target, eye), (orr_vec3d){0, 1, 0}, &v.view);
    for (int o = 0; o < 2; o++) {
        v.order = (orr_draw_order)o;
        assert_int_equal(orr_draw_scene_cull(&t->draws[o], &t->snap, &v, &t->visible[o]), ORR_OK);
    }
}

#define SAME(a, b, n) ((n) == 0 || memcmp((a), (b), (size_t)(n) * sizeof *(a)) == 0)

/* Two runs' draw scenes and culls: the same items, batches, drops, fur reaches, visible lists, ranges
 * and counters. */
static void expect_same_draws(const threaded *a, const threaded *b, uint32_t threads, uint32_t frame)
{
    for (int o = 0; o < 2; o++) {
        const orr_draw_scene *x = &a->draws[o], *y = &b->draws[o];
        if (x->item_count != y->item_count || x->batch_count != y->batch_count || x->fur_reach_count != y->fur_reach_count ||
            !SAME(x->items, y->items, x->item_count) || !SAME(x->batches, y->batches, x->batch_count) ||
            !SAME(x->fur_reach, y->fur_reach, x->fur_reach_count) || memcmp(x->dropped, y->dropped, sizeof x->dropped) ||
            x->fur_fallbacks != y->fur_fallbacks || memcmp(x->pass_items, y->pass_items, sizeof x->pass_items) ||
            memcmp(x->pass_batches, y->pass_batches, sizeof x->pass_batches))
            fail_msg("frame %u: the %s draw scene at %u threads (%u items) differs from one thread's (%u items)", frame,
                     orr_draw_order_name((orr_draw_order)o), threads, y->item_count, x->item_count);
        const orr_draw_visible *p = &a->visible[o], *q = &b->visible[o];
        bool same = p->range_count == q->range_count && p->opaque_ranges == q->opaque_ranges &&
                    !memcmp(&p->stats, &q->stats, sizeof p->stats) && SAME(p->ranges, q->ranges, p->range_count);
        for (uint32_t g = 0; same && g < p->range_count; g++)
            same = SAME(p->items + p->ranges[g].first, q->items + q->ranges[g].first, p->ranges[g].count);
        if (!same)
            fail_msg("frame %u: the %s cull at %u threads (%u visible, %u ranges) differs from one thread's (%u, %u)",
                     frame, orr_draw_order_name((orr_draw_order)o), threads, q->stats.visible, q->range_count,
                     p->stats.visible, p->range_count);
    }
}

/* Worlds driven by the same random operations (moves, hierarchy moves, create, destroy, reparent,
 * clone, skinned characters, component edits, a crowd moved by the thousand, every node invalidated),
 * propagated and extracted at 1, 2, 3, 7 and 16 threads with every pass shared out (parallel_from 1):
 * after every frame each world's change log and snapshot (every field, changed in order) equal the
 * one-thread world's. */
static void threads_same_snapshot(bool skins, uint32_t default_frames)
{
    static const uint32_t counts[THREAD_RUNS] = {1, 2, 3, 7, 16};
    static threaded run[THREAD_RUNS];
    memset(run, 0, sizeof run);
    scene_assets(&run[0].sc);
    for (int k = 0; k < THREAD_RUNS; k++) {
        threaded *t = &run[k];
        if (k) { /* one asset library, read by all */
            t->sc.a = run[0].sc.a;
            memcpy(t->sc.meshes, run[0].sc.meshes, sizeof t->sc.meshes);
            memcpy(t->sc.materials, run[0].sc.materials, sizeof t->sc.materials);
            t->sc.skin = run[0].sc.skin, t->sc.big_skin = run[0].sc.big_skin;
        }
        assert_int_equal(orr_world_create(&(orr_world_desc){.threads = counts[k], .parallel_from = 1}, &t->sc.w, NULL), ORR_OK);
        if (counts[k] > 1)
            assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = counts[k]}, &t->workers, NULL), ORR_OK);
        for (int o = 0; o < 2; o++) {
            orr_draw_scene_init(&t->draws[o], NULL);
            t->draws[o].workers = t->workers, t->draws[o].threads = counts[k];
            orr_draw_visible_init(&t->visible[o], NULL);
        }
        assert_int_equal(orr_extractor_create(NULL, &t->x, NULL), ORR_OK);
        orr_snapshot_init(&t->snap, NULL);
        t->r.s = 0x9e3779b97f4a7c15ull;
        t->sc.unskinned = !skins;
        for (int i = 0; i < 40; i++) create(&t->sc, &t->r);
        if (skins) make_dancers(t);
        make_crowd(t);
    }
    const char *env = getenv("ORRERY_THREADS_FRAMES");
    uint32_t frames = env ? (uint32_t)atoi(env) : default_frames, moved = 0, changed = 0;
    uint64_t drawn = 0;
    for (uint32_t f = 1; f <= frames; f++) {
        for (int k = 0; k < THREAD_RUNS; k++) {
            threaded *t = &run[k];
            if (f > 1) {
                if (f % 4 == 0) operate(&t->sc, &t->r); /* hierarchy and component changes */
                if (f % 300 == 0) { /* the crowd destroyed and made again: the table back in pre-order */
                    for (uint32_t i = 0; i < CROWD; i++) orr_entity_destroy(t->sc.w, t->crowd[i]);
                    make_crowd(t);
                }
                stir(t, f, skins);
            }
            orr_world_update_transforms(t->sc.w);
            if (k) expect_same_log(run[0].sc.w, t->sc.w, counts[k], f);
        }
        moved += orr_world_get_changes(run[0].sc.w).moved_count;
        for (int k = 0; k < THREAD_RUNS; k++) {
            threaded *t = &run[k];
            assert_int_equal(orr_extractor_update(t->x, t->sc.w, t->sc.a, f, f, &t->snap), ORR_OK);
            if (k && !orr_snapshot_equal(&run[0].snap, &t->snap))
                fail_msg("frame %u: the snapshot at %u threads differs from one thread's (changed %u/%u)", f, counts[k],
                         t->snap.changed_count, run[0].snap.changed_count);
            draw_frame(t, f);
            if (k) expect_same_draws(&run[0], t, counts[k], f);
        }
        changed += run[0].snap.changed_count;
        for (int o = 0; o < 2; o++) drawn += run[0].visible[o].stats.surface_draws;
    }
    print_message("threads%s: %u frames at 1, 2, 3, 7, 16 threads, %u poses recomputed, %u changed instances, %u "
                  "instances at the end, %llu surfaces drawn (%u items in the scene, %u transparent)\n",
                  skins ? "" : " (unskinned)", frames, moved,
                  changed, run[0].snap.instance_count, (unsigned long long)drawn, run[0].draws[0].item_count,
                  run[0].draws[0].item_count - run[0].draws[0].pass_items[ORR_PASS_TRANSPARENT]);
    assert_true(changed > frames * 100); /* passes large enough to be shared out, most frames */
    /* the scenes large enough to be shared out, and the views drawing some of them, not all */
    assert_true(run[0].snap.instance_count > 2048);
    assert_true(drawn > 0 && drawn < (uint64_t)frames * 2 * run[0].draws[0].item_count);
    for (int k = 0; k < THREAD_RUNS; k++) {
        for (int o = 0; o < 2; o++) {
            orr_draw_scene_fini(&run[k].draws[o]);
            orr_draw_visible_fini(&run[k].visible[o]);
        }
        orr_workers_destroy(run[k].workers);
        orr_snapshot_fini(&run[k].snap);
        orr_extractor_destroy(run[k].x);
        orr_world_destroy(run[k].sc.w);
    }
    orr_assets_destroy(run[0].sc.a);
}

void test_threads_same_snapshot(void **state)
{
    (void)state;
    threads_same_snapshot(true, 2000);
}

/* The same without skinned instances: a frame of moves alone then makes its work list on the threads
 * (a moved joint would add its instances one at a time). */
void test_threads_same_snapshot_unskinned(void **state)
{
    (void)state;
    threads_same_snapshot(false, 600);
}
