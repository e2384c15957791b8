// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests for the RDMA cgroup controller.
 *
 * The tests drive a real RDMA device through the uverbs write() command
 * interface on /dev/infiniband/uverbsN, so they need nothing but the kernel's
 * uapi headers. Opening a device context charges one hca_handle; every
 * protection domain, completion queue, memory region and queue pair charges
 * one hca_object.
 *
 * All verbs work happens in worker processes: a uverbs file may only be used
 * by the credentials that opened it, and a forked child gets its own copy of
 * the credentials. The test moves each worker into the cgroup under test and
 * then tells it over a pipe what to allocate or free.
 *
 * If no RDMA device exists, the test tries to create a soft-iWARP device on
 * the loopback interface (like "rdma link add siw0 type siw netdev lo").
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <linux/limits.h>
#include <linux/netlink.h>
#include <poll.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/siw-abi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"

#define UNLIMITED	-1L	/* "max" in rdma.max */
#define MAX_CTX		16
#define MAX_OBJ		64
#define WAIT_MS		10000	/* upper bound for anything asynchronous */

static const char * const rdma_files[] = {
	"rdma.max", "rdma.current", "rdma.peak", "rdma.events", "rdma.events.local",
};

/* The device under test: its name and its uverbs character device. */
static char rdma_dev[64];
static char uverbs_path[PATH_MAX];

/*
 * In a freshly forked child: close every inherited descriptor except stdio,
 * @keep1 and @keep2, so that no child holds another worker's pipe open.
 */
static void close_inherited(int keep1, int keep2)
{
	long fd, max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > 4096)
		max = 4096;
	for (fd = 3; fd < max; fd++)
		if (fd != keep1 && fd != keep2)
			close(fd);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * rdma netlink (NETLINK_RDMA, RDMA_NL_NLDEV): look devices up, add and
 * delete soft-RDMA links.
 */

struct nl_req {
	struct nlmsghdr nh;
	char attrs[256];
};

static void nl_init(struct nl_req *req, int cmd, int flags)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(0);
	req->nh.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	req->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	req->nh.nlmsg_seq = 1;
}

static void nl_put(struct nl_req *req, int type, const void *data, int len)
{
	struct nlattr *na = (void *)&req->nh + NLMSG_ALIGN(req->nh.nlmsg_len);

	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	req->nh.nlmsg_len = NLMSG_ALIGN(req->nh.nlmsg_len) + NLA_ALIGN(na->nla_len);
}

static void nl_put_str(struct nl_req *req, int type, const char *str)
{
	nl_put(req, type, str, strlen(str) + 1);
}

static void nl_put_u32(struct nl_req *req, int type, uint32_t val)
{
	nl_put(req, type, &val, sizeof(val));
}

typedef void (*nl_cb)(struct nlattr **tb, void *arg);

/*
 * Sends @req and hands the attributes of every reply message to @cb.
 * Returns 0 or -errno (the kernel's answer for a failed request).
 */
static int nl_talk(struct nl_req *req, nl_cb cb, void *arg)
{
	static uint64_t buf[4096];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, ret = -EPROTO;
	bool done = false;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return -errno;
	if (sendto(fd, req, req->nh.nlmsg_len, 0, (void *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	while (!done) {
		struct nlmsghdr *nh;
		ssize_t len;

		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			ret = -errno;
			break;
		}
		if (len == 0)
			break;
		for (nh = (void *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
			struct nlattr *na;
			int rem;

			if (nh->nlmsg_type == NLMSG_DONE) {
				ret = 0;
				done = true;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				done = true;
				break;
			}
			na = NLMSG_DATA(nh);
			rem = NLMSG_PAYLOAD(nh, 0);
			while (rem >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
			       na->nla_len <= rem) {
				int type = na->nla_type & NLA_TYPE_MASK;

				if (type < RDMA_NLDEV_ATTR_MAX)
					tb[type] = na;
				rem -= NLA_ALIGN(na->nla_len);
				na = (void *)na + NLA_ALIGN(na->nla_len);
			}
			if (cb)
				cb(tb, arg);
		}
	}
out:
	close(fd);
	return ret;
}

static void *nla_data(struct nlattr *na)
{
	return (char *)na + NLA_HDRLEN;
}

struct dev_lookup {
	const char *name;
	int index;
};

static void dev_lookup_cb(struct nlattr **tb, void *arg)
{
	struct dev_lookup *dl = arg;

	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return;
	if (!strcmp(nla_data(tb[RDMA_NLDEV_ATTR_DEV_NAME]), dl->name))
		dl->index = *(uint32_t *)nla_data(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
}

/* Returns the ib_core index of device @name, or -1. */
static int rdma_dev_index(const char *name)
{
	struct dev_lookup dl = { .name = name, .index = -1 };
	struct nl_req req;

	nl_init(&req, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	if (nl_talk(&req, dev_lookup_cb, &dl))
		return -1;
	return dl.index;
}

static void ndev_cb(struct nlattr **tb, void *arg)
{
	if (tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		snprintf(arg, IF_NAMESIZE, "%s",
			 (char *)nla_data(tb[RDMA_NLDEV_ATTR_NDEV_NAME]));
}

/* Finds the network device behind port 1 of RDMA device @index. */
static int rdma_dev_netdev(int index, char *ndev)
{
	struct nl_req req;
	int ret;

	ndev[0] = '\0';
	nl_init(&req, RDMA_NLDEV_CMD_PORT_GET, NLM_F_ACK);
	nl_put_u32(&req, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	nl_put_u32(&req, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	ret = nl_talk(&req, ndev_cb, ndev);
	if (!ret && !ndev[0])
		ret = -ENODEV;
	return ret;
}

static int rdma_link_add(const char *name, const char *type, const char *ndev)
{
	struct nl_req req;

	nl_init(&req, RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);
	nl_put_str(&req, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nl_put_str(&req, RDMA_NLDEV_ATTR_LINK_TYPE, type);
	nl_put_str(&req, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
	return nl_talk(&req, NULL, NULL);
}

static int rdma_link_del(int index)
{
	struct nl_req req;

	nl_init(&req, RDMA_NLDEV_CMD_DELLINK, NLM_F_ACK);
	nl_put_u32(&req, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	return nl_talk(&req, NULL, NULL);
}

/*
 * Finds the uverbs character device of the RDMA device named @want (any
 * device if @want is empty) and records both names. Creates the device node
 * if devtmpfs did not.
 */
static int find_uverbs(const char *want)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	int ret = -1;
	DIR *dir;

	dir = opendir("/sys/class/infiniband_verbs");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		unsigned int major, minor;

		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/ibdev",
			 de->d_name);
		if (read_text(path, buf, sizeof(buf)) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (want[0] && strcmp(buf, want))
			continue;

		snprintf(rdma_dev, sizeof(rdma_dev), "%s", buf);
		snprintf(uverbs_path, sizeof(uverbs_path), "/dev/infiniband/%s",
			 de->d_name);
		ret = 0;
		if (!access(uverbs_path, F_OK))
			break;
		snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/dev",
			 de->d_name);
		if (read_text(path, buf, sizeof(buf)) <= 0 ||
		    sscanf(buf, "%u:%u", &major, &minor) != 2)
			break;
		mkdir("/dev/infiniband", 0755);
		mknod(uverbs_path, S_IFCHR | 0666, makedev(major, minor));
		break;
	}
	closedir(dir);
	return ret;
}

/*
 * uverbs: the legacy write() command interface. A command is a
 * struct ib_uverbs_cmd_hdr followed by the command structure and any driver
 * input; in_words counts the whole write in 32-bit words. The response
 * buffer named in the command receives the core response followed by the
 * driver's, and out_words gives its total size, so every response buffer
 * here has room for driver data (siw insists on it).
 */

enum obj_type { OBJ_PD, OBJ_CQ, OBJ_MR, OBJ_QP, NR_OBJ_TYPES };

static const char * const obj_names[] = { "PD", "CQ", "MR", "QP" };

static int uv_cmd(int fd, uint32_t command, const void *cmd, size_t cmd_len,
		  const void *drv, size_t drv_len, size_t out_len)
{
	uint64_t buf[32];
	struct ib_uverbs_cmd_hdr *hdr = (void *)buf;
	size_t len = sizeof(*hdr) + cmd_len + drv_len;

	if (len > sizeof(buf))
		return -E2BIG;
	hdr->command = command;
	hdr->in_words = len / 4;
	hdr->out_words = out_len / 4;
	memcpy((char *)buf + sizeof(*hdr), cmd, cmd_len);
	if (drv_len)
		memcpy((char *)buf + sizeof(*hdr) + cmd_len, drv, drv_len);
	if (write(fd, buf, len) != (ssize_t)len)
		return -errno;
	return 0;
}

static int uv_get_context(int fd, int *async_fd)
{
	uint64_t resp[16] = {};
	struct ib_uverbs_get_context_resp *r = (void *)resp;
	struct ib_uverbs_get_context cmd = { .response = (uintptr_t)resp };
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd, sizeof(cmd),
		     NULL, 0, sizeof(resp));
	if (!ret)
		*async_fd = r->async_fd;
	return ret;
}

static int uv_comp_channel(int fd, int *chan_fd)
{
	uint64_t resp[16] = {};
	struct ib_uverbs_create_comp_channel_resp *r = (void *)resp;
	struct ib_uverbs_create_comp_channel cmd = { .response = (uintptr_t)resp };
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &cmd,
		     sizeof(cmd), NULL, 0, sizeof(resp));
	if (!ret)
		*chan_fd = r->fd;
	return ret;
}

static int uv_alloc_pd(int fd, uint32_t *handle)
{
	uint64_t resp[16] = {};
	struct ib_uverbs_alloc_pd_resp *r = (void *)resp;
	struct ib_uverbs_alloc_pd cmd = { .response = (uintptr_t)resp };
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &cmd, sizeof(cmd),
		     NULL, 0, sizeof(resp));
	if (!ret)
		*handle = r->pd_handle;
	return ret;
}

static int uv_create_cq(int fd, uint32_t *handle)
{
	uint64_t resp[16] = {};
	struct ib_uverbs_create_cq_resp *r = (void *)resp;
	struct ib_uverbs_create_cq cmd = {
		.response = (uintptr_t)resp,
		.cqe = 4,
		.comp_channel = -1,
	};
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &cmd, sizeof(cmd),
		     NULL, 0, sizeof(resp));
	if (!ret)
		*handle = r->cq_handle;
	return ret;
}

static int uv_reg_mr(int fd, uint32_t pd, uint32_t *handle)
{
	static void *mr_buf = MAP_FAILED;
	uint64_t resp[16] = {};
	struct ib_uverbs_reg_mr_resp *r = (void *)resp;
	struct ib_uverbs_reg_mr cmd = {
		.response = (uintptr_t)resp,
		.length = PAGE_SIZE,
		.pd_handle = pd,
	};
	struct siw_ureq_reg_mr drv = {};
	int ret;

	/* One page, populated, registered as often as needed. */
	if (mr_buf == MAP_FAILED) {
		mr_buf = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mr_buf == MAP_FAILED)
			return -errno;
		memset(mr_buf, 0x5a, PAGE_SIZE);
	}
	cmd.start = (uintptr_t)mr_buf;
	cmd.hca_va = (uintptr_t)mr_buf;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &cmd, sizeof(cmd),
		     &drv, sizeof(drv), sizeof(resp));
	if (!ret)
		*handle = r->mr_handle;
	return ret;
}

static int uv_create_qp(int fd, uint32_t pd, uint32_t cq, uint32_t *handle)
{
	uint64_t resp[16] = {};
	struct ib_uverbs_create_qp_resp *r = (void *)resp;
	struct ib_uverbs_create_qp cmd = {
		.response = (uintptr_t)resp,
		.pd_handle = pd,
		.send_cq_handle = cq,
		.recv_cq_handle = cq,
		.max_send_wr = 1,
		.max_recv_wr = 1,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.qp_type = IB_UVERBS_QPT_RC,
	};
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &cmd, sizeof(cmd),
		     NULL, 0, sizeof(resp));
	if (!ret)
		*handle = r->qp_handle;
	return ret;
}

static int uv_destroy(int fd, enum obj_type type, uint32_t handle)
{
	uint64_t resp[16] = {};

	switch (type) {
	case OBJ_PD: {
		struct ib_uverbs_dealloc_pd cmd = { .pd_handle = handle };

		return uv_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &cmd,
			      sizeof(cmd), NULL, 0, 0);
	}
	case OBJ_CQ: {
		struct ib_uverbs_destroy_cq cmd = {
			.response = (uintptr_t)resp,
			.cq_handle = handle,
		};

		return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &cmd,
			      sizeof(cmd), NULL, 0,
			      sizeof(struct ib_uverbs_destroy_cq_resp));
	}
	case OBJ_MR: {
		struct ib_uverbs_dereg_mr cmd = { .mr_handle = handle };

		return uv_cmd(fd, IB_USER_VERBS_CMD_DEREG_MR, &cmd,
			      sizeof(cmd), NULL, 0, 0);
	}
	case OBJ_QP: {
		struct ib_uverbs_destroy_qp cmd = {
			.response = (uintptr_t)resp,
			.qp_handle = handle,
		};

		return uv_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &cmd,
			      sizeof(cmd), NULL, 0,
			      sizeof(struct ib_uverbs_destroy_qp_resp));
	}
	default:
		return -EINVAL;
	}
}

/*
 * Workers: child processes that own uverbs contexts and objects and act on
 * requests from the test.
 */

enum wop { W_OPEN, W_CLOSE, W_CREATE, W_DESTROY, W_CHANNEL };

static const char * const wop_names[] = {
	"open context", "close context", "create", "destroy", "create channel",
};

struct wreq {
	int op;
	int type;
	int count;	/* W_OPEN, W_CREATE: how many */
	int index;	/* W_CLOSE, W_DESTROY: which one, -1 for the newest */
	int delay_ms;	/* wait this long before acting */
};

struct wres {
	int done;	/* how many of count succeeded */
	int err;	/* errno of the first failure, 0 if none */
};

struct worker {
	pid_t pid;
	int req_fd;
	int res_fd;
};

struct wctx {
	int fd;
	int async_fd;
	bool live;
};

struct wobj {
	int ctx;
	enum obj_type type;
	uint32_t handle;
	bool live;
};

static struct wctx wctx[MAX_CTX];
static struct wobj wobj[MAX_OBJ];
static int nr_wctx, nr_wobj;

static int newest_ctx(void)
{
	int i;

	for (i = nr_wctx - 1; i >= 0; i--)
		if (wctx[i].live)
			return i;
	return -1;
}

static int newest_obj(int ctx, int type)
{
	int i;

	for (i = nr_wobj - 1; i >= 0; i--)
		if (wobj[i].live && (ctx < 0 || wobj[i].ctx == ctx) &&
		    (type < 0 || wobj[i].type == type))
			return i;
	return -1;
}

static int w_open_one(void)
{
	struct wctx *c;
	int ret;

	if (nr_wctx >= MAX_CTX)
		return -ENOSPC;
	c = &wctx[nr_wctx];
	c->fd = open(uverbs_path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	ret = uv_get_context(c->fd, &c->async_fd);
	if (ret) {
		close(c->fd);
		return ret;
	}
	c->live = true;
	nr_wctx++;
	return 0;
}

static int w_close_one(int index)
{
	int i;

	if (index < 0)
		index = newest_ctx();
	if (index < 0 || index >= nr_wctx || !wctx[index].live)
		return -ENOENT;
	close(wctx[index].fd);
	close(wctx[index].async_fd);
	wctx[index].live = false;
	for (i = 0; i < nr_wobj; i++)
		if (wobj[i].ctx == index)
			wobj[i].live = false;
	return 0;
}

static int w_create_one(enum obj_type type)
{
	int ctx = newest_ctx(), pd, cq, ret, fd;
	struct wobj *o;

	if (ctx < 0 || nr_wobj >= MAX_OBJ)
		return -ENOENT;
	fd = wctx[ctx].fd;
	o = &wobj[nr_wobj];
	switch (type) {
	case OBJ_PD:
		ret = uv_alloc_pd(fd, &o->handle);
		break;
	case OBJ_CQ:
		ret = uv_create_cq(fd, &o->handle);
		break;
	case OBJ_MR:
		pd = newest_obj(ctx, OBJ_PD);
		if (pd < 0)
			return -ENOENT;
		ret = uv_reg_mr(fd, wobj[pd].handle, &o->handle);
		break;
	case OBJ_QP:
		pd = newest_obj(ctx, OBJ_PD);
		cq = newest_obj(ctx, OBJ_CQ);
		if (pd < 0 || cq < 0)
			return -ENOENT;
		ret = uv_create_qp(fd, wobj[pd].handle, wobj[cq].handle,
				   &o->handle);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	o->ctx = ctx;
	o->type = type;
	o->live = true;
	nr_wobj++;
	return 0;
}

static int w_destroy_one(int index)
{
	int ret;

	if (index < 0)
		index = newest_obj(-1, -1);
	if (index < 0 || index >= nr_wobj || !wobj[index].live)
		return -ENOENT;
	ret = uv_destroy(wctx[wobj[index].ctx].fd, wobj[index].type,
			 wobj[index].handle);
	if (!ret)
		wobj[index].live = false;
	return ret;
}

static int w_channel(void)
{
	int ctx = newest_ctx(), chan_fd;

	if (ctx < 0)
		return -ENOENT;
	/* The channel fd stays open until the worker exits. */
	return uv_comp_channel(wctx[ctx].fd, &chan_fd);
}

static void worker_main(int req_fd, int res_fd)
{
	struct wreq req;
	struct wres res;

	while (read(req_fd, &req, sizeof(req)) == sizeof(req)) {
		int i, n = req.count ? req.count : 1, ret = 0;

		if (req.delay_ms)
			usleep(req.delay_ms * 1000);
		for (i = 0; i < n && !ret; i++) {
			switch (req.op) {
			case W_OPEN:
				ret = w_open_one();
				break;
			case W_CLOSE:
				ret = w_close_one(req.index);
				break;
			case W_CREATE:
				ret = w_create_one(req.type);
				break;
			case W_DESTROY:
				ret = w_destroy_one(req.index);
				break;
			case W_CHANNEL:
				ret = w_channel();
				break;
			default:
				ret = -EINVAL;
			}
		}
		res.done = ret ? i - 1 : i;
		res.err = -ret;
		if (write(res_fd, &res, sizeof(res)) != sizeof(res))
			break;
	}
	_exit(0);
}

/* Forks a worker and moves it into @cgroup. */
static int worker_start(struct worker *w, const char *cgroup)
{
	int req[2], res[2];

	w->pid = -1;
	if (pipe2(req, O_CLOEXEC))
		return -1;
	if (pipe2(res, O_CLOEXEC)) {
		close(req[0]);
		close(req[1]);
		return -1;
	}
	w->pid = fork();
	if (w->pid == 0) {
		close_inherited(req[0], res[1]);
		worker_main(req[0], res[1]);
	}
	close(req[0]);
	close(res[1]);
	w->req_fd = req[1];
	w->res_fd = res[0];
	if (w->pid < 0) {
		close(w->req_fd);
		close(w->res_fd);
		return -1;
	}
	if (cg_enter(cgroup, w->pid)) {
		ksft_print_msg("cannot move worker into %s\n", cgroup);
		return -1;
	}
	return 0;
}

/* Ends a worker; its contexts and objects are freed when its files close. */
static void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	close(w->req_fd);
	close(w->res_fd);
	if (waitpid(w->pid, NULL, 0) != w->pid)
		ksft_print_msg("waitpid(%d): %s\n", w->pid, strerror(errno));
	w->pid = -1;
}

static int worker_send(struct worker *w, int op, int type, int count,
		       int index, int delay_ms)
{
	struct wreq req = {
		.op = op, .type = type, .count = count, .index = index,
		.delay_ms = delay_ms,
	};

	if (write(w->req_fd, &req, sizeof(req)) != sizeof(req))
		return -1;
	return 0;
}

static int worker_recv(struct worker *w, struct wres *res)
{
	if (read(w->res_fd, res, sizeof(*res)) != sizeof(*res))
		return -1;
	return 0;
}

/*
 * Asks @w to do @op @count times and checks that exactly @done of them
 * succeeded and that the first failure, if any, was @err.
 */
static bool wdo(struct worker *w, int op, int type, int count, int index,
		int done, int err)
{
	struct wres res;

	if (worker_send(w, op, type, count, index, 0) || worker_recv(w, &res)) {
		ksft_print_msg("worker %d does not answer\n", w->pid);
		return false;
	}
	if (res.done == done && res.err == err)
		return true;
	ksft_print_msg("worker %d: %s %s x%d: expected %d done (%s), got %d done (%s)\n",
		       w->pid, wop_names[op], op == W_CREATE ? obj_names[type] : "",
		       count, done, err ? strerror(err) : "no error", res.done,
		       res.err ? strerror(res.err) : "no error");
	return false;
}

/* Shorthands for the common requests. */
static bool w_open(struct worker *w, int count, int done, int err)
{
	return wdo(w, W_OPEN, 0, count, 0, done, err);
}

static bool w_create(struct worker *w, int type, int count, int done, int err)
{
	return wdo(w, W_CREATE, type, count, 0, done, err);
}

static bool w_destroy(struct worker *w, int index)
{
	return wdo(w, W_DESTROY, 0, 1, index, 1, 0);
}

static bool w_close(struct worker *w, int index)
{
	return wdo(w, W_CLOSE, 0, 1, index, 1, 0);
}

/*
 * Reading and writing the interface files.
 */

/* Copies the line of @file that belongs to device @dev, without newline. */
static int dev_line(const char *cgroup, const char *file, const char *dev,
		    char *line, size_t size)
{
	char buf[PAGE_SIZE], *p, *end;
	size_t len = strlen(dev);
	int ret;

	ret = cg_read(cgroup, file, buf, sizeof(buf));
	if (ret)
		return ret;
	for (p = buf; *p; p = end + 1) {
		end = strchrnul(p, '\n');
		if (!strncmp(p, dev, len) && p[len] == ' ') {
			snprintf(line, size, "%.*s", (int)(end - p), p);
			return 0;
		}
		if (!*end)
			break;
	}
	return -ENOENT;
}

static bool expect_line(const char *cgroup, const char *file,
			const char *fmt, ...)
{
	char want[256], got[256];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);

	ret = dev_line(cgroup, file, rdma_dev, got, sizeof(got));
	if (ret) {
		ksft_print_msg("%s/%s: no line for %s: %s\n", cgroup, file,
			       rdma_dev, strerror(-ret));
		return false;
	}
	if (strcmp(want, got)) {
		ksft_print_msg("%s/%s: expected \"%s\", got \"%s\"\n", cgroup,
			       file, want, got);
		return false;
	}
	return true;
}

static const char *val(long v, char *buf)
{
	if (v == UNLIMITED)
		return "max";
	sprintf(buf, "%ld", v);
	return buf;
}

/* Checks a line of rdma.max, rdma.current or rdma.peak. */
static bool expect_res(const char *cgroup, const char *file, long handle,
		       long object)
{
	char b1[24], b2[24];

	return expect_line(cgroup, file, "%s hca_handle=%s hca_object=%s",
			   rdma_dev, val(handle, b1), val(object, b2));
}

static bool expect_usage(const char *cgroup, long handle, long object)
{
	return expect_res(cgroup, "rdma.current", handle, object);
}

/* Checks a line of rdma.events or rdma.events.local. */
static bool expect_events(const char *cgroup, const char *file, long h_max,
			  long h_fail, long o_max, long o_fail)
{
	return expect_line(cgroup, file,
			   "%s hca_handle.max=%ld hca_handle.alloc_fail=%ld hca_object.max=%ld hca_object.alloc_fail=%ld",
			   rdma_dev, h_max, h_fail, o_max, o_fail);
}

static bool expect_no_line(const char *cgroup, const char *file)
{
	char line[256];
	int ret;

	ret = dev_line(cgroup, file, rdma_dev, line, sizeof(line));
	if (ret == -ENOENT)
		return true;
	if (ret)
		ksft_print_msg("%s/%s: %s\n", cgroup, file, strerror(-ret));
	else
		ksft_print_msg("%s/%s: unexpected line \"%s\"\n", cgroup, file,
			       line);
	return false;
}

static int vset_max(const char *cgroup, bool quiet, const char *fmt,
		    va_list ap)
{
	char buf[256];
	int n, ret;

	n = snprintf(buf, sizeof(buf), "%s ", rdma_dev);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	ret = cg_write(cgroup, "rdma.max", buf);
	if (ret && !quiet)
		ksft_print_msg("%s/rdma.max: writing \"%s\": %s\n", cgroup, buf,
			       strerror(-ret));
	return ret;
}

/* Writes "<device> @fmt..." to rdma.max of @cgroup; returns 0 or -errno. */
static int set_max(const char *cgroup, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vset_max(cgroup, false, fmt, ap);
	va_end(ap);
	return ret;
}

/* The same for writes that are meant to fail. */
static int try_max(const char *cgroup, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vset_max(cgroup, true, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Checks the shape of every line in @file: single spaces, no leading or
 * trailing white space, @nkeys "key=value" fields after the device name,
 * values decimal or (if @max_ok) "max".
 */
static bool check_format(const char *cgroup, const char *file,
			 const char * const *keys, int nkeys, bool max_ok)
{
	char buf[PAGE_SIZE], *line, *save, *tok, *tsave;
	int lines = 0;

	if (cg_read(cgroup, file, buf, sizeof(buf))) {
		ksft_print_msg("%s/%s: cannot read\n", cgroup, file);
		return false;
	}
	if (!buf[0] || buf[strlen(buf) - 1] != '\n' || strstr(buf, "\n\n")) {
		ksft_print_msg("%s/%s: bad line structure: \"%s\"\n", cgroup,
			       file, buf);
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);
		int i = -1;

		lines++;
		if (line[0] == ' ' || line[len - 1] == ' ' || strstr(line, "  ") ||
		    strchr(line, '\t'))
			goto bad;
		for (tok = strtok_r(line, " ", &tsave); tok;
		     tok = strtok_r(NULL, " ", &tsave), i++) {
			size_t klen;
			char *v;

			if (i < 0)
				continue;	/* device name */
			if (i >= nkeys)
				goto bad;
			klen = strlen(keys[i]);
			if (strncmp(tok, keys[i], klen) || tok[klen] != '=')
				goto bad;
			v = tok + klen + 1;
			if (max_ok && !strcmp(v, "max"))
				continue;
			if (!*v || strspn(v, "0123456789") != strlen(v))
				goto bad;
		}
		if (i != nkeys)
			goto bad;
	}
	return lines > 0;
bad:
	ksft_print_msg("%s/%s: malformed line \"%s\"\n", cgroup, file, line);
	return false;
}

static bool check_all_formats(const char *cgroup)
{
	static const char * const res_keys[] = { "hca_handle", "hca_object" };
	static const char * const ev_keys[] = {
		"hca_handle.max", "hca_handle.alloc_fail",
		"hca_object.max", "hca_object.alloc_fail",
	};

	return check_format(cgroup, "rdma.max", res_keys, 2, true) &&
	       check_format(cgroup, "rdma.current", res_keys, 2, false) &&
	       check_format(cgroup, "rdma.peak", res_keys, 2, false) &&
	       check_format(cgroup, "rdma.events", ev_keys, 4, false) &&
	       check_format(cgroup, "rdma.events.local", ev_keys, 4, false);
}

/*
 * Cgroup setup: each test builds a small tree of cgroups, cg[0] directly
 * below the root and the others below cg[0] or below each other.
 */
#define MAX_CG 4

struct cgs {
	char *path[MAX_CG];
	int nr;
};

/* Creates @name below @parent (NULL: the root); @nest enables rdma below it. */
static char *cgs_add(struct cgs *cgs, const char *parent, const char *name,
		     bool nest)
{
	char *path = cg_name(parent, name);

	if (!path)
		return NULL;
	if (cg_create(path)) {
		ksft_print_msg("mkdir %s: %s\n", path, strerror(errno));
		free(path);
		return NULL;
	}
	cgs->path[cgs->nr++] = path;
	if (nest && cg_write(path, "cgroup.subtree_control", "+rdma")) {
		ksft_print_msg("%s: cannot enable rdma for children\n", path);
		return NULL;
	}
	return path;
}

static void cgs_destroy(struct cgs *cgs)
{
	while (cgs->nr > 0) {
		char *path = cgs->path[--cgs->nr];

		if (path && cg_destroy(path))
			ksft_print_msg("rmdir %s: %s\n", path, strerror(errno));
		free(path);
	}
}

static void workers_stop(struct worker *w, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		worker_stop(&w[i]);
}

/*
 * The tests. Each returns KSFT_PASS, KSFT_FAIL or KSFT_SKIP.
 */

/* The interface files exist in every cgroup except the root. */
static int test_rdma_root_files(const char *root)
{
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *cg;
	int i;

	for (i = 0; i < ARRAY_SIZE(rdma_files); i++) {
		char *path = cg_control(root, rdma_files[i]);
		bool present = !access(path, F_OK);

		if (present || errno != ENOENT)
			ksft_print_msg("%s: %s\n", path,
				       present ? "present" : strerror(errno));
		free(path);
		if (present || errno != ENOENT)
			goto out;
	}

	cg = cgs_add(&cgs, root, "rdma_test_files", false);
	if (!cg)
		goto out;
	for (i = 0; i < ARRAY_SIZE(rdma_files); i++) {
		char *path = cg_control(cg, rdma_files[i]);
		bool present = !access(path, F_OK);

		if (!present)
			ksft_print_msg("%s: %s\n", path, strerror(errno));
		free(path);
		if (!present)
			goto out;
	}
	ret = KSFT_PASS;
out:
	cgs_destroy(&cgs);
	return ret;
}

/*
 * rdma.max round trip: partial writes keep the other key, keys in any
 * order, "max" and 2147483647 are the same, a bare device name changes
 * nothing, extra white space is accepted. All files are well formed.
 */
static int test_rdma_max_roundtrip(const char *root)
{
	static const struct {
		const char *fmt;	/* %s: the device name */
		long handle, object;
	} steps[] = {
		{ "%s hca_handle=3", 3, UNLIMITED },
		{ "%s hca_object=7", 3, 7 },
		{ "%s hca_object=5 hca_handle=2", 2, 5 },
		{ "%s hca_handle=max", UNLIMITED, 5 },
		{ "%s", UNLIMITED, 5 },
		{ "%s hca_handle=2147483647 hca_object=0", UNLIMITED, 0 },
		{ "%s hca_object=2147483646", UNLIMITED, 2147483646 },
		{ " \t%s \t hca_handle=0\t\thca_object=max\t\t\n", 0, UNLIMITED },
		{ "%s hca_handle=0000000012 hca_object=1", 12, 1 },
		{ "%s hca_handle=max hca_object=max\n", UNLIMITED, UNLIMITED },
	};
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *cg, *other;
	int i;

	cg = cgs_add(&cgs, root, "rdma_test_max", false);
	other = cgs_add(&cgs, root, "rdma_test_max_other", false);
	if (!cg || !other)
		goto out;

	if (!expect_res(cg, "rdma.max", UNLIMITED, UNLIMITED) ||
	    !expect_res(cg, "rdma.current", 0, 0) ||
	    !expect_res(cg, "rdma.peak", 0, 0) ||
	    !expect_events(cg, "rdma.events", 0, 0, 0, 0) ||
	    !expect_events(cg, "rdma.events.local", 0, 0, 0, 0) ||
	    !check_all_formats(cg))
		goto out;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		char buf[128];
		int err;

		snprintf(buf, sizeof(buf), steps[i].fmt, rdma_dev);
		err = cg_write(cg, "rdma.max", buf);
		if (err) {
			ksft_print_msg("writing \"%s\": %s\n", buf, strerror(-err));
			goto out;
		}
		if (!expect_res(cg, "rdma.max", steps[i].handle, steps[i].object) ||
		    !check_all_formats(cg) ||
		    !expect_res(other, "rdma.max", UNLIMITED, UNLIMITED))
			goto out;
	}
	ret = KSFT_PASS;
out:
	cgs_destroy(&cgs);
	return ret;
}

/* Malformed writes fail with the right errno and change nothing. */
static int test_rdma_max_bad_input(const char *root)
{
	static const struct {
		const char *fmt;	/* %s: the device name */
		int err;
	} bad[] = {
		{ "%s hca_handle", EINVAL },
		{ "%s hca_handle=", EINVAL },
		{ "%s hca_handle=ma", EINVAL },
		{ "%s hca_handle=MAX", EINVAL },
		{ "%s hca_handle=maxx", EINVAL },
		{ "%s hca_handle=-1", EINVAL },
		{ "%s hca_handle=+1", EINVAL },
		{ "%s hca_handle=0x10", EINVAL },
		{ "%s hca_handle=5abc", EINVAL },
		{ "%s hca_handle=1.5", EINVAL },
		{ "%s hca_handle=2147483648", EINVAL },
		{ "%s hca_handle=4294967296", EINVAL },
		{ "%s hca_handle=99999999999999999999", EINVAL },
		{ "%s hca_handle=1 hca_handle=2", EINVAL },
		{ "%s hca_object=1 hca_handle=2 hca_object=3", EINVAL },
		{ "%s hca_objects=1", EINVAL },
		{ "%s qp=1", EINVAL },
		{ "%s =1", EINVAL },
		{ "%s hca_handle==1", EINVAL },
		{ "%s hca_handle =1", EINVAL },
		{ "%s hca_handle= 1", EINVAL },
		{ "%s hca_handle=1 hca_object=5abc", EINVAL },
		{ "%s hca_handle=1 hca_object", EINVAL },
		{ "%s hca_handle=1 hca_object=", EINVAL },
		{ "rdma_test_nodev hca_handle=1", ENODEV },
		{ "rdma_test_nodev", ENODEV },
		{ "%shca_handle=1", ENODEV },
	};
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *cg;
	int i;

	cg = cgs_add(&cgs, root, "rdma_test_bad_input", false);
	if (!cg || set_max(cg, "hca_handle=3 hca_object=7"))
		goto out;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char buf[128];
		int err;

		snprintf(buf, sizeof(buf), bad[i].fmt, rdma_dev);
		err = cg_write(cg, "rdma.max", buf);
		if (err != -bad[i].err) {
			ksft_print_msg("writing \"%s\": expected %s, got %s\n", buf,
				       strerror(bad[i].err),
				       err ? strerror(-err) : "success");
			goto out;
		}
		if (!expect_res(cg, "rdma.max", 3, 7))
			goto out;
	}
	ret = KSFT_PASS;
out:
	cgs_destroy(&cgs);
	return ret;
}

/*
 * hca_handle: with a limit of N exactly N contexts open, the next fails with
 * EAGAIN and leaves no charge; closing contexts returns the charge.
 */
static int test_rdma_hca_handle_limit(const char *root)
{
	struct worker w[2] = { { .pid = -1 }, { .pid = -1 } };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *cg;

	cg = cgs_add(&cgs, root, "rdma_test_handle", false);
	if (!cg || set_max(cg, "hca_handle=2") || worker_start(&w[0], cg))
		goto out;

	/* The async event file of a context is not an hca_object. */
	if (!w_open(&w[0], 3, 2, EAGAIN) || !expect_usage(cg, 2, 0) ||
	    !w_open(&w[0], 1, 0, EAGAIN) || !expect_usage(cg, 2, 0) ||
	    !w_close(&w[0], -1) || !expect_usage(cg, 1, 0) ||
	    !w_open(&w[0], 1, 1, 0) || !expect_usage(cg, 2, 0))
		goto out;

	/* Another process in the same cgroup shares the limit. */
	if (worker_start(&w[1], cg) || !w_open(&w[1], 1, 0, EAGAIN) ||
	    !expect_usage(cg, 2, 0))
		goto out;

	worker_stop(&w[0]);
	if (!expect_usage(cg, 0, 0) || !w_open(&w[1], 1, 1, 0) ||
	    !expect_usage(cg, 1, 0))
		goto out;
	worker_stop(&w[1]);
	if (!expect_usage(cg, 0, 0))
		goto out;

	/* A limit of 0 refuses the first context. */
	if (set_max(cg, "hca_handle=0") || worker_start(&w[0], cg) ||
	    !w_open(&w[0], 1, 0, EAGAIN) || !expect_usage(cg, 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	workers_stop(w, 2);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * hca_object: for PD, CQ, MR and QP, with room for exactly N more objects
 * exactly N are created and the next fails with EAGAIN. Completion
 * channels are file descriptors and are not charged.
 */
static int test_rdma_hca_object_limit(const char *root)
{
	static const int prereq[] = {
		[OBJ_PD] = 0, [OBJ_CQ] = 0, [OBJ_MR] = 1, [OBJ_QP] = 2,
	};
	const int n = 3;
	struct worker w = { .pid = -1 };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	int type;
	char *cg;

	cg = cgs_add(&cgs, root, "rdma_test_object", false);
	if (!cg)
		goto out;

	for (type = 0; type < NR_OBJ_TYPES; type++) {
		int p = prereq[type];

		if (set_max(cg, "hca_object=%d", p + n) || worker_start(&w, cg) ||
		    !w_open(&w, 1, 1, 0))
			goto out;
		/* MR needs a PD; QP needs a PD and a CQ. */
		if (p >= 1 && !w_create(&w, OBJ_PD, 1, 1, 0))
			goto out;
		if (p >= 2 && !w_create(&w, OBJ_CQ, 1, 1, 0))
			goto out;
		if (!w_create(&w, type, n + 1, n, EAGAIN) ||
		    !expect_usage(cg, 1, p + n) ||
		    !w_create(&w, type, 1, 0, EAGAIN) ||
		    !expect_usage(cg, 1, p + n) ||
		    !wdo(&w, W_CHANNEL, 0, 1, 0, 1, 0) ||
		    !expect_usage(cg, 1, p + n) ||
		    !w_destroy(&w, -1) || !expect_usage(cg, 1, p + n - 1) ||
		    !w_create(&w, type, 1, 1, 0) || !expect_usage(cg, 1, p + n))
			goto out;
		worker_stop(&w);
		if (!expect_usage(cg, 0, 0))
			goto out;
	}

	/* A limit of 0 refuses the first object. */
	if (set_max(cg, "hca_object=0") || worker_start(&w, cg) ||
	    !w_open(&w, 1, 1, 0) || !w_create(&w, OBJ_PD, 1, 0, EAGAIN) ||
	    !w_create(&w, OBJ_CQ, 1, 0, EAGAIN) || !expect_usage(cg, 1, 0))
		goto out;
	worker_stop(&w);
	if (!expect_usage(cg, 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * Hierarchy: a parent's limit caps children with higher or no limits,
 * siblings add up at the parent, a refused charge leaves nothing behind.
 */
static int test_rdma_hierarchy(const char *root)
{
	struct worker w[3] = { { .pid = -1 }, { .pid = -1 }, { .pid = -1 } };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *p, *c1, *c2;

	p = cgs_add(&cgs, root, "rdma_test_hier", true);
	c1 = p ? cgs_add(&cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&cgs, p, "c2", false) : NULL;
	if (!c1 || !c2 || set_max(p, "hca_handle=2 hca_object=3") ||
	    set_max(c1, "hca_handle=5 hca_object=10"))
		goto out;
	if (!expect_res(c1, "rdma.max", 5, 10) ||
	    !expect_res(c2, "rdma.max", UNLIMITED, UNLIMITED))
		goto out;

	if (worker_start(&w[0], c1) || !w_open(&w[0], 1, 1, 0) ||
	    !w_create(&w[0], OBJ_PD, 2, 2, 0) ||
	    !expect_usage(c1, 1, 2) || !expect_usage(p, 1, 2))
		goto out;

	/* Siblings add up: c2 gets one object before the parent is full. */
	if (worker_start(&w[1], c2) || !w_open(&w[1], 1, 1, 0) ||
	    !w_create(&w[1], OBJ_CQ, 2, 1, EAGAIN) ||
	    !expect_usage(c2, 1, 1) || !expect_usage(p, 2, 3) ||
	    !expect_usage(c1, 1, 2))
		goto out;

	/* c1's own limits are higher, the parent's still apply. */
	if (worker_start(&w[2], c1) || !w_open(&w[2], 1, 0, EAGAIN) ||
	    !w_create(&w[0], OBJ_PD, 1, 0, EAGAIN) ||
	    !expect_usage(c1, 1, 2) || !expect_usage(c2, 1, 1) ||
	    !expect_usage(p, 2, 3))
		goto out;

	/* Room made in one sibling is usable by the other. */
	if (!w_close(&w[1], -1) || !expect_usage(c2, 0, 0) ||
	    !expect_usage(p, 1, 2) || !w_create(&w[0], OBJ_PD, 2, 1, EAGAIN) ||
	    !w_open(&w[2], 1, 1, 0) || !expect_usage(c1, 2, 3) ||
	    !expect_usage(p, 2, 3))
		goto out;

	workers_stop(w, 3);
	if (!expect_usage(c1, 0, 0) || !expect_usage(c2, 0, 0) ||
	    !expect_usage(p, 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	workers_stop(w, 3);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * The cgroup that made a charge owns it: a task that moves on leaves its
 * charges behind, frees them there, and charges new objects to where it is.
 */
static int test_rdma_creator_owns(const char *root)
{
	struct worker w = { .pid = -1 };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *p, *a, *b;

	p = cgs_add(&cgs, root, "rdma_test_owner", true);
	a = p ? cgs_add(&cgs, p, "a", false) : NULL;
	b = p ? cgs_add(&cgs, p, "b", false) : NULL;
	if (!a || !b)
		goto out;

	/* Objects 0 and 1 are charged to a. */
	if (worker_start(&w, a) || !w_open(&w, 1, 1, 0) ||
	    !w_create(&w, OBJ_PD, 2, 2, 0) || !expect_usage(a, 1, 2))
		goto out;

	if (cg_enter(b, w.pid) || !expect_usage(a, 1, 2) ||
	    !expect_usage(b, 0, 0) || !expect_usage(p, 1, 2))
		goto out;

	/* New charges follow the task; a's limit no longer applies to it. */
	if (set_max(a, "hca_object=0") || set_max(b, "hca_object=1") ||
	    !w_create(&w, OBJ_CQ, 2, 1, EAGAIN) || !expect_usage(a, 1, 2) ||
	    !expect_usage(b, 0, 1) || !expect_usage(p, 1, 3))
		goto out;

	/* Freeing returns each charge to its owner. */
	if (!w_destroy(&w, 0) || !expect_usage(a, 1, 1) ||
	    !expect_usage(b, 0, 1) || !w_destroy(&w, 2) ||
	    !expect_usage(a, 1, 1) || !expect_usage(b, 0, 0) ||
	    !expect_usage(p, 1, 1))
		goto out;

	if (!w_close(&w, -1) || !expect_usage(a, 0, 0) ||
	    !expect_usage(b, 0, 0) || !expect_usage(p, 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * A limit set below the current usage keeps existing objects, refuses new
 * ones, and lets allocations through again once usage is below it.
 */
static int test_rdma_limit_below_usage(const char *root)
{
	struct worker w[2] = { { .pid = -1 }, { .pid = -1 } };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *cg;

	cg = cgs_add(&cgs, root, "rdma_test_below", false);
	if (!cg || worker_start(&w[0], cg) || !w_open(&w[0], 1, 1, 0) ||
	    !w_create(&w[0], OBJ_PD, 4, 4, 0) || !expect_usage(cg, 1, 4))
		goto out;

	if (set_max(cg, "hca_handle=0 hca_object=2") ||
	    !expect_res(cg, "rdma.max", 0, 2) || !expect_usage(cg, 1, 4))
		goto out;

	if (!w_create(&w[0], OBJ_PD, 1, 0, EAGAIN) || worker_start(&w[1], cg) ||
	    !w_open(&w[1], 1, 0, EAGAIN) || !expect_usage(cg, 1, 4))
		goto out;

	/* Down to the limit: still refused. */
	if (!w_destroy(&w[0], -1) || !w_destroy(&w[0], -1) ||
	    !expect_usage(cg, 1, 2) || !w_create(&w[0], OBJ_PD, 1, 0, EAGAIN))
		goto out;

	/* Below it: one more fits. */
	if (!w_destroy(&w[0], -1) || !expect_usage(cg, 1, 1) ||
	    !w_create(&w[0], OBJ_PD, 2, 1, EAGAIN) || !expect_usage(cg, 1, 2))
		goto out;

	/* Raising the limit lets allocations through. */
	if (set_max(cg, "hca_object=max") || !w_create(&w[0], OBJ_PD, 1, 1, 0) ||
	    !expect_usage(cg, 1, 3))
		goto out;

	workers_stop(w, 2);
	if (!expect_usage(cg, 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	workers_stop(w, 2);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * A cgroup whose objects are held by a task that moved elsewhere can be
 * removed; the charges stay visible in its parent until they are freed.
 */
static int test_rdma_rmdir_held(const char *root)
{
	struct worker w = { .pid = -1 };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *p, *a, *b;

	p = cgs_add(&cgs, root, "rdma_test_rmdir", true);
	a = p ? cgs_add(&cgs, p, "a", false) : NULL;
	b = p ? cgs_add(&cgs, p, "b", false) : NULL;
	if (!a || !b)
		goto out;

	if (set_max(a, "hca_handle=1 hca_object=2") || worker_start(&w, a) ||
	    !w_open(&w, 1, 1, 0) || !w_create(&w, OBJ_PD, 1, 1, 0) ||
	    !w_create(&w, OBJ_CQ, 1, 1, 0) || !expect_usage(a, 1, 2) ||
	    !expect_usage(p, 1, 2))
		goto out;

	if (cg_enter(b, w.pid))
		goto out;
	if (rmdir(a)) {
		ksft_print_msg("rmdir %s: %s\n", a, strerror(errno));
		goto out;
	}
	if (!access(a, F_OK)) {
		ksft_print_msg("%s still exists\n", a);
		goto out;
	}
	if (!expect_usage(p, 1, 2) || !expect_usage(b, 0, 0))
		goto out;

	/* New objects go to b, the old ones are uncharged from the dead a. */
	if (!w_create(&w, OBJ_PD, 1, 1, 0) || !expect_usage(b, 0, 1) ||
	    !expect_usage(p, 1, 3) || !w_destroy(&w, 0) ||
	    !expect_usage(p, 1, 2) || !expect_usage(b, 0, 1))
		goto out;

	if (!w_close(&w, -1) || !expect_usage(p, 0, 0) || !expect_usage(b, 0, 0))
		goto out;

	/* A new cgroup of the same name starts afresh. */
	if (cg_create(a) || !expect_res(a, "rdma.max", UNLIMITED, UNLIMITED) ||
	    !expect_usage(a, 0, 0) || !expect_res(a, "rdma.peak", 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	cgs_destroy(&cgs);
	return ret;
}

/* rdma.peak keeps the highest usage after a burst is freed. */
static int test_rdma_peak(const char *root)
{
	struct worker w[2] = { { .pid = -1 }, { .pid = -1 } };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *p, *c1, *c2;

	p = cgs_add(&cgs, root, "rdma_test_peak", true);
	c1 = p ? cgs_add(&cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&cgs, p, "c2", false) : NULL;
	if (!c1 || !c2 || !expect_res(c1, "rdma.peak", 0, 0))
		goto out;

	/* A burst: 2 contexts, 5 objects. */
	if (worker_start(&w[0], c1) || !w_open(&w[0], 2, 2, 0) ||
	    !w_create(&w[0], OBJ_PD, 3, 3, 0) || !w_create(&w[0], OBJ_CQ, 2, 2, 0) ||
	    !expect_usage(c1, 2, 5) || !expect_res(c1, "rdma.peak", 2, 5) ||
	    !expect_res(p, "rdma.peak", 2, 5))
		goto out;

	/* Freed: usage drops, the peak stays. */
	if (!w_destroy(&w[0], -1) || !w_destroy(&w[0], -1) ||
	    !w_destroy(&w[0], -1) || !expect_usage(c1, 2, 2) ||
	    !expect_res(c1, "rdma.peak", 2, 5) || !w_close(&w[0], -1) ||
	    !w_close(&w[0], -1) || !expect_usage(c1, 0, 0) ||
	    !expect_res(c1, "rdma.peak", 2, 5) || !expect_res(p, "rdma.peak", 2, 5))
		goto out;

	/* A smaller second burst leaves it alone. */
	if (!w_open(&w[0], 1, 1, 0) || !w_create(&w[0], OBJ_PD, 1, 1, 0) ||
	    !expect_res(c1, "rdma.peak", 2, 5))
		goto out;

	/* Refused charges do not count: the peak stops at the limit. */
	if (set_max(c1, "hca_object=6") || !w_create(&w[0], OBJ_PD, 6, 5, EAGAIN) ||
	    !expect_usage(c1, 1, 6) || !expect_res(c1, "rdma.peak", 2, 6) ||
	    !expect_res(p, "rdma.peak", 2, 6))
		goto out;
	worker_stop(&w[0]);
	if (!expect_usage(c1, 0, 0) || !expect_res(c1, "rdma.peak", 2, 6))
		goto out;

	/* The parent's peak is the sum of what its children held at once. */
	if (worker_start(&w[0], c1) || !w_open(&w[0], 1, 1, 0) ||
	    !w_create(&w[0], OBJ_PD, 4, 4, 0) || worker_start(&w[1], c2) ||
	    !w_open(&w[1], 1, 1, 0) || !w_create(&w[1], OBJ_PD, 4, 4, 0) ||
	    !expect_res(p, "rdma.peak", 2, 8) || !expect_res(c2, "rdma.peak", 1, 4) ||
	    !expect_res(c1, "rdma.peak", 2, 6))
		goto out;
	workers_stop(w, 2);
	if (!expect_usage(p, 0, 0) || !expect_res(p, "rdma.peak", 2, 8))
		goto out;
	ret = KSFT_PASS;
out:
	workers_stop(w, 2);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * A charge that the parent's limit refuses leaves no trace in the peak of
 * the child, which held the unit for a moment, nor in the parent's.
 */
static int test_rdma_peak_refused_above(const char *root)
{
	struct worker w = { .pid = -1 };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *p, *c;

	p = cgs_add(&cgs, root, "rdma_test_peak_above", true);
	c = p ? cgs_add(&cgs, p, "c", false) : NULL;
	if (!c || set_max(p, "hca_object=2") || worker_start(&w, c))
		goto out;
	if (!w_open(&w, 1, 1, 0) || !w_create(&w, OBJ_PD, 3, 2, EAGAIN))
		goto out;
	if (!expect_usage(c, 1, 2) || !expect_res(c, "rdma.peak", 1, 2))
		goto out;
	if (!expect_res(p, "rdma.peak", 1, 2))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	cgs_destroy(&cgs);
	return ret;
}

/*
 * rdma.events and rdma.events.local for a refusal caused by the limit of
 * the requesting cgroup, of its parent, and of its grandparent: ".max" is
 * counted where the limit was hit (and, in rdma.events, in its ancestors);
 * ".alloc_fail" where the request came from (and its ancestors).
 */
static int test_rdma_events_levels(const char *root)
{
	int ret = KSFT_FAIL;
	int limit_at;

	for (limit_at = 0; limit_at < 3; limit_at++) {
		struct worker w[2] = { { .pid = -1 }, { .pid = -1 } };
		struct cgs cgs = {};
		char *cg[3];
		bool ok = false;
		int lvl;

		cg[0] = cgs_add(&cgs, root, "rdma_test_events", true);
		cg[1] = cg[0] ? cgs_add(&cgs, cg[0], "p", true) : NULL;
		cg[2] = cg[1] ? cgs_add(&cgs, cg[1], "c", false) : NULL;
		if (!cg[2] || set_max(cg[limit_at], "hca_handle=1 hca_object=1"))
			goto next;

		if (worker_start(&w[0], cg[2]) || !w_open(&w[0], 1, 1, 0) ||
		    !w_create(&w[0], OBJ_PD, 2, 1, EAGAIN) ||
		    worker_start(&w[1], cg[2]) || !w_open(&w[1], 1, 0, EAGAIN))
			goto next;

		for (lvl = 0; lvl < 3; lvl++) {
			long l_max = lvl == limit_at, l_fail = lvl == 2;
			long h_max = lvl <= limit_at;

			if (!expect_events(cg[lvl], "rdma.events.local", l_max,
					   l_fail, l_max, l_fail) ||
			    !expect_events(cg[lvl], "rdma.events", h_max, 1,
					   h_max, 1) ||
			    !expect_usage(cg[lvl], 1, 1))
				goto next;
		}
		ok = true;
next:
		workers_stop(w, 2);
		cgs_destroy(&cgs);
		if (!ok) {
			ksft_print_msg("with the limit at level %d\n", limit_at);
			return ret;
		}
	}
	return KSFT_PASS;
}

/*
 * rdma.events.local counts only the cgroup's own events, rdma.events also
 * those of all descendants.
 */
static int test_rdma_events_local(const char *root)
{
	struct worker w[3] = { { .pid = -1 }, { .pid = -1 }, { .pid = -1 } };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	char *p, *c1, *c2;

	p = cgs_add(&cgs, root, "rdma_test_local", true);
	c1 = p ? cgs_add(&cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&cgs, p, "c2", false) : NULL;
	if (!c1 || !c2 || set_max(p, "hca_handle=2 hca_object=3") ||
	    set_max(c1, "hca_object=1"))
		goto out;

	/* Two refusals on c1's own limit (the parent has room). */
	if (worker_start(&w[0], c1) || !w_open(&w[0], 1, 1, 0) ||
	    !w_create(&w[0], OBJ_PD, 1, 1, 0) ||
	    !w_create(&w[0], OBJ_PD, 1, 0, EAGAIN) ||
	    !w_create(&w[0], OBJ_CQ, 1, 0, EAGAIN))
		goto out;

	/* c2 has no limit; the parent refuses an object and a context. */
	if (worker_start(&w[1], c2) || !w_open(&w[1], 1, 1, 0) ||
	    !w_create(&w[1], OBJ_PD, 3, 2, EAGAIN) || worker_start(&w[2], c2) ||
	    !w_open(&w[2], 1, 0, EAGAIN))
		goto out;

	if (!expect_events(c1, "rdma.events.local", 0, 0, 2, 2) ||
	    !expect_events(c1, "rdma.events", 0, 0, 2, 2) ||
	    !expect_events(c2, "rdma.events.local", 0, 1, 0, 1) ||
	    !expect_events(c2, "rdma.events", 0, 1, 0, 1) ||
	    !expect_events(p, "rdma.events.local", 1, 0, 1, 0) ||
	    !expect_events(p, "rdma.events", 1, 1, 3, 3))
		goto out;

	/* Events stay when the usage goes. */
	workers_stop(w, 3);
	if (!expect_usage(p, 0, 0) ||
	    !expect_events(p, "rdma.events", 1, 1, 3, 3) ||
	    !expect_events(c1, "rdma.events.local", 0, 0, 2, 2))
		goto out;
	ret = KSFT_PASS;
out:
	workers_stop(w, 3);
	cgs_destroy(&cgs);
	return ret;
}

static bool pending_pri(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLPRI);
}

static int reread(int fd)
{
	char buf[PAGE_SIZE];

	if (lseek(fd, 0, SEEK_SET) || read(fd, buf, sizeof(buf)) <= 0)
		return -1;
	return 0;
}

/*
 * A refusal wakes a poll() on rdma.events of the cgroup whose limit was hit
 * and an inotify watch on rdma.events.local of the requesting cgroup;
 * successful charges do not.
 */
static int test_rdma_events_poll(const char *root)
{
	struct pollfd pfd = { .events = POLLPRI };
	struct worker w = { .pid = -1 };
	char *p, *c, *ev = NULL, *local = NULL;
	int ev_fd = -1, ifd = -1;
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	struct wres res;
	long start, took;

	p = cgs_add(&cgs, root, "rdma_test_poll", true);
	c = p ? cgs_add(&cgs, p, "c", false) : NULL;
	if (!c || set_max(p, "hca_object=1"))
		goto out;
	ev = cg_control(p, "rdma.events");
	local = cg_control(c, "rdma.events.local");

	if (access("/proc/sys/fs/inotify", F_OK)) {
		ksft_print_msg("no inotify in this kernel (CONFIG_INOTIFY_USER)\n");
		ret = KSFT_SKIP;
		goto out;
	}
	ev_fd = open(ev, O_RDONLY | O_CLOEXEC);
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ev_fd < 0 || ifd < 0 || reread(ev_fd) ||
	    inotify_add_watch(ifd, local, IN_MODIFY) < 0) {
		ksft_print_msg("cannot watch %s and %s: %s\n", ev, local,
			       strerror(errno));
		goto out;
	}
	if (pending_pri(ev_fd)) {
		ksft_print_msg("%s: POLLPRI before any event\n", ev);
		goto out;
	}

	if (worker_start(&w, c) || !w_open(&w, 1, 1, 0) ||
	    !w_create(&w, OBJ_PD, 1, 1, 0))
		goto out;
	if (pending_pri(ev_fd)) {
		ksft_print_msg("%s: POLLPRI after a successful charge\n", ev);
		goto out;
	}

	/* Block in poll() while the worker is refused. */
	if (worker_send(&w, W_CREATE, OBJ_PD, 1, 0, 300))
		goto out;
	start = now_ms();
	pfd.fd = ev_fd;
	if (poll(&pfd, 1, WAIT_MS) != 1 || !(pfd.revents & POLLPRI)) {
		ksft_print_msg("%s: no POLLPRI within %d ms\n", ev, WAIT_MS);
		goto out;
	}
	took = now_ms() - start;
	if (worker_recv(&w, &res) || res.done != 0 || res.err != EAGAIN) {
		ksft_print_msg("the worker was not refused\n");
		goto out;
	}
	ksft_print_msg("poll() woke after %ld ms\n", took);

	pfd.fd = ifd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, WAIT_MS) != 1) {
		ksft_print_msg("%s: no inotify event within %d ms\n", local,
			       WAIT_MS);
		goto out;
	} else {
		char buf[sizeof(struct inotify_event) + NAME_MAX + 1];
		struct inotify_event *ie = (void *)buf;

		if (read(ifd, buf, sizeof(buf)) < (ssize_t)sizeof(*ie) ||
		    !(ie->mask & IN_MODIFY)) {
			ksft_print_msg("%s: unexpected inotify event\n", local);
			goto out;
		}
	}
	/* Reading the file again consumes the notification. */
	if (reread(ev_fd) || pending_pri(ev_fd) ||
	    !expect_events(p, "rdma.events", 0, 0, 1, 1) ||
	    !expect_events(c, "rdma.events.local", 0, 0, 0, 1))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	if (ev_fd >= 0)
		close(ev_fd);
	if (ifd >= 0)
		close(ifd);
	free(ev);
	free(local);
	cgs_destroy(&cgs);
	return ret;
}

/* Waits up to @ms for @pid; returns its exit code, or -1 if it is still running. */
static int wait_exit(pid_t pid, int ms)
{
	long end = now_ms() + ms;
	int status;

	do {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		usleep(20000);
	} while (now_ms() < end);
	return -1;
}

/*
 * Removing the device (rdma link del) while a cgroup holds charges and
 * limits for it, then adding it back: nothing breaks, the device's lines
 * go away and come back with no usage and no limits.
 *
 * Drivers without disassociate_ucontext (siw) make the removal wait until
 * every uverbs file is closed; others destroy the objects at once. Either
 * is accepted, and the charges must be gone when the removal finishes.
 */
static int test_rdma_device_removal(const char *root)
{
	char desc[64] = "", ndev[IF_NAMESIZE], path[PATH_MAX];
	struct worker w = { .pid = -1 };
	struct cgs cgs = {};
	int ret = KSFT_FAIL;
	int index, i, err;
	pid_t del = -1;
	char *cg;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_desc", rdma_dev);
	read_text(path, desc, sizeof(desc));
	if (strncmp(desc, SIW_NODE_DESC_COMMON, strlen(SIW_NODE_DESC_COMMON))) {
		ksft_print_msg("%s is not a siw device, not removing it\n", rdma_dev);
		return KSFT_SKIP;
	}
	index = rdma_dev_index(rdma_dev);
	err = index < 0 ? -ENODEV : rdma_dev_netdev(index, ndev);
	if (err) {
		ksft_print_msg("cannot find the netdev of %s: %s\n", rdma_dev,
			       strerror(-err));
		return KSFT_SKIP;
	}

	cg = cgs_add(&cgs, root, "rdma_test_unplug", false);
	if (!cg || set_max(cg, "hca_handle=5 hca_object=10") ||
	    worker_start(&w, cg) || !w_open(&w, 1, 1, 0) ||
	    !w_create(&w, OBJ_PD, 1, 1, 0) || !w_create(&w, OBJ_CQ, 1, 1, 0) ||
	    !w_create(&w, OBJ_MR, 1, 1, 0) || !expect_usage(cg, 1, 3))
		goto out;

	del = fork();
	if (del == 0) {
		/* Must not keep the worker's pipes, or it never sees EOF. */
		close_inherited(-1, -1);
		_exit(rdma_link_del(index) ? 1 : 0);
	}
	if (del < 0)
		goto out;

	err = wait_exit(del, 1000);
	if (err < 0) {
		/* Waiting for the worker's file: the device is still there. */
		ksft_print_msg("%s: removal waits for open uverbs files\n", rdma_dev);
		if (!expect_usage(cg, 1, 3) || !expect_res(cg, "rdma.max", 5, 10))
			goto out;
		worker_stop(&w);
		err = wait_exit(del, 10 * WAIT_MS);
	}
	if (err) {
		ksft_print_msg("rdma link del %s: %s\n", rdma_dev,
			       err < 0 ? "still waiting" : "failed");
		if (err > 0)
			del = -1;
		goto out;
	}
	del = -1;
	worker_stop(&w);

	for (i = 0; i < ARRAY_SIZE(rdma_files); i++)
		if (!expect_no_line(cg, rdma_files[i]))
			goto out;
	if (try_max(cg, "hca_handle=1") != -ENODEV) {
		ksft_print_msg("a limit for a removed device was accepted\n");
		goto out;
	}

	err = rdma_link_add(rdma_dev, "siw", ndev);
	if (err) {
		ksft_print_msg("rdma link add %s type siw netdev %s: %s\n", rdma_dev,
			       ndev, strerror(-err));
		goto out;
	}
	for (i = 0; i < WAIT_MS / 50 && find_uverbs(rdma_dev); i++)
		usleep(50000);

	if (!expect_res(cg, "rdma.max", UNLIMITED, UNLIMITED) ||
	    !expect_usage(cg, 0, 0) || !expect_res(cg, "rdma.peak", 0, 0) ||
	    !expect_events(cg, "rdma.events", 0, 0, 0, 0) ||
	    !check_all_formats(cg))
		goto out;

	/* The new device works and is charged as usual. */
	if (set_max(cg, "hca_object=1") || worker_start(&w, cg) ||
	    !w_open(&w, 1, 1, 0) || !w_create(&w, OBJ_PD, 2, 1, EAGAIN) ||
	    !expect_usage(cg, 1, 1))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	if (del > 0 && wait_exit(del, 10 * WAIT_MS) < 0) {
		ksft_print_msg("rdma link del %s hangs\n", rdma_dev);
		kill(del, SIGKILL);
	}
	cgs_destroy(&cgs);
	return ret;
}

/* Enables rdma below the v2 root, waiting for a v1 hierarchy to let go. */
static bool rdma_back_on_v2(const char *root)
{
	long end = now_ms() + WAIT_MS;

	while (cg_read_strstr(root, "cgroup.subtree_control", "rdma") &&
	       cg_write(root, "cgroup.subtree_control", "+rdma")) {
		if (now_ms() > end)
			return false;
		usleep(50000);
	}
	return true;
}

/*
 * cgroup v1: the rdma controller mounted on a hierarchy of its own offers
 * rdma.max and rdma.current with the same behaviour. Needs the controller
 * to be released by the v2 hierarchy first.
 */
static int test_rdma_v1(const char *root)
{
	char mnt[] = "/tmp/rdma_v1.XXXXXX";
	struct worker w = { .pid = -1 };
	char *t = NULL, *u = NULL, *path;
	int ret = KSFT_FAIL;
	bool mounted = false;
	long end;
	int err;

	if (!cg_read_strstr(root, "cgroup.subtree_control", "rdma") &&
	    cg_write(root, "cgroup.subtree_control", "-rdma")) {
		ksft_print_msg("rdma is in use in the v2 hierarchy\n");
		return KSFT_SKIP;
	}
	if (!mkdtemp(mnt)) {
		ksft_print_msg("mkdtemp: %s\n", strerror(errno));
		ret = KSFT_SKIP;
		goto restore;
	}
	/* The v2 css of the controller goes away asynchronously. */
	end = now_ms() + WAIT_MS;
	while (mount("rdma", mnt, "cgroup", 0, "rdma")) {
		if (errno != EBUSY || now_ms() > end) {
			ksft_print_msg("mount -t cgroup -o rdma: %s\n", strerror(errno));
			ret = KSFT_SKIP;
			goto out;
		}
		usleep(50000);
	}
	mounted = true;

	path = cg_control(mnt, "rdma.max");
	err = access(path, F_OK) ? errno : 0;
	free(path);
	if (err != ENOENT) {
		ksft_print_msg("v1 root: rdma.max %s\n", err ? strerror(err) : "exists");
		goto out;
	}

	t = cg_name(mnt, "t");
	u = cg_name(t, "u");
	if (cg_create(t) || cg_create(u)) {
		ksft_print_msg("mkdir in %s: %s\n", mnt, strerror(errno));
		goto out;
	}
	if (!expect_res(t, "rdma.max", UNLIMITED, UNLIMITED) ||
	    !expect_usage(t, 0, 0) || set_max(t, "hca_handle=1 hca_object=2") ||
	    !expect_res(t, "rdma.max", 1, 2))
		goto out;
	err = try_max(t, "hca_object=ma");
	if (err != -EINVAL) {
		ksft_print_msg("v1: writing \"hca_object=ma\": %s\n",
			       err ? strerror(-err) : "accepted");
		goto out;
	}
	if (!expect_res(t, "rdma.max", 1, 2))
		goto out;

	/* Hierarchical in v1 too: t's limits apply to u. */
	if (worker_start(&w, u) || !w_open(&w, 2, 1, EAGAIN) ||
	    !w_create(&w, OBJ_PD, 3, 2, EAGAIN) || !expect_usage(u, 1, 2) ||
	    !expect_usage(t, 1, 2))
		goto out;
	worker_stop(&w);
	if (!expect_usage(u, 0, 0) || !expect_usage(t, 0, 0))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(&w);
	if (u)
		cg_destroy(u);
	if (t)
		cg_destroy(t);
	free(u);
	free(t);
	if (mounted && umount(mnt))
		ksft_print_msg("umount %s: %s\n", mnt, strerror(errno));
	/*
	 * Unmounting kills the v1 hierarchy only if it has no children left,
	 * and removed cgroups linger for a moment: if the controller does not
	 * come back to v2, mount and unmount the hierarchy once more.
	 */
	if (mounted && !rdma_back_on_v2(root)) {
		if (!mount("rdma", mnt, "cgroup", 0, "rdma"))
			umount(mnt);
		if (!rdma_back_on_v2(root)) {
			ksft_print_msg("cannot give rdma back to cgroup v2\n");
			ret = KSFT_FAIL;
		}
	}
	rmdir(mnt);
restore:
	if (!rdma_back_on_v2(root)) {
		ksft_print_msg("cannot enable rdma on cgroup v2 again\n");
		ret = KSFT_FAIL;
	}
	return ret;
}

#define T(x) { x, #x }
static const struct rdma_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_rdma_root_files),
	T(test_rdma_max_roundtrip),
	T(test_rdma_max_bad_input),
	T(test_rdma_hca_handle_limit),
	T(test_rdma_hca_object_limit),
	T(test_rdma_hierarchy),
	T(test_rdma_creator_owns),
	T(test_rdma_limit_below_usage),
	T(test_rdma_rmdir_held),
	T(test_rdma_peak),
	T(test_rdma_peak_refused_above),
	T(test_rdma_events_levels),
	T(test_rdma_events_local),
	T(test_rdma_events_poll),
	T(test_rdma_device_removal),
	T(test_rdma_v1),
};

#undef T

int main(int argc, char **argv)
{
	bool created = false;
	char root[PATH_MAX];
	int i;

	ksft_print_header();

	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.controllers", "rdma"))
		ksft_exit_skip("rdma controller isn't available\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "rdma") &&
	    cg_write(root, "cgroup.subtree_control", "+rdma"))
		ksft_exit_skip("Failed to set rdma controller\n");

	if (find_uverbs("")) {
		int err = rdma_link_add("siw0", "siw", "lo");

		if (err)
			ksft_exit_skip("no RDMA device, and creating siw0 on lo failed: %s\n",
				       strerror(-err));
		created = true;
		for (i = 0; i < WAIT_MS / 50 && find_uverbs("siw0"); i++)
			usleep(50000);
		if (!uverbs_path[0])
			ksft_exit_skip("siw0 has no uverbs device\n");
	}
	ksft_print_msg("using %s (%s)\n", rdma_dev, uverbs_path);

	signal(SIGPIPE, SIG_IGN);
	ksft_set_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		switch (tests[i].fn(root)) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s\n", tests[i].name);
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}

	if (created) {
		int index = rdma_dev_index("siw0");

		if (index >= 0)
			rdma_link_del(index);
	}
	ksft_finished();
}
