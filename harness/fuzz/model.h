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

/* One device of a write, of either file. */
struct model_entry {
	size_t			dev_off;	/* offset of the device name in the input */
	size_t			dev_len;
	int			has_index;
	unsigned int		index;
	unsigned int		mask;		/* rdma.max: bit k: key k was given */
	long long		value[MODEL_NKEYS];
	unsigned long long	bytes;		/* rdma.mr_mem.max: the limit */
};

/*
 * A whole write of rdma.max (bytes == 0) or rdma.mr_mem.max (bytes == 1),
 * with the multi-device extension: the number of devices (at least 1),
 * their entries in out[0, min(n, max)), or -EINVAL.
 */
int model_parse_write(const unsigned char *buf, size_t len, int bytes,
		      struct model_entry *out, int max);

/* A write of one device to rdma.max: the upstream grammar exactly. */
struct model_result {
	int		err;		/* 0 or -EINVAL */
	/* The rest is meaningful only when err == 0. */
	size_t		dev_off;	/* offset of the device name in the input */
	size_t		dev_len;
	int		has_index;
	unsigned int	index;
	unsigned int	mask;		/* bit k: key k was given */
	long long	value[MODEL_NKEYS];
};

void model_parse(const unsigned char *buf, size_t len, struct model_result *r);

/* The same for an rdma.mr_mem.max write of one device: "DEV [index=N] VALUE". */
struct model_bytes {
	int			err;	/* 0 or -EINVAL */
	size_t			dev_off;
	size_t			dev_len;
	int			has_index;
	unsigned int		index;
	unsigned long long	value;
};

void model_parse_bytes(const unsigned char *buf, size_t len,
		       struct model_bytes *r);

/* Print buf[0, len) as the body of a C string literal (shared with harness/model/). */
void model_put_escaped(FILE *f, const unsigned char *buf, size_t len);

#endif /* RDMACG_FUZZ_MODEL_H */
