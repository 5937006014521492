/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim for include/linux/pfn.h (copies). */
#ifndef _SHIM_LINUX_PFN_H
#define _SHIM_LINUX_PFN_H

#include <asm/page.h>

#define PFN_ALIGN(x)	(((unsigned long)(x) + (PAGE_SIZE - 1)) & PAGE_MASK)
#define PFN_UP(x)	(((x) + PAGE_SIZE - 1) >> PAGE_SHIFT)
#define PFN_DOWN(x)	((x) >> PAGE_SHIFT)
#define PFN_PHYS(x)	((phys_addr_t)(x) << PAGE_SHIFT)
#define PHYS_PFN(x)	((unsigned long)((x) >> PAGE_SHIFT))

#endif
