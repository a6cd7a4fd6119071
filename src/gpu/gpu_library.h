/* The library binding (gpu_library.c): which asset library the renderer holds resident state for. */
#ifndef ORRERY_GPU_LIBRARY_H
#define ORRERY_GPU_LIBRARY_H

#include "gpu/gpu_state.h"

/* Whether `id` is the library bound now. */
bool orri_library_alive(const orr_renderer *r, orr_library_id id);

#endif
