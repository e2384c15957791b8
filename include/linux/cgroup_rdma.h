/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDMA cgroup controller: the interface used by the RDMA stack.
 *
 * A device that wants its resources limited per cgroup embeds a struct
 * rdmacg_device and registers it. Each context and verbs object is charged
 * with rdmacg_try_charge() when created and uncharged with rdmacg_uncharge()
 * when destroyed.
 * User memory pinned for a device is charged with rdmacg_try_charge_mr_mem()
 * and uncharged with rdmacg_uncharge_mr_mem() when unpinned.
 * A verbs object may be charged with rdmacg_try_charge_obj() instead, which
 * takes no cgroup reference while the task is in its context's cgroup, and
 * uncharged with rdmacg_uncharge_obj().
 *
 * Copyright (C) 2016 Parav Pandit <pandit.parav@gmail.com>
 */

#ifndef _CGROUP_RDMA_H
#define _CGROUP_RDMA_H

#include <linux/cgroup.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

/**
 * enum rdmacg_resource_type - what the controller limits
 * @RDMACG_RESOURCE_HCA_HANDLE: uverbs contexts, charged one at a time with
 *	rdmacg_try_charge()
 * @RDMACG_RESOURCE_HCA_OBJECT: uverbs objects, likewise
 * @RDMACG_RESOURCE_MR_MEM: bytes of user memory pinned for a device,
 *	charged by amount with rdmacg_try_charge_mr_mem()
 * @RDMACG_RESOURCE_MAX: the number of resources
 */
enum rdmacg_resource_type {
	RDMACG_RESOURCE_HCA_HANDLE,
	RDMACG_RESOURCE_HCA_OBJECT,
	RDMACG_RESOURCE_MR_MEM,
	RDMACG_RESOURCE_MAX,
};

#ifdef CONFIG_CGROUP_RDMA

struct rdmacg_peaks;
struct rdmacg_pool;
struct rdmacg_pool_table;

/**
 * struct rdma_cgroup - per-cgroup state of the RDMA controller
 * @css: the cgroup core's state, embedded
 * @pool0: this cgroup's pool for the device with id 0 (the first one
 *	registered, often the only one)
 * @table: this cgroup's pools for the devices with higher ids, indexed by
 *	&rdmacg_device.id - 1
 * @table_lock: serialises the writers of @pool0, @table and its slots
 *	(pool creation for any device, and unregistration); readers use RCU
 *	only, even those holding a mutex, since @table may be replaced under
 *	them; nothing allocates under it
 * @events_file: handle of rdma.events, for change notification
 * @events_local_file: handle of rdma.events.local, for change notification
 * @peak_base: the peaks saved at resets for the readers that never reset
 *	(%NULL before the first reset); under rdmacg_registry_mutex
 * @peak_files: the saved peaks of the open peak files that reset, under
 *	rdmacg_registry_mutex
 */
struct rdma_cgroup {
	struct cgroup_subsys_state	css;
	struct rdmacg_pool __rcu	*pool0;
	struct rdmacg_pool_table __rcu	*table;
	spinlock_t			table_lock;	/* guards writes of the slots */
	struct cgroup_file		events_file;
	struct cgroup_file		events_local_file;
	struct rdmacg_peaks		*peak_base;
	struct list_head		peak_files;
};

/**
 * enum rdmacg_device_state - what the controller does with a device
 * @RDMACG_DEV_UNREGISTERED: nothing: never registered, or unregistration
 *	has begun; charges fail with -ENODEV
 * @RDMACG_DEV_ACCOUNTED: registered; charges count against the limits
 * @RDMACG_DEV_UNACCOUNTED: registered, but the controller had no memory to
 *	give it an id; charges succeed and nothing is counted
 */
enum rdmacg_device_state {
	RDMACG_DEV_UNREGISTERED,
	RDMACG_DEV_ACCOUNTED,
	RDMACG_DEV_UNACCOUNTED,
};

/**
 * struct rdmacg_device - an RDMA device as the controller knows it
 * @dev_node: entry in the list of accounted devices
 * @pools: every cgroup's pool for this device
 * @pools_lock: serialises pool creation against unregistration: a pool
 *	is created, stored in its cgroup's table and put on @pools under it,
 *	and only while @state is %RDMACG_DEV_ACCOUNTED; unregistration leaves
 *	that state and takes @pools under it too. Also taken to allocate a
 *	pool's event counters; never by a charge once the pools exist, nor by
 *	an uncharge
 * @name: name shown in and matched against the interface files; set by
 *	the owner before registration
 * @index: a number no other registered device has, which tells devices of
 *	the same name apart (in different network namespaces): the files
 *	show it after the name of such a device, and writes name it with
 *	"index=N"; set by the owner before registration
 * @id: which slot of each &struct rdma_cgroup holds this device's pool
 * @state: an &enum rdmacg_device_state; zero, %RDMACG_DEV_UNREGISTERED, in
 *	a zeroed struct. Set under rdmacg_registry_mutex (and @pools_lock
 *	when it leaves %RDMACG_DEV_ACCOUNTED); lockless readers load it with
 *	acquire in the RCU read-side critical section that uses @id
 *
 * Everything but @name and @index belongs to the controller.
 */
struct rdmacg_device {
	struct list_head	dev_node;
	struct list_head	pools;
	struct mutex		pools_lock;	/* guards @pools and @state */
	char			*name;
	u32			index;
	u32			id;
	enum rdmacg_device_state state;
};

void rdmacg_register_device(struct rdmacg_device *dev);
void rdmacg_unregister_device(struct rdmacg_device *dev);

int rdmacg_try_charge(struct rdma_cgroup **rdmacg,
		      struct rdmacg_device *dev,
		      enum rdmacg_resource_type type);
void rdmacg_uncharge(struct rdma_cgroup *cg,
		     struct rdmacg_device *dev,
		     enum rdmacg_resource_type type);
int rdmacg_try_charge_obj(struct rdma_cgroup **rdmacg,
			  struct rdma_cgroup *ctx_cg,
			  struct rdmacg_device *dev);
void rdmacg_uncharge_obj(struct rdma_cgroup *cg, struct rdma_cgroup *ctx_cg,
			 struct rdmacg_device *dev);
int rdmacg_try_charge_mr_mem(struct rdma_cgroup **rdmacg,
			     struct rdmacg_device *dev, u64 bytes);
void rdmacg_uncharge_mr_mem(struct rdma_cgroup *cg,
			    struct rdmacg_device *dev, u64 bytes);
#endif	/* CONFIG_CGROUP_RDMA */
#endif	/* _CGROUP_RDMA_H */
