/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzer sees of the stand-ins of shim.c, beyond the kernel
 * interfaces of kshim.h: the counters it checks after every step and the
 * file handles cgroup core would pass to a cftype's handlers.
 */
#ifndef RDMACG_MODEL_SHIM_H
#define RDMACG_MODEL_SHIM_H

#include "kshim.h"

/* cgroup core's per-open state of a file, as far as rdma.c uses it. */
struct kernfs_open_file {
	struct seq_file *seq_file;
	struct cgroup_subsys_state *css;
	struct cftype *cft;
	struct cgroup_of_peak peak;	/* of_peak(): cgroup_file_ctx.peak */
};

#include "counters.h"

#endif
