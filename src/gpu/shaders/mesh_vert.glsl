// The vertex shader of the indexed strategies, the shell path and the meshlet strategy's fallback: the
// vertex input stage reads the pool vertex, vertex.glsl shades it. A lean variant (variant.glsl)
// declares only the inputs and outputs of its features; what it lacks reaches orr_vertex as zeros
// and is never written out.
#include "vertex.glsl"

#if ORR_SHELLS
// The shell path (ORR_STRATEGY_SHELL and fur draws): the instance and material come from the push
// constant, and gl_InstanceIndex is the shell index (orr_gpu_shell). Otherwise from the view's record
// at gl_InstanceIndex (which includes firstInstance).
layout(constant_id = 0) const bool SHELL = false;
layout(push_constant) uniform ShellBlock { orr_gpu_shell u_shell; };
#endif

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
#if ORR_HAS_TANGENTS
layout(location = 2) in vec4 in_tangent;
#endif
#if ORR_HAS_TEXCOORDS
layout(location = 3) in vec2 in_uv0;
layout(location = 4) in vec2 in_uv1;
#endif
#if ORR_HAS_COLORS
layout(location = 5) in vec4 in_color;
#endif
#if ORR_HAS_SKIN
layout(location = 6) in vec4 in_weights;
layout(location = 7) in uvec4 in_joints;
#endif
#if ORR_HAS_MORPH
layout(location = 8) in uint in_morph;
#endif

#if ORR_HAS_COLORS
layout(location = 0) out vec3 out_world_rel;
#else
// w: a 1 that the rasteriser interpolates as it did the full shaders' colour of a primitive without
// colours (opaque white), which under perspective is not exactly 1 on every device: the fragment
// shader multiplies by it as the full one did by that colour, and shades the same bytes.
layout(location = 0) out vec4 out_world_rel;
#endif
layout(location = 1) out vec3 out_normal;
#if ORR_HAS_TANGENTS
layout(location = 2) out vec4 out_tangent;
#endif
#if ORR_HAS_COLORS
layout(location = 3) out vec4 out_color;
#endif
#if ORR_HAS_TEXCOORDS
layout(location = 4) out vec4 out_uv_a;
layout(location = 5) out vec4 out_uv_b;
layout(location = 6) out vec2 out_uv_c;
#endif
layout(location = 7) flat out uint out_material;
layout(location = 8) flat out uint out_mirrored;
#ifdef ORR_VERTEX_CAPTURE
// The test mode orr_renderer_desc.vertex_capture: each vertex's world position as placed, at
// instance slot x vertices per slot (u_view.ground.w) + its pool index.
layout(set = 0, binding = 8, std430) writeonly buffer CaptureBuffer { vec4 captured[]; };
#endif
#if ORR_SHELLS
layout(location = 9) out vec3 out_fur;       // xy: the noise's coordinates (texcoords0 x density), z: the
                                             // shell's height h (0 off the shell path)
#endif

void main()
{
    orr_gpu_record rec;
#if ORR_SHELLS
    if (SHELL) {
        rec.instance = u_shell.instance;
        rec.material = u_shell.material;
    } else {
        rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    }
    // Shell i of n stands at height h = i / (n - 1). One shell (or none to spread) leaves the surface as
    // it is.
    bool spread = SHELL && u_shell.shell_count > 1u;
    float h = spread ? float(gl_InstanceIndex) / float(u_shell.shell_count - 1u) : 0.0;
    float shell_length = SHELL ? u_shell.shell_length : 0.0;
#else
    rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    bool spread = false;
    float h = 0.0, shell_length = 0.0;
#endif
#if ORR_HAS_TANGENTS
    vec4 tangent = in_tangent;
#else
    vec4 tangent = vec4(0.0);
#endif
#if ORR_HAS_TEXCOORDS
    vec2 uv0 = in_uv0, uv1 = in_uv1;
#else
    vec2 uv0 = vec2(0.0), uv1 = vec2(0.0);
#endif
#if ORR_HAS_COLORS
    vec4 color = in_color;
#else
    vec4 color = vec4(1.0);
#endif
#if ORR_HAS_SKIN
    vec4 weights = in_weights;
    uvec4 joints = in_joints;
#else
    vec4 weights = vec4(0.0);
    uvec4 joints = uvec4(0u);
#endif
#if ORR_HAS_MORPH
    uint morph = in_morph;
#else
    uint morph = ORR_GPU_NO_MORPH;
#endif
    orr_vertex_in v = orr_vertex_in(in_position, in_normal, tangent, uv0, uv1, color, weights, joints, morph,
                                    uint(gl_VertexIndex));
    orr_vertex_out o = orr_vertex(v, rec, spread, h, shell_length);
    gl_Position = o.position;
#ifdef ORR_VERTEX_CAPTURE
    uint per_slot = floatBitsToUint(u_view.ground.w), at = rec.instance * per_slot + uint(gl_VertexIndex);
    if (per_slot != 0u && uint(gl_VertexIndex) < per_slot && at < uint(captured.length()))
        captured[at] = vec4(o.world_rel + (u_view.origin_hi.xyz + u_view.origin_lo.xyz), 1.0);
#endif
#if ORR_SHELLS
    out_fur = SHELL ? vec3(in_uv0 * u_shell.density, h) : vec3(0.0);
#endif
#if ORR_HAS_COLORS
    out_world_rel = o.world_rel;
#else
    out_world_rel = vec4(o.world_rel, 1.0);
#endif
    out_normal = o.normal;
#if ORR_HAS_TANGENTS
    out_tangent = o.tangent;
#endif
#if ORR_HAS_COLORS
    out_color = o.color;
#endif
#if ORR_HAS_TEXCOORDS
    out_uv_a = o.uv_a;
    out_uv_b = o.uv_b;
    out_uv_c = o.uv_c;
#endif
    out_material = o.material;
    out_mirrored = o.mirrored;
}
