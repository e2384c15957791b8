// SPDX-License-Identifier: GPL-2.0
/*
 * rdmacg_bench: micro-benchmark of the RDMA cgroup controller.
 *
 * Uses only the interface that upstream's controller and ours share
 * (rdmacg_register_device(), rdmacg_unregister_device(), rdmacg_try_charge(),
 * rdmacg_uncharge(), and struct rdmacg_device with only .name set), so the
 * same file is built into both kernels. The harness copies it to
 * kernel/cgroup/rdmacg_bench.c of the benchmark trees only; it is not part
 * of the patch series.  Only with RDMACG_BENCH_MR_MEM defined (by
 * harness/bench/build.sh, for our kernel: upstream has no mr_mem) is
 * res=mr_mem there, which times rdmacg_try_charge_mem() +
 * rdmacg_uncharge_mem() as ib_umem charges a pin.
 *
 * debugfs interface, /sys/kernel/debug/rdmacg_bench/:
 *
 *   devices  write K: unregister the bench devices, register K new ones
 *            (rcgb0 .. rcgbK-1); read: K.
 *   run      write a command, then read its result from the same open file.
 *            The charges go to the cgroup of the writing task.
 *            Command: space-separated KEY=VALUE, all optional:
 *              iters=N        pairs to time (default 100000)
 *              duration_ms=D  instead of iters, run for D ms
 *              res=object|handle|mr_mem   resource charged (default
 *                             object); mr_mem: bytes=N (default 65536)
 *                             charged and uncharged to the task's cgroup
 *                             as ib_umem_get() charges a pin, beside an
 *                             hca_object charge held for the whole run,
 *                             as an MR's is
 *              pin=none|one|all    before timing, hold one hca_handle charge
 *                             on the last device (one, the default) or on
 *                             every device in registration order (all), so
 *                             that the pools exist and, with upstream's
 *                             controller, are not freed when the timed
 *                             charge is returned
 *              sync=W         start only when W writers have arrived
 *              warmup=N       untimed pairs before timing (default 1000;
 *                             0 for a cold first charge)
 *              mode=pairs|pools|calib
 *            mode=pairs times try_charge + uncharge of res on the last
 *            registered device and reports
 *              "ok pairs=N ns=T ps_per_pair=P pairs_per_s=R start=T0 end=T1 cpu=C"
 *            mode=pools charges hca_handle once on every device, held, and
 *            reports the slab memory that took:
 *              "ok charges=K slab_bytes=B"
 *            mode=calib times iters rounds of the building blocks of the
 *            two controllers (see bench_calib()), in picoseconds each:
 *              "ok loop_ps=.. atomic_pair_ps=.. xa_load_ps=.. mutex_pair_ps=.. plain_pair_ps=.."
 *            Errors: "err=ERRNO at=WHERE".
 *   slab     read: bytes of slab memory in use (reclaimable + not), with
 *            the per-CPU deltas of the vmstat counters folded in.
 */

#include <linux/atomic.h>
#include <linux/cgroup_rdma.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#define BENCH_MAX_DEVICES	8192
#define BENCH_RESULT_LEN	256
#define BENCH_CMD_LEN		256
#define BENCH_CHECK_EVERY	256
#define BENCH_SYNC_TIMEOUT_S	20

struct bench_dev {
	struct rdmacg_device	dev;
	char			name[16];
};

/* The registered bench devices; runs hold it for read. */
static DECLARE_RWSEM(bench_devs_sem);
static struct bench_dev *bench_devs;
static unsigned int bench_ndevs;

/* Start barrier of concurrent runs (sync=W). */
static atomic_t bench_bar_count = ATOMIC_INIT(0);
static atomic_t bench_bar_gen = ATOMIC_INIT(0);

struct bench_cmd {
	u64	iters;
	u64	bytes;
	u64	duration_ms;
	u64	warmup;
	u32	sync;
	enum rdmacg_resource_type res;
	enum { PIN_NONE, PIN_ONE, PIN_ALL } pin;
	enum { MODE_PAIRS, MODE_POOLS, MODE_CALIB } mode;
};

static void bench_devs_release(void)
{
	unsigned int i;

	for (i = 0; i < bench_ndevs; i++)
		rdmacg_unregister_device(&bench_devs[i].dev);
	kfree(bench_devs);
	bench_devs = NULL;
	bench_ndevs = 0;
}

static int bench_devs_set(unsigned int k)
{
	unsigned int i;
	int ret = 0;

	if (k > BENCH_MAX_DEVICES)
		return -E2BIG;
	down_write(&bench_devs_sem);
	bench_devs_release();
	atomic_set(&bench_bar_count, 0);
	if (k) {
		/* Zeroed: we own .name only, the controller the rest. */
		bench_devs = kcalloc(k, sizeof(*bench_devs), GFP_KERNEL);
		if (!bench_devs) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < k; i++) {
			snprintf(bench_devs[i].name, sizeof(bench_devs[i].name),
				 "rcgb%u", i);
			bench_devs[i].dev.name = bench_devs[i].name;
			rdmacg_register_device(&bench_devs[i].dev);
		}
		bench_ndevs = k;
	}
out:
	up_write(&bench_devs_sem);
	return ret;
}

/* Slab pages in use, exact: global counters plus every CPU's pending delta. */
static long bench_slab_bytes(void)
{
	static const enum node_stat_item items[] = {
		NR_SLAB_RECLAIMABLE_B, NR_SLAB_UNRECLAIMABLE_B,
	};
	struct pglist_data *pgdat;
	long pages = 0;
	int i, cpu;

	for (i = 0; i < ARRAY_SIZE(items); i++)
		pages += global_node_page_state_pages(items[i]);
#ifdef CONFIG_SMP
	for_each_online_pgdat(pgdat)
		for_each_online_cpu(cpu)
			for (i = 0; i < ARRAY_SIZE(items); i++)
				pages += per_cpu_ptr(pgdat->per_cpu_nodestats,
						     cpu)->vm_node_stat_diff[items[i]];
#endif
	return pages << PAGE_SHIFT;
}

/* Wait until @w writers have arrived. */
static int bench_barrier(u32 w)
{
	int gen = atomic_read(&bench_bar_gen);
	unsigned long deadline = jiffies + BENCH_SYNC_TIMEOUT_S * HZ;

	if (w <= 1)
		return 0;
	if (atomic_inc_return(&bench_bar_count) == w) {
		atomic_set(&bench_bar_count, 0);
		atomic_inc(&bench_bar_gen);
		return 0;
	}
	while (atomic_read(&bench_bar_gen) == gen) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		cpu_relax();
		cond_resched();
	}
	return 0;
}

/* res=mr_mem: pages pinned for the device */
#define BENCH_RES_MR_MEM	RDMACG_RESOURCE_MAX

/* The words of res=, pin= and mode=, indexed by the value they select. */
static const char *const bench_res_names[] = {
	[RDMACG_RESOURCE_HCA_HANDLE]	= "handle",
	[RDMACG_RESOURCE_HCA_OBJECT]	= "object",
#ifdef RDMACG_BENCH_MR_MEM
	[BENCH_RES_MR_MEM]		= "mr_mem",
#endif
};

static const char *const bench_pin_names[] = {
	[PIN_NONE] = "none", [PIN_ONE] = "one", [PIN_ALL] = "all",
};

static const char *const bench_mode_names[] = {
	[MODE_PAIRS] = "pairs", [MODE_POOLS] = "pools", [MODE_CALIB] = "calib",
};

/* Set *@i to the index of @val in @names; -EINVAL if it is not there. */
static int bench_word(const char *val, const char *const *names, size_t n,
		      int *i)
{
	*i = match_string(names, n, val);
	return *i < 0 ? -EINVAL : 0;
}

static int bench_parse(char *buf, struct bench_cmd *cmd)
{
	char *tok, *val;
	int ret, i;

	*cmd = (struct bench_cmd) {
		.iters = 100000,
		.bytes = 65536,
		.warmup = 1000,
		.res = RDMACG_RESOURCE_HCA_OBJECT,
		.pin = PIN_ONE,
		.mode = MODE_PAIRS,
	};
	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "iters")) {
			ret = kstrtou64(val, 0, &cmd->iters);
		} else if (!strcmp(tok, "bytes")) {
			ret = kstrtou64(val, 0, &cmd->bytes);
		} else if (!strcmp(tok, "duration_ms")) {
			ret = kstrtou64(val, 0, &cmd->duration_ms);
		} else if (!strcmp(tok, "warmup")) {
			ret = kstrtou64(val, 0, &cmd->warmup);
		} else if (!strcmp(tok, "sync")) {
			ret = kstrtou32(val, 0, &cmd->sync);
		} else if (!strcmp(tok, "res")) {
			ret = bench_word(val, bench_res_names,
					 ARRAY_SIZE(bench_res_names), &i);
			if (!ret)
				cmd->res = i;
		} else if (!strcmp(tok, "pin")) {
			ret = bench_word(val, bench_pin_names,
					 ARRAY_SIZE(bench_pin_names), &i);
			if (!ret)
				cmd->pin = i;
		} else if (!strcmp(tok, "mode")) {
			ret = bench_word(val, bench_mode_names,
					 ARRAY_SIZE(bench_mode_names), &i);
			if (!ret)
				cmd->mode = i;
		} else {
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Charge hca_handle once on devices [first, last); returns how many held. */
static unsigned int bench_hold(struct rdma_cgroup **held, unsigned int first,
			       unsigned int last, int *err)
{
	unsigned int i, n = 0;

	*err = 0;
	for (i = first; i < last; i++, n++) {
		*err = rdmacg_try_charge(&held[n], &bench_devs[i].dev,
					 RDMACG_RESOURCE_HCA_HANDLE);
		if (*err)
			break;
	}
	return n;
}

static void bench_release(struct rdma_cgroup **held, unsigned int first,
			  unsigned int n)
{
	while (n--)
		rdmacg_uncharge(held[n], &bench_devs[first + n].dev,
				RDMACG_RESOURCE_HCA_HANDLE);
}

/*
 * After @done pairs: every BENCH_CHECK_EVERY pairs, let other tasks run and
 * tell whether @deadline (ktime ns, 0 for none) has passed.
 */
static inline bool bench_pause(u64 done, u64 deadline)
{
	if (done % BENCH_CHECK_EVERY)
		return false;
	cond_resched();
	return deadline && ktime_get_ns() >= deadline;
}

/*
 * The timed loops are noinline: the hca_* loop is the same code in ours
 * and upstream's kernel whatever the compiler makes of the mr_mem one.
 */
static noinline int bench_loop(struct rdmacg_device *dev,
			       enum rdmacg_resource_type res, u64 iters,
			       u64 deadline, u64 *done)
{
	struct rdma_cgroup *cg;
	int ret = 0;
	u64 i;

	for (i = 0; i < iters;) {
		ret = rdmacg_try_charge(&cg, dev, res);
		if (ret)
			break;
		rdmacg_uncharge(cg, dev, res);
		if (bench_pause(++i, deadline))
			break;
	}
	*done = i;
	return ret;
}

#ifdef RDMACG_BENCH_MR_MEM
/*
 * Pairs of @bytes of mr_mem, charged to the task's cgroup as ib_umem_get()
 * charges a pin, while an hca_object charge (an MR's) is held there.
 */
static noinline int bench_loop_mr_mem(struct rdmacg_device *dev, u64 bytes,
				      u64 iters, u64 deadline, u64 *done)
{
	unsigned long npages = DIV_ROUND_UP(bytes, PAGE_SIZE);
	struct rdma_cgroup *cg;
	int ret = 0;
	u64 i;

	for (i = 0; i < iters;) {
		cg = NULL;
		ret = rdmacg_try_charge_mem(&cg, dev, npages);
		if (ret)
			break;
		rdmacg_uncharge_mem(cg, dev, npages);
		if (bench_pause(++i, deadline))
			break;
	}
	*done = i;
	return ret;
}
#endif

/* @iters pairs of @cmd's resource */
static int bench_pairs(struct rdmacg_device *dev, const struct bench_cmd *cmd,
		       u64 iters, u64 deadline, u64 *done)
{
#ifdef RDMACG_BENCH_MR_MEM
	if (cmd->res == BENCH_RES_MR_MEM)
		return bench_loop_mr_mem(dev, cmd->bytes, iters, deadline,
					 done);
#endif
	return bench_loop(dev, cmd->res, iters, deadline, done);
}

/* picoseconds per iteration of a loop that ran @n times from @t0 */
static u64 bench_ps(u64 t0, u64 n)
{
	return div64_u64((ktime_get_ns() - t0) * 1000, n);
}

/*
 * What the building blocks of either controller cost on this machine (under
 * TCG they do not cost what they cost on hardware): one level of a lock-free
 * charge + uncharge (a cmpxchg and an atomic decrement), an xa_load() from
 * a one-entry xarray, an uncontended mutex_lock() + mutex_unlock(), and a
 * plain increment + decrement through a pointer.
 */
static void bench_calib(u64 n, char *out)
{
	static DEFINE_MUTEX(mutex);
	u64 t0, empty, atomics, xa, mtx, plain, i;
	struct xarray xarr;
	atomic_t a = ATOMIC_INIT(0);
	int v, *p = &v;
	void *entry;

	xa_init(&xarr);
	if (xa_err(xa_store(&xarr, 0, &v, GFP_KERNEL))) {
		snprintf(out, BENCH_RESULT_LEN, "err=%d at=calib\n", -ENOMEM);
		return;
	}
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		barrier();
	empty = bench_ps(t0, n);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		v = atomic_read(&a);
		atomic_try_cmpxchg(&a, &v, v + 1);
		atomic_dec_return(&a);
	}
	atomics = bench_ps(t0, n);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		entry = xa_load(&xarr, 0);
		OPTIMIZER_HIDE_VAR(entry);
	}
	xa = bench_ps(t0, n);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		mutex_lock(&mutex);
		mutex_unlock(&mutex);
	}
	mtx = bench_ps(t0, n);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		OPTIMIZER_HIDE_VAR(p);
		WRITE_ONCE(*p, READ_ONCE(*p) + 1);
		OPTIMIZER_HIDE_VAR(p);
		WRITE_ONCE(*p, READ_ONCE(*p) - 1);
	}
	plain = bench_ps(t0, n);
	xa_destroy(&xarr);
	snprintf(out, BENCH_RESULT_LEN,
		 "ok loop_ps=%llu atomic_pair_ps=%llu xa_load_ps=%llu mutex_pair_ps=%llu plain_pair_ps=%llu\n",
		 empty, atomics, xa, mtx, plain);
}

static void bench_run(const struct bench_cmd *cmd, char *out)
{
	struct rdma_cgroup **held = NULL, *mr_cg = NULL;
	unsigned int first, nheld = 0;
	struct rdmacg_device *dev;
	u64 t0, t1, pairs = 0, ns, iters, deadline;
	long slab0, slab1;
	const char *at;
	int ret, cpu;

	if (cmd->mode == MODE_CALIB) {
		bench_calib(cmd->iters ?: 1, out);
		return;
	}

	down_read(&bench_devs_sem);
	at = "devices";
	ret = -ENODEV;
	if (!bench_ndevs)
		goto err;
	dev = &bench_devs[bench_ndevs - 1].dev;

	at = "alloc";
	ret = -ENOMEM;
	held = kcalloc(bench_ndevs, sizeof(*held), GFP_KERNEL);
	if (!held)
		goto err;

	if (cmd->mode == MODE_POOLS) {
		at = "charge";
		/*
		 * Count what is in use, not what waits for kfree_rcu()'s
		 * batching (seconds): ours frees a replaced pool table so.
		 */
		kvfree_rcu_barrier();
		slab0 = bench_slab_bytes();
		nheld = bench_hold(held, 0, bench_ndevs, &ret);
		kvfree_rcu_barrier();
		slab1 = bench_slab_bytes();
		bench_release(held, 0, nheld);
		if (ret)
			goto err;
		snprintf(out, BENCH_RESULT_LEN, "ok charges=%u slab_bytes=%ld\n",
			 nheld, slab1 - slab0);
		goto out;
	}

	at = "pin";
	first = cmd->pin == PIN_ALL ? 0 : bench_ndevs - 1;
	if (cmd->pin != PIN_NONE) {
		nheld = bench_hold(held, first, bench_ndevs, &ret);
		if (ret)
			goto err;
	}
#ifdef RDMACG_BENCH_MR_MEM
	if (cmd->res == BENCH_RES_MR_MEM) {
		/* What an MR's uobject holds beside the pin */
		at = "held";
		ret = rdmacg_try_charge(&mr_cg, dev, RDMACG_RESOURCE_HCA_OBJECT);
		if (ret) {
			mr_cg = NULL;
			goto err;
		}
	}
#endif
	at = "warmup";
	ret = bench_pairs(dev, cmd, cmd->warmup, 0, &pairs);
	if (ret)
		goto err;
	at = "sync";
	ret = bench_barrier(cmd->sync);
	if (ret)
		goto err;

	at = "charge";
	iters = cmd->duration_ms ? U64_MAX : cmd->iters;
	cpu = raw_smp_processor_id();
	t0 = ktime_get_ns();
	deadline = cmd->duration_ms ? t0 + cmd->duration_ms * NSEC_PER_MSEC : 0;
	ret = bench_pairs(dev, cmd, iters, deadline, &pairs);
	t1 = ktime_get_ns();
	if (ret)
		goto err;

	ns = t1 - t0;
	snprintf(out, BENCH_RESULT_LEN,
		 "ok pairs=%llu ns=%llu ps_per_pair=%llu pairs_per_s=%llu start=%llu end=%llu cpu=%d\n",
		 pairs, ns, pairs ? div64_u64(ns * 1000, pairs) : 0,
		 ns ? div64_u64(pairs * NSEC_PER_SEC, ns) : 0, t0, t1, cpu);
	goto out;
err:
	snprintf(out, BENCH_RESULT_LEN, "err=%d at=%s\n", ret, at);
out:
	if (mr_cg)
		rdmacg_uncharge(mr_cg, dev, RDMACG_RESOURCE_HCA_OBJECT);
	if (nheld && cmd->mode == MODE_PAIRS)
		bench_release(held, first, nheld);
	kfree(held);
	up_read(&bench_devs_sem);
}

static int bench_run_open(struct inode *inode, struct file *file)
{
	char *out = kzalloc(BENCH_RESULT_LEN, GFP_KERNEL);

	if (!out)
		return -ENOMEM;
	strscpy(out, "none\n", BENCH_RESULT_LEN);
	file->private_data = out;
	return 0;
}

static int bench_run_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct bench_cmd cmd;
	char buf[BENCH_CMD_LEN];
	int ret;

	if (count >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = bench_parse(buf, &cmd);
	if (ret)
		return ret;
	bench_run(&cmd, file->private_data);
	/* The result is read from its start. */
	*ppos = 0;
	return count;
}

/* The result of the last command written to this open file. */
static ssize_t bench_run_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const char *out = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, out, strlen(out));
}

static const struct file_operations bench_run_fops = {
	.owner		= THIS_MODULE,
	.open		= bench_run_open,
	.release	= bench_run_release,
	.read		= bench_run_read,
	.write		= bench_run_write,
};

static ssize_t bench_devices_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	unsigned int k;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &k);
	if (ret)
		return ret;
	ret = bench_devs_set(k);
	return ret ?: count;
}

static ssize_t bench_devices_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(bench_ndevs));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_devices_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_devices_read,
	.write	= bench_devices_write,
};

static ssize_t bench_slab_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[32];
	int len;

	len = scnprintf(buf, sizeof(buf), "%ld\n", bench_slab_bytes());
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_slab_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_slab_read,
};

static int __init rdmacg_bench_init(void)
{
	struct dentry *dir = debugfs_create_dir("rdmacg_bench", NULL);

	debugfs_create_file("run", 0600, dir, NULL, &bench_run_fops);
	debugfs_create_file("devices", 0600, dir, NULL, &bench_devices_fops);
	debugfs_create_file("slab", 0400, dir, NULL, &bench_slab_fops);
	return 0;
}
late_initcall(rdmacg_bench_init);
