/* orr_gltf_info_file: what a file declares, plus totals over its data; needs no asset library. */
#include "core/internal.h"
#include "scene/gltf_internal.h"

#include <math.h>
#include <orrery/scene.h>
#include <string.h>

/* Local box of a primitive's positions: the accessor's min/max when declared, else the data. */
static orr_aabbd position_box(const orri_gltf_doc *d, uint32_t acc)
{
    const orri_gltf_accessor *a = &d->accessors[acc];
    orr_aabbd box = orr_aabbd_empty();
    if (a->has_min && a->has_max && !a->sparse_count && a->component_type == ORRI_GLTF_FLOAT) {
        box.min = (orr_vec3d){a->min[0], a->min[1], a->min[2]};
        box.max = (orr_vec3d){a->max[0], a->max[1], a->max[2]};
        return box;
    }
    float *p = orri_gltf_alloc(&d->allocator, (size_t)a->count * 3 * sizeof(float));
    if (!p) return box;
    orri_gltf_read_floats(d, acc, 3, 0, p);
    for (size_t i = 0; i < a->count; i++) {
        orr_vec3d v = {p[i * 3], p[i * 3 + 1], p[i * 3 + 2]};
        box.min = (orr_vec3d){fmin(box.min.x, v.x), fmin(box.min.y, v.y), fmin(box.min.z, v.z)};
        box.max = (orr_vec3d){fmax(box.max.x, v.x), fmax(box.max.y, v.y), fmax(box.max.z, v.z)};
    }
    orri_gltf_dealloc(&d->allocator, p, 0);
    return box;
}

static orr_aabbd mesh_box(const orri_gltf_doc *d, const orri_gltf_mesh *m)
{
    orr_aabbd box = orr_aabbd_empty();
    for (uint32_t i = 0; i < m->primitive_count; i++)
        if (m->primitives[i].position >= 0) box = orr_aabbd_union(box, position_box(d, (uint32_t)m->primitives[i].position));
    return box;
}

/* The box of a mesh's instances in the node's space: the union of the local box under each instance
 * transform. Nodes usually share their instance accessors (and a hostile file may name one huge
 * accessor from every node), so each (translation, rotation, scale, mesh) set is decoded once;
 * a node's box is then that box under its world matrix (conservative under rotation). */
typedef struct inst_box {
    int32_t t, r, s, mesh; /* mesh + 1; 0 = empty slot */
    orr_aabbd box;
} inst_box;

static orr_aabbd instances_box(const orri_gltf_doc *d, const orri_gltf_node *n, const orr_aabbd *local)
{
    orr_aabbd box = orr_aabbd_empty();
    size_t count = n->instance_count;
    float *t = n->inst_t >= 0 ? orri_gltf_alloc(&d->allocator, count * 12) : NULL;
    float *r = n->inst_r >= 0 ? orri_gltf_alloc(&d->allocator, count * 16) : NULL;
    float *s = n->inst_s >= 0 ? orri_gltf_alloc(&d->allocator, count * 12) : NULL;
    if ((n->inst_t >= 0 && !t) || (n->inst_r >= 0 && !r) || (n->inst_s >= 0 && !s)) {
        box = *local; /* out of memory: the uninstanced box rather than none */
        goto out;
    }
    if (t) orri_gltf_read_floats(d, (uint32_t)n->inst_t, 3, 0, t);
    if (r) orri_gltf_read_floats(d, (uint32_t)n->inst_r, 4, 0, r);
    if (s) orri_gltf_read_floats(d, (uint32_t)n->inst_s, 3, 1, s);
    for (size_t i = 0; i < count; i++) {
        orr_vec3d tt = t ? (orr_vec3d){t[i * 3], t[i * 3 + 1], t[i * 3 + 2]} : (orr_vec3d){0, 0, 0};
        orr_quatd rr = r ? orr_quatd_normalize((orr_quatd){r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3]}) : ORR_QUAT_IDENTITY;
        orr_vec3d ss = s ? (orr_vec3d){s[i * 3], s[i * 3 + 1], s[i * 3 + 2]} : ORR_VEC3_ONE;
        orr_mat4d im;
        orr_mat4d_from_trs(tt, rr, ss, &im);
        box = orr_aabbd_union(box, orr_aabbd_transform(&im, *local));
    }
out:
    orri_gltf_dealloc(&d->allocator, t, 0);
    orri_gltf_dealloc(&d->allocator, r, 0);
    orri_gltf_dealloc(&d->allocator, s, 0);
    return box;
}

/* cache: one slot per accessor, keyed by the node's first instance accessor; a node whose set differs
 * from the slot's recomputes and takes it over. Lookups are O(1), and what is decoded is bounded by
 * the instances of all nodes, which the entity budget bounds. */
static orr_aabbd node_box(const orri_gltf_doc *d, const orri_gltf_node *n, const orr_mat4d *world, const orr_aabbd *local,
                          inst_box *cache)
{
    int32_t key = n->inst_t >= 0 ? n->inst_t : n->inst_r >= 0 ? n->inst_r : n->inst_s;
    if (!n->instance_count || key < 0) return orr_aabbd_transform(world, *local);
    inst_box *slot = &cache[key];
    if (slot->mesh != n->mesh + 1 || slot->t != n->inst_t || slot->r != n->inst_r || slot->s != n->inst_s)
        *slot = (inst_box){n->inst_t, n->inst_r, n->inst_s, n->mesh + 1, instances_box(d, n, local)};
    return orr_aabbd_is_empty(slot->box) ? slot->box : orr_aabbd_transform(world, slot->box);
}

/* *drawn: the mesh instances the walk meets (a node with a mesh once, an instanced node once per instance) */
static orr_aabbd scene_bounds(const orri_gltf_doc *d, uint64_t *drawn)
{
    orr_aabbd box = orr_aabbd_empty();
    if (!d->node_count) return box;
    orr_mat4d *world = orri_gltf_alloc(&d->allocator, (size_t)d->node_count * sizeof *world);
    orr_aabbd *mesh_boxes = d->mesh_count ? orri_gltf_alloc(&d->allocator, (size_t)d->mesh_count * sizeof *mesh_boxes) : NULL;
    uint8_t *done = d->mesh_count ? orri_gltf_alloc(&d->allocator, d->mesh_count) : NULL;
    uint32_t *stack = orri_gltf_alloc(&d->allocator, (size_t)d->node_count * sizeof *stack);
    inst_box *cache = d->accessor_count ? orri_gltf_alloc(&d->allocator, (size_t)d->accessor_count * sizeof *cache) : NULL;
    if (!world || !stack || (d->accessor_count && !cache) || (d->mesh_count && (!mesh_boxes || !done))) goto out;
    int32_t scene = d->default_scene >= 0 ? d->default_scene : (d->scene_count ? 0 : -1);
    uint32_t sp = 0;
    if (scene >= 0) {
        for (uint32_t i = d->scenes[scene].node_count; i-- > 0;) stack[sp++] = d->scenes[scene].nodes[i];
    } else {
        for (uint32_t i = d->node_count; i-- > 0;)
            if (d->nodes[i].parent < 0) stack[sp++] = i;
    }
    while (sp) {
        uint32_t ni = stack[--sp];
        const orri_gltf_node *n = &d->nodes[ni];
        orr_mat4d local;
        orri_gltf_node_local(n, &local);
        if (n->parent >= 0) orr_mat4d_mul(&world[n->parent], &local, &world[ni]);
        else world[ni] = local;
        if (n->mesh >= 0) {
            *drawn += n->instance_count ? n->instance_count : 1;
            if (!done[n->mesh]) mesh_boxes[n->mesh] = mesh_box(d, &d->meshes[n->mesh]), done[n->mesh] = 1;
            if (!orr_aabbd_is_empty(mesh_boxes[n->mesh])) box = orr_aabbd_union(box, node_box(d, n, &world[ni], &mesh_boxes[n->mesh], cache));
        }
        for (uint32_t k = n->child_count; k-- > 0;) stack[sp++] = n->children[k];
    }
out:
    orri_gltf_dealloc(&d->allocator, world, 0);
    orri_gltf_dealloc(&d->allocator, mesh_boxes, 0);
    orri_gltf_dealloc(&d->allocator, done, 0);
    orri_gltf_dealloc(&d->allocator, stack, 0);
    orri_gltf_dealloc(&d->allocator, cache, 0);
    return box;
}

orr_result orri_gltf_info(const orri_gltf_doc *d, orr_gltf_info *out)
{
    memset(out, 0, sizeof *out);
    out->scenes = d->scene_count;
    out->nodes = d->node_count;
    out->meshes = d->mesh_count;
    out->primitives = d->primitive_total;
    out->materials = d->material_count;
    out->textures = d->texture_count;
    out->skins = d->skin_count;
    out->animations = d->animation_count;
    out->cameras = d->camera_count;
    out->lights = d->light_count;
    for (uint32_t m = 0; m < d->mesh_count; m++) {
        for (uint32_t p = 0; p < d->meshes[m].primitive_count; p++) {
            const orri_gltf_primitive *pr = &d->meshes[m].primitives[p];
            out->vertices += pr->vertex_count;
            if (pr->indices >= 0) out->indices += d->accessors[pr->indices].count;
        }
    }
    out->bounds = scene_bounds(d, &out->instances);
    return ORR_OK;
}

orr_result orr_gltf_info_file(const char *path, const orr_gltf_options *options, const orr_logger *logger,
                              orr_gltf_info *out, orr_error *err)
{
    ORRI_REQUIRE(path && out, err, "orr_gltf_info_file: path and out are required");
    memset(out, 0, sizeof *out);
    orr_allocator alloc = orri_allocator_or_default(NULL);
    orri_gltf_file file;
    orr_result r = orri_gltf_model_open(&alloc, path, &file, err);
    if (r != ORR_OK) return r;
    const uint8_t *data = file.data;
    size_t size = file.size;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    orri_gltf_parse_desc pd = {.data = data, .size = size, .base_dir = dir, .name = path, .allocator = alloc,
                               .logger = logger ? *logger : (orr_logger){0},
                               .allow_outside_uris = options && options->allow_outside_uris,
                               .files = logger ? ORRI_GLTF_FILES_WARN : ORRI_GLTF_FILES_LAZY,
                               .threads = options ? options->threads : 0};
    orri_gltf_doc *doc;
    r = orri_gltf_parse(&pd, &doc, err);
    uint64_t entities;
    if (r == ORR_OK) /* what loading it would refuse */
        r = orri_gltf_entity_budget(doc, options ? options->max_entities : 0, &entities, err);
    if (r == ORR_OK) r = orri_gltf_info(doc, out);
    orri_gltf_free(doc);
    orri_gltf_file_close(&alloc, &file);
    return r;
}
