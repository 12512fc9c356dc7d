// SPDX-License-Identifier: GPL-2.0
/*
 * SCSI decoders: operation codes (SPC/SBC), LBA and transfer length of the
 * data commands, status byte and sense key.
 */
#include <string.h>
#include "iot.h"
#include "macros.h"

const struct iot_name iot_scsi_ops[] = {
	{ 0x00, "TEST UNIT READY" },
	{ 0x03, "REQUEST SENSE" },
	{ 0x04, "FORMAT UNIT" },
	{ 0x08, "READ(6)" },
	{ 0x0a, "WRITE(6)" },
	{ 0x12, "INQUIRY" },
	{ 0x15, "MODE SELECT(6)" },
	{ 0x1a, "MODE SENSE(6)" },
	{ 0x1b, "START STOP UNIT" },
	{ 0x1d, "SEND DIAGNOSTIC" },
	{ 0x1e, "PREVENT ALLOW MEDIUM REMOVAL" },
	{ 0x25, "READ CAPACITY(10)" },
	{ 0x28, "READ(10)" },
	{ 0x2a, "WRITE(10)" },
	{ 0x2e, "WRITE AND VERIFY(10)" },
	{ 0x2f, "VERIFY(10)" },
	{ 0x35, "SYNCHRONIZE CACHE(10)" },
	{ 0x3b, "WRITE BUFFER" },
	{ 0x3c, "READ BUFFER" },
	{ 0x41, "WRITE SAME(10)" },
	{ 0x42, "UNMAP" },
	{ 0x4c, "LOG SELECT" },
	{ 0x4d, "LOG SENSE" },
	{ 0x55, "MODE SELECT(10)" },
	{ 0x5a, "MODE SENSE(10)" },
	{ 0x5e, "PERSISTENT RESERVE IN" },
	{ 0x5f, "PERSISTENT RESERVE OUT" },
	{ 0x7f, "VARIABLE LENGTH" },
	{ 0x85, "ATA PASS-THROUGH(16)" },
	{ 0x88, "READ(16)" },
	{ 0x89, "COMPARE AND WRITE" },
	{ 0x8a, "WRITE(16)" },
	{ 0x8e, "WRITE AND VERIFY(16)" },
	{ 0x8f, "VERIFY(16)" },
	{ 0x91, "SYNCHRONIZE CACHE(16)" },
	{ 0x93, "WRITE SAME(16)" },
	{ 0x94, "ZBC OUT" },
	{ 0x95, "ZBC IN" },
	{ 0x9e, "SERVICE ACTION IN(16)" },
	{ 0x9f, "SERVICE ACTION OUT(16)" },
	{ 0xa0, "REPORT LUNS" },
	{ 0xa1, "ATA PASS-THROUGH(12)" },
	{ 0xa3, "MAINTENANCE IN" },
	{ 0xa8, "READ(12)" },
	{ 0xaa, "WRITE(12)" },
	{ 0xaf, "VERIFY(12)" },
};

/* Service actions of SERVICE ACTION IN(16) */
const struct iot_name iot_scsi_sai16[] = {
	{ 0x10, "READ CAPACITY(16)" },
	{ 0x12, "GET LBA STATUS" },
	{ 0x13, "REPORT REFERRALS" },
};

const struct iot_name iot_scsi_sense_keys[] = {
	{ 0x0, "NO SENSE" },
	{ 0x1, "RECOVERED ERROR" },
	{ 0x2, "NOT READY" },
	{ 0x3, "MEDIUM ERROR" },
	{ 0x4, "HARDWARE ERROR" },
	{ 0x5, "ILLEGAL REQUEST" },
	{ 0x6, "UNIT ATTENTION" },
	{ 0x7, "DATA PROTECT" },
	{ 0x8, "BLANK CHECK" },
	{ 0x9, "VENDOR SPECIFIC" },
	{ 0xa, "COPY ABORTED" },
	{ 0xb, "ABORTED COMMAND" },
	{ 0xd, "VOLUME OVERFLOW" },
	{ 0xe, "MISCOMPARE" },
	{ 0xf, "COMPLETED" },
};

const struct iot_name iot_scsi_status[] = {
	{ 0x00, "GOOD" },
	{ 0x02, "CHECK CONDITION" },
	{ 0x04, "CONDITION MET" },
	{ 0x08, "BUSY" },
	{ 0x18, "RESERVATION CONFLICT" },
	{ 0x28, "TASK SET FULL" },
	{ 0x30, "ACA ACTIVE" },
	{ 0x40, "TASK ABORTED" },
};

const size_t iot_scsi_ops_nr = ARRAY_SIZE(iot_scsi_ops);
const size_t iot_scsi_sai16_nr = ARRAY_SIZE(iot_scsi_sai16);
const size_t iot_scsi_sense_keys_nr = ARRAY_SIZE(iot_scsi_sense_keys);
const size_t iot_scsi_status_nr = ARRAY_SIZE(iot_scsi_status);

/* the opcode table by opcode (iot_index8()) */
static const char *ops_idx[256];

static void __attribute__((constructor)) scsi_index_init(void)
{
	iot_index8(iot_scsi_ops, iot_scsi_ops_nr, ops_idx);
}

static uint64_t be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* Minimum CDB length by group code (opcode bits 7:5). */
static size_t group_len(uint8_t opc)
{
	static const uint8_t len[8] = { 6, 10, 10, 0, 16, 12, 0, 0 };

	return len[opc >> 5];
}

/**
 * iot_decode_scsi() - decode a CDB.
 * @cdb: the CDB.
 * @len: its length.
 * @out: output.
 * @outlen: its size.
 *
 * Data commands show lba and len (blocks); UNMAP its parameter list
 * length; ATA PASS-THROUGH the ATA command inside.
 */
void iot_decode_scsi(const uint8_t *cdb, size_t len, char *out,
		     size_t outlen)
{
	const char *name;
	uint8_t opc;
	uint64_t lba = 0, n = 0;
	int data = 1;

	if (!len) {
		snprintf(out, outlen, "scsi: empty CDB");
		return;
	}
	opc = cdb[0];
	name = ops_idx[opc];
	if (!name)
		name = opc >= 0xc0 ? "VENDOR SPECIFIC" : "UNKNOWN";
	if (group_len(opc) && len < group_len(opc)) {
		snprintf(out, outlen, "%s (op 0x%02x, short CDB %zu)", name,
			 opc, len);
		return;
	}
	switch (opc) {
	case 0x08:
	case 0x0a:
		lba = be(cdb + 1, 3) & 0x1fffff;
		n = cdb[4] ? cdb[4] : 256;
		break;
	case 0x28:
	case 0x2a:
	case 0x2e:
	case 0x2f:
	case 0x35:
	case 0x41:
		lba = be(cdb + 2, 4);
		n = be(cdb + 7, 2);
		break;
	case 0xa8:
	case 0xaa:
	case 0xaf:
		lba = be(cdb + 2, 4);
		n = be(cdb + 6, 4);
		break;
	case 0x88:
	case 0x8a:
	case 0x8e:
	case 0x8f:
	case 0x91:
	case 0x93:
		lba = be(cdb + 2, 8);
		n = be(cdb + 10, 4);
		break;
	case 0x89:
		lba = be(cdb + 2, 8);
		n = cdb[13];
		break;
	default:
		data = 0;
	}
	if (data) {
		/* the common case, without snprintf */
		char *p = out, *end = out + outlen;

		p = iot_put_s(p, end, name);
		p = iot_put_s(p, end, " lba=");
		p = iot_put_u(p, end, lba);
		p = iot_put_s(p, end, " len=");
		iot_put_u(p, end, n);
		return;
	}
	switch (opc) {
	case 0x42: {
		/* "%s param_len=%llu", without snprintf */
		char *p = iot_put_s(out, out + outlen, name);

		p = iot_put_s(p, out + outlen, " param_len=");
		iot_put_u(p, out + outlen, be(cdb + 7, 2));
		return;
	}
	case 0x9e: {
		const char *sa = iot_lookup(iot_scsi_sai16, iot_scsi_sai16_nr,
					    cdb[1] & 0x1f);

		snprintf(out, outlen, "%s sa=0x%02x %s", name, cdb[1] & 0x1f,
			 sa ? sa : "");
		return;
	}
	case 0x85:
	case 0xa1: {
		struct iotrace_ata_tf tf;
		char a[160];

		memset(&tf, 0, sizeof(tf));
		if (opc == 0x85) {
			tf.hob_feature = cdb[3];
			tf.feature = cdb[4];
			tf.count = cdb[5] << 8 | cdb[6];
			tf.lba = (uint64_t)cdb[11] << 40 |
				(uint64_t)cdb[9] << 32 |
				(uint64_t)cdb[7] << 24 | cdb[12] << 16 |
				cdb[10] << 8 | cdb[8];
			tf.device = cdb[13];
			tf.command = cdb[14];
		} else {
			tf.feature = cdb[3];
			tf.count = cdb[4];
			tf.lba = cdb[7] << 16 | cdb[6] << 8 | cdb[5];
			tf.device = cdb[8];
			tf.command = cdb[9];
		}
		iot_decode_ata((const uint8_t *)&tf, sizeof(tf), a, sizeof(a));
		snprintf(out, outlen, "%s [%s]", name, a);
		return;
	}
	}
	snprintf(out, outlen, "%s (op 0x%02x)", name, opc);
}

/* Decode status byte 7:0, sense key 11:8, ASC 23:16, ASCQ 31:24. */
void iot_decode_scsi_status(uint32_t status, char *out, size_t outlen)
{
	unsigned int st = status & 0xff, key = (status >> 8) & 0xf;
	const char *sname = iot_lookup(iot_scsi_status, iot_scsi_status_nr, st);
	const char *kname = iot_lookup(iot_scsi_sense_keys,
				       iot_scsi_sense_keys_nr, key);

	if (st == 0x02 || key)
		snprintf(out, outlen, "%s %s asc=0x%02x ascq=0x%02x",
			 sname ? sname : "UNKNOWN STATUS",
			 kname ? kname : "RESERVED SENSE KEY",
			 (status >> 16) & 0xff, status >> 24);
	else
		iot_put_s(out, out + outlen, sname ? sname : "UNKNOWN STATUS");
}
