/* The tests' own glTF reference (gltf_reference.h): nothing here calls the library. */
#include "gltf_reference.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_node {
    double t[3], r[4], s[3]; /* rest TRS (or the decomposition is not needed: matrix nodes keep `matrix`) */
    double pose_t[3], pose_r[4], pose_s[3];
    bool has_matrix;
    double matrix[16];  /* column-major */
    double world[16];   /* column-major, as posed */
    int32_t parent, mesh, skin;
    double weights[64]; /* as posed: the animation's, else the node's, else the mesh's */
    uint32_t weight_count;
    bool own_weights;   /* the node has `weights` */
    double node_weights[64];
} ref_node;

struct ref_doc {
    cJSON *json;
    unsigned char **buffers;
    size_t *buffer_sizes;
    uint32_t buffer_count, node_count;
    ref_node *nodes;
};

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("reference: cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_non_null(p);
    if (fread(p, 1, (size_t)n, f) != (size_t)n) fail_msg("reference: short read of %s", path);
    fclose(f);
    p[n] = 0;
    *size = (size_t)n;
    return p;
}

static unsigned char *base64(const char *s, size_t *size)
{
    size_t n = strlen(s);
    unsigned char *out = malloc(n / 4 * 3 + 3);
    assert_non_null(out);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '+' ? 62 : c == '/' ? 63 : -1;
        if (v < 0) continue; /* padding */
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *size = o;
    return out;
}

static const cJSON *item(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static const cJSON *at(const cJSON *o, const char *k, int i) { return cJSON_GetArrayItem(item(o, k), i); }
static double num(const cJSON *o, const char *k, double fallback)
{
    const cJSON *v = item(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

/* ---- accessors ---------------------------------------------------------------------------- */

static uint32_t components(const char *type)
{
    return !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC2") ? 2 : !strcmp(type, "VEC3") ? 3 : !strcmp(type, "VEC4") ? 4
           : !strcmp(type, "MAT4")  ? 16
                                    : 0;
}

static uint32_t accessor_count(const ref_doc *d, int acc) { return (uint32_t)num(at(d->json, "accessors", acc), "count", 0); }

/* Element e of accessor `acc` as doubles (normalized integers as the spec maps them). */
static void element(const ref_doc *d, int acc, uint32_t e, double *out)
{
    const cJSON *a = at(d->json, "accessors", acc);
    if (item(a, "sparse")) fail_msg("reference: accessor %d is sparse (not read here)", acc);
    uint32_t comps = components(item(a, "type")->valuestring), ct = (uint32_t)num(a, "componentType", 0);
    bool norm = cJSON_IsTrue(item(a, "normalized"));
    uint32_t size = ct == 5126 || ct == 5125 ? 4 : ct == 5123 || ct == 5122 ? 2 : 1;
    const cJSON *bv = at(d->json, "bufferViews", (int)num(a, "bufferView", -1));
    if (!bv) {
        for (uint32_t c = 0; c < comps; c++) out[c] = 0;
        return;
    }
    size_t stride = (size_t)num(bv, "byteStride", 0);
    if (!stride) stride = (size_t)size * comps;
    size_t base = (size_t)num(bv, "byteOffset", 0) + (size_t)num(a, "byteOffset", 0) + stride * e;
    uint32_t buf = (uint32_t)num(bv, "buffer", 0);
    assert_true(buf < d->buffer_count && base + (size_t)size * comps <= d->buffer_sizes[buf]);
    const unsigned char *p = d->buffers[buf] + base;
    for (uint32_t c = 0; c < comps; c++) {
        const unsigned char *q = p + (size_t)c * size;
        double v;
        switch (ct) {
        case 5126: { float f; memcpy(&f, q, 4); v = f; break; }
        case 5125: { uint32_t u; memcpy(&u, q, 4); v = u; break; }
        case 5123: { uint16_t u; memcpy(&u, q, 2); v = norm ? u / 65535.0 : u; break; }
        case 5122: { int16_t s; memcpy(&s, q, 2); v = norm ? fmax(s / 32767.0, -1.0) : s; break; }
        case 5121: v = norm ? q[0] / 255.0 : q[0]; break;
        default: { int8_t s = (int8_t)q[0]; v = norm ? fmax(s / 127.0, -1.0) : s; break; }
        }
        out[c] = v;
    }
}

/* ---- loading ------------------------------------------------------------------------------ */

ref_doc *ref_load(const char *path)
{
    size_t n;
    char *text = read_file(path, &n);
    ref_doc *d = calloc(1, sizeof *d);
    assert_non_null(d);
    d->json = cJSON_Parse(text);
    free(text);
    if (!d->json) fail_msg("reference: %s is not JSON (a .glb is not read here)", path);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    else dir[0] = 0;
    d->buffer_count = (uint32_t)cJSON_GetArraySize(item(d->json, "buffers"));
    d->buffers = calloc(d->buffer_count + 1, sizeof *d->buffers);
    d->buffer_sizes = calloc(d->buffer_count + 1, sizeof *d->buffer_sizes);
    for (uint32_t b = 0; b < d->buffer_count; b++) {
        const char *uri = item(at(d->json, "buffers", (int)b), "uri")->valuestring;
        if (!strncmp(uri, "data:", 5)) {
            d->buffers[b] = base64(strchr(uri, ',') + 1, &d->buffer_sizes[b]);
        } else {
            char file[2048];
            snprintf(file, sizeof file, "%s%s", dir, uri);
            d->buffers[b] = (unsigned char *)read_file(file, &d->buffer_sizes[b]);
        }
    }
    d->node_count = (uint32_t)cJSON_GetArraySize(item(d->json, "nodes"));
    d->nodes = calloc(d->node_count + 1, sizeof *d->nodes);
    for (uint32_t i = 0; i < d->node_count; i++) {
        ref_node *nd = &d->nodes[i];
        const cJSON *j = at(d->json, "nodes", (int)i);
        nd->parent = -1;
        nd->mesh = (int32_t)num(j, "mesh", -1);
        nd->skin = (int32_t)num(j, "skin", -1);
        double dflt[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
        for (int k = 0; k < 3; k++) nd->t[k] = at(j, "translation", k) ? at(j, "translation", k)->valuedouble : dflt[k];
        for (int k = 0; k < 4; k++) nd->r[k] = at(j, "rotation", k) ? at(j, "rotation", k)->valuedouble : dflt[3 + k];
        for (int k = 0; k < 3; k++) nd->s[k] = at(j, "scale", k) ? at(j, "scale", k)->valuedouble : 1.0;
        nd->has_matrix = item(j, "matrix") != NULL;
        for (int k = 0; k < 16; k++) nd->matrix[k] = nd->has_matrix ? at(j, "matrix", k)->valuedouble : (k % 5 == 0);
        const cJSON *w = item(j, "weights");
        nd->own_weights = w != NULL;
        for (int k = 0; w && k < cJSON_GetArraySize(w) && k < 64; k++) nd->node_weights[k] = cJSON_GetArrayItem(w, k)->valuedouble;
    }
    for (uint32_t i = 0; i < d->node_count; i++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, item(at(d->json, "nodes", (int)i), "children")) d->nodes[c->valueint].parent = (int32_t)i;
    }
    ref_pose(d, UINT32_MAX, 0, true);
    return d;
}

void ref_free(ref_doc *d)
{
    if (!d) return;
    for (uint32_t b = 0; b < d->buffer_count; b++) free(d->buffers[b]);
    free(d->buffers);
    free(d->buffer_sizes);
    free(d->nodes);
    cJSON_Delete(d->json);
    free(d);
}

uint32_t ref_node_count(const ref_doc *d) { return d->node_count; }
int32_t ref_node_mesh(const ref_doc *d, uint32_t node) { return d->nodes[node].mesh; }
static const cJSON *prim_json(const ref_doc *d, uint32_t mesh, uint32_t prim)
{
    return cJSON_GetArrayItem(item(at(d->json, "meshes", (int)mesh), "primitives"), (int)prim);
}
uint32_t ref_primitive_count(const ref_doc *d, uint32_t mesh)
{
    return (uint32_t)cJSON_GetArraySize(item(at(d->json, "meshes", (int)mesh), "primitives"));
}
static int attribute(const ref_doc *d, uint32_t mesh, uint32_t prim, const char *name)
{
    return (int)num(item(prim_json(d, mesh, prim), "attributes"), name, -1);
}
uint32_t ref_vertex_count(const ref_doc *d, uint32_t mesh, uint32_t prim)
{
    return accessor_count(d, attribute(d, mesh, prim, "POSITION"));
}
bool ref_has_normals(const ref_doc *d, uint32_t mesh, uint32_t prim) { return attribute(d, mesh, prim, "NORMAL") >= 0; }
uint32_t ref_index_count(const ref_doc *d, uint32_t mesh, uint32_t prim)
{
    int acc = (int)num(prim_json(d, mesh, prim), "indices", -1);
    return acc >= 0 ? accessor_count(d, acc) : ref_vertex_count(d, mesh, prim);
}
uint32_t ref_index(const ref_doc *d, uint32_t mesh, uint32_t prim, uint32_t k)
{
    int acc = (int)num(prim_json(d, mesh, prim), "indices", -1);
    if (acc < 0) return k;
    double v;
    element(d, acc, k, &v);
    return (uint32_t)v;
}

/* ---- animation ---------------------------------------------------------------------------- */

uint32_t ref_animation_count(const ref_doc *d) { return (uint32_t)cJSON_GetArraySize(item(d->json, "animations")); }

double ref_animation_duration(const ref_doc *d, uint32_t anim)
{
    const cJSON *a = at(d->json, "animations", (int)anim), *s;
    double end = 0;
    cJSON_ArrayForEach(s, item(a, "samplers"))
    {
        int in = (int)num(s, "input", -1);
        double t;
        element(d, in, accessor_count(d, in) - 1, &t);
        if (t > end) end = t;
    }
    return end;
}

static void slerp(const double *a, const double *b0, double u, double *out)
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) {
        dot = -dot;
        for (int k = 0; k < 4; k++) b[k] = -b[k];
    }
    double wa = 1 - u, wb = u;
    if (dot < 0.9999999) {
        double th = acos(dot), sn = sin(th);
        wa = sin((1 - u) * th) / sn, wb = sin(u * th) / sn;
    }
    double len = 0;
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k], len += out[k] * out[k];
    for (int k = 0; k < 4; k++) out[k] /= sqrt(len);
}

/* One channel's value at t into out[n]. */
static void sample(const ref_doc *d, const cJSON *sampler, bool rotation, uint32_t n, double t, double *out)
{
    int in = (int)num(sampler, "input", -1), op = (int)num(sampler, "output", -1);
    const cJSON *ip = item(sampler, "interpolation");
    const char *mode = ip ? ip->valuestring : "LINEAR";
    bool cubic = !strcmp(mode, "CUBICSPLINE");
    uint32_t keys = accessor_count(d, in), k = 0;
    double t0, t1;
    /* values of key k, component c: the output's scalars (weights) or its elements */
    double *vals = malloc(sizeof(double) * (size_t)keys * n * (cubic ? 3 : 1));
    assert_non_null(vals);
    uint32_t per = components(item(at(d->json, "accessors", op), "type")->valuestring);
    for (uint32_t e = 0; e < accessor_count(d, op); e++) element(d, op, e, vals + (size_t)e * per);
#define V(key, part, c) vals[(((size_t)(key) * (cubic ? 3 : 1) + (part)) * n) + (c)]
    uint32_t mid = cubic ? 1 : 0;
    element(d, in, 0, &t0);
    element(d, in, keys - 1, &t1);
    if (keys == 1 || t <= t0 || t >= t1) {
        uint32_t key = keys == 1 || t <= t0 ? 0 : keys - 1;
        for (uint32_t c = 0; c < n; c++) out[c] = V(key, mid, c);
        free(vals);
        return;
    }
    for (k = 0; k + 1 < keys; k++) {
        element(d, in, k, &t0);
        element(d, in, k + 1, &t1);
        if (t >= t0 && t < t1) break;
    }
    double dt = t1 - t0, u = (t - t0) / dt;
    if (!strcmp(mode, "STEP")) {
        for (uint32_t c = 0; c < n; c++) out[c] = V(k, 0, c);
    } else if (!cubic) {
        if (rotation) {
            double a[4], b[4];
            for (int c = 0; c < 4; c++) a[c] = V(k, 0, c), b[c] = V(k + 1, 0, c);
            slerp(a, b, u, out);
        } else {
            for (uint32_t c = 0; c < n; c++) out[c] = V(k, 0, c) * (1 - u) + V(k + 1, 0, c) * u;
        }
    } else {
        double u2 = u * u, u3 = u2 * u;
        for (uint32_t c = 0; c < n; c++)
            out[c] = (2 * u3 - 3 * u2 + 1) * V(k, 1, c) + (u3 - 2 * u2 + u) * dt * V(k, 2, c) +
                     (-2 * u3 + 3 * u2) * V(k + 1, 1, c) + (u3 - u2) * dt * V(k + 1, 0, c);
        if (rotation) {
            double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
            for (int c = 0; c < 4; c++) out[c] /= len;
        }
    }
#undef V
    free(vals);
}

static void mul(const double *a, const double *b, double *out) /* column-major 4x4: out = a x b */
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

static void local_matrix(const ref_node *n, double *m)
{
    if (n->has_matrix) {
        memcpy(m, n->matrix, sizeof n->matrix);
        return;
    }
    const double *q = n->pose_r, *s = n->pose_s;
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) m[c * 4 + row] = r[c * 3 + row] * s[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = n->pose_t[0], m[13] = n->pose_t[1], m[14] = n->pose_t[2], m[15] = 1;
}

static void world_of(ref_doc *d, uint32_t i, uint8_t *done)
{
    if (done[i]) return;
    ref_node *n = &d->nodes[i];
    double local[16];
    local_matrix(n, local);
    if (n->parent >= 0) {
        world_of(d, (uint32_t)n->parent, done);
        mul(d->nodes[n->parent].world, local, n->world);
    } else {
        memcpy(n->world, local, sizeof local);
    }
    done[i] = 1;
}

void ref_pose(ref_doc *d, uint32_t anim, double t, bool weights)
{
    for (uint32_t i = 0; i < d->node_count; i++) {
        ref_node *n = &d->nodes[i];
        memcpy(n->pose_t, n->t, sizeof n->t);
        memcpy(n->pose_r, n->r, sizeof n->r);
        memcpy(n->pose_s, n->s, sizeof n->s);
        n->weight_count = 0;
        if (n->mesh >= 0) {
            const cJSON *mw = item(at(d->json, "meshes", n->mesh), "weights");
            const cJSON *targets = item(prim_json(d, (uint32_t)n->mesh, 0), "targets");
            n->weight_count = (uint32_t)cJSON_GetArraySize(targets);
            for (uint32_t k = 0; k < n->weight_count && k < 64; k++)
                n->weights[k] = n->own_weights ? n->node_weights[k] : mw ? cJSON_GetArrayItem(mw, (int)k)->valuedouble : 0;
        }
    }
    const cJSON *a = anim == UINT32_MAX ? NULL : at(d->json, "animations", (int)anim), *ch;
    const cJSON *channels = a ? item(a, "channels") : NULL;
    cJSON_ArrayForEach(ch, channels)
    {
        const cJSON *target = item(ch, "target");
        int node = (int)num(target, "node", -1);
        if (node < 0) continue;
        ref_node *n = &d->nodes[node];
        const char *path = item(target, "path")->valuestring;
        const cJSON *s = at(a, "samplers", (int)num(ch, "sampler", 0));
        if (!strcmp(path, "translation")) sample(d, s, false, 3, t, n->pose_t);
        else if (!strcmp(path, "rotation")) sample(d, s, true, 4, t, n->pose_r);
        else if (!strcmp(path, "scale")) sample(d, s, false, 3, t, n->pose_s);
        else if (!strcmp(path, "weights") && weights) sample(d, s, false, n->weight_count, t, n->weights);
    }
    uint8_t *done = calloc(d->node_count + 1, 1);
    assert_non_null(done);
    for (uint32_t i = 0; i < d->node_count; i++) world_of(d, i, done);
    free(done);
}

/* ---- vertices ----------------------------------------------------------------------------- */

void ref_vertex(const ref_doc *d, uint32_t node, uint32_t prim, uint32_t v, double out[3])
{
    const ref_node *n = &d->nodes[node];
    uint32_t mesh = (uint32_t)n->mesh;
    double p[3];
    element(d, attribute(d, mesh, prim, "POSITION"), v, p);
    const cJSON *tj;
    uint32_t t = 0;
    cJSON_ArrayForEach(tj, item(prim_json(d, mesh, prim), "targets"))
    {
        int acc = (int)num(tj, "POSITION", -1);
        if (acc >= 0 && t < n->weight_count && n->weights[t] != 0) {
            double delta[3];
            element(d, acc, v, delta);
            for (int c = 0; c < 3; c++) p[c] += n->weights[t] * delta[c];
        }
        t++;
    }
    double m[16];
    memcpy(m, n->world, sizeof m);
    int ja = attribute(d, mesh, prim, "JOINTS_0"), wa = attribute(d, mesh, prim, "WEIGHTS_0");
    if (n->skin >= 0 && ja >= 0 && wa >= 0) {
        const cJSON *skin = at(d->json, "skins", n->skin);
        int ibm = (int)num(skin, "inverseBindMatrices", -1);
        double j[4], w[4], sum = 0;
        element(d, ja, v, j);
        element(d, wa, v, w);
        for (int k = 0; k < 4; k++) sum += w[k];
        memset(m, 0, sizeof m);
        for (int k = 0; k < 4 && sum > 0; k++) {
            if (w[k] == 0) continue;
            int joint = cJSON_GetArrayItem(item(skin, "joints"), (int)j[k])->valueint;
            double inv[16], jm[16];
            if (ibm >= 0) element(d, ibm, (uint32_t)j[k], inv);
            else
                for (int e = 0; e < 16; e++) inv[e] = e % 5 == 0;
            mul(d->nodes[joint].world, inv, jm);
            for (int e = 0; e < 16; e++) m[e] += w[k] / sum * jm[e];
        }
        if (!(sum > 0)) memcpy(m, n->world, sizeof m);
    }
    for (int r = 0; r < 3; r++) out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

void ref_each_vertex(const ref_doc *d, void (*fn)(void *user, const double x[3]), void *user)
{
    for (uint32_t n = 0; n < ref_node_count(d); n++) {
        int32_t mesh = ref_node_mesh(d, n);
        if (mesh < 0) continue;
        for (uint32_t p = 0; p < ref_primitive_count(d, (uint32_t)mesh); p++)
            for (uint32_t v = 0; v < ref_vertex_count(d, (uint32_t)mesh, p); v++) {
                double x[3];
                ref_vertex(d, n, p, v, x);
                fn(user, x);
            }
    }
}

typedef struct box3 {
    double lo[3], hi[3];
} box3;

static void grow_box(void *user, const double x[3])
{
    box3 *b = user;
    for (int k = 0; k < 3; k++) b->lo[k] = fmin(b->lo[k], x[k]), b->hi[k] = fmax(b->hi[k], x[k]);
}

void ref_posed_sphere(const ref_doc *d, double centre[3], double *radius)
{
    box3 b = {{1e30, 1e30, 1e30}, {-1e30, -1e30, -1e30}};
    ref_each_vertex(d, grow_box, &b);
    double r2 = 0;
    for (int k = 0; k < 3; k++) centre[k] = (b.lo[k] + b.hi[k]) / 2, r2 += (b.hi[k] - b.lo[k]) * (b.hi[k] - b.lo[k]);
    *radius = sqrt(r2) / 2;
}
