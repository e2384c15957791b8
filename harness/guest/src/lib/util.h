/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the C tools of the guest (harness/guest/src) and of
 * the benchmark (harness/bench/guest); each tool is compiled together
 * with util.c.
 */
#ifndef HARNESS_GUEST_UTIL_H
#define HARNESS_GUEST_UTIL_H

/* The symbolic name of errno value @e ("EAGAIN"), "none" for 0. */
const char *errname(int e);

/*
 * Parses a byte count: decimal digits with an optional suffix K, M or G
 * (powers of 1024, either case), as rdma.mr_mem.max takes them; returns
 * 0 and sets *@bytes, or -EINVAL.
 */
int parse_bytes(const char *s, unsigned long long *bytes);

/* Writes @s to the file @path in one write(); returns 0 or -errno. */
int write_str(const char *path, const char *s);

/* Moves the calling process into cgroup @dir; returns 0 or -errno. */
int join_cgroup(const char *dir);

/*
 * Fault injection for the calling task, around one operation: with @nth,
 * the nth allocation from now fails (/proc/thread-self/fail-nth); with
 * @make_it_fail, the task's allocations fail as failslab is configured
 * (/proc/self/make-it-fail).  fault_arm() returns 0 or -errno;
 * fault_disarm() returns 1 if the nth allocation was failed, 0 if not (or
 * without @nth), -errno if that cannot be read.
 */
int fault_arm(const char *nth, int make_it_fail);
/*
 * The tools' fault options: -F NTH sets *@nth, -X *@make_it_fail.  Takes
 * getopt()'s @c and @arg; returns 1 if @c was one of them, 0 if not.
 */
int fault_opt(int c, const char *arg, const char **nth, int *make_it_fail);
int fault_disarm(const char *nth, int make_it_fail);

#endif
