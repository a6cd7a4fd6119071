// The vertex shader of the indexed strategies, the shell path and the meshlet strategy's fallback: the
// vertex input stage reads the pool vertex, vertex.glsl shades it.
#include "vertex.glsl"

// The shell path (ORR_STRATEGY_SHELL and fur draws): the instance and material come from the push
// constant, and gl_InstanceIndex is the shell index (orr_gpu_shell). Otherwise from the view's record
// at gl_InstanceIndex (which includes firstInstance).
layout(constant_id = 0) const bool SHELL = false;
layout(push_constant) uniform ShellBlock { orr_gpu_shell u_shell; };

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_tangent;
layout(location = 3) in vec2 in_uv0;
layout(location = 4) in vec2 in_uv1;
layout(location = 5) in vec4 in_color;
layout(location = 6) in vec4 in_weights;
layout(location = 7) in uvec4 in_joints;
layout(location = 8) in uint in_morph;

layout(location = 0) out vec3 out_world_rel;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec4 out_tangent;
layout(location = 3) out vec4 out_color;
layout(location = 4) out vec4 out_uv_a;
layout(location = 5) out vec4 out_uv_b;
layout(location = 6) out vec2 out_uv_c;
layout(location = 7) flat out uint out_material;
layout(location = 8) flat out uint out_mirrored;
#ifdef ORR_VERTEX_CAPTURE
// The test mode orr_renderer_desc.vertex_capture: each vertex's world position as placed, at
// instance slot x vertices per slot (u_view.ground.w) + its pool index.
layout(set = 0, binding = 8, std430) writeonly buffer CaptureBuffer { vec4 captured[]; };
#endif
layout(location = 9) out vec3 out_fur;       // xy: the noise's coordinates (texcoords0 x density), z: the
                                             // shell's height h (0 off the shell path)

void main()
{
    orr_gpu_record rec;
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
    orr_vertex_in v = orr_vertex_in(in_position, in_normal, in_tangent, in_uv0, in_uv1, in_color, in_weights,
                                    in_joints, in_morph, uint(gl_VertexIndex));
    orr_vertex_out o = orr_vertex(v, rec, spread, h, SHELL ? u_shell.shell_length : 0.0);
    gl_Position = o.position;
#ifdef ORR_VERTEX_CAPTURE
    uint per_slot = floatBitsToUint(u_view.ground.w), at = rec.instance * per_slot + uint(gl_VertexIndex);
    if (per_slot != 0u && uint(gl_VertexIndex) < per_slot && at < uint(captured.length()))
        captured[at] = vec4(o.world_rel + (u_view.origin_hi.xyz + u_view.origin_lo.xyz), 1.0);
#endif
    out_fur = SHELL ? vec3(in_uv0 * u_shell.density, h) : vec3(0.0);
    out_world_rel = o.world_rel;
    out_normal = o.normal;
    out_tangent = o.tangent;
    out_color = o.color;
    out_uv_a = o.uv_a;
    out_uv_b = o.uv_b;
    out_uv_c = o.uv_c;
    out_material = o.material;
    out_mirrored = o.mirrored;
}
