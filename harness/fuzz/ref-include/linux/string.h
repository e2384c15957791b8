/* SPDX-License-Identifier: GPL-2.0 */
#include <string.h>
#include <linux/slab.h>
