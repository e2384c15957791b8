/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's own header. */
#include "../../../../include/linux/cgroup_rdma.h"
