// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA cgroup controller: limits, per cgroup and per RDMA device, the
 * verbs contexts (hca_handle) and objects (hca_object) that processes
 * create through ib_core.
 *
 * Each (cgroup, device) pair in use has a pool; a pool points to the
 * pool of the same device in the parent cgroup, so that a charge walks
 * the hierarchy without a lookup per level.  The root cgroup has no
 * pool: it has no limit to enforce and no file to show.
 *
 * Copyright (C) 2016 Parav Pandit <pandit.parav@gmail.com>
 */

#include <kunit/static_stub.h>
#include <linux/bitops.h>
#include <linux/cgroup.h>
#include <linux/cgroup_rdma.h>
#include <linux/ctype.h>
#include <linux/kstrtox.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/page_counter.h>
#include <linux/parser.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stringhash.h>
#include <linux/xarray.h>

#define RDMACG_MAX_STR "max"
/* The pages of "max" in rdma.mr_mem.max */
#define RDMACG_MEM_MAX PAGE_COUNTER_MAX
/* The resource index of mr_mem, after those of ib_core's */
#define RDMACG_MEM RDMACG_RESOURCE_MAX

/*
 * Serializes the list of devices, the creation and the freeing of pools,
 * limit writes and the files' readers.  Charges and uncharges do not
 * take it.
 */
static DEFINE_MUTEX(rdmacg_mutex);
static LIST_HEAD(rdmacg_devices);
/*
 * Read-held by a peak file's write while it works on pools that it found
 * under rdmacg_mutex; a device's unregistration takes it once before it
 * frees the pools.
 */
static DECLARE_RWSEM(rdmacg_peak_rwsem);

enum rdmacg_file_type {
	RDMACG_FILE_MAX,
	RDMACG_FILE_CURRENT,
	RDMACG_FILE_PEAK,
	RDMACG_FILE_EVENTS,
	RDMACG_FILE_EVENTS_LOCAL,
	RDMACG_FILE_MEM_MAX,
	RDMACG_FILE_MEM_CURRENT,
	RDMACG_FILE_MEM_PEAK,
};

static const char *const rdmacg_resource_names[] = {
	[RDMACG_RESOURCE_HCA_HANDLE]	= "hca_handle",
	[RDMACG_RESOURCE_HCA_OBJECT]	= "hca_object",
	[RDMACG_MEM]			= "mr_mem",
};

/* The refusals of a resource: in rdma.events, and in rdma.events.local */
struct rdmacg_events {
	atomic64_t		max;
	atomic64_t		alloc_fail;
	atomic64_t		local_max;
	atomic64_t		local_alloc_fail;
};

/*
 * One resource of a pool.  @usage changes by atomic operations only;
 * @max is written under rdmacg_mutex and read with READ_ONCE() by
 * charges; @peak only grows, by compare-and-exchange; @local_peak too,
 * except that a reset of the peak file restarts it.
 */
struct rdmacg_resource {
	atomic_t		usage;
	int			max;
	atomic_t		peak;
	atomic_t		local_peak;
	struct rdmacg_events	ev;
};

/*
 * The user memory pinned for the device, in pages, on a page_counter as
 * dmem counts device memory: its parent is the same device's counter in
 * the parent cgroup.
 */
struct rdmacg_mem {
	struct page_counter	pc;
	struct rdmacg_events	ev;
};

/* 384 bytes on x86_64, half of it the page_counter of mr_mem */
struct rdmacg_pool {
	/* The same device's pool in the parent cgroup; NULL below the root */
	struct rdmacg_pool	*parent;
	struct rdma_cgroup	*cg;
	/* Its key in the values of @cg's peak files, never reused in @cg */
	u32			serial;
	struct rdmacg_resource	res[RDMACG_RESOURCE_MAX];
	struct rdmacg_mem	mem;
};

/*
 * An open file of rdma.peak or rdma.mr_mem.peak that was written, with
 * memory.peak's rule per pool and resource: a write sets the file's value
 * to the usage, raises the other written files' values to it and restarts
 * the local peak from it; a written file shows the larger of its value
 * and the local peak.
 *
 * The values are inserted, changed and erased under the cgroup's peak_lock:
 * erased by a write once their pool is gone (a pool's serial is not reused
 * in its cgroup, so that no later pool finds them), or by the file's
 * release, which kernfs runs after its last read.
 */
struct rdmacg_peak_file {
	struct list_head	node;		/* cg->peak_files[] */
	struct xarray		marks;		/* by pool serial */
};

struct rdmacg_peak_mark {
	long			peak[RDMACG_MEM + 1];
};

static struct rdma_cgroup *css_rdmacg(struct cgroup_subsys_state *css)
{
	return container_of(css, struct rdma_cgroup, css);
}

static struct rdma_cgroup *rdmacg_parent(struct rdma_cgroup *cg)
{
	return cg->css.parent ? css_rdmacg(cg->css.parent) : NULL;
}

static bool rdmacg_is_root(struct rdma_cgroup *cg)
{
	return !cg->css.parent;
}

/*
 * The pool of @cg for @dev, or NULL.  A charge or uncharge may look up
 * without a lock: it holds a reference on @cg, which keeps the pools of
 * @cg and its ancestors, and @dev stays registered while it runs.
 */
static struct rdmacg_pool *rdmacg_pool_lookup(struct rdmacg_device *dev,
					      struct rdma_cgroup *cg)
{
	return xa_load(&dev->pools, cg->css.id);
}

/* The lookups of the walk that makes pools, which a KUnit case counts */
static struct rdmacg_pool *rdmacg_pool_find_locked(struct rdmacg_device *dev,
						   struct rdma_cgroup *cg)
{
	KUNIT_STATIC_STUB_REDIRECT(rdmacg_pool_find_locked, dev, cg);
	lockdep_assert_held(&rdmacg_mutex);
	return rdmacg_pool_lookup(dev, cg);
}

static struct rdmacg_pool *rdmacg_pool_alloc(struct rdma_cgroup *cg)
{
	struct rdmacg_pool *pool;
	int i;

	pool = kzalloc_obj(*pool);
	if (!pool)
		return NULL;
	pool->cg = cg;
	for (i = 0; i < RDMACG_RESOURCE_MAX; i++)
		pool->res[i].max = S32_MAX;
	return pool;
}

/**
 * rdmacg_pool_get_locked - find or make the pool of a cgroup for a device
 * @cg: a cgroup other than the root
 * @dev: a registered device
 *
 * Makes the pools that @cg and its ancestors lack for @dev in one walk up
 * the hierarchy, then publishes them from the top down, each with its
 * parent in place, so that a charge never finds a pool whose chain is
 * incomplete.
 *
 * Context: Process context, rdmacg_mutex held.
 * Return: the pool, or ERR_PTR(-ENOMEM); the pools published before a
 * failure stay, as complete chains.
 */
static struct rdmacg_pool *rdmacg_pool_get_locked(struct rdma_cgroup *cg,
						  struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool, *upper = NULL, *top = NULL, *below;
	struct rdma_cgroup *p;

	lockdep_assert_held(&rdmacg_mutex);

	/* Until published, @parent links a new pool to the level below */
	for (p = cg; !rdmacg_is_root(p); p = rdmacg_parent(p)) {
		upper = rdmacg_pool_find_locked(dev, p);
		if (upper)
			break;
		pool = rdmacg_pool_alloc(p);
		if (!pool)
			goto free;
		pool->serial = ++p->pool_serial;
		pool->parent = top;
		top = pool;
	}
	for (pool = top; pool; pool = below) {
		below = pool->parent;
		pool->parent = upper;
		page_counter_init(&pool->mem.pc, upper ? &upper->mem.pc : NULL,
				  false);
		if (xa_insert(&dev->pools, pool->cg->css.id, pool, GFP_KERNEL)) {
			pool->parent = below;
			top = pool;
			goto free;
		}
		upper = pool;
	}
	return upper;

free:
	for (; top; top = below) {
		below = top->parent;
		kfree(top);
	}
	return ERR_PTR(-ENOMEM);
}

/* The pool of @cg for @dev, made if missing: takes rdmacg_mutex then */
static struct rdmacg_pool *rdmacg_pool_get(struct rdma_cgroup *cg,
					   struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool = rdmacg_pool_lookup(dev, cg);

	if (likely(pool))
		return pool;
	mutex_lock(&rdmacg_mutex);
	pool = list_empty(&dev->dev_node) ? ERR_PTR(-ENODEV) :
					    rdmacg_pool_get_locked(cg, dev);
	mutex_unlock(&rdmacg_mutex);
	return pool;
}

static void rdmacg_raise(atomic_t *peak, int usage)
{
	int old = atomic_read(peak);

	while (usage > old && !atomic_try_cmpxchg(peak, &old, usage))
		;
}

/*
 * Add one unit at every level from @pool up, the pids controller's way:
 * a level whose usage the unit takes above its limit refuses it, and the
 * levels already charged give it back.  A racing charge may so be refused
 * by a unit that is about to be given back.  The comparison is unsigned,
 * so that a usage wrapped past INT_MAX is above every limit.  Each level
 * that takes the unit raises its peak to the usage its own add returned,
 * as pids raises its watermark: a peak misses no unit, and may count one
 * that a level above refuses, never one above its own limit.
 */
static struct rdmacg_pool *rdmacg_charge_pools(struct rdmacg_pool *pool,
					       enum rdmacg_resource_type type)
{
	struct rdmacg_pool *p, *q;

	for (p = pool; p; p = p->parent) {
		struct rdmacg_resource *r = &p->res[type];
		int usage = atomic_inc_return(&r->usage);

		if ((unsigned int)usage > (unsigned int)READ_ONCE(r->max)) {
			for (q = pool; q != p->parent; q = q->parent)
				atomic_dec(&q->res[type].usage);
			return p;
		}
		rdmacg_raise(&r->peak, usage);
		rdmacg_raise(&r->local_peak, usage);
	}
	return NULL;
}

static struct rdmacg_events *rdmacg_events(struct rdmacg_pool *pool, int type)
{
	return type == RDMACG_MEM ? &pool->mem.ev : &pool->res[type].ev;
}

/*
 * A refusal counts in rdma.events.local as an alloc_fail of the asking
 * cgroup and a max of the refusing one, and in rdma.events at every
 * level from each of them up.
 */
static void rdmacg_count_refusal(struct rdmacg_pool *pool,
				 struct rdmacg_pool *over, int type)
{
	struct rdmacg_pool *p;

	atomic64_inc(&rdmacg_events(pool, type)->local_alloc_fail);
	cgroup_file_notify(&pool->cg->events_local_file);
	atomic64_inc(&rdmacg_events(over, type)->local_max);
	cgroup_file_notify(&over->cg->events_local_file);
	for (p = over; p; p = p->parent) {
		atomic64_inc(&rdmacg_events(p, type)->max);
		cgroup_file_notify(&p->cg->events_file);
	}
	for (p = pool; p; p = p->parent) {
		atomic64_inc(&rdmacg_events(p, type)->alloc_fail);
		cgroup_file_notify(&p->cg->events_file);
	}
}

/* Charge @cg, not the root, with one unit: 0, -EAGAIN, -ENOMEM or -ENODEV */
static int rdmacg_charge(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			 enum rdmacg_resource_type type)
{
	struct rdmacg_pool *pool, *over;

	pool = rdmacg_pool_get(cg, dev);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	over = rdmacg_charge_pools(pool, type);
	if (over)
		rdmacg_count_refusal(pool, over, type);
	return over ? -EAGAIN : 0;
}

/**
 * rdmacg_try_charge - charge one unit of a resource to the current cgroup
 * @rdmacg: where to store the charged cgroup, for rdmacg_uncharge()
 * @dev: the device the resource belongs to
 * @type: the resource
 *
 * Charges the cgroup of the current task and each of its ancestors; fails
 * if that would take any of them above its limit for @dev.  The charged
 * cgroup keeps a css reference until the unit is uncharged.
 *
 * Context: Process context; takes rdmacg_mutex only for the first charge
 * of a cgroup on a device.
 * Return: 0, or -EAGAIN when a limit refuses the unit, -ENOMEM when its
 * pools cannot be made, -ENODEV when @dev is not registered, -EINVAL for
 * an unknown @type.  A task of the root cgroup, which has no limit, always
 * gets 0 for a known @type.
 */
int rdmacg_try_charge(struct rdma_cgroup **rdmacg, struct rdmacg_device *dev,
		      enum rdmacg_resource_type type)
{
	struct rdma_cgroup *cg;
	int ret = 0;

	if (type >= RDMACG_RESOURCE_MAX)
		return -EINVAL;

	cg = css_rdmacg(task_get_css(current, rdma_cgrp_id));
	if (!rdmacg_is_root(cg))
		ret = rdmacg_charge(cg, dev, type);
	if (ret)
		css_put(&cg->css);
	else
		*rdmacg = cg;
	return ret;
}
EXPORT_SYMBOL(rdmacg_try_charge);

/* Give back a unit rdmacg_charge() charged to @cg, not the root */
static void rdmacg_discharge(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			     enum rdmacg_resource_type type)
{
	struct rdmacg_pool *pool;

	rcu_read_lock();
	pool = rdmacg_pool_lookup(dev, cg);
	WARN_ON_ONCE(!pool);
	for (; pool; pool = pool->parent)
		WARN_ON_ONCE(atomic_dec_return(&pool->res[type].usage) < 0);
	rcu_read_unlock();
}

/**
 * rdmacg_uncharge - give back a unit that rdmacg_try_charge() charged
 * @cg: the cgroup rdmacg_try_charge() stored
 * @dev: the device the resource belongs to
 * @type: the resource
 *
 * Context: Any context that may drop a css reference; takes no lock.
 */
void rdmacg_uncharge(struct rdma_cgroup *cg, struct rdmacg_device *dev,
		     enum rdmacg_resource_type type)
{
	if (type >= RDMACG_RESOURCE_MAX)
		return;
	if (!rdmacg_is_root(cg))
		rdmacg_discharge(cg, dev, type);
	css_put(&cg->css);
}
EXPORT_SYMBOL(rdmacg_uncharge);

static int rdmacg_mem_charge(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			     unsigned long npages)
{
	struct rdmacg_pool *pool;
	struct page_counter *fail;

	pool = rdmacg_pool_get(cg, dev);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	if (page_counter_try_charge(&pool->mem.pc, npages, &fail))
		return 0;
	rdmacg_count_refusal(pool, container_of(fail, struct rdmacg_pool, mem.pc),
			     RDMACG_MEM);
	return -EAGAIN;
}

/**
 * rdmacg_try_charge_mem - charge user memory pinned for a device
 * @rdmacg: where to store the charged cgroup, for rdmacg_uncharge_mem()
 * @dev: the device the memory is pinned for
 * @npages: the pages pinned
 *
 * Charges the cgroup of the current task and each of its ancestors with
 * pages already pinned, so that a pin that fails never raises
 * rdma.mr_mem.peak.  The charged cgroup keeps a css reference until the
 * pages are uncharged.
 *
 * Context: Process context; takes rdmacg_mutex only for the first charge
 * of a cgroup on a device.
 * Return: 0, or -EAGAIN when a limit refuses the pages (the caller unpins
 * them), -ENOMEM when the pools cannot be made, -ENODEV when @dev is not
 * registered.
 */
int rdmacg_try_charge_mem(struct rdma_cgroup **rdmacg,
			  struct rdmacg_device *dev, unsigned long npages)
{
	struct rdma_cgroup *cg;
	int ret = 0;

	cg = css_rdmacg(task_get_css(current, rdma_cgrp_id));
	if (!rdmacg_is_root(cg))
		ret = rdmacg_mem_charge(cg, dev, npages);
	if (ret)
		css_put(&cg->css);
	else
		*rdmacg = cg;
	return ret;
}
EXPORT_SYMBOL(rdmacg_try_charge_mem);

/**
 * rdmacg_uncharge_mem - give back pages that rdmacg_try_charge_mem() charged
 * @cg: the cgroup rdmacg_try_charge_mem() stored
 * @dev: the device the memory was pinned for
 * @npages: the pages it charged
 *
 * Context: Any context that may drop a css reference; takes no lock.
 */
void rdmacg_uncharge_mem(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			 unsigned long npages)
{
	struct rdmacg_pool *pool;

	if (!rdmacg_is_root(cg)) {
		rcu_read_lock();
		pool = rdmacg_pool_lookup(dev, cg);
		if (!WARN_ON_ONCE(!pool))
			page_counter_uncharge(&pool->mem.pc, npages);
		rcu_read_unlock();
	}
	css_put(&cg->css);
}
EXPORT_SYMBOL(rdmacg_uncharge_mem);

/**
 * rdmacg_register_device - make a device's resources chargeable
 * @dev: the device, with its name and index set
 *
 * Context: Process context.  Cannot fail: nothing is allocated.
 */
void rdmacg_register_device(struct rdmacg_device *dev)
{
	xa_init(&dev->pools);
	mutex_lock(&rdmacg_mutex);
	list_add_tail(&dev->dev_node, &rdmacg_devices);
	mutex_unlock(&rdmacg_mutex);
}
EXPORT_SYMBOL(rdmacg_register_device);

/**
 * rdmacg_unregister_device - forget a device and every cgroup's pool of it
 * @dev: a registered device whose resources have all been uncharged
 *
 * The limits set on @dev go with it.  No charge of @dev may run then or
 * later: ib_core unregisters a device once its users are gone.
 *
 * Context: Process context; waits for an RCU grace period.
 */
void rdmacg_unregister_device(struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool;
	unsigned long id;
	int i;

	mutex_lock(&rdmacg_mutex);
	list_del_init(&dev->dev_node);
	mutex_unlock(&rdmacg_mutex);
	/* A peak file's write that found a pool of @dev works on it until done */
	down_write(&rdmacg_peak_rwsem);
	up_write(&rdmacg_peak_rwsem);
	/*
	 * Off the list, the pools are found by no limit write, reader or
	 * css_free.  Their charges are gone, but an uncharge may still be
	 * walking up from a pool it found before: free them after it.
	 */
	synchronize_rcu();
	xa_for_each(&dev->pools, id, pool) {
		for (i = 0; i < RDMACG_RESOURCE_MAX; i++)
			WARN_ON_ONCE(atomic_read(&pool->res[i].usage));
		WARN_ON_ONCE(page_counter_read(&pool->mem.pc));
		xa_erase(&dev->pools, id);
		kfree(pool);
	}
	xa_destroy(&dev->pools);
}
EXPORT_SYMBOL(rdmacg_unregister_device);

enum rdmacg_token {
	RDMACG_TOKEN_INDEX,
	RDMACG_TOKEN_HANDLE,
	RDMACG_TOKEN_HANDLE_MAX,
	RDMACG_TOKEN_OBJECT,
	RDMACG_TOKEN_OBJECT_MAX,
	RDMACG_TOKEN_MEM_MAX,
	RDMACG_TOKEN_MEM,
	RDMACG_TOKEN_ERROR,
};

static const match_table_t rdmacg_tokens = {
	{ RDMACG_TOKEN_INDEX,		"index=%u" },
	{ RDMACG_TOKEN_HANDLE,		"hca_handle=%d" },
	{ RDMACG_TOKEN_HANDLE_MAX,	"hca_handle=max" },
	{ RDMACG_TOKEN_OBJECT,		"hca_object=%d" },
	{ RDMACG_TOKEN_OBJECT_MAX,	"hca_object=max" },
	{ RDMACG_TOKEN_MEM_MAX,		RDMACG_MAX_STR },
	{ RDMACG_TOKEN_MEM,		"%s" },
	{ RDMACG_TOKEN_ERROR,		NULL },
};

/* What one write of rdma.max or rdma.mr_mem.max asks for */
struct rdmacg_limits {
	const char	*name;
	bool		has_index;
	u32		index;
	unsigned long	set;
	int		max[RDMACG_RESOURCE_MAX];
	unsigned long	mem;
};

/*
 * A size as memory.max takes it, a number and an optional unit of
 * memparse() (K, M, G, T, P or E), in whole pages: -EINVAL for anything
 * else, -ERANGE for a size past 64 bits, which memparse() lets wrap.
 */
static int rdmacg_parse_mem(char *s, unsigned long *pages)
{
	static const char units[] = "KMGTPE";
	size_t len = strlen(s);
	const char *unit;
	u64 bytes;
	int ret;

	if (!isdigit(*s))
		return -EINVAL;
	ret = kstrtou64(s, 0, &bytes);
	unit = strchr(units, toupper(s[len - 1]));
	if (ret == -EINVAL && unit) {
		s[len - 1] = '\0';
		ret = kstrtou64(s, 0, &bytes);
		if (!ret && check_shl_overflow(bytes, 10 * (unit - units + 1), &bytes))
			ret = -ERANGE;
	}
	if (!ret)
		*pages = min_t(u64, bytes >> PAGE_SHIFT, RDMACG_MEM_MAX);
	return ret;
}

/*
 * "NAME [index=N] [hca_handle=N|max] [hca_object=N|max]" for rdma.max,
 * "NAME [index=N] SIZE|max" for rdma.mr_mem.max (@mem): the keys in any
 * order, separated by blanks.  In rdma.max a repeated resource takes its
 * last value, as upstream's parser did; rdma.mr_mem.max takes exactly one
 * size.  A repeated index is refused.
 */
static int rdmacg_parse_limits(char *buf, struct rdmacg_limits *lim, bool mem)
{
	char *options = strstrip(buf), *p;

	lim->name = strsep(&options, " ");
	while ((p = strsep(&options, " \t\n"))) {
		substring_t args[MAX_OPT_ARGS];
		int tok, val = S32_MAX, res, ret;

		if (!*p)
			continue;
		tok = match_token(p, rdmacg_tokens, args);
		switch (tok) {
		case RDMACG_TOKEN_INDEX:
			if (lim->has_index || match_uint(&args[0], &lim->index))
				return -EINVAL;
			lim->has_index = true;
			continue;
		case RDMACG_TOKEN_MEM_MAX:
		case RDMACG_TOKEN_MEM:
			if (!mem || lim->set)
				return -EINVAL;
			lim->mem = RDMACG_MEM_MAX;
			if (tok == RDMACG_TOKEN_MEM) {
				ret = rdmacg_parse_mem(p, &lim->mem);
				if (ret)
					return ret;
			}
			__set_bit(RDMACG_MEM, &lim->set);
			continue;
		case RDMACG_TOKEN_HANDLE:
		case RDMACG_TOKEN_OBJECT:
			if (mem || match_int(&args[0], &val) || val < 0)
				return -EINVAL;
			break;
		case RDMACG_TOKEN_HANDLE_MAX:
		case RDMACG_TOKEN_OBJECT_MAX:
			if (mem)
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
		res = tok <= RDMACG_TOKEN_HANDLE_MAX ? RDMACG_RESOURCE_HCA_HANDLE :
						       RDMACG_RESOURCE_HCA_OBJECT;
		lim->max[res] = val;
		__set_bit(res, &lim->set);
	}
	return mem && !lim->set ? -EINVAL : 0;
}

/*
 * The device a write names: by name, and by index too when one is given;
 * a name that several devices have needs the index (-ENOTUNIQ).
 */
static struct rdmacg_device *
rdmacg_find_device_locked(const struct rdmacg_limits *lim)
{
	struct rdmacg_device *dev, *found = NULL;

	lockdep_assert_held(&rdmacg_mutex);

	list_for_each_entry(dev, &rdmacg_devices, dev_node) {
		if (strcmp(dev->name, lim->name) ||
		    (lim->has_index && dev->index != lim->index))
			continue;
		if (found)
			return ERR_PTR(-ENOTUNIQ);
		found = dev;
	}
	return found ?: ERR_PTR(-ENODEV);
}

/* A write of rdma.max, or rdma.mr_mem.max: all or nothing; 0 or an errno */
static int rdmacg_write_max(struct rdma_cgroup *cg, char *buf, bool mem)
{
	struct rdmacg_limits lim = {};
	struct rdmacg_device *dev;
	struct rdmacg_pool *pool;
	int ret, i;

	ret = rdmacg_parse_limits(buf, &lim, mem);
	if (ret)
		return ret;

	mutex_lock(&rdmacg_mutex);
	dev = rdmacg_find_device_locked(&lim);
	pool = IS_ERR(dev) ? ERR_CAST(dev) : rdmacg_pool_get_locked(cg, dev);
	if (!IS_ERR(pool)) {
		for_each_set_bit(i, &lim.set, RDMACG_RESOURCE_MAX)
			WRITE_ONCE(pool->res[i].max, lim.max[i]);
		if (test_bit(RDMACG_MEM, &lim.set))
			xchg(&pool->mem.pc.max, lim.mem);
	}
	mutex_unlock(&rdmacg_mutex);

	return PTR_ERR_OR_ZERO(pool);
}

static ssize_t rdmacg_max_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	return rdmacg_write_max(css_rdmacg(of_css(of)), buf,
				of_cft(of)->private == RDMACG_FILE_MEM_MAX) ?: nbytes;
}

static long rdmacg_usage(struct rdmacg_pool *pool, int i)
{
	return i == RDMACG_MEM ? page_counter_read(&pool->mem.pc) :
				 atomic_read(&pool->res[i].usage);
}

/* The peak since the pool was made or, if @local, since the last reset */
static long rdmacg_peak(struct rdmacg_pool *pool, int i, bool local)
{
	if (i == RDMACG_MEM)
		return local ? READ_ONCE(pool->mem.pc.local_watermark) :
			       READ_ONCE(pool->mem.pc.watermark);
	return atomic_read(local ? &pool->res[i].local_peak : &pool->res[i].peak);
}

/*
 * The usage, less a unit that a refusal is about to give back: only such a
 * unit takes the usage above both the limit and the peak (a limit written
 * under the usage leaves the peak at or above it).
 */
static long rdmacg_held(struct rdmacg_pool *pool, int i)
{
	long limit = i == RDMACG_MEM ? READ_ONCE(pool->mem.pc.max) :
				       READ_ONCE(pool->res[i].max);

	return min(rdmacg_usage(pool, i), max(limit, rdmacg_peak(pool, i, false)));
}

static struct rdmacg_peak_file *rdmacg_peak_file(struct cgroup_of_peak *ofp)
{
	return (struct rdmacg_peak_file *)ofp->value;
}

static void rdmacg_peak_file_free(struct rdmacg_peak_file *file)
{
	struct rdmacg_peak_mark *m;
	unsigned long serial;

	xa_for_each(&file->marks, serial, m)
		kfree(m);
	xa_destroy(&file->marks);
	kfree(file);
}

/*
 * The pools of @cg, in an array for the caller to free, and their number
 * in *@n; or ERR_PTR(-ENOMEM).  rdmacg_mutex is held only to find them.
 * Context: rdmacg_peak_rwsem held, which keeps them.
 */
static struct rdmacg_pool **rdmacg_pools_of(struct rdma_cgroup *cg, int *n)
{
	struct rdmacg_pool **pools = NULL, *pool;
	struct rdmacg_device *dev;
	int size = 0;

	for (;;) {
		*n = 0;
		mutex_lock(&rdmacg_mutex);
		list_for_each_entry(dev, &rdmacg_devices, dev_node) {
			pool = rdmacg_pool_lookup(dev, cg);
			if (pool && *n < size)
				pools[*n] = pool;
			*n += !!pool;
		}
		mutex_unlock(&rdmacg_mutex);
		if (*n <= size)
			return pools;
		kfree(pools);
		size = *n;
		pools = kmalloc_objs(*pools, size, GFP_KERNEL);
		if (!pools)
			return ERR_PTR(-ENOMEM);
	}
}

/* Give each of @files a value of each of @pools; 0 or -ENOMEM */
static int rdmacg_marks_fill(struct list_head *files, struct rdmacg_pool **pools,
			     int n)
{
	struct rdmacg_peak_file *file;
	struct rdmacg_peak_mark *m;
	int k;

	list_for_each_entry(file, files, node) {
		for (k = 0; k < n; k++) {
			if (xa_load(&file->marks, pools[k]->serial))
				continue;
			m = kzalloc_obj(*m, GFP_KERNEL_ACCOUNT);
			if (!m || xa_insert(&file->marks, pools[k]->serial, m,
					    GFP_KERNEL_ACCOUNT)) {
				kfree(m);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/*
 * Drop the values of pools that are gone, of none of @pools, from @files:
 * no reader finds such a pool, as readers find pools under rdmacg_mutex.
 */
static void rdmacg_marks_prune(struct list_head *files,
			       struct rdmacg_pool **pools, int n)
{
	struct rdmacg_peak_file *file;
	struct rdmacg_peak_mark *m;
	unsigned long serial;
	int k;

	list_for_each_entry(file, files, node) {
		for (k = 0; k < n; k++)
			xa_set_mark(&file->marks, pools[k]->serial, XA_MARK_0);
		xa_for_each(&file->marks, serial, m) {
			if (xa_get_mark(&file->marks, serial, XA_MARK_0))
				xa_clear_mark(&file->marks, serial, XA_MARK_0);
			else
				kfree(xa_erase(&file->marks, serial));
		}
	}
}

/* memory.peak's write, for resource @i of @pool */
static void rdmacg_res_reset(struct list_head *files, struct rdmacg_pool *pool,
			     int i, struct rdmacg_peak_file *mine)
{
	long usage = rdmacg_held(pool, i);
	struct rdmacg_peak_file *file;
	struct rdmacg_peak_mark *m;

	if (i == RDMACG_MEM)
		WRITE_ONCE(pool->mem.pc.local_watermark, usage);
	else
		atomic_set(&pool->res[i].local_peak, usage);
	list_for_each_entry(file, files, node) {
		m = xa_load(&file->marks, pool->serial);
		if (file == mine || m->peak[i] < usage)
			WRITE_ONCE(m->peak[i], usage);
	}
}

/*
 * A write of rdma.peak or, with @mem, of rdma.mr_mem.peak.  It costs the
 * cgroup's pools times its written files of the kind, as memory.peak's
 * costs its written files, under the cgroup's peak_lock; rdmacg_mutex is
 * held only to find the pools.  A failed write changes no value.
 */
static int rdmacg_peak_reset(struct rdma_cgroup *cg, struct cgroup_of_peak *ofp,
			     bool mem)
{
	struct rdmacg_peak_file *mine = rdmacg_peak_file(ofp);
	struct list_head *files = &cg->peak_files[mem];
	struct rdmacg_pool **pools;
	int ret = -ENOMEM, n, k, i;

	mutex_lock(&cg->peak_lock);
	if (!mine) {
		mine = kzalloc_obj(*mine, GFP_KERNEL_ACCOUNT);
		if (!mine)
			goto unlock;
		xa_init(&mine->marks);
		list_add(&mine->node, files);
	}
	down_read(&rdmacg_peak_rwsem);
	pools = rdmacg_pools_of(cg, &n);
	ret = PTR_ERR_OR_ZERO(pools) ?: rdmacg_marks_fill(files, pools, n);
	if (!ret) {
		for (k = 0; k < n; k++)
			/* mr_mem's index follows the others' */
			for (i = mem ? RDMACG_MEM : 0; i < RDMACG_MEM + mem; i++)
				rdmacg_res_reset(files, pools[k], i, mine);
		rdmacg_marks_prune(files, pools, n);
		ofp->value = (unsigned long)mine;
	}
	up_read(&rdmacg_peak_rwsem);
	if (!IS_ERR(pools))
		kfree(pools);
	if (ret && !ofp->value) {
		list_del(&mine->node);
		rdmacg_peak_file_free(mine);
	}
unlock:
	mutex_unlock(&cg->peak_lock);
	return ret;
}

static ssize_t rdmacg_peak_write(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	return rdmacg_peak_reset(css_rdmacg(of_css(of)), of_peak(of),
				 of_cft(of)->private == RDMACG_FILE_MEM_PEAK) ?: nbytes;
}

/* The release of a file of rdma.peak or rdma.mr_mem.peak: its marks go */
static void rdmacg_peak_forget(struct rdma_cgroup *cg,
			       struct cgroup_of_peak *ofp)
{
	struct rdmacg_peak_file *file = rdmacg_peak_file(ofp);

	if (!file)
		return;
	mutex_lock(&cg->peak_lock);
	list_del(&file->node);
	mutex_unlock(&cg->peak_lock);
	rdmacg_peak_file_free(file);
}

static void rdmacg_peak_release(struct kernfs_open_file *of)
{
	rdmacg_peak_forget(css_rdmacg(of_css(of)), of_peak(of));
}

/*
 * The peak a file shows: since the pool was made, or as memory.peak's
 * once the file was written.  Context: rdmacg_mutex held, which keeps the
 * pool.
 */
static long rdmacg_peak_seen(struct rdmacg_pool *pool, int i,
			     struct rdmacg_peak_file *file)
{
	struct rdmacg_peak_mark *m;
	long held;

	if (!pool)
		return 0;
	/* A charge raises the usage before the peak: never show less */
	held = rdmacg_held(pool, i);
	if (!file)
		return max(rdmacg_peak(pool, i, false), held);
	m = xa_load(&file->marks, pool->serial);
	return max3(rdmacg_peak(pool, i, true), held,
		    m ? READ_ONCE(m->peak[i]) : 0L);
}

/*
 * A device's key is its name, and its index when another registered device
 * has the name.  A read sets a bit per name's hash, and a second bit for
 * a hash that two names have: only a device whose name has the second bit
 * is compared with the others, so that a read is O(devices) however many
 * there are.  Names change (ib_core renames a device to a name another
 * has in another network namespace): each read hashes them again.
 */
#define RDMACG_NAME_BUCKETS	256

static unsigned int rdmacg_name_bucket(const char *name)
{
	return full_name_hash(NULL, name, strlen(name)) % RDMACG_NAME_BUCKETS;
}

static void rdmacg_names_fill(unsigned long *names)
{
	struct rdmacg_device *dev;
	unsigned int b;

	bitmap_zero(names, 2 * RDMACG_NAME_BUCKETS);
	list_for_each_entry(dev, &rdmacg_devices, dev_node) {
		b = rdmacg_name_bucket(dev->name);
		if (__test_and_set_bit(b, names))
			__set_bit(RDMACG_NAME_BUCKETS + b, names);
	}
}

static void rdmacg_print_key(struct seq_file *sf, struct rdmacg_device *dev,
			     const unsigned long *names)
{
	struct rdmacg_device *other;

	lockdep_assert_held(&rdmacg_mutex);

	seq_puts(sf, dev->name);
	if (!test_bit(RDMACG_NAME_BUCKETS + rdmacg_name_bucket(dev->name), names))
		return;
	list_for_each_entry(other, &rdmacg_devices, dev_node) {
		if (other != dev && !strcmp(other->name, dev->name)) {
			seq_printf(sf, " index=%u", dev->index);
			break;
		}
	}
}

static void rdmacg_print_value(struct seq_file *sf, const char *name, int val)
{
	if (val == S32_MAX)
		seq_printf(sf, " %s=%s", name, RDMACG_MAX_STR);
	else
		seq_printf(sf, " %s=%d", name, val);
}

/* The keys of a resource in rdma.events, or rdma.events.local */
static void rdmacg_print_events(struct seq_file *sf, const char *name,
				struct rdmacg_events *ev, bool local)
{
	s64 max = 0, fail = 0;

	if (ev) {
		max = atomic64_read(local ? &ev->local_max : &ev->max);
		fail = atomic64_read(local ? &ev->local_alloc_fail :
					     &ev->alloc_fail);
	}
	seq_printf(sf, " %s.max=%lld %s.alloc_fail=%lld", name, max, name, fail);
}

static void rdmacg_print_resource(struct seq_file *sf, int file, int i,
				  struct rdmacg_pool *pool,
				  struct rdmacg_peak_file *peaks)
{
	struct rdmacg_resource *r = pool ? &pool->res[i] : NULL;
	const char *name = rdmacg_resource_names[i];

	switch (file) {
	case RDMACG_FILE_MAX:
		rdmacg_print_value(sf, name, r ? READ_ONCE(r->max) : S32_MAX);
		break;
	case RDMACG_FILE_CURRENT:
		rdmacg_print_value(sf, name, r ? atomic_read(&r->usage) : 0);
		break;
	case RDMACG_FILE_PEAK:
		rdmacg_print_value(sf, name, rdmacg_peak_seen(pool, i, peaks));
		break;
	case RDMACG_FILE_EVENTS:
	case RDMACG_FILE_EVENTS_LOCAL:
		rdmacg_print_events(sf, name, r ? &r->ev : NULL,
				    file == RDMACG_FILE_EVENTS_LOCAL);
		break;
	}
}

/* The value of rdma.mr_mem.max, .current or .peak, in bytes */
static void rdmacg_print_mem(struct seq_file *sf, int file,
			     struct rdmacg_pool *pool,
			     struct rdmacg_peak_file *peaks)
{
	unsigned long pages;

	if (file == RDMACG_FILE_MEM_MAX)
		pages = pool ? READ_ONCE(pool->mem.pc.max) : RDMACG_MEM_MAX;
	else if (file == RDMACG_FILE_MEM_CURRENT)
		pages = pool ? page_counter_read(&pool->mem.pc) : 0;
	else
		pages = rdmacg_peak_seen(pool, RDMACG_MEM, peaks);
	if (pages == RDMACG_MEM_MAX)
		seq_puts(sf, " " RDMACG_MAX_STR);
	else
		seq_printf(sf, " %lu", pages << PAGE_SHIFT);
}

/*
 * Every file: one line per registered device, in registration order.
 * @peaks: the values of the peak file that reads, NULL if never written.
 */
static void rdmacg_print(struct seq_file *sf, struct rdma_cgroup *cg,
			 int file, struct rdmacg_peak_file *peaks)
{
	DECLARE_BITMAP(names, 2 * RDMACG_NAME_BUCKETS);
	struct rdmacg_device *dev;
	struct rdmacg_pool *pool;
	int i;

	mutex_lock(&rdmacg_mutex);
	rdmacg_names_fill(names);
	list_for_each_entry(dev, &rdmacg_devices, dev_node) {
		pool = xa_load(&dev->pools, cg->css.id);
		rdmacg_print_key(sf, dev, names);
		if (file >= RDMACG_FILE_MEM_MAX) {
			rdmacg_print_mem(sf, file, pool, peaks);
			seq_putc(sf, '\n');
			continue;
		}
		for (i = 0; i < RDMACG_RESOURCE_MAX; i++)
			rdmacg_print_resource(sf, file, i, pool, peaks);
		if (file == RDMACG_FILE_EVENTS || file == RDMACG_FILE_EVENTS_LOCAL)
			rdmacg_print_events(sf, rdmacg_resource_names[RDMACG_MEM],
					    pool ? &pool->mem.ev : NULL,
					    file == RDMACG_FILE_EVENTS_LOCAL);
		seq_putc(sf, '\n');
	}
	mutex_unlock(&rdmacg_mutex);
}

static int rdmacg_show(struct seq_file *sf, void *v)
{
	/* Only a peak file's write sets its of_peak(), zero at open */
	rdmacg_print(sf, css_rdmacg(seq_css(sf)), seq_cft(sf)->private,
		     rdmacg_peak_file(of_peak(sf->private)));
	return 0;
}

static struct cftype rdmacg_files[] = {
	{
		.name = "max",
		.write = rdmacg_max_write,
		.seq_show = rdmacg_show,
		.private = RDMACG_FILE_MAX,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "current",
		.seq_show = rdmacg_show,
		.private = RDMACG_FILE_CURRENT,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "peak",
		.seq_show = rdmacg_show,
		.write = rdmacg_peak_write,
		.release = rdmacg_peak_release,
		.private = RDMACG_FILE_PEAK,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "events",
		.seq_show = rdmacg_show,
		.private = RDMACG_FILE_EVENTS,
		.file_offset = offsetof(struct rdma_cgroup, events_file),
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "events.local",
		.seq_show = rdmacg_show,
		.private = RDMACG_FILE_EVENTS_LOCAL,
		.file_offset = offsetof(struct rdma_cgroup, events_local_file),
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "mr_mem.max",
		.write = rdmacg_max_write,
		.seq_show = rdmacg_show,
		.private = RDMACG_FILE_MEM_MAX,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "mr_mem.current",
		.seq_show = rdmacg_show,
		.private = RDMACG_FILE_MEM_CURRENT,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "mr_mem.peak",
		.seq_show = rdmacg_show,
		.write = rdmacg_peak_write,
		.release = rdmacg_peak_release,
		.private = RDMACG_FILE_MEM_PEAK,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{ }	/* terminate */
};

static struct cgroup_subsys_state *
rdmacg_css_alloc(struct cgroup_subsys_state *parent)
{
	struct rdma_cgroup *cg = kzalloc_obj(*cg);

	if (!cg)
		return ERR_PTR(-ENOMEM);
	mutex_init(&cg->peak_lock);
	INIT_LIST_HEAD(&cg->peak_files[0]);
	INIT_LIST_HEAD(&cg->peak_files[1]);
	return &cg->css;
}

/*
 * No charge can reach the pools of a cgroup being freed: each charge holds
 * a reference on its cgroup, which holds its ancestors.  Its files were
 * released (kernfs drains them at removal): no peak file's values are
 * left.  The css id is still the cgroup's here; it is reused only after
 * this returns.
 */
static void rdmacg_css_free(struct cgroup_subsys_state *css)
{
	struct rdmacg_device *dev;

	mutex_lock(&rdmacg_mutex);
	list_for_each_entry(dev, &rdmacg_devices, dev_node)
		kfree(xa_erase(&dev->pools, css->id));
	mutex_unlock(&rdmacg_mutex);
	mutex_destroy(&css_rdmacg(css)->peak_lock);
	kfree(css_rdmacg(css));
}

struct cgroup_subsys rdma_cgrp_subsys = {
	.css_alloc	= rdmacg_css_alloc,
	.css_free	= rdmacg_css_free,
	.legacy_cftypes	= rdmacg_files,
	.dfl_cftypes	= rdmacg_files,
};

#ifdef CONFIG_CGROUP_RDMA_KUNIT_TEST
#include "tests/rdma_kunit.c"
#endif
