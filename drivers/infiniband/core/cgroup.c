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
 * The memory an MR's object holds (see ib_rdmacg_set_mr_mem()) is returned
 * with the object, its %RDMACG_RESOURCE_HCA_OBJECT: on destruction, abort,
 * release of the uverbs file and removal of the device alike, and only
 * once, since the object is returned only once. An object whose driver
 * fails to destroy it (%RDMA_REMOVE_DRIVER_FAILURE) keeps both, as it
 * keeps its pages, until the device is unregistered.
 *
 * Context: Any context that may take an RCU read lock.
 */
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type resource_index)
{
	if (resource_index == RDMACG_RESOURCE_HCA_OBJECT && cg_obj->mr_mem) {
		rdmacg_uncharge_mr_mem(cg_obj->cg, &device->cg_device,
				       cg_obj->mr_mem);
		cg_obj->mr_mem = 0;
	}
	rdmacg_uncharge(cg_obj->cg, &device->cg_device, resource_index);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge);

/**
 * ib_rdmacg_mr_bytes() - what registering a range of user memory costs
 * @start: user address of the range
 * @length: its length in bytes
 * @access_flags: the MR's &enum ib_access_flags
 * @bytes: the cost, in bytes of the whole pages the range touches
 *
 * Pages are counted as pinning counts them, so an MR of 4096 bytes that
 * starts 100 bytes into a page costs 8192, and two MRs over the same pages
 * cost twice. An implicit ODP MR (the whole address space, pinned by
 * nothing) costs 0.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if the range wraps around the address space or
 * spans more pages than an MR can pin.
 */
int ib_rdmacg_mr_bytes(u64 start, u64 length, int access_flags, u64 *bytes)
{
	u64 end;

	if ((access_flags & IB_ACCESS_ON_DEMAND) && !start &&
	    length == U64_MAX) {
		*bytes = 0;
		return 0;
	}
	if (check_add_overflow(start, length, &end) ||
	    ALIGN(end, PAGE_SIZE) < end)
		return -EINVAL;
	*bytes = ALIGN(end, PAGE_SIZE) - ALIGN_DOWN(start, PAGE_SIZE);
	/*
	 * No MR can pin more pages than ib_umem_get() counts in an unsigned
	 * int. Refusing larger ranges here keeps a request that is bound to
	 * fail from holding, until the driver refuses it, a charge so large
	 * that it would crowd out the other cgroups below an ancestor
	 * without a limit.
	 */
	if (*bytes > (u64)UINT_MAX << PAGE_SHIFT)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL(ib_rdmacg_mr_bytes);

/**
 * ib_rdmacg_set_mr_mem() - set the memory an MR's object holds charged
 * @cg_obj: the MR's uobject's charge, made by ib_rdmacg_try_charge()
 * @device: device of the MR
 * @bytes: what the MR's memory costs now (see ib_rdmacg_mr_bytes())
 *
 * Charges what @bytes adds to the memory charged so far, or returns what
 * it takes off, always to the cgroup of the object, whichever task calls.
 * No reference is taken or dropped: the object's charge keeps the cgroup.
 *
 * Context: Process context; may sleep.
 * Return: 0, or -EAGAIN (the cgroup or an ancestor would exceed its
 * rdma.mr_mem.max) or another negative errno, and then nothing changed.
 * Lowering the charge always succeeds.
 */
int ib_rdmacg_set_mr_mem(struct ib_rdmacg_object *cg_obj,
			 struct ib_device *device, u64 bytes)
{
	int ret;

	if (bytes < cg_obj->mr_mem) {
		rdmacg_uncharge_mr_mem(cg_obj->cg, &device->cg_device,
				       cg_obj->mr_mem - bytes);
	} else {
		ret = rdmacg_try_charge_mr_mem(cg_obj->cg, &device->cg_device,
					       bytes - cg_obj->mr_mem);
		if (ret)
			return ret;
	}
	cg_obj->mr_mem = bytes;
	return 0;
}
EXPORT_SYMBOL(ib_rdmacg_set_mr_mem);
