/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_LIMITS_H
#define REF_LINUX_LIMITS_H

#include <limits.h>
#include <stdint.h>

#define U64_MAX		UINT64_MAX

#endif
