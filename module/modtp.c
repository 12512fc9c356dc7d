// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - probes on tracepoints that live in modules.
 *
 * for_each_kernel_tracepoint() only walks the kernel image.  nvme-core,
 * scsi_mod and libata are modules that may be loaded before or after
 * iotrace and unloaded while it runs, so their tracepoints are reached
 * through the tracepoint module notifier: it reports every module with
 * tracepoints as it comes (and replays those already loaded when the
 * notifier is registered) and as it goes, before its memory is freed.
 *
 * Probes and notifier come and go together with the block probes
 * (iotrace_probes_get()/put(): first disk enabled, last disabled): while
 * no disk is enabled nothing of iotrace is attached, not even the
 * notifier.  Registering it replays the modules already loaded, so a
 * module loaded while iotrace was idle is picked up at the next enable.
 *
 * Lock order: tracepoint_module_list_mutex (held by the notifier chain),
 * then iotrace_modtp_lock, then the tracepoint core's own mutex.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include "iotrace.h"
#include "cmd.h"

/**
 * struct iotrace_modtp - one probe on a tracepoint found by name.
 * @name: name of the tracepoint.
 * @probe: the probe, with the tracepoint's prototype after a void *data.
 * @tp: the tracepoint while the probe is attached, else NULL.
 * @owner: module that holds @tp, NULL when it is built in.
 *
 * @tp and @owner change under iotrace_modtp_lock only.
 */
struct iotrace_modtp {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
	struct module		*owner;
};

static struct iotrace_modtp iotrace_modtps[] = {
	{ .name = "nvme_setup_cmd", .probe = iotrace_nvme_setup_cmd },
	{ .name = "nvme_complete_rq", .probe = iotrace_nvme_complete_rq },
	{ .name = "scsi_dispatch_cmd_start", .probe = iotrace_scsi_cmd_start },
	{ .name = "scsi_dispatch_cmd_done", .probe = iotrace_scsi_cmd_done },
	{ .name = "ata_qc_issue", .probe = iotrace_ata_qc_issue },
	{ .name = "ata_qc_complete_done", .probe = iotrace_ata_qc_done },
	{ .name = "ata_qc_complete_failed", .probe = iotrace_ata_qc_failed },
	{ .name = "ata_eh_link_autopsy_qc", .probe = iotrace_ata_eh_autopsy },
};

static DEFINE_MUTEX(iotrace_modtp_lock);
/* Probes may be attached (between attach and detach). */
static bool iotrace_modtp_live;
static bool iotrace_modtp_notifier;
/* Times a module carrying one of our tracepoints came and went. */
static unsigned int iotrace_modtp_comings;
static unsigned int iotrace_modtp_goings;

/* Attach every probe whose tracepoint is @tp; iotrace_modtp_lock held. */
static void iotrace_modtp_try(struct tracepoint *tp, struct module *owner)
{
	struct iotrace_modtp *e;
	int ret;

	for (e = iotrace_modtps; e < iotrace_modtps + ARRAY_SIZE(iotrace_modtps);
	     e++) {
		if (e->tp || strcmp(tp->name, e->name))
			continue;
		ret = tracepoint_probe_register(tp, e->probe, NULL);
		if (ret) {
			pr_warn("iotrace: cannot attach to %s: %d\n",
				e->name, ret);
			continue;
		}
		e->tp = tp;
		e->owner = owner;
	}
}

/*
 * Detach the probes on @owner's tracepoints (all of them when @all).
 * Return: how many were detached.  iotrace_modtp_lock held.
 */
static int iotrace_modtp_drop(struct module *owner, bool all)
{
	struct iotrace_modtp *e;
	int n = 0;

	for (e = iotrace_modtps; e < iotrace_modtps + ARRAY_SIZE(iotrace_modtps);
	     e++) {
		if (!e->tp || (!all && e->owner != owner))
			continue;
		tracepoint_probe_unregister(e->tp, e->probe, NULL);
		e->tp = NULL;
		e->owner = NULL;
		n++;
	}
	return n;
}

static void iotrace_modtp_coming(struct tp_module *tp_mod)
{
	struct module *mod = tp_mod->mod;
	unsigned int i;
	bool ours = false;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp;

		tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
		if (!tp)
			continue;
		iotrace_modtp_try(tp, mod);
	}
	for (i = 0; i < ARRAY_SIZE(iotrace_modtps); i++)
		ours |= iotrace_modtps[i].owner == mod;
	if (ours)
		iotrace_modtp_comings++;
}

static int iotrace_modtp_notify(struct notifier_block *nb, unsigned long val,
				void *data)
{
	struct tp_module *tp_mod = data;

	mutex_lock(&iotrace_modtp_lock);
	if (!iotrace_modtp_live)
		goto out;
	switch (val) {
	case MODULE_STATE_COMING:
		iotrace_modtp_coming(tp_mod);
		break;
	case MODULE_STATE_GOING:
		if (iotrace_modtp_drop(tp_mod->mod, false)) {
			/* No probe of ours may still run on the old tracepoint. */
			tracepoint_synchronize_unregister();
			iotrace_modtp_goings++;
		}
		break;
	}
out:
	mutex_unlock(&iotrace_modtp_lock);
	return NOTIFY_OK;
}

static struct notifier_block iotrace_modtp_nb = {
	.notifier_call = iotrace_modtp_notify,
};

/* for_each_kernel_tracepoint() callback: tracepoints of the kernel image. */
static void iotrace_modtp_builtin(struct tracepoint *tp, void *priv)
{
	iotrace_modtp_try(tp, NULL);
}

/**
 * iotrace_cmd_attach() - attach the command probes to the tracepoints of
 *	nvme-core, scsi_mod and libata, now and whenever they are loaded.
 *
 * Tracepoints that do not exist (module not loaded) are not an error.
 *
 * Context: process; takes tracepoint_module_list_mutex.  Do not call with
 *	a lock held that a module notifier could need.
 * Return: 0 or the errno of register_tracepoint_module_notifier().
 */
int iotrace_cmd_attach(void)
{
	int ret;

	mutex_lock(&iotrace_modtp_lock);
	if (iotrace_modtp_live) {
		mutex_unlock(&iotrace_modtp_lock);
		return 0;
	}
	iotrace_modtp_live = true;
	/* The subsystems may be built in on another configuration. */
	for_each_kernel_tracepoint(iotrace_modtp_builtin, NULL);
	mutex_unlock(&iotrace_modtp_lock);

	/* Replays every module already loaded as MODULE_STATE_COMING. */
	ret = register_tracepoint_module_notifier(&iotrace_modtp_nb);
	if (ret)
		goto err_detach;
	iotrace_modtp_notifier = true;
	return 0;

err_detach:
	pr_err("iotrace: cannot watch module tracepoints: %d\n", ret);
	mutex_lock(&iotrace_modtp_lock);
	iotrace_modtp_live = false;
	iotrace_modtp_drop(NULL, true);
	mutex_unlock(&iotrace_modtp_lock);
	tracepoint_synchronize_unregister();
	return ret;
}

/**
 * iotrace_cmd_detach() - detach every command probe and stop watching
 *	modules; on return no command probe runs.
 *
 * The probes are detached before the notifier goes: a module that goes in
 * between finds nothing of ours left on its tracepoints.
 *
 * Context: process, same locking rule as iotrace_cmd_attach().
 */
void iotrace_cmd_detach(void)
{
	mutex_lock(&iotrace_modtp_lock);
	iotrace_modtp_live = false;
	iotrace_modtp_drop(NULL, true);
	mutex_unlock(&iotrace_modtp_lock);
	tracepoint_synchronize_unregister();
	if (iotrace_modtp_notifier) {
		unregister_tracepoint_module_notifier(&iotrace_modtp_nb);
		iotrace_modtp_notifier = false;
	}
}

/**
 * iotrace_cmd_show() - print the state of the command probes, for stats.
 * @m: the seq_file.
 *
 * One "cmd_probe <tracepoint>: attached|not attached" line per probe,
 * the module notifier counts, whether NVMe status is recorded and how
 * many NVMe controller rings are attached.
 */
void iotrace_cmd_show(struct seq_file *m)
{
	unsigned int i;

	mutex_lock(&iotrace_modtp_lock);
	for (i = 0; i < ARRAY_SIZE(iotrace_modtps); i++)
		seq_printf(m, "cmd_probe %s: %s\n", iotrace_modtps[i].name,
			   iotrace_modtps[i].tp ? "attached" : "not attached");
	seq_printf(m, "cmd_module_attach: %u\ncmd_module_detach: %u\n",
		   iotrace_modtp_comings, iotrace_modtp_goings);
	mutex_unlock(&iotrace_modtp_lock);
	iotrace_nvme_show(m);
	seq_printf(m, "nvme_ctrl_rings: %u\n", iotrace_ctrls_count());
}
