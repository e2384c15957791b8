/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plumbing of test_rdma: the RDMA netlink, the uverbs write() interface,
 * the worker processes that hold verbs contexts and objects, and checks of
 * the rdma.* interface files. Every check prints what it expected and what
 * it saw when it fails.
 */
#ifndef __RDMA_UTIL_H
#define __RDMA_UTIL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define UNLIMITED	-1L	/* "max" in rdma.max */
#define MR_MAX		UINT64_MAX	/* "max" in rdma.mr_mem.max */
#define WAIT_MS		10000	/* upper bound for anything asynchronous */

#ifndef PAGE_SIZE
/* The page size the expectations assume; the guests are x86-64. */
#define PAGE_SIZE	4096
#endif

/* The device under test: its name and its uverbs character device. */
extern char rdma_dev[64];
extern char uverbs_path[PATH_MAX];

/*
 * Where workers register MRs: MR_BUF_PAGES pages, page aligned, followed
 * by a page without access; at the same address in every worker.
 */
#define MR_BUF_PAGES	16
extern char *mr_buf;

/* Does the kernel have the mr_mem resource (rdma.mr_mem.* files)? */
extern bool have_mr_mem;

long now_ms(void);
void close_inherited(int keep1, int keep2);
int wait_exit(pid_t pid, int ms);

/* RDMA netlink; each returns 0 or -errno unless it says otherwise. */
int rdma_dev_index(const char *name);
int rdma_dev_netdev(int index, char *ndev);
int rdma_link_add(const char *name, const char *type, const char *ndev);
int rdma_link_del(int index);
int rdma_dev_add_lo(const char *name, const char *type);
int rdma_dev_del(const char *name);
int find_uverbs(const char *want);

/*
 * Workers: child processes that own uverbs contexts and objects and act on
 * requests sent over a pipe.
 */
enum obj_type { OBJ_PD, OBJ_CQ, OBJ_MR, OBJ_QP, NR_OBJ_TYPES };

enum wop {
	W_OPEN, W_CLOSE, W_CREATE, W_DESTROY, W_CHANNEL,
	W_FORK,
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

/* A request for worker_send(): @op @count times, after @delay_ms. */
struct wcmd {
	int op;
	int type;	/* W_CREATE: what to create */
	int count;	/* W_OPEN, W_CREATE: how many */
	int index;	/* W_CLOSE, W_DESTROY: which one, -1 for the newest */
	int delay_ms;	/* wait this long before acting */
};

/*
 * A request for wdo() and what must come of it: exactly @done of the
 * @count requests succeed, and the first failure, if any, fails with @err
 * (left out: none may fail).
 */
struct wcall {
	int op;
	int type;	/* W_CREATE: what to create */
	int count;	/* how many times to do it */
	int index;	/* W_CLOSE, W_DESTROY: which one, -1 for the newest */
	int done;	/* how many of them must succeed */
	int err;	/* errno of the first failure, 0 if none */
};

/* The same for w_open(): @count contexts. */
struct wopen {
	int count;
	int done;
	int err;
};

/* The same for w_create(): @count objects of @type. */
struct wcreate {
	int type;
	int count;
	int done;
	int err;
};

/*
 * An MR for w_reg_mr(): @length bytes at @offset into mr_buf, which must
 * fail with @err (left out: must succeed).
 */
struct wmr {
	uint64_t offset;
	uint64_t length;
	int err;
};

int worker_start(struct worker *w, const char *cgroup);
int worker_move(struct worker *w, const char *cgroup);
void worker_stop(struct worker *w);
void workers_stop(struct worker *w, int nr);
int worker_send(struct worker *w, const struct wcmd *cmd);
int worker_recv(struct worker *w, struct wres *res);
bool wdo(struct worker *w, const struct wcall *call);
bool w_open(struct worker *w, const struct wopen *req);
bool w_create(struct worker *w, const struct wcreate *req);
bool w_destroy(struct worker *w, int index);
bool w_close(struct worker *w, int index);
bool w_reg_mr(struct worker *w, const struct wmr *mr);
bool expect_pinned(struct worker *w, uint64_t bytes);
bool w_fork(struct worker *w, bool child);
bool expect_vmpin(const char *cgroup, uint64_t bytes);

/* The interface files, the line of rdma_dev in each. */

/* hca_handle and hca_object in rdma.max, .current, .peak; UNLIMITED: "max" */
struct hca {
	long handle;
	long object;
};

/*
 * The counters of rdma.events and rdma.events.local, 0 where left out.
 * The mr_mem ones are checked only if the kernel has mr_mem.
 */
struct events {
	long handle_max;	/* hca_handle.max */
	long handle_fail;	/* hca_handle.alloc_fail */
	long object_max;	/* hca_object.max */
	long object_fail;	/* hca_object.alloc_fail */
	long mr_max;		/* mr_mem.max */
	long mr_fail;		/* mr_mem.alloc_fail */
};

bool expect_res(const char *cgroup, const char *file, const struct hca *res);
bool expect_usage(const char *cgroup, const struct hca *res);
bool expect_events(const char *cgroup, const char *file,
		   const struct events *ev);
bool expect_mr_mem(const char *cgroup, const char *file, uint64_t bytes);
bool expect_mr_usage(const char *cgroup, uint64_t bytes);
bool expect_no_line(const char *cgroup, const char *file);
bool expect_dev_line(const char *cgroup, const char *file, const char *dev,
		     const char *want);
bool check_all_formats(const char *cgroup);
bool check_runc_lines(const char *cgroup, const char *file);
int set_max(const char *cgroup, const char *fmt, ...);
int try_max(const char *cgroup, const char *fmt, ...);
int set_mr_max(const char *cgroup, const char *fmt, ...);
int try_mr_max(const char *cgroup, const char *fmt, ...);
bool pending_pri(int fd);
int reread(int fd);

/*
 * Cgroup setup: each test builds a small tree of cgroups, the first one
 * directly below the root and the others below it or below each other.
 */
#define MAX_CG 4

struct cgs {
	char *path[MAX_CG];
	int nr;
};

char *cgs_add(struct cgs *cgs, const char *parent, const char *name,
	      bool nest);
void cgs_destroy(struct cgs *cgs);
int probe_mr_mem(const char *root);

#endif /* __RDMA_UTIL_H */
