/* Frame: session profiles, the fixed-step clock, extraction to an owned snapshot, changed lists, joint
 * palettes, determinism. */
#include "frame_tests.h"

#include <math.h>
#include <orrery/frame.h>
#include <stdlib.h>
#include <string.h>

static const float tri[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

static orr_mesh_id add_tri(orr_assets *a)
{
    orr_primitive_desc p = {.vertex_count = 3, .positions = tri};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "tri", .primitive_count = 1, .primitives = &p}, &id),
                     ORR_OK);
    return id;
}

static orr_entity add(orr_world *w, const char *name, orr_entity parent, double x, orr_mesh_id mesh)
{
    orr_transform t = orr_transform_identity();
    t.translation.x = x;
    orr_entity e;
    assert_int_equal(orr_entity_create(w, &(orr_entity_desc){.name = name, .parent = parent, .local = &t}, &e), ORR_OK);
    if (!orr_id_is_none(mesh)) {
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = mesh;
        assert_int_equal(orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL), ORR_OK);
    }
    return e;
}

typedef struct counter {
    int presents, ticks, released;
    uint64_t last_frame, last_tick;
} counter;

static void on_present(void *user, const orr_snapshot *s, const orr_assets *a)
{
    (void)a;
    counter *c = user;
    c->presents++;
    c->last_frame = s->frame;
    c->last_tick = s->tick;
}

static void on_tick(void *user, orr_world *w, orr_assets *a, uint64_t tick, double step)
{
    (void)w, (void)a, (void)step;
    counter *c = user;
    c->ticks++;
    assert_int_equal(tick, (uint64_t)c->ticks);
}

static void on_release(void *user) { ((counter *)user)->released++; }

/* A tick_only system: the spinner's rotation from the tick count alone; counts its calls. */
typedef struct spinning {
    counter c;
    orr_entity spinner;
} spinning;

static void spin(void *user, orr_world *w, orr_assets *a, uint64_t tick, double step)
{
    (void)a;
    spinning *sp = user;
    sp->c.ticks++;
    sp->c.last_tick = tick;
    orr_entity_set_rotation(w, sp->spinner, orr_quatd_from_axis_angle((orr_vec3d){0, 1, 0}, (double)tick * step * 0.37));
}

/* A session of a spinner (moved by `spin`) and a child moved by a looping clip; `c` counts spin's calls. */
static orr_session *spinning_session(spinning *c)
{
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_assets *a = orr_session_assets(s);
    orr_mesh_id mesh = add_tri(a);
    orr_entity spinner = c->spinner = add(w, "spinner", ORR_ENTITY_NONE, 0, mesh);
    orr_entity child = add(w, "child", spinner, 1, mesh);
    static const float times[3] = {0, 0.7f, 1.9f}, values[9] = {0, 0, 0, 3, 1, 0, -2, 0.5f, 4};
    orr_anim_channel ch = {.target = 0, .path = ORR_ANIM_TRANSLATION, .interpolation = ORR_INTERP_LINEAR,
                           .key_count = 3, .components = 3, .times = times, .values = values};
    orr_clip_id clip;
    assert_int_equal(orr_assets_add_clip(a, &(orr_clip_desc){.channel_count = 1, .channels = &ch}, &clip), ORR_OK);
    orr_animation_player p = orr_animation_player_default();
    p.clip = clip;
    assert_int_equal(orr_component_add(w, child, ORR_COMPONENT_ANIMATION_PLAYER, &p, NULL), ORR_OK);
    assert_int_equal(orr_animation_player_set_targets(w, child, &child, 1), ORR_OK);
    assert_int_equal(orr_session_add_system(s, &(orr_system_desc){spin, c, NULL, .tick_only = true}), ORR_OK);
    return s;
}

/* Skipping ticks leaves the world (and so the snapshot) that running them one by one leaves, running
 * one tick's work however many are skipped; a system that is not tick_only refuses the skip. */
/* An allocator that refuses every allocation after `left` of them, counting bytes outstanding. */
typedef struct refusing {
    long long bytes;
    int left;
} refusing;

static void *refusing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    refusing *f = user;
    if (new_size == 0) {
        if (ptr) f->bytes -= (long long)old_size;
        free(ptr);
        return NULL;
    }
    if (f->left-- <= 0) return NULL;
    void *p = realloc(ptr, new_size);
    if (p) f->bytes += (long long)new_size - (ptr ? (long long)old_size : 0);
    return p;
}

/* orr_session_create says why it failed: at every allocation it can fail at, the result is
 * ORR_ERROR_OUT_OF_MEMORY, `err` holds that code and a message naming the part that could not be
 * made, nothing leaks, and *out is left alone; with enough memory it succeeds with err untouched. */
static void test_session_create_reports_why(void **state)
{
    (void)state;
    int n = 0;
    for (;; n++) {
        refusing f = {0, n};
        orr_session *s = (orr_session *)&f; /* a sentinel: must stay as it is on failure */
        orr_error err = {0};
        orr_session_desc d = {.allocator = {refusing_realloc, &f}};
        orr_result r = orr_session_create(&d, &s, &err);
        if (r == ORR_OK) {
            assert_int_equal(err.code, ORR_OK);
            orr_session_destroy(s);
            assert_int_equal(f.bytes, 0);
            break;
        }
        assert_int_equal(r, ORR_ERROR_OUT_OF_MEMORY);
        assert_int_equal(err.code, r);
        assert_non_null(strstr(err.message, "_create: out of memory"));
        assert_ptr_equal(s, (orr_session *)&f);
        assert_int_equal(f.bytes, 0);
        assert_true(n < 10000);
    }
    assert_true(n > 3); /* the session, its world, its library, its extractor */
}

static void test_skip_ticks(void **state)
{
    (void)state;
    spinning step = {0}, skip = {0};
    counter *stepped = &step.c, *skipped = &skip.c;
    orr_session *a = spinning_session(&step), *b = spinning_session(&skip);
    assert_int_equal(orr_session_run_ticks(a, 1234), ORR_OK);
    assert_int_equal(orr_session_skip_ticks(b, 1234), ORR_OK);
    assert_int_equal(stepped->ticks, 1234);
    assert_int_equal(skipped->ticks, 1); /* the work done: one tick */
    assert_int_equal(orr_session_tick(b), 1234);
    assert_int_equal(skipped->last_tick, 1234);
    assert_int_equal(orr_session_run_frame(a, 0.0), ORR_OK);
    assert_int_equal(orr_session_run_frame(b, 0.0), ORR_OK);
    const orr_snapshot *sa = orr_session_snapshot(a), *sb = orr_session_snapshot(b);
    assert_int_equal(sa->instance_count, 2);
    assert_int_equal(sb->instance_count, 2);
    assert_int_equal(sa->tick, sb->tick);
    for (uint32_t i = 0; i < 2; i++)
        assert_memory_equal(&sa->instances[i].world, &sb->instances[i].world, sizeof sa->instances[i].world);
    /* the child moved: the comparison is not of two rest poses */
    assert_true(fabs(orr_affine3d_translation(&sb->instances[1].world).x - 1.0) > 1e-3);
    /* 1e7 s of ticks: still one tick's work */
    assert_int_equal(orr_session_skip_ticks(b, 600000000ull), ORR_OK);
    assert_int_equal(skipped->ticks, 2);
    assert_int_equal(orr_session_tick(b), 1234 + 600000000ull);
    assert_int_equal(orr_session_skip_ticks(b, UINT64_MAX), ORR_ERROR_INVALID_ARGUMENT);
    assert_int_equal(orr_session_tick(b), 1234 + 600000000ull);
    orr_session_destroy(a);
    orr_session_destroy(b);
    /* a system that needs every tick */
    counter c = {0};
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    assert_int_equal(orr_session_add_system(s, &(orr_system_desc){on_tick, &c, NULL}), ORR_OK);
    assert_int_equal(orr_session_skip_ticks(s, 100), ORR_ERROR_UNSUPPORTED);
    assert_non_null(strstr(orr_session_last_error(s)->message, "not tick_only"));
    assert_int_equal(orr_session_tick(s), 0);
    assert_int_equal(c.ticks, 0);
    orr_session_destroy(s);
}

static void test_dedicated_server_never_extracts(void **state)
{
    (void)state;
    counter c = {0};
    orr_session *s;
    assert_int_equal(orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_DEDICATED_SERVER, .present = on_present,
                                                            .present_user = &c}, &s, NULL), ORR_OK);
    add(orr_session_world(s), "a", ORR_ENTITY_NONE, 0, add_tri(orr_session_assets(s)));
    assert_int_equal(orr_session_add_system(s, &(orr_system_desc){on_tick, &c, on_release}), ORR_OK);
    for (int i = 0; i < 120; i++) assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    assert_int_equal(orr_session_tick(s), 120);
    assert_int_equal(c.ticks, 120);
    assert_int_equal(orr_session_extractions(s), 0);
    assert_int_equal(c.presents, 0);
    orr_session_destroy(s);
    assert_int_equal(c.released, 1);
}

/* The same world and frames in both profiles: the presenting session extracts once per presented frame
 * (its counter, its presents and the snapshot's frame id agree), the server never (and keeps no change
 * log between frames). */
static void test_extraction_counts(void **state)
{
    (void)state;
    counter pc = {0}, sc = {0};
    orr_session *presenting, *server;
    assert_int_equal(orr_session_create(&(orr_session_desc){.present = on_present, .present_user = &pc}, &presenting, NULL),
                     ORR_OK);
    assert_int_equal(orr_session_create(&(orr_session_desc){.profile = ORR_PROFILE_DEDICATED_SERVER,
                                                            .present = on_present, .present_user = &sc},
                                        &server, NULL),
                     ORR_OK);
    orr_session *both[2] = {presenting, server};
    orr_entity moved[2];
    for (int k = 0; k < 2; k++) moved[k] = add(orr_session_world(both[k]), "a", ORR_ENTITY_NONE, 0, add_tri(orr_session_assets(both[k])));
    for (int f = 1; f <= 90; f++) {
        for (int k = 0; k < 2; k++) {
            orr_entity_set_translation(orr_session_world(both[k]), moved[k], (orr_vec3d){f, 0, 0});
            assert_int_equal(orr_session_run_frame(both[k], f % 3 ? 1.0 / 60.0 : 0.0), ORR_OK);
        }
        assert_int_equal(orr_session_extractions(presenting), (uint64_t)f);
        assert_int_equal(pc.presents, f);
        assert_int_equal(orr_session_snapshot(presenting)->frame, (uint64_t)f);
        assert_int_equal(orr_session_extractions(server), 0);
        orr_world_changes ch = orr_world_get_changes(orr_session_world(server));
        assert_int_equal(ch.moved_count + ch.edited_count, 0);
    }
    assert_int_equal(sc.presents, 0);
    assert_int_equal(orr_session_tick(presenting), orr_session_tick(server));
    orr_session_destroy(presenting);
    orr_session_destroy(server);
}

static void test_presenting_clock_and_frame_ids(void **state)
{
    (void)state;
    counter c = {0};
    orr_session *s;
    assert_int_equal(orr_session_create(&(orr_session_desc){.present = on_present, .present_user = &c}, &s, NULL), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 0.05), ORR_OK); /* 3 ticks due at 1/60 */
    assert_int_equal(orr_session_tick(s), 3);
    assert_int_equal(c.presents, 1);
    assert_int_equal(c.last_frame, 1);
    assert_int_equal(c.last_tick, 3);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK); /* no tick due, still a frame */
    assert_int_equal(c.last_frame, 2);
    assert_int_equal(c.last_tick, 3);
    assert_int_equal(orr_session_run_frame(s, -1.0), ORR_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(orr_session_last_error(s)->message, "elapsed"));
    orr_session_destroy(s);
}

static void test_snapshot_contents(void **state)
{
    (void)state;
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_mesh_id tri_mesh = add_tri(orr_session_assets(s));
    orr_entity a = add(w, "a", ORR_ENTITY_NONE, 1, tri_mesh);
    orr_entity b = add(w, "b", ORR_ENTITY_NONE, 2, tri_mesh);
    orr_entity a_child = add(w, "a_child", a, 10, tri_mesh);
    orr_mesh_renderer_edit(w, b)->visible = false;
    orr_light on = orr_light_default(), off = orr_light_default();
    off.enabled = false;
    assert_int_equal(orr_component_add(w, a, ORR_COMPONENT_LIGHT, &on, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, b, ORR_COMPONENT_LIGHT, &off, NULL), ORR_OK);
    orr_camera cam = orr_camera_default();
    assert_int_equal(orr_component_add(w, a_child, ORR_COMPONENT_CAMERA, &cam, NULL), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(s);
    assert_int_equal(snap->instance_count, 3);
    /* pre-order: a, a_child, b */
    assert_string_equal(orr_snapshot_name(snap, snap->instances[0].name), "a");
    assert_string_equal(orr_snapshot_name(snap, snap->instances[1].name), "a_child");
    assert_string_equal(orr_snapshot_name(snap, snap->instances[2].name), "b");
    assert_true(orr_entity_eq(snap->instances[1].entity, a_child));
    assert_true(snap->instances[1].world.m[9] == 11.0); /* parent 1 + local 10 */
    assert_false(snap->instances[2].visible);           /* hidden stays in the snapshot */
    assert_int_equal(snap->light_count, 1);              /* disabled light absent */
    assert_true(orr_entity_eq(snap->lights[0].entity, a));
    assert_int_equal(snap->camera_count, 1);
    assert_true(snap->cameras[0].world.m[9] == 11.0);
    assert_true(snap->instances[0].bounds.max.x == 1.0);
    orr_session_destroy(s);
}

static void test_changed_list(void **state)
{
    (void)state;
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_mesh_id m = add_tri(orr_session_assets(s));
    orr_entity e[4];
    for (int i = 0; i < 4; i++) e[i] = add(w, "e", i == 3 ? e[2] : ORR_ENTITY_NONE, i, m);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    assert_int_equal(orr_session_snapshot(s)->changed_count, 4); /* first frame: everything */
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    assert_int_equal(orr_session_snapshot(s)->changed_count, 0);
    /* moving e[2] moves its child e[3] too; they are instances 2 and 3 in pre-order */
    assert_int_equal(orr_entity_set_translation(w, e[2], (orr_vec3d){5, 0, 0}), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(s);
    assert_int_equal(snap->changed_count, 2);
    assert_int_equal(snap->changed[0], 2);
    assert_int_equal(snap->changed[1], 3);
    orr_session_destroy(s);
}

static void test_joint_palette(void **state)
{
    (void)state;
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_assets *a = orr_session_assets(s);
    orr_entity body = add(w, "body", ORR_ENTITY_NONE, 3, add_tri(a));
    orr_entity joint = add(w, "joint", ORR_ENTITY_NONE, 5, (orr_mesh_id){0, 0});
    orr_mat4d ibm;
    orr_mat4d_identity(&ibm);
    ibm.m[13] = -1.0; /* bind pose one metre up */
    orr_skin_id skin;
    assert_int_equal(orr_assets_add_skin(a, &(orr_skin_desc){.joint_count = 1, .inverse_bind = &ibm}, &skin), ORR_OK);
    orr_skinned_mesh sm = {.skin = skin};
    assert_int_equal(orr_component_add(w, body, ORR_COMPONENT_SKINNED_MESH, &sm, NULL), ORR_OK);
    assert_int_equal(orr_skinned_mesh_set_joints(w, body, &joint, 1), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(s);
    assert_int_equal(snap->instances[0].joint_count, 1);
    const orr_affine3d *p = &snap->joints[snap->instances[0].joint_offset];
    /* inverse(body at x=3) x joint(x=5) x ibm(y=-1) = translation (2, -1, 0) */
    assert_true(fabs(p->m[9] - 2.0) < 1e-12 && fabs(p->m[10] + 1.0) < 1e-12 && fabs(p->m[11]) < 1e-12);
    orr_session_destroy(s);
}

/* Palette entry j of instance i, as a translation (the test's joints do not rotate). */
static void palette_translation(const orr_snapshot *snap, uint32_t i, uint32_t j, double out[3])
{
    const orr_affine3d *p = &snap->joints[snap->instances[i].joint_offset + j];
    for (int k = 0; k < 9; k++) assert_true(p->m[k] == (k % 4 == 0 ? 1.0 : 0.0)); /* linear part: identity */
    out[0] = p->m[9], out[1] = p->m[10], out[2] = p->m[11];
}

/* A 1,000-joint skin (the old cap was 256): a chain of joints, joint j at (5, j, 0) in the world, each
 * inverse bind a translation by (0, -j/2, 0), the body at (3, 0, 0), so palette entry j is exactly a
 * translation by (2, j/2, 0). Moving the chain's root moves every entry, in an incremental frame; a
 * joint list longer than the skin draws with the skin's joints, a shorter one with its own. */
static void test_thousand_joint_palette(void **state)
{
    (void)state;
    enum { J = 1000 };
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_assets *a = orr_session_assets(s);
    orr_entity body = add(w, "body", ORR_ENTITY_NONE, 3, add_tri(a));
    orr_entity joints[J + 200];
    for (uint32_t j = 0; j < J + 200; j++) {
        orr_transform t = orr_transform_identity();
        t.translation = j == 0 ? (orr_vec3d){5, 0, 0} : (orr_vec3d){0, 1, 0};
        orr_entity_desc d = {.parent = j ? joints[j - 1] : ORR_ENTITY_NONE, .local = &t};
        assert_int_equal(orr_entity_create(w, &d, &joints[j]), ORR_OK);
    }
    orr_mat4d *ibm = malloc(sizeof *ibm * J);
    assert_non_null(ibm);
    for (uint32_t j = 0; j < J; j++) {
        orr_mat4d_identity(&ibm[j]);
        ibm[j].m[13] = -0.5 * j;
    }
    orr_skin_id skin;
    assert_int_equal(orr_assets_add_skin(a, &(orr_skin_desc){.joint_count = J, .inverse_bind = ibm}, &skin), ORR_OK);
    free(ibm);
    orr_skinned_mesh sm = {.skin = skin};
    assert_int_equal(orr_component_add(w, body, ORR_COMPONENT_SKINNED_MESH, &sm, NULL), ORR_OK);
    assert_int_equal(orr_skinned_mesh_set_joints(w, body, joints, J), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(s);
    assert_int_equal(snap->instance_count, 1);
    assert_int_equal(snap->instances[0].joint_count, J);
    assert_int_equal(snap->joint_count, J);
    for (uint32_t j = 0; j < J; j++) {
        double t[3];
        palette_translation(snap, 0, j, t);
        assert_true(t[0] == 2.0 && t[1] == 0.5 * j && t[2] == 0.0);
    }
    /* the chain's root moves by 1 in x: every entry follows, in place (an incremental frame) */
    uint64_t base = snap->frame;
    assert_int_equal(orr_entity_set_translation(w, joints[0], (orr_vec3d){6, 0, 0}), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    snap = orr_session_snapshot(s);
    assert_int_equal(snap->delta_base, base);
    assert_int_equal(snap->changed_count, 1);
    assert_int_equal(snap->changed[0], snap->instances[0].id);
    for (uint32_t j = 0; j < J; j++) {
        double t[3];
        palette_translation(snap, 0, j, t);
        assert_true(t[0] == 3.0 && t[1] == 0.5 * j);
    }
    /* more joints than the skin has: the skin's 1000; fewer: the list's */
    assert_int_equal(orr_skinned_mesh_set_joints(w, body, joints, J + 200), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    assert_int_equal(orr_session_snapshot(s)->instances[0].joint_count, J);
    assert_int_equal(orr_skinned_mesh_set_joints(w, body, joints + 1, 300), ORR_OK); /* joint j is now node j + 1 */
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    snap = orr_session_snapshot(s);
    assert_int_equal(snap->instances[0].joint_count, 300);
    assert_int_equal(snap->joint_count, 300);
    for (uint32_t j = 0; j < 300; j++) {
        double t[3];
        palette_translation(snap, 0, j, t);
        assert_true(t[0] == 3.0 && t[1] == 0.5 * j + 1.0);
    }
    orr_session_destroy(s);
}

/* Material overrides past the old 8 slots: the snapshot's bindings are the MeshRenderer's list (trailing
 * none entries trimmed), 300 slots; an instance without overrides has none in the snapshot; changing
 * one slot in an incremental frame rebinds the instance (layout_version) and nothing else. */
static void test_many_material_slots(void **state)
{
    (void)state;
    enum { SLOTS = 300 };
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_assets *a = orr_session_assets(s);
    orr_mesh_id m = add_tri(a);
    orr_entity dressed = add(w, "dressed", ORR_ENTITY_NONE, 0, m), plain = add(w, "plain", ORR_ENTITY_NONE, 1, m);
    orr_material_id mats[SLOTS + 2];
    for (uint32_t k = 0; k < SLOTS; k++) {
        orr_material mat = orr_material_default();
        mat.base_color[1] = (float)k / SLOTS;
        assert_int_equal(orr_assets_add_material(a, &mat, &mats[k]), ORR_OK);
    }
    mats[SLOTS] = mats[SLOTS + 1] = (orr_material_id){0, 0}; /* trailing none: trimmed */
    assert_int_equal(orr_mesh_renderer_set_materials(w, dressed, mats, SLOTS + 2), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(s);
    const orr_render_instance *in = &snap->instances[orr_snapshot_find(snap, dressed.index)];
    assert_int_equal(in->material_count, SLOTS);
    assert_memory_equal(snap->material_bindings + in->material_offset, mats, SLOTS * sizeof *mats);
    assert_true(orr_id_eq(orr_snapshot_material(snap, in, SLOTS - 1, (orr_material_id){0, 0}), mats[SLOTS - 1]));
    assert_int_equal(snap->instances[orr_snapshot_find(snap, plain.index)].material_count, 0);
    assert_int_equal(snap->material_binding_count, SLOTS);
    uint64_t layout = snap->layout_version, base = snap->frame;
    assert_int_equal(orr_mesh_renderer_set_material(w, dressed, 250, mats[3]), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    snap = orr_session_snapshot(s);
    assert_int_equal(snap->delta_base, base); /* in place */
    in = &snap->instances[orr_snapshot_find(snap, dressed.index)];
    assert_true(orr_id_eq(snap->material_bindings[in->material_offset + 250], mats[3]));
    assert_int_equal(snap->layout_version, layout + 1);
    assert_int_equal(snap->changed_count, 1);
    assert_int_equal(snap->changed[0], dressed.index);
    orr_session_destroy(s);
}

/* The fur sidecar from the world's Fur components: one entry per instance that wears fur, in instance
 * order, its values as set; an incremental frame that edits a value lists the instance as changed with
 * the layout kept, one that makes the entry unusable bumps the layout; copy carries the sidecar, fini
 * frees it (ASan checks). */
static void test_fur_sidecar(void **state)
{
    (void)state;
    orr_session *s;
    assert_int_equal(orr_session_create(NULL, &s, NULL), ORR_OK);
    orr_world *w = orr_session_world(s);
    orr_mesh_id m = add_tri(orr_session_assets(s));
    orr_entity bare = add(w, "bare", ORR_ENTITY_NONE, 0, m), furry = add(w, "furry", ORR_ENTITY_NONE, 1, m),
               longhair = add(w, "longhair", furry, 2, m), hidden = add(w, "no renderer", ORR_ENTITY_NONE, 3, (orr_mesh_id){0, 0});
    orr_fur_instance lh = {.set = ORR_FUR_SET_SHELL_LENGTH | ORR_FUR_SET_SHELL_COUNT, .shell_count = 40, .shell_length = 0.25f};
    assert_int_equal(orr_component_add(w, furry, ORR_COMPONENT_FUR, NULL, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, longhair, ORR_COMPONENT_FUR, &lh, NULL), ORR_OK);
    assert_int_equal(orr_component_add(w, hidden, ORR_COMPONENT_FUR, &lh, NULL), ORR_OK); /* no instance: no entry */
    orr_component_type found;
    assert_int_equal(orr_world_find_component(w, "Fur", &found), ORR_OK);
    assert_int_equal(found, ORR_COMPONENT_FUR);
    assert_int_equal(orr_session_run_frame(s, 0.0), ORR_OK);
    const orr_snapshot *snap = orr_session_snapshot(s);
    assert_int_equal(snap->instance_count, 3);
    assert_int_equal(snap->fur_count, 2);
    uint32_t fi = orr_snapshot_find(snap, furry.index), li = orr_snapshot_find(snap, longhair.index);
    assert_int_equal(snap->fur[0].instance, fi);
    assert_int_equal(snap->fur[0].set, 0); /* the material's look */
    assert_int_equal(snap->fur[1].instance, li);
    assert_int_equal(snap->fur[1].set, lh.set);
    assert_int_equal(snap->fur[1].shell_count, 40);
    assert_true(snap->fur[1].shell_length == 0.25f);
    assert_true(fi < li && orr_snapshot_find(snap, bare.index) < fi);

    /* a value edit: in place, the instance changed, the layout kept */
    uint64_t layout = snap->layout_version, base = snap->frame;
    orr_fur_instance_edit(w, longhair)->shell_length = 0.5f;
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    snap = orr_session_snapshot(s);
    assert_int_equal(snap->delta_base, base);
    assert_true(snap->fur[1].shell_length == 0.5f);
    assert_int_equal(snap->layout_version, layout);
    assert_int_equal(snap->changed_count, 1);
    assert_int_equal(snap->changed[0], longhair.index);
    /* a value out of range: the entry is drawn as none, a layout change */
    orr_fur_instance_edit(w, longhair)->shell_count = 0;
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    snap = orr_session_snapshot(s);
    assert_int_equal(snap->fur[1].shell_count, 0);
    assert_int_equal(snap->layout_version, layout + 1);
    /* removing the component is structural: the entry goes */
    assert_int_equal(orr_component_remove(w, furry, ORR_COMPONENT_FUR), ORR_OK);
    assert_int_equal(orr_session_run_frame(s, 1.0 / 60.0), ORR_OK);
    snap = orr_session_snapshot(s);
    assert_int_equal(snap->fur_count, 1);
    assert_int_equal(snap->fur[0].instance, orr_snapshot_find(snap, longhair.index));
    assert_true(snap->layout_version > layout + 1);

    orr_snapshot copy;
    orr_snapshot_init(&copy, NULL);
    assert_int_equal(orr_snapshot_copy(snap, &copy), ORR_OK);
    assert_int_equal(copy.fur_count, 1);
    assert_true(copy.fur != snap->fur);
    assert_memory_equal(copy.fur, snap->fur, sizeof *copy.fur);
    orr_snapshot_fini(&copy);
    orr_session_destroy(s);
}

static void build(orr_session *s)
{
    orr_world *w = orr_session_world(s);
    orr_mesh_id m = add_tri(orr_session_assets(s));
    orr_entity prev = ORR_ENTITY_NONE;
    for (int i = 0; i < 50; i++) prev = add(w, "n", i % 5 ? prev : ORR_ENTITY_NONE, 0.25 * i, m);
}

static void test_same_inputs_same_snapshot(void **state)
{
    (void)state;
    orr_session *s1, *s2;
    assert_int_equal(orr_session_create(NULL, &s1, NULL), ORR_OK);
    assert_int_equal(orr_session_create(NULL, &s2, NULL), ORR_OK);
    build(s1);
    build(s2);
    assert_int_equal(orr_session_run_frame(s1, 0.1), ORR_OK);
    assert_int_equal(orr_session_run_frame(s2, 0.1), ORR_OK);
    const orr_snapshot *a = orr_session_snapshot(s1), *b = orr_session_snapshot(s2);
    assert_int_equal(a->instance_count, b->instance_count);
    assert_memory_equal(a->instances, b->instances, a->instance_count * sizeof *a->instances);
    assert_memory_equal(a->names, b->names, a->names_size);
    /* a copy equals its source */
    orr_snapshot copy;
    orr_snapshot_init(&copy, NULL);
    assert_int_equal(orr_snapshot_copy(a, &copy), ORR_OK);
    assert_memory_equal(copy.instances, a->instances, a->instance_count * sizeof *a->instances);
    orr_snapshot_fini(&copy);
    orr_session_destroy(s1);
    orr_session_destroy(s2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedicated_server_never_extracts), cmocka_unit_test(test_presenting_clock_and_frame_ids),
        cmocka_unit_test(test_extraction_counts),               cmocka_unit_test(test_skip_ticks),
        cmocka_unit_test(test_session_create_reports_why),
        cmocka_unit_test(test_snapshot_contents),               cmocka_unit_test(test_changed_list),
        cmocka_unit_test(test_joint_palette),                   cmocka_unit_test(test_thousand_joint_palette),
        cmocka_unit_test(test_many_material_slots),             cmocka_unit_test(test_fur_sidecar),
        cmocka_unit_test(test_same_inputs_same_snapshot),       cmocka_unit_test(test_incremental_equals_full),
        cmocka_unit_test(test_threads_same_snapshot),           cmocka_unit_test(test_threads_same_snapshot_unskinned),
        cmocka_unit_test(test_render_thread_same_snapshots),    cmocka_unit_test(test_render_thread_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
