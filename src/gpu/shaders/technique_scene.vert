#version 450
// The vertex stage of the host's scene techniques (technique.h) without a vertex shader of their own:
// the built-in passes' shading of a pool vertex (vertex.glsl: the same clip position, bit for bit, so a
// technique's depth equals the built-in passes'), with the technique's layer filter. Its outputs are
// orrery/scene.glsl's ORR_SCENE_FRAGMENT inputs.
#extension GL_GOOGLE_include_directive : require
#include "vertex.glsl"

// orr_technique_scene.layer_mask (0: every layer); scene.glsl's ORR_SCENE_LAYER_MASK
layout(constant_id = 100) const uint LAYER_MASK = 0u;

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

void main()
{
    gl_PointSize = 1.0; // ORR_TECHNIQUE_CORNERS draws points (ignored for triangles)
    orr_gpu_record rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    if (LAYER_MASK != 0u && (instances[rec.instance].layers & LAYER_MASK) == 0u) {
        // Filtered out: every vertex of its triangles at one point outside the clip volume.
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    orr_vertex_in v = orr_vertex_in(in_position, in_normal, in_tangent, in_uv0, in_uv1, in_color, in_weights,
                                    in_joints, in_morph, uint(gl_VertexIndex));
    orr_vertex_out o = orr_vertex(v, rec, false, 0.0, 0.0);
    gl_Position = o.position;
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
