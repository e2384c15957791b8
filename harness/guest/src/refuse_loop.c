// SPDX-License-Identifier: GPL-2.0
/*
 * refuse_loop: drive the rdma cgroup refusal paths of ib_core many times.
 *
 * Used by harness/fixes/03-uverbs-get-context-leak.sh, in a cgroup whose
 * rdma.max is "DEV hca_handle=1 hca_object=2".  Every iteration forks a child
 * that:
 *   - opens the device with ibv_open_device() (the one allowed hca_handle),
 *   - creates a PD and a CQ (the two allowed hca_objects),
 *   - tries a second ibv_open_device(): must fail with EAGAIN,
 *   - tries UVERBS_METHOD_GET_CONTEXT by a raw ioctl on a new fd of the
 *     uverbs device: must fail with EAGAIN (this is the ioctl path whatever
 *     libibverbs does),
 *   - tries UVERBS_METHOD_GET_CONTEXT again on the fd that already has a
 *     context: must fail with EINVAL (same error path, no cgroup needed),
 *   - tries one more PD and one more CQ: both must fail with EAGAIN,
 *   - exits, closing everything explicitly on even iterations and leaving it
 *     to process exit on odd ones.
 * Each refusal goes through an ib_core error path that must give back
 * everything the success path would have kept.  Leaks are found afterwards by
 * the caller with kmemleak.
 *
 * Usage: refuse_loop [-d DEV] [-n ITERATIONS] [-g CGROUP_DIR] [-s STEPS] [-v]
 * -g moves this process (and so every child) into CGROUP_DIR first.
 * -s picks the refusals to try, default "orepc": o second ibv_open_device,
 *    r raw GET_CONTEXT on a new fd, e raw GET_CONTEXT on the used fd,
 *    p third object as a PD, c third object as a CQ.  ("-s o" alone shows
 *    whether ibv_open_device() goes through the ioctl path.)
 * Prints one summary line; exits 0 only if every iteration behaved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/siw-abi.h>

#include "util.h"

static const char *dev_name = "siw0";
static const char *steps = "orepc";
static int verbose;

static int step(char c)
{
	return strchr(steps, c) != NULL;
}

/* Child failure codes, reported as the exit status. */
enum {
	RL_OK = 0,
	RL_SETUP = 10,	/* the allowed open or objects failed */
	RL_OPEN2,	/* second ibv_open_device() not refused with EAGAIN */
	RL_RAW_NEW,	/* raw GET_CONTEXT on a new fd not refused with EAGAIN */
	RL_RAW_AGAIN,	/* raw GET_CONTEXT on a used fd not refused with EINVAL */
	RL_PD,		/* PD beyond the limit not refused with EAGAIN */
	RL_CQ,		/* CQ beyond the limit not refused with EAGAIN */
};

static const char *const f_names[] = {
	[RL_SETUP] = "allowed open/PD/CQ failed",
	[RL_OPEN2] = "second ibv_open_device not refused with EAGAIN",
	[RL_RAW_NEW] = "raw GET_CONTEXT on a new fd not refused with EAGAIN",
	[RL_RAW_AGAIN] = "raw GET_CONTEXT on a used fd not refused with EINVAL",
	[RL_PD] = "PD beyond hca_object not refused with EAGAIN",
	[RL_CQ] = "CQ beyond hca_object not refused with EAGAIN",
};

#define RL_MAX ((int)(sizeof(f_names) / sizeof(f_names[0])))

/*
 * UVERBS_METHOD_GET_CONTEXT through RDMA_VERBS_IOCTL.  Returns 0 or the
 * errno of the ioctl.
 */
static int raw_get_context(int fd)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[3];
	} req;
	struct siw_uresp_alloc_ctx uresp;
	uint64_t core_support;
	uint32_t num_comp;

	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req);
	req.hdr.object_id = UVERBS_OBJECT_DEVICE;
	req.hdr.method_id = UVERBS_METHOD_GET_CONTEXT;
	req.hdr.num_attrs = 3;
	req.hdr.driver_id = RDMA_DRIVER_SIW;
	req.attrs[0].attr_id = UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS;
	req.attrs[0].len = sizeof(num_comp);
	req.attrs[0].data = (uintptr_t)&num_comp;
	req.attrs[1].attr_id = UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT;
	req.attrs[1].len = sizeof(core_support);
	req.attrs[1].data = (uintptr_t)&core_support;
	req.attrs[2].attr_id = UVERBS_ATTR_UHW_OUT;
	req.attrs[2].len = sizeof(uresp);
	req.attrs[2].data = (uintptr_t)&uresp;

	if (ioctl(fd, RDMA_VERBS_IOCTL, &req))
		return errno;
	return 0;
}

static int expect(int got, int want, const char *what, int it)
{
	if (got == want)
		return 0;
	fprintf(stderr, "refuse_loop: iteration %d: %s: got %s (%d), want %s\n",
		it, what, got ? strerror(got) : "success", got, strerror(want));
	return 1;
}

static int child(struct ibv_device *dev, const char *uverbs_path, int it)
{
	struct ibv_context *ctx, *ctx2;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq, *cq2;
	int fd, ret, err;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		fprintf(stderr, "refuse_loop: iteration %d: ibv_open_device: %s\n",
			it, strerror(errno));
		return RL_SETUP;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	if (!pd || !cq) {
		fprintf(stderr, "refuse_loop: iteration %d: %s: %s\n", it,
			pd ? "ibv_create_cq" : "ibv_alloc_pd", strerror(errno));
		return RL_SETUP;
	}

	/* hca_handle=1 is used up: a second context must be refused. */
	if (step('o')) {
		errno = 0;
		ctx2 = ibv_open_device(dev);
		err = ctx2 ? 0 : errno;
		if (expect(err, EAGAIN, "second ibv_open_device", it))
			return RL_OPEN2;
	}

	if (step('r')) {
		fd = open(uverbs_path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "refuse_loop: iteration %d: open %s: %s\n",
				it, uverbs_path, strerror(errno));
			return RL_SETUP;
		}
		ret = raw_get_context(fd);
		close(fd);
		if (expect(ret, EAGAIN, "raw GET_CONTEXT on a new fd", it))
			return RL_RAW_NEW;
	}

	if (step('e')) {
		ret = raw_get_context(ctx->cmd_fd);
		if (expect(ret, EINVAL, "raw GET_CONTEXT on a used fd", it))
			return RL_RAW_AGAIN;
	}

	/* hca_object=2 is used up by the PD and the CQ. */
	if (step('p')) {
		errno = 0;
		pd2 = ibv_alloc_pd(ctx);
		err = pd2 ? 0 : errno;
		if (expect(err, EAGAIN, "third object (PD)", it))
			return RL_PD;
	}
	if (step('c')) {
		errno = 0;
		cq2 = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		err = cq2 ? 0 : errno;
		if (expect(err, EAGAIN, "third object (CQ)", it))
			return RL_CQ;
	}

	if (!(it & 1)) {
		ibv_destroy_cq(cq);
		ibv_dealloc_pd(pd);
		ibv_close_device(ctx);
	}
	return RL_OK;
}

int main(int argc, char **argv)
{
	int fails[RL_MAX] = { 0 };
	struct ibv_device **list, *dev = NULL;
	char uverbs_path[4096];
	int iterations = 300;
	const char *cg = NULL;
	int i, n, c, bad = 0;

	while ((c = getopt(argc, argv, "d:n:g:s:v")) != -1) {
		switch (c) {
		case 'd':
			dev_name = optarg;
			break;
		case 'n':
			iterations = atoi(optarg);
			break;
		case 'g':
			cg = optarg;
			break;
		case 's':
			steps = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-d DEV] [-n ITERATIONS] [-g CGROUP_DIR] [-s STEPS] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (cg && join_cgroup(cg))
		return 2;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "refuse_loop: ibv_get_device_list: %s\n",
			strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			dev = list[i];
	if (!dev) {
		fprintf(stderr, "refuse_loop: no device %s\n", dev_name);
		return 2;
	}
	snprintf(uverbs_path, sizeof(uverbs_path), "/dev/infiniband/%s",
		 dev->dev_name);

	for (i = 0; i < iterations; i++) {
		int status;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			perror("refuse_loop: fork");
			return 2;
		}
		if (!pid)
			_exit(child(dev, uverbs_path, i));
		if (waitpid(pid, &status, 0) != pid) {
			perror("refuse_loop: waitpid");
			return 2;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == RL_OK) {
			if (verbose)
				printf("refuse_loop: iteration %d ok\n", i);
			continue;
		}
		bad++;
		if (WIFEXITED(status) && WEXITSTATUS(status) < RL_MAX &&
		    f_names[WEXITSTATUS(status)])
			fails[WEXITSTATUS(status)]++;
		else
			fprintf(stderr,
				"refuse_loop: iteration %d: child status 0x%x\n",
				i, status);
	}
	ibv_free_device_list(list);

	printf("refuse_loop: %d iterations, %d failed\n", iterations, bad);
	for (i = 0; i < RL_MAX; i++)
		if (fails[i])
			printf("refuse_loop: %d x %s\n", fails[i], f_names[i]);
	return bad ? 1 : 0;
}
