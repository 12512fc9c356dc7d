// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the command and status decoders.  The first byte
 * picks the decoder and the output buffer size, the next four bytes are a
 * status word, the rest is the command (any length, also longer than a
 * record's cmd[]).  Output goes to an exact-size heap buffer, so ASan
 * catches a decoder writing past the size it is given, and the result must
 * be NUL-terminated.  The same bytes are then decoded as a whole record.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *out, size_t outlen)
{
	if (strnlen(out, outlen) == outlen)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t sizes[] = { 1, 2, 8, 16, 32, 64, 128, 512 };
	struct iotrace_record r;
	uint32_t status = 0;
	size_t outlen, clen;
	uint8_t sel, *cmd;
	char *out;

	if (size < 1)
		return FUZZ_DONE;
	sel = data[0];
	data++;
	size--;
	if (size >= 4) {
		memcpy(&status, data, 4);
		data += 4;
		size -= 4;
	}
	outlen = sizes[(sel >> 2) & 7];
	out = malloc(outlen);
	cmd = fuzz_copy(data, size);	/* exact size: reads past it are caught */
	clen = size;
	switch (sel & 3) {
	case 0:
		iot_decode_nvme(cmd, clen, (sel >> 5) & 1, out, outlen);
		check(out, outlen);
		iot_decode_nvme_status(status, out, outlen);
		break;
	case 1:
		iot_decode_scsi(cmd, clen, out, outlen);
		check(out, outlen);
		iot_decode_scsi_status(status, out, outlen);
		break;
	case 2:
		iot_decode_ata(cmd, clen, out, outlen);
		check(out, outlen);
		iot_decode_ata_status(status, out, outlen);
		break;
	default:
		iot_errno_name((int)status, out, outlen);
		check(out, outlen);
		(void)iot_op_name(status & 0xff);
		if (clen) {	/* a command-line operation name */
			cmd[clen - 1] = 0;
			iot_op_parse((const char *)cmd);
		}
		break;
	}
	check(out, outlen);
	free(out);
	free(cmd);

	/* the same bytes as a record (short inputs are zero-padded) */
	memset(&r, 0, sizeof(r));
	memcpy(&r, data, size < sizeof(r) ? size : sizeof(r));
	fuzz_record(NULL, 0, &r);
	return FUZZ_DONE;
}
