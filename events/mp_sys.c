/* mp_sys.c - the perf_event_open syscall, alone so that tests can --wrap it. */
#include <sys/syscall.h>
#include <unistd.h>

#include "mp_events.h"

int mp_ev_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}
