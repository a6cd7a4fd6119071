#version 450
// The id pass of a pick (include/orrery/pick.h): the built-in passes' vertex stage (vertex.glsl: the
// same clip position, bit for bit, so the pick's depth is the view's; skinned and morphed vertices
// where they are drawn), with the pick's layer filter. Passes the instance slot and the pool index of
// the triangle's provoking vertex (which names the mesh primitive) to pick.frag.
#extension GL_GOOGLE_include_directive : require
#include "vertex.glsl"

layout(push_constant) uniform PickBlock { uvec4 u_pick; }; // x: layer mask (0: every layer)

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_tangent;
layout(location = 3) in vec2 in_uv0;
layout(location = 4) in vec2 in_uv1;
layout(location = 5) in vec4 in_color;
layout(location = 6) in vec4 in_weights;
layout(location = 7) in uvec4 in_joints;
layout(location = 8) in uint in_morph;

layout(location = 0) flat out uint out_slot;
layout(location = 1) flat out uint out_vertex;
layout(location = 2) flat out uint out_material;
layout(location = 3) out vec4 out_color;
layout(location = 4) out vec2 out_uv;

void main()
{
    orr_gpu_record rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    if (u_pick.x != 0u && (instances[rec.instance].layers & u_pick.x) == 0u) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // filtered out: outside the clip volume
        return;
    }
    orr_vertex_in v = orr_vertex_in(in_position, in_normal, in_tangent, in_uv0, in_uv1, in_color, in_weights,
                                    in_joints, in_morph, uint(gl_VertexIndex));
    orr_vertex_out o = orr_vertex(v, rec, false, 0.0, 0.0);
    gl_Position = o.position;
    out_slot = rec.instance;
    out_vertex = uint(gl_VertexIndex);
    out_material = o.material;
    out_color = o.color;
    out_uv = o.uv_a.xy;
}
