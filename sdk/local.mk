# sdk/: the connector SDK. rocketsql/connector.h is generated into the build tree from the
# internal headers below (in dependency order: each one's "..." includes must come before
# it), so a type or declaration has one source of truth; `make install` puts it in
# $(includedir)/rocketsql/. The rocketsql binary links sdk_exports.c, a table of every SDK
# function generated from that header, and exports them all to plugins (-rdynamic).
RSQL_SDK_INPUTS = \
	base/rsql_error.h base/rsql_types.h base/rsql_mem.h base/rsql_buf.h base/rsql_value.h \
	base/rsql_time.h base/rsql_opts.h \
	connectors/rsql_io.h connectors/rsql_connector.h connectors/formats/rsql_format.h

rocketsqlincludedir = $(includedir)/rocketsql
nodist_rocketsqlinclude_HEADERS = sdk/rocketsql/connector.h

sdk/rocketsql/connector.h: $(RSQL_SDK_INPUTS) $(srcdir)/sdk/mkheader.sh Makefile
	$(AM_V_GEN)$(MKDIR_P) sdk/rocketsql && \
	$(SHELL) $(srcdir)/sdk/mkheader.sh '$(PACKAGE_VERSION)' '$(srcdir)' $(RSQL_SDK_INPUTS) \
	    >$@-t && mv $@-t $@

sdk/sdk_exports.c: sdk/rocketsql/connector.h $(srcdir)/sdk/mkexports.sh
	$(AM_V_GEN)$(CC) -E -P -x c sdk/rocketsql/connector.h | \
	    $(SHELL) $(srcdir)/sdk/mkexports.sh >$@-t && mv $@-t $@

BUILT_SOURCES += sdk/rocketsql/connector.h
CLEANFILES += sdk/rocketsql/connector.h sdk/sdk_exports.c
EXTRA_DIST += sdk/mkheader.sh sdk/mkexports.sh

# The binary side of the SDK (cli/local.mk defines the program).
nodist_rocketsql_SOURCES = sdk/sdk_exports.c
rocketsql_LDFLAGS = $(AM_LDFLAGS) -rdynamic

# The example plugin, built out of tree against the installed header by
# tests/integration/t_plugins.sh.
EXTRA_DIST += examples/plugins/exec/exec.c examples/plugins/exec/Makefile \
	examples/plugins/exec/README.md
