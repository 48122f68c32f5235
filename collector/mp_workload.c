/* mp_workload.c - the workload of a record or stat run: forked and held on a pipe until
 * the events are open, then let exec. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_collector_internal.h"

int mp_workload_fork(struct mp_workload *wl, char *const *argv, struct mp_err *err)
{
	int go[2], ep[2];

	wl->pid = -1;
	wl->go_fd = wl->err_fd = wl->pidfd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return mp_err_set(err, -errno, "pipe: %s", strerror(errno));
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return mp_err_set(err, -errno, "pipe: %s", strerror(errno));
	}
	pid_t parent = getpid();
	wl->pid = fork();
	if (wl->pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		return mp_err_set(err, -e, "fork: %s", strerror(e));
	}
	if (wl->pid == 0) {
		char c;
		close(go[1]);
		close(ep[0]);
		/* dies with memprof (killed with SIGKILL, it cannot stop the workload itself) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* memprof gave up before the start */
		if (wl->ctl_child >= 0) {
			char env[48];
			snprintf(env, sizeof(env), "fd:%d,%d", wl->ctl_child, wl->ctl_child);
			fcntl(wl->ctl_child, F_SETFD, 0);
			setenv("MEMPROF_CONTROL", env, 1);
		}
		for (int i = 0; i < 4 && wl->env[i]; i++)
			putenv(wl->env[i]);
		if (wl->out_to_err && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	wl->go_fd = go[1];
	wl->err_fd = ep[0];
	wl->pidfd = (int)syscall(SYS_pidfd_open, wl->pid, 0);
	return 0;
}

/* Let it exec; 0 when it runs, else execvp's errno. */
int mp_workload_start(struct mp_workload *wl)
{
	char c = 1;
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, &c, 1) != 1)
		e = errno ? errno : EIO;
	close(wl->go_fd);
	wl->go_fd = -1;
	do
		n = read(wl->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(e))
		e = 0;
	close(wl->err_fd);
	wl->err_fd = -1;
	return e;
}

void mp_workload_cancel(struct mp_workload *wl, int *status)
{
	int st = 0;
	if (wl->pid <= 0)
		return;
	if (wl->go_fd >= 0)
		close(wl->go_fd); /* the child reads EOF and exits 127 */
	wl->go_fd = -1;
	while (waitpid(wl->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (status)
		*status = st;
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	if (wl->pidfd >= 0)
		close(wl->pidfd);
	wl->err_fd = wl->pidfd = -1;
	wl->pid = -1;
}

/* On the way out: a workload still running (an error stopped the run) is killed and
 * reaped, one never started is cancelled; its fds are closed. */
void mp_workload_release(struct mp_workload *wl, struct mp_record_result *res)
{
	int status;
	if (wl->pid > 0) {
		if (res->workload_started) {
			kill(wl->pid, SIGKILL);
			while (waitpid(wl->pid, &status, 0) < 0 && errno == EINTR)
				;
			res->workload_status = status;
		} else {
			mp_workload_cancel(wl, NULL);
		}
	}
	if (wl->pidfd >= 0)
		close(wl->pidfd);
	if (wl->go_fd >= 0)
		close(wl->go_fd);
	if (wl->err_fd >= 0)
		close(wl->err_fd);
}
