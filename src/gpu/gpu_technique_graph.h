/* The technique graph room: the shapes the technique rooms share (a target's list of techniques, its
 * attachments, the renderer's lists) and the checking of a list before anything is built: the descs,
 * their attachments resolved and their running order found (cycles refused). No Vulkan object is made
 * here. Above it: gpu_technique_build (shaders, pipelines), gpu_technique_record (a frame's commands
 * and the graph's text), gpu_technique (lists, transients, reload, the public calls). */
#ifndef ORRERY_GPU_TECHNIQUE_GRAPH_H
#define ORRERY_GPU_TECHNIQUE_GRAPH_H

#include "gpu/gpu_state.h"

#include <orrery/technique.h>

#define ORRI_TECH_NAME_MAX 63
#define ORRI_TECH_NONE UINT32_MAX
/* The shader stages a technique keeps the SPIR-V of (orri_tech.spirv), by slot */
#define ORRI_TECH_STAGES 3
#define ORRI_TECH_VERTEX 0   /* the host's vertex shader (NULL: the library's), or a mesh technique's mesh shader */
#define ORRI_TECH_FRAGMENT 1 /* the fragment shader (NULL: none), or a compute technique's shader */
#define ORRI_TECH_TASK 2     /* a mesh technique's task shader (NULL: none) */
/* "color", a depth per technique, a transient per write and a copy per transient (or "color"), the
 * storage image compute techniques write "color" through */
#define ORRI_TECH_MAX_RES (3 + ORR_TECHNIQUE_MAX + 2 * ORR_TECHNIQUE_MAX * ORR_TECHNIQUE_MAX_WRITES)

typedef enum orri_tech_res_kind {
    ORRI_RES_COLOR = 0,
    ORRI_RES_DEPTH,
    ORRI_RES_TRANSIENT,
    ORRI_RES_COPY,
    ORRI_RES_STORAGE, /* "color.storage": what compute techniques write of "color" (rgba16f), blitted into it */
} orri_tech_res_kind;

/* An image the list's techniques touch. */
typedef struct orri_tech_res {
    char name[ORRI_TECH_NAME_MAX + 8];
    orri_tech_res_kind kind;
    orr_view_id view;     /* ORRI_RES_DEPTH: whose depth */
    uint32_t source;      /* ORRI_RES_COPY: the resource it copies */
    orr_format format;    /* ORRI_RES_TRANSIENT, ORRI_RES_COPY (the target's for a copy of "color") */
    VkFormat vk_format;
    uint32_t divisor;     /* its size: the target's divided by this, rounded up ("color", depths: 1) */
    orri_image image;     /* ORRI_RES_TRANSIENT, ORRI_RES_COPY, ORRI_RES_STORAGE: owned, at that size, in memory block `block` */
    uint32_t block;
    uint32_t first, last; /* running positions of its first and last use (its lifetime in the frame) */
    VkDeviceSize bytes;
    bool storage;         /* a compute technique writes it (a storage image) */
    bool attachment;      /* a graphics technique writes it (a colour attachment) */
} orri_tech_res;

typedef struct orri_tech {
    orr_handle handle;
    char name[ORRI_TECH_NAME_MAX + 1];
    orr_view_id view;
    uint32_t reads[ORR_TECHNIQUE_MAX_READS];    /* the resource sampled at binding i (a copy: read and written) */
    uint32_t producer[ORR_TECHNIQUE_MAX_READS]; /* the technique (running order) whose write it sees; ORRI_TECH_NONE:
                                                   the built-in passes */
    uint32_t read_count;
    uint32_t copies[ORR_TECHNIQUE_MAX_READS];   /* copy resources filled just before it */
    uint32_t copy_count;
    uint32_t writes[ORR_TECHNIQUE_MAX_WRITES];
    uint32_t images[ORR_TECHNIQUE_MAX_WRITES];  /* the resource whose image is written: writes[w], or for a compute
                                                   technique's "color" the storage image blitted into it */
    orr_load_op load[ORR_TECHNIQUE_MAX_WRITES];
    float clear[ORR_TECHNIQUE_MAX_WRITES][4];
    uint32_t write_count;
    uint32_t push_size;
    uint8_t push[ORR_TECHNIQUE_MAX_PUSH];
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSet sets[ORRI_FRAMES_IN_FLIGHT];
    /* scene techniques */
    orr_technique_kind kind;
    orr_technique_place place;
    uint32_t at;              /* placed in its view's list (not ORR_PLACE_AFTER_VIEWS): right before built-in
                                 pass `at` (an orr_pass), or after the last (ORR_PASS_COUNT) */
    uint32_t depth;           /* its view's depth resource (ORRI_TECH_NONE: full-screen) */
    bool depth_write;
    orr_load_op depth_load;
    float depth_clear;
    uint32_t passes;          /* bit per orr_pass */
    int cull;                 /* -1: the material's; else a VkCullModeFlags */
    orr_technique_strategy strategy;
    orr_technique_order order;
    orr_technique_topology topology;
    bool replaces_view;       /* its view's built-in passes are not drawn */
    /* compute techniques */
    orr_dispatch dispatch;
    uint32_t groups[3];       /* ORR_DISPATCH_FIXED */
    uint32_t local[3];        /* the shader's workgroup size */
    bool scene_set;           /* its shader reads the scene's buffers (set 0, with its view's block) */
    /* mesh techniques (gpu_technique_mesh) */
    bool mesh;                /* task (optional) and mesh stages in place of the vertex stage */
    orr_mesh_dispatch mesh_dispatch;
    uint32_t mesh_groups[3];  /* ORR_MESH_FIXED */
    /* hot reload: the desc's fields, the SPIR-V it runs, what the next frame builds */
    orr_technique_desc desc;           /* pointers cleared */
    uint32_t *spirv[ORRI_TECH_STAGES]; /* by slot (ORRI_TECH_VERTEX, _FRAGMENT, _TASK) */
    size_t spirv_words[ORRI_TECH_STAGES];
    char *pending_glsl[ORRI_TECH_STAGES]; /* a reload's new source (or SPIR-V), any stage; NULL: kept */
    uint32_t *pending_spirv[ORRI_TECH_STAGES];
    size_t pending_size[ORRI_TECH_STAGES]; /* bytes: of the GLSL with its NUL, or of the SPIR-V */
    char pending_name[ORRI_TECH_STAGES][64];
    bool pending;
    orr_reload_state reload;
    char reload_message[sizeof(((orr_error *)0)->message)];
} orri_tech;

/* One target's list, in running order. */
typedef struct orri_tech_list {
    uint32_t target, generation; /* the target's index and generation */
    orri_tech *techs;
    uint32_t count;
    orri_tech_res *res;
    uint32_t res_count;
    VkDescriptorPool pool;
    bool recorded;      /* a frame recorded it (replacing it waits for the queue) */
    bool warned;        /* a skipped technique was logged */
    uint32_t width, height; /* the size the transients were made at */
    orri_allocation *blocks; /* the transients' memory: one block per set of lifetimes apart */
    uint32_t block_count;
    VkDeviceSize bytes, bytes_unshared; /* the blocks' bytes, and what each image on its own would take */
    uint32_t *sort;     /* scratch of the scene techniques that sort their records (a frame's, any of them) */
    size_t sort_words;
} orri_tech_list;

typedef struct orri_techniques orri_techniques;
struct orri_techniques {
    orr_handle_pool ids;
    uint32_t *where;    /* per id index: list index << 8 | position */
    uint32_t where_capacity;
    orri_tech_list *lists;
    uint32_t list_count, list_capacity;
    VkShaderModule vertex;       /* full-screen triangle */
    VkShaderModule scene_vertex; /* scene techniques without a vertex shader of their own */
    VkSampler sampler;
};

/* What a list being checked is made of before it replaces the old one. */
typedef struct orri_tech_plan {
    const orr_technique_desc *descs;
    uint32_t count;
    orri_tech_res res[ORRI_TECH_MAX_RES];
    uint32_t res_count;
    /* per desc (list order) */
    uint32_t reads[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX_READS];   /* declared resources */
    uint32_t writes[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX_WRITES];
    uint32_t producer[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX_READS]; /* list index, or ORRI_TECH_NONE */
    uint32_t depth[ORR_TECHNIQUE_MAX];  /* a scene technique's view depth resource, or ORRI_TECH_NONE */
    /* edges: before[i] has bit j when j must run before i */
    uint32_t before[ORR_TECHNIQUE_MAX];
    uint32_t edge_res[ORR_TECHNIQUE_MAX][ORR_TECHNIQUE_MAX]; /* [i][j]: the resource of edge j -> i */
    uint32_t order[ORR_TECHNIQUE_MAX];  /* running order: list indices */
    uint32_t run_of[ORR_TECHNIQUE_MAX]; /* list index -> running position */
} orri_tech_plan;

/* The renderer's last error, prefixed with orr_renderer_set_techniques; returns `code`. */
orr_result orri_technique_refuse(orr_renderer *r, orr_result code, const char *fmt, ...) ORRI_PRINTF(3, 4);
/* The Vulkan format of a transient's orr_format. */
VkFormat orri_technique_vk_format(orr_format format);
/* The target's list (index), NULL when it has none. */
orri_tech_list *orri_technique_list_of(const orr_renderer *r, uint32_t target);
/* Checks p->descs (p->count of them) for the target at `target` (index): the descs, their attachments
 * (p->res, p->reads, p->writes, p->depth), who each read sees and the running order (p->order, p->run_of).
 * Refused with a message: the renderer's last error says what and where. */
orr_result orri_technique_plan(orr_renderer *r, uint32_t target, orri_tech_plan *p);
/* Whether technique i (list order) of the plan writes resource `res`. */
bool orri_technique_writes_res(const orri_tech_plan *p, uint32_t i, uint32_t res);
/* The copy resource of `source` (made on first use): what a technique reads of what it also writes. */
uint32_t orri_technique_copy_res(orri_tech_plan *p, uint32_t source);

#endif /* ORRERY_GPU_TECHNIQUE_GRAPH_H */
