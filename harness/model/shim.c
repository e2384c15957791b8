// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line stand-ins of harness/bench/icount/include/kshim.h in its
 * KSHIM_MODEL flavour: what kernel/cgroup/rdma.c calls, written to check
 * the controller rather than to run it fast. The fuzzer is single-threaded,
 * so a lock only records that it is held; taking a held one, sleeping in
 * an RCU read-side section or under a spinlock, or an unprotected
 * rcu_dereference() is a WARN, and every WARN fails the run.
 *
 * Frees after a grace period (call_rcu(), kfree_rcu_mightsleep()) wait on
 * a list for the next simulated one: synchronize_rcu(), or the "gp"
 * operation of the fuzzer. A pool or table freed too early is therefore
 * still freed when the code dereferences it, and AddressSanitizer says so.
 */
#include <stdarg.h>
#include "shim.h"

struct task_struct *kshim_current;
int kshim_rcu_depth;
long kshim_allocs;
int kshim_warnings;
char kshim_logbuf[4096];
size_t kshim_loglen;

void kshim_warn(const char *file, int line)
{
	fprintf(stderr, "model: WARN at %s:%d\n", file, line);
	kshim_warnings++;
}

/* The kernel log, kept until the fuzzer reads it. */
void kshim_log(const char *fmt, ...)
{
	size_t room = sizeof(kshim_logbuf) - kshim_loglen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(kshim_logbuf + kshim_loglen, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		kshim_warn(__FILE__, __LINE__);	/* the fuzzer reads too late */
	else
		kshim_loglen += n;
}

void kshim_might_sleep(const char *file, int line)
{
	/* Sleeping in an RCU read-side section or under a spinlock. */
	if (kshim_rcu_depth || kshim_spins)
		kshim_warn(file, line);
}

/* --- memory: counted, so that the fuzzer sees a leak at once ----------- */

void *kzalloc(size_t size, gfp_t gfp)
{
	void *p;

	might_sleep();
	p = calloc(1, size);
	if (p)
		kshim_allocs++;
	return p;
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kzalloc(n * size, gfp);
}

void *krealloc_array(void *p, size_t n, size_t size, gfp_t gfp)
{
	void *q;

	might_sleep();
	q = realloc(p, n * size);
	if (q && !p)
		kshim_allocs++;
	return q;
}

void kfree(const void *p)
{
	if (!p)
		return;
	kshim_allocs--;
	free((void *)p);
}

/* --- locks ---------------------------------------------------------------- */

int kshim_spins;

void mutex_lock(struct mutex *m)
{
	might_sleep();
	/* Single-threaded: a held mutex would never be released. */
	if (m->owner)
		kshim_warn(__FILE__, __LINE__);
	m->owner = 1;
}

void mutex_unlock(struct mutex *m)
{
	if (!m->owner)
		kshim_warn(__FILE__, __LINE__);
	m->owner = 0;
}

void spin_lock(spinlock_t *s)
{
	if (s->l)
		kshim_warn(__FILE__, __LINE__);
	s->l = 1;
	kshim_spins++;
}

void spin_unlock(spinlock_t *s)
{
	if (!s->l)
		kshim_warn(__FILE__, __LINE__);
	s->l = 0;
	kshim_spins--;
}

/* --- RCU: frees wait for the next simulated grace period --------------------- */

struct kshim_deferred {
	struct kshim_deferred *next;
	struct rcu_head *head;		/* call_rcu(), or */
	void (*func)(struct rcu_head *head);
	const void *ptr;		/* kfree_rcu_mightsleep() */
};

static struct kshim_deferred *deferred, **deferred_tail = &deferred;
long kshim_grace_periods;

void rcu_read_lock(void)
{
	kshim_rcu_depth++;
}

void rcu_read_unlock(void)
{
	if (kshim_rcu_depth-- <= 0)
		kshim_warn(__FILE__, __LINE__);
}

static void kshim_defer(struct rcu_head *head, void (*func)(struct rcu_head *),
			const void *ptr)
{
	/* malloc, not kzalloc: the list is the RCU core's, not the code's. */
	struct kshim_deferred *d = calloc(1, sizeof(*d));

	if (!d)
		abort();
	d->head = head;
	d->func = func;
	d->ptr = ptr;
	*deferred_tail = d;
	deferred_tail = &d->next;
}

void call_rcu(struct rcu_head *h, void (*f)(struct rcu_head *))
{
	kshim_defer(h, f, NULL);
}

void kshim_kfree_rcu(const void *p)
{
	might_sleep();
	if (p)
		kshim_defer(NULL, NULL, p);
}

/* End a grace period: every callback queued before it runs. */
void kshim_grace_period(void)
{
	struct kshim_deferred *d = deferred, *next;

	deferred = NULL;
	deferred_tail = &deferred;
	for (; d; d = next) {
		next = d->next;
		if (d->head)
			d->func(d->head);
		else
			kfree(d->ptr);
		free(d);
	}
	kshim_grace_periods++;
}

void synchronize_rcu(void)
{
	might_sleep();
	kshim_grace_period();
}

/* --- ida ------------------------------------------------------------------- */

bool kshim_ida_fail;

int ida_alloc(struct ida *ida, gfp_t gfp)
{
	unsigned int id;

	might_sleep();
	if (kshim_ida_fail)
		return -ENOMEM;
	for (id = 0; id < 64 * ARRAY_SIZE(ida->used); id++) {
		if (!(ida->used[id / 64] & BIT(id % 64))) {
			ida->used[id / 64] |= BIT(id % 64);
			return id;
		}
	}
	return -ENOSPC;
}

void ida_free(struct ida *ida, unsigned int id)
{
	if (WARN_ON(id >= 64 * ARRAY_SIZE(ida->used) ||
		    !(ida->used[id / 64] & BIT(id % 64))))
		return;
	ida->used[id / 64] &= ~BIT(id % 64);
}

/* --- cgroup core ------------------------------------------------------------ */

struct cgroup_subsys_state *task_get_css(struct task_struct *t, int id)
{
	struct cgroup_subsys_state *css = t->css;

	css->refcnt++;
	return css;
}

void css_put(struct cgroup_subsys_state *css)
{
	if (--css->refcnt < 0)
		kshim_warn(__FILE__, __LINE__);
}

/* A file modified event: the fuzzer reads and clears the count. */
void cgroup_file_notify(struct cgroup_file *f)
{
	f->notified++;
}

struct cgroup_subsys_state *of_css(struct kernfs_open_file *of)
{
	return of->css;
}

struct cftype *of_cft(struct kernfs_open_file *of)
{
	return of->cft;
}

struct cgroup_of_peak *of_peak(struct kernfs_open_file *of)
{
	return &of->peak;
}

struct cgroup_subsys_state *seq_css(struct seq_file *sf)
{
	return of_css(sf->private);
}

struct cftype *seq_cft(struct seq_file *sf)
{
	return of_cft(sf->private);
}

/* --- seq_file, strings ------------------------------------------------------- */

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	size_t room = m->size - m->count;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(m->buf + m->count, room, fmt, ap);
	va_end(ap);
	/* The kernel would retry with a bigger buffer; ours never needs to. */
	if (n < 0 || (size_t)n >= room)
		kshim_warn(__FILE__, __LINE__);
	else
		m->count += n;
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}

void seq_putc(struct seq_file *m, char c)
{
	seq_printf(m, "%c", c);
}
