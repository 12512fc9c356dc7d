/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotrace - full device commands: NVMe submission entries, SCSI CDBs and
 * ATA taskfiles, and the status the device returned for them.
 *
 * The probes live on tracepoints of nvme-core, scsi_mod and libata, which
 * are modules: modtp.c attaches them through the tracepoint module notifier
 * whenever such a module comes, and detaches them when it goes.  Probes
 * and notifier exist only while a disk is enabled (iotrace_probes_get()).
 */
#ifndef _IOTRACE_CMD_H
#define _IOTRACE_CMD_H

#include <linux/types.h>
#include "compat.h"

struct request;
struct nvme_command;
struct scsi_cmnd;
struct ata_queued_cmd;
struct seq_file;
struct netlink_ext_ack;

/* modtp.c */
int iotrace_cmd_attach(void);
void iotrace_cmd_detach(void);
void iotrace_cmd_show(struct seq_file *m);

/* cmd_nvme.c */
void iotrace_nvme_setup_cmd(void *data, struct request *rq,
			    struct nvme_command *cmd);
void iotrace_nvme_complete_rq(void *data, struct request *rq);
int iotrace_nvme_set_layout(bool set, u32 soff, u32 ssize, u32 roff,
			    u32 rsize, struct netlink_ext_ack *extack);
bool iotrace_nvme_get_layout(u32 *soff, u32 *roff, u32 *rsize);
void iotrace_nvme_show(struct seq_file *m);
int iotrace_nvme_init(void);
void iotrace_nvme_exit(void);

/* cmd_scsi.c */
void iotrace_scsi_cmd_start(void *data, struct scsi_cmnd *cmd);
void iotrace_scsi_cmd_done(void *data, struct scsi_cmnd *cmd);
u32 iotrace_scsi_sense(const u8 *sb);

/* cmd_ata.c */
void iotrace_ata_qc_issue(void *data, struct ata_queued_cmd *qc);
void iotrace_ata_qc_done(void *data, struct ata_queued_cmd *qc);
void iotrace_ata_qc_failed(void *data, struct ata_queued_cmd *qc);
void iotrace_ata_eh_autopsy(void *data, struct ata_queued_cmd *qc);

#endif /* _IOTRACE_CMD_H */
