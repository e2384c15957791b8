// SPDX-License-Identifier: GPL-2.0
/*
 * reg_len DEV LENGTH: register LENGTH bytes (decimal, or with a K, M, G or
 * T suffix) starting at a one-page buffer, whose next page is unmapped,
 * with ibv_reg_mr() on DEV, and print "reg_len: LENGTH=ok" or
 * "reg_len: LENGTH=ERRNO" (the errno name). Exits 0 if the call was made,
 * 2 if it could not be (no device, no PD). For lengths that the pin cannot
 * cover: the driver must refuse them without ado (harness/fixes/02-*.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "util.h"

int main(int argc, char **argv)
{
	unsigned long long len;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *end, *buf;
	long pg = sysconf(_SC_PAGESIZE);
	int i, err;

	if (argc != 3) {
		fprintf(stderr, "usage: reg_len DEV LENGTH\n");
		return 2;
	}
	len = strtoull(argv[2], &end, 10);
	switch (*end) {
	case 'T': len <<= 10; /* fall through */
	case 'G': len <<= 10; /* fall through */
	case 'M': len <<= 10; /* fall through */
	case 'K': len <<= 10; end++; break;
	}
	if (*end || !len) {
		fprintf(stderr, "reg_len: bad length %s\n", argv[2]);
		return 2;
	}
	/* One page of memory, then one without access. */
	buf = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || mprotect(buf + pg, pg, PROT_NONE)) {
		perror("reg_len: mmap");
		return 2;
	}
	memset(buf, 1, pg);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd) {
		fprintf(stderr, "reg_len: no PD on %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	err = mr ? 0 : errno;
	printf("reg_len: %s=%s\n", argv[2], mr ? "ok" : errname(err));
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
