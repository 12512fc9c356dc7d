// SPDX-License-Identifier: GPL-2.0
/*
 * Command names of submitters: pid -> comm, from what a trace file's
 * IOTRACE_CHUNK_COMMS chunks say or what the kernel noted (debugfs
 * iotrace/comms, "PID COMM" lines).  A table (struct iot_comms) per
 * reader: a later name for a pid replaces the earlier one.  The commands
 * use one per thread (iot_comm_*(): each snapshot saver of "watch" keeps
 * its own names); the API's handles (api.c) one each (iot_comms_*()).
 * Entries changed since the recorder last wrote them are "dirty" until
 * iot_comm_take_dirty().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "iot.h"

#define COMM_MAX	(1u << 20)	/* pids kept at most */

/**
 * struct comm_ent - one pid's name.
 * @pid: the pid (0: empty slot).
 * @dirty: changed since iot_comm_take_dirty().
 * @comm: its name, NUL-terminated.
 */
struct comm_ent {
	uint32_t pid;
	uint32_t dirty;
	char comm[IOT_COMM_LEN + 1];
};

/* the commands' table: per thread */
static __thread struct iot_comms thread_comms;

static size_t slot_of(uint32_t pid, size_t c)
{
	return (size_t)(pid * 2654435761u) & (c - 1);
}

static struct comm_ent *find(const struct iot_comms *t, uint32_t pid)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = slot_of(pid, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->tab[i].pid == pid || !t->tab[i].pid)
			return &t->tab[i];
	}
}

static int grow(struct iot_comms *t)
{
	size_t c = t->cap ? t->cap * 2 : 1024, i, j;
	struct comm_ent *v = calloc(c, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (!t->tab[i].pid)
			continue;
		for (j = slot_of(t->tab[i].pid, c); v[j].pid;
		     j = (j + 1) & (c - 1))
			;
		v[j] = t->tab[i];
	}
	free(t->tab);
	t->tab = v;
	t->cap = c;
	return 0;
}

/**
 * iot_comms_set() - name pid @pid in table @t.
 * @t: the table (zeroed, or used).
 * @pid: the pid; 0 is never named.
 * @comm: the name, at most @len bytes, NUL-terminated or not.
 * @len: bytes of @comm.
 *
 * Return: 1 when new or changed, 0 when the same, -1 out of memory or the
 * table is full (the name is not kept).
 */
int iot_comms_set(struct iot_comms *t, uint32_t pid, const char *comm,
		  size_t len)
{
	struct comm_ent *e;
	char name[IOT_COMM_LEN + 1];
	size_t n = strnlen(comm, len);

	if (!pid)
		return 0;
	if (n > IOT_COMM_LEN)
		n = IOT_COMM_LEN;
	memcpy(name, comm, n);
	name[n] = 0;
	if ((t->used + 1) * 2 > t->cap) {
		if (t->used >= COMM_MAX || grow(t))
			return -1;
	}
	e = find(t, pid);
	if (e->pid && !strcmp(e->comm, name))
		return 0;
	if (!e->pid)
		t->used++;
	e->pid = pid;
	memcpy(e->comm, name, n + 1);
	if (!e->dirty)
		t->ndirty++;
	e->dirty = 1;
	return 1;
}

/* iot_comms_set() of the thread's table */
int iot_comm_set(uint32_t pid, const char *comm, size_t len)
{
	return iot_comms_set(&thread_comms, pid, comm, len);
}

/* The name of @pid in @t, or NULL when it is not known. */
const char *iot_comms_get(const struct iot_comms *t, uint32_t pid)
{
	const struct comm_ent *e;

	if (!pid)
		return NULL;
	e = find(t, pid);
	return e && e->pid ? e->comm : NULL;
}

/* The name of @pid in the thread's table, or NULL when it is not known. */
const char *iot_comm_get(uint32_t pid)
{
	return iot_comms_get(&thread_comms, pid);
}

/*
 * The submitter of @r for people: its name, "[kernel]" for the kernel's
 * own I/O, "-" when unknown (no pid, or no name noted for it).
 */
const char *iot_rec_comm(const struct iotrace_record *r)
{
	const char *c;

	if (r->rflags & IOTRACE_RF_KERNEL)
		return "[kernel]";
	c = iot_comm_get(r->pid);
	return c ? c : "-";
}

/**
 * iot_rec_has_pid() - does @r name its submitter?
 * @r: a record, completed or in flight.
 *
 * Return: nonzero if its pid was noted (the kernel's own I/O is pid 0 with
 * IOTRACE_RF_KERNEL); pid 0 without that flag is no submitter noted.
 */
int iot_rec_has_pid(const struct iotrace_record *r)
{
	return r->pid || (r->rflags & IOTRACE_RF_KERNEL);
}

/*
 * The submitter's pid of @r for people, in @buf of @len bytes: the number,
 * or "-" when none was noted (iot_rec_has_pid()).
 */
const char *iot_rec_pid(const struct iotrace_record *r, char *buf,
			size_t len)
{
	if (!iot_rec_has_pid(r))
		return "-";
	snprintf(buf, len, "%u", r->pid);
	return buf;
}

/**
 * iot_comms_load_kernel() - add to @t what the kernel noted (debugfs
 *	iotrace/comms, "PID COMM" per line after a header).
 * @t: the table.
 * @debugfs: the iotrace debugfs directory.
 *
 * Return: names new or changed, or -1 with errno (the file cannot be read:
 * debugfs not mounted, an older module, lockdown).
 */
int iot_comms_load_kernel(struct iot_comms *t, const char *debugfs)
{
	char path[512], line[128];
	int changed = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/comms", debugfs);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char *end, *nl = strchr(line, '\n');
		unsigned long pid;

		if (nl)
			*nl = 0;
		errno = 0;
		pid = strtoul(line, &end, 10);
		if (errno || end == line || *end != ' ' || !pid ||
		    pid > UINT32_MAX)
			continue;	/* the header, or not a line of ours */
		if (iot_comms_set(t, (uint32_t)pid, end + 1,
				  strlen(end + 1)) > 0)
			changed++;
	}
	fclose(fp);
	return changed;
}

/* iot_comms_load_kernel() into the thread's table, from iot_debugfs() */
int iot_comm_load_kernel(void)
{
	return iot_comms_load_kernel(&thread_comms, iot_debugfs());
}

/**
 * iot_comm_take_dirty() - the entries named or renamed since the last
 *	call, as trace-file entries, and mark them clean.
 * @out: set to a malloc'ed array (NULL when none), to free().
 *
 * Return: the number of entries in @out, or -1 when out of memory (they
 * stay dirty).
 */
int iot_comm_take_dirty(struct iotrace_file_comm **out)
{
	struct iot_comms *t = &thread_comms;
	struct iotrace_file_comm *v;
	size_t i, n = 0;

	*out = NULL;
	if (!t->ndirty)
		return 0;
	v = calloc(t->ndirty, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < t->cap && n < t->ndirty; i++) {
		if (!t->tab[i].pid || !t->tab[i].dirty)
			continue;
		v[n].pid = t->tab[i].pid;
		memcpy(v[n].comm, t->tab[i].comm, strlen(t->tab[i].comm));
		t->tab[i].dirty = 0;
		n++;
	}
	t->ndirty = 0;
	*out = v;
	return (int)n;
}

/* Forget every name of @t and free its memory (zeroed again). */
void iot_comms_free(struct iot_comms *t)
{
	free(t->tab);
	memset(t, 0, sizeof(*t));
}

/* Forget every name (tests; two sources read one after the other). */
void iot_comm_reset(void)
{
	iot_comms_free(&thread_comms);
}
