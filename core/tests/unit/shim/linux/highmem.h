/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: nothing the code under test needs beyond <linux/kernel.h>. */
#include <linux/kernel.h>
