/* glTF 2.0 parse: meshes and their primitives (attribute formats, index ranges, morph targets), and
 * KHR_draco_mesh_compression primitives, decoded into views of their own. */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"
#include "scene/gltf_elements.h"
#include "scene/gltf_draco.h"

#include <math.h>
#include <string.h>

/* ---- meshes ------------------------------------------------------------------------------------- */

bool orri_gltf_accessor_format_ok(const orri_gltf_accessor *a, const orri_gltf_fmt_rule *r)
{
    if (a->columns != 1 || (a->components != r->comps_a && a->components != r->comps_b)) return false;
    switch (a->component_type) {
    case ORRI_GLTF_FLOAT: return r->float_ok;
    case ORRI_GLTF_UNSIGNED_BYTE: return a->normalized ? r->ubyte_n : r->ubyte;
    case ORRI_GLTF_UNSIGNED_SHORT: return a->normalized ? r->ushort_n : r->ushort;
    case ORRI_GLTF_BYTE: return a->normalized ? r->byte_n : r->byte_;
    case ORRI_GLTF_SHORT: return a->normalized ? r->short_n : r->short_;
    default: return false;
    }
}

bool orri_gltf_check_format(orri_gltf_pctx *c, uint32_t acc, const orri_gltf_fmt_rule *r, const char *path)
{
    const orri_gltf_accessor *a = &c->doc->accessors[acc];
    if (orri_gltf_accessor_format_ok(a, r)) return true;
    return PARSE_ERR(c, "%s: accessor %u has format {%s, %s%s}, not allowed here", path, acc, type_names[a->type],
                     a->normalized ? "normalized " : "", comp_name(a->component_type));
}

bool orri_gltf_parse_attribute_name(const char *name, const char *prefix, uint32_t *set)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0) return false;
    const char *p = name + n;
    if (!*p) return false;
    uint32_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000) return false;
        v = v * 10 + (uint32_t)(*p - '0');
    }
    *set = v;
    return true;
}

/* A primitive's indices lie below its vertex count; the index type's largest value (the primitive
 * restart value, which glTF forbids) is warned about. */
bool orri_gltf_check_index_range(orri_gltf_pctx *c, const orri_gltf_primitive *p, const char *ip)
{
    const orri_gltf_accessor *ia = &c->doc->accessors[p->indices];
    uint32_t restart = ia->comp_size == 1 ? 0xffu : ia->comp_size == 2 ? 0xffffu : 0xffffffffu, at;
    uint32_t mx = orri_gltf_accessor_max_uint(c->doc, (uint32_t)p->indices, p->vertex_count < restart ? p->vertex_count : restart, &at);
    if (mx >= p->vertex_count)
        return PARSE_ERR(c, "%s: index %u has value %u, the primitive has %u vertices", ip, at, mx, p->vertex_count);
    if (mx == restart)
        orri_gltf_violation(c, "%s: index %u is %u, the primitive restart value of %s; drawn as a vertex index", ip, at, mx,
             comp_name(ia->component_type));
    return true;
}
/* ---- KHR_draco_mesh_compression ---------------------------------------------------------------- */

#ifdef ORRI_HAVE_DRACO
/* A decoded stream becomes the accessor's data: a view of its own (beyond the file's views), packed. */
static bool draco_attach(orri_gltf_pctx *c, uint32_t acc, const uint8_t *data, uint64_t size, int32_t view, int32_t id)
{
    orri_gltf_doc *d = c->doc;
    if (d->view_count + d->view_extra >= d->view_cap) { /* 0 until the first: the file's views fill theirs */
        uint32_t cap = d->view_cap ? d->view_cap * 2 : d->view_count + 8;
        orri_gltf_view *nv = orri_gltf_palloc(c, cap, sizeof *nv);
        if (!nv) return false;
        if (d->view_count + d->view_extra) memcpy(nv, d->views, (size_t)(d->view_count + d->view_extra) * sizeof *nv);
        orri_gltf_dealloc(&d->allocator, d->views, 0);
        d->views = nv, d->view_cap = cap;
    }
    uint32_t vi = d->view_count + d->view_extra++;
    d->views[vi] = (orri_gltf_view){.data = data, .buffer = 0, .offset = 0, .length = size};
    orri_gltf_accessor *a = &d->accessors[acc];
    a->view = (int32_t)vi, a->offset = 0, a->stride = a->elem_size;
    a->sparse_count = 0; /* the decoder's output is the data (a Draco accessor has no sparse part) */
    a->max_known = a->range_known = false;
    a->draco_view = view, a->draco_id = id;
    return true;
}

/* primitives[k].extensions.KHR_draco_mesh_compression: decodes the stream and points the primitive's
 * accessors (every attribute the extension lists, and the indices) at the decoded data, converted to
 * the accessor's format. Counts must be what the decoder produced. An accessor already decoded from
 * the same stream and attribute (meshes sharing a primitive) is kept. */
static bool parse_draco(orri_gltf_pctx *c, const cJSON *prim, const cJSON *dj, const char *path)
{
    orri_gltf_doc *d = c->doc;
    char dp[240];
    PATHF(c, dp, sizeof dp, "%s.extensions.KHR_draco_mesh_compression", path);
    int32_t view;
    const cJSON *dattrs, *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    if (!orri_gltf_jrequired(c, dj, "bufferView", dp) || !orri_gltf_jref(c, dj, "bufferView", dp, d->view_count, "bufferViews", &view) ||
        !orri_gltf_jrequired(c, dj, "attributes", dp) || !orri_gltf_jobject(c, dj, "attributes", dp, &dattrs))
        return false;
    static const char *const known[] = {"bufferView", "attributes", NULL};
    orri_gltf_check_keys(c, dj, dp, known);
    int32_t indices;
    if (!orri_gltf_jref(c, prim, "indices", path, d->accessor_count, "accessors", &indices)) return false;
    /* all done already (a second primitive naming the same data)? */
    bool todo = indices >= 0 && d->accessors[indices].draco_view != view;
    for (const cJSON *a = dattrs->child; a && !todo; a = a->next) {
        const cJSON *pa = cJSON_GetObjectItemCaseSensitive(attrs, a->string);
        todo = !cJSON_IsNumber(pa) || pa->valuedouble < 0 || pa->valuedouble >= d->accessor_count ||
               d->accessors[(uint32_t)pa->valuedouble].draco_view != view ||
               !cJSON_IsNumber(a) || d->accessors[(uint32_t)pa->valuedouble].draco_id != (int32_t)a->valuedouble;
    }
    if (!todo) return true;
    const orri_gltf_view *v = &d->views[view];
    if (!v->data) return PARSE_ERR(c, "%s.bufferView: bufferView %d has no data", dp, view);
    char why[160] = "";
    orri_draco *dm = orri_draco_decode(v->data, (size_t)v->length, why, sizeof why);
    if (!dm) return PARSE_ERR(c, "%s: bufferView %d does not decode: %s", dp, view, why);
    bool ok = true;
    uint32_t points = orri_draco_points(dm);
    uint64_t faces = orri_draco_faces(dm);
    if (indices >= 0) {
        orri_gltf_accessor *ia = &d->accessors[indices];
        char ip[260];
        PATHF(c, ip, sizeof ip, "%s.indices", path);
        if (ia->type != ORRI_GLTF_SCALAR || (ia->component_type != ORRI_GLTF_UNSIGNED_BYTE &&
                                             ia->component_type != ORRI_GLTF_UNSIGNED_SHORT &&
                                             ia->component_type != ORRI_GLTF_UNSIGNED_INT))
            ok = PARSE_ERR(c, "%s: accessor %d is not SCALAR unsigned integers", ip, indices);
        else if ((uint64_t)ia->count != faces * 3)
            ok = PARSE_ERR(c, "%s: accessor %d has %u elements, the Draco stream %llu faces (%llu indices)", ip, indices,
                           ia->count, (unsigned long long)faces, (unsigned long long)faces * 3);
        uint8_t *out = ok ? orri_gltf_doc_block(c, (size_t)ia->count * ia->comp_size) : NULL;
        if (ok && !out) ok = false;
        if (ok && !orri_draco_indices(dm, ia->component_type, out))
            ok = PARSE_ERR(c, "%s: the Draco stream's indices do not fit accessor %d's %s", ip, indices,
                           ia->component_type == ORRI_GLTF_UNSIGNED_INT ? "range" : "component type");
        if (ok) ok = draco_attach(c, (uint32_t)indices, out, (uint64_t)ia->count * ia->comp_size, view, -1);
    } else if (faces) {
        orri_gltf_warn(c, "%s: the Draco stream has %llu faces but the primitive no indices; drawn as points in order", dp,
                       (unsigned long long)faces);
    }
    for (const cJSON *a = dattrs->child; a && ok; a = a->next) {
        char ap[300];
        PATHF(c, ap, sizeof ap, "%s.attributes.%s", dp, a->string);
        int32_t id = -1;
        if (!orri_gltf_jref_value(c, a, ap, INT32_MAX, "attribute ids", &id)) {
            ok = false;
            break;
        }
        const cJSON *pa = cJSON_GetObjectItemCaseSensitive(attrs, a->string);
        int32_t acc;
        if (!pa) {
            ok = PARSE_ERR(c, "%s: the primitive has no attribute %s", ap, a->string);
            break;
        }
        if (!orri_gltf_jref_value(c, pa, ap, d->accessor_count, "accessors", &acc)) {
            ok = false;
            break;
        }
        orri_gltf_accessor *ac = &d->accessors[acc];
        int32_t comps = orri_draco_attribute_components(dm, (uint32_t)id);
        if (comps < 0) {
            ok = PARSE_ERR(c, "%s: the Draco stream has no attribute %d", ap, id);
        } else if (ac->count != points) {
            ok = PARSE_ERR(c, "%s: accessor %d has %u elements, the Draco stream %u points", ap, acc, ac->count, points);
        } else if (ac->columns != 1) {
            ok = PARSE_ERR(c, "%s: accessor %d is a matrix, which Draco does not store", ap, acc);
        } else if (ac->draco_view == view && ac->draco_id == id) {
            continue;
        } else {
            uint64_t size = (uint64_t)ac->count * ac->elem_size;
            uint8_t *out = orri_gltf_doc_block(c, (size_t)size);
            if (!out) ok = false;
            else if (!orri_draco_attribute(dm, (uint32_t)id, ac->component_type, ac->components, out))
                ok = PARSE_ERR(c, "%s: attribute %d does not convert to accessor %d's format", ap, id, acc);
            else ok = draco_attach(c, (uint32_t)acc, out, size, view, id) &&
                      (ac->component_type != ORRI_GLTF_FLOAT || orri_gltf_scan_floats(c, ac, (uint32_t)acc));
        }
    }
    orri_draco_free(dm);
    return ok;
}
#endif

static bool parse_primitive(orri_gltf_pctx *c, const cJSON *j, const char *path, orri_gltf_primitive *p)
{
    orri_gltf_doc *d = c->doc;
    p->position = p->normal = p->tangent = p->color = p->joints = p->weights = -1;
    p->texcoord[0] = p->texcoord[1] = -1;
    int64_t mode;
    const cJSON *attrs, *targets;
    if (!orri_gltf_jref(c, j, "indices", path, d->accessor_count, "accessors", &p->indices) ||
        !orri_gltf_jref(c, j, "material", path, d->material_count, "materials", &p->material) ||
        !orri_gltf_jint(c, j, "mode", path, 4, 0, INT32_MAX, &mode) || !orri_gltf_jrequired(c, j, "attributes", path) ||
        !orri_gltf_jobject(c, j, "attributes", path, &attrs) || !orri_gltf_jarray(c, j, "targets", path, &targets))
        return false;
    static const char *const known[] = {"attributes", "indices", "material", "mode", "targets", NULL};
    orri_gltf_check_keys(c, j, path, known);
    if (mode > 6) return PARSE_ERR(c, "%s.mode: %lld is not a primitive mode (0..6)", path, (long long)mode);
    const cJSON *ext, *draco = NULL;
    if (!orri_gltf_jobject(c, j, "extensions", path, &ext)) return false;
    if (ext) {
        char ep[200];
        PATHF(c, ep, sizeof ep, "%s.extensions", path);
        if (!orri_gltf_jobject(c, ext, "KHR_draco_mesh_compression", ep, &draco)) return false;
    }
#ifdef ORRI_HAVE_DRACO
    if (draco) {
        uint64_t t0 = orri_gltf_now_ns();
        bool ok = parse_draco(c, j, draco, path);
        c->decode_ns += orri_gltf_now_ns() - t0;
        if (!ok) return false;
    }
#else
    if (draco) orri_gltf_warn(c, "%s: KHR_draco_mesh_compression is not decoded by this build; the uncompressed accessors are used", path);
#endif
    p->mode = (uint32_t)mode;
    p->attributes = attrs;
    bool q = c->quantization;
    /* KHR_mesh_quantization: positions in any 8/16-bit integer, normalized or not */
    const orri_gltf_fmt_rule pos_rule = {3, 3, true, q, q, q, q, q, q, q, q};
    const orri_gltf_fmt_rule nrm_rule = {3, 3, true, false, false, q, q, false, false, false, false};
    const orri_gltf_fmt_rule tan_rule = {4, 4, true, false, false, q, q, false, false, false, false};
    const orri_gltf_fmt_rule uv_rule = {2, 2, true, true, true, q, q, q, q, q, q};
    const orri_gltf_fmt_rule col_rule = {3, 4, true, true, true, false, false, false, false, false, false};
    const orri_gltf_fmt_rule jnt_rule = {4, 4, false, false, false, false, false, true, true, false, false};
    const orri_gltf_fmt_rule wgt_rule = {4, 4, true, true, true, false, false, false, false, false, false};
    int64_t count = -1;
    const char *count_from = NULL;
    for (const cJSON *a = attrs->child; a; a = a->next) {
        char ap[200];
        PATHF(c, ap, sizeof ap, "%s.attributes.%s", path, a->string);
        int32_t acc;
        if (!orri_gltf_jref_value(c, a, ap, d->accessor_count, "accessors", &acc)) return false;
        const char *n = a->string;
        uint32_t set = 0;
        const orri_gltf_fmt_rule *rule = NULL;
        int32_t *slot = NULL;
        if (strcmp(n, "POSITION") == 0) rule = &pos_rule, slot = &p->position;
        else if (strcmp(n, "NORMAL") == 0) rule = &nrm_rule, slot = &p->normal;
        else if (strcmp(n, "TANGENT") == 0) rule = &tan_rule, slot = &p->tangent;
        else if (orri_gltf_parse_attribute_name(n, "TEXCOORD_", &set)) rule = &uv_rule, slot = set < 2 ? &p->texcoord[set] : NULL;
        else if (orri_gltf_parse_attribute_name(n, "COLOR_", &set)) rule = &col_rule, slot = set == 0 ? &p->color : NULL;
        else if (orri_gltf_parse_attribute_name(n, "JOINTS_", &set)) rule = &jnt_rule, slot = set == 0 ? &p->joints : NULL;
        else if (orri_gltf_parse_attribute_name(n, "WEIGHTS_", &set)) rule = &wgt_rule, slot = set == 0 ? &p->weights : NULL;
        else if (n[0] != '_') orri_gltf_violation(c, "%s: unknown attribute semantic, ignored", ap);
        else if (d->accessors[acc].component_type == ORRI_GLTF_UNSIGNED_INT) /* glTF 3.7.2.1 */
            orri_gltf_violation(c, "%s: accessor %d is UNSIGNED_INT, which no vertex attribute may use; ignored", ap, acc);
        if (rule && !orri_gltf_check_format(c, (uint32_t)acc, rule, ap)) return false;
        if (slot) *slot = acc;
        else if (rule) orri_gltf_warn(c, "%s: only the first sets are used, ignored", ap);
        int64_t n_acc = d->accessors[acc].count;
        if (count < 0) count = n_acc, count_from = a->string;
        else if (n_acc != count)
            return PARSE_ERR(c, "%s: accessor %d has %lld elements, %s has %lld", ap, acc, (long long)n_acc, count_from,
                             (long long)count);
    }
    if (p->position < 0) {
        orri_gltf_warn(c, "%s.attributes: no POSITION; the primitive is skipped", path);
    } else {
        p->vertex_count = d->accessors[p->position].count;
        const orri_gltf_accessor *pa = &d->accessors[p->position];
        if (!pa->has_min || !pa->has_max) orri_gltf_violation(c, "%s.attributes.POSITION: accessor %d has no min/max", path, p->position);
    }
    if (p->indices >= 0) {
        const orri_gltf_accessor *ia = &d->accessors[p->indices];
        char ip[200];
        PATHF(c, ip, sizeof ip, "%s.indices", path);
        if (ia->type != ORRI_GLTF_SCALAR || ia->normalized ||
            (ia->component_type != ORRI_GLTF_UNSIGNED_BYTE && ia->component_type != ORRI_GLTF_UNSIGNED_SHORT &&
             ia->component_type != ORRI_GLTF_UNSIGNED_INT))
            return PARSE_ERR(c, "%s: accessor %d has format {%s, %s%s}, indices need SCALAR unsigned integers", ip,
                             p->indices, type_names[ia->type], ia->normalized ? "normalized " : "",
                             comp_name(ia->component_type));
        if (ia->view >= 0 && d->views[ia->view].stride)
            return PARSE_ERR(c, "%s: accessor %d lies in bufferView %d, which has a byteStride", ip, p->indices, ia->view);
        if (p->position >= 0 && !orri_gltf_on_late_view(d, ia) && !orri_gltf_check_index_range(c, p, ip)) return false;
    }
    if (p->material >= 0) { /* texture coordinate sets the material samples and the primitive lacks */
        const orri_gltf_material *mat = &d->materials[p->material];
        const orri_gltf_texref *refs[5] = {&mat->base_color, &mat->metallic_roughness, &mat->normal, &mat->occlusion,
                                           &mat->emissive};
        for (int k = 0; k < 5; k++) {
            if (refs[k]->texture < 0 || refs[k]->texcoord >= ORRI_GLTF_MAX_SETS || p->texcoord[refs[k]->texcoord] >= 0) continue;
            orri_gltf_violation(c, "%s.material: material %d samples TEXCOORD_%u, which the primitive lacks; coordinates (0, 0) used",
                 path, p->material, refs[k]->texcoord);
            break;
        }
    }
    if (targets) {
        p->targets = targets;
        p->target_count = (uint32_t)cJSON_GetArraySize(targets);
        uint32_t t = 0;
        for (const cJSON *tj = targets->child; tj; tj = tj->next, t++) {
            char tp[200];
            PATHF(c, tp, sizeof tp, "%s.targets[%u]", path, t);
            if (!cJSON_IsObject(tj)) return PARSE_ERR(c, "%s: expected an object, found %s", tp, orri_gltf_jtype(tj));
            for (const cJSON *a = tj->child; a; a = a->next) {
                char ap[260];
                PATHF(c, ap, sizeof ap, "%s.%s", tp, a->string);
                int32_t acc;
                if (!orri_gltf_jref_value(c, a, ap, d->accessor_count, "accessors", &acc)) return false;
                if (count >= 0 && d->accessors[acc].count != count)
                    return PARSE_ERR(c, "%s: accessor %d has %u elements, the primitive has %lld", ap, acc,
                                     d->accessors[acc].count, (long long)count);
                /* what the loader applies: POSITION, NORMAL and TANGENT displacements of attributes the
                 * primitive has */
                bool pos = !strcmp(a->string, "POSITION"), nrm = !strcmp(a->string, "NORMAL"),
                     tan = !strcmp(a->string, "TANGENT");
                if (!pos && !nrm && !tan)
                    orri_gltf_warn(c, "%s: not a morph target attribute the loader applies (POSITION, NORMAL, TANGENT); ignored", ap);
                else if ((nrm && p->normal < 0) || (tan && p->tangent < 0))
                    orri_gltf_violation(c, "%s: the primitive has no %s to displace; ignored", ap, a->string);
                else if (pos && (!d->accessors[acc].has_min || !d->accessors[acc].has_max))
                    orri_gltf_violation(c, "%s: accessor %d has no min and max, which glTF requires of morph target positions", ap, acc);
            }
        }
    }
    return true;
}

bool orri_gltf_parse_meshes(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "meshes", &arr, &d->mesh_count)) return false;
    d->meshes = orri_gltf_palloc(c, d->mesh_count, sizeof *d->meshes);
    if (d->mesh_count && !d->meshes) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "meshes[%u]", i);
        orri_gltf_mesh *m = &d->meshes[i];
        const cJSON *prims, *weights;
        if (!orri_gltf_jstring(c, j, "name", path, &m->name) || !orri_gltf_jrequired(c, j, "primitives", path) ||
            !orri_gltf_jarray(c, j, "primitives", path, &prims) || !orri_gltf_jarray(c, j, "weights", path, &weights))
            return false;
        static const char *const known[] = {"primitives", "weights", NULL};
        orri_gltf_check_keys(c, j, path, known);
        m->primitive_count = (uint32_t)cJSON_GetArraySize(prims);
        if (!m->primitive_count) return PARSE_ERR(c, "%s.primitives: empty array", path);
        m->primitives = orri_gltf_palloc(c, m->primitive_count, sizeof *m->primitives);
        if (!m->primitives) return false;
        d->primitive_total += m->primitive_count;
        uint32_t k = 0;
        for (const cJSON *pj = prims->child; pj; pj = pj->next, k++) {
            char pp[96];
            PATHF(c, pp, sizeof pp, "%s.primitives[%u]", path, k);
            if (!cJSON_IsObject(pj)) return PARSE_ERR(c, "%s: expected an object, found %s", pp, orri_gltf_jtype(pj));
            if (!parse_primitive(c, pj, pp, &m->primitives[k])) return false;
            if (k > 0 && m->primitives[k].target_count != m->primitives[0].target_count)
                orri_gltf_violation(c, "%s.targets: %u morph targets, primitive 0 has %u", pp, m->primitives[k].target_count,
                     m->primitives[0].target_count);
        }
        m->weight_count = m->primitives[0].target_count;
        if (weights) {
            uint32_t wn = (uint32_t)cJSON_GetArraySize(weights), w = 0;
            for (const cJSON *e = weights->child; e; e = e->next, w++) {
                char wp[96];
                double v;
                PATHF(c, wp, sizeof wp, "%s.weights[%u]", path, w);
                if (!orri_gltf_jnumber_value(c, e, wp, NULL, &v)) return false;
            }
            if (wn != m->weight_count)
                orri_gltf_violation(c, "%s.weights: %u weights for %u morph targets", path, wn, m->weight_count);
            m->weights = weights;
        }
    }
    return true;
}
