// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line part of the stand-ins of include/kshim.h, and the driver:
 *   icount DEPTH PAIRS [obj|ctxobj|mr_mem [DEVICES]]
 * builds a chain of DEPTH cgroups below a root with the controller's own
 * css_alloc, registers DEVICES devices (default 1), holds one hca_handle
 * charge on each in the leaf (the pools exist, in the order the devices
 * were registered), and runs PAIRS charge+uncharge pairs of the resource
 * in the leaf on the last device registered: rdmacg_try_charge() + rdmacg_uncharge() of an
 * hca_object (obj), rdmacg_try_charge_obj() + rdmacg_uncharge_obj() on the
 * held context's cgroup (ctxobj, ours only), or 64 KiB of
 * rdmacg_try_charge_mr_mem() + rdmacg_uncharge_mr_mem() (mr_mem, ours
 * only). run.sh runs it under callgrind with two values of PAIRS and
 * divides the difference of the instruction counts.
 */
#include <stdarg.h>
#include "kshim.h"
#include <linux/cgroup_rdma.h>

struct task_struct *kshim_current;
static struct task_struct task;

void kshim_warn(const char *file, int line)
{
	fprintf(stderr, "icount: warning at %s:%d\n", file, line);
	exit(2);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return calloc(1, size);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return calloc(n, size);
}

void kfree(const void *p)
{
	free((void *)p);
}

/* The uncontended fast paths of mutex_lock() and mutex_unlock(). */
noinline void mutex_lock(struct mutex *m)
{
	long unlocked = 0;

	if (!__atomic_compare_exchange_n(&m->owner, &unlocked, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		kshim_warn(__FILE__, __LINE__);
}

noinline void mutex_unlock(struct mutex *m)
{
	long locked = 1;

	if (!__atomic_compare_exchange_n(&m->owner, &locked, 0, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		kshim_warn(__FILE__, __LINE__);
}

/* A per-CPU reference: a plain increment in a function of its own. */
noinline struct cgroup_subsys_state *task_get_css(struct task_struct *t, int id)
{
	struct cgroup_subsys_state *css = READ_ONCE(t->css);

	css->refcnt++;
	return css;
}

noinline void css_put(struct cgroup_subsys_state *css)
{
	if (--css->refcnt < 0)
		kshim_warn(__FILE__, __LINE__);
}

struct cgroup_subsys_state *of_css(struct kernfs_open_file *of) { return NULL; }
struct cgroup_subsys_state *seq_css(struct seq_file *sf) { return NULL; }
struct cftype *seq_cft(struct seq_file *sf) { return NULL; }
struct cftype *of_cft(struct kernfs_open_file *of) { return NULL; }
struct cgroup_of_peak *of_peak(struct kernfs_open_file *of) { return NULL; }

void *krealloc_array(void *p, size_t n, size_t size, gfp_t gfp)
{
	return realloc(p, n * size);
}
void seq_printf(struct seq_file *m, const char *fmt, ...) { }
void seq_puts(struct seq_file *m, const char *s) { }
void seq_putc(struct seq_file *m, char c) { }
char *strstrip(char *s) { return s; }
int match_int(substring_t *s, int *result) { return -EINVAL; }
int match_uint(substring_t *s, unsigned int *result) { return -EINVAL; }
/* No write is measured: every token is unknown. */
int match_token(char *s, const match_table_t table, substring_t args[])
{
	return -1;
}

int match_string(const char *const *array, size_t n, const char *string)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (array[i] && !strcmp(array[i], string))
			return i;
	return -EINVAL;
}

extern struct cgroup_subsys rdma_cgrp_subsys;

/* The measured loops: noinline, so that both builds time the same frame. */
static noinline int pairs_obj(struct rdmacg_device *dev, long n)
{
	struct rdma_cgroup *cg;
	long i;

	for (i = 0; i < n; i++) {
		if (rdmacg_try_charge(&cg, dev, RDMACG_RESOURCE_HCA_OBJECT))
			return -1;
		rdmacg_uncharge(cg, dev, RDMACG_RESOURCE_HCA_OBJECT);
	}
	return 0;
}

#ifdef ICOUNT_OURS
static noinline int pairs_ctxobj(struct rdmacg_device *dev,
				 struct rdma_cgroup *ctx, long n)
{
	struct rdma_cgroup *cg;
	long i;

	for (i = 0; i < n; i++) {
		if (rdmacg_try_charge_obj(&cg, ctx, dev))
			return -1;
		rdmacg_uncharge_obj(cg, ctx, dev);
	}
	return 0;
}

static noinline int pairs_mr_mem(struct rdmacg_device *dev, long n)
{
	struct rdma_cgroup *cg;
	long i;

	for (i = 0; i < n; i++) {
		if (rdmacg_try_charge_mr_mem(&cg, dev, 65536))
			return -1;
		rdmacg_uncharge_mr_mem(cg, dev, 65536);
	}
	return 0;
}
#endif

int main(int argc, char **argv)
{
	static struct rdmacg_device devs[256];
	struct cgroup_subsys_state *css = NULL, *parent = NULL;
	const char *what = argc > 3 ? argv[3] : "obj";
	int ndev = argc > 4 ? atoi(argv[4]) : 1;
	static struct rdma_cgroup *held[256];
	struct rdmacg_device *last;
	struct rdma_cgroup *ctx;
	int depth, i, ret = -1;
	long n;

	if (argc < 3 || ndev < 1 || ndev > 256)
		return 2;
	depth = atoi(argv[1]);
	n = atol(argv[2]);
	for (i = 0; i <= depth; i++) {
		css = rdma_cgrp_subsys.css_alloc(parent);
		css->parent = parent;
		parent = css;
	}
	task.css = css;
	kshim_current = &task;
	for (i = 0; i < ndev; i++) {
		char *name = malloc(16);

		snprintf(name, 16, "icount%d", i);
		devs[i].name = name;
#ifdef ICOUNT_HAS_INDEX
		devs[i].index = i;
#endif
		rdmacg_register_device(&devs[i]);
		if (rdmacg_try_charge(&held[i], &devs[i],
				      RDMACG_RESOURCE_HCA_HANDLE))
			return 1;
	}
	last = &devs[ndev - 1];
	ctx = held[ndev - 1];
	/* warm: the first pairs create whatever a pair needs */
	if (!strcmp(what, "obj"))
		ret = pairs_obj(last, n + 10);
#ifdef ICOUNT_OURS
	else if (!strcmp(what, "ctxobj"))
		ret = pairs_ctxobj(last, ctx, n + 10);
	else if (!strcmp(what, "mr_mem"))
		ret = pairs_mr_mem(last, n + 10);
#endif
	if (ret)
		return 1;
	for (i = 0; i < ndev; i++)
		rdmacg_uncharge(held[i], &devs[i], RDMACG_RESOURCE_HCA_HANDLE);
	return 0;
}
