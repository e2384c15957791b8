// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_worker: charge and uncharge the rdma cgroup controller through
 * libibverbs, for the stress and fault injection tests.
 *
 * Usage:
 *   verbs_worker [-d DEV] [-g CGROUP_DIR] loop -t SECONDS [-n MAX_ITER]
 *		[-o MAX_OBJECTS] [-s SEED]
 *	Until SECONDS have passed or MAX_ITER iterations are done: open one or
 *	two contexts, create up to MAX_OBJECTS objects (PD, CQ or MR at
 *	random) on the first, destroy everything and close.  An MR covers a
 *	random range of 1 byte to 8 pages, at a random offset, of a buffer
 *	that every MR shares, so that its charge (its page-rounded span) varies
 *	from 1 to 9 pages.  One iteration in
 *	eight runs in a child that exits holding everything, so that process
 *	exit does the cleanup.  A refusal (EAGAIN) is counted, as is a device
 *	that is gone (it is removed and re-added by the stress test: ENODEV,
 *	ENOENT, ENXIO, EIO, or missing from the device list); any other error
 *	counts as unexpected.  Prints one summary line:
 *	  verbs_worker: iter=N ctx=OK/EAGAIN/GONE pd=... cq=... mr=...
 *	                mr_bytes=B other=N
 *	(B: the page-rounded bytes of the MRs registered) and exits 1 if
 *	anything unexpected happened.
 *
 *   verbs_worker [-d DEV] [-g CGROUP_DIR] hold [-c NCTX] [-p NPD] [-q NCQ]
 *		[-m NMR] [-E NMR_EARLY] [-b BYTES] [-O OFFSET] [-M CGROUP_DIR2]
 *		[-F NTH | -X] [-f ctx|obj|mr] [-w FILE] [-T SECONDS]
 *	Open up to NCTX contexts (stopping at the first failure), move to
 *	CGROUP_DIR2 if given, then create up to NPD PDs, NCQ CQs and NMR MRs
 *	on the first context (each kind stopping at its first failure).  With
 *	-E, the PDs and NMR_EARLY MRs are created before the move, the NMR
 *	MRs after it.  Each MR covers BYTES (default: one page; K, M, G
 *	suffixes) from OFFSET (default 0) into a page of memory of its own,
 *	so that it is charged PAGE_ALIGN(OFFSET + BYTES) bytes.
 *	-F NTH arms /proc/thread-self/fail-nth, -X sets
 *	/proc/self/make-it-fail, just before the first context open (-f ctx,
 *	the default), the first object creation after the move (-f obj) or
 *	the first of the NMR MRs (-f mr), and disarms it right after that one
 *	call.  Prints
 *	  hold: uid=U ctx_ok=N ctx_err=E pd_ok=N pd_err=E cq_ok=N cq_err=E
 *	        mr_ok=N mr_err=E mr_bytes=B injected=0|1
 *	(E is "none" or the errno name of the first failure, B the bytes the
 *	MRs held are charged), then with -w keeps everything while FILE
 *	exists (at most SECONDS, default 120), and exits 0.
 *
 * -g moves this process into CGROUP_DIR first (by writing its pid to
 * cgroup.procs, with the caller's credentials).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "util.h"

static const char *dev_name = "siw0";
static size_t page_size;

/* What an MR of @len bytes at @addr is charged: its page-rounded span. */
static unsigned long long mr_cost(const void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr & ~(page_size - 1);
	uintptr_t end = ((uintptr_t)addr + len + page_size - 1) & ~(page_size - 1);

	return end - start;
}

/* Find DEV in a fresh device list; *list must be freed by the caller. */
static struct ibv_device *find_dev(struct ibv_device ***list)
{
	int i, n;

	*list = ibv_get_device_list(&n);
	if (!*list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name((*list)[i]), dev_name))
			return (*list)[i];
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- loop ---- */

enum { K_CTX, K_PD, K_CQ, K_MR, K_NR };
enum { RES_OK, RES_EAGAIN, RES_GONE, RES_OTHER, RES_NR };
static const char *const k_names[K_NR] = { "ctx", "pd", "cq", "mr" };

/* Shared with the children that exit holding their objects. */
struct stats {
	long iter;
	long count[K_NR][RES_NR];
	unsigned long long mr_bytes;
	long other_reported;
};

static struct stats *st;

static int is_gone(int e)
{
	return e == ENODEV || e == ENOENT || e == ENXIO || e == EIO;
}

static void account(int kind, int ok, int e)
{
	int r = ok ? RES_OK : e == EAGAIN ? RES_EAGAIN : is_gone(e) ? RES_GONE : RES_OTHER;

	__atomic_fetch_add(&st->count[kind][r], 1, __ATOMIC_RELAXED);
	if (r == RES_OTHER &&
	    __atomic_fetch_add(&st->other_reported, 1, __ATOMIC_RELAXED) < 10)
		fprintf(stderr, "verbs_worker[%d]: %s: unexpected %s (%s)\n",
			(int)getpid(), k_names[kind], errname(e), strerror(e));
}

#define LOOP_MAX_OBJ 16
#define LOOP_MR_PAGES 8

/* The buffer of the loop's MRs: 2 * LOOP_MR_PAGES pages. */
static char *arena;

/* A random range of the arena, for an MR of 1 to 1 + LOOP_MR_PAGES pages. */
static void random_range(char **addr, size_t *len)
{
	size_t max = LOOP_MR_PAGES * page_size;

	switch (rand() % 4) {
	case 0:		/* a few bytes: one page, or two across a boundary */
		*len = 1 + rand() % 64;
		break;
	case 1:		/* whole pages */
		*len = (1 + rand() % LOOP_MR_PAGES) * page_size;
		break;
	default:
		*len = 1 + rand() % max;
		break;
	}
	if (rand() % 4)
		*addr = arena + rand() % max;
	else
		*addr = arena + (rand() % LOOP_MR_PAGES) * page_size;
}

static void iteration(struct ibv_device **devp, struct ibv_device ***listp,
		      int max_obj, int keep)
{
	struct ibv_context *ctx, *ctx2 = NULL;
	struct ibv_pd *pds[LOOP_MAX_OBJ];
	struct ibv_cq *cqs[LOOP_MAX_OBJ];
	struct ibv_mr *mrs[LOOP_MAX_OBJ];
	int npd = 0, ncq = 0, nmr = 0, i, nobj, e;

	if (!*devp) {
		if (*listp)
			ibv_free_device_list(*listp);
		*devp = find_dev(listp);
		if (!*devp) {
			account(K_CTX, 0, ENODEV);
			usleep(20000);
			return;
		}
	}
	errno = 0;
	ctx = ibv_open_device(*devp);
	e = errno ? errno : EIO;
	account(K_CTX, ctx != NULL, e);
	if (!ctx) {
		/* The device may have been re-added: look it up again. */
		if (e != EAGAIN)
			*devp = NULL;
		usleep(5000);
		return;
	}
	if (rand() % 4 == 0) {
		errno = 0;
		ctx2 = ibv_open_device(*devp);
		account(K_CTX, ctx2 != NULL, errno ? errno : EIO);
	}

	nobj = max_obj ? rand() % (max_obj + 1) : 0;
	for (i = 0; i < nobj; i++) {
		int kind = K_PD + rand() % 3;

		if (kind == K_MR && !npd)
			kind = K_PD;
		errno = 0;
		switch (kind) {
		case K_PD:
			pds[npd] = ibv_alloc_pd(ctx);
			account(K_PD, pds[npd] != NULL, errno);
			if (pds[npd])
				npd++;
			break;
		case K_CQ:
			cqs[ncq] = ibv_create_cq(ctx, 8, NULL, NULL, 0);
			account(K_CQ, cqs[ncq] != NULL, errno);
			if (cqs[ncq])
				ncq++;
			break;
		case K_MR: {
			size_t len;
			char *addr;

			random_range(&addr, &len);
			mrs[nmr] = ibv_reg_mr(pds[0], addr, len,
					      IBV_ACCESS_LOCAL_WRITE);
			account(K_MR, mrs[nmr] != NULL, errno);
			if (mrs[nmr]) {
				__atomic_fetch_add(&st->mr_bytes, mr_cost(addr, len),
						   __ATOMIC_RELAXED);
				nmr++;
			}
			break;
		}
		}
	}
	if (keep)
		return;
	while (nmr)
		ibv_dereg_mr(mrs[--nmr]);
	while (ncq)
		ibv_destroy_cq(cqs[--ncq]);
	while (npd)
		ibv_dealloc_pd(pds[--npd]);
	if (ctx2)
		ibv_close_device(ctx2);
	ibv_close_device(ctx);
}

static int cmd_loop(int argc, char **argv)
{
	struct ibv_device **list = NULL, *dev = NULL;
	long max_iter = 1000000;
	unsigned int seed = getpid();
	int c, k, max_obj = 4;
	double secs = 10, end;

	while ((c = getopt(argc, argv, "+t:n:o:s:")) != -1) {
		switch (c) {
		case 't':
			secs = atof(optarg);
			break;
		case 'n':
			max_iter = atol(optarg);
			break;
		case 'o':
			max_obj = atoi(optarg);
			break;
		case 's':
			seed = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (max_obj > LOOP_MAX_OBJ)
		max_obj = LOOP_MAX_OBJ;
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* touched now, so that registering it pins without faulting */
	arena = mmap(NULL, 2 * LOOP_MR_PAGES * page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED || arena == MAP_FAILED) {
		perror("verbs_worker: mmap");
		return 2;
	}
	memset(arena, 0x5a, 2 * LOOP_MR_PAGES * page_size);
	srand(seed);
	end = now() + secs;

	while (st->iter < max_iter && now() < end) {
		st->iter++;
		if (st->iter % 8 == 0) {
			int status;
			pid_t pid;

			fflush(NULL);
			pid = fork();
			if (pid < 0) {
				perror("verbs_worker: fork");
				return 2;
			}
			if (!pid) {
				srand(seed + st->iter);
				iteration(&dev, &list, max_obj, 1);
				_exit(0);
			}
			waitpid(pid, &status, 0);
			continue;
		}
		iteration(&dev, &list, max_obj, 0);
	}
	if (list)
		ibv_free_device_list(list);

	printf("verbs_worker: iter=%ld", st->iter);
	for (k = 0; k < K_NR; k++)
		printf(" %s=%ld/%ld/%ld", k_names[k], st->count[k][RES_OK],
		       st->count[k][RES_EAGAIN], st->count[k][RES_GONE]);
	printf(" mr_bytes=%llu", st->mr_bytes);
	printf(" other=%ld\n",
	       st->count[K_CTX][RES_OTHER] + st->count[K_PD][RES_OTHER] +
	       st->count[K_CQ][RES_OTHER] + st->count[K_MR][RES_OTHER]);
	return st->other_reported ? 1 : 0;
}

/* ---- hold ---- */

#define HOLD_MAX 64

enum { FAIL_CTX, FAIL_OBJ, FAIL_MR };

static int cmd_hold(int argc, char **argv)
{
	struct ibv_context *ctx[HOLD_MAX];
	struct ibv_pd *pd[HOLD_MAX];
	struct ibv_cq *cq[HOLD_MAX];
	struct ibv_mr *mr[2 * HOLD_MAX];
	struct ibv_pd *mr_pd = NULL;
	int nctx = 1, npd = 0, ncq = 0, nmr = 0, nmr_early = 0;
	int fail_at = FAIL_CTX, make_it_fail = 0;
	int ok[K_NR] = { 0 }, err[K_NR] = { 0 };
	const char *nth = NULL, *cg2 = NULL, *wait_file = NULL;
	size_t mr_len = page_size, mr_off = 0, stride;
	unsigned long long mr_bytes = 0, v;
	struct ibv_device **list, *dev;
	int c, i, armed = 0, injected = 0, moved, objs_after_move = 0;
	double limit = 120, end;
	char *mem = NULL;

	while ((c = getopt(argc, argv, "+c:p:q:m:E:b:O:M:F:Xf:w:T:")) != -1) {
		switch (c) {
		case 'c':
			nctx = atoi(optarg);
			break;
		case 'p':
			npd = atoi(optarg);
			break;
		case 'q':
			ncq = atoi(optarg);
			break;
		case 'm':
			nmr = atoi(optarg);
			break;
		case 'E':
			nmr_early = atoi(optarg);
			break;
		case 'b':
		case 'O':
			if (parse_bytes(optarg, &v)) {
				fprintf(stderr, "verbs_worker: bad size %s\n", optarg);
				return 2;
			}
			*(c == 'b' ? &mr_len : &mr_off) = v;
			break;
		case 'M':
			cg2 = optarg;
			break;
		case 'f':
			fail_at = !strcmp(optarg, "obj") ? FAIL_OBJ :
				  !strcmp(optarg, "mr") ? FAIL_MR : FAIL_CTX;
			break;
		case 'w':
			wait_file = optarg;
			break;
		case 'T':
			limit = atof(optarg);
			break;
		default:
			if (!fault_opt(c, optarg, &nth, &make_it_fail))
				return 2;
		}
	}
	if (nctx > HOLD_MAX || npd > HOLD_MAX || ncq > HOLD_MAX || nmr > HOLD_MAX ||
	    nmr_early > HOLD_MAX || nctx < 0 || npd < 0 || ncq < 0 || nmr < 0 ||
	    nmr_early < 0) {
		fprintf(stderr, "verbs_worker: at most %d of each\n", HOLD_MAX);
		return 2;
	}
	if (!mr_len || mr_off >= page_size || mr_len > (1UL << 30)) {
		fprintf(stderr, "verbs_worker: -b 1..1G, -O below the page size\n");
		return 2;
	}
	/* Memory of their own for every MR, touched now: pinning faults nothing in. */
	stride = ((mr_off + mr_len + page_size - 1) & ~(page_size - 1)) + page_size;
	if (nmr + nmr_early) {
		mem = mmap(NULL, stride * (nmr + nmr_early), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			perror("verbs_worker: mmap");
			return 2;
		}
		memset(mem, 0x5a, stride * (nmr + nmr_early));
	}
	dev = find_dev(&list);
	if (!dev) {
		fprintf(stderr, "verbs_worker: no device %s\n", dev_name);
		return 2;
	}

	/* Arm fault injection for the next verbs call. */
#define ARM() do {							\
	if (fault_arm(nth, make_it_fail))				\
		return 2;						\
	armed = 1;							\
} while (0)
#define DISARM() do {							\
	int r = armed ? fault_disarm(nth, make_it_fail) : 0;		\
	if (r < 0)							\
		return 2;						\
	if (armed && nth)						\
		injected = r;						\
	armed = 0;							\
} while (0)
#define INJECT (nth || make_it_fail)

	for (i = 0; i < nctx; i++) {
		if (i == 0 && fail_at == FAIL_CTX && INJECT)
			ARM();
		errno = 0;
		ctx[i] = ibv_open_device(dev);
		if (!ctx[i])
			err[K_CTX] = errno ? errno : EIO;
		DISARM();
		if (!ctx[i])
			break;
		ok[K_CTX]++;
	}

/*
 * Create up to n objects of a kind into arr[ok[kind]...]; with -f obj, the
 * first object after the move is created with the fault armed.
 */
#define CREATE(kind, n, arr, call) do {					\
	int todo_ = (n);						\
	while (ok[K_CTX] && !err[kind] && todo_-- > 0) {		\
		if (fail_at == FAIL_OBJ && INJECT && moved &&		\
		    !objs_after_move++)					\
			ARM();						\
		errno = 0;						\
		arr[ok[kind]] = call;					\
		if (!arr[ok[kind]])					\
			err[kind] = errno ? errno : EIO;		\
		DISARM();						\
		if (!arr[ok[kind]])					\
			break;						\
		ok[kind]++;						\
	}								\
} while (0)

	/* An MR needs a PD, which is an object of its own. */
#define MR_PD() do {							\
	if ((nmr || nmr_early) && ok[K_CTX] && !mr_pd) {		\
		errno = 0;						\
		mr_pd = ok[K_PD] ? pd[0] : ibv_alloc_pd(ctx[0]);	\
		if (!mr_pd)						\
			err[K_MR] = errno ? errno : EIO;		\
	}								\
} while (0)

	/* Register up to n MRs, each in its own part of mem. */
#define REG_MRS(n, fault) do {						\
	int todo_ = (n), first_ = 1;					\
	while (mr_pd && !err[K_MR] && todo_-- > 0) {			\
		char *a_ = mem + ok[K_MR] * stride + mr_off;		\
		if ((fault) && first_ && INJECT)			\
			ARM();						\
		first_ = 0;						\
		errno = 0;						\
		mr[ok[K_MR]] = ibv_reg_mr(mr_pd, a_, mr_len,		\
					  IBV_ACCESS_LOCAL_WRITE);	\
		if (!mr[ok[K_MR]])					\
			err[K_MR] = errno ? errno : EIO;		\
		DISARM();						\
		if (!mr[ok[K_MR]])					\
			break;						\
		mr_bytes += mr_cost(a_, mr_len);			\
		ok[K_MR]++;						\
	}								\
} while (0)

	moved = !cg2;
	if (nmr_early) {
		CREATE(K_PD, npd, pd, ibv_alloc_pd(ctx[0]));
		MR_PD();
		REG_MRS(nmr_early, 0);
	}
	if (cg2) {
		if (join_cgroup(cg2))
			return 2;
		moved = 1;
	}
	if (!nmr_early)
		CREATE(K_PD, npd, pd, ibv_alloc_pd(ctx[0]));
	MR_PD();
	CREATE(K_CQ, ncq, cq, ibv_create_cq(ctx[0], 8, NULL, NULL, 0));
	REG_MRS(nmr, fail_at == FAIL_MR);

	printf("hold: uid=%d ctx_ok=%d ctx_err=%s", (int)getuid(), ok[K_CTX],
	       errname(err[K_CTX]));
	printf(" pd_ok=%d pd_err=%s", ok[K_PD], errname(err[K_PD]));
	printf(" cq_ok=%d cq_err=%s", ok[K_CQ], errname(err[K_CQ]));
	printf(" mr_ok=%d mr_err=%s mr_bytes=%llu", ok[K_MR], errname(err[K_MR]),
	       mr_bytes);
	printf(" injected=%d\n", injected);
	fflush(stdout);

	end = now() + limit;
	while (wait_file && access(wait_file, F_OK) == 0 && now() < end)
		usleep(50000);

	for (i = ok[K_MR]; i--;)
		ibv_dereg_mr(mr[i]);
	for (i = ok[K_CQ]; i--;)
		ibv_destroy_cq(cq[i]);
	if (mr_pd && !ok[K_PD])
		ibv_dealloc_pd(mr_pd);
	for (i = ok[K_PD]; i--;)
		ibv_dealloc_pd(pd[i]);
	for (i = ok[K_CTX]; i--;)
		ibv_close_device(ctx[i]);
	ibv_free_device_list(list);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: verbs_worker [-d DEV] [-g CGROUP_DIR] loop -t SECONDS [-n MAX_ITER] [-o MAX_OBJECTS] [-s SEED]\n"
		"       verbs_worker [-d DEV] [-g CGROUP_DIR] hold [-c NCTX] [-p NPD] [-q NCQ] [-m NMR]\n"
		"                    [-E NMR_EARLY] [-b BYTES] [-O OFFSET] [-M CGROUP_DIR2]\n"
		"                    [-F NTH | -X] [-f ctx|obj|mr] [-w FILE] [-T SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cg = NULL;
	int c;

	while ((c = getopt(argc, argv, "+d:g:")) != -1) {
		switch (c) {
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			cg = optarg;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc)
		return usage();
	if (cg && join_cgroup(cg))
		return 2;
	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);

	argc -= optind;
	argv += optind;
	optind = 1;
	if (!strcmp(argv[0], "loop"))
		return cmd_loop(argc, argv);
	if (!strcmp(argv[0], "hold"))
		return cmd_hold(argc, argv);
	return usage();
}
