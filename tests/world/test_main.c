/* World tests: one executable, one group per topic file. */
#include "testutil.h"

#include <stddef.h>

#define WORLD_GROUP(name)                                                                                     \
    extern const struct CMUnitTest orrt_world_##name##_tests[];                                                 \
    extern const size_t orrt_world_##name##_count;
WORLD_GROUP(hierarchy)
WORLD_GROUP(transform)
WORLD_GROUP(component)
WORLD_GROUP(clone)
WORLD_GROUP(random)
WORLD_GROUP(robust)
WORLD_GROUP(changes)

int main(void)
{
    int failed = 0;
    failed += _cmocka_run_group_tests("world_hierarchy", orrt_world_hierarchy_tests, orrt_world_hierarchy_count, NULL, NULL);
    failed += _cmocka_run_group_tests("world_transform", orrt_world_transform_tests, orrt_world_transform_count, NULL, NULL);
    failed += _cmocka_run_group_tests("world_component", orrt_world_component_tests, orrt_world_component_count, NULL, NULL);
    failed += _cmocka_run_group_tests("world_clone", orrt_world_clone_tests, orrt_world_clone_count, NULL, NULL);
    failed += _cmocka_run_group_tests("world_robust", orrt_world_robust_tests, orrt_world_robust_count, NULL, NULL);
    failed += _cmocka_run_group_tests("world_changes", orrt_world_changes_tests, orrt_world_changes_count, NULL, NULL);
    failed += _cmocka_run_group_tests("world_random", orrt_world_random_tests, orrt_world_random_count, NULL, NULL);
    return failed ? 1 : 0;
}
