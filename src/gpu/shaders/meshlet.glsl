// The meshlet strategy's bindings and its per-meshlet test, shared by the compute stages
// (meshlet.comp, set 0), the task shader and the mesh shader (meshlet.task, meshlet.mesh: set 2, beside
// the scene's set 0 and the textures' set 1). Define ORR_MESHLET_SET before including.
#extension GL_GOOGLE_include_directive : require
#include "gpu_shared.h"

layout(set = ORR_MESHLET_SET, binding = 0, std140) uniform MeshletViewBlock { orr_gpu_meshlet_view u_ml; };
layout(set = ORR_MESHLET_SET, binding = 1, std430) readonly buffer MeshletBuffer { orr_gpu_meshlet ml_meshlets[]; };
layout(set = ORR_MESHLET_SET, binding = 2, std430) readonly buffer MeshletBoundsBuffer { orr_gpu_meshlet_bounds ml_bounds[]; };
layout(set = ORR_MESHLET_SET, binding = 3, std430) readonly buffer MeshletVertexBuffer { uint ml_vertices[]; };
layout(set = ORR_MESHLET_SET, binding = 4, std430) readonly buffer MeshletTriangleBuffer { uint ml_triangles[]; };
layout(set = ORR_MESHLET_SET, binding = 5, std430) readonly buffer PoolVertexBuffer { uint ml_pool[]; };
layout(set = ORR_MESHLET_SET, binding = 6, std430) readonly buffer MeshletDrawBuffer { orr_gpu_meshlet_draw ml_draws[]; };
layout(set = ORR_MESHLET_SET, binding = 7, std430) readonly buffer MeshletTaskBuffer { orr_gpu_meshlet_task ml_tasks[]; };
layout(set = ORR_MESHLET_SET, binding = 8, std430) readonly buffer ViewCommandBuffer { uint ml_commands[]; };
layout(set = ORR_MESHLET_SET, binding = 9, std430) buffer MeshletDataBuffer { uint ml_data[]; };
layout(set = ORR_MESHLET_SET, binding = 10, std430) readonly buffer MeshletInstanceBuffer { orr_gpu_instance ml_instances[]; };
layout(set = ORR_MESHLET_SET, binding = 11, std430) readonly buffer ViewRecordBuffer { orr_gpu_record ml_records[]; };
layout(set = ORR_MESHLET_SET, binding = 12, std430) readonly buffer MeshletMotionBuffer { orr_gpu_motion ml_motions[]; };

// Whether the instance in `slot` is drawn between two poses in this frame (its motion is at the view's
// tick, u_ml.origin_lo.w, as vertex.glsl tests it; ORR_GPU_VIEW_NO_BLEND at lag 0): its meshlets are
// all kept then, since the tests below are of its record's pose (the instance itself was culled at
// the blended pose, cull.comp).
bool orr_meshlet_blended(uint slot) { return ml_motions[slot].tick == floatBitsToUint(u_ml.origin_lo.w); }

// Word k of the view's indexed command c (VkDrawIndexedIndirectCommand: index count, instance count,
// first index, vertex offset, first instance).
uint orr_meshlet_command(uint c, uint k) { return ml_commands[u_ml.regions.z + c * 5u + k]; }

// Adds the 64-bit value (hi, lo) to the counter at `at` (low word, high word) of the view's counters.
void orr_meshlet_add64(uint at, uint hi, uint lo)
{
    uint i = u_ml.extra.x + at;
    uint old = atomicAdd(ml_data[i], lo);
    uint carry = old + lo < old ? 1u : 0u;
    if (hi + carry != 0u) atomicAdd(ml_data[i + 1u], hi + carry);
}

// Whether meshlet m of an instance survives the view: orr_draw_meshlet_classify's frustum and cone tests
// (orrery/draw.h) in binary32, relative to the view origin, widened so that rounding can only keep a
// meshlet the binary64 test would cull, never cull one that has a pixel on screen: the sphere by a
// relative 1e-5 (and the cull's plane slack), the cone's cutoff by 1e-4. `cone`: the material is
// single-sided. The pose must be a similarity for the cone test, as in the reference, but within a
// relative 1e-5 rather than 1e-6 (the float matrix of an exact rotation is off by a few 1e-7): a stretch
// that small turns a normal by about 1e-5 radians, which the cutoff's margin covers. Everything is
// `precise`, so that the compute stage and the task shader agree.
bool orr_meshlet_keep(orr_gpu_instance inst, uint m, bool cone)
{
    orr_gpu_meshlet_bounds b = ml_bounds[m];
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2], inst.linear[3], inst.linear[4],
                       inst.linear[5], inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    precise vec3 offset = (t_hi - u_ml.origin_hi.xyz) + (t_lo - u_ml.origin_lo.xyz);
    // The Gram matrix of the columns, L^T L.
    precise vec3 g0 = vec3(dot(linear[0], linear[0]), dot(linear[0], linear[1]), dot(linear[0], linear[2]));
    precise vec3 g1 = vec3(dot(linear[1], linear[0]), dot(linear[1], linear[1]), dot(linear[1], linear[2]));
    precise vec3 g2 = vec3(dot(linear[2], linear[0]), dot(linear[2], linear[1]), dot(linear[2], linear[2]));
    if ((u_ml.sizes.z & ORR_GPU_MESHLET_CULL_FRUSTUM) != 0u) {
        precise vec3 c = linear * vec3(b.center[0], b.center[1], b.center[2]) + offset;
        // how much the linear part stretches a length, at most: the square root of the largest row sum
        // of |L^T L| (as the draw module's radius_scale)
        precise float rows = max(max(abs(g0.x) + abs(g0.y) + abs(g0.z), abs(g1.x) + abs(g1.y) + abs(g1.z)),
                                 abs(g2.x) + abs(g2.y) + abs(g2.z));
        precise float r = b.radius * sqrt(rows) * (1.0 + 1e-5);
        for (int p = 0; p < 5; p++) {
            vec4 pl = u_ml.planes[p];
            precise float along = dot(pl.xyz, c);
            precise float slack = 1e-5 * (abs(along) + abs(pl.w) + r);
            precise float d = along + pl.w;
            if (d < -r - slack) return false;
        }
    }
    precise float s2 = (g0.x + g1.y + g2.z) / 3.0, tol = 1e-5 * s2;
    bool similar = s2 > 0.0 && abs(g0.x - s2) <= tol && abs(g1.y - s2) <= tol && abs(g2.z - s2) <= tol &&
                   abs(g0.y) <= tol && abs(g0.z) <= tol && abs(g1.z) <= tol;
    if (cone && similar && (u_ml.sizes.z & ORR_GPU_MESHLET_CULL_CONE) != 0u && b.cone_cutoff < 1.0) {
        precise vec3 axis = linear * vec3(b.cone_axis[0], b.cone_axis[1], b.cone_axis[2]);
        precise float axis_length = length(axis);
        if (axis_length > 0.0) {
            precise float cutoff = (b.cone_cutoff + 1e-4) * axis_length;
            if (u_ml.forward.w != 0.0) { // orthographic: one direction for every meshlet
                precise float facing = dot(u_ml.forward.xyz, axis);
                if (facing >= cutoff) return false;
            } else { // perspective: the camera is at the view origin
                precise vec3 apex = linear * vec3(b.cone_apex[0], b.cone_apex[1], b.cone_apex[2]) + offset;
                precise float apex_length = length(apex);
                precise float facing = dot(apex, axis);
                if (apex_length > 0.0 && facing >= cutoff * apex_length) return false;
            }
        }
    }
    return true;
}
