// SPDX-License-Identifier: GPL-2.0-only
/*
 * Glue between ib_core and the RDMA cgroup controller.
 *
 * Every ib_device carries a struct rdmacg_device. ib_core registers it before
 * user space can reach the device and unregisters it once uverbs has been
 * disassociated, so that no charge is made on a device the controller no
 * longer knows.
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
 * Context: Any context that may take an RCU read lock.
 */
void ib_rdmacg_uncharge(struct ib_rdmacg_object *cg_obj,
			struct ib_device *device,
			enum rdmacg_resource_type resource_index)
{
	rdmacg_uncharge(cg_obj->cg, &device->cg_device, resource_index);
}
EXPORT_SYMBOL(ib_rdmacg_uncharge);
