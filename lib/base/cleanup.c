// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"

#define CLEANUP_MAX	32

/* What ends a run early: a user, a supervisor, a lost terminal. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP_SIGNALS	((int)(sizeof(stop_signals) / sizeof(stop_signals[0])))

volatile sig_atomic_t bench_stop;
static volatile sig_atomic_t stop_signal;

static struct {
	cleanup_fn fn;
	void *arg;
	volatile sig_atomic_t done;
} cleanups[CLEANUP_MAX];
static volatile sig_atomic_t ncleanups;

int cleanup_push(cleanup_fn fn, void *arg)
{
	int i = ncleanups;

	if (i >= CLEANUP_MAX)
		abort();	/* a programming error, not a run-time one */
	cleanups[i].fn = fn;
	cleanups[i].arg = arg;
	cleanups[i].done = 0;
	ncleanups = i + 1;
	return i;
}

void cleanup_run_one(int handle)
{
	if (handle < 0 || handle >= ncleanups || cleanups[handle].done)
		return;
	cleanups[handle].done = 1;
	cleanups[handle].fn(cleanups[handle].arg);
}

void cleanup_run_all(void)
{
	for (int i = ncleanups - 1; i >= 0; i--)
		cleanup_run_one(i);
}

static void signal_handle(int sig, void (*handler)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int bench_stop_signal(void)
{
	return stop_signal;
}

void cleanup_exit_by_signal(int sig)
{
	sigset_t set;

	signal_handle(sig, SIG_DFL, 0);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);	/* not reached: the default action ends us */
}

void cleanup_exit_interrupted(void)
{
	cleanup_exit_by_signal(stop_signal ? stop_signal : SIGTERM);
}

/* aligned long stores are atomic on the architectures we run on */
static volatile long first_signal_ms;

static void stop_handler(int sig)
{
	static const char msg[] = "isolbench: second signal, cleaning up and exiting\n";
	struct timespec ts;
	long now_ms;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now_ms = ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
	/*
	 * A signal sent to the whole process group (timeout(1) does that)
	 * arrives twice; only a second one a while later means "now".
	 */
	if (bench_stop && now_ms - first_signal_ms >= 1000) {
		ssize_t ret = write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)ret;	/* nothing useful to do on a failed write here */
		cleanup_run_all();
		cleanup_exit_interrupted();
	}
	if (bench_stop)
		return;
	first_signal_ms = now_ms;
	stop_signal = sig;
	bench_stop = 1;
}

static void stop_signals_handle(void (*handler)(int))
{
	/* No SA_RESTART: a blocking call returns EINTR and the loop sees the flag. */
	for (int i = 0; i < NSTOP_SIGNALS; i++)
		signal_handle(stop_signals[i], handler, 0);
}

void cleanup_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	for (int i = 0; i < NSTOP_SIGNALS; i++)
		sigaddset(set, stop_signals[i]);
}

/*
 * SIGPIPE is caught and does nothing: a write to a closed pipe or socket
 * returns EPIPE to the code that made it, which decides (the report's
 * writer, ktap.c, keeps measuring; see ktap_reader_gone()). Caught, not
 * ignored: exec() gives a helper its default action back.
 */
static void pipe_handler(int sig)
{
	(void)sig;
}

void cleanup_child_signals(void)
{
	stop_signals_handle(SIG_DFL);
	signal_handle(SIGPIPE, SIG_DFL, 0);
}

void cleanup_init(void)
{
	sigset_t set;

	stop_signals_handle(stop_handler);
	signal_handle(SIGPIPE, pipe_handler, SA_RESTART);
	/* a mask inherited from the parent would keep them from stopping the run */
	cleanup_stop_signals(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	atexit(cleanup_run_all);
}
