// The id pass's fragments (pick.vert): per pixel the instance slot + 1 (0: nothing), the provoking
// vertex's pool index, the depth's bits; alpha-masked surfaces cut where the built-in passes cut them.
// Included by pick.frag (a descriptor set per material) and pick_array.frag (one texture array).
#include "scene.glsl"

layout(location = 0) flat in uint in_slot;
layout(location = 1) flat in uint in_vertex;
layout(location = 2) flat in uint in_material;
layout(location = 3) in vec4 in_color;
layout(location = 4) in vec2 in_uv;

layout(location = 0) out uvec4 out_id;

#include "cutout.glsl"

void main()
{
    if (orr_cut(materials[in_material], in_color, in_uv)) discard;
    out_id = uvec4(in_slot + 1u, in_vertex, floatBitsToUint(gl_FragCoord.z), 0u);
}
