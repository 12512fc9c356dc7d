/* SPDX-License-Identifier: GPL-2.0 */
/* iotracectl trigger: the arguments of a SET_TRIGGER request (trigger.c). */
#ifndef IOT_TRIGGER_H
#define IOT_TRIGGER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/iotrace.h>

/**
 * struct iot_trig_req - the triggers asked for on the command line.
 * @lat_ns: latency threshold per enum iotrace_mop, 0 for none.
 * @errnos: the errnos of error=LIST.
 * @nr_errnos: entries of @errnos.
 * @error: error or error=LIST given.
 * @devstatus: devstatus given.
 * @timeout: timeout given.
 * @requeues: requeues=N, 0 for none.
 * @stuck_ns: stuck=T, 0 for none.
 * @rate_ns: rate=T, if @have_rate.
 * @have_rate: rate= given.
 * @off: "off": no triggers.
 * @hold_chunks: hold=N (IOTRACE_TRIG_HOLD_MAX for "max", 0 for "off"),
 *	if @have_hold.
 * @have_hold: hold= given.
 * @hold_ns: hold-expire=T, 0 for the kernel's default.
 */
struct iot_trig_req {
	uint64_t lat_ns[IOTRACE_NR_MOPS];
	uint32_t errnos[IOTRACE_TRIG_MAX_ERRNOS];
	unsigned int nr_errnos;
	int error, devstatus, timeout;
	uint32_t requeues;
	uint64_t stuck_ns;
	uint64_t rate_ns;
	int have_rate;
	int off;
	uint32_t hold_chunks;
	int have_hold;
	uint64_t hold_ns;
};

#define IOT_TRIG_USAGE "DISK [read-lat=T] [write-lat=T] [flush-lat=T] " \
	"[discard-lat=T] [other-lat=T] [error[=EIO,..]] [devstatus] " \
	"[timeout] [requeues=N] [stuck=T] [rate=T] [hold=N|max|off] " \
	"[hold-expire=T] | DISK off"

int iot_trig_parse(int argc, char **argv, struct iot_trig_req *t,
		   char *err, size_t errlen);
int iot_parse_duration(const char *s, uint64_t *ns);
int iot_parse_hold(const char *s, uint32_t *chunks);
/* trigfile.c: the names of the reason bits, kernel events and files alike */
const char *iot_trig_reason_name(unsigned int bit);
const char *iot_trig_reason_str(uint32_t reason, char *buf, size_t len);

/* trigfile.c: a snapshot's trigger chunk, written and printed */
struct iot_writer;
struct iot_src;
struct iot_jw;
int iot_writer_trigger(struct iot_writer *w, unsigned int disk,
		       const struct iotrace_file_trigger *t);
void iot_trig_reason_names(uint32_t reason, char *out, size_t len);
int iot_info_triggers(const struct iot_src *s, struct iot_jw *jw, char *err,
		      size_t errlen);

#endif
