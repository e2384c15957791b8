// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the rdma cgroup controller on a software RDMA device over the
 * loopback interface (soft-iWARP, or soft-RoCE where lo has a siw device
 * already), made with the rdma tool.  Contexts (hca_handle) and
 * protection domains (hca_object) are created through the uverbs write()
 * interface, with no user-space verbs library.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/siw-abi.h>

#include "kselftest_harness.h"
#include "cgroup_util.h"

/* The device the tests make, over lo, and remove */
#define OWN_DEV "cgt0"
/* Room for a whole file of the controller */
#define FILE_BUF 4096

/* The device under test: OWN_DEV, or a soft device that was there */
static char dev[64];
static char uverbs[PATH_MAX];
static unsigned int dev_index;

/* The values of a line of rdma.events or rdma.events.local */
#define EVENTS_MEM(hmax, hfail, omax, ofail, mmax, mfail) \
	"hca_handle.max=" #hmax " hca_handle.alloc_fail=" #hfail \
	" hca_object.max=" #omax " hca_object.alloc_fail=" #ofail \
	" mr_mem.max=" #mmax " mr_mem.alloc_fail=" #mfail
#define EVENTS(hmax, hfail, omax, ofail) \
	EVENTS_MEM(hmax, hfail, omax, ofail, 0, 0)

/* system() of a command made with printf's @fmt */
static int run(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The index of the device under test in "@prefix rdma dev show"; or -1 */
static int dev_show_index(const char *prefix)
{
	char cmd[256];
	int idx = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%srdma dev show %s", prefix, dev);
	f = popen(cmd, "r");
	if (f) {
		if (fscanf(f, "%d:", &idx) != 1)
			idx = -1;
		pclose(f);
	}
	return idx;
}

/* Whether @name is a soft-iWARP or a soft-RoCE device, by its node_desc */
static bool dev_is_soft(const char *name)
{
	char path[PATH_MAX], desc[64];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_desc", name);
	if (read_text(path, desc, sizeof(desc)) <= 0)
		return false;
	return !strcmp(desc, "rxe\n") || !strcmp(desc, "Software iWARP stack\n");
}

/* Take the first siw or rxe device present; 0 or -1 */
static int dev_find(void)
{
	struct dirent *de;
	DIR *d = opendir("/sys/class/infiniband");

	if (!d)
		return -1;
	dev[0] = '\0';
	while (!dev[0] && (de = readdir(d)))
		if (de->d_name[0] != '.' && dev_is_soft(de->d_name))
			snprintf(dev, sizeof(dev), "%s", de->d_name);
	closedir(d);
	return dev[0] ? 0 : -1;
}

/*
 * The device under test: OWN_DEV, made over lo with siw or else rxe
 * unless an earlier test made it; where neither can be made (lo has a
 * device of each already, say), a siw or rxe device that is there.
 * Finds its index and uverbs file; 0 or -1.
 */
static int dev_add(void)
{
	char path[PATH_MAX], name[64];
	struct dirent *de;
	int idx;
	DIR *d;

	snprintf(dev, sizeof(dev), OWN_DEV);
	if (access("/sys/class/infiniband/" OWN_DEV, F_OK) &&
	    system("rdma link add " OWN_DEV " type siw netdev lo 2>/dev/null") &&
	    system("rdma link add " OWN_DEV " type rxe netdev lo 2>/dev/null") &&
	    dev_find())
		return -1;
	idx = dev_show_index("");
	if (idx < 0)
		return -1;
	dev_index = idx;
	d = opendir("/sys/class/infiniband_verbs");
	if (!d)
		return -1;
	uverbs[0] = '\0';
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/ibdev",
			 de->d_name);
		if (read_text(path, name, sizeof(name)) > 0 &&
		    !strncmp(name, dev, strlen(dev)) && name[strlen(dev)] == '\n')
			snprintf(uverbs, sizeof(uverbs), "/dev/infiniband/%s",
				 de->d_name);
	}
	closedir(d);
	return uverbs[0] ? 0 : -1;
}

static bool dev_is_own(void)
{
	return !strcmp(dev, OWN_DEV);
}

static int dev_del(void)
{
	return system("rdma link delete " OWN_DEV " 2>/dev/null");
}

/* The device the tests made goes when they end */
static void __attribute__((destructor)) dev_cleanup(void)
{
	if (!access("/sys/class/infiniband/" OWN_DEV, F_OK))
		dev_del();
}

/* One uverbs write() command; 0 or -errno */
static int uv_cmd(int fd, __u32 command, const void *cmd, size_t len,
		  size_t out_len)
{
	__u64 buf[16];
	struct ib_uverbs_cmd_hdr *hdr = (void *)buf;
	size_t total = sizeof(*hdr) + len;

	hdr->command = command;
	hdr->in_words = total / 4;
	hdr->out_words = out_len / 4;
	memcpy(hdr + 1, cmd, len);
	return write(fd, buf, total) == (ssize_t)total ? 0 : -errno;
}

/* A uverbs context of the device, charged hca_handle: its fd or -errno */
static int ctx_open(void)
{
	__u64 resp[16] = {};
	struct ib_uverbs_get_context cmd = { .response = (__u64)resp };
	struct ib_uverbs_get_context_resp *r = (void *)resp;
	int fd, ret;

	fd = open(uverbs, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = uv_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd, sizeof(cmd),
		     sizeof(resp));
	if (ret) {
		close(fd);
		return ret;
	}
	close(r->async_fd);
	return fd;
}

/* A protection domain, charged hca_object: its handle or -errno */
static int pd_alloc(int fd)
{
	__u64 resp[16] = {};
	struct ib_uverbs_alloc_pd cmd = { .response = (__u64)resp };
	struct ib_uverbs_alloc_pd_resp *r = (void *)resp;
	int ret;

	ret = uv_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &cmd, sizeof(cmd),
		     sizeof(resp));
	return ret ?: (int)r->pd_handle;
}

/* An MR of @len bytes at @addr, pinned and charged to mr_mem: 0 or -errno */
static int mr_reg(int fd, int pd, void *addr, size_t len)
{
	__u64 resp[16] = {};
	struct {
		struct ib_uverbs_reg_mr cmd;
		struct siw_ureq_reg_mr siw;	/* rxe takes it too */
	} in = {
		.cmd = {
			.response = (__u64)resp,
			.start = (__u64)addr,
			.length = len,
			.hca_va = (__u64)addr,
			.pd_handle = pd,
		},
	};

	return uv_cmd(fd, IB_USER_VERBS_CMD_REG_MR, &in, sizeof(in),
		      sizeof(resp));
}

/*
 * Whether @file of @cgroup has a line for the device whose values read
 * @want (NULL: no line), blanks between and after the keys aside.
 */
static bool expect_line(const char *cgroup, const char *file, const char *want)
{
	char buf[FILE_BUF], got[FILE_BUF] = "", *line, *save, *tok, *s;
	size_t n;

	if (cg_read(cgroup, file, buf, sizeof(buf))) {
		ksft_print_msg("%s/%s: cannot read\n", cgroup, file);
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " ", &s);
		if (!tok || strcmp(tok, dev))
			continue;
		n = 0;
		while ((tok = strtok_r(NULL, " ", &s)))
			n += snprintf(got + n, sizeof(got) - n, "%s%s", n ? " " : "", tok);
		break;
	}
	if (!want ? !got[0] : !strcmp(got, want))
		return true;
	ksft_print_msg("%s: \"%s %s\", not \"%s %s\"\n", file, dev, got, dev,
		       want ?: "(no line)");
	return false;
}

/* A write of @s to @file of @cgroup: 0 or -errno */
static int write_file(const char *cgroup, const char *file, const char *s)
{
	char path[PATH_MAX];
	ssize_t ret;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cgroup, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* A write of "DEV @s" to @file of @cgroup: 0 or -errno */
static int write_dev(const char *cgroup, const char *file, const char *s)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s %s", dev, s);
	return write_file(cgroup, file, buf);
}

static char old_netns_mode[16];
static mode_t uverbs_mode;

/*
 * Undo the same_name test: the device and namespace it made, and the netns
 * mode (ib_core refuses it while the namespace is still on its way out).
 */
static void same_name_cleanup(void)
{
	static const char *const undo[] = {
		"ip netns exec cgt_ns rdma link delete cgt1 2>/dev/null",
		"rdma link delete cgt1 2>/dev/null",
		"ip netns del cgt_ns 2>/dev/null",
		"ip link del cgt_d 2>/dev/null",
	};
	char cmd[64];
	size_t i;

	if (!old_netns_mode[0])
		return;
	run("ip netns exec cgt_ns rdma link delete %s 2>/dev/null", dev);
	for (i = 0; i < ARRAY_SIZE(undo); i++)
		system(undo[i]);
	snprintf(cmd, sizeof(cmd), "rdma system set netns %s 2>/dev/null",
		 old_netns_mode);
	for (i = 0; i < 50 && system(cmd); i++)
		usleep(100000);
	if (i == 50)
		ksft_print_msg("netns mode left exclusive, not %s\n", old_netns_mode);
	old_netns_mode[0] = '\0';
}

FIXTURE(rdma) {
	char root[PATH_MAX];
	char *cg;
};

/* Each test runs in a child process of its own, in a new cgroup */
FIXTURE_SETUP(rdma)
{
	if (geteuid())
		SKIP(return, "needs root");
	if (cg_find_unified_root(self->root, sizeof(self->root), NULL))
		SKIP(return, "cgroup v2 isn't mounted");
	if (cg_read_strstr(self->root, "cgroup.controllers", "rdma"))
		SKIP(return, "the rdma controller isn't available");
	if (cg_read_strstr(self->root, "cgroup.subtree_control", "rdma") &&
	    cg_write(self->root, "cgroup.subtree_control", "+rdma"))
		SKIP(return, "cannot enable the rdma controller");
	if (dev_add())
		SKIP(return, "no siw or rxe device, and none could be made on lo");
	self->cg = cg_name(self->root, "rdma_test");
	ASSERT_NE(NULL, self->cg);
	ASSERT_EQ(0, cg_create(self->cg));
}

FIXTURE_TEARDOWN(rdma)
{
	static const char *const children[] = { "a", "b", "c" };
	char path[PATH_MAX];
	size_t i;

	if (!self->cg)
		return;
	cg_enter_current(self->root);
	same_name_cleanup();
	if (uverbs_mode)
		chmod(uverbs, uverbs_mode);
	for (i = 0; i < ARRAY_SIZE(children); i++) {
		snprintf(path, sizeof(path), "%s/%s", self->cg, children[i]);
		cg_destroy(path);
	}
	cg_destroy(self->cg);
	free(self->cg);
}

/* A new child @name of @parent, which then has no process of its own */
static char *child(const char *parent, const char *name)
{
	char *cg = cg_name(parent, name);

	if (cg && !cg_create(cg) &&
	    !write_file(parent, "cgroup.subtree_control", "+rdma"))
		return cg;
	free(cg);
	return NULL;
}

/* What a new cgroup shows, and that the root has no file of its own */
TEST_F(rdma, files)
{
	char *f = cg_control(self->root, "rdma.max");

	ASSERT_TRUE(expect_line(self->cg, "rdma.max", "hca_handle=max hca_object=max"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=0 hca_object=0"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.peak", "hca_handle=0 hca_object=0"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events", EVENTS(0, 0, 0, 0)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events.local", EVENTS(0, 0, 0, 0)));
	ASSERT_NE(0, access(f, F_OK));
	ASSERT_EQ(ENOENT, errno);
	free(f);
}

struct max_write {
	const char *input;	/* %u: the device's index, +1000 on error */
	int err;
	const char *line;	/* rdma.max afterwards */
};

/* 7.3's grammar of rdma.max; a refused write changes nothing */
TEST_F(rdma, max_write)
{
	static const struct max_write cases[] = {
		{ "%1$s hca_handle=2 hca_object=0x10", 0, "2 16" },
		{ "%1$s hca_object=max", 0, "2 max" },
		{ "%1$s hca_object=010 hca_handle=7", 0, "7 8" },
		{ "%1$s hca_handle=5 hca_handle=6\n", 0, "6 8" },
		{ "%1$s", 0, "6 8" },
		{ "%1$s hca_handle=-1", -EINVAL, "6 8" },
		{ "%1$s hca_handle=2147483648", -EINVAL, "6 8" },
		{ "%1$s hca_handle=1 bogus=1", -EINVAL, "6 8" },
		{ "%1$s hca_handle=1 hca_object", -EINVAL, "6 8" },
		{ "%1$s hca_handle=1\n%1$s hca_object=1", -EINVAL, "6 8" },
		{ "nosuchdev hca_handle=1", -ENODEV, "6 8" },
		{ "%1$s index=%2$u hca_handle=3", 0, "3 8" },
		{ "%1$s index=%2$u hca_handle=4", -ENODEV, "3 8" },
	};
	char buf[128], want[128], h[16], o[16];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(buf, sizeof(buf), cases[i].input, dev,
			 dev_index + 1000 * !!cases[i].err);
		n = sscanf(cases[i].line, "%15s %15s", h, o);
		ASSERT_EQ(2, n);
		snprintf(want, sizeof(want), "hca_handle=%s hca_object=%s",
			 h, o);
		EXPECT_EQ(cases[i].err, write_file(self->cg, "rdma.max", buf))
			TH_LOG("\"%s\"", buf);
		EXPECT_TRUE(expect_line(self->cg, "rdma.max", want))
			TH_LOG("after \"%s\"", buf);
	}
}

/* Limits of one cgroup: refusals, their events, the peaks that stay */
TEST_F(rdma, limits)
{
	int fd;

	ASSERT_EQ(0, write_dev(self->cg, "rdma.max", "hca_handle=1 hca_object=2"));
	ASSERT_EQ(0, cg_enter_current(self->cg));
	fd = ctx_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(-EAGAIN, ctx_open());
	ASSERT_LE(0, pd_alloc(fd));
	ASSERT_LE(0, pd_alloc(fd));
	ASSERT_EQ(-EAGAIN, pd_alloc(fd));
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=1 hca_object=2"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events", EVENTS(1, 1, 1, 1)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events.local", EVENTS(1, 1, 1, 1)));
	close(fd);
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=0 hca_object=0"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.peak", "hca_handle=1 hca_object=2"));
}

/*
 * A parent's limit refuses a child's charge: rdma.events counts the
 * refusal at the parent and the refused allocation at the child, each
 * up the hierarchy; rdma.events.local only where it happened.
 */
TEST_F(rdma, hierarchy)
{
	char *a = child(self->cg, "a"), *b = child(self->cg, "b");
	int fa, fb;

	ASSERT_TRUE(a && b);
	ASSERT_EQ(0, write_dev(self->cg, "rdma.max", "hca_object=1"));
	ASSERT_EQ(0, cg_enter_current(a));
	fa = ctx_open();
	ASSERT_LE(0, fa);
	ASSERT_LE(0, pd_alloc(fa));
	ASSERT_EQ(0, cg_enter_current(b));
	fb = ctx_open();
	ASSERT_LE(0, fb);
	ASSERT_EQ(-EAGAIN, pd_alloc(fb));
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=2 hca_object=1"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events", EVENTS(0, 0, 1, 1)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events.local", EVENTS(0, 0, 1, 0)));
	ASSERT_TRUE(expect_line(b, "rdma.events", EVENTS(0, 0, 0, 1)));
	ASSERT_TRUE(expect_line(b, "rdma.events.local", EVENTS(0, 0, 0, 1)));
	ASSERT_TRUE(expect_line(a, "rdma.events", EVENTS(0, 0, 0, 0)));
	ASSERT_TRUE(expect_line(a, "rdma.current", "hca_handle=1 hca_object=1"));
	free(a);
	free(b);
}

/* A removed cgroup stays charged in its parent until its objects go */
TEST_F(rdma, cgroup_gone)
{
	char *c = child(self->cg, "c");
	int fd;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, cg_enter_current(c));
	fd = ctx_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, pd_alloc(fd));
	ASSERT_EQ(0, cg_enter_current(self->root));
	ASSERT_EQ(0, rmdir(c));
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=1 hca_object=1"));
	close(fd);
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=0 hca_object=0"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.peak", "hca_handle=1 hca_object=1"));
	free(c);
}

#define NOBODY 65534

/*
 * The delegatee's side of the delegation test, in a child process that
 * starts in @cg as root: 0, or the step that failed.
 */
static int delegatee(const char *cg)
{
	char *sub = cg_name(cg, "a");
	int fd;

	if (!sub || setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return 1;
	if (cg_create(sub) || cg_enter_current(sub) ||
	    write_file(cg, "cgroup.subtree_control", "+rdma"))
		return 2;
	if (write_dev(sub, "rdma.max", "hca_object=5") ||
	    write_dev(cg, "rdma.max", "hca_object=5") != -EACCES)
		return 3;
	fd = ctx_open();
	if (fd < 0 || pd_alloc(fd) < 0 || pd_alloc(fd) != -EAGAIN)
		return 4;
	if (!expect_line(cg, "rdma.max", "hca_handle=max hca_object=1") ||
	    !expect_line(cg, "rdma.events.local", EVENTS(0, 0, 1, 0)) ||
	    !expect_line(sub, "rdma.events.local", EVENTS(0, 0, 0, 1)))
		return 5;
	return 0;
}

/*
 * A cgroup delegated to an unprivileged user (cgroup-v2.rst,
 * "Delegation"): the user limits the cgroups it makes below, not its own,
 * whose limit holds below it.
 */
TEST_F(rdma, delegation)
{
	static const char *const files[] = { "", "/cgroup.procs",
					     "/cgroup.subtree_control" };
	char path[PATH_MAX];
	struct stat st;
	int status;
	size_t i;
	pid_t pid;

	ASSERT_EQ(0, write_dev(self->cg, "rdma.max", "hca_object=1"));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s%s", self->cg, files[i]);
		ASSERT_EQ(0, chown(path, NOBODY, NOBODY));
	}
	ASSERT_EQ(0, stat(uverbs, &st));
	uverbs_mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(uverbs, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(cg_enter_current(self->cg) ? 9 : delegatee(self->cg));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_TRUE(expect_line(self->cg, "rdma.current", "hca_handle=0 hca_object=0"));
}

/*
 * Whether @file of @cgroup has the text "DEV " and @fmt, made with @idx,
 * in a line
 */
static bool has_line(const char *cgroup, const char *file, const char *fmt,
		     int idx)
{
	char want[256];
	int n = snprintf(want, sizeof(want), "%s ", dev);

	snprintf(want + n, sizeof(want) - n, fmt, idx);
	if (!cg_read_strstr(cgroup, file, want))
		return true;
	ksft_print_msg("%s: no \"%s\"\n", file, want);
	return false;
}

/*
 * Move cgt1 to network namespace cgt_ns: 0, 1 where the kernel cannot move
 * it (EOPNOTSUPP: the driver cannot disassociate its contexts), else -1
 */
static int move_dev(void)
{
	FILE *f = popen("rdma dev set cgt1 netns cgt_ns 2>&1", "r");
	char out[256] = "";
	int ret;

	if (!f)
		return -1;
	if (!fgets(out, sizeof(out), f))
		out[0] = '\0';
	ret = pclose(f);
	if (!ret)
		return 0;
	ksft_print_msg("rdma dev set cgt1 netns cgt_ns: %s", out);
	return strstr(out, "not supported") ? 1 : -1;
}

/* A write of hca_handle=1 for the device of index @idx */
static bool write_index(const char *cgroup, int idx)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s index=%d hca_handle=1", dev, idx);
	return !write_file(cgroup, "rdma.max", buf);
}

/*
 * Two devices of one name, one in another network namespace (netns mode
 * exclusive): the files key them "NAME index=N", a write without the index
 * fails with ENOTUNIQ, and once one is gone the name alone works again.
 * Some twenty runs of ip and rdma: more than the default 30 s on a slow
 * (emulated, debug) kernel.
 */
TEST_F_TIMEOUT(rdma, same_name, 180)
{
	static const char *const make[] = {
		"ip netns add cgt_ns",
		"ip link add cgt_d type dummy",
		"rdma link add cgt1 type rxe netdev cgt_d",
	};
	const char *cg = self->cg;
	char mode[sizeof(old_netns_mode)] = "";
	int i0 = dev_index, i1, ret;
	size_t i;
	FILE *f;

	f = popen("rdma system show", "r");
	ASSERT_NE(NULL, f);
	if (fscanf(f, "netns %15s", mode) != 1)
		mode[0] = '\0';
	pclose(f);
	if (!mode[0] || system("rdma system set netns exclusive"))
		SKIP(return, "no netns mode exclusive");
	memcpy(old_netns_mode, mode, sizeof(mode));
	i = 0;
	while (i < ARRAY_SIZE(make) && !system(make[i]))
		i++;
	ASSERT_EQ(ARRAY_SIZE(make), i) TH_LOG("failed: %s", make[i]);
	ret = move_dev();
	if (ret > 0)
		SKIP(return, "the device cannot move to another network namespace");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, run("ip netns exec cgt_ns rdma dev set cgt1 name %s", dev));
	i1 = dev_show_index("ip netns exec cgt_ns ");
	ASSERT_LE(0, i1);
	ASSERT_TRUE(has_line(cg, "rdma.max", "index=%d hca_handle=max hca_object=max", i0));
	ASSERT_TRUE(has_line(cg, "rdma.current", "index=%d hca_handle=0 hca_object=0", i1));
	ASSERT_EQ(-ENOTUNIQ, write_dev(cg, "rdma.max", "hca_handle=1"));
	ASSERT_TRUE(has_line(cg, "rdma.max", "index=%d hca_handle=max", i0));
	ASSERT_TRUE(has_line(cg, "rdma.max", "index=%d hca_handle=max", i1));
	ASSERT_EQ(-ENODEV, write_dev(cg, "rdma.max", "index=100000 hca_handle=1"));
	ASSERT_TRUE(write_index(cg, i0));
	ASSERT_TRUE(has_line(cg, "rdma.max", "index=%d hca_handle=1 ", i0));
	ASSERT_TRUE(has_line(cg, "rdma.max", "index=%d hca_handle=max", i1));
	ASSERT_EQ(0, cg_enter_current(cg));
	ASSERT_LE(0, ctx_open());
	ASSERT_EQ(-EAGAIN, ctx_open());
	ASSERT_TRUE(has_line(cg, "rdma.events.local", "index=%d hca_handle.max=1 ", i0));
	ASSERT_TRUE(has_line(cg, "rdma.events.local", "index=%d hca_handle.max=0 ", i1));
	ASSERT_EQ(0, run("ip netns exec cgt_ns rdma link delete %s", dev));
	ASSERT_TRUE(expect_line(cg, "rdma.max", "hca_handle=1 hca_object=max"));
	ASSERT_EQ(0, write_dev(cg, "rdma.max", "hca_handle=max"));
}

/* The limits of a device go with it, and do not come back with it */
TEST_F(rdma, device_gone)
{
	if (!dev_is_own())
		SKIP(return, "%s was there before the tests: it stays", dev);
	ASSERT_EQ(0, write_dev(self->cg, "rdma.max", "hca_handle=3 hca_object=4"));
	ASSERT_EQ(0, dev_del());
	ASSERT_TRUE(expect_line(self->cg, "rdma.max", NULL));
	ASSERT_EQ(-ENODEV, write_dev(self->cg, "rdma.max", "hca_handle=1"));
	ASSERT_EQ(0, dev_add());
	ASSERT_TRUE(expect_line(self->cg, "rdma.max", "hca_handle=max hca_object=max"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.peak", "hca_handle=0 hca_object=0"));
}

struct mem_write {
	const char *file;
	const char *input;
	int err;
	long long bytes;	/* rdma.mr_mem.max afterwards, -1: max */
};

/*
 * rdma.mr_mem.max takes one size as memory.max does, in whole pages, or
 * max; a refused write leaves the limit as it was.
 */
TEST_F(rdma, mr_mem_write)
{
	static const struct mem_write cases[] = {
		{ "rdma.mr_mem.max", "%1$s 16M", 0, 16 << 20 },
		{ "rdma.mr_mem.max", "%1$s 1G 40000", -EINVAL, 16 << 20 },
		{ "rdma.mr_mem.max", "%1$s", -EINVAL, 16 << 20 },
		{ "rdma.mr_mem.max", "%1$s max 4096", -EINVAL, 16 << 20 },
		{ "rdma.mr_mem.max", "%1$s 99999999999999999999999", -ERANGE, 16 << 20 },
		{ "rdma.mr_mem.max", "%1$s 40000\n", 0, 40000 },
		{ "rdma.mr_mem.max", "%1$s max", 0, -1 },
		{ "rdma.mr_mem.max", "%1$s 0x10000", 0, 0x10000 },
		{ "rdma.mr_mem.max", "%1$s index=%2$u 64k", 0, 64 << 10 },
		{ "rdma.mr_mem.max", "%1$s -4096", -EINVAL, 64 << 10 },
		{ "rdma.mr_mem.max", "%1$s 4096x", -EINVAL, 64 << 10 },
		{ "rdma.mr_mem.max", "%1$s hca_handle=1", -EINVAL, 64 << 10 },
		{ "rdma.mr_mem.max", "nosuchdev 4096", -ENODEV, 64 << 10 },
		{ "rdma.max", "%1$s 4096", -EINVAL, 64 << 10 },
		{ "rdma.max", "%1$s max", -EINVAL, 64 << 10 },
	};
	long long page = sysconf(_SC_PAGESIZE), b;
	char buf[128], want[64];
	size_t i;

	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.max", "max"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.current", "0"));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.peak", "0"));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(buf, sizeof(buf), cases[i].input, dev, dev_index);
		b = cases[i].bytes;
		if (b < 0)
			snprintf(want, sizeof(want), "max");
		else
			snprintf(want, sizeof(want), "%lld", b / page * page);
		EXPECT_EQ(cases[i].err, write_file(self->cg, cases[i].file, buf))
			TH_LOG("%s: \"%s\"", cases[i].file, buf);
		EXPECT_TRUE(expect_line(self->cg, "rdma.mr_mem.max", want))
			TH_LOG("after \"%s\"", buf);
	}
	EXPECT_TRUE(expect_line(self->cg, "rdma.max", "hca_handle=max hca_object=max"));
}

/* "N" with N pages of bytes */
static const char *pages(char *buf, long n)
{
	sprintf(buf, "%ld", n * sysconf(_SC_PAGESIZE));
	return buf;
}

/*
 * Pinned pages are charged once pinned: a registration that the limit
 * refuses, or that faults on its first page or half-way, leaves the
 * usage and the peak where they were.
 */
TEST_F(rdma, mr_mem_pin)
{
	long page = sysconf(_SC_PAGESIZE);
	char buf[64], *mem;
	int fd, pd;

	mem = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, mprotect(mem + 6 * page, 2 * page, PROT_NONE));
	ASSERT_EQ(0, write_dev(self->cg, "rdma.mr_mem.max", pages(buf, 5)));
	ASSERT_EQ(0, cg_enter_current(self->cg));
	fd = ctx_open();
	ASSERT_LE(0, fd);
	pd = pd_alloc(fd);
	ASSERT_LE(0, pd);
	ASSERT_EQ(0, mr_reg(fd, pd, mem, 3 * page));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.current", pages(buf, 3)));
	ASSERT_EQ(-EAGAIN, mr_reg(fd, pd, mem, 3 * page));
	ASSERT_EQ(-EFAULT, mr_reg(fd, pd, mem + 6 * page, 2 * page));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.current", pages(buf, 3)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.peak", pages(buf, 3)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.events", EVENTS_MEM(0, 0, 0, 0, 1, 1)));
	ASSERT_EQ(0, write_dev(self->cg, "rdma.mr_mem.max", "max"));
	ASSERT_EQ(-EFAULT, mr_reg(fd, pd, mem + 5 * page, 2 * page));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.current", pages(buf, 3)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.peak", pages(buf, 3)));
	close(fd);
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.current", pages(buf, 0)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.mr_mem.peak", pages(buf, 3)));
	munmap(mem, 8 * page);
}

/* Whether the open file @fd reads a line for the device that is "DEV @want" */
static bool expect_fd(int fd, const char *want)
{
	char buf[FILE_BUF], *line;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	size_t len = strlen(dev);

	if (n < 0)
		return false;
	buf[n] = '\0';
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, dev, len) && line[len] == ' ')
			break;
	if (line && !strcmp(line + len + 1, want))
		return true;
	ksft_print_msg("fd %d: \"%s\", not \"%s %s\"\n", fd, line ?: "", dev, want);
	return false;
}

#define OBJECTS(n) "hca_handle=1 hca_object=" #n

/*
 * Each open file of rdma.peak shows the peak since its own last write,
 * whatever the other files' writes; a file never written, the peak since
 * the cgroup was made.
 */
TEST_F(rdma, peak_reset)
{
	char *path = cg_control(self->cg, "rdma.peak");
	int fd, a, b, c, i;

	ASSERT_NE(NULL, path);
	a = open(path, O_RDWR);
	b = open(path, O_RDWR);
	c = open(path, O_RDONLY);
	ASSERT_TRUE(a >= 0 && b >= 0 && c >= 0);
	ASSERT_EQ(0, cg_enter_current(self->cg));
	fd = ctx_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 5; i++)
		ASSERT_LE(0, pd_alloc(fd));
	ASSERT_EQ(1, write(a, "x", 1));
	ASSERT_TRUE(expect_fd(a, OBJECTS(5)));
	close(fd);
	fd = ctx_open();
	ASSERT_LE(0, fd);
	ASSERT_LE(0, pd_alloc(fd));
	ASSERT_EQ(1, write(b, "x", 1));
	ASSERT_LE(0, pd_alloc(fd));
	ASSERT_TRUE(expect_fd(a, OBJECTS(5)));
	ASSERT_TRUE(expect_fd(b, OBJECTS(2)));
	ASSERT_EQ(1, write(a, "x", 1));
	ASSERT_TRUE(expect_fd(a, OBJECTS(2)));
	ASSERT_TRUE(expect_fd(c, OBJECTS(5)));
	ASSERT_TRUE(expect_line(self->cg, "rdma.peak", OBJECTS(5)));
	close(fd);
	close(a);
	close(b);
	close(c);
	free(path);
}

TEST_HARNESS_MAIN
