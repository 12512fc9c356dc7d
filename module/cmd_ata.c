// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - ATA commands through libata: the taskfile of a queued command
 * (ata_qc_issue) and the status and error registers it completed with
 * (ata_qc_complete_done / ata_qc_complete_failed).
 *
 * Only commands that carry a block request (qc->scsicmd) are recorded:
 * libata's internal commands (IDENTIFY, SET FEATURES, error handling) have
 * no request and so no record.
 */
#include <linux/kernel.h>
#include <linux/blk-mq.h>
#include <linux/libata.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>
#include <trace/events/libata.h>
#include "iotrace.h"
#include "cmd.h"
#include "compat.h"

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
 */
void iotrace_ata_qc_issue(void *data, struct ata_queued_cmd *qc)
{
	struct scsi_cmnd *scmd = qc->scsicmd;
	struct iotrace_slot *s;

	BUILD_BUG_ON(sizeof(struct iotrace_ata_tf) > IOTRACE_CMD_LEN);
	if (!scmd)
		return;
	preempt_disable_notrace();
	/* built in the slot: no taskfile on the stack (nor its canary) */
	s = iotrace_ata_cmd_slot(scsi_cmd_to_rq(scmd));
	if (s) {
		iotrace_cmd_clear(s->cmd);
		WRITE_ONCE(((u64 *)s->cmd)[4], 0);
		iotrace_ata_tf((struct iotrace_ata_tf *)s->cmd, &qc->tf);
		iotrace_cmd_publish(s, scsi_cmd_to_rq(scmd), IOTRACE_CMD_ATA,
				    sizeof(struct iotrace_ata_tf), 0);
	}
	preempt_enable_notrace();
}

static void iotrace_ata_status(struct ata_queued_cmd *qc, u16 rflags)
{
	u32 status;

	if (!qc->scsicmd)
		return;
	status = iotrace_ata_tf_status(&qc->result_tf) |
		 (u32)iotrace_ata_tf_error(&qc->result_tf) << 8;
	if (iotrace_ata_tf_status(&qc->result_tf) & (ATA_ERR | ATA_DF))
		rflags |= IOTRACE_RF_ERROR;
	preempt_disable_notrace();
	iotrace_note_status(scsi_cmd_to_rq(qc->scsicmd), status, 0, rflags,
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
}
