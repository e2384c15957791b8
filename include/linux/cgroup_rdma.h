/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (C) 2016 Parav Pandit <pandit.parav@gmail.com>
 */

#ifndef _CGROUP_RDMA_H
#define _CGROUP_RDMA_H

#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

enum rdmacg_resource_type {
	RDMACG_RESOURCE_HCA_HANDLE,
	RDMACG_RESOURCE_HCA_OBJECT,
	RDMACG_RESOURCE_MAX,
};

#ifdef CONFIG_CGROUP_RDMA

struct rdma_cgroup {
	struct cgroup_subsys_state	css;

	/*
	 * The open files of rdma.peak [0] and rdma.mr_mem.peak [1] that
	 * were written, and their values: under peak_lock, which is never
	 * taken with rdmacg_mutex held.
	 */
	struct mutex			peak_lock;
	struct list_head		peak_files[2];
	/* The serial of the cgroup's last pool made; rdmacg_mutex */
	u32				pool_serial;

	/* rdma.events and rdma.events.local, for cgroup_file_notify() */
	struct cgroup_file		events_file;
	struct cgroup_file		events_local_file;
};

struct rdmacg_device {
	/* On the list of registered devices; rdmacg_mutex */
	struct list_head	dev_node;
	/*
	 * The pool of each cgroup that uses the device, indexed by the id of
	 * the cgroup's css: stored and erased under rdmacg_mutex, looked up
	 * by charges without a lock.
	 */
	struct xarray		pools;
	char			*name;
	u32			index;
};

/*
 * APIs for RDMA/IB stack to publish when a device wants to
 * participate in resource accounting
 */
void rdmacg_register_device(struct rdmacg_device *device);
void rdmacg_unregister_device(struct rdmacg_device *device);

/* APIs for RDMA/IB stack to charge/uncharge pool specific resources */
int rdmacg_try_charge(struct rdma_cgroup **rdmacg,
		      struct rdmacg_device *device,
		      enum rdmacg_resource_type index);
void rdmacg_uncharge(struct rdma_cgroup *cg,
		     struct rdmacg_device *device,
		     enum rdmacg_resource_type index);

/* The same for user memory pinned for a device (mr_mem), in pages */
int rdmacg_try_charge_mem(struct rdma_cgroup **rdmacg,
			  struct rdmacg_device *dev, unsigned long npages);
void rdmacg_uncharge_mem(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			 unsigned long npages);
#endif	/* CONFIG_CGROUP_RDMA */
#endif	/* _CGROUP_RDMA_H */
