/* SPDX-License-Identifier: MIT */
/*
 * The edu device of the vfio-batch guest tests, through its vfio device
 * fd: BAR0 mapped, bus mastering on, and its DMA engine used to read a
 * page through an iova and write it back to a scratch mapping, which
 * shows that the iova reaches the page it should.  The edu device masks
 * DMA addresses to 28 bits, so these iovas stay below 256 MiB.
 */
#ifndef VFIO_EDU_H
#define VFIO_EDU_H

#include <time.h>
#include "vfio_helpers.h"

#define EDU_ID		0x00
#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_DMA_RUN	0x1
#define EDU_DMA_TO_RAM	0x2
#define EDU_BUF		0x40000
/*
 * qemu 7.2's edu rejects (as a fatal "hardware error") a transfer that ends
 * exactly at the end of its 4 KiB buffer, so a page moves in two halves.
 */
#define EDU_DMA_LEN	2048

#define DMA_IOVA	(16 * MIB)
#define SCRATCH_IOVA	(8 * MIB)

static volatile uint8_t *bar;
/* the size of the mapping of BAR0 at bar */
static size_t bar_size;

static inline uint32_t rd32(unsigned long off)
{
	return *(volatile uint32_t *)(bar + off);
}

static inline uint64_t rd64(unsigned long off)
{
	return *(volatile uint64_t *)(bar + off);
}

static inline void wr64(unsigned long off, uint64_t val)
{
	*(volatile uint64_t *)(bar + off) = val;
}

static inline int map_bar(struct vt_ctx *ctx, void *fixed)
{
	struct vfio_region_info info = {
		.argsz = sizeof(info),
		.index = VFIO_PCI_BAR0_REGION_INDEX,
	};
	void *p;

	if (ioctl(ctx->device, VFIO_DEVICE_GET_REGION_INFO, &info))
		return -errno;
	if (!(info.flags & VFIO_REGION_INFO_FLAG_MMAP) || info.size < PG)
		return -ENOTSUP;
	p = mmap(fixed, info.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | (fixed ? MAP_FIXED : 0), ctx->device,
		 info.offset);
	if (p == MAP_FAILED)
		return -errno;
	bar = p;
	bar_size = info.size;
	return 0;
}

static inline int enable_bus_master(struct vt_ctx *ctx)
{
	struct vfio_region_info info = {
		.argsz = sizeof(info),
		.index = VFIO_PCI_CONFIG_REGION_INDEX,
	};
	uint16_t cmd;

	if (ioctl(ctx->device, VFIO_DEVICE_GET_REGION_INFO, &info))
		return -errno;
	if (pread(ctx->device, &cmd, 2, info.offset + 4) != 2)
		return -EIO;
	cmd |= 0x4 | 0x2;	/* bus master, memory space */
	if (pwrite(ctx->device, &cmd, 2, info.offset + 4) != 2)
		return -EIO;
	return 0;
}

static inline int edu_dma(uint64_t src, uint64_t dst, uint64_t cmd)
{
	struct timespec ts = { 0, 1000000 };
	int i;

	wr64(EDU_DMA_SRC, src);
	wr64(EDU_DMA_DST, dst);
	wr64(EDU_DMA_CNT, EDU_DMA_LEN);
	wr64(EDU_DMA_CMD, cmd | EDU_DMA_RUN);
	for (i = 0; i < 10000; i++) {
		if (!(rd64(EDU_DMA_CMD) & EDU_DMA_RUN))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/* Check through the device that @iova + @off holds what @p + @off holds. */
static inline void dma_check_page(const char *what, uint64_t iova, const char *p,
			   size_t off, char *scratch)
{
	size_t half;

	memset(scratch, 0x5a, PG);
	for (half = 0; half < PG; half += EDU_DMA_LEN) {
		if (edu_dma(iova + off + half, EDU_BUF, 0) ||
		    edu_dma(EDU_BUF, SCRATCH_IOVA + half, EDU_DMA_TO_RAM)) {
			vt_fail("%s: edu DMA timed out at offset %zu", what,
				off + half);
			return;
		}
	}
	CHECK(!memcmp(scratch, p + off, PG),
	      "%s: device read wrong data at offset %#zx", what, off);
}

#endif /* VFIO_EDU_H */
