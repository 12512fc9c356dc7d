// SPDX-License-Identifier: GPL-2.0
/*
 * The record filters every command that reads records takes (--op,
 * --status, --lat-min, --sector, --from/--to, --pid, --comm, --cgroup).
 */
#include <string.h>
#include "out.h"
#include "stats.h"

/*
 * Whether a record passes the --op/--status/--lat-min/--sector/--from/--to
 * and --pid/--comm/--cgroup filters.
 */
int iot_filter(const struct iot_opts *o, const struct iotrace_record *r)
{
	if (o->no_filter)
		return 1;
	if (o->op_mask && !(o->op_mask & (1u << iot_stats_slot(r->op))))
		return 0;
	/* a request without a completion has no status: none matches */
	if (o->status && !(r->rflags & IOTRACE_RF_COMPLETE))
		return 0;
	if (o->status == 1 && (r->error || (r->rflags & IOTRACE_RF_ERROR)))
		return 0;
	if (o->status == 2 && !r->error && !(r->rflags & IOTRACE_RF_ERROR))
		return 0;
	if (o->status == 3 && r->error != -o->status_errno)
		return 0;
	if (o->have_lat && (!iot_rec_has_lat(r) ||
			    r->complete_ns - r->issue_ns < o->lat_min_ns))
		return 0;
	/*
	 * Only an explicit --sector range filters: a passthrough request
	 * without a media address (NVMe admin, most SCSI/ATA passthrough)
	 * has sector UINT64_MAX, the block layer's "no sector".
	 */
	if ((o->sec_lo || o->sec_hi != UINT64_MAX) &&
	    (r->sector < o->sec_lo || r->sector >= o->sec_hi))
		return 0;
	if (r->complete_ns < o->from_ns || r->complete_ns >= o->to_ns)
		return 0;
	if (o->nr_pids) {
		unsigned int i;

		for (i = 0; i < o->nr_pids && o->pids[i] != r->pid; i++)
			;
		if (i == o->nr_pids)
			return 0;
	}
	/* the name as the COMM column shows it: "[kernel]", "-" too */
	if (o->comm && strcmp(iot_rec_comm(r), o->comm))
		return 0;
	if (o->have_cgroup && r->cgroup != o->cgroup)
		return 0;
	return 1;
}
