/* Orrery gpu_shared: the GPU structs, read by the C renderer and by the GLSL shaders (glslc gets
 * -I include/orrery), so that the layouts cannot drift.
 *
 *   orr_gpu_instance  80 bytes per instance slot, one storage buffer shared by every view and pass
 *   orr_gpu_material  80 bytes per material slot (the material id's index)
 *   orr_gpu_record    8 bytes per surface draw of one view: instance slot + material slot, found
 *                     through gl_InstanceIndex (which includes firstInstance)
 *   orr_gpu_view      the per-view uniform block: origin as high/low floats, rotation, projection,
 *                     a camera-relative light
 *   joints            per frame: each snapshot joint matrix (relative to its instance) as three
 *                     vec4 rows (the top 3x4 of the matrix)
 *
 * Storage-buffer structs use only 32-bit scalars and scalar arrays (std430: 4-byte alignment, the same
 * as C). The uniform block uses vec4/mat4 members only, each at a multiple of 16 bytes (std140 = C).
 */
#ifndef ORRERY_GPU_SHARED_H
#define ORRERY_GPU_SHARED_H

#if defined(__STDC__) || defined(__cplusplus)
#include <stdint.h>
#define ORR_GPU_STRUCT(name) typedef struct name name; struct name
#define ORR_GPU_UINT uint32_t
#define ORR_GPU_VEC4(n) float n[4]
#define ORR_GPU_UVEC4(n) uint32_t n[4]
#define ORR_GPU_MAT4(n) float n[16]
#else /* GLSL */
#define ORR_GPU_STRUCT(name) struct name
#define ORR_GPU_UINT uint
#define ORR_GPU_VEC4(n) vec4 n
#define ORR_GPU_UVEC4(n) uvec4 n
#define ORR_GPU_MAT4(n) mat4 n
#endif

/* orr_gpu_instance.flags */
#define ORR_GPU_INSTANCE_MIRRORED 1u /* the linear part has a negative determinant */
#define ORR_GPU_INSTANCE_SKINNED 2u

/* orr_gpu_material.alpha_mode (orr_alpha_mode) */
#define ORR_GPU_ALPHA_OPAQUE 0u
#define ORR_GPU_ALPHA_MASK 1u
#define ORR_GPU_ALPHA_BLEND 2u

/* orr_gpu_material.flags */
#define ORR_GPU_MATERIAL_DOUBLE_SIDED 1u
#define ORR_GPU_MATERIAL_UNLIT 2u

#define ORR_GPU_NO_TEXTURE 0xffffffffu

/* orr_gpu_view.light.w */
#define ORR_GPU_LIGHT_DIRECTIONAL 0.0 /* light.xyz: unit direction towards the light */
#define ORR_GPU_LIGHT_POINT 1.0       /* light.xyz: position relative to the view origin */

ORR_GPU_STRUCT(orr_gpu_instance) {
    float linear[9];          /* 3x3 linear part of the world matrix, column-major (scale included) */
    float t_hi[3];            /* translation, high floats: (float)t */
    float t_lo[3];            /* translation, low floats: (float)(t - t_hi); t_hi + t_lo = t to ~2^-48 */
    ORR_GPU_UINT joint_offset; /* into the snapshot's joints (3 float rows each in the joint buffer) */
    ORR_GPU_UINT joint_count;  /* 0 = not skinned */
    ORR_GPU_UINT flags;        /* ORR_GPU_INSTANCE_* */
    ORR_GPU_UINT reserved[2];
};

ORR_GPU_STRUCT(orr_gpu_material) {
    float base_color[4];       /* linear RGBA factor */
    float emissive[3];         /* linear, strength applied */
    float alpha_cutoff;        /* ORR_GPU_ALPHA_MASK: discard below */
    float metallic;
    float roughness;
    ORR_GPU_UINT alpha_mode;   /* ORR_GPU_ALPHA_* */
    ORR_GPU_UINT flags;        /* ORR_GPU_MATERIAL_* */
    ORR_GPU_UINT base_color_texture; /* texture id index; ORR_GPU_NO_TEXTURE = none (the image is bound per batch) */
    ORR_GPU_UINT base_color_texcoord; /* texcoord set (only set 0 is in the pool so far) */
    float uv_transform[6];     /* KHR_texture_transform as a 2x3 matrix, columns: x axis, y axis, offset */
};

ORR_GPU_STRUCT(orr_gpu_record) {
    ORR_GPU_UINT instance; /* instance slot */
    ORR_GPU_UINT material; /* material slot */
};

ORR_GPU_STRUCT(orr_gpu_view) {
    ORR_GPU_MAT4(view);        /* world-minus-origin -> camera: rotation only */
    ORR_GPU_MAT4(proj);        /* camera -> clip: reversed Z, infinite far */
    ORR_GPU_VEC4(origin_hi);   /* view origin, high floats (w unused) */
    ORR_GPU_VEC4(origin_lo);   /* view origin, low floats (w unused) */
    ORR_GPU_VEC4(light);       /* xyz per ORR_GPU_LIGHT_*, w = the kind */
    ORR_GPU_VEC4(light_color); /* linear rgb */
    ORR_GPU_VEC4(ambient);     /* linear rgb */
    ORR_GPU_UVEC4(params);     /* x: first record of this view in the record buffer;
                                  y: first joint row (vec4) of this frame in the joint buffer */
};

#if defined(__STDC__) || defined(__cplusplus)
#ifndef __cplusplus
_Static_assert(sizeof(orr_gpu_instance) == 80, "instance records are 80 bytes");
_Static_assert(sizeof(orr_gpu_material) == 80, "material records are 80 bytes");
_Static_assert(sizeof(orr_gpu_record) == 8, "draw records are 8 bytes");
_Static_assert(sizeof(orr_gpu_view) == 224, "view block is 224 bytes");
#endif
#endif

#endif /* ORRERY_GPU_SHARED_H */
