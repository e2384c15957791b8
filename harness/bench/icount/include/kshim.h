/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-ins for the kernel interfaces that kernel/cgroup/rdma.c (ours and
 * upstream's) uses, so that the charge paths build as user-space code and
 * valgrind can count their instructions (harness/bench/icount/run.sh).
 * Atomics are the compiler's __atomic builtins (on x86-64 the same lock
 * instructions as the kernel's); RCU read-side sections are empty, as in
 * a CONFIG_PREEMPT_NONE kernel; a mutex is one cmpxchg to lock and one to
 * unlock, its uncontended fast path; a css reference is a counter
 * changed in an out-of-line function, as the kernel's per-CPU reference
 * is. Nothing here is thread-safe beyond the atomics: the driver is
 * single-threaded.
 *
 * With KSHIM_MODEL defined (harness/model/, the reference-model fuzzer),
 * the same headers check instead of count: RCU read-side sections, locks
 * and lockdep assertions are tracked, call_rcu() and kfree_rcu*() defer
 * the free to the next simulated grace period (so that AddressSanitizer
 * sees a use after a too-early free), ids are reused as the IDA reuses
 * them, and the kernel log is captured. Those parts are out of line, in
 * harness/model/shim.c.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;

#define U64_MAX		UINT64_MAX
#define U32_MAX		UINT32_MAX
#define S32_MAX		INT32_MAX
#define S64_MAX		INT64_MAX
#define GFP_KERNEL	0u
#define GFP_KERNEL_ACCOUNT 0u

#undef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#define noinline	__attribute__((__noinline__))
#define __cold		__attribute__((__cold__))
#define __rcu
#define __counted_by(x)
#define __must_check
#define __init
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define EXPORT_SYMBOL(x)
#define KUNIT_STATIC_STUB_REDIRECT(...)	do { } while (0)
#define BIT(n)		(1UL << (n))
#undef static_assert
#define static_assert(e, ...) _Static_assert(e, #e)
#define BITS_PER_LONG	64
#define PAGE_SIZE	4096UL
#define round_down(x, y) ((x) & ~(__typeof__(x))((y) - 1))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define READ_ONCE(x)	(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb__before_atomic() barrier()
#define smp_load_acquire(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define cpu_relax()	barrier()
#define WARN_ON_ONCE(c)	({ bool __c = !!(c); if (__c) kshim_warn(__FILE__, __LINE__); __c; })
#define WARN_ON(c)	WARN_ON_ONCE(c)
#define WARN_ONCE(c, ...) WARN_ON_ONCE(c)
#define cond_resched()	do { } while (0)

void kshim_warn(const char *file, int line);

#ifdef KSHIM_MODEL
void kshim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kshim_might_sleep(const char *file, int line);
#define pr_warn(...)	kshim_log(__VA_ARGS__)
#define might_sleep()	kshim_might_sleep(__FILE__, __LINE__)
/* Which lock a lockdep assertion names decides how it is checked. */
#define lockdep_is_held(l)						\
	_Generic((l), struct mutex *: kshim_mutex_held,			\
		 spinlock_t *: kshim_spin_held)(l)
#define lockdep_assert_held(l)	WARN_ON(!lockdep_is_held(l))
#define lockdep_assert(c)	WARN_ON(!(c))
#else
#define pr_warn(...)	fprintf(stderr, __VA_ARGS__)
#define lockdep_assert_held(l)	do { } while (0)
#define lockdep_assert(c)	do { } while (0)
#define lockdep_is_held(l)	1
#define might_sleep()	do { } while (0)
#endif

/* err.h */
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long e) { return (void *)e; }
static inline long PTR_ERR(const void *p) { return (long)p; }
static inline bool IS_ERR(const void *p) { return IS_ERR_VALUE((unsigned long)p); }
static inline bool IS_ERR_OR_NULL(const void *p) { return !p || IS_ERR(p); }
static inline void *ERR_CAST(const void *p) { return (void *)p; }
static inline int PTR_ERR_OR_ZERO(const void *p) { return IS_ERR(p) ? (int)PTR_ERR(p) : 0; }

/* atomics */
typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;
#define ATOMIC_INIT(i)	{ (i) }
#define KSHIM_ATOMIC(pfx, T, V)						\
static __always_inline V pfx##_read(const T *v) { return READ_ONCE(v->counter); } \
static __always_inline V pfx##_read_acquire(const T *v) { return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); } \
static __always_inline void pfx##_set(T *v, V i) { WRITE_ONCE(v->counter, i); } \
static __always_inline void pfx##_add(V i, T *v) { __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); } \
static __always_inline void pfx##_sub(V i, T *v) { __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); } \
static __always_inline void pfx##_inc(T *v) { pfx##_add(1, v); }		\
static __always_inline void pfx##_dec(T *v) { pfx##_sub(1, v); }		\
static __always_inline V pfx##_fetch_sub(V i, T *v) { return __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); } \
static __always_inline V pfx##_fetch_add(V i, T *v) { return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); } \
static __always_inline V pfx##_sub_return(V i, T *v) { return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); } \
static __always_inline V pfx##_add_return(V i, T *v) { return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); } \
static __always_inline V pfx##_xchg(T *v, V i) { return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST); } \
static __always_inline V pfx##_dec_return(T *v) { return pfx##_sub_return(1, v); } \
static __always_inline V pfx##_inc_return(T *v) { return pfx##_add_return(1, v); } \
static __always_inline bool pfx##_try_cmpxchg(T *v, V *old, V new)		\
{ return __atomic_compare_exchange_n(&v->counter, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
KSHIM_ATOMIC(atomic, atomic_t, int)
KSHIM_ATOMIC(atomic64, atomic64_t, s64)

/* bitops */
static inline unsigned long kshim_next_bit(const unsigned long *a, unsigned long size,
					   unsigned long from)
{
	for (; from < size; from++)
		if (*a & BIT(from))
			return from;
	return size;
}
#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = kshim_next_bit((addr), (size), 0); (bit) < (size);	\
	     (bit) = kshim_next_bit((addr), (size), (bit) + 1))

/* overflow.h, slab.h */
#define struct_size(p, member, n) (sizeof(*(p)) + sizeof((p)->member[0]) * (n))
static inline size_t kmalloc_size_roundup(size_t s)
{
	size_t b = 8;

	while (b < s)
		b <<= 1;
	return b;
}
void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
/* 7.3's typed allocators (upstream's rdma.c), GFP_KERNEL only. */
#define kzalloc_obj(P, ...)	((typeof(P) *)kzalloc(sizeof(typeof(P)), GFP_KERNEL))
#define kzalloc_objs(P, COUNT, ...) \
	((typeof(P) *)kcalloc((COUNT), sizeof(typeof(P)), GFP_KERNEL))
void *krealloc_array(void *p, size_t n, size_t size, gfp_t gfp);
void kfree(const void *p);
#ifdef KSHIM_MODEL
void kshim_kfree_rcu(const void *p);
#define kfree_rcu_mightsleep(p)	kshim_kfree_rcu(p)
#else
#define kfree_rcu_mightsleep(p)	kfree(p)
#endif

/* list.h */
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(n) { &(n), &(n) }
#define LIST_HEAD(n)	struct list_head n = LIST_HEAD_INIT(n)
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l->prev = l; }
static inline void __list_add(struct list_head *n, struct list_head *p, struct list_head *x)
{ x->prev = n; n->next = x; n->prev = p; p->next = n; }
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void list_del(struct list_head *e) { e->next->prev = e->prev; e->prev->next = e->next; }
static inline void list_del_init(struct list_head *e) { list_del(e); INIT_LIST_HEAD(e); }
static inline bool list_empty(const struct list_head *h) { return h->next == h; }
static inline void list_splice_init(struct list_head *l, struct list_head *h)
{
	if (list_empty(l))
		return;
	l->next->prev = h; l->prev->next = h->next; h->next->prev = l->prev; h->next = l->next;
	INIT_LIST_HEAD(l);
}
#define list_entry(p, t, m)	container_of(p, t, m)
#define list_first_entry(h, t, m) list_entry((h)->next, t, m)
#define list_next_entry(p, m)	list_entry((p)->m.next, __typeof__(*(p)), m)
#define list_for_each_entry(p, h, m)					\
	for (p = list_first_entry(h, __typeof__(*p), m); &p->m != (h);	\
	     p = list_next_entry(p, m))
#define list_for_each_entry_safe(p, n, h, m)				\
	for (p = list_first_entry(h, __typeof__(*p), m),			\
	     n = list_next_entry(p, m); &p->m != (h);			\
	     p = n, n = list_next_entry(n, m))

/* locks */
struct mutex { long owner; };
#define DEFINE_MUTEX(m)	struct mutex m = { 0 }
#define mutex_init(m)	((m)->owner = 0)
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
typedef struct { int l; } spinlock_t;
#define spin_lock_init(s)	((s)->l = 0)
#ifdef KSHIM_MODEL
void spin_lock(spinlock_t *s);
void spin_unlock(spinlock_t *s);
static inline bool kshim_mutex_held(struct mutex *m) { return m->owner; }
static inline bool kshim_spin_held(spinlock_t *s) { return s->l; }
#else
#define spin_lock(s)	do { } while (0)
#define spin_unlock(s)	do { } while (0)
#endif

/* RCU, as in a kernel without preemption */
struct rcu_head { struct rcu_head *next; void (*func)(struct rcu_head *); };
#ifdef KSHIM_MODEL
extern int kshim_rcu_depth;
void rcu_read_lock(void);
void rcu_read_unlock(void);
void synchronize_rcu(void);
void call_rcu(struct rcu_head *h, void (*f)(struct rcu_head *));
/* As CONFIG_PROVE_RCU: a protected pointer read outside its protection. */
#define rcu_dereference_check(p, c)					\
	({ WARN_ON(!(c) && !kshim_rcu_depth); READ_ONCE(p); })
#define rcu_dereference(p)	rcu_dereference_check(p, 0)
#define rcu_dereference_protected(p, c) ({ WARN_ON(!(c)); (p); })
#else
#define rcu_read_lock()		barrier()
#define rcu_read_unlock()	barrier()
#define rcu_dereference(p)	READ_ONCE(p)
#define rcu_dereference_check(p, c) READ_ONCE(p)
#define rcu_dereference_protected(p, c) (p)
#define synchronize_rcu()	do { } while (0)
static inline void call_rcu(struct rcu_head *h, void (*f)(struct rcu_head *)) { f(h); }
#endif
#define rcu_access_pointer(p)	READ_ONCE(p)
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v)	WRITE_ONCE(p, v)

/* ida */
#ifdef KSHIM_MODEL
/* The lowest free id, as the IDA gives: freed ids come back. */
struct ida { unsigned long used[4]; };
#define DEFINE_IDA(n)	struct ida n = { { 0 } }
int ida_alloc(struct ida *ida, gfp_t gfp);
void ida_free(struct ida *ida, unsigned int id);
#else
struct ida { int next; };
#define DEFINE_IDA(n)	struct ida n = { 0 }
static inline int ida_alloc(struct ida *ida, gfp_t gfp) { return ida->next++; }
static inline void ida_free(struct ida *ida, unsigned int id) { }
#endif

/* cgroup */
struct cgroup { const char *path; };
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
	long refcnt;
	unsigned int flags;
};
/* The kernel's writes the kernfs path; no kernfs node reads "(null)". */
static inline int cgroup_path(struct cgroup *cgrp, char *buf, size_t len)
{
	return snprintf(buf, len, "%s", cgrp && cgrp->path ? cgrp->path : "(null)");
}
struct cgroup_file { int notified; };	/* by the model's stand-in */
struct seq_file;
struct kernfs_open_file;
struct cftype {
	char name[64];
	unsigned long private;
	int (*seq_show)(struct seq_file *sf, void *v);
	ssize_t (*write)(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t off);
	void (*release)(struct kernfs_open_file *of);
	size_t file_offset;
	unsigned int flags;
};
#define CFTYPE_NOT_ON_ROOT	1u
struct cgroup_subsys {
	struct cgroup_subsys_state *(*css_alloc)(struct cgroup_subsys_state *parent);
	void (*css_offline)(struct cgroup_subsys_state *css);
	void (*css_free)(struct cgroup_subsys_state *css);
	struct cftype *legacy_cftypes;
	struct cftype *dfl_cftypes;
};
enum { rdma_cgrp_id };
struct task_struct { struct cgroup_subsys_state *css; };
extern struct task_struct *kshim_current;
#define current kshim_current
struct cgroup_subsys_state *task_get_css(struct task_struct *t, int id);
void css_put(struct cgroup_subsys_state *css);
#define task_css(t, id)	((t)->css)
#ifdef KSHIM_MODEL
void cgroup_file_notify(struct cgroup_file *f);
#else
static inline void cgroup_file_notify(struct cgroup_file *f) { }
#endif
struct cgroup_subsys_state *of_css(struct kernfs_open_file *of);
struct cgroup_subsys_state *seq_css(struct seq_file *sf);
struct cftype *seq_cft(struct seq_file *sf);
struct cftype *of_cft(struct kernfs_open_file *of);
struct cgroup_of_peak { unsigned long value; struct list_head list; };
struct cgroup_of_peak *of_peak(struct kernfs_open_file *of);

/* seq_file, strings */
struct seq_file { char *buf; size_t size, count; void *private; };
void seq_printf(struct seq_file *m, const char *fmt, ...);
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);
char *strstrip(char *s);
int match_string(const char *const *array, size_t n, const char *string);
typedef struct { char *from, *to; } substring_t;
int match_int(substring_t *s, int *result);
/* parser.h's match_token(), which upstream 7.3's rdma.max write uses. */
struct match_token { int token; const char *pattern; };
typedef struct match_token match_table_t[];
enum { MAX_OPT_ARGS = 3 };
int match_token(char *s, const match_table_t table, substring_t args[]);
int match_uint(substring_t *s, unsigned int *result);

#endif
