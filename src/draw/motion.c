/* Instances between ticks (orr_draw_motion): the pose a renderer draws an instance at, `lag` of the way
 * back to its earlier pose, by the vertex stage's rule (src/gpu/shaders/vertex.glsl and scatter.comp,
 * which decompose the records' linear parts in binary32; here in binary64), so that a cull tests the
 * box where it is drawn. The decompositions are made once per change (orr_draw_blend_prepare), so that a
 * cull's frame costs a quaternion blend per moving instance. */
#include "draw/draw_internal.h"

#include <math.h>

/* The linear part's rotation and column lengths, when it is a proper rotation times a positive scale
 * per axis (columns orthogonal within 1e-3, as scatter.comp's test): true. */
static bool rigid(const orr_affine3d *a, orr_quatd *q, orr_vec3d *s)
{
    const double *m = a->m;
    orr_vec3d c[3] = {{m[0], m[1], m[2]}, {m[3], m[4], m[5]}, {m[6], m[7], m[8]}};
    double len[3];
    for (int k = 0; k < 3; k++) len[k] = orr_vec3d_length(c[k]);
    if (!(len[0] > 0 && len[1] > 0 && len[2] > 0)) return false;
    for (int k = 0; k < 3; k++) c[k] = orr_vec3d_scale(c[k], 1.0 / len[k]);
    if (fabs(orr_vec3d_dot(c[0], c[1])) > 1e-3 || fabs(orr_vec3d_dot(c[0], c[2])) > 1e-3 ||
        fabs(orr_vec3d_dot(c[1], c[2])) > 1e-3)
        return false;
    if (orr_vec3d_dot(orr_vec3d_cross(c[0], c[1]), c[2]) <= 0) return false;
    /* its quaternion, as scatter.comp takes it (element row i, column j is c[j] component i) */
    double m00 = c[0].x, m11 = c[1].y, m22 = c[2].z, m01 = c[1].x, m10 = c[0].y, m02 = c[2].x, m20 = c[0].z,
           m12 = c[2].y, m21 = c[1].z, tr = m00 + m11 + m22, k;
    if (tr > 0) {
        k = sqrt(tr + 1.0) * 2.0;
        *q = (orr_quatd){(m21 - m12) / k, (m02 - m20) / k, (m10 - m01) / k, 0.25 * k};
    } else if (m00 > m11 && m00 > m22) {
        k = sqrt(1.0 + m00 - m11 - m22) * 2.0;
        *q = (orr_quatd){0.25 * k, (m01 + m10) / k, (m02 + m20) / k, (m21 - m12) / k};
    } else if (m11 > m22) {
        k = sqrt(1.0 + m11 - m00 - m22) * 2.0;
        *q = (orr_quatd){(m01 + m10) / k, 0.25 * k, (m12 + m21) / k, (m02 - m20) / k};
    } else {
        k = sqrt(1.0 + m22 - m00 - m11) * 2.0;
        *q = (orr_quatd){(m02 + m20) / k, (m12 + m21) / k, 0.25 * k, (m10 - m01) / k};
    }
    *q = orr_quatd_normalize(*q);
    *s = (orr_vec3d){len[0], len[1], len[2]};
    return true;
}

void orr_draw_blend_prepare(const orr_affine3d *now, const orr_affine3d *before, orr_draw_blend *out)
{
    *out = (orr_draw_blend){.t0 = {before->m[9], before->m[10], before->m[11]}};
    orr_quatd q1, q0;
    orr_vec3d s1, s0;
    bool both = rigid(before, &q0, &s0);
    out->rigid = rigid(now, &q1, &s1) && both;
    if (!out->rigid) return;
    double sign = q0.x * q1.x + q0.y * q1.y + q0.z * q1.z + q0.w * q1.w < 0 ? -1.0 : 1.0; /* the shorter way */
    double a[4] = {sign * q0.x, sign * q0.y, sign * q0.z, sign * q0.w}, b[4] = {q1.x, q1.y, q1.z, q1.w};
    double c[3] = {s0.x, s0.y, s0.z}, d[3] = {s1.x, s1.y, s1.z};
    for (int k = 0; k < 4; k++) out->q0[k] = a[k], out->q1[k] = b[k];
    for (int k = 0; k < 3; k++) out->s0[k] = c[k], out->s1[k] = d[k];
}

void orr_draw_blend_pose(const orr_draw_blend *b, const orr_affine3d *now, double lag, orr_affine3d *out)
{
    *out = *now;
    for (int k = 0; k < 3; k++) out->m[9 + k] = now->m[9 + k] + (b->t0[k] - now->m[9 + k]) * lag;
    if (!b->rigid) return; /* its current linear part */
    double q[4], s[3];
    for (int k = 0; k < 4; k++) q[k] = b->q1[k] + (b->q0[k] - b->q1[k]) * lag;
    for (int k = 0; k < 3; k++) s[k] = b->s1[k] + (b->s0[k] - b->s1[k]) * lag;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) out->m[c * 3 + k] = r[c * 3 + k] * s[c];
}

void orr_draw_motion_pose(const orr_affine3d *now, const orr_affine3d *before, double lag, orr_affine3d *out)
{
    orr_draw_blend b;
    orr_draw_blend_prepare(now, before, &b);
    orr_draw_blend_pose(&b, now, lag, out);
}
