/* orr_workers: threads kept between runs. Every index of a run is done exactly once, by any thread;
 * a job may start a run of its own on the same workers; several threads may give them work at once;
 * and each of these finishes with every worker busy elsewhere. */
#include "testutil.h"
#include "core/internal.h"

#include <orrery/core.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
    orr_workers *w;
    uint32_t threads, count;
    atomic_uint *hits; /* per index */
    atomic_uint nested; /* indices done by nested runs */
} tally;

static void count_job(void *ctx, uint32_t i)
{
    tally *t = ctx;
    atomic_fetch_add(&t->hits[i], 1);
}

typedef struct plain {
    uint32_t *out; /* written by the jobs without atomics: read after the run, they must all be there */
    pthread_t caller;
    atomic_uint elsewhere; /* jobs run on another thread than the caller's */
} plain;

static void plain_job(void *ctx, uint32_t i)
{
    plain *p = ctx;
    p->out[i] = i * 2654435761u;
    if (!pthread_equal(pthread_self(), p->caller)) atomic_fetch_add(&p->elsewhere, 1);
}

static void nested_inner(void *ctx, uint32_t i)
{
    (void)i;
    atomic_fetch_add(&((tally *)ctx)->nested, 1);
}

/* each outer job starts a run of 50 on the same workers and waits for it */
static void nested_outer(void *ctx, uint32_t i)
{
    tally *t = ctx;
    atomic_fetch_add(&t->hits[i], 1);
    orri_pool_run(t->w, t->threads, 50, nested_inner, t);
}

static tally *new_tally(orr_workers *w, uint32_t threads, uint32_t count)
{
    tally *t = calloc(1, sizeof *t);
    t->w = w, t->threads = threads, t->count = count;
    t->hits = calloc(count, sizeof *t->hits);
    return t;
}

static void assert_each_once(const tally *t)
{
    for (uint32_t i = 0; i < t->count; i++) assert_int_equal(atomic_load(&t->hits[i]), 1);
}

static void free_tally(tally *t)
{
    free(t->hits);
    free(t);
}

static void test_workers_run_each_index_once(void **state)
{
    (void)state;
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 4}, &w, NULL), ORR_OK);
    assert_int_equal(orr_workers_threads(w), 4);
    const uint32_t counts[] = {0, 1, 2, 3, 1000};
    const uint32_t threads[] = {1, 2, 4, 64}; /* more than there are: all of them */
    for (uint32_t c = 0; c < 5; c++)
        for (uint32_t k = 0; k < 4; k++)
            for (int rep = 0; rep < 20; rep++) {
                tally *t = new_tally(w, threads[k], counts[c]);
                orri_pool_run(w, threads[k], counts[c], count_job, t);
                assert_each_once(t);
                free_tally(t);
            }
    orr_workers_destroy(w);
    orr_workers_destroy(NULL);
    assert_int_equal(orr_workers_threads(NULL), 1);
    /* 0 threads: one per core */
    assert_int_equal(orr_workers_create(NULL, &w, NULL), ORR_OK);
    assert_true(orr_workers_threads(w) >= 1);
    orr_workers_destroy(w);
}

/* What the jobs write is seen by the caller once the run returns; workers of one thread start none, and
 * their work runs on the caller's thread whatever the cap. */
static void test_workers_results_and_one_thread(void **state)
{
    (void)state;
    orr_workers *w, *one;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 4}, &w, NULL), ORR_OK);
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 1}, &one, NULL), ORR_OK);
    enum { N = 5000 };
    plain p = {.out = calloc(N, sizeof(uint32_t)), .caller = pthread_self()};
    for (int rep = 0; rep < 20; rep++) {
        memset(p.out, 0, N * sizeof(uint32_t));
        orri_pool_run(w, 4, N, plain_job, &p);
        for (uint32_t i = 0; i < N; i++) assert_int_equal(p.out[i], i * 2654435761u);
    }
    atomic_store(&p.elsewhere, 0);
    orri_pool_run(one, 8, N, plain_job, &p);
    assert_int_equal(atomic_load(&p.elsewhere), 0);
    for (uint32_t i = 0; i < N; i++) assert_int_equal(p.out[i], i * 2654435761u);
    free(p.out);
    orr_workers_destroy(one);
    orr_workers_destroy(w);
}

/* Every job has room for 1 MiB of stack, on kept workers and on threads started for the run (the image
 * and mesh decoders run as jobs): each one fills and sums a 1 MiB array of its own. */
enum { STACK_JOB_BYTES = 1 << 20 };

static void stack_job(void *ctx, uint32_t i)
{
    plain *p = ctx;
    volatile uint8_t room[STACK_JOB_BYTES];
    for (uint32_t k = 0; k < STACK_JOB_BYTES; k += 4096) room[k] = (uint8_t)(i + k / 4096);
    uint32_t sum = 0;
    for (uint32_t k = 0; k < STACK_JOB_BYTES; k += 4096) sum += room[k];
    p->out[i] = sum;
    if (!pthread_equal(pthread_self(), p->caller)) {
        atomic_fetch_add(&p->elsewhere, 1);
        return;
    }
    /* On the caller: give the workers the core before taking another job, so that on a loaded machine
     * they wake and take some rather than finding the run already done by the caller. */
    for (int k = 0; k < 64 && !atomic_load(&p->elsewhere); k++) sched_yield();
}

static void test_workers_jobs_have_stack_room(void **state)
{
    (void)state;
    enum { N = 16 };
    uint32_t out[N], want[N];
    for (uint32_t i = 0; i < N; i++) {
        want[i] = 0;
        for (uint32_t k = 0; k < STACK_JOB_BYTES / 4096; k++) want[i] += (uint8_t)(i + k);
    }
    plain p = {.out = out, .caller = pthread_self()};
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 4}, &w, NULL), ORR_OK);
    for (int kept = 0; kept < 2; kept++) { /* until some ran on another thread: the workers may still be starting */
        atomic_store(&p.elsewhere, 0);
        for (int rep = 0; rep < 200 && !atomic_load(&p.elsewhere); rep++) {
            memset(out, 0, sizeof out);
            orri_pool_run(kept ? w : NULL, 4, N, stack_job, &p);
            assert_memory_equal(out, want, sizeof out);
        }
        assert_true(atomic_load(&p.elsewhere) > 0);
    }
    orr_workers_destroy(w);
}

/* The workers start one another (a tree): all of them come up, so that a run of as many jobs as
 * threads has them all inside it at once; and workers destroyed at once after they are created (some
 * still starting others) are all joined. */
typedef struct gather {
    atomic_uint arrived, most;
    uint32_t want;
} gather;

static void gather_job(void *ctx, uint32_t i)
{
    (void)i;
    gather *g = ctx;
    uint32_t n = atomic_fetch_add(&g->arrived, 1) + 1;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do { /* until all are in, or 5 s */
        n = atomic_load(&g->arrived);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (n < g->want && t.tv_sec - t0.tv_sec < 5);
    uint32_t m = atomic_load(&g->most);
    while (n > m && !atomic_compare_exchange_weak(&g->most, &m, n)) {}
}

static void test_workers_all_start(void **state)
{
    (void)state;
    for (uint32_t threads = 2; threads <= 12; threads += 5) {
        orr_workers *w;
        assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = threads}, &w, NULL), ORR_OK);
        gather g = {.want = threads};
        atomic_init(&g.arrived, 0), atomic_init(&g.most, 0);
        orri_pool_run(w, threads, threads, gather_job, &g);
        assert_int_equal(atomic_load(&g.most), threads);
        orr_workers_destroy(w);
    }
    for (int rep = 0; rep < 50; rep++) {
        orr_workers *w;
        assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 16}, &w, NULL), ORR_OK);
        orr_workers_destroy(w);
    }
}

static void test_workers_nested_runs(void **state)
{
    (void)state;
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &w, NULL), ORR_OK);
    for (int rep = 0; rep < 20; rep++) {
        /* more outer jobs than workers: each worker is inside an outer job when the nested runs start */
        tally *t = new_tally(w, 3, 12);
        orri_pool_run(w, 3, 12, nested_outer, t);
        assert_each_once(t);
        assert_int_equal(atomic_load(&t->nested), 12 * 50);
        free_tally(t);
    }
    orr_workers_destroy(w);
}

typedef struct giver {
    orr_workers *w;
    tally *t;
} giver;

static void *give(void *arg)
{
    giver *g = arg;
    for (int rep = 0; rep < 50; rep++) orri_pool_run(g->w, 8, g->t->count, count_job, g->t);
    return NULL;
}

static void test_workers_shared_by_threads(void **state)
{
    (void)state;
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 3}, &w, NULL), ORR_OK);
    enum { GIVERS = 4 };
    pthread_t tid[GIVERS];
    giver g[GIVERS];
    for (int i = 0; i < GIVERS; i++) {
        g[i] = (giver){w, new_tally(w, 8, 300)};
        assert_int_equal(pthread_create(&tid[i], NULL, give, &g[i]), 0);
    }
    for (int i = 0; i < GIVERS; i++) {
        pthread_join(tid[i], NULL);
        for (uint32_t k = 0; k < 300; k++) assert_int_equal(atomic_load(&g[i].t->hits[k]), 50); /* 50 runs each */
        free_tally(g[i].t);
    }
    orr_workers_destroy(w);
}

typedef struct task_probe {
    tally *t;
    pthread_t ran_on;
} task_probe;

static void task_job(void *ctx, uint32_t i)
{
    task_probe *p = ctx;
    p->ran_on = pthread_self();
    nested_outer(p->t, i); /* once, with a run of 50 of its own on the same workers */
}

/* A task (orri_pool_spawn) runs once, on a worker beside the caller's own runs, and may start runs of
 * its own; joined, it is done. One no worker can take (none kept) runs at the join, on the caller. */
static void test_workers_task(void **state)
{
    (void)state;
    for (uint32_t threads = 1; threads <= 4; threads++) {
        orr_workers *w;
        assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = threads}, &w, NULL), ORR_OK);
        for (int rep = 0; rep < 20; rep++) {
            enum { TASKS = 3 };
            orri_pool_task task[TASKS];
            task_probe probe[TASKS];
            for (int k = 0; k < TASKS; k++) {
                probe[k] = (task_probe){.t = new_tally(w, threads, 1)};
                orri_pool_spawn(w, &task[k], task_job, &probe[k]);
            }
            tally *mine = new_tally(w, threads, 300); /* the caller's work meanwhile */
            orri_pool_run(w, threads, 300, count_job, mine);
            assert_each_once(mine);
            free_tally(mine);
            for (int k = 0; k < TASKS; k++) {
                orri_pool_join(&task[k]);
                assert_each_once(probe[k].t);
                assert_int_equal(atomic_load(&probe[k].t->nested), 50);
                if (threads == 1) assert_true(pthread_equal(probe[k].ran_on, pthread_self()));
                free_tally(probe[k].t);
            }
        }
        orr_workers_destroy(w);
    }
}

/* The shared sort (orri_sort_by_key_u32_shared) against the serial one, on workers and on threads
 * started for it, one to sixteen threads, chunks of one entry up: sizes around the chunks' edges, keys
 * with many ties (stability decides the order) and keys using every bit, from a shuffled permutation.
 * Each result is also checked on its own: keys ascending, ties in the order they were given. */
static uint32_t sort_rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 16);
}

static void test_workers_shared_sort(void **state)
{
    (void)state;
    orr_workers *w;
    assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = 16}, &w, NULL), ORR_OK);
    static const uint32_t sizes[] = {0, 1, 2, 3, 17, 2048, 5000, 70001};
    static const uint32_t maxes[] = {1, 7, 2047, 2048, 70000, 1u << 22, UINT32_MAX};
    static const uint32_t thread_counts[] = {1, 2, 3, 7, 16};
    static const uint32_t min_chunks[] = {1, 5, 4096};
    uint64_t seed = 0x243F6A8885A308D3ull;
    uint32_t cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        uint32_t n = sizes[si];
        uint32_t *keys = malloc((size_t)n * sizeof *keys + 4), *given = malloc((size_t)n * sizeof *given + 4);
        uint32_t *want = malloc((size_t)n * sizeof *want + 4), *got = malloc((size_t)n * sizeof *got + 4);
        uint32_t *tmp = malloc((size_t)n * sizeof *tmp + 4), *where = malloc((size_t)n * sizeof *where + 4);
        uint32_t *counts = malloc((size_t)16 * ORRI_SORT_DIGITS * sizeof *counts);
        assert_true(keys && given && want && got && tmp && where && counts);
        for (size_t mi = 0; mi < sizeof maxes / sizeof *maxes; mi++) {
            uint32_t max = maxes[mi];
            /* ties: values from a small set spread over the range (or every value for small ranges) */
            for (uint32_t i = 0; i < n; i++) {
                uint32_t v = sort_rnd(&seed) << 16 ^ sort_rnd(&seed);
                keys[i] = mi & 1 ? (uint32_t)((uint64_t)(v % 13) * max / 12) : (max == UINT32_MAX ? v : v % (max + 1));
                given[i] = i;
            }
            for (uint32_t i = n; i > 1; i--) { /* shuffled: the sort must keep this order among ties */
                uint32_t j = sort_rnd(&seed) % i, t = given[i - 1];
                given[i - 1] = given[j];
                given[j] = t;
            }
            for (uint32_t i = 0; i < n; i++) where[given[i]] = i;
            memcpy(want, given, (size_t)n * sizeof *want);
            orr_sort_by_key_u32(want, tmp, keys, n, max);
            for (uint32_t i = 1; i < n; i++) {
                assert_true(keys[want[i - 1]] <= keys[want[i]]);
                if (keys[want[i - 1]] == keys[want[i]]) assert_true(where[want[i - 1]] < where[want[i]]);
            }
            for (size_t ti = 0; ti < sizeof thread_counts / sizeof *thread_counts; ti++)
                for (size_t ci = 0; ci < sizeof min_chunks / sizeof *min_chunks; ci++)
                    for (int on = 0; on < 2; on++) {
                        if (!on && (thread_counts[ti] > 3 || n > 5000)) continue; /* threads started per run: few */
                        memcpy(got, given, (size_t)n * sizeof *got);
                        orri_sort_by_key_u32_shared(on ? w : NULL, thread_counts[ti], got, tmp, keys, n, max, min_chunks[ci],
                                                    counts);
                        if (n && memcmp(got, want, (size_t)n * sizeof *got))
                            fail_msg("n %u, max %u, %u threads, chunks of %u+: not the serial order", n, max,
                                     thread_counts[ti], min_chunks[ci]);
                        cases++;
                    }
        }
        free(keys), free(given), free(want), free(got), free(tmp), free(where), free(counts);
    }
    print_message("shared sort: %u cases the same as the serial sort\n", cases);
    orr_workers_destroy(w);
}

/* Workers no more than the cores wait for the next run awake for a while, then sleep (pool.c): runs
 * given back to back, and after gaps longer than that wait, each done once with the jobs' plain writes
 * seen by the caller; nested runs and several givers among them; workers destroyed while awake. */
static void test_workers_waiting_awake(void **state)
{
    (void)state;
    uint32_t cores = orri_cores(), sizes[2] = {2, cores};
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t threads = sizes[k];
        if (threads < 2 || (k && threads == 2)) continue;
        orr_workers *w;
        assert_int_equal(orr_workers_create(&(orr_workers_desc){.threads = threads}, &w, NULL), ORR_OK);
        enum { N = 4096 };
        uint32_t *out = calloc(N, sizeof *out);
        for (int rep = 0; rep < 400; rep++) {
            uint32_t count = 1 + (uint32_t)(rep * 37) % N;
            plain p = {.out = out, .caller = pthread_self()};
            memset(out, 0, N * sizeof *out);
            orri_pool_run(w, threads, count, plain_job, &p);
            for (uint32_t i = 0; i < count; i++) assert_int_equal(out[i], i * 2654435761u);
            if (rep % 50 == 49) { /* longer than the wait awake: the workers are asleep for the next run */
                struct timespec ts = {0, 2000000};
                nanosleep(&ts, NULL);
            }
            if (rep % 100 == 0) {
                tally *t = new_tally(w, threads, 2 * threads);
                orri_pool_run(w, threads, 2 * threads, nested_outer, t);
                assert_each_once(t);
                assert_int_equal(atomic_load(&t->nested), 2 * threads * 50);
                free_tally(t);
            }
        }
        enum { GIVERS = 2 };
        pthread_t tid[GIVERS];
        giver g[GIVERS];
        for (int i = 0; i < GIVERS; i++) {
            g[i] = (giver){w, new_tally(w, 8, 300)};
            assert_int_equal(pthread_create(&tid[i], NULL, give, &g[i]), 0);
        }
        for (int i = 0; i < GIVERS; i++) {
            pthread_join(tid[i], NULL);
            for (uint32_t j = 0; j < 300; j++) assert_int_equal(atomic_load(&g[i].t->hits[j]), 50);
            free_tally(g[i].t);
        }
        free(out);
        orr_workers_destroy(w); /* right after runs: the workers are awake */
    }
}

int orrt_core_workers(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers_run_each_index_once),
        cmocka_unit_test(test_workers_results_and_one_thread),
        cmocka_unit_test(test_workers_jobs_have_stack_room),
        cmocka_unit_test(test_workers_all_start),
        cmocka_unit_test(test_workers_nested_runs),
        cmocka_unit_test(test_workers_shared_by_threads),
        cmocka_unit_test(test_workers_task),
        cmocka_unit_test(test_workers_shared_sort),
        cmocka_unit_test(test_workers_waiting_awake),
    };
    return cmocka_run_group_tests_name("core_workers", tests, NULL, NULL);
}
