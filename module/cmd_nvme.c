// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - NVMe commands: the 64-byte submission entry as the driver
 * built it (nvme_setup_cmd) and the completion status and dword 0
 * (nvme_complete_rq).
 *
 * The status and result live in the nvme driver's private struct
 * nvme_request, the first member of every NVMe request's PDU, whose layout
 * no header package ships and which changes between kernels.  iotrace does
 * not guess it: user space reads the offsets of its status and result from
 * the running nvme_core's own BTF (/sys/kernel/btf/nvme_core) and gives
 * them with IOTRACE_CMD_SET_NVME_LAYOUT ("iotracectl nvme-layout").  Until
 * then, and after nvme_core went away, no NVMe status is recorded.
 */
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/nvme.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <net/netlink.h>
#include "iotrace.h"
#include "cmd.h"

/* Bytes 16-39 of an entry: MPTR, then PRP1/PRP2 or the SGL descriptor. */
#define IOTRACE_NVME_ADDR_OFF	16
#define IOTRACE_NVME_ADDR_LEN	24
/*
 * Admin Set Features, Host Memory Buffer (FID 0x0d): CDW13-14 (bytes
 * 52-59) are the bus address of the descriptor list (HMDLLA/HMDLUA,
 * nvme-pci's nvme_set_host_mem()).
 */
#define IOTRACE_NVME_FID_HMB	0x0d
#define IOTRACE_NVME_HMB_ADDR_OFF	52
#define IOTRACE_NVME_HMB_ADDR_LEN	8

/*
 * Copy entry @cmd into the command area @dst without what may hold an
 * address: MPTR and the data pointer of every command (words 2-4), and
 * the command-specific fields known to carry one (Documentation/abi.rst
 * lists them), as zeros.  Eight 8-byte stores: the address never reaches
 * @dst, even for a moment.  @admin: an admin-queue command (opcodes are
 * per queue type).
 */
static __always_inline void iotrace_nvme_copy(u8 *dst,
					      const struct nvme_command *cmd,
					      bool admin)
{
	const u64 *p = (const u64 *)cmd;
	u64 *q = (u64 *)dst;
	u64 w6 = p[6], w7 = p[7];

	/* words 2-4; the second half of word 6 and the first of word 7 */
	BUILD_BUG_ON(IOTRACE_NVME_ADDR_OFF != 16 ||
		     IOTRACE_NVME_ADDR_LEN != 24 ||
		     IOTRACE_NVME_HMB_ADDR_OFF != 52 ||
		     IOTRACE_NVME_HMB_ADDR_LEN != 8);
	if (unlikely(admin) && cmd->common.opcode == nvme_admin_set_features &&
	    (le32_to_cpu(cmd->features.fid) & 0xff) == IOTRACE_NVME_FID_HMB) {
		/*
		 * bytes 52-55 and 56-59: word 6's upper and word 7's lower
		 * four bytes in memory (the masks read as little-endian)
		 */
		w6 &= le64_to_cpu((__force __le64)0x00000000ffffffffULL);
		w7 &= le64_to_cpu((__force __le64)0xffffffff00000000ULL);
	}
	WRITE_ONCE(q[0], p[0]);
	WRITE_ONCE(q[1], p[1]);
	WRITE_ONCE(q[2], 0);
	WRITE_ONCE(q[3], 0);
	WRITE_ONCE(q[4], 0);
	WRITE_ONCE(q[5], p[5]);
	WRITE_ONCE(q[6], w6);
	WRITE_ONCE(q[7], w7);
}

/* The status field shifted right by one (phase tag dropped), 15 bits. */
#define IOTRACE_NVME_STATUS_MASK	0x7fff

/*
 * The layout, one atomic64 so that a probe never sees half of an update:
 * bits 0-15 status offset, 16-31 result offset, 32-39 result size,
 * bit 63 set when a layout was given.  The status is always a u16.
 */
#define IOTRACE_NVME_L_VALID	BIT_ULL(63)
#define IOTRACE_NVME_L_SOFF(l)	((u32)((l) & 0xffff))
#define IOTRACE_NVME_L_ROFF(l)	((u32)(((l) >> 16) & 0xffff))
#define IOTRACE_NVME_L_RSIZE(l)	((u32)(((l) >> 32) & 0xff))

static atomic64_t iotrace_nvme_layout = ATOMIC64_INIT(0);
/* Completions whose PDU was too small for the layout: not recorded. */
static atomic_long_t iotrace_nvme_refused = ATOMIC_LONG_INIT(0);

/**
 * iotrace_nvme_setup_cmd() - probe on nvme_setup_cmd: capture the entry.
 * @data: unused.
 * @rq: the request (I/O, passthrough or admin: the controller's ring).
 * @cmd: the submission entry, data pointers not filled in yet.
 *
 * The copy has its metadata and data pointer fields zeroed whatever they
 * hold, and the command-specific fields that carry an address
 * (iotrace_nvme_copy()): no kernel or bus address reaches the slot or
 * the ring.  The command id (bytes 2-3) is the driver's and kept.
 */
void iotrace_nvme_setup_cmd(void *data, struct request *rq,
			    struct nvme_command *cmd)
{
	IOTRACE_PROF_T(t0);
	/* Admin-queue requests have no disk: their controller's ring. */
	bool admin = !iotrace_rq_gd(rq);
	struct iotrace_slot *s;

	BUILD_BUG_ON(sizeof(struct nvme_command) != IOTRACE_CMD_LEN);
	preempt_disable_notrace();
	/*
	 * Copied into the slot without its addresses, untagged until
	 * published: no copy on the stack (which gave the probe a stack
	 * canary), nothing done for a disk not enabled.  A struct
	 * nvme_command is 8-byte aligned (its union has __le64 members):
	 * read in 8-byte words.
	 */
	s = iotrace_cmd_slot(rq);
	if (s) {
		iotrace_nvme_copy(s->cmd, cmd, admin);
		iotrace_cmd_publish(s, rq, IOTRACE_CMD_NVME, IOTRACE_CMD_LEN,
				    admin ? IOTRACE_RF_ADMIN : 0);
	}
	preempt_enable_notrace();
	iotrace_prof(IOTRACE_PF_NVME_CMD, t0);
}

/**
 * iotrace_nvme_complete_rq() - probe on nvme_complete_rq: the status.
 * @data: unused.
 * @rq: the request, before the block layer completes (or retries) it.
 *
 * Reads the status and result at the offsets user space took from the
 * running nvme_core's BTF, and only when both lie inside the request's
 * PDU (the tag set's cmd_size): never outside the driver's data.
 */
void iotrace_nvme_complete_rq(void *data, struct request *rq)
{
	IOTRACE_PROF_T(t0);
	u64 l = atomic64_read(&iotrace_nvme_layout);
	const u8 *pdu;
	u32 soff, roff, end;
	u16 status;
	u32 result;

	if (!(l & IOTRACE_NVME_L_VALID))
		goto out;
	soff = IOTRACE_NVME_L_SOFF(l);
	roff = IOTRACE_NVME_L_ROFF(l);
	end = max(soff + (u32)sizeof(u16), roff + IOTRACE_NVME_L_RSIZE(l));
	if (!rq->q->tag_set || end > rq->q->tag_set->cmd_size) {
		atomic_long_inc(&iotrace_nvme_refused);
		goto out;
	}
	pdu = blk_mq_rq_to_pdu(rq);
	status = READ_ONCE(*(const u16 *)(pdu + soff)) &
		IOTRACE_NVME_STATUS_MASK;
	/*
	 * union nvme_result: its __le32 u32 at offset 0 is dword 0.  A status
	 * the host made (path related, 0x370-0x37f: a path error, a command
	 * cancelled at a reset) came with no completion entry: the result is
	 * then a former command's.
	 */
	if ((status & 0x7f0) == 0x370)
		result = 0;
	else
		result = le32_to_cpu(READ_ONCE(*(const __le32 *)(pdu + roff)));
	preempt_disable_notrace();
	iotrace_note_status(rq, status, result,
			    status ? IOTRACE_RF_ERROR : 0, IOTRACE_MSTATUS_NVME);
	preempt_enable_notrace();
out:
	iotrace_prof(IOTRACE_PF_NVME_STATUS, t0);
}

/* An NVMe namespace's gendisk: its block device operations are nvme_core's. */
static bool iotrace_nvme_disk(struct gendisk *gd)
{
	const struct module *owner = gd->fops ? gd->fops->owner : NULL;

	return owner && !strcmp(owner->name, "nvme_core");
}

/**
 * iotrace_nvme_set_layout() - use a layout of struct nvme_request, or none.
 * @set: false to forget the layout (then the other arguments are unused).
 * @soff: byte offset of its status (a u16).
 * @ssize: size of the status: 2.
 * @roff: byte offset of its result (union nvme_result).
 * @rsize: size of the result: 4 or 8 (dword 0 is read).
 * @extack: for the reason of a refusal.
 *
 * Refused, with nothing changed: a status that is not a u16, a result
 * smaller than its dword 0 or above 8 bytes, misaligned members, members
 * that overlap, or that do not fit in the PDU of an NVMe disk iotrace
 * traces now (its tag set's cmd_size).  Each completion checks its own
 * tag set again.
 *
 * The offsets are not checked against the type (the module has no BTF
 * reader): root could aim them at pointer or DMA-address fields of the
 * PDU, which would then land in every NVMe record, the power a kprobe's
 * fetch arguments give.  Under lockdown=confidentiality a layout is
 * refused the way kprobes are (LOCKDOWN_KPROBES); forgetting one is not.
 *
 * Context: process; takes iotrace_mutex.
 * Return: 0, -EINVAL, or the errno of the lockdown (-EPERM).
 */
int iotrace_nvme_set_layout(bool set, u32 soff, u32 ssize, u32 roff,
			    u32 rsize, struct netlink_ext_ack *extack)
{
	struct iotrace_disk *d;
	u32 end;
	int ret = 0;

	if (!set) {
		atomic64_set(&iotrace_nvme_layout, 0);
		pr_info("iotrace: NVMe status layout cleared\n");
		return 0;
	}
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "kernel lockdown (confidentiality): offsets into NVMe request data are refused");
		return ret;
	}
	/* 16-bit offsets, and no sum below can wrap */
	if (soff > U16_MAX - sizeof(u64) || roff > U16_MAX - sizeof(u64)) {
		NL_SET_ERR_MSG(extack, "offset beyond any request PDU");
		return -EINVAL;
	}
	if (ssize != sizeof(u16) || soff % sizeof(u16)) {
		NL_SET_ERR_MSG(extack, "the status must be an aligned u16");
		return -EINVAL;
	}
	if ((rsize != sizeof(u32) && rsize != sizeof(u64)) ||
	    roff % sizeof(u32)) {
		NL_SET_ERR_MSG(extack,
			       "the result must be 4 or 8 bytes, 4-byte aligned");
		return -EINVAL;
	}
	if (soff < roff + rsize && roff < soff + ssize) {
		NL_SET_ERR_MSG(extack, "status and result overlap");
		return -EINVAL;
	}
	end = max(soff + ssize, roff + rsize);
	mutex_lock(&iotrace_mutex);
	list_for_each_entry(d, &iotrace_disks, node) {
		struct request_queue *q;

		/* attached: the gendisk lives until its ring is detached */
		if (!d->attached || !d->gd || !iotrace_nvme_disk(d->gd))
			continue;
		q = d->gd->queue;
		if (q && q->tag_set && end > q->tag_set->cmd_size) {
			NL_SET_ERR_MSG(extack,
				       "layout beyond the request data (cmd_size) of a traced NVMe disk");
			pr_warn("iotrace: NVMe layout refused: ends at byte %u, %s has %u bytes of request data\n",
				end, d->name, q->tag_set->cmd_size);
			ret = -EINVAL;
			break;
		}
	}
	if (!ret) {
		atomic64_set(&iotrace_nvme_layout, IOTRACE_NVME_L_VALID |
			     (u64)rsize << 32 | (u64)roff << 16 | soff);
		pr_info("iotrace: NVMe status layout from BTF: status @%u, result @%u\n",
			soff, roff);
	}
	mutex_unlock(&iotrace_mutex);
	return ret;
}

/**
 * iotrace_nvme_get_layout() - the layout in use.
 * @soff: its status offset.
 * @roff: its result offset.
 * @rsize: its result size.
 *
 * Return: true if there is one (then the outputs are set).
 */
bool iotrace_nvme_get_layout(u32 *soff, u32 *roff, u32 *rsize)
{
	u64 l = atomic64_read(&iotrace_nvme_layout);

	if (!(l & IOTRACE_NVME_L_VALID))
		return false;
	*soff = IOTRACE_NVME_L_SOFF(l);
	*roff = IOTRACE_NVME_L_ROFF(l);
	*rsize = IOTRACE_NVME_L_RSIZE(l);
	return true;
}

/**
 * iotrace_nvme_show() - whether NVMe status is recorded, and why not.
 * @m: the seq_file (the global status file).
 */
void iotrace_nvme_show(struct seq_file *m)
{
	u32 soff, roff, rsize;

	if (iotrace_nvme_get_layout(&soff, &roff, &rsize))
		seq_printf(m, "nvme_status: recorded (layout from BTF: status @%u, result @%u)\n",
			   soff, roff);
	else
		seq_puts(m, "nvme_status: not recorded: no layout given (iotracectl nvme-layout; needs /sys/kernel/btf/nvme_core)\n");
	seq_printf(m, "nvme_status_refused: %lu\n",
		   atomic_long_read(&iotrace_nvme_refused));
}

/*
 * The layout belongs to the nvme_core that was loaded when user space read
 * its BTF: forget it when that module goes (the udev rule gives it again
 * when nvme_core comes back).
 */
static int iotrace_nvme_module_notify(struct notifier_block *nb,
				      unsigned long val, void *data)
{
	struct module *mod = data;

	if (val == MODULE_STATE_GOING && !strcmp(mod->name, "nvme_core") &&
	    (atomic64_read(&iotrace_nvme_layout) & IOTRACE_NVME_L_VALID)) {
		atomic64_set(&iotrace_nvme_layout, 0);
		pr_info("iotrace: nvme_core unloaded: NVMe status layout cleared\n");
	}
	return NOTIFY_OK;
}

static struct notifier_block iotrace_nvme_module_nb = {
	.notifier_call = iotrace_nvme_module_notify,
};

/**
 * iotrace_nvme_init() - watch nvme_core going away, for the whole life of
 *	iotrace (the tracepoint notifier only exists while a disk is
 *	enabled).
 *
 * Return: 0 or the errno of register_module_notifier().
 */
int iotrace_nvme_init(void)
{
	return register_module_notifier(&iotrace_nvme_module_nb);
}

void iotrace_nvme_exit(void)
{
	unregister_module_notifier(&iotrace_nvme_module_nb);
}
