// SPDX-License-Identifier: GPL-2.0
/*
 * iotrace - where the probes' instructions go (IOTRACE_PROF=y builds only,
 * never a release one).
 *
 * Under QEMU's -icount shift=0 the guest's TSC advances by one per guest
 * instruction executed (it is the virtual clock in nanoseconds), so the
 * difference of two TSC reads is the number of instructions between them.
 * Every probe adds the TSC it spent, whole (IOTRACE_PF_IO_START,
 * IOTRACE_PF_ISSUE, IOTRACE_PF_COMPLETE) and, with the module parameter
 * prof_parts, per part; a sample above IOTRACE_PROF_MAX has the other
 * vCPU's turn or an interrupt in it and is counted apart.  debugfs
 * iotrace/prof shows the averages (the cost of the clock reads
 * themselves, IOTRACE_PF_CALIB, measured when the file is read, is
 * printed beside them: subtract it), a write clears the sums.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/preempt.h>
#include <asm/msr.h>
#include "iotrace.h"

bool iotrace_prof_parts;
module_param_named(prof_parts, iotrace_prof_parts, bool, 0644);
MODULE_PARM_DESC(prof_parts, "IOTRACE_PROF builds: time the probes' parts too");

#define IOTRACE_PROF_MAX	20000

struct iotrace_prof_cpu {
	u64	sum[IOTRACE_PF_NR];
	u64	n[IOTRACE_PF_NR];
	u64	skipped[IOTRACE_PF_NR];
};

static DEFINE_PER_CPU(struct iotrace_prof_cpu, iotrace_prof_pc);
static u64 iotrace_prof_tsc0, iotrace_prof_ns0;

static const char * const iotrace_prof_names[IOTRACE_PF_NR] = {
	[IOTRACE_PF_CALIB]	= "clock_pair",
	[IOTRACE_PF_IO_START]	= "io_start",
	[IOTRACE_PF_ISSUE]	= "issue",
	[IOTRACE_PF_ISSUE_CLOCK] = "issue.clock",
	[IOTRACE_PF_COMPLETE]	= "complete",
	[IOTRACE_PF_C_LOOKUP]	= "complete.lookup",
	[IOTRACE_PF_C_CLOCK]	= "complete.clock",
	[IOTRACE_PF_C_COUNT]	= "complete.metrics",
	[IOTRACE_PF_C_TRIG]	= "complete.trigger",
	[IOTRACE_PF_C_RECORD]	= "complete.record.tests",
	[IOTRACE_PF_C_FILL]	= "complete.record.fill",
	[IOTRACE_PF_NVME_CMD]	= "nvme.cmd",
	[IOTRACE_PF_NVME_STATUS] = "nvme.status",
	[IOTRACE_PF_IO_START_LOOKUP] = "io_start.lookup",
	[IOTRACE_PF_IO_START_CLOCK] = "io_start.clock",
	[IOTRACE_PF_ISSUE_LOOKUP] = "issue.lookup",
	[IOTRACE_PF_C_RESERVE]	= "complete.record.reserve",
	[IOTRACE_PF_C_COMMIT]	= "complete.record.commit",
};

u64 notrace iotrace_prof_now(void)
{
	return rdtsc_ordered();
}

void notrace iotrace_prof_note(unsigned int part, u64 t0)
{
	u64 d = rdtsc_ordered() - t0;

	if (d > IOTRACE_PROF_MAX) {
		this_cpu_inc(iotrace_prof_pc.skipped[part]);
		return;
	}
	this_cpu_add(iotrace_prof_pc.sum[part], d);
	this_cpu_inc(iotrace_prof_pc.n[part]);
}

void iotrace_prof_clear(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&iotrace_prof_pc, cpu), 0,
		       sizeof(struct iotrace_prof_cpu));
	iotrace_prof_tsc0 = rdtsc_ordered();
	iotrace_prof_ns0 = ktime_get_ns();
}

/*
 * How the meter counts a REP-prefixed string instruction: the clock
 * spent on "rep stosb" of @n bytes (one instruction on hardware).
 */
static noinline u64 iotrace_prof_rep(void *buf, unsigned long n)
{
	u64 t0 = rdtsc_ordered();

	asm volatile("rep stosb"
		     : "+D" (buf), "+c" (n)
		     : "a" (0)
		     : "memory");
	return rdtsc_ordered() - t0;
}

int iotrace_prof_show(struct seq_file *m, void *v)
{
	static u8 rep_buf[4096];
	u64 sum, n, skipped, tsc, ns;
	unsigned int i;
	int cpu;

	/* the clock reads alone, as the probes make them */
	preempt_disable();
	for (i = 0; i < 1000; i++) {
		u64 t0 = iotrace_prof_now();

		iotrace_prof_note(IOTRACE_PF_CALIB, t0);
	}
	seq_printf(m, "rep_stosb_1 %llu\nrep_stosb_64 %llu\nrep_stosb_4096 %llu\n",
		   iotrace_prof_rep(rep_buf, 1), iotrace_prof_rep(rep_buf, 64),
		   iotrace_prof_rep(rep_buf, 4096));
	preempt_enable();
	tsc = rdtsc_ordered() - iotrace_prof_tsc0;
	ns = ktime_get_ns() - iotrace_prof_ns0;
	seq_printf(m, "tsc_per_ns %llu/%llu\n", tsc, ns);
	seq_printf(m, "parts %d\n", iotrace_prof_parts);
	seq_puts(m, "part n skipped sum avg_x100\n");
	for (i = 0; i < IOTRACE_PF_NR; i++) {
		sum = 0;
		n = 0;
		skipped = 0;
		for_each_possible_cpu(cpu) {
			const struct iotrace_prof_cpu *c =
				per_cpu_ptr(&iotrace_prof_pc, cpu);

			sum += READ_ONCE(c->sum[i]);
			n += READ_ONCE(c->n[i]);
			skipped += READ_ONCE(c->skipped[i]);
		}
		seq_printf(m, "%s %llu %llu %llu %llu\n", iotrace_prof_names[i],
			   n, skipped, sum, n ? div64_u64(sum * 100, n) : 0);
	}
	return 0;
}
