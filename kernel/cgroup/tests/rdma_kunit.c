// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the RDMA cgroup controller, included at the end of
 * kernel/cgroup/rdma.c so that they reach its static functions.  They make
 * cgroups of their own (no cgroup file system: hand-set parents and css
 * ids, no reference counting) and register fake devices.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/sizes.h>

#define TEST_DEV_NAME	"kunit_rdmacg"
#define HANDLE		RDMACG_RESOURCE_HCA_HANDLE
#define OBJECT		RDMACG_RESOURCE_HCA_OBJECT

/* css ids far above those of the real cgroups */
static int rdmacg_test_css_id = 1 << 24;

static void rdmacg_test_free_cg(void *css)
{
	rdmacg_css_free(css);
}

static struct rdma_cgroup *rdmacg_test_cg(struct kunit *test,
					  struct rdma_cgroup *parent)
{
	struct cgroup_subsys_state *css;

	css = rdmacg_css_alloc(parent ? &parent->css : NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, css);
	css->parent = parent ? &parent->css : NULL;
	css->flags |= CSS_NO_REF;
	css->id = rdmacg_test_css_id++;
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, rdmacg_test_free_cg, css));
	return css_rdmacg(css);
}

static void rdmacg_test_unregister(void *dev)
{
	rdmacg_unregister_device(dev);
}

static struct rdmacg_device *rdmacg_test_dev(struct kunit *test,
					     const char *name, u32 index)
{
	struct rdmacg_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->name = (char *)name;
	dev->index = index;
	rdmacg_register_device(dev);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, rdmacg_test_unregister, dev));
	return dev;
}

/* A root and a chain of @n cgroups below it, in @cg[0] (top) .. @cg[n - 1] */
static void rdmacg_test_chain(struct kunit *test, struct rdma_cgroup **cg,
			      int n)
{
	struct rdma_cgroup *parent = rdmacg_test_cg(test, NULL);
	int i;

	for (i = 0; i < n; i++) {
		cg[i] = rdmacg_test_cg(test, parent);
		parent = cg[i];
	}
}

static int rdmacg_test_write(struct rdma_cgroup *cg, const char *s)
{
	char *buf = kstrdup(s, GFP_KERNEL);
	int ret = buf ? rdmacg_write_max(cg, buf, false) : -ENOMEM;

	kfree(buf);
	return ret;
}

static struct rdmacg_resource *rdmacg_test_res(struct kunit *test,
					       struct rdma_cgroup *cg,
					       struct rdmacg_device *dev,
					       enum rdmacg_resource_type type)
{
	struct rdmacg_pool *pool;

	mutex_lock(&rdmacg_mutex);
	pool = rdmacg_pool_lookup(dev, cg);
	mutex_unlock(&rdmacg_mutex);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	return &pool->res[type];
}

static void rdmacg_expect_res(struct kunit *test, struct rdmacg_resource *r,
			      int usage, int peak, int max)
{
	KUNIT_EXPECT_EQ(test, atomic_read(&r->usage), usage);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->peak), peak);
	KUNIT_EXPECT_EQ(test, READ_ONCE(r->max), max);
}

/* rdma.events' max and alloc_fail, then rdma.events.local's */
static void rdmacg_expect_events(struct kunit *test, struct rdmacg_resource *r,
				 s64 max, s64 fail, s64 local_max,
				 s64 local_fail)
{
	KUNIT_EXPECT_EQ(test, atomic64_read(&r->ev.max), max);
	KUNIT_EXPECT_EQ(test, atomic64_read(&r->ev.alloc_fail), fail);
	KUNIT_EXPECT_EQ(test, atomic64_read(&r->ev.local_max), local_max);
	KUNIT_EXPECT_EQ(test, atomic64_read(&r->ev.local_alloc_fail), local_fail);
}

struct rdmacg_write_case {
	const char *input;
	int ret;
	int handle;	/* hca_handle limit afterwards */
	int object;	/* hca_object limit afterwards */
};

/* Each case starts from hca_handle=7 hca_object=9; 7.3.4's grammar and errors */
static const struct rdmacg_write_case rdmacg_write_cases[] = {
	{ TEST_DEV_NAME " hca_handle=1 hca_object=2", 0, 1, 2 },
	{ TEST_DEV_NAME " hca_object=2 hca_handle=1", 0, 1, 2 },
	{ TEST_DEV_NAME " hca_handle=3", 0, 3, 9 },
	{ TEST_DEV_NAME " hca_object=4", 0, 7, 4 },
	{ TEST_DEV_NAME " hca_handle=max", 0, S32_MAX, 9 },
	{ TEST_DEV_NAME " hca_handle=max hca_object=max", 0, S32_MAX, S32_MAX },
	{ TEST_DEV_NAME " hca_handle=0", 0, 0, 9 },
	{ TEST_DEV_NAME " hca_handle=2147483647", 0, S32_MAX, 9 },
	{ TEST_DEV_NAME " hca_handle=2147483646", 0, 2147483646, 9 },
	{ TEST_DEV_NAME "  \t hca_handle=5\t\thca_object=6", 0, 5, 6 },
	{ TEST_DEV_NAME " hca_handle=5\n", 0, 5, 9 },
	{ TEST_DEV_NAME, 0, 7, 9 },
	{ "", -ENODEV, 7, 9 },
	{ TEST_DEV_NAME " hca_handle", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle =5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " =5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=m", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=MAX", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=maxx", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=-1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=+1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5abc", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1.5", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=2147483648", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=99999999999999999999", -EINVAL, 7, 9 },
	/* The last value of a key counts; one device per write. */
	{ TEST_DEV_NAME " hca_handle=1 hca_handle=2", 0, 2, 9 },
	{ TEST_DEV_NAME " hca_handle=max hca_handle=3", 0, 3, 9 },
	{ TEST_DEV_NAME " hca_object=1 bogus=2", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1 hca_object=x", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " HCA_HANDLE=1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handles=1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5=6", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5,hca_object=6", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1 junk", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " index=0 hca_handle=1 index=0", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " index=-1", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=1\n" TEST_DEV_NAME " hca_object=2", -EINVAL, 7, 9 },
	{ TEST_DEV_NAME " hca_handle=5\nnosuchdev hca_handle=1", -EINVAL, 7, 9 },
	{ "nosuchdev hca_handle=1", -ENODEV, 7, 9 },
	{ "kunit_rdmac hca_handle=1", -ENODEV, 7, 9 },
	/* Parsed before the device is looked up. */
	{ "nosuchdev hca_handle=bad", -EINVAL, 7, 9 },
};

static void rdmacg_write_case_desc(const struct rdmacg_write_case *t,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"",
		 (int)strlen(t->input), t->input);
}

KUNIT_ARRAY_PARAM(rdmacg_write, rdmacg_write_cases, rdmacg_write_case_desc);

/* Upstream's grammar and errnos; a refused write changes nothing */
static void rdmacg_test_write_max(struct kunit *test)
{
	const struct rdmacg_write_case *t = test->param_value;
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME
						   " hca_handle=7 hca_object=9"));
	KUNIT_EXPECT_EQ(test, rdmacg_test_write(cg, t->input), t->ret);
	KUNIT_EXPECT_EQ(test, rdmacg_test_res(test, cg, dev, HANDLE)->max, t->handle);
	KUNIT_EXPECT_EQ(test, rdmacg_test_res(test, cg, dev, OBJECT)->max, t->object);
}

/* Two devices of one name need index=N; a failed write makes no pool */
static void rdmacg_test_write_index(struct kunit *test)
{
	struct rdmacg_device *d5 = rdmacg_test_dev(test, TEST_DEV_NAME, 5);
	struct rdmacg_device *d7 = rdmacg_test_dev(test, TEST_DEV_NAME, 7);
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	KUNIT_EXPECT_EQ(test, rdmacg_test_write(cg, TEST_DEV_NAME " hca_handle=1"),
			-ENOTUNIQ);
	KUNIT_EXPECT_EQ(test, rdmacg_test_write(cg, TEST_DEV_NAME " index=6 hca_handle=1"),
			-ENODEV);
	KUNIT_EXPECT_NULL(test, xa_load(&d5->pools, cg->css.id));
	KUNIT_EXPECT_NULL(test, xa_load(&d7->pools, cg->css.id));
	KUNIT_EXPECT_EQ(test, rdmacg_test_write(cg, TEST_DEV_NAME " index=7 hca_handle=1"),
			0);
	KUNIT_EXPECT_NULL(test, xa_load(&d5->pools, cg->css.id));
	KUNIT_EXPECT_EQ(test, rdmacg_test_res(test, cg, d7, HANDLE)->max, 1);
}

static void rdmacg_expect_key(struct kunit *test, struct rdmacg_device *dev,
			      const char *key)
{
	DECLARE_BITMAP(names, 2 * RDMACG_NAME_BUCKETS);
	char buf[64] = {};
	struct seq_file sf = { .buf = buf, .size = sizeof(buf) - 1 };

	mutex_lock(&rdmacg_mutex);
	rdmacg_names_fill(names);
	rdmacg_print_key(&sf, dev, names);
	mutex_unlock(&rdmacg_mutex);
	KUNIT_EXPECT_STREQ(test, buf, key);
}

/*
 * A device's key has its index while another device has its name, as
 * devices come and go, or are renamed
 */
static void rdmacg_test_print_key(struct kunit *test)
{
	struct rdmacg_device *d5 = rdmacg_test_dev(test, TEST_DEV_NAME, 5);
	struct rdmacg_device *d6 = rdmacg_test_dev(test, "kunit_rdmacg2", 6);
	struct rdmacg_device *d7 = rdmacg_test_dev(test, TEST_DEV_NAME, 7);

	rdmacg_expect_key(test, d5, TEST_DEV_NAME " index=5");
	rdmacg_expect_key(test, d6, "kunit_rdmacg2");
	rdmacg_expect_key(test, d7, TEST_DEV_NAME " index=7");
	rdmacg_unregister_device(d7);
	rdmacg_expect_key(test, d5, TEST_DEV_NAME);
	rdmacg_register_device(d7);
	rdmacg_expect_key(test, d5, TEST_DEV_NAME " index=5");
	d7->name = "kunit_rdmacg2";
	rdmacg_expect_key(test, d5, TEST_DEV_NAME);
	rdmacg_expect_key(test, d6, "kunit_rdmacg2 index=6");
	d7->name = TEST_DEV_NAME;
}

/*
 * A page of 2,048 one-letter lines, and a page of repeated limit lines:
 * upstream's errnos, nothing allocated per line, nothing changed.
 */
static void rdmacg_test_write_page(struct kunit *test)
{
	static const char line[] = TEST_DEV_NAME " hca_handle=1\n";
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	char *buf = kunit_kzalloc(test, PAGE_SIZE + 1, GFP_KERNEL);
	struct rdma_cgroup *cg;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rdmacg_test_chain(test, &cg, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME " hca_handle=7"));
	for (i = 0; i < PAGE_SIZE; i += 2)
		memcpy(buf + i, "a\n", 2);
	KUNIT_EXPECT_EQ(test, rdmacg_write_max(cg, buf, false), -ENODEV);
	for (i = 0; i + sizeof(line) - 1 <= PAGE_SIZE; i += sizeof(line) - 1)
		memcpy(buf + i, line, sizeof(line) - 1);
	buf[i] = '\0';
	KUNIT_EXPECT_EQ(test, rdmacg_write_max(cg, buf, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdmacg_test_res(test, cg, dev, HANDLE)->max, 7);
}

/* One level: the limit, the events, the peak that stays */
static void rdmacg_test_charge_limit(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_resource *r;
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME " hca_handle=2"));
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, HANDLE), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, HANDLE), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, HANDLE), -EAGAIN);
	r = rdmacg_test_res(test, cg, dev, HANDLE);
	rdmacg_expect_res(test, r, 2, 2, 2);
	rdmacg_expect_events(test, r, 1, 1, 1, 1);
	rdmacg_discharge(cg, dev, HANDLE);
	rdmacg_discharge(cg, dev, HANDLE);
	rdmacg_expect_res(test, r, 0, 2, 2);
	r = rdmacg_test_res(test, cg, dev, OBJECT);
	rdmacg_expect_res(test, r, 0, 0, S32_MAX);
	rdmacg_expect_events(test, r, 0, 0, 0, 0);
}

/*
 * A refusal two levels up: the levels below give the unit back, their
 * peaks keep it (pids' watermark), and each level counts what rdma.events
 * and rdma.events.local say.
 */
static void rdmacg_test_hierarchy(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_resource *ra, *rb, *rc;
	struct rdma_cgroup *cg[3];

	rdmacg_test_chain(test, cg, 3);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg[0], TEST_DEV_NAME " hca_object=1"));
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[2], dev, OBJECT), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[2], dev, OBJECT), -EAGAIN);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[1], dev, OBJECT), -EAGAIN);
	ra = rdmacg_test_res(test, cg[0], dev, OBJECT);
	rb = rdmacg_test_res(test, cg[1], dev, OBJECT);
	rc = rdmacg_test_res(test, cg[2], dev, OBJECT);
	rdmacg_expect_res(test, ra, 1, 1, 1);
	rdmacg_expect_res(test, rb, 1, 2, S32_MAX);
	rdmacg_expect_res(test, rc, 1, 2, S32_MAX);
	rdmacg_expect_events(test, ra, 2, 2, 2, 0);
	rdmacg_expect_events(test, rb, 0, 2, 0, 1);
	rdmacg_expect_events(test, rc, 0, 1, 0, 1);
	rdmacg_discharge(cg[2], dev, OBJECT);
	rdmacg_expect_res(test, ra, 0, 1, 1);
	rdmacg_expect_res(test, rc, 0, 2, S32_MAX);
}

/* A limit below the usage refuses, and the usage stays above it */
static void rdmacg_test_limit_below_usage(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_resource *r;
	struct rdma_cgroup *cg;
	int i;

	rdmacg_test_chain(test, &cg, 1);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, OBJECT), 0);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME " hca_object=1"));
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, OBJECT), -EAGAIN);
	r = rdmacg_test_res(test, cg, dev, OBJECT);
	rdmacg_expect_res(test, r, 3, 3, 1);
	for (i = 0; i < 3; i++)
		rdmacg_discharge(cg, dev, OBJECT);
	rdmacg_expect_res(test, r, 0, 3, 1);
}

/* No wrap at INT_MAX without a limit */
static void rdmacg_test_int_max(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_resource *r;
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, OBJECT), 0);
	r = rdmacg_test_res(test, cg, dev, OBJECT);
	atomic_set(&r->usage, S32_MAX - 1);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, OBJECT), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, OBJECT), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->usage), S32_MAX);
	atomic_set(&r->usage, 0);
}

/*
 * A peak shows no less than the usage, which a charge raises before its
 * peak, and no more than the limit, which a refused unit passes for an
 * instant: the usage is set as such charges leave it.
 */
static void rdmacg_test_peak_floor(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_resource *r;
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME " hca_object=3"));
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg, dev, OBJECT), 0);
	r = rdmacg_test_res(test, cg, dev, OBJECT);
	atomic_set(&r->usage, 2);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(rdmacg_pool_lookup(dev, cg), OBJECT, NULL), 2);
	atomic_set(&r->usage, 4);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(rdmacg_pool_lookup(dev, cg), OBJECT, NULL), 3);
	atomic_set(&r->usage, 1);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(rdmacg_pool_lookup(dev, cg), OBJECT, NULL), 1);
	rdmacg_discharge(cg, dev, OBJECT);
}

static int rdmacg_test_lookups;

static struct rdmacg_pool *rdmacg_test_count_lookup(struct rdmacg_device *dev,
						    struct rdma_cgroup *cg)
{
	rdmacg_test_lookups++;
	return xa_load(&dev->pools, cg->css.id);
}

#define RDMACG_TEST_DEPTH 1000

/* A deep chain's first charge makes its pools with one lookup per level */
static void rdmacg_test_deep_chain(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdma_cgroup **cg;
	struct rdmacg_pool *pool;
	int i;

	cg = kunit_kcalloc(test, RDMACG_TEST_DEPTH, sizeof(*cg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cg);
	rdmacg_test_chain(test, cg, RDMACG_TEST_DEPTH);
	rdmacg_test_lookups = 0;
	kunit_activate_static_stub(test, rdmacg_pool_find_locked,
				   rdmacg_test_count_lookup);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[RDMACG_TEST_DEPTH - 1], dev, OBJECT), 0);
	kunit_deactivate_static_stub(test, rdmacg_pool_find_locked);
	KUNIT_EXPECT_EQ(test, rdmacg_test_lookups, RDMACG_TEST_DEPTH);
	pool = xa_load(&dev->pools, cg[RDMACG_TEST_DEPTH - 1]->css.id);
	for (i = RDMACG_TEST_DEPTH - 1; i >= 0 && pool; i--, pool = pool->parent) {
		KUNIT_EXPECT_PTR_EQ(test, pool->cg, cg[i]);
		KUNIT_EXPECT_EQ(test, atomic_read(&pool->res[OBJECT].usage), 1);
	}
	KUNIT_EXPECT_EQ(test, i, -1);
	KUNIT_EXPECT_NULL(test, pool);
	rdmacg_discharge(cg[RDMACG_TEST_DEPTH - 1], dev, OBJECT);
}

/* Unregistering frees every pool; the limits do not come back */
static void rdmacg_test_unregister_device(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdma_cgroup *cg[2];

	rdmacg_test_chain(test, cg, 2);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg[1], TEST_DEV_NAME " hca_handle=1"));
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[1], dev, HANDLE), 0);
	rdmacg_discharge(cg[1], dev, HANDLE);
	rdmacg_unregister_device(dev);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->pools));
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[1], dev, HANDLE), -ENODEV);
	KUNIT_EXPECT_EQ(test, rdmacg_test_write(cg[1], TEST_DEV_NAME " hca_handle=1"),
			-ENODEV);
	rdmacg_register_device(dev);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[1], dev, HANDLE), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(cg[1], dev, HANDLE), 0);
	rdmacg_expect_res(test, rdmacg_test_res(test, cg[1], dev, HANDLE), 2, 2, S32_MAX);
	rdmacg_discharge(cg[1], dev, HANDLE);
	rdmacg_discharge(cg[1], dev, HANDLE);
}

/* A cgroup's pools go with it */
static void rdmacg_test_css_free(struct kunit *test)
{
	struct rdmacg_device *d1 = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_device *d2 = rdmacg_test_dev(test, "kunit_rdmacg2", 1);
	struct cgroup_subsys_state *css;
	struct rdma_cgroup *cg;
	int id;

	rdmacg_test_chain(test, &cg, 1);
	css = rdmacg_css_alloc(&cg->css);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, css);
	css->parent = &cg->css;
	css->flags |= CSS_NO_REF;
	id = rdmacg_test_css_id++;
	css->id = id;
	KUNIT_EXPECT_EQ(test, rdmacg_charge(css_rdmacg(css), d1, OBJECT), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_charge(css_rdmacg(css), d2, OBJECT), 0);
	rdmacg_discharge(css_rdmacg(css), d1, OBJECT);
	rdmacg_discharge(css_rdmacg(css), d2, OBJECT);
	rdmacg_css_free(css);
	KUNIT_EXPECT_NULL(test, xa_load(&d1->pools, id));
	KUNIT_EXPECT_NULL(test, xa_load(&d2->pools, id));
	KUNIT_EXPECT_NOT_NULL(test, xa_load(&d1->pools, cg->css.id));
}

struct rdmacg_test_worker {
	struct rdma_cgroup	*cg;
	struct rdmacg_device	*dev;
	atomic_t		*started;
	int			got;
	struct completion	done;
};

static int rdmacg_test_charger(void *arg)
{
	struct rdmacg_test_worker *w = arg;
	int i;

	/* both start charging at once, each on a CPU of its own */
	atomic_inc(w->started);
	while (atomic_read(w->started) < 2)
		cpu_relax();
	for (i = 0; i < 50000; i++)
		if (!rdmacg_charge(w->cg, w->dev, OBJECT))
			w->got++;
	complete(&w->done);
	return 0;
}

/*
 * Two threads on two CPUs charge one cgroup below a limit of 75,000 at
 * its parent, 50,000 times each: exactly 75,000 charges pass, whatever
 * the interleaving, and the parent's peak is exactly its limit.
 */
static void rdmacg_test_threads(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_test_worker w[2] = {};
	atomic_t started = ATOMIC_INIT(0);
	struct rdma_cgroup *p, *c;
	struct task_struct *t;
	int i, j;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU (UML: kunit.py --kernel_args=ncpus=2)");
	rdmacg_test_chain(test, &p, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(p, TEST_DEV_NAME " hca_object=75000"));
	c = rdmacg_test_cg(test, p);
	/* the pools exist before the race */
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(c, TEST_DEV_NAME));
	for (i = 0; i < 2; i++) {
		w[i].cg = c;
		w[i].dev = dev;
		w[i].started = &started;
		init_completion(&w[i].done);
	}
	for (i = 0; i < 2; i++) {
		t = kthread_run_on_cpu(rdmacg_test_charger, &w[i], i, "rdmacg_test/%u");
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	}
	for (i = 0; i < 2; i++)
		wait_for_completion(&w[i].done);
	KUNIT_EXPECT_EQ(test, w[0].got + w[1].got, 75000);
	rdmacg_expect_res(test, rdmacg_test_res(test, p, dev, OBJECT), 75000, 75000, 75000);
	for (i = 0; i < 2; i++)
		for (j = 0; j < w[i].got; j++)
			rdmacg_discharge(w[i].cg, dev, OBJECT);
	rdmacg_expect_res(test, rdmacg_test_res(test, p, dev, OBJECT), 0, 75000, 75000);
}

static int rdmacg_test_write_mem(struct rdma_cgroup *cg, const char *s, bool mem)
{
	char *buf = kstrdup(s, GFP_KERNEL);
	int ret = buf ? rdmacg_write_max(cg, buf, mem) : -ENOMEM;

	kfree(buf);
	return ret;
}

struct rdmacg_mem_case {
	const char *input;
	bool mem;		/* written to rdma.mr_mem.max, or rdma.max */
	int ret;
	unsigned long pages;	/* the limit afterwards */
};

#define MEM_PAGES(bytes)	((unsigned long)(bytes) >> PAGE_SHIFT)

/* Each case starts from 1M */
static const struct rdmacg_mem_case rdmacg_mem_cases[] = {
	{ TEST_DEV_NAME " 16M", true, 0, MEM_PAGES(SZ_16M) },
	{ TEST_DEV_NAME " 16m", true, 0, MEM_PAGES(SZ_16M) },
	{ TEST_DEV_NAME " 0x30000", true, 0, MEM_PAGES(0x30000) },
	{ TEST_DEV_NAME " 196607", true, 0, MEM_PAGES(196607) },
	{ TEST_DEV_NAME " 0", true, 0, 0 },
	{ TEST_DEV_NAME " max", true, 0, RDMACG_MEM_MAX },
	{ TEST_DEV_NAME " 1E", true, 0, MEM_PAGES(1ULL << 60) },
	{ TEST_DEV_NAME " 8E", true, 0, RDMACG_MEM_MAX },
	{ TEST_DEV_NAME " 0x1000e", true, 0, MEM_PAGES(0x1000e) },
	{ TEST_DEV_NAME " index=0 2M\n", true, 0, MEM_PAGES(SZ_2M) },
	{ TEST_DEV_NAME, true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " index=0", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 1G 2M", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " max 2M", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 2M max", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 99999999999999999999999", true, -ERANGE, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 16E", true, -ERANGE, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 0x10000000000000000", true, -ERANGE, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " -4096", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 4096x", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 4K 4L", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " MAX", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " hca_handle=1", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " mr_mem=4096", true, -EINVAL, MEM_PAGES(SZ_1M) },
	{ "nosuchdev 4096", true, -ENODEV, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " 4096", false, -EINVAL, MEM_PAGES(SZ_1M) },
	{ TEST_DEV_NAME " max", false, -EINVAL, MEM_PAGES(SZ_1M) },
};

/*
 * rdma.mr_mem.max takes one size as memory.max does, or max; rdma.max
 * takes none.  A refused write leaves the limit as it was.
 */
static void rdmacg_test_write_mem_max(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	const struct rdmacg_mem_case *t;
	struct rdma_cgroup *cg;
	struct rdmacg_pool *pool;

	rdmacg_test_chain(test, &cg, 1);
	for (t = rdmacg_mem_cases; t < rdmacg_mem_cases + ARRAY_SIZE(rdmacg_mem_cases); t++) {
		KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write_mem(cg, TEST_DEV_NAME " 1M", true));
		KUNIT_EXPECT_EQ_MSG(test, rdmacg_test_write_mem(cg, t->input, t->mem),
				    t->ret, "\"%s\"", t->input);
		pool = rdmacg_pool_lookup(dev, cg);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(pool->mem.pc.max), t->pages,
				    "\"%s\"", t->input);
	}
}

/*
 * Pages charged at a child, refused by the parent's limit: the events
 * count mr_mem, the parent's peak only what it took, the child's the
 * refused pages too (page_counter's watermark).
 */
static void rdmacg_test_mem_charge(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdma_cgroup *cg[2];
	struct rdmacg_pool *p, *c;
	char buf[64];

	rdmacg_test_chain(test, cg, 2);
	snprintf(buf, sizeof(buf), TEST_DEV_NAME " %lu", 10 * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write_mem(cg[0], buf, true));
	KUNIT_EXPECT_EQ(test, rdmacg_mem_charge(cg[1], dev, 4), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_mem_charge(cg[1], dev, 4), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_mem_charge(cg[1], dev, 3), -EAGAIN);
	p = rdmacg_pool_lookup(dev, cg[0]);
	c = rdmacg_pool_lookup(dev, cg[1]);
	KUNIT_EXPECT_EQ(test, page_counter_read(&p->mem.pc), 8);
	KUNIT_EXPECT_EQ(test, page_counter_read(&c->mem.pc), 8);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->mem.pc.watermark), 8);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->mem.pc.watermark), 11);
	KUNIT_EXPECT_EQ(test, atomic64_read(&p->mem.ev.local_max), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->mem.ev.local_alloc_fail), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&p->mem.ev.alloc_fail), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->mem.ev.max), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&p->res[OBJECT].ev.max), 0);
	rdmacg_uncharge_mem(cg[1], dev, 8);
	KUNIT_EXPECT_EQ(test, page_counter_read(&p->mem.pc), 0);
	KUNIT_EXPECT_EQ(test, page_counter_read(&c->mem.pc), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->mem.pc.watermark), 8);
}

/* The first charge of a pinning stores the current task's cgroup */
static void rdmacg_test_mem_current(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdma_cgroup *cg = NULL;

	KUNIT_EXPECT_EQ(test, rdmacg_try_charge_mem(&cg, dev, 5), 0);
	KUNIT_ASSERT_NOT_NULL(test, cg);
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, &cg->css, task_css(current, rdma_cgrp_id));
	rcu_read_unlock();
	rdmacg_uncharge_mem(cg, dev, 5);
}

static long rdmacg_test_peak(struct rdma_cgroup *cg, struct rdmacg_device *dev,
			     struct cgroup_of_peak *ofp)
{
	long val;

	mutex_lock(&rdmacg_mutex);
	val = rdmacg_peak_seen(rdmacg_pool_lookup(dev, cg), OBJECT,
			       ofp ? rdmacg_peak_file(ofp) : NULL);
	mutex_unlock(&rdmacg_mutex);
	return val;
}

static void rdmacg_test_charge_n(struct kunit *test, struct rdma_cgroup *cg,
				 struct rdmacg_device *dev, int n)
{
	for (; n > 0; n--)
		KUNIT_ASSERT_EQ(test, rdmacg_charge(cg, dev, OBJECT), 0);
	for (; n < 0; n++)
		rdmacg_discharge(cg, dev, OBJECT);
}

/*
 * memory.peak's rule, replayed: a written file shows the peak since its
 * write, from the usage then; another file's write raises its value to
 * the usage at that write and restarts the local peak, so that the file
 * loses a higher peak reached between the two writes, as memory.peak's
 * does.  A file never written shows the peak since the pool was made;
 * a file of the parent is not affected.
 */
static void rdmacg_test_peak_reset(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct cgroup_of_peak a = {}, b = {}, p = {};
	struct rdma_cgroup *cg[2];

	rdmacg_test_chain(test, cg, 2);
	rdmacg_test_charge_n(test, cg[1], dev, 5);
	rdmacg_test_charge_n(test, cg[1], dev, -4);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg[1], &a, false), 0);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg[0], &p, false), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, &a), 1);
	rdmacg_test_charge_n(test, cg[1], dev, 3);
	rdmacg_test_charge_n(test, cg[1], dev, -3);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, &a), 4);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg[1], &b, false), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, &a), 1);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, &b), 1);
	rdmacg_test_charge_n(test, cg[1], dev, 2);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg[1], &b, false), 0);
	rdmacg_test_charge_n(test, cg[1], dev, -2);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg[1], &b, false), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, &a), 3);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, &b), 1);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[1], dev, NULL), 5);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg[0], dev, &p), 4);
	rdmacg_peak_forget(cg[1], &a);
	rdmacg_peak_forget(cg[1], &b);
	rdmacg_peak_forget(cg[0], &p);
	KUNIT_EXPECT_TRUE(test, list_empty(&cg[1]->peak_files[0]));
	rdmacg_test_charge_n(test, cg[1], dev, -1);
}

/*
 * A reset while a refused unit is in flight restarts without it, so that
 * the file shows no peak above the limit; the file shows no less than the
 * usage, which a charge raises before its peak, nor than a usage that a
 * limit was written under.
 */
static void rdmacg_test_peak_reset_in_flight(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct cgroup_of_peak a = {};
	struct rdmacg_resource *r;
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME " hca_object=2"));
	rdmacg_test_charge_n(test, cg, dev, 2);
	r = rdmacg_test_res(test, cg, dev, OBJECT);
	atomic_inc(&r->usage);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &a, false), 0);
	atomic_dec(&r->usage);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg, dev, &a), 2);
	rdmacg_test_charge_n(test, cg, dev, -1);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &a, false), 0);
	atomic_inc(&r->usage);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg, dev, &a), 2);
	atomic_dec(&r->usage);
	rdmacg_test_charge_n(test, cg, dev, 1);
	KUNIT_ASSERT_EQ(test, 0, rdmacg_test_write(cg, TEST_DEV_NAME " hca_object=1"));
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &a, false), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg, dev, &a), 2);
	rdmacg_peak_forget(cg, &a);
	rdmacg_test_charge_n(test, cg, dev, -2);
}

static int rdmacg_test_marks(struct cgroup_of_peak *ofp)
{
	struct rdmacg_peak_mark *m;
	unsigned long serial;
	int n = 0;

	xa_for_each(&rdmacg_peak_file(ofp)->marks, serial, m)
		n++;
	return n;
}

/*
 * Two written files have values of the pools of two devices.  One device
 * goes and comes back, with the same index: its new pool shows none of
 * the old pool's values, and the next write drops them from both files.
 */
static void rdmacg_test_peak_unregister(struct kunit *test)
{
	struct rdmacg_device *d1 = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_device *d2 = rdmacg_test_dev(test, "kunit_rdmacg2", 1);
	struct cgroup_of_peak a = {}, b = {};
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	rdmacg_test_charge_n(test, cg, d1, 2);
	rdmacg_test_charge_n(test, cg, d2, 3);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &a, false), 0);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &b, false), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_test_marks(&a), 2);
	rdmacg_test_charge_n(test, cg, d2, -3);
	rdmacg_unregister_device(d2);
	rdmacg_register_device(d2);
	rdmacg_test_charge_n(test, cg, d2, 1);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg, d2, &a), 1);
	KUNIT_EXPECT_EQ(test, rdmacg_test_peak(cg, d1, &a), 2);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &a, false), 0);
	KUNIT_EXPECT_EQ(test, rdmacg_test_marks(&a), 2);
	KUNIT_EXPECT_EQ(test, rdmacg_test_marks(&b), 2);
	rdmacg_test_charge_n(test, cg, d2, -1);
	rdmacg_peak_forget(cg, &a);
	rdmacg_peak_forget(cg, &b);
	rdmacg_test_charge_n(test, cg, d1, -2);
}

/*
 * A write of rdma.mr_mem.peak restarts mr_mem's peak only, and a write of
 * rdma.peak leaves mr_mem's alone.
 */
static void rdmacg_test_peak_mem(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct cgroup_of_peak m = {}, o = {};
	struct rdmacg_pool *pool;
	struct rdma_cgroup *cg;

	rdmacg_test_chain(test, &cg, 1);
	rdmacg_test_charge_n(test, cg, dev, 2);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &o, false), 0);
	rdmacg_test_charge_n(test, cg, dev, 1);
	rdmacg_test_charge_n(test, cg, dev, -1);
	KUNIT_ASSERT_EQ(test, rdmacg_mem_charge(cg, dev, 5), 0);
	rdmacg_uncharge_mem(cg, dev, 4);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &m, true), 0);
	KUNIT_ASSERT_EQ(test, rdmacg_mem_charge(cg, dev, 2), 0);
	rdmacg_uncharge_mem(cg, dev, 2);
	pool = rdmacg_pool_lookup(dev, cg);
	mutex_lock(&rdmacg_mutex);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(pool, OBJECT, rdmacg_peak_file(&o)), 3);
	mutex_unlock(&rdmacg_mutex);
	KUNIT_ASSERT_EQ(test, rdmacg_peak_reset(cg, &o, false), 0);
	mutex_lock(&rdmacg_mutex);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(pool, RDMACG_MEM, rdmacg_peak_file(&m)), 3);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(pool, RDMACG_MEM, NULL), 5);
	KUNIT_EXPECT_EQ(test, rdmacg_peak_seen(pool, OBJECT, rdmacg_peak_file(&o)), 2);
	mutex_unlock(&rdmacg_mutex);
	rdmacg_peak_forget(cg, &m);
	rdmacg_peak_forget(cg, &o);
	rdmacg_uncharge_mem(cg, dev, 1);
	rdmacg_test_charge_n(test, cg, dev, -2);
}

struct rdmacg_test_stall {
	struct rdma_cgroup	*cg;
	struct rdmacg_device	*dev;
	int			ret;
	struct completion	done;
};

static int rdmacg_test_first_charge(void *arg)
{
	struct rdmacg_test_stall *s = arg;

	s->ret = rdmacg_charge(s->cg, s->dev, OBJECT) ?:
		 rdmacg_test_write(s->cg, TEST_DEV_NAME " hca_object=9");
	complete(&s->done);
	return 0;
}

/*
 * While a write of a peak file works (its cgroup's peak_lock and
 * rdmacg_peak_rwsem held), a first charge in the cgroup, which makes its
 * pool, and a limit write go through.
 */
static void rdmacg_test_peak_no_stall(struct kunit *test)
{
	struct rdmacg_device *dev = rdmacg_test_dev(test, TEST_DEV_NAME, 0);
	struct rdmacg_test_stall s = { .dev = dev };
	struct task_struct *t;
	bool quick;

	rdmacg_test_chain(test, &s.cg, 1);
	init_completion(&s.done);
	mutex_lock(&s.cg->peak_lock);
	down_read(&rdmacg_peak_rwsem);
	t = kthread_run(rdmacg_test_first_charge, &s, "rdmacg_test_stall");
	quick = !IS_ERR(t) && wait_for_completion_timeout(&s.done, 10 * HZ);
	up_read(&rdmacg_peak_rwsem);
	mutex_unlock(&s.cg->peak_lock);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	if (!quick)
		wait_for_completion(&s.done);
	KUNIT_EXPECT_TRUE_MSG(test, quick, "the charge waited 10 s for the peak write");
	KUNIT_EXPECT_EQ(test, s.ret, 0);
	rdmacg_discharge(s.cg, dev, OBJECT);
}

static struct kunit_case rdmacg_test_cases[] = {
	KUNIT_CASE_PARAM(rdmacg_test_write_max, rdmacg_write_gen_params),
	KUNIT_CASE(rdmacg_test_write_index),
	KUNIT_CASE(rdmacg_test_print_key),
	KUNIT_CASE(rdmacg_test_write_page),
	KUNIT_CASE(rdmacg_test_charge_limit),
	KUNIT_CASE(rdmacg_test_hierarchy),
	KUNIT_CASE(rdmacg_test_limit_below_usage),
	KUNIT_CASE(rdmacg_test_int_max),
	KUNIT_CASE(rdmacg_test_peak_floor),
	KUNIT_CASE(rdmacg_test_deep_chain),
	KUNIT_CASE(rdmacg_test_unregister_device),
	KUNIT_CASE(rdmacg_test_css_free),
	KUNIT_CASE(rdmacg_test_threads),
	KUNIT_CASE(rdmacg_test_write_mem_max),
	KUNIT_CASE(rdmacg_test_mem_charge),
	KUNIT_CASE(rdmacg_test_mem_current),
	KUNIT_CASE(rdmacg_test_peak_reset),
	KUNIT_CASE(rdmacg_test_peak_reset_in_flight),
	KUNIT_CASE(rdmacg_test_peak_unregister),
	KUNIT_CASE(rdmacg_test_peak_mem),
	KUNIT_CASE(rdmacg_test_peak_no_stall),
	{}
};

static struct kunit_suite rdmacg_test_suite = {
	.name = "cgroup_rdma",
	.test_cases = rdmacg_test_cases,
};

kunit_test_suite(rdmacg_test_suite);
