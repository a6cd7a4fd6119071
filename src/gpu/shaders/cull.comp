#version 450
// The GPU cull of one view: the retained draw scene's items (before the transparent pass) are tested
// against the view (visible flag, layer mask, frustum) and the visible ones' records written packed, in
// item order (per batch the reverse where the view's bits say so: last_first), so that each batch's
// visible records are contiguous; then each batch's indirect command gets its instance count and first
// instance. Four dispatches, so that the order is the items' (deterministic, and what the CPU cull
// writes) without atomics on the outputs
// (one pipeline per stage, chosen by the specialization constant STAGE):
//   count    per block of ORR_GPU_CULL_BLOCK items (one per thread): a visibility bit each, the block's count
//   scan     one workgroup: the exclusive prefix of the block counts (in place) and the total
//   compact  per block: each visible item's record at prefix(block) + its rank in the block
//   commands per batch: prefix(first) and prefix(first + count) from the bits
#extension GL_GOOGLE_include_directive : require
#include "gpu_shared.h"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std140) uniform CullBlock { orr_gpu_cull u_cull; };
layout(set = 0, binding = 1, std430) readonly buffer InstanceBuffer { orr_gpu_instance instances[]; };
layout(set = 0, binding = 2, std430) readonly buffer ItemBuffer { orr_gpu_draw_item items[]; };
layout(set = 0, binding = 3, std430) readonly buffer BatchBuffer { orr_gpu_batch batches[]; };
layout(set = 0, binding = 4, std430) buffer ViewWords { uint words[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ViewRecords { orr_gpu_record records[]; };
#include "cull_motion.glsl" // binding 6: each slot's earlier pose, for the frames between ticks
// The stage: one pipeline each (a specialization constant, so that each stage's code is straight-line,
// its barriers in uniform control flow that the compiler can see).
layout(constant_id = 0) const uint STAGE = ORR_GPU_CULL_COUNT;

shared uint s_words[8];
shared uint s_scan[256];
shared uint s_counts[ORR_GPU_CULL_INSTANCE_WORDS];
// How far visible() got with the item (for the instance counts): 0 not shown by the view (its range, flag
// or layers), 1 shown but outside the frustum, 2 in the frustum.
uint g_reach = 0u;

// Levels of detail: whether batch b's level is the one the instance shows (orr_draw_lod_pick, whose
// binary32 arithmetic this repeats term by term, `precise` so that nothing is fused or reordered): the
// coarsest level whose error x the instance's largest axis scale is within lod.x x the distance to
// the nearest point of its box's bounding sphere (lod.x alone when orthographic). Every batch of a mesh
// without levels passes. The block's values are mixed with a batch value (a zero the compiler cannot
// prove): lavapipe (Mesa 22.3) specialises a shader on a condition of uniform values alone, compiling
// and leaking a new one at each bind where that folds much of it away (levels off: all of this).
bool lod_selected(orr_gpu_instance inst, orr_gpu_batch b)
{
    float zero = min(b.lod_error, 0.0); // errors are >= 0
    float k = u_cull.lod.x + zero, perspective = u_cull.lod.y + zero;
    vec3 lo = vec3(b.bounds_min[0], b.bounds_min[1], b.bounds_min[2]);
    vec3 hi = vec3(b.bounds_max[0], b.bounds_max[1], b.bounds_max[2]);
    vec3 c0 = vec3(inst.linear[0], inst.linear[1], inst.linear[2]);
    vec3 c1 = vec3(inst.linear[3], inst.linear[4], inst.linear[5]);
    vec3 c2 = vec3(inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    precise vec3 off = (t_hi - u_cull.origin_hi.xyz) + (t_lo - u_cull.origin_lo.xyz);
    precise vec3 c = (lo + hi) * 0.5;
    precise vec3 h = (hi - lo) * 0.5;
    precise vec3 ce = ((c0 * c.x + c1 * c.y) + c2 * c.z) + off;
    precise vec3 he = (abs(c0) * h.x + abs(c1) * h.y) + abs(c2) * h.z;
    precise float cc = (ce.x * ce.x + ce.y * ce.y) + ce.z * ce.z;
    precise float rr = (he.x * he.x + he.y * he.y) + he.z * he.z;
    precise float s0 = (c0.x * c0.x + c0.y * c0.y) + c0.z * c0.z;
    precise float s1 = (c1.x * c1.x + c1.y * c1.y) + c1.z * c1.z;
    precise float s2 = (c2.x * c2.x + c2.y * c2.y) + c2.z * c2.z;
    precise float s = sqrt(max(max(s0, s1), s2));
    precise float d = max(sqrt(cc) - sqrt(rr), 0.0);
    precise float allowed = perspective != 0.0 ? k * d : k;
    precise float e_fine = b.lod_error * s;
    precise float e_next = b.lod_next * s;
    bool fine = e_fine <= allowed;
    bool next_fine = b.lod_next >= 0.0 && e_next <= allowed;
    bool plain = b.lod == 0u && b.lod_next < 0.0;
    return plain || (k < 0.0 ? b.lod == 0u : (fine && !next_fine));
}

// Visibility ranges: the view's verdicts (with their hysteresis, made on the CPU for the instances that
// have a range) as a bit per instance slot from word extra.w - 1 of the view data; extra.w 0: none.
bool out_of_range(uint slot)
{
    uint at = u_cull.extra.w + (slot >> 31u); // slots are below 2^31: not the block's value alone (lod_selected)
    if (at == 0u) return false;
    return ((words[at - 1u + slot / 32u] >> (slot % 32u)) & 1u) != 0u;
}

bool visible(uint item)
{
    orr_gpu_draw_item it = items[u_cull.scene.x + item];
    if (out_of_range(it.instance)) return false;
    orr_gpu_instance inst = instances[it.instance];
    uint need = ORR_GPU_INSTANCE_VISIBLE | u_cull.extra.z; // a shadow view: casters only
    if ((inst.flags & need) != need || (inst.layers & u_cull.sizes.w) == 0u) return false;
    g_reach = 1u;
    orr_gpu_batch b = batches[u_cull.scene.y + (it.batch & ~ORR_GPU_ITEM_LEAD)];
    vec3 lo = vec3(b.bounds_min[0], b.bounds_min[1], b.bounds_min[2]);
    vec3 hi = vec3(b.bounds_max[0], b.bounds_max[1], b.bounds_max[2]);
    mat3 linear = mat3(inst.linear[0], inst.linear[1], inst.linear[2], inst.linear[3], inst.linear[4],
                       inst.linear[5], inst.linear[6], inst.linear[7], inst.linear[8]);
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    // The box relative to the view origin (high minus high first, as the vertex shader does).
    precise vec3 offset = (t_hi - u_cull.origin_hi.xyz) + (t_lo - u_cull.origin_lo.xyz);
    float travel = cull_motion_blend(it.instance, offset, linear); // between ticks: where it is drawn
    vec3 centre = linear * ((lo + hi) * 0.5) + offset;
    vec3 half_extent = abs(linear[0]) * ((hi.x - lo.x) * 0.5) + abs(linear[1]) * ((hi.y - lo.y) * 0.5) +
                       abs(linear[2]) * ((hi.z - lo.z) * 0.5);
    for (int p = 0; p < 5; p++) {
        vec4 pl = u_cull.planes[p];
        float d = dot(pl.xyz, centre) + pl.w;
        float r = dot(abs(pl.xyz), half_extent);
        // Conservative: a box the binary64 reference keeps is kept here too, whatever float rounding
        // did (a kept box that is in fact outside draws no pixel).
        float slack = 1e-5 * (abs(dot(pl.xyz, centre)) + abs(pl.w) + r + travel);
        if (d + r < -slack) return false;
    }
    g_reach = 2u;
    return lod_selected(inst, b); // (levels: chosen at the record's pose, as the CPU cull chooses them)
}

// The batch's visible draws and their triangles into its level's counters (after the batches' uint).
void lod_count(orr_gpu_batch batch, uint n)
{
    if (n == 0u) return;
    uint level = min(batch.lod, ORR_GPU_LODS - 1u), base = u_cull.extra.y + 1u;
    atomicAdd(words[base + level], n);
    uint hi, lo;
    umulExtended(n, batch.index_count / 3u, hi, lo);
    uint at = base + ORR_GPU_LODS + 2u * level;
    uint old = atomicAdd(words[at], lo);
    uint carry = old + lo < old ? 1u : 0u;
    if (hi + carry != 0u) atomicAdd(words[at + 1u], hi + carry);
}

#ifdef ORR_CULL_OCCLUSION
#include "occlusion.glsl" // the count stage of a view that culls by occlusion too
#endif

// Where the instance counts are in the view's words: the totals, then each block's.
uint instance_words() { return u_cull.extra.y + 1u + ORR_GPU_CULL_LOD_WORDS; }

// Whether batch b's visible items are listed last item first (the CPU's choice for the view, near
// things first: orr_draw_visible.last_first), a bit per batch from word order.x - 1; order.x 0: none.
bool last_first(uint b)
{
    uint at = u_cull.order.x + (b >> 31u); // batches are below 2^31: not the block's value alone (lod_selected)
    if (at == 0u) return false;
    return ((words[at - 1u + b / 32u] >> (b % 32u)) & 1u) != 0u;
}

// Visible items before `item` (which may be the count itself), from the bits and the block prefix.
uint prefix(uint item)
{
    if (item >= u_cull.sizes.x) return words[u_cull.extra.x];
    uint block = item / ORR_GPU_CULL_BLOCK, word = (item % ORR_GPU_CULL_BLOCK) / 32u;
    uint base = u_cull.regions.x + block * ORR_GPU_CULL_WORDS;
    uint n = words[u_cull.regions.y + block];
    for (uint w = 0u; w < word; w++) n += bitCount(words[base + w]);
    return n + bitCount(words[base + word] & ((1u << (item % 32u)) - 1u));
}

void main()
{
    uint t = gl_LocalInvocationID.x, group = gl_WorkGroupID.x;
    if (STAGE == ORR_GPU_CULL_COUNT) {
        if (t < ORR_GPU_CULL_WORDS) s_words[t] = 0u;
        if (t < ORR_GPU_CULL_INSTANCE_WORDS) s_counts[t] = 0u;
        barrier();
        uint item = group * ORR_GPU_CULL_BLOCK + t;
        bool seen = item < u_cull.sizes.x && visible(item);
        // an instance counted once, by its first item, whichever of its items (levels) the view draws
        bool lead = item < u_cull.sizes.x && (items[u_cull.scene.x + item].batch & ORR_GPU_ITEM_LEAD) != 0u;
        uint reach = lead ? g_reach : 0u;
        bool kept = reach == 2u;
#ifdef ORR_CULL_OCCLUSION
        seen = occlusion_keep(item, seen, kept);
#endif
        if (seen) atomicOr(s_words[t / 32u], 1u << (t % 32u));
        if (reach != 0u) atomicAdd(s_counts[0], 1u);
        if (reach == 2u) atomicAdd(s_counts[1], 1u);
        if (kept) atomicAdd(s_counts[2], 1u);
        barrier();
#ifdef ORR_CULL_OCCLUSION
        occlusion_end(group, t);
#endif
        if (t < ORR_GPU_CULL_WORDS) words[u_cull.regions.x + group * ORR_GPU_CULL_WORDS + t] = s_words[t];
        uint at = instance_words() + ORR_GPU_CULL_INSTANCE_WORDS * (group + 1u);
        if (t < ORR_GPU_CULL_INSTANCE_WORDS) words[at + t] = s_counts[t];
        if (t == 0u) {
            uint n = 0u;
            for (uint w = 0u; w < ORR_GPU_CULL_WORDS; w++) n += bitCount(s_words[w]);
            words[u_cull.regions.y + group] = n;
        }
    } else if (STAGE == ORR_GPU_CULL_SCAN) {
        uint running = 0u;
        for (uint base = 0u; base < u_cull.sizes.z; base += 256u) {
            uint i = base + t;
            uint v = i < u_cull.sizes.z ? words[u_cull.regions.y + i] : 0u;
            s_scan[t] = v;
            barrier();
            for (uint step = 1u; step < 256u; step <<= 1) { // inclusive Hillis-Steele scan
                uint add = t >= step ? s_scan[t - step] : 0u;
                barrier();
                s_scan[t] += add;
                barrier();
            }
            if (i < u_cull.sizes.z) words[u_cull.regions.y + i] = running + s_scan[t] - v;
            running += s_scan[255];
            barrier();
        }
        if (t == 0u) {
            words[u_cull.extra.x] = running;
            words[u_cull.extra.y] = 0u; // counted by the commands stage
        }
        if (t < ORR_GPU_CULL_LOD_WORDS) words[u_cull.extra.y + 1u + t] = 0u; // so are the levels' counts
        // the instance counts: the blocks' summed
        if (t < ORR_GPU_CULL_INSTANCE_WORDS) s_counts[t] = 0u;
        barrier();
        uint counted[ORR_GPU_CULL_INSTANCE_WORDS] = uint[](0u, 0u, 0u);
        for (uint i = t; i < u_cull.sizes.z; i += 256u)
            for (uint k = 0u; k < ORR_GPU_CULL_INSTANCE_WORDS; k++)
                counted[k] += words[instance_words() + ORR_GPU_CULL_INSTANCE_WORDS * (i + 1u) + k];
        for (uint k = 0u; k < ORR_GPU_CULL_INSTANCE_WORDS; k++) atomicAdd(s_counts[k], counted[k]);
        barrier();
        if (t < ORR_GPU_CULL_INSTANCE_WORDS) words[instance_words() + t] = s_counts[t];
    } else if (STAGE == ORR_GPU_CULL_COMPACT) {
        if (t < ORR_GPU_CULL_WORDS) s_words[t] = words[u_cull.regions.x + group * ORR_GPU_CULL_WORDS + t];
        barrier();
        uint word = t / 32u, bit = t % 32u;
        if ((s_words[word] & (1u << bit)) == 0u) return;
        uint rank = words[u_cull.regions.y + group];
        for (uint w = 0u; w < word; w++) rank += bitCount(s_words[w]);
        rank += bitCount(s_words[word] & ((1u << bit) - 1u));
        orr_gpu_draw_item it = items[u_cull.scene.x + group * ORR_GPU_CULL_BLOCK + t];
        uint b = it.batch & ~ORR_GPU_ITEM_LEAD;
        if (last_first(b)) { // its batch's visible items last first: the rank counted from the batch's end
            orr_gpu_batch batch = batches[u_cull.scene.y + b];
            rank = prefix(batch.first) + prefix(batch.first + batch.count) - 1u - rank;
        }
        records[u_cull.regions.z + rank] = orr_gpu_record(it.instance, it.material);
    } else {
        uint b = group * 256u + t;
        if (b >= u_cull.sizes.y) return;
        orr_gpu_batch batch = batches[u_cull.scene.y + b];
        uint begin = prefix(batch.first), end = prefix(batch.first + batch.count);
        uint c = u_cull.regions.w + b * 5u; // VkDrawIndexedIndirectCommand
        words[c + 0u] = batch.index_count;
        words[c + 1u] = end - begin;
        words[c + 2u] = batch.first_index;
        words[c + 3u] = batch.vertex_offset;
        words[c + 4u] = begin;
        if (end > begin) atomicAdd(words[u_cull.extra.y], 1u);
        lod_count(batch, end - begin);
    }
}
