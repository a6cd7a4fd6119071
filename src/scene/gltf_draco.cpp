// KHR_draco_mesh_compression: the one C++ file of the library, a C interface (gltf_internal.h) over
// Debian's libdraco. Built only when libdraco-dev is present (ORRERY_DRACO). Nothing here throws out:
// every C++ exception (bad_alloc from a hostile stream) becomes a failure with a message.
#include "scene/gltf_draco.h"

#include <draco/compression/decode.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

namespace {
enum : uint32_t { BYTE = 5120, UNSIGNED_BYTE = 5121, SHORT = 5122, UNSIGNED_SHORT = 5123, UNSIGNED_INT = 5125, FLOAT = 5126 };
}

struct orri_draco {
    std::unique_ptr<draco::PointCloud> cloud;
    const draco::Mesh *mesh; // cloud as a mesh, or nullptr for a point cloud
};

static void set_why(char *why, size_t cap, const char *msg)
{
    if (why && cap) std::snprintf(why, cap, "%s", msg);
}

orri_draco *orri_draco_decode(const uint8_t *data, size_t size, char *why, size_t why_cap)
{
    try {
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char *>(data), size);
        auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
        if (!type.ok()) {
            set_why(why, why_cap, type.status().error_msg());
            return nullptr;
        }
        std::unique_ptr<orri_draco> out(new orri_draco());
        draco::Decoder decoder;
        if (type.value() == draco::TRIANGULAR_MESH) {
            auto mesh = decoder.DecodeMeshFromBuffer(&buffer);
            if (!mesh.ok()) {
                set_why(why, why_cap, mesh.status().error_msg());
                return nullptr;
            }
            out->mesh = mesh.value().get();
            out->cloud = std::move(mesh).value();
        } else if (type.value() == draco::POINT_CLOUD) {
            auto cloud = decoder.DecodePointCloudFromBuffer(&buffer);
            if (!cloud.ok()) {
                set_why(why, why_cap, cloud.status().error_msg());
                return nullptr;
            }
            out->mesh = nullptr;
            out->cloud = std::move(cloud).value();
        } else {
            set_why(why, why_cap, "not a Draco mesh or point cloud");
            return nullptr;
        }
        return out.release();
    } catch (const std::bad_alloc &) {
        set_why(why, why_cap, "out of memory while decoding");
    } catch (...) {
        set_why(why, why_cap, "the decoder failed");
    }
    return nullptr;
}

void orri_draco_free(orri_draco *d) { delete d; }

uint32_t orri_draco_points(const orri_draco *d) { return d->cloud->num_points(); }

uint64_t orri_draco_faces(const orri_draco *d) { return d->mesh ? d->mesh->num_faces() : 0; }

bool orri_draco_indices(const orri_draco *d, uint32_t component_type, void *out)
{
    if (!d->mesh) return false;
    uint32_t n = d->mesh->num_faces();
    uint32_t points = d->cloud->num_points();
    for (uint32_t f = 0; f < n; f++) {
        const draco::Mesh::Face &face = d->mesh->face(draco::FaceIndex(f));
        for (int k = 0; k < 3; k++) {
            uint32_t v = face[k].value();
            if (v >= points) return false;
            size_t i = static_cast<size_t>(f) * 3 + k;
            if (component_type == UNSIGNED_BYTE) {
                if (v > 0xff) return false;
                static_cast<uint8_t *>(out)[i] = static_cast<uint8_t>(v);
            } else if (component_type == UNSIGNED_SHORT) {
                if (v > 0xffff) return false;
                uint16_t s = static_cast<uint16_t>(v);
                std::memcpy(static_cast<uint8_t *>(out) + i * 2, &s, 2);
            } else {
                std::memcpy(static_cast<uint8_t *>(out) + i * 4, &v, 4);
            }
        }
    }
    return true;
}

template <typename T>
static bool convert(const draco::PointAttribute *att, uint32_t points, uint32_t components, uint8_t *out)
{
    T tmp[16];
    for (uint32_t p = 0; p < points; p++) {
        draco::AttributeValueIndex vi = att->mapped_index(draco::PointIndex(p));
        if (vi.value() >= att->size()) return false;
        std::memset(tmp, 0, sizeof tmp);
        if (!att->ConvertValue<T>(vi, static_cast<int8_t>(components), tmp)) return false;
        std::memcpy(out + static_cast<size_t>(p) * components * sizeof(T), tmp, components * sizeof(T));
    }
    return true;
}

int32_t orri_draco_attribute_components(const orri_draco *d, uint32_t unique_id)
{
    const draco::PointAttribute *att = d->cloud->GetAttributeByUniqueId(unique_id);
    return att ? att->num_components() : -1;
}

bool orri_draco_attribute(const orri_draco *d, uint32_t unique_id, uint32_t component_type, uint32_t components,
                          void *out)
{
    const draco::PointAttribute *att = d->cloud->GetAttributeByUniqueId(unique_id);
    if (!att || components == 0 || components > 16) return false;
    uint32_t n = d->cloud->num_points();
    uint8_t *o = static_cast<uint8_t *>(out);
    switch (component_type) {
    case BYTE: return convert<int8_t>(att, n, components, o);
    case UNSIGNED_BYTE: return convert<uint8_t>(att, n, components, o);
    case SHORT: return convert<int16_t>(att, n, components, o);
    case UNSIGNED_SHORT: return convert<uint16_t>(att, n, components, o);
    case UNSIGNED_INT: return convert<uint32_t>(att, n, components, o);
    case FLOAT: return convert<float>(att, n, components, o);
    default: return false;
    }
}
