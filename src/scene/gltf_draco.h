/* KHR_draco_mesh_compression: a C interface over libdraco (gltf_draco.cpp, the library's one C++
 * file, built when libdraco-dev is present: ORRI_HAVE_DRACO). Component types are glTF's enums. */
#ifndef ORRI_SCENE_GLTF_DRACO_H
#define ORRI_SCENE_GLTF_DRACO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct orri_draco orri_draco;

/* Decodes a Draco mesh or point cloud; NULL with the reason in why[why_cap] (never throws). */
orri_draco *orri_draco_decode(const uint8_t *data, size_t size, char *why, size_t why_cap);
void orri_draco_free(orri_draco *d); /* NULL is a no-op */
uint32_t orri_draco_points(const orri_draco *d);
uint64_t orri_draco_faces(const orri_draco *d); /* 0 for a point cloud */
/* faces x 3 indices in component_type (5121, 5123, 5125); false when one does not fit or is out of range. */
bool orri_draco_indices(const orri_draco *d, uint32_t component_type, void *out);
/* The component count of the attribute with this unique id, -1 when the stream has none. */
int32_t orri_draco_attribute_components(const orri_draco *d, uint32_t unique_id);
/* points x components values of component_type (glTF enum), converted by Draco; false on failure. */
bool orri_draco_attribute(const orri_draco *d, uint32_t unique_id, uint32_t component_type, uint32_t components,
                          void *out);

#ifdef __cplusplus
}
#endif
#endif
