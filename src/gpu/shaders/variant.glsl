// What a mesh pipeline's vertex and fragment stages carry (gpu_pipeline.h: ORRI_FEATURE_*, the same
// bits). The build compiles mesh.vert, mesh.frag and mesh_array.frag once more for each lean variant,
// with ORR_VARIANT set to its mask: a variant declares, fetches, computes and interpolates only what
// its mask names, so that a cube without textures or vertex colours hands the rasteriser its position,
// normal, world position and material and nothing else. Without ORR_VARIANT the shader is the full one
// (every feature, and the shell path: SHELL, FUR), which the shell path, the meshlet strategy's mesh
// shader, vertex capture and every draw that needs all of it use.
#ifndef ORR_VARIANT
#define ORR_VARIANT 31
#define ORR_SHELLS 1
#else
#define ORR_SHELLS 0
#endif
#define ORR_HAS_TEXCOORDS (ORR_VARIANT & 1) // the material samples a texture: texcoords and their transforms
#define ORR_HAS_TANGENTS (ORR_VARIANT & 2)  // the material has a normal texture: tangents (needs texcoords)
#define ORR_HAS_COLORS (ORR_VARIANT & 4)    // the primitive has vertex colours
#define ORR_HAS_SKIN (ORR_VARIANT & 8)      // the primitive has joint weights
#define ORR_HAS_MORPH (ORR_VARIANT & 16)    // the primitive has morph targets
