// SPDX-License-Identifier: GPL-2.0
/*
 * The reference model of the RDMA controller, written from its documentation
 * (the RDMA section of Documentation/admin-guide/cgroup-v2.rst,
 * Documentation/admin-guide/rdma-cgroup.rst, the kernel-doc of
 * include/linux/cgroup_rdma.h's functions) and not from rdma.c: plain
 * integers, one counter per cgroup, device and resource, no pools, no
 * atomics, no RCU. What it encodes:
 *
 * - A charge of N units is made at the task's cgroup and every ancestor
 *   below the root, or nowhere: it is refused (-EAGAIN) if any of them
 *   would go beyond its limit. The root is never charged nor limited.
 *   A refusal counts ".alloc_fail" at the asking cgroup and its ancestors,
 *   ".max" at the cgroup whose limit refused and its ancestors (the lowest
 *   one that would pass its limit), and the local counts at those two.
 *   Failures for other reasons count nothing.
 * - A device not registered: -ENODEV. One the controller could not give an
 *   id: every charge succeeds, nothing is counted, it appears in no file.
 * - Every file lists every accounted device, in registration order, renamed
 *   devices under their new name, followed by " index=N" (the index its
 *   owner gave it) when another accounted device has the same name; a
 *   device unregistered loses every limit, count, peak and event, in every
 *   cgroup, and charges made on it are forgotten (their uncharge only drops
 *   the reference).
 * - Limits: rdma.max takes "DEV [index=N] [hca_handle=V] [hca_object=V]"
 *   per device, V "max" or 0..2147483647 (which also means no limit);
 *   rdma.mr_mem.max "DEV [index=N] BYTES" with K, M, G, T suffixes, rounded
 *   down to a whole page (the grammar is the parser model's). A malformed
 *   write is -EINVAL; then the devices are looked up in the order given,
 *   the first failure counting: a name with an index names the accounted
 *   device of that name and index, -ENODEV if none; a name without one
 *   names the accounted device of that name, -ENOTUNIQ if several have it,
 *   -ENODEV if none; a device named by an earlier line again is -EINVAL.
 *   A failed write changes nothing.
 * - Peaks: the highest usage since the device was registered (a pool made
 *   later has seen no usage before), as a file never written sees it; a
 *   write of one byte or more to an open peak file resets the peaks that
 *   file shows (hca_* for rdma.peak, mr_mem for rdma.mr_mem.peak) to the
 *   current usage, for that file only.
 * - References: a successful charge holds one on its cgroup until its
 *   uncharge, except an object charged in its context's own cgroup; a
 *   cgroup is freed (css_free) only once offline, without references and
 *   with its children freed.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "../fuzz/model.h"

#define COUNT_MAX	2147483647ULL
#define BYTES_MAX	~0ULL
#define PAGE		4096ULL

enum { EV_MAX, EV_FAIL, EV_MAX_LOCAL, EV_FAIL_LOCAL, NEV };

struct mdev {
	int state;			/* 0 unregistered, 1 accounted, 2 not */
	unsigned int gen;		/* registrations so far */
	unsigned long order;		/* when it was registered */
	unsigned int index;		/* its owner's, unique among registered */
	char name[NAME_LEN];
};

/* One cgroup on one device. */
struct mpool {
	unsigned long long usage[NRES], max[NRES], peak[NRES];
	unsigned long long ev[NRES][NEV];
};

struct mcg {
	bool exists, online;
	int parent;
	int children;			/* not freed yet */
	long refs;
	struct mpool pool[NSLOT];
};

struct mcharge {
	bool used;
	int kind;			/* OP_CHARGE, OP_OBJ, OP_MR */
	int res, cg, slot, ctx, objs;
	unsigned int gen;		/* of the device charged */
	bool counted, ref;
	unsigned long long amount;
};

struct mfd {
	bool used, reset;
	int cg, file;
	unsigned long long peak[NSLOT][NRES];	/* since the reset */
};

static struct mdev dev[NSLOT];
static struct mcg cgs[NCG];
static struct mcharge charges[NCHARGE];
static struct mfd fds[NFD];
static int task;
static unsigned long orders;
static char expect_log[256];	/* what the last operation must log */
static bool notified[NCG][2];	/* rdma.events, .local changed by it */
static bool expect_any_log;

const char *const file_names[NFILES] = {
	[F_MAX] = "max", [F_CURRENT] = "current", [F_PEAK] = "peak",
	[F_MR_MAX] = "mr_mem.max", [F_MR_CURRENT] = "mr_mem.current",
	[F_MR_PEAK] = "mr_mem.peak", [F_EVENTS] = "events",
	[F_EVENTS_LOCAL] = "events.local",
};

static const char *const res_names[NRES] = {
	"hca_handle", "hca_object", "mr_mem"
};

static unsigned long long unlimited(int res)
{
	return res == RES_MR ? BYTES_MAX : COUNT_MAX;
}

static void pool_clear(struct mpool *p)
{
	int r;

	memset(p, 0, sizeof(*p));
	for (r = 0; r < NRES; r++)
		p->max[r] = unlimited(r);
}

void model_reset(void)
{
	int c;

	memset(dev, 0, sizeof(dev));
	memset(cgs, 0, sizeof(cgs));
	memset(charges, 0, sizeof(charges));
	memset(fds, 0, sizeof(fds));
	task = 0;
	orders = 0;
	cgs[0].exists = cgs[0].online = true;
	cgs[0].parent = -1;
	for (c = 0; c < NCG; c++)
		for (int s = 0; s < NSLOT; s++)
			pool_clear(&cgs[c].pool[s]);
}

static bool id_ok(int id, int n)
{
	return id >= 0 && id < n;
}

static bool cg_online(int c)
{
	return id_ok(c, NCG) && cgs[c].exists && cgs[c].online;
}

/* A cgroup whose files exist: online, not the root. */
static bool cg_has_files(int c)
{
	return c > 0 && cg_online(c);
}

/*
 * Whether another accounted device than the one of slot @s has its name:
 * its key in the files then shows its index too.
 */
static bool name_shared(int s)
{
	for (int o = 0; o < NSLOT; o++)
		if (o != s && dev[o].state == 1 && !strcmp(dev[o].name, dev[s].name))
			return true;
	return false;
}

static bool name_ok(const struct op *op)
{
	/*
	 * ib_core names: printable, no blanks; unique in a network namespace
	 * only, so that two registered devices may share one.
	 */
	if (op->len < 1 || op->len >= NAME_LEN ||
	    strlen(op->text) != (size_t)op->len)
		return false;
	for (int i = 0; i < op->len; i++)
		if (op->text[i] <= ' ' || op->text[i] > '~')
			return false;
	return true;
}

/* ib_core's device indexes: no two registered devices share one. */
static bool index_ok(const struct op *op)
{
	if (op->n > 0xffffffffULL)
		return false;
	for (int s = 0; s < NSLOT; s++)
		if (s != op->a && dev[s].state && dev[s].index == op->n)
			return false;
	return true;
}

static bool charge_free_id(int h)
{
	return id_ok(h, NCHARGE) && !charges[h].used;
}

/* Whether cgroup @c has online children. */
static bool has_online_child(int c)
{
	for (int i = 1; i < NCG; i++)
		if (cgs[i].exists && cgs[i].online && cgs[i].parent == c)
			return true;
	return false;
}

bool model_valid(const struct op *op)
{
	switch (op->kind) {
	case OP_REG:
	case OP_REGNOID:
		return id_ok(op->a, NSLOT) && !dev[op->a].state && name_ok(op) &&
		       index_ok(op);
	case OP_UNREG:
		return id_ok(op->a, NSLOT) && dev[op->a].state;
	case OP_RENAME:
		return id_ok(op->a, NSLOT) && dev[op->a].state && name_ok(op);
	case OP_MKDIR:
		return op->a > 0 && id_ok(op->a, NCG) && !cgs[op->a].exists &&
		       cg_online(op->b);
	case OP_RMDIR:
		return cg_has_files(op->a) && !has_online_child(op->a) &&
		       task != op->a;
	case OP_FREE:
		return op->a > 0 && id_ok(op->a, NCG) && cgs[op->a].exists &&
		       !cgs[op->a].online && !cgs[op->a].refs &&
		       !cgs[op->a].children;
	case OP_MOVE:
		return cg_online(op->a);
	case OP_CHARGE:
		return charge_free_id(op->a) && id_ok(op->b, NSLOT) &&
		       id_ok(op->c, NRES);
	case OP_OBJ:
		/* ib_core charges objects of a context it holds. */
		return charge_free_id(op->a) && id_ok(op->b, NCHARGE) &&
		       charges[op->b].used && charges[op->b].kind == OP_CHARGE &&
		       charges[op->b].res == RES_HANDLE;
	case OP_MR:
		return charge_free_id(op->a) && id_ok(op->b, NSLOT);
	case OP_UNCHARGE:
		/* ib_core destroys a context's objects before the context. */
		return id_ok(op->a, NCHARGE) && charges[op->a].used &&
		       !charges[op->a].objs;
	case OP_WRITE:
		return cg_has_files(op->a) &&
		       (op->b == F_MAX || op->b == F_MR_MAX);
	case OP_OPEN:
		return id_ok(op->a, NFD) && !fds[op->a].used &&
		       cg_has_files(op->b) &&
		       (op->c == F_PEAK || op->c == F_MR_PEAK);
	case OP_RESET:
	case OP_CLOSE:
		return id_ok(op->a, NFD) && fds[op->a].used;
	case OP_GP:
		return true;
	}
	return false;
}

static bool fits(unsigned long long usage, unsigned long long amount,
		 unsigned long long max)
{
	return usage <= max && amount <= max - usage;
}

static void raise(unsigned long long *peak, unsigned long long usage)
{
	if (usage > *peak)
		*peak = usage;
}

/* Count a refusal asked at @c and refused by the limit of @limited. */
static void refused(int c, int limited, int s, int r)
{
	bool hit = false;

	for (int p = c; p > 0; p = cgs[p].parent) {
		unsigned long long *ev = cgs[p].pool[s].ev[r];

		ev[EV_FAIL]++;
		notified[p][0] = true;
		if (p == c)
			ev[EV_FAIL_LOCAL]++;
		if (p == limited) {
			hit = true;
			ev[EV_MAX_LOCAL]++;
		}
		if (hit)
			ev[EV_MAX]++;
		/* "The file modified event reflects only these counts." */
		if (p == c || p == limited)
			notified[p][1] = true;
	}
}

/* Charge @amount of @r on slot @s to cgroup @c; 0, -EAGAIN or -ENODEV. */
static int charge(int c, int s, int r, unsigned long long amount,
		  bool *counted)
{
	int p, limited = -1;

	*counted = false;
	/*
	 * "@bytes of 0 charges nothing but still takes the reference"
	 * (rdmacg_try_charge_mr_mem()), whatever the device's state.
	 */
	if (amount == 0)
		return 0;
	if (dev[s].state == 0)
		return -ENODEV;
	if (dev[s].state == 2 || c == 0)
		return 0;
	for (p = c; p > 0 && limited < 0; p = cgs[p].parent) {
		struct mpool *pool = &cgs[p].pool[s];

		if (!fits(pool->usage[r], amount, pool->max[r]))
			limited = p;
	}
	if (limited >= 0) {
		refused(c, limited, s, r);
		return -EAGAIN;
	}
	for (p = c; p > 0; p = cgs[p].parent) {
		struct mpool *pool = &cgs[p].pool[s];

		pool->usage[r] += amount;
		raise(&pool->peak[r], pool->usage[r]);
		for (int f = 0; f < NFD; f++)
			if (fds[f].used && fds[f].cg == p)
				raise(&fds[f].peak[s][r], pool->usage[r]);
	}
	*counted = true;
	return 0;
}

static struct result charge_op(const struct op *op, int c, int s, int r,
			       unsigned long long amount, int ctx)
{
	struct mcharge *h = &charges[op->a];
	struct result res = { .cg = -1 };
	bool counted;

	res.ret = charge(c, s, r, amount, &counted);
	if (res.ret)
		return res;
	memset(h, 0, sizeof(*h));
	h->used = true;
	h->kind = op->kind;
	h->res = r;
	h->cg = c;
	h->slot = s;
	h->gen = dev[s].gen;
	h->counted = counted;
	h->amount = amount;
	h->ctx = ctx;
	h->ref = ctx < 0 || charges[ctx].cg != c;
	if (h->ref)
		cgs[c].refs++;
	if (ctx >= 0)
		charges[ctx].objs++;
	res.cg = c;
	return res;
}

static void uncharge(struct mcharge *h)
{
	struct mdev *d = &dev[h->slot];

	if (h->counted && d->state == 1 && d->gen == h->gen)
		for (int p = h->cg; p > 0; p = cgs[p].parent)
			cgs[p].pool[h->slot].usage[h->res] -= h->amount;
	if (h->ref)
		cgs[h->cg].refs--;
	if (h->kind == OP_OBJ)
		charges[h->ctx].objs--;
	h->used = false;
}

/* An object of context @ctx, on the context's device. */
static struct result obj_op(const struct op *op)
{
	struct mcharge *ctx = &charges[op->b];
	struct mdev *d = &dev[ctx->slot];
	struct result res = { .ret = -ENODEV, .cg = -1 };

	/* The context's device went away, whatever took its slot since. */
	if (d->gen != ctx->gen)
		return res;
	return charge_op(op, task, ctx->slot, RES_OBJECT, 1, op->b);
}

static void forget_device(int s)
{
	for (int c = 0; c < NCG; c++)
		pool_clear(&cgs[c].pool[s]);
	for (int f = 0; f < NFD; f++)
		memset(fds[f].peak[s], 0, sizeof(fds[f].peak[s]));
}

void model_path(int c, char *buf, size_t size)
{
	char tail[256];

	if (c <= 0) {
		snprintf(buf, size, "%s", "");
		return;
	}
	model_path(cgs[c].parent, tail, sizeof(tail));
	snprintf(buf, size, "%s/c%d", tail, c);
}

static bool limited_pool(int c, int s)
{
	for (int r = 0; r < NRES; r++)
		if (cgs[c].pool[s].max[r] != unlimited(r))
			return true;
	return false;
}

/*
 * The log line of an unregistration that takes limits with it; which
 * cgroup it names when there are several is not documented, so the path
 * is checked apart (model_log_ok()).
 */
static void expect_lost_limits(int s)
{
	int n = 0;

	for (int c = 1; c < NCG; c++)
		if (cgs[c].exists && limited_pool(c, s))
			n++;
	expect_log[0] = 0;
	if (n)
		snprintf(expect_log, sizeof(expect_log),
			 "rdmacg: device %s unregistered, limits lost in %d cgroup%s (",
			 dev[s].name, n, n == 1 ? "" : "s");
}

/* Whether @log is what the last operation must have logged. */
bool model_log_ok(const char *log)
{
	size_t n = strlen(expect_log);
	char path[256];
	const char *p, *end;
	int c;

	if (expect_any_log)
		return true;
	if (!n)
		return !*log;
	if (strncmp(log, expect_log, n))
		return false;
	/* "(PATH)\n" for one cgroup, "(PATH, ...)\n" for more. */
	p = log + n;
	end = strstr(p, strstr(expect_log, " 1 cgroup (") ? ")\n" : ", ...)\n");
	if (!end || end[end[0] == ')' ? 2 : 7])
		return false;
	for (c = 1; c < NCG; c++) {
		model_path(c, path, sizeof(path));
		if (strlen(path) == (size_t)(end - p) && !memcmp(path, p, end - p))
			return cgs[c].exists;
	}
	return false;
}

/* --- limit writes -------------------------------------------------------- */

struct mline {
	int slot;			/* the device it names */
	const char *dev;
	size_t dev_len;
	bool has_index;
	unsigned int index;
	int mask;			/* rdma.max: the keys given */
	unsigned long long value[NRES];
};

/*
 * The slot of the accounted device a line names: by name, and by index too
 * if it gives one; -ENODEV, or -ENOTUNIQ for a name several devices share
 * given without an index.
 */
static int find_accounted(const struct mline *l)
{
	int found = -ENODEV;

	for (int s = 0; s < NSLOT; s++) {
		if (dev[s].state != 1 || strlen(dev[s].name) != l->dev_len ||
		    memcmp(dev[s].name, l->dev, l->dev_len))
			continue;
		if (l->has_index) {
			if (dev[s].index == l->index)
				return s;
		} else if (found >= 0) {
			return -ENOTUNIQ;
		} else {
			found = s;
		}
	}
	return found;
}

/*
 * Parse a write into @lines, one a device, by the parser model of
 * harness/fuzz/model.c (which has the grammar and the multi-device rule),
 * then find their devices in order: the number of devices, or
 * -EINVAL/-ENODEV/-ENOTUNIQ.
 */
static int parse_write(const struct op *op, struct mline *lines, int max)
{
	const unsigned char *u = (const unsigned char *)op->text;
	struct model_entry e[TEXT_LEN];
	int n, i, j;

	n = model_parse_write(u, op->len, op->b != F_MAX, e, TEXT_LEN);
	if (n < 0 || n > max)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct mline *l = &lines[i];

		memset(l, 0, sizeof(*l));
		l->dev = op->text + e[i].dev_off;
		l->dev_len = e[i].dev_len;
		l->has_index = e[i].has_index;
		l->index = e[i].index;
		if (op->b == F_MAX) {
			l->mask = e[i].mask;
			l->value[RES_HANDLE] = e[i].value[0];
			l->value[RES_OBJECT] = e[i].value[1];
		} else {
			l->mask = 1 << RES_MR;
			/* Pinned in whole pages: the limit is rounded down to one. */
			l->value[RES_MR] = e[i].bytes == BYTES_MAX ? e[i].bytes :
					   e[i].bytes / PAGE * PAGE;
		}
	}
	/* Every line parsed before any device is looked up. */
	for (i = 0; i < n; i++) {
		lines[i].slot = find_accounted(&lines[i]);
		if (lines[i].slot < 0)
			return lines[i].slot;
		for (j = 0; j < i; j++)
			if (lines[j].slot == lines[i].slot)
				return -EINVAL;
	}
	return n;
}

static long write_limits(const struct op *op)
{
	struct mline lines[TEXT_LEN];
	int n, i, r;

	if (!op->len)
		return 0;	/* cgroup core calls no handler */
	n = parse_write(op, lines, TEXT_LEN);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		for (r = 0; r < NRES; r++)
			if (lines[i].mask & (1 << r))
				cgs[op->a].pool[lines[i].slot].max[r] =
					lines[i].value[r];
	return op->len;
}

/* --- peak files ---------------------------------------------------------- */

static bool file_shows(int file, int r)
{
	return (file == F_MR_PEAK) == (r == RES_MR);
}

static long reset(const struct op *op)
{
	struct mfd *f = &fds[op->a];

	if (!op->len)
		return 0;	/* cgroup core calls no handler */
	f->reset = true;
	for (int s = 0; s < NSLOT; s++)
		for (int r = 0; r < NRES; r++)
			if (file_shows(f->file, r))
				f->peak[s][r] = cgs[f->cg].pool[s].usage[r];
	return op->len;
}

static void close_fd(int f)
{
	memset(&fds[f], 0, sizeof(fds[f]));
}

/* --- the operations ---------------------------------------------------------- */

static struct result apply(const struct op *op)
{
	struct result res = { .ret = 0, .cg = -1 };
	/* Used by the device operations only, whose @a is a slot. */
	struct mdev *d = &dev[op->a % NSLOT];
	int c = op->a, f;

	switch (op->kind) {
	case OP_REG:
	case OP_REGNOID:
		d->state = op->kind == OP_REG ? 1 : 2;
		d->gen++;
		d->order = ++orders;
		d->index = op->n;
		memcpy(d->name, op->text, op->len + 1);	/* checked */
		forget_device(op->a);
		break;
	case OP_UNREG:
		if (d->state == 1)
			expect_lost_limits(op->a);
		d->state = 0;
		forget_device(op->a);
		break;
	case OP_RENAME:
		memcpy(d->name, op->text, op->len + 1);	/* checked */
		break;
	case OP_MKDIR:
		memset(&cgs[c], 0, sizeof(cgs[c]));
		cgs[c].exists = cgs[c].online = true;
		cgs[c].parent = op->b;
		cgs[op->b].children++;
		for (int s = 0; s < NSLOT; s++)
			pool_clear(&cgs[c].pool[s]);
		break;
	case OP_RMDIR:
		cgs[c].online = false;
		/* kernfs releases the open files of a removed cgroup. */
		for (f = 0; f < NFD; f++)
			if (fds[f].used && fds[f].cg == c)
				close_fd(f);
		break;
	case OP_FREE:
		cgs[c].exists = false;
		cgs[cgs[c].parent].children--;
		break;
	case OP_MOVE:
		task = c;
		break;
	case OP_CHARGE:
		if (op->c == RES_MR)
			res.ret = -EINVAL;	/* bytes go by their own call */
		else
			res = charge_op(op, task, op->b, op->c, 1, -1);
		break;
	case OP_OBJ:
		res = obj_op(op);
		break;
	case OP_MR:
		res = charge_op(op, task, op->b, RES_MR, op->n, -1);
		break;
	case OP_UNCHARGE:
		uncharge(&charges[op->a]);
		break;
	case OP_WRITE:
		res.ret = write_limits(op);
		break;
	case OP_OPEN:
		memset(&fds[op->a], 0, sizeof(fds[op->a]));
		fds[op->a].used = true;
		fds[op->a].cg = op->b;
		fds[op->a].file = op->c;
		break;
	case OP_RESET:
		res.ret = reset(op);
		break;
	case OP_CLOSE:
		close_fd(op->a);
		break;
	case OP_GP:
		break;
	}
	return res;
}

struct result model_apply(const struct op *op)
{
	expect_log[0] = 0;
	memset(notified, 0, sizeof(notified));
	/* The message of a device left unaccounted is not documented. */
	expect_any_log = op->kind == OP_REGNOID;
	return apply(op);
}

/* --- the files ------------------------------------------------------------------ */

/*
 * Append to the text of @size bytes at @buf, @len long so far, as
 * snprintf() would; return the new length, which stays below @size.
 */
size_t textf(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return len;
	return len + n < size ? len + n : size - 1;
}

struct out {
	char *buf;
	size_t size, len;
};

#define add(o, ...) ((o)->len = textf((o)->buf, (o)->size, (o)->len, __VA_ARGS__))

static unsigned long long shown(int c, int s, int r, int file, int fd)
{
	struct mpool *p = &cgs[c].pool[s];

	switch (file) {
	case F_MAX:
	case F_MR_MAX:
		return p->max[r];
	case F_CURRENT:
	case F_MR_CURRENT:
		return p->usage[r];
	}
	return fd >= 0 && fds[fd].reset ? fds[fd].peak[s][r] : p->peak[r];
}

static void show_line(struct out *o, int c, int s, int file, int fd)
{
	unsigned long long *ev;
	unsigned long long v;
	int r;

	add(o, "%s", dev[s].name);
	if (name_shared(s))
		add(o, " index=%u", dev[s].index);
	if (file == F_EVENTS || file == F_EVENTS_LOCAL) {
		for (r = 0; r < NRES; r++) {
			ev = cgs[c].pool[s].ev[r];
			if (file == F_EVENTS)
				add(o, " %s.max=%llu %s.alloc_fail=%llu",
				    res_names[r], ev[EV_MAX], res_names[r], ev[EV_FAIL]);
			else
				add(o, " %s.max=%llu %s.alloc_fail=%llu",
				    res_names[r], ev[EV_MAX_LOCAL], res_names[r],
				    ev[EV_FAIL_LOCAL]);
		}
	} else if (file >= F_MR_MAX) {
		v = shown(c, s, RES_MR, file, fd);
		if (file == F_MR_MAX && v == BYTES_MAX)
			add(o, " max");
		else
			add(o, " %llu", v);
	} else {
		for (r = RES_HANDLE; r <= RES_OBJECT; r++) {
			v = shown(c, s, r, file, fd);
			if (file == F_MAX && v == COUNT_MAX)
				add(o, " %s=max", res_names[r]);
			else
				add(o, " %s=%llu", res_names[r], v);
		}
	}
	add(o, "\n");
}

/* The text of @file of cgroup @c, as read through open file @fd or a new one. */
size_t model_show(int c, int file, int fd, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	unsigned long last = 0;

	buf[0] = 0;
	/* Accounted devices in registration order. */
	for (;;) {
		int next = -1;

		for (int s = 0; s < NSLOT; s++)
			if (dev[s].state == 1 && dev[s].order > last &&
			    (next < 0 || dev[s].order < dev[next].order))
				next = s;
		if (next < 0)
			break;
		show_line(&o, c, next, file, fd);
		last = dev[next].order;
	}
	return o.len;
}

/* --- what the fuzzer reads ---------------------------------------------------------- */

bool model_online(int c)
{
	return cg_online(c);
}

bool model_exists(int c)
{
	return id_ok(c, NCG) && cgs[c].exists;
}

bool model_notified(int c, int file)
{
	return file == F_EVENTS ? notified[c][0] :
	       file == F_EVENTS_LOCAL ? notified[c][1] : false;
}

long model_refs(int c)
{
	return cgs[c].refs;
}

void model_view(struct model_view *v)
{
	memset(v, 0, sizeof(*v));
	v->task = task;
	for (int c = 0; c < NCG; c++) {
		struct op rm = { .kind = OP_RMDIR, .a = c };
		struct op fr = { .kind = OP_FREE, .a = c };

		v->exists[c] = cgs[c].exists;
		v->online[c] = cg_online(c);
		v->removable[c] = model_valid(&rm);
		v->freeable[c] = model_valid(&fr);
		v->nonline += v->online[c];
		v->nexist += v->exists[c];
		for (int p = c; p > 0 && cgs[c].exists; p = cgs[p].parent)
			v->depth[c]++;
	}
	for (int s = 0; s < NSLOT; s++) {
		v->dev_state[s] = dev[s].state;
		v->dev_index[s] = dev[s].index;
		memcpy(v->dev_name[s], dev[s].name, NAME_LEN);
	}
	for (int h = 0; h < NCHARGE; h++) {
		v->charge_used[h] = charges[h].used;
		v->charge_kind[h] = charges[h].kind;
		v->charge_res[h] = charges[h].res;
		v->charge_objs[h] = charges[h].objs;
	}
	for (int f = 0; f < NFD; f++) {
		v->fd_used[f] = fds[f].used;
		v->fd_file[f] = fds[f].file;
		v->fd_cg[f] = fds[f].cg;
	}
}
