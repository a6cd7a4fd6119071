// The fragment stage of the shadow views' cut-out casters (gpu_shadow.c): behind the mesh pipelines'
// full vertex shader (mesh_vert.glsl, whose colour, texture coordinates and material it reads), it
// keeps the fragments that the cut-out pass keeps (cutout.glsl) and writes only their depth, so that
// an alpha-masked caster casts the shadow of its opaque texels. Included by shadow_mask.frag (a
// descriptor set per material) and shadow_mask_array.frag (one texture array).
#include "scene.glsl"

layout(location = 3) in vec4 in_color;
layout(location = 4) in vec4 in_uv_a; // xy: the base colour texture's coordinates
layout(location = 7) flat in uint in_material;

#include "cutout.glsl"

void main()
{
    if (orr_cut(materials[in_material], in_color, in_uv_a.xy)) discard;
}
