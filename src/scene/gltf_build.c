/* glTF 2.0: from a validated document to resources in the asset library and a prefab world.
 *
 * Order: textures (an image read and decoded once, when a texture first uses it), materials, meshes,
 * skins, clips, then the template world (root -> one child per scene -> node subtrees). Everything the
 * document refers to by index is created once per file, so nodes that share a mesh share one
 * orr_mesh_id. What the library receives is counted against the load's budget (spend) before it is
 * decoded, and a load that fails takes back everything it had added (take_back).
 *
 * This file: skins and clips, the template world, the entity budget, and the entry (orr_gltf_load,
 * orr_gltf_load_memory). Textures and materials are built in gltf_build_textures.c, meshes in
 * gltf_build_meshes.c; what they share is in gltf_build_internal.h. */
#include "core/internal.h"
#include "scene/gltf_build_internal.h"
#include "scene/prefab_internal.h"

#include <orrery/scene.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decoded bytes one load may add to the library by default, at least (orr_gltf_options.max_decoded_bytes). */
#define ORRI_GLTF_DEFAULT_BUDGET (UINT64_C(1) << 30)

/* A failed load takes back everything it had added to the library (ids are none until added; a
 * texture shared by several glTF textures is removed once, the others then find it stale). */
static void take_back(orri_gltf_bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; b->clips && i < d->animation_count; i++)
        if (!orr_id_is_none(b->clips[i])) orr_assets_remove_clip(b->assets, b->clips[i]);
    for (uint32_t i = 0; b->skins && i < d->skin_count; i++)
        if (!orr_id_is_none(b->skins[i])) orr_assets_remove_skin(b->assets, b->skins[i]);
    for (uint32_t i = 0; b->meshes && i < d->mesh_count; i++)
        if (!orr_id_is_none(b->meshes[i])) orr_assets_remove_mesh(b->assets, b->meshes[i]);
    for (uint32_t i = 0; b->lod_meshes && i < d->node_count; i++) /* (one shared by nodes is then stale) */
        if (!orr_id_is_none(b->lod_meshes[i])) orr_assets_remove_mesh(b->assets, b->lod_meshes[i]);
    for (uint32_t i = 0; b->materials && i < d->material_count; i++)
        if (!orr_id_is_none(b->materials[i])) orr_assets_remove_material(b->assets, b->materials[i]);
    for (uint32_t i = 0; b->textures && i < d->texture_count; i++) {
        if (!orr_id_is_none(b->textures[i])) orr_assets_remove_texture(b->assets, b->textures[i]);
        if (b->textures_linear && !orr_id_is_none(b->textures_linear[i]))
            orr_assets_remove_texture(b->assets, b->textures_linear[i]);
    }
}
/* ---- skins and clips ---------------------------------------------------------------------------- */

static orr_result build_skins(orri_gltf_bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < d->skin_count; i++) {
        const orri_gltf_skin *s = &d->skins[i];
        char what[48];
        snprintf(what, sizeof what, "skins[%u]", i);
        orr_result br = orri_gltf_spend(b, (uint64_t)s->joint_count * sizeof(orr_mat4d), what);
        if (br != ORR_OK) return br;
        orr_mat4d *ibm = NULL;
        if (s->inverse_bind >= 0) {
            float *f = orri_gltf_balloc(b, (size_t)s->joint_count * 16, sizeof(float)); /* only the matrices used */
            ibm = orri_gltf_balloc(b, s->joint_count, sizeof *ibm);
            if (!f || !ibm) {
                orri_gltf_bfree(b, f), orri_gltf_bfree(b, ibm);
                return orri_gltf_oom_at(b, "skins", i);
            }
            orri_gltf_read_floats_range(d, (uint32_t)s->inverse_bind, 0, s->joint_count, 16, 0, f);
            for (uint32_t j = 0; j < s->joint_count; j++)
                for (int k = 0; k < 16; k++) ibm[j].m[k] = f[(size_t)j * 16 + k];
            for (uint32_t j = 0; j < s->joint_count; j++) { /* glTF: the last row is (0, 0, 0, 1) */
                const double *m = ibm[j].m;
                if (m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1) continue;
                orri_gltf_bviolation(b, "skins[%u].inverseBindMatrices: matrix %u is not affine (last row %g %g %g %g); used as given", i,
                      j, m[3], m[7], m[11], m[15]);
                break;
            }
            orri_gltf_bfree(b, f);
        }
        orr_skin_desc sd = {.name = s->name, .joint_count = s->joint_count, .inverse_bind = ibm};
        orr_result r = orr_assets_add_skin(b->assets, &sd, &b->skins[i]);
        orri_gltf_bfree(b, ibm);
        if (r != ORR_OK) return orri_gltf_from_assets(b, r, what);
    }
    return ORR_OK;
}

static orr_result build_clips(orri_gltf_bctx *b)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < d->animation_count; i++) {
        const orri_gltf_animation *an = &d->animations[i];
        orr_anim_channel *ch = orri_gltf_balloc(b, an->channel_count, sizeof *ch);
        if (!ch) return orri_gltf_oom_at(b, "animations", i);
        uint32_t n = 0;
        orr_result r = ORR_OK;
        for (uint32_t k = 0; k < an->channel_count; k++) {
            const orri_gltf_channel *c = &an->channels[k];
            if (c->node < 0) continue; /* warned while parsing */
            const orri_gltf_sampler *s = &an->samplers[c->sampler];
            const orri_gltf_accessor *in = &d->accessors[s->input], *out = &d->accessors[s->output];
            uint32_t comps = c->path == ORR_ANIM_ROTATION ? 4 : c->path == ORR_ANIM_WEIGHTS ? 0 : 3;
            if (c->path == ORR_ANIM_WEIGHTS) comps = d->meshes[d->nodes[c->node].mesh].weight_count;
            char what[64];
            snprintf(what, sizeof what, "animations[%u].channels[%u]", i, k);
            r = orri_gltf_spend(b, ((uint64_t)in->count + (uint64_t)out->count * out->components) * sizeof(float), what);
            if (r != ORR_OK) break;
            float *times = orri_gltf_balloc(b, in->count, sizeof(float));
            float *values = orri_gltf_balloc(b, out->count, (size_t)out->components * sizeof(float));
            if (!times || !values) {
                orri_gltf_bfree(b, times), orri_gltf_bfree(b, values);
                r = orri_gltf_oom_at(b, "animations", i);
                break;
            }
            orri_gltf_read_floats(d, (uint32_t)s->input, 1, 0, times);
            orri_gltf_read_floats(d, (uint32_t)s->output, out->components, 0, values);
            ch[n++] = (orr_anim_channel){.target = (uint32_t)c->node, .path = c->path, .interpolation = s->interpolation,
                                         .key_count = in->count, .components = comps, .times = times, .values = values};
        }
        if (r == ORR_OK && n) {
            orr_clip_desc cd = {.name = an->name, .channel_count = n, .channels = ch};
            r = orr_assets_add_clip(b->assets, &cd, &b->clips[i]);
            if (r != ORR_OK) {
                char what[64];
                snprintf(what, sizeof what, "animations[%u]", i);
                r = orri_gltf_from_assets(b, r, what);
            }
        }
        for (uint32_t k = 0; k < n; k++) orri_gltf_bfree(b, (void *)ch[k].times), orri_gltf_bfree(b, (void *)ch[k].values);
        orri_gltf_bfree(b, ch);
        if (r != ORR_OK) return r;
    }
    return ORR_OK;
}

/* ---- the template world ------------------------------------------------------------------------- */

static orr_transform node_transform(const orri_gltf_node *n)
{
    orr_transform t = orr_transform_identity();
    if (n->has_matrix) {
        orr_vec3d tt, ss;
        orr_quatd rr;
        if (orr_mat4d_decompose(&n->matrix, &tt, &rr, &ss)) {
            t.translation = tt, t.rotation = rr, t.scale = ss;
        } else {
            t.has_matrix = true;
            t.matrix = n->matrix;
        }
    } else {
        t.translation = n->t, t.rotation = n->r, t.scale = n->s;
    }
    return t;
}

static orr_result world_err(orri_gltf_bctx *b, orr_world *w, orr_result r, const char *what)
{
    const orr_error *e = orr_world_last_error(w);
    return orri_error(b->err, r, "%s: %s", what, e && e->message[0] ? e->message : orr_result_name(r));
}

static orr_result add_renderer(orri_gltf_bctx *b, orr_world *w, orr_entity e, orr_mesh_id mesh, uint32_t layers)
{
    orr_mesh_renderer mr = orr_mesh_renderer_default();
    mr.mesh = mesh;
    mr.layers = layers;
    orr_result r = orr_component_add(w, e, ORR_COMPONENT_MESH_RENDERER, &mr, NULL);
    return r == ORR_OK ? r : world_err(b, w, r, "prefab");
}

/* Instances of EXT_mesh_gpu_instancing: children of the node, each with the instance's TRS. */
static orr_result add_instances(orri_gltf_bctx *b, orr_world *w, orr_entity parent, const orri_gltf_node *n, orr_mesh_id mesh,
                                uint32_t layers)
{
    uint32_t count = n->instance_count;
    float *t = NULL, *r = NULL, *s = NULL;
    bool ok = true;
    t = orri_gltf_read_stream(b, n->inst_t, 3, 0, &ok);
    r = orri_gltf_read_stream(b, n->inst_r, 4, 0, &ok);
    s = orri_gltf_read_stream(b, n->inst_s, 3, 1, &ok);
    orr_result res = ok ? ORR_OK : orri_gltf_oom_at(b, "nodes", (uint32_t)(n - b->doc->nodes));
    for (size_t i = 0; i < count && res == ORR_OK; i++) {
        orr_transform lt = orr_transform_identity();
        if (t) lt.translation = (orr_vec3d){t[i * 3], t[i * 3 + 1], t[i * 3 + 2]};
        if (r) lt.rotation = orr_quatd_normalize((orr_quatd){r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3]});
        if (s) lt.scale = (orr_vec3d){s[i * 3], s[i * 3 + 1], s[i * 3 + 2]};
        orr_entity_desc ed = {.name = NULL, .parent = parent, .local = &lt};
        orr_entity e;
        res = orr_entity_create(w, &ed, &e);
        if (res != ORR_OK) res = world_err(b, w, res, "prefab");
        else res = add_renderer(b, w, e, mesh, layers);
    }
    orri_gltf_bfree(b, t), orri_gltf_bfree(b, r), orri_gltf_bfree(b, s);
    return res;
}

/* A node whose mesh has morph targets gets its weights as a MorphWeights component (what animation
 * channels of path weights write): the node's `weights` where it has them, the mesh's past their end. */
static orr_result add_morph_weights(orri_gltf_bctx *b, orr_world *w, orr_entity e, const orri_gltf_node *n)
{
    const orr_mesh *mesh = orr_assets_try_get_mesh(b->assets, b->meshes[n->mesh]);
    if (!mesh || !mesh->weight_count) return ORR_OK;
    float *weights = orri_gltf_balloc(b, mesh->weight_count, sizeof *weights);
    if (!weights) return orri_gltf_oom_at(b, "nodes", (uint32_t)(n - b->doc->nodes));
    memcpy(weights, mesh->weights, (size_t)mesh->weight_count * sizeof *weights);
    uint32_t k = 0;
    for (const cJSON *v = n->weights ? n->weights->child : NULL; v && k < mesh->weight_count; v = v->next, k++)
        weights[k] = (float)v->valuedouble;
    orr_result r = orr_morph_weights_set(w, e, weights, mesh->weight_count);
    orri_gltf_bfree(b, weights);
    return r == ORR_OK ? r : world_err(b, w, r, "prefab");
}

static orr_result build_node(orri_gltf_bctx *b, orr_world *w, uint32_t ni, orr_entity parent, uint32_t layers, orr_entity *out)
{
    const orri_gltf_doc *d = b->doc;
    const orri_gltf_node *n = &d->nodes[ni];
    orr_transform local = node_transform(n);
    orr_entity_desc ed = {.name = n->name, .parent = parent, .local = &local};
    orr_result r = orr_entity_create(w, &ed, out);
    if (r != ORR_OK) return world_err(b, w, r, "prefab");
    orr_entity e = *out;
    if (n->mesh >= 0 && !orr_id_is_none(b->meshes[n->mesh])) {
        /* a node with MSFT_lod levels draws them (one mesh's levels) where they could be merged */
        orr_mesh_id mesh = b->lod_meshes && !orr_id_is_none(b->lod_meshes[ni]) ? b->lod_meshes[ni] : b->meshes[n->mesh];
        if (n->instance_count) r = add_instances(b, w, e, n, mesh, layers);
        else r = add_renderer(b, w, e, mesh, layers);
        if (r == ORR_OK && !n->instance_count) r = add_morph_weights(b, w, e, n);
        if (r != ORR_OK) return r;
    }
    if (n->camera >= 0) {
        const orri_gltf_camera *gc = &d->cameras[n->camera];
        orr_camera cam = orr_camera_default();
        cam.projection = gc->projection;
        cam.yfov = gc->projection == ORR_PERSPECTIVE ? gc->yfov : cam.yfov;
        cam.aspect = gc->aspect;
        cam.xmag = gc->xmag;
        cam.ymag = gc->ymag;
        cam.znear = gc->znear;
        cam.zfar = gc->zfar;
        r = orr_component_add(w, e, ORR_COMPONENT_CAMERA, &cam, NULL);
        if (r != ORR_OK) return world_err(b, w, r, "prefab");
    }
    if (n->light >= 0) {
        orr_light l = d->lights[n->light].value;
        r = orr_component_add(w, e, ORR_COMPONENT_LIGHT, &l, NULL);
        if (r != ORR_OK) return world_err(b, w, r, "prefab");
    }
    return ORR_OK;
}

/* One scene's copy of its node trees under `scene_root`. map[node] receives the entity (none for
 * nodes outside the scene). Iterative, so deep hierarchies cannot overflow the stack. */
/* One scene's copy of its node trees under `scene_root`. map[node] receives the entity; visited
 * lists the nodes copied (map is reset from it, so many scenes cost their own size, not the file's).
 * Iterative, so deep hierarchies cannot overflow the stack. */
static orr_result build_scene(orri_gltf_bctx *b, orr_world *w, const uint32_t *roots, uint32_t root_count, orr_entity scene_root,
                              uint32_t layers, orr_entity *map, uint32_t *stack, uint32_t *visited, uint32_t *visited_n)
{
    const orri_gltf_doc *d = b->doc;
    for (uint32_t i = 0; i < *visited_n; i++) map[visited[i]] = ORR_ENTITY_NONE;
    uint32_t nv = 0;
    *visited_n = 0;
    for (uint32_t ri = 0; ri < root_count; ri++) {
        /* pre-order with an explicit stack; children are pushed in reverse to keep their order */
        uint32_t sp = 0;
        stack[sp++] = roots[ri];
        while (sp) {
            uint32_t ni = stack[--sp];
            const orri_gltf_node *n = &d->nodes[ni];
            orr_entity parent = n->parent >= 0 ? map[n->parent] : scene_root;
            orr_result r = build_node(b, w, ni, parent, layers, &map[ni]);
            visited[nv++] = ni;
            *visited_n = nv;
            if (r != ORR_OK) return r;
            for (uint32_t k = n->child_count; k-- > 0;) stack[sp++] = n->children[k];
        }
    }
    /* skins: joints resolve to this scene's copies */
    for (uint32_t vi = 0; vi < nv; vi++) {
        uint32_t i = visited[vi];
        const orri_gltf_node *n = &d->nodes[i];
        /* an instanced node's renderers are its instance children: the skin is not applied to them */
        if (n->skin < 0 || n->mesh < 0 || n->instance_count || orr_id_is_none(b->meshes[n->mesh])) continue;
        const orri_gltf_skin *s = &d->skins[n->skin];
        orr_entity *joints = orri_gltf_balloc(b, s->joint_count, sizeof *joints);
        if (!joints) return orri_gltf_oom_at(b, "nodes", i);
        for (uint32_t j = 0; j < s->joint_count; j++) joints[j] = map[s->joints[j]];
        for (uint32_t j = 0; j < s->joint_count; j++) {
            if (!orr_entity_eq(joints[j], ORR_ENTITY_NONE)) continue;
            orri_gltf_bviolation(b, "nodes[%u]: joint %u of skin %d (node %u) is not in the node's scene; it holds the bind pose", i, j,
                  n->skin, s->joints[j]);
            break;
        }
        orr_skinned_mesh sm = {.skin = b->skins[n->skin]};
        orr_result r = orr_component_add(w, map[i], ORR_COMPONENT_SKINNED_MESH, &sm, NULL);
        if (r == ORR_OK) r = orr_skinned_mesh_set_joints(w, map[i], joints, s->joint_count);
        orri_gltf_bfree(b, joints);
        if (r != ORR_OK) return world_err(b, w, r, "prefab");
    }
    return ORR_OK;
}

/* Saturating: a file naming one large subtree from many scenes must not wrap the count. */
static uint64_t sat_add(uint64_t x, uint64_t y) { return x > UINT64_MAX - y ? UINT64_MAX : x + y; }
static uint64_t sat_mul(uint64_t x, uint64_t y) { return y && x > UINT64_MAX / y ? UINT64_MAX : x * y; }

/* What the prefab will hold, counted before anything is created, so that a small file cannot demand
 * millions of entities or gigabytes of lists: its entities (the root, one per scene, and per scene its
 * node trees, a node in several scenes counting in each, with their EXT_mesh_gpu_instancing instances)
 * and the bytes of their variable-length data (names, each skinned entity's joint list, the animation
 * player's targets), which world.h stores per entity (a tail block: an 8-byte head and the elements).
 * A node's copies: how many times its tree's root is instantiated (scene references, or once for the
 * implicit scene). O(nodes + scene roots). */
typedef struct prefab_count {
    uint64_t entities;
    uint64_t list_bytes;
    uint64_t worst_skin_refs; /* the joint references of the skin that holds most of them */
    uint64_t worst_skin_users;
    int32_t worst_skin;       /* -1 = none */
} prefab_count;

#define ORRI_GLTF_BLOCK_HEAD 8u /* world.h: the head of a tail block */

static void count_prefab(const orri_gltf_doc *d, uint64_t *copies, uint64_t *skin_refs, uint32_t *stack, uint32_t *order,
                         prefab_count *pc)
{
    *pc = (prefab_count){.entities = 1, .worst_skin = -1};
    for (uint32_t i = 0; i < d->node_count; i++) copies[i] = 0;
    if (d->scene_count) {
        for (uint32_t s = 0; s < d->scene_count; s++) {
            pc->entities = sat_add(pc->entities, 1);
            if (d->scenes[s].name)
                pc->list_bytes = sat_add(pc->list_bytes, strlen(d->scenes[s].name) + 1 + ORRI_GLTF_BLOCK_HEAD);
            for (uint32_t k = 0; k < d->scenes[s].node_count; k++)
                copies[d->scenes[s].nodes[k]] = sat_add(copies[d->scenes[s].nodes[k]], 1);
        }
    } else {
        bool any = false;
        for (uint32_t i = 0; i < d->node_count; i++)
            if (d->nodes[i].parent < 0) copies[i] = 1, any = true;
        if (any) pc->entities = sat_add(pc->entities, 1);
    }
    uint32_t no = 0;
    for (uint32_t r = 0; r < d->node_count; r++) { /* pre-order of every tree: parents before children */
        if (d->nodes[r].parent >= 0) continue;
        uint32_t sp = 0;
        stack[sp++] = r;
        while (sp) {
            uint32_t ni = stack[--sp];
            order[no++] = ni;
            for (uint32_t k = 0; k < d->nodes[ni].child_count; k++) stack[sp++] = d->nodes[ni].children[k];
        }
    }
    for (uint32_t i = 0; i < d->skin_count; i++) skin_refs[i] = 0;
    for (uint32_t k = 0; k < no; k++) {
        uint32_t ni = order[k];
        const orri_gltf_node *n = &d->nodes[ni];
        if (n->parent >= 0) copies[ni] = copies[n->parent];
        uint64_t c = copies[ni];
        if (!c) continue;
        uint64_t inst = n->mesh >= 0 ? n->instance_count : 0;
        pc->entities = sat_add(pc->entities, sat_mul(c, 1 + inst));
        if (n->name) pc->list_bytes = sat_add(pc->list_bytes, sat_mul(c, strlen(n->name) + 1 + ORRI_GLTF_BLOCK_HEAD));
        if (n->skin >= 0 && n->mesh >= 0 && !n->instance_count) {
            uint64_t joints = d->skins[n->skin].joint_count;
            pc->list_bytes = sat_add(pc->list_bytes, sat_mul(c, joints * sizeof(orr_entity) + ORRI_GLTF_BLOCK_HEAD));
            skin_refs[n->skin] = sat_add(skin_refs[n->skin], sat_mul(c, joints));
        }
    }
    if (d->animation_count)
        pc->list_bytes = sat_add(pc->list_bytes, (uint64_t)d->node_count * sizeof(orr_entity) + ORRI_GLTF_BLOCK_HEAD);
    for (uint32_t i = 0; i < d->skin_count; i++) {
        if (skin_refs[i] <= pc->worst_skin_refs) continue;
        pc->worst_skin_refs = skin_refs[i];
        pc->worst_skin_users = d->skins[i].joint_count ? skin_refs[i] / d->skins[i].joint_count : 0;
        pc->worst_skin = (int32_t)i;
    }
}

orr_result orri_gltf_entity_budget(const orri_gltf_doc *d, uint32_t max_entities, uint64_t *entities, orr_error *err)
{
    const orr_allocator *al = &d->allocator;
    uint64_t limit = max_entities ? max_entities : ORRI_GLTF_DEFAULT_MAX_ENTITIES;
    prefab_count pc = {.entities = 1 + d->scene_count, .worst_skin = -1};
    if (d->node_count) {
        size_t n = d->node_count;
        uint64_t *copies = orri_gltf_alloc(al, n * sizeof *copies);
        uint64_t *refs = d->skin_count ? orri_gltf_alloc(al, d->skin_count * sizeof *refs) : NULL;
        uint32_t *stack = orri_gltf_alloc(al, n * sizeof *stack), *order = orri_gltf_alloc(al, n * sizeof *order);
        bool ok = copies && stack && order && (refs || !d->skin_count);
        if (ok) count_prefab(d, copies, refs, stack, order, &pc);
        orri_gltf_dealloc(al, copies, 0), orri_gltf_dealloc(al, refs, 0);
        orri_gltf_dealloc(al, stack, 0), orri_gltf_dealloc(al, order, 0);
        if (!ok) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "scenes: out of memory counting entities");
    }
    *entities = pc.entities;
    uint64_t units = sat_add(pc.entities, pc.list_bytes / ORRI_GLTF_LIST_UNIT);
    if (units <= limit) return ORR_OK;
    if (pc.entities > limit)
        return orri_error(err, ORR_ERROR_CAPACITY,
                          "scenes: the prefab would hold %llu entities, the limit is %llu (orr_gltf_options.max_entities)",
                          (unsigned long long)pc.entities, (unsigned long long)limit);
    uint64_t skin_bytes = sat_mul(pc.worst_skin_refs, sizeof(orr_entity));
    if (pc.worst_skin >= 0 && skin_bytes * 2 >= pc.list_bytes) /* the skin is most of it: name it */
        return orri_error(err, ORR_ERROR_CAPACITY,
                          "skins[%d]: %u joints on %llu skinned entities would hold %llu joint references (%llu MiB) in "
                          "the prefab, which with its %llu entities counts as %llu entities (each %u bytes of names, "
                          "joints and animation targets as one); the limit is %llu (orr_gltf_options.max_entities)",
                          pc.worst_skin, d->skins[pc.worst_skin].joint_count, (unsigned long long)pc.worst_skin_users,
                          (unsigned long long)pc.worst_skin_refs, (unsigned long long)(skin_bytes >> 20),
                          (unsigned long long)pc.entities, (unsigned long long)units, ORRI_GLTF_LIST_UNIT,
                          (unsigned long long)limit);
    return orri_error(err, ORR_ERROR_CAPACITY,
                      "scenes: the prefab would hold %llu entities and %llu bytes of names, joints and animation "
                      "targets, which count as %llu entities (each %u bytes as one); the limit is %llu "
                      "(orr_gltf_options.max_entities)",
                      (unsigned long long)pc.entities, (unsigned long long)pc.list_bytes, (unsigned long long)units,
                      ORRI_GLTF_LIST_UNIT, (unsigned long long)limit);
}

/* Refuses, before anything is added to the library, a file whose prefab would exceed the limit. */
static orr_result check_entity_budget(orri_gltf_bctx *b)
{
    return orri_gltf_entity_budget(b->doc, b->options ? b->options->max_entities : 0, &b->entities, b->err);
}

static const char *base_name(const char *path)
{
    if (!path) return "prefab";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static orr_result build_world(orri_gltf_bctx *b, orri_prefab *pf)
{
    const orri_gltf_doc *d = b->doc;
    /* exactly the room the template needs, so building it grows no table */
    orr_world_desc wd = {.allocator = b->alloc, .logger = b->logger, .reserve = (uint32_t)b->entities};
    orr_result r = orr_world_create(&wd, &pf->world, NULL);
    if (r != ORR_OK) return orri_error(b->err, r, "prefab: cannot create its world: %s", orr_result_name(r));
    orr_world *w = pf->world;
    orri_gltf_progress(b->options, ORR_GLTF_PHASE_WORLD, 0, b->entities);
    orr_entity_desc rd = {.name = base_name(b->name)};
    r = orr_entity_create(w, &rd, &pf->root);
    if (r != ORR_OK) return world_err(b, w, r, "prefab");

    orr_entity *map = d->node_count ? orri_gltf_balloc(b, d->node_count, sizeof *map) : NULL;
    orr_entity *anim_map = d->node_count ? orri_gltf_balloc(b, d->node_count, sizeof *anim_map) : NULL;
    uint32_t *stack = d->node_count ? orri_gltf_balloc(b, d->node_count, sizeof *stack) : NULL;
    uint32_t *visited = d->node_count ? orri_gltf_balloc(b, d->node_count, sizeof *visited) : NULL;
    uint32_t *implicit = NULL, visited_n = 0;
    if (d->node_count && (!map || !anim_map || !stack || !visited)) {
        r = orri_gltf_oom(b, "prefab");
        goto out;
    }
    for (uint32_t i = 0; i < d->node_count; i++) map[i] = ORR_ENTITY_NONE;
    for (uint32_t i = 0; i < d->node_count; i++) anim_map[i] = ORR_ENTITY_NONE;
    /* No scenes declared: one implicit scene of every root node, so the file still shows something. */
    uint32_t scene_count = d->scene_count;
    uint32_t implicit_n = 0;
    if (!scene_count && d->node_count) {
        implicit = orri_gltf_balloc(b, d->node_count, sizeof *implicit);
        if (!implicit) {
            r = orri_gltf_oom(b, "prefab");
            goto out;
        }
        for (uint32_t i = 0; i < d->node_count; i++)
            if (d->nodes[i].parent < 0) implicit[implicit_n++] = i;
        scene_count = 1;
    }
    pf->scene_count = scene_count;
    pf->default_scene = d->default_scene >= 0 ? (uint32_t)d->default_scene : 0;
    for (uint32_t si = 0; si < scene_count; si++) {
        const char *sname = d->scene_count ? d->scenes[si].name : NULL;
        char fallback[32];
        if (!sname) {
            snprintf(fallback, sizeof fallback, "scene%u", si);
            sname = fallback;
        }
        orr_entity_desc sd = {.name = sname, .parent = pf->root};
        orr_entity scene_root;
        r = orr_entity_create(w, &sd, &scene_root);
        if (r != ORR_OK) {
            r = world_err(b, w, r, "prefab");
            goto out;
        }
        uint32_t layers = (b->options && b->options->single_layer) ? 1u : (si < 32 ? 1u << si : 1u << 31);
        const uint32_t *roots = d->scene_count ? d->scenes[si].nodes : implicit;
        uint32_t root_n = d->scene_count ? d->scenes[si].node_count : implicit_n;
        if (d->node_count) {
            r = build_scene(b, w, roots, root_n, scene_root, layers, map, stack, visited, &visited_n);
            if (r != ORR_OK) goto out;
            bool prefer = si == pf->default_scene;
            for (uint32_t k = 0; k < visited_n; k++) {
                uint32_t i = visited[k];
                if (prefer || orr_entity_eq(anim_map[i], ORR_ENTITY_NONE)) anim_map[i] = map[i];
            }
        }
    }
    /* the player of animation 0 on the root; targets are glTF node indices. It exists whenever the
     * file has animations, so a host can switch it to another clip (a none clip plays nothing). */
    if (d->animation_count) {
        orr_animation_player ap = orr_animation_player_default();
        ap.clip = b->clips[0];
        r = orr_component_add(w, pf->root, ORR_COMPONENT_ANIMATION_PLAYER, &ap, NULL);
        if (r == ORR_OK) r = orr_animation_player_set_targets(w, pf->root, anim_map, d->node_count);
        if (r != ORR_OK) {
            r = world_err(b, w, r, "prefab");
            goto out;
        }
    }
    orr_world_update_transforms(w);
out:
    orri_gltf_bfree(b, map), orri_gltf_bfree(b, anim_map), orri_gltf_bfree(b, stack), orri_gltf_bfree(b, implicit), orri_gltf_bfree(b, visited);
    return r;
}

/* ---- entry -------------------------------------------------------------------------------------- */

static void prefab_destroy(void *payload)
{
    orri_prefab *pf = payload;
    if (!pf) return;
    orr_allocator a = pf->allocator;
    orr_world_destroy(pf->world);
    orri_gltf_dealloc(&a, pf->clips, 0);
    orri_gltf_dealloc(&a, pf, 0);
}

static orr_result load_doc(orr_assets *assets, const orri_gltf_doc *d, uint64_t input_bytes, const char *key,
                           const char *name, const orr_gltf_options *options, orr_prefab_id *out, orr_error *err,
                           uint64_t *image_ns)
{
    orri_gltf_bctx b = {.assets = assets, .doc = d, .options = options, .alloc = orr_assets_allocator(assets),
              .logger = orr_assets_logger(assets), .err = err, .name = name};
    orr_result r = ORR_OK;
    orri_prefab *pf = orri_gltf_alloc(&b.alloc, sizeof *pf);
    if (!pf) return orri_gltf_oom(&b, "prefab");
    pf->allocator = b.alloc;
    b.textures = orri_gltf_balloc(&b, d->texture_count, sizeof *b.textures);
    b.textures_linear = orri_gltf_balloc(&b, d->texture_count, sizeof *b.textures_linear);
    b.texture_fallback = orri_gltf_balloc(&b, d->texture_count, 1);
    b.materials = orri_gltf_balloc(&b, d->material_count, sizeof *b.materials);
    b.meshes = orri_gltf_balloc(&b, d->mesh_count, sizeof *b.meshes);
    b.lod_meshes = orri_gltf_balloc(&b, d->node_count, sizeof *b.lod_meshes);
    b.skins = orri_gltf_balloc(&b, d->skin_count, sizeof *b.skins);
    b.clips = orri_gltf_balloc(&b, d->animation_count, sizeof *b.clips);
    if ((d->texture_count && (!b.textures || !b.textures_linear || !b.texture_fallback)) || (d->material_count && !b.materials) || (d->mesh_count && !b.meshes) || (d->node_count && !b.lod_meshes) ||
        (d->skin_count && !b.skins) || (d->animation_count && !b.clips)) {
        r = orri_gltf_oom(&b, "load");
        goto out;
    }
    /* the decoded-data budget: by default the larger of 1 GiB and 4 times what was read (the file and
     * its external buffers), so that a large honest file loads and a small hostile one cannot ask for
     * gigabytes by naming one accessor, image or key set many times */
    uint64_t input = input_bytes;
    for (uint32_t i = 0; i < d->source_count; i++)
        if (d->sources[i].ok) input += d->sources[i].file.size;
    b.budget = options && options->max_decoded_bytes ? options->max_decoded_bytes
                                                      : (input > ORRI_GLTF_DEFAULT_BUDGET / 4 ? input * 4 : ORRI_GLTF_DEFAULT_BUDGET);
    r = check_entity_budget(&b);
    if (r == ORR_OK) r = orri_gltf_build_textures(&b);
    if (r == ORR_OK) r = orri_gltf_check_unused_images(&b);
    if (r == ORR_OK) r = orri_gltf_build_materials(&b);
    for (uint32_t i = 0; i < d->mesh_count && r == ORR_OK; i++) {
        orri_gltf_progress(options, ORR_GLTF_PHASE_MESHES, i, d->mesh_count);
        r = orri_gltf_build_mesh(&b, i);
    }
    /* what the meshes did not wait for (a primitive without positions) is checked all the same */
    if (r == ORR_OK) r = orri_gltf_finish((orri_gltf_doc *)d, b.name, options ? options->threads : 0, b.err);
    if (r == ORR_OK && d->mesh_count) orri_gltf_progress(options, ORR_GLTF_PHASE_MESHES, d->mesh_count, d->mesh_count);
    if (r == ORR_OK) r = orri_gltf_build_lods(&b);
    if (r == ORR_OK) r = build_skins(&b);
    if (r == ORR_OK) r = build_clips(&b);
    if (r == ORR_OK) r = build_world(&b, pf);
    if (r == ORR_OK) {
        pf->clip_count = d->animation_count;
        pf->clips = b.clips;
        r = orr_assets_add_prefab(assets, key, pf, prefab_destroy, out);
        if (r != ORR_OK) {
            pf->clips = NULL, pf->clip_count = 0; /* still b's, taken back below */
            r = orri_gltf_from_assets(&b, r, "prefab");
        } else {
            b.clips = NULL;
            pf = NULL;
        }
    }
out:
    if (r != ORR_OK && d->late_n && !d->late_checked) {
        /* refused before the late index views were checked: a problem in them is what one thread (which
         * checks them while parsing) reports, so it comes first (the warnings and progress the build gave
         * before it, one thread would not have given) */
        orr_error late = {0};
        if (orri_gltf_finish((orri_gltf_doc *)d, b.name, options ? options->threads : 0, &late) != ORR_OK) {
            r = late.code;
            if (b.err) *b.err = late;
        }
    }
    if (r != ORR_OK) take_back(&b);
    if (pf) prefab_destroy(pf);
    orri_gltf_bfree(&b, b.view_users), orri_gltf_bfree(&b, b.accessor_users);
    orri_gltf_bfree(&b, b.textures), orri_gltf_bfree(&b, b.textures_linear), orri_gltf_bfree(&b, b.texture_fallback), orri_gltf_bfree(&b, b.materials), orri_gltf_bfree(&b, b.meshes), orri_gltf_bfree(&b, b.lod_meshes), orri_gltf_bfree(&b, b.skins), orri_gltf_bfree(&b, b.clips);
    *image_ns = b.image_ns;
    return r;
}

static orr_result load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir, const char *key,
                              const orr_gltf_options *options, orr_prefab_id *out, orr_error *err, uint64_t read_ns);

orr_result orr_gltf_load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir,
                                const char *key, const orr_gltf_options *options, orr_prefab_id *out, orr_error *err)
{
    return load_memory(assets, data, size, base_dir, key, options, out, err, 0);
}

static orr_result load_memory(orr_assets *assets, const void *data, size_t size, const char *base_dir, const char *key,
                              const orr_gltf_options *options, orr_prefab_id *out, orr_error *err, uint64_t read_ns)
{
    ORRI_REQUIRE(assets && out, err, "orr_gltf_load_memory: assets and out are required");
    ORRI_REQUIRE(data || size == 0, err, "orr_gltf_load_memory: data is NULL (%zu bytes)", size);
    *out = (orr_prefab_id){0, 0};
    if (err) err->code = ORR_OK, err->message[0] = 0;
    if (key) {
        orr_prefab_id found = orr_assets_find_prefab(assets, key);
        if (!orr_id_is_none(found)) {
            *out = found;
            return ORR_OK;
        }
    }
    uint64_t t0 = orri_gltf_now_ns();
    orr_gltf_stats *st = options ? options->stats : NULL;
    if (st) *st = (orr_gltf_stats){.read_ns = read_ns};
    uint32_t threads = orri_gltf_threads(options ? options->threads : 0);
    orri_gltf_pool pool = {.given = options ? options->workers : NULL, .threads = threads,
                           .allocator = orr_assets_allocator(assets)};
    orri_gltf_parse_desc pd = {.data = data, .size = size, .base_dir = base_dir, .name = key,
                               .allocator = orr_assets_allocator(assets), .logger = orr_assets_logger(assets),
                               .allow_outside_uris = options && options->allow_outside_uris,
                               .files = options && options->require_files ? ORRI_GLTF_FILES_REQUIRE : ORRI_GLTF_FILES_LAZY,
                               .threads = threads, .pool = &pool, .stats = st, .defer = true};
    orri_gltf_doc *doc;
    orri_gltf_progress(options, ORR_GLTF_PHASE_PARSE, 0, size);
    orr_result r = orri_gltf_parse(&pd, &doc, err);
    if (r == ORR_OK) {
        uint64_t t1 = orri_gltf_now_ns(), image_ns = 0;
        r = load_doc(assets, doc, size, key, key, options, out, err, &image_ns);
        if (st) { /* index views decoded beside the build: their time is decoding, its wait for them too */
            uint64_t spent = orri_gltf_now_ns() - t1, other = image_ns + doc->late_wait_ns;
            st->image_ns = image_ns;
            if (doc->late_checked) st->decode_ns += doc->late_ns; /* (else still running: a refusal came first) */
            st->split_views = doc->split_views;
            st->build_ns = spent > other ? spent - other : 0;
        }
        orri_gltf_free(doc);
    }
    orri_gltf_pool_fini(&pool); /* after the doc: its late views decode on them */
    if (st) st->total_ns = st->read_ns + (orri_gltf_now_ns() - t0);
    if (r != ORR_OK && err) orri_gltf_escape(err->message, sizeof err->message); /* names from the file */
    return r;
}

orr_result orr_gltf_load(orr_assets *assets, const char *path, const orr_gltf_options *options, orr_prefab_id *out,
                         orr_error *err)
{
    ORRI_REQUIRE(assets && path && out, err, "orr_gltf_load: assets, path and out are required");
    *out = (orr_prefab_id){0, 0};
    if (err) err->code = ORR_OK, err->message[0] = 0;
    char key[4096];
    if (!realpath(path, key)) snprintf(key, sizeof key, "%s", path);
    orr_prefab_id found = orr_assets_find_prefab(assets, key);
    if (!orr_id_is_none(found)) {
        *out = found;
        return ORR_OK;
    }
    orr_allocator alloc = orr_assets_allocator(assets);
    orri_gltf_file file;
    uint64_t t0 = orri_gltf_now_ns();
    orr_result r = orri_gltf_model_open(&alloc, path, &file, err);
    uint64_t read_ns = orri_gltf_now_ns() - t0;
    if (options && options->stats) *options->stats = (orr_gltf_stats){.read_ns = read_ns, .total_ns = read_ns};
    if (r != ORR_OK) return r;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", key);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    r = load_memory(assets, file.data, file.size, dir, key, options, out, err, read_ns);
    orri_gltf_file_close(&alloc, &file);
    return r;
}
