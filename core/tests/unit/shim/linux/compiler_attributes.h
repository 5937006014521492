/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: everything lives in <linux/compiler.h>. */
#include <linux/compiler.h>
