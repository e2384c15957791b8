// SPDX-License-Identifier: GPL-2.0
/*
 * rcgbench: guest-side driver of the rdmacg_bench debugfs interface.
 *
 *   rcgbench run CGROUP CPU CMD...   move into CGROUP, pin to CPU, write
 *                                    CMD to .../rdmacg_bench/run, print the
 *                                    result line
 *   rcgbench par N LAYOUT CMD...     N workers on CPUs 0..N-1, started
 *                                    together (sync=N), in one cgroup
 *                                    (LAYOUT=same), in N sibling cgroups
 *                                    below the root (siblings) or below a
 *                                    shared parent (siblings2); prints the
 *                                    combined pairs per second
 *   rcgbench cold DEPTH COUNT        create COUNT fresh chains of DEPTH
 *                                    cgroups, time the first charge +
 *                                    uncharge in each leaf, remove them
 *   rcgbench exec CGROUP CPU PROG... move into CGROUP, pin to CPU, exec PROG
 *   rcgbench storm DIR N STOPFILE    a monitoring agent: read rdma.current,
 *                                    rdma.peak and rdma.events of DIR/c0 ..
 *                                    DIR/c(N-1) in turn until STOPFILE
 *                                    exists; prints the files read
 *
 * CGROUP paths are absolute. Every command prints one line starting with
 * "ok " and exits 0, or prints the error and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define RUN_FILE "/sys/kernel/debug/rdmacg_bench/run"
#define CGROOT "/sys/fs/cgroup"
#define MAX_WORKERS 64
#define RESULT_LEN 512

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rcgbench: error: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

static void enter_cgroup(const char *cg)
{
	int ret = join_cgroup(cg);

	if (ret)
		die("enter %s: %s", cg, strerror(-ret));
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pin to cpu %d: %s", cpu, strerror(errno));
}

/* mkdir PATH, enabling the rdma controller for its children. */
static void mkcg(const char *path, int parent_of_more)
{
	char f[PATH_MAX];
	int ret;

	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
	if (parent_of_more) {
		snprintf(f, sizeof(f), "%s/cgroup.subtree_control", path);
		ret = write_str(f, "+rdma");
		if (ret)
			die("enable rdma in %s: %s", path, strerror(-ret));
	}
}

/* Write CMD, read the result into OUT; 0 if the result starts with "ok". */
static int bench_cmd(const char *cmd, char *out, size_t len)
{
	int fd = open(RUN_FILE, O_RDWR);
	ssize_t n;

	if (fd < 0)
		die("open %s: %s", RUN_FILE, strerror(errno));
	if (write(fd, cmd, strlen(cmd)) < 0)
		die("write '%s': %s", cmd, strerror(errno));
	n = read(fd, out, len - 1);
	if (n < 0)
		die("read result: %s", strerror(errno));
	close(fd);
	out[n] = '\0';
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return strncmp(out, "ok ", 3) ? -1 : 0;
}

static unsigned long long field(const char *res, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(res, pat);
	if (!p)
		die("no %s in '%s'", key, res);
	return strtoull(p + strlen(pat), NULL, 10);
}

static void join_args(char *buf, size_t len, int argc, char **argv)
{
	int i;

	buf[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, argv[i], len - strlen(buf) - 1);
	}
}

static int cmd_run(int argc, char **argv)
{
	char cmd[RESULT_LEN], res[RESULT_LEN];

	if (argc < 3)
		die("usage: run CGROUP CPU CMD...");
	enter_cgroup(argv[0]);
	pin_cpu(atoi(argv[1]));
	join_args(cmd, sizeof(cmd), argc - 2, argv + 2);
	if (bench_cmd(cmd, res, sizeof(res)))
		die("'%s': %s", cmd, res);
	printf("%s\n", res);
	return 0;
}

static int cmd_exec(int argc, char **argv)
{
	if (argc < 3)
		die("usage: exec CGROUP CPU PROG...");
	enter_cgroup(argv[0]);
	pin_cpu(atoi(argv[1]));
	execvp(argv[2], argv + 2);
	die("exec %s: %s", argv[2], strerror(errno));
	return 1;
}

static int cmd_par(int argc, char **argv)
{
	unsigned long long pairs = 0, start = ~0ULL, end = 0, p;
	char cmd[RESULT_LEN], res[RESULT_LEN], cg[PATH_MAX];
	int pipes[MAX_WORKERS][2];
	pid_t pids[MAX_WORKERS];
	const char *layout;
	int n, i, status, failed = 0;
	ssize_t len;

	if (argc < 2)
		die("usage: par N same|siblings|siblings2 CMD...");
	n = atoi(argv[0]);
	layout = argv[1];
	if (n < 1 || n > MAX_WORKERS)
		die("bad worker count %d", n);
	join_args(cmd, sizeof(cmd), argc - 2, argv + 2);
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " sync=%d", n);

	if (!strcmp(layout, "siblings2"))
		mkcg(CGROOT "/par_p", 1);
	for (i = 0; i < n; i++) {
		if (!strcmp(layout, "same"))
			snprintf(cg, sizeof(cg), CGROOT "/par_same");
		else if (!strcmp(layout, "siblings"))
			snprintf(cg, sizeof(cg), CGROOT "/par_s%d", i);
		else if (!strcmp(layout, "siblings2"))
			snprintf(cg, sizeof(cg), CGROOT "/par_p/s%d", i);
		else
			die("bad layout %s", layout);
		mkcg(cg, 0);
		if (pipe(pipes[i]))
			die("pipe: %s", strerror(errno));
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %s", strerror(errno));
		if (!pids[i]) {
			close(pipes[i][0]);
			enter_cgroup(cg);
			pin_cpu(i);
			if (bench_cmd(cmd, res, sizeof(res)))
				fprintf(stderr, "worker %d: %s\n", i, res);
			len = write(pipes[i][1], res, strlen(res) + 1);
			_exit(len > 0 ? 0 : 1);
		}
		close(pipes[i][1]);
	}
	for (i = 0; i < n; i++) {
		len = read(pipes[i][0], res, sizeof(res) - 1);
		close(pipes[i][0]);
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) || len <= 0) {
			failed = 1;
			continue;
		}
		res[len] = '\0';
		if (strncmp(res, "ok ", 3)) {
			printf("worker %d: %s\n", i, res);
			failed = 1;
			continue;
		}
		pairs += field(res, "pairs");
		p = field(res, "start");
		start = p < start ? p : start;
		p = field(res, "end");
		end = p > end ? p : end;
	}
	if (failed || end <= start)
		die("par %d %s: a worker failed", n, layout);
	printf("ok workers=%d layout=%s pairs=%llu window_ns=%llu pairs_per_s=%llu\n",
	       n, layout, pairs, end - start,
	       (unsigned long long)((double)pairs * 1e9 / (double)(end - start)));
	return 0;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long long median(unsigned long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* CGROOT/coldI/c/c..., DEPTH levels, in PATH; rdma enabled on the way down. */
static void cold_path(char *path, size_t len, int i, int depth, int create)
{
	size_t off = snprintf(path, len, CGROOT "/cold%d", i);
	int d;

	for (d = 1; d <= depth; d++) {
		if (create)
			mkcg(path, d < depth);
		if (d < depth)
			off += snprintf(path + off, len - off, "/c");
	}
}

static int cmd_cold(int argc, char **argv)
{
	unsigned long long *ns, *clk, sum = 0;
	char res[RESULT_LEN], path[PATH_MAX];
	int depth, count, i, d;

	if (argc != 2)
		die("usage: cold DEPTH COUNT");
	depth = atoi(argv[0]);
	count = atoi(argv[1]);
	if (depth < 1 || count < 1)
		die("bad depth or count");
	ns = calloc(count, sizeof(*ns));
	clk = calloc(count, sizeof(*clk));
	if (!ns || !clk)
		die("out of memory");
	pin_cpu(0);

	/*
	 * All chains first, all removals last, so that no cgroup is being
	 * torn down (css_offline, css_free) while a charge is timed.
	 */
	for (i = 0; i < count; i++)
		cold_path(path, sizeof(path), i, depth, 1);
	for (i = 0; i < count; i++) {
		cold_path(path, sizeof(path), i, depth, 0);
		enter_cgroup(path);
		/* What two clock reads cost, to take off the single pair. */
		if (bench_cmd("iters=0 warmup=0 pin=none", res, sizeof(res)))
			die("clock: %s", res);
		clk[i] = field(res, "ns");
		if (bench_cmd("iters=1 warmup=0 pin=none", res, sizeof(res)))
			die("cold charge: %s", res);
		ns[i] = field(res, "ns");
		sum += ns[i];
	}
	enter_cgroup(CGROOT);
	for (i = 0; i < count; i++) {
		cold_path(path, sizeof(path), i, depth, 0);
		for (d = depth; d >= 1; d--) {
			if (rmdir(path))
				die("rmdir %s: %s", path, strerror(errno));
			*strrchr(path, '/') = '\0';
		}
	}
	printf("ok depth=%d count=%d mean_ns=%llu median_ns=%llu clock_ns=%llu\n",
	       depth, count, sum / count, median(ns, count), median(clk, count));
	return 0;
}

/* Read the three files of each of N cgroups in turn until STOPFILE exists */
static int cmd_storm(int argc, char **argv)
{
	static const char *const files[] = { "rdma.current", "rdma.peak", "rdma.events" };
	char path[PATH_MAX], buf[4096];
	unsigned long reads = 0;
	int i, f, fd, n;

	if (argc != 3)
		die("usage: storm DIR N STOPFILE");
	n = atoi(argv[1]);
	while (access(argv[2], F_OK)) {
		for (i = 0; i < n; i++) {
			for (f = 0; f < 3; f++) {
				snprintf(path, sizeof(path), "%s/c%d/%s", argv[0], i, files[f]);
				fd = open(path, O_RDONLY);
				if (fd < 0)
					die("storm: %s: %s", path, strerror(errno));
				while (read(fd, buf, sizeof(buf)) > 0)
					;
				close(fd);
				reads++;
			}
		}
	}
	printf("ok reads=%lu\n", reads);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		die("usage: rcgbench run|par|cold|exec|storm ...");
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "par"))
		return cmd_par(argc - 2, argv + 2);
	if (!strcmp(argv[1], "cold"))
		return cmd_cold(argc - 2, argv + 2);
	if (!strcmp(argv[1], "exec"))
		return cmd_exec(argc - 2, argv + 2);
	if (!strcmp(argv[1], "storm"))
		return cmd_storm(argc - 2, argv + 2);
	die("unknown command %s", argv[1]);
	return 1;
}
