/* bench extract | draw: the per-frame CPU path, each beside a baseline measured in the same run.
 *   extract: world -> snapshot for N MeshRenderer entities: 1000 roots, each created with its share
 *            of children right after it (as instantiating a prefab does); baseline_extract copies the
 *            same poses and ids from flat arrays. --interleaved creates the children round-robin over
 *            the roots instead, so components sit far from pre-order (the slow case).
 *            --moving PCT: PCT percent of the entities move before each timed frame, and both paths
 *            are timed: orr_extractor_update (incremental, per changed instance) and orr_frame_extract (full,
 *            per instance), beside baseline_changed_extract, the ideal for the same changes: a 96-byte
 *            pose copied from a flat world array to a flat snapshot array at each changed instance's
 *            place, in the same order; extract_update_none is a frame in which nothing moved.
 *   draw:    orr_draw_prepare for N snapshot instances in mesh order, culling on;
 *            baseline_draw builds one record per instance from flat arrays and sorts them by mesh.
 *   extract --skinned [--joints J]: N (default 1000) copies of a character with a J-joint skin (default
 *            1000; a tree of joints, an AnimationPlayer on its root with one rotation channel per joint,
 *            the body a MeshRenderer and a SkinnedMesh), cloned from the first. Per frame, all joints
 *            animated: anim (orr_anim_apply), propagate (orr_world_update_transforms), extract_update
 *            (orr_extractor_update: every palette redone), extract_full (orr_frame_extract), draw_prepare
 *            (orr_draw_prepare: the skin tables copy every palette), each in ns per joint of all the
 *            instances (N x J), beside baseline_palette: the same palettes (inverse(instance world) x
 *            joint world x inverse bind, with orr_mat4d_mul) from flat arrays of binary64 matrices.
 *            skinned_bytes: what the SkinnedMesh with its joint list adds to the world per instance. */
#include "tool.h"

#include <math.h>
#include <orrery/anim.h>
#include <orrery/draw.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void emit(bool json, const char *name, uint32_t n, double ns_per_item)
{
    if (json) printf("{\"name\": \"%s\", \"n\": %u, \"ns_per_item\": %.3f}\n", name, n, ns_per_item);
    else printf("%-20s n=%-9u %10.3f ns/item\n", name, n, ns_per_item);
}

typedef struct flat_record {
    orr_affine3d world;
    uint32_t id, mesh, layers, visible;
} flat_record;

static int cmp_flat(const void *a, const void *b)
{
    const flat_record *x = a, *y = b;
    if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The best of `reps` runs, in ns per item. */
#define TIME_BEST(reps, n, body)                                                                           \
    ({                                                                                                     \
        double best = 1e300;                                                                               \
        for (int rep_ = 0; rep_ < (reps); rep_++) {                                                        \
            double t0_ = now_ns();                                                                         \
            body;                                                                                          \
            double dt_ = now_ns() - t0_;                                                                   \
            if (dt_ < best) best = dt_;                                                                    \
        }                                                                                                  \
        best / (double)(n);                                                                                \
    })

/* ---- --skinned ------------------------------------------------------------------------------ */

#define SKIN_FANOUT 3 /* joint j's parent: joint (j - 1) / 3: a tree about log3(J) deep, like a rig */

static void bone_local(uint32_t j, orr_transform *t)
{
    *t = orr_transform_identity();
    t->translation = (orr_vec3d){0.02 * (double)((j % 3) - 1.0), 0.1, 0.0};
}

/* One character under `root`: its skeleton, its body, and the player. Returns false on failure. */
static bool make_character(orr_world *w, orr_entity root, orr_mesh_id mesh, orr_clip_id clip, uint32_t joints,
                           orr_entity *bones, orr_entity *body)
{
    for (uint32_t j = 0; j < joints; j++) {
        orr_transform t;
        bone_local(j, &t);
        orr_entity_desc d = {.parent = j ? bones[(j - 1) / SKIN_FANOUT] : root, .local = &t};
        if (orr_entity_create(w, &d, &bones[j]) != ORR_OK) return false;
    }
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    orr_animation_player ap = orr_animation_player_default();
    ap.clip = clip;
    return orr_entity_create(w, &(orr_entity_desc){.parent = root}, body) == ORR_OK &&
           orr_component_add(w, *body, ORR_COMPONENT_MESH_RENDERER, &mr, NULL) == ORR_OK &&
           orr_component_add(w, root, ORR_COMPONENT_ANIMATION_PLAYER, &ap, NULL) == ORR_OK &&
           orr_animation_player_set_targets(w, root, bones, joints) == ORR_OK;
}

static int bench_skinned(uint32_t n, uint32_t joints, bool json)
{
    orr_world *w;
    orr_assets *assets;
    /* one thread: the baselines beside it are single-threaded loops */
    if (orr_world_create(&(orr_world_desc){.reserve = n * (joints + 2), .threads = 1}, &w, NULL) != ORR_OK) return 1;
    if (orr_assets_create(NULL, &assets, NULL) != ORR_OK) return 1;
    /* the mesh: a triangle per joint, weighted to it (only its bounds matter to extraction) */
    uint32_t verts = 3 * joints;
    float *pos = malloc(sizeof(float) * 3 * verts), *wts = malloc(sizeof(float) * 4 * verts);
    uint16_t *jnt = malloc(sizeof(uint16_t) * 4 * verts);
    orr_mat4d *ibm = malloc(sizeof *ibm * joints), *bind = malloc(sizeof *bind * joints);
    orr_entity *bones = malloc(sizeof *bones * joints), *roots = malloc(sizeof *roots * n),
               *bodies = malloc(sizeof *bodies * n);
    orr_anim_channel *ch = malloc(sizeof *ch * joints);
    if (!pos || !wts || !jnt || !ibm || !bind || !bones || !roots || !bodies || !ch) return 1;
    for (uint32_t v = 0; v < verts; v++) {
        pos[v * 3] = (float)(v % 3) * 0.05f, pos[v * 3 + 1] = (float)(v / 3) * 0.001f, pos[v * 3 + 2] = 0;
        jnt[v * 4] = (uint16_t)(v / 3), jnt[v * 4 + 1] = jnt[v * 4 + 2] = jnt[v * 4 + 3] = 0;
        wts[v * 4] = 1, wts[v * 4 + 1] = wts[v * 4 + 2] = wts[v * 4 + 3] = 0;
    }
    orr_primitive_desc pd = {.vertex_count = verts, .positions = pos, .joints = jnt, .weights = wts};
    orr_mesh_id mesh;
    if (orr_assets_add_mesh(assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &pd}, &mesh) != ORR_OK) return 1;
    /* the bind pose: the rest pose of the tree; inverse binds from it */
    for (uint32_t j = 0; j < joints; j++) {
        orr_transform t;
        bone_local(j, &t);
        orr_mat4d local;
        orr_transform_to_matrix(&t, &local);
        if (j) orr_mat4d_mul(&bind[(j - 1) / SKIN_FANOUT], &local, &bind[j]);
        else bind[j] = local;
        orr_mat4d_inverse_affine(&bind[j], &ibm[j]);
    }
    orr_skin_id skin;
    if (orr_assets_add_skin(assets, &(orr_skin_desc){.joint_count = joints, .inverse_bind = ibm}, &skin) != ORR_OK)
        return 1;
    /* the clip: joint j swings about z by up to 0.3 rad over 1 s, each a little out of phase */
    static const float times[3] = {0, 0.5f, 1};
    float *rot = malloc(sizeof(float) * 12 * joints);
    if (!rot) return 1;
    for (uint32_t j = 0; j < joints; j++) {
        double a = 0.3 * (double)(j % 7) / 6.0;
        float *q = rot + 12 * j;
        q[0] = q[1] = 0, q[2] = 0, q[3] = 1;
        q[4] = q[5] = 0, q[6] = (float)sin(a / 2), q[7] = (float)cos(a / 2);
        q[8] = q[9] = 0, q[10] = 0, q[11] = 1;
        ch[j] = (orr_anim_channel){.target = j, .path = ORR_ANIM_ROTATION, .interpolation = ORR_INTERP_LINEAR,
                                   .key_count = 3, .components = 4, .times = times, .values = q};
    }
    orr_clip_id clip;
    if (orr_assets_add_clip(assets, &(orr_clip_desc){.name = "swing", .channel_count = joints, .channels = ch}, &clip) !=
        ORR_OK)
        return 1;
    free(rot);
    /* the first character, then clones of it on a grid (the player's targets remapped to each copy) */
    uint32_t side = (uint32_t)ceil(sqrt((double)n));
    orr_transform at = orr_transform_identity();
    if (orr_entity_create(w, &(orr_entity_desc){.local = &at}, &roots[0]) != ORR_OK) return 1;
    orr_entity body0;
    if (!make_character(w, roots[0], mesh, clip, joints, bones, &body0)) return 1;
    double t0 = now_ns();
    for (uint32_t i = 1; i < n; i++) {
        at.translation = (orr_vec3d){(double)(i % side) * 2.0, 0, (double)(i / side) * 2.0};
        if (orr_world_clone(w, NULL, roots[0], ORR_ENTITY_NONE, &at, &roots[i]) != ORR_OK) {
            fprintf(stderr, "orrery bench extract: clone: %s\n", orr_world_last_error(w)->message);
            return 1;
        }
    }
    double clone_ns = n > 1 ? (now_ns() - t0) / (n - 1) : 0;
    /* the skins, on every body: what they add to the world is the SkinnedMesh and its joint list */
    for (uint32_t i = 0; i < n; i++) bodies[i] = orr_entity_last_child(w, roots[i]);
    if (orr_component_reserve(w, ORR_COMPONENT_SKINNED_MESH, n) != ORR_OK) return 1;
    size_t before = orr_world_memory_bytes(w);
    for (uint32_t i = 0; i < n; i++) {
        const orr_entity *targets = orr_animation_player_targets(w, roots[i], NULL); /* this copy's bones */
        orr_skinned_mesh sk = {.skin = skin};
        if (orr_component_add(w, bodies[i], ORR_COMPONENT_SKINNED_MESH, &sk, NULL) != ORR_OK ||
            orr_skinned_mesh_set_joints(w, bodies[i], targets, joints) != ORR_OK)
            return 1;
    }
    double skinned_bytes = (double)(orr_world_memory_bytes(w) - before) / n;
    orr_world_update_transforms(w);

    orr_snapshot live, full;
    orr_snapshot_init(&live, NULL);
    orr_snapshot_init(&full, NULL);
    orr_extractor *extractor;
    if (orr_extractor_create(NULL, &extractor, NULL) != ORR_OK) return 1;
    if (orr_extractor_update(extractor, w, assets, 1, 0, &live) != ORR_OK) return 1;
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    orr_draw_view v = {.cull = false, .layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH};
    orr_mat4d_identity(&v.view);
    orr_mat4d_perspective_reversed_infinite(1.2, 1.0, 0.1, &v.proj);
    /* the baseline's flat arrays: instance inverses, joint worlds in palette order, inverse binds */
    uint64_t total = (uint64_t)n * joints;
    orr_mat4d *inv = malloc(sizeof *inv * n), *jw = malloc(sizeof *jw * total);
    orr_affine3d *flat_out = malloc(sizeof *flat_out * total);
    if (!inv || !jw || !flat_out) return 1;
    double best[6] = {1e300, 1e300, 1e300, 1e300, 1e300, 1e300};
    uint32_t changed = 0;
    for (int rep = 0; rep < 6; rep++) {
        uint64_t tick = 7 + (uint64_t)rep * 5;
        double a0 = now_ns();
        uint32_t written = orr_anim_apply(w, assets, tick, 1.0 / 60.0);
        double a1 = now_ns();
        orr_world_update_transforms(w);
        double a2 = now_ns();
        if (orr_extractor_update(extractor, w, assets, 2 + (uint64_t)rep, tick, &live) != ORR_OK) return 1;
        double a3 = now_ns();
        if (orr_frame_extract(w, assets, 2 + (uint64_t)rep, tick, NULL, &full) != ORR_OK) return 1;
        double a4 = now_ns();
        orr_draw_prepare(&list, &live, assets, &v);
        double a5 = now_ns();
        if (written != total) {
            fprintf(stderr, "orrery bench extract: %u channels written, %llu expected\n", written,
                    (unsigned long long)total);
            return 1;
        }
        changed = live.changed_count;
        /* the baseline over the same poses */
        for (uint32_t i = 0; i < n; i++) {
            orr_mat4d m;
            orr_affine3d_to_mat4d(&live.instances[i].world, &m);
            orr_mat4d_inverse_affine(&m, &inv[i]);
            const orr_entity *bl = orr_skinned_mesh_joints(w, orr_snapshot_find(&live, live.instances[i].id) == i
                                                                   ? live.instances[i].entity
                                                                   : ORR_ENTITY_NONE,
                                                           NULL);
            for (uint32_t j = 0; j < joints; j++) orr_entity_world_matrix(w, bl[j], &jw[(uint64_t)i * joints + j]);
        }
        double b0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t j = 0; j < joints; j++) {
                orr_mat4d t, p;
                orr_mat4d_mul(&inv[i], &jw[(uint64_t)i * joints + j], &t);
                orr_mat4d_mul(&t, &ibm[j], &p);
                orr_affine3d_from_mat4d(&p, &flat_out[(uint64_t)i * joints + j]);
            }
        }
        __asm__ volatile("" ::"r"(flat_out) : "memory");
        double b1 = now_ns();
        double d[6] = {a1 - a0, a2 - a1, a3 - a2, a4 - a3, a5 - a4, b1 - b0};
        for (int k = 0; k < 6; k++)
            if (rep > 0 && d[k] < best[k]) best[k] = d[k]; /* the first frame warms up */
    }
    if (memcmp(flat_out, live.joints, sizeof *flat_out * (size_t)total) != 0)
        fprintf(stderr, "orrery bench extract: note: the baseline's palettes differ from the snapshot's\n");
    static const char *names[6] = {"anim", "propagate", "extract_update", "extract_full", "draw_prepare",
                                   "baseline_palette"};
    for (int k = 0; k < 6; k++) {
        if (json)
            printf("{\"name\": \"skinned_%s\", \"n\": %u, \"joints\": %u, \"ns_per_item\": %.3f, \"ms_per_frame\": %.3f}\n",
                   names[k], n, joints, best[k] / (double)total, best[k] * 1e-6);
        else
            printf("skinned_%-17s n=%u x %u joints %8.2f ns per joint %10.3f ms per frame\n", names[k], n, joints,
                   best[k] / (double)total, best[k] * 1e-6);
    }
    if (json) {
        printf("{\"name\": \"skinned_bytes\", \"n\": %u, \"joints\": %u, \"value\": %.1f, \"unit\": \"bytes per instance\"}\n",
               n, joints, skinned_bytes);
        printf("{\"name\": \"skinned_clone\", \"n\": %u, \"joints\": %u, \"ns_per_item\": %.1f, \"unit\": \"ns per character\"}\n",
               n, joints, clone_ns);
        printf("{\"name\": \"skinned_snapshot\", \"n\": %u, \"joints\": %u, \"instances\": %u, \"palette_bytes\": %llu, "
               "\"changed\": %u, \"world_bytes\": %zu}\n",
               n, joints, live.instance_count, (unsigned long long)live.joint_count * sizeof *live.joints, changed,
               orr_world_memory_bytes(w));
    } else {
        printf("skinned_bytes             %.1f bytes per instance (SkinnedMesh and %u joints)\n", skinned_bytes, joints);
        printf("skinned_clone             %.1f us per character\n", clone_ns * 1e-3);
        printf("snapshot: %u instances, %u changed per frame, %.1f MB of palettes; world %.1f MB\n", live.instance_count,
               changed, live.joint_count * sizeof *live.joints / 1e6, orr_world_memory_bytes(w) / 1e6);
    }
    orr_draw_list_fini(&list);
    orr_snapshot_fini(&live);
    orr_snapshot_fini(&full);
    orr_extractor_destroy(extractor);
    free(pos), free(wts), free(jnt), free(ibm), free(bind), free(bones), free(roots), free(bodies), free(ch);
    free(inv), free(jw), free(flat_out);
    orr_world_destroy(w);
    orr_assets_destroy(assets);
    return 0;
}

static const char extract_help[] =
    "usage: orrery bench extract [--n N] [--interleaved] [--moving PCT] [--json]\n"
    "       orrery bench extract --skinned [--n CHARACTERS] [--joints J] [--json]\n"
    "  world -> snapshot for N MeshRenderer entities (1000..100000000, default 100000), beside a copy from\n"
    "  flat arrays. --interleaved: children created round-robin over the roots (far from pre-order).\n"
    "  --moving PCT (0..100): PCT percent move before each frame; the incremental and the full extraction\n"
    "  are both timed. --skinned: CHARACTERS (1..100000, default 1000) copies of a character with a skin of\n"
    "  J joints (1..65536, default 1000), all animated. --json: one object per line, baselines included.\n";

static const char draw_help[] =
    "usage: orrery bench draw [--n N] [--interleaved] [--json]\n"
    "  orr_draw_prepare for N snapshot instances (1000..100000000, default 100000) in mesh order, culling\n"
    "  on, beside one record per instance from flat arrays sorted by mesh. --json: one object per line.\n";

int orr_tool_bench_extract(int argc, char **argv)
{
    bool draw = !strcmp(argv[0], "draw"), json = false, interleaved = false, skinned = false, n_given = false;
    uint32_t n = 100000, joints = 1000;
    double moving = -1.0;
    for (int i = 1; i < argc && !draw; i++) skinned = skinned || !strcmp(argv[i], "--skinned"); /* --n means characters */
    bool ended = false;
    for (int i = 1; i < argc; i++) {
        if (tool_arg_kind(argv[i], &ended) == 1) continue;
        if (ended || argv[i][0] != '-')
            return tool_usage_error(draw ? "bench draw" : "bench extract", "unexpected argument '%s'", argv[i]);
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--skinned") && !draw) continue;
        else if (!strcmp(argv[i], "--joints") && !draw) {
            if (!tool_opt_u32(argc, argv, &i, 1, 65536, &joints)) return 2;
        } else if (!strcmp(argv[i], "--n") && !draw && skinned) { /* characters: from 1 */
            if (!tool_opt_u32(argc, argv, &i, 1, 100000, &n)) return 2;
            n_given = true;
        }
        else if (!strcmp(argv[i], "--interleaved")) interleaved = true;
        else if (!strcmp(argv[i], "--n")) {
            if (!tool_opt_u32(argc, argv, &i, 1000, 100000000, &n)) return 2;
            n_given = true;
        } else if (!strcmp(argv[i], "--moving") && !draw) {
            if (!tool_opt_number(argc, argv, &i, 0, 100, &moving)) return 2;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(draw ? draw_help : extract_help, stdout);
            return 0;
        } else {
            return tool_unknown_option(draw ? "bench draw" : "bench extract", argv[i]);
        }
    }
    if (skinned) {
        if (!n_given) n = 1000;
        if ((uint64_t)n * (joints + 2) > 100000000) {
            fprintf(stderr, "orrery bench extract: --n %u x --joints %u is more than 10^8 entities\n", n, joints);
            return 2;
        }
        return bench_skinned(n, joints, json);
    }
    orr_session *session;
    if (orr_session_create(&(orr_session_desc){.threads = 1}, &session, NULL) != ORR_OK) return 1; /* as above */
    orr_world *w = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    static const float tri[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    orr_mesh_id meshes[8];
    for (int m = 0; m < 8; m++) {
        orr_primitive_desc p = {.vertex_count = 3, .positions = tri};
        if (orr_assets_add_mesh(assets, &(orr_mesh_desc){.primitive_count = 1, .primitives = &p}, &meshes[m]) != ORR_OK)
            return 1;
    }
    /* Entity k of root r: k = 0 is the root itself, children stand 0.1 m apart above it. */
    uint32_t made = 0, per_root = n / 1000;
    orr_entity roots[1000];
    /* progress on a terminal, outside the timed parts */
    tool_progress progress;
    tool_progress_begin(&progress, draw ? "bench draw" : "bench extract");
    for (uint32_t i = 0; i < n; i++) {
        if (i % 4096 == 0) tool_progress_update(&progress, "building entities", i, n);
        uint32_t r = interleaved ? i % 1000 : i / per_root, k = interleaved ? i / 1000 : i % per_root;
        if (!interleaved && r >= 1000) r = 999, k = i - 999 * per_root; /* the remainder joins the last root */
        orr_transform t = orr_transform_identity();
        t.translation = k == 0 ? (orr_vec3d){(double)r, 0.0, -10.0 - (double)(r % 7)} : (orr_vec3d){0.0, 0.1 * k, 0.0};
        orr_entity e;
        if (orr_entity_create(w, &(orr_entity_desc){.parent = k ? roots[r] : ORR_ENTITY_NONE, .local = &t}, &e) != ORR_OK)
            return 1;
        if (k == 0) roots[r] = e;
        orr_mesh_renderer mr = orr_mesh_renderer_default();
        mr.mesh = meshes[i % 8];
        if (orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL) != ORR_OK) return 1;
        made++;
    }
    tool_progress_update(&progress, "propagating and extracting", 0, 0);
    orr_world_update_transforms(w);
    orr_snapshot snap;
    orr_snapshot_init(&snap, NULL);
    if (orr_frame_extract(w, assets, 1, 0, NULL, &snap) != ORR_OK) return 1;

    /* the flat arrays the baselines read: the same poses and ids, already in order */
    flat_record *flat = tool_flat_alloc((size_t)n * sizeof *flat), *out = tool_flat_alloc((size_t)n * sizeof *out);
    if (!flat || !out) return 1;
    for (uint32_t i = 0; i < n; i++)
        flat[i] = (flat_record){snap.instances[i].world, snap.instances[i].id, snap.instances[i].mesh.index, 1, 1};

    if (!draw && moving >= 0) {
        uint32_t k = (uint32_t)llround(n * moving / 100.0);
        orr_entity *all = malloc((size_t)n * sizeof *all);
        uint32_t *picks = malloc((size_t)(k ? k : 1) * sizeof *picks), count = 0;
        orr_affine3d *flat_world = tool_flat_alloc((size_t)n * sizeof *flat_world),
                     *flat_snap = tool_flat_alloc((size_t)n * sizeof *flat_snap);
        if (!all || !picks || !flat_world || !flat_snap) return 1;
        orr_subtree_iter it;
        orr_subtree_begin(w, ORR_ENTITY_NONE, &it);
        for (orr_entity e; orr_subtree_next(&it, &e);) all[count++] = e;
        orr_subtree_end(&it);
        for (uint32_t i = 0; i < n; i++) flat_world[i] = flat_snap[i] = snap.instances[i].world;
        orr_snapshot live, full;
        orr_snapshot_init(&live, NULL);
        orr_snapshot_init(&full, NULL);
        orr_world_clear_changes(w);
        orr_extractor *extractor;
        if (orr_extractor_create(NULL, &extractor, NULL) != ORR_OK) return 1;
        if (orr_extractor_update(extractor, w, assets, 2, 0, &live) != ORR_OK) return 1;
        uint64_t seed = 0x9E3779B97F4A7C15ull;
        double best_inc = 1e300, best_full = 1e300, best_base = 1e300, best_none = 1e300, best_changed = 0;
        for (int rep = 0; rep < 20; rep++) {
            tool_progress_update(&progress, "moving frames", (uint64_t)rep, 20);
            for (uint32_t j = 0; j < k; j++) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                picks[j] = (uint32_t)(seed % count);
                orr_transform t;
                orr_entity_get_local(w, all[picks[j]], &t);
                t.translation.z += rep % 2 ? 0.5 : -0.5;
                orr_entity_set_translation(w, all[picks[j]], t.translation);
            }
            orr_world_update_transforms(w);
            double t0 = now_ns();
            if (orr_extractor_update(extractor, w, assets, 3 + rep, 0, &live) != ORR_OK) return 1;
            double t1 = now_ns();
            if (orr_frame_extract(w, assets, 3 + rep, 0, NULL, &full) != ORR_OK) return 1;
            double t2 = now_ns();
            for (uint32_t j = 0; j < k; j++) flat_snap[picks[j]] = flat_world[(picks[j] * 2654435761u) % n];
            __asm__ volatile("" ::"r"(flat_snap) : "memory");
            double t3 = now_ns();
            uint32_t moved_changed = live.changed_count;
            if (orr_extractor_update(extractor, w, assets, 100 + rep, 0, &live) != ORR_OK) return 1; /* nothing moved */
            double t4 = now_ns();
            if (t1 - t0 < best_inc) best_inc = t1 - t0, best_changed = moved_changed;
            if (t2 - t1 < best_full) best_full = t2 - t1;
            if (t3 - t2 < best_base) best_base = t3 - t2;
            if (t4 - t3 < best_none) best_none = t4 - t3;
        }
        tool_progress_end(&progress);
        double changed = best_changed; /* of the frame whose time is reported */
        double per_changed = changed ? best_inc / changed : 0;
        if (json) {
            printf("{\"name\": \"extract_update\", \"n\": %u, \"moving\": %g, \"changed\": %.0f, \"ns_per_item\": %.3f}\n", n,
                   moving, changed, per_changed);
            printf("{\"name\": \"extract_full\", \"n\": %u, \"ns_per_item\": %.3f}\n", n, best_full / n);
            printf("{\"name\": \"baseline_changed_extract\", \"n\": %u, \"changed\": %u, \"ns_per_item\": %.3f}\n", n, k,
                   k ? best_base / k : 0.0);
            printf("{\"name\": \"extract_update_none\", \"n\": %u, \"value\": %.1f, \"unit\": \"ns per frame\"}\n", n, best_none);
        } else {
            printf("extract_update     n=%-9u %10.1f ns per changed instance (%.0f changed, %.3f ms)\n", n, per_changed,
                   changed, best_inc * 1e-6);
            printf("extract_full       n=%-9u %10.1f ns per instance (%.3f ms)\n", n, best_full / n, best_full * 1e-6);
            printf("baseline_changed_extract %4u moves %10.1f ns per change\n", k, k ? best_base / k : 0.0);
            printf("extract_update_none         %10.1f ns (nothing moved)\n", best_none);
        }
        orr_snapshot_fini(&live);
        orr_snapshot_fini(&full);
        orr_extractor_destroy(extractor);
        free(all);
        free(picks);
        tool_flat_free(flat_world, (size_t)n * sizeof *flat_world);
        tool_flat_free(flat_snap, (size_t)n * sizeof *flat_snap);
    } else if (!draw) {
        orr_snapshot next;
        orr_snapshot_init(&next, NULL);
        tool_progress_update(&progress, "timing extract", 0, 0);
        double ns = TIME_BEST(5, n, orr_frame_extract(w, assets, 2, 0, &snap, &next));
        double base = TIME_BEST(5, n, {
            for (uint32_t i = 0; i < n; i++) out[i] = flat[i];
            __asm__ volatile("" ::"r"(out) : "memory");
        });
        tool_progress_end(&progress);
        emit(json, "extract", n, ns);
        emit(json, "baseline_extract", n, base);
        orr_snapshot_fini(&next);
    } else {
        orr_draw_list list;
        orr_draw_list_init(&list, NULL);
        orr_draw_view v = {.cull = true, .layer_mask = ORR_LAYERS_ALL, .order = ORR_ORDER_MESH};
        orr_mat4d_identity(&v.view);
        orr_mat4d_perspective_reversed_infinite(1.2, 1.0, 0.1, &v.proj);
        v.origin = (orr_vec3d){500, 50, 600};
        tool_progress_update(&progress, "timing draw_prepare", 0, 0);
        double ns = TIME_BEST(5, n, orr_draw_prepare(&list, &snap, assets, &v));
        double base = TIME_BEST(5, n, {
            memcpy(out, flat, (size_t)n * sizeof *out);
            qsort(out, n, sizeof *out, cmp_flat);
        });
        tool_progress_end(&progress);
        emit(json, "draw_prepare", n, ns);
        emit(json, "baseline_draw", n, base);
        if (!json) printf("(%u of %u instances visible, %u batches)\n", list.stats.visible, n, list.stats.batches);
        orr_draw_list_fini(&list);
    }
    tool_flat_free(flat, (size_t)n * sizeof *flat);
    tool_flat_free(out, (size_t)n * sizeof *out);
    orr_snapshot_fini(&snap);
    orr_session_destroy(session);
    return made == n ? 0 : 1;
}
