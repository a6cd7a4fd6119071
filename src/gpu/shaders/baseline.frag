#version 450
// The floor of a frame (orr_renderer_desc.baseline_gpu): one constant colour.
layout(location = 0) out vec4 out_color;

void main() { out_color = vec4(0.5, 0.5, 0.5, 1.0); }
