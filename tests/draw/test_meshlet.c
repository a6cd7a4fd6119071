/* Meshlet culling without a GPU: the per-meshlet test (frustum sphere, normal cone) through an instance's
 * pose, checked against the triangles themselves (a culled meshlet never holds a triangle the rasteriser
 * would draw), and the meshlet strategy's CPU reference over prepared draws and retained scenes, with the
 * counts a user checks: triangles sent and kept. */
#include "draw_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    orr_assets *assets;
    orr_mesh_id sphere, floor, plain; /* plain: the sphere without meshlets */
    orr_material_id single, twosided;
} fixture;

/* A unit UV sphere, counter-clockwise seen from outside. */
static orr_mesh_id add_sphere(orr_assets *a, uint32_t stacks, uint32_t slices, bool meshlets, orr_material_id mat)
{
    uint32_t vc = (stacks + 1) * (slices + 1), ic = stacks * slices * 6;
    float *pos = malloc(vc * 12), *nrm = malloc(vc * 12);
    uint32_t *idx = malloc(ic * 4), k = 0;
    for (uint32_t i = 0, v = 0; i <= stacks; i++)
        for (uint32_t j = 0; j <= slices; j++, v++) {
            double th = ORR_PI * i / stacks, ph = 2.0 * ORR_PI * j / slices;
            pos[v * 3] = nrm[v * 3] = (float)(sin(th) * cos(ph));
            pos[v * 3 + 1] = nrm[v * 3 + 1] = (float)cos(th);
            pos[v * 3 + 2] = nrm[v * 3 + 2] = (float)(sin(th) * sin(ph));
        }
    for (uint32_t i = 0; i < stacks; i++)
        for (uint32_t j = 0; j < slices; j++) {
            uint32_t a0 = i * (slices + 1) + j, b = a0 + 1, c = a0 + slices + 1, d = c + 1;
            uint32_t t[2][3] = {{a0, b, d}, {a0, d, c}};
            for (int q = 0; q < 2; q++) {
                const float *pa = pos + t[q][0] * 3, *pb = pos + t[q][1] * 3, *pc = pos + t[q][2] * 3;
                float e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]}, e2[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
                float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
                if (n[0] * (pa[0] + pb[0] + pc[0]) + n[1] * (pa[1] + pb[1] + pc[1]) + n[2] * (pa[2] + pb[2] + pc[2]) < 0) {
                    uint32_t s = t[q][1];
                    t[q][1] = t[q][2];
                    t[q][2] = s;
                }
                idx[k++] = t[q][0], idx[k++] = t[q][1], idx[k++] = t[q][2];
            }
        }
    orr_primitive_desc p = {.vertex_count = vc, .positions = pos, .normals = nrm, .index_count = ic, .indices = idx, .material = mat};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "sphere", .primitive_count = 1, .primitives = &p,
                                                             .build_meshlets = meshlets}, &id), ORR_OK);
    free(pos);
    free(nrm);
    free(idx);
    return id;
}

/* A 40 x 40 floor at y = -1 around the origin, facing +Y. */
static orr_mesh_id add_floor(orr_assets *a, orr_material_id mat)
{
    enum { N = 40 };
    uint32_t vc = (N + 1) * (N + 1), ic = N * N * 6, k = 0;
    float *pos = malloc(vc * 12), *nrm = malloc(vc * 12);
    uint32_t *idx = malloc(ic * 4);
    for (uint32_t z = 0, v = 0; z <= N; z++)
        for (uint32_t x = 0; x <= N; x++, v++) {
            pos[v * 3] = (float)x - N / 2, pos[v * 3 + 1] = -1.0f, pos[v * 3 + 2] = (float)z - N / 2;
            nrm[v * 3] = 0, nrm[v * 3 + 1] = 1, nrm[v * 3 + 2] = 0;
        }
    for (uint32_t z = 0; z < N; z++)
        for (uint32_t x = 0; x < N; x++) {
            uint32_t i0 = z * (N + 1) + x, i1 = i0 + 1, i2 = i0 + N + 1, i3 = i2 + 1;
            /* (x, z) -> (x + 1, z) -> (x, z + 1) winds counter-clockwise seen from +Y */
            idx[k++] = i0, idx[k++] = i2, idx[k++] = i1, idx[k++] = i1, idx[k++] = i2, idx[k++] = i3;
        }
    orr_primitive_desc p = {.vertex_count = vc, .positions = pos, .normals = nrm, .index_count = ic, .indices = idx, .material = mat};
    orr_mesh_id id;
    assert_int_equal(orr_assets_add_mesh(a, &(orr_mesh_desc){.name = "floor", .primitive_count = 1, .primitives = &p,
                                                             .build_meshlets = true}, &id), ORR_OK);
    free(pos);
    free(nrm);
    free(idx);
    return id;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_int_equal(orr_assets_create(NULL, &f->assets, NULL), ORR_OK);
    orr_material m = orr_material_default();
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->single), ORR_OK);
    m.double_sided = true;
    assert_int_equal(orr_assets_add_material(f->assets, &m, &f->twosided), ORR_OK);
    f->sphere = add_sphere(f->assets, 32, 64, true, f->single);
    f->plain = add_sphere(f->assets, 32, 64, false, f->single);
    f->floor = add_floor(f->assets, f->single);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    orr_assets_destroy(f->assets);
    free(f);
    return 0;
}

/* A view from eye to target; the origin at the eye (the view matrix a rotation) or at 0. */
static orr_draw_view look(orr_vec3d eye, orr_vec3d target, bool origin_at_eye)
{
    orr_draw_view v = {.cull = true, .layer_mask = ORR_LAYERS_ALL};
    orr_mat4d_perspective_reversed_infinite(1.0, 1.0, 0.1, &v.proj);
    if (origin_at_eye) {
        v.origin = eye;
        orr_mat4d_look_at((orr_vec3d){0, 0, 0}, orr_vec3d_sub(target, eye), (orr_vec3d){0, 1, 0}, &v.view);
    } else {
        orr_mat4d_look_at(eye, target, (orr_vec3d){0, 1, 0}, &v.view);
    }
    return v;
}

static orr_affine3d pose(double sx, double sy, double sz, orr_vec3d t)
{
    orr_affine3d a;
    orr_affine3d_identity(&a);
    a.m[0] = sx, a.m[4] = sy, a.m[8] = sz;
    a.m[9] = t.x, a.m[10] = t.y, a.m[11] = t.z;
    return a;
}

static orr_vec3d xf(const orr_affine3d *a, const float *p)
{
    return orr_affine3d_transform_point(a, (orr_vec3d){p[0], p[1], p[2]});
}

static double det3(const orr_affine3d *a)
{
    const double *m = a->m;
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[3] * (m[1] * m[8] - m[2] * m[7]) + m[6] * (m[1] * m[5] - m[2] * m[4]);
}

/* Whether the rasteriser draws any triangle of meshlet k of the mesh's first primitive: seen from the
 * camera at `eye` (world), counter-clockwise is front; back faces are culled, front faces for a mirrored
 * pose, none for a double-sided material; an edge-on or degenerate triangle is not drawn. Only the
 * winding is judged, not the frustum. */
static bool meshlet_drawn(const orr_mesh *m, uint32_t k, const orr_affine3d *a, orr_vec3d eye, bool double_sided)
{
    const orr_primitive *p = &m->primitives[0];
    const orr_meshlet *ml = &m->meshlets[p->meshlet_offset + k];
    bool mirrored = det3(a) < 0;
    for (uint32_t t = 0; t < ml->triangle_count; t++) {
        orr_vec3d c[3];
        for (int q = 0; q < 3; q++)
            c[q] = xf(a, p->positions + (size_t)p->indices[ml->first_index + t * 3 + q] * 3);
        orr_vec3d g = orr_vec3d_cross(orr_vec3d_sub(c[1], c[0]), orr_vec3d_sub(c[2], c[0]));
        double facing = orr_vec3d_dot(g, orr_vec3d_sub(eye, c[0]));
        /* edge-on, or a sliver that covers no pixel (the sphere's poles: corners 1e-16 apart, a float
         * zero area, which meshoptimizer leaves out of the cone too) */
        double e = orr_vec3d_length(orr_vec3d_sub(c[1], c[0])) * orr_vec3d_length(orr_vec3d_sub(c[2], c[0]));
        if (facing == 0.0 || orr_vec3d_length(g) <= 1e-9 * e) continue;
        if (double_sided || (facing > 0.0) != mirrored) return true;
    }
    return false;
}

/* Whether a vertex of meshlet k lies strictly inside the view's frustum. */
static bool meshlet_vertex_inside(const orr_mesh *m, uint32_t k, const orr_affine3d *a, const orr_draw_view *v)
{
    const orr_primitive *p = &m->primitives[0];
    const orr_meshlet *ml = &m->meshlets[p->meshlet_offset + k];
    orr_mat4d clip;
    orr_mat4d_mul(&v->proj, &v->view, &clip);
    for (uint32_t i = 0; i < ml->vertex_count; i++) {
        orr_vec3d w = orr_vec3d_sub(xf(a, p->positions + (size_t)m->meshlet_vertices[ml->vertex_offset + i] * 3), v->origin);
        const double *c = clip.m;
        double x = c[0] * w.x + c[4] * w.y + c[8] * w.z + c[12], y = c[1] * w.x + c[5] * w.y + c[9] * w.z + c[13],
               z = c[2] * w.x + c[6] * w.y + c[10] * w.z + c[14], ww = c[3] * w.x + c[7] * w.y + c[11] * w.z + c[15];
        if (ww > 0 && fabs(x) < ww && fabs(y) < ww && z > 0 && z < ww) return true;
    }
    return false;
}

typedef struct tally {
    uint32_t visible, frustum, cone;
    uint64_t triangles, cone_triangles, frustum_triangles;
} tally;

/* Classifies every meshlet of `mesh` for one instance and checks each verdict against the triangles:
 * a meshlet with a drawn triangle is never cone-culled, one with a vertex in the frustum never
 * frustum-culled. Verdicts go to `out` when given. */
static tally check_instance(const orr_mesh *m, const orr_draw_view *v, const orr_affine3d *a, bool double_sided,
                            orr_meshlet_verdict *out)
{
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(v, ORR_MESHLET_CULL_ALL, &mv);
    orr_meshlet_instance inst;
    orr_draw_meshlet_instance_init(&mv, a, double_sided, &inst);
    orr_vec3d eye = orr_vec3d_add(v->origin, mv.camera);
    tally t = {0};
    for (uint32_t k = 0; k < m->meshlet_count; k++) {
        orr_meshlet_verdict r = orr_draw_meshlet_classify(&mv, &inst, &m->meshlet_bounds[k]);
        if (out) out[k] = r;
        uint32_t tris = m->meshlets[k].triangle_count;
        t.triangles += tris;
        if (r == ORR_MESHLET_VISIBLE) t.visible++;
        if (r == ORR_MESHLET_FRUSTUM_CULLED) {
            t.frustum++;
            t.frustum_triangles += tris;
            if (meshlet_vertex_inside(m, k, a, v)) fail_msg("meshlet %u is frustum-culled with a vertex inside the frustum", k);
        }
        if (r == ORR_MESHLET_CONE_CULLED) {
            t.cone++;
            t.cone_triangles += tris;
            if (meshlet_drawn(m, k, a, eye, double_sided)) fail_msg("meshlet %u is cone-culled and yet draws a triangle", k);
        }
    }
    return t;
}

/* A sphere seen from one side: its far half is cone-culled (and nothing that faces the camera is); the
 * verdicts are the same whether the view's origin sits at the camera or at 0, and a billion metres away. */
static void test_sphere_far_half_cone_culled(void **state)
{
    fixture *f = *state;
    const orr_mesh *m = orr_assets_try_get_mesh(f->assets, f->sphere);
    orr_affine3d id = pose(1, 1, 1, (orr_vec3d){0, 0, 0});
    orr_meshlet_verdict *a = calloc(m->meshlet_count, sizeof *a), *b = calloc(m->meshlet_count, sizeof *b),
                        *c = calloc(m->meshlet_count, sizeof *c);
    orr_draw_view v = look((orr_vec3d){0, 0, 5}, (orr_vec3d){0, 0, 0}, true);
    tally t = check_instance(m, &v, &id, false, a);
    print_message("sphere from 5 m: %u meshlets, %u cone-culled (%.0f%% of %llu triangles), %u frustum-culled\n", m->meshlet_count,
                  t.cone, 100.0 * t.cone_triangles / t.triangles, (unsigned long long)t.triangles, t.frustum);
    assert_int_equal(t.frustum, 0); /* all of it is in view */
    /* 60% of the sphere faces away from 5 m; the meshlets wholly in it are culled */
    assert_true(t.cone_triangles * 100 >= t.triangles * 35);
    /* every meshlet of the near cap (wholly facing the camera) is kept */
    for (uint32_t k = 0; k < m->meshlet_count; k++)
        if (m->meshlet_bounds[k].center[2] > 0.2f) assert_int_equal(a[k], ORR_MESHLET_VISIBLE);
    orr_draw_view w = look((orr_vec3d){0, 0, 5}, (orr_vec3d){0, 0, 0}, false);
    check_instance(m, &w, &id, false, b);
    assert_memory_equal(a, b, m->meshlet_count * sizeof *a);
    orr_vec3d far = {1.0e9, -2.0e8, 3.0e9};
    orr_affine3d moved = pose(1, 1, 1, far);
    orr_draw_view x = look(orr_vec3d_add(far, (orr_vec3d){0, 0, 5}), far, true);
    check_instance(m, &x, &moved, false, c);
    assert_memory_equal(a, c, m->meshlet_count * sizeof *a);
    /* a double-sided material draws the far half too: no cone culling */
    tally two = check_instance(m, &v, &id, true, NULL);
    assert_int_equal(two.cone, 0);
    /* the flags: frustum only */
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(&v, ORR_MESHLET_CULL_FRUSTUM, &mv);
    orr_meshlet_instance inst;
    orr_draw_meshlet_instance_init(&mv, &id, false, &inst);
    assert_false(inst.cone);
    free(a);
    free(b);
    free(c);
}

/* A floor around the camera: the meshlets behind it are frustum-culled, none with a vertex in view is;
 * seen from below, every meshlet in view is cone-culled. */
static void test_frustum_behind_camera(void **state)
{
    fixture *f = *state;
    const orr_mesh *m = orr_assets_try_get_mesh(f->assets, f->floor);
    orr_affine3d id = pose(1, 1, 1, (orr_vec3d){0, 0, 0});
    orr_draw_view v = look((orr_vec3d){0, 0, 0}, (orr_vec3d){0, 0, -1}, true);
    tally t = check_instance(m, &v, &id, false, NULL);
    print_message("floor around the camera: %u meshlets, %u frustum-culled (%.0f%% of the triangles), %u cone-culled\n",
                  m->meshlet_count, t.frustum, 100.0 * t.frustum_triangles / t.triangles, t.cone);
    assert_true(t.frustum_triangles * 2 >= t.triangles); /* the half behind, and what is beside the view */
    assert_int_equal(t.cone, 0); /* the floor faces the camera above it */
    assert_true(t.visible > 0);
    /* a meshlet wholly behind the camera: its sphere is beyond the near plane */
    uint32_t behind = 0;
    for (uint32_t k = 0; k < m->meshlet_count; k++) {
        const orr_meshlet_bounds *b = &m->meshlet_bounds[k];
        if (b->center[2] - b->radius > 0.0f) {
            behind++;
            orr_meshlet_view mv;
            orr_draw_meshlet_view_init(&v, ORR_MESHLET_CULL_ALL, &mv);
            orr_meshlet_instance inst;
            orr_draw_meshlet_instance_init(&mv, &id, false, &inst);
            assert_int_equal(orr_draw_meshlet_classify(&mv, &inst, b), ORR_MESHLET_FRUSTUM_CULLED);
        }
    }
    assert_true(behind > 0);
    /* from below (y = -3, looking down the floor at a slant) every meshlet in view faces away */
    orr_draw_view below = look((orr_vec3d){0, -3, 0}, (orr_vec3d){0, -1.5, -10}, true);
    tally u = check_instance(m, &below, &id, false, NULL);
    print_message("floor from below: %u visible, %u cone-culled, %u frustum-culled\n", u.visible, u.cone, u.frustum);
    assert_int_equal(u.visible, 0);
    assert_true(u.cone > 0);
}

static orr_affine3d rotated(double angle, orr_vec3d axis, double s, orr_vec3d t)
{
    orr_mat4d m;
    orr_mat4d_from_trs(t, orr_quatd_from_axis_angle(axis, angle), (orr_vec3d){s, s, s}, &m);
    orr_affine3d a;
    orr_affine3d_from_mat4d(&m, &a);
    return a;
}

/* Instance poses: rotations, uniform scales and mirrors keep the cone test (and it stays right: culled
 * meshlets draw nothing, with mirrored instances drawn front faces culled); a non-uniform scale or a shear
 * turns it off (frustum only), and the test shows why: the cone carried naively through such a pose culls
 * meshlets that are drawn. */
static void test_instance_poses(void **state)
{
    fixture *f = *state;
    const orr_mesh *m = orr_assets_try_get_mesh(f->assets, f->sphere);
    orr_draw_view v = look((orr_vec3d){0, 0, 12}, (orr_vec3d){0, 0, 0}, true);
    struct {
        const char *name;
        orr_affine3d a;
        bool similar;
    } cases[] = {
        {"identity", pose(1, 1, 1, (orr_vec3d){0, 0, 0}), true},
        {"mirror x", pose(-1, 1, 1, (orr_vec3d){0.5, 0, 0}), true},
        {"mirror z", pose(1, 1, -1, (orr_vec3d){0, 0.5, 0}), true},
        {"point mirror", pose(-2, -2, -2, (orr_vec3d){0, 0, 0}), true},
        {"rotated, scale 3", rotated(0.7, (orr_vec3d){1, 2, 3}, 3.0, (orr_vec3d){1, 0, -2}), true},
        {"scale 1 1 4", pose(1, 1, 4, (orr_vec3d){0, 0, 0}), false},
        {"scale 3 1 1, mirrored", pose(-3, 1, 1, (orr_vec3d){0, 0, 0}), false},
        {"shear", pose(1, 1, 1, (orr_vec3d){0, 0, 0}), false},
    };
    cases[7].a.m[3] = 0.8; /* x += 0.8 y */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(orr_draw_meshlet_pose_similar(&cases[i].a), cases[i].similar);
        tally t = check_instance(m, &v, &cases[i].a, false, NULL);
        print_message("  %-22s cone-culled %u of %u meshlets\n", cases[i].name, t.cone, m->meshlet_count);
        if (cases[i].similar) assert_true(t.cone * 4 >= m->meshlet_count);
        else assert_int_equal(t.cone, 0);
    }
    /* the radius scale bounds the stretch: exact for scales, never below the largest for a shear */
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(&v, ORR_MESHLET_CULL_ALL, &mv);
    orr_meshlet_instance inst;
    orr_draw_meshlet_instance_init(&mv, &cases[6].a, false, &inst);
    assert_true(fabs(inst.radius_scale - 3.0) < 1e-12);
    orr_draw_meshlet_instance_init(&mv, &cases[7].a, false, &inst);
    assert_true(inst.radius_scale >= (0.8 + sqrt(0.64 + 4)) / 2 - 1e-12); /* the shear's largest singular value */

    /* why the cone is not carried through a non-uniform scale: forced on, it culls drawn meshlets */
    uint64_t seed = 99;
    uint32_t wrong = 0;
    orr_affine3d squash = pose(1, 1, 0.2, (orr_vec3d){0, 0, 0});
    for (int cam = 0; cam < 200 && !wrong; cam++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        double az = (double)(seed % 6283) / 1000.0, el = (double)((seed >> 16) % 3000) / 1000.0 - 1.5;
        orr_vec3d eye = {6 * cos(el) * cos(az), 6 * sin(el), 6 * cos(el) * sin(az)};
        orr_draw_view w = look(eye, (orr_vec3d){0, 0, 0}, true);
        orr_draw_meshlet_view_init(&w, ORR_MESHLET_CULL_CONE, &mv);
        orr_draw_meshlet_instance_init(&mv, &squash, false, &inst);
        assert_false(inst.cone);
        inst.cone = true; /* what the header refuses to do */
        for (uint32_t k = 0; k < m->meshlet_count; k++)
            if (orr_draw_meshlet_classify(&mv, &inst, &m->meshlet_bounds[k]) == ORR_MESHLET_CONE_CULLED &&
                meshlet_drawn(m, k, &squash, eye, false))
                wrong++;
    }
    print_message("a naive cone through scale 1 1 0.2 culls %u drawn meshlets\n", wrong);
    assert_true(wrong > 0);
}

static orr_render_instance instance_at(uint32_t id, orr_mesh_id mesh, orr_affine3d a, const orr_assets *assets)
{
    const orr_mesh *m = orr_assets_try_get_mesh(assets, mesh);
    orr_render_instance in = {.id = id, .mesh = mesh, .layers = 1, .visible = true, .world = a};
    in.bounds = (orr_aabbf){{(float)m->bounds.min.x, (float)m->bounds.min.y, (float)m->bounds.min.z},
                            {(float)m->bounds.max.x, (float)m->bounds.max.y, (float)m->bounds.max.z}};
    return in;
}

/* The strategy's reference over a prepared list: a ring of spheres around the camera (half behind it),
 * one skinned, one without meshlets; survivors are exactly what orr_draw_meshlet_classify keeps, the counts
 * add up, and the retained scene's cull gives the same draws and survivors. */
static void test_cull_list_reference(void **state)
{
    fixture *f = *state;
    enum { N = 24 };
    orr_render_instance in[N];
    orr_affine3d joints[2];
    orr_affine3d_identity(&joints[0]);
    orr_affine3d_identity(&joints[1]);
    for (uint32_t i = 0; i < N; i++) {
        double ang = 2.0 * ORR_PI * i / N;
        orr_mesh_id mesh = i == 23 ? f->plain : f->sphere;
        in[i] = instance_at(i, mesh, pose(1, 1, 1, (orr_vec3d){8 * sin(ang), 0, -8 * cos(ang)}), f->assets);
    }
    in[1].joint_count = 2; /* skinned: the indexed path */
    orr_snapshot s = {.instance_count = N, .instances = in, .joint_count = 2, .joints = joints};
    orr_draw_view v = look((orr_vec3d){0, 0, 0}, (orr_vec3d){0, 0, -1}, true);
    orr_draw_list list;
    orr_draw_list_init(&list, NULL);
    assert_int_equal(orr_draw_prepare(&list, &s, f->assets, &v), ORR_OK);
    orr_meshlet_list ml;
    orr_draw_meshlet_list_init(&ml, NULL);
    assert_int_equal(orr_draw_meshlet_cull_list(&ml, &list, &s, f->assets, &v, ORR_MESHLET_CULL_ALL), ORR_OK);
    assert_int_equal(ml.draw_count, list.draw_count);
    const orr_meshlet_stats *st = &ml.stats;
    assert_int_equal(st->draws, list.draw_count);
    const orr_mesh *sphere = orr_assets_try_get_mesh(f->assets, f->sphere);
    uint32_t sphere_tris = sphere->primitives[0].index_count / 3;
    uint64_t sent = 0, kept = 0;
    bool saw_skinned = false, saw_plain = false;
    orr_meshlet_view mv;
    orr_draw_meshlet_view_init(&v, ORR_MESHLET_CULL_ALL, &mv);
    for (uint32_t k = 0; k < ml.draw_count; k++) {
        const orr_meshlet_draw *d = &ml.draws[k];
        assert_int_equal(d->instance, list.draws[d->draw].instance);
        if (d->instance == 1) {
            saw_skinned = true;
            assert_int_equal(d->path, ORR_MESHLET_PATH_SKINNED);
            assert_int_equal(d->meshlet_count, 0);
            continue;
        }
        if (d->instance == 23) {
            saw_plain = true;
            assert_int_equal(d->path, ORR_MESHLET_PATH_NO_MESHLETS);
            continue;
        }
        assert_int_equal(d->path, ORR_MESHLET_PATH_MESHLETS);
        assert_int_equal(d->meshlet_count, sphere->meshlet_count);
        assert_int_equal(d->triangles_sent, sphere_tris);
        assert_true(d->cone);
        orr_meshlet_instance inst;
        orr_draw_meshlet_instance_init(&mv, &in[d->instance].world, false, &inst);
        uint32_t j = d->first, tri = 0;
        for (uint32_t q = 0; q < d->meshlet_count; q++) {
            uint32_t mk = d->meshlet_offset + q;
            if (orr_draw_meshlet_visible(&mv, &inst, &sphere->meshlet_bounds[mk])) {
                assert_true(j < d->first + d->count);
                assert_int_equal(ml.visible[j++], mk);
                tri += sphere->meshlets[mk].triangle_count;
            }
        }
        assert_int_equal(j, d->first + d->count);
        assert_int_equal(d->triangles_kept, tri);
        sent += d->triangles_sent;
        kept += d->triangles_kept;
    }
    /* the instance cull sends only the spheres in view; of theirs, about a third reaches the rasteriser */
    print_message("ring of %u spheres: %u draws, %u by meshlets; triangles sent %llu, kept %llu (%.0f%%), indexed %llu; "
                  "meshlets %llu sent, %llu frustum-culled, %llu cone-culled\n",
                  N, st->draws, st->meshlet_draws, (unsigned long long)st->triangles_sent, (unsigned long long)st->triangles_kept,
                  100.0 * st->triangles_kept / st->triangles_sent, (unsigned long long)st->triangles_indexed,
                  (unsigned long long)st->meshlets_sent, (unsigned long long)st->frustum_culled,
                  (unsigned long long)st->cone_culled);
    assert_true(saw_skinned && saw_plain);
    assert_int_equal(st->indexed_skinned, 1);
    assert_int_equal(st->indexed_no_meshlets, 1);
    assert_int_equal(st->cone_skipped, 0);
    assert_true(st->triangles_indexed == 2ull * sphere_tris);
    assert_true(st->triangles_sent == sent && st->triangles_kept == kept);
    assert_true(st->meshlets_sent == st->meshlets_kept + st->frustum_culled + st->cone_culled);
    assert_true(st->triangles_kept * 2 < st->triangles_sent);
    assert_true(st->frustum_culled > 0 && st->cone_culled > 0);
    assert_true(st->draws < N); /* the instance cull removed the spheres behind the camera */

    /* the retained scene's cull: the same draws, the same survivors */
    orr_draw_scene scene;
    orr_draw_visible vis;
    orr_meshlet_list ml2;
    orr_draw_scene_init(&scene, NULL);
    orr_draw_visible_init(&vis, NULL);
    orr_draw_meshlet_list_init(&ml2, NULL);
    assert_int_equal(orr_draw_scene_build(&scene, &s, f->assets, ORR_ORDER_HIERARCHY), ORR_OK);
    assert_int_equal(orr_draw_scene_cull(&scene, &s, &v, &vis), ORR_OK);
    assert_int_equal(orr_draw_meshlet_cull_visible(&ml2, &scene, &vis, &s, f->assets, &v, ORR_MESHLET_CULL_ALL), ORR_OK);
    assert_int_equal(ml2.draw_count, ml.draw_count);
    for (uint32_t k = 0; k < ml.draw_count; k++) {
        const orr_meshlet_draw *a = &ml.draws[k], *b = &ml2.draws[k];
        assert_int_equal(a->instance, b->instance);
        assert_int_equal(a->path, b->path);
        assert_int_equal(a->count, b->count);
        assert_memory_equal(ml.visible + a->first, ml2.visible + b->first, a->count * sizeof(uint32_t));
        assert_int_equal(vis.items[b->draw], b->instance);
    }
    assert_memory_equal(&ml.stats, &ml2.stats, sizeof ml.stats);

    /* culling off: everything sent is kept */
    assert_int_equal(orr_draw_meshlet_cull_list(&ml, &list, &s, f->assets, &v, 0), ORR_OK);
    assert_true(ml.stats.triangles_kept == ml.stats.triangles_sent);
    assert_int_equal(ml.stats.cone_skipped, ml.stats.meshlet_draws);
    orr_draw_meshlet_list_fini(&ml);
    orr_draw_meshlet_list_fini(&ml2);
    orr_draw_scene_fini(&scene);
    orr_draw_visible_fini(&vis);
    orr_draw_list_fini(&list);
    orr_draw_meshlet_list_fini(NULL);
}

int orrt_draw_meshlets(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sphere_far_half_cone_culled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frustum_behind_camera, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instance_poses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cull_list_reference, setup, teardown),
    };
    return cmocka_run_group_tests_name("draw: meshlets", tests, NULL, NULL);
}
