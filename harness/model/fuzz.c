// SPDX-License-Identifier: GPL-2.0
/*
 * The model fuzzer: random sequences of everything a user or ib_core can
 * do to the RDMA controller, carried out on kernel/cgroup/rdma.c (sut.c)
 * and on the reference model (model.c); after every step every file of
 * every cgroup, every open peak file, every css reference count and the
 * kernel log must agree, and after the sequence everything is undone and
 * nothing may be left allocated.
 *
 *   rdmacg_model [-t SECONDS] [-n OPS] [-N TOTAL] [-o DIR] [SEED...]
 *	runs seeds 1, 2, ... (or those given), OPS operations each, until
 *	SECONDS have passed or TOTAL operations were carried out (every
 *	5 minutes a line says how far); each seed runs in a child process, so that a
 *	sanitizer report ends only that seed. A failing seed's sequence is
 *	reduced (delta debugging) and written to DIR/fail-SEED.ops.
 *   rdmacg_model --replay FILE
 *	runs the operations of FILE, printing each one.
 *
 * The operations a child generates go to memory shared with the parent
 * before they run, so the parent has the sequence whatever kills the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model.h"
#include "../fuzz/model.h"

#include "counters.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_OPS		20000
#define TEARDOWN_OPS	(NFD + NCHARGE + 2 * NCG + NSLOT + 2)
#define SHOW_LEN	1024
#define NOUTCOMES	5	/* 0, -EAGAIN, -ENODEV, -EINVAL, -ENOTUNIQ */

/*
 * How an operation is written in a sequence file: its name, then its
 * fields: a, b (numbers), n (bytes, or a device's index), R (c, a
 * resource), F (b, a file), G (c, a file), t (the text, quoted).
 */
static const struct {
	const char *name, *fields;
} op_text[NR_OPS] = {
	[OP_REG] = { "reg", "ant" },		[OP_REGNOID] = { "regnoid", "ant" },
	[OP_UNREG] = { "unreg", "a" },		[OP_RENAME] = { "rename", "at" },
	[OP_MKDIR] = { "mkdir", "ab" },		[OP_RMDIR] = { "rmdir", "a" },
	[OP_FREE] = { "free", "a" },		[OP_MOVE] = { "move", "a" },
	[OP_CHARGE] = { "charge", "abR" },	[OP_OBJ] = { "obj", "ab" },
	[OP_MR] = { "mr", "abn" },		[OP_UNCHARGE] = { "uncharge", "a" },
	[OP_WRITE] = { "write", "aFt" },	[OP_OPEN] = { "open", "abG" },
	[OP_RESET] = { "reset", "at" },		[OP_CLOSE] = { "close", "a" },
	[OP_GP] = { "gp", "" },
};

static const char *const res_keys[NRES] = {
	"hca_handle", "hca_object", "mr_mem"
};

/* What the parent reads from a child: the sequence and what it covered. */
struct shared {
	int nops;			/* generated so far */
	int failed_at;			/* step that failed, or -1 */
	long done[NR_OPS];		/* valid operations carried out */
	long outcome[NR_OPS][NOUTCOMES];	/* see outcome_index() */
	long skipped;
	struct op ops[MAX_OPS + TEARDOWN_OPS];
};

static struct shared *sh;
static bool verbose;		/* --replay: print every operation */
static bool quiet;		/* reduction: no diagnostics */

/* --- random numbers: splitmix64 ------------------------------------------- */

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int pick(int n)
{
	return n > 0 ? (int)(rnd() % (unsigned int)n) : 0;
}

static bool chance(int percent)
{
	return pick(100) < percent;
}

/* --- text of operations ------------------------------------------------------- */

static void print_text(FILE *f, const char *s, int len)
{
	fputc('"', f);
	model_put_escaped(f, (const unsigned char *)s, len);
	fputc('"', f);
}

static void print_op(FILE *f, const struct op *op)
{
	const char *fmt = op_text[op->kind].fields;

	fputs(op_text[op->kind].name, f);
	for (; *fmt; fmt++) {
		fputc(' ', f);
		switch (*fmt) {
		case 'a':
			fprintf(f, "%d", op->a);
			break;
		case 'b':
			fprintf(f, "%d", op->b);
			break;
		case 'n':
			fprintf(f, "%llu", op->n);
			break;
		case 'R':
			fprintf(f, "%s", res_keys[op->c]);
			break;
		case 'F':
			fprintf(f, "rdma.%s", file_names[op->b]);
			break;
		case 'G':
			fprintf(f, "rdma.%s", file_names[op->c]);
			break;
		case 't':
			print_text(f, op->text, op->len);
			break;
		}
	}
	fputc('\n', f);
}

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}

/* The quoted text at *p into @op; 0 or -1. */
static int parse_text(const char **p, struct op *op)
{
	const char *s = *p;
	unsigned int x;

	if (*s++ != '"')
		return -1;
	op->len = 0;
	while (*s && *s != '"' && op->len < TEXT_LEN - 1) {
		char c = *s++;

		if (c == '\\') {
			c = *s++;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'x' && sscanf(s, "%2x", &x) == 1) {
				c = (char)x;
				s += 2;
			}
		}
		op->text[op->len++] = c;
	}
	op->text[op->len] = 0;
	if (*s != '"')
		return -1;
	*p = s + 1;
	return 0;
}

/* One line of a replay file into @op: 1, 0 for a blank or comment, -1. */
static int parse_op(const char *line, struct op *op)
{
	char word[64];
	const char *p = line, *fmt;
	int n, v;

	memset(op, 0, sizeof(*op));
	if (sscanf(p, " %63s%n", word, &n) != 1 || word[0] == '#')
		return 0;
	p += n;
	for (op->kind = 0; op->kind < NR_OPS; op->kind++)
		if (!strcmp(op_text[op->kind].name, word))
			break;
	if (op->kind == NR_OPS)
		return -1;
	for (fmt = op_text[op->kind].fields; *fmt; fmt++) {
		while (*p == ' ')
			p++;
		if (*fmt == 't') {
			if (parse_text(&p, op))
				return -1;
			continue;
		}
		if (sscanf(p, "%63s%n", word, &n) != 1)
			return -1;
		p += n;
		if (*fmt == 'n') {
			op->n = strtoull(word, NULL, 10);
			continue;
		}
		if (*fmt == 'R')
			v = name_index(res_keys, NRES, word);
		else if (*fmt == 'F' || *fmt == 'G')
			v = strncmp(word, "rdma.", 5) ? -1 :
			    name_index(file_names, NFILES, word + 5);
		else
			v = atoi(word);
		if (v < 0 && *fmt != 'a' && *fmt != 'b')
			return -1;
		if (*fmt == 'a')
			op->a = v;
		else if (*fmt == 'b' || *fmt == 'F')
			op->b = v;
		else
			op->c = v;
	}
	return 1;
}

/* --- generation --------------------------------------------------------------- */

static const char *const dev_names[] = {
	"mlx5_0", "mlx5_1", "rxe0", "siw0", "d", "dd", "mlx5_10", "x_y",
};

static int used_id(const bool *used, int n);

static const char *random_name(void)
{
	return dev_names[pick(ARRAY_LEN(dev_names))];
}

/* A slot whose device is in @state (any registered one for -1), or -1. */
static int slot_in(const struct model_view *v, int state)
{
	bool ok[NSLOT];

	for (int s = 0; s < NSLOT; s++)
		ok[s] = state < 0 ? v->dev_state[s] != 0 : v->dev_state[s] == state;
	return used_id(ok, NSLOT);
}

/* A slot to charge: a registered device's mostly. */
static int charge_slot(const struct model_view *v)
{
	int s = slot_in(v, -1);

	return s < 0 || chance(8) ? pick(NSLOT) : s;
}

/*
 * A name for a device to register or rename to: now and then a registered
 * device's, so that two share it (ib_core's names are unique in a network
 * namespace only).
 */
static const char *device_name(const struct model_view *v)
{
	int s = slot_in(v, -1);

	return s >= 0 && chance(35) ? v->dev_name[s] : random_name();
}

/*
 * ib_core's index of a new device: the next of a counter, as its
 * xa_alloc_cyclic() gives them, now and then an old one again (valid only
 * if no registered device has it) or one near U32_MAX.
 */
static unsigned int next_index;

static unsigned long long device_index(void)
{
	if (chance(5))
		return 0xffffffffULL - pick(2);
	if (chance(10))
		return pick(next_index + 1);
	return next_index++;
}

#define append(op, ...) ((op)->len = textf((op)->text, TEXT_LEN, (op)->len, __VA_ARGS__))

/*
 * The name of a line of a write, an accounted device's mostly: the slot
 * of the device whose name it is, or -1.
 */
static int write_name(struct op *op, const struct model_view *v)
{
	int s = slot_in(v, 1);

	if (s < 0 || !chance(92)) {
		s = pick(NSLOT);
		if (!v->dev_state[s] || chance(50)) {
			append(op, "%s", random_name());
			return -1;
		}
	}
	append(op, "%s", v->dev_name[s]);
	return s;
}

/* Whether another accounted device than slot @s's has its name. */
static bool shared_name(const struct model_view *v, int s)
{
	for (int o = 0; o < NSLOT; o++)
		if (o != s && v->dev_state[o] == 1 &&
		    !strcmp(v->dev_name[o], v->dev_name[s]))
			return true;
	return false;
}

static const char *blank(void);

/*
 * Maybe an "index=N" key for the device of slot @s (-1: a name no device
 * has), mostly where its name is shared: its index mostly, else another
 * device's (of the same name or not), an unused one or a malformed one.
 */
static void index_key(struct op *op, const struct model_view *v, int s)
{
	static const char *const odd[] = {
		"", "-1", "0x1", "4294967296", "1a", "max", "08",
	};
	int o = pick(NSLOT);

	if (!chance(s >= 0 && shared_name(v, s) ? 75 : 15))
		return;
	append(op, "%s", blank());
	if (s >= 0 && chance(75))
		append(op, chance(10) ? "index=0%u" : "index=%u", v->dev_index[s]);
	else if (v->dev_state[o] && chance(50))
		append(op, "index=%u", v->dev_index[o]);
	else if (chance(60))
		append(op, "index=%u", pick(next_index + 2));
	else
		append(op, "index=%s", odd[pick(ARRAY_LEN(odd))]);
	/* Given twice: -EINVAL. */
	if (chance(3))
		append(op, "%sindex=%u", blank(), s >= 0 ? v->dev_index[s] : 1);
}

static const char *blank(void)
{
	static const char *const b[] = { " ", " ", " ", "\t", "  ", " \t " };

	return b[pick(ARRAY_LEN(b))];
}

/* A value of rdma.max: small mostly, so that limits are met. */
static void count_value(struct op *op)
{
	static const char *const odd[] = {
		"max", "2147483647", "0", "007", "2147483646",
		/* malformed */
		"-1", "0x10", "5abc", "", "2147483648", "m", "+5", "1K",
	};

	if (chance(80))
		append(op, "%d", pick(7));
	else
		append(op, "%s", odd[pick(chance(70) ? 5 : ARRAY_LEN(odd))]);
}

static void max_line(struct op *op, const struct model_view *v)
{
	int order = pick(4), s = write_name(op, v), where = pick(3);

	for (int i = 0; i < 2; i++) {
		int r = (order & 1) ? 1 - i : i;

		if (i == where)
			index_key(op, v, s);
		if (order & 2 && i == 1 && chance(50))
			break;
		append(op, "%s", blank());
		if (chance(3)) {
			append(op, "%s", chance(50) ? "hca_foo=1" : res_keys[r]);
			continue;
		}
		append(op, "%s=", res_keys[chance(3) ? 1 - r : r]);
		count_value(op);
	}
	if (where == 2)
		index_key(op, v, s);
}

static void bytes_line(struct op *op, const struct model_view *v)
{
	static const char *const sfx[] = { "", "K", "M", "G", "T", "k", "m" };
	static const char *const odd[] = {
		"max", "0", "6000", "18446744073709551615", "18446744073709551616",
		"16777216T", "1.5M", "-1", "4096 4096", "K", "0x1000",
	};
	int s = write_name(op, v);
	bool after = chance(30);

	if (!after)
		index_key(op, v, s);
	append(op, "%s", blank());
	if (chance(55))
		append(op, "%d", 4096 * pick(17));
	else if (chance(60))
		append(op, "%d%s", pick(65), sfx[pick(ARRAY_LEN(sfx))]);
	else
		append(op, "%s", odd[pick(ARRAY_LEN(odd))]);
	if (after)
		index_key(op, v, s);
}

/* The text of a write of limits: lines, blanks, a repeated device. */
static void limits_text(struct op *op, const struct model_view *v)
{
	/* More than 4 lines take rdma.c's allocated array. */
	int lines = chance(5) ? 0 : 1 + (chance(30) ? pick(chance(20) ? 6 : 3) : 0);

	for (int i = 0; i < lines; i++) {
		if (chance(10))
			append(op, "%s", blank());
		if (op->b == F_MAX)
			max_line(op, v);
		else
			bytes_line(op, v);
		if (chance(10))
			append(op, "%s", blank());
		if (i + 1 < lines || chance(60))
			append(op, "\n");
		if (chance(5))
			append(op, "%s\n", chance(50) ? "" : blank());
	}
	if (!lines && chance(50))
		append(op, "%s\n", blank());
}

static unsigned long long mr_bytes(void)
{
	switch (pick(10)) {
	case 0:
		return 0;
	case 1:
		return 1 + pick(5000);
	case 2:
		return (1ULL << 40) << pick(24);	/* up to 2^63 */
	case 3:
		return ~0ULL - pick(3);
	default:
		return 4096ULL * (1 + pick(16));
	}
}

/* An id from 0 to @n - 1 whose @used is false, or -1. */
static int free_id(const bool *used, int n)
{
	int i = pick(n);

	for (int k = 0; k < n; k++, i = (i + 1) % n)
		if (!used[i])
			return i;
	return -1;
}

static int used_id(const bool *used, int n)
{
	int i = pick(n);

	for (int k = 0; k < n; k++, i = (i + 1) % n)
		if (used[i])
			return i;
	return -1;
}

/* A cgroup with files (online, not the root), or -1. */
static int cg_with_files(const struct model_view *v)
{
	bool ok[NCG];

	for (int c = 0; c < NCG; c++)
		ok[c] = c && v->online[c];
	return used_id(ok, NCG);
}

/* Operation weights; see gen_op(). */
static const int weights[NR_OPS] = {
	[OP_REG] = 4, [OP_REGNOID] = 1, [OP_UNREG] = 2, [OP_RENAME] = 1,
	[OP_MKDIR] = 5, [OP_RMDIR] = 3, [OP_FREE] = 6, [OP_MOVE] = 6,
	[OP_CHARGE] = 20, [OP_OBJ] = 14, [OP_MR] = 12, [OP_UNCHARGE] = 30,
	[OP_WRITE] = 14, [OP_OPEN] = 3, [OP_RESET] = 5, [OP_CLOSE] = 2,
	[OP_GP] = 3,
};

/* Fill @op with an operation of @kind that fits the model's state. */
static bool gen_kind(struct op *op, int kind, const struct model_view *v)
{
	bool ok[NCHARGE > NCG ? NCHARGE : NCG];
	const char *name;

	memset(op, 0, sizeof(*op));
	op->kind = kind;
	switch (kind) {
	case OP_REG:
	case OP_REGNOID:
	case OP_RENAME:
		op->a = pick(NSLOT);
		if (kind != OP_RENAME)
			op->n = device_index();
		name = device_name(v);
		op->len = strlen(name);
		memcpy(op->text, name, op->len + 1);
		break;
	case OP_UNREG:
		op->a = pick(NSLOT);
		break;
	case OP_MKDIR:
		if (v->nexist >= NCG - 2 || v->nonline > 14)
			return false;
		op->a = free_id(v->exists, NCG);
		op->b = chance(25) ? 0 : used_id(v->online, NCG);
		if (chance(15)) {
			/*
			 * Now and then deeper than the 16 levels whose peaks
			 * a charge remembers (RDMACG_PEAK_LEVELS).
			 */
			for (int c = 0; c < NCG; c++)
				if (v->online[c] && v->depth[c] > v->depth[op->b])
					op->b = c;
		} else if (op->b >= 0 && v->depth[op->b] >= 5) {
			op->b = 0;
		}
		break;
	case OP_RMDIR:
		op->a = used_id(v->removable, NCG);
		break;
	case OP_FREE:
		op->a = used_id(v->freeable, NCG);
		break;
	case OP_MOVE:
		op->a = chance(10) ? 0 : used_id(v->online, NCG);
		break;
	case OP_CHARGE:
		op->a = free_id(v->charge_used, NCHARGE);
		op->b = charge_slot(v);
		op->c = chance(2) ? RES_MR : pick(2);
		break;
	case OP_OBJ:
		for (int h = 0; h < NCHARGE; h++)
			ok[h] = v->charge_used[h] && v->charge_kind[h] == OP_CHARGE &&
				v->charge_res[h] == RES_HANDLE;
		op->a = free_id(v->charge_used, NCHARGE);
		op->b = used_id(ok, NCHARGE);
		break;
	case OP_MR:
		op->a = free_id(v->charge_used, NCHARGE);
		op->b = charge_slot(v);
		op->n = mr_bytes();
		break;
	case OP_UNCHARGE:
		for (int h = 0; h < NCHARGE; h++)
			ok[h] = v->charge_used[h] && !v->charge_objs[h];
		op->a = used_id(ok, NCHARGE);
		break;
	case OP_WRITE:
		op->a = cg_with_files(v);
		op->b = chance(55) ? F_MAX : F_MR_MAX;
		limits_text(op, v);
		break;
	case OP_OPEN:
		op->a = free_id(v->fd_used, NFD);
		op->b = cg_with_files(v);
		op->c = chance(60) ? F_PEAK : F_MR_PEAK;
		break;
	case OP_RESET:
		op->a = used_id(v->fd_used, NFD);
		name = chance(3) ? "" : chance(50) ? "reset" : chance(50) ? "\n" : "0";
		op->len = strlen(name);
		memcpy(op->text, name, op->len + 1);
		break;
	case OP_CLOSE:
		op->a = used_id(v->fd_used, NFD);
		break;
	case OP_GP:
		break;
	}
	return model_valid(op);
}

static void gen_op(struct op *op)
{
	struct model_view v;
	int total = 0, w;

	model_view(&v);
	for (int k = 0; k < NR_OPS; k++)
		total += weights[k];
	for (;;) {
		w = pick(total);
		for (int k = 0; k < NR_OPS; k++) {
			w -= weights[k];
			if (w < 0) {
				if (gen_kind(op, k, &v))
					return;
				break;
			}
		}
	}
}

/*
 * The operations that undo everything the model holds, in an order the
 * API allows: files closed, objects uncharged before their contexts, the
 * task back in the root, cgroups removed from the leaves up and freed
 * once they can be, devices unregistered, a grace period.
 */
static int teardown_op(struct op *op)
{
	static const int order[] = {
		OP_CLOSE, OP_UNCHARGE, OP_MOVE, OP_RMDIR, OP_FREE, OP_UNREG,
	};
	struct model_view v;

	model_view(&v);
	for (size_t k = 0; k < ARRAY_LEN(order); k++) {
		memset(op, 0, sizeof(*op));
		op->kind = order[k];
		switch (op->kind) {
		case OP_CLOSE:
			op->a = used_id(v.fd_used, NFD);
			break;
		case OP_UNCHARGE:
			for (op->a = 0; op->a < NCHARGE; op->a++)
				if (v.charge_used[op->a] && !v.charge_objs[op->a])
					break;
			break;
		case OP_MOVE:
			op->a = 0;
			if (!v.task)
				continue;
			break;
		case OP_RMDIR:
			op->a = used_id(v.removable, NCG);
			break;
		case OP_FREE:
			op->a = used_id(v.freeable, NCG);
			break;
		case OP_UNREG:
			for (op->a = 0; op->a < NSLOT; op->a++)
				if (v.dev_state[op->a])
					break;
			break;
		}
		if (model_valid(op))
			return 1;
	}
	return 0;
}

/* --- checks ------------------------------------------------------------------------ */

static int step_no;

static int fail(const struct op *op, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(const struct op *op, const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return -1;
	fprintf(stderr, "model: MISMATCH at step %d: ", step_no);
	print_op(stderr, op);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	return -1;
}

static int compare_file(const struct op *op, int c, int file, int fd)
{
	char want[SHOW_LEN], got[SHOW_LEN], via[32] = "";

	model_show(c, file, fd, want, sizeof(want));
	sut_show(c, file, fd, got, sizeof(got));
	if (!strcmp(want, got))
		return 0;
	if (fd >= 0)
		snprintf(via, sizeof(via), " through open file %d", fd);
	return fail(op, "cgroup c%d rdma.%s%s:\n--- model\n%s--- rdma.c\n%s",
		    c, file_names[file], via, want, got);
}

/* Everything that can be read must be what the model says. */
static int check_all(const struct op *op)
{
	struct model_view v;

	if (kshim_warnings)
		return fail(op, "rdma.c or a stand-in warned (above)\n");
	if (kshim_rcu_depth || kshim_spins)
		return fail(op, "left an RCU read section (%d) or spinlock (%d)\n",
			    kshim_rcu_depth, kshim_spins);
	model_view(&v);
	for (int c = 0; c < NCG; c++) {
		if (v.exists[c] && model_refs(c) != sut_refs(c))
			return fail(op, "cgroup c%d: css references %ld, model %ld\n",
				    c, sut_refs(c), model_refs(c));
		for (int file = F_EVENTS; v.exists[c] && file <= F_EVENTS_LOCAL; file++)
			if (model_notified(c, file) != sut_notified(c, file))
				return fail(op, "cgroup c%d rdma.%s: %s modified event\n",
					    c, file_names[file],
					    model_notified(c, file) ? "no" : "a");
		if (!c || !v.online[c])
			continue;
		for (int file = 0; file < NFILES; file++)
			if (compare_file(op, c, file, -1))
				return -1;
	}
	return 0;
}

static int check_fds(const struct op *op)
{
	struct model_view v;

	model_view(&v);
	for (int f = 0; f < NFD; f++)
		if (v.fd_used[f] && compare_file(op, v.fd_cg[f], v.fd_file[f], f))
			return -1;
	return 0;
}

static int outcome_index(long ret)
{
	switch (ret) {
	case -EAGAIN:
		return 1;
	case -ENODEV:
		return 2;
	case -EINVAL:
		return 3;
	case -ENOTUNIQ:
		return 4;
	}
	return 0;
}

/* Carry @op out on both; 1 if it was skipped, 0 if they agree, -1. */
static int step(const struct op *op)
{
	struct result want, got;

	if (!model_valid(op)) {
		if (verbose)
			printf("(skipped) ");
		return 1;
	}
	if (verbose)
		print_op(stdout, op);
	want = model_apply(op);
	kshim_loglen = 0;
	kshim_logbuf[0] = 0;
	got = sut_apply(op);
	if (want.ret != got.ret)
		return fail(op, "returned %ld, model %ld\n", got.ret, want.ret);
	if (want.cg != got.cg)
		return fail(op, "charged cgroup c%d, model c%d\n", got.cg, want.cg);
	if (!model_log_ok(kshim_logbuf))
		return fail(op, "kernel log:\n%s(nothing more)\n", kshim_logbuf);
	sh->done[op->kind]++;
	sh->outcome[op->kind][outcome_index(want.ret)]++;
	return check_all(op) || check_fds(op) ? -1 : 0;
}

/*
 * Run @n operations of sh->ops, generating them first if @generate, then
 * the teardown. Returns 0 if all agreed and nothing leaked.
 */
static int run(int n, bool generate)
{
	int i, r;

	model_reset();
	sut_init();
	next_index = 1;
	sh->failed_at = -1;
	for (i = 0; i < n + TEARDOWN_OPS; i++) {
		step_no = i;
		if (i >= n) {
			if (!teardown_op(&sh->ops[i]))
				break;
		} else if (generate) {
			gen_op(&sh->ops[i]);
		}
		/* In memory the parent reads, before it can kill us. */
		sh->nops = i + 1;
		r = step(&sh->ops[i]);
		if (r < 0) {
			sh->failed_at = i;
			return -1;
		}
		sh->skipped += r;
	}
	sut_teardown_check();
	if (kshim_warnings) {
		sh->failed_at = sh->nops;
		return fail(&sh->ops[sh->nops - 1], "after the teardown (above)\n");
	}
	return 0;
}

/* --- processes -------------------------------------------------------------------------- */

/* Run in a child: 0 if it passed. */
static int in_child(int n, bool generate, bool silent)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		if (silent) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			quiet = true;
		}
		/* exit(), not _exit(): LeakSanitizer checks the child too. */
		exit(run(n, generate) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		exit(2);
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static struct op *saved;	/* the sequence being reduced */

/* Whether the operations of @keep (a mask of @n) still fail. */
static bool still_fails(const bool *keep, int n)
{
	int m = 0;

	for (int i = 0; i < n; i++)
		if (keep[i])
			sh->ops[m++] = saved[i];
	return in_child(m, false, true);
}

/*
 * Delta debugging (ddmin): drop chunks of operations while the rest still
 * fails, with ever smaller chunks, down to single operations.
 */
static int reduce(int n, int seconds)
{
	bool *keep = calloc(n, sizeof(*keep));
	int chunks = 2, m, i, c, kept = n;
	time_t end = time(NULL) + seconds;

	for (i = 0; i < n; i++)
		keep[i] = true;
	while (kept > 1 && time(NULL) < end) {
		bool dropped = false;
		int size = (kept + chunks - 1) / chunks;

		for (c = 0; c < chunks && time(NULL) < end; c++) {
			bool *trial = malloc(n * sizeof(*trial));
			int seen = 0;

			/* Drop the c-th chunk of the operations still kept. */
			for (i = 0; i < n; i++) {
				trial[i] = keep[i];
				if (keep[i] && seen++ / size == c)
					trial[i] = false;
			}
			if (still_fails(trial, n)) {
				memcpy(keep, trial, n * sizeof(*keep));
				for (kept = 0, i = 0; i < n; i++)
					kept += keep[i];
				dropped = true;
			}
			free(trial);
		}
		if (dropped)
			chunks = chunks > 2 ? chunks - 1 : 2;
		else if (size == 1)
			break;
		else
			chunks = chunks * 2 < kept ? chunks * 2 : kept;
	}
	for (m = 0, i = 0; i < n; i++)
		if (keep[i])
			saved[m++] = saved[i];
	free(keep);
	return m;
}

static void report_failure(unsigned long seed, int n, const char *dir)
{
	char path[512];
	FILE *f;
	int m;

	saved = malloc(sizeof(*saved) * n);
	memcpy(saved, sh->ops, sizeof(*saved) * n);
	printf("model: seed %lu FAILED at step %d of %d; reducing\n",
	       seed, sh->failed_at, n);
	m = reduce(n, 120);
	snprintf(path, sizeof(path), "%s/fail-%lu.ops", dir, seed);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "# seed %lu: %d operations of %d still fail; the "
			"teardown follows them (run.sh --replay %s)\n",
			seed, m, n, path);
		for (int i = 0; i < m; i++)
			print_op(f, &saved[i]);
		fclose(f);
	}
	printf("model: reduced to %d operations (%s):\n", m, path);
	for (int i = 0; i < m; i++) {
		printf("    ");
		print_op(stdout, &saved[i]);
	}
	free(saved);
}

static int replay(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0, r, lineno = 0;

	if (!f) {
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		r = parse_op(line, &sh->ops[n]);
		if (r < 0) {
			fprintf(stderr, "%s:%d: cannot parse: %s", path, lineno, line);
			return 2;
		}
		if (r && ++n == MAX_OPS)
			break;
	}
	fclose(f);
	verbose = true;
	setvbuf(stdout, NULL, _IOLBF, 0);	/* in order with stderr */
	r = run(n, false);
	printf("model: replay of %d operations: %s\n", n,
	       r ? "FAILED" : "model and rdma.c agree, nothing leaked");
	return r ? 1 : 0;
}

static void print_coverage(void)
{
	static const char *const outcome_names[NOUTCOMES] = {
		"ok", "EAGAIN", "ENODEV", "EINVAL", "ENOTUNIQ"
	};

	printf("model: operations covered:");
	for (int k = 0; k < NR_OPS; k++)
		printf(" %s %ld%s", op_text[k].name, sh->done[k],
		       k + 1 < NR_OPS ? "," : "\n");
	printf("model: outcomes:");
	for (int k = 0; k < NR_OPS; k++) {
		if (sh->outcome[k][0] == sh->done[k])
			continue;
		printf(" %s", op_text[k].name);
		for (int o = 0; o < NOUTCOMES; o++)
			if (sh->outcome[k][o])
				printf(" %s=%ld", outcome_names[o], sh->outcome[k][o]);
		printf(";");
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	long seconds = 60, nops = 3000, total = 0, totals[NR_OPS] = { 0 };
	long target = 0;		/* -N: stop at this many operations */
	time_t progress;
	long outcomes[NR_OPS][NOUTCOMES] = { { 0 } };
	const char *dir = "build/model";
	unsigned long seed = 0, seeds = 0, failures = 0;
	time_t start = time(NULL);
	int opt, next_arg, failed;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	if (argc == 3 && !strcmp(argv[1], "--replay"))
		return replay(argv[2]);
	while ((opt = getopt(argc, argv, "t:n:o:N:")) != -1) {
		switch (opt) {
		case 'N':
			target = atol(optarg);
			break;
		case 't':
			seconds = atol(optarg);
			break;
		case 'n':
			nops = atol(optarg);
			break;
		case 'o':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-n OPS] [-N TOTAL] [-o DIR] [SEED...]\n"
				"       %s --replay FILE\n", argv[0], argv[0]);
			return 2;
		}
	}
	if (nops < 1 || nops > MAX_OPS)
		nops = MAX_OPS;
	next_arg = optind;
	progress = start;
	for (;;) {
		if (time(NULL) - progress >= 300) {
			progress = time(NULL);
			printf("model: %ld ops, %lu seeds so far, %ld s\n", total,
			       seeds, (long)(progress - start));
			fflush(stdout);
		}
		if (next_arg < argc) {
			seed = strtoul(argv[next_arg++], NULL, 10);
		} else if (optind < argc || time(NULL) - start >= seconds ||
			   (target && total >= target)) {
			break;
		} else {
			seed++;
		}
		memset(sh, 0, offsetof(struct shared, ops));
		rng = seed;
		seeds++;
		failed = in_child(nops, true, false);
		/* Before a reduction's runs count in the same place. */
		for (int k = 0; k < NR_OPS; k++) {
			totals[k] += sh->done[k];
			total += sh->done[k];
			for (int o = 0; o < NOUTCOMES; o++)
				outcomes[k][o] += sh->outcome[k][o];
		}
		if (failed) {
			/* One reduced sequence says enough; stop there. */
			failures++;
			report_failure(seed, sh->nops, dir);
			break;
		}
	}
	memcpy(sh->done, totals, sizeof(totals));
	memcpy(sh->outcome, outcomes, sizeof(outcomes));
	print_coverage();
	if (optind < argc)
		printf("model: seeds as given, %ld operations each\n", nops);
	else
		printf("model: seeds 1-%lu, %ld operations each\n", seed, nops);
	printf("model: %ld ops, %lu seeds, %lu failures in %ld s\n", total, seeds,
	       failures, (long)(time(NULL) - start));
	return failures ? 1 : 0;
}
