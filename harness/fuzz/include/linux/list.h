/* SPDX-License-Identifier: GPL-2.0 */
/* Only needed under CONFIG_CGROUP_RDMA. */
