/* Internal to the glTF parse: one element of an accessor, its bytes and their values. Inline, since the
 * readers' and the data scan's inner loops use them (gltf_accessors.c, gltf_scan.c), as do the checks of
 * the meshes, animations and nodes. They do no bounds checks: the accessors they are given have had
 * their layout checked against their views. */
#ifndef ORRI_SCENE_GLTF_ELEMENTS_H
#define ORRI_SCENE_GLTF_ELEMENTS_H

#include "scene/gltf_internal.h"

#include <math.h>
#include <string.h>

static inline uint32_t comp_size(uint32_t t)
{
    switch (t) {
    case ORRI_GLTF_BYTE:
    case ORRI_GLTF_UNSIGNED_BYTE: return 1;
    case ORRI_GLTF_SHORT:
    case ORRI_GLTF_UNSIGNED_SHORT: return 2;
    case ORRI_GLTF_UNSIGNED_INT:
    case ORRI_GLTF_FLOAT: return 4;
    default: return 0;
    }
}

static inline const char *comp_name(uint32_t t)
{
    switch (t) {
    case ORRI_GLTF_BYTE: return "BYTE";
    case ORRI_GLTF_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
    case ORRI_GLTF_SHORT: return "SHORT";
    case ORRI_GLTF_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
    case ORRI_GLTF_UNSIGNED_INT: return "UNSIGNED_INT";
    case ORRI_GLTF_FLOAT: return "FLOAT";
    default: return "?";
    }
}

static const char *const type_names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};

/* Where a sparse accessor's indices and values start (both validated against their views). */
static inline const uint8_t *sparse_indices(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    const orri_gltf_view *v = &d->views[a->sparse_indices_view];
    return v->data + a->sparse_indices_offset;
}

static inline const uint8_t *sparse_values(const orri_gltf_doc *d, const orri_gltf_accessor *a)
{
    const orri_gltf_view *v = &d->views[a->sparse_values_view];
    return v->data + a->sparse_values_offset;
}

static inline const uint8_t *elem_ptr(const orri_gltf_doc *d, const orri_gltf_accessor *a, uint32_t i)
{
    const orri_gltf_view *v = &d->views[a->view];
    return v->data + a->offset + (uint64_t)i * a->stride;
}

/* A component's value as read: normalized integers mapped to [0, 1] or [-1, 1] (an order-keeping map) */
static inline double comp_value(double v, uint32_t type, bool normalized)
{
    if (!normalized) return v;
    switch (type) {
    case ORRI_GLTF_BYTE: return fmax(v / 127.0, -1.0);
    case ORRI_GLTF_UNSIGNED_BYTE: return v / 255.0;
    case ORRI_GLTF_SHORT: return fmax(v / 32767.0, -1.0);
    case ORRI_GLTF_UNSIGNED_SHORT: return v / 65535.0;
    case ORRI_GLTF_UNSIGNED_INT: return v / 4294967295.0;
    default: return v;
    }
}

static inline double read_comp(const uint8_t *p, uint32_t type, bool normalized)
{
    switch (type) {
    case ORRI_GLTF_BYTE: {
        int8_t v;
        memcpy(&v, p, 1);
        return comp_value(v, type, normalized);
    }
    case ORRI_GLTF_UNSIGNED_BYTE: return comp_value(p[0], type, normalized);
    case ORRI_GLTF_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return comp_value(v, type, normalized);
    }
    case ORRI_GLTF_UNSIGNED_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return comp_value(v, type, normalized);
    }
    case ORRI_GLTF_UNSIGNED_INT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return comp_value(v, type, normalized);
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static inline uint32_t read_uint(const uint8_t *p, uint32_t type)
{
    switch (type) {
    case ORRI_GLTF_UNSIGNED_BYTE:
    case ORRI_GLTF_BYTE: return p[0];
    case ORRI_GLTF_UNSIGNED_SHORT:
    case ORRI_GLTF_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case ORRI_GLTF_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f >= 0 && f < 4294967295.0f ? (uint32_t)f : 0;
    }
    default: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

/* Byte offset of component k inside an element (matrix columns are padded to 4 bytes). */
static inline uint32_t comp_offset(const orri_gltf_accessor *a, uint32_t k)
{
    return (k / a->rows) * a->column_stride + (k % a->rows) * a->comp_size;
}

#endif
