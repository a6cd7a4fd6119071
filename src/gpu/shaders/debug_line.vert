#version 450
// Debug lines (include/orrery/debug_draw.h): points already relative to the view's origin (made so in
// binary64 on the CPU), through the view's rotation and projection (one float matrix, a push constant).
layout(push_constant) uniform DebugBlock { mat4 u_view_proj; };

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec4 in_color;

layout(location = 0) out vec4 out_color;

void main()
{
    gl_Position = u_view_proj * vec4(in_position, 1.0);
    out_color = in_color;
}
