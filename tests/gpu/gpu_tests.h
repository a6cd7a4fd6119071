/* The gpu tests in files other than test_gpu.c, run by test_gpu.c's main (ORRT_GPU_MORE_TESTS). */
#ifndef ORRERY_TESTS_GPU_TESTS_H
#define ORRERY_TESTS_GPU_TESTS_H

#include "testutil.h"

/* test_lod.c */
void test_lod_gpu_equals_cpu(void **state);
void test_range_gpu_equals_cpu(void **state);
void test_lod_counts_instances(void **state);

/* test_threads.c */
void test_frame_passes_alike_at_any_thread_count(void **state);

/* test_renderer_cycles.c */
void test_renderer_cycles_shared(void **state);
void test_renderer_own_instance(void **state);
void test_renderer_cycles_unshared(void **state); /* group cycles_unshared */
void test_vulkan_instance_destroy_in_use(void **state);

/* test_resources.c */
void test_space_aligned(void **state);
void test_memory_blocks(void **state);
void test_mip_chains_in_bands(void **state);
void test_mip_chains_staged(void **state);

/* test_shadow.c */
void test_shadow_box_darkens_floor(void **state);
void test_shadow_off_is_unshadowed_bytes(void **state);
void test_shadow_far_from_origin_same_bytes(void **state);
void test_shadow_strategies_agree(void **state);
void test_shadow_cascade_seams(void **state);
void test_shadow_settings_checked(void **state);
void test_shadow_spot_light(void **state);
void test_shadow_point_light(void **state);
void test_shadow_several_lights(void **state);
void test_shadow_light_order(void **state);
/* test_shadow_casters.c */
void test_shadow_cutout_holes(void **state);
void test_shadow_point_range(void **state);
void test_shadow_point_focus(void **state);
/* test_shading.c */
void test_checker_exact(void **state);
void test_mip_edges_oblique(void **state);
void test_mips_alike_at_any_thread_count(void **state);
void test_texcoord1_and_transform(void **state);
void test_light_intensity_doubles(void **state);
void test_point_light_inverse_square(void **state);
void test_spot_cone_and_every_light(void **state);
void test_double_sided_lighting(void **state);
void test_normal_map(void **state);
void test_emissive_without_lights(void **state);
void test_rough_dielectric_and_smooth_metal(void **state);
void test_morph_weights(void **state);
void test_msaa_strategies_identical(void **state);
void test_texture_paths(void **state);

/* test_texture_target.c */
void test_texture_target_exact(void **state);
void test_texture_target_chain_order(void **state);
void test_texture_target_cycles_refused(void **state);
void test_texture_target_destroyed_white(void **state);

/* test_shell.c */
void test_shell_equals_batched(void **state);
void test_one_shell_is_the_plain_surface(void **state);
void test_shell_index_reaches_shader(void **state);
void test_fur_in_gpu_culled_view(void **state);
void test_noise_thins_outwards(void **state);
void test_shell_view_desc_checked(void **state);

#define ORRT_GPU_SHELL_TESTS                                                                          \
    cmocka_unit_test(test_shell_equals_batched), cmocka_unit_test(test_one_shell_is_the_plain_surface), \
        cmocka_unit_test(test_shell_index_reaches_shader), cmocka_unit_test(test_fur_in_gpu_culled_view), \
        cmocka_unit_test(test_noise_thins_outwards), cmocka_unit_test(test_shell_view_desc_checked)

/* test_meshlets.c */
void test_meshlet_equals_indirect(void **state);
void test_packed_streams_render_like_floats(void **state);
void test_meshlet_culling(void **state);
void test_meshlet_pool_once(void **state);
void test_meshlet_skinned_and_morphed(void **state);
void test_meshlet_path_selection(void **state);
void test_technique_mesh_refusals(void **state);
void test_technique_mesh_equals_vertex(void **state); /* the group mesh_shaders */
void test_mesh_shaders_equal_fallback(void **state); /* the group mesh_shaders (CTest entry gpu_mesh_shaders) */

/* test_technique.c */
void test_technique_channel_swap(void **state);
void test_technique_host_data_grey(void **state);
void test_technique_transient_chain(void **state);
void test_technique_reads_view_depth(void **state);
void test_technique_refusals(void **state);
void test_technique_transient_fraction(void **state);
void test_technique_transient_reuse(void **state);
/* test_technique_scene.c */
void test_technique_scene_flat_layer(void **state);
void test_technique_scene_depth_prepass(void **state);
void test_technique_scene_host_vertex(void **state);
void test_technique_scene_refusals(void **state);
void test_technique_scene_reload(void **state);
void test_technique_scene_after_view(void **state);
void test_technique_scene_between_passes(void **state);
/* test_technique_state.c */
void test_technique_scene_order(void **state);
void test_technique_scene_topology(void **state);
void test_technique_scene_msaa(void **state);
void test_technique_scene_meshlet_view(void **state);
/* test_technique_compute.c */
void test_technique_compute_invert(void **state);
void test_technique_compute_dispatch_sizes(void **state);
void test_technique_compute_refusals(void **state);
void test_technique_compute_color(void **state);

#define ORRT_GPU_TECHNIQUE_TESTS                                                                        \
    cmocka_unit_test(test_technique_channel_swap), cmocka_unit_test(test_technique_host_data_grey),     \
        cmocka_unit_test(test_technique_transient_chain), cmocka_unit_test(test_technique_reads_view_depth), \
        cmocka_unit_test(test_technique_refusals), cmocka_unit_test(test_technique_transient_fraction),         \
        cmocka_unit_test(test_technique_transient_reuse),                                                      \
        cmocka_unit_test(test_technique_scene_flat_layer),         \
        cmocka_unit_test(test_technique_scene_depth_prepass), cmocka_unit_test(test_technique_scene_host_vertex), \
        cmocka_unit_test(test_technique_scene_refusals), cmocka_unit_test(test_technique_scene_reload),       \
        cmocka_unit_test(test_technique_scene_after_view), cmocka_unit_test(test_technique_scene_order),      \
        cmocka_unit_test(test_technique_scene_between_passes),                                                \
        cmocka_unit_test(test_technique_scene_topology), cmocka_unit_test(test_technique_scene_msaa),         \
        cmocka_unit_test(test_technique_scene_meshlet_view), cmocka_unit_test(test_technique_compute_invert), \
        cmocka_unit_test(test_technique_mesh_refusals),                                                       \
        cmocka_unit_test(test_technique_compute_dispatch_sizes), cmocka_unit_test(test_technique_compute_refusals),  \
        cmocka_unit_test(test_technique_compute_color)

/* test_pick.c */
void test_pick_pixels(void **state);
void test_pick_layer_mask(void **state);
void test_pick_strategies_agree(void **state);
void test_pick_far_position(void **state);
void test_pick_stale_never(void **state);
void test_pick_refusals(void **state);
void test_pick_morphed(void **state);

#define ORRT_GPU_PICK_TESTS                                                                            \
    cmocka_unit_test(test_pick_pixels), cmocka_unit_test(test_pick_layer_mask),                        \
        cmocka_unit_test(test_pick_strategies_agree), cmocka_unit_test(test_pick_far_position),        \
        cmocka_unit_test(test_pick_stale_never), cmocka_unit_test(test_pick_refusals), cmocka_unit_test(test_pick_morphed)

/* test_debug_draw.c */
void test_debug_lines_where_projected(void **state);
void test_debug_depth_test_hides(void **state);
void test_debug_shapes(void **state);
void test_debug_builtin(void **state);
void test_debug_cascades(void **state);

#define ORRT_GPU_DEBUG_DRAW_TESTS                                                                      \
    cmocka_unit_test(test_debug_lines_where_projected), cmocka_unit_test(test_debug_depth_test_hides), \
        cmocka_unit_test(test_debug_shapes), cmocka_unit_test(test_debug_builtin),                     \
        cmocka_unit_test(test_debug_cascades)

/* test_occlusion.c */
void test_occlusion_same_bytes(void **state);

#define ORRT_GPU_MORE_TESTS                                                                          \
    cmocka_unit_test(test_occlusion_same_bytes),                                                     \
    cmocka_unit_test(test_lod_gpu_equals_cpu), cmocka_unit_test(test_range_gpu_equals_cpu),          \
    cmocka_unit_test(test_lod_counts_instances),                                                     \
    cmocka_unit_test(test_renderer_cycles_shared), cmocka_unit_test(test_renderer_own_instance),    \
        cmocka_unit_test(test_vulkan_instance_destroy_in_use),                                       \
    cmocka_unit_test(test_space_aligned), cmocka_unit_test(test_memory_blocks),                      \
        cmocka_unit_test(test_mip_chains_in_bands), cmocka_unit_test(test_mip_chains_staged),        \
        cmocka_unit_test(test_checker_exact), cmocka_unit_test(test_mip_edges_oblique),              \
        cmocka_unit_test(test_mips_alike_at_any_thread_count),                                       \
        cmocka_unit_test(test_frame_passes_alike_at_any_thread_count),                               \
        cmocka_unit_test(test_texcoord1_and_transform), cmocka_unit_test(test_light_intensity_doubles), \
        cmocka_unit_test(test_point_light_inverse_square), cmocka_unit_test(test_spot_cone_and_every_light), \
        cmocka_unit_test(test_double_sided_lighting), cmocka_unit_test(test_normal_map),             \
        cmocka_unit_test(test_emissive_without_lights), cmocka_unit_test(test_rough_dielectric_and_smooth_metal), \
        cmocka_unit_test(test_morph_weights), cmocka_unit_test(test_msaa_strategies_identical),      \
        cmocka_unit_test(test_texture_paths), cmocka_unit_test(test_texture_target_exact),          \
        cmocka_unit_test(test_texture_target_chain_order), cmocka_unit_test(test_texture_target_cycles_refused), \
        cmocka_unit_test(test_texture_target_destroyed_white), cmocka_unit_test(test_meshlet_equals_indirect), \
        cmocka_unit_test(test_packed_streams_render_like_floats), \
        cmocka_unit_test(test_meshlet_culling), cmocka_unit_test(test_meshlet_pool_once),              \
        cmocka_unit_test(test_meshlet_skinned_and_morphed), cmocka_unit_test(test_meshlet_path_selection), \
        cmocka_unit_test(test_shadow_box_darkens_floor), cmocka_unit_test(test_shadow_off_is_unshadowed_bytes), \
        cmocka_unit_test(test_shadow_far_from_origin_same_bytes), cmocka_unit_test(test_shadow_strategies_agree), \
        cmocka_unit_test(test_shadow_cascade_seams), cmocka_unit_test(test_shadow_settings_checked), \
        cmocka_unit_test(test_shadow_spot_light), \
        cmocka_unit_test(test_shadow_point_light), cmocka_unit_test(test_shadow_several_lights), \
        cmocka_unit_test(test_shadow_light_order), cmocka_unit_test(test_shadow_cutout_holes), \
        cmocka_unit_test(test_shadow_point_range), \
        cmocka_unit_test(test_shadow_point_focus), \
        cmocka_unit_test(test_interpolation_between_ticks), cmocka_unit_test(test_interpolation_lights_and_cameras), \
        cmocka_unit_test(test_interpolation_joints), cmocka_unit_test(test_interpolation_off),                   \
        cmocka_unit_test(test_interpolation_cull_frustum_edge), \
        cmocka_unit_test(test_interpolation_cull_occluded), cmocka_unit_test(test_interpolation_cull_shadow), \
        cmocka_unit_test(test_interpolation_pick)

/* test_interpolation.c */
void test_interpolation_between_ticks(void **state);
void test_interpolation_lights_and_cameras(void **state);
void test_interpolation_joints(void **state);
void test_interpolation_off(void **state);
/* test_interpolation_cull.c */
void test_interpolation_cull_frustum_edge(void **state);
void test_interpolation_cull_occluded(void **state);
void test_interpolation_cull_shadow(void **state);
void test_interpolation_pick(void **state);

#endif
