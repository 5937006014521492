/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim for include/linux/mmdebug.h, as with CONFIG_DEBUG_VM=y.
 * Part 3 (test hooks): every VM_BUG_ON and VM_WARN_ON variant evaluates its condition
 * and counts a hook failure (see <linux/bug.h>) instead of crashing.
 */
#ifndef _SHIM_LINUX_MMDEBUG_H
#define _SHIM_LINUX_MMDEBUG_H

#include <linux/bug.h>

#define VM_BUG_ON(cond)			BUG_ON(cond)
#define VM_BUG_ON_PAGE(cond, page)	BUG_ON(cond)
#define VM_BUG_ON_FOLIO(cond, folio)	BUG_ON(cond)
#define VM_BUG_ON_VMA(cond, vma)	BUG_ON(cond)
#define VM_BUG_ON_MM(cond, mm)		BUG_ON(cond)
#define VM_WARN_ON(cond)		(void)WARN_ON(cond)
#define VM_WARN_ON_ONCE(cond)		(void)WARN_ON_ONCE(cond)
#define VM_WARN_ONCE(cond, ...)		(void)WARN_ONCE(cond)
#define VM_WARN(cond, ...)		(void)WARN(cond)
#define VM_WARN_ON_ONCE_PAGE(cond, page) WARN_ON_ONCE(cond)
#define VM_WARN_ON_FOLIO(cond, folio)	WARN_ON(cond)
#define VM_WARN_ON_ONCE_FOLIO(cond, folio) WARN_ON_ONCE(cond)
#define VM_BUG_ON_PGFLAGS(cond, page)	BUG_ON(cond)

#endif
