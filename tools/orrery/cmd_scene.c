/* render, snapshot and serve: build a world from a file (or the built-in orrery), run it, and then
 * draw, print or just tick it. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <orrery/gpu.h>
#include <orrery/technique.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building the scene ------------------------------------------------------------------ */

void tool_choose_animation(orr_world *world, orr_entity root, bool play, orr_clip_id clip)
{
    orr_entity players[64];
    for (;;) { /* in rounds of 64: a removal must not happen while the subtree is iterated */
        uint32_t count = 0;
        bool more = false;
        orr_subtree_iter it;
        orr_subtree_begin(world, root, &it);
        for (orr_entity e; orr_subtree_next(&it, &e);) {
            const orr_animation_player *p = orr_animation_player_try_get(world, e);
            if (!p || (play && orr_id_eq(p->clip, clip))) continue;
            if (count == 64) {
                more = true;
                break;
            }
            players[count++] = e;
        }
        orr_subtree_end(&it);
        for (uint32_t i = 0; i < count; i++) {
            if (!play) {
                orr_component_remove(world, players[i], ORR_COMPONENT_ANIMATION_PLAYER);
            } else {
                orr_animation_player *p = orr_animation_player_edit(world, players[i]);
                p->clip = clip;
            }
        }
        if (!more) return;
    }
}

/* The loader's progress, as one line on a terminal (tool_progress). */
static void load_progress(void *user, orr_gltf_phase phase, uint64_t done, uint64_t total)
{
    tool_progress *p = user;
    switch (phase) {
    case ORR_GLTF_PHASE_PARSE: tool_progress_update(p, "parsing", 0, 0); break;
    case ORR_GLTF_PHASE_IMAGES: tool_progress_update(p, "decoding images", done, total); break;
    case ORR_GLTF_PHASE_MESHES: tool_progress_update(p, "building meshes", done, total); break;
    case ORR_GLTF_PHASE_WORLD: tool_progress_update(p, "building the prefab", 0, 0); break;
    }
}

int tool_dress_in_fur(orr_world *world, orr_assets *assets, double length, double density)
{
    orr_texture_id noise;
    if (orr_assets_add_fur_noise(assets, NULL, &noise) != ORR_OK) {
        fprintf(stderr, "orrery: --fur: %s\n", orr_assets_last_error(assets)->message);
        return 1;
    }
    /* the renderables first (adding a component is structural: not while the world is iterated) */
    uint32_t cap = orr_world_component_count(world, ORR_COMPONENT_MESH_RENDERER), count = 0;
    orr_entity *list = malloc((size_t)(cap ? cap : 1) * sizeof *list);
    if (!list) {
        fprintf(stderr, "orrery: --fur: out of memory\n");
        return 1;
    }
    orr_subtree_iter it;
    orr_subtree_begin(world, ORR_ENTITY_NONE, &it);
    for (orr_entity e; orr_subtree_next(&it, &e);)
        if (count < cap && orr_component_has(world, e, ORR_COMPONENT_MESH_RENDERER)) list[count++] = e;
    orr_subtree_end(&it);
    int status = 0;
    for (uint32_t k = 0; k < count && !status; k++) {
        orr_entity e = list[k];
        const orr_mesh_renderer *mr = orr_mesh_renderer_try_get(world, e);
        const orr_mesh *mesh = orr_assets_try_get_mesh(assets, mr->mesh);
        uint32_t overrides = 0;
        const orr_material_id *slots = orr_mesh_renderer_materials(world, e, &overrides);
        for (uint32_t p = 0; mesh && p < mesh->primitive_count; p++) {
            orr_material_id id = p < overrides && !orr_id_is_none(slots[p]) ? slots[p] : mesh->primitives[p].material;
            if (orr_id_is_none(id)) id = orr_assets_default_material(assets);
            const orr_material *now = orr_assets_try_get_material(assets, id);
            if (!now || (now->shading == ORR_SHADING_FUR && orr_id_eq(now->fur.noise, noise))) continue; /* done */
            orr_material *m = orr_assets_try_edit_material(assets, id);
            m->shading = ORR_SHADING_FUR;
            m->fur = orr_material_default().fur;
            m->fur.shell_length = (float)length;
            if (density > 0) m->fur.density = (float)density;
            m->fur.noise = noise;
        }
        if (!orr_component_has(world, e, ORR_COMPONENT_FUR) &&
            orr_component_add(world, e, ORR_COMPONENT_FUR, NULL, NULL) != ORR_OK) {
            fprintf(stderr, "orrery: --fur: %s\n", orr_world_last_error(world)->message);
            status = 1;
        }
    }
    free(list);
    return status;
}

/* --floor: a grey square under the scene's visible renderables of `o->layers` as they stand at time 0,
 * its top at their lowest point, five times their largest extent across, receiving (and casting)
 * shadows. Returns 0, or 1 after printing why. */
static int add_floor(orr_world *world, orr_assets *assets, const tool_scene_options *o)
{
    orr_world_update_transforms(world);
    orr_snapshot at0;
    orr_snapshot_init(&at0, NULL);
    orr_result r = orr_frame_extract(world, assets, 0, 0, NULL, &at0);
    orr_aabbd box = tool_scene_box(&at0, assets, o->file ? o->layers : o->layers & ~TOOL_SKY_LAYER);
    orr_snapshot_fini(&at0);
    if (r == ORR_OK && orr_aabbd_is_empty(box)) return 0; /* nothing to stand on it */
    static const float pos[12] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1}, nrm[12] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3}; /* counter-clockwise seen from above */
    orr_primitive_desc p = {.vertex_count = 4, .positions = pos, .normals = nrm, .index_count = 6, .indices = idx};
    orr_material m = orr_material_default();
    m.base_color[0] = m.base_color[1] = m.base_color[2] = 0.5f;
    m.metallic = 0.0f;
    m.roughness = 0.9f;
    orr_mesh_id mesh = {0};
    orr_material_id mat = {0};
    if (r == ORR_OK) r = orr_assets_add_mesh(assets, &(orr_mesh_desc){.name = "floor", .primitive_count = 1, .primitives = &p}, &mesh);
    if (r == ORR_OK) r = orr_assets_add_material(assets, &m, &mat);
    orr_vec3d ext = orr_vec3d_sub(box.max, box.min);
    double half = 2.5 * fmax(fmax(ext.x, ext.y), fmax(ext.z, 1e-3));
    orr_transform t = orr_transform_identity();
    t.translation = (orr_vec3d){0.5 * (box.min.x + box.max.x), box.min.y, 0.5 * (box.min.z + box.max.z)};
    t.scale = (orr_vec3d){half, 1, half};
    orr_entity e;
    if (r == ORR_OK) r = orr_entity_create(world, &(orr_entity_desc){.name = "floor", .local = &t}, &e);
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    mr.layers = o->layers;
    if (r == ORR_OK) r = orr_component_add(world, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
    if (r == ORR_OK) r = orr_mesh_renderer_set_material(world, e, 0, mat);
    if (r != ORR_OK) {
        fprintf(stderr, "orrery: --floor: %s\n", orr_result_name(r));
        return 1;
    }
    return 0;
}

/* Copies built beyond this count show their progress (on a terminal). */
#define TOOL_PROGRESS_INSTANCES 100000u

int tool_scene_build(orr_session *session, tool_scene_options *o)
{
    orr_world *world = orr_session_world(session);
    orr_assets *assets = orr_session_assets(session);
    orr_error err = {0};
    /* Everything hangs under one root placed at --offset, so the offset moves the whole scene. */
    orr_transform at = orr_transform_identity();
    at.translation = o->offset;
    orr_entity top = {0, 0};
    if (orr_entity_create(world, &(orr_entity_desc){.name = "scene", .local = &at}, &o->root) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", orr_world_last_error(world)->message);
        return 1;
    }
    top = o->root;
    o->layers = ORR_LAYERS_ALL;
    if (!o->file) {
        /* the built-in scene moves by a system, not by clips */
        if (o->anim_given && o->anim >= 0) {
            fprintf(stderr, "orrery: --anim %d: the built-in scene has 0 animations; valid: none\n", (int)o->anim);
            return 2;
        }
        if (tool_builtin_orrery(session, o->belt_given ? o->belt : TOOL_BELT_DEFAULT, o->meshlets, &err) != ORR_OK) {
            fprintf(stderr, "orrery: built-in scene: %s\n", err.message);
            return 1;
        }
    } else {
        if (o->belt_given) {
            fprintf(stderr, "%s: --belt: the asteroid belt is the built-in scene's; a file has none\n", o->file);
            return 2;
        }
        orr_prefab_id prefab;
        char what[4200];
        snprintf(what, sizeof what, "loading %s", o->file);
        tool_progress progress;
        tool_progress_begin(&progress, what);
        orr_gltf_options load = {.progress = load_progress, .progress_user = &progress, .build_meshlets = o->meshlets,
                                 .lod_levels = o->lods};
        if (o->log) o->log->progress = &progress;
        orr_result loaded = orr_gltf_load(assets, o->file, &load, &prefab, &err);
        if (o->log) o->log->progress = NULL;
        tool_progress_end(&progress);
        if (loaded != ORR_OK) {
            fprintf(stderr, "%s: %s\n", o->file, err.message);
            return 1;
        }
        /* An index the file does not have is refused, whether it has no animations or some. */
        uint32_t clip_count = orr_prefab_clips(assets, prefab, NULL, 0);
        orr_clip_id clip = {0, 0};
        if (o->anim >= 0 && (uint32_t)o->anim < clip_count) {
            orr_clip_id *clips = malloc((size_t)clip_count * sizeof *clips);
            if (!clips) {
                fprintf(stderr, "orrery: out of memory\n");
                return 1;
            }
            orr_prefab_clips(assets, prefab, clips, clip_count);
            clip = clips[o->anim];
            free(clips);
        } else if (o->anim >= 0 && o->anim_given) {
            if (clip_count)
                fprintf(stderr, "%s: --anim %d: the file has %u animation%s; valid: none or 0..%u\n", o->file,
                        (int)o->anim, clip_count, clip_count == 1 ? "" : "s", clip_count - 1);
            else
                fprintf(stderr, "%s: --anim %d: the file has 0 animations; valid: none\n", o->file, (int)o->anim);
            return 2;
        }
        bool play = o->anim >= 0 && (uint32_t)o->anim < clip_count;
        o->prefab = prefab;
        o->clip_count = clip_count;
        /* The copies' entities are bounded, not only their count: a file of many nodes times many copies. */
        uint64_t per_copy = orr_world_entity_count(orr_prefab_world(assets, prefab));
        if ((uint64_t)o->instances * per_copy > TOOL_MAX_ENTITIES) {
            fprintf(stderr, "%s: --instances %u: %u copies of %llu entities exceed the limit of %u entities\n", o->file,
                    o->instances, o->instances, (unsigned long long)per_copy, TOOL_MAX_ENTITIES);
            return 2;
        }
        /* Scene i of the file is layer bit i: views show the default scene. */
        uint32_t scene = orr_prefab_default_scene(assets, prefab);
        if (scene < 32) o->layers = 1u << scene;
        /* N copies on a square grid in X/Z, spaced by the scene's largest extent. */
        uint32_t side = (uint32_t)ceil(sqrt((double)o->instances));
        double spacing = 1.0;
        tool_progress building;
        tool_progress_begin(&building, "building instances");
        building.on = building.on && o->instances > TOOL_PROGRESS_INSTANCES;
        for (uint32_t i = 0; i < o->instances; i++) {
            if (i % 1024 == 0) tool_progress_update(&building, "copy", i, o->instances);
            orr_transform local = orr_transform_identity();
            local.translation = (orr_vec3d){(double)(i % side) * spacing, 0.0, (double)(i / side) * spacing};
            orr_entity copy;
            if (orr_prefab_instantiate(world, assets, prefab, top, &local, &copy) != ORR_OK) {
                tool_progress_end(&building);
                fprintf(stderr, "%s: instantiate: %s\n", o->file, orr_world_last_error(world)->message);
                return 1;
            }
            tool_choose_animation(world, copy, play, clip);
            if (i == 0 && o->instances > 1) {
                orr_aabbd b;
                orr_scene_bounds(world, assets, copy, &b);
                orr_vec3d ext = orr_aabbd_is_empty(b) ? (orr_vec3d){1, 1, 1} : orr_vec3d_sub(b.max, b.min);
                spacing = fmax(fmax(ext.x, ext.z), fmax(ext.y, 1e-6)) * 1.25;
            }
        }
    }
    if (o->fur > 0) {
        int dressed = tool_dress_in_fur(orr_session_world(session), assets, o->fur, o->fur_density);
        if (dressed) return dressed;
    }
    /* what the default cameras frame: the scene at time 0 (the clips' first keys), whatever --time */
    orr_anim_apply(world, assets, 0, 1.0 / 60.0);
    if (o->framed) {
        orr_world_update_transforms(world);
        orr_snapshot at0;
        orr_snapshot_init(&at0, NULL);
        orr_result r = orr_frame_extract(world, assets, 0, 0, NULL, &at0);
        o->frame_box = tool_scene_box(&at0, assets, o->file ? o->layers : o->layers & ~TOOL_SKY_LAYER);
        orr_snapshot_fini(&at0);
        if (r != ORR_OK) {
            fprintf(stderr, "orrery: extraction: %s\n", orr_result_name(r));
            return 1;
        }
    }
    if (o->floor) { /* after the framing: the default cameras frame the scene, not its floor */
        int floored = add_floor(world, assets, o);
        if (floored) return floored;
    }
    /* the simulation up to --time: its last tick alone where every system allows it (the built-in
     * scene's orbits and the files' clips follow the tick count alone), else tick by tick in slices
     * of 10 s so that a long one shows how far it is */
    uint64_t ticks = (uint64_t)llround(o->time * 60.0);
    orr_result skipped = orr_session_skip_ticks(session, ticks);
    if (skipped != ORR_OK && skipped != ORR_ERROR_UNSUPPORTED) {
        fprintf(stderr, "orrery: %s\n", orr_session_last_error(session)->message);
        return 1;
    }
    if (skipped == ORR_OK) ticks = 0; /* done */
    tool_progress simulating;
    tool_progress_begin(&simulating, "simulating");
    for (uint64_t done = 0; done < ticks;) {
        uint64_t slice = ticks - done < 600 ? ticks - done : 600;
        tool_progress_update(&simulating, "tick", done, ticks);
        if (orr_session_run_ticks(session, slice) != ORR_OK) {
            tool_progress_end(&simulating);
            fprintf(stderr, "orrery: tick %llu: %s\n", (unsigned long long)done,
                    orr_session_last_error(session)->message);
            return 1;
        }
        done += slice;
    }
    tool_progress_end(&simulating);
    return 0;
}

/* A session whose world and asset library (and so the loader) log through `log`. */
static orr_session *new_session(orr_profile profile, tool_log *log)
{
    orr_session *s = NULL;
    orr_error err = {0};
    if (orr_session_create(&(orr_session_desc){.profile = profile, .logger = tool_log_logger(log)}, &s, &err) != ORR_OK) {
        fprintf(stderr, "orrery: could not create a session: %s\n", err.message);
        return NULL;
    }
    return s;
}

/* ---- render ------------------------------------------------------------------------------ */

/* A text file whole, NUL-terminated (the caller frees); NULL with a message naming it. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    int saved = errno;
    long n = -1;
    char *text = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) &&
        fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = '\0';
        fclose(f);
        return text;
    }
    fprintf(stderr, "orrery render: --post %s: cannot read it: %s\n", path,
            !f ? strerror(saved) : n >= (64L << 20) ? "larger than 64 MiB" : "read failed");
    free(text);
    if (f) fclose(f);
    return NULL;
}

static const char render_help[] =
    "usage: orrery render [FILE] [options]\n"
    "  FILE                 a glTF 2.0 file (.gltf or .glb); without it, the built-in orrery\n"
    "  -o, --output PATH    the PNG to write (default orrery.png)\n"
    "  --size WxH           target size in pixels, W and H each 1..16384 (default 640x360)\n"
    "  --views N            split the target into N side-by-side views (1..16, at most W), each with its\n"
    "                       own camera and depth image; the color is cleared once (default 2)\n"
    "  --strategy S         direct | batched | indirect | shell | meshlet (default batched); whatever it\n"
    "                       is, fur is drawn on the shell path (per draw a push constant, an instance per\n"
    "                       shell); meshlet draws each mesh's meshlets, culled one by one on the GPU, with\n"
    "                       task and mesh shaders where the device has them, else through a compute\n"
    "                       fallback (implies --meshlets)\n"
    "  --shells N           the shell count of every fur surface, 1..256 (default: each fur material's\n"
    "                       own, or its instance's Fur override); plain surfaces are one shell\n"
    "  --fur LENGTH[,D]     dress the scene in fur: every material shades fur LENGTH metres long (16\n"
    "                       shells, the library's 64x64 noise repeated D times per texture coordinate\n"
    "                       unit, default 32), every renderable wears it (0 < LENGTH <= 1e6, 0 < D <= 1e6)\n"
    "  --cull cpu|gpu       where views are culled (default: gpu for indirect and meshlet, cpu otherwise;\n"
    "                       gpu needs indirect or meshlet)\n"
    "  --occlusion          the GPU-culled views also cull by occlusion (orr_view_desc.occlusion: the same\n"
    "                       image; a first frame hides nothing, so one render draws all it would)\n"
    "  --meshlets           build meshlets for the meshes (meshoptimizer; their indices in meshlet order)\n"
    "  --lods [N]           build N levels of detail beyond the full one for every mesh (meshoptimizer's\n"
    "                       simplifier, each about a quarter of the triangles of the last; N 1..7, default 4)\n"
    "  --lod-pixels PX      each instance shows the coarsest level whose error is within PX pixels on\n"
    "                       screen (0..1e4; default 1 with --lods, else 0: level 0 always)\n"
    "  --meshlet-fallback   the meshlet strategy draws through its fallback even with mesh shaders\n"
    "  --order O            hierarchy | mesh (default mesh)\n"
    "  --shadows            the lights that cast shadows (a glTF file's lights cast by default; without\n"
    "                       lights, the default key light) cast shadow maps, up to 4 of them (directional\n"
    "                       first, then spot, then point lights): a directional light 4 cascades of\n"
    "                       2048x2048 up to 100 m from the camera, a spot light one map over its cone, a\n"
    "                       point light a cube of six, or one map over the view when it is far from it\n"
    "                       (the built-in orrery's sun: with --shadow-distance 1e8 or so); 3x3 filtered\n"
    "  --shadow-lights N    1..16 lights that cast shadows at most (implies --shadows; the rest light\n"
    "                       unshadowed, counted in the stats)\n"
    "  --floor              a grey floor under the scene (five times its largest extent across, its top at\n"
    "                       the scene's lowest point), for shadows to fall on; the default cameras frame\n"
    "                       the scene without it\n"
    "  --shadow-distance M  how far from the camera shadows reach, metres (implies --shadows)\n"
    "  --cascades N         1..4 cascades (implies --shadows)\n"
    "  --time SECONDS       simulate this long first, 0..1e7 (animation 0 plays, looping): round(T x 60)\n"
    "                       ticks, of which only the last runs (the motion follows the tick count\n"
    "                       alone), so any time takes one tick's work; the default cameras frame the\n"
    "                       scene as it stands at time 0, as view's do\n"
    "  --anim N|none        which animation plays (default 0; N must be one of the file's)\n"
    "  --instances N        N copies of the file's scene on a grid, 1..1000000 (and at most 16777216\n"
    "                       entities in all)\n"
    "  --offset X,Y,Z       move the whole scene (metres, each within 1e30; large values test precision)\n"
    "  --belt N             the built-in scene's asteroids, 0..1000000 (default 100000)\n"
    "  --msaa N             samples per pixel: 1, 2, 4 or 8 (default 4 where the device has it, else 1)\n"
    "  --camera N|NAME|frame  look through the file's camera N (0 = the first camera node in scene order)\n"
    "                       or the camera node named NAME: its projection, aspect from the view unless the\n"
    "                       camera fixes it (then letterboxed); with --views, view k looks through the\n"
    "                       k-th camera from there on, in order (wrapping round). Default: a file that has\n"
    "                       cameras is seen through them from camera 0; frame (and the default for a file\n"
    "                       without cameras): a camera framing the scene's bounds, from one of four\n"
    "                       directions per view\n"
    "  --exposure X         scale on the scene's light (lux, candela, nits) before tone mapping, within\n"
    "                       1e-12..1e12 (default 1); tone mapping: Khronos PBR Neutral\n"
    "  --post FILE          a post-process: a GLSL 450 fragment shader run over the whole target after\n"
    "                       the views, sampling the target's colour at set 0, binding 0 (sampler2D) and\n"
    "                       writing it at location 0; compiled and checked before anything is drawn\n"
    "  --graph              print the frame graph on stdout: each view's passes, built-in ones\n"
    "                       included, then --post's (passes, barriers, resources)\n"
    "  --stats              print the frame's figures (and the device) as one JSON object, grouped as\n"
    "                       orr_render_stats is (views, cull, draws, memory, time, meshlets)\n"
    "  --pick centre|X,Y    print what the frame shows at each view's centre pixel, or at target pixel X,Y\n"
    "                       (the view holding it): one line per view on stdout, 'pick view V (CAMERA) pixel\n"
    "                       X,Y: NAME (entity I:G, instance N, mesh M primitive P) at (X, Y, Z) m, D m away'\n"
    "                       or '...: nothing' (an id pass drawn in the same frame, read once it completes)\n"
    "  --debug LIST         debug drawing over the views, a comma-separated list of: bounds (each\n"
    "                       instance's bounds as placed, yellow), frusta (the other views' cull frusta,\n"
    "                       cyan), cascades (each view's shadow cascade boxes with\n"
    "                       --shadows: cascade 0 red, 1 green, 2 blue, 3 magenta)\n"
    "  --validation         enable the Khronos validation layer (and its synchronization validation); any\n"
    "                       message fails the render\n"
    "  -q, --quiet          do not print warnings (the loader's, and positions too far out for the\n"
    "                       renderer to place: binary64 origin subtraction and the float split), nor the\n"
    "                       line naming what was written ('orrery render: wrote PATH (WxH)' on stderr)\n"
    "Exit status: 0 written, 1 failed (a file that does not load, a write that fails), 2 bad usage.\n"
    "The PNG is written to a temporary name beside PATH and renamed: PATH never holds a partial image.\n"
    "An existing PATH keeps its permission bits; render refuses (exit 1, before any work) a PATH that is\n"
    "FILE itself (through links too), one the user may not write, and a file that is not a PNG.\n";

orr_aabbd tool_scene_box(const orr_snapshot *snap, const orr_assets *assets, uint32_t layers)
{
    orr_aabbd box = orr_aabbd_empty();
    for (uint32_t i = 0; i < snap->instance_count; i++) {
        const orr_render_instance *in = &snap->instances[i];
        if (!in->visible || !(in->layers & layers) || !orr_assets_try_get_mesh(assets, in->mesh)) continue;
        orr_aabbd local = {{in->bounds.min.x, in->bounds.min.y, in->bounds.min.z},
                           {in->bounds.max.x, in->bounds.max.y, in->bounds.max.z}};
        box = orr_aabbd_union(box, orr_aabbd_transform_affine(&in->world, local));
    }
    return box;
}

void tool_frame_pose(orr_aabbd box, uint32_t index, double aspect, double yfov, orr_mat4d *pose)
{
    if (orr_aabbd_is_empty(box)) box = (orr_aabbd){{-1, -1, -1}, {1, 1, 1}};
    orr_vec3d centre = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    double radius = fmax(orr_vec3d_length(orr_vec3d_sub(box.max, box.min)) * 0.5, 1e-3);
    static const orr_vec3d dirs[] = {{0.6, 0.45, 1.0}, {-1.0, 0.6, -0.7}, {1.0, 0.9, -0.4}, {-0.4, 0.3, 1.0}};
    orr_vec3d dir = orr_vec3d_normalize(dirs[index % 4]);
    double half = yfov * 0.5;
    if (aspect < 1.0) half = atan(tan(half) * aspect); /* narrow views fit the sphere horizontally */
    double dist = radius / sin(half) * 1.05;
    orr_vec3d eye = orr_vec3d_add(centre, orr_vec3d_scale(dir, dist));
    orr_mat4d_look_at_pose(eye, centre, (orr_vec3d){0, 1, 0}, pose);
}

orr_view_lighting tool_default_lighting(const tool_scene_options *o, double exposure)
{
    /* The built-in scene is lit by the sun's real luminous intensity: a sunny day's exposure (EV100 15,
     * the sunny-16 rule) unless one is given, and a faint fill of the same brightness on screen as the
     * default sky gives a file at exposure 1, so that night sides are not black. */
    orr_view_lighting lighting = {.exposure = exposure > 0 ? exposure : 1.0};
    if (!o->file) {
        if (!(exposure > 0)) lighting.exposure = orr_gpu_exposure_from_ev100(15.0);
        lighting.custom_ambient = true;
        for (int c = 0; c < 3; c++) lighting.sky[c] = lighting.ground[c] = (float)(0.05 / lighting.exposure);
    }
    return lighting;
}

void tool_default_camera(const orr_snapshot *snap, const tool_scene_options *o,
                         uint32_t index, double aspect, uint32_t *cam_used, orr_view_desc *vd)
{
    vd->layer_mask = o->layers;
    vd->yfov = 0.8;
    while (*cam_used < snap->camera_count &&
           strncmp(orr_snapshot_name(snap, snap->cameras[*cam_used].name), "cam_", 4) != 0)
        (*cam_used)++;
    if (!o->file && !o->frame_camera && *cam_used < snap->camera_count) {
        vd->camera = snap->cameras[*cam_used].entity;
        vd->yfov = snap->cameras[*cam_used].yfov;
        vd->znear = snap->cameras[*cam_used].znear;
        if (!o->exposure_given) tool_builtin_meter(snap, vd->camera, &vd->lighting);
        (*cam_used)++;
    } else if (o->file && !o->frame_camera && snap->camera_count) {
        /* a file's own cameras show what its author framed: view k through camera k (wrapping), as
         * --camera 0 does */
        vd->camera = snap->cameras[index % snap->camera_count].entity;
    } else {
        vd->camera = (orr_entity){0, 0};
        tool_frame_pose(o->frame_box, index, aspect, vd->yfov, &vd->pose);
    }
}

/* ---- precision ----------------------------------------------------------------------------- */

/* What the precision check needs of a view: its camera origin, the angle one pixel spans, its layers. */
typedef struct precision_view {
    orr_vec3d origin;
    double pixel_angle; /* radians: yfov / viewport height */
    uint32_t layers;
} precision_view;

/* The binary64 spacing at |x|: the smallest step a coordinate that large can take. */
static double ulp64(double x)
{
    x = fabs(x);
    return nextafter(x, INFINITY) - x;
}

/* Below this magnitude (metres) every coordinate resolves far better than the tolerance: the check
 * skips it (the split keeps 2^-48 of 2^20 m, about 4 nm). */
#define PRECISION_QUICK 1048576.0
#define PRECISION_FLOOR 1e-3 /* metres: a position good to a millimetre is good enough anywhere */

/* The binary32 spacing at |x|. */
static double ulp32(float x)
{
    x = fabsf(x);
    return (double)nextafterf(x, INFINITY) - (double)x;
}

/* How well the renderer can place `p` relative to a view at `c`, per axis at worst:
 *   grid   half the binary64 spacing at the two positions: what the world itself resolves there;
 *   split  what the float path loses. Each position reaches the GPU as a high float and a low one
 *          (orr_split_double), and the vertex shader takes (high - high) + (low - low) in binary32
 *          (orrery/gpu.h). The low float can be as large as half a step of the high one, and so is
 *          good to half its own step: that bound, for both positions, or the error of doing exactly
 *          what the shader does with these two, when that is larger. */
static void precision_error(orr_vec3d p, orr_vec3d c, double *grid, double *split)
{
    const double pv[3] = {p.x, p.y, p.z}, cv[3] = {c.x, c.y, c.z};
    *grid = *split = 0;
    for (int k = 0; k < 3; k++) {
        double g = 0.5 * fmax(ulp64(pv[k]), ulp64(cv[k]));
        float ph, pl, ch, cl;
        orr_split_double(pv[k], &ph, &pl);
        orr_split_double(cv[k], &ch, &cl);
        volatile float hi = ph - ch, lo = pl - cl; /* binary32 arithmetic, as on the GPU */
        volatile float rel = hi + lo;
        double done = fabs((double)rel - (pv[k] - cv[k]));
        double bound = 0.5 * ulp32((float)(0.5 * ulp32(ph))) + 0.5 * ulp32((float)(0.5 * ulp32(ch)));
        double e = fmax(done, bound);
        if (!isfinite(e)) e = INFINITY;
        if (g > *grid) *grid = g;
        if (e > *split) *split = e;
    }
}

/* The view's camera origin as the renderer takes it (the snapshot camera of vd->camera, else the
 * pose), the angle of one of its pixels, its layers. */
static precision_view precision_view_of(const orr_snapshot *s, const orr_view_desc *vd, uint32_t height)
{
    precision_view pv = {.origin = orr_mat4d_translation(&vd->pose),
                         .pixel_angle = (vd->yfov > 0 ? vd->yfov : 0.8) / (double)height,
                         .layers = vd->layer_mask ? vd->layer_mask : ORR_LAYERS_ALL};
    for (uint32_t i = 0; i < s->camera_count && vd->camera.generation; i++)
        if (orr_entity_eq(s->cameras[i].entity, vd->camera)) {
            pv.origin = orr_affine3d_translation(&s->cameras[i].world);
            break;
        }
    return pv;
}

/* |p - c| without overflow where the components are near DBL_MAX (inf only when it is). */
static double distance(orr_vec3d p, orr_vec3d c)
{
    double d[3] = {p.x - c.x, p.y - c.y, p.z - c.z}, m = 0;
    for (int k = 0; k < 3; k++) m = fmax(m, fabs(d[k]));
    if (!(m > 0) || !isfinite(m)) return m; /* 0, inf, or NaN */
    double s = 0;
    for (int k = 0; k < 3; k++) s += (d[k] / m) * (d[k] / m);
    return m * sqrt(s);
}

/* After extraction: for each view's camera and each visible instance it shows, whether the
 * camera-relative position resolves to better than max(1 mm, half a pixel at the instance's distance).
 * Prints one warning for the frame when some do not, naming the worst instance and how many there
 * are; returns their count. */
static uint32_t precision_check(const orr_snapshot *s, const precision_view *views, uint32_t view_count, bool quiet)
{
    uint32_t bad = 0, worst = UINT32_MAX, worst_view = 0;
    double worst_ratio = 0, worst_grid = 0, worst_split = 0, worst_need = 0, worst_dist = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        if (!in->visible) continue;
        orr_vec3d p = orr_affine3d_translation(&in->world);
        bool counted = false;
        for (uint32_t v = 0; v < view_count; v++) {
            const precision_view *pv = &views[v];
            if (!(in->layers & pv->layers)) continue;
            orr_vec3d c = pv->origin;
            double big = fmax(fmax(fmax(fabs(p.x), fabs(p.y)), fabs(p.z)), fmax(fmax(fabs(c.x), fabs(c.y)), fabs(c.z)));
            bool finite = isfinite(p.x) && isfinite(p.y) && isfinite(p.z) && isfinite(c.x) && isfinite(c.y) && isfinite(c.z);
            if (finite && big < PRECISION_QUICK) continue; /* (fmax passes over a NaN) */
            double grid, split;
            precision_error(p, c, &grid, &split);
            double dist = distance(p, c);
            double need = fmax(PRECISION_FLOOR, 0.5 * dist * pv->pixel_angle), err = grid + split;
            /* a position, camera or distance that is not finite cannot be placed at all: counted too */
            bool placeable = finite && isfinite(dist);
            if (!placeable) err = INFINITY, need = fmax(PRECISION_FLOOR, isfinite(need) ? need : 0);
            if (!(err > need)) continue;
            if (!counted) bad++, counted = true;
            double ratio = err / need;
            if (worst == UINT32_MAX || ratio > worst_ratio)
                worst = i, worst_view = v, worst_ratio = ratio, worst_grid = grid, worst_split = split,
                worst_need = need, worst_dist = dist;
        }
    }
    if (bad && !quiet) {
        const orr_render_instance *in = &s->instances[worst];
        const char *name = orr_snapshot_name(s, in->name);
        fprintf(stderr,
                "warning: frame %llu: %u instance%s lie%s beyond what binary64 origin subtraction resolves; worst: "
                "'%s' (instance %u), %.3g m from view %u's camera, placed to within %.3g m (binary64 grid %.3g m, "
                "float split %.3g m) where %.3g m is needed\n",
                (unsigned long long)s->frame, bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "", name[0] ? name : "(unnamed)",
                in->id, worst_dist, worst_view, worst_grid + worst_split, worst_grid, worst_split, worst_need);
    }
    return bad;
}

/* One JSON object, grouped as orr_render_stats is (views, cull, draws, memory, time, meshlets) with its
 * field names, and beside them the device, the frame and far_instances: the instances precision_check
 * found beyond what the renderer resolves (or places at all). */
static void print_stats(const orr_render_stats *st, const char *device, uint32_t far)
{
    typedef unsigned long long ull;
    printf("{\"device\": ");
    tool_json_string(stdout, device);
    printf(", \"frame\": %llu, \"far_instances\": %u", (ull)st->frame, far);
    printf(", \"views\": {\"count\": %u, \"texture_targets\": %u, \"texture_views\": %u, "
           "\"texture_target_fallbacks\": %u, \"gpu_culled\": %u, \"shadow_views\": %u, \"shadow_lights\": %u, "
           "\"shadow_lights_over\": %u, \"shadow_casters\": %u}",
           st->views.count, st->views.texture_targets, st->views.texture_views, st->views.texture_target_fallbacks,
           st->views.gpu_culled, st->views.shadow_views, st->views.shadow_lights, st->views.shadow_lights_over,
           st->views.shadow_casters);
    printf(", \"cull\": {\"instances\": %u, \"changed\": %u, \"visible\": %u, \"culled\": %u, \"occluded\": %u}",
           st->cull.instances, st->cull.changed, st->cull.visible, st->cull.culled, st->cull.occluded);
    printf(", \"draws\": {\"surfaces\": %u, \"batches\": %u, \"calls\": %u, \"pipelines\": %u, \"dropped\": {",
           st->draws.surfaces, st->draws.batches, st->draws.calls, st->draws.pipelines);
    for (int d = 0; d < ORR_DROP_COUNT; d++)
        printf("%s\"%s\": %u", d ? ", " : "", orr_drop_name((orr_drop)d), st->draws.dropped[d]);
    printf("}, \"fur_draws\": %u, \"shells\": %llu, \"fur_fallbacks\": %u}", st->draws.fur_draws, (ull)st->draws.shells,
           st->draws.fur_fallbacks);
    printf(", \"memory\": {\"geometry_bytes\": %llu, \"instance_bytes\": %llu, \"material_bytes\": %llu, "
           "\"uploaded_bytes\": %llu, \"view_bytes\": %llu, \"shadow_bytes\": %llu, \"gpu_bytes\": %llu, "
           "\"gpu_allocations\": %u}",
           (ull)st->memory.geometry_bytes, (ull)st->memory.instance_bytes, (ull)st->memory.material_bytes,
           (ull)st->memory.uploaded_bytes, (ull)st->memory.view_bytes, (ull)st->memory.shadow_bytes,
           (ull)st->memory.gpu_bytes, st->memory.gpu_allocations);
    printf(", \"time\": {\"cpu_ms\": {");
    for (int p = 0; p < ORR_PHASE_COUNT; p++)
        printf("%s\"%s\": %.4f", p ? ", " : "", orr_render_phase_name((orr_render_phase)p), st->time.cpu_ms[p]);
    printf("}, \"wait_ms\": %.4f, \"wait_wall_ms\": %.4f, \"gpu_ms\": %.4f, \"shadow_gpu_ms\": %.4f, "
           "\"views_gpu_ms\": %.4f}", st->time.wait_ms, st->time.wait_wall_ms,
           st->time.gpu_ms, st->time.shadow_gpu_ms, st->time.views_gpu_ms);
    if (st->meshlets.views) {
        printf(", \"meshlets\": {\"views\": %u, \"path\": \"%s\", \"sent\": %llu, \"kept\": %llu, "
               "\"triangles_sent\": %llu, \"triangles_kept\": %llu, \"triangles_indexed\": %llu, \"indexed\": {",
               st->meshlets.views, st->meshlets.mesh_shader_views == st->meshlets.views ? "mesh_shaders"
                                  : st->meshlets.mesh_shader_views                   ? "mixed"
                                                                                     : "fallback",
               (ull)st->meshlets.sent, (ull)st->meshlets.kept, (ull)st->meshlets.triangles_sent,
               (ull)st->meshlets.triangles_kept, (ull)st->meshlets.triangles_indexed);
        for (int k = 0; k < ORR_MESHLET_INDEXED_COUNT; k++)
            printf("%s\"%s\": %u", k ? ", " : "", orr_meshlet_indexed_name((orr_meshlet_indexed)k), st->meshlets.indexed[k]);
        printf("}}");
    }
    printf("}\n");
}

void tool_render_log_line(void *user, orr_log_level level, const char *message)
{
    tool_render_log *log = user;
    bool validation = !strncmp(message, ORR_GPU_VALIDATION_PREFIX, strlen(ORR_GPU_VALIDATION_PREFIX));
    if (validation) log->validation_messages++;
    if (level >= ORR_LOG_ERROR) snprintf(log->last_error, sizeof log->last_error, "%s", message);
    if (level >= ORR_LOG_ERROR || (level == ORR_LOG_WARNING && (validation || !log->quiet)))
        fprintf(stderr, "orrery: %s\n", message);
}

void tool_render_error(const tool_render_log *log, const char *prefix, const char *message)
{
    if (!strncmp(log->last_error, "gpu: ", 5) && !strcmp(log->last_error + 5, message)) return; /* said */
    fprintf(stderr, "%s: %s\n", prefix, message);
}

int tool_opt_choice(int argc, char **argv, int *i, const char *const *names)
{
    const char *opt = argv[*i], *val = tool_opt_value(argc, argv, i);
    if (!val) return -1;
    for (int k = 0; names[k]; k++)
        if (!strcmp(val, names[k])) return k;
    fprintf(stderr, "orrery %s: %s must be one of", argv[0], opt);
    for (int k = 0; names[k]; k++) fprintf(stderr, "%s %s", k ? "," : "", names[k]);
    fprintf(stderr, " (got '%s')\n", val);
    return -1;
}

/* A value that none of the count names returned by name(k) spell: one line naming them. */
static void choice_failed(const char *cmd, const char *opt, const char *val, const char *const *names, unsigned count)
{
    fprintf(stderr, "orrery %s: %s must be one of", cmd, opt);
    for (unsigned k = 0; k < count; k++) fprintf(stderr, "%s %s", k ? "," : "", names[k]);
    fprintf(stderr, " (got '%s')\n", val);
}

bool tool_opt_strategy(const char *cmd, int argc, char **argv, int *i, orr_strategy *out)
{
    const char *opt = argv[*i], *val = tool_opt_value(argc, argv, i);
    if (!val) return false;
    if (orr_strategy_parse(val, out)) return true;
    const char *names[ORR_STRATEGY_COUNT];
    for (unsigned k = 0; k < ORR_STRATEGY_COUNT; k++) names[k] = orr_strategy_name((orr_strategy)k);
    choice_failed(cmd, opt, val, names, ORR_STRATEGY_COUNT);
    return false;
}

bool tool_opt_cull(const char *cmd, int argc, char **argv, int *i, orr_cull *out)
{
    const char *opt = argv[*i], *val = tool_opt_value(argc, argv, i);
    if (!val) return false;
    if (orr_cull_parse(val, out)) return true;
    const char *names[ORR_CULL_COUNT];
    for (unsigned k = 0; k < ORR_CULL_COUNT; k++) names[k] = orr_cull_name((orr_cull)k);
    choice_failed(cmd, opt, val, names, ORR_CULL_COUNT);
    return false;
}

bool tool_opt_order(const char *cmd, int argc, char **argv, int *i, orr_draw_order *out)
{
    const char *opt = argv[*i], *val = tool_opt_value(argc, argv, i);
    if (!val) return false;
    if (orr_draw_order_parse(val, out)) return true;
    const char *names[ORR_ORDER_COUNT];
    for (unsigned k = 0; k < ORR_ORDER_COUNT; k++) names[k] = orr_draw_order_name((orr_draw_order)k);
    choice_failed(cmd, opt, val, names, ORR_ORDER_COUNT);
    return false;
}

int orr_tool_render(int argc, char **argv)
{
    tool_scene_options o = {.instances = 1};
    const char *output = "orrery.png";
    uint32_t width = 640, height = 360, views = 2;
    orr_strategy strategy = ORR_STRATEGY_BATCHED;
    orr_draw_order order = ORR_ORDER_MESH;
    orr_cull cull = ORR_CULL_AUTO;
    bool stats = false, validation = false, graph = false;
    const char *post = NULL;
    char *post_source = NULL;
    uint32_t msaa = 0; /* the library's default: 4 where the device has 4, else 1 */
    const char *camera = NULL;
    double exposure = 1.0;
    bool exposure_given = false;
    bool meshlet_fallback = false;
    uint32_t shells = 0;
    orr_shadow_settings shadows = {0};
    bool occlusion = false;
    bool pick_centre = false, pick_at = false;
    uint32_t debug_flags = 0;
    uint32_t pick_x = 0, pick_y = 0;
    bool ended = false; /* "--" seen */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int kind = tool_arg_kind(a, &ended);
        if (kind == 1) continue;
        if (kind == 2) {
            if (o.file) {
                fprintf(stderr, "orrery render: unexpected argument '%s' (one FILE: '%s')\n", a, o.file);
                return 2;
            }
            o.file = a;
            continue;
        }
        int shared = tool_scene_option(argc, argv, &i, &o);
        if (shared < 0) return 2;
        if (shared) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(render_help, stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(output = tool_opt_value(argc, argv, &i))) return 2;
        } else if (!strcmp(a, "--size")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            if (!tool_parse_size(v, &width, &height)) {
                fprintf(stderr, "orrery render: --size must be WxH with W and H each within 1..%u (got '%s')\n",
                        TOOL_MAX_SIZE, v);
                return 2;
            }
        } else if (!strcmp(a, "--views")) {
            if (!tool_opt_u32(argc, argv, &i, 1, TOOL_MAX_VIEWS, &views)) return 2;
        } else if (!strcmp(a, "--strategy")) {
            if (!tool_opt_strategy("render", argc, argv, &i, &strategy)) return 2;
        } else if (!strcmp(a, "--shells")) {
            if (!tool_opt_u32(argc, argv, &i, 1, ORR_FUR_MAX_SHELLS, &shells)) return 2;
        } else if (!strcmp(a, "--cull")) {
            if (!tool_opt_cull("render", argc, argv, &i, &cull)) return 2;
        } else if (!strcmp(a, "--occlusion")) {
            occlusion = true;
        } else if (!strcmp(a, "--order")) {
            if (!tool_opt_order("render", argc, argv, &i, &order)) return 2;
        } else if (!strcmp(a, "--msaa")) {
            const char *opt = argv[i];
            if (!tool_opt_u32(argc, argv, &i, 1, 8, &msaa)) return 2;
            if (msaa & (msaa - 1)) {
                fprintf(stderr, "orrery render: %s must be 1, 2, 4 or 8 (got %u)\n", opt, msaa);
                return 2;
            }
        } else if (!strcmp(a, "--camera")) {
            if (!(camera = tool_opt_value(argc, argv, &i))) return 2;
            if (!strcmp(camera, "frame")) camera = NULL, o.frame_camera = true; /* the framing pose */
        } else if (!strcmp(a, "--exposure")) {
            if (!tool_opt_number(argc, argv, &i, 1e-12, 1e12, &exposure)) return 2;
            exposure_given = o.exposure_given = true;
        } else if (!strcmp(a, "--stats")) {
            stats = true;
        } else if (!strcmp(a, "--shadows")) {
            shadows.enabled = true;
        } else if (!strcmp(a, "--floor")) {
            o.floor = true;
        } else if (!strcmp(a, "--shadow-lights")) {
            if (!tool_opt_u32(argc, argv, &i, 1, ORR_SHADOW_MAX_LIGHTS, &shadows.max_lights)) return 2;
            shadows.enabled = true;
        } else if (!strcmp(a, "--shadow-distance")) {
            if (!tool_opt_number(argc, argv, &i, 1e-3, 1e9, &shadows.distance)) return 2;
            shadows.enabled = true;
        } else if (!strcmp(a, "--cascades")) {
            if (!tool_opt_u32(argc, argv, &i, 1, ORR_SHADOW_MAX_CASCADES, &shadows.cascades)) return 2;
            shadows.enabled = true;
        } else if (!strcmp(a, "--post")) {
            if (!(post = tool_opt_value(argc, argv, &i))) return 2;
        } else if (!strcmp(a, "--graph")) {
            graph = true;
        } else if (!strcmp(a, "--validation")) {
            validation = true;
        } else if (!strcmp(a, "--meshlet-fallback")) {
            meshlet_fallback = true;
        } else if (!strcmp(a, "--debug")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v || tool_parse_debug("render", v, &debug_flags)) return 2;
        } else if (!strcmp(a, "--pick")) {
            const char *v = tool_opt_value(argc, argv, &i);
            if (!v) return 2;
            const char *comma = strchr(v, ',');
            char xs[16] = "";
            if (!strcmp(v, "centre") || !strcmp(v, "center")) {
                pick_centre = true;
            } else if (comma && (size_t)(comma - v) < sizeof xs) {
                memcpy(xs, v, (size_t)(comma - v));
                if (!tool_parse_u32(xs, &pick_x) || !tool_parse_u32(comma + 1, &pick_y)) comma = NULL;
                pick_at = comma != NULL;
            }
            if (!pick_centre && !pick_at) {
                fprintf(stderr, "orrery render: --pick must be centre or X,Y (target pixels; got '%s')\n", v);
                return 2;
            }
        } else if (a[0] != '-' && !o.file) {
            o.file = a;
        } else {
            return tool_unknown_option("render", a);
        }
    }
    if (views > width) { /* each view needs a column of pixels */
        fprintf(stderr, "orrery render: --views %u needs a target at least %u pixels wide (--size %ux%u)\n", views,
                views, width, height);
        return 2;
    }
    if (cull == ORR_CULL_GPU && strategy != ORR_STRATEGY_INDIRECT && strategy != ORR_STRATEGY_MESHLET) {
        fprintf(stderr, "orrery render: --cull gpu needs --strategy indirect or meshlet\n");
        return 2;
    }
    if (strategy == ORR_STRATEGY_MESHLET) o.meshlets = true;
    if (tool_output_check("render", "-o", output, o.file)) return 1;
    if (post && !(post_source = read_text(post))) return 1;
    o.framed = true;

    tool_log log;
    tool_log_init(&log, o.file, o.quiet);
    o.log = &log;
    orr_session *session = new_session(ORR_PROFILE_PRESENTING, &log);
    if (!session) return 1;
    int status = 1;
    tool_render_log rlog = {.quiet = o.quiet};
    orr_renderer *renderer = NULL;
    uint8_t *pixels = NULL;
    int built = tool_scene_build(session, &o);
    if (built) {
        status = built;
        goto done;
    }
    if (orr_session_run_frame(session, 0.0) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", orr_session_last_error(session)->message);
        goto done;
    }
    const orr_snapshot *snap = orr_session_snapshot(session);
    const orr_assets *assets = orr_session_assets(session);

    orr_error err = {0};
    orr_renderer_desc rd = {.validation = validation, .validate_synchronization = validation,
                            .meshlet_fallback = meshlet_fallback, .logger = {.log = tool_render_log_line, .user = &rlog}};
    if (orr_renderer_create(&rd, &renderer, &err) != ORR_OK) {
        tool_render_error(&rlog, "orrery", err.message);
        goto done;
    }
    orr_target_id target;
    /* the default: 4 samples where the device has them */
    orr_target_desc td = {.width = width, .height = height, .clear_color = {0.01f, 0.01f, 0.015f, 1.0f},
                          .readback = true, .samples = msaa};
    orr_view_lighting lighting = tool_default_lighting(&o, exposure_given ? exposure : 0.0);
    /* --camera: the snapshot's camera by index (scene order) or entity name */
    uint32_t first_camera = UINT32_MAX;
    if (camera) {
        uint32_t index = 0;
        bool numeric = tool_parse_u32(camera, &index);
        for (uint32_t c = 0; c < snap->camera_count && first_camera == UINT32_MAX; c++)
            if (numeric ? c == index : !strcmp(orr_snapshot_name(snap, snap->cameras[c].name), camera)) first_camera = c;
        if (first_camera == UINT32_MAX) {
            fprintf(stderr, "orrery render: --camera %s: %s has %u camera%s", camera, o.file ? o.file : "the built-in scene",
                    snap->camera_count, snap->camera_count == 1 ? "" : "s");
            for (uint32_t c = 0; c < snap->camera_count; c++)
                fprintf(stderr, "%s %u '%s'", c ? "," : ":", c, orr_snapshot_name(snap, snap->cameras[c].name));
            fprintf(stderr, "\n");
            status = 2;
            goto done;
        }
    }
    if (orr_renderer_bind_library(renderer, assets, NULL) != ORR_OK) {
        tool_render_error(&rlog, "orrery", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    if (orr_renderer_create_target(renderer, &td, &target) != ORR_OK) {
        tool_render_error(&rlog, "orrery", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    uint32_t cam_used = 0;
    precision_view checks[TOOL_MAX_VIEWS];
    orr_pick_id picks[TOOL_MAX_VIEWS];
    orr_view_desc pick_views[TOOL_MAX_VIEWS];
    uint32_t pick_px[TOOL_MAX_VIEWS][2];
    for (uint32_t v = 0; v < views; v++) {
        uint32_t x0 = (uint32_t)((uint64_t)width * v / views), x1 = (uint32_t)((uint64_t)width * (v + 1) / views);
        orr_view_desc vd = {.target = target, .slot = v, .viewport = {x0, 0, x1 - x0, height}, .order = order,
                            .strategy = strategy, .cull = cull, .lighting = lighting, .shells = shells,
                            .shadows = shadows, .occlusion = occlusion,
                            .lod_pixels = (float)tool_lod_pixels(&o)};
        tool_default_camera(snap, &o, v, (double)(x1 - x0) / height, &cam_used, &vd);
        if (first_camera != UINT32_MAX) { /* the file's cameras in order from the one asked for */
            vd.camera = snap->cameras[(first_camera + v) % snap->camera_count].entity;
            if (!o.file && !exposure_given) tool_builtin_meter(snap, vd.camera, &vd.lighting);
        }
        checks[v] = precision_view_of(snap, &vd, height);
        orr_view_id id;
        if (orr_renderer_create_view(renderer, &vd, &id) != ORR_OK) {
            tool_render_error(&rlog, "orrery", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        /* --pick: this view's centre, or the pixel asked for (answering nothing outside the view) */
        pick_views[v] = vd;
        pick_px[v][0] = pick_centre ? x0 + (x1 - x0) / 2 : pick_x;
        pick_px[v][1] = pick_centre ? height / 2 : pick_y;
        if ((pick_centre || pick_at) &&
            orr_renderer_pick(renderer, id, pick_px[v][0], pick_px[v][1], &picks[v]) != ORR_OK) {
            tool_render_error(&rlog, "orrery render: --pick", orr_renderer_last_error(renderer)->message);
            goto done;
        }
    }
    orr_renderer_set_debug_draw(renderer, debug_flags);
    /* the built-in scene's monitor shows cam_belt through a texture target */
    orr_target_id monitor;
    orr_view_desc like = {.order = order, .strategy = strategy, .cull = cull, .lighting = lighting};
    if (!o.file && tool_monitor_target(renderer, snap, &like, !exposure_given, msaa, &monitor)) {
        tool_render_error(&rlog, "orrery", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    if (post) { /* the host's post-process, as a technique of the target */
        static const char *const reads[] = {"color"};
        static const orr_technique_write writes[] = {{.name = "color"}};
        orr_technique_desc pd = {.name = "post", .fragment = {.glsl = post_source, .name = post}, .reads = reads,
                                 .read_count = 1, .writes = writes, .write_count = 1};
        if (orr_renderer_set_techniques(renderer, target, &pd, 1, NULL) != ORR_OK) {
            tool_render_error(&rlog, "orrery render: --post", orr_renderer_last_error(renderer)->message);
            goto done;
        }
    }
    if (graph) { /* each view's built-in passes (and --post's technique) */
        static char text[16384];
        orr_renderer_describe_techniques(renderer, target, text, sizeof text);
        fputs(text, stdout);
    }
    /* what the GPU's origin subtraction cannot resolve, said before it is drawn */
    uint32_t far_instances = precision_check(snap, checks, views, o.quiet);
    orr_render_stats st;
    orr_render_desc desc = {.target = target, .snapshot = snap};
    if (orr_renderer_render(renderer, &desc, &st) != ORR_OK || (stats && orr_renderer_finish(renderer, &st) != ORR_OK)) {
        tool_render_error(&rlog, "orrery", orr_renderer_last_error(renderer)->message);
        goto done;
    }
    size_t size = (size_t)width * height * 4;
    pixels = malloc(size);
    if (!pixels || orr_renderer_read_target(renderer, target, pixels, size) != ORR_OK) {
        if (pixels) tool_render_error(&rlog, "orrery: reading the target back failed", orr_renderer_last_error(renderer)->message);
        else fprintf(stderr, "orrery: reading the target back failed: out of memory\n");
        goto done;
    }
    if (orr_gpu_write_png(output, width, height, pixels, &err) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", err.message);
        goto done;
    }
    for (uint32_t v = 0; (pick_centre || pick_at) && v < views; v++) {
        orr_pick_result res;
        orr_pick_hit hit;
        if (orr_renderer_pick_result(renderer, picks[v], true, &res, &hit, 1) != ORR_OK) {
            tool_render_error(&rlog, "orrery render: --pick", orr_renderer_last_error(renderer)->message);
            goto done;
        }
        bool inside = pick_px[v][0] >= pick_views[v].viewport.x &&
                      pick_px[v][0] - pick_views[v].viewport.x < pick_views[v].viewport.width;
        if (inside) tool_print_pick(stdout, snap, v, pick_views[v].camera, pick_px[v][0], pick_px[v][1], &res, &hit);
    }
    if (stats) print_stats(&st, orr_renderer_device_name(renderer), far_instances);
    if (!o.quiet) fprintf(stderr, "orrery render: wrote %s (%ux%u)\n", output, width, height); /* as view says it */
    status = 0;
done:
    free(pixels);
    free(post_source);
    orr_renderer_destroy(renderer);
    orr_session_destroy(session);
    if (rlog.validation_messages) {
        fprintf(stderr, "orrery: %u validation messages\n", rlog.validation_messages);
        status = 1;
    }
    return status;
}

/* ---- snapshot ---------------------------------------------------------------------------- */

static const char snapshot_help[] =
    "usage: orrery snapshot [FILE] [--time SECONDS] [--anim N|none] [--instances N] [--offset X,Y,Z]\n"
    "                       [--belt N] [--fur LENGTH[,D]] [--meshlets] [--json] [-q|--quiet]\n"
    "       orrery snapshot REC [--frame K] [--json]   frame K (default 0) of a recording (orrery record)\n"
    "  prints the render snapshot of one frame: what the renderer is given. --time T (0..1e7) plays\n"
    "  animation 0 (or --anim N, one of the file's) for round(T x 60) ticks of 1/60 s first; only the\n"
    "  last runs (the motion follows the tick count alone), so any T takes one tick's work.\n"
    "  --instances N: 1..1000000 copies (at most 16777216 entities); --offset: each within 1e30 m;\n"
    "  --belt N: the built-in scene's asteroids (0..1000000); --fur, --meshlets: as for render (fur\n"
    "  components, meshlets built); -q, --quiet: do not print the loader's warnings.\n"
    "  Exit status: 0, 1 failed, 2 bad usage.\n";

static const char *light_type_name(orr_light_type t)
{
    return t == ORR_LIGHT_DIRECTIONAL ? "directional" : t == ORR_LIGHT_POINT ? "point" : "spot";
}

static void print_snapshot_json(const orr_snapshot *s);

void tool_print_snapshot(const orr_snapshot *s, bool json)
{
    if (json) {
        print_snapshot_json(s);
        return;
    }
    printf("frame %llu, tick %llu, revision %llu: %u instances, %u cameras, %u lights, %u joints\n",
           (unsigned long long)s->frame, (unsigned long long)s->tick, (unsigned long long)s->revision, s->instance_count,
           s->camera_count, s->light_count, s->joint_count);
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        orr_vec3d t = orr_affine3d_translation(&in->world);
        printf("  %4u %-24s mesh %-3u at (%.6g, %.6g, %.6g)%s\n", in->id, orr_snapshot_name(s, in->name), in->mesh.index,
               t.x, t.y, t.z, in->visible ? "" : " hidden");
    }
}

static void print_snapshot_json(const orr_snapshot *s)
{
    FILE *f = stdout;
    fprintf(f, "{\"frame\": %llu, \"tick\": %llu, \"revision\": %llu, \"instances\": [", (unsigned long long)s->frame,
            (unsigned long long)s->tick, (unsigned long long)s->revision);
    uint32_t fk = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const orr_render_instance *in = &s->instances[i];
        fprintf(f, "%s\n  {\"id\": %u, \"entity\": ", i ? "," : "", in->id);
        tool_json_string(f, orr_snapshot_name(s, in->name));
        fprintf(f, ", \"mesh\": %u, \"world\": ", in->mesh.index);
        tool_json_affine(f, &in->world);
        fprintf(f, ", \"bounds\": {\"min\": ");
        tool_json_vec3(f, (orr_vec3d){in->bounds.min.x, in->bounds.min.y, in->bounds.min.z});
        fprintf(f, ", \"max\": ");
        tool_json_vec3(f, (orr_vec3d){in->bounds.max.x, in->bounds.max.y, in->bounds.max.z});
        fprintf(f, "}, \"visible\": %s", in->visible ? "true" : "false");
        while (fk < s->fur_count && s->fur[fk].instance < i) fk++; /* the sidecar is in instance order */
        const orr_render_fur *fur = fk < s->fur_count && s->fur[fk].instance == i ? &s->fur[fk] : NULL;
        if (fur) { /* the instance's Fur: which values override its materials' */
            fprintf(f, ", \"fur\": {\"set\": %u", fur->set);
            if (fur->set & ORR_FUR_SET_SHELL_COUNT) fprintf(f, ", \"shell_count\": %u", fur->shell_count);
            if (fur->set & ORR_FUR_SET_SHELL_LENGTH) fprintf(f, ", \"shell_length\": "), tool_json_double(f, fur->shell_length);
            if (fur->set & ORR_FUR_SET_DENSITY) fprintf(f, ", \"density\": "), tool_json_double(f, fur->density);
            if (fur->set & ORR_FUR_SET_THINNING) fprintf(f, ", \"thinning\": "), tool_json_double(f, fur->thinning);
            fputc('}', f);
        }
        if (in->weight_count) { /* morph weights, as the renderer applies them */
            fprintf(f, ", \"weights\": [");
            for (uint32_t k = 0; k < in->weight_count; k++) {
                if (k) fputc(',', f);
                tool_json_float(f, s->weights[in->weight_offset + k]);
            }
            fputc(']', f);
        }
        if (in->joint_count) {
            fprintf(f, ", \"joints\": [");
            for (uint32_t j = 0; j < in->joint_count; j++) {
                if (j) fputc(',', f);
                tool_json_affine(f, &s->joints[in->joint_offset + j]);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fprintf(f, "],\n \"cameras\": [");
    for (uint32_t i = 0; i < s->camera_count; i++) {
        fprintf(f, "%s\n  {\"entity\": ", i ? "," : "");
        const orr_render_camera *c = &s->cameras[i];
        tool_json_string(f, orr_snapshot_name(s, c->name));
        fprintf(f, ", \"world\": ");
        tool_json_affine(f, &c->world);
        /* the projection as the renderer reads it: aspect 0 = the viewport's, zfar 0 = infinite */
        if (c->projection == ORR_ORTHOGRAPHIC) {
            fprintf(f, ", \"projection\": \"orthographic\", \"xmag\": ");
            tool_json_double(f, c->xmag);
            fprintf(f, ", \"ymag\": ");
            tool_json_double(f, c->ymag);
        } else {
            fprintf(f, ", \"projection\": \"perspective\", \"yfov\": ");
            tool_json_double(f, c->yfov);
            fprintf(f, ", \"aspect\": ");
            tool_json_double(f, c->aspect);
        }
        fprintf(f, ", \"znear\": ");
        tool_json_double(f, c->znear);
        fprintf(f, ", \"zfar\": ");
        tool_json_double(f, c->zfar);
        fputc('}', f);
    }
    fprintf(f, "],\n \"lights\": [");
    for (uint32_t i = 0; i < s->light_count; i++) {
        const orr_render_light *l = &s->lights[i];
        fprintf(f, "%s\n  {\"entity\": ", i ? "," : "");
        tool_json_string(f, orr_snapshot_name(s, l->name));
        fprintf(f, ", \"type\": \"%s\", \"world\": ", light_type_name(l->type));
        tool_json_affine(f, &l->world);
        fprintf(f, ", \"color\": ");
        tool_json_vec3(f, (orr_vec3d){l->color[0], l->color[1], l->color[2]});
        fprintf(f, ", \"intensity\": ");
        tool_json_double(f, l->intensity);
        fputc('}', f);
    }
    fprintf(f, "]}\n");
}

int orr_tool_snapshot(int argc, char **argv)
{
    tool_scene_options o = {.instances = 1};
    bool json = false, ended = false;
    uint32_t frame = 0;
    bool frame_given = false;
    for (int i = 1; i < argc; i++) {
        int kind = tool_arg_kind(argv[i], &ended);
        if (kind == 1) continue;
        if (kind == 2) {
            if (o.file) {
                fprintf(stderr, "orrery snapshot: unexpected argument '%s' (one FILE: '%s')\n", argv[i], o.file);
                return 2;
            }
            o.file = argv[i];
            continue;
        }
        if (!strcmp(argv[i], "--frame")) { /* of a recording */
            if (!tool_opt_u32(argc, argv, &i, 0, UINT32_MAX, &frame)) return 2;
            frame_given = true;
            continue;
        }
        int shared = tool_scene_option(argc, argv, &i, &o);
        if (shared < 0) return 2;
        if (shared) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(snapshot_help, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (argv[i][0] != '-' && !o.file) {
            o.file = argv[i];
        } else {
            return tool_unknown_option("snapshot", argv[i]);
        }
    }
    if (o.file && tool_is_recording(o.file)) return tool_recording_snapshot(o.file, frame, json);
    if (frame_given) {
        fprintf(stderr, "orrery snapshot: --frame K reads a recording (orrery record); %s is none\n",
                o.file ? o.file : "the built-in scene");
        return 2;
    }
    tool_log log;
    tool_log_init(&log, o.file, o.quiet);
    o.log = &log;
    orr_session *session = new_session(ORR_PROFILE_PRESENTING, &log);
    if (!session) return 1;
    int status = tool_scene_build(session, &o);
    if (!status && orr_session_run_frame(session, 0.0) != ORR_OK) {
        fprintf(stderr, "orrery: %s\n", orr_session_last_error(session)->message);
        status = 1;
    }
    if (!status) tool_print_snapshot(orr_session_snapshot(session), json);
    orr_session_destroy(session);
    return status;
}

/* ---- serve ------------------------------------------------------------------------------- */

int orr_tool_serve(int argc, char **argv)
{
    tool_scene_options o = {.instances = 1};
    uint32_t ticks = 0;
    uint64_t simulated = 0; /* ticks run by the loop: 1 of N where they may be skipped */
    double t0 = 0, seconds = 0; /* wall-clock time of those ticks */
    bool json = false, have_ticks = false, ended = false;
    for (int i = 1; i < argc; i++) {
        int kind = tool_arg_kind(argv[i], &ended);
        if (kind == 1) continue;
        if (kind == 2) {
            if (o.file) {
                fprintf(stderr, "orrery serve: unexpected argument '%s' (one FILE: '%s')\n", argv[i], o.file);
                return 2;
            }
            o.file = argv[i];
            continue;
        }
        int shared = tool_scene_option(argc, argv, &i, &o);
        if (shared < 0) return 2;
        if (shared) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: orrery serve [FILE] --ticks N [--json] [--instances N] [--offset X,Y,Z] [--time S] [--anim N|none]\n"
                 "                    [--belt N] [--fur LENGTH[,D]] [--meshlets] [-q|--quiet]\n"
                 "  a dedicated server: ticks the world N times (0..100000000) at 1/60 s and never extracts a\n"
                 "  snapshot. The scene's motion follows the tick count alone (clips, the built-in orbits), so\n"
                 "  only the last tick runs and any N takes one tick's work (--json: \"simulated\" counts the\n"
                 "  ticks run). Prints the ticks, extractions (0) and entities, and the ticks run per second of\n"
                 "  wall-clock time (--json: \"seconds\", \"ticks_per_second\"). --belt, --fur, --meshlets: as for render (the built-in scene's asteroids, fur\n"
                 "  components, meshlets built). -q, --quiet: do not print the loader's warnings.\n"
                 "  Exit status: 0, 1 failed, 2 bad usage.");
            return 0;
        } else if (!strcmp(argv[i], "--ticks")) {
            if (!tool_opt_u32(argc, argv, &i, 0, TOOL_MAX_TICKS, &ticks)) return 2;
            have_ticks = true;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (argv[i][0] != '-' && !o.file) {
            o.file = argv[i];
        } else {
            return tool_unknown_option("serve", argv[i]);
        }
    }
    if (!have_ticks) {
        return tool_usage_error("serve", "--ticks N is required");
    }
    tool_log log;
    tool_log_init(&log, o.file, o.quiet);
    o.log = &log;
    orr_session *session = new_session(ORR_PROFILE_DEDICATED_SERVER, &log);
    if (!session) return 1;
    int status = tool_scene_build(session, &o);
    if (!status) {
        /* N ticks: the last alone where every system allows it (the motion follows the tick count),
         * then one frame of the server's loop; else tick by tick */
        uint32_t from = 0;
        t0 = tool_now_s();
        orr_result skipped = orr_session_skip_ticks(session, ticks);
        if (skipped == ORR_OK) {
            simulated = ticks ? 1 : 0;
            from = ticks;
            if (orr_session_run_frame(session, 0.0) != ORR_OK) {
                fprintf(stderr, "orrery: tick %u: %s\n", ticks, orr_session_last_error(session)->message);
                status = 1;
            }
        } else if (skipped != ORR_ERROR_UNSUPPORTED) {
            fprintf(stderr, "orrery: %s\n", orr_session_last_error(session)->message);
            status = 1;
        }
        tool_progress progress;
        tool_progress_begin(&progress, "serve");
        for (uint32_t t = from; t < ticks && !status; t++, simulated++) {
            if (t % 256 == 0) tool_progress_update(&progress, "tick", t, ticks);
            if (orr_session_run_frame(session, 1.0 / 60.0) != ORR_OK) {
                tool_progress_end(&progress);
                fprintf(stderr, "orrery: tick %u: %s\n", t, orr_session_last_error(session)->message);
                status = 1;
            }
        }
        seconds = tool_now_s() - t0;
        tool_progress_end(&progress);
    }
    if (!status) {
        uint64_t done = orr_session_tick(session), extractions = orr_session_extractions(session);
        uint32_t entities = orr_world_entity_count(orr_session_world(session));
        /* the rate of the ticks run: what a live server, which runs every tick, keeps up */
        double rate = simulated && seconds > 0 ? (double)simulated / seconds : 0.0;
        if (json) {
            printf("{\"ticks\": %llu, \"simulated\": %llu, \"extractions\": %llu, \"entities\": %u, "
                   "\"seconds\": %.6f, \"ticks_per_second\": %.1f}\n",
                   (unsigned long long)done, (unsigned long long)simulated, (unsigned long long)extractions, entities,
                   seconds, rate);
        } else {
            printf("served %llu ticks, %llu extractions, %u entities", (unsigned long long)done,
                   (unsigned long long)extractions, entities);
            if (simulated)
                printf("; %llu tick%s run in %.3f ms: %.0f ticks per second\n", (unsigned long long)simulated,
                       simulated == 1 ? "" : "s", seconds * 1e3, rate);
            else
                printf("\n");
        }
    }
    orr_session_destroy(session);
    return status;
}
