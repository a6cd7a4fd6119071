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

#ifdef ORR_TEXTURE_ARRAY
layout(constant_id = 2) const uint TEXTURE_SLOTS = 1u;
layout(set = 1, binding = 0) uniform sampler2D textures[TEXTURE_SLOTS];
#define SAMPLE_BASE(mat, uv) texture(textures[min(mat.texture[ORR_GPU_TEXTURE_BASE_COLOR], TEXTURE_SLOTS - 1u)], uv)
#else
layout(set = 1, binding = 0) uniform sampler2D material_textures[ORR_GPU_TEXTURE_SLOTS];
#define SAMPLE_BASE(mat, uv) texture(material_textures[ORR_GPU_TEXTURE_BASE_COLOR], uv)
#endif

void main()
{
    orr_gpu_material mat = materials[in_material];
    vec4 t_base = SAMPLE_BASE(mat, in_uv); // in uniform control flow, as shade.glsl samples it
    vec4 base = vec4(mat.base_color[0], mat.base_color[1], mat.base_color[2], mat.base_color[3]) * in_color * t_base;
    if (mat.alpha_mode == ORR_GPU_ALPHA_MASK && base.a < mat.alpha_cutoff) discard;
    out_id = uvec4(in_slot + 1u, in_vertex, floatBitsToUint(gl_FragCoord.z), 0u);
}
