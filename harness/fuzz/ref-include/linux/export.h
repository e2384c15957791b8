/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REF_LINUX_EXPORT_H
#define REF_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)		extern int ref_exported_##sym
#define EXPORT_SYMBOL_GPL(sym)		EXPORT_SYMBOL(sym)

#endif
