// SPDX-License-Identifier: GPL-2.0
/*
 * ATA decoders: command names (ACS), LBA and sector count from
 * struct iotrace_ata_tf, status and error registers.
 */
#include <string.h>
#include "iot.h"
#include "macros.h"

/* Kinds of command: how LBA and count are found. */
enum { ATA_K_OTHER, ATA_K_LBA28, ATA_K_LBA48, ATA_K_NCQ };

/**
 * struct ata_cmd - one ATA command.
 * @code: command register value.
 * @kind: ATA_K_*.
 * @name: name.
 */
struct ata_cmd {
	uint8_t code, kind;
	const char *name;
};

static const struct ata_cmd ata_cmds[] = {
	{ 0x00, ATA_K_OTHER, "NOP" },
	{ 0x06, ATA_K_OTHER, "DATA SET MANAGEMENT" },
	{ 0x20, ATA_K_LBA28, "READ SECTORS" },
	{ 0x24, ATA_K_LBA48, "READ SECTORS EXT" },
	{ 0x25, ATA_K_LBA48, "READ DMA EXT" },
	{ 0x29, ATA_K_LBA48, "READ MULTIPLE EXT" },
	{ 0x2f, ATA_K_OTHER, "READ LOG EXT" },
	{ 0x30, ATA_K_LBA28, "WRITE SECTORS" },
	{ 0x34, ATA_K_LBA48, "WRITE SECTORS EXT" },
	{ 0x35, ATA_K_LBA48, "WRITE DMA EXT" },
	{ 0x39, ATA_K_LBA48, "WRITE MULTIPLE EXT" },
	{ 0x3d, ATA_K_LBA48, "WRITE DMA FUA EXT" },
	{ 0x3f, ATA_K_OTHER, "WRITE LOG EXT" },
	{ 0x40, ATA_K_LBA28, "READ VERIFY SECTORS" },
	{ 0x42, ATA_K_LBA48, "READ VERIFY SECTORS EXT" },
	{ 0x45, ATA_K_LBA48, "WRITE UNCORRECTABLE EXT" },
	{ 0x47, ATA_K_OTHER, "READ LOG DMA EXT" },
	{ 0x57, ATA_K_OTHER, "WRITE LOG DMA EXT" },
	{ 0x60, ATA_K_NCQ, "READ FPDMA QUEUED" },
	{ 0x61, ATA_K_NCQ, "WRITE FPDMA QUEUED" },
	{ 0x63, ATA_K_OTHER, "NCQ NON-DATA" },
	{ 0x64, ATA_K_OTHER, "SEND FPDMA QUEUED" },
	{ 0x65, ATA_K_OTHER, "RECEIVE FPDMA QUEUED" },
	{ 0x90, ATA_K_OTHER, "EXECUTE DEVICE DIAGNOSTIC" },
	{ 0x92, ATA_K_OTHER, "DOWNLOAD MICROCODE" },
	{ 0xa0, ATA_K_OTHER, "PACKET" },
	{ 0xa1, ATA_K_OTHER, "IDENTIFY PACKET DEVICE" },
	{ 0xb0, ATA_K_OTHER, "SMART" },
	{ 0xc4, ATA_K_LBA28, "READ MULTIPLE" },
	{ 0xc5, ATA_K_LBA28, "WRITE MULTIPLE" },
	{ 0xc8, ATA_K_LBA28, "READ DMA" },
	{ 0xca, ATA_K_LBA28, "WRITE DMA" },
	{ 0xce, ATA_K_LBA48, "WRITE MULTIPLE FUA EXT" },
	{ 0xe0, ATA_K_OTHER, "STANDBY IMMEDIATE" },
	{ 0xe1, ATA_K_OTHER, "IDLE IMMEDIATE" },
	{ 0xe2, ATA_K_OTHER, "STANDBY" },
	{ 0xe3, ATA_K_OTHER, "IDLE" },
	{ 0xe4, ATA_K_OTHER, "READ BUFFER" },
	{ 0xe5, ATA_K_OTHER, "CHECK POWER MODE" },
	{ 0xe6, ATA_K_OTHER, "SLEEP" },
	{ 0xe7, ATA_K_OTHER, "FLUSH CACHE" },
	{ 0xe8, ATA_K_OTHER, "WRITE BUFFER" },
	{ 0xea, ATA_K_OTHER, "FLUSH CACHE EXT" },
	{ 0xec, ATA_K_OTHER, "IDENTIFY DEVICE" },
	{ 0xef, ATA_K_OTHER, "SET FEATURES" },
	{ 0xf1, ATA_K_OTHER, "SECURITY SET PASSWORD" },
	{ 0xf5, ATA_K_OTHER, "SECURITY FREEZE LOCK" },
	{ 0xf8, ATA_K_OTHER, "READ NATIVE MAX ADDRESS" },
	{ 0xf9, ATA_K_OTHER, "SET MAX ADDRESS" },
};

/* Name table view of ata_cmds for tests and lookups. */
struct iot_name iot_ata_ops[ARRAY_SIZE(ata_cmds)];
const size_t iot_ata_ops_nr = ARRAY_SIZE(ata_cmds);

static void __attribute__((constructor)) ata_names_init(void)
{
	size_t i;

	for (i = 0; i < iot_ata_ops_nr; i++) {
		iot_ata_ops[i].code = ata_cmds[i].code;
		iot_ata_ops[i].name = ata_cmds[i].name;
	}
}

const struct iot_name iot_ata_smart[] = {
	{ 0xd0, "READ DATA" },
	{ 0xd1, "READ ATTRIBUTE THRESHOLDS" },
	{ 0xd4, "EXECUTE OFF-LINE IMMEDIATE" },
	{ 0xd5, "READ LOG" },
	{ 0xd6, "WRITE LOG" },
	{ 0xd8, "ENABLE OPERATIONS" },
	{ 0xd9, "DISABLE OPERATIONS" },
	{ 0xda, "RETURN STATUS" },
};

const struct iot_name iot_ata_setfeatures[] = {
	{ 0x02, "enable write cache" },
	{ 0x03, "set transfer mode" },
	{ 0x05, "enable APM" },
	{ 0x10, "enable SATA feature" },
	{ 0x55, "disable read look-ahead" },
	{ 0x66, "disable defaults on reset" },
	{ 0x82, "disable write cache" },
	{ 0x85, "disable APM" },
	{ 0x90, "disable SATA feature" },
	{ 0xaa, "enable read look-ahead" },
	{ 0xcc, "enable defaults on reset" },
};

const size_t iot_ata_smart_nr = ARRAY_SIZE(iot_ata_smart);
const size_t iot_ata_setfeatures_nr = ARRAY_SIZE(iot_ata_setfeatures);

/* ata_cmds by code: the first entry of each */
static const struct ata_cmd *cmd_idx[256];

static void __attribute__((constructor)) ata_index_init(void)
{
	size_t i;

	for (i = iot_ata_ops_nr; i--; )
		cmd_idx[ata_cmds[i].code] = &ata_cmds[i];
}

static const struct ata_cmd *find_cmd(uint8_t code)
{
	return cmd_idx[code];
}

/* "NAME lba=LBA count=COUNT" without snprintf; the end of the string */
static char *ata_lba_count(char *out, size_t outlen, const char *name,
			   uint64_t lba, unsigned int count)
{
	char *p = out, *end = out + outlen;

	p = iot_put_s(p, end, name);
	p = iot_put_s(p, end, " lba=");
	p = iot_put_u(p, end, lba);
	p = iot_put_s(p, end, " count=");
	return iot_put_u(p, end, count);
}

/**
 * iot_decode_ata() - decode an ATA taskfile.
 * @buf: struct iotrace_ata_tf bytes.
 * @len: valid bytes.
 * @out: output.
 * @outlen: its size.
 *
 * Data commands show lba and count (sectors; 0 means 256 for 28-bit and
 * 65536 for 48-bit commands); NCQ commands take the count from the
 * features and show the NCQ tag.
 */
void iot_decode_ata(const uint8_t *buf, size_t len, char *out, size_t outlen)
{
	struct iotrace_ata_tf tf;
	const struct ata_cmd *c;
	const char *sub;
	uint32_t count;
	char *p;

	if (len < sizeof(tf)) {
		snprintf(out, outlen, "ata: short taskfile (%zu bytes)", len);
		return;
	}
	memcpy(&tf, buf, sizeof(tf));
	c = find_cmd(tf.command);
	if (!c) {
		snprintf(out, outlen, "%s (cmd 0x%02x)",
			 tf.command >= 0x80 && tf.command <= 0x8f ?
			 "VENDOR SPECIFIC" : "UNKNOWN", tf.command);
		return;
	}
	switch (c->kind) {
	case ATA_K_LBA28:
		count = (tf.count & 0xff) ? (tf.count & 0xff) : 256;
		ata_lba_count(out, outlen, c->name, (tf.lba & 0xfffffff) |
			      ((uint64_t)(tf.device & 0xf) << 24), count);
		return;
	case ATA_K_LBA48:
		count = tf.count ? tf.count : 65536;
		ata_lba_count(out, outlen, c->name,
			      tf.lba & 0xffffffffffffULL, count);
		return;
	case ATA_K_NCQ:
		count = tf.feature | tf.hob_feature << 8;
		if (!count)
			count = 65536;
		p = ata_lba_count(out, outlen, c->name,
				  tf.lba & 0xffffffffffffULL, count);
		p = iot_put_s(p, out + outlen, " tag=");
		p = iot_put_u(p, out + outlen, (tf.count >> 3) & 0x1f);
		if (tf.device & 0x80)
			iot_put_s(p, out + outlen, " fua");
		return;
	}
	switch (tf.command) {
	case 0xb0:
		sub = iot_lookup(iot_ata_smart, iot_ata_smart_nr, tf.feature);
		snprintf(out, outlen, "%s %s", c->name,
			 sub ? sub : "(unknown subcommand)");
		return;
	case 0xef:
		sub = iot_lookup(iot_ata_setfeatures, iot_ata_setfeatures_nr,
				 tf.feature);
		snprintf(out, outlen, "%s %s (0x%02x)", c->name,
			 sub ? sub : "subcommand", tf.feature);
		return;
	case 0x06:
		/* "%s%s blocks=%u", without snprintf */
		p = iot_put_s(out, out + outlen, c->name);
		if (tf.feature & 1)
			p = iot_put_s(p, out + outlen, " TRIM");
		p = iot_put_s(p, out + outlen, " blocks=");
		iot_put_u(p, out + outlen, tf.count);
		return;
	case 0x2f:
	case 0x47:
		p = iot_put_s(out, out + outlen, c->name);
		p = iot_put_s(p, out + outlen, " log=");
		iot_put_x2(p, out + outlen, (unsigned int)(tf.lba & 0xff));
		return;
	}
	iot_put_s(out, out + outlen, c->name);
}

/* Decode status register 7:0 and error register 15:8. */
void iot_decode_ata_status(uint32_t status, char *out, size_t outlen)
{
	static const char *const st_bits[8] = {
		"ERR", NULL, NULL, "DRQ", NULL, "DF", "DRDY", "BSY"
	};
	static const char *const err_bits[8] = {
		"AMNF", "NM", "ABRT", "MCR", "IDNF", "MC", "UNC", "ICRC"
	};
	unsigned int st = status & 0xff, er = (status >> 8) & 0xff, i;
	char *p = out, *end = out + outlen;

	p = iot_put_s(p, end, "st=");
	p = iot_put_x2(p, end, st);
	for (i = 0; i < 8; i++)
		if ((st & (1u << i)) && st_bits[i]) {
			p = iot_put_s(p, end, " ");
			p = iot_put_s(p, end, st_bits[i]);
		}
	if (er) {
		p = iot_put_s(p, end, " err=");
		p = iot_put_x2(p, end, er);
		for (i = 0; i < 8; i++)
			if (er & (1u << i)) {
				p = iot_put_s(p, end, " ");
				p = iot_put_s(p, end, err_bits[i]);
			}
	}
}
