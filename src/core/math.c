/* Binary64 vector, quaternion and matrix math. Matrices are column-major: m[col * 4 + row]. */
#include "core/internal.h"

#include <math.h>
#include <string.h>

orr_vec3d orr_vec3d_add(orr_vec3d a, orr_vec3d b) { return (orr_vec3d){a.x + b.x, a.y + b.y, a.z + b.z}; }
orr_vec3d orr_vec3d_sub(orr_vec3d a, orr_vec3d b) { return (orr_vec3d){a.x - b.x, a.y - b.y, a.z - b.z}; }
orr_vec3d orr_vec3d_scale(orr_vec3d a, double s) { return (orr_vec3d){a.x * s, a.y * s, a.z * s}; }
double orr_vec3d_dot(orr_vec3d a, orr_vec3d b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double orr_vec3d_length(orr_vec3d a) { return sqrt(orr_vec3d_dot(a, a)); }

orr_vec3d orr_vec3d_cross(orr_vec3d a, orr_vec3d b)
{
    return (orr_vec3d){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

orr_vec3d orr_vec3d_normalize(orr_vec3d a)
{
    double len = orr_vec3d_length(a);
    return len > 0.0 ? orr_vec3d_scale(a, 1.0 / len) : a;
}

orr_quatd orr_quatd_mul(orr_quatd a, orr_quatd b)
{
    return (orr_quatd){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

orr_quatd orr_quatd_normalize(orr_quatd q)
{
    double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(len > 0.0) || !isfinite(len)) return ORR_QUAT_IDENTITY;
    return (orr_quatd){q.x / len, q.y / len, q.z / len, q.w / len};
}

orr_quatd orr_quatd_from_axis_angle(orr_vec3d axis, double radians)
{
    orr_vec3d n = orr_vec3d_normalize(axis);
    double s = sin(radians * 0.5);
    return (orr_quatd){n.x * s, n.y * s, n.z * s, cos(radians * 0.5)};
}

orr_quatd orr_quatd_slerp(orr_quatd a, orr_quatd b, double t)
{
    double d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (d < 0.0) {
        d = -d;
        b = (orr_quatd){-b.x, -b.y, -b.z, -b.w};
    }
    double wa, wb;
    if (d > 0.9995) { /* nearly parallel: linear is exact enough and avoids dividing by sin ~ 0 */
        wa = 1.0 - t;
        wb = t;
    } else {
        double theta = acos(d), s = sin(theta);
        wa = sin((1.0 - t) * theta) / s;
        wb = sin(t * theta) / s;
    }
    return orr_quatd_normalize((orr_quatd){wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z,
                                           wa * a.w + wb * b.w});
}

orr_vec3d orr_quatd_rotate(orr_quatd q, orr_vec3d v)
{
    orr_vec3d u = {q.x, q.y, q.z};
    orr_vec3d t = orr_vec3d_scale(orr_vec3d_cross(u, v), 2.0);
    return orr_vec3d_add(orr_vec3d_add(v, orr_vec3d_scale(t, q.w)), orr_vec3d_cross(u, t));
}

void orr_mat4d_identity(orr_mat4d *dest)
{
    memset(dest, 0, sizeof *dest);
    dest->m[0] = dest->m[5] = dest->m[10] = dest->m[15] = 1.0;
}

void orr_mat4d_mul(const orr_mat4d *a, const orr_mat4d *b, orr_mat4d *dest)
{
    orr_mat4d r;
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            r.m[c * 4 + row] = a->m[0 * 4 + row] * b->m[c * 4 + 0] + a->m[1 * 4 + row] * b->m[c * 4 + 1] +
                               a->m[2 * 4 + row] * b->m[c * 4 + 2] + a->m[3 * 4 + row] * b->m[c * 4 + 3];
        }
    }
    *dest = r;
}

void orr_mat4d_from_trs(orr_vec3d t, orr_quatd q, orr_vec3d s, orr_mat4d *dest)
{
    double x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    double xx = q.x * x2, xy = q.x * y2, xz = q.x * z2;
    double yy = q.y * y2, yz = q.y * z2, zz = q.z * z2;
    double wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    double *m = dest->m;
    m[0] = (1.0 - (yy + zz)) * s.x;
    m[1] = (xy + wz) * s.x;
    m[2] = (xz - wy) * s.x;
    m[3] = 0.0;
    m[4] = (xy - wz) * s.y;
    m[5] = (1.0 - (xx + zz)) * s.y;
    m[6] = (yz + wx) * s.y;
    m[7] = 0.0;
    m[8] = (xz + wy) * s.z;
    m[9] = (yz - wx) * s.z;
    m[10] = (1.0 - (xx + yy)) * s.z;
    m[11] = 0.0;
    m[12] = t.x;
    m[13] = t.y;
    m[14] = t.z;
    m[15] = 1.0;
}

bool orr_mat4d_inverse(const orr_mat4d *mat, orr_mat4d *dest)
{
    const double *m = mat->m;
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] +
             m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] -
             m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] +
             m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] -
              m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] -
             m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] +
             m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] -
             m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] +
              m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
             m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] -
             m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] +
              m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] -
              m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] -
             m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
             m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
              m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
              m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (det == 0.0 || !isfinite(det)) {
        orr_mat4d_identity(dest);
        return false;
    }
    double r = 1.0 / det;
    for (int i = 0; i < 16; i++) dest->m[i] = inv[i] * r;
    return true;
}

bool orr_mat4d_inverse_affine(const orr_mat4d *mat, orr_mat4d *dest)
{
    const double *m = mat->m;
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (det == 0.0 || !isfinite(det)) {
        orr_mat4d_identity(dest);
        return false;
    }
    double r = 1.0 / det;
    orr_mat4d o;
    o.m[0] = A * r;
    o.m[1] = B * r;
    o.m[2] = C * r;
    o.m[4] = -(b * i - c * h) * r;
    o.m[5] = (a * i - c * g) * r;
    o.m[6] = -(a * h - b * g) * r;
    o.m[8] = (b * f - c * e) * r;
    o.m[9] = -(a * f - c * d) * r;
    o.m[10] = (a * e - b * d) * r;
    o.m[3] = o.m[7] = o.m[11] = 0.0;
    double tx = m[12], ty = m[13], tz = m[14];
    o.m[12] = -(o.m[0] * tx + o.m[4] * ty + o.m[8] * tz);
    o.m[13] = -(o.m[1] * tx + o.m[5] * ty + o.m[9] * tz);
    o.m[14] = -(o.m[2] * tx + o.m[6] * ty + o.m[10] * tz);
    o.m[15] = 1.0;
    *dest = o;
    return true;
}

static orr_quatd quat_from_rotation(const double r[9]) /* r column-major 3x3, orthonormal */
{
    double trace = r[0] + r[4] + r[8];
    orr_quatd q;
    if (trace > 0.0) {
        double s = sqrt(trace + 1.0) * 2.0;
        q = (orr_quatd){(r[5] - r[7]) / s, (r[6] - r[2]) / s, (r[1] - r[3]) / s, 0.25 * s};
    } else if (r[0] > r[4] && r[0] > r[8]) {
        double s = sqrt(1.0 + r[0] - r[4] - r[8]) * 2.0;
        q = (orr_quatd){0.25 * s, (r[3] + r[1]) / s, (r[6] + r[2]) / s, (r[5] - r[7]) / s};
    } else if (r[4] > r[8]) {
        double s = sqrt(1.0 + r[4] - r[0] - r[8]) * 2.0;
        q = (orr_quatd){(r[3] + r[1]) / s, 0.25 * s, (r[7] + r[5]) / s, (r[6] - r[2]) / s};
    } else {
        double s = sqrt(1.0 + r[8] - r[0] - r[4]) * 2.0;
        q = (orr_quatd){(r[6] + r[2]) / s, (r[7] + r[5]) / s, 0.25 * s, (r[1] - r[3]) / s};
    }
    return orr_quatd_normalize(q);
}

bool orr_mat4d_decompose(const orr_mat4d *mat, orr_vec3d *t, orr_quatd *r, orr_vec3d *s)
{
    const double *m = mat->m;
    *t = (orr_vec3d){m[12], m[13], m[14]};
    orr_vec3d c0 = {m[0], m[1], m[2]}, c1 = {m[4], m[5], m[6]}, c2 = {m[8], m[9], m[10]};
    double sx = orr_vec3d_length(c0), sy = orr_vec3d_length(c1), sz = orr_vec3d_length(c2);
    if (orr_vec3d_dot(orr_vec3d_cross(c0, c1), c2) < 0.0) sx = -sx; /* a mirror goes into x */
    *s = (orr_vec3d){sx, sy, sz};
    if (sx == 0.0 || sy == 0.0 || sz == 0.0) {
        *r = ORR_QUAT_IDENTITY;
    } else {
        double rot[9] = {c0.x / sx, c0.y / sx, c0.z / sx, c1.x / sy, c1.y / sy, c1.z / sy,
                         c2.x / sz, c2.y / sz, c2.z / sz};
        *r = quat_from_rotation(rot);
    }
    if (m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0) return false;
    orr_mat4d back;
    orr_mat4d_from_trs(*t, *r, *s, &back);
    double scale = fabs(sx) + fabs(sy) + fabs(sz) + 1e-300;
    for (int i = 0; i < 12; i++) {
        if (i % 4 == 3) continue;
        if (fabs(back.m[i] - m[i]) > 1e-9 * scale) return false;
    }
    return true;
}

orr_vec3d orr_mat4d_transform_point(const orr_mat4d *mat, orr_vec3d p)
{
    const double *m = mat->m;
    return (orr_vec3d){m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                       m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]};
}

orr_vec3d orr_mat4d_transform_dir(const orr_mat4d *mat, orr_vec3d d)
{
    const double *m = mat->m;
    return (orr_vec3d){m[0] * d.x + m[4] * d.y + m[8] * d.z, m[1] * d.x + m[5] * d.y + m[9] * d.z,
                       m[2] * d.x + m[6] * d.y + m[10] * d.z};
}

orr_vec3d orr_mat4d_translation(const orr_mat4d *m) { return (orr_vec3d){m->m[12], m->m[13], m->m[14]}; }

orr_aabbd orr_aabbd_empty(void)
{
    return (orr_aabbd){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}

bool orr_aabbd_is_empty(orr_aabbd b) { return !(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z); }

orr_aabbd orr_aabbd_union(orr_aabbd a, orr_aabbd b)
{
    return (orr_aabbd){{fmin(a.min.x, b.min.x), fmin(a.min.y, b.min.y), fmin(a.min.z, b.min.z)},
                       {fmax(a.max.x, b.max.x), fmax(a.max.y, b.max.y), fmax(a.max.z, b.max.z)}};
}

orr_aabbf orr_aabbf_empty(void)
{
    return (orr_aabbf){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}

/* plain compares, not fminf: one instruction each, and the order of ties (-0, +0) is the points' */
orr_aabbf orr_aabbf_grow(orr_aabbf b, const float *q, size_t count)
{
    for (size_t k = 0; k < count; k++, q += 3) {
        b.min.x = q[0] < b.min.x ? q[0] : b.min.x, b.min.y = q[1] < b.min.y ? q[1] : b.min.y;
        b.min.z = q[2] < b.min.z ? q[2] : b.min.z;
        b.max.x = q[0] > b.max.x ? q[0] : b.max.x, b.max.y = q[1] > b.max.y ? q[1] : b.max.y;
        b.max.z = q[2] > b.max.z ? q[2] : b.max.z;
    }
    return b;
}

orr_aabbf orr_aabbf_merge(orr_aabbf a, orr_aabbf b)
{
    a.min.x = b.min.x < a.min.x ? b.min.x : a.min.x, a.min.y = b.min.y < a.min.y ? b.min.y : a.min.y;
    a.min.z = b.min.z < a.min.z ? b.min.z : a.min.z;
    a.max.x = b.max.x > a.max.x ? b.max.x : a.max.x, a.max.y = b.max.y > a.max.y ? b.max.y : a.max.y;
    a.max.z = b.max.z > a.max.z ? b.max.z : a.max.z;
    return a;
}

orr_aabbd orr_aabbd_transform(const orr_mat4d *m, orr_aabbd box)
{
    if (orr_aabbd_is_empty(box)) return box;
    /* Arvo's method: the centre moves, the half extent goes through |M|. */
    orr_vec3d c = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    orr_vec3d e = orr_vec3d_scale(orr_vec3d_sub(box.max, box.min), 0.5);
    orr_vec3d nc = orr_mat4d_transform_point(m, c);
    const double *a = m->m;
    orr_vec3d ne = {fabs(a[0]) * e.x + fabs(a[4]) * e.y + fabs(a[8]) * e.z,
                    fabs(a[1]) * e.x + fabs(a[5]) * e.y + fabs(a[9]) * e.z,
                    fabs(a[2]) * e.x + fabs(a[6]) * e.y + fabs(a[10]) * e.z};
    return (orr_aabbd){orr_vec3d_sub(nc, ne), orr_vec3d_add(nc, ne)};
}

void orr_affine3d_identity(orr_affine3d *dest)
{
    *dest = (orr_affine3d){{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}};
}

void orr_affine3d_to_mat4d(const orr_affine3d *a, orr_mat4d *dest)
{
    orr_mat4d r;
    for (int c = 0; c < 4; c++) {
        r.m[c * 4 + 0] = a->m[c * 3 + 0];
        r.m[c * 4 + 1] = a->m[c * 3 + 1];
        r.m[c * 4 + 2] = a->m[c * 3 + 2];
        r.m[c * 4 + 3] = c == 3 ? 1.0 : 0.0;
    }
    *dest = r;
}

void orr_affine3d_from_mat4d(const orr_mat4d *m, orr_affine3d *dest)
{
    orr_affine3d r;
    for (int c = 0; c < 4; c++) {
        r.m[c * 3 + 0] = m->m[c * 4 + 0];
        r.m[c * 3 + 1] = m->m[c * 4 + 1];
        r.m[c * 3 + 2] = m->m[c * 4 + 2];
    }
    *dest = r;
}

orr_vec3d orr_affine3d_transform_point(const orr_affine3d *a, orr_vec3d p)
{
    const double *m = a->m;
    return (orr_vec3d){m[0] * p.x + m[3] * p.y + m[6] * p.z + m[9], m[1] * p.x + m[4] * p.y + m[7] * p.z + m[10],
                       m[2] * p.x + m[5] * p.y + m[8] * p.z + m[11]};
}

orr_aabbd orr_aabbd_transform_affine(const orr_affine3d *m, orr_aabbd box)
{
    if (orr_aabbd_is_empty(box)) return box;
    orr_vec3d c = orr_vec3d_scale(orr_vec3d_add(box.min, box.max), 0.5);
    orr_vec3d e = orr_vec3d_scale(orr_vec3d_sub(box.max, box.min), 0.5);
    orr_vec3d nc = orr_affine3d_transform_point(m, c);
    const double *a = m->m;
    orr_vec3d ne = {fabs(a[0]) * e.x + fabs(a[3]) * e.y + fabs(a[6]) * e.z,
                    fabs(a[1]) * e.x + fabs(a[4]) * e.y + fabs(a[7]) * e.z,
                    fabs(a[2]) * e.x + fabs(a[5]) * e.y + fabs(a[8]) * e.z};
    return (orr_aabbd){orr_vec3d_sub(nc, ne), orr_vec3d_add(nc, ne)};
}

void orr_mat4d_perspective_reversed_infinite(double fovy, double aspect, double znear, orr_mat4d *dest)
{
    double f = 1.0 / tan(fovy * 0.5);
    memset(dest, 0, sizeof *dest);
    dest->m[0] = f / aspect;
    dest->m[5] = -f; /* Vulkan clip space has y pointing down */
    dest->m[11] = -1.0;
    dest->m[14] = znear; /* depth = near / -z_view: 1 at the near plane, 0 at infinity */
}

orr_quatd orr_quatd_look_rotation(orr_vec3d forward, orr_vec3d up)
{
    orr_vec3d z = orr_vec3d_normalize(orr_vec3d_scale(forward, -1.0));
    orr_vec3d x = orr_vec3d_cross(up, z);
    if (orr_vec3d_length(x) < 1e-12) x = orr_vec3d_cross((orr_vec3d){1, 0, 0}, z);
    if (orr_vec3d_length(x) < 1e-12) x = orr_vec3d_cross((orr_vec3d){0, 0, 1}, z);
    x = orr_vec3d_normalize(x);
    orr_vec3d y = orr_vec3d_cross(z, x);
    double r[9] = {x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z};
    return quat_from_rotation(r);
}

void orr_mat4d_look_at_pose(orr_vec3d eye, orr_vec3d target, orr_vec3d up, orr_mat4d *dest)
{
    orr_mat4d_from_trs(eye, orr_quatd_look_rotation(orr_vec3d_sub(target, eye), up), ORR_VEC3_ONE, dest);
}

void orr_mat4d_look_at(orr_vec3d eye, orr_vec3d target, orr_vec3d up, orr_mat4d *dest)
{
    orr_mat4d cam;
    orr_mat4d_look_at_pose(eye, target, up, &cam);
    orr_mat4d_inverse_affine(&cam, dest);
}

void orr_mat4f_from_mat4d(const orr_mat4d *m, orr_mat4f *dest)
{
    for (int i = 0; i < 16; i++) dest->m[i] = (float)m->m[i];
}

void orr_split_double(double v, float *hi, float *lo)
{
    /* The rounding to float must happen: a store through volatile keeps an optimiser (seen with
     * vectorised gcc 12 code) from folding (double)(float)v back into v, which would zero lo. */
    volatile float h = (float)v;
    float hv = h;
    *hi = hv;
    *lo = (float)(v - (double)hv);
}

/* Every normal is divided, and the quotient kept or not by a mask, not a branch, so that the loop
 * vectorizes (a compiler may not divide where the source does not); a quotient not kept (length 0 or
 * infinite) is dropped. */
ORRI_WIDE static void normalize3(float *v, size_t n) /* (clones only static: clang's need every declaration alike) */
{
    for (size_t k = 0; k < n; k++, v += 3) {
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        uint32_t keep = 0u - (uint32_t)((len > 0.0f) & (len < INFINITY) & (fabsf(len - 1.0f) > 1e-6f));
        for (int c = 0; c < 3; c++) {
            float q = v[c] / len;
            uint32_t qb, vb;
            memcpy(&qb, &q, 4), memcpy(&vb, &v[c], 4);
            vb = (qb & keep) | (vb & ~keep);
            memcpy(&v[c], &vb, 4);
        }
    }
}

void orri_normalize3(float *v, size_t n) { normalize3(v, n); }
