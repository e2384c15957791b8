// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_probe: open an RDMA device and create verbs objects one after the
 * other, printing each outcome with its errno, for the demo.
 *
 * Usage: verbs_probe DEV [OBJ...]   OBJ: pd, cq, mr, or hold=SECONDS to
 * keep everything for a while.
 * Exits 0 if everything was created, 1 at the first refusal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static const char *errname(int e)
{
	switch (e) {
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	default: return "errno";
	}
}

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

int main(int argc, char **argv)
{
	static char buf[4096];
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	int i, n;

	if (argc < 2) {
		fprintf(stderr, "usage: verbs_probe DEV [pd|cq|mr|hold=S]...\n");
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
		void *obj = NULL;

		errno = 0;
		if (!strcmp(argv[i], "pd")) {
			obj = pd = ibv_alloc_pd(ctx);
			if (report("ibv_alloc_pd", obj))
				return 1;
		} else if (!strcmp(argv[i], "cq")) {
			obj = ibv_create_cq(ctx, 16, NULL, NULL, 0);
			if (report("ibv_create_cq", obj))
				return 1;
		} else if (!strcmp(argv[i], "mr") && pd) {
			obj = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
			if (report("ibv_reg_mr", obj))
				return 1;
		} else if (!strncmp(argv[i], "hold=", 5)) {
			sleep(atoi(argv[i] + 5));
		} else {
			fprintf(stderr, "verbs_probe: unknown object %s (mr needs a pd first)\n", argv[i]);
			return 2;
		}
	}
	/* everything is released by process exit */
	return 0;
}
