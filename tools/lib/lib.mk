# SPDX-License-Identifier: GPL-2.0
# libiotrace, the reader core the commands sit on: the ring and trace-file
# readers, the record sources, the reordering window and its queues, the
# submitter names, the stacked-device tables and the decoders.  Included
# by tools/Makefile and tools/fuzz/Makefile, which set before it:
#   IOT_TOOLS      the tools/ folder (absolute)
#   B              the build folder
#   VARIANTS       the builds, e.g. normal san
#   objdir         $(call objdir,VARIANT): the folder of its objects
#   VFLAGS_<v>     the compiler flags of variant <v>
#   WARN           the warning flags
# It gives, per variant, the objects $(call objdir,VARIANT)/lib/*.o (and
# their -MMD dependency files) and the static library
# $(call libiotrace,VARIANT), $(B)/VARIANT/libiotrace.a; and once, from
# objects of $(CFLAGS) -fPIC ($(B)/obj-pic/lib), the shared library
# $(LIB_SO) (soname $(LIB_SONAME), only the functions of the public header
# exported, under the version LIBIOTRACE_1 of $(LIB_MAP)) with the link
# $(B)/libiotrace.so beside it.  The library's sources see only their own
# folder, the uapi header and the public header (include/iotrace/): none
# of the commands' (tests/layers.sh checks the objects and the sources).
LIB_DIR := $(IOT_TOOLS)/lib
LIB_NAMES := ring file drain input preg window pq bq comm stack decode \
	decode_nvme decode_scsi decode_ata util api
LIB_INCLUDE := $(IOT_TOOLS)/include
LIB_CPPFLAGS = $(CPPFLAGS) -I$(IOT_TOOLS)/../uapi -I$(LIB_DIR) \
	-I$(LIB_INCLUDE) -D_GNU_SOURCE
LIB_HEADERS := $(LIB_INCLUDE)/iotrace/libiotrace.h
LIB_SONAME := libiotrace.so.1
LIB_SO := $(B)/$(LIB_SONAME)
LIB_MAP := $(LIB_DIR)/libiotrace.map
LIB_PIC := $(B)/obj-pic/lib
AR ?= ar

lib-objs = $(LIB_NAMES:%=$(call objdir,$(1))/lib/%.o)
libiotrace = $(B)/$(1)/libiotrace.a

define lib-variant
$(call objdir,$(1))/lib/%.o: $(LIB_DIR)/%.c $(LIB_DIR)/lib.mk
	@mkdir -p $$(@D)
	$$(CC) $$(LIB_CPPFLAGS) $$(VFLAGS_$(1)) $$(WARN) -MMD -MP -c -o $$@ $$<

$(call libiotrace,$(1)): $(call lib-objs,$(1))
	@mkdir -p $$(@D)
	rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach v,$(VARIANTS),$(eval $(call lib-variant,$(v))))

-include $(wildcard $(foreach v,$(VARIANTS),$(call objdir,$(v))/lib/*.d))

$(LIB_PIC)/%.o: $(LIB_DIR)/%.c $(LIB_DIR)/lib.mk
	@mkdir -p $(@D)
	$(CC) $(LIB_CPPFLAGS) $(CFLAGS) -fPIC $(WARN) -MMD -MP -c -o $@ $<

$(LIB_SO): $(LIB_NAMES:%=$(LIB_PIC)/%.o) $(LIB_MAP)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script,$(LIB_MAP) -Wl,--no-undefined -o $@ \
		$(filter %.o,$^)
	ln -sf $(LIB_SONAME) $(B)/libiotrace.so

-include $(wildcard $(LIB_PIC)/*.d)
