#version 450
// The floor of a frame (orr_renderer_desc.baseline_gpu): the leanest vertex stage that draws the view's
// visible records. It reads the pool position and the instance's translation (high minus high first,
// as vertex.glsl does) and writes only the clip position: no rotation or scale, no normal, no
// interpolated value.
#extension GL_GOOGLE_include_directive : require
#include "scene.glsl"

layout(location = 0) in vec3 in_position;

void main()
{
    orr_gpu_record rec = records[u_view.params.x + uint(gl_InstanceIndex)];
    orr_gpu_instance inst = instances[rec.instance];
    vec3 t_hi = vec3(inst.t_hi[0], inst.t_hi[1], inst.t_hi[2]);
    vec3 t_lo = vec3(inst.t_lo[0], inst.t_lo[1], inst.t_lo[2]);
    vec3 offset = (t_hi - u_view.origin_hi.xyz) + (t_lo - u_view.origin_lo.xyz);
    gl_Position = u_view.proj * (u_view.view * vec4(in_position + offset, 1.0));
}
