// SPDX-License-Identifier: GPL-2.0-only
/*
 * Glue between ib_core and the RDMA cgroup controller.
 *
 * Every ib_device carries a struct rdmacg_device. ib_core registers it before
 * user space can reach the device and unregisters it once uverbs has been
 * disassociated, so that no charge is made on a device the controller no
 * longer knows.
 *
 * Copyright (C) 2016 Parav Pandit <pandit.parav@gmail.com>
 */

#include <kunit/static_stub.h>

#include "core_priv.h"

/**
 * ib_device_register_rdmacg() - make a device known to the RDMA controller
 * @device: device about to be exposed to user space
 *
 * The device's name becomes the key that users write in rdma.max.
 *
 * Context: Process context; may sleep.
 */
void ib_device_register_rdmacg(struct ib_device *device)
{
	device->cg_device.name = device->name;
	device->cg_device.index = device->index;
	rdmacg_register_device(&device->cg_device);
}

/**
 * ib_device_unregister_rdmacg() - drop a device from the RDMA controller
 * @device: device whose user space access has ended
 *
 * All limits and usage kept for @device in any cgroup are discarded.
 *
 * Context: Process context; may sleep.
 */
void ib_device_unregister_rdmacg(struct ib_device *device)
{
	rdmacg_unregister_device(&device->cg_device);
}

/**
 * ib_rdmacg_try_charge() - charge one resource to the caller's cgroup
 * @cg_obj: object that remembers the charged cgroup for the uncharge
 * @device: device the resource is created on
 * @resource_index: which resource to charge
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -EAGAIN if a limit would be exceeded, or another
 * negative errno.
 */
int ib_rdmacg_try_charge(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device,
			 enum rdmacg_resource_type resource_index)
{
	return rdmacg_try_charge(&cg_obj->cg, &device->cg_device,
				 resource_index);
}
EXPORT_SYMBOL(ib_rdmacg_try_charge);

/**
 * ib_rdmacg_uncharge() - return a resource charged by ib_rdmacg_try_charge()
 * @cg_obj: object filled in by the successful charge
 * @device: device the resource was created on
 * @resource_index: which resource to return
 *
 * Context: Any context that may take an RCU read lock.
 */
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type resource_index)
{
	rdmacg_uncharge(cg_obj->cg, &device->cg_device, resource_index);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge);

/**
 * ib_rdmacg_try_charge_obj() - charge a uverbs object to the caller's cgroup
 * @cg_obj: object that remembers the charged cgroup for the uncharge
 * @ctx_obj: the charge of the object's ucontext
 * @device: device the object is created on
 *
 * Charges one hca_object. The ucontext's charge keeps its cgroup alive
 * until ib_rdmacg_uncharge() of the ucontext, which comes after every
 * object of the ucontext was destroyed: the object takes a cgroup
 * reference of its own only if the caller has moved to another cgroup
 * since it created the ucontext.
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -EAGAIN if a limit would be exceeded, or another
 * negative errno.
 */
int ib_rdmacg_try_charge_obj(struct ib_rdmacg_object *cg_obj,
			     struct ib_rdmacg_object *ctx_obj,
			     struct ib_device *device)
{
	return rdmacg_try_charge_obj(&cg_obj->cg, ctx_obj->cg,
				     &device->cg_device);
}
EXPORT_SYMBOL(ib_rdmacg_try_charge_obj);

/**
 * ib_rdmacg_uncharge_obj() - return what ib_rdmacg_try_charge_obj() charged
 * @cg_obj: object filled in by the successful charge
 * @ctx_obj: the charge of the object's ucontext, not yet returned
 * @device: device the object was created on
 *
 * Context: Any context that may take an RCU read lock.
 */
void ib_rdmacg_uncharge_obj(struct ib_rdmacg_object *cg_obj,
			    struct ib_rdmacg_object *ctx_obj,
			    struct ib_device *device)
{
	rdmacg_uncharge_obj(cg_obj->cg, ctx_obj->cg, &device->cg_device);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge_obj);

/**
 * ib_rdmacg_try_charge_pinned() - charge user memory about to be pinned
 * @cg: where to remember the charged cgroup, for the uncharge
 * @device: device the memory is pinned for
 * @npages: how many pages are about to be pinned
 *
 * Charges @npages pages of %RDMACG_RESOURCE_MR_MEM to the cgroup of the
 * current task, the one that pins, whatever cgroup the verbs object the
 * memory is for belongs to. CAP_IPC_LOCK, which lifts RLIMIT_MEMLOCK, does
 * not lift this limit. The charge keeps the cgroup alive until
 * ib_rdmacg_uncharge_pinned().
 *
 * Context: Process context; may sleep.
 * Return: 0 on success, -EAGAIN if the cgroup or an ancestor would exceed
 * its rdma.mr_mem.max, or another negative errno; nothing is charged then.
 */
int ib_rdmacg_try_charge_pinned(struct rdma_cgroup **cg,
				struct ib_device *device, unsigned long npages)
{
	KUNIT_STATIC_STUB_REDIRECT(ib_rdmacg_try_charge_pinned, cg, device,
				   npages);
	return rdmacg_try_charge_mr_mem(cg, &device->cg_device,
					(u64)npages << PAGE_SHIFT);
}
EXPORT_SYMBOL(ib_rdmacg_try_charge_pinned);

/**
 * ib_rdmacg_uncharge_pinned() - return what ib_rdmacg_try_charge_pinned()
 *	charged
 * @cg: filled in by the successful charge
 * @device: device the memory was pinned for
 * @npages: the pages charged, all of them
 *
 * Lock-free and notifies nothing: memory may be unpinned from softirq
 * context (siw drops its last reference to an MR on its receive path).
 *
 * Context: Any context.
 */
void ib_rdmacg_uncharge_pinned(struct rdma_cgroup **cg,
			       struct ib_device *device, unsigned long npages)
{
	KUNIT_STATIC_STUB_REDIRECT(ib_rdmacg_uncharge_pinned, cg, device,
				   npages);
	rdmacg_uncharge_mr_mem(*cg, &device->cg_device,
			       (u64)npages << PAGE_SHIFT);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge_pinned);
