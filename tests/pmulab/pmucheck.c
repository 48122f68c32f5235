/* pmucheck: a self-contained probe of the guest's PMU, independent of memprof.
 * It opens PERF_TYPE_HARDWARE cycles and instructions as a group (PERF_FORMAT_GROUP),
 * samples instructions with a fixed period through the mmap ring buffer, and opens
 * more counters than the PMU has so that the kernel multiplexes them.
 * Prints "pmucheck KEY=VALUE" lines; exits non-zero on any failing syscall.
 * "pmucheck spin N" only runs the loop: N iterations of exactly 5 instructions
 * (checked by the probe's own counts), a workload whose count is known.
 * "pmucheck hold N SECONDS" opens N system-wide instructions counters on every CPU and
 * keeps them enabled for SECONDS, so that the counters of another program (memprof stat)
 * must share the PMU with them and get multiplexed.
 * "pmucheck count TYPE CONFIG" counts one event (perf_event_attr type and config) over
 * 10^6 loop iterations and prints its value, or the errno of a refused open. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void spin(uint64_t n)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        acc += i ^ (acc >> 3);
        __asm__ volatile("" : "+r"(acc));
    }
    sink = acc;
}
__attribute__((noinline)) static void spin_end(void) { sink++; }

static int pe_open(struct perf_event_attr *a, int group)
{
    return (int)syscall(SYS_perf_event_open, a, 0, -1, group, 0);
}

static void init_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = type;
    a->config = config;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
}

static int fail(const char *what)
{
    printf("pmucheck error=%s:%s\n", what, strerror(errno));
    return 1;
}

static int hold(int n, int seconds)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct perf_event_attr a;
    for (long c = 0; c < ncpu; c++)
        for (int i = 0; i < n; i++) {
            init_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
            a.exclude_kernel = 0;
            int fd = (int)syscall(SYS_perf_event_open, &a, -1, (int)c, -1, 0);
            if (fd < 0)
                return fail("open-hold");
        }
    printf("pmucheck holding=%d cpus=%ld\n", n, ncpu);
    fflush(stdout);
    sleep((unsigned)seconds);
    return 0;
}

static int count1(uint32_t type, uint64_t config)
{
    struct perf_event_attr a;
    init_attr(&a, type, config);
    a.disabled = 1;
    int fd = pe_open(&a, -1);
    if (fd < 0) {
        printf("pmucheck type=%u config=%#" PRIx64 " open=%s\n", type, config, strerror(errno));
        return 0;
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    spin(1000000);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    uint64_t v = 0;
    if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        return fail("read-count");
    printf("pmucheck type=%u config=%#" PRIx64 " open=ok value=%" PRIu64 "\n", type, config, v);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    /* pmucheck [ITERATIONS [SAMPLE_PERIOD [EVENT]]]: EVENT 0 cycles, 1 instructions */
    if (argc == 3 && strcmp(argv[1], "spin") == 0) {
        spin(strtoull(argv[2], NULL, 0));
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "hold") == 0)
        return hold(atoi(argv[2]), atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "count") == 0)
        return count1((uint32_t)strtoul(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
    const uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
    const uint64_t speriod = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
    const uint64_t sevent = argc > 3 ? strtoull(argv[3], NULL, 0) : PERF_COUNT_HW_INSTRUCTIONS;
    struct perf_event_attr a;

    /* 1. group {cycles, instructions} */
    init_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
    a.disabled = 1;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    int lead = pe_open(&a, -1);
    if (lead < 0)
        return fail("open-cycles");
    init_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
    int member = pe_open(&a, lead);
    if (member < 0)
        return fail("open-instructions");
    ioctl(lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
    ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    spin(iters);
    ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    uint64_t g[5];
    if (read(lead, g, sizeof(g)) != (ssize_t)sizeof(g))
        return fail("read-group");
    printf("pmucheck group_nr=%" PRIu64 " cycles=%" PRIu64 " instructions=%" PRIu64
           " enabled=%" PRIu64 " running=%" PRIu64 "\n", g[0], g[3], g[4], g[1], g[2]);
    close(member);
    close(lead);

    /* 2. sampling on instructions */
    init_attr(&a, PERF_TYPE_HARDWARE, sevent);
    a.disabled = 1;
    a.sample_period = speriod;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
    a.wakeup_events = 1000;
    int sfd = pe_open(&a, -1);
    if (sfd < 0)
        return fail("open-sampling");
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = pg * 9;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
    if (m == MAP_FAILED)
        return fail("mmap");
    ioctl(sfd, PERF_EVENT_IOC_ENABLE, 0);
    spin(iters);
    ioctl(sfd, PERF_EVENT_IOC_DISABLE, 0);
    struct perf_event_mmap_page *mp = m;
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    unsigned char *data = (unsigned char *)m + pg;
    uint64_t nsamp = 0, inspin = 0, periodsum = 0, pos = mp->data_tail;
    size_t dsz = len - pg;
    while (pos < head) {
        struct perf_event_header h;
        unsigned char rec[256];
        for (size_t k = 0; k < sizeof(h); k++)
            ((unsigned char *)&h)[k] = data[(pos + k) % dsz];
        if (h.size < sizeof(h) || h.size > sizeof(rec))
            break;
        for (size_t k = 0; k < h.size; k++)
            rec[k] = data[(pos + k) % dsz];
        if (h.type == PERF_RECORD_SAMPLE) {
            uint64_t ip, period;
            memcpy(&ip, rec + sizeof(h), 8);
            memcpy(&period, rec + sizeof(h) + 8, 8);
            nsamp++;
            periodsum += period;
            if (ip >= (uintptr_t)spin && ip < (uintptr_t)spin_end)
                inspin++;
        }
        pos += h.size;
    }
    printf("pmucheck samples=%" PRIu64 " in_spin=%" PRIu64 " period_sum=%" PRIu64 "\n",
           nsamp, inspin, periodsum);
    munmap(m, len);
    close(sfd);

    /* 3. more counters than the PMU has: multiplexing */
    enum { NC = 12 };
    int fds[NC];
    for (int i = 0; i < NC; i++) {
        init_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
        a.disabled = 1;
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        fds[i] = pe_open(&a, -1);
        if (fds[i] < 0)
            return fail("open-multiplex");
    }
    for (int i = 0; i < NC; i++)
        ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
    spin(iters * 20);
    for (int i = 0; i < NC; i++)
        ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
    int multiplexed = 0;
    for (int i = 0; i < NC; i++) {
        uint64_t v[3];
        if (read(fds[i], v, sizeof(v)) != (ssize_t)sizeof(v))
            return fail("read-multiplex");
        double scaled = v[2] ? (double)v[0] * (double)v[1] / (double)v[2] : 0.0;
        if (v[2] < v[1])
            multiplexed++;
        printf("pmucheck mux%d raw=%" PRIu64 " enabled=%" PRIu64 " running=%" PRIu64
               " scaled=%.0f\n", i, v[0], v[1], v[2], scaled);
        close(fds[i]);
    }
    printf("pmucheck multiplexed=%d of %d\n", multiplexed, NC);
    return 0;
}
