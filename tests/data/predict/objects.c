/* Two objects (this executable and libpredlib.so), a forked child and 4 threads.
 * Built with -DDEBUGPRED_ATOMIC, the totals are exact:
 *   THREAD-LIKELY: 4 threads x 1000: correct 3996, incorrect 4
 *   FORK-UNLIKELY: the child runs i in 0..9, i > 2 true 7 times: correct 3, incorrect 7;
 *                  the parent runs it 0 times
 *   LIB-UNLIKELY:  parent predlib_count(100) and child predlib_count(40):
 *                  true 25 + 10 = 35 times (incorrect), correct 75 + 30 = 105 */
#include <memprof/debugpred.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int predlib_count(int n);

static void *work(void *arg)
{
	volatile int s = 0;
	(void)arg;
	for (int i = 0; i < 1000; i++)
		if (likely(i < 999)) /* THREAD-LIKELY */
			s++;
	return NULL;
}

static void child(int n)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (unlikely(i > 2)) /* FORK-UNLIKELY */
			c++;
	exit(c + predlib_count(40) > 0 ? 0 : 1);
}

int main(void)
{
	pthread_t t[4];
	pid_t pid;
	int st;

	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, work, NULL))
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	if (predlib_count(100) != 25)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		child(10);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	return 0;
}
