/* The meshlet strategy's state (gpu_meshlet.c), a part of gpu_internal.h (included there, after the
 * buffer and space types; never on its own).
 *
 * Residency: each resident mesh's meshlets once, in four pool buffers beside the geometry pool's
 * (descriptors, bounds, vertex entries, triangle words), placed through free lists like the vertices
 * and indices, so that a mesh drawn by many instances, views and frames is uploaded once, and the space
 * of released meshes is reused.
 *
 * Per view and frame (views with ORR_STRATEGY_MESHLET): a draw per indexed command of the view (the
 * same commands every strategy draws from: its opaque batches, then its blended ranges), saying how it
 * is drawn, and then either
 *   mesh shaders  a compute stage writes each draw's task commands (workgroup counts: records x
 *                 chunks of 32 meshlets) from its indexed command's instance count; a task workgroup
 *                 culls 32 meshlets of one record and emits the survivors to the mesh shader, which
 *                 shades their vertices with vertex.glsl (the vertex shader's code) and emits their
 *                 triangles;
 *   the fallback  a compute stage writes an indexed indirect command per slot (record x meshlet) of each
 *                 draw, in record-major order: the meshlet's index range (the primitive's indices are in
 *                 meshlet order), zero counts when culled; the slots of a run of one pipeline state are
 *                 contiguous and drawn by one multi-draw, with the vertex shader of the indexed paths.
 * Either path counts, on the GPU, the meshlets and triangles it was sent and kept and the records it drew
 * through the indexed path by reason; the counts are copied into the frame buffer and read when the
 * frame is known complete (as the GPU cull's are). */
#ifndef ORRERY_GPU_MESHLET_H
#define ORRERY_GPU_MESHLET_H

/* One mesh id index's meshlets in the pool (the generation tells a reused index apart). */
typedef struct orri_meshlet_mesh {
    uint32_t generation;                 /* 0 = none resident */
    uint32_t first, count;               /* meshlets (descriptors and bounds) */
    uint32_t vertex_first, vertex_count; /* vertex entries */
    uint32_t word_first, word_count;     /* triangle words */
} orri_meshlet_mesh;

/* The pool's spaces and buffers. */
enum { ORRI_MESHLET_SPACE_MESHLETS = 0, ORRI_MESHLET_SPACE_VERTICES, ORRI_MESHLET_SPACE_WORDS, ORRI_MESHLET_SPACES };
enum { ORRI_MESHLET_BUFFER_MESHLETS = 0, ORRI_MESHLET_BUFFER_BOUNDS, ORRI_MESHLET_BUFFER_VERTICES,
       ORRI_MESHLET_BUFFER_WORDS, ORRI_MESHLET_BUFFERS };

/* A meshlet view of a frame slot's frame: where its counters land in the slot's frame buffer. */
typedef struct orri_meshlet_feedback {
    uint32_t view, generation;
    VkDeviceSize offset;
    uint64_t frame_number;
} orri_meshlet_feedback;

typedef struct orri_meshlets {
    bool supported;            /* the device has what the task and mesh shaders need */
    bool mesh_shaders;         /* the strategy draws with them (supported, not forced off) */
    uint32_t max_task_groups;  /* task workgroups one task command may launch */
    PFN_vkCmdDrawMeshTasksIndirectEXT draw_mesh_tasks_indirect;
    /* residency */
    orri_buffer buffers[ORRI_MESHLET_BUFFERS];  /* device-local; the vertex entries' and words' in uints */
    orri_buffer replaced[ORRI_MESHLET_BUFFERS]; /* grown away from this frame (retired at commit) */
    orri_space spaces[ORRI_MESHLET_SPACES];
    uint64_t committed[ORRI_MESHLET_SPACES];    /* units the buffers hold from submitted frames */
    orri_meshlet_mesh *meshes;                  /* by mesh id index */
    uint32_t mesh_capacity;
    /* pipelines */
    VkDescriptorSetLayout set_layout;          /* set 2 of the mesh pipelines, set 0 of the compute stages */
    VkPipelineLayout compute_layout, graphics_layout;
    VkDescriptorPool pool;
    VkDescriptorSet sets[ORRI_FRAMES_IN_FLIGHT];
    VkPipeline compute[2];                     /* ORR_GPU_MESHLET_TASKS, ORR_GPU_MESHLET_EXPAND */
    VkShaderModule task, mesh;
    VkPipeline pipelines[ORRI_SAMPLE_COUNTS][ORRI_PIPELINE_KEYS]; /* task + mesh + the mesh fragment shader */
    /* per frame */
    orri_buffer data;                          /* every meshlet view's counters and task commands or slots */
    bool any;                                  /* this frame has a meshlet view */
    bool ran;                                  /* and its compute stage was recorded (there is something to
                                                  draw): the views draw and their counters are copied */
    orri_meshlet_feedback *feedback[ORRI_FRAMES_IN_FLIGHT];
    uint32_t feedback_count[ORRI_FRAMES_IN_FLIGHT], feedback_capacity[ORRI_FRAMES_IN_FLIGHT];
} orri_meshlets;

/* A view's share (in orri_view). */
typedef struct orri_meshlet_view {
    bool active;                  /* this frame draws it with the meshlet strategy */
    orr_gpu_meshlet_draw *draws;  /* per command of the view, as uploaded */
    uint32_t draw_count, draw_capacity;
    orr_gpu_meshlet_task *tasks;  /* mesh shaders: the task commands */
    uint32_t task_count, task_capacity;
    uint32_t slot_count;          /* fallback: its slots */
    VkDeviceSize block_offset, draws_offset, tasks_offset, feedback_offset; /* in the frame buffer */
    VkDeviceSize data_at, out_at; /* in the meshlet data buffer: counters, then task commands or slots */
    /* what its latest completed frame counted */
    uint64_t counted_frame;       /* renderer frame number; 0 = none yet */
    uint64_t sent, kept, triangles_sent, triangles_kept, triangles_indexed;
    uint32_t indexed[ORR_MESHLET_INDEXED_COUNT];
} orri_meshlet_view;

#endif
