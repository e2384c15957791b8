// SPDX-License-Identifier: GPL-2.0
/*
 * Plumbing of test_rdma, the tests of the RDMA cgroup controller.
 *
 * The tests drive a real RDMA device through the uverbs write() command
 * interface on /dev/infiniband/uverbsN, so they need nothing but the
 * kernel's uapi headers. All verbs work happens in worker processes: a
 * uverbs file may only be used by the credentials that opened it, and a
 * forked child gets its own copy of the credentials. The test moves each
 * worker into the cgroup under test and then tells it over a pipe what to
 * allocate or free.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/limits.h>
#include <linux/netlink.h>
#include <poll.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/siw-abi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "rdma_util.h"

#define MAX_CTX		16	/* contexts of one worker */
#define MAX_OBJ		64	/* objects of one worker */

char rdma_dev[64];
char uverbs_path[PATH_MAX];
char *mr_buf;
bool have_mr_mem;

/*
 * In a freshly forked child: close every inherited descriptor except stdio,
 * @keep1 and @keep2, so that no child holds another worker's pipe open.
 */
void close_inherited(int keep1, int keep2)
{
	long fd, max = sysconf(_SC_OPEN_MAX);

	if (max < 0 || max > 4096)
		max = 4096;
	for (fd = 3; fd < max; fd++)
		if (fd != keep1 && fd != keep2)
			close(fd);
}

long now_ms(void)
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
int rdma_dev_index(const char *name)
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
int rdma_dev_netdev(int index, char *ndev)
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

int rdma_link_add(const char *name, const char *type, const char *ndev)
{
	struct nl_req req;

	nl_init(&req, RDMA_NLDEV_CMD_NEWLINK, NLM_F_ACK);
	nl_put_str(&req, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nl_put_str(&req, RDMA_NLDEV_ATTR_LINK_TYPE, type);
	nl_put_str(&req, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
	return nl_talk(&req, NULL, NULL);
}

int rdma_link_del(int index)
{
	struct nl_req req;

	nl_init(&req, RDMA_NLDEV_CMD_DELLINK, NLM_F_ACK);
	nl_put_u32(&req, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	return nl_talk(&req, NULL, NULL);
}

/*
 * Makes a device @name of @type on lo unless one of that name exists, and
 * waits until it is registered. Returns 1 if it made it, 0 if it was
 * there, or -errno.
 */
int rdma_dev_add_lo(const char *name, const char *type)
{
	int err, i;

	if (rdma_dev_index(name) >= 0)
		return 0;
	err = rdma_link_add(name, type, "lo");
	if (err)
		return err;
	for (i = 0; i < WAIT_MS / 50 && rdma_dev_index(name) < 0; i++)
		usleep(50000);
	return rdma_dev_index(name) < 0 ? -ETIMEDOUT : 1;
}

/* Deletes the device @name: 0, or -1 after saying why. */
int rdma_dev_del(const char *name)
{
	int i = rdma_dev_index(name), err;

	err = i < 0 ? -ENODEV : rdma_link_del(i);
	if (err)
		ksft_print_msg("cannot delete %s: %s\n", name, strerror(-err));
	return err ? -1 : 0;
}

/*
 * Finds the uverbs character device of the RDMA device named @want (any
 * device if @want is empty) and records both names. Creates the device node
 * if devtmpfs did not.
 */
int find_uverbs(const char *want)
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

/*
 * Registers @length bytes at @offset into @buf as an MR of PD @pd, at the
 * same I/O virtual address. The sum is not checked here, so that a test
 * can ask for ranges that overflow.
 */
static int uv_reg_mr(int fd, uint32_t pd, const void *buf, uint64_t offset,
		     uint64_t length, uint32_t *handle)
{
	uint64_t resp[16] = {};
	struct ib_uverbs_reg_mr_resp *r = (void *)resp;
	struct ib_uverbs_reg_mr cmd = {
		.response = (uintptr_t)resp,
		.start = (uintptr_t)buf + offset,
		.hca_va = (uintptr_t)buf + offset,
		.length = length,
		.pd_handle = pd,
	};
	struct siw_ureq_reg_mr drv = {};
	int ret;

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

static const char * const wop_names[] = {
	"open context", "close context", "create", "destroy", "create channel",
	"fork",
};

struct wreq {
	int op;
	int type;
	int count;	/* W_OPEN, W_CREATE: how many */
	int index;	/* W_CLOSE, W_DESTROY: which one, -1 for the newest */
	int delay_ms;	/* wait this long before acting */
	uint64_t offset;	/* W_CREATE of an MR: where in mr_buf */
	uint64_t length;	/* and how many bytes */
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

static int w_create_one(enum obj_type type, uint64_t offset, uint64_t length)
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
		ret = uv_reg_mr(fd, wobj[pd].handle, mr_buf, offset, length,
				&o->handle);
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

/* A child of the worker, forked with W_FORK; it waits to be killed. */
static pid_t w_child = -1;

/* W_FORK with count 1: fork w_child; with index -1: kill and reap it. */
static int w_fork_one(int index)
{
	if (index < 0) {
		if (w_child <= 0)
			return -ENOENT;
		kill(w_child, SIGKILL);
		if (waitpid(w_child, NULL, 0) != w_child)
			return -errno;
		w_child = -1;
		return 0;
	}
	if (w_child > 0)
		return -EEXIST;
	w_child = fork();
	if (w_child < 0)
		return -errno;
	if (!w_child) {
		for (;;)
			pause();
	}
	return 0;
}

static void worker_main(int req_fd, int res_fd)
{
	struct wreq req;
	struct wres res;

	/* Pages of its own, written once: see mr_buf_map(). */
	memset(mr_buf, 0x5a, MR_BUF_PAGES * PAGE_SIZE);
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
				ret = w_create_one(req.type, req.offset,
						   req.length);
				break;
			case W_DESTROY:
				ret = w_destroy_one(req.index);
				break;
			case W_CHANNEL:
				ret = w_channel();
				break;
			case W_FORK:
				ret = w_fork_one(req.index);
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
	if (w_child > 0)
		w_fork_one(-1);
	_exit(0);
}

/* Moves worker @w into @cgroup; returns 0 or -1. */
int worker_move(struct worker *w, const char *cgroup)
{
	if (cg_enter(cgroup, w->pid)) {
		ksft_print_msg("cannot move worker %d into %s: %s\n", w->pid,
			       cgroup, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Maps mr_buf in the test process, so that every worker has it at the same
 * address and the test can compute ranges in it: MR_BUF_PAGES pages, then
 * one page without access. A worker writes its copy before it registers
 * anything, because a never-touched page would be the shared zero page.
 */
static int mr_buf_map(void)
{
	size_t len = (MR_BUF_PAGES + 1) * PAGE_SIZE;
	char *buf;

	if (mr_buf)
		return 0;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		ksft_print_msg("mmap: %s\n", strerror(errno));
		return -1;
	}
	if (mprotect(buf + MR_BUF_PAGES * PAGE_SIZE, PAGE_SIZE, PROT_NONE)) {
		ksft_print_msg("mprotect: %s\n", strerror(errno));
		munmap(buf, len);
		return -1;
	}
	mr_buf = buf;
	return 0;
}

/* Forks a worker and moves it into @cgroup; returns 0 or -1. */
int worker_start(struct worker *w, const char *cgroup)
{
	int req[2], res[2];

	w->pid = -1;
	if (mr_buf_map())
		return -1;
	if (pipe2(req, O_CLOEXEC)) {
		ksft_print_msg("pipe2: %s\n", strerror(errno));
		return -1;
	}
	if (pipe2(res, O_CLOEXEC)) {
		ksft_print_msg("pipe2: %s\n", strerror(errno));
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
		ksft_print_msg("fork: %s\n", strerror(errno));
		close(w->req_fd);
		close(w->res_fd);
		return -1;
	}
	return worker_move(w, cgroup);
}

/* Ends a worker; its contexts and objects are freed when its files close. */
void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	close(w->req_fd);
	close(w->res_fd);
	if (waitpid(w->pid, NULL, 0) != w->pid)
		ksft_print_msg("waitpid(%d): %s\n", w->pid, strerror(errno));
	w->pid = -1;
}

static int worker_send_req(struct worker *w, const struct wreq *req)
{
	if (write(w->req_fd, req, sizeof(*req)) != sizeof(*req)) {
		ksft_print_msg("worker %d: cannot send a request: %s\n", w->pid,
			       strerror(errno));
		return -1;
	}
	return 0;
}

/* Sends a request; an MR it creates is the first page of mr_buf. */
int worker_send(struct worker *w, const struct wcmd *cmd)
{
	struct wreq req = {
		.op = cmd->op, .type = cmd->type, .count = cmd->count,
		.index = cmd->index, .delay_ms = cmd->delay_ms,
		.offset = 0, .length = PAGE_SIZE,
	};

	return worker_send_req(w, &req);
}

int worker_recv(struct worker *w, struct wres *res)
{
	ssize_t n = read(w->res_fd, res, sizeof(*res));

	if (n != sizeof(*res)) {
		ksft_print_msg("worker %d does not answer: %s\n", w->pid,
			       n < 0 ? strerror(errno) : "end of file");
		return -1;
	}
	return 0;
}

/*
 * Asks @w to do @call->op @call->count times and checks that exactly
 * @call->done of them succeeded and that the first failure, if any, was
 * @call->err.
 */
bool wdo(struct worker *w, const struct wcall *call)
{
	int op = call->op, type = call->type, count = call->count;
	int done = call->done, err = call->err;
	struct wcmd cmd = {
		.op = op, .type = type, .count = count, .index = call->index,
		.delay_ms = 0,
	};
	struct wres res;

	if (worker_send(w, &cmd) || worker_recv(w, &res))
		return false;
	if (res.done == done && res.err == err)
		return true;
	ksft_print_msg("worker %d: %s %s x%d: expected %d done (%s), got %d done (%s)\n",
		       w->pid, wop_names[op], op == W_CREATE ? obj_names[type] : "",
		       count, done, err ? strerror(err) : "no error", res.done,
		       res.err ? strerror(res.err) : "no error");
	return false;
}

/*
 * Asks @w to register an MR of @mr->length bytes at @mr->offset into
 * mr_buf, with the newest PD of its newest context, and checks that it
 * fails with @mr->err or succeeds if @mr->err is 0.
 */
bool w_reg_mr(struct worker *w, const struct wmr *mr)
{
	int err = mr->err;
	struct wreq req = {
		.op = W_CREATE, .type = OBJ_MR, .count = 1,
		.offset = mr->offset, .length = mr->length,
	};
	struct wres res;

	if (worker_send_req(w, &req) || worker_recv(w, &res))
		return false;
	if (res.done == !err && res.err == err)
		return true;
	ksft_print_msg("worker %d: MR of %llu bytes at offset %llu: expected %s, got %s\n",
		       w->pid, (unsigned long long)mr->length,
		       (unsigned long long)mr->offset,
		       err ? strerror(err) : "success",
		       res.err ? strerror(res.err) : "success");
	return false;
}

/*
 * Checks that worker @w has @bytes pinned: VmPin in /proc/PID/status, the
 * pages that ib_umem_get() added to its pinned_vm.
 */
bool expect_pinned(struct worker *w, uint64_t bytes)
{
	char path[64], buf[PAGE_SIZE], *p;
	unsigned long long kb;

	snprintf(path, sizeof(path), "/proc/%d/status", w->pid);
	if (read_text(path, buf, sizeof(buf)) <= 0) {
		ksft_print_msg("cannot read %s: %s\n", path, strerror(errno));
		return false;
	}
	p = strstr(buf, "\nVmPin:");
	if (!p || sscanf(p + 7, "%llu kB", &kb) != 1) {
		ksft_print_msg("%s: no VmPin line\n", path);
		return false;
	}
	if (kb * 1024 == bytes)
		return true;
	ksft_print_msg("worker %d: expected %llu bytes pinned, got %llu\n",
		       w->pid, (unsigned long long)bytes, kb * 1024);
	return false;
}

/*
 * Makes worker @w fork a child that pins nothing and waits (@child), or
 * kill and reap that child (!@child).
 */
bool w_fork(struct worker *w, bool child)
{
	return wdo(w, &(struct wcall){ .op = W_FORK, .count = 1,
				      .index = child ? 0 : -1, .done = 1 });
}

/* VmPin of process @pid in bytes, or -1. */
static long long vmpin_of(const char *pid)
{
	char path[64], buf[PAGE_SIZE], *p;
	unsigned long long kb;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nVmPin:");
	if (!p || sscanf(p + 7, "%llu kB", &kb) != 1)
		return -1;
	return kb * 1024;
}

/*
 * Adds to *@sum the VmPin of every process in @cgroup and its descendants;
 * returns false if one cannot be read.
 */
static bool vmpin_sum(const char *cgroup, uint64_t *sum, int *procs)
{
	char path[PATH_MAX], buf[PAGE_SIZE], *line, *save;
	struct dirent *de;
	long long pin;
	bool ok = true;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	if (read_text(path, buf, sizeof(buf)) < 0) {
		ksft_print_msg("cannot read %s: %s\n", path, strerror(errno));
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		pin = vmpin_of(line);
		if (pin < 0) {
			ksft_print_msg("no VmPin for process %s\n", line);
			return false;
		}
		*sum += pin;
		(*procs)++;
	}
	dir = opendir(cgroup);
	if (!dir)
		return false;
	while (ok && (de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", cgroup, de->d_name);
		ok = vmpin_sum(path, sum, procs);
	}
	closedir(dir);
	return ok;
}

/*
 * Checks that the processes of @cgroup and its descendants have @bytes
 * pinned in all (the sum of their VmPin) and that rdma.mr_mem.current of
 * @cgroup on rdma_dev says the same.
 */
bool expect_vmpin(const char *cgroup, uint64_t bytes)
{
	uint64_t sum = 0;
	int procs = 0;

	if (!vmpin_sum(cgroup, &sum, &procs))
		return false;
	if (sum != bytes) {
		ksft_print_msg("%s: the VmPin of its %d processes adds up to %llu, expected %llu\n",
			       cgroup, procs, (unsigned long long)sum,
			       (unsigned long long)bytes);
		return false;
	}
	return expect_mr_usage(cgroup, bytes);
}

/* Shorthands for the common requests. */
bool w_open(struct worker *w, const struct wopen *req)
{
	return wdo(w, &(struct wcall){ .op = W_OPEN, .type = 0,
				       .count = req->count, .index = 0,
				       .done = req->done, .err = req->err });
}

bool w_create(struct worker *w, const struct wcreate *req)
{
	return wdo(w, &(struct wcall){ .op = W_CREATE, .type = req->type,
				       .count = req->count, .index = 0,
				       .done = req->done, .err = req->err });
}

bool w_destroy(struct worker *w, int index)
{
	return wdo(w, &(struct wcall){ .op = W_DESTROY, .type = 0,
				       .count = 1, .index = index,
				       .done = 1, .err = 0 });
}

bool w_close(struct worker *w, int index)
{
	return wdo(w, &(struct wcall){ .op = W_CLOSE, .type = 0,
				       .count = 1, .index = index,
				       .done = 1, .err = 0 });
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
bool expect_res(const char *cgroup, const char *file, const struct hca *res)
{
	char b1[24], b2[24];

	return expect_line(cgroup, file, "%s hca_handle=%s hca_object=%s",
			   rdma_dev, val(res->handle, b1),
			   val(res->object, b2));
}

bool expect_usage(const char *cgroup, const struct hca *res)
{
	return expect_res(cgroup, "rdma.current", res);
}

/*
 * Checks a line of rdma.events or rdma.events.local.
 * A kernel without mr_mem has only the hca_* keys.
 */
bool expect_events(const char *cgroup, const char *file,
		   const struct events *ev)
{
	long h_max = ev->handle_max, h_fail = ev->handle_fail;
	long o_max = ev->object_max, o_fail = ev->object_fail;
	long m_max = ev->mr_max, m_fail = ev->mr_fail;

	if (have_mr_mem)
		return expect_line(cgroup, file,
				   "%s hca_handle.max=%ld hca_handle.alloc_fail=%ld hca_object.max=%ld hca_object.alloc_fail=%ld mr_mem.max=%ld mr_mem.alloc_fail=%ld",
				   rdma_dev, h_max, h_fail, o_max, o_fail, m_max, m_fail);
	return expect_line(cgroup, file,
			   "%s hca_handle.max=%ld hca_handle.alloc_fail=%ld hca_object.max=%ld hca_object.alloc_fail=%ld",
			   rdma_dev, h_max, h_fail, o_max, o_fail);
}

/* Checks the line of rdma.mr_mem.max, .current or .peak; MR_MAX is "max". */
bool expect_mr_mem(const char *cgroup, const char *file, uint64_t bytes)
{
	char b[24] = "max";

	if (bytes != MR_MAX)
		snprintf(b, sizeof(b), "%llu", (unsigned long long)bytes);
	return expect_line(cgroup, file, "%s %s", rdma_dev, b);
}

bool expect_mr_usage(const char *cgroup, uint64_t bytes)
{
	return expect_mr_mem(cgroup, "rdma.mr_mem.current", bytes);
}

/* The line of @file for device @dev is "@dev @want". */
bool expect_dev_line(const char *cgroup, const char *file, const char *dev,
		     const char *want)
{
	char got[256];
	int ret;

	ret = dev_line(cgroup, file, dev, got, sizeof(got));
	if (ret) {
		ksft_print_msg("%s/%s: no line for %s: %s\n", cgroup, file,
			       dev, strerror(-ret));
		return false;
	}
	if (strncmp(got, dev, strlen(dev)) || strcmp(got + strlen(dev) + 1, want)) {
		ksft_print_msg("%s/%s: expected \"%s %s\", got \"%s\"\n", cgroup,
			       file, dev, want, got);
		return false;
	}
	return true;
}

bool expect_no_line(const char *cgroup, const char *file)
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

static int vset_file(const char *cgroup, const char *file, bool quiet,
		     const char *fmt, va_list ap)
{
	char buf[256];
	int n, ret;

	n = snprintf(buf, sizeof(buf), "%s ", rdma_dev);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	ret = cg_write(cgroup, file, buf);
	if (ret && !quiet)
		ksft_print_msg("%s/%s: writing \"%s\": %s\n", cgroup, file,
			       buf, strerror(-ret));
	return ret;
}

/* Writes "<device> @fmt..." to rdma.max of @cgroup; returns 0 or -errno. */
int set_max(const char *cgroup, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vset_file(cgroup, "rdma.max", false, fmt, ap);
	va_end(ap);
	return ret;
}

/* The same for writes that are meant to fail. */
int try_max(const char *cgroup, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vset_file(cgroup, "rdma.max", true, fmt, ap);
	va_end(ap);
	return ret;
}

/* Writes "<device> @fmt..." to rdma.mr_mem.max; returns 0 or -errno. */
int set_mr_max(const char *cgroup, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vset_file(cgroup, "rdma.mr_mem.max", false, fmt, ap);
	va_end(ap);
	return ret;
}

/* The same for writes that are meant to fail. */
int try_mr_max(const char *cgroup, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vset_file(cgroup, "rdma.mr_mem.max", true, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Checks the shape of every line in @file: single spaces, no leading or
 * trailing white space, @nkeys "key=value" fields after the device name
 * (or, if @keys is NULL, one plain value), values decimal or (if @max_ok)
 * "max".
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
			v = tok;
			if (keys) {
				klen = strlen(keys[i]);
				if (strncmp(tok, keys[i], klen) || tok[klen] != '=')
					goto bad;
				v = tok + klen + 1;
			}
			if (max_ok && !strcmp(v, "max"))
				continue;
			if (!*v || strspn(v, "0123456789") != strlen(v))
				goto bad;
		}
		if (i != nkeys)
			goto bad;
	}
	if (!lines)
		ksft_print_msg("%s/%s: no line\n", cgroup, file);
	return lines > 0;
bad:
	ksft_print_msg("%s/%s: malformed line \"%s\"\n", cgroup, file, line);
	return false;
}

bool check_all_formats(const char *cgroup)
{
	static const char * const res_keys[] = { "hca_handle", "hca_object" };
	static const char * const ev_keys[] = {
		"hca_handle.max", "hca_handle.alloc_fail",
		"hca_object.max", "hca_object.alloc_fail",
		"mr_mem.max", "mr_mem.alloc_fail",
	};
	int nr_ev = have_mr_mem ? 6 : 4;

	if (have_mr_mem &&
	    (!check_format(cgroup, "rdma.mr_mem.max", NULL, 1, true) ||
	     !check_format(cgroup, "rdma.mr_mem.current", NULL, 1, false) ||
	     !check_format(cgroup, "rdma.mr_mem.peak", NULL, 1, false)))
		return false;
	return check_format(cgroup, "rdma.max", res_keys, 2, true) &&
	       check_format(cgroup, "rdma.current", res_keys, 2, false) &&
	       check_format(cgroup, "rdma.peak", res_keys, 2, false) &&
	       check_format(cgroup, "rdma.events", ev_keys, nr_ev, false) &&
	       check_format(cgroup, "rdma.events.local", ev_keys, nr_ev, false);
}

/*
 * Reads @file as runc does (libcontainer's readRdmaEntries(), for
 * rdma.max and rdma.current): it keeps a line only if
 * strings.SplitN(line, " ", 4) gives exactly 3 parts, and then wants
 * "KEY=VALUE" in the second and third. Fails if it would drop a line.
 */
bool check_runc_lines(const char *cgroup, const char *file)
{
	char buf[PAGE_SIZE], *line, *next;
	int lines = 0;

	if (cg_read(cgroup, file, buf, sizeof(buf))) {
		ksft_print_msg("%s/%s: cannot read\n", cgroup, file);
		return false;
	}
	for (line = buf; *line; line = next) {
		char *part[4] = { line }, *p;
		int nr = 1;

		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		lines++;
		for (p = line; *p && nr < 4; p++)
			if (*p == ' ')
				part[nr++] = p + 1;
		if (nr != 3 || !memchr(part[1], '=', part[2] - part[1]) ||
		    !strchr(part[2], '=')) {
			ksft_print_msg("%s/%s: runc would drop \"%s\" (%d parts)\n",
				       cgroup, file, line, nr);
			return false;
		}
	}
	if (!lines)
		ksft_print_msg("%s/%s: no line\n", cgroup, file);
	return lines > 0;
}

/*
 * Cgroup setup.
 */

/* Creates @name below @parent (NULL: the root); @nest enables rdma below it. */
char *cgs_add(struct cgs *cgs, const char *parent, const char *name,
	      bool nest)
{
	char *path = cg_name(parent, name);

	if (!path) {
		ksft_print_msg("cg_name(%s, %s): out of memory\n", parent, name);
		return NULL;
	}
	if (cg_create(path)) {
		ksft_print_msg("mkdir %s: %s\n", path, strerror(errno));
		free(path);
		return NULL;
	}
	cgs->path[cgs->nr++] = path;
	if (nest && cg_write(path, "cgroup.subtree_control", "+rdma")) {
		ksft_print_msg("%s/cgroup.subtree_control: cannot write \"+rdma\"\n",
			       path);
		return NULL;
	}
	return path;
}

/*
 * Sets have_mr_mem if a new cgroup below @root has rdma.mr_mem.max; the
 * mr_mem files are not on the root. Returns 0, or -1 if it cannot tell.
 */
int probe_mr_mem(const char *root)
{
	char *cg = cg_name(root, "rdma_test_probe"), *path;
	int err;

	if (!cg || cg_create(cg)) {
		ksft_print_msg("mkdir %s: %s\n", cg, strerror(errno));
		free(cg);
		return -1;
	}
	path = cg_control(cg, "rdma.mr_mem.max");
	err = access(path, F_OK) ? errno : 0;
	have_mr_mem = !err;
	if (err && err != ENOENT)
		ksft_print_msg("%s: %s\n", path, strerror(err));
	free(path);
	if (cg_destroy(cg))
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
	free(cg);
	return err && err != ENOENT ? -1 : 0;
}

void cgs_destroy(struct cgs *cgs)
{
	while (cgs->nr > 0) {
		char *path = cgs->path[--cgs->nr];

		if (path && cg_destroy(path))
			ksft_print_msg("rmdir %s: %s\n", path, strerror(errno));
		free(path);
	}
}

void workers_stop(struct worker *w, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		worker_stop(&w[i]);
}

/* Is a POLLPRI notification pending on @fd? */
bool pending_pri(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLPRI);
}

/* Reads @fd again from the start; returns 0 or -1. */
int reread(int fd)
{
	char buf[PAGE_SIZE];

	if (lseek(fd, 0, SEEK_SET) || read(fd, buf, sizeof(buf)) <= 0)
		return -1;
	return 0;
}

/* Waits up to @ms for @pid; returns its exit code, or -1 if it is still running. */
int wait_exit(pid_t pid, int ms)
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
