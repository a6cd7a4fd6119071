/* A small reference for glTF vertex positions, written for the tests alone and independent of the
 * library's code paths: it reads a .gltf with cJSON and its buffers itself (files beside it or base64
 * data URIs), poses the nodes at a time of one animation (step, linear with slerp for rotations, cubic
 * spline; translation, rotation, scale and morph weights), and places a vertex of a node's mesh in the
 * world: its morph targets' POSITION deltas at the node's weights (the animation's, else the node's,
 * else the mesh's), then its skin (the joints' world matrices times their inverse bind matrices,
 * weights divided by their sum, as viewers do with files whose sums are off) or else the node's world
 * matrix. Everything in binary64. It refuses (fails the test) what it does not read: .glb files and
 * sparse accessors. */
#ifndef ORRERY_TESTS_GLTF_REFERENCE_H
#define ORRERY_TESTS_GLTF_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ref_doc ref_doc;

ref_doc *ref_load(const char *path);
void ref_free(ref_doc *d);
uint32_t ref_node_count(const ref_doc *d);
int32_t ref_node_mesh(const ref_doc *d, uint32_t node);   /* -1 = none */
uint32_t ref_primitive_count(const ref_doc *d, uint32_t mesh);
uint32_t ref_vertex_count(const ref_doc *d, uint32_t mesh, uint32_t prim);
/* The primitive's index of corner k (k < ref_index_count), or k itself when it has no indices. */
uint32_t ref_index_count(const ref_doc *d, uint32_t mesh, uint32_t prim);
uint32_t ref_index(const ref_doc *d, uint32_t mesh, uint32_t prim, uint32_t k);
bool ref_has_normals(const ref_doc *d, uint32_t mesh, uint32_t prim);
uint32_t ref_animation_count(const ref_doc *d);
double ref_animation_duration(const ref_doc *d, uint32_t anim);
/* Poses every node at time t (seconds, clamped to the animation's keys) of animation `anim`
 * (UINT32_MAX: the rest pose), and propagates the world matrices. `weights` false: the animation's
 * weights channels are left out (the rest weights stay: what a renderer that ignores them draws). */
void ref_pose(ref_doc *d, uint32_t anim, double t, bool weights);
/* The world position of vertex v of primitive `prim` of node `node`'s mesh, as posed. */
void ref_vertex(const ref_doc *d, uint32_t node, uint32_t prim, uint32_t v, double out[3]);
/* Calls fn(user, x) with the world position (ref_vertex's) of every vertex of every node's mesh, as
 * posed, node by node. */
void ref_each_vertex(const ref_doc *d, void (*fn)(void *user, const double x[3]), void *user);
/* The posed vertices' box: its centre and half its diagonal. */
void ref_posed_sphere(const ref_doc *d, double centre[3], double *radius);

#endif
