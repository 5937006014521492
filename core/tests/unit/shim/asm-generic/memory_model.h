/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the memory model lives in <linux/mm.h>. */
#include <linux/mm.h>
