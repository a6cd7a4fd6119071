// What a task workgroup hands its mesh workgroups: the record (as gl_InstanceIndex would be: the
// indexed command's first instance + the record's place), the primitive's first vertex in the pool
// (the indexed command's vertex offset) and the surviving meshlets, one per mesh workgroup.
struct orr_meshlet_payload {
    uint record;
    uint vertex_offset;
    uint meshlets[ORR_GPU_MESHLET_TASK_THREADS];
};
