#version 450
// The meshlet strategy's compute stages, per meshlet view (the stage is specialization constant 0):
//   tasks   (mesh shaders) per task command its workgroup count (the records of its draw's indexed
//           command x the draw's chunks, less the task command's base, at most the limit); per draw the
//           sent counts (or, for draws of the indexed path, their records and triangles)
//   expand  (the fallback) per slot, record-major: the indexed command of one record's meshlet (its index
//           range, the record as first instance) when the meshlet survives the view's test, zero counts
//           when it does not or the record is past the command's instance count; an indexed draw's one
//           slot is its indexed command as it is. Counts what it sent and kept.
#define ORR_MESHLET_SET 0
#include "meshlet.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const uint STAGE = ORR_GPU_MESHLET_TASKS;

// The workgroup's sums before one atomic add each: sent, kept, triangles sent, triangles kept.
shared uint s_sum[4];

void count_indexed(orr_gpu_meshlet_draw d, uint records)
{
    uint reason = (d.flags >> 8u) & 0xffu;
    if (records == 0u) return;
    atomicAdd(ml_data[u_ml.extra.x + ORR_GPU_MESHLET_COUNT_INDEXED + reason], records);
    uint hi, lo;
    umulExtended(records, d.triangles, hi, lo);
    orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_TRIANGLES_INDEXED, hi, lo);
}

// The draw whose slots hold slot s: the last with first <= s (draws without slots share the next one's
// first and are passed over).
uint draw_of_slot(uint s)
{
    uint lo = 0u, hi = u_ml.sizes.x - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (ml_draws[u_ml.regions.x + mid].first <= s) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (STAGE == ORR_GPU_MESHLET_TASKS) {
        if (i < u_ml.sizes.y) {
            orr_gpu_meshlet_task task = ml_tasks[u_ml.regions.y + i];
            orr_gpu_meshlet_draw d = ml_draws[u_ml.regions.x + task.draw];
            uint hi, lo;
            umulExtended(orr_meshlet_command(d.command, 1u), d.chunks, hi, lo);
            uint limit = u_ml.extra.y;
            uint x = hi != 0u ? limit : lo > task.group_base ? min(lo - task.group_base, limit) : 0u;
            uint at = u_ml.regions.w + i * 3u; // VkDrawMeshTasksIndirectCommandEXT
            ml_data[at] = x;
            ml_data[at + 1u] = 1u;
            ml_data[at + 2u] = 1u;
        }
        if (i < u_ml.sizes.x) {
            orr_gpu_meshlet_draw d = ml_draws[u_ml.regions.x + i];
            uint records = orr_meshlet_command(d.command, 1u);
            if ((d.flags & ORR_GPU_MESHLET_SKIP) != 0u) {
                // the payload's adapter draws and counts it
            } else if ((d.flags & ORR_GPU_MESHLET_INDEXED) != 0u) {
                count_indexed(d, records);
            } else if (records > 0u) {
                uint hi, lo;
                umulExtended(records, d.meshlet_count, hi, lo);
                orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_SENT, hi, lo);
                umulExtended(records, d.triangles, hi, lo);
                orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_TRIANGLES_SENT, hi, lo);
            }
        }
        return;
    }
    // expand
    uint t = gl_LocalInvocationID.x;
    if (t < 4u) s_sum[t] = 0u;
    barrier();
    if (i < u_ml.sizes.y) {
        uint di = draw_of_slot(i);
        orr_gpu_meshlet_draw d = ml_draws[u_ml.regions.x + di];
        uint at = u_ml.regions.w + i * 5u; // VkDrawIndexedIndirectCommand
        uint c[5];
        for (uint k = 0u; k < 5u; k++) c[k] = orr_meshlet_command(d.command, k);
        if ((d.flags & ORR_GPU_MESHLET_INDEXED) != 0u) {
            for (uint k = 0u; k < 5u; k++) ml_data[at + k] = c[k];
            count_indexed(d, c[1]);
        } else {
            uint local = i - d.first, record = local / d.meshlet_count, m = d.meshlet_first + local % d.meshlet_count;
            uint out_count = 0u, out_first = 0u;
            if (record < c[1]) {
                orr_gpu_meshlet ml = ml_meshlets[m];
                uint triangles = ml.counts >> 8u;
                atomicAdd(s_sum[0], 1u);
                atomicAdd(s_sum[2], triangles);
                orr_gpu_record rec = ml_records[u_ml.sizes.w + c[4] + record];
                if (orr_meshlet_blended(rec.instance) ||
                    orr_meshlet_keep(ml_instances[rec.instance], m, (d.flags & ORR_GPU_MESHLET_CONE) != 0u)) {
                    atomicAdd(s_sum[1], 1u);
                    atomicAdd(s_sum[3], triangles);
                    out_count = triangles * 3u;
                    out_first = c[2] + ml.first_index;
                }
            }
            ml_data[at] = out_count;
            ml_data[at + 1u] = out_count != 0u ? 1u : 0u;
            ml_data[at + 2u] = out_first;
            ml_data[at + 3u] = out_count != 0u ? c[3] : 0u;
            ml_data[at + 4u] = out_count != 0u ? c[4] + record : 0u;
        }
    }
    barrier();
    if (t == 0u) {
        if (s_sum[0] != 0u) orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_SENT, 0u, s_sum[0]);
        if (s_sum[1] != 0u) orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_KEPT, 0u, s_sum[1]);
        if (s_sum[2] != 0u) orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_TRIANGLES_SENT, 0u, s_sum[2]);
        if (s_sum[3] != 0u) orr_meshlet_add64(ORR_GPU_MESHLET_COUNT_TRIANGLES_KEPT, 0u, s_sum[3]);
    }
}
