/* Parallel loops: job(ctx, i) for every i in [0, count), on threads started for the call or on an
 * orr_workers kept by the caller, the calling thread among them; returns when all are done. Jobs are
 * taken in index order from one atomic counter, so which thread runs a job varies from run to run;
 * callers make each job write only its own slot, which is what keeps their results independent of
 * the thread count. Nothing here logs or allocates per run: a job must not either (the hooks need not
 * be thread-safe).
 *
 * orr_workers keeps a list of open runs ("batches", on their callers' stacks). An idle worker joins
 * the oldest one that has room for a helper and takes its indices until none is left; the caller
 * takes them too, so a run finishes even when no worker comes, which is what lets a job start a run
 * of its own (nested) without deadlock. The caller then unlists its batch and waits for the helpers
 * still inside it to leave, after which no thread touches it again.
 *
 * A task (orri_pool_spawn) is a batch of one job that its caller does not take at once: listed
 * until a worker takes it, or until orri_pool_join, which takes it if none has and then waits as a run
 * does. Its record is the caller's (not on a stack: it outlives the call that lists it).
 *
 * A worker that finds nothing to take waits for a while awake (ORRI_SPIN_NS), watching a counter of
 * the runs listed, before it sleeps on the condition variable: a frame gives its workers a dozen short
 * runs a few microseconds apart, and a sleeping thread takes some 5-50 us to wake (and then queues for
 * the mutex behind the others), which at 16 threads cost more than the runs' work. The caller waits for
 * its last helpers the same way. Neither waits awake where the workers outnumber the cores: there it
 * would only take turns from the thread that has the work. On Linux a worker then sleeps on that
 * counter itself (a futex), not on a condition variable: a run given to sleeping workers wakes them
 * all at once, where each woken from the condition variable had to take its mutex in turn, waking
 * only when the one before it let go (some microseconds apiece, 15 of them at 16 threads).
 *
 * The workers start one another, as a binary tree (worker k starts 2k + 1 and 2k + 2): starting a
 * thread costs its starter some 25 us, so 15 of them cost the creating thread 0.4 ms one by one, and
 * 0.05 ms this way. orr_workers_create returns at once; a run given before they are all up has fewer
 * helpers, and one that cannot start leaves its share (and its subtree's) to the others. They are
 * joined the same way: each the two it started, before it ends, and the destroyer the first.
 *
 * Threads get stacks of ORRI_THREAD_STACK, not the process default (8 MiB, from the stack limit): the C
 * library keeps the stacks of ended threads for new ones only up to 40 MiB in all, and unmapping the
 * rest when 15 threads end cost a pool's destroyer 0.3-0.6 ms on a 16-core host (0.1 ms this way). */
#include "core/internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/* How long a worker with nothing to take stays awake for the next run, and a caller for its last
 * helpers, before sleeping: longer than the gaps between a frame's runs (tens of microseconds), far
 * shorter than a frame. */
#define ORRI_SPIN_NS 200000

typedef orri_pool_task batch; /* a run's record, on its caller's stack (a task's: wherever the caller keeps it) */

typedef struct worker {
    struct orr_workers *w;
    uint32_t index;
    bool alive; /* started: to be joined */
    pthread_t tid;
} worker;

struct orr_workers {
    orr_allocator allocator;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* a batch was listed, or quit */
    pthread_cond_t left; /* a helper left a batch */
    batch *first, *last; /* open batches, oldest first */
    bool quit;
    bool spin;           /* no more threads than cores: waits are spent awake for a while (see above) */
    atomic_uint posted;  /* runs listed (and quit): what a waiting worker watches (and, on Linux, sleeps on) */
    uint32_t sleeping;   /* workers asleep or about to be (under the mutex) */
    uint32_t threads;    /* the caller's and threads - 1 workers */
    atomic_uint settled; /* workers whose start was tried, written (alive, tid) before this counts them */
    worker worker[];
};

static void take_all(batch *b)
{
    for (;;) {
        uint32_t i = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
        if (i >= b->count) return;
        b->job(b->ctx, i);
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Awake, for at most ORRI_SPIN_NS, until (*v == x) is `equal`; true if it came to be. It looks every
 * couple of microseconds, pausing between looks (which leaves a hyperthread sibling its core), and
 * yields the core every few looks, so that a thread with work on it is not kept waiting. */
static bool spin_until(atomic_uint *v, uint32_t x, bool equal)
{
    uint64_t until = now_ns() + ORRI_SPIN_NS;
    for (uint32_t k = 1;; k++) {
        if ((atomic_load_explicit(v, memory_order_acquire) == x) == equal) return true;
        for (int p = 0; p < 32; p++) cpu_relax();
        if (k % 4 == 0) sched_yield(); /* every few microseconds: a loaded machine's threads get the core */
        if (k % 16 == 0 && now_ns() > until) return false;
    }
}

/* The mutex, for the short lists and counts it guards: where waits are spent awake, tried a while
 * before sleeping on it, since a dozen workers that see a run at once otherwise queue in the kernel,
 * each waking only when the one before it unlocks (microseconds apiece). */
static void lock(orr_workers *w)
{
    if (w->spin)
        for (int k = 0; k < 1024; k++) {
            if (pthread_mutex_trylock(&w->mu) == 0) return;
            cpu_relax();
        }
    pthread_mutex_lock(&w->mu);
}

/* Sleeps until `posted` is no longer `seen` (or a spurious wake); wakes every sleeper. */
static void sleep_on(orr_workers *w, uint32_t seen)
{
#if defined(__linux__)
    pthread_mutex_unlock(&w->mu);
    syscall(SYS_futex, (uint32_t *)&w->posted, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    lock(w);
#else
    (void)seen;
    pthread_cond_wait(&w->wake, &w->mu);
#endif
}

static void wake_all(orr_workers *w)
{
#if defined(__linux__)
    syscall(SYS_futex, (uint32_t *)&w->posted, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    pthread_cond_broadcast(&w->wake);
#endif
}

static void unlist(orr_workers *w, batch *b)
{
    if (!b->listed) return;
    if (b->prev_open) b->prev_open->next_open = b->next_open;
    else w->first = b->next_open;
    if (b->next_open) b->next_open->prev_open = b->prev_open;
    else w->last = b->prev_open;
    b->listed = false;
}

/* Workers in the subtree of worker k of n. */
static uint32_t subtree(uint64_t k, uint32_t n)
{
    uint32_t size = 0;
    for (uint64_t lo = k, hi = k; lo < n; lo = 2 * lo + 1, hi = 2 * hi + 2) size += (uint32_t)((hi < n ? hi : n - 1) - lo + 1);
    return size;
}

/* Room for the deepest job, many times over: every test (image decoders, Draco and meshopt decoding on
 * the workers among them) passes with 128 KiB stacks in a sanitizer build. */
#define ORRI_THREAD_STACK ((size_t)2 << 20)

static bool start_thread(pthread_t *tid, void *(*main)(void *), void *arg)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return false;
    bool ok = pthread_attr_setstacksize(&attr, ORRI_THREAD_STACK) == 0 && pthread_create(tid, &attr, main, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

static void *workers_main(void *arg);

static void start_worker(orr_workers *w, uint64_t k)
{
    if (k >= w->threads - 1) return;
    worker *t = &w->worker[k];
    t->w = w, t->index = (uint32_t)k;
    t->alive = start_thread(&t->tid, workers_main, t);
    atomic_fetch_add_explicit(&w->settled, t->alive ? 1 : subtree(k, w->threads - 1), memory_order_release);
}

static void *workers_main(void *arg)
{
    worker *self = arg;
    orr_workers *w = self->w;
    start_worker(w, 2 * (uint64_t)self->index + 1);
    start_worker(w, 2 * (uint64_t)self->index + 2);
    lock(w);
    for (;;) {
        batch *b = w->first;
        while (b && atomic_load_explicit(&b->helpers, memory_order_relaxed) >= b->helpers_max) b = b->next_open;
        if (!b) {
            if (w->quit) break;
            uint32_t seen = atomic_load_explicit(&w->posted, memory_order_relaxed); /* (under the mutex) */
            if (w->spin) {
                pthread_mutex_unlock(&w->mu);
                bool posted = spin_until(&w->posted, seen, false);
                lock(w);
                if (posted || atomic_load_explicit(&w->posted, memory_order_relaxed) != seen) continue;
            }
            w->sleeping++;
            sleep_on(w, seen);
            w->sleeping--;
            continue;
        }
        atomic_fetch_add_explicit(&b->helpers, 1, memory_order_relaxed);
        pthread_mutex_unlock(&w->mu);
        take_all(b);
        lock(w);
        unlist(w, b); /* nothing left to take: no one else joins */
        if (atomic_fetch_sub_explicit(&b->helpers, 1, memory_order_release) == 1) pthread_cond_broadcast(&w->left);
    }
    pthread_mutex_unlock(&w->mu);
    /* each joins the two it started, as a tree too: 15 joined one by one cost their destroyer 0.2 ms */
    for (uint64_t c = 2 * (uint64_t)self->index + 1; c <= 2 * (uint64_t)self->index + 2 && c + 1 < w->threads; c++)
        if (w->worker[c].alive) pthread_join(w->worker[c].tid, NULL);
    return NULL;
}

orr_result orr_workers_create(const orr_workers_desc *desc, orr_workers **out, orr_error *err)
{
    ORRI_REQUIRE(out, err, "orr_workers_create: out is NULL");
    *out = NULL;
    uint32_t threads = desc && desc->threads ? desc->threads : orri_cores();
    if (threads > ORRI_MAX_THREADS) threads = ORRI_MAX_THREADS;
    orr_allocator a = orri_allocator_or_default(desc ? &desc->allocator : NULL);
    size_t size = sizeof(orr_workers) + sizeof(worker) * threads;
    orr_workers *w = orri_alloc(&a, size);
    if (!w) return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_workers_create: out of memory for %u workers", threads);
    w->allocator = a, w->threads = threads;
    w->spin = threads <= orri_cores();
    atomic_init(&w->posted, 0);
    if (pthread_mutex_init(&w->mu, NULL) != 0) {
        orri_free(&a, w, size);
        return orri_error(err, ORR_ERROR_OUT_OF_MEMORY, "orr_workers_create: pthread_mutex_init failed");
    }
    pthread_cond_init(&w->wake, NULL), pthread_cond_init(&w->left, NULL);
    atomic_init(&w->settled, 0);
    start_worker(w, 0);
    *out = w;
    return ORR_OK;
}

void orr_workers_destroy(orr_workers *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    ORRI_ASSERT(!w->first, "orr_workers_destroy: work is still being given to them");
    pthread_mutex_unlock(&w->mu);
    /* every start tried (a worker starts its own before it takes work: this waits at most for that) */
    while (atomic_load_explicit(&w->settled, memory_order_acquire) < w->threads - 1) sched_yield();
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    atomic_fetch_add_explicit(&w->posted, 1, memory_order_release);
    pthread_mutex_unlock(&w->mu);
    wake_all(w);
    if (w->threads > 1 && w->worker[0].alive) pthread_join(w->worker[0].tid, NULL); /* which joined its own */
    pthread_cond_destroy(&w->wake), pthread_cond_destroy(&w->left);
    pthread_mutex_destroy(&w->mu);
    orr_allocator a = w->allocator;
    orri_free(&a, w, sizeof(orr_workers) + sizeof(worker) * w->threads);
}

uint32_t orr_workers_threads(const orr_workers *w) { return w ? w->threads : 1; }

static void list(orr_workers *w, batch *b)
{
    atomic_init(&b->next, 0);
    atomic_init(&b->helpers, 0);
    b->listed = true, b->next_open = NULL;
    lock(w);
    b->prev_open = w->last;
    if (w->last) w->last->next_open = b;
    else w->first = b;
    w->last = b;
    atomic_fetch_add_explicit(&w->posted, 1, memory_order_release);
    bool sleeping = w->sleeping > 0;
    pthread_mutex_unlock(&w->mu);
    if (sleeping) wake_all(w); /* (unlocked first: the woken take the mutex next) */
}

/* Takes what is left of it, then waits for the helpers still inside. */
static void finish(orr_workers *w, batch *b)
{
    take_all(b);
    lock(w);
    unlist(w, b);
    if (w->spin && atomic_load_explicit(&b->helpers, memory_order_relaxed)) {
        pthread_mutex_unlock(&w->mu); /* (unlisted: no helper joins now) */
        spin_until(&b->helpers, 0, true);
        lock(w);
    }
    while (atomic_load_explicit(&b->helpers, memory_order_acquire)) pthread_cond_wait(&w->left, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static void run_on(orr_workers *w, uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index),
                   void *ctx)
{
    batch b = {.workers = w, .job = job, .ctx = ctx, .count = count, .helpers_max = (threads < count ? threads : count) - 1};
    list(w, &b);
    finish(w, &b);
}

void orri_pool_spawn(orr_workers *workers, orri_pool_task *task, void (*job)(void *ctx, uint32_t index), void *ctx)
{
    ORRI_ASSERT(workers && task && job, "orri_pool_spawn: workers, task and job are required");
    *task = (orri_pool_task){.workers = workers, .job = job, .ctx = ctx, .count = 1, .helpers_max = 1};
    list(workers, task);
}

void orri_pool_join(orri_pool_task *task) { finish(task->workers, task); }

uint32_t orri_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > ORRI_MAX_THREADS ? ORRI_MAX_THREADS : (uint32_t)n;
}

static void *spawned_main(void *arg)
{
    take_all(arg);
    return NULL;
}

static void run_spawned(uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index), void *ctx)
{
    batch b = {.job = job, .ctx = ctx, .count = count};
    atomic_init(&b.next, 0);
    if (threads > ORRI_MAX_THREADS) threads = ORRI_MAX_THREADS;
    pthread_t tid[ORRI_MAX_THREADS];
    uint32_t started = 0;
    for (uint32_t t = 1; t < threads; t++) { /* a thread that cannot start leaves its share to the others */
        if (!start_thread(&tid[started], spawned_main, &b)) break;
        started++;
    }
    take_all(&b);
    for (uint32_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

void orri_pool_run(orr_workers *workers, uint32_t threads, uint32_t count, void (*job)(void *ctx, uint32_t index),
                   void *ctx)
{
    if (threads > count) threads = count;
    /* given workers: at most as many as they are (the caller's thread among them) */
    if (workers && threads > workers->threads) threads = workers->threads;
    if (threads <= 1) {
        for (uint32_t i = 0; i < count; i++) job(ctx, i);
        return;
    }
    if (workers) run_on(workers, threads, count, job, ctx);
    else run_spawned(threads, count, job, ctx);
}
