/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations of the model fuzzer, and the two things that carry them
 * out: the reference model (model.c: plain integers, written from the
 * documentation) and the controller itself (sut.c: kernel/cgroup/rdma.c
 * driven through its cftype table and exported functions).
 *
 * An operation names the objects it works on by small ids chosen when
 * they are made (a cgroup, a charge, an open file; a device slot), so that
 * a sequence stays meaningful when operations are dropped from it: an
 * operation whose objects or preconditions are missing is skipped.
 */
#ifndef RDMACG_MODEL_H
#define RDMACG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSLOT		4	/* device slots */
#define NCG		24	/* cgroup ids; 0 is the root */
#define NCHARGE		96	/* charge ids */
#define NFD		12	/* open file ids */
#define NRES		3	/* hca_handle, hca_object, mr_mem */
#define NAME_LEN	16
#define TEXT_LEN	320

#define RES_HANDLE	0
#define RES_OBJECT	1
#define RES_MR		2

enum file_id {
	F_MAX, F_CURRENT, F_PEAK, F_MR_MAX, F_MR_CURRENT, F_MR_PEAK,
	F_EVENTS, F_EVENTS_LOCAL, NFILES
};
/* Names in the cftype table; cgroup core adds "rdma.". */
extern const char *const file_names[NFILES];

enum op_kind {
	OP_REG,		/* a=slot n=index text=name: register a device */
	OP_REGNOID,	/* as OP_REG, but the id allocation fails */
	OP_UNREG,	/* a=slot */
	OP_RENAME,	/* a=slot text=new name */
	OP_MKDIR,	/* a=cgroup b=parent */
	OP_RMDIR,	/* a=cgroup: offline, its open files released */
	OP_FREE,	/* a=cgroup: css_free */
	OP_MOVE,	/* a=cgroup: the task moves there */
	OP_CHARGE,	/* a=charge b=slot c=resource: rdmacg_try_charge() */
	OP_OBJ,		/* a=charge b=context charge: rdmacg_try_charge_obj() */
	OP_MR,		/* a=charge b=slot n=bytes: rdmacg_try_charge_mr_mem() */
	OP_UNCHARGE,	/* a=charge */
	OP_WRITE,	/* a=cgroup b=file text: a write of rdma.max or .mr_mem.max */
	OP_OPEN,	/* a=fd b=cgroup c=file: rdma.peak or rdma.mr_mem.peak */
	OP_RESET,	/* a=fd text: a write to the open file */
	OP_CLOSE,	/* a=fd */
	OP_GP,		/* an RCU grace period ends */
	NR_OPS
};

struct op {
	int kind, a, b, c;
	unsigned long long n;
	int len;			/* of text */
	char text[TEXT_LEN];
};

/* The result of an operation: a return value, and for some a cgroup. */
struct result {
	long ret;
	int cg;				/* the cgroup a charge stored, or -1 */
};

/* model.c */
size_t textf(char *buf, size_t size, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void model_reset(void);
bool model_valid(const struct op *op);
struct result model_apply(const struct op *op);
size_t model_show(int cg, int file, int fd, char *buf, size_t size);
bool model_online(int cg);
long model_refs(int cg);
/* Whether the last operation must have sent a file modified event. */
bool model_notified(int cg, int file);
bool model_exists(int cg);	/* allocated, not freed */
/* Whether the kernel log since the last operation is what it must be. */
bool model_log_ok(const char *log);
void model_path(int cg, char *buf, size_t size);

/* Everything the generator needs to pick valid operations. */
struct model_view {
	int task;
	int nonline, nexist;
	bool online[NCG], exists[NCG], freeable[NCG], removable[NCG];
	int depth[NCG];
	int dev_state[NSLOT];		/* 0 unregistered, 1 accounted, 2 not */
	char dev_name[NSLOT][NAME_LEN];
	unsigned int dev_index[NSLOT];
	bool charge_used[NCHARGE];
	int charge_kind[NCHARGE];	/* OP_CHARGE, OP_OBJ, OP_MR */
	int charge_res[NCHARGE];
	int charge_objs[NCHARGE];	/* objects of a context still charged */
	bool fd_used[NFD];
	int fd_file[NFD], fd_cg[NFD];
};
void model_view(struct model_view *v);

/* sut.c */
void sut_init(void);
struct result sut_apply(const struct op *op);
size_t sut_show(int cg, int file, int fd, char *buf, size_t size);
long sut_refs(int cg);
bool sut_notified(int cg, int file);
void sut_teardown_check(void);

#endif
