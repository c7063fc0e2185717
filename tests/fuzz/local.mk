# tests/fuzz/: the libFuzzer targets. Built only by `make fuzz` in a build configured with
# CC=clang --enable-fuzzing (scripts/fuzz does both and runs them with tests/fuzz/run), never
# by `make` or `make check`. Seed inputs: tests/fuzz/corpus/<target>/.
FUZZ_TARGETS = tests/fuzz/fuzz_sql tests/fuzz/fuzz_formats tests/fuzz/fuzz_options \
	tests/fuzz/fuzz_json_path tests/fuzz/fuzz_funcs tests/fuzz/fuzz_fmt_canal \
	tests/fuzz/fuzz_fmt_maxwell tests/fuzz/fuzz_fmt_debezium tests/fuzz/fuzz_pgoutput \
	tests/fuzz/fuzz_state tests/fuzz/fuzz_dtoa tests/fuzz/fuzz_position
if HAVE_RMQ
FUZZ_TARGETS += tests/fuzz/fuzz_rmq_decode
endif
EXTRA_PROGRAMS = $(FUZZ_TARGETS)
FUZZ_LINK_FLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)

tests_fuzz_fuzz_sql_SOURCES = tests/fuzz/fuzz_sql.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_sql_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_sql_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_formats_SOURCES = tests/fuzz/fuzz_formats.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_formats_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_formats_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_options_SOURCES = tests/fuzz/fuzz_options.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_options_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_options_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_json_path_SOURCES = tests/fuzz/fuzz_json_path.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_json_path_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_json_path_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_funcs_SOURCES = tests/fuzz/fuzz_funcs.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_funcs_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_funcs_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_fmt_canal_SOURCES = tests/fuzz/fuzz_fmt_canal.c tests/fuzz/fuzz_fmt_cdc.h \
	tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_fmt_canal_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_fmt_canal_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_fmt_maxwell_SOURCES = tests/fuzz/fuzz_fmt_maxwell.c tests/fuzz/fuzz_fmt_cdc.h \
	tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_fmt_maxwell_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_fmt_maxwell_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_fmt_debezium_SOURCES = tests/fuzz/fuzz_fmt_debezium.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_fmt_debezium_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_fmt_debezium_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_pgoutput_SOURCES = tests/fuzz/fuzz_pgoutput.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_pgoutput_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_pgoutput_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_state_SOURCES = tests/fuzz/fuzz_state.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_state_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_state_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_dtoa_SOURCES = tests/fuzz/fuzz_dtoa.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_dtoa_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_dtoa_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_position_SOURCES = tests/fuzz/fuzz_position.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_position_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_position_LDFLAGS = $(FUZZ_LINK_FLAGS)
if HAVE_RMQ
tests_fuzz_fuzz_rmq_decode_SOURCES = tests/fuzz/fuzz_rmq_decode.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_rmq_decode_LDADD = $(RSQL_LIBS)
tests_fuzz_fuzz_rmq_decode_LDFLAGS = $(FUZZ_LINK_FLAGS)
endif

if ENABLE_FUZZING
fuzz: $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: this build was configured without --enable-fuzzing;" \
	      "run scripts/fuzz (it configures build-fuzz/ with CC=clang --enable-fuzzing)" >&2; \
	exit 1
endif
.PHONY: fuzz

EXTRA_DIST += tests/fuzz/run tests/fuzz/README.md tests/fuzz/corpus tests/fuzz/mkseeds_rmq.py \
	scripts/fuzz
