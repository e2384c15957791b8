// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the RDMA cgroup controller.
 *
 * Included at the end of kernel/cgroup/rdma.c, so the tests reach the
 * controller's static functions. They build cgroup hierarchies of their own
 * (struct rdma_cgroup with hand-set parents and reference counting turned
 * off) and register fake devices, so they need neither a mounted cgroup
 * file system nor RDMA hardware.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sizes.h>
#include <linux/stdarg.h>

#define TEST_DEV_NAME	"kunit_rdmacg"

static void rdmacg_test_free_cg(void *css)
{
	rdmacg_free_css(css);
}

/* A cgroup below @parent, or a root when @parent is NULL. */
static struct rdma_cgroup *rdmacg_test_cg(struct kunit *test,
					  struct rdma_cgroup *parent)
{
	struct cgroup_subsys_state *css;

	css = rdmacg_alloc_css(parent ? &parent->css : NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, css);
	css->parent = parent ? &parent->css : NULL;
	css->flags |= CSS_NO_REF;
	/* No kernfs node: the kernel log calls it "(null)". */
	css->cgroup = kunit_kzalloc(test, sizeof(*css->cgroup), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, css->cgroup);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, rdmacg_test_free_cg, css));
	return rdmacg_of(css);
}

static void rdmacg_test_unregister(void *device)
{
	rdmacg_unregister_device(device);
}

/* Register a device named @name with the ib_core index @index. */
static struct rdmacg_device *rdmacg_test_device_index(struct kunit *test,
						      const char *name,
						      u32 index)
{
	struct rdmacg_device *device;

	device = kunit_kzalloc(test, sizeof(*device), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, device);
	device->name = (char *)name;
	device->index = index;
	rdmacg_register_device(device);
	KUNIT_ASSERT_EQ(test, device->state, RDMACG_DEV_ACCOUNTED);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, rdmacg_test_unregister,
						  device));
	return device;
}

static struct rdmacg_device *rdmacg_test_device(struct kunit *test,
						const char *name)
{
	return rdmacg_test_device_index(test, name, 0);
}

/*
 * Register a device named TEST_DEV_NAME and build a chain of cgroups below
 * a new root, one for each pointer given before the NULL: the first is the
 * root's child, each next one the child of the one before.
 */
static struct rdmacg_device *rdmacg_test_chain(struct kunit *test, ...)
{
	struct rdmacg_device *device = rdmacg_test_device(test, TEST_DEV_NAME);
	struct rdma_cgroup *parent = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup **cg;
	va_list ap;

	va_start(ap, test);
	while ((cg = va_arg(ap, struct rdma_cgroup **))) {
		*cg = rdmacg_test_cg(test, parent);
		parent = *cg;
	}
	va_end(ap);
	return device;
}

/* The pool of @cg for @device, or NULL. */
static struct rdmacg_pool *rdmacg_test_pool(struct rdma_cgroup *cg,
					    struct rdmacg_device *device)
{
	struct rdmacg_pool *pool;

	rcu_read_lock();
	pool = rdmacg_pool_lookup(cg, device);
	rcu_read_unlock();
	return pool;
}

/* Whether @cg has no pool for any device. */
static bool rdmacg_test_no_pools(struct rdma_cgroup *cg)
{
	struct rdmacg_pool_table *table;
	bool empty = true;
	unsigned int i;

	rcu_read_lock();
	if (rcu_access_pointer(cg->pool0))
		empty = false;
	table = rcu_dereference(cg->table);
	for (i = 0; table && i < table->nr; i++)
		if (rcu_access_pointer(table->pool[i]))
			empty = false;
	rcu_read_unlock();
	return empty;
}

/*
 * The counter of a count (hca_handle, hca_object) of @cg for @device, or
 * NULL when there is no pool.
 */
static struct rdmacg_count *rdmacg_test_res(struct rdma_cgroup *cg,
					    struct rdmacg_device *device,
					    enum rdmacg_resource_type index)
{
	struct rdmacg_pool *pool = rdmacg_test_pool(cg, device);

	return pool && index < RDMACG_NR_COUNTS ? &pool->res[index] : NULL;
}

/* A value of @cg for @device as the files show it. */
static u64 rdmacg_test_value(struct rdma_cgroup *cg,
			     struct rdmacg_device *device,
			     enum rdmacg_resource_type index,
			     enum rdmacg_value what)
{
	u64 val;

	rcu_read_lock();
	val = rdmacg_value(rdmacg_pool_lookup(cg, device), index, what);
	rcu_read_unlock();
	return val;
}

static u64 rdmacg_test_usage(struct rdma_cgroup *cg,
			     struct rdmacg_device *device,
			     enum rdmacg_resource_type index)
{
	return rdmacg_test_value(cg, device, index, RDMACG_VAL_CURRENT);
}

/* The limit of @cg for @device, or 0 without a pool: a check then fails. */
static u64 rdmacg_test_max(struct rdma_cgroup *cg, struct rdmacg_device *device,
			   enum rdmacg_resource_type index)
{
	if (!rdmacg_test_pool(cg, device))
		return 0;
	return rdmacg_test_value(cg, device, index, RDMACG_VAL_MAX);
}

static u64 rdmacg_test_peak(struct rdma_cgroup *cg, struct rdmacg_device *device,
			    enum rdmacg_resource_type index)
{
	return rdmacg_test_value(cg, device, index, RDMACG_VAL_PEAK);
}

static int rdmacg_test_event(struct rdma_cgroup *cg,
			     struct rdmacg_device *device,
			     enum rdmacg_resource_type index,
			     enum rdmacg_event ev)
{
	struct rdmacg_pool *pool = rdmacg_test_pool(cg, device);

	if (!pool || !pool->ext)
		return 0;
	return atomic64_read(&pool->ext->events[index][ev]);
}

/* Charge one unit to @cg through the path rdmacg_try_charge() takes. */
static int rdmacg_test_charge(struct rdma_cgroup *cg,
			      struct rdmacg_device *device,
			      enum rdmacg_resource_type index)
{
	return rdmacg_charge_counted(cg, device, index, 1);
}

/*
 * Charge @bytes of mr_mem to @cg through the path rdmacg_try_charge_mr_mem()
 * takes for the current task's cgroup.
 */
static int rdmacg_test_mr_charge(struct rdma_cgroup *cg,
				 struct rdmacg_device *device, u64 bytes)
{
	if (!bytes)
		return 0;
	return rdmacg_charge_counted(cg, device, RDMACG_RESOURCE_MR_MEM, bytes);
}

/* Apply a write of @text with @set, a file's write function; it must work. */
static void rdmacg_test_write(struct kunit *test, struct rdma_cgroup *cg,
			      int (*set)(struct rdma_cgroup *cg,
					 const char *buf, size_t len),
			      const char *text)
{
	KUNIT_ASSERT_EQ_MSG(test, 0, set(cg, text, strlen(text)),
			    "writing \"%s\"", text);
}

/* Apply an rdma.max write, which must succeed. */
static void rdmacg_test_set(struct kunit *test, struct rdma_cgroup *cg,
			    const char *text)
{
	rdmacg_test_write(test, cg, rdmacg_set_max, text);
}

/* The description of a parameter: @input quoted, control bytes escaped. */
static void rdmacg_test_describe(const char *input, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"",
		 (int)strlen(input), input);
}

struct rdmacg_set_max_case {
	const char *input;
	int ret;
	int handle;	/* hca_handle limit afterwards */
	int object;	/* hca_object limit afterwards */
};

/*
 * Each case starts from hca_handle=7 hca_object=9. The grammar is upstream
 * Linux 7.3's.
 * Several devices per write are taken as rdma_parse.h says.
 * index= is left to rdmacg_test_parse_max(): the test device has no index
 * to match.
 */
static const struct rdmacg_set_max_case rdmacg_set_max_cases[] = {
	{ TEST_DEV_NAME " hca_handle=1 hca_object=2", 0, 1, 2 },
	{ TEST_DEV_NAME " hca_object=2 hca_handle=1", 0, 1, 2 },
	{ TEST_DEV_NAME " hca_handle=3", 0, 3, 9 },
	{ TEST_DEV_NAME " hca_object=4", 0, 7, 4 },
	{ TEST_DEV_NAME " hca_handle=max", 0, RDMACG_MAX, 9 },
	{ TEST_DEV_NAME " hca_handle=max hca_object=max", 0, RDMACG_MAX, RDMACG_MAX },
	{ TEST_DEV_NAME " hca_handle=0", 0, 0, 9 },
	{ TEST_DEV_NAME " hca_handle=2147483647", 0, RDMACG_MAX, 9 },
	{ TEST_DEV_NAME " hca_handle=2147483646", 0, 2147483646, 9 },
	/* Numbers in C notation: octal, hex. */
	{ TEST_DEV_NAME " hca_object=010", 0, 7, 8 },
	{ TEST_DEV_NAME " hca_object=0x10", 0, 7, 16 },
	{ TEST_DEV_NAME " hca_object=0X1f", 0, 7, 31 },
	/* A '-' negates 64 bits: -0, a lone '-' and -(2^64 - 1) pass. */
	{ TEST_DEV_NAME " hca_handle=-0", 0, 0, 9 },
	{ TEST_DEV_NAME " hca_handle=-", 0, 0, 9 },
	{ TEST_DEV_NAME " hca_handle=-18446744073709551615", 0, 1, 9 },
	/* 23 bytes of number pass, 24 do not. */
	{ TEST_DEV_NAME " hca_handle=00000000000000000000001", 0, 1, 9 },
	{ TEST_DEV_NAME " hca_handle=000000000000000000000001", -EINVAL, 7, 9 },
	/* Only a space ends the device name. */
	{ TEST_DEV_NAME "\thca_handle=5", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME "  \t hca_handle=5\t\thca_object=6", 0, 5, 6 },
	{ " \t" TEST_DEV_NAME " hca_handle=5", 0, 5, 9 },
	{ TEST_DEV_NAME " hca_handle=5\n", 0, 5, 9 },
	{ TEST_DEV_NAME " hca_handle=5 \t\n", 0, 5, 9 },
	{ TEST_DEV_NAME " hca_handle=5\r\n\v\f\xa0", 0, 5, 9 },
	{ TEST_DEV_NAME, 0, 7, 9 },
	{ TEST_DEV_NAME "\n", 0, 7, 9 },
	/* Nothing but whitespace names the device "". */
	{ "", -ENODEV, 7, 9 },
	{ "\n", -ENODEV, 7, 9 },
	{ " \t ", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME " hca_handle", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle= 5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle =5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " =5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=m", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=ma", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=MAX", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=maxx", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=-1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=-2147483648", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=+1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=08", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=0x", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5abc", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1.5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=2147483648", -EINVAL, 7, 9 },
	/* Saturates at 2^64 - 1, which is -1. */
	{ TEST_DEV_NAME " hca_handle=99999999999999999999", -EINVAL, 7, 9 },
	/* The last value of a key counts. */
	{ TEST_DEV_NAME " hca_handle=1 hca_handle=2", 0, 2, 9 },
	{ TEST_DEV_NAME " hca_handle=max hca_handle=3", 0, 3, 9 },
	{ TEST_DEV_NAME " hca_object=1 bogus=2", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1 hca_object=x", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " HCA_HANDLE=1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handles=1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5=6", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle==5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5,hca_object=6", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1 junk", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1\v hca_object=2", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " index=0 hca_handle=1 index=0", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " index=0x0 hca_handle=1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " index=-1", -EINVAL, 7, 9 },
	/* A key after a newline belongs to the device before it. */
	{ TEST_DEV_NAME " hca_handle=1\nhca_object=2", 0, 1, 2 },
	{ "\n" TEST_DEV_NAME " hca_handle=5\n\n", 0, 5, 9 },
	{ "\t\n \t\n" TEST_DEV_NAME " hca_handle=5\n\t\n", 0, 5, 9 },
	{ "\t\n\t\n\n", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1\n" TEST_DEV_NAME " hca_object=2", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " \t\n" TEST_DEV_NAME, -EINVAL, 7, 9 },
	/* Without a space, the newline and what follows are in the name. */
	{ TEST_DEV_NAME "\n" TEST_DEV_NAME, -ENODEV, 7, 9 },
	{ TEST_DEV_NAME "\n" TEST_DEV_NAME " hca_handle=1", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5\nnosuchdev hca_handle=1", -ENODEV, 7, 9 },
	{ "nosuchdev hca_handle=1\n" TEST_DEV_NAME " hca_handle=5", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5\nnosuchdev hca_handle=bad", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5\nnosuchdev", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5\thca_object=1\tnosuchdev", -EINVAL, 7, 9 },
	{ "nosuchdev hca_handle=1", -ENODEV, 7, 9 },
	{ "nosuchdev", -ENODEV, 7, 9 },
	{ "kunit_rdmac hca_handle=1", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME "0 hca_handle=1", -ENODEV, 7, 9 },
	/* Parsed before the device is looked up. */
	{ "nosuchdev hca_handle=bad", -EINVAL, 7, 9 },
	{ "nosuchdev index=x hca_handle=1", -EINVAL, 7, 9 },
};

static void rdmacg_set_max_case_desc(const struct rdmacg_set_max_case *t,
				     char *desc)
{
	rdmacg_test_describe(t->input, desc);
}

KUNIT_ARRAY_PARAM(rdmacg_set_max, rdmacg_set_max_cases,
		  rdmacg_set_max_case_desc);

/* A write of rdma.max applied to a cgroup, with the limits afterwards. */
static void rdmacg_test_set_max(struct kunit *test)
{
	const struct rdmacg_set_max_case *t = test->param_value;
	int i = t - rdmacg_set_max_cases;
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	struct rdmacg_pool *pool;
	int ret;

	rdmacg_test_set(test, cg, TEST_DEV_NAME " hca_handle=7 hca_object=9");
	ret = rdmacg_set_max(cg, t->input, strlen(t->input));
	KUNIT_EXPECT_EQ_MSG(test, ret, t->ret, "case %d \"%s\"", i, t->input);
	pool = rdmacg_test_pool(cg, device);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pool->res[RDMACG_RESOURCE_HCA_HANDLE].max),
			    t->handle, "case %d \"%s\"", i, t->input);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pool->res[RDMACG_RESOURCE_HCA_OBJECT].max),
			    t->object, "case %d \"%s\"", i, t->input);
	KUNIT_EXPECT_GE(test, ARRAY_SIZE(rdmacg_set_max_cases), 40);
}

/*
 * rdmacg_parse_max() and the cursor: a NUL ends the text, as in the
 * buffer upstream hands to strstrip(); index=; several devices.
 */
static void rdmacg_test_parse_max(struct kunit *test)
{
	static const char nul[] = TEST_DEV_NAME " hca_handle=5\0 hca_object=x";
	static const char two[] = "a hca_handle=1\nb index=2 hca_object=3\n";
	struct rdmacg_max_req req;
	struct rdmacg_cursor cur;

	KUNIT_EXPECT_EQ(test, 0, rdmacg_parse_max(nul, sizeof(nul) - 1, &req));
	KUNIT_EXPECT_EQ(test, req.mask, BIT(RDMACG_RESOURCE_HCA_HANDLE));
	KUNIT_EXPECT_EQ(test, req.value[RDMACG_RESOURCE_HCA_HANDLE], 5);
	KUNIT_EXPECT_EQ(test, req.dev_len, strlen(TEST_DEV_NAME));
	KUNIT_EXPECT_FALSE(test, req.has_index);
	KUNIT_EXPECT_EQ(test, -EINVAL, rdmacg_parse_max("d hca_handle=\xff", 14, &req));

	KUNIT_EXPECT_EQ(test, 0, rdmacg_parse_max("d index=3 hca_handle=1", 22, &req));
	KUNIT_EXPECT_TRUE(test, req.has_index);
	KUNIT_EXPECT_EQ(test, req.index, 3);
	KUNIT_EXPECT_EQ(test, req.value[RDMACG_RESOURCE_HCA_HANDLE], 1);
	/* Digits in decimal, whether or not a 0 starts them. */
	KUNIT_EXPECT_EQ(test, 0, rdmacg_parse_max("d index=010", 11, &req));
	KUNIT_EXPECT_EQ(test, req.index, 10);
	KUNIT_EXPECT_EQ(test, req.mask, 0);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_parse_max("d index=4294967295", 18, &req));
	KUNIT_EXPECT_EQ(test, req.index, U32_MAX);
	KUNIT_EXPECT_EQ(test, -EINVAL, rdmacg_parse_max("d index=4294967296", 18, &req));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdmacg_parse_max("d index=1 index=1", 17, &req));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdmacg_parse_max("d index=08", 10, &req));

	/* Nothing but whitespace: the device "", which upstream takes too. */
	KUNIT_EXPECT_EQ(test, 0, rdmacg_parse_max("\t\n", 2, &req));
	KUNIT_EXPECT_EQ(test, req.dev_len, 0);

	/* Several devices: the upstream grammar refuses them. */
	KUNIT_EXPECT_EQ(test, -EINVAL, rdmacg_parse_max(two, strlen(two), &req));
	/* The cursor takes them, one after the other. */
	rdmacg_cursor_init(&cur, two, strlen(two));
	KUNIT_ASSERT_EQ(test, 1, rdmacg_next_max(&cur, &req));
	KUNIT_EXPECT_PTR_EQ(test, req.dev, &two[0]);
	KUNIT_EXPECT_EQ(test, req.dev_len, 1);
	KUNIT_EXPECT_EQ(test, req.mask, BIT(RDMACG_RESOURCE_HCA_HANDLE));
	KUNIT_ASSERT_EQ(test, 1, rdmacg_next_max(&cur, &req));
	KUNIT_EXPECT_PTR_EQ(test, req.dev, two + 15);
	KUNIT_EXPECT_EQ(test, req.dev_len, 1);
	KUNIT_EXPECT_TRUE(test, req.has_index);
	KUNIT_EXPECT_EQ(test, req.index, 2);
	KUNIT_EXPECT_EQ(test, req.mask, BIT(RDMACG_RESOURCE_HCA_OBJECT));
	KUNIT_EXPECT_EQ(test, req.value[RDMACG_RESOURCE_HCA_OBJECT], 3);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_next_max(&cur, &req));

	/* Without a space before the newline, one device "a\nb". */
	rdmacg_cursor_init(&cur, "a\nb hca_handle=1", 16);
	KUNIT_ASSERT_EQ(test, 1, rdmacg_next_max(&cur, &req));
	KUNIT_EXPECT_EQ(test, req.dev_len, 3);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_next_max(&cur, &req));
}

/* A seq_file whose buffer the test reads back. */
static void rdmacg_test_seq(struct kunit *test, struct seq_file *sf)
{
	*sf = (struct seq_file){ .size = PAGE_SIZE };
	sf->buf = kunit_kzalloc(test, sf->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sf->buf);
}

struct rdmacg_bytes_case {
	const char	*input;
	int		ret;
	u64		value;
};

static const struct rdmacg_bytes_case rdmacg_bytes_cases[] = {
	{ "d 0", 0, 0 },
	{ "d 4096\n", 0, 4096 },
	{ " \td \t8k\t\n", 0, 8192 },
	{ "d 1K", 0, SZ_1K },
	{ "d 2m", 0, 2 * SZ_1M },
	{ "d 2M", 0, 2 * SZ_1M },
	{ "d 3G", 0, 3ULL * SZ_1G },
	{ "d 1T", 0, 1ULL << 40 },
	{ "d max", 0, U64_MAX },
	{ "d 9223372036854775808", 0, 1ULL << 63 },
	{ "d 18446744073709551615", 0, U64_MAX },
	{ "d 17179869183G", 0, U64_MAX - (SZ_1G - 1) },
	{ "d 16777215T", 0, U64_MAX - ((1ULL << 40) - 1) },
	/* C notation, as rdma.max and memparse() read numbers. */
	{ "d 0x10", 0, 16 },
	{ "d 010", 0, 8 },
	{ "d 0x10k", 0, 16 * SZ_1K },
	{ "d 0xffffffffffffffff", 0, U64_MAX },
	{ "d index=2 1G", 0, SZ_1G },
	{ "d 1G index=2", 0, SZ_1G },
	{ "d 18446744073709551616", -EINVAL },
	{ "d 0x10000000000000000", -EINVAL },
	{ "d 99999999999999999999", -EINVAL },
	{ "d 17179869184G", -EINVAL },
	{ "d 16777216T", -EINVAL },
	{ "d -1", -EINVAL },
	{ "d 08", -EINVAL },
	{ "d 0x", -EINVAL },
	{ "d 10KB", -EINVAL },
	{ "d 10 K", -EINVAL },
	{ "d 1.5G", -EINVAL },
	{ "d K", -EINVAL },
	{ "d 1P", -EINVAL },
	{ "d +1", -EINVAL },
	{ "d Max", -EINVAL },
	{ "d", -EINVAL },
	{ "", -EINVAL },
	{ "d 1 2", -EINVAL },
	{ "d mr_mem=1", -EINVAL },
	{ "d index=1 index=1 1G", -EINVAL },
	{ "d index=0x1 1G", -EINVAL },
	/* Only a space ends the name; a value after a newline is a device. */
	{ "d\t8k", -EINVAL },
	{ "d \t\n8k", -EINVAL },
};

static void rdmacg_bytes_case_desc(const struct rdmacg_bytes_case *t,
				   char *desc)
{
	rdmacg_test_describe(t->input, desc);
}

KUNIT_ARRAY_PARAM(rdmacg_bytes, rdmacg_bytes_cases, rdmacg_bytes_case_desc);

/*
 * rdmacg_parse_bytes(): the values and errors of rdma.mr_mem.max writes,
 * 64 bits wide.
 */
static void rdmacg_test_parse_bytes(struct kunit *test)
{
	const struct rdmacg_bytes_case *t = test->param_value;
	struct rdmacg_bytes_req req;

	KUNIT_EXPECT_EQ_MSG(test, t->ret,
			    rdmacg_parse_bytes(t->input, strlen(t->input), &req),
			    "case \"%s\"", t->input);
	if (!t->ret) {
		KUNIT_EXPECT_EQ_MSG(test, t->value, req.value,
				    "case \"%s\"", t->input);
		KUNIT_EXPECT_EQ_MSG(test, 1, req.dev_len,
				    "case \"%s\"", t->input);
	}
}

/*
 * Bytes near the top of 64 bits: a limit of 2^63 is reached exactly and
 * not passed, and usage near U64_MAX refuses instead of wrapping.
 */
static void rdmacg_test_mr_mem_limits(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_MR_MEM;
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	const u64 half = 1ULL << 63;

	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, TEST_DEV_NAME " 9223372036854775808");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, half - SZ_4K));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(cg, device, SZ_8K));
	KUNIT_EXPECT_EQ(test, half - SZ_4K, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, SZ_4K));
	KUNIT_EXPECT_EQ(test, half, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(cg, device, 1));
	KUNIT_EXPECT_EQ(test, half, rdmacg_test_peak(cg, device, r));

	/* Without a limit: U64_MAX - 10 held, 20 more must not wrap. */
	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, TEST_DEV_NAME " max");
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, half - 11));
	KUNIT_EXPECT_EQ(test, U64_MAX - 10, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(cg, device, 20));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(cg, device, U64_MAX));
	KUNIT_EXPECT_EQ(test, U64_MAX - 10, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, U64_MAX - 10, rdmacg_test_peak(cg, device, r));
	rdmacg_uncharge_mr_mem(cg, device, U64_MAX - 10);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(cg, device, r));

	/* A limit lowered below the usage refuses all until enough is back. */
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, SZ_8K));
	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, TEST_DEV_NAME " 4K");
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(cg, device, 1));
	rdmacg_uncharge_mr_mem(cg, device, SZ_8K);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, SZ_4K));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, 0));
	KUNIT_EXPECT_EQ(test, SZ_4K, rdmacg_test_usage(cg, device, r));
	rdmacg_uncharge_mr_mem(cg, device, SZ_4K);
	rdmacg_uncharge_mr_mem(cg, device, 0);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(cg, device, r));

	/* Charges come in pages: a limit is what it enforces, a whole page. */
	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, TEST_DEV_NAME " 6000");
	KUNIT_EXPECT_EQ(test, PAGE_SIZE, rdmacg_test_max(cg, device, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(cg, device, 1));
	rdmacg_uncharge_mr_mem(cg, device, PAGE_SIZE);
	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, TEST_DEV_NAME " 4095");
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_max(cg, device, r));
	KUNIT_EXPECT_EQ(test, 6, rdmacg_test_event(cg, device, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(cg, device, RDMACG_RESOURCE_HCA_OBJECT));
}

/*
 * root - p (8K) - c - g: bytes charged at g count at every level; the
 * charge that would pass p's limit is refused there and leaves no trace
 * at c and g (usage, peak), and the events name p as the level that
 * refused. The counts of rdma.max are not charged, and refuse nothing.
 */
static void rdmacg_test_mr_mem_hierarchy(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_MR_MEM;
	struct rdma_cgroup *p, *c, *g;
	struct rdmacg_device *device = rdmacg_test_chain(test, &p, &c, &g, NULL);

	rdmacg_test_write(test, p, rdmacg_set_mr_mem_max, TEST_DEV_NAME " 8K");
	rdmacg_test_set(test, g, TEST_DEV_NAME " hca_object=0");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(g, device, SZ_4K));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(c, device, SZ_2K));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(g, device, SZ_4K));

	KUNIT_EXPECT_EQ(test, SZ_4K, rdmacg_test_usage(g, device, r));
	KUNIT_EXPECT_EQ(test, SZ_4K + SZ_2K, rdmacg_test_usage(c, device, r));
	KUNIT_EXPECT_EQ(test, SZ_4K + SZ_2K, rdmacg_test_usage(p, device, r));
	KUNIT_EXPECT_EQ(test, SZ_4K, rdmacg_test_peak(g, device, r));
	KUNIT_EXPECT_EQ(test, SZ_4K + SZ_2K, rdmacg_test_peak(c, device, r));
	KUNIT_EXPECT_EQ(test, SZ_4K + SZ_2K, rdmacg_test_peak(p, device, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(g, device, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(g, device, r, RDMACG_EV_MAX));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(c, device, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(c, device, r, RDMACG_EV_FAIL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(p, device, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(g, device,
						   RDMACG_RESOURCE_HCA_OBJECT,
						   RDMACG_EV_FAIL));

	/* What fits exactly is taken; the next byte is not. */
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_mr_charge(g, device, SZ_2K));
	KUNIT_EXPECT_EQ(test, SZ_8K, rdmacg_test_usage(p, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_mr_charge(g, device, 1));
	rdmacg_uncharge_mr_mem(g, device, SZ_4K + SZ_2K);
	rdmacg_uncharge_mr_mem(c, device, SZ_2K);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(p, device, r));
	KUNIT_EXPECT_EQ(test, SZ_8K, rdmacg_test_peak(p, device, r));
	KUNIT_EXPECT_EQ(test, SZ_4K + SZ_2K, rdmacg_test_peak(g, device, r));
}

/*
 * The rdma.mr_mem.* files: "DEV VALUE", "max" for no limit; a bad write
 * changes nothing; rdma.max neither takes nor shows the bytes, so that its
 * lines keep the three fields container runtimes parse.
 */
static void rdmacg_test_mr_mem_files(struct kunit *test)
{
	static const char *const bad[] = {
		TEST_DEV_NAME " 0x", TEST_DEV_NAME " -1", TEST_DEV_NAME,
		TEST_DEV_NAME " 18446744073709551616", TEST_DEV_NAME " 1 2",
	};
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	const char *mr_mem_max = TEST_DEV_NAME " mr_mem=1";
	struct seq_file sf;
	int i;

	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_FILE_MR_MEM | RDMACG_VAL_MAX);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME " max\n"));

	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, TEST_DEV_NAME " 1M");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, -EINVAL,
				    rdmacg_set_mr_mem_max(cg, bad[i], strlen(bad[i])),
				    "writing \"%s\"", bad[i]);
	KUNIT_EXPECT_EQ(test, -ENODEV, rdmacg_set_mr_mem_max(cg, "nosuchdev 1", 11));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdmacg_set_max(cg, mr_mem_max, strlen(mr_mem_max)));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(cg, device, 3 * SZ_4K));
	rdmacg_uncharge_mr_mem(cg, device, SZ_4K);

	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_FILE_MR_MEM | RDMACG_VAL_MAX);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME " 1048576\n"));
	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_FILE_MR_MEM | RDMACG_VAL_CURRENT);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME " 8192\n"));
	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_FILE_MR_MEM | RDMACG_VAL_PEAK);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME " 12288\n"));
	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_VAL_CURRENT);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME
					   " hca_handle=0 hca_object=0\n"));
	KUNIT_EXPECT_NULL(test, strstr(sf.buf, "mr_mem"));
	rdmacg_uncharge_mr_mem(cg, device, SZ_8K);
}

/*
 * root - a - b - c: the limit of 1 sits at c, b or a in turn. The second
 * charge from c must fail at that level and leave usage 1 everywhere, and
 * the events must be counted at the right levels.
 */
static void rdmacg_test_refusal_levels(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *device = rdmacg_test_device(test, TEST_DEV_NAME);
	struct rdma_cgroup *root, *lvl[3], *limited;
	int at, i;

	for (at = 0; at < 3; at++) {
		root = rdmacg_test_cg(test, NULL);
		lvl[0] = rdmacg_test_cg(test, root);	/* a */
		lvl[1] = rdmacg_test_cg(test, lvl[0]);	/* b */
		lvl[2] = rdmacg_test_cg(test, lvl[1]);	/* c */
		rdmacg_test_set(test, lvl[at], TEST_DEV_NAME " hca_object=1");

		KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(lvl[2], device, r));
		limited = NULL;
		KUNIT_EXPECT_EQ(test, -EAGAIN,
				rdmacg_charge(lvl[2], device, r, 1, &limited));
		KUNIT_EXPECT_PTR_EQ(test, limited, lvl[at]);
		rdmacg_count_refusal(lvl[2], limited, device, r);

		for (i = 0; i < 3; i++) {
			KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(lvl[i], device, r));
			KUNIT_EXPECT_EQ(test, i == at,
					rdmacg_test_event(lvl[i], device, r,
							  RDMACG_EV_MAX_LOCAL));
			KUNIT_EXPECT_EQ(test, i <= at,
					rdmacg_test_event(lvl[i], device, r,
							  RDMACG_EV_MAX));
			KUNIT_EXPECT_EQ(test, i == 2,
					rdmacg_test_event(lvl[i], device, r,
							  RDMACG_EV_FAIL_LOCAL));
			KUNIT_EXPECT_EQ(test, 1,
					rdmacg_test_event(lvl[i], device, r,
							  RDMACG_EV_FAIL));
			/* The other resource saw nothing. */
			KUNIT_EXPECT_EQ(test, 0,
					rdmacg_test_usage(lvl[i], device,
							  RDMACG_RESOURCE_HCA_HANDLE));
		}
		KUNIT_EXPECT_NULL(test, rdmacg_test_pool(root, device));

		rdmacg_uncharge(lvl[2], device, r);
		for (i = 0; i < 3; i++)
			KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(lvl[i], device, r));
	}
}

/* Siblings add up at their parent; a refusal in one leaves the other alone. */
static void rdmacg_test_siblings(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_HANDLE;
	struct rdma_cgroup *parent, *x;
	struct rdmacg_device *device = rdmacg_test_chain(test, &parent, &x, NULL);
	struct rdma_cgroup *y = rdmacg_test_cg(test, parent);

	rdmacg_test_set(test, parent, TEST_DEV_NAME " hca_handle=3");
	rdmacg_test_set(test, x, TEST_DEV_NAME " hca_handle=max");
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(x, device, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(x, device, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(y, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(y, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(x, device, r));
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_usage(parent, device, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_usage(x, device, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(y, device, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_event(parent, device, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_event(parent, device, r, RDMACG_EV_FAIL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(parent, device, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(x, device, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(x, device, r, RDMACG_EV_MAX));

	rdmacg_uncharge(y, device, r);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(x, device, r));
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_usage(x, device, r));
	rdmacg_uncharge(x, device, r);
	rdmacg_uncharge(x, device, r);
	rdmacg_uncharge(x, device, r);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(parent, device, r));
}

/* A limit below usage keeps what is held and refuses more until it drops. */
static void rdmacg_test_limit_below_usage(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	rdmacg_test_set(test, cg, TEST_DEV_NAME " hca_object=1");
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(cg, device, r));
	rdmacg_uncharge(cg, device, r);
	rdmacg_uncharge(cg, device, r);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(cg, device, r));
	rdmacg_uncharge(cg, device, r);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(cg, device, r));
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_peak(cg, device, r));
	rdmacg_uncharge(cg, device, r);
}

/* Usage stops at the largest limit instead of wrapping. */
static void rdmacg_test_no_wrap(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	struct rdmacg_count *c;

	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	c = rdmacg_test_res(cg, device, r);
	KUNIT_ASSERT_NOT_NULL(test, c);
	atomic_set(&c->usage, RDMACG_MAX - 1);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_EQ(test, RDMACG_MAX, atomic_read(&c->usage));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_EQ(test, RDMACG_MAX, atomic_read(&c->usage));
	KUNIT_EXPECT_EQ(test, RDMACG_MAX, atomic_read(&c->peak));
	atomic_set(&c->usage, 0);
}

static int rdmacg_test_count_pools(struct rdmacg_device *device)
{
	struct rdmacg_pool *pool;
	int n = 0;

	mutex_lock(&device->pools_lock);
	list_for_each_entry(pool, &device->pools, dev_link)
		n++;
	mutex_unlock(&device->pools_lock);
	return n;
}

/*
 * Pools appear with the first charge (every level but the root) or limit
 * write, survive usage going back to zero, and go with their cgroup.
 */
static void rdmacg_test_pool_lifetime(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_HANDLE;
	struct rdmacg_device *device = rdmacg_test_device(test, TEST_DEV_NAME);
	struct rdma_cgroup *root = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup *a = rdmacg_test_cg(test, root);
	struct rdma_cgroup *b = rdmacg_test_cg(test, a);
	struct rdma_cgroup *other;
	struct rdmacg_pool *pool;

	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_count_pools(device));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(root, device, r));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(root));
	rdmacg_uncharge(root, device, r);

	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(b, device, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_count_pools(device));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(root));
	pool = rdmacg_test_pool(b, device);
	KUNIT_EXPECT_NOT_NULL(test, pool);
	rdmacg_uncharge(b, device, r);
	KUNIT_EXPECT_PTR_EQ(test, pool, rdmacg_test_pool(b, device));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(b, device, r));
	KUNIT_EXPECT_PTR_EQ(test, pool, rdmacg_test_pool(b, device));
	rdmacg_uncharge(b, device, r);
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_count_pools(device));

	/* A limit write makes a pool; naming no key or a bad key does not. */
	other = rdmacg_of(rdmacg_alloc_css(&a->css));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	other->css.parent = &a->css;
	KUNIT_EXPECT_EQ(test, 0, rdmacg_set_max(other, TEST_DEV_NAME, strlen(TEST_DEV_NAME)));
	KUNIT_EXPECT_EQ(test, -EINVAL, rdmacg_set_max(other, TEST_DEV_NAME " x=1",
						      strlen(TEST_DEV_NAME " x=1")));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(other));
	rdmacg_test_set(test, other, TEST_DEV_NAME " hca_handle=max");
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_count_pools(device));
	rdmacg_free_css(&other->css);
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_count_pools(device));
}

#define RDMACG_TEST_DEVICES	9	/* ids through three sizes of table */

/* Names of the devices of the tests that register several. */
static const char *const rdmacg_test_names[RDMACG_TEST_DEVICES] = {
	"kunit_t0", "kunit_t1", "kunit_t2", "kunit_t3", "kunit_t4",
	"kunit_t5", "kunit_t6", "kunit_t7", "kunit_t8",
};

/*
 * Each pool points to its parent cgroup's pool for the same device, created
 * first, whether by a charge or a limit write; the table grows with the
 * device ids and keeps the pools it held.
 */
static void rdmacg_test_pool_tree(struct kunit *test)
{
	const char *const *names = rdmacg_test_names;
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *dev[RDMACG_TEST_DEVICES];
	struct rdma_cgroup *root = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup *a = rdmacg_test_cg(test, root);
	struct rdma_cgroup *b = rdmacg_test_cg(test, a);
	struct rdma_cgroup *c = rdmacg_test_cg(test, b);
	struct rdmacg_pool *first_b, *first_c;
	struct rdmacg_pool_table *table;
	char text[32];
	unsigned int nr;
	int i;

	dev[0] = rdmacg_test_device(test, names[0]);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(c, dev[0], r));
	first_c = rdmacg_test_pool(c, dev[0]);
	first_b = rdmacg_test_pool(b, dev[0]);
	KUNIT_ASSERT_NOT_NULL(test, first_c);
	KUNIT_ASSERT_NOT_NULL(test, first_b);

	/* Odd devices get their chain from a charge, even ones from a limit. */
	for (i = 1; i < RDMACG_TEST_DEVICES; i++) {
		dev[i] = rdmacg_test_device(test, names[i]);
		if (i % 2) {
			KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(c, dev[i], r));
		} else {
			snprintf(text, sizeof(text), "%s hca_object=3", names[i]);
			rdmacg_test_set(test, c, text);
		}
	}
	rdmacg_test_set(test, c, "kunit_t0 hca_handle=4 hca_object=5");

	rcu_read_lock();
	table = rcu_dereference(c->table);
	nr = table ? table->nr : 0;
	rcu_read_unlock();
	/* The table holds the ids from 1. */
	KUNIT_EXPECT_GE(test, nr, dev[RDMACG_TEST_DEVICES - 1]->id);

	KUNIT_EXPECT_PTR_EQ(test, first_c, rdmacg_test_pool(c, dev[0]));
	KUNIT_EXPECT_PTR_EQ(test, first_b, rdmacg_test_pool(b, dev[0]));
	for (i = 0; i < RDMACG_TEST_DEVICES; i++) {
		struct rdmacg_pool *pc = rdmacg_test_pool(c, dev[i]);
		struct rdmacg_pool *pb = rdmacg_test_pool(b, dev[i]);
		struct rdmacg_pool *pa = rdmacg_test_pool(a, dev[i]);

		KUNIT_ASSERT_NOT_NULL_MSG(test, pc, "device %d", i);
		KUNIT_ASSERT_NOT_NULL_MSG(test, pb, "device %d", i);
		KUNIT_ASSERT_NOT_NULL_MSG(test, pa, "device %d", i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, pb, pc->parent, "device %d", i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, pa, pb->parent, "device %d", i);
		KUNIT_EXPECT_NULL_MSG(test, pa->parent, "device %d", i);
		KUNIT_EXPECT_PTR_EQ(test, c, pc->cg);
		KUNIT_EXPECT_PTR_EQ(test, a, pa->cg);
		KUNIT_EXPECT_NULL(test, rdmacg_test_pool(root, dev[i]));
		/* charged: device 0 and the odd ones, once each */
		KUNIT_EXPECT_EQ_MSG(test, i == 0 || i % 2, rdmacg_test_usage(a, dev[i], r),
				    "device %d", i);
		KUNIT_EXPECT_EQ_MSG(test, i == 0 || i % 2, rdmacg_test_usage(c, dev[i], r),
				    "device %d", i);
	}
	KUNIT_EXPECT_EQ(test, 5, rdmacg_test_max(c, dev[0], r));
	KUNIT_EXPECT_EQ(test, 4, rdmacg_test_max(c, dev[0],
						 RDMACG_RESOURCE_HCA_HANDLE));
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_max(c, dev[2], r));

	for (i = 0; i < RDMACG_TEST_DEVICES; i++)
		if (i == 0 || i % 2)
			rdmacg_uncharge(c, dev[i], r);
	for (i = 0; i < RDMACG_TEST_DEVICES; i++) {
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(a, dev[i], r));
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(b, dev[i], r));
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(c, dev[i], r));
	}
}

/*
 * Unregistering a device with charges outstanding frees its pools; charges
 * on it fail, and its late uncharges only drop their references, even when
 * the next device has taken over its id and has pools of its own.
 */
static void rdmacg_test_unregister_outstanding(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *a, *b;
	struct rdmacg_device *old = rdmacg_test_chain(test, &a, &b, NULL);
	struct rdmacg_device *new;
	u32 old_id = old->id;

	rdmacg_test_set(test, a, TEST_DEV_NAME " hca_object=5");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(b, old, r));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(b, old, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_count_pools(old));

	rdmacg_unregister_device(old);
	KUNIT_EXPECT_EQ(test, old->state, RDMACG_DEV_UNREGISTERED);
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(a));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(b));
	KUNIT_EXPECT_TRUE(test, list_empty(&old->pools));
	KUNIT_EXPECT_EQ(test, -ENODEV, rdmacg_set_max(a, TEST_DEV_NAME " hca_object=1",
						      strlen(TEST_DEV_NAME " hca_object=1")));
	KUNIT_EXPECT_EQ(test, -ENODEV, rdmacg_test_charge(b, old, r));

	/* The next device gets the freed id; the late uncharges spare it. */
	new = rdmacg_test_device(test, TEST_DEV_NAME "_new");
	KUNIT_EXPECT_EQ(test, old_id, new->id);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(b, new, r));
	rdmacg_uncharge(b, old, r);
	rdmacg_uncharge(b, old, r);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(b, new, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(a, new, r));
	KUNIT_EXPECT_EQ(test, RDMACG_MAX, rdmacg_test_max(a, new, r));
	rdmacg_uncharge(b, new, r);
	rdmacg_unregister_device(new);

	/* Registered again, the old struct starts afresh with no limits. */
	rdmacg_register_device(old);
	KUNIT_ASSERT_EQ(test, old->state, RDMACG_DEV_ACCOUNTED);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(b, old, r));
	KUNIT_EXPECT_EQ(test, RDMACG_MAX, rdmacg_test_max(a, old, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(a, old, r));
	rdmacg_uncharge(b, old, r);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(a, old, r));
}

/* The files' text: one line per device, single spaces, no trailing blank. */
static void rdmacg_test_file_format(struct kunit *test)
{
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	static const char *expect = TEST_DEV_NAME " hca_handle=max hca_object=max\n";
	struct seq_file sf;
	char events[160];
	char *line;

	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_VAL_MAX);
	line = strstr(sf.buf, TEST_DEV_NAME " ");
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_EXPECT_TRUE(test, line == sf.buf || line[-1] == '\n');
	KUNIT_EXPECT_EQ(test, 0, strncmp(line, expect, strlen(expect)));

	rdmacg_test_set(test, cg, TEST_DEV_NAME " hca_handle=2 hca_object=0");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, device,
						    RDMACG_RESOURCE_HCA_HANDLE));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(cg, device,
							  RDMACG_RESOURCE_HCA_OBJECT));

	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_VAL_MAX);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME
					   " hca_handle=2 hca_object=0\n"));
	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_VAL_CURRENT);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME
					   " hca_handle=1 hca_object=0\n"));
	rdmacg_test_seq(test, &sf);
	rdmacg_print_events(&sf, cg, true);
	snprintf(events, sizeof(events),
		 "%s hca_handle.max=%d hca_handle.alloc_fail=%d hca_object.max=%d hca_object.alloc_fail=%d",
		 TEST_DEV_NAME, 0, 0, 1, 1);
	strlcat(events, " mr_mem.max=0 mr_mem.alloc_fail=0", sizeof(events));
	strlcat(events, "\n", sizeof(events));
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, events));
	KUNIT_EXPECT_NULL(test, strchr(sf.buf, '\t'));
	KUNIT_EXPECT_NULL(test, strstr(sf.buf, "  "));
	for (line = sf.buf; (line = strchr(line, '\n')); line++)
		KUNIT_EXPECT_NE(test, line[-1], ' ');
	rdmacg_uncharge(cg, device, RDMACG_RESOURCE_HCA_HANDLE);
}

/* Apply an rdma.max write of @text: its result. */
static int rdmacg_test_try(struct rdma_cgroup *cg, const char *text)
{
	return rdmacg_set_max(cg, text, strlen(text));
}

/* Expect @text among the lines of the file @private (rdmacg_print_values()). */
static void rdmacg_test_expect_line(struct kunit *test, struct rdma_cgroup *cg,
				    unsigned long private, const char *text)
{
	struct seq_file sf;

	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, private);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(sf.buf, text),
				  "\"%s\" not in:\n%s", text, sf.buf);
}

/*
 * Two devices of the same name (in two network namespaces) are told apart
 * by "index=N" after the name, in every file and in writes; a device whose
 * name is unique has no index in the files, and a write may still give it.
 */
static void rdmacg_test_index_key(struct kunit *test)
{
	struct rdmacg_device *a, *b, *one;
	struct rdma_cgroup *cg;
	struct seq_file sf;

	rdmacg_test_chain(test, &cg, NULL);
	a = rdmacg_test_device_index(test, "kunit_dup", 70001);
	b = rdmacg_test_device_index(test, "kunit_dup", 70002);
	one = rdmacg_test_device_index(test, "kunit_one", 70003);

	rdmacg_test_expect_line(test, cg, RDMACG_VAL_MAX,
				"\nkunit_dup index=70001 hca_handle=max hca_object=max\n");
	rdmacg_test_expect_line(test, cg, RDMACG_VAL_CURRENT,
				"\nkunit_dup index=70002 hca_handle=0 hca_object=0\n");
	rdmacg_test_expect_line(test, cg, RDMACG_VAL_MAX,
				"\nkunit_one hca_handle=max hca_object=max\n");
	rdmacg_test_expect_line(test, cg, RDMACG_FILE_MR_MEM | RDMACG_VAL_MAX,
				"\nkunit_dup index=70002 max\n");

	KUNIT_EXPECT_EQ(test, -ENOTUNIQ, rdmacg_test_try(cg, "kunit_dup hca_handle=1"));
	rdmacg_test_expect_line(test, cg, RDMACG_VAL_MAX,
				"\nkunit_dup index=70001 hca_handle=max hca_object=max\n"
				"kunit_dup index=70002 hca_handle=max hca_object=max\n");
	KUNIT_EXPECT_EQ(test, -ENODEV,
			rdmacg_test_try(cg, "kunit_dup index=70003 hca_handle=1"));
	KUNIT_EXPECT_EQ(test, -ENODEV,
			rdmacg_test_try(cg, "kunit_one index=70001 hca_handle=1"));

	rdmacg_test_set(test, cg, "kunit_dup index=70002 hca_handle=1");
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_max(cg, b, RDMACG_RESOURCE_HCA_HANDLE));
	rdmacg_test_expect_line(test, cg, RDMACG_VAL_MAX,
				"\nkunit_dup index=70001 hca_handle=max hca_object=max\n"
				"kunit_dup index=70002 hca_handle=1 hca_object=max\n");
	rdmacg_test_set(test, cg, "kunit_one index=70003 hca_object=5");
	KUNIT_EXPECT_EQ(test, 5, rdmacg_test_max(cg, one, RDMACG_RESOURCE_HCA_OBJECT));

	/* Two devices of one name in one write; the same one twice is refused. */
	rdmacg_test_set(test, cg, "kunit_dup index=70001 hca_handle=3\n"
			"kunit_dup index=70002 hca_handle=4");
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_max(cg, a, RDMACG_RESOURCE_HCA_HANDLE));
	KUNIT_EXPECT_EQ(test, 4, rdmacg_test_max(cg, b, RDMACG_RESOURCE_HCA_HANDLE));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			rdmacg_test_try(cg, "kunit_dup index=70001 hca_handle=5\n"
					"kunit_dup index=70001 hca_handle=6"));
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_max(cg, a, RDMACG_RESOURCE_HCA_HANDLE));

	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, b, RDMACG_RESOURCE_HCA_OBJECT));
	rdmacg_test_seq(test, &sf);
	rdmacg_print_events(&sf, cg, false);
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, "\nkunit_dup index=70001 hca_handle.max=0 "));
	rdmacg_uncharge(cg, b, RDMACG_RESOURCE_HCA_OBJECT);

	/* Once its twin is gone, a name is unique again: no index shown. */
	kunit_release_action(test, rdmacg_test_unregister, a);
	rdmacg_test_set(test, cg, "kunit_dup hca_handle=2");
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_max(cg, b, RDMACG_RESOURCE_HCA_HANDLE));
	rdmacg_test_expect_line(test, cg, RDMACG_VAL_MAX,
				"\nkunit_dup hca_handle=2 hca_object=max\n");
}

struct rdmacg_test_worker {
	struct rdma_cgroup	*cg;
	struct rdmacg_device	*dev;
	struct completion	*go;
	struct completion	started;
	struct completion	done;
	int			charged;
	int			refused;
	int			gone;
	int			other;
	char			name[16];	/* of its own device, if any */
};

#define RDMACG_TEST_ROUNDS	1000
#define RDMACG_TEST_BURST	3
#define RDMACG_TEST_LIMIT	2
#define RDMACG_TEST_WORKERS	4

/*
 * Take up to RDMACG_TEST_BURST units, give them back, repeat; stop early
 * once the device is gone.
 */
static int rdmacg_test_worker_fn(void *data)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_test_worker *w = data;
	int round, i, held, ret;

	wait_for_completion(w->go);
	for (round = 0; round < RDMACG_TEST_ROUNDS && !w->gone; round++) {
		held = 0;
		for (i = 0; i < RDMACG_TEST_BURST; i++) {
			ret = rdmacg_test_charge(w->cg, w->dev, r);
			if (!ret) {
				held++;
				if (!w->charged++)
					complete(&w->started);
			} else if (ret == -EAGAIN) {
				w->refused++;
			} else if (ret == -ENODEV) {
				w->gone++;
			} else {
				w->other++;
			}
		}
		/* Hold the units for a moment so that the workers overlap. */
		usleep_range(1, 10);
		while (held--)
			rdmacg_uncharge(w->cg, w->dev, r);
	}
	complete(&w->started);	/* in case it never charged */
	complete(&w->done);
	return 0;
}

/*
 * Start a worker per element of @w, all released at once. Returns how
 * many started; the caller must wait for each of them before it returns.
 */
static int rdmacg_test_start(struct rdmacg_test_worker *w, int n,
			     struct completion *go)
{
	struct task_struct *task;
	int i;

	for (i = 0; i < n; i++) {
		w[i].go = go;
		init_completion(&w[i].started);
		init_completion(&w[i].done);
		task = kthread_run(rdmacg_test_worker_fn, &w[i],
				   "rdmacg_kunit/%d", i);
		if (IS_ERR(task))
			break;
	}
	complete_all(go);
	return i;
}

/* Run a worker per element of @w to its end; all must have started. */
static void rdmacg_test_run(struct kunit *test, struct rdmacg_test_worker *w,
			    int n)
{
	DECLARE_COMPLETION_ONSTACK(go);
	int i, started = rdmacg_test_start(w, n, &go);

	for (i = 0; i < started; i++)
		wait_for_completion(&w[i].done);
	KUNIT_ASSERT_EQ(test, started, n);
}

/*
 * Workers in sibling cgroups, two per cgroup racing to create its pool,
 * charge and uncharge against their parent's limit, which a single worker
 * already exceeds. Every refusal is counted once at the parent; the parent
 * never goes over its limit; everything is given back in the end.
 */
static void rdmacg_test_concurrent(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *parent;
	struct rdmacg_device *dev = rdmacg_test_chain(test, &parent, NULL);
	struct rdma_cgroup *child[RDMACG_TEST_WORKERS / 2];
	int i, refused = 0, charged = 0, child_refused;
	struct rdmacg_test_worker *w;

	w = kunit_kcalloc(test, RDMACG_TEST_WORKERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	rdmacg_test_set(test, parent, TEST_DEV_NAME " hca_object=2");
	for (i = 0; i < ARRAY_SIZE(child); i++)
		child[i] = rdmacg_test_cg(test, parent);
	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		w[i].cg = child[i / 2];
		w[i].dev = dev;
	}

	rdmacg_test_run(test, w, RDMACG_TEST_WORKERS);

	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		KUNIT_EXPECT_EQ(test, 0, w[i].other + w[i].gone);
		KUNIT_EXPECT_EQ(test, RDMACG_TEST_ROUNDS * RDMACG_TEST_BURST,
				w[i].charged + w[i].refused);
		refused += w[i].refused;
		charged += w[i].charged;
	}
	for (i = 0; i < ARRAY_SIZE(child); i++) {
		child_refused = w[2 * i].refused + w[2 * i + 1].refused;
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(child[i], dev, r));
		KUNIT_EXPECT_EQ(test, child_refused,
				rdmacg_test_event(child[i], dev, r,
						  RDMACG_EV_FAIL_LOCAL));
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(child[i], dev, r,
							   RDMACG_EV_MAX));
	}
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(parent, dev, r));
	KUNIT_EXPECT_LE(test, rdmacg_test_peak(parent, dev, r),
			RDMACG_TEST_LIMIT);
	/* Each round of each worker hits the limit at least once. */
	KUNIT_EXPECT_GE(test, refused, RDMACG_TEST_WORKERS * RDMACG_TEST_ROUNDS);
	KUNIT_EXPECT_GT(test, charged, 0);
	KUNIT_EXPECT_EQ(test, refused, rdmacg_test_event(parent, dev, r,
							 RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, refused, rdmacg_test_event(parent, dev, r,
							 RDMACG_EV_FAIL));
	kunit_info(test, "%d charges, %d refusals over %d workers\n",
		   charged, refused, RDMACG_TEST_WORKERS);
}

/*
 * Workers on different devices charge in one cgroup whose pool table does
 * not exist yet, so they race to create it and their pools, while limit
 * writes for more devices grow the table under them (KASAN watches the old
 * tables). Nothing is refused, every pool ends up in place with the right
 * parent, and everything is given back.
 */
static void rdmacg_test_table_race(struct kunit *test)
{
	const char *const *names = rdmacg_test_names;
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *wdev[RDMACG_TEST_WORKERS];
	struct rdmacg_device *more[RDMACG_TEST_DEVICES];
	struct rdma_cgroup *root = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup *a = rdmacg_test_cg(test, root);
	struct rdma_cgroup *c = rdmacg_test_cg(test, a);
	struct rdmacg_test_worker *w;
	DECLARE_COMPLETION_ONSTACK(go);
	int i, started, written = 0;
	char text[32];

	w = kunit_kcalloc(test, RDMACG_TEST_WORKERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		snprintf(w[i].name, sizeof(w[i].name), "kunit_w%d", i);
		wdev[i] = rdmacg_test_device(test, w[i].name);
		w[i].cg = c;
		w[i].dev = wdev[i];
	}
	for (i = 0; i < RDMACG_TEST_DEVICES; i++)
		more[i] = rdmacg_test_device(test, names[i]);

	/* No assertion may end the test while workers run. */
	started = rdmacg_test_start(w, RDMACG_TEST_WORKERS, &go);
	for (i = 0; i < RDMACG_TEST_DEVICES; i++) {
		snprintf(text, sizeof(text), "%s hca_object=%d", names[i], i + 1);
		if (!rdmacg_set_max(c, text, strlen(text)))
			written++;
	}
	for (i = 0; i < started; i++)
		wait_for_completion(&w[i].done);
	KUNIT_ASSERT_EQ(test, started, RDMACG_TEST_WORKERS);
	KUNIT_EXPECT_EQ(test, RDMACG_TEST_DEVICES, written);

	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		KUNIT_EXPECT_EQ(test, 0, w[i].other + w[i].gone + w[i].refused);
		KUNIT_EXPECT_EQ(test, RDMACG_TEST_ROUNDS * RDMACG_TEST_BURST,
				w[i].charged);
		KUNIT_ASSERT_NOT_NULL(test, rdmacg_test_pool(c, wdev[i]));
		KUNIT_ASSERT_NOT_NULL(test, rdmacg_test_pool(a, wdev[i]));
		KUNIT_EXPECT_PTR_EQ(test, rdmacg_test_pool(a, wdev[i]),
				    rdmacg_test_pool(c, wdev[i])->parent);
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(c, wdev[i], r));
		KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(a, wdev[i], r));
		/* one worker per device, holding up to a burst at a time */
		KUNIT_EXPECT_EQ(test, RDMACG_TEST_BURST,
				rdmacg_test_peak(a, wdev[i], r));
	}
	for (i = 0; i < RDMACG_TEST_DEVICES; i++) {
		KUNIT_ASSERT_NOT_NULL(test, rdmacg_test_res(c, more[i], r));
		KUNIT_EXPECT_EQ(test, i + 1, rdmacg_test_max(c, more[i], r));
		KUNIT_ASSERT_NOT_NULL(test, rdmacg_test_pool(c, more[i]));
		KUNIT_EXPECT_PTR_EQ(test, rdmacg_test_pool(a, more[i]),
				    rdmacg_test_pool(c, more[i])->parent);
	}
}

/*
 * Unregistration while workers charge and create pools: every pool goes,
 * none is created afterwards, and nothing is touched after being freed
 * (KASAN watches). Workers stop once their charges fail with -ENODEV.
 */
static void rdmacg_test_unregister_race(struct kunit *test)
{
	struct rdma_cgroup *parent;
	struct rdmacg_device *dev = rdmacg_test_chain(test, &parent, NULL);
	struct rdma_cgroup *child[RDMACG_TEST_WORKERS];
	struct rdmacg_test_worker *w;
	DECLARE_COMPLETION_ONSTACK(go);
	int i, started;

	w = kunit_kcalloc(test, RDMACG_TEST_WORKERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* No limit: every charge before the unregistration succeeds. */
	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		child[i] = rdmacg_test_cg(test, parent);
		w[i].cg = child[i];
		w[i].dev = dev;
	}

	started = rdmacg_test_start(w, RDMACG_TEST_WORKERS, &go);
	/* Unregister once a worker has charged; the workers keep going. */
	if (started)
		wait_for_completion(&w[0].started);
	rdmacg_unregister_device(dev);
	for (i = 0; i < started; i++)
		wait_for_completion(&w[i].done);
	KUNIT_ASSERT_EQ(test, started, RDMACG_TEST_WORKERS);

	KUNIT_EXPECT_TRUE(test, list_empty(&dev->pools));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(parent));
	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(child[i]));
		KUNIT_EXPECT_EQ(test, 0, w[i].other);
	}
	KUNIT_EXPECT_GT(test, w[0].charged, 0);
}

/*
 * A charge refused by an ancestor leaves no trace in any peak: p (limit 2)
 * - c, c holds 2, its third is refused by p; then in a chain deeper than
 * RDMACG_PEAK_LEVELS a refusal at the top moves no peak, and a charge that
 * succeeds raises every one.
 */
static void rdmacg_test_peak_refused(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *device = rdmacg_test_device(test, TEST_DEV_NAME);
	struct rdma_cgroup *root = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup *p = rdmacg_test_cg(test, root);
	struct rdma_cgroup *c = rdmacg_test_cg(test, p);
	struct rdma_cgroup *lvl[RDMACG_PEAK_LEVELS + 3];
	int i;

	rdmacg_test_set(test, p, TEST_DEV_NAME " hca_object=2");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(c, device, r));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(c, device, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(c, device, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_peak(c, device, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_peak(p, device, r));
	rdmacg_uncharge(c, device, r);
	rdmacg_uncharge(c, device, r);

	lvl[0] = rdmacg_test_cg(test, root);
	for (i = 1; i < ARRAY_SIZE(lvl); i++)
		lvl[i] = rdmacg_test_cg(test, lvl[i - 1]);
	rdmacg_test_set(test, lvl[0], TEST_DEV_NAME " hca_object=0");
	KUNIT_EXPECT_EQ(test, -EAGAIN,
			rdmacg_test_charge(lvl[ARRAY_SIZE(lvl) - 1], device, r));
	for (i = 0; i < ARRAY_SIZE(lvl); i++)
		KUNIT_EXPECT_EQ_MSG(test, 0, rdmacg_test_peak(lvl[i], device, r),
				    "peak of level %d after a refusal", i);
	rdmacg_test_set(test, lvl[0], TEST_DEV_NAME " hca_object=max");
	KUNIT_EXPECT_EQ(test, 0,
			rdmacg_test_charge(lvl[ARRAY_SIZE(lvl) - 1], device, r));
	for (i = 0; i < ARRAY_SIZE(lvl); i++)
		KUNIT_EXPECT_EQ_MSG(test, 1, rdmacg_test_peak(lvl[i], device, r),
				    "peak of level %d after a charge", i);
	rdmacg_uncharge(lvl[ARRAY_SIZE(lvl) - 1], device, r);
}

/*
 * One write, one line per device, applied to every device or to none: two
 * devices set at once; a bad line, an unknown device or a device named
 * twice leaves both as they were, in rdma.max and rdma.mr_mem.max alike.
 */
static void rdmacg_test_multi_device(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	const enum rdmacg_resource_type m = RDMACG_RESOURCE_MR_MEM;
	struct rdmacg_device *d1, *d2;
	struct rdma_cgroup *cg;
	static const struct {
		const char *text;
		int ret;
	} bad[] = {
		{ TEST_DEV_NAME "_a hca_object=1\n" TEST_DEV_NAME "_b hca_object=x", -EINVAL },
		{ TEST_DEV_NAME "_a hca_object=1\n" TEST_DEV_NAME "_c hca_object=2", -ENODEV },
		{ TEST_DEV_NAME "_a hca_object=1\n" TEST_DEV_NAME "_a hca_handle=2", -EINVAL },
	};
	static const struct {
		const char *text;
		int ret;
	} bad_mr[] = {
		{ TEST_DEV_NAME "_a 1K\n" TEST_DEV_NAME "_b 1K 2K", -EINVAL },
		{ TEST_DEV_NAME "_a 1K\n" TEST_DEV_NAME "_c 1K", -ENODEV },
		{ TEST_DEV_NAME "_b 1K\n" TEST_DEV_NAME "_b 1K", -EINVAL },
	};
	const char *both = TEST_DEV_NAME "_a hca_object=10\n"
			   TEST_DEV_NAME "_b hca_object=20 hca_handle=2\n";
	const char *both_mr = TEST_DEV_NAME "_a 64K\n" TEST_DEV_NAME "_b 1M\n";
	int i;

	d1 = rdmacg_test_device(test, TEST_DEV_NAME "_a");
	d2 = rdmacg_test_device(test, TEST_DEV_NAME "_b");
	cg = rdmacg_test_cg(test, rdmacg_test_cg(test, NULL));

	rdmacg_test_set(test, cg, both);
	KUNIT_EXPECT_EQ(test, 10, rdmacg_test_max(cg, d1, r));
	KUNIT_EXPECT_EQ(test, 20, rdmacg_test_max(cg, d2, r));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_max(cg, d2, RDMACG_RESOURCE_HCA_HANDLE));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, bad[i].ret,
				    rdmacg_set_max(cg, bad[i].text, strlen(bad[i].text)),
				    "rdma.max write %d", i);
		KUNIT_EXPECT_EQ_MSG(test, 10, rdmacg_test_max(cg, d1, r),
				    "rdma.max write %d changed the first device", i);
		KUNIT_EXPECT_EQ_MSG(test, 20, rdmacg_test_max(cg, d2, r),
				    "rdma.max write %d changed the second device", i);
	}

	rdmacg_test_write(test, cg, rdmacg_set_mr_mem_max, both_mr);
	KUNIT_EXPECT_EQ(test, SZ_64K, rdmacg_test_max(cg, d1, m));
	KUNIT_EXPECT_EQ(test, SZ_1M, rdmacg_test_max(cg, d2, m));
	for (i = 0; i < ARRAY_SIZE(bad_mr); i++) {
		KUNIT_EXPECT_EQ_MSG(test, bad_mr[i].ret,
				    rdmacg_set_mr_mem_max(cg, bad_mr[i].text,
							  strlen(bad_mr[i].text)),
				    "rdma.mr_mem.max write %d", i);
		KUNIT_EXPECT_EQ_MSG(test, SZ_64K, rdmacg_test_max(cg, d1, m),
				    "rdma.mr_mem.max write %d changed the first device", i);
		KUNIT_EXPECT_EQ_MSG(test, SZ_1M, rdmacg_test_max(cg, d2, m),
				    "rdma.mr_mem.max write %d changed the second device", i);
	}
}

/* The peak of @r as the reader with peak state @ofp (NULL: none) sees it. */
static u64 rdmacg_test_seen(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			    enum rdmacg_resource_type r,
			    struct cgroup_of_peak *ofp)
{
	u64 val;

	mutex_lock(&rdmacg_registry_mutex);
	val = rdmacg_peak_seen(cg, rdmacg_pool_lookup_locked(cg, dev), r, ofp);
	mutex_unlock(&rdmacg_registry_mutex);
	return val;
}

static void rdmacg_test_charge_n(struct kunit *test, struct rdma_cgroup *cg,
				 struct rdmacg_device *dev,
				 enum rdmacg_resource_type r, int n)
{
	while (n-- > 0)
		KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, dev, r));
}

#define RDMACG_EXPECT_SEEN(a, b, never)						\
	do {									\
		u64 never_ = (never);						\
										\
		KUNIT_EXPECT_EQ_MSG(test, a, rdmacg_test_seen(c, dev, r, &fa),	\
				    "reader a");				\
		KUNIT_EXPECT_EQ_MSG(test, b, rdmacg_test_seen(c, dev, r, &fb),	\
				    "reader b");				\
		KUNIT_EXPECT_EQ_MSG(test, never_,				\
				    rdmacg_test_seen(c, dev, r, &fn),		\
				    "reader that never resets");		\
		KUNIT_EXPECT_EQ_MSG(test, never_,				\
				    rdmacg_test_seen(c, dev, r, NULL),		\
				    "new reader");				\
	} while (0)

/*
 * Peaks reset per open file, as memory.peak: readers a and b reset at
 * different times, one reader never does. Each reads the high-water mark
 * since its own reset, exactly: b's reset does not make a forget the 4
 * reached after a's (memory.peak would), nor does either move what the
 * reader that never reset, or a new one, sees. The parent's peak and the
 * pinned memory's, which no reset of c's rdma.peak covers, stay.
 */
static void rdmacg_test_peak_reset(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct cgroup_of_peak fa = { }, fb = { }, fn = { };
	struct rdmacg_device *dev;
	struct rdma_cgroup *p, *c;

	dev = rdmacg_test_chain(test, &p, &c, NULL);
	rdmacg_test_charge_n(test, c, dev, r, 3);
	rdmacg_uncharge_amount(c, dev, r, 2);
	RDMACG_EXPECT_SEEN(3, 3, 3);

	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	RDMACG_EXPECT_SEEN(1, 3, 3);
	rdmacg_test_charge_n(test, c, dev, r, 1);
	RDMACG_EXPECT_SEEN(2, 3, 3);
	rdmacg_test_charge_n(test, c, dev, r, 2);
	RDMACG_EXPECT_SEEN(4, 4, 4);
	rdmacg_uncharge_amount(c, dev, r, 3);

	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fb, RDMACG_VAL_PEAK));
	RDMACG_EXPECT_SEEN(4, 1, 4);
	rdmacg_test_charge_n(test, c, dev, r, 1);
	RDMACG_EXPECT_SEEN(4, 2, 4);

	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	RDMACG_EXPECT_SEEN(2, 2, 4);
	rdmacg_test_charge_n(test, c, dev, r, 3);
	rdmacg_uncharge_amount(c, dev, r, 4);
	RDMACG_EXPECT_SEEN(5, 5, 5);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(c, dev, r));

	/* The parent's peak is its own; rdma.mr_mem.peak is another file. */
	KUNIT_EXPECT_EQ(test, 5, rdmacg_test_seen(p, dev, r, NULL));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(c, dev, SZ_8K));
	rdmacg_uncharge_amount(c, dev, RDMACG_RESOURCE_MR_MEM, SZ_4K);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	KUNIT_EXPECT_EQ(test, SZ_8K,
			rdmacg_test_seen(c, dev, RDMACG_RESOURCE_MR_MEM, &fa));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fb, RDMACG_FILE_MR_MEM |
						   RDMACG_VAL_PEAK));
	KUNIT_EXPECT_EQ(test, SZ_4K,
			rdmacg_test_seen(c, dev, RDMACG_RESOURCE_MR_MEM, &fb));
	KUNIT_EXPECT_EQ(test, SZ_8K,
			rdmacg_test_seen(c, dev, RDMACG_RESOURCE_MR_MEM, NULL));
	/* a's third reset came after b's, when usage had been 5. */
	KUNIT_EXPECT_EQ(test, 5, rdmacg_test_seen(c, dev, r, &fb));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_seen(c, dev, r, &fa));

	rdmacg_peak_forget(&fa);
	rdmacg_peak_forget(&fb);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->peak_files));
	KUNIT_EXPECT_EQ(test, 5, rdmacg_test_seen(c, dev, r, NULL));
	rdmacg_uncharge_amount(c, dev, r, 1);
	rdmacg_uncharge_amount(c, dev, RDMACG_RESOURCE_MR_MEM, SZ_4K);
}

/*
 * A device unregistered and registered again, its pool recreated: what a
 * reader saved for the old pool does not carry over to the new one.
 */
static void rdmacg_test_peak_reset_reregister(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct cgroup_of_peak fa = { };
	struct rdmacg_device *dev;
	struct rdma_cgroup *c;

	dev = rdmacg_test_chain(test, &c, NULL);
	rdmacg_test_charge_n(test, c, dev, r, 2);
	rdmacg_uncharge_amount(c, dev, r, 2);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_seen(c, dev, r, NULL));
	rdmacg_unregister_device(dev);
	rdmacg_register_device(dev);
	rdmacg_test_charge_n(test, c, dev, r, 1);
	rdmacg_uncharge_amount(c, dev, r, 1);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_seen(c, dev, r, NULL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_seen(c, dev, r, &fa));
	rdmacg_peak_forget(&fa);
}

/* Expect what readers @fa and @fn of @c see of @r on @dev: @a and @n. */
static void rdmacg_expect_two(struct kunit *test, struct rdma_cgroup *c,
			      struct rdmacg_device *dev,
			      enum rdmacg_resource_type r,
			      struct cgroup_of_peak *fa, u64 a,
			      struct cgroup_of_peak *fn, u64 n)
{
	KUNIT_EXPECT_EQ_MSG(test, a, rdmacg_test_seen(c, dev, r, fa),
			    "reader a, %s, resource %d", dev->name, r);
	KUNIT_EXPECT_EQ_MSG(test, n, rdmacg_test_seen(c, dev, r, fn),
			    "reader that never resets, %s, resource %d",
			    dev->name, r);
}

#define RDMACG_EXPECT_TWO(dev, r, a, n)	\
	rdmacg_expect_two(test, c, dev, r, &fa, a, &fn, n)

/*
 * A reset of a cgroup with pools on two devices: each pool needs an entry
 * of its own in every reader's saved peaks, including the first reset of
 * a file, which has none yet. Then one device goes away and two come, so
 * that the entry the first one freed and a new one take the two new pools.
 */
static void rdmacg_test_peak_reset_two_devices(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	const enum rdmacg_resource_type m = RDMACG_RESOURCE_MR_MEM;
	struct cgroup_of_peak fa = { }, fm = { }, fn = { };
	struct rdmacg_device *d1, *d2, *d3;
	struct rdma_cgroup *c;

	d1 = rdmacg_test_device(test, TEST_DEV_NAME "_a");
	d2 = rdmacg_test_device(test, TEST_DEV_NAME "_b");
	c = rdmacg_test_cg(test, rdmacg_test_cg(test, NULL));
	rdmacg_test_charge_n(test, c, d1, r, 2);
	rdmacg_test_charge_n(test, c, d2, r, 3);
	rdmacg_uncharge_amount(c, d1, r, 1);
	rdmacg_uncharge_amount(c, d2, r, 2);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(c, d1, SZ_8K));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_mr_charge(c, d2, SZ_16K));
	rdmacg_uncharge_amount(c, d1, m, SZ_4K);
	rdmacg_uncharge_amount(c, d2, m, SZ_8K + SZ_4K);

	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	RDMACG_EXPECT_TWO(d1, r, 1, 2);
	RDMACG_EXPECT_TWO(d2, r, 1, 3);
	RDMACG_EXPECT_TWO(d1, m, SZ_8K, SZ_8K);
	RDMACG_EXPECT_TWO(d2, m, SZ_16K, SZ_16K);

	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fm, RDMACG_FILE_MR_MEM |
						   RDMACG_VAL_PEAK));
	KUNIT_EXPECT_EQ(test, SZ_4K, rdmacg_test_seen(c, d1, m, &fm));
	KUNIT_EXPECT_EQ(test, SZ_4K, rdmacg_test_seen(c, d2, m, &fm));
	RDMACG_EXPECT_TWO(d1, m, SZ_8K, SZ_8K);
	RDMACG_EXPECT_TWO(d2, m, SZ_16K, SZ_16K);
	RDMACG_EXPECT_TWO(d1, r, 1, 2);
	RDMACG_EXPECT_TWO(d2, r, 1, 3);

	/* d2 leaves a free entry in each reader; d2 again and d3 need two. */
	rdmacg_uncharge_amount(c, d2, r, 1);
	rdmacg_uncharge_amount(c, d2, m, SZ_4K);
	rdmacg_unregister_device(d2);
	rdmacg_register_device(d2);
	d3 = rdmacg_test_device(test, TEST_DEV_NAME "_c");
	rdmacg_test_charge_n(test, c, d2, r, 2);
	rdmacg_test_charge_n(test, c, d3, r, 3);
	rdmacg_uncharge_amount(c, d2, r, 1);
	rdmacg_uncharge_amount(c, d3, r, 2);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	RDMACG_EXPECT_TWO(d1, r, 1, 2);
	RDMACG_EXPECT_TWO(d2, r, 1, 2);
	RDMACG_EXPECT_TWO(d3, r, 1, 3);
	KUNIT_EXPECT_EQ(test, 3, rdmacg_test_seen(c, d3, r, NULL));

	rdmacg_peak_forget(&fa);
	rdmacg_peak_forget(&fm);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->peak_files));
	rdmacg_uncharge_amount(c, d1, r, 1);
	rdmacg_uncharge_amount(c, d2, r, 1);
	rdmacg_uncharge_amount(c, d3, r, 1);
	rdmacg_uncharge_amount(c, d1, m, SZ_4K);
}

static int rdmacg_test_no_id(void)
{
	return -ENOMEM;
}

/*
 * A device that gets no id is not limited: charges succeed and count
 * nothing, the files do not show it, and rdma.max refuses it.
 */
static void rdmacg_test_unaccounted(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_HANDLE;
	const char *text = TEST_DEV_NAME " hca_handle=0";
	struct rdmacg_device *device, *other;
	struct rdma_cgroup *root = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup *cg = rdmacg_test_cg(test, root);
	struct seq_file sf;

	other = rdmacg_test_device(test, TEST_DEV_NAME "_other");
	device = kunit_kzalloc(test, sizeof(*device), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, device);
	device->name = TEST_DEV_NAME;
	kunit_activate_static_stub(test, rdmacg_id_alloc, rdmacg_test_no_id);
	rdmacg_register_device(device);
	kunit_deactivate_static_stub(test, rdmacg_id_alloc);
	KUNIT_ASSERT_EQ(test, device->state, RDMACG_DEV_UNACCOUNTED);

	KUNIT_EXPECT_EQ(test, -ENODEV, rdmacg_set_max(cg, text, strlen(text)));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_no_pools(cg));
	rdmacg_uncharge(cg, device, r);
	rdmacg_uncharge(cg, device, r);

	rdmacg_test_seq(test, &sf);
	rdmacg_print_values(&sf, cg, RDMACG_VAL_CURRENT);
	KUNIT_EXPECT_NULL(test, strstr(sf.buf, TEST_DEV_NAME " "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(sf.buf, TEST_DEV_NAME "_other "));

	rdmacg_unregister_device(device);
	KUNIT_EXPECT_EQ(test, device->state, RDMACG_DEV_UNREGISTERED);
	KUNIT_EXPECT_EQ(test, -ENODEV, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(cg, other, r));
}

/*
 * A zeroed struct that was never registered is no device: no charge goes
 * through to the pools of the device that holds id 0.
 */
static void rdmacg_test_never_registered(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *cg;
	struct rdmacg_device *device = rdmacg_test_chain(test, &cg, NULL);
	struct rdmacg_device *zeroed;

	zeroed = kunit_kzalloc(test, sizeof(*zeroed), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, zeroed);
	zeroed->id = device->id;
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, device, r));
	KUNIT_EXPECT_EQ(test, -ENODEV, rdmacg_test_charge(cg, zeroed, r));
	rdmacg_uncharge(cg, zeroed, r);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(cg, device, r));
	rdmacg_uncharge(cg, device, r);
}

struct rdmacg_test_refusal {
	struct rdma_cgroup	*cg;
	struct rdma_cgroup	*limited;
	struct rdmacg_device	*dev;
	struct completion	done;
};

static int rdmacg_test_refusal_fn(void *data)
{
	struct rdmacg_test_refusal *t = data;

	rdmacg_count_refusal(t->cg, t->limited, t->dev,
			     RDMACG_RESOURCE_HCA_OBJECT);
	complete(&t->done);
	return 0;
}

/*
 * A refusal that is counted once its device is being unregistered returns
 * at once: it does not wait for the device's pools_lock (held here).
 */
static void rdmacg_test_refusal_dead_device(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *root = rdmacg_test_cg(test, NULL);
	struct rdma_cgroup *a = rdmacg_test_cg(test, root);
	struct rdma_cgroup *b = rdmacg_test_cg(test, a);
	struct rdmacg_test_refusal t = { .cg = b, .limited = a };
	struct task_struct *task;
	bool returned;

	t.dev = rdmacg_test_device(test, TEST_DEV_NAME);
	init_completion(&t.done);
	rdmacg_test_set(test, a, TEST_DEV_NAME " hca_object=0");
	KUNIT_ASSERT_EQ(test, -EAGAIN, rdmacg_test_charge(b, t.dev, r));
	rdmacg_unregister_device(t.dev);

	mutex_lock(&t.dev->pools_lock);
	task = kthread_run(rdmacg_test_refusal_fn, &t, "rdmacg_kunit/dead");
	if (IS_ERR(task)) {
		mutex_unlock(&t.dev->pools_lock);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task));
		return;
	}
	returned = wait_for_completion_timeout(&t.done, 5 * HZ);
	mutex_unlock(&t.dev->pools_lock);
	if (!returned)
		wait_for_completion(&t.done);
	KUNIT_EXPECT_TRUE_MSG(test, returned,
			      "rdmacg_count_refusal() waited for pools_lock of a dead device");
}

#define RDMACG_TEST_LOWER_ROUNDS	300

struct rdmacg_test_charger {
	struct rdma_cgroup	*cg;
	struct rdmacg_device	*dev;
	atomic_t		*held;
	atomic_t		iterations;
	bool			*stop;
	struct completion	done;
};

/* Charge, never uncharge, until told to stop; count what is held. */
static int rdmacg_test_charger_fn(void *data)
{
	struct rdmacg_test_charger *w = data;
	struct rdma_cgroup *limited;

	while (!READ_ONCE(*w->stop)) {
		if (!rdmacg_charge(w->cg, w->dev, RDMACG_RESOURCE_HCA_OBJECT, 1,
				   &limited))
			atomic_inc(w->held);
		atomic_inc(&w->iterations);
		cond_resched();
	}
	complete(&w->done);
	return 0;
}

/* Wait until every charger has begun and ended at least one more charge. */
static bool rdmacg_test_chargers_moved_on(struct rdmacg_test_charger *w, int n)
{
	unsigned long timeout = jiffies + 10 * HZ;
	int seen[RDMACG_TEST_WORKERS], i;

	for (i = 0; i < n; i++)
		seen[i] = atomic_read(&w[i].iterations);
	for (i = 0; i < n; i++)
		while (atomic_read(&w[i].iterations) - seen[i] < 2) {
			if (time_after(jiffies, timeout))
				return false;
			cond_resched();
		}
	return true;
}

/*
 * Charges run without pause while the limit is lowered from max to 0, over
 * and over. Once rdmacg_set_max() has returned, no charge may keep a unit
 * taken afterwards: when the chargers have moved on, usage must not be
 * above what it was right after the write. This fails if a lowered limit
 * is not enforced; the narrow race that rdmacg_count_try_add() closes
 * (a limit read just before its cmpxchg) it catches only by chance: with
 * the second read removed, 300 rounds on two vCPUs under TCG passed.
 */
static void rdmacg_test_lowered_limit(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	const char *lower = TEST_DEV_NAME " hca_object=0";
	const char *raise = TEST_DEV_NAME " hca_object=max";
	struct rdma_cgroup *cg;
	struct rdmacg_device *dev = rdmacg_test_chain(test, &cg, NULL);
	int i, round, started, after, final, late = 0, stuck = 0;
	struct rdmacg_test_charger *w;
	struct task_struct *task;
	struct rdmacg_count *c;
	atomic_t held = ATOMIC_INIT(0);
	bool stop = false;

	w = kunit_kcalloc(test, 2, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	rdmacg_test_set(test, cg, raise);
	c = rdmacg_test_res(cg, dev, r);
	KUNIT_ASSERT_NOT_NULL(test, c);

	for (started = 0; started < 2; started++) {
		w[started] = (struct rdmacg_test_charger){
			.cg = cg, .dev = dev, .held = &held, .stop = &stop,
		};
		init_completion(&w[started].done);
		task = kthread_run(rdmacg_test_charger_fn, &w[started],
				   "rdmacg_kunit/%d", started);
		if (IS_ERR(task))
			break;
	}

	/* No assertion may end the test while the chargers run. */
	for (round = 0; started == 2 && round < RDMACG_TEST_LOWER_ROUNDS; round++) {
		rdmacg_set_max(cg, raise, strlen(raise));
		while (atomic_read(&c->usage) < 20)
			cond_resched();
		rdmacg_set_max(cg, lower, strlen(lower));
		after = atomic_read(&c->usage);
		if (!rdmacg_test_chargers_moved_on(w, started)) {
			stuck++;
			break;
		}
		final = atomic_read(&c->usage);
		if (final > after)
			late++;
		/*
		 * Give it all back at once: one unit at a time, the chargers
		 * could take more meanwhile than is given back.
		 */
		rdmacg_uncharge_amount(cg, dev, r, final);
		atomic_sub(final, &held);
	}
	WRITE_ONCE(stop, true);
	for (i = 0; i < started; i++)
		wait_for_completion(&w[i].done);

	KUNIT_ASSERT_EQ(test, started, 2);
	KUNIT_EXPECT_EQ(test, 0, stuck);
	KUNIT_EXPECT_EQ_MSG(test, 0, late,
			    "rounds in which a charge kept a unit taken after the limit was lowered");
	KUNIT_EXPECT_EQ(test, atomic_read(&held), atomic_read(&c->usage));
	while (atomic_dec_return(&held) >= 0)
		rdmacg_uncharge(cg, dev, r);
	KUNIT_EXPECT_EQ(test, 0, atomic_read(&c->usage));
}

/*
 * p (limit 1) is full, held by its child s; workers in its other child b
 * (limit 1, empty) try to charge. One alone, the refusal is p's. Several
 * may meet each other's passing unit in b and have the refusal counted at
 * b's limit (see rdmacg_charge()); still each refusal is counted at one
 * level exactly, and at p in rdma.events. The share counted at b is
 * reported: it is what exact attribution would buy.
 */
static void rdmacg_test_refusal_attribution(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdma_cgroup *p, *s;
	struct rdmacg_device *dev = rdmacg_test_chain(test, &p, &s, NULL);
	struct rdma_cgroup *b = rdmacg_test_cg(test, p);
	int i, refused = 0, at_b, at_p;
	struct rdmacg_test_worker *w;

	rdmacg_test_set(test, p, TEST_DEV_NAME " hca_object=1");
	rdmacg_test_set(test, b, TEST_DEV_NAME " hca_object=1");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(s, dev, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(b, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(b, dev, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(p, dev, r, RDMACG_EV_MAX_LOCAL));

	w = kunit_kcalloc(test, RDMACG_TEST_WORKERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		w[i].cg = b;
		w[i].dev = dev;
	}
	rdmacg_test_run(test, w, RDMACG_TEST_WORKERS);

	for (i = 0; i < RDMACG_TEST_WORKERS; i++) {
		KUNIT_EXPECT_EQ(test, 0, w[i].charged + w[i].other + w[i].gone);
		refused += w[i].refused;
	}
	refused++;	/* the one before the workers */
	at_b = rdmacg_test_event(b, dev, r, RDMACG_EV_MAX_LOCAL);
	at_p = rdmacg_test_event(p, dev, r, RDMACG_EV_MAX_LOCAL);
	KUNIT_EXPECT_EQ(test, refused, at_b + at_p);
	KUNIT_EXPECT_EQ(test, refused, rdmacg_test_event(p, dev, r, RDMACG_EV_MAX));
	KUNIT_EXPECT_EQ(test, at_b, rdmacg_test_event(b, dev, r, RDMACG_EV_MAX));
	KUNIT_EXPECT_EQ(test, refused, rdmacg_test_event(b, dev, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, refused, rdmacg_test_event(p, dev, r, RDMACG_EV_FAIL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(b, dev, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(p, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_peak(b, dev, r));
	kunit_info(test, "%d refusals by p's limit, %d of them counted at b (%d.%d%%)\n",
		   refused, at_b, at_b * 100 / refused, at_b * 1000 / refused % 10);
	rdmacg_uncharge(s, dev, r);
}

/*
 * Deterministic races: a thread of the test is held at one of the points
 * of enum rdmacg_race_point (spinning, since most are in RCU read-side
 * critical sections) while the test acts, then let go. Each test below
 * runs the interleaving that one concurrency argument of rdma.c covers,
 * and fails if the mechanism that argument rests on is removed.
 */

/* One thread to hold, or to notice passing, at one point. */
struct rdmacg_race {
	struct task_struct	*task;
	enum rdmacg_race_point	point;
	const void		*where;	/* only there; NULL: anywhere */
	bool			pass;	/* note the passage, do not hold */
	atomic_t		state;	/* RDMACG_RACE_ARMED, _HELD, _GO */
};

enum {
	RDMACG_RACE_ARMED,
	RDMACG_RACE_HELD,	/* at the point: held, or passed if @pass */
	RDMACG_RACE_GO,		/* let go by the test */
};

/* What a racing thread does, and where it is held. */
struct rdmacg_test_racer {
	struct rdma_cgroup	*cg;
	struct rdmacg_device	*dev;
	enum rdmacg_resource_type type;
	bool			uncharge;	/* else a charge ... */
	bool			unregister;	/* ... or this */
	int			ret;		/* of the charge */
	struct rdmacg_race	race;
	struct completion	done;
};

static struct rdmacg_race *rdmacg_test_races[2];

static void rdmacg_test_race_hook(enum rdmacg_race_point point,
				  const void *where)
{
	struct rdmacg_race *r;
	int i;

	for (i = 0; i < ARRAY_SIZE(rdmacg_test_races); i++) {
		/* Pairs with the release in rdmacg_test_racer_start(). */
		r = smp_load_acquire(&rdmacg_test_races[i]);
		if (!r || r->task != current || r->point != point ||
		    (r->where && r->where != where) ||
		    atomic_cmpxchg(&r->state, RDMACG_RACE_ARMED,
				   RDMACG_RACE_HELD) != RDMACG_RACE_ARMED)
			continue;
		while (!r->pass && atomic_read(&r->state) == RDMACG_RACE_HELD)
			cpu_relax();
	}
}

static void rdmacg_test_race_go(struct rdmacg_race *r)
{
	atomic_set(&r->state, RDMACG_RACE_GO);
}

/* Wait (up to 10 s) until @r's thread is at its point. */
static bool rdmacg_test_race_reached(struct rdmacg_race *r)
{
	unsigned long timeout = jiffies + 10 * HZ;

	while (atomic_read(&r->state) == RDMACG_RACE_ARMED) {
		if (time_after(jiffies, timeout))
			return false;
		usleep_range(100, 200);
	}
	return true;
}

/* Wait (up to 10 s) for @t to end; false if it did not. */
static bool rdmacg_test_racer_done(struct rdmacg_test_racer *t)
{
	return wait_for_completion_timeout(&t->done, 10 * HZ);
}

/*
 * Let a racer go and wait for it, however the test ended: an assertion
 * that ends a test must not leave a thread spinning on freed memory.
 */
static void rdmacg_test_racer_cleanup(void *data)
{
	struct rdmacg_test_racer *t = data;

	rdmacg_test_race_go(&t->race);
	rdmacg_test_racer_done(t);
	WRITE_ONCE(rdmacg_race_hook, NULL);
	WRITE_ONCE(rdmacg_test_races[0], NULL);
	WRITE_ONCE(rdmacg_test_races[1], NULL);
}

static int rdmacg_test_racer_fn(void *data)
{
	struct rdmacg_test_racer *t = data;

	if (t->unregister)
		rdmacg_unregister_device(t->dev);
	else if (t->uncharge)
		rdmacg_uncharge_amount(t->cg, t->dev, t->type, 1);
	else
		t->ret = rdmacg_charge_counted(t->cg, t->dev, t->type, 1);
	complete_all(&t->done);		/* the test and its cleanup wait */
	return 0;
}

/*
 * A racer, allocated for the test: held (or noticed) at @point, at @where
 * (NULL: anywhere); a held thread spins, so the test needs two CPUs.
 */
static struct rdmacg_test_racer *
rdmacg_test_racer(struct kunit *test, enum rdmacg_race_point point,
		  const void *where)
{
	struct rdmacg_test_racer *t;

	if (num_online_cpus() < 2)
		kunit_skip(test, "a held thread spins: needs 2 CPUs, has %u",
			   num_online_cpus());
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->type = RDMACG_RESOURCE_HCA_OBJECT;
	t->race.point = point;
	t->race.where = where;
	init_completion(&t->done);
	return t;
}

/* Start @t in a thread of its own, as race slot @i. */
static void rdmacg_test_racer_start(struct kunit *test,
				    struct rdmacg_test_racer *t, int i)
{
	struct task_struct *task;

	task = kthread_create(rdmacg_test_racer_fn, t, "rdmacg_kunit/race%d",
			      i);
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	t->race.task = task;
	atomic_set(&t->race.state, RDMACG_RACE_ARMED);
	/* Publishes the race's fields to the hook's acquire. */
	smp_store_release(&rdmacg_test_races[i], &t->race);
	WRITE_ONCE(rdmacg_race_hook, rdmacg_test_race_hook);
	wake_up_process(task);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, rdmacg_test_racer_cleanup,
						  t));
}

/*
 * A limit lowered while a charge is between its cmpxchg and its second
 * read of the limit (rdmacg_count_try_add()): once the write has
 * returned, the charge must not keep its unit. Without the second read it
 * would, and usage would stay above the new limit.
 */
static void rdmacg_test_race_lowered(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *dev;
	struct rdmacg_test_racer *t;
	struct rdma_cgroup *cg;

	dev = rdmacg_test_chain(test, &cg, NULL);
	rdmacg_test_set(test, cg, TEST_DEV_NAME " hca_object=2");
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(cg, dev, r));
	t = rdmacg_test_racer(test, RDMACG_RACE_ADDED,
			      rdmacg_test_res(cg, dev, r));
	t->cg = cg;
	t->dev = dev;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_usage(cg, dev, r));
	rdmacg_test_set(test, cg, TEST_DEV_NAME " hca_object=1");
	rdmacg_test_race_go(&t->race);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_racer_done(t));

	KUNIT_EXPECT_EQ_MSG(test, -EAGAIN, t->ret,
			    "a charge under way kept a unit above a limit whose write had returned");
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(cg, dev, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_peak(cg, dev, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(cg, dev, r, RDMACG_EV_MAX_LOCAL));
}

/*
 * p - c, the charge at c held once c has accepted it; p's limit is lowered
 * to 0 meanwhile. p refuses it: it is given back at c, c's peak never
 * shows it, and the refusal is counted at p (its limit) and c (where it
 * was asked), not as a limit hit at c.
 */
static void rdmacg_test_race_lowered_above(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *dev;
	struct rdmacg_test_racer *t;
	struct rdma_cgroup *p, *c;

	dev = rdmacg_test_chain(test, &p, &c, NULL);
	rdmacg_test_set(test, c, TEST_DEV_NAME " hca_object=max");
	t = rdmacg_test_racer(test, RDMACG_RACE_LEVEL,
			      rdmacg_test_pool(c, dev));
	t->cg = c;
	t->dev = dev;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(c, dev, r));
	rdmacg_test_set(test, p, TEST_DEV_NAME " hca_object=0");
	rdmacg_test_race_go(&t->race);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_racer_done(t));

	KUNIT_EXPECT_EQ(test, -EAGAIN, t->ret);
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(c, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(p, dev, r));
	KUNIT_EXPECT_EQ_MSG(test, 0, rdmacg_test_peak(c, dev, r),
			    "a refused charge shows in the peak of a level below the refusal");
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(p, dev, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(c, dev, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(c, dev, r, RDMACG_EV_MAX_LOCAL));
}

/*
 * p - c, the charge held once every level has accepted it, before it
 * returns; p's limit is lowered to 0 meanwhile. The charge was counted at p
 * before the write, so it stands, like any usage above a newly lowered
 * limit: what rdmacg_count_try_add() promises is that no unit is taken
 * past a limit after its write, not that a charge under way fails.
 */
static void rdmacg_test_race_lowered_after(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *dev;
	struct rdmacg_test_racer *t;
	struct rdma_cgroup *p, *c;

	dev = rdmacg_test_chain(test, &p, &c, NULL);
	rdmacg_test_set(test, c, TEST_DEV_NAME " hca_object=max");
	t = rdmacg_test_racer(test, RDMACG_RACE_CHARGED,
			      rdmacg_test_pool(c, dev));
	t->cg = c;
	t->dev = dev;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	rdmacg_test_set(test, p, TEST_DEV_NAME " hca_object=0");
	rdmacg_test_race_go(&t->race);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_racer_done(t));

	KUNIT_EXPECT_EQ(test, 0, t->ret);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(p, dev, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_peak(p, dev, r));
	KUNIT_EXPECT_EQ(test, -EAGAIN, rdmacg_test_charge(c, dev, r));
	rdmacg_uncharge_amount(c, dev, r, 1);
}

/*
 * root - p (2) - c - g: a charge at g is held once c has accepted it, and
 * meanwhile charges at p fill p's limit. p refuses the held charge: the
 * refusal is counted at p's limit and at g, where it was asked, and at no
 * other level; g and c give their unit back and their peaks never show it.
 */
static void rdmacg_test_race_ancestor_filled(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *dev;
	struct rdmacg_test_racer *t;
	struct rdma_cgroup *p, *c, *g;

	dev = rdmacg_test_chain(test, &p, &c, &g, NULL);
	rdmacg_test_set(test, p, TEST_DEV_NAME " hca_object=2");
	rdmacg_test_set(test, g, TEST_DEV_NAME " hca_object=max");
	t = rdmacg_test_racer(test, RDMACG_RACE_LEVEL,
			      rdmacg_test_pool(c, dev));
	t->cg = g;
	t->dev = dev;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(p, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_charge(p, dev, r));
	rdmacg_test_race_go(&t->race);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_racer_done(t));

	KUNIT_EXPECT_EQ(test, -EAGAIN, t->ret);
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_usage(p, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(c, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_usage(g, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_peak(c, dev, r));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_peak(g, dev, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(p, dev, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_event(g, dev, r, RDMACG_EV_FAIL_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(c, dev, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(g, dev, r, RDMACG_EV_MAX_LOCAL));
	KUNIT_EXPECT_EQ(test, 0, rdmacg_test_event(c, dev, r, RDMACG_EV_FAIL_LOCAL));
	rdmacg_uncharge_amount(p, dev, r, 2);
}

/*
 * RDMACG_PEAK_LEVELS + 2 levels: a charge at the bottom, a new peak at
 * every level, held once every level accepted it, while the three top
 * levels give back a unit they held before. For the RDMACG_PEAK_LEVELS
 * levels from the bottom a peak records the usage the charge's own cmpxchg
 * produced; above, the usage read once the charge has passed, so the two
 * top peaks miss the unit given back in between. rdmacg_charge_peaks()
 * says so (a peak there may read low by what is freed concurrently); this
 * checks that, and no stronger promise.
 */
static void rdmacg_test_race_deep_peak(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_device *dev = rdmacg_test_device(test, TEST_DEV_NAME);
	struct rdma_cgroup *c[RDMACG_PEAK_LEVELS + 2];
	const int leaf = ARRAY_SIZE(c) - 1;
	struct rdmacg_test_racer *t;
	int i;

	c[0] = rdmacg_test_cg(test, rdmacg_test_cg(test, NULL));
	for (i = 1; i <= leaf; i++)
		c[i] = rdmacg_test_cg(test, c[i - 1]);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(c[2], dev, r));
	rdmacg_test_set(test, c[leaf], TEST_DEV_NAME " hca_object=max");
	t = rdmacg_test_racer(test, RDMACG_RACE_CHARGED,
			      rdmacg_test_pool(c[leaf], dev));
	t->cg = c[leaf];
	t->dev = dev;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	KUNIT_EXPECT_EQ(test, 2, rdmacg_test_usage(c[0], dev, r));
	rdmacg_uncharge_amount(c[2], dev, r, 1);
	rdmacg_test_race_go(&t->race);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_racer_done(t));

	KUNIT_EXPECT_EQ(test, 0, t->ret);
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_usage(c[0], dev, r));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_peak(c[leaf], dev, r));
	KUNIT_EXPECT_EQ_MSG(test, 2, rdmacg_test_peak(c[2], dev, r),
			    "level %d from the bottom should keep the usage its cmpxchg produced",
			    RDMACG_PEAK_LEVELS);
	KUNIT_EXPECT_EQ_MSG(test, 1, rdmacg_test_peak(c[1], dev, r),
			    "the peaks above, re-read after the charge, should miss the unit given back");
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_peak(c[0], dev, r));
	rdmacg_uncharge_amount(c[leaf], dev, r, 1);
}

/*
 * A reset while a charge that passed the peak is in flight: the charge has
 * reached 6 at every level, but has not raised the peaks yet. Meanwhile 5
 * units are freed and a file resets its peaks, restarting them from 1.
 * The late raise then writes the 6 the charge reached before the reset:
 * the documented bound of a reset's view (as memory.peak's), the highest
 * usage a charge in flight at the reset had reached, and never more. Not
 * raising it would make the reader that never reset miss the 6 that
 * really occurred. A reset with nothing in flight is exact again.
 */
static void rdmacg_test_race_reset_peak(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct cgroup_of_peak fa = { };
	struct rdmacg_device *dev;
	struct rdmacg_test_racer *t;
	struct rdma_cgroup *p, *c;
	u64 seen;

	dev = rdmacg_test_chain(test, &p, &c, NULL);
	rdmacg_test_charge_n(test, c, dev, r, 5);
	t = rdmacg_test_racer(test, RDMACG_RACE_CHARGED,
			      rdmacg_test_pool(c, dev));
	t->cg = c;
	t->dev = dev;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	KUNIT_EXPECT_EQ(test, 6, rdmacg_test_usage(p, dev, r));
	KUNIT_EXPECT_EQ(test, 5, rdmacg_test_peak(c, dev, r));
	rdmacg_uncharge_amount(c, dev, r, 5);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_seen(c, dev, r, &fa));
	rdmacg_test_race_go(&t->race);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_racer_done(t));
	KUNIT_EXPECT_EQ(test, 0, t->ret);

	seen = rdmacg_test_seen(c, dev, r, &fa);
	KUNIT_EXPECT_GE_MSG(test, seen, 1, "below the usage since the reset");
	KUNIT_EXPECT_LE_MSG(test, seen, 6,
			    "above what the charge in flight had reached");
	KUNIT_EXPECT_EQ(test, 6, rdmacg_test_seen(c, dev, r, NULL));
	KUNIT_EXPECT_EQ(test, 6, rdmacg_test_peak(p, dev, r));
	KUNIT_ASSERT_EQ(test, 0, rdmacg_peak_reset(c, &fa, RDMACG_VAL_PEAK));
	KUNIT_EXPECT_EQ(test, 1, rdmacg_test_seen(c, dev, r, &fa));
	KUNIT_EXPECT_EQ(test, 6, rdmacg_test_seen(c, dev, r, NULL));
	rdmacg_peak_forget(&fa);
	rdmacg_uncharge_amount(c, dev, r, 1);
}

/*
 * An uncharge holds its leaf pool (it saw the device alive) while the
 * device is unregistered. Unregistration must wait for it before it frees
 * the pools: it may not return while the uncharge is held, and returns
 * once it is let go. Without the grace period it would free the pools
 * under the uncharge (which KASAN reports as a use-after-free).
 */
static void rdmacg_test_race_unregister(struct kunit *test)
{
	const enum rdmacg_resource_type r = RDMACG_RESOURCE_HCA_OBJECT;
	struct rdmacg_test_racer *t, *u;
	struct rdmacg_device *dev;
	struct rdma_cgroup *p, *c;
	bool early;

	dev = rdmacg_test_chain(test, &p, &c, NULL);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_charge(c, dev, r));
	t = rdmacg_test_racer(test, RDMACG_RACE_UNCHARGE,
			      rdmacg_test_pool(c, dev));
	t->cg = c;
	t->dev = dev;
	t->uncharge = true;
	u = rdmacg_test_racer(test, RDMACG_RACE_UNREGISTER, dev);
	u->dev = dev;
	u->unregister = true;
	u->race.pass = true;

	rdmacg_test_racer_start(test, t, 0);
	KUNIT_ASSERT_TRUE(test, rdmacg_test_race_reached(&t->race));
	rdmacg_test_racer_start(test, u, 1);
	KUNIT_ASSERT_TRUE_MSG(test, rdmacg_test_race_reached(&u->race),
			      "unregistration did not get to its grace period");
	/*
	 * Nothing may end the grace period while the uncharge is held; a
	 * second is plenty for an unregistration that does not wait for it.
	 */
	early = wait_for_completion_timeout(&u->done, HZ);
	rdmacg_test_race_go(&t->race);
	KUNIT_EXPECT_TRUE(test, rdmacg_test_racer_done(t));
	KUNIT_EXPECT_TRUE(test, rdmacg_test_racer_done(u));
	KUNIT_EXPECT_FALSE_MSG(test, early,
			       "unregistration freed the pools while an uncharge held one");
}

static struct kunit_case rdmacg_test_cases[] = {
	KUNIT_CASE_PARAM(rdmacg_test_set_max, rdmacg_set_max_gen_params),
	KUNIT_CASE(rdmacg_test_parse_max),
	KUNIT_CASE_PARAM(rdmacg_test_parse_bytes, rdmacg_bytes_gen_params),
	KUNIT_CASE(rdmacg_test_mr_mem_limits),
	KUNIT_CASE(rdmacg_test_mr_mem_hierarchy),
	KUNIT_CASE(rdmacg_test_mr_mem_files),
	KUNIT_CASE(rdmacg_test_refusal_levels),
	KUNIT_CASE(rdmacg_test_siblings),
	KUNIT_CASE(rdmacg_test_limit_below_usage),
	KUNIT_CASE(rdmacg_test_no_wrap),
	KUNIT_CASE(rdmacg_test_pool_lifetime),
	KUNIT_CASE(rdmacg_test_pool_tree),
	KUNIT_CASE(rdmacg_test_unregister_outstanding),
	KUNIT_CASE(rdmacg_test_file_format),
	KUNIT_CASE(rdmacg_test_index_key),
	KUNIT_CASE(rdmacg_test_peak_refused),
	KUNIT_CASE(rdmacg_test_multi_device),
	KUNIT_CASE(rdmacg_test_peak_reset),
	KUNIT_CASE(rdmacg_test_peak_reset_reregister),
	KUNIT_CASE(rdmacg_test_peak_reset_two_devices),
	KUNIT_CASE(rdmacg_test_unaccounted),
	KUNIT_CASE(rdmacg_test_never_registered),
	KUNIT_CASE(rdmacg_test_refusal_dead_device),
	KUNIT_CASE_SLOW(rdmacg_test_concurrent),
	KUNIT_CASE_SLOW(rdmacg_test_table_race),
	KUNIT_CASE_SLOW(rdmacg_test_unregister_race),
	KUNIT_CASE_SLOW(rdmacg_test_lowered_limit),
	KUNIT_CASE_SLOW(rdmacg_test_refusal_attribution),
	KUNIT_CASE(rdmacg_test_race_lowered),
	KUNIT_CASE(rdmacg_test_race_lowered_above),
	KUNIT_CASE(rdmacg_test_race_lowered_after),
	KUNIT_CASE(rdmacg_test_race_ancestor_filled),
	KUNIT_CASE(rdmacg_test_race_deep_peak),
	KUNIT_CASE(rdmacg_test_race_reset_peak),
	KUNIT_CASE(rdmacg_test_race_unregister),
	{}
};

static struct kunit_suite rdmacg_test_suite = {
	.name = "cgroup_rdma",
	.test_cases = rdmacg_test_cases,
};

kunit_test_suite(rdmacg_test_suite);
