/* Instances between ticks (orr_draw_motion): the pose a renderer draws an instance at, `lag` of the way
 * back to its earlier pose, by the vertex stage's rule (src/gpu/shaders/vertex.glsl and scatter.comp,
 * which decompose the records' linear parts in binary32; here in binary64), so that a cull tests the
 * box where it is drawn. */
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
    orr_mat4d r = {{c[0].x, c[0].y, c[0].z, 0, c[1].x, c[1].y, c[1].z, 0, c[2].x, c[2].y, c[2].z, 0, 0, 0, 0, 1}};
    orr_vec3d t, unit;
    orr_mat4d_decompose(&r, &t, q, &unit); /* (a proper rotation: its quaternion whatever the tolerance) */
    *q = orr_quatd_normalize(*q);
    *s = (orr_vec3d){len[0], len[1], len[2]};
    return true;
}

void orr_draw_motion_pose(const orr_affine3d *now, const orr_affine3d *before, double lag, orr_affine3d *out)
{
    *out = *now;
    for (int k = 0; k < 3; k++) out->m[9 + k] = now->m[9 + k] + (before->m[9 + k] - now->m[9 + k]) * lag;
    orr_quatd q1, q0;
    orr_vec3d s1, s0;
    bool both = rigid(before, &q0, &s0);
    if (!(rigid(now, &q1, &s1) && both)) return; /* its current linear part */
    double sign = q0.x * q1.x + q0.y * q1.y + q0.z * q1.z + q0.w * q1.w < 0 ? -1.0 : 1.0; /* the shorter way */
    orr_quatd q = orr_quatd_normalize((orr_quatd){q1.x + (sign * q0.x - q1.x) * lag, q1.y + (sign * q0.y - q1.y) * lag,
                                                  q1.z + (sign * q0.z - q1.z) * lag, q1.w + (sign * q0.w - q1.w) * lag});
    orr_vec3d s = {s1.x + (s0.x - s1.x) * lag, s1.y + (s0.y - s1.y) * lag, s1.z + (s0.z - s1.z) * lag};
    orr_mat4d m;
    orr_mat4d_from_trs((orr_vec3d){out->m[9], out->m[10], out->m[11]}, q, s, &m);
    orr_affine3d_from_mat4d(&m, out);
}
