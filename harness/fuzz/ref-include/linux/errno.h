/* SPDX-License-Identifier: GPL-2.0 */
/* The E* numbers of user space are the kernel's. */
#include_next <linux/errno.h>
