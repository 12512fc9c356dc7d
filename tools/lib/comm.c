// SPDX-License-Identifier: GPL-2.0
/*
 * Command names of submitters: pid -> comm, from what a trace file's
 * IOTRACE_CHUNK_COMMS chunks say or what the kernel noted (debugfs
 * iotrace/comms, "PID COMM" lines).  One table per process: a later name
 * for a pid replaces the earlier one.  Entries changed since the recorder
 * last wrote them are "dirty" until iot_comm_take_dirty().
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

/* per thread: each snapshot saver of "watch" keeps its own names */
static __thread struct comm_ent *tab;
static __thread size_t cap, used, ndirty;

static size_t slot_of(uint32_t pid, size_t c)
{
	return (size_t)(pid * 2654435761u) & (c - 1);
}

static struct comm_ent *find(uint32_t pid)
{
	size_t i;

	if (!cap)
		return NULL;
	for (i = slot_of(pid, cap);; i = (i + 1) & (cap - 1)) {
		if (tab[i].pid == pid || !tab[i].pid)
			return &tab[i];
	}
}

static int grow(void)
{
	size_t c = cap ? cap * 2 : 1024, i, j;
	struct comm_ent *t = calloc(c, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < cap; i++) {
		if (!tab[i].pid)
			continue;
		for (j = slot_of(tab[i].pid, c); t[j].pid; j = (j + 1) & (c - 1))
			;
		t[j] = tab[i];
	}
	free(tab);
	tab = t;
	cap = c;
	return 0;
}

/**
 * iot_comm_set() - name pid @pid.
 * @pid: the pid; 0 is never named.
 * @comm: the name, at most @len bytes, NUL-terminated or not.
 * @len: bytes of @comm.
 *
 * Return: 1 when new or changed, 0 when the same, -1 out of memory or the
 * table is full (the name is not kept).
 */
int iot_comm_set(uint32_t pid, const char *comm, size_t len)
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
	if ((used + 1) * 2 > cap) {
		if (used >= COMM_MAX || grow())
			return -1;
	}
	e = find(pid);
	if (e->pid && !strcmp(e->comm, name))
		return 0;
	if (!e->pid)
		used++;
	e->pid = pid;
	memcpy(e->comm, name, n + 1);
	if (!e->dirty)
		ndirty++;
	e->dirty = 1;
	return 1;
}

/* The name of @pid, or NULL when it is not known. */
const char *iot_comm_get(uint32_t pid)
{
	const struct comm_ent *e;

	if (!pid)
		return NULL;
	e = find(pid);
	return e && e->pid ? e->comm : NULL;
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
 * iot_comm_load_kernel() - add what the kernel noted (debugfs
 *	iotrace/comms, "PID COMM" per line after a header).
 *
 * Return: names new or changed, or -1 with errno (the file cannot be read:
 * debugfs not mounted, an older module, lockdown).
 */
int iot_comm_load_kernel(void)
{
	char path[512], line[128];
	int changed = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/comms", iot_debugfs());
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
		if (iot_comm_set((uint32_t)pid, end + 1, strlen(end + 1)) > 0)
			changed++;
	}
	fclose(fp);
	return changed;
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
	struct iotrace_file_comm *v;
	size_t i, n = 0;

	*out = NULL;
	if (!ndirty)
		return 0;
	v = calloc(ndirty, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < cap && n < ndirty; i++) {
		if (!tab[i].pid || !tab[i].dirty)
			continue;
		v[n].pid = tab[i].pid;
		memcpy(v[n].comm, tab[i].comm, strlen(tab[i].comm));
		tab[i].dirty = 0;
		n++;
	}
	ndirty = 0;
	*out = v;
	return (int)n;
}

/* Forget every name (tests; two sources read one after the other). */
void iot_comm_reset(void)
{
	free(tab);
	tab = NULL;
	cap = used = ndirty = 0;
}
