#version 450
#include "scene.glsl"

layout(location = 0) in vec3 in_world_rel;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_color;
layout(location = 3) in vec2 in_uv0;
layout(location = 4) flat in uint in_material;
layout(location = 5) flat in uint in_mirrored;

layout(location = 0) out vec4 out_color;

// The material's base colour texture, bound per batch; untextured materials get a 1x1 white one.
layout(set = 1, binding = 0) uniform sampler2D base_color_texture;

void main()
{
    orr_gpu_material mat = materials[in_material];
    vec2 uv = vec2(mat.uv_transform[0], mat.uv_transform[1]) * in_uv0.x +
              vec2(mat.uv_transform[2], mat.uv_transform[3]) * in_uv0.y + vec2(mat.uv_transform[4], mat.uv_transform[5]);
    // Sampled before any discard, in uniform control flow.
    vec4 texel = texture(base_color_texture, uv);
    // The face turned away, mirrors included (single-sided batches never get here with one: the
    // rasteriser culls back faces, front faces for mirrored instances).
    bool back = gl_FrontFacing == (in_mirrored != 0u);
    vec4 base = vec4(mat.base_color[0], mat.base_color[1], mat.base_color[2], mat.base_color[3]) * in_color * texel;
    if (mat.alpha_mode == ORR_GPU_ALPHA_MASK && base.a < mat.alpha_cutoff) discard;
    if (mat.alpha_mode != ORR_GPU_ALPHA_BLEND) base.a = 1.0;

    vec3 emissive = vec3(mat.emissive[0], mat.emissive[1], mat.emissive[2]);
    vec3 rgb;
    if ((mat.flags & ORR_GPU_MATERIAL_UNLIT) != 0u) {
        rgb = base.rgb;
    } else {
        vec3 n = in_normal;
        float len = length(n);
        n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
        // A back face (double-sided) shades as its own front.
        if (back) n = -n;
        vec3 l = u_view.light.w == ORR_GPU_LIGHT_POINT ? normalize(u_view.light.xyz - in_world_rel)
                                                      : u_view.light.xyz;
        float ndl = max(dot(n, l), 0.0);
        rgb = base.rgb * (u_view.ambient.rgb + u_view.light_color.rgb * ndl);
    }
    out_color = vec4(rgb + emissive, base.a);
}
