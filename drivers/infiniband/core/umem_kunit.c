// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the accounting of ib_umem_get_va() and ib_umem_release():
 * the pages added to the pinning process's pinned_vm and charged to its
 * rdma cgroup, and given back, exactly, whatever a driver did to the umem
 * in between.
 *
 * The tests pin anonymous memory of an mm of their own (kunit_vm_mmap())
 * for a zeroed struct ib_device, which maps it with the virtual DMA ops,
 * and replace the rdma cgroup charge with static stubs that record it, so
 * that the pins that soft devices never make (queue buffers with a
 * rewritten iova) can be checked without hardware.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

/* What the stubs saw, in test->priv. */
struct umem_test_ctx {
	struct ib_device *device;
	unsigned long base;		/* 4 pages of anonymous memory */
	unsigned long charged;		/* pages charged, not yet uncharged */
	unsigned int charges;
	unsigned int uncharges;
	int refuse;			/* error for the next charge, or 0 */
	unsigned long first;		/* first page of the range being pinned */
	s64 pinned_vm_at_charge;	/* what the charge saw */
	bool pinned_at_charge;
};

/* Whether the page at user address @addr is pinned for DMA. */
static bool umem_test_page_pinned(struct kunit *test, unsigned long addr)
{
	struct page *page;
	bool pinned;

	KUNIT_ASSERT_EQ(test, 1, get_user_pages_fast(addr, 1, 0, &page));
	pinned = folio_maybe_dma_pinned(page_folio(page));
	put_page(page);
	return pinned;
}

static int umem_test_charge(struct rdma_cgroup **cg,
			    struct ib_device *device, unsigned long npages)
{
	struct kunit *test = kunit_get_current_test();
	struct umem_test_ctx *ctx = test->priv;

	KUNIT_EXPECT_PTR_EQ(test, device, ctx->device);
	/* The charge comes before the pin, after the RLIMIT_MEMLOCK count. */
	ctx->pinned_vm_at_charge = atomic64_read(&current->mm->pinned_vm);
	ctx->pinned_at_charge = umem_test_page_pinned(test, ctx->first);
	if (ctx->refuse)
		return ctx->refuse;
	ctx->charged += npages;
	ctx->charges++;
	return 0;
}

static void umem_test_uncharge(struct rdma_cgroup **cg,
			       struct ib_device *device, unsigned long npages)
{
	struct kunit *test = kunit_get_current_test();
	struct umem_test_ctx *ctx = test->priv;

	KUNIT_EXPECT_PTR_EQ(test, device, ctx->device);
	KUNIT_EXPECT_LE(test, npages, ctx->charged);
	ctx->charged -= npages;
	ctx->uncharges++;
}

static int umem_test_init(struct kunit *test)
{
	struct umem_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->device = kunit_kzalloc(test, sizeof(*ctx->device), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->device);
	ctx->base = kunit_vm_mmap(test, NULL, 0, 4 * PAGE_SIZE,
				  PROT_READ | PROT_WRITE,
				  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, !ctx->base || IS_ERR_VALUE(ctx->base),
			       "no user memory to pin");
	KUNIT_ASSERT_EQ(test, 0, clear_user((void __user *)ctx->base,
					    4 * PAGE_SIZE));
	test->priv = ctx;
	kunit_activate_static_stub(test, ib_rdmacg_try_charge_pinned,
				   umem_test_charge);
	kunit_activate_static_stub(test, ib_rdmacg_uncharge_pinned,
				   umem_test_uncharge);
	return 0;
}

static s64 umem_test_pinned_vm(void)
{
	return atomic64_read(&current->mm->pinned_vm);
}

struct umem_test_range {
	const char *name;
	unsigned long offset;	/* from the start of the 4 pages */
	size_t size;
	unsigned long pages;	/* that ib_umem_get_va() must pin */
};

static const struct umem_test_range umem_test_ranges[] = {
	{ "one page", 0, PAGE_SIZE, 1 },
	{ "one page, 100 bytes in", 100, PAGE_SIZE, 2 },
	{ "one byte at the end of a page", PAGE_SIZE - 1, 1, 1 },
	{ "two bytes across pages", PAGE_SIZE - 1, 2, 2 },
	{ "three pages and a byte", 0, 3 * PAGE_SIZE + 1, 4 },
};

static void umem_test_range_desc(const struct umem_test_range *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(umem_test_range, umem_test_ranges, umem_test_range_desc);

/*
 * The pages of the range are charged and added to pinned_vm once, and
 * ib_umem_release() gives back the same number, to both.
 */
static void umem_test_get_release(struct kunit *test)
{
	const struct umem_test_range *r = test->param_value;
	struct umem_test_ctx *ctx = test->priv;
	s64 pinned_vm = umem_test_pinned_vm();
	struct ib_umem *umem;

	ctx->first = ctx->base + r->offset;
	umem = ib_umem_get_va(ctx->device, ctx->base + r->offset, r->size,
			      IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, umem);
	KUNIT_EXPECT_EQ(test, ctx->charges, 1);
	KUNIT_EXPECT_EQ(test, ctx->charged, r->pages);
	KUNIT_EXPECT_FALSE_MSG(test, ctx->pinned_at_charge,
			       "a page was pinned before the charge");
	KUNIT_EXPECT_EQ(test, ctx->pinned_vm_at_charge, pinned_vm + r->pages);
	KUNIT_EXPECT_EQ(test, umem_test_pinned_vm(), pinned_vm + r->pages);
	KUNIT_EXPECT_TRUE(test, umem_test_page_pinned(test, ctx->base +
						       r->offset));
	ib_umem_release(umem);
	KUNIT_EXPECT_EQ(test, ctx->uncharges, 1);
	KUNIT_EXPECT_EQ(test, ctx->charged, 0);
	KUNIT_EXPECT_EQ(test, umem_test_pinned_vm(), pinned_vm);
	KUNIT_EXPECT_FALSE(test, umem_test_page_pinned(test, ctx->base +
							r->offset));
}

/*
 * A driver may move umem->iova after the pin, as mana's queues and mlx5's
 * CQs do through ib_umem_find_best_pgoff(): 0x200 bytes at 0xf00 into a
 * page pin two pages, while the iova of 0 counts one. The release gives
 * back the two that were pinned, to pinned_vm and to the cgroup.
 */
static void umem_test_iova_moved(struct kunit *test)
{
	struct umem_test_ctx *ctx = test->priv;
	s64 pinned_vm = umem_test_pinned_vm();
	struct ib_umem *umem;

	ctx->first = ctx->base + PAGE_SIZE - 0x100;
	umem = ib_umem_get_va(ctx->device, ctx->base + PAGE_SIZE - 0x100, 0x200,
			      IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, umem);
	KUNIT_EXPECT_EQ(test, ctx->charged, 2);
	KUNIT_EXPECT_EQ(test, umem_test_pinned_vm(), pinned_vm + 2);
	umem->iova = 0;
	KUNIT_EXPECT_EQ(test, ib_umem_num_pages(umem), 1);
	ib_umem_release(umem);
	KUNIT_EXPECT_EQ(test, ctx->charged, 0);
	KUNIT_EXPECT_EQ(test, umem_test_pinned_vm(), pinned_vm);
}

/*
 * A charge the cgroup refuses fails the pin with its error before any page
 * is pinned: pinned_vm unchanged, the page not pinned, nothing to give
 * back.
 */
static void umem_test_refused(struct kunit *test)
{
	struct umem_test_ctx *ctx = test->priv;
	s64 pinned_vm = umem_test_pinned_vm();
	struct ib_umem *umem;

	ctx->refuse = -EAGAIN;
	ctx->first = ctx->base;
	umem = ib_umem_get_va(ctx->device, ctx->base, 2 * PAGE_SIZE,
			      IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(umem), -EAGAIN);
	KUNIT_EXPECT_EQ(test, ctx->charged, 0);
	KUNIT_EXPECT_EQ(test, ctx->uncharges, 0);
	KUNIT_EXPECT_EQ(test, umem_test_pinned_vm(), pinned_vm);
	KUNIT_EXPECT_FALSE(test, umem_test_page_pinned(test, ctx->base));
}

/*
 * A pin that fails after the charge (here: the second page has no access)
 * gives the charge and pinned_vm back before it returns.
 */
static void umem_test_fault(struct kunit *test)
{
	struct umem_test_ctx *ctx = test->priv;
	s64 pinned_vm = umem_test_pinned_vm();
	struct ib_umem *umem;

	KUNIT_ASSERT_EQ(test, 0, vm_munmap(ctx->base + PAGE_SIZE, PAGE_SIZE));
	ctx->first = ctx->base;
	umem = ib_umem_get_va(ctx->device, ctx->base, 2 * PAGE_SIZE,
			      IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(umem), -EFAULT);
	KUNIT_EXPECT_EQ(test, ctx->charges, 1);
	KUNIT_EXPECT_EQ(test, ctx->uncharges, 1);
	KUNIT_EXPECT_EQ(test, ctx->charged, 0);
	KUNIT_EXPECT_EQ(test, umem_test_pinned_vm(), pinned_vm);
	KUNIT_EXPECT_FALSE(test, umem_test_page_pinned(test, ctx->base));
}

/* A range of 2^32 pages or more is refused with -EINVAL, uncharged. */
static void umem_test_too_long(struct kunit *test)
{
	struct umem_test_ctx *ctx = test->priv;
	struct ib_umem *umem;

	if (BITS_PER_LONG < 64)
		kunit_skip(test, "2^32 pages do not fit in a size_t");
	umem = ib_umem_get_va(ctx->device, ctx->base, (size_t)SZ_4G * PAGE_SIZE,
			      IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(umem), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->charges, 0);
}

static struct kunit_case umem_test_cases[] = {
	KUNIT_CASE_PARAM(umem_test_get_release, umem_test_range_gen_params),
	KUNIT_CASE(umem_test_iova_moved),
	KUNIT_CASE(umem_test_refused),
	KUNIT_CASE(umem_test_fault),
	KUNIT_CASE(umem_test_too_long),
	{}
};

static struct kunit_suite umem_test_suite = {
	.name = "ib_umem",
	.init = umem_test_init,
	.test_cases = umem_test_cases,
};

kunit_test_suite(umem_test_suite);
