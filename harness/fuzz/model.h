/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reference models of rdma.max and rdma.mr_mem.max writes, written from the contract and not
 * from the kernel's parser: see model.c.
 */
#ifndef RDMACG_FUZZ_MODEL_H
#define RDMACG_FUZZ_MODEL_H

#include <stddef.h>
#include <stdio.h>

#define MODEL_NKEYS	2	/* hca_handle, hca_object, in that order */

struct model_result {
	int		err;		/* 0 or -EINVAL */
	/* The rest is meaningful only when err == 0. */
	size_t		dev_off;	/* offset of the device name in the input */
	size_t		dev_len;
	unsigned int	mask;		/* bit k: key k was given */
	long long	value[MODEL_NKEYS];
};

void model_parse(const unsigned char *buf, size_t len, struct model_result *r);

/* The same for an rdma.mr_mem.max write: "DEV VALUE". */
struct model_bytes {
	int			err;	/* 0 or -EINVAL */
	size_t			dev_off;
	size_t			dev_len;
	unsigned long long	value;
};

void model_parse_bytes(const unsigned char *buf, size_t len,
		       struct model_bytes *r);

/* Print buf[0, len) as the body of a C string literal (shared with harness/model/). */
void model_put_escaped(FILE *f, const unsigned char *buf, size_t len);

#endif /* RDMACG_FUZZ_MODEL_H */
