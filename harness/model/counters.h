/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of the stand-ins (shim.c) that the fuzzer checks after every
 * step, without the kernel types of kshim.h, which fuzz.c does not use.
 */
#ifndef RDMACG_MODEL_COUNTERS_H
#define RDMACG_MODEL_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

extern long kshim_allocs;		/* kzalloc()s not yet kfree()d */
extern int kshim_warnings;		/* WARNs so far */
extern int kshim_rcu_depth;		/* RCU read-side sections entered */
extern int kshim_spins;			/* spinlocks held */
extern long kshim_grace_periods;
extern bool kshim_ida_fail;		/* the next ida_alloc()s fail */
extern char kshim_logbuf[4096];		/* the kernel log since last cleared */
extern size_t kshim_loglen;

void kshim_grace_period(void);

#endif
