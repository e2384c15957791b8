// SPDX-License-Identifier: GPL-2.0
/*
 * rcgbench_pd: end-to-end cost of an RDMA object through uverbs.
 *
 *   rcgbench_pd [-d DEVICE] [-w WARMUP] [-r BYTES] [-m] [-l] N
 *
 * Opens DEVICE (default: the first one), then times N rounds of
 * ibv_alloc_pd() + ibv_dealloc_pd(), or with -r of ibv_reg_mr() +
 * ibv_dereg_mr() of a BYTES buffer (page-aligned, touched first) on one PD,
 * or with -m of a mix: a PD, a CQ of 16 entries and an MR of BYTES (64 KiB
 * without -r) on that PD, created and destroyed in reverse order.
 * Each PD, CQ and MR is charged to the caller's cgroup as one hca_object
 * (and the open context as one hca_handle); on a kernel with mr_mem, each
 * MR also charges its pinned bytes. Prints "ok pairs=N ns=T ns_per_pair=X"
 * (a pair: one round); with -l, each round is timed too and the line adds
 * "p50_ns=X p99_ns=Y" (the median and the 99th percentile of a round).
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static size_t mr_bytes;	/* -r: MRs of this size instead of PDs */
static int mix;		/* -m: a PD, a CQ and an MR each round */
static int timed;		/* -l: time each round */
static void *mr_buf;
static struct ibv_pd *mr_pd;

/* -m: a PD, a CQ and an MR on the PD, destroyed in reverse; 0 or -1. */
static int mix_round(struct ibv_context *ctx)
{
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	int bad = 0;

	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return -1;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		ibv_dealloc_pd(pd);
		return -1;
	}
	mr = ibv_reg_mr(pd, mr_buf, mr_bytes, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || ibv_dereg_mr(mr))
		bad = 1;
	if (ibv_destroy_cq(cq))
		bad = 1;
	if (ibv_dealloc_pd(pd))
		bad = 1;
	return bad ? -1 : 0;
}

/* One round: a PD, or with -r an MR, created and destroyed; 0 or -1. */
static int one_round(struct ibv_context *ctx)
{
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	if (mix)
		return mix_round(ctx);
	if (mr_bytes) {
		mr = ibv_reg_mr(mr_pd, mr_buf, mr_bytes, IBV_ACCESS_LOCAL_WRITE);
		return mr && !ibv_dereg_mr(mr) ? 0 : -1;
	}
	pd = ibv_alloc_pd(ctx);
	return pd && !ibv_dealloc_pd(pd) ? 0 : -1;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static int rounds(struct ibv_context *ctx, long n, unsigned long long *times)
{
	unsigned long long t = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (times)
			t = now_ns();
		if (one_round(ctx)) {
			printf("rcgbench_pd: error: %s failed at round %ld\n",
			       mix ? "a PD, CQ or MR call" :
			       mr_bytes ? "ibv_reg_mr or ibv_dereg_mr" :
			       "ibv_alloc_pd or ibv_dealloc_pd", i);
			return -1;
		}
		if (times)
			times[i] = now_ns() - t;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	const char *name = NULL;
	struct ibv_context *ctx;
	unsigned long long t0, t1, *lat = NULL;
	long n, warmup = 1000;
	int opt, i, num;

	while ((opt = getopt(argc, argv, "d:w:r:ml")) != -1) {
		switch (opt) {
		case 'l':
			timed = 1;
			break;
		case 'r':
			mr_bytes = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mix = 1;
			break;
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
		printf("usage: rcgbench_pd [-d DEVICE] [-w WARMUP] [-r BYTES] [-m] [-l] N\n");
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
	if (mix && !mr_bytes)
		mr_bytes = 65536;
	if (mr_bytes) {
		/* -m registers its MRs on each round's own PD. */
		mr_pd = mix ? NULL : ibv_alloc_pd(ctx);
		mr_buf = mmap(NULL, mr_bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if ((!mix && !mr_pd) || mr_buf == MAP_FAILED) {
			printf("rcgbench_pd: error: no PD or no buffer for the MRs\n");
			return 1;
		}
		memset(mr_buf, 1, mr_bytes);
	}
	if (timed) {
		lat = calloc(n ? n : 1, sizeof(*lat));
		if (!lat) {
			printf("rcgbench_pd: error: no memory for %ld latencies\n", n);
			return 1;
		}
	}
	if (rounds(ctx, warmup, NULL))
		return 1;
	t0 = now_ns();
	if (rounds(ctx, n, lat))
		return 1;
	t1 = now_ns();
	printf("ok pairs=%ld ns=%llu ns_per_pair=%.1f device=%s", n, t1 - t0,
	       (double)(t1 - t0) / (double)n, ibv_get_device_name(dev));
	if (lat && n) {
		qsort(lat, n, sizeof(*lat), cmp_ull);
		printf(" p50_ns=%llu p99_ns=%llu", lat[n / 2], lat[n * 99 / 100]);
	}
	printf("\n");
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
