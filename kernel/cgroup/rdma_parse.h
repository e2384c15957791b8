/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDMA cgroup controller: parsing of rdma.max writes.
 *
 * The parser is a pure function of its input and includes only what user
 * space has too, so that the same source is built and fuzzed in user space
 * against a reference model.
 */

#ifndef _KERNEL_CGROUP_RDMA_PARSE_H
#define _KERNEL_CGROUP_RDMA_PARSE_H

#include <linux/cgroup_rdma.h>
#include <linux/limits.h>
#include <linux/types.h>

/* The largest limit; reads and writes spell it "max". */
#define RDMACG_MAX	INT_MAX

/* The keys of each resource in the interface files. */
extern const char *const rdmacg_names[RDMACG_RESOURCE_MAX];

/**
 * struct rdmacg_max_req - a parsed rdma.max write
 * @dev: the device name, not NUL-terminated
 * @dev_len: its length
 * @mask: bit i is set when resource i was given
 * @value: the limits given, %RDMACG_MAX for "max"
 */
struct rdmacg_max_req {
	const char	*dev;
	size_t		dev_len;
	unsigned int	mask;
	int		value[RDMACG_RESOURCE_MAX];
};

int rdmacg_parse_max(const char *buf, size_t len, struct rdmacg_max_req *req);

#endif	/* _KERNEL_CGROUP_RDMA_PARSE_H */
