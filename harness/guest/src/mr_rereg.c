// SPDX-License-Identifier: GPL-2.0
/*
 * mr_rereg DEV CG_A CG_B: re-registration of a memory region against
 * rdma.mr_mem, printed as TAP lines 1..5 (45-mr-rereg.sh prints the plan).
 *
 * mr_mem is charged where ib_umem_get() pins pages, to the cgroup of the
 * task that pins, and given back to that cgroup when they are unpinned.
 * The MR is registered in cgroup A. The rereg command goes to the kernel
 * as it is (the write ABI on the device's command file), so that what the
 * provider library would do on its own does not hide the kernel's answer.
 * DEV is rxe, whose driver supports re-registration of the PD and the
 * access flags only: a new translation (IBV_REREG_MR_CHANGE_TRANSLATION)
 * fails in the driver with EOPNOTSUPP before it pins anything. What must
 * hold, with this process's VmPin equal to A's usage throughout:
 *  - a translation rereg that the driver refuses charges nothing, even
 *    where it would not fit, and counts no refusal;
 *  - so does one from another cgroup (B, limit 0);
 *  - a PD rereg keeps the charge in A, and B keeps no hca_object of it;
 *  - dereg from B gives the bytes back to A.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "util.h"

#define PG	4096UL

static const char *dev_name, *cg_a, *cg_b;
static int n, failed;

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failed |= !ok;
}

/* The value after "KEY=" (or the second field if @key is NULL) on DEV's line. */
static long long read_val(const char *cg, const char *file, const char *key)
{
	char path[512], line[512], *p;
	size_t dl = strlen(dev_name);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, dev_name, dl) || line[dl] != ' ')
			continue;
		if (!key) {
			v = strtoll(line + dl + 1, NULL, 10);
			break;
		}
		p = strstr(line, key);
		if (p && p[strlen(key)] == '=')
			v = strtoll(p + strlen(key) + 1, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

static long long mr_mem(const char *cg)
{
	return read_val(cg, "rdma.mr_mem.current", NULL);
}

/* This process's VmPin in bytes, or -1. */
static long long vm_pin(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

static int set_limit(const char *cg, const char *value)
{
	char path[512], text[128];

	snprintf(path, sizeof(path), "%s/rdma.mr_mem.max", cg);
	snprintf(text, sizeof(text), "%s %s", dev_name, value);
	return write_str(path, text);
}

static int join(const char *cg)
{
	int ret = join_cgroup(cg);

	if (ret)
		printf("# joining %s: %s\n", cg, errname(-ret));
	return ret;
}

/* IB_USER_VERBS_CMD_REREG_MR as the kernel receives it; 0 or errno. */
static int rereg(struct ibv_mr *mr, uint32_t flags, void *addr, size_t len,
		 struct ibv_pd *pd)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} req;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = mr->handle;
	req.cmd.flags = flags;
	req.cmd.start = (uintptr_t)addr;
	req.cmd.hca_va = (uintptr_t)addr;
	req.cmd.length = len;
	req.cmd.pd_handle = pd ? pd->handle : 0;
	req.cmd.access_flags = IBV_ACCESS_LOCAL_WRITE;
	if (write(mr->context->cmd_fd, &req, sizeof(req)) == sizeof(req))
		return 0;
	return errno;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd, *pd2;
	struct ibv_mr *mr;
	long long a, b, ev, pin;
	char *buf;
	int i, e;

	if (argc != 4) {
		fprintf(stderr, "usage: mr_rereg DEV CG_A CG_B\n");
		return 2;
	}
	dev_name = argv[1];
	cg_a = argv[2];
	cg_b = argv[3];

	buf = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (buf == MAP_FAILED || !ctx || set_limit(cg_a, "max") ||
	    set_limit(cg_b, "0") || join(cg_a)) {
		printf("# setup failed: %s\n", strerror(errno));
		return 1;
	}
	memset(buf, 1, 16 * PG);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, 2 * PG, IBV_ACCESS_LOCAL_WRITE) : NULL;
	a = mr_mem(cg_a);
	pin = vm_pin();
	result(mr && a == 2 * PG && pin == a,
	       "reg of 2 pages in A: A's mr_mem.current %lld, want %lu, VmPin %lld",
	       a, 2 * PG, pin);
	if (!mr)
		return 1;

	set_limit(cg_a, "12288");
	e = rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, buf, 4 * PG, NULL);
	a = mr_mem(cg_a);
	ev = read_val(cg_a, "rdma.events.local", "mr_mem.max");
	pin = vm_pin();
	result(e == EOPNOTSUPP && a == 2 * PG && ev == 0 && pin == a,
	       "rereg to 4 pages, A's limit 3: %s (want EOPNOTSUPP), A's current %lld (want 8192), A's mr_mem.max events %lld (want 0), VmPin %lld",
	       errname(e), a, ev, pin);

	if (join(cg_b))
		return 1;
	e = rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, buf, 3 * PG, NULL);
	a = mr_mem(cg_a);
	b = mr_mem(cg_b);
	ev = read_val(cg_b, "rdma.events.local", "mr_mem.max");
	pin = vm_pin();
	result(e == EOPNOTSUPP && a == 2 * PG && b == 0 && ev == 0 && pin == a,
	       "rereg from B (limit 0): %s (want EOPNOTSUPP, not EAGAIN), A %lld (want 8192), B %lld (want 0), B's mr_mem.max events %lld (want 0), VmPin %lld",
	       errname(e), a, b, ev, pin);

	pd2 = ibv_alloc_pd(ctx);
	e = pd2 ? rereg(mr, IBV_REREG_MR_CHANGE_PD, NULL, 0, pd2) : errno;
	a = mr_mem(cg_a);
	b = read_val(cg_b, "rdma.current", "hca_object");
	pin = vm_pin();
	result(!e && a == 2 * PG && b == 1 && pin == a,
	       "PD rereg from B: %s (want none), A's mr_mem %lld (want 8192), B's hca_object %lld (want 1: its PD only), VmPin %lld",
	       errname(e), a, b, pin);

	e = ibv_dereg_mr(mr);
	a = mr_mem(cg_a);
	b = mr_mem(cg_b);
	pin = vm_pin();
	result(!e && a == 0 && b == 0 && pin == 0,
	       "dereg from B: %s, A's mr_mem %lld (want 0), B's %lld (want 0), VmPin %lld (want 0)",
	       errname(e), a, b, pin);

	if (pd2)
		ibv_dealloc_pd(pd2);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return failed;
}
