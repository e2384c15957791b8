// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_probe: open an RDMA device and create verbs objects one after the
 * other, printing each outcome with its errno, for the demo and the runc
 * test.
 *
 * Usage: verbs_probe [-k] DEV [STEP...]
 *   STEP: pd, cq, mr (needs a pd first), mr=SIZE (an MR of SIZE bytes, K,
 *   M or G suffixes, on page-aligned memory of its own: it is charged SIZE
 *   rounded up to pages; shown as ibv_reg_mr(BYTES)), open (one more
 *   context on DEV), or wait: keep everything until standard input
 *   reaches end of file.
 *   -k: keep going after a refusal (the refused step holds nothing).
 * Exits 0 if everything was created, 1 after a refusal, 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "util.h"

static int report(const char *what, const void *obj)
{
	int e = errno;

	if (obj) {
		printf("verbs_probe: %-22s ok\n", what);
		return 0;
	}
	printf("verbs_probe: %-22s refused: %s (%s)\n", what, strerror(e), errname(e));
	return 1;
}

/* An MR of @len bytes on fresh, touched memory of its own. */
static struct ibv_mr *reg_sized(struct ibv_pd *pd, unsigned long long len)
{
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	memset(mem, 0x5a, len);
	errno = 0;
	return ibv_reg_mr(pd, mem, len, IBV_ACCESS_LOCAL_WRITE);
}

int main(int argc, char **argv)
{
	static char buf[4096];
	char name[48];
	unsigned long long len;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	int i, n, keep_going = 0, refused = 0;

	/* the caller may read our output while we wait */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "-k")) {
		keep_going = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: verbs_probe [-k] DEV [pd|cq|mr|mr=SIZE|open|wait]...\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			break;
	if (!list || i == n) {
		fprintf(stderr, "verbs_probe: no device %s\n", argv[1]);
		return 2;
	}
	errno = 0;
	ctx = ibv_open_device(list[i]);
	if (report("ibv_open_device", ctx))
		return 1;
	for (i = 2; i < argc; i++) {
		const char *what;
		void *obj;

		errno = 0;
		if (!strcmp(argv[i], "pd")) {
			what = "ibv_alloc_pd";
			obj = ibv_alloc_pd(ctx);
			if (obj && !pd)
				pd = obj;
		} else if (!strcmp(argv[i], "cq")) {
			what = "ibv_create_cq";
			obj = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		} else if (!strcmp(argv[i], "mr") && pd) {
			what = "ibv_reg_mr";
			obj = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		} else if (!strncmp(argv[i], "mr=", 3) && pd &&
			   !parse_bytes(argv[i] + 3, &len) && len) {
			snprintf(name, sizeof(name), "ibv_reg_mr(%llu)", len);
			what = name;
			obj = reg_sized(pd, len);
		} else if (!strcmp(argv[i], "open")) {
			what = "ibv_open_device";
			obj = ibv_open_device(ctx->device);
		} else if (!strcmp(argv[i], "wait")) {
			printf("verbs_probe: holding everything until standard input is closed\n");
			while (read(0, buf, sizeof(buf)) > 0)
				;
			continue;
		} else {
			fprintf(stderr, "verbs_probe: unknown step %s (mr needs a pd first)\n",
				argv[i]);
			return 2;
		}
		if (report(what, obj)) {
			refused = 1;
			if (!keep_going)
				return 1;
		}
	}
	/* everything is released by process exit */
	return refused;
}
