// SPDX-License-Identifier: GPL-2.0
/*
 * Decoders common to all devices: operation names, errno names, request
 * flags, and the dispatch from a record to the NVMe/SCSI/ATA decoders.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "iot.h"
#include "macros.h"

static const struct iot_name op_names[] = {
	{ IOTRACE_OP_READ, "read" },
	{ IOTRACE_OP_WRITE, "write" },
	{ IOTRACE_OP_FLUSH, "flush" },
	{ IOTRACE_OP_DISCARD, "discard" },
	{ IOTRACE_OP_SECURE_ERASE, "secerase" },
	{ IOTRACE_OP_WRITE_ZEROES, "wzeroes" },
	{ IOTRACE_OP_ZONE_OPEN, "zopen" },
	{ IOTRACE_OP_ZONE_CLOSE, "zclose" },
	{ IOTRACE_OP_ZONE_FINISH, "zfinish" },
	{ IOTRACE_OP_ZONE_APPEND, "zappend" },
	{ IOTRACE_OP_ZONE_RESET, "zreset" },
	{ IOTRACE_OP_ZONE_RESET_ALL, "zresetall" },
	{ IOTRACE_OP_DRV_IN, "drv_in" },
	{ IOTRACE_OP_DRV_OUT, "drv_out" },
	{ IOTRACE_OP_UNKNOWN, "unknown" },
};

static const struct iot_name errnos[] = {
	{ EIO, "EIO" },
	{ ENOSPC, "ENOSPC" },
	{ ETIMEDOUT, "ETIMEDOUT" },
	{ ENOLINK, "ENOLINK" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
	{ ENOMEM, "ENOMEM" },
	{ EAGAIN, "EAGAIN" },
	{ EBADE, "EBADE" },
	{ ENODATA, "ENODATA" },
	{ EILSEQ, "EILSEQ" },
	{ EREMOTEIO, "EREMOTEIO" },
	{ ENXIO, "ENXIO" },
	{ ENODEV, "ENODEV" },
	{ EBUSY, "EBUSY" },
	{ EINVAL, "EINVAL" },
	{ EPROTO, "EPROTO" },
	{ ETIME, "ETIME" },
	{ EOVERFLOW, "EOVERFLOW" },
	{ EREMCHG, "EREMCHG" },
	{ EBADMSG, "EBADMSG" },
	{ EINTR, "EINTR" },
	{ EROFS, "EROFS" },
};

struct iot_table iot_tables[] = {
	{ "op", op_names, ARRAY_SIZE(op_names) },
	{ "errno", errnos, ARRAY_SIZE(errnos) },
	{ "nvme-admin", iot_nvme_admin_ops, 0 },
	{ "nvme-io", iot_nvme_io_ops, 0 },
	{ "nvme-sc-generic", iot_nvme_sc_generic, 0 },
	{ "nvme-sc-cmd", iot_nvme_sc_cmd, 0 },
	{ "nvme-sc-media", iot_nvme_sc_media, 0 },
	{ "nvme-sc-path", iot_nvme_sc_path, 0 },
	{ "nvme-sct", iot_nvme_sct, 0 },
	{ "scsi-op", iot_scsi_ops, 0 },
	{ "scsi-sai16", iot_scsi_sai16, 0 },
	{ "scsi-sense-key", iot_scsi_sense_keys, 0 },
	{ "scsi-status", iot_scsi_status, 0 },
	{ "ata-op", iot_ata_ops, 0 },
	{ "ata-smart", iot_ata_smart, 0 },
	{ "ata-setfeatures", iot_ata_setfeatures, 0 },
};

const size_t iot_nr_tables = ARRAY_SIZE(iot_tables);

/* Table sizes live in other objects: fill them in at start-up. */
static void __attribute__((constructor)) tables_init(void)
{
	const size_t *nr[] = {
		NULL, NULL, &iot_nvme_admin_ops_nr, &iot_nvme_io_ops_nr,
		&iot_nvme_sc_generic_nr, &iot_nvme_sc_cmd_nr,
		&iot_nvme_sc_media_nr, &iot_nvme_sc_path_nr, &iot_nvme_sct_nr,
		&iot_scsi_ops_nr, &iot_scsi_sai16_nr, &iot_scsi_sense_keys_nr,
		&iot_scsi_status_nr, &iot_ata_ops_nr, &iot_ata_smart_nr,
		&iot_ata_setfeatures_nr,
	};
	struct iot_table *t = iot_tables;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nr); i++)
		if (nr[i])
			t[i].nr = *nr[i];
}

const char *iot_lookup(const struct iot_name *t, size_t nr, uint32_t code)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

/**
 * iot_index8() - an index of a name table by 8-bit code, for the decoders'
 *	per-record lookups: @idx[code] is what iot_lookup() finds (the first
 *	entry of that code), NULL for none.
 * @t: the table.
 * @nr: its entries.
 * @idx: the index to fill, 256 entries.
 */
void iot_index8(const struct iot_name *t, size_t nr, const char **idx)
{
	size_t i;

	memset(idx, 0, 256 * sizeof(*idx));
	for (i = nr; i--; )
		if (t[i].code < 256)
			idx[t[i].code] = t[i].name;
}

const char *iot_op_name(unsigned int op)
{
	const char *n;

	/* the table is in op order up to IOTRACE_OP_DRV_OUT */
	if (op <= IOTRACE_OP_DRV_OUT)
		return op_names[op].name;
	n = iot_lookup(op_names, ARRAY_SIZE(op_names), op);
	return n ? n : "op?";
}

/* Parse an operation name as printed by iot_op_name(); -1 if unknown. */
int iot_op_parse(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(op_names); i++)
		if (!strcasecmp(s, op_names[i].name))
			return op_names[i].code;
	return -1;
}

/* a constant string into @out (the common cases, without snprintf) */
static void put_str(char *out, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* "ok", "-EIO", or "-123" for a block-layer status. */
void iot_errno_name(int err, char *out, size_t len)
{
	const char *n;

	if (!err) {
		put_str(out, len, "ok");
		return;
	}
	n = iot_lookup(errnos, ARRAY_SIZE(errnos),
		       err < 0 ? 0u - (unsigned int)err : (unsigned int)err);
	if (n) {
		iot_put_s(iot_put_s(out, out + len, "-"), out + len, n);
	} else if (err < 0) {
		iot_put_u(iot_put_s(out, out + len, "-"), out + len,
			  0u - (unsigned int)err);
	} else {
		iot_put_u(out, out + len, (unsigned int)err);
	}
}

/* Request flags as "+sync+fua..." (empty when none). */
void iot_opflags_str(const struct iotrace_record *r, char *out, size_t len)
{
	static const char *const names[] = {
		"+sync", "+meta", "+prio", "+nomerge", "+idle", "+fua",
		"+preflush", "+rahead", "+bg", "+nowait", "+polled",
		"+nounmap",
	};
	unsigned int f = r->opflags & ((1u << ARRAY_SIZE(names)) - 1);
	char *p = out, *end = out + len;

	out[0] = 0;
	/* the flags that are set, lowest first */
	for (; f; f &= f - 1)
		p = iot_put_s(p, end, names[__builtin_ctz(f)]);
}

/**
 * iot_rec_path() - the path of an NVMe multipath head's record.
 * @disk: the name of the record's disk (the head, nvme<X>n<Y>).
 * @r: the record.
 * @out: output: the path disk's name, nvme<X>c<N>n<Y> (or "controller N"
 *	when @disk is not named so).
 * @outlen: its size.
 *
 * The head's ring stamps each record with 1 + its path's controller at
 * IOTRACE_CMD_PATH_OFF, bytes of the NVMe entry that iotrace zeroes
 * (and zero in a record without a command); a SCSI or ATA record has
 * none.
 *
 * Return: 1 and the name in @out, or 0 when @r names no path.
 */
int iot_rec_path(const char *disk, const struct iotrace_record *r, char *out,
		 size_t outlen)
{
	unsigned int x, y;
	uint32_t v;
	int n = 0;

	if (r->cmd_type != IOTRACE_CMD_NVME && r->cmd_type != IOTRACE_CMD_NONE)
		return 0;
	memcpy(&v, r->cmd + IOTRACE_CMD_PATH_OFF, sizeof(v));
	v = le32toh(v);
	if (!v)
		return 0;
	if (disk && sscanf(disk, "nvme%un%u%n", &x, &y, &n) == 2 && n > 0 &&
	    !disk[n])
		snprintf(out, outlen, "nvme%uc%un%u", x, v - 1, y);
	else
		snprintf(out, outlen, "controller %u", v - 1);
	return 1;
}

/**
 * iot_path_head() - the NVMe multipath head of a path disk's name.
 * @disk: a disk name.
 * @head: the head's name, nvme<X>n<Y> for the path nvme<X>c<C>n<Y>.
 * @len: its size.
 *
 * Return: 1 if @disk is named as a path, else 0 (@head untouched).
 */
int iot_path_head(const char *disk, char *head, size_t len)
{
	unsigned int x, c, y;
	int n = 0;

	if (sscanf(disk, "nvme%uc%un%u%n", &x, &c, &y, &n) != 3 || n <= 0 ||
	    disk[n])
		return 0;
	snprintf(head, len, "nvme%un%u", x, y);
	return 1;
}

/**
 * iot_decode_cmd() - decode a record's command, or describe the request
 *	from its sector and length when no command was captured.
 * @r: the record.
 * @out: output.
 * @outlen: its size.
 */
void iot_decode_cmd(const struct iotrace_record *r, char *out, size_t outlen)
{
	size_t len = r->cmd_len > IOTRACE_CMD_LEN ? IOTRACE_CMD_LEN :
		r->cmd_len;

	if (!(r->rflags & IOTRACE_RF_CMD_VALID) ||
	    r->cmd_type == IOTRACE_CMD_NONE) {
		put_str(out, outlen, "-");
		return;
	}
	switch (r->cmd_type) {
	case IOTRACE_CMD_NVME:
		iot_decode_nvme(r->cmd, len, !!(r->rflags & IOTRACE_RF_ADMIN),
				out, outlen);
		break;
	case IOTRACE_CMD_SCSI:
		iot_decode_scsi(r->cmd, len, out, outlen);
		break;
	case IOTRACE_CMD_ATA:
		iot_decode_ata(r->cmd, len, out, outlen);
		break;
	default:
		snprintf(out, outlen, "cmd type %u?", r->cmd_type);
	}
}

/*
 * The status strings made last, by command type and status: a trace
 * holds a few statuses again and again (an ATA status takes some 250
 * instructions to spell out).  Per thread: the exporter's and the
 * watcher's threads decode too.
 */
#define DS_CACHE	16
#define DS_CACHE_LEN	48

static __thread struct {
	uint32_t status;
	uint8_t type, len;	/* len 0: empty */
	char s[DS_CACHE_LEN];
} ds_cache[DS_CACHE];

static void decode_status(const struct iotrace_record *r, char *out,
			  size_t outlen);

/* Decode a record's device status, "-" when it has none. */
void iot_decode_status(const struct iotrace_record *r, char *out,
		       size_t outlen)
{
	unsigned int i = (r->dev_status ^ r->dev_status >> 8 ^
			  r->dev_status >> 16 ^ r->cmd_type * 5) % DS_CACHE;
	size_t len;

	if (!(r->rflags & IOTRACE_RF_STATUS_VALID)) {
		put_str(out, outlen, "-");
		return;
	}
	if (ds_cache[i].len && ds_cache[i].status == r->dev_status &&
	    ds_cache[i].type == r->cmd_type && ds_cache[i].len < outlen) {
		memcpy(out, ds_cache[i].s, ds_cache[i].len + 1);
		return;
	}
	decode_status(r, out, outlen);
	len = strlen(out);
	/* a string cut by @outlen is not kept */
	if (len && len + 1 < outlen && len < DS_CACHE_LEN) {
		ds_cache[i].status = r->dev_status;
		ds_cache[i].type = r->cmd_type;
		ds_cache[i].len = (uint8_t)len;
		memcpy(ds_cache[i].s, out, len + 1);
	}
}

/* iot_decode_status() of a record with a status, not from the cache */
static void decode_status(const struct iotrace_record *r, char *out,
			  size_t outlen)
{
	switch (r->cmd_type) {
	case IOTRACE_CMD_NVME:
		if (!r->dev_status)
			put_str(out, outlen, "ok");
		else
			iot_decode_nvme_status(r->dev_status, out, outlen);
		break;
	case IOTRACE_CMD_SCSI:
		iot_decode_scsi_status(r->dev_status, out, outlen);
		break;
	case IOTRACE_CMD_ATA:
		iot_decode_ata_status(r->dev_status, out, outlen);
		break;
	default:
		snprintf(out, outlen, "0x%08x", r->dev_status);
	}
}
