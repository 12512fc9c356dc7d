/* SPDX-License-Identifier: GPL-2.0 */
/* iotracectl: struct nvme_request's layout from the kernel's BTF (btf.c). */
#ifndef IOT_BTF_H
#define IOT_BTF_H

#include <stdint.h>
#include <stdlib.h>

/* iot_nvme_btf_layout(): the kernel has no BTF describing nvme_core */
#define IOT_BTF_NONE	1

/**
 * struct iot_nvme_layout - where struct nvme_request keeps the completion.
 * @status_off: byte offset of "status" (u16).
 * @status_size: its size, 2.
 * @result_off: byte offset of "result" (union nvme_result, dword 0 first).
 * @result_size: its size (8).
 * @struct_size: size of struct nvme_request.
 * @source: the BTF file it came from.
 */
struct iot_nvme_layout {
	uint32_t status_off, status_size, result_off, result_size;
	uint32_t struct_size;
	char source[4200];
};

const char *iot_btf_dir(void);
int iot_nvme_btf_layout(const char *dir, struct iot_nvme_layout *l,
			char *err, size_t errlen);

#endif /* IOT_BTF_H */
