#version 450
// The full-screen techniques' vertex shader: one triangle that covers the viewport (the pass's
// rectangle), uv 0,0 at its top left and 1,1 at its bottom right.
layout(location = 0) out vec2 uv;

void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    uv = p;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
