// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - SCSI commands: the CDB as dispatched to the low-level driver
 * (scsi_dispatch_cmd_start) and the SCSI status with the sense key,
 * ASC and ASCQ (scsi_dispatch_cmd_done).
 */
#include <linux/kernel.h>
#include <linux/blk-mq.h>
#include <scsi/scsi.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_proto.h>
#include <trace/events/scsi.h>
#include "iotrace.h"
#include "cmd.h"
#include "compat.h"

/**
 * iotrace_scsi_cmd_start() - probe on scsi_dispatch_cmd_start.
 * @data: unused.
 * @cmd: the command about to be queued to the low-level driver.
 *
 * Fires after block_rq_issue; the core accepts the note either way.  For a
 * libata ATA device, ata_qc_issue later replaces the CDB with the taskfile
 * the device really got (an ATAPI device gets the CDB: it is kept).
 */
void iotrace_scsi_cmd_start(void *data, struct scsi_cmnd *cmd)
{
	u8 len = min_t(unsigned int, cmd->cmd_len, IOTRACE_SCSI_CDB_MAX);

	if (!len)
		return;
	preempt_disable_notrace();
	/* ABI 2.0: bytes 32.. of the record's cmd hold the cgroup id */
	iotrace_note_cmd(scsi_cmd_to_rq(cmd), IOTRACE_CMD_SCSI,
			 iotrace_scsi_cdb(cmd), len,
			 cmd->cmd_len > len ? IOTRACE_RF_CMD_TRUNC : 0);
	preempt_enable_notrace();
}

/*
 * Sense key, ASC and ASCQ of fixed (0x70/0x71) or descriptor (0x72/0x73)
 * format sense data, in dev_status bit positions; 0 if there is none.
 * Also the ATAPI sense libata's error handler requested (cmd_ata.c).
 */
u32 iotrace_scsi_sense(const u8 *sb)
{
	u8 key, asc = 0, ascq = 0;

	switch (sb[0] & 0x7f) {
	case 0x70:
	case 0x71:
		key = sb[2] & 0x0f;
		/* Additional sense length covers ASC/ASCQ (bytes 12, 13)? */
		if (sb[7] >= 6) {
			asc = sb[12];
			ascq = sb[13];
		}
		break;
	case 0x72:
	case 0x73:
		key = sb[1] & 0x0f;
		asc = sb[2];
		ascq = sb[3];
		break;
	default:
		return 0;
	}
	return (u32)key << 8 | (u32)asc << 16 | (u32)ascq << 24;
}

/*
 * A RECOVERED ERROR with a transport that delivered it: the SCSI layer
 * completes the request as a success (scsi_io_completion_nz_result()), so
 * the record keeps the status and sense without IOTRACE_RF_ERROR.
 */
static bool iotrace_scsi_recovered(int result, u32 status)
{
	return host_byte(result) == DID_OK &&
	       (status & 0xff) == SAM_STAT_CHECK_CONDITION &&
	       ((status >> 8) & 0x0f) == RECOVERED_ERROR;
}

/**
 * iotrace_scsi_cmd_done() - probe on scsi_dispatch_cmd_done.
 * @data: unused.
 * @cmd: the command the low-level driver completed, before the block
 *	layer completes its request.
 *
 * dev_status: SCSI status byte 7:0; with CHECK CONDITION and valid sense
 * data also sense key 11:8, ASC 23:16, ASCQ 31:24.  A transport (host
 * byte) failure without a status also flags the record as an error; a
 * RECOVERED ERROR does not.
 * An ATA disk's commands are left to the ATA probes, which know the
 * device's status and error registers (iotrace_note_scsi_status()).
 */
void iotrace_scsi_cmd_done(void *data, struct scsi_cmnd *cmd)
{
	u32 status = cmd->result & 0xff;
	u16 rflags = 0;

	if (status == SAM_STAT_CHECK_CONDITION && cmd->sense_buffer)
		status |= iotrace_scsi_sense(cmd->sense_buffer);
	if (cmd->result && !iotrace_scsi_recovered(cmd->result, status))
		rflags |= IOTRACE_RF_ERROR;
	preempt_disable_notrace();
	iotrace_note_scsi_status(scsi_cmd_to_rq(cmd), status, rflags);
	preempt_enable_notrace();
}

/*
 * modtp.c registers the probes through void *: the tracepoints' own
 * prototypes (no CREATE_TRACE_POINTS: nothing is defined) check theirs at
 * compile time.
 */
static inline void iotrace_scsi_check_protos(void)
{
	check_trace_callback_type_scsi_dispatch_cmd_start(iotrace_scsi_cmd_start);
	check_trace_callback_type_scsi_dispatch_cmd_done(iotrace_scsi_cmd_done);
}
