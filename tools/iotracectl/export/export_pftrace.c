// SPDX-License-Identifier: GPL-2.0
/*
 * export -f pftrace: the records as a Perfetto trace in its native
 * protobuf format (ui.perfetto.dev, trace_processor), written here with a
 * small encoder of our own (varints and length-delimited fields; no
 * protobuf library).
 *
 * The field numbers are those of Perfetto's published schema
 * (github.com/google/perfetto, protos/perfetto/...):
 *   trace/trace.proto                        Trace
 *   trace/trace_packet.proto                 TracePacket
 *   trace/track_event/track_event.proto      TrackEvent, EventName
 *   trace/track_event/track_descriptor.proto TrackDescriptor
 *   trace/track_event/counter_descriptor.proto CounterDescriptor
 *   trace/track_event/debug_annotation.proto DebugAnnotation,
 *                                            DebugAnnotationName
 *   trace/interned_data/interned_data.proto  InternedData
 *   trace/profiling/profile_common.proto     InternedString
 */
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "macros.h"
#include "out.h"

/* Trace */
#define F_TRACE_PACKET		1
/* TracePacket */
#define F_PKT_TIMESTAMP		8
#define F_PKT_SEQ_ID		10	/* trusted_packet_sequence_id */
#define F_PKT_TRACK_EVENT	11
#define F_PKT_INTERNED		12	/* interned_data */
#define F_PKT_SEQ_FLAGS		13	/* sequence_flags */
#define F_PKT_TRACK_DESC	60	/* track_descriptor */
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define SEQ_NEEDS_INCREMENTAL_STATE	2
/* TrackDescriptor */
#define F_TD_UUID		1
#define F_TD_NAME		2
#define F_TD_PARENT		5	/* parent_uuid */
#define F_TD_COUNTER		8
#define F_TD_CHILD_ORDER	11	/* child_ordering */
#define F_TD_RANK		12	/* sibling_order_rank */
#define F_TD_DESCRIPTION	14
#define CHILD_ORDER_EXPLICIT	3
/* CounterDescriptor */
#define F_CD_UNIT		3
#define UNIT_COUNT		2
/* TrackEvent */
#define F_TE_ANNOTATION		4	/* debug_annotations */
#define F_TE_TYPE		9
#define F_TE_NAME_IID		10
#define F_TE_TRACK_UUID		11
#define F_TE_NAME		23
#define F_TE_COUNTER_VALUE	30
#define TYPE_SLICE_BEGIN	1
#define TYPE_SLICE_END		2
#define TYPE_COUNTER		4
/* DebugAnnotation */
#define F_DA_NAME_IID		1
#define F_DA_UINT		3	/* uint_value */
#define F_DA_STRING		6	/* string_value */
#define F_DA_STRING_IID		17	/* string_value_iid */
/*
 * InternedData; its EventName, DebugAnnotationName and InternedString
 * (profiling/profile_common.proto): iid 1, name (str) 2
 */
#define F_ID_EVENT_NAMES	2
#define F_ID_ANNOTATION_NAMES	3
#define F_ID_STRING_VALUES	29	/* debug_annotation_string_values */
#define F_IID			1
#define F_IID_NAME		2

#define WT_VARINT	0
#define WT_LEN		2

/* the one sequence of packets this writer makes */
#define PF_SEQ		1

/* ---- the encoder -------------------------------------------------------- */

/*
 * The output buffer: whole packets, written out when less than PB_PACKET
 * bytes are left (a packet is far less: its strings are bounded).
 */
#define PB_CAP		(1u << 18)
#define PB_PACKET	8192
#define PB_STR_MAX	1024

struct pb {
	uint8_t b[PB_CAP];
	size_t n;
};

static inline void pb_varint(struct pb *p, uint64_t v)
{
	while (v >= 0x80) {
		p->b[p->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->n++] = (uint8_t)v;
}

static inline void pb_tag(struct pb *p, unsigned int field, unsigned int wt)
{
	pb_varint(p, (uint64_t)field << 3 | wt);
}

static inline void pb_uint(struct pb *p, unsigned int field, uint64_t v)
{
	pb_tag(p, field, WT_VARINT);
	pb_varint(p, v);
}

/* int32/int64: a negative value is its two's complement, ten bytes */
static inline void pb_int(struct pb *p, unsigned int field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v);
}

static void pb_str(struct pb *p, unsigned int field, const char *s)
{
	size_t len = strnlen(s, PB_STR_MAX);

	pb_tag(p, field, WT_LEN);
	pb_varint(p, len);
	memcpy(p->b + p->n, s, len);
	p->n += len;
}

/*
 * pb_open() - start a length-delimited (message) field: its tag and one
 * byte for its length.  Return: where the length goes, for pb_close().
 */
static inline size_t pb_open(struct pb *p, unsigned int field)
{
	pb_tag(p, field, WT_LEN);
	return p->n++;
}

/*
 * pb_close() - the length of the field opened at @at: the bytes written
 * since, as a varint at @at, the contents moved up when it takes more
 * than the one byte kept for it.
 */
static void pb_close(struct pb *p, size_t at)
{
	size_t len = p->n - at - 1, k = 1;
	uint64_t v = len;

	while (v >= 0x80) {
		v >>= 7;
		k++;
	}
	if (k > 1) {
		memmove(p->b + at + k, p->b + at + 1, len);
		p->n += k - 1;
	}
	v = len;
	while (v >= 0x80) {
		p->b[at++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[at] = (uint8_t)v;
}

/* ---- the trace ---------------------------------------------------------- */

/* interned debug annotation names (iid = index + 1) */
enum {
	A_SECTOR = 1, A_BYTES, A_OPFLAGS, A_TAG, A_HWQ, A_PID, A_COMM,
	A_STATUS, A_DEVSTATUS, A_COMMAND, A_CGROUP,
};

static const char *const ann_names[] = {
	"sector", "bytes", "opflags", "tag", "hwq", "pid", "comm",
	"status", "dev_status", "command", "cgroup",
};

/* interned event names: these two, then "OP SIZE" as they come */
#define N_QUEUE		1
#define N_DEVICE	2
#define PF_NAME_SLOTS	8192		/* the table of "OP SIZE" names */
/* beyond: the name written out (tests: smaller, tools/Makefile) */
#ifndef PF_NAME_MAX_IID
#define PF_NAME_MAX_IID	4096
#endif

/*
 * struct pf_lane - a lane of a disk (a track): the end of its last slice.
 * A request goes to the lane that ended first if that was before it
 * started, else to a new lane: slices on one lane never overlap nor
 * touch, whatever the order of the requests.
 */
struct pf_lane {
	uint64_t end;
	uint64_t uuid;
	uint32_t lane;
};

/**
 * struct pf_disk - the state of a disk's tracks.
 * @lanes: its lanes, a heap on end time.
 * @nl: lanes made.
 * @cap: allocated in @lanes.
 * @pend: the completion times of the requests on the device, a heap.
 * @np: entries in @pend.
 * @pcap: allocated in @pend.
 * @depth: requests on the device (the counter).
 * @ct: the time of the counter value not yet written, when @cpend.
 * @cpend: a counter value is pending.
 */
struct pf_disk {
	struct pf_lane *lanes;
	size_t nl, cap;
	uint64_t *pend;
	size_t np, pcap;
	int64_t depth;
	uint64_t ct;
	int cpend;
};

struct pf_name {
	uint64_t key;		/* op << 32 | bytes, + 1; 0: free */
	uint32_t iid;
};

/* an interned string value of an annotation (comm, status, ...) */
#define PF_STR_SLOTS	8192
#ifndef PF_STR_MAX_IID
#define PF_STR_MAX_IID	4096	/* beyond: the string written out */
#endif
#ifndef PF_STR_LEN
#define PF_STR_LEN		64	/* as long or longer: written out */
#endif

struct pf_str {
	uint32_t iid;		/* 0: free */
	uint8_t len;
	char s[PF_STR_LEN];
};

/* the string arguments of a request: the values and their iids */
enum { S_OPFLAGS, S_COMM, S_STATUS, S_DEVSTATUS, S_COMMAND, NR_S };

struct pf_args {
	char v[NR_S][512];
	uint32_t iid[NR_S];
	int fresh[NR_S];
};

/**
 * struct pf - the writer.
 * @fp: output.
 * @d: per disk.
 * @nd: disks.
 * @names: "OP SIZE" names interned.
 * @next_iid: the next event name iid.
 * @strs: string values interned.
 * @next_str: the next string value iid.
 * @next_uuid: the next lane's track uuid.
 * @args: a request's string arguments (scratch).
 * @out: packets not yet written to @fp.
 */
struct pf {
	FILE *fp;
	struct pf_disk *d;
	unsigned int nd;
	struct pf_name *names;
	uint32_t next_iid;
	struct pf_str *strs;
	uint32_t next_str;
	uint64_t next_uuid;
	struct pf_args args;
	struct pb out;
};

/* track uuids: small, short varints; disks' and counters' first */
static uint64_t uuid_disk(unsigned int d)
{
	return 2 * (uint64_t)d + 1;
}

static uint64_t uuid_counter(unsigned int d)
{
	return 2 * (uint64_t)d + 2;
}

static void pf_flush(struct pf *pf)
{
	if (pf->out.n)
		fwrite(pf->out.b, 1, pf->out.n, pf->fp);
	pf->out.n = 0;
}

static size_t pkt_begin(struct pf *pf)
{
	if (pf->out.n > PB_CAP - PB_PACKET)
		pf_flush(pf);
	return pb_open(&pf->out, F_TRACE_PACKET);
}

/* a packet of the sequence at @ts, with @flags (sequence_flags) */
static size_t pkt_begin_seq(struct pf *pf, uint64_t ts, unsigned int flags)
{
	size_t at = pkt_begin(pf);

	pb_uint(&pf->out, F_PKT_TIMESTAMP, ts);
	pb_uint(&pf->out, F_PKT_SEQ_ID, PF_SEQ);
	if (flags)
		pb_uint(&pf->out, F_PKT_SEQ_FLAGS, flags);
	return at;
}

static void track_desc(struct pf *pf, uint64_t uuid, uint64_t parent,
		       const char *name, int counter, int rank,
		       const char *desc)
{
	struct pb *p = &pf->out;
	size_t at = pkt_begin(pf), td = pb_open(p, F_PKT_TRACK_DESC), c;

	pb_uint(p, F_TD_UUID, uuid);
	if (parent)
		pb_uint(p, F_TD_PARENT, parent);
	pb_str(p, F_TD_NAME, name);
	if (counter) {
		c = pb_open(p, F_TD_COUNTER);
		pb_uint(p, F_CD_UNIT, UNIT_COUNT);
		pb_close(p, c);
	}
	if (parent)
		pb_int(p, F_TD_RANK, rank);
	else
		pb_uint(p, F_TD_CHILD_ORDER, CHILD_ORDER_EXPLICIT);
	if (desc)
		pb_str(p, F_TD_DESCRIPTION, desc);
	pb_close(p, td);
	pb_close(p, at);
}

/* an interned name: InternedData's @field, an entry of @iid and @name */
static void intern_one(struct pb *p, unsigned int field, uint64_t iid,
		       const char *name)
{
	size_t at = pb_open(p, field);

	pb_uint(p, F_IID, iid);
	pb_str(p, F_IID_NAME, name);
	pb_close(p, at);
}

/* the first packet: the sequence's state cleared, the fixed names */
static void pf_start(struct pf *pf)
{
	struct pb *p = &pf->out;
	size_t at = pkt_begin(pf), id;
	unsigned int i;

	pb_uint(p, F_PKT_SEQ_ID, PF_SEQ);
	pb_uint(p, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED |
		SEQ_NEEDS_INCREMENTAL_STATE);
	id = pb_open(p, F_PKT_INTERNED);
	intern_one(p, F_ID_EVENT_NAMES, N_QUEUE, "queue");
	intern_one(p, F_ID_EVENT_NAMES, N_DEVICE, "device");
	for (i = 0; i < ARRAY_SIZE(ann_names); i++)
		intern_one(p, F_ID_ANNOTATION_NAMES, i + 1, ann_names[i]);
	pb_close(p, id);
	pb_close(p, at);
	pf->next_iid = N_DEVICE + 1;
}

static void counter_emit(struct pf *pf, unsigned int d, uint64_t ts,
			 int64_t v)
{
	struct pb *p = &pf->out;
	size_t at = pkt_begin_seq(pf, ts, 0), te = pb_open(p, F_PKT_TRACK_EVENT);

	pb_uint(p, F_TE_TYPE, TYPE_COUNTER);
	pb_uint(p, F_TE_TRACK_UUID, uuid_counter(d));
	pb_int(p, F_TE_COUNTER_VALUE, v);
	pb_close(p, te);
	pb_close(p, at);
}

/*
 * The queue depth of disk @d changes by @delta at @t: the value at a time
 * is written once every change at that time is known (the changes come
 * in time order; one out of order, of a record more than the window late,
 * counts at the time of the value pending).
 */
static void counter_change(struct pf *pf, unsigned int d, uint64_t t,
			   int delta)
{
	struct pf_disk *k = &pf->d[d];

	if (k->cpend && t > k->ct)
		counter_emit(pf, d, k->ct, k->depth);
	if (!k->cpend || t > k->ct)
		k->ct = t;
	k->cpend = 1;
	k->depth += delta;
}

/* the earliest completion pending on disk @d, removed */
static uint64_t pend_pop(struct pf_disk *k)
{
	uint64_t top = k->pend[0], x = k->pend[--k->np];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < k->np) {
		if (c + 1 < k->np && k->pend[c + 1] < k->pend[c])
			c++;
		if (k->pend[c] >= x)
			break;
		k->pend[i] = k->pend[c];
		i = c;
	}
	if (k->np)
		k->pend[i] = x;
	return top;
}

static int pend_push(struct pf_disk *k, uint64_t t)
{
	size_t i;

	if (k->np == k->pcap) {
		size_t cap = k->pcap ? 2 * k->pcap : 256;
		uint64_t *v = realloc(k->pend, cap * sizeof(*v));

		if (!v)
			return -1;
		k->pend = v;
		k->pcap = cap;
	}
	for (i = k->np++; i && k->pend[(i - 1) / 2] > t; i = (i - 1) / 2)
		k->pend[i] = k->pend[(i - 1) / 2];
	k->pend[i] = t;
	return 0;
}

static int lane_less(const struct pf_lane *a, const struct pf_lane *b)
{
	return a->end < b->end || (a->end == b->end && a->lane < b->lane);
}

static void lane_down(struct pf_disk *k, size_t i)
{
	struct pf_lane x = k->lanes[i];
	size_t c;

	while ((c = 2 * i + 1) < k->nl) {
		if (c + 1 < k->nl && lane_less(&k->lanes[c + 1], &k->lanes[c]))
			c++;
		if (!lane_less(&k->lanes[c], &x))
			break;
		k->lanes[i] = k->lanes[c];
		i = c;
	}
	k->lanes[i] = x;
}

/*
 * The track uuid of the lane of a request of disk @d from @start to @end
 * (a new lane's track described first); 0: out of memory.
 */
static uint64_t lane_take(struct pf *pf, unsigned int d, uint64_t start,
			  uint64_t end)
{
	struct pf_disk *k = &pf->d[d];
	char name[32];
	uint64_t uuid;
	uint32_t lane;
	size_t i;

	if (k->nl && k->lanes[0].end < start) {
		uuid = k->lanes[0].uuid;
		k->lanes[0].end = end;
		lane_down(k, 0);
		return uuid;
	}
	if (k->nl == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct pf_lane *v = realloc(k->lanes, cap * sizeof(*v));

		if (!v)
			return 0;
		k->lanes = v;
		k->cap = cap;
	}
	lane = (uint32_t)k->nl;
	uuid = pf->next_uuid++;
	snprintf(name, sizeof(name), "lane %u", lane);
	track_desc(pf, uuid, uuid_disk(d), name, 0,
		   (int)(lane < INT32_MAX - 1 ? lane + 1 : INT32_MAX), NULL);
	for (i = k->nl++; i; i = (i - 1) / 2) {
		struct pf_lane *up = &k->lanes[(i - 1) / 2];
		struct pf_lane x = { end, uuid, lane };

		if (!lane_less(&x, up))
			break;
		k->lanes[i] = *up;
	}
	k->lanes[i].end = end;
	k->lanes[i].uuid = uuid;
	k->lanes[i].lane = lane;
	return uuid;
}

/* "read 4K": the operation and the size (exact: K or M only when whole) */
static void slice_name(char *b, size_t n, const struct iotrace_record *r)
{
	const char *op = iot_op_name(r->op);

	if (!r->bytes)
		snprintf(b, n, "%s", op);
	else if (!(r->bytes & ((1u << 20) - 1)))
		snprintf(b, n, "%s %uM", op, r->bytes >> 20);
	else if (!(r->bytes & 1023))
		snprintf(b, n, "%s %uK", op, r->bytes >> 10);
	else
		snprintf(b, n, "%s %uB", op, r->bytes);
}

/*
 * The iid of the request's name, 0 when the table is full (the name is
 * then written out); *@fresh: new here (to be interned in this packet).
 */
static uint32_t name_iid(struct pf *pf, const struct iotrace_record *r,
			 int *fresh)
{
	uint64_t key = ((uint64_t)r->op << 32 | r->bytes) + 1;
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 51);

	*fresh = 0;
	for (;; i = (i + 1) & (PF_NAME_SLOTS - 1)) {
		if (pf->names[i].key == key)
			return pf->names[i].iid;
		if (!pf->names[i].key)
			break;
	}
	if (pf->next_iid > PF_NAME_MAX_IID)
		return 0;
	pf->names[i].key = key;
	pf->names[i].iid = pf->next_iid++;
	*fresh = 1;
	return pf->names[i].iid;
}

/*
 * The iid of the string value @v (0: written out, too long or the table
 * full); *@fresh: new here (to be interned in this packet).
 */
static uint32_t str_iid(struct pf *pf, const char *v, int *fresh)
{
	size_t len = strnlen(v, PF_STR_LEN), i;
	uint32_t h = 2166136261u;

	*fresh = 0;
	if (len >= PF_STR_LEN)
		return 0;
	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)v[i]) * 16777619u;
	for (i = h & (PF_STR_SLOTS - 1);; i = (i + 1) & (PF_STR_SLOTS - 1)) {
		struct pf_str *e = &pf->strs[i];

		if (!e->iid)
			break;
		if (e->len == len && !memcmp(e->s, v, len))
			return e->iid;
	}
	if (pf->next_str > PF_STR_MAX_IID)
		return 0;
	pf->strs[i].iid = pf->next_str++;
	pf->strs[i].len = (uint8_t)len;
	memcpy(pf->strs[i].s, v, len);
	*fresh = 1;
	return pf->strs[i].iid;
}

static void ann_uint(struct pb *p, unsigned int name, uint64_t v)
{
	size_t at = pb_open(p, F_TE_ANNOTATION);

	pb_uint(p, F_DA_NAME_IID, name);
	pb_uint(p, F_DA_UINT, v);
	pb_close(p, at);
}

/* a string annotation: its value's iid, or the value when 0 */
static void ann_str(struct pb *p, unsigned int name, uint32_t iid,
		    const char *s)
{
	size_t at = pb_open(p, F_TE_ANNOTATION);

	pb_uint(p, F_DA_NAME_IID, name);
	if (iid)
		pb_uint(p, F_DA_STRING_IID, iid);
	else
		pb_str(p, F_DA_STRING, s);
	pb_close(p, at);
}

/* a slice's begin (@nid: an interned name, or none) or end on @track */
static void slice_simple(struct pf *pf, uint64_t ts, int type,
			 uint64_t track, uint32_t nid)
{
	struct pb *p = &pf->out;
	size_t at = pkt_begin_seq(pf, ts, nid ? SEQ_NEEDS_INCREMENTAL_STATE :
				  0), te = pb_open(p, F_PKT_TRACK_EVENT);

	pb_uint(p, F_TE_TYPE, type);
	pb_uint(p, F_TE_TRACK_UUID, track);
	if (nid)
		pb_uint(p, F_TE_NAME_IID, nid);
	pb_close(p, te);
	pb_close(p, at);
}

/* the begin of a request's slice, with its name and arguments */
static void request_begin(struct pf *pf, uint64_t ts, uint64_t track,
			  const struct iotrace_record *r, struct pf_args *x)
{
	static const unsigned char ann[NR_S] = {
		A_OPFLAGS, A_COMM, A_STATUS, A_DEVSTATUS, A_COMMAND,
	};
	struct pb *p = &pf->out;
	size_t at, te, id = 0;
	char name[64];
	uint32_t nid;
	int fresh, j;

	iot_opflags_str(r, x->v[S_OPFLAGS], sizeof(x->v[0]));
	snprintf(x->v[S_COMM], sizeof(x->v[0]), "%s", iot_rec_comm(r));
	if (r->rflags & IOTRACE_RF_COMPLETE)
		iot_errno_name(r->error, x->v[S_STATUS], sizeof(x->v[0]));
	else
		snprintf(x->v[S_STATUS], sizeof(x->v[0]), "no completion");
	/* the decoders say "-" for none */
	iot_decode_status(r, x->v[S_DEVSTATUS], sizeof(x->v[0]));
	iot_decode_cmd(r, x->v[S_COMMAND], sizeof(x->v[0]));
	for (j = 0; j < NR_S; j++) {
		x->iid[j] = 0;
		x->fresh[j] = 0;
		if (j == S_DEVSTATUS || j == S_COMMAND)
			if (!strcmp(x->v[j], "-"))
				x->v[j][0] = 0;
		/* a command names its LBA: hardly ever the same twice */
		if (x->v[j][0] && j != S_COMMAND)
			x->iid[j] = str_iid(pf, x->v[j], &x->fresh[j]);
	}
	nid = name_iid(pf, r, &fresh);
	at = pkt_begin_seq(pf, ts, SEQ_NEEDS_INCREMENTAL_STATE);
	if (!nid || fresh)
		slice_name(name, sizeof(name), r);
	for (j = 0; j < NR_S; j++) {
		if (!x->fresh[j])
			continue;
		if (!id)
			id = pb_open(p, F_PKT_INTERNED);
		intern_one(p, F_ID_STRING_VALUES, x->iid[j], x->v[j]);
	}
	if (fresh) {
		if (!id)
			id = pb_open(p, F_PKT_INTERNED);
		intern_one(p, F_ID_EVENT_NAMES, nid, name);
	}
	if (id)
		pb_close(p, id);
	te = pb_open(p, F_PKT_TRACK_EVENT);
	pb_uint(p, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pb_uint(p, F_TE_TRACK_UUID, track);
	if (nid)
		pb_uint(p, F_TE_NAME_IID, nid);
	else
		pb_str(p, F_TE_NAME, name);
	if (r->sector != UINT64_MAX)
		ann_uint(p, A_SECTOR, r->sector);
	ann_uint(p, A_BYTES, r->bytes);
	ann_uint(p, A_TAG, r->tag);
	ann_uint(p, A_HWQ, r->hwq);
	ann_uint(p, A_PID, r->pid);
	for (j = 0; j < NR_S; j++)
		if (x->v[j][0])
			ann_str(p, ann[j], x->iid[j], x->v[j]);
	if (r->cgroup)
		ann_uint(p, A_CGROUP, r->cgroup);
	pb_close(p, te);
	pb_close(p, at);
}

/**
 * pftrace_rec() - a request: its slice on a lane of its disk, with the
 *	queue and device times as its children, and the queue depth.
 * @xs: the stream (its arg: the writer).
 * @e: the record.
 * @i: its index.
 *
 * The request's slice runs from its allocation (the issue less the queue
 * time, when the record has one) to its completion; "queue" to the
 * issue, "device" from the issue to the completion.  Without a
 * completion (in flight when copied) or an issue (completion only), the
 * slice ends where the known part ends, or is of length 0.
 *
 * Return: 0, or 1 after saying why.
 */
static int pftrace_rec(struct xstream *xs, const struct xrec *e, size_t i)
{
	const struct iotrace_record *r = &e->r;
	struct pf *pf = xs->arg;
	struct pf_disk *k = &pf->d[e->disk];
	uint64_t s = xrec_start(r), q = 0, a, end;
	uint64_t track;
	int hasq, lat;

	(void)i;
	/* device time: issued requests (not an empty PREFLUSH write's wait) */
	lat = iot_rec_has_lat(r) && !(r->rflags & IOTRACE_RF_NO_ISSUE);
	hasq = (r->rflags & IOTRACE_RF_QUEUE_VALID) &&
	       !(r->rflags & IOTRACE_RF_NO_ISSUE);
	if (hasq)
		q = r->queue_ns < s ? r->queue_ns : s;
	a = s - q;
	end = lat ? r->complete_ns : s;
	track = lane_take(pf, e->disk, a, end);
	if (!track)
		goto oom;
	request_begin(pf, a, track, r, &pf->args);
	if (hasq) {
		slice_simple(pf, a, TYPE_SLICE_BEGIN, track, N_QUEUE);
		slice_simple(pf, s, TYPE_SLICE_END, track, 0);
	}
	if (lat) {
		slice_simple(pf, s, TYPE_SLICE_BEGIN, track, N_DEVICE);
		slice_simple(pf, end, TYPE_SLICE_END, track, 0);
	}
	slice_simple(pf, end, TYPE_SLICE_END, track, 0);
	/* the queue depth: requests issued and not completed */
	if (!lat)
		return 0;
	while (k->np && k->pend[0] <= s)
		counter_change(pf, e->disk, pend_pop(k), -1);
	counter_change(pf, e->disk, s, 1);
	if (pend_push(k, end))
		goto oom;
	return 0;
oom:
	iot_err("out of memory");
	return 1;
}

/**
 * export_pftrace() - the records as a Perfetto protobuf trace.
 * @xs: the records, streamed in start order.
 * @fp: output.
 *
 * A track per disk, named by the disk, groups the disk's tracks: "queue
 * depth", a counter of the requests on the device (issued, not
 * completed), then "lane 0", "lane 1", ...: every request is a slice
 * named by operation and size ("read 4K") on a lane where no other
 * overlaps it (pftrace_rec()), its arguments sector, bytes, opflags,
 * tag, hwq, pid, comm, status, and device status, command and cgroup
 * when known.  Timestamps are the records' own (CLOCK_MONOTONIC ns);
 * the packets name no clock, so Perfetto takes them as its trace time.
 * One sequence of packets, its state cleared by the first: the names of
 * events and arguments and the short string values (comm, status, ...)
 * are interned (up to 4096 of each; beyond, written out).
 * The memory kept: a lane per request that was in flight at once, a
 * completion time per request on the device, and the interned strings.
 *
 * Return: 0, or 1 after printing what failed.
 */
int export_pftrace(struct xstream *xs, FILE *fp)
{
	const struct xset *x = &xs->x;
	struct pf *pf = calloc(1, sizeof(*pf));
	char desc[256];
	unsigned int d;
	int rc = 1;

	if (!pf)
		goto oom;
	pf->fp = fp;
	pf->nd = x->src.nr_disks;
	pf->d = calloc(pf->nd ? pf->nd : 1, sizeof(*pf->d));
	pf->names = calloc(PF_NAME_SLOTS, sizeof(*pf->names));
	pf->strs = calloc(PF_STR_SLOTS, sizeof(*pf->strs));
	if (!pf->d || !pf->names || !pf->strs)
		goto oom;
	pf->next_str = 1;
	pf->next_uuid = 2 * (uint64_t)pf->nd + 1;
	pf_start(pf);
	for (d = 0; d < pf->nd; d++) {
		const char *name = x->src.disks[d].name;

		if (x->disk >= 0 && (int)d != x->disk)
			continue;
		snprintf(desc, sizeof(desc),
			 "iotrace: the requests of %s, one lane per request in flight at once; queue depth: requests on the device (issued, not completed)",
			 name);
		track_desc(pf, uuid_disk(d), 0, name, 0, 0, desc);
		track_desc(pf, uuid_counter(d), uuid_disk(d), "queue depth", 1,
			   0, NULL);
	}
	if (xstream_run(xs, pftrace_rec, pf))
		goto out;
	for (d = 0; d < pf->nd; d++) {
		struct pf_disk *k = &pf->d[d];

		while (k->np)
			counter_change(pf, d, pend_pop(k), -1);
		if (k->cpend)
			counter_emit(pf, d, k->ct, k->depth);
	}
	pf_flush(pf);
	rc = 0;
	goto out;
oom:
	iot_err("out of memory");
out:
	if (pf) {
		for (d = 0; pf->d && d < pf->nd; d++) {
			free(pf->d[d].lanes);
			free(pf->d[d].pend);
		}
		free(pf->d);
		free(pf->names);
		free(pf->strs);
		free(pf);
	}
	return rc;
}
