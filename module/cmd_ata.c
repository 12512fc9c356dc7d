// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - ATA commands through libata: the taskfile of a queued command
 * (ata_qc_issue) and the status and error registers it completed with
 * (ata_qc_complete_done / ata_qc_complete_failed).
 *
 * Only commands that carry a block request (qc->scsicmd) are recorded:
 * libata's internal commands (IDENTIFY, SET FEATURES, error handling) have
 * no request and so no record.
 *
 * An ATAPI device (a CD or DVD drive, a tape) is told SCSI commands: the
 * PACKET taskfile only carries the CDB, which the SCSI hook recorded, and
 * its status is a SCSI status with sense, which the SCSI hook records for
 * a command that succeeds.  One that fails is completed by libata's error
 * handler, past scsi_dispatch_cmd_done: its status here is CHECK
 * CONDITION with the sense key of the error register (ATAPI's CHK bit is
 * ERR), then, from ata_eh_link_autopsy_qc, the sense the handler
 * requested.  Its records are a SCSI device's throughout: an ATA
 * PASS-THROUGH sent to it keeps its CDB, which holds the taskfile.
 */
#include <linux/kernel.h>
#include <linux/blk-mq.h>
#include <linux/libata.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>
#include <trace/events/libata.h>
#include "iotrace.h"
#include "cmd.h"
#include "compat.h"

/* an ATAPI device's status is the SCSI midlayer's (see above) */
static bool iotrace_ata_atapi(const struct ata_queued_cmd *qc)
{
	return qc->dev->class == ATA_DEV_ATAPI;
}

static void iotrace_ata_tf(struct iotrace_ata_tf *o,
			   const struct ata_taskfile *tf)
{
	u64 lba = (u64)tf->lbah << 16 | (u64)tf->lbam << 8 | tf->lbal;

	if (tf->flags & ATA_TFLAG_LBA48)
		lba |= (u64)tf->hob_lbah << 40 | (u64)tf->hob_lbam << 32 |
		       (u64)tf->hob_lbal << 24;
	else if (tf->flags & ATA_TFLAG_LBA)
		lba |= (u64)(tf->device & 0x0f) << 24;
	o->command = tf->command;
	o->feature = tf->feature;
	o->hob_feature = tf->hob_feature;
	o->device = tf->device;
	o->protocol = tf->protocol;
	o->flags = tf->flags & 0xff;
	o->count = (u16)tf->hob_nsect << 8 | tf->nsect;
	o->lba = lba;
}

/**
 * iotrace_ata_qc_issue() - probe on ata_qc_issue: capture the taskfile.
 * @data: unused.
 * @qc: the queued command, about to be issued to the port.
 *
 * The registers are stored as issued: for NCQ (READ/WRITE FPDMA QUEUED)
 * the sector count is in the feature registers and count holds the tag.
 * An ATAPI device's command keeps the CDB the SCSI hook recorded.
 */
void iotrace_ata_qc_issue(void *data, struct ata_queued_cmd *qc)
{
	struct scsi_cmnd *scmd = qc->scsicmd;
	struct iotrace_slot *s;
	struct request *rq;

	BUILD_BUG_ON(sizeof(struct iotrace_ata_tf) > IOTRACE_CMD_LEN);
	if (!scmd || iotrace_ata_atapi(qc))
		return;
	rq = scsi_cmd_to_rq(scmd);
	preempt_disable_notrace();
	/* built in the slot: no taskfile on the stack (nor its canary) */
	s = iotrace_ata_cmd_slot(rq);
	if (s) {
		iotrace_cmd_clear(s->cmd);
		WRITE_ONCE(((u64 *)s->cmd)[4], 0);
		iotrace_ata_tf((struct iotrace_ata_tf *)s->cmd, &qc->tf);
		iotrace_cmd_publish(s, rq, IOTRACE_CMD_ATA,
				    sizeof(struct iotrace_ata_tf), 0);
	}
	preempt_enable_notrace();
}

/*
 * A failed ATAPI command: CHECK CONDITION and the sense key of the error
 * register (7:4) when the device set ERR; the sense requested by the
 * error handler replaces it (iotrace_ata_eh_autopsy()).
 */
static void iotrace_atapi_failed(struct ata_queued_cmd *qc, u16 rflags)
{
	u32 status = 0;

	if (iotrace_ata_tf_status(&qc->result_tf) & ATA_ERR)
		status = SAM_STAT_CHECK_CONDITION |
			 (u32)(iotrace_ata_tf_error(&qc->result_tf) >> 4) << 8;
	preempt_disable_notrace();
	iotrace_note_eh_status(scsi_cmd_to_rq(qc->scsicmd), status, rflags,
			       IOTRACE_MSTATUS_SCSI);
	preempt_enable_notrace();
}

static void iotrace_ata_status(struct ata_queued_cmd *qc, u16 rflags)
{
	u32 status;

	if (!qc->scsicmd)
		return;
	if (iotrace_ata_atapi(qc)) {
		if (rflags & IOTRACE_RF_ERROR)
			iotrace_atapi_failed(qc, rflags);
		return;
	}
	status = iotrace_ata_tf_status(&qc->result_tf) |
		 (u32)iotrace_ata_tf_error(&qc->result_tf) << 8;
	if (iotrace_ata_tf_status(&qc->result_tf) & (ATA_ERR | ATA_DF))
		rflags |= IOTRACE_RF_ERROR;
	preempt_disable_notrace();
	iotrace_note_eh_status(scsi_cmd_to_rq(qc->scsicmd), status, rflags,
			       IOTRACE_MSTATUS_ATA);
	preempt_enable_notrace();
}

/**
 * iotrace_ata_qc_done() - probe on ata_qc_complete_done.
 * @data: unused.
 * @qc: a command that completed without error.
 *
 * libata reads the result registers back only when the command asked for
 * them (ATA_QCFLAG_RESULT_TF); otherwise there is no status to record and
 * the record says so (no IOTRACE_RF_STATUS_VALID).
 */
void iotrace_ata_qc_done(void *data, struct ata_queued_cmd *qc)
{
	if (qc->flags & ATA_QCFLAG_RESULT_TF)
		iotrace_ata_status(qc, 0);
}

/**
 * iotrace_ata_qc_failed() - probe on ata_qc_complete_failed.
 * @data: unused.
 * @qc: a command that failed; libata filled result_tf and summons EH.
 */
void iotrace_ata_qc_failed(void *data, struct ata_queued_cmd *qc)
{
	u16 rflags = IOTRACE_RF_ERROR;

	if (qc->err_mask & AC_ERR_TIMEOUT)
		rflags |= IOTRACE_RF_TIMEOUT;
	iotrace_ata_status(qc, rflags);
}

/**
 * iotrace_ata_eh_autopsy() - probe on ata_eh_link_autopsy_qc: the sense
 *	of a failed ATAPI command.
 * @data: unused.
 * @qc: a command the error handler analysed, before it is completed.
 *
 * For an ATAPI device the handler has sent REQUEST SENSE into the SCSI
 * command's sense buffer (ATA_QCFLAG_SENSE_VALID when it answered): the
 * record gets CHECK CONDITION with its key, ASC and ASCQ, without
 * IOTRACE_RF_ERROR for a RECOVERED ERROR, as on a SCSI device.
 */
void iotrace_ata_eh_autopsy(void *data, struct ata_queued_cmd *qc)
{
	u16 rflags = IOTRACE_RF_ERROR;
	u32 status;

	if (!qc->scsicmd || !iotrace_ata_atapi(qc) ||
	    !(qc->flags & ATA_QCFLAG_SENSE_VALID))
		return;
	status = SAM_STAT_CHECK_CONDITION |
		 iotrace_scsi_sense(qc->scsicmd->sense_buffer);
	if (((status >> 8) & 0x0f) == RECOVERED_ERROR)
		rflags = 0;
	if (qc->err_mask & AC_ERR_TIMEOUT)
		rflags |= IOTRACE_RF_TIMEOUT;
	preempt_disable_notrace();
	iotrace_note_eh_status(scsi_cmd_to_rq(qc->scsicmd), status, rflags,
			       IOTRACE_MSTATUS_SCSI);
	preempt_enable_notrace();
}

/*
 * modtp.c registers the probes through void *: the tracepoints' own
 * prototypes (no CREATE_TRACE_POINTS: nothing is defined) check theirs at
 * compile time.
 */
static inline void iotrace_ata_check_protos(void)
{
	check_trace_callback_type_ata_qc_issue(iotrace_ata_qc_issue);
	check_trace_callback_type_ata_qc_complete_done(iotrace_ata_qc_done);
	check_trace_callback_type_ata_qc_complete_failed(iotrace_ata_qc_failed);
	check_trace_callback_type_ata_eh_link_autopsy_qc(iotrace_ata_eh_autopsy);
}
