// SPDX-License-Identifier: GPL-2.0
/*
 * The control client of the commands and the service: requests to the
 * iotrace generic netlink family (libnl-genl-3) -- enable, disable, clear,
 * resize, filter, trigger, state, events, nvme-layout, the in-kernel
 * metrics -- for iotracectl's control commands, list, metrics, the
 * exporter and watch.
 *
 * enable, disable and clear fall back to the debugfs files when the family
 * is not registered (a module without netlink, or a fake debugfs in the
 * host tests).  Kernel errors are reported with their errno and the
 * kernel's extended ack message when there is one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <dirent.h>
#include "btf.h"
#include "cmd.h"
#include "macros.h"
#include "metrics.h"
#include "out.h"
#include "trigger.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/**
 * struct iot_nl - one connection to the family.
 * @sk: libnl socket.
 * @family: resolved family id.
 * @err: errno of the last request (positive), 0 if acknowledged.
 * @done: the last request is answered (ack, error or end of dump).
 * @msg: extended ack message of the last error, if any.
 * @disk: disk of the request, for messages.
 * @fmt: output format of state replies.
 * @nr: state replies printed.
 * @probe: LIST replies are not printed, only @nvme_status noted.
 * @nvme_status: IOTRACE_A_NVME_STATUS of the last LIST reply, -1 if none.
 * @rows: when set, state replies are collected there instead of printed.
 * @nrows: rows in @rows.
 * @metrics: when set, a GET_METRICS reply is parsed into it.
 * @merr: why the reply could not be parsed ("" if it could).
 */
struct iot_nl {
	struct nl_sock *sk;
	int family;
	int err;
	int done;
	char msg[256];
	const char *disk;
	enum iot_fmt fmt;
	unsigned int nr;
	int probe;
	int nvme_status;
	struct iot_nl_disk **rows;
	size_t *nrows;
	struct iot_metrics *metrics;
	char merr[IOT_ERR_LEN];
};

static const char *const nl_attr_names[IOTRACE_A_MAX + 1] = {
	[IOTRACE_A_DEV_MAJOR] = "major",
	[IOTRACE_A_DEV_MINOR] = "minor",
	[IOTRACE_A_ENABLED] = "enabled",
	[IOTRACE_A_BUF_SIZE] = "buf_size",
	[IOTRACE_A_RING_SIZE] = "ring_size",
	[IOTRACE_A_NR_PARTS] = "nr_parts",
	[IOTRACE_A_PART_RECORDS] = "part_records",
	[IOTRACE_A_GENERATION] = "generation",
	[IOTRACE_A_RECORDED] = "recorded",
	[IOTRACE_A_PRESENT] = "present",
	[IOTRACE_A_OVERWRITTEN] = "overwritten",
	[IOTRACE_A_DROPPED] = "dropped",
	[IOTRACE_A_FILTERED] = "filtered",
	[IOTRACE_A_INFLIGHT] = "inflight",
	[IOTRACE_A_TOTAL_COMPLETED] = "total_completed",
	[IOTRACE_A_TOTAL_RECORDED] = "total_recorded",
	[IOTRACE_A_TOTAL_OVERWRITTEN] = "total_overwritten",
	[IOTRACE_A_TOTAL_DROPPED] = "total_dropped",
	[IOTRACE_A_TOTAL_FILTERED] = "total_filtered",
	[IOTRACE_A_RESIZES] = "resizes",
	[IOTRACE_A_FILTER_OPS] = "filter_ops",
	[IOTRACE_A_FILTER_SECTOR_MIN] = "filter_sector_min",
	[IOTRACE_A_FILTER_SECTOR_MAX] = "filter_sector_max",
	[IOTRACE_A_FILTER_MIN_BYTES] = "filter_min_bytes",
	[IOTRACE_A_NVME_STATUS] = "nvme_status",
	[IOTRACE_A_NVME_STATUS_OFF] = "nvme_status_off",
	[IOTRACE_A_NVME_STATUS_SIZE] = "nvme_status_size",
	[IOTRACE_A_NVME_RESULT_OFF] = "nvme_result_off",
	[IOTRACE_A_NVME_RESULT_SIZE] = "nvme_result_size",
	[IOTRACE_A_TRIG_LAT_READ] = "trigger_read_lat_ns",
	[IOTRACE_A_TRIG_LAT_WRITE] = "trigger_write_lat_ns",
	[IOTRACE_A_TRIG_LAT_FLUSH] = "trigger_flush_lat_ns",
	[IOTRACE_A_TRIG_LAT_DISCARD] = "trigger_discard_lat_ns",
	[IOTRACE_A_TRIG_LAT_OTHER] = "trigger_other_lat_ns",
	[IOTRACE_A_TRIG_ERROR] = "trigger_error",
	[IOTRACE_A_TRIG_ERRNO] = "trigger_errno",
	[IOTRACE_A_TRIG_DEVSTATUS] = "trigger_devstatus",
	[IOTRACE_A_TRIG_TIMEOUT] = "trigger_timeout",
	[IOTRACE_A_TRIG_REQUEUES] = "trigger_requeues",
	[IOTRACE_A_TRIG_STUCK_NS] = "trigger_stuck_ns",
	[IOTRACE_A_TRIG_RATE_NS] = "trigger_rate_ns",
	[IOTRACE_A_TRIG_HITS] = "trigger_hits",
	[IOTRACE_A_TRIG_EVENTS] = "trigger_events",
	[IOTRACE_A_TRIG_SUPPRESSED_TOTAL] = "trigger_suppressed_total",
	[IOTRACE_A_TRIG_EPOCH] = "trigger_epoch",
	[IOTRACE_A_TRIG_HOLD_CHUNKS] = "trigger_hold_chunks",
	[IOTRACE_A_TRIG_HOLD_NS] = "trigger_hold_ns",
	[IOTRACE_A_HOLD_LO] = "hold_lo",
	[IOTRACE_A_HOLD_HI] = "hold_hi",
	[IOTRACE_A_HOLD_NS] = "hold_ns",
	[IOTRACE_A_MEM_RING] = "mem_ring",
	[IOTRACE_A_MEM_SLOTS] = "mem_slots",
	[IOTRACE_A_MEM_METRICS] = "mem_metrics",
};

/* The attributes of a trigger event, by their short names. */
static const char *const ev_trig_names[IOTRACE_A_MAX + 1] = {
	[IOTRACE_A_DEV_MAJOR] = "major",
	[IOTRACE_A_DEV_MINOR] = "minor",
	[IOTRACE_A_GENERATION] = "generation",
	[IOTRACE_A_TRIG_SUPPRESSED] = "suppressed",
	[IOTRACE_A_TRIG_EVENTS] = "events",
	[IOTRACE_A_TRIG_EPOCH] = "epoch",
	[IOTRACE_A_TRIG_CPU] = "cpu",
	[IOTRACE_A_TRIG_SEQ] = "seq",
	[IOTRACE_A_TRIG_TIME_NS] = "time_ns",
	[IOTRACE_A_TRIG_ISSUE_NS] = "issue_ns",
	[IOTRACE_A_TRIG_LATENCY_NS] = "latency_ns",
	[IOTRACE_A_TRIG_ERRNO] = "errno",
	[IOTRACE_A_TRIG_DEV_STATUS] = "dev_status",
	[IOTRACE_A_TRIG_SECTOR] = "sector",
	[IOTRACE_A_TRIG_BYTES] = "bytes",
	[IOTRACE_A_TRIG_HWQ] = "hwq",
	[IOTRACE_A_TRIG_TAG] = "tag",
	[IOTRACE_A_TRIG_RETRIES] = "retries",
	[IOTRACE_A_TRIG_PID] = "pid",
	[IOTRACE_A_HOLD_LO] = "hold_lo",
	[IOTRACE_A_HOLD_HI] = "hold_hi",
	[IOTRACE_A_HOLD_NS] = "hold_ns",
};

static const char *const filter_ops[] = {
	[IOTRACE_OP_READ] = "read", [IOTRACE_OP_WRITE] = "write",
	[IOTRACE_OP_FLUSH] = "flush", [IOTRACE_OP_DISCARD] = "discard",
	[IOTRACE_OP_SECURE_ERASE] = "secerase",
	[IOTRACE_OP_WRITE_ZEROES] = "wzeroes",
	[IOTRACE_OP_ZONE_OPEN] = "zopen", [IOTRACE_OP_ZONE_CLOSE] = "zclose",
	[IOTRACE_OP_ZONE_FINISH] = "zfinish",
	[IOTRACE_OP_ZONE_APPEND] = "zappend",
	[IOTRACE_OP_ZONE_RESET] = "zreset",
	[IOTRACE_OP_ZONE_RESET_ALL] = "zresetall",
	[IOTRACE_OP_DRV_IN] = "drv_in", [IOTRACE_OP_DRV_OUT] = "drv_out",
};

/* Pull the NLMSGERR_ATTR_MSG string out of an error's ack TLVs. */
static void nl_extack(struct nlmsgerr *e, struct iot_nl *nl)
{
	struct nlmsghdr *h = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	nl->msg[0] = 0;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->msg, sizeof(nl->msg), "%s",
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
}

static int nl_on_error(struct sockaddr_nl *sa, struct nlmsgerr *e, void *arg)
{
	struct iot_nl *nl = arg;

	(void)sa;
	nl->err = -e->error;
	nl->done = 1;
	if (e->error)
		nl_extack(e, nl);
	return NL_STOP;
}

static int nl_on_ack(struct nl_msg *msg, void *arg)
{
	struct iot_nl *nl = arg;

	(void)msg;
	nl->done = 1;
	return NL_STOP;
}

/* A netlink attribute's number (u8, u32 or u64): 0, or -1 for another. */
static int nl_num(const struct nlattr *a, uint64_t *v)
{
	switch (nla_len(a)) {
	case 1:
		*v = nla_get_u8(a);
		return 0;
	case 4:
		*v = nla_get_u32(a);
		return 0;
	case 8:
		*v = nla_get_u64(a);
		return 0;
	}
	return -1;
}

static void print_state(struct iot_nl *nl, struct nlattr **tb)
{
	static const char *const skeys[] = { "disk" };
	const char *name = tb[IOTRACE_A_DISK_NAME] ?
		nla_get_string(tb[IOTRACE_A_DISK_NAME]) : "?";
	struct iot_kv kv[IOTRACE_A_MAX + 1];
	struct iot_jw w;
	size_t n = 0;
	uint64_t v;
	int i;

	if (nl->fmt != FMT_JSON)
		printf("%sdisk: %s\n", nl->nr ? "\n" : "", name);
	for (i = 0; i <= IOTRACE_A_MAX; i++) {
		if (!tb[i] || !nl_attr_names[i] || nl_num(tb[i], &v))
			continue;
		if (nl->fmt == FMT_JSON) {
			kv[n].k = nl_attr_names[i];
			kv[n++].v = v;
		} else if (i == IOTRACE_A_FILTER_OPS) {
			printf("%s: 0x%" PRIx64 "\n", nl_attr_names[i], v);
		} else {
			printf("%s: %" PRIu64 "\n", nl_attr_names[i], v);
		}
	}
	if (nl->fmt == FMT_JSON) {
		/* the name as the kernel gave it: escaped by the writer */
		fputs(nl->nr ? ",\n " : "[", stdout);
		jw_init(&w, stdout);
		iot_kv_json(&w, skeys, &name, 1, kv, n);
	}
	nl->nr++;
}

/* Keep a state reply @msg as a row of iot_nl_list(). */
static int collect_state(struct iot_nl *nl, struct nlattr **tb,
			 struct nl_msg *msg)
{
	struct iot_nl_disk *r;
	struct nlattr *a;
	int i, rem;

	if (!tb[IOTRACE_A_DISK_NAME])
		return NL_SKIP;
	r = realloc(*nl->rows, (*nl->nrows + 1) * sizeof(*r));
	if (!r)
		return NL_STOP;
	*nl->rows = r;
	r += (*nl->nrows)++;
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s",
		 nla_get_string(tb[IOTRACE_A_DISK_NAME]));
	for (i = 0; i <= IOTRACE_A_MAX; i++) {
		if (!tb[i])
			continue;
		switch (nla_len(tb[i])) {
		case 1:
			r->v[i] = nla_get_u8(tb[i]);
			break;
		case 4:
			r->v[i] = nla_get_u32(tb[i]);
			break;
		case 8:
			r->v[i] = nla_get_u64(tb[i]);
			break;
		default:
			continue;
		}
		r->have[i] = 1;
	}
	/* the errno list repeats its attribute: tb[] kept the last */
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0),
			  genlmsg_attrlen(nlmsg_data(nlmsg_hdr(msg)), 0), rem)
		if (nla_type(a) == IOTRACE_A_TRIG_ERRNO &&
		    nla_len(a) == 4 &&
		    r->nr_errnos < IOTRACE_TRIG_MAX_ERRNOS)
			r->errnos[r->nr_errnos++] = nla_get_u32(a);
	return NL_OK;
}

static int nl_on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[IOTRACE_A_MAX + 1];
	struct iot_nl *nl = arg;

	if (nl->metrics) {
		struct nlmsghdr *h = nlmsg_hdr(msg);

		if (!genlmsg_valid_hdr(h, 0)) {
			snprintf(nl->merr, sizeof(nl->merr),
				 "metrics reply: no generic netlink header");
			return NL_SKIP;
		}
		if (iot_metrics_parse(nl->metrics,
				      genlmsg_attrdata(nlmsg_data(h), 0),
				      (size_t)genlmsg_attrlen(nlmsg_data(h), 0),
				      nl->merr, sizeof(nl->merr)))
			return NL_SKIP;
		nl->merr[0] = 0;
		return NL_OK;
	}
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, IOTRACE_A_MAX, NULL) < 0)
		return NL_SKIP;
	if (nl->probe) {
		nl->nvme_status = tb[IOTRACE_A_NVME_STATUS] ?
			nla_get_u8(tb[IOTRACE_A_NVME_STATUS]) : -1;
		return NL_OK;
	}
	if (nl->rows)
		return collect_state(nl, tb, msg);
	print_state(nl, tb);
	return NL_OK;
}

static int nl_on_finish(struct nl_msg *msg, void *arg)
{
	struct iot_nl *nl = arg;

	(void)msg;
	nl->done = 1;
	return NL_STOP;
}

/* Connect and resolve the family: 0, 1 when it is not there, -1 on error. */
static int iot_nl_open(struct iot_nl *nl)
{
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		iot_err("cannot allocate a netlink socket");
		return -1;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		iot_err("cannot open a generic netlink socket: %s",
			nl_geterror(ret));
		goto err;
	}
	/* kernel messages with errors; best effort */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, IOTRACE_GENL_NAME);
	if (nl->family < 0) {
		nl_socket_free(nl->sk);
		nl->sk = NULL;
		return 1;
	}
	return 0;
err:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return -1;
}

static void iot_nl_close(struct iot_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/*
 * Build a request for @disk (NULL: none), let @add put more attributes,
 * send it and wait for the answer.  Return: 0 or the kernel's errno.
 */
static int iot_nl_request(struct iot_nl *nl, uint8_t cmd, int flags,
			  const char *disk,
			  int (*add)(struct nl_msg *m, void *arg), void *arg)
{
	struct nl_msg *m;
	struct nl_cb *cb;
	int ret;

	m = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!m || !cb) {
		ret = ENOMEM;
		goto out;
	}
	nl->err = 0;
	nl->done = 0;
	nl->msg[0] = 0;
	nl->disk = disk;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, IOTRACE_GENL_VERSION) ||
	    (disk && nla_put_string(m, IOTRACE_A_DISK_NAME, disk) < 0) ||
	    (add && add(m, arg))) {
		ret = EMSGSIZE;
		goto out;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, nl_on_error, nl);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, nl_on_ack, nl);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, nl_on_finish, nl);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, nl_on_valid, nl);
	ret = nl_send_auto(nl->sk, m);
	if (ret < 0) {
		iot_err("cannot send to the kernel: %s", nl_geterror(ret));
		ret = EIO;
		goto out;
	}
	while (!nl->done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !nl->done) {
			iot_err("no answer from the kernel: %s",
				nl_geterror(ret));
			ret = EIO;
			goto out;
		}
	}
	ret = nl->err;
out:
	nl_cb_put(cb);
	nlmsg_free(m);
	return ret;
}

static void nl_report(struct iot_nl *nl, const char *what, int err)
{
	iot_err("%s %s: %s%s%s%s", what, nl->disk ? nl->disk : "",
		strerror(err), nl->msg[0] ? ": " : "", nl->msg,
		iot_nl_hint(err));
}

/* A refusal in @buf: the errno's text and the kernel's message, if any. */
static void nl_why(const struct iot_nl *nl, int err, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", strerror(err), nl->msg[0] ? ": " : "",
		 nl->msg);
}

/* ---- the debugfs fallback: enable, disable, clear without the family ---- */

static int write_ctl(int argc, char **argv, const char *file,
		     const char *val, const char *what)
{
	int i, rc = 0;

	if (!argc) {
		iot_err("%s needs one or more DISK arguments", what);
		return 2;
	}
	for (i = 0; i < argc; i++) {
		char path[512];
		int fd;

		snprintf(path, sizeof(path), "%s/%s/%s", iot_debugfs(),
			 argv[i], file);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, val, strlen(val)) < 0) {
			iot_err("%s %s: %s: %s%s", what, argv[i], path,
				strerror(errno), errno == ENOENT ?
				" ('iotracectl list' shows the traced disks)" :
				errno == EACCES || errno == EPERM ?
				" (run as root)" : "");
			rc = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}

static int cmd_enable(struct iot_opts *o, int argc, char **argv)
{
	(void)o;
	return write_ctl(argc, argv, "enable", "1\n", "enable");
}

static int cmd_disable(struct iot_opts *o, int argc, char **argv)
{
	(void)o;
	return write_ctl(argc, argv, "enable", "0\n", "disable");
}

static int cmd_clear(struct iot_opts *o, int argc, char **argv)
{
	(void)o;
	return write_ctl(argc, argv, "clear", "1\n", "clear");
}

/* ---- nvme-layout ------------------------------------------------------- */

static int nl_need(struct iot_nl *nl);

static int add_layout(struct nl_msg *m, void *arg)
{
	const struct iot_nvme_layout *l = arg;

	return nla_put_u32(m, IOTRACE_A_NVME_STATUS_OFF, l->status_off) < 0 ||
	       nla_put_u32(m, IOTRACE_A_NVME_STATUS_SIZE, l->status_size) < 0 ||
	       nla_put_u32(m, IOTRACE_A_NVME_RESULT_OFF, l->result_off) < 0 ||
	       nla_put_u32(m, IOTRACE_A_NVME_RESULT_SIZE, l->result_size) < 0;
}

/*
 * Read struct nvme_request's layout from the BTF.  Return: 0, or 1 with
 * the reason in @err.
 */
static int nvme_layout_read(struct iot_nvme_layout *l, char *err,
			    size_t errlen)
{
	const char *dir = iot_btf_dir();
	int ret;

	ret = iot_nvme_btf_layout(dir, l, err, errlen);
	if (ret == IOT_BTF_NONE && !getenv("IOTRACE_BTF_DIR") &&
	    access("/sys/module/nvme_core", F_OK))
		snprintf(err, errlen,
			 "nvme_core is not loaded: no NVMe layout to read (the udev rule gives it when nvme_core loads)");
	return ret ? 1 : 0;
}

/* Give the layout to the module (nl open).  Return: 0 or the errno. */
static int nvme_layout_send(struct iot_nl *nl, struct iot_nvme_layout *l)
{
	return iot_nl_request(nl, IOTRACE_CMD_SET_NVME_LAYOUT, 0, NULL,
			      add_layout, l);
}

/*
 * enable on an NVMe ring: give the module the layout first if it has none,
 * best effort and silently (the stats of the ring tell why there is no
 * status when this fails).
 */
static void nvme_layout_auto(struct iot_nl *nl, int argc, char **argv)
{
	struct iot_nvme_layout l;
	char err[IOT_ERR_LEN];
	int i, ret;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "nvme", 4))
			break;
	if (i == argc)
		return;
	nl->probe = 1;
	nl->nvme_status = -1;
	ret = iot_nl_request(nl, IOTRACE_CMD_LIST, 0, argv[i], NULL, NULL);
	nl->probe = 0;
	/* an older module (no attribute) or already known: nothing to do */
	if (ret || nl->nvme_status)
		return;
	if (!nvme_layout_read(&l, err, sizeof(err)))
		nvme_layout_send(nl, &l);
}

int cmd_nl_nvme_layout(struct iot_opts *o, int argc, char **argv)
{
	struct iot_nvme_layout l;
	char err[IOT_ERR_LEN];
	struct iot_nl nl;
	int ret;

	(void)argv;
	if (argc) {
		iot_err("nvme-layout takes no arguments ([--show] [--quiet])");
		return 2;
	}
	if (nvme_layout_read(&l, err, sizeof(err))) {
		if (!o->quiet)
			iot_err("%s", err);
		return 1;
	}
	if (o->show || !o->quiet)
		fprintf(stdout,
			"struct nvme_request (%u bytes) in %s: status @%u (%u bytes), result @%u (%u bytes)\n",
			l.struct_size, l.source, l.status_off, l.status_size,
			l.result_off, l.result_size);
	if (o->show)
		return 0;
	if (nl_need(&nl))
		return 1;
	ret = nvme_layout_send(&nl, &l);
	if (ret) {
		if (!o->quiet)
			nl_report(&nl, "nvme-layout", ret);
	} else if (!o->quiet) {
		fprintf(stdout,
			"given to the iotrace module: NVMe commands completed from now on carry their status\n");
	}
	iot_nl_close(&nl);
	return ret ? 1 : 0;
}

/* ---- identify --------------------------------------------------------- */

static const char *sysfs_root(void)
{
	const char *s = getenv("IOTRACE_SYSFS");

	return s && *s ? s : "/sys";
}

/* who a disk is, as sysfs says */
struct nl_ident {
	char model[IOTRACE_FILE_ID_LEN];
	char serial[IOTRACE_FILE_ID_LEN];
	char wwn[IOTRACE_FILE_ID_LEN];
};

static int add_ident(struct nl_msg *m, void *arg)
{
	const struct nl_ident *id = arg;

	return nla_put_string(m, IOTRACE_A_ID_MODEL, id->model) < 0 ||
	       nla_put_string(m, IOTRACE_A_ID_SERIAL, id->serial) < 0 ||
	       nla_put_string(m, IOTRACE_A_ID_WWN, id->wwn) < 0;
}

/* Give the module who @name is (nl open).  Return: 0 or the errno. */
static int ident_one(struct iot_nl *nl, const char *name, int quiet)
{
	struct nl_ident id;
	char t[3][IOT_TEXT_ROOM(IOTRACE_FILE_ID_LEN)];
	int ret;

	iot_sysfs_identity(sysfs_root(), name, id.model, id.serial, id.wwn,
			   sizeof(id.model));
	if (!id.model[0] && !id.serial[0] && !id.wwn[0])
		iot_sysfs_ctrl_identity(sysfs_root(), name, id.model,
					id.serial, sizeof(id.model));
	ret = iot_nl_request(nl, IOTRACE_CMD_SET_IDENTITY, 0, name, add_ident,
			     &id);
	if (ret) {
		if (!quiet)
			nl_report(nl, "identify", ret);
		return ret;
	}
	if (!quiet)
		printf("%s: model \"%s\", serial \"%s\", wwn \"%s\"\n", name,
		       iot_text_str(t[0], sizeof(t[0]), id.model),
		       iot_text_str(t[1], sizeof(t[1]), id.serial),
		       iot_text_str(t[2], sizeof(t[2]), id.wwn));
	return 0;
}

/*
 * identify [--quiet] [DISK...]: give the module each disk's model, serial
 * and wwn from sysfs (every disk it knows without DISK), for the
 * persistent region: the udev rule runs it when a disk or the module
 * comes.
 */
int cmd_nl_identify(struct iot_opts *o, int argc, char **argv)
{
	struct iot_nl_disk *rows = NULL;
	size_t n = 0, i;
	struct iot_nl nl;
	int k, rc = 0;

	k = iot_nl_open(&nl);
	/* --quiet (udev): no module, nothing to give it, nothing to say */
	if (k > 0 && o->quiet)
		return 0;
	if (k > 0)
		iot_err("the iotrace generic netlink family is not registered (is the iotrace module loaded? 'modprobe iotrace' or insmod iotrace.ko)");
	if (k)
		return 1;
	if (!argc && iot_nl_list(&rows, &n)) {
		iot_nl_close(&nl);
		return 1;
	}
	for (k = 0; k < argc; k++)
		if (ident_one(&nl, argv[k], o->quiet))
			rc = 1;
	for (i = 0; i < n; i++)
		if (ident_one(&nl, rows[i].name, o->quiet))
			rc = 1;
	iot_nl_close(&nl);
	free(rows);
	return rc;
}

/* enable/disable/clear: through netlink, else the debugfs files. */
static int nl_simple(int argc, char **argv, uint8_t cmd, const char *what,
		     int (*fallback)(struct iot_opts *, int, char **),
		     struct iot_opts *o)
{
	struct iot_nl nl;
	int i, ret, rc = 0;

	if (!argc) {
		iot_err("%s needs one or more DISK arguments", what);
		return 2;
	}
	ret = iot_nl_open(&nl);
	if (ret < 0)
		return 1;
	if (ret > 0)
		return fallback(o, argc, argv);
	if (cmd == IOTRACE_CMD_ENABLE)
		nvme_layout_auto(&nl, argc, argv);
	for (i = 0; i < argc; i++) {
		ret = iot_nl_request(&nl, cmd, 0, argv[i], NULL, NULL);
		if (ret) {
			nl_report(&nl, what, ret);
			rc = 1;
		}
	}
	iot_nl_close(&nl);
	return rc;
}

static int nl_need(struct iot_nl *nl)
{
	int ret = iot_nl_open(nl);

	if (ret > 0)
		iot_err("the iotrace generic netlink family is not registered (is the iotrace module loaded? 'modprobe iotrace' or insmod iotrace.ko)");
	return ret ? 1 : 0;
}

int cmd_nl_enable(struct iot_opts *o, int argc, char **argv)
{
	return nl_simple(argc, argv, IOTRACE_CMD_ENABLE, "enable", cmd_enable,
			 o);
}

/**
 * iot_nl_enable() - enable tracing of @disk, as "iotracectl enable DISK"
 *	does, but the kernel's refusal is handed back instead of said (the
 *	watcher's: it tells a refusal for want of privilege from others).
 * @o: the options (of the debugfs files, when there is no family).
 * @disk: the disk.
 * @err: the refusal (the errno's text and the kernel's message).
 * @errlen: its size.
 *
 * Return: 0; a positive errno, the kernel's (EPERM without CAP_NET_ADMIN
 * or CAP_SYS_ADMIN), said in @err; or -1 when no request reached the
 * kernel (said on standard error).
 */
int iot_nl_enable(struct iot_opts *o, const char *disk, char *err,
		  size_t errlen)
{
	char *argv[1] = { (char *)disk };
	struct iot_nl nl;
	int ret = iot_nl_open(&nl);

	if (ret < 0)
		return -1;
	if (ret > 0)
		return cmd_enable(o, 1, argv) ? -1 : 0;
	nvme_layout_auto(&nl, 1, argv);
	ret = iot_nl_request(&nl, IOTRACE_CMD_ENABLE, 0, disk, NULL, NULL);
	if (ret)
		nl_why(&nl, ret, err, errlen);
	iot_nl_close(&nl);
	return ret;
}

int cmd_nl_disable(struct iot_opts *o, int argc, char **argv)
{
	return nl_simple(argc, argv, IOTRACE_CMD_DISABLE, "disable",
			 cmd_disable, o);
}

int cmd_nl_clear(struct iot_opts *o, int argc, char **argv)
{
	return nl_simple(argc, argv, IOTRACE_CMD_CLEAR, "clear", cmd_clear, o);
}

/* A byte count with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;
	int sh = 0;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	x = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		sh = 10, end++;
		break;
	case 'm': case 'M':
		sh = 20, end++;
		break;
	case 'g': case 'G':
		sh = 30, end++;
		break;
	}
	if (*end || x > (ULLONG_MAX >> sh))
		return -1;
	x <<= sh;
	*v = x;
	return 0;
}

static int add_u64(struct nl_msg *m, void *arg)
{
	return nla_put_u64(m, IOTRACE_A_BUF_SIZE, *(uint64_t *)arg) < 0;
}

/**
 * iot_nl_resize() - resize the ring of @disk to @size bytes, the kernel's
 *	refusal handed back (see iot_nl_enable()).
 * @disk: the disk.
 * @size: bytes (0: no ring).
 * @err: the refusal (the errno's text and the kernel's message).
 * @errlen: its size.
 *
 * Return: 0; a positive errno, the kernel's, said in @err; or -1 when no
 * request reached the kernel (said on standard error).
 */
int iot_nl_resize(const char *disk, uint64_t size, char *err, size_t errlen)
{
	struct iot_nl nl;
	int ret;

	if (nl_need(&nl))
		return -1;
	ret = iot_nl_request(&nl, IOTRACE_CMD_RESIZE, 0, disk, add_u64, &size);
	if (ret)
		nl_why(&nl, ret, err, errlen);
	iot_nl_close(&nl);
	return ret;
}

int cmd_nl_resize(struct iot_opts *o, int argc, char **argv)
{
	char err[IOT_ERR_LEN];
	uint64_t size;
	int ret;

	(void)o;
	/* the kernel checks the range (and says so): only refuse garbage */
	if (argc != 2 || parse_size(argv[1], &size)) {
		iot_err("resize DISK SIZE: SIZE in bytes, K, M or G suffixes (64K to 1G and at least two 4K chunks per possible CPU, or 0: metrics only)");
		return 2;
	}
	ret = iot_nl_resize(argv[0], size, err, sizeof(err));
	if (ret > 0)
		iot_err("resize %s: %s%s", argv[0], err, iot_nl_hint(ret));
	return ret ? 1 : 0;
}

/**
 * struct nl_filter - attributes of a filter request.
 * @ops: operation mask, if @have_ops.
 * @smin: first sector, if @have_sec.
 * @smax: last sector (inclusive), if @have_sec.
 * @min_bytes: smallest request, if @have_bytes.
 * @have_ops: @ops is set.
 * @have_sec: @smin and @smax are set.
 * @have_bytes: @min_bytes is set.
 */
struct nl_filter {
	uint32_t ops;
	uint64_t smin, smax;
	uint64_t min_bytes;
	int have_ops, have_sec, have_bytes;
};

static int add_filter(struct nl_msg *m, void *arg)
{
	struct nl_filter *f = arg;

	if (f->have_ops && nla_put_u32(m, IOTRACE_A_FILTER_OPS, f->ops) < 0)
		return 1;
	if (f->have_sec &&
	    (nla_put_u64(m, IOTRACE_A_FILTER_SECTOR_MIN, f->smin) < 0 ||
	     nla_put_u64(m, IOTRACE_A_FILTER_SECTOR_MAX, f->smax) < 0))
		return 1;
	if (f->have_bytes &&
	    nla_put_u32(m, IOTRACE_A_FILTER_MIN_BYTES,
			(uint32_t)f->min_bytes) < 0)
		return 1;
	return 0;
}

static int parse_filter_ops(const char *s, uint32_t *mask)
{
	char buf[256], *tok, *save = NULL;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(tok, "other")) {
			*mask |= IOTRACE_FILTER_OP_OTHER;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(filter_ops); i++)
			if (filter_ops[i] && !strcasecmp(tok, filter_ops[i]))
				break;
		if (i == ARRAY_SIZE(filter_ops))
			return -1;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -1;
}

int cmd_nl_filter(struct iot_opts *o, int argc, char **argv)
{
	struct nl_filter f = { 0 };
	struct iot_nl nl;
	int i, ret;

	(void)o;
	if (argc < 1) {
		iot_err("filter DISK [ops=read,write,...] [sectors=A-B] [min-bytes=N] | filter DISK off");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "off") && argc == 2) {
			continue;
		} else if (!strncmp(a, "ops=", 4)) {
			if (parse_filter_ops(a + 4, &f.ops)) {
				iot_err("filter: %s: use ops=LIST of read, write, flush, discard, secerase, wzeroes, zopen, zclose, zfinish, zappend, zreset, zresetall, drv_in, drv_out, other",
					a);
				return 2;
			}
			f.have_ops = 1;
		} else if (!strncmp(a, "sectors=", 8)) {
			char *dash = strchr(a + 8, '-');

			if (!dash)
				goto bad_sec;
			*dash = 0;
			if (parse_size(a + 8, &f.smin) ||
			    parse_size(dash + 1, &f.smax) || f.smax <= f.smin)
				goto bad_sec;
			/* A-B is [A, B); the kernel takes the last sector */
			f.smax--;
			f.have_sec = 1;
		} else if (!strncmp(a, "min-bytes=", 10)) {
			if (parse_size(a + 10, &f.min_bytes) ||
			    f.min_bytes > (1u << 30)) {
				iot_err("filter: %s: a byte count up to 1G", a);
				return 2;
			}
			f.have_bytes = 1;
		} else {
			iot_err("filter: unknown argument '%s' (ops=, sectors=, min-bytes= or off)",
				a);
			return 2;
		}
	}
	if (nl_need(&nl))
		return 1;
	ret = iot_nl_request(&nl, IOTRACE_CMD_SET_FILTER, 0, argv[0], add_filter,
			     &f);
	if (ret)
		nl_report(&nl, "filter", ret);
	iot_nl_close(&nl);
	return ret ? 1 : 0;
bad_sec:
	iot_err("filter: sectors=START-END with START < END (512-byte sectors, END excluded)");
	return 2;
}

static unsigned int nl_family_version(struct iot_nl *nl);

static int add_trigger(struct nl_msg *m, void *arg)
{
	const struct iot_trig_req *t = arg;
	unsigned int i;

	if (t->off)
		return 0;
	for (i = 0; i < IOTRACE_NR_MOPS; i++)
		if (t->lat_ns[i] &&
		    nla_put_u64(m, IOTRACE_A_TRIG_LAT_READ + i, t->lat_ns[i]) < 0)
			return 1;
	if ((t->error && nla_put_u8(m, IOTRACE_A_TRIG_ERROR, 1) < 0) ||
	    (t->devstatus && nla_put_u8(m, IOTRACE_A_TRIG_DEVSTATUS, 1) < 0) ||
	    (t->timeout && nla_put_u8(m, IOTRACE_A_TRIG_TIMEOUT, 1) < 0) ||
	    (t->requeues &&
	     nla_put_u32(m, IOTRACE_A_TRIG_REQUEUES, t->requeues) < 0) ||
	    (t->stuck_ns &&
	     nla_put_u64(m, IOTRACE_A_TRIG_STUCK_NS, t->stuck_ns) < 0) ||
	    (t->have_rate &&
	     nla_put_u64(m, IOTRACE_A_TRIG_RATE_NS, t->rate_ns) < 0))
		return 1;
	for (i = 0; i < t->nr_errnos; i++)
		if (nla_put_u32(m, IOTRACE_A_TRIG_ERRNO, t->errnos[i]) < 0)
			return 1;
	if ((t->have_hold && t->hold_chunks &&
	     nla_put_u32(m, IOTRACE_A_TRIG_HOLD_CHUNKS, t->hold_chunks) < 0) ||
	    (t->hold_ns &&
	     nla_put_u64(m, IOTRACE_A_TRIG_HOLD_NS, t->hold_ns) < 0))
		return 1;
	return 0;
}

int cmd_nl_trigger(struct iot_opts *o, int argc, char **argv)
{
	struct iot_trig_req t;
	struct iot_nl nl;
	char err[256];
	int ret;

	(void)o;
	if (argc < 2) {
		iot_err("trigger %s", IOT_TRIG_USAGE);
		return 2;
	}
	if (iot_trig_parse(argc - 1, argv + 1, &t, err, sizeof(err))) {
		iot_err("trigger: %s", err);
		return 2;
	}
	if (nl_need(&nl))
		return 1;
	if (nl_family_version(&nl) < 4) {
		iot_err("trigger: the loaded iotrace module has no triggers (generic netlink version 4 or later needed)");
		iot_nl_close(&nl);
		return 1;
	}
	if (((t.have_hold && t.hold_chunks) || t.hold_ns) &&
	    nl_family_version(&nl) < 5) {
		iot_err("trigger: the loaded iotrace module has no hold (generic netlink version 5 or later needed)");
		iot_nl_close(&nl);
		return 1;
	}
	ret = iot_nl_request(&nl, IOTRACE_CMD_SET_TRIGGER, 0, argv[0],
			     add_trigger, &t);
	if (ret)
		nl_report(&nl, "trigger", ret);
	iot_nl_close(&nl);
	return ret ? 1 : 0;
}

int cmd_nl_state(struct iot_opts *o, int argc, char **argv)
{
	struct iot_nl nl;
	int i, ret, rc = 0;

	if (nl_need(&nl))
		return 1;
	nl.fmt = o->fmt;
	if (!argc) {
		ret = iot_nl_request(&nl, IOTRACE_CMD_LIST, NLM_F_DUMP, NULL, NULL,
				     NULL);
		if (ret) {
			nl_report(&nl, "state", ret);
			rc = 1;
		}
	}
	for (i = 0; i < argc; i++) {
		ret = iot_nl_request(&nl, IOTRACE_CMD_LIST, 0, argv[i], NULL, NULL);
		if (ret) {
			nl_report(&nl, "state", ret);
			rc = 1;
		}
	}
	if (o->fmt == FMT_JSON)
		printf("%s]\n", nl.nr ? "" : "[");
	iot_nl_close(&nl);
	return rc;
}

/**
 * iot_nl_list() - the state of every traced disk, through netlink.
 * @rows: set to a malloc()ed array, free() it.
 * @n: set to its length.
 *
 * Return: 0, 1 when the family is not registered, -1 on an error (said).
 */
int iot_nl_list(struct iot_nl_disk **rows, size_t *n)
{
	struct iot_nl nl;
	int ret;

	*rows = NULL;
	*n = 0;
	ret = iot_nl_open(&nl);
	if (ret)
		return ret;
	nl.rows = rows;
	nl.nrows = n;
	ret = iot_nl_request(&nl, IOTRACE_CMD_LIST, NLM_F_DUMP, NULL, NULL,
			     NULL);
	if (ret)
		nl_report(&nl, "list", ret);
	iot_nl_close(&nl);
	return ret ? -1 : 0;
}

/* ---- events ------------------------------------------------------------ */

static volatile sig_atomic_t ev_stop;

static void ev_signal(int sig)
{
	(void)sig;
	ev_stop = 1;
}

/**
 * struct nl_ev - state of the events loop.
 * @o: options (-o json).
 * @seen: events printed.
 */
struct nl_ev {
	struct iot_opts *o;
	long seen;
};

static int ev_on_valid(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[IOTRACE_A_MAX + 1];
	const char *const *names = nl_attr_names;
	static const char *const skeys[] = { "event", "disk", "reason", "op" };
	struct iot_kv kv[IOTRACE_A_MAX + 1];
	struct nl_ev *ev = arg;
	const char *what, *name, *sv[4];
	char rs[128];
	struct iot_jw w;
	size_t ns = 0, n = 0;
	int i;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, IOTRACE_A_MAX, NULL) < 0)
		return NL_SKIP;
	switch (g->cmd) {
	case IOTRACE_CMD_EVT_DISK_ADDED:
		what = "added";
		break;
	case IOTRACE_CMD_EVT_DISK_REMOVED:
		what = "removed";
		break;
	case IOTRACE_CMD_EVT_OVERFLOW:
		what = "overflow";
		break;
	case IOTRACE_CMD_EVT_TRIGGER:
		what = "trigger";
		names = ev_trig_names;
		break;
	default:
		return NL_SKIP;
	}
	name = tb[IOTRACE_A_DISK_NAME] ?
		nla_get_string(tb[IOTRACE_A_DISK_NAME]) : "?";
	sv[ns++] = what;
	sv[ns++] = name;
	if (g->cmd == IOTRACE_CMD_EVT_TRIGGER) {
		unsigned int op = tb[IOTRACE_A_TRIG_OP] ?
			nla_get_u8(tb[IOTRACE_A_TRIG_OP]) : IOTRACE_OP_UNKNOWN;

		iot_trig_reason_str(tb[IOTRACE_A_TRIG_REASON] ?
				    nla_get_u32(tb[IOTRACE_A_TRIG_REASON]) : 0,
				    rs, sizeof(rs));
		sv[ns++] = rs;
		/* no op: a notice, the kernel lets anyone join the group */
		sv[ns++] = !tb[IOTRACE_A_TRIG_OP] ? "-" :
			op < ARRAY_SIZE(filter_ops) &&
			filter_ops[op] ? filter_ops[op] : "other";
	}
	for (i = IOTRACE_A_DEV_MAJOR; i <= IOTRACE_A_MAX; i++) {
		if (!tb[i] || !names[i] || nl_num(tb[i], &kv[n].v))
			continue;
		kv[n++].k = names[i];
	}
	if (ev->o->fmt == FMT_JSON) {
		/* one object a line; the name and reason escaped */
		jw_init(&w, stdout);
		iot_kv_json(&w, skeys, sv, ns, kv, n);
	} else {
		printf("%s %s", what, name);
		if (ns > 2)
			printf(" reason=%s op=%s", rs, sv[3]);
		for (i = 0; i < (int)n; i++)
			printf(" %s=%" PRIu64, kv[i].k, kv[i].v);
	}
	putchar('\n');
	if (iot_out_flush(stdout, "standard output"))
		return NL_STOP;
	ev->seen++;
	return NL_OK;
}

/* Events are not answers to a request: no sequence number to check. */
static int ev_no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmd_nl_events(struct iot_opts *o, int argc, char **argv)
{
	struct nl_ev ev = { .o = o };
	struct sigaction sa;
	double end = 0;
	struct iot_nl nl;
	struct nl_cb *cb;
	int grp, ret, rc = 0;

	(void)argv;
	if (argc) {
		iot_err("events takes no arguments ([--count N] [--duration S])");
		return 2;
	}
	if (nl_need(&nl))
		return 1;
	grp = genl_ctrl_resolve_grp(nl.sk, IOTRACE_GENL_NAME,
				    IOTRACE_GENL_MCGRP);
	if (grp < 0) {
		iot_err("no multicast group '%s' in the iotrace family: %s",
			IOTRACE_GENL_MCGRP, nl_geterror(grp));
		iot_nl_close(&nl);
		return 1;
	}
	nl_socket_disable_seq_check(nl.sk);
	/* room for a burst (libnl's default is 32 KiB; the kernel caps it) */
	nl_socket_set_buffer_size(nl.sk, 1 << 20, 0);
	ret = nl_socket_add_membership(nl.sk, grp);
	if (ret < 0) {
		iot_err("cannot join the iotrace events group: %s",
			nl_geterror(ret));
		iot_nl_close(&nl);
		return 1;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		iot_nl_close(&nl);
		return 1;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, ev_on_valid, &ev);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, ev_no_seq_check, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ev_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed output pipe is said, not a silent end */
	iot_out_no_sigpipe();
	if (o->duration > 0)
		end = mono_now() + o->duration;
	/* ready: a script may now start what it wants to watch */
	fprintf(stderr, "iotracectl: listening for iotrace events\n");
	while (!ev_stop && (!o->count || ev.seen < o->count) &&
	       !ferror(stdout)) {
		struct pollfd p = { .fd = nl_socket_get_fd(nl.sk),
				    .events = POLLIN };
		int ms = 200;

		if (end) {
			double left = end - mono_now();

			if (left <= 0)
				break;
			if (left < 0.2)
				ms = (int)(left * 1000) + 1;
		}
		ret = poll(&p, 1, ms);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			iot_err("poll: %s", strerror(errno));
			rc = 1;
			break;
		}
		if (!ret)
			continue;
		ret = nl_recvmsgs(nl.sk, cb);
		if (ret == -NLE_NOMEM) {	/* ENOBUFS: said, not fatal */
			fprintf(stderr,
				"iotracectl: events lost: the socket's receive buffer overflowed (a burst faster than this reader)\n");
			continue;
		}
		if (ret < 0 && ret != -NLE_INTR && ret != -NLE_AGAIN) {
			iot_err("receiving events: %s", nl_geterror(ret));
			rc = 1;
			break;
		}
	}
	nl_cb_put(cb);
	iot_nl_close(&nl);
	return rc;
}

/* ---- in-kernel metrics (genl version 3) ---------------------------------- */

/* The family's version, as the controller tells it; 0 if unknown. */
/**
 * iot_genl_version() - the version of the iotrace family the module on
 *	the other side of @sk registered.
 * @sk: a connected generic netlink socket.
 *
 * Return: the version, 0 when unknown (no family, no cache).
 */
unsigned int iot_genl_version(struct nl_sock *sk)
{
	struct nl_cache *cache = NULL;
	struct genl_family *fam;
	unsigned int v = 0;

	if (genl_ctrl_alloc_cache(sk, &cache) < 0)
		return 0;
	fam = genl_ctrl_search_by_name(cache, IOTRACE_GENL_NAME);
	if (fam) {
		v = (unsigned int)genl_family_get_version(fam);
		genl_family_put(fam);
	}
	nl_cache_free(cache);
	return v;
}

static unsigned int nl_family_version(struct iot_nl *nl)
{
	return iot_genl_version(nl->sk);
}

/**
 * struct iot_msrc - where metrics come from: the iotrace family, or the
 * canned replies of the directory $IOTRACE_METRICS_DIR (DISK.metrics files
 * holding a reply's attributes; an empty one is a disk that went away):
 * the host tests' hook.
 * @nl: the netlink connection (@dir NULL).
 * @dir: the canned replies' directory.
 */
struct iot_msrc {
	struct iot_nl nl;
	const char *dir;
};

/**
 * iot_msrc_open() - a metrics source.
 * @err: why not.
 * @errlen: its size.
 *
 * Return: the source, or NULL with @err set.
 */
struct iot_msrc *iot_msrc_open(char *err, size_t errlen)
{
	struct iot_msrc *s = calloc(1, sizeof(*s));
	int ret;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->dir = getenv("IOTRACE_METRICS_DIR");
	if (s->dir && *s->dir)
		return s;
	s->dir = NULL;
	ret = iot_nl_open(&s->nl);
	if (ret) {
		if (ret > 0)
			snprintf(err, errlen,
				 "the iotrace generic netlink family is not registered (is the iotrace module loaded?)");
		else
			snprintf(err, errlen, "cannot open a generic netlink socket");
		free(s);
		return NULL;
	}
	/* a reply is ~10 KiB: let libnl size its buffer to the message */
	nl_socket_enable_msg_peek(s->nl.sk);
	return s;
}

void iot_msrc_close(struct iot_msrc *s)
{
	if (!s)
		return;
	if (!s->dir)
		iot_nl_close(&s->nl);
	free(s);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct iot_nl_disk *)a)->name,
		      ((const struct iot_nl_disk *)b)->name);
}

/**
 * iot_msrc_list() - the disks of @s with their LIST counters (netlink),
 * sorted by name.
 * @s: the source.
 * @rows: set to a malloc()ed array, free() it.
 * @n: set to its length.
 * @err: why not.
 * @errlen: its size.
 *
 * Return: 0 or -1 with @err set.
 */
int iot_msrc_list(struct iot_msrc *s, struct iot_nl_disk **rows, size_t *n,
		  char *err, size_t errlen)
{
	int ret;

	*rows = NULL;
	*n = 0;
	if (s->dir) {
		struct dirent *de;
		DIR *d = opendir(s->dir);

		if (!d) {
			snprintf(err, errlen, "%s: %s", s->dir, strerror(errno));
			return -1;
		}
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);
			struct iot_nl_disk *r;

			if (l <= 8 || l - 8 > IOTRACE_NAME_LEN - 1 ||
			    strcmp(de->d_name + l - 8, ".metrics"))
				continue;
			r = realloc(*rows, (*n + 1) * sizeof(*r));
			if (!r) {
				closedir(d);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*rows = r;
			r += (*n)++;
			memset(r, 0, sizeof(*r));
			memcpy(r->name, de->d_name, l - 8);
		}
		closedir(d);
	} else {
		s->nl.rows = rows;
		s->nl.nrows = n;
		ret = iot_nl_request(&s->nl, IOTRACE_CMD_LIST, NLM_F_DUMP, NULL,
				     NULL, NULL);
		s->nl.rows = NULL;
		s->nl.nrows = NULL;
		if (ret) {
			snprintf(err, errlen, "list: %s", strerror(ret));
			return -1;
		}
	}
	if (*n)
		qsort(*rows, *n, sizeof(**rows), name_cmp);
	return 0;
}

/* A module older than genl version 3 has no GET/RESET_METRICS. */
static int iot_msrc_unsupported(struct iot_msrc *s, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "the loaded iotrace module has no in-kernel metrics (genl version %u); load a newer one",
		 nl_family_version(&s->nl));
	return -EOPNOTSUPP;
}

/**
 * iot_msrc_get() - the metrics of @disk.
 * @s: the source.
 * @disk: its name.
 * @m: result.
 * @err: why not.
 * @errlen: its size.
 *
 * Return: 0; -ENODEV when the disk is gone (or was never there),
 * -EOPNOTSUPP when the module has no metrics (older than genl version 3,
 * @err says which), -ENODATA when it keeps none (loaded with metrics=N),
 * another negative errno with @err set.
 */
int iot_msrc_get(struct iot_msrc *s, const char *disk, struct iot_metrics *m,
		 char *err, size_t errlen)
{
	char text[IOT_TEXT_ROOM(IOTRACE_NAME_LEN)];
	int ret;

	/* the name in a message: the kernel's (a LIST's), as text */
	iot_text_str(text, sizeof(text), disk);
	if (s->dir) {
		char path[4096];

		if (strchr(disk, '/')) {
			snprintf(err, errlen, "%s: no such disk", text);
			return -ENODEV;
		}
		snprintf(path, sizeof(path), "%s/%s.metrics", s->dir, disk);
		ret = iot_metrics_load(m, path, err, errlen);
		return ret == -ENOENT ? -ENODEV : ret;
	}
	s->nl.metrics = m;
	snprintf(s->nl.merr, sizeof(s->nl.merr), "no metrics in the kernel's reply");
	ret = iot_nl_request(&s->nl, IOTRACE_CMD_GET_METRICS, 0, disk, NULL,
			     NULL);
	s->nl.metrics = NULL;
	if (ret == EOPNOTSUPP)
		return iot_msrc_unsupported(s, err, errlen);
	if (ret) {
		snprintf(err, errlen, "%s: %s%s%s", text, strerror(ret),
			 s->nl.msg[0] ? ": " : "", s->nl.msg);
		return -ret;
	}
	if (s->nl.merr[0]) {
		snprintf(err, errlen, "%s: %s", text, s->nl.merr);
		return -EPROTO;
	}
	return 0;
}

/**
 * iot_msrc_reset() - zero the metrics of @disk (CAP_SYS_ADMIN).
 * @s: the source (netlink).
 * @disk: its name.
 * @err: why not.
 * @errlen: its size.
 *
 * Return: 0 or a negative errno with @err set.
 */
int iot_msrc_reset(struct iot_msrc *s, const char *disk, char *err,
		   size_t errlen)
{
	int ret;

	if (s->dir) {
		snprintf(err, errlen,
			 "%s: canned metrics (IOTRACE_METRICS_DIR) cannot be reset",
			 disk);
		return -EOPNOTSUPP;
	}
	ret = iot_nl_request(&s->nl, IOTRACE_CMD_RESET_METRICS, 0, disk, NULL,
			     NULL);
	if (ret == EOPNOTSUPP)
		return iot_msrc_unsupported(s, err, errlen);
	if (ret) {
		snprintf(err, errlen, "reset-metrics %s: %s%s%s%s", disk,
			 strerror(ret), s->nl.msg[0] ? ": " : "", s->nl.msg,
			 iot_nl_hint(ret));
		return -ret;
	}
	return 0;
}

int cmd_nl_reset_metrics(struct iot_opts *o, int argc, char **argv)
{
	char err[IOT_ERR_LEN];
	struct iot_msrc *s;
	int i, rc = 0;

	(void)o;
	if (!argc) {
		iot_err("reset-metrics needs one or more DISK arguments");
		return 2;
	}
	s = iot_msrc_open(err, sizeof(err));
	if (!s) {
		iot_err("%s", err);
		return 1;
	}
	for (i = 0; i < argc; i++)
		if (iot_msrc_reset(s, argv[i], err, sizeof(err))) {
			iot_err("%s", err);
			rc = 1;
		}
	iot_msrc_close(s);
	return rc;
}
