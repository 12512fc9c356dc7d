// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - NVMe commands: the 64-byte submission entry as the driver
 * built it (nvme_setup_cmd) and the completion status and dword 0
 * (nvme_complete_rq).
 */
#include <linux/kernel.h>
#include <linux/blk-mq.h>
#include <linux/nvme.h>
#include <linux/string.h>
#include "iotrace.h"
#include "cmd.h"

/* Bytes 16-39 of an entry: MPTR, then PRP1/PRP2 or the SGL descriptor. */
#define IOTRACE_NVME_ADDR_OFF	16
#define IOTRACE_NVME_ADDR_LEN	24
/*
 * Admin Set Features, Host Memory Buffer (FID 0x0d): CDW13-14 (bytes
 * 52-59) are the bus address of the descriptor list (HMDLLA/HMDLUA,
 * nvme-pci's nvme_set_host_mem()).
 */
#define IOTRACE_NVME_FID_HMB	0x0d
#define IOTRACE_NVME_HMB_ADDR_OFF	52
#define IOTRACE_NVME_HMB_ADDR_LEN	8

/*
 * Zero what may hold an address in a copy of entry @sqe: MPTR and the
 * data pointer of every command, and the command-specific fields known to
 * carry one (Documentation/abi.rst lists them).  @admin: an admin-queue
 * command (opcodes are per queue type).
 */
static void iotrace_nvme_strip(u8 *sqe, bool admin)
{
	const struct nvme_command *c = (const struct nvme_command *)sqe;

	memset(sqe + IOTRACE_NVME_ADDR_OFF, 0, IOTRACE_NVME_ADDR_LEN);
	if (admin && c->common.opcode == nvme_admin_set_features &&
	    (le32_to_cpu(c->features.fid) & 0xff) == IOTRACE_NVME_FID_HMB)
		memset(sqe + IOTRACE_NVME_HMB_ADDR_OFF, 0,
		       IOTRACE_NVME_HMB_ADDR_LEN);
}

/**
 * struct iotrace_nvme_req_head - the first members of the nvme driver's
 *	private struct nvme_request, which every NVMe request's PDU starts with.
 * @cmd: the command (not used: an address).
 * @result: completion dword 0 (and 1), as the controller returned it.
 * @genctr: command id generation counter.
 * @retries: driver retries.
 * @flags: NVME_REQ_* flags.
 * @status: completion status field shifted right by one (phase tag
 *	dropped): SC 7:0, SCT 10:8, CRD 12:11, M 13, DNR 14; or a host-side
 *	status the driver made up (e.g. aborted by a reset).
 *
 * Checked identical up to @status in Debian's 6.1.y and 6.12.y
 * drivers/nvme/host/nvme.h (6.12 adds members only after @status).  Read
 * only when IOTRACE_NVME_REQ_VERIFIED.
 */
struct iotrace_nvme_req_head {
	struct nvme_command	*cmd;
	union nvme_result	result;
	u8			genctr;
	u8			retries;
	u8			flags;
	u16			status;
};

#define IOTRACE_NVME_STATUS_MASK	0x7fff

/**
 * iotrace_nvme_status_supported() - whether NVMe status is recorded.
 *
 * Return: true on a kernel whose struct nvme_request layout was verified.
 */
bool iotrace_nvme_status_supported(void)
{
	return IOTRACE_NVME_REQ_VERIFIED;
}

/**
 * iotrace_nvme_setup_cmd() - probe on nvme_setup_cmd: capture the entry.
 * @data: unused.
 * @rq: the request (I/O, passthrough or admin: the controller's ring).
 * @cmd: the submission entry, data pointers not filled in yet.
 *
 * The copy has its metadata and data pointer fields zeroed whatever they
 * hold, and the command-specific fields that carry an address
 * (iotrace_nvme_strip()): no kernel or bus address reaches the ring.  The
 * command id (bytes 2-3) is the driver's and kept.
 */
void iotrace_nvme_setup_cmd(void *data, struct request *rq,
			    struct nvme_command *cmd)
{
	u8 sqe[IOTRACE_CMD_LEN];

	BUILD_BUG_ON(sizeof(struct nvme_command) != IOTRACE_CMD_LEN);
	memcpy(sqe, cmd, sizeof(sqe));
	iotrace_nvme_strip(sqe, !rq->q->disk);
	/* Admin-queue requests have no disk: their controller's ring. */
	iotrace_note_cmd(rq, IOTRACE_CMD_NVME, sqe, sizeof(sqe),
			 rq->q->disk ? 0 : IOTRACE_RF_ADMIN);
}

/**
 * iotrace_nvme_complete_rq() - probe on nvme_complete_rq: the status.
 * @data: unused.
 * @rq: the request, before the block layer completes (or retries) it.
 */
void iotrace_nvme_complete_rq(void *data, struct request *rq)
{
	const struct iotrace_nvme_req_head *nr;
	u16 status;

	if (!IOTRACE_NVME_REQ_VERIFIED)
		return;
	nr = blk_mq_rq_to_pdu(rq);
	status = READ_ONCE(nr->status) & IOTRACE_NVME_STATUS_MASK;
	iotrace_note_status(rq, status, le32_to_cpu(nr->result.u32),
			    status ? IOTRACE_RF_ERROR : 0);
}
