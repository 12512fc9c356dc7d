// SPDX-License-Identifier: GPL-2.0
/*
 * nlsend - send one request of the iotrace generic netlink family with the
 * attributes given on the command line, well-formed or not, and print the
 * kernel's answer: "errno N NAME" (0 for an ack) and the extended ack
 * message if there is one.  The guest tests use it to check refusals.
 *
 *   nlsend [-d] [-n COUNT] CMD [ATTR:TYPE:VALUE]...
 *
 * -d sends the request as a dump (NLM_F_DUMP): the answer ends with
 * NLMSG_DONE, or an error; then "messages N" follows, the messages before
 * the end.  -n sends it COUNT times on one socket, each
 * after the previous answer (0: until SIGTERM or SIGINT), and prints only
 * "requests N errors E us T" at the end: E the answers that were errors,
 * T the microseconds from the first request to the last answer.  -x CMD2
 * (with -n) makes every second request CMD2, with the same attributes
 * (e.g. disable, then enable).  The guest tests use -n as a looping
 * reader and to time control requests without process start-up.
 * CMD is a number or list, enable, disable, clear, resize, filter,
 * nvme-layout, trigger.
 * ATTR is the attribute number; TYPE is u8, u16, u32, u64, str (NUL
 * included), raw (string without its NUL) or hex (bytes as hex digits).
 * Exit status 0 when the kernel answered, 2 on a usage or transport error.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <linux/iotrace.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int answer_err = -1;
static char answer_msg[256];
static atomic_int stop;	/* set by the signal handler (lock-free) */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_error(struct sockaddr_nl *sa, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *h = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	(void)sa;
	(void)arg;
	answer_err = -e->error;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len > 0 && nla_parse(tb, NLMSGERR_ATTR_MAX,
				 (struct nlattr *)((char *)e + off), len,
				 NULL) >= 0 && tb[NLMSGERR_ATTR_MSG])
		snprintf(answer_msg, sizeof(answer_msg), "%s",
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int on_ack(struct nl_msg *m, void *arg)
{
	(void)m;
	(void)arg;
	answer_err = 0;
	return NL_STOP;
}

static int on_finish(struct nl_msg *m, void *arg)
{
	(void)m;
	(void)arg;
	answer_err = 0;
	return NL_STOP;
}

static unsigned long messages;	/* a dump's, before its end */

static int on_valid(struct nl_msg *m, void *arg)
{
	(void)m;
	(void)arg;
	messages++;
	return NL_OK;
}

static int cmd_of(const char *s)
{
	static const char *const names[] = {
		[IOTRACE_CMD_LIST] = "list", [IOTRACE_CMD_ENABLE] = "enable",
		[IOTRACE_CMD_DISABLE] = "disable",
		[IOTRACE_CMD_CLEAR] = "clear", [IOTRACE_CMD_RESIZE] = "resize",
		[IOTRACE_CMD_SET_FILTER] = "filter",
		[IOTRACE_CMD_SET_NVME_LAYOUT] = "nvme-layout",
		[IOTRACE_CMD_SET_TRIGGER] = "trigger",
	};
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(names); i++)
		if (names[i] && !strcmp(s, names[i]))
			return (int)i;
	return atoi(s);
}

static int put_attr(struct nl_msg *m, char *spec)
{
	char *t = strchr(spec, ':'), *v;
	int type;

	if (!t)
		return -1;
	v = strchr(t + 1, ':');
	if (!v)
		return -1;
	*t++ = 0;
	*v++ = 0;
	type = atoi(spec);
	if (!strcmp(t, "u8"))
		return nla_put_u8(m, type, (uint8_t)strtoull(v, NULL, 0));
	if (!strcmp(t, "u16"))
		return nla_put_u16(m, type, (uint16_t)strtoull(v, NULL, 0));
	if (!strcmp(t, "u32"))
		return nla_put_u32(m, type, (uint32_t)strtoull(v, NULL, 0));
	if (!strcmp(t, "u64"))
		return nla_put_u64(m, type, strtoull(v, NULL, 0));
	if (!strcmp(t, "str"))
		return nla_put_string(m, type, v);
	if (!strcmp(t, "raw"))
		return nla_put(m, type, (int)strlen(v), v);
	if (!strcmp(t, "hex")) {
		unsigned char buf[256];
		size_t n = strlen(v) / 2, i;
		unsigned int x;

		if (n > sizeof(buf))
			return -1;
		for (i = 0; i < n; i++) {
			if (sscanf(v + 2 * i, "%2x", &x) != 1)
				return -1;
			buf[i] = (unsigned char)x;
		}
		return nla_put(m, type, (int)n, buf);
	}
	return -1;
}

/* Send @m and wait for its answer; 0, or 2 on a transport error. */
static int send_one(struct nl_sock *sk, struct nl_cb *cb, struct nl_msg *m)
{
	int ret;

	answer_err = -1;
	answer_msg[0] = 0;
	if (nl_send_auto(sk, m) < 0)
		return 2;
	while (answer_err < 0) {
		ret = nl_recvmsgs(sk, cb);
		if (stop)
			return 0;
		if (ret < 0 && answer_err < 0) {
			fprintf(stderr, "nlsend: %s\n", nl_geterror(ret));
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long count = 1, n = 0, errors = 0;
	int fam, i, one = 1, ret, flags = 0, opt, cmd2 = -1;
	struct timespec t0, t1;
	bool loop = false;
	struct nl_sock *sk;
	struct nl_msg *m;
	struct nl_cb *cb;

	while ((opt = getopt(argc, argv, "+dn:x:")) != -1) {
		switch (opt) {
		case 'd':
			flags |= NLM_F_DUMP;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			loop = true;
			break;
		case 'x':
			cmd2 = cmd_of(optarg);
			break;
		default:
			return 2;
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 2) {
		fprintf(stderr,
			"usage: nlsend [-d] [-n COUNT] CMD [ATTR:TYPE:VALUE]...\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0) {
		fprintf(stderr, "nlsend: no generic netlink socket\n");
		return 2;
	}
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	/* each answer is waited for: no sequence bookkeeping across sends */
	nl_socket_disable_seq_check(sk);
	fam = genl_ctrl_resolve(sk, IOTRACE_GENL_NAME);
	if (fam < 0) {
		fprintf(stderr, "nlsend: no family %s\n", IOTRACE_GENL_NAME);
		return 2;
	}
	m = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!m || !cb ||
	    !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0, flags,
			 (uint8_t)cmd_of(argv[1]), IOTRACE_GENL_VERSION))
		return 2;
	for (i = 2; i < argc; i++) {
		if (put_attr(m, argv[i]) < 0) {
			fprintf(stderr, "nlsend: bad attribute '%s'\n", argv[i]);
			return 2;
		}
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, NULL);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, NULL);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && (!count || n < count)) {
		nlmsg_hdr(m)->nlmsg_seq = NL_AUTO_SEQ;
		if (cmd2 >= 0)
			genlmsg_hdr(nlmsg_hdr(m))->cmd =
				n % 2 ? (uint8_t)cmd2 : (uint8_t)cmd_of(argv[1]);
		ret = send_one(sk, cb, m);
		if (ret)
			return ret;
		if (stop)
			break;
		n++;
		errors += answer_err != 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (loop) {
		printf("requests %lu errors %lu us %lld\n", n, errors,
		       (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
		       (t1.tv_nsec - t0.tv_nsec) / 1000);
		return 0;
	}
	printf("errno %d %s%s%s\n", answer_err,
	       answer_err ? strerrorname_np(answer_err) : "OK",
	       answer_msg[0] ? " " : "", answer_msg);
	if (flags & NLM_F_DUMP)
		printf("messages %lu\n", messages);
	return 0;
}
