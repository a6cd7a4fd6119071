#version 450
// The mesh pipelines' vertex shader with vertex capture (orr_renderer_desc.vertex_capture): a test mode that
// also writes each vertex's world position to the capture buffer (set 0, binding 8). Needs the device's
// vertexPipelineStoresAndAtomics.
#extension GL_GOOGLE_include_directive : require
#define ORR_VERTEX_CAPTURE
#include "mesh_vert.glsl"
