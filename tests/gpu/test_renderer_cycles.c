/* Renderers made and destroyed many times in one process (issue 38): on one shared Vulkan instance
 * (orr_vulkan_instance) the driver is loaded once, and the 200th renderer draws the bytes the first
 * drew; the default path (an instance per renderer) still draws them too. Destroying an instance
 * that a renderer still uses is caught (debug builds). */
#include "gpu_fixture.h"
#include "gpu_tests.h"

#include <orrery/gpu_vulkan.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CYCLES 200
#define CW 64
#define CH 48

/* The fixture's scene through two views, 64 x 48; the frame must show the scene in both halves. */
static uint8_t *frame(orr_renderer *r, fixture *f)
{
    fix_view views[2];
    fix_two_views((orr_vec3d){0, 0, 0}, CW, CH, ORR_STRATEGY_INDIRECT, ORR_ORDER_HIERARCHY, views);
    uint8_t *px = fix_render(r, f, CW, CH, views, 2, NULL);
    assert_true(fix_count_drawn(px, CW, 0, 0, CW / 2, CH) > CW / 2 * CH / 10);
    assert_true(fix_count_drawn(px, CW, CW / 2, 0, CW, CH) > CW / 2 * CH / 10);
    return px;
}

/* `count` renderers one after another, each destroyed before the next (validation on, silent); every
 * 25th, the first and the last render a frame, which must be the first one's bytes. */
static void cycles(uint32_t count, bool shared)
{
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    uint8_t *first = NULL;
    uint32_t frames = 0;
    for (uint32_t i = 0; i < count; i++) {
        fix_log logged;
        orr_renderer *r = shared ? fix_renderer(&logged) : fix_renderer_own_instance(&logged);
        if (i % 25 == 0 || i + 1 == count) {
            uint8_t *px = frame(r, &f);
            frames++;
            if (!first) {
                first = px;
            } else {
                if (memcmp(first, px, (size_t)CW * CH * 4) != 0) fail_msg("renderer %u drew other bytes than the first", i);
                free(px);
            }
        }
        fix_renderer_done(r, &logged);
    }
    print_message("%u renderers made and destroyed (%s), %u of them drew the same frame\n", count,
                  shared ? "one shared Vulkan instance" : "a Vulkan instance each", frames);
    free(first);
    fix_fini(&f);
}

/* CYCLES renderers; ORRERY_RENDERER_CYCLES may set another count (the sanitizer build runs 50: there
 * 200 take about 70 s of CPU, and its drivers stay loaded anyway, see gpu_device.c). */
void test_renderer_cycles_shared(void **state)
{
    (void)state;
    const char *env = getenv("ORRERY_RENDERER_CYCLES");
    uint32_t count = env && *env ? (uint32_t)strtoul(env, NULL, 10) : CYCLES;
    if (count < 2) fail_msg("ORRERY_RENDERER_CYCLES=%s: at least 2", env);
    cycles(count, true);
}

/* The default path (orr_renderer_desc.vulkan_instance NULL), a few times, drawing what a renderer on
 * the shared instance draws. */
void test_renderer_own_instance(void **state)
{
    (void)state;
    fixture f;
    fix_init(&f, (orr_vec3d){0, 0, 0});
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    uint8_t *expect = frame(r, &f);
    VkInstance shared = orr_renderer_vk_instance(r);
    assert_true(shared == orr_vulkan_instance_vk(fix_vulkan_instance(NULL, 0)));
    fix_renderer_done(r, &logged);
    for (int i = 0; i < 3; i++) {
        r = fix_renderer_own_instance(&logged);
        assert_true(orr_renderer_vk_instance(r) != shared);
        uint8_t *px = frame(r, &f);
        assert_memory_equal(expect, px, (size_t)CW * CH * 4);
        free(px);
        fix_renderer_done(r, &logged);
    }
    free(expect);
    fix_fini(&f);
}

/* The case: CYCLES renderers each with an instance of its own (on NVIDIA's driver this is what
 * ran out of static TLS after about 17). Its own group, run only when named: cycles_unshared. */
void test_renderer_cycles_unshared(void **state)
{
    (void)state;
    cycles(CYCLES, false);
}

#ifndef NDEBUG
/* orr_vulkan_instance_destroy while a renderer made with it lives: the debug assert aborts, naming
 * the misuse (in a child process, which touches no Vulkan object before the assert). */
void test_vulkan_instance_destroy_in_use(void **state)
{
    (void)state;
    fix_log logged;
    orr_renderer *r = fix_renderer(&logged);
    orr_vulkan_instance *in = fix_vulkan_instance(NULL, 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        orr_vulkan_instance_destroy(in);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    fix_renderer_done(r, &logged);
}
#else
void test_vulkan_instance_destroy_in_use(void **state)
{
    (void)state;
    print_message("release build: API misuse is not checked\n");
}
#endif
