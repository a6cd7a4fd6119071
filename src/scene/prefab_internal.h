/* Internal to the scene module: the payload a prefab id carries in the asset library. */
#ifndef ORRI_SCENE_PREFAB_INTERNAL_H
#define ORRI_SCENE_PREFAB_INTERNAL_H

#include <orrery/scene.h>

typedef struct orri_prefab {
    orr_allocator allocator; /* the asset library's, which allocated this payload */
    orr_world *world;        /* the template; owned */
    orr_entity root;         /* one child per glTF scene */
    uint32_t scene_count;
    uint32_t default_scene;  /* the file's `scene`, or 0 */
    uint32_t clip_count;     /* = the file's animations; clips[i] is none for one without usable channels */
    orr_clip_id *clips;
} orri_prefab;

#endif
