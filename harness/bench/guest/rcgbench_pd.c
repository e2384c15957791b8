// SPDX-License-Identifier: GPL-2.0
/*
 * rcgbench_pd: end-to-end cost of an RDMA object through uverbs.
 *
 *   rcgbench_pd [-d DEVICE] [-w WARMUP] N
 *
 * Opens DEVICE (default: the first one), then times N rounds of
 * ibv_alloc_pd() + ibv_dealloc_pd(). Each PD is charged to the caller's
 * cgroup as one hca_object (and the open context as one hca_handle).
 * Prints "ok pairs=N ns=T ns_per_pair=X".
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int rounds(struct ibv_context *ctx, long n)
{
	struct ibv_pd *pd;
	long i;

	for (i = 0; i < n; i++) {
		pd = ibv_alloc_pd(ctx);
		if (!pd) {
			printf("rcgbench_pd: error: ibv_alloc_pd failed at %ld\n", i);
			return -1;
		}
		if (ibv_dealloc_pd(pd)) {
			printf("rcgbench_pd: error: ibv_dealloc_pd failed at %ld\n", i);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	const char *name = NULL;
	struct ibv_context *ctx;
	unsigned long long t0, t1;
	long n, warmup = 1000;
	int opt, i, num;

	while ((opt = getopt(argc, argv, "d:w:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 'w':
			warmup = atol(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		printf("usage: rcgbench_pd [-d DEVICE] [-w WARMUP] N\n");
		return 2;
	}
	n = atol(argv[optind]);

	list = ibv_get_device_list(&num);
	if (!list || !num) {
		printf("rcgbench_pd: error: no RDMA device\n");
		return 1;
	}
	for (i = 0; i < num && !dev; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			dev = list[i];
	if (!dev) {
		printf("rcgbench_pd: error: no device %s\n", name);
		return 1;
	}
	ctx = ibv_open_device(dev);
	if (!ctx) {
		printf("rcgbench_pd: error: cannot open %s\n", ibv_get_device_name(dev));
		return 1;
	}
	if (rounds(ctx, warmup))
		return 1;
	t0 = now_ns();
	if (rounds(ctx, n))
		return 1;
	t1 = now_ns();
	printf("ok pairs=%ld ns=%llu ns_per_pair=%.1f device=%s\n", n, t1 - t0,
	       (double)(t1 - t0) / (double)n, ibv_get_device_name(dev));
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
