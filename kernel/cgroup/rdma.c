// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA cgroup controller
 *
 * Limits, per cgroup and per RDMA device, how many uverbs contexts
 * (hca_handle) and uverbs objects (hca_object) the tasks of a cgroup may
 * hold. ib_core charges each context and object to the cgroup of the task
 * that creates it, and returns the charge to that same cgroup when the
 * resource is destroyed, wherever the task has gone meanwhile.
 * It also limits how many bytes of user memory ib_core may pin for them
 * (mr_mem), charged to the cgroup of the task that pins the memory, and
 * returned to that cgroup when the memory is unpinned.
 *
 * Each cgroup below the root has at most one pool per device: usage, limit
 * and peak of each resource, and event counters. The pools of one device
 * form a tree like the cgroups': each points to its parent cgroup's pool.
 * A cgroup finds its pool for a device in an array indexed by the device's
 * id. A pool is created, with its missing ancestors, by the first charge or
 * limit write that needs it and lives until its cgroup is freed or its
 * device unregistered, so the steady-state charge path never allocates.
 * The root cgroup is never charged and has no pools.
 *
 * A charge looks up one pool under RCU and walks up the parent pointers,
 * adding its amount at each level with a cmpxchg that never passes the
 * limit and giving the lower levels their share back if a level refuses;
 * an uncharge is one atomic subtraction per level. Neither takes a lock once
 * the pools exist. Pools are created under a per-device mutex that orders
 * creation against unregistration, and freed after an RCU grace period.
 * Lock order: rdmacg_registry_mutex, rdmacg_device.pools_lock,
 * rdma_cgroup.table_lock. The rules of each field are where it is declared.
 *
 * Based on the controller of Linux 4.11,
 * Copyright (C) 2016 Parav Pandit <pandit.parav@gmail.com>
 */

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cgroup.h>
#include <linux/cgroup_rdma.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <kunit/static_stub.h>

#include "rdma_parse.h"

/*
 * Event counters of one resource in one pool. The local ones count what
 * happened at this cgroup; the others also what happened below it.
 */
enum rdmacg_event {
	RDMACG_EV_FAIL,		/* a charge asked here or below failed */
	RDMACG_EV_FAIL_LOCAL,	/* a charge asked here failed */
	RDMACG_EV_MAX,		/* a limit here or below refused a charge */
	RDMACG_EV_MAX_LOCAL,	/* this cgroup's limit refused a charge */
	RDMACG_NR_EVENTS,
};

/**
 * struct rdmacg_count - one counted resource (hca_handle, hca_object) of
 *	one pool
 * @usage: units held by the cgroup and its descendants; changed only by
 *	atomic operations, and never above @max by a charge. Limits are ints
 *	(%RDMACG_MAX), so an int holds any usage a charge can reach
 * @max: limit, %RDMACG_MAX for none; set under rdmacg_registry_mutex, read
 *	locklessly by charges, twice (see rdmacg_count_try_add())
 * @peak: highest @usage seen; raised with cmpxchg only once a charge has
 *	succeeded at every level (see rdmacg_charge_peaks())
 */
struct rdmacg_count {
	atomic_t	usage;
	atomic_t	max;
	atomic_t	peak;
};

/**
 * struct rdmacg_bytes - the pinned memory (mr_mem) of one pool, in bytes
 * @usage: as &rdmacg_count.usage, 64-bit
 * @max: as &rdmacg_count.max, %RDMACG_MR_MEM_MAX for none; an atomic64_t
 *	so that a 32-bit reader never sees half of a new limit
 * @peak: as &rdmacg_count.peak
 */
struct rdmacg_bytes {
	atomic64_t	usage;
	atomic64_t	max;
	atomic64_t	peak;
};

/**
 * struct rdmacg_pool_ext - the part of a pool that only some pools need
 * @mr_mem: pinned memory; zero usage and no limit until allocated
 * @events: event counters, indexed by &enum rdmacg_resource_type, then
 *	&enum rdmacg_event
 *
 * Allocated, for a pool and every pool up its parent chain, by the first
 * of these that needs it, so that the pools of cgroups that only count
 * contexts and objects stay at 64 bytes:
 *
 * - counting a refusal at a level;
 * - charging pinned memory at a level, or limiting it there.
 */
struct rdmacg_pool_ext {
	struct rdmacg_bytes	mr_mem;
	atomic64_t		events[RDMACG_RESOURCE_MAX][RDMACG_NR_EVENTS];
};

/**
 * struct rdmacg_pool - the state of one cgroup on one device
 * @parent: the pool of the parent cgroup for the same device, or %NULL when
 *	the parent is the root; set at creation, which happens only once the
 *	parent pool exists. A parent pool outlives its children: cgroup core
 *	frees a child before its parent, and unregistration frees all the
 *	pools of a device after one grace period
 * @cg: the cgroup, which the pool never outlives
 * @dev_link: entry in &rdmacg_device.pools, under &rdmacg_device.pools_lock
 * @rcu: frees the pool a grace period after it left its cgroup's table, so
 *	that a pool found under rcu_read_lock() in a cgroup the caller keeps
 *	alive, and every pool up its parent chain, stays valid until
 *	rcu_read_unlock()
 * @res: the counted resources, indexed by &enum rdmacg_resource_type
 * @ext: %NULL until first needed; then published once with
 *	smp_store_release() under &rdmacg_device.pools_lock, after the @ext of
 *	every pool up the parent chain, and freed with the pool. A reader that
 *	loads a pool's @ext with acquire may follow its ancestors' with
 *	READ_ONCE(): they were published before it
 */
struct rdmacg_pool {
	struct rdmacg_pool	*parent;
	struct rdma_cgroup	*cg;
	union {
		struct list_head	dev_link;
		struct rcu_head		rcu;
	};
	struct rdmacg_count	res[RDMACG_NR_COUNTS];
	struct rdmacg_pool_ext	*ext;
};

/**
 * struct rdmacg_pool_table - the pools of one cgroup for device ids from 1
 * @nr: number of slots, as many as the allocation holds
 * @pool: the pool for device id i + 1 at i, %NULL where there is none;
 *	written under &rdma_cgroup.table_lock, read under RCU
 *
 * Never resized in place: a bigger copy replaces it under
 * &rdma_cgroup.table_lock and the old one is freed after a grace period,
 * with kfree_rcu_mightsleep() so that no rcu_head makes a table for a few
 * devices outgrow 16 or 32 bytes.
 */
struct rdmacg_pool_table {
	unsigned long			nr;
	struct rdmacg_pool __rcu	*pool[] __counted_by(nr);
};

/* What a file of limits, usage or peaks shows. */
enum rdmacg_value {
	RDMACG_VAL_MAX,
	RDMACG_VAL_CURRENT,
	RDMACG_VAL_PEAK,
};

/*
 * Set in a cftype's private, with the value shown, for an rdma.mr_mem.*
 * file; clear for rdma.max, rdma.current and rdma.peak.
 */
#define RDMACG_FILE_MR_MEM	BIT(4)

/*
 * Points of the lockless paths where the KUnit race tests may hold a task
 * (tests/rdma_kunit.c) while another one acts, so that each interleaving a
 * concurrency argument below covers is run deterministically. In kernels
 * without the tests, rdmacg_race() is empty.
 */
enum rdmacg_race_point {
	RDMACG_RACE_ADDED,	/* a level's cmpxchg done, its limit unread */
	RDMACG_RACE_LEVEL,	/* a level accepted the charge */
	RDMACG_RACE_CHARGED,	/* every level accepted, no peak raised */
	RDMACG_RACE_UNCHARGE,	/* an uncharge holds its leaf pool */
	RDMACG_RACE_UNREGISTER,	/* unregistration is about to wait for RCU */
};

#ifdef CONFIG_CGROUP_RDMA_KUNIT_TEST
/* Set by the race tests only; called with what the point works on. */
static void (*rdmacg_race_hook)(enum rdmacg_race_point point,
				const void *where);

static __always_inline void rdmacg_race(enum rdmacg_race_point point,
					const void *where)
{
	void (*hook)(enum rdmacg_race_point point, const void *where);

	/* A test sets and clears it while charges run elsewhere. */
	hook = READ_ONCE(rdmacg_race_hook);
	if (unlikely(hook))
		hook(point, where);
}
#else
static __always_inline void rdmacg_race(enum rdmacg_race_point point,
					const void *where)
{
}
#endif

/*
 * Protects rdmacg_registry, the accounted devices, and orders unregistration
 * against css_free, so that each pool is freed once and a cgroup is alive
 * while unregistration clears its table. The interface files hold it to
 * walk the devices; charges and uncharges never take it.
 */
static DEFINE_MUTEX(rdmacg_registry_mutex);
static LIST_HEAD(rdmacg_registry);

/*
 * Device ids. An id is freed a grace period after its device left the
 * accounted state, so that a lockless reader that saw the device accounted
 * in its RCU read-side critical section never sees the id reused.
 */
static DEFINE_IDA(rdmacg_ids);

static struct rdma_cgroup *rdmacg_of(struct cgroup_subsys_state *css)
{
	return container_of(css, struct rdma_cgroup, css);
}

static struct rdma_cgroup *rdmacg_parent(struct rdma_cgroup *cg)
{
	return rdmacg_of(cg->css.parent);
}

/* Only cgroups below the root are charged and hold pools. */
static bool rdmacg_below_root(struct rdma_cgroup *cg)
{
	return cg->css.parent;
}

/*
 * The helpers of the charge path are __always_inline: kernels built for
 * size would keep them as calls, and calls, one or more per level, were
 * what a charge cost most (+74% instructions at depth 1 without this).
 */

/* The limit that means none: "max" in the files. */
static __always_inline u64 rdmacg_unlimited(enum rdmacg_resource_type type)
{
	if (type == RDMACG_RESOURCE_MR_MEM)
		return RDMACG_MR_MEM_MAX;
	return RDMACG_MAX;
}

/* Whether @amount more fits under @max; never overflows. */
static __always_inline bool rdmacg_fits(u64 usage, u64 amount, u64 max)
{
	return usage <= max && amount <= max - usage;
}

/**
 * rdmacg_count_try_add() - add one unit unless that would pass the limit
 * @c: counter
 *
 * The limit is read again once the unit is added, in case
 * rdmacg_set_limit() lowered it meanwhile. The cmpxchg is fully ordered,
 * and so is the barrier that follows the writer's store: either this
 * second read sees the new limit, and the unit is given back, or the
 * writer's later reads see the unit, which was then added before the
 * write, like any usage above a newly lowered limit. So once a write has
 * returned, no unit is added here beyond its limit; a unit added before
 * stays, even if the charge it belongs to has more levels to pass.
 *
 * Context: Any context.
 * Return: the usage with the unit added, or 0 if nothing was added.
 */
static __always_inline u64 rdmacg_count_try_add(struct rdmacg_count *c)
{
	int usage = atomic_read(&c->usage);

	do {
		if (usage >= atomic_read(&c->max))
			return 0;
	} while (!atomic_try_cmpxchg(&c->usage, &usage, usage + 1));

	rdmacg_race(RDMACG_RACE_ADDED, c);
	if (unlikely(usage >= atomic_read(&c->max))) {
		atomic_dec(&c->usage);
		return 0;
	}
	return usage + 1;
}

/**
 * rdmacg_bytes_try_add() - add bytes unless that would pass the limit
 * @c: counter
 * @amount: bytes to add, not 0
 *
 * As rdmacg_count_try_add(), for an amount.
 *
 * Context: Any context.
 * Return: the usage with @amount added, or 0 if nothing was added.
 */
static __always_inline u64 rdmacg_bytes_try_add(struct rdmacg_bytes *c,
						u64 amount)
{
	s64 usage = atomic64_read(&c->usage);

	do {
		if (!rdmacg_fits(usage, amount, (u64)atomic64_read(&c->max)))
			return 0;
	} while (!atomic64_try_cmpxchg(&c->usage, &usage, usage + amount));

	rdmacg_race(RDMACG_RACE_ADDED, c);
	if (unlikely(!rdmacg_fits(usage, amount, (u64)atomic64_read(&c->max)))) {
		atomic64_sub(amount, &c->usage);
		return 0;
	}
	return (u64)usage + amount;
}

/* The mr_mem counter of a pool whose ext a charge has seen. */
static __always_inline struct rdmacg_bytes *
rdmacg_bytes(struct rdmacg_pool *pool)
{
	/* Published before the acquire that found the leaf's: see @ext. */
	return &READ_ONCE(pool->ext)->mr_mem;
}

/* Add @amount of @type at one level: see rdmacg_count_try_add(). */
static __always_inline u64 rdmacg_try_add(struct rdmacg_pool *pool,
					  enum rdmacg_resource_type type,
					  u64 amount)
{
	if (type == RDMACG_RESOURCE_MR_MEM)
		return rdmacg_bytes_try_add(rdmacg_bytes(pool), amount);
	return rdmacg_count_try_add(&pool->res[type]);
}

/* The peak of @type at one level. */
static __always_inline u64 rdmacg_peak(struct rdmacg_pool *pool,
				       enum rdmacg_resource_type type)
{
	if (type == RDMACG_RESOURCE_MR_MEM)
		return atomic64_read(&rdmacg_bytes(pool)->peak);
	return atomic_read(&pool->res[type].peak);
}

/* The usage of @type at one level. */
static __always_inline u64 rdmacg_usage(struct rdmacg_pool *pool,
					enum rdmacg_resource_type type)
{
	if (type == RDMACG_RESOURCE_MR_MEM)
		return atomic64_read(&rdmacg_bytes(pool)->usage);
	return atomic_read(&pool->res[type].usage);
}

/**
 * rdmacg_raise_peak() - record a usage one level has reached
 * @pool: the level
 * @type: resource
 * @usage: what rdmacg_try_add() returned there for a charge that every
 *	level has accepted, or the usage read afterwards (see
 *	rdmacg_charge_peaks())
 *
 * Context: Any context.
 */
static void rdmacg_raise_peak(struct rdmacg_pool *pool,
			      enum rdmacg_resource_type type, u64 usage)
{
	atomic64_t *peak64;
	atomic_t *peak;
	s64 old64;
	int old;

	if (type == RDMACG_RESOURCE_MR_MEM) {
		peak64 = &rdmacg_bytes(pool)->peak;
		old64 = atomic64_read(peak64);
		while (usage > (u64)old64 &&
		       !atomic64_try_cmpxchg(peak64, &old64, usage))
			;
		return;
	}
	peak = &pool->res[type].peak;
	old = atomic_read(peak);
	while ((int)usage > old && !atomic_try_cmpxchg(peak, &old, usage))
		;
}

/**
 * rdmacg_sub() - give units back at one level
 * @pool: the level
 * @type: resource
 * @amount: units to give back
 *
 * Context: Any context.
 */
static __always_inline void rdmacg_sub(struct rdmacg_pool *pool,
				       enum rdmacg_resource_type type,
				       u64 amount)
{
	struct rdmacg_bytes *b;
	bool under;

	if (type == RDMACG_RESOURCE_MR_MEM) {
		b = rdmacg_bytes(pool);
		under = (u64)atomic64_fetch_sub(amount, &b->usage) < amount;
		/* Only a caller's bug gets here below zero; undo it then. */
		if (WARN_ONCE(under, "rdmacg: more uncharges than charges\n"))
			atomic64_add(amount, &b->usage);
		return;
	}
	under = atomic_sub_return(amount, &pool->res[type].usage) < 0;
	if (WARN_ONCE(under, "rdmacg: more uncharges than charges\n"))
		atomic_add(amount, &pool->res[type].usage);
}

/**
 * rdmacg_device_state() - the state of @dev, for a lockless reader
 * @dev: a device
 *
 * Context: In the RCU read-side critical section that then uses @dev's id:
 * unregistration waits for it before the id can be reused.
 * Return: an &enum rdmacg_device_state; @dev's id may be used while it
 * is %RDMACG_DEV_ACCOUNTED.
 */
static __always_inline enum rdmacg_device_state
rdmacg_device_state(struct rdmacg_device *dev)
{
	/* Pairs with the release in rdmacg_register_device(): sees the id. */
	return smp_load_acquire(&dev->state);
}

static __always_inline bool rdmacg_device_alive(struct rdmacg_device *dev)
{
	return rdmacg_device_state(dev) == RDMACG_DEV_ACCOUNTED;
}

/**
 * rdmacg_slot() - where @cg keeps the pool of device id @id
 * @cg: a cgroup
 * @id: a device id
 *
 * Context: Under rcu_read_lock() or &rdma_cgroup.table_lock.
 * Return: the slot, or %NULL if the table has none for @id yet.
 */
static __always_inline struct rdmacg_pool __rcu **
rdmacg_slot(struct rdma_cgroup *cg, u32 id)
{
	struct rdmacg_pool_table *table;

	if (likely(id == 0))
		return &cg->pool0;
	table = rcu_dereference_check(cg->table,
				      lockdep_is_held(&cg->table_lock));
	return table && id <= table->nr ? &table->pool[id - 1] : NULL;
}

/**
 * rdmacg_pool_lookup() - look up the pool of @cg for @dev
 * @cg: a cgroup
 * @dev: a device the caller saw registered in the current RCU read-side
 *	critical section, or keeps registered
 *
 * Context: Under rcu_read_lock(), which keeps the result valid.
 * Return: the pool, or %NULL.
 */
static __always_inline struct rdmacg_pool *
rdmacg_pool_lookup(struct rdma_cgroup *cg, struct rdmacg_device *dev)
{
	struct rdmacg_pool __rcu **slot = rdmacg_slot(cg, dev->id);

	return slot ? rcu_dereference(*slot) : NULL;
}

/**
 * rdmacg_pool_lookup_locked() - look up the pool of @cg for @dev
 * @cg: a cgroup
 * @dev: a registered device
 *
 * Context: Under rdmacg_registry_mutex or &rdmacg_device.pools_lock, which
 * keep the result valid.
 * Return: the pool, or %NULL.
 */
static struct rdmacg_pool *rdmacg_pool_lookup_locked(struct rdma_cgroup *cg,
						     struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool;

	lockdep_assert(lockdep_is_held(&rdmacg_registry_mutex) ||
		       lockdep_is_held(&dev->pools_lock));
	/* The table itself may be replaced under us; only RCU keeps it. */
	rcu_read_lock();
	pool = rdmacg_pool_lookup(cg, dev);
	rcu_read_unlock();
	return pool;
}

/**
 * rdmacg_table_store() - store @pool in @cg's slot for device id @id
 * @cg: a cgroup the caller keeps alive
 * @id: a device id
 * @pool: the pool
 *
 * Replaces the table by a larger copy when @id does not fit.
 *
 * Context: Process context; may sleep. Takes &rdma_cgroup.table_lock.
 * Return: 0 or -ENOMEM.
 */
static int rdmacg_table_store(struct rdma_cgroup *cg, u32 id,
			      struct rdmacg_pool *pool)
{
	struct rdmacg_pool_table *table, *bigger;
	struct rdmacg_pool __rcu **slot;
	size_t size;
	unsigned long i;

	spin_lock(&cg->table_lock);
	slot = rdmacg_slot(cg, id);
	if (slot)
		goto store;
	spin_unlock(&cg->table_lock);

	/*
	 * Allocate outside the lock, then look again: a pool creation for
	 * another device may have grown the table meanwhile. Slot @id itself
	 * is only written under this device's pools_lock, which we hold.
	 */
	size = kmalloc_size_roundup(struct_size(bigger, pool, id));
	bigger = kzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!bigger)
		return -ENOMEM;
	bigger->nr = (size - sizeof(*bigger)) / sizeof(bigger->pool[0]);

	spin_lock(&cg->table_lock);
	slot = rdmacg_slot(cg, id);
	if (slot) {
		/* another device grew it past @id meanwhile */
		kfree(bigger);
		goto store;
	}
	table = rcu_dereference_protected(cg->table,
					  lockdep_is_held(&cg->table_lock));
	/* Pointers copied, not dereferenced. */
	for (i = 0; table && i < table->nr; i++)
		RCU_INIT_POINTER(bigger->pool[i], rcu_access_pointer(table->pool[i]));
	rcu_assign_pointer(cg->table, bigger);
	rcu_assign_pointer(bigger->pool[id - 1], pool);
	spin_unlock(&cg->table_lock);
	/* Readers may still walk the old table. */
	kfree_rcu_mightsleep(table);
	return 0;
store:
	rcu_assign_pointer(*slot, pool);
	spin_unlock(&cg->table_lock);
	return 0;
}

/* Empty @cg's slot for device id @id, which holds a pool. */
static void rdmacg_table_clear(struct rdma_cgroup *cg, u32 id)
{
	spin_lock(&cg->table_lock);
	RCU_INIT_POINTER(*rdmacg_slot(cg, id), NULL);
	spin_unlock(&cg->table_lock);
}

/**
 * rdmacg_pool_add() - create the pool of @cg for @dev
 * @cg: a non-root cgroup the caller keeps alive, with no pool for @dev
 * @parent: the pool of @cg's parent, %NULL if that is the root
 * @dev: the device
 *
 * Context: Process context, under &rdmacg_device.pools_lock; may sleep.
 * Return: the pool, or ERR_PTR(-ENOMEM).
 */
static struct rdmacg_pool *rdmacg_pool_add(struct rdma_cgroup *cg,
					   struct rdmacg_pool *parent,
					   struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool;
	int i;

	pool = kzalloc_obj(*pool, GFP_KERNEL_ACCOUNT);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	pool->parent = parent;
	pool->cg = cg;
	for (i = 0; i < RDMACG_NR_COUNTS; i++)
		atomic_set(&pool->res[i].max, RDMACG_MAX);

	if (rdmacg_table_store(cg, dev->id, pool)) {
		kfree(pool);
		return ERR_PTR(-ENOMEM);
	}
	list_add(&pool->dev_link, &dev->pools);
	return pool;
}

/**
 * rdmacg_pool_ensure() - find the pool of @cg for @dev, or create it
 * @cg: a non-root cgroup the caller keeps alive
 * @dev: the device
 *
 * Missing pools are created from the highest missing level down, so that
 * every pool has its parent. If an allocation fails, the pools created so
 * far stay; they are complete pools.
 *
 * Context: Process context, under &rdmacg_device.pools_lock; may sleep.
 * Return: the pool, which stays valid while the lock is held, or while
 * the caller keeps unregistration away (rdmacg_registry_mutex), or after a
 * new lookup under the RCU read lock; ERR_PTR(-ENODEV) once @dev is being
 * unregistered; ERR_PTR(-ENOMEM); %NULL for the root, which no caller
 * passes.
 */
static struct rdmacg_pool *rdmacg_pool_ensure(struct rdma_cgroup *cg,
					      struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool = NULL;	/* the root has none */
	struct rdma_cgroup *p, *missing;

	lockdep_assert_held(&dev->pools_lock);
	if (dev->state != RDMACG_DEV_ACCOUNTED)
		return ERR_PTR(-ENODEV);
	for (;;) {
		/* Find the highest level without a pool, and its parent's. */
		missing = NULL;
		for (p = cg; rdmacg_below_root(p); p = rdmacg_parent(p)) {
			pool = rdmacg_pool_lookup_locked(p, dev);
			if (pool)
				break;
			missing = p;
		}
		if (!missing)
			return pool;
		pool = rdmacg_pool_add(missing, pool, dev);
		if (IS_ERR(pool) || missing == cg)
			return pool;
	}
}

static void rdmacg_pool_free(struct rdmacg_pool *pool)
{
	kfree(pool->ext);
	kfree(pool);
}

static void rdmacg_pool_free_rcu(struct rcu_head *head)
{
	rdmacg_pool_free(container_of(head, struct rdmacg_pool, rcu));
}

/**
 * rdmacg_ext_ensure() - the ext of the pool of @cg for @dev
 * @cg: a non-root cgroup the caller keeps alive
 * @dev: the device
 *
 * Creates the pool if needed, and the ext of every pool up the parent
 * chain that has none, from the top down.
 *
 * Context: Process context, under &rdmacg_device.pools_lock; may sleep.
 * Return: the ext, which lives as long as its pool (see
 * rdmacg_pool_ensure()); ERR_PTR(-ENODEV) once @dev is being
 * unregistered; ERR_PTR(-ENOMEM).
 */
static struct rdmacg_pool_ext *rdmacg_ext_ensure(struct rdma_cgroup *cg,
						 struct rdmacg_device *dev)
{
	struct rdmacg_pool *leaf = rdmacg_pool_ensure(cg, dev);
	struct rdmacg_pool *pool, *missing;
	struct rdmacg_pool_ext *ext;

	if (IS_ERR(leaf))
		return ERR_CAST(leaf);
	while (!leaf->ext) {
		/* The highest pool without one; its parent has one. */
		missing = leaf;
		for (pool = leaf->parent; pool && !pool->ext; pool = pool->parent)
			missing = pool;
		ext = kzalloc_obj(*ext, GFP_KERNEL_ACCOUNT);
		if (!ext)
			return ERR_PTR(-ENOMEM);
		atomic64_set(&ext->mr_mem.max, RDMACG_MR_MEM_MAX);
		/* Charges and the files read it locklessly. */
		smp_store_release(&missing->ext, ext);
	}
	return leaf->ext;
}

/*
 * Levels up from the lowest new peak whose usage a charge remembers;
 * higher ones read their usage again (see rdmacg_charge_peaks()).
 */
#define RDMACG_PEAK_LEVELS	16

/**
 * rdmacg_charge_refused() - undo a charge a level refused
 * @leaf: the first level charged
 * @pool: the level that refused, which kept nothing
 * @type: resource
 * @amount: units of the charge
 * @limited: set to the cgroup of @pool
 *
 * The levels below @pool give their share back; no peak was raised.
 *
 * Context: Under the RCU read lock of the charge.
 * Return: -EAGAIN.
 */
static noinline __cold int
rdmacg_charge_refused(struct rdmacg_pool *leaf, struct rdmacg_pool *pool,
		      enum rdmacg_resource_type type, u64 amount,
		      struct rdma_cgroup **limited)
{
	*limited = pool->cg;
	for (; leaf != pool; leaf = leaf->parent)
		rdmacg_sub(leaf, type, amount);
	return -EAGAIN;
}

/**
 * rdmacg_charge_peaks() - finish a charge that reached a new peak
 * @leaf: the first level charged
 * @from: the lowest level whose usage, now @got, passed its peak; the
 *	levels below it are charged and passed none
 * @type: resource
 * @amount: units of the charge
 * @got: the usage of @from with the charge
 * @limited: set to the cgroup whose limit refused the charge
 *
 * Charges the levels above @from as rdmacg_charge() does, remembering the
 * usage each level's cmpxchg produced, and only once every level has
 * accepted raises the peaks of @from and the levels above, so that a
 * refused charge never shows in a peak. That usage counts every unit held
 * at the moment of the cmpxchg, so a peak never misses a usage that really
 * occurred; it can exceed it only by what concurrent charges held at that
 * moment and then gave back, at most one charge's amount per charge in
 * flight through the level. Above the first %RDMACG_PEAK_LEVELS levels from
 * @from the usage is read again, which misses what a concurrent uncharge
 * gave back meanwhile.
 *
 * Context: Under the RCU read lock of the charge.
 * Return: 0, or -EAGAIN if a limit refused the charge (@limited is set).
 */
static noinline __cold int
rdmacg_charge_peaks(struct rdmacg_pool *leaf, struct rdmacg_pool *from,
		    enum rdmacg_resource_type type, u64 amount, u64 got,
		    struct rdma_cgroup **limited)
{
	u64 usage[RDMACG_PEAK_LEVELS];
	struct rdmacg_pool *pool;
	int level = 0;

	usage[level++] = got;
	for (pool = from->parent; pool; pool = pool->parent) {
		got = rdmacg_try_add(pool, type, amount);
		if (!got)
			return rdmacg_charge_refused(leaf, pool, type, amount,
						     limited);
		rdmacg_race(RDMACG_RACE_LEVEL, pool);
		if (level < RDMACG_PEAK_LEVELS)
			usage[level++] = got;
	}
	rdmacg_race(RDMACG_RACE_CHARGED, leaf);
	for (pool = from, level = 0; pool; pool = pool->parent, level++)
		rdmacg_raise_peak(pool, type, level < RDMACG_PEAK_LEVELS ?
				  usage[level] : rdmacg_usage(pool, type));
	return 0;
}

/* Whether a charge of @type may walk up from @leaf, a pool or %NULL. */
static __always_inline bool rdmacg_leaf_ready(struct rdmacg_pool *leaf,
					      enum rdmacg_resource_type type)
{
	/* Pinned memory needs the ext, and then every ancestor has one. */
	if (type == RDMACG_RESOURCE_MR_MEM) {
		/* Pairs with the release in rdmacg_ext_ensure(). */
		return leaf && smp_load_acquire(&leaf->ext);
	}
	return leaf;
}

/**
 * rdmacg_charge_prepare() - what rdmacg_charge() does without a pool
 * @cg: the cgroup charged, kept alive by the caller
 * @dev: the device
 * @type: resource
 *
 * Creates the pools of @cg for @dev outside RCU: the caller looks up
 * again, since only a lookup under RCU keeps a pool valid.
 * For pinned memory, also the ext of each pool.
 *
 * Context: Process context, under rcu_read_lock(), which it drops to
 * sleep.
 * Return: 0 to look up again; 1 to charge nothing: @dev is not accounted
 * for, or @cg is the root; -ENODEV if @dev is not registered; -ENOMEM.
 */
static noinline __cold int
rdmacg_charge_prepare(struct rdma_cgroup *cg, struct rdmacg_device *dev,
		      enum rdmacg_resource_type type)
{
	int ret;

	switch (rdmacg_device_state(dev)) {
	case RDMACG_DEV_ACCOUNTED:
		break;
	case RDMACG_DEV_UNACCOUNTED:
		return 1;
	default:
		return -ENODEV;
	}
	if (!rdmacg_below_root(cg))
		return 1;

	rcu_read_unlock();
	mutex_lock(&dev->pools_lock);
	ret = PTR_ERR_OR_ZERO(rdmacg_pool_ensure(cg, dev));
	if (!ret && type == RDMACG_RESOURCE_MR_MEM)
		ret = PTR_ERR_OR_ZERO(rdmacg_ext_ensure(cg, dev));
	mutex_unlock(&dev->pools_lock);
	rcu_read_lock();
	return ret;
}

/**
 * rdmacg_charge() - charge @amount to @cg and each of its ancestors
 * @cg: the cgroup that owns the resource, kept alive by the caller
 * @dev: the device
 * @type: resource, a constant where this is inlined
 * @amount: units to charge, not 0; 1 for a count
 * @limited: set to the cgroup whose limit refused the charge
 *
 * The amount is added from @cg upwards in one walk; when a level refuses,
 * the levels below it give their share back, so on failure no level keeps
 * anything and no peak moved. Until then the amount shows in the usage of
 * those levels, and a child can for that moment read above its parent. A
 * concurrent charge that meets such a passing amount at its limit is
 * refused there, although the limit that really is exhausted may be an
 * ancestor's, or none once the amount is given back (the pids controller
 * behaves alike): the refusal is then counted at the lower level. Without
 * concurrent charges on the same levels, a refusal is always counted at
 * the lowest level whose limit it would pass. Telling passing amounts
 * apart would cost one more atomic operation per level on every charge.
 *
 * A level whose new usage stays within its peak costs the cmpxchg and a
 * load of the peak; the first that passes it hands the rest of the charge
 * to rdmacg_charge_peaks().
 *
 * Context: Process context; may sleep to create missing pools.
 * Return: 0, -EAGAIN if a limit refused the charge (@limited is set),
 * -ENOMEM, or -ENODEV if @dev is not registered.
 */
static __always_inline int rdmacg_charge(struct rdma_cgroup *cg,
					 struct rdmacg_device *dev,
					 enum rdmacg_resource_type type,
					 u64 amount,
					 struct rdma_cgroup **limited)
{
	struct rdmacg_pool *leaf, *pool;
	int ret = 0;
	u64 got;

	rcu_read_lock();
	for (;;) {
		if (likely(rdmacg_device_alive(dev))) {
			leaf = rdmacg_pool_lookup(cg, dev);
			if (likely(rdmacg_leaf_ready(leaf, type)))
				break;
		}
		ret = rdmacg_charge_prepare(cg, dev, type);
		if (ret) {
			ret = min(ret, 0);
			goto out;
		}
	}

	for (pool = leaf; pool; pool = pool->parent) {
		got = rdmacg_try_add(pool, type, amount);
		if (unlikely(!got)) {
			ret = rdmacg_charge_refused(leaf, pool, type, amount,
						    limited);
			goto out;
		}
		rdmacg_race(RDMACG_RACE_LEVEL, pool);
		if (unlikely(got > rdmacg_peak(pool, type))) {
			ret = rdmacg_charge_peaks(leaf, pool, type, amount, got,
						  limited);
			goto out;
		}
	}
	rdmacg_race(RDMACG_RACE_CHARGED, leaf);
out:
	rcu_read_unlock();
	return ret;
}

/**
 * rdmacg_events_add() - count events of one resource at one level
 * @ext: the level's ext
 * @type: resource
 * @mask: the events, as bits of &enum rdmacg_event
 *
 * Failures are counted before limit hits, and a reader loads the hits with
 * acquire before the failures, so that it never sees more hits than
 * failures in rdma.events.
 *
 * Context: Any context.
 */
static void rdmacg_events_add(struct rdmacg_pool_ext *ext,
			      enum rdmacg_resource_type type,
			      unsigned long mask)
{
	atomic64_t *count = ext->events[type];
	unsigned int ev;

	for_each_set_bit(ev, &mask, RDMACG_NR_EVENTS) {
		if (ev == RDMACG_EV_MAX || ev == RDMACG_EV_MAX_LOCAL)
			smp_mb__before_atomic();	/* failures first */
		atomic64_inc(&count[ev]);
	}
}

/**
 * rdmacg_count_refusal() - count a charge refused by a limit
 * @cg: the cgroup that asked for the charge
 * @limited: the cgroup whose limit refused it, @cg or an ancestor
 * @dev: the device
 * @type: resource
 *
 * Counts the failure at @cg and its ancestors, the limit hit at @limited and
 * its ancestors, and wakes the readers of the files that changed. Levels
 * whose ext exists are counted under RCU. The first event of a level
 * takes the device's pools_lock to allocate its ext (every level already
 * has a pool: the refused charge found its cgroup's, and pools are created
 * with their ancestors). If memory runs out the event is not counted at
 * that level; once @dev is being unregistered nothing more is counted.
 *
 * Context: Process context; may sleep.
 */
static noinline __cold void rdmacg_count_refusal(struct rdma_cgroup *cg,
						 struct rdma_cgroup *limited,
						 struct rdmacg_device *dev,
						 enum rdmacg_resource_type type)
{
	unsigned long mask, hit = 0;
	struct rdmacg_pool_ext *ext;
	struct rdmacg_pool *pool;
	struct rdma_cgroup *p;
	bool alive;

	for (p = cg; rdmacg_below_root(p); p = rdmacg_parent(p)) {
		mask = BIT(RDMACG_EV_FAIL);
		if (p == cg)
			mask |= BIT(RDMACG_EV_FAIL_LOCAL);
		if (p == limited)
			hit = BIT(RDMACG_EV_MAX);	/* here and above */
		mask |= hit;
		if (p == limited)
			mask |= BIT(RDMACG_EV_MAX_LOCAL);

		rcu_read_lock();
		/* A dead device's id may belong to another device by now. */
		alive = rdmacg_device_alive(dev);
		pool = alive ? rdmacg_pool_lookup(p, dev) : NULL;
		/* Pairs with the release in rdmacg_ext_ensure(). */
		ext = pool ? smp_load_acquire(&pool->ext) : NULL;
		if (ext)
			rdmacg_events_add(ext, type, mask);
		rcu_read_unlock();
		if (!alive)
			return;

		if (!ext) {
			mutex_lock(&dev->pools_lock);
			ext = rdmacg_ext_ensure(p, dev);
			if (IS_ERR(ext))
				ext = NULL;
			else
				rdmacg_events_add(ext, type, mask);
			mutex_unlock(&dev->pools_lock);
		}
		if (!ext)
			continue;

		cgroup_file_notify(&p->events_file);
		if (p == cg || p == limited)
			cgroup_file_notify(&p->events_local_file);
	}
}

/**
 * rdmacg_charge_counted() - charge, and count a refusal by a limit
 * @cg: the cgroup that owns the resource, kept alive by the caller
 * @dev: the device
 * @type: resource
 * @amount: units to charge, not 0
 *
 * Context: Process context; may sleep.
 * Return: as rdmacg_charge().
 */
static __always_inline int
rdmacg_charge_counted(struct rdma_cgroup *cg, struct rdmacg_device *dev,
		      enum rdmacg_resource_type type, u64 amount)
{
	struct rdma_cgroup *limited = NULL;
	int ret = rdmacg_charge(cg, dev, type, amount, &limited);

	if (unlikely(ret) && limited)
		rdmacg_count_refusal(cg, limited, dev, type);
	return ret;
}

/**
 * rdmacg_uncharge_amount() - give @amount back at @cg and its ancestors
 * @cg: the cgroup charged
 * @dev: the device of the charge
 * @type: the resource of the charge, a constant where this is inlined
 * @amount: units charged
 *
 * Once @dev has been unregistered its charges are gone, and nothing is
 * done.
 *
 * Context: Any context.
 */
static __always_inline void
rdmacg_uncharge_amount(struct rdma_cgroup *cg, struct rdmacg_device *dev,
		       enum rdmacg_resource_type type, u64 amount)
{
	struct rdmacg_pool *pool;

	rcu_read_lock();
	if (likely(rdmacg_device_alive(dev))) {
		pool = rdmacg_pool_lookup(cg, dev);
		rdmacg_race(RDMACG_RACE_UNCHARGE, pool);
		/* A charge of pinned memory left an ext at every level. */
		if (pool && WARN_ON_ONCE(!rdmacg_leaf_ready(pool, type)))
			pool = NULL;
		for (; pool; pool = pool->parent)
			rdmacg_sub(pool, type, amount);
	}
	rcu_read_unlock();
}

/**
 * rdmacg_try_charge() - charge a resource to the current task's cgroup
 * @rdmacg: where to store the charged cgroup, for rdmacg_uncharge()
 * @dev: a registered device
 * @type: the resource
 *
 * The charge is made at the task's cgroup and every ancestor below the root,
 * or not at all. On success the charge holds a reference on the cgroup's
 * css until rdmacg_uncharge() is called with it: that keeps the cgroup, and
 * through cgroup core its ancestors, allocated, so their pools are not
 * freed under a charged resource except by unregistration, after which
 * uncharges of the device only drop the reference. A device the controller
 * could not account for (see rdmacg_register_device()) is not limited: the
 * charge succeeds and counts nothing.
 *
 * Context: Process context; may sleep the first time a cgroup charges
 * @dev.
 * Return: 0 on success; -EAGAIN if the cgroup or an ancestor would exceed
 * its limit; -ENOMEM; -ENODEV if @dev is not registered; -EINVAL for a
 * @type that is not a count.
 * %RDMACG_RESOURCE_MR_MEM is charged with rdmacg_try_charge_mr_mem().
 */
int rdmacg_try_charge(struct rdma_cgroup **rdmacg,
		      struct rdmacg_device *dev,
		      enum rdmacg_resource_type type)
{
	struct rdma_cgroup *cg;
	int ret;

	if (type >= RDMACG_NR_COUNTS)
		return -EINVAL;

	cg = rdmacg_of(task_get_css(current, rdma_cgrp_id));
	ret = rdmacg_charge_counted(cg, dev, type, 1);
	if (unlikely(ret)) {
		css_put(&cg->css);
		return ret;
	}
	*rdmacg = cg;
	return 0;
}
EXPORT_SYMBOL(rdmacg_try_charge);

/**
 * rdmacg_uncharge() - return a resource charged by rdmacg_try_charge()
 * @cg: the cgroup rdmacg_try_charge() stored
 * @dev: the device of the charge
 * @type: the resource of the charge
 *
 * Drops the reference the charge took on @cg. Once @dev has been
 * unregistered its charges are gone, and only the reference is dropped.
 *
 * Context: Any context.
 */
void rdmacg_uncharge(struct rdma_cgroup *cg, struct rdmacg_device *dev,
		     enum rdmacg_resource_type type)
{
	if (!WARN_ON_ONCE(type >= RDMACG_NR_COUNTS))
		rdmacg_uncharge_amount(cg, dev, type, 1);
	css_put(&cg->css);
}
EXPORT_SYMBOL(rdmacg_uncharge);

/**
 * rdmacg_try_charge_obj() - charge an object of a context to the current
 *	task's cgroup
 * @rdmacg: where to store the charged cgroup, for rdmacg_uncharge_obj()
 * @ctx_cg: the cgroup rdmacg_try_charge() stored for the object's context
 * @dev: a registered device
 *
 * Charges one %RDMACG_RESOURCE_HCA_OBJECT as rdmacg_try_charge() does, but
 * takes no reference when the task is still in @ctx_cg: the context's
 * charge keeps that cgroup, its ancestors and their pools alive for as long
 * as the caller guarantees the object to be uncharged before the context
 * (ib_core destroys every object of a context before the context). A task
 * that moved to another cgroup after creating the context charges that
 * cgroup, with a reference of its own, since the context's keeps only
 * @ctx_cg alive.
 *
 * Context: Process context; may sleep the first time a cgroup charges
 * @dev.
 * Return: as rdmacg_try_charge().
 */
int rdmacg_try_charge_obj(struct rdma_cgroup **rdmacg,
			  struct rdma_cgroup *ctx_cg,
			  struct rdmacg_device *dev)
{
	struct cgroup_subsys_state *css;
	int ret;

	/* Only compared: the task may move at any time, as for any charge. */
	rcu_read_lock();
	css = task_css(current, rdma_cgrp_id);
	rcu_read_unlock();
	if (unlikely(css != &ctx_cg->css)) {
		ret = rdmacg_try_charge(rdmacg, dev, RDMACG_RESOURCE_HCA_OBJECT);
		/* Moved back meanwhile: the context's reference will do. */
		if (!ret && *rdmacg == ctx_cg)
			css_put(&ctx_cg->css);
		return ret;
	}
	ret = rdmacg_charge_counted(ctx_cg, dev, RDMACG_RESOURCE_HCA_OBJECT, 1);
	if (likely(!ret))
		*rdmacg = ctx_cg;
	return ret;
}
EXPORT_SYMBOL(rdmacg_try_charge_obj);

/**
 * rdmacg_uncharge_obj() - return an object charged by rdmacg_try_charge_obj()
 * @cg: the cgroup rdmacg_try_charge_obj() stored
 * @ctx_cg: the cgroup of the object's context, still charged for it
 * @dev: the device of the charge
 *
 * Drops the reference the charge took, if it took one (@cg is not
 * @ctx_cg).
 *
 * Context: Any context.
 */
void rdmacg_uncharge_obj(struct rdma_cgroup *cg, struct rdma_cgroup *ctx_cg,
			 struct rdmacg_device *dev)
{
	rdmacg_uncharge_amount(cg, dev, RDMACG_RESOURCE_HCA_OBJECT, 1);
	if (cg != ctx_cg)
		css_put(&cg->css);
}
EXPORT_SYMBOL(rdmacg_uncharge_obj);

/**
 * rdmacg_try_charge_mr_mem() - charge pinned memory to the current task's
 *	cgroup
 * @rdmacg: where to store the charged cgroup, for rdmacg_uncharge_mr_mem()
 * @dev: a registered device
 * @bytes: the bytes about to be pinned for @dev
 *
 * Charges the task's cgroup and every ancestor below the root, or none,
 * and takes a reference on the cgroup's css, as rdmacg_try_charge() does:
 * the pinned memory may outlive the verbs object it was pinned for, and
 * the task may move to another cgroup meanwhile. @bytes of 0 charges
 * nothing but still takes the reference.
 *
 * Context: Process context; may sleep the first time the cgroup charges
 * @dev, and to count a refusal.
 * Return: 0 on success; -EAGAIN if the cgroup or an ancestor would exceed
 * its rdma.mr_mem.max (the refusal is counted in rdma.events); -ENOMEM;
 * -ENODEV if @dev is not registered (not checked for @bytes of 0).
 */
int rdmacg_try_charge_mr_mem(struct rdma_cgroup **rdmacg,
			     struct rdmacg_device *dev, u64 bytes)
{
	struct rdma_cgroup *cg;
	int ret = 0;

	cg = rdmacg_of(task_get_css(current, rdma_cgrp_id));
	if (bytes)
		ret = rdmacg_charge_counted(cg, dev, RDMACG_RESOURCE_MR_MEM,
					    bytes);
	if (unlikely(ret)) {
		css_put(&cg->css);
		return ret;
	}
	*rdmacg = cg;
	return 0;
}
EXPORT_SYMBOL(rdmacg_try_charge_mr_mem);

/**
 * rdmacg_uncharge_mr_mem() - return memory charged by
 *	rdmacg_try_charge_mr_mem()
 * @cg: the cgroup rdmacg_try_charge_mr_mem() stored
 * @dev: the device of the charge
 * @bytes: the bytes charged, all of them
 *
 * Drops the reference the charge took on @cg. Once @dev has been
 * unregistered its charges are gone, and only the reference is dropped.
 * Takes no lock and notifies nothing, so memory may be unpinned from any
 * context, softirq included.
 *
 * Context: Any context.
 */
void rdmacg_uncharge_mr_mem(struct rdma_cgroup *cg,
			    struct rdmacg_device *dev, u64 bytes)
{
	if (bytes)
		rdmacg_uncharge_amount(cg, dev, RDMACG_RESOURCE_MR_MEM, bytes);
	css_put(&cg->css);
}
EXPORT_SYMBOL(rdmacg_uncharge_mr_mem);

/*
 * Resettable peaks.
 *
 * The peak of each pool and resource is the highest usage since the last
 * reset of that cgroup's peaks through any file, or since the pool was
 * created: the charge path only ever raises it. A reset through an open
 * file restarts it from the current usage, and first folds what it held
 * into the saved peaks of every reader that may need it: the cgroup's
 * base, for files never written (the peak since creation), and every
 * other file written before. A file then reads the higher of its saved
 * peak and the current one, which is its peak since its own reset: the
 * saved part covers the time up to the last reset, the current part the
 * time after it. Charges pay nothing for this; after a reset they raise
 * the restarted peak until usage passes it again. One charge in flight
 * during the reset, between its cmpxchg and its raise of the peak, may
 * still raise the restarted peak to the usage it reached before the reset,
 * as a charge may with memory.peak. Leaving that usage out would make the
 * peaks of every other reader miss a usage that really occurred: a peak
 * errs high, by what charges in flight held, never low.
 */

/**
 * struct rdmacg_peak_mark - the peaks saved for a reader on one device
 * @pool: the cgroup's pool on the device, %NULL once unregistered
 * @peak: indexed by &enum rdmacg_resource_type
 */
struct rdmacg_peak_mark {
	struct rdmacg_pool	*pool;
	u64			peak[RDMACG_RESOURCE_MAX];
};

/**
 * struct rdmacg_peaks - the saved peaks of a reader of one cgroup
 * @node: in &rdma_cgroup.peak_files when the reader is an open file
 * @nr: number of entries in @mark
 * @mark: one for each pool of the cgroup seen at a reset; a pool has none
 *	if nothing was saved for it, which reads as zero
 *
 * Everything under rdmacg_registry_mutex.
 */
struct rdmacg_peaks {
	struct list_head	node;
	unsigned int		nr;
	struct rdmacg_peak_mark	*mark;
};

/* The entry of @pool in @peaks, or %NULL. */
static struct rdmacg_peak_mark *rdmacg_peaks_find(struct rdmacg_peaks *peaks,
						  struct rdmacg_pool *pool)
{
	unsigned int i;

	for (i = 0; peaks && i < peaks->nr; i++)
		if (peaks->mark[i].pool == pool)
			return &peaks->mark[i];
	return NULL;
}

/*
 * Give @pool an entry in @peaks: the one it has, a free one, or a new one.
 * An entry claimed here saves nothing yet, which reads as no entry does.
 * Return: 0 or -ENOMEM.
 */
static int rdmacg_peaks_reserve(struct rdmacg_peaks *peaks,
				struct rdmacg_pool *pool)
{
	struct rdmacg_peak_mark *mark;

	if (rdmacg_peaks_find(peaks, pool))
		return 0;
	mark = rdmacg_peaks_find(peaks, NULL);
	if (!mark) {
		mark = krealloc_array(peaks->mark, peaks->nr + 1, sizeof(*mark),
				      GFP_KERNEL_ACCOUNT);
		if (!mark)
			return -ENOMEM;
		peaks->mark = mark;
		mark += peaks->nr++;
	}
	*mark = (struct rdmacg_peak_mark){ .pool = pool };
	return 0;
}

/*
 * Save in @peaks a peak @old of @type of @pool that a reset ends; the
 * entry was reserved by the same reset.
 */
static void rdmacg_peaks_fold(struct rdmacg_peaks *peaks,
			      struct rdmacg_pool *pool,
			      enum rdmacg_resource_type type, u64 old)
{
	struct rdmacg_peak_mark *mark = rdmacg_peaks_find(peaks, pool);

	if (!WARN_ON_ONCE(!mark))
		mark->peak[type] = max(mark->peak[type], old);
}

static void rdmacg_peaks_free(struct rdmacg_peaks *peaks)
{
	if (peaks)
		kfree(peaks->mark);
	kfree(peaks);
}

/*
 * Forget what is saved for @pool, which unregistration frees: a pool made
 * later at the same address must not inherit it.
 */
static void rdmacg_peaks_drop_pool(struct rdmacg_pool *pool)
{
	struct rdma_cgroup *cg = pool->cg;
	struct rdmacg_peak_mark *mark;
	struct rdmacg_peaks *peaks;

	lockdep_assert_held(&rdmacg_registry_mutex);
	mark = rdmacg_peaks_find(cg->peak_base, pool);
	if (mark)
		mark->pool = NULL;
	list_for_each_entry(peaks, &cg->peak_files, node) {
		mark = rdmacg_peaks_find(peaks, pool);
		if (mark)
			mark->pool = NULL;
	}
}

/*
 * Ids index the pool tables.
 * A function of its own so that the KUnit tests can make it fail.
 */
static int rdmacg_id_alloc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(rdmacg_id_alloc);
	return ida_alloc(&rdmacg_ids, GFP_KERNEL);
}

/**
 * rdmacg_register_device() - start accounting for a device
 * @dev: the device whose @name is set
 *
 * The device appears in every cgroup's interface files, with no limits.
 * If no id can be allocated, a warning is printed and the device is not
 * accounted for: it appears in no file, and charges on it succeed without
 * being counted, so that its users are not refused for the controller's
 * lack of memory. A device unregistered before may be registered again
 * once all charges made on it were uncharged. The caller serialises
 * registration and unregistration of one device.
 *
 * Context: Process context; may sleep.
 */
void rdmacg_register_device(struct rdmacg_device *dev)
{
	int id;

	INIT_LIST_HEAD(&dev->dev_node);
	INIT_LIST_HEAD(&dev->pools);
	mutex_init(&dev->pools_lock);
	WRITE_ONCE(dev->state, RDMACG_DEV_UNREGISTERED);

	id = rdmacg_id_alloc();
	if (id < 0) {
		pr_warn("rdmacg: no memory to account for device %s; it is not limited\n",
			dev->name);
		WRITE_ONCE(dev->state, RDMACG_DEV_UNACCOUNTED);
		return;
	}
	/* Listed before any pool can be made, so that css_free finds them. */
	mutex_lock(&rdmacg_registry_mutex);
	dev->id = id;
	list_add_tail(&dev->dev_node, &rdmacg_registry);
	/* Lockless readers that see the device accounted see its id too. */
	smp_store_release(&dev->state, RDMACG_DEV_ACCOUNTED);
	mutex_unlock(&rdmacg_registry_mutex);
}
EXPORT_SYMBOL(rdmacg_register_device);

/* Context: Under rdmacg_registry_mutex, which limit writes hold. */
static bool rdmacg_pool_limited(struct rdmacg_pool *pool)
{
	struct rdmacg_pool_ext *ext;
	int i;

	for (i = 0; i < RDMACG_NR_COUNTS; i++)
		if (atomic_read(&pool->res[i].max) != RDMACG_MAX)
			return true;
	/* Pairs with the release in rdmacg_ext_ensure(). */
	ext = smp_load_acquire(&pool->ext);
	return ext && atomic64_read(&ext->mr_mem.max) != RDMACG_MR_MEM_MAX;
}

/*
 * Say in the kernel log that @dev takes limits with it: nothing restores
 * them if the device registers again (a driver reload, a reset), and
 * whoever set them has to set them again.
 *
 * Context: Under rdmacg_registry_mutex; @pools are @dev's, off its list.
 */
static void rdmacg_report_lost_limits(struct rdmacg_device *dev,
				      struct list_head *pools)
{
	struct rdmacg_pool *pool, *first = NULL;
	unsigned int nr = 0;
	char path[128];

	list_for_each_entry(pool, pools, dev_link) {
		if (rdmacg_pool_limited(pool) && !nr++)
			first = pool;
	}
	if (!nr)
		return;
	cgroup_path(first->cg->css.cgroup, path, sizeof(path));
	pr_warn("rdmacg: device %s unregistered, limits lost in %u cgroup%s (%s%s)\n",
		dev->name, nr, nr == 1 ? "" : "s", path, nr == 1 ? "" : ", ...");
}

/**
 * rdmacg_unregister_device() - stop accounting for a device
 * @dev: a device passed to rdmacg_register_device()
 *
 * Frees every cgroup's pool for @dev, limits and counters included. The
 * caller should have released all charges first; a charge still
 * outstanding is forgotten and its later uncharge only drops the cgroup
 * reference, if it holds one. It waits for one RCU grace period, for the
 * lockless charges and uncharges that saw @dev alive. No charge on @dev
 * may start once this returns (the RDMA core closes every uverbs file of a
 * device first); an uncharge of an earlier charge may still come, until
 * the struct is freed or registered again (see rdmacg_register_device()).
 *
 * Context: Process context; may sleep.
 */
void rdmacg_unregister_device(struct rdmacg_device *dev)
{
	struct rdmacg_pool *pool, *next;
	LIST_HEAD(pools);

	mutex_lock(&rdmacg_registry_mutex);
	if (list_empty(&dev->dev_node)) {
		/* Never accounted for: no pool, no id. */
		WRITE_ONCE(dev->state, RDMACG_DEV_UNREGISTERED);
		mutex_unlock(&rdmacg_registry_mutex);
		return;
	}
	list_del_init(&dev->dev_node);

	mutex_lock(&dev->pools_lock);
	WRITE_ONCE(dev->state, RDMACG_DEV_UNREGISTERED);
	list_splice_init(&dev->pools, &pools);
	mutex_unlock(&dev->pools_lock);

	rdmacg_report_lost_limits(dev, &pools);
	list_for_each_entry(pool, &pools, dev_link)
		rdmacg_table_clear(pool->cg, dev->id);
	list_for_each_entry(pool, &pools, dev_link)
		rdmacg_peaks_drop_pool(pool);
	mutex_unlock(&rdmacg_registry_mutex);

	/*
	 * Charges, uncharges and refusal counts that saw @dev alive hold
	 * pools of it, or will look its id up, until their read-side
	 * critical sections end. Only then are the pools freed and the id
	 * given to another device.
	 */
	rdmacg_race(RDMACG_RACE_UNREGISTER, dev);
	synchronize_rcu();
	list_for_each_entry_safe(pool, next, &pools, dev_link)
		rdmacg_pool_free(pool);
	ida_free(&rdmacg_ids, dev->id);
}
EXPORT_SYMBOL(rdmacg_unregister_device);

/**
 * rdmacg_device_find() - the registered device a line of a write names
 * @name: the device name, not NUL-terminated
 * @len: its length
 * @has_index: whether the line gave "index=N" as well
 * @index: N
 *
 * Context: Under rdmacg_registry_mutex.
 * Return: the device; ERR_PTR(-ENODEV) if none matches; ERR_PTR(-ENOTUNIQ)
 * if several devices have the name and the line gave no index.
 */
static struct rdmacg_device *rdmacg_device_find(const char *name, size_t len,
						bool has_index, u32 index)
{
	struct rdmacg_device *dev, *found = NULL;

	lockdep_assert_held(&rdmacg_registry_mutex);
	list_for_each_entry(dev, &rdmacg_registry, dev_node) {
		if (strlen(dev->name) != len || memcmp(dev->name, name, len))
			continue;
		if (has_index) {
			if (dev->index == index)
				return dev;
			continue;
		}
		if (found)
			return ERR_PTR(-ENOTUNIQ);
		found = dev;
	}
	return found ?: ERR_PTR(-ENODEV);
}

/*
 * Print the key of @dev's line in every file: its name, followed by
 * " index=N" when another registered device has the same name.
 */
static void rdmacg_print_key(struct seq_file *seq, struct rdmacg_device *dev)
{
	struct rdmacg_device *other;

	lockdep_assert_held(&rdmacg_registry_mutex);
	seq_puts(seq, dev->name);
	list_for_each_entry(other, &rdmacg_registry, dev_node) {
		if (other != dev && !strcmp(other->name, dev->name)) {
			seq_printf(seq, " index=%u", dev->index);
			return;
		}
	}
}

/**
 * rdmacg_pool_to_limit() - the pool of @cg for a device named in a write
 * @cg: a non-root cgroup the caller keeps alive
 * @dev: the device, found by rdmacg_device_find()
 * @ext: whether the pool needs its ext (to limit pinned memory)
 *
 * Context: Process context, under rdmacg_registry_mutex, which keeps the
 * pool valid; may sleep.
 * Return: the pool, created if needed; ERR_PTR(-ENOMEM).
 */
static struct rdmacg_pool *rdmacg_pool_to_limit(struct rdma_cgroup *cg,
						struct rdmacg_device *dev,
						bool ext)
{
	struct rdmacg_pool_ext *pool_ext;
	struct rdmacg_pool *pool;

	lockdep_assert_held(&rdmacg_registry_mutex);
	mutex_lock(&dev->pools_lock);
	pool = rdmacg_pool_ensure(cg, dev);
	if (ext && !IS_ERR(pool)) {
		pool_ext = rdmacg_ext_ensure(cg, dev);
		if (IS_ERR(pool_ext))
			pool = ERR_CAST(pool_ext);
	}
	mutex_unlock(&dev->pools_lock);
	return pool;
}

/*
 * Set a limit of a pool found by rdmacg_pool_to_limit(). Charges that read
 * the old limit check it again after their cmpxchg (see
 * rdmacg_count_try_add()); the barrier orders the store before the
 * writer's later reads of the usage.
 */
static void rdmacg_set_limit(struct rdmacg_pool *pool,
			     enum rdmacg_resource_type type, u64 max)
{
	if (type < RDMACG_NR_COUNTS)
		atomic_set(&pool->res[type].max, max);
	if (type == RDMACG_RESOURCE_MR_MEM)
		atomic64_set(&pool->ext->mr_mem.max, max);
	smp_mb();	/* pairs with the cmpxchg of rdmacg_*_try_add() */
}

/**
 * struct rdmacg_limit_line - one line of a write of limits
 * @max: the line parsed, for rdma.max
 * @bytes: the line parsed, for rdma.mr_mem.max
 * @device: the device it names, found once every line parsed
 * @pool: the pool to set, found with the device
 */
struct rdmacg_limit_line {
	union {
		struct rdmacg_max_req	max;
		struct rdmacg_bytes_req	bytes;
	};
	struct rdmacg_device	*device;
	struct rdmacg_pool	*pool;
};

/* Both requests start with the device name: see rdmacg_limit_find(). */
static_assert(offsetof(struct rdmacg_max_req, dev) ==
	      offsetof(struct rdmacg_bytes_req, dev) &&
	      offsetof(struct rdmacg_max_req, dev_len) ==
	      offsetof(struct rdmacg_bytes_req, dev_len) &&
	      offsetof(struct rdmacg_max_req, has_index) ==
	      offsetof(struct rdmacg_bytes_req, has_index) &&
	      offsetof(struct rdmacg_max_req, index) ==
	      offsetof(struct rdmacg_bytes_req, index));

/**
 * rdmacg_limit_find() - find the device and the pool of a parsed line
 * @cg: a non-root cgroup the caller keeps alive
 * @lines: the lines of the write
 * @i: the line
 * @bytes: whether it is rdma.mr_mem.max
 *
 * Context: Process context, under rdmacg_registry_mutex; may sleep.
 * Return: 0; -ENODEV or -ENOTUNIQ (see rdmacg_device_find()); -EINVAL if
 * an earlier line named the same device; -ENOMEM.
 */
static int rdmacg_limit_find(struct rdma_cgroup *cg,
			     struct rdmacg_limit_line *lines, int i, bool bytes)
{
	struct rdmacg_limit_line *l = &lines[i];
	int j;

	l->device = rdmacg_device_find(l->max.dev, l->max.dev_len,
				       l->max.has_index, l->max.index);
	if (IS_ERR(l->device))
		return PTR_ERR(l->device);
	for (j = 0; j < i; j++)
		if (lines[j].device == l->device)
			return -EINVAL;
	/* A line that sets nothing needs the device, not a pool. */
	if (!bytes && !l->max.mask)
		return 0;
	l->pool = rdmacg_pool_to_limit(cg, l->device, bytes);
	return PTR_ERR_OR_ZERO(l->pool);
}

/*
 * Lines of a write parsed into an array on the stack; more take an
 * allocation, so that rewriting the limits of a few devices whose pools
 * exist needs no memory.
 */
#define RDMACG_LINES_ON_STACK	4

/* Parse the next line of @cur into @l: see rdmacg_next_max(). */
static int rdmacg_next_limit(struct rdmacg_cursor *cur, bool bytes,
			     struct rdmacg_limit_line *l)
{
	l->device = NULL;
	l->pool = NULL;
	return bytes ? rdmacg_next_bytes(cur, &l->bytes) :
		       rdmacg_next_max(cur, &l->max);
}

/**
 * rdmacg_parse_limits() - parse a write of limits
 * @buf: the text written
 * @len: its length
 * @bytes: whether it is rdma.mr_mem.max
 * @stack: room for %RDMACG_LINES_ON_STACK lines
 * @nr: set to the number of lines
 *
 * Each device named, with its limits, is a line (see rdma_parse.h).
 *
 * Context: Process context; may sleep.
 * Return: the lines, @stack or memory to be freed with kfree();
 * ERR_PTR(-EINVAL) if one is malformed; ERR_PTR(-ENOMEM).
 */
static struct rdmacg_limit_line *
rdmacg_parse_limits(const char *buf, size_t len, bool bytes,
		    struct rdmacg_limit_line *stack, int *nr)
{
	struct rdmacg_limit_line *lines = stack, scratch;
	struct rdmacg_cursor cur;
	int n = 0, i, ret;

	rdmacg_cursor_init(&cur, buf, len);
	while ((ret = rdmacg_next_limit(&cur, bytes, &scratch)) > 0)
		n++;
	if (ret)
		return ERR_PTR(ret);
	if (n > RDMACG_LINES_ON_STACK) {
		lines = kcalloc(n, sizeof(*lines), GFP_KERNEL);
		if (!lines)
			return ERR_PTR(-ENOMEM);
	}
	rdmacg_cursor_init(&cur, buf, len);
	for (i = 0; i < n; i++)
		rdmacg_next_limit(&cur, bytes, &lines[i]);
	*nr = n;
	return lines;
}

/*
 * The limit of pinned memory that a write of @bytes sets: memory is pinned,
 * and charged, in whole pages, so the limit is rounded down to one, as
 * memory.max does, and the file shows what is enforced.
 */
static u64 rdmacg_mr_mem_limit(u64 bytes)
{
	return bytes == RDMACG_MR_MEM_MAX ? bytes : round_down(bytes, PAGE_SIZE);
}

/**
 * rdmacg_set_limits() - apply a write of limits
 * @cg: a non-root cgroup the caller keeps alive
 * @buf: the text written: one line per device
 * @len: its length
 * @bytes: whether it is rdma.mr_mem.max
 *
 * Every line is parsed, and every device named found with its pool,
 * before any limit is set: either every limit named in @buf is set, or
 * none. Pools made for the write stay if it fails; they hold no limit.
 *
 * Context: Process context; may sleep. Takes rdmacg_registry_mutex.
 * Return: 0; -EINVAL for malformed text; -ENODEV if a device is not
 * registered; -ENOTUNIQ if a name without an index matches several;
 * -ENOMEM.
 * A device named twice is -EINVAL too.
 */
static int rdmacg_set_limits(struct rdma_cgroup *cg, const char *buf,
			     size_t len, bool bytes)
{
	struct rdmacg_limit_line stack[RDMACG_LINES_ON_STACK], *lines, *l;
	int nr = 0, i, r, ret = 0;

	lines = rdmacg_parse_limits(buf, len, bytes, stack, &nr);
	if (IS_ERR(lines))
		return PTR_ERR(lines);

	mutex_lock(&rdmacg_registry_mutex);
	for (i = 0; !ret && i < nr; i++)
		ret = rdmacg_limit_find(cg, lines, i, bytes);
	for (i = 0; !ret && i < nr; i++) {
		l = &lines[i];
		if (bytes) {
			rdmacg_set_limit(l->pool, RDMACG_RESOURCE_MR_MEM,
					 rdmacg_mr_mem_limit(l->bytes.value));
			continue;
		}
		if (!l->max.mask)
			continue;
		for (r = 0; r < RDMACG_NR_COUNTS; r++)
			if (l->max.mask & BIT(r))
				rdmacg_set_limit(l->pool, r, l->max.value[r]);
	}
	mutex_unlock(&rdmacg_registry_mutex);
	if (lines != stack)
		kfree(lines);
	return ret;
}

/* Apply an rdma.max write; see rdmacg_set_limits(). */
static int rdmacg_set_max(struct rdma_cgroup *cg, const char *buf, size_t len)
{
	return rdmacg_set_limits(cg, buf, len, false);
}

/* Apply an rdma.mr_mem.max write; see rdmacg_set_limits(). */
static int rdmacg_set_mr_mem_max(struct rdma_cgroup *cg, const char *buf,
				 size_t len)
{
	return rdmacg_set_limits(cg, buf, len, true);
}

static ssize_t rdmacg_max_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	int ret = rdmacg_set_max(rdmacg_of(of_css(of)), buf, nbytes);

	return ret ?: nbytes;
}

static ssize_t rdmacg_mr_mem_max_write(struct kernfs_open_file *of,
				       char *buf, size_t nbytes, loff_t off)
{
	int ret = rdmacg_set_mr_mem_max(rdmacg_of(of_css(of)), buf, nbytes);

	return ret ?: nbytes;
}

/*
 * A value of resource @type of @pool, which the caller keeps valid, or of a
 * cgroup without one when @pool is %NULL.
 */
static u64 rdmacg_value(struct rdmacg_pool *pool,
			enum rdmacg_resource_type type, enum rdmacg_value what)
{
	struct rdmacg_pool_ext *ext = NULL;

	if (pool && type == RDMACG_RESOURCE_MR_MEM) {
		/* Pairs with the release in rdmacg_ext_ensure(). */
		ext = smp_load_acquire(&pool->ext);
		if (!ext)
			pool = NULL;
	}
	if (!pool)
		return what == RDMACG_VAL_MAX ? rdmacg_unlimited(type) : 0;
	if (type == RDMACG_RESOURCE_MR_MEM) {
		if (what == RDMACG_VAL_MAX)
			return atomic64_read(&ext->mr_mem.max);
		if (what == RDMACG_VAL_CURRENT)
			return atomic64_read(&ext->mr_mem.usage);
		return atomic64_read(&ext->mr_mem.peak);
	}
	if (what == RDMACG_VAL_MAX)
		return atomic_read(&pool->res[type].max);
	if (what == RDMACG_VAL_CURRENT)
		return atomic_read(&pool->res[type].usage);
	return atomic_read(&pool->res[type].peak);
}

/* The resources a file of peaks shows. */
static bool rdmacg_file_has(unsigned long private,
			    enum rdmacg_resource_type type)
{
	return !(private & RDMACG_FILE_MR_MEM) == (type < RDMACG_NR_COUNTS);
}

/*
 * Restart the peak of @type of @pool from the current usage. Return: the
 * peak it replaced.
 */
static u64 rdmacg_peak_restart(struct rdmacg_pool *pool,
			       enum rdmacg_resource_type type)
{
	u64 old;

	if (type == RDMACG_RESOURCE_MR_MEM)
		old = atomic64_xchg(&pool->ext->mr_mem.peak,
				    atomic64_read(&pool->ext->mr_mem.usage));
	else
		old = atomic_xchg(&pool->res[type].peak,
				  atomic_read(&pool->res[type].usage));
	/* A charge that raised the usage meanwhile has not raised it yet. */
	rdmacg_raise_peak(pool, type, rdmacg_usage(pool, type));
	return old;
}

/*
 * Make room for the entries a reset of @cg needs, in the base and in every
 * file's saved peaks, @mine included. Return: 0 or -ENOMEM.
 */
static int rdmacg_peaks_prepare(struct rdma_cgroup *cg,
				struct rdmacg_peaks *mine)
{
	struct rdmacg_device *dev;
	struct rdmacg_peaks *peaks;
	struct rdmacg_pool *pool;
	int ret = 0;

	list_for_each_entry(dev, &rdmacg_registry, dev_node) {
		pool = rdmacg_pool_lookup_locked(cg, dev);
		if (!pool)
			continue;
		ret = rdmacg_peaks_reserve(cg->peak_base, pool) ?:
			rdmacg_peaks_reserve(mine, pool);
		list_for_each_entry(peaks, &cg->peak_files, node)
			ret = ret ?: rdmacg_peaks_reserve(peaks, pool);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * rdmacg_peak_reset() - reset the peaks of @cg for one reader
 * @cg: a non-root cgroup the caller keeps alive
 * @ofp: the peak state of the open file, which the file's release frees
 * @private: the file's &cftype.private: which resources it shows
 *
 * Later reads through the file show the peaks since now; other files see
 * what they saw. Each device's peaks restart from the current usage.
 *
 * Context: Process context; may sleep. Takes rdmacg_registry_mutex.
 * Return: 0 or -ENOMEM (nothing is reset then).
 */
static int rdmacg_peak_reset(struct rdma_cgroup *cg,
			     struct cgroup_of_peak *ofp, unsigned long private)
{
	struct rdmacg_peaks *mine, *peaks, *fresh = NULL;
	enum rdmacg_resource_type type;
	struct rdmacg_peak_mark *mark;
	struct rdmacg_device *dev;
	struct rdmacg_pool *pool;
	u64 old;
	int ret = -ENOMEM;

	mutex_lock(&rdmacg_registry_mutex);
	if (!cg->peak_base) {
		cg->peak_base = kzalloc_obj(*cg->peak_base, GFP_KERNEL_ACCOUNT);
		if (!cg->peak_base)
			goto out;
	}
	/* The file's saved peaks live from its first reset to its release. */
	mine = (struct rdmacg_peaks *)ofp->value;
	if (!mine) {
		fresh = kzalloc_obj(*fresh, GFP_KERNEL_ACCOUNT);
		if (!fresh)
			goto out;
		mine = fresh;
	}
	ret = rdmacg_peaks_prepare(cg, mine);
	if (ret) {
		rdmacg_peaks_free(fresh);
		goto out;
	}
	if (fresh) {
		list_add(&fresh->node, &cg->peak_files);
		ofp->value = (unsigned long)fresh;
	}

	list_for_each_entry(dev, &rdmacg_registry, dev_node) {
		/*
		 * A pool that a charge made since the entries were reserved
		 * has seen nothing from before the reset: leave it alone.
		 */
		pool = rdmacg_pool_lookup_locked(cg, dev);
		mark = pool ? rdmacg_peaks_find(mine, pool) : NULL;
		for (type = 0; mark && type < RDMACG_RESOURCE_MAX; type++) {
			if (!rdmacg_file_has(private, type) ||
			    !rdmacg_leaf_ready(pool, type))
				continue;
			old = rdmacg_peak_restart(pool, type);
			rdmacg_peaks_fold(cg->peak_base, pool, type, old);
			list_for_each_entry(peaks, &cg->peak_files, node)
				rdmacg_peaks_fold(peaks, pool, type, old);
			mark->peak[type] = 0;
		}
	}
out:
	mutex_unlock(&rdmacg_registry_mutex);
	return ret;
}

/* Free the saved peaks of an open file at its release. */
static void rdmacg_peak_forget(struct cgroup_of_peak *ofp)
{
	struct rdmacg_peaks *mine = (struct rdmacg_peaks *)ofp->value;

	if (!mine)
		return;
	mutex_lock(&rdmacg_registry_mutex);
	list_del(&mine->node);
	mutex_unlock(&rdmacg_registry_mutex);
	rdmacg_peaks_free(mine);
	ofp->value = 0;
}

/*
 * The peak of @type of @pool as the reader with peak state @ofp sees it:
 * saved part and current part (see above).
 */
static u64 rdmacg_peak_seen(struct rdma_cgroup *cg, struct rdmacg_pool *pool,
			    enum rdmacg_resource_type type,
			    struct cgroup_of_peak *ofp)
{
	struct rdmacg_peaks *peaks = ofp && ofp->value ?
		(struct rdmacg_peaks *)ofp->value : cg->peak_base;
	struct rdmacg_peak_mark *mark = pool ? rdmacg_peaks_find(peaks, pool) : NULL;
	u64 val = rdmacg_value(pool, type, RDMACG_VAL_PEAK);

	lockdep_assert_held(&rdmacg_registry_mutex);
	return mark ? max(val, mark->peak[type]) : val;
}

/*
 * The peak state of the open file that @seq shows. The KUnit tests print
 * into a bare seq_file, with no open file: %NULL then, which reads the
 * peaks of a file never written.
 */
static struct cgroup_of_peak *rdmacg_seq_peak(struct seq_file *seq)
{
	struct kernfs_open_file *of = seq->private;

	return of ? of_peak(of) : NULL;
}

/* Print " VALUE" or " KEY=VALUE" for resource @type of @pool. */
static void rdmacg_print_value(struct seq_file *seq, struct rdma_cgroup *cg,
			       struct rdmacg_pool *pool,
			       enum rdmacg_resource_type type,
			       enum rdmacg_value what, const char *key)
{
	u64 val = rdmacg_value(pool, type, what);

	if (what == RDMACG_VAL_PEAK)
		val = rdmacg_peak_seen(cg, pool, type, rdmacg_seq_peak(seq));
	seq_putc(seq, ' ');
	if (key)
		seq_printf(seq, "%s=", key);
	if (what == RDMACG_VAL_MAX && val == rdmacg_unlimited(type))
		seq_puts(seq, "max");
	else
		seq_printf(seq, "%llu", val);
}

/*
 * Print rdma.max, rdma.current or rdma.peak: "DEV hca_handle=N
 * hca_object=N", and never more fields (container runtimes drop lines of
 * any other shape).
 * An rdma.mr_mem.* file has "DEV BYTES".
 */
static void rdmacg_print_values(struct seq_file *seq, struct rdma_cgroup *cg,
				unsigned long private)
{
	enum rdmacg_value what = private & ~RDMACG_FILE_MR_MEM;
	struct rdmacg_device *dev;
	struct rdmacg_pool *pool;
	int i;

	mutex_lock(&rdmacg_registry_mutex);
	list_for_each_entry(dev, &rdmacg_registry, dev_node) {
		pool = rdmacg_pool_lookup_locked(cg, dev);
		rdmacg_print_key(seq, dev);
		if (private & RDMACG_FILE_MR_MEM) {
			rdmacg_print_value(seq, cg, pool, RDMACG_RESOURCE_MR_MEM,
					   what, NULL);
		} else {
			for (i = 0; i < RDMACG_NR_COUNTS; i++)
				rdmacg_print_value(seq, cg, pool, i, what,
						   rdmacg_names[i]);
		}
		seq_putc(seq, '\n');
	}
	mutex_unlock(&rdmacg_registry_mutex);
}

/*
 * Print rdma.events or rdma.events.local:
 * "DEV hca_handle.max=N hca_handle.alloc_fail=N hca_object.max=N ...".
 */
static void rdmacg_print_events(struct seq_file *seq, struct rdma_cgroup *cg,
				bool local)
{
	enum rdmacg_event hit_ev = local ? RDMACG_EV_MAX_LOCAL : RDMACG_EV_MAX;
	enum rdmacg_event fail_ev = local ? RDMACG_EV_FAIL_LOCAL : RDMACG_EV_FAIL;
	struct rdmacg_device *dev;
	struct rdmacg_pool_ext *ext;
	struct rdmacg_pool *pool;
	u64 hit, fail;
	int i;

	mutex_lock(&rdmacg_registry_mutex);
	list_for_each_entry(dev, &rdmacg_registry, dev_node) {
		pool = rdmacg_pool_lookup_locked(cg, dev);
		/* Pairs with the release in rdmacg_ext_ensure(). */
		ext = pool ? smp_load_acquire(&pool->ext) : NULL;
		rdmacg_print_key(seq, dev);
		for (i = 0; i < RDMACG_RESOURCE_MAX; i++) {
			/* Hits before failures: see rdmacg_events_add(). */
			hit = ext ? atomic64_read_acquire(&ext->events[i][hit_ev]) : 0;
			fail = ext ? atomic64_read(&ext->events[i][fail_ev]) : 0;
			seq_printf(seq, " %s.max=%llu %s.alloc_fail=%llu",
				   rdmacg_names[i], hit, rdmacg_names[i], fail);
		}
		seq_putc(seq, '\n');
	}
	mutex_unlock(&rdmacg_registry_mutex);
}

static int rdmacg_values_show(struct seq_file *seq, void *v)
{
	rdmacg_print_values(seq, rdmacg_of(seq_css(seq)), seq_cft(seq)->private);
	return 0;
}

/* A write of anything to rdma.peak or rdma.mr_mem.peak resets it for the file. */
static ssize_t rdmacg_peak_write(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	int ret = rdmacg_peak_reset(rdmacg_of(of_css(of)), of_peak(of),
				    of_cft(of)->private);

	return ret ?: nbytes;
}

static void rdmacg_peak_release(struct kernfs_open_file *of)
{
	rdmacg_peak_forget(of_peak(of));
}

static int rdmacg_events_show(struct seq_file *seq, void *v)
{
	rdmacg_print_events(seq, rdmacg_of(seq_css(seq)), seq_cft(seq)->private);
	return 0;
}

static struct cftype rdmacg_cftypes[] = {
	{
		.name = "max",
		.write = rdmacg_max_write,
		.seq_show = rdmacg_values_show,
		.private = RDMACG_VAL_MAX,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "current",
		.seq_show = rdmacg_values_show,
		.private = RDMACG_VAL_CURRENT,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "peak",
		.write = rdmacg_peak_write,
		.release = rdmacg_peak_release,
		.seq_show = rdmacg_values_show,
		.private = RDMACG_VAL_PEAK,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "mr_mem.max",
		.write = rdmacg_mr_mem_max_write,
		.seq_show = rdmacg_values_show,
		.private = RDMACG_FILE_MR_MEM | RDMACG_VAL_MAX,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "mr_mem.current",
		.seq_show = rdmacg_values_show,
		.private = RDMACG_FILE_MR_MEM | RDMACG_VAL_CURRENT,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "mr_mem.peak",
		.write = rdmacg_peak_write,
		.release = rdmacg_peak_release,
		.seq_show = rdmacg_values_show,
		.private = RDMACG_FILE_MR_MEM | RDMACG_VAL_PEAK,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "events",
		.seq_show = rdmacg_events_show,
		.private = false,
		.file_offset = offsetof(struct rdma_cgroup, events_file),
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "events.local",
		.seq_show = rdmacg_events_show,
		.private = true,
		.file_offset = offsetof(struct rdma_cgroup, events_local_file),
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{ }	/* end of table */
};

static struct cgroup_subsys_state *
rdmacg_alloc_css(struct cgroup_subsys_state *parent)
{
	struct rdma_cgroup *cg;

	cg = kzalloc_obj(*cg);
	if (!cg)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&cg->table_lock);
	INIT_LIST_HEAD(&cg->peak_files);
	return &cg->css;
}

/*
 * No charge is left here: each holds a reference on the css.
 * An object charged in its context's cgroup without one of its own
 * relies on the context's, which it never outlives.
 * Nor is anyone left who could create a pool, so only an unregistration
 * can race with us, and only to clear slots of the table;
 * rdmacg_registry_mutex keeps it out. Every pool in the table belongs to
 * a registered device.
 */
static void rdmacg_free_css(struct cgroup_subsys_state *css)
{
	struct rdma_cgroup *cg = rdmacg_of(css);
	/* Nobody else can reach @cg any more. */
	struct rdmacg_pool_table *table = rcu_dereference_protected(cg->table, true);
	struct rdmacg_device *dev;
	struct rdmacg_pool *pool;

	if (!rcu_access_pointer(cg->pool0) && !table)
		goto out;
	mutex_lock(&rdmacg_registry_mutex);
	list_for_each_entry(dev, &rdmacg_registry, dev_node) {
		pool = rdmacg_pool_lookup_locked(cg, dev);
		if (!pool)
			continue;
		mutex_lock(&dev->pools_lock);
		list_del(&pool->dev_link);
		mutex_unlock(&dev->pools_lock);
		call_rcu(&pool->rcu, rdmacg_pool_free_rcu);
	}
	mutex_unlock(&rdmacg_registry_mutex);
	kfree_rcu_mightsleep(table);
out:
	/* kernfs released every open file of the cgroup when it was removed. */
	WARN_ON_ONCE(!list_empty(&cg->peak_files));
	rdmacg_peaks_free(cg->peak_base);
	kfree(cg);
}

struct cgroup_subsys rdma_cgrp_subsys = {
	.css_alloc	= rdmacg_alloc_css,
	.css_free	= rdmacg_free_css,
	.legacy_cftypes	= rdmacg_cftypes,
	.dfl_cftypes	= rdmacg_cftypes,
};

#ifdef CONFIG_CGROUP_RDMA_KUNIT_TEST
#include "tests/rdma_kunit.c"
#endif
