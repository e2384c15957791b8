// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests for the RDMA cgroup controller.
 *
 * Opening a device context charges one hca_handle; every protection
 * domain, completion queue, memory region and queue pair charges one
 * hca_object. Worker processes (rdma_util.c) open the contexts and create
 * the objects through the uverbs write() interface, in the cgroup under
 * test, on the test's requests.
 *
 * If no RDMA device exists, the test tries to create a soft-iWARP device on
 * the loopback interface (like "rdma link add siw0 type siw netdev lo").
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/limits.h>
#include <poll.h>
#include <rdma/siw-abi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "rdma_util.h"

static const char * const rdma_files[] = {
	"rdma.max", "rdma.current", "rdma.peak", "rdma.events", "rdma.events.local",
};

/*
 * What a test leaves behind: its workers and its cgroups. The runner stops
 * and removes them after each test, so that a test may return as soon as a
 * check fails.
 */
struct rig {
	struct worker w[3];
	struct cgs cgs;
};

static void rig_clear(struct rig *t)
{
	workers_stop(t->w, ARRAY_SIZE(t->w));
	cgs_destroy(&t->cgs);
}

/*
 * The tests. Each returns KSFT_PASS, KSFT_FAIL or KSFT_SKIP.
 */

/* The interface files exist in every cgroup except the root. */
static int test_rdma_root_files(const char *root, struct rig *t)
{
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
			return KSFT_FAIL;
	}

	cg = cgs_add(&t->cgs, root, "rdma_test_files", false);
	if (!cg)
		return KSFT_FAIL;
	for (i = 0; i < ARRAY_SIZE(rdma_files); i++) {
		char *path = cg_control(cg, rdma_files[i]);
		bool present = !access(path, F_OK);

		if (!present)
			ksft_print_msg("%s: %s\n", path, strerror(errno));
		free(path);
		if (!present)
			return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/*
 * rdma.max round trip: partial writes keep the other key, keys in any
 * order, "max" and 2147483647 are the same, a bare device name changes
 * nothing, extra white space is accepted. All files are well formed.
 */
static int test_rdma_max_roundtrip(const char *root, struct rig *t)
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
		{ "%s hca_handle=0000000012 hca_object=1", 10, 1 },
		{ "%s hca_handle=010 hca_object=0x10", 8, 16 },
		{ "%s hca_handle=1 hca_object=2 hca_handle=4", 4, 2 },
		{ "%s hca_handle=5\nhca_object=6", 5, 6 },
		{ "%s hca_handle=max hca_object=max\n", UNLIMITED, UNLIMITED },
	};
	char *cg, *other;
	int i;
	bool ok;

	cg = cgs_add(&t->cgs, root, "rdma_test_max", false);
	other = cgs_add(&t->cgs, root, "rdma_test_max_other", false);
	if (!cg || !other)
		return KSFT_FAIL;

	ok = expect_res(cg, "rdma.max",
			&(struct hca){ .handle = UNLIMITED, .object = UNLIMITED });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(cg, "rdma.current",
			&(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(cg, "rdma.peak",
			&(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(cg, "rdma.events", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(cg, "rdma.events.local", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	if (!check_all_formats(cg))
		return KSFT_FAIL;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		char buf[128];
		int err;

		snprintf(buf, sizeof(buf), steps[i].fmt, rdma_dev);
		err = cg_write(cg, "rdma.max", buf);
		if (err) {
			ksft_print_msg("writing \"%s\": %s\n", buf, strerror(-err));
			return KSFT_FAIL;
		}
		ok = expect_res(cg, "rdma.max",
				&(struct hca){ .handle = steps[i].handle,
					       .object = steps[i].object });
		if (!ok)
			return KSFT_FAIL;
		if (!check_all_formats(cg))
			return KSFT_FAIL;
		ok = expect_res(other, "rdma.max",
				&(struct hca){ .handle = UNLIMITED, .object = UNLIMITED });
		if (!ok)
			return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/* Malformed writes fail with the right errno and change nothing. */
static int test_rdma_max_bad_input(const char *root, struct rig *t)
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
		{ "%s hca_handle=08", EINVAL },
		{ "%s hca_handle=0x", EINVAL },
		{ "%s hca_handle=5abc", EINVAL },
		{ "%s hca_handle=1.5", EINVAL },
		{ "%s hca_handle=2147483648", EINVAL },
		{ "%s hca_handle=4294967296", EINVAL },
		{ "%s hca_handle=99999999999999999999", EINVAL },
		{ "%s index=x hca_handle=1", EINVAL },
		{ "%s index=1 index=1 hca_handle=1", EINVAL },
		{ "%s index=-1 hca_handle=1", EINVAL },
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
		{ "%s\thca_handle=1", ENODEV },
		{ "%s index=4294967295 hca_handle=1", ENODEV },
	};
	char *cg;
	int i;
	bool ok;

	cg = cgs_add(&t->cgs, root, "rdma_test_bad_input", false);
	if (!cg)
		return KSFT_FAIL;
	if (set_max(cg, "hca_handle=3 hca_object=7"))
		return KSFT_FAIL;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char buf[128];
		int err;

		snprintf(buf, sizeof(buf), bad[i].fmt, rdma_dev);
		err = cg_write(cg, "rdma.max", buf);
		if (err != -bad[i].err) {
			ksft_print_msg("writing \"%s\": expected %s, got %s\n", buf,
				       strerror(bad[i].err),
				       err ? strerror(-err) : "success");
			return KSFT_FAIL;
		}
		ok = expect_res(cg, "rdma.max",
				&(struct hca){ .handle = 3, .object = 7 });
		if (!ok)
			return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/*
 * hca_handle: with a limit of N exactly N contexts open, the next fails with
 * EAGAIN and leaves no charge; closing contexts returns the charge.
 */
static int test_rdma_hca_handle_limit(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *cg;
	bool ok;

	cg = cgs_add(&t->cgs, root, "rdma_test_handle", false);
	if (!cg)
		return KSFT_FAIL;
	if (set_max(cg, "hca_handle=2"))
		return KSFT_FAIL;
	if (worker_start(&w[0], cg))
		return KSFT_FAIL;

	/* The async event file of a context is not an hca_object. */
	ok = w_open(&w[0],
		    &(struct wopen){ .count = 3, .done = 2, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 2, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_open(&w[0],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 2, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	if (!w_close(&w[0], -1))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 2, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* Another process in the same cgroup shares the limit. */
	if (worker_start(&w[1], cg))
		return KSFT_FAIL;
	ok = w_open(&w[1],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 2, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	worker_stop(&w[0]);
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_open(&w[1], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	worker_stop(&w[1]);
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* A limit of 0 refuses the first context. */
	if (set_max(cg, "hca_handle=0"))
		return KSFT_FAIL;
	if (worker_start(&w[0], cg))
		return KSFT_FAIL;
	ok = w_open(&w[0],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * hca_object: for PD, CQ, MR and QP, with room for exactly N more objects
 * exactly N are created and the next fails with EAGAIN. Completion
 * channels are file descriptors and are not charged.
 */
static int test_rdma_hca_object_limit(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	static const int prereq[] = {
		[OBJ_PD] = 0, [OBJ_CQ] = 0, [OBJ_MR] = 1, [OBJ_QP] = 2,
	};
	const int n = 3;
	int type;
	char *cg;
	bool ok;

	cg = cgs_add(&t->cgs, root, "rdma_test_object", false);
	if (!cg)
		return KSFT_FAIL;

	for (type = 0; type < NR_OBJ_TYPES; type++) {
		int p = prereq[type];

		if (set_max(cg, "hca_object=%d", p + n))
			return KSFT_FAIL;
		if (worker_start(w, cg))
			return KSFT_FAIL;
		ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
		if (!ok)
			return KSFT_FAIL;
		/* MR needs a PD; QP needs a PD and a CQ. */
		if (p >= 1) {
			ok = w_create(w,
				      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
			if (!ok)
				return KSFT_FAIL;
		}
		if (p >= 2) {
			ok = w_create(w,
				      &(struct wcreate){ .type = OBJ_CQ, .count = 1, .done = 1 });
			if (!ok)
				return KSFT_FAIL;
		}
		ok = w_create(w,
			      &(struct wcreate){ .type = type, .count = n + 1, .done = n,
						 .err = EAGAIN });
		if (!ok)
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = p + n });
		if (!ok)
			return KSFT_FAIL;
		ok = w_create(w,
			      &(struct wcreate){ .type = type, .count = 1, .done = 0,
						 .err = EAGAIN });
		if (!ok)
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = p + n });
		if (!ok)
			return KSFT_FAIL;
		ok = wdo(w,
			 &(struct wcall){ .op = W_CHANNEL, .count = 1, .done = 1 });
		if (!ok)
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = p + n });
		if (!ok)
			return KSFT_FAIL;
		if (!w_destroy(w, -1))
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = p + n - 1 });
		if (!ok)
			return KSFT_FAIL;
		ok = w_create(w,
			      &(struct wcreate){ .type = type, .count = 1, .done = 1 });
		if (!ok)
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = p + n });
		if (!ok)
			return KSFT_FAIL;
		worker_stop(w);
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 0, .object = 0 });
		if (!ok)
			return KSFT_FAIL;
	}

	/* A limit of 0 refuses the first object. */
	if (set_max(cg, "hca_object=0"))
		return KSFT_FAIL;
	if (worker_start(w, cg))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_CQ, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	worker_stop(w);
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * Hierarchy: a parent's limit caps children with higher or no limits,
 * siblings add up at the parent, a refused charge leaves nothing behind.
 */
static int test_rdma_hierarchy(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *c1, *c2;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_hier", true);
	c1 = p ? cgs_add(&t->cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&t->cgs, p, "c2", false) : NULL;
	if (!c1)
		return KSFT_FAIL;
	if (!c2)
		return KSFT_FAIL;
	if (set_max(p, "hca_handle=2 hca_object=3"))
		return KSFT_FAIL;
	if (set_max(c1, "hca_handle=5 hca_object=10"))
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.max",
			&(struct hca){ .handle = 5, .object = 10 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c2, "rdma.max",
			&(struct hca){ .handle = UNLIMITED, .object = UNLIMITED });
	if (!ok)
		return KSFT_FAIL;

	if (worker_start(&w[0], c1))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 2, .done = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	/* Siblings add up: c2 gets one object before the parent is full. */
	if (worker_start(&w[1], c2))
		return KSFT_FAIL;
	ok = w_open(&w[1], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[1],
		      &(struct wcreate){ .type = OBJ_CQ, .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c2, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 2, .object = 3 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	/* c1's own limits are higher, the parent's still apply. */
	if (worker_start(&w[2], c1))
		return KSFT_FAIL;
	ok = w_open(&w[2],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c2, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 2, .object = 3 });
	if (!ok)
		return KSFT_FAIL;

	/* Room made in one sibling is usable by the other. */
	if (!w_close(&w[1], -1))
		return KSFT_FAIL;
	ok = expect_usage(c2, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = w_open(&w[2], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 2, .object = 3 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 2, .object = 3 });
	if (!ok)
		return KSFT_FAIL;

	workers_stop(w, 3);
	ok = expect_usage(c1, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c2, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * The cgroup that made a charge owns it: a task that moves on leaves its
 * charges behind, frees them there, and charges new objects to where it is.
 */
static int test_rdma_creator_owns(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *a, *b;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_owner", true);
	a = p ? cgs_add(&t->cgs, p, "a", false) : NULL;
	b = p ? cgs_add(&t->cgs, p, "b", false) : NULL;
	if (!a || !b)
		return KSFT_FAIL;

	/* Objects 0 and 1 are charged to a. */
	if (worker_start(w, a))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 2, .done = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	if (worker_move(w, b))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	/* New charges follow the task; a's limit no longer applies to it. */
	if (set_max(a, "hca_object=0"))
		return KSFT_FAIL;
	if (set_max(b, "hca_object=1"))
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_CQ, .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;

	/* Freeing returns each charge to its owner. */
	if (!w_destroy(w, 0))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	if (!w_destroy(w, 2))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;

	if (!w_close(w, -1))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* Writes @text to @file of @cgroup; the error is checked against @want. */
static bool write_expect(const char *cgroup, const char *file,
			 const char *text, int want)
{
	int ret = cg_write(cgroup, file, (char *)text);

	if (ret == want)
		return true;
	ksft_print_msg("%s/%s: writing \"%s\": %s, expected %s\n", cgroup, file,
		       text, strerror(-ret), strerror(-want));
	return false;
}

/*
 * The limit lines of @dev and @dev2 (when not NULL) in @cgroup: rdma.max
 * "hca_handle=@h hca_object=@o" for both, rdma.mr_mem.max @mr and @mr2.
 */
static bool expect_lines(const char *cgroup, const char *dev, const char *dev2,
			 const char *h, const char *h2, const char *mr,
			 const char *mr2)
{
	if (!expect_dev_line(cgroup, "rdma.max", dev, h))
		return false;
	if (dev2 && !expect_dev_line(cgroup, "rdma.max", dev2, h2))
		return false;
	if (!have_mr_mem)
		return true;
	if (!expect_dev_line(cgroup, "rdma.mr_mem.max", dev, mr))
		return false;
	return !dev2 || expect_dev_line(cgroup, "rdma.mr_mem.max", dev2, mr2);
}

/*
 * One write, one line per device (as a container runtime writes a value of
 * OCI's linux.resources.unified): every line applies, or none does. Uses
 * a second device, rxe0 on lo, when it can be made, and checks what one
 * device allows otherwise.
 */
static int test_rdma_max_lines(const char *root, struct rig *t)
{
	const char *d1 = rdma_dev, *d2 = "rxe0";
	char text[512], bad[512];
	bool created = false, ok;
	int ret = KSFT_FAIL, i;
	char *a;

	a = cgs_add(&t->cgs, root, "rdma_test_lines", false);
	if (!a)
		return KSFT_FAIL;
	i = rdma_dev_add_lo(d2, "rxe");
	if (i < 0) {
		ksft_print_msg("no second device (rxe0 on lo): one device only\n");
		d2 = NULL;
	}
	created = i > 0;

	/* Blank lines and blanks around are skipped. */
	snprintf(text, sizeof(text), "\n\t\n%s hca_handle=3 hca_object=4\n\n", d1);
	if (!write_expect(a, "rdma.max", text, 0))
		goto out;
	if (!expect_dev_line(a, "rdma.max", d1, "hca_handle=3 hca_object=4"))
		goto out;

	if (d2) {
		snprintf(text, sizeof(text), "%s hca_handle=5\n%s hca_object=6\n",
			 d1, d2);
		if (!write_expect(a, "rdma.max", text, 0))
			goto out;
		if (have_mr_mem) {
			snprintf(text, sizeof(text), "%s 64K\n%s 1M\n", d1, d2);
			if (!write_expect(a, "rdma.mr_mem.max", text, 0))
				goto out;
		}
	} else if (have_mr_mem) {
		snprintf(text, sizeof(text), "\n%s 64K\n", d1);
		if (!write_expect(a, "rdma.mr_mem.max", text, 0))
			goto out;
		if (set_max(a, "hca_handle=5"))
			goto out;
	} else if (set_max(a, "hca_handle=5")) {
		goto out;
	}
	ok = expect_lines(a, d1, d2, "hca_handle=5 hca_object=4",
			  "hca_handle=max hca_object=6", "65536", "1048576");
	if (!ok)
		goto out;

	/* A bad line, an unknown device, a device twice: nothing changes. */
	snprintf(bad, sizeof(bad), "%s hca_handle=7\n%s hca_object=x", d1, d2 ?: d1);
	if (!write_expect(a, "rdma.max", bad, -EINVAL))
		goto out;
	snprintf(bad, sizeof(bad), "%s hca_handle=7\nnosuchdev hca_object=1", d1);
	if (!write_expect(a, "rdma.max", bad, -ENODEV))
		goto out;
	snprintf(bad, sizeof(bad), "%s hca_handle=7\n%s hca_object=1", d1, d1);
	if (!write_expect(a, "rdma.max", bad, -EINVAL))
		goto out;
	if (have_mr_mem) {
		snprintf(bad, sizeof(bad), "%s 1K\n%s 1K 2K", d1, d2 ?: d1);
		if (!write_expect(a, "rdma.mr_mem.max", bad, -EINVAL))
			goto out;
		snprintf(bad, sizeof(bad), "%s 1K\nnosuchdev 1K", d1);
		if (!write_expect(a, "rdma.mr_mem.max", bad, -ENODEV))
			goto out;
	}
	ok = expect_lines(a, d1, d2, "hca_handle=5 hca_object=4",
			  "hca_handle=max hca_object=6", "65536", "1048576");
	if (ok)
		ret = KSFT_PASS;
out:
	if (created && rdma_dev_del("rxe0"))
		ret = KSFT_FAIL;
	return ret;
}

/*
 * A limit set below the current usage keeps existing objects, refuses new
 * ones, and lets allocations through again once usage is below it.
 */
static int test_rdma_limit_below_usage(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *cg;
	bool ok;

	cg = cgs_add(&t->cgs, root, "rdma_test_below", false);
	if (!cg)
		return KSFT_FAIL;
	if (worker_start(&w[0], cg))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 4, .done = 4 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 4 });
	if (!ok)
		return KSFT_FAIL;

	if (set_max(cg, "hca_handle=0 hca_object=2"))
		return KSFT_FAIL;
	ok = expect_res(cg, "rdma.max",
			&(struct hca){ .handle = 0, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 4 });
	if (!ok)
		return KSFT_FAIL;

	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (worker_start(&w[1], cg))
		return KSFT_FAIL;
	ok = w_open(&w[1],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 4 });
	if (!ok)
		return KSFT_FAIL;

	/* Down to the limit: still refused. */
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;

	/* Below it: one more fits. */
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	/* Raising the limit lets allocations through. */
	if (set_max(cg, "hca_object=max"))
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;

	workers_stop(w, 2);
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * A cgroup whose objects are held by a task that moved elsewhere can be
 * removed; the charges stay visible in its parent until they are freed.
 */
static int test_rdma_rmdir_held(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *a, *b;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_rmdir", true);
	a = p ? cgs_add(&t->cgs, p, "a", false) : NULL;
	b = p ? cgs_add(&t->cgs, p, "b", false) : NULL;
	if (!a || !b)
		return KSFT_FAIL;

	if (set_max(a, "hca_handle=1 hca_object=2"))
		return KSFT_FAIL;
	if (worker_start(w, a))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_CQ, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	if (worker_move(w, b))
		return KSFT_FAIL;
	if (rmdir(a)) {
		ksft_print_msg("rmdir %s: %s\n", a, strerror(errno));
		return KSFT_FAIL;
	}
	if (!access(a, F_OK)) {
		ksft_print_msg("%s still exists\n", a);
		return KSFT_FAIL;
	}
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* New objects go to b, the old ones are uncharged from the dead a. */
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;
	if (!w_destroy(w, 0))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 1 });
	if (!ok)
		return KSFT_FAIL;

	if (!w_close(w, -1))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* A new cgroup of the same name starts afresh. */
	if (cg_create(a)) {
		ksft_print_msg("mkdir %s again: %s\n", a, strerror(errno));
		return KSFT_FAIL;
	}
	ok = expect_res(a, "rdma.max",
			&(struct hca){ .handle = UNLIMITED, .object = UNLIMITED });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(a, "rdma.peak",
			&(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* nr_dying_descendants of @cgroup, polled until it is @want or 5 s pass. */
static bool expect_dying(const char *cgroup, long want)
{
	long deadline = now_ms() + 5000, got;

	for (;;) {
		got = cg_read_key_long(cgroup, "cgroup.stat",
				       "nr_dying_descendants ");
		if (got == want)
			return true;
		if (now_ms() > deadline)
			break;
		usleep(10000);
	}
	ksft_print_msg("%s: nr_dying_descendants %ld, expected %ld\n",
		       cgroup, got, want);
	return false;
}

/*
 * nr_dying_descendants of @cgroup, polled every 10 ms: @want within 5 s,
 * and then still @want each time for @hold_ms.
 */
static bool expect_dying_held(const char *cgroup, long want, long hold_ms)
{
	long until;

	if (!expect_dying(cgroup, want))
		return false;
	for (until = now_ms() + hold_ms; now_ms() < until; usleep(10000)) {
		long got = cg_read_key_long(cgroup, "cgroup.stat",
					    "nr_dying_descendants ");

		if (got != want) {
			ksft_print_msg("%s: nr_dying_descendants %ld, expected %ld to stay\n",
				       cgroup, got, want);
			return false;
		}
	}
	return true;
}

/*
 * An object charged while its creator is in another cgroup than its
 * context keeps that cgroup alive by itself: ib_core charges objects of a
 * context in the context's cgroup without a cgroup reference of their own
 * (the context's keeps it), but b, where the task moved, is kept only by
 * the object's. The worker also passes through ctl, a sibling it creates
 * nothing in. rmdir b and ctl together: ctl is freed within a few grace
 * periods, b must stay dying (exactly one dying descendant, for 2 s)
 * until the object is destroyed, and is freed then; the charges land
 * where they belong throughout. Without the object's reference b is freed
 * with ctl, and the later destroy uncharges its freed pools.
 */
static int test_rdma_object_moved(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *a, *b, *ctl;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_objmove", true);
	a = p ? cgs_add(&t->cgs, p, "a", false) : NULL;
	b = p ? cgs_add(&t->cgs, p, "b", false) : NULL;
	ctl = p ? cgs_add(&t->cgs, p, "ctl", false) : NULL;
	if (!a || !b || !ctl)
		return KSFT_FAIL;

	if (worker_start(w, a))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	if (worker_move(w, b))
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 1 });
	if (!ok)
		return KSFT_FAIL;

	/* Through ctl, and back in a, which the context keeps. */
	if (worker_move(w, ctl) || worker_move(w, a))
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	if (rmdir(b) || rmdir(ctl)) {
		ksft_print_msg("rmdir %s and %s: %s\n", b, ctl, strerror(errno));
		return KSFT_FAIL;
	}
	if (!expect_dying_held(p, 1, 2000))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;

	/* Object 1 is b's: its uncharge reaches p through the dying b. */
	if (!w_destroy(w, 1))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_dying(p, 0))
		return KSFT_FAIL;

	if (!w_close(w, -1))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* rdma.peak keeps the highest usage after a burst is freed. */
static int test_rdma_peak(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *c1, *c2;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_peak", true);
	c1 = p ? cgs_add(&t->cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&t->cgs, p, "c2", false) : NULL;
	if (!c1)
		return KSFT_FAIL;
	if (!c2)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* A burst: 2 contexts, 5 objects. */
	if (worker_start(&w[0], c1))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 2, .done = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 3, .done = 3 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_CQ, .count = 2, .done = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(p, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;

	/* Freed: usage drops, the peak stays. */
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 2, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;
	if (!w_close(&w[0], -1))
		return KSFT_FAIL;
	if (!w_close(&w[0], -1))
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(p, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;

	/* A smaller second burst leaves it alone. */
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;

	/* Refused charges do not count: the peak stops at the limit. */
	if (set_max(c1, "hca_object=6"))
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 6, .done = 5, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 1, .object = 6 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 6 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(p, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 6 });
	if (!ok)
		return KSFT_FAIL;
	worker_stop(&w[0]);
	ok = expect_usage(c1, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 6 });
	if (!ok)
		return KSFT_FAIL;

	/* The parent's peak is the sum of what its children held at once. */
	if (worker_start(&w[0], c1))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 4, .done = 4 });
	if (!ok)
		return KSFT_FAIL;
	if (worker_start(&w[1], c2))
		return KSFT_FAIL;
	ok = w_open(&w[1], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[1],
		      &(struct wcreate){ .type = OBJ_PD, .count = 4, .done = 4 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(p, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 8 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c2, "rdma.peak",
			&(struct hca){ .handle = 1, .object = 4 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c1, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 6 });
	if (!ok)
		return KSFT_FAIL;
	workers_stop(w, 2);
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(p, "rdma.peak",
			&(struct hca){ .handle = 2, .object = 8 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* hca_object of rdma_dev's line, read again through the open file @fd. */
static long fd_object(int fd)
{
	char buf[PAGE_SIZE], *line, *obj;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, rdma_dev, strlen(rdma_dev)) &&
		    line[strlen(rdma_dev)] == ' ')
			break;
	obj = line ? strstr(line, "hca_object=") : NULL;
	return obj ? atol(obj + strlen("hca_object=")) : -ENOENT;
}

/*
 * Start @w in @cgroup, open a context, create three PDs and destroy two:
 * usage 1 and 1, peak 1 and 3.
 */
static bool worker_peak3(struct worker *w, const char *cgroup)
{
	const struct wcreate pd3 = { .type = OBJ_PD, .count = 3, .done = 3 };
	const struct wopen open1 = { .count = 1, .done = 1 };
	int i;

	if (worker_start(w, cgroup) || !w_open(w, &open1) || !w_create(w, &pd3))
		return false;
	for (i = 1; i <= 2; i++)
		if (!w_destroy(w, i))
			return false;
	return true;
}

/* Close those of the @n file descriptors @fd that are open. */
static void close_fds(const int *fd, int n)
{
	while (n-- > 0)
		if (fd[n] >= 0)
			close(fd[n]);
}

/* The hca_object peak that fds @a, @b, @n and a new open of @cg show. */
static bool expect_peaks(const char *cg, int a, int b, int n, long pa,
			 long pb, long pn)
{
	char path[PATH_MAX];
	long got[4];
	int fresh;

	snprintf(path, sizeof(path), "%s/rdma.peak", cg);
	fresh = open(path, O_RDONLY);
	got[0] = fd_object(a);
	got[1] = fd_object(b);
	got[2] = fd_object(n);
	got[3] = fresh < 0 ? -errno : fd_object(fresh);
	if (fresh >= 0)
		close(fresh);
	if (got[0] == pa && got[1] == pb && got[2] == pn && got[3] == pn)
		return true;
	ksft_print_msg("%s: hca_object peaks a=%ld b=%ld never=%ld new=%ld, ",
		       path, got[0], got[1], got[2], got[3]);
	ksft_print_msg("expected %ld %ld %ld %ld\n", pa, pb, pn, pn);
	return false;
}

/*
 * rdma.peak resets per open file, as memory.peak does: a write through an
 * open file makes later reads through it show the peak since then; other
 * files and new opens keep the peak since creation. Two files reset at
 * different times each read their exact high-water mark: b's reset does
 * not make a forget the 4 reached after a's.
 */
static int test_rdma_peak_reset(const char *root, struct rig *t)
{
	const struct wcreate pd3 = { .type = OBJ_PD, .count = 3, .done = 3 };
	const struct wcreate pd1 = { .type = OBJ_PD, .count = 1, .done = 1 };
	const struct hca parent_peak = { .handle = 1, .object = 4 };
	int fa = -1, fb = -1, fn = -1, ret = KSFT_FAIL, i;
	struct worker *w = t->w;
	char path[PATH_MAX];
	char *p, *a;

	p = cgs_add(&t->cgs, root, "rdma_test_peakreset", true);
	a = p ? cgs_add(&t->cgs, p, "a", false) : NULL;
	if (!a)
		return KSFT_FAIL;
	snprintf(path, sizeof(path), "%s/rdma.peak", a);
	fa = open(path, O_RDWR);
	fb = open(path, O_RDWR);
	fn = open(path, O_RDONLY);
	if (fa < 0 || fb < 0 || fn < 0) {
		ksft_print_msg("open %s: %s\n", path, strerror(errno));
		goto out;
	}

	if (!worker_peak3(w, a))
		goto out;
	if (!expect_peaks(a, fa, fb, fn, 3, 3, 3))
		goto out;

	if (write(fa, "reset\n", 6) != 6) {
		ksft_print_msg("%s: write: %s\n", path, strerror(errno));
		goto out;
	}
	if (!expect_peaks(a, fa, fb, fn, 1, 3, 3))
		goto out;
	if (!w_create(w, &pd3))
		goto out;
	if (!expect_peaks(a, fa, fb, fn, 4, 4, 4))
		goto out;
	for (i = 3; i <= 5; i++)
		if (!w_destroy(w, i))
			goto out;

	if (write(fb, "1", 1) != 1) {
		ksft_print_msg("%s: write: %s\n", path, strerror(errno));
		goto out;
	}
	if (!expect_peaks(a, fa, fb, fn, 4, 1, 4))
		goto out;
	if (!w_create(w, &pd1))
		goto out;
	if (!expect_peaks(a, fa, fb, fn, 4, 2, 4))
		goto out;
	/* The parent's peak is its own. */
	if (!expect_res(p, "rdma.peak", &parent_peak))
		goto out;
	if (w_close(w, -1))
		ret = KSFT_PASS;
out:
	close_fds((int []){ fa, fb, fn }, 3);
	return ret;
}

/*
 * The line of @dev in the file open as @fd (named @file) is "@dev @want",
 * or, with @want NULL, there is none.
 */
static bool expect_fd_line(int fd, const char *file, const char *dev,
			   const char *want)
{
	char buf[PAGE_SIZE], line[128];
	ssize_t n;

	buf[0] = '\n';
	n = pread(fd, buf + 1, sizeof(buf) - 2, 0);
	if (n < 0) {
		ksft_print_msg("%s: read: %s\n", file, strerror(errno));
		return false;
	}
	buf[n + 1] = '\0';
	if (want)
		snprintf(line, sizeof(line), "\n%s %s\n", dev, want);
	else
		snprintf(line, sizeof(line), "\n%s ", dev);
	if (!strstr(buf, line) == !want)
		return true;
	ksft_print_msg("%s: expected %s%s%s, read:%s", file,
		       want ? "the line \"" : "no line of ", dev,
		       want ? "\"" : "", buf);
	return false;
}

/* Open @file of @cgroup with @flags; -1 after saying why. */
static int open_cg_file(const char *cgroup, const char *file, int flags)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	fd = open(path, flags);
	if (fd < 0)
		ksft_print_msg("open %s: %s\n", path, strerror(errno));
	return fd;
}

/* Reset the peaks of the open file @fd (named @file); false if it failed. */
static bool peak_write(int fd, const char *file)
{
	if (write(fd, "1\n", 2) == 2)
		return true;
	ksft_print_msg("%s: write: %s\n", file, strerror(errno));
	return false;
}

/*
 * What test_rdma_peak_two_devices expects of rdma.peak: through @fp, written
 * to, @mine on rdma_dev and nothing on @d2; through @fn, never written, the
 * peaks since creation, 3 objects on rdma_dev and nothing on @d2.
 */
static bool expect_two_peaks(int fp, int fn, const char *d2, const char *mine)
{
	const char *pk = "rdma.peak", *zero = "hca_handle=0 hca_object=0";

	return expect_fd_line(fp, pk, rdma_dev, mine) &&
	       expect_fd_line(fp, pk, d2, zero) &&
	       expect_fd_line(fn, pk, rdma_dev, "hca_handle=1 hca_object=3") &&
	       expect_fd_line(fn, pk, d2, zero);
}

/*
 * Resets of rdma.peak and rdma.mr_mem.peak with pools on two devices,
 * rdma_dev and rxe0: each file written shows both devices' peaks since its
 * write, a file never written the peaks since creation. Then rxe0 goes
 * away, its lines with it, and comes back: the files written before reset
 * again, now with a new pool for rxe0.
 */
static int test_rdma_peak_two_devices(const char *root, struct rig *t)
{
	const struct wcreate pd1 = { .type = OBJ_PD, .count = 1, .done = 1 };
	const char *mrp = "rdma.mr_mem.peak", *pk = "rdma.peak", *d2 = "rxe0";
	int fp = -1, fn = -1, fm = -1, ret = KSFT_FAIL, added;
	struct worker *w = t->w;
	bool created;
	char text[256];
	char *a;

	added = rdma_dev_add_lo(d2, "rxe");
	if (added < 0) {
		ksft_print_msg("no %s on lo: %s\n", d2, strerror(-added));
		return KSFT_SKIP;
	}
	created = added > 0;
	a = cgs_add(&t->cgs, root, "rdma_test_peak2", false);
	if (!a)
		goto out;
	snprintf(text, sizeof(text), "%s hca_handle=5\n%s hca_handle=6\n",
		 rdma_dev, d2);
	if (!write_expect(a, "rdma.max", text, 0))
		goto out;
	snprintf(text, sizeof(text), "%s 1M\n%s 2M\n", rdma_dev, d2);
	if (have_mr_mem && !write_expect(a, "rdma.mr_mem.max", text, 0))
		goto out;
	if (!worker_peak3(w, a))
		goto out;

	fp = open_cg_file(a, pk, O_RDWR);
	fn = open_cg_file(a, pk, O_RDONLY);
	fm = have_mr_mem ? open_cg_file(a, mrp, O_RDWR) : -2;
	if (fp < 0 || fn < 0 || fm == -1 || !peak_write(fp, pk))
		goto out;
	if (!expect_two_peaks(fp, fn, d2, "hca_handle=1 hca_object=1"))
		goto out;
	if (fm >= 0 && (!peak_write(fm, mrp) ||
			!expect_fd_line(fm, mrp, rdma_dev, "0") ||
			!expect_fd_line(fm, mrp, d2, "0")))
		goto out;

	/* rxe0 goes, and its lines with it; it comes back without a pool. */
	if (rdma_dev_del(d2))
		goto out;
	if (!expect_fd_line(fp, pk, d2, NULL) || !expect_fd_line(fn, pk, d2, NULL))
		goto out;
	added = rdma_dev_add_lo(d2, "rxe");
	if (added != 1) {
		ksft_print_msg("%s again: %s\n", d2,
			       added ? strerror(-added) : "it was still there");
		goto out;
	}
	snprintf(text, sizeof(text), "%s hca_object=7\n", d2);
	if (!write_expect(a, "rdma.max", text, 0) || !peak_write(fp, pk) ||
	    !w_create(w, &pd1))
		goto out;
	if (!expect_two_peaks(fp, fn, d2, "hca_handle=1 hca_object=2"))
		goto out;
	if (fm >= 0 && (!peak_write(fm, mrp) ||
			!expect_fd_line(fm, mrp, d2, "0")))
		goto out;
	if (w_close(w, -1))
		ret = KSFT_PASS;
out:
	close_fds((int []){ fp, fn, fm }, 3);
	if (created && rdma_dev_index(d2) >= 0 && rdma_dev_del(d2))
		ret = KSFT_FAIL;
	if (!created && rdma_dev_add_lo(d2, "rxe") < 0)
		ret = KSFT_FAIL;
	return ret;
}

/*
 * A charge that the parent's limit refuses leaves no trace in the peak of
 * the child, which held the unit for a moment, nor in the parent's.
 */
static int test_rdma_peak_refused_above(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *c;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_peak_above", true);
	c = p ? cgs_add(&t->cgs, p, "c", false) : NULL;
	if (!c)
		return KSFT_FAIL;
	if (set_max(p, "hca_object=2"))
		return KSFT_FAIL;
	if (worker_start(w, c))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 3, .done = 2, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(c, "rdma.peak",
			&(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_res(p, "rdma.peak",
			&(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* A case of test_rdma_events_levels: the limit at level @limit_at. */
static int events_at_level(const char *root, struct rig *t, int limit_at)
{
	struct worker *w = t->w;
	char *cg[3];
	int lvl;
	bool ok;

	cg[0] = cgs_add(&t->cgs, root, "rdma_test_events", true);
	cg[1] = cg[0] ? cgs_add(&t->cgs, cg[0], "p", true) : NULL;
	cg[2] = cg[1] ? cgs_add(&t->cgs, cg[1], "c", false) : NULL;
	if (!cg[2])
		return KSFT_FAIL;
	if (set_max(cg[limit_at], "hca_handle=1 hca_object=1"))
		return KSFT_FAIL;

	if (worker_start(&w[0], cg[2]))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (worker_start(&w[1], cg[2]))
		return KSFT_FAIL;
	ok = w_open(&w[1],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;

	for (lvl = 0; lvl < 3; lvl++) {
		long l_max = lvl == limit_at, l_fail = lvl == 2;
		long h_max = lvl <= limit_at;

		ok = expect_events(cg[lvl], "rdma.events.local",
				   &(struct events){ .handle_max = l_max, .handle_fail = l_fail,
						     .object_max = l_max, .object_fail = l_fail });
		if (!ok)
			return KSFT_FAIL;
		ok = expect_events(cg[lvl], "rdma.events",
				   &(struct events){ .handle_max = h_max, .handle_fail = 1,
						     .object_max = h_max, .object_fail = 1 });
		if (!ok)
			return KSFT_FAIL;
		ok = expect_usage(cg[lvl],
				  &(struct hca){ .handle = 1, .object = 1 });
		if (!ok)
			return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/*
 * rdma.events and rdma.events.local for a refusal caused by the limit of
 * the requesting cgroup, of its parent, and of its grandparent: ".max" is
 * counted where the limit was hit (and, in rdma.events, in its ancestors);
 * ".alloc_fail" where the request came from (and its ancestors).
 */
static int test_rdma_events_levels(const char *root, struct rig *t)
{
	int limit_at, ret;

	for (limit_at = 0; limit_at < 3; limit_at++) {
		ret = events_at_level(root, t, limit_at);
		rig_clear(t);
		if (ret != KSFT_PASS) {
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
static int test_rdma_events_local(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *c1, *c2;
	bool ok;

	p = cgs_add(&t->cgs, root, "rdma_test_local", true);
	c1 = p ? cgs_add(&t->cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&t->cgs, p, "c2", false) : NULL;
	if (!c1)
		return KSFT_FAIL;
	if (!c2)
		return KSFT_FAIL;
	if (set_max(p, "hca_handle=2 hca_object=3"))
		return KSFT_FAIL;
	if (set_max(c1, "hca_object=1"))
		return KSFT_FAIL;

	/* Two refusals on c1's own limit (the parent has room). */
	if (worker_start(&w[0], c1))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_CQ, .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;

	/* c2 has no limit; the parent refuses an object and a context. */
	if (worker_start(&w[1], c2))
		return KSFT_FAIL;
	ok = w_open(&w[1], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[1],
		      &(struct wcreate){ .type = OBJ_PD, .count = 3, .done = 2, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (worker_start(&w[2], c2))
		return KSFT_FAIL;
	ok = w_open(&w[2],
		    &(struct wopen){ .count = 1, .done = 0, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;

	ok = expect_events(c1, "rdma.events.local",
			   &(struct events){ .object_max = 2, .object_fail = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c1, "rdma.events",
			   &(struct events){ .object_max = 2, .object_fail = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c2, "rdma.events.local",
			   &(struct events){ .handle_fail = 1, .object_fail = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c2, "rdma.events",
			   &(struct events){ .handle_fail = 1, .object_fail = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events.local",
			   &(struct events){ .handle_max = 1, .object_max = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events",
			   &(struct events){ .handle_max = 1, .handle_fail = 1, .object_max = 3,
					     .object_fail = 3 });
	if (!ok)
		return KSFT_FAIL;

	/* Events stay when the usage goes. */
	workers_stop(w, 3);
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events",
			   &(struct events){ .handle_max = 1, .handle_fail = 1, .object_max = 3,
					     .object_fail = 3 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c1, "rdma.events.local",
			   &(struct events){ .object_max = 2, .object_fail = 2 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * A refusal wakes a poll() on rdma.events of the cgroup whose limit was hit
 * and an inotify watch on rdma.events.local of the requesting cgroup;
 * successful charges do not.
 */
static int test_rdma_events_poll(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	struct pollfd pfd = { .events = POLLPRI };
	char *p, *c, *ev = NULL, *local = NULL;
	int ev_fd = -1, ifd = -1;
	int ret = KSFT_FAIL;
	struct wres res;
	long start, took;
	bool ok;
	int err;

	p = cgs_add(&t->cgs, root, "rdma_test_poll", true);
	c = p ? cgs_add(&t->cgs, p, "c", false) : NULL;
	if (!c)
		goto out;
	if (set_max(p, "hca_object=1"))
		goto out;
	ev = cg_control(p, "rdma.events");
	local = cg_control(c, "rdma.events.local");

	if (access("/proc/sys/fs/inotify", F_OK)) {
		ksft_print_msg("no inotify in this kernel (CONFIG_INOTIFY_USER)\n");
		ret = KSFT_SKIP;
		goto out;
	}
	ev_fd = open(ev, O_RDONLY | O_CLOEXEC);
	if (ev_fd < 0 || reread(ev_fd)) {
		ksft_print_msg("cannot read %s: %s\n", ev, strerror(errno));
		goto out;
	}
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ifd < 0 || inotify_add_watch(ifd, local, IN_MODIFY) < 0) {
		ksft_print_msg("cannot watch %s: %s\n", local, strerror(errno));
		goto out;
	}
	if (pending_pri(ev_fd)) {
		ksft_print_msg("%s: POLLPRI before any event\n", ev);
		goto out;
	}

	if (worker_start(w, c))
		goto out;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		goto out;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		goto out;
	if (pending_pri(ev_fd)) {
		ksft_print_msg("%s: POLLPRI after a successful charge\n", ev);
		goto out;
	}

	/* Block in poll() while the worker is refused. */
	err = worker_send(w,
			  &(struct wcmd){ .op = W_CREATE, .type = OBJ_PD, .count = 1,
					  .delay_ms = 300 });
	if (err)
		goto out;
	start = now_ms();
	pfd.fd = ev_fd;
	if (poll(&pfd, 1, WAIT_MS) != 1 || !(pfd.revents & POLLPRI)) {
		ksft_print_msg("%s: no POLLPRI within %d ms\n", ev, WAIT_MS);
		goto out;
	}
	took = now_ms() - start;
	if (worker_recv(w, &res))
		goto out;
	if (res.done != 0 || res.err != EAGAIN) {
		ksft_print_msg("worker %d: expected 0 PDs created (%s), got %d (%s)\n",
			       w->pid, strerror(EAGAIN), res.done,
			       res.err ? strerror(res.err) : "no error");
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
	if (reread(ev_fd)) {
		ksft_print_msg("cannot read %s again: %s\n", ev, strerror(errno));
		goto out;
	}
	if (pending_pri(ev_fd)) {
		ksft_print_msg("%s: POLLPRI still pending after reading it\n", ev);
		goto out;
	}
	ok = expect_events(p, "rdma.events",
			   &(struct events){ .object_max = 1, .object_fail = 1 });
	if (!ok)
		goto out;
	ok = expect_events(c, "rdma.events.local",
			   &(struct events){ .object_fail = 1 });
	if (!ok)
		goto out;
	ret = KSFT_PASS;
out:
	if (ev_fd >= 0)
		close(ev_fd);
	if (ifd >= 0)
		close(ifd);
	free(ev);
	free(local);
	return ret;
}

/* The mr_mem tests skip on a kernel without the resource. */
static bool no_mr_mem(void)
{
	if (!have_mr_mem)
		ksft_print_msg("kernel has no mr_mem\n");
	return !have_mr_mem;
}

static const char * const mr_mem_files[] = {
	"rdma.mr_mem.max", "rdma.mr_mem.current", "rdma.mr_mem.peak",
};

/* Is @file of @cgroup there? Prints what it found if not as @want. */
static bool file_present(const char *cgroup, const char *file, bool want)
{
	char *path = cg_control(cgroup, file);
	int err = access(path, F_OK) ? errno : 0;

	if (!err != want)
		ksft_print_msg("%s: expected %s, got %s\n", path,
			       want ? "a file" : strerror(ENOENT),
			       err ? strerror(err) : "a file");
	free(path);
	return !err == want;
}

/*
 * rdma.mr_mem.max, .current and .peak: below the root only; a limit in
 * bytes with the suffixes K, M, G and T (powers of 1024) or "max", read
 * back rounded down to a whole page, the limit that is enforced; every
 * malformed write fails with EINVAL and changes nothing; mr_mem is not a
 * key of rdma.max, whose lines keep, like those of rdma.current and
 * rdma.peak, the three fields that container runtimes parse.
 */
static int test_rdma_mr_mem_files(const char *root, struct rig *t)
{
	static const struct {
		const char *fmt;	/* %s: the device name */
		uint64_t val;		/* before the rounding to a page */
	} good[] = {
		{ "%s 0", 0 },
		{ "%s 1K", 1024 },
		{ "%s 1k", 1024 },
		{ "%s 2M", 2ULL << 20 },
		{ "%s 2m", 2ULL << 20 },
		{ "%s 3G", 3ULL << 30 },
		{ "%s 3g", 3ULL << 30 },
		{ "%s 1T", 1ULL << 40 },
		{ "%s 1t", 1ULL << 40 },
		{ "%s 12345", 12345 },
		{ "%s 007", 7 },
		{ "%s 0x10", 16 },
		{ "%s max", MR_MAX },
		{ "%s 9223372036854775808", 1ULL << 63 },
		{ "%s 16777215T", 16777215ULL << 40 },
		{ "%s 18446744073709551614", MR_MAX - 1 },
		{ "%s 4096", 4096 },
		{ "%s 18446744073709551615", MR_MAX },
		{ "%s \t 8k\n", 8192 },
		{ "%s 5M\n", 5ULL << 20 },
	};
	static const struct {
		const char *fmt;	/* %s: the device name */
		int err;
	} bad[] = {
		{ "%s -1", EINVAL },
		{ "%s +1", EINVAL },
		{ "%s 0x", EINVAL },
		{ "%s 10KB", EINVAL },
		{ "%s 10 K", EINVAL },
		{ "%s 1KK", EINVAL },
		{ "%s 1P", EINVAL },
		{ "%s", EINVAL },
		{ "%s ", EINVAL },
		{ "\n", EINVAL },
		{ "%s K", EINVAL },
		{ "%s MAX", EINVAL },
		{ "%s maxx", EINVAL },
		{ "%s max 1", EINVAL },
		{ "%s 5 5", EINVAL },
		{ "%s mr_mem=1", EINVAL },
		{ "%s 1.5G", EINVAL },
		{ "%s 18446744073709551616", EINVAL },
		{ "%s 99999999999999999999", EINVAL },
		{ "%s 16777216T", EINVAL },
		{ "%s 16777216t", EINVAL },
		{ "%s 17179869184G", EINVAL },
		{ "rdma_test_nodev 1M", ENODEV },
		{ "%sx 1M", ENODEV },
		{ "%s\t5M", EINVAL },	/* a tab is part of the name: no value */
	};
	static const char * const runc_files[] = {
		"rdma.max", "rdma.current", "rdma.peak",
	};
	char *cg, *other, buf[128];
	uint64_t val;
	int i, err;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	for (i = 0; i < ARRAY_SIZE(mr_mem_files); i++)
		if (!file_present(root, mr_mem_files[i], false))
			return KSFT_FAIL;

	cg = cgs_add(&t->cgs, root, "rdma_test_mr_files", false);
	other = cgs_add(&t->cgs, root, "rdma_test_mr_files_other", false);
	if (!cg || !other)
		return KSFT_FAIL;
	for (i = 0; i < ARRAY_SIZE(mr_mem_files); i++)
		if (!file_present(cg, mr_mem_files[i], true))
			return KSFT_FAIL;
	if (!expect_mr_mem(cg, "rdma.mr_mem.max", MR_MAX))
		return KSFT_FAIL;
	if (!expect_mr_usage(cg, 0))
		return KSFT_FAIL;
	if (!expect_mr_mem(cg, "rdma.mr_mem.peak", 0))
		return KSFT_FAIL;
	ok = expect_events(cg, "rdma.events", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(cg, "rdma.events.local", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	if (!check_all_formats(cg))
		return KSFT_FAIL;

	/* The two limit files are independent. */
	if (set_max(cg, "hca_handle=3 hca_object=7"))
		return KSFT_FAIL;
	if (!expect_mr_mem(cg, "rdma.mr_mem.max", MR_MAX))
		return KSFT_FAIL;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		snprintf(buf, sizeof(buf), good[i].fmt, rdma_dev);
		err = cg_write(cg, "rdma.mr_mem.max", buf);
		if (err) {
			ksft_print_msg("writing \"%s\": %s\n", buf, strerror(-err));
			return KSFT_FAIL;
		}
		val = good[i].val;
		if (val != MR_MAX)
			val &= ~(uint64_t)(PAGE_SIZE - 1);
		if (!expect_mr_mem(cg, "rdma.mr_mem.max", val))
			return KSFT_FAIL;
		ok = expect_res(cg, "rdma.max",
				&(struct hca){ .handle = 3, .object = 7 });
		if (!ok)
			return KSFT_FAIL;
		if (!check_all_formats(cg))
			return KSFT_FAIL;
		if (!expect_mr_mem(other, "rdma.mr_mem.max", MR_MAX))
			return KSFT_FAIL;
	}

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), bad[i].fmt, rdma_dev);
		err = cg_write(cg, "rdma.mr_mem.max", buf);
		if (err != -bad[i].err) {
			ksft_print_msg("writing \"%s\": expected %s, got %s\n", buf,
				       strerror(bad[i].err),
				       err ? strerror(-err) : "success");
			return KSFT_FAIL;
		}
		if (!expect_mr_mem(cg, "rdma.mr_mem.max", 5ULL << 20))
			return KSFT_FAIL;
	}

	/*
	 * Usage is read-only; a write to the peak resets it for its open
	 * file only (test_rdma_peak_reset), so a new open still reads 0.
	 */
	snprintf(buf, sizeof(buf), "%s 0", rdma_dev);
	err = cg_write(cg, "rdma.mr_mem.current", buf);
	if (!err) {
		ksft_print_msg("%s/rdma.mr_mem.current: writing \"%s\" succeeded\n",
			       cg, buf);
		return KSFT_FAIL;
	}
	err = cg_write(cg, "rdma.mr_mem.peak", buf);
	if (err) {
		ksft_print_msg("%s/rdma.mr_mem.peak: writing \"%s\": %s\n", cg, buf,
			       strerror(-err));
		return KSFT_FAIL;
	}
	if (!expect_mr_mem(cg, "rdma.mr_mem.peak", 0))
		return KSFT_FAIL;

	/* mr_mem is not a key of rdma.max. */
	for (i = 0; i < 2; i++) {
		err = try_max(cg, i ? "hca_object=1 mr_mem=1" : "mr_mem=1");
		if (err != -EINVAL) {
			ksft_print_msg("rdma.max: writing \"mr_mem=1\": expected %s, got %s\n",
				       strerror(EINVAL),
				       err ? strerror(-err) : "success");
			return KSFT_FAIL;
		}
		ok = expect_res(cg, "rdma.max",
				&(struct hca){ .handle = 3, .object = 7 });
		if (!ok)
			return KSFT_FAIL;
		if (!expect_mr_mem(cg, "rdma.mr_mem.max", 5ULL << 20))
			return KSFT_FAIL;
	}

	/* runc and containerd keep only lines of three fields. */
	for (i = 0; i < ARRAY_SIZE(runc_files); i++) {
		if (!check_runc_lines(cg, runc_files[i]))
			return KSFT_FAIL;
		if (!check_runc_lines(other, runc_files[i]))
			return KSFT_FAIL;
	}
	if (!check_all_formats(cg))
		return KSFT_FAIL;
	if (!check_all_formats(other))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * An MR is charged its registered range rounded out to whole pages
 * (PAGE_ALIGN(start + length) - (start & PAGE_MASK)) and one hca_object,
 * to its cgroup and every ancestor, and gives back exactly that when it
 * is deregistered. Two MRs over the same pages are charged twice. The
 * usage is what the driver pinned, as the worker's VmPin shows it.
 */
static int test_rdma_mr_mem_charge(const char *root, struct rig *t)
{
	static const struct {
		uint64_t offset, length, cost;
	} mrs[] = {
		{ 0, 1, PAGE_SIZE },				/* one byte */
		{ 100, PAGE_SIZE, 2 * PAGE_SIZE },		/* unaligned */
		{ 0, 3 * PAGE_SIZE, 3 * PAGE_SIZE },		/* aligned */
		{ PAGE_SIZE - 1, 2, 2 * PAGE_SIZE },		/* 2 bytes, 2 pages */
		{ PAGE_SIZE, PAGE_SIZE, PAGE_SIZE },		/* the 2nd page */
		{ PAGE_SIZE, PAGE_SIZE, PAGE_SIZE },		/* again */
		{ PAGE_SIZE + 1, PAGE_SIZE - 2, PAGE_SIZE },	/* inside it */
		{ 0, MR_BUF_PAGES * PAGE_SIZE, MR_BUF_PAGES * PAGE_SIZE },
	};
	struct worker *w = t->w;
	uint64_t total = 0, peak;
	char *p, *c;
	int i;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	p = cgs_add(&t->cgs, root, "rdma_test_mr_charge", true);
	c = p ? cgs_add(&t->cgs, p, "c", false) : NULL;
	if (!c)
		return KSFT_FAIL;
	if (worker_start(w, c))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(c, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(c, 0))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 0))
		return KSFT_FAIL;

	for (i = 0; i < ARRAY_SIZE(mrs); i++) {
		total += mrs[i].cost;
		ok = w_reg_mr(w,
			      &(struct wmr){ .offset = mrs[i].offset, .length = mrs[i].length });
		if (!ok)
			goto reg_failed;
		if (!expect_mr_usage(c, total))
			goto reg_failed;
		if (!expect_mr_usage(p, total))
			goto reg_failed;
		if (!expect_pinned(w, total))
			goto reg_failed;
		ok = expect_usage(c,
				  &(struct hca){ .handle = 1, .object = 2 + i });
		if (!ok)
			goto reg_failed;
		ok = expect_usage(p,
				  &(struct hca){ .handle = 1, .object = 2 + i });
		if (!ok)
			goto reg_failed;
	}
	peak = total;
	if (!expect_mr_mem(c, "rdma.mr_mem.peak", peak))
		return KSFT_FAIL;
	if (!expect_mr_mem(p, "rdma.mr_mem.peak", peak))
		return KSFT_FAIL;
	if (!check_all_formats(c))
		return KSFT_FAIL;
	if (!check_runc_lines(c, "rdma.current"))
		return KSFT_FAIL;
	if (!check_runc_lines(c, "rdma.peak"))
		return KSFT_FAIL;

	/* Deregistered newest first, each gives back its own charge. */
	for (i = ARRAY_SIZE(mrs) - 1; i >= 0; i--) {
		total -= mrs[i].cost;
		if (!w_destroy(w, -1))
			goto dereg_failed;
		if (!expect_mr_usage(c, total))
			goto dereg_failed;
		if (!expect_mr_usage(p, total))
			goto dereg_failed;
		if (!expect_pinned(w, total))
			goto dereg_failed;
		ok = expect_usage(c,
				  &(struct hca){ .handle = 1, .object = 1 + i });
		if (!ok)
			goto dereg_failed;
	}
	if (!expect_mr_mem(c, "rdma.mr_mem.peak", peak))
		return KSFT_FAIL;
	if (!expect_mr_mem(p, "rdma.mr_mem.peak", peak))
		return KSFT_FAIL;

	/* A smaller second round leaves the peak alone. */
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = 2 * PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(c, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(c, "rdma.mr_mem.peak", peak))
		return KSFT_FAIL;
	ok = expect_events(c, "rdma.events", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	worker_stop(w);
	if (!expect_mr_usage(c, 0))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 0))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;

reg_failed:
	ksft_print_msg("after MR %d: %llu bytes at offset %llu\n",
		       i, (unsigned long long)mrs[i].length,
		       (unsigned long long)mrs[i].offset);
	return KSFT_FAIL;
dereg_failed:
	ksft_print_msg("after freeing MR %d\n", i);
	return KSFT_FAIL;
}

/*
 * Registrations that fail for another reason than the limit charge
 * nothing and count no event: ranges whose end overflows (refused before
 * anything is charged, so even a limit that a wrapped size would pass or
 * fail makes no difference and the peak does not move), an empty range
 * and a range the driver cannot pin (given back after the driver fails).
 */
static int test_rdma_mr_mem_bad_range(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	uint64_t start, bad[3];
	char *cg;
	int i;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	cg = cgs_add(&t->cgs, root, "rdma_test_mr_range", false);
	if (!cg)
		return KSFT_FAIL;
	if (worker_start(w, cg))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	if (set_mr_max(cg, "%d", 2 * PAGE_SIZE))
		return KSFT_FAIL;

	start = (uintptr_t)mr_buf;
	bad[0] = UINT64_MAX;			/* start + length wraps */
	bad[1] = -start;			/* to exactly 0 */
	bad[2] = UINT64_MAX - 100 - start;	/* PAGE_ALIGN() wraps */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ok = w_reg_mr(w,
			      &(struct wmr){ .offset = 0, .length = bad[i], .err = EINVAL });
		if (!ok)
			return KSFT_FAIL;
		if (!expect_mr_usage(cg, PAGE_SIZE))
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = 2 });
		if (!ok)
			return KSFT_FAIL;
		if (!expect_mr_mem(cg, "rdma.mr_mem.peak", PAGE_SIZE))
			return KSFT_FAIL;
	}
	if (set_mr_max(cg, "max"))
		return KSFT_FAIL;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ok = w_reg_mr(w,
			      &(struct wmr){ .offset = 0, .length = bad[i], .err = EINVAL });
		if (!ok)
			return KSFT_FAIL;
		if (!expect_mr_usage(cg, PAGE_SIZE))
			return KSFT_FAIL;
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = 2 });
		if (!ok)
			return KSFT_FAIL;
		if (!expect_mr_mem(cg, "rdma.mr_mem.peak", PAGE_SIZE))
			return KSFT_FAIL;
	}

	/* siw refuses an empty MR, and cannot pin the page after mr_buf. */
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = 0, .err = EINVAL });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 100, .length = 0, .err = EINVAL });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(cg, PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = (MR_BUF_PAGES - 1) * PAGE_SIZE,
				     .length = 2 * PAGE_SIZE, .err = EFAULT });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = MR_BUF_PAGES * PAGE_SIZE, .length = 1,
				     .err = EFAULT });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(cg, PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_pinned(w, PAGE_SIZE))
		return KSFT_FAIL;

	ok = expect_events(cg, "rdma.events", &(struct events){});
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(cg, "rdma.events.local", &(struct events){});
	if (!ok)
		return KSFT_FAIL;

	/* And the next good one is charged as usual. */
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = 2 * PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(cg, 3 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;
	worker_stop(w);
	if (!expect_mr_usage(cg, 0))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * rdma.mr_mem.max: an MR that fits is registered, the next one that does
 * not fails with EAGAIN, before the driver sees it, and leaves no trace
 * (no bytes, no hca_object, no peak, nothing pinned) but the events,
 * which poll() sees; a limit lowered below the usage keeps the MRs and
 * refuses new ones until the usage is below it again.
 */
static int test_rdma_mr_mem_limit(const char *root, struct rig *t)
{
	struct pollfd pfd = { .events = POLLPRI };
	struct worker *w = t->w;
	int ret = KSFT_FAIL;
	char *cg, *ev;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	cg = cgs_add(&t->cgs, root, "rdma_test_mr_limit", false);
	if (!cg)
		return KSFT_FAIL;
	if (set_mr_max(cg, "%d", 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(cg, "rdma.mr_mem.max", 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (worker_start(w, cg))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;

	ev = cg_control(cg, "rdma.events");
	pfd.fd = open(ev, O_RDONLY | O_CLOEXEC);
	if (pfd.fd < 0 || reread(pfd.fd)) {
		ksft_print_msg("cannot read %s: %s\n", ev, strerror(errno));
		goto out;
	}
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = 2 * PAGE_SIZE });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, 2 * PAGE_SIZE))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	if (pending_pri(pfd.fd)) {
		ksft_print_msg("%s: POLLPRI after a successful charge\n", ev);
		goto out;
	}

	/* Full: refused, and nothing of the refused MR stays. */
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = PAGE_SIZE, .err = EAGAIN });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, 2 * PAGE_SIZE))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	if (!expect_mr_mem(cg, "rdma.mr_mem.peak", 2 * PAGE_SIZE))
		goto out;
	ok = expect_events(cg, "rdma.events",
			   &(struct events){ .mr_max = 1, .mr_fail = 1 });
	if (!ok)
		goto out;
	ok = expect_events(cg, "rdma.events.local",
			   &(struct events){ .mr_max = 1, .mr_fail = 1 });
	if (!ok)
		goto out;
	/* The refusal is notified like those of the other resources. */
	if (poll(&pfd, 1, WAIT_MS) != 1 || !(pfd.revents & POLLPRI)) {
		ksft_print_msg("%s: no POLLPRI within %d ms of a refusal\n", ev,
			       WAIT_MS);
		goto out;
	}

	/* One byte more is a page more. */
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 100, .length = 1, .err = EAGAIN });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, 2 * PAGE_SIZE))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	ok = expect_events(cg, "rdma.events.local",
			   &(struct events){ .mr_max = 2, .mr_fail = 2 });
	if (!ok)
		goto out;

	/*
	 * The limit is checked before the driver pins anything: a range
	 * that siw cannot pin (EFAULT) is refused by the limit first.
	 */
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = (MR_BUF_PAGES - 1) * PAGE_SIZE,
				     .length = 2 * PAGE_SIZE, .err = EAGAIN });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, 2 * PAGE_SIZE))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	if (!expect_pinned(w, 2 * PAGE_SIZE))
		goto out;
	ok = expect_events(cg, "rdma.events.local",
			   &(struct events){ .mr_max = 3, .mr_fail = 3 });
	if (!ok)
		goto out;

	/* Below the usage: the MR stays, new ones are refused. */
	if (set_mr_max(cg, "%d", PAGE_SIZE))
		goto out;
	if (!expect_mr_mem(cg, "rdma.mr_mem.max", PAGE_SIZE))
		goto out;
	if (!expect_mr_usage(cg, 2 * PAGE_SIZE))
		goto out;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, 2 * PAGE_SIZE))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	ok = expect_events(cg, "rdma.events",
			   &(struct events){ .mr_max = 4, .mr_fail = 4 });
	if (!ok)
		goto out;

	/* Freed: exactly the limit fits, and no more. */
	if (!w_destroy(w, -1))
		goto out;
	if (!expect_mr_usage(cg, 0))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		goto out;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, PAGE_SIZE))
		goto out;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, PAGE_SIZE))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	if (!expect_mr_mem(cg, "rdma.mr_mem.peak", 2 * PAGE_SIZE))
		goto out;

	/* A limit of 0 refuses any MR; "max" lets the biggest through. */
	if (!w_destroy(w, -1))
		goto out;
	if (set_mr_max(cg, "0"))
		goto out;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, 0))
		goto out;
	if (set_mr_max(cg, "max"))
		goto out;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = MR_BUF_PAGES * PAGE_SIZE });
	if (!ok)
		goto out;
	if (!expect_mr_usage(cg, MR_BUF_PAGES * PAGE_SIZE))
		goto out;
	if (!expect_mr_mem(cg, "rdma.mr_mem.peak", MR_BUF_PAGES * PAGE_SIZE))
		goto out;
	ok = expect_events(cg, "rdma.events",
			   &(struct events){ .mr_max = 6, .mr_fail = 6 });
	if (!ok)
		goto out;
	ok = expect_events(cg, "rdma.events.local",
			   &(struct events){ .mr_max = 6, .mr_fail = 6 });
	if (!ok)
		goto out;
	worker_stop(w);
	if (!expect_mr_usage(cg, 0))
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		goto out;
	ret = KSFT_PASS;
out:
	if (pfd.fd >= 0)
		close(pfd.fd);
	free(ev);
	return ret;
}

/*
 * Hierarchy: a parent's mr_mem limit binds a child without one, siblings
 * add up at the parent, a child's own lower limit binds first; a refusal
 * leaves nothing charged at any level and moves no peak, and is counted
 * as ".max" where the limit is and ".alloc_fail" where it was asked.
 */
static int test_rdma_mr_mem_hierarchy(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *c1, *c2;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	p = cgs_add(&t->cgs, root, "rdma_test_mr_hier", true);
	c1 = p ? cgs_add(&t->cgs, p, "c1", false) : NULL;
	c2 = p ? cgs_add(&t->cgs, p, "c2", false) : NULL;
	if (!c1)
		return KSFT_FAIL;
	if (!c2)
		return KSFT_FAIL;
	if (set_mr_max(p, "8K"))
		return KSFT_FAIL;
	if (!expect_mr_mem(c1, "rdma.mr_mem.max", MR_MAX))
		return KSFT_FAIL;

	/* The child has no limit of its own: its third page is refused. */
	if (worker_start(&w[0], c1))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[0], &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[0], &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[0],
		      &(struct wmr){ .offset = 0, .length = PAGE_SIZE, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(c1, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_mem(c1, "rdma.mr_mem.peak", 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(p, "rdma.mr_mem.peak", 2 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events.local",
			   &(struct events){ .mr_max = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events",
			   &(struct events){ .mr_max = 1, .mr_fail = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c1, "rdma.events.local",
			   &(struct events){ .mr_fail = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c1, "rdma.events", &(struct events){ .mr_fail = 1 });
	if (!ok)
		return KSFT_FAIL;

	/* Siblings add up: room made in c1 is taken by c2. */
	if (!w_destroy(&w[0], -1))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, PAGE_SIZE))
		return KSFT_FAIL;
	if (worker_start(&w[1], c2))
		return KSFT_FAIL;
	ok = w_open(&w[1], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[1],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[1], &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[1],
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(c1, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(c2, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(p, "rdma.mr_mem.peak", 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(c2, "rdma.mr_mem.peak", PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events.local",
			   &(struct events){ .mr_max = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events",
			   &(struct events){ .mr_max = 2, .mr_fail = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c2, "rdma.events.local",
			   &(struct events){ .mr_fail = 1 });
	if (!ok)
		return KSFT_FAIL;

	/* c1's own limit binds before the parent's. */
	if (!w_destroy(&w[1], -1))
		return KSFT_FAIL;
	if (set_mr_max(c1, "%d", PAGE_SIZE))
		return KSFT_FAIL;
	ok = w_reg_mr(&w[0],
		      &(struct wmr){ .offset = 0, .length = PAGE_SIZE, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(c1, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(c1, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c1, "rdma.events.local",
			   &(struct events){ .mr_max = 1, .mr_fail = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(c1, "rdma.events",
			   &(struct events){ .mr_max = 1, .mr_fail = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events.local",
			   &(struct events){ .mr_max = 2 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(p, "rdma.events",
			   &(struct events){ .mr_max = 3, .mr_fail = 3 });
	if (!ok)
		return KSFT_FAIL;

	workers_stop(w, 2);
	if (!expect_mr_usage(c1, 0))
		return KSFT_FAIL;
	if (!expect_mr_usage(c2, 0))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 0))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * A process that exits, or is killed, with MRs registered gives their
 * bytes back when its uverbs file is closed, which the kernel does before
 * the parent can reap it: the usage is exact as soon as waitpid() returns.
 */
static int test_rdma_mr_mem_exit(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *cg;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	cg = cgs_add(&t->cgs, root, "rdma_test_mr_exit", false);
	if (!cg)
		return KSFT_FAIL;
	if (set_mr_max(cg, "%d", 6 * PAGE_SIZE))
		return KSFT_FAIL;

	if (worker_start(&w[0], cg))
		return KSFT_FAIL;
	ok = w_open(&w[0], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[0],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[0],
		      &(struct wmr){ .offset = 0, .length = 3 * PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[0],
		      &(struct wmr){ .offset = 100, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	if (worker_start(&w[1], cg))
		return KSFT_FAIL;
	ok = w_open(&w[1], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[1],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[1], &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[1],
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(cg, 6 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 2, .object = 5 });
	if (!ok)
		return KSFT_FAIL;

	/* Exits without deregistering. */
	worker_stop(&w[0]);
	if (!expect_mr_usage(cg, PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	/* Killed. */
	if (kill(w[1].pid, SIGKILL)) {
		ksft_print_msg("kill %d: %s\n", w[1].pid, strerror(errno));
		return KSFT_FAIL;
	}
	worker_stop(&w[1]);
	if (!expect_mr_usage(cg, 0))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* All of the limit is free again. */
	if (worker_start(&w[2], cg))
		return KSFT_FAIL;
	ok = w_open(&w[2], &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(&w[2],
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(&w[2],
		      &(struct wmr){ .offset = 0, .length = 6 * PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(cg, 6 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(cg, "rdma.mr_mem.peak", 6 * PAGE_SIZE))
		return KSFT_FAIL;
	worker_stop(&w[2]);
	if (!expect_mr_usage(cg, 0))
		return KSFT_FAIL;
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * The cgroup that registered an MR owns its bytes: they stay there when
 * the task moves on, go back there when the MR is deregistered from the
 * new cgroup, and stay charged to the parent after the old cgroup is
 * removed. New MRs are charged where the task is now, under that limit.
 */
static int test_rdma_mr_mem_migrate(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char *p, *a, *b;
	bool ok;

	if (no_mr_mem())
		return KSFT_SKIP;
	p = cgs_add(&t->cgs, root, "rdma_test_mr_migrate", true);
	a = p ? cgs_add(&t->cgs, p, "a", false) : NULL;
	b = p ? cgs_add(&t->cgs, p, "b", false) : NULL;
	if (!a || !b)
		return KSFT_FAIL;

	/* Objects: 0 the PD, 1 and 2 MRs charged to a. */
	if (worker_start(w, a))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = 2 * PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = 1 });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(a, 3 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		return KSFT_FAIL;

	if (worker_move(w, b))
		return KSFT_FAIL;
	if (!expect_mr_usage(a, 3 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(b, 0))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 3 * PAGE_SIZE))
		return KSFT_FAIL;

	/* Object 3 is charged to b, under b's limit and not a's. */
	if (set_mr_max(a, "0"))
		return KSFT_FAIL;
	if (set_mr_max(b, "%d", PAGE_SIZE))
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return KSFT_FAIL;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_usage(a, 3 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(b, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 4 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(b, &(struct hca){ .handle = 0, .object = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(b, "rdma.events.local",
			   &(struct events){ .mr_max = 1, .mr_fail = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = expect_events(a, "rdma.events", &(struct events){});
	if (!ok)
		return KSFT_FAIL;

	/* Deregistered from b, given back to a. */
	if (!w_destroy(w, 1))
		return KSFT_FAIL;
	if (!expect_mr_usage(a, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(b, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(a, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;
	if (!expect_mr_mem(a, "rdma.mr_mem.peak", 3 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_mem(b, "rdma.mr_mem.peak", PAGE_SIZE))
		return KSFT_FAIL;

	/* a can go while it holds object 2; the parent still sees it. */
	if (rmdir(a)) {
		ksft_print_msg("rmdir %s: %s\n", a, strerror(errno));
		return KSFT_FAIL;
	}
	if (!expect_mr_usage(p, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(b, PAGE_SIZE))
		return KSFT_FAIL;
	if (!w_destroy(w, 2))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(b, PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return KSFT_FAIL;

	if (!w_close(w, -1))
		return KSFT_FAIL;
	if (!expect_mr_usage(p, 0))
		return KSFT_FAIL;
	if (!expect_mr_usage(b, 0))
		return KSFT_FAIL;
	ok = expect_usage(p, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		return KSFT_FAIL;

	/* A new cgroup of the same name starts afresh. */
	if (cg_create(a)) {
		ksft_print_msg("mkdir %s again: %s\n", a, strerror(errno));
		return KSFT_FAIL;
	}
	if (!expect_mr_mem(a, "rdma.mr_mem.max", MR_MAX))
		return KSFT_FAIL;
	if (!expect_mr_usage(a, 0))
		return KSFT_FAIL;
	if (!expect_mr_mem(a, "rdma.mr_mem.peak", 0))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* /dev/kmsg opened at its end, for kmsg_find(); -1 if it cannot be. */
static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether a kernel log record logged since kmsg_open_end() holds @text. */
static bool kmsg_find(int fd, const char *text)
{
	char rec[1024];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records lost to a full buffer */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		if (strstr(rec, text))
			return true;
	}
}

/*
 * Removing the device (rdma link del) while a cgroup holds charges and
 * limits for it, then adding it back: nothing breaks, the device's lines
 * go away and come back with no usage and no limits.
 * The kernel log says which cgroup loses its limits.
 *
 * Drivers without disassociate_ucontext (siw) make the removal wait until
 * every uverbs file is closed; others destroy the objects at once. Either
 * is accepted, and the charges must be gone when the removal finishes.
 */
static int test_rdma_device_removal(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char desc[64] = "", ndev[IF_NAMESIZE], path[PATH_MAX];
	int ret = KSFT_FAIL;
	int index, i, err;
	int kmsg = -1;
	pid_t del = -1;
	char *cg;
	bool ok;

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

	cg = cgs_add(&t->cgs, root, "rdma_test_unplug", false);
	if (!cg)
		goto out;
	if (set_max(cg, "hca_handle=5 hca_object=10"))
		goto out;
	if (worker_start(w, cg))
		goto out;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		goto out;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		goto out;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_CQ, .count = 1, .done = 1 });
	if (!ok)
		goto out;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_MR, .count = 1, .done = 1 });
	if (!ok)
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 3 });
	if (!ok)
		goto out;
	if (have_mr_mem) {
		if (set_mr_max(cg, "1M"))
			goto out;
		if (!expect_mr_usage(cg, PAGE_SIZE))
			goto out;
	}

	kmsg = kmsg_open_end();
	if (kmsg < 0) {
		ksft_print_msg("/dev/kmsg: %s\n", strerror(errno));
		goto out;
	}
	del = fork();
	if (del == 0) {
		/* Must not keep the worker's pipes, or it never sees EOF. */
		close_inherited(-1, -1);
		err = rdma_link_del(index);
		if (err)
			ksft_print_msg("rdma link del %s: %s\n", rdma_dev,
				       strerror(-err));
		_exit(err ? 1 : 0);
	}
	if (del < 0) {
		ksft_print_msg("fork: %s\n", strerror(errno));
		goto out;
	}

	err = wait_exit(del, 1000);
	if (err < 0) {
		/* Waiting for the worker's file: the device is still there. */
		ksft_print_msg("%s: removal waits for open uverbs files\n", rdma_dev);
		ok = expect_usage(cg,
				  &(struct hca){ .handle = 1, .object = 3 });
		if (!ok)
			goto out;
		ok = expect_res(cg, "rdma.max",
				&(struct hca){ .handle = 5, .object = 10 });
		if (!ok)
			goto out;
		if (have_mr_mem && !expect_mr_usage(cg, PAGE_SIZE))
			goto out;
		worker_stop(w);
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
	worker_stop(w);

	snprintf(path, sizeof(path),
		 "rdmacg: device %s unregistered, limits lost in 1 cgroup (%s)",
		 rdma_dev, cg + strlen(root));
	if (!kmsg_find(kmsg, path)) {
		ksft_print_msg("no kernel log record \"%s\"\n", path);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(rdma_files); i++)
		if (!expect_no_line(cg, rdma_files[i]))
			goto out;
	for (i = 0; have_mr_mem && i < ARRAY_SIZE(mr_mem_files); i++)
		if (!expect_no_line(cg, mr_mem_files[i]))
			goto out;
	if (have_mr_mem && try_mr_max(cg, "1M") != -ENODEV) {
		ksft_print_msg("an mr_mem limit for a removed device was accepted\n");
		goto out;
	}
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

	ok = expect_res(cg, "rdma.max",
			&(struct hca){ .handle = UNLIMITED, .object = UNLIMITED });
	if (!ok)
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		goto out;
	ok = expect_res(cg, "rdma.peak",
			&(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		goto out;
	ok = expect_events(cg, "rdma.events", &(struct events){});
	if (!ok)
		goto out;
	if (!check_all_formats(cg))
		goto out;
	if (have_mr_mem) {
		if (!expect_mr_mem(cg, "rdma.mr_mem.max", MR_MAX))
			goto out;
		if (!expect_mr_usage(cg, 0))
			goto out;
		if (!expect_mr_mem(cg, "rdma.mr_mem.peak", 0))
			goto out;
	}

	/* The new device works and is charged as usual. */
	if (set_max(cg, "hca_object=1"))
		goto out;
	if (worker_start(w, cg))
		goto out;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		goto out;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		goto out;
	ok = expect_usage(cg, &(struct hca){ .handle = 1, .object = 1 });
	if (!ok)
		goto out;
	ret = KSFT_PASS;
out:
	if (kmsg >= 0)
		close(kmsg);
	worker_stop(w);
	if (del > 0 && wait_exit(del, 10 * WAIT_MS) < 0) {
		ksft_print_msg("rdma link del %s hangs\n", rdma_dev);
		kill(del, SIGKILL);
	}
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
 * test_rdma_v1 for mr_mem: the files are there below the v1 root, and a
 * parent's limit binds its child.
 */
static bool v1_mr_mem(const char *mnt, const char *parent, const char *child,
		      struct worker *w)
{
	int i;
	bool ok;

	for (i = 0; i < ARRAY_SIZE(mr_mem_files); i++) {
		if (!file_present(mnt, mr_mem_files[i], false))
			return false;
		if (!file_present(child, mr_mem_files[i], true))
			return false;
	}
	if (!expect_mr_mem(child, "rdma.mr_mem.max", MR_MAX))
		return false;
	if (set_max(parent, "hca_object=max"))
		return false;
	if (set_mr_max(parent, "4K"))
		return false;
	if (!expect_mr_mem(parent, "rdma.mr_mem.max", PAGE_SIZE))
		return false;
	if (worker_start(w, child))
		return false;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return false;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return false;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok)
		return false;
	ok = w_reg_mr(w,
		      &(struct wmr){ .offset = 0, .length = 1, .err = EAGAIN });
	if (!ok)
		return false;
	if (!expect_mr_usage(child, PAGE_SIZE))
		return false;
	if (!expect_mr_usage(parent, PAGE_SIZE))
		return false;
	ok = expect_usage(child, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		return false;
	if (!expect_mr_mem(parent, "rdma.mr_mem.peak", PAGE_SIZE))
		return false;
	worker_stop(w);
	if (!expect_mr_usage(child, 0))
		return false;
	return expect_mr_usage(parent, 0);
}

/*
 * cgroup v1: the rdma controller mounted on a hierarchy of its own offers
 * rdma.max and rdma.current with the same behaviour. Needs the controller
 * to be released by the v2 hierarchy first.
 */
static int test_rdma_v1(const char *root, struct rig *t)
{
	struct worker *w = t->w;
	char mnt[] = "/tmp/rdma_v1.XXXXXX";
	char *parent = NULL, *child = NULL, *path;
	int ret = KSFT_FAIL;
	bool mounted = false;
	long end;
	int err;
	bool ok;

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

	parent = cg_name(mnt, "t");
	child = cg_name(parent, "u");
	if (cg_create(parent) || cg_create(child)) {
		ksft_print_msg("mkdir in %s: %s\n", mnt, strerror(errno));
		goto out;
	}
	ok = expect_res(parent, "rdma.max",
			&(struct hca){ .handle = UNLIMITED, .object = UNLIMITED });
	if (!ok)
		goto out;
	ok = expect_usage(parent, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		goto out;
	if (set_max(parent, "hca_handle=1 hca_object=2"))
		goto out;
	ok = expect_res(parent, "rdma.max",
			&(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	err = try_max(parent, "hca_object=ma");
	if (err != -EINVAL) {
		ksft_print_msg("v1: writing \"hca_object=ma\": %s\n",
			       err ? strerror(-err) : "accepted");
		goto out;
	}
	ok = expect_res(parent, "rdma.max",
			&(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;

	/* Hierarchical in v1 too: the parent's limits apply to the child. */
	if (worker_start(w, child))
		goto out;
	ok = w_open(w, &(struct wopen){ .count = 2, .done = 1, .err = EAGAIN });
	if (!ok)
		goto out;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 3, .done = 2, .err = EAGAIN });
	if (!ok)
		goto out;
	ok = expect_usage(child, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	ok = expect_usage(parent, &(struct hca){ .handle = 1, .object = 2 });
	if (!ok)
		goto out;
	worker_stop(w);
	ok = expect_usage(child, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		goto out;
	ok = expect_usage(parent, &(struct hca){ .handle = 0, .object = 0 });
	if (!ok)
		goto out;
	if (have_mr_mem && !v1_mr_mem(mnt, parent, child, w))
		goto out;
	ret = KSFT_PASS;
out:
	worker_stop(w);
	if (child)
		cg_destroy(child);
	if (parent)
		cg_destroy(parent);
	free(child);
	free(parent);
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

/* The steps of vmpin_steps(), the cgroups it uses. */
struct vmpin_rig {
	char *p, *a, *b;
};

/*
 * mr_mem counts what pinning counts: after each step, the VmPin of the
 * processes below p adds up to p's rdma.mr_mem.current, and a's while the
 * worker is in a. Registrations aligned and not, a refused one (nothing
 * pinned), a deregistration, a fork (the child pins nothing), a move to b
 * (old pins stay charged to a, new ones go to b) and the exit (all back).
 */
static int vmpin_steps(struct rig *t, const struct vmpin_rig *c)
{
	struct worker *w = t->w;
	bool ok;

	if (worker_start(w, c->a))
		return KSFT_FAIL;
	ok = w_open(w, &(struct wopen){ .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;
	ok = w_create(w,
		      &(struct wcreate){ .type = OBJ_PD, .count = 1, .done = 1 });
	if (!ok)
		return KSFT_FAIL;

	/* Objects: 0 the PD, 1 two whole pages, 2 one page 100 bytes in. */
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = 2 * PAGE_SIZE });
	if (!ok || !expect_vmpin(c->a, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 100, .length = PAGE_SIZE });
	if (!ok || !expect_vmpin(c->a, 4 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_vmpin(c->p, 4 * PAGE_SIZE))
		return KSFT_FAIL;

	/* Refused: nothing pinned, nothing charged, the refusal counted. */
	if (set_mr_max(c->a, "%d", 5 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){
		.offset = 0, .length = 2 * PAGE_SIZE, .err = EAGAIN });
	if (!ok || !expect_vmpin(c->a, 4 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_pinned(w, 4 * PAGE_SIZE))
		return KSFT_FAIL;
	ok = expect_events(c->a, "rdma.events.local",
			   &(struct events){ .mr_max = 1, .mr_fail = 1 });
	if (!ok || set_mr_max(c->a, "max"))
		return KSFT_FAIL;

	if (!w_destroy(w, 1) || !expect_vmpin(c->a, 2 * PAGE_SIZE))
		return KSFT_FAIL;

	/* A forked child pins nothing and takes nothing when it dies. */
	if (!w_fork(w, true) || !expect_vmpin(c->a, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!w_fork(w, false) || !expect_vmpin(c->a, 2 * PAGE_SIZE))
		return KSFT_FAIL;

	/* Moved to b: its old pages stay charged to a, new ones go to b. */
	if (worker_move(w, c->b))
		return KSFT_FAIL;
	ok = w_reg_mr(w, &(struct wmr){ .offset = 0, .length = PAGE_SIZE });
	if (!ok || !expect_vmpin(c->p, 3 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(c->a, 2 * PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(c->b, PAGE_SIZE))
		return KSFT_FAIL;
	if (!w_destroy(w, 2) || !expect_vmpin(c->p, PAGE_SIZE))
		return KSFT_FAIL;
	if (!expect_mr_usage(c->a, 0))
		return KSFT_FAIL;

	worker_stop(w);
	if (!expect_vmpin(c->p, 0) || !expect_mr_usage(c->b, 0))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * vmpin_steps() on device @dev, made with "rdma link add @dev type @type
 * netdev lo" if it does not exist, and deleted again then.
 */
static int vmpin_on(const char *root, struct rig *t, const char *dev,
		    const char *type)
{
	char dev0[sizeof(rdma_dev)], path0[sizeof(uverbs_path)];
	struct vmpin_rig c = {};
	bool created = false;
	int ret, i, err;

	if (no_mr_mem())
		return KSFT_SKIP;
	memcpy(dev0, rdma_dev, sizeof(dev0));
	memcpy(path0, uverbs_path, sizeof(path0));
	if (find_uverbs(dev)) {
		err = rdma_link_add(dev, type, "lo");
		if (err) {
			ksft_print_msg("no %s, and creating it on lo failed: %s\n",
				       dev, strerror(-err));
			return KSFT_SKIP;
		}
		created = true;
		for (i = 0; i < WAIT_MS / 50 && find_uverbs(dev); i++)
			usleep(50000);
	}
	ret = KSFT_FAIL;
	if (strcmp(rdma_dev, dev)) {
		ksft_print_msg("%s has no uverbs device\n", dev);
		goto out;
	}
	ksft_print_msg("%s: %s cannot re-register a translation (no rereg step)\n",
		       dev, type);
	c.p = cgs_add(&t->cgs, root, "rdma_test_vmpin", true);
	c.a = c.p ? cgs_add(&t->cgs, c.p, "a", false) : NULL;
	c.b = c.p ? cgs_add(&t->cgs, c.p, "b", false) : NULL;
	if (c.a && c.b)
		ret = vmpin_steps(t, &c);
out:
	rig_clear(t);
	if (created) {
		i = rdma_dev_index(dev);
		if (i < 0 || rdma_link_del(i)) {
			ksft_print_msg("cannot delete %s\n", dev);
			ret = KSFT_FAIL;
		}
	}
	memcpy(rdma_dev, dev0, sizeof(dev0));
	memcpy(uverbs_path, path0, sizeof(path0));
	return ret;
}

static int test_rdma_mr_mem_vmpin_siw(const char *root, struct rig *t)
{
	return vmpin_on(root, t, "siw0", "siw");
}

static int test_rdma_mr_mem_vmpin_rxe(const char *root, struct rig *t)
{
	return vmpin_on(root, t, "rxe0", "rxe");
}

#define T(x) { x, #x }
static const struct rdma_test {
	int (*fn)(const char *root, struct rig *t);
	const char *name;
} tests[] = {
	T(test_rdma_root_files),
	T(test_rdma_max_roundtrip),
	T(test_rdma_max_bad_input),
	T(test_rdma_max_lines),
	T(test_rdma_hca_handle_limit),
	T(test_rdma_hca_object_limit),
	T(test_rdma_hierarchy),
	T(test_rdma_creator_owns),
	T(test_rdma_limit_below_usage),
	T(test_rdma_rmdir_held),
	T(test_rdma_object_moved),
	T(test_rdma_peak),
	T(test_rdma_peak_refused_above),
	T(test_rdma_peak_reset),
	T(test_rdma_peak_two_devices),
	T(test_rdma_events_levels),
	T(test_rdma_events_local),
	T(test_rdma_events_poll),
	T(test_rdma_mr_mem_files),
	T(test_rdma_mr_mem_charge),
	T(test_rdma_mr_mem_bad_range),
	T(test_rdma_mr_mem_limit),
	T(test_rdma_mr_mem_hierarchy),
	T(test_rdma_mr_mem_exit),
	T(test_rdma_mr_mem_migrate),
	T(test_rdma_mr_mem_vmpin_siw),
	T(test_rdma_mr_mem_vmpin_rxe),
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
	if (probe_mr_mem(root))
		ksft_exit_fail_msg("cannot tell whether the kernel has mr_mem\n");
	ksft_print_msg("the kernel %s mr_mem\n",
		       have_mr_mem ? "has" : "has no");

	signal(SIGPIPE, SIG_IGN);
	ksft_set_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		struct rig t = {};
		int ret = tests[i].fn(root, &t);

		rig_clear(&t);
		switch (ret) {
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
