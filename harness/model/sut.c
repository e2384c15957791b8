// SPDX-License-Identifier: GPL-2.0
/*
 * The controller under test: kernel/cgroup/rdma.c, built as it is against
 * the stand-ins of harness/bench/icount/include, and driven the way its two
 * callers drive it. cgroup core's side goes through rdma_cgrp_subsys only:
 * css_alloc/css_offline/css_free and the cftype table's handlers, with a
 * kernfs_open_file and a seq_file per open, a write copied and
 * NUL-terminated as kernfs does and never passed on when empty (as
 * cgroup_file_write()), and the open files of a removed cgroup released at
 * its removal (as kernfs_drain_open_files()). ib_core's side goes through
 * the functions of include/linux/cgroup_rdma.h, each charge uncharged with
 * the cgroup, context and device it was made with.
 *
 * A device slot keeps its struct rdmacg_device across registrations, as
 * the KUnit tests do, unless charges made on it are still outstanding: the
 * registration then gets a new struct, and the old one lives on until its
 * last charge is uncharged (the kernel-doc of rdmacg_register_device()).
 */
#include "shim.h"
#include <linux/cgroup_rdma.h>
#include "model.h"

extern struct cgroup_subsys rdma_cgrp_subsys;

struct scg {
	struct cgroup_subsys_state *css;
	struct cgroup cgroup;
	char path[256];
};

struct sdev {
	struct rdmacg_device dev;
	char name[NAME_LEN];
	long charges;			/* outstanding */
	struct sdev *next;		/* on the list of replaced structs */
};

struct scharge {
	bool used;
	int kind, res;
	struct rdma_cgroup *cg, *ctx_cg;
	struct sdev *dev;
	u64 bytes;
};

struct sfd {
	bool used;
	int cg;
	struct kernfs_open_file of;
};

static struct scg cgs[NCG];
static struct sdev *slots[NSLOT], *replaced;
static struct scharge charges[NCHARGE];
static struct sfd fds[NFD];
static struct task_struct task;

static struct cftype *cft_of(int file)
{
	struct cftype *cft;

	for (cft = rdma_cgrp_subsys.dfl_cftypes; cft->name[0]; cft++)
		if (!strcmp(cft->name, file_names[file]))
			return cft;
	fprintf(stderr, "model: rdma.%s is not in the cftype table\n",
		file_names[file]);
	abort();
}

static int cg_id(struct rdma_cgroup *cg)
{
	for (int c = 0; c < NCG; c++)
		if (cgs[c].css && cgs[c].css == &cg->css)
			return c;
	return -2;	/* not a cgroup of ours */
}

void sut_init(void)
{
	struct cgroup_subsys_state *root = rdma_cgrp_subsys.css_alloc(NULL);

	if (IS_ERR_OR_NULL(root))
		abort();
	root->parent = NULL;
	snprintf(cgs[0].path, sizeof(cgs[0].path), "/");
	cgs[0].cgroup.path = cgs[0].path;
	root->cgroup = &cgs[0].cgroup;
	cgs[0].css = root;
	task.css = root;
	kshim_current = &task;
	for (int s = 0; s < NSLOT; s++)
		slots[s] = calloc(1, sizeof(*slots[s]));	/* never registered */
}

/* --- devices ---------------------------------------------------------------- */

static void dev_register(int s, const char *name, u32 index, bool noid)
{
	struct sdev *d = slots[s];

	if (d->charges) {
		/* Charges of the old registration still name this struct. */
		d->next = replaced;
		replaced = d;
		d = slots[s] = calloc(1, sizeof(*d));
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->dev.name = d->name;
	/* ib_core's index, unique among registered devices: the op's. */
	d->dev.index = index;
	kshim_ida_fail = noid;
	rdmacg_register_device(&d->dev);
	kshim_ida_fail = false;
}

static void dev_put(struct sdev *d)
{
	struct sdev **p;

	if (--d->charges)
		return;
	for (p = &replaced; *p; p = &(*p)->next) {
		if (*p == d) {
			*p = d->next;
			free(d);
			return;
		}
	}
}

/* --- cgroups ------------------------------------------------------------------ */

static void cg_mkdir(int c, int parent)
{
	struct cgroup_subsys_state *css;

	css = rdma_cgrp_subsys.css_alloc(cgs[parent].css);
	if (IS_ERR_OR_NULL(css)) {
		fprintf(stderr, "model: css_alloc failed\n");
		abort();
	}
	css->parent = cgs[parent].css;
	snprintf(cgs[c].path, sizeof(cgs[c].path), "%s/c%d",
		 parent ? cgs[parent].path : "", c);
	cgs[c].cgroup.path = cgs[c].path;
	css->cgroup = &cgs[c].cgroup;
	cgs[c].css = css;
}

static void fd_release(int f)
{
	struct kernfs_open_file *of = &fds[f].of;

	if (of->cft->release)
		of->cft->release(of);
	memset(&fds[f], 0, sizeof(fds[f]));
}

static void cg_rmdir(int c)
{
	for (int f = 0; f < NFD; f++)
		if (fds[f].used && fds[f].cg == c)
			fd_release(f);
	if (rdma_cgrp_subsys.css_offline)
		rdma_cgrp_subsys.css_offline(cgs[c].css);
}

static void cg_free(int c)
{
	rdma_cgrp_subsys.css_free(cgs[c].css);
	memset(&cgs[c], 0, sizeof(cgs[c]));
}

/* --- charges ---------------------------------------------------------------------- */

static struct result charged(const struct op *op, int ret,
			     struct rdma_cgroup *cg, struct sdev *d,
			     struct rdma_cgroup *ctx_cg)
{
	struct scharge *h = &charges[op->a];
	struct result res = { .ret = ret, .cg = -1 };

	if (ret)
		return res;
	*h = (struct scharge){
		.used = true, .kind = op->kind, .res = op->c, .cg = cg,
		.ctx_cg = ctx_cg, .dev = d, .bytes = op->n,
	};
	d->charges++;
	res.cg = cg_id(cg);
	return res;
}

static struct result charge(const struct op *op)
{
	struct rdma_cgroup *cg = NULL;
	struct scharge *ctx;
	struct sdev *d;
	int ret;

	switch (op->kind) {
	case OP_CHARGE:
		d = slots[op->b];
		ret = rdmacg_try_charge(&cg, &d->dev, op->c);
		return charged(op, ret, cg, d, NULL);
	case OP_OBJ:
		ctx = &charges[op->b];
		d = ctx->dev;
		ret = rdmacg_try_charge_obj(&cg, ctx->cg, &d->dev);
		return charged(op, ret, cg, d, ctx->cg);
	default:
		d = slots[op->b];
		ret = rdmacg_try_charge_mr_mem(&cg, &d->dev, op->n);
		return charged(op, ret, cg, d, NULL);
	}
}

static void uncharge(int id)
{
	struct scharge *h = &charges[id];

	switch (h->kind) {
	case OP_CHARGE:
		rdmacg_uncharge(h->cg, &h->dev->dev, h->res);
		break;
	case OP_OBJ:
		rdmacg_uncharge_obj(h->cg, h->ctx_cg, &h->dev->dev);
		break;
	default:
		rdmacg_uncharge_mr_mem(h->cg, &h->dev->dev, h->bytes);
		break;
	}
	dev_put(h->dev);
	memset(h, 0, sizeof(*h));
}

/* --- files ------------------------------------------------------------------------ */

/* cgroup_file_write(): kernfs's copy of the text, NUL-terminated. */
static long file_write(struct kernfs_open_file *of, const char *text,
		       size_t len)
{
	char *buf;
	long ret;

	if (!len)
		return 0;
	if (!of->cft->write)
		return -EINVAL;
	buf = malloc(len + 1);
	memcpy(buf, text, len);
	buf[len] = 0;
	ret = of->cft->write(of, buf, len, 0);
	free(buf);
	return ret;
}

static size_t file_show(struct kernfs_open_file *of, char *buf, size_t size)
{
	struct seq_file sf = { .buf = buf, .size = size, .private = of };

	of->seq_file = &sf;
	buf[0] = 0;
	of->cft->seq_show(&sf, NULL);
	of->seq_file = NULL;
	if (sf.count < size)
		buf[sf.count] = 0;
	return sf.count;
}

size_t sut_show(int c, int file, int fd, char *buf, size_t size)
{
	struct kernfs_open_file of = { .css = cgs[c].css, .cft = cft_of(file) };
	size_t n;

	if (fd >= 0)
		return file_show(&fds[fd].of, buf, size);
	/* A new open file, read once and closed. */
	n = file_show(&of, buf, size);
	if (of.cft->release)
		of.cft->release(&of);
	return n;
}

static long file_write_new(int c, int file, const char *text, size_t len)
{
	struct kernfs_open_file of = { .css = cgs[c].css, .cft = cft_of(file) };
	long ret = file_write(&of, text, len);

	if (of.cft->release)
		of.cft->release(&of);
	return ret;
}

/* --- operations ---------------------------------------------------------------------- */

struct result sut_apply(const struct op *op)
{
	struct result res = { .ret = 0, .cg = -1 };

	switch (op->kind) {
	case OP_REG:
	case OP_REGNOID:
		dev_register(op->a, op->text, op->n, op->kind == OP_REGNOID);
		break;
	case OP_UNREG:
		rdmacg_unregister_device(&slots[op->a]->dev);
		break;
	case OP_RENAME:
		snprintf(slots[op->a]->name, NAME_LEN, "%s", op->text);
		break;
	case OP_MKDIR:
		cg_mkdir(op->a, op->b);
		break;
	case OP_RMDIR:
		cg_rmdir(op->a);
		break;
	case OP_FREE:
		cg_free(op->a);
		break;
	case OP_MOVE:
		task.css = cgs[op->a].css;
		break;
	case OP_CHARGE:
	case OP_OBJ:
	case OP_MR:
		res = charge(op);
		break;
	case OP_UNCHARGE:
		uncharge(op->a);
		break;
	case OP_WRITE:
		res.ret = file_write_new(op->a, op->b, op->text, op->len);
		break;
	case OP_OPEN:
		fds[op->a].used = true;
		fds[op->a].cg = op->b;
		fds[op->a].of.css = cgs[op->b].css;
		fds[op->a].of.cft = cft_of(op->c);
		break;
	case OP_RESET:
		res.ret = file_write(&fds[op->a].of, op->text, op->len);
		break;
	case OP_CLOSE:
		fd_release(op->a);
		break;
	case OP_GP:
		kshim_grace_period();
		break;
	}
	return res;
}

/*
 * Whether cgroup core was told that @file of cgroup @c changed since the
 * last call: through the cgroup_file at the cftype's file_offset, which
 * cgroup core finds from the css as cgroup_add_file() does.
 */
bool sut_notified(int c, int file)
{
	struct cftype *cft = cft_of(file);
	struct cgroup_file *cfile;
	bool notified;

	if (!cft->file_offset)
		return false;
	cfile = (void *)((char *)cgs[c].css + cft->file_offset);
	notified = cfile->notified;
	cfile->notified = 0;
	return notified;
}

long sut_refs(int c)
{
	return cgs[c].css->refcnt;
}

/*
 * After the fuzzer's teardown (everything uncharged, closed, removed and
 * unregistered): free the root and the device structs, end a grace period,
 * and check that nothing the controller allocated is left.
 */
void sut_teardown_check(void)
{
	struct sdev *d;

	cg_free(0);
	for (int s = 0; s < NSLOT; s++) {
		free(slots[s]);
		slots[s] = NULL;
	}
	while ((d = replaced)) {
		fprintf(stderr, "model: a replaced device struct kept %ld charges\n",
			d->charges);
		replaced = d->next;
		free(d);
		kshim_warnings++;
	}
	kshim_grace_period();
	if (kshim_allocs) {
		fprintf(stderr, "model: LEAK: %ld allocations of rdma.c not freed\n",
			kshim_allocs);
		kshim_warnings++;
	}
}
