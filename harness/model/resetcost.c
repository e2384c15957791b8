// SPDX-License-Identifier: GPL-2.0
/*
 * What one write to rdma.peak costs, as a tenant can scale it: the reset
 * folds the peaks it ends into the saved peaks of every file of the cgroup
 * written to before, for every pool of the cgroup, with a linear search of
 * each file's entries, all under rdmacg_registry_mutex, which every limit
 * write and peak reset of any cgroup, a cgroup's free and a device's
 * (un)registration also take. kernel/cgroup/rdma.c is built as it is
 * against the model fuzzer's stand-ins (no sanitizers, -O2), and driven
 * through its cftype table as cgroup core would:
 *
 *   resetcost [FILES...]   (default 1 10 100 1000)
 *
 * For 1, 4 and 16 devices with a pool each in one cgroup, and each number
 * of open rdma.peak files all written once, prints the nanoseconds of one
 * more write (the median of 9) and per file, on this machine's CPU: the
 * time the mutex is held, without the cache misses of a kernel that runs
 * other work between resets. Making the files costs more than measuring:
 * each first write of a file reserves entries in every file before it.
 */
#include <time.h>
#include "shim.h"
#include <linux/cgroup_rdma.h>

extern struct cgroup_subsys rdma_cgrp_subsys;

#define RUNS	9

static struct cftype *cft_named(const char *name)
{
	struct cftype *cft;

	for (cft = rdma_cgrp_subsys.dfl_cftypes; cft->name[0]; cft++)
		if (!strcmp(cft->name, name))
			return cft;
	abort();
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int cmp_long(const void *a, const void *b)
{
	return *(const long *)a < *(const long *)b ? -1 :
	       *(const long *)a > *(const long *)b;
}

static long write_ns(struct kernfs_open_file *of)
{
	char buf[2] = "1";
	long t0 = now_ns();

	if (of->cft->write(of, buf, 1, 0) != 1)
		abort();
	return now_ns() - t0;
}

/* One cgroup with a pool on each of @ndev devices, @nfiles files written. */
static long measure(struct cgroup_subsys_state *root, int ndev, int nfiles)
{
	struct rdmacg_device *devs = calloc(ndev, sizeof(*devs));
	struct kernfs_open_file *of = calloc(nfiles, sizeof(*of));
	struct cftype *peak = cft_named("peak"), *max = cft_named("max");
	struct cgroup cgroup = { .path = "/bench" };
	struct kernfs_open_file lim = { .cft = max };
	struct cgroup_subsys_state *css;
	char name[16], line[64];
	long ns[RUNS];
	int i;

	css = rdma_cgrp_subsys.css_alloc(root);
	if (IS_ERR_OR_NULL(css))
		abort();
	css->parent = root;
	css->cgroup = &cgroup;
	lim.css = css;
	for (i = 0; i < ndev; i++) {
		devs[i].name = strdup((snprintf(name, sizeof(name), "d%d", i), name));
		rdmacg_register_device(&devs[i]);
		/* A limit makes the pool, as a charge would. */
		snprintf(line, sizeof(line), "%s hca_object=%d", devs[i].name, 10 + i);
		if (max->write(&lim, line, strlen(line), 0) != (long)strlen(line))
			abort();
	}
	for (i = 0; i < nfiles; i++) {
		of[i].css = css;
		of[i].cft = peak;
		write_ns(&of[i]);
	}
	for (i = 0; i < RUNS; i++)
		ns[i] = write_ns(&of[i % nfiles]);
	qsort(ns, RUNS, sizeof(ns[0]), cmp_long);

	for (i = 0; i < nfiles; i++)
		peak->release(&of[i]);
	rdma_cgrp_subsys.css_free(css);
	for (i = 0; i < ndev; i++) {
		rdmacg_unregister_device(&devs[i]);
		free((void *)devs[i].name);
	}
	kshim_grace_period();
	free(devs);
	free(of);
	return ns[RUNS / 2];
}

int main(int argc, char **argv)
{
	static const int def[] = { 1, 10, 100, 1000 };
	static const int ndevs[] = { 1, 4, 16 };
	struct cgroup root_cgroup = { .path = "/" };
	struct cgroup_subsys_state *root;
	struct task_struct task = { };
	int nf = argc > 1 ? argc - 1 : (int)ARRAY_SIZE(def);
	int d, f, files;
	long ns;

	root = rdma_cgrp_subsys.css_alloc(NULL);
	if (IS_ERR_OR_NULL(root))
		abort();
	root->cgroup = &root_cgroup;
	task.css = root;
	kshim_current = &task;
	printf("%8s %8s %14s %12s\n", "devices", "files", "ns per reset",
	       "ns per file");
	for (d = 0; d < (int)ARRAY_SIZE(ndevs); d++) {
		for (f = 0; f < nf; f++) {
			files = argc > 1 ? atoi(argv[f + 1]) : def[f];
			if (files < 1)
				return 2;
			ns = measure(root, ndevs[d], files);
			printf("%8d %8d %14ld %12ld\n", ndevs[d], files, ns,
			       ns / files);
		}
	}
	rdma_cgrp_subsys.css_free(root);
	return kshim_warnings ? 1 : 0;
}
