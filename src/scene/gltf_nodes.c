/* glTF 2.0 parse: cameras, lights (KHR_lights_punctual), nodes (EXT_mesh_gpu_instancing), skins and
 * scenes: the node graph (one parent each, no cycles), transforms that can be placed, and skins'
 * joints against the meshes they deform. */
#include "core/internal.h"
#include "scene/gltf_parse_internal.h"
#include "scene/gltf_elements.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- cameras and lights ------------------------------------------------------------------------- */

bool orri_gltf_parse_cameras(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "cameras", &arr, &d->camera_count)) return false;
    d->cameras = orri_gltf_palloc(c, d->camera_count, sizeof *d->cameras);
    if (d->camera_count && !d->cameras) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "cameras[%u]", i);
        orri_gltf_camera *cam = &d->cameras[i];
        const char *type;
        if (!orri_gltf_jrequired(c, j, "type", path) || !orri_gltf_jstring(c, j, "type", path, &type)) return false;
        static const char *const known[] = {"type", "perspective", "orthographic", NULL};
        orri_gltf_check_keys(c, j, path, known);
        if (cJSON_GetObjectItemCaseSensitive(j, "perspective") && cJSON_GetObjectItemCaseSensitive(j, "orthographic"))
            orri_gltf_violation(c, "%s: both perspective and orthographic; the type ('%s') is used", path, type ? type : "");
        const cJSON *o;
        char op[96];
        if (type && strcmp(type, "perspective") == 0) {
            cam->projection = ORR_PERSPECTIVE;
            if (!orri_gltf_jobject(c, j, "perspective", path, &o)) return false;
            if (!o) return PARSE_ERR(c, "%s: required property 'perspective' is missing", path);
            PATHF(c, op, sizeof op, "%s.perspective", path);
            if (!orri_gltf_jrequired(c, o, "yfov", op) || !orri_gltf_jnum(c, o, "yfov", op, 0, &cam->yfov) || !orri_gltf_jrequired(c, o, "znear", op) ||
                !orri_gltf_jnum(c, o, "znear", op, 0, &cam->znear) || !orri_gltf_jnum(c, o, "zfar", op, 0, &cam->zfar) ||
                !orri_gltf_jnum(c, o, "aspectRatio", op, 0, &cam->aspect))
                return false;
            if (!(cam->yfov > 0)) return PARSE_ERR(c, "%s.yfov: %g must be positive", op, cam->yfov);
            if (!(cam->znear > 0)) return PARSE_ERR(c, "%s.znear: %g must be positive", op, cam->znear);
            if (cJSON_GetObjectItemCaseSensitive(o, "zfar") && !(cam->zfar > cam->znear))
                return PARSE_ERR(c, "%s.zfar: %g must be greater than znear %g", op, cam->zfar, cam->znear);
            if (cam->aspect < 0) return PARSE_ERR(c, "%s.aspectRatio: %g must be positive", op, cam->aspect);
        } else if (type && strcmp(type, "orthographic") == 0) {
            cam->projection = ORR_ORTHOGRAPHIC;
            if (!orri_gltf_jobject(c, j, "orthographic", path, &o)) return false;
            if (!o) return PARSE_ERR(c, "%s: required property 'orthographic' is missing", path);
            PATHF(c, op, sizeof op, "%s.orthographic", path);
            if (!orri_gltf_jrequired(c, o, "xmag", op) || !orri_gltf_jnum(c, o, "xmag", op, 0, &cam->xmag) || !orri_gltf_jrequired(c, o, "ymag", op) ||
                !orri_gltf_jnum(c, o, "ymag", op, 0, &cam->ymag) || !orri_gltf_jrequired(c, o, "znear", op) ||
                !orri_gltf_jnum(c, o, "znear", op, 0, &cam->znear) || !orri_gltf_jrequired(c, o, "zfar", op) || !orri_gltf_jnum(c, o, "zfar", op, 0, &cam->zfar))
                return false;
            if (cam->xmag == 0 || cam->ymag == 0) return PARSE_ERR(c, "%s: xmag and ymag must not be zero", op);
            if (cam->znear < 0) return PARSE_ERR(c, "%s.znear: %g is negative", op, cam->znear);
            if (!(cam->zfar > cam->znear)) return PARSE_ERR(c, "%s.zfar: %g must be greater than znear %g", op, cam->zfar, cam->znear);
        } else {
            return PARSE_ERR(c, "%s.type: '%s' is not perspective or orthographic", path, type ? type : "");
        }
    }
    return true;
}

bool orri_gltf_parse_lights(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *ext, *lp, *arr;
    if (!orri_gltf_jobject(c, d->json, "extensions", "", &ext)) return false;
    if (!ext) return true;
    if (!orri_gltf_jobject(c, ext, "KHR_lights_punctual", "extensions", &lp)) return false;
    if (!lp) return true;
    const char *base = "extensions.KHR_lights_punctual";
    if (!orri_gltf_jarray(c, lp, "lights", base, &arr)) return false;
    if (!arr) return PARSE_ERR(c, "%s: required property 'lights' is missing", base);
    if (!cJSON_GetArraySize(arr)) orri_gltf_violation(c, "%s.lights: empty array, ignored", base);
    d->light_count = (uint32_t)cJSON_GetArraySize(arr);
    d->lights = orri_gltf_palloc(c, d->light_count, sizeof *d->lights);
    if (d->light_count && !d->lights) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr->child; j; j = j->next, i++) {
        char path[96];
        PATHF(c, path, sizeof path, "%s.lights[%u]", base, i);
        if (!cJSON_IsObject(j)) return PARSE_ERR(c, "%s: expected an object, found %s", path, orri_gltf_jtype(j));
        orri_gltf_light *l = &d->lights[i];
        l->value = (orr_light){.color = {1, 1, 1}, .intensity = 1, .outer_cone = (float)(ORR_PI / 4), .enabled = true,
                                   .casts_shadows = true};
        const char *type;
        double col[3] = {1, 1, 1}, intensity, range;
        if (!orri_gltf_jstring(c, j, "name", path, &l->name) || !orri_gltf_jrequired(c, j, "type", path) || !orri_gltf_jstring(c, j, "type", path, &type) ||
            !orri_gltf_jnums(c, j, "color", path, 3, col, NULL) || !orri_gltf_jnum(c, j, "intensity", path, 1.0, &intensity) ||
            !orri_gltf_jnum(c, j, "range", path, 0.0, &range))
            return false;
        static const char *const known[] = {"type", "color", "intensity", "range", "spot", NULL};
        orri_gltf_check_keys(c, j, path, known);
        if (type && strcmp(type, "directional") == 0) l->value.type = ORR_LIGHT_DIRECTIONAL;
        else if (type && strcmp(type, "point") == 0) l->value.type = ORR_LIGHT_POINT;
        else if (type && strcmp(type, "spot") == 0) l->value.type = ORR_LIGHT_SPOT;
        else return PARSE_ERR(c, "%s.type: '%s' is not directional, point or spot", path, type ? type : "");
        for (int k = 0; k < 3; k++) l->value.color[k] = orri_gltf_clamp01(c, path, "color", col[k]);
        if (intensity < 0) return PARSE_ERR(c, "%s.intensity: %g is negative", path, intensity);
        if (cJSON_GetObjectItemCaseSensitive(j, "range") && !(range > 0))
            return PARSE_ERR(c, "%s.range: %g must be positive", path, range);
        l->value.intensity = (float)intensity;
        l->value.range = (float)range;
        if (l->value.type == ORR_LIGHT_SPOT) {
            const cJSON *spot;
            if (!orri_gltf_jobject(c, j, "spot", path, &spot)) return false;
            if (!spot) return PARSE_ERR(c, "%s: required property 'spot' is missing", path);
            char sp[128];
            PATHF(c, sp, sizeof sp, "%s.spot", path);
            double inner, outer;
            if (!orri_gltf_jnum(c, spot, "innerConeAngle", sp, 0.0, &inner) || !orri_gltf_jnum(c, spot, "outerConeAngle", sp, ORR_PI / 4, &outer))
                return false;
            if (inner < 0 || !(outer > inner) || outer > ORR_PI / 2 + 1e-6)
                return PARSE_ERR(c, "%s: cone angles %g and %g need 0 <= inner < outer <= pi/2", sp, inner, outer);
            l->value.inner_cone = (float)inner;
            l->value.outer_cone = (float)outer;
        }
    }
    return true;
}

/* ---- nodes, skins, scenes ----------------------------------------------------------------------- */

static bool parse_index_list(orri_gltf_pctx *c, const cJSON *arr, const char *path, uint32_t count, const char *what,
                             uint32_t **out, uint32_t *n, bool unique)
{
    *n = (uint32_t)cJSON_GetArraySize(arr);
    *out = NULL;
    if (!*n) return true;
    *out = orri_gltf_palloc(c, *n, sizeof(uint32_t));
    if (!*out) return false;
    uint32_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        char p[160];
        PATHF(c, p, sizeof p, "%s[%u]", path, i);
        int32_t v = 0;
        if (!orri_gltf_jref_value(c, e, p, count, what, &v)) return false;
        (*out)[i] = (uint32_t)v;
    }
    if (unique && *n > 1) {
        /* one stamp array for the whole parse, so that many short lists stay linear overall */
        if (c->stamp_n < count) {
            orri_gltf_dealloc(&c->doc->allocator, c->stamp, 0);
            c->stamp = orri_gltf_palloc(c, count, sizeof *c->stamp);
            c->stamp_n = c->stamp ? count : 0;
            c->stamp_gen = 0;
            if (!c->stamp) return false;
        }
        uint32_t gen = ++c->stamp_gen;
        for (i = 0; i < *n; i++) {
            if (c->stamp[(*out)[i]] == gen) return PARSE_ERR(c, "%s[%u]: %u is listed twice", path, i, (*out)[i]);
            c->stamp[(*out)[i]] = gen;
        }
    }
    return true;
}

/* MSFT_lod on node i: {"ids": [coarser levels' nodes, finest first]}, and in the node's extras an
 * optional MSFT_screencoverage: for each level (the node's own first) the smallest share of the screen
 * it is shown at, non-increasing in [0, 1]. Checked here and refused when broken; the build makes the
 * levels one mesh's (gltf_build_lods.c). */
static bool parse_lod(orri_gltf_pctx *c, const cJSON *node, const cJSON *lod, const char *ep, uint32_t i)
{
    orri_gltf_doc *d = c->doc;
    orri_gltf_node *n = &d->nodes[i];
    char lp[160], ip[200];
    PATHF(c, lp, sizeof lp, "%s.MSFT_lod", ep);
    const cJSON *ids;
    if (!orri_gltf_jrequired(c, lod, "ids", lp) || !orri_gltf_jarray(c, lod, "ids", lp, &ids)) return false;
    PATHF(c, ip, sizeof ip, "%s.ids", lp);
    if (!parse_index_list(c, ids, ip, d->node_count, "nodes", &n->lod_ids, &n->lod_count, true)) return false;
    if (n->lod_count > ORRI_GLTF_MAX_LODS)
        return PARSE_ERR(c, "%s: %u levels of detail, at most %u", ip, n->lod_count, ORRI_GLTF_MAX_LODS);
    for (uint32_t k = 0; k < n->lod_count; k++)
        if (n->lod_ids[k] == i) return PARSE_ERR(c, "%s[%u]: node %u is its own level of detail", ip, k, i);
    if (n->mesh < 0) return PARSE_ERR(c, "%s: node %u has no mesh to have levels of", lp, i);
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(node, "extras");
    const cJSON *cov = cJSON_IsObject(extras) ? cJSON_GetObjectItemCaseSensitive(extras, "MSFT_screencoverage") : NULL;
    if (cov) {
        char cp[160];
        PATHF(c, cp, sizeof cp, "nodes[%u].extras.MSFT_screencoverage", i);
        if (!cJSON_IsArray(cov)) return PARSE_ERR(c, "%s: expected an array of numbers", cp);
        uint32_t m = (uint32_t)cJSON_GetArraySize(cov), k = 0;
        if (m > n->lod_count + 1)
            return PARSE_ERR(c, "%s: %u values for %u levels (the node's own and %u in MSFT_lod.ids)", cp, m, n->lod_count + 1,
                             n->lod_count);
        double last = 1.0;
        for (const cJSON *e = cov->child; e; e = e->next, k++) {
            if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0.0 && e->valuedouble <= 1.0))
                return PARSE_ERR(c, "%s[%u]: expected a share of the screen in [0, 1]", cp, k);
            if (e->valuedouble > last)
                return PARSE_ERR(c, "%s[%u]: %g is above the finer level's %g (coarser levels cover less)", cp, k,
                                 e->valuedouble, last);
            last = e->valuedouble;
        }
    }
    n->lod_coverage = cov;
    return true;
}

bool orri_gltf_parse_nodes(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "nodes", &arr, &d->node_count)) return false;
    d->nodes = orri_gltf_palloc(c, d->node_count, sizeof *d->nodes);
    if (d->node_count && !d->nodes) return false;
    for (uint32_t i = 0; i < d->node_count; i++) d->nodes[i].parent = -1;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "nodes[%u]", i);
        orri_gltf_node *n = &d->nodes[i];
        n->light = n->inst_t = n->inst_r = n->inst_s = -1;
        const cJSON *children, *weights;
        double m[16], t[3] = {0, 0, 0}, r[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
        bool has_m, has_t, has_r, has_s;
        if (!orri_gltf_jstring(c, j, "name", path, &n->name) || !orri_gltf_jref(c, j, "mesh", path, d->mesh_count, "meshes", &n->mesh) ||
            !orri_gltf_jref(c, j, "skin", path, d->skin_count, "skins", &n->skin) ||
            !orri_gltf_jref(c, j, "camera", path, d->camera_count, "cameras", &n->camera) ||
            !orri_gltf_jarray(c, j, "children", path, &children) || !orri_gltf_jarray(c, j, "weights", path, &weights) ||
            !orri_gltf_jnums(c, j, "matrix", path, 16, m, &has_m) || !orri_gltf_jnums(c, j, "translation", path, 3, t, &has_t) ||
            !orri_gltf_jnums(c, j, "rotation", path, 4, r, &has_r) || !orri_gltf_jnums(c, j, "scale", path, 3, s, &has_s))
            return false;
        static const char *const known[] = {"camera", "children", "skin", "matrix", "mesh", "rotation", "scale",
                                            "translation", "weights", NULL};
        orri_gltf_check_keys(c, j, path, known);
        if (children) {
            char cp[96];
            PATHF(c, cp, sizeof cp, "%s.children", path);
            if (!parse_index_list(c, children, cp, d->node_count, "nodes", &n->children, &n->child_count, true)) return false;
            if (!n->child_count) orri_gltf_violation(c, "%s: empty array, ignored", cp);
        }
        if (has_m && (has_t || has_r || has_s)) orri_gltf_violation(c, "%s: both matrix and TRS; the matrix is used", path);
        n->has_matrix = has_m;
        for (int k = 0; k < 16; k++) n->matrix.m[k] = has_m ? m[k] : (k % 5 == 0 ? 1.0 : 0.0);
        if (has_m && (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1))
            orri_gltf_violation(c, "%s.matrix: not an affine transform", path);
        n->t = has_m ? (orr_vec3d){0, 0, 0} : (orr_vec3d){t[0], t[1], t[2]};
        n->s = has_m ? (orr_vec3d){1, 1, 1} : (orr_vec3d){s[0], s[1], s[2]};
        n->r = has_m ? ORR_QUAT_IDENTITY : (orr_quatd){r[0], r[1], r[2], r[3]};
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        if (!has_m) n->r = orr_quatd_normalize(n->r); /* always: float-written quaternions are close, not exact */
        if (!has_m && fabs(len - 1.0) > 1e-3) orri_gltf_violation(c, "%s.rotation: not a unit quaternion (length %g), normalized", path, len);
        if (n->skin >= 0 && n->mesh < 0) orri_gltf_violation(c, "%s.skin: set without a mesh, ignored", path);
        if (weights && n->mesh < 0) orri_gltf_violation(c, "%s.weights: set without a mesh, ignored", path);
        if (weights && n->mesh >= 0) {
            uint32_t w = 0, want = d->meshes[n->mesh].weight_count;
            for (const cJSON *e = weights->child; e; e = e->next, w++) {
                char wp[96];
                double v;
                PATHF(c, wp, sizeof wp, "%s.weights[%u]", path, w);
                if (!orri_gltf_jnumber_value(c, e, wp, NULL, &v)) return false;
            }
            if (w != want) orri_gltf_violation(c, "%s.weights: %u weights for %u morph targets", path, w, want);
            n->weights = weights;
        }
        const cJSON *ext;
        if (!orri_gltf_jobject(c, j, "extensions", path, &ext)) return false;
        if (ext) {
            char ep[96];
            PATHF(c, ep, sizeof ep, "%s.extensions", path);
            const cJSON *lp, *gi, *lod;
            if (!orri_gltf_jobject(c, ext, "KHR_lights_punctual", ep, &lp) || !orri_gltf_jobject(c, ext, "EXT_mesh_gpu_instancing", ep, &gi) ||
                !orri_gltf_jobject(c, ext, "MSFT_lod", ep, &lod))
                return false;
            if (lod && !parse_lod(c, j, lod, ep, i)) return false;
            if (lp) {
                char lpp[160];
                PATHF(c, lpp, sizeof lpp, "%s.KHR_lights_punctual", ep);
                if (!orri_gltf_jrequired(c, lp, "light", lpp) || !orri_gltf_jref(c, lp, "light", lpp, d->light_count, "lights", &n->light))
                    return false;
            }
            if (gi) {
                char gp[160], ap[200];
                PATHF(c, gp, sizeof gp, "%s.EXT_mesh_gpu_instancing", ep);
                const cJSON *attrs;
                if (!orri_gltf_jobject(c, gi, "attributes", gp, &attrs)) return false;
                if (!attrs) return PARSE_ERR(c, "%s: required property 'attributes' is missing", gp);
                PATHF(c, ap, sizeof ap, "%s.attributes", gp);
                if (!orri_gltf_jref(c, attrs, "TRANSLATION", ap, d->accessor_count, "accessors", &n->inst_t) ||
                    !orri_gltf_jref(c, attrs, "ROTATION", ap, d->accessor_count, "accessors", &n->inst_r) ||
                    !orri_gltf_jref(c, attrs, "SCALE", ap, d->accessor_count, "accessors", &n->inst_s))
                    return false;
                const orri_gltf_fmt_rule v3 = {3, 3, true, false, false, false, false, false, false, false, false};
                const orri_gltf_fmt_rule q4 = {4, 4, true, false, false, true, true, false, false, false, false};
                int32_t accs[3] = {n->inst_t, n->inst_r, n->inst_s};
                const char *names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
                int64_t count = -1;
                for (int k = 0; k < 3; k++) {
                    if (accs[k] < 0) continue;
                    char kp[240];
                    PATHF(c, kp, sizeof kp, "%s.%s", ap, names[k]);
                    if (!orri_gltf_check_format(c, (uint32_t)accs[k], k == 1 ? &q4 : &v3, kp)) return false;
                    int64_t cn = d->accessors[accs[k]].count;
                    if (count >= 0 && cn != count)
                        return PARSE_ERR(c, "%s: %lld instances, the other attributes have %lld", kp, (long long)cn, (long long)count);
                    count = cn;
                }
                if (count < 0) orri_gltf_warn(c, "%s: no instance attributes; ignored", gp);
                else if (n->mesh < 0) orri_gltf_warn(c, "%s: set without a mesh, ignored", gp);
                else n->instance_count = (uint32_t)count;
                if (n->instance_count && n->skin >= 0) orri_gltf_warn(c, "%s: instances of a skinned mesh are drawn unskinned", gp);
            }
        }
    }
    /* MSFT_lod: each level a node with a mesh and no levels of its own */
    for (i = 0; i < d->node_count; i++)
        for (uint32_t k = 0; k < d->nodes[i].lod_count; k++) {
            const orri_gltf_node *l = &d->nodes[d->nodes[i].lod_ids[k]];
            if (l->mesh < 0)
                return PARSE_ERR(c, "nodes[%u].extensions.MSFT_lod.ids[%u]: node %u has no mesh", i, k, d->nodes[i].lod_ids[k]);
            if (l->lod_count)
                return PARSE_ERR(c, "nodes[%u].extensions.MSFT_lod.ids[%u]: node %u has levels of its own", i, k,
                                 d->nodes[i].lod_ids[k]);
        }
    /* parents: each node has at most one */
    for (i = 0; i < d->node_count; i++) {
        for (uint32_t k = 0; k < d->nodes[i].child_count; k++) {
            uint32_t ch = d->nodes[i].children[k];
            if (ch == i) return orri_gltf_fail(c, ORR_ERROR_CYCLE, "nodes[%u].children[%u]: node %u is its own child", i, k, i);
            if (d->nodes[ch].parent >= 0)
                return PARSE_ERR(c, "nodes[%u].children[%u]: node %u already has parent %d", i, k, ch, d->nodes[ch].parent);
            d->nodes[ch].parent = (int32_t)i;
        }
    }
    /* cycles: walk up from each node; 1 = on the current path, 2 = reaches a root */
    uint8_t *state = d->node_count ? orri_gltf_palloc(c, d->node_count, 1) : NULL;
    if (d->node_count && !state) return false;
    for (i = 0; i < d->node_count; i++) {
        uint32_t n = i;
        while (state[n] == 0) {
            state[n] = 1;
            if (d->nodes[n].parent < 0) break;
            n = (uint32_t)d->nodes[n].parent;
        }
        if (state[n] == 1 && d->nodes[n].parent >= 0) {
            orri_gltf_dealloc(&d->allocator, state, d->node_count);
            return orri_gltf_fail(c, ORR_ERROR_CYCLE, "nodes[%u]: node is part of a cycle of children", n);
        }
        for (uint32_t m = i; state[m] == 1; m = (uint32_t)d->nodes[m].parent) {
            state[m] = 2;
            if (d->nodes[m].parent < 0) break;
        }
    }
    orri_gltf_dealloc(&d->allocator, state, d->node_count);
    return true;
}

/* Beyond this a world translation may overflow when a camera position (or another point as far the other
 * way) is subtracted from it, as drawing does: |x| > DBL_MAX / 2. */
#define ORRI_GLTF_PLACEABLE (DBL_MAX / 2)

/* Nodes whose world transform (the product of their ancestors' local transforms, each finite) overflows
 * binary64 or lies beyond ORRI_GLTF_PLACEABLE: each warned about and counted (orr_gltf_stats.
 * unplaceable_nodes); they are loaded as written. O(nodes): each world matrix once, parents first. */
bool orri_gltf_check_node_range(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (!d->node_count) return true;
    orr_mat4d *world = orri_gltf_palloc(c, d->node_count, sizeof *world);
    uint8_t *done = orri_gltf_palloc(c, d->node_count, 1);
    uint32_t *chain = orri_gltf_palloc(c, d->node_count, sizeof *chain);
    bool ok = world && done && chain;
    for (uint32_t i = 0; ok && i < d->node_count; i++) {
        uint32_t n = 0;
        for (int64_t m = i; m >= 0 && !done[m]; m = d->nodes[m].parent) chain[n++] = (uint32_t)m;
        while (n--) { /* from the topmost node not yet done down to i */
            uint32_t m = chain[n];
            orr_mat4d local;
            orri_gltf_node_local(&d->nodes[m], &local);
            if (d->nodes[m].parent >= 0) orr_mat4d_mul(&world[d->nodes[m].parent], &local, &world[m]);
            else world[m] = local;
            done[m] = 1;
            const double *t = &world[m].m[12];
            bool finite = true;
            for (int k = 0; k < 16; k++) finite = finite && isfinite(world[m].m[k]);
            if (!finite || fabs(t[0]) > ORRI_GLTF_PLACEABLE || fabs(t[1]) > ORRI_GLTF_PLACEABLE || fabs(t[2]) > ORRI_GLTF_PLACEABLE) {
                c->unplaceable++;
                orri_gltf_warn(c, "nodes[%u]: its world transform %s (translation %g %g %g), beyond what binary64 can place "
                               "(|x| <= %g); loaded as written", m, finite ? "lies too far" : "overflows", t[0], t[1], t[2],
                               ORRI_GLTF_PLACEABLE);
            }
        }
    }
    if (world) orri_gltf_dealloc(&d->allocator, world, d->node_count * sizeof *world);
    if (done) orri_gltf_dealloc(&d->allocator, done, d->node_count);
    if (chain) orri_gltf_dealloc(&d->allocator, chain, d->node_count * sizeof *chain);
    return ok;
}

bool orri_gltf_parse_skins(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    /* skins are parsed before nodes (nodes refer to them) but refer to nodes: count nodes first */
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d->json, "nodes");
    uint32_t node_count = cJSON_IsArray(nodes) ? (uint32_t)cJSON_GetArraySize(nodes) : 0;
    if (!orri_gltf_top_array(c, "skins", &arr, &d->skin_count)) return false;
    d->skins = orri_gltf_palloc(c, d->skin_count, sizeof *d->skins);
    if (d->skin_count && !d->skins) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "skins[%u]", i);
        orri_gltf_skin *s = &d->skins[i];
        const cJSON *joints;
        if (!orri_gltf_jstring(c, j, "name", path, &s->name) ||
            !orri_gltf_jref(c, j, "inverseBindMatrices", path, d->accessor_count, "accessors", &s->inverse_bind) ||
            !orri_gltf_jref(c, j, "skeleton", path, node_count, "nodes", &s->skeleton) || !orri_gltf_jrequired(c, j, "joints", path) ||
            !orri_gltf_jarray(c, j, "joints", path, &joints))
            return false;
        static const char *const known[] = {"inverseBindMatrices", "skeleton", "joints", NULL};
        orri_gltf_check_keys(c, j, path, known);
        char jp[96];
        PATHF(c, jp, sizeof jp, "%s.joints", path);
        if (!parse_index_list(c, joints, jp, node_count, "nodes", &s->joints, &s->joint_count, true)) return false;
        if (!s->joint_count) return PARSE_ERR(c, "%s: empty array", jp);
        if (s->inverse_bind >= 0) {
            char ip[96];
            PATHF(c, ip, sizeof ip, "%s.inverseBindMatrices", path);
            const orri_gltf_accessor *a = &d->accessors[s->inverse_bind];
            if (a->type != ORRI_GLTF_MAT4 || a->component_type != ORRI_GLTF_FLOAT)
                return PARSE_ERR(c, "%s: accessor %d has format {%s, %s}, needs {MAT4, FLOAT}", ip, s->inverse_bind,
                                 type_names[a->type], comp_name(a->component_type));
            if (a->count < s->joint_count)
                return PARSE_ERR(c, "%s: accessor %d has %u matrices for %u joints", ip, s->inverse_bind, a->count,
                                 s->joint_count);
        }
    }
    return true;
}

bool orri_gltf_parse_scenes(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    const cJSON *arr;
    if (!orri_gltf_top_array(c, "scenes", &arr, &d->scene_count)) return false;
    d->scenes = orri_gltf_palloc(c, d->scene_count, sizeof *d->scenes);
    if (d->scene_count && !d->scenes) return false;
    uint32_t i = 0;
    for (const cJSON *j = arr ? arr->child : NULL; j; j = j->next, i++) {
        char path[64];
        PATHF(c, path, sizeof path, "scenes[%u]", i);
        orri_gltf_scene *s = &d->scenes[i];
        const cJSON *nodes;
        if (!orri_gltf_jstring(c, j, "name", path, &s->name) || !orri_gltf_jarray(c, j, "nodes", path, &nodes)) return false;
        static const char *const known[] = {"nodes", NULL};
        orri_gltf_check_keys(c, j, path, known);
        if (!nodes) continue;
        char np[96];
        PATHF(c, np, sizeof np, "%s.nodes", path);
        if (!parse_index_list(c, nodes, np, d->node_count, "nodes", &s->nodes, &s->node_count, true)) return false;
        if (!s->node_count) orri_gltf_violation(c, "%s: empty array, ignored", np);
        for (uint32_t k = 0; k < s->node_count; k++) {
            if (d->nodes[s->nodes[k]].parent >= 0)
                return PARSE_ERR(c, "%s[%u]: node %u is not a root (its parent is node %d)", np, k, s->nodes[k],
                                 d->nodes[s->nodes[k]].parent);
        }
    }
    int32_t def;
    if (!orri_gltf_jref(c, d->json, "scene", "", d->scene_count, "scenes", &def)) return false;
    d->default_scene = def;
    return true;
}

/* Skinned meshes: joint indices must name a joint of every skin the mesh is drawn with. The largest
 * joint index of each mesh (over its primitives' JOINTS_n sets) is computed once, and each skinned
 * node compares it once: O(nodes + primitives), not nodes x primitives. */
bool orri_gltf_check_joints(orri_gltf_pctx *c)
{
    orri_gltf_doc *d = c->doc;
    if (!d->mesh_count) return true;
    int64_t *max_of = orri_gltf_palloc(c, d->mesh_count, sizeof *max_of); /* -1 = no joints, -2 = not computed */
    if (!max_of) return false;
    for (uint32_t m = 0; m < d->mesh_count; m++) max_of[m] = -2;
    bool ok = true;
    for (uint32_t i = 0; i < d->node_count && ok; i++) {
        const orri_gltf_node *n = &d->nodes[i];
        if (n->mesh < 0) continue;
        const orri_gltf_mesh *m = &d->meshes[n->mesh];
        if (max_of[n->mesh] == -2) {
            int64_t best = -1;
            for (uint32_t p = 0; p < m->primitive_count; p++) {
                const cJSON *attrs = m->primitives[p].attributes;
                for (const cJSON *a = attrs ? attrs->child : NULL; a; a = a->next) { /* every JOINTS_n set */
                    uint32_t set, at;
                    if (!orri_gltf_parse_attribute_name(a->string, "JOINTS_", &set)) continue;
                    uint32_t mx = orri_gltf_accessor_max_uint(d, (uint32_t)a->valuedouble, UINT32_MAX, &at);
                    if ((int64_t)mx > best) best = mx;
                }
            }
            max_of[n->mesh] = best;
        }
        if (max_of[n->mesh] < 0) {
            if (n->skin >= 0) orri_gltf_violation(c, "nodes[%u]: skin %d, but mesh %d has no JOINTS_0; drawn unskinned", i, n->skin, n->mesh);
            continue;
        }
        if (n->skin < 0) {
            orri_gltf_warn(c, "nodes[%u]: mesh %d has joints but the node has no skin", i, n->mesh);
            continue;
        }
        uint32_t joints = d->skins[n->skin].joint_count;
        if ((uint64_t)max_of[n->mesh] < joints) continue;
        /* refused: find the primitive and element to name (once, on the way out) */
        for (uint32_t p = 0; p < m->primitive_count && ok; p++) {
            const cJSON *attrs = m->primitives[p].attributes;
            for (const cJSON *a = attrs ? attrs->child : NULL; a && ok; a = a->next) {
                uint32_t set, at = 0;
                if (!orri_gltf_parse_attribute_name(a->string, "JOINTS_", &set)) continue;
                uint32_t mx = orri_gltf_accessor_max_uint(d, (uint32_t)a->valuedouble, joints, &at);
                if (mx >= joints)
                    ok = PARSE_ERR(c, "meshes[%d].primitives[%u].attributes.%s: element %u has joint %u, skin %d (used by node %u) has %u joints",
                                   n->mesh, p, a->string, at, mx, n->skin, i, joints);
            }
        }
    }
    orri_gltf_dealloc(&d->allocator, max_of, 0);
    return ok;
}

/* The node at the top of n's hierarchy. */
static uint32_t root_of(const orri_gltf_doc *d, uint32_t n)
{
    while (d->nodes[n].parent >= 0) n = (uint32_t)d->nodes[n].parent;
    return n;
}

/* Whether `a` is n or one of its ancestors. */
static bool is_ancestor(const orri_gltf_doc *d, uint32_t a, uint32_t n)
{
    for (int64_t m = n; m >= 0; m = d->nodes[m].parent)
        if ((uint32_t)m == a) return true;
    return false;
}

/* glTF: a skin's joints have a common root, and `skeleton`, when given, is one (an ancestor of, or, every
 * joint). Skinning here needs neither (joints are skinned from their own world matrices), so a skin
 * breaking them is a violation the loader steps around. O(joints x depth) per skin. */
bool orri_gltf_check_skin_roots(orri_gltf_pctx *c)
{
    const orri_gltf_doc *d = c->doc;
    for (uint32_t i = 0; i < d->skin_count; i++) {
        const orri_gltf_skin *s = &d->skins[i];
        uint32_t root = root_of(d, s->joints[0]);
        for (uint32_t k = 1; k < s->joint_count; k++)
            if (root_of(d, s->joints[k]) != root) {
                orri_gltf_violation(c, "skins[%u].joints: joint %u (node %u) shares no root with joint 0 (node %u); glTF wants a "
                                    "common root, skinning does not need one", i, k, s->joints[k], s->joints[0]);
                break;
            }
        if (s->skeleton < 0) continue;
        for (uint32_t k = 0; k < s->joint_count; k++)
            if (!is_ancestor(d, (uint32_t)s->skeleton, s->joints[k])) {
                orri_gltf_violation(c, "skins[%u].skeleton: node %d is not joint %u (node %u) nor one of its ancestors; ignored",
                                    i, s->skeleton, k, s->joints[k]);
                break;
            }
    }
    return true;
}

void orri_gltf_node_local(const orri_gltf_node *n, orr_mat4d *out)
{
    if (n->has_matrix) *out = n->matrix;
    else orr_mat4d_from_trs(n->t, n->r, n->s, out);
}
