// SPDX-License-Identifier: GPL-2.0
/*
 * iotracectl - where the running nvme driver keeps a request's completion
 * status and result: the offsets of struct nvme_request's "status" and
 * "result" members, from nvme_core's module BTF (split BTF on top of the
 * kernel's, /sys/kernel/btf/{vmlinux,nvme_core}), read with libbpf.
 * Nothing here is guessed: a member that is missing, a bit field, or one
 * of an unexpected type or size is an error, and no layout is given.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* $IOTRACE_BTF_DIR overrides /sys/kernel/btf (host tests). */
const char *iot_btf_dir(void)
{
	const char *d = getenv("IOTRACE_BTF_DIR");

	return d && *d ? d : "/sys/kernel/btf";
}

/* The type of @id with typedefs and qualifiers skipped. */
static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, r);
}

/*
 * Member @name of struct @t: its byte offset and size.  Return: 0, or -1
 * with the reason in @err.
 */
static int find_member(const struct btf *btf, const struct btf_type *t,
		       const char *name, __u32 *off, __u32 *size,
		       const struct btf_type **mt, char *err, size_t errlen)
{
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i);
		__s64 sz;

		if (!mn || strcmp(mn, name))
			continue;
		if (btf_member_bitfield_size(t, i) || bits % 8)
			return ERR("struct nvme_request.%s is a bit field", name), -1;
		sz = btf__resolve_size(btf, m->type);
		*mt = resolved(btf, m->type);
		if (sz <= 0 || !*mt)
			return ERR("struct nvme_request.%s: cannot resolve its type",
				   name), -1;
		*off = bits / 8;
		*size = (__u32)sz;
		return 0;
	}
	return ERR("struct nvme_request has no member '%s'", name), -1;
}

/* @u (union nvme_result) must hold a 4-byte u32 at offset 0: dword 0. */
static int result_dw0(const struct btf *btf, const struct btf_type *u,
		      char *err, size_t errlen)
{
	const struct btf_member *m;
	int i, n;

	if (!btf_is_union(u) && !btf_is_struct(u))
		return ERR("struct nvme_request.result is not a union"), -1;
	m = btf_members(u);
	n = btf_vlen(u);
	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);

		if (mn && !strcmp(mn, "u32") && !btf_member_bit_offset(u, i) &&
		    !btf_member_bitfield_size(u, i) &&
		    btf__resolve_size(btf, m->type) == 4)
			return 0;
	}
	return ERR("union nvme_result has no 4-byte 'u32' at its start"), -1;
}

/**
 * iot_nvme_btf_layout() - find struct nvme_request's status and result.
 * @dir: the BTF directory (iot_btf_dir()).
 * @l: the layout found.
 * @err: the reason when there is none.
 * @errlen: size of @err.
 *
 * Looks in @dir/nvme_core (split on @dir/vmlinux); without it, in
 * @dir/vmlinux alone (nvme_core built in).
 *
 * Return: 0, IOT_BTF_NONE when there is no BTF that describes nvme_core,
 * or -1 on any other error.
 */
int iot_nvme_btf_layout(const char *dir, struct iot_nvme_layout *l,
			char *err, size_t errlen)
{
	char vpath[4096], mpath[4096];
	struct btf *base, *btf = NULL;
	const struct btf_type *t, *st, *rt;
	__s32 id;
	int ret = -1;

	memset(l, 0, sizeof(*l));
	snprintf(vpath, sizeof(vpath), "%s/vmlinux", dir);
	snprintf(mpath, sizeof(mpath), "%s/nvme_core", dir);
	base = btf__parse(vpath, NULL);
	if (!base) {
		if (errno == ENOENT)
			return ERR("no %s: this kernel has no BTF; NVMe status is not recorded",
				   vpath), IOT_BTF_NONE;
		return ERR("%s: %s", vpath, strerror(errno)), -1;
	}
	if (!access(mpath, F_OK)) {
		btf = btf__parse_split(mpath, base);
		if (!btf) {
			ERR("%s: %s", mpath, strerror(errno));
			goto out;
		}
		snprintf(l->source, sizeof(l->source), "%s", mpath);
	} else if (btf__find_by_name_kind(base, "nvme_request",
					  BTF_KIND_STRUCT) > 0) {
		snprintf(l->source, sizeof(l->source), "%s", vpath);
	} else {
		ERR("no %s: this kernel has no module BTF; NVMe status is not recorded",
		    mpath);
		ret = IOT_BTF_NONE;
		goto out;
	}
	id = btf__find_by_name_kind(btf ? btf : base, "nvme_request",
				    BTF_KIND_STRUCT);
	if (id <= 0) {
		ERR("%s describes no struct nvme_request", l->source);
		goto out;
	}
	t = btf__type_by_id(btf ? btf : base, id);
	if (find_member(btf ? btf : base, t, "status", &l->status_off,
			&l->status_size, &st, err, errlen) ||
	    find_member(btf ? btf : base, t, "result", &l->result_off,
			&l->result_size, &rt, err, errlen))
		goto out;
	if (!btf_is_int(st) || l->status_size != 2) {
		ERR("struct nvme_request.status is not a 16-bit integer");
		goto out;
	}
	if (result_dw0(btf ? btf : base, rt, err, errlen))
		goto out;
	if (l->result_size != 4 && l->result_size != 8) {
		ERR("union nvme_result is %u bytes, not 4 or 8", l->result_size);
		goto out;
	}
	l->struct_size = t->size;
	ret = 0;
out:
	btf__free(btf);
	btf__free(base);
	return ret;
}
