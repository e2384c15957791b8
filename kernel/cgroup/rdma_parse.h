/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RDMA cgroup controller: parsing of rdma.max and rdma.mr_mem.max writes.
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

/* No limit on a count of rdma.max; reads and writes spell it "max". */
#define RDMACG_MAX		INT_MAX

/* No limit on the bytes of rdma.mr_mem.max, spelt "max" likewise. */
#define RDMACG_MR_MEM_MAX	U64_MAX

/* The resources that rdma.max sets, the ones before the bytes of MRs. */
#define RDMACG_NR_COUNTS	RDMACG_RESOURCE_MR_MEM

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
	int		value[RDMACG_NR_COUNTS];
};

/**
 * struct rdmacg_bytes_req - a parsed rdma.mr_mem.max write
 * @dev: the device name, not NUL-terminated
 * @dev_len: its length
 * @value: the limit in bytes, %RDMACG_MR_MEM_MAX for "max"
 */
struct rdmacg_bytes_req {
	const char	*dev;
	size_t		dev_len;
	u64		value;
};

int rdmacg_parse_max(const char *buf, size_t len, struct rdmacg_max_req *req);
int rdmacg_parse_bytes(const char *buf, size_t len,
		       struct rdmacg_bytes_req *req);
const char *rdmacg_next_line(const char **pos, const char *end, size_t *len);

#endif	/* _KERNEL_CGROUP_RDMA_PARSE_H */
