// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - command names of the submitters records name (issue 19).
 *
 * A record carries the submitter's pid only; its command name is taken
 * here, in the submitter's context, the first time this CPU sees the pid
 * (block_io_start), so that a process that is gone by the time anyone
 * reads the trace (a short dd, a cron job) still has a name.  Not from
 * /proc afterwards.
 *
 * One direct-mapped table per CPU, IOTRACE_COMM_SLOTS entries indexed by
 * a hash of the pid: the hot path reads one line of this CPU's memory and
 * writes it only on a miss (a new pid, or a collision, which overwrites,
 * as the ring does).  Only the CPU's own probes write its table, in task
 * context with preemption disabled, so they never nest; readers on other
 * CPUs tell a torn entry by its sequence count (odd while written).
 */
#include <linux/kernel.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include "iotrace.h"

#define IOTRACE_COMM_SLOTS	BIT(IOTRACE_COMM_BITS)

/* The tables, one per CPU (iotrace.h: iotrace_comm_note() reads them). */
struct iotrace_comm __percpu *iotrace_comms;

/**
 * iotrace_comm_set() - note @pid and the current task's name in entry @e
 *	(iotrace_comm_note()'s miss, out of line).
 * @e: this CPU's entry for @pid.
 * @pid: its thread group id (not 0).
 *
 * Context: block_io_start's probe, task context, preemption disabled.
 */
void iotrace_comm_set(struct iotrace_comm *e, u32 pid)
{
	WRITE_ONCE(e->seq, e->seq + 1);
	/* odd count visible before the entry changes */
	smp_wmb();
	WRITE_ONCE(e->pid, pid);
	memcpy(e->comm, current->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	/* entry complete before the even count */
	smp_wmb();
	WRITE_ONCE(e->seq, e->seq + 1);
}

/* A stable copy of @e into @out; false if empty or being written. */
static bool iotrace_comm_read(const struct iotrace_comm *e,
			      struct iotrace_comm *out)
{
	u32 s = READ_ONCE(e->seq);

	if (s & 1)
		return false;
	/* count read before the entry */
	smp_rmb();
	out->pid = READ_ONCE(e->pid);
	/* a seqlock's read: a torn copy is dropped by the count's check */
	data_race(memcpy(out->comm, e->comm, sizeof(out->comm)));
	/* entry read before the count again */
	smp_rmb();
	if (READ_ONCE(e->seq) != s || !out->pid)
		return false;
	out->comm[sizeof(out->comm) - 1] = '\0';
	return true;
}

static int iotrace_comm_cmp(const void *a, const void *b)
{
	const struct iotrace_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

/**
 * iotrace_comm_show() - the debugfs comms file: "PID COMM" per pid known,
 *	by pid; a pid that several CPUs know under different names (it
 *	changed its name between) has a line per name.
 * @m: the seq_file.
 * @v: unused.
 *
 * Return: 0 or -ENOMEM.
 */
int iotrace_comm_show(struct seq_file *m, void *v)
{
	struct iotrace_comm *all;
	unsigned int cpu, i;
	size_t n = 0, k;

	seq_puts(m, "PID COMM\n");
	if (!iotrace_comms)
		return 0;
	all = kvmalloc_array((size_t)num_possible_cpus() * IOTRACE_COMM_SLOTS,
			     sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		const struct iotrace_comm *t = per_cpu_ptr(iotrace_comms, cpu);

		for (i = 0; i < IOTRACE_COMM_SLOTS; i++)
			if (iotrace_comm_read(&t[i], &all[n]))
				n++;
		cond_resched();
	}
	sort(all, n, sizeof(*all), iotrace_comm_cmp, NULL);
	for (k = 0; k < n; k++) {
		if (k && !iotrace_comm_cmp(&all[k - 1], &all[k]))
			continue;
		seq_printf(m, "%u %s\n", all[k].pid, all[k].comm);
	}
	kvfree(all);
	return 0;
}

/**
 * iotrace_comm_init() - allocate the tables (zeroed: every entry empty).
 *
 * Return: 0 or -ENOMEM.
 */
int iotrace_comm_init(void)
{
	iotrace_comms = __alloc_percpu(sizeof(struct iotrace_comm) *
				       IOTRACE_COMM_SLOTS,
				       __alignof__(struct iotrace_comm));
	return iotrace_comms ? 0 : -ENOMEM;
}

/* Called after the probes are gone (module exit). */
void iotrace_comm_exit(void)
{
	free_percpu(iotrace_comms);
	iotrace_comms = NULL;
}
