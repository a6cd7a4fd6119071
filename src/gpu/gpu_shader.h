/* The shader room: GLSL compiled to SPIR-V at run time (glslang) and SPIR-V reflected (SPIRV-Cross),
 * for the host's techniques. Owns no Vulkan object and no renderer state: each call is self-contained
 * (glslang's process state is taken and given back around a compile). */
#ifndef ORRERY_GPU_SHADER_H
#define ORRERY_GPU_SHADER_H

#include "core/internal.h"

#include <stddef.h>
#include <stdint.h>

typedef enum orri_shader_stage {
    ORRI_SHADER_VERTEX = 0,
    ORRI_SHADER_FRAGMENT = 1,
    ORRI_SHADER_COMPUTE = 2,
    ORRI_SHADER_TASK = 3, /* GL_EXT_mesh_shader's stages (SPIR-V TaskEXT, MeshEXT) */
    ORRI_SHADER_MESH = 4,
} orri_shader_stage;

#define ORRI_SHADER_MAX_IO 16
#define ORRI_SHADER_NAME 64

/* One resource of a reflected shader. */
typedef struct orri_shader_slot {
    uint32_t set, binding;   /* descriptors */
    uint32_t location;       /* stage inputs and outputs */
    uint32_t components;     /* vector size of an input or output */
    bool is_float;           /* its components are 32-bit floats */
    bool sampled_2d;         /* a combined image sampler of a single-sampled, non-arrayed 2D image */
    bool uniform_buffer, storage_buffer; /* the kind of an `other` descriptor */
    bool storage_image;      /* an `other` descriptor: a single-sampled, non-arrayed 2D storage image */
    uint32_t image_format;   /* a storage image's format qualifier (SpvImageFormat; 0 = none declared) */
    char name[ORRI_SHADER_NAME];
} orri_shader_slot;

/* What a shader declares, as its SPIR-V says. */
typedef struct orri_shader_io {
    orri_shader_stage stage;    /* of the entry point "main" */
    bool has_main;
    uint32_t push_size;         /* bytes of its push constant block; 0 = none */
    orri_shader_slot sampled[ORRI_SHADER_MAX_IO];   /* combined image samplers */
    uint32_t sampled_count;
    orri_shader_slot outputs[ORRI_SHADER_MAX_IO];
    uint32_t output_count;
    orri_shader_slot inputs[ORRI_SHADER_MAX_IO];
    uint32_t input_count;
    orri_shader_slot other[ORRI_SHADER_MAX_IO];     /* any other descriptor (buffers, storage images, ...) */
    uint32_t other_count;
    bool layer_constant;        /* it declares specialization constant ORRI_SHADER_LAYER_CONSTANT */
    uint32_t local_size[3];     /* a compute, task or mesh shader's workgroup size (1, 1, 1 for other stages) */
    uint32_t mesh_vertices, mesh_primitives; /* a mesh shader's declared maximum outputs (0 for other stages) */
} orri_shader_io;

/* orrery/scene.glsl's ORR_SCENE_LAYER_MASK: a scene technique's layer mask */
#define ORRI_SHADER_LAYER_CONSTANT 100u

/* GLSL -> SPIR-V 1.6 for Vulkan 1.3. On success *words (allocated with `a`, *word_count words) is the
 * caller's; on failure `message` (message_size bytes) holds the compiler's first error lines, each
 * prefixed with `name` ("grade.frag:3: 'foo' : undeclared identifier"). */
/* `preamble` (NULL-able): lines given before the source ("#define X 1\n"). The source may include
 * "orrery/scene.glsl" (the library's copy), nothing else. */
bool orri_shader_compile(const orr_allocator *a, orri_shader_stage stage, const char *source, const char *name,
                         const char *preamble, uint32_t **words, size_t *word_count, char *message,
                         size_t message_size);
/* The GLSL format qualifier of a storage image's SPIR-V format ("rgba16f", "rgba8", ...); "none" for
 * none (Unknown), "another" for one no transient has. */
const char *orri_shader_image_format_name(uint32_t image_format);
/* Reflects SPIR-V; false (with a message) when it is not SPIR-V that can be parsed. */
bool orri_shader_reflect(const uint32_t *words, size_t word_count, orri_shader_io *io, char *message,
                         size_t message_size);

#endif /* ORRERY_GPU_SHADER_H */
