/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel definitions that the rdma.max parser of
 * kernel/cgroup/rdma.c needs, so that the parser block, extracted from that
 * file at build time by harness/fuzz/run.sh, compiles in user space.
 *
 * Everything here mirrors the kernel: keep it in step with
 * include/linux/cgroup_rdma.h (enum rdmacg_resource_type) and with
 * kernel/cgroup/rdma.c (RDMACG_MAX, rdmacg_names[]).  run.sh checks that
 * those still read as below and fails if they do not.
 */
#ifndef RDMACG_FUZZ_SHIM_H
#define RDMACG_FUZZ_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* include/vdso/bits.h */
#define BIT(nr)		(1UL << (nr))

/* include/linux/cgroup_rdma.h */
enum rdmacg_resource_type {
	RDMACG_RESOURCE_HCA_HANDLE,
	RDMACG_RESOURCE_HCA_OBJECT,
	RDMACG_RESOURCE_MAX,
};

/* kernel/cgroup/rdma.c, above the parser block */
#define RDMACG_MAX	INT_MAX

static const char *const rdmacg_names[RDMACG_RESOURCE_MAX] = {
	[RDMACG_RESOURCE_HCA_HANDLE]	= "hca_handle",
	[RDMACG_RESOURCE_HCA_OBJECT]	= "hca_object",
};

#endif /* RDMACG_FUZZ_SHIM_H */
