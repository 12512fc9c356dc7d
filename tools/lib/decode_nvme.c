// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe decoders: admin and NVM command set opcodes, and completion status
 * (status code type / status code), from the NVM Express base and NVM
 * command set specifications.
 */
#include <string.h>
#include "iot.h"
#include "macros.h"

const struct iot_name iot_nvme_admin_ops[] = {
	{ 0x00, "Delete I/O SQ" },
	{ 0x01, "Create I/O SQ" },
	{ 0x02, "Get Log Page" },
	{ 0x04, "Delete I/O CQ" },
	{ 0x05, "Create I/O CQ" },
	{ 0x06, "Identify" },
	{ 0x08, "Abort" },
	{ 0x09, "Set Features" },
	{ 0x0a, "Get Features" },
	{ 0x0c, "Asynchronous Event Request" },
	{ 0x0d, "Namespace Management" },
	{ 0x10, "Firmware Commit" },
	{ 0x11, "Firmware Image Download" },
	{ 0x14, "Device Self-test" },
	{ 0x15, "Namespace Attachment" },
	{ 0x18, "Keep Alive" },
	{ 0x19, "Directive Send" },
	{ 0x1a, "Directive Receive" },
	{ 0x1c, "Virtualization Management" },
	{ 0x1d, "NVMe-MI Send" },
	{ 0x1e, "NVMe-MI Receive" },
	{ 0x20, "Capacity Management" },
	{ 0x24, "Lockdown" },
	{ 0x7c, "Doorbell Buffer Config" },
	{ 0x7f, "Fabrics Command" },
	{ 0x80, "Format NVM" },
	{ 0x81, "Security Send" },
	{ 0x82, "Security Receive" },
	{ 0x84, "Sanitize" },
	{ 0x86, "Get LBA Status" },
};

const struct iot_name iot_nvme_io_ops[] = {
	{ 0x00, "Flush" },
	{ 0x01, "Write" },
	{ 0x02, "Read" },
	{ 0x04, "Write Uncorrectable" },
	{ 0x05, "Compare" },
	{ 0x08, "Write Zeroes" },
	{ 0x09, "Dataset Management" },
	{ 0x0c, "Verify" },
	{ 0x0d, "Reservation Register" },
	{ 0x0e, "Reservation Report" },
	{ 0x11, "Reservation Acquire" },
	{ 0x15, "Reservation Release" },
	{ 0x19, "Copy" },
	{ 0x79, "Zone Management Send" },
	{ 0x7a, "Zone Management Receive" },
	{ 0x7d, "Zone Append" },
};

const struct iot_name iot_nvme_sc_generic[] = {
	{ 0x00, "Successful Completion" },
	{ 0x01, "Invalid Command Opcode" },
	{ 0x02, "Invalid Field in Command" },
	{ 0x03, "Command ID Conflict" },
	{ 0x04, "Data Transfer Error" },
	{ 0x05, "Aborted: Power Loss Notification" },
	{ 0x06, "Internal Error" },
	{ 0x07, "Command Abort Requested" },
	{ 0x08, "Aborted: SQ Deletion" },
	{ 0x09, "Aborted: Failed Fused Command" },
	{ 0x0a, "Aborted: Missing Fused Command" },
	{ 0x0b, "Invalid Namespace or Format" },
	{ 0x0c, "Command Sequence Error" },
	{ 0x0d, "Invalid SGL Segment Descriptor" },
	{ 0x0e, "Invalid Number of SGL Descriptors" },
	{ 0x0f, "Data SGL Length Invalid" },
	{ 0x10, "Metadata SGL Length Invalid" },
	{ 0x11, "SGL Descriptor Type Invalid" },
	{ 0x12, "Invalid Use of Controller Memory Buffer" },
	{ 0x13, "PRP Offset Invalid" },
	{ 0x14, "Atomic Write Unit Exceeded" },
	{ 0x15, "Operation Denied" },
	{ 0x16, "SGL Offset Invalid" },
	{ 0x18, "Host Identifier Inconsistent Format" },
	{ 0x19, "Keep Alive Timer Expired" },
	{ 0x1a, "Keep Alive Timeout Invalid" },
	{ 0x1b, "Aborted: Preempt and Abort" },
	{ 0x1c, "Sanitize Failed" },
	{ 0x1d, "Sanitize In Progress" },
	{ 0x1e, "SGL Data Block Granularity Invalid" },
	{ 0x1f, "Command Not Supported for Queue in CMB" },
	{ 0x20, "Namespace is Write Protected" },
	{ 0x21, "Command Interrupted" },
	{ 0x22, "Transient Transport Error" },
	{ 0x80, "LBA Out of Range" },
	{ 0x81, "Capacity Exceeded" },
	{ 0x82, "Namespace Not Ready" },
	{ 0x83, "Reservation Conflict" },
	{ 0x84, "Format In Progress" },
};

const struct iot_name iot_nvme_sc_cmd[] = {
	{ 0x00, "Completion Queue Invalid" },
	{ 0x01, "Invalid Queue Identifier" },
	{ 0x02, "Invalid Queue Size" },
	{ 0x03, "Abort Command Limit Exceeded" },
	{ 0x05, "Asynchronous Event Request Limit Exceeded" },
	{ 0x06, "Invalid Firmware Slot" },
	{ 0x07, "Invalid Firmware Image" },
	{ 0x08, "Invalid Interrupt Vector" },
	{ 0x09, "Invalid Log Page" },
	{ 0x0a, "Invalid Format" },
	{ 0x0b, "Firmware Activation Requires Conventional Reset" },
	{ 0x0c, "Invalid Queue Deletion" },
	{ 0x0d, "Feature Identifier Not Saveable" },
	{ 0x0e, "Feature Not Changeable" },
	{ 0x0f, "Feature Not Namespace Specific" },
	{ 0x10, "Firmware Activation Requires NVM Subsystem Reset" },
	{ 0x11, "Firmware Activation Requires Controller Level Reset" },
	{ 0x12, "Firmware Activation Requires Maximum Time Violation" },
	{ 0x13, "Firmware Activation Prohibited" },
	{ 0x14, "Overlapping Range" },
	{ 0x15, "Namespace Insufficient Capacity" },
	{ 0x16, "Namespace Identifier Unavailable" },
	{ 0x18, "Namespace Already Attached" },
	{ 0x19, "Namespace Is Private" },
	{ 0x1a, "Namespace Not Attached" },
	{ 0x1b, "Thin Provisioning Not Supported" },
	{ 0x1c, "Controller List Invalid" },
	{ 0x80, "Conflicting Attributes" },
	{ 0x81, "Invalid Protection Information" },
	{ 0x82, "Attempted Write to Read Only Range" },
};

const struct iot_name iot_nvme_sc_media[] = {
	{ 0x80, "Write Fault" },
	{ 0x81, "Unrecovered Read Error" },
	{ 0x82, "End-to-end Guard Check Error" },
	{ 0x83, "End-to-end Application Tag Check Error" },
	{ 0x84, "End-to-end Reference Tag Check Error" },
	{ 0x85, "Compare Failure" },
	{ 0x86, "Access Denied" },
	{ 0x87, "Deallocated or Unwritten Logical Block" },
};

const struct iot_name iot_nvme_sc_path[] = {
	{ 0x00, "Internal Path Error" },
	{ 0x01, "Asymmetric Access Persistent Loss" },
	{ 0x02, "Asymmetric Access Inaccessible" },
	{ 0x03, "Asymmetric Access Transition" },
	{ 0x60, "Controller Pathing Error" },
	{ 0x70, "Host Pathing Error" },
	{ 0x71, "Command Aborted By Host" },
};

const struct iot_name iot_nvme_sct[] = {
	{ 0, "Generic" },
	{ 1, "Command Specific" },
	{ 2, "Media/Data Integrity" },
	{ 3, "Path" },
	{ 7, "Vendor Specific" },
};

const size_t iot_nvme_admin_ops_nr = ARRAY_SIZE(iot_nvme_admin_ops);
const size_t iot_nvme_io_ops_nr = ARRAY_SIZE(iot_nvme_io_ops);
const size_t iot_nvme_sc_generic_nr = ARRAY_SIZE(iot_nvme_sc_generic);
const size_t iot_nvme_sc_cmd_nr = ARRAY_SIZE(iot_nvme_sc_cmd);
const size_t iot_nvme_sc_media_nr = ARRAY_SIZE(iot_nvme_sc_media);
const size_t iot_nvme_sc_path_nr = ARRAY_SIZE(iot_nvme_sc_path);
const size_t iot_nvme_sct_nr = ARRAY_SIZE(iot_nvme_sct);

/* the opcode tables by opcode (iot_index8()) */
static const char *admin_idx[256], *io_idx[256];

static void __attribute__((constructor)) nvme_index_init(void)
{
	iot_index8(iot_nvme_admin_ops, iot_nvme_admin_ops_nr, admin_idx);
	iot_index8(iot_nvme_io_ops, iot_nvme_io_ops_nr, io_idx);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* "NAME nsid=N slba=LBA len=N[ fua]" of a read or write, without snprintf */
static void nvme_rw(char *out, size_t outlen, const char *name,
		    uint32_t nsid, uint64_t slba, uint32_t cdw12)
{
	char *p = out, *end = out + outlen;

	p = iot_put_s(p, end, name);
	p = iot_put_s(p, end, " nsid=");
	p = iot_put_u(p, end, nsid);
	p = iot_put_s(p, end, " slba=");
	p = iot_put_u(p, end, slba);
	p = iot_put_s(p, end, " len=");
	p = iot_put_u(p, end, (cdw12 & 0xffff) + 1);
	if (cdw12 & (1u << 30))
		iot_put_s(p, end, " fua");
}

/**
 * iot_decode_nvme() - decode an NVMe submission queue entry.
 * @cmd: the entry (64 bytes; fewer decode what is there).
 * @len: valid bytes.
 * @admin: the entry went to the admin queue.
 * @out: output.
 * @outlen: its size.
 *
 * I/O reads, writes and the like show slba and len (NLB + 1, blocks).
 */
void iot_decode_nvme(const uint8_t *cmd, size_t len, int admin, char *out,
		     size_t outlen)
{
	char *p, *end = out + outlen;
	const char *name;
	uint32_t cdw10, cdw11, cdw12;
	uint8_t opc;

	if (len < 4) {
		snprintf(out, outlen, "nvme: short command (%zu bytes)", len);
		return;
	}
	opc = cmd[0];
	name = admin ? admin_idx[opc] : io_idx[opc];
	if (!name)
		name = opc >= 0xc0 ? "Vendor Specific" : "Unknown";
	if (len < 64) {
		snprintf(out, outlen, "%s (opc 0x%02x)", name, opc);
		return;
	}
	cdw10 = le32(cmd + 40);
	cdw11 = le32(cmd + 44);
	cdw12 = le32(cmd + 48);
	if (admin) {
		switch (opc) {
		case 0x06:
			snprintf(out, outlen, "%s cns=0x%02x nsid=%u", name,
				 cdw10 & 0xff, le32(cmd + 4));
			return;
		case 0x02:
			snprintf(out, outlen, "%s lid=0x%02x nsid=%u", name,
				 cdw10 & 0xff, le32(cmd + 4));
			return;
		case 0x09:
		case 0x0a:
			snprintf(out, outlen, "%s fid=0x%02x", name,
				 cdw10 & 0xff);
			return;
		}
		snprintf(out, outlen, "%s (opc 0x%02x)", name, opc);
		return;
	}
	switch (opc) {
	case 0x01:
	case 0x02:
	case 0x04:
	case 0x05:
	case 0x08:
	case 0x0c:
	case 0x7d:
		nvme_rw(out, outlen, name, le32(cmd + 4),
			(uint64_t)cdw11 << 32 | cdw10, cdw12);
		return;
	case 0x09:
		/* "%s nsid=%u ranges=%u%s", without snprintf */
		p = iot_put_s(out, end, name);
		p = iot_put_s(p, end, " nsid=");
		p = iot_put_u(p, end, le32(cmd + 4));
		p = iot_put_s(p, end, " ranges=");
		p = iot_put_u(p, end, (cdw10 & 0xff) + 1);
		if (cdw11 & 4)
			iot_put_s(p, end, " deallocate");
		return;
	}
	/* "%s nsid=%u (opc 0x%02x)" (a flush, among others) */
	p = iot_put_s(out, end, name);
	p = iot_put_s(p, end, " nsid=");
	p = iot_put_u(p, end, le32(cmd + 4));
	p = iot_put_s(p, end, " (opc ");
	p = iot_put_x2(p, end, opc);
	iot_put_s(p, end, ")");
}

/* Decode the 15-bit NVMe status field (SC 7:0, SCT 10:8, ... DNR 14). */
void iot_decode_nvme_status(uint32_t status, char *out, size_t outlen)
{
	unsigned int sc = status & 0xff, sct = (status >> 8) & 7;
	const char *name = NULL, *type;

	type = iot_lookup(iot_nvme_sct, iot_nvme_sct_nr, sct);
	switch (sct) {
	case 0:
		name = iot_lookup(iot_nvme_sc_generic, iot_nvme_sc_generic_nr,
				  sc);
		break;
	case 1:
		name = iot_lookup(iot_nvme_sc_cmd, iot_nvme_sc_cmd_nr, sc);
		break;
	case 2:
		name = iot_lookup(iot_nvme_sc_media, iot_nvme_sc_media_nr, sc);
		break;
	case 3:
		name = iot_lookup(iot_nvme_sc_path, iot_nvme_sc_path_nr, sc);
		break;
	}
	snprintf(out, outlen, "%s/%s (sct %u sc 0x%02x)%s%s",
		 type ? type : "Reserved", name ? name : "Unknown", sct, sc,
		 (status & (1u << 13)) ? " more" : "",
		 (status & (1u << 14)) ? " dnr" : "");
}
