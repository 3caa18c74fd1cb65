/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything a program changes in the system is undone through here, on
 * every exit path: a normal exit, a failure, SIGINT, SIGTERM, SIGHUP
 * and the timeout that run.sh enforces with SIGTERM. SIGPIPE stops
 * nothing: a write to a closed pipe fails with EPIPE instead.
 *
 * The first signal only raises the stop flag: measured loops poll it and
 * end early, so what was measured so far is still reported and saved.
 * A second signal runs the cleanups at once and exits.
 */
#ifndef ISOLBENCH_CLEANUP_H
#define ISOLBENCH_CLEANUP_H

#include <signal.h>
#include <stdnoreturn.h>
#include <stdbool.h>

typedef void (*cleanup_fn)(void *arg);

/* Install the signal handlers; call first thing in main(). */
void cleanup_init(void);
/* The signals that stop a run, in @set (for threads that leave them to main). */
void cleanup_stop_signals(sigset_t *set);
/* In a forked child: the default actions of the stop signals and SIGPIPE back. */
void cleanup_child_signals(void);

/*
 * Register @fn(@arg) to run at exit and on a second signal, last
 * registered first. Returns a handle for cleanup_run_one().
 * Callbacks must be async-signal-safe: kill, waitpid, write, close.
 */
int cleanup_push(cleanup_fn fn, void *arg);
/* Run the callback behind @handle now, and only once. */
void cleanup_run_one(int handle);
void cleanup_run_all(void);

/* Set by the first SIGINT/SIGTERM/SIGHUP: end the measurement early. */
extern volatile sig_atomic_t bench_stop;
/* The signal that raised bench_stop, 0 if none. */
int bench_stop_signal(void);

/*
 * The end of an interrupted run, in every program: after the cleanups,
 * die of the signal that stopped it (default action restored, then
 * raised), so the caller sees "killed by SIGINT/SIGTERM" (status 130,
 * 143 in a shell) and a shell script, make or git bisect run stops too.
 * Async-signal-safe.
 */
noreturn void cleanup_exit_interrupted(void);
/* The same end by @sig, after the cleanups (SIGPIPE: the reader left). */
noreturn void cleanup_exit_by_signal(int sig);

#endif
