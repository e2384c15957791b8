/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parse stage of an rdma.max write as upstream Linux 7.3 runs it, on
 * the tree's own match_token(), match_int() and match_uint(): see
 * ref_rdma.c. Plain C types only, so that fuzz_diff.c, built against the
 * stand-ins of harness/fuzz/include, can call it.
 */
#ifndef RDMACG_FUZZ_REF_RDMA_H
#define RDMACG_FUZZ_REF_RDMA_H

#include <stddef.h>

struct ref_result {
	int		err;		/* 0 or -EINVAL (-ENOMEM: a bug here) */
	/* The rest is meaningful only when err == 0. */
	size_t		dev_off;	/* offset of the device name in the input */
	size_t		dev_len;
	int		has_index;
	unsigned int	index;
	unsigned int	mask;		/* bit 0 hca_handle, bit 1 hca_object */
	int		value[2];
};

void ref_parse_max(const unsigned char *buf, size_t len, struct ref_result *r);

#endif /* RDMACG_FUZZ_REF_RDMA_H */
